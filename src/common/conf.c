/* herd.conf loading: slurm.conf's line syntax, its key names, NodeName= and
 * PartitionName= lines with DEFAULT entries, and Include.  Every value is
 * checked here so a typo stops the daemon at start with FILE:LINE and the
 * key, never later.  Not for gres.conf or topology.conf. */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/conf_keys.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

#define CONF_INCLUDE_DEPTH 16     /* catches include loops long before the stack suffers */
#define CONF_DEFAULT_SLURMD_PORT 6818
#define CONF_DEFAULT_CTLD_PORT 6817

/* ---- the loader's working state ---- */

struct loader {
	struct conf *conf;
	struct herd_error *err;
	const char *file;             /* file being read, for messages */
	int line;                     /* first physical line of the logical line */
	struct conf_node node_default;
	struct conf_part part_default;
	char **part_where;            /* "file:line" of each partition, for late checks */
	/* node names already defined: open addressing over indices + 1 */
	size_t *node_index;
	size_t node_index_cap;
	size_t nodes_cap;             /* allocated length of conf->nodes */
};

/* "FILE:LINE: what" into the caller's error; returns -1. */
static int fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct loader *ld, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errprintf(ld->err, "%s:%d: %s", ld->file, ld->line, what);
}

static int invalid(struct loader *ld, const char *key, const char *value)
{
	return fail(ld, "invalid value '%s' for key '%s'", value, key);
}

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void node_index_grow(struct loader *ld)
{
	size_t cap = ld->node_index_cap ? ld->node_index_cap * 2 : 256;
	free(ld->node_index);
	ld->node_index = xmalloc(cap * sizeof(*ld->node_index));
	ld->node_index_cap = cap;
	for (size_t i = 0; i < ld->conf->nnodes; i++) {
		size_t h = name_hash(ld->conf->nodes[i].name) & (cap - 1);
		while (ld->node_index[h])
			h = (h + 1) & (cap - 1);
		ld->node_index[h] = i + 1;
	}
}

/* Index in conf->nodes of the node called name, or -1. */
static long node_index_lookup(struct loader *ld, const char *name)
{
	if (!ld->node_index_cap)
		return -1;
	size_t h = name_hash(name) & (ld->node_index_cap - 1);
	while (ld->node_index[h]) {
		size_t i = ld->node_index[h] - 1;
		if (strcmp(ld->conf->nodes[i].name, name) == 0)
			return (long)i;
		h = (h + 1) & (ld->node_index_cap - 1);
	}
	return -1;
}

static void node_index_add(struct loader *ld)
{
	if ((ld->conf->nnodes) * 2 > ld->node_index_cap) {
		node_index_grow(ld);   /* re-inserts everything, the new node included */
		return;
	}
	size_t i = ld->conf->nnodes - 1;
	size_t h = name_hash(ld->conf->nodes[i].name) & (ld->node_index_cap - 1);
	while (ld->node_index[h])
		h = (h + 1) & (ld->node_index_cap - 1);
	ld->node_index[h] = i + 1;
}

/* ---- entity attributes: NodeName= and PartitionName= lines ---- */

