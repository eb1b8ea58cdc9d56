/* The accounting objects (doc/accounting.md "Objects"): their lists and
 * name indexes, their store rows, what is made at the first start, the
 * config keys AccountingStorageEnforce and PrivateData, and the lookups
 * the rest of the controller asks on every submission.  ACCT_MGR, which
 * changes them, is assoc_mgr.c. */
#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "core/core.h"

struct accounting accounting;

/* A string -> object index: chained buckets, doubled as it fills.  Every
 * submission asks assoc_find, so no lookup walks a list. */
struct idx_entry {
	char *key;
	void *val;
	struct idx_entry *next;
};
struct name_index {
	struct idx_entry **b;
	size_t nb, n;
};
static struct name_index idx_clusters, idx_accounts, idx_users, idx_qos, idx_assocs, idx_assoc_ids;

static size_t idx_hash(const char *s)
{
	size_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static void idx_grow(struct name_index *ix)
{
	size_t nb = ix->nb ? ix->nb * 2 : 256;
	struct idx_entry **b = xmalloc(nb * sizeof(*b));
	for (size_t i = 0; i < ix->nb; i++)
		for (struct idx_entry *e = ix->b[i], *next; e; e = next) {
			next = e->next;
			size_t h = idx_hash(e->key) % nb;
			e->next = b[h];
			b[h] = e;
		}
	free(ix->b);
	ix->b = b;
	ix->nb = nb;
}

static void idx_put(struct name_index *ix, const char *key, void *val)
{
	if (ix->n >= ix->nb)
		idx_grow(ix);
	size_t h = idx_hash(key) % ix->nb;
	struct idx_entry *e = xmalloc(sizeof(*e));
	e->key = xstrdup(key);
	e->val = val;
	e->next = ix->b[h];
	ix->b[h] = e;
	ix->n++;
}

static void *idx_get(const struct name_index *ix, const char *key)
{
	if (!ix->nb || !key)
		return NULL;
	for (struct idx_entry *e = ix->b[idx_hash(key) % ix->nb]; e; e = e->next)
		if (!strcmp(e->key, key))
			return e->val;
	return NULL;
}

static void idx_del(struct name_index *ix, const char *key)
{
	if (!ix->nb)
		return;
	for (struct idx_entry **p = &ix->b[idx_hash(key) % ix->nb]; *p; p = &(*p)->next)
		if (!strcmp((*p)->key, key)) {
			struct idx_entry *e = *p;
			*p = e->next;
			free(e->key);
			free(e);
			ix->n--;
			return;
		}
}

/* Association key: the four names, joined by a separator no name of ours
 * can hold as the only meaning of it (0x1f; "" for none). */
static char *assoc_key(const char *cluster, const char *account, const char *user,
		       const char *partition)
{
	return xasprintf("%s\x1f%s\x1f%s\x1f%s", cluster ? cluster : "", account ? account : "",
			 user ? user : "", partition ? partition : "");
}

static char *id_key(uint32_t id)
{
	return xasprintf("%u", id);
}

/* Lists are kept in the order objects were made (the store's order);
 * the last of each is remembered, so a load of thousands of lines does
 * not walk them (unlinking, which deletes do, may). */
static struct acct_cluster *clusters_last;
static struct acct_account *accounts_last;
static struct acct_user *users_last;
static struct acct_qos *qos_last;
static struct assoc *assocs_last;

#define LIST_APPEND(head, last, obj) do { \
	if (!(head)) \
		(head) = (obj); \
	else \
		(last)->next = (obj); \
	(last) = (obj); \
} while (0)
#define LIST_UNLINK(head, last, obj) do { \
	__typeof__(obj) prev_ = NULL; \
	for (__typeof__(obj) *pp_ = &(head); *pp_; prev_ = *pp_, pp_ = &(*pp_)->next) \
		if (*pp_ == (obj)) { \
			*pp_ = (obj)->next; \
			if ((last) == (obj)) \
				(last) = prev_; \
			break; \
		} \
} while (0)

