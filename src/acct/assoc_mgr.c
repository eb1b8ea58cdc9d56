/* ACCT_MGR: sacctmgr's add, modify, delete, list, dump and load of the
 * accounting objects (assoc.c holds them).  Each request is checked whole
 * before anything changes; a change is answered once it is durable.  The
 * reply says what changed (names, associations); sacctmgr words it.
 * This file: the request (who asks, dry runs, the reply after the
 * commit), what every entity shares (names, key checks, association
 * attributes, filters) and the dispatch table.  The entities' handlers
 * are assoc_edit.c, assoc_qos.c, assoc_list.c and assoc_load.c. */
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
#include "common/text.h"
#include "common/xmalloc.h"
#include "acct/assoc_mgr.h"
#include "core/core.h"

int mgr_fail(struct mgr *m, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err.text, sizeof(m->err.text), fmt, ap);
	va_end(ap);
	m->rc = rc;
	return -1;
}

int mgr_denied(struct mgr *m)
{
	return mgr_fail(m, HERD_ERR_ACCESS, "%s", herd_strerror(HERD_ERR_ACCESS));
}

const char *mgr_where(const struct mgr *m, const char *key)
{
	return json_string_value(json_object_get(m->where, key));
}

const char *mgr_set(const struct mgr *m, const char *key)
{
	return json_string_value(json_object_get(m->set, key));
}

bool mgr_option(const struct mgr *m, const char *opt)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->options, i, v)
		if (json_is_string(v) && !strcasecmp(json_string_value(v), opt))
			return true;
	return false;
}

void mgr_strv_push(struct strv *s, const char *item)
{
	s->v = xrealloc(s->v, (s->n + 2) * sizeof(char *));
	s->v[s->n++] = xstrdup(item);
	s->v[s->n] = NULL;
}

bool mgr_strv_has(const struct strv *s, const char *item)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], item))
			return true;
	return false;
}

void mgr_strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* "a,b,,c" into s (empty items dropped, duplicates once). */
void mgr_strv_split(struct strv *s, const char *list)
{
	const char *p = list;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		if (len) {
			char *item = xstrndup(p, len);
			if (!mgr_strv_has(s, item))
				mgr_strv_push(s, item);
			free(item);
		}
		p += len;
		if (*p == ',')
			p++;
	}
}

/* The objects named: "names" (words after the entity) and where name=. */
void mgr_names(const struct mgr *m, struct strv *s, const char *alt_key)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->names, i, v)
		if (json_is_string(v) && *json_string_value(v) && !mgr_strv_has(s, json_string_value(v)))
			mgr_strv_push(s, json_string_value(v));
	mgr_strv_split(s, mgr_where(m, "name"));
	if (alt_key)
		mgr_strv_split(s, mgr_where(m, alt_key));
}

bool mgr_in_list(const char *list, const char *word)
{
	struct strv s = { 0 };
	mgr_strv_split(&s, list);
	bool r = mgr_strv_has(&s, word);
	mgr_strv_free(&s);
	return r;
}

/* Every key of o is one of allowed; else the Slurm-like refusal. */
int mgr_check_keys(struct mgr *m, const json_t *o, const char *const *allowed, const char *what)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)o, key, v) {
		size_t i;
		for (i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				break;
		if (!allowed[i])
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "Unknown %s option: %s", what, key);
		if (!json_is_string(v))
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "Value of %s must be a string", key);
	}
	return 0;
}

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

int mgr_parse_count(struct mgr *m, const char *key, const char *s, int64_t *out)
{
	uint64_t v;
	if (!strcmp(s, "-1")) {
		*out = ACCT_UNSET;
		return 0;
	}
	if (parse_uint(s, INT32_MAX - 1, &v) < 0)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid value '%.60s' for %s (a count, or -1 for none)",
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
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid value '%.60s' for %s (a time, or -1 for none)",
			    s, key);
	*out = secs < 0 ? ACCT_UNSET : secs / 60;
	return 0;
}

