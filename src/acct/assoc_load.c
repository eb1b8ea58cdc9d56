/* ACCT_MGR's load: the lines of a flat file (sacctmgr parses Slurm's
 * format and sends them in order) checked whole, then applied: what is
 * missing is made, what exists takes what the lines set. */
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

/* One line of a flat file, as sacctmgr sends it: {type, name, attrs}. */
struct load_ctx {
	const char *cluster, *parent;
};

static const char *const load_account_keys[] = {
	"description", "organization", "flags", "fairshare", "grptres", "grptresmins", "grpjobs",
	"grpsubmitjobs", "grpwall", "maxjobs", "maxsubmitjobs", "maxwall", "maxtresperjob",
	"maxtrespernode", "maxtresminsperjob", "qos", "defaultqos", "coordinators", NULL
};

static const char *const load_user_keys[] = {
	"defaultaccount", "adminlevel", "defaultwckey", "fairshare", "grptres", "grptresmins",
	"grpjobs", "grpsubmitjobs", "grpwall", "maxjobs", "maxsubmitjobs", "maxwall",
	"maxtresperjob", "maxtrespernode", "maxtresminsperjob", "qos", "defaultqos", "partition",
	"coordinators", "wckey", NULL
};

/* Check (apply false) or apply one record.  Checking tracks accounts the
 * file makes (known) so later lines may hang under them. */