void acct_limits_clear(struct acct_limits *l)
{
	l->grp_jobs = l->grp_submit = l->max_jobs = l->max_submit = l->max_wall = l->grp_wall =
		ACCT_UNSET;
	tres_clear(l->grp_tres);
	tres_clear(l->grp_tres_mins);
	tres_clear(l->max_tres_per_job);
	tres_clear(l->max_tres_per_node);
	tres_clear(l->max_tres_mins_per_job);
}

struct acct_cluster *acct_cluster_new(const char *name)
{
	struct acct_cluster *c = xmalloc(sizeof(*c));
	c->name = xstrdup(name);
	c->created = core_now();
	LIST_APPEND(accounting.clusters, clusters_last, c);
	idx_put(&idx_clusters, name, c);
	return c;
}

struct acct_account *acct_account_new(const char *name)
{
	struct acct_account *a = xmalloc(sizeof(*a));
	a->name = xstrdup(name);
	a->coords = xmalloc(sizeof(char *));
	LIST_APPEND(accounting.accounts, accounts_last, a);
	idx_put(&idx_accounts, name, a);
	return a;
}

struct acct_user *acct_user_new(const char *name)
{
	struct acct_user *u = xmalloc(sizeof(*u));
	struct passwd *pw = getpwnam(name);
	u->name = xstrdup(name);
	u->uid = pw ? pw->pw_uid : (uid_t)-1;
	LIST_APPEND(accounting.users, users_last, u);
	idx_put(&idx_users, name, u);
	return u;
}

struct acct_qos *acct_qos_new(const char *name, uint32_t id)
{
	struct acct_qos *q = xmalloc(sizeof(*q));
	q->name = xstrdup(name);
	q->id = id ? id : accounting.next_qos_id;
	if (q->id >= accounting.next_qos_id)
		accounting.next_qos_id = q->id + 1;
	q->usage_factor = 1.0;
	acct_limits_clear(&q->lim);
	tres_clear(q->max_tres_per_user);
	tres_clear(q->tres_running);
	for (int i = 0; i < TRES_COUNT; i++)
		q->tres_running[i] = 0;
	LIST_APPEND(accounting.qos, qos_last, q);
	idx_put(&idx_qos, name, q);
	return q;
}

