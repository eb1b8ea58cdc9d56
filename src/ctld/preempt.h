/* Preemption (PreemptType, PreemptMode, GraceTime, PreemptExemptTime):
 * preempt.c; gang time-slicing: gang.c. */
#ifndef HERD_CTLD_PREEMPT_H
#define HERD_CTLD_PREEMPT_H
#include <stdbool.h>
#include "ctld/ctld.h"

/* After a main pass: job could not start for resources in p.  Preempt
 * lower jobs to make room when PreemptType allows it; true when victims
 * were chosen (the job starts once they are gone). */
bool preempt_for(struct job *job, const struct part *p);
void preempt_setup(void);   /* at start and reconfigure: the Preempt* keys */
#endif
