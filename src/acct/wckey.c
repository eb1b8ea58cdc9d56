/* Workload characterization keys (WCKeys, doc/accounting.md "WCKeys"):
 * the objects (a name for a user on a cluster, with an ID given at add),
 * their store rows (kind "wckey"), sacctmgr's wckey requests (add user
 * WCKeys=, delete user WCKeys=, modify user set DefaultWCKey=, list
 * wckeys), and what TrackWCKey and AccountingStorageEnforce=wckeys do to a
 * job at submission and update.  Slurm keeps wckey names in lower case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/text.h"
#include "common/xmalloc.h"
#include "acct/assoc_mgr.h"
#include "core/core.h"

static struct acct_wckey *wckeys_last;

static void id_key(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%u", id);
}

struct acct_wckey *acct_wckey_new(uint32_t id, const char *cluster, const char *name,
				    const char *user)
{
	struct acct_wckey *w = xmalloc(sizeof(*w));
	if (!accounting.next_wckey_id)
		accounting.next_wckey_id = 1;
	w->id = id ? id : accounting.next_wckey_id;
	if (w->id >= accounting.next_wckey_id)
		accounting.next_wckey_id = w->id + 1;
	w->cluster = xstrdup(cluster);
	w->name = xstrdup(name);
	w->user = xstrdup(user);
	if (wckeys_last)
		wckeys_last->next = w;
	else
		accounting.wckeys = w;
	wckeys_last = w;
	return w;
}

static void wckey_free(struct acct_wckey *w)
{
	free(w->cluster);
	free(w->name);
	free(w->user);
	free(w);
}

static void wckey_save(const struct acct_wckey *w)
{
	char key[16];
	id_key(w->id, key, sizeof(key));
	store_acct_put("wckey", key,
		       json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)w->id, "name", w->name,
				 "cluster", w->cluster, "user", w->user));
}

static void wckey_remove(struct acct_wckey *w)
{
	struct acct_wckey **p = &accounting.wckeys, *prev = NULL;
	while (*p && *p != w) {
		prev = *p;
		p = &(*p)->next;
	}
	if (!*p)
		return;
	*p = w->next;
	if (wckeys_last == w)
		wckeys_last = prev;
	char key[16];
	id_key(w->id, key, sizeof(key));
	store_acct_del("wckey", key);
	wckey_free(w);
}

struct acct_wckey *acct_wckey_find(const char *cluster, const char *name, const char *user)
{
	for (struct acct_wckey *w = accounting.wckeys; w; w = w->next)
		if (!strcmp(w->name, name) && !strcmp(w->user, user) && !strcmp(w->cluster, cluster))
			return w;
	return NULL;
}

static void load_wckey(const char *key, const json_t *rec, void *arg)
{
	const char *name = json_string_value(json_object_get(rec, "name")),
		   *cluster = json_string_value(json_object_get(rec, "cluster")),
		   *user = json_string_value(json_object_get(rec, "user"));
	json_int_t id = json_integer_value(json_object_get(rec, "id"));
	if (!name || !cluster || !user || id <= 0 || id > UINT32_MAX - 1 ||
	    acct_wckey_find(cluster, name, user))
		return;
	acct_wckey_new((uint32_t)id, cluster, name, user);
}

void wckey_load(void)
{
	if (!accounting.next_wckey_id)
		accounting.next_wckey_id = 1;
	store_acct_load("wckey", load_wckey, NULL);
}

void wckey_free_all(void)
{
	for (struct acct_wckey *w = accounting.wckeys, *n; w; w = n) {
		n = w->next;
		wckey_free(w);
	}
	accounting.wckeys = wckeys_last = NULL;
	accounting.next_wckey_id = 0;
}

void wckey_drop_user(const char *user)
{
	for (struct acct_wckey *w = accounting.wckeys, *n; w; w = n) {
		n = w->next;
		if (!strcmp(w->user, user))
			wckey_remove(w);
	}
}

void wckey_drop_cluster(const char *cluster)
{
	for (struct acct_wckey *w = accounting.wckeys, *n; w; w = n) {
		n = w->next;
		if (!strcmp(w->cluster, cluster))
			wckey_remove(w);
	}
}

/* ---- sacctmgr ---- */

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* sacctmgr's " WCKeys =" lines: {user, wckey, cluster} */
static json_t *wckey_ref(const char *cluster, const char *name, const char *user)
{
	return json_pack("{s:s, s:s, s:s}", "cluster", cluster, "wckey", name, "user", user);
}

