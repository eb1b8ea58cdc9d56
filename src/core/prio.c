/* The controller's side of multifactor priority: the Priority* keys, the
 * inputs of the pure formula (src/sched/prio.c) taken from the jobs,
 * partitions, QOS and fair-share usage (usage.c), each pending job's
 * factors kept on it for sprio (PRIO_INFO), and when to recompute.  Not
 * the formula itself, nor fair-share usage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/prio.h"

#define CALC_PERIOD_DEFAULT 300   /* PriorityCalcPeriod: 5 minutes */
/* A job computed between recomputes (a submission, an update) uses inputs
 * at most this old: fresh fair-share for a new job after others ended,
 * at most one rebuild a second however many jobs come. */
#define CTX_MAX_AGE 1

/* Per partition: its totals of each TRES (the TRES factors' denominators). */
struct part_tres {
	double tres[PRIO_TRES_COUNT];
};

static struct {
	bool multifactor;
	struct prio_weights w;
	int64_t calc_period;         /* seconds */
	time_t last_calc;
	bool dirty;                  /* recompute all at the next prio_update */
	/* Jobs that wait already when multifactor starts (at start, after a
	 * reconfigure from basic) accrue age from their eligible time, not
	 * from now: until the first recompute. */
	bool seed;
	/* the inputs shared by every job, as of the last recompute */
	bool ctx_valid;
	time_t ctx_time;
	struct prio_cluster cluster;
	struct part_tres *parts;     /* by index into core.parts */
	int nparts;
	double *fairshare;           /* by association ID (usage_fairshares) */
	uint32_t nfairshare;
} prio;

bool prio_multifactor(void)
{
	return prio.multifactor;
}

void prio_changed(void)
{
	prio.dirty = true;
	prio.ctx_valid = false;
}

static int check_type(const char *type, bool *multifactor)
{
	*multifactor = false;
	if (!type || !strcasecmp(type, "priority/basic"))
		return 0;   /* Slurm 22.05's default */
	if (!strcasecmp(type, "priority/multifactor")) {
		*multifactor = true;
		return 0;
	}
	return -1;
}

int prio_conf_check(const struct conf *conf, struct herd_error *err)
{
	bool mf;
	unsigned flags;
	double tw[PRIO_TRES_COUNT];
	char text[160];
	const char *type = conf_get(conf, "PriorityType");

	if (check_type(type, &mf) < 0)
		return errprintf(err, "%s: PriorityType=%s is not supported (priority/basic or "
				 "priority/multifactor)", conf->path, type);
	if (prio_flags_parse(conf_get(conf, "PriorityFlags"), &flags, text, sizeof(text)) < 0 ||
	    prio_tres_weights_parse(conf_get(conf, "PriorityWeightTRES"), tw, text,
				    sizeof(text)) < 0)
		return errprintf(err, "%s: %s", conf->path, text);
	return 0;
}

static uint32_t weight(const struct conf *conf, const char *key)
{
	long v = conf_get_int(conf, key, 0);
	return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Back to priority/basic (a reconfigure): every pending job's priority
 * as basic gives it, not the last multifactor one. */
static void basic_one(struct job *job, void *arg)
{
	free(job->prio);
	job->prio = NULL;
	if (job->state == JOB_PENDING)
		job->priority = job_priority(job);
}

void prio_setup(void)
{
	const struct conf *conf = core.conf;
	char text[160];
	bool was = prio.multifactor;

	if (check_type(conf_get(conf, "PriorityType"), &prio.multifactor) < 0)
		log_error("PriorityType=%s unknown: priority/basic", conf_get(conf, "PriorityType"));
	prio_weights_init(&prio.w);
	prio.w.age = weight(conf, "PriorityWeightAge");
	prio.w.assoc = weight(conf, "PriorityWeightAssoc");
	prio.w.fairshare = weight(conf, "PriorityWeightFairshare");
	prio.w.job_size = weight(conf, "PriorityWeightJobSize");
	prio.w.partition = weight(conf, "PriorityWeightPartition");
	prio.w.qos = weight(conf, "PriorityWeightQOS");
	prio.w.max_age = conf_get_time(conf, "PriorityMaxAge", PRIO_MAX_AGE_DEFAULT);
	if (prio.w.max_age < 0)
		prio.w.max_age = PRIO_MAX_AGE_DEFAULT;   /* UNLIMITED: as the default */
	prio.w.favor_small = conf_get_bool(conf, "PriorityFavorSmall", false);
	if (prio_flags_parse(conf_get(conf, "PriorityFlags"), &prio.w.flags, text,
			     sizeof(text)) < 0)
		log_error("%s", text);   /* prio_conf_check refuses it first */
	if (prio_tres_weights_parse(conf_get(conf, "PriorityWeightTRES"), prio.w.tres, text,
				    sizeof(text)) < 0)
		log_error("%s", text);
	prio.calc_period = conf_get_time(conf, "PriorityCalcPeriod", CALC_PERIOD_DEFAULT);
	if (prio.calc_period <= 0)
		prio.calc_period = CALC_PERIOD_DEFAULT;
	prio_changed();
	if (was && !prio.multifactor)
		job_foreach(basic_one, NULL);
	if (!was && prio.multifactor)
		prio.seed = true;
}

/* The inputs every job shares: the cluster's size, the highest partition
 * and QOS priorities, the partitions' TRES, everyone's fair-share. */
static void ctx_build(time_t now)
{
	struct prio_cluster *c = &prio.cluster;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < core.nnodes; i++) {
		c->nodes++;
		c->cpus += core.nodes[i].cpus;
	}
	free(prio.parts);
	prio.nparts = core.nparts;
	prio.parts = xmalloc((core.nparts + 1) * sizeof(*prio.parts));
	for (int p = 0; p < core.nparts; p++) {
		const struct part *part = &core.parts[p];
		struct part_tres *t = &prio.parts[p];
		if (!part->removed && part->conf &&
		    (uint32_t)part->conf->priority_job_factor > c->max_part_factor)
			c->max_part_factor = part->conf->priority_job_factor;
		for (int k = 0; k < part->nnodes; k++) {
			const struct node *n = &core.nodes[part->node_idx[k]];
			t->tres[PRIO_TRES_CPU] += n->cpus;
			t->tres[PRIO_TRES_MEM] += (double)n->real_memory;
			t->tres[PRIO_TRES_NODE] += 1;
		}
		t->tres[PRIO_TRES_BILLING] = t->tres[PRIO_TRES_CPU];
	}
	for (const struct acct_qos *q = accounting.qos; q; q = q->next)
		if (q->priority > c->max_qos_priority)
			c->max_qos_priority = q->priority;
	free(prio.fairshare);
	prio.fairshare = usage_fairshares(now, &prio.nfairshare);
	prio.ctx_valid = true;
	prio.ctx_time = now;
}

