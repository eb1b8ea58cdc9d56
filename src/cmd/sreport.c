/* sreport: Slurm's reports of usage over a time window, from the job
 * records sacct reads (ACCT_JOBS): each job's allocated CPU-seconds clipped
 * to the window, so the figures add up to sacct's.  ACCT_REPORT supplies
 * what the records do not hold (the cluster's CPU count, the time its nodes
 * were down, whether PrivateData=usage keeps the caller to their own
 * usage); SHARE_INFO the account tree.  Reports: cluster utilization,
 * cluster AccountUtilizationByUser, user TopUsage, job SizesByAccount, with
 * -t (Seconds Minutes Hours Percent SecPer MinPer HourPer), -n, -p/-P and
 * start= end= users= accounts= clusters= format= tree TopCount= grouping=. */
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
#include "cmd/sreport_tree.h"
#include "common/msg.h"
#include "common/state.h"
#include "common/xmalloc.h"

/* ---- output ---- */

static bool sreport_time_fmt_per(enum time_fmt f)
{
	return f == TF_SECS_PER || f == TF_MINS_PER || f == TF_HOURS_PER;
}

enum parsable { PARSABLE_NO, PARSABLE_END, PARSABLE_NO_END };

struct col {
	const char *title;
	int width;
};

static enum parsable parsable;
static bool header = true;
static bool tres_named;   /* -T cpu: a "TRES Name" column, as Slurm adds */

static void put_cell(const char *v, int width, bool last)
{
	if (parsable != PARSABLE_NO) {
		fputs(v, stdout);
		if (!(last && parsable == PARSABLE_NO_END))
			putchar('|');
		return;
	}
	int w = abs(width);
	char buf[512];
	if ((int)strlen(v) > w && w > 1) {
		snprintf(buf, sizeof(buf), "%.*s", w, v);
		buf[w - 1] = '+';
		v = buf;
	}
	printf(width < 0 ? "%-*s " : "%*s ", w, v);
}

static void put_header(const struct col *cols, size_t n)
{
	if (!header)
		return;
	for (size_t i = 0; i < n; i++) {
		if (parsable != PARSABLE_NO) {
			put_cell(cols[i].title, 0, i + 1 == n);
			continue;
		}
		int w = abs(cols[i].width);
		printf(cols[i].width < 0 ? "%-*.*s " : "%*.*s ", w, w, cols[i].title);
	}
	putchar('\n');
	if (parsable != PARSABLE_NO)
		return;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < abs(cols[i].width); k++)
			putchar('-');
		putchar(' ');
	}
	putchar('\n');
}

static void put_banner(const char *title, time_t start, time_t end, const char *units_line)
{
	char a[32], b[32];
	struct tm tm;
	time_t last = end - 1;
	if (!header)
		return;
	strftime(a, sizeof(a), "%Y-%m-%dT%H:%M:%S", localtime_r(&start, &tm));
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", localtime_r(&last, &tm));
	printf("--------------------------------------------------------------------------------\n");
	printf("%s %s - %s (%lld secs)\n", title, a, b, (long long)(end - start));
	printf("%s\n", units_line);
	printf("--------------------------------------------------------------------------------\n");
}


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
	return until > o->start ? cmd_jint(d->facts, "cpus") * (long long)(until - o->start) : 0;
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
	*secs = sreport_job_cpu_secs(job, o->start, window_end(o), o->now);
	if (*secs <= 0)
		return false;
	if (o->users && !in_list(o->users, cmd_jstr(job, "user")))
		return false;
	return true;
}

/* ---- format=: the columns of the cluster and user reports ---- */

enum fk { FK_ACCOUNT, FK_ALLOC, FK_CLUSTER, FK_CPU_COUNT, FK_DOWN, FK_ENERGY, FK_IDLE, FK_LOGIN,
	  FK_OVER_COMM, FK_PLND_DOWN, FK_PROPER, FK_REPORTED, FK_RESERVED, FK_TRES_NAME, FK_USED };

struct field_def {
	const char *name;   /* what format= names, abbreviated to at least min letters */
	size_t min;
	const char *title;
	enum fk kind;
};

