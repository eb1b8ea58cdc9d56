/* srun --mem-bind on a node: the memory policy each local task gets
 * (set_mempolicy before exec), and the line "verbose" prints. */
#ifndef HERD_STEPD_MEMBIND_H
#define HERD_STEPD_MEMBIND_H
#include <stdbool.h>
#include <stddef.h>
#include "common/error.h"

struct membind_task {
	bool set;             /* a policy to set */
	int mode;             /* MPOL_BIND, MPOL_PREFERRED, MPOL_LOCAL */
	unsigned long mask;   /* NUMA nodes */
	const char *what;     /* "MAP", "MASK", "RANK", "LOCAL", "NONE" */
	bool verbose;
};

/* The policy of local task `local` from --mem-bind (spec, "" = none); the
 * node's NUMA nodes from /sys.  -1 with Slurm's sentence on a bad spec. */
int membind_prepare(const char *spec, int local, struct membind_task *m, struct herd_error *err);
/* Child only: set it.  0, or -1 with errno. */
int membind_apply(const struct membind_task *m);
/* "mem-bind=MAP - n1, task  0  0 [123]: mask 0x1 set\n" */
void membind_verbose_line(const struct membind_task *m, const char *node, unsigned task,
			  unsigned local, int pid, char *buf, size_t size);

#endif
