/* A line of Slurm's flat file (sacctmgr load; `herd sim --accounts`
 * reads its file with it too) into the record a load sends, the quoting
 * and escapes flat.c's dump writes undone.  Pure: no I/O. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The escape at s (just after its backslash) into sb; returns its length. */
static size_t flat_unescape(struct strbuf *sb, const char *s)
{
	char c = *s;
	if (c == 'n' || c == 'r' || c == 't') {
		strbuf_add(sb, c == 'n' ? "\n" : c == 'r' ? "\r" : "\t", 1);
		return 1;
	}
	if (c == 'x' && hex_digit(s[1]) >= 0 && hex_digit(s[2]) >= 0) {
		/* ASCII only, as dump writes them (control characters): a byte
		 * past 0x7f would make the line's text other than UTF-8, and
		 * its record or attribute would be lost (found by fuzzing) */
		int b = hex_digit(s[1]) * 16 + hex_digit(s[2]);
		if (b > 0 && b < 0x80) {
			char ch = (char)b;
			strbuf_add(sb, &ch, 1);
			return 3;
		}
	}
	strbuf_add(sb, s, 1);   /* \' \\ and any other character: itself */
	return 1;
}

/* A quoted or bare value at *p (bare: up to the next ':'); advances *p. */
static char *flat_value(const char **p)
{
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "");
	const char *s = *p;
	if (*s == '\'' || *s == '"') {
		char q = *s++;
		while (*s && *s != q) {
			if (*s == '\\' && s[1])
				s += 1 + flat_unescape(&sb, s + 1);
			else
				strbuf_add(&sb, s++, 1);
		}
		if (*s == q)
			s++;
	} else {
		while (*s && *s != ':' && *s != '\n')
			strbuf_add(&sb, s++, 1);
		while (sb.len && isspace((unsigned char)sb.s[sb.len - 1]))
			sb.s[--sb.len] = 0;
	}
	*p = s;
	return sb.s;
}

/* One line into {type, name, attrs}; NULL for a blank or comment line, or
 * (with *bad) a malformed one. */
json_t *flat_parse_line(const char *line, bool *bad)
{
	const char *p = line;
	*bad = false;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return NULL;
	/* The records are JSON, which holds only UTF-8: a line that is not
	 * would lose its record or attributes in silence (found by fuzzing). */
	json_t *utf8 = json_string(line);
	if (!utf8) {
		*bad = true;
		return NULL;
	}
	json_decref(utf8);
	const char *dash = strstr(p, " - ");
	if (!dash) {
		*bad = true;
		return NULL;
	}
	char *type = xstrndup(p, dash - p);
	p = dash + 3;
	while (*p == ' ')
		p++;
	char *name = flat_value(&p);
	json_t *attrs = json_object();
	while (*p == ':') {
		p++;
		const char *eq = strchr(p, '=');
		if (!eq) {
			*bad = true;
			break;
		}
		char *key = xstrndup(p, eq - p);
		p = eq + 1;
		char *val = flat_value(&p);
		const struct key_def *k = keys_find(key, strlen(key));
		if (!k) {
			json_object_set_new(attrs, key, json_string(val));   /* the controller names it */
		} else {
			keys_put(attrs, k, val, 0);
		}
		free(key);
		free(val);
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		*bad = true;
	char *ltype = text_lower(type), *lname = text_lower(name);
	json_t *rec = json_pack("{s:s, s:s, s:o}", "type", ltype, "name", lname, "attrs", attrs);
	if (!rec)
		*bad = true;   /* never dropped without a word */
	free(type);
	free(name);
	free(ltype);
	free(lname);
	return rec;
}
