/* The controller's scheduler: which pending jobs may go (holds,
 * dependencies, --begin, deadlines, array throttles, limits), a snapshot of
 * nodes, running jobs and those jobs for the pure pass (src/sched/pass.h),
 * and the pass's decisions applied back (starts, reasons, start estimates).
 * The main pass runs here, in the loop thread, soon after every event that
 * may let a job start (default_queue_depth jobs) and every sched_interval
 * (the whole queue); the backfill pass runs the same snapshot in a worker
 * (backfill.c).  What the pass decides is pass.c's business, not this file's. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/part_limits.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/resv.h"
#include "ctld/sched_snap.h"
#include "sched/feature.h"
#include "sched/select.h"

struct sched_conf sched_conf = {
	.backfill = true, .default_queue_depth = 100, .sched_interval = 60, .bf_window = 1440,
	.bf_resolution = 60, .bf_interval = 30, .bf_max_job_test = 500,
};
unsigned sched_generation;     /* bumped at a reconfigure: partition indexes change */

/* At most this many entries of one array's meta record in one pass: each
 * is one more task that may start (or be planned) in it. */
#define ARRAY_ENTRIES_MAX 100

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- what the pass is given ------------------------------------------ */

static bool node_usable(const struct node *n)
{
	return n->registered && !n->not_responding && !n->drain &&
	       (n->state == NODE_IDLE || n->state == NODE_MIXED || n->state == NODE_ALLOCATED);
}

static struct sched_node *snapshot_nodes(void)
{
	struct sched_node *sn = xmalloc((ctld.nnodes ? ctld.nnodes : 1) * sizeof(*sn));
	for (int i = 0; i < ctld.nnodes; i++) {
		const struct node *n = &ctld.nodes[i];
		sn[i] = (struct sched_node){
			.cpus = n->cpus, .alloc_cpus = n->alloc_cpus, .memory = n->real_memory,
			.alloc_mem = n->alloc_mem, .njobs = n->njobs, .usable = node_usable(n),
		};
	}
	part_limits_nodes(sn);   /* partition limits: whose jobs hold them (ExclusiveUser) */
	return sn;
}

static bool part_up(const struct part *p)
{
	return !p->removed && (!p->conf->state || !strcasecmp(p->conf->state, "UP"));
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

/* The partition's nodes that satisfy the constraint expr (NULL: all), into cand. */
static int candidates(const char *expr, const struct part *p, int *cand)
{
	int n = 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct node *nd = &ctld.nodes[p->node_idx[i]];
		if (!expr || feature_match(expr, nd->conf->features) == 1)
			cand[n++] = p->node_idx[i];
	}
	return n;
}

