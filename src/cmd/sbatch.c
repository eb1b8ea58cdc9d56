/* sbatch: submit a batch script.  Options (the job-option table, jobopt.c)
 * come from #SBATCH lines, then SBATCH_* variables, then the command line,
 * each overriding the one before, as in Slurm.  This file reads the script,
 * builds the job (jobopt_job: the options into the job object) and submits
 * it.  The
 * submission carries a random key made once per run and is retried with
 * the same key when no reply came, so a lost reply or a controller restart
 * never makes a second job. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/jobopt.h"
#include "common/tres_req.h"
#include "cmd/opt.h"
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
static int submit(const struct jobopt *o, json_t *body)
{
	struct cmd_client client;
	struct herd_error err = { "" };
	json_t *reply = NULL;

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s\n", err.text);
		return 1;
	}
	if (jobopt_gres_check(o, client.conf, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s\n", err.text);
		cmd_client_fini(&client);
		return 1;
	}
	const char *cluster = jobopt_clusters(o, &client);
	if (cluster && !*cluster) {
		cmd_client_fini(&client);
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
		if (rc == HERD_ERR_INVALID_PARTITION && jobopt_str(o, "partition"))
			fprintf(stderr, "sbatch: error: invalid partition specified: %s\n",
				jobopt_str(o, "partition"));
		fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n", err.text);
		return 1;
	}
	long long job_id = cmd_jint(reply, "job_id");
	if (jobopt_flag(o, "test_only")) {
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
	if (jobopt_flag(o, "parsable") && cluster)   /* Slurm: "ID;cluster" with -M */
		printf("%lld;%s\n", job_id, cluster);
	else if (jobopt_flag(o, "parsable"))
		printf("%lld\n", job_id);
	else if (!jobopt_flag(o, "quiet") && cluster)
		printf("Submitted batch job %lld on cluster %s\n", job_id, cluster);
	else if (!jobopt_flag(o, "quiet"))
		printf("Submitted batch job %lld\n", job_id);
	int status = 0;
	if (jobopt_flag(o, "wait")) {
		fflush(stdout);
		status = wait_for_job(&client, job_id);
	}
	cmd_client_fini(&client);
	return status;
}

static void env_replace(char ***env, size_t *n, char *entry);

/* sbatch(1)'s output variables of the GPU options ("h100:2", "2"), from
 * the request (srun inside reads them back: its steps ask what the job
 * asked). */
