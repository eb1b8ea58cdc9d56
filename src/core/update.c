/* scontrol update job and requeue[hold]: UPDATE_JOB with action "update"
 * (fields checked all first, then applied together, so a refused request
 * changes nothing) and "requeue"/"requeuehold".  Each change is recorded as a
 * job event and committed before the reply (respond_durable). */
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/text.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "core/part_limits.h"
#include "core/resv.h"

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

/* As Slurm: what the job needs, where and when it may run, and what it is
 * charged to change only while it is pending. */
static const char *const pending_only[] = {
	"partition", "num_nodes", "num_tasks", "cpus_per_task", "min_mem_node", "min_mem_cpu",
	"max_nodes", "min_tmp_disk", "mincpus", "oversubscribe", "delay_boot",
	"features", "req_nodelist", "exc_nodelist", "account", "qos", "time_min", "deadline",
	"dependency", "begin_time", "reservation", "wckey", NULL
};

/* Of those, the ones that change where the job can run. */
static const char *const shape_keys[] = {
	"partition", "num_nodes", "num_tasks", "cpus_per_task", "min_mem_node", "min_mem_cpu",
	"max_nodes", "min_tmp_disk", "mincpus",
	"features", "req_nodelist", "exc_nodelist", NULL
};

static bool has_any(const json_t *fields, const char *const *keys)
{
	for (; *keys; keys++)
		if (json_object_get(fields, *keys))
			return true;
	return false;
}

static int64_t int_field(const json_t *fields, const char *key, int64_t dflt)
{
	const json_t *v = json_object_get(fields, key);
	return v ? json_integer_value(v) : dflt;
}

/* Values that are wrong whatever the job. */
static int check_values(const struct job *job, const json_t *fields)
{
	const json_t *v;
	unsigned mail;

	if (int_field(fields, "begin_time", 0) < 0 || int_field(fields, "deadline", 0) < 0 ||
	    int_field(fields, "begin_time", 0) > TIMESTAMP_MAX ||
	    int_field(fields, "deadline", 0) > TIMESTAMP_MAX)
		return HERD_ERR_INVALID_TIME;
	if (int_field(fields, "num_nodes", 1) < 1 || int_field(fields, "num_nodes", 1) > 1000000 ||
	    int_field(fields, "num_tasks", 1) < 1 || int_field(fields, "num_tasks", 1) > 100000000 ||
	    int_field(fields, "cpus_per_task", 1) < 1 ||
	    int_field(fields, "cpus_per_task", 1) > 1000000 ||
	    int_field(fields, "min_mem_node", 0) < 0 || int_field(fields, "min_mem_cpu", 0) < 0 ||
	    int_field(fields, "max_nodes", 0) < 0 || int_field(fields, "max_nodes", 0) > 1000000 ||
	    (int_field(fields, "max_nodes", 0) &&
	     int_field(fields, "max_nodes", 0) < int_field(fields, "num_nodes", job->req_nodes)) ||
	    int_field(fields, "min_tmp_disk", 0) < 0 ||
	    int_field(fields, "min_tmp_disk", 0) > 0xFFFFFFFEll ||
	    int_field(fields, "mincpus", 0) < 0 || int_field(fields, "mincpus", 0) > 0xFFFE ||
	    int_field(fields, "delay_boot", 0) < 0 ||
	    int_field(fields, "delay_boot", 0) > 0xFFFFFFFEll ||
	    int_field(fields, "array_throttle", 0) < 0 ||
	    int_field(fields, "array_throttle", 0) > UINT32_MAX)
		return HERD_ERR_INVALID_ARG;
	/* Slurm: MinMemoryNode or MinMemoryCPU, not both */
	if (json_object_get(fields, "min_mem_node") && json_object_get(fields, "min_mem_cpu"))
		return HERD_ERR_INVALID_ARG;
	v = json_object_get(fields, "mail_type");
	if (v && parse_mail_type(json_string_value(v), &mail) < 0)
		return HERD_ERR_INVALID_ARG;
	if (json_object_get(fields, "array_throttle") && !job->array_job_id)
		return HERD_ERR_INVALID_ARRAY;   /* not an array */
	/* TimeMin: at most the time limit (the new one, when both change) */
	int64_t tmin = int_field(fields, "time_min", 0);
	int64_t limit = int_field(fields, "time_limit", job->time_limit);
	if (json_object_get(fields, "time_limit") && (limit < TIME_INFINITE || limit > TIME_LIMIT_MAX))
		return HERD_ERR_TIME_LIMIT;   /* a start time plus it must not overflow */
	if (tmin < 0 || tmin > TIME_LIMIT_MAX || (tmin && limit != TIME_INFINITE && tmin > limit))
		return HERD_ERR_TIME_LIMIT;
	return 0;
}

