/* scontrol update (of jobs and nodes; reservations are scontrol_resv.c's)
 * and the job actions hold, uhold, release, requeue, requeuehold, suspend,
 * resume: the arguments checked as Slurm's scontrol checks them, then one
 * UPDATE_JOB or UPDATE_NODE call each.  The controller decides the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/scontrol.h"
#include "cmd/scontrol_resv.h"
#include "common/bitmap.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/xmalloc.h"

/* A het job's component "L+N": its own ID in *id (1); 0 when s is none;
 * -1 when malformed. */
static int het_id_arg(const char *s, long *id)
{
	long leader, offset;
	int het = cmd_het_id_parse(s, &leader, &offset);
	if (het > 0)
		*id = leader + offset;
	return het;
}

/* "N", a het job's component "L+N", or one array task "A_T" (task -1 for
 * N); -1 when malformed. */
static int job_id_arg(const char *s, long *id, long long *task)
{
	struct bitmap *tasks;
	int het = het_id_arg(s, id);
	*task = -1;
	if (het)
		return het > 0 ? 0 : -1;
	if (cmd_job_id_parse(s, id, &tasks) < 0)
		return -1;
	*task = tasks ? (long long)bitmap_next(tasks, 0) : -1;
	bool one = !tasks || bitmap_count(tasks) == 1;
	bitmap_destroy(tasks);
	return one ? 0 : -1;
}

/* The most tasks one "hold A_[...]" names: one call each. */
#define HOLD_TASKS_MAX 100000

/* hold/uhold/release/requeue of one ID as typed ("A", "A_3", "A_[1-2]":
 * each task of the range, as Slurm does); 0 or an rc, err filled. */
static int update_one_id(struct scontrol *sc, const char *action, const char *arg,
			 struct herd_error *err)
{
	struct bitmap *tasks;
	long id;
	int rc = 0;

	int het = het_id_arg(arg, &id);
	tasks = NULL;
	if (het < 0 || (!het && cmd_job_id_parse(arg, &id, &tasks) < 0) ||
	    (tasks && (!bitmap_count(tasks) || bitmap_count(tasks) > HOLD_TASKS_MAX))) {
		bitmap_destroy(tasks);
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_JOB));
		return HERD_ERR_INVALID_JOB;
	}
	uint32_t t = tasks ? bitmap_next(tasks, 0) : BITMAP_NONE;
	do {
		json_t *reply = NULL;
		json_t *body = json_pack("{s:I, s:s}", "job_id", (json_int_t)id, "action", action);
		if (t != BITMAP_NONE)
			json_object_set_new(body, "array_task", json_integer(t));
		int one = cmd_call(&sc->client, MSG_UPDATE_JOB, body, &reply, err);
		json_decref(body);
		json_decref(reply);
		if (one)
			rc = one;   /* the others are still tried */
		t = t == BITMAP_NONE ? t : bitmap_next(tasks, t + 1);
	} while (t != BITMAP_NONE);
	bitmap_destroy(tasks);
	return rc;
}

int scontrol_job_action(struct scontrol *sc, const char *action, int argc, char **argv)
{
	if (scontrol_client(sc) < 0)
		return 1;
	int status = 0;
	for (int a = 0; a < argc; a++) {
		size_t n;
		/* "scontrol hold 1,2 3": ids by commas or words. */
		char **ids = cmd_job_ids_split(argv[a], &n);
		for (size_t i = 0; i < n; i++) {
			struct herd_error err = { "" };
			if (update_one_id(sc, action, ids[i], &err) != 0) {
				/* Slurm names the job, then the call that failed. */
				fprintf(stderr, "%s for job %s\n", err.text, ids[i]);
				fprintf(stderr, "%s error: %s\n", strncmp(action, "requeue", 7) ?
					"slurm_suspend" : "slurm_requeue", err.text);
				status = 1;
			}
		}
		opt_strv_free(ids);
	}
	return status;
}

