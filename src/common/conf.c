/* herd.conf loading: slurm.conf's line syntax (comments, quotes,
 * continuations, Include), its plain keys, the cross-checks after the last
 * line, and the getters.  Every value is checked while loading so a typo
 * stops the daemon at start with FILE:LINE and the key, never later.  The
 * NodeName=, DownNodes= and PartitionName= lines: conf_lines.c.  Not for
 * gres.conf or topology.conf. */
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
#include "common/conf_lines.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

#define CONF_INCLUDE_DEPTH 16     /* catches include loops long before the stack suffers */
#define CONF_DEFAULT_SLURMD_PORT 6818
#define CONF_DEFAULT_CTLD_PORT 6817

/* "FILE:LINE: what" into the caller's error; returns -1. */
int conf_fail(struct conf_loader *ld, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errprintf(ld->err, "%s:%d: %s", ld->file, ld->line, what);
}

int conf_invalid(struct conf_loader *ld, const char *key, const char *value)
{
	return conf_fail(ld, "invalid value '%s' for key '%s'", value, key);
}

/* ---- tokenizing a logical line ---- */

/* Split line (modified in place) into Key=Value pairs.  Values may be
 * double-quoted, in whole or in part; the quotes are removed. */
static int split_pairs(struct conf_loader *ld, char *line, struct conf_pair **pairs, size_t *npairs)
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
			return conf_fail(ld, "expected Key=Value, got '%s'", key);
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
			return conf_fail(ld, "unterminated quote");
		char *next = *p ? p + 1 : p;
		*out = '\0';
		*key_end = '\0';
		*pairs = xrealloc(*pairs, (*npairs + 1) * sizeof(**pairs));
		(*pairs)[(*npairs)++] = (struct conf_pair){ key, value };
		p = next;
	}
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

static int plain_line(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs)
{
	/* Check the whole line before storing any of it. */
	for (size_t i = 0; i < npairs; i++) {
		const struct conf_key_def *def = conf_keys_find(pairs[i].key);
		if (!def)
			return conf_fail(ld, "unknown key '%s'", pairs[i].key);
		if (!conf_keys_value_ok(def->kind, pairs[i].value))
			return conf_invalid(ld, def->name, pairs[i].value);
	}
	for (size_t i = 0; i < npairs; i++)
		kv_set(ld->conf, conf_keys_find(pairs[i].key), pairs[i].value);
	return 0;
}

/* ---- files, lines, Include ---- */

static int load_file(struct conf_loader *ld, const char *path, int depth);

static int include_line(struct conf_loader *ld, char *arg, int depth)
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
		return conf_fail(ld, "Include needs a file name");
	if (depth + 1 > CONF_INCLUDE_DEPTH)
		return conf_fail(ld, "Include nested too deeply ('%s')", arg);

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
			rc = conf_fail(ld, "cannot expand Include '%s'", arg);
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

static int logical_line(struct conf_loader *ld, char *line, int depth)
{
	struct conf_pair *pairs;
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
		rc = conf_lines_node(ld, pairs, npairs);
	else if (strcasecmp(pairs[0].key, "PartitionName") == 0)
		rc = conf_lines_part(ld, pairs, npairs);
	else if (strcasecmp(pairs[0].key, "DownNodes") == 0)
		rc = conf_lines_down(ld, pairs, npairs);
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

static int load_file(struct conf_loader *ld, const char *path, int depth)
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
			rc = conf_fail(ld, "unterminated quote");
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
			rc = conf_fail(ld, "unterminated quote");
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

static int finish(struct conf_loader *ld)
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
			if (conf_lines_node_lookup(ld->conf, hostlist_nth(hl, k)) < 0) {
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
	struct conf_loader ld = { .err = err };

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
	conf_lines_node_free(&ld.node_default);
	conf_lines_part_free(&ld.part_default);
	for (size_t i = 0; i < ld.conf->nparts; i++)
		free(ld.part_where[i]);
	free(ld.part_where);
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
		conf_lines_node_free(&conf->nodes[i]);
	free(conf->nodes);
	free(conf->node_index);
	for (size_t i = 0; i < conf->nparts; i++)
		conf_lines_part_free(&conf->parts[i]);
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
	long i = conf_lines_node_lookup(conf, name);   /* a hash: callers look every node up */
	return i < 0 ? NULL : &conf->nodes[i];
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
