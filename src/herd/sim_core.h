/* `herd sim --policy slurm`: the trace through the controller's own code
 * (sim_core.c, doc/core.md). */
#ifndef HERD_SIM_CORE_H
#define HERD_SIM_CORE_H
#include <jansson.h>
#include <sys/types.h>
#include "common/conf.h"
#include "herd/sim.h"

/* The trace's users and groups: user N runs as uid SIM_FIRST_ID + N, in
 * group SIM_FIRST_ID + G, named u<N> and g<G> (names_fictional); -1
 * (unknown) is 0.  The replay gives each user an association under
 * account g<G> (sim_assoc.c). */
#define SIM_FIRST_ID 100000

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
	/* The source's number of the job this one follows (SWF's preceding
	 * job, -1: none): it is submitted think s after that job's end, and
	 * not before its own submit time.  A preceding job that is not
	 * replayed (skipped, refused, or later in the source): none. */
	long after;
	int64_t think;
};

/* The partition of a trace line: SWF numbers queues and partitions from
 * 1, so queue (field 15) N >= 1 is herd.conf's Nth partition, in the
 * file's order; without a queue (-1, or 0: "interactive" in SWF) the
 * partition field (16) the same way.  A number past the last partition,
 * or none: "" (the default partition). */
const char *sim_swf_partition(const struct swf_job *j, const struct conf *conf);

/* The arrivals of trace's jobs, in trace order: -n its size, -t its
 * estimate rounded up to whole minutes, in its partition (conf's, above),
 * as its user and group (SIM_FIRST_ID).  Lines without a size or run
 * time are left out (counted in res). */
struct sim_arrival *sim_swf_arrivals(const struct swf_trace *trace, const struct conf *conf,
				     size_t *n, struct sim_result *res);
void sim_arrivals_free(struct sim_arrival *a, size_t n);

/* sim_assoc.c: an association for every user of the arrivals that has
 * none yet (an accounts file's users keep theirs): user u<N> under
 * account g<G> under root, made by sacctmgr's own add requests.  Runs in
 * the started core.  -1 with err when the accounting refuses one. */
int sim_assoc_add(const struct sim_arrival *arr, size_t n, struct herd_error *err);

/* Replay the n arrivals (in submit order) on conf's nodes and partitions,
 * with its priority, scheduler and preemption settings.  Takes conf (the
 * controller keeps it).  -1 with err when the controller cannot start on
 * conf, or some job never starts. */
int sim_core_run(const struct sim_arrival *arr, size_t n, struct conf *conf,
		 struct sim_result *res, struct herd_error *err);
#endif
