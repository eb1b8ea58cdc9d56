/* sacct --json: the job objects of Slurm 22.05's sacct (slurmdbd's openapi
 * dbv0.0.38 data format) from Herd's job records, with the same values as
 * sacct's table (sacct_fields.c). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "cmd/opt.h"
#include "cmd/sacct_fields.h"
#include "cmd/step.h"
#include "common/state.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

/* {"status", "return_code"} (and "signal") of a raw wait status. */
static json_t *json_exit(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		return json_pack("{s:s, s:n, s:{s:i, s:s}}", "status", "SIGNALED", "return_code",
				 "signal", "signal_id", sig, "name", strsignal(sig));
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	return json_pack("{s:s, s:i}", "status", code ? "FAILED" : "SUCCESS", "return_code", code);
}

static json_t *json_tres_entry(const char *type, int id, long long count)
{
	return json_pack("{s:s, s:n, s:i, s:I}", "type", type, "name", "id", id, "count",
			 (json_int_t)count);
}

/* A TRES list in Slurm's ID order: cpu (1), mem (2, MB), node (4), billing
 * (5), then the GRES ({"type": "gres", "name": "gpu"}, gres/gpu's ID 1001;
 * a typed one, which has no fixed ID in Herd, 0). */
static json_t *json_tres_list(const struct sacct_tres *t, bool billing)
{
	json_t *a = json_array();
	json_array_append_new(a, json_tres_entry("cpu", 1, t->cpus));
	json_array_append_new(a, json_tres_entry("mem", 2, t->mem_mb));
	json_array_append_new(a, json_tres_entry("node", 4, t->nodes));
	if (billing)
		json_array_append_new(a, json_tres_entry("billing", 5, t->billing));
	for (int k = 0; k < t->ngres; k++) {
		const char *name = t->gres[k].name + strlen("gres/");
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name", name,
						   "id", strcmp(name, "gpu") ? 0 : 1001, "count",
						   (json_int_t)t->gres[k].count));
	}
	return a;
}

static json_t *json_seconds(long long us)
{
	return json_pack("{s:I, s:I}", "seconds", (json_int_t)(us / 1000000), "microseconds",
			 (json_int_t)(us % 1000000));
}

/* A step's measured use in the dbv0.0.38 lists (under "requested", as
 * Slurm 22.05 puts it): CPU in milliseconds, memory in bytes, then its
 * GPUs' gres/gpumem (bytes) and gres/gpuutil (percent) when sampled; none
 * while it runs.  Herd measures per node, not per task: no "min" and no
 * task or node of the "max".  step NULL: the batch step (its GPUs only). */
static json_t *json_step_usage(const json_t *job, const json_t *step)
{
	json_t *u = json_pack("{s:[], s:[], s:[], s:[]}", "max", "min", "average", "total");
	static const struct { const char *key; enum sacct_usage kind; } lists[] = {
		{ "max", USAGE_MAX }, { "average", USAGE_AVE }, { "total", USAGE_TOT },
	};
	const json_t *gpu = sacct_gpu_usage(job, step ? cmd_jint(step, "step_id") : CMD_STEP_BATCH);
	if (step ? sacct_step_running(step) : !sacct_ended(job))
		return u;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		long long cpu, rss, gmem, gutil;
		json_t *a = json_object_get(u, lists[i].key);
		if (step) {
			sacct_step_usage(step, lists[i].kind, &cpu, &rss);
			if (cpu >= 0)
				json_array_append_new(a, json_tres_entry("cpu", 1, cpu / 1000));
			json_array_append_new(a, json_tres_entry("mem", 2, rss * 1024));
		}
		if (sacct_gpu_figures(gpu, lists[i].kind, &gmem, &gutil)) {
			json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name",
							   "gpumem", "id", 0, "count",
							   (json_int_t)gmem * 1048576));
			json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name",
							   "gpuutil", "id", 0, "count", (json_int_t)gutil));
		}
	}
	return u;
}