struct assoc *assoc_new(uint32_t id, const char *cluster, const char *account, const char *user,
			const char *partition)
{
	struct assoc *a = xmalloc(sizeof(*a));
	a->id = id ? id : accounting.next_assoc_id;
	if (a->id >= accounting.next_assoc_id)
		accounting.next_assoc_id = a->id + 1;
	a->cluster = xstrdup(cluster);
	a->account = xstrdup(account);
	a->user = user && *user ? xstrdup(user) : NULL;
	a->partition = partition && *partition ? xstrdup(partition) : NULL;
	a->shares = 1;
	acct_limits_clear(&a->lim);
	/* IDs only grow, so appending keeps the list in ID order */
	LIST_APPEND(accounting.assocs, assocs_last, a);
	char *key = assoc_key(a->cluster, a->account, a->user, a->partition);
	idx_put(&idx_assocs, key, a);
	free(key);
	key = id_key(a->id);
	idx_put(&idx_assoc_ids, key, a);
	free(key);
	return a;
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

void acct_cluster_remove(struct acct_cluster *c)
{
	LIST_UNLINK(accounting.clusters, clusters_last, c);
	idx_del(&idx_clusters, c->name);
	store_acct_del("cluster", c->name);
	free(c->name);
	free(c);
}

void acct_account_remove(struct acct_account *a)
{
	LIST_UNLINK(accounting.accounts, accounts_last, a);
	idx_del(&idx_accounts, a->name);
	store_acct_del("account", a->name);
	free(a->name);
	free(a->description);
	free(a->organization);
	strv_free(a->coords);
	free(a);
}

void acct_user_remove(struct acct_user *u)
{
	LIST_UNLINK(accounting.users, users_last, u);
	idx_del(&idx_users, u->name);
	store_acct_del("user", u->name);
	free(u->name);
	free(u->default_account);
	free(u->default_wckey);
	free(u);
}

void acct_qos_remove(struct acct_qos *q)
{
	LIST_UNLINK(accounting.qos, qos_last, q);
	idx_del(&idx_qos, q->name);
	store_acct_del("qos", q->name);
	free(q->name);
	free(q->description);
	free(q->preempt);
	free(q->preempt_mode);
	free(q);
}

void assoc_remove(struct assoc *a)
{
	char *key = assoc_key(a->cluster, a->account, a->user, a->partition);
	idx_del(&idx_assocs, key);
	free(key);
	key = id_key(a->id);
	idx_del(&idx_assoc_ids, key);
	store_acct_del("assoc", key);
	store_acct_del("usage", key);
	free(key);
	a->deleted = true;
	/* children that still point here are being removed with it, or moved */
	for (struct assoc *b = accounting.assocs; b; b = b->next)
		if (b->parent == a)
			b->parent = NULL;
}

static void idx_free(struct name_index *ix)
{
	for (size_t i = 0; i < ix->nb; i++)
		for (struct idx_entry *e = ix->b[i], *next; e; e = next) {
			next = e->next;
			free(e->key);
			free(e);
		}
	free(ix->b);
	memset(ix, 0, sizeof(*ix));
}

void assoc_free_all(void)
{
	for (struct acct_cluster *c = accounting.clusters, *n; c; c = n) {
		n = c->next;
		free(c->name);
		free(c);
	}
	for (struct acct_account *a = accounting.accounts, *n; a; a = n) {
		n = a->next;
		free(a->name);
		free(a->description);
		free(a->organization);
		strv_free(a->coords);
		free(a);
	}
	for (struct acct_user *u = accounting.users, *n; u; u = n) {
		n = u->next;
		free(u->name);
		free(u->default_account);
		free(u->default_wckey);
		free(u);
	}
	for (struct acct_qos *q = accounting.qos, *n; q; q = n) {
		n = q->next;
		free(q->name);
		free(q->description);
		free(q->preempt);
		free(q->preempt_mode);
		free(q);
	}
	for (struct assoc *a = accounting.assocs, *n; a; a = n) {
		n = a->next;
		free(a->cluster);
		free(a->account);
		free(a->user);
		free(a->partition);
		free(a->parent_acct);
		free(a->qos_list);
		free(a->default_qos);
		free(a);
	}
	idx_free(&idx_clusters);
	idx_free(&idx_accounts);
	idx_free(&idx_users);
	idx_free(&idx_qos);
	idx_free(&idx_assocs);
	idx_free(&idx_assoc_ids);
	memset(&accounting, 0, sizeof(accounting));
	clusters_last = NULL;
	accounts_last = NULL;
	users_last = NULL;
	qos_last = NULL;
	assocs_last = NULL;
}

/* ---- store records ---- */

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_int_t jint_or(const json_t *o, const char *key, json_int_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static json_t *tres_json(const tres_vec v)
{
	char *s = tres_string(v);
	json_t *j = json_string(s);
	free(s);
	return j;
}

static void tres_from_json(tres_vec v, const json_t *o, const char *key)
{
	char err[160];
	const char *s = msg_str(o, key);
	tres_clear(v);
	if (s && *s && tres_parse(s, v, err, sizeof(err)) < 0)
		log_error("accounting: stored %s '%s' ignored: %s", key, s, err);
}

json_t *acct_limits_to_json(const struct acct_limits *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "grp_jobs", json_integer(l->grp_jobs));
	json_object_set_new(o, "grp_submit", json_integer(l->grp_submit));
	json_object_set_new(o, "max_jobs", json_integer(l->max_jobs));
	json_object_set_new(o, "max_submit", json_integer(l->max_submit));
	json_object_set_new(o, "max_wall", json_integer(l->max_wall));
	json_object_set_new(o, "grp_wall", json_integer(l->grp_wall));
	json_object_set_new(o, "grp_tres", tres_json(l->grp_tres));
	json_object_set_new(o, "grp_tres_mins", tres_json(l->grp_tres_mins));
	json_object_set_new(o, "max_tres_per_job", tres_json(l->max_tres_per_job));
	json_object_set_new(o, "max_tres_per_node", tres_json(l->max_tres_per_node));
	json_object_set_new(o, "max_tres_mins_per_job", tres_json(l->max_tres_mins_per_job));
	return o;
}

void acct_limits_from_json(struct acct_limits *l, const json_t *o)
{
	l->grp_jobs = jint_or(o, "grp_jobs", ACCT_UNSET);
	l->grp_submit = jint_or(o, "grp_submit", ACCT_UNSET);
	l->max_jobs = jint_or(o, "max_jobs", ACCT_UNSET);
	l->max_submit = jint_or(o, "max_submit", ACCT_UNSET);
	l->max_wall = jint_or(o, "max_wall", ACCT_UNSET);
	l->grp_wall = jint_or(o, "grp_wall", ACCT_UNSET);
	tres_from_json(l->grp_tres, o, "grp_tres");
	tres_from_json(l->grp_tres_mins, o, "grp_tres_mins");
	tres_from_json(l->max_tres_per_job, o, "max_tres_per_job");
	tres_from_json(l->max_tres_per_node, o, "max_tres_per_node");
	tres_from_json(l->max_tres_mins_per_job, o, "max_tres_mins_per_job");
}

void acct_cluster_save(const struct acct_cluster *c)
{
	store_acct_put("cluster", c->name,
		       json_pack("{s:s, s:I}", "name", c->name, "created", (json_int_t)c->created));
}

void acct_account_save(const struct acct_account *a)
{
	json_t *flags = json_array();
	if (a->flags & ACCT_FLAG_TEAMJOBS)
		json_array_append_new(flags, json_string("TeamJobs"));
	store_acct_put("account", a->name,
		       json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", a->name, "description",
				 jstr_or_null(a->description), "organization",
				 jstr_or_null(a->organization), "flags", flags, "coords",
				 msg_strv(a->coords)));
}

