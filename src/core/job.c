/* The job table (by ID and by submission key), the one function that changes
 * a job's state, and the stored record (the job field table's part of it is
 * job_view.c's).  Scheduling decisions live in sched.c; RPCs in rpc.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "core/prio.h"
#include "core/preempt.h"
#include "sched/feature.h"

struct core core;   /* core/core.h */

static const char *reason_names[] = {
#define REASON_NAME(e, s) s,
	JOB_REASON_TABLE(REASON_NAME)
#undef REASON_NAME
};

const char *job_reason_name(enum job_reason r)
{
	return reason_names[r];
}

static int reason_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if (s && !strcmp(s, reason_names[i]))
			return (int)i;
	return REASON_NONE;
}

static size_t key_slot(uid_t uid, const char *key)
{
	uint64_t h = 1469598103934665603ULL ^ uid;   /* FNV-1a */
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h & (core.job_hash_size - 1);
}

static void table_grow(void)
{
	size_t old = core.job_hash_size, size = old ? 2 * old : 4096;
	struct job **ids = xmalloc(size * sizeof(*ids)), **keys = xmalloc(size * sizeof(*keys));
	struct job **arrays = xmalloc(size * sizeof(*arrays));

	for (size_t i = 0; i < old; i++) {
		struct job *j, *next;
		for (j = core.job_hash[i]; j; j = next) {
			next = j->hash_next;
			j->hash_next = ids[j->id & (size - 1)];
			ids[j->id & (size - 1)] = j;
		}
	}
	core.job_hash_size = size;
	for (size_t i = 0; i < old; i++) {
		struct job *j, *next;
		for (j = core.key_hash[i]; j; j = next) {
			next = j->key_next;
			size_t s = key_slot(j->uid, j->key);
			j->key_next = keys[s];
			keys[s] = j;
		}
	}
	for (size_t i = 0; i < old; i++) {
		struct job *j, *next;
		for (j = core.array_hash[i]; j; j = next) {
			next = j->array_next;
			j->array_next = arrays[j->array_job_id & (size - 1)];
			arrays[j->array_job_id & (size - 1)] = j;
		}
	}
	free(core.job_hash);
	free(core.key_hash);
	free(core.array_hash);
	core.job_hash = ids;
	core.key_hash = keys;
	core.array_hash = arrays;
}

struct job *job_find(uint32_t id)
{
	if (!core.job_hash_size)
		return NULL;
	for (struct job *j = core.job_hash[id & (core.job_hash_size - 1)]; j; j = j->hash_next)
		if (j->id == id)
			return j;
	return NULL;
}

struct job *job_find_key(uid_t uid, const char *key)
{
	if (!core.job_hash_size || !key || !*key)
		return NULL;
	for (struct job *j = core.key_hash[key_slot(uid, key)]; j; j = j->key_next)
		if (j->uid == uid && !strcmp(j->key, key))
			return j;
	return NULL;
}

void job_table_add(struct job *job)
{
	if (core.njobs + 1 > core.job_hash_size)
		table_grow();
	size_t s = job->id & (core.job_hash_size - 1);
	job->hash_next = core.job_hash[s];
	core.job_hash[s] = job;
	if (job->key) {
		s = key_slot(job->uid, job->key);
		job->key_next = core.key_hash[s];
		core.key_hash[s] = job;
	}
	if (job->array_job_id) {
		s = job->array_job_id & (core.job_hash_size - 1);
		job->array_next = core.array_hash[s];
		core.array_hash[s] = job;
	}
	core.njobs++;
	core.njobs_exclusive_user += job->exclusive_user;
}

static void table_remove(struct job *job)
{
	struct job **p;
	for (p = &core.job_hash[job->id & (core.job_hash_size - 1)]; *p; p = &(*p)->hash_next)
		if (*p == job) {
			*p = job->hash_next;
			break;
		}
	if (job->key)
		for (p = &core.key_hash[key_slot(job->uid, job->key)]; *p; p = &(*p)->key_next)
			if (*p == job) {
				*p = job->key_next;
				break;
			}
	if (job->array_job_id)
		for (p = &core.array_hash[job->array_job_id & (core.job_hash_size - 1)]; *p;
		     p = &(*p)->array_next)
			if (*p == job) {
				*p = job->array_next;
				break;
			}
	core.njobs--;
	core.njobs_exclusive_user -= job->exclusive_user;
}