static double job_fairshare(const struct job *job)
{
	const char *account = job->account && *job->account ? job->account
							  : acct_default_account(job->user);
	if (!account || !job->user)
		return 0;
	const struct assoc *a = assoc_find(account, job->user, job->part ? job->part->name : NULL);
	if (!a || a->id >= prio.nfairshare || prio.fairshare[a->id] < 0)
		return 0;
	return prio.fairshare[a->id];
}

/* What the job asks, as limits.c counts it before it has nodes. */
static void job_request(const struct job *job, struct prio_job *pj)
{
	double nodes = job->req_nodes ? job->req_nodes : 1;
	double tasks = job->ntasks ? job->ntasks
		       : job->ntasks_per_node ? (double)job->ntasks_per_node * nodes : nodes;
	double cpus = tasks * (job->cpus_per_task ? job->cpus_per_task : 1);
	if (cpus < nodes)
		cpus = nodes;
	pj->nodes = (uint32_t)nodes;
	pj->cpus = (uint32_t)cpus;
	pj->tres[PRIO_TRES_CPU] = cpus;
	pj->tres[PRIO_TRES_MEM] = job->mem_per_cpu ? (double)job->mem_per_cpu * cpus
						   : (double)job->mem_mb * nodes;
	pj->tres[PRIO_TRES_NODE] = nodes;
	pj->tres[PRIO_TRES_BILLING] = cpus;
}

uint32_t prio_job(struct job *job, time_t now)
{
	struct prio_job pj = { 0 };
	struct prio_factors f;

	if (!prio.ctx_valid || now > prio.ctx_time + CTX_MAX_AGE)
		ctx_build(now);
	pj.submit_time = job->submit_time;
	/* Age accrues while the job may run: not held, no dependency left,
	 * its begin time reached (ACCRUE_ALWAYS: from submission anyway).
	 * A job is seen to become eligible (a dependency met, a release, its
	 * begin time) within a recompute: it accrues from then. */
	if (!job->hold_user && !job->hold_admin && !job->depend && job->eligible_time <= now) {
		if (!job->accrue_time)
			job->accrue_time = !prio.seed ? now : job->eligible_time ? job->eligible_time
										     : job->submit_time;
		pj.eligible_time = job->accrue_time;
	} else {
		job->accrue_time = 0;
	}
	job_request(job, &pj);
	pj.time_limit = job->time_limit;
	pj.fairshare = job_fairshare(job);
	if (job->part && job->part->conf)
		pj.part_factor = job->part->conf->priority_job_factor;
	int pi = job->part ? (int)(job->part - core.parts) : -1;
	if (pi >= 0 && pi < prio.nparts)
		memcpy(pj.part_tres, prio.parts[pi].tres, sizeof(pj.part_tres));
	const struct acct_qos *q = acct_qos_find(job->qos && *job->qos ? job->qos : "normal");
	pj.qos_priority = q ? q->priority : 0;
	pj.nice = job->nice;
	pj.held = job->hold_user || job->hold_admin;

	uint32_t p = prio_compute(&prio.w, &prio.cluster, &pj, now, &f);
	if ((prio.w.flags & PRIO_FLAG_INCR_ONLY) && job->prio && p < job->priority && !pj.held)
		p = job->priority;
	if (!job->prio)
		job->prio = xmalloc(sizeof(*job->prio));
	*job->prio = f;
	return p;
}

