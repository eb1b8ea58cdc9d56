/* Preemption victims (sched/preempt.h): greedy in preference order, then
 * pruned.  Not optimal in general (that is a set cover); the same kind of
 * choice Slurm's preempt plugins make. */
#include <stdlib.h>
#include <string.h>
#include "sched/preempt.h"

/* Lower tier, lower priority, younger (later start), higher id: first. */
static int prefer(const struct sched_preempt_cand *x, const struct sched_preempt_cand *y)
{
	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

/* Insertion sort of the indexes (no qsort: it takes no context, and the
 * core keeps no globals); the running jobs on a partition's nodes are few. */
static void sort_by_preference(int *order, int n, const struct sched_preempt_cand *c)
{
	for (int i = 1; i < n; i++) {
		int x = order[i], k = i;
		for (; k > 0 && prefer(&c[x], &c[order[k - 1]]) < 0; k--)
			order[k] = order[k - 1];
		order[k] = x;
	}
}

static bool on_candidates(const struct sched_preempt_cand *v, const struct sched_preempt_job *job)
{
	for (int i = 0; i < v->n; i++)
		for (int k = 0; k < job->ncand; k++)
			if (v->node[i] == job->cand[k])
				return true;
	return false;
}

/* Give v's hold back on nodes (sign -1) or take it again (+1). */
static void apply(struct sched_node *nodes, int nnodes, const struct sched_preempt_cand *v, int sign)
{
	for (int i = 0; i < v->n; i++) {
		if (v->node[i] < 0 || v->node[i] >= nnodes)
			continue;
		struct sched_node *nd = &nodes[v->node[i]];
		nd->alloc_cpus += sign * v->cpus[i];
		if (v->mem)
			nd->alloc_mem += sign * (int64_t)v->mem[i];
		for (int g = 0; v->gres && g < SCHED_GRES_KINDS; g++)
			nd->alloc_gres[g] += sign * v->gres[i * SCHED_GRES_KINDS + g];
		nd->njobs += sign;
	}
}

static bool fits(const struct sched_node *nodes, const struct sched_preempt_job *job, int *node,
		 int *cpus)
{
	int n;
	return sched_select(nodes, job->cand, job->ncand, job->req, node, cpus, &n, NULL) == SCHED_PICKED;
}

int sched_preempt_select(const struct sched_node *nodes, int nnodes,
			 const struct sched_preempt_cand *c, int nc,
			 const struct sched_preempt_job *job, int *victims)
{
	struct sched_node *work = malloc((nnodes + 1) * sizeof(*work));
	int *order = malloc((nc + 1) * sizeof(int));
	int *node = malloc((nnodes + 1) * sizeof(int)), *cpus = malloc((nnodes + 1) * sizeof(int));
	bool *chosen = calloc(nc + 1, sizeof(bool));
	int norder = 0, nchosen = 0, nv = -1;

	if (!work || !order || !node || !cpus || !chosen)
		goto out;
	memcpy(work, nodes, nnodes * sizeof(*work));
	if (fits(work, job, node, cpus)) {
		nv = 0;
		goto out;
	}
	for (int i = 0; i < nc; i++) {
		const struct sched_preempt_cand *v = &c[i];
		if (!v->preemptable || !on_candidates(v, job))
			continue;
		if (job->exempt_time > 0 && job->now - v->start < job->exempt_time)
			continue;   /* PreemptExemptTime: too young */
		order[norder++] = i;
	}
	sort_by_preference(order, norder, c);
	bool ok = false;
	for (int k = 0; k < norder && !ok; k++) {
		apply(work, nnodes, &c[order[k]], -1);
		chosen[k] = true;
		nchosen = k + 1;
		ok = fits(work, job, node, cpus);
	}
	if (!ok)
		goto out;
	/* Keep every victim that need not go, the most valuable first. */
	for (int k = nchosen - 1; k >= 0; k--) {
		apply(work, nnodes, &c[order[k]], +1);
		if (fits(work, job, node, cpus))
			chosen[k] = false;
		else
			apply(work, nnodes, &c[order[k]], -1);
	}
	nv = 0;
	for (int k = 0; k < nchosen; k++)
		if (chosen[k])
			victims[nv++] = order[k];
out:
	free(work);
	free(order);
	free(node);
	free(cpus);
	free(chosen);
	return nv;
}
