/* srun: run a parallel job step.  Inside an allocation (SLURM_JOB_ID or
 * --jobid) it makes a step of that job; outside one it first asks for an
 * allocation that runs no batch script, runs the step in it, then gives it
 * back with srun's exit status.  The step's I/O is srun_io.c; the options
 * are srun_opt.c. */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/srun_alloc.h"
#include "cmd/srun_io.h"
#include "cmd/srun_opt.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/xmalloc.h"

extern char **environ;

#define STEP_RETRY_MS 500

static void step_name(const struct jobopt *o, char *buf, size_t len)
{
	if (jobopt_str(o, "name")) {
		snprintf(buf, len, "%s", jobopt_str(o, "name"));
		return;
	}
	char *copy = xstrdup(o->argv[0]);
	snprintf(buf, len, "%s", basename(copy));
	free(copy);
}

/* STEP_CREATE, retried while the nodes are busy; the layout, or NULL after
 * printing why. */
static json_t *create_step(struct cmd_client *c, const struct jobopt *o, long long job_id,
			   json_t *step)
{
	json_t *body = json_pack("{s:I, s:O}", "job_id", (json_int_t)job_id, "step", step);
	bool said_busy = false;
	json_t *reply = NULL;
	for (int tries = 0;; tries++) {
		struct herd_error err = { "" };
		int rc = cmd_call(c, MSG_STEP_CREATE, body, &reply, &err);
		if (rc == 0)
			break;
		if (srun_alloc_interrupted) {
			reply = NULL;
			break;
		}
		if (rc == HERD_ERR_NODES_BUSY || (rc == CMD_NO_REPLY && tries < 120)) {
			if (rc == HERD_ERR_NODES_BUSY && !said_busy && !jobopt_flag(o, "quiet"))
				fprintf(stderr, "srun: Job %lld step creation temporarily disabled, retrying "
					"(%s)\n", job_id, err.text);
			said_busy |= rc == HERD_ERR_NODES_BUSY;
			usleep(STEP_RETRY_MS * 1000);
			continue;
		}
		/* Slurm looks the allocation up first: these are its words for a
		 * job that is not (or no longer, or not the caller's) to be had. */
		if (rc == HERD_ERR_INVALID_JOB || rc == HERD_ERR_ALREADY_DONE || rc == HERD_ERR_ACCESS) {
			fprintf(stderr, "srun: error: Unable to confirm allocation for job %lld: %s\n",
				job_id, err.text);
			fprintf(stderr, "srun: Check SLURM_JOB_ID environment variable. Expired or invalid "
				"job %lld\n", job_id);
		} else {
			fprintf(stderr, "srun: error: Unable to create step for job %lld: %s\n", job_id,
				err.text);
		}
		reply = NULL;
		break;
	}
	if (reply && said_busy && !jobopt_flag(o, "quiet"))
		fprintf(stderr, "srun: Step created for job %lld\n", job_id);
	json_decref(body);
	return reply;
}

static char *abs_path(const char *path, const char *cwd)
{
	return path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
}

/* --prolog/--epilog (srun(1)): run here, the step's command and arguments
 * its arguments; "none" runs nothing.  The raw wait status (0: ran clean). */
