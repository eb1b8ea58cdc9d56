/* Job dependencies (sbatch -d/--dependency, scontrol update Dependency=):
 * the spec parsed into items, each item decided against where its target
 * job stands (in memory, or in the store once purged), and what remains
 * rendered as squeue %E shows it.  Not the scheduling itself (sched.c). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"

static const char *type_names[] = {
	[DEP_AFTER] = "after", [DEP_AFTERANY] = "afterany", [DEP_AFTEROK] = "afterok",
	[DEP_AFTERNOTOK] = "afternotok", [DEP_AFTERCORR] = "aftercorr",
	[DEP_SINGLETON] = "singleton",
};
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

static int type_parse(const char *s, size_t len)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (strlen(type_names[i]) == len && !strncasecmp(s, type_names[i], len))
			return (int)i;
	return -1;
}

void depend_destroy(struct depend *d)
{
	if (!d)
		return;
	free(d->items);
	free(d);
}

static void push(struct depend *d, enum depend_type type, uint32_t id, int minutes)
{
	d->items = xrealloc(d->items, (d->n + 1) * sizeof(*d->items));
	d->items[d->n++] = (struct depend_item){ type, id, DEPEND_WHOLE, minutes, false };
}

/* A number of digits only, within [min, max]. */
static int number(const char *s, size_t len, unsigned long min, unsigned long max,
		  unsigned long *out)
{
	char buf[24], *end;
	if (!len || len >= sizeof(buf))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	unsigned long v = strtoul(buf, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* One "type:id[+min]:id..." (or "singleton", or a bare id: afterany). */
static int parse_item(struct depend *d, const char *s, size_t len, struct herd_error *err)
{
	const char *colon = memchr(s, ':', len);
	size_t tlen = colon ? (size_t)(colon - s) : len;
	unsigned long id, minutes;
	int type = type_parse(s, tlen);

	if (type == DEP_SINGLETON && !colon) {
		push(d, DEP_SINGLETON, 0, 0);
		return 0;
	}
	if (!colon) {
		/* Slurm takes a job ID alone as afterany:ID. */
		if (number(s, len, 1, UINT32_MAX - 1, &id) < 0)
			return errprintf(err, "invalid dependency '%.*s'", (int)len, s);
		push(d, DEP_AFTERANY, id, 0);
		return 0;
	}
	if (type < 0 || type == DEP_SINGLETON)
		return errprintf(err, "invalid dependency type '%.*s'", (int)tlen, s);
	const char *p = colon + 1, *end = s + len;
	if (p >= end)
		return errprintf(err, "dependency '%.*s' names no job", (int)len, s);
	/* A plain ID stands for the whole array, as in Slurm. */
	while (p <= end) {
		const char *q = memchr(p, ':', end - p);
		if (!q)
			q = end;
		const char *plus = memchr(p, '+', q - p);
		size_t idlen = (plus ? plus : q) - p;
		const char *us = memchr(p, '_', idlen);
		unsigned long task = DEPEND_WHOLE;
		minutes = 0;
		/* "ID_TASK": that task of array ID (not with aftercorr, which
		 * names the corresponding task itself) */
		if (us && (type == DEP_AFTERCORR ||
			   number(us + 1, p + idlen - us - 1, 0, UINT32_MAX - 2, &task) < 0))
			return errprintf(err, "invalid job id '%.*s' in dependency", (int)(q - p), p);
		if (number(p, us ? (size_t)(us - p) : idlen, 1, UINT32_MAX - 1, &id) < 0)
			return errprintf(err, "invalid job id '%.*s' in dependency", (int)(q - p), p);
		/* Only "after" waits a time after the start (sbatch(1)). */
		if (plus && (type != DEP_AFTER ||
			     number(plus + 1, q - plus - 1, 0, 1000000, &minutes) < 0))
			return errprintf(err, "invalid time in dependency '%.*s'", (int)(q - p), p);
		push(d, type, id, (int)minutes);
		d->items[d->n - 1].task = (uint32_t)task;
		p = q + 1;
	}
	return 0;
}

int depend_parse(const char *spec, struct depend **out, struct herd_error *err)
{
	struct depend *d;
	const char *p = spec;

	*out = NULL;
	if (!spec || !*spec)
		return 0;
	bool comma = strchr(spec, ',') != NULL, question = strchr(spec, '?') != NULL;
	if (comma && question)   /* Slurm: only one separator per spec */
		return errprintf(err, "dependency '%s' mixes ',' and '?'", spec);
	d = xmalloc(sizeof(*d));
	d->any = question;
	for (;;) {
		const char *sep = strchr(p, question ? '?' : ',');
		size_t len = sep ? (size_t)(sep - p) : strlen(p);
		if (parse_item(d, p, len, err) < 0)
			goto error;
		if (!sep)
			break;
		p = sep + 1;
	}
	*out = d;
	return 0;
error:
	depend_destroy(d);
	return -1;
}

char *depend_render(const struct depend *d)
{
	struct strbuf out = { 0 };
	char buf[64];

	strbuf_add(&out, "", 0);
	for (size_t i = 0; d && i < d->n; i++) {
		const struct depend_item *it = &d->items[i];
		if (i)
			strbuf_add(&out, d->any ? "?" : ",", 1);
		strbuf_adds(&out, type_names[it->type]);
		if (it->type != DEP_SINGLETON) {
			const struct job *target = job_find(it->job_id);
			if (it->task != DEPEND_WHOLE)
				snprintf(buf, sizeof(buf), ":%u_%u", it->job_id, it->task);
			else if (target && target->array_job_id == it->job_id)
				/* a whole array: Slurm shows "afterok:A_*" */
				snprintf(buf, sizeof(buf), ":%u_*", it->job_id);
			else
				snprintf(buf, sizeof(buf), ":%u", it->job_id);
			strbuf_adds(&out, buf);
		}
		if (it->minutes) {
			snprintf(buf, sizeof(buf), "+%d", it->minutes);
			strbuf_adds(&out, buf);
		}
		strbuf_adds(&out, it->failed ? "(failed)" : "(unfulfilled)");
	}
	return out.s;
}

json_t *depend_to_json(const struct depend *d)
{
	json_t *items = json_array();
	for (size_t i = 0; d && i < d->n; i++) {
		json_t *it = json_pack("{s:s, s:I, s:i, s:b}", "type", type_names[d->items[i].type],
				       "job_id", (json_int_t)d->items[i].job_id,
				       "minutes", d->items[i].minutes, "failed", d->items[i].failed);
		if (d->items[i].task != DEPEND_WHOLE)
			json_object_set_new(it, "task", json_integer(d->items[i].task));
		json_array_append_new(items, it);
	}
	return json_pack("{s:b, s:o}", "any", d && d->any, "items", items);
}

struct depend *depend_from_json(const json_t *o)
{
	json_t *items = json_object_get(o, "items"), *it;
	size_t i;

	if (!json_array_size(items))
		return NULL;
	struct depend *d = xmalloc(sizeof(*d));
	d->any = json_is_true(json_object_get(o, "any"));
	json_array_foreach(items, i, it) {
		const char *name = json_string_value(json_object_get(it, "type"));
		int type = name ? type_parse(name, strlen(name)) : -1;
		if (type < 0)
			continue;
		push(d, type, (uint32_t)json_integer_value(json_object_get(it, "job_id")),
		     (int)json_integer_value(json_object_get(it, "minutes")));
		d->items[d->n - 1].failed = json_is_true(json_object_get(it, "failed"));
		json_t *task = json_object_get(it, "task");
		if (task)
			d->items[d->n - 1].task = (uint32_t)json_integer_value(task);
	}
	if (!d->n) {
		depend_destroy(d);
		return NULL;
	}
	return d;
}

struct depend *depend_copy(const struct depend *d)
{
	json_t *o = d ? depend_to_json(d) : NULL;
	struct depend *c = o ? depend_from_json(o) : NULL;
	json_decref(o);
	return c;
}

/* An array's ID stands for all its tasks, ID_TASK for one (array.c decides);
 * a plain job is its own only "task", so aftercorr on it is afterok on it. */
int depend_target_state(uint32_t job_id, uint32_t task, struct depend_target *out)
{
	const struct job *job = job_find(job_id);
	if (!job || job->array_job_id || task != DEPEND_WHOLE) {
		/* an array (or a purged record that may have been one) */
		if (array_target_state(job_id, task, &out->state, &out->start_time) == 0)
			return 0;
		if (job && job->array_job_id)
			return -1;   /* an array without that task */
		/* a plain job (aftercorr on it, or purged): itself */
	}
	if (job) {
		out->state = job->state;
		out->start_time = job->start_time;
		return 0;
	}
	return store_job_final(job_id, &out->state, &out->start_time);
}

int depend_check_targets(const struct depend *d, struct herd_error *err)
{
	for (size_t i = 0; d && i < d->n; i++) {
		uint32_t id = d->items[i].job_id;
		enum job_state state;
		time_t start;
		if (d->items[i].type != DEP_SINGLETON && !job_find(id) && !store_job_known(id))
			return errprintf(err, "%s", herd_strerror(HERD_ERR_DEPENDENCY));
		/* ID_TASK: a task that array ID has (or had) */
		if (d->items[i].task != DEPEND_WHOLE &&
		    array_target_state(id, d->items[i].task, &state, &start) < 0)
			return errprintf(err, "%s", herd_strerror(HERD_ERR_DEPENDENCY));
	}
	return 0;
}

struct singleton_ctx {
	const struct job *job;
	bool blocked;
};

/* Another job of the user with the same name that runs, or waits ahead of
 * this one (an earlier ID), holds a singleton back. */
static void singleton_one(struct job *other, void *arg)
{
	struct singleton_ctx *c = arg;
	const struct job *job = c->job;
	if (c->blocked || other == job || other->uid != job->uid ||
	    job_state_is_final(other->state) || strcmp(other->name ? other->name : "",
							 job->name ? job->name : ""))
		return;
	if (other->state != JOB_PENDING || other->id < job->id)
		c->blocked = true;
}

/* ITEM_TASKS: aftercorr on an array's meta record, decided per task. */
enum item_result { ITEM_WAIT, ITEM_MET, ITEM_FAILED, ITEM_TASKS };

/* aftercorr waits for the target's task with the dependent's own task ID.
 * Job arrays: return the array task ID of job here; a plain job has none. */
static uint32_t own_task(const struct job *job)
{
	return job->array_job_id && !array_is_meta(job) ? job->array_task_id : DEPEND_WHOLE;
}

static enum item_result item_evaluate(const struct job *job, const struct depend_item *it,
				      time_t now)
{
	struct depend_target t;

	if (it->failed)
		return ITEM_FAILED;
	if (it->type == DEP_AFTERCORR && array_is_meta(job))
		return ITEM_TASKS;
	if (it->type == DEP_SINGLETON) {
		struct singleton_ctx c = { job, false };
		job_foreach(singleton_one, &c);
		return c.blocked ? ITEM_WAIT : ITEM_MET;
	}
	if (depend_target_state(it->job_id, it->type == DEP_AFTERCORR ? own_task(job) : it->task,
				&t) < 0) {
		log_error("job %u: dependency on job %u, of which nothing is known", job->id,
			  it->job_id);
		return ITEM_FAILED;
	}
	bool done = job_state_is_final(t.state), ok = t.state == JOB_COMPLETED;
	switch (it->type) {
	case DEP_AFTER:
		/* Started (or cancelled, which sets the start), plus the delay. */
		if (t.state == JOB_PENDING || !t.start_time)
			return ITEM_WAIT;
		return now >= t.start_time + (time_t)it->minutes * 60 ? ITEM_MET : ITEM_WAIT;
	case DEP_AFTERANY:
		return done ? ITEM_MET : ITEM_WAIT;
	case DEP_AFTEROK:
	case DEP_AFTERCORR:
		return !done ? ITEM_WAIT : ok ? ITEM_MET : ITEM_FAILED;
	case DEP_AFTERNOTOK:
		return !done ? ITEM_WAIT : ok ? ITEM_FAILED : ITEM_MET;
	case DEP_SINGLETON:
		break;
	}
	return ITEM_WAIT;
}

enum depend_result depend_evaluate(struct job *job, time_t now, bool *changed)
{
	struct depend *d = job->depend;
	size_t kept = 0, failed = 0, tasks = 0;
	bool any_met = false;

	*changed = false;
	if (!d)
		return DEPEND_NONE;
	for (size_t i = 0; i < d->n; i++) {
		enum item_result r = item_evaluate(job, &d->items[i], now);
		if (r == ITEM_MET) {
			any_met = true;
			*changed = true;
			continue;   /* Slurm drops what is met from what it shows */
		}
		if (r == ITEM_TASKS)
			tasks++;
		if (r == ITEM_FAILED) {
			if (!d->items[i].failed)
				*changed = true;
			d->items[i].failed = true;
			failed++;
		}
		d->items[kept++] = d->items[i];
	}
	d->n = kept;
	if ((d->any && any_met) || !d->n) {
		depend_destroy(d);
		job->depend = NULL;
		return DEPEND_NONE;
	}
	if (d->any)
		return failed == d->n ? DEPEND_NEVER : tasks ? DEPEND_TASKS : DEPEND_WAIT;
	return failed ? DEPEND_NEVER : tasks == d->n ? DEPEND_TASKS : DEPEND_WAIT;
}

bool depend_task_ready(const struct job *meta, uint32_t task, bool *never)
{
	const struct depend *d = meta->depend;
	size_t met = 0, failed = 0;
	struct depend_target t;

	*never = false;
	if (!d)
		return true;
	for (size_t i = 0; i < d->n; i++) {
		const struct depend_item *it = &d->items[i];
		if (it->failed) {
			failed++;
		} else if (it->type == DEP_AFTERCORR) {
			if (depend_target_state(it->job_id, task, &t) < 0)
				met++;   /* no corresponding task: nothing to wait for */
			else if (job_state_is_final(t.state))
				*(t.state == JOB_COMPLETED ? &met : &failed) += 1;
		}
		/* other items left here are not met yet (depend_evaluate dropped the met) */
	}
	if (d->any) {
		*never = failed == d->n;
		return met > 0;
	}
	*never = failed > 0;
	return met == d->n;
}
