/* The user's side of the job: the batch shell, started as the user, and the
 * few lines herdstepd itself writes into the job's stderr file.  Everything
 * after fork() in a child uses only what the parent prepared, because the
 * child must not depend on herdstepd's allocator or loop state. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "stepd/env.h"
#include "stepd/oci.h"
#include "stepd/rlimits.h"
#include "stepd/stepd.h"

void task_fail(int errfd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > 0 && write(errfd, msg, n < (int)sizeof(msg) ? n : (int)sizeof(msg) - 1) < 0)
		_exit(1);
}

/* Child only: become the user for good.  The groups were resolved by the
 * parent (initgroups would read /etc/group after fork). */
int task_become_user(const struct stepd *sd)
{
	const struct launch *l = &sd->launch;

	/* A cluster started by an ordinary user (herd up without root) runs
	 * only that user's jobs, as that user: there is nobody to become. */
	if (getuid() != 0 && getuid() == l->uid)
		return 0;
	if (setgroups(sd->ngroups, sd->groups) < 0 || setgid(l->gid) < 0 || setuid(l->uid) < 0)
		return -1;
	if (l->uid != 0 && setuid(0) == 0) {   /* must not be able to come back */
		errno = EPERM;
		return -1;
	}
	return 0;
}

void task_reset_signals(void)
{
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
}

/* Child only: chdir to the job's cwd, or to /tmp as Slurm does.  Returns the
 * errno of the failed chdir (0 when it worked). */
int task_chdir(const char *cwd)
{
	if (chdir(cwd) == 0)
		return 0;
	int e = errno;
	if (chdir("/tmp") < 0)
		return e;
	return e;
}

/* Slurm's --open-mode default is truncate, except for a requeued job, which
 * appends to what its earlier runs wrote; --open-mode=append always appends.  O_APPEND in both cases keeps every
 * writer (stdout and stderr sharing a file, background processes, and our
 * own CANCELLED line) from overwriting the others. */
#define TASK_OUT_FLAGS (O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY)

static void task_close_other_fds(int keep1, int keep2)
{
	int a = keep1 < keep2 ? keep1 : keep2, b = keep1 < keep2 ? keep2 : keep1;
	if (a > 3)
		close_range(3, a - 1, 0);
	if (b > a + 1)
		close_range(a + 1, b - 1, 0);
	close_range(b + 1, ~0u, 0);
}

static void task_child(struct stepd *sd, char **argv, struct env *env, int errfd, int go_r,
		       int go_w, const struct rlimits_plan *limits)
{
	const struct launch *l = &sd->launch;
	char pidbuf[32];
	int script_fd, in, out, err, chdir_errno;
	int out_flags = TASK_OUT_FLAGS | (l->restarts > 0 || l->open_append ? 0 : O_TRUNC);

	char c;

	setsid();   /* own session and process group: the job's group */
	task_reset_signals();
	/* wait until the parent has put us in the job's cgroup */
	close(go_w);
	while (read(go_r, &c, 1) < 0 && errno == EINTR)
		;
	close(go_r);
	script_fd = open(sd->script_path, O_RDONLY);
	if (script_fd < 0) {
		task_fail(errfd, "open %s: %s", sd->script_path, strerror(errno));
		_exit(1);
	}
	if (task_become_user(sd) < 0) {
		task_fail(errfd, "cannot become uid %d gid %d: %s", l->uid, l->gid, strerror(errno));
		_exit(1);
	}
	rlimits_apply(limits);   /* --propagate: the submitter's soft limits */
	umask(l->umask);
	chdir_errno = task_chdir(l->cwd);

	out = open(sd->std_out, out_flags, 0666);
	if (out < 0) {
		task_fail(errfd, "Could not open stdout file %s: %s", sd->std_out, strerror(errno));
		_exit(1);
	}
	if (!strcmp(sd->std_err, sd->std_out))
		err = out;
	else if ((err = open(sd->std_err, out_flags, 0666)) < 0) {
		task_fail(errfd, "Could not open stderr file %s: %s", sd->std_err, strerror(errno));
		_exit(1);
	}
	/* stdin last, so its failure can be told in the job's stderr file */
	in = open(sd->std_in, O_RDONLY | O_NOCTTY);
	if (in < 0) {
		int e = errno;
		dprintf(err, "slurmstepd: error: Could not open stdin file %s: %s\n", sd->std_in,
			strerror(e));
		task_fail(errfd, "Could not open stdin file %s: %s", sd->std_in, strerror(e));
		_exit(1);
	}
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
		task_fail(errfd, "dup2: %s", strerror(errno));
		_exit(1);
	}
	if (in > 2)
		close(in);
	if (out > 2)
		close(out);
	if (err > 2 && err != out)
		close(err);
	if (chdir_errno)
		dprintf(2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
			l->cwd, strerror(chdir_errno));
	task_close_other_fds(script_fd, errfd);

	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
	env_set(env, "SLURM_TASK_PID", pidbuf);

	if (sd->oci) {
		/* the script as the container sees it: in the spool directory
		 * mounted at MountSpoolDir */
		char why[512], *script = xasprintf("%s/%s", oci_mount_spool_dir(sd), STEPD_SCRIPT_FILE);
		argv[0] = script;
		close(script_fd);
		oci_exec(sd, 0, argv, env->v, false, why, sizeof(why));
		dprintf(2, "slurmstepd: error: %s\n", why);
		task_fail(errfd, "%s", why);
		_exit(1);
	}

	/* The spool may sit below a directory the user cannot search (a test's
	 * private temp dir); then run the script through the descriptor opened
	 * while still root.  $0 differs in that case only. */
	if (access(sd->script_path, X_OK) == 0) {
		close(script_fd);
		execve(sd->script_path, argv, env->v);
	} else {
		char fdpath[64];
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", script_fd);
		execve(fdpath, argv, env->v);
	}
	int e = errno;
	dprintf(2, "slurmstepd: error: execve(): %s: %s\n", sd->script_path, strerror(e));
	task_fail(errfd, "execve %s: %s", sd->script_path, strerror(e));
	_exit(127);
}

