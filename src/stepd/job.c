/* The batch job's life inside herdstepd: start the shell, watch it, enforce
 * the time limit, cancel, and decide when the job is over (the shell was
 * reaped and no descendant is left).
 *
 * Ending a job follows Slurm: "*** JOB N ON NODE CANCELLED AT T ***" in the
 * job's stderr file, SIGCONT then SIGTERM to every process, SIGKILL after
 * KillWait.  When the shell exits on its own, whatever it left behind is
 * killed at once, as Slurm's process tracking does at the end of a step. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "stepd/pattern.h"
#include "stepd/proctree.h"
#include "stepd/oci.h"
#include "stepd/gpu_env.h"
#include "stepd/stepd.h"

#define JOB_SWEEP_MS 1000   /* SIGKILL sweeps until the tree is gone */

/* Signal every process of the job: the shell's process group (while the
 * shell lives) and every descendant of herdstepd (see proctree.h), each once. */
static int job_signal_tree(struct stepd *sd, int sig)
{
	pid_t pgid = sd->shell_done ? 0 : sd->shell_pid;
	return stepd_signal_all(sd, pgid, 0, sig);
}

static void job_reap(struct stepd *sd);

static void job_sweep_cb(uv_timer_t *t)
{
	struct stepd *sd = t->data;

	if (job_signal_tree(sd, SIGKILL) > 0)
		log_debug("job %u: SIGKILL sweep", sd->launch.job_id);
	job_reap(sd);
}

int job_suspend(struct stepd *sd, bool suspend)
{
	if (sd->shell_done)
		return HERD_ERR_ALREADY_DONE;
	if (sd->suspended == suspend)
		return HERD_OK;
	sd->suspended = suspend;
	log_info("job %u: %s", sd->launch.job_id, suspend ? "suspended" : "resumed");
	if (cgroup_version(sd->cg) == 0 || cgroup_freeze(sd->cg, suspend) < 0)
		job_signal_tree(sd, suspend ? SIGSTOP : SIGCONT);
	return HERD_OK;
}

static void job_start_kill(struct stepd *sd, int kill_wait)
{
	if (sd->suspended)   /* frozen processes take no signal */
		job_suspend(sd, false);
	job_signal_tree(sd, SIGCONT);
	job_signal_tree(sd, SIGTERM);
	oci_kill(sd);   /* RunTimeKill: a container's init ignores a plain SIGTERM */
	uv_timer_start(&sd->kill_timer, job_sweep_cb, (uint64_t)kill_wait * 1000, JOB_SWEEP_MS);
}

static void job_cancel_line(struct stepd *sd, const char *why)
{
	char stamp[32], line[256];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(line, sizeof(line), "slurmstepd: error: *** JOB %u ON %s CANCELLED AT %s%s ***\n",
		 sd->launch.job_id, sd->node, stamp, why);
	task_append_stderr(sd, line);
}

static void job_limit_cb(uv_timer_t *t)
{
	struct stepd *sd = t->data;

	if (sd->shell_done || sd->ending)
		return;
	log_info("job %u: time limit reached", sd->launch.job_id);
	sd->ending = true;
	sd->timed_out = true;
	job_cancel_line(sd, " DUE TO TIME LIMIT");
	job_start_kill(sd, sd->launch.kill_wait);
}

/* sbatch --signal: with B: the batch shell alone; otherwise every process
 * the script started but the shell.  Slurm signals the job's steps and not
 * the shell; a step's tasks are under their own herdstepd here, and get
 * the signal from their srun, which forwards it. */
static void job_signal_cb(uv_timer_t *t)
{
	struct stepd *sd = t->data;
	const struct launch *l = &sd->launch;

	if (sd->shell_done || sd->ending || sd->signal_sent)
		return;
	sd->signal_sent = true;
	log_info("job %u: --signal %d, %d s before the time limit%s", l->job_id, l->signal,
		 l->signal_time, l->signal_batch ? " (batch shell)" : "");
	if (l->signal_batch)
		kill(sd->shell_pid, l->signal);
	else
		stepd_signal_all(sd, 0, sd->shell_pid, l->signal);
}

/* The limit counts from the job's start, whether it was set at launch or
 * changed since (scontrol update TimeLimit); -1 = none.  The --signal
 * timer follows it. */
