/* A job step on this node (herdstepd's step mode, when the launch has a
 * "step" object): the tasks, their I/O relayed to srun, their ends, and the
 * step's end.  The batch step is job.c's. */
#ifndef HERD_STEPD_STEP_H
#define HERD_STEPD_STEP_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>
#include <uv.h>
#include "stepd/bind.h"
#include "stepd/cgroup.h"
#include "stepd/env.h"
#include "stepd/membind.h"
#include "stepd/rlimits.h"

struct stepd;
struct step;
struct pmi_server;

struct step_task {
	struct step *st;
	int local;                 /* index on this node */
	int task_id;               /* global (SLURM_PROCID) */
	pid_t pid;                 /* 0 until forked */
	bool exited;               /* reaped */
	int status;                /* raw wait status */
	bool exit_sent;            /* EXIT went to srun */
	int tell_fd;               /* the child's exec report, until read (-1) */

	/* what the parent prepared for the child */
	char **argv;               /* argv (multi-prog's line, or the step's) */
	struct env env;
	char *out_path, *err_path, *in_path;   /* NULL = streamed / srun's stdin */
	bool out_trunc, err_trunc;             /* the first local task to open a file truncates it */
	bool reads_stdin;          /* gets srun's STDIN messages (a pipe), else /dev/null or in_path */
	bool pty;                  /* task 0 with --pty */
	bool bound;
	cpu_set_t mask;
	struct membind_task mem;   /* --mem-bind */
	char *gpu_verbose;         /* --gpu-bind=verbose's line for its stderr, NULL none */
	char *gpu_error;           /* a --gpu-bind complaint for its stderr, NULL none */
	char **dev_files;          /* ConstrainDevices: its own GPUs' files (--gpu-bind), NULL: the step's */
	size_t ndev_files;

	/* the parent's ends */
	uv_pipe_t out, err, in;
	bool out_open, err_open, in_open;
	int pty_fd;                /* the pty master (read and written through `out`), -1 none */
	int pmi_fd;                /* the child's PMI socket to keep across exec, -1 none */
};

struct step {
	struct stepd *sd;
	struct step_task *tasks;
	size_t ntasks;
	struct io *io;             /* NULL once closed */
	struct bind bind;
	int *cpus;
	size_t ncpus;
	char *bind_env[4];         /* SLURM_CPU_BIND, _TYPE, _LIST, _VERBOSE */
	struct rlimits_plan rlimits;   /* --propagate */

	bool launched;             /* tasks forked, herdd told */
	bool ending;               /* a terminate, the time limit or a lost srun began the kill */
	bool timed_out;
	bool all_exited;
	bool finished;             /* DONE sent (or srun gone), STEP_COMPLETE under way */
	bool output_paused;        /* srun is behind: the tasks' output is not read */
	bool stdin_paused;         /* a task is behind on its stdin: srun's is not read */
	bool suspended;            /* scontrol suspend */
	size_t exits_sent;
	int64_t start_ms;

	uv_signal_t sigchld;
	uv_timer_t limit_timer, kill_timer, sample_timer, signal_timer;
	uv_timer_t flush_timer;    /* DONE and what precedes it must reach srun in time */
	struct io *flushing;       /* the connection io_finish is closing */
	uv_timer_t done_timer;     /* DONE without the controller's answer, after a while */
	bool complete_answered;    /* the controller has STEP_COMPLETE */

	struct pmi_server *pmi;    /* --mpi other than none; NULL otherwise */
	struct cgroup_usage cg_usage; /* read once the processes are gone */
	bool have_cg_usage;
	/* usage, without a cgroup: RSS sampled from /proc every second */
	uint64_t max_rss_kb, rss_sum_kb, rss_samples;
};

/* Start the step: check the launch, connect to srun; the tasks are forked
 * once the connection is up, and herdd hears "ok" (or why not) then.
 * -1 with err for what is wrong before any connection is tried. */
int step_start(struct stepd *sd, struct herd_error *err);
/* SIGNAL_JOB: the signal to every process of the step (flags "batch": not
 * for a step, nothing is sent).  The rc for herdd. */
int step_signal(struct stepd *sd, int sig, const char *flags);
/* TERMINATE_JOB (scancel N.S, the job's end): the CANCELLED line, SIGCONT +
 * SIGTERM, SIGKILL after kill_wait. */
void step_terminate(struct stepd *sd, int kill_wait);
/* scontrol suspend/resume: stop or continue every process of the step.
 * The rc for herdd. */
int step_suspend(struct stepd *sd, bool suspend);
/* Has every task of the step ended? */
bool step_done(const struct stepd *sd);
/* STEP_COMPLETE's body (complete.c sends it). */
json_t *step_complete_body(struct stepd *sd);
/* Free what the step holds (after the loop ended). */
void step_free(struct stepd *sd);

/* Between step.c and step_io.c. */
struct stepio_msg;
/* Every process of the step: the signal sig (contain.c). */
int step_kill_all(struct step *st, int sig);
/* EXIT to srun once t was reaped and its output reached EOF. */
void step_send_exit(struct step_task *t);
/* step_io.c: start relaying t's output (after the fork). */
void step_output_start(struct step_task *t);
void step_io_message(void *arg, const struct stepio_msg *m);
void step_io_drained(void *arg);
void step_pmi_fence(void *arg, int seq, json_t *kvs);

/* step_task.c: fork local task t as the user; the child execs the task.
 * Returns 0 (t->pid set; an exec failure is the task's own end, reported
 * through *child_err, "" when exec worked) or -1 with err when no process
 * could be made. */
/* Did the task's exec succeed?  child_err gets the child's sentence ("" =
 * it ran).  Called after every task was spawned, so the node's tasks exec
 * in parallel rather than one after the other. */
void step_task_exec_result(struct step_task *t, char *child_err, size_t size);
int step_task_spawn(struct stepd *sd, struct step_task *t, char *child_err, size_t size,
		    struct herd_error *err);

#endif
