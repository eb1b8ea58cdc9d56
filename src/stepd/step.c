/* A job step's life on this node: prepare every local task (argv, files,
 * environment, CPU mask), connect to srun, fork the tasks, relay their
 * output, report each end (EXIT), then DONE and STEP_COMPLETE.
 *
 * A step ends as Slurm's do: when every task has exited, what they left
 * behind is killed at once; a cancel or the time limit writes
 * "*** STEP N.S ON NODE CANCELLED AT T ***" on task 0's stderr stream, then
 * SIGCONT and SIGTERM, SIGKILL after KillWait; srun's connection closing
 * before the end (srun was killed) kills every task at once.  What goes to
 * and comes from srun is step_io.c's; forking a task step_task.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "common/stepio.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "stepd/io.h"
#include "stepd/multiprog.h"
#include "stepd/pattern.h"
#include "stepd/pmi.h"
#include "stepd/proctree.h"
#include "stepd/oci.h"
#include "stepd/gpu_env.h"
#include "stepd/step.h"
#include "stepd/stepd.h"

#define STEP_SWEEP_MS 1000
#define STEP_SAMPLE_MS 1000

static void step_reap(struct step *st);
static void step_maybe_finish(struct step *st);
static void step_sweep_cb(uv_timer_t *t);

static int64_t step_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const struct launch_step *step_launch(const struct step *st)
{
	return st->sd->launch.step;
}

/* Every process of the step (contain.c). */
int step_kill_all(struct step *st, int sig)
{
	return stepd_signal_all(st->sd, 0, 0, sig);
}

/* ---- task ends --------------------------------------------------------- */

/* EXIT goes once the task was reaped and its output reached EOF, so srun
 * prints a task's last lines before its end. */
void step_send_exit(struct step_task *t)
{
	struct step *st = t->st;

	if (t->exit_sent || !t->exited || t->out_open || t->err_open)
		return;
	t->exit_sent = true;
	st->exits_sent++;
	io_send_json(st->io, STEPIO_EXIT, t->task_id, json_pack("{s:i}", "status", t->status));
	step_maybe_finish(st);
}


/* ---- PMI ------------------------------------------------------------------ */

/* PMI_Abort and the like: the whole step goes, as Slurm ends it. */
static void step_pmi_abort(void *arg, int rank, int code, const char *message)
{
	struct step *st = arg;
	char *line = xasprintf("%s: task %d: MPI abort with code %d%s%s", st->sd->node, rank, code,
			       message && message[0] ? ": " : "", message ? message : "");

	log_info("step %u.%u: %s", st->sd->launch.job_id, step_launch(st)->step_id, line);
	io_send(st->io, STEPIO_ERROR, rank, line, strlen(line));
	free(line);
	st->ending = true;
	step_kill_all(st, SIGKILL);
	if (!uv_is_active((uv_handle_t *)&st->kill_timer))
		uv_timer_start(&st->kill_timer, step_sweep_cb, STEP_SWEEP_MS, STEP_SWEEP_MS);
}

/* ---- killing ------------------------------------------------------------- */

static void step_sweep_cb(uv_timer_t *t)
{
	struct step *st = t->data;

	if (step_kill_all(st, SIGKILL) > 0)
		log_debug("step %u.%u: SIGKILL sweep", st->sd->launch.job_id, step_launch(st)->step_id);
	step_reap(st);
}

/* A frozen step cannot take a signal: thaw it first. */
static void step_thaw(struct step *st)
{
	if (!st->suspended)
		return;
	st->suspended = false;
	if (cgroup_version(st->sd->cg) > 0)
		cgroup_freeze(st->sd->cg, false);
}

static void step_start_kill(struct step *st, int kill_wait)
{
	step_thaw(st);
	step_kill_all(st, SIGCONT);
	step_kill_all(st, SIGTERM);
	oci_kill(st->sd);   /* RunTimeKill: a container's init ignores a plain SIGTERM */
	uv_timer_start(&st->kill_timer, step_sweep_cb, (uint64_t)kill_wait * 1000, STEP_SWEEP_MS);
}

/* A line of herdstepd's own to the step's stderr: task's stream (task 0's
 * file when the step's stderr goes to files). */
static void step_own_line(struct step *st, uint32_t task, const char *line)
{
	if (st->tasks[0].err_path)
		task_append_stderr(st->sd, line);   /* sd->std_err is task 0's file */
	else
		io_send(st->io, STEPIO_STDERR, task, line, strlen(line));
}

/* srun --slurmd-debug: what Slurm's step daemon says at info level about
 * the tasks, "slurmstepd-NODE: ..." on srun's stderr. */