void acct_user_save(const struct acct_user *u)
{
	store_acct_put("user", u->name,
		       json_pack("{s:s, s:I, s:i, s:o, s:o}", "name", u->name, "uid",
				 (json_int_t)(u->uid == (uid_t)-1 ? -1 : (json_int_t)u->uid),
				 "admin_level", (int)u->admin, "default_account",
				 jstr_or_null(u->default_account), "default_wckey",
				 jstr_or_null(u->default_wckey)));
}

void acct_qos_save(const struct acct_qos *q)
{
	json_t *lim = acct_limits_to_json(&q->lim);
	json_object_set_new(lim, "max_tres_per_user", tres_json(q->max_tres_per_user));
	store_acct_put("qos", q->name,
		       json_pack("{s:s, s:I, s:o, s:I, s:f, s:I, s:o, s:o, s:o}", "name", q->name,
				 "id", (json_int_t)q->id, "description", jstr_or_null(q->description),
				 "priority", (json_int_t)q->priority, "usage_factor", q->usage_factor,
				 "flags", (json_int_t)q->flags, "preempt", jstr_or_null(q->preempt),
				 "preempt_mode", jstr_or_null(q->preempt_mode), "limits", lim));
}

void assoc_save(const struct assoc *a)
{
	char *key = id_key(a->id);
	json_t *shares = a->shares == SHARES_PARENT ? json_string("parent")
						    : json_integer(a->shares);
	store_acct_put("assoc", key,
		       json_pack("{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
				 (json_int_t)a->id, "cluster", a->cluster, "account", a->account,
				 "user", jstr_or_null(a->user), "partition", jstr_or_null(a->partition),
				 "parent", jstr_or_null(a->parent_acct), "shares", shares, "limits",
				 acct_limits_to_json(&a->lim), "qos", jstr_or_null(a->qos_list),
				 "default_qos", jstr_or_null(a->default_qos)));
	free(key);
}