static char *upper_dup(const char *s)
{
	char *u = xstrdup(s);
	for (char *p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

/* Store value into obj according to a; -1 (with the error set) when invalid. */
static int attr_set(struct loader *ld, void *obj, const struct conf_attr_def *a, const char *v)
{
	char *field = (char *)obj + a->offset;
	uint64_t u;
	int64_t t;
	bool b;

	switch (a->type) {
	case CONF_A_STR:
		free(*(char **)field);
		*(char **)field = xstrdup(v);
		return 0;
	case CONF_A_UPPER:
		if (!conf_keys_word_ok(a->words, v, a->words == conf_keys_oversubscribe))
			return invalid(ld, a->name, v);
		free(*(char **)field);
		*(char **)field = upper_dup(v);
		return 0;
	case CONF_A_INT_UNLIM:
		if (conf_keys_unlimited(v)) {
			*(int *)field = -1;
			return 0;
		}
		/* fall through */
	case CONF_A_INT:
		if (parse_uint(v, INT_MAX, &u) < 0)
			return invalid(ld, a->name, v);
		*(int *)field = (int)u;
		return 0;
	case CONF_A_U64:
		if (parse_uint(v, UINT64_MAX, &u) < 0)
			return invalid(ld, a->name, v);
		*(uint64_t *)field = u;
		return 0;
	case CONF_A_TIME:
		if (parse_time_limit(v, &t) < 0)
			return invalid(ld, a->name, v);
		*(int64_t *)field = t;
		return 0;
	case CONF_A_BOOL:
		if (!parse_bool(v, &b))
			return invalid(ld, a->name, v);
		*(bool *)field = b;
		return 0;
	case CONF_A_SPECIAL:
		break;
	}
	return invalid(ld, a->name, v);
}

static void node_free_fields(struct conf_node *n)
{
	free(n->name);
	free(n->addr);
	free(n->hostname);
	free(n->features);
	free(n->gres);
	free(n->state);
	free(n->cpu_spec_list);
	free(n->reason);
}

static void node_copy(struct conf_node *dst, const struct conf_node *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->addr = xstrdup(src->addr);
	dst->hostname = xstrdup(src->hostname);
	dst->features = xstrdup(src->features);
	dst->gres = xstrdup(src->gres);
	dst->state = xstrdup(src->state);
	dst->cpu_spec_list = xstrdup(src->cpu_spec_list);
	dst->reason = xstrdup(src->reason);
}

static void part_free_fields(struct conf_part *p)
{
	free(p->name);
	free(p->nodes);
	free(p->state);
	free(p->oversubscribe);
	free(p->allow_accounts);
	free(p->allow_groups);
	free(p->allow_qos);
	free(p->deny_accounts);
	free(p->deny_qos);
	free(p->qos);
	free(p->alternate);
	free(p->alloc_nodes);
	free(p->preempt_mode);
	free(p->tres_billing_weights);
}

static void part_copy(struct conf_part *dst, const struct conf_part *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->nodes = xstrdup(src->nodes);
	dst->state = xstrdup(src->state);
	dst->oversubscribe = xstrdup(src->oversubscribe);
	dst->allow_accounts = xstrdup(src->allow_accounts);
	dst->allow_groups = xstrdup(src->allow_groups);
	dst->allow_qos = xstrdup(src->allow_qos);
	dst->deny_accounts = xstrdup(src->deny_accounts);
	dst->deny_qos = xstrdup(src->deny_qos);
	dst->qos = xstrdup(src->qos);
	dst->alternate = xstrdup(src->alternate);
	dst->alloc_nodes = xstrdup(src->alloc_nodes);
	dst->preempt_mode = xstrdup(src->preempt_mode);
	dst->tres_billing_weights = xstrdup(src->tres_billing_weights);
}

/* ---- tokenizing a logical line ---- */

struct pair {
	char *key, *value;
};

/* Split line (modified in place) into Key=Value pairs.  Values may be
 * double-quoted, in whole or in part; the quotes are removed. */
static int split_pairs(struct loader *ld, char *line, struct pair **pairs, size_t *npairs)
{
	char *p = line;

	*pairs = NULL;
	*npairs = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		char *key = p;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			p++;
		char *key_end = p;
		bool spaced = false;
		while (*p == ' ' || *p == '\t') {
			p++;
			spaced = true;
		}
		if (key_end == key || *p != '=') {
			char *w = key;
			while (*w && !isspace((unsigned char)*w))
				w++;
			*w = '\0';
			return fail(ld, "expected Key=Value, got '%s'", key);
		}
		p++;
		/* "Key = Value" is accepted as Slurm does, but "Key= Other=1"
		 * gives Key an empty value rather than swallowing Other=1. */
		if (spaced)
			while (*p == ' ' || *p == '\t')
				p++;
		char *value = p, *out = p;
		bool quoted = false;
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"')
				quoted = !quoted;
			else
				*out++ = *p;
			p++;
		}
		if (quoted)
			return fail(ld, "unterminated quote");
		char *next = *p ? p + 1 : p;
		*out = '\0';
		*key_end = '\0';
		*pairs = xrealloc(*pairs, (*npairs + 1) * sizeof(**pairs));
		(*pairs)[(*npairs)++] = (struct pair){ key, value };
		p = next;
	}
}

