/* Reservations (scontrol create|update|delete|show reservation): resv.c.
 * The scheduler (sched.c, backfill.c) asks them as src/sched/pass.h's
 * struct sched_resv list. */
#ifndef HERD_CTLD_RESV_H
#define HERD_CTLD_RESV_H
#include <time.h>
#include "ctld/ctld.h"

struct sched_resv;
/* The reservations a pass at now must respect (each as its next occurrence,
 * those already over left out); *out points into resv.c's own array, valid
 * until the next reservation change.  Returns their count. */
int resv_sched_list(time_t now, const struct sched_resv **out);
/* The job's reservation (--reservation) as an index of that list; -1 for a
 * job without one. */
int resv_job_index(const struct job *job, time_t now);
void resv_setup(void);   /* the stored reservations, at start */
#endif
