/* A job's fields on struct job, one line each, for the job field table
 * (common/job_fields.h): the JOB object of JOB_INFO replies, written
 * straight into the reply text with only the fields the client asked for
 * (squeue over 100,000 jobs reads a dozen keys of each, and building then
 * dumping a jansson tree of all fifty cost most of its time), and the same
 * values in the stored record, which job_to_json/job_from_json (job.c)
 * complete with the record's structured keys. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/job_fields.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"

static void put_int(struct strbuf *o, long long v)
{
	char num[24];
	strbuf_add(o, num, (size_t)snprintf(num, sizeof(num), "%lld", v));
}

/* A JSON string: quotes, backslashes and control characters escaped; the
 * text is UTF-8 already (it came in as JSON or from the configuration). */
static void put_str(struct strbuf *o, const char *s)
{
	char esc[8];
	const char *run = s ? s : "";

	strbuf_add(o, "\"", 1);
	for (const char *p = run; s && *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		strbuf_add(o, run, p - run);
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		strbuf_adds(o, esc);
		run = p + 1;
	}
	strbuf_adds(o, run);
	strbuf_add(o, "\"", 1);
}

/* Without -n, one task per node (of -N min-max: per node it got) */
static uint32_t shown_tasks(const struct job *job)
{
	return job->ntasks ? job->ntasks : job->req_nodes ? (job->nalloc ? job->nalloc : job->req_nodes) : 1;
}

static int64_t shown_cpus(const struct job *job)
{
	int64_t cpus = 0;
	for (int i = 0; i < job->nalloc; i++)
		cpus += job->alloc_cpus[i];
	/* 64 bits: uint32 x uint32; -O: as one task per node (sbatch(1)) */
	uint32_t tasks = job->overcommit ? (job->req_nodes ? job->req_nodes : 1) : shown_tasks(job);
	if (!job->nalloc)
		cpus = (int64_t)tasks * (job->cpus_per_task ? job->cpus_per_task : 1);
	return cpus;
}

/* scontrol show job -d: each allocated node, its CPUs, memory, GRES and CPU IDs there */
static void w_node_alloc(struct strbuf *o, const struct job *job)
{
	strbuf_add(o, "[", 1);
	for (int i = 0; i < job->nalloc; i++) {
		strbuf_adds(o, i ? ",[" : "[");
		put_str(o, core.nodes[job->alloc_node[i]].name);
		strbuf_add(o, ",", 1);
		put_int(o, job->alloc_cpus[i]);
		strbuf_add(o, ",", 1);
		put_int(o, (long long)job_node_mem(job, i));
		strbuf_add(o, ",", 1);
		char *gres = job_gres_node_string(job, i);
		put_str(o, gres);
		free(gres);
		/* the CPU IDs it holds there (node_alloc), "" for a job restored
		 * from a record without them */
		char *ids = job->alloc_cpuset && job->alloc_cpuset[i] ? bitmap_fmt_ranges(job->alloc_cpuset[i])
								      : xstrdup("");
		strbuf_add(o, ",", 1);
		put_str(o, ids);
		free(ids);
		strbuf_add(o, "]", 1);
	}
	strbuf_add(o, "]", 1);
}

/* the team acts (roles.c): [{uid, user, act, time, detail}] */
static void w_acts(struct strbuf *o, const struct job *job)
{
	char *text = job->acts ? json_dumps(job->acts, JSON_COMPACT) : NULL;
	strbuf_adds(o, text ? text : "[]");
	free(text);
}

static char *str_of(const json_t *v)
{
	const char *s = json_string_value(v);
	return s && *s ? xstrdup(s) : NULL;
}

/* One field's value, of its table type. */
struct value {
	long long i;                  /* INT, BOOL */
	const char *s;                /* STR; NULL is "" */
	char *owned;                  /* STR made for this value: freed once written */
	void (*list)(struct strbuf *o, const struct job *job);   /* LIST: writes it */
	char buf[256];                /* room for a STR made in place */
};

/* get_KEY: the value JOB_INFO shows (and the record keeps, when STORED);
 * load_KEY: the stored value back into the job, v NULL when the record has
 * none.  A member shown as it is takes one line; a field job_from_json
 * reads itself, or that is only shown, loads nothing. */
