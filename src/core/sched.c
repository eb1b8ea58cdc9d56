/* The controller's scheduler: the main pass, run here in the loop thread
 * soon after every event that may let a job start (default_queue_depth
 * jobs) and every sched_interval (the whole queue), and the pass's
 * decisions applied back (starts, reasons, start estimates); also the
 * submission's checks (could it ever run, sbatch --test-only) and
 * SchedulerParameters.  Which jobs may go: sched_eligible.c; the snapshot
 * the pass is given: sched_snap.c; the backfill pass, which runs the same
 * snapshot in a worker: backfill.c.  What the pass decides is pass.c's
 * business, not this directory's. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "core/part_limits.h"
#include "core/preempt.h"
#include "core/prio.h"
#include "core/resv.h"
#include "core/sched_snap.h"
#include "sched/feature.h"
#include "sched/select.h"

struct sched_conf sched_conf = {
	.backfill = true, .default_queue_depth = 100, .sched_interval = 60, .bf_window = 1440,
	.bf_resolution = 60, .bf_interval = 30, .bf_max_job_test = 500,
};
unsigned sched_generation;     /* bumped at a reconfigure: partition indexes change */

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- at submission: -C's features, could the job ever run ------------- */

/* The nodes' Features, comma-separated, which -C may name.  Built once, not
 * at every submission (100,000 nodes), and again after a reconfigure, which
 * may give nodes features or take them away. */
static struct strbuf known_features;
static bool known_features_valid;

static void batch_set_again(struct job *job, void *arg)
{
	if (job->batch_features && job->state == JOB_PENDING)
		job_batch_set(job);
}

void sched_features_changed(void)
{
	known_features_valid = false;
	job_foreach(batch_set_again, NULL);   /* --batch: which nodes have them now */
}

const char *sched_known_features(void)
{
	if (known_features_valid)
		return known_features.s;
	known_features.len = 0;
	strbuf_adds(&known_features, "");   /* "" when no node has any */
	for (int i = 0; i < core.nnodes; i++) {
		const char *f = core.nodes[i].conf->features;
		if (f && *f) {
			if (known_features.len)
				strbuf_adds(&known_features, ",");
			strbuf_adds(&known_features, f);
		}
	}
	known_features_valid = true;
	return known_features.s;
}

