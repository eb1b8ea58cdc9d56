/* The message catalog: one schema per request type, and the strict checker.
 * Keep in step with doc/protocol.md. */
#include <stdio.h>
#include <string.h>
#include "common/jobspec.h"
#include "common/msg.h"

#define REQ(k, t) { k, t, false, NULL, 0, 0 }
#define OPT(k, t) { k, t, true, NULL, 0, 0 }
#define SUB(k, s) { k, MF_OBJ, false, s, 0, 0 }
#define END { NULL, 0, false, NULL, 0, 0 }

static const struct msg_field f_empty[] = { END };

static const struct msg_field f_submit[] = {
	REQ("key", MF_STR), SUB("job", jobspec_fields),
	{ "het", MF_ARR_OBJ, true, jobspec_fields, 0, 0 },   /* a het job's components 1..n */
	END
};

static const struct msg_field f_job_info[] = {
	OPT("job_ids", MF_ARR_INT), OPT("uid", MF_INT), OPT("states", MF_ARR_STR),
	OPT("fields", MF_ARR_STR), OPT("rows", MF_BOOL), OPT("script", MF_BOOL), END
};

static const struct msg_field f_acct_jobs[] = {
	OPT("job_ids", MF_ARR_INT), OPT("uids", MF_ARR_INT), OPT("states", MF_ARR_STR),
	OPT("start_time", MF_INT), OPT("end_time", MF_INT), OPT("accounts", MF_ARR_STR),
	OPT("clusters", MF_ARR_STR), OPT("duplicates", MF_BOOL), END
};

static const struct msg_field f_cancel[] = {
	REQ("job_id", MF_INT), REQ("signal", MF_INT), REQ("flags", MF_STR),
	OPT("array_tasks", MF_STR), OPT("step_id", MF_INT), OPT("het_offset", MF_INT), END
};

static const struct msg_field f_update_fields[] = {
	OPT("time_limit", MF_INT), OPT("partition", MF_STR), OPT("num_nodes", MF_INT),
	OPT("name", MF_STR), OPT("comment", MF_STR), OPT("nice", MF_INT),
	OPT("dependency", MF_STR), OPT("begin_time", MF_INT),
	/* added later: optional like the rest */
	OPT("account", MF_STR), OPT("qos", MF_STR), OPT("mail_user", MF_STR),
	OPT("mail_type", MF_STR), OPT("requeue", MF_BOOL), OPT("time_min", MF_INT),
	OPT("deadline", MF_INT), OPT("exc_nodelist", MF_STR), OPT("req_nodelist", MF_STR),
	OPT("features", MF_STR), OPT("array_throttle", MF_INT), OPT("num_tasks", MF_INT),
	OPT("min_mem_node", MF_INT), OPT("min_mem_cpu", MF_INT), OPT("cpus_per_task", MF_INT),
	OPT("priority", MF_INT), OPT("reservation", MF_STR), OPT("wckey", MF_STR),
	OPT("licenses", MF_STR),
	OPT("max_nodes", MF_INT), OPT("min_tmp_disk", MF_INT), OPT("mincpus", MF_INT),
	OPT("oversubscribe", MF_BOOL), OPT("delay_boot", MF_INT), END
};

static const struct msg_field f_update[] = {
	REQ("job_id", MF_INT), REQ("action", MF_STR),
	{ "fields", MF_OBJ, true, f_update_fields, 0, 0 }, OPT("array_task", MF_INT), END
};

static const struct msg_field f_update_node[] = {
	REQ("nodes", MF_STR), REQ("state", MF_STR), OPT("reason", MF_STR), END
};

static const struct msg_field f_job_limit[] = {
	REQ("job_id", MF_INT), REQ("time_limit", MF_INT), END
};

/* A GRES device record (doc/gres.md); flags optional. */
static const struct msg_field f_gres_dev[] = {
	REQ("name", MF_STR), REQ("type", MF_STR), REQ("index", MF_INT), REQ("file", MF_STR),
	REQ("cores", MF_STR), REQ("links", MF_STR), REQ("count", MF_INT), OPT("flags", MF_INT), END
};