/* ---- NodeName= lines ---- */

/* NodeAddr/NodeHostname/Port lists: one value for every node, or one each. */
static int node_list(struct loader *ld, const char *key, const char *value,
                     size_t nnodes, struct hostlist **out)
{
	char *expr = NULL;
	/* Slurm reads "Port=17001-17004" as the range "[17001-17004]". */
	if (strcasecmp(key, "Port") == 0 && value[0] != '[' && strpbrk(value, "-,"))
		expr = xasprintf("[%s]", value);
	struct hostlist *hl = hostlist_create(expr ? expr : value);
	free(expr);
	if (!hl || hostlist_count(hl) == 0) {
		hostlist_destroy(hl);
		return invalid(ld, key, value);
	}
	if (hostlist_count(hl) != 1 && hostlist_count(hl) != nnodes) {
		size_t count = hostlist_count(hl);
		hostlist_destroy(hl);
		return fail(ld, "%zu %s values for %zu nodes", count, key, nnodes);
	}
	*out = hl;
	return 0;
}

static const char *list_at(const struct hostlist *hl, size_t i)
{
	if (!hl)
		return NULL;
	return hostlist_nth(hl, hostlist_count(hl) == 1 ? 0 : i);
}

static int port_value(const char *s, int *port)
{
	uint64_t u;
	if (parse_uint(s, 65535, &u) < 0 || u == 0)
		return -1;
	*port = (int)u;
	return 0;
}

static int node_line(struct loader *ld, struct pair *pairs, size_t npairs)
{
	struct conf *conf = ld->conf;
	const char *names_expr = pairs[0].value;
	bool is_default = strcasecmp(names_expr, "DEFAULT") == 0;
	struct hostlist *names = NULL, *addrs = NULL, *hostnames = NULL, *ports = NULL;
	struct conf_node tmpl;
	size_t nnames = 1;
	int rc = -1;

	node_copy(&tmpl, &ld->node_default);
	if (!is_default) {
		names = hostlist_create(names_expr);
		if (!names || hostlist_count(names) == 0) {
			invalid(ld, "NodeName", names_expr);
			goto out;
		}
		nnames = hostlist_count(names);
	}
	for (size_t i = 1; i < npairs; i++) {
		const struct conf_attr_def *a = conf_keys_attr_find(conf_keys_node_attrs, pairs[i].key);
		if (!a) {
			fail(ld, "unknown key '%s'", pairs[i].key);
			goto out;
		}
		if (strcmp(a->name, "NodeName") == 0) {
			fail(ld, "NodeName given twice");
			goto out;
		}
		if (a->type != CONF_A_SPECIAL) {
			if (attr_set(ld, &tmpl, a, pairs[i].value) < 0)
				goto out;
			continue;
		}
		struct hostlist **list = strcmp(a->name, "NodeAddr") == 0 ? &addrs :
		                         strcmp(a->name, "NodeHostname") == 0 ? &hostnames : &ports;
		if (is_default && list != &ports) {
			fail(ld, "%s cannot be set for NodeName=DEFAULT", a->name);
			goto out;
		}
		hostlist_destroy(*list);
		*list = NULL;
		if (node_list(ld, a->name, pairs[i].value, nnames, list) < 0)
			goto out;
		if (list == &ports) {
			for (size_t k = 0; k < hostlist_count(ports); k++) {
				int port;
				if (port_value(hostlist_nth(ports, k), &port) < 0) {
					invalid(ld, "Port", pairs[i].value);
					goto out;
				}
			}
		}
	}
	if (is_default) {
		if (ports)
			port_value(hostlist_nth(ports, 0), &tmpl.port);
		node_free_fields(&ld->node_default);
		ld->node_default = tmpl;
		memset(&tmpl, 0, sizeof(tmpl));
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < nnames; i++) {
		const char *name = hostlist_nth(names, i);
		if (node_index_lookup(ld, name) >= 0) {
			fail(ld, "duplicate NodeName '%s'", name);
			goto out;
		}
		if (conf->nnodes == ld->nodes_cap) {
			/* Geometric growth: NodeName=n[1-100000] must stay linear. */
			ld->nodes_cap = ld->nodes_cap ? ld->nodes_cap * 2 : 64;
			conf->nodes = xrealloc(conf->nodes, ld->nodes_cap * sizeof(*conf->nodes));
		}
		struct conf_node *n = &conf->nodes[conf->nnodes++];
		node_copy(n, &tmpl);
		free(n->name);
		n->name = xstrdup(name);
		if (hostnames) {
			free(n->hostname);
			n->hostname = xstrdup(list_at(hostnames, i));
		}
		if (addrs) {
			free(n->addr);
			n->addr = xstrdup(list_at(addrs, i));
		}
		if (ports)
			port_value(list_at(ports, i), &n->port);
		node_index_add(ld);
	}
	rc = 0;
out:
	node_free_fields(&tmpl);
	hostlist_destroy(names);
	hostlist_destroy(addrs);
	hostlist_destroy(hostnames);
	hostlist_destroy(ports);
	return rc;
}

