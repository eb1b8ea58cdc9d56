/* The controller's scheduling pass: pending jobs in priority order, each
 * given all it asked for or nothing (src/sched/select.c decides).  Runs soon
 * after every event that may let a job start (submit committed, job end, node
 * registration) and every few seconds.  Strict priority within a partition:
 * once a job waits for resources, lower-priority jobs of that partition wait
 * too (reason Priority) — backfill comes with sched/backfill. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "sched/feature.h"
#include "sched/select.h"

struct pending {
	struct job **jobs;
	size_t n, cap;
};

static uint32_t pass_number;   /* array_pass: whose array_running is current */

/* The array's running tasks counted in this pass (0 until one is). */
static uint32_t *running_tasks(struct job *meta)
{
	if (meta->array_pass != pass_number) {
		meta->array_pass = pass_number;
		meta->array_running = 0;
	}
	return &meta->array_running;
}

/* A running task counts against its array's throttle (%N). */
static void count_array_task(const struct job *task)
{
	struct job *meta = job_find(task->array_job_id);
	if (meta && meta != task && array_is_meta(meta))
		(*running_tasks(meta))++;
}

static void collect(struct job *job, void *arg)
{
	struct pending *p = arg;
	if (job->array_job_id && (job->state == JOB_RUNNING || job->state == JOB_COMPLETING ||
				  job->state == JOB_SUSPENDED))
		count_array_task(job);
	if (job->state != JOB_PENDING || !job->durable)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->jobs = xrealloc(p->jobs, p->cap * sizeof(*p->jobs));
	}
	p->jobs[p->n++] = job;
}

static int by_priority(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct sched_node *snapshot_nodes(void)
{
	struct sched_node *sn = xmalloc((ctld.nnodes ? ctld.nnodes : 1) * sizeof(*sn));
	for (int i = 0; i < ctld.nnodes; i++) {
		const struct node *n = &ctld.nodes[i];
		sn[i] = (struct sched_node){
			.cpus = n->cpus, .alloc_cpus = n->alloc_cpus, .memory = n->real_memory,
			.alloc_mem = n->alloc_mem, .njobs = n->njobs,
			.usable = n->registered && !n->not_responding && !n->drain &&
				  (n->state == NODE_IDLE || n->state == NODE_MIXED ||
				   n->state == NODE_ALLOCATED),
		};
	}
	return sn;
}

static bool part_up(const struct part *p)
{
	return !p->removed && (!p->conf->state || !strcasecmp(p->conf->state, "UP"));
}

/* Within the partition's MaxTime? */
static bool part_time_ok(const struct job *job, const struct part *p)
{
	return p->conf->max_time == TIME_INFINITE ||
	       (job->time_limit != TIME_INFINITE && job->time_limit <= p->conf->max_time);
}

static struct sched_req job_req(const struct job *job)
{
	return (struct sched_req){
		.nodes = job->req_nodes, .ntasks = job->ntasks, .cpus_per_task = job->cpus_per_task,
		.mem_per_node = job->mem_mb, .mem_per_cpu = job->mem_per_cpu,
		.exclusive = job->exclusive, .required = job->req_idx, .nrequired = job->nreq_idx,
		.excluded = job->exc_idx, .nexcluded = job->nexc_idx,
	};
}

const char *sched_known_features(void)
{
	static char *known;
	if (known)
		return known;
	known = xstrdup("");
	for (int i = 0; i < ctld.nnodes; i++) {
		const char *f = ctld.nodes[i].conf->features;
		if (f && *f) {
			char *next = xasprintf("%s%s%s", known, *known ? "," : "", f);
			free(known);
			known = next;
		}
	}
	return known;
}

/* Reservations (resv.c): while set, the candidates are only the nodes
 * the job may use now as reservations stand. */
static const struct job *resv_job;
static time_t resv_now;

/* The partition's nodes that satisfy the constraint expr (NULL: all), into cand. */
static int candidates(const char *expr, const struct part *p, int *cand)
{
	int n = 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct node *nd = &ctld.nodes[p->node_idx[i]];
		if (resv_job && !resv_node_allowed(resv_job, p->node_idx[i], resv_now))
			continue;
		if (!expr || feature_match(expr, nd->conf->features) == 1)
			cand[n++] = p->node_idx[i];
	}
	return n;
}

