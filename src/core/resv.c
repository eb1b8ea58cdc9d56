/* Reservations: nodes held for some users or accounts over a window
 * (scontrol create|update|delete|show reservation), durable in the store
 * (kind "resv"), given to the scheduler as pass.h's struct sched_resv.
 * Not the scheduling itself: sched.c and src/sched/pass.c honour them. */
#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/licenses.h"
#include "core/resv.h"
#include "sched/pass.h"

/* Slurm's MAX_RESV_DELAY: a start up to this far in the past is taken as
 * now (the command's "now" is older than the controller's). */
#define RESV_PAST_SLACK 600

struct resv {
	char *name;
	time_t start, end;          /* the current (or next) occurrence */
	int *node;                  /* node indexes, ascending */
	int nnodes;
	char *users, *accounts;     /* comma lists as given (names), NULL = none */
	char *partition;            /* NULL = none */
	char *licenses;             /* Licenses= as given (held for its jobs while active), NULL = none */
	unsigned flags;             /* RESV_* */
	uid_t *uid;
	int nuid;
	bool was_active;            /* as of the last tick (to wake the scheduler) */
};

static struct resv *resvs;
static int nresvs, cap_resvs;
static struct sched_resv *slist;
static uint32_t next_seq = 1;   /* the N of user_N names */
static struct core_timer resv_timer;
static struct core_timer edge_timer;   /* the next start or end, to the second */
static long over_run;           /* ResvOverRun, minutes; -1 = UNLIMITED */

/* --- pure pieces ------------------------------------------------------ */

int64_t resv_stop_limit(int64_t time_limit, time_t job_start, time_t stop, time_t now)
{
	if (time_limit >= 0 && job_start + time_limit <= stop)
		return time_limit;
	if (stop < now)
		stop = now;
	return stop - job_start > 0 ? (int64_t)(stop - job_start) : 1;
}

static const struct {
	const char *name;
	unsigned flag;              /* 0: Slurm's, not Herd's */
} flag_names[] = {
	{ "MAINT", RESV_MAINT }, { "DAILY", RESV_DAILY }, { "WEEKLY", RESV_WEEKLY },
	{ "IGNORE_JOBS", RESV_IGNORE_JOBS }, { "FLEX", RESV_FLEX }, { "OVERLAP", RESV_OVERLAP },
	{ "SPEC_NODES", RESV_SPEC_NODES },
	{ "ANY_NODES", 0 }, { "STATIC_ALLOC", 0 }, { "PART_NODES", 0 }, { "FIRST_CORES", 0 },
	{ "TIME_FLOAT", 0 }, { "REPLACE", 0 }, { "REPLACE_DOWN", 0 }, { "NO_HOLD_JOBS_AFTER", 0 },
	{ "PURGE_COMP", 0 }, { "WEEKDAY", 0 }, { "WEEKEND", 0 }, { "MAGNETIC", 0 },
	{ "HOURLY", 0 }, { "LICENSE_ONLY", 0 }, { "NO_HOLD_JOBS", 0 }, { "USER_DELETE", 0 },
	{ "NO_PURGE_COMP", 0 },
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

int resv_flags_parse(const char *s, unsigned *flags, struct herd_error *err)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	unsigned f = 0;
	int rc = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < NFLAGS && strcasecmp(tok, flag_names[i].name); i++)
			;
		if (i == NFLAGS) {
			rc = errprintf(err, "Error parsing flags %s", tok);
			break;
		}
		if (!flag_names[i].flag) {
			rc = errprintf(err, "Reservation flag %s is not supported", flag_names[i].name);
			break;
		}
		f |= flag_names[i].flag;
	}
	free(copy);
	if (rc == 0)
		*flags = f;
	return rc;
}

char *resv_flags_string(unsigned flags, char *buf, size_t len)
{
	/* Slurm's order: MAINT, ..., DAILY, WEEKLY, IGNORE_JOBS, ..., SPEC_NODES */
	static const unsigned order[] = { RESV_MAINT, RESV_DAILY, RESV_WEEKLY, RESV_IGNORE_JOBS,
					  RESV_OVERLAP, RESV_FLEX, RESV_SPEC_NODES };
	size_t at = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		if (!(flags & order[k]))
			continue;
		for (size_t i = 0; i < NFLAGS; i++)
			if (flag_names[i].flag == order[k] && at < len)
				at += snprintf(buf + at, len - at, "%s%s", at ? "," : "", flag_names[i].name);
	}
	return buf;
}