static const struct msg_field f_register[] = {
	REQ("node", MF_STR), REQ("cpus", MF_INT), REQ("boards", MF_INT), REQ("sockets", MF_INT),
	REQ("cores", MF_INT), REQ("threads", MF_INT), REQ("memory", MF_INT),
	REQ("boot_time", MF_INT), REQ("start_time", MF_INT), REQ("arch", MF_STR),
	REQ("os", MF_STR), REQ("jobs", MF_ARR_INT), OPT("steps", MF_ANY),
	{ "gres", MF_ARR_OBJ, true, f_gres_dev, 0, 0 }, END
};

static const struct msg_field f_complete[] = {
	REQ("job_id", MF_INT), REQ("node", MF_STR), REQ("status", MF_INT),
	REQ("timed_out", MF_BOOL), OPT("oom", MF_BOOL), END
};

/* srun's request for a step (doc/steps.md); 0 / "" = not given. */
static const struct msg_field f_stepspec[] = {
	REQ("name", MF_STR), REQ("argv", MF_ARR_STR), REQ("env", MF_ARR_STR), REQ("cwd", MF_STR),
	REQ("num_nodes", MF_INT), REQ("num_tasks", MF_INT), REQ("cpus_per_task", MF_INT),
	REQ("ntasks_per_node", MF_INT), REQ("mem_mb", MF_INT), REQ("mem_per_cpu", MF_INT),
	REQ("distribution", MF_STR), REQ("overlap", MF_BOOL), REQ("exact", MF_BOOL),
	REQ("exclusive", MF_BOOL), REQ("req_nodelist", MF_STR), REQ("exc_nodelist", MF_STR),
	REQ("time_limit", MF_INT), REQ("cpu_bind", MF_STR), REQ("io_host", MF_STR),
	REQ("io_port", MF_INT), REQ("io_key", MF_STR), REQ("stdout", MF_STR),
	REQ("stderr", MF_STR), REQ("stdin", MF_STR), REQ("stdin_task", MF_INT),
	REQ("pty", MF_BOOL), REQ("mpi", MF_STR), REQ("signal", MF_INT), REQ("signal_time", MF_INT),
	REQ("launch_addr", MF_STR), OPT("multi_prog", MF_ARR_STR), OPT("srun_pid", MF_INT),
	OPT("container", MF_STR),
	OPT("ntasks_per_socket", MF_INT), OPT("ntasks_per_core", MF_INT), OPT("hint", MF_STR),
	OPT("mem_bind", MF_STR), OPT("propagate", MF_STR), OPT("rlimits", MF_OBJ),
	OPT("resv_ports", MF_INT), OPT("slurmd_debug", MF_INT),
	OPT("tres_per_step", MF_STR), OPT("tres_per_node", MF_STR), OPT("tres_per_socket", MF_STR),
	OPT("tres_per_task", MF_STR), OPT("gres_none", MF_BOOL), OPT("gpu_bind", MF_STR),
	OPT("cpus_per_gpu", MF_INT), OPT("mem_per_gpu", MF_INT), END
};

static const struct msg_field f_step_het[] = {
	REQ("job_id", MF_INT), SUB("step", f_stepspec), END
};

static const struct msg_field f_step_create[] = {
	REQ("job_id", MF_INT), SUB("step", f_stepspec),
	{ "het", MF_ARR_OBJ, true, f_step_het, 0, 0 },   /* a het step's components 1..n */
	END
};

static const struct msg_field f_step_info[] = {
	OPT("job_ids", MF_ARR_INT), END
};

static const struct msg_field f_complete_alloc[] = {
	REQ("job_id", MF_INT), REQ("status", MF_INT), END
};

/* sacctmgr (doc/accounting.md): op "add" "modify" "delete" "list" "dump"
 * "load"; entity "cluster" "account" "user" "qos" "coordinator" "tres"
 * "association" "event"; where/set: Slurm's key=value pairs as given
 * (keys lower-cased, values strings); records: "load"'s objects. */
static const struct msg_field f_acct_mgr[] = {
	REQ("op", MF_STR), REQ("entity", MF_STR), OPT("names", MF_ARR_STR), OPT("where", MF_OBJ),
	OPT("set", MF_OBJ), OPT("options", MF_ARR_STR), OPT("records", MF_ANY), END
};

/* sshare: -A accounts, -u users (names), -a every user. */
static const struct msg_field f_share_info[] = {
	OPT("accounts", MF_ARR_STR), OPT("users", MF_ARR_STR), OPT("all", MF_BOOL), END
};