/* Try the job in one partition on the snapshot.  A matching OR (-C
 * "[a|b]") tries the nodes with a, then those with b: all of one kind. */
static enum sched_fit fit_in(const struct job *job, const struct part *p,
			     const struct sched_node *sn, int *node, int *cpus, int *n)
{
	int *cand = xmalloc((p->nnodes + 1) * sizeof(int));
	struct sched_req req = job_req(job);
	char **alts = NULL;
	int nalts = feature_matching_or(job->features, &alts);
	enum sched_fit fit = SCHED_NEVER;

	if (!nalts) {
		int ncand = candidates(job->features, p, cand);
		fit = sched_select(sn, cand, ncand, &req, node, cpus, n);
	}
	for (int i = 0; i < nalts; i++) {
		if (fit != SCHED_PICKED) {
			int ncand = candidates(alts[i], p, cand);
			enum sched_fit f = sched_select(sn, cand, ncand, &req, node, cpus, n);
			if (f > fit)
				fit = f;
		}
		free(alts[i]);
	}
	free(alts);
	free(cand);
	return fit;
}

int sched_job_runnable(const struct job *job, struct herd_error *err)
{
	struct sched_node *sn = snapshot_nodes();
	int *out = xmalloc((ctld.nnodes + 1) * sizeof(int)), *cpus = xmalloc((ctld.nnodes + 1) * sizeof(int));
	int n = 0, rc = HERD_ERR_NODE_CONFIG, nparts;
	struct part *const *parts = job_parts(job, &nparts);

	for (int i = 0; i < nparts && rc; i++)
		if (fit_in(job, parts[i], sn, out, cpus, &n) != SCHED_NEVER)
			rc = 0;
	if (rc)
		errprintf(err, "%s", herd_strerror(rc));
	free(sn);
	free(out);
	free(cpus);
	return rc;
}

struct ending {
	time_t when;
	const struct job *job;
};

static void collect_running(struct job *job, void *arg)
{
	struct pending *p = arg;
	if (job->state != JOB_RUNNING || !job->nalloc)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->jobs = xrealloc(p->jobs, p->cap * sizeof(*p->jobs));
	}
	p->jobs[p->n++] = job;
}

static int by_end(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
	time_t ex = x->time_limit < 0 ? (time_t)INT64_MAX : x->start_time + x->time_limit;
	time_t ey = y->time_limit < 0 ? (time_t)INT64_MAX : y->start_time + y->time_limit;
	return (ex > ey) - (ex < ey);
}

/* A simple estimate: now if it fits now; else free the running jobs in the
 * order their time limits end them until it fits, and answer that time. */
