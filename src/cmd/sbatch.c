/* sbatch: submit a batch script.  Options (sbatch_opt.c) come from #SBATCH
 * lines, then SBATCH_* variables, then the command line, each overriding the
 * one before, as in Slurm.  This file reads the script, builds the job and
 * submits it.  The submission carries a random key made once per run and is
 * retried with the same key when no reply came, so a lost reply or a
 * controller restart never makes a second job. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/sbatch_opt.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

extern char **environ;

#define SUBMIT_RETRY_S 60   /* how long a submission rides over a dead controller */

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Slurm's checks on the script text; 0 or -1 after printing why. */
static int check_script(const char *script, size_t len)
{
	if (len == 0) {
		fprintf(stderr, "sbatch: error: Batch script is empty!\n");
		return -1;
	}
	if (strncmp(script, "#!", 2)) {
		fprintf(stderr, "sbatch: error: This does not look like a batch script.  The first\n"
			"sbatch: error: line must start with #! followed by the path to an interpreter.\n"
			"sbatch: error: For instance: #!/bin/sh\n");
		return -1;
	}
	if (strlen(script) != len) {
		fprintf(stderr, "sbatch: error: The Slurm controller does not allow scripts that "
			"contain a NULL character '\\0'.\n");
		return -1;
	}
	if (strstr(script, "\r\n")) {
		fprintf(stderr, "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
			"sbatch: error: instead of expected UNIX line breaks (\\n).\n");
		return -1;
	}
	return 0;
}

static void make_key(char *key, size_t size)
{
	unsigned char raw[16];
	size_t got = 0;
	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	if (got < sizeof(raw)) {
		/* No entropy source: time and pid still make a per-run key. */
		snprintf(key, size, "%lx-%lx-%x", (long)time(NULL), (long)getpid(), (unsigned)clock());
		return;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(key + 2 * i, size - 2 * i, "%02x", raw[i]);
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --wait: poll until the job ends; exit as the job did (sbatch(1): its exit
 * code, or 1 when a signal ended it or it did not complete).  A controller
 * that does not answer is waited for, as submission waits for it. */
static int wait_for_job(struct cmd_client *client, long long job_id)
{
	double delay = 1;
	for (;;) {
		struct herd_error err = { "" };
		json_t *reply = NULL;
		json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)job_id);
		int rc = cmd_call(client, MSG_JOB_INFO, body, &reply, &err);
		json_decref(body);
		if (rc != 0 && rc != CMD_NO_REPLY) {
			fprintf(stderr, "sbatch: error: slurm_load_jobs error: %s\n", err.text);
			return 1;
		}
		if (rc == 0) {
			json_t *job = json_array_get(json_object_get(reply, "jobs"), 0);
			int state = job_state_parse(cmd_jstr(job, "state"));
			int status = (int)cmd_jint(job, "exit_code");
			json_decref(reply);
			if (state >= 0 && job_state_is_final(state)) {
				if (state == JOB_COMPLETED)
					return 0;
				if (WIFEXITED(status) && WEXITSTATUS(status))
					return WEXITSTATUS(status);
				return 1;
			}
		}
		usleep((useconds_t)(delay * 1e6));
		if (delay < 10)
			delay *= 1.5;
	}
}

