/* Preemption: which running jobs a job that waits for resources may
 * displace (PreemptType), what happens to them (PreemptMode, GraceTime),
 * and bringing suspended ones back.  The choice of victims is the pure
 * sched_preempt_select (src/sched/preempt.c); this file decides who may be
 * a victim and acts.  Gang time-slicing is gang.c. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/part_limits.h"
#include "core/preempt.h"
#include "core/sched_snap.h"
#include "sched/feature.h"
#include "sched/preempt.h"

struct preempt_conf preempt_conf = { .time_slice = 30 };

/* One preemption: the job it was for and its victims.  Kept while a victim
 * is still ending (no second preemption for the job meanwhile) or is
 * suspended (resumed when the preemptor gives its nodes back). */
struct victim {
	uint32_t id;
	enum preempt_mode mode;
	time_t kill_at;              /* GraceTime: when the signalled job is ended; 0 done */
	uint32_t restarts;           /* its run that was preempted (a requeued one runs again) */
};
struct preemption {
	uint32_t by;
	struct victim *v;
	int n;
	struct preemption *next;
};
static struct preemption *preemptions;
static struct core_timer preempt_timer;

/* ---- configuration ---------------------------------------------------- */

/* "CANCEL", "suspend,gang": the mode and GANG, -1 when a word is unknown
 * (or two modes are given).  allow_gang: only the cluster-wide key. */
static int parse_mode(const char *v, bool allow_gang, bool *gang)
{
	static const char *const names[] = { "OFF", "CANCEL", "REQUEUE", "SUSPEND" };
	int mode = -1;
	char *copy = xstrdup(v), *save = NULL;

	*gang = false;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int m = -1;
		for (int i = 0; i < 4; i++)
			if (!strcasecmp(w, names[i]))
				m = i;
		if (m < 0 && allow_gang && !strcasecmp(w, "GANG")) {
			*gang = true;
			continue;
		}
		if (m < 0 && !strcasecmp(w, "WITHIN"))
			continue;   /* Slurm's preempt/qos flag: accepted, the same here */
		if (m < 0 || (mode >= 0 && mode != m)) {
			mode = -2;
			break;
		}
		mode = m;
	}
	free(copy);
	if (mode == -2)
		return -1;
	return mode < 0 ? (*gang ? PM_OFF : -1) : mode;
}

int preempt_check(const struct conf *conf, struct herd_error *err)
{
	const char *type = conf_get(conf, "PreemptType");
	const char *mode = conf_get(conf, "PreemptMode");
	long slice = conf_get_int(conf, "SchedulerTimeSlice", 30);
	bool gang;

	if (type && strcasecmp(type, "preempt/none") && strcasecmp(type, "preempt/partition_prio") &&
	    strcasecmp(type, "preempt/qos"))
		return errprintf(err, "%s: PreemptType=%s is invalid (preempt/none, "
				 "preempt/partition_prio or preempt/qos)", conf->path, type);
	if (mode && parse_mode(mode, true, &gang) < 0)
		return errprintf(err, "%s: PreemptMode=%s is invalid (OFF, CANCEL, REQUEUE or SUSPEND, "
				 "with GANG)", conf->path, mode);
	/* slurm.conf(5): between 5 and 65533 seconds */
	if (slice < 5 || slice > 65533)
		return errprintf(err, "%s: SchedulerTimeSlice=%ld is out of range (5-65533)", conf->path,
				 slice);
	for (size_t i = 0; i < conf->nparts; i++) {
		const struct conf_part *p = &conf->parts[i];
		if (p->preempt_mode && parse_mode(p->preempt_mode, false, &gang) < 0)
			return errprintf(err, "%s: PartitionName=%s: PreemptMode=%s is invalid (OFF, "
					 "CANCEL, REQUEUE or SUSPEND)", conf->path, p->name, p->preempt_mode);
		if (p->grace_time < 0)
			return errprintf(err, "%s: PartitionName=%s: GraceTime=%d is invalid", conf->path,
					 p->name, p->grace_time);
	}
	return 0;
}

static void preempt_tick(struct core_timer *t);