/* sreport: report "cluster_utilization" "account_utilization_by_user"
 * "user_top_usage" "job_sizes_by_account"; the window in Unix seconds. */
static const struct msg_field f_acct_report[] = {
	REQ("report", MF_STR), REQ("start_time", MF_INT), REQ("end_time", MF_INT),
	OPT("clusters", MF_ARR_STR), OPT("accounts", MF_ARR_STR), OPT("users", MF_ARR_STR),
	OPT("options", MF_OBJ), END
};

/* sprio: -j job IDs, -u users, -p partitions (none: every pending job). */
static const struct msg_field f_prio_info[] = {
	OPT("job_ids", MF_ARR_INT), OPT("users", MF_ARR_STR), OPT("partitions", MF_ARR_STR), END
};

/* scontrol create|update reservation (doc/protocol.md): times in Unix
 * seconds, duration in seconds; lists comma-separated names. */
static const struct msg_field f_resv_create[] = {
	OPT("name", MF_STR), REQ("start_time", MF_INT), REQ("end_time", MF_INT),
	OPT("nodes", MF_STR), OPT("node_cnt", MF_INT), OPT("users", MF_STR),
	OPT("accounts", MF_STR), OPT("partition", MF_STR), OPT("flags", MF_STR),
	OPT("licenses", MF_STR), END
};

static const struct msg_field f_resv_update[] = {
	REQ("name", MF_STR), OPT("start_time", MF_INT), OPT("end_time", MF_INT),
	OPT("duration", MF_INT), OPT("nodes", MF_STR), OPT("node_cnt", MF_INT),
	OPT("users", MF_STR), OPT("accounts", MF_STR), OPT("partition", MF_STR),
	OPT("flags", MF_STR), OPT("flags_remove", MF_STR), OPT("licenses", MF_STR), END
};

static const struct msg_field f_resv_name[] = {
	REQ("name", MF_STR), END
};

static const struct msg_field f_resv_info[] = {
	OPT("name", MF_STR), END
};

static const struct msg_field f_step_complete[] = {
	REQ("job_id", MF_INT), REQ("step_id", MF_INT), REQ("node", MF_STR), REQ("status", MF_INT),
	REQ("tasks", MF_ARR_INT), REQ("cpu_time_us", MF_INT), REQ("max_rss_kb", MF_INT),
	REQ("ave_rss_kb", MF_INT), REQ("oom", MF_BOOL), OPT("timed_out", MF_BOOL), END
};

static const struct msg_field f_gpu_usage[] = {
	REQ("node", MF_STR), REQ("job_id", MF_INT), REQ("step_id", MF_INT), REQ("gpus", MF_INT),
	REQ("samples", MF_INT), REQ("mem_max_mb", MF_INT), REQ("mem_ave_mb", MF_INT),
	REQ("util_max", MF_INT), REQ("util_ave", MF_INT), END
};

static const struct msg_field f_launch_spec[] = {
	REQ("job_id", MF_INT), REQ("uid", MF_INT), REQ("gid", MF_INT), REQ("umask", MF_INT),
	REQ("user", MF_STR), REQ("name", MF_STR), REQ("partition", MF_STR),
	REQ("account", MF_STR), REQ("cluster", MF_STR), REQ("submit_host", MF_STR),
	REQ("script", MF_STR), REQ("argv", MF_ARR_STR), REQ("env", MF_ARR_STR),
	REQ("cwd", MF_STR), REQ("stdout", MF_STR), REQ("stderr", MF_STR), REQ("stdin", MF_STR),
	REQ("nodes", MF_STR), REQ("num_nodes", MF_INT), REQ("ntasks", MF_INT),
	REQ("cpus_per_task", MF_INT), REQ("cpus_on_node", MF_INT), REQ("mem_mb", MF_INT),
	REQ("tasks_per_node", MF_STR), REQ("time_limit", MF_INT), REQ("kill_wait", MF_INT),
	REQ("start_time", MF_INT), OPT("qos", MF_STR), OPT("restarts", MF_INT),
	OPT("dependency", MF_STR),
	OPT("array_job_id", MF_INT), OPT("array_task_id", MF_INT), OPT("array_task_count", MF_INT),
	OPT("array_task_min", MF_INT), OPT("array_task_max", MF_INT), OPT("array_task_step", MF_INT),
	OPT("cpus_per_node", MF_STR), OPT("mem_per_cpu", MF_INT), OPT("ntasks_per_node", MF_INT),
	OPT("open_mode", MF_STR), OPT("signal", MF_INT), OPT("signal_time", MF_INT),
	OPT("signal_flags", MF_STR), OPT("step", MF_OBJ), OPT("cpu_ids", MF_STR),
	OPT("reservation", MF_STR), OPT("container", MF_STR), OPT("distribution", MF_STR),
	OPT("ntasks_per_socket", MF_INT),
	OPT("ntasks_per_core", MF_INT), OPT("hint", MF_STR), OPT("mem_bind", MF_STR),
	OPT("propagate", MF_STR), OPT("rlimits", MF_OBJ), OPT("get_user_env", MF_STR),
	OPT("het_job_id", MF_INT),   /* a het job's component: its leader's ID */
	OPT("overcommit", MF_BOOL),
	/* the job's GRES records here: herdstepd checks each (its flags may
	 * be a number, words or an array: doc/gres.md section 3) */
	OPT("gres", MF_ARR_OBJ), END
};

