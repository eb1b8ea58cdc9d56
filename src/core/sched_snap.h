/* The scheduler's snapshot of the controller (sched_snap.c builds it,
 * sched.c and backfill.c run it): src/sched/pass.h's plain data, owning every array it
 * points to, so a pass may run off the loop thread while jobs and nodes
 * change; the decisions are applied back in the loop thread. */
#ifndef HERD_CTLD_SCHED_SNAP_H
#define HERD_CTLD_SCHED_SNAP_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "core/core.h"
#include "core/sched_conf.h"
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
	struct sched_decision *out;  /* per entry: the decisions, after snap_run */
	bool whole;                  /* a whole-queue main pass's: its arrays are kept for the next */
	int started;
	double ms;                   /* how long sched_pass took */
	/* storage the entries point into */
	void **own;
	int nown, capown;
	struct snap_cand *cands;     /* candidate lists by (partition, -C), shared */
};

extern struct sched_conf sched_conf;   /* sched.c: the values in force */
extern unsigned sched_generation;      /* bumped at each reconfigure */

/* sched_snap.c: the controller's state as the pass sees it */
bool snap_node_usable(const struct node *n);   /* registered, responding, not drained */
/* Every node as struct sched_node, by node index (caller frees). */
struct sched_node *snap_nodes(void);
struct sched_req snap_job_req(const struct job *job);   /* points into job */
/* The nodes of p that satisfy the -C expression expr (NULL: all), into
 * cand (p->nnodes long); returns their count. */
int snap_candidates(const char *expr, const struct part *p, int *cand);
/* Why p cannot take the job now (down, inactive, its limits), else REASON_NONE. */
enum job_reason snap_part_skip_reason(const struct job *job, const struct part *p);

/* sched_eligible.c: may the job go into this pass?  If not, its reason
 * says why (a passed deadline ends it).  per_task: an array whose
 * aftercorr is decided task by task; wake: the soonest --begin of a job
 * left out for it is kept there. */
bool sched_eligible(struct job *job, time_t now, bool *per_task, time_t *wake);
/* The meta record's next task to start: the lowest, or with aftercorr the
 * lowest whose corresponding task is done; BITMAP_NONE (and the reason) if
 * none may start yet. */
uint32_t sched_next_task(struct job *meta, bool per_task);
uint32_t sched_array_running(const struct job *meta);   /* its tasks holding nodes (%N) */

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
