/* Reading the LAUNCH object.  herdd validated it on the wire (msg schema);
 * here we still check every field we use, because a daemon must not crash on
 * a damaged spool file. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "stepd/launch.h"

static int launch_str(const json_t *obj, const char *key, bool optional, char **out,
		      struct herd_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v && optional)
		return 0;
	if (!json_is_string(v))
		return errprintf(err, "launch: %s: expected string", key);
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int launch_int(const json_t *obj, const char *key, bool optional, int64_t *out,
		      struct herd_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v && optional)
		return 0;
	if (!json_is_integer(v))
		return errprintf(err, "launch: %s: expected integer", key);
	*out = json_integer_value(v);
	return 0;
}

static int launch_strv(const json_t *obj, const char *key, char ***out, size_t *count,
		       struct herd_error *err)
{
	json_t *arr = json_object_get(obj, key), *v;
	size_t i;

	if (!json_is_array(arr))
		return errprintf(err, "launch: %s: expected array of strings", key);
	*out = xmalloc((json_array_size(arr) + 1) * sizeof(char *));
	*count = 0;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v))
			return errprintf(err, "launch: %s[%zu]: expected string", key, i);
		(*out)[(*count)++] = xstrdup(json_string_value(v));
	}
	return 0;
}

int launch_parse(const json_t *obj, struct launch *l, struct herd_error *err)
{
	int64_t job_id = 0, uid = 0, gid = 0, umask_ = 0, num_nodes = 0, ntasks = 0;
	int64_t cpus_per_task = 0, cpus_on_node = 0, kill_wait = 30, restarts = 0;
	int64_t tpn = 0, sig = 0, sig_time = 0;
	char *open_mode = NULL, *sig_flags = NULL;

	memset(l, 0, sizeof(*l));
	if (!json_is_object(obj)) {
		errprintf(err, "launch: expected an object");
		goto error;
	}
	if (launch_int(obj, "job_id", false, &job_id, err) < 0 ||
	    launch_int(obj, "uid", false, &uid, err) < 0 ||
	    launch_int(obj, "gid", false, &gid, err) < 0 ||
	    launch_int(obj, "umask", false, &umask_, err) < 0 ||
	    launch_str(obj, "user", false, &l->user, err) < 0 ||
	    launch_str(obj, "name", false, &l->name, err) < 0 ||
	    launch_str(obj, "partition", false, &l->partition, err) < 0 ||
	    launch_str(obj, "account", false, &l->account, err) < 0 ||
	    launch_str(obj, "cluster", false, &l->cluster, err) < 0 ||
	    launch_str(obj, "submit_host", false, &l->submit_host, err) < 0 ||
	    launch_str(obj, "qos", true, &l->qos, err) < 0 ||
	    launch_str(obj, "dependency", true, &l->dependency, err) < 0 ||
	    launch_str(obj, "script", false, &l->script, err) < 0 ||
	    launch_strv(obj, "argv", &l->argv, &l->argc, err) < 0 ||
	    launch_strv(obj, "env", &l->env, &l->envc, err) < 0 ||
	    launch_str(obj, "cwd", false, &l->cwd, err) < 0 ||
	    launch_str(obj, "stdout", false, &l->std_out, err) < 0 ||
	    launch_str(obj, "stderr", false, &l->std_err, err) < 0 ||
	    launch_str(obj, "stdin", false, &l->std_in, err) < 0 ||
	    launch_str(obj, "nodes", false, &l->nodes, err) < 0 ||
	    launch_int(obj, "num_nodes", false, &num_nodes, err) < 0 ||
	    launch_int(obj, "ntasks", false, &ntasks, err) < 0 ||
	    launch_int(obj, "cpus_per_task", false, &cpus_per_task, err) < 0 ||
	    launch_int(obj, "cpus_on_node", false, &cpus_on_node, err) < 0 ||
	    launch_int(obj, "mem_mb", false, &l->mem_mb, err) < 0 ||
	    launch_str(obj, "tasks_per_node", false, &l->tasks_per_node, err) < 0 ||
	    launch_str(obj, "cpus_per_node", true, &l->cpus_per_node, err) < 0 ||
	    launch_int(obj, "time_limit", false, &l->time_limit, err) < 0 ||
	    launch_int(obj, "kill_wait", false, &kill_wait, err) < 0 ||
	    launch_int(obj, "start_time", false, &l->start_time, err) < 0 ||
	    launch_int(obj, "restarts", true, &restarts, err) < 0 ||
	    launch_int(obj, "array_job_id", true, &l->array_job_id, err) < 0 ||
	    launch_int(obj, "array_task_id", true, &l->array_task_id, err) < 0 ||
	    launch_int(obj, "array_task_count", true, &l->array_task_count, err) < 0 ||
	    launch_int(obj, "array_task_min", true, &l->array_task_min, err) < 0 ||
	    launch_int(obj, "array_task_max", true, &l->array_task_max, err) < 0 ||
	    launch_int(obj, "array_task_step", true, &l->array_task_step, err) < 0 ||
	    launch_int(obj, "mem_per_cpu", true, &l->mem_per_cpu, err) < 0 ||
	    launch_int(obj, "ntasks_per_node", true, &tpn, err) < 0 ||
	    launch_str(obj, "open_mode", true, &open_mode, err) < 0 ||
	    launch_int(obj, "signal", true, &sig, err) < 0 ||
	    launch_int(obj, "signal_time", true, &sig_time, err) < 0 ||
	    launch_str(obj, "signal_flags", true, &sig_flags, err) < 0)
		goto error;
	l->open_append = open_mode && !strcmp(open_mode, "append");
	l->signal_batch = sig_flags && !strcmp(sig_flags, "B");
	free(open_mode);
	free(sig_flags);
	open_mode = sig_flags = NULL;
	if (sig < 0 || sig > 64 || sig_time < 0 || sig_time > 0xffff || tpn < 0 || tpn > INT32_MAX) {
		errprintf(err, "launch: signal/ntasks_per_node: out of range");
		goto error;
	}
	l->signal = sig;
	l->signal_time = sig_time;
	l->ntasks_per_node = tpn;
	if (l->array_job_id < 0 || l->array_job_id > UINT32_MAX || l->array_task_id < 0 ||
	    l->array_task_id > UINT32_MAX) {
		errprintf(err, "launch: array_job_id/array_task_id: out of range");
		goto error;
	}
	if (job_id <= 0 || job_id > UINT32_MAX) {
		errprintf(err, "launch: job_id: out of range");
		goto error;
	}
	if (uid < 0 || gid < 0 || uid > INT32_MAX || gid > INT32_MAX) {
		errprintf(err, "launch: uid/gid: out of range");
		goto error;
	}
	l->job_id = job_id;
	l->uid = uid;
	l->gid = gid;
	l->umask = umask_ & 07777;
	l->num_nodes = num_nodes;
	l->ntasks = ntasks;
	l->cpus_per_task = cpus_per_task;
	l->cpus_on_node = cpus_on_node;
	l->kill_wait = kill_wait < 0 ? 0 : kill_wait;
	l->restarts = restarts;
	return 0;
error:
	free(open_mode);
	free(sig_flags);
	launch_free(l);
	return -1;
}

int launch_load(const char *path, struct launch *l, struct herd_error *err)
{
	json_error_t jerr;
	json_t *obj = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!obj)
		return errprintf(err, "%s: %s", path, jerr.text);
	rc = launch_parse(obj, l, err);
	json_decref(obj);
	return rc;
}

static void launch_free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void launch_free(struct launch *l)
{
	int saved = errno;
	free(l->user);
	free(l->name);
	free(l->partition);
	free(l->account);
	free(l->cluster);
	free(l->submit_host);
	free(l->qos);
	free(l->dependency);
	free(l->script);
	launch_free_strv(l->argv, l->argc);
	launch_free_strv(l->env, l->envc);
	free(l->cwd);
	free(l->std_out);
	free(l->std_err);
	free(l->std_in);
	free(l->nodes);
	free(l->tasks_per_node);
	free(l->cpus_per_node);
	memset(l, 0, sizeof(*l));
	errno = saved;
}
