/* scontrol update job and requeue[hold]: UPDATE_JOB with action "update"
 * (fields checked all first, then applied together, so a refused request
 * changes nothing) and "requeue"/"requeuehold".  Each change is recorded as a
 * job event and committed before the reply (respond_durable). */
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

/* Slurm's range for Nice (NICE_OFFSET - 3 either way). */
#define NICE_MAX 2147483645LL

/* Larger means more time; UNLIMITED is the most. */
static bool limit_raised(int64_t old, int64_t new)
{
	if (new == TIME_INFINITE)
		return old != TIME_INFINITE;
	return old != TIME_INFINITE && new > old;
}

static int check_time_limit(const struct job *job, const json_t *v, bool admin)
{
	int64_t t = json_integer_value(v);
	const struct conf_part *pc = job->part->conf;

	if (t < TIME_INFINITE)
		return HERD_ERR_TIME_LIMIT;
	if (admin)
		return 0;
	/* As Slurm: a user may lower a limit, only an administrator raise it. */
	if (limit_raised(job->time_limit, t))
		return HERD_ERR_ACCESS;
	if (pc->max_time != TIME_INFINITE && (t == TIME_INFINITE || t > pc->max_time))
		return HERD_ERR_TIME_LIMIT;
	return 0;
}

/* Partition and node count change what the job needs: only while pending,
 * and only to something it could ever get. */
static int check_shape(struct job *job, const json_t *fields, struct herd_error *err)
{
	const json_t *pv = json_object_get(fields, "partition"), *nv = json_object_get(fields, "num_nodes");
	struct part *part = job->part;
	int64_t nodes = job->req_nodes;
	int rc;

	if (!pv && !nv)
		return 0;
	if (job->state != JOB_PENDING)
		return HERD_ERR_JOB_NOT_PENDING;
	if (pv && !(part = part_find(json_string_value(pv))))
		return HERD_ERR_INVALID_PARTITION;
	if (nv)
		nodes = json_integer_value(nv);
	if (nv && (nodes < 1 || nodes > 1000000))
		return HERD_ERR_INVALID_ARG;
	if (part->conf->max_nodes >= 0 && nodes > part->conf->max_nodes)
		return HERD_ERR_NODE_CONFIG;
	struct part *old_part = job->part;
	uint32_t old_nodes = job->req_nodes;
	int old_nparts = job->nparts;
	job->part = part;
	job->req_nodes = nodes;
	if (pv)
		job->nparts = 0;   /* Partition= replaces a -p a,b list */
	rc = sched_job_runnable(job, err);
	job->part = old_part;
	job->req_nodes = old_nodes;
	job->nparts = old_nparts;
	return rc;
}

/* Dependency and StartTime: pending jobs only, as Slurm. */
static int check_timing(const struct job *job, const json_t *fields)
{
	const json_t *dv = json_object_get(fields, "dependency"), *bv = json_object_get(fields, "begin_time");
	struct depend *d = NULL;
	int rc = 0;

	if (!dv && !bv)
		return 0;
	if (job->state != JOB_PENDING)
		return HERD_ERR_JOB_NOT_PENDING;
	if (bv && json_integer_value(bv) < 0)
		return HERD_ERR_INVALID_TIME;
	if (dv && (depend_parse(json_string_value(dv), &d, NULL) < 0 ||
		   depend_check_targets(d, NULL) < 0))
		rc = HERD_ERR_DEPENDENCY;
	for (size_t i = 0; !rc && d && i < d->n; i++)
		if (d->items[i].job_id == job->id)
			rc = HERD_ERR_DEPENDENCY;   /* on itself: never */
	depend_destroy(d);
	return rc;
}

int update_check_nice(long long nice, bool admin)
{
	if (nice < -NICE_MAX || nice > NICE_MAX)
		return HERD_ERR_INVALID_ARG;
	if (nice < 0 && !admin)
		return HERD_ERR_ACCESS;   /* only privileged users may raise priority */
	return 0;
}

static int check_fields(struct job *job, const json_t *fields, bool admin,
			struct herd_error *err)
{
	const json_t *v;
	int rc;

	if (!json_object_size(fields))
		return HERD_ERR_INVALID_ARG;
	if ((v = json_object_get(fields, "time_limit")) && (rc = check_time_limit(job, v, admin)))
		return rc;
	if ((v = json_object_get(fields, "nice")) &&
	    (rc = update_check_nice(json_integer_value(v), admin)))
		return rc;
	if ((rc = check_timing(job, fields)) != 0)
		return rc;
	return check_shape(job, fields, err);
}