/* DownNodes=n[3-4] State=DRAIN Reason="bad fan": marks nodes declared
 * earlier, as Slurm does (State defaults to DOWN). */
static int down_line(struct loader *ld, struct pair *pairs, size_t npairs)
{
	const char *state = "DOWN", *reason = NULL;
	struct hostlist *hl = hostlist_create(pairs[0].value);
	int rc = -1;

	if (!hl || hostlist_count(hl) == 0) {
		invalid(ld, "DownNodes", pairs[0].value);
		goto out;
	}
	for (size_t i = 1; i < npairs; i++) {
		if (strcasecmp(pairs[i].key, "State") == 0) {
			if (!conf_keys_word_ok(conf_keys_down_states, pairs[i].value, false)) {
				invalid(ld, "State", pairs[i].value);
				goto out;
			}
			state = pairs[i].value;
		} else if (strcasecmp(pairs[i].key, "Reason") == 0) {
			reason = pairs[i].value;
		} else {
			fail(ld, "unknown key '%s'", pairs[i].key);
			goto out;
		}
	}
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		if (node_index_lookup(ld, hostlist_nth(hl, i)) < 0) {
			fail(ld, "unknown node '%s' in DownNodes", hostlist_nth(hl, i));
			goto out;
		}
	}
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		struct conf_node *n = &ld->conf->nodes[node_index_lookup(ld, hostlist_nth(hl, i))];
		free(n->state);
		n->state = upper_dup(state);
		if (reason) {
			free(n->reason);
			n->reason = xstrdup(reason);
		}
	}
	rc = 0;
out:
	hostlist_destroy(hl);
	return rc;
}

/* ---- PartitionName= lines ---- */

