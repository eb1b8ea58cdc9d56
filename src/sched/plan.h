/* The backfill plan (pass.h): each node's allocation as a step function of
 * time from now (running jobs give theirs back at their ends, jobs started
 * or planned in this pass hold theirs), reservations' windows, and the
 * search for the earliest start of one job.  Internal to src/sched/. */
#ifndef HERD_SCHED_PLAN_H
#define HERD_SCHED_PLAN_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sched/pass.h"

#define PLAN_NEVER ((time_t)INT64_MAX)   /* the end of an infinite window */

/* One change of a node's allocation at t (deltas), and the sum of the
 * deltas up to and including it (cum_*), and the most of these so far
 * (max_*; at least 0).  At equal times, releases come
 * before holds: a hold ending at t and one starting at t do not overlap. */
struct plan_ev {
	time_t t;
	int cpus, njobs, cum_cpus, cum_njobs;
	int64_t mem, cum_mem;
	int max_cpus, max_njobs;     /* the most of cum_* up to here: windows from now */
	int64_t max_mem;
	int32_t gres[SCHED_GRES_KINDS], cum_gres[SCHED_GRES_KINDS], max_gres[SCHED_GRES_KINDS];
};

struct plan_evs {
	struct plan_ev *ev;
	int n, cap;
	time_t last_hold;         /* the latest hold's start, 0 = none: after it, only releases */
	time_t *hold;             /* the holds' starts, sorted: between two, only releases */
	int nhold, caphold;
};

/* A time at which a node's allocation changes: the plan's index of them.
 * A release says what it gives back, so that a node without holds to come
 * is brought forward without reading its list. */
struct plan_mark {
	time_t t;
	int node, cpus;
	int64_t mem;
	int32_t gres[SCHED_GRES_KINDS];
};

struct plan_marks {
	struct plan_mark *m;
	int n, cap;
	struct plan_mark *pend;   /* added since the last plan_sync (unsorted) */
	int npend, cappend;
};

struct plan {
	time_t now;
	int resolution;
	struct sched_node *base;  /* the present state (the pass's working copy) */
	int nnodes;
	struct plan_evs *evs;     /* per node */
	time_t *last_hold;        /* per node, evs[].last_hold again, packed */
	struct plan_marks rel;    /* releases (the allocation falls) */
	struct plan_marks inc;    /* holds of planned jobs (it rises) */
	const struct sched_resv *resv;
	int nresv;
	int *resv_first, *resv_of;   /* node -> the reservations holding it (CSR) */
	/* The present state as jobs see it from now: base, but for the
	 * special nodes (holds to come, reservations), which are worked out
	 * again for each job (a job that fits now costs no more). */
	struct sched_node *now_view;
	int *special, nspecial;
	time_t *now_lo, *now_hi;  /* a special node's now_view holds for windows ending in (lo, hi] */
	/* scratch for one job */
	struct sched_node *view;
	unsigned char *role;      /* 0: not a candidate, 1: candidate, 2: required */
	int *contrib, *stamp, *dirty, stamp_now;
	unsigned char *full;      /* dirty nodes to work out again from their lists */
	int *cand_buf;
};

/* One job on one alternative, as plan_earliest and plan_fits see it:
 * cand in the order sched_select is to try them. */
struct plan_try {
	const struct sched_req *req;
	const int *cand;
	int ncand;
	int own_resv;             /* reservations other than it keep the job off */
	int64_t time_limit;       /* SCHED_TIME_INFINITE or seconds */
	time_t earliest, latest;  /* the starts allowed */
};

/* The end of a window of time_limit seconds from from (PLAN_NEVER when
 * infinite; a limit under a second counts as one). */
time_t plan_window_end(time_t from, int64_t time_limit);
/* Is node one of reservation r's? */
bool plan_in_resv(const struct plan *p, int node, int r);
/* Node -> reservation lists only (the main pass); plan_init does it too. */
void plan_resv_index(struct plan *p, const struct sched_resv *resv, int nresv);
/* Does a reservation other than own hold node over [from, to)? */
bool plan_resv_blocks(const struct plan *p, int node, time_t from, time_t to, int own);

void plan_init(struct plan *p, time_t now, int resolution, struct sched_node *base, int nnodes,
	       const struct sched_run *run, int nrun, const struct sched_resv *resv, int nresv);
void plan_free(struct plan *p);
/* A job holds cpus, mem and its items' GRES (gres, of req's items; NULL
 * none) on node over [start, end) (end PLAN_NEVER: for ever); start ==
 * now takes them from the present state (p->base). */
void plan_hold(struct plan *p, int node, time_t start, time_t end, int cpus, uint64_t mem,
	       const struct sched_req *req, const uint32_t *gres);

/* The earliest start in [earliest, latest] (now, then the plan's release
 * times rounded up to the resolution) at which sched_select picks nodes
 * free over the whole time limit; -1 if none (*never: not even on empty
 * nodes).  node/cpus/n get the pick. */
time_t plan_earliest(struct plan *p, const struct plan_try *t, int *node, int *cpus, int *n,
		     uint32_t *gres, bool *never);
/* The largest limit in [time_min, t->time_limit) with which the job fits
 * from now; 0 if none.  node/cpus/n get the pick. */
int64_t plan_shrink(struct plan *p, const struct plan_try *t, int64_t time_min, int *node,
		    int *cpus, int *n, uint32_t *gres);

#endif
