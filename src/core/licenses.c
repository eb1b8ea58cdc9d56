/* Local licenses (licenses.h): the table herd.conf's Licenses= makes, the
 * count each job holds, and a job's -L checked and resolved against it.
 * What the jobs hold is kept as they start and end (licenses_job_state)
 * and counted again from the jobs after a reconfigure or a restart. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/license.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "core/sched_conf.h"
#include "core/resv.h"

struct license {
	char *name;
	uint32_t total;
	uint64_t used;              /* held by jobs; may pass total after a reconfigure */
};

static struct {
	struct license *lic;        /* sorted by name (strcmp), as Slurm lists them */
	int n;
	unsigned gen;               /* bumped by each configure: jobs find their indexes again */
	bool plan;                  /* SchedulerParameters=bf_licenses */
	bool dirty;                 /* what jobs hold is to be counted again (sync) */
} lics;

/* A job's -L, parsed, with each item's license (index, -1 none). */
struct job_lic {
	struct lic_list list;
	int *idx;
	unsigned gen;
	int alt;                    /* of an OR list: the item it holds or will take */
};

static int find(const char *name)
{
	int lo = 0, hi = lics.n - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(name, lics.lic[mid].name);
		if (!c)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

static void resolve(struct job_lic *jl)
{
	if (jl->idx && jl->gen == lics.gen)
		return;
	free(jl->idx);
	jl->idx = xmalloc((jl->list.n + 1) * sizeof(int));
	for (int i = 0; i < jl->list.n; i++)
		jl->idx[i] = find(jl->list.item[i].name);
	jl->gen = lics.gen;
}

static bool holds(enum job_state s)
{
	return s == JOB_RUNNING || s == JOB_SUSPENDED;
}

/* The items of option o: all (AND), or the o-th alone (OR). */
static int items(const struct job_lic *jl, int o, int *first)
{
	if (jl->list.any) {
		*first = o >= 0 && o < jl->list.n ? o : 0;
		return jl->list.n ? 1 : 0;
	}
	*first = 0;
	return jl->list.n;
}

static void take(struct job_lic *jl, bool give)
{
	int first, n = items(jl, jl->alt, &first);
	resolve(jl);
	for (int k = first; k < first + n; k++) {
		int i = jl->idx[k];
		uint32_t c = jl->list.item[k].count;
		if (i < 0)
			continue;
		if (!give)
			lics.lic[i].used += c;
		else
			lics.lic[i].used -= c < lics.lic[i].used ? c : lics.lic[i].used;
	}
}

static void count_job(struct job *job, void *arg)
{
	if (job->lic && holds(job->state))
		take(job->lic, false);
}

static void sync(void)
{
	if (!lics.dirty)
		return;
	lics.dirty = false;
	for (int i = 0; i < lics.n; i++)
		lics.lic[i].used = 0;
	if (lics.n)
		job_foreach(count_job, NULL);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct license *)a)->name, ((const struct license *)b)->name);
}


void licenses_configure(const struct conf *conf)
{
	struct lic_list l;
	const char *text = conf_get(conf, "Licenses");

	for (int i = 0; i < lics.n; i++)
		free(lics.lic[i].name);
	free(lics.lic);
	lics.lic = NULL;
	lics.n = 0;
	if (text && lic_parse(text, false, &l) < 0) {
		log_error("Licenses=%s is not valid: no licenses", text);   /* conf_load checks it */
		text = NULL;
	}
	if (text) {
		lics.lic = xmalloc((l.n + 1) * sizeof(*lics.lic));
		for (int i = 0; i < l.n; i++)
			lics.lic[lics.n++] = (struct license){ xstrdup(l.item[i].name), l.item[i].count, 0 };
		lic_list_clear(&l);
		qsort(lics.lic, lics.n, sizeof(*lics.lic), by_name);
	}
	lics.plan = sched_conf_flag(conf_get(conf, "SchedulerParameters"), "bf_licenses");
	lics.gen++;
	lics.dirty = true;   /* counted from the jobs when next needed (after a restart's load too) */
}

static uint64_t free_of(int i)
{
	return lics.lic[i].total > lics.lic[i].used ? lics.lic[i].total - lics.lic[i].used : 0;
}