static void gpu_env(const struct jobopt *o, char ***env, size_t *n)
{
	static const char *const tres[][2] = {
		{ "tres_per_job", "SLURM_GPUS" }, { "tres_per_node", "SLURM_GPUS_PER_NODE" },
		{ "tres_per_socket", "SLURM_GPUS_PER_SOCKET" }, { "tres_per_task", "SLURM_GPUS_PER_TASK" },
	};
	static const char *const str[][2] = { { "gpu_bind", "SLURM_GPU_BIND" },
					      { "gpu_freq", "SLURM_GPU_FREQ" } };
	static const char *const num[][2] = { { "cpus_per_gpu", "SLURM_CPUS_PER_GPU" },
					      { "mem_per_gpu", "SLURM_MEM_PER_GPU" } };
	struct herd_error err;

	for (size_t k = 0; k < sizeof(tres) / sizeof(*tres); k++) {
		struct tres_item t[TRES_REQ_MAX];
		int nt = tres_req_parse(json_string_value(json_object_get(o->spec, tres[k][0])) ?: "", t,
					TRES_REQ_MAX, &err);
		for (int i = 0; i < nt; i++)
			if (!strcmp(t[i].name, "gpu") && t[i].count)
				env_replace(env, n, xasprintf("%s=%s%s%llu", tres[k][1], t[i].type,
							      t[i].type[0] ? ":" : "",
							      (unsigned long long)t[i].count));
	}
	for (size_t k = 0; k < sizeof(str) / sizeof(*str); k++) {
		const char *v = json_string_value(json_object_get(o->spec, str[k][0]));
		if (v && *v)
			env_replace(env, n, xasprintf("%s=%s", str[k][1], v));
	}
	for (size_t k = 0; k < sizeof(num) / sizeof(*num); k++) {
		json_int_t v = json_integer_value(json_object_get(o->spec, num[k][0]));
		if (v > 0)
			env_replace(env, n, xasprintf("%s=%lld", num[k][1], (long long)v));
	}
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

/* --export-file: NAME=value entries, each ended by a NUL, from a file or
 * (a number from 3 up) an open descriptor, over the job's environment.
 * -1 after printing Slurm's sentence. */
static int export_file(const char *spec, char ***env, size_t *n)
{
	long fd_number;
	FILE *f = opt_count(spec, &fd_number) == 0 && fd_number >= 3 && fd_number <= INT32_MAX
		  ? fdopen((int)fd_number, "r") : fopen(spec, "r");
	size_t len = 0;
	if (!f) {
		fprintf(stderr, "sbatch: error: Could not open user environment file %s\n", spec);
		return -1;
	}
	char *text = read_all(f, &len);
	fclose(f);
	for (size_t at = 0; at < len; at += strlen(text + at) + 1) {
		const char *entry = text + at;
		const char *eq = strchr(entry, '=');
		if (eq && eq > entry)   /* not a definition: skipped, as Slurm */
			env_replace(env, n, xstrdup(entry));
	}
	free(text);
	return 0;
}

static char *abs_path(const char *path, const char *cwd)
{
	if (path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

/* A reading's outcome: the run goes on (-1), or ends with this status. */
static int read_outcome(struct jobopt *o, int rc, const struct herd_error *err)
{
	jobopt_report(o, rc, err);
	if (rc == JOBOPT_INFO) {
		jobopt_info(o, stdout);
		return 0;
	}
	return rc == JOBOPT_FATAL ? 1 : rc < 0 ? 255 : -1;   /* Slurm exits -1 on a bad option */
}

int main(int argc, char **argv)
{
	struct jobopt o, first;
	struct herd_error err = { "" };
	int status = 1, first_arg = 0;
	char *script = NULL, *name = NULL, *cwd = NULL;
	char **script_args = NULL, **env = NULL;
	size_t script_len = 0;
	json_t *body = NULL;

	/* getopt names the program in its messages: Slurm says "sbatch:". */
	argv[0] = "sbatch";
	jobopt_init(&o, JOBOPT_SBATCH);
	jobopt_init(&first, JOBOPT_SBATCH);
	/* Pass 1: the command line alone, to find the script. */
	int r = jobopt_args(&first, JOBOPT_ARGS_FIRST, argc, argv, &first_arg, &err);
	if ((status = read_outcome(&first, r, &err)) >= 0)
		goto out_first;
	status = 1;

	const char *script_path = first_arg < argc ? argv[first_arg] : NULL;
	const char *wrap = jobopt_str(&first, "wrap");
	if (wrap) {
		if (script_path) {
			fprintf(stderr, "sbatch: error: script argument not permitted with --wrap option\n");
			status = 255;
			goto out_first;
		}
		script = xasprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n",
				   wrap);
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
	size_t nwords;
	char **words = opt_script_directives(script, "#SBATCH", &nwords);
	/* #PBS and #BSUB lines first (sbatch(1): unless --ignore-pbs), #SBATCH's over them */
	bool ignore_pbs = jobopt_flag(&first, "ignore-pbs") || getenv("SBATCH_IGNORE_PBS");
	for (size_t i = 0; i < nwords; i++)
		ignore_pbs |= !strcmp(words[i], "--ignore-pbs");
	if (!ignore_pbs) {
		size_t npbs, nsbatch;
		char **pbs = opt_script_directives(script, "#PBS", &npbs);
		char **sbatch_words = jobopt_pbs_words(pbs, npbs, &nsbatch);
		r = jobopt_words(&o, sbatch_words, nsbatch, &err);
		opt_strv_free(pbs);
		opt_strv_free(sbatch_words);
		if ((status = read_outcome(&o, r, &err)) >= 0) {
			opt_strv_free(words);
			goto out_first;
		}
		char bad;
		char **bsub = opt_script_directives(script, "#BSUB", &npbs);
		sbatch_words = jobopt_bsub_words(bsub, npbs, &nsbatch, &bad);
		opt_strv_free(bsub);
		if (!sbatch_words) {
			fprintf(stderr, "sbatch: invalid option -- '%c'\n"
				"sbatch: error: Unrecognized command line parameter ?\n", bad);
			opt_strv_free(words);
			status = 1;
			goto out_first;
		}
		r = jobopt_words(&o, sbatch_words, nsbatch, &err);
		opt_strv_free(sbatch_words);
		if ((status = read_outcome(&o, r, &err)) >= 0) {
			opt_strv_free(words);
			goto out_first;
		}
	}
	r = jobopt_words(&o, words, nwords, &err);
	opt_strv_free(words);
	if ((status = read_outcome(&o, r, &err)) >= 0)
		goto out_first;
	r = jobopt_env(&o, NULL, &err);
	if ((status = read_outcome(&o, r, &err)) >= 0)
		goto out_first;
	r = jobopt_args(&o, JOBOPT_ARGS, argc, argv, &first_arg, &err);
	if ((status = read_outcome(&o, r, &err)) >= 0)
		goto out_first;
	status = 1;

	long long begin = jobopt_int(&o, "begin_time", 0), deadline = jobopt_int(&o, "deadline", 0);
	if (begin && deadline && deadline < begin) {
		fprintf(stderr, "sbatch: error: Incompatible begin and deadline time specification\n");
		goto out_first;
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "sbatch: error: getcwd failed: %s\n", strerror(errno));
		goto out_first;
	}
	const char *chdir_to = jobopt_str(&o, "chdir");
	char *work_dir = chdir_to ? abs_path(chdir_to, cwd) : xstrdup(cwd);

	/* the name without -J (the job object prefers -J's) */
	if (jobopt_str(&o, "wrap"))
		name = xstrdup("wrap");
	else if (script_path) {
		char *copy = xstrdup(script_path);
		name = xstrdup(basename(copy));
		free(copy);
	} else
		name = xstrdup("sbatch");

	size_t nenv;
	const char *export_spec = jobopt_str(&o, "export");
	if (opt_export_env(export_spec, environ, &env, &nenv, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s\n", err.text);
		free(work_dir);
		goto out_first;
	}
	/* Slurm tells the job how it was exported, so srun inside follows, and
	 * the scheduling priority sbatch ran at (sbatch(1) SLURM_PRIO_PROCESS). */
	if (export_spec)
		env_replace(&env, &nenv, xasprintf("SLURM_EXPORT_ENV=%s", export_spec));
	if (jobopt_str(&o, "export-file") && export_file(jobopt_str(&o, "export-file"), &env, &nenv) < 0) {
		free(work_dir);
		goto out_first;
	}
	gpu_env(&o, &env, &nenv);
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

	char *command = script_path && !jobopt_str(&o, "wrap") ? abs_path(script_path, cwd) : NULL;
	/* Command= shows the script's absolute path; --wrap and stdin show "(null)". */
	struct jobopt_ctx ctx = { .script = script, .args = script_args, .env = env,
				  .cwd = work_dir, .name = name, .command = command,
				  .host = host, .umask = mask, .rlimits = true };
	body = jobopt_submit_body(&o, &ctx);
	jobopt_arbitrary_job(&o, json_object_get(body, "job"));   /* -m arbitrary, SLURM_HOSTFILE */
	free(command);
	free(work_dir);
	if (!body) {
		fprintf(stderr, "sbatch: error: the script or an option is not valid UTF-8\n");
		goto out_first;
	}
	status = submit(&o, body);

out_first:
	jobopt_free(&first);
	jobopt_free(&o);
	json_decref(body);
	opt_strv_free(env);
	opt_strv_free(script_args);
	free(script);
	free(name);
	free(cwd);
	return status;
}
