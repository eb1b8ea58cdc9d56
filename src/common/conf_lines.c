/* herd.conf's NodeName=, DownNodes= and PartitionName= lines (conf.c reads
 * the file and hands them over): DEFAULT entries, hostlist expressions of
 * names, addresses and ports, every attribute checked against
 * conf_keys.c's tables, duplicates and unknown nodes refused with
 * FILE:LINE.  Not here: plain keys, Include, the cross-checks after the
 * last line (conf.c). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/conf_keys.h"
#include "common/conf_lines.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

/* ---- node names already defined ---- */

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void node_index_grow(struct conf *conf)
{
	size_t cap = conf->node_index_cap ? conf->node_index_cap * 2 : 256;
	free(conf->node_index);
	conf->node_index = xmalloc(cap * sizeof(*conf->node_index));   /* zeroed */
	conf->node_index_cap = cap;
	for (size_t i = 0; i < conf->nnodes; i++) {
		size_t h = name_hash(conf->nodes[i].name) & (cap - 1);
		while (conf->node_index[h])
			h = (h + 1) & (cap - 1);
		conf->node_index[h] = i + 1;
	}
}

/* Index in conf->nodes of the node called name, or -1. */
long conf_lines_node_lookup(const struct conf *conf, const char *name)
{
	if (!conf->node_index_cap)
		return -1;
	size_t h = name_hash(name) & (conf->node_index_cap - 1);
	while (conf->node_index[h]) {
		size_t i = conf->node_index[h] - 1;
		if (strcmp(conf->nodes[i].name, name) == 0)
			return (long)i;
		h = (h + 1) & (conf->node_index_cap - 1);
	}
	return -1;
}

static void node_index_add(struct conf *conf)
{
	if (conf->nnodes * 2 > conf->node_index_cap) {
		node_index_grow(conf);   /* re-inserts everything, the new node included */
		return;
	}
	size_t i = conf->nnodes - 1;
	size_t h = name_hash(conf->nodes[i].name) & (conf->node_index_cap - 1);
	while (conf->node_index[h])
		h = (h + 1) & (conf->node_index_cap - 1);
	conf->node_index[h] = i + 1;
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
static int attr_set(struct conf_loader *ld, void *obj, const struct conf_attr_def *a, const char *v)
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
			return conf_invalid(ld, a->name, v);
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
			return conf_invalid(ld, a->name, v);
		*(int *)field = (int)u;
		return 0;
	case CONF_A_U64:
		if (parse_uint(v, UINT64_MAX, &u) < 0)
			return conf_invalid(ld, a->name, v);
		*(uint64_t *)field = u;
		return 0;
	case CONF_A_TIME:
		if (parse_time_limit(v, &t) < 0)
			return conf_invalid(ld, a->name, v);
		*(int64_t *)field = t;
		return 0;
	case CONF_A_BOOL:
		if (!parse_bool(v, &b))
			return conf_invalid(ld, a->name, v);
		*(bool *)field = b;
		return 0;
	case CONF_A_SPECIAL:
		break;
	}
	return conf_invalid(ld, a->name, v);
}

void conf_lines_node_free(struct conf_node *n)
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

void conf_lines_part_free(struct conf_part *p)
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

/* ---- NodeName= lines ---- */

