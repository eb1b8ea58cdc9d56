/* Choosing preemption victims: which running jobs to stop so that a job
 * that cannot start can.  Pure: plain data in, victims out; the controller
 * (src/ctld/preempt.c) decides who may preempt whom (PreemptType) and what
 * happens to the victims (PreemptMode). */
#ifndef HERD_SCHED_PREEMPT_H
#define HERD_SCHED_PREEMPT_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sched/select.h"

/* A running job that might be preempted. */
struct sched_preempt_cand {
	uint32_t id;                 /* ties only */
	const int *node;             /* its nodes (indexes into nodes) */
	const int *cpus;             /* CPUs on each */
	const uint64_t *mem;         /* MB on each that it gives back; NULL: none (a
				      * suspended job keeps its memory) */
	const uint16_t *gres;        /* n * SCHED_GRES_KINDS: its GRES of each kind on each; NULL none */
	int n;
	time_t start;
	int tier;                    /* PriorityTier of its partition */
	uint32_t priority;           /* QOS priority (preempt/qos) or the job's */
	bool preemptable;            /* by this job: the caller's PreemptType decision */
};

/* The job to make room for: its request on candidate nodes cand. */
struct sched_preempt_job {
	const struct sched_req *req;
	const int *cand;
	int ncand;
	time_t now;
	int64_t exempt_time;         /* PreemptExemptTime seconds; <= 0: none */
};

/* Choose victims among c[0..nc) so that job fits on nodes (nnodes, the
 * present state) once they have given their CPUs (and memory) back.
 * Victims are taken lowest tier first, then lowest priority, then the
 * youngest (latest start), until the job fits; then each victim, the most
 * valuable first, is kept running again if the job still fits without it,
 * so the set is small.  A job that ran less than exempt_time is never a
 * victim; nor is one on none of the candidate nodes.  Returns the number
 * of victims written to victims (indexes into c, in the order chosen), 0
 * when the job fits already, -1 when no set of victims lets it fit. */
int sched_preempt_select(const struct sched_node *nodes, int nnodes,
			 const struct sched_preempt_cand *c, int nc,
			 const struct sched_preempt_job *job, int *victims);

#endif
