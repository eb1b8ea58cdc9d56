/* ACCT_MGR's add, modify and delete of QOS: priority, usage factor,
 * flags, preemption, and the per-user, per-job and group limits.
 * Operators only. */
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
		if ((v = mgr_set(m, lim_keys[i])))
			json_object_set_new(tmp, lim_keys[i], json_string(v));
	int rc = mgr_change_parse(m, tmp, &q->c);
	json_decref(tmp);
	if (rc < 0)
		return -1;
	q->max_jobs_pu = q->max_submit_pu = q->priority = NOT_GIVEN;
	for (int i = 0; i < TRES_COUNT; i++)
		q->max_tres_pu[i] = NOT_GIVEN;
	q->usage_factor = NAN;
	q->description = mgr_set(m, "description");
	q->preempt = mgr_set(m, "preempt");
	q->preempt_mode = mgr_set(m, "preemptmode");
	q->flags = mgr_set(m, "flags");
	if ((v = mgr_set(m, "maxjobsperuser")) && mgr_parse_count(m, "MaxJobsPerUser", v, &q->max_jobs_pu) < 0)
		return -1;
	if ((v = mgr_set(m, "maxsubmitjobsperuser")) &&
	    mgr_parse_count(m, "MaxSubmitJobsPerUser", v, &q->max_submit_pu) < 0)
		return -1;
	if ((v = mgr_set(m, "maxtresperuser")) && mgr_parse_tres(m, "MaxTRESPerUser", v, q->max_tres_pu) < 0)
		return -1;
	if ((v = mgr_set(m, "priority"))) {
		if (!strcmp(v, "-1"))
			q->priority = 0;
		else if (mgr_parse_count(m, "Priority", v, &q->priority) < 0)
			return -1;
	}
	if ((v = mgr_set(m, "usagefactor"))) {
		char *end;
		errno = 0;
		double d = strtod(v, &end);
		if (!strcmp(v, "-1"))
			d = 1.0;
		else if (!*v || *end || errno || d < 0 || !isfinite(d))
			return mgr_fail(m, HERD_ERR_INVALID_ARG,
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
			return mgr_fail(m, HERD_ERR_INVALID_ARG,
				    "Invalid PreemptMode '%.60s' (Cluster, Cancel, Requeue, Suspend or Off)",
				    q->preempt_mode);
	}
	if (q->preempt && mgr_check_qos_names(m, q->preempt) < 0)
		return -1;
	if (q->flags) {
		const char *f = q->flags;
		unsigned bits;
		if (*f == '+' || *f == '-')
			f++;
		if (strcmp(f, "-1") && strcasecmp(f, "none") && qos_flags_parse(f, &bits) < 0)
			return mgr_fail(m, HERD_ERR_INVALID_ARG, "Invalid QOS flag in '%.60s'", q->flags);
	}
	return 0;
}

static char *preempt_apply(const char *cur, const char *v)
{
	if (!*v || !strcmp(v, "-1") || !strcasecmp(v, "none"))
		return NULL;
	struct assoc fake = { .qos_list = (char *)(cur ? cur : "") };
	char *s = mgr_qos_list_apply(&fake, v);
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
	mgr_change_apply(&tmp, &lc);
	q->lim = tmp.lim;
	mgr_merge_scalar(&q->lim.max_jobs, c->max_jobs_pu);
	mgr_merge_scalar(&q->lim.max_submit, c->max_submit_pu);
	mgr_merge_tres(q->max_tres_per_user, c->max_tres_pu);
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

int mgr_add_qos(struct mgr *m)
{
	struct strv names = { 0 };
	struct qos_change c;
	json_t *added = json_array();
	json_object_set_new(m->out, "added", added);
	if (mgr_check_keys(m, m->set, qos_set_keys, "qos") < 0 || qos_change_parse(m, &c) < 0)
		return -1;
	if (!m->oper)
		return mgr_denied(m);
	mgr_names(m, &names, NULL);
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "Need name of QOS to add");
	if (mgr_names_ok(m, &names, "QOS") < 0) {
		mgr_strv_free(&names);
		return -1;
	}
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
	mgr_strv_free(&names);
	return 0;
}

int mgr_modify_qos(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "id", NULL };
	struct strv names = { 0 }, ids = { 0 };
	struct qos_change c;
	json_t *modified = json_array();
	json_object_set_new(m->out, "modified", modified);
	if (mgr_check_keys(m, m->where, wkeys, "qos") < 0 || mgr_check_keys(m, m->set, qos_set_keys, "qos") < 0 ||
	    qos_change_parse(m, &c) < 0)
		return -1;
	if (!json_object_size(m->set))
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me anything to set");
	if (!m->oper)
		return mgr_denied(m);
	mgr_names(m, &names, NULL);
	mgr_strv_split(&ids, mgr_where(m, "id"));
	if (!names.n && !ids.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any QOS to modify (where name=...)");
	const char *preempt = c.preempt && (*c.preempt == '+' || *c.preempt == '-') ? c.preempt + 1
										     : c.preempt;
	for (struct acct_qos *q = accounting.qos; q; q = q->next) {
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if ((mgr_strv_has(&names, q->name) || mgr_strv_has(&ids, id)) && preempt &&
		    mgr_in_list(preempt, q->name)) {
			mgr_fail(m, HERD_ERR_INVALID_ARG, "QOS '%.60s' can't preempt itself", q->name);
			mgr_strv_free(&names);
			mgr_strv_free(&ids);
			return -1;
		}
	}
	for (struct acct_qos *q = accounting.qos; q; q = q->next) {
		char id[16];
		snprintf(id, sizeof(id), "%u", q->id);
		if (!mgr_strv_has(&names, q->name) && !mgr_strv_has(&ids, id))
			continue;
		json_array_append_new(modified, json_string(q->name));
		if (m->dry_run)
			continue;
		qos_change_apply(q, &c);
		acct_qos_save(q);
		m->changed = true;
	}
	mgr_strv_free(&names);
	mgr_strv_free(&ids);
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
		if (a->qos_list && mgr_in_list(a->qos_list, name)) {
			char *v = xasprintf("-%s", name);
			char *list = mgr_qos_list_apply(a, v);
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
		if (q->preempt && mgr_in_list(q->preempt, name)) {
			char *v = xasprintf("-%s", name);
			char *p = preempt_apply(q->preempt, v);
			free(v);
			free(q->preempt);
			q->preempt = p;
			acct_qos_save(q);
		}
}

int mgr_delete_qos(struct mgr *m)
{
	static const char *const wkeys[] = { "name", "id", NULL };
	struct strv names = { 0 };
	json_t *deleted = json_array();
	json_object_set_new(m->out, "deleted", deleted);
	if (mgr_check_keys(m, m->where, wkeys, "qos") < 0)
		return -1;
	if (!m->oper)
		return mgr_denied(m);
	mgr_names(m, &names, NULL);
	if (!names.n)
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "You didn't give me any QOS to delete");
	if (mgr_strv_has(&names, "normal")) {
		mgr_strv_free(&names);
		return mgr_fail(m, HERD_ERR_INVALID_ARG, "The QOS 'normal' is the default; it can't be deleted");
	}
	struct jobs_scan scan = { .qos = &names };
	if (mgr_jobs_block(m, &scan))
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
	mgr_strv_free(&names);
	return 0;
}