static const struct msg_field f_launch[] = {
	REQ("job_id", MF_INT), SUB("launch", f_launch_spec), END
};

static const struct msg_field f_launch_step[] = {
	REQ("job_id", MF_INT), REQ("step_id", MF_INT), SUB("launch", f_launch_spec), END
};

static const struct msg_field f_suspend[] = {
	REQ("job_id", MF_INT), REQ("suspend", MF_BOOL), END
};

static const struct msg_field f_terminate[] = {
	REQ("job_id", MF_INT), REQ("kill_wait", MF_INT), OPT("step_id", MF_INT), END
};

/* herdrestd's envelope: the request of type "type" with body "body", made
 * for the user the token names (ctld/auth_jwt.c). */
static const struct msg_field f_jwt_request[] = {
	REQ("token", MF_STR), REQ("type", MF_INT), REQ("body", MF_OBJ),
	OPT("user", MF_STR), END
};

static const struct msg_field f_token_create[] = {
	OPT("username", MF_STR), OPT("lifespan", MF_INT), END
};

struct msg_decl {
	int type;
	const struct msg_field *schema;
};

static const struct msg_decl decls[] = {
	{ MSG_PING, f_empty },
	{ MSG_SUBMIT_JOB, f_submit },
	{ MSG_JOB_INFO, f_job_info },
	{ MSG_CANCEL_JOB, f_cancel },
	{ MSG_UPDATE_JOB, f_update },
	{ MSG_NODE_INFO, f_empty },
	{ MSG_PART_INFO, f_empty },
	{ MSG_ACCT_JOBS, f_acct_jobs },
	{ MSG_UPDATE_NODE, f_update_node },
	{ MSG_STEP_CREATE, f_step_create },
	{ MSG_STEP_INFO, f_step_info },
	{ MSG_COMPLETE_ALLOC, f_complete_alloc },
	{ MSG_ACCT_MGR, f_acct_mgr },
	{ MSG_SHARE_INFO, f_share_info },
	{ MSG_ACCT_REPORT, f_acct_report },
	{ MSG_PRIO_INFO, f_prio_info },
	{ MSG_RESV_CREATE, f_resv_create },
	{ MSG_RESV_UPDATE, f_resv_update },
	{ MSG_RESV_DELETE, f_resv_name },
	{ MSG_RESV_INFO, f_resv_info },
	{ MSG_LICENSE_INFO, f_resv_info },   /* {"name"}: one license, else all */
	{ MSG_RECONFIGURE, f_empty },
	{ MSG_NODE_REGISTER, f_register },
	{ MSG_JOB_COMPLETE, f_complete },
	{ MSG_STEP_COMPLETE, f_step_complete },
	{ MSG_GPU_USAGE, f_gpu_usage },
	{ MSG_LAUNCH_JOB, f_launch },
	{ MSG_SIGNAL_JOB, f_cancel },
	{ MSG_TERMINATE_JOB, f_terminate },
	{ MSG_REQUEST_REGISTRATION, f_empty },
	{ MSG_UPDATE_JOB_LIMIT, f_job_limit },
	{ MSG_LAUNCH_STEP, f_launch_step },
	{ MSG_SUSPEND_JOB, f_suspend },
	{ MSG_RECONFIGURE_NODE, f_empty },
	{ MSG_JWT_REQUEST, f_jwt_request },
	{ MSG_TOKEN_CREATE, f_token_create },
	{ MSG_JOB_COUNTS, f_empty },
	{ MSG_CLUSTER_INFO, f_empty },
};

