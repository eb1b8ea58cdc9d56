/* sreport: Slurm's reports of usage over a time window, from the job
 * records sacct reads (ACCT_JOBS): each job's allocated CPU-seconds clipped
 * to the window, so the figures add up to sacct's.  ACCT_REPORT supplies
 * what the records do not hold (the cluster's CPU count, the time its nodes
 * were down, whether PrivateData=usage keeps the caller to their own
 * usage); SHARE_INFO the account tree.  Reports: cluster utilization,
 * cluster AccountUtilizationByUser, user TopUsage, job SizesByAccount, and
 * (by the jobs' wckeys) cluster WCKeyUtilizationByUser and job SizesByWckey, with
 * -t (Seconds Minutes Hours Percent SecPer MinPer HourPer), -n, -p/-P and
 * start= end= users= accounts= clusters= format= tree TopCount= grouping=.
 * This file asks and adds up; the layout is sreport_print.c's, the
 * arguments sreport_args.c's, the account tree sreport_tree.c's and the
 * arithmetic sreport_calc.c's. */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/sreport_args.h"
#include "cmd/sreport_calc.h"
#include "cmd/sreport_print.h"
#include "cmd/sreport_tree.h"
#include "common/msg.h"
#include "common/state.h"
#include "common/xmalloc.h"

/* ---- what the controller tells ---- */

static bool in_list(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcasecmp(v[i], s))
			return true;
	return false;
}

struct data {
	struct cmd_client client;
	json_t *facts;     /* ACCT_REPORT's reply */
	json_t *jobs;      /* ACCT_JOBS's reply */
	json_t *tree;      /* SHARE_INFO's reply, or NULL */
	const char *cluster;
	bool private;
	bool connected;    /* client initialised (data_free closes it) */
};

/* The window's end as far as it has happened: the reports count no
 * time after now. */
static time_t window_end(const struct sreport_opts *o)
{
	return o->end < o->now ? o->end : o->now;
}

/* CPU-seconds the cluster reported over the window (its CPUs times the
 * window so far): what percentages are of. */
static long long reported_secs(const struct data *d, const struct sreport_opts *o)
{
	time_t until = window_end(o);
	const char *what = o->tres == SREPORT_TRES_GPU ? "gpus" : "cpus";
	return until > o->start ? cmd_jint(d->facts, what) * (long long)(until - o->start) : 0;
}

static void data_free(struct data *d)
{
	json_decref(d->facts);
	json_decref(d->jobs);
	json_decref(d->tree);
	if (d->connected)
		cmd_client_fini(&d->client);
}

static int ask(struct data *d, int type, json_t *body, json_t **reply)
{
	struct herd_error err = { "" };
	int rc = cmd_call(&d->client, type, body, reply, &err);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "sreport: error: %s\n", err.text);
		return -1;
	}
	return 0;
}

/* Connect, then what the report needs: ACCT_REPORT's facts, the job
 * records (want_jobs), the association tree (want_tree).  -1 when
 * something failed (said on stderr). */
static int load(struct data *d, const char *report, struct sreport_opts *o, bool want_jobs,
		bool want_tree)
{
	struct herd_error err = { "" };
	if (cmd_client_init(&d->client, &err) < 0) {
		fprintf(stderr, "sreport: error: %s\n", err.text);
		return -1;
	}
	d->connected = true;
	json_t *body = json_pack("{s:s, s:I, s:I}", "report", report, "start_time",
				 (json_int_t)o->start, "end_time", (json_int_t)o->end);
	if (ask(d, MSG_ACCT_REPORT, body, &d->facts) < 0)
		return -1;
	d->cluster = cmd_jstr(d->facts, "cluster");
	d->private = cmd_jbool(d->facts, "private");
	if (cmd_jint(d->facts, "time"))
		o->now = cmd_jint(d->facts, "time");
	if (want_jobs) {
		body = json_pack("{s:I, s:I}", "start_time", (json_int_t)o->start, "end_time",
				 (json_int_t)window_end(o));
		/* PrivateData=usage: a plain user's own usage only */
		if (d->private)
			json_object_set_new(body, "uids", json_pack("[I]", (json_int_t)getuid()));
		if (ask(d, MSG_ACCT_JOBS, body, &d->jobs) < 0)
			return -1;
	}
	if (want_tree) {
		body = json_pack("{s:b, s:[]}", "all", 1, "users");
		if (ask(d, MSG_SHARE_INFO, body, &d->tree) < 0)
			return -1;
	}
	return 0;
}

