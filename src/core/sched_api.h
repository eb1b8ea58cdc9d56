/* The controller's scheduler as the rest of it calls it (sched.c,
 * backfill.c).  Included by ctld.h. */
#ifndef HERD_CTLD_SCHED_API_H
#define HERD_CTLD_SCHED_API_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/conf.h"
#include "common/error.h"

struct job;
struct part;

/* sched.c */
void sched_request(void);             /* run a scheduling pass soon */
void sched_request_later(unsigned ms); /* and one after ms (a requeued job's delay) */
void sched_setup(void);              /* after sched_check passed on core.conf */
/* Can the job ever run in one of its partitions? 0, or an rc with err. */
int sched_job_runnable(const struct job *job, struct herd_error *err);
/* sbatch --test-only: where and when the job could start, on the nodes as
 * they are now (jobs with time limits end on time; nothing new comes).  0
 * with the answer filled, or an rc with err. */
int sched_test_only(const struct job *job, time_t *start, char **nodes, int *cpus,
		    const struct part **part, struct herd_error *err);
/* Every feature some node has, comma-separated (for checking -C). */
const char *sched_known_features(void);
void sched_features_changed(void);   /* the nodes' Features changed (a reconfigure) */
/* SchedulerType, SchedulerParameters: 0, or -1 with a sentence naming the
 * key (a reconfigure is refused; at start herdctld stops). */
int sched_check(const struct conf *conf, struct herd_error *err);
void sched_configure(const struct conf *conf);   /* checked: apply */
/* How long the passes take (ms), for sdiag-like reports and bench/sched. */
struct sched_stats {
	uint64_t main_passes, bf_passes;
	double main_last_ms, main_max_ms;
	double main_pass_last_ms;           /* of main_last_ms, sched_pass itself */
	double main_build_last_ms, main_apply_last_ms;   /* the snapshot; its decisions applied */
	double bf_last_ms, bf_max_ms;       /* the pass in the worker */
	double bf_apply_last_ms;            /* its decisions applied in the loop thread */
};
const struct sched_stats *sched_stats(void);

/* backfill.c: free p now, or once the backfill pass in its worker is over
 * (memory a job lends the pass's requests: job->batch_idx). */
void backfill_free_later(void *p);

#endif
