/* Multifactor priority (PriorityType=priority/multifactor): prio.c, on the
 * pure formula in src/sched/prio.c. */
#ifndef HERD_CTLD_PRIO_H
#define HERD_CTLD_PRIO_H
#include <time.h>
#include "ctld/ctld.h"

/* Recompute job->priority of every pending job as of now (the pass sorts
 * by it).  Without multifactor: base - nice, as before. */
void prio_update(time_t now);
void prio_setup(void);   /* at start and reconfigure: the Priority* keys */
#endif
