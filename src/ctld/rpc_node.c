/* NODE_REGISTER and UPDATE_NODE: decoded and answered here, done by the
 * core's node code (node.c).  GPU_USAGE: a step's GPU samples, kept in its
 * job's record. */
#include <string.h>
#include "common/gres.h"
#include "ctld/ctld.h"

void node_register(struct net_req *req)
{
	bool first;
	int idx = node_report(req->body, &first);

	if (idx < 0) {
		net_respond(req, HERD_ERR_INVALID_NODE, NULL, NULL);
		return;
	}
	/* Steps are the daemon's: reconciled when the node says which run there
	 * (an older herdd does not) and they are fewer than we think. */
	const struct node *n = &core.nodes[idx];
	json_t *steps = json_object_get(req->body, "steps");
	time_t now = core_now();
	if (json_is_array(steps) && (int)json_array_size(steps) < n->nsteps &&
	    (!first || core.start_time + 5 < now))
		step_reconcile(idx, steps, now);
	net_respond(req, 0, NULL, NULL);
}

void node_update(struct net_req *req)
{
	const json_t *b = req->body;
	struct herd_error err = { "" };

	if (!core_is_admin(req->uid)) {
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	int rc = node_admin(json_string_value(json_object_get(b, "nodes")),
			    json_string_value(json_object_get(b, "state")),
			    json_string_value(json_object_get(b, "reason")), names_user(req->uid), &err);
	if (rc != 0)
		net_respond(req, rc, NULL, *err.text ? err.text : NULL);
	else
		respond_durable(req, 0, false);
}

/* GPU_USAGE (doc/gres.md section 4): the GPUs of step S of job J on one
 * node, sampled by its herdd.  Kept in the job's "gpu_usage" (its record,
 * for sacct's TRESUsageIn* gres/gpumem and gres/gpuutil) over its nodes:
 * the largest node's peak (max), the nodes' peaks added (tot), their
 * averages added (ave_sum, over nodes).  A node reports a step once; a
 * report again (a retry) or from a node the job does not hold is left out. */
void node_gpu_usage(struct net_req *req)
{
	const json_t *b = req->body;
	json_int_t job_id = json_integer_value(json_object_get(b, "job_id"));
	json_int_t step_id = json_integer_value(json_object_get(b, "step_id"));
	const char *node = json_string_value(json_object_get(b, "node"));
	static const char *const keys[] = { "mem_max_mb", "mem_ave_mb", "util_max", "util_ave" };
	json_int_t v[4];
	struct job *job;
	bool held = false;
	char key[16];

	for (int k = 0; k < 4; k++) {
		v[k] = json_integer_value(json_object_get(b, keys[k]));
		if (v[k] < 0 || v[k] > (INT64_C(1) << 40)) {
			net_respond(req, HERD_ERR_INVALID_ARG, NULL, "GPU_USAGE: a count out of range");
			return;
		}
	}
	if (job_id <= 0 || job_id > UINT32_MAX || step_id < 0 || step_id > UINT32_MAX) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "GPU_USAGE: job_id or step_id out of range");
		return;
	}
	job = job_find((uint32_t)job_id);
	for (int i = 0; job && i < job->nalloc; i++)
		held |= !strcmp(core.nodes[job->alloc_node[i]].name, node);
	if (!held || !gres_tres_tracked(conf_get(core.conf, "AccountingStorageTRES"), "gres/gpumem")) {
		net_respond(req, 0, NULL, NULL);   /* gone, or not ours to keep */
		return;
	}
	if (!job->gpu_usage)
		job->gpu_usage = json_object();
	snprintf(key, sizeof(key), "%u", (unsigned)step_id);
	json_t *u = json_object_get(job->gpu_usage, key);
	if (!u) {
		u = json_pack("{s:[], s:I, s:I, s:I, s:I, s:I, s:I}", "nodes", "mem_max", (json_int_t)0,
			      "mem_tot", (json_int_t)0, "mem_ave_sum", (json_int_t)0, "util_max",
			      (json_int_t)0, "util_tot", (json_int_t)0, "util_ave_sum", (json_int_t)0);
		json_object_set_new(job->gpu_usage, key, u);
	}
	json_t *nodes = json_object_get(u, "nodes");
	size_t i;
	json_t *seen;
	json_array_foreach(nodes, i, seen)
		if (!strcmp(json_string_value(seen) ?: "", node)) {
			net_respond(req, 0, NULL, NULL);
			return;
		}
	json_array_append_new(nodes, json_string(node));
#define ADD(field, value) json_object_set_new(u, field, json_integer( \
		json_integer_value(json_object_get(u, field)) + (value)))
#define UP_TO(field, value) if ((value) > json_integer_value(json_object_get(u, field))) \
		json_object_set_new(u, field, json_integer(value))
	UP_TO("mem_max", v[0]);
	ADD("mem_tot", v[0]);
	ADD("mem_ave_sum", v[1]);
	UP_TO("util_max", v[2]);
	ADD("util_tot", v[2]);
	ADD("util_ave_sum", v[3]);
#undef ADD
#undef UP_TO
	store_job_update(job);
	net_respond(req, 0, NULL, NULL);
}
