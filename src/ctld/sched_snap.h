/* The scheduler's snapshot of the controller (sched.c builds it, backfill.c
 * runs it in a worker): src/sched/pass.h's plain data, owning every array it
 * points to, so a pass may run off the loop thread while jobs and nodes
 * change; the decisions are applied back in the loop thread. */
#ifndef HERD_CTLD_SCHED_SNAP_H
#define HERD_CTLD_SCHED_SNAP_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "ctld/ctld.h"
#include "ctld/sched_conf.h"
#include "sched/pass.h"

struct snap_cand;

struct sched_snap {
	struct sched_params params;
	struct sched_node *nodes;
	int nnodes;
	struct sched_run *run;
	int nrun;
	struct sched_resv *resv;
	int nresv;
	struct sched_job *jobs;      /* in priority order; an array's meta record k times */
	int njobs, cap;
	bool *per_task;              /* per entry: an array's aftercorr, task by task */
	struct job **who;            /* per entry: the job (the loop thread's; a worker's pass looks up the ID) */
	struct sched_alt **part_alt; /* per partition: the alternative of a job of it alone, no -C */
	int *skip;                   /* per entry: why its first left-out partition could not take it */
	unsigned gen;                /* sched_generation when made */
	time_t wake;                 /* the soonest --begin of a job left out for it, 0 = none */
	int extra;                   /* --test-only: the entry of the job tested, else -1 */
	struct sched_decision *out;  /* njobs, after snap_run */
	int started;
	double ms;                   /* how long sched_pass took */
	/* storage the entries point into */
	void **own;
	int nown, capown;
	struct snap_cand *cands;     /* candidate lists by (partition, -C), shared */
};

extern struct sched_conf sched_conf;   /* sched.c: the values in force */
extern unsigned sched_generation;      /* bumped at each reconfigure */

/* A snapshot for a pass at now: backfill or main, with at most depth
 * entries (0 = every eligible job).  Eligibility is decided here, in the
 * loop thread (reasons set, deadlines and dead dependencies ended).  With
 * extra (sbatch --test-only, not in the table), it is put in at its place
 * in priority order. */
struct sched_snap *snap_create(bool backfill, int depth, time_t now, const struct job *extra);
void snap_run(struct sched_snap *s);       /* the pure pass: any thread */
/* Start what the pass started and record reasons and plans.  recheck: the
 * pass ran on an older state (a worker's): a job no longer pending or whose
 * nodes are no longer free is skipped (the next pass retries it).  Returns
 * the jobs started. */
int snap_apply(struct sched_snap *s, bool recheck);
void snap_destroy(struct sched_snap *s);

/* One main pass now: the whole queue, or default_queue_depth jobs (as
 * after an event).  In the loop thread; bench/sched times it. */
void sched_main_pass(bool whole);

/* backfill.c */
void backfill_start(void);                  /* a backfill pass now, unless one runs */
void backfill_setup(void);
void backfill_configure(void);              /* bf_interval changed */
void backfill_poke(void);                   /* an event: a pass soon if one is due */
#endif
