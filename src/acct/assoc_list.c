/* ACCT_MGR's list and dump: the rows of every entity as sacctmgr renders
 * them (counts -1 for none, TRES strings, walls in minutes), associations
 * in tree order, and what PrivateData hides from plain users.  Changes
 * nothing. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "acct/assoc_mgr.h"
#include "core/core.h"

/* ---- rows for list ---- */
static void obj_merge_new(json_t *o, json_t *other)
{
	json_object_update(o, other);
	json_decref(other);
}

static json_t *jnull_str(const char *s)
{
	return json_string(s ? s : "");
}

static json_t *tres_j(const tres_vec v)
{
	char *s = tres_string(v);
	json_t *j = json_string(s);
	free(s);
	return j;
}

/* The limit keys of a row: numbers (-1 none), TRES strings ("" none),
 * walls in minutes. */
static void limits_row(json_t *row, const struct acct_limits *l)
{
	json_object_set_new(row, "grp_jobs", json_integer(l->grp_jobs));
	json_object_set_new(row, "grp_submit", json_integer(l->grp_submit));
	json_object_set_new(row, "grp_wall", json_integer(l->grp_wall));
	json_object_set_new(row, "max_jobs", json_integer(l->max_jobs));
	json_object_set_new(row, "max_submit", json_integer(l->max_submit));
	json_object_set_new(row, "max_wall", json_integer(l->max_wall));
	json_object_set_new(row, "grp_tres", tres_j(l->grp_tres));
	json_object_set_new(row, "grp_tres_mins", tres_j(l->grp_tres_mins));
	json_object_set_new(row, "max_tres", tres_j(l->max_tres_per_job));
	json_object_set_new(row, "max_tres_per_node", tres_j(l->max_tres_per_node));
	json_object_set_new(row, "max_tres_mins", tres_j(l->max_tres_mins_per_job));
}

static json_t *assoc_row(const struct assoc *a)
{
	json_t *row = json_object();
	json_object_set_new(row, "id", json_integer(a->id));
	json_object_set_new(row, "cluster", json_string(a->cluster));
	json_object_set_new(row, "account", json_string(a->account));
	json_object_set_new(row, "user", jnull_str(a->user));
	json_object_set_new(row, "partition", jnull_str(a->partition));
	json_object_set_new(row, "parent_name", jnull_str(a->user ? NULL : a->parent_acct));
	json_object_set_new(row, "parent_id", json_integer(a->parent ? a->parent->id : 0));
	json_object_set_new(row, "share", a->shares == SHARES_PARENT ? json_string("parent")
								      : json_integer(a->shares));
	json_object_set_new(row, "depth", json_integer(assoc_depth(a)));
	limits_row(row, &a->lim);
	json_object_set_new(row, "qos", json_string(assoc_qos_effective(a)));
	json_object_set_new(row, "def_qos", jnull_str(a->default_qos));
	return row;
}

/* ---- visibility (PrivateData) ---- */
static bool may_see_user(const struct mgr *m, const char *user)
{
	if (!accounting.private_users || m->oper || !strcmp(user, m->uname))
		return true;
	/* a coordinator sees the users of the accounts it coordinates */
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && a->user && !strcmp(a->user, user) && acct_is_coord(m->uid, a->account))
			return true;
	return false;
}

static bool may_see_account(const struct mgr *m, const char *account)
{
	if (!accounting.private_accounts || m->oper)
		return true;
	return acct_user_in_account(m->uid, account) || acct_is_coord(m->uid, account);
}

static bool may_see_assoc(const struct mgr *m, const struct assoc *a)
{
	if (m->oper)
		return true;
	if (!may_see_account(m, a->account))
		return false;
	/* PrivateData=users: one's own associations, and those in the
	 * accounts one coordinates (no scan: this runs for every row) */
	if (!accounting.private_users || !a->user || !strcmp(a->user, m->uname))
		return true;
	return acct_is_coord(m->uid, a->account);
}

/* ---- association tree order ---- */
static int cmp_assoc(const void *x, const void *y)
{
	const struct assoc *a = *(const struct assoc *const *)x, *b = *(const struct assoc *const *)y;
	int c;
	/* Slurm lists an account's users before its sub-accounts */
	if (!a->user != !b->user)
		return a->user ? -1 : 1;
	if ((c = strcmp(a->user ? a->user : a->account, b->user ? b->user : b->account)))
		return c;
	return strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
}

