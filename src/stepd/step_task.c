/* Forking one task of a step as the user.  The child waits on a pipe until
 * the parent has done what must precede exec (a cgroup, once there is one),
 * then sets up its stdio, CPU binding and environment and execs.  As in
 * task.c, the child uses only what the parent prepared. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/log.h"
#include "stepd/launch.h"
#include "stepd/pmi.h"
#include "stepd/oci.h"
#include "stepd/step.h"
#include "stepd/stepd.h"

#define STEP_TASK_EXEC_WAIT_MS 10000
#define STEP_TASK_OUT_FLAGS (O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY)


/* Child only: the program as execvp would find it, with the task's PATH
 * and the user's permissions (we are the user by now).  A task without
 * PATH (srun --export=NONE) searches nowhere: "true" then fails as
 * Slurm 22.05's slurmstepd fails it, "execve(): true: No such file or
 * directory". */
static const char *step_task_find(const char *prog, const struct env *env, char *buf, size_t size)
{
	const char *path = env_get(env, "PATH");
	struct stat st;

	if (!path || strchr(prog, '/'))
		return prog;
	for (const char *p = path;; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (len == 0) /* an empty entry is the current directory */
			snprintf(buf, size, "%s", prog);
		else
			snprintf(buf, size, "%.*s/%s", (int)len, p, prog);
		if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return buf;
		if (!colon)
			break;
		p = colon + 1;
	}
	return prog;
}

/* Child only: a line on the task's stderr; there is nowhere to say it failed. */
static void step_task_stderr(const char *line)
{
	ssize_t n = write(2, line, strlen(line));
	(void)n;
}

struct step_task_fds {
	int out_w, err_w, in_r;    /* the child's ends of the pipes, -1 none */
	int pty_slave;
	int go_r, go_w, tell_w;
};


/* The CPU IDs a node declares may exceed the machine's (herd up runs several
 * nodes of 16 "CPUs" on a laptop): a mask naming CPUs this process may not
 * use is folded onto those it may, CPU c to the (c mod n)-th allowed one, so
 * tasks stay on distinct CPUs where there are enough.  On a real node, whose
 * IDs are its own, nothing changes. */
static void step_task_fold_mask(cpu_set_t *mask)
{
	cpu_set_t allowed, out;
	int ids[CPU_SETSIZE], n = 0;
	bool outside = false;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &allowed))
			ids[n++] = c;
		else if (CPU_ISSET(c, mask))
			outside = true;
	}
	if (!outside || n == 0)
		return;
	CPU_ZERO(&out);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, mask))
			CPU_SET(ids[c % n], &out);
	*mask = out;
}

