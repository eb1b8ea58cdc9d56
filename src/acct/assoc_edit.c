/* ACCT_MGR's add, modify and delete of clusters, accounts, users and
 * coordinators.  Each handler checks the whole request first, then
 * (unless it is a dry run) changes the objects and queues their rows.
 * Who may: operators and administrators, coordinators within their
 * accounts (Slurm's sacctmgr(1)); QOS are assoc_qos.c's. */
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

/* ---- cluster ---- */
int mgr_add_cluster(struct mgr *m)
{
	static const char *const keys[] = { "name", "fairshare", "grptres", "grpjobs",
					    "grpsubmitjobs", "maxjobs", "maxsubmitjobs", "maxwall",
					    "maxtresperjob", "qos", "defaultqos", NULL };
	struct strv names = { 0 };
	struct assoc_change chg;
	json_t *added = json_array();
	json_object_set_new(m->out, "added", added);
	if (mgr_check_keys(m, m->set, keys, "cluster") < 0 || mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!m->admin)
		return mgr_denied(m);
	mgr_names(m, &names, NULL);
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Need name of cluster to add");
	if (mgr_names_ok(m, &names, "cluster") < 0) {
		mgr_strv_free(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		if (acct_cluster_find(names.v[i]))
			continue;
		json_array_append_new(added, json_string(names.v[i]));
		if (m->dry_run)
			continue;
		acct_cluster_save(acct_cluster_new(names.v[i]));
		struct assoc *a = assoc_new(0, names.v[i], "root", NULL, NULL);
		a->qos_list = xstrdup("normal");
		mgr_change_apply(a, &chg);
		assoc_save(a);
		m->changed = true;
	}
	mgr_strv_free(&names);
	return 0;
}

int mgr_modify_cluster(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	struct assoc_change chg;
	json_t *mod = json_array();
	json_object_set_new(m->out, "assocs", mod);
	if (mgr_check_keys(m, m->where, wkeys, "cluster") < 0 ||
	    mgr_check_keys(m, m->set, mgr_assoc_keys, "cluster") < 0 || mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!m->admin)
		return mgr_denied(m);
	mgr_names(m, &names, "cluster");
	for (size_t i = 0; i < names.n; i++) {
		struct assoc *a = assoc_find_exact(names.v[i], "root", NULL, NULL);
		if (a && mgr_change_check_qos(m, a, &chg) < 0) {
			mgr_strv_free(&names);
			return -1;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		struct assoc *a = assoc_find_exact(names.v[i], "root", NULL, NULL);
		if (!a)
			continue;
		json_array_append_new(mod, mgr_assoc_ref(a));
		if (m->dry_run)
			continue;
		mgr_change_apply(a, &chg);
		assoc_save(a);
		m->changed = true;
	}
	mgr_strv_free(&names);
	return 0;
}

static void fix_default_account(const char *user);

/* Has user an association under account on this cluster (any partition)? */
static bool has_assoc_in(const char *user, const char *account)
{
	if (assoc_find(account, user, NULL))
		return true;
	for (const struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && a->user && !strcmp(a->user, user) && !strcmp(a->account, account) &&
		    !strcmp(a->cluster, core.cluster))
			return true;
	return false;
}

int mgr_delete_cluster(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	json_t *del = json_array();
	json_object_set_new(m->out, "deleted", del);
	if (mgr_check_keys(m, m->where, wkeys, "cluster") < 0)
		return -1;
	if (!m->admin)
		return mgr_denied(m);
	mgr_names(m, &names, "cluster");
	for (size_t i = 0; i < names.n; i++)
		if (!strcmp(names.v[i], core.cluster)) {
			mgr_fail(m, HERD_ERR_INVALID_ARG,
				 "Cluster '%.60s' is this controller's own (ClusterName); it cannot be deleted",
				 names.v[i]);
			mgr_strv_free(&names);
			return -1;
		}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_cluster *c = acct_cluster_find(names.v[i]);
		if (!c)
			continue;
		json_array_append_new(del, json_string(c->name));
		if (m->dry_run)
			continue;
		struct strv users = { 0 };
		for (struct assoc *a = accounting.assocs; a; a = a->next)
			if (!a->deleted && !strcmp(a->cluster, c->name)) {
				if (a->user && !mgr_strv_has(&users, a->user))
					mgr_strv_push(&users, a->user);
				assoc_remove(a);
			}
		wckey_drop_cluster(c->name);
		acct_cluster_remove(c);
		/* a user whose default account was there gets one it still has */
		for (size_t j = 0; j < users.n; j++)
			fix_default_account(users.v[j]);
		mgr_strv_free(&users);
		m->changed = true;
	}
	mgr_strv_free(&names);
	return 0;
}

/* May the requester change account a's association (or add under it)?
 * Operators; coordinators of an account strictly above it. */
static bool may_manage_subaccount(const struct mgr *m, const char *account)
{
	if (m->oper)
		return true;
	struct assoc *a = assoc_find_account(account);
	return a && a->parent && acct_is_coord(m->uid, a->parent->account);
}

/* Everything an add account checks, before anything is made. */
static int add_account_check(struct mgr *m, const struct strv *names, const struct strv *clusters,
			     const char *parent, const struct assoc_change *chg)
{
	if (!names->n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Need name of account to add");
	if (mgr_names_ok(m, names, "account") < 0)
		return -1;
	if (!m->oper && !acct_is_coord(m->uid, parent))
		return mgr_denied(m);
	for (size_t c = 0; c < clusters->n; c++) {
		if (!acct_cluster_find(clusters->v[c]))
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "Cluster '%.60s' doesn't exist", clusters->v[c]);
		struct assoc *pa = assoc_find_exact(clusters->v[c], parent, NULL, NULL);
		if (!pa)
			return mgr_fail(m, HERD_ERR_INVALID_ARG,
				    "Parent account '%.60s' doesn't exist on cluster '%.40s'", parent,
				    clusters->v[c]);
		for (size_t i = 0; i < names->n; i++) {
			if (!strcmp(names->v[i], parent))
				return mgr_fail(m, HERD_ERR_INVALID_ARG,
					    "Account '%.60s' can't be its own parent", parent);
			/* a new association's QOS is checked as if made under pa */
			struct assoc probe = { .account = names->v[i], .parent = pa, .shares = 1 };
			if (mgr_change_check_qos(m, &probe, chg) < 0)
				return -1;
		}
	}
	return 0;
}

int mgr_add_account(struct mgr *m)
{
	static const char *const keys[] = {
		"name", "cluster", "description", "organization", "parent", "flags", "fairshare",
		"grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxjobs",
		"maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode", "maxtresminsperjob",
		"qos", "defaultqos", NULL
	};
	struct strv names = { 0 }, clusters = { 0 };
	struct assoc_change chg;
	const char *parent = mgr_set(m, "parent"), *descr = mgr_set(m, "description"),
		   *org = mgr_set(m, "organization"), *flags = mgr_set(m, "flags");
	unsigned fl = 0;
	json_t *added = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "added", added);
	json_object_set_new(m->out, "assocs", assocs);
	if (mgr_check_keys(m, m->set, keys, "account") < 0 || mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (flags && mgr_parse_account_flags(m, flags, 0, &fl) < 0)
		return -1;
	if (!parent || !*parent)
		parent = "root";
	mgr_names(m, &names, NULL);
	mgr_strv_split(&clusters, mgr_set(m, "cluster"));
	if (!clusters.n)
		mgr_strv_push(&clusters, core.cluster);
	if (add_account_check(m, &names, &clusters, parent, &chg) < 0) {
		mgr_strv_free(&names);
		mgr_strv_free(&clusters);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		if (!acc) {
			json_array_append_new(added, json_string(names.v[i]));
			if (!m->dry_run) {
				acc = acct_account_new(names.v[i]);
				acc->description = xstrdup(descr ? descr : names.v[i]);
				acc->organization = xstrdup(org ? org : mgr_org_default(names.v[i], parent));
				acc->flags = fl;
				acct_account_save(acc);
				m->changed = true;
			}
		}
		for (size_t c = 0; c < clusters.n; c++) {
			if (assoc_find_exact(clusters.v[c], names.v[i], NULL, NULL))
				continue;
			json_array_append_new(assocs, json_pack("{s:s, s:s, s:s}", "cluster", clusters.v[c],
								"account", names.v[i], "parent", parent));
			if (m->dry_run)
				continue;
			struct assoc *a = assoc_new(0, clusters.v[c], names.v[i], NULL, NULL);
			a->parent_acct = xstrdup(parent);
			a->parent = assoc_find_exact(clusters.v[c], parent, NULL, NULL);
			mgr_change_apply(a, &chg);
			assoc_save(a);
			m->changed = true;
		}
	}
	mgr_strv_free(&names);
	mgr_strv_free(&clusters);
	return 0;
}

int mgr_modify_account(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "account", "cluster", "parent", NULL };
	static const char *const skeys[] = {
		"description", "organization", "parent", "flags", "fairshare", "grptres",
		"grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxjobs", "maxsubmitjobs",
		"maxwall", "maxtresperjob", "maxtrespernode", "maxtresminsperjob", "qos", "defaultqos",
		NULL
	};
	struct strv names = { 0 };
	struct assoc_change chg;
	const char *descr = mgr_set(m, "description"), *org = mgr_set(m, "organization"),
		   *flags = mgr_set(m, "flags"), *parent = mgr_set(m, "parent");
	json_t *modified = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "modified", modified);
	json_object_set_new(m->out, "assocs", assocs);
	if (mgr_check_keys(m, m->where, wkeys, "account") < 0 ||
	    mgr_check_keys(m, m->set, skeys, "account") < 0 || mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!json_object_size(m->set))
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	mgr_names(m, &names, "account");
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any accounts to modify (where name=...)");
	struct assoc_filter f;
	mgr_filter_fill(m, &f);
	f.accounts_only = true;
	mgr_strv_free(&f.accounts);
	for (size_t i = 0; i < names.n; i++)
		mgr_strv_push(&f.accounts, names.v[i]);
	/* check all */
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		unsigned fl;
		if (!acc)
			continue;
		if ((descr || org || flags) && !may_manage_subaccount(m, acc->name))
			goto denied;
		if (flags && mgr_parse_account_flags(m, flags, acc->flags, &fl) < 0)
			goto error;
	}
	if (parent && !*parent)
		parent = NULL;
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !mgr_filter_match(&f, a))
			continue;
		if ((chg.any || parent) && !may_manage_subaccount(m, a->account))
			goto denied;
		if (parent) {
			if (!strcmp(a->account, "root")) {
				mgr_fail(m, HERD_ERR_INVALID_ARG, "The root account can't have a parent");
				goto error;
			}
			if (!assoc_find_exact(a->cluster, parent, NULL, NULL)) {
				mgr_fail(m, HERD_ERR_INVALID_ARG,
				     "Parent account '%.60s' doesn't exist on cluster '%.40s'", parent,
				     a->cluster);
				goto error;
			}
			if (mgr_makes_cycle(a->cluster, a->account, parent)) {
				mgr_fail(m, HERD_ERR_INVALID_ARG,
				     "Can't move account '%.50s' under '%.50s': '%.50s' is '%.50s' itself or one of its sub-accounts",
				     a->account, parent, parent, a->account);
				goto error;
			}
			if (!m->oper && !acct_is_coord(m->uid, parent))
				goto denied;
		}
		if (mgr_change_check_qos(m, a, &chg) < 0)
			goto error;
	}
	/* apply */
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		if (!acc || !(descr || org || flags))
			continue;
		json_array_append_new(modified, json_string(acc->name));
		if (m->dry_run)
			continue;
		if (descr) {
			free(acc->description);
			acc->description = xstrdup(descr);
		}
		if (org) {
			free(acc->organization);
			acc->organization = xstrdup(org);
		}
		if (flags)
			mgr_parse_account_flags(m, flags, acc->flags, &acc->flags);
		acct_account_save(acc);
		m->changed = true;
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !mgr_filter_match(&f, a) || (!chg.any && !parent))
			continue;
		json_array_append_new(assocs, mgr_assoc_ref(a));
		if (m->dry_run)
			continue;
		mgr_change_apply(a, &chg);
		if (parent) {
			free(a->parent_acct);
			a->parent_acct = xstrdup(parent);
		}
		assoc_save(a);
		m->changed = true;
	}
	if (parent && !m->dry_run)
		assoc_resolve_parents();
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return 0;
denied:
	mgr_denied(m);
