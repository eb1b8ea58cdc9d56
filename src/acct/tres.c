/* Trackable resources (TRES): Slurm's IDs and names, and the
 * "cpu=10,mem=4G,gres/gpu=2" strings limits are written in.  Pure
 * functions; which limits use them is assoc.c's and limits.c's business. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "acct/assoc.h"

static const struct {
	int id;
	const char *name;
} tres_table[TRES_COUNT] = {
#define TRES_ROW(e, id, name) [e] = { id, name },
	TRES_TABLE(TRES_ROW)
#undef TRES_ROW
};

int tres_id(enum tres t)
{
	return t < TRES_COUNT ? tres_table[t].id : -1;
}

const char *tres_name(enum tres t)
{
	return t < TRES_COUNT ? tres_table[t].name : NULL;
}

void tres_clear(tres_vec v)
{
	for (int i = 0; i < TRES_COUNT; i++)
		v[i] = ACCT_UNSET;
}

/* A TRES by name ("cpu", "gres/gpu", "gpu" alone is not Slurm's) or by
 * its numeric ID ("1=10" is accepted by Slurm's sacctmgr too). */
static int tres_lookup(const char *name, size_t len)
{
	for (int i = 0; i < TRES_COUNT; i++)
		if (strlen(tres_table[i].name) == len && !strncasecmp(tres_table[i].name, name, len))
			return i;
	char *end;
	long id = strtol(name, &end, 10);
	if (end == name + len && len)
		for (int i = 0; i < TRES_COUNT; i++)
			if (tres_table[i].id == id)
				return i;
	return -1;
}

/* A count: digits, and for mem a size suffix (K M G T; MB without). */
static int tres_count(enum tres t, const char *s, int64_t *out)
{
	uint64_t v;
	if (!strcmp(s, "-1")) {
		*out = ACCT_UNSET;
		return 0;
	}
	if (t == TRES_MEM) {
		if (parse_size_mb(s, &v) < 0)
			return -1;
	} else if (parse_uint(s, INT64_MAX, &v) < 0) {
		return -1;
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

int tres_parse(const char *s, tres_vec v, char *err, size_t errlen)
{
	tres_vec out;
	memcpy(out, v, sizeof(out));
	if (!s || !*s) {
		snprintf(err, errlen, "Invalid TRES specification '' (expected name=count)");
		return -1;
	}
	/* "-1" alone: every entry cleared (Slurm's GrpTRES=-1) */
	if (!strcmp(s, "-1")) {
		tres_clear(v);
		return 0;
	}
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, ",");
		char *item = xstrndup(p, len);
		char *eq = strchr(item, '=');
		int t = eq ? tres_lookup(item, eq - item) : -1;
		int64_t count;
		if (!eq || eq == item) {
			snprintf(err, errlen, "Invalid TRES specification '%.60s' (expected name=count)",
				 item);
			free(item);
			return -1;
		}
		if (t < 0) {
			*eq = 0;
			snprintf(err, errlen, "Invalid TRES name '%.60s' (known: cpu, mem, energy, node, "
				 "billing, fs/disk, vmem, pages, gres/gpu)", item);
			free(item);
			return -1;
		}
		if (tres_count(t, eq + 1, &count) < 0) {
			snprintf(err, errlen, "Invalid TRES count '%.60s' for %s", eq + 1, tres_table[t].name);
			free(item);
			return -1;
		}
		out[t] = count;
		free(item);
		p += len;
		if (*p == ',')
			p++;
	}
	memcpy(v, out, sizeof(out));
	return 0;
}

char *tres_string(const tres_vec v)
{
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "");
	for (int i = 0; i < TRES_COUNT; i++) {
		if (v[i] == ACCT_UNSET)
			continue;
		char num[32];
		if (i == TRES_MEM)
			fmt_size_mb((uint64_t)v[i], num, sizeof(num));
		else
			snprintf(num, sizeof(num), "%lld", (long long)v[i]);
		if (sb.len)
			strbuf_adds(&sb, ",");
		strbuf_adds(&sb, tres_table[i].name);
		strbuf_adds(&sb, "=");
		strbuf_adds(&sb, num);
	}
	return sb.s;
}