/* Is the report's cluster asked for (clusters=)? */
static bool cluster_wanted(const struct data *d, const struct sreport_opts *o)
{
	return !o->clusters || in_list(o->clusters, d->cluster);
}

static const char *proper_name(const char *user, char *buf, size_t len)
{
	struct passwd *pw = getpwnam(user);
	buf[0] = '\0';
	if (pw && pw->pw_gecos) {
		snprintf(buf, len, "%s", pw->pw_gecos);
		char *comma = strchr(buf, ',');
		if (comma)
			*comma = '\0';
	}
	return buf;
}

/* A job's figures for the user/account reports (and whether it counts). */
static bool job_usage(const struct data *d, const struct sreport_opts *o, const json_t *job,
		      long long *secs)
{
	*secs = sreport_job_tres_secs(job, o->tres, o->start, window_end(o), o->now);
	if (*secs <= 0)
		return false;
	if (o->users && !in_list(o->users, cmd_jstr(job, "user")))
		return false;
	return true;
}

/* ---- cluster utilization ---- */

static int report_cluster_utilization(struct sreport_opts *o)
{
	struct data d = { 0 };
	char units[128];
	int status = 1;
	/* the whole cluster's allocation: every job, whoever asks (cluster
	 * figures are not a user's usage) */
	if (load(&d, "cluster_utilization", o, false, false) < 0)
		goto out;
	json_t *body = json_pack("{s:I, s:I}", "start_time", (json_int_t)o->start, "end_time",
				 (json_int_t)window_end(o));
	if (ask(&d, MSG_ACCT_JOBS, body, &d.jobs) < 0)
		goto out;
	time_t until = window_end(o);
	long long cpus = cmd_jint(d.facts, "cpus");
	long long reported = reported_secs(&d, o);
	/* a down node's GPUs are not counted (the node events keep CPUs) */
	long long alloc = 0, down = o->tres == SREPORT_TRES_GPU ? 0 : cmd_jint(d.facts, "down_cpu_secs");
	size_t i;
	json_t *job;
	json_array_foreach(json_object_get(d.jobs, "jobs"), i, job)
		alloc += sreport_job_tres_secs(job, o->tres, o->start, until, o->now);
	if (alloc > reported)
		alloc = reported;
	if (down > reported - alloc)
		down = reported - alloc;
	long long idle = reported - alloc - down;

	/* Slurm 22.05's columns ("Reserved": 23.02 calls it Planned) */
	struct sreport_pick picks[16];
	bool bad = false;
	size_t n = sreport_pick_fields(SREPORT_CLUSTER_FIELDS, o->format ? o->format
				: o->tres_named ? "Cluster,TresName,Allocated,Down,PlannedDown,Idle,Reserved,Reported"
				: "Cluster,Allocated,Down,PlannedDown,Idle,Reserved,Reported",
				picks, 16, &bad);
	struct sreport_row row = { .cluster = d.cluster, .account = "", .login = "", .proper = "",
			    .alloc = alloc, .down = down, .idle = idle, .reported = reported,
			    .cpus = cpus };
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, o->tres_named);
	sreport_put_banner(o, "Cluster Utilization", units);
	sreport_print_rows(o, picks, n, &row, cluster_wanted(&d, o) ? 1 : 0, reported, false);
	if (bad)
		goto out;
	status = 0;
out:
	data_free(&d);
	return status;
}