int mgr_wckeys_check(struct mgr *m, const struct strv *wckeys)
{
	if (!wckeys->n)
		return 0;
	if (!m->oper)
		return mgr_denied(m);
	return mgr_names_ok(m, wckeys, "wckey");
}

void mgr_wckeys_add(struct mgr *m, const char *user, const struct strv *clusters,
		    const struct strv *wckeys, json_t *added)
{
	for (size_t c = 0; c < clusters->n; c++)
		for (size_t i = 0; i < wckeys->n; i++) {
			if (acct_wckey_find(clusters->v[c], wckeys->v[i], user))
				continue;
			json_array_append_new(added, wckey_ref(clusters->v[c], wckeys->v[i], user));
			if (m->dry_run)
				continue;
			wckey_save(acct_wckey_new(0, clusters->v[c], wckeys->v[i], user));
			m->changed = true;
		}
}

json_t *wckey_names_of(const char *user, const char *cluster)
{
	size_t n = 0, k = 0;
	for (struct acct_wckey *w = accounting.wckeys; w; w = w->next)
		n++;
	const char **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_wckey *w = accounting.wckeys; w; w = w->next)
		if (!strcmp(w->user, user) && !strcmp(w->cluster, cluster))
			v[k++] = w->name;
	if (k)
		qsort(v, k, sizeof(*v), cmp_str);
	json_t *a = json_array();
	for (size_t i = 0; i < k; i++)
		json_array_append_new(a, json_string(v[i]));
	free(v);
	return a;
}

/* Has user the wckey on every cluster of clusters (this one when none)? */
static bool user_has_wckey(const char *user, const char *name, const struct strv *clusters)
{
	if (!clusters->n)
		return acct_wckey_find(core.cluster, name, user) != NULL;
	for (size_t c = 0; c < clusters->n; c++)
		if (!acct_wckey_find(clusters->v[c], name, user))
			return false;
	return true;
}

int mgr_default_wckey_check(struct mgr *m, const struct strv *users, const char *wckey,
			    const struct strv *clusters)
{
	/* an empty one too (Slurm: "... new default wckey ''...") */
	for (size_t i = 0; wckey && i < users->n; i++)
		if (acct_user_find(users->v[i]) && !user_has_wckey(users->v[i], wckey, clusters))
			return mgr_fail(m, HERD_ERR_INVALID_ARG,
					"Can't modify because these users aren't associated with new "
					"default wckey '%.60s'... U = %.40s C = %.40s",
					wckey, users->v[i], clusters->n ? clusters->v[0] : core.cluster);
	return 0;
}

int mgr_delete_user_wckeys(struct mgr *m, const struct strv *users)
{
	struct strv names = { 0 }, clusters = { 0 };
	json_t *del = json_array();
	json_object_set_new(m->out, "wckeys", del);
	mgr_strv_split(&names, mgr_where(m, "wckey"));
	mgr_strv_split(&clusters, mgr_where(m, "cluster"));
	if (!m->oper) {
		mgr_strv_free(&names);
		mgr_strv_free(&clusters);
		return mgr_denied(m);
	}
	for (struct acct_wckey *w = accounting.wckeys, *n; w; w = n) {
		n = w->next;
		if (!mgr_strv_has(&names, w->name) || !mgr_strv_has(users, w->user) ||
		    (clusters.n && !mgr_strv_has(&clusters, w->cluster)))
			continue;
		json_array_append_new(del, wckey_ref(w->cluster, w->name, w->user));
		if (m->dry_run)
			continue;
		/* a user's default that goes is no longer their default */
		struct acct_user *u = acct_user_find(w->user);
		if (u && u->default_wckey && !strcmp(u->default_wckey, w->name) &&
		    !strcmp(w->cluster, core.cluster)) {
			free(u->default_wckey);
			u->default_wckey = NULL;
			acct_user_save(u);
		}
		wckey_remove(w);
		m->changed = true;
	}
	mgr_strv_free(&names);
	mgr_strv_free(&clusters);
	return 0;
}

static int cmp_wckey(const void *x, const void *y)
{
	const struct acct_wckey *a = *(struct acct_wckey *const *)x, *b = *(struct acct_wckey *const *)y;
	int c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->cluster, b->cluster);
	if (!c)
		c = strcmp(a->user, b->user);
	return c;
}