static int apply_fields(struct job *job, const json_t *fields, struct herd_error *err);

/* The job as it would be: checked as a submission is (nodes, features,
 * partition size, whether it could ever run), on a copy. */
static int check_shape(const struct job *job, const json_t *fields, struct herd_error *err)
{
	struct job *t;
	int rc;

	if (!has_any(fields, shape_keys))
		return 0;
	t = job_copy(job);
	rc = apply_fields(t, fields, err);
	if (!rc)
		rc = part_limits_submit(t, err);   /* partition limits */
	if (!rc)
		rc = sched_job_runnable(t, err);
	job_destroy(t);
	return rc;
}

static int check_dependency(const struct job *job, const json_t *fields)
{
	const json_t *dv = json_object_get(fields, "dependency");
	struct depend *d = NULL;
	int rc = 0;

	if (!dv)
		return 0;
	if (depend_parse(json_string_value(dv), &d, NULL) < 0 || depend_check_targets(d, NULL) < 0)
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

static void set_str(char **dst, const json_t *v);

static int check_fields(struct job *job, const json_t *fields, bool admin,
			struct herd_error *err)
{
	const json_t *v;
	int rc;

	if (!json_object_size(fields))
		return HERD_ERR_INVALID_ARG;
	if (job_text_check(fields, err) < 0)   /* Name=, Comment=, MailUser=, ... */
		return HERD_ERR_INVALID_ARG;
	if (job->state != JOB_PENDING &&
	    (json_object_get(fields, "num_nodes") || json_object_get(fields, "max_nodes")))
		return HERD_ERR_NOT_SUPPORTED;   /* Slurm: no resizing of a running job */
	if (job->state != JOB_PENDING && has_any(fields, pending_only))
		return HERD_ERR_JOB_NOT_PENDING;
	if ((v = json_object_get(fields, "time_limit")) && (rc = check_time_limit(job, v, admin)))
		return rc;
	if ((v = json_object_get(fields, "nice")) &&
	    (rc = update_check_nice(json_integer_value(v), admin)))
		return rc;
	if ((v = json_object_get(fields, "priority"))) {
		json_int_t p = json_integer_value(v);
		if (p < 0 || p > 0xFFFFFFFEll)
			return HERD_ERR_INVALID_ARG;
		if (!admin && p > job->priority)
			return HERD_ERR_ACCESS;   /* as Slurm: a user may only lower it */
	}
	if ((rc = check_values(job, fields)) != 0 || (rc = check_dependency(job, fields)) != 0)
		return rc;
	if ((v = json_object_get(fields, "licenses"))) {
		/* Licenses=: a running job's only by an administrator, as Slurm */
		if (job->state != JOB_PENDING && !admin)
			return HERD_ERR_JOB_NOT_PENDING;
		if (!json_is_string(v))
			return HERD_ERR_INVALID_ARG;
		if ((rc = licenses_check(json_string_value(v), err)) != 0)
			return rc;
	}
	if ((v = json_object_get(fields, "reservation")) && *json_string_value(v)) {
		/* Reservation=: one the job's user may use (resv.c); "" leaves it */
		struct job *t = job_copy(job);
		set_str(&t->reservation, v);
		rc = resv_check_job(t, err);
		job_destroy(t);
		if (rc)
			return rc;
	}
	return check_shape(job, fields, err);
}

static void set_str(char **dst, const json_t *v)
{
	const char *s = json_string_value(v);
	free(*dst);
	*dst = s && *s ? xstrdup(s) : NULL;
}

/* The fields into the job (a copy of it, when checking); 0, or the rc of
 * resolving its new node lists and partitions. */
static int apply_fields(struct job *job, const json_t *fields, struct herd_error *err)
{
	const json_t *v;

	if ((v = json_object_get(fields, "time_limit")))
		job->time_limit = json_integer_value(v);
	if ((v = json_object_get(fields, "partition"))) {
		struct part *part = part_find(json_string_value(v));
		if (!part)
			return HERD_ERR_INVALID_PARTITION;   /* the copy only: checked */
		job->part = part;
		free(job->partitions);
		job->partitions = NULL;   /* Partition= replaces a -p a,b list */
	}
	if ((v = json_object_get(fields, "num_nodes")))
		job->req_nodes = json_integer_value(v);
	if ((v = json_object_get(fields, "max_nodes")))   /* NumNodes=min-max */
		job->max_nodes = json_integer_value(v) > job->req_nodes ? json_integer_value(v) : 0;
	else if (job->max_nodes && job->max_nodes <= job->req_nodes)
		job->max_nodes = 0;
	if ((v = json_object_get(fields, "min_tmp_disk")))
		job->tmp_mb = json_integer_value(v);
	if ((v = json_object_get(fields, "mincpus")))
		job->mincpus = json_integer_value(v);
	if ((v = json_object_get(fields, "oversubscribe")))
		job->oversubscribe = json_is_true(v);
	if ((v = json_object_get(fields, "delay_boot")))
		job->delay_boot = json_integer_value(v);
	if ((v = json_object_get(fields, "num_tasks")))
		job->ntasks = json_integer_value(v);
	if ((v = json_object_get(fields, "cpus_per_task")))
		job->cpus_per_task = json_integer_value(v);
	if ((v = json_object_get(fields, "min_mem_node"))) {
		job->mem_mb = json_integer_value(v);
		job->mem_per_cpu = 0;
	}
	if ((v = json_object_get(fields, "min_mem_cpu"))) {
		job->mem_per_cpu = json_integer_value(v);
		job->mem_mb = 0;
	}
	if ((v = json_object_get(fields, "name")))
		set_str(&job->name, v);
	if ((v = json_object_get(fields, "comment")))
		set_str(&job->comment, v);
	if ((v = json_object_get(fields, "account")))
		set_str(&job->account, v);
	if ((v = json_object_get(fields, "qos")))
		set_str(&job->qos, v);   /* as given; "" is the default, normal */
	if ((v = json_object_get(fields, "mail_user"))) {
		set_str(&job->mail_user, v);
		if (!job->mail_user && job->user)
			job->mail_user = xstrdup(job->user);   /* "" is the default: the user */
	}
	if ((v = json_object_get(fields, "mail_type")))
		parse_mail_type(json_string_value(v), &job->mail_type);   /* checked */
	if ((v = json_object_get(fields, "requeue")))
		job->requeue = json_is_true(v);
	if ((v = json_object_get(fields, "time_min")))   /* Slurm: 0 is none */
		job->time_min = json_integer_value(v) ? json_integer_value(v) : TIME_NOT_GIVEN;
	if ((v = json_object_get(fields, "deadline")))
		job->deadline = json_integer_value(v);
	if ((v = json_object_get(fields, "array_throttle")))
		job->array_throttle = json_integer_value(v);
	if ((v = json_object_get(fields, "features")))
		set_str(&job->features, v);
	if ((v = json_object_get(fields, "reservation")))
		set_str(&job->reservation, v);
	if ((v = json_object_get(fields, "req_nodelist")))
		set_str(&job->req_nodelist, v);
	if ((v = json_object_get(fields, "exc_nodelist")))
		set_str(&job->exc_nodelist, v);
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
		time_t now = core_now(), begin = json_integer_value(v);
		job->eligible_time = begin > now ? begin : now;
		if (!job->hold_user && !job->hold_admin && !job->depend)
			job->reason = begin > now ? REASON_BEGIN_TIME : REASON_NONE;
	}
	if (!has_any(fields, shape_keys))
		return 0;
	int rc = job_check_placement(job, err);
	if (!rc && job->nparts)
		job->part = job->parts[0];
	return rc;
}