/* In Slurm's order of matching (the first a name abbreviates wins). */
static const struct field_def cluster_fields[] = {
	{ "Accounts", 2, "Account", FK_ACCOUNT }, { "Allocated", 2, "Allocated", FK_ALLOC },
	{ "Cluster", 2, "Cluster", FK_CLUSTER }, { "CPUCount", 2, "CPU count", FK_CPU_COUNT },
	{ "Down", 1, "Down", FK_DOWN }, { "Idle", 1, "Idle", FK_IDLE },
	{ "Login", 1, "Login", FK_LOGIN }, { "OverCommitted", 1, "Over Comm", FK_OVER_COMM },
	{ "PlannedDown", 2, "PLND Down", FK_PLND_DOWN }, { "Proper", 2, "Proper Name", FK_PROPER },
	{ "Reported", 3, "Reported", FK_REPORTED }, { "Reserved", 3, "Reserved", FK_RESERVED },
	{ "TresName", 5, "TRES Name", FK_TRES_NAME }, { "Used", 1, "Used", FK_USED },
	{ "Energy", 1, "Energy", FK_ENERGY }, { NULL, 0, NULL, 0 },
};
static const struct field_def user_fields[] = {
	{ "Accounts", 1, "Account", FK_ACCOUNT }, { "Cluster", 1, "Cluster", FK_CLUSTER },
	{ "Energy", 1, "Energy", FK_ENERGY }, { "Login", 1, "Login", FK_LOGIN },
	{ "Proper", 1, "Proper Name", FK_PROPER }, { "TresName", 5, "TRES Name", FK_TRES_NAME },
	{ "Used", 1, "Used", FK_USED }, { NULL, 0, NULL, 0 },
};

struct pick {
	const struct field_def *def;
	int width;   /* from "Name%N", 0: the column's own */
};

/* "Cluster,Used%12" into picks (at most max).  A name no field has is
 * reported as Slurm does (" Unknown field 'x'") and *bad set; the rest go on. */
static size_t pick_fields(const struct field_def *defs, const char *spec, struct pick *out,
			  size_t max, bool *bad)
{
	size_t n = 0, count;
	char **names = opt_split(spec, ',', &count);
	for (size_t i = 0; i < count && n < max; i++) {
		char *pct = strchr(names[i], '%');
		int width = 0;
		if (pct) {
			*pct = '\0';
			width = atoi(pct + 1);
		}
		size_t len = strlen(names[i]);
		const struct field_def *f;
		for (f = defs; f->name; f++)
			if (len >= f->min && len <= strlen(f->name) && !strncasecmp(f->name, names[i], len))
				break;
		if (!f->name) {
			fprintf(stderr, " Unknown field '%s'\n", names[i]);
			*bad = true;
			continue;
		}
		out[n++] = (struct pick){ f, width };
	}
	opt_strv_free(names);
	return n;
}

/* One row of a cluster or user report. */
struct rowv {
	const char *cluster, *account, *login, *proper;
	long long used, alloc, down, idle, reported, cpus;
};

static bool fk_is_time(enum fk k)
{
	switch (k) {
	case FK_ALLOC: case FK_DOWN: case FK_ENERGY: case FK_IDLE: case FK_OVER_COMM:
	case FK_PLND_DOWN: case FK_REPORTED: case FK_RESERVED: case FK_USED:
		return true;
	default:
		return false;
	}
}

/* A time figure of a row (what Herd does not keep, energy, planned down
 * time, reservations, over-commit, is 0). */
static long long fk_secs(enum fk k, const struct rowv *r)
{
	switch (k) {
	case FK_ALLOC: return r->alloc;
	case FK_DOWN: return r->down;
	case FK_IDLE: return r->idle;
	case FK_REPORTED: return r->reported;
	case FK_USED: return r->used;
	default: return 0;
	}
}

/* The picked columns of rows: header (unless -n), then a line each.
 * Time columns are as wide as their largest figure needs; percentages are
 * of total. */