/* ---- cluster AccountUtilizationByUser (the account tree: sreport_tree.c) ---- */

static bool under_accounts(const struct sreport_tree *t, int k, char *const *accounts)
{
	for (; k >= 0; k = t->v[k].parent)
		if (!t->v[k].user && in_list(accounts, t->v[k].account))
			return true;
	return false;
}

static int report_account_by_user(struct sreport_opts *o)
{
	struct data d = { 0 };
	struct sreport_tree t = { 0 };
	char units[128];
	int status = 1;
	if (load(&d, "account_utilization_by_user", o, true, true) < 0)
		goto out;
	sreport_tree_build(&t, d.tree);
	size_t i;
	json_t *job;
	json_array_foreach(json_object_get(d.jobs, "jobs"), i, job) {
		long long secs;
		if (!job_usage(&d, o, job, &secs))
			continue;
		const char *account = cmd_jstr(job, "account");
		sreport_tree_charge(&t, *account ? account : "(null)", cmd_jstr(job, "user"), secs, -1);
	}
	/* percent of what the cluster reported over the window */
	long long reported = reported_secs(&d, o);
	struct sreport_pick picks[16];
	bool bad = false;
	size_t npicks = sreport_pick_fields(SREPORT_CLUSTER_FIELDS, o->format ? o->format
				    : o->tres_named ? "Cluster,Accounts,Login,Proper,TresName,Used"
				    : "Cluster,Accounts,Login,Proper,Used,Energy", picks, 16, &bad);
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, o->tres_named);
	sreport_put_banner(o, "Cluster/Account/User Utilization", units);
	size_t n, nrows = 0;
	int *order = sreport_tree_order(&t, &n);
	struct sreport_row *rows = xmalloc((n + 1) * sizeof(*rows));
	char (*names)[256] = xmalloc((n + 1) * sizeof(*names));
	char (*accts)[256] = xmalloc((n + 1) * sizeof(*accts));
	for (size_t r = 0; cluster_wanted(&d, o) && r < n; r++) {
		const struct sreport_node *v = &t.v[order[r]];
		if (v->secs <= 0)
			continue;   /* as Slurm: associations that used nothing are not listed */
		if (o->accounts && !under_accounts(&t, order[r], o->accounts))
			continue;
		if (o->users && !v->user)
			continue;   /* users=: the users' rows */
		snprintf(accts[nrows], sizeof(accts[nrows]), "%*s%s", o->tree ? v->depth : 0, "",
			 v->account);
		rows[nrows] = (struct sreport_row){
			.cluster = d.cluster, .account = accts[nrows], .login = v->user ? v->user : "",
			.proper = v->user ? proper_name(v->user, names[nrows], sizeof(names[nrows])) : "",
			.used = v->secs, .reported = reported };
		nrows++;
	}
	sreport_print_rows(o, picks, npicks, rows, nrows, reported, o->tree);
	free(rows);
	free(names);
	free(accts);
	if (bad) {
		free(order);
		goto out;
	}
	free(order);
	status = 0;
out:
	sreport_tree_free(&t);
	data_free(&d);
	return status;
}

/* ---- user TopUsage ---- */

struct top_user {
	char *user;
	char **accounts;
	size_t naccounts;
	long long secs;
};

static int by_secs_desc(const void *x, const void *y)
{
	const struct top_user *a = x, *b = y;
	if (a->secs != b->secs)
		return a->secs > b->secs ? -1 : 1;
	return strcmp(a->user, b->user);
}