/* "Key=value" against a key: the value, or NULL. */
static const char *kv_value(const char *arg, const char *key)
{
	size_t n = strlen(key);
	return !strncasecmp(arg, key, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

/* job: the ID as typed, for Slurm's "... for job N" (NULL: none). */
static int update_call(struct scontrol *sc, int type, json_t *body, const char *job)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	int rc = scontrol_client(sc) < 0 ? -1 : cmd_call(&sc->client, type, body, &reply, &err);
	json_decref(body);
	json_decref(reply);
	if (rc > 0 && job)
		fprintf(stderr, "%s for job %s\n", err.text, job);
	else if (rc > 0)
		fprintf(stderr, "slurm_update error: %s\n", err.text);
	return rc ? 1 : 0;
}

/* "update job" keys that map straight to one FIELDS key; what the value is. */
enum job_value { V_STR, V_COUNT, V_UINT, V_BOOL01, V_LIMIT, V_WHEN, V_MEM, V_MAIL };

static const struct job_key {
	const char *key, *alias, *field;
	enum job_value kind;
} job_keys[] = {
	{ "Partition", NULL, "partition", V_STR },
	{ "Name", "JobName", "name", V_STR },
	{ "Comment", NULL, "comment", V_STR },
	{ "Dependency", NULL, "dependency", V_STR },
	{ "Account", NULL, "account", V_STR },
	{ "QOS", NULL, "qos", V_STR },
	{ "WCKey", NULL, "wckey", V_STR },
	{ "MailUser", NULL, "mail_user", V_STR },
	{ "MailType", NULL, "mail_type", V_MAIL },
	{ "Requeue", NULL, "requeue", V_BOOL01 },
	{ "TimeLimit", NULL, "time_limit", V_LIMIT },
	{ "TimeMin", NULL, "time_min", V_LIMIT },
	{ "StartTime", "BeginTime", "begin_time", V_WHEN },
	{ "Deadline", NULL, "deadline", V_WHEN },
	{ "ExcNodeList", NULL, "exc_nodelist", V_STR },
	{ "ReqNodeList", "NodeList", "req_nodelist", V_STR },
	{ "Features", NULL, "features", V_STR },
	{ "Reservation", "ReservationName", "reservation", V_STR },
	{ "Licenses", NULL, "licenses", V_STR },
	{ "ArrayTaskThrottle", NULL, "array_throttle", V_UINT },
	{ "Priority", NULL, "priority", V_UINT },
	{ "NumTasks", "ReqProcs", "num_tasks", V_COUNT },
	{ "CPUsPerTask", NULL, "cpus_per_task", V_COUNT },
	{ "MinMemoryNode", NULL, "min_mem_node", V_MEM },
	{ "MinMemoryCPU", NULL, "min_mem_cpu", V_MEM },
	{ "MinTmpDiskNode", NULL, "min_tmp_disk", V_MEM },
	{ "MinCPUsNode", NULL, "mincpus", V_UINT },
	{ "DelayBoot", NULL, "delay_boot", V_LIMIT },
};

/* The value of one of job_keys as JSON; NULL after a message. */
static json_t *job_value(const struct job_key *k, const char *v, const char *arg)
{
	int64_t t;
	time_t when;
	uint64_t n;
	unsigned mail;

	switch (k->kind) {
	case V_STR:
		return json_string(v);
	case V_COUNT:
		if (parse_uint(v, 1000000000, &n) < 0 || n < 1)
			break;
		return json_integer((json_int_t)n);
	case V_UINT:
		if (parse_uint(v, UINT32_MAX, &n) < 0)
			break;
		return json_integer((json_int_t)n);
	case V_BOOL01:   /* Slurm: Requeue=0|1 */
		if (strcmp(v, "0") && strcmp(v, "1"))
			break;
		return json_boolean(*v == '1');
	case V_LIMIT:
		if (parse_time_limit(v, &t) < 0)
			break;
		return json_integer(t);
	case V_WHEN:
		if (opt_time_parse(v, time(NULL), false, &when) < 0) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", arg);
			return NULL;
		}
		return json_integer(when);
	case V_MEM:
		if (parse_size_mb(v, &n) < 0)
			break;
		return json_integer((json_int_t)n);
	case V_MAIL:
		if (parse_mail_type(v, &mail) < 0)
			break;
		return json_string(v);
	}
	fprintf(stderr, "scontrol: error: Invalid %s value\n", k->key);   /* Slurm: no value */
	return NULL;
}

