/* sreport's account tree with usage (AccountUtilizationByUser,
 * SizesByAccount): built from SHARE_INFO's rows, charged job by job,
 * walked in Slurm's print order.  Pure: no I/O. */
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.h"
#include "cmd/sreport_tree.h"
#include "common/xmalloc.h"

static int tree_add(struct sreport_tree *t, const char *account, const char *user, int parent,
		    int depth)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	struct sreport_node *n = &t->v[t->n];
	memset(n, 0, sizeof(*n));
	n->account = xstrdup(account);
	n->user = xstrdup(user);
	n->parent = parent;
	n->depth = depth;
	return (int)t->n++;
}

static int tree_find(const struct sreport_tree *t, const char *account, const char *user)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].account, account) &&
		    (user ? t->v[i].user && !strcmp(t->v[i].user, user) : !t->v[i].user))
			return (int)i;
	return -1;
}

void sreport_tree_free(struct sreport_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].account);
		free(t->v[i].user);
	}
	free(t->v);
}

void sreport_tree_build(struct sreport_tree *t, const json_t *shares)
{
	int stack[64];
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(shares, "shares"), i, row) {
		int depth = (int)cmd_jint(row, "depth");
		if (depth < 0 || depth >= 64)
			continue;
		const char *user = cmd_jstr(row, "user");
		if (*cmd_jstr(row, "partition") && *user && tree_find(t, cmd_jstr(row, "account"), user) >= 0)
			continue;   /* a user's per-partition rows count as one */
		int parent = depth ? stack[depth - 1] : -1;
		int k = tree_add(t, cmd_jstr(row, "account"), *user ? user : NULL, parent, depth);
		if (!*user)
			stack[depth] = k;
	}
}

void sreport_tree_charge(struct sreport_tree *t, const char *account, const char *user,
			 long long secs, int bucket)
{
	int k = tree_find(t, account, user);
	if (k < 0) {
		int a = tree_find(t, account, NULL);
		if (a < 0)
			a = tree_add(t, account, NULL, -1, 0);
		k = tree_add(t, account, user, a, t->v[a].depth + 1);
	}
	for (; k >= 0; k = t->v[k].parent) {
		t->v[k].secs += secs;
		if (bucket >= 0)
			t->v[k].bucket[bucket] += secs;
	}
}

/* Account k, its users, then its sub-accounts' rows. */
static void tree_order_visit(const struct sreport_tree *t, int k, int *out, size_t *n)
{
	out[(*n)++] = k;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].parent == k && t->v[i].user)
			out[(*n)++] = (int)i;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].parent == k && !t->v[i].user)
			tree_order_visit(t, (int)i, out, n);
}

int *sreport_tree_order(const struct sreport_tree *t, size_t *n)
{
	int *out = xmalloc((t->n + 1) * sizeof(int));
	*n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].parent < 0 && !t->v[i].user)
			tree_order_visit(t, (int)i, out, n);
	return out;
}
