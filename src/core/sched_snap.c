/* The scheduler's snapshot (sched_snap.h): the controller's nodes, running
 * jobs, eligible pending jobs in rank order and reservations, copied into
 * src/sched/pass.h's plain data so that a pass may run off the loop thread.
 * Built in the loop thread; which jobs may go is sched_eligible.c's
 * business, what the pass decides pass.c's, applying it sched.c's. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/licenses.h"
#include "core/part_limits.h"
#include "core/prio.h"
#include "core/resv.h"
#include "core/sched_snap.h"
#include "sched/feature.h"

/* At most this many entries of one array's meta record in one pass: each
 * is one more task that may start (or be planned) in it. */
#define ARRAY_ENTRIES_MAX 100

/* ---- what the pass is given ------------------------------------------ */

bool snap_node_usable(const struct node *n)
{
	return n->registered && !n->not_responding && !n->drain &&
	       (n->state == NODE_IDLE || n->state == NODE_MIXED || n->state == NODE_ALLOCATED);
}

struct sched_node *snap_nodes(void)
{
	struct sched_node *sn = xmalloc((core.nnodes ? core.nnodes : 1) * sizeof(*sn));
	for (int i = 0; i < core.nnodes; i++) {
		const struct node *n = &core.nodes[i];
		sn[i] = (struct sched_node){
			.cpus = n->cpus, .alloc_cpus = n->alloc_cpus, .memory = n->real_memory,
			.alloc_mem = n->alloc_mem, .njobs = n->njobs, .usable = snap_node_usable(n),
			.tmp_disk = n->conf->tmp_disk, .sockets = n->sockets,   /* all its boards' */
			.cores = n->cores, .threads = n->threads,
		};
		if (n->ngres_slots)
			node_gres_counts(n, sn[i].gres, sn[i].alloc_gres);
	}
	part_limits_nodes(sn);   /* partition limits: whose jobs hold them (ExclusiveUser) */
	return sn;
}

static bool part_up(const struct part *p)
{
	return !p->removed && (!p->conf->state || !strcasecmp(p->conf->state, "UP"));
}

/* GRES items, and what --cpus-per-gpu and --mem-per-gpu make of the
 * per-node and per-task ones (CPUs on each node, CPUs per task). */
static void gres_req(const struct job *job, struct sched_req *req)
{
	req->gres = job_gres_sched(job, &req->ngres);
	req->cpus_per_gpu = job->cpus_per_gpu;
	req->mem_per_gpu = job->mem_per_gpu;
	for (int g = 0; g < req->ngres && job->cpus_per_gpu; g++) {
		const struct sched_gres *it = &req->gres[g];
		if (!it->gpu)
			continue;
		int64_t node_cpus = sched_mul(it->per_node, job->cpus_per_gpu);
		int64_t task_cpus = sched_mul(it->per_task, job->cpus_per_gpu);
		if (node_cpus > req->mincpus)
			req->mincpus = node_cpus > INT32_MAX ? INT32_MAX : (int)node_cpus;
		if (task_cpus > req->cpus_per_task)
			req->cpus_per_task = task_cpus > INT32_MAX ? INT32_MAX : (int)task_cpus;
	}
}

struct sched_req snap_job_req(const struct job *job)
{
	struct sched_req req = {
		/* -O: CPUs as for one task per node (sbatch(1)) */
		.nodes = job->req_nodes, .ntasks = job->overcommit ? 0 : job->ntasks,
		.cpus_per_task = job->cpus_per_task,
		.mem_per_node = job->mem_mb, .mem_per_cpu = job->mem_per_cpu,
		.exclusive = job->exclusive, .required = job->req_idx, .nrequired = job->nreq_idx,
		.excluded = job->exc_idx, .nexcluded = job->nexc_idx,
		.max_nodes = job->max_nodes, .use_min_nodes = job->use_min_nodes,
		.spread = job->spread_job, .mincpus = job->mincpus, .tmp_mb = job->tmp_mb,
		.sockets = job->sockets_per_node, .cores = job->cores_per_socket,
		.threads = job->threads_per_core,
	};
	if (job->ngres)
		gres_req(job, &req);
	return req;
}

