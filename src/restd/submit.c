/* POST /slurm/v0.0.38/job/submit: slurmrestd's job description turned into
 * the controller's SUBMIT_JOB body (doc/protocol.md), for the fields
 * doc/rest.md lists; any other field is refused by name rather than
 * ignored, so a client never believes it got what it asked for.  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/parse.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

/* A string field, "" when absent; -1 when present and not a string. */
static int submit_str(const json_t *job, const char *key, const char **out, struct herd_error *err)
{
	json_t *v = json_object_get(job, key);
	*out = "";
	if (!v)
		return 0;
	if (!json_is_string(v))
		return errprintf(err, "job.%s must be a string", key);
	*out = json_string_value(v);
	return 0;
}

/* A count; "nodes" may also be a string of digits, as v0.0.38 writes it. */
static int submit_int(const json_t *job, const char *key, int64_t max, int64_t *out,
		      struct herd_error *err)
{
	json_t *v = json_object_get(job, key);
	uint64_t u;
	*out = 0;
	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= max) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && parse_uint(json_string_value(v), max, &u) == 0) {
		*out = u;
		return 0;
	}
	return errprintf(err, "job.%s must be a number from 0 to %lld", key, (long long)max);
}

/* environment: an object {"NAME": "value"} (v0.0.38) or ["NAME=value"]. */
static json_t *submit_env(const json_t *env, struct herd_error *err)
{
	json_t *out = json_array(), *v;
	const char *k;
	size_t i;

	if (json_is_object(env)) {
		json_object_foreach((json_t *)env, k, v) {
			if (!json_is_string(v) || !*k || strchr(k, '=')) {
				errprintf(err, "job.environment.%s must be a string with a name without '='", k);
				goto error;
			}
			char *kv = xasprintf("%s=%s", k, json_string_value(v));
			json_array_append_new(out, json_string(kv));
			free(kv);
		}
	} else if (json_is_array(env)) {
		json_array_foreach(env, i, v) {
			if (!json_is_string(v) || !strchr(json_string_value(v), '=')) {
				errprintf(err, "job.environment[%zu] must be a \"NAME=value\" string", i);
				goto error;
			}
			json_array_append(out, v);
		}
	} else if (env) {
		errprintf(err, "job.environment must be an object or an array");
		goto error;
	}
	return out;
error:
	json_decref(out);
	return NULL;
}

/* One job description (v0.0.38's "job", or one of "jobs") as a JOBSPEC;
 * NULL with err. */
static json_t *job_spec(const json_t *job, const char *script, const char *submit_host,
			struct herd_error *err)
{
	static const char *const known[] = {
		"name", "current_working_directory", "environment", "partition", "nodes", "tasks",
		"cpus_per_task", "time_limit", "standard_output", "standard_error", "standard_input",
		"account", "comment", "hold", "memory_per_node", "memory_per_cpu", "argv", "licenses",
		NULL,
	};
	const char *name, *cwd, *part, *out, *errf, *in, *account, *comment, *licenses, *k;
	int64_t nodes, tasks, cpt, limit, mem, mpc;
	json_t *env, *argv = NULL, *hold, *v, *spec;
	size_t i;

