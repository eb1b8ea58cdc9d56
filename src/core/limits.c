/* AccountingStorageEnforce (doc/accounting.md, "Roles, limits, team jobs"):
 * at submission, the association a job needs, its default account and QOS,
 * and the submit limits; before a start, the running limits of its QOS and
 * of its association and every account above it, with the reason a job
 * waits for in Slurm's words.  The counts they are checked against are kept
 * here, job by job as states change (job_set_state), never by a scan of the
 * queue.  Not here: usage (usage.c keeps tres_usage, GrpTRESMins reads it),
 * the objects themselves (assoc.c). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "sched/select.h"

/* A user's jobs under one QOS: MaxJobsPerUser, MaxSubmitJobsPerUser and
 * MaxTRESPerUser count these. */
struct qos_user {
	char *qos;
	uid_t uid;
	int64_t jobs_running, jobs_submitted;
	tres_vec tres_running;
	struct qos_user *next;
};

#define QOS_USER_SLOTS 256
static struct qos_user *qos_users[QOS_USER_SLOTS];
/* The jobs the store gave back at start are counted on the first call here
 * (then every job is counted as it changes). */
static bool counted;

static const char *qos_name(const struct job *job)
{
	return job->qos ? job->qos : "normal";
}

/* Slurm: "limits", "qos" and "safe" each imply "associations"; "safe" implies "limits". */
static bool enforce_assoc(void)
{
	return accounting.enforce_assoc || accounting.enforce_limits || accounting.enforce_qos ||
	       accounting.enforce_safe;
}

static bool enforce_limits(void)
{
	return accounting.enforce_limits || accounting.enforce_safe;
}

static struct qos_user *qos_user(const char *qos, uid_t uid, bool create)
{
	uint64_t h = 1469598103934665603ULL ^ uid;   /* FNV-1a */
	for (const char *p = qos; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	struct qos_user **slot = &qos_users[h % QOS_USER_SLOTS];
	for (struct qos_user *u = *slot; u; u = u->next)
		if (u->uid == uid && !strcmp(u->qos, qos))
			return u;
	if (!create)
		return NULL;
	struct qos_user *u = xmalloc(sizeof(*u));
	u->qos = xstrdup(qos);
	u->uid = uid;
	u->next = *slot;
	*slot = u;
	return u;
}

/* How many jobs a record stands for: an array's meta record (or a set of
 * its tasks split off together) its pending tasks, else one.  Splitting a
 * task off keeps the sum, so no count moves. */
static int64_t job_weight(const struct job *job)
{
	return job->array_pending ? (int64_t)bitmap_count(job->array_pending) : 1;
}

/* What one job (one task of an array) asks for, before it has nodes.  An
 * --exclusive job gets whole nodes, so it may be charged more once started. */
static void request_tres(const struct job *job, tres_vec v)
{
	/* Saturating products (sched_mul): a request too large to wrap is
	 * charged as huge, never as negative, so it can only break a limit. */
	int64_t nodes = job->req_nodes ? job->req_nodes : 1;
	int64_t tasks = job->ntasks ? job->ntasks
			: job->ntasks_per_node ? sched_mul(job->ntasks_per_node, nodes) : nodes;
	int64_t cpus = sched_mul(tasks, job->cpus_per_task ? job->cpus_per_task : 1);
	uint64_t mem = job->mem_per_cpu ? sched_umul(job->mem_per_cpu, (uint64_t)cpus)
					: sched_umul(job->mem_mb, (uint64_t)nodes);

	memset(v, 0, sizeof(tres_vec));
	if (cpus < nodes)
		cpus = nodes;
	v[TRES_CPU] = cpus;
	v[TRES_MEM] = mem > INT64_MAX ? INT64_MAX : (int64_t)mem;
	v[TRES_NODE] = nodes;
	v[TRES_BILLING] = cpus;   /* no TRESBillingWeights: billing is the CPU count */
	v[TRES_GPU] = job_gres_count(job, "gpu");
}

/* What a started job holds. */
static void alloc_tres(const struct job *job, tres_vec v)
{
	if (!job->nalloc) {
		request_tres(job, v);
		return;
	}
	memset(v, 0, sizeof(tres_vec));
	for (int i = 0; i < job->nalloc; i++) {
		v[TRES_CPU] += job->alloc_cpus[i];
		v[TRES_MEM] += (int64_t)job_node_mem(job, i);
	}
	v[TRES_NODE] = job->nalloc;
	v[TRES_BILLING] = v[TRES_CPU];
	v[TRES_GPU] = job_gres_count(job, "gpu");
}

static struct assoc *job_assoc(const struct job *job)
{
	if (!job->account || !job->user)
		return NULL;
	return assoc_find(job->account, job->user, job->part ? job->part->name : NULL);
}

static void add(int64_t *counter, int64_t delta)
{
	*counter += delta;
	if (*counter < 0)
		*counter = 0;   /* the tree changed under a job: never below nothing */
}

/* jobs_submitted of the association and those above it, the QOS and its user. */
static void charge_submitted(const struct job *job, int64_t delta)
{
	for (struct assoc *a = job->lim_assoc; a; a = a->parent)
		add(&a->jobs_submitted, delta);
	struct acct_qos *q = acct_qos_find(qos_name(job));
	if (q)
		add(&q->jobs_submitted, delta);
	struct qos_user *u = qos_user(qos_name(job), job->uid, delta > 0);
	if (u)
		add(&u->jobs_submitted, delta);
}

static void charge_running(const struct job *job, const int64_t *tres, int64_t sign)
{
	for (struct assoc *a = job->lim_assoc; a; a = a->parent) {
		add(&a->jobs_running, sign);
		for (int t = 0; t < TRES_COUNT; t++)
			add(&a->tres_running[t], sign * tres[t]);
	}
	struct acct_qos *q = acct_qos_find(qos_name(job));
	if (q) {
		add(&q->jobs_running, sign);
		for (int t = 0; t < TRES_COUNT; t++)
			add(&q->tres_running[t], sign * tres[t]);
	}
	struct qos_user *u = qos_user(qos_name(job), job->uid, sign > 0);
	if (u) {
		add(&u->jobs_running, sign);
		for (int t = 0; t < TRES_COUNT; t++)
			add(&u->tres_running[t], sign * tres[t]);
	}
}

static void count_submitted(struct job *job)
{
	if (job->lim_counted || job_state_is_final(job->state))
		return;
	job->lim_assoc = job_assoc(job);
	job->lim_counted = true;
	charge_submitted(job, job_weight(job));
}

static void count_started(struct job *job)
{
	if (job->lim_tres)
		return;
	count_submitted(job);
	job->lim_tres = xmalloc(sizeof(tres_vec));
	alloc_tres(job, job->lim_tres);
	charge_running(job, job->lim_tres, 1);
}

static void count_loaded(struct job *job, void *arg)
{
	(void)arg;
	count_submitted(job);
	if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING || job->state == JOB_SUSPENDED)
		count_started(job);
}