bool resv_next_occurrence(unsigned flags, time_t now, time_t *start, time_t *end)
{
	time_t step = flags & RESV_DAILY ? 86400 : flags & RESV_WEEKLY ? 7 * 86400 : 0;
	if (!step || *end > now)
		return false;
	time_t k = (now - *end) / step + 1;   /* occurrences to skip so end > now */
	*start += k * step;
	*end += k * step;
	return true;
}

bool resv_windows_overlap(time_t s1, time_t e1, time_t s2, time_t e2)
{
	return s1 < e2 && s2 < e1;
}

/* --- the table -------------------------------------------------------- */

static struct resv *resv_find(const char *name)
{
	for (int i = 0; i < nresvs; i++)
		if (!strcmp(resvs[i].name, name))
			return &resvs[i];
	return NULL;
}

static void resv_release(struct resv *r)
{
	free(r->name);
	free(r->node);
	free(r->users);
	free(r->accounts);
	free(r->partition);
	free(r->licenses);
	free(r->uid);
	memset(r, 0, sizeof(*r));
}

static bool resv_active(const struct resv *r, time_t now)
{
	return r->start <= now && now < r->end;
}

/* The tick again at the soonest start or end still to come (a day ahead
 * at most), so that the scheduler hears of it at its second: the tick is
 * a poll, which herd sim runs only when its clock moves for another
 * reason (doc/core.md "Time in the simulator"). */
static void edge_arm(time_t now)
{
	time_t next = 0;
	if (!edge_timer.impl)
		return;   /* before resv_setup */
	for (int i = 0; i < nresvs; i++) {
		const struct resv *r = &resvs[i];
		time_t at = r->start > now ? r->start : r->end;
		if (at > now && (!next || at < next))
			next = at;
	}
	if (next)
		core_timer_start(&edge_timer, (uint64_t)(next - now < 86400 ? next - now : 86400) * 1000, 0);
	else
		core_timer_stop(&edge_timer);
}

static bool resv_has_node(const struct resv *r, int idx)
{
	for (int i = 0; i < r->nnodes; i++)
		if (r->node[i] == idx)
			return true;
	return false;
}

static json_t *resv_record(const struct resv *r)
{
	char *nodes = node_list_string(r->node, r->nnodes);
	json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:i}", "name", r->name, "start",
			      (json_int_t)r->start, "end", (json_int_t)r->end, "nodes", nodes,
			      "flags", (int)r->flags);
	free(nodes);
	if (r->users)
		json_object_set_new(o, "users", json_string(r->users));
	if (r->accounts)
		json_object_set_new(o, "accounts", json_string(r->accounts));
	if (r->partition)
		json_object_set_new(o, "partition", json_string(r->partition));
	if (r->licenses)
		json_object_set_new(o, "licenses", json_string(r->licenses));
	return o;
}

static void resv_save(const struct resv *r)
{
	store_acct_put("resv", r->name, resv_record(r));
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* "n[1-3],n5" or "ALL" (the partition's nodes, else every node) into
 * indexes; -1 on a name not configured. */
static int nodes_parse(const char *expr, const struct part *p, int **out, int *n)
{
	*out = NULL;
	*n = 0;
	if (!strcasecmp(expr, "ALL")) {
		int cnt = p ? p->nnodes : core.nnodes;
		*out = xmalloc((cnt + 1) * sizeof(int));
		for (int i = 0; i < cnt; i++)
			(*out)[i] = p ? p->node_idx[i] : i;
		*n = cnt;
	} else {
		/* no more names than nodes: a huge expression is refused unexpanded */
		struct hostlist *hl = hostlist_create_max(expr, (size_t)core.nnodes);
		if (!hl || !hostlist_count(hl)) {
			hostlist_destroy(hl);
			return -1;
		}
		hostlist_uniq(hl);
		*out = xmalloc((hostlist_count(hl) + 1) * sizeof(int));
		for (size_t i = 0; i < hostlist_count(hl); i++) {
			int idx = node_index(hostlist_nth(hl, i));
			if (idx < 0) {
				hostlist_destroy(hl);
				free(*out);
				*out = NULL;
				return -1;
			}
			(*out)[(*n)++] = idx;
		}
		hostlist_destroy(hl);
	}
	qsort(*out, *n, sizeof(int), cmp_int);
	return 0;
}

static int users_parse(const char *users, uid_t **uid, int *n)
{
	char *copy = xstrdup(users), *save = NULL;
	*uid = NULL;
	*n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = getpwnam(tok);
		char *end;
		unsigned long v = strtoul(tok, &end, 10);
		if (!pw && (*end || !*tok)) {
			free(copy);
			free(*uid);
			*uid = NULL;
			return -1;
		}
		*uid = xrealloc(*uid, (*n + 1) * sizeof(uid_t));
		(*uid)[(*n)++] = pw ? pw->pw_uid : (uid_t)v;
	}
	free(copy);
	return 0;
}

static bool list_has(const char *list, const char *item)
{
	if (!list || !item)
		return false;
	size_t n = strlen(item);
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, item, n))
			return true;
		p += k;
		if (*p)
			p++;
	}
	return false;
}