static void record_event(const struct job *job, const char *event, uid_t uid, const json_t *what)
{
	char *text = what ? json_dumps(what, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *detail = xasprintf("uid=%u%s%s", (unsigned)uid, text ? " " : "", text ? text : "");
	store_job_event(job->id, event, detail);
	free(detail);
	free(text);
}

/* A team member (TeamJobs) may shorten the time limit and nothing else. */
static int check_team(const struct job *job, const json_t *fields)
{
	const json_t *v = json_object_get(fields, "time_limit");
	if (json_object_size(fields) != 1 || !v)
		return HERD_ERR_ACCESS;
	int64_t t = json_integer_value(v);
	if (t < 0 || (job->time_limit != TIME_INFINITE && t >= job->time_limit))
		return HERD_ERR_ACCESS;   /* never longer (nor the same, nor UNLIMITED) */
	return 0;
}

/* Account, QOS or partition changed on a pending job: checked as a
 * submission is (AccountingStorageEnforce), on a copy, with the job's own
 * counts out of the way; 0, or an rc with err.  On success the defaults
 * filled in (account, QOS) go to the job too. */
static int check_accounting(struct job *job, const json_t *fields, struct herd_error *err)
{
	static const char *const keys[] = { "account", "qos", "partition", NULL };
	int rc;

	if (!has_any(fields, keys))
		return 0;
	struct job *t = job_copy(job);
	limits_job_ended(job, false);
	rc = apply_fields(t, fields, err);
	if (!rc)
		rc = limits_check_submit(t, err);
	if (!rc)
		rc = part_limits_submit(t, err);   /* partition limits */
	if (!rc) {
		free(job->account);
		free(job->qos);
		job->account = t->account ? xstrdup(t->account) : NULL;
		job->qos = t->qos ? xstrdup(t->qos) : NULL;
	}
	t->lim_counted = false;
	job_destroy(t);
	return rc;
}

/* scontrol update Priority=: fixed from now on (prio_admin), as Slurm
 * keeps a priority set this way; 0 holds the job. */
static void set_priority(struct job *job, uint32_t p, bool admin)
{
	if (!p) {
		job->prio_admin = 0;
		if (admin)
			job->hold_admin = true;
		else
			job->hold_user = true;
		job->priority = 0;
		if (job->state == JOB_PENDING)
			job_set_state(job, JOB_PENDING,
				      job->hold_admin ? REASON_HELD_ADMIN : REASON_HELD_USER);
		return;
	}
	job->prio_admin = p;
	job->priority = job_priority(job);
}

/* Slurm keeps account and QOS names in lower case: Account=TeamA is teama. */
static void lower_names(json_t *fields)
{
	static const char *const keys[] = { "account", "qos" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = json_string_value(json_object_get(fields, keys[i]));
		if (!v)
			continue;
		char *l = text_lower(v);
		json_object_set_new(fields, keys[i], json_string(l));
		free(l);
	}
}

int update_job_fields(struct job *job, json_t *fields, uid_t uid, bool admin, bool team,
		      struct herd_error *err)
{
	int rc;

	if (job_state_is_final(job->state) || job->state == JOB_COMPLETING)
		return HERD_ERR_JOB_FINISHED;
	if (team && (rc = check_team(job, fields)) != 0)
		return rc;
	if ((rc = check_fields(job, fields, admin, err)) != 0)
		return rc;
	lower_names(fields);
	/* WCKey= (TrackWCKey): checked as Slurm does (acct/wckey.c), set below */
	char *wckey = NULL;
	uint32_t wckey_id = 0;
	const json_t *wv = json_object_get(fields, "wckey");
	bool wckey_given = wv != NULL;
	if (wckey_given &&
	    (rc = wckey_job_update(job, json_string_value(wv), &wckey, &wckey_id, err)) != 0)
		return rc;
	if (job->state == JOB_PENDING && (rc = check_accounting(job, fields, err)) != 0) {
		limits_job_submitted(job);   /* counted again as it was */
		free(wckey);
		return rc;
	}
	if (team) {
		char was[32], now[32], detail[80];
		snprintf(detail, sizeof(detail), "TimeLimit=%s->%s",
			 fmt_time_limit(job->time_limit, was, sizeof(was)),
			 fmt_time_limit(json_integer_value(json_object_get(fields, "time_limit")), now,
					sizeof(now)));
		roles_record(job, uid, JOB_ACT_TIME_LIMIT, detail);
	}
	apply_fields(job, fields, err);   /* checked: cannot fail */
	if (wckey_given) {
		free(job->wckey);
		job->wckey = wckey;
		job->wckey_id = wckey_id;
	}
	if (json_object_get(fields, "licenses"))   /* checked; a running job's change is taken now */
		licenses_job_set(job, json_string_value(json_object_get(fields, "licenses")), err);
	if (job->state == JOB_PENDING)
		limits_job_submitted(job);   /* under its (maybe new) association and QOS */
	if (json_object_get(fields, "priority"))
		set_priority(job, json_integer_value(json_object_get(fields, "priority")), admin);
	else if (job->state == JOB_PENDING)
		job->priority = job_priority(job);   /* nice, QOS, partition, size may have changed */
	record_event(job, "UPDATE", uid, fields);
	job_changed(job);
	log_info("job %u updated by uid %u", job->id, (unsigned)uid);
	if (json_object_get(fields, "time_limit") && job->state == JOB_RUNNING)
		core_time_limit(job);
	if (job->state == JOB_PENDING)
		sched_request();
	return 0;
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

int update_requeue(struct job *job, uid_t uid, bool hold, bool team)
{
	int rc = 0;

	if (job->state == JOB_COMPLETING || job->requeue_requested) {
		return HERD_ERR_ALREADY_DONE;   /* already on its way out */
	}
	if (!job->requeue && job->state != JOB_PENDING) {
		/* Slurm: a --no-requeue job (or JobRequeue=0) is not requeued */
		return HERD_ERR_DISABLED;
	}
	if (job->state == JOB_PENDING && (rc = requeue_pending(job, hold)) != 0) {
		return rc;
	}
	if (team)
		roles_record(job, uid, JOB_ACT_REQUEUE, hold ? "hold" : NULL);
	record_event(job, hold ? "REQUEUE_HOLD" : "REQUEUE", uid, NULL);
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
				core_terminate(job);   /* else launch_done sends it */
		}
	}
	return 0;
}