void job_table_clear(void)
{
	for (size_t i = 0; i < core.job_hash_size; i++)
		while (core.job_hash[i])
			job_forget(core.job_hash[i]);
	free(core.job_hash);
	free(core.key_hash);
	free(core.array_hash);
	core.job_hash = core.key_hash = core.array_hash = NULL;
	core.job_hash_size = core.njobs = core.njobs_exclusive_user = 0;
}

void job_foreach(void (*fn)(struct job *job, void *arg), void *arg)
{
	for (size_t i = 0; i < core.job_hash_size; i++) {
		struct job *j = core.job_hash[i], *next;
		for (; j; j = next) {
			next = j->hash_next;   /* fn may purge j */
			fn(j, arg);
		}
	}
}

void job_destroy(struct job *job)
{
	if (!job)
		return;
	free(job->user);
	free(job->name);
	free(job->account);
	free(job->comment);
	free(job->container);
	free(job->work_dir);
	free(job->std_out);
	free(job->std_err);
	free(job->std_out_task);
	free(job->std_err_task);
	free(job->std_in);
	free(job->command);
	free(job->submit_host);
	free(job->key);
	job_alloc_clear(job);
	core_steps_free(job);
	free(job->nodes_str);
	free(job->mail_user);
	free(job->qos);
	free(job->features);
	free(job->batch_features);
	backfill_free_later(job->batch_idx);
	free(job->reservation);
	free(job->wckey);
	licenses_job_free(job);
	free(job->req_nodelist);
	free(job->exc_nodelist);
	free(job->sched_nodes);
	free(job->req_idx);
	free(job->exc_idx);
	free(job->partitions);
	free(job->parts);
	bitmap_destroy(job->array_pending);
	depend_destroy(job->depend);
	free(job->prio);
	free(job->lim_tres);
	json_decref(job->acts);
	json_decref(job->gpu_usage);
	job_gres_free(job);
	free(job);
}

void job_alloc_clear(struct job *job)
{
	job_gres_clear_alloc(job);
	for (int i = 0; i < job->nalloc; i++) {
		if (job->alloc_cpuset)
			bitmap_destroy(job->alloc_cpuset[i]);
		if (job->step_cpus)
			bitmap_destroy(job->step_cpus[i]);
	}
	free(job->alloc_cpuset);
	free(job->step_cpus);
	free(job->alloc_node);
	free(job->alloc_cpus);
	job->alloc_cpuset = job->step_cpus = NULL;
	job->alloc_node = job->alloc_cpus = NULL;
	job->nalloc = 0;
}

uint64_t job_node_mem(const struct job *job, int i)
{
	if (job->mem_per_gpu)
		return job->mem_per_gpu * job_node_gpus(job, i);
	if (job->mem_per_cpu)
		return job->mem_per_cpu * (uint64_t)job->alloc_cpus[i];
	return job->alloc_mem;
}

int job_node_charge(const struct job *job, int i)
{
	uint32_t share = job->cpu_share > 1 ? job->cpu_share : 1;
	return (int)(((int64_t)job->alloc_cpus[i] + share - 1) / share);
}

struct part *const *job_parts(const struct job *job, int *n)
{
	if (job->nparts) {
		*n = job->nparts;
		return job->parts;
	}
	*n = 1;
	return (struct part *const *)&job->part;
}

/* A -w/-x list as node indexes; the compressed list replaces *list. */
static int resolve_nodes(char **list, int **idx, int *n, struct herd_error *err)
{
	free(*idx);
	*idx = NULL;
	*n = 0;
	if (!*list)
		return 0;
	/* At most one name per node of the cluster, counted before anything is
	 * expanded: "<10,000 chars>[0-99999]" costs its own length, not a GB. */
	struct hostlist *hl = hostlist_create_max(*list, (size_t)core.nnodes);
	if (!hl || !hostlist_count(hl)) {
		if (!hl && errno == E2BIG)
			errprintf(err, "%s: the list names more than the %d nodes of the cluster",
				  herd_strerror(HERD_ERR_INVALID_NODE), core.nnodes);
		else
			errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_NODE));
		hostlist_destroy(hl);
		return HERD_ERR_INVALID_NODE;
	}
	hostlist_uniq(hl);
	*idx = xmalloc(hostlist_count(hl) * sizeof(int));
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		int k = node_index(hostlist_nth(hl, i));
		if (k < 0) {
			hostlist_destroy(hl);
			free(*idx);
			*idx = NULL;
			*n = 0;
			errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_NODE));
			return HERD_ERR_INVALID_NODE;
		}
		(*idx)[(*n)++] = k;
	}
	free(*list);
	*list = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	return 0;
}

