/* ACCT_MGR: sacctmgr's add, modify, delete, list, dump and load of the
 * accounting objects (assoc.c holds them).  Each request is checked whole
 * before anything changes; a change is answered once it is durable.  The
 * reply says what changed (names, associations); sacctmgr words it.
 * Who may do what follows Slurm's sacctmgr(1): operators and
 * administrators everything, coordinators their accounts' users and
 * sub-accounts, everyone may list. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "ctld/assoc_impl.h"
#include "ctld/ctld.h"

#define NOT_GIVEN INT64_MIN

struct mgr {
	struct net_req *req;
	uid_t uid;
	const char *uname;           /* the requester's user name */
	bool oper, admin;            /* Operator or more, Administrator */
	bool dry_run;                /* sacctmgr without -i: check and tell, change nothing */
	const json_t *where, *set, *names, *options, *records;
	json_t *out;                 /* the reply */
	bool changed;
	int rc;
	struct herd_error err;
};

static int fail(struct mgr *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct mgr *m, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err.text, sizeof(m->err.text), fmt, ap);
	va_end(ap);
	m->rc = rc;
	return -1;
}

static int denied(struct mgr *m)
{
	return fail(m, HERD_ERR_ACCESS, "%s", herd_strerror(HERD_ERR_ACCESS));
}

static const char *wget(const struct mgr *m, const char *key)
{
	return json_string_value(json_object_get(m->where, key));
}

static const char *sget(const struct mgr *m, const char *key)
{
	return json_string_value(json_object_get(m->set, key));
}

static bool has_option(const struct mgr *m, const char *opt)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->options, i, v)
		if (json_is_string(v) && !strcasecmp(json_string_value(v), opt))
			return true;
	return false;
}

/* ---- string lists ---- */

struct strv {
	char **v;
	size_t n;
};

static void strv_push(struct strv *s, const char *item)
{
	s->v = xrealloc(s->v, (s->n + 2) * sizeof(char *));
	s->v[s->n++] = xstrdup(item);
	s->v[s->n] = NULL;
}

static bool strv_has(const struct strv *s, const char *item)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], item))
			return true;
	return false;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* "a,b,,c" into s (empty items dropped, duplicates once). */
static void strv_split(struct strv *s, const char *list)
{
	const char *p = list;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		if (len) {
			char *item = xstrndup(p, len);
			if (!strv_has(s, item))
				strv_push(s, item);
			free(item);
		}
		p += len;
		if (*p == ',')
			p++;
	}
}

/* The objects named: "names" (words after the entity) and where name=. */
static void get_names(const struct mgr *m, struct strv *s, const char *alt_key)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->names, i, v)
		if (json_is_string(v) && *json_string_value(v) && !strv_has(s, json_string_value(v)))
			strv_push(s, json_string_value(v));
	strv_split(s, wget(m, "name"));
	if (alt_key)
		strv_split(s, wget(m, alt_key));
}

static bool in_list(const char *list, const char *word)
{
	struct strv s = { 0 };
	strv_split(&s, list);
	bool r = strv_has(&s, word);
	strv_free(&s);
	return r;
}

/* Every key of o is one of allowed; else the Slurm-like refusal. */
static int check_keys(struct mgr *m, const json_t *o, const char *const *allowed, const char *what)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)o, key, v) {
		size_t i;
		for (i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				break;
		if (!allowed[i])
			return fail(m, HERD_ERR_INVALID_ARG, "Unknown %s option: %s", what, key);
		if (!json_is_string(v))
			return fail(m, HERD_ERR_INVALID_ARG, "Value of %s must be a string", key);
	}
	return 0;
}

/* ---- association attributes ---- */

struct assoc_change {
	struct acct_limits lim;      /* NOT_GIVEN: left as is */
	int64_t shares;              /* NOT_GIVEN, or SHARES_PARENT */
	const char *qos;             /* as given: "a,b", "+a", "-a,b"; "" / "-1" clears */
	const char *default_qos;     /* "" / "-1" clears */
	bool any;
};

static void change_init(struct assoc_change *c)
{
	int64_t *scalars[] = { &c->lim.grp_jobs, &c->lim.grp_submit, &c->lim.max_jobs,
			       &c->lim.max_submit, &c->lim.max_wall, &c->lim.grp_wall };
	for (size_t i = 0; i < 6; i++)
		*scalars[i] = NOT_GIVEN;
	for (int i = 0; i < TRES_COUNT; i++)
		c->lim.grp_tres[i] = c->lim.grp_tres_mins[i] = c->lim.max_tres_per_job[i] =
			c->lim.max_tres_per_node[i] = c->lim.max_tres_mins_per_job[i] = NOT_GIVEN;
	c->shares = NOT_GIVEN;
	c->qos = c->default_qos = NULL;
	c->any = false;
}

static int parse_count(struct mgr *m, const char *key, const char *s, int64_t *out)
{
	uint64_t v;
	if (!strcmp(s, "-1")) {
		*out = ACCT_UNSET;
		return 0;
	}
	if (parse_uint(s, INT32_MAX - 1, &v) < 0)
		return fail(m, HERD_ERR_INVALID_ARG, "Invalid value '%.60s' for %s (a count, or -1 for none)",
			    s, key);
	*out = (int64_t)v;
	return 0;
}

static int parse_wall(struct mgr *m, const char *key, const char *s, int64_t *out)
{
	int64_t secs;
	if (!strcmp(s, "-1")) {
		*out = ACCT_UNSET;
		return 0;
	}
	if (parse_time_limit(s, &secs) < 0)
		return fail(m, HERD_ERR_INVALID_ARG, "Invalid value '%.60s' for %s (a time, or -1 for none)",
			    s, key);
	*out = secs < 0 ? ACCT_UNSET : secs / 60;
	return 0;
}

static int parse_tres(struct mgr *m, const char *key, const char *s, tres_vec v)
{
	char err[200];
	if (tres_parse(s, v, err, sizeof(err)) < 0)
		return fail(m, HERD_ERR_INVALID_ARG, "%s: %.130s", key, err);
	return 0;
}

/* Every QOS named in a list value ("a,b", "+a", "-a") exists. */
static int check_qos_names(struct mgr *m, const char *list)
{
	const char *p = list;
	if (!strcmp(p, "-1"))
		return 0;
	if (*p == '+' || *p == '-')
		p++;
	struct strv s = { 0 };
	strv_split(&s, p);
	for (size_t i = 0; i < s.n; i++) {
		const char *name = s.v[i];
		if (*name == '+' || *name == '-')
			name++;
		if (!acct_qos_find(name)) {
			fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS name '%.100s'", name);
			strv_free(&s);
			return -1;
		}
	}
	strv_free(&s);
	return 0;
}

/* Keys of association attributes sacctmgr sends (canonical, lower case). */
static const char *const assoc_keys[] = {
	"fairshare", "grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxjobs",
	"maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode", "maxtresminsperjob", "qos",
	"defaultqos", NULL
};

static bool is_assoc_key(const char *key)
{
	for (size_t i = 0; assoc_keys[i]; i++)
		if (!strcmp(assoc_keys[i], key))
			return true;
	return false;
}

/* The association attributes of o into c; other keys are left to the
 * caller.  -1 with m's error for a bad value. */
static int change_parse(struct mgr *m, const json_t *o, struct assoc_change *c)
{
	const char *key;
	json_t *jv;
	change_init(c);
	json_object_foreach((json_t *)o, key, jv) {
		const char *v = json_string_value(jv);
		int rc = 0;
		if (!v || !is_assoc_key(key))
			continue;
		c->any = true;
		if (!strcmp(key, "fairshare")) {
			uint64_t n;
			if (!strcasecmp(v, "parent"))
				c->shares = SHARES_PARENT;
			else if (!strcmp(v, "-1"))
				c->shares = 1;   /* Slurm: back to the default */
			else if (parse_uint(v, UINT32_MAX - 1, &n) < 0)
				rc = fail(m, HERD_ERR_INVALID_ARG,
					  "Invalid value '%.60s' for Fairshare (a number or \"parent\")", v);
			else
				c->shares = n;
		} else if (!strcmp(key, "grpjobs")) {
			rc = parse_count(m, "GrpJobs", v, &c->lim.grp_jobs);
		} else if (!strcmp(key, "grpsubmitjobs")) {
			rc = parse_count(m, "GrpSubmitJobs", v, &c->lim.grp_submit);
		} else if (!strcmp(key, "maxjobs")) {
			rc = parse_count(m, "MaxJobs", v, &c->lim.max_jobs);
		} else if (!strcmp(key, "maxsubmitjobs")) {
			rc = parse_count(m, "MaxSubmitJobs", v, &c->lim.max_submit);
		} else if (!strcmp(key, "grpwall")) {
			rc = parse_wall(m, "GrpWall", v, &c->lim.grp_wall);
		} else if (!strcmp(key, "maxwall")) {
			rc = parse_wall(m, "MaxWall", v, &c->lim.max_wall);
		} else if (!strcmp(key, "grptres")) {
			rc = parse_tres(m, "GrpTRES", v, c->lim.grp_tres);
		} else if (!strcmp(key, "grptresmins")) {
			rc = parse_tres(m, "GrpTRESMins", v, c->lim.grp_tres_mins);
		} else if (!strcmp(key, "maxtresperjob")) {
			rc = parse_tres(m, "MaxTRESPerJob", v, c->lim.max_tres_per_job);
		} else if (!strcmp(key, "maxtrespernode")) {
			rc = parse_tres(m, "MaxTRESPerNode", v, c->lim.max_tres_per_node);
		} else if (!strcmp(key, "maxtresminsperjob")) {
			rc = parse_tres(m, "MaxTRESMinsPerJob", v, c->lim.max_tres_mins_per_job);
		} else if (!strcmp(key, "qos")) {
			rc = check_qos_names(m, v);
			c->qos = v;
		} else if (!strcmp(key, "defaultqos")) {
			if (*v && strcmp(v, "-1") && !acct_qos_find(v))
				rc = fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS name '%.100s'", v);
			c->default_qos = v;
		}
		if (rc)
			return -1;
	}
	return 0;
}

