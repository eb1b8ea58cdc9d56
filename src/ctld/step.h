/* Job steps (step.c, doc/steps.md).  Included by ctld.h. */
#ifndef HERD_CTLD_STEP_H
#define HERD_CTLD_STEP_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/net.h"
#include "common/state.h"

struct job;
struct step;

/* step.c: job steps inside an allocation (doc/steps.md) */
#define STEP_BATCH 4294967291u      /* SLURM_BATCH_SCRIPT: N.batch */
#define STEP_EXTERN 4294967292u     /* SLURM_EXTERN_CONT: N.extern */
void step_create(struct net_req *req);     /* STEP_CREATE */
void step_complete(struct net_req *req);   /* STEP_COMPLETE from a herdstepd */
void step_info(struct net_req *req);       /* STEP_INFO */
/* scancel N.S: sig 0 cancels; 0 or an rc. */
int step_cancel(struct job *job, uint32_t step_id, int sig, uid_t uid);
/* The job ended (state is its final state, or COMPLETING for a cancel):
 * every step still running ends with it, its processes are terminated. */
void step_job_ended(struct job *job, enum job_state state);
/* Node idx of the job failed: its steps there end NODE_FAIL. */
void step_node_failed(struct job *job, int idx);
/* -k: the job's pos-th node leaves its allocation (core_env's). */
void step_node_dropped(struct job *job, int pos);
void step_destroy_all(struct job *job);
/* PrologFlags=Contain: the job's N.extern on each of its nodes (at its start). */
void step_extern_start(struct job *job);
/* NODE_REGISTER listed fewer steps than node idx should run: a step part
 * there that is not in reported ([[job, step]]) and started over 30 s ago
 * lost its herdstepd; it counts as killed. */
void step_reconcile(int idx, const json_t *reported, time_t now);
json_t *step_to_json(const struct job *job, const struct step *step);   /* the stored record */
/* At start: a step the store says runs, back under its running job. */
void step_restore(const json_t *rec);
/* COMPLETE_ALLOC: salloc/srun are done with an alloc_only job. */
void step_complete_alloc(struct net_req *req);
/* Every second: alloc_only jobs past their time limit end TIMEOUT. */
void step_check_alloc_limits(time_t now);

#endif