static void step_debug_line(struct step *st, uint32_t task, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void step_debug_line(struct step *st, uint32_t task, const char *fmt, ...)
{
	char text[256], line[320];
	va_list ap;
	if (step_launch(st)->slurmd_debug < 1 || !st->ntasks)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "slurmstepd-%s: %s\n", st->sd->node, text);
	step_own_line(st, task, line);
}

/* Slurm's line on the step's stderr stream (task 0's: the first on this node). */
static void step_cancel_line(struct step *st, const char *why)
{
	struct step_task *t0 = &st->tasks[0];
	char stamp[32], line[300];
	time_t now = time(NULL);
	struct tm tm;

	if (!st->ntasks)
		return;   /* N.extern: no task, no stream */
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	/* Slurm's step daemons name their node in what srun shows */
	snprintf(line, sizeof(line), "slurmstepd-%s: error: *** STEP %u.%u ON %s CANCELLED AT %s%s ***\n",
		 st->sd->node, st->sd->launch.job_id, step_launch(st)->step_id, st->sd->node, stamp, why);
	step_own_line(st, t0->task_id, line);
}

static void step_limit_cb(uv_timer_t *timer)
{
	struct step *st = timer->data;

	if (st->all_exited || st->ending)
		return;
	log_info("step %u.%u: time limit reached", st->sd->launch.job_id, step_launch(st)->step_id);
	st->ending = true;
	st->timed_out = true;
	step_cancel_line(st, " DUE TO TIME LIMIT");
	step_start_kill(st, st->sd->launch.kill_wait);
}

/* srun --signal=SIG@TIME: SIG to every process of the step TIME seconds
 * before its time limit (the job's when the step has none). */
static void step_signal_cb(uv_timer_t *timer)
{
	struct step *st = timer->data;
	const struct launch_step *s = step_launch(st);

	if (st->all_exited || st->ending)
		return;
	log_info("step %u.%u: --signal %d, %d s before the time limit", st->sd->launch.job_id,
		 s->step_id, s->signal, s->signal_time);
	step_kill_all(st, s->signal);
}

static void step_arm_signal(struct step *st)
{
	const struct launch *l = &st->sd->launch;
	const struct launch_step *s = l->step;
	int64_t left_ms;

	if (s->signal <= 0)
		return;
	if (s->time_limit > 0) {
		left_ms = s->time_limit * 1000;
	} else if (l->time_limit >= 0 && l->start_time > 0) {
		left_ms = (l->start_time + l->time_limit - (int64_t)time(NULL)) * 1000;
	} else {
		return;
	}
	left_ms -= (int64_t)s->signal_time * 1000;
	uv_timer_start(&st->signal_timer, step_signal_cb, left_ms > 0 ? (uint64_t)left_ms : 0, 0);
}