static int report_top_usage(struct sreport_opts *o)
{
	struct data d = { 0 };
	char units[128];
	int status = 1;
	struct top_user *users = NULL;
	size_t nusers = 0;
	if (load(&d, "user_top_usage", o, true, false) < 0)
		goto out;
	size_t i;
	json_t *job;
	json_array_foreach(json_object_get(d.jobs, "jobs"), i, job) {
		long long secs;
		const char *account = cmd_jstr(job, "account"), *user = cmd_jstr(job, "user");
		if (!*account)
			account = "(null)";
		if (!job_usage(&d, o, job, &secs))
			continue;
		if (o->accounts && !in_list(o->accounts, account))
			continue;
		size_t k;
		for (k = 0; k < nusers && strcmp(users[k].user, user); k++)
			;
		if (k == nusers) {
			users = xrealloc(users, (nusers + 1) * sizeof(*users));
			users[nusers++] = (struct top_user){ xstrdup(user), NULL, 0, 0 };
		}
		users[k].secs += secs;
		if (!in_list(users[k].accounts, account))
			opt_strv_push(&users[k].accounts, &users[k].naccounts, xstrdup(account));
	}
	if (nusers)   /* qsort(NULL, 0) is undefined */
		qsort(users, nusers, sizeof(*users), by_secs_desc);
	long long reported = reported_secs(&d, o);
	struct sreport_pick picks[16];
	bool bad = false;
	size_t npicks = sreport_pick_fields(SREPORT_USER_FIELDS, o->format ? o->format
				    : o->tres_named ? "Cluster,Login,Proper,Accounts,TresName,Used"
				    : "Cluster,Login,Proper,Accounts,Used,Energy", picks, 16, &bad);
	char title[64];
	snprintf(title, sizeof(title), "Top %ld Users", o->top_count);
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, o->tres_named);
	sreport_put_banner(o, title, units);
	size_t nrows = 0;
	struct sreport_row *rows = xmalloc((nusers + 1) * sizeof(*rows));
	char (*names)[256] = xmalloc((nusers + 1) * sizeof(*names));
	char (*accts)[512] = xmalloc((nusers + 1) * sizeof(*accts));
	for (size_t k = 0; cluster_wanted(&d, o) && k < nusers && (long)k < o->top_count; k++) {
		accts[k][0] = '\0';
		for (size_t a = 0; a < users[k].naccounts; a++)
			snprintf(accts[k] + strlen(accts[k]), sizeof(accts[k]) - strlen(accts[k]),
				 "%s%s", a ? ", " : "", users[k].accounts[a]);
		rows[nrows++] = (struct sreport_row){
			.cluster = d.cluster, .account = accts[k], .login = users[k].user,
			.proper = proper_name(users[k].user, names[k], sizeof(names[k])),
			.used = users[k].secs, .reported = reported };
	}
	sreport_print_rows(o, picks, npicks, rows, nrows, reported, false);
	free(rows);
	free(names);
	free(accts);
	if (bad)
		goto out;
	status = 0;
out:
	for (size_t k = 0; k < nusers; k++) {
		free(users[k].user);
		opt_strv_free(users[k].accounts);
	}
	free(users);
	data_free(&d);
	return status;
}

/* ---- job SizesByAccount ---- */

static bool sreport_time_fmt_per(enum time_fmt f)
{
	return f == TF_SECS_PER || f == TF_MINS_PER || f == TF_HOURS_PER;
}

/* SizesByAccount's and SizesByWckey's table: a row per group (account or
 * wckey: what's account names), the time in each CPU-count column and the
 * group's share of all the jobs' time. */