error:
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return -1;
}

/* A user whose default account goes: the first account it still has. */
static void fix_default_account(const char *user)
{
	struct acct_user *u = acct_user_find(user);
	if (!u || (u->default_account && has_assoc_in(u->name, u->default_account)))
		return;
	free(u->default_account);
	u->default_account = NULL;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && a->user && !strcmp(a->user, user) && !strcmp(a->cluster, core.cluster)) {
			u->default_account = xstrdup(a->account);
			break;
		}
	acct_user_save(u);
}

static void coord_drop(struct acct_account *acc, const char *user)
{
	size_t j = 0;
	for (size_t i = 0; acc->coords[i]; i++) {
		if (!strcmp(acc->coords[i], user))
			free(acc->coords[i]);
		else
			acc->coords[j++] = acc->coords[i];
	}
	acc->coords[j] = NULL;
}

int mgr_delete_account(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "account", "cluster", NULL };
	struct strv names = { 0 }, users = { 0 };
	struct assoc_filter f;
	json_t *deleted = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	json_object_set_new(m->out, "assocs", assocs);
	if (mgr_check_keys(m, m->where, wkeys, "account") < 0)
		return -1;
	mgr_names(m, &names, "account");
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "No conditions given to remove, not executing.");
	mgr_filter_fill(m, &f);
	mgr_strv_free(&f.accounts);
	for (size_t i = 0; i < names.n; i++) {
		if (!strcmp(names.v[i], "root")) {
			mgr_fail(m, HERD_ERR_INVALID_ARG,
				 "You are not allowed to remove the root account. Use remove cluster instead.");
			goto error;
		}
		mgr_strv_push(&f.accounts, names.v[i]);
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !mgr_filter_match(&f, a))
			continue;
		if (!may_manage_subaccount(m, a->account)) {
			mgr_denied(m);
			goto error;
		}
		/* sub-accounts not being deleted with it */
		for (struct assoc *b = accounting.assocs; b; b = b->next)
			if (!b->deleted && !b->user && b->parent == a && !mgr_strv_has(&names, b->account)) {
				mgr_fail(m, HERD_ERR_INVALID_ARG,
				     "Account '%.50s' has sub-account '%.50s'; delete or move it first",
				     a->account, b->account);
				goto error;
			}
	}
	struct jobs_scan scan = { .accounts = &names };
	if (mgr_jobs_block(m, &scan))
		goto done;
	/* Slurm refuses to remove an account that is a user's default
	 * (the user must get another default first) */
	json_t *in_use = json_array();
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		const struct acct_user *u;
		if (a->deleted || !a->user || !mgr_filter_match(&f, a) ||
		    strcmp(a->cluster, core.cluster) || !(u = acct_user_find(a->user)) ||
		    !u->default_account || strcmp(u->default_account, a->account))
			continue;
		json_array_append_new(in_use, mgr_assoc_ref(a));
	}
	if (json_array_size(in_use)) {
		json_object_set_new(m->out, "defaults_in_use", in_use);
		goto done;
	}
	json_decref(in_use);
	bool whole = !f.clusters.n;
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !mgr_filter_match(&f, a))
			continue;
		/* Slurm lists the accounts when they go whole, else the
		 * associations removed */
		if (!whole)
			json_array_append_new(assocs, mgr_assoc_ref(a));
		if (a->user && !mgr_strv_has(&users, a->user))
			mgr_strv_push(&users, a->user);
		if (!m->dry_run) {
			assoc_remove(a);
			m->changed = true;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		bool left = false;
		if (!acc)
			continue;
		for (struct assoc *a = accounting.assocs; a && !left; a = a->next)
			left = !a->deleted && !strcmp(a->account, acc->name) &&
			       (m->dry_run ? !mgr_filter_match(&f, a) : true);
		if (left)
			continue;
		json_array_append_new(deleted, json_string(acc->name));
		if (!m->dry_run) {
			acct_account_remove(acc);
			m->changed = true;
		}
	}
	if (!m->dry_run)
		for (size_t i = 0; i < users.n; i++)
			fix_default_account(users.v[i]);
