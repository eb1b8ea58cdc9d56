/* --propagate and PropagateResourceLimits[Except]: which of the
 * submitter's resource limits a job's tasks get, and setting them. */
#ifndef HERD_STEPD_RLIMITS_H
#define HERD_STEPD_RLIMITS_H
#include <stdbool.h>
#include <sys/resource.h>
#include "common/conf.h"
#include "common/taskopt.h"
#include "stepd/launch.h"

struct rlimits_plan {
	int n;
	struct {
		int resource;
		rlim_t soft;
	} set[RLIMIT_NAMES];
};

/* The soft limits to set: the names of propagate (--propagate; NULL: not
 * given, herd.conf's PropagateResourceLimits[Except], default ALL) that the
 * submitter sent, each no higher than this process's hard limit (a higher
 * one is lowered to it and logged, as Slurm does). */
void rlimits_plan(const struct launch_rlimits *given, const char *propagate, const struct conf *conf,
		  uint32_t job_id, struct rlimits_plan *plan);
/* Child only: set them (soft limits; the hard ones stay the node's). */
void rlimits_apply(const struct rlimits_plan *plan);

#endif