static void ensure_counted(void)
{
	if (counted)
		return;
	counted = true;
	job_foreach(count_loaded, NULL);
}

void limits_job_submitted(const struct job *job)
{
	ensure_counted();
	count_submitted((struct job *)job);   /* the counts are the job's own bookkeeping */
}

void limits_job_started(const struct job *job)
{
	ensure_counted();
	count_started((struct job *)job);
}

void limits_job_ended(const struct job *job, bool was_running)
{
	struct job *j = (struct job *)job;

	(void)was_running;   /* lim_tres says whether it was counted running */
	ensure_counted();
	if (j->lim_tres) {
		charge_running(j, j->lim_tres, -1);
		free(j->lim_tres);
		j->lim_tres = NULL;
	}
	if (j->lim_counted) {
		charge_submitted(j, -job_weight(j));
		j->lim_counted = false;
	}
}

/* ---- the limits ---- */

/* Reasons per TRES; an entry left out (energy, fs/disk ...) waits as
 * AccountingPolicy, Slurm's fallback. */
#define TRES_REASONS(cpu, mem, node, billing, gres) \
	{ [TRES_CPU] = cpu, [TRES_MEM] = mem, [TRES_NODE] = node, [TRES_BILLING] = billing, \
	  [TRES_GPU] = gres }
static const enum job_reason assoc_grp[TRES_COUNT] =
	TRES_REASONS(REASON_ASSOC_GRP_CPU, REASON_ASSOC_GRP_MEM, REASON_ASSOC_GRP_NODE,
		     REASON_ASSOC_GRP_BILLING, REASON_ASSOC_GRP_GRES);
