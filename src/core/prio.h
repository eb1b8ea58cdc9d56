/* Multifactor priority (PriorityType=priority/multifactor): prio.c, on the
 * pure formula in src/sched/prio.c. */
#ifndef HERD_CTLD_PRIO_H
#define HERD_CTLD_PRIO_H
#include <stdbool.h>
#include <time.h>
#include "core/core.h"
#include "sched/prio.h"

/* Recompute job->priority of every pending job as of now (the pass sorts
 * by it).  Cheap on most calls: it recomputes only once PriorityCalcPeriod
 * has passed since the last time, or after prio_changed.  Without
 * multifactor: nothing (base - nice is set where it changes). */
void prio_update(time_t now);
void prio_setup(void);   /* at start and reconfigure: the Priority* keys */
/* The Priority* keys of conf are valid (PriorityType known, PriorityFlags
 * and PriorityWeightTRES parse): 0, or -1 with err (a reconfigure refuses it). */
int prio_conf_check(const struct conf *conf, struct herd_error *err);
bool prio_multifactor(void);   /* PriorityType=priority/multifactor */
/* Something every job's priority depends on changed (QOS priorities, a
 * partition's factor): the next prio_update recomputes all. */
void prio_changed(void);
/* The job's multifactor priority as of now, its factors kept in job->prio
 * (job_priority calls it: at submission, release, requeue, update). */
uint32_t prio_job(struct job *job, time_t now);
/* PRIO_INFO's answer (sprio): the weights and the factors of each pending
 * job body asks for that uid may see. */
json_t *prio_info(const json_t *body, uid_t uid);
#endif
