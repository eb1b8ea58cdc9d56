/* One scheduling pass (pass.h).  The main pass only, for now: backfill
 * (the plan over time) comes in plan.c. */
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "sched/pass.h"

/* Take the chosen nodes in the working copy of the nodes. */
static void take(struct sched_node *sn, const struct sched_job *job, const struct sched_decision *d)
{
	for (int k = 0; k < d->n; k++) {
		struct sched_node *nd = &sn[d->node[k]];
		nd->alloc_cpus += d->cpus[k];
		nd->alloc_mem += job->req.mem_per_cpu ? job->req.mem_per_cpu * d->cpus[k]
						      : job->req.mem_per_node;
		nd->njobs++;
	}
}

static int main_pass(const struct sched_params *params, struct sched_node *sn, int nnodes,
		     const struct sched_job *jobs, int njobs, struct sched_decision *out)
{
	bool *blocked = xmalloc((params->nparts + 1) * sizeof(bool));
	int *node = xmalloc((nnodes + 1) * sizeof(int)), *cpus = xmalloc((nnodes + 1) * sizeof(int));
	int started = 0, limit = params->max_job_test > 0 && params->max_job_test < njobs
					   ? params->max_job_test : njobs;

	for (int i = 0; i < limit; i++) {
		const struct sched_job *job = &jobs[i];
		struct sched_decision *d = &out[i];
		bool *busy = xmalloc((job->nalt + 1) * sizeof(bool));
		int n = 0;

		d->what = SCHED_D_WAIT;
		d->why = SCHED_WHY_NEVER;
		for (int a = 0; a < job->nalt && d->what != SCHED_D_START; a++) {
			const struct sched_alt *alt = &job->alt[a];
			enum sched_fit fit = sched_select(sn, alt->cand, alt->ncand, &job->req, node, cpus, &n);
			busy[a] = fit == SCHED_BUSY;
			if (fit == SCHED_PICKED && !blocked[alt->part]) {
				d->what = SCHED_D_START;
				d->why = SCHED_WHY_NONE;
				d->alt = a;
				d->start = params->now;
				d->time_limit = job->time_limit;
				d->n = n;
				d->node = xmalloc(n * sizeof(int));
				d->cpus = xmalloc(n * sizeof(int));
				memcpy(d->node, node, n * sizeof(int));
				memcpy(d->cpus, cpus, n * sizeof(int));
				take(sn, job, d);
				started++;
			} else if (fit == SCHED_PICKED || (fit == SCHED_BUSY && d->why != SCHED_WHY_RESOURCES)) {
				d->why = fit == SCHED_PICKED ? SCHED_WHY_PRIORITY : SCHED_WHY_RESOURCES;
			}
		}
		/* Strict priority: it waits for resources there, and so do the
		 * lower jobs of those partitions (unless it started elsewhere). */
		for (int a = 0; a < job->nalt && d->what != SCHED_D_START; a++)
			if (busy[a])
				blocked[job->alt[a].part] = true;
		free(busy);
	}
	for (int i = limit; i < njobs; i++)
		out[i].what = SCHED_D_NONE;
	free(blocked);
	free(node);
	free(cpus);
	return started;
}

int sched_pass(const struct sched_params *params, const struct sched_node *nodes, int nnodes,
	       const struct sched_run *run, int nrun, const struct sched_resv *resv, int nresv,
	       const struct sched_job *jobs, int njobs, struct sched_decision *out)
{
	struct sched_node *sn = xmalloc((nnodes + 1) * sizeof(*sn));
	int started;

	memcpy(sn, nodes, nnodes * sizeof(*sn));
	memset(out, 0, njobs * sizeof(*out));
	started = main_pass(params, sn, nnodes, jobs, njobs, out);
	free(sn);
	return started;
}

void sched_decisions_free(struct sched_decision *out, int n)
{
	for (int i = 0; i < n; i++) {
		free(out[i].node);
		free(out[i].cpus);
		out[i].node = out[i].cpus = NULL;
	}
}
