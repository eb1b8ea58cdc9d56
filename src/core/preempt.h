/* Preemption (PreemptType, PreemptMode, GraceTime, PreemptExemptTime):
 * preempt.c; gang time-slicing: gang.c. */
#ifndef HERD_CTLD_PREEMPT_H
#define HERD_CTLD_PREEMPT_H
#include <stdbool.h>
#include "core/core.h"

/* After a main pass: job could not start for resources in p.  Preempt
 * lower jobs to make room when PreemptType allows it (or, in a gang
 * partition, suspend the jobs it is to share nodes with); true when
 * victims were chosen, or are still ending from an earlier call (the job
 * starts once they are gone). */
bool preempt_for(struct job *job, const struct part *p);
void preempt_setup(void);   /* at start and reconfigure: the Preempt* keys */
/* The Preempt* keys, SchedulerTimeSlice and each partition's PreemptMode
 * and GraceTime: 0, or -1 with err naming the key (herdctld refuses to
 * start, a reconfigure is refused). */
int preempt_check(const struct conf *conf, struct herd_error *err);
/* job_set_state's hook: a preemptor that gave its nodes back resumes its
 * suspended victims; a lent job resumed by hand takes its CPUs back. */
void preempt_job_state(struct job *job, enum job_state old);

/* Between preempt.c and gang.c. */
enum preempt_mode { PM_OFF, PM_CANCEL, PM_REQUEUE, PM_SUSPEND };
struct preempt_conf {
	enum { PT_NONE, PT_PARTITION_PRIO, PT_QOS } type;
	enum preempt_mode mode;      /* cluster-wide PreemptMode */
	bool gang;                   /* PreemptMode=...,GANG */
	int64_t exempt_time;         /* PreemptExemptTime, seconds; <= 0 none */
	int time_slice;              /* SchedulerTimeSlice, seconds */
};
extern struct preempt_conf preempt_conf;
/* A partition whose jobs are time-sliced: GANG and OverSubscribe=FORCE. */
bool gang_part(const struct part *p);
/* Suspend a running job (its CPUs lent at once); then() runs once every
 * node answered.  Resume one (its CPUs taken back): false when they are
 * not free. */
void preempt_suspend(struct job *job, void (*then)(void *arg), void *arg);
bool preempt_resume(struct job *job);
void gang_tick(time_t now);  /* every second: rotate the slices that are due */
#endif