/* Siblings next to each other: by parent, then in listing order. */
static int cmp_by_parent(const void *x, const void *y)
{
	const struct assoc *a = *(const struct assoc *const *)x, *b = *(const struct assoc *const *)y;
	uintptr_t pa = (uintptr_t)a->parent, pb = (uintptr_t)b->parent;
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return cmp_assoc(x, y);
}

struct tree {
	struct assoc **all;          /* sorted by cmp_by_parent */
	size_t n;
	bool *seen;
	struct assoc **out;
	size_t nout;
};

/* The first of node's children in t->all (they follow each other). */
static size_t first_child(const struct tree *t, const struct assoc *node)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((uintptr_t)t->all[mid]->parent < (uintptr_t)node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tree_walk(struct tree *t, size_t at, int depth)
{
	const struct assoc *node = t->all[at];
	if (t->seen[at])
		return;
	t->seen[at] = true;
	t->out[t->nout++] = t->all[at];
	if (depth > 1000)
		return;
	for (size_t i = first_child(t, node); i < t->n && t->all[i]->parent == node; i++)
		tree_walk(t, i, depth + 1);
}

static int cmp_root_cluster(const void *x, const void *y)
{
	const struct assoc *a = *(const struct assoc *const *)x, *b = *(const struct assoc *const *)y;
	return strcmp(a->cluster, b->cluster);
}

/* Every live association, clusters by name, each cluster's tree depth
 * first (users, then sub-accounts, by name).  Caller frees the array.
 * O(n log n): the whole list is asked for on every sacctmgr list. */
static struct assoc **assocs_tree_order(size_t *count)
{
	struct tree t = { 0 };
	size_t nroots = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		t.n += !a->deleted;
	t.all = xmalloc((t.n + 1) * sizeof(*t.all));
	t.out = xmalloc((t.n + 1) * sizeof(*t.out));
	t.seen = xmalloc(t.n + 1);
	struct assoc **roots = xmalloc((t.n + 1) * sizeof(*roots));
	t.n = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted)
			t.all[t.n++] = a;
	qsort(t.all, t.n, sizeof(*t.all), cmp_by_parent);
	for (size_t i = 0; i < t.n && !t.all[i]->parent; i++)
		if (!t.all[i]->user && !strcmp(t.all[i]->account, "root"))
			roots[nroots++] = t.all[i];
	qsort(roots, nroots, sizeof(*roots), cmp_root_cluster);
	for (size_t r = 0; r < nroots; r++)
		for (size_t i = 0; i < t.n && !t.all[i]->parent; i++)
			if (t.all[i] == roots[r])
				tree_walk(&t, i, 0);
	/* orphans (a parent lost in a broken store): listed last, not lost */
	for (size_t i = 0; i < t.n; i++)
		if (!t.seen[i])
			tree_walk(&t, i, 0);
	free(t.all);
	free(t.seen);
	free(roots);
	*count = t.nout;
	return t.out;
}

static json_t *cluster_row(const struct acct_cluster *c)
{
	struct assoc *root = assoc_find_exact(c->name, "root", NULL, NULL);
	json_t *row = root ? assoc_row(root) : json_object();
	bool self = !strcmp(c->name, core.cluster);
	json_object_set_new(row, "cluster", json_string(c->name));
	json_object_set_new(row, "control_host", json_string(self ? conf_ctld_host(core.conf) : ""));
	json_object_set_new(row, "control_port", json_integer(self ? conf_ctld_port(core.conf) : 0));
	json_object_set_new(row, "rpc", json_integer(self ? 9728 : 0));   /* 22.05's protocol */
	json_object_set_new(row, "created", json_integer(c->created));
	return row;
}

static int cmp_cluster(const void *x, const void *y)
{
	return strcmp((*(struct acct_cluster *const *)x)->name, (*(struct acct_cluster *const *)y)->name);
}

