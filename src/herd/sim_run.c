/* `herd sim`'s replay loop: the trace's jobs arrive at their submit times,
 * run for min(run time, estimate), and src/sched's pass decides at every
 * arrival and every end.  Events at one time are taken together: all the
 * ends, then the arrivals, then one pass.  Virtual time: nothing sleeps.
 * Not the output (sim_out.c) nor the command line (sim.c). */
#define _GNU_SOURCE   /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "herd/sim.h"

/* The trace's seconds are shifted by this in the pass (a real epoch), so
 * that no time the pass sees is 0, which means "never" in sched_run.end. */
#define SIM_EPOCH 1000000000

struct sjob {
	size_t trace_idx;
	int64_t submit;              /* virtual */
	int64_t run, estimate;
	int64_t plan;                /* the time limit the pass plans with: the estimate, at least 1 s */
	long procs;
	int user;                    /* dense index (fair-share) */
	int64_t start, end;          /* virtual; -1 until known */
	int *node, *cpus, n;         /* the allocation while running */
	int run_pos;                 /* index in the running list, -1 when not running */
	uint32_t priority;
};

struct end_ev {
	int64_t time;
	size_t job;
};

struct sim {
	const struct sim_opts *opts;
	struct sjob *jobs;
	size_t njobs;
	struct sched_node *nodes;
	int nnodes;
	long procs, busy;
	int *all_nodes;              /* every node: the one alternative's candidates */
	uint64_t *zero_mem;
	struct sched_alt alt;
	size_t *queue, qlen;         /* pending jobs, in arrival order (FCFS, EASY) */
	size_t *running, nrunning;
	struct end_ev *heap;
	size_t nheap;
	/* the pass's input, reused */
	struct sched_job *pjobs;
	size_t *pjob_q;              /* pjobs[i] is queue[pjob_q[i]] */
	struct sched_run *prun;
	struct sched_decision *out;
	struct sim_prio *prio;
	int64_t charged;             /* usage charged up to this time */
	struct sim_result *res;
	size_t samples_cap;
};

static bool ev_less(const struct end_ev *a, const struct end_ev *b)
{
	return a->time < b->time || (a->time == b->time && a->job < b->job);
}

