/* One scheduling pass (pass.h): the main pass (strict priority per
 * partition, nothing planned) and the backfill pass (the plan over time of
 * plan.c).  Both keep jobs off reservations that are not theirs and keep a
 * reservation's jobs inside it; doc/scheduling.md says how. */
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "sched/lic.h"
#include "sched/pass.h"
#include "sched/plan.h"

struct ctx {
	const struct sched_params *params;
	struct sched_node *sn;       /* the working copy: starts go in */
	int nnodes;
	const struct sched_resv *resv;
	int nresv;
	struct plan plan;            /* the main pass uses its reservation index only */
	int *cand, *node, *cpus, *off;
	uint32_t *gres;              /* the pick's GRES (sched_select's out_gres) */
	struct sched_node *empty;    /* the nodes all idle (empty_nodes) */
	int nnever;
	bool *never;                 /* per alternative of the job at hand */
	struct lic_state lic;        /* the licenses (sched/lic.h) */
};

/* The GRES counts of decision d's k-th node, NULL for none. */
static const uint32_t *gres_on(const struct sched_job *job, const struct sched_decision *d, int k)
{
	return d->gres ? d->gres + (size_t)k * job->req.ngres : NULL;
}

static uint64_t mem_on(const struct sched_job *job, const struct sched_decision *d, int k)
{
	return sched_mem_on(&job->req, d->cpus[k], gres_on(job, d, k));
}

/* Take the chosen nodes in the working copy of the nodes (the main pass). */
static void take(struct sched_node *sn, const struct sched_job *job, const struct sched_decision *d)
{
	for (int k = 0; k < d->n; k++)
		sched_node_take(&sn[d->node[k]], &job->req, d->cpus[k], mem_on(job, d, k),
				gres_on(job, d, k));
}

static void drop_nodes(struct sched_decision *d)
{
	free(d->node);
	free(d->cpus);
	free(d->gres);
	d->node = d->cpus = NULL;
	d->gres = NULL;
	d->n = 0;
}

/* The pick (x->node, x->cpus, x->gres: n nodes) into d. */
static void set_nodes(struct ctx *x, const struct sched_job *job, struct sched_decision *d, int n)
{
	size_t ng = (size_t)n * job->req.ngres;
	drop_nodes(d);
	d->n = n;
	d->node = xmalloc((n + 1) * sizeof(int));
	d->cpus = xmalloc((n + 1) * sizeof(int));
	memcpy(d->node, x->node, n * sizeof(int));
	memcpy(d->cpus, x->cpus, n * sizeof(int));
	if (ng) {
		d->gres = xmalloc(ng * sizeof(uint32_t));
		memcpy(d->gres, x->gres, ng * sizeof(uint32_t));
	}
}

/* The job's reservation, NULL for none; *bad when it names none there. */
static const struct sched_resv *job_resv(const struct ctx *x, const struct sched_job *job, bool *bad)
{
	*bad = job->resv < -1 || job->resv >= x->nresv;
	return job->resv >= 0 && !*bad ? &x->resv[job->resv] : NULL;
}

static bool is_flex(const struct sched_resv *r)
{
	return r && (r->flags & SCHED_RESV_FLEX);
}

/* The alternative's candidates as the job may use them: a reservation's
 * job its nodes only (FLEX: its nodes first, then the others). */
static const int *alt_cand(struct ctx *x, const struct sched_job *job, const struct sched_alt *alt,
			   int *ncand)
{
	bool bad;
	const struct sched_resv *r = job_resv(x, job, &bad);
	int n = 0;

	if (!r) {
		*ncand = alt->ncand;
		return alt->cand;
	}
	for (int i = 0; i < alt->ncand; i++)
		if (plan_in_resv(&x->plan, alt->cand[i], job->resv))
			x->cand[n++] = alt->cand[i];
	if (is_flex(r))
		for (int i = 0; i < alt->ncand; i++)
			if (!plan_in_resv(&x->plan, alt->cand[i], job->resv))
				x->cand[n++] = alt->cand[i];
	*ncand = n;
	return x->cand;
}

/* Does the job fit now on the present state?  keep_off: off the nodes of
 * the reservations (not its own) that its time limit would run into. */
