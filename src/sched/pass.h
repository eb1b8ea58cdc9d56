/* One scheduling pass over a snapshot: plain data in (nodes, the running
 * jobs' allocations and ends, the eligible pending jobs in priority order,
 * reservations, now), decisions out (start now on these nodes, or planned
 * to start at T on these nodes, or why not).  Pure: no I/O, no globals, no
 * clock; herdctld (src/ctld/sched.c, backfill.c) and `herd sim` run it.
 *
 * Two kinds of pass, as Slurm's sched/backfill:
 *  - main (params.backfill false): jobs in order; each starts if it fits
 *    now; once a job of a partition waits for resources, lower jobs of that
 *    partition wait too (SCHED_WHY_PRIORITY: strict priority).
 *  - backfill (params.backfill true): a plan over time (the running jobs end
 *    at their ends; reservations hold their nodes over their windows).  Each
 *    job in order gets the earliest start where it fits for its whole time
 *    limit; if that is now it starts, else it is planned there (holding
 *    those nodes from T on in the plan) so no lower job may delay it.
 *    bf_window bounds how far ahead a start is planned; bf_resolution
 *    rounds the plan's times; max_job_test and max_job_user bound the jobs
 *    looked at; max_reservations bounds how many jobs hold a planned start
 *    (0: every job, the conservative kind; 1: EASY backfill).
 * Jobs are only given here once eligible: held, dependent, --begin, over a
 * limit are the caller's business. */
#ifndef HERD_SCHED_PASS_H
#define HERD_SCHED_PASS_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sched/select.h"

#define SCHED_TIME_INFINITE (-1)   /* a time limit without end (as TIME_INFINITE) */

/* One place a job may run: a partition (index, for strict priority) and
 * the nodes of it it may use (partition ∩ -C features, the caller's
 * work).  A job with -p a,b, or a matching OR -C "[x|y]", has several;
 * the first that fits (soonest, in backfill) wins, ties in given order. */
struct sched_alt {
	int part;
	const int *cand;
	int ncand;
};

/* A job's count of one license (an index into the pass's licenses). */
struct sched_lic {
	int lic;
	uint32_t count;
};

/* (In an order that leaves few holes, as struct sched_req.) */
struct sched_job {
	uint32_t id;                 /* ties and logs only */
	uint32_t user;               /* bf_max_job_user */
	struct sched_req req;
	const struct sched_alt *alt;
	int nalt;
	int resv;                    /* index into the reservations, -1 = none */
	int64_t time_limit;          /* seconds, SCHED_TIME_INFINITE */
	int64_t time_min;            /* --time-min seconds, 0 = none: may start shrunk to fit */
	const struct sched_lic *lic; /* -L: all of them, or one (lic_any) */
	int nlic;
	bool lic_any;
	/* A heterogeneous job's components come as consecutive entries; the
	 * first says how many (0 or 1: a job alone).  They all start in this
	 * pass or none does (the others' decisions say why not). */
	int together;
};

/* A running (or suspended, completing) job's hold on nodes, until end. */
struct sched_run {
	const int *node;
	const int *cpus;
	const uint64_t *mem;         /* MB on each node */
	const uint16_t *gres;        /* n * SCHED_GRES_KINDS: its GRES of each kind there; NULL none */
	int n;
	time_t end;                  /* start + time limit; 0 = never (no limit) */
	const struct sched_lic *lic; /* the licenses it holds until end */
	int nlic;
};

enum {
	SCHED_RESV_MAINT = 1 << 0,        /* (shown MAINT; otherwise as others) */
	SCHED_RESV_IGNORE_JOBS = 1 << 1,  /* (creation only) */
	SCHED_RESV_FLEX = 1 << 2,         /* its jobs may also use nodes outside it, and start before it */
	SCHED_RESV_OVERLAP = 1 << 3,      /* (creation only) */
};

/* A reservation's hold on nodes over [start, end): no job outside it may
 * run on them then; its jobs run only there (FLEX: there or anywhere) and
 * start only inside [start, end).  Recurring ones are given as their next
 * occurrence. */
struct sched_resv {
	time_t start, end;
	const int *node;
	int nnodes;
	unsigned flags;
	const struct sched_lic *lic; /* Licenses=: held over [start, end), for its jobs only */
	int nlic;
};

struct sched_params {
	time_t now;
	bool backfill;
	int window;                  /* bf_window, seconds (default 1 day) */
	int resolution;              /* bf_resolution, seconds (default 60) */
	int max_job_test;            /* bf_max_job_test, 0 = all; main: default_queue_depth */
	int max_job_user;            /* bf_max_job_user, 0 = no limit */
	int max_reservations;        /* 0 = every job that cannot start holds its planned start; 1 = EASY */
	int nparts;                  /* partition indexes are below it */
	/* Licenses (herd.conf Licenses=, sched/lic.h): how many of each are
	 * free now to a job outside reservations (total - used - what active
	 * reservations hold: below 0 when a reservation's jobs use its own,
	 * as Slurm counts); lic_plan: the backfill plan holds them over time
	 * (SchedulerParameters=bf_licenses), else a job waiting for them is
	 * not planned, as in Slurm. */
	int nlic;
	const int64_t *lic_free;
	bool lic_plan;
};

enum sched_what {
	SCHED_D_NONE,                /* not looked at (beyond max_job_test) */
	SCHED_D_START,               /* start now: alt, node/cpus/n, time_limit */
	SCHED_D_PLANNED,             /* will start at start on node/cpus/n (start estimate) */
	SCHED_D_WAIT,                /* cannot start now, no plan: why */
};

enum sched_why {
	SCHED_WHY_NONE,
	SCHED_WHY_RESOURCES,         /* the nodes are busy */
	SCHED_WHY_PRIORITY,          /* a higher job of its partition waits, or holds the nodes it would use */
	SCHED_WHY_NEVER,             /* cannot run on these nodes even empty */
	SCHED_WHY_RESV_NOT_ACTIVE,   /* its reservation has not started (or is over) */
	SCHED_WHY_RESERVED,          /* only reserved nodes would do (ReqNodeNotAvail, Reserved for maintenance) */
	SCHED_WHY_LICENSES,          /* its licenses are not free (Licenses) */
};

struct sched_decision {
	enum sched_what what;
	enum sched_why why;
	int alt;                     /* the alternative chosen (START, PLANNED) */
	time_t start;                /* START: now; PLANNED: the estimate; WAIT (backfill): an
				      * estimate that holds nothing (beyond max_reservations), else 0 */
	int64_t time_limit;          /* START: the job's, or less for a --time-min job */
	int *node, *cpus, n;         /* the nodes (START, PLANNED); sched_decisions_free */
	uint32_t *gres;              /* n * the job's req.ngres: each GRES item's count on each
				      * node (sched_gres_split); NULL when it asks none */
};

/* Decide for jobs[0..njobs) in the order given; out has njobs entries.
 * nodes (nnodes) is the present state: the running jobs' allocations are
 * already in it; run (nrun) says when they end.  Returns the number of
 * jobs started.  Starts in this pass are counted in as they are made. */
int sched_pass(const struct sched_params *params, const struct sched_node *nodes, int nnodes,
	       const struct sched_run *run, int nrun, const struct sched_resv *resv, int nresv,
	       const struct sched_job *jobs, int njobs, struct sched_decision *out);
void sched_decisions_free(struct sched_decision *out, int n);

#endif
