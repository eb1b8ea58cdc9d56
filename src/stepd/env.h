/* The environment of the batch shell and of a step's tasks: the submitter's
 * (or srun's) entries, after --export, overridden by Slurm's variables.
 * Pure: no I/O. */
#ifndef HERD_STEPD_ENV_H
#define HERD_STEPD_ENV_H
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include "stepd/launch.h"

/* A NULL-terminated "KEY=VALUE" vector where each key appears once. */
struct env {
	char **v;
	size_t n, cap;
};

void env_init(struct env *e);
void env_free(struct env *e);
/* Set or replace KEY. */
void env_set(struct env *e, const char *key, const char *value);
void env_setf(struct env *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add a "KEY=VALUE" entry as given; entries without '=' or with an empty key
 * are ignored.  A later entry for the same key replaces an earlier one. */
void env_put(struct env *e, const char *entry);
const char *env_get(const struct env *e, const char *key);   /* NULL if unset */
void env_unset(struct env *e, const char *key);

/* What the node knows besides the launch. */
struct env_node {
	const char *node;          /* this node's name */
	const char *conf_path;     /* herd.conf, for SLURM_CONF */
	const char *home, *shell;  /* from the user's passwd entry (may be NULL) */
	bool constrain_devices;    /* cgroup.conf ConstrainDevices: GPUs counted from 0 */
	const char *spool;         /* SlurmdSpoolDir: where herdd's MPS directories are (NULL: none) */
};

/* Build the batch environment (SLURM_TASK_PID is left to the caller, who
 * knows the pid only after fork). */
void env_batch(struct env *e, const struct launch *l, const struct env_node *node);

/* One task of a step (l->step set). */
struct env_task {
	int local;                 /* SLURM_LOCALID: its index on this node */
	int task_id;               /* SLURM_PROCID */
	/* SLURM_CPU_BIND, _TYPE, _LIST, _VERBOSE (bind_env); NULL = leave unset */
	const char *cpu_bind, *cpu_bind_type, *cpu_bind_list, *cpu_bind_verbose;
	const cpu_set_t *cpus;     /* its CPUs, for --gpu-bind=closest; NULL = any */
	char *gpu_verbose;         /* NULL, or 512 bytes: --gpu-bind=verbose's line ("" none) */
	char *gpu_warning;         /* NULL, or 256 bytes: a sentence for the log ("" none) */
};
/* Build a step task's environment (SLURM_TASK_PID is the caller's too). */
void env_step(struct env *e, const struct launch *l, const struct env_node *node,
	      const struct env_task *t);

#endif