int mgr_parse_tres(struct mgr *m, const char *key, const char *s, tres_vec v)
{
	char err[200];
	if (tres_parse(s, v, err, sizeof(err)) < 0)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "%s: %.130s", key, err);
	return 0;
}

/* Every QOS named in a list value ("a,b", "+a", "-a") exists. */
int mgr_check_qos_names(struct mgr *m, const char *list)
{
	const char *p = list;
	if (!strcmp(p, "-1"))
		return 0;
	if (*p == '+' || *p == '-')
		p++;
	struct strv s = { 0 };
	mgr_strv_split(&s, p);
	for (size_t i = 0; i < s.n; i++) {
		const char *name = s.v[i];
		if (*name == '+' || *name == '-')
			name++;
		if (!acct_qos_find(name)) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS name '%.100s'", name);
			mgr_strv_free(&s);
			return -1;
		}
	}
	mgr_strv_free(&s);
	return 0;
}

/* Keys of association attributes sacctmgr sends (canonical, lower case). */
const char *const mgr_assoc_keys[] = {
	"fairshare", "grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "grpwall", "maxjobs",
	"maxsubmitjobs", "maxwall", "maxtresperjob", "maxtrespernode", "maxtresminsperjob", "qos",
	"defaultqos", NULL
};

static bool is_assoc_key(const char *key)
{
	for (size_t i = 0; mgr_assoc_keys[i]; i++)
		if (!strcmp(mgr_assoc_keys[i], key))
			return true;
	return false;
}

/* The association attributes of o into c; other keys are left to the
 * caller.  -1 with m's error for a bad value. */
int mgr_change_parse(struct mgr *m, const json_t *o, struct assoc_change *c)
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
				rc = mgr_fail(m, HERD_ERR_INVALID_ARG,
					  "Invalid value '%.60s' for Fairshare (a number or \"parent\")", v);
			else
				c->shares = n;
		} else if (!strcmp(key, "grpjobs")) {
			rc = mgr_parse_count(m, "GrpJobs", v, &c->lim.grp_jobs);
		} else if (!strcmp(key, "grpsubmitjobs")) {
			rc = mgr_parse_count(m, "GrpSubmitJobs", v, &c->lim.grp_submit);
		} else if (!strcmp(key, "maxjobs")) {
			rc = mgr_parse_count(m, "MaxJobs", v, &c->lim.max_jobs);
		} else if (!strcmp(key, "maxsubmitjobs")) {
			rc = mgr_parse_count(m, "MaxSubmitJobs", v, &c->lim.max_submit);
		} else if (!strcmp(key, "grpwall")) {
			rc = parse_wall(m, "GrpWall", v, &c->lim.grp_wall);
		} else if (!strcmp(key, "maxwall")) {
			rc = parse_wall(m, "MaxWall", v, &c->lim.max_wall);
		} else if (!strcmp(key, "grptres")) {
			rc = mgr_parse_tres(m, "GrpTRES", v, c->lim.grp_tres);
		} else if (!strcmp(key, "grptresmins")) {
			rc = mgr_parse_tres(m, "GrpTRESMins", v, c->lim.grp_tres_mins);
		} else if (!strcmp(key, "maxtresperjob")) {
			rc = mgr_parse_tres(m, "MaxTRESPerJob", v, c->lim.max_tres_per_job);
		} else if (!strcmp(key, "maxtrespernode")) {
			rc = mgr_parse_tres(m, "MaxTRESPerNode", v, c->lim.max_tres_per_node);
		} else if (!strcmp(key, "maxtresminsperjob")) {
			rc = mgr_parse_tres(m, "MaxTRESMinsPerJob", v, c->lim.max_tres_mins_per_job);
		} else if (!strcmp(key, "qos")) {
			rc = mgr_check_qos_names(m, v);
			c->qos = v;
		} else if (!strcmp(key, "defaultqos")) {
			if (*v && strcmp(v, "-1") && !acct_qos_find(v))
				rc = mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS name '%.100s'", v);
			c->default_qos = v;
		}
		if (rc)
			return -1;
	}
	return 0;
}