/* NodeAddr/NodeHostname/Port lists: one value for every node, or one each. */
static int node_list(struct conf_loader *ld, const char *key, const char *value,
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
		return conf_invalid(ld, key, value);
	}
	if (hostlist_count(hl) != 1 && hostlist_count(hl) != nnodes) {
		size_t count = hostlist_count(hl);
		hostlist_destroy(hl);
		return conf_fail(ld, "%zu %s values for %zu nodes", count, key, nnodes);
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

int conf_lines_node(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs)
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
			conf_invalid(ld, "NodeName", names_expr);
			goto out;
		}
		nnames = hostlist_count(names);
	}
	for (size_t i = 1; i < npairs; i++) {
		const struct conf_attr_def *a = conf_keys_attr_find(conf_keys_node_attrs, pairs[i].key);
		if (!a) {
			conf_fail(ld, "unknown key '%s'", pairs[i].key);
			goto out;
		}
		if (strcmp(a->name, "NodeName") == 0) {
			conf_fail(ld, "NodeName given twice");
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
			conf_fail(ld, "%s cannot be set for NodeName=DEFAULT", a->name);
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
					conf_invalid(ld, "Port", pairs[i].value);
					goto out;
				}
			}
		}
	}
	if (is_default) {
		if (ports)
			port_value(hostlist_nth(ports, 0), &tmpl.port);
		conf_lines_node_free(&ld->node_default);
		ld->node_default = tmpl;
		memset(&tmpl, 0, sizeof(tmpl));
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < nnames; i++) {
		const char *name = hostlist_nth(names, i);
		if (conf_lines_node_lookup(ld->conf, name) >= 0) {
			conf_fail(ld, "duplicate NodeName '%s'", name);
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
		node_index_add(ld->conf);
	}
	rc = 0;
out:
	conf_lines_node_free(&tmpl);
	hostlist_destroy(names);
	hostlist_destroy(addrs);
	hostlist_destroy(hostnames);
	hostlist_destroy(ports);
	return rc;
}

/* DownNodes=n[3-4] State=DRAIN Reason="bad fan": marks nodes declared
 * earlier, as Slurm does (State defaults to DOWN). */
int conf_lines_down(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs)
{
	const char *state = "DOWN", *reason = NULL;
	struct hostlist *hl = hostlist_create(pairs[0].value);
	int rc = -1;

	if (!hl || hostlist_count(hl) == 0) {
		conf_invalid(ld, "DownNodes", pairs[0].value);
		goto out;
	}
	for (size_t i = 1; i < npairs; i++) {
		if (strcasecmp(pairs[i].key, "State") == 0) {
			if (!conf_keys_word_ok(conf_keys_down_states, pairs[i].value, false)) {
				conf_invalid(ld, "State", pairs[i].value);
				goto out;
			}
			state = pairs[i].value;
		} else if (strcasecmp(pairs[i].key, "Reason") == 0) {
			reason = pairs[i].value;
		} else {
			conf_fail(ld, "unknown key '%s'", pairs[i].key);
			goto out;
		}
	}
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		if (conf_lines_node_lookup(ld->conf, hostlist_nth(hl, i)) < 0) {
			conf_fail(ld, "unknown node '%s' in DownNodes", hostlist_nth(hl, i));
			goto out;
		}
	}
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		struct conf_node *n = &ld->conf->nodes[conf_lines_node_lookup(ld->conf, hostlist_nth(hl, i))];
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

int conf_lines_part(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs)
{
	struct conf *conf = ld->conf;
	const char *name = pairs[0].value;
	bool is_default = strcasecmp(name, "DEFAULT") == 0;
	struct conf_part p;

	if (!*name)
		return conf_invalid(ld, "PartitionName", name);
	part_copy(&p, &ld->part_default);
	for (size_t i = 1; i < npairs; i++) {
		const struct conf_attr_def *a = conf_keys_attr_find(conf_keys_part_attrs, pairs[i].key);
		const char *v = pairs[i].value;
		if (!a) {
			conf_fail(ld, "unknown key '%s'", pairs[i].key);
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
					conf_invalid(ld, a->name, v);
					goto error;
				}
			}
			free(p.nodes);
			p.nodes = strcasecmp(v, "ALL") == 0 ? xstrdup("ALL") : xstrdup(v);
		} else if (strcmp(a->name, "Priority") == 0) {
			uint64_t u;
			if (parse_uint(v, INT_MAX, &u) < 0) {
				conf_invalid(ld, a->name, v);
				goto error;
			}
			p.priority_tier = p.priority_job_factor = (int)u;
		} else {
			conf_fail(ld, "PartitionName given twice");
			goto error;
		}
	}
	if (is_default) {
		conf_lines_part_free(&ld->part_default);
		ld->part_default = p;
		return 0;
	}
	for (size_t i = 0; i < conf->nparts; i++) {
		if (strcmp(conf->parts[i].name, name) == 0) {
			conf_fail(ld, "duplicate PartitionName '%s'", name);
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
	conf_lines_part_free(&p);
	return -1;
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
	conf_lines_part_free(part);
	free(part);
	errno = saved;
}
