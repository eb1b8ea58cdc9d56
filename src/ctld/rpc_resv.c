/* RESV_CREATE, RESV_UPDATE, RESV_DELETE, RESV_INFO: decoded and answered
 * here, done by the core's reservation code (resv.c).  A change is answered
 * once it is durable. */
#include <stdlib.h>
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "core/resv.h"

struct resv_reply {
	struct net_req *req;
	char *name;
};

static void reply_durable(void *arg, bool ok)
{
	struct resv_reply *c = arg;
	if (ok)
		net_respond(c->req, 0, json_pack("{s:s}", "name", c->name), NULL);
	else
		net_respond(c->req, HERD_ERR_INTERNAL, NULL, "Unable to save state (store commit failed)");
	free(c->name);
	free(c);
}

/* rc 0: answer with name (taken) once the change is committed. */
static void respond(struct net_req *req, int rc, char *name, const struct herd_error *err)
{
	if (rc != 0) {
		net_respond(req, rc, NULL, *err->text ? err->text : NULL);
		return;
	}
	struct resv_reply *c = xmalloc(sizeof(*c));
	*c = (struct resv_reply){ req, name };
	store_after_commit(reply_durable, c);
}

static const char *body_name(const struct net_req *req)
{
	return json_string_value(json_object_get(req->body, "name"));
}

void resv_create_rpc(struct net_req *req)
{
	struct herd_error err = { "" };
	char *name = NULL;

	if (!resv_may_manage(req->uid)) {
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	int rc = resv_create(req->body, req->uid, &name, &err);
	respond(req, rc, name, &err);
}

void resv_update_rpc(struct net_req *req)
{
	struct herd_error err = { "" };
	char *name = NULL;

	if (!resv_may_manage(req->uid)) {
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	int rc = resv_update(req->body, &name, &err);
	respond(req, rc, name, &err);
}

void resv_delete_rpc(struct net_req *req)
{
	struct herd_error err = { "" };
	const char *name = body_name(req);

	if (!resv_may_manage(req->uid)) {
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	int rc = resv_delete(name, req->uid);
	respond(req, rc, rc ? NULL : xstrdup(name), &err);
}

void resv_info_rpc(struct net_req *req)
{
	const char *name = body_name(req);
	time_t now = core_now();
	json_t *list = resv_info(name && *name ? name : NULL, now);
	net_respond(req, 0, json_pack("{s:o, s:I}", "reservations", list, "time", (json_int_t)now),
		    NULL);
}