static const enum job_reason assoc_grp_mins[TRES_COUNT] =
	TRES_REASONS(REASON_ASSOC_GRP_CPU_MIN, REASON_ASSOC_GRP_MEM_MIN, REASON_ASSOC_GRP_NODE_MIN,
		     REASON_ASSOC_GRP_BILLING_MIN, REASON_ASSOC_GRP_GRES_MIN);
static const enum job_reason assoc_per_job[TRES_COUNT] =
	TRES_REASONS(REASON_ASSOC_MAX_CPU_PER_JOB, REASON_ASSOC_MAX_MEM_PER_JOB,
		     REASON_ASSOC_MAX_NODE_PER_JOB, REASON_ASSOC_MAX_BILLING_PER_JOB,
		     REASON_ASSOC_MAX_GRES_PER_JOB);
static const enum job_reason assoc_per_node[TRES_COUNT] =
	TRES_REASONS(REASON_ASSOC_MAX_CPU_PER_NODE, REASON_ASSOC_MAX_MEM_PER_NODE, REASON_ACCT_POLICY,
		     REASON_ASSOC_MAX_BILLING_PER_NODE, REASON_ASSOC_MAX_GRES_PER_NODE);
static const enum job_reason assoc_mins_per_job[TRES_COUNT] =
	TRES_REASONS(REASON_ASSOC_MAX_CPU_MIN_PER_JOB, REASON_ASSOC_MAX_MEM_MIN_PER_JOB,
		     REASON_ASSOC_MAX_NODE_MIN_PER_JOB, REASON_ASSOC_MAX_BILLING_MIN_PER_JOB,
		     REASON_ASSOC_MAX_GRES_MIN_PER_JOB);
static const enum job_reason qos_grp[TRES_COUNT] =
	TRES_REASONS(REASON_QOS_GRP_CPU, REASON_QOS_GRP_MEM, REASON_QOS_GRP_NODE,
		     REASON_QOS_GRP_BILLING, REASON_QOS_GRP_GRES);
static const enum job_reason qos_per_job[TRES_COUNT] =
	TRES_REASONS(REASON_QOS_MAX_CPU_PER_JOB, REASON_QOS_MAX_MEM_PER_JOB,
		     REASON_QOS_MAX_NODE_PER_JOB, REASON_QOS_MAX_BILLING_PER_JOB,
		     REASON_QOS_MAX_GRES_PER_JOB);
static const enum job_reason qos_per_node[TRES_COUNT] =
	TRES_REASONS(REASON_QOS_MAX_CPU_PER_NODE, REASON_QOS_MAX_MEM_PER_NODE, REASON_ACCT_POLICY,
		     REASON_QOS_MAX_BILLING_PER_NODE, REASON_QOS_MAX_GRES_PER_NODE);
static const enum job_reason qos_mins_per_job[TRES_COUNT] =
	TRES_REASONS(REASON_QOS_MAX_CPU_MIN_PER_JOB, REASON_QOS_MAX_MEM_MIN_PER_JOB,
		     REASON_QOS_MAX_NODE_MIN_PER_JOB, REASON_QOS_MAX_BILLING_MIN_PER_JOB,
		     REASON_QOS_MAX_GRES_MIN_PER_JOB);
static const enum job_reason qos_per_user[TRES_COUNT] =
	TRES_REASONS(REASON_QOS_MAX_CPU_PER_USER, REASON_QOS_MAX_MEM_PER_USER,
		     REASON_QOS_MAX_NODE_PER_USER, REASON_QOS_MAX_BILLING_PER_USER,
		     REASON_QOS_MAX_GRES_PER_USER);

static enum job_reason pick(const enum job_reason *table, int t)
{
	return table[t] != REASON_NONE ? table[t] : REASON_ACCT_POLICY;
}

static bool set(int64_t limit)
{
	return limit != ACCT_UNSET && limit >= 0;
}

/* The job's time limit in minutes (UNLIMITED: more than any limit). */
static double job_minutes(const struct job *job)
{
	if (job->time_limit < 0)
		return 1e300;
	return (double)((job->time_limit + 59) / 60);
}

/* A Max limit of an association is the user association's own, else the
 * nearest account's above it (sacctmgr(1): what a new association takes
 * when it sets none).  offset: the field in struct acct_limits. */
static int64_t nearest(const struct assoc *a, size_t offset)
{
	for (; a; a = a->parent) {
		int64_t v = *(const int64_t *)((const char *)&a->lim + offset);
		if (set(v))
			return v;
	}
	return ACCT_UNSET;
}
#define NEAREST(a, field) nearest(a, offsetof(struct acct_limits, field))
#define NEAREST_TRES(a, field, t) \
	nearest(a, offsetof(struct acct_limits, field) + (size_t)(t) * sizeof(int64_t))

