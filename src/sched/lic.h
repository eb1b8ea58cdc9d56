/* Licenses in a pass (pass.h's sched_lic): a cluster-wide count of each
 * license, taken by jobs over time.  The main pass and a backfill pass
 * without lic_plan look at what is free now; with lic_plan (Slurm's
 * bf_licenses) the backfill plan holds licenses over time as it holds
 * nodes, so a job waiting for licenses keeps its planned start.  Pure. */
#ifndef HERD_SCHED_LIC_H
#define HERD_SCHED_LIC_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sched/pass.h"

struct lic_hold {
	time_t start, end;           /* [start, end); end PLAN_NEVER: for ever */
	int lic;
	uint32_t count;
};

struct lic_state {
	int nlic;
	int64_t *free;               /* now, outside reservations (the main pass, backfill without planning) */
	int64_t *cap;                /* planning: free now + what running jobs and active reservations hold */
	const struct sched_resv *resv;   /* a job's own reservation lends it its licenses */
	int nresv;
	struct lic_hold *hold;       /* planning: the running, started and planned jobs' */
	int nhold, cap_hold;
	time_t now;
};

void lic_init(struct lic_state *l, const struct sched_params *pr, const struct sched_run *run,
	      int nrun, const struct sched_resv *resv, int nresv);
void lic_free(struct lic_state *l);
/* Does the job get its licenses now (the present counts)?  *alt: the item
 * of an OR list it would take (0 otherwise). */
bool lic_fits_now(const struct lic_state *l, const struct sched_job *job, int *alt);
void lic_take_now(struct lic_state *l, const struct sched_job *job, int alt);
/* Planning: does it get them over [start, end)?  *alt as above. */
bool lic_fits(const struct lic_state *l, const struct sched_job *job, time_t start, time_t end,
	      int *alt);
void lic_hold(struct lic_state *l, const struct sched_job *job, int alt, time_t start, time_t end);
/* Planning: the first time after t when a license is given back, -1 none. */
time_t lic_next_release(const struct lic_state *l, time_t t);

#endif