void preempt_setup(void)
{
	const struct conf *conf = core.conf;
	const char *type = conf_get(conf, "PreemptType");
	const char *mode = conf_get(conf, "PreemptMode");
	struct herd_error err;
	bool gang = false;

	if (preempt_check(conf, &err) < 0)
		log_error("%s: preemption is off", err.text);   /* main.c refuses to start first */
	preempt_conf.type = !type ? PT_NONE
			    : !strcasecmp(type, "preempt/partition_prio") ? PT_PARTITION_PRIO
			    : !strcasecmp(type, "preempt/qos") ? PT_QOS : PT_NONE;
	int m = mode ? parse_mode(mode, true, &gang) : PM_OFF;
	preempt_conf.mode = m < 0 ? PM_OFF : (enum preempt_mode)m;
	preempt_conf.gang = m >= 0 && gang;
	preempt_conf.exempt_time = conf_get_time(conf, "PreemptExemptTime", -1);
	long slice = conf_get_int(conf, "SchedulerTimeSlice", 30);
	preempt_conf.time_slice = slice < 5 || slice > 65533 ? 30 : (int)slice;
	if (!preempt_timer.impl) {
		core_timer_init(&preempt_timer, preempt_tick);
		preempt_timer.poll = true;
		core_timer_start(&preempt_timer, 1000, 1000);
	}
}

/* ---- who may preempt whom --------------------------------------------- */

static const char *qos_name(const struct job *job)
{
	return job->qos ? job->qos : "normal";
}

/* Is name in the comma-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncasecmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* The victim's PreemptMode: its QOS's (preempt/qos), else its partition's,
 * else the cluster's. */
static enum preempt_mode victim_mode(const struct job *v)
{
	bool gang;
	if (preempt_conf.type == PT_QOS) {
		const struct acct_qos *q = acct_qos_find(qos_name(v));
		if (q && q->preempt_mode && strcasecmp(q->preempt_mode, "cluster")) {
			int m = parse_mode(q->preempt_mode, false, &gang);
			if (m >= 0)
				return m;
		}
	}
	if (v->part && v->part->conf->preempt_mode) {
		int m = parse_mode(v->part->conf->preempt_mode, false, &gang);
		if (m >= 0)
			return m;
	}
	return preempt_conf.mode;
}

/* May job (to run in p) preempt running job v? */
static bool may_preempt(const struct job *job, const struct part *p, const struct job *v)
{
	if (!v->part)
		return false;
	switch (preempt_conf.type) {
	case PT_PARTITION_PRIO:
		return v->part->conf->priority_tier < p->conf->priority_tier;
	case PT_QOS: {
		const struct acct_qos *q = acct_qos_find(qos_name(job));
		return q && q->preempt && in_list(q->preempt, qos_name(v));
	}
	default:
		return false;
	}
}

static struct preemption *find_preemption(uint32_t by)
{
	for (struct preemption *e = preemptions; e; e = e->next)
		if (e->by == by)
			return e;
	return NULL;
}

/* Is this run of job a victim of some preemption? */
static bool is_victim(const struct job *job)
{
	for (struct preemption *e = preemptions; e; e = e->next)
		for (int i = 0; i < e->n; i++)
			if (e->v[i].id == job->id && e->v[i].restarts == job->restarts)
				return true;
	return false;
}

/* Still on its way out: a cancelled or requeued victim that holds nodes. */
static bool ending(const struct victim *v)
{
	const struct job *j = job_find(v->id);
	if (!j || v->mode == PM_SUSPEND || j->restarts != v->restarts)
		return false;
	return j->state == JOB_RUNNING || j->state == JOB_COMPLETING || j->state == JOB_SUSPENDED;
}

static void preemption_drop(struct preemption *e)
{
	for (struct preemption **pp = &preemptions; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			free(e->v);
			free(e);
			return;
		}
}

/* ---- acting on victims ------------------------------------------------- */

void preempt_suspend(struct job *job, void (*then)(void *arg), void *arg)
{
	node_lend(job);   /* before the state change: the job's nodes show what is left */
	job_set_state(job, JOB_SUSPENDED, REASON_NONE);
	core_suspend(job, true, then, arg);
}

bool preempt_resume(struct job *job)
{
	if (job->state != JOB_SUSPENDED)
		return false;
	if (job->cpus_lent) {
		if (!node_can_reclaim(job))
			return false;
		node_reclaim(job);
	}
	job->gang_suspended = false;
	job->slice_start = core_now();
	job_set_state(job, JOB_RUNNING, REASON_NONE);
	core_suspend(job, false, NULL, NULL);
	return true;
}

