/* `herd sim --policy slurm`: a workload replayed through the controller's
 * own code in virtual time (doc/core.md step 5).  The accounts and
 * reservations (--accounts, --reservations) go in first, through the
 * handlers of sacctmgr load and scontrol create reservation.  Each
 * arrival (a trace job, a jobs file's line) is submitted with job_submit
 * at its submit time (a trace job that follows another: at that one's end
 * + think time); the controller numbers it.  The controller's scheduler
 * passes, priority and backfill start it, on the core's timers
 * (herd/sim_env.c).  Its "launch" arms an end timer at start + min(run
 * time, time limit), whose job_ended is the batch host's report; a
 * preemption ends it early (and a requeue launches it again) or pauses it
 * (suspend, gang).  The store is the real one, in a private directory,
 * drained after each simulated instant.  What the pass decides is the
 * controller's business, not this file's; this file only feeds it and
 * records what happened, by job ID (an array task that runs is a job of
 * its own). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/bitmap.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "acct/assoc.h"
#include "ctld/ctld.h"
#include "core/preempt.h"
#include "core/prio.h"
#include "core/resv.h"
#include "herd/sim.h"
#include "herd/sim_core.h"
#include "herd/sim_env.h"

struct ctld ctld;   /* herdctld's main.c has the daemon's */

/* How long jobs may wait with nothing running and nothing to arrive,
 * after the last start, end or submission and the last --begin, before the
 * replay gives up on them: a dependency never satisfied, a hold.  (A
 * reservation longer than that on the only nodes they fit would be taken
 * for one.) */
#define SIM_STALL_MS (86400ULL * 1000)

/* One job of the controller's: a submitted job, or an array task split
 * off its array's record (a job ID of its own).  A job the core requeues
 * (preemption) runs again: start is its first start, end its last end,
 * ran the seconds of all its runs, so that waits count from the first
 * start and utilization only the time it held CPUs. */
struct sim_job {
	const struct sim_arrival *arr;
	uint32_t id;                 /* the controller's job ID */
	int64_t submit;              /* virtual s: the arrival's, or later when it was held */
	long procs;                  /* CPUs it holds while it runs */
	int64_t run;                 /* s */
	int64_t start, end;          /* virtual s, -1 until known */
	int64_t run_start, ran;      /* this run's start; s run in all */
	uint64_t left_ms;            /* while suspended: what was left of its run */
	bool holding;                /* running, its CPUs counted busy (not suspended) */
	bool killed;                 /* terminated by the core (cancel, preemption) */
	bool timed_out;
	bool finished;               /* in a final state: no more runs */
	char jobid[32];              /* as squeue shows it */
	char *name, *user, *nodes;   /* at its start (the record may be purged by the end) */
	struct core_timer end_timer;
};

/* An arrival's standing: not come yet, held (its preceding job runs, or
 * the think time after it), submitted, or refused. */
enum arr_state { ARR_FUTURE, ARR_HELD, ARR_SUBMITTED, ARR_REFUSED };

struct arr_track {
	enum arr_state state;
	long pred;                   /* the preceding job's arrival index, -1 none */
	uint64_t ready_ms;           /* held: when it may go (UINT64_MAX: its preceding job runs) */
	struct sim_job *job;         /* submitted */
};

static struct {
	const struct sim_arrival *arr;
	size_t narr;
	struct sim_job **by_id;      /* by job ID; each never moved (its timer) */
	size_t cap_ids;
	struct arr_track *track;     /* by arrival index */
	size_t *held;                /* arrival indices of the held ones, in order */
	size_t nheld;
	long busy;                   /* CPUs of the running jobs */
	long pending;                /* jobs and array tasks queued (requeued ones again) */
	long running;                /* launched and not ended (suspended ones too) */
	long suspended;
	uint64_t progress_ms;        /* virtual ms of the last submission, start or end */
	struct sim_result *res;
	size_t samples_cap;
} sc;