static char *jdup(const json_t *o, const char *key)
{
	const char *s = msg_str(o, key);
	return s ? xstrdup(s) : NULL;
}

static void load_cluster(const char *key, const json_t *rec, void *arg)
{
	if (acct_cluster_find(key))
		return;
	struct acct_cluster *c = acct_cluster_new(key);
	c->created = jint_or(rec, "created", 0);
}

static void load_account(const char *key, const json_t *rec, void *arg)
{
	if (acct_account_find(key))
		return;
	struct acct_account *a = acct_account_new(key);
	json_t *v;
	size_t i, n = 0;
	a->description = jdup(rec, "description");
	a->organization = jdup(rec, "organization");
	json_array_foreach(json_object_get(rec, "flags"), i, v)
		if (json_is_string(v) && !strcasecmp(json_string_value(v), "TeamJobs"))
			a->flags |= ACCT_FLAG_TEAMJOBS;
	json_t *coords = json_object_get(rec, "coords");
	free(a->coords);
	a->coords = xmalloc((json_array_size(coords) + 1) * sizeof(char *));
	json_array_foreach(coords, i, v)
		if (json_is_string(v))
			a->coords[n++] = xstrdup(json_string_value(v));
}

static void load_user(const char *key, const json_t *rec, void *arg)
{
	if (acct_user_find(key))
		return;
	struct acct_user *u = acct_user_new(key);
	/* the password database's uid now wins over the stored one (a user
	 * added before its login existed) */
	if (u->uid == (uid_t)-1 && jint_or(rec, "uid", -1) >= 0)
		u->uid = (uid_t)jint_or(rec, "uid", -1);
	int level = jint_or(rec, "admin_level", 0);
	u->admin = level == ADMIN_ADMIN ? ADMIN_ADMIN : level == ADMIN_OPERATOR ? ADMIN_OPERATOR
										: ADMIN_NONE;
	u->default_account = jdup(rec, "default_account");
	u->default_wckey = jdup(rec, "default_wckey");
}

static void load_qos(const char *key, const json_t *rec, void *arg)
{
	if (acct_qos_find(key))
		return;
	struct acct_qos *q = acct_qos_new(key, jint_or(rec, "id", 0));
	json_t *lim = json_object_get(rec, "limits");
	q->description = jdup(rec, "description");
	q->priority = jint_or(rec, "priority", 0);
	json_t *uf = json_object_get(rec, "usage_factor");
	q->usage_factor = json_is_number(uf) ? json_number_value(uf) : 1.0;
	q->flags = jint_or(rec, "flags", 0);
	q->preempt = jdup(rec, "preempt");
	q->preempt_mode = jdup(rec, "preempt_mode");
	acct_limits_from_json(&q->lim, lim);
	tres_from_json(q->max_tres_per_user, lim, "max_tres_per_user");
}