/* CANCEL or REQUEUE, now (GraceTime is over, or none). */
static void preempt_end(struct job *v, enum preempt_mode mode)
{
	if (v->state != JOB_RUNNING && v->state != JOB_SUSPENDED)
		return;   /* it ended by itself meanwhile */
	v->preempted = true;
	if (v->state == JOB_SUSPENDED && v->cpus_lent)
		node_reclaim(v);   /* (only its end gives them back) */
	if (mode == PM_REQUEUE && v->requeue && !v->alloc_only) {
		v->requeue_requested = true;
		v->requeue_hold = false;
		if (v->launch == LAUNCH_NONE) {
			job_requeue_finish(v);
			return;
		}
		job_set_state(v, JOB_COMPLETING, REASON_NONE);
		if (v->launch == LAUNCH_DONE)
			core_terminate(v);   /* else launch_done sends it */
		return;
	}
	/* CANCEL, or a job that may not be requeued (--no-requeue): ended */
	v->cancel_requested = true;
	if (v->launch == LAUNCH_NONE || v->alloc_only) {
		if (v->alloc_only)
			core_terminate(v);
		job_set_state(v, JOB_PREEMPTED, REASON_NONE);
		return;
	}
	job_set_state(v, JOB_COMPLETING, REASON_NONE);
	if (v->launch == LAUNCH_DONE)
		core_terminate(v);
}

/* GraceTime: the partition's.  As Slurm: SIGCONT and SIGTERM now (the
 * job's --signal instead when it has one: Slurm's send_user_signal), then
 * after GraceTime the job is ended (TERMINATE: SIGTERM, KillWait, SIGKILL). */
static void act(struct job *preemptor, struct job *v, struct victim *rec)
{
	int grace = v->part ? v->part->conf->grace_time : 0;
	char detail[64];

	snprintf(detail, sizeof(detail), "by job %u (%s)", preemptor->id,
		 rec->mode == PM_SUSPEND ? "suspend" : rec->mode == PM_REQUEUE ? "requeue" : "cancel");
	store_job_event(v->id, "PREEMPTED", detail);
	log_info("job %u: preempted %s", v->id, detail);
	if (rec->mode == PM_SUSPEND) {
		preempt_suspend(v, NULL, NULL);
		return;
	}
	if (grace > 0 && v->launch == LAUNCH_DONE && !v->alloc_only) {
		int sig = v->signal ? v->signal : SIGTERM;
		/* From now on its end is the preemption's, even if it exits
		 * by itself within GraceTime (ended PREEMPTED, or requeued) */
		v->preempted = true;
		if (rec->mode == PM_REQUEUE && v->requeue)
			v->requeue_requested = true;
		else
			v->cancel_requested = true;
		job_changed(v);
		core_signal(v, SIGCONT, "");
		core_signal(v, sig, v->signal && v->signal_batch ? "batch" : "");
		rec->kill_at = core_now() + grace;
		return;
	}
	preempt_end(v, rec->mode);
}

/* ---- choosing ----------------------------------------------------------- */

struct gather {
	const struct job *job;
	const struct part *p;
	bool gang;
	struct job **jobs;
	struct sched_preempt_cand *cand;
	uint64_t **mem;
	uint16_t **gres;
	enum preempt_mode *mode;
	int n, cap;
};