/* The partition's nodes that satisfy the constraint expr (NULL: all), into cand. */
int snap_candidates(const char *expr, const struct part *p, int *cand)
{
	int n = 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct node *nd = &core.nodes[p->node_idx[i]];
		if (!expr || feature_match(expr, nd->conf->features) == 1)
			cand[n++] = p->node_idx[i];
	}
	return n;
}

/* ---- the snapshot ----------------------------------------------------- */

struct snap_cand {
	struct snap_cand *next;
	int part;
	char *expr;
	int *cand;
	int n;
};

static void *own(struct sched_snap *s, void *p)
{
	if (s->nown == s->capown) {
		s->capown = s->capown ? 2 * s->capown : 256;
		s->own = xrealloc(s->own, s->capown * sizeof(*s->own));
	}
	s->own[s->nown++] = p;
	return p;
}

static void *own_dup(struct sched_snap *s, const void *p, size_t size)
{
	if (!size)
		return NULL;
	void *c = xmalloc(size);
	memcpy(c, p, size);
	return own(s, c);
}

/* The nodes of partition pi that satisfy expr, shared by every job asking the same. */
static const struct snap_cand *cand_get(struct sched_snap *s, int pi, const char *expr)
{
	for (struct snap_cand *c = s->cands; c; c = c->next)
		if (c->part == pi && (c->expr == expr || (c->expr && expr && !strcmp(c->expr, expr))))
			return c;
	const struct part *p = &core.parts[pi];
	struct snap_cand *c = xmalloc(sizeof(*c));
	c->part = pi;
	c->expr = expr ? xstrdup(expr) : NULL;
	c->cand = xmalloc((p->nnodes + 1) * sizeof(int));
	c->n = snap_candidates(expr, p, c->cand);
	c->next = s->cands;
	s->cands = c;
	return c;
}

enum job_reason snap_part_skip_reason(const struct job *job, const struct part *p)
{
	if (!part_up(p))
		return p->conf->state && !strcasecmp(p->conf->state, "INACTIVE") ? REASON_PART_INACTIVE
										 : REASON_PART_DOWN;
	return part_limits_check(job, p);   /* MaxTime, MaxNodes, Allow*, Deny* */
}

/* The job's places: one per (partition x matching-OR feature set), in the
 * user's partition order; partitions it may not use now are left out, the
 * first one's reason in *skip. */
static int job_alts(struct sched_snap *s, const struct job *job, struct sched_alt **out,
		    enum job_reason *skip)
{
	int nparts, nalt = 0, cap = 0;
	struct part *const *parts = job_parts(job, &nparts);
	struct sched_alt *alt = NULL;
	char **fors = NULL;
	int nfors = feature_matching_or(job->features, &fors);

	*skip = REASON_NONE;
	for (int k = 0; k < nparts; k++) {
		enum job_reason r = snap_part_skip_reason(job, parts[k]);
		if (r != REASON_NONE) {
			if (*skip == REASON_NONE)
				*skip = r;
			continue;
		}
		int pi = (int)(parts[k] - core.parts);
		if (nparts == 1 && !nfors && !job->features) {
			/* the common case: one partition, one node set, shared */
			if (!s->part_alt)
				s->part_alt = xmalloc((core.nparts + 1) * sizeof(*s->part_alt));
			if (!s->part_alt[pi]) {
				const struct snap_cand *c = cand_get(s, pi, job->features);
				s->part_alt[pi] = own(s, xmalloc(sizeof(struct sched_alt)));
				*s->part_alt[pi] = (struct sched_alt){ .part = pi, .cand = c->cand,
								      .ncand = c->n };
			}
			free(fors);
			*out = s->part_alt[pi];
			return 1;
		}
		for (int f = 0; f < (nfors ? nfors : 1); f++) {
			const struct snap_cand *c = cand_get(s, pi, nfors ? fors[f] : job->features);
			if (nalt == cap) {
				cap = cap ? 2 * cap : 2;
				alt = xrealloc(alt, cap * sizeof(*alt));
			}
			alt[nalt++] = (struct sched_alt){ .part = pi, .cand = c->cand, .ncand = c->n };
		}
	}
	for (int f = 0; f < nfors; f++)
		free(fors[f]);
	free(fors);
	*out = alt ? own(s, alt) : NULL;
	return nalt;
}