#define GET(key, body) static void get_##key(const struct job *job, struct value *v) { body; }
#define LOAD(key, body) static void load_##key(struct job *job, const json_t *v) { body; }
#define SHOWN(key, body) GET(key, body) LOAD(key, )
#define INT_MEMBER(key, m) GET(key, v->i = job->m) LOAD(key, job->m = json_integer_value(v))
#define BOOL_MEMBER(key, m) GET(key, v->i = job->m) LOAD(key, job->m = json_is_true(v))
#define STR_MEMBER(key, m) GET(key, v->s = job->m) LOAD(key, job->m = str_of(v))

INT_MEMBER(job_id, id)
STR_MEMBER(name, name)
STR_MEMBER(user, user)
INT_MEMBER(uid, uid)
INT_MEMBER(gid, gid)
SHOWN(group, v->s = names_group(job->gid))
STR_MEMBER(account, account)
/* squeue shows every partition a pending job may run in; the record keeps
 * the one it is in (job_to_json) */
GET(partition, if (job->partitions && job->state == JOB_PENDING) v->owned = job_parts_string(job);
	       else v->s = job->part ? job->part->name : "")
LOAD(partition, job->part = part_find(json_string_value(v) ?: ""))
STR_MEMBER(partitions, partitions)
STR_MEMBER(comment, comment)
SHOWN(state, v->s = job_state_name(job->state))   /* job_from_json reads it first */
/* stored as the bare reason name (job_to_json, job_from_json) */
SHOWN(reason, if (job->reason == REASON_REQ_NODE_NOT_AVAIL) v->owned = job_unavailable_reason(job);
	      else v->s = job_reason_name(job->reason))
INT_MEMBER(priority, priority)
INT_MEMBER(nice, nice)
STR_MEMBER(nodes, nodes_str)
GET(batch_host, v->s = job->nalloc ? core.nodes[job_batch_node(job)].name : "")
LOAD(batch_host, job->batch_node = node_index(json_string_value(v) ?: ""))   /* job_from_json checks it */
SHOWN(num_nodes, v->i = job->nalloc ? job->nalloc : job->req_nodes ? job->req_nodes : 1)
SHOWN(num_cpus, v->i = shown_cpus(job))
/* the record keeps the number asked, 0 when not given (job_to_json) */
GET(num_tasks, v->i = shown_tasks(job))
LOAD(num_tasks, job->ntasks = json_integer_value(v))
INT_MEMBER(cpus_per_task, cpus_per_task)
GET(mem_per_node, v->i = (long long)(job->nalloc ? job->alloc_mem : job->mem_mb))
LOAD(mem_per_node, if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING)
			   job->alloc_mem = json_integer_value(v))
INT_MEMBER(mem_per_cpu, mem_per_cpu)
INT_MEMBER(ntasks_per_node, ntasks_per_node)
INT_MEMBER(ntasks_per_socket, ntasks_per_socket)
INT_MEMBER(ntasks_per_core, ntasks_per_core)
BOOL_MEMBER(exclusive, exclusive)
BOOL_MEMBER(oversubscribe, oversubscribe)
INT_MEMBER(max_nodes, max_nodes)
INT_MEMBER(mincpus, mincpus)
INT_MEMBER(min_tmp_disk, tmp_mb)
INT_MEMBER(sockets_per_node, sockets_per_node)
INT_MEMBER(cores_per_socket, cores_per_socket)
INT_MEMBER(threads_per_core, threads_per_core)
BOOL_MEMBER(overcommit, overcommit)
BOOL_MEMBER(spread_job, spread_job)
BOOL_MEMBER(exclusive_user, exclusive_user)
BOOL_MEMBER(use_min_nodes, use_min_nodes)
BOOL_MEMBER(no_kill, no_kill)
INT_MEMBER(delay_boot, delay_boot)
INT_MEMBER(time_limit, time_limit)
GET(time_min, v->i = job->time_min)
LOAD(time_min, job->time_min = v ? json_integer_value(v) : TIME_NOT_GIVEN)
INT_MEMBER(submit_time, submit_time)
/* not eligible while a dependency waits (Slurm: Unknown); the record keeps
 * the time (job_to_json) */
