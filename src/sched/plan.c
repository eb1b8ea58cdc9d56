/* The backfill plan (plan.h).  Each node keeps its own sorted list of
 * changes (most nodes have a few), and the plan keeps one sorted index of
 * release times and one of planned holds, so that the search for a job's
 * earliest start only looks again at the nodes whose window changed from
 * one candidate time to the next, and only calls sched_select where a
 * cheap count says the job may fit (the count is exact but for required
 * nodes). */
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "sched/plan.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- reservations ---- */

void plan_resv_index(struct plan *p, const struct sched_resv *resv, int nresv)
{
	int total = 0;

	p->resv = resv;
	p->nresv = nresv;
	p->resv_first = xmalloc((p->nnodes + 2) * sizeof(int));
	for (int r = 0; r < nresv; r++)
		for (int k = 0; k < resv[r].nnodes; k++) {
			int node = resv[r].node[k];
			if (node >= 0 && node < p->nnodes) {
				p->resv_first[node + 1]++;
				total++;
			}
		}
	for (int i = 0; i < p->nnodes; i++)
		p->resv_first[i + 1] += p->resv_first[i];
	p->resv_of = xmalloc((total + 1) * sizeof(int));
	int *fill = xmalloc((p->nnodes + 1) * sizeof(int));
	for (int r = 0; r < nresv; r++)
		for (int k = 0; k < resv[r].nnodes; k++) {
			int node = resv[r].node[k];
			if (node >= 0 && node < p->nnodes)
				p->resv_of[p->resv_first[node] + fill[node]++] = r;
		}
	free(fill);
}

bool plan_resv_blocks(const struct plan *p, int node, time_t from, time_t to, int own)
{
	for (int k = p->resv_first[node]; k < p->resv_first[node + 1]; k++) {
		const struct sched_resv *r = &p->resv[p->resv_of[k]];
		if (p->resv_of[k] != own && r->start < to && r->end > from)
			return true;
	}
	return false;
}

bool plan_in_resv(const struct plan *p, int node, int r)
{
	if (node < 0 || node >= p->nnodes)
		return false;
	for (int k = p->resv_first[node]; k < p->resv_first[node + 1]; k++)
		if (p->resv_of[k] == r)
			return true;
	return false;
}

/* ---- the per-node step functions ---- */

static int ev_cmp(const void *a, const void *b)
{
	const struct plan_ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->njobs > 0) - (y->njobs > 0);   /* releases first */
}

static int mark_cmp(const void *a, const void *b)
{
	const struct plan_mark *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

static void cum_from(struct plan_evs *e, int k)
{
	for (; k < e->n; k++) {
		const struct plan_ev *prev = k > 0 ? &e->ev[k - 1] : NULL;
		e->ev[k].cum_cpus = (prev ? prev->cum_cpus : 0) + e->ev[k].cpus;
		e->ev[k].cum_mem = (prev ? prev->cum_mem : 0) + e->ev[k].mem;
		e->ev[k].cum_njobs = (prev ? prev->cum_njobs : 0) + e->ev[k].njobs;
		e->ev[k].max_cpus = MAX(prev ? prev->max_cpus : 0, e->ev[k].cum_cpus);
		e->ev[k].max_mem = MAX(prev ? prev->max_mem : 0, e->ev[k].cum_mem);
		e->ev[k].max_njobs = MAX(prev ? prev->max_njobs : 0, e->ev[k].cum_njobs);
		for (int g = 0; g < SCHED_GRES_KINDS; g++) {
			e->ev[k].cum_gres[g] = (prev ? prev->cum_gres[g] : 0) + e->ev[k].gres[g];
			e->ev[k].max_gres[g] = MAX(prev ? prev->max_gres[g] : 0, e->ev[k].cum_gres[g]);
		}
	}
}

static void ev_insert(struct plan_evs *e, time_t t, int cpus, int64_t mem, int njobs,
		      const int32_t *gres)
{
	int k = e->n;

	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4;
		e->ev = xrealloc(e->ev, e->cap * sizeof(*e->ev));
	}
	/* after the same time's releases; a hold also after its holds */
	while (k > 0 && (e->ev[k - 1].t > t || (e->ev[k - 1].t == t && njobs < 0 && e->ev[k - 1].njobs > 0)))
		k--;
	memmove(&e->ev[k + 1], &e->ev[k], (e->n - k) * sizeof(*e->ev));
	e->ev[k] = (struct plan_ev){ .t = t, .cpus = cpus, .mem = mem, .njobs = njobs };
	memcpy(e->ev[k].gres, gres, sizeof(e->ev[k].gres));
	e->n++;
	if (njobs > 0) {
		if (t > e->last_hold)
			e->last_hold = t;
		if (e->nhold == e->caphold) {
			e->caphold = e->caphold ? 2 * e->caphold : 4;
			e->hold = xrealloc(e->hold, e->caphold * sizeof(time_t));
		}
		int h = e->nhold++;
		for (; h > 0 && e->hold[h - 1] > t; h--)
			e->hold[h] = e->hold[h - 1];
		e->hold[h] = t;
	}
	cum_from(e, k);
}