void job_set_time_limit(struct stepd *sd, int64_t limit)
{
	struct timespec now;
	int64_t now_ms, start_ms, left_ms;

	sd->launch.time_limit = limit;
	uv_timer_stop(&sd->limit_timer);
	uv_timer_stop(&sd->signal_timer);
	if (limit < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	start_ms = sd->launch.start_time > 0 ? sd->launch.start_time * 1000 : now_ms;
	left_ms = start_ms + limit * 1000 - now_ms;
	uv_timer_start(&sd->limit_timer, job_limit_cb, left_ms > 0 ? (uint64_t)left_ms : 0, 0);
	if (sd->launch.signal > 0 && !sd->signal_sent) {
		int64_t sig_ms = left_ms - (int64_t)sd->launch.signal_time * 1000;
		uv_timer_start(&sd->signal_timer, job_signal_cb, sig_ms > 0 ? (uint64_t)sig_ms : 0, 0);
	}
}

void job_terminate(struct stepd *sd, int kill_wait)
{
	if (sd->shell_done || sd->ending) {
		/* already on its way out; a shorter wait still applies */
		if (sd->ending && !sd->shell_done && kill_wait == 0)
			uv_timer_start(&sd->kill_timer, job_sweep_cb, 0, JOB_SWEEP_MS);
		return;
	}
	log_info("job %u: terminate (KillWait %d s)", sd->launch.job_id, kill_wait);
	sd->ending = true;
	job_cancel_line(sd, "");
	job_start_kill(sd, kill_wait < 0 ? 0 : kill_wait);
}

int job_signal(struct stepd *sd, int sig, const char *flags)
{
	if (sig < 0 || sig >= NSIG)
		return HERD_ERR_INVALID_ARG;
	if (sd->shell_done)
		return HERD_ERR_ALREADY_DONE;
	/* Slurm: a plain signal goes to the job's steps only (herdd hands it
	 * to each step's herdstepd), not to the batch step; SIGKILL is the
	 * exception and reaches the batch step too.  --batch reaches the shell alone (scancel(1): "Children of
	 * the batch step are not signaled with this option, use -f, --full
	 * instead"); --full reaches every process. */
	if (!strcmp(flags, "batch")) {
		if (kill(sd->shell_pid, sig) < 0 && errno != ESRCH)
			return HERD_ERR_INTERNAL;
	} else if (!strcmp(flags, "full") || (!flags[0] && sig == SIGKILL)) {
		job_signal_tree(sd, sig);
	} else if (flags[0]) {
		return HERD_ERR_INVALID_ARG;
	}
	log_info("job %u: signal %d flags '%s'", sd->launch.job_id, sig, flags);
	return HERD_OK;
}

/* Collect exited children; once the shell is gone, kill what it left and,
 * when nothing is left, report. */
static void job_reap(struct stepd *sd)
{
	int status;
	pid_t pid;

	if (sd->tree_dead)
		return;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == sd->shell_pid) {
			sd->shell_done = true;
			sd->status = status;
			oci_task_ended(sd, 0);   /* --container: RunTimeDelete, its files */
			log_info("job %u: batch shell %d ended, status %d", sd->launch.job_id,
				 (int)pid, status);
			if (job_signal_tree(sd, SIGKILL) > 0 && !uv_is_active((uv_handle_t *)&sd->kill_timer))
				uv_timer_start(&sd->kill_timer, job_sweep_cb, JOB_SWEEP_MS, JOB_SWEEP_MS);
		}
	}
	if (pid < 0 && errno == ECHILD && sd->shell_done && stepd_tree_empty(sd)) {
		struct cgroup_usage u = { 0 };
		char line[300];
		sd->tree_dead = true;
		if (cgroup_usage(sd->cg, &u) == 0 && u.oom) {
			sd->oom = true;
			log_info("job %u: the cgroup's OOM killer struck", sd->launch.job_id);
			stepd_oom_line(sd, line, sizeof(line));
			task_append_stderr(sd, line);
		}
		cgroup_step_destroy(sd->cg);
		sd->cg = NULL;
		uv_timer_stop(&sd->kill_timer);
		uv_timer_stop(&sd->limit_timer);
		uv_timer_stop(&sd->signal_timer);
		log_info("job %u: done (status %d%s)", sd->launch.job_id, sd->status,
			 sd->timed_out ? ", timed out" : "");
		complete_start(sd);
	}
}