static void load_assoc(const char *key, const json_t *rec, void *arg)
{
	const char *cluster = msg_str(rec, "cluster"), *account = msg_str(rec, "account");
	json_int_t id = jint_or(rec, "id", 0);
	if (!cluster || !account || id <= 0 || id > UINT32_MAX - 1 ||
	    assoc_find_exact(cluster, account, msg_str(rec, "user"), msg_str(rec, "partition"))) {
		log_error("accounting: stored association %s ignored (incomplete or duplicate)", key);
		return;
	}
	struct assoc *a = assoc_new(id, cluster, account, msg_str(rec, "user"), msg_str(rec, "partition"));
	json_t *shares = json_object_get(rec, "shares");
	a->parent_acct = jdup(rec, "parent");
	a->shares = json_is_string(shares) ? SHARES_PARENT
		    : json_is_integer(shares) ? (uint32_t)json_integer_value(shares) : 1;
	acct_limits_from_json(&a->lim, json_object_get(rec, "limits"));
	a->qos_list = jdup(rec, "qos");
	a->default_qos = jdup(rec, "default_qos");
}

void assoc_resolve_parents(void)
{
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted)
			continue;
		if (a->user)
			/* a user's association hangs under its account's own */
			a->parent = assoc_find_exact(a->cluster, a->account, NULL, NULL);
		else
			a->parent = a->parent_acct
					    ? assoc_find_exact(a->cluster, a->parent_acct, NULL, NULL)
					    : NULL;
	}
}

/* What the cluster needs before anyone can run a job under
 * AccountingStorageEnforce: as slurmdbd makes them for a new cluster. */
static void make_defaults(void)
{
	const char *cl = core.cluster;
	if (!acct_cluster_find(cl))
		acct_cluster_save(acct_cluster_new(cl));
	if (!acct_qos_find("normal")) {
		struct acct_qos *q = acct_qos_new("normal", accounting.qos ? 0 : 1);
		q->description = xstrdup("Normal QOS default");
		acct_qos_save(q);
	}
	struct acct_account *root = acct_account_find("root");
	if (!root) {
		root = acct_account_new("root");
		root->description = xstrdup("default root account");
		root->organization = xstrdup("root");
		acct_account_save(root);
	}
	if (!assoc_find_exact(cl, "root", NULL, NULL)) {
		struct assoc *a = assoc_new(0, cl, "root", NULL, NULL);
		a->qos_list = xstrdup("normal");
		assoc_save(a);
	}
	/* root's own user association only with its record: an
	 * administrator who deleted it later is not overruled */
	if (!acct_user_find("root")) {
		struct acct_user *u = acct_user_new("root");
		u->admin = ADMIN_ADMIN;
		u->default_account = xstrdup("root");
		acct_user_save(u);
		if (!assoc_find_exact(cl, "root", "root", NULL))
			assoc_save(assoc_new(0, cl, "root", "root", NULL));
	}
}

/* ---- configuration ---- */

static bool word_in(const char *list, const char *word)
{
	const char *p = list;
	size_t n = strlen(word);
	while (p && *p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		size_t len = strcspn(p, ",");
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len == n && !strncasecmp(p, word, n))
			return true;
		p += strcspn(p, ",");
	}
	return false;
}

void assoc_reconfigure(void)
{
	const char *enforce = conf_get(core.conf, "AccountingStorageEnforce");
	const char *priv = conf_get(core.conf, "PrivateData");
	bool all = word_in(enforce, "all");
	/* slurm.conf(5): limits, qos and safe each imply associations; safe
	 * also implies limits.  "all" is everything but nojobs/nosteps. */
	accounting.enforce_safe = all || word_in(enforce, "safe");
	accounting.enforce_limits = all || accounting.enforce_safe || word_in(enforce, "limits");
	accounting.enforce_qos = all || word_in(enforce, "qos");
	accounting.enforce_assoc = all || accounting.enforce_limits || accounting.enforce_qos ||
				   word_in(enforce, "associations");
	accounting.private_jobs = word_in(priv, "jobs");
	accounting.private_usage = word_in(priv, "usage");
	accounting.private_users = word_in(priv, "users");
	accounting.private_accounts = word_in(priv, "accounts");
}