static void print_sizes(const struct sreport_opts *o, const struct data *d, const char *what,
			const struct sreport_node *const *rows, size_t nrows, long long total)
{
	struct sreport_col cols[19];
	char units[128], buf[64], titles[17][48];
	size_t ncols = 0;
	bool per = sreport_time_fmt_per(o->tf);
	cols[ncols++] = (struct sreport_col){ "Cluster", 9 };
	cols[ncols++] = (struct sreport_col){ what, 9 };
	for (size_t g = 0; g <= o->ngroups; g++) {
		if (g == 0)
			snprintf(titles[g], sizeof(titles[g]), "0-%ld CPUs", o->groups[0] - 1);
		else if (g < o->ngroups)
			snprintf(titles[g], sizeof(titles[g]), "%ld-%ld CPUs", o->groups[g - 1],
				 o->groups[g] - 1);
		else
			snprintf(titles[g], sizeof(titles[g]), ">= %ld CPUs", o->groups[g - 1]);
		cols[ncols++] = (struct sreport_col){ titles[g], per ? 20 : 13 };
	}
	cols[ncols++] = (struct sreport_col){ "% of cluster", 12 };
	sreport_usage_line(units, sizeof(units), "Time", o->tf, false);
	sreport_put_banner(o, strcmp(what, "Wckey") ? "Job Sizes" : "Job Sizes by Wckey", units);
	sreport_put_header(o, cols, ncols);
	for (size_t r = 0; cluster_wanted(d, o) && r < nrows; r++) {
		const struct sreport_node *v = rows[r];
		sreport_put_cell(o, d->cluster, cols[0].width, false);
		sreport_put_cell(o, v->account, cols[1].width, false);
		for (size_t g = 0; g <= o->ngroups; g++)
			sreport_put_cell(o, sreport_time_value(v->bucket[g], total, o->tf, buf, sizeof(buf)),
				 cols[2 + g].width, false);
		snprintf(buf, sizeof(buf), "%.2f%%", total > 0 ? (double)v->secs * 100.0 / total : 0);
		sreport_put_cell(o, buf, cols[ncols - 1].width, true);
		putchar('\n');
	}
}

static int report_sizes_by_account(struct sreport_opts *o)
{
	struct data d = { 0 };
	struct sreport_tree t = { 0 };
	int status = 1;
	if (load(&d, "job_sizes_by_account", o, true, true) < 0)
		goto out;
	sreport_tree_build(&t, d.tree);
	size_t i;
	json_t *job;
	long long total = 0;
	json_array_foreach(json_object_get(d.jobs, "jobs"), i, job) {
		long long secs;
		if (!job_usage(&d, o, job, &secs))
			continue;
		const char *account = cmd_jstr(job, "account");
		int b = sreport_size_bucket(o->groups, o->ngroups, (long)sreport_job_count(job, o->tres));
		sreport_tree_charge(&t, *account ? account : "(null)", cmd_jstr(job, "user"), secs, b);
		total += secs;
	}
	/* Which accounts: accounts= as named; FlatView every account that
	 * ran jobs; else root's children (each with what ran under it). */
	size_t n;
	int *order = sreport_tree_order(&t, &n);
	int *rows = xmalloc((n + 1) * sizeof(int));
	size_t nrows = 0;
	for (size_t r = 0; r < n; r++) {
		const struct sreport_node *v = &t.v[order[r]];
		if (v->user)
			continue;
		bool take;
		if (o->accounts)
			take = in_list(o->accounts, v->account);
		else if (o->flat)
			take = v->secs > 0 && v->parent >= 0;
		else
			take = (v->parent >= 0 && t.v[v->parent].parent < 0) ||
			       (v->parent < 0 && strcmp(v->account, "root"));
		if (take)
			rows[nrows++] = order[r];
	}
	const struct sreport_node **shown = xmalloc((nrows + 1) * sizeof(*shown));
	for (size_t r = 0; r < nrows; r++)
		shown[r] = &t.v[rows[r]];
	print_sizes(o, &d, "Account", shown, nrows, total);
	free(shown);
	free(rows);
	free(order);
	status = 0;
out:
	sreport_tree_free(&t);
	data_free(&d);
	return status;
}

/* ---- the wckey reports (TrackWCKey) ---- */

/* The wckey a job's usage goes to: a default ("*k") counts as k, as
 * Slurm's rollups charge it to k's record; "" for none. */
static const char *job_wckey(const json_t *job)
{
	const char *w = cmd_jstr(job, "wckey");
	return *w == '*' ? w + 1 : w;
}

/* The group of (wckey, user) in t (user NULL: the wckey's own), made when
 * new. */
