/* First-fit node selection in configuration order (topology-aware placement
 * comes with topology/tree).  With -N, every node gets ceil(ntasks/N) tasks'
 * worth of CPUs; without it, one node that holds the whole job is preferred,
 * else nodes are filled in order. */
#include <stddef.h>
#include "sched/select.h"

static int free_cpus(const struct sched_node *n, bool empty)
{
	return empty ? n->cpus : n->cpus - n->alloc_cpus;
}

static bool node_ok(const struct sched_node *n, const struct sched_req *req, bool empty)
{
	if (!empty && !n->usable)
		return false;
	if (req->exclusive && !empty && n->njobs > 0)
		return false;
	uint64_t free_mem = empty ? n->memory : n->memory - n->alloc_mem;
	return req->mem_per_node <= free_mem;
}

/* One attempt; empty = pretend every node is idle and usable (can it ever fit?). */
static bool try_pick(const struct sched_node *nodes, const int *cand, int ncand,
		     const struct sched_req *req, bool empty, int *out_node, int *out_cpus,
		     int *out_n)
{
	int cpt = req->cpus_per_task > 0 ? req->cpus_per_task : 1;
	int ntasks = req->ntasks > 0 ? req->ntasks : (req->nodes > 0 ? req->nodes : 1);
	int n = 0;

	if (req->nodes > 0) {
		int per_node = ((ntasks + req->nodes - 1) / req->nodes) * cpt;
		for (int i = 0; i < ncand && n < req->nodes; i++) {
			const struct sched_node *nd = &nodes[cand[i]];
			if (!node_ok(nd, req, empty) || free_cpus(nd, empty) < per_node)
				continue;
			out_node[n] = cand[i];
			out_cpus[n++] = req->exclusive ? nd->cpus : per_node;
		}
		if (n < req->nodes)
			return false;
		*out_n = n;
		return true;
	}
	int need = ntasks * cpt;
	for (int i = 0; i < ncand; i++) {   /* one node for all of it */
		const struct sched_node *nd = &nodes[cand[i]];
		if (node_ok(nd, req, empty) && free_cpus(nd, empty) >= need) {
			out_node[0] = cand[i];
			out_cpus[0] = req->exclusive ? nd->cpus : need;
			*out_n = 1;
			return true;
		}
	}
	for (int i = 0; i < ncand && need > 0; i++) {   /* whole tasks, node after node */
		const struct sched_node *nd = &nodes[cand[i]];
		int tasks = free_cpus(nd, empty) / cpt;
		if (!node_ok(nd, req, empty) || tasks == 0)
			continue;
		int take = tasks * cpt < need ? tasks * cpt : need;
		out_node[n] = cand[i];
		out_cpus[n++] = req->exclusive ? nd->cpus : take;
		need -= take;
	}
	if (need > 0)
		return false;
	*out_n = n;
	return true;
}

enum sched_fit sched_select(const struct sched_node *nodes, const int *cand, int ncand,
			    const struct sched_req *req, int *out_node, int *out_cpus, int *out_n)
{
	if (try_pick(nodes, cand, ncand, req, false, out_node, out_cpus, out_n))
		return SCHED_PICKED;
	if (!try_pick(nodes, cand, ncand, req, true, out_node, out_cpus, out_n))
		return SCHED_NEVER;
	return SCHED_BUSY;
}