static enum sched_fit fit_now(struct ctx *x, const struct sched_job *job, const int *cand, int ncand,
			      bool keep_off, bool *kept_off, int *n)
{
	time_t now = x->params->now, to = plan_window_end(now, job->time_limit);
	int noff = 0;
	enum sched_fit fit;

	for (int r = 0; keep_off && r < x->nresv; r++) {
		const struct sched_resv *rv = &x->resv[r];
		if (r == job->resv || rv->end <= now || rv->start >= to)
			continue;
		for (int k = 0; k < rv->nnodes; k++) {
			int node = rv->node[k];
			if (node >= 0 && node < x->nnodes && x->sn[node].usable) {
				x->sn[node].usable = false;
				x->off[noff++] = node;
			}
		}
	}
	fit = sched_select(x->sn, cand, ncand, &job->req, x->node, x->cpus, n, x->gres);
	for (int k = 0; k < noff; k++)
		x->sn[x->off[k]].usable = true;
	if (kept_off)
		*kept_off = noff > 0;
	return fit;
}

/* When several alternatives wait for different reasons, the one said is
 * the strongest: resources, then reserved nodes, then priority. */
static int why_rank(enum sched_why why)
{
	switch (why) {
	case SCHED_WHY_LICENSES: return 5;
	case SCHED_WHY_RESOURCES: return 4;
	case SCHED_WHY_RESERVED: return 3;
	case SCHED_WHY_PRIORITY: return 2;
	case SCHED_WHY_NEVER: return 1;
	default: return 0;
	}
}

static void why_add(struct sched_decision *d, enum sched_why why)
{
	if (why_rank(why) > why_rank(d->why))
		d->why = why;
}

/* Why a job that fits on its nodes empty cannot start now on this
 * alternative, from the present state: it fits now (keeping off
 * reservations), so what is in the way is the plan (priority); it fits
 * only on reserved nodes (reserved); or it does not fit (resources). */
static enum sched_why why_busy(struct ctx *x, const struct sched_job *job, const int *cand, int ncand)
{
	bool kept_off;
	int n;

	if (fit_now(x, job, cand, ncand, true, &kept_off, &n) == SCHED_PICKED)
		return SCHED_WHY_PRIORITY;
	if (kept_off && fit_now(x, job, cand, ncand, false, NULL, &n) == SCHED_PICKED)
		return SCHED_WHY_RESERVED;
	return SCHED_WHY_RESOURCES;
}

/* Not started: is it because its reservation is not there yet (or over)? */
static bool resv_waits(const struct ctx *x, const struct sched_job *job)
{
	bool bad;
	const struct sched_resv *r = job_resv(x, job, &bad);
	time_t now = x->params->now;
	return bad || (r && (r->end <= now || (!is_flex(r) && r->start > now)));
}

/* The nodes all idle and up: can a job ever run there? */
static const struct sched_node *empty_nodes(struct ctx *x)
{
	if (!x->empty) {
		x->empty = xmalloc((x->nnodes + 1) * sizeof(*x->empty));
		for (int i = 0; i < x->nnodes; i++)
			x->empty[i] = (struct sched_node){ .cpus = x->sn[i].cpus, .memory = x->sn[i].memory,
							   .usable = true, .tmp_disk = x->sn[i].tmp_disk,
							   .sockets = x->sn[i].sockets,
							   .cores = x->sn[i].cores,
							   .threads = x->sn[i].threads };
		for (int i = 0; i < x->nnodes; i++)
			memcpy(x->empty[i].gres, x->sn[i].gres, sizeof(x->empty[i].gres));
	}
	return x->empty;
}

static int part_slot(const struct ctx *x, int part)
{
	return part >= 0 && part < x->params->nparts ? part : x->params->nparts;
}

/* How many entries from jobs[i] go together (a heterogeneous job's). */
static int group_size(const struct sched_job *jobs, int i, int njobs)
{
	int n = jobs[i].together;
	return n <= 1 ? 1 : n > njobs - i ? njobs - i : n;
}

/* One job of the main pass; returns whether it started.  blocked: per
 * partition, a higher job waits there for resources. */