int sched_test_only(const struct job *job, time_t *start, char **nodes, int *cpus_out,
		    const struct part **part, struct herd_error *err)
{
	struct sched_node *sn = snapshot_nodes();
	int *node = xmalloc((ctld.nnodes + 1) * sizeof(int)), *cpus = xmalloc((ctld.nnodes + 1) * sizeof(int));
	struct pending run = { 0 };
	int n = 0, nparts, rc = HERD_ERR_NODE_CONFIG;
	struct part *const *parts = job_parts(job, &nparts);
	time_t when = time(NULL);

	job_foreach(collect_running, &run);
	if (run.n)
		qsort(run.jobs, run.n, sizeof(*run.jobs), by_end);
	for (size_t k = 0; rc && k <= run.n; k++) {
		if (k > 0) {   /* the k-th job to end has ended */
			const struct job *r = run.jobs[k - 1];
			if (r->time_limit < 0)
				break;   /* no limit: no telling when */
			for (int i = 0; i < r->nalloc; i++) {
				sn[r->alloc_node[i]].alloc_cpus -= r->alloc_cpus[i];
				sn[r->alloc_node[i]].alloc_mem -= job_node_mem(r, i);
				sn[r->alloc_node[i]].njobs--;
			}
			if (r->start_time + r->time_limit > when)
				when = r->start_time + r->time_limit;
		}
		for (int i = 0; i < nparts && rc; i++) {
			if (!part_up(parts[i]) || !part_time_ok(job, parts[i]) ||
			    fit_in(job, parts[i], sn, node, cpus, &n) != SCHED_PICKED)
				continue;
			struct hostlist *hl = hostlist_create(NULL);
			*cpus_out = 0;
			for (int j = 0; j < n; j++) {
				hostlist_push(hl, ctld.nodes[node[j]].name);
				*cpus_out += cpus[j];
			}
			*nodes = hostlist_ranged_string(hl);
			hostlist_destroy(hl);
			*part = parts[i];
			*start = when;
			rc = 0;
		}
	}
	if (rc) {
		rc = HERD_ERR_NODE_CONFIG;
		errprintf(err, "%s", herd_strerror(rc));
	}
	free(sn);
	free(node);
	free(cpus);
	free(run.jobs);
	return rc;
}

static void launch_after_commit(void *arg, bool ok)
{
	uint32_t id = (uintptr_t)arg;
	struct job *job = job_find(id);
	if (job && job->state == JOB_RUNNING)
		launch_job(job);
}

static void job_start(struct job *job, const int *node, const int *cpus, int n)
{
	struct hostlist *hl = hostlist_create(NULL);

	job->nalloc = n;
	job->alloc_node = xmalloc(n * sizeof(int));
	job->alloc_cpus = xmalloc(n * sizeof(int));
	memcpy(job->alloc_node, node, n * sizeof(int));
	memcpy(job->alloc_cpus, cpus, n * sizeof(int));
	job->alloc_mem = job->mem_mb;   /* per node; with --mem-per-cpu see job_node_mem() */
	for (int i = 0; i < n; i++)
		hostlist_push(hl, ctld.nodes[node[i]].name);
	free(job->nodes_str);
	job->nodes_str = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	job->start_time = time(NULL);
	job_expand_node_patterns(job);
	node_alloc(job);
	job_set_state(job, JOB_RUNNING, REASON_NONE);
	/* The node hears of the job only once its start is durable. */
	store_after_commit(launch_after_commit, (void *)(uintptr_t)job->id);
}

/* --deadline: a job that could not end before it if it started now (or at
 * its begin time) ends DEADLINE, as Slurm's "DeadLine". */
static bool deadline_passed(const struct job *job, time_t now)
{
	time_t start = job->eligible_time > now ? job->eligible_time : now;
	if (!job->deadline)
		return false;
	return job->time_limit == TIME_INFINITE || start + job->time_limit > job->deadline;
}

/* Whether the job's dependency lets it go; else its reason says why.  A
 * dependency that can never be met cancels the job when asked to
 * (--kill-on-invalid-dep, SchedulerParameters=kill_invalid_depend). */
static bool dependency_met(struct job *job, time_t now, bool *per_task)
{
	bool changed;
	enum depend_result r = depend_evaluate(job, now, &changed);

	*per_task = r == DEPEND_TASKS;   /* an array's aftercorr: see next_task() */
	if (r == DEPEND_NONE && changed && job->eligible_time < now)
		job->eligible_time = now;   /* eligible from when its dependency was met */
	if (r == DEPEND_NEVER && (job->kill_invalid_dep > 0 ||
				  (job->kill_invalid_dep < 0 && ctld.kill_invalid_depend))) {
		job_set_state(job, JOB_CANCELLED, REASON_DEP_NEVER);   /* saves the record */
		return false;
	}
	if (changed)
		store_job_update(job);
	if (r == DEPEND_NEVER)
		job->reason = REASON_DEP_NEVER;
	else if (r == DEPEND_WAIT)
		job->reason = REASON_DEPENDENCY;
	return r == DEPEND_NONE || r == DEPEND_TASKS;
}