static void heap_push(struct sim *s, int64_t time, size_t job)
{
	size_t i = s->nheap++;
	s->heap[i] = (struct end_ev){ time, job };
	while (i > 0 && ev_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
		struct end_ev t = s->heap[i];
		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct end_ev heap_pop(struct sim *s)
{
	struct end_ev top = s->heap[0];
	size_t i = 0;
	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->nheap && ev_less(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nheap && ev_less(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		struct end_ev t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
	return top;
}

static int cmp_arrival(const void *a, const void *b, void *arg)
{
	const struct sjob *jobs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (jobs[x].submit != jobs[y].submit)
		return jobs[x].submit < jobs[y].submit ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void job_start(struct sim *s, size_t j, struct sched_decision *d, int64_t now)
{
	struct sjob *job = &s->jobs[j];
	job->start = now;
	job->end = now + job->run;
	job->node = d->node;
	job->cpus = d->cpus;
	job->n = d->n;
	d->node = d->cpus = NULL;   /* the job owns them now */
	for (int k = 0; k < job->n; k++) {
		s->nodes[job->node[k]].alloc_cpus += job->cpus[k];
		s->nodes[job->node[k]].njobs++;
		s->busy += job->cpus[k];
	}
	job->run_pos = (int)s->nrunning;
	s->running[s->nrunning++] = j;
	heap_push(s, job->end, j);
}

static void job_end(struct sim *s, size_t j)
{
	struct sjob *job = &s->jobs[j];
	for (int k = 0; k < job->n; k++) {
		s->nodes[job->node[k]].alloc_cpus -= job->cpus[k];
		s->nodes[job->node[k]].njobs--;
		s->busy -= job->cpus[k];
	}
	free(job->node);
	free(job->cpus);
	job->node = job->cpus = NULL;
	size_t last = s->running[--s->nrunning];
	s->running[job->run_pos] = last;
	s->jobs[last].run_pos = job->run_pos;
	job->run_pos = -1;
}

static void add_pass_job(struct sim *s, size_t n, size_t qpos)
{
	const struct sjob *job = &s->jobs[s->queue[qpos]];
	s->pjobs[n] = (struct sched_job){
		.id = (uint32_t)s->queue[qpos],
		.user = (uint32_t)job->user,
		.req = { .ntasks = (int)job->procs, .cpus_per_task = 1 },
		.alt = &s->alt,
		.nalt = 1,
		.time_limit = job->plan,
		.resv = -1,
	};
	s->pjob_q[n] = qpos;
}

/* Which pending jobs the pass is given.  FCFS and EASY are given only
 * those that could start and the first that could not: a job bigger than
 * the free CPUs cannot start in this pass whatever it decides, and under
 * FCFS and EASY it holds nothing unless it is the first that waits, so
 * leaving it out changes no decision and keeps a pass near O(free CPUs)
 * on a long queue. */
static size_t pass_input(struct sim *s)
{
	long free_cpus = s->procs - s->busy;
	size_t n = 0;
	bool waiter = false;

	switch (s->opts->policy) {
	case SIM_FCFS:
		/* strict order: at most free_cpus jobs start, then one waits */
		for (size_t q = 0; q < s->qlen && (long)n <= free_cpus; q++)
			add_pass_job(s, n++, q);
		break;
	case SIM_EASY:
		for (size_t q = 0; q < s->qlen; q++) {
			if (s->jobs[s->queue[q]].procs > free_cpus) {
				if (waiter)
					continue;
				waiter = true;
			}
			add_pass_job(s, n++, q);
		}
		break;
	case SIM_MULTIFACTOR:
	case SIM_SLURM:   /* sim_core.c's, never this loop's */
		for (size_t q = 0; q < s->qlen; q++)
			add_pass_job(s, n++, q);
		break;
	}
	return n;
}

static void sample(struct sim *s, int64_t now)
{
	struct sim_result *res = s->res;
	if (res->nsamples == s->samples_cap) {
		s->samples_cap = s->samples_cap ? 2 * s->samples_cap : 1024;
		res->samples = xrealloc(res->samples, s->samples_cap * sizeof(*res->samples));
	}
	res->samples[res->nsamples++] = (struct sim_sample){ now - SIM_EPOCH, s->busy, (long)s->qlen };
}

/* Fair-share: decay the usage to now, then charge what ran since. */
static void charge_usage(struct sim *s, int64_t now)
{
	sim_prio_decay(s->prio, now);
	if (s->charged)
		for (size_t r = 0; r < s->nrunning; r++) {
			const struct sjob *job = &s->jobs[s->running[r]];
			sim_prio_charge(s->prio, job->user, (double)job->procs * (double)(now - s->charged));
		}
	s->charged = now;
}

static int cmp_priority(const void *a, const void *b, void *arg)
{
	const struct sjob *jobs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (jobs[x].priority != jobs[y].priority)
		return jobs[x].priority > jobs[y].priority ? -1 : 1;
	return cmp_arrival(a, b, arg);
}

/* The queue in priority order (ties: the earlier submitted first). */
static void order_queue(struct sim *s, int64_t now)
{
	int per_node = s->procs / (s->nnodes > 0 ? s->nnodes : 1);
	for (size_t q = 0; q < s->qlen; q++) {
		struct sjob *job = &s->jobs[s->queue[q]];
		int nodes = per_node > 0 ? (int)((job->procs + per_node - 1) / per_node) : 1;
		job->priority = sim_prio_job(s->prio, job->user, job->submit, job->procs, nodes,
					     job->estimate, now);
	}
	qsort_r(s->queue, s->qlen, sizeof(size_t), cmp_priority, s->jobs);
}

static void one_pass(struct sim *s, int64_t now)
{
	const struct sim_opts *o = s->opts;

	if (o->policy == SIM_MULTIFACTOR)
		order_queue(s, now);
	size_t n = pass_input(s);
	if (n == 0)
		return;
	for (size_t r = 0; r < s->nrunning; r++) {
		const struct sjob *job = &s->jobs[s->running[r]];
		s->prun[r] = (struct sched_run){ .node = job->node, .cpus = job->cpus,
						 .mem = s->zero_mem, .n = job->n,
						 .end = job->start + job->plan };
	}
	struct sched_params params = {
		.now = now,
		.backfill = o->backfill,
		.window = o->window,
		.resolution = o->resolution,
		.max_job_test = o->max_job_test,
		.max_job_user = o->max_job_user,
		.max_reservations = o->max_reservations,
		.nparts = 1,
	};
	sched_pass(&params, s->nodes, s->nnodes, s->prun, (int)s->nrunning, NULL, 0, s->pjobs, (int)n,
		   s->out);
	s->res->passes++;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		if (s->out[i].what == SCHED_D_START) {
			size_t q = s->pjob_q[i];
			job_start(s, s->queue[q], &s->out[i], now);
			s->queue[q] = (size_t)-1;
			any = true;
		}
	sched_decisions_free(s->out, (int)n);
	if (!any)
		return;
	size_t k = 0;
	for (size_t q = 0; q < s->qlen; q++)
		if (s->queue[q] != (size_t)-1)
			s->queue[k++] = s->queue[q];
	s->qlen = k;
}

static void build_machine(struct sim *s, const struct sim_machine *m)
{
	s->nnodes = m->nnodes;
	s->nodes = xmalloc(m->nnodes * sizeof(*s->nodes));
	s->all_nodes = xmalloc(m->nnodes * sizeof(int));
	s->zero_mem = xmalloc(m->nnodes * sizeof(uint64_t));
	for (int i = 0; i < m->nnodes; i++) {
		s->nodes[i] = (struct sched_node){ .cpus = m->cpus[i], .usable = true };
		s->all_nodes[i] = i;
		s->procs += m->cpus[i];
	}
	s->alt = (struct sched_alt){ .part = 0, .cand = s->all_nodes, .ncand = m->nnodes };
}

/* The jobs that replay: those with a size no bigger than the machine and
 * a run time. */
static void take_jobs(struct sim *s, const struct swf_trace *trace, int *user_of)
{
	s->jobs = xmalloc((trace->njobs + 1) * sizeof(*s->jobs));
	for (size_t i = 0; i < trace->njobs; i++) {
		const struct swf_job *sw = &trace->jobs[i];
		long size = swf_job_size(sw);
		if (size <= 0 || sw->run < 0 || sw->submit < 0) {
			s->res->skipped_bad++;
			continue;
		}
		if (size > s->procs) {
			s->res->skipped_big++;
			continue;
		}
		struct sjob *job = &s->jobs[s->njobs++];
		*job = (struct sjob){
			.trace_idx = i,
			.submit = sw->submit + SIM_EPOCH,
			.run = swf_job_runtime(sw),
			.estimate = swf_job_estimate(sw),
			.procs = size,
			.user = user_of[i],
			.start = -1,
			.end = -1,
			.run_pos = -1,
		};
		job->plan = job->estimate > 0 ? job->estimate : 1;
	}
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* Users as dense indexes 0..nusers (fair-share). */
static int *dense_users(const struct swf_trace *trace, int *nusers)
{
	long *ids = xmalloc((trace->njobs + 1) * sizeof(long));
	int *user_of = xmalloc((trace->njobs + 1) * sizeof(int));
	size_t n = 0;
	for (size_t i = 0; i < trace->njobs; i++)
		ids[i] = trace->jobs[i].user;
	qsort(ids, trace->njobs, sizeof(long), cmp_long);
	for (size_t i = 0; i < trace->njobs; i++)
		if (n == 0 || ids[n - 1] != ids[i])
			ids[n++] = ids[i];
	for (size_t i = 0; i < trace->njobs; i++) {
		long *p = bsearch(&trace->jobs[i].user, ids, n, sizeof(long), cmp_long);
		user_of[i] = (int)(p - ids);
	}
	free(ids);
	*nusers = (int)n;
	return user_of;
}

int sim_run(const struct swf_trace *trace, const struct sim_opts *opts, struct sim_result *res,
	    struct herd_error *err)
{
	struct sim s = { .opts = opts, .res = res };
	int nusers, rc = -1;
	int *user_of;

	memset(res, 0, sizeof(*res));
	build_machine(&s, &opts->machine);
	res->procs = s.procs;
	res->nnodes = opts->machine.nnodes;
	user_of = dense_users(trace, &nusers);
	take_jobs(&s, trace, user_of);
	free(user_of);

	size_t *arrival = xmalloc((s.njobs + 1) * sizeof(size_t));
	for (size_t i = 0; i < s.njobs; i++)
		arrival[i] = i;
	qsort_r(arrival, s.njobs, sizeof(size_t), cmp_arrival, s.jobs);
	s.queue = xmalloc((s.njobs + 1) * sizeof(size_t));
	s.running = xmalloc((s.njobs + 1) * sizeof(size_t));
	s.heap = xmalloc((s.njobs + 1) * sizeof(*s.heap));
	s.pjobs = xmalloc((s.njobs + 1) * sizeof(*s.pjobs));
	s.pjob_q = xmalloc((s.njobs + 1) * sizeof(size_t));
	s.prun = xmalloc((s.njobs + 1) * sizeof(*s.prun));
	s.out = xmalloc((s.njobs + 1) * sizeof(*s.out));
	if (opts->policy == SIM_MULTIFACTOR)
		s.prio = sim_prio_create(&opts->prio, nusers, s.nnodes, s.procs);

	size_t next = 0;
	while (next < s.njobs || s.nheap > 0) {
		int64_t now = next < s.njobs ? s.jobs[arrival[next]].submit : INT64_MAX;
		if (s.nheap > 0 && s.heap[0].time < now)
			now = s.heap[0].time;
		if (s.prio)
			charge_usage(&s, now);
		while (s.nheap > 0 && s.heap[0].time == now)
			job_end(&s, heap_pop(&s).job);
		while (next < s.njobs && s.jobs[arrival[next]].submit == now)
			s.queue[s.qlen++] = arrival[next++];
		one_pass(&s, now);
		sample(&s, now);
	}
	if (s.qlen > 0) {
		errprintf(err, "%zu jobs never started (the first: job %ld, %ld processors)", s.qlen,
			  trace->jobs[s.jobs[s.queue[0]].trace_idx].id, s.jobs[s.queue[0]].procs);
		goto out;
	}
	res->jobs = xmalloc((s.njobs + 1) * sizeof(*res->jobs));
	res->njobs = s.njobs;
	for (size_t i = 0; i < s.njobs; i++) {
		const struct sjob *job = &s.jobs[i];
		res->jobs[i] = (struct sim_outcome){
			.id = trace->jobs[job->trace_idx].id,
			.submit = job->submit - SIM_EPOCH,
			.start = job->start - SIM_EPOCH,
			.end = job->end - SIM_EPOCH,
			.run = job->run,
			.estimate = job->estimate,
			.procs = job->procs,
		};
	}
	rc = 0;
out:
	for (size_t i = 0; i < s.njobs; i++) {
		free(s.jobs[i].node);
		free(s.jobs[i].cpus);
	}
	sim_prio_destroy(s.prio);
	free(arrival);
	free(s.jobs);
	free(s.nodes);
	free(s.all_nodes);
	free(s.zero_mem);
	free(s.queue);
	free(s.running);
	free(s.heap);
	free(s.pjobs);
	free(s.pjob_q);
	free(s.prun);
	free(s.out);
	if (rc < 0)
		sim_result_free(res);
	return rc;
}

void sim_result_free(struct sim_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->njobs; i++) {
		free(res->jobs[i].name);
		free(res->jobs[i].user);
		free(res->jobs[i].nodes);
	}
	free(res->jobs);
	free(res->samples);
	res->jobs = NULL;
	res->samples = NULL;
	res->njobs = res->nsamples = 0;
}