void mgr_merge_scalar(int64_t *dst, int64_t v)
{
	if (v != NOT_GIVEN)
		*dst = v;
}

void mgr_merge_tres(tres_vec dst, const tres_vec v)
{
	for (int i = 0; i < TRES_COUNT; i++)
		if (v[i] != NOT_GIVEN)
			dst[i] = v[i];
}

/* The QOS list a change gives a: "+x" and "-x" start from what a uses
 * now (its own or inherited), a plain list replaces it.  Caller frees;
 * NULL: inherit. */
char *mgr_qos_list_apply(const struct assoc *a, const char *v)
{
	if (!*v || !strcmp(v, "-1"))
		return NULL;
	struct strv cur = { 0 }, items = { 0 }, out = { 0 };
	char mode = 0;
	if (*v == '+' || *v == '-')
		mode = *v++;
	mgr_strv_split(&items, v);
	if (mode)
		mgr_strv_split(&cur, assoc_qos_effective(a));
	for (size_t i = 0; i < cur.n; i++)
		mgr_strv_push(&out, cur.v[i]);
	for (size_t i = 0; i < items.n; i++) {
		const char *name = items.v[i];
		char op = mode ? mode : '=';
		if (*name == '+' || *name == '-')
			op = *name++;
		if (op == '-') {
			struct strv keep = { 0 };
			for (size_t j = 0; j < out.n; j++)
				if (strcmp(out.v[j], name))
					mgr_strv_push(&keep, out.v[j]);
			mgr_strv_free(&out);
			out = keep;
		} else if (!mgr_strv_has(&out, name)) {
			mgr_strv_push(&out, name);
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
	mgr_strv_free(&cur);
	mgr_strv_free(&items);
	mgr_strv_free(&out);
	return s;
}

/* Would the change leave a's default QOS outside its QOS list? */
int mgr_change_check_qos(struct mgr *m, const struct assoc *a, const struct assoc_change *c)
{
	char *list = c->qos ? mgr_qos_list_apply(a, c->qos) : xstrdup(assoc_qos_effective(a));
	const char *dq = c->default_qos ? c->default_qos : a->default_qos;
	int rc = 0;
	if (!list)
		list = xstrdup(a->parent ? assoc_qos_effective(a->parent) : "normal");
	if (dq && *dq && strcmp(dq, "-1") && !mgr_in_list(list, dq))
		rc = mgr_fail(m, HERD_ERR_INVALID_ARG,
			  "Default QOS '%.40s' is not in the QOS list (%.60s) of account '%.30s'", dq,
			  list, a->account);
	free(list);
	return rc;
}

void mgr_change_apply(struct assoc *a, const struct assoc_change *c)
{
	mgr_merge_scalar(&a->lim.grp_jobs, c->lim.grp_jobs);
	mgr_merge_scalar(&a->lim.grp_submit, c->lim.grp_submit);
	mgr_merge_scalar(&a->lim.max_jobs, c->lim.max_jobs);
	mgr_merge_scalar(&a->lim.max_submit, c->lim.max_submit);
	mgr_merge_scalar(&a->lim.max_wall, c->lim.max_wall);
	mgr_merge_scalar(&a->lim.grp_wall, c->lim.grp_wall);
	mgr_merge_tres(a->lim.grp_tres, c->lim.grp_tres);
	mgr_merge_tres(a->lim.grp_tres_mins, c->lim.grp_tres_mins);
	mgr_merge_tres(a->lim.max_tres_per_job, c->lim.max_tres_per_job);
	mgr_merge_tres(a->lim.max_tres_per_node, c->lim.max_tres_per_node);
	mgr_merge_tres(a->lim.max_tres_mins_per_job, c->lim.max_tres_mins_per_job);
	if (c->shares != NOT_GIVEN)
		a->shares = (uint32_t)c->shares;
	if (c->qos) {
		char *list = mgr_qos_list_apply(a, c->qos);
		free(a->qos_list);
		a->qos_list = list;
	}
	if (c->default_qos) {
		free(a->default_qos);
		a->default_qos = *c->default_qos && strcmp(c->default_qos, "-1")
					 ? xstrdup(c->default_qos) : NULL;
	}
}

void mgr_filter_fill(const struct mgr *m, struct assoc_filter *f)
{
	memset(f, 0, sizeof(*f));
	mgr_strv_split(&f->clusters, mgr_where(m, "cluster"));
	mgr_strv_split(&f->accounts, mgr_where(m, "account"));
	mgr_strv_split(&f->users, mgr_where(m, "user"));
	mgr_strv_split(&f->partitions, mgr_where(m, "partition"));
	mgr_strv_split(&f->parents, mgr_where(m, "parent"));
	mgr_strv_split(&f->ids, mgr_where(m, "id"));
}

void mgr_filter_free(struct assoc_filter *f)
{
	mgr_strv_free(&f->clusters);
	mgr_strv_free(&f->accounts);
	mgr_strv_free(&f->users);
	mgr_strv_free(&f->partitions);
	mgr_strv_free(&f->parents);
	mgr_strv_free(&f->ids);
}

bool mgr_filter_match(const struct assoc_filter *f, const struct assoc *a)
{
	char id[16];
	snprintf(id, sizeof(id), "%u", a->id);
	if (f->clusters.n && !mgr_strv_has(&f->clusters, a->cluster))
		return false;
	if (f->accounts.n && !mgr_strv_has(&f->accounts, a->account))
		return false;
	if (f->users.n && (!a->user || !mgr_strv_has(&f->users, a->user)))
		return false;
	if (f->partitions.n && (!a->partition || !mgr_strv_has(&f->partitions, a->partition)))
		return false;
	if (f->parents.n && (a->user || !a->parent_acct || !mgr_strv_has(&f->parents, a->parent_acct)))
		return false;
	if (f->ids.n && !mgr_strv_has(&f->ids, id))
		return false;
	if (f->users_only && !a->user)
		return false;
	if (f->accounts_only && a->user)
		return false;
	return true;
}

json_t *mgr_assoc_ref(const struct assoc *a)
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

const char *const mgr_where_assoc_keys[] = {
	"name", "cluster", "account", "user", "partition", "parent", "id", NULL
};

static void scan_job(struct job *job, void *arg)
{
	struct jobs_scan *s = arg;
	if (job_state_is_final(job->state))
		return;
	if (s->accounts && (!job->account || !mgr_strv_has(s->accounts, job->account)))
		return;
	if (s->users && (!job->user || !mgr_strv_has(s->users, job->user)))
		return;
	if (s->partition && (!job->part || strcmp(job->part->name, s->partition)))
		return;
	if (s->qos && (!job->qos || !mgr_strv_has(s->qos, job->qos)))
		return;
	if (json_array_size(s->found) < 1000)
		json_array_append_new(s->found,
				      json_pack("{s:I, s:s, s:s, s:s}", "job_id", (json_int_t)job->id,
						"cluster", core.cluster, "account",
						job->account ? job->account : "", "user",
						job->user ? job->user : ""));
}

/* Jobs pending or running that a delete would orphan: the reply lists
 * them (Slurm: "Job(s) active, cancel job(s) before remove"). */
bool mgr_jobs_block(struct mgr *m, struct jobs_scan *s)
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

/* ---- account and user values ---- */
int mgr_names_ok(struct mgr *m, const struct strv *names, const char *what)
{
	for (size_t i = 0; i < names->n; i++)
		for (const unsigned char *p = (const unsigned char *)names->v[i]; *p; p++)
			/* control characters (0x1f is the index key's separator) */
			if (*p < 0x20 || *p == 0x7f)
				return mgr_fail(m, HERD_ERR_INVALID_ARG,
						"Invalid %s name '%.60s': control characters are not allowed",
						what, names->v[i]);
	return 0;
}

/* Every string in v (a request's set, where, names, or a loaded line's
 * attributes, at any depth): no control characters.  A newline in a
 * Description would become a line of its own in `sacctmgr dump`'s file
 * and of every -P listing; key names the field in the error. */
int mgr_values_ok(struct mgr *m, const json_t *v, const char *key)
{
	const char *k;
	json_t *item;
	size_t i;
	if (json_is_string(v) && text_has_control(json_string_value(v)))
		return mgr_fail(m, HERD_ERR_INVALID_ARG,
				"Invalid value for %.40s: control characters are not allowed", key);
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, item)
			if (mgr_values_ok(m, item, k) < 0)
				return -1;
	if (json_is_array(v))
		json_array_foreach(v, i, item)
			if (mgr_values_ok(m, item, key) < 0)
				return -1;
	return 0;
}

const char *mgr_org_default(const char *name, const char *parent)
{
	/* Slurm: the parent account's name, the account's own under root */
	return parent && strcmp(parent, "root") ? parent : name;
}

int mgr_parse_account_flags(struct mgr *m, const char *v, unsigned cur, unsigned *out)
{
	char mode = 0;
	if (*v == '+' || *v == '-')
		mode = *v++;
	struct strv s = { 0 };
	unsigned f = 0;
	if (strcmp(v, "-1") && strcasecmp(v, "none")) {
		mgr_strv_split(&s, v);
		for (size_t i = 0; i < s.n; i++) {
			if (strcasecmp(s.v[i], "TeamJobs")) {
				mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid account flag '%.60s' (known: TeamJobs)",
				     s.v[i]);
				mgr_strv_free(&s);
				return -1;
			}
			f |= ACCT_FLAG_TEAMJOBS;
		}
	}
	mgr_strv_free(&s);
	*out = mode == '+' ? cur | f : mode == '-' ? cur & ~f : f;
	return 0;
}

