/* Job arrays: the meta record that holds an array's pending tasks as one
 * bit set (a million-task array costs one record and 125 KB), and the split
 * of a task into a record of its own when it starts or is cancelled alone.
 * Scheduling of the tasks (throttle) is in sched.c; what commands see is in
 * job_to_json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "core/core.h"

/* SLURM_ARRAY_TASK_STEP: the stride when every gap between tasks is the
 * same, else 1. */
static uint32_t common_step(const struct bitmap *tasks)
{
	uint32_t prev = bitmap_next(tasks, 0), step = 0;
	for (uint32_t t = bitmap_next(tasks, prev + 1); t != BITMAP_NONE; t = bitmap_next(tasks, t + 1)) {
		if (step && t - prev != step)
			return 1;
		step = t - prev;
		prev = t;
	}
	return step ? step : 1;
}

int array_setup(struct job *job, const char *spec)
{
	struct bitmap *tasks;
	uint32_t throttle;

	if (!core.max_array_size || parse_array_spec(spec, core.max_array_size, &tasks, &throttle) < 0)
		return HERD_ERR_INVALID_ARRAY;
	job->array_job_id = job->id;
	job->array_task_id = ARRAY_NO_TASK;
	job->array_pending = tasks;
	job->array_throttle = throttle;
	job->array_count = bitmap_count(tasks);
	job->array_min = bitmap_next(tasks, 0);
	job->array_max = bitmap_last(tasks);
	job->array_step = common_step(tasks);
	return 0;
}

bool array_is_meta(const struct job *job)
{
	return job->array_pending != NULL;
}

char *array_pending_string(const struct job *meta)
{
	/* Slurm shows a pending set as runs and single IDs, never a stride:
	 * squeue prints --array=1-7:2 as A_[1,3,5,7]. */
	return meta->array_pending ? bitmap_fmt_ranges(meta->array_pending) : xstrdup("");
}

struct job *array_split(struct job *meta, uint32_t task_id)
{
	struct job *task;
	json_t *spec;

	bitmap_clear(meta->array_pending, task_id);
	if (bitmap_next(meta->array_pending, 0) == BITMAP_NONE) {
		/* The last pending task: the meta record becomes it. */
		bitmap_destroy(meta->array_pending);
		meta->array_pending = NULL;
		task = meta;
	} else {
		task = job_copy(meta);
		task->id = core.next_job_id++;
		task->durable = true;          /* its array's submission is */
		bitmap_destroy(task->array_pending);
		task->array_pending = NULL;
		task->array_task_id = task_id;
		job_changed(meta);   /* its pending set: in the same commit as the task's row */
	}
	task->array_task_id = task_id;
	spec = store_job_spec(meta->id);
	job_set_output_paths(task, spec);
	json_decref(spec);
	if (task != meta) {
		job_table_add(task);
		store_job_insert(task, NULL);   /* the script stays in the meta record's row */
		char detail[32];
		snprintf(detail, sizeof(detail), "%u_%u", meta->id, task_id);
		store_job_event(task->id, "ARRAY_TASK", detail);
	} else {
		job_changed(task);
	}
	return task;
}

void array_foreach(uint32_t array_job_id, void (*fn)(struct job *job, void *arg), void *arg)
{
	if (!array_job_id || !core.job_hash_size)
		return;
	struct job *j = core.array_hash[array_job_id & (core.job_hash_size - 1)], *next;
	for (; j; j = next) {
		next = j->array_next;   /* fn may take j out of the table */
		if (j->array_job_id == array_job_id)
			fn(j, arg);
	}
}

struct task_find {
	uint32_t task_id;
	struct job *own, *meta;
};

static void task_find_one(struct job *job, void *arg)
{
	struct task_find *f = arg;
	if (array_is_meta(job) && job->state == JOB_PENDING)
		f->meta = job;
	else if (job->array_task_id == f->task_id)
		f->own = job;
}

struct job *array_task_job(uint32_t array_job_id, uint32_t task_id)
{
	struct task_find f = { task_id, NULL, NULL };
	array_foreach(array_job_id, task_find_one, &f);
	if (f.own)
		return f.own;
	if (f.meta && f.meta->state == JOB_PENDING && bitmap_test(f.meta->array_pending, task_id))
		return array_split(f.meta, task_id);
	return NULL;
}

struct job *array_split_set(struct job *meta, const struct bitmap *tasks)
{
	struct bitmap *set = bitmap_create(meta->array_pending->nbits);
	uint32_t n = 0, first = BITMAP_NONE;

	for (uint32_t t = bitmap_next(meta->array_pending, 0); t != BITMAP_NONE;
	     t = bitmap_next(meta->array_pending, t + 1))
		if (bitmap_test(tasks, t)) {
			bitmap_set(set, t);
			if (!n++)
				first = t;
		}
	if (n <= 1) {
		bitmap_destroy(set);
		return array_split(meta, first);
	}
	for (uint32_t t = bitmap_next(set, 0); t != BITMAP_NONE; t = bitmap_next(set, t + 1))
		bitmap_clear(meta->array_pending, t);
	struct job *rec = job_copy(meta);
	rec->id = core.next_job_id++;
	rec->durable = true;
	bitmap_destroy(rec->array_pending);
	rec->array_pending = set;
	job_changed(meta);
	job_table_add(rec);
	store_job_insert(rec, NULL);
	return rec;
}

struct target_walk {
	uint32_t task;
	bool from_store;            /* skip records still in memory: counted already */
	bool found, pending, active;
	enum job_state task_state, failed;   /* failed: a final state other than COMPLETED */
	time_t start;
};

static void target_one(const struct job *job, void *arg)
{
	struct target_walk *w = arg;
	bool meta_like = job->array_pending != NULL;

	if (w->from_store && job_find(job->id))
		return;
	if (w->task != DEPEND_WHOLE) {
		if (meta_like ? !bitmap_test(job->array_pending, w->task) : job->array_task_id != w->task)
			return;
		w->found = true;
		w->task_state = job->state;
		w->start = job->start_time;
		return;
	}
	w->found = true;
	if (job->state == JOB_PENDING)
		w->pending = true;
	else if (!job_state_is_final(job->state))
		w->active = true;
	else if (job->state != JOB_COMPLETED)
		w->failed = job->state;
	if (job->start_time > w->start)
		w->start = job->start_time;
}

static void target_mem(struct job *job, void *arg)
{
	target_one(job, arg);
}

int array_target_state(uint32_t array_job_id, uint32_t task, enum job_state *state,
		       time_t *start_time)
{
	struct target_walk w = { task, false, false, false, false, JOB_PENDING, JOB_COMPLETED, 0 };

	array_foreach(array_job_id, target_mem, &w);
	/* Records gone from memory are final and committed: the store has them.
	 * Needed only while nothing in memory decides it already. */
	if (!(task == DEPEND_WHOLE ? w.pending || w.active : w.found)) {
		w.from_store = true;
		store_array_records(array_job_id, target_one, &w);
	}
	if (!w.found)
		return -1;
	*start_time = w.start;
	if (task != DEPEND_WHOLE)
		*state = w.task_state;
	else
		*state = w.pending ? JOB_PENDING : w.active ? JOB_RUNNING : w.failed;
	return 0;
}