static void job_sigchld_cb(uv_signal_t *h, int signum)
{
	job_reap(h->data);
}

/* Write the script where the user can run it: owned by the user, 0500, as
 * Slurm's slurm_script. */
static int job_write_script(struct stepd *sd, struct herd_error *err)
{
	int fd = openat(sd->job_dir_fd, STEPD_SCRIPT_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			0500);
	const char *s = sd->launch.script;
	size_t len = strlen(s);

	if (fd < 0)
		return errprintf(err, "create %s: %s", sd->script_path, strerror(errno));
	while (len > 0) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errprintf(err, "write %s: %s", sd->script_path, strerror(errno));
			close(fd);
			return -1;
		}
		s += n;
		len -= n;
	}
	if (fchown(fd, sd->launch.uid, sd->launch.gid) < 0 || fchmod(fd, 0500) < 0) {
		errprintf(err, "chown %s: %s", sd->script_path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void job_expand_paths(struct stepd *sd)
{
	const struct launch *l = &sd->launch;
	struct pattern_ctx ctx = {
		.job_id = l->job_id,
		.array_job_id = (uint32_t)l->array_job_id,
		.array_task_id = l->array_job_id ? (uint32_t)l->array_task_id : PATTERN_NO_ARRAY,
		.job_name = l->name,
		.user = l->user,
		.node = sd->node,
		.node_id = 0,
	};

	/* sbatch(1): an array task's default is slurm-%A_%a.out */
	const char *dflt = l->array_job_id ? "slurm-%A_%a.out" : "slurm-%j.out";
	sd->std_out = pattern_expand(l->std_out[0] ? l->std_out : dflt, &ctx);
	sd->std_err = l->std_err[0] ? pattern_expand(l->std_err, &ctx) : xstrdup(sd->std_out);
	sd->std_in = pattern_expand(l->std_in[0] ? l->std_in : "/dev/null", &ctx);
}

int job_start(struct stepd *sd, struct herd_error *err)
{
	const struct launch *l = &sd->launch;

	sd->script_path = xasprintf("%s/%s", sd->job_dir, STEPD_SCRIPT_FILE);
	if (job_write_script(sd, err) < 0)
		return -1;
	job_expand_paths(sd);

	/* The batch shell's cgroup: the job's CPUs here ("cpu_ids", absent =
	 * all) and its memory on the node. */
	struct cgroup_limits lim = {
		.cpus = l->cpu_ids,
		.mem_mb = l->mem_mb > 0 ? (uint64_t)l->mem_mb
			: l->mem_per_cpu > 0 ? (uint64_t)l->mem_per_cpu * (l->cpus_on_node > 0 ? l->cpus_on_node : 1)
			: 0,
	};
	size_t ndev = 0;
	char **dev = gpu_dev_files(l->gres, l->ngres, &ndev);   /* ConstrainDevices */
	char *scope = cgroup_scope(l->cluster, sd->node);
	sd->cg = cgroup_step_create(&sd->cgconf, scope, l->job_id, "batch", &lim);
	free(scope);
	cgroup_constrain_devices(sd->cg, (const char *const *)dev, ndev);
	gpu_dev_files_free(dev, ndev);
	cgroup_freeze(sd->cg, false);   /* one left frozen by a killed herdstepd (step.c) */

	uv_signal_init(sd->loop, &sd->sigchld);
	sd->sigchld.data = sd;
	uv_signal_start(&sd->sigchld, job_sigchld_cb, SIGCHLD);
	uv_timer_init(sd->loop, &sd->limit_timer);
	uv_timer_init(sd->loop, &sd->kill_timer);
	uv_timer_init(sd->loop, &sd->signal_timer);
	sd->limit_timer.data = sd->kill_timer.data = sd->signal_timer.data = sd;

	sd->shell_pid = task_spawn(sd, err);
	if (sd->shell_pid < 0)
		return -1;
	log_info("job %u: batch shell %d started as uid %d (stdout %s, stderr %s)", l->job_id,
		 (int)sd->shell_pid, l->uid, sd->std_out, sd->std_err);

	job_set_time_limit(sd, l->time_limit);
	/* the shell may already be gone */
	job_reap(sd);
	return 0;
}
