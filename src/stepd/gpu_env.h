/* Which GPUs a batch shell or a task sees, and the variables that say so
 * (CUDA_VISIBLE_DEVICES and its kin, SLURM_JOB_GPUS, SLURM_STEP_GPUS, ...),
 * by Slurm's numbering rules (doc/gres.md section 3).  Pure: the launch's
 * records in, environment entries out; the device cgroup is cgroup_dev.c's. */
#ifndef HERD_STEPD_GPU_ENV_H
#define HERD_STEPD_GPU_ENV_H
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "stepd/env.h"
#include "stepd/launch.h"

/* --gpu-bind=[verbose,]TYPE (srun(1)). */
enum gpu_bind_type {
	GPU_BIND_DEFAULT,    /* not given: every task sees all the step's GPUs */
	GPU_BIND_NONE,       /* none: the same, and --gpus-per-task binds nothing */
	GPU_BIND_CLOSEST,    /* closest: the GPUs whose Cores meet the task's CPUs */
	GPU_BIND_SINGLE,     /* single:N: one GPU for each N tasks, among the closest */
	GPU_BIND_PER_TASK,   /* per_task:N: N GPUs for each task, in order */
	GPU_BIND_MAP,        /* map_gpu:ID,...  one GPU ID per local task */
	GPU_BIND_MASK,       /* mask_gpu:MASK,...  a hexadecimal mask per local task */
};
#define GPU_BIND_LIST_MAX 4096   /* entries of map_gpu/mask_gpu, repetitions expanded */
#define GPU_BIND_ID_MAX 65535    /* largest GPU ID in map_gpu (Slurm's indices are 16-bit) */

struct gpu_bind {
	enum gpu_bind_type type;
	bool verbose;
	int n;                  /* single: tasks per GPU; per_task: GPUs per task */
	uint64_t *list;         /* map: IDs; mask: masks (bit i = GPU ID i), repeats expanded */
	size_t nlist;
	char *spec;             /* as given, for messages */
};

/* Parse a --gpu-bind string ("" or NULL: the default).  -1 with err naming
 * what is wrong; b is then empty. */
int gpu_bind_parse(const char *spec, struct gpu_bind *b, struct herd_error *err);
void gpu_bind_free(struct gpu_bind *b);

/* The GPUs (records named "gpu") of list, in index order, into out (at most
 * max); returns how many. */
size_t gpu_list(const struct launch_gres *list, size_t n, const struct launch_gres **out,
		size_t max);

/* Which of a step's n GPUs (gpus, in index order) the task with local ID
 * `local` is bound to: use[i] set for each; returns how many (at least 1
 * when n > 0).  cpus: the task's CPUs (NULL = any), for closest and single.
 * constrained: ConstrainDevices (map_gpu/mask_gpu IDs are then positions
 * among the step's GPUs, else global indices).  A map or mask naming no GPU
 * of the step binds the first, as Slurm does, with a sentence in warn. */
size_t gpu_task_select(const struct gpu_bind *b, int gpus_per_task, int step_tasks,
		       bool constrained, const struct launch_gres *const *gpus, size_t n,
		       int local, const cpu_set_t *cpus, bool *use, char *warn, size_t warnlen);

/* The batch shell's variables: SLURM_JOB_GPUS, SLURM_GPUS_ON_NODE and the
 * visible-devices variables for the job's GPUs here (l->gres). */
void gpu_env_batch(struct env *e, const struct launch *l, bool constrained);

/* One task of a step (l->step set): SLURM_STEP_GPUS, SLURM_GPUS_ON_NODE, and
 * the visible-devices variables of the GPUs it is bound to (under
 * ConstrainDevices numbered from 0 among them: its cgroup shows no other).  verbose (NULL
 * or verbose_len bytes) gets the --gpu-bind=verbose line for the task's
 * stderr ("" when not asked); warn as gpu_task_select's. */
void gpu_env_task(struct env *e, const struct launch *l, bool constrained, int local,
		  int task_id, const cpu_set_t *cpus, char *verbose, size_t verbose_len,
		  char *warn, size_t warnlen);

/* The GPU whose MPS control daemon the process uses: the lowest index of
 * the mps records of list, -1 when none (gres.html "MPS Management": the
 * shares come from one GPU). */
int gpu_mps_gpu(const struct launch_gres *list, size_t n);

/* ConstrainDevices for one task bound to fewer GPUs than its step has: the
 * device files of its GPUs (as gpu_dev_files), for its task_T cgroup.  NULL
 * (and *count 0) when it has all the step's: the step's cgroup says it. */
char **gpu_task_dev_files(const struct launch *l, bool constrained, int local,
			  const cpu_set_t *cpus, size_t *count);

/* The device files of records (each "file" may name several, comma
 * separated: Slurm's MultipleFiles), and with a GPU of NVIDIA's or AMD's the
 * driver's shared files (/dev/nvidiactl, /dev/nvidia-uvm, -uvm-tools,
 * -modeset; /dev/kfd) that CUDA/ROCm open besides the GPU's own.  Caller
 * frees with gpu_dev_files_free; *n the count. */
char **gpu_dev_files(const struct launch_gres *list, size_t n, size_t *count);
void gpu_dev_files_free(char **files, size_t n);

#endif
