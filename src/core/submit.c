/* A job from a submission: sbatch, salloc, srun's allocation, REST and (to
 * come) herd sim's trace lines all make their jobs here, checked the same
 * way.  The request's decoding and its reply are rpc.c's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/jobspec.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/text.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "common/tres_req.h"
#include "core/part_limits.h"
#include "core/prio.h"
#include "core/resv.h"
#include "core/taskopts.h"
#include "sched/feature.h"

/* Once its row is durable a job may be scheduled; a submission that never
 * reached the disk never happened. */
static void submitted(void *arg, bool ok)
{
	struct job *job = job_find((uint32_t)(uintptr_t)arg);

	if (!job || job->durable)
		return;
	if (!ok) {
		job_forget(job);
		return;
	}
	job->durable = true;
	if (job->state == JOB_PENDING && !job->hold_user && !job->hold_admin)
		sched_request();
}

/* sbatch --priority=N|TOP: the number, TOP the highest Slurm gives a job
 * (4294967293); -1 when not given, -2 when not a priority.  0 is as not
 * given: Slurm then computes the job's priority as usual. */
static int64_t spec_priority(const json_t *spec)
{
	const json_t *v = json_object_get(spec, "priority");
	const char *s = json_string_value(v);
	char *end;

	if (!v)
		return -1;
	if (json_is_integer(v))
		return json_integer_value(v) >= 0 && json_integer_value(v) <= 0xFFFFFFFEll
			       ? json_integer_value(v) : -2;
	if (!s)
		return -2;
	if (!strcasecmp(s, "TOP"))
		return 0xFFFFFFFDll;
	long long p = strtoll(s, &end, 10);
	return *s && !*end && p >= 0 && p <= 0xFFFFFFFEll ? p : -2;
}

/* The placement options (doc/scheduling.md): each in its range, else -1. */
static int placement_options(struct job *job, const json_t *spec)
{
	int64_t max = msg_int(spec, "max_nodes"), mincpus = msg_int(spec, "mincpus"),
		tmp = msg_int(spec, "tmp_mb"), spn = msg_int(spec, "sockets_per_node"),
		cps = msg_int(spec, "cores_per_socket"), tpc = msg_int(spec, "threads_per_core"),
		delay = msg_int(spec, "delay_boot");

	/* Slurm keeps these in 16 (S:C:T, --mincpus) and 32 bits */
	if (max < 0 || max > 1000000 || (max && max < job->req_nodes) || mincpus < 0 ||
	    mincpus > 0xFFFE || tmp < 0 || tmp > 0xFFFFFFFEll || spn < 0 || spn > 0xFFFE ||
	    cps < 0 || cps > 0xFFFE || tpc < 0 || tpc > 0xFFFE || delay < 0 || delay > 0xFFFFFFFEll)
		return -1;
	job->max_nodes = max > job->req_nodes ? max : 0;   /* 2-2 is exactly 2 */
	job->mincpus = mincpus;
	job->tmp_mb = tmp;
	job->sockets_per_node = spn;
	job->cores_per_socket = cps;
	job->threads_per_core = tpc;
	job->delay_boot = delay;
	job->oversubscribe = json_is_true(json_object_get(spec, "oversubscribe"));
	job->overcommit = json_is_true(json_object_get(spec, "overcommit"));
	job->spread_job = json_is_true(json_object_get(spec, "spread_job"));
	job->use_min_nodes = json_is_true(json_object_get(spec, "use_min_nodes"));
	job->no_kill = json_is_true(json_object_get(spec, "no_kill"));
	return 0;
}

/* --batch: each of its features (joined by & or ,) one the job's -C
 * names, as Slurm asks. */
