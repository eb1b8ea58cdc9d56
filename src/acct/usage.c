/* Fair-share usage (doc/accounting.md "Usage, sshare, sreport"): what each
 * association has used, in billing-seconds, decayed with
 * PriorityDecayHalfLife; per TRES for GrpTRESMins; SHARE_INFO for sshare.
 * Running jobs are kept in a list of their own (usage_job_state, called on
 * every state change), so a tick costs what runs, not what waits.  Not
 * here: limits (limits.c), the associations themselves (assoc.c). */
#define _GNU_SOURCE   /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gres.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "acct/usage.h"

/* ---- the pure core (usage.h) ---- */

double usage_decay_factor(double seconds, double half_life)
{
	if (half_life <= 0 || seconds <= 0)
		return 1.0;
	return exp2(-seconds / half_life);
}

static int billing_tres_index(const char *name)
{
	for (int t = 0; t < TRES_COUNT; t++)
		if (!strcasecmp(name, tres_name(t)))
			return t;
	return -1;
}

int usage_billing(const char *weights, const int64_t tres[TRES_COUNT], bool max_tres,
		  double *billing, char *err, size_t errlen)
{
	if (!weights || !*weights) {
		*billing = tres[TRES_CPU] > 0 ? (double)tres[TRES_CPU] : 0;
		return 0;
	}
	char *copy = xstrdup(weights), *save = NULL;
	double sum = 0, max = 0;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "TRESBillingWeights: '%s' is not TRES=weight", item);
			goto error;
		}
		*eq = '\0';
		int t = billing_tres_index(item);
		if (t < 0 && !strncasecmp(item, "gres/", 5))
			continue;   /* a GRES Herd keeps no TRES of (gres/gpu:TYPE): weighs nothing */
		if (t < 0) {
			snprintf(err, errlen, "TRESBillingWeights: unknown TRES '%s'", item);
			goto error;
		}
		char *end;
		double w = strtod(eq + 1, &end), unit = 1;
		/* Mem=.25G: a weight per GB of the job's memory (counted in MB). */
		if (t == TRES_MEM && *end) {
			switch (*end) {
			case 'K': case 'k': unit = 1.0 / 1024; break;
			case 'M': case 'm': unit = 1; break;
			case 'G': case 'g': unit = 1024; break;
			case 'T': case 't': unit = 1024.0 * 1024; break;
			default: unit = 0; break;
			}
			end++;
		}
		if (end == eq + 1 || *end || unit == 0 || w < 0) {
			snprintf(err, errlen, "TRESBillingWeights: bad weight '%s' for %s", eq + 1, item);
			goto error;
		}
		double v = tres[t] > 0 ? (double)tres[t] * w / unit : 0;
		sum += v;
		if (v > max)
			max = v;
	}
	free(copy);
	*billing = max_tres ? max : sum;
	return 0;
error:
	free(copy);
	return -1;
}

time_t usage_reset_start(const char *period, time_t now)
{
	struct tm tm;
	if (!period)
		return 0;
	localtime_r(&now, &tm);
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	if (!strcasecmp(period, "DAILY")) {
	} else if (!strcasecmp(period, "WEEKLY")) {
		tm.tm_mday -= (tm.tm_wday + 6) % 7;    /* back to Monday */
	} else if (!strcasecmp(period, "MONTHLY")) {
		tm.tm_mday = 1;
	} else if (!strcasecmp(period, "QUARTERLY")) {
		tm.tm_mday = 1;
		tm.tm_mon -= tm.tm_mon % 3;
	} else if (!strcasecmp(period, "YEARLY")) {
		tm.tm_mday = 1;
		tm.tm_mon = 0;
	} else {
		return 0;
	}
	return mktime(&tm);
}

/* Children of row p, in row order. */
struct share_tree {
	int *first, *next;   /* first child of a row, next sibling */
};