static int part_line(struct loader *ld, struct pair *pairs, size_t npairs)
{
	struct conf *conf = ld->conf;
	const char *name = pairs[0].value;
	bool is_default = strcasecmp(name, "DEFAULT") == 0;
	struct conf_part p;

	if (!*name)
		return invalid(ld, "PartitionName", name);
	part_copy(&p, &ld->part_default);
	for (size_t i = 1; i < npairs; i++) {
		const struct conf_attr_def *a = conf_keys_attr_find(conf_keys_part_attrs, pairs[i].key);
		const char *v = pairs[i].value;
		if (!a) {
			fail(ld, "unknown key '%s'", pairs[i].key);
			goto error;
		}
		if (a->type != CONF_A_SPECIAL) {
			if (attr_set(ld, &p, a, v) < 0)
				goto error;
		} else if (strcmp(a->name, "Nodes") == 0) {
			if (strcasecmp(v, "ALL") != 0) {
				struct hostlist *hl = hostlist_create(v);
				hostlist_destroy(hl);
				if (!hl) {
					invalid(ld, a->name, v);
					goto error;
				}
			}
			free(p.nodes);
			p.nodes = strcasecmp(v, "ALL") == 0 ? xstrdup("ALL") : xstrdup(v);
		} else if (strcmp(a->name, "Priority") == 0) {
			uint64_t u;
			if (parse_uint(v, INT_MAX, &u) < 0) {
				invalid(ld, a->name, v);
				goto error;
			}
			p.priority_tier = p.priority_job_factor = (int)u;
		} else {
			fail(ld, "PartitionName given twice");
			goto error;
		}
	}
	if (is_default) {
		part_free_fields(&ld->part_default);
		ld->part_default = p;
		return 0;
	}
	for (size_t i = 0; i < conf->nparts; i++) {
		if (strcmp(conf->parts[i].name, name) == 0) {
			fail(ld, "duplicate PartitionName '%s'", name);
			goto error;
		}
	}
	/* Slurm lets the last Default=YES win; keep exactly one default. */
	if (p.is_default)
		for (size_t i = 0; i < conf->nparts; i++)
			conf->parts[i].is_default = false;
	free(p.name);
	p.name = xstrdup(name);
	conf->parts = xrealloc(conf->parts, (conf->nparts + 1) * sizeof(*conf->parts));
	conf->parts[conf->nparts] = p;
	ld->part_where = xrealloc(ld->part_where, (conf->nparts + 1) * sizeof(*ld->part_where));
	ld->part_where[conf->nparts] = xasprintf("%s:%d", ld->file, ld->line);
	conf->nparts++;
	return 0;
error:
	part_free_fields(&p);
	return -1;
}

/* ---- plain keys ---- */

static void kv_set(struct conf *conf, const struct conf_key_def *def, const char *value)
{
	if (def->kind != CONF_V_CTLD_HOST) {
		for (size_t i = 0; i < conf->nkv; i++) {
			if (strcmp(conf->kv[i].key, def->name) == 0) {
				free(conf->kv[i].value);
				conf->kv[i].value = xstrdup(value);
				return;
			}
		}
	}
	conf->kv = xrealloc(conf->kv, (conf->nkv + 1) * sizeof(*conf->kv));
	conf->kv[conf->nkv].key = xstrdup(def->name);
	conf->kv[conf->nkv].value = xstrdup(value);
	conf->nkv++;
}

static int plain_line(struct loader *ld, struct pair *pairs, size_t npairs)
{
	/* Check the whole line before storing any of it. */
	for (size_t i = 0; i < npairs; i++) {
		const struct conf_key_def *def = conf_keys_find(pairs[i].key);
		if (!def)
			return fail(ld, "unknown key '%s'", pairs[i].key);
		if (!conf_keys_value_ok(def->kind, pairs[i].value))
			return invalid(ld, def->name, pairs[i].value);
	}
	for (size_t i = 0; i < npairs; i++)
		kv_set(ld->conf, conf_keys_find(pairs[i].key), pairs[i].value);
	return 0;
}

/* ---- files, lines, Include ---- */

static int load_file(struct loader *ld, const char *path, int depth);

static int include_line(struct loader *ld, char *arg, int depth)
{
	while (isspace((unsigned char)*arg))
		arg++;
	size_t n = strlen(arg);
	while (n > 0 && isspace((unsigned char)arg[n - 1]))
		arg[--n] = '\0';
	if (n >= 2 && arg[0] == '"' && arg[n - 1] == '"') {
		arg[n - 1] = '\0';
		arg++;
	}
	if (!*arg)
		return fail(ld, "Include needs a file name");
	if (depth + 1 > CONF_INCLUDE_DEPTH)
		return fail(ld, "Include nested too deeply ('%s')", arg);

	/* Relative names are relative to the including file's directory. */
	char *path;
	const char *slash = strrchr(ld->file, '/');
	if (arg[0] == '/' || !slash)
		path = xstrdup(arg);
	else
		path = xasprintf("%.*s/%s", (int)(slash - ld->file), ld->file, arg);

	const char *file = ld->file;
	int line = ld->line, rc = 0;
	if (strpbrk(path, "*?[")) {
		/* A pattern may match nothing (an empty conf.d); files load in
		 * glob's sorted order. */
		glob_t g;
		int grc = glob(path, 0, NULL, &g);
		if (grc != 0 && grc != GLOB_NOMATCH) {
			rc = fail(ld, "cannot expand Include '%s'", arg);
		} else if (grc == 0) {
			for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
				rc = load_file(ld, g.gl_pathv[i], depth + 1);
			globfree(&g);
		}
	} else {
		rc = load_file(ld, path, depth + 1);
	}
	ld->file = file;
	ld->line = line;
	free(path);
	return rc;
}