	if (!json_is_object(job))
		return errprintf(err, "each job must be a JSON object"), NULL;
	json_object_foreach((json_t *)job, k, v) {
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i])
			return errprintf(err, "unsupported field job.%s", k), NULL;
	}
	if (!script || !*script)
		return errprintf(err, "script is missing or empty"), NULL;
	if (strncmp(script, "#!", 2))
		return errprintf(err, "script must start with #! (as sbatch's first line)"), NULL;
	if (submit_str(job, "name", &name, err) < 0 ||
	    submit_str(job, "current_working_directory", &cwd, err) < 0 ||
	    submit_str(job, "partition", &part, err) < 0 ||
	    submit_str(job, "standard_output", &out, err) < 0 ||
	    submit_str(job, "standard_error", &errf, err) < 0 ||
	    submit_str(job, "standard_input", &in, err) < 0 ||
	    submit_str(job, "account", &account, err) < 0 ||
	    submit_str(job, "comment", &comment, err) < 0 ||
	    submit_str(job, "licenses", &licenses, err) < 0 ||
	    submit_int(job, "nodes", 1000000, &nodes, err) < 0 ||
	    submit_int(job, "tasks", 100000000, &tasks, err) < 0 ||
	    submit_int(job, "cpus_per_task", 1000000, &cpt, err) < 0 ||
	    submit_int(job, "time_limit", 100000000, &limit, err) < 0 ||
	    submit_int(job, "memory_per_node", INT64_MAX / 2, &mem, err) < 0 ||
	    submit_int(job, "memory_per_cpu", INT64_MAX / 2, &mpc, err) < 0)
		return NULL;
	/* As slurmrestd: there is no submitting shell to take it from. */
	if (cwd[0] != '/')
		return errprintf(err, "job.current_working_directory must be an absolute path"), NULL;
	hold = json_object_get(job, "hold");
	if (hold && !json_is_boolean(hold))
		return errprintf(err, "job.hold must be true or false"), NULL;
	v = json_object_get(job, "argv");
	if (v) {
		if (!json_is_array(v))
			return errprintf(err, "job.argv must be an array of strings"), NULL;
		json_t *a;
		json_array_foreach(v, i, a)
			if (!json_is_string(a))
				return errprintf(err, "job.argv must be an array of strings"), NULL;
		argv = json_incref(v);
	} else {
		argv = json_array();
	}
	env = submit_env(json_object_get(job, "environment"), err);
	if (!env) {
		json_decref(argv);
		return NULL;
	}
	spec = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b,"
			 " s:I, s:b, s:s, s:I, s:s, s:s}",
			 "name", *name ? name : "sbatch", "script", script, "argv", argv, "env", env,
			 "cwd", cwd, "stdout", out, "stderr", errf, "stdin", in, "partition", part,
			 "nodes", (json_int_t)nodes, "ntasks", (json_int_t)tasks,
			 "cpus_per_task", (json_int_t)cpt, "mem_mb", (json_int_t)mem, "exclusive", 0,
			 /* minutes in v0.0.38; 0 = the partition's default */
			 "time_limit", (json_int_t)(limit ? limit * 60 : TIME_NOT_GIVEN),
			 "hold", hold && json_is_true(hold), "submit_host", submit_host,
			 "umask", (json_int_t)022, "account", account, "comment", comment);
	if (!spec)
		return errprintf(err, "a field is not valid UTF-8"), NULL;
	if (mpc)
		json_object_set_new(spec, "mem_per_cpu", json_integer(mpc));
	if (*licenses)   /* -L's text: the controller checks it */
		json_object_set_new(spec, "licenses", json_string(licenses));
	return spec;
}

/* v0.0.38's body: {"job": JOB, "script"}, or a heterogeneous job's
 * {"jobs": [JOB, ...], "script"} (the first is component 0, which runs
 * the script; the others go in SUBMIT_JOB's "het"). */
json_t *restd_submit_body(const json_t *req, const char *submit_host, struct herd_error *err)
{
	const json_t *job = json_object_get(req, "job"), *jobs = json_object_get(req, "jobs");
	const char *script = json_string_value(json_object_get(req, "script")), *k;
	json_t *v, *spec, *het = NULL;

	if (!json_is_object(req) || (!json_is_object(job) && !json_is_array(jobs)) || (job && jobs))
		return errprintf(err, "the request body must be a JSON object with \"job\" (or \"jobs\")"
				 " and \"script\""), NULL;
	json_object_foreach((json_t *)req, k, v)
		if (strcmp(k, "job") && strcmp(k, "jobs") && strcmp(k, "script"))
			return errprintf(err, "unsupported field \"%s\"", k), NULL;
	if (jobs && (json_array_size(jobs) < 1 || json_array_size(jobs) > 128))
		return errprintf(err, "jobs must hold 1 to 128 job descriptions"), NULL;
	spec = job_spec(job ? job : json_array_get(jobs, 0), script, submit_host, err);
	for (size_t i = 1; spec && jobs && i < json_array_size(jobs); i++) {
		json_t *c = job_spec(json_array_get(jobs, i), script, submit_host, err);
		if (!c) {
			json_decref(spec);
			json_decref(het);
			return NULL;
		}
		if (!het)
			het = json_array();
		json_array_append_new(het, c);
	}
	if (!spec)
		return NULL;
	json_t *body = json_pack("{s:s, s:o}", "key", "", "job", spec);
	if (het)
		json_object_set_new(body, "het", het);
	return body;
}
