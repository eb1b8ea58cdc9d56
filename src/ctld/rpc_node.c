/* NODE_REGISTER and UPDATE_NODE: decoded and answered here, done by the
 * core's node code (node.c). */
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