static int accounts_check(const char *accounts, struct herd_error *err)
{
	char *copy = xstrdup(accounts), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		if (!acct_account_find(tok))
			rc = HERD_ERR_INVALID_ACCOUNT;
	free(copy);
	if (!rc && !*accounts)
		rc = HERD_ERR_INVALID_ACCOUNT;
	if (rc)
		errprintf(err, "%s", herd_strerror(rc));
	return rc;
}

/* A job that holds node idx past t (running, suspended, completing). */
struct busy_walk {
	const int *node;
	int nnodes;
	time_t start, end;
	bool *busy;                 /* per node index: some job there in the window */
};

static void busy_one(struct job *job, void *arg)
{
	struct busy_walk *w = arg;
	if (job->state != JOB_RUNNING && job->state != JOB_SUSPENDED && job->state != JOB_COMPLETING)
		return;
	time_t jend = job->time_limit < 0 ? (time_t)INT64_MAX : job->start_time + job->time_limit;
	if (job->state != JOB_COMPLETING && jend <= w->start)
		return;
	for (int i = 0; i < job->nalloc; i++)
		w->busy[job->alloc_node[i]] = true;
}

static bool *busy_nodes(time_t start, time_t end)
{
	bool *busy = xmalloc((core.nnodes + 1) * sizeof(bool));
	struct busy_walk w = { NULL, 0, start, end, busy };
	job_foreach(busy_one, &w);
	return busy;
}

/* Nodes held by another reservation (not self) in [start, end). */
static bool *reserved_nodes(const struct resv *self, time_t start, time_t end)
{
	bool *held = xmalloc((core.nnodes + 1) * sizeof(bool));
	for (int i = 0; i < nresvs; i++) {
		const struct resv *r = &resvs[i];
		if (r == self || (self && self->name && !strcmp(r->name, self->name)))
			continue;
		if (!resv_windows_overlap(r->start, r->end, start, end))
			continue;
		for (int k = 0; k < r->nnodes; k++)
			held[r->node[k]] = true;
	}
	return held;
}

static bool node_usable(const struct node *n)
{
	return !n->drain && n->state != NODE_DOWN && n->state != NODE_FUTURE;
}

/* NodeCnt=count from partition p: idle nodes first, then (IGNORE_JOBS)
 * those with jobs; none held by another reservation then (unless OVERLAP
 * or MAINT).  0, or an rc. */
static int pick_nodes(struct resv *r, const struct part *p, int count, const bool *busy,
		      const bool *held)
{
	bool ignore_jobs = r->flags & RESV_IGNORE_JOBS;
	bool may_overlap = r->flags & (RESV_OVERLAP | RESV_MAINT);
	int *node = xmalloc((p->nnodes + 1) * sizeof(int)), n = 0;

	if (count > p->nnodes) {
		free(node);
		return HERD_ERR_NODE_CONFIG;
	}
	/* idle and free of other reservations first; then (OVERLAP, MAINT)
	 * idle ones another reservation holds; then (IGNORE_JOBS) busy ones */
	for (int pass = 0; pass < 3 && n < count; pass++) {
		for (int i = 0; i < p->nnodes && n < count; i++) {
			int idx = p->node_idx[i];
			const struct node *nd = &core.nodes[idx];
			bool idle = nd->njobs == 0 && !busy[idx];
			if (!node_usable(nd) || (held[idx] && !may_overlap) || (busy[idx] && !ignore_jobs))
				continue;
			int want = !idle ? 2 : held[idx] ? 1 : 0;
			if (want == pass)
				node[n++] = idx;
		}
	}
	if (n < count) {
		free(node);
		return HERD_ERR_NODES_BUSY;
	}
	qsort(node, n, sizeof(int), cmp_int);
	free(r->node);
	r->node = node;
	r->nnodes = n;
	return 0;
}