/* One step object; step NULL: the batch step, from the job's record. */
static json_t *json_step(const struct row *r)
{
	const json_t *job = r->job, *step = r->step;
	long long start, end, elapsed_s, cpu_us, tasks;
	const char *nodes, *state, *name, *dist;
	int status;
	struct sacct_tres t;
	json_t *id;

	if (step) {
		start = cmd_jint(step, "start_time");
		end = sacct_step_running(step) ? 0 : cmd_jint(step, "end_time");
		elapsed_s = sacct_step_elapsed(r);
		cpu_us = cmd_jint(step, "cpu_time_us");
		nodes = cmd_jstr(step, "nodes");
		state = cmd_jstr(step, "state");
		name = cmd_jstr(step, "name");
		dist = cmd_step_dist(step);
		status = (int)cmd_jint(step, "exit_code");
		tasks = cmd_jint(step, "num_tasks");
		t = sacct_step_tres(job, step);
		long long sid = cmd_jint(step, "step_id");
		char buf[24];
		id = sid == CMD_STEP_EXTERN ? json_string(cmd_step_name(sid, buf, sizeof(buf)))
					    : json_integer(sid);
	} else {
		start = cmd_jint(job, "start_time");
		end = sacct_ended(job) ? cmd_jint(job, "end_time") : 0;
		elapsed_s = sacct_elapsed(r);
		cpu_us = 0;
		nodes = json_string_value(json_array_get(json_array_get(json_object_get(job, "alloc"), 0), 0));
		state = sacct_shown_state(job, true);
		name = "batch";
		dist = "Unknown";
		status = sacct_shown_status(job, true);
		tasks = 1;
		t = sacct_job_tres(job, true, true);
		id = json_string("batch");
	}
	const char *kill = NULL;
	struct passwd *pw = NULL;
	if (step && json_object_get(step, "requid") && (pw = getpwuid((uid_t)cmd_jint(step, "requid"))))
		kill = pw->pw_name;
	json_t *list = json_array();
	struct hostlist *hl = nodes && *nodes ? hostlist_create(nodes) : NULL;
	for (size_t i = 0; hl && i < hostlist_count(hl); i++)
		json_array_append_new(list, json_string(hostlist_nth(hl, i)));
	hostlist_destroy(hl);
	return json_pack(
		"{s:{s:o, s:I, s:s}, s:{s:o, s:o, s:o}, s:{s:I, s:I, s:I, s:i, s:{s:i, s:i}, s:o,"
		" s:{s:i, s:i}}, s:o, s:{s:I}, s:n, s:{s:{s:i, s:i}, s:[]}, s:s?, s:s,"
		" s:{s:{s:i}, s:{s:i}}, s:{s:I, s:{s:n}, s:o, s:s}, s:{s:s}}",
		"nodes", "list", list, "count", (json_int_t)json_array_size(list), "range", nodes ? nodes : "",
		"tres", "requested", json_step_usage(job, step), "consumed",
		json_pack("{s:[], s:[], s:[], s:[]}", "max", "min", "average", "total"),
		"allocated", json_tres_list(&t, false),
		"time", "elapsed", (json_int_t)elapsed_s, "end", (json_int_t)end, "start", (json_int_t)start,
		"suspended", 0, "system", "seconds", 0, "microseconds", 0, "total", json_seconds(cpu_us),
		"user", "seconds", 0, "microseconds", 0,
		"exit_code", json_exit(status), "tasks", "count", (json_int_t)tasks, "pid",
		"CPU", "requested_frequency", "min", 0, "max", 0, "governor",
		"kill_request_user", kill, "state", state,
		"statistics", "CPU", "actual_frequency", 0, "energy", "consumed", 0,
		"step", "job_id", (json_int_t)cmd_jint(job, "job_id"), "het", "component", "id", id,
		"name", name, "task", "distribution", dist);
}

