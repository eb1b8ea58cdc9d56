/* The batch job's environment: the submitter's entries (after sbatch applied
 * --export) overridden by Slurm's batch variables.  Pure: no I/O. */
#ifndef HERD_STEPD_ENV_H
#define HERD_STEPD_ENV_H
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

/* What the node knows besides the launch. */
struct env_node {
	const char *node;          /* this node's name */
	const char *conf_path;     /* herd.conf, for SLURM_CONF */
	const char *home, *shell;  /* from the user's passwd entry (may be NULL) */
};

/* Build the batch environment (SLURM_TASK_PID is left to the caller, who
 * knows the pid only after fork). */
void env_batch(struct env *e, const struct launch *l, const struct env_node *node);

#endif