static void job_end_fired(struct core_timer *t);
static void release_followers(const struct sim_job *sj);
static void release_followers_of(size_t i);

static struct sim_job *sim_job_by_id(uint32_t id)
{
	return id < sc.cap_ids ? sc.by_id[id] : NULL;
}

/* A new record for job ID id of arrival a, submitted at submit (virtual s). */
static struct sim_job *sim_job_add(uint32_t id, const struct sim_arrival *a, int64_t submit)
{
	if (id >= sc.cap_ids) {
		size_t cap = sc.cap_ids ? sc.cap_ids : 1024;
		while (cap <= id)
			cap *= 2;
		sc.by_id = xrealloc(sc.by_id, cap * sizeof(*sc.by_id));
		memset(sc.by_id + sc.cap_ids, 0, (cap - sc.cap_ids) * sizeof(*sc.by_id));
		sc.cap_ids = cap;
	}
	struct sim_job *sj = xmalloc(sizeof(*sj));
	*sj = (struct sim_job){ .arr = a, .id = id, .submit = submit, .run = a->run,
				.start = -1, .end = -1 };
	core_timer_init(&sj->end_timer, job_end_fired);
	sj->end_timer.data = sj;
	sc.by_id[id] = sj;
	return sj;
}

/* The job's record; an array task started under an ID of its own gets
 * one, of its array's arrival. */
static struct sim_job *sim_job_of(const struct job *job)
{
	struct sim_job *sj = sim_job_by_id(job->id);
	if (!sj && job->array_job_id) {
		const struct sim_job *array = sim_job_by_id(job->array_job_id);
		if (array)
			sj = sim_job_add(job->id, array->arr, array->submit);
	}
	return sj;
}

static void job_end_fired(struct core_timer *t)
{
	struct sim_job *sj = t->data;
	struct job_end end = { .id = sj->id, .status = sj->killed ? 9 : 0,
			       .timed_out = sj->timed_out };

	sj->end = core_now() - SIM_CORE_EPOCH;
	if (sj->holding) {
		sc.busy -= sj->procs;
		sj->ran += sj->end - sj->run_start;
	}
	sj->holding = sj->killed = sj->timed_out = false;
	sc.running--;
	sc.progress_ms = sim_env_now_ms();
	job_ended(&end);
	const struct job *job = job_find(sj->id);
	if (job && !job_state_is_final(job->state)) {
		sc.pending++;   /* requeued: queued again (or launched again already) */
		return;
	}
	sj->finished = true;
	release_followers(sj);
}

/* What the output says of the job, as the controller has it at its start. */
static void sim_job_names(struct sim_job *sj, const struct job *job)
{
	if (job->array_job_id)
		snprintf(sj->jobid, sizeof(sj->jobid), "%u_%u", job->array_job_id, job->array_task_id);
	else
		snprintf(sj->jobid, sizeof(sj->jobid), "%u", job->id);
	free(sj->name);
	free(sj->user);
	free(sj->nodes);
	sj->name = xstrdup(job->name ? job->name : "");
	sj->user = xstrdup(job->user ? job->user : "");
	sj->nodes = xstrdup(job->nodes_str ? job->nodes_str : "");
}

/* The core started the job (again, after a requeue): its end is known
 * now.  A requeued job runs its whole run time again. */