GET(eligible_time, v->i = job->depend && job->state == JOB_PENDING ? 0 : job->eligible_time)
LOAD(eligible_time, job->eligible_time = json_integer_value(v))
INT_MEMBER(start_time, start_time)
INT_MEMBER(end_time, end_time)
INT_MEMBER(deadline, deadline)
INT_MEMBER(exit_code, exit_status)
STR_MEMBER(work_dir, work_dir)
STR_MEMBER(std_out, std_out)
STR_MEMBER(std_err, std_err)
STR_MEMBER(std_in, std_in)
GET(command, v->s = job->command ? job->command : "(null)")
LOAD(command, job->command = strcmp(json_string_value(v) ?: "", "(null)") ? str_of(v) : NULL)
STR_MEMBER(submit_host, submit_host)
INT_MEMBER(restarts, restarts)
/* a record from before sbatch's later options reads as their defaults */
GET(requeue, v->i = job->requeue)
LOAD(requeue, job->requeue = v ? json_is_true(v) : true)
GET(mail_type, v->s = fmt_mail_type(job->mail_type, v->buf, sizeof(v->buf)))
LOAD(mail_type, unsigned mail = 0;
		if (json_string_value(v)) parse_mail_type(json_string_value(v), &mail);
		job->mail_type = mail)
STR_MEMBER(mail_user, mail_user)
GET(open_mode, v->s = job->open_append ? "append" : "truncate")
LOAD(open_mode, job->open_append = !strcmp(json_string_value(v) ?: "", "append"))
INT_MEMBER(signal, signal)
INT_MEMBER(signal_time, signal_time)
GET(signal_flags, v->s = job->signal_batch ? "B" : "")
LOAD(signal_flags, job->signal_batch = !strcmp(json_string_value(v) ?: "", "B"))
GET(qos, v->s = job->qos ? job->qos : "normal")
LOAD(qos, job->qos = str_of(v))
STR_MEMBER(features, features)
STR_MEMBER(batch_features, batch_features)
STR_MEMBER(reservation, reservation)
STR_MEMBER(container, container)
STR_MEMBER(wckey, wckey)
INT_MEMBER(wckey_id, wckey_id)
/* -L as given; the record's text is parsed again at a restart (licenses.c) */
GET(licenses, v->s = job->licenses)
LOAD(licenses, licenses_job_load(job, json_string_value(v)))
/* GRES (job_gres.c): the request as given, in Slurm 22.05's words
 * ("gres:gpu:2"; the record reads either form back) */
GET(tres_per_job, v->owned = job_gres_shown(job->tres_per_job))
LOAD(tres_per_job, job->tres_per_job = str_of(v))
GET(tres_per_node, v->owned = job_gres_shown(job->tres_per_node))
LOAD(tres_per_node, job->tres_per_node = str_of(v))
GET(tres_per_socket, v->owned = job_gres_shown(job->tres_per_socket))
LOAD(tres_per_socket, job->tres_per_socket = str_of(v))
GET(tres_per_task, v->owned = job_gres_shown(job->tres_per_task))
LOAD(tres_per_task, job->tres_per_task = str_of(v))
INT_MEMBER(cpus_per_gpu, cpus_per_gpu)
INT_MEMBER(mem_per_gpu, mem_per_gpu)
STR_MEMBER(gpu_bind, gpu_bind)
STR_MEMBER(gpu_freq, gpu_freq)
STR_MEMBER(gres_flags, gres_flags)
SHOWN(gres_alloc, v->owned = job_gres_alloc_string(job))
SHOWN(tres_req_gres, v->owned = job_gres_tres(job, false))
SHOWN(tres_alloc_gres, v->owned = job_gres_tres(job, true))
static int64_t job_billing(const struct job *job)
{
	int64_t tres[TRES_COUNT];
	return job->nalloc ? (usage_job_tres(job, tres), tres[TRES_BILLING]) : 0;
}
SHOWN(billing, v->i = job_billing(job))
STR_MEMBER(req_nodelist, req_nodelist)
STR_MEMBER(exc_nodelist, exc_nodelist)
SHOWN(dependency, v->owned = depend_render(job->depend))   /* the record has "depend" */
SHOWN(node_alloc, v->list = w_node_alloc)
SHOWN(acts, v->list = w_acts)                              /* job_to_json keeps them */
/* squeue --start: the backfill plan of a pending job (0, "": none) */
SHOWN(start_estimate, v->i = job->state == JOB_PENDING ? job->start_estimate : 0)
SHOWN(sched_nodes, v->s = job->state == JOB_PENDING ? job->sched_nodes : NULL)
INT_MEMBER(array_job_id, array_job_id)
INT_MEMBER(array_task_id, array_task_id)
GET(array_tasks, v->owned = array_pending_string(job))
LOAD(array_tasks, const char *pending = json_string_value(v);
		  if (pending && *pending && !(job->array_pending = bitmap_parse(pending, UINT32_MAX)))
			  log_error("job %u: unreadable array tasks \"%s\"", job->id, pending))