/* Licenses= of a reservation into out (per license), added. */
static void add_spec(const char *spec, int64_t *out)
{
	struct lic_list l;
	if (!spec || lic_parse(spec, false, &l) < 0)
		return;
	for (int k = 0; k < l.n; k++) {
		int i = find(l.item[k].name);
		if (i >= 0)
			out[i] += l.item[k].count;
	}
	lic_list_clear(&l);
}

/* What the reservations active now hold (Reserved=), per license; and
 * with job, what its own (active) reservation lends it.  xmalloc'd. */
static int64_t *reserved_now(const struct job *job)
{
	int64_t *out = xmalloc((lics.n + 1) * sizeof(int64_t));
	const struct sched_resv *list;
	time_t now = core_now();
	int n = resv_sched_list(now, &list);
	int own = job ? resv_job_index(job, now) : -1;

	for (int i = 0; i < n; i++) {
		if (list[i].start > now || now >= list[i].end)
			continue;
		if (job && i == own)
			continue;   /* its jobs may use them */
		add_spec(resv_licenses(i), out);
	}
	return out;
}

/* ---- a job's -L ------------------------------------------------------- */

static void job_lic_destroy(struct job_lic *jl)
{
	if (!jl)
		return;
	lic_list_clear(&jl->list);
	free(jl->idx);
	free(jl);
}

/* The first option whose licenses are free now (to reserved, the
 * reservations active now but the job's own), -1 none. */
static int ready_option(struct job_lic *jl, const int64_t *reserved)
{
	resolve(jl);
	for (int o = 0; o < (jl->list.any ? jl->list.n : 1); o++) {
		int first, n = items(jl, o, &first);
		bool ok = true;
		for (int k = first; ok && k < first + n; k++) {
			int i = jl->idx[k];
			ok = !jl->list.item[k].count ||
			     (i >= 0 && (int64_t)free_of(i) - (reserved ? reserved[i] : 0) >=
						(int64_t)jl->list.item[k].count);
		}
		if (ok)
			return o;
	}
	return -1;
}

/* spec parsed and checked into *out (NULL: nothing asked); 0 or -1. */
static int parse_checked(const char *spec, struct job_lic **out)
{
	struct job_lic *jl = NULL;

	*out = NULL;
	if (!spec || !*spec)
		return 0;
	jl = xmalloc(sizeof(*jl));
	if (lic_parse(spec, true, &jl->list) < 0)
		goto invalid;
	resolve(jl);
	/* Slurm: each license configured, none asked above its total */
	for (int k = 0; k < jl->list.n; k++)
		if (jl->idx[k] < 0 || jl->list.item[k].count > lics.lic[jl->idx[k]].total)
			goto invalid;
	if (!jl->list.n) {   /* "," alone: nothing asked */
		job_lic_destroy(jl);
		jl = NULL;
	}
	*out = jl;
	return 0;
invalid:
	job_lic_destroy(jl);
	return -1;
}

int licenses_check(const char *spec, struct herd_error *err)
{
	struct job_lic *jl;
	if (parse_checked(spec, &jl) < 0) {
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_LICENSES));
		return HERD_ERR_INVALID_LICENSES;
	}
	job_lic_destroy(jl);
	return 0;
}

int licenses_job_set(struct job *job, const char *spec, struct herd_error *err)
{
	struct job_lic *jl;

	if (parse_checked(spec, &jl) < 0) {
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_LICENSES));
		return HERD_ERR_INVALID_LICENSES;
	}
	sync();
	bool held = job->lic && holds(job->state);
	if (held)
		take(job->lic, true);
	job_lic_destroy(job->lic);
	job->lic = jl;
	free(job->licenses);
	job->licenses = spec && *spec ? xstrdup(spec) : NULL;
	if (jl && holds(job->state)) {
		int o = ready_option(jl, NULL);
		jl->alt = o >= 0 ? o : 0;
		take(jl, false);   /* an administrator's change: taken even over the total */
	}
	return 0;
}

void licenses_job_load(struct job *job, const char *spec)
{
	job_lic_destroy(job->lic);
	job->lic = NULL;
	free(job->licenses);
	job->licenses = spec && *spec ? xstrdup(spec) : NULL;
	if (!job->licenses)
		return;
	struct job_lic *jl = xmalloc(sizeof(*jl));
	if (lic_parse(spec, true, &jl->list) < 0 || !jl->list.n) {
		job_lic_destroy(jl);
		return;
	}
	job->lic = jl;
	lics.dirty = true;   /* a running job restored: counted again */
}

