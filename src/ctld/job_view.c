/* The JOB object of JOB_INFO replies (doc/protocol.md), written straight
 * into the reply text, field by field, with only the fields the client
 * asked for: squeue over 100,000 jobs reads a dozen keys of each, and
 * building then dumping a jansson tree of all fifty cost most of its time.
 * The stored record is job_to_json's business (job.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

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

static void put_bool(struct strbuf *o, bool v)
{
	strbuf_adds(o, v ? "true" : "false");
}

static void put_owned(struct strbuf *o, char *s)   /* steals s */
{
	put_str(o, s);
	free(s);
}

static uint32_t shown_tasks(const struct job *job)
{
	return job->ntasks ? job->ntasks : job->req_nodes ? job->req_nodes : 1;
}

static int64_t shown_cpus(const struct job *job)
{
	int64_t cpus = 0;
	for (int i = 0; i < job->nalloc; i++)
		cpus += job->alloc_cpus[i];
	if (!job->nalloc)   /* 64 bits: uint32 x uint32 */
		cpus = (int64_t)shown_tasks(job) * (job->cpus_per_task ? job->cpus_per_task : 1);
	return cpus;
}

#define FIELD(key, body) \
	static void w_##key(struct strbuf *o, const struct job *job) { body; }
FIELD(job_id, put_int(o, job->id))
FIELD(name, put_str(o, job->name))
FIELD(user, put_str(o, job->user))
FIELD(uid, put_int(o, job->uid))
FIELD(gid, put_int(o, job->gid))
FIELD(group, put_str(o, names_group(job->gid)))
FIELD(account, put_str(o, job->account))
/* squeue shows every partition a pending job may run in */
FIELD(partition, if (job->partitions && job->state == JOB_PENDING) put_owned(o, job_parts_string(job));
		 else put_str(o, job->part ? job->part->name : ""))
FIELD(partitions, put_str(o, job->partitions))
FIELD(comment, put_str(o, job->comment))
FIELD(state, put_str(o, job_state_name(job->state)))
FIELD(reason, if (job->reason == REASON_REQ_NODE_NOT_AVAIL) put_owned(o, job_unavailable_reason(job));
	      else put_str(o, job_reason_name(job->reason)))