done:
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	mgr_strv_free(&users);
	return 0;
error:
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	mgr_strv_free(&users);
	return -1;
}

/* Slurm: operators may make operators; only administrators make
 * administrators (or change one). */
static int check_admin_change(struct mgr *m, const struct acct_user *u, enum admin_level to)
{
	if (!m->oper)
		return mgr_denied(m);
	if ((to == ADMIN_ADMIN || (u && u->admin == ADMIN_ADMIN)) && !m->admin)
		return mgr_denied(m);
	return 0;
}

int mgr_add_user(struct mgr *m)
{
	static const char *const keys[] = {
		"name", "account", "defaultaccount", "adminlevel", "partition", "cluster",
		"defaultwckey", "wckey", "fairshare", "grptres", "grptresmins", "grpjobs", "grpsubmitjobs",
		"grpwall", "maxjobs", "maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode",
		"maxtresminsperjob", "qos", "defaultqos", NULL
	};
	struct strv names = { 0 }, accounts = { 0 }, parts = { 0 }, clusters = { 0 }, wckeys = { 0 };
	struct assoc_change chg;
	const char *dflt = mgr_set(m, "defaultaccount"), *admin_s = mgr_set(m, "adminlevel"),
		   *wckey = mgr_set(m, "defaultwckey");
	enum admin_level admin = ADMIN_NONE;
	int rc = -1;
	json_t *added = json_array(), *assocs = json_array(), *wckeys_added = json_array();
	json_object_set_new(m->out, "added", added);
	json_object_set_new(m->out, "assocs", assocs);
	json_object_set_new(m->out, "wckeys", wckeys_added);
	/* WCKeys=a,b: the user's wckeys on the clusters; the first is a new
	 * user's default unless DefaultWCKey= says (and is one of them) */
	mgr_strv_split(&wckeys, mgr_set(m, "wckey"));
	if (wckey && *wckey && wckeys.n && !mgr_strv_has(&wckeys, wckey))
		mgr_strv_push(&wckeys, wckey);   /* Slurm adds it after the others */
	if (!wckey && wckeys.n)
		wckey = wckeys.v[0];
	if (mgr_check_keys(m, m->set, keys, "user") < 0 || mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (admin_s && mgr_parse_admin(m, admin_s, &admin) < 0)
		return -1;
	if (admin_s)
		json_object_set_new(m->out, "admin_level", json_string(mgr_admin_name(admin)));
	mgr_names(m, &names, NULL);
	mgr_strv_split(&accounts, mgr_set(m, "account"));
	if (dflt && *dflt && !mgr_strv_has(&accounts, dflt)) {
		/* Slurm adds the default account's association too */
		struct strv t = { 0 };
		mgr_strv_push(&t, dflt);
		for (size_t i = 0; i < accounts.n; i++)
			mgr_strv_push(&t, accounts.v[i]);
		mgr_strv_free(&accounts);
		accounts = t;
	}
	mgr_strv_split(&parts, mgr_set(m, "partition"));
	mgr_strv_split(&clusters, mgr_set(m, "cluster"));
	if (!clusters.n)
		mgr_strv_push(&clusters, core.cluster);
	if (!names.n) {
		mgr_fail(m, HERD_ERR_INVALID_ARG, "Need name of user to add");
		goto out;
	}
	if (mgr_names_ok(m, &names, "user") < 0 || mgr_names_ok(m, &parts, "partition") < 0)
		goto out;
	if (!accounts.n && !wckeys.n) {
		mgr_fail(m, HERD_ERR_INVALID_ARG, "Need a default account for these users to add");
		goto out;
	}
	if (mgr_wckeys_check(m, &wckeys) < 0)
		goto out;
	for (size_t c = 0; wckeys.n && c < clusters.n; c++)
		if (!acct_cluster_find(clusters.v[c])) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "Cluster '%.60s' doesn't exist", clusters.v[c]);
			goto out;
		}
	if (admin_s && check_admin_change(m, NULL, admin) < 0)
		goto out;
	for (size_t c = 0; c < clusters.n; c++)
		for (size_t i = 0; i < accounts.n; i++) {
			struct assoc *pa = assoc_find_exact(clusters.v[c], accounts.v[i], NULL, NULL);
			if (!acct_account_find(accounts.v[i]) || !pa) {
				if (!acct_account_find(accounts.v[i]))
					mgr_fail(m, HERD_ERR_INVALID_ARG,
						 "This account '%.60s' doesn't exist. Contact your admin to add this account.",
						 accounts.v[i]);
				else
					mgr_fail(m, HERD_ERR_INVALID_ARG,
						 "This account '%.60s' doesn't exist on cluster %.40s. Contact your admin to add this account.",
						 accounts.v[i], clusters.v[c]);
				goto out;
			}
			if (!m->oper && !acct_is_coord(m->uid, accounts.v[i])) {
				mgr_denied(m);
				goto out;
			}
			struct assoc probe = { .account = accounts.v[i], .user = "", .parent = pa };
			if (mgr_change_check_qos(m, &probe, &chg) < 0)
				goto out;
		}
	for (size_t i = 0; i < parts.n; i++)
		if (!part_find(parts.v[i])) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "Partition '%.60s' doesn't exist on cluster '%.40s'",
			     parts.v[i], core.cluster);
			goto out;
		}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u) {
			json_array_append_new(added, json_string(names.v[i]));
			if (!m->dry_run) {
				u = acct_user_new(names.v[i]);
				u->admin = admin;
				u->default_account = accounts.n ? xstrdup(dflt && *dflt ? dflt : accounts.v[0])
								 : NULL;
				u->default_wckey = xstrdup(wckey);
				acct_user_save(u);
				m->changed = true;
			}
		}
		for (size_t c = 0; c < clusters.n; c++)
			for (size_t j = 0; j < accounts.n; j++)
				for (size_t p = 0; p < (parts.n ? parts.n : 1); p++) {
					const char *part = parts.n ? parts.v[p] : NULL;
					if (assoc_find_exact(clusters.v[c], accounts.v[j], names.v[i], part))
						continue;
					json_t *ref = json_pack("{s:s, s:s, s:s}", "cluster", clusters.v[c],
								"account", accounts.v[j], "user", names.v[i]);
					if (part)
						json_object_set_new(ref, "partition", json_string(part));
					json_array_append_new(assocs, ref);
					if (m->dry_run)
						continue;
					struct assoc *a = assoc_new(0, clusters.v[c], accounts.v[j], names.v[i], part);
					a->parent = assoc_find_exact(clusters.v[c], accounts.v[j], NULL, NULL);
					mgr_change_apply(a, &chg);
					assoc_save(a);
					m->changed = true;
				}
		mgr_wckeys_add(m, names.v[i], &clusters, &wckeys, wckeys_added);
		/* Slurm: a user without a default wckey gets the first it is given */
		if (!m->dry_run && u && wckeys.n && (!u->default_wckey || !*u->default_wckey)) {
			free(u->default_wckey);
			u->default_wckey = xstrdup(wckey);
			acct_user_save(u);
			m->changed = true;
		}
		if (!m->dry_run && u && !u->default_account && accounts.n) {
			fix_default_account(u->name);
			m->changed = true;
		}
	}
	rc = 0;