void step_terminate(struct stepd *sd, int kill_wait)
{
	struct step *st = sd->step;

	if (!st || !st->launched || st->all_exited)
		return;
	if (st->ending) {
		if (kill_wait == 0)
			uv_timer_start(&st->kill_timer, step_sweep_cb, 0, STEP_SWEEP_MS);
		return;
	}
	log_info("step %u.%u: terminate (KillWait %d s)", sd->launch.job_id, sd->launch.step->step_id,
		 kill_wait);
	if (sd->launch.step->extern_step) {
		/* what was put in the job's container goes with it */
		size_t n = 0;
		pid_t *pids = cgroup_pids(sd->cg, &n);
		for (size_t i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		free(pids);
		st->all_exited = true;
		step_maybe_finish(st);
		return;
	}
	st->ending = true;
	step_cancel_line(st, "");
	step_start_kill(st, kill_wait < 0 ? 0 : kill_wait);
}

int step_signal(struct stepd *sd, int sig, const char *flags)
{
	struct step *st = sd->step;

	if (sig < 0 || sig >= NSIG)
		return HERD_ERR_INVALID_ARG;
	if (!st || !st->launched || st->all_exited)
		return HERD_ERR_ALREADY_DONE;
	if (!strcmp(flags, "batch"))
		return HERD_OK;   /* scancel -b: the batch shell only, not this step */
	if (flags[0] && strcmp(flags, "full"))
		return HERD_ERR_INVALID_ARG;
	log_info("step %u.%u: signal %d", sd->launch.job_id, sd->launch.step->step_id, sig);
	if (sig)
		step_kill_all(st, sig);
	return HERD_OK;
}

int step_suspend(struct stepd *sd, bool suspend)
{
	struct step *st = sd->step;

	if (!st || !st->launched || st->all_exited)
		return HERD_ERR_ALREADY_DONE;
	if (st->suspended == suspend)
		return HERD_OK;
	st->suspended = suspend;
	log_info("step %u.%u: %s", sd->launch.job_id, sd->launch.step->step_id,
		 suspend ? "suspended" : "resumed");
	/* the freezer stops every process at once, and a stopped task cannot
	 * tell (SIGSTOP would be seen by a parent waiting with WUNTRACED) */
	if (cgroup_version(sd->cg) == 0 || cgroup_freeze(sd->cg, suspend) < 0)
		step_kill_all(st, suspend ? SIGSTOP : SIGCONT);
	return HERD_OK;
}

bool step_done(const struct stepd *sd)
{
	return sd->step && sd->step->all_exited;
}

/* srun went away before the end: nothing of the step may go on. */
static void step_io_closed(void *arg)
{
	struct step *st = arg;

	st->io = NULL;
	if (st->output_paused)   /* the output goes nowhere now: drain it */
		step_io_drained(st);
	if (st->finished)
		return;
	log_info("step %u.%u: srun's connection closed; killing the step's tasks",
		 st->sd->launch.job_id, step_launch(st)->step_id);
	st->ending = true;
	step_thaw(st);
	step_kill_all(st, SIGCONT);
	step_kill_all(st, SIGKILL);
	uv_timer_start(&st->kill_timer, step_sweep_cb, STEP_SWEEP_MS, STEP_SWEEP_MS);
}

/* ---- the end --------------------------------------------------------------- */

static void step_reap(struct step *st)
{
	int status;
	pid_t pid;
	size_t live = 0;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < st->ntasks; i++) {
			struct step_task *t = &st->tasks[i];
			if (t->pid != pid || t->exited)
				continue;
			t->exited = true;
			t->status = status;
			oci_task_ended(st->sd, i);   /* RunTimeDelete, its files */
			log_debug("step %u.%u: task %d (pid %d) ended, status %d", st->sd->launch.job_id,
				  step_launch(st)->step_id, t->task_id, (int)pid, status);
			if (WIFSIGNALED(status))
				step_debug_line(st, t->task_id, "task %d (%d) exited. Killed by signal %d.",
						t->task_id, (int)pid, WTERMSIG(status));
			else
				step_debug_line(st, t->task_id, "task %d (%d) exited with exit code %d.",
						t->task_id, (int)pid, WEXITSTATUS(status));
			step_send_exit(t);
		}
	}
	if (!st->launched)
		return;
	for (size_t i = 0; i < st->ntasks; i++)
		live += !st->tasks[i].exited;
	if (live == 0 && !st->all_exited) {
		st->all_exited = true;
		uv_timer_stop(&st->limit_timer);
		uv_timer_stop(&st->signal_timer);
		/* what the tasks left behind dies with the step */
		if (step_kill_all(st, SIGKILL) > 0 && !uv_is_active((uv_handle_t *)&st->kill_timer))
			uv_timer_start(&st->kill_timer, step_sweep_cb, STEP_SWEEP_MS, STEP_SWEEP_MS);
	}
	step_maybe_finish(st);
}

static void step_sigchld_cb(uv_signal_t *h, int signum)
{
	step_reap(h->data);
}

#define STEP_FLUSH_MS 30000
#define STEP_DONE_WAIT_MS 2000   /* DONE waits this long at most for the controller's answer */

static void step_io_finished(void *arg)
{
	struct step *st = arg;

	st->flushing = NULL;
	uv_timer_stop(&st->flush_timer);
	if (st->complete_answered)
		complete_finish(st->sd);
}

static void step_flush_timeout(uv_timer_t *timer);

/* DONE to srun, the last message; herdstepd ends once it is out and the
 * controller has the step's end. */
static void step_send_done(struct step *st)
{
	struct io *io = st->io;

	uv_timer_stop(&st->done_timer);
	if (!io) {
		if (st->complete_answered && !st->flushing)
			complete_finish(st->sd);
		return;
	}
	st->io = NULL;
	io_send_json(io, STEPIO_DONE, STEPIO_ALL_TASKS, json_pack("{s:b}", "oom", st->cg_usage.oom));
	st->flushing = io;
	uv_timer_start(&st->flush_timer, step_flush_timeout, STEP_FLUSH_MS, 0);
	io_finish(io, step_io_finished, st);
}

static void step_completed(struct stepd *sd)
{
	struct step *st = sd->step;

	st->complete_answered = true;
	if (st->io)
		step_send_done(st);
	else if (!st->flushing)
		complete_finish(sd);
}

static void step_done_anyway(uv_timer_t *t)
{
	step_send_done(t->data);   /* the controller is slow: srun need not wait for it */
}

/* srun stopped reading: its end must not keep the step's end from the
 * controller. */
