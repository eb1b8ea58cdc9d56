/* herdd's state: one node daemon.  Everything runs on one libuv loop thread;
 * net.c's workers never touch these structures. */
#ifndef HERD_NODED_NODED_H
#define HERD_NODED_NODED_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/gres.h"
#include "common/net.h"

/* Names inside a job's spool directory, shared with herdstepd
 * (src/stepd/stepd.h: STEPD_*). */
#define NODED_JOB_DIR_FMT  "job%05u"       /* the batch step */
#define NODED_STEP_DIR_FMT "job%05u.%u"    /* a job step (LAUNCH_STEP) */
#define NODED_BATCH_STEP   4294967291u     /* Slurm's SLURM_BATCH_SCRIPT */
#define NODED_EXTERN_STEP  4294967292u     /* Slurm's SLURM_EXTERN_CONT (PrologFlags=Contain) */
#define NODED_LAUNCH_FILE  "launch.json"
#define NODED_PID_FILE     "herdstepd.pid"
#define NODED_CTL_SOCKET   "ctl.sock"
/* A job's MPS control daemon for GPU G (mps.c): SlurmdSpoolDir/mpsJJJJJ.G,
 * with pipe/ and log/ (src/stepd/stepd.h: STEPD_MPS_DIR_FMT) */
#define MPS_DIR_FMT        "mps%05u.%d"
#define MPS_PROGRAM        "nvidia-cuda-mps-control"
#define MPS_GPU_MAX        65535

struct hw {
	int cpus, boards, sockets, cores, threads;   /* cores = per socket */
	uint64_t memory_mb;
	int64_t boot_time;
	char arch[80], os[256];
	struct gres_dev *gres;    /* gres.conf's and detected devices (NODE_REGISTER's "gres") */
	size_t ngres;
};

/* A job step whose herdstepd runs (or is being started) on this node: the
 * batch step (step_id NODED_BATCH_STEP) or a step srun made. */
struct noded_job {
	uint32_t job_id;
	uint32_t step_id;
	pid_t pid;                /* herdstepd; 0 while it is starting */
	char *dir;
	int pending_kill_wait;    /* a TERMINATE that came while starting; -1 none */
	struct gpu_watch *gpu;    /* its GPUs' samples (gpu_usage.c), NULL none */
	struct noded_job *next;
};

struct noded {
	uv_loop_t *loop;
	struct conf *conf;
	char *conf_path;          /* absolute, passed on to herdstepd */
	const char *node;         /* NodeName */
	const struct conf_node *cn;
	char *spool;              /* SlurmdSpoolDir with %n expanded */
	char *stepd_path;         /* herdstepd next to our binary */
	char *dest_ctld;
	uid_t slurm_uid;          /* SlurmUser */
	int verbose;
	time_t start_time;
	struct hw hw;
	struct net_server *srv;
	struct noded_job *jobs;
	struct mps_daemon *mps;   /* MPS control daemons of jobs here (mps.c) */

	uv_timer_t heartbeat;
	uv_timer_t reaper;        /* each second: step daemons that died (jobs_reap) */
	bool register_in_flight;
	int ctld_state;           /* -1 not tried yet, 0 down, 1 up: log changes only */
};

/* hw.c */
/* Fill hw from hwloc and uname, then apply what the NodeName line declares. */
int hw_detect(struct hw *hw, const struct conf *conf, const char *node, struct herd_error *err);
void hw_release(struct hw *hw);

/* nvml.c: the GPUs NVML reports (device files dev_dir/nvidiaN), appended
 * to out; -1 with err when no NVML answers. */
int nvml_detect(int threads, const char *dev_dir, struct gres_conf *out, struct herd_error *err);

/* gpu_usage.c: gres/gpumem, gres/gpuutil of the GPUs a step holds (its
 * LAUNCH's "gres", or its step's), sampled while it runs; reported to the
 * controller (GPU_USAGE) when it has ended; the samples freed. */
void gpu_usage_watch(struct noded *nd, struct noded_job *job, const json_t *launch);
void gpu_usage_report(struct noded *nd, struct noded_job *job);
void gpu_usage_free(struct noded_job *job);
void gpu_usage_close(void);   /* at the end: its timer */