/* The checks a new or changed reservation passes (Slurm's, in its order):
 * users or accounts, users and accounts known, times, partition, nodes
 * (given, or NodeCnt), busy nodes, overlaps.  old: the reservation as it
 * was (update), else NULL.  0, or an rc with err. */
static int resv_validate(struct resv *r, const struct resv *old, const char *nodes, int count,
			 time_t now, struct herd_error *err)
{
	int rc = 0;
	bool *busy = NULL, *held = NULL;
	const struct part *p = NULL;

	if (!r->users && !r->accounts) {
		rc = HERD_ERR_RESV_NO_USERS;
		goto out;
	}
	free(r->uid);
	r->uid = NULL;
	r->nuid = 0;
	if (r->users && users_parse(r->users, &r->uid, &r->nuid) < 0) {
		rc = HERD_ERR_USER_ID;
		goto out;
	}
	if (r->accounts && (rc = accounts_check(r->accounts, err)) != 0)
		return rc;
	if (r->end <= r->start || r->end <= now) {
		rc = HERD_ERR_INVALID_TIME;
		goto out;
	}
	if (r->partition && !(p = part_find(r->partition))) {
		rc = HERD_ERR_INVALID_PARTITION;
		goto out;
	}
	busy = busy_nodes(r->start, r->end);
	held = reserved_nodes(old ? old : r, r->start, r->end);
	if (nodes) {
		int *node, n;
		if (nodes_parse(nodes, p, &node, &n) < 0) {
			rc = HERD_ERR_INVALID_NODE;
			goto out;
		}
		free(r->node);
		r->node = node;
		r->nnodes = n;
		r->flags |= RESV_SPEC_NODES;
	} else if (count > 0) {
		if (!p) {
			p = core.default_part;
			if (!p) {
				rc = HERD_ERR_DEFAULT_PARTITION;
				goto out;
			}
			free(r->partition);
			r->partition = xstrdup(p->name);
		}
		/* an update keeps the nodes it has when it can (new ones are
		 * picked anew otherwise: simpler, and Slurm may too) */
		if ((rc = pick_nodes(r, p, count, busy, held)) != 0)
			goto out;
		r->flags &= ~RESV_SPEC_NODES;
	}
	if (!r->nnodes) {
		rc = HERD_ERR_INVALID_NODE;
		goto out;
	}
	for (int i = 0; i < r->nnodes; i++) {
		int idx = r->node[i];
		/* an update does not refuse the jobs it already had on its nodes */
		bool had = old && resv_has_node(old, idx) && old->start <= r->start;
		if (busy[idx] && !(r->flags & RESV_IGNORE_JOBS) && !had) {
			rc = HERD_ERR_NODES_BUSY;
			goto out;
		}
		if (held[idx] && !(r->flags & (RESV_OVERLAP | RESV_MAINT))) {
			rc = HERD_ERR_RESV_OVERLAP;
			goto out;
		}
	}
out:
	free(busy);
	free(held);
	if (rc)
		errprintf(err, "%s", herd_strerror(rc));
	return rc;
}

/* The body's times: start_time, end_time, duration (seconds) as given;
 * a start a little in the past is now. */
static int body_times(const json_t *body, struct resv *r, time_t now, bool update)
{
	json_t *s = json_object_get(body, "start_time"), *e = json_object_get(body, "end_time"),
	       *d = json_object_get(body, "duration");
	time_t duration = r->end - r->start;

	if (s) {
		time_t start = json_integer_value(s);
		if (start < now - RESV_PAST_SLACK)
			return -1;
		if (start < now)
			start = now;
		if (update && !e && !d)
			r->end = start + duration;   /* moved, its length kept */
		r->start = start;
	}
	if (e)
		r->end = json_integer_value(e);
	if (d) {
		if (json_integer_value(d) <= 0)
			return -1;
		r->end = r->start + json_integer_value(d);
	}
	return 0;
}

/* Licenses=: Licenses= of herd.conf has them all, as many (an AND list
 * only): 0 or rc 2048, Slurm's Invalid license specification. */
static int resv_licenses_check(const char *spec, struct herd_error *err)
{
	if (spec && strchr(spec, '|')) {
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_LICENSES));
		return HERD_ERR_INVALID_LICENSES;
	}
	return licenses_check(spec, err);
}