/* Every type in MSG_TABLE has an entry here; the msg tests check it. */
static const struct msg_decl *msg_decl_find(int type)
{
	for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
		if (decls[i].type == type)
			return &decls[i];
	return NULL;
}

const char *msg_name(int type)
{
	switch (type) {
#define MSG_NAME_CASE(e, num, name) case num: return name;
	MSG_TABLE(MSG_NAME_CASE)
#undef MSG_NAME_CASE
	}
	return NULL;
}

const struct msg_field *msg_schema(int type)
{
	const struct msg_decl *d = msg_decl_find(type);
	return d ? d->schema : NULL;
}

static const char *ftype_name(enum msg_ftype t)
{
	switch (t) {
	case MF_STR: return "string";
	case MF_INT: return "integer";
	case MF_BOOL: return "boolean";
	case MF_OBJ: return "object";
	case MF_ARR_STR: return "array of strings";
	case MF_ARR_INT: return "array of integers";
	case MF_ANY: return "value";
	case MF_ARR_OBJ: return "array of objects";
	}
	return "value";
}

static bool array_of(const json_t *v, int elem_type)
{
	size_t i;
	json_t *e;
	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e)
		if (json_typeof(e) != elem_type)
			return false;
	return true;
}

static bool field_ok(const struct msg_field *f, const json_t *v)
{
	switch (f->type) {
	case MF_STR: return json_is_string(v);
	case MF_INT: return json_is_integer(v);
	case MF_BOOL: return json_is_boolean(v);
	case MF_OBJ: return json_is_object(v);
	case MF_ARR_STR: return array_of(v, JSON_STRING);
	case MF_ARR_INT: return array_of(v, JSON_INTEGER);
	case MF_ANY: return true;
	case MF_ARR_OBJ: return array_of(v, JSON_OBJECT);
	}
	return false;
}

int msg_check(const struct msg_field *schema, const json_t *obj, const char *where,
	      struct herd_error *err)
{
	const char *key;
	json_t *v;
	char sub[128];

	if (!json_is_object(obj))
		return errprintf(err, "%s: expected an object", where);
	json_object_foreach((json_t *)obj, key, v) {
		const struct msg_field *f = schema;
		while (f->key && strcmp(f->key, key))
			f++;
		if (!f->key)
			return errprintf(err, "%s: unknown key '%.40s'", where, key);
	}
	for (const struct msg_field *f = schema; f->key; f++) {
		v = json_object_get(obj, f->key);
		if (!v) {
			if (f->optional)
				continue;
			return errprintf(err, "%s: missing key '%s'", where, f->key);
		}
		if (!field_ok(f, v))
			return errprintf(err, "%s.%s: expected %s", where, f->key, ftype_name(f->type));
		if (f->type == MF_OBJ && f->sub) {
			snprintf(sub, sizeof(sub), "%s.%s", where, f->key);
			if (msg_check(f->sub, v, sub, err) < 0)
				return -1;
		}
		size_t i;
		json_t *e;
		if (f->type == MF_ARR_OBJ && f->sub)
			json_array_foreach(v, i, e) {
				snprintf(sub, sizeof(sub), "%s.%s[%zu]", where, f->key, i);
				if (msg_check(f->sub, e, sub, err) < 0)
					return -1;
			}
	}
	return 0;
}

int msg_validate(int type, const json_t *body, struct herd_error *err)
{
	const struct msg_decl *d = msg_decl_find(type);
	if (!d)
		return errprintf(err, "unknown message type %d", type);
	return msg_check(d->schema, body, msg_name(type), err);
}

json_t *msg_reply_ok(void)
{
	return json_pack("{s:i}", "rc", 0);
}

int msg_reply_rc(const json_t *reply, struct herd_error *err)
{
	json_t *rc = json_object_get(reply, "rc");
	if (!json_is_integer(rc)) {
		errprintf(err, "reply without rc");
		return -1;
	}
	int v = (int)json_integer_value(rc);
	if (v) {
		const char *text = json_string_value(json_object_get(reply, "error"));
		errprintf(err, "%s", text ? text : herd_strerror(v));
	}
	return v;
}

json_t *msg_strv(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}