static int load_one(struct mgr *m, const json_t *rec, struct load_ctx *lc, struct strv *known,
		    bool apply, json_t *summary)
{
	const char *type = json_string_value(json_object_get(rec, "type"));
	const char *name = json_string_value(json_object_get(rec, "name"));
	json_t *attrs = json_object_get(rec, "attrs");
	struct assoc_change chg;
	if (!type || !name || !*name || (attrs && !json_is_object(attrs)))
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Malformed line in the file");
	struct strv one = { .v = (char *[]){ (char *)name, NULL }, .n = 1 };
	if (mgr_names_ok(m, &one, type) < 0 || mgr_values_ok(m, attrs, type) < 0)
		return -1;
	if (!attrs)
		attrs = json_object();
	else
		json_incref(attrs);
	const json_t *saved_set = m->set;
	m->set = attrs;
	int rc = -1;
	if (!strcasecmp(type, "cluster")) {
		static const char *const keys[] = { "fairshare", "grptres", "grpjobs", "grpsubmitjobs",
						    "maxjobs", "maxsubmitjobs", "maxwall", "maxtresperjob",
						    "qos", "defaultqos", "grptresmins", "grpwall",
						    "maxtrespernode", "maxtresminsperjob", NULL };
		if (mgr_check_keys(m, attrs, keys, "cluster line") < 0 || mgr_change_parse(m, attrs, &chg) < 0)
			goto out;
		lc->cluster = name;
		lc->parent = "root";
		if (apply) {
			if (!acct_cluster_find(name)) {
				acct_cluster_save(acct_cluster_new(name));
				json_array_append_new(json_object_get(summary, "clusters"), json_string(name));
			}
			struct assoc *a = assoc_find_exact(name, "root", NULL, NULL);
			if (!a) {
				a = assoc_new(0, name, "root", NULL, NULL);
				a->qos_list = xstrdup("normal");
			}
			mgr_change_apply(a, &chg);
			assoc_save(a);
		}
	} else if (!strcasecmp(type, "parent")) {
		if (!lc->cluster) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "A Parent line before any Cluster line");
			goto out;
		}
		if (!mgr_strv_has(known, name) && !assoc_find_exact(lc->cluster, name, NULL, NULL)) {
			mgr_fail(m, HERD_ERR_INVALID_ARG,
			     "Parent '%.60s' has not been created yet (list a Parent after its Account line)",
			     name);
			goto out;
		}
		lc->parent = name;
	} else if (!strcasecmp(type, "account")) {
		const char *flags = json_string_value(json_object_get(attrs, "flags"));
		const char *coords = json_string_value(json_object_get(attrs, "coordinators"));
		unsigned fl = 0;
		if (!lc->cluster) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "An Account line before any Cluster line");
			goto out;
		}
		if (mgr_check_keys(m, attrs, load_account_keys, "account line") < 0 ||
		    mgr_change_parse(m, attrs, &chg) < 0 || (flags && mgr_parse_account_flags(m, flags, 0, &fl) < 0))
			goto out;
		struct assoc *cur = assoc_find_exact(lc->cluster, name, NULL, NULL);
		if (!strcmp(name, "root") || !strcmp(name, lc->parent) ||
		    (cur && cur->parent_acct && strcmp(cur->parent_acct, lc->parent) &&
		     mgr_makes_cycle(lc->cluster, name, lc->parent))) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "Account '%.60s' can't be put under '%.60s'", name,
			     lc->parent);
			goto out;
		}
		if (!apply) {
			if (!mgr_strv_has(known, name))
				mgr_strv_push(known, name);
			rc = 0;
			goto out;
		}
		struct acct_account *acc = acct_account_find(name);
		const char *d = json_string_value(json_object_get(attrs, "description"));
		const char *o = json_string_value(json_object_get(attrs, "organization"));
		if (!acc) {
			acc = acct_account_new(name);
			acc->description = xstrdup(d ? d : name);
			acc->organization = xstrdup(o ? o : mgr_org_default(name, lc->parent));
			json_array_append_new(json_object_get(summary, "accounts"), json_string(name));
		} else {
			if (d) {
				free(acc->description);
				acc->description = xstrdup(d);
			}
			if (o) {
				free(acc->organization);
				acc->organization = xstrdup(o);
			}
		}
		if (flags)
			acc->flags = fl;
		if (coords) {
			struct strv cs = { 0 };
			mgr_strv_split(&cs, coords);
			for (size_t i = 0; i < cs.n; i++)
				if (acct_user_find(cs.v[i]) && !acct_account_has_coord(acc, cs.v[i])) {
					size_t n = 0;
					while (acc->coords[n])
						n++;
					acc->coords = xrealloc(acc->coords, (n + 2) * sizeof(char *));
					acc->coords[n] = xstrdup(cs.v[i]);
					acc->coords[n + 1] = NULL;
				}
			mgr_strv_free(&cs);
		}
		acct_account_save(acc);
		if (!cur) {
			cur = assoc_new(0, lc->cluster, name, NULL, NULL);
			json_array_append_new(json_object_get(summary, "assocs"), mgr_assoc_ref(cur));
		}
		free(cur->parent_acct);
		cur->parent_acct = xstrdup(lc->parent);
		cur->parent = assoc_find_exact(lc->cluster, lc->parent, NULL, NULL);
		mgr_change_apply(cur, &chg);
		assoc_save(cur);
	} else if (!strcasecmp(type, "user")) {
		const char *admin_s = json_string_value(json_object_get(attrs, "adminlevel"));
		const char *dflt = json_string_value(json_object_get(attrs, "defaultaccount"));
		const char *part = json_string_value(json_object_get(attrs, "partition"));
		enum admin_level lvl = ADMIN_NONE;
		if (!lc->cluster || !strcmp(lc->parent, "") ) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "A User line before any Cluster line");
			goto out;
		}
		if (mgr_check_keys(m, attrs, load_user_keys, "user line") < 0 ||
		    mgr_change_parse(m, attrs, &chg) < 0 || (admin_s && mgr_parse_admin(m, admin_s, &lvl) < 0))
			goto out;
		if (admin_s && lvl == ADMIN_ADMIN && !m->admin) {
			mgr_denied(m);
			goto out;
		}
		if (!apply) {
			rc = 0;
			goto out;
		}
		struct acct_user *u = acct_user_find(name);
		if (!u) {
			u = acct_user_new(name);
			u->default_account = xstrdup(dflt ? dflt : lc->parent);
			json_array_append_new(json_object_get(summary, "users"), json_string(name));
		} else if (dflt) {
			free(u->default_account);
			u->default_account = xstrdup(dflt);
		}
		if (admin_s)
			u->admin = lvl;
		/* Slurm's dump: DefaultWCKey='k':WCKeys='k,l' (the user's on this cluster) */
		const char *dwckey = json_string_value(json_object_get(attrs, "defaultwckey"));
		if (dwckey) {
			free(u->default_wckey);
			u->default_wckey = *dwckey ? xstrdup(dwckey) : NULL;
		}
		acct_user_save(u);
		struct strv wckeys = { 0 }, cl = { 0 };
		mgr_strv_split(&wckeys, json_string_value(json_object_get(attrs, "wckey")));
		mgr_strv_push(&cl, lc->cluster);
		json_t *made = json_array();
		mgr_wckeys_add(m, name, &cl, &wckeys, made);
		json_decref(made);
		mgr_strv_free(&wckeys);
		mgr_strv_free(&cl);

		struct assoc *a = assoc_find_exact(lc->cluster, lc->parent, name, part && *part ? part : NULL);
		if (!a) {
			a = assoc_new(0, lc->cluster, lc->parent, name, part && *part ? part : NULL);
			a->parent = assoc_find_exact(lc->cluster, lc->parent, NULL, NULL);
			json_array_append_new(json_object_get(summary, "assocs"), mgr_assoc_ref(a));
		}
		mgr_change_apply(a, &chg);
		assoc_save(a);
	} else {
		mgr_fail(m, HERD_ERR_INVALID_ARG, "Unknown line type '%.60s' (Cluster, Parent, Account or User)",
		     type);
		goto out;
	}
	rc = 0;