static struct sreport_node *wckey_group(struct sreport_tree *t, const char *wckey, const char *user)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].account, wckey) &&
		    (user ? t->v[i].user && !strcmp(t->v[i].user, user) : !t->v[i].user))
			return &t->v[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	struct sreport_node *v = &t->v[t->n++];
	*v = (struct sreport_node){ .account = xstrdup(wckey), .user = user ? xstrdup(user) : NULL,
				    .parent = -1 };
	return v;
}

/* By wckey, its own row before its users', users by name. */
static int by_wckey_user(const void *x, const void *y)
{
	const struct sreport_node *a = *(const struct sreport_node *const *)x,
				  *b = *(const struct sreport_node *const *)y;
	int c = strcmp(a->account, b->account);
	if (c || (!a->user && !b->user))
		return c;
	if (!a->user || !b->user)
		return a->user ? 1 : -1;
	return strcmp(a->user, b->user);
}

/* Every job's usage in the window under its wckey (and user): the rows to
 * show, sorted (caller frees), *n of them; *total all of it. */
static const struct sreport_node **wckey_usage(const struct data *d, const struct sreport_opts *o,
					       struct sreport_tree *t, bool per_user, size_t *n,
					       long long *total)
{
	size_t i;
	json_t *job;
	*total = 0;
	json_array_foreach(json_object_get(d->jobs, "jobs"), i, job) {
		long long secs;
		const char *wckey = job_wckey(job);
		if (!*wckey || !job_usage(d, o, job, &secs))
			continue;
		if (o->wckeys && !in_list(o->wckeys, wckey))
			continue;
		int b = sreport_size_bucket(o->groups, o->ngroups, (long)sreport_job_count(job, o->tres));
		struct sreport_node *g = wckey_group(t, wckey, NULL);
		g->secs += secs;
		g->bucket[b] += secs;
		if (per_user)
			wckey_group(t, wckey, cmd_jstr(job, "user"))->secs += secs;
		*total += secs;
	}
	const struct sreport_node **rows = xmalloc((t->n + 1) * sizeof(*rows));
	for (i = 0; i < t->n; i++)
		rows[i] = &t->v[i];
	if (t->n)
		qsort(rows, t->n, sizeof(*rows), by_wckey_user);
	*n = t->n;
	return rows;
}

static int report_wckey_by_user(struct sreport_opts *o)
{
	struct data d = { 0 };
	struct sreport_tree t = { 0 };
	char units[128];
	int status = 1;
	if (load(&d, "wckey_utilization_by_user", o, true, false) < 0)
		goto out;
	size_t n;
	long long total;
	const struct sreport_node **groups = wckey_usage(&d, o, &t, true, &n, &total);
	long long reported = reported_secs(&d, o);
	struct sreport_pick picks[16];
	bool bad = false;
	size_t npicks = sreport_pick_fields(SREPORT_CLUSTER_FIELDS, o->format ? o->format
				    : o->tres_named ? "Cluster,WCKey,Login,Proper,TresName,Used"
				    : "Cluster,WCKey,Login,Proper,Used", picks, 16, &bad);
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, o->tres_named);
	sreport_put_banner(o, "Cluster/WCKey/User Utilization", units);
	struct sreport_row *rows = xmalloc((n + 1) * sizeof(*rows));
	char (*names)[256] = xmalloc((n + 1) * sizeof(*names));
	size_t nrows = 0;
	for (size_t r = 0; cluster_wanted(&d, o) && r < n; r++) {
		const struct sreport_node *v = groups[r];
		if (o->users && !v->user)
			continue;   /* users=: the users' rows */
		rows[nrows] = (struct sreport_row){
			.cluster = d.cluster, .account = v->account, .login = v->user ? v->user : "",
			.proper = v->user ? proper_name(v->user, names[nrows], sizeof(names[nrows])) : "",
			.used = v->secs, .reported = reported };
		nrows++;
	}
	sreport_print_rows(o, picks, npicks, rows, nrows, reported, false);
	free(rows);
	free(names);
	free(groups);
	status = bad ? 1 : 0;