static void merge_scalar(int64_t *dst, int64_t v)
{
	if (v != NOT_GIVEN)
		*dst = v;
}

static void merge_tres(tres_vec dst, const tres_vec v)
{
	for (int i = 0; i < TRES_COUNT; i++)
		if (v[i] != NOT_GIVEN)
			dst[i] = v[i];
}

/* The QOS list a change gives a: "+x" and "-x" start from what a uses
 * now (its own or inherited), a plain list replaces it.  Caller frees;
 * NULL: inherit. */
static char *qos_list_apply(const struct assoc *a, const char *v)
{
	if (!*v || !strcmp(v, "-1"))
		return NULL;
	struct strv cur = { 0 }, items = { 0 }, out = { 0 };
	char mode = 0;
	if (*v == '+' || *v == '-')
		mode = *v++;
	strv_split(&items, v);
	if (mode)
		strv_split(&cur, assoc_qos_effective(a));
	for (size_t i = 0; i < cur.n; i++)
		strv_push(&out, cur.v[i]);
	for (size_t i = 0; i < items.n; i++) {
		const char *name = items.v[i];
		char op = mode ? mode : '=';
		if (*name == '+' || *name == '-')
			op = *name++;
		if (op == '-') {
			struct strv keep = { 0 };
			for (size_t j = 0; j < out.n; j++)
				if (strcmp(out.v[j], name))
					strv_push(&keep, out.v[j]);
			strv_free(&out);
			out = keep;
		} else if (!strv_has(&out, name)) {
			strv_push(&out, name);
		}
	}
	size_t len = 1;
	for (size_t i = 0; i < out.n; i++)
		len += strlen(out.v[i]) + 1;
	char *s = xmalloc(len);
	for (size_t i = 0; i < out.n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, out.v[i]);
	}
	strv_free(&cur);
	strv_free(&items);
	strv_free(&out);
	return s;
}

/* Would the change leave a's default QOS outside its QOS list? */
static int change_check_qos(struct mgr *m, const struct assoc *a, const struct assoc_change *c)
{
	char *list = c->qos ? qos_list_apply(a, c->qos) : xstrdup(assoc_qos_effective(a));
	const char *dq = c->default_qos ? c->default_qos : a->default_qos;
	int rc = 0;
	if (!list)
		list = xstrdup(a->parent ? assoc_qos_effective(a->parent) : "normal");
	if (dq && *dq && strcmp(dq, "-1") && !in_list(list, dq))
		rc = fail(m, HERD_ERR_INVALID_ARG,
			  "Default QOS '%.40s' is not in the QOS list (%.60s) of account '%.30s'", dq,
			  list, a->account);
	free(list);
	return rc;
}

static void change_apply(struct assoc *a, const struct assoc_change *c)
{
	merge_scalar(&a->lim.grp_jobs, c->lim.grp_jobs);
	merge_scalar(&a->lim.grp_submit, c->lim.grp_submit);
	merge_scalar(&a->lim.max_jobs, c->lim.max_jobs);
	merge_scalar(&a->lim.max_submit, c->lim.max_submit);
	merge_scalar(&a->lim.max_wall, c->lim.max_wall);
	merge_scalar(&a->lim.grp_wall, c->lim.grp_wall);
	merge_tres(a->lim.grp_tres, c->lim.grp_tres);
	merge_tres(a->lim.grp_tres_mins, c->lim.grp_tres_mins);
	merge_tres(a->lim.max_tres_per_job, c->lim.max_tres_per_job);
	merge_tres(a->lim.max_tres_per_node, c->lim.max_tres_per_node);
	merge_tres(a->lim.max_tres_mins_per_job, c->lim.max_tres_mins_per_job);
	if (c->shares != NOT_GIVEN)
		a->shares = (uint32_t)c->shares;
	if (c->qos) {
		char *list = qos_list_apply(a, c->qos);
		free(a->qos_list);
		a->qos_list = list;
	}
	if (c->default_qos) {
		free(a->default_qos);
		a->default_qos = *c->default_qos && strcmp(c->default_qos, "-1")
					 ? xstrdup(c->default_qos) : NULL;
	}
}

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
	return !a->user || may_see_user(m, a->user);
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

static void tree_walk(const struct assoc *node, struct assoc **all, size_t n, struct assoc ***out,
		      size_t *nout, int depth)
{
	struct assoc **kids = xmalloc((n + 1) * sizeof(*kids));
	size_t nk = 0;
	(*out)[(*nout)++] = (struct assoc *)node;
	if (depth > 1000)
		goto done;
	for (size_t i = 0; i < n; i++)
		if (all[i]->parent == node)
			kids[nk++] = all[i];
	qsort(kids, nk, sizeof(*kids), cmp_assoc);
	for (size_t i = 0; i < nk; i++)
		tree_walk(kids[i], all, n, out, nout, depth + 1);
done:
	free(kids);
}

static int cmp_cluster_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every live association, clusters by name, each cluster's tree depth
 * first (users, then sub-accounts, by name).  Caller frees the array. */
static struct assoc **assocs_tree_order(size_t *count)
{
	size_t n = 0, nout = 0, nc = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		n += !a->deleted;
	struct assoc **all = xmalloc((n + 1) * sizeof(*all)), **out = xmalloc((n + 1) * sizeof(*out));
	char **clusters = xmalloc((n + 1) * sizeof(char *));
	n = 0;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted)
			all[n++] = a;
	for (size_t i = 0; i < n; i++)
		if (!all[i]->parent && !all[i]->user && !strcmp(all[i]->account, "root"))
			clusters[nc++] = all[i]->cluster;
	qsort(clusters, nc, sizeof(char *), cmp_cluster_name);
	for (size_t c = 0; c < nc; c++)
		for (size_t i = 0; i < n; i++)
			if (!all[i]->parent && !all[i]->user && !strcmp(all[i]->account, "root") &&
			    !strcmp(all[i]->cluster, clusters[c]))
				tree_walk(all[i], all, n, &out, &nout, 0);
	/* orphans (a parent lost in a broken store): listed last, not lost */
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < nout; j++)
			if (out[j] == all[i])
				break;
		if (j == nout)
			out[nout++] = all[i];
	}
	free(all);
	free(clusters);
	*count = nout;
	return out;
}

/* Filters of list/modify/delete on associations (where keys). */
struct assoc_filter {
	struct strv clusters, accounts, users, partitions, parents, ids;
	bool users_only, accounts_only;
};

static void filter_fill(const struct mgr *m, struct assoc_filter *f)
{
	memset(f, 0, sizeof(*f));
	strv_split(&f->clusters, wget(m, "cluster"));
	strv_split(&f->accounts, wget(m, "account"));
	strv_split(&f->users, wget(m, "user"));
	strv_split(&f->partitions, wget(m, "partition"));
	strv_split(&f->parents, wget(m, "parent"));
	strv_split(&f->ids, wget(m, "id"));
}

static void filter_free(struct assoc_filter *f)
{
	strv_free(&f->clusters);
	strv_free(&f->accounts);
	strv_free(&f->users);
	strv_free(&f->partitions);
	strv_free(&f->parents);
	strv_free(&f->ids);
}

static bool filter_match(const struct assoc_filter *f, const struct assoc *a)
{
	char id[16];
	snprintf(id, sizeof(id), "%u", a->id);
	if (f->clusters.n && !strv_has(&f->clusters, a->cluster))
		return false;
	if (f->accounts.n && !strv_has(&f->accounts, a->account))
		return false;
	if (f->users.n && (!a->user || !strv_has(&f->users, a->user)))
		return false;
	if (f->partitions.n && (!a->partition || !strv_has(&f->partitions, a->partition)))
		return false;
	if (f->parents.n && (a->user || !a->parent_acct || !strv_has(&f->parents, a->parent_acct)))
		return false;
	if (f->ids.n && !strv_has(&f->ids, id))
		return false;
	if (f->users_only && !a->user)
		return false;
	if (f->accounts_only && a->user)
		return false;
	return true;
}

static json_t *assoc_ref(const struct assoc *a)
{
	json_t *o = json_pack("{s:s, s:s}", "cluster", a->cluster, "account", a->account);
	if (a->user)
		json_object_set_new(o, "user", json_string(a->user));
	if (a->partition)
		json_object_set_new(o, "partition", json_string(a->partition));
	if (!a->user && a->parent_acct)
		json_object_set_new(o, "parent", json_string(a->parent_acct));
	return o;
}