out:
	mgr_strv_free(&names);
	mgr_strv_free(&accounts);
	mgr_strv_free(&parts);
	mgr_strv_free(&clusters);
	mgr_strv_free(&wckeys);
	return rc;
}

/* May the requester change user association a (limits, QOS)? */
static bool may_manage_user_assoc(const struct mgr *m, const struct assoc *a)
{
	return m->oper || acct_is_coord(m->uid, a->account);
}

int mgr_modify_user(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "user", "account", "cluster", "partition",
					     "adminlevel", "defaultaccount", NULL };
	static const char *const skeys[] = {
		"adminlevel", "defaultaccount", "defaultwckey", "fairshare", "grptres", "grptresmins",
		"grpjobs", "grpsubmitjobs", "grpwall", "maxjobs", "maxsubmitjobs", "maxwall",
		"maxtresperjob", "maxtrespernode", "maxtresminsperjob", "qos", "defaultqos", NULL
	};
	struct strv names = { 0 };
	struct assoc_filter f;
	struct assoc_change chg;
	const char *admin_s = mgr_set(m, "adminlevel"), *dflt = mgr_set(m, "defaultaccount"),
		   *wckey = mgr_set(m, "defaultwckey");
	enum admin_level admin = ADMIN_NONE;
	json_t *modified = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "modified", modified);
	json_object_set_new(m->out, "assocs", assocs);
	if (mgr_check_keys(m, m->where, wkeys, "user") < 0 || mgr_check_keys(m, m->set, skeys, "user") < 0 ||
	    mgr_change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!json_object_size(m->set))
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	if (admin_s && mgr_parse_admin(m, admin_s, &admin) < 0)
		return -1;
	mgr_names(m, &names, "user");
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any users to modify (where name=...)");
	mgr_filter_fill(m, &f);
	mgr_strv_free(&f.users);
	for (size_t i = 0; i < names.n; i++)
		mgr_strv_push(&f.users, names.v[i]);
	f.users_only = true;
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u)
			continue;
		if (admin_s && check_admin_change(m, u, admin) < 0)
			goto error;
		if (dflt) {
			if (!m->oper && strcmp(u->name, m->uname)) {
				mgr_denied(m);
				goto error;
			}
			if (!has_assoc_in(u->name, dflt)) {
				mgr_fail(m, HERD_ERR_INVALID_ARG,
				     "User '%.50s' has no association with account '%.50s' (add it first)",
				     u->name, dflt);
				goto error;
			}
		}
		if (wckey && !m->oper && strcmp(u->name, m->uname)) {
			mgr_denied(m);
			goto error;
		}
	}
	if (wckey) {
		struct strv clusters = { 0 };
		mgr_strv_split(&clusters, mgr_where(m, "cluster"));
		int bad = mgr_default_wckey_check(m, &names, wckey, &clusters);
		mgr_strv_free(&clusters);
		if (bad < 0)
			goto error;
	}
	if (chg.any)
		for (struct assoc *a = accounting.assocs; a; a = a->next) {
			if (a->deleted || !mgr_filter_match(&f, a))
				continue;
			if (!may_manage_user_assoc(m, a)) {
				mgr_denied(m);
				goto error;
			}
			if (mgr_change_check_qos(m, a, &chg) < 0)
				goto error;
		}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u || !(admin_s || dflt || wckey))
			continue;
		json_array_append_new(modified, json_string(u->name));
		if (m->dry_run)
			continue;
		if (admin_s)
			u->admin = admin;
		if (dflt) {
			free(u->default_account);
			u->default_account = xstrdup(dflt);
		}
		if (wckey) {
			free(u->default_wckey);
			u->default_wckey = *wckey ? xstrdup(wckey) : NULL;
		}
		acct_user_save(u);
		m->changed = true;
	}
	if (chg.any)
		for (struct assoc *a = accounting.assocs; a; a = a->next) {
			if (a->deleted || !mgr_filter_match(&f, a))
				continue;
			json_array_append_new(assocs, mgr_assoc_ref(a));
			if (m->dry_run)
				continue;
			mgr_change_apply(a, &chg);
			assoc_save(a);
			m->changed = true;
		}
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return 0;
error:
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return -1;
}