int mgr_list_cluster(struct mgr *m)
{
	static const char *const keys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	if (mgr_check_keys(m, m->where, keys, "cluster") < 0)
		return -1;
	mgr_names(m, &names, "cluster");
	size_t n = 0, k = 0;
	for (struct acct_cluster *c = accounting.clusters; c; c = c->next)
		n++;
	struct acct_cluster **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_cluster *c = accounting.clusters; c; c = c->next)
		if (!names.n || mgr_strv_has(&names, c->name))
			v[k++] = c;
	qsort(v, k, sizeof(*v), cmp_cluster);
	json_t *rows = json_array();
	for (size_t i = 0; i < k; i++)
		json_array_append_new(rows, cluster_row(v[i]));
	json_object_set_new(m->out, "rows", rows);
	free(v);
	mgr_strv_free(&names);
	return 0;
}

/* The accounts (or users) that have an association matching a filter:
 * one pass over the associations, then sorted for lookups. */
struct name_set {
	const char **v;
	size_t n;
};

static const char *account_name(const struct assoc *a)
{
	return a->account;
}

static const char *user_name(const struct assoc *a)
{
	return a->user;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void name_set_fill(struct name_set *s, const struct assoc_filter *f,
			  const char *(*name)(const struct assoc *))
{
	size_t n = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		n++;
	s->v = xmalloc((n + 1) * sizeof(*s->v));
	s->n = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && name(a) && mgr_filter_match(f, a))
			s->v[s->n++] = name(a);
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

static bool name_in(const struct name_set *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str);
}

/* withassoc: the associations of the listed objects (names sorted in v),
 * grouped by object in v's order, each group in tree order.  O(n log n). */
struct pick {
	size_t group, pos;
};

static const char *account_key(const struct assoc *a)
{
	return a->account;
}

static const char *user_key(const struct assoc *a)
{
	return a->user;
}

static int cmp_pick(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* names: the listed objects' names, sorted; key: the name an association
 * belongs to (its account's, its user's). */
static struct pick *pick_rows(struct assoc *const *order, size_t na, const char *const *names,
			      size_t k, const char *(*key)(const struct assoc *), size_t *np)
{
	struct pick *picks = xmalloc((na + 1) * sizeof(*picks));
	size_t n = 0;
	for (size_t j = 0; j < na; j++) {
		const char *name = key(order[j]);
		size_t lo = 0, hi = k;
		if (!name)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(names[mid], name);
			if (!c) {
				picks[n++] = (struct pick){ mid, j };
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	qsort(picks, n, sizeof(*picks), cmp_pick);
	*np = n;
	return picks;
}

static int cmp_account(const void *x, const void *y)
{
	return strcmp((*(struct acct_account *const *)x)->name, (*(struct acct_account *const *)y)->name);
}

static json_t *account_row(const struct acct_account *a)
{
	json_t *coords = json_array();
	for (char **p = a->coords; p && *p; p++)
		json_array_append_new(coords, json_string(*p));
	return json_pack("{s:s, s:s, s:s, s:s, s:o}", "account", a->name, "descr",
			 a->description ? a->description : "", "org",
			 a->organization ? a->organization : "", "flags",
			 a->flags & ACCT_FLAG_TEAMJOBS ? "TeamJobs" : "", "coordinators", coords);
}

int mgr_list_account(struct mgr *m)
{
	static const char *const keys[] = { "name", "account", "cluster", "description",
					    "organization", "parent", "user", "flags", NULL };
	struct strv names = { 0 }, descr = { 0 }, org = { 0 };
	struct assoc_filter f;
	bool withassoc = mgr_option(m, "withassoc");
	if (mgr_check_keys(m, m->where, keys, "account") < 0)
		return -1;
	mgr_names(m, &names, "account");
	mgr_strv_split(&descr, mgr_where(m, "description"));
	mgr_strv_split(&org, mgr_where(m, "organization"));
	mgr_filter_fill(m, &f);
	mgr_strv_free(&f.accounts);
	struct name_set having = { 0 };
	if (f.parents.n || f.clusters.n) {
		f.accounts_only = true;
		name_set_fill(&having, &f, account_name);
		f.accounts_only = false;
	}
	size_t n = 0, k = 0;
	for (struct acct_account *a = accounting.accounts; a; a = a->next)
		n++;
	struct acct_account **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_account *a = accounting.accounts; a; a = a->next) {
		if (names.n && !mgr_strv_has(&names, a->name))
			continue;
		if (descr.n && !mgr_strv_has(&descr, a->description ? a->description : ""))
			continue;
		if (org.n && !mgr_strv_has(&org, a->organization ? a->organization : ""))
			continue;
		if (!may_see_account(m, a->name))
			continue;
		/* filtered by where the account hangs */
		if ((f.parents.n || f.clusters.n) && !name_in(&having, a->name))
			continue;
		v[k++] = a;
	}
	qsort(v, k, sizeof(*v), cmp_account);
	json_t *rows = json_array();
	if (withassoc) {
		size_t na, np;
		struct assoc **order = assocs_tree_order(&na);
		const char **vn = xmalloc((k + 1) * sizeof(*vn));
		for (size_t i = 0; i < k; i++)
			vn[i] = v[i]->name;
		struct pick *picks = pick_rows(order, na, vn, k, account_key, &np);
		free(vn);
		for (size_t p = 0; p < np; p++) {
			const struct assoc *a = order[picks[p].pos];
			if (!mgr_filter_match(&f, a) || !may_see_assoc(m, a))
				continue;
			json_t *row = assoc_row(a);
			obj_merge_new(row, account_row(v[picks[p].group]));
			json_array_append_new(rows, row);
		}
		free(picks);
		free(order);
	} else {
		for (size_t i = 0; i < k; i++)
			json_array_append_new(rows, account_row(v[i]));
	}
	json_object_set_new(m->out, "rows", rows);
	free(v);
	mgr_strv_free(&names);
	mgr_strv_free(&descr);
	mgr_strv_free(&org);
	mgr_filter_free(&f);
	free(having.v);
	return 0;
}

static int cmp_user(const void *x, const void *y)
{
	return strcmp((*(struct acct_user *const *)x)->name, (*(struct acct_user *const *)y)->name);
}

static json_t *user_row(const struct acct_user *u)
{
	json_t *coords = json_array();
	for (struct acct_account *a = accounting.accounts; a; a = a->next)
		if (acct_account_has_coord(a, u->name))
			json_array_append_new(coords, json_string(a->name));
	/* "coordinators" too: format=Coordinators of a user list is Slurm's
	 * "Coord Accounts" */
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:O}", "user", u->name, "default_account",
			 u->default_account ? u->default_account : "", "admin", mgr_admin_name(u->admin),
			 "default_wckey", u->default_wckey ? u->default_wckey : "", "uid",
			 (json_int_t)(u->uid == (uid_t)-1 ? -1 : (json_int_t)u->uid), "coord_accounts",
			 coords, "coordinators", coords);
}