out:
	m->set = saved_set;
	json_decref(attrs);
	return rc;
}

static void grant_coords(const char *user, const char *accounts)
{
	struct strv cs = { 0 };
	if (!user || !acct_user_find(user))
		return;
	mgr_strv_split(&cs, accounts);
	for (size_t i = 0; i < cs.n; i++) {
		struct acct_account *acc = acct_account_find(cs.v[i]);
		if (!acc || acct_account_has_coord(acc, user))
			continue;
		size_t n = 0;
		while (acc->coords[n])
			n++;
		acc->coords = xrealloc(acc->coords, (n + 2) * sizeof(char *));
		acc->coords[n] = xstrdup(user);
		acc->coords[n + 1] = NULL;
		acct_account_save(acc);
	}
	mgr_strv_free(&cs);
}

int mgr_load_file(struct mgr *m)
{
	struct strv known = { 0 };
	struct load_ctx lc = { NULL, "" };
	size_t i;
	json_t *rec;
	/* Slurm: only administrators load files */
	if (!m->admin)
		return mgr_fail(m, HERD_ERR_ACCESS,
				"Your user does not have sufficient privileges to load files.");
	if (!json_is_array(m->records) || !json_array_size(m->records))
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "No records to load");
	json_t *summary = json_pack("{s:[], s:[], s:[], s:[]}", "clusters", "accounts", "users", "assocs");
	json_object_set_new(m->out, "loaded", summary);
	json_array_foreach(m->records, i, rec)
		if (load_one(m, rec, &lc, &known, false, summary) < 0) {
			char line[160];
			json_t *ln = json_object_get(rec, "line");
			snprintf(line, sizeof(line), "Line %lld: %.120s",
				 json_is_integer(ln) ? (long long)json_integer_value(ln) : (long long)i + 1,
				 m->err.text);
			snprintf(m->err.text, sizeof(m->err.text), "%s", line);
			mgr_strv_free(&known);
			return -1;
		}
	if (m->dry_run) {
		mgr_strv_free(&known);
		return 0;
	}
	lc = (struct load_ctx){ NULL, "" };
	json_array_foreach(m->records, i, rec)
		load_one(m, rec, &lc, &known, true, summary);
	/* Coordinator='a,b' on a user line: the accounts it coordinates,
	 * once every account of the file is made */
	json_array_foreach(m->records, i, rec)
		if (!strcasecmp(json_string_value(json_object_get(rec, "type")), "user"))
			grant_coords(json_string_value(json_object_get(rec, "name")),
				     json_string_value(json_object_get(json_object_get(rec, "attrs"),
								       "coordinators")));
	mgr_strv_free(&known);
	assoc_resolve_parents();
	m->changed = true;
	return 0;
}