static void sim_launch(struct job *job)
{
	struct sim_job *sj = sim_job_of(job);
	if (!sj)
		return;
	/* the batch host took it at once (herdctld's launch_done says so
	 * when the node answers): a cancel or a preemption now terminates it */
	job->launch = LAUNCH_DONE;
	int64_t run = sj->run;
	/* a requeued job runs again from the start: how its last run was
	 * ended (preempted) is not this one's */
	sj->killed = false;
	sj->timed_out = false;
	if (job->time_limit >= 0 && run > job->time_limit) {
		run = job->time_limit;   /* killed at its limit */
		sj->timed_out = true;
	}
	sj->run_start = core_now() - SIM_CORE_EPOCH;
	if (sj->start < 0)
		sj->start = sj->run_start;
	sj->procs = 0;
	for (int i = 0; i < job->nalloc; i++)
		sj->procs += job->alloc_cpus[i];
	sim_job_names(sj, job);
	sj->holding = true;
	sc.busy += sj->procs;
	sc.pending--;
	sc.running++;
	sc.progress_ms = sim_env_now_ms();
	/* Its run counts from the second the controller records as its start
	 * (start_time), as its time limit does: started by a pass in mid-second
	 * (sim_env.c), it still ends on a whole second, before that second's
	 * arrivals, as a job whose end herdctld hears early in its second. */
	uint64_t into = core_now_ms() % 1000, ms = (uint64_t)run * 1000;
	core_timer_start(&sj->end_timer, ms > into ? ms - into : 0, 0);
}

static void sim_terminate(struct job *job)
{
	struct sim_job *sj = sim_job_by_id(job->id);
	if (!sj || (!core_timer_active(&sj->end_timer) && !sj->left_ms))
		return;
	if (sj->left_ms)
		sc.suspended--;
	sj->killed = true;
	sj->left_ms = 0;
	core_timer_start(&sj->end_timer, 0, 0);
}

/* Suspension (preemption, gang's time slices, scontrol suspend): the
 * job's run stops, its CPUs count idle, and what is left of its run goes
 * on at resume. */
static void sim_suspend(struct job *job, bool suspend)
{
	struct sim_job *sj = sim_job_by_id(job->id);
	int64_t now = core_now() - SIM_CORE_EPOCH;
	if (!sj)
		return;
	if (suspend && sj->holding && core_timer_active(&sj->end_timer)) {
		sj->left_ms = core_timer_due_in(&sj->end_timer);
		if (!sj->left_ms)
			sj->left_ms = 1;   /* (0 is "not suspended") */
		core_timer_stop(&sj->end_timer);
		sj->holding = false;
		sc.busy -= sj->procs;
		sj->ran += now - sj->run_start;
		sc.suspended++;
	} else if (!suspend && sj->left_ms) {
		core_timer_start(&sj->end_timer, sj->left_ms, 0);
		sj->left_ms = 0;
		sj->holding = true;
		sc.busy += sj->procs;
		sj->run_start = now;
		sc.suspended--;
	}
}

static const struct sim_env_hooks hooks = { .launch = sim_launch, .terminate = sim_terminate,
					    .suspend = sim_suspend };

const char *sim_swf_partition(const struct swf_job *j, const struct conf *conf)
{
	long n = j->queue > 0 ? j->queue : j->partition;
	return conf && n >= 1 && (size_t)n <= conf->nparts ? conf->parts[n - 1].name : "";
}

/* The SUBMIT_JOB job object of a trace line (doc/protocol.md): -n its size,
 * -t its estimate, one CPU per task, in its queue's partition. */
static json_t *trace_spec(const struct swf_job *j, const struct conf *conf)
{
	char name[32];
	int64_t est = swf_job_estimate(j);

	snprintf(name, sizeof(name), "swf%ld", j->id);
	return json_pack("{s:s, s:s, s:[], s:[], s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:i, s:i,"
			 " s:b, s:I, s:b, s:s, s:i, s:s, s:s}",
			 "name", name, "script", "#!/bin/sh\n", "argv", "env", "cwd", "/",
			 "stdout", "/dev/null", "stderr", "", "stdin", "", "partition",
			 sim_swf_partition(j, conf),
			 "nodes", 0, "ntasks", (json_int_t)swf_job_size(j), "cpus_per_task", 1,
			 "mem_mb", 0, "exclusive", 0,
			 "time_limit", (json_int_t)(est > 0 ? (est + 59) / 60 * 60 : -2), "hold", 0,
			 "submit_host", "sim", "umask", 18, "account", "", "comment", "");
}