void licenses_job_copy(struct job *dst, const struct job *src)
{
	dst->licenses = src->licenses ? xstrdup(src->licenses) : NULL;
	dst->lic = NULL;
	if (!src->lic)
		return;
	dst->lic = xmalloc(sizeof(*dst->lic));
	lic_list_copy(&dst->lic->list, &src->lic->list);
	dst->lic->alt = src->lic->alt;
}

void licenses_job_free(struct job *job)
{
	job_lic_destroy(job->lic);
	job->lic = NULL;
	free(job->licenses);
	job->licenses = NULL;
}

int licenses_job_alt(const struct job *job)
{
	return job->lic && job->lic->list.any ? job->lic->alt : 0;
}

void licenses_job_load_alt(struct job *job, int alt)
{
	if (job->lic && alt >= 0 && alt < job->lic->list.n)
		job->lic->alt = alt;
}

void licenses_job_state(struct job *job, enum job_state old)
{
	if (!job->lic || lics.dirty || holds(old) == holds(job->state))
		return;
	take(job->lic, !holds(job->state));
}

bool licenses_job_ready(struct job *job)
{
	if (!job->lic)
		return true;
	sync();
	int64_t *reserved = reserved_now(job);
	int o = ready_option(job->lic, reserved);
	free(reserved);
	if (o < 0)
		return false;
	job->lic->alt = o;
	return true;
}

json_t *licenses_info(const char *name)
{
	json_t *out = json_array();

	sync();
	int64_t *reserved = reserved_now(NULL);
	for (int i = 0; i < lics.n; i++) {
		const struct license *l = &lics.lic[i];
		if (name && strcmp(name, l->name))
			continue;
		json_array_append_new(out, json_pack("{s:s, s:I, s:I, s:I, s:I, s:b}", "name", l->name,
						     "total", (json_int_t)l->total, "used",
						     (json_int_t)l->used, "free", (json_int_t)free_of(i),
						     "reserved", (json_int_t)reserved[i], "remote", 0));
	}
	free(reserved);
	return out;
}

/* ---- the scheduler's snapshot ------------------------------------------ */

int licenses_count(void)
{
	return lics.n;
}

bool licenses_plan(void)
{
	return lics.plan;
}

int64_t *licenses_snap_free(void)
{
	if (!lics.n)
		return NULL;
	sync();
	int64_t *f = reserved_now(NULL);
	for (int i = 0; i < lics.n; i++)
		f[i] = (int64_t)free_of(i) - f[i];   /* below 0 while a reservation's jobs use its own */
	return f;
}

struct sched_lic *licenses_snap_spec(const char *spec, int *n)
{
	struct lic_list l;
	*n = 0;
	if (!spec || !lics.n || lic_parse(spec, false, &l) < 0)
		return NULL;
	struct sched_lic *out = l.n ? xmalloc(l.n * sizeof(*out)) : NULL;
	for (int k = 0; k < l.n; k++)
		out[k] = (struct sched_lic){ find(l.item[k].name), l.item[k].count };
	*n = l.n;
	lic_list_clear(&l);
	return out;
}

static struct sched_lic *snap_items(struct job_lic *jl, int o, bool all, int *n)
{
	int first, k = all ? jl->list.n : items(jl, o, &first);
	if (all)
		first = 0;
	resolve(jl);
	*n = k;
	if (!k)
		return NULL;
	struct sched_lic *out = xmalloc(k * sizeof(*out));
	for (int i = 0; i < k; i++)
		out[i] = (struct sched_lic){ jl->idx[first + i], jl->list.item[first + i].count };
	return out;
}

struct sched_lic *licenses_snap_job(const struct job *job, int *n, bool *any)
{
	*n = 0;
	*any = false;
	if (!job->lic)
		return NULL;
	*any = job->lic->list.any;
	return snap_items(job->lic, 0, true, n);
}

struct sched_lic *licenses_snap_held(const struct job *job, int *n)
{
	*n = 0;
	if (!job->lic || !holds(job->state))
		return NULL;
	return snap_items(job->lic, job->lic->alt, false, n);
}