out:
	for (size_t i = 0; i < t.n; i++) {
		free(t.v[i].account);
		free(t.v[i].user);
	}
	free(t.v);
	data_free(&d);
	return status;
}

static int report_sizes_by_wckey(struct sreport_opts *o)
{
	struct data d = { 0 };
	struct sreport_tree t = { 0 };
	int status = 1;
	if (load(&d, "job_sizes_by_wckey", o, true, false) < 0)
		goto out;
	size_t n;
	long long total;
	const struct sreport_node **groups = wckey_usage(&d, o, &t, false, &n, &total);
	print_sizes(o, &d, "Wckey", groups, n, total);
	free(groups);
	status = 0;
out:
	for (size_t i = 0; i < t.n; i++) {
		free(t.v[i].account);
		free(t.v[i].user);
	}
	free(t.v);
	data_free(&d);
	return status;
}

/* ---- the command line ---- */

static void usage(FILE *out)
{
	fprintf(out, "Usage: sreport [options] [command] [command options]\n"
		     "  commands: cluster utilization|AccountUtilizationByUser,\n"
		     "            user TopUsage, job SizesByAccount\n"
		     "  Use --help for help\n");
}

static void help(void)
{
	printf("sreport [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -a or --all_clusters: Use all clusters instead of current\n"
	       "     -h or --help: equivalent to \"help\" command\n"
	       "     -n or --noheader: equivalent to \"noheader\" command\n"
	       "     -p or --parsable: output will be '|' delimited with a '|' at the end\n"
	       "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
	       "     -t <time_format>: Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
	       "     -V or --version: equivalent to \"version\" command\n"
	       "\n"
	       "  Valid <COMMAND> values are:\n"
	       "     cluster - AccountUtilizationByUser, Utilization, WCKeyUtilizationByUser\n"
	       "     job     - SizesByAccount, SizesByWckey\n"
	       "     user    - TopUsage\n"
	       "\n"
	       "  Options for all reports: Clusters=, End=, Start=, Format=\n"
	       "  cluster AccountUtilizationByUser: Accounts=, Tree, Users=\n"
	       "  user TopUsage: Accounts=, TopCount=, Users=\n"
	       "  job SizesByAccount: Accounts=, FlatView, Grouping=, Users=\n"
	       "  cluster WCKeyUtilizationByUser: Users=, WCKeys=\n"
	       "  job SizesByWckey: Grouping=, Users=, WCKeys=\n");
}