struct sim_arrival *sim_swf_arrivals(const struct swf_trace *trace, const struct conf *conf,
				     size_t *n, struct sim_result *res)
{
	struct sim_arrival *a = xmalloc((trace->njobs ? trace->njobs : 1) * sizeof(*a));

	*n = 0;
	for (size_t i = 0; i < trace->njobs; i++) {
		const struct swf_job *j = &trace->jobs[i];
		if (swf_job_size(j) <= 0 || swf_job_runtime(j) < 0) {
			res->skipped_bad++;
			continue;
		}
		a[(*n)++] = (struct sim_arrival){
			.id = j->id, .submit = j->submit > 0 ? j->submit : 0,
			.uid = (uid_t)(SIM_FIRST_ID + (j->user > 0 ? j->user : 0)),
			.gid = (gid_t)(SIM_FIRST_ID + (j->group > 0 ? j->group : 0)),
			.spec = trace_spec(j, conf), .run = swf_job_runtime(j),
			.estimate = swf_job_estimate(j), .procs = swf_job_size(j),
			.after = j->preceding > 0 ? j->preceding : -1,
			.think = j->think > 0 ? j->think : 0 };
	}
	return a;
}

void sim_arrivals_free(struct sim_arrival *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_decref(a[i].spec);
		free(a[i].origin);
	}
	free(a);
}

/* Submit arrival i as its user, now.  The controller numbers the jobs,
 * from 1 in submission order (as a fresh cluster does); an array's tasks
 * that start apart from their array take IDs of their own then. */
static void submit_one(size_t i)
{
	const struct sim_arrival *a = &sc.arr[i];
	struct submitter who = { .uid = a->uid, .gid = a->gid };
	struct herd_error err = { "" };
	struct job *job;

	if (job_submit(a->spec, &who, false, &job, &err) != 0) {
		sc.res->skipped_big++;   /* no partition could ever give it */
		sc.track[i].state = ARR_REFUSED;
		if (a->origin)
			fprintf(stderr, "herd sim: warning: %s: job refused: %s\n", a->origin, err.text);
		else
			log_debug("job %ld refused: %s", a->id, err.text);
		release_followers_of(i);
		return;
	}
	sc.track[i].state = ARR_SUBMITTED;
	sc.track[i].job = sim_job_add(job->id, a, (int64_t)(sim_env_now_ms() / 1000));
	sc.progress_ms = sim_env_now_ms();
	sc.pending += job->array_pending ? (long)bitmap_count(job->array_pending) : 1;
}

/* ---- preceding jobs (SWF fields 17, 18) --------------------------------
 * SWF's think time is the time between the preceding job's end and this
 * job's submission: the user sends it after seeing the other end.  So an
 * arrival whose preceding job has not ended is held back, not queued, and
 * is submitted at the later of its own submit time and that end + think
 * time (its wait counts from then).  Its dependency (afterany) is then met
 * by construction, so none is given to the controller. */

/* Arrival i's preceding job's arrival index: the last arrival before i
 * with that number, -1 when none. */
static long pred_index(size_t i)
{
	if (sc.arr[i].after < 0)
		return -1;
	for (size_t k = i; k-- > 0;)
		if (sc.arr[k].id == sc.arr[i].after)
			return (long)k;
	return -1;
}

/* When held arrival i may be submitted: UINT64_MAX while its preceding
 * job has not ended. */
static uint64_t ready_ms(size_t i)
{
	const struct arr_track *p = &sc.track[sc.track[i].pred];
	if (p->state == ARR_REFUSED)
		return 0;
	if (p->state != ARR_SUBMITTED || !p->job->finished)
		return UINT64_MAX;
	int64_t at = p->job->end + sc.arr[i].think;
	return (uint64_t)(at > sc.arr[i].submit ? at : sc.arr[i].submit) * 1000;
}

/* Arrival i comes: submitted, or held until its preceding job allows. */
static void arrive(size_t i)
{
	struct arr_track *t = &sc.track[i];
	if (t->pred < 0 || (t->ready_ms = ready_ms(i)) <= sim_env_now_ms()) {
		submit_one(i);
		return;
	}
	t->state = ARR_HELD;
	sc.held[sc.nheld++] = i;
}