int job_resolve(struct job *job, struct herd_error *err)
{
	int rc;
	if ((rc = resolve_nodes(&job->req_nodelist, &job->req_idx, &job->nreq_idx, err)) ||
	    (rc = resolve_nodes(&job->exc_nodelist, &job->exc_idx, &job->nexc_idx, err)))
		return rc;
	free(job->parts);
	job->parts = NULL;
	job->nparts = 0;
	if (!job->partitions)
		return 0;
	size_t n = 0;
	char **names = NULL;
	for (const char *p = job->partitions; *p;) {
		size_t len = strcspn(p, ",");
		if (len) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrndup(p, len);
		}
		p += len;
		if (*p)
			p++;
	}
	job->parts = xmalloc((n + 1) * sizeof(*job->parts));
	rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct part *part = part_find(names[i]);
		if (!part && !rc) {
			rc = HERD_ERR_INVALID_PARTITION;
			errprintf(err, "%s", herd_strerror(rc));
		}
		bool dup = false;
		for (int k = 0; k < job->nparts; k++)
			dup |= job->parts[k] == part;
		if (part && !dup)
			job->parts[job->nparts++] = part;
		free(names[i]);
	}
	free(names);
	if (!rc && !job->nparts) {
		rc = HERD_ERR_INVALID_PARTITION;
		errprintf(err, "%s", herd_strerror(rc));
	}
	return rc;
}