static void step_flush_timeout(uv_timer_t *timer)
{
	struct step *st = timer->data;

	if (!st->flushing)
		return;
	log_error("step %u.%u: srun did not take the step's last output in %d s; closing",
		  st->sd->launch.job_id, step_launch(st)->step_id, STEP_FLUSH_MS / 1000);
	io_close(st->flushing);   /* step_io_finished runs once it is closed */
}

/* The cgroup's account of the step, once its processes are gone; then the
 * cgroups go.  Slurm's line on the step's stderr after an OOM kill. */
static void step_take_usage(struct step *st)
{
	struct stepd *sd = st->sd;
	char line[300];

	if (cgroup_version(sd->cg) > 0 && cgroup_usage(sd->cg, &st->cg_usage) == 0)
		st->have_cg_usage = true;
	cgroup_step_destroy(sd->cg);
	sd->cg = NULL;
	if (!st->cg_usage.oom)
		return;
	log_info("step %u.%u: the cgroup's OOM killer struck", sd->launch.job_id,
		 step_launch(st)->step_id);
	stepd_oom_line(sd, line, sizeof(line));
	if (!st->ntasks)
		return;   /* N.extern */
	if (st->tasks[0].err_path)
		task_append_stderr(sd, line);
	else
		io_send(st->io, STEPIO_STDERR, st->tasks[0].task_id, line, strlen(line));
}

static void step_maybe_finish(struct step *st)
{
	const struct launch_step *s = step_launch(st);

	if (st->finished || !st->launched || !st->all_exited || st->exits_sent < st->ntasks ||
	    !stepd_tree_empty(st->sd))
		return;
	st->finished = true;
	step_take_usage(st);
	if (st->pmi) {
		pmi_destroy(st->pmi);
		st->pmi = NULL;
	}
	uv_timer_stop(&st->kill_timer);
	uv_timer_stop(&st->limit_timer);
	uv_timer_stop(&st->sample_timer);
	for (size_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		if (t->in_open && !t->pty && !uv_is_closing((uv_handle_t *)&t->in))
			uv_close((uv_handle_t *)&t->in, NULL);
		t->in_open = false;
	}
	log_info("step %u.%u: every task ended%s", st->sd->launch.job_id, s->step_id,
		 st->timed_out ? " (time limit)" : "");
	/* The controller hears of the end first, then srun: when srun exits,
	 * the step's CPUs are free for the next step (a script's next srun
	 * does not find them busy). */
	st->sd->on_complete = step_completed;
	complete_start(st->sd);
	if (st->io)
		uv_timer_start(&st->done_timer, step_done_anyway, STEP_DONE_WAIT_MS, 0);
}

json_t *step_complete_body(struct stepd *sd)
{
	struct step *st = sd->step;
	json_t *tasks = json_array();
	struct rusage ru;
	int status = 0;
	uint64_t cpu_us = 0, max_rss = st->max_rss_kb, ave_rss;

	for (size_t i = 0; i < st->ntasks; i++) {
		json_array_append_new(tasks, json_integer(st->tasks[i].status));
		if (st->tasks[i].status > status)
			status = st->tasks[i].status;
	}
	/* Every process of the step was our child or reparented to us and
	 * reaped here, so the children's rusage is the step's. */
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			 ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
		if ((uint64_t)ru.ru_maxrss > max_rss)
			max_rss = ru.ru_maxrss;
	}
	if (st->have_cg_usage) {   /* the cgroup counts what left the tree too */
		cpu_us = st->cg_usage.cpu_time_us;
		if (st->cg_usage.max_rss_kb)
			max_rss = st->cg_usage.max_rss_kb;
	}
	ave_rss = st->rss_samples ? st->rss_sum_kb / st->rss_samples : max_rss;
	if (ave_rss > max_rss)
		ave_rss = max_rss;
	return json_pack("{s:I, s:I, s:s, s:i, s:o, s:I, s:I, s:I, s:b, s:b}",
			 "job_id", (json_int_t)sd->launch.job_id,
			 "step_id", (json_int_t)sd->launch.step->step_id, "node", sd->node,
			 "status", status, "tasks", tasks, "cpu_time_us", (json_int_t)cpu_us,
			 "max_rss_kb", (json_int_t)max_rss, "ave_rss_kb", (json_int_t)ave_rss,
			 "oom", st->cg_usage.oom, "timed_out", st->timed_out);
}