/* The arrivals held for arrival i (ended, or refused): their time is known now. */
static void release_followers_of(size_t i)
{
	for (size_t k = 0; k < sc.nheld; k++)
		if (sc.track[sc.held[k]].pred == (long)i)
			sc.track[sc.held[k]].ready_ms = ready_ms(sc.held[k]);
}

static void release_followers(const struct sim_job *sj)
{
	if (sc.nheld)
		release_followers_of((size_t)(sj->arr - sc.arr));
}

/* The soonest a held arrival may go (virtual ms), or UINT64_MAX. */
static uint64_t held_due(void)
{
	uint64_t due = UINT64_MAX;
	for (size_t k = 0; k < sc.nheld; k++)
		if (sc.track[sc.held[k]].ready_ms < due)
			due = sc.track[sc.held[k]].ready_ms;
	return due;
}

/* Everything due by now: timers, then the store's commits and what waits
 * on them (a launch waits for its job's start to be durable), until
 * nothing is left at this instant. */
static void settle(uint64_t now_ms)
{
	do {
		sim_env_advance(now_ms);
		while (!store_quiet())
			uv_run(ctld.loop, UV_RUN_ONCE);
	} while (sim_env_next_due(true) <= now_ms);
}

static void sample(int64_t t)
{
	struct sim_result *r = sc.res;
	if (r->nsamples == sc.samples_cap) {
		sc.samples_cap = sc.samples_cap ? 2 * sc.samples_cap : 1024;
		r->samples = xrealloc(r->samples, sc.samples_cap * sizeof(*r->samples));
	}
	r->samples[r->nsamples++] = (struct sim_sample){ t, sc.busy, sc.pending };
}

/* Jobs and array tasks that wait, as the job table has them, and the
 * latest time one of them may start (--begin). */
struct pending_count {
	long n;
	time_t eligible;
};

static void count_pending(struct job *job, void *arg)
{
	struct pending_count *c = arg;
	if (job->state != JOB_PENDING)
		return;
	c->n += job->array_pending ? (long)bitmap_count(job->array_pending) : 1;
	if (job->eligible_time > c->eligible)
		c->eligible = job->eligible_time;
}

/* Whether the replay should stop waiting: nothing runs, nothing is to
 * arrive, and the jobs that wait (recounted: some may have been cancelled
 * without starting) have waited SIM_STALL_MS past the last event. */
static bool stalled(void)
{
	struct pending_count c = { 0, 0 };

	job_foreach(count_pending, &c);
	sc.pending = c.n;
	uint64_t since = sc.progress_ms;
	if (c.eligible > SIM_CORE_EPOCH && (uint64_t)(c.eligible - SIM_CORE_EPOCH) * 1000 > since)
		since = (uint64_t)(c.eligible - SIM_CORE_EPOCH) * 1000;
	return sc.pending > 0 && sim_env_now_ms() > since + SIM_STALL_MS;
}

/* Submit the held arrivals whose time has come, in arrival order, each
 * settled before the next, as arrivals are. */
static void submit_held(uint64_t now_ms)
{
	size_t kept = 0;
	for (size_t k = 0; k < sc.nheld; k++) {
		size_t i = sc.held[k];
		if (sc.track[i].ready_ms <= now_ms) {
			submit_one(i);
			settle(now_ms);
		} else {
			sc.held[kept++] = i;
		}
	}
	sc.nheld = kept;
}

/* When arrival i comes (virtual ms), or UINT64_MAX past the last. */
static uint64_t arrival_ms(size_t i)
{
	return i < sc.narr ? (uint64_t)sc.arr[i].submit * 1000 : UINT64_MAX;
}