/* jobs.c: the job table and the spool. */
char *noded_expand_path(const char *pattern, const char *node);   /* %n, %h */
struct noded_job *jobs_find(struct noded *nd, uint32_t job_id, uint32_t step_id);
/* The next entry of job_id after `after` (NULL: the first), any step. */
struct noded_job *jobs_next_of(struct noded *nd, uint32_t job_id, struct noded_job *after);
struct noded_job *jobs_add(struct noded *nd, uint32_t job_id, uint32_t step_id, const char *dir);
void jobs_remove(struct noded *nd, struct noded_job *job, bool remove_dir);
void jobs_remove_dir(const char *dir);   /* a job directory and its files */
/* Is pid a herdstepd serving dir? (/proc/PID/cmdline) */
bool jobs_stepd_alive(pid_t pid, const char *dir);
/* Drop jobs whose herdstepd died, removing their directories. */
void jobs_reap(struct noded *nd);
/* At start: adopt the jobs whose herdstepd is still alive, clean the rest. */
int jobs_scan(struct noded *nd, struct herd_error *err);
/* The IDs of jobs with a live herdstepd (each once), for NODE_REGISTER. */
json_t *jobs_ids(struct noded *nd);
/* [[job_id, step_id], ...] of the live herdstepds of steps (not batch). */
json_t *jobs_steps(struct noded *nd);
/* Send one request to a job's herdstepd over its control socket; returns
 * the rc it answered, or -1 with err when it could not be reached. */
int jobs_control(struct noded_job *job, const json_t *request, struct herd_error *err);

/* reclaim.c: kill what is left of a step whose herdstepd died before the
 * end (its tasks, found through its cgroup) and remove its cgroups. */
void reclaim_step(struct noded *nd, uint32_t job_id, uint32_t step_id);

/* launch.c: LAUNCH_JOB (the batch step) and LAUNCH_STEP. */
void launch_job(struct noded *nd, struct net_req *req);
void launch_step(struct noded *nd, struct net_req *req);

/* mps.c: the jobs' MPS control daemons (doc/gres.md section 4). */
/* A LAUNCH (job's or step's): start the daemon of each GPU its "gres" has
 * mps shares of, unless the job has it already; a failure is logged and
 * the job runs without MPS. */
void mps_launch(struct noded *nd, uint32_t job_id, const json_t *launch);
/* Each second: stop the daemons of jobs with no herdstepd left here
 * ("quit", SIGKILL a few seconds later), remove their directories. */
void mps_tick(struct noded *nd);
/* At start: take back the daemons a previous herdd started. */
void mps_scan(struct noded *nd);
/* At exit: forget them (they keep running, as the jobs do). */
void mps_forget(struct noded *nd);
/* The parts, for tests: the GPU indices of a LAUNCH's mps records (each
 * once, at most max); the program in a PATH string (NULL: the default),
 * only an absolute directory's, a file root's (or ours) that no one else
 * may write, or NULL; mps%05u.%d; the directory made safely (root's until
 * filled, then the user's 0700 with pipe/ and log/), -1 with errno. */
int mps_launch_gpus(const json_t *launch, int *gpus, size_t max);
char *mps_program_find(const char *path);
void mps_dir_name(char *buf, size_t len, uint32_t job_id, int gpu);
int mps_dir_create(int spool_fd, const char *name, uid_t uid, gid_t gid);

/* rpc.c: TERMINATE_JOB to a job's herdstepd; the rc for the controller. */
int rpc_terminate(struct noded *nd, struct noded_job *job, int kill_wait, struct herd_error *err);

/* register.c */
void register_start(struct noded *nd);
void register_now(struct noded *nd);

/* reconf.c: re-read nd->conf_path and apply it whole; -1 with err (nothing
 * changed) when it does not load or needs a restart. */
int reconf_reload(struct noded *nd, struct herd_error *err);

/* rpc.c */
void rpc_handle(struct net_req *req, void *arg);

#endif