static void gather_one(struct job *v, void *arg)
{
	struct gather *g = arg;
	enum preempt_mode mode;
	bool ok;

	/* (a job sharing its CPUs, -s, is not weighed as a victim: what it
	 * would give back is less than its CPUs) */
	if (v == g->job || v->state != JOB_RUNNING || !v->nalloc || v->preempted || is_victim(v) ||
	    v->cpu_share > 1)
		return;
	if (g->gang) {
		/* it shares the gang partition's nodes in turns: it gives way
		 * once its turn is over (as Slurm, the new job waits for that) */
		time_t slice = v->slice_start > v->start_time ? v->slice_start : v->start_time;
		ok = v->part == g->p && slice + preempt_conf.time_slice <= core_now();
		mode = PM_SUSPEND;
	} else {
		mode = victim_mode(v);
		ok = mode != PM_OFF && may_preempt(g->job, g->p, v);
	}
	if (!ok)
		return;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->jobs = xrealloc(g->jobs, g->cap * sizeof(*g->jobs));
		g->cand = xrealloc(g->cand, g->cap * sizeof(*g->cand));
		g->mem = xrealloc(g->mem, g->cap * sizeof(*g->mem));
		g->gres = xrealloc(g->gres, g->cap * sizeof(*g->gres));
		g->mode = xrealloc(g->mode, g->cap * sizeof(*g->mode));
	}
	uint64_t *mem = NULL;
	if (mode != PM_SUSPEND) {   /* a suspended job keeps its memory */
		mem = xmalloc(v->nalloc * sizeof(*mem));
		for (int i = 0; i < v->nalloc; i++)
			mem[i] = job_node_mem(v, i);
	}
	const struct acct_qos *q = preempt_conf.type == PT_QOS ? acct_qos_find(qos_name(v)) : NULL;
	g->jobs[g->n] = v;
	g->mem[g->n] = mem;
	g->gres[g->n] = mode != PM_SUSPEND ? job_gres_kinds(v) : NULL;   /* suspended: kept */
	g->mode[g->n] = mode;
	g->cand[g->n] = (struct sched_preempt_cand){
		.id = v->id, .node = v->alloc_node, .cpus = v->alloc_cpus, .mem = mem,
		.gres = g->gres[g->n], .n = v->nalloc,
		.start = v->start_time, .tier = v->part->conf->priority_tier,
		.priority = q ? q->priority : v->priority, .preemptable = true,
	};
	if (g->gang) {
		/* a gang's turns: the job whose turn began longest ago goes first */
		time_t slice = v->slice_start > v->start_time ? v->slice_start : v->start_time;
		g->cand[g->n].priority = 0;
		g->cand[g->n].start = -slice;
	}
	g->n++;
}

/* The nodes as a pass sees them (the victims' users stay on their nodes:
 * ExclusiveUser is kept conservatively while they are chosen). */
static struct sched_node *snapshot(void)
{
	return snap_nodes();
}

bool gang_part(const struct part *p)
{
	return preempt_conf.gang && p->conf->oversubscribe &&
	       !strncasecmp(p->conf->oversubscribe, "FORCE", 5);
}

bool preempt_for(struct job *job, const struct part *p)
{
	struct preemption *e = find_preemption(job->id);
	bool gang = gang_part(p);

	if (!gang && preempt_conf.type == PT_NONE)
		return false;
	if (e) {
		for (int i = 0; i < e->n; i++)
			if (ending(&e->v[i]))
				return true;   /* its victims are still ending: wait for them */
	}
	/* The job's request on p's nodes that match its -C */
	int *cand = xmalloc((p->nnodes + 1) * sizeof(int)), ncand = 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct node *nd = &core.nodes[p->node_idx[i]];
		if (!job->features || feature_match(job->features, nd->conf->features) == 1)
			cand[ncand++] = p->node_idx[i];
	}
	struct sched_req req = snap_job_req(job);   /* the pass's request, placement options too */
	part_limits_req(job, p, &req);   /* OverSubscribe=EXCLUSIVE, ExclusiveUser */
	struct gather g = { .job = job, .p = p, .gang = gang };
	job_foreach(gather_one, &g);
	struct sched_node *sn = snapshot();
	int *victims = xmalloc((g.n + 1) * sizeof(int));
	struct sched_preempt_job pj = { &req, cand, ncand, core_now(),
					gang ? 0 : preempt_conf.exempt_time };
	int nv = g.n ? sched_preempt_select(sn, core.nnodes, g.cand, g.n, &pj, victims) : -1;

	if (nv > 0) {
		if (!e) {
			e = xmalloc(sizeof(*e));
			e->by = job->id;
			e->next = preemptions;
			preemptions = e;
		}
		/* victims that are done are forgotten; suspended ones stay */
		int k = 0;
		for (int i = 0; i < e->n; i++)
			if (e->v[i].mode == PM_SUSPEND && job_find(e->v[i].id) &&
			    job_find(e->v[i].id)->state == JOB_SUSPENDED)
				e->v[k++] = e->v[i];
		e->n = k;
		e->v = xrealloc(e->v, (e->n + nv) * sizeof(*e->v));
		for (int i = 0; i < nv; i++) {
			struct job *v = g.jobs[victims[i]];
			struct victim *rec = &e->v[e->n++];
			*rec = (struct victim){ v->id, g.mode[victims[i]], 0, v->restarts };
			if (gang) {
				/* not the preemptor's: the gang's turns bring it back */
				e->n--;
				v->gang_suspended = true;
				log_info("job %u: gang: suspended for job %u", v->id, job->id);
				preempt_suspend(v, NULL, NULL);
				continue;
			}
			act(job, v, rec);
		}
		if (!e->n)
			preemption_drop(e);
		job->slice_start = 0;
		sched_request();
	}
	for (int i = 0; i < g.n; i++) {
		free(g.mem[i]);
		free(g.gres[i]);
	}
	free(g.jobs);
	free(g.cand);
	free(g.mem);
	free(g.gres);
	free(g.mode);
	free(sn);
	free(victims);
	free(cand);
	return nv > 0;
}