/* ---- the entries' arrays ---------------------------------------------- */

/* The per-entry arrays of the last whole-queue snapshot, kept for the
 * next one (snapshots are made and destroyed in the loop thread only).  At
 * 100,000 jobs they are some 22 MB, and every fresh page costs a page
 * fault, 10 to 20 us on our VMs, more than filling it: without them two
 * thirds of the whole-queue pass went on those.  Made with room for twice
 * the jobs, so that a queue that grows keeps them (pages not written cost
 * nothing); let go when the queue is below a quarter of that room. */
static struct sched_snap spare;

static void entries_alloc(struct sched_snap *s, int cap, bool whole)
{
	s->whole = whole;
	if (whole && spare.jobs && spare.cap >= cap && spare.cap / 4 <= cap) {
		s->cap = spare.cap;
		s->jobs = spare.jobs;
		s->per_task = spare.per_task;
		s->skip = spare.skip;
		s->who = spare.who;
		s->out = spare.out;   /* all node/cpus NULL: sched_decisions_free */
		spare = (struct sched_snap){ 0 };
		return;
	}
	s->cap = whole && cap < INT_MAX / 2 ? 2 * cap : cap;
	s->jobs = xmalloc(s->cap * sizeof(*s->jobs));
	s->per_task = xmalloc(s->cap * sizeof(*s->per_task));
	s->skip = xmalloc(s->cap * sizeof(*s->skip));
	s->who = xmalloc(s->cap * sizeof(*s->who));
	s->out = xmalloc(s->cap * sizeof(*s->out));
}

static void entries_grow(struct sched_snap *s)
{
	int old = s->cap;
	s->cap = s->cap ? 2 * s->cap : 256;
	s->jobs = xrealloc(s->jobs, s->cap * sizeof(*s->jobs));
	s->per_task = xrealloc(s->per_task, s->cap * sizeof(*s->per_task));
	s->skip = xrealloc(s->skip, s->cap * sizeof(*s->skip));
	s->who = xrealloc(s->who, s->cap * sizeof(*s->who));
	s->out = xrealloc(s->out, s->cap * sizeof(*s->out));
	memset(s->out + old, 0, (s->cap - old) * sizeof(*s->out));
}

static void arrays_free(struct sched_snap *s)
{
	free(s->jobs);
	free(s->per_task);
	free(s->skip);
	free(s->who);
	free(s->out);
}

static void entries_free(struct sched_snap *s)
{
	sched_decisions_free(s->out, s->njobs);
	if (!s->whole) {
		arrays_free(s);
		return;
	}
	arrays_free(&spare);   /* the next whole-queue snapshot takes these instead */
	spare = (struct sched_snap){ .cap = s->cap, .jobs = s->jobs, .per_task = s->per_task,
				     .skip = s->skip, .who = s->who, .out = s->out };
}

