/* --dependency (depend.c).  Included by ctld.h. */
#ifndef HERD_CTLD_DEPEND_H
#define HERD_CTLD_DEPEND_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/error.h"

struct job;

/* depend.c: --dependency (parse, evaluate, render) */
enum depend_type { DEP_AFTER, DEP_AFTERANY, DEP_AFTEROK, DEP_AFTERNOTOK, DEP_AFTERCORR,
		   DEP_SINGLETON };
struct depend_item {
	enum depend_type type;
	uint32_t job_id;            /* 0 for singleton */
	uint32_t task;              /* ID_TASK: that task of array job_id; else DEPEND_WHOLE */
	int minutes;                /* after:id+minutes */
	bool failed;                /* can never be met (sticky, as in Slurm) */
};
struct depend {
	bool any;                   /* '?': one item met is enough; else ',' all */
	size_t n;
	struct depend_item *items;  /* those not yet met (met ones are dropped) */
};
/* DEPEND_TASKS: for an array's meta record, only aftercorr items are left,
 * decided task by task (depend_task_ready). */
enum depend_result { DEPEND_NONE, DEPEND_WAIT, DEPEND_NEVER, DEPEND_TASKS };
/* Parse a --dependency spec; "" gives *out NULL.  -1 with err when malformed. */
int depend_parse(const char *spec, struct depend **out, struct herd_error *err);
void depend_destroy(struct depend *d);
/* What remains, as squeue %E shows it ("afterok:12(unfulfilled)"); "" = none. */
char *depend_render(const struct depend *d);
json_t *depend_to_json(const struct depend *d);     /* for the job record */
struct depend *depend_from_json(const json_t *o);   /* NULL when absent or empty */
/* Every target of d is a job that exists or existed; -1 with err if not. */
int depend_check_targets(const struct depend *d, struct herd_error *err);
/* Where a target stands.  The hook for job arrays: an array ID (task ==
 * DEPEND_WHOLE) or one task of it (aftercorr) can be answered here; a plain
 * job is answered from memory, else from the store.  -1 if it never existed. */
#define DEPEND_WHOLE UINT32_MAX
struct depend_target {
	enum job_state state;
	time_t start_time;
};
int depend_target_state(uint32_t job_id, uint32_t task, struct depend_target *out);
/* For a task of meta's array: are its aftercorr items met (true), can they
 * never be (*never), or not yet?  Changes nothing. */
bool depend_task_ready(const struct job *meta, uint32_t task, bool *never);
struct depend *depend_copy(const struct depend *d);
/* Drop what is met, mark what can never be; *changed when the job's record
 * must be saved again.  Frees job->depend when nothing is left. */
enum depend_result depend_evaluate(struct job *job, time_t now, bool *changed);

#endif