/* RSS of the step's processes now, from /proc/PID/statm (pages). */
static void step_sample_cb(uv_timer_t *timer)
{
	struct step *st = timer->data;
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	pid_t *pids;
	ssize_t n = proctree_descendants(getpid(), &pids);
	uint64_t total = 0;

	for (ssize_t i = 0; i < n; i++) {
		char path[64];
		unsigned long size, resident;
		FILE *f;
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)pids[i]);
		if (!(f = fopen(path, "re")))
			continue;
		if (fscanf(f, "%lu %lu", &size, &resident) == 2)
			total += (uint64_t)resident * page_kb;
		fclose(f);
	}
	free(pids);
	if (cgroup_version(st->sd->cg) > 0) {   /* v2 without memory.peak samples here */
		struct cgroup_usage u;
		cgroup_usage(st->sd->cg, &u);
	}
	if (n <= 0)
		return;
	if (total > st->max_rss_kb)
		st->max_rss_kb = total;
	st->rss_sum_kb += total;
	st->rss_samples++;
}

/* ---- the start ------------------------------------------------------------ */

/* The launch failed after the loop started: nothing may be left, herdd
 * hears why, herdstepd exits 1. */
static void step_fail(struct step *st, const char *why)
{
	struct stepd *sd = st->sd;
	int status;

	log_error("step %u.%u: launch failed: %s", sd->launch.job_id, step_launch(st)->step_id, why);
	step_kill_all(st, SIGKILL);
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR)
		;
	if (st->io) {
		io_close(st->io);
		st->io = NULL;
	}
	stepd_ready(sd, why);
	sd->exit_code = 1;
	ctl_stop(sd->ctl);
	sd->ctl = NULL;
	uv_stop(sd->loop);
}

static void step_io_connected(void *arg, int status, const struct herd_error *cerr)
{
	struct step *st = arg;
	struct stepd *sd = st->sd;
	const struct launch_step *s = step_launch(st);
	struct herd_error err = { "" };
	char child_err[512];
	json_t *ids;

	if (status < 0) {
		st->io = NULL;
		step_fail(st, cerr->text);
		return;
	}
	ids = json_array();
	for (size_t i = 0; i < st->ntasks; i++)
		json_array_append_new(ids, json_integer(st->tasks[i].task_id));
	io_send_json(st->io, STEPIO_HELLO, STEPIO_ALL_TASKS,
		     json_pack("{s:s, s:I, s:I, s:s, s:i, s:o}", "key", s->io_key, "job_id",
			       (json_int_t)sd->launch.job_id, "step_id", (json_int_t)s->step_id,
			       "node", sd->node, "node_id", s->node_id, "tasks", ids));
	for (size_t i = 0; i < st->ntasks; i++)
		st->tasks[i].tell_fd = -1;
	for (size_t i = 0; i < st->ntasks; i++) {
		if (step_task_spawn(sd, &st->tasks[i], child_err, sizeof(child_err), &err) < 0) {
			for (size_t k = 0; k < i; k++)
				step_task_exec_result(&st->tasks[k], child_err, sizeof(child_err));
			step_fail(st, err.text);
			return;
		}
	}
	for (size_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		step_task_exec_result(t, child_err, sizeof(child_err));
		if (child_err[0]) {
			char *line = xasprintf("%s: task %d: %s", sd->node, t->task_id, child_err);
			log_info("step %u.%u: %s", sd->launch.job_id, s->step_id, line);
			io_send(st->io, STEPIO_ERROR, t->task_id, line, strlen(line));
			free(line);
		}
		step_output_start(t);
	}
	st->launched = true;
	st->start_ms = step_now_ms();
	stepd_ready(sd, "ok\n");
	log_info("step %u.%u: %zu task(s) started as uid %d", sd->launch.job_id, s->step_id,
		 st->ntasks, sd->launch.uid);
	step_debug_line(st, st->tasks[0].task_id, "starting %zu tasks", st->ntasks);
	for (size_t i = 0; i < st->ntasks; i++) {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		step_debug_line(st, st->tasks[i].task_id, "task %d (%d) started %s", st->tasks[i].task_id,
				(int)st->tasks[i].pid, stamp);
	}
	if (s->time_limit > 0)
		uv_timer_start(&st->limit_timer, step_limit_cb, (uint64_t)s->time_limit * 1000, 0);
	uv_timer_start(&st->sample_timer, step_sample_cb, STEP_SAMPLE_MS, STEP_SAMPLE_MS);
	step_arm_signal(st);
	step_reap(st);
}

static const struct io_ops step_io_ops = {
	.connected = step_io_connected,
	.message = step_io_message,
	.closed = step_io_closed,
	.drained = step_io_drained,
};