static void add_entry(struct sched_snap *s, const struct job *job, const struct sched_alt *alt,
		      int nalt, bool per_task, enum job_reason skip, time_t now)
{
	if (s->njobs == s->cap)
		entries_grow(s);
	s->who[s->njobs] = (struct job *)job;
	struct sched_req req = snap_job_req(job);
	/* What its partition adds (whole nodes, ExclusiveUser): one request
	 * for all its alternatives, so the first partition's. */
	part_limits_req(job, &core.parts[alt[0].part], &req);
	req.required = own_dup(s, job->req_idx, job->nreq_idx * sizeof(int));
	req.excluded = own_dup(s, job->exc_idx, job->nexc_idx * sizeof(int));
	if (req.ngres)
		req.gres = own_dup(s, req.gres, req.ngres * sizeof(*req.gres));
	s->jobs[s->njobs] = (struct sched_job){
		.id = job->id, .user = job->uid, .req = req, .alt = alt, .nalt = nalt,
		.time_limit = job->time_limit < 0 ? SCHED_TIME_INFINITE : job->time_limit,
		.time_min = job->time_min > 0 ? job->time_min : 0,
		.resv = resv_job_index(job, now),
	};
	if (job->lic) {   /* -L (licenses.c) */
		struct sched_job *sj = &s->jobs[s->njobs];
		struct sched_lic *lic = licenses_snap_job(job, &sj->nlic, &sj->lic_any);
		sj->lic = lic ? own(s, lic) : NULL;
	}
	s->per_task[s->njobs] = per_task;
	s->skip[s->njobs] = (int)skip;
	s->njobs++;
}

struct ranked {
	struct job *job;
	uint32_t priority, id;       /* the job's, here for a sort without pointer chasing */
	int tier;                    /* the highest PriorityTier of its partitions */
};

struct collect {
	struct ranked *r;
	size_t n, cap;
	struct sched_snap *s;
	time_t now;
};

static int job_tier(const struct job *job)
{
	int nparts, tier = 0;
	struct part *const *parts = job_parts(job, &nparts);
	for (int k = 0; k < nparts; k++)
		if (k == 0 || parts[k]->conf->priority_tier > tier)
			tier = parts[k]->conf->priority_tier;
	return tier;
}

static void collect(struct job *job, void *arg)
{
	struct collect *c = arg;
	struct sched_snap *s = c->s;

	if ((job->state == JOB_RUNNING || job->state == JOB_COMPLETING ||
	     job->state == JOB_SUSPENDED) && job->nalloc) {
		struct sched_run *r;
		if (s->nrun % 256 == 0)
			s->run = xrealloc(s->run, (s->nrun + 256) * sizeof(*s->run));
		r = &s->run[s->nrun++];
		uint64_t *mem = own(s, xmalloc(job->nalloc * sizeof(uint64_t)));
		for (int i = 0; i < job->nalloc; i++)
			mem[i] = job_node_mem(job, i);
		time_t end = job->time_limit < 0 ? 0 : job->start_time + job->time_limit;
		time_t stop = resv_job_stop(job);   /* its reservation ends it then */
		if (stop && (!end || stop < end))
			end = stop;
		if (end && end <= c->now)
			end = c->now + 1;   /* past its limit, being ended: any moment */
		int *cpus = own(s, xmalloc((job->nalloc + 1) * sizeof(int)));
		for (int i = 0; i < job->nalloc; i++)
			cpus[i] = job_node_charge(job, i);   /* -s: its share of them */
		if (job->cpus_lent)   /* suspended, its CPUs counted free now (node_lend): none to give back */
			memset(cpus, 0, job->nalloc * sizeof(int));
		*r = (struct sched_run){
			.node = own_dup(s, job->alloc_node, job->nalloc * sizeof(int)),
			.cpus = cpus,
			.mem = mem, .n = job->nalloc, .end = end,
		};
		if (job->alloc_gres)   /* its GRES, given back at its end */
			r->gres = own(s, job_gres_kinds(job));
		if (job->lic) {   /* the licenses it holds until then */
			struct sched_lic *lic = licenses_snap_held(job, &r->nlic);
			r->lic = lic ? own(s, lic) : NULL;
		}
	}
	if (job->state != JOB_PENDING || !job->durable)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->r = xrealloc(c->r, c->cap * sizeof(*c->r));
	}
	c->r[c->n++] = (struct ranked){ job, job->priority, job->id, job_tier(job) };
}

/* PriorityTier (highest of the job's partitions) first, then priority,
 * then the older job. */