/* One job object of sacct --json, with its steps (none with -X). */
json_t *sacct_json_job(const struct row *r)
{
	const json_t *job = r->job;
	bool ran = sacct_started(job);
	struct row sr = *r;
	json_t *steps = json_array();

	if (!sacct_show_of(r)->allocations) {
		if (ran && !cmd_jbool(job, "alloc_only"))
			json_array_append_new(steps, json_step(r));
		json_t *recs = json_object_get(job, "steps");
		size_t n = json_array_size(recs);
		const json_t **order = xmalloc((n + 1) * sizeof(*order));
		for (size_t k = 0; k < n; k++)
			order[k] = json_array_get(recs, k);
		qsort(order, n, sizeof(*order), sacct_by_step_rank);
		for (size_t k = 0; k < n; k++) {
			if (cmd_jint(order[k], "step_id") == CMD_STEP_BATCH)
				continue;
			sr.step = order[k];
			json_array_append_new(steps, json_step(&sr));
		}
		free(order);
	}
	long long limit = cmd_jint(job, "time_limit");
	json_t *limit_j = limit == TIME_INFINITE || limit < 0 ? json_null() : json_integer(limit / 60);
	long long array = cmd_jint(job, "array_job_id"), task = cmd_jint(job, "array_task_id");
	json_t *task_id = array && task != CMD_NO_TASK ? json_integer(task) : json_null();
	const char *pending_tasks = cmd_jstr(job, "array_tasks");
	struct group *gr = getgrgid((gid_t)cmd_jint(job, "gid"));
	char gid[24];
	snprintf(gid, sizeof(gid), "%lld", cmd_jint(job, "gid"));
	const char *kill = NULL;
	struct passwd *pw = NULL;
	if (json_object_get(job, "requid") && (pw = getpwuid((uid_t)cmd_jint(job, "requid"))))
		kill = pw->pw_name;
	struct sacct_tres t = sacct_job_tres(job, false, true), req = sacct_job_tres(job, false, false);
	json_t *alloc = ran ? json_tres_list(&t, true) : json_array();
	long long cpu_us = sacct_show_of(r)->allocations ? 0 : sacct_steps_cpu_us(job);
	int64_t eligible = sacct_held(job) ? 0 : cmd_jint(job, "eligible_time");
	const char *comment = cmd_jstr(job, "comment");
	/* a job completing reads as in the table: still RUNNING (CANCELLED
	 * when cancelled) */
	const char *state = sacct_job_state(job) == JOB_COMPLETING ? sacct_shown_state(job, false)
								    : cmd_jstr(job, "state");
	long long mem = cmd_jint(job, "mem_per_cpu") > 0 ? cmd_jint(job, "mem_per_cpu")
							 : cmd_jint(job, "mem_mb");

	json_t *o = json_pack("{s:s, s:{s:n, s:s?, s:n}, s:I, s:{s:I, s:{s:{s:{s:I}}}, s:s?, s:o},"
			      " s:{s:s, s:s, s:n, s:s}, s:s, s:s, s:n, s:o}",
			      "account", cmd_jstr(job, "account"),
			      "comment", "administrator", "job", *comment ? comment : NULL, "system",
			      "allocation_nodes", (json_int_t)(ran ? cmd_jint(job, "num_nodes") : 0),
			      "array", "job_id", (json_int_t)array, "limits", "max", "running", "tasks",
			      (json_int_t)cmd_jint(job, "array_throttle"),
			      "task", *pending_tasks && task == CMD_NO_TASK ? pending_tasks : NULL,
			      "task_id", task_id,
			      "association", "account", cmd_jstr(job, "account"), "cluster", sacct_cluster_of(r),
			      "partition", "user", cmd_jstr(job, "user"),
			      "cluster", sacct_cluster_of(r), "constraints", cmd_jstr(job, "features"),
			      "container",
			      "derived_exit_code", json_exit(cmd_step_derived_status(
				      json_object_get(job, "steps"), cmd_jstr(job, "state"),
				      cmd_jint(job, "end_time"))));
	json_object_set_new(o, "time", json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:i, s:{s:i, s:i}, s:o, s:o, s:{s:i, s:i}}",
		"elapsed", (json_int_t)sacct_elapsed(r), "eligible", (json_int_t)eligible,
		"end", (json_int_t)(sacct_ended(job) ? cmd_jint(job, "end_time") : 0),
		"start", (json_int_t)(sacct_job_state(job) == JOB_PENDING ? 0 : cmd_jint(job, "start_time")),
		"submission", (json_int_t)cmd_jint(job, "submit_time"), "suspended", 0,
		"system", "seconds", 0, "microseconds", 0, "limit", limit_j,
		"total", json_seconds(cpu_us > 0 ? cpu_us : 0), "user", "seconds", 0, "microseconds", 0));
	json_object_set_new(o, "exit_code", json_exit(sacct_shown_status(job, false)));
	json_object_set_new(o, "flags", json_array());
	json_object_set_new(o, "group", json_string(gr ? gr->gr_name : gid));
	if (cmd_jint(job, "het_job_id"))   /* a het job's component: its leader and offset */
		json_object_set_new(o, "het", json_pack("{s:I, s:I}", "job_id",
							(json_int_t)cmd_jint(job, "het_job_id"), "job_offset",
							(json_int_t)cmd_jint(job, "het_job_offset")));
	else
		json_object_set_new(o, "het", json_pack("{s:i, s:n}", "job_id", 0, "job_offset"));
	json_object_set_new(o, "job_id", json_integer(cmd_jint(job, "job_id")));
	json_object_set_new(o, "name", json_string(cmd_jstr(job, "name")));
	json_object_set_new(o, "mcs", json_pack("{s:s}", "label", ""));
	json_object_set_new(o, "nodes", json_string(ran ? cmd_jstr(job, "nodes") : "None assigned"));
	json_object_set_new(o, "partition", json_string(cmd_jstr(job, "partition")));
	json_object_set_new(o, "priority", json_integer(cmd_jint(job, "priority")));
	json_object_set_new(o, "qos", json_string(cmd_jstr(job, "qos")));
	json_object_set_new(o, "required", json_pack("{s:I, s:I}", "CPUs",
						     (json_int_t)cmd_jint(job, "num_cpus"), "memory",
						     (json_int_t)mem));
	json_object_set_new(o, "kill_request_user", kill ? json_string(kill) : json_null());
	json_object_set_new(o, "reservation", json_pack("{s:i, s:i}", "id", 0, "name", 0));
	json_object_set_new(o, "state", json_pack("{s:s, s:s}", "current", state, "reason",
						  cmd_jstr(job, "reason")));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "tres", json_pack("{s:o, s:o}", "allocated", alloc, "requested",
						 json_tres_list(&req, true)));
	json_object_set_new(o, "user", json_string(cmd_jstr(job, "user")));
	/* "*name": the user's default, given because none was asked for */
	const char *wckey = cmd_jstr(job, "wckey");
	json_t *wflags = json_array();
	if (*wckey == '*') {
		wckey++;
		json_array_append_new(wflags, json_string("ASSIGNED_DEFAULT"));
	}
	json_object_set_new(o, "wckey", json_pack("{s:s, s:o}", "wckey", wckey, "flags", wflags));
	json_object_set_new(o, "working_directory", json_string(cmd_jstr(job, "work_dir")));
	return o;
}

/* The document sacct --json prints around the jobs (steals jobs). */
json_t *sacct_json_document(json_t *jobs)
{
	json_t *errors = json_array();
	if (!json_array_size(jobs))   /* as slurmdbd answers an empty query */
		json_array_append_new(errors, json_pack("{s:s, s:i, s:s, s:s}", "description",
							"Nothing found", "error_number", 9003, "error",
							"Nothing found with query", "source",
							"slurmdb_jobs_get"));
	return json_pack("{s:{s:{s:s, s:s}, s:{s:{s:i, s:i, s:i}, s:s}}, s:o, s:o}",
			 "meta", "plugin", "type", "openapi/dbv0.0.38", "name",
			 "Slurm OpenAPI DB v0.0.38", "Slurm", "version", "major", 22, "micro", 8,
			 "minor", 5, "release", "22.05.8", "errors", errors, "jobs", jobs);
}
