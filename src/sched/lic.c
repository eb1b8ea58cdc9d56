/* Licenses in a pass (lic.h).  Counts are signed: a reservation's jobs may
 * use its licenses while the others see them reserved (Slurm 22.05 counts
 * what a reservation holds whether or not its jobs use it). */
#include <stdlib.h>
#include "common/xmalloc.h"
#include "sched/lic.h"
#include "sched/plan.h"

static void add_hold(struct lic_state *l, time_t start, time_t end, int lic, uint32_t count)
{
	if (lic < 0 || lic >= l->nlic || !count)
		return;
	if (l->nhold == l->cap_hold) {
		l->cap_hold = l->cap_hold ? 2 * l->cap_hold : 64;
		l->hold = xrealloc(l->hold, l->cap_hold * sizeof(*l->hold));
	}
	l->hold[l->nhold++] = (struct lic_hold){ start, end, lic, count };
}

static bool resv_active(const struct sched_resv *r, time_t now)
{
	return r->start <= now && now < r->end;
}

void lic_init(struct lic_state *l, const struct sched_params *pr, const struct sched_run *run,
	      int nrun, const struct sched_resv *resv, int nresv)
{
	*l = (struct lic_state){ .nlic = pr->lic_free ? pr->nlic : 0, .now = pr->now,
				 .resv = resv, .nresv = resv ? nresv : 0 };
	l->free = xmalloc((l->nlic + 1) * sizeof(int64_t));
	l->cap = xmalloc((l->nlic + 1) * sizeof(int64_t));
	for (int i = 0; i < l->nlic; i++)
		l->free[i] = l->cap[i] = pr->lic_free[i];
	if (!pr->lic_plan || !l->nlic)
		return;
	for (int r = 0; r < nrun; r++)
		for (int k = 0; k < run[r].nlic; k++) {
			const struct sched_lic *h = &run[r].lic[k];
			if (h->lic < 0 || h->lic >= l->nlic)
				continue;
			l->cap[h->lic] += h->count;
			add_hold(l, pr->now, run[r].end ? run[r].end : PLAN_NEVER, h->lic, h->count);
		}
	for (int r = 0; r < l->nresv; r++)
		for (int k = 0; k < resv[r].nlic; k++) {
			const struct sched_lic *h = &resv[r].lic[k];
			if (h->lic < 0 || h->lic >= l->nlic || resv[r].end <= pr->now)
				continue;
			if (resv_active(&resv[r], pr->now))
				l->cap[h->lic] += h->count;   /* free now left it out */
			add_hold(l, resv[r].start > pr->now ? resv[r].start : pr->now, resv[r].end, h->lic,
				 h->count);
		}
}

void lic_free(struct lic_state *l)
{
	free(l->free);
	free(l->cap);
	free(l->hold);
	*l = (struct lic_state){ 0 };
}

/* The items an option of the job takes: all of them, or the alt-th alone. */
static int option_items(const struct sched_job *job, int alt, int *first)
{
	if (job->lic_any) {
		*first = alt;
		return 1;
	}
	*first = 0;
	return job->nlic;
}

static int noptions(const struct sched_job *job)
{
	return job->lic_any ? job->nlic : 1;
}

static bool known(const struct lic_state *l, const struct sched_lic *it)
{
	return it->lic >= 0 && it->lic < l->nlic;
}

/* What the job's own reservation holds of license lic (its jobs may use
 * it): when active at now (main pass), or, planning, over any time. */
static int64_t lent(const struct lic_state *l, const struct sched_job *job, int lic, bool now_only)
{
	int64_t n = 0;
	if (job->resv < 0 || job->resv >= l->nresv)
		return 0;
	const struct sched_resv *r = &l->resv[job->resv];
	if (now_only && !resv_active(r, l->now))
		return 0;
	for (int k = 0; k < r->nlic; k++)
		if (r->lic[k].lic == lic)
			n += r->lic[k].count;
	return n;
}

/* The most of license lic held at any time in [start, end): the holds
 * only grow at a hold's start, so at start or at one of those. */
static int64_t held_max(const struct lic_state *l, int lic, time_t start, time_t end)
{
	int64_t most = 0;
	for (int p = -1; p < l->nhold; p++) {
		time_t t = p < 0 ? start : l->hold[p].start;
		if (p >= 0 && (l->hold[p].lic != lic || t <= start || t >= end))
			continue;
		int64_t sum = 0;
		for (int h = 0; h < l->nhold; h++) {
			const struct lic_hold *x = &l->hold[h];
			if (x->lic == lic && x->start <= t && t < x->end)
				sum += x->count;
		}
		if (sum > most)
			most = sum;
	}
	return most;
}

/* Does one item of the job fit: now (the present counts), or, planning
 * (plan true), over [start, end)? */
static bool item_fits(const struct lic_state *l, const struct sched_job *job,
		      const struct sched_lic *it, bool plan, time_t start, time_t end)
{
	if (it->count == 0)
		return true;
	if (!known(l, it))
		return false;
	if (!plan)
		return l->free[it->lic] + lent(l, job, it->lic, true) >= it->count;
	return held_max(l, it->lic, start, end) + it->count <=
	       l->cap[it->lic] + lent(l, job, it->lic, false);
}

/* The first option of the job (all its items, or one of an OR list) whose
 * items all fit, into *alt. */
static bool fits(const struct lic_state *l, const struct sched_job *job, bool plan, time_t start,
		 time_t end, int *alt)
{
	*alt = 0;
	if (!job->nlic)
		return true;
	for (int o = 0; o < noptions(job); o++) {
		int first, n = option_items(job, o, &first);
		bool ok = true;
		for (int k = first; ok && k < first + n; k++)
			ok = item_fits(l, job, &job->lic[k], plan, start, end);
		if (ok) {
			*alt = o;
			return true;
		}
	}
	return false;
}

bool lic_fits_now(const struct lic_state *l, const struct sched_job *job, int *alt)
{
	return fits(l, job, false, 0, 0, alt);
}

bool lic_fits(const struct lic_state *l, const struct sched_job *job, time_t start, time_t end,
	      int *alt)
{
	return fits(l, job, true, start, end, alt);
}

void lic_take_now(struct lic_state *l, const struct sched_job *job, int alt)
{
	int first, n = option_items(job, alt, &first);
	for (int k = first; k < first + n && k < job->nlic; k++)
		if (known(l, &job->lic[k]))
			l->free[job->lic[k].lic] -= job->lic[k].count;
}

void lic_hold(struct lic_state *l, const struct sched_job *job, int alt, time_t start, time_t end)
{
	int first, n = option_items(job, alt, &first);
	for (int k = first; k < first + n && k < job->nlic; k++)
		add_hold(l, start, end, job->lic[k].lic, job->lic[k].count);
}

time_t lic_next_release(const struct lic_state *l, time_t t)
{
	time_t next = -1;
	for (int h = 0; h < l->nhold; h++) {
		time_t e = l->hold[h].end;
		if (e > t && e != PLAN_NEVER && (next < 0 || e < next))
			next = e;
	}
	return next;
}
