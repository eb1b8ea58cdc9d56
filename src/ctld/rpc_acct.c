/* ACCT_MGR (sacctmgr) and SHARE_INFO (sshare): decoded and answered here,
 * done by the accounting's code (acct/assoc_mgr.c, acct/usage.c).  A change
 * is answered once it is durable. */
#include <stdlib.h>
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct mgr_reply {
	struct net_req *req;
	json_t *body;
};

static void reply_durable(void *arg, bool ok)
{
	struct mgr_reply *r = arg;
	if (ok) {
		net_respond(r->req, 0, r->body, NULL);
	} else {
		json_decref(r->body);
		net_respond(r->req, HERD_ERR_INTERNAL, NULL, "Unable to save state (store commit failed)");
	}
	free(r);
}

void assoc_rpc(struct net_req *req)
{
	struct herd_error err = { "" };
	json_t *out;
	bool changed;
	int rc = assoc_mgr_request(req->uid, req->body, &out, &changed, &err);

	if (rc != 0) {
		net_respond(req, rc, NULL, err.text);
	} else if (changed) {
		struct mgr_reply *r = xmalloc(sizeof(*r));
		*r = (struct mgr_reply){ req, out };
		store_after_commit(reply_durable, r);
	} else {
		net_respond(req, 0, out, NULL);
	}
}

void usage_rpc(struct net_req *req)
{
	net_respond(req, 0, usage_share_info(req->body, req->uid), NULL);
}