static bool is_include(const char *line, char **arg)
{
	while (isspace((unsigned char)*line))
		line++;
	if (strncasecmp(line, "include", 7) != 0 || !isspace((unsigned char)line[7]))
		return false;
	*arg = (char *)line + 8;
	return true;
}

static int logical_line(struct loader *ld, char *line, int depth)
{
	struct pair *pairs;
	size_t npairs;
	char *arg;
	int rc;

	if (is_include(line, &arg))
		return include_line(ld, arg, depth);
	if (split_pairs(ld, line, &pairs, &npairs) < 0) {
		free(pairs);
		return -1;
	}
	if (npairs == 0)
		rc = 0;
	else if (strcasecmp(pairs[0].key, "NodeName") == 0)
		rc = node_line(ld, pairs, npairs);
	else if (strcasecmp(pairs[0].key, "PartitionName") == 0)
		rc = part_line(ld, pairs, npairs);
	else if (strcasecmp(pairs[0].key, "DownNodes") == 0)
		rc = down_line(ld, pairs, npairs);
	else
		rc = plain_line(ld, pairs, npairs);
	free(pairs);
	return rc;
}

/* Remove a comment ('#' outside double quotes; "\#" is a literal '#') and
 * the line end.  *quoted carries the quote state across continued lines. */
static void strip_comment(char *s, bool *quoted)
{
	char *out = s;
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1] == '#') {
			*out++ = '#';
			p++;
			continue;
		}
		if (*p == '"')
			*quoted = !*quoted;
		else if (*p == '#' && !*quoted)
			break;
		else if (*p == '\n' || *p == '\r')
			break;
		*out++ = *p;
	}
	*out = '\0';
}

/* True (and the backslash removed) when the line ends in '\'. */
static bool strip_continuation(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || s[n - 1] != '\\')
		return false;
	s[n - 1] = '\0';
	return true;
}

static int load_file(struct loader *ld, const char *path, int depth)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *logical = NULL;
	size_t cap = 0, loglen = 0;
	bool quoted = false, continued = false;
	int lineno = 0, rc = 0;

	if (!f)
		return errprintf(ld->err, "%s: %s", path, strerror(errno));
	ld->file = path;
	while (getline(&buf, &cap, f) >= 0) {
		lineno++;
		if (!continued) {
			ld->line = lineno;
			loglen = 0;
			quoted = false;
		}
		strip_comment(buf, &quoted);
		/* Slurm joins continued lines without adding a space, so a long
		 * Nodes= list can be split inside a value. */
		continued = strip_continuation(buf);
		size_t n = strlen(buf);
		logical = xrealloc(logical, loglen + n + 1);
		memcpy(logical + loglen, buf, n + 1);
		loglen += n;
		if (continued)
			continue;
		if (quoted) {
			rc = fail(ld, "unterminated quote");
			break;
		}
		rc = logical_line(ld, logical, depth);
		ld->file = path;
		if (rc < 0)
			break;
	}
	if (rc == 0 && continued) {
		/* A continuation on the last line: the line simply ends there. */
		if (quoted)
			rc = fail(ld, "unterminated quote");
		else
			rc = logical_line(ld, logical, depth);
	}
	if (rc == 0 && ferror(f))
		rc = errprintf(ld->err, "%s: %s", path, strerror(errno));
	free(buf);
	free(logical);
	fclose(f);
	return rc;
}