/* Could the job run in p on the nodes as they are (sched_job_runnable)? */
static enum sched_fit fit_in(const struct job *job, const struct part *p,
			     const struct sched_node *sn, int *node, int *cpus, int *n)
{
	int *cand = xmalloc((p->nnodes + 1) * sizeof(int));
	struct sched_req req = snap_job_req(job);
	part_limits_req(job, p, &req);   /* partition limits */
	char **alts = NULL;
	int nalts = feature_matching_or(job->features, &alts);
	enum sched_fit fit = SCHED_NEVER;

	if (!nalts) {
		int ncand = snap_candidates(job->features, p, cand);
		fit = sched_select(sn, cand, ncand, &req, node, cpus, n, NULL);
	}
	for (int i = 0; i < nalts; i++) {
		if (fit != SCHED_PICKED) {
			int ncand = snap_candidates(alts[i], p, cand);
			enum sched_fit f = sched_select(sn, cand, ncand, &req, node, cpus, n, NULL);
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
	struct sched_node *sn = snap_nodes();
	int *out = xmalloc((core.nnodes + 1) * sizeof(int)), *cpus = xmalloc((core.nnodes + 1) * sizeof(int));
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

/* ---- applying the decisions ------------------------------------------- */

static void launch_after_commit(void *arg, bool ok)
{
	uint32_t id = (uintptr_t)arg;
	struct job *job = job_find(id);
	if (job && job->state == JOB_RUNNING)
		core_launch(job);
}

static void set_estimate(struct job *job, time_t when, const int *node, int n)
{
	job->start_estimate = when;
	free(job->sched_nodes);
	job->sched_nodes = n ? node_list_string(node, n) : NULL;
}

static void job_start(struct job *job, const int *node, const int *cpus, int n,
		      const uint32_t *gres)
{
	if (job->ngres)   /* checked free before (start_entry) */
		job_gres_pick(job, node, cpus, n, gres, true);
	job->nalloc = n;
	job->alloc_node = xmalloc(n * sizeof(int));
	job->alloc_cpus = xmalloc(n * sizeof(int));
	memcpy(job->alloc_node, node, n * sizeof(int));
	memcpy(job->alloc_cpus, cpus, n * sizeof(int));
	job->batch_node = job_batch_pick(job);
	job->alloc_mem = job->mem_mb;   /* per node; with --mem-per-cpu see job_node_mem() */
	job->cpu_share = part_cpu_share(job);   /* -s, OverSubscribe=YES:N */
	free(job->nodes_str);
	job->nodes_str = node_list_string(node, n);
	set_estimate(job, 0, NULL, 0);
	job->start_time = core_now();
	job_expand_node_patterns(job);
	node_alloc(job);
	job_set_state(job, JOB_RUNNING, REASON_NONE);
	/* The node hears of the job only once its start is durable: launched
	 * before, a restart would find it pending and run it a second time. */
	store_after_durable(launch_after_commit, (void *)(uintptr_t)job->id);
}

/* A worker's decision on the state of now: are the nodes still free for
 * it?  live: the nodes now (snap_nodes, with the users ExclusiveUser
 * asks about), kept current as the starts are made. */
static bool nodes_still_free(const struct job *job, const struct sched_decision *d,
			     const struct sched_node *live, const struct sched_req *req)
{
	for (int k = 0; k < d->n; k++) {
		const struct node *nd = &core.nodes[d->node[k]];
		const struct sched_node *sn = &live[d->node[k]];
		uint64_t mem = sched_mem_on(req, d->cpus[k], d->gres ? d->gres + (size_t)k * req->ngres : NULL);
		if (!snap_node_usable(nd) || nd->exclusive_job || (job->exclusive && nd->njobs) ||
		    nd->cpus - nd->alloc_cpus < sched_charge(req, d->cpus[k]) || nd->cpus < d->cpus[k] ||
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
	struct sched_req r = snap_job_req(job);
	return r.nodes == sj->req.nodes && r.ntasks == sj->req.ntasks &&
	       r.cpus_per_task == sj->req.cpus_per_task && r.mem_per_node == sj->req.mem_per_node &&
	       r.mem_per_cpu == sj->req.mem_per_cpu && r.exclusive == sj->req.exclusive &&
	       r.nrequired == sj->req.nrequired && r.nexcluded == sj->req.nexcluded &&
	       r.max_nodes == sj->req.max_nodes && r.mincpus == sj->req.mincpus &&
	       r.tmp_mb == sj->req.tmp_mb && r.spread == sj->req.spread &&
	       r.use_min_nodes == sj->req.use_min_nodes && r.sockets == sj->req.sockets &&
	       r.cores == sj->req.cores && r.threads == sj->req.threads &&
	       r.ngres == sj->req.ngres &&
	       (!r.ngres || !memcmp(r.gres, sj->req.gres, r.ngres * sizeof(*r.gres))) &&
	       (job->time_limit < 0 ? SCHED_TIME_INFINITE : job->time_limit) == sj->time_limit;
}

static bool required_node_down(const struct job *job)
{
	for (int i = 0; i < job->nreq_idx; i++)
		if (!snap_node_usable(&core.nodes[job->req_idx[i]]))
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
	case SCHED_WHY_LICENSES:
		return REASON_LICENSES;
	case SCHED_WHY_RESERVED:   /* Reserved for maintenance, or May be reserved for other job */
		return resv_why_reason(why, job, core_now());
	case SCHED_WHY_NEVER:
		if (skip != REASON_NONE)
			return skip;   /* the first partition's reason: the others cannot take it */
		/* fall through */
	default:
		return required_node_down(job) ? REASON_REQ_NODE_NOT_AVAIL : REASON_RESOURCES;
	}
}

/* Start entry i's job (or the next task of its array).  checked: its
 * group's checks are made (start_group), it starts. */
static bool start_entry(struct sched_snap *s, int i, struct job *job, struct sched_node *live,
			bool checked)
{
	const struct sched_decision *d = &s->out[i];
	const struct sched_job *sj = &s->jobs[i];
	struct sched_req req = snap_job_req(job);

	if (job->hold_admin || job->hold_user || !job->durable)
		return false;
	if (live && (s->gen != sched_generation || !same_request(job, sj)))
		return false;
	part_limits_req(job, &core.parts[sj->alt[d->alt].part], &req);
	if (live && !checked && !nodes_still_free(job, d, live, &req))
		return false;
	bool meta = array_is_meta(job);
	if (meta && job->array_throttle && sched_array_running(job) >= job->array_throttle) {
		job->reason = REASON_ARRAY_TASK_LIMIT;
		return false;
	}
	enum job_reason limit = checked ? REASON_NONE : limits_check_start(job);   /* the starts before it count */
	if (limit != REASON_NONE) {
		job->reason = limit;
		return false;
	}
	if (!licenses_job_ready(job)) {   /* taken since the pass (or by the starts before it) */
		job->reason = REASON_LICENSES;
		return false;
	}
	/* its devices are free (a worker's pass saw an older state; a GPU
	 * taken whole may hold shares another start of the pass took) */
	if (job->ngres && (!d->gres || !job_gres_pick(job, d->node, d->cpus, d->n, d->gres, false)))
		return false;
	uint32_t task = meta ? sched_next_task(job, s->per_task[i]) : 0;
	if (task == BITMAP_NONE)
		return false;
	struct job *run = meta ? array_split(job, task) : job;
	if (run != job || s->per_task[i]) {
		depend_destroy(run->depend);   /* met, for this task */
		run->depend = NULL;
	}
	run->part = &core.parts[sj->alt[d->alt].part];
	if (d->time_limit > 0 && d->time_limit != run->time_limit)
		run->time_limit = d->time_limit;   /* --time-min: shrunk to fit */
	job_start(run, d->node, d->cpus, d->n, d->gres);
	for (int k = 0; live && k < d->n; k++)
		sched_node_take(&live[d->node[k]], &req, d->cpus[k], job_node_mem(run, k),
				d->gres ? d->gres + (size_t)k * req.ngres : NULL);
	return true;
}

/* A heterogeneous job's n entries from i, all decided START: each is
 * checked as start_entry would, its nodes counted with the group's
 * others on the same node, and only then do they all start (none
 * starts alone).  Returns the number started. */
static int start_group(struct sched_snap *s, int i, int n, bool recheck, struct sched_node *live)
{
	struct job **jobs = xmalloc(n * sizeof(*jobs));
	int *cpus = xmalloc((core.nnodes + 1) * sizeof(int));
	uint64_t *mem = xmalloc((core.nnodes + 1) * sizeof(uint64_t));
	bool ok = true;
	int started = 0;

	for (int k = 0; k < n && ok; k++) {
		const struct sched_decision *d = &s->out[i + k];
		const struct sched_job *sj = &s->jobs[i + k];
		struct job *job = jobs[k] = recheck ? job_find(sj->id) : s->who[i + k];
		ok = job && job->state == JOB_PENDING && d->what == SCHED_D_START && !job->hold_admin &&
		     !job->hold_user && job->durable &&
		     !(recheck && (s->gen != sched_generation || !same_request(job, sj)));
		if (!ok)
			break;
		enum job_reason limit = limits_check_start(job);
		if (limit != REASON_NONE) {
			job->reason = limit;
			ok = false;
			break;
		}
		struct sched_req req = snap_job_req(job);
		part_limits_req(job, &core.parts[sj->alt[d->alt].part], &req);
		if (live && !nodes_still_free(job, d, live, &req))
			ok = false;
		for (int m = 0; ok && m < d->n; m++) {   /* with the group's before it */
			const struct node *nd = &core.nodes[d->node[m]];
			uint64_t want = job->mem_per_cpu ? job->mem_per_cpu * d->cpus[m] : job->mem_mb;
			cpus[d->node[m]] += d->cpus[m];
			mem[d->node[m]] += want;
			if (nd->cpus - nd->alloc_cpus < cpus[d->node[m]] ||
			    (want && nd->alloc_mem + mem[d->node[m]] > nd->real_memory))
				ok = false;
		}
	}
	for (int k = 0; k < n && ok; k++) {
		if (start_entry(s, i + k, jobs[k], live, true))
			started++;
		else   /* checked above: not expected */
			log_error("het job %u: component %d did not start with the others", jobs[0]->id, k);
	}
	free(jobs);
	free(cpus);
	free(mem);
	return started;
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
		if (sj->together > 1 && d->what == SCHED_D_START) {   /* a het job: all or none */
			int n = sj->together < s->njobs - i ? sj->together : s->njobs - i;
			if (recheck && !live)
				live = snap_nodes();
			int got = start_group(s, i, n, recheck, live);
			started += got;
			retry |= !got;
			i += n - 1;
			continue;
		}
		switch (d->what) {
		case SCHED_D_START:
			if (recheck && !live)
				live = snap_nodes();
			if (start_entry(s, i, job, live, false))
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
					    preempt_for(job, &core.parts[sj->alt[a].part]))
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

void snap_run(struct sched_snap *s)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->started = sched_pass(&s->params, s->nodes, s->nnodes, s->run, s->nrun, s->resv, s->nresv,
				s->jobs, s->njobs, s->out);
	s->ms = ms_since(&t0);
}

static struct sched_stats stats;

const struct sched_stats *sched_stats(void)
{
	return &stats;
}

void sched_main_pass(bool whole)
{
	struct timespec t0, t1;
	time_t now = core_now();
	int depth = whole ? 0 : sched_conf.default_queue_depth;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	core.sched_queued = false;
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
	/* A --begin gets a pass of its own at its second, not at the tick's
	 * pass (every 10 s; in herd sim the tick runs only when the clock
	 * moves for another reason, doc/core.md "Time in the simulator").  A
	 * day ahead at most: that pass sets the next. */
	if (s->wake > now)
		sched_request_later((unsigned)(s->wake - now < 86400 ? s->wake - now : 86400) * 1000 + 100);
	snap_destroy(s);
	backfill_poke();
}

static void event_pass(struct core_timer *t)
{
	sched_main_pass(false);
}

static struct core_timer event_timer, whole_timer, later_timer;
static bool timers_ready;      /* sched_setup has run (reconf_settings runs before it) */

static void whole_pass(struct core_timer *t)
{
	sched_main_pass(true);
}

void sched_request(void)
{
	if (core.sched_queued)
		return;
	core.sched_queued = true;
	core_timer_start(&event_timer, 0, 0);
}

static void later_cb(struct core_timer *t)
{
	sched_request();
}

/* Keeps the soonest of the passes asked for. */
void sched_request_later(unsigned ms)
{
	if (core_timer_active(&later_timer) && core_timer_due_in(&later_timer) <= ms)
		return;
	core_timer_start(&later_timer, ms, 0);
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
	struct sched_node *sn = snap_nodes();
	int *node = xmalloc((core.nnodes + 1) * sizeof(int)), *cpus = xmalloc((core.nnodes + 1) * sizeof(int));
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
				sn[r->alloc_node[i]].alloc_cpus -= job_node_charge(r, i);
				sn[r->alloc_node[i]].alloc_mem -= job_node_mem(r, i);
				sn[r->alloc_node[i]].njobs--;
			}
			if (r->start_time + r->time_limit > when)
				when = r->start_time + r->time_limit;
		}
		for (int i = 0; i < nparts && rc; i++) {
			if (snap_part_skip_reason(job, parts[i]) != REASON_NONE ||
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
	time_t now = core_now();
	int rc = HERD_ERR_NODE_CONFIG;

	tried.id = core.next_job_id;
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
			*part = &core.parts[s->jobs[s->extra].alt[d->alt].part];
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
			core_timer_start(&whole_timer, sched_conf.sched_interval * 1000,
					 sched_conf.sched_interval * 1000);
		else
			core_timer_stop(&whole_timer);
		backfill_configure();
	}
}

void sched_setup(void)
{
	sched_configure(core.conf);   /* checked by the caller (sched_check) */
	timers_ready = true;
	if (!event_timer.impl) {   /* once: a second sched_setup (tests) keeps them */
		core_timer_init(&event_timer, event_pass);
		core_timer_init(&later_timer, later_cb);
		core_timer_init(&whole_timer, whole_pass);
	}
	if (sched_conf.sched_interval)
		core_timer_start(&whole_timer, sched_conf.sched_interval * 1000,
				 sched_conf.sched_interval * 1000);
	backfill_setup();
}
