/* sreport's account tree (sreport_tree.c): SHARE_INFO's associations with
 * the usage charged to each row, for AccountUtilizationByUser and
 * SizesByAccount.  No I/O: the reports ask and print. */
#ifndef HERD_CMD_SREPORT_TREE_H
#define HERD_CMD_SREPORT_TREE_H
#include <jansson.h>
#include <stddef.h>

struct sreport_node {
	char *account, *user;        /* user NULL: an account's row */
	int parent, depth;
	long long secs;
	long long bucket[17];
};

struct sreport_tree {
	struct sreport_node *v;
	size_t n, cap;
};

/* SHARE_INFO's rows (in tree order, with depths) into t; parents found by
 * depth, a user's per-partition rows counted as one. */
void sreport_tree_build(struct sreport_tree *t, const json_t *shares);
/* A job's usage (bucket: SizesByAccount's column, -1 none) on its user's
 * row and every account above it; an account not in the tree gets rows of
 * its own at the top. */
void sreport_tree_charge(struct sreport_tree *t, const char *account, const char *user,
			 long long secs, int bucket);
/* The rows' indices in print order (caller frees), *n of them: depth
 * first, as the tree came (users then sub-accounts); rows added for unknown
 * accounts come after, each account then its users. */
int *sreport_tree_order(const struct sreport_tree *t, size_t *n);
void sreport_tree_free(struct sreport_tree *t);

#endif