int job_check_placement(struct job *job, struct herd_error *err)
{
	int rc;
	if ((rc = job_resolve(job, err)) != 0)
		return rc;
	if (job->features && feature_check(job->features, sched_known_features()) < 0)
		rc = HERD_ERR_INVALID_FEATURE;
	/* Slurm: a node both asked for and excluded cannot be had */
	for (int i = 0; !rc && i < job->nreq_idx; i++)
		for (int k = 0; !rc && k < job->nexc_idx; k++)
			if (job->req_idx[i] == job->exc_idx[k])
				rc = HERD_ERR_NODE_CONFIG;
	if (rc) {
		errprintf(err, "%s", herd_strerror(rc));
		return rc;
	}
	job_batch_set(job);   /* --batch: the nodes that will do */
	/* -w names more nodes than -N: the job gets them all (as Slurm) */
	if (job->nreq_idx > (int)job->req_nodes && job->req_nodes)
		job->req_nodes = job->nreq_idx;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void *mem_dup(const void *p, size_t size)
{
	return memcpy(xmalloc(size), p, size);
}

struct job *job_copy(const struct job *job)
{
	struct job *c = xmalloc(sizeof(*c));
	*c = *job;
	c->changed = false;   /* a copy has no row of its own until it is added */
	c->hash_next = c->key_next = c->array_next = NULL;
	c->key = NULL;                  /* the submission key names the first record only */
	c->user = dup_or_null(job->user);
	c->name = dup_or_null(job->name);
	c->account = dup_or_null(job->account);
	c->comment = dup_or_null(job->comment);
	c->container = dup_or_null(job->container);
	c->work_dir = dup_or_null(job->work_dir);
	c->std_out = dup_or_null(job->std_out);
	c->std_err = dup_or_null(job->std_err);
	c->std_out_task = dup_or_null(job->std_out_task);
	c->std_err_task = dup_or_null(job->std_err_task);
	c->std_in = dup_or_null(job->std_in);
	c->command = dup_or_null(job->command);
	c->submit_host = dup_or_null(job->submit_host);
	c->nodes_str = dup_or_null(job->nodes_str);
	c->array_pending = job->array_pending ? bitmap_copy(job->array_pending) : NULL;
	c->depend = depend_copy(job->depend);
	c->mail_user = dup_or_null(job->mail_user);
	c->qos = dup_or_null(job->qos);
	c->features = dup_or_null(job->features);
	c->batch_features = dup_or_null(job->batch_features);
	c->batch_idx = job->batch_idx ? mem_dup(job->batch_idx, (job->nbatch_idx + 1) * sizeof(int)) : NULL;
	c->reservation = dup_or_null(job->reservation);
	c->wckey = dup_or_null(job->wckey);
	licenses_job_copy(c, job);
	c->req_nodelist = dup_or_null(job->req_nodelist);
	c->exc_nodelist = dup_or_null(job->exc_nodelist);
	c->partitions = dup_or_null(job->partitions);
	c->req_idx = job->nreq_idx ? mem_dup(job->req_idx, job->nreq_idx * sizeof(int)) : NULL;
	c->exc_idx = job->nexc_idx ? mem_dup(job->exc_idx, job->nexc_idx * sizeof(int)) : NULL;
	c->parts = job->nparts ? mem_dup(job->parts, job->nparts * sizeof(*job->parts)) : NULL;
	c->tres_per_job = dup_or_null(job->tres_per_job);
	c->tres_per_node = dup_or_null(job->tres_per_node);
	c->tres_per_socket = dup_or_null(job->tres_per_socket);
	c->tres_per_task = dup_or_null(job->tres_per_task);
	c->gpu_bind = dup_or_null(job->gpu_bind);
	c->gpu_freq = dup_or_null(job->gpu_freq);
	c->gres_flags = dup_or_null(job->gres_flags);
	c->gres = job->ngres ? mem_dup(job->gres, job->ngres * sizeof(*job->gres)) : NULL;
	c->alloc_gres = NULL;
	c->nalloc_gres = NULL;
	c->nalloc = 0;
	c->alloc_node = c->alloc_cpus = NULL;
	c->alloc_cpuset = c->step_cpus = NULL;
	c->steps = NULL;
	c->next_step_id = 0;
	/* Counted as the original is (an array's tasks split off its meta
	 * record keep the sum: limits.c), never as running. */
	c->lim_tres = NULL;
	c->acts = job->acts ? json_deep_copy(job->acts) : NULL;
	c->sched_nodes = dup_or_null(job->sched_nodes);
	c->prio = job->prio ? mem_dup(job->prio, sizeof(*job->prio)) : NULL;
	return c;
}

/* ---- the job row ---- */

static struct {
	uint32_t *ids;
	size_t n, cap;
} changed;

void job_changed(struct job *job)
{
	if (job->changed)
		return;
	job->changed = true;
	if (changed.n == changed.cap) {
		changed.cap = changed.cap ? 2 * changed.cap : 256;
		changed.ids = xrealloc(changed.ids, changed.cap * sizeof(*changed.ids));
	}
	changed.ids[changed.n++] = job->id;
}

static void write_row(struct job *job)
{
	job->changed = false;
	store_job_update(job);
}

void job_write_changed(void)
{
	for (size_t i = 0; i < changed.n; i++) {
		struct job *job = job_find(changed.ids[i]);
		if (job && job->changed)
			write_row(job);
	}
	changed.n = 0;
}

bool job_any_changed(void)
{
	return changed.n > 0;
}

/* Leaving the table: its last change is written now. */
static void job_remove(struct job *job)
{
	if (job->changed)
		write_row(job);
	table_remove(job);
	job_destroy(job);
}

void job_forget(struct job *job)
{
	limits_job_ended(job, job->lim_tres != NULL);   /* a job gone unfinished counts no more */
	job_remove(job);
}

static void purge_one(struct job *job, void *arg)
{
	time_t horizon = *(time_t *)arg;
	if (job_state_is_final(job->state) && job->end_time < horizon)
		job_remove(job);
}

/* Finished jobs stay visible to squeue for MinJobAge, then live on only in
 * the store (accounting). */
void job_purge_old(time_t now)
{
	time_t horizon = now - core.min_job_age;
	job_foreach(purge_one, &horizon);
}

/* Slurm's priority/basic: each newer job one less than the one before. */
uint32_t job_base_priority(uint32_t id)
{
	const uint32_t top = 0xFFFF0000u;
	return id < top - 1 ? top - id : 1;
}

uint32_t job_priority(struct job *job)
{
	if (job->hold_user || job->hold_admin)
		return 0;
	if (job->prio_admin)
		return job->prio_admin;   /* scontrol update Priority=: kept as set */
	if (prio_multifactor())
		return prio_job(job, core_now());
	int64_t p = (int64_t)job_base_priority(job->id) - job->nice;
	return p < 1 ? 1 : p > 0xFFFFFFFEll ? 0xFFFFFFFEu : (uint32_t)p;
}

/* A requeued job that ran waits this long before it may start again: its
 * old herdstepd exits only after its JOB_COMPLETE is answered, and herdd
 * takes a LAUNCH for a job whose herdstepd still lives for a retry. */
#define REQUEUE_DELAY 2

void job_requeue_finish(struct job *job)
{
	bool ran = job->launch != LAUNCH_NONE || job_state_is_final(job->state);

	store_job_requeued(job);   /* this run's accounting record, before the next one's */
	job->preempted = false;    /* (that record says PREEMPTED when it was) */
	mail_job_requeued(job);
	job->mail_sent = 0;   /* the next run has its own time-limit mails */
	if (!job_state_is_final(job->state)) {
		core_steps_ended(job, JOB_CANCELLED);   /* its steps end with this run */
		node_free(job);   /* a finished job gave its nodes back when it ended */
	}
	job_alloc_clear(job);
	free(job->nodes_str);
	job->nodes_str = NULL;
	job->launch = LAUNCH_NONE;
	job->restarts++;
	if (job->requeue_hold)
		job->hold_user = true;
	job->requeue_requested = job->requeue_hold = false;
	job->start_time = job->end_time = 0;
	job->exit_status = 0;
	job->eligible_time = core_now() + (ran ? REQUEUE_DELAY : 0);
	job->priority = job_priority(job);
	job_set_state(job, JOB_PENDING, job->hold_user ? REASON_HELD_USER
				: ran ? REASON_BEGIN_TIME : REASON_NONE);
	sched_request_later(REQUEUE_DELAY * 1000 + 100);
}

static char *expand_node(const char *path, const char *node)
{
	char *out, *o;
	size_t extra = 0;
	if (!path)
		return NULL;
	for (const char *p = path; *p; p++)
		if (*p == '%' && p[1] == 'N')
			extra += strlen(node);
	out = o = xmalloc(strlen(path) + extra + 1);
	for (const char *p = path; *p; p++) {
		if (*p == '%' && (p[1] == 'N' || p[1] == 'n' || p[1] == 't')) {
			const char *v = p[1] == 'N' ? node : "0";
			o = stpcpy(o, v);
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

void job_expand_node_patterns(struct job *job)
{
	const char *host = core.nodes[job_batch_node(job)].name;
	char **paths[] = { &job->std_out, &job->std_err, &job->std_in };
	for (size_t i = 0; i < 3; i++) {
		char *x = expand_node(*paths[i], host);
		free(*paths[i]);
		*paths[i] = x;
	}
}

enum job_state job_cancelled_state(const struct job *job)
{
	return job->preempted ? JOB_PREEMPTED : JOB_CANCELLED;
}

/* A state in which the job holds its nodes (a suspended job keeps them). */
static bool holds_nodes(enum job_state s)
{
	return s == JOB_RUNNING || s == JOB_COMPLETING || s == JOB_SUSPENDED;
}

/* It has just ended, after holding nodes. */
static bool ended_running(const struct job *job, enum job_state old)
{
	return job_state_is_final(job->state) && !job_state_is_final(old) && holds_nodes(old);
}

static void watch_steps(struct job *job, enum job_state old)
{
	if (ended_running(job, old))
		core_steps_ended(job, job->state);
}

static void watch_nodes(struct job *job, enum job_state old)
{
	if (ended_running(job, old))
		node_free(job);
}

/* AccountingStorageEnforce's counts (limits.c). */
static void watch_limits(struct job *job, enum job_state old)
{
	bool was_running = holds_nodes(old);

	if (job_state_is_final(job->state) && !job_state_is_final(old)) {
		limits_job_ended(job, was_running);
	} else if (job->state == JOB_PENDING && (was_running || job_state_is_final(old))) {
		limits_job_ended(job, was_running);   /* requeued: it waits again */
		limits_job_submitted(job);
	} else if (job->state == JOB_RUNNING && old == JOB_PENDING) {
		limits_job_started(job);
	}
}

/* A job that starts or ends may let others go: its nodes, its dependents
 * (after, afterany ...). */
static void watch_sched(struct job *job, enum job_state old)
{
	if (job->state != old && (job->state == JOB_RUNNING || job_state_is_final(job->state)))
		sched_request();
}

/* Fair-share usage: charged while it holds nodes. */
static void watch_usage(struct job *job, enum job_state old)
{
	if (job->state != old)
		usage_job_state(job, old);
}

/* The row, once every watcher before has changed the job, and the log. */
static void watch_persist(struct job *job, enum job_state old)
{
	job_changed(job);
	store_job_event(job->id, job_state_name(job->state), job_reason_name(job->reason));
	log_info("job %u: %s -> %s (%s)", job->id, job_state_name(old), job_state_name(job->state),
		 job_reason_name(job->reason));
}

/* Who hears of a job's state change, in this order: its steps end and its
 * nodes are freed before the limits, the scheduler and the usage count
 * them; the row is written after all of those; mail and preemption (a
 * preemptor that ended lets its victims resume) come last, then a het
 * job's other components (het.c), which end after it. */
static const struct {
	const char *name;
	void (*fn)(struct job *job, enum job_state old);
} watchers[] = {
	{ "steps", watch_steps }, { "nodes", watch_nodes }, { "licenses", licenses_job_state },
	{ "limits", watch_limits },
	{ "sched", watch_sched }, { "usage", watch_usage }, { "persist", watch_persist },
	{ "mail", mail_job_state }, { "preempt", preempt_job_state }, { "het", het_job_state },
};

void job_set_state(struct job *job, enum job_state state, enum job_reason reason)
{
	enum job_state old = job->state;
	time_t now = core_now();

	job->state = state;
	job->reason = reason;
	if (job_state_is_final(state) && !job_state_is_final(old)) {
		job->end_time = now;
		if (old == JOB_PENDING)
			job->start_time = now;   /* as Slurm: a job ended before it ran starts when it ends */
	}
	for (size_t i = 0; i < sizeof(watchers) / sizeof(watchers[0]); i++)
		watchers[i].fn(job, old);
}

/* Slurm's "ReqNodeNotAvail, UnavailableNodes:n[2-3]": the -w nodes that are
 * down, drained or not responding now. */
char *job_unavailable_reason(const struct job *job)
{
	struct hostlist *hl = hostlist_create(NULL);
	for (int i = 0; i < job->nreq_idx; i++) {
		const struct node *n = &core.nodes[job->req_idx[i]];
		if (!n->registered || n->not_responding || n->drain || n->state == NODE_DOWN ||
		    n->state == NODE_FUTURE || n->state == NODE_UNKNOWN)
			hostlist_push(hl, n->name);
	}
	char *list = hostlist_ranged_string(hl);
	char *why = xasprintf("ReqNodeNotAvail, UnavailableNodes:%s", list);
	hostlist_destroy(hl);
	free(list);
	return why;
}

void job_batch_set(struct job *job)
{
	backfill_free_later(job->batch_idx);
	job->batch_idx = NULL;
	job->nbatch_idx = 0;
	if (!job->batch_features)
		return;
	/* one more: a job none of whose nodes will do still has a set (empty) */
	job->batch_idx = xmalloc((core.nnodes + 1) * sizeof(int));
	for (int i = 0; i < core.nnodes; i++)
		if (feature_match(job->batch_features, core.nodes[i].conf->features) == 1)
			job->batch_idx[job->nbatch_idx++] = i;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int job_batch_pick(const struct job *job)
{
	for (int i = 0; job->batch_idx && i < job->nalloc; i++)
		if (bsearch(&job->alloc_node[i], job->batch_idx, job->nbatch_idx, sizeof(int), int_cmp))
			return job->alloc_node[i];
	return job->alloc_node[0];
}

/* The partitions a job may run in, comma-separated, as squeue shows them. */
char *job_parts_string(const struct job *job)
{
	int n;
	struct part *const *parts = job_parts(job, &n);
	char *out = xstrdup("");
	for (int i = 0; i < n; i++) {
		char *next = xasprintf("%s%s%s", out, i ? "," : "", parts[i]->name);
		free(out);
		out = next;
	}
	return out;
}

/* The stored record: the table's STORED fields (job_view.c), then what the
 * record keeps otherwise than JOB_INFO shows it, and its structured keys. */
json_t *job_to_json(const struct job *job)
{
	json_t *o = json_object();
	job_view_store(job, o);
	/* What was asked, not what is shown. */
	json_object_set_new(o, "partition", json_string(job->part ? job->part->name : ""));
	json_object_set_new(o, "reason", json_string(job_reason_name(job->reason)));
	json_object_set_new(o, "eligible_time", json_integer(job->eligible_time));
	json_object_set_new(o, "num_tasks", json_integer(job->ntasks));
	if (job->depend)
		json_object_set_new(o, "depend", depend_to_json(job->depend));
	if (job->kill_invalid_dep >= 0)
		json_object_set_new(o, "kill_invalid_dep", json_boolean(job->kill_invalid_dep));
	json_t *alloc = json_array();
	for (int i = 0; i < job->nalloc; i++) {
		/* [node, CPUs, CPU IDs] */
		char *ids = job->alloc_cpuset && job->alloc_cpuset[i] ? bitmap_fmt_ranges(job->alloc_cpuset[i])
								      : xstrdup("");
		/* [node, CPUs, CPU IDs, GRES holds] */
		json_array_append_new(alloc, json_pack("[s,i,s,o]", core.nodes[job->alloc_node[i]].name,
							  job->alloc_cpus[i], ids, job_gres_hold_json(job, i)));
		free(ids);
	}
	json_object_set_new(o, "alloc", alloc);
	if (job->acts)   /* team acts (roles.c): sacct reads them from here */
		json_object_set_new(o, "acts", json_deep_copy(job->acts));
	if (job->gpu_usage)   /* sacct's TRESUsageIn* gres/gpumem, gres/gpuutil */
		json_object_set_new(o, "gpu_usage", json_deep_copy(job->gpu_usage));
	return o;
}

/* The inverse of job_to_json, for restart. */
struct job *job_from_json(const json_t *rec)
{
	struct job *job = xmalloc(sizeof(*job));
	json_t *alloc = json_object_get(rec, "alloc"), *a;
	size_t i;
	int st = job_state_parse(json_string_value(json_object_get(rec, "state")) ?: "");

	if (st < 0 || !json_is_array(alloc)) {
		free(job);
		return NULL;
	}
	job->state = st;
	job->reason = reason_parse(json_string_value(json_object_get(rec, "reason")));
	job_view_load(job, rec);
	job_gres_load(job);
	struct herd_error err;
	if (job_resolve(job, &err) != 0)   /* the config changed under it: run where it may */
		log_error("job %u: %s (in -w/-x/-p of the stored job)", job->id, err.text);
	job->depend = depend_from_json(json_object_get(rec, "depend"));
	json_t *kill = json_object_get(rec, "kill_invalid_dep");
	job->kill_invalid_dep = kill ? json_is_true(kill) : -1;
	json_t *acts = json_object_get(rec, "acts");
	job->acts = json_is_array(acts) ? json_deep_copy(acts) : NULL;
	json_t *gpu_usage = json_object_get(rec, "gpu_usage");
	job->gpu_usage = json_is_object(gpu_usage) ? json_deep_copy(gpu_usage) : NULL;
	if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING) {
		job->launch = LAUNCH_DONE;   /* or lost: the node's registration tells */
		job->alloc_node = xmalloc(json_array_size(alloc) * sizeof(int));
		job->alloc_cpus = xmalloc(json_array_size(alloc) * sizeof(int));
		job->alloc_cpuset = xmalloc((json_array_size(alloc) + 1) * sizeof(*job->alloc_cpuset));
		json_array_foreach(alloc, i, a) {
			int idx = node_index(json_string_value(json_array_get(a, 0)) ?: "");
			if (idx < 0) {
				log_error("job %u: node %s is no longer configured", job->id,
					  json_string_value(json_array_get(a, 0)));
				continue;
			}
			job->alloc_node[job->nalloc] = idx;
			job_gres_hold_load(job, job->nalloc, (int)json_array_size(alloc), json_array_get(a, 3));
			const char *ids = json_string_value(json_array_get(a, 2));
			if (ids && *ids)
				job->alloc_cpuset[job->nalloc] = bitmap_parse(ids, 1u << 20);
			job->alloc_cpus[job->nalloc++] = json_integer_value(json_array_get(a, 1));
		}
		/* the batch host as shown (job_view.c loaded it), if still one of them */
		bool kept = false;
		for (int k = 0; k < job->nalloc; k++)
			kept |= job->alloc_node[k] == job->batch_node;
		if (!kept && job->nalloc)
			job->batch_node = job->alloc_node[0];
	}
	job_batch_set(job);
	return job;
}

/* Where output goes, as scontrol shows it: absolute, with the patterns known
 * in the controller filled in (%N is known only on the node).  An array's
 * meta record shows %a as Slurm's NO_VAL (4294967294).  keep_task: %a and
 * %% are left as they are, for a client to fill in a task's ID (scontrol
 * show job A_T of a task still in the meta record). */
static char *output_path(const struct job *job, const char *given, const char *dflt,
			 bool keep_task)
{
	const char *pat = given && *given ? given : dflt;
	struct strbuf out = { 0 };
	char num[32];

	if (!pat)
		return NULL;
	if (pat[0] != '/') {
		strbuf_adds(&out, job->work_dir ? job->work_dir : "");
		strbuf_add(&out, "/", 1);
	}
	strbuf_add(&out, "", 0);
	for (const char *p = pat; *p; p++) {
		if (*p != '%' || !p[1]) {
			strbuf_add(&out, p, 1);
			continue;
		}
		switch (*++p) {
		case 'j': case 'J':
			snprintf(num, sizeof(num), "%u", job->id);
			strbuf_adds(&out, num);
			break;
		case 'A':
			snprintf(num, sizeof(num), "%u", job->array_job_id ? job->array_job_id : job->id);
			strbuf_adds(&out, num);
			break;
		case 'a':
			if (keep_task) {
				strbuf_adds(&out, "%a");
				break;
			}
			snprintf(num, sizeof(num), "%u", job->array_job_id ? job->array_task_id : ARRAY_NO_TASK);
			strbuf_adds(&out, num);
			break;
		case 'x': strbuf_adds(&out, job->name); break;
		case 'u': strbuf_adds(&out, job->user); break;
		case '%': strbuf_adds(&out, keep_task ? "%%" : "%"); break;
		default: strbuf_add(&out, p - 1, 2); break;   /* known on the node only (%N ...) */
		}
	}
	return out.s;
}

char *job_output_path(const struct job *job, const char *given, const char *dflt)
{
	return output_path(job, given, dflt, false);
}

static const char *spec_str(const json_t *spec, const char *key)
{
	const char *s = json_string_value(json_object_get(spec, key));
	return s ? s : "";
}

/* Slurm's defaults: slurm-%j.out, or slurm-%A_%a.out for an array; stderr
 * with stdout; stdin from /dev/null. */
void job_set_output_paths(struct job *job, const json_t *spec)
{
	const char *out = spec_str(spec, "stdout");
	const char *dflt = job->array_job_id ? "slurm-%A_%a.out" : "slurm-%j.out";
	free(job->std_out);
	free(job->std_err);
	free(job->std_in);
	job->std_out = job_output_path(job, out, dflt);
	job->std_err = job_output_path(job, spec_str(spec, "stderr"), *out ? out : dflt);
	job->std_in = job_output_path(job, spec_str(spec, "stdin"), "/dev/null");
	free(job->std_out_task);
	free(job->std_err_task);
	job->std_out_task = job->std_err_task = NULL;
	if (job->array_job_id && job->array_task_id == ARRAY_NO_TASK) {
		job->std_out_task = output_path(job, out, dflt, true);
		job->std_err_task = output_path(job, spec_str(spec, "stderr"), *out ? out : dflt, true);
	}
}