static bool main_job(struct ctx *x, const struct sched_job *job, struct sched_decision *d,
		     bool *blocked)
{
	bool *busy = xmalloc((job->nalt + 1) * sizeof(bool));
	bool started = false;

	d->what = SCHED_D_WAIT;
	d->why = SCHED_WHY_NEVER;
	if (resv_waits(x, job)) {
		/* waiting for its reservation, not for resources: it holds
		 * back no one */
		d->why = SCHED_WHY_RESV_NOT_ACTIVE;
		free(busy);
		return false;
	}
	/* Slurm: a job whose licenses are not free waits for them
	 * (Licenses) and holds back no one */
	int lalt;
	bool lic_ok = lic_fits_now(&x->lic, job, &lalt);
	for (int a = 0; a < job->nalt && d->what != SCHED_D_START; a++) {
		const struct sched_alt *alt = &job->alt[a];
		int ncand, n;
		const int *cand = alt_cand(x, job, alt, &ncand);
		bool kept_off;

		if (blocked[part_slot(x, alt->part)]) {
			/* behind a higher job: not tried (Slurm's Priority),
			 * only whether it could ever run (on empty nodes the
			 * first fit comes soon) */
			why_add(d, sched_select(empty_nodes(x), cand, ncand, &job->req, x->node,
						x->cpus, &n, NULL) == SCHED_NEVER ? SCHED_WHY_NEVER
									    : SCHED_WHY_PRIORITY);
			continue;
		}
		if (!lic_ok) {
			why_add(d, SCHED_WHY_LICENSES);
			continue;
		}
		enum sched_fit fit = fit_now(x, job, cand, ncand, true, &kept_off, &n);

		busy[a] = fit == SCHED_BUSY;
		if (fit == SCHED_PICKED) {
			d->what = SCHED_D_START;
			d->why = SCHED_WHY_NONE;
			d->alt = a;
			d->start = x->params->now;
			d->time_limit = job->time_limit;
			set_nodes(x, job, d, n);
			take(x->sn, job, d);
			lic_take_now(&x->lic, job, lalt);
			started = true;
		} else if (fit == SCHED_BUSY) {
			why_add(d, kept_off && fit_now(x, job, cand, ncand, false, NULL, &n) == SCHED_PICKED
					   ? SCHED_WHY_RESERVED : SCHED_WHY_RESOURCES);
		}
	}
	/* Strict priority: it waits for resources there, and so do the
	 * lower jobs of those partitions (unless it started elsewhere). */
	for (int a = 0; a < job->nalt && d->what != SCHED_D_START; a++)
		if (busy[a])
			blocked[part_slot(x, job->alt[a].part)] = true;
	free(busy);
	return started;
}

/* A heterogeneous job's components that started, when another could not:
 * none starts (Slurm: all scheduled at the same time, or deferred).  They
 * wait for resources, and so do the lower jobs of their partitions. */
static void main_group_undo(struct ctx *x, const struct sched_job *jobs, struct sched_decision *out,
			    int n, const struct sched_node *saved, const int64_t *lic_saved,
			    bool *blocked)
{
	bool resources = true;   /* what keeps them out is busy nodes, not "never" */

	for (int k = 0; k < n; k++)
		if (out[k].what != SCHED_D_START && out[k].why != SCHED_WHY_RESOURCES &&
		    out[k].why != SCHED_WHY_PRIORITY)
			resources = false;
	memcpy(x->sn, saved, x->nnodes * sizeof(*x->sn));
	memcpy(x->lic.free, lic_saved, x->lic.nlic * sizeof(*x->lic.free));
	for (int k = 0; k < n; k++) {
		struct sched_decision *d = &out[k];
		if (d->what != SCHED_D_START)
			continue;
		if (resources)
			blocked[part_slot(x, jobs[k].alt[d->alt].part)] = true;
		drop_nodes(d);
		d->what = SCHED_D_WAIT;
		d->why = SCHED_WHY_RESOURCES;
	}
}

static int main_pass(struct ctx *x, const struct sched_job *jobs, int njobs, struct sched_decision *out)
{
	bool *blocked = xmalloc((x->params->nparts + 1) * sizeof(bool));
	int started = 0, limit = x->params->max_job_test > 0 && x->params->max_job_test < njobs
				      ? x->params->max_job_test : njobs, i = 0;

	while (i < limit) {
		int n = group_size(jobs, i, njobs), got = 0;
		struct sched_node *saved = NULL;
		int64_t *lic_saved = NULL;   /* and the licenses they take */

		if (n > 1) {
			saved = xmalloc((x->nnodes + 1) * sizeof(*saved));
			memcpy(saved, x->sn, x->nnodes * sizeof(*saved));
			lic_saved = xmalloc((x->lic.nlic + 1) * sizeof(*lic_saved));
			memcpy(lic_saved, x->lic.free, x->lic.nlic * sizeof(*lic_saved));
		}
		for (int k = 0; k < n; k++)
			got += main_job(x, &jobs[i + k], &out[i + k], blocked);
		if (got == n)
			started += n;
		else if (got)
			main_group_undo(x, &jobs[i], &out[i], n, saved, lic_saved, blocked);
		free(saved);
		free(lic_saved);
		i += n;
	}
	for (; i < njobs; i++)
		out[i].what = SCHED_D_NONE;
	free(blocked);
	return started;
}