static void print_rows(const struct pick *picks, size_t n, const struct rowv *rows, size_t nrows,
		       long long total, enum time_fmt tf, bool tree)
{
	struct col *cols = xmalloc((n + 1) * sizeof(*cols));
	for (size_t i = 0; i < n; i++) {
		enum fk k = picks[i].def->kind;
		int w;
		if (fk_is_time(k)) {
			long long max = 0;
			for (size_t r = 0; r < nrows; r++)
				if (fk_secs(k, &rows[r]) > max)
					max = fk_secs(k, &rows[r]);
			w = sreport_usage_width(max, tf);
		} else {
			w = k == FK_ACCOUNT ? (tree ? -20 : 15) : k == FK_PROPER ? 15
			    : k == FK_TRES_NAME ? 14 : 9;
		}
		cols[i] = (struct col){ picks[i].def->title, picks[i].width ? picks[i].width : w };
	}
	put_header(cols, n);
	for (size_t r = 0; r < nrows; r++) {
		char buf[64];
		for (size_t i = 0; i < n; i++) {
			enum fk k = picks[i].def->kind;
			const char *v = "";
			if (fk_is_time(k))
				v = sreport_time_value(fk_secs(k, &rows[r]), total, tf, buf, sizeof(buf));
			else if (k == FK_CLUSTER)
				v = rows[r].cluster;
			else if (k == FK_ACCOUNT)
				v = rows[r].account;
			else if (k == FK_LOGIN)
				v = rows[r].login;
			else if (k == FK_PROPER)
				v = rows[r].proper;
			else if (k == FK_TRES_NAME)
				v = "cpu";
			else if (k == FK_CPU_COUNT)
				snprintf(buf, sizeof(buf), "%lld", rows[r].cpus), v = buf;
			put_cell(v ? v : "", cols[i].width, i + 1 == n);
		}
		putchar('\n');
	}
	free(cols);
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
	long long alloc = 0, down = cmd_jint(d.facts, "down_cpu_secs");
	size_t i;
	json_t *job;
	json_array_foreach(json_object_get(d.jobs, "jobs"), i, job)
		alloc += sreport_job_cpu_secs(job, o->start, until, o->now);
	if (alloc > reported)
		alloc = reported;
	if (down > reported - alloc)
		down = reported - alloc;
	long long idle = reported - alloc - down;

	/* Slurm 22.05's columns ("Reserved": 23.02 calls it Planned) */
	struct pick picks[16];
	bool bad = false;
	size_t n = pick_fields(cluster_fields, o->format ? o->format
				: tres_named ? "Cluster,TresName,Allocated,Down,PlannedDown,Idle,Reserved,Reported"
				: "Cluster,Allocated,Down,PlannedDown,Idle,Reserved,Reported",
				picks, 16, &bad);
	struct rowv row = { .cluster = d.cluster, .account = "", .login = "", .proper = "",
			    .alloc = alloc, .down = down, .idle = idle, .reported = reported,
			    .cpus = cpus };
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, tres_named);
	put_banner("Cluster Utilization", o->start, o->end, units);
	print_rows(picks, n, &row, cluster_wanted(&d, o) ? 1 : 0, reported, o->tf, false);
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
	struct pick picks[16];
	bool bad = false;
	size_t npicks = pick_fields(cluster_fields, o->format ? o->format
				    : tres_named ? "Cluster,Accounts,Login,Proper,TresName,Used"
				    : "Cluster,Accounts,Login,Proper,Used,Energy", picks, 16, &bad);
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, tres_named);
	put_banner("Cluster/Account/User Utilization", o->start, o->end, units);
	size_t n, nrows = 0;
	int *order = sreport_tree_order(&t, &n);
	struct rowv *rows = xmalloc((n + 1) * sizeof(*rows));
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
		rows[nrows] = (struct rowv){
			.cluster = d.cluster, .account = accts[nrows], .login = v->user ? v->user : "",
			.proper = v->user ? proper_name(v->user, names[nrows], sizeof(names[nrows])) : "",
			.used = v->secs, .reported = reported };
		nrows++;
	}
	print_rows(picks, npicks, rows, nrows, reported, o->tf, o->tree);
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
	qsort(users, nusers, sizeof(*users), by_secs_desc);
	long long reported = reported_secs(&d, o);
	struct pick picks[16];
	bool bad = false;
	size_t npicks = pick_fields(user_fields, o->format ? o->format
				    : tres_named ? "Cluster,Login,Proper,Accounts,TresName,Used"
				    : "Cluster,Login,Proper,Accounts,Used,Energy", picks, 16, &bad);
	char title[64];
	snprintf(title, sizeof(title), "Top %ld Users", o->top_count);
	sreport_usage_line(units, sizeof(units), "Usage", o->tf, tres_named);
	put_banner(title, o->start, o->end, units);
	size_t nrows = 0;
	struct rowv *rows = xmalloc((nusers + 1) * sizeof(*rows));
	char (*names)[256] = xmalloc((nusers + 1) * sizeof(*names));
	char (*accts)[512] = xmalloc((nusers + 1) * sizeof(*accts));
	for (size_t k = 0; cluster_wanted(&d, o) && k < nusers && (long)k < o->top_count; k++) {
		accts[k][0] = '\0';
		for (size_t a = 0; a < users[k].naccounts; a++)
			snprintf(accts[k] + strlen(accts[k]), sizeof(accts[k]) - strlen(accts[k]),
				 "%s%s", a ? ", " : "", users[k].accounts[a]);
		rows[nrows++] = (struct rowv){
			.cluster = d.cluster, .account = accts[k], .login = users[k].user,
			.proper = proper_name(users[k].user, names[k], sizeof(names[k])),
			.used = users[k].secs, .reported = reported };
	}
	print_rows(picks, npicks, rows, nrows, reported, o->tf, false);
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

