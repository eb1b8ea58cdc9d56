/* `herd sim --policy slurm`: the trace through the controller's own code
 * (sim_core.c, doc/core.md). */
#ifndef HERD_SIM_CORE_H
#define HERD_SIM_CORE_H
#include <jansson.h>
#include <sys/types.h>
#include "common/conf.h"
#include "herd/sim.h"

/* One job as the replay submits it, whatever it came from (a trace line,
 * a scenario line). */
struct sim_arrival {
	long id;                 /* the source's number for the job, in the output */
	int64_t submit;          /* s from the replay's start */
	uid_t uid;
	gid_t gid;
	json_t *spec;            /* SUBMIT_JOB's job object (doc/protocol.md); owned */
	int64_t run;             /* s it runs once started (killed at its limit) */
	int64_t estimate;        /* s it asked for, for the output (-1: none) */
	long procs;              /* CPUs it asked for, for the output */
};

/* The arrivals of trace's jobs, in trace order: -n its size, -t its
 * estimate rounded up to whole minutes, as user 100000 + its user number.
 * Lines without a size or run time are left out (counted in res). */
struct sim_arrival *sim_swf_arrivals(const struct swf_trace *trace, size_t *n,
				     struct sim_result *res);
void sim_arrivals_free(struct sim_arrival *a, size_t n);

/* Replay the n arrivals (in submit order) on conf's nodes and partitions,
 * with its priority, scheduler and preemption settings.  Takes conf (the
 * controller keeps it).  -1 with err when the controller cannot start on
 * conf, or some job never starts. */
int sim_core_run(const struct sim_arrival *arr, size_t n, struct conf *conf,
		 struct sim_result *res, struct herd_error *err);
#endif