static bool step_same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Everything a task needs, decided before any connection or fork. */
static int step_prepare_task(struct stepd *sd, struct step *st, size_t i, struct herd_error *err)
{
	const struct launch *l = &sd->launch;
	const struct launch_step *s = l->step;
	struct step_task *t = &st->tasks[i];
	struct pattern_ctx ctx = {
		.job_id = l->job_id,
		.array_job_id = (uint32_t)l->array_job_id,
		.array_task_id = l->array_job_id ? (uint32_t)l->array_task_id : PATTERN_NO_ARRAY,
		.job_name = l->name,
		.user = l->user,
		.node = sd->node,
		.node_id = s->node_id,
		.is_step = true,
		.step_id = s->step_id,
		.task_id = s->task_ids[i],
	};
	char *p;

	t->st = st;
	t->local = i;
	t->task_id = s->task_ids[i];
	t->pty_fd = -1;
	t->pty = s->pty && t->task_id == 0;
	if (s->multi_prog) {
		t->argv = multiprog_argv(s->multi_prog, s->nmulti, t->task_id, s->step_num_tasks, err);
		if (!t->argv)
			return -1;
	} else {
		t->argv = xmalloc((s->argc + 1) * sizeof(char *));
		for (size_t a = 0; a < s->argc; a++)
			t->argv[a] = xstrdup(s->argv[a]);
	}
	if (!t->argv[0] || !t->argv[0][0])
		return errprintf(err, "task %d: no program to run", t->task_id);
	if (s->std_out[0]) {
		p = pattern_expand(s->std_out, &ctx);
		t->out_path = pattern_join(s->cwd, p);
		free(p);
	}
	if (s->std_err[0]) {
		p = pattern_expand(s->std_err, &ctx);
		t->err_path = pattern_join(s->cwd, p);
		free(p);
	} else if (t->out_path) {
		t->err_path = xstrdup(t->out_path);   /* srun -o alone takes stderr too */
	}
	if (s->std_in[0] && strcmp(s->std_in, "none")) {
		p = pattern_expand(s->std_in, &ctx);
		t->in_path = pattern_join(s->cwd, p);
		free(p);
	}
	t->reads_stdin = t->pty || (!t->in_path && s->stdin_task != -2 &&
				    (s->stdin_task == -1 || s->stdin_task == t->task_id));
	/* Tasks sharing a file: the first opens it truncated, the others append. */
	t->out_trunc = t->out_path != NULL;
	t->err_trunc = t->err_path && !step_same(t->err_path, t->out_path);
	for (size_t j = 0; j < i; j++) {
		const struct step_task *u = &st->tasks[j];
		if (step_same(t->out_path, u->out_path) || step_same(t->out_path, u->err_path))
			t->out_trunc = false;
		if (step_same(t->err_path, u->out_path) || step_same(t->err_path, u->err_path))
			t->err_trunc = false;
	}
	t->bound = bind_task_mask(&st->bind, st->cpus, st->ncpus, s->cpus_per_task, i, &t->mask) > 0;
	if (membind_prepare(s->opts.mem_bind, (int)i, &t->mem, err) < 0)
		return -1;

	struct env_node node = {
		.node = sd->node, .conf_path = sd->conf_path, .home = sd->home, .shell = sd->shell,
		.spool = sd->spool,
	};
	node.constrain_devices = sd->cgconf.constrain_devices;
	/* --gpu-bind=closest: the task's own CPUs, else the step's (none: any) */
	cpu_set_t step_cpus;
	CPU_ZERO(&step_cpus);
	for (size_t k = 0; k < st->ncpus; k++)
		if (st->cpus[k] >= 0 && st->cpus[k] < CPU_SETSIZE)
			CPU_SET(st->cpus[k], &step_cpus);
	char gpu_verbose[512] = "", gpu_warning[256] = "";
	struct env_task et = {
		.local = i, .task_id = t->task_id,
		.cpu_bind = st->bind_env[0], .cpu_bind_type = st->bind_env[1],
		.cpu_bind_list = st->bind_env[2], .cpu_bind_verbose = st->bind_env[3],
		.cpus = t->bound ? &t->mask : s->cpus[0] ? &step_cpus : NULL,
		.gpu_verbose = gpu_verbose, .gpu_warning = gpu_warning,
	};
	env_init(&t->env);
	env_step(&t->env, l, &node, &et);
	if (gpu_warning[0]) {   /* Slurm says it on the task's stderr */
		log_error("%s", gpu_warning);
		t->gpu_error = xasprintf("slurmstepd-%s: error: %s\n", sd->node, gpu_warning);
	}
	t->gpu_verbose = gpu_verbose[0] ? xstrdup(gpu_verbose) : NULL;
	t->dev_files = gpu_task_dev_files(l, node.constrain_devices, (int)i, et.cpus, &t->ndev_files);
	if (oci_bundle(sd))   /* as Slurm's SLURM_CONTAINER: the bundle the task runs in */
		env_set(&t->env, "SLURM_CONTAINER", oci_bundle(sd));
	t->pmi_fd = -1;
	if (st->pmi) {
		char **pv = NULL;
		size_t pn = 0;
		if (pmi_task_env(st->pmi, i, &pv, &pn, &t->pmi_fd, err) < 0)
			return -1;
		for (size_t k = 0; k < pn; k++) {
			env_put(&t->env, pv[k]);
			free(pv[k]);
		}
		free(pv);
	}
	oci_prepare_task(sd, i, t->task_id, t->env.v);
	return 0;
}

