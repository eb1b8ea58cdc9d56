/* Partitions from herd.conf: their nodes, limits and state. */
#include <string.h>
#include <strings.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

void part_setup(void)
{
	const struct conf *conf = ctld.conf;

	ctld.nparts = conf->nparts;
	ctld.parts = xmalloc((conf->nparts ? conf->nparts : 1) * sizeof(*ctld.parts));
	for (size_t i = 0; i < conf->nparts; i++) {
		const struct conf_part *cp = &conf->parts[i];
		struct part *p = &ctld.parts[i];
		struct hostlist *hl = NULL, *names = hostlist_create(NULL);

		p->conf = cp;
		p->name = xstrdup(cp->name);
		p->node_idx = xmalloc((ctld.nnodes ? ctld.nnodes : 1) * sizeof(int));
		if (cp->nodes && !strcasecmp(cp->nodes, "ALL")) {
			for (int k = 0; k < ctld.nnodes; k++)
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
			hostlist_push(names, ctld.nodes[p->node_idx[k]].name);
		p->nodes_str = hostlist_ranged_string(names);
		hostlist_destroy(names);
		hostlist_destroy(hl);
		if (cp->is_default && !ctld.default_part)
			ctld.default_part = p;
	}
}

struct part *part_find(const char *name)
{
	for (int i = 0; i < ctld.nparts; i++)
		if (!strcmp(ctld.parts[i].name, name))
			return &ctld.parts[i];
	return NULL;
}

json_t *part_to_json(const struct part *p)
{
	int cpus = 0;
	for (int k = 0; k < p->nnodes; k++)
		cpus += ctld.nodes[p->node_idx[k]].cpus;
	const struct conf_part *cp = p->conf;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I}",
			 "name", p->name, "nodes", p->nodes_str ? p->nodes_str : "",
			 "state", p->conf->state ? p->conf->state : "UP",
			 "oversubscribe", p->conf->oversubscribe ? p->conf->oversubscribe : "NO",
			 "default", p == ctld.default_part, "total_nodes", p->nnodes,
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