static void set_str(char **dst, const json_t *v)
{
	const char *s = json_string_value(v);
	free(*dst);
	*dst = s && *s ? xstrdup(s) : NULL;
}

static void apply_fields(struct job *job, const json_t *fields)
{
	const json_t *v;

	if ((v = json_object_get(fields, "time_limit")))
		job->time_limit = json_integer_value(v);
	if ((v = json_object_get(fields, "partition"))) {
		job->part = part_find(json_string_value(v));
		free(job->partitions);
		job->partitions = NULL;
		job->nparts = 0;
	}
	if ((v = json_object_get(fields, "num_nodes")))
		job->req_nodes = json_integer_value(v);
	if ((v = json_object_get(fields, "name")))
		set_str(&job->name, v);
	if ((v = json_object_get(fields, "comment")))
		set_str(&job->comment, v);
	if ((v = json_object_get(fields, "nice"))) {
		job->nice = json_integer_value(v);
		job->priority = job_priority(job);
	}
	if ((v = json_object_get(fields, "dependency"))) {
		depend_destroy(job->depend);
		depend_parse(json_string_value(v), &job->depend, NULL);   /* checked */
		if (!job->hold_user && !job->hold_admin)
			job->reason = job->depend ? REASON_DEPENDENCY : REASON_NONE;
	}
	if ((v = json_object_get(fields, "begin_time"))) {
		time_t now = time(NULL), begin = json_integer_value(v);
		job->eligible_time = begin > now ? begin : now;
		if (!job->hold_user && !job->hold_admin && !job->depend)
			job->reason = begin > now ? REASON_BEGIN_TIME : REASON_NONE;
	}
}

static void record_event(const struct job *job, const char *event, uid_t uid, const json_t *what)
{
	char *text = what ? json_dumps(what, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *detail = xasprintf("uid=%u%s%s", (unsigned)uid, text ? " " : "", text ? text : "");
	store_job_event(job->id, event, detail);
	free(detail);
	free(text);
}

void update_job_fields(struct net_req *req, struct job *job, bool admin)
{
	json_t *fields = json_object_get(req->body, "fields");
	struct herd_error err = { "" };
	int rc;

	if (job_state_is_final(job->state) || job->state == JOB_COMPLETING) {
		net_respond(req, HERD_ERR_ALREADY_DONE, NULL, NULL);
		return;
	}
	if ((rc = check_fields(job, fields, admin, &err)) != 0) {
		net_respond(req, rc, NULL, *err.text ? err.text : NULL);
		return;
	}
	apply_fields(job, fields);
	record_event(job, "UPDATE", req->uid, fields);
	store_job_update(job);
	log_info("job %u updated by uid %u", job->id, (unsigned)req->uid);
	if (json_object_get(fields, "time_limit") && job->state == JOB_RUNNING)
		launch_time_limit(job);
	if (job->state == JOB_PENDING)
		sched_request();
	respond_durable(req, job->id, false);
}

/* A pending job is not requeued (Slurm: it is pending); requeuehold of one
 * only holds it. */
static int requeue_pending(struct job *job, bool hold)
{
	if (!hold)
		return HERD_ERR_JOB_PENDING;
	job->hold_user = true;
	job->priority = 0;
	job_set_state(job, JOB_PENDING, REASON_HELD_USER);
	return 0;
}

void update_requeue(struct net_req *req, struct job *job, bool hold)
{
	int rc = 0;

	if (job->state == JOB_COMPLETING || job->requeue_requested) {
		net_respond(req, HERD_ERR_ALREADY_DONE, NULL, NULL);   /* already on its way out */
		return;
	}
	if (!job->requeue && job->state != JOB_PENDING) {
		/* Slurm: a --no-requeue job (or JobRequeue=0) is not requeued */
		net_respond(req, HERD_ERR_DISABLED, NULL, NULL);
		return;
	}
	if (job->state == JOB_PENDING && (rc = requeue_pending(job, hold)) != 0) {
		net_respond(req, rc, NULL, NULL);
		return;
	}
	record_event(job, hold ? "REQUEUE_HOLD" : "REQUEUE", req->uid, NULL);
	if (job->state != JOB_PENDING) {
		job->requeue_requested = true;
		job->requeue_hold = hold;
		if (job_state_is_final(job->state) || job->launch == LAUNCH_NONE) {
			/* Nothing of it runs anywhere: queued again now. */
			job_requeue_finish(job);
		} else {
			/* Back to PENDING when the node reports the end (rpc.c). */
			job_set_state(job, JOB_COMPLETING, REASON_NONE);
			if (job->launch == LAUNCH_DONE)
				launch_terminate(job);   /* else launch_done sends it */
		}
	}
	respond_durable(req, job->id, false);
}