/* How far into an array's pending tasks one pass looks for one whose
 * aftercorr is met (they may be met in any order). */
#define CORR_LOOKAHEAD 1000

/* The meta record's next task to start: the lowest, or with aftercorr the
 * lowest whose corresponding task is done; BITMAP_NONE (and the reason) if
 * none may start yet. */
static uint32_t next_task(struct job *meta, bool per_task)
{
	uint32_t t = bitmap_next(meta->array_pending, 0);
	bool all_never = true;

	if (!per_task)
		return t;
	for (int looked = 0; t != BITMAP_NONE && looked < CORR_LOOKAHEAD; looked++) {
		bool never;
		if (depend_task_ready(meta, t, &never))
			return t;
		all_never &= never;
		t = bitmap_next(meta->array_pending, t + 1);
	}
	meta->reason = all_never && t == BITMAP_NONE ? REASON_DEP_NEVER : REASON_DEPENDENCY;
	return BITMAP_NONE;
}

/* Can the job start in p now?  REASON_NONE with the nodes chosen, or why not
 * (REASON_PRIORITY: a higher-priority job waits for resources there). */
static enum job_reason try_partition(const struct job *job, const struct part *p,
				     const struct sched_node *sn, const bool *blocked, int *node,
				     int *cpus, int *n)
{
	int pi = (int)(p - ctld.parts);

	if (!part_up(p))
		return p->conf->state && !strcasecmp(p->conf->state, "INACTIVE") ? REASON_PART_INACTIVE
										 : REASON_PART_DOWN;
	if (!part_time_ok(job, p))
		return REASON_PART_TIME_LIMIT;
	if (blocked[pi])
		return REASON_PRIORITY;
	resv_job = job;
	resv_now = time(NULL);
	enum sched_fit fit = fit_in(job, p, sn, node, cpus, n);
	resv_job = NULL;
	if (fit != SCHED_PICKED && fit_in(job, p, sn, node, cpus, n) == SCHED_PICKED)
		return resv_blocked_reason(job, resv_now);   /* only reserved nodes would do */
	if (fit != SCHED_PICKED) {
		for (int i = 0; i < job->nreq_idx; i++)
			if (!sn[job->req_idx[i]].usable)
				return REASON_REQ_NODE_NOT_AVAIL;   /* a -w node is down or drained */
		return REASON_RESOURCES;
	}
	return REASON_NONE;
}

