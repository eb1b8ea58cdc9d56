/* The LAUNCH object herdd wrote to the job's spool directory (doc/protocol.md,
 * "Controller -> node daemon"), read into plain C fields. */
#ifndef HERD_STEPD_LAUNCH_H
#define HERD_STEPD_LAUNCH_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/taskopt.h"

/* Slurm's step ID of the batch step (SLURM_BATCH_SCRIPT). */
#define LAUNCH_BATCH_STEP 4294967291u

/* The submitter's resource limits (JOBSPEC/STEPSPEC "rlimits"), by
 * rlimit_names' index (common/taskopt.h); -1 = unlimited. */
struct launch_rlimits {
	bool given[RLIMIT_NAMES];
	int64_t soft[RLIMIT_NAMES], hard[RLIMIT_NAMES];
};

/* Task placement and environment options (doc/steps.md); NULL/0 = not given. */
struct launch_taskopts {
	char *distribution, *hint, *mem_bind, *propagate;
	int ntasks_per_socket, ntasks_per_core;
	struct launch_rlimits rlimits;
};

/* One generic resource record of LAUNCH's "gres" or the step's (doc/gres.md
 * section 3): a GPU (count 1) or, for shard/mps, count shares of GPU index. */
struct launch_gres {
	char *name;               /* "gpu", "shard", "mps", ... */
	char *type;               /* "h100", "" none */
	int index;                /* Slurm's global index among the node's devices of that name */
	char *file;               /* device path(s), comma separated; "" none */
	char *cores;              /* CPU IDs close to it ("0-7"), "" any */
	char *flags;              /* gres.conf Flags ("nvidia_gpu_env,..."), "" default */
	int64_t count;            /* 1 for a device; shares for shard/mps */
	int64_t total;            /* mps: the shares GPU index has in all, 0 unknown */
};
#define LAUNCH_GRES_MAX 1024      /* records per list */

/* LAUNCH_STEP's "step" object (doc/steps.md): one job step on this node. */
struct launch_step {
	uint32_t step_id;
	char *step_name, *step_nodes, *step_tasks_per_node;
	int step_num_nodes, step_num_tasks, node_id;
	int *task_ids;  size_t ntasks;        /* global IDs of this node's tasks */
	char *cpus;                           /* "" = any */
	int cpus_per_task;
	int64_t mem_mb;
	char *cpu_bind, *distribution;
	char **argv;  size_t argc;
	char **multi_prog;  size_t nmulti;    /* NULL when not --multi-prog */
	char **env;   size_t envc;
	char *cwd;
	char *io_host, *io_key;
	int io_port;
	char *std_out, *std_err, *std_in;     /* "" = streamed to srun */
	int stdin_task;                       /* -1 all, -2 none */
	bool pty;
	bool extern_step;                     /* N.extern (PrologFlags=Contain): a cgroup, no task, no srun */
	char *mpi;
	int64_t time_limit;                   /* seconds from the step's start, -1 none */
	int signal, signal_time;
	char *launch_addr;
	char *resv_ports;         /* srun --resv-ports: "A-B" held on every node, "" none */
	int64_t slurmd_debug;     /* srun --slurmd-debug: >0 says the tasks' starts and ends */
	int64_t srun_pid;
	char *container;                      /* srun --container: OCI bundle, NULL none */
	struct launch_taskopts opts;          /* srun's own (distribution is above) */
	struct launch_gres *gres;  size_t ngres;   /* the step's; absent: the job's (copied) */
	char *gpu_bind;                       /* srun --gpu-bind, "" none */
	int gpus_per_task;                    /* srun --gpus-per-task, 0 none */
};

struct launch {
	uint32_t job_id;
	int uid, gid, umask;
	char *user, *name, *partition, *account, *cluster, *submit_host;
	char *qos;                /* optional key, NULL when absent */
	char *reservation;        /* optional: --reservation */
	char *dependency;         /* optional: --dependency as submitted */
	char *container;          /* optional: sbatch --container (the batch step's bundle) */
	char *script;
	char **argv;  size_t argc;
	char **env;   size_t envc;
	char *cwd, *std_out, *std_err, *std_in;
	char *nodes;              /* compressed hostlist of the allocation */
	int num_nodes, ntasks, cpus_per_task, cpus_on_node;
	int64_t mem_mb;
	char *tasks_per_node;     /* "2(x3),1" */
	char *cpus_per_node;      /* optional, same form; NULL = derive from cpus_on_node */
	int64_t time_limit;       /* seconds, -1 = none */
	int kill_wait;            /* seconds */
	int64_t start_time;
	int restarts;             /* optional, 0 */
	/* optional: an array task (array_job_id 0 otherwise) and its whole array */
	int64_t array_job_id, array_task_id, array_task_count, array_task_min, array_task_max,
		array_task_step;
	int64_t het_job_id;       /* optional: a het job's component, its leader's ID (SLURM_JOB_ID); 0 none */
	int64_t mem_per_cpu;      /* optional, MB; 0 = not asked */
	int ntasks_per_node;      /* optional, 0 = not asked */
	bool open_append;         /* optional open_mode "append" (default truncate) */
	int signal, signal_time;  /* optional --signal: 0 = none; seconds before the limit */
	bool signal_batch;        /* signal_flags "B": the batch shell only */
	char *cpu_ids;            /* optional: the job's CPUs here ("0-3"); NULL = all */
	struct launch_taskopts opts;  /* the job's, as submitted */
	char *get_user_env;       /* optional sbatch --get-user-env ("" bare), NULL not given */
	struct launch_gres *gres;  size_t ngres;   /* optional: the job's devices on this node */
	struct launch_step *step; /* LAUNCH_STEP; NULL for the batch step */
};

/* Fill l from the LAUNCH object; -1 with err naming the bad field. */
int launch_parse(const json_t *obj, struct launch *l, struct herd_error *err);
/* Read and parse a launch file. */
int launch_load(const char *path, struct launch *l, struct herd_error *err);
void launch_free(struct launch *l);
void launch_gres_free(struct launch_gres *g, size_t n);

#endif