pid_t task_spawn(struct stepd *sd, struct herd_error *err)
{
	const struct launch *l = &sd->launch;
	struct env env;
	char **argv, msg[512];
	int pipefd[2], go[2] = { -1, -1 };
	pid_t pid;
	ssize_t n;

	struct env_node node = {
		.node = sd->node, .conf_path = sd->conf_path, .home = sd->home, .shell = sd->shell,
		.spool = sd->spool,
	};
	struct rlimits_plan limits;
	rlimits_plan(&l->opts.rlimits, l->opts.propagate, sd->conf, l->job_id, &limits);
	env_init(&env);
	if (l->get_user_env) {   /* sbatch --get-user-env: the login environment under the job's */
		int timeout;
		char mode;
		if (get_user_env_parse(l->get_user_env, &timeout, &mode, NULL) == 0)
			user_env_get(sd, timeout, mode, &env);
	}
	node.constrain_devices = sd->cgconf.constrain_devices;
	env_batch(&env, l, &node);
	if (oci_bundle(sd)) {   /* --container: the script runs in the bundle (oci.c) */
		env_set(&env, "SLURM_CONTAINER", oci_bundle(sd));
		oci_start(sd, 1);
		oci_prepare_task(sd, 0, 0, env.v);
	}
	argv = xmalloc((l->argc + 2) * sizeof(char *));
	argv[0] = sd->script_path;
	for (size_t i = 0; i < l->argc; i++)
		argv[i + 1] = l->argv[i];

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		errprintf(err, "pipe: %s", strerror(errno));
		pid = -1;
		goto out;
	}
	if (pipe2(go, O_CLOEXEC) < 0) {
		errprintf(err, "pipe: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		pid = -1;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		errprintf(err, "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		close(go[0]);
		close(go[1]);
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		task_child(sd, argv, &env, pipefd[1], go[0], go[1], &limits);
	}
	close(pipefd[1]);
	close(go[0]);
	cgroup_add_task(sd->cg, pid, 0);   /* before the shell may exec or fork */
	close(go[1]);
	/* EOF = exec succeeded.  Do not wait forever: opening a FIFO given as
	 * the output file blocks until a reader comes, as it does in Slurm. */
	struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
	if (poll(&pfd, 1, 10000) > 0 && (n = read(pipefd[0], msg, sizeof(msg) - 1)) > 0) {
		msg[n] = '\0';
		log_error("job %u: %s", l->job_id, msg);
	}
	close(pipefd[0]);
out:
	free(argv);
	env_free(&env);
	return pid;
}

void task_append_stderr(struct stepd *sd, const char *line)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		log_error("job %u: fork: %s", sd->launch.job_id, strerror(errno));
		return;
	}
	if (pid == 0) {
		if (task_become_user(sd) < 0)
			_exit(1);
		umask(sd->launch.umask);
		task_chdir(sd->launch.cwd);
		int fd = open(sd->std_err, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_NONBLOCK, 0666);
		if (fd < 0)
			_exit(1);
		_exit(write(fd, line, strlen(line)) < 0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}
