/* sbatch --get-user-env: the batch script's environment starts from the
 * user's login environment, read the way su(1) would make it, with the
 * submitter's variables over it (sbatch(1): those already set win).
 * Unlike Slurm, which runs "su - user" as root, the shell runs as the user
 * from the first instruction (setgroups/setgid/setuid before exec), with a
 * fresh environment (HOME, SHELL, USER, LOGNAME, PATH): root never reads a
 * file the user can write, and never runs with the user's variables. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "stepd/env.h"
#include "stepd/stepd.h"

#define USER_ENV_MAX_BYTES (1 << 20)   /* a login environment past 1 MiB is cut */
#define USER_ENV_MAX_WAIT_S 20         /* herdd waits 30 s for the launch */
#define USER_ENV_MARK "HERD_GET_USER_ENV_BEGIN"

static int64_t user_env_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Child only: become the user and run the shell. */
static void user_env_child(const struct stepd *sd, char mode, int out)
{
	const char *shell = sd->shell && *sd->shell ? sd->shell : "/bin/sh";
	const char *base = strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
	char argv0[256], home[4096], user[256], logname[256], shellvar[4096];
	char *env[] = { home, user, logname, shellvar, "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	/* the marker separates what login scripts print from the list */
	char *argv[] = { argv0, "-c", "echo; echo " USER_ENV_MARK "; exec /usr/bin/env -0", NULL };
	int null = open("/dev/null", O_RDWR);

	setsid();
	task_reset_signals();
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(null, 2) < 0)
		_exit(127);
	close_range(3, ~0u, 0);
	if (task_become_user(sd) < 0)
		_exit(126);
	if (chdir(sd->home ? sd->home : "/") < 0 && chdir("/") < 0)
		_exit(126);
	/* mode L (and the default): a login shell, as "su -"; S: a plain one */
	snprintf(argv0, sizeof(argv0), "%s%s", mode == 'S' ? "" : "-", base);
	snprintf(home, sizeof(home), "HOME=%s", sd->home ? sd->home : "/");
	snprintf(user, sizeof(user), "USER=%s", sd->launch.user);
	snprintf(logname, sizeof(logname), "LOGNAME=%s", sd->launch.user);
	snprintf(shellvar, sizeof(shellvar), "SHELL=%s", shell);
	execve(shell, argv, env);
	_exit(127);
}

int user_env_get(struct stepd *sd, int timeout_s, char mode, struct env *out)
{
	int pipefd[2], status;
	size_t len = 0, cap = 4096;
	char *buf;
	bool done = false;
	pid_t pid;

	if (timeout_s > USER_ENV_MAX_WAIT_S)
		timeout_s = USER_ENV_MAX_WAIT_S;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0)
		user_env_child(sd, mode, pipefd[1]);
	close(pipefd[1]);
	buf = xmalloc(cap);
	int64_t deadline = user_env_now_ms() + (int64_t)timeout_s * 1000;
	while (!done) {
		int64_t left = deadline - user_env_now_ms();
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
			break;   /* timed out */
		if (len + 4096 > cap && cap < USER_ENV_MAX_BYTES + 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		if (len + 4096 > cap) {
			done = true;   /* cut at the bound */
			break;
		}
		ssize_t n = read(pipefd[0], buf + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			done = true;
		else
			len += n;
	}
	close(pipefd[0]);
	kill(-pid, SIGKILL);   /* whatever the login scripts left running */
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char *mark = done ? memmem(buf, len, "\n" USER_ENV_MARK "\n", strlen(USER_ENV_MARK) + 2) : NULL;
	if (!mark) {
		log_error("job %u: Unable to get user's local environment, running only with passed "
			  "environment", sd->launch.job_id);
		free(buf);
		return -1;
	}
	char *p = mark + strlen(USER_ENV_MARK) + 2, *end = buf + len;
	while (p < end) {
		char *z = memchr(p, '\0', end - p);
		if (!z)
			break;   /* a cut entry */
		/* our own variables are the node's to set, not the login's */
		if (strncmp(p, "SLURM_", 6) && strncmp(p, "HERD_", 5))
			env_put(out, p);
		p = z + 1;
	}
	free(buf);
	return 0;
}