/* ---- backfill ---- */

/* Jobs looked at per user (bf_max_job_user): open addressing. */
struct user_count {
	uint32_t *user;
	int *count, cap;
};

static int *user_slot(struct user_count *u, uint32_t user)
{
	unsigned h = (user * 2654435761u) & (u->cap - 1);
	while (u->count[h] && u->user[h] != user)
		h = (h + 1) & (u->cap - 1);
	u->user[h] = user;
	return &u->count[h];
}

static void hold_all(struct ctx *x, const struct sched_job *job, const struct sched_decision *d,
		     time_t start, int64_t time_limit)
{
	time_t end = plan_window_end(start, time_limit);
	for (int k = 0; k < d->n; k++)
		plan_hold(&x->plan, d->node[k], start, end, sched_charge(&job->req, d->cpus[k]),
			  mem_on(job, d, k), &job->req, gres_on(job, d, k));
}

/* The job's licenses from start for time_limit: planned (lic_plan), or
 * taken from what is free now. */
static void lic_take(struct ctx *x, const struct sched_job *job, int lalt, time_t start,
		     int64_t time_limit)
{
	if (x->params->lic_plan)
		lic_hold(&x->lic, job, lalt, start, plan_window_end(start, time_limit));
	else if (start == x->params->now)
		lic_take_now(&x->lic, job, lalt);
}

static void start_now(struct ctx *x, const struct sched_job *job, struct sched_decision *d, int alt,
		      int64_t time_limit, int lalt)
{
	d->what = SCHED_D_START;
	d->why = SCHED_WHY_NONE;
	d->alt = alt;
	d->start = x->params->now;
	d->time_limit = time_limit;
	hold_all(x, job, d, d->start, time_limit);
	lic_take(x, job, lalt, d->start, time_limit);
}

/* plan_earliest, and with lic_plan the first such start where the
 * licenses are free too: after each release of one, tried again (at most
 * LIC_TRIES_MAX times: a job still without a start then is not planned
 * this pass, which bounds the work of a pass). */
#define LIC_TRIES_MAX 256
static time_t earliest_lic(struct ctx *x, const struct sched_job *job, struct plan_try *t, int *n,
			   bool *never, int *lalt)
{
	time_t at = plan_earliest(&x->plan, t, x->node, x->cpus, n, x->gres, never);
	bool dummy;

	*lalt = 0;
	if (!x->params->lic_plan || !job->nlic)
		return at;
	for (int tries = 0; at >= 0 && tries < LIC_TRIES_MAX; tries++) {
		if (lic_fits(&x->lic, job, at, plan_window_end(at, job->time_limit), lalt))
			return at;
		time_t next = lic_next_release(&x->lic, at);
		if (next < 0 || next > t->latest)
			return -1;
		t->earliest = next;
		at = plan_earliest(&x->plan, t, x->node, x->cpus, n, x->gres, &dummy);
	}
	return -1;
}

/* One job of the backfill pass; returns whether it started.  *holds counts
 * the jobs holding a planned start (max_reservations). */