static const char *body_str(const json_t *body, const char *key)
{
	const char *s = json_string_value(json_object_get(body, key));
	return s && *s ? s : NULL;
}

static void set_str(char **field, const char *v)
{
	free(*field);
	*field = v && *v ? xstrdup(v) : NULL;
}

static void save_seq(void)
{
	store_acct_put("resv_seq", "next", json_pack("{s:I}", "next", (json_int_t)next_seq));
}

bool resv_may_manage(uid_t uid)
{
	return uid == 0 || uid == core.slurm_uid || acct_is_operator(uid);
}

int resv_create(const json_t *b, uid_t uid, char **created, struct herd_error *err)
{
	struct resv r = { 0 };
	time_t now = core_now();
	const char *name = body_str(b, "name"), *nodes = body_str(b, "nodes");
	int count = (int)json_integer_value(json_object_get(b, "node_cnt"));
	int rc;

	if (resv_flags_parse(body_str(b, "flags"), &r.flags, err) < 0)
		return HERD_ERR_INVALID_ARG;
	r.flags &= ~RESV_SPEC_NODES;
	if ((r.flags & RESV_DAILY) && (r.flags & RESV_WEEKLY)) {
		errprintf(err, "Reservation flags DAILY and WEEKLY are mutually exclusive");
		return HERD_ERR_INVALID_ARG;
	}
	if (name && resv_find(name))
		return HERD_ERR_RESV_NAME_DUP;
	if (count < 0 || count > 1000000 || (!nodes && !count))
		return HERD_ERR_INVALID_NODE;
	if (body_times(b, &r, now, false) < 0)
		return HERD_ERR_INVALID_TIME;
	r.users = body_str(b, "users") ? xstrdup(body_str(b, "users")) : NULL;
	r.accounts = body_str(b, "accounts") ? xstrdup(body_str(b, "accounts")) : NULL;
	r.partition = body_str(b, "partition") ? xstrdup(body_str(b, "partition")) : NULL;
	r.licenses = body_str(b, "licenses") ? xstrdup(body_str(b, "licenses")) : NULL;
	if ((rc = resv_licenses_check(r.licenses, err)) != 0 ||
	    (rc = resv_validate(&r, NULL, nodes, count, now, err)) != 0) {
		resv_release(&r);
		return rc;
	}
	/* Slurm's name: the creator's user name and a sequence number */
	r.name = name ? xstrdup(name) : xasprintf("%s_%u", names_user(uid), next_seq);
	while (!name && resv_find(r.name)) {
		free(r.name);
		r.name = xasprintf("%s_%u", names_user(uid), ++next_seq);
	}
	next_seq++;
	save_seq();
	if (nresvs == cap_resvs) {
		cap_resvs = cap_resvs ? 2 * cap_resvs : 8;
		resvs = xrealloc(resvs, cap_resvs * sizeof(*resvs));
	}
	r.was_active = resv_active(&r, now);
	resvs[nresvs++] = r;
	resv_save(&r);
	edge_arm(now);
	log_info("reservation %s created by uid %u", r.name, (unsigned)uid);
	sched_request();
	*created = xstrdup(r.name);
	return 0;
}

