/* STEP_INFO: the steps of the jobs a user may see, as squeue -s and
 * scontrol show step list them, with the batch step of a running batch
 * job (N.batch), which the controller keeps no record of. */
#include <jansson.h>
#include <time.h>
#include "ctld/ctld.h"
#include "ctld/step_impl.h"

static void info_job(struct job *job, json_t *out, uid_t uid)
{
	if (!roles_may_see_job(uid, job))
		return;   /* PrivateData=jobs: its steps too */
	for (struct step *s = job->steps; s; s = s->next) {
		json_t *o = step_to_json(job, s);
		json_object_set_new(o, "user", json_string(job->user ? job->user : ""));
		json_object_set_new(o, "partition", json_string(job->part ? job->part->name : ""));
		json_object_set_new(o, "array_job_id", json_integer(job->array_job_id));
		json_object_set_new(o, "array_task_id", json_integer(job->array_task_id));
		json_array_append_new(out, o);
	}
	/* The batch step of a running batch job, as squeue -s lists it. */
	if (!job->alloc_only && job->nalloc && (job->state == JOB_RUNNING || job->state == JOB_COMPLETING)) {
		char ids[32] = "";
		json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:I, s:I, s:s, s:i, s:i, s:i, s:I, s:s, s:s,"
				      " s:I, s:I, s:i, s:I}",
				      "job_id", (json_int_t)job->id, "step_id", (json_int_t)STEP_BATCH,
				      "name", "batch", "state", "RUNNING",
				      "start_time", (json_int_t)job->start_time, "end_time", (json_int_t)0,
				      "nodes", core.nodes[job_batch_node(job)].name, "num_nodes", 1,
				      "num_tasks", 1, "cpus_per_task", (int)(job->cpus_per_task ?: 1),
				      "time_limit", (json_int_t)-1, "user", job->user ? job->user : "",
				      "partition", job->part ? job->part->name : "",
				      "array_job_id", (json_int_t)job->array_job_id,
				      "array_task_id", (json_int_t)job->array_task_id,
				      "exit_code", 0, "uid", (json_int_t)job->uid);
		json_object_set_new(o, "num_cpus", json_integer(job->alloc_cpus[0]));
		json_object_set_new(o, "tasks_per_node", json_string("1"));
		json_object_set_new(o, "failed_node", json_string(""));
		(void)ids;
		json_array_append_new(out, o);
	}
}

struct info_ctx {
	json_t *out;
	uid_t uid;
};

static void info_one(struct job *job, void *arg)
{
	struct info_ctx *c = arg;
	if (job->steps || ((job->state == JOB_RUNNING || job->state == JOB_COMPLETING) && job->nalloc))
		info_job(job, c->out, c->uid);
}

void step_info(struct net_req *req)
{
	json_t *ids = json_object_get(req->body, "job_ids"), *v;
	struct info_ctx c = { json_array(), req->uid };
	size_t i;

	if (ids) {
		json_array_foreach(ids, i, v) {
			struct job *job = job_find(json_integer_value(v));
			if (job)
				info_job(job, c.out, req->uid);
		}
	} else {
		job_foreach(info_one, &c);
	}
	net_respond(req, 0, json_pack("{s:o, s:I}", "steps", c.out, "time", (json_int_t)core_now()),
		    NULL);
}
