#define _GNU_SOURCE   /* pipe2 */
/* salloc: get an allocation, run a command (or the user's shell) in it with
 * the job's SLURM_* variables, and give the allocation back when the command
 * ends.  The command runs as salloc's child in salloc's process group, so
 * Ctrl-C from the terminal reaches it; salloc itself ignores SIGINT then.
 * The allocation's end while the command runs (scancel, time limit) is seen
 * by polling the controller; the command is then signalled (--kill-command,
 * or SIGHUP on a terminal, SIGTERM otherwise). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/srun_alloc.h"
#include "cmd/srun_opt.h"
#include "common/msg.h"
#include "common/state.h"
#include "common/xmalloc.h"

extern char **environ;

#define POLL_S 2.0

static char *user_shell(void)
{
	const char *sh = getenv("SHELL");
	if (sh && *sh)
		return xstrdup(sh);
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_shell && *pw->pw_shell)
		return xstrdup(pw->pw_shell);
	return xstrdup("/bin/sh");
}

/* The variables salloc(1) "OUTPUT ENVIRONMENT VARIABLES" lists, from the
 * granted job. */
static void set_job_env(const struct jobopt *o, const json_t *job, const char *cluster,
			const char *submit_dir)
{
	char buf[4096];
	long long id = cmd_jint(job, "job_id");
	json_t *alloc = json_object_get(job, "node_alloc"), *a;
	size_t n = json_array_size(alloc), i;
	int *cpus = xmalloc((n ? n : 1) * sizeof(int)), *tasks = xmalloc((n ? n : 1) * sizeof(int));

	json_array_foreach(alloc, i, a)
		cpus[i] = (int)json_integer_value(json_array_get(a, 1));
	snprintf(buf, sizeof(buf), "%lld", id);
	setenv("SLURM_JOB_ID", buf, 1);
	setenv("SLURM_JOBID", buf, 1);
	setenv("SLURM_JOB_NODELIST", cmd_jstr(job, "nodes"), 1);
	setenv("SLURM_NODELIST", cmd_jstr(job, "nodes"), 1);
	snprintf(buf, sizeof(buf), "%lld", cmd_jint(job, "num_nodes"));
	setenv("SLURM_JOB_NUM_NODES", buf, 1);
	setenv("SLURM_NNODES", buf, 1);
	/* --ntasks-per-node with -N gives the count, as for the submission */
	long ntasks = jobopt_int(o, "ntasks", 0), nodes = jobopt_int(o, "nodes", 0);
	long cpt = jobopt_int(o, "cpus_per_task", 0), tpn = jobopt_int(o, "ntasks_per_node", 0);
	long long mem = jobopt_int(o, "mem_mb", 0), mem_per_cpu = jobopt_int(o, "mem_per_cpu", 0);
	if (!ntasks && tpn > 0)
		ntasks = (nodes ? nodes : 1) * tpn;
	if (ntasks) {
		snprintf(buf, sizeof(buf), "%ld", ntasks);
		setenv("SLURM_NTASKS", buf, 1);
		setenv("SLURM_NPROCS", buf, 1);
	}
	if (n) {
		srun_tasks_per_node(cpus, n, ntasks, nodes, cpt, tasks);
		setenv("SLURM_TASKS_PER_NODE", srun_fold_counts(tasks, n, buf, sizeof(buf)), 1);
		setenv("SLURM_JOB_CPUS_PER_NODE", srun_fold_counts(cpus, n, buf, sizeof(buf)), 1);
	}
	if (cpt) {
		snprintf(buf, sizeof(buf), "%ld", cpt);
		setenv("SLURM_CPUS_PER_TASK", buf, 1);
	}
	if (mem) {
		snprintf(buf, sizeof(buf), "%lld", mem);
		setenv("SLURM_MEM_PER_NODE", buf, 1);
	}
	if (mem_per_cpu) {
		snprintf(buf, sizeof(buf), "%lld", mem_per_cpu);
		setenv("SLURM_MEM_PER_CPU", buf, 1);
	}
	if (tpn) {
		snprintf(buf, sizeof(buf), "%ld", tpn);
		setenv("SLURM_NTASKS_PER_NODE", buf, 1);
	}
	setenv("SLURM_CLUSTER_NAME", cluster, 1);
	setenv("SLURM_JOB_PARTITION", cmd_jstr(job, "partition"), 1);
	setenv("SLURM_JOB_NAME", cmd_jstr(job, "name"), 1);
	if (*cmd_jstr(job, "account"))
		setenv("SLURM_JOB_ACCOUNT", cmd_jstr(job, "account"), 1);
	if (*cmd_jstr(job, "qos"))
		setenv("SLURM_JOB_QOS", cmd_jstr(job, "qos"), 1);
	if (*cmd_jstr(job, "reservation"))
		setenv("SLURM_JOB_RESERVATION", cmd_jstr(job, "reservation"), 1);
	/* Slurm runs salloc's command as an interactive step in the container;
	 * Herd runs it here, and its sruns in the container (srun reads
	 * SRUN_CONTAINER) */
	if (*cmd_jstr(job, "container")) {
		setenv("SLURM_CONTAINER", cmd_jstr(job, "container"), 1);
		setenv("SRUN_CONTAINER", cmd_jstr(job, "container"), 1);
	}
	setenv("SLURM_SUBMIT_DIR", submit_dir, 1);
	gethostname(buf, sizeof(buf) - 1);
	setenv("SLURM_SUBMIT_HOST", buf, 1);
	free(cpus);
	free(tasks);
}