static bool bf_job(struct ctx *x, const struct sched_job *job, struct sched_decision *d,
		   time_t horizon, int *holds)
{
	const struct sched_params *pr = x->params;
	time_t now = pr->now, earliest = now, latest = horizon, best = -1;
	bool bad, any = false;
	const struct sched_resv *r = job_resv(x, job, &bad);
	int best_alt = -1;

	d->what = SCHED_D_WAIT;
	d->why = SCHED_WHY_NEVER;
	if (bad || (r && r->end <= now)) {
		d->why = SCHED_WHY_RESV_NOT_ACTIVE;
		return false;
	}
	if (r && !is_flex(r)) {
		if (r->start > earliest)
			earliest = r->start;
		if (r->end - 1 < latest)
			latest = r->end - 1;
	}
	if (job->nalt > x->nnever) {
		x->nnever = 2 * job->nalt;
		x->never = xrealloc(x->never, x->nnever * sizeof(bool));
	}
	/* Its licenses now: without lic_plan a job that waits for them is
	 * not planned (Slurm without bf_licenses) */
	int lalt = 0, best_lalt = 0;
	bool lic_now = pr->lic_plan ? lic_fits(&x->lic, job, now, plan_window_end(now, job->time_limit), &lalt)
				    : lic_fits_now(&x->lic, job, &lalt);
	if (!lic_now && !pr->lic_plan) {
		d->why = SCHED_WHY_LICENSES;
		return false;
	}
	for (int a = 0; a < job->nalt && best != now; a++) {
		int ncand, n;
		const int *cand = alt_cand(x, job, &job->alt[a], &ncand);

		struct plan_try t = {
			.req = &job->req, .cand = cand, .ncand = ncand, .own_resv = job->resv,
			.time_limit = job->time_limit, .earliest = earliest,
			.latest = best >= 0 && best - 1 < latest ? best - 1 : latest,
		};
		time_t at = earliest_lic(x, job, &t, &n, &x->never[a], &lalt);
		any |= !x->never[a];
		if (at >= 0) {
			best = at;
			best_alt = a;
			best_lalt = lalt;
			set_nodes(x, job, d, n);
		}
	}
	if (!any)
		return false;
	if (best == now) {
		start_now(x, job, d, best_alt, job->time_limit, best_lalt);
		return true;
	}
	/* --time-min: start now, shrunk to end before what is in the way */
	if (job->time_min > 0 && earliest == now &&
	    (job->time_limit == SCHED_TIME_INFINITE || job->time_min < job->time_limit)) {
		for (int a = 0; a < job->nalt; a++) {
			int ncand, n;
			const int *cand = alt_cand(x, job, &job->alt[a], &ncand);
			if (x->never[a])
				continue;
			struct plan_try t = {
				.req = &job->req, .cand = cand, .ncand = ncand, .own_resv = job->resv,
				.time_limit = job->time_limit, .earliest = now, .latest = now,
			};
			int64_t limit = plan_shrink(&x->plan, &t, job->time_min, x->node, x->cpus, &n, x->gres);
			if (limit > 0 && (!pr->lic_plan ||
					  lic_fits(&x->lic, job, now, plan_window_end(now, limit), &lalt))) {
				set_nodes(x, job, d, n);
				start_now(x, job, d, a, limit, lalt);
				return true;
			}
		}
	}
	if (resv_waits(x, job)) {   /* planned at its reservation's start, at best */
		d->why = SCHED_WHY_RESV_NOT_ACTIVE;
	} else {
		d->why = SCHED_WHY_NONE;
		for (int a = 0; a < job->nalt; a++) {
			int ncand;
			const int *cand = alt_cand(x, job, &job->alt[a], &ncand);
			if (!x->never[a])
				why_add(d, why_busy(x, job, cand, ncand));
		}
		if (!lic_now)
			d->why = SCHED_WHY_LICENSES;
	}
	if (best < 0) {
		drop_nodes(d);
		return false;
	}
	d->alt = best_alt;
	d->start = best;
	d->time_limit = job->time_limit;
	if (pr->max_reservations <= 0 || *holds < pr->max_reservations) {
		d->what = SCHED_D_PLANNED;
		hold_all(x, job, d, best, job->time_limit);
		lic_take(x, job, best_lalt, best, job->time_limit);
		(*holds)++;
	} else {
		drop_nodes(d);   /* an estimate only: start says when */
	}
	return false;
}

/* A heterogeneous job's components in the backfill pass: each is planned
 * in turn (the ones before it hold theirs); all start now, or none does
 * and each is planned (or waits) no earlier than the latest of them.
 * Returns the number started.  What a component that could have started
 * held now stays held in this pass's plan: the pass is only more
 * cautious for the jobs below it, never over its nodes. */
static int bf_group(struct ctx *x, const struct sched_job *jobs, struct sched_decision *out, int n,
		    time_t horizon, int *holds)
{
	time_t latest = x->params->now;
	int got = 0;
	bool waits = false;

	for (int k = 0; k < n; k++) {
		got += bf_job(x, &jobs[k], &out[k], horizon, holds);
		if (out[k].what == SCHED_D_PLANNED && out[k].start > latest)
			latest = out[k].start;
		waits |= out[k].what != SCHED_D_START && out[k].what != SCHED_D_PLANNED;
	}
	if (got == n)
		return n;
	for (int k = 0; k < n; k++) {
		struct sched_decision *d = &out[k];
		if (d->what == SCHED_D_WAIT)
			continue;
		if (waits) {   /* one has no planned start: none has */
			drop_nodes(d);
			d->what = SCHED_D_WAIT;
			d->start = 0;
		} else {
			d->what = SCHED_D_PLANNED;
			d->start = latest;
		}
		if (d->why == SCHED_WHY_NONE)
			d->why = SCHED_WHY_RESOURCES;
	}
	return 0;
}