static void sched_pass(uv_timer_t *t)
{
	struct pending pend = { 0 };
	struct sched_node *sn;
	int *node = xmalloc((ctld.nnodes + 1) * sizeof(int)), *cpus = xmalloc((ctld.nnodes + 1) * sizeof(int));
	bool *blocked = xmalloc((ctld.nparts + 1) * sizeof(bool));
	enum job_reason *why = xmalloc((ctld.nparts + 1) * sizeof(*why));   /* per partition of a job */
	int started = 0;
	time_t now = time(NULL), wake = 0;

	ctld.sched_queued = false;
	pass_number++;
	job_foreach(collect, &pend);
	if (pend.n)
		qsort(pend.jobs, pend.n, sizeof(*pend.jobs), by_priority);
	sn = snapshot_nodes();
	for (size_t i = 0; i < pend.n; i++) {
		struct job *job = pend.jobs[i];
		int n = 0;

		if (deadline_passed(job, now)) {
			job_set_state(job, JOB_DEADLINE, REASON_DEADLINE);
			continue;
		}
		if (job->hold_admin || job->hold_user)
			continue;   /* its reason was set when it was held */
		if (!job->part) {
			job->reason = REASON_PART_DOWN;   /* its partition left the config */
			continue;
		}
		bool per_task;
		if (!dependency_met(job, now, &per_task))
			continue;
		if (job->eligible_time > now) {
			job->reason = REASON_BEGIN_TIME;   /* --begin, or a requeued job for a moment */
			if (!wake || job->eligible_time < wake)
				wake = job->eligible_time;
			continue;
		}
		if (!resv_job_may_start(job, now)) {
			job->reason = REASON_RESERVATION;   /* its reservation has not started */
			continue;
		}
		/* An array's meta record starts its tasks one by one, lowest first
		 * (with aftercorr: the first whose corresponding task is done),
		 * while they fit and its throttle allows; a plain job once.  With
		 * -p a,b each start goes to the first partition that can take it. */
		for (;;) {
			if (array_is_meta(job) && job->array_throttle &&
			    *running_tasks(job) >= job->array_throttle) {
				job->reason = REASON_ARRAY_TASK_LIMIT;
				break;
			}
			/* AccountingStorageEnforce=limits: a job over its association's
			 * or QOS's limits waits, and holds up no one behind it */
			enum job_reason limit = limits_check_start(job);
			if (limit != REASON_NONE) {
				job->reason = limit;
				break;
			}
			int nparts;
			struct part *const *parts = job_parts(job, &nparts);
			struct part *chosen = NULL;
			int k;
			for (k = 0; k < nparts && !chosen; k++) {
				why[k] = try_partition(job, parts[k], sn, blocked, node, cpus, &n);
				if (why[k] == REASON_NONE)
					chosen = parts[k];
				else if (k == 0 || why[k] == REASON_RESOURCES || why[k] == REASON_PRIORITY ||
					 why[k] == REASON_REQ_NODE_NOT_AVAIL)
					job->reason = why[k];   /* the first one's, unless a later one only waits */
			}
			if (!chosen) {
				/* It waits for resources: lower-priority jobs of those
				 * partitions wait behind it (strict priority).  A job that
				 * started in another of its partitions blocks nothing. */
				for (k = 0; k < nparts; k++)   /* (a reservation's job: its own nodes only) */
					if (why[k] == REASON_RESOURCES && !job->reservation)
						blocked[parts[k] - ctld.parts] = true;
				break;
			}
			bool meta = array_is_meta(job);
			uint32_t task = meta ? next_task(job, per_task) : 0;
			if (task == BITMAP_NONE)
				break;
			struct job *run = meta ? array_split(job, task) : job;
			if (run != job || per_task) {
				depend_destroy(run->depend);   /* met, for this task */
				run->depend = NULL;
			}
			run->part = chosen;
			job_start(run, node, cpus, n);
			for (k = 0; k < n; k++) {   /* keep the snapshot current */
				sn[node[k]].alloc_cpus += cpus[k];
				sn[node[k]].alloc_mem += job_node_mem(run, k);
				sn[node[k]].njobs++;
			}
			started++;
			if (!meta || run == job)
				break;
			(*running_tasks(job))++;
		}
	}
	if (started)
		log_debug("scheduler: started %d of %zu pending jobs", started, pend.n);
	/* A --begin due before the next tick (every 10 s) gets a pass of its own. */
	if (wake && wake - now < 10)
		sched_request_later((unsigned)(wake - now) * 1000 + 100);
	free(sn);
	free(node);
	free(cpus);
	free(blocked);
	free(why);
	free(pend.jobs);
}

void sched_request(void)
{
	if (ctld.sched_queued)
		return;
	ctld.sched_queued = true;
	uv_timer_start(&ctld.sched_timer, sched_pass, 0, 0);
}

static uv_timer_t later_timer;

static void later_cb(uv_timer_t *t)
{
	sched_request();
}

/* Keeps the soonest of the passes asked for. */
void sched_request_later(unsigned ms)
{
	if (uv_is_active((uv_handle_t *)&later_timer) && uv_timer_get_due_in(&later_timer) <= ms)
		return;
	uv_timer_start(&later_timer, later_cb, ms, 0);
}

void sched_setup(void)
{
	uv_timer_init(ctld.loop, &ctld.sched_timer);
	uv_timer_init(ctld.loop, &later_timer);
	uv_unref((uv_handle_t *)&later_timer);
}