static void step_task_child(struct stepd *sd, struct step_task *t, const struct step_task_fds *f)
{
	const struct launch_step *s = sd->launch.step;
	char pidbuf[32], found[PATH_MAX], line[BIND_MAX_CPUS / 4 + 200], c;
	int in, out, err, chdir_errno;

	if (t->pty) {
		/* its own session, with the pty as controlling terminal, as an
		 * interactive shell expects */
		setsid();
		ioctl(f->pty_slave, TIOCSCTTY, 0);
	}
	task_reset_signals();
	close(f->go_w);   /* else the read below would wait for ourselves */
	while (read(f->go_r, &c, 1) < 0 && errno == EINTR)
		;
	close(f->go_r);
	if (task_become_user(sd) < 0) {
		task_fail(f->tell_w, "cannot become uid %d gid %d: %s", sd->launch.uid,
			       sd->launch.gid, strerror(errno));
		_exit(1);
	}
	umask(sd->launch.umask);
	chdir_errno = task_chdir(s->cwd);

	if (t->pty) {
		in = out = err = f->pty_slave;
	} else {
		if (t->out_path) {
			out = open(t->out_path, STEP_TASK_OUT_FLAGS | (t->out_trunc ? O_TRUNC : 0), 0666);
			if (out < 0) {
				task_fail(f->tell_w, "Could not open stdout file %s: %s", t->out_path,
					       strerror(errno));
				_exit(1);
			}
		} else {
			out = f->out_w;
		}
		if (t->err_path && t->out_path && !strcmp(t->err_path, t->out_path)) {
			err = out;
		} else if (t->err_path) {
			err = open(t->err_path, STEP_TASK_OUT_FLAGS | (t->err_trunc ? O_TRUNC : 0), 0666);
			if (err < 0) {
				task_fail(f->tell_w, "Could not open stderr file %s: %s", t->err_path,
					       strerror(errno));
				_exit(1);
			}
		} else {
			err = f->err_w;
		}
		if (t->reads_stdin)
			in = f->in_r;
		else
			in = open(t->in_path ? t->in_path : "/dev/null", O_RDONLY | O_NOCTTY);
		if (in < 0) {
			int e = errno;
			dprintf(err, "slurmstepd-%s: error: Could not open stdin file %s: %s\n", sd->node, t->in_path,
				strerror(e));
			task_fail(f->tell_w, "Could not open stdin file %s: %s", t->in_path, strerror(e));
			_exit(1);
		}
	}
	/* dup2 onto 0..2 in an order that cannot clobber a source */
	int fds[3] = { in, out, err }, moved[3];
	for (int i = 0; i < 3; i++) {
		moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
		if (moved[i] < 0) {
			task_fail(f->tell_w, "dup: %s", strerror(errno));
			_exit(1);
		}
	}
	for (int i = 0; i < 3; i++)
		if (dup2(moved[i], i) < 0) {
			task_fail(f->tell_w, "dup2: %s", strerror(errno));
			_exit(1);
		}
	/* everything else closes, but the channel to the parent (CLOEXEC) and
	 * the task's PMI socket (kept across exec) */
	int keep[2] = { f->tell_w, t->pmi_fd }, lo = 3;
	if (keep[1] >= 0 && keep[1] < keep[0]) {
		keep[1] = keep[0];
		keep[0] = t->pmi_fd;
	}
	for (int k = 0; k < 2; k++) {
		if (keep[k] < lo)
			continue;
		if (keep[k] > lo)
			close_range(lo, keep[k] - 1, 0);
		lo = keep[k] + 1;
	}
	close_range(lo, ~0u, 0);
	if (t->pmi_fd >= 0)
		fcntl(t->pmi_fd, F_SETFD, 0);
	if (chdir_errno)
		dprintf(2, "slurmstepd-%s: error: couldn't chdir to `%s': %s: going to /tmp instead\n", sd->node,
			s->cwd, strerror(chdir_errno));
	if (t->bound) {
		step_task_fold_mask(&t->mask);
		if (sched_setaffinity(0, sizeof(t->mask), &t->mask) < 0)
			dprintf(2, "slurmstepd-%s: error: sched_setaffinity: %s\n", sd->node, strerror(errno));
		if (sd->step->bind.verbose) {
			bind_verbose_line(&sd->step->bind, &t->mask, sd->node, t->task_id, t->local,
					  (int)getpid(), line, sizeof(line));
			step_task_stderr(line);
		}
	} else if (sd->step->bind.verbose) {
		cpu_set_t now;
		sched_getaffinity(0, sizeof(now), &now);
		bind_verbose_line(&sd->step->bind, &now, sd->node, t->task_id, t->local,
				  (int)getpid(), line, sizeof(line));
		step_task_stderr(line);
	}
	if (t->gpu_error)
		step_task_stderr(t->gpu_error);
	if (t->gpu_verbose)
		step_task_stderr(t->gpu_verbose);
	if (membind_apply(&t->mem) < 0)
		dprintf(2, "slurmstepd-%s: error: --mem-bind: set_mempolicy: %s\n", sd->node,
			strerror(errno));
	else if (t->mem.verbose) {
		membind_verbose_line(&t->mem, sd->node, t->task_id, t->local, (int)getpid(), line,
				     sizeof(line));
		step_task_stderr(line);
	}
	rlimits_apply(&sd->step->rlimits);   /* --propagate: the user's soft limits */
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
	env_set(&t->env, "SLURM_TASK_PID", pidbuf);

	if (sd->oci) {   /* --container: the runtime runs the task (oci.c) */
		char why[512];
		oci_exec(sd, (size_t)t->local, t->argv, t->env.v, t->pty, why, sizeof(why));
		dprintf(2, "slurmstepd-%s: error: %s\n", sd->node, why);
		task_fail(f->tell_w, "%s", why);
		_exit(1);
	}
	const char *prog = step_task_find(t->argv[0], &t->env, found, sizeof(found));
	execve(prog, t->argv, t->env.v);
	int e = errno;
	dprintf(2, "slurmstepd-%s: error: execve(): %s: %s\n", sd->node, t->argv[0], strerror(e));
	task_fail(f->tell_w, "execve(): %s: %s", t->argv[0], strerror(e));
	_exit(2);
}