/* Would making `account` a child of `parent` close a loop in the tree? */
bool mgr_makes_cycle(const char *cluster, const char *account, const char *parent)
{
	int guard = 0;
	for (struct assoc *p = assoc_find_exact(cluster, parent, NULL, NULL); p && guard < 10000;
	     p = p->parent, guard++)
		if (!strcmp(p->account, account))
			return true;
	return false;
}

int mgr_parse_admin(struct mgr *m, const char *v, enum admin_level *out)
{
	if (!strcasecmp(v, "none") || !strcmp(v, "-1"))
		*out = ADMIN_NONE;
	else if (!strncasecmp(v, "operator", strlen(v) > 1 ? strlen(v) : 2))
		*out = ADMIN_OPERATOR;
	else if (!strncasecmp(v, "administrator", strlen(v) > 1 ? strlen(v) : 2))
		*out = ADMIN_ADMIN;
	else
		return mgr_fail(m, HERD_ERR_INVALID_ARG,
			    "Invalid AdminLevel '%.60s' (None, Operator or Administrator)", v);
	return 0;
}

const char *mgr_admin_name(enum admin_level l)
{
	return l == ADMIN_ADMIN ? "Administrator" : l == ADMIN_OPERATOR ? "Operator" : "None";
}

/* ---- dispatch ---- */
static const struct mgr_op {
	const char *op, *entity;
	int (*fn)(struct mgr *m);
} mgr_ops[] = {
	{ "add", "cluster", mgr_add_cluster },
	{ "add", "account", mgr_add_account },
	{ "add", "user", mgr_add_user },
	{ "add", "qos", mgr_add_qos },
	{ "add", "coordinator", mgr_add_coord },
	{ "modify", "cluster", mgr_modify_cluster },
	{ "modify", "account", mgr_modify_account },
	{ "modify", "user", mgr_modify_user },
	{ "modify", "qos", mgr_modify_qos },
	{ "delete", "cluster", mgr_delete_cluster },
	{ "delete", "account", mgr_delete_account },
	{ "delete", "user", mgr_delete_user },
	{ "delete", "qos", mgr_delete_qos },
	{ "delete", "coordinator", mgr_delete_coord },
	{ "list", "cluster", mgr_list_cluster },
	{ "list", "account", mgr_list_account },
	{ "list", "user", mgr_list_user },
	{ "list", "qos", mgr_list_qos },
	{ "list", "coordinator", mgr_list_coord },
	{ "list", "association", mgr_list_assoc },
	{ "list", "tres", mgr_list_tres },
	{ "list", "wckey", mgr_list_wckey },
	{ "dump", "cluster", mgr_dump_cluster },
	{ "load", "cluster", mgr_load_file },
};

