/* Gang scheduling: in partitions with OverSubscribe=FORCE under
 * PreemptMode=...,GANG, jobs that need the same CPUs take turns of
 * SchedulerTimeSlice seconds.  A job that arrives while the CPUs are busy
 * waits until the running jobs it needs room from have had their turn,
 * then suspends them and starts (preempt_for, gang case); every second this file looks for running jobs whose slice is
 * over while others wait suspended, and swaps them: the waiting ones that
 * fit (longest suspended first) run, the others are suspended.  Simpler
 * than Slurm's gang scheduler (doc/scheduling.md): no rows of jobs kept
 * per partition, only these turns, and FORCE's job count is not used. */
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/preempt.h"

struct gang_list {
	const struct part *p;
	struct job **run, **wait;
	int nrun, nwait;
};

static void gang_collect(struct job *job, void *arg)
{
	struct gang_list *g = arg;
	if (job->part != g->p || !job->nalloc || job->preempted)
		return;
	if (job->state == JOB_RUNNING) {
		g->run = xrealloc(g->run, (g->nrun + 1) * sizeof(*g->run));
		g->run[g->nrun++] = job;
	} else if (job->state == JOB_SUSPENDED && job->gang_suspended) {
		g->wait = xrealloc(g->wait, (g->nwait + 1) * sizeof(*g->wait));
		g->wait[g->nwait++] = job;
	}
}

/* When its present turn began (or its wait, suspended); a slice_start
 * from an earlier run of a requeued job is before its start. */
static time_t slice_of(const struct job *job)
{
	return job->slice_start > job->start_time ? job->slice_start : job->start_time;
}

static int by_slice(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
	time_t sx = slice_of(x), sy = slice_of(y);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Does job fit in free (CPUs per node)?  take: then count it in. */
static bool fits_free(int *free_cpus, const struct job *job, bool take)
{
	for (int i = 0; i < job->nalloc; i++)
		if (free_cpus[job->alloc_node[i]] < job->alloc_cpus[i])
			return false;
	if (take)
		for (int i = 0; i < job->nalloc; i++)
			free_cpus[job->alloc_node[i]] -= job->alloc_cpus[i];
	return true;
}

/* The resumes of one swap, sent once every suspended job's nodes answered
 * (so the two sets never run at once on a node). */
struct swap {
	int left;
	uint32_t *resume;
	int nresume;
};

static void swap_resume(struct swap *s)
{
	for (int i = 0; i < s->nresume; i++) {
		struct job *job = job_find(s->resume[i]);
		if (job && job->state == JOB_RUNNING)
			core_suspend(job, false, NULL, NULL);
	}
	free(s->resume);
	free(s);
}

static void swap_suspended(void *arg)
{
	struct swap *s = arg;
	if (--s->left == 0)
		swap_resume(s);
}

/* last: the tick before (turns that ended since then ask for a pass: a
 * job waiting to share the nodes may start now, preempt_for) */
static void gang_part_tick(const struct part *p, time_t now, time_t last)
{
	struct gang_list g = { .p = p };
	int *free_cpus = xmalloc((core.nnodes + 1) * sizeof(int));
	bool *stop = NULL, *go = NULL;
	int nstop = 0, ngo = 0;

	job_foreach(gang_collect, &g);
	for (int i = 0; i < g.nrun; i++) {
		time_t over = slice_of(g.run[i]) + preempt_conf.time_slice;
		if (over > last && over <= now)
			sched_request();
	}
	if (!g.nwait)
		goto out;
	qsort(g.wait, g.nwait, sizeof(*g.wait), by_slice);
	for (int i = 0; i < core.nnodes; i++)
		free_cpus[i] = core.nodes[i].cpus - core.nodes[i].alloc_cpus;
	/* The running jobs whose turn is over give their CPUs to the plan */
	stop = xmalloc((g.nrun + 1) * sizeof(bool));
	go = xmalloc((g.nwait + 1) * sizeof(bool));
	for (int i = 0; i < g.nrun; i++) {
		if (slice_of(g.run[i]) + preempt_conf.time_slice > now)
			continue;
		stop[i] = true;
		for (int k = 0; k < g.run[i]->nalloc; k++)
			free_cpus[g.run[i]->alloc_node[k]] += g.run[i]->alloc_cpus[k];
	}
	for (int i = 0; i < g.nwait; i++)
		if (fits_free(free_cpus, g.wait[i], true))
			go[i] = true, ngo++;
	if (!ngo)
		goto out;
	/* A job whose turn is over keeps running if the ones let in leave it room */
	for (int i = 0; i < g.nrun; i++)
		if (stop[i] && fits_free(free_cpus, g.run[i], true))
			stop[i] = false;
	struct swap *s = xmalloc(sizeof(*s));
	s->left = 1;   /* this function's own share, given up below */
	s->resume = xmalloc((ngo + 1) * sizeof(*s->resume));
	s->nresume = 0;
	for (int i = 0; i < g.nrun; i++) {
		if (!stop[i])
			continue;
		struct job *job = g.run[i];
		nstop++;
		s->left++;
		job->gang_suspended = true;
		job->slice_start = now;   /* (waiting since) */
		log_info("job %u: gang: its time slice is over", job->id);
		preempt_suspend(job, swap_suspended, s);
	}
	for (int i = 0; i < g.nwait; i++) {
		struct job *job = g.wait[i];
		if (!go[i] || !node_can_reclaim(job))
			continue;
		node_reclaim(job);
		job->gang_suspended = false;
		job->slice_start = now;
		job_set_state(job, JOB_RUNNING, REASON_NONE);
		log_info("job %u: gang: its time slice begins", job->id);
		s->resume[s->nresume++] = job->id;
	}
	swap_suspended(s);
	if (nstop || s->nresume)
		sched_request();
out:
	free(stop);
	free(go);
	free(free_cpus);
	free(g.run);
	free(g.wait);
}

/* Jobs suspended for their turn in a partition that is no longer a gang
 * one (a reconfigure took GANG or FORCE away): resumed when they fit. */
static bool maybe_stranded = true;   /* at start: any left from before a restart */

static void unstrand(struct job *job, void *arg)
{
	int *left = arg;
	if (job->state != JOB_SUSPENDED || !job->gang_suspended)
		return;
	if (job->part && !job->part->removed && gang_part(job->part)) {
		(*left)++;   /* its gang's turns will come */
		return;
	}
	if (!preempt_resume(job))
		(*left)++;
	else
		log_info("job %u: resumed (its partition is no longer gang scheduled)", job->id);
}

void gang_tick(time_t now)
{
	static time_t last;
	if (!last || last > now)
		last = now - 1;
	for (int i = 0; i < core.nparts && preempt_conf.gang; i++)
		if (!core.parts[i].removed && gang_part(&core.parts[i])) {
			gang_part_tick(&core.parts[i], now, last);
			maybe_stranded = true;
		}
	last = now;
	if (maybe_stranded) {
		int left = 0;
		job_foreach(unstrand, &left);
		maybe_stranded = left > 0;
	}
}