/* Could the job run in p on the nodes as they are (sched_job_runnable)? */
static enum sched_fit fit_in(const struct job *job, const struct part *p,
			     const struct sched_node *sn, int *node, int *cpus, int *n)
{
	int *cand = xmalloc((p->nnodes + 1) * sizeof(int));
	struct sched_req req = job_req(job);
	part_limits_req(job, p, &req);   /* partition limits */
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

/* ---- eligibility (the loop thread's business, before the pass) -------- */

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

/* How far into an array's pending tasks one start looks for one whose
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

static void count_running(struct job *job, void *arg)
{
	if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING || job->state == JOB_SUSPENDED)
		(*(uint32_t *)arg)++;
}

/* The array's tasks that hold nodes now (its %N throttle counts them). */
static uint32_t array_running(const struct job *meta)
{
	uint32_t n = 0;
	array_foreach(meta->array_job_id, count_running, &n);
	return n;
}

/* May the job go into this pass?  If not, its reason says why.  per_task:
 * an array whose aftercorr is decided task by task. */
static bool eligible(struct job *job, time_t now, bool *per_task, time_t *wake)
{
	if (deadline_passed(job, now)) {
		job_set_state(job, JOB_DEADLINE, REASON_DEADLINE);
		return false;
	}
	if (job->hold_admin || job->hold_user)
		return false;   /* its reason was set when it was held */
	if (!job->part) {
		job->reason = REASON_PART_DOWN;   /* its partition left the config */
		return false;
	}
	if (!dependency_met(job, now, per_task))
		return false;
	if (job->eligible_time > now) {
		job->reason = REASON_BEGIN_TIME;   /* --begin, or a requeued job for a moment */
		if (!*wake || job->eligible_time < *wake)
			*wake = job->eligible_time;
		return false;
	}
	if (array_is_meta(job) && job->array_throttle && array_running(job) >= job->array_throttle) {
		job->reason = REASON_ARRAY_TASK_LIMIT;
		return false;
	}
	/* AccountingStorageEnforce=limits: a job over its association's or
	 * QOS's limits waits, and holds up no one behind it */
	enum job_reason limit = limits_check_start(job);
	if (limit != REASON_NONE) {
		job->reason = limit;
		return false;
	}
	return true;
}

/* ---- the snapshot ----------------------------------------------------- */

struct snap_cand {
	struct snap_cand *next;
	int part;
	char *expr;
	int *cand;
	int n;
};

static void *own(struct sched_snap *s, void *p)
{
	if (s->nown == s->capown) {
		s->capown = s->capown ? 2 * s->capown : 256;
		s->own = xrealloc(s->own, s->capown * sizeof(*s->own));
	}
	s->own[s->nown++] = p;
	return p;
}

static void *own_dup(struct sched_snap *s, const void *p, size_t size)
{
	if (!size)
		return NULL;
	void *c = xmalloc(size);
	memcpy(c, p, size);
	return own(s, c);
}

/* The nodes of partition pi that satisfy expr, shared by every job asking the same. */
static const struct snap_cand *cand_get(struct sched_snap *s, int pi, const char *expr)
{
	for (struct snap_cand *c = s->cands; c; c = c->next)
		if (c->part == pi && (c->expr == expr || (c->expr && expr && !strcmp(c->expr, expr))))
			return c;
	const struct part *p = &ctld.parts[pi];
	struct snap_cand *c = xmalloc(sizeof(*c));
	c->part = pi;
	c->expr = expr ? xstrdup(expr) : NULL;
	c->cand = xmalloc((p->nnodes + 1) * sizeof(int));
	c->n = candidates(expr, p, c->cand);
	c->next = s->cands;
	s->cands = c;
	return c;
}

static enum job_reason part_skip_reason(const struct job *job, const struct part *p)
{
	if (!part_up(p))
		return p->conf->state && !strcasecmp(p->conf->state, "INACTIVE") ? REASON_PART_INACTIVE
										 : REASON_PART_DOWN;
	return part_limits_check(job, p);   /* MaxTime, MaxNodes, Allow*, Deny* */
}

/* The job's places: one per (partition x matching-OR feature set), in the
 * user's partition order; partitions it may not use now are left out, the
 * first one's reason in *skip. */
static int job_alts(struct sched_snap *s, const struct job *job, struct sched_alt **out,
		    enum job_reason *skip)
{
	int nparts, nalt = 0, cap = 0;
	struct part *const *parts = job_parts(job, &nparts);
	struct sched_alt *alt = NULL;
	char **fors = NULL;
	int nfors = feature_matching_or(job->features, &fors);

	*skip = REASON_NONE;
	for (int k = 0; k < nparts; k++) {
		enum job_reason r = part_skip_reason(job, parts[k]);
		if (r != REASON_NONE) {
			if (*skip == REASON_NONE)
				*skip = r;
			continue;
		}
		int pi = (int)(parts[k] - ctld.parts);
		if (nparts == 1 && !nfors && !job->features) {
			/* the common case: one partition, one node set, shared */
			if (!s->part_alt)
				s->part_alt = xmalloc((ctld.nparts + 1) * sizeof(*s->part_alt));
			if (!s->part_alt[pi]) {
				const struct snap_cand *c = cand_get(s, pi, job->features);
				s->part_alt[pi] = own(s, xmalloc(sizeof(struct sched_alt)));
				*s->part_alt[pi] = (struct sched_alt){ .part = pi, .cand = c->cand,
								      .ncand = c->n };
			}
			free(fors);
			*out = s->part_alt[pi];
			return 1;
		}
		for (int f = 0; f < (nfors ? nfors : 1); f++) {
			const struct snap_cand *c = cand_get(s, pi, nfors ? fors[f] : job->features);
			if (nalt == cap) {
				cap = cap ? 2 * cap : 2;
				alt = xrealloc(alt, cap * sizeof(*alt));
			}
			alt[nalt++] = (struct sched_alt){ .part = pi, .cand = c->cand, .ncand = c->n };
		}
	}
	for (int f = 0; f < nfors; f++)
		free(fors[f]);
	free(fors);
	*out = alt ? own(s, alt) : NULL;
	return nalt;
}

static void add_entry(struct sched_snap *s, const struct job *job, const struct sched_alt *alt,
		      int nalt, bool per_task, enum job_reason skip, time_t now)
{
	if (s->njobs == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->jobs = xrealloc(s->jobs, s->cap * sizeof(*s->jobs));
		s->per_task = xrealloc(s->per_task, s->cap * sizeof(*s->per_task));
		s->skip = xrealloc(s->skip, s->cap * sizeof(*s->skip));
		s->who = xrealloc(s->who, s->cap * sizeof(*s->who));
	}
	s->who[s->njobs] = (struct job *)job;
	struct sched_req req = job_req(job);
	/* What its partition adds (whole nodes, ExclusiveUser): one request
	 * for all its alternatives, so the first partition's. */
	part_limits_req(job, &ctld.parts[alt[0].part], &req);
	req.required = own_dup(s, job->req_idx, job->nreq_idx * sizeof(int));
	req.excluded = own_dup(s, job->exc_idx, job->nexc_idx * sizeof(int));
	s->jobs[s->njobs] = (struct sched_job){
		.id = job->id, .user = job->uid, .req = req, .alt = alt, .nalt = nalt,
		.time_limit = job->time_limit < 0 ? SCHED_TIME_INFINITE : job->time_limit,
		.time_min = job->time_min > 0 ? job->time_min : 0,
		.resv = resv_job_index(job, now),
	};
	s->per_task[s->njobs] = per_task;
	s->skip[s->njobs] = (int)skip;
	s->njobs++;
}

struct ranked {
	struct job *job;
	uint32_t priority, id;       /* the job's, here for a sort without pointer chasing */
	int tier;                    /* the highest PriorityTier of its partitions */
};

struct collect {
	struct ranked *r;
	size_t n, cap;
	struct sched_snap *s;
	time_t now;
};

static int job_tier(const struct job *job)
{
	int nparts, tier = 0;
	struct part *const *parts = job_parts(job, &nparts);
	for (int k = 0; k < nparts; k++)
		if (k == 0 || parts[k]->conf->priority_tier > tier)
			tier = parts[k]->conf->priority_tier;
	return tier;
}

static void collect(struct job *job, void *arg)
{
	struct collect *c = arg;
	struct sched_snap *s = c->s;

	if ((job->state == JOB_RUNNING || job->state == JOB_COMPLETING ||
	     job->state == JOB_SUSPENDED) && job->nalloc) {
		struct sched_run *r;
		if (s->nrun % 256 == 0)
			s->run = xrealloc(s->run, (s->nrun + 256) * sizeof(*s->run));
		r = &s->run[s->nrun++];
		uint64_t *mem = own(s, xmalloc(job->nalloc * sizeof(uint64_t)));
		for (int i = 0; i < job->nalloc; i++)
			mem[i] = job_node_mem(job, i);
		time_t end = job->time_limit < 0 ? 0 : job->start_time + job->time_limit;
		time_t stop = resv_job_stop(job);   /* its reservation ends it then */
		if (stop && (!end || stop < end))
			end = stop;
		if (end && end <= c->now)
			end = c->now + 1;   /* past its limit, being ended: any moment */
		int *cpus = own_dup(s, job->alloc_cpus, job->nalloc * sizeof(int));
		if (job->cpus_lent)   /* suspended, its CPUs counted free now (node_lend): none to give back */
			memset(cpus, 0, job->nalloc * sizeof(int));
		*r = (struct sched_run){
			.node = own_dup(s, job->alloc_node, job->nalloc * sizeof(int)),
			.cpus = cpus,
			.mem = mem, .n = job->nalloc, .end = end,
		};
	}
	if (job->state != JOB_PENDING || !job->durable)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->r = xrealloc(c->r, c->cap * sizeof(*c->r));
	}
	c->r[c->n++] = (struct ranked){ job, job->priority, job->id, job_tier(job) };
}