static const char *const where_assoc_keys[] = {
	"name", "cluster", "account", "user", "partition", "parent", "id", NULL
};

/* ---- jobs in the way of a delete ---- */

struct jobs_scan {
	const struct strv *accounts;   /* NULL: any */
	const struct strv *users;      /* NULL: any */
	const char *partition;         /* NULL: any */
	const struct strv *qos;        /* NULL: any */
	json_t *found;
};

static void scan_job(struct job *job, void *arg)
{
	struct jobs_scan *s = arg;
	if (job_state_is_final(job->state))
		return;
	if (s->accounts && (!job->account || !strv_has(s->accounts, job->account)))
		return;
	if (s->users && (!job->user || !strv_has(s->users, job->user)))
		return;
	if (s->partition && (!job->part || strcmp(job->part->name, s->partition)))
		return;
	if (s->qos && (!job->qos || !strv_has(s->qos, job->qos)))
		return;
	if (json_array_size(s->found) < 1000)
		json_array_append_new(s->found,
				      json_pack("{s:I, s:s, s:s, s:s}", "job_id", (json_int_t)job->id,
						"cluster", ctld.cluster, "account",
						job->account ? job->account : "", "user",
						job->user ? job->user : ""));
}

/* Jobs pending or running that a delete would orphan: the reply lists
 * them (Slurm: "Job(s) active, cancel job(s) before remove"). */
static bool jobs_block(struct mgr *m, struct jobs_scan *s)
{
	s->found = json_array();
	job_foreach(scan_job, s);
	if (!json_array_size(s->found)) {
		json_decref(s->found);
		return false;
	}
	json_object_set_new(m->out, "jobs_active", s->found);
	json_object_set_new(m->out, "error",
			    json_string("Job(s) active, cancel job(s) before remove"));
	return true;
}

/* ---- cluster ---- */

static int add_cluster(struct mgr *m)
{
	static const char *const keys[] = { "name", "fairshare", "grptres", "grpjobs",
					    "grpsubmitjobs", "maxjobs", "maxsubmitjobs", "maxwall",
					    "maxtresperjob", "qos", "defaultqos", NULL };
	struct strv names = { 0 };
	struct assoc_change chg;
	json_t *added = json_array();
	json_object_set_new(m->out, "added", added);
	if (check_keys(m, m->set, keys, "cluster") < 0 || change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!m->admin)
		return denied(m);
	get_names(m, &names, NULL);
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "Need name of cluster to add");
	for (size_t i = 0; i < names.n; i++) {
		if (acct_cluster_find(names.v[i]))
			continue;
		json_array_append_new(added, json_string(names.v[i]));
		if (m->dry_run)
			continue;
		acct_cluster_save(acct_cluster_new(names.v[i]));
		struct assoc *a = assoc_new(0, names.v[i], "root", NULL, NULL);
		a->qos_list = xstrdup("normal");
		change_apply(a, &chg);
		assoc_save(a);
		m->changed = true;
	}
	strv_free(&names);
	return 0;
}

static json_t *cluster_row(const struct acct_cluster *c)
{
	struct assoc *root = assoc_find_exact(c->name, "root", NULL, NULL);
	json_t *row = root ? assoc_row(root) : json_object();
	bool self = !strcmp(c->name, ctld.cluster);
	json_object_set_new(row, "cluster", json_string(c->name));
	json_object_set_new(row, "control_host", json_string(self ? ctld.ctld_target.host : ""));
	json_object_set_new(row, "control_port", json_integer(self ? ctld.ctld_target.port : 0));
	json_object_set_new(row, "rpc", json_integer(self ? 9728 : 0));   /* 22.05's protocol */
	json_object_set_new(row, "created", json_integer(c->created));
	return row;
}

static int cmp_cluster(const void *x, const void *y)
{
	return strcmp((*(struct acct_cluster *const *)x)->name, (*(struct acct_cluster *const *)y)->name);
}

static int list_cluster(struct mgr *m)
{
	static const char *const keys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	if (check_keys(m, m->where, keys, "cluster") < 0)
		return -1;
	get_names(m, &names, "cluster");
	size_t n = 0, k = 0;
	for (struct acct_cluster *c = accounting.clusters; c; c = c->next)
		n++;
	struct acct_cluster **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_cluster *c = accounting.clusters; c; c = c->next)
		if (!names.n || strv_has(&names, c->name))
			v[k++] = c;
	qsort(v, k, sizeof(*v), cmp_cluster);
	json_t *rows = json_array();
	for (size_t i = 0; i < k; i++)
		json_array_append_new(rows, cluster_row(v[i]));
	json_object_set_new(m->out, "rows", rows);
	free(v);
	strv_free(&names);
	return 0;
}

static int modify_cluster(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	struct assoc_change chg;
	json_t *mod = json_array();
	json_object_set_new(m->out, "assocs", mod);
	if (check_keys(m, m->where, wkeys, "cluster") < 0 ||
	    check_keys(m, m->set, assoc_keys, "cluster") < 0 || change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!m->admin)
		return denied(m);
	get_names(m, &names, "cluster");
	for (size_t i = 0; i < names.n; i++) {
		struct assoc *a = assoc_find_exact(names.v[i], "root", NULL, NULL);
		if (!a)
			continue;
		if (change_check_qos(m, a, &chg) < 0)
			return -1;
		json_array_append_new(mod, assoc_ref(a));
		if (m->dry_run)
			continue;
		change_apply(a, &chg);
		assoc_save(a);
		m->changed = true;
	}
	strv_free(&names);
	return 0;
}

static int delete_cluster(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "cluster", NULL };
	struct strv names = { 0 };
	json_t *del = json_array();
	json_object_set_new(m->out, "deleted", del);
	if (check_keys(m, m->where, wkeys, "cluster") < 0)
		return -1;
	if (!m->admin)
		return denied(m);
	get_names(m, &names, "cluster");
	for (size_t i = 0; i < names.n; i++)
		if (!strcmp(names.v[i], ctld.cluster))
			return fail(m, HERD_ERR_INVALID_ARG,
				    "Cluster '%.60s' is this controller's own (ClusterName); it cannot be deleted",
				    names.v[i]);
	for (size_t i = 0; i < names.n; i++) {
		struct acct_cluster *c = acct_cluster_find(names.v[i]);
		if (!c)
			continue;
		json_array_append_new(del, json_string(c->name));
		if (m->dry_run)
			continue;
		for (struct assoc *a = accounting.assocs; a; a = a->next)
			if (!a->deleted && !strcmp(a->cluster, c->name))
				assoc_remove(a);
		acct_cluster_remove(c);
		m->changed = true;
	}
	strv_free(&names);
	return 0;
}

/* ---- account ---- */

static const char *org_default(const char *name, const char *parent)
{
	struct acct_account *p = parent && strcmp(parent, "root") ? acct_account_find(parent) : NULL;
	return p && p->organization ? p->organization : name;
}