static void mark_add(struct plan_marks *m, time_t t, int node, int cpus, int64_t mem,
		     const int32_t *gres)
{
	if (m->npend == m->cappend) {
		m->cappend = m->cappend ? 2 * m->cappend : 64;
		m->pend = xrealloc(m->pend, m->cappend * sizeof(*m->pend));
	}
	m->pend[m->npend] = (struct plan_mark){ .t = t, .node = node, .cpus = cpus, .mem = mem };
	memcpy(m->pend[m->npend++].gres, gres, sizeof(m->pend->gres));
}

/* Merge the marks added since into the sorted index. */
static void mark_sync(struct plan_marks *m)
{
	if (m->npend == 0)
		return;
	qsort(m->pend, m->npend, sizeof(*m->pend), mark_cmp);
	if (m->n + m->npend > m->cap) {
		m->cap = 2 * (m->n + m->npend);
		m->m = xrealloc(m->m, m->cap * sizeof(*m->m));
	}
	int i = m->n - 1, j = m->npend - 1, k = m->n + m->npend - 1;
	while (j >= 0)
		m->m[k--] = i >= 0 && m->m[i].t > m->pend[j].t ? m->m[i--] : m->pend[j--];
	m->n += m->npend;
	m->npend = 0;
}

/* The first mark after t (strict: at t, the first at or after it). */
static int mark_after(const struct plan_marks *m, time_t t, bool strict)
{
	int lo = 0, hi = m->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strict ? m->m[mid].t <= t : m->m[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void plan_init(struct plan *p, time_t now, int resolution, struct sched_node *base, int nnodes,
	       const struct sched_run *run, int nrun, const struct sched_resv *resv, int nresv)
{
	memset(p, 0, sizeof(*p));
	p->now = now;
	p->resolution = resolution > 0 ? resolution : 1;
	p->base = base;
	p->nnodes = nnodes;
	p->evs = xmalloc((nnodes + 1) * sizeof(*p->evs));
	for (int j = 0; j < nrun; j++)
		if (run[j].end != 0)
			for (int k = 0; k < run[j].n; k++)
				if (run[j].node[k] >= 0 && run[j].node[k] < nnodes)
					p->evs[run[j].node[k]].cap++;
	int total = 0;
	for (int i = 0; i < nnodes; i++) {
		total += p->evs[i].cap;
		if (p->evs[i].cap)
			p->evs[i].ev = xmalloc((p->evs[i].cap += 2) * sizeof(struct plan_ev));
	}
	p->rel.cap = total + 64;
	p->rel.m = xmalloc(p->rel.cap * sizeof(*p->rel.m));
	for (int j = 0; j < nrun; j++) {
		/* overdue jobs end any moment: not now, or their CPUs would be
		 * handed out while they still hold them */
		time_t end = run[j].end > now ? run[j].end : now + 1;
		if (run[j].end == 0)
			continue;
		for (int k = 0; k < run[j].n; k++) {
			int node = run[j].node[k];
			if (node < 0 || node >= nnodes)
				continue;
			struct plan_evs *e = &p->evs[node];
			struct plan_ev *ev = &e->ev[e->n++];
			*ev = (struct plan_ev){
				.t = end, .cpus = run[j].cpus ? -run[j].cpus[k] : 0,
				.mem = run[j].mem ? -(int64_t)run[j].mem[k] : 0, .njobs = -1 };
			for (int g = 0; run[j].gres && g < SCHED_GRES_KINDS; g++)
				ev->gres[g] = -run[j].gres[k * SCHED_GRES_KINDS + g];
			p->rel.m[p->rel.n] = (struct plan_mark){
				.t = end, .node = node, .cpus = ev->cpus, .mem = ev->mem };
			memcpy(p->rel.m[p->rel.n++].gres, ev->gres, sizeof(ev->gres));
		}
	}
	for (int i = 0; i < nnodes; i++)
		if (p->evs[i].n) {
			qsort(p->evs[i].ev, p->evs[i].n, sizeof(struct plan_ev), ev_cmp);
			cum_from(&p->evs[i], 0);
		}
	qsort(p->rel.m, p->rel.n, sizeof(*p->rel.m), mark_cmp);
	plan_resv_index(p, resv, nresv);
	p->view = xmalloc((nnodes + 1) * sizeof(*p->view));
	p->now_view = xmalloc((nnodes + 1) * sizeof(*p->now_view));
	memcpy(p->now_view, base, nnodes * sizeof(*base));
	p->special = xmalloc((nnodes + 1) * sizeof(int));
	p->now_lo = xmalloc((nnodes + 1) * sizeof(time_t));
	p->now_hi = xmalloc((nnodes + 1) * sizeof(time_t));
	for (int i = 0; i < nnodes; i++)
		if (p->resv_first[i] != p->resv_first[i + 1])
			p->special[p->nspecial++] = i;
	p->role = xmalloc(nnodes + 1);
	p->contrib = xmalloc((nnodes + 1) * sizeof(int));
	p->stamp = xmalloc((nnodes + 1) * sizeof(int));
	p->full = xmalloc(nnodes + 1);
	p->last_hold = xmalloc((nnodes + 1) * sizeof(time_t));
	p->dirty = xmalloc((nnodes + 1) * sizeof(int));
	p->cand_buf = xmalloc((nnodes + 1) * sizeof(int));
}

void plan_free(struct plan *p)
{
	if (p->evs)
		for (int i = 0; i < p->nnodes; i++) {
			free(p->evs[i].ev);
			free(p->evs[i].hold);
		}
	free(p->evs);
	free(p->rel.m);
	free(p->rel.pend);
	free(p->inc.m);
	free(p->inc.pend);
	free(p->resv_first);
	free(p->resv_of);
	free(p->view);
	free(p->now_view);
	free(p->special);
	free(p->now_lo);
	free(p->now_hi);
	free(p->role);
	free(p->contrib);
	free(p->stamp);
	free(p->full);
	free(p->last_hold);
	free(p->dirty);
	free(p->cand_buf);
	memset(p, 0, sizeof(*p));
}

void plan_hold(struct plan *p, int node, time_t start, time_t end, int cpus, uint64_t mem,
	       const struct sched_req *req, const uint32_t *gres)
{
	struct plan_evs *e = &p->evs[node];
	int32_t held[SCHED_GRES_KINDS] = { 0 }, back[SCHED_GRES_KINDS] = { 0 };

	if (gres && req->ngres) {
		/* of the kinds free then (the base's: a planned hold's kinds
		 * are a guess where an item may take several) */
		uint16_t kinds[SCHED_GRES_KINDS];
		sched_gres_kinds(&p->base[node], req, gres, kinds);
		for (int g = 0; g < SCHED_GRES_KINDS; g++)
			back[g] = -(held[g] = kinds[g]);
	}
	p->now_lo[node] = p->now_hi[node] = 0;   /* its view from now is to work out again */
	if (start <= p->now) {
		p->base[node].alloc_cpus += cpus;
		p->base[node].alloc_mem += mem;
		p->base[node].njobs++;
		for (int g = 0; g < SCHED_GRES_KINDS; g++)
			p->base[node].alloc_gres[g] += (uint16_t)held[g];
		p->now_view[node] = p->base[node];
	} else {
		if (e->last_hold == 0 && p->resv_first[node] == p->resv_first[node + 1])
			p->special[p->nspecial++] = node;
		ev_insert(e, start, cpus, (int64_t)mem, 1, held);
		mark_add(&p->inc, start, node, cpus, (int64_t)mem, held);
		p->last_hold[node] = e->last_hold;
	}
	if (end != PLAN_NEVER) {
		ev_insert(e, end, -cpus, -(int64_t)mem, -1, back);
		mark_add(&p->rel, end, node, -cpus, -(int64_t)mem, back);
	}
}

/* The node as a job sees it over [from, to): the most it has allocated
 * then, and unusable where a reservation not the job's holds it. */
static int ev_first_after(const struct plan_evs *e, time_t t, bool strict)
{
	int lo = 0, hi = e->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strict ? e->ev[mid].t <= t : e->ev[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void view_node(const struct plan *p, int c, time_t from, time_t to, int own,
		      struct sched_node *out)
{
	const struct sched_node *b = &p->base[c];
	const struct plan_evs *e = &p->evs[c];
	int cpus = 0, njobs = 0;
	int64_t mem = 0;
	int32_t gres[SCHED_GRES_KINDS] = { 0 };

	if (e->n == 0) {
		/* nothing changes */
	} else if (e->last_hold <= from) {
		/* no hold from here on: the allocation only falls, the most is at from */
		int k = e->ev[0].t > from ? 0 : ev_first_after(e, from, true);
		if (k > 0) {
			cpus = e->ev[k - 1].cum_cpus;
			mem = e->ev[k - 1].cum_mem;
			njobs = e->ev[k - 1].cum_njobs;
			memcpy(gres, e->ev[k - 1].cum_gres, sizeof(gres));
		}
	} else if (from == p->now) {
		/* from now (nothing changes at now itself: starts now are in
		 * base): the most up to the last change before to */
		int k = ev_first_after(e, to, false);
		if (k > 0) {
			cpus = e->ev[k - 1].max_cpus;
			mem = e->ev[k - 1].max_mem;
			njobs = e->ev[k - 1].max_njobs;
			memcpy(gres, e->ev[k - 1].max_gres, sizeof(gres));
		}
	} else {
		/* between two holds the allocation only falls: the most is at
		 * from or just after a hold inside the window */
		int k = ev_first_after(e, from, true);
		if (k > 0) {
			cpus = e->ev[k - 1].cum_cpus;
			mem = e->ev[k - 1].cum_mem;
			njobs = e->ev[k - 1].cum_njobs;
			memcpy(gres, e->ev[k - 1].cum_gres, sizeof(gres));
		}
		int lo = 0, hi = e->nhold;
		while (lo < hi) {   /* the first hold after from */
			int mid = lo + (hi - lo) / 2;
			if (e->hold[mid] <= from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int h = lo; h < e->nhold && e->hold[h] < to; h++) {
			if (h > lo && e->hold[h] == e->hold[h - 1])
				continue;
			k = ev_first_after(e, e->hold[h], true);   /* after all changes at it */
			cpus = MAX(cpus, e->ev[k - 1].cum_cpus);
			mem = MAX(mem, e->ev[k - 1].cum_mem);
			njobs = MAX(njobs, e->ev[k - 1].cum_njobs);
			for (int g = 0; g < SCHED_GRES_KINDS; g++)
				gres[g] = MAX(gres[g], e->ev[k - 1].cum_gres[g]);
		}
	}
	*out = *b;
	out->alloc_cpus = b->alloc_cpus + cpus > 0 ? b->alloc_cpus + cpus : 0;
	out->alloc_mem = (int64_t)b->alloc_mem + mem > 0 ? (uint64_t)((int64_t)b->alloc_mem + mem) : 0;
	out->njobs = b->njobs + njobs > 0 ? b->njobs + njobs : 0;
	for (int g = 0; g < SCHED_GRES_KINDS; g++)
		out->alloc_gres[g] = (uint16_t)MAX(0, b->alloc_gres[g] + gres[g]);
	if (out->usable && p->resv_first[c] != p->resv_first[c + 1] &&
	    plan_resv_blocks(p, c, from, to, own))
		out->usable = false;
}

/* The special node c's view over [now, to) into now_view: as it stands when
 * the last one worked out holds for this window too (the same changes
 * before its end; a reservation's nodes always again: the job counts). */
static void now_view_node(struct plan *p, int c, time_t to, int own)
{
	const struct plan_evs *e = &p->evs[c];

	if (p->resv_first[c] != p->resv_first[c + 1]) {
		view_node(p, c, p->now, to, own, &p->now_view[c]);
		return;
	}
	if (to > p->now_lo[c] && to <= p->now_hi[c])
		return;
	view_node(p, c, p->now, to, own, &p->now_view[c]);
	int k = ev_first_after(e, to, false);   /* the first change at or after to */
	p->now_lo[c] = k > 0 ? e->ev[k - 1].t : p->now;
	p->now_hi[c] = k < e->n ? e->ev[k].t : PLAN_NEVER;
}

/* ---- one job ---- */

/* What sched_select needs, counted node by node: with a node count, nodes
 * that take a share; else CPUs in whole tasks.  Mirrors select.c's
 * try_pick, so that the count is met exactly when try_pick succeeds
 * (required nodes aside: then it is only necessary). */
struct need {
	bool by_nodes;
	int cpt, nreq;
	int64_t per_node;         /* 64 bits, saturating (sched_mul): never wraps */
	int64_t want;             /* nodes (by_nodes) or CPUs */
	int64_t share_tasks;      /* by_nodes: the tasks of each node (its GRES per task) */
};

static void need_of(const struct sched_req *req, struct need *nd)
{
	int cpt = req->cpus_per_task > 0 ? req->cpus_per_task : 1;
	int64_t ntasks = req->ntasks > 0 ? req->ntasks : (req->nodes > 0 ? req->nodes : 1);
	int nreq = req->nrequired;
	int nodes_wanted = req->nodes > nreq ? req->nodes : nreq;

	nd->cpt = cpt;
	nd->by_nodes = req->nodes > 0 || (nreq > 0 && ntasks <= nreq);
	if (nd->by_nodes) {
		nd->share_tasks = (ntasks + nodes_wanted - 1) / nodes_wanted;
		nd->per_node = sched_mul(nd->share_tasks, cpt);
		if (nd->per_node < req->mincpus)
			nd->per_node = req->mincpus;
		nd->want = nodes_wanted;   /* -N min-max: the least */
	} else {
		nd->per_node = 0;
		nd->want = sched_mul(ntasks, cpt);
	}
}

static int contrib_of(const struct sched_node *v, const struct need *nd, const struct sched_req *req)
{
	int free_cpus = v->cpus - v->alloc_cpus;
	if (req->share > 1)   /* -s: each free CPU share times over (select.c) */
		free_cpus = (int)MIN((int64_t)v->cpus, sched_mul(free_cpus, req->share));
	uint64_t free_mem = v->memory > v->alloc_mem ? v->memory - v->alloc_mem : 0;

	int64_t by_gres = req->ngres ? sched_gres_tasks(v, req, false, false) : INT32_MAX;

	if (!v->usable || (req->exclusive && v->njobs > 0) || req->mem_per_node > free_mem ||
	    !sched_node_kind_ok(v, req) || free_cpus < req->mincpus || by_gres < 0)
		return 0;
	if (nd->by_nodes) {
		int64_t take = req->exclusive ? v->cpus : nd->per_node;
		return free_cpus >= nd->per_node && by_gres >= nd->share_tasks &&
		       sched_umul(req->mem_per_cpu, take > 0 ? (uint64_t)take : 0) <= free_mem;
	}
	int tasks = free_cpus / nd->cpt;
	if (by_gres < tasks)
		tasks = (int)by_gres;
	if (req->mem_per_cpu) {
		uint64_t by_mem = free_mem / sched_umul(req->mem_per_cpu, (uint64_t)nd->cpt);
		if (by_mem < (uint64_t)tasks)
			tasks = (int)by_mem;
	}
	if (tasks <= 0)
		return 0;
	if (req->exclusive)
		return sched_umul(req->mem_per_cpu, (uint64_t)v->cpus) <= free_mem ? v->cpus : 0;
	return tasks * nd->cpt;
}

static void roles_clear(struct plan *p, int n)
{
	for (int i = 0; i < n; i++)
		p->role[p->cand_buf[i]] = 0;
}

/* Mark the job's distinct candidates (role 1, required 2) into p->cand_buf;
 * their count, 0 when a required node is not a candidate (never). */
static int roles_mark(struct plan *p, const struct plan_try *t, struct need *nd)
{
	const struct sched_req *req = t->req;
	int n = 0;
	bool never = false;

	for (int i = 0; i < req->nexcluded; i++)
		if (req->excluded[i] >= 0 && req->excluded[i] < p->nnodes)
			p->role[req->excluded[i]] = 3;
	for (int i = 0; i < t->ncand; i++) {
		int c = t->cand[i];
		if (c >= 0 && c < p->nnodes && p->role[c] == 0) {
			p->role[c] = 1;
			p->cand_buf[n++] = c;
		}
	}
	nd->nreq = 0;
	for (int i = 0; i < req->nrequired; i++) {
		int c = req->required[i];
		if (c < 0 || c >= p->nnodes || p->role[c] == 0 || p->role[c] == 3)
			never = true;
		else if (p->role[c] == 1) {
			p->role[c] = 2;
			nd->nreq++;
		}
	}
	for (int i = 0; i < req->nexcluded; i++)
		if (req->excluded[i] >= 0 && req->excluded[i] < p->nnodes)
			p->role[req->excluded[i]] = 0;
	if (never) {
		roles_clear(p, n);
		return 0;
	}
	return n;
}

time_t plan_window_end(time_t from, int64_t time_limit)
{
	if (time_limit == SCHED_TIME_INFINITE || time_limit < 0 || from > PLAN_NEVER - time_limit)
		return PLAN_NEVER;
	return from + (time_limit > 0 ? time_limit : 1);
}

static time_t round_up(const struct plan *p, time_t t)
{
	time_t r = t % p->resolution && t < PLAN_NEVER - p->resolution
			   ? t + (p->resolution - t % p->resolution) : t;
	return r > p->now ? r : p->now;
}

struct tally {
	int64_t sum;
	int req_ok;
};

/* Count node c in (again: anew), its view worked out over [from, to) if
 * full, else as it stands. */
static void tally_node(struct plan *p, const struct plan_try *t, const struct need *nd,
		       struct tally *ty, int c, time_t from, time_t to, bool again, bool full)
{
	if (again) {
		ty->sum -= p->contrib[c];
		if (p->role[c] == 2 && p->contrib[c] > 0)
			ty->req_ok--;
	}
	if (full)
		view_node(p, c, from, to, t->own_resv, &p->view[c]);
	p->contrib[c] = contrib_of(&p->view[c], nd, t->req);
	ty->sum += p->contrib[c];
	if (p->role[c] == 2 && p->contrib[c] > 0)
		ty->req_ok++;
}

static bool tally_fits(const struct need *nd, const struct tally *ty)
{
	return ty->sum >= nd->want && ty->req_ok == nd->nreq;
}

/* The node's window changed: its count again (full: its view too). */
static void dirty_add(struct plan *p, int *ndirty, int c, bool full)
{
	if (p->role[c] && p->stamp[c] != p->stamp_now) {
		p->stamp[c] = p->stamp_now;
		p->dirty[(*ndirty)++] = c;
		p->full[c] = 0;
	}
	if (full)
		p->full[c] = 1;
}

static void stamp_next(struct plan *p)
{
	if (++p->stamp_now == 0 || p->stamp_now == INT32_MAX) {
		memset(p->stamp, 0, (p->nnodes + 1) * sizeof(int));
		p->stamp_now = 1;
	}
}

time_t plan_earliest(struct plan *p, const struct plan_try *t, int *node, int *cpus, int *n,
		     uint32_t *gres, bool *never)
{
	struct need nd;
	struct tally ty = { 0, 0 };
	time_t from = t->earliest, found = -1;
	int nc;
	enum sched_fit fit;

	/* Now first, on the present state: most jobs that are to start do. */
	if (from == p->now) {
		time_t to = plan_window_end(from, t->time_limit);
		for (int i = 0; i < p->nspecial; i++)
			now_view_node(p, p->special[i], to, t->own_resv);
		fit = sched_select(p->now_view, t->cand, t->ncand, t->req, node, cpus, n, gres);
	} else {
		fit = sched_select(p->base, t->cand, t->ncand, t->req, node, cpus, n, gres);
		if (fit == SCHED_PICKED)
			fit = SCHED_BUSY;   /* only where its window allows */
	}
	*never = fit == SCHED_NEVER;
	if (fit == SCHED_PICKED)
		return from;
	if (fit == SCHED_NEVER || from > t->latest)
		return -1;
	mark_sync(&p->rel);
	mark_sync(&p->inc);
	need_of(t->req, &nd);
	nc = roles_mark(p, t, &nd);
	if (nc == 0)
		return -1;
	time_t to = plan_window_end(from, t->time_limit);
	for (int i = 0; i < nc; i++) {
		int c = p->cand_buf[i];
		if (from != p->now) {
			tally_node(p, t, &nd, &ty, c, from, to, false, true);
			continue;
		}
		p->view[c] = p->now_view[c];   /* worked out above */
		p->contrib[c] = contrib_of(&p->view[c], &nd, t->req);
		ty.sum += p->contrib[c];
		if (p->role[c] == 2 && p->contrib[c] > 0)
			ty.req_ok++;
	}
	int ri = mark_after(&p->rel, from, true), ii = mark_after(&p->inc, to, false);
	for (;;) {
		if (tally_fits(&nd, &ty) &&
		    sched_select(p->view, t->cand, t->ncand, t->req, node, cpus, n, gres) == SCHED_PICKED) {
			found = from;
			break;
		}
		time_t next = PLAN_NEVER;
		while (ri < p->rel.n && p->role[p->rel.m[ri].node] == 0)
			ri++;
		if (ri < p->rel.n)
			next = round_up(p, p->rel.m[ri].t);
		for (int r = 0; r < p->nresv; r++)
			if (r != t->own_resv && p->resv[r].end > from && round_up(p, p->resv[r].end) < next)
				next = round_up(p, p->resv[r].end);
		if (next == PLAN_NEVER || next > t->latest)
			break;
		time_t from_was = from, to_was = to;
		int ndirty = 0;
		from = next;
		to = plan_window_end(from, t->time_limit);
		stamp_next(p);
		for (; ri < p->rel.n && p->rel.m[ri].t <= from; ri++) {
			const struct plan_mark *m = &p->rel.m[ri];
			int c = m->node;
			if (!p->role[c])
				continue;
			if (p->last_hold[c] <= from_was) {
				/* no hold in its window before or now: its view is
				 * its allocation at the front, less what this gives
				 * back (the list need not be read) */
				struct sched_node *v = &p->view[c];
				int64_t mem = (int64_t)v->alloc_mem + m->mem;
				v->alloc_cpus = MAX(0, v->alloc_cpus + m->cpus);
				v->alloc_mem = mem > 0 ? (uint64_t)mem : 0;
				v->njobs = MAX(0, v->njobs - 1);
				for (int g = 0; g < SCHED_GRES_KINDS; g++)
					v->alloc_gres[g] = (uint16_t)MAX(0, v->alloc_gres[g] + m->gres[g]);
				dirty_add(p, &ndirty, c, false);
			} else {
				dirty_add(p, &ndirty, c, true);
			}
		}
		for (; ii < p->inc.n && p->inc.m[ii].t < to; ii++)
			dirty_add(p, &ndirty, p->inc.m[ii].node, true);
		for (int r = 0; r < p->nresv; r++) {
			const struct sched_resv *rv = &p->resv[r];
			if (r == t->own_resv ||
			    !((rv->end > from_was && rv->end <= from) || (rv->start >= to_was && rv->start < to)))
				continue;
			for (int k = 0; k < rv->nnodes; k++)
				if (rv->node[k] >= 0 && rv->node[k] < p->nnodes)
					dirty_add(p, &ndirty, rv->node[k], true);
		}
		for (int i = 0; i < ndirty; i++)
			tally_node(p, t, &nd, &ty, p->dirty[i], from, to, true, p->full[p->dirty[i]]);
	}
	roles_clear(p, nc);
	return found;
}

/* Does the job fit over [from, to)?  (roles marked) */
static bool fits_window(struct plan *p, const struct plan_try *t, const struct need *nd, int nc,
			time_t from, time_t to, int *node, int *cpus, int *n, uint32_t *gres)
{
	struct tally ty = { 0, 0 };
	for (int i = 0; i < nc; i++)
		tally_node(p, t, nd, &ty, p->cand_buf[i], from, to, false, true);
	return tally_fits(nd, &ty) &&
	       sched_select(p->view, t->cand, t->ncand, t->req, node, cpus, n, gres) == SCHED_PICKED;
}

static int time_cmp(const void *a, const void *b)
{
	time_t x = *(const time_t *)a, y = *(const time_t *)b;
	return (x > y) - (x < y);
}

int64_t plan_shrink(struct plan *p, const struct plan_try *t, int64_t time_min, int *node,
		    int *cpus, int *n, uint32_t *gres)
{
	struct need nd;
	time_t now = p->now, low = now + time_min, high = plan_window_end(now, t->time_limit);
	time_t *cut = NULL;
	int64_t limit = 0;
	int nc, ncut = 0;

	mark_sync(&p->rel);
	mark_sync(&p->inc);
	need_of(t->req, &nd);
	nc = roles_mark(p, t, &nd);
	if (nc <= 0 || time_min <= 0 || low >= high)
		goto out;
	if (!fits_window(p, t, &nd, nc, now, low, node, cpus, n, gres))
		goto out;
	/* The times where the job's window may stop fitting: planned holds
	 * and reservations starting on its candidates.  The largest limit
	 * that fits ends at one of them. */
	cut = xmalloc((p->inc.n + p->nresv + 1) * sizeof(*cut));
	for (int i = mark_after(&p->inc, low, false); i < p->inc.n && p->inc.m[i].t < high; i++)
		if (p->role[p->inc.m[i].node])
			cut[ncut++] = p->inc.m[i].t;
	for (int r = 0; r < p->nresv; r++)
		if (r != t->own_resv && p->resv[r].start >= low && p->resv[r].start < high &&
		    p->resv[r].end > now)
			cut[ncut++] = p->resv[r].start;
	if (ncut == 0)
		goto out;
	qsort(cut, ncut, sizeof(*cut), time_cmp);
	int lo = 0, hi = ncut - 1;   /* cut[lo] fits */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (fits_window(p, t, &nd, nc, now, cut[mid], node, cpus, n, gres))
			lo = mid;
		else
			hi = mid - 1;
	}
	if (fits_window(p, t, &nd, nc, now, cut[lo], node, cpus, n, gres))
		limit = cut[lo] - now;
out:
	free(cut);
	roles_clear(p, nc);
	return limit;
}