/* PriorityTier (highest of the job's partitions) first, then priority,
 * then the older job. */
static inline int rank_cmp(const struct ranked *x, const struct ranked *y)
{
	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_rank(const void *a, const void *b)
{
	return rank_cmp(a, b);
}

/* The jobs in rank order, one at a time: a heap, so that a pass over the
 * first default_queue_depth of 100,000 jobs does not sort them all. */
struct order {
	struct ranked *r;
	size_t n;
	bool sorted;                 /* the whole queue: qsort, then in turn */
	size_t next;
};

static void sift_down(struct ranked *r, size_t n, size_t i)
{
	for (;;) {
		size_t best = i, l = 2 * i + 1, rt = l + 1;
		if (l < n && rank_cmp(&r[l], &r[best]) < 0)
			best = l;
		if (rt < n && rank_cmp(&r[rt], &r[best]) < 0)
			best = rt;
		if (best == i)
			return;
		struct ranked t = r[i];
		r[i] = r[best];
		r[best] = t;
		i = best;
	}
}

static void order_init(struct order *o, struct ranked *r, size_t n, bool whole)
{
	*o = (struct order){ .r = r, .n = n, .sorted = whole };
	if (whole) {
		if (n)
			qsort(r, n, sizeof(*r), by_rank);
		return;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(r, n, i);
}

static const struct ranked *order_next(struct order *o)
{
	if (o->sorted)
		return o->next < o->n ? &o->r[o->next++] : NULL;
	if (!o->n)
		return NULL;
	struct ranked t = o->r[0];   /* the top goes to the end, out of the heap */
	o->r[0] = o->r[--o->n];
	o->r[o->n] = t;
	sift_down(o->r, o->n, 0);
	return &o->r[o->n];
}

/* An array's meta record goes in as up to k identical entries: each may
 * start (or be planned as) one more task. */
static int array_entries(const struct job *meta)
{
	uint32_t k = bitmap_count(meta->array_pending);
	if (meta->array_throttle) {
		uint32_t running = array_running(meta);
		uint32_t room = running < meta->array_throttle ? meta->array_throttle - running : 0;
		if (room < k)
			k = room;
	}
	return k < ARRAY_ENTRIES_MAX ? (int)k : ARRAY_ENTRIES_MAX;
}

static void add_job(struct sched_snap *s, struct job *job, bool per_task, time_t now, int depth)
{
	struct sched_alt *alt;
	enum job_reason skip;
	int nalt = job_alts(s, job, &alt, &skip);

	if (!nalt) {
		job->reason = skip != REASON_NONE ? skip : REASON_PART_DOWN;
		return;
	}
	int k = array_is_meta(job) ? array_entries(job) : 1;
	if (depth && k > depth - s->njobs)
		k = depth - s->njobs;
	for (int i = 0; i < k; i++)
		add_entry(s, job, alt, nalt, per_task, skip, now);
}

struct sched_snap *snap_create(bool backfill, int depth, time_t now, const struct job *extra)
{
	struct sched_snap *s = xmalloc(sizeof(*s));
	struct collect c = { .s = s, .now = now };
	const struct sched_resv *resv;

	s->extra = -1;
	s->gen = sched_generation;
	s->params = (struct sched_params){
		.now = now, .backfill = backfill, .window = sched_conf.bf_window * 60,
		.resolution = sched_conf.bf_resolution,
		.max_job_test = backfill ? sched_conf.bf_max_job_test : depth,
		.max_job_user = backfill ? sched_conf.bf_max_job_user : 0,
		.max_reservations = 0, .nparts = ctld.nparts,
	};
	s->nodes = snapshot_nodes();
	s->nnodes = ctld.nnodes;
	prio_update(now);
	job_foreach(collect, &c);
	struct order o;
	order_init(&o, c.r, c.n, !depth);
	/* room for them all at once (an array's entries may ask for more) */
	s->cap = (depth && (size_t)depth < c.n ? (size_t)depth : c.n) + 2;
	s->jobs = xmalloc(s->cap * sizeof(*s->jobs));
	s->per_task = xmalloc(s->cap * sizeof(*s->per_task));
	s->skip = xmalloc(s->cap * sizeof(*s->skip));
	s->who = xmalloc(s->cap * sizeof(*s->who));
	struct ranked x = { (struct job *)extra, extra ? extra->priority : 0, extra ? extra->id : 0,
			    extra ? job_tier(extra) : 0 };
	const struct ranked *next;
	while ((!depth || s->njobs < depth) && (next = order_next(&o))) {
		struct job *job = next->job;
		bool per_task = false;
		if (extra && s->extra < 0 && rank_cmp(&x, next) < 0) {
			s->extra = s->njobs;
			add_job(s, x.job, false, now, 0);
		}
		if (job->state == JOB_PENDING && eligible(job, now, &per_task, &s->wake))
			add_job(s, job, per_task, now, depth);
	}
	if (extra && s->extra < 0) {
		s->extra = s->njobs;
		add_job(s, x.job, false, now, 0);
	}
	if (extra && (s->extra >= s->njobs || s->jobs[s->extra].id != extra->id))
		s->extra = -1;   /* no partition takes it now */
	free(c.r);
	s->nresv = resv_sched_list(now, &resv);
	if (s->nresv > 0) {
		s->resv = xmalloc(s->nresv * sizeof(*s->resv));
		for (int i = 0; i < s->nresv; i++) {
			s->resv[i] = resv[i];
			s->resv[i].node = own_dup(s, resv[i].node, resv[i].nnodes * sizeof(int));
		}
	} else {
		s->nresv = 0;
	}
	return s;
}

void snap_run(struct sched_snap *s)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->out = xmalloc((s->njobs + 1) * sizeof(*s->out));
	s->started = sched_pass(&s->params, s->nodes, s->nnodes, s->run, s->nrun, s->resv, s->nresv,
				s->jobs, s->njobs, s->out);
	s->ms = ms_since(&t0);
}

void snap_destroy(struct sched_snap *s)
{
	if (!s)
		return;
	if (s->out)
		sched_decisions_free(s->out, s->njobs);
	free(s->out);
	for (int i = 0; i < s->nown; i++)
		free(s->own[i]);
	free(s->own);
	for (struct snap_cand *c = s->cands, *next; c; c = next) {
		next = c->next;
		free(c->expr);
		free(c->cand);
		free(c);
	}
	free(s->nodes);
	free(s->run);
	free(s->resv);
	free(s->jobs);
	free(s->per_task);
	free(s->skip);
	free(s->who);
	free(s->part_alt);
	free(s);
}

/* ---- applying the decisions ------------------------------------------- */

static void launch_after_commit(void *arg, bool ok)
{
	uint32_t id = (uintptr_t)arg;
	struct job *job = job_find(id);
	if (job && job->state == JOB_RUNNING)
		launch_job(job);
}

static void set_estimate(struct job *job, time_t when, const int *node, int n)
{
	job->start_estimate = when;
	free(job->sched_nodes);
	job->sched_nodes = n ? node_list_string(node, n) : NULL;
}

static void job_start(struct job *job, const int *node, const int *cpus, int n)
{
	job->nalloc = n;
	job->alloc_node = xmalloc(n * sizeof(int));
	job->alloc_cpus = xmalloc(n * sizeof(int));
	memcpy(job->alloc_node, node, n * sizeof(int));
	memcpy(job->alloc_cpus, cpus, n * sizeof(int));
	job->alloc_mem = job->mem_mb;   /* per node; with --mem-per-cpu see job_node_mem() */
	free(job->nodes_str);
	job->nodes_str = node_list_string(node, n);
	set_estimate(job, 0, NULL, 0);
	job->start_time = time(NULL);
	job_expand_node_patterns(job);
	node_alloc(job);
	job_set_state(job, JOB_RUNNING, REASON_NONE);
	/* The node hears of the job only once its start is durable: launched
	 * before, a restart would find it pending and run it a second time. */
	store_after_durable(launch_after_commit, (void *)(uintptr_t)job->id);
}

/* A worker's decision on the state of now: are the nodes still free for
 * it?  live: the nodes now (snapshot_nodes, with the users ExclusiveUser
 * asks about), kept current as the starts are made. */
static bool nodes_still_free(const struct job *job, const struct sched_decision *d,
			     const struct sched_node *live, const struct sched_req *req)
{
	for (int k = 0; k < d->n; k++) {
		const struct node *nd = &ctld.nodes[d->node[k]];
		const struct sched_node *sn = &live[d->node[k]];
		uint64_t mem = job->mem_per_cpu ? job->mem_per_cpu * d->cpus[k] : job->mem_mb;
		if (!node_usable(nd) || nd->exclusive_job || (job->exclusive && nd->njobs) ||
		    nd->cpus - nd->alloc_cpus < d->cpus[k] ||
		    (mem && nd->alloc_mem + mem > nd->real_memory))
			return false;
		if (sn->njobs && ((sn->user_owned || req->exclusive_user) && sn->user != req->user))
			return false;   /* ExclusiveUser: another user's node now */
	}
	return true;
}

/* The request the pass saw is still the job's (scontrol update may have
 * changed it while a worker ran). */
static bool same_request(const struct job *job, const struct sched_job *sj)
{
	struct sched_req r = job_req(job);
	return r.nodes == sj->req.nodes && r.ntasks == sj->req.ntasks &&
	       r.cpus_per_task == sj->req.cpus_per_task && r.mem_per_node == sj->req.mem_per_node &&
	       r.mem_per_cpu == sj->req.mem_per_cpu && r.exclusive == sj->req.exclusive &&
	       r.nrequired == sj->req.nrequired && r.nexcluded == sj->req.nexcluded &&
	       (job->time_limit < 0 ? SCHED_TIME_INFINITE : job->time_limit) == sj->time_limit;
}

static bool required_node_down(const struct job *job)
{
	for (int i = 0; i < job->nreq_idx; i++)
		if (!node_usable(&ctld.nodes[job->req_idx[i]]))
			return true;   /* a -w node is down or drained */
	return false;
}

static enum job_reason wait_reason(const struct job *job, enum sched_why why, enum job_reason skip)
{
	switch (why) {
	case SCHED_WHY_PRIORITY:
		return REASON_PRIORITY;
	case SCHED_WHY_RESV_NOT_ACTIVE:
		return REASON_RESERVATION;
	case SCHED_WHY_RESERVED:   /* Reserved for maintenance, or May be reserved for other job */
		return resv_why_reason(why, job, time(NULL));
	case SCHED_WHY_NEVER:
		if (skip != REASON_NONE)
			return skip;   /* the first partition's reason: the others cannot take it */
		/* fall through */
	default:
		return required_node_down(job) ? REASON_REQ_NODE_NOT_AVAIL : REASON_RESOURCES;
	}
}

/* Start entry i's job (or the next task of its array). */
static bool start_entry(struct sched_snap *s, int i, struct job *job, struct sched_node *live)
{
	const struct sched_decision *d = &s->out[i];
	const struct sched_job *sj = &s->jobs[i];
	struct sched_req req = job_req(job);

	if (job->hold_admin || job->hold_user || !job->durable)
		return false;
	if (live && (s->gen != sched_generation || !same_request(job, sj)))
		return false;
	part_limits_req(job, &ctld.parts[sj->alt[d->alt].part], &req);
	if (live && !nodes_still_free(job, d, live, &req))
		return false;
	bool meta = array_is_meta(job);
	if (meta && job->array_throttle && array_running(job) >= job->array_throttle) {
		job->reason = REASON_ARRAY_TASK_LIMIT;
		return false;
	}
	enum job_reason limit = limits_check_start(job);   /* the starts before it count */
	if (limit != REASON_NONE) {
		job->reason = limit;
		return false;
	}
	uint32_t task = meta ? next_task(job, s->per_task[i]) : 0;
	if (task == BITMAP_NONE)
		return false;
	struct job *run = meta ? array_split(job, task) : job;
	if (run != job || s->per_task[i]) {
		depend_destroy(run->depend);   /* met, for this task */
		run->depend = NULL;
	}
	run->part = &ctld.parts[sj->alt[d->alt].part];
	if (d->time_limit > 0 && d->time_limit != run->time_limit)
		run->time_limit = d->time_limit;   /* --time-min: shrunk to fit */
	job_start(run, d->node, d->cpus, d->n);
	for (int k = 0; live && k < d->n; k++)
		sched_node_take(&live[d->node[k]], &req, d->cpus[k], job_node_mem(run, k));
	return true;
}

/* Slurm's reasons: the highest job of a partition that waits for nodes
 * says Resources; those behind it there say Priority. */
static enum job_reason behind(struct sched_snap *s, bool *waits, const struct sched_job *sj,
			      enum job_reason r)
{
	if (r != REASON_RESOURCES)
		return r;
	bool higher = false;
	for (int a = 0; a < sj->nalt; a++) {
		int p = sj->alt[a].part >= 0 && sj->alt[a].part < s->params.nparts ? sj->alt[a].part
										     : s->params.nparts;
		higher |= waits[p];
		waits[p] = true;
	}
	return higher ? REASON_PRIORITY : r;
}

int snap_apply(struct sched_snap *s, bool recheck)
{
	int started = 0;
	bool retry = false;
	uint32_t preempted = 0;
	bool *waits = xmalloc((s->params.nparts + 1) * sizeof(bool));
	struct sched_node *live = NULL;   /* made at the first start to recheck */

	for (int i = 0; i < s->njobs; i++) {
		const struct sched_decision *d = &s->out[i];
		const struct sched_job *sj = &s->jobs[i];
		bool first = i == 0 || s->jobs[i - 1].id != sj->id;   /* an array's first entry */
		struct job *job;

		if (i == s->extra || d->what == SCHED_D_NONE)
			continue;
		/* a worker's snapshot may have outlived the job: by its ID */
		job = recheck ? job_find(sj->id) : s->who[i];
		if (!job || job->state != JOB_PENDING)
			continue;
		switch (d->what) {
		case SCHED_D_START:
			if (recheck && !live)
				live = snapshot_nodes();
			if (start_entry(s, i, job, live))
				started++;
			else
				retry = true;
			break;
		case SCHED_D_PLANNED:
			if (first || s->out[i - 1].what == SCHED_D_START)
				set_estimate(job, d->start, d->node, d->n);
			if (d->why != SCHED_WHY_NONE)
				job->reason = behind(s, waits, sj, wait_reason(job, d->why,
									 (enum job_reason)s->skip[i]));
			break;
		case SCHED_D_WAIT:
			job->reason = behind(s, waits, sj, wait_reason(job, d->why,
								 (enum job_reason)s->skip[i]));
			if (s->params.backfill && first)
				set_estimate(job, 0, NULL, 0);
			/* Waiting for resources in the main pass: room may be made
			 * by preempting lower jobs (PreemptType). */
			if (!s->params.backfill && d->why == SCHED_WHY_RESOURCES && preempted != sj->id) {
				preempted = sj->id;
				for (int a = 0; a < sj->nalt; a++)
					if ((a == 0 || sj->alt[a].part != sj->alt[a - 1].part) &&
					    preempt_for(job, &ctld.parts[sj->alt[a].part]))
						break;
			}
			break;
		default:
			break;
		}
	}
	free(waits);
	free(live);
	if (retry)
		sched_request_later(1000);   /* what was skipped gets another pass */
	return started;
}

/* ---- the main pass ---------------------------------------------------- */

static struct sched_stats stats;

const struct sched_stats *sched_stats(void)
{
	return &stats;
}

void sched_main_pass(bool whole)
{
	struct timespec t0, t1;
	time_t now = time(NULL);
	int depth = whole ? 0 : sched_conf.default_queue_depth;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ctld.sched_queued = false;
	struct sched_snap *s = snap_create(false, depth, now, NULL);
	stats.main_build_last_ms = ms_since(&t0);
	snap_run(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int started = snap_apply(s, false);
	stats.main_apply_last_ms = ms_since(&t1);
	double ms = ms_since(&t0);
	stats.main_passes++;
	stats.main_last_ms = ms;
	stats.main_pass_last_ms = s->ms;
	if (ms > stats.main_max_ms)
		stats.main_max_ms = ms;
	log_debug("sched: main pass (%s): %d jobs, %d started, pass %.3f ms, total %.3f ms",
		  whole ? "whole queue" : "depth", s->njobs, started, s->ms, ms);
	/* A --begin due before the next tick (every 10 s) gets a pass of its own. */
	if (s->wake && s->wake - now < 10)
		sched_request_later((unsigned)(s->wake - now) * 1000 + 100);
	snap_destroy(s);
	backfill_poke();
}

static void event_pass(uv_timer_t *t)
{
	sched_main_pass(false);
}

static uv_timer_t whole_timer, later_timer;
static bool timers_ready;      /* sched_setup has run (reconf_settings runs before it) */

static void whole_pass(uv_timer_t *t)
{
	sched_main_pass(true);
}

void sched_request(void)
{
	if (ctld.sched_queued)
		return;
	ctld.sched_queued = true;
	uv_timer_start(&ctld.sched_timer, event_pass, 0, 0);
}

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

/* ---- sbatch --test-only ----------------------------------------------- */

struct ending {
	struct job **jobs;
	size_t n, cap;
};

static void collect_running(struct job *job, void *arg)
{
	struct ending *p = arg;
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

/* Where the pass makes no plan (a pass without backfill): free the running
 * jobs in the order their time limits end them until the job fits, pending
 * jobs left out. */
static int estimate_by_ends(const struct job *job, time_t now, time_t *start, char **nodes,
			    int *cpus_out, const struct part **part)
{
	struct sched_node *sn = snapshot_nodes();
	int *node = xmalloc((ctld.nnodes + 1) * sizeof(int)), *cpus = xmalloc((ctld.nnodes + 1) * sizeof(int));
	struct ending run = { 0 };
	int n = 0, nparts, rc = -1;
	struct part *const *parts = job_parts(job, &nparts);
	time_t when = now;

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
			if (part_skip_reason(job, parts[i]) != REASON_NONE ||
			    fit_in(job, parts[i], sn, node, cpus, &n) != SCHED_PICKED)
				continue;
			*nodes = node_list_string(node, n);
			*cpus_out = 0;
			for (int j = 0; j < n; j++)
				*cpus_out += cpus[j];
			*part = parts[i];
			*start = when;
			rc = 0;
		}
	}
	free(sn);
	free(node);
	free(cpus);
	free(run.jobs);
	return rc;
}

/* A backfill pass on the queue as it is (its first bf_max_job_test jobs),
 * with the job put in at its priority among them: where it would be planned is where it
 * will start, when nothing else changes (jobs end at their time limits,
 * nothing new comes).  Nothing is applied. */
int sched_test_only(const struct job *job, time_t *start, char **nodes, int *cpus_out,
		    const struct part **part, struct herd_error *err)
{
	struct job tried = *job;
	time_t now = time(NULL);
	int rc = HERD_ERR_NODE_CONFIG;

	tried.id = ctld.next_job_id;
	tried.priority = job_priority(&tried);
	/* Within bf_window first (as the backfill pass plans), else a year ahead. */
	for (int round = 0; round < 2 && rc; round++) {
		/* The jobs a backfill pass would plan (bf_max_job_test), with it
		 * among them, or after them when it ranks lower: bounded, as
		 * this runs in the loop thread. */
		struct sched_snap *s = snap_create(true, sched_conf.bf_max_job_test, now, &tried);
		s->params.max_job_test = 0;
		/* to the second: a job starts when the one before it ends, not
		 * at the next bf_resolution step */
		s->params.resolution = 1;
		if (round)
			s->params.window = 365 * 86400;
		if (s->extra < 0) {
			snap_destroy(s);
			break;
		}
		snap_run(s);
		const struct sched_decision *d = &s->out[s->extra];
		if (d->what == SCHED_D_START || d->what == SCHED_D_PLANNED) {
			*start = d->what == SCHED_D_START ? now : d->start;
			*nodes = node_list_string(d->node, d->n);
			*cpus_out = 0;
			for (int k = 0; k < d->n; k++)
				*cpus_out += d->cpus[k];
			*part = &ctld.parts[s->jobs[s->extra].alt[d->alt].part];
			rc = 0;
		} else if (d->why == SCHED_WHY_NEVER) {
			round = 2;
		} else if (d->what == SCHED_D_WAIT && estimate_by_ends(&tried, now, start, nodes,
								      cpus_out, part) == 0) {
			rc = 0;
		}
		snap_destroy(s);
	}
	if (rc)
		errprintf(err, "%s", herd_strerror(rc));
	return rc;
}

/* ---- configuration ---------------------------------------------------- */

static void forget_estimate(struct job *job, void *arg)
{
	set_estimate(job, 0, NULL, 0);
}

int sched_check(const struct conf *conf, struct herd_error *err)
{
	struct sched_conf c;
	return sched_conf_parse(conf_get(conf, "SchedulerType"), conf_get(conf, "SchedulerParameters"),
				&c, err);
}

void sched_configure(const struct conf *conf)
{
	struct herd_error err;
	struct sched_conf c;

	sched_generation++;
	if (sched_conf_parse(conf_get(conf, "SchedulerType"), conf_get(conf, "SchedulerParameters"),
			     &c, &err) < 0)
		return;   /* refused before (reconfigure) or fatal (start: sched_setup) */
	bool timers = timers_ready && (c.sched_interval != sched_conf.sched_interval ||
				    c.bf_interval != sched_conf.bf_interval ||
				    c.backfill != sched_conf.backfill);
	bool plans_end = sched_conf.backfill && !c.backfill;
	sched_conf = c;
	if (plans_end)
		job_foreach(forget_estimate, NULL);   /* sched/builtin plans nothing */
	if (timers) {
		if (sched_conf.sched_interval)
			uv_timer_start(&whole_timer, whole_pass, sched_conf.sched_interval * 1000,
				       sched_conf.sched_interval * 1000);
		else
			uv_timer_stop(&whole_timer);
		backfill_configure();
	}
}

void sched_setup(void)
{
	struct herd_error err;

	if (sched_check(ctld.conf, &err) < 0) {
		log_error("%s: %s", ctld.conf->path, err.text);
		fprintf(stderr, "herdctld: error: %s: %s\n", ctld.conf->path, err.text);
		exit(1);
	}
	sched_configure(ctld.conf);
	timers_ready = true;
	uv_timer_init(ctld.loop, &ctld.sched_timer);
	uv_timer_init(ctld.loop, &later_timer);
	uv_unref((uv_handle_t *)&later_timer);
	uv_timer_init(ctld.loop, &whole_timer);
	uv_unref((uv_handle_t *)&whole_timer);
	if (sched_conf.sched_interval)
		uv_timer_start(&whole_timer, whole_pass, sched_conf.sched_interval * 1000,
			       sched_conf.sched_interval * 1000);
	backfill_setup();
}
