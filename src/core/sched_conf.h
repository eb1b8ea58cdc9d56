/* SchedulerType and SchedulerParameters as the scheduler uses them
 * (sched_conf.c): parsed and checked in one place, at start and at every
 * reconfigure.  Pure: a string in, values or a sentence out. */
#ifndef HERD_CTLD_SCHED_CONF_H
#define HERD_CTLD_SCHED_CONF_H
#include <stdbool.h>
#include "common/error.h"

struct sched_conf {
	bool backfill;               /* SchedulerType=sched/backfill (the default) */
	int default_queue_depth;     /* jobs an event-driven main pass looks at (100) */
	int sched_interval;          /* s between whole-queue main passes (60); 0 = none */
	int bf_window;               /* minutes a backfill plan looks ahead (1440) */
	int bf_resolution;           /* s: the plan's time step (60) */
	int bf_interval;             /* s between backfill passes (30) */
	int bf_max_job_test;         /* jobs a backfill pass looks at (500) */
	int bf_max_job_user;         /* of one user (0 = no limit) */
	bool bf_continue;            /* accepted: a pass is never interrupted */
};

/* Slurm's defaults. */
void sched_conf_default(struct sched_conf *c);
/* type: SchedulerType (NULL = sched/backfill); params: SchedulerParameters
 * (NULL = none).  Unknown options are left for others (kill_invalid_depend
 * is reconf.c's).  0, or -1 with a sentence naming the key in err (c is
 * left as it was). */
int sched_conf_parse(const char *type, const char *params, struct sched_conf *c,
		     struct herd_error *err);
/* Is the flag name (kill_invalid_depend, bf_licenses) among params? */
bool sched_conf_flag(const char *params, const char *name);
#endif