static double level_fraction(const struct usage_share *rows, const struct share_tree *tr, int i)
{
	int p = rows[i].parent;
	double level = 0;
	if (p < 0)
		return 1.0;
	for (int c = tr->first[p]; c >= 0; c = tr->next[c])
		if (rows[c].shares != SHARES_PARENT)
			level += rows[c].shares;
	if (rows[i].shares == SHARES_PARENT || level <= 0)
		return 0;
	return rows[i].shares / level;
}

static int cmp_level_fs_desc(const struct usage_share *rows, int a, int b)
{
	double x = rows[a].level_fs, y = rows[b].level_fs;
	if (x == y) {
		/* users before accounts among equals; then the order given */
		bool ua = rows[a].user != NULL, ub = rows[b].user != NULL;
		if (ua != ub)
			return ua ? -1 : 1;
		return (a > b) - (a < b);
	}
	return x > y ? -1 : 1;
}

static void sort_by_level_fs(const struct usage_share *rows, int *v, size_t n)
{
	/* insertion sort: a level has few children, and it keeps ties stable */
	for (size_t i = 1; i < n; i++) {
		int x = v[i];
		size_t j = i;
		while (j > 0 && cmp_level_fs_desc(rows, v[j - 1], x) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* Fair tree ranks (fair_tree.html): depth first through the tree, siblings
 * in LevelFS order, each user gets rank / users, counted down from the top.
 * A sibling whose LevelFS equals the one before it is tied with it, and so
 * is the first child of a tied account: a tied user keeps the rank of the
 * user before it instead of the next one down.  (Checked against Slurm
 * 22.05: with nothing used, every user at every depth has FairShare 1.0.)
 * *rank: the last rank given; *left: users not yet ranked. */
static void fair_tree_rank(struct usage_share *rows, const struct share_tree *tr, int parent,
			   bool parent_tied, size_t nusers, size_t *rank, size_t *left)
{
	size_t n = 0, cap = 8;
	int *kids = xmalloc(cap * sizeof(*kids));
	for (int c = tr->first[parent]; c >= 0; c = tr->next[c]) {
		if (n == cap)
			kids = xrealloc(kids, (cap *= 2) * sizeof(*kids));
		kids[n++] = c;
	}
	sort_by_level_fs(rows, kids, n);
	for (size_t i = 0; i < n; i++) {
		struct usage_share *r = &rows[kids[i]];
		bool tied = i ? rows[kids[i - 1]].level_fs == r->level_fs : parent_tied;
		if (r->user) {
			if (!tied)
				*rank = *left;
			r->fairshare = nusers ? (double)*rank / nusers : 0;
			(*left)--;
		} else {
			fair_tree_rank(rows, tr, kids[i], tied, nusers, rank, left);
		}
	}
	free(kids);
}

void usage_shares_compute(struct usage_share *rows, size_t n, bool fair_tree)
{
	struct share_tree tr = { xmalloc((n + 1) * sizeof(int)), xmalloc((n + 1) * sizeof(int)) };
	int *last = xmalloc((n + 1) * sizeof(int)), *order = xmalloc((n + 1) * sizeof(int));
	int root = -1;
	size_t nusers = 0, head = 0, tail = 0;

	for (size_t i = 0; i < n; i++) {
		tr.first[i] = tr.next[i] = last[i] = -1;
		rows[i].norm_shares = rows[i].norm_usage = rows[i].eff_usage = 0;
		rows[i].fairshare = rows[i].level_fs = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int p = rows[i].parent;
		if (p < 0 || (size_t)p >= n) {
			rows[i].parent = -1;
			if (root < 0)
				root = (int)i;
			continue;
		}
		if (last[p] < 0)
			tr.first[p] = (int)i;
		else
			tr.next[last[p]] = (int)i;
		last[p] = (int)i;
		if (rows[i].user)
			nusers++;
	}
	if (root < 0)
		goto out;
	double total = rows[root].raw_usage;
	/* Breadth first from root: a parent's figures before its children's.
	 * Classic needs the parent's product of shares, kept in last[]'s
	 * place as a double array would be; norm_shares holds it (root's is
	 * set to 0 for display at the end). */
	rows[root].norm_shares = 1.0;
	rows[root].eff_usage = 1.0;
	rows[root].norm_usage = 1.0;
	order[tail++] = root;
	while (head < tail) {
		int p = order[head++];
		for (int c = tr.first[p]; c >= 0; c = tr.next[c]) {
			struct usage_share *r = &rows[c], *pr = &rows[p];
			double s = level_fraction(rows, &tr, c);
			bool use_parent = r->shares == SHARES_PARENT;
			r->norm_usage = total > 0 ? r->raw_usage / total : 0;
			if (fair_tree) {
				r->norm_shares = use_parent ? (p == root ? 1.0 : pr->norm_shares) : s;
				r->eff_usage = pr->raw_usage > 0 ? r->raw_usage / pr->raw_usage : 0;
				if (use_parent && p != root)
					r->level_fs = pr->level_fs;
				else if (r->norm_shares <= 0)
					r->level_fs = 0;
				else
					r->level_fs = r->eff_usage > 0 ? r->norm_shares / r->eff_usage
								       : INFINITY;
			} else if (use_parent) {
				/* Fairshare=parent: the parent's figures */
				r->norm_shares = pr->norm_shares;
				r->eff_usage = p == root ? r->norm_usage : pr->eff_usage;
			} else {
				r->norm_shares = pr->norm_shares * s;
				/* priority_multifactor: UE = UA + (UE_parent - UA) * S_child /
				 * S_all_siblings; under root, UE is UA itself. */
				r->eff_usage = p == root ? r->norm_usage
							 : r->norm_usage + (pr->eff_usage - r->norm_usage) * s;
			}
			if (!fair_tree)
				r->fairshare = r->norm_shares > 0 ? exp2(-r->eff_usage / r->norm_shares) : 0;
			order[tail++] = c;
		}
	}
	if (fair_tree) {
		size_t rank = nusers, left = nusers;
		fair_tree_rank(rows, &tr, root, false, nusers, &rank, &left);
	}
	rows[root].norm_shares = 0;
	rows[root].fairshare = 0;
	rows[root].level_fs = 0;
out:
	free(tr.first);
	free(tr.next);
	free(last);
	free(order);
}

/* ---- the controller's side ---- */

/* A job that holds an allocation (RUNNING or COMPLETING), with what it is
 * charged per second; charged up to `last`. */
struct usage_run {
	uint32_t job_id, assoc_id;
	time_t last;
	time_t start, limit_end;     /* limit_end 0: no time limit */
	int64_t tres[TRES_COUNT];
	double billing, factor;
};

static struct {
	double half_life;            /* seconds, 0 = no decay */
	bool fair_tree;
	char *reset_period;
	bool gpu_tres;               /* AccountingStorageTRES has gres/gpu */
	struct usage_run *run;
	size_t nrun, run_cap;
	time_t last_tick, last_save, last_reset;
} usage;

#define USAGE_SAVE_SECS 30

static void usage_settings(void)
{
	const struct conf *conf = core.conf;
	int64_t hl = conf_get_time(conf, "PriorityDecayHalfLife", 7 * 86400);
	const char *flags = conf_get(conf, "PriorityFlags");
	const char *storage_tres = conf_get(conf, "AccountingStorageTRES");
	usage.half_life = hl > 0 ? (double)hl : 0;
	/* Slurm 22.05 computes fair tree unless NO_FAIR_TREE is set. */
	usage.fair_tree = !(flags && strcasestr(flags, "NO_FAIR_TREE"));
	free(usage.reset_period);
	usage.reset_period = xstrdup(conf_get(conf, "PriorityUsageResetPeriod"));
	usage.gpu_tres = gres_tres_tracked(storage_tres, "gres/gpu");
}

static struct assoc *job_assoc(const struct job *job)
{
	const char *account = job->account && *job->account ? job->account
							  : acct_default_account(job->user);
	if (!account || !job->user)
		return NULL;
	return assoc_find(account, job->user, job->part ? job->part->name : NULL);
}

static struct usage_run *run_find(uint32_t job_id, size_t *idx)
{
	for (size_t i = 0; i < usage.nrun; i++)
		if (usage.run[i].job_id == job_id) {
			if (idx)
				*idx = i;
			return &usage.run[i];
		}
	return NULL;
}

double usage_job_tres(const struct job *job, int64_t tres[TRES_COUNT])
{
	char err[160];
	const struct conf *conf = core.conf;
	const char *flags = conf ? conf_get(conf, "PriorityFlags") : NULL;
	const char *weights = job->part && job->part->conf ? job->part->conf->tres_billing_weights
							   : NULL;
	double billing;

	memset(tres, 0, TRES_COUNT * sizeof(*tres));
	for (int i = 0; i < job->nalloc; i++) {
		tres[TRES_CPU] += job->alloc_cpus[i];
		tres[TRES_MEM] += (int64_t)job_node_mem(job, i);
	}
	tres[TRES_NODE] = job->nalloc;
	tres[TRES_GPU] = job->nalloc ? job_gres_count(job, "gpu") : 0;
	if (usage_billing(weights, tres, flags && strcasestr(flags, "MAX_TRES"), &billing, err,
			  sizeof(err)) < 0) {
		log_error("job %u: %s; billing its CPUs", job->id, err);
		billing = (double)tres[TRES_CPU];
	}
	tres[TRES_BILLING] = (int64_t)ceil(billing);
	return billing;
}

static void run_add(const struct job *job, time_t since)
{
	if (run_find(job->id, NULL))
		return;
	if (usage.nrun == usage.run_cap) {
		usage.run_cap = usage.run_cap ? 2 * usage.run_cap : 64;
		usage.run = xrealloc(usage.run, usage.run_cap * sizeof(*usage.run));
	}
	struct usage_run *r = &usage.run[usage.nrun++];
	memset(r, 0, sizeof(*r));
	r->job_id = job->id;
	r->last = since;
	r->start = job->start_time;
	r->limit_end = job->time_limit > 0 ? job->start_time + job->time_limit : 0;
	r->billing = usage_job_tres(job, r->tres);
	const struct acct_qos *qos = acct_qos_find(job->qos && *job->qos ? job->qos : "normal");
	r->factor = qos ? qos->usage_factor : 1.0;
	struct assoc *a = job_assoc(job);
	r->assoc_id = a ? a->id : 0;
}

/* Add what r used from r->last to until along its association and every
 * account above it. */
static void run_charge(struct usage_run *r, time_t until)
{
	if (until <= r->last)
		return;
	double secs = (double)(until - r->last) * r->factor;
	r->last = until;
	struct assoc *a = r->assoc_id ? assoc_by_id(r->assoc_id) : NULL;
	for (; a; a = a->parent) {
		a->raw_usage += r->billing * secs;
		for (int t = 0; t < TRES_COUNT; t++)
			if (t == TRES_BILLING)
				a->tres_usage[t] += r->billing * secs;
			else
				a->tres_usage[t] += (double)r->tres[t] * secs;
	}
}

static bool holds_allocation(enum job_state s)
{
	return s == JOB_RUNNING || s == JOB_COMPLETING;
}

void usage_job_state(struct job *job, enum job_state old)
{
	bool was = holds_allocation(old), is = holds_allocation(job->state);
	size_t idx;
	if (is && !was) {
		/* from its start, as sacct counts it; a resumed job from now */
		time_t now = core_now();
		bool fresh = old != JOB_SUSPENDED && job->start_time && job->start_time <= now;
		run_add(job, fresh ? job->start_time : now);
	} else if (was && !is) {
		struct usage_run *r = run_find(job->id, &idx);
		if (!r)
			return;
		run_charge(r, job_state_is_final(job->state) && job->end_time ? job->end_time
									  : core_now());
		usage.run[idx] = usage.run[--usage.nrun];
	}
}

static void decay_one(struct assoc *a, void *arg)
{
	time_t now = *(time_t *)arg;
	if (!a->usage_time || a->usage_time > now) {
		a->usage_time = now;
		return;
	}
	double f = usage_decay_factor((double)(now - a->usage_time), usage.half_life);
	a->usage_time = now;
	if (f == 1.0)
		return;
	a->raw_usage *= f;
	for (int t = 0; t < TRES_COUNT; t++)
		a->tres_usage[t] *= f;
}

static void reset_one(struct assoc *a, void *arg)
{
	a->raw_usage = 0;
	for (int t = 0; t < TRES_COUNT; t++)
		a->tres_usage[t] = 0;
}

static void save_one(struct assoc *a, void *arg)
{
	char key[16];
	if (a->deleted)
		return;
	json_t *tres = json_object();
	for (int t = 0; t < TRES_COUNT; t++)
		if (a->tres_usage[t] > 0)
			json_object_set_new(tres, tres_name(t), json_real(a->tres_usage[t]));
	snprintf(key, sizeof(key), "%u", a->id);
	store_acct_put("usage", key, json_pack("{s:f, s:o, s:I}", "raw_usage", a->raw_usage,
					       "tres_usage", tres, "time", (json_int_t)a->usage_time));
}

static void save_reset(void)
{
	store_acct_put("usage", "reset", json_pack("{s:I}", "time", (json_int_t)usage.last_reset));
}

void usage_save(time_t now)
{
	for (size_t i = 0; i < usage.nrun; i++)
		run_charge(&usage.run[i], now);
	assoc_foreach(decay_one, &now);
	assoc_foreach(save_one, NULL);
	usage.last_save = now;
}

/* PriorityUsageResetPeriod: once a new period has begun, usage starts again. */
static void check_reset(time_t now)
{
	time_t start = usage_reset_start(usage.reset_period, now);
	if (!start || usage.last_reset >= start)
		return;
	if (usage.last_reset) {   /* a first start just notes the period */
		log_info("PriorityUsageResetPeriod=%s: usage reset", usage.reset_period);
		assoc_foreach(reset_one, NULL);
	}
	usage.last_reset = now;
	save_reset();
}

void usage_tick(time_t now)
{
	usage_settings();   /* a reconfigure may have changed them (a few lookups) */
	for (size_t i = 0; i < usage.nrun; i++)
		run_charge(&usage.run[i], now);
	assoc_foreach(decay_one, &now);
	check_reset(now);
	usage.last_tick = now;
	if (now - usage.last_save >= USAGE_SAVE_SECS) {
		assoc_foreach(save_one, NULL);
		usage.last_save = now;
	}
}

static void load_one(const char *key, const json_t *rec, void *arg)
{
	if (!strcmp(key, "reset")) {
		usage.last_reset = json_integer_value(json_object_get(rec, "time"));
		return;
	}
	char *end;
	unsigned long id = strtoul(key, &end, 10);
	struct assoc *a = *end ? NULL : assoc_by_id((uint32_t)id);
	if (!a)
		return;
	a->raw_usage = json_number_value(json_object_get(rec, "raw_usage"));
	a->usage_time = json_integer_value(json_object_get(rec, "time"));
	json_t *tres = json_object_get(rec, "tres_usage");
	for (int t = 0; t < TRES_COUNT; t++)
		a->tres_usage[t] = json_number_value(json_object_get(tres, tres_name(t)));
	if (a->usage_time > usage.last_save)
		usage.last_save = a->usage_time;
}

static void restore_running(struct job *job, void *arg)
{
	/* Charged from the last save: the time the controller was away, the
	 * job ran on (the first tick adds it). */
	if (!holds_allocation(job->state))
		return;
	time_t since = *(time_t *)arg;
	run_add(job, since > job->start_time ? since : job->start_time);
}

void usage_setup(void)
{
	time_t now = core_now();
	usage_settings();
	store_acct_load("usage", load_one, NULL);
	time_t since = usage.last_save ? usage.last_save : now;
	job_foreach(restore_running, &since);
	if (usage.reset_period && !strcasecmp(usage.reset_period, "NOW")) {
		log_info("PriorityUsageResetPeriod=NOW: usage reset");
		assoc_foreach(reset_one, NULL);
		usage.last_reset = now;
		save_reset();
	}
	usage.last_save = now;   /* the first save comes USAGE_SAVE_SECS on */
	usage.last_tick = now;
}

/* ---- SHARE_INFO ---- */

struct share_build {
	struct assoc **assocs;
	size_t n, cap;
	uint32_t max_id;
};

static void collect(struct assoc *a, void *arg)
{
	struct share_build *b = arg;
	if (a->deleted || (a->cluster && core.cluster && strcmp(a->cluster, core.cluster)))
		return;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->assocs = xrealloc(b->assocs, b->cap * sizeof(*b->assocs));
	}
	b->assocs[b->n++] = a;
	if (a->id > b->max_id)
		b->max_id = a->id;
}

static struct assoc **sort_assocs;   /* what by_name's indexes index (qsort has no argument) */
static int by_name(const void *x, const void *y)
{
	const struct assoc *a = sort_assocs[*(const int *)x], *b = sort_assocs[*(const int *)y];
	/* users before sub-accounts, then by name, then partition */
	if (!a->user != !b->user)
		return a->user ? -1 : 1;
	int c = a->user ? strcmp(a->user, b->user) : strcmp(a->account, b->account);
	if (c)
		return c;
	return strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
}

static bool in_names(const json_t *list, const char *name)
{
	size_t i;
	json_t *v;
	if (!name)
		return false;
	json_array_foreach(list, i, v)
		if (!strcasecmp(json_string_value(v), name))
			return true;
	return false;
}

static char *tres_minutes_string(const double *secs)
{
	struct strbuf sb = { 0 };
	char item[96];
	for (int t = 0; t < TRES_COUNT; t++) {
		if (t == TRES_GPU && !usage.gpu_tres)
			continue;
		snprintf(item, sizeof(item), "%s%s=%lld", sb.len ? "," : "", tres_name(t),
			 (long long)(secs[t] / 60));
		strbuf_adds(&sb, item);
	}
	return sb.s ? sb.s : xstrdup("");
}

/* The associations of the cluster in sshare's order: depth first from
 * root, under each account its users, then its sub-accounts, by name.
 * rows[] get their parent indexes; *ids maps an association ID to its row
 * (-1 none), for b->max_id + 1 IDs. */
static struct assoc **share_order(struct share_build *b, struct usage_share *rows, int **ids)
{
	size_t n = b->n, norder = 0;
	int *map = xmalloc((b->max_id + 2) * sizeof(int));
	int *sorted = xmalloc((n + 1) * sizeof(*sorted));
	struct assoc **out = xmalloc((n + 1) * sizeof(*out));
	size_t *first = xmalloc((n + 1) * sizeof(size_t)), *count = xmalloc((n + 1) * sizeof(size_t));
	int *stack = xmalloc((n + 1) * sizeof(int));
	size_t nstack = 0;

	/* children grouped by parent: sort a copy by (parent's index, name) */
	for (uint32_t i = 0; i <= b->max_id; i++)
		map[i] = -1;
	for (size_t i = 0; i < n; i++)
		map[b->assocs[i]->id] = (int)i;
	for (size_t i = 0; i < n; i++)
		count[i] = 0;
	for (size_t i = 0; i < n; i++) {
		struct assoc *p = b->assocs[i]->parent;
		if (p && p->id <= b->max_id && map[p->id] >= 0)
			count[map[p->id]]++;
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		first[i] = at;
		at += count[i];
		count[i] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct assoc *p = b->assocs[i]->parent;
		if (p && p->id <= b->max_id && map[p->id] >= 0) {
			size_t k = map[p->id];
			sorted[first[k] + count[k]++] = (int)i;
		} else {
			stack[nstack++] = (int)i;   /* a root */
		}
	}
	sort_assocs = b->assocs;
	for (size_t i = 0; i < n; i++)
		qsort(sorted + first[i], count[i], sizeof(*sorted), by_name);
	for (uint32_t i = 0; i <= b->max_id; i++)
		map[i] = -1;   /* now: ID -> row */
	while (nstack) {
		int i = stack[--nstack];
		struct assoc *a = b->assocs[i];
		if (map[a->id] >= 0)
			continue;
		map[a->id] = (int)norder;
		struct assoc *p = a->parent;
		rows[norder] = (struct usage_share){
			.account = a->account, .user = a->user,
			.parent = p && p->id <= b->max_id ? map[p->id] : -1,
			.shares = a->shares, .raw_usage = a->raw_usage };
		out[norder++] = a;
		for (size_t k = count[i]; k-- > 0;)   /* reversed: the first comes off first */
			stack[nstack++] = sorted[first[i] + k];
	}
	b->n = norder;   /* a cycle or an orphan is left out */
	free(sorted);
	free(first);
	free(count);
	free(stack);
	*ids = map;
	return out;
}

/* Every association's share row as of now: the running jobs charged, the
 * usage decayed, the rows in sshare's order (b, *order, *ids as
 * share_order gives them) and their figures computed.  Caller frees. */
static struct usage_share *shares_now(time_t now, struct share_build *b, struct assoc ***order,
				      int **ids)
{
	for (size_t i = 0; i < usage.nrun; i++)
		run_charge(&usage.run[i], now);
	assoc_foreach(decay_one, &now);
	assoc_foreach(collect, b);
	struct usage_share *rows = xmalloc((b->n + 1) * sizeof(*rows));
	*order = share_order(b, rows, ids);
	usage_shares_compute(rows, b->n, usage.fair_tree);
	return rows;
}

json_t *usage_share_info(const json_t *body, uid_t uid)
{
	const json_t *accounts = json_object_get(body, "accounts");
	const json_t *users = json_object_get(body, "users");
	bool all = json_is_true(json_object_get(body, "all"));
	time_t now = core_now();
	usage_settings();   /* a reconfigure since the last tick (AccountingStorageTRES) */
	struct share_build b = { 0 };
	struct assoc **order;
	int *ids;
	struct usage_share *rows = shares_now(now, &b, &order, &ids);
	size_t n = b.n;

	/* TRESRunMins: the TRES-minutes running jobs have left, on their
	 * association and every one above it. */
	double (*run_mins)[TRES_COUNT] = xmalloc((n + 1) * sizeof(*run_mins));
	for (size_t i = 0; i < usage.nrun; i++) {
		const struct usage_run *u = &usage.run[i];
		if (!u->limit_end || u->limit_end <= now)
			continue;
		double left = (double)(u->limit_end - now);
		for (struct assoc *a = u->assoc_id ? assoc_by_id(u->assoc_id) : NULL; a; a = a->parent) {
			int r = a->id <= b.max_id ? ids[a->id] : -1;
			if (r < 0)
				continue;
			for (int t = 0; t < TRES_COUNT; t++)
				run_mins[r][t] += (t == TRES_BILLING ? u->billing : (double)u->tres[t]) * left;
		}
	}

	/* Who sees what: PrivateData=usage keeps a plain user to their own
	 * rows and the accounts above them (and what they coordinate). */
	bool private = accounting.private_usage && !acct_is_operator(uid);
	const char *me = names_user(uid);
	bool *visible = xmalloc((n + 1) * sizeof(bool));
	for (size_t r = 0; r < n; r++) {
		if (!private || acct_is_coord(uid, rows[r].account))
			visible[r] = true;
		if (rows[r].user && !strcmp(rows[r].user, me))
			for (int p = (int)r; p >= 0; p = rows[p].parent)
				visible[p] = true;
	}
	/* Which rows: -A's accounts (their own rows and their users'), every
	 * account row, and the users asked for (every one with -a). */
	bool *shown = xmalloc((n + 1) * sizeof(bool));
	for (size_t r = 0; r < n; r++) {
		bool keep = visible[r];
		if (keep && json_array_size(accounts))
			keep = in_names(accounts, rows[r].account);
		if (keep && rows[r].user && !all && users)
			keep = in_names(users, rows[r].user);
		shown[r] = keep;
	}
	json_t *out = json_array();
	int *depth = xmalloc((n + 1) * sizeof(int));
	for (size_t r = 0; r < n; r++) {
		/* indented under the nearest shown ancestor, as sshare -A */
		depth[r] = 0;
		for (int p = rows[r].parent; p >= 0; p = rows[p].parent)
			if (shown[p]) {
				depth[r] = depth[p] + 1;
				break;
			}
		if (!shown[r])
			continue;
		const struct assoc *a = order[r];
		char *grp = tres_string(a->lim.grp_tres_mins);
		char *runs = tres_minutes_string(run_mins[r]);
		char *raw = tres_minutes_string(a->tres_usage);   /* GrpTRESRaw: decayed TRES-minutes */
		json_t *o = json_pack("{s:I, s:s, s:s?, s:s?, s:i, s:f, s:f, s:f, s:f, s:f, s:s, s:s,"
				      " s:s, s:b}",
				      "id", (json_int_t)a->id, "account", a->account, "user", a->user,
				      "partition", a->partition, "depth", depth[r],
				      "norm_shares", rows[r].norm_shares, "raw_usage", rows[r].raw_usage,
				      "norm_usage", rows[r].norm_usage, "eff_usage", rows[r].eff_usage,
				      "fairshare", rows[r].fairshare, "grp_tres_mins", grp ? grp : "",
				      "tres_run_mins", runs, "grp_tres_raw", raw, "root", rows[r].parent < 0);
		if (a->shares == SHARES_PARENT)
			json_object_set_new(o, "shares", json_string("parent"));
		else
			json_object_set_new(o, "shares", json_integer(a->shares));
		/* JSON has no infinity: null is "inf" */
		json_object_set_new(o, "level_fs", isinf(rows[r].level_fs) ? json_null()
								    : json_real(rows[r].level_fs));
		json_array_append_new(out, o);
		free(grp);
		free(runs);
		free(raw);
	}
	json_t *info = json_pack("{s:o, s:b, s:s, s:I}", "shares", out, "fair_tree", usage.fair_tree,
				 "cluster", core.cluster, "time", (json_int_t)now);
	free(depth);
	free(shown);
	free(visible);
	free(run_mins);
	free(rows);
	free(order);
	free(ids);
	free(b.assocs);
	return info;
}

/* For prio.c: every association's FairShare as sshare would print it now
 * (the same charging, decay and tree), by association ID; *n entries, -1
 * for an ID without a row.  Caller frees. */
double *usage_fairshares(time_t now, uint32_t *n)
{
	struct share_build b = { 0 };
	struct assoc **order;
	int *ids;
	struct usage_share *rows = shares_now(now, &b, &order, &ids);
	double *fs = xmalloc((b.max_id + 1) * sizeof(*fs));
	for (uint32_t id = 0; id <= b.max_id; id++)
		fs[id] = ids[id] >= 0 ? rows[ids[id]].fairshare : -1;
	*n = b.max_id + 1;
	free(rows);
	free(order);
	free(ids);
	free(b.assocs);
	return fs;
}