/* ---- resuming ----------------------------------------------------------- */

/* Suspended victims whose preemptor is gone, waiting for room to resume. */
static uint32_t *orphans;
static int norphans;

static void resume_or_wait(uint32_t id)
{
	struct job *v = job_find(id);
	if (!v || v->state != JOB_SUSPENDED || v->gang_suspended)
		return;
	if (preempt_resume(v)) {
		log_info("job %u: resumed (its preemptor is done)", id);
		return;
	}
	orphans = xrealloc(orphans, (norphans + 1) * sizeof(*orphans));
	orphans[norphans++] = id;
}

void preempt_job_state(struct job *job, enum job_state old)
{
	bool held = old == JOB_RUNNING || old == JOB_COMPLETING || old == JOB_SUSPENDED;

	if (job->state == JOB_RUNNING && old == JOB_SUSPENDED && job->cpus_lent) {
		/* scontrol resume of a lent job: it takes its CPUs back */
		node_reclaim(job);
		job->gang_suspended = false;
	}
	bool gave_back = held && (job->state == JOB_PENDING || job_state_is_final(job->state));
	if (gave_back)   /* (ended, or requeued): a preemptor may start now,
			  * before a requeued victim is eligible again */
		sched_request();
	/* A preemptor that ends, or gave its nodes back: its victims resume */
	if (!gave_back && !(old == JOB_PENDING && job_state_is_final(job->state)))
		return;
	struct preemption *e = find_preemption(job->id);
	if (!e)
		return;
	int n = e->n;
	uint32_t *ids = xmalloc((n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = e->v[i].mode == PM_SUSPEND ? e->v[i].id : 0;
	preemption_drop(e);
	for (int i = 0; i < n; i++)
		if (ids[i])
			resume_or_wait(ids[i]);
	free(ids);
}

/* After a restart: the suspended victims of preemptions before it (the
 * preemptions themselves are not stored) resume once there is room. */
static void adopt_orphan(struct job *job, void *arg)
{
	if (job->state == JOB_SUSPENDED && job->cpus_lent && !job->gang_suspended) {
		orphans = xrealloc(orphans, (norphans + 1) * sizeof(*orphans));
		orphans[norphans++] = job->id;
	}
}

static void preempt_tick(struct core_timer *t)
{
	static bool adopted;
	time_t now = core_now();

	if (!adopted) {
		adopted = true;
		job_foreach(adopt_orphan, NULL);
	}

	/* GraceTime over: end the victims that were signalled */
	for (struct preemption *e = preemptions; e; e = e->next)
		for (int i = 0; i < e->n; i++) {
			if (!e->v[i].kill_at || e->v[i].kill_at > now)
				continue;
			e->v[i].kill_at = 0;
			struct job *v = job_find(e->v[i].id);
			if (v && v->restarts == e->v[i].restarts)
				preempt_end(v, e->v[i].mode);
		}
	/* Victims left suspended for want of room: as soon as there is */
	uint32_t *was = orphans;
	int nwas = norphans;
	orphans = NULL;
	norphans = 0;
	for (int i = 0; i < nwas; i++)
		resume_or_wait(was[i]);
	free(was);
	/* Preemptions whose preemptor is gone from the table */
	for (struct preemption *e = preemptions, *next; e; e = next) {
		next = e->next;
		if (!job_find(e->by)) {
			for (int i = 0; i < e->n; i++)
				if (e->v[i].mode == PM_SUSPEND) {
					orphans = xrealloc(orphans, (norphans + 1) * sizeof(*orphans));
					orphans[norphans++] = e->v[i].id;
				}
			preemption_drop(e);
		}
	}
	gang_tick(now);
}