FIELD(priority, put_int(o, job->priority))
FIELD(nice, put_int(o, job->nice))
FIELD(nodes, put_str(o, job->nodes_str))
FIELD(batch_host, put_str(o, job->nalloc ? ctld.nodes[job->alloc_node[0]].name : ""))
FIELD(num_nodes, put_int(o, job->nalloc ? job->nalloc : job->req_nodes ? job->req_nodes : 1))
FIELD(num_cpus, put_int(o, shown_cpus(job)))
FIELD(num_tasks, put_int(o, shown_tasks(job)))
FIELD(cpus_per_task, put_int(o, job->cpus_per_task))
FIELD(mem_per_node, put_int(o, (long long)(job->nalloc ? job->alloc_mem : job->mem_mb)))
FIELD(mem_per_cpu, put_int(o, (long long)job->mem_per_cpu))
FIELD(ntasks_per_node, put_int(o, job->ntasks_per_node))
FIELD(exclusive, put_bool(o, job->exclusive))
FIELD(time_limit, put_int(o, job->time_limit))
FIELD(time_min, put_int(o, job->time_min))
FIELD(submit_time, put_int(o, job->submit_time))
/* not eligible while a dependency waits (Slurm: Unknown) */
FIELD(eligible_time, put_int(o, job->depend && job->state == JOB_PENDING ? 0 : job->eligible_time))
FIELD(start_time, put_int(o, job->start_time))
FIELD(end_time, put_int(o, job->end_time))
FIELD(deadline, put_int(o, job->deadline))
FIELD(exit_code, put_int(o, job->exit_status))
FIELD(work_dir, put_str(o, job->work_dir))
FIELD(std_out, put_str(o, job->std_out))
FIELD(std_err, put_str(o, job->std_err))
FIELD(std_in, put_str(o, job->std_in))
FIELD(std_out_task, put_str(o, job->std_out_task))   /* "" but on a meta record */
FIELD(std_err_task, put_str(o, job->std_err_task))
FIELD(command, put_str(o, job->command ? job->command : "(null)"))
FIELD(submit_host, put_str(o, job->submit_host))
FIELD(restarts, put_int(o, job->restarts))
FIELD(requeue, put_bool(o, job->requeue))
FIELD(mail_type, char m[256]; put_str(o, fmt_mail_type(job->mail_type, m, sizeof(m))))
FIELD(mail_user, put_str(o, job->mail_user))
FIELD(open_mode, put_str(o, job->open_append ? "append" : "truncate"))
FIELD(signal, put_int(o, job->signal))
FIELD(signal_time, put_int(o, job->signal_time))
FIELD(signal_flags, put_str(o, job->signal_batch ? "B" : ""))
FIELD(qos, put_str(o, job->qos ? job->qos : "normal"))
FIELD(features, put_str(o, job->features))
FIELD(reservation, put_str(o, job->reservation))
FIELD(req_nodelist, put_str(o, job->req_nodelist))
FIELD(exc_nodelist, put_str(o, job->exc_nodelist))
FIELD(dependency, put_owned(o, depend_render(job->depend)))
/* scontrol show job -d: each allocated node, its CPUs and memory there */
static void w_node_alloc(struct strbuf *o, const struct job *job)
{
	strbuf_add(o, "[", 1);
	for (int i = 0; i < job->nalloc; i++) {
		strbuf_adds(o, i ? ",[" : "[");
		put_str(o, ctld.nodes[job->alloc_node[i]].name);
		strbuf_add(o, ",", 1);
		put_int(o, job->alloc_cpus[i]);
		strbuf_add(o, ",", 1);
		put_int(o, (long long)job_node_mem(job, i));
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
/* squeue --start: the backfill plan of a pending job (0, "": none) */
FIELD(start_estimate, put_int(o, job->state == JOB_PENDING ? job->start_estimate : 0))
FIELD(sched_nodes, put_str(o, job->state == JOB_PENDING ? job->sched_nodes : NULL))
/* array keys: only for array jobs (see job_view_write) */
FIELD(array_job_id, put_int(o, job->array_job_id))
FIELD(array_task_id, put_int(o, job->array_task_id))
FIELD(array_tasks, put_owned(o, array_pending_string(job)))
FIELD(array_throttle, put_int(o, job->array_throttle))
#undef FIELD

typedef void (*field_f)(struct strbuf *o, const struct job *job);
static const struct {
	const char *key;
	field_f write;
	bool array_only;
} fields[] = {
#define F(key) { #key, w_##key, false }
#define A(key) { #key, w_##key, true }
	F(job_id), F(name), F(user), F(uid), F(gid), F(group), F(account), F(partition),
	F(partitions), F(comment), F(state), F(reason), F(priority), F(nice), F(nodes),
	F(batch_host), F(num_nodes), F(num_cpus), F(num_tasks), F(cpus_per_task),
	F(mem_per_node), F(mem_per_cpu), F(ntasks_per_node), F(exclusive), F(time_limit),
	F(time_min), F(submit_time), F(eligible_time), F(start_time), F(end_time), F(deadline),
	F(exit_code), F(work_dir), F(std_out), F(std_err), F(std_in), F(command),
	F(submit_host), F(restarts), F(requeue), F(mail_type), F(mail_user), F(open_mode),
	F(signal), F(signal_time), F(signal_flags), F(qos), F(features), F(reservation), F(req_nodelist),
	F(exc_nodelist), F(dependency), F(node_alloc), F(acts),
	F(start_estimate), F(sched_nodes),
	A(array_job_id), A(array_task_id), A(array_tasks), A(array_throttle),
	A(std_out_task), A(std_err_task),
#undef F
#undef A
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct job_view {
	size_t n;
	unsigned char idx[NFIELDS];   /* into fields[], in order */
	bool script;                  /* add "script" for jobs the viewer may read */
	uid_t viewer;
	bool admin;
};

struct job_view *job_view_create(const json_t *keys)
{
	struct job_view *v = xmalloc(sizeof(*v));
	bool seen[NFIELDS] = { false };
	size_t i;
	json_t *k;

	if (!keys) {
		for (v->n = 0; v->n < NFIELDS; v->n++)
			v->idx[v->n] = (unsigned char)v->n;
		return v;
	}
	json_array_foreach(keys, i, k)   /* unknown keys are no error: nothing to show */
		for (size_t f = 0; f < NFIELDS; f++)
			if (!seen[f] && !strcmp(fields[f].key, json_string_value(k))) {
				seen[f] = true;
				v->idx[v->n++] = (unsigned char)f;
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

void job_view_drop_array_keys(struct job_view *v)
{
	size_t kept = 0;
	for (size_t i = 0; i < v->n; i++)
		if (!fields[v->idx[i]].array_only)
			v->idx[kept++] = v->idx[i];
	v->n = kept;
}

void job_view_keys(const struct job_view *v, struct strbuf *out)
{
	strbuf_add(out, "[", 1);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strbuf_add(out, ",", 1);
		put_str(out, fields[v->idx[i]].key);
	}
	strbuf_add(out, "]", 1);
}

void job_view_write_row(const struct job_view *v, const struct job *job, struct strbuf *out)
{
	strbuf_add(out, "[", 1);
	for (size_t i = 0; i < v->n; i++) {
		const typeof(fields[0]) *f = &fields[v->idx[i]];
		if (i)
			strbuf_add(out, ",", 1);
		if (f->array_only && !job->array_job_id)
			strbuf_adds(out, "null");   /* as absent */
		else
			f->write(out, job);
	}
	strbuf_add(out, "]", 1);
}

void job_view_write(const struct job_view *v, const struct job *job, struct strbuf *out)
{
	bool first = true;

	strbuf_add(out, "{", 1);
	for (size_t i = 0; i < v->n; i++) {
		const typeof(fields[0]) *f = &fields[v->idx[i]];
		if (f->array_only && !job->array_job_id)
			continue;
		if (!first)
			strbuf_add(out, ",", 1);
		first = false;
		put_str(out, f->key);
		strbuf_add(out, ":", 1);
		f->write(out, job);
	}
	if (v->script && (job->uid == v->viewer || v->admin)) {
		strbuf_adds(out, first ? "\"script\":" : ",\"script\":");
		put_script(out, job);
	}
	strbuf_add(out, "}", 1);
}