/* Submit with retries on a missing reply; prints the outcome. */
static int submit(const struct sbatch_opts *o, json_t *body)
{
	struct cmd_client client;
	struct herd_error err = { "" };
	json_t *reply = NULL;

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s\n", err.text);
		return 1;
	}
	double start = now_s(), delay = 0.2;
	int rc;
	for (;;) {
		rc = cmd_call(&client, MSG_SUBMIT_JOB, body, &reply, &err);
		if (rc != CMD_NO_REPLY || now_s() - start >= SUBMIT_RETRY_S)
			break;
		if (o->verbose)
			fprintf(stderr, "sbatch: no reply from the controller (%s); retrying\n",
				client.detail.text);
		usleep((useconds_t)(delay * 1e6));
		if (delay < 2)
			delay *= 2;
	}
	if (rc != 0) {
		cmd_client_fini(&client);
		/* Slurm names the partition it could not find before the failure. */
		if (rc == HERD_ERR_INVALID_PARTITION && o->partition)
			fprintf(stderr, "sbatch: error: invalid partition specified: %s\n", o->partition);
		fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n", err.text);
		return 1;
	}
	long long job_id = cmd_jint(reply, "job_id");
	if (o->test_only) {
		/* Slurm's --test-only line; nothing was queued. */
		char when[64];
		fprintf(stderr, "sbatch: Job %lld to start at %s using %lld processors on nodes %s "
			"in partition %s\n", job_id,
			fmt_timestamp(cmd_jint(reply, "start_time"), when, sizeof(when)),
			cmd_jint(reply, "num_cpus"), cmd_jstr(reply, "nodes"),
			cmd_jstr(reply, "partition"));
		json_decref(reply);
		cmd_client_fini(&client);
		return 0;
	}
	json_decref(reply);
	if (o->parsable)
		printf("%lld\n", job_id);
	else if (!o->quiet)
		printf("Submitted batch job %lld\n", job_id);
	int status = 0;
	if (o->wait) {
		fflush(stdout);
		status = wait_for_job(&client, job_id);
	}
	cmd_client_fini(&client);
	return status;
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
		{ "reservation", o->reservation },
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

/* Set "KEY=value" in env (steals entry), over an entry of the same key. */
static void env_replace(char ***env, size_t *n, char *entry)
{
	size_t klen = strcspn(entry, "=") + 1;
	for (size_t i = 0; i < *n; i++)
		if (!strncmp((*env)[i], entry, klen)) {
			free((*env)[i]);
			(*env)[i] = entry;
			return;
		}
	opt_strv_push(env, n, entry);
}

