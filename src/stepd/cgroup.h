/* Containment of a job's steps with cgroups (v1: cpuset, memory, devices,
 * freezer, cpuacct; v2: the unified hierarchy), chosen at run time, as
 * cgroup.conf's keys say (ConstrainCores, ConstrainRAMSpace, AllowedRAMSpace,
 * ConstrainSwapSpace, AllowedSwapSpace, ConstrainDevices).  The hierarchy is
 * herd/NODE/job_N/step_S/task_T below the daemon's own cgroup in each
 * hierarchy (the root on a host; the container's cgroup in a container), the
 * node name level because several herdd share one host in tests and herd up.
 * Where cgroups cannot be used, cgroup_step_create logs one clear line and
 * returns a handle whose calls succeed and do nothing (processes are then
 * tracked through proctree.c only).  No call here aborts the step: failures
 * are logged and the step runs on.  doc/cgroup.md has the details. */
#ifndef HERD_STEPD_CGROUP_H
#define HERD_STEPD_CGROUP_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"

struct cgroup_conf {
	bool constrain_cores, constrain_ram, constrain_swap, constrain_devices;
	double allowed_ram;     /* percent of the step's memory, default 100 */
	double allowed_swap;    /* percent, default 0 */
	char *mountpoint;       /* CgroupMountpoint, default /sys/fs/cgroup */
	char *plugin;           /* CgroupPlugin: autodetect, cgroup/v1, cgroup/v2, disabled */
};

/* Read cgroup.conf beside the main config file (conf_dir/cgroup.conf); a
 * missing file gives the defaults (Slurm's: nothing constrained).  -1 with
 * err naming file, line and key for a bad one (cc is then already freed).
 * Keys are case-insensitive; the documented keys Herd does not act on
 * (MaxRAMPercent, MinRAMSpace, IgnoreSystemd, ...) are accepted and ignored. */
int cgroup_conf_load(const char *conf_dir, struct cgroup_conf *cc, struct herd_error *err);
void cgroup_conf_free(struct cgroup_conf *cc);

struct cgroup_step;

struct cgroup_limits {
	const char *cpus;       /* CPU list the step may use ("0-3"), NULL/"" = all */
	uint64_t mem_mb;        /* 0 = no memory limit */
};

/* The level under herd/ for one node of one cluster: "CLUSTER_NODE".  Job
 * IDs are per cluster and node names repeat across clusters (herd up
 * clusters on one machine all have n1, n2 ...): without the cluster, one
 * cluster's job_1 would be another's. Caller frees. */
char *cgroup_scope(const char *cluster, const char *node);
/* Create job_N/step_S (S "batch", "extern", or the number) for node (its
 * cgroup_scope), with
 * the limits cc asks for (cc NULL = the defaults).  Never NULL: where cgroups
 * cannot be used the handle does nothing (cgroup_version 0).  Without any
 * Constrain* the step is still tracked (freezer, cpuacct, memory without a
 * limit) so that freeze and usage work. */
struct cgroup_step *cgroup_step_create(const struct cgroup_conf *cc, const char *node,
				       uint32_t job_id, const char *step,
				       const struct cgroup_limits *lim);
/* ConstrainDevices (when cc asked for it at creation; otherwise nothing):
 * the step may use the default character devices and the device files
 * named (its GRES files, doc/gres.md section 3), nothing else.  Call once,
 * before the first task joins.  -1 (logged) when it could not be applied. */
int cgroup_constrain_devices(struct cgroup_step *cg, const char *const *files, size_t n);
/* The same for one task's own cgroup (task_T, made here), narrower than its
 * step's (srun --gpu-bind under ConstrainDevices, as Slurm: the task sees
 * only its GPUs).  Call before the task joins (cgroup_add_task). */
int cgroup_constrain_task_devices(struct cgroup_step *cg, uint32_t task_id,
				  const char *const *files, size_t n);
/* Which version is in use: 1, 2, or 0 when none (the handle does nothing). */
int cgroup_version(const struct cgroup_step *cg);
/* Put pid (a task, before it execs) into the step's task_T cgroup, made on
 * first use.  -1 (logged) when a hierarchy refused it; the task runs anyway. */
int cgroup_add_task(struct cgroup_step *cg, pid_t pid, uint32_t task_id);
/* Freeze or thaw every process of the step; returns once the kernel says
 * the step is FROZEN (v1 freezer.state) / frozen (v2 cgroup.events), at most
 * 5 s (then -1, ETIMEDOUT). */
int cgroup_freeze(struct cgroup_step *cg, bool frozen);
/* Every pid of the step and its task cgroups (for killing what escaped the
 * process tree); the caller frees; *n the count (NULL and 0 when none). */
pid_t *cgroup_pids(struct cgroup_step *cg, size_t *n);
struct cgroup_usage {
	uint64_t cpu_time_us;   /* user + system of all the step's processes */
	uint64_t max_rss_kb;    /* memory high-water mark */
	bool oom;               /* the memory limit was hit and a process killed */
};
/* v2 without memory.peak (before Linux 5.19) samples memory.current at each
 * call: call it now and then while the step runs for a better max_rss_kb. */
int cgroup_usage(struct cgroup_step *cg, struct cgroup_usage *u);
/* Remove the step's cgroups (after its processes are gone; nothing is
 * moved) and free: task_T, step_S, and job_N when no other step is left in
 * it.  NULL is a no-op. */
void cgroup_step_destroy(struct cgroup_step *cg);

#endif