void assoc_setup(void)
{
	if (!accounting.next_assoc_id)
		accounting.next_assoc_id = 1;
	if (!accounting.next_qos_id)
		accounting.next_qos_id = 1;
	assoc_reconfigure();
	store_acct_load("cluster", load_cluster, NULL);
	store_acct_load("account", load_account, NULL);
	store_acct_load("user", load_user, NULL);
	store_acct_load("qos", load_qos, NULL);
	store_acct_load("assoc", load_assoc, NULL);
	make_defaults();
	assoc_resolve_parents();
	int na = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		na++;
	log_info("accounting: %zu accounts, %zu users, %zu QOS, %d associations", idx_accounts.n,
		 idx_users.n, idx_qos.n, na);
}

/* ---- lookups ---- */

struct acct_cluster *acct_cluster_find(const char *name)
{
	return idx_get(&idx_clusters, name);
}

struct acct_account *acct_account_find(const char *name)
{
	return idx_get(&idx_accounts, name);
}

struct acct_user *acct_user_find(const char *name)
{
	return idx_get(&idx_users, name);
}

struct acct_user *acct_user_by_uid(uid_t uid)
{
	struct acct_user *u = acct_user_find(names_user(uid));
	if (u && (u->uid == uid || u->uid == (uid_t)-1))
		return u;
	/* a name the password database gives another way (renamed login) */
	for (u = accounting.users; u; u = u->next)
		if (u->uid == uid)
			return u;
	return NULL;
}

struct acct_qos *acct_qos_find(const char *name)
{
	return idx_get(&idx_qos, name);
}

struct acct_qos *acct_qos_by_id(uint32_t id)
{
	for (struct acct_qos *q = accounting.qos; q; q = q->next)
		if (q->id == id)
			return q;
	return NULL;
}

struct assoc *assoc_find_exact(const char *cluster, const char *account, const char *user,
			       const char *partition)
{
	/* every submission asks: the key on the stack when it fits */
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s\x1f%s\x1f%s\x1f%s", cluster ? cluster : "",
			 account ? account : "", user ? user : "", partition ? partition : "");
	if (n >= 0 && (size_t)n < sizeof(buf))
		return idx_get(&idx_assocs, buf);
	char *key = assoc_key(cluster, account, user, partition);
	struct assoc *a = idx_get(&idx_assocs, key);
	free(key);
	return a;
}

struct assoc *assoc_find(const char *account, const char *user, const char *partition)
{
	struct assoc *a = NULL;
	if (!account || !user)
		return NULL;
	if (partition && *partition)
		a = assoc_find_exact(core.cluster, account, user, partition);
	return a ? a : assoc_find_exact(core.cluster, account, user, NULL);
}

struct assoc *assoc_find_account(const char *account)
{
	return account ? assoc_find_exact(core.cluster, account, NULL, NULL) : NULL;
}

struct assoc *assoc_by_id(uint32_t id)
{
	char *key = id_key(id);
	struct assoc *a = idx_get(&idx_assoc_ids, key);
	free(key);
	return a;
}

const char *acct_default_account(const char *user)
{
	struct acct_user *u = acct_user_find(user);
	return u ? u->default_account : NULL;
}

const char *assoc_qos_effective(const struct assoc *a)
{
	for (; a; a = a->parent)
		if (a->qos_list)
			return a->qos_list;
	return "normal";
}

bool assoc_qos_allowed(const struct assoc *a, const char *qos)
{
	const char *list = assoc_qos_effective(a);
	return qos && word_in(list, qos);
}

const char *assoc_default_qos(const struct assoc *a)
{
	for (const struct assoc *p = a; p; p = p->parent)
		if (p->default_qos)
			return p->default_qos;
	/* Slurm: with no default, "normal" when the association may use it,
	 * else the first QOS it may use */
	const char *list = assoc_qos_effective(a);
	if (word_in(list, "normal") || !*list)
		return "normal";
	static char first[256];
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(list, ","), list);
	return first;
}