/* ceil(v / nodes), without the sum that could wrap (v may be saturated). */
static int64_t per_node(int64_t v, int64_t nodes)
{
	return v / nodes + (v % nodes != 0);
}

/* The limits one job can break by itself, whatever else runs: with
 * DenyOnLimit they refuse it at submission, else it waits. */
static enum job_reason check_job_alone(const struct job *job, const struct assoc *a,
				       const struct acct_qos *q, const int64_t *req)
{
	double mins = job_minutes(job);
	int64_t nodes = req[TRES_NODE] ? req[TRES_NODE] : 1;

	if (q) {
		if (set(q->lim.max_wall) && mins > q->lim.max_wall)
			return REASON_QOS_MAX_WALL;
		for (int t = 0; t < TRES_COUNT; t++) {
			if (set(q->lim.max_tres_per_job[t]) && req[t] > q->lim.max_tres_per_job[t])
				return pick(qos_per_job, t);
			if (set(q->lim.max_tres_per_node[t]) &&
			    per_node(req[t], nodes) > q->lim.max_tres_per_node[t])
				return pick(qos_per_node, t);
			if (set(q->lim.max_tres_mins_per_job[t]) && req[t] &&
			    req[t] * mins > (double)q->lim.max_tres_mins_per_job[t])
				return pick(qos_mins_per_job, t);
		}
	}
	if (!a)
		return REASON_NONE;
	/* Resource_limits: a limit the QOS sets is the one in effect; the
	 * association's of the same kind is not looked at. */
	int64_t wall = q && set(q->lim.max_wall) ? ACCT_UNSET : NEAREST(a, max_wall);
	if (set(wall) && mins > wall)
		return REASON_ASSOC_MAX_WALL;
	for (int t = 0; t < TRES_COUNT; t++) {
		int64_t v;
		if (!(q && set(q->lim.max_tres_per_job[t])) &&
		    set(v = NEAREST_TRES(a, max_tres_per_job, t)) && req[t] > v)
			return pick(assoc_per_job, t);
		if (!(q && set(q->lim.max_tres_per_node[t])) &&
		    set(v = NEAREST_TRES(a, max_tres_per_node, t)) && per_node(req[t], nodes) > v)
			return pick(assoc_per_node, t);
		if (!(q && set(q->lim.max_tres_mins_per_job[t])) &&
		    set(v = NEAREST_TRES(a, max_tres_mins_per_job, t)) && req[t] &&
		    req[t] * mins > (double)v)
			return pick(assoc_mins_per_job, t);
	}
	return REASON_NONE;
}

/* Is what runs plus what the job asks over the limit?  Without a wrap:
 * a sum past 64 bits is over any limit. */
static bool over(int64_t used, int64_t more, int64_t limit)
{
	int64_t sum;
	return __builtin_add_overflow(used, more, &sum) || sum > limit;
}

/* The limits on what runs at once, and GrpTRESMins against the usage. */
static enum job_reason check_running(const struct job *job, const struct assoc *a,
				     const struct acct_qos *q, const struct qos_user *u,
				     const int64_t *req)
{
	double mins = job_minutes(job);

	if (q) {
		if (set(q->lim.grp_jobs) && q->jobs_running + 1 > q->lim.grp_jobs)
			return REASON_QOS_GRP_JOBS;
		for (int t = 0; t < TRES_COUNT; t++)
			if (set(q->lim.grp_tres[t]) && over(q->tres_running[t], req[t], q->lim.grp_tres[t]))
				return pick(qos_grp, t);
		if (set(q->lim.max_jobs) && (u ? u->jobs_running : 0) + 1 > q->lim.max_jobs)
			return REASON_QOS_MAX_JOBS_PER_USER;
		for (int t = 0; t < TRES_COUNT; t++)
			if (set(q->max_tres_per_user[t]) &&
			    over(u ? u->tres_running[t] : 0, req[t], q->max_tres_per_user[t]))
				return pick(qos_per_user, t);
	}
	if (!a)
		return REASON_NONE;
	int64_t max_jobs = q && set(q->lim.max_jobs) ? ACCT_UNSET : NEAREST(a, max_jobs);
	if (set(max_jobs) && a->jobs_running + 1 > max_jobs)
		return REASON_ASSOC_MAX_JOBS;
	/* Grp limits hold at every level: an account's cover all under it. */
	for (const struct assoc *l = a; l; l = l->parent) {
		if (!(q && set(q->lim.grp_jobs)) && set(l->lim.grp_jobs) &&
		    l->jobs_running + 1 > l->lim.grp_jobs)
			return REASON_ASSOC_GRP_JOBS;
		for (int t = 0; t < TRES_COUNT; t++) {
			if (!(q && set(q->lim.grp_tres[t])) && set(l->lim.grp_tres[t]) &&
			    over(l->tres_running[t], req[t], l->lim.grp_tres[t]))
				return pick(assoc_grp, t);
			if ((q && set(q->lim.grp_tres_mins[t])) || !set(l->lim.grp_tres_mins[t]))
				continue;
			double used = l->tres_usage[t] / 60.0, limit = (double)l->lim.grp_tres_mins[t];
			if (used >= limit)
				return pick(assoc_grp_mins, t);
			/* safe: only a job that can run to its time limit within it */
			if (accounting.enforce_safe && req[t] && used + req[t] * mins > limit)
				return pick(assoc_grp_mins, t);
		}
	}
	return REASON_NONE;
}

