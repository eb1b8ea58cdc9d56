/* herdstepd's state: one batch job, or one job step (step.h), on one node.  Everything runs on one libuv
 * loop; nothing here is shared with another thread. */
#ifndef HERD_STEPD_STEPD_H
#define HERD_STEPD_STEPD_H
#include <stdbool.h>
#include <sys/types.h>
#include <uv.h>
#include "common/conf.h"
#include "stepd/cgroup.h"
#include "stepd/launch.h"

/* Names inside the job's spool directory (herdd knows them too:
 * src/noded/jobs.c). */
#define STEPD_LAUNCH_FILE "launch.json"
#define STEPD_PID_FILE    "herdstepd.pid"
#define STEPD_CTL_SOCKET  "ctl.sock"
#define STEPD_SCRIPT_FILE "slurm_script"
/* The job's MPS control daemon for GPU G, beside the job directories
 * (herdd's src/noded/mps.c: MPS_DIR_FMT): present = running */
#define STEPD_MPS_DIR_FMT "mps%05u.%d"

struct stepd {
	uv_loop_t *loop;
	struct conf *conf;
	char *conf_path;
	char *node;
	char *job_dir;
	char *spool;               /* job_dir's parent, SlurmdSpoolDir (herdd's MPS directories) */
	int job_dir_fd;               /* O_PATH, for short socket paths */
	struct launch launch;

	/* the user, resolved once before any fork */
	char *home, *shell;
	gid_t *groups;
	int ngroups;

	/* expanded file names (relative ones are relative to the job's cwd) */
	char *std_out, *std_err, *std_in;
	char *script_path;

	pid_t shell_pid;              /* 0 until started */
	bool shell_done;              /* the batch shell was reaped */
	int status;                   /* its raw wait status */
	bool ending;                  /* a cancel or the time limit began the kill */
	bool timed_out;
	bool oom;                     /* the batch step's cgroup hit its memory limit */
	bool tree_dead;               /* no child left: ready to report */

	uv_signal_t sigchld;
	uv_timer_t limit_timer;       /* time limit */
	uv_timer_t signal_timer;      /* --signal, sig_time seconds before the limit */
	bool signal_sent;
	bool suspended;               /* scontrol suspend of the batch step */
	uv_timer_t kill_timer;        /* SIGKILL after KillWait, then sweeps */
	uv_timer_t complete_timer;    /* JOB_COMPLETE retries */
	int complete_backoff_ms;
	bool complete_in_flight;
	/* A step: what to do once the controller answered STEP_COMPLETE (tell
	 * srun DONE); NULL: stop at once (the batch step).  complete_finish
	 * then ends herdstepd. */
	void (*on_complete)(struct stepd *sd);

	struct ctl_server *ctl;

	struct step *step;            /* step mode (launch.step set); NULL for the batch step */
	struct oci *oci;              /* --container (oci.h); NULL: the tasks run on the host */
	struct cgroup_conf cgconf;    /* cgroup.conf beside the configuration file */
	bool cgconf_loaded;
	struct cgroup_step *cg;       /* the step's cgroups (a no-op handle where there are none) */
	int ready_fd;                 /* herdd's readiness pipe until answered, else -1 */
	int exit_code;                /* herdstepd's, once the loop ends */
};

/* contain.c: sig to every process of the step: herdstepd's descendants and
 * the cgroup's pids, each once, the process group pgid (0 none) as one,
 * except skip (0 none).  Returns how many were signalled. */
int stepd_signal_all(struct stepd *sd, pid_t pgid, pid_t skip, int sig);
/* No process of the step is left (tree and cgroup). */
bool stepd_tree_empty(struct stepd *sd);
/* "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=N.S. ..." */
void stepd_oom_line(const struct stepd *sd, char *buf, size_t size);

/* main.c: tell herdd the launch worked ("ok\n") or why not, once. */
void stepd_ready(struct stepd *sd, const char *text);

/* job.c: the job's life on the loop. */
int job_start(struct stepd *sd, struct herd_error *err);
/* Signal the job: flags "" (steps only: nothing to do), "batch" (the shell),
 * "full" (the shell and every descendant).  Returns the rc for herdd. */
int job_signal(struct stepd *sd, int sig, const char *flags);
/* scancel / node shutdown: message in stderr, SIGCONT+SIGTERM, SIGKILL after kill_wait. */
void job_terminate(struct stepd *sd, int kill_wait);
void job_set_time_limit(struct stepd *sd, int64_t limit);
/* scontrol suspend/resume: freeze (the cgroup's freezer, else SIGSTOP) or
 * thaw every process of the job here.  The rc for herdd. */
int job_suspend(struct stepd *sd, bool suspend);

/* task.c: the user's side. */
/* Child only: a sentence for the parent through the error pipe (a batch
 * shell's launch failure, a step task's ERROR line). */
void task_fail(int errfd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fork the batch shell as the user; returns its pid or -1 with err. */
pid_t task_spawn(struct stepd *sd, struct herd_error *err);
/* Append one line to the job's stderr file, opened as the user (never as
 * root: the user owns the path and could point it anywhere). */
void task_append_stderr(struct stepd *sd, const char *line);
/* Child only (the batch shell and a step's tasks): become the user for
 * good (groups, gid, uid); -1 with errno. */
int task_become_user(const struct stepd *sd);
/* Child only: default dispositions and an empty mask for every signal. */
void task_reset_signals(void);
/* Child only: chdir to cwd, else /tmp as Slurm does; the errno of the
 * failed chdir, 0 when it worked. */
int task_chdir(const char *cwd);

/* user_env.c: sbatch --get-user-env: the user's login environment (read
 * by the user's shell, run as the user, at most timeout_s seconds; mode 'S'
 * a plain shell, else a login one) put into out.  -1 when it could not be
 * had (logged): the job runs with what was submitted. */
struct env;
int user_env_get(struct stepd *sd, int timeout_s, char mode, struct env *out);

/* ctl.c: the control socket herdd talks to. */
struct ctl_server *ctl_start(struct stepd *sd, struct herd_error *err);
void ctl_stop(struct ctl_server *ctl);

/* complete.c: JOB_COMPLETE (STEP_COMPLETE for a step) to the controller,
 * then clean up and stop. */
void complete_start(struct stepd *sd);
/* The report was answered and nothing else waits: clean up and stop. */
void complete_finish(struct stepd *sd);

#endif