static int run_hook(const char *path, const struct jobopt *o, long long job_id)
{
	if (!path || !strcasecmp(path, "none"))
		return 0;
	pid_t pid = fork();
	if (pid < 0)
		return 1 << 8;
	if (pid == 0) {
		char **argv = xmalloc((o->argc + 2) * sizeof(*argv));
		char id[32];
		argv[0] = (char *)path;
		for (int i = 0; i < o->argc; i++)
			argv[i + 1] = o->argv[i];
		snprintf(id, sizeof(id), "%lld", job_id);
		setenv("SLURM_JOB_ID", id, 1);
		setenv("SLURM_JOBID", id, 1);
		execv(path, argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* --task-prolog/--task-epilog: each task runs them around its command, by
 * a shell that reads the prolog's "export NAME=value", "unset NAME" and
 * "print text" lines as Slurm's task prolog does. */
static const char task_wrapper[] =
	"p=$1 e=$2; shift 2\n"
	"if [ -n \"$p\" ]; then\n"
	"  out=$(\"$p\")\n"
	"  while IFS= read -r line; do\n"
	"    case $line in\n"
	"      'export '*) export \"${line#export }\" ;;\n"
	"      'unset '*) unset \"${line#unset }\" ;;\n"
	"      'print '*) printf '%s\\n' \"${line#print }\" ;;\n"
	"    esac\n"
	"  done <<HERD_TASK_PROLOG\n"
	"$out\n"
	"HERD_TASK_PROLOG\n"
	"fi\n"
	"\"$@\"; rc=$?\n"
	"if [ -n \"$e\" ]; then \"$e\"; fi\n"
	"exit $rc\n";

static char **task_wrap(struct jobopt *o, const char *prolog, const char *epilog)
{
	char **argv = xmalloc((o->argc + 7) * sizeof(*argv));
	int n = 0;
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = (char *)task_wrapper;
	argv[n++] = "slurm_task";
	argv[n++] = (char *)(prolog ? prolog : "");
	argv[n++] = (char *)(epilog ? epilog : "");
	for (int i = 0; i < o->argc; i++)
		argv[n++] = o->argv[i];
	argv[n] = NULL;
	o->argv = argv;
	o->argc = n;
	return argv;
}

/* -r N: the step's nodes from node N of the allocation (job_nodes) on, as
 * many as -N asks (all the rest without it).  NULL with err. */
static char *relative_nodes(const struct jobopt *o, const char *job_nodes,
			    struct herd_error *err)
{
	struct hostlist *all = hostlist_create(job_nodes ? job_nodes : "");
	long long from = jobopt_int(o, "relative", 0), want = jobopt_int(o, "nodes", 0);
	size_t count = all ? hostlist_count(all) : 0;
	char *list = NULL;
	if (from < 0 || (size_t)from >= count) {
		errprintf(err, "--relative=%lld is beyond the allocation's %zu nodes", from, count);
	} else {
		if (!want || (size_t)(from + want) > count) {
			if (want && (size_t)(from + want) > count)
				fprintf(stderr, "srun: warning: -N %lld with --relative=%lld: the step "
					"gets the %zu nodes from node %lld on\n", want, from,
					count - (size_t)from, from);
			want = (long long)(count - (size_t)from);
		}
		const char **names = xmalloc(want * sizeof(*names));
		for (long long i = 0; i < want; i++)
			names[i] = hostlist_nth(all, (size_t)(from + i));
		list = hostlist_compress(names, (size_t)want);
		free(names);
	}
	hostlist_destroy(all);
	return list;
}

int main(int argc, char **argv)
{
	struct jobopt o;
	struct herd_error err = { "" };
	struct cmd_client client;
	bool have_client = false, own_alloc = false;
	char **env = NULL, **multi_prog = NULL, **wrapped = NULL;
	char *cwd = NULL, *work_dir = NULL;
	struct srun_io *io = NULL;
	json_t *layout = NULL, *job = NULL;
	long long job_id = 0;
	int status = 1;

	argv[0] = "srun";
	int r = srun_opts_parse(&o, JOBOPT_SRUN, argc, argv, NULL, stdout, &err);
	jobopt_report(&o, r, &err);
	if (r == SRUN_PARSE_INFO) {
		status = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	const char *task_prolog = jobopt_str(&o, "task-prolog"), *task_epilog = jobopt_str(&o, "task-epilog");
	if ((task_prolog || task_epilog) && jobopt_flag(&o, "multi-prog")) {
		fprintf(stderr, "srun: error: --task-prolog and --task-epilog do not combine with "
			"--multi-prog here: give each program its own\n");
		goto out;
	}
	if (jobopt_given(&o, "relative") && !jobopt_int(&o, "jobid", 0)) {
		fprintf(stderr, "srun: fatal: --relative option invalid for job allocation request\n");
		goto out;
	}
	if (jobopt_given(&o, "relative") &&
	    (jobopt_given(&o, "req_nodelist") || jobopt_given(&o, "exc_nodelist"))) {
		fprintf(stderr, "srun: fatal: --relative cannot be given with -w or -x\n");
		goto out;
	}
	if (jobopt_flag(&o, "no-allocate")) {
		/* srun(1): root and SlurmUser only, on the nodes of -w; the step
		 * shares them with whatever runs there */
		if (getuid() != 0) {
			fprintf(stderr, "srun: error: --no-allocate is only for root or SlurmUser\n");
			goto out;
		}
		if (!jobopt_given(&o, "req_nodelist")) {
			fprintf(stderr, "srun: error: --no-allocate needs the nodes (-w)\n");
			goto out;
		}
		json_object_set_new(o.spec, "oversubscribe", json_true());
	}
	if (task_prolog || task_epilog)
		wrapped = task_wrap(&o, task_prolog, task_epilog);
	if (o.het_next) {
		/* One step over several components (Slurm's one MPI_COMM_WORLD
		 * across them) is not there yet: said, rather than running the
		 * first command alone (doc/hetjob.md). */
		fprintf(stderr, "srun: error: a step over several heterogeneous job components "
			"(srun A : B) is not supported yet; run one srun --het-group=N per component\n");
		goto out;
	}
	if (jobopt_flag(&o, "multi-prog")) {
		long ntasks = jobopt_int(&o, "ntasks", 0);
		multi_prog = srun_multi_prog_read(o.argv[0], &ntasks, &err);
		if (!multi_prog) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
		json_object_set_new(o.spec, "ntasks", json_integer(ntasks));
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "srun: error: getcwd failed: %s\n", strerror(errno));
		goto out;
	}
	const char *chdir_to = jobopt_str(&o, "chdir");
	work_dir = chdir_to ? abs_path(chdir_to, cwd) : xstrdup(cwd);
	if (opt_export_env(jobopt_str(&o, "export"), environ, &env, NULL, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	have_client = true;
	const char *cluster = jobopt_clusters(&o, &client);
	if (cluster && !*cluster)
		goto out;
	srun_alloc_catch_signals();
	signal(SIGPIPE, SIG_IGN);

	char name[256];
	step_name(&o, name, sizeof(name));
	if (jobopt_int(&o, "jobid", 0)) {
		job_id = jobopt_int(&o, "jobid", 0);
	} else {
		json_t *body = srun_alloc_body(&o, name, env, work_dir);
		if (!body) {
			fprintf(stderr, "srun: error: an option is not valid UTF-8\n");
			goto out;
		}
		r = srun_alloc_submit(&client, "srun", &o, body, &job_id);
		json_decref(body);
		if (r != 0) {
			status = r > 0 ? 0 : 1;
			goto out;
		}
		own_alloc = true;
		if (srun_alloc_wait(&client, "srun", &o, job_id, true, &job) < 0) {
			own_alloc = false;   /* cancelled or ended: nothing to give back */
			goto out;
		}
		if (o.verbose)
			fprintf(stderr, "srun: jobid %lld: nodes(%lld):`%s', cpu counts: %lld\n", job_id,
				cmd_jint(job, "num_nodes"), cmd_jstr(job, "nodes"),
				cmd_jint(job, "num_cpus"));
	}

	if (jobopt_given(&o, "relative")) {
		char *nodes = relative_nodes(&o, getenv("SLURM_JOB_NODELIST"), &err);
		if (!nodes) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
		struct hostlist *step_nodes = hostlist_create(nodes);
		json_object_set_new(o.spec, "req_nodelist", json_string(nodes));
		json_object_set_new(o.spec, "nodes", json_integer((json_int_t)hostlist_count(step_nodes)));
		hostlist_destroy(step_nodes);
		free(nodes);
	}
	const char *prolog = jobopt_str(&o, "prolog");
	if (prolog) {
		int st = run_hook(prolog, &o, job_id);
		if (st) {
			fprintf(stderr, "srun: error: srun prolog failed rc = %d. Aborting step.\n",
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			goto out;
		}
	}

	char host[64];
	if (srun_local_addr(&client, host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	struct srun_io_opts io_opts = {
		.label = jobopt_flag(&o, "label"), .unbuffered = jobopt_flag(&o, "unbuffered"),
		.pty = jobopt_flag(&o, "pty"), .quiet = jobopt_flag(&o, "quiet"),
		.disable_status = jobopt_flag(&o, "disable-status"),
		.quit_on_interrupt = jobopt_flag(&o, "quit-on-interrupt"),
		.kill_on_bad_exit = (int)jobopt_int(&o, "kill-on-bad-exit", 0),
		.max_wait = (int)jobopt_int(&o, "wait", 0),
		.stdin_task = (int)jobopt_int(&o, "stdin_task", 0),
		.stdin_file = jobopt_given(&o, "input"),
		.stdout_file = jobopt_given(&o, "output"), .stderr_file = jobopt_given(&o, "error"),
		.kill_wait = (int)conf_get_int(client.conf, "KillWait", 30),
	};
	io = srun_io_create(host, &io_opts, &err);
	if (!io) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	json_t *step = srun_step_body(&o, name, env, work_dir, host, srun_io_port(io),
				      srun_io_key(io), multi_prog);
	if (!step) {
		fprintf(stderr, "srun: error: the command or an option is not valid UTF-8\n");
		goto out;
	}
	layout = create_step(&client, &o, job_id, step);
	json_decref(step);
	if (!layout) {
		if (srun_alloc_interrupted && own_alloc)
			fprintf(stderr, "srun: Job allocation %lld has been revoked.\n", job_id);
		goto out;
	}
	if (srun_io_set_step(io, job_id, layout, &client, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	if (o.verbose)
		fprintf(stderr, "srun: launching StepId=%lld.%lld on host%s %s, %lld tasks\n", job_id,
			cmd_jint(layout, "step_id"), cmd_jint(layout, "num_nodes") > 1 ? "s" : "",
			cmd_jstr(layout, "nodes"), cmd_jint(layout, "num_tasks"));
	status = srun_io_run(io);
	if (jobopt_str(&o, "epilog")) {
		int st = run_hook(jobopt_str(&o, "epilog"), &o, job_id);
		if (st)
			fprintf(stderr, "srun: error: srun epilog failed status=%d\n",
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}

out:
	if (own_alloc)
		srun_alloc_complete(&client, "srun", job_id, (status & 0xff) << 8);
	srun_io_destroy(io);
	json_decref(layout);
	json_decref(job);
	if (have_client)
		cmd_client_fini(&client);
	opt_strv_free(env);
	opt_strv_free(multi_prog);
	free(cwd);
	free(work_dir);
	free(wrapped);
	jobopt_free(&o);
	return status;
}