static void step_task_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A parent's end onto the loop as a stream. */
static int step_task_stream(struct stepd *sd, uv_pipe_t *p, int fd, struct step_task *t)
{
	uv_pipe_init(sd->loop, p, 0);
	p->data = t;
	if (uv_pipe_open(p, fd) < 0) {
		uv_close((uv_handle_t *)p, NULL);
		close(fd);
		return -1;
	}
	return 0;
}

void step_task_exec_result(struct step_task *t, char *child_err, size_t size)
{
	struct pollfd pfd = { .fd = t->tell_fd, .events = POLLIN };
	ssize_t n = 0;

	child_err[0] = '\0';
	if (t->tell_fd < 0)
		return;
	if (poll(&pfd, 1, STEP_TASK_EXEC_WAIT_MS) > 0 && (n = read(t->tell_fd, child_err, size - 1)) > 0)
		child_err[n] = '\0';
	step_task_close(&t->tell_fd);
}

int step_task_spawn(struct stepd *sd, struct step_task *t, char *child_err, size_t size,
		    struct herd_error *err)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, inp[2] = { -1, -1 };
	int go[2] = { -1, -1 }, tell[2] = { -1, -1 }, master = -1, slave = -1;
	struct step_task_fds f;
	pid_t pid;

	child_err[0] = '\0';
	if (t->pty) {
		if (openpty(&master, &slave, NULL, NULL, NULL) < 0) {
			errprintf(err, "openpty: %s", strerror(errno));
			goto error;
		}
		fcntl(master, F_SETFD, FD_CLOEXEC);
		fcntl(slave, F_SETFD, FD_CLOEXEC);
	} else if ((!t->out_path && pipe2(outp, O_CLOEXEC) < 0) ||
		   (!t->err_path && pipe2(errp, O_CLOEXEC) < 0) ||
		   (t->reads_stdin && pipe2(inp, O_CLOEXEC) < 0)) {
		errprintf(err, "pipe: %s", strerror(errno));
		goto error;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(tell, O_CLOEXEC) < 0) {
		errprintf(err, "pipe: %s", strerror(errno));
		goto error;
	}
	f = (struct step_task_fds){ outp[1], errp[1], inp[0], slave, go[0], go[1], tell[1] };
	pid = fork();
	if (pid < 0) {
		errprintf(err, "fork: %s", strerror(errno));
		goto error;
	}
	if (pid == 0)
		step_task_child(sd, t, &f);
	t->pid = pid;
	if (sd->step->pmi)
		pmi_task_forked(sd->step->pmi, t->local, pid);
	step_task_close(&outp[1]);
	step_task_close(&errp[1]);
	step_task_close(&inp[0]);
	step_task_close(&slave);
	step_task_close(&go[0]);
	step_task_close(&tell[1]);
	/* into the cgroup before the child may exec or fork (a refusal is
	 * logged there; the task runs anyway) */
	if (t->dev_files)   /* --gpu-bind under ConstrainDevices: only its GPUs */
		cgroup_constrain_task_devices(sd->cg, t->task_id, (const char *const *)t->dev_files,
					      t->ndev_files);
	cgroup_add_task(sd->cg, pid, t->task_id);
	step_task_close(&go[1]);
	t->tell_fd = tell[0];   /* read by step_task_exec_result */
	tell[0] = -1;

	if (t->pty) {
		t->pty_fd = master;
		t->out_open = step_task_stream(sd, &t->out, master, t) == 0;
		t->in_open = t->out_open;
	} else {
		if (outp[0] >= 0)
			t->out_open = step_task_stream(sd, &t->out, outp[0], t) == 0;
		if (errp[0] >= 0)
			t->err_open = step_task_stream(sd, &t->err, errp[0], t) == 0;
		if (inp[1] >= 0)
			t->in_open = step_task_stream(sd, &t->in, inp[1], t) == 0;
	}
	return 0;
error:
	step_task_close(&outp[0]);
	step_task_close(&outp[1]);
	step_task_close(&errp[0]);
	step_task_close(&errp[1]);
	step_task_close(&inp[0]);
	step_task_close(&inp[1]);
	step_task_close(&go[0]);
	step_task_close(&go[1]);
	step_task_close(&tell[0]);
	step_task_close(&tell[1]);
	step_task_close(&master);
	step_task_close(&slave);
	return -1;
}