/* The controller's start-up, as main.c does it, without the network. */
static int core_start(struct conf *conf, const char *dir, struct herd_error *err)
{
	static uv_async_t alive;

	core.conf = conf;
	ctld.loop = uv_default_loop();
	/* The store's handles do not keep the loop running (in herdctld the
	 * server does): this one does, so that settle's uv_run waits for the
	 * commit in flight. */
	uv_async_init(ctld.loop, &alive, NULL);
	core.cluster = xstrdup(conf_cluster_name(conf));
	ctld.dest_self = xstrdup("sim");
	core.next_job_id = 1;
	core.start_time = core_now();
	reconf_settings(conf);
	log_set_level(LOG_LVL_ERROR);   /* not SlurmctldDebug's: a line per job start is noise here */
	if (sched_check(conf, err) < 0 || preempt_check(conf, err) < 0 ||
	    prio_conf_check(conf, err) < 0)
		return -1;
	node_setup();
	part_setup();
	sched_setup();
	preempt_setup();
	if (store_open(dir, err) < 0 || store_load() < 0)
		return -1;
	assoc_setup();
	resv_setup();
	usage_setup();
	prio_setup();
	for (int i = 0; i < core.nnodes; i++) {   /* every node registered, idle */
		core.nodes[i].registered = true;
		core.nodes[i].state = NODE_IDLE;
		core.nodes[i].last_seen = core_now();
	}
	return 0;
}

/* The accounts and reservations, as sacctmgr load and scontrol create
 * reservation give them to a real controller (by root), each made durable
 * as there. */
static int load_start(const struct sim_core_start *st, struct herd_error *err)
{
	struct herd_error e = { "" };
	size_t i;
	json_t *r;

	if (!st)
		return 0;
	/* the file's tree for herd.conf's cluster, as `sacctmgr load file=F
	 * cluster=NAME` loads a dump made on another cluster */
	json_t *first = st->accounts ? json_array_get(st->accounts, 0) : NULL;
	const char *type = first ? json_string_value(json_object_get(first, "type")) : NULL;
	if (type && !strcmp(type, "cluster"))
		json_object_set_new(first, "name", json_string(core.cluster));
	if (st->accounts && assoc_load_records(st->accounts, &e) != 0) {
		long line;
		int at = 0;
		/* the handler names the line as sacctmgr shows it: "Line N: ..." */
		if (sscanf(e.text, "Line %ld: %n", &line, &at) == 1 && at > 0)
			return errprintf(err, "%s:%ld: %s", st->accounts_path, line, e.text + at);
		return errprintf(err, "%s: %s", st->accounts_path, e.text);
	}
	json_array_foreach(st->reservations, i, r) {
		char *name = NULL;
		int rc = resv_create(json_object_get(r, "body"), 0, &name, &e);
		free(name);
		if (rc != 0)
			return errprintf(err, "%s:%lld: %s", st->reservations_path,
					 (long long)json_integer_value(json_object_get(r, "line")),
					 *e.text ? e.text : herd_strerror(rc));
	}
	settle(0);
	return 0;
}

/* Outcomes in the source's order (a held arrival was submitted later),
 * an array's tasks by job ID. */