int mgr_list_wckey(struct mgr *m)
{
	static const char *const keys[] = { "name", "wckey", "user", "cluster", "id", NULL };
	struct strv names = { 0 }, users = { 0 }, clusters = { 0 }, ids = { 0 };
	if (mgr_check_keys(m, m->where, keys, "wckey") < 0)
		return -1;
	mgr_names(m, &names, "wckey");
	mgr_strv_split(&users, mgr_where(m, "user"));
	mgr_strv_split(&clusters, mgr_where(m, "cluster"));
	mgr_strv_split(&ids, mgr_where(m, "id"));
	/* PrivateData=users: a plain user sees their own */
	bool own_only = accounting.private_users && !m->oper;
	size_t n = 0, k = 0;
	for (struct acct_wckey *w = accounting.wckeys; w; w = w->next)
		n++;
	struct acct_wckey **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_wckey *w = accounting.wckeys; w; w = w->next) {
		char id[16];
		id_key(w->id, id, sizeof(id));
		if ((names.n && !mgr_strv_has(&names, w->name)) ||
		    (users.n && !mgr_strv_has(&users, w->user)) ||
		    (clusters.n && !mgr_strv_has(&clusters, w->cluster)) ||
		    (ids.n && !mgr_strv_has(&ids, id)) || (own_only && strcmp(w->user, m->uname)))
			continue;
		v[k++] = w;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_wckey);
	json_t *rows = json_array();
	for (size_t i = 0; i < k; i++)
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:I}", "wckey", v[i]->name,
						      "cluster", v[i]->cluster, "user", v[i]->user,
						      "id", (json_int_t)v[i]->id));
	json_object_set_new(m->out, "rows", rows);
	free(v);
	mgr_strv_free(&names);
	mgr_strv_free(&users);
	mgr_strv_free(&clusters);
	mgr_strv_free(&ids);
	return 0;
}

/* ---- jobs ---- */

/* The record a job's wckey names ("*name" for a default: the name), for
 * the job's user on this cluster; NULL when none. */
static const struct acct_wckey *job_record(const char *wckey, const char *user)
{
	if (!wckey || !user)
		return NULL;
	if (*wckey == '*')
		wckey++;
	return *wckey ? acct_wckey_find(core.cluster, wckey, user) : NULL;
}

int wckey_job_submit(struct job *job, const char *given, struct herd_error *err)
{
	free(job->wckey);
	job->wckey = NULL;
	job->wckey_id = 0;
	/* As Slurm: without TrackWCKey a job's --wckey is ignored */
	if (!accounting.track_wckey)
		return 0;
	if (given && *given) {
		char *name = text_lower(given);
		const struct acct_wckey *w = acct_wckey_find(core.cluster, name, job->user);
		if (!w && accounting.enforce_wckeys) {
			free(name);
			errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_WCKEY));
			return HERD_ERR_INVALID_WCKEY;
		}
		job->wckey = name;
		job->wckey_id = w ? w->id : 0;
		return 0;
	}
	/* none given: the user's default, marked with Slurm's leading '*' */
	const struct acct_user *u = acct_user_find(job->user);
	if (u && u->default_wckey && *u->default_wckey) {
		job->wckey = xasprintf("*%s", u->default_wckey);
	} else if (!accounting.enforce_wckeys) {
		job->wckey = xstrdup("*");
	} else {
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_WCKEY));
		return HERD_ERR_INVALID_WCKEY;
	}
	const struct acct_wckey *w = job_record(job->wckey, job->user);
	job->wckey_id = w ? w->id : 0;
	return 0;
}

int wckey_job_update(const struct job *job, const char *value, char **wckey, uint32_t *id,
		     struct herd_error *err)
{
	*wckey = job->wckey ? xstrdup(job->wckey) : NULL;
	*id = job->wckey_id;
	if (!accounting.track_wckey)
		return 0;   /* ignored, as at submission */
	char *name = text_lower(value ? value : "");
	const struct acct_wckey *w = *name ? acct_wckey_find(core.cluster, name, job->user) : NULL;
	if (!w && accounting.enforce_wckeys) {
		free(name);
		free(*wckey);
		*wckey = NULL;
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_WCKEY));
		return HERD_ERR_INVALID_WCKEY;
	}
	if (!w) {
		/* Slurm: an unknown (or empty) one becomes the user's default,
		 * when there is one (without the '*': it was asked for) */
		const struct acct_user *u = acct_user_find(job->user);
		if (u && u->default_wckey && *u->default_wckey) {
			free(name);
			name = xstrdup(u->default_wckey);
			w = acct_wckey_find(core.cluster, name, job->user);
		}
	}
	free(*wckey);
	*wckey = name;
	if (!*name) {
		free(name);
		*wckey = NULL;
	}
	*id = w ? w->id : 0;
	return 0;
}