/* ---- after the last line: defaults and cross-checks ---- */

static int finish(struct loader *ld)
{
	struct conf *conf = ld->conf;
	long slurmd_port = conf_get_int(conf, "SlurmdPort", CONF_DEFAULT_SLURMD_PORT);

	for (size_t i = 0; i < conf->nnodes; i++) {
		struct conf_node *n = &conf->nodes[i];
		if (!n->hostname)
			n->hostname = xstrdup(n->name);
		if (!n->addr)
			n->addr = xstrdup(n->hostname);
		/* SlurmdPort may come after the NodeName lines. */
		if (!n->port)
			n->port = (int)slurmd_port;
		if (!n->sockets && n->sockets_per_board)
			n->sockets = n->sockets_per_board * (n->boards ? n->boards : 1);
	}
	for (size_t i = 0; i < conf->nparts; i++) {
		struct conf_part *p = &conf->parts[i];
		if (!p->nodes || strcmp(p->nodes, "ALL") == 0)
			continue;
		struct hostlist *hl = hostlist_create(p->nodes);
		for (size_t k = 0; k < hostlist_count(hl); k++) {
			if (node_index_lookup(ld, hostlist_nth(hl, k)) < 0) {
				errprintf(ld->err, "%s: unknown node '%s' in Nodes of partition '%s'",
				          ld->part_where[i], hostlist_nth(hl, k), p->name);
				hostlist_destroy(hl);
				return -1;
			}
		}
		hostlist_destroy(hl);
	}

	/* AuthInfo is a comma list ("socket=/run/munge/munge.socket.2,ttl=60"). */
	const char *auth = conf_get(conf, "AuthInfo");
	if (auth) {
		char *copy = xstrdup(auth), *save = NULL;
		for (char *opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
			if (strncasecmp(opt, "socket=", 7) == 0) {
				free(conf->munge_socket);
				conf->munge_socket = xstrdup(opt + 7);
			}
		}
		free(copy);
	}

	/* The controller's address: SlurmctldAddr, then the first
	 * SlurmctldHost "name(addr)" or "name", then ControlAddr/ControlMachine. */
	const char *host = conf_get(conf, "SlurmctldHost");
	const char *addr = conf_get(conf, "SlurmctldAddr");
	if (addr) {
		conf->ctld_addr = xstrdup(addr);
	} else if (host) {
		const char *open = strchr(host, '(');   /* checked by value_ok */
		if (open) {
			conf->ctld_addr = xstrndup(open + 1, strlen(open) - 2);
		} else {
			conf->ctld_addr = xstrdup(host);
		}
	} else if ((addr = conf_get(conf, "ControlAddr")) || (addr = conf_get(conf, "ControlMachine"))) {
		conf->ctld_addr = xstrdup(addr);
	} else {
		conf->ctld_addr = xstrdup("localhost");
	}
	return 0;
}

struct conf *conf_load(const char *path, struct herd_error *err)
{
	struct loader ld = { .err = err };

	if (!path)
		path = getenv("HERD_CONF");
	if (!path || !*path)
		path = HERD_DEFAULT_CONF;
	ld.conf = xmalloc(sizeof(*ld.conf));
	ld.conf->path = xstrdup(path);
	ld.file = ld.conf->path;
	ld.node_default.weight = 1;
	ld.part_default.max_time = TIME_INFINITE;
	ld.part_default.default_time = TIME_INFINITE;
	ld.part_default.state = xstrdup("UP");
	ld.part_default.max_nodes = -1;
	ld.part_default.max_cpus_per_node = -1;
	ld.part_default.priority_tier = 1;
	ld.part_default.priority_job_factor = 1;
	ld.part_default.oversubscribe = xstrdup("NO");

	int rc = load_file(&ld, ld.conf->path, 0);
	if (rc == 0)
		rc = finish(&ld);
	node_free_fields(&ld.node_default);
	part_free_fields(&ld.part_default);
	for (size_t i = 0; i < ld.conf->nparts; i++)
		free(ld.part_where[i]);
	free(ld.part_where);
	free(ld.node_index);
	if (rc < 0) {
		conf_destroy(ld.conf);
		errno = EINVAL;
		return NULL;
	}
	return ld.conf;
}