/* Which of the step's CPUs each task takes: -m's socket and core parts,
 * --hint and the node's topology in herd.conf (bind_dist.c).  As Slurm,
 * --hint gives the binding's default (threads for [no]multithread, cores
 * for compute_bound and memory_bound) and is ignored beside
 * --ntasks-per-core or a --cpu-bind type. */
static void step_bind_order(struct stepd *sd, struct step *st, const struct launch_step *s)
{
	const struct conf_node *cn = conf_node_find(sd->conf, sd->node);
	unsigned hint = 0;
	struct dist d;
	size_t n;

	if (!s->opts.hint || hint_parse(s->opts.hint, &hint, NULL) < 0 ||
	    s->opts.ntasks_per_core > 0 || st->bind.type != BIND_DEFAULT)
		hint = 0;
	if (hint & (HINT_NOMULTITHREAD | HINT_MULTITHREAD))
		st->bind.type = BIND_THREADS;
	else if (hint & (HINT_COMPUTE_BOUND | HINT_MEMORY_BOUND))
		st->bind.type = BIND_CORES;
	/* As Slurm: --ntasks-per-core binds to cores, --ntasks-per-socket to
	 * sockets, unless a --cpu-bind type says otherwise */
	else if (st->bind.type == BIND_DEFAULT && s->opts.ntasks_per_core > 0)
		st->bind.type = BIND_CORES;
	else if (st->bind.type == BIND_DEFAULT && s->opts.ntasks_per_socket > 0) {
		st->bind.type = BIND_CORES;
		st->bind.sockets = true;
	}
	if ((st->bind.type != BIND_DEFAULT && st->bind.type != BIND_CORES &&
	     st->bind.type != BIND_THREADS) || st->ncpus == 0)
		return;
	if (dist_parse(s->distribution, &d, NULL) < 0)
		dist_parse("block", &d, NULL);
	bind_topo_of(cn, (int)st->ncpus, &st->bind.topo);
	bool one_thread = (hint & (HINT_NOMULTITHREAD | HINT_COMPUTE_BOUND | HINT_MEMORY_BOUND)) &&
			  !(hint & HINT_MULTITHREAD);
	int *order = bind_dist_order(&st->bind.topo, dist_socket(&d), dist_core(&d), one_thread,
				     st->cpus, st->ncpus, s->cpus_per_task, st->ntasks, &n);
	if (n == 0) {
		free(order);
		return;
	}
	if (st->bind.type == BIND_CORES) {
		st->bind.expand_cores = st->bind.topo.threads > 1;
		st->bind.expand_sockets = st->bind.sockets;
		st->bind.all_cpus = st->cpus;
		st->bind.nall = st->ncpus;
	} else {
		free(st->cpus);
	}
	st->cpus = order;
	st->ncpus = n;
}

