/* Partitions from herd.conf: their nodes, limits and state.  Each partition
 * owns a copy of its definition, so that a reconfigure (reconf.c) can keep
 * a removed partition, hidden, for the jobs still in it. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"

/* Most hosts one AllocNodes may name (each is looked up at load). */
#define ALLOC_NODES_MAX 65536

/* AllocNodes: the IPv4 addresses of its hosts, looked up here, at load and at
 * each reconfigure, so that a submission is checked against its credential's
 * origin without a lookup in the event loop.  A configured node's name is
 * looked up as its NodeAddr.  A host that does not resolve gives no address
 * (and a log line): submissions from it are refused. */
static void part_alloc_addrs(struct part *p, const char *list)
{
	struct hostlist *hl;
	struct herd_error err;

	if (!list || !*list || !strcasecmp(list, "ALL"))
		return;
	if (!(hl = hostlist_create_max(list, ALLOC_NODES_MAX))) {
		log_error("partition %s: AllocNodes=%s is not a list of at most %d hosts: no "
			  "host may submit there", p->name, list, ALLOC_NODES_MAX);
		return;
	}
	for (size_t k = 0; k < hostlist_count(hl); k++) {
		const char *name = hostlist_nth(hl, k);
		int idx = node_index(name);
		const char *host = idx >= 0 && core.nodes[idx].addr ? core.nodes[idx].addr : name;
		struct in_addr *addrs;
		int n = core_resolve(host, &addrs, &err);
		if (n < 0) {
			log_error("partition %s: AllocNodes host %s: %s", p->name, host, err.text);
			continue;
		}
		p->alloc_addrs = xrealloc(p->alloc_addrs,
					  (p->nalloc_addrs + n + 1) * sizeof(*p->alloc_addrs));
		memcpy(p->alloc_addrs + p->nalloc_addrs, addrs, n * sizeof(*addrs));
		p->nalloc_addrs += n;
		free(addrs);
	}
	hostlist_destroy(hl);
}

static void part_init(struct part *p, const struct conf_part *cp)
{
	struct hostlist *hl = NULL, *names = hostlist_create(NULL);

	memset(p, 0, sizeof(*p));
	p->conf = conf_part_dup(cp);
	p->name = xstrdup(cp->name);
	p->node_idx = xmalloc((core.nnodes ? core.nnodes : 1) * sizeof(int));
	if (cp->nodes && !strcasecmp(cp->nodes, "ALL")) {
		for (int k = 0; k < core.nnodes; k++)
			p->node_idx[p->nnodes++] = k;
	} else if (cp->nodes && (hl = hostlist_create(cp->nodes))) {
		for (size_t k = 0; k < hostlist_count(hl); k++) {
			int idx = node_index(hostlist_nth(hl, k));
			if (idx < 0)
				log_error("partition %s: node %s is not configured", p->name,
					  hostlist_nth(hl, k));
			else
				p->node_idx[p->nnodes++] = idx;
		}
	}
	for (int k = 0; k < p->nnodes; k++)
		hostlist_push(names, core.nodes[p->node_idx[k]].name);
	p->nodes_str = hostlist_ranged_string(names);
	hostlist_destroy(names);
	hostlist_destroy(hl);
	part_alloc_addrs(p, cp->alloc_nodes);
}

void part_build(const struct conf *conf, int extra, struct part **parts, int *nparts,
		struct part **default_part)
{
	*parts = xmalloc((conf->nparts + extra + 1) * sizeof(**parts));
	*nparts = (int)conf->nparts;
	*default_part = NULL;
	for (size_t i = 0; i < conf->nparts; i++) {
		part_init(&(*parts)[i], &conf->parts[i]);
		if (conf->parts[i].is_default && !*default_part)
			*default_part = &(*parts)[i];
	}
}

void part_release(struct part *p)
{
	conf_part_destroy((struct conf_part *)p->conf);
	free(p->name);
	free(p->node_idx);
	free(p->nodes_str);
	free(p->alloc_addrs);
	memset(p, 0, sizeof(*p));
}

void part_setup(void)
{
	part_build(core.conf, 0, &core.parts, &core.nparts, &core.default_part);
}

struct part *part_find(const char *name)
{
	for (int i = 0; i < core.nparts; i++)
		if (!core.parts[i].removed && !strcmp(core.parts[i].name, name))
			return &core.parts[i];
	return NULL;
}

json_t *part_to_json(const struct part *p)
{
	int cpus = 0;
	for (int k = 0; k < p->nnodes; k++)
		cpus += core.nodes[p->node_idx[k]].cpus;
	const struct conf_part *cp = p->conf;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I}",
			 "name", p->name, "nodes", p->nodes_str ? p->nodes_str : "",
			 "state", p->conf->state ? p->conf->state : "UP",
			 "oversubscribe", p->conf->oversubscribe ? p->conf->oversubscribe : "NO",
			 "default", p == core.default_part, "total_nodes", p->nnodes,
			 "total_cpus", cpus, "max_nodes", p->conf->max_nodes,
			 "min_nodes", p->conf->min_nodes, "priority_tier", p->conf->priority_tier,
			 "priority_job_factor", p->conf->priority_job_factor,
			 "max_time", (json_int_t)p->conf->max_time,
			 "default_time", (json_int_t)p->conf->default_time);
	/* Access and preemption settings as herd.conf has them, for sinfo (%g %S %r %B %M). */
	json_object_set_new(o, "allow_groups", json_string(cp->allow_groups ? cp->allow_groups : ""));
	json_object_set_new(o, "alloc_nodes", json_string(cp->alloc_nodes ? cp->alloc_nodes : ""));
	json_object_set_new(o, "root_only", json_boolean(cp->root_only));
	json_object_set_new(o, "max_cpus_per_node", json_integer(cp->max_cpus_per_node));
	json_object_set_new(o, "preempt_mode", json_string(cp->preempt_mode ? cp->preempt_mode : ""));
	return o;
}