int resv_update(const json_t *b, char **updated, struct herd_error *err)
{
	time_t now = core_now();
	const char *nodes = body_str(b, "nodes");
	int count = (int)json_integer_value(json_object_get(b, "node_cnt"));
	struct resv *old = resv_find(json_string_value(json_object_get(b, "name")));
	unsigned add = 0, del = 0;
	int rc;

	if (!old)
		return HERD_ERR_RESV_INVALID;
	if (resv_flags_parse(body_str(b, "flags"), &add, err) < 0 ||
	    resv_flags_parse(body_str(b, "flags_remove"), &del, err) < 0)
		return HERD_ERR_INVALID_ARG;
	if (count < 0 || count > 1000000)
		return HERD_ERR_INVALID_NODE;
	struct resv r = *old;   /* a copy to change; the old one stays until it passes */
	r.name = xstrdup(old->name);
	r.node = xmalloc((old->nnodes + 1) * sizeof(int));
	memcpy(r.node, old->node, old->nnodes * sizeof(int));
	r.users = old->users ? xstrdup(old->users) : NULL;
	r.accounts = old->accounts ? xstrdup(old->accounts) : NULL;
	r.partition = old->partition ? xstrdup(old->partition) : NULL;
	r.licenses = old->licenses ? xstrdup(old->licenses) : NULL;
	r.uid = NULL;
	r.flags = (r.flags | (add & ~RESV_SPEC_NODES)) & ~(del & ~RESV_SPEC_NODES);
	if (add & RESV_DAILY)
		r.flags &= ~RESV_WEEKLY;
	else if (add & RESV_WEEKLY)
		r.flags &= ~RESV_DAILY;
	if (json_object_get(b, "users"))
		set_str(&r.users, json_string_value(json_object_get(b, "users")));
	if (json_object_get(b, "accounts"))
		set_str(&r.accounts, json_string_value(json_object_get(b, "accounts")));
	if (json_object_get(b, "partition"))
		set_str(&r.partition, json_string_value(json_object_get(b, "partition")));
	if (json_object_get(b, "licenses"))
		set_str(&r.licenses, json_string_value(json_object_get(b, "licenses")));
	if ((rc = resv_licenses_check(r.licenses, err)) != 0) {
		resv_release(&r);
		return rc;
	}
	if (body_times(b, &r, now, true) < 0) {
		resv_release(&r);
		return HERD_ERR_INVALID_TIME;
	}
	if ((rc = resv_validate(&r, old, nodes, count, now, err)) != 0) {
		resv_release(&r);
		return rc;
	}
	resv_release(old);
	*old = r;
	resv_save(old);
	edge_arm(now);
	sched_request();
	*updated = xstrdup(old->name);
	return 0;
}

/* The reservation's pending jobs are held (Slurm: ReservationDeleted,
 * released by scontrol release, then free to run anywhere). */
static void orphan_one(struct job *job, void *arg)
{
	const char *name = arg;
	if (!job->reservation || strcmp(job->reservation, name) || job->state != JOB_PENDING)
		return;
	free(job->reservation);
	job->reservation = NULL;
	job->hold_admin = true;
	job->priority = 0;
	job->reason = REASON_RESV_DELETED;
	job_changed(job);
}

struct in_use {
	const char *name;
	bool used;
};

static void in_use_one(struct job *job, void *arg)
{
	struct in_use *u = arg;
	if (job->reservation && !strcmp(job->reservation, u->name) &&
	    (job->state == JOB_RUNNING || job->state == JOB_SUSPENDED))
		u->used = true;
}

static void resv_remove(struct resv *r)
{
	job_foreach(orphan_one, r->name);
	store_acct_del("resv", r->name);
	resv_release(r);
	int i = (int)(r - resvs);
	memmove(&resvs[i], &resvs[i + 1], (nresvs - i - 1) * sizeof(*resvs));
	nresvs--;
	sched_request();
}

int resv_delete(const char *name, uid_t uid)
{
	struct resv *r = resv_find(name);
	if (!r)
		return HERD_ERR_RESV_INVALID;
	struct in_use u = { r->name, false };
	job_foreach(in_use_one, &u);
	if (u.used)
		return HERD_ERR_RESV_BUSY;
	log_info("reservation %s deleted by uid %u", r->name, (unsigned)uid);
	resv_remove(r);
	edge_arm(core_now());
	return 0;
}

static json_t *resv_to_info(const struct resv *r, time_t now)
{
	char flags[256], *nodes = node_list_string(r->node, r->nnodes);
	long long cpus = 0, cores = 0;
	for (int i = 0; i < r->nnodes; i++) {
		const struct node *n = &core.nodes[r->node[i]];
		cpus += n->cpus;
		cores += n->threads > 0 ? n->cpus / n->threads : n->cpus;
	}
	json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:i, s:I, s:I, s:s, s:s, s:s, s:s, s:s}",
			      "name", r->name, "start_time", (json_int_t)r->start, "end_time",
			      (json_int_t)r->end, "nodes", nodes, "node_cnt", r->nnodes, "core_cnt",
			      (json_int_t)cores, "cpus", (json_int_t)cpus, "partition",
			      r->partition ? r->partition : "", "flags",
			      resv_flags_string(r->flags, flags, sizeof(flags)), "users",
			      r->users ? r->users : "", "accounts", r->accounts ? r->accounts : "",
			      "state", resv_active(r, now) ? "ACTIVE" : "INACTIVE");
	json_object_set_new(o, "licenses", json_string(r->licenses ? r->licenses : ""));
	free(nodes);
	return o;
}

json_t *resv_info(const char *name, time_t now)
{
	json_t *list = json_array();
	for (int i = 0; i < nresvs; i++)
		if (!name || !strcmp(name, resvs[i].name))
			json_array_append_new(list, resv_to_info(&resvs[i], now));
	return list;
}