int mgr_delete_user(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "user", "account", "cluster", "partition",
					     "wckey", NULL };
	struct strv names = { 0 };
	struct assoc_filter f;
	json_t *deleted = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	json_object_set_new(m->out, "assocs", assocs);
	if (mgr_check_keys(m, m->where, wkeys, "user") < 0)
		return -1;
	mgr_names(m, &names, "user");
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "No conditions given to remove, not executing.");
	if (mgr_where(m, "wckey")) {
		/* delete user NAME WCKeys=K: those wckeys, not the user */
		int rc = mgr_delete_user_wckeys(m, &names);
		mgr_strv_free(&names);
		return rc;
	}
	mgr_filter_fill(m, &f);
	mgr_strv_free(&f.users);
	for (size_t i = 0; i < names.n; i++)
		mgr_strv_push(&f.users, names.v[i]);
	f.users_only = true;
	bool whole = !f.accounts.n && !f.partitions.n && !f.clusters.n;
	if (whole && !m->oper) {
		mgr_strv_free(&names);
		mgr_filter_free(&f);
		return mgr_denied(m);
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && mgr_filter_match(&f, a) && !may_manage_user_assoc(m, a)) {
			mgr_strv_free(&names);
			mgr_filter_free(&f);
			return mgr_denied(m);
		}
	struct jobs_scan scan = { .users = &names, .accounts = f.accounts.n ? &f.accounts : NULL,
				  .partition = f.partitions.n == 1 ? f.partitions.v[0] : NULL };
	if (mgr_jobs_block(m, &scan))
		goto done;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && mgr_filter_match(&f, a))
			json_array_append_new(assocs, mgr_assoc_ref(a));
	/* Slurm: a user left without associations goes too; one that keeps
	 * some but loses its default account's is refused */
	json_t *gone = json_array(), *lost_default = json_array();
	for (size_t i = 0; !whole && i < names.n; i++) {
		const struct acct_user *u = acct_user_find(names.v[i]);
		bool left = false, keeps_default = false;
		if (!u)
			continue;
		for (struct assoc *a = accounting.assocs; a; a = a->next) {
			if (a->deleted || !a->user || strcmp(a->user, u->name) || mgr_filter_match(&f, a))
				continue;
			left = true;
			keeps_default |= u->default_account && !strcmp(a->account, u->default_account) &&
					 !strcmp(a->cluster, core.cluster);
		}
		if (!left)
			json_array_append_new(gone, json_string(u->name));
		else if (u->default_account && !keeps_default)
			json_array_append_new(lost_default, json_string(u->name));
	}
	json_object_set_new(m->out, "users_gone", gone);
	if (json_array_size(lost_default)) {
		json_object_set_new(m->out, "default_deleted", lost_default);
		goto done;
	}
	json_decref(lost_default);
	if (!m->dry_run)
		for (struct assoc *a = accounting.assocs; a; a = a->next)
			if (!a->deleted && mgr_filter_match(&f, a)) {
				assoc_remove(a);
				m->changed = true;
			}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		bool drop = whole;
		size_t k;
		json_t *v;
		json_array_foreach(gone, k, v)
			drop |= u && !strcmp(json_string_value(v), u->name);
		if (!u || !drop)
			continue;
		if (whole)
			json_array_append_new(deleted, json_string(u->name));
		if (m->dry_run)
			continue;
		for (struct acct_account *acc = accounting.accounts; acc; acc = acc->next)
			if (acct_account_has_coord(acc, u->name)) {
				coord_drop(acc, u->name);
				acct_account_save(acc);
			}
		acct_user_remove(u);
		m->changed = true;
	}