static int report_sizes_by_account(struct sreport_opts *o)
{
	struct data d = { 0 };
	struct sreport_tree t = { 0 };
	char units[128], buf[64], titles[17][48];
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
		int b = sreport_size_bucket(o->groups, o->ngroups, (long)cmd_jint(job, "num_cpus"));
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
	struct col cols[19];
	size_t ncols = 0;
	bool per = sreport_time_fmt_per(o->tf);
	cols[ncols++] = (struct col){ "Cluster", 9 };
	cols[ncols++] = (struct col){ "Account", 9 };
	for (size_t g = 0; g <= o->ngroups; g++) {
		if (g == 0)
			snprintf(titles[g], sizeof(titles[g]), "0-%ld CPUs", o->groups[0] - 1);
		else if (g < o->ngroups)
			snprintf(titles[g], sizeof(titles[g]), "%ld-%ld CPUs", o->groups[g - 1],
				 o->groups[g] - 1);
		else
			snprintf(titles[g], sizeof(titles[g]), ">= %ld CPUs", o->groups[g - 1]);
		cols[ncols++] = (struct col){ titles[g], per ? 20 : 13 };
	}
	cols[ncols++] = (struct col){ "% of cluster", 12 };
	sreport_usage_line(units, sizeof(units), "Time", o->tf, false);
	put_banner("Job Sizes", o->start, o->end, units);
	put_header(cols, ncols);
	for (size_t r = 0; cluster_wanted(&d, o) && r < nrows; r++) {
		const struct sreport_node *v = &t.v[rows[r]];
		put_cell(d.cluster, cols[0].width, false);
		put_cell(v->account, cols[1].width, false);
		for (size_t g = 0; g <= o->ngroups; g++)
			put_cell(sreport_time_value(v->bucket[g], total, o->tf, buf, sizeof(buf)),
				 cols[2 + g].width, false);
		snprintf(buf, sizeof(buf), "%.2f%%", total > 0 ? (double)v->secs * 100.0 / total : 0);
		put_cell(buf, cols[ncols - 1].width, true);
		putchar('\n');
	}
	free(rows);
	free(order);
	status = 0;
out:
	sreport_tree_free(&t);
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
	       "     cluster - AccountUtilizationByUser, Utilization\n"
	       "     job     - SizesByAccount\n"
	       "     user    - TopUsage\n"
	       "\n"
	       "  Options for all reports: Clusters=, End=, Start=, Format=\n"
	       "  cluster AccountUtilizationByUser: Accounts=, Tree, Users=\n"
	       "  user TopUsage: Accounts=, TopCount=, Users=\n"
	       "  job SizesByAccount: Accounts=, FlatView, Grouping=, Users=\n");
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
	struct sreport_opts o = { .tf = TF_MINS, .top_count = 10, .groups = { 50, 250, 500, 1000 },
				 .ngroups = 4 };
	char *cluster_opt = NULL;
	int c, status = 1;

	o.now = time(NULL);
	while ((c = getopt_long(argc, argv, "+aM:hnpPQT:t:vV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'Q': case 'v': case OPT_IGNORED: break;
		case 'T':
			/* the reports are of CPU time: Herd keeps no other TRES' time */
			if (strcasecmp(optarg, "cpu")) {
				fprintf(stderr, "sreport: error: Only the cpu TRES can be reported, not %s\n",
					optarg);
				return 1;
			}
			tres_named = true;
			break;
		case 'M': cluster_opt = optarg; break;
		case 'h': help(); return 0;
		case 'n': header = false; break;
		case 'p': parsable = PARSABLE_END; break;
		case 'P': parsable = PARSABLE_NO_END; break;
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
			header = false;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--parsable")) {
			parsable = PARSABLE_END;
		} else if (!strcmp(argv[i], "-P") || !strcmp(argv[i], "--parsable2")) {
			parsable = PARSABLE_NO_END;
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
		else {
			fprintf(stderr, "Not valid report %s\n"
				"Valid cluster reports are, \"AccountUtilizationByUser\", and "
				"\"Utilization\"\n", report);
		}
	} else if (sreport_word_is(entity, "user", 1)) {
		if (sreport_word_is(report, "TopUsage", 1))
			status = report_top_usage(&o);
		else
			fprintf(stderr, "Not valid report %s\nValid user reports are, \"TopUsage\"\n",
				report);
	} else if (sreport_word_is(entity, "job", 1)) {
		if (sreport_word_is(report, "SizesByAccount", 1))
			status = report_sizes_by_account(&o);
		else
			fprintf(stderr, "Not valid report %s\nValid job reports are, "
				"\"SizesByAccount\"\n", report);
	} else {
		fprintf(stderr, "invalid keyword: %s\n", entity);
	}
out:
	free(words);
	opt_strv_free(o.users);
	opt_strv_free(o.accounts);
	opt_strv_free(o.clusters);
	free(o.format);
	return status;
}