static char *abs_path(const char *path, const char *cwd)
{
	if (path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

int main(int argc, char **argv)
{
	struct sbatch_opts o, first;
	bool info_only = false;
	int status = 1;
	char *script = NULL, *name = NULL, *cwd = NULL;
	char **script_args = NULL, **env = NULL;
	size_t script_len = 0;
	json_t *body = NULL;

	/* getopt names the program in its messages: Slurm says "sbatch:". */
	argv[0] = "sbatch";
	sbatch_opts_init(&o);
	sbatch_opts_init(&first);
	/* Pass 1: the command line alone, to find the script. */
	int first_arg = sbatch_opts_args(&first, SBATCH_FROM_ARGS_FIRST, argc, argv, &info_only);
	if (info_only) {
		status = 0;
		goto out_first;
	}
	if (first_arg < 0) {
		status = first_arg == -2 ? 1 : 255;   /* Slurm exits -1 on a bad option */
		goto out_first;
	}

	const char *script_path = first_arg < argc ? argv[first_arg] : NULL;
	if (first.wrap) {
		if (script_path) {
			fprintf(stderr, "sbatch: error: script argument not permitted with --wrap option\n");
			status = 255;
			goto out_first;
		}
		script = xasprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n",
				   first.wrap);
		script_len = strlen(script);
	} else if (script_path) {
		FILE *f = fopen(script_path, "r");
		if (!f) {
			fprintf(stderr, "sbatch: error: Unable to open file %s\n", script_path);
			goto out_first;
		}
		script = read_all(f, &script_len);
		fclose(f);
	} else {
		script = read_all(stdin, &script_len);
	}
	if (check_script(script, script_len) < 0)
		goto out_first;

	/* Pass 2: #SBATCH lines, then SBATCH_*, then the command line. */
	int r = sbatch_opts_script(&o, script, &info_only);
	if (r < 0 || info_only) {
		status = info_only ? 0 : r == -2 ? 1 : 255;
		goto out_first;
	}
	r = sbatch_opts_env(&o);
	if (r < 0) {
		status = r == -2 ? 1 : 255;
		goto out_first;
	}
	r = sbatch_opts_args(&o, SBATCH_FROM_ARGS, argc, argv, &info_only);
	if (r < 0) {
		status = r == -2 ? 1 : 255;
		goto out_first;
	}
	sbatch_opts_finish(&o);

	if (o.begin && o.deadline && o.deadline < o.begin) {
		fprintf(stderr, "sbatch: error: Incompatible begin and deadline time specification\n");
		goto out_first;
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "sbatch: error: getcwd failed: %s\n", strerror(errno));
		goto out_first;
	}
	char *work_dir = o.chdir ? abs_path(o.chdir, cwd) : xstrdup(cwd);

	if (o.job_name)
		name = xstrdup(o.job_name);
	else if (o.wrap)
		name = xstrdup("wrap");
	else if (script_path) {
		char *copy = xstrdup(script_path);
		name = xstrdup(basename(copy));
		free(copy);
	} else
		name = xstrdup("sbatch");

	struct herd_error err = { "" };
	size_t nenv;
	if (opt_export_env(o.export_spec, environ, &env, &nenv, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s\n", err.text);
		free(work_dir);
		goto out_first;
	}
	/* Slurm tells the job how it was exported, so srun inside follows, and
	 * the scheduling priority sbatch ran at (sbatch(1) SLURM_PRIO_PROCESS). */
	if (o.export_spec)
		env_replace(&env, &nenv, xasprintf("SLURM_EXPORT_ENV=%s", o.export_spec));
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, 0);
	env_replace(&env, &nenv, xasprintf("SLURM_PRIO_PROCESS=%d", errno ? 0 : prio));

	size_t nargs = 0;
	script_args = xmalloc(sizeof(*script_args));
	for (int i = first_arg + 1; script_path && i < argc; i++)
		opt_strv_push(&script_args, &nargs, xstrdup(argv[i]));

	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	mode_t mask = umask(0);
	umask(mask);

	char key[64];
	make_key(key, sizeof(key));

	json_t *job = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I,"
				" s:I, s:b, s:I, s:b, s:s, s:I, s:s, s:s}",
				"name", name, "script", script,
				"argv", strv_json(script_args), "env", strv_json(env),
				"cwd", work_dir,
				"stdout", o.output ? o.output : "",
				"stderr", o.error ? o.error : "",
				"stdin", o.input ? o.input : "",
				"partition", o.partition ? o.partition : "",
				"nodes", (json_int_t)o.nodes, "ntasks", (json_int_t)o.ntasks,
				"cpus_per_task", (json_int_t)o.cpus_per_task,
				"mem_mb", (json_int_t)o.mem_mb, "exclusive", o.exclusive,
				"time_limit", (json_int_t)o.time_limit, "hold", o.hold,
				"submit_host", host, "umask", (json_int_t)mask,
				"account", o.account ? o.account : "",
				"comment", o.comment ? o.comment : "");
	free(work_dir);
	if (job && script_path && !o.wrap) {
		/* Command= shows the script's absolute path; --wrap and stdin show "(null)". */
		char *command = abs_path(script_path, cwd);
		json_object_set_new(job, "command", json_string(command));
		free(command);
	}
	if (job && o.array)
		json_object_set_new(job, "array", json_string(o.array));
	if (job && o.dependency && json_object_set_new(job, "dependency", json_string(o.dependency))) {
		json_decref(job);   /* not UTF-8 */
		job = NULL;
	}
	if (job && o.begin)
		json_object_set_new(job, "begin_time", json_integer(o.begin));
	if (job && o.deadline)
		json_object_set_new(job, "deadline", json_integer(o.deadline));
	if (job && o.kill_on_invalid_dep >= 0)
		json_object_set_new(job, "kill_on_invalid_dep", json_boolean(o.kill_on_invalid_dep));
	if (!job) {
		fprintf(stderr, "sbatch: error: the script or an option is not valid UTF-8\n");
		goto out_first;
	}
	if (add_new_fields(job, &o) < 0) {
		json_decref(job);
		fprintf(stderr, "sbatch: error: an option is not valid UTF-8\n");
		goto out_first;
	}
	body = json_pack("{s:s, s:o}", "key", key, "job", job);
	status = submit(&o, body);

out_first:
	sbatch_opts_free(&first);
	sbatch_opts_free(&o);
	json_decref(body);
	opt_strv_free(env);
	opt_strv_free(script_args);
	free(script);
	free(name);
	free(cwd);
	return status;
}