/* --- what others ask --------------------------------------------------- */

int resv_sched_list(time_t now, const struct sched_resv **out)
{
	/* One entry per reservation, in table order (resv_job_index's index);
	 * a recurring one as its occurrence current or next at now. */
	slist = xrealloc(slist, (nresvs + 1) * sizeof(*slist));
	for (int i = 0; i < nresvs; i++) {
		const struct resv *r = &resvs[i];
		time_t s = r->start, e = r->end;
		resv_next_occurrence(r->flags, now, &s, &e);
		slist[i] = (struct sched_resv){
			.start = s, .end = e, .node = r->node, .nnodes = r->nnodes,
			.flags = (r->flags & RESV_MAINT ? SCHED_RESV_MAINT : 0) |
				 (r->flags & RESV_IGNORE_JOBS ? SCHED_RESV_IGNORE_JOBS : 0) |
				 (r->flags & RESV_FLEX ? SCHED_RESV_FLEX : 0) |
				 (r->flags & RESV_OVERLAP ? SCHED_RESV_OVERLAP : 0),
		};
	}
	*out = slist;
	return nresvs;
}

const char *resv_licenses(int i)
{
	return i >= 0 && i < nresvs ? resvs[i].licenses : NULL;
}

int resv_job_index(const struct job *job, time_t now)
{
	(void)now;
	if (!job->reservation)
		return -1;
	for (int i = 0; i < nresvs; i++)
		if (!strcmp(resvs[i].name, job->reservation))
			return i;
	return -1;
}

int resv_check_job(const struct job *job, struct herd_error *err)
{
	if (!job->reservation)
		return 0;
	const struct resv *r = resv_find(job->reservation);
	if (!r)
		return errprintf(err, "%s", herd_strerror(HERD_ERR_RESV_INVALID)), HERD_ERR_RESV_INVALID;
	/* root and SlurmUser may use any (as Slurm) */
	if (job->uid == 0 || job->uid == core.slurm_uid)
		return 0;
	for (int i = 0; i < r->nuid; i++)
		if (r->uid[i] == job->uid)
			return 0;
	const char *account = job->account ? job->account : acct_default_account(job->user);
	if (list_has(r->accounts, account))
		return 0;
	errprintf(err, "%s", herd_strerror(HERD_ERR_RESV_ACCESS));
	return HERD_ERR_RESV_ACCESS;
}

const char *resv_node_state(int idx, time_t now)
{
	const char *s = NULL;
	for (int i = 0; i < nresvs; i++) {
		const struct resv *r = &resvs[i];
		if (!resv_active(r, now) || !resv_has_node(r, idx))
			continue;
		if (r->flags & RESV_MAINT)
			return "MAINT";
		s = "RESERVED";
	}
	return s;
}

enum job_reason resv_why_reason(int why, const struct job *job, time_t now)
{
	if (why == SCHED_WHY_RESV_NOT_ACTIVE)
		return REASON_RESERVATION;
	if (why != SCHED_WHY_RESERVED)
		return REASON_NONE;
	/* maintenance when an active MAINT reservation holds one of its
	 * partition's nodes, else someone else's reservation */
	for (int i = 0; i < nresvs; i++) {
		const struct resv *r = &resvs[i];
		if (!(r->flags & RESV_MAINT) || !resv_active(r, now) || !job->part)
			continue;
		for (int k = 0; k < job->part->nnodes; k++)
			if (resv_has_node(r, job->part->node_idx[k]))
				return REASON_RESV_MAINT;
	}
	return REASON_RESV_OTHER;
}

/* --- time ---------------------------------------------------------------- */

void resv_configure(const struct conf *conf)
{
	over_run = conf_get_int(conf, "ResvOverRun", 0);
}

time_t resv_job_stop(const struct job *job)
{
	const struct resv *r = job->reservation ? resv_find(job->reservation) : NULL;
	if (!r || (r->flags & RESV_FLEX) || over_run < 0)
		return 0;
	return r->end + (time_t)over_run * 60;
}

struct over {
	const struct resv *r;
	time_t stop, now;
};

/* A running job of the reservation that ended: its time limit now ends it
 * at the end + ResvOverRun, so its node ends it TIMEOUT as at any time
 * limit (as limits.c's GrpTRESMins).  FLEX ones may run on (Slurm's FLEX:
 * its jobs may end after it). */