static void update_one(struct job *job, void *arg)
{
	time_t now = *(time_t *)arg;
	bool running = job->state == JOB_RUNNING || job->state == JOB_SUSPENDED;

	if (job->hold_user || job->hold_admin)
		job->accrue_time = 0;   /* a hold stops the age (counted again from the release) */
	if (job->prio_admin || job->hold_user || job->hold_admin)
		return;
	if (job->state != JOB_PENDING &&
	    !(running && (prio.w.flags & PRIO_FLAG_CALCULATE_RUNNING)))
		return;
	job->priority = prio_job(job, now);
}

void prio_update(time_t now)
{
	if (!prio.multifactor)
		return;
	if (!prio.dirty && prio.last_calc && now - prio.last_calc < prio.calc_period &&
	    now >= prio.last_calc)
		return;
	ctx_build(now);
	job_foreach(update_one, &now);
	prio.last_calc = now;
	prio.dirty = false;
	prio.seed = false;
}

/* PRIO_INFO (sprio) */

struct info {
	const json_t *ids, *users, *parts;
	uid_t uid;
	json_t *jobs;
};

static bool listed_int(const json_t *list, uint32_t id)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
		if ((uint32_t)json_integer_value(v) == id)
			return true;
	return false;
}

static bool listed_str(const json_t *list, const char *s)
{
	size_t i;
	json_t *v;
	if (!s)
		return false;
	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

static json_t *pair(double norm, double weighted)
{
	return json_pack("[f, f]", norm, weighted);
}

static void info_one(struct job *job, void *arg)
{
	struct info *in = arg;
	const struct prio_factors *f = job->prio;

	/* As Slurm's sprio: pending jobs with factors, not held (priority 0),
	 * not set by an administrator, past their begin time. */
	if (job->state != JOB_PENDING || !f || !job->priority || job->prio_admin ||
	    job->eligible_time > core_now())
		return;
	if (in->ids && !listed_int(in->ids, job->id) &&
	    !(job->array_job_id && listed_int(in->ids, job->array_job_id)))
		return;
	if (in->users && !listed_str(in->users, job->user))
		return;
	if (in->parts && !listed_str(in->parts, job->part ? job->part->name : NULL))
		return;
	if (!roles_may_see_job(in->uid, job))
		return;
	json_t *tres = json_array();
	for (int t = 0; t < PRIO_TRES_COUNT; t++)
		if (prio.w.tres[t] > 0)
			json_array_append_new(tres, json_pack("[s, f, f]", prio_tres_name(t),
							      f->tres[t], f->w_tres[t]));
	json_array_append_new(in->jobs, json_pack(
		"{s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"job_id", (json_int_t)job->id, "user", job->user ? job->user : "",
		"account", job->account ? job->account : "",
		"partition", job->part ? job->part->name : "",
		"qos", job->qos && *job->qos ? job->qos : "normal",
		"priority", (json_int_t)job->priority, "site", (json_int_t)f->site,
		"nice", (json_int_t)f->nice, "age", pair(f->age, f->w_age),
		"assoc", pair(f->assoc, f->w_assoc), "fairshare", pair(f->fairshare, f->w_fairshare),
		"job_size", pair(f->job_size, f->w_job_size),
		"part_prio", pair(f->partition, f->w_partition), "qos_prio", pair(f->qos, f->w_qos),
		"tres", tres));
}

static int by_job_id(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "job_id"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "job_id"));
	return x < y ? -1 : x > y;
}

json_t *prio_info(const json_t *body, uid_t uid)
{
	struct info in = { json_object_get(body, "job_ids"), json_object_get(body, "users"),
			   json_object_get(body, "partitions"), uid, json_array() };
	char tres[256] = "";
	struct prio_factors ones;

	prio_update(core_now());   /* nothing, unless a recompute is due */
	if (prio.multifactor)
		job_foreach(info_one, &in);
	/* sorted by job ID, as sprio prints them */
	size_t n = json_array_size(in.jobs);
	json_t **v = xmalloc((n + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(in.jobs, i));
	qsort(v, n, sizeof(*v), by_job_id);
	json_array_clear(in.jobs);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(in.jobs, v[i]);
	free(v);
	memset(&ones, 0, sizeof(ones));
	memcpy(ones.w_tres, prio.w.tres, sizeof(ones.w_tres));
	prio_tres_string(&prio.w, &ones, tres, sizeof(tres));
	return json_pack("{s:b, s:s, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:s}, s:o}",
			 "multifactor", prio.multifactor, "type",
			 prio.multifactor ? "priority/multifactor" : "priority/basic",
			 "weights", "age", (json_int_t)prio.w.age, "assoc", (json_int_t)prio.w.assoc,
			 "fairshare", (json_int_t)prio.w.fairshare,
			 "job_size", (json_int_t)prio.w.job_size,
			 "partition", (json_int_t)prio.w.partition, "qos", (json_int_t)prio.w.qos,
			 "tres", tres, "jobs", in.jobs);
}