/* Fork and exec; -1 (printed) when the command could not be run. */
static pid_t run_command(char *const *argv)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "salloc: error: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "salloc: error: fork: %s\n", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		close(pipefd[0]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	int e = 0;
	ssize_t got;
	while ((got = read(pipefd[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (got == sizeof(e)) {
		waitpid(pid, NULL, 0);
		fprintf(stderr, "salloc: error: %s: %s\n", argv[0], strerror(e));
		return -1;
	}
	return pid;
}


static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is the job still running?  1 yes, 0 ended (*state: its state), -1 no
 * answer. */
static int job_alive(struct cmd_client *c, long long job_id, int *state)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)job_id);
	int rc = cmd_call(c, MSG_JOB_INFO, body, &reply, &err);
	json_decref(body);
	if (rc == CMD_NO_REPLY)
		return -1;
	if (rc != 0) {
		*state = -1;
		return rc == HERD_ERR_INVALID_JOB ? 0 : -1;
	}
	json_t *job = json_array_get(json_object_get(reply, "jobs"), 0);
	int s = job ? job_state_parse(cmd_jstr(job, "state")) : -1;
	json_decref(reply);
	*state = s;
	return s == JOB_RUNNING ? 1 : s < 0 || job_state_is_final(s) ? 0 : 1;
}

/* Wait for the command; watch the allocation meanwhile.  The raw status;
 * *revoked when the allocation ended first. */