INT_MEMBER(array_throttle, array_throttle)
INT_MEMBER(het_job_id, het_job_id)
INT_MEMBER(het_job_offset, het_job_offset)
SHOWN(het_job_id_set, v->s = het_id_set(job, v->buf, sizeof(v->buf)))
STR_MEMBER(std_out_task, std_out_task)   /* "" but on a meta record */
STR_MEMBER(std_err_task, std_err_task)
/* the address the submission came from (AllocNodes is checked against it) */
GET(origin, if (job->origin.s_addr != htonl(INADDR_ANY))
		    v->s = inet_ntop(AF_INET, &job->origin, v->buf, sizeof(v->buf)))
LOAD(origin, if (!json_string_value(v) || inet_pton(AF_INET, json_string_value(v), &job->origin) != 1)
		     job->origin.s_addr = htonl(INADDR_ANY))
INT_MEMBER(priority_admin, prio_admin)
INT_MEMBER(cpu_share, cpu_share)
INT_MEMBER(accrue_time, accrue_time)
INT_MEMBER(mail_sent, mail_sent)
BOOL_MEMBER(alloc_only, alloc_only)
INT_MEMBER(next_step_id, next_step_id)
INT_MEMBER(req_nodes, req_nodes)
INT_MEMBER(mem_mb, mem_mb)
BOOL_MEMBER(hold_user, hold_user)
BOOL_MEMBER(hold_admin, hold_admin)
BOOL_MEMBER(cancel_requested, cancel_requested)
BOOL_MEMBER(requeue_requested, requeue_requested)
BOOL_MEMBER(requeue_hold, requeue_hold)
BOOL_MEMBER(preempted, preempted)   /* preempt.c, gang.c */
BOOL_MEMBER(cpus_lent, cpus_lent)
BOOL_MEMBER(gang_suspended, gang_suspended)
STR_MEMBER(key, key)
GET(licenses_alt, v->i = licenses_job_alt(job))   /* after licenses: the OR item held */
LOAD(licenses_alt, licenses_job_load_alt(job, (int)json_integer_value(v)))
INT_MEMBER(array_count, array_count)
INT_MEMBER(array_min, array_min)
INT_MEMBER(array_max, array_max)
INT_MEMBER(array_step, array_step)
INT_MEMBER(het_size, het_size)
#undef GET
#undef LOAD
#undef SHOWN
#undef INT_MEMBER
#undef BOOL_MEMBER
#undef STR_MEMBER

/* Every field of the table: a missing get_KEY or load_KEY does not build. */
#define ACCESS(key, ...) [JOB_F_##key] = { get_##key, load_##key },
static const struct {
	void (*get)(const struct job *job, struct value *v);
	void (*load)(struct job *job, const json_t *v);
} access[JOB_F_NKEYS] = { JOB_KEYS(ACCESS) };
#undef ACCESS

static void get_value(const struct job *job, size_t id, struct value *v)
{
	v->i = 0;   /* not the buffer: this runs for every cell of a reply */
	v->s = NULL;
	v->owned = NULL;
	v->list = NULL;
	access[id].get(job, v);
}

static void put_field(struct strbuf *o, const struct job *job, size_t id)
{
	struct value v;
	get_value(job, id, &v);
	switch (job_fields[id].type) {
	case JOB_FIELD_INT:
		put_int(o, v.i);
		break;
	case JOB_FIELD_BOOL:
		strbuf_adds(o, v.i ? "true" : "false");
		break;
	case JOB_FIELD_STR:
		put_str(o, v.owned ? v.owned : v.s);
		free(v.owned);
		break;
	case JOB_FIELD_LIST:
		v.list(o, job);
		break;
	case JOB_FIELD_NONE:
		break;
	}
}

/* An array's field of a job that is none, or a het job's. */
static bool absent_for(const struct job *job, unsigned flags)
{
	return ((flags & JF_ARRAY) && !job->array_job_id) || ((flags & JF_HET) && !job->het_job_id);
}

static bool stored_for(const struct job *job, size_t id)
{
	unsigned flags = job_fields[id].flags;
	return (flags & JF_STORED) && !absent_for(job, flags);
}