enum { OPT_HELP = 256, OPT_USAGE, OPT_IGNORED };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "all_clusters", no_argument, NULL, 'a' }, { "cluster", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' }, { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' }, { "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' }, { "tres", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' }, { "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, OPT_USAGE }, { "local", no_argument, NULL, OPT_IGNORED },
		{ "federation", no_argument, NULL, OPT_IGNORED }, { NULL, 0, NULL, 0 },
	};
	struct sreport_opts o = { .tf = TF_MINS, .header = true, .top_count = 10,
				  .groups = { 50, 250, 500, 1000 }, .ngroups = 4 };
	char *cluster_opt = NULL;
	int c, status = 1;

	o.now = time(NULL);
	while ((c = getopt_long(argc, argv, "+aM:hnpPQT:t:vV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'Q': case 'v': case OPT_IGNORED: break;
		case 'T':
			/* the reports are of CPU or GPU time: Herd keeps no other TRES' time */
			if (!strcasecmp(optarg, "cpu")) {
				o.tres = SREPORT_TRES_CPU;
			} else if (!strcasecmp(optarg, "gres/gpu")) {
				o.tres = SREPORT_TRES_GPU;
			} else {
				fprintf(stderr, "sreport: error: Only the cpu and gres/gpu TRES can be "
					"reported, not %s\n", optarg);
				return 1;
			}
			o.tres_named = true;
			break;
		case 'M': cluster_opt = optarg; break;
		case 'h': help(); return 0;
		case 'n': o.header = false; break;
		case 'p': o.parsable = SREPORT_PARSABLE_END; break;
		case 'P': o.parsable = SREPORT_PARSABLE_NO_END; break;
		case 't':
			if (sreport_time_fmt_parse(optarg, &o.tf) < 0) {
				fprintf(stderr, "unknown time format %s\n", optarg);
				return 1;
			}
			break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	/* The rest: ENTITY REPORT [args], where -t may also come (sreport
	 * takes its options anywhere). */
	char **words = xmalloc((argc + 1) * sizeof(char *));
	int nwords = 0;
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (sreport_time_fmt_parse(argv[++i], &o.tf) < 0) {
				fprintf(stderr, "unknown time format %s\n", argv[i]);
				goto out;
			}
		} else if (!strncmp(argv[i], "-t", 2) && argv[i][2]) {
			if (sreport_time_fmt_parse(argv[i] + 2, &o.tf) < 0) {
				fprintf(stderr, "unknown time format %s\n", argv[i] + 2);
				goto out;
			}
		} else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--noheader")) {
			o.header = false;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--parsable")) {
			o.parsable = SREPORT_PARSABLE_END;
		} else if (!strcmp(argv[i], "-P") || !strcmp(argv[i], "--parsable2")) {
			o.parsable = SREPORT_PARSABLE_NO_END;
		} else {
			words[nwords++] = argv[i];
		}
	}
	if (nwords < 2) {
		if (nwords == 1 && (sreport_word_is(words[0], "help", 1) ||
				    sreport_word_is(words[0], "version", 1))) {
			if (words[0][0] == 'v' || words[0][0] == 'V')
				printf("%s\n", CMD_VERSION);
			else
				help();
			status = 0;
			goto out;
		}
		usage(stderr);
		goto out;
	}
	if (cluster_opt)
		o.clusters = opt_split(cluster_opt, ',', NULL);
	if (sreport_args_parse(nwords - 2, words + 2, &o) < 0)
		goto out;
	sreport_window(o.start_given, o.start_in, o.end_given, o.end_in, o.now, &o.start, &o.end);
	const char *entity = words[0], *report = words[1];
	if (sreport_word_is(entity, "cluster", 2)) {
		if (sreport_word_is(report, "Utilization", 2))
			status = report_cluster_utilization(&o);
		else if (sreport_word_is(report, "AccountUtilizationByUser", 8) ||
			 !strcasecmp(report, "AccountUtilization"))
			status = report_account_by_user(&o);
		else if (sreport_word_is(report, "WCKeyUtilizationByUser", 2))
			status = report_wckey_by_user(&o);
		else {
			fprintf(stderr, "Not valid report %s\n"
				"Valid cluster reports are, \"AccountUtilizationByUser\", "
				"\"WCKeyUtilizationByUser\", and \"Utilization\"\n", report);
		}
	} else if (sreport_word_is(entity, "user", 1)) {
		if (sreport_word_is(report, "TopUsage", 1))
			status = report_top_usage(&o);
		else
			fprintf(stderr, "Not valid report %s\nValid user reports are, \"TopUsage\"\n",
				report);
	} else if (sreport_word_is(entity, "job", 1)) {
		if (sreport_word_is(report, "SizesByWckey", 8))
			status = report_sizes_by_wckey(&o);
		else if (sreport_word_is(report, "SizesByAccount", 1))
			status = report_sizes_by_account(&o);
		else
			fprintf(stderr, "Not valid report %s\nValid job reports are, "
				"\"SizesByAccount\", and \"SizesByWckey\"\n", report);
	} else {
		fprintf(stderr, "invalid keyword: %s\n", entity);
	}
out:
	free(words);
	opt_strv_free(o.users);
	opt_strv_free(o.accounts);
	opt_strv_free(o.wckeys);
	opt_strv_free(o.clusters);
	free(o.format);
	return status;
}