static int parse_account_flags(struct mgr *m, const char *v, unsigned cur, unsigned *out)
{
	char mode = 0;
	if (*v == '+' || *v == '-')
		mode = *v++;
	struct strv s = { 0 };
	unsigned f = 0;
	if (strcmp(v, "-1") && strcasecmp(v, "none")) {
		strv_split(&s, v);
		for (size_t i = 0; i < s.n; i++) {
			if (strcasecmp(s.v[i], "TeamJobs")) {
				fail(m, HERD_ERR_INVALID_ARG, "Invalid account flag '%.60s' (known: TeamJobs)",
				     s.v[i]);
				strv_free(&s);
				return -1;
			}
			f |= ACCT_FLAG_TEAMJOBS;
		}
	}
	strv_free(&s);
	*out = mode == '+' ? cur | f : mode == '-' ? cur & ~f : f;
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

static int add_account(struct mgr *m)
{
	static const char *const keys[] = {
		"name", "cluster", "description", "organization", "parent", "flags", "fairshare",
		"grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxjobs",
		"maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode", "maxtresminsperjob",
		"qos", "defaultqos", NULL
	};
	struct strv names = { 0 }, clusters = { 0 };
	struct assoc_change chg;
	const char *parent = sget(m, "parent"), *descr = sget(m, "description"),
		   *org = sget(m, "organization"), *flags = sget(m, "flags");
	unsigned fl = 0;
	json_t *added = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "added", added);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->set, keys, "account") < 0 || change_parse(m, m->set, &chg) < 0)
		return -1;
	if (flags && parse_account_flags(m, flags, 0, &fl) < 0)
		return -1;
	if (!parent || !*parent)
		parent = "root";
	get_names(m, &names, NULL);
	strv_split(&clusters, sget(m, "cluster"));
	if (!clusters.n)
		strv_push(&clusters, ctld.cluster);
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "Need name of account to add");
	if (!m->oper && !acct_is_coord(m->uid, parent))
		return denied(m);
	for (size_t c = 0; c < clusters.n; c++) {
		if (!acct_cluster_find(clusters.v[c]))
			return fail(m, HERD_ERR_INVALID_ARG, "Cluster '%.60s' doesn't exist", clusters.v[c]);
		struct assoc *pa = assoc_find_exact(clusters.v[c], parent, NULL, NULL);
		if (!pa)
			return fail(m, HERD_ERR_INVALID_ARG,
				    "Parent account '%.60s' doesn't exist on cluster '%.40s'", parent,
				    clusters.v[c]);
		for (size_t i = 0; i < names.n; i++) {
			if (!strcmp(names.v[i], parent))
				return fail(m, HERD_ERR_INVALID_ARG,
					    "Account '%.60s' can't be its own parent", parent);
			/* a new association's QOS is checked as if made under pa */
			struct assoc probe = { .account = names.v[i], .parent = pa, .shares = 1 };
			if (change_check_qos(m, &probe, &chg) < 0)
				return -1;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		if (!acc) {
			json_array_append_new(added, json_string(names.v[i]));
			if (!m->dry_run) {
				acc = acct_account_new(names.v[i]);
				acc->description = xstrdup(descr ? descr : names.v[i]);
				acc->organization = xstrdup(org ? org : org_default(names.v[i], parent));
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
			change_apply(a, &chg);
			assoc_save(a);
			m->changed = true;
		}
	}
	strv_free(&names);
	strv_free(&clusters);
	return 0;
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

static int list_account(struct mgr *m)
{
	static const char *const keys[] = { "name", "account", "cluster", "description",
					    "organization", "parent", "user", "flags", NULL };
	struct strv names = { 0 }, descr = { 0 }, org = { 0 };
	struct assoc_filter f;
	bool withassoc = has_option(m, "withassoc");
	if (check_keys(m, m->where, keys, "account") < 0)
		return -1;
	get_names(m, &names, "account");
	strv_split(&descr, wget(m, "description"));
	strv_split(&org, wget(m, "organization"));
	filter_fill(m, &f);
	strv_free(&f.accounts);
	size_t n = 0, k = 0;
	for (struct acct_account *a = accounting.accounts; a; a = a->next)
		n++;
	struct acct_account **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_account *a = accounting.accounts; a; a = a->next) {
		if (names.n && !strv_has(&names, a->name))
			continue;
		if (descr.n && !strv_has(&descr, a->description ? a->description : ""))
			continue;
		if (org.n && !strv_has(&org, a->organization ? a->organization : ""))
			continue;
		if (!may_see_account(m, a->name))
			continue;
		if (f.parents.n || f.clusters.n) {
			/* filtered by where the account hangs */
			bool hit = false;
			for (struct assoc *s = accounting.assocs; s && !hit; s = s->next)
				hit = !s->deleted && !s->user && !strcmp(s->account, a->name) &&
				      filter_match(&f, s);
			if (!hit)
				continue;
		}
		v[k++] = a;
	}
	qsort(v, k, sizeof(*v), cmp_account);
	json_t *rows = json_array();
	if (withassoc) {
		size_t na;
		struct assoc **order = assocs_tree_order(&na);
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < na; j++) {
				if (strcmp(order[j]->account, v[i]->name) || !filter_match(&f, order[j]) ||
				    !may_see_assoc(m, order[j]))
					continue;
				json_t *row = assoc_row(order[j]);
				obj_merge_new(row, account_row(v[i]));
				json_array_append_new(rows, row);
			}
		free(order);
	} else {
		for (size_t i = 0; i < k; i++)
			json_array_append_new(rows, account_row(v[i]));
	}
	json_object_set_new(m->out, "rows", rows);
	free(v);
	strv_free(&names);
	strv_free(&descr);
	strv_free(&org);
	filter_free(&f);
	return 0;
}

/* Would making `account` a child of `parent` close a loop in the tree? */
static bool makes_cycle(const char *cluster, const char *account, const char *parent)
{
	int guard = 0;
	for (struct assoc *p = assoc_find_exact(cluster, parent, NULL, NULL); p && guard < 10000;
	     p = p->parent, guard++)
		if (!strcmp(p->account, account))
			return true;
	return false;
}

static int modify_account(struct mgr *m)
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
	const char *descr = sget(m, "description"), *org = sget(m, "organization"),
		   *flags = sget(m, "flags"), *parent = sget(m, "parent");
	json_t *modified = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "modified", modified);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->where, wkeys, "account") < 0 ||
	    check_keys(m, m->set, skeys, "account") < 0 || change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!json_object_size(m->set))
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	get_names(m, &names, "account");
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any accounts to modify (where name=...)");
	struct assoc_filter f;
	filter_fill(m, &f);
	f.accounts_only = true;
	strv_free(&f.accounts);
	for (size_t i = 0; i < names.n; i++)
		strv_push(&f.accounts, names.v[i]);
	/* check all */
	for (size_t i = 0; i < names.n; i++) {
		struct acct_account *acc = acct_account_find(names.v[i]);
		unsigned fl;
		if (!acc)
			continue;
		if ((descr || org || flags) && !may_manage_subaccount(m, acc->name))
			goto denied;
		if (flags && parse_account_flags(m, flags, acc->flags, &fl) < 0)
			goto error;
	}
	if (parent && !*parent)
		parent = NULL;
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !filter_match(&f, a))
			continue;
		if ((chg.any || parent) && !may_manage_subaccount(m, a->account))
			goto denied;
		if (parent) {
			if (!strcmp(a->account, "root")) {
				fail(m, HERD_ERR_INVALID_ARG, "The root account can't have a parent");
				goto error;
			}
			if (!assoc_find_exact(a->cluster, parent, NULL, NULL)) {
				fail(m, HERD_ERR_INVALID_ARG,
				     "Parent account '%.60s' doesn't exist on cluster '%.40s'", parent,
				     a->cluster);
				goto error;
			}
			if (makes_cycle(a->cluster, a->account, parent)) {
				fail(m, HERD_ERR_INVALID_ARG,
				     "Can't move account '%.50s' under '%.50s': '%.50s' is '%.50s' itself or one of its sub-accounts",
				     a->account, parent, parent, a->account);
				goto error;
			}
			if (!m->oper && !acct_is_coord(m->uid, parent))
				goto denied;
		}
		if (change_check_qos(m, a, &chg) < 0)
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
			parse_account_flags(m, flags, acc->flags, &acc->flags);
		acct_account_save(acc);
		m->changed = true;
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !filter_match(&f, a) || (!chg.any && !parent))
			continue;
		json_array_append_new(assocs, assoc_ref(a));
		if (m->dry_run)
			continue;
		change_apply(a, &chg);
		if (parent) {
			free(a->parent_acct);
			a->parent_acct = xstrdup(parent);
		}
		assoc_save(a);
		m->changed = true;
	}
	if (parent && !m->dry_run)
		assoc_resolve_parents();
	filter_free(&f);
	strv_free(&names);
	return 0;
denied:
	denied(m);
error:
	filter_free(&f);
	strv_free(&names);
	return -1;
}

/* A user whose default account goes: the first account it still has. */
static void fix_default_account(const char *user)
{
	struct acct_user *u = acct_user_find(user);
	if (!u || (u->default_account && assoc_find(u->default_account, u->name, NULL)))
		return;
	free(u->default_account);
	u->default_account = NULL;
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && a->user && !strcmp(a->user, user) && !strcmp(a->cluster, ctld.cluster)) {
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

static int delete_account(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "account", "cluster", NULL };
	struct strv names = { 0 }, users = { 0 };
	struct assoc_filter f;
	json_t *deleted = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->where, wkeys, "account") < 0)
		return -1;
	get_names(m, &names, "account");
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any accounts to delete");
	filter_fill(m, &f);
	strv_free(&f.accounts);
	for (size_t i = 0; i < names.n; i++) {
		if (!strcmp(names.v[i], "root")) {
			fail(m, HERD_ERR_INVALID_ARG, "The root account can't be deleted");
			goto error;
		}
		strv_push(&f.accounts, names.v[i]);
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !filter_match(&f, a))
			continue;
		if (!may_manage_subaccount(m, a->account)) {
			denied(m);
			goto error;
		}
		/* sub-accounts not being deleted with it */
		for (struct assoc *b = accounting.assocs; b; b = b->next)
			if (!b->deleted && !b->user && b->parent == a && !strv_has(&names, b->account)) {
				fail(m, HERD_ERR_INVALID_ARG,
				     "Account '%.50s' has sub-account '%.50s'; delete or move it first",
				     a->account, b->account);
				goto error;
			}
	}
	struct jobs_scan scan = { .accounts = &names };
	if (jobs_block(m, &scan))
		goto done;
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !filter_match(&f, a))
			continue;
		json_array_append_new(assocs, assoc_ref(a));
		if (a->user && !strv_has(&users, a->user))
			strv_push(&users, a->user);
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
			       (m->dry_run ? !filter_match(&f, a) : true);
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
	filter_free(&f);
	strv_free(&names);
	strv_free(&users);
	return 0;
error:
	filter_free(&f);
	strv_free(&names);
	strv_free(&users);
	return -1;
}

/* ---- user ---- */

static int parse_admin(struct mgr *m, const char *v, enum admin_level *out)
{
	if (!strcasecmp(v, "none") || !strcmp(v, "-1"))
		*out = ADMIN_NONE;
	else if (!strncasecmp(v, "operator", strlen(v) > 1 ? strlen(v) : 2))
		*out = ADMIN_OPERATOR;
	else if (!strncasecmp(v, "administrator", strlen(v) > 1 ? strlen(v) : 2))
		*out = ADMIN_ADMIN;
	else
		return fail(m, HERD_ERR_INVALID_ARG,
			    "Invalid AdminLevel '%.60s' (None, Operator or Administrator)", v);
	return 0;
}

