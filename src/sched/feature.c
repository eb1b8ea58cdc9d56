/* Constraint expressions (-C) evaluated against a node's Features list, by
 * recursive descent: expr = term {'|' term}; term = factor {('&'|',') factor};
 * factor = name | '(' expr ')' | '[' expr ']'. */
#include <ctype.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "sched/feature.h"

struct fparse {
	const char *p;
	const char *list;      /* the features a name is looked up in */
	bool all_known;        /* feature_check: every name was found */
	bool bad;              /* syntax error */
	int depth;             /* open groups: bounded, so no input can exhaust the stack */
};

#define FEATURE_MAX_DEPTH 32

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_-.:+", c));
}

/* Is name[0..len) one of the comma-separated items of list? */
static bool in_list(const char *list, const char *name, size_t len)
{
	while (list && *list) {
		size_t n = strcspn(list, ",");
		if (n == len && !strncmp(list, name, len))
			return true;
		list += n;
		if (*list == ',')
			list++;
	}
	return false;
}

static bool fexpr(struct fparse *f);

static bool ffactor(struct fparse *f)
{
	char open = *f->p;
	if (open == '(' || open == '[') {
		if (++f->depth > FEATURE_MAX_DEPTH) {
			f->bad = true;
			return false;
		}
		f->p++;
		bool v = fexpr(f);
		f->depth--;
		if (*f->p != (open == '(' ? ')' : ']'))
			f->bad = true;
		else
			f->p++;
		return v;
	}
	const char *start = f->p;
	while (name_char(*f->p))
		f->p++;
	if (f->p == start) {
		f->bad = true;
		return false;
	}
	bool found = in_list(f->list, start, f->p - start);
	if (!found)
		f->all_known = false;
	return found;
}

static bool fterm(struct fparse *f)
{
	bool v = ffactor(f);
	while (!f->bad && (*f->p == '&' || *f->p == ',')) {
		f->p++;
		v = ffactor(f) && v;   /* parse every factor, whatever v is */
	}
	return v;
}

static bool fexpr(struct fparse *f)
{
	bool v = fterm(f);
	while (!f->bad && *f->p == '|') {
		f->p++;
		v = fterm(f) || v;
	}
	return v;
}

static int fparse_run(struct fparse *f, bool *value)
{
	if (!f->p || !*f->p)
		return -1;
	*value = fexpr(f);
	return f->bad || *f->p ? -1 : 0;
}

int feature_match(const char *expr, const char *node_features)
{
	struct fparse f = { expr, node_features, true, false, 0 };
	bool v;
	if (fparse_run(&f, &v) < 0)
		return -1;
	return v;
}

int feature_check(const char *expr, const char *known)
{
	struct fparse f = { expr, known, true, false, 0 };
	bool v;
	if (fparse_run(&f, &v) < 0 || !f.all_known)
		return -1;
	return 0;
}

int feature_matching_or(const char *expr, char ***alts)
{
	size_t len = expr ? strlen(expr) : 0;
	int n = 0;

	*alts = NULL;
	if (len < 3 || expr[0] != '[' || expr[len - 1] != ']' || feature_match(expr, NULL) < 0)
		return 0;
	for (const char *p = expr + 1; p < expr + len - 1; p++)
		if (!name_char(*p) && *p != '|')
			return 0;   /* not only names and '|' */
	char **v = malloc(len * sizeof(*v));
	if (!v)
		return 0;
	for (const char *p = expr + 1; p < expr + len - 1;) {
		size_t k = strcspn(p, "|]");
		char *name = malloc(k + 1);
		if (!name)
			break;
		memcpy(name, p, k);
		name[k] = '\0';
		v[n++] = name;
		p += k + (p[k] == '|');
	}
	*alts = v;
	return n;
}