done:
	mgr_filter_free(&f);
	mgr_strv_free(&names);
	return 0;
}

/* ---- coordinator ---- */
static int coord_targets(struct mgr *m, struct strv *users, struct strv *accounts)
{
	static const char *const keys[] = { "name", "user", "account", NULL };
	if (mgr_check_keys(m, m->where, keys, "coordinator") < 0 ||
	    mgr_check_keys(m, m->set, keys, "coordinator") < 0)
		return -1;
	mgr_names(m, users, "user");
	mgr_strv_split(users, mgr_set(m, "name"));
	mgr_strv_split(users, mgr_set(m, "user"));
	mgr_strv_split(accounts, mgr_where(m, "account"));
	mgr_strv_split(accounts, mgr_set(m, "account"));
	if (!users->n || !accounts->n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG,
			    "Need a list of users (Names=) and accounts (Accounts=) for coordinators");
	/* Slurm: coordinators may name coordinators of their accounts */
	for (size_t i = 0; i < accounts->n; i++)
		if (!m->oper && !acct_is_coord(m->uid, accounts->v[i]))
			return mgr_denied(m);
	for (size_t i = 0; i < users->n; i++)
		if (!acct_user_find(users->v[i]))
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "User '%.60s' doesn't exist", users->v[i]);
	for (size_t i = 0; i < accounts->n; i++)
		if (!acct_account_find(accounts->v[i]))
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "Account '%.60s' doesn't exist", accounts->v[i]);
	return 0;
}