static int wait_command(struct cmd_client *c, const struct jobopt *o, long long job_id,
			pid_t pid, bool *revoked)
{
	double next_poll = now_s() + POLL_S;
	int status = 0;
	*revoked = false;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return 1 << 8;
		/* SIGTERM, SIGHUP sent to salloc itself go on to the command
		 * (the terminal's SIGINT and SIGQUIT reach it directly). */
		int sig = srun_alloc_interrupted;
		if (sig == SIGTERM || sig == SIGHUP) {
			srun_alloc_interrupted = 0;
			kill(pid, sig);
		}
		if (!*revoked && now_s() >= next_poll) {
			int state = -1;
			if (job_alive(c, job_id, &state) == 0) {
				*revoked = true;
				if (state == JOB_TIMEOUT)
					fprintf(stderr, "salloc: Job %lld has exceeded its time limit and its "
						"allocation has been revoked.\n", job_id);
				else
					fprintf(stderr, "salloc: Job allocation %lld has been revoked.\n",
						job_id);
				int sig = (int)jobopt_int(o, "kill-command", 0);
				if (!sig)
					sig = isatty(0) ? SIGHUP : SIGTERM;
				kill(pid, sig);
			}
			next_poll = now_s() + POLL_S;
		}
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	struct jobopt o;
	struct herd_error err = { "" };
	struct cmd_client client;
	bool have_client = false;
	char **env = NULL, **cmd = NULL;
	char *cwd = NULL, *shell = NULL;
	json_t *job = NULL;
	long long job_id = 0;
	int status = 1;

	argv[0] = "salloc";
	int r = srun_opts_parse(&o, JOBOPT_SALLOC, argc, argv, NULL, stdout, &err);
	jobopt_report(&o, r, &err);
	if (r == SRUN_PARSE_INFO) {
		status = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	const char *chdir_to = jobopt_str(&o, "chdir");
	if (chdir_to && chdir(chdir_to) < 0) {
		fprintf(stderr, "salloc: error: chdir(%s): %s\n", chdir_to, strerror(errno));
		goto out;
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "salloc: error: getcwd failed: %s\n", strerror(errno));
		goto out;
	}
	/* the command, or the user's shell (salloc(1) without SallocDefaultCommand) */
	size_t ncmd = 0;
	cmd = xmalloc(sizeof(*cmd));
	if (o.argc > 0) {
		for (int i = 0; i < o.argc; i++)
			opt_strv_push(&cmd, &ncmd, xstrdup(o.argv[i]));
	} else {
		shell = user_shell();
		opt_strv_push(&cmd, &ncmd, xstrdup(shell));
	}
	char name[256];
	if (jobopt_str(&o, "name")) {
		snprintf(name, sizeof(name), "%s", jobopt_str(&o, "name"));
	} else if (o.argc > 0) {
		char *copy = xstrdup(o.argv[0]);
		snprintf(name, sizeof(name), "%s", basename(copy));
		free(copy);
	} else {
		snprintf(name, sizeof(name), "interactive");
	}
	if (opt_export_env(NULL, environ, &env, NULL, &err) < 0) {
		fprintf(stderr, "salloc: error: %s\n", err.text);
		goto out;
	}
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "salloc: error: %s\n", err.text);
		goto out;
	}
	have_client = true;
	if (jobopt_gres_check(&o, client.conf, &err) < 0) {
		fprintf(stderr, "salloc: error: %s\n", err.text);
		goto out;
	}
	const char *cluster = jobopt_clusters(&o, &client);
	if (cluster && !*cluster)
		goto out;
	/* Slurm runs a container job's commands in an interactive step only */
	const char *launch_params = conf_get(client.conf, "LaunchParameters");
	if (jobopt_str(&o, "container") &&
	    (!launch_params || !strstr(launch_params, "use_interactive_step"))) {
		fprintf(stderr, "salloc: error: --container requires LaunchParameters=use_interactive_step\n");
		goto out;
	}
	srun_alloc_catch_signals();

	json_t *body = srun_alloc_body(&o, name, env, cwd);
	if (!body) {
		fprintf(stderr, "salloc: error: an option is not valid UTF-8\n");
		goto out;
	}
	r = srun_alloc_submit(&client, "salloc", &o, body, &job_id);
	json_decref(body);
	if (r != 0) {
		status = r > 0 ? 0 : 1;
		goto out;
	}
	if (!jobopt_flag(&o, "quiet"))
		fprintf(stderr, "salloc: Pending job allocation %lld\n", job_id);
	if (srun_alloc_wait(&client, "salloc", &o, job_id, true, &job) < 0)
		goto out;
	if (!jobopt_flag(&o, "quiet"))
		fprintf(stderr, "salloc: Granted job allocation %lld\n", job_id);
	if (jobopt_flag(&o, "bell") && !jobopt_flag(&o, "no-bell"))
		fputc('\a', stderr);   /* --bell: the terminal's bell on the grant */
	if (jobopt_flag(&o, "no-shell")) {
		status = 0;
		goto out;
	}
	set_job_env(&o, job, cluster ? cluster : conf_cluster_name(client.conf), cwd);   /* -M: its cluster */
	if (cmd_jint(job, "het_job_id") == job_id)
		srun_alloc_het_env(&client, job_id, NULL, 0);
	/* The terminal's Ctrl-C is the command's; salloc waits it out. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	pid_t pid = run_command(cmd);
	bool revoked = false;
	int raw = 1 << 8;
	if (pid > 0)
		raw = wait_command(&client, &o, job_id, pid, &revoked);
	/* salloc(1): the command's exit code; 0 when a HUP, INT, KILL or QUIT
	 * ended it; 1 when it could not be run. */
	if (pid < 0)
		status = 1;
	else if (WIFEXITED(raw))
		status = WEXITSTATUS(raw);
	else if (WIFSIGNALED(raw)) {
		int sig = WTERMSIG(raw);
		status = sig == SIGHUP || sig == SIGINT || sig == SIGKILL || sig == SIGQUIT ? 0 : 128 + sig;
	}
	if (!revoked) {
		if (!jobopt_flag(&o, "quiet"))
			fprintf(stderr, "salloc: Relinquishing job allocation %lld\n", job_id);
		srun_alloc_complete(&client, "salloc", job_id, pid < 0 ? 1 << 8 : raw);
	}

out:
	json_decref(job);
	if (have_client)
		cmd_client_fini(&client);
	opt_strv_free(env);
	opt_strv_free(cmd);
	free(cwd);
	free(shell);
	jobopt_free(&o);
	return status;
}