/* Fill m from an ACCT_MGR body and run its handler: 0, or -1 with m->rc
 * and m->err.  m->out is the reply's body either way (the caller's). */
static int mgr_run(struct mgr *m, const json_t *body, json_t *empty)
{
	const char *op = json_string_value(json_object_get(body, "op"));
	const char *entity = json_string_value(json_object_get(body, "entity"));
	m->where = json_object_get(body, "where");
	m->set = json_object_get(body, "set");
	m->names = json_object_get(body, "names");
	m->options = json_object_get(body, "options");
	m->records = json_object_get(body, "records");
	if (!m->where)
		m->where = empty;
	if (!m->set)
		m->set = empty;
	m->uname = names_user(m->uid);
	m->admin = acct_admin_level(m->uid) == ADMIN_ADMIN;
	m->oper = acct_is_operator(m->uid);
	m->dry_run = mgr_option(m, "dry_run");
	m->out = json_object();
	const struct mgr_op *o = NULL;
	for (size_t i = 0; op && entity && i < sizeof(mgr_ops) / sizeof(mgr_ops[0]); i++)
		if (!strcmp(mgr_ops[i].op, op) && !strcmp(mgr_ops[i].entity, entity))
			o = &mgr_ops[i];
	if (!o)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Not a valid sacctmgr request for that entity");
	/* (a load's lines are checked one by one, to name the line) */
	if (mgr_values_ok(m, m->set, "a value") < 0 || mgr_values_ok(m, m->where, "a condition") < 0 ||
	    mgr_values_ok(m, m->names, "a name") < 0)
		return -1;
	/* a change refused midway leaves nothing behind: handlers check
	 * everything before they change anything */
	return o->fn(m);
}