static const char *admin_name(enum admin_level l)
{
	return l == ADMIN_ADMIN ? "Administrator" : l == ADMIN_OPERATOR ? "Operator" : "None";
}

/* Slurm: operators may make operators; only administrators make
 * administrators (or change one). */
static int check_admin_change(struct mgr *m, const struct acct_user *u, enum admin_level to)
{
	if (!m->oper)
		return denied(m);
	if ((to == ADMIN_ADMIN || (u && u->admin == ADMIN_ADMIN)) && !m->admin)
		return denied(m);
	return 0;
}

static int add_user(struct mgr *m)
{
	static const char *const keys[] = {
		"name", "account", "defaultaccount", "adminlevel", "partition", "cluster",
		"defaultwckey", "fairshare", "grptres", "grptresmins", "grpjobs", "grpsubmitjobs",
		"grpwall", "maxjobs", "maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode",
		"maxtresminsperjob", "qos", "defaultqos", NULL
	};
	struct strv names = { 0 }, accounts = { 0 }, parts = { 0 }, clusters = { 0 };
	struct assoc_change chg;
	const char *dflt = sget(m, "defaultaccount"), *admin_s = sget(m, "adminlevel"),
		   *wckey = sget(m, "defaultwckey");
	enum admin_level admin = ADMIN_NONE;
	int rc = -1;
	json_t *added = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "added", added);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->set, keys, "user") < 0 || change_parse(m, m->set, &chg) < 0)
		return -1;
	if (admin_s && parse_admin(m, admin_s, &admin) < 0)
		return -1;
	get_names(m, &names, NULL);
	strv_split(&accounts, sget(m, "account"));
	if (dflt && *dflt && !strv_has(&accounts, dflt)) {
		/* Slurm adds the default account's association too */
		struct strv t = { 0 };
		strv_push(&t, dflt);
		for (size_t i = 0; i < accounts.n; i++)
			strv_push(&t, accounts.v[i]);
		strv_free(&accounts);
		accounts = t;
	}
	strv_split(&parts, sget(m, "partition"));
	strv_split(&clusters, sget(m, "cluster"));
	if (!clusters.n)
		strv_push(&clusters, ctld.cluster);
	if (!names.n) {
		fail(m, HERD_ERR_INVALID_ARG, "Need name of user to add");
		goto out;
	}
	if (!accounts.n) {
		fail(m, HERD_ERR_INVALID_ARG, "Need a default account for these users to add");
		goto out;
	}
	if (admin_s && check_admin_change(m, NULL, admin) < 0)
		goto out;
	for (size_t c = 0; c < clusters.n; c++)
		for (size_t i = 0; i < accounts.n; i++) {
			struct assoc *pa = assoc_find_exact(clusters.v[c], accounts.v[i], NULL, NULL);
			if (!acct_account_find(accounts.v[i]) || !pa) {
				fail(m, HERD_ERR_INVALID_ARG,
				     "The account '%.60s' doesn't exist on cluster '%.40s'", accounts.v[i],
				     clusters.v[c]);
				goto out;
			}
			if (!m->oper && !acct_is_coord(m->uid, accounts.v[i])) {
				denied(m);
				goto out;
			}
			struct assoc probe = { .account = accounts.v[i], .user = "", .parent = pa };
			if (change_check_qos(m, &probe, &chg) < 0)
				goto out;
		}
	for (size_t i = 0; i < parts.n; i++)
		if (!part_find(parts.v[i])) {
			fail(m, HERD_ERR_INVALID_ARG, "Partition '%.60s' doesn't exist on cluster '%.40s'",
			     parts.v[i], ctld.cluster);
			goto out;
		}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u) {
			json_array_append_new(added, json_string(names.v[i]));
			if (!m->dry_run) {
				u = acct_user_new(names.v[i]);
				u->admin = admin;
				u->default_account = xstrdup(dflt && *dflt ? dflt : accounts.v[0]);
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
					change_apply(a, &chg);
					assoc_save(a);
					m->changed = true;
				}
		if (!m->dry_run && u && !u->default_account) {
			fix_default_account(u->name);
			m->changed = true;
		}
	}
	rc = 0;
out:
	strv_free(&names);
	strv_free(&accounts);
	strv_free(&parts);
	strv_free(&clusters);
	return rc;
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
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:o}", "user", u->name, "default_account",
			 u->default_account ? u->default_account : "", "admin", admin_name(u->admin),
			 "default_wckey", u->default_wckey ? u->default_wckey : "", "uid",
			 (json_int_t)(u->uid == (uid_t)-1 ? -1 : (json_int_t)u->uid), "coord_accounts",
			 coords);
}

static int list_user(struct mgr *m)
{
	static const char *const keys[] = { "name", "user", "account", "cluster", "partition",
					    "adminlevel", "defaultaccount", NULL };
	struct strv names = { 0 }, dflt = { 0 };
	struct assoc_filter f;
	enum admin_level lvl = ADMIN_NONE;
	const char *admin_s = wget(m, "adminlevel");
	bool withassoc = has_option(m, "withassoc");
	if (check_keys(m, m->where, keys, "user") < 0)
		return -1;
	if (admin_s && parse_admin(m, admin_s, &lvl) < 0)
		return -1;
	get_names(m, &names, "user");
	strv_split(&dflt, wget(m, "defaultaccount"));
	filter_fill(m, &f);
	strv_free(&f.users);
	f.users_only = true;
	size_t n = 0, k = 0;
	for (struct acct_user *u = accounting.users; u; u = u->next)
		n++;
	struct acct_user **v = xmalloc((n + 1) * sizeof(*v));
	for (struct acct_user *u = accounting.users; u; u = u->next) {
		if (names.n && !strv_has(&names, u->name))
			continue;
		if (admin_s && u->admin != lvl)
			continue;
		if (dflt.n && (!u->default_account || !strv_has(&dflt, u->default_account)))
			continue;
		if (!may_see_user(m, u->name))
			continue;
		if (f.accounts.n || f.partitions.n) {
			bool hit = false;
			for (struct assoc *a = accounting.assocs; a && !hit; a = a->next)
				hit = !a->deleted && a->user && !strcmp(a->user, u->name) && filter_match(&f, a);
			if (!hit)
				continue;
		}
		v[k++] = u;
	}
	qsort(v, k, sizeof(*v), cmp_user);
	json_t *rows = json_array();
	if (withassoc) {
		size_t na;
		struct assoc **order = assocs_tree_order(&na);
		for (size_t i = 0; i < k; i++) {
			bool any = false;
			for (size_t j = 0; j < na; j++) {
				if (!order[j]->user || strcmp(order[j]->user, v[i]->name) ||
				    !filter_match(&f, order[j]) || !may_see_assoc(m, order[j]))
					continue;
				json_t *row = assoc_row(order[j]);
				obj_merge_new(row, user_row(v[i]));
				json_array_append_new(rows, row);
				any = true;
			}
			if (!any && !f.accounts.n && !f.partitions.n)
				json_array_append_new(rows, user_row(v[i]));
		}
		free(order);
	} else {
		for (size_t i = 0; i < k; i++)
			json_array_append_new(rows, user_row(v[i]));
	}
	json_object_set_new(m->out, "rows", rows);
	free(v);
	strv_free(&names);
	strv_free(&dflt);
	filter_free(&f);
	return 0;
}

/* May the requester change user association a (limits, QOS)? */
static bool may_manage_user_assoc(const struct mgr *m, const struct assoc *a)
{
	return m->oper || acct_is_coord(m->uid, a->account);
}

static int modify_user(struct mgr *m)
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
	const char *admin_s = sget(m, "adminlevel"), *dflt = sget(m, "defaultaccount"),
		   *wckey = sget(m, "defaultwckey");
	enum admin_level admin = ADMIN_NONE;
	json_t *modified = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "modified", modified);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->where, wkeys, "user") < 0 || check_keys(m, m->set, skeys, "user") < 0 ||
	    change_parse(m, m->set, &chg) < 0)
		return -1;
	if (!json_object_size(m->set))
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	if (admin_s && parse_admin(m, admin_s, &admin) < 0)
		return -1;
	get_names(m, &names, "user");
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any users to modify (where name=...)");
	filter_fill(m, &f);
	strv_free(&f.users);
	for (size_t i = 0; i < names.n; i++)
		strv_push(&f.users, names.v[i]);
	f.users_only = true;
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u)
			continue;
		if (admin_s && check_admin_change(m, u, admin) < 0)
			goto error;
		if (dflt) {
			if (!m->oper && strcmp(u->name, m->uname)) {
				denied(m);
				goto error;
			}
			if (!assoc_find(dflt, u->name, NULL)) {
				fail(m, HERD_ERR_INVALID_ARG,
				     "User '%.50s' has no association with account '%.50s' (add it first)",
				     u->name, dflt);
				goto error;
			}
		}
		if (wckey && !m->oper && strcmp(u->name, m->uname)) {
			denied(m);
			goto error;
		}
	}
	if (chg.any)
		for (struct assoc *a = accounting.assocs; a; a = a->next) {
			if (a->deleted || !filter_match(&f, a))
				continue;
			if (!may_manage_user_assoc(m, a)) {
				denied(m);
				goto error;
			}
			if (change_check_qos(m, a, &chg) < 0)
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
			u->default_wckey = xstrdup(wckey);
		}
		acct_user_save(u);
		m->changed = true;
	}
	if (chg.any)
		for (struct assoc *a = accounting.assocs; a; a = a->next) {
			if (a->deleted || !filter_match(&f, a))
				continue;
			json_array_append_new(assocs, assoc_ref(a));
			if (m->dry_run)
				continue;
			change_apply(a, &chg);
			assoc_save(a);
			m->changed = true;
		}
	filter_free(&f);
	strv_free(&names);
	return 0;