static inline int rank_cmp(const struct ranked *x, const struct ranked *y)
{
	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_rank(const void *a, const void *b)
{
	return rank_cmp(a, b);
}

/* The jobs in rank order, one at a time: a heap, so that a pass over the
 * first default_queue_depth of 100,000 jobs does not sort them all. */
struct order {
	struct ranked *r;
	size_t n;
	bool sorted;                 /* the whole queue: qsort, then in turn */
	size_t next;
};

static void sift_down(struct ranked *r, size_t n, size_t i)
{
	for (;;) {
		size_t best = i, l = 2 * i + 1, rt = l + 1;
		if (l < n && rank_cmp(&r[l], &r[best]) < 0)
			best = l;
		if (rt < n && rank_cmp(&r[rt], &r[best]) < 0)
			best = rt;
		if (best == i)
			return;
		struct ranked t = r[i];
		r[i] = r[best];
		r[best] = t;
		i = best;
	}
}

static void order_init(struct order *o, struct ranked *r, size_t n, bool whole)
{
	*o = (struct order){ .r = r, .n = n, .sorted = whole };
	if (whole) {
		if (n)
			qsort(r, n, sizeof(*r), by_rank);
		return;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(r, n, i);
}

static const struct ranked *order_next(struct order *o)
{
	if (o->sorted)
		return o->next < o->n ? &o->r[o->next++] : NULL;
	if (!o->n)
		return NULL;
	struct ranked t = o->r[0];   /* the top goes to the end, out of the heap */
	o->r[0] = o->r[--o->n];
	o->r[o->n] = t;
	sift_down(o->r, o->n, 0);
	return &o->r[o->n];
}

/* An array's meta record goes in as up to k identical entries: each may
 * start (or be planned as) one more task. */
static int array_entries(const struct job *meta)
{
	uint32_t k = bitmap_count(meta->array_pending);
	if (meta->array_throttle) {
		uint32_t running = sched_array_running(meta);
		uint32_t room = running < meta->array_throttle ? meta->array_throttle - running : 0;
		if (room < k)
			k = room;
	}
	return k < ARRAY_ENTRIES_MAX ? (int)k : ARRAY_ENTRIES_MAX;
}

static void add_job(struct sched_snap *s, struct job *job, bool per_task, time_t now, int depth)
{
	struct sched_alt *alt;
	enum job_reason skip;
	int nalt = job_alts(s, job, &alt, &skip);

	if (!nalt) {
		job->reason = skip != REASON_NONE ? skip : REASON_PART_DOWN;
		return;
	}
	int k = array_is_meta(job) ? array_entries(job) : 1;
	if (depth && k > depth - s->njobs)
		k = depth - s->njobs;
	for (int i = 0; i < k; i++)
		add_entry(s, job, alt, nalt, per_task, skip, now);
}

/* A heterogeneous job goes in whole, at its leader's place: each component
 * an entry, side by side, the first saying how many (pass.h).  Only when
 * every component may go (each one's reason says why not). */
static void add_het(struct sched_snap *s, struct job *leader, time_t now, int depth)
{
	uint32_t n = leader->het_size;
	struct job **c = xmalloc((n + 1) * sizeof(*c));
	struct sched_alt **alt = xmalloc((n + 1) * sizeof(*alt));
	int *nalt = xmalloc((n + 1) * sizeof(int));
	enum job_reason *skip = xmalloc((n + 1) * sizeof(*skip));
	bool ok = n > 1 && (!depth || s->njobs + (int)n <= depth);

	for (uint32_t k = 0; k < n && ok; k++) {
		bool per_task = false;
		c[k] = het_component(leader->het_job_id, k);
		ok = c[k] && c[k]->state == JOB_PENDING && c[k]->durable &&
		     sched_eligible(c[k], now, &per_task, &s->wake);
	}
	for (uint32_t k = 0; k < n && ok; k++) {
		nalt[k] = job_alts(s, c[k], &alt[k], &skip[k]);
		if (!nalt[k]) {
			c[k]->reason = skip[k] != REASON_NONE ? skip[k] : REASON_PART_DOWN;
			ok = false;
		}
	}
	if (ok) {
		int first = s->njobs;
		for (uint32_t k = 0; k < n; k++)
			add_entry(s, c[k], alt[k], nalt[k], false, skip[k], now);
		s->jobs[first].together = (int)n;
	}
	free(c);
	free(alt);
	free(nalt);
	free(skip);
}

struct sched_snap *snap_create(bool backfill, int depth, time_t now, const struct job *extra)
{
	struct sched_snap *s = xmalloc(sizeof(*s));
	struct collect c = { .s = s, .now = now };
	const struct sched_resv *resv;

	s->extra = -1;
	s->gen = sched_generation;
	s->params = (struct sched_params){
		.now = now, .backfill = backfill, .window = sched_conf.bf_window * 60,
		.resolution = sched_conf.bf_resolution,
		.max_job_test = backfill ? sched_conf.bf_max_job_test : depth,
		.max_job_user = backfill ? sched_conf.bf_max_job_user : 0,
		.max_reservations = 0, .nparts = core.nparts,
		.nlic = licenses_count(), .lic_plan = licenses_plan(),
	};
	int64_t *lic_free = licenses_snap_free();
	s->params.lic_free = lic_free ? own(s, lic_free) : NULL;
	s->nodes = snap_nodes();
	s->nnodes = core.nnodes;
	prio_update(now);
	job_foreach(collect, &c);
	struct order o;
	order_init(&o, c.r, c.n, !depth);
	/* room for them all at once (an array's entries may ask for more) */
	entries_alloc(s, (depth && (size_t)depth < c.n ? (size_t)depth : c.n) + 2, !backfill && !depth);
	struct ranked x = { (struct job *)extra, extra ? extra->priority : 0, extra ? extra->id : 0,
			    extra ? job_tier(extra) : 0 };
	const struct ranked *next;
	while ((!depth || s->njobs < depth) && (next = order_next(&o))) {
		struct job *job = next->job;
		bool per_task = false;
		if (extra && s->extra < 0 && rank_cmp(&x, next) < 0) {
			s->extra = s->njobs;
			add_job(s, x.job, false, now, 0);
		}
		if (job->het_job_id) {   /* the leader brings the others */
			if (job->het_job_offset == 0 && job->state == JOB_PENDING)
				add_het(s, job, now, depth);
			continue;
		}
		if (job->state == JOB_PENDING && sched_eligible(job, now, &per_task, &s->wake))
			add_job(s, job, per_task, now, depth);
	}
	if (extra && s->extra < 0) {
		s->extra = s->njobs;
		add_job(s, x.job, false, now, 0);
	}
	if (extra && (s->extra >= s->njobs || s->jobs[s->extra].id != extra->id))
		s->extra = -1;   /* no partition takes it now */
	free(c.r);
	s->nresv = resv_sched_list(now, &resv);
	if (s->nresv > 0) {
		s->resv = xmalloc(s->nresv * sizeof(*s->resv));
		for (int i = 0; i < s->nresv; i++) {
			s->resv[i] = resv[i];
			s->resv[i].node = own_dup(s, resv[i].node, resv[i].nnodes * sizeof(int));
			struct sched_lic *lic = licenses_snap_spec(resv_licenses(i), &s->resv[i].nlic);
			s->resv[i].lic = lic ? own(s, lic) : NULL;
		}
	} else {
		s->nresv = 0;
	}
	return s;
}

void snap_destroy(struct sched_snap *s)
{
	if (!s)
		return;
	entries_free(s);
	for (int i = 0; i < s->nown; i++)
		free(s->own[i]);
	free(s->own);
	for (struct snap_cand *c = s->cands, *next; c; c = next) {
		next = c->next;
		free(c->expr);
		free(c->cand);
		free(c);
	}
	free(s->nodes);
	free(s->run);
	free(s->resv);
	free(s->part_alt);
	free(s);
}