/* One KEY=VALUE of "update job" into fields; 0, or 1 after a message. */
static int job_field(json_t *fields, const char *arg)
{
	const char *v;
	long n;

	for (size_t i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]); i++) {
		const struct job_key *k = &job_keys[i];
		if (!(v = kv_value(arg, k->key)) && !(k->alias && (v = kv_value(arg, k->alias))))
			continue;
		json_t *value = job_value(k, v, arg);
		if (!value)
			return 1;
		json_object_set_new(fields, k->field, value);
		return 0;
	}
	if ((v = kv_value(arg, "NumNodes")) || (v = kv_value(arg, "ReqNodes"))) {
		/* "2-4": at least 2, up to 4; "3": exactly 3 (no range) */
		char *min = xstrdup(v), *dash = strchr(min, '-');
		long max = 0;
		if (dash)
			*dash++ = '\0';
		int bad = opt_count(min, &n) < 0 || n < 1 ||
			  (dash && (opt_count(dash, &max) < 0 || max < n));
		free(min);
		if (bad) {
			fprintf(stderr, "scontrol: error: Invalid node count %s\n", v);
			return 1;
		}
		json_object_set_new(fields, "num_nodes", json_integer(n));
		json_object_set_new(fields, "max_nodes", json_integer(max > n ? max : 0));
	} else if ((v = kv_value(arg, "OverSubscribe")) || (v = kv_value(arg, "Shared"))) {
		if (strcasecmp(v, "yes") && strcasecmp(v, "no")) {
			fprintf(stderr, "scontrol: error: Invalid OverSubscribe value: %s\n", v);
			return 1;
		}
		json_object_set_new(fields, "oversubscribe", json_boolean(!strcasecmp(v, "yes")));
	} else if ((v = kv_value(arg, "Nice"))) {
		char *end;
		long long nice = strtoll(v, &end, 10);
		if (!*v || *end || nice < -2147483645LL || nice > 2147483645LL) {
			fprintf(stderr, "scontrol: error: Invalid nice value, must be between "
				"-2147483645 and 2147483645\n");
			return 1;
		}
		json_object_set_new(fields, "nice", json_integer(nice));
	} else {
		fprintf(stderr, "Update of this parameter is not supported: %s\n", arg);
		fprintf(stderr, "Request aborted\n");
		return 1;
	}
	return 0;
}

static int update_job(struct scontrol *sc, int argc, char **argv)
{
	json_t *fields = json_object();
	long id = -1;
	long long task = -1;
	const char *v, *job = NULL;

	for (int a = 0; a < argc; a++) {
		if ((v = kv_value(argv[a], "JobId")) || (v = kv_value(argv[a], "Job"))) {
			job = v;
			if (job_id_arg(v, &id, &task) < 0) {
				fprintf(stderr, "scontrol: error: Invalid job id specified\n");
				json_decref(fields);
				return 1;
			}
		} else if (job_field(fields, argv[a])) {
			json_decref(fields);
			return 1;
		}
	}
	if (!json_object_size(fields)) {
		fprintf(stderr, "No changes specified\n");
		json_decref(fields);
		return 1;
	}
	json_t *body = json_pack("{s:I, s:s, s:o}", "job_id", (json_int_t)id, "action", "update",
				 "fields", fields);
	if (task >= 0)
		json_object_set_new(body, "array_task", json_integer(task));
	return update_call(sc, MSG_UPDATE_JOB, body, job);
}

static int update_node(struct scontrol *sc, int argc, char **argv)
{
	const char *nodes = NULL, *state = NULL, *reason = NULL, *v;
	static const char *states[] = { "DRAIN", "DOWN", "RESUME", "IDLE", "UNDRAIN", NULL };

	for (int a = 0; a < argc; a++) {
		if ((v = kv_value(argv[a], "NodeName")))
			nodes = v;
		else if ((v = kv_value(argv[a], "State")))
			state = v;
		else if ((v = kv_value(argv[a], "Reason")))
			reason = v;
		else {
			fprintf(stderr, "Update of this parameter is not supported: %s\n", argv[a]);
			fprintf(stderr, "Request aborted\n");
			return 1;
		}
	}
	int k = 0;
	while (state && states[k] && strcasecmp(state, states[k]))
		k++;
	if (!state || !states[k]) {
		fprintf(stderr, "Invalid input: State=%s\nRequest aborted\n"
			"Valid states are: DOWN DRAIN IDLE RESUME UNDRAIN\n", state ? state : "");
		return 1;
	}
	if (k < 2 && (!reason || !*reason)) {
		fprintf(stderr, "You must specify a reason when DOWNING or DRAINING a node. "
			"Request denied\n");
		return 1;
	}
	json_t *body = json_pack("{s:s, s:s}", "nodes", nodes, "state", state);
	if (reason)
		json_object_set_new(body, "reason", json_string(reason));
	return update_call(sc, MSG_UPDATE_NODE, body, NULL);
}

/* "update JobId=N KEY=VALUE ..." or "update NodeName=LIST State=..." */
int scontrol_update(struct scontrol *sc, int argc, char **argv)
{
	for (int a = 0; a < argc; a++) {
		if (kv_value(argv[a], "JobId") || kv_value(argv[a], "Job"))
			return update_job(sc, argc, argv);
		if (kv_value(argv[a], "NodeName"))
			return update_node(sc, argc, argv);
		if (kv_value(argv[a], "ReservationName") || kv_value(argv[a], "Reservation")) {
			if (scontrol_client(sc) < 0)
				return 1;
			return scontrol_resv_run(&sc->client, RESV_OP_UPDATE, argc, argv);
		}
	}
	fprintf(stderr, "No valid entity in update command\n");
	fprintf(stderr, "Input line must include \"NodeName\", \"PartitionName\", "
		"\"Reservation\", \"JobId\", or \"StepId\"\n");
	return 1;
}