int mgr_add_coord(struct mgr *m)
{
	struct strv users = { 0 }, accounts = { 0 };
	json_t *added = json_array(), *accs = json_array();
	json_object_set_new(m->out, "added", added);
	json_object_set_new(m->out, "accounts", accs);
	int rc = coord_targets(m, &users, &accounts);
	for (size_t j = 0; !rc && j < accounts.n; j++) {
		struct acct_account *acc = acct_account_find(accounts.v[j]);
		bool any = false;
		for (size_t i = 0; i < users.n; i++) {
			if (acct_account_has_coord(acc, users.v[i]))
				continue;
			any = true;
			if (!m->dry_run) {
				size_t n = 0;
				while (acc->coords[n])
					n++;
				acc->coords = xrealloc(acc->coords, (n + 2) * sizeof(char *));
				acc->coords[n] = xstrdup(users.v[i]);
				acc->coords[n + 1] = NULL;
			}
			bool seen = false;
			size_t k;
			json_t *v;
			json_array_foreach(added, k, v)
				seen |= !strcmp(json_string_value(v), users.v[i]);
			if (!seen)
				json_array_append_new(added, json_string(users.v[i]));
		}
		if (any) {
			json_array_append_new(accs, json_string(acc->name));
			if (!m->dry_run) {
				acct_account_save(acc);
				m->changed = true;
			}
		}
	}
	mgr_strv_free(&users);
	mgr_strv_free(&accounts);
	return rc;
}

int mgr_delete_coord(struct mgr *m)
{
	struct strv users = { 0 }, accounts = { 0 };
	json_t *deleted = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	int rc = coord_targets(m, &users, &accounts);
	for (size_t j = 0; !rc && j < accounts.n; j++) {
		struct acct_account *acc = acct_account_find(accounts.v[j]);
		for (size_t i = 0; i < users.n; i++) {
			if (!acct_account_has_coord(acc, users.v[i]))
				continue;
			json_array_append_new(deleted, json_pack("{s:s, s:s}", "user", users.v[i],
								 "account", acc->name));
			if (m->dry_run)
				continue;
			coord_drop(acc, users.v[i]);
			acct_account_save(acc);
			m->changed = true;
		}
	}
	mgr_strv_free(&users);
	mgr_strv_free(&accounts);
	return rc;
}
