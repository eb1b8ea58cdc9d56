/* sbatch's options into the SUBMIT_JOB job object: see sbatch_spec.h. */
#include "cmd/sbatch_spec.h"
#include "common/parse.h"

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The JOBSPEC keys added after the first protocol version: only those the
 * user gave, so what an older controller never knew is not sent. */
static int add_new_fields(json_t *job, const struct sbatch_opts *o)
{
	char mail[256];
	const struct {
		const char *key;
		const char *value;
	} strs[] = {
		{ "qos", o->qos }, { "constraint", o->constraint }, { "req_nodelist", o->nodelist },
		{ "reservation", o->reservation }, { "container", o->container },
		{ "exc_nodelist", o->exclude }, { "mail_user", o->mail_user },
		{ "mail_type", o->mail_type_set ? fmt_mail_type(o->mail_type, mail, sizeof(mail)) : NULL },
		{ "open_mode", o->open_mode == 'a' ? "append" : o->open_mode == 't' ? "truncate" : NULL },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i].value) {
			json_t *v = json_string(strs[i].value);
			if (!v)
				rc = -1;
			json_object_set_new(job, strs[i].key, v ? v : json_null());
		}
	if (o->nice_set)
		json_object_set_new(job, "nice", json_integer(o->nice));
	if (o->requeue >= 0)
		json_object_set_new(job, "requeue", json_boolean(o->requeue));
	if (o->mem_per_cpu)
		json_object_set_new(job, "mem_per_cpu", json_integer((json_int_t)o->mem_per_cpu));
	if (o->ntasks_per_node)
		json_object_set_new(job, "ntasks_per_node", json_integer(o->ntasks_per_node));
	if (o->time_min != TIME_NOT_GIVEN)
		json_object_set_new(job, "time_min", json_integer(o->time_min));
	if (o->signal) {
		char flag[2] = { o->signal_flag, 0 };
		json_object_set_new(job, "signal", json_integer(o->signal));
		json_object_set_new(job, "signal_time", json_integer(o->signal_time));
		json_object_set_new(job, "signal_flags", json_string(flag));
	}
	if (o->test_only)
		json_object_set_new(job, "test_only", json_true());
	return rc;
}

json_t *sbatch_spec_job(const struct sbatch_opts *o, const struct sbatch_spec_ctx *c)
{
	json_t *job = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I,"
				" s:I, s:b, s:I, s:b, s:s, s:I, s:s, s:s}",
				"name", o->job_name ? o->job_name : c->name, "script", c->script,
				"argv", strv_json(c->args), "env", strv_json(c->env),
				"cwd", c->cwd,
				"stdout", o->output ? o->output : "",
				"stderr", o->error ? o->error : "",
				"stdin", o->input ? o->input : "",
				"partition", o->partition ? o->partition : "",
				"nodes", (json_int_t)o->nodes, "ntasks", (json_int_t)o->ntasks,
				"cpus_per_task", (json_int_t)o->cpus_per_task,
				"mem_mb", (json_int_t)o->mem_mb, "exclusive", o->exclusive,
				"time_limit", (json_int_t)o->time_limit, "hold", o->hold,
				"submit_host", c->host, "umask", (json_int_t)c->umask,
				"account", o->account ? o->account : "",
				"comment", o->comment ? o->comment : "");
	if (job && c->command)
		json_object_set_new(job, "command", json_string(c->command));
	if (job && o->array)
		json_object_set_new(job, "array", json_string(o->array));
	if (job && o->dependency && json_object_set_new(job, "dependency", json_string(o->dependency))) {
		json_decref(job);   /* not UTF-8 */
		job = NULL;
	}
	if (job && o->begin)
		json_object_set_new(job, "begin_time", json_integer(o->begin));
	if (job && o->deadline)
		json_object_set_new(job, "deadline", json_integer(o->deadline));
	if (job && o->kill_on_invalid_dep >= 0)
		json_object_set_new(job, "kill_on_invalid_dep", json_boolean(o->kill_on_invalid_dep));
	if (job && add_new_fields(job, o) < 0) {
		json_decref(job);
		job = NULL;
	}
	return job;
}