static void over_one(struct job *job, void *arg)
{
	const struct over *o = arg;
	if (!job->reservation || strcmp(job->reservation, o->r->name) ||
	    job->state != JOB_RUNNING || job->start_time <= 0)
		return;
	int64_t limit = resv_stop_limit(job->time_limit, job->start_time, o->stop, o->now);
	if (limit == job->time_limit)
		return;
	log_info("job %u: reservation %s ended, the job ends at %lld (ResvOverRun=%ld)", job->id,
		 o->r->name, (long long)(job->start_time + limit), over_run);
	job->time_limit = limit;
	job_changed(job);
	core_time_limit(job);
}

static void resv_ended(const struct resv *r, time_t end, time_t now)
{
	if ((r->flags & RESV_FLEX) || over_run < 0)
		return;
	struct over o = { r, end + (time_t)over_run * 60, now };
	job_foreach(over_one, &o);
}

/* Every second: a recurring reservation that ended moves to its next
 * occurrence; another one that ended is gone (its pending jobs held); the
 * running jobs of one that ended are to end ResvOverRun after it; a
 * reservation starting or ending wakes the scheduler. */
static void resv_tick(struct core_timer *t)
{
	time_t now = core_now();
	for (int i = 0; i < nresvs;) {
		struct resv *r = &resvs[i];
		if (r->end <= now && !(r->flags & (RESV_DAILY | RESV_WEEKLY))) {
			log_info("reservation %s ended", r->name);
			resv_ended(r, r->end, now);
			resv_remove(r);
			continue;
		}
		time_t end = r->end;
		if (resv_next_occurrence(r->flags, now, &r->start, &r->end)) {
			resv_ended(r, end, now);
			log_info("reservation %s: next occurrence from %lld", r->name, (long long)r->start);
			resv_save(r);
		}
		bool active = resv_active(r, now);
		if (active != r->was_active) {
			r->was_active = active;
			sched_request();
		}
		i++;
	}
	edge_arm(now);
}

static void load_one(const char *key, const json_t *rec, void *arg)
{
	struct resv r = { 0 };
	const char *nodes = json_string_value(json_object_get(rec, "nodes"));
	r.name = xstrdup(key);
	r.start = json_integer_value(json_object_get(rec, "start"));
	r.end = json_integer_value(json_object_get(rec, "end"));
	r.flags = (unsigned)json_integer_value(json_object_get(rec, "flags"));
	set_str(&r.users, json_string_value(json_object_get(rec, "users")));
	set_str(&r.accounts, json_string_value(json_object_get(rec, "accounts")));
	set_str(&r.partition, json_string_value(json_object_get(rec, "partition")));
	set_str(&r.licenses, json_string_value(json_object_get(rec, "licenses")));
	/* nodes gone from herd.conf since: the others are kept */
	struct hostlist *hl = hostlist_create(nodes ? nodes : "");
	r.node = xmalloc((hl ? hostlist_count(hl) : 0) * sizeof(int) + sizeof(int));
	for (size_t i = 0; hl && i < hostlist_count(hl); i++) {
		int idx = node_index(hostlist_nth(hl, i));
		if (idx >= 0)
			r.node[r.nnodes++] = idx;
		else
			log_error("reservation %s: node %s no longer configured", key, hostlist_nth(hl, i));
	}
	hostlist_destroy(hl);
	if (r.users && users_parse(r.users, &r.uid, &r.nuid) < 0)
		log_error("reservation %s: unknown user in %s", key, r.users);
	if (nresvs == cap_resvs) {
		cap_resvs = cap_resvs ? 2 * cap_resvs : 8;
		resvs = xrealloc(resvs, cap_resvs * sizeof(*resvs));
	}
	resvs[nresvs++] = r;
}

static void load_seq(const char *key, const json_t *rec, void *arg)
{
	next_seq = (uint32_t)json_integer_value(json_object_get(rec, "next"));
	if (!next_seq)
		next_seq = 1;
}

void resv_setup(void)
{
	store_acct_load("resv_seq", load_seq, NULL);
	store_acct_load("resv", load_one, NULL);
	if (nresvs)
		log_info("%d reservations loaded", nresvs);
	if (!resv_timer.impl) {
		core_timer_init(&resv_timer, resv_tick);
		resv_timer.poll = true;
		core_timer_init(&edge_timer, resv_tick);
	}
	core_timer_start(&resv_timer, 1000, 1000);
}