static bool batch_features_ok(const char *batch, const char *constraint)
{
	static const char sep[] = "&,|[]()*: ";
	for (const char *p = batch; *p; ) {
		size_t n = strcspn(p, sep);
		bool found = n == 0;
		for (const char *q = constraint; !found && *q; ) {
			size_t m = strcspn(q, sep);
			found = m == n && !strncmp(p, q, n);
			q += m + (q[m] != '\0');
		}
		if (!found)
			return false;
		p += n + (p[n] != '\0');
	}
	return true;
}

int job_submit(const json_t *spec, const struct submitter *who, bool test_only,
	       struct job **out, struct herd_error *err)
{
	const char *pname = msg_str(spec, "partition");
	struct job *job;
	int rc;

	*out = NULL;
	err->text[0] = '\0';
	/* -p a,b: the job may run in any of them; it is checked in the first */
	bool multi = strchr(pname, ',') != NULL;
	char *first = xstrndup(pname, strcspn(pname, ","));
	struct part *part = *first ? part_find(first) : core.default_part;
	free(first);
	if (!part)
		return *pname ? HERD_ERR_INVALID_PARTITION : HERD_ERR_DEFAULT_PARTITION;
	int64_t nodes = msg_int(spec, "nodes"), ntasks = msg_int(spec, "ntasks"),
		cpt = msg_int(spec, "cpus_per_task"), mem = msg_int(spec, "mem_mb"),
		limit = msg_int(spec, "time_limit"), mpc = msg_int(spec, "mem_per_cpu"),
		tpn = msg_int(spec, "ntasks_per_node"), nice = msg_int(spec, "nice"),
		sig = msg_int(spec, "signal"), sig_time = msg_int(spec, "signal_time");
	json_t *tmin = json_object_get(spec, "time_min");
	const char *mail_type = msg_str(spec, "mail_type"), *open_mode = msg_str(spec, "open_mode");
	unsigned mail = 0;
	/* the keys' bounds: common/jobspec.c, the table the commands encode by */
	if (jobspec_check(spec, err) < 0 || (mpc && mem) ||
	    (mail_type && parse_mail_type(mail_type, &mail) < 0) ||
	    (open_mode && strcmp(open_mode, "append") && strcmp(open_mode, "truncate"))) {
		err->text[0] = '\0';   /* Slurm's sentence for the code */
		return HERD_ERR_INVALID_ARG;
	}
	const char *batch = msg_str_or(spec, "batch_features");
	if (!batch_features_ok(batch, msg_str_or(spec, "constraint")) ||
	    (*batch && feature_check(batch, sched_known_features()) < 0)) {
		errprintf(err, "Job --batch option is invalid or not a subset of --constraints");
		return HERD_ERR_INVALID_ARG;
	}
	if (job_text_check(spec, err) < 0)   /* names, comment, --mail-user */
		return HERD_ERR_INVALID_ARG;
	int64_t priority = spec_priority(spec);
	if (priority == -2)
		return HERD_ERR_INVALID_ARG;
	/* --priority: operators and administrators only (Slurm refuses it
	 * as a permission error) */
	if (priority > 0 && !acct_is_operator(who->uid))
		return HERD_ERR_ACCESS;
	if (limit > TIME_LIMIT_MAX || (tmin && json_integer_value(tmin) > TIME_LIMIT_MAX))
		return HERD_ERR_TIME_LIMIT;   /* start + limit must not wrap */
	if ((rc = update_check_nice(nice, core_is_admin(who->uid))) != 0) {
		/* Slurm 22.05 refuses an unprivileged negative --nice at submission
		 * as an invalid value, not as a permission error. */
		return rc == HERD_ERR_ACCESS ? HERD_ERR_INVALID_NICE : rc;
	}
	bool alloc_only = json_is_true(json_object_get(spec, "alloc"));
	if (!*msg_str(spec, "script") && !alloc_only) {
		errprintf(err, "Batch script is empty!");
		return HERD_ERR_INVALID_ARG;
	}
	if (alloc_only && (*msg_str(spec, "script") || *msg_str_or(spec, "array")))
		return HERD_ERR_INVALID_ARG;   /* salloc runs no script, no array */
	job = xmalloc(sizeof(*job));
	job->alloc_only = alloc_only;
	job->uid = who->uid;
	job->gid = who->gid;
	job->user = xstrdup(names_user(who->uid));
	job->name = xstrdup(msg_str(spec, "name"));
	job->part = part;
	/* Slurm keeps account and QOS names in lower case: -A TeamA is teama */
	job->account = *msg_str(spec, "account") ? text_lower(msg_str(spec, "account")) : NULL;
	job->comment = *msg_str(spec, "comment") ? xstrdup(msg_str(spec, "comment")) : NULL;
	/* --container: the bundle as given; herdstepd checks it on the node */
	const char *bundle = json_string_value(json_object_get(spec, "container"));
	job->container = bundle && *bundle ? xstrdup(bundle) : NULL;
	job->work_dir = xstrdup(msg_str(spec, "cwd"));
	job->submit_host = xstrdup(msg_str(spec, "submit_host"));
	job->origin = who->origin;
	job->key = who->key && *who->key ? xstrdup(who->key) : NULL;
	job->req_nodes = nodes;
	job->ntasks = ntasks;
	job->cpus_per_task = cpt;
	job->mem_mb = mem;
	job->exclusive = json_is_true(json_object_get(spec, "exclusive"));
	/* --exclusive=user: nodes shared only with the user's own jobs (as a
	 * partition's ExclusiveUser=YES); "mcs" without an MCS plugin stays
	 * whole nodes */
	if (job->exclusive && !strcasecmp(msg_str_or(spec, "exclusive_mode"), "user")) {
		job->exclusive = false;
		job->exclusive_user = true;
	}
	if (placement_options(job, spec) < 0) {
		rc = HERD_ERR_INVALID_ARG;
		goto refuse;
	}
	if ((rc = job_gres_set(job, spec, err)) != 0)   /* after -B: --gpus-per-socket */
		goto refuse;
	job->hold_user = json_is_true(json_object_get(spec, "hold"));
	job->nice = nice;
	json_t *rq = json_object_get(spec, "requeue");
	job->requeue = rq ? json_is_true(rq) : core.job_requeue;
	job->mail_type = mail;
	job->mail_user = xstrdup(*msg_str_or(spec, "mail_user") ? msg_str_or(spec, "mail_user") : job->user);
	job->mem_per_cpu = mpc;
	job->ntasks_per_node = tpn;
	job->open_append = open_mode && !strcmp(open_mode, "append");
	job->time_min = tmin ? json_integer_value(tmin) : TIME_NOT_GIVEN;
	job->signal = sig;
	job->signal_time = sig ? sig_time : 0;
	job->signal_batch = sig && !strcmp(msg_str_or(spec, "signal_flags"), "B");
	job->qos = *msg_str_or(spec, "qos") ? text_lower(msg_str_or(spec, "qos")) : NULL;
	job->features = *msg_str_or(spec, "constraint") ? xstrdup(msg_str_or(spec, "constraint")) : NULL;
	job->batch_features = *batch ? xstrdup(batch) : NULL;
	job->req_nodelist = *msg_str_or(spec, "req_nodelist") ? xstrdup(msg_str_or(spec, "req_nodelist")) : NULL;
	job->exc_nodelist = *msg_str_or(spec, "exc_nodelist") ? xstrdup(msg_str_or(spec, "exc_nodelist")) : NULL;
	job->partitions = multi ? xstrdup(pname) : NULL;
	if ((rc = job_check_placement(job, err)) != 0)
		goto refuse;
	if ((rc = taskopts_check_submit(spec, job, err)) != 0)   /* -m, --hint, --mem-bind ... */
		goto refuse;
	job->reservation = *msg_str_or(spec, "reservation") ? xstrdup(msg_str_or(spec, "reservation")) : NULL;
	if ((rc = resv_check_job(job, err)) != 0)   /* --reservation: known, and open to the job */
		goto refuse;
	/* -L: Licenses= has them all, and as many */
	if ((rc = licenses_job_set(job, msg_str_or(spec, "licenses"), err)) != 0)
		goto refuse;
	if (job->nparts)
		job->part = job->parts[0];
	job->time_limit = limit;   /* TIME_NOT_GIVEN: a default below, after the limits' */
	if ((rc = sched_job_runnable(job, err)) != 0)
		goto refuse;
	const char *array = msg_str(spec, "array");
	if (array && *array && (rc = array_setup(job, array)) != 0) {
		errprintf(err, "%s", herd_strerror(rc));
		goto refuse;
	}
	/* A spec that does not parse, or names a job that never existed, is
	 * refused and nothing is made (Slurm: "Job dependency problem"). */
	const char *dep = msg_str(spec, "dependency");
	if (depend_parse(dep ? dep : "", &job->depend, err) < 0 ||
	    depend_check_targets(job->depend, err) < 0) {
		log_info("submission from uid %u refused: %s", (unsigned)who->uid, err->text);
		rc = HERD_ERR_DEPENDENCY;
		errprintf(err, "%s", herd_strerror(rc));
		goto refuse;
	}
	json_t *kill = json_object_get(spec, "kill_on_invalid_dep");
	job->kill_invalid_dep = kill ? json_is_true(kill) : -1;
	int64_t begin = msg_int(spec, "begin_time"), deadline = msg_int(spec, "deadline");
	if (begin < 0 || deadline < 0 || begin > TIMESTAMP_MAX || deadline > TIMESTAMP_MAX) {
		rc = HERD_ERR_INVALID_TIME;
		errprintf(err, "%s", herd_strerror(rc));
		goto refuse;
	}
	job->deadline = deadline;
	/* AccountingStorageEnforce: association, QOS, submit limits; the
	 * default account and QOS; MaxWall as the limit of a job without --time */
	if ((rc = limits_check_submit(job, err)) != 0)
		goto refuse;
	/* TrackWCKey: --wckey checked (AccountingStorageEnforce=wckeys), or the default */
	if ((rc = wckey_job_submit(job, msg_str_or(spec, "wckey"), err)) != 0)
		goto refuse;
	if (job->time_limit == TIME_NOT_GIVEN)
		job->time_limit = part->conf->default_time != TIME_INFINITE ? part->conf->default_time
									    : part->conf->max_time;
	/* partition limits: AllowGroups, and what EnforcePartLimits refuses */
	if ((rc = part_limits_submit(job, err)) != 0)
		goto refuse;
	if (test_only) {
		*out = job;
		return 0;
	}
	job->id = core.next_job_id++;
	/* A script given by path shows as its path; --wrap and stdin as "(null)". */
	const char *cmd = msg_str(spec, "command");
	job->command = cmd && *cmd ? xstrdup(cmd) : NULL;
	if (job->array_pending)
		job->array_job_id = job->id;
	job_set_output_paths(job, spec);
	job->submit_time = job->eligible_time = core_now();
	if (begin > job->submit_time)
		job->eligible_time = begin;   /* --begin: BeginTime until then */
	if (priority > 0)
		job->prio_admin = (uint32_t)priority;   /* kept as set, as scontrol update's */
	job->priority = job_priority(job);
	job->state = JOB_PENDING;
	job->reason = job->hold_user ? REASON_HELD_USER : job->depend ? REASON_DEPENDENCY
		      : job->eligible_time > job->submit_time ? REASON_BEGIN_TIME : REASON_NONE;
	job_table_add(job);
	limits_job_submitted(job);
	store_job_insert(job, json_incref((json_t *)spec));   /* the row itself records the submission */
	store_after_commit(submitted, (void *)(uintptr_t)job->id);
	*out = job;
	return 0;
refuse:
	job_destroy(job);
	return rc;
}