error:
	filter_free(&f);
	strv_free(&names);
	return -1;
}

static int delete_user(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "user", "account", "cluster", "partition", NULL };
	struct strv names = { 0 };
	struct assoc_filter f;
	json_t *deleted = json_array(), *assocs = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	json_object_set_new(m->out, "assocs", assocs);
	if (check_keys(m, m->where, wkeys, "user") < 0)
		return -1;
	get_names(m, &names, "user");
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any users to delete");
	filter_fill(m, &f);
	strv_free(&f.users);
	for (size_t i = 0; i < names.n; i++)
		strv_push(&f.users, names.v[i]);
	f.users_only = true;
	bool whole = !f.accounts.n && !f.partitions.n && !f.clusters.n;
	if (whole && !m->oper) {
		strv_free(&names);
		filter_free(&f);
		return denied(m);
	}
	for (struct assoc *a = accounting.assocs; a; a = a->next)
		if (!a->deleted && filter_match(&f, a) && !may_manage_user_assoc(m, a)) {
			strv_free(&names);
			filter_free(&f);
			return denied(m);
		}
	struct jobs_scan scan = { .users = &names, .accounts = f.accounts.n ? &f.accounts : NULL,
				  .partition = f.partitions.n == 1 ? f.partitions.v[0] : NULL };
	if (jobs_block(m, &scan))
		goto done;
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		if (a->deleted || !filter_match(&f, a))
			continue;
		json_array_append_new(assocs, assoc_ref(a));
		if (!m->dry_run) {
			assoc_remove(a);
			m->changed = true;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		struct acct_user *u = acct_user_find(names.v[i]);
		if (!u)
			continue;
		if (whole) {
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
		} else if (!m->dry_run) {
			fix_default_account(u->name);
		}
	}
done:
	filter_free(&f);
	strv_free(&names);
	return 0;
}

/* ---- QOS ---- */

static const char *const qos_set_keys[] = {
	"name", "description", "priority", "usagefactor", "preempt", "preemptmode", "flags",
	"grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxtresperjob",
	"maxtrespernode", "maxtresminsperjob", "maxwall", "maxtresperuser", "maxjobsperuser",
	"maxsubmitjobsperuser", NULL
};

struct qos_change {
	struct assoc_change c;       /* limits (grp_*, max_wall, max_tres_*) */
	int64_t max_jobs_pu, max_submit_pu, priority;
	tres_vec max_tres_pu;
	double usage_factor;         /* NAN: not given */
	const char *description, *preempt, *preempt_mode, *flags;
};

static int qos_change_parse(struct mgr *m, struct qos_change *q)
{
	const char *v;
	struct json_t *tmp = json_object();
	static const char *const lim_keys[] = { "grptres", "grptresmins", "grpjobs", "grpsubmitjobs",
						"grpwall", "maxtresperjob", "maxtrespernode",
						"maxtresminsperjob", "maxwall", NULL };
	for (size_t i = 0; lim_keys[i]; i++)
		if ((v = sget(m, lim_keys[i])))
			json_object_set_new(tmp, lim_keys[i], json_string(v));
	int rc = change_parse(m, tmp, &q->c);
	json_decref(tmp);
	if (rc < 0)
		return -1;
	q->max_jobs_pu = q->max_submit_pu = q->priority = NOT_GIVEN;
	for (int i = 0; i < TRES_COUNT; i++)
		q->max_tres_pu[i] = NOT_GIVEN;
	q->usage_factor = NAN;
	q->description = sget(m, "description");
	q->preempt = sget(m, "preempt");
	q->preempt_mode = sget(m, "preemptmode");
	q->flags = sget(m, "flags");
	if ((v = sget(m, "maxjobsperuser")) && parse_count(m, "MaxJobsPerUser", v, &q->max_jobs_pu) < 0)
		return -1;
	if ((v = sget(m, "maxsubmitjobsperuser")) &&
	    parse_count(m, "MaxSubmitJobsPerUser", v, &q->max_submit_pu) < 0)
		return -1;
	if ((v = sget(m, "maxtresperuser")) && parse_tres(m, "MaxTRESPerUser", v, q->max_tres_pu) < 0)
		return -1;
	if ((v = sget(m, "priority"))) {
		if (!strcmp(v, "-1"))
			q->priority = 0;
		else if (parse_count(m, "Priority", v, &q->priority) < 0)
			return -1;
	}
	if ((v = sget(m, "usagefactor"))) {
		char *end;
		errno = 0;
		double d = strtod(v, &end);
		if (!strcmp(v, "-1"))
			d = 1.0;
		else if (!*v || *end || errno || d < 0 || !isfinite(d))
			return fail(m, HERD_ERR_INVALID_ARG,
				    "Invalid value '%.60s' for UsageFactor (a number 0 or more)", v);
		q->usage_factor = d;
	}
	if (q->preempt_mode) {
		static const char *const modes[] = { "cluster", "cancel", "requeue", "suspend", "off", NULL };
		size_t i;
		for (i = 0; modes[i]; i++)
			if (!strcasecmp(modes[i], q->preempt_mode))
				break;
		if (!modes[i])
			return fail(m, HERD_ERR_INVALID_ARG,
				    "Invalid PreemptMode '%.60s' (Cluster, Cancel, Requeue, Suspend or Off)",
				    q->preempt_mode);
	}
	if (q->preempt && check_qos_names(m, q->preempt) < 0)
		return -1;
	if (q->flags) {
		const char *f = q->flags;
		unsigned bits;
		if (*f == '+' || *f == '-')
			f++;
		if (strcmp(f, "-1") && strcasecmp(f, "none") && qos_flags_parse(f, &bits) < 0)
			return fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS flag in '%.60s'", q->flags);
	}
	return 0;
}

static char *preempt_apply(const char *cur, const char *v)
{
	if (!*v || !strcmp(v, "-1") || !strcasecmp(v, "none"))
		return NULL;
	struct assoc fake = { .qos_list = (char *)(cur ? cur : "") };
	char *s = qos_list_apply(&fake, v);
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
}

static void qos_change_apply(struct acct_qos *q, const struct qos_change *c)
{
	struct assoc tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.lim = q->lim;
	tmp.shares = 1;
	struct assoc_change lc = c->c;
	lc.qos = lc.default_qos = NULL;
	lc.shares = NOT_GIVEN;
	change_apply(&tmp, &lc);
	q->lim = tmp.lim;
	merge_scalar(&q->lim.max_jobs, c->max_jobs_pu);
	merge_scalar(&q->lim.max_submit, c->max_submit_pu);
	merge_tres(q->max_tres_per_user, c->max_tres_pu);
	if (c->priority != NOT_GIVEN)
		q->priority = (uint32_t)c->priority;
	if (!isnan(c->usage_factor))
		q->usage_factor = c->usage_factor;
	if (c->description) {
		free(q->description);
		q->description = xstrdup(c->description);
	}
	if (c->preempt) {
		char *p = preempt_apply(q->preempt, c->preempt);
		free(q->preempt);
		q->preempt = p;
	}
	if (c->preempt_mode) {
		free(q->preempt_mode);
		char *pm = xstrdup(c->preempt_mode);
		for (char *p = pm; *p; p++)
			*p = tolower((unsigned char)*p);
		q->preempt_mode = pm;
	}
	if (c->flags) {
		const char *f = c->flags;
		char mode = 0;
		unsigned bits = 0;
		if (*f == '+' || *f == '-')
			mode = *f++;
		if (strcmp(f, "-1") && strcasecmp(f, "none"))
			qos_flags_parse(f, &bits);
		q->flags = mode == '+' ? q->flags | bits : mode == '-' ? q->flags & ~bits : bits;
	}
}

static int add_qos(struct mgr *m)
{
	struct strv names = { 0 };
	struct qos_change c;
	json_t *added = json_array();
	json_object_set_new(m->out, "added", added);
	if (check_keys(m, m->set, qos_set_keys, "qos") < 0 || qos_change_parse(m, &c) < 0)
		return -1;
	if (!m->oper)
		return denied(m);
	get_names(m, &names, NULL);
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "Need name of QOS to add");
	for (size_t i = 0; i < names.n; i++) {
		if (acct_qos_find(names.v[i]))
			continue;
		json_array_append_new(added, json_string(names.v[i]));
		if (m->dry_run)
			continue;
		struct acct_qos *q = acct_qos_new(names.v[i], 0);
		q->description = xstrdup(names.v[i]);
		qos_change_apply(q, &c);
		acct_qos_save(q);
		m->changed = true;
	}
	strv_free(&names);
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

