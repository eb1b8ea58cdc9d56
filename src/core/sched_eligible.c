/* Which pending jobs may go into a pass (sched_snap.h): holds, dependencies,
 * --begin, --deadline, array throttles and accounting limits, each with
 * the reason a job waits for in Slurm's words.  The loop thread's business,
 * before the pass: it may end a job (DEADLINE, an invalid dependency). */
#include "common/bitmap.h"
#include "common/parse.h"
#include "core/core.h"
#include "core/sched_snap.h"

/* --deadline: a job that could not end before it if it started now (or at
 * its begin time) ends DEADLINE, as Slurm's "DeadLine". */
static bool deadline_passed(const struct job *job, time_t now)
{
	time_t start = job->eligible_time > now ? job->eligible_time : now;
	if (!job->deadline)
		return false;
	return job->time_limit == TIME_INFINITE || start + job->time_limit > job->deadline;
}

/* Whether the job's dependency lets it go; else its reason says why.  A
 * dependency that can never be met cancels the job when asked to
 * (--kill-on-invalid-dep, SchedulerParameters=kill_invalid_depend). */
static bool dependency_met(struct job *job, time_t now, bool *per_task)
{
	bool changed;
	enum depend_result r = depend_evaluate(job, now, &changed);

	*per_task = r == DEPEND_TASKS;   /* an array's aftercorr: see sched_next_task() */
	if (r == DEPEND_NONE && changed && job->eligible_time < now)
		job->eligible_time = now;   /* eligible from when its dependency was met */
	if (r == DEPEND_NEVER && (job->kill_invalid_dep > 0 ||
				  (job->kill_invalid_dep < 0 && core.kill_invalid_depend))) {
		job_set_state(job, JOB_CANCELLED, REASON_DEP_NEVER);   /* saves the record */
		return false;
	}
	if (changed)
		job_changed(job);
	if (r == DEPEND_NEVER)
		job->reason = REASON_DEP_NEVER;
	else if (r == DEPEND_WAIT)
		job->reason = REASON_DEPENDENCY;
	return r == DEPEND_NONE || r == DEPEND_TASKS;
}

/* How far into an array's pending tasks one start looks for one whose
 * aftercorr is met (they may be met in any order). */
#define CORR_LOOKAHEAD 1000

/* The meta record's next task to start: the lowest, or with aftercorr the
 * lowest whose corresponding task is done; BITMAP_NONE (and the reason) if
 * none may start yet. */
uint32_t sched_next_task(struct job *meta, bool per_task)
{
	uint32_t t = bitmap_next(meta->array_pending, 0);
	bool all_never = true;

	if (!per_task)
		return t;
	for (int looked = 0; t != BITMAP_NONE && looked < CORR_LOOKAHEAD; looked++) {
		bool never;
		if (depend_task_ready(meta, t, &never))
			return t;
		all_never &= never;
		t = bitmap_next(meta->array_pending, t + 1);
	}
	meta->reason = all_never && t == BITMAP_NONE ? REASON_DEP_NEVER : REASON_DEPENDENCY;
	return BITMAP_NONE;
}

static void count_running(struct job *job, void *arg)
{
	if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING || job->state == JOB_SUSPENDED)
		(*(uint32_t *)arg)++;
}

/* The array's tasks that hold nodes now (its %N throttle counts them). */
uint32_t sched_array_running(const struct job *meta)
{
	uint32_t n = 0;
	array_foreach(meta->array_job_id, count_running, &n);
	return n;
}

/* May the job go into this pass?  If not, its reason says why.  per_task:
 * an array whose aftercorr is decided task by task. */
bool sched_eligible(struct job *job, time_t now, bool *per_task, time_t *wake)
{
	if (deadline_passed(job, now)) {
		job_set_state(job, JOB_DEADLINE, REASON_DEADLINE);
		return false;
	}
	if (job->hold_admin || job->hold_user)
		return false;   /* its reason was set when it was held */
	if (!job->part) {
		job->reason = REASON_PART_DOWN;   /* its partition left the config */
		return false;
	}
	if (!dependency_met(job, now, per_task))
		return false;
	if (job->eligible_time > now) {
		job->reason = REASON_BEGIN_TIME;   /* --begin, or a requeued job for a moment */
		if (!*wake || job->eligible_time < *wake)
			*wake = job->eligible_time;
		return false;
	}
	if (array_is_meta(job) && job->array_throttle && sched_array_running(job) >= job->array_throttle) {
		job->reason = REASON_ARRAY_TASK_LIMIT;
		return false;
	}
	/* AccountingStorageEnforce=limits: a job over its association's or
	 * QOS's limits waits, and holds up no one behind it */
	enum job_reason limit = limits_check_start(job);
	if (limit != REASON_NONE) {
		job->reason = limit;
		return false;
	}
	return true;
}