int mgr_list_user(struct mgr *m)
{
	static const char *const keys[] = { "name", "user", "account", "cluster", "partition",
					    "adminlevel", "defaultaccount", NULL };
	struct strv names = { 0 }, dflt = { 0 };
	struct assoc_filter f;
	enum admin_level lvl = ADMIN_NONE;
	const char *admin_s = mgr_where(m, "adminlevel");
	bool withassoc = mgr_option(m, "withassoc");
	if (mgr_check_keys(m, m->where, keys, "user") < 0)
		return -1;
	if (admin_s && mgr_parse_admin(m, admin_s, &lvl) < 0)
		return -1;
	mgr_names(m, &names, "user");
	mgr_strv_split(&dflt, mgr_where(m, "defaultaccount"));
	mgr_filter_fill(m, &f);
	mgr_strv_free(&f.users);
	f.users_only = true;
	struct name_set having = { 0 };
	if (f.accounts.n || f.partitions.n)
		name_set_fill(&having, &f, user_name);
	size_t n = 0, k = 0;
	for (struct acct_user *u = accounting.users; u; u = u->next)
		n++;
	struct acct_user **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_user *u = accounting.users; u; u = u->next) {
		if (names.n && !mgr_strv_has(&names, u->name))
			continue;
		if (admin_s && u->admin != lvl)
			continue;
		if (dflt.n && (!u->default_account || !mgr_strv_has(&dflt, u->default_account)))
			continue;
		if (!may_see_user(m, u->name))
			continue;
		if ((f.accounts.n || f.partitions.n) && !name_in(&having, u->name))
			continue;
		v[k++] = u;
	}
	qsort(v, k, sizeof(*v), cmp_user);
	json_t *rows = json_array();
	if (withassoc) {
		size_t na, np, p = 0;
		struct assoc **order = assocs_tree_order(&na);
		const char **vn = xmalloc((k + 1) * sizeof(*vn));
		for (size_t i = 0; i < k; i++)
			vn[i] = v[i]->name;
		struct pick *picks = pick_rows(order, na, vn, k, user_key, &np);
		free(vn);
		for (size_t i = 0; i < k; i++) {
			bool any = false;
			for (; p < np && picks[p].group == i; p++) {
				const struct assoc *a = order[picks[p].pos];
				if (!mgr_filter_match(&f, a) || !may_see_assoc(m, a))
					continue;
				json_t *row = assoc_row(a);
				obj_merge_new(row, user_row(v[i]));
				json_array_append_new(rows, row);
				any = true;
			}
			if (!any && !f.accounts.n && !f.partitions.n)
				json_array_append_new(rows, user_row(v[i]));
		}
		free(picks);
		free(order);
	} else {
		for (size_t i = 0; i < k; i++)
			json_array_append_new(rows, user_row(v[i]));
	}
	json_object_set_new(m->out, "rows", rows);
	free(v);
	mgr_strv_free(&names);
	mgr_strv_free(&dflt);
	mgr_filter_free(&f);
	free(having.v);
	return 0;
}