static int list_qos(struct mgr *m)
{
	static const char *const keys[] = { "name", "id", "description", NULL };
	struct strv names = { 0 }, ids = { 0 };
	if (check_keys(m, m->where, keys, "qos") < 0)
		return -1;
	get_names(m, &names, NULL);
	strv_split(&ids, wget(m, "id"));
	json_t *rows = json_array();
	for (struct acct_qos *q = accounting.qos; q; q = q->next) {
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if ((names.n && !strv_has(&names, q->name)) || (ids.n && !strv_has(&ids, id)))
			continue;
		json_array_append_new(rows, qos_row(q));
	}
	json_object_set_new(m->out, "rows", rows);
	strv_free(&names);
	strv_free(&ids);
	return 0;
}

static int modify_qos(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "id", NULL };
	struct strv names = { 0 }, ids = { 0 };
	struct qos_change c;
	json_t *modified = json_array();
	json_object_set_new(m->out, "modified", modified);
	if (check_keys(m, m->where, wkeys, "qos") < 0 || check_keys(m, m->set, qos_set_keys, "qos") < 0 ||
	    qos_change_parse(m, &c) < 0)
		return -1;
	if (!json_object_size(m->set))
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	if (!m->oper)
		return denied(m);
	get_names(m, &names, NULL);
	strv_split(&ids, wget(m, "id"));
	if (!names.n && !ids.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any QOS to modify (where name=...)");
	for (struct acct_qos *q = accounting.qos; q; q = q->next) {
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if (!strv_has(&names, q->name) && !strv_has(&ids, id))
			continue;
		if (c.preempt && in_list(c.preempt[0] == '+' || c.preempt[0] == '-' ? c.preempt + 1
										     : c.preempt,
					 q->name))
			return fail(m, HERD_ERR_INVALID_ARG, "QOS '%.60s' can't preempt itself", q->name);
		json_array_append_new(modified, json_string(q->name));
		if (m->dry_run)
			continue;
		qos_change_apply(q, &c);
		acct_qos_save(q);
		m->changed = true;
	}
	strv_free(&names);
	strv_free(&ids);
	return 0;
}

/* Drop a QOS from every list it is in (associations, other QOS'
 * Preempt), as Slurm does when one is deleted. */
static void qos_forget(const char *name)
{
	for (struct assoc *a = accounting.assocs; a; a = a->next) {
		bool save = false;
		if (a->deleted)
			continue;
		if (a->qos_list && in_list(a->qos_list, name)) {
			char *v = xasprintf("-%s", name);
			char *list = qos_list_apply(a, v);
			free(v);
			free(a->qos_list);
			a->qos_list = list ? list : xstrdup("");
			save = true;
		}
		if (a->default_qos && !strcmp(a->default_qos, name)) {
			free(a->default_qos);
			a->default_qos = NULL;
			save = true;
		}
		if (save)
			assoc_save(a);
	}
	for (struct acct_qos *q = accounting.qos; q; q = q->next)
		if (q->preempt && in_list(q->preempt, name)) {
			char *v = xasprintf("-%s", name);
			char *p = preempt_apply(q->preempt, v);
			free(v);
			free(q->preempt);
			q->preempt = p;
			acct_qos_save(q);
		}
}

static int delete_qos(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "id", NULL };
	struct strv names = { 0 };
	json_t *deleted = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	if (check_keys(m, m->where, wkeys, "qos") < 0)
		return -1;
	if (!m->oper)
		return denied(m);
	get_names(m, &names, NULL);
	if (!names.n)
		return fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any QOS to delete");
	if (strv_has(&names, "normal")) {
		strv_free(&names);
		return fail(m, HERD_ERR_INVALID_ARG, "The QOS 'normal' is the default; it can't be deleted");
	}
	struct jobs_scan scan = { .qos = &names };
	if (jobs_block(m, &scan))
		goto done;
	for (size_t i = 0; i < names.n; i++) {
		struct acct_qos *q = acct_qos_find(names.v[i]);
		if (!q)
			continue;
		json_array_append_new(deleted, json_string(q->name));
		if (m->dry_run)
			continue;
		acct_qos_remove(q);
		qos_forget(names.v[i]);
		m->changed = true;
	}
done:
	strv_free(&names);
	return 0;
}

/* ---- coordinator ---- */

static int coord_targets(struct mgr *m, struct strv *users, struct strv *accounts)
{
	static const char *const keys[] = { "name", "user", "account", NULL };
	if (check_keys(m, m->where, keys, "coordinator") < 0 ||
	    check_keys(m, m->set, keys, "coordinator") < 0)
		return -1;
	get_names(m, users, "user");
	strv_split(users, sget(m, "name"));
	strv_split(users, sget(m, "user"));
	strv_split(accounts, wget(m, "account"));
	strv_split(accounts, sget(m, "account"));
	if (!users->n || !accounts->n)
		return fail(m, HERD_ERR_INVALID_ARG,
			    "Need a list of users (Names=) and accounts (Accounts=) for coordinators");
	/* Slurm: coordinators may name coordinators of their accounts */
	for (size_t i = 0; i < accounts->n; i++)
		if (!m->oper && !acct_is_coord(m->uid, accounts->v[i]))
			return denied(m);
	for (size_t i = 0; i < users->n; i++)
		if (!acct_user_find(users->v[i]))
			return fail(m, HERD_ERR_INVALID_ARG, "User '%.60s' doesn't exist", users->v[i]);
	for (size_t i = 0; i < accounts->n; i++)
		if (!acct_account_find(accounts->v[i]))
			return fail(m, HERD_ERR_INVALID_ARG, "Account '%.60s' doesn't exist", accounts->v[i]);
	return 0;
}

static int add_coord(struct mgr *m)
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
	strv_free(&users);
	strv_free(&accounts);
	return rc;
}

static int delete_coord(struct mgr *m)
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
	strv_free(&users);
	strv_free(&accounts);
	return rc;
}

static int list_coord(struct mgr *m)
{
	static const char *const keys[] = { "name", "user", "account", NULL };
	struct strv users = { 0 }, accounts = { 0 };
	if (check_keys(m, m->where, keys, "coordinator") < 0)
		return -1;
	get_names(m, &users, "user");
	strv_split(&accounts, wget(m, "account"));
	json_t *rows = json_array();
	for (struct acct_account *a = accounting.accounts; a; a = a->next)
		for (char **p = a->coords; *p; p++)
			if ((!users.n || strv_has(&users, *p)) && (!accounts.n || strv_has(&accounts, a->name)) &&
			    may_see_account(m, a->name))
				json_array_append_new(rows, json_pack("{s:s, s:s}", "account", a->name,
								      "user", *p));
	json_object_set_new(m->out, "rows", rows);
	strv_free(&users);
	strv_free(&accounts);
	return 0;
}

/* ---- association, tres ---- */

static int list_assoc(struct mgr *m)
{
	struct assoc_filter f;
	struct strv names = { 0 };
	if (check_keys(m, m->where, where_assoc_keys, "association") < 0)
		return -1;
	filter_fill(m, &f);
	get_names(m, &names, NULL);
	/* bare names after "list association" are accounts, as in Slurm */
	for (size_t i = 0; i < names.n; i++)
		if (!strv_has(&f.accounts, names.v[i]))
			strv_push(&f.accounts, names.v[i]);
	size_t n;
	struct assoc **order = assocs_tree_order(&n);
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++)
		if (filter_match(&f, order[i]) && may_see_assoc(m, order[i]))
			json_array_append_new(rows, assoc_row(order[i]));
	json_object_set_new(m->out, "rows", rows);
	free(order);
	filter_free(&f);
	strv_free(&names);
	return 0;
}

static int list_tres(struct mgr *m)
{
	static const char *const keys[] = { "name", "type", "id", NULL };
	struct strv names = { 0 }, types = { 0 }, ids = { 0 };
	if (check_keys(m, m->where, keys, "tres") < 0)
		return -1;
	get_names(m, &names, NULL);
	strv_split(&types, wget(m, "type"));
	strv_split(&ids, wget(m, "id"));
	json_t *rows = json_array();
	for (int t = 0; t < TRES_COUNT; t++) {
		const char *full = tres_name(t), *slash = strchr(full, '/');
		char *type = slash ? xstrndup(full, slash - full) : xstrdup(full);
		const char *name = slash ? slash + 1 : "";
		char id[16];
		snprintf(id, sizeof(id), "%d", tres_id(t));
		if ((!names.n || strv_has(&names, name) || strv_has(&names, full)) &&
		    (!types.n || strv_has(&types, type)) && (!ids.n || strv_has(&ids, id)))
			json_array_append_new(rows, json_pack("{s:s, s:s, s:i}", "type", type, "name", name,
							      "id", tres_id(t)));
		free(type);
	}
	json_object_set_new(m->out, "rows", rows);
	strv_free(&names);
	strv_free(&types);
	strv_free(&ids);
	return 0;
}

/* ---- dump and load ---- */

/* dump: the cluster's tree in order, each row with its account's or
 * user's record; sacctmgr writes Slurm's flat file from it. */