/* DenyOnLimit: a job bigger than a Grp or per-user limit on its own. */
static enum job_reason check_grp_alone(const struct assoc *a, const struct acct_qos *q,
				       const int64_t *req)
{
	if (set(q->lim.grp_jobs) && q->lim.grp_jobs < 1)
		return REASON_QOS_GRP_JOBS;
	if (set(q->lim.max_jobs) && q->lim.max_jobs < 1)
		return REASON_QOS_MAX_JOBS_PER_USER;
	for (int t = 0; t < TRES_COUNT; t++) {
		if (set(q->lim.grp_tres[t]) && req[t] > q->lim.grp_tres[t])
			return pick(qos_grp, t);
		if (set(q->max_tres_per_user[t]) && req[t] > q->max_tres_per_user[t])
			return pick(qos_per_user, t);
	}
	for (const struct assoc *l = a; l; l = l->parent)
		for (int t = 0; t < TRES_COUNT; t++)
			if (!set(q->lim.grp_tres[t]) && set(l->lim.grp_tres[t]) &&
			    req[t] > l->lim.grp_tres[t])
				return pick(assoc_grp, t);
	return REASON_NONE;
}

static int refuse(struct herd_error *err, const struct job *job, int rc, const char *why)
{
	log_info("submission of %s (uid %u, account %s, qos %s) refused: %s", job->name ? job->name : "",
		 (unsigned)job->uid, job->account ? job->account : "(none)", qos_name(job), why);
	errprintf(err, "%s", herd_strerror(rc));
	return rc;
}

/* jobs_submitted + weight against MaxSubmitJobs and GrpSubmitJobs. */
static const char *submit_limit(const struct assoc *a, const struct acct_qos *q,
				const struct qos_user *u, int64_t w)
{
	if (q && set(q->lim.grp_submit) && q->jobs_submitted + w > q->lim.grp_submit)
		return "QOSGrpSubmitJobsLimit";
	if (q && set(q->lim.max_submit) && (u ? u->jobs_submitted : 0) + w > q->lim.max_submit)
		return "QOSMaxSubmitJobPerUserLimit";
	if (!a)
		return NULL;
	int64_t max = q && set(q->lim.max_submit) ? ACCT_UNSET : NEAREST(a, max_submit);
	if (set(max) && a->jobs_submitted + w > max)
		return "AssocMaxSubmitJobLimit";
	if (!(q && set(q->lim.grp_submit)))
		for (const struct assoc *l = a; l; l = l->parent)
			if (set(l->lim.grp_submit) && l->jobs_submitted + w > l->lim.grp_submit)
				return "AssocGrpSubmitJobsLimit";
	return NULL;
}