static json_t *qos_row(const struct acct_qos *q)
{
	json_t *row = json_object();
	char flags[512] = "";
	for (unsigned bit = 1; bit && bit <= 0x200u; bit <<= 1)
		if ((q->flags & bit) && qos_flag_name(bit)) {
			if (*flags)
				strcat(flags, ",");
			strcat(flags, qos_flag_name(bit));
		}
	json_object_set_new(row, "name", json_string(q->name));
	json_object_set_new(row, "id", json_integer(q->id));
	json_object_set_new(row, "description", jnull_str(q->description));
	json_object_set_new(row, "priority", json_integer(q->priority));
	json_object_set_new(row, "usage_factor", json_real(q->usage_factor));
	json_object_set_new(row, "preempt", jnull_str(q->preempt));
	json_object_set_new(row, "preempt_mode", json_string(q->preempt_mode ? q->preempt_mode : "cluster"));
	json_object_set_new(row, "flags", json_string(flags));
	limits_row(row, &q->lim);
	/* per user: MaxJobsPU/MaxSubmitPU are lim.max_jobs/max_submit */
	json_object_set_new(row, "max_jobs_pu", json_integer(q->lim.max_jobs));
	json_object_set_new(row, "max_submit_pu", json_integer(q->lim.max_submit));
	json_object_del(row, "max_jobs");
	json_object_del(row, "max_submit");
	json_object_set_new(row, "max_tres_pu", tres_j(q->max_tres_per_user));
	return row;
}

int mgr_list_qos(struct mgr *m)
{
	static const char *const keys[] = { "name", "id", "description", NULL };
	struct strv names = { 0 }, ids = { 0 };
	if (mgr_check_keys(m, m->where, keys, "qos") < 0)
		return -1;
	mgr_names(m, &names, NULL);
	mgr_strv_split(&ids, mgr_where(m, "id"));
	json_t *rows = json_array();
	for (struct acct_qos *q = accounting.qos; q; q = q->next) {
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if ((names.n && !mgr_strv_has(&names, q->name)) || (ids.n && !mgr_strv_has(&ids, id)))
			continue;
		json_array_append_new(rows, qos_row(q));
	}
	json_object_set_new(m->out, "rows", rows);
	mgr_strv_free(&names);
	mgr_strv_free(&ids);
	return 0;
}

int mgr_list_coord(struct mgr *m)
{
	static const char *const keys[] = { "name", "user", "account", NULL };
	struct strv users = { 0 }, accounts = { 0 };
	if (mgr_check_keys(m, m->where, keys, "coordinator") < 0)
		return -1;
	mgr_names(m, &users, "user");
	mgr_strv_split(&accounts, mgr_where(m, "account"));
	json_t *rows = json_array();
	for (struct acct_account *a = accounting.accounts; a; a = a->next)
		for (char **p = a->coords; *p; p++)
			if ((!users.n || mgr_strv_has(&users, *p)) && (!accounts.n || mgr_strv_has(&accounts, a->name)) &&
			    may_see_account(m, a->name))
				json_array_append_new(rows, json_pack("{s:s, s:s}", "account", a->name,
								      "user", *p));
	json_object_set_new(m->out, "rows", rows);
	mgr_strv_free(&users);
	mgr_strv_free(&accounts);
	return 0;
}