static int dump_cluster(struct mgr *m)
{
	struct strv names = { 0 };
	get_names(m, &names, "cluster");
	const char *cl = names.n ? names.v[0] : ctld.cluster;
	if (!acct_cluster_find(cl)) {
		strv_free(&names);
		return fail(m, HERD_ERR_INVALID_ARG, "Cluster '%.60s' doesn't exist", cl);
	}
	if (!m->oper) {
		strv_free(&names);
		return denied(m);
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
	strv_free(&names);
	return 0;
}

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
	"coordinators", NULL
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
		return fail(m, HERD_ERR_INVALID_ARG, "Malformed line in the file");
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
		if (check_keys(m, attrs, keys, "cluster line") < 0 || change_parse(m, attrs, &chg) < 0)
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
			change_apply(a, &chg);
			assoc_save(a);
		}
	} else if (!strcasecmp(type, "parent")) {
		if (!lc->cluster) {
			fail(m, HERD_ERR_INVALID_ARG, "A Parent line before any Cluster line");
			goto out;
		}
		if (!strv_has(known, name) && !assoc_find_exact(lc->cluster, name, NULL, NULL)) {
			fail(m, HERD_ERR_INVALID_ARG,
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
			fail(m, HERD_ERR_INVALID_ARG, "An Account line before any Cluster line");
			goto out;
		}
		if (check_keys(m, attrs, load_account_keys, "account line") < 0 ||
		    change_parse(m, attrs, &chg) < 0 || (flags && parse_account_flags(m, flags, 0, &fl) < 0))
			goto out;
		struct assoc *cur = assoc_find_exact(lc->cluster, name, NULL, NULL);
		if (!strcmp(name, "root") || !strcmp(name, lc->parent) ||
		    (cur && cur->parent_acct && strcmp(cur->parent_acct, lc->parent) &&
		     makes_cycle(lc->cluster, name, lc->parent))) {
			fail(m, HERD_ERR_INVALID_ARG, "Account '%.60s' can't be put under '%.60s'", name,
			     lc->parent);
			goto out;
		}
		if (!apply) {
			if (!strv_has(known, name))
				strv_push(known, name);
			rc = 0;
			goto out;
		}
		struct acct_account *acc = acct_account_find(name);
		const char *d = json_string_value(json_object_get(attrs, "description"));
		const char *o = json_string_value(json_object_get(attrs, "organization"));
		if (!acc) {
			acc = acct_account_new(name);
			acc->description = xstrdup(d ? d : name);
			acc->organization = xstrdup(o ? o : org_default(name, lc->parent));
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
			strv_split(&cs, coords);
			for (size_t i = 0; i < cs.n; i++)
				if (acct_user_find(cs.v[i]) && !acct_account_has_coord(acc, cs.v[i])) {
					size_t n = 0;
					while (acc->coords[n])
						n++;
					acc->coords = xrealloc(acc->coords, (n + 2) * sizeof(char *));
					acc->coords[n] = xstrdup(cs.v[i]);
					acc->coords[n + 1] = NULL;
				}
			strv_free(&cs);
		}
		acct_account_save(acc);
		if (!cur) {
			cur = assoc_new(0, lc->cluster, name, NULL, NULL);
			json_array_append_new(json_object_get(summary, "assocs"), assoc_ref(cur));
		}
		free(cur->parent_acct);
		cur->parent_acct = xstrdup(lc->parent);
		cur->parent = assoc_find_exact(lc->cluster, lc->parent, NULL, NULL);
		change_apply(cur, &chg);
		assoc_save(cur);
	} else if (!strcasecmp(type, "user")) {
		const char *admin_s = json_string_value(json_object_get(attrs, "adminlevel"));
		const char *dflt = json_string_value(json_object_get(attrs, "defaultaccount"));
		const char *part = json_string_value(json_object_get(attrs, "partition"));
		enum admin_level lvl = ADMIN_NONE;
		if (!lc->cluster || !strcmp(lc->parent, "") ) {
			fail(m, HERD_ERR_INVALID_ARG, "A User line before any Cluster line");
			goto out;
		}
		if (check_keys(m, attrs, load_user_keys, "user line") < 0 ||
		    change_parse(m, attrs, &chg) < 0 || (admin_s && parse_admin(m, admin_s, &lvl) < 0))
			goto out;
		if (admin_s && lvl == ADMIN_ADMIN && !m->admin) {
			denied(m);
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
		acct_user_save(u);
		struct assoc *a = assoc_find_exact(lc->cluster, lc->parent, name, part && *part ? part : NULL);
		if (!a) {
			a = assoc_new(0, lc->cluster, lc->parent, name, part && *part ? part : NULL);
			a->parent = assoc_find_exact(lc->cluster, lc->parent, NULL, NULL);
			json_array_append_new(json_object_get(summary, "assocs"), assoc_ref(a));
		}
		change_apply(a, &chg);
		assoc_save(a);
	} else {
		fail(m, HERD_ERR_INVALID_ARG, "Unknown line type '%.60s' (Cluster, Parent, Account or User)",
		     type);
		goto out;
	}
	rc = 0;
out:
	m->set = saved_set;
	json_decref(attrs);
	return rc;
}

static int load_file(struct mgr *m)
{
	struct strv known = { 0 };
	struct load_ctx lc = { NULL, "" };
	size_t i;
	json_t *rec;
	if (!m->oper)
		return denied(m);
	if (!json_is_array(m->records) || !json_array_size(m->records))
		return fail(m, HERD_ERR_INVALID_ARG, "No records to load");
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
			strv_free(&known);
			return -1;
		}
	if (m->dry_run) {
		strv_free(&known);
		return 0;
	}
	lc = (struct load_ctx){ NULL, "" };
	json_array_foreach(m->records, i, rec)
		load_one(m, rec, &lc, &known, true, summary);
	strv_free(&known);
	assoc_resolve_parents();
	m->changed = true;
	return 0;
}

/* ---- dispatch ---- */

static const struct mgr_op {
	const char *op, *entity;
	int (*fn)(struct mgr *m);
} mgr_ops[] = {
	{ "add", "cluster", add_cluster },
	{ "add", "account", add_account },
	{ "add", "user", add_user },
	{ "add", "qos", add_qos },
	{ "add", "coordinator", add_coord },
	{ "modify", "cluster", modify_cluster },
	{ "modify", "account", modify_account },
	{ "modify", "user", modify_user },
	{ "modify", "qos", modify_qos },
	{ "delete", "cluster", delete_cluster },
	{ "delete", "account", delete_account },
	{ "delete", "user", delete_user },
	{ "delete", "qos", delete_qos },
	{ "delete", "coordinator", delete_coord },
	{ "list", "cluster", list_cluster },
	{ "list", "account", list_account },
	{ "list", "user", list_user },
	{ "list", "qos", list_qos },
	{ "list", "coordinator", list_coord },
	{ "list", "association", list_assoc },
	{ "list", "tres", list_tres },
	{ "dump", "cluster", dump_cluster },
	{ "load", "cluster", load_file },
};

struct mgr_reply {
	struct net_req *req;
	json_t *body;
};

static void mgr_reply_after_commit(void *arg, bool ok)
{
	struct mgr_reply *r = arg;
	if (ok)
		net_respond(r->req, 0, r->body, NULL);
	else {
		json_decref(r->body);
		net_respond(r->req, HERD_ERR_INTERNAL, NULL, "Unable to save state (store commit failed)");
	}
	free(r);
}

void assoc_rpc(struct net_req *req)
{
	struct mgr m = { .req = req, .uid = req->uid };
	const char *op = json_string_value(json_object_get(req->body, "op"));
	const char *entity = json_string_value(json_object_get(req->body, "entity"));
	json_t *empty = json_object();
	m.where = json_object_get(req->body, "where");
	m.set = json_object_get(req->body, "set");
	m.names = json_object_get(req->body, "names");
	m.options = json_object_get(req->body, "options");
	m.records = json_object_get(req->body, "records");
	if (!m.where)
		m.where = empty;
	if (!m.set)
		m.set = empty;
	m.uname = names_user(req->uid);
	m.admin = acct_admin_level(req->uid) == ADMIN_ADMIN;
	m.oper = acct_is_operator(req->uid);
	m.dry_run = has_option(&m, "dry_run");
	m.out = json_object();
	const struct mgr_op *o = NULL;
	for (size_t i = 0; i < sizeof(mgr_ops) / sizeof(mgr_ops[0]); i++)
		if (!strcmp(mgr_ops[i].op, op) && !strcmp(mgr_ops[i].entity, entity))
			o = &mgr_ops[i];
	if (!o) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "Not a valid sacctmgr request for that entity");
		goto out;
	}
	if (o->fn(&m) < 0) {
		/* a change refused midway leaves nothing behind: handlers check
		 * everything before they change anything */
		net_respond(req, m.rc ? m.rc : HERD_ERR_INVALID_ARG, NULL, m.err.text);
		json_decref(m.out);
		goto out;
	}
	if (m.changed) {
		struct mgr_reply *r = xmalloc(sizeof(*r));
		r->req = req;
		r->body = m.out;
		store_after_commit(mgr_reply_after_commit, r);
	} else {
		net_respond(req, 0, m.out, NULL);
	}
out:
	json_decref(empty);
}