static int by_arrival(const void *x, const void *y)
{
	const struct sim_job *a = *(struct sim_job *const *)x, *b = *(struct sim_job *const *)y;
	if (a->arr != b->arr)
		return a->arr < b->arr ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void outcomes(struct sim_result *res)
{
	struct sim_job **ran = xmalloc((sc.cap_ids + 1) * sizeof(*ran));
	size_t nran = 0;

	for (size_t id = 0; id < sc.cap_ids; id++)
		if (sc.by_id[id] && sc.by_id[id]->start >= 0)
			ran[nran++] = sc.by_id[id];
	qsort(ran, nran, sizeof(*ran), by_arrival);
	res->jobs = xmalloc((nran ? nran : 1) * sizeof(*res->jobs));
	for (size_t k = 0; k < nran; k++) {
		struct sim_job *sj = ran[k];
		const struct sim_arrival *a = sj->arr;
		struct sim_outcome *o = &res->jobs[res->njobs++];
		*o = (struct sim_outcome){
			.id = a->id, .submit = sj->submit, .start = sj->start, .end = sj->end,
			.run = sj->ran, .estimate = a->estimate,
			.procs = a->procs > 0 ? a->procs : sj->procs,
			.name = sj->name, .user = sj->user, .nodes = sj->nodes,
			.last_start = sj->run_start };
		memcpy(o->jobid, sj->jobid, sizeof(o->jobid));
		sj->name = sj->user = sj->nodes = NULL;   /* the result's now */
	}
	free(ran);
}

int sim_core_run(const struct sim_arrival *arr, size_t n, struct conf *conf,
		 const struct sim_core_start *start, struct sim_result *res,
		 struct herd_error *err)
{
	char dir[] = "/dev/shm/herd-sim-XXXXXX", tmpdir[] = "/tmp/herd-sim-XXXXXX";
	const char *d = mkdtemp(dir) ? dir : mkdtemp(tmpdir);
	int rc = -1;

	memset(&sc, 0, sizeof(sc));
	sc.arr = arr;
	sc.narr = n;
	sc.res = res;
	sc.track = xmalloc((n ? n : 1) * sizeof(*sc.track));
	sc.held = xmalloc((n ? n : 1) * sizeof(*sc.held));
	for (size_t i = 0; i < n; i++)
		sc.track[i] = (struct arr_track){ .state = ARR_FUTURE, .pred = pred_index(i) };
	if (!d)
		return errprintf(err, "cannot make a directory for the store: %s", strerror(errno));
	log_init("herd sim", LOG_LVL_ERROR, NULL);
	core_env = sim_env_table(&hooks, SIM_CORE_EPOCH);
	sim_env_reset();
	names_fictional(SIM_FIRST_ID);
	/* the trace's users after whatever the core has (an accounts file's) */
	if (core_start(conf, d, err) < 0 || load_start(start, err) < 0 ||
	    (!(start && start->local_users) && sim_assoc_add(arr, n, err) < 0))
		goto out;
	for (int i = 0; i < core.nnodes; i++)
		res->procs += core.nodes[i].cpus;
	res->nnodes = core.nnodes;
	size_t next = 0;
	for (;;) {
		uint64_t arrival = arrival_ms(next), held = held_due();
		if (sc.pending > 0 && sc.running == 0 && arrival == UINT64_MAX &&
		    held == UINT64_MAX && stalled())
			break;
		/* while jobs wait (or are suspended), the periodic passes
		 * (backfill, the whole queue, gang's slices) are events: they
		 * may start or resume them */
		uint64_t due = sim_env_next_due(sc.pending > 0 || sc.suspended > 0);
		uint64_t t = arrival < due ? arrival : due;
		if (held < t)
			t = held;
		if (t == UINT64_MAX)
			break;
		if (t < sim_env_now_ms())
			t = sim_env_now_ms();   /* a trace out of order: now */
		sim_env_advance(t);
		submit_held(t);
		/* each arrival its own pass, as herdctld runs one after each
		 * submission: those of one second are not placed together in
		 * priority order, but one after the other as they come */
		while (arrival_ms(next) <= t) {
			arrive(next++);
			settle(t);
		}
		settle(t);
		res->passes++;
		sample((int64_t)(t / 1000));
	}
	if (sc.pending > 0 || sc.nheld > 0) {
		errprintf(err, "%ld jobs never started (the configuration cannot run them)",
			  sc.pending + (long)sc.nheld);
		goto out;
	}
	outcomes(res);
	rc = 0;
out:
	store_close();
	fs_remove_flat_dir(d);   /* the store's files */
	for (size_t id = 0; id < sc.cap_ids; id++) {
		struct sim_job *sj = sc.by_id[id];
		if (!sj)
			continue;
		core_timer_close(&sj->end_timer);
		free(sj->name);
		free(sj->user);
		free(sj->nodes);
		free(sj);
	}
	free(sc.by_id);
	free(sc.track);
	free(sc.held);
	names_fictional(0);
	return rc;
}
