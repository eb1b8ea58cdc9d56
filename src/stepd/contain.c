/* Every process of a step, by both trackers: herdstepd's descendants (it is
 * a child subreaper, proctree.h) and, when there is one, the step's cgroup
 * (cgroup.h), which also holds what left the tree.  Each process is
 * signalled once. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "stepd/cgroup.h"
#include "stepd/proctree.h"
#include "stepd/stepd.h"

static bool contain_has(const pid_t *v, ssize_t n, pid_t pid)
{
	for (ssize_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

int stepd_signal_all(struct stepd *sd, pid_t pgid, pid_t skip, int sig)
{
	pid_t *tree = NULL, *cg;
	ssize_t ntree;
	size_t ncg = 0;
	int count = proctree_signal(getpid(), pgid, skip, sig);

	if (!sd->cg || cgroup_version(sd->cg) == 0)
		return count;
	ntree = proctree_descendants(getpid(), &tree);
	cg = cgroup_pids(sd->cg, &ncg);
	for (size_t i = 0; i < ncg; i++) {
		pid_t p = cg[i];
		if (p == getpid() || p == skip || contain_has(tree, ntree, p) ||
		    (pgid > 0 && getpgid(p) == pgid))
			continue;
		if (kill(p, sig) == 0)
			count++;
	}
	free(cg);
	free(tree);
	return count;
}

bool stepd_tree_empty(struct stepd *sd)
{
	pid_t *tree = NULL, *cg;
	ssize_t ntree = proctree_descendants(getpid(), &tree);
	size_t ncg = 0;
	bool empty = ntree == 0;

	free(tree);
	if (empty && sd->cg && cgroup_version(sd->cg) > 0) {
		cg = cgroup_pids(sd->cg, &ncg);
		for (size_t i = 0; i < ncg; i++)
			if (cg[i] != getpid())
				empty = false;
		free(cg);
	}
	return empty;
}

/* Slurm's line when the cgroup's OOM killer struck. */
void stepd_oom_line(const struct stepd *sd, char *buf, size_t size)
{
	char step[16];

	if (sd->launch.step)
		snprintf(step, sizeof(step), "%u", sd->launch.step->step_id);
	else
		snprintf(step, sizeof(step), "batch");
	snprintf(buf, size,
		 "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%u.%s. Some of your "
		 "processes may have been killed by the cgroup out-of-memory handler.\n",
		 sd->launch.job_id, step);
}