void job_view_store(const struct job *job, json_t *rec)
{
	for (size_t id = 0; id < JOB_F_NKEYS; id++) {
		const struct job_field *f = &job_fields[id];
		bool sparse = f->flags & JF_SPARSE;
		json_t *value = NULL;
		struct value v;
		if (!stored_for(job, id))
			continue;
		get_value(job, id, &v);
		const char *s = v.owned ? v.owned : v.s ? v.s : "";
		if (f->type == JOB_FIELD_INT && (v.i || !sparse))
			value = json_integer(v.i);
		else if (f->type == JOB_FIELD_BOOL && (v.i || !sparse))
			value = json_boolean(v.i);
		else if (f->type == JOB_FIELD_STR && (*s || !sparse))
			value = json_string(s);
		if (value)
			json_object_set_new(rec, f->key, value);
		free(v.owned);
	}
}

void job_view_load(struct job *job, const json_t *rec)
{
	for (size_t id = 0; id < JOB_F_NKEYS; id++)
		if (job_fields[id].flags & JF_STORED)
			access[id].load(job, json_object_get(rec, job_fields[id].key));
}

static bool shown(size_t id)
{
	return job_fields[id].flags & JF_SHOWN;
}

struct job_view {
	size_t n;
	unsigned char idx[JOB_F_NKEYS];   /* into job_fields[], in order */
	bool script;                      /* add "script" for jobs the viewer may read */
	uid_t viewer;
	bool admin;
};

struct job_view *job_view_create(const json_t *keys)
{
	struct job_view *v = xmalloc(sizeof(*v));
	bool seen[JOB_F_NKEYS] = { false };
	size_t i;
	json_t *k;

	if (!keys) {
		for (size_t id = 0; id < JOB_F_NKEYS; id++)
			if (shown(id))
				v->idx[v->n++] = (unsigned char)id;
		return v;
	}
	json_array_foreach(keys, i, k) {   /* unknown keys are no error: nothing to show */
		const struct job_field *f = job_field_find(json_string_value(k));
		size_t id = f ? (size_t)(f - job_fields) : JOB_F_NKEYS;
		if (id < JOB_F_NKEYS && shown(id) && !seen[id]) {
			seen[id] = true;
			v->idx[v->n++] = (unsigned char)id;
		}
	}
	return v;
}

void job_view_want_script(struct job_view *v, uid_t viewer, bool admin)
{
	v->script = true;
	v->viewer = viewer;
	v->admin = admin;
}

/* The batch script from the stored submission (an array's tasks share the
 * array's); read only on request (scontrol -dd), one job at a time. */
static void put_script(struct strbuf *o, const struct job *job)
{
	json_t *spec = store_job_spec(job->array_job_id ? job->array_job_id : job->id);
	put_str(o, json_string_value(json_object_get(spec, "script")));
	json_decref(spec);
}

void job_view_destroy(struct job_view *v)
{
	free(v);
}

static void drop_keys(struct job_view *v, unsigned flag)
{
	size_t kept = 0;
	for (size_t i = 0; i < v->n; i++)
		if (!(job_fields[v->idx[i]].flags & flag))
			v->idx[kept++] = v->idx[i];
	v->n = kept;
}

void job_view_drop_array_keys(struct job_view *v)
{
	drop_keys(v, JF_ARRAY);
}

void job_view_drop_het_keys(struct job_view *v)
{
	drop_keys(v, JF_HET);
}

void job_view_keys(const struct job_view *v, struct strbuf *out)
{
	strbuf_add(out, "[", 1);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strbuf_add(out, ",", 1);
		put_str(out, job_fields[v->idx[i]].key);
	}
	strbuf_add(out, "]", 1);
}

void job_view_write_row(const struct job_view *v, const struct job *job, struct strbuf *out)
{
	strbuf_add(out, "[", 1);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strbuf_add(out, ",", 1);
		if (absent_for(job, job_fields[v->idx[i]].flags))
			strbuf_adds(out, "null");   /* as absent */
		else
			put_field(out, job, v->idx[i]);
	}
	strbuf_add(out, "]", 1);
}

void job_view_write(const struct job_view *v, const struct job *job, struct strbuf *out)
{
	bool first = true;

	strbuf_add(out, "{", 1);
	for (size_t i = 0; i < v->n; i++) {
		const struct job_field *f = &job_fields[v->idx[i]];
		if (absent_for(job, f->flags))
			continue;
		if (!first)
			strbuf_add(out, ",", 1);
		first = false;
		put_str(out, f->key);
		strbuf_add(out, ":", 1);
		put_field(out, job, v->idx[i]);
	}
	if (v->script && (job->uid == v->viewer || v->admin)) {
		strbuf_adds(out, first ? "\"script\":" : ",\"script\":");
		put_script(out, job);
	}
	strbuf_add(out, "}", 1);
}