bool acct_account_under(const char *account, const char *top)
{
	int guard = 0;
	for (const struct assoc *a = assoc_find_account(account); a && guard < 10000;
	     a = a->parent, guard++)
		if (!strcmp(a->account, top))
			return true;
	return false;
}

int assoc_depth(const struct assoc *a)
{
	int d = 0;
	for (const struct assoc *p = a->parent; p && d < 10000; p = p->parent)
		d++;
	return d;
}

void assoc_foreach(void (*fn)(struct assoc *a, void *arg), void *arg)
{
	for (struct assoc *a = accounting.assocs, *next; a; a = next) {
		next = a->next;
		if (!a->deleted)
			fn(a, arg);
	}
}

/* ---- roles ---- */

enum admin_level acct_admin_level(uid_t uid)
{
	if (uid == 0 || uid == core.slurm_uid)
		return ADMIN_ADMIN;
	struct acct_user *u = acct_user_by_uid(uid);
	return u ? u->admin : ADMIN_NONE;
}

bool acct_is_operator(uid_t uid)
{
	return acct_admin_level(uid) >= ADMIN_OPERATOR;
}

bool acct_account_has_coord(const struct acct_account *a, const char *user)
{
	for (char **p = a ? a->coords : NULL; p && *p; p++)
		if (!strcmp(*p, user))
			return true;
	return false;
}

bool acct_is_coord(uid_t uid, const char *account)
{
	struct acct_user *u = acct_user_by_uid(uid);
	int guard = 0;
	if (!u || !account)
		return false;
	const struct assoc *a = assoc_find_account(account);
	if (!a)
		return acct_account_has_coord(acct_account_find(account), u->name);
	for (; a && guard < 10000; a = a->parent, guard++)
		if (acct_account_has_coord(acct_account_find(a->account), u->name))
			return true;
	return false;
}

bool acct_user_in_account(uid_t uid, const char *account)
{
	struct acct_user *u = acct_user_by_uid(uid);
	if (!u || !account)
		return false;
	if (assoc_find_exact(core.cluster, account, u->name, NULL))
		return true;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && a->user && !strcmp(a->user, u->name) &&
		    !strcmp(a->account, account) && !strcmp(a->cluster, core.cluster))
			return true;
	return false;
}

/* ---- QOS flags ---- */

static const struct {
	unsigned bit;
	const char *name;
} qos_flags[] = {
	{ QOS_FLAG_DENY_ON_LIMIT, "DenyOnLimit" },
	{ QOS_FLAG_ENFORCE_USAGE_THRES, "EnforceUsageThreshold" },
	{ QOS_FLAG_NO_RESERVE, "NoReserve" },
	{ QOS_FLAG_PART_MAX_NODE, "PartitionMaxNodes" },
	{ QOS_FLAG_PART_MIN_NODE, "PartitionMinNodes" },
	{ QOS_FLAG_OVER_PART_QOS, "OverPartQOS" },
	{ QOS_FLAG_PART_TIME_LIMIT, "PartitionTimeLimit" },
	{ QOS_FLAG_REQ_RESV, "RequiresReservation" },
	{ QOS_FLAG_NO_DECAY, "NoDecay" },
	{ QOS_FLAG_USAGE_FACTOR_SAFE, "UsageFactorSafe" },
};

const char *qos_flag_name(unsigned bit)
{
	for (size_t i = 0; i < sizeof(qos_flags) / sizeof(qos_flags[0]); i++)
		if (qos_flags[i].bit == bit)
			return qos_flags[i].name;
	return NULL;
}

int qos_flags_parse(const char *s, unsigned *flags)
{
	unsigned out = 0;
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < sizeof(qos_flags) / sizeof(qos_flags[0]); i++)
			if (strlen(qos_flags[i].name) == len && !strncasecmp(qos_flags[i].name, p, len))
				break;
		if (i == sizeof(qos_flags) / sizeof(qos_flags[0]))
			return -1;
		out |= qos_flags[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	*flags = out;
	return 0;
}