int limits_check_submit(struct job *job, struct herd_error *err)
{
	ensure_counted();
	/* The user's DefaultAccount when none is asked for (Slurm does so
	 * whether or not associations are enforced). */
	if (!job->account && job->user) {
		const char *dflt = acct_default_account(job->user);
		if (dflt && *dflt)
			job->account = xstrdup(dflt);
	}
	struct assoc *a = job_assoc(job);
	if (!a && enforce_assoc())
		return refuse(err, job, HERD_ERR_INVALID_ACCOUNT, "no association");
	if (!job->qos && a)
		job->qos = xstrdup(assoc_default_qos(a));
	struct acct_qos *q = acct_qos_find(qos_name(job));
	if (job->qos && !q && enforce_assoc())
		return refuse(err, job, HERD_ERR_INVALID_QOS, "no such QOS");
	if (accounting.enforce_qos && a && !assoc_qos_allowed(a, qos_name(job)))
		return refuse(err, job, HERD_ERR_INVALID_QOS, "QOS not allowed to the association");
	if (!enforce_limits())
		return 0;
	/* No --time: the job's limit is MaxWall (within the partition's MaxTime). */
	if (job->time_limit == TIME_NOT_GIVEN) {
		int64_t wall = q && set(q->lim.max_wall) ? q->lim.max_wall
			       : a ? NEAREST(a, max_wall) : ACCT_UNSET;
		int64_t part_max = job->part ? job->part->conf->max_time : TIME_INFINITE;
		if (set(wall)) {
			job->time_limit = sched_mul(wall, 60);
			if (part_max != TIME_INFINITE && part_max < job->time_limit)
				job->time_limit = part_max;
		}
	}
	const char *why = submit_limit(a, q, qos_user(qos_name(job), job->uid, false), job_weight(job));
	if (why)
		return refuse(err, job, HERD_ERR_ACCOUNTING_POLICY, why);
	if (q && (q->flags & QOS_FLAG_DENY_ON_LIMIT)) {
		/* DenyOnLimit: what would make it wait forever refuses it now;
		 * Grp limits count as Max limits (resource_limits) */
		tres_vec req;
		request_tres(job, req);
		enum job_reason r = check_job_alone(job, a, q, req);
		if (r == REASON_NONE)
			r = check_grp_alone(a, q, req);
		if (r != REASON_NONE)
			return refuse(err, job, HERD_ERR_ACCOUNTING_POLICY, job_reason_name(r));
	}
	return 0;
}

int limits_check_start(const struct job *job)
{
	ensure_counted();
	if (!enforce_limits())
		return REASON_NONE;
	struct assoc *a = job->lim_counted ? job->lim_assoc : job_assoc(job);
	const struct acct_qos *q = acct_qos_find(qos_name(job));
	tres_vec req;
	request_tres(job, req);
	enum job_reason r = check_job_alone(job, a, q, req);
	if (r == REASON_NONE)
		r = check_running(job, a, q, qos_user(qos_name(job), job->uid, false), req);
	return r;
}

/* GrpTRESMins used up: sacctmgr(1) says the running jobs of the association
 * (and those under it) are killed; Slurm ends them TIMEOUT (its
 * acct_policy_job_time_out).  Here the job's time limit becomes what it has
 * run, so its nodes end it as at any time limit. */
static void over_tres_mins(struct job *job, void *arg)
{
	time_t now = *(const time_t *)arg;

	if (job->state != JOB_RUNNING || !job->lim_tres || !job->lim_assoc || job->start_time <= 0)
		return;
	if (job->time_limit != TIME_INFINITE && job->start_time + job->time_limit <= now)
		return;   /* ending already */
	const struct acct_qos *q = acct_qos_find(qos_name(job));
	for (const struct assoc *l = job->lim_assoc; l; l = l->parent)
		for (int t = 0; t < TRES_COUNT; t++) {
			if ((q && set(q->lim.grp_tres_mins[t])) || !set(l->lim.grp_tres_mins[t]) ||
			    job->lim_tres[t] <= 0 || l->tres_usage[t] / 60.0 < (double)l->lim.grp_tres_mins[t])
				continue;
			log_info("job %u timed out: association %s%s%s is at its GrpTRESMins %s=%lld",
				 job->id, l->account, l->user ? "/" : "", l->user ? l->user : "",
				 tres_name(t), (long long)l->lim.grp_tres_mins[t]);
			job->time_limit = now - job->start_time;
			job_changed(job);
			core_time_limit(job);
			return;
		}
}

void limits_tick(time_t now)
{
	bool any = false;

	if (!enforce_limits())
		return;
	for (const struct assoc *a = accounting.assocs; a && !any; a = a->next)
		for (int t = 0; t < TRES_COUNT && !any; t++)
			any = set(a->lim.grp_tres_mins[t]);
	if (any)
		job_foreach(over_tres_mins, &now);
}
