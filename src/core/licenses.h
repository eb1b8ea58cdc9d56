/* herd.conf's Licenses= (Slurm's local licenses): the cluster's count of
 * each, what the jobs hold, and a job's -L checked against them
 * (licenses.c).  A job holds its licenses while RUNNING or SUSPENDED (as
 * Slurm: a suspended job keeps them; its end, or a requeue, gives them
 * back).  The passes see them through src/sched/lic.h. */
#ifndef HERD_CORE_LICENSES_H
#define HERD_CORE_LICENSES_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/state.h"
#include "sched/pass.h"

struct job;

/* Licenses= (checked by conf_load) and SchedulerParameters=bf_licenses;
 * at start and at each reconfigure.  What the jobs hold is counted again. */
void licenses_configure(const struct conf *conf);
/* The job's -L (NULL or "": none), checked against Licenses= as Slurm
 * checks it: every name configured, no count over the total.  A job that
 * holds licenses gives back the old and takes the new.  0, or
 * HERD_ERR_INVALID_LICENSES with err (Slurm's sentence); the job unchanged. */
int licenses_job_set(struct job *job, const char *spec, struct herd_error *err);
/* The same check alone (scontrol update, before anything changes). */
int licenses_check(const char *spec, struct herd_error *err);
/* From the store: taken as it is (a name since removed never fits). */
void licenses_job_load(struct job *job, const char *spec);
void licenses_job_copy(struct job *dst, const struct job *src);
void licenses_job_free(struct job *job);
/* The item of an OR list it holds (or would take first): kept in the
 * record, so a restart counts the same one. */
int licenses_job_alt(const struct job *job);
void licenses_job_load_alt(struct job *job, int alt);
/* job_set_state's watcher: taken on entering RUNNING/SUSPENDED, given
 * back on leaving them. */
void licenses_job_state(struct job *job, enum job_state old);
/* Are its licenses free now?  When they are, the OR item it will take is
 * chosen (licenses_job_state takes that one). */
bool licenses_job_ready(struct job *job);
/* LICENSE_INFO: [{name,total,used,free,reserved,remote}], sorted by name;
 * name NULL for all. */
json_t *licenses_info(const char *name);

/* For the scheduler's snapshot (sched_snap.c): xmalloc'd arrays, NULL when
 * there is nothing. */
int licenses_count(void);
bool licenses_plan(void);                   /* bf_licenses */
/* free now to a job outside reservations (total - used - reserved by the
 * active reservations), licenses_count() entries */
int64_t *licenses_snap_free(void);
/* A reservation's Licenses= as pass items. */
struct sched_lic *licenses_snap_spec(const char *spec, int *n);
struct sched_lic *licenses_snap_job(const struct job *job, int *n, bool *any);
struct sched_lic *licenses_snap_held(const struct job *job, int *n);

#endif