int assoc_mgr_request(uid_t uid, const json_t *body, json_t **out, bool *changed,
		      struct herd_error *err)
{
	struct mgr m = { .uid = uid };
	json_t *empty = json_object();
	int rc = 0;

	*changed = false;
	if (mgr_run(&m, body, empty) < 0) {
		rc = m.rc ? m.rc : HERD_ERR_INVALID_ARG;
		errprintf(err, "%s", m.err.text);
		json_decref(m.out);
		m.out = NULL;
	} else if (m.changed) {
		/* a raised limit or a new association may let pending jobs start
		 * now, not at the next periodic pass */
		sched_request();
		*changed = true;
	}
	*out = m.out;
	json_decref(empty);
	return rc;
}

int assoc_mgr_local(uid_t uid, const json_t *body, struct herd_error *err)
{
	struct mgr m = { .uid = uid };
	json_t *empty = json_object();
	int rc = mgr_run(&m, body, empty);
	if (rc < 0)
		errprintf(err, "%s", m.err.text[0] ? m.err.text : "refused");
	else if (m.changed)
		sched_request();
	json_decref(m.out);
	json_decref(empty);
	return rc;
}

int assoc_load_records(const json_t *records, struct herd_error *err)
{
	json_t *body = json_pack("{s:s, s:s, s:O}", "op", "load", "entity", "cluster", "records",
				 (json_t *)records);
	json_t *out = NULL;
	bool changed;
	int rc = assoc_mgr_request(0, body, &out, &changed, err);

	json_decref(out);
	json_decref(body);
	return rc;
}