static int backfill_pass(struct ctx *x, const struct sched_run *run, int nrun,
			 const struct sched_job *jobs, int njobs, struct sched_decision *out)
{
	const struct sched_params *pr = x->params;
	time_t horizon = pr->now + (pr->window > 0 ? pr->window : 86400);
	int started = 0, tested = 0, holds = 0;
	struct user_count users = { 0 };

	plan_init(&x->plan, pr->now, pr->resolution, x->sn, x->nnodes, run, nrun, x->resv, x->nresv);
	if (pr->max_job_user > 0) {
		int want = 2 * (pr->max_job_test > 0 && pr->max_job_test < njobs ? pr->max_job_test : njobs) + 2;
		users.cap = 16;
		while (users.cap < want)
			users.cap *= 2;
		users.user = xmalloc(users.cap * sizeof(uint32_t));
		users.count = xmalloc(users.cap * sizeof(int));
	}
	for (int i = 0; i < njobs; i++) {
		const struct sched_job *job = &jobs[i];
		int *per_user = NULL;

		out[i].what = SCHED_D_NONE;
		if (pr->max_job_test > 0 && tested >= pr->max_job_test)
			continue;
		if (pr->max_job_user > 0 && *(per_user = user_slot(&users, job->user)) >= pr->max_job_user)
			continue;
		tested++;
		if (per_user)
			(*per_user)++;
		int n = group_size(jobs, i, njobs);
		if (n == 1) {
			started += bf_job(x, job, &out[i], horizon, &holds);
			continue;
		}
		started += bf_group(x, job, &out[i], n, horizon, &holds);
		i += n - 1;
	}
	free(users.user);
	free(users.count);
	return started;
}

int sched_pass(const struct sched_params *params, const struct sched_node *nodes, int nnodes,
	       const struct sched_run *run, int nrun, const struct sched_resv *resv, int nresv,
	       const struct sched_job *jobs, int njobs, struct sched_decision *out)
{
	struct ctx x = {
		.params = params, .nnodes = nnodes, .resv = resv, .nresv = resv ? nresv : 0,
	};
	int started, room = nnodes;

	/* sched_select writes up to ncand picks; FLEX lists are as long */
	for (int i = 0; i < njobs; i++)
		for (int a = 0; a < jobs[i].nalt; a++)
			if (jobs[i].alt[a].ncand > room)
				room = jobs[i].alt[a].ncand;
	x.sn = xmalloc((nnodes + 1) * sizeof(*x.sn));
	memcpy(x.sn, nodes, nnodes * sizeof(*x.sn));
	x.cand = xmalloc((room + 1) * sizeof(int));
	x.node = xmalloc((room + 1) * sizeof(int));
	x.cpus = xmalloc((room + 1) * sizeof(int));
	x.gres = xmalloc(((size_t)room * SCHED_GRES_ITEMS + 1) * sizeof(uint32_t));
	x.off = xmalloc((nnodes + 1) * sizeof(int));
	memset(out, 0, njobs * sizeof(*out));
	lic_init(&x.lic, params, run, nrun, x.resv, x.nresv);
	if (params->backfill) {
		started = backfill_pass(&x, run, nrun, jobs, njobs, out);
	} else {
		x.plan.nnodes = nnodes;
		plan_resv_index(&x.plan, x.resv, x.nresv);
		started = main_pass(&x, jobs, njobs, out);
	}
	plan_free(&x.plan);
	lic_free(&x.lic);
	free(x.sn);
	free(x.cand);
	free(x.node);
	free(x.cpus);
	free(x.gres);
	free(x.off);
	free(x.never);
	free(x.empty);
	return started;
}

void sched_decisions_free(struct sched_decision *out, int n)
{
	for (int i = 0; i < n; i++) {
		free(out[i].node);
		free(out[i].cpus);
		free(out[i].gres);
		out[i].node = out[i].cpus = NULL;
		out[i].gres = NULL;
	}
}