/* ---- association, tres ---- */
int mgr_list_assoc(struct mgr *m)
{
	struct assoc_filter f;
	struct strv names = { 0 };
	if (mgr_check_keys(m, m->where, mgr_where_assoc_keys, "association") < 0)
		return -1;
	mgr_filter_fill(m, &f);
	mgr_names(m, &names, NULL);
	/* bare names after "list association" are accounts, as in Slurm */
	for (size_t i = 0; i < names.n; i++)
		if (!mgr_strv_has(&f.accounts, names.v[i]))
			mgr_strv_push(&f.accounts, names.v[i]);
	size_t n;
	struct assoc **order = assocs_tree_order(&n);
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++)
		if (mgr_filter_match(&f, order[i]) && may_see_assoc(m, order[i]))
			json_array_append_new(rows, assoc_row(order[i]));
	json_object_set_new(m->out, "rows", rows);
	free(order);
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return 0;
}

int mgr_list_tres(struct mgr *m)
{
	static const char *const keys[] = { "name", "type", "id", NULL };
	struct strv names = { 0 }, types = { 0 }, ids = { 0 };
	if (mgr_check_keys(m, m->where, keys, "tres") < 0)
		return -1;
	mgr_names(m, &names, NULL);
	mgr_strv_split(&types, mgr_where(m, "type"));
	mgr_strv_split(&ids, mgr_where(m, "id"));
	json_t *rows = json_array();
	for (int t = 0; t < TRES_COUNT; t++) {
		const char *full = tres_name(t), *slash = strchr(full, '/');
		char *type = slash ? xstrndup(full, slash - full) : xstrdup(full);
		const char *name = slash ? slash + 1 : "";
		char id[16];
		snprintf(id, sizeof(id), "%d", tres_id(t));
		if ((!names.n || mgr_strv_has(&names, name) || mgr_strv_has(&names, full)) &&
		    (!types.n || mgr_strv_has(&types, type)) && (!ids.n || mgr_strv_has(&ids, id)))
			json_array_append_new(rows, json_pack("{s:s, s:s, s:i}", "type", type, "name", name,
							      "id", tres_id(t)));
		free(type);
	}
	json_object_set_new(m->out, "rows", rows);
	mgr_strv_free(&names);
	mgr_strv_free(&types);
	mgr_strv_free(&ids);
	return 0;
}

/* ---- dump ---- */
/* dump: the cluster's tree in order, each row with its account's or
 * user's record; sacctmgr writes Slurm's flat file from it. */
int mgr_dump_cluster(struct mgr *m)
{
	struct strv names = { 0 };
	mgr_names(m, &names, "cluster");
	const char *cl = names.n ? names.v[0] : core.cluster;
	if (!acct_cluster_find(cl)) {
		mgr_strv_free(&names);
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Cluster '%.60s' doesn't exist", cl);
	}
	/* Slurm: only administrators dump clusters */
	if (!m->admin) {
		mgr_strv_free(&names);
		return mgr_fail(m, HERD_ERR_ACCESS,
				"Your user does not have sufficient privileges to dump clusters.");
	}
	size_t n;
	struct assoc **order = assocs_tree_order(&n);
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++) {
		if (strcmp(order[i]->cluster, cl))
			continue;
		json_t *row = assoc_row(order[i]);
		if (order[i]->user) {
			struct acct_user *u = acct_user_find(order[i]->user);
			if (u)
				obj_merge_new(row, user_row(u));
			json_object_set_new(row, "wckeys", wckey_names_of(order[i]->user, cl));
		} else {
			struct acct_account *a = acct_account_find(order[i]->account);
			if (a) {
				json_t *ar = account_row(a);
				json_object_update(row, ar);
				json_decref(ar);
			}
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(m->out, "cluster", json_string(cl));
	json_object_set_new(m->out, "rows", rows);
	free(order);
	mgr_strv_free(&names);
	return 0;
}