int step_start(struct stepd *sd, struct herd_error *err)
{
	const struct launch_step *s = sd->launch.step;
	struct step *st = xmalloc(sizeof(*st));
	cpu_set_t avail;

	sd->step = st;
	st->sd = sd;
	st->ntasks = s->ntasks;
	st->tasks = xmalloc(st->ntasks * sizeof(*st->tasks));
	if (bind_parse(s->cpu_bind, &st->bind, err) < 0)
		return -1;
	CPU_ZERO(&avail);
	if (sched_getaffinity(0, sizeof(avail), &avail) < 0)
		return errprintf(err, "sched_getaffinity: %s", strerror(errno));
	if (bind_cpu_list(s->cpus, &avail, &st->cpus, &st->ncpus) < 0)
		return errprintf(err, "launch: step.cpus: invalid CPU list '%.40s'", s->cpus);
	step_bind_order(sd, st, s);
	rlimits_plan(&s->opts.rlimits, s->opts.propagate, sd->conf, sd->launch.job_id, &st->rlimits);
	/* The default binds only a step that holds CPUs. */
	/* "" = not given: MpiDefault, else none, as Slurm */
	const char *mpi = s->mpi[0] ? s->mpi : conf_get(sd->conf, "MpiDefault");
	int kind = mpi ? pmi_kind_parse(mpi) : PMI_NONE;
	if (kind < 0)
		return errprintf(err, "Invalid MPI type '%.40s', --mpi=list for acceptable types", mpi);
	if (kind != PMI_NONE) {
		/* a het step's components are one world: named by the leader */
		struct pmi_step_info info = {
			.job_id = sd->launch.het_job_id > 0 && sd->launch.het_job_id <= UINT32_MAX
				  ? (uint32_t)sd->launch.het_job_id : sd->launch.job_id,
			.step_id = s->step_id, .size = s->step_num_tasks,
			.num_nodes = s->step_num_nodes, .node_id = s->node_id, .ranks = s->task_ids,
			.nranks = s->ntasks, .node_names = s->step_nodes,
			.tasks_per_node = s->step_tasks_per_node, .distribution = s->distribution,
			.uid = sd->launch.uid, .gid = sd->launch.gid,
		};
		st->pmi = pmi_create(sd->loop, kind, &info, step_pmi_fence, step_pmi_abort, st, err);
		if (!st->pmi)
			return -1;
	}
	size_t bind_ncpus = st->bind.type == BIND_DEFAULT && !s->cpus[0] ? 0 : st->ncpus;
	size_t real_ncpus = st->ncpus;
	st->ncpus = bind_ncpus;
	bind_env(&st->bind, st->cpus, st->ncpus, s->cpus_per_task, st->ntasks, &st->bind_env[0],
		 &st->bind_env[1], &st->bind_env[2], &st->bind_env[3]);
	oci_start(sd, st->ntasks);   /* --container: oci.conf, before the tasks' directories */
	for (size_t i = 0; i < st->ntasks; i++)
		if (step_prepare_task(sd, st, i, err) < 0)
			return -1;
	st->ncpus = real_ncpus;
	/* herdstepd's own lines for the step's stderr go to task 0's file */
	if (st->ntasks && st->tasks[0].err_path) {
		free(sd->std_err);
		sd->std_err = xstrdup(st->tasks[0].err_path);
	}
	free(sd->launch.cwd);
	sd->launch.cwd = xstrdup(s->cwd);

	char step_name[16];
	snprintf(step_name, sizeof(step_name), s->extern_step ? "extern" : "%u", s->step_id);
	size_t ndev = 0;
	char **dev = gpu_dev_files(s->gres, s->ngres, &ndev);   /* ConstrainDevices */
	struct cgroup_limits lim = { .cpus = s->cpus, .mem_mb = s->mem_mb };
	char *scope = cgroup_scope(sd->launch.cluster, sd->node);
	sd->cg = cgroup_step_create(&sd->cgconf, scope, sd->launch.job_id, step_name, &lim);
	free(scope);
	cgroup_constrain_devices(sd->cg, (const char *const *)dev, ndev);
	gpu_dev_files_free(dev, ndev);
	/* a cgroup left frozen by a herdstepd that was killed while its step
	 * was suspended would freeze our tasks before they exec */
	cgroup_freeze(sd->cg, false);

	uv_signal_init(sd->loop, &st->sigchld);
	st->sigchld.data = st;
	uv_signal_start(&st->sigchld, step_sigchld_cb, SIGCHLD);
	uv_timer_init(sd->loop, &st->limit_timer);
	uv_timer_init(sd->loop, &st->kill_timer);
	uv_timer_init(sd->loop, &st->sample_timer);
	uv_timer_init(sd->loop, &st->signal_timer);
	uv_timer_init(sd->loop, &st->flush_timer);
	uv_timer_init(sd->loop, &st->done_timer);
	st->done_timer.data = st;
	st->limit_timer.data = st->kill_timer.data = st->sample_timer.data = st;
	st->signal_timer.data = st->flush_timer.data = st;

	if (s->extern_step) {
		/* N.extern: the job's container on this node until the job ends
		 * (processes may be put in it from outside); no task, no srun. */
		st->launched = true;
		st->start_ms = step_now_ms();
		stepd_ready(sd, "ok\n");
		log_info("step %u.extern: holding the job's cgroup on %s", sd->launch.job_id, sd->node);
		return 0;
	}
	st->io = io_connect(sd->loop, s->io_host, s->io_port, &step_io_ops, st, err);
	return st->io ? 0 : -1;
}

void step_free(struct stepd *sd)
{
	struct step *st = sd->step;

	if (!st)
		return;
	for (size_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		if (t->argv)
			multiprog_free_argv(t->argv);
		env_free(&t->env);
		free(t->gpu_verbose);
		free(t->gpu_error);
		gpu_dev_files_free(t->dev_files, t->ndev_files);
		free(t->out_path);
		free(t->err_path);
		free(t->in_path);
	}
	for (int i = 0; i < 4; i++)
		free(st->bind_env[i]);
	if (st->pmi)
		pmi_destroy(st->pmi);
	bind_free(&st->bind);
	free(st->cpus);
	free(st->tasks);
	free(st);
	sd->step = NULL;
}