void conf_destroy(struct conf *conf)
{
	int saved = errno;

	if (!conf)
		return;
	for (size_t i = 0; i < conf->nnodes; i++)
		node_free_fields(&conf->nodes[i]);
	free(conf->nodes);
	for (size_t i = 0; i < conf->nparts; i++)
		part_free_fields(&conf->parts[i]);
	free(conf->parts);
	for (size_t i = 0; i < conf->nkv; i++) {
		free(conf->kv[i].key);
		free(conf->kv[i].value);
	}
	free(conf->kv);
	free(conf->munge_socket);
	free(conf->ctld_addr);
	free(conf->path);
	free(conf);
	errno = saved;
}

/* ---- getters ---- */

const char *conf_get(const struct conf *conf, const char *key)
{
	if (!conf || !key)
		return NULL;
	for (size_t i = 0; i < conf->nkv; i++)
		if (strcasecmp(conf->kv[i].key, key) == 0)
			return conf->kv[i].value;
	return NULL;
}

long conf_get_int(const struct conf *conf, const char *key, long def)
{
	const char *v = conf_get(conf, key);
	uint64_t u;
	long lo, hi;

	if (!v)
		return def;
	if (conf_keys_unlimited(v))
		return -1;
	if (parse_uint(v, LONG_MAX, &u) == 0)
		return (long)u;
	if (conf_keys_port_range(v, &lo, &hi) == 0)
		return lo;
	return def;
}

int64_t conf_get_time(const struct conf *conf, const char *key, int64_t def)
{
	const char *v = conf_get(conf, key);
	int64_t t;

	if (!v || parse_time_limit(v, &t) < 0)
		return def;
	return t;
}

bool conf_get_bool(const struct conf *conf, const char *key, bool def)
{
	const char *v = conf_get(conf, key);
	bool b;

	if (!v || !parse_bool(v, &b))
		return def;
	return b;
}

const struct conf_node *conf_node_find(const struct conf *conf, const char *name)
{
	if (!conf || !name)
		return NULL;
	for (size_t i = 0; i < conf->nnodes; i++)
		if (strcmp(conf->nodes[i].name, name) == 0)
			return &conf->nodes[i];
	return NULL;
}

const struct conf_part *conf_part_find(const struct conf *conf, const char *name)
{
	if (!conf || !name)
		return NULL;
	for (size_t i = 0; i < conf->nparts; i++)
		if (strcmp(conf->parts[i].name, name) == 0)
			return &conf->parts[i];
	return NULL;
}

struct hostlist *conf_part_hostlist(const struct conf *conf, const struct conf_part *part)
{
	if (!part || !part->nodes)
		return hostlist_create(NULL);
	if (strcmp(part->nodes, "ALL") != 0)
		return hostlist_create(part->nodes);
	struct hostlist *hl = hostlist_create(NULL);
	for (size_t i = 0; i < conf->nnodes; i++)
		hostlist_push(hl, conf->nodes[i].name);
	return hl;
}

const char *conf_cluster_name(const struct conf *conf)
{
	const char *v = conf_get(conf, "ClusterName");
	return v && *v ? v : "cluster";
}

const char *conf_ctld_host(const struct conf *conf)
{
	return conf && conf->ctld_addr ? conf->ctld_addr : "localhost";
}

int conf_ctld_port(const struct conf *conf)
{
	return (int)conf_get_int(conf, "SlurmctldPort", CONF_DEFAULT_CTLD_PORT);
}

const char *conf_munge_socket(const struct conf *conf)
{
	return conf ? conf->munge_socket : NULL;
}

struct conf_part *conf_part_dup(const struct conf_part *part)
{
	struct conf_part *p = xmalloc(sizeof(*p));
	part_copy(p, part);
	return p;
}

void conf_part_destroy(struct conf_part *part)
{
	int saved = errno;

	if (!part)
		return;
	part_free_fields(part);
	free(part);
	errno = saved;
}
