/* herd sim's trace users as associations, so that fair-share (fair tree
 * and classic) tells them apart: user u<N> under account g<G> under root,
 * as `sacctmgr add account g<G>` and `sacctmgr add user u<N>
 * account=g<G>` would make them (the accounting's own handlers, not a copy
 * of them).  A user the core already knows (an accounts file's) keeps
 * what it has. */
#include <stdio.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/assoc.h"
#include "ctld/ctld.h"
#include "herd/sim_core.h"

/* One ACCT_MGR add of entity `name` with set's keys, as root. */
static int add(const char *entity, const char *name, json_t *set, struct herd_error *err)
{
	json_t *body = json_pack("{s:s, s:s, s:[s], s:o}", "op", "add", "entity", entity, "names",
				 name, "set", set);
	int rc = assoc_mgr_local(0, body, err);
	json_decref(body);
	return rc;
}

int sim_assoc_add(const struct sim_arrival *arr, size_t n, struct herd_error *err)
{
	for (size_t i = 0; i < n; i++) {
		/* names_* lend a cache slot that the next lookup may reuse */
		char user[64], account[64];
		snprintf(user, sizeof(user), "%s", names_user(arr[i].uid));
		if (acct_user_find(user))
			continue;
		snprintf(account, sizeof(account), "%s", names_group(arr[i].gid));
		if ((!acct_account_find(account) &&
		     add("account", account, json_pack("{s:s}", "parent", "root"), err) < 0) ||
		    add("user", user, json_pack("{s:s}", "account", account), err) < 0)
			return -1;
	}
	return 0;
}
