/* First-fit node selection in configuration order (topology-aware placement
 * comes with topology/tree), required nodes (-w) first.  With -N, every node
 * gets ceil(ntasks/N) tasks' worth of CPUs; without it, one node that holds
 * the whole job is preferred, else nodes are filled in order.  A job asking
 * for nodes by name gets at least that many nodes, as in Slurm; one with
 * sbatch --batch gets at least one node with those features. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sched/select.h"

static int free_cpus(const struct sched_node *n, bool empty)
{
	return empty ? n->cpus : n->cpus - n->alloc_cpus;
}

/* The CPUs the job may have on the node: its free ones, or with -s each
 * free one share times over (never more than the node has). */
static int64_t room_cpus(const struct sched_node *n, const struct sched_req *req, bool empty)
{
	int64_t f = free_cpus(n, empty);
	if (req->share > 1) {
		f = sched_mul(f, req->share);
		if (f > n->cpus)
			f = n->cpus;
	}
	return f;
}

static uint64_t free_mem(const struct sched_node *n, bool empty)
{
	return empty ? n->memory : n->memory - n->alloc_mem;
}

/* ---- GRES ---- */

/* Free units of the kinds on the node. */
static int64_t gres_free(const struct sched_node *n, uint32_t kinds, bool empty)
{
	int64_t f = 0;
	for (int k = 0; k < SCHED_GRES_KINDS; k++)
		if (kinds & (1u << k))
			f += n->gres[k] - (empty ? 0 : n->alloc_gres[k]);
	return f;
}

int64_t sched_gres_tasks(const struct sched_node *n, const struct sched_req *req, bool empty,
			  bool whole)
{
	int64_t tasks = INT32_MAX;
	for (int g = 0; g < req->ngres; g++) {
		const struct sched_gres *it = &req->gres[g];
		int64_t all = gres_free(n, it->kinds, empty), f = all - it->per_node;
		if (f < 0 || (whole && all < it->per_job))   /* --gpus: the total, per-node ones in it */
			return -1;
		if (it->per_task && f / it->per_task < tasks)
			tasks = f / it->per_task;
	}
	return tasks;
}

/* Units the node could add to the per_job items still wanted (left). */
static bool gres_adds(const struct sched_node *n, const struct sched_req *req, bool empty,
		      const int64_t *left)
{
	for (int g = 0; g < req->ngres; g++)
		if (left[g] > 0 && gres_free(n, req->gres[g].kinds, empty) > req->gres[g].per_node)
			return true;
	return false;
}

static int64_t room_cpus(const struct sched_node *n, const struct sched_req *req, bool empty);
static uint64_t free_mem(const struct sched_node *n, bool empty);

/* srun's block layout of the tasks over a pick, node after node: one on
 * each node, then each filled in order (as many as its CPUs hold and its
 * GPUs allow). */
struct layout {
	int64_t cpt, based, rem;
};

static void layout_init(struct layout *l, const struct sched_req *req, int n)
{
	int64_t ntasks = req->ntasks > 0 ? req->ntasks : n;
	l->cpt = req->cpus_per_task > 0 ? req->cpus_per_task : 1;
	l->based = ntasks < n ? ntasks : n;
	l->rem = ntasks - l->based;
}

static int64_t layout_next(struct layout *l, const struct sched_node *nd, const struct sched_req *req,
			   bool empty, int k, int cpus)
{
	int64_t cap = cpus / l->cpt, by_gres = sched_gres_tasks(nd, req, empty, false);
	if (by_gres < cap)   /* an exclusive job's CPUs are more than its GPUs' tasks */
		cap = by_gres < 1 ? 1 : by_gres;
	int64_t tasks = k < l->based, more = cap - tasks;
	if (more > l->rem)
		more = l->rem;
	if (more > 0) {
		tasks += more;
		l->rem -= more;
	}
	return tasks;
}

/* The GPUs node nd can give with their --cpus-per-gpu CPUs (no limit: INT64_MAX). */
static int64_t gpus_by_cpus(const struct sched_node *nd, const struct sched_req *req, bool empty)
{
	return req->cpus_per_gpu ? room_cpus(nd, req, empty) / req->cpus_per_gpu : INT64_MAX;
}

bool sched_gres_split(const struct sched_node *nodes, const struct sched_req *req, bool empty,
		      const int *node, int *cpus, int n, uint32_t *out)
{
	int64_t jleft[SCHED_GRES_ITEMS] = { 0 };
	struct layout l;

	if (!req->ngres)
		return true;
	/* --gpus is the job's total: what the per-node and per-task counts
	 * give counts toward it (sbatch(1)) */
	for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++)
		jleft[g] = req->gres[g].per_job;
	layout_init(&l, req, n);
	for (int k = 0; k < n; k++) {
		int64_t tasks = layout_next(&l, &nodes[node[k]], req, empty, k, cpus[k]);
		for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++)
			jleft[g] -= req->gres[g].per_node + sched_mul(tasks, req->gres[g].per_task);
	}
	layout_init(&l, req, n);
	for (int k = 0; k < n; k++) {
		const struct sched_node *nd = &nodes[node[k]];
		int64_t fk[SCHED_GRES_KINDS], gpus = 0, gpu_room = gpus_by_cpus(nd, req, empty);
		int64_t tasks = layout_next(&l, nd, req, empty, k, cpus[k]);
		for (int kd = 0; kd < SCHED_GRES_KINDS; kd++)
			fk[kd] = nd->gres[kd] - (empty ? 0 : nd->alloc_gres[kd]);
		for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++) {
			const struct sched_gres *it = &req->gres[g];
			int64_t want = it->per_node + sched_mul(tasks, it->per_task), have = 0;
			for (int kd = 0; kd < SCHED_GRES_KINDS; kd++)
				if (it->kinds & (1u << kd))
					have += fk[kd];
			if (have < want)
				return false;
			int64_t extra = have - want < jleft[g] ? have - want : jleft[g];
			if (it->gpu && extra > gpu_room - gpus - want)   /* as many as their CPUs allow */
				extra = gpu_room - gpus - want;
			if (extra < 0)
				extra = 0;
			jleft[g] -= extra;
			int64_t take = want + extra;
			out[k * req->ngres + g] = (uint32_t)take;
			if (it->gpu)
				gpus += take;
			for (int kd = 0; kd < SCHED_GRES_KINDS && take > 0; kd++)
				if ((it->kinds & (1u << kd)) && fk[kd] > 0) {
					int64_t t = fk[kd] < take ? fk[kd] : take;
					fk[kd] -= t;
					take -= t;
				}
		}
		int64_t want_cpus = sched_mul(gpus, req->cpus_per_gpu);
		if (want_cpus > cpus[k]) {   /* --cpus-per-gpu of --gpus */
			if (want_cpus > room_cpus(nd, req, empty))
				return false;
			cpus[k] = (int)want_cpus;
		}
		if (req->mem_per_gpu && sched_umul(req->mem_per_gpu, (uint64_t)gpus) > free_mem(nd, empty))
			return false;
	}
	for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++)
		if (jleft[g] > 0)
			return false;
	return true;
}

uint64_t sched_mem_on(const struct sched_req *req, int cpus, const uint32_t *gres)
{
	if (req->mem_per_gpu && gres) {
		uint64_t gpus = 0;
		for (int g = 0; g < req->ngres; g++)
			if (req->gres[g].gpu)
				gpus += gres[g];
		return sched_umul(req->mem_per_gpu, gpus);
	}
	return req->mem_per_cpu ? sched_umul(req->mem_per_cpu, (uint64_t)(cpus > 0 ? cpus : 0))
				: req->mem_per_node;
}

void sched_gres_kinds(const struct sched_node *n, const struct sched_req *req, const uint32_t *gres,
		      uint16_t *kinds)
{
	memset(kinds, 0, SCHED_GRES_KINDS * sizeof(*kinds));
	for (int g = 0; gres && g < req->ngres; g++) {
		int64_t c = gres[g];
		int first = -1;
		for (int k = 0; k < SCHED_GRES_KINDS && c > 0; k++) {
			if (!(req->gres[g].kinds & (1u << k)))
				continue;
			if (first < 0)
				first = k;
			int64_t f = (int64_t)n->gres[k] - n->alloc_gres[k] - kinds[k];
			int64_t t = f < c ? f : c;
			if (t > 0) {
				kinds[k] += (uint16_t)t;
				c -= t;
			}
		}
		if (c > 0 && first >= 0)   /* more than is free: counted all the same */
			kinds[first] += (uint16_t)(c > UINT16_MAX ? UINT16_MAX : c);
	}
}

bool sched_node_kind_ok(const struct sched_node *n, const struct sched_req *req)
{
	return n->tmp_disk >= req->tmp_mb && n->cpus >= req->mincpus &&
	       (!req->sockets || n->sockets >= req->sockets) &&
	       (!req->cores || n->cores >= req->cores) && (!req->threads || n->threads >= req->threads);
}

static bool node_ok(const struct sched_node *n, const struct sched_req *req, bool empty)
{
	if (!sched_node_kind_ok(n, req) || room_cpus(n, req, empty) < req->mincpus)
		return false;
	if (!empty && !n->usable)
		return false;
	if (req->exclusive && !empty && n->njobs > 0)
		return false;
	if (req->ngres && sched_gres_tasks(n, req, empty, false) < 0)
		return false;
	/* ExclusiveUser: one user's jobs at a time on a node of such a job */
	if (!empty && n->njobs > 0 && (n->user_owned || req->exclusive_user) &&
	    (!n->user || n->user != req->user))
		return false;
	return req->mem_per_node <= free_mem(n, empty);
}

/* Does this many CPUs' memory fit (--mem-per-cpu)? */
static bool mem_fits(const struct sched_node *n, const struct sched_req *req, int64_t cpus, bool empty)
{
	return sched_umul(req->mem_per_cpu, cpus > 0 ? (uint64_t)cpus : 0) <= free_mem(n, empty);
}

/* How many whole tasks the node can take (CPUs and memory). */
static int task_room(const struct sched_node *n, const struct sched_req *req, int cpt, bool empty)
{
	int tasks = (int)(room_cpus(n, req, empty) / cpt);
	if (req->mem_per_cpu) {
		uint64_t by_mem = free_mem(n, empty) / sched_umul(req->mem_per_cpu, (uint64_t)cpt);
		if (by_mem < (uint64_t)tasks)
			tasks = (int)by_mem;
	}
	if (req->ngres) {
		int64_t by_gres = sched_gres_tasks(n, req, empty, false);
		if (by_gres < tasks)
			tasks = (int)(by_gres < 0 ? 0 : by_gres);
	}
	return tasks;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static bool batch_node_ok(const struct sched_req *req, int node)
{
	return bsearch(&node, req->batch, req->nbatch, sizeof(int), int_cmp) != NULL;
}

static bool in_set(const int *set, int n, int node)
{
	for (int i = 0; i < n; i++)
		if (set[i] == node)
			return true;
	return false;
}

/* The order nodes are tried in: the required ones, then the other candidates
 * that are not excluded.  Returns the count, or -1 when a required node
 * cannot be had at all. */
static int node_order(const int *cand, int ncand, const struct sched_req *req, int *order)
{
	int n = 0;
	for (int i = 0; i < req->nrequired; i++) {
		int r = req->required[i];
		if (!in_set(cand, ncand, r) || in_set(req->excluded, req->nexcluded, r))
			return -1;
		if (!in_set(order, n, r))
			order[n++] = r;
	}
	for (int i = 0; i < ncand; i++)
		if (!in_set(req->required, req->nrequired, cand[i]) &&
		    !in_set(req->excluded, req->nexcluded, cand[i]))
			order[n++] = cand[i];
	return n;
}

/* --spread-job without -N: one task on each node that has room for one,
 * on as many nodes as there are tasks, then the rest a task at a time
 * round the same nodes (each within its room). */
static bool spread_pick(const struct sched_node *nodes, const int *cand, int ncand,
			const struct sched_req *req, bool empty, int64_t ntasks, int64_t cpt,
			int *out_node, int *out_cpus, int *out_n)
{
	int *room = malloc((ncand + 1) * sizeof(int)), *count = malloc((ncand + 1) * sizeof(int));
	int n = 0;
	bool ok = false;

	if (!room || !count)
		goto out;
	for (int i = 0; i < ncand && n < ntasks; i++) {
		const struct sched_node *nd = &nodes[cand[i]];
		int tasks = node_ok(nd, req, empty) ? task_room(nd, req, (int)cpt, empty) : 0;
		if (tasks > 0 && req->exclusive && !mem_fits(nd, req, nd->cpus, empty))
			tasks = 0;
		if (tasks <= 0) {
			if (i < req->nrequired)
				goto out;   /* a required node must be had */
			continue;
		}
		out_node[n] = cand[i];
		room[n] = tasks;
		count[n++] = 1;
	}
	int64_t left = ntasks - n;
	for (bool more = true; left > 0 && more;) {
		more = false;
		for (int k = 0; k < n && left > 0; k++)
			if (count[k] < room[k]) {
				count[k]++;
				left--;
				more = true;
			}
	}
	if (left > 0 || n == 0)
		goto out;
	for (int k = 0; k < n; k++) {
		int64_t take = req->exclusive ? nodes[out_node[k]].cpus : count[k] * cpt;
		if (take < req->mincpus)
			take = req->mincpus;
		if (take > count[k] * cpt && !mem_fits(&nodes[out_node[k]], req, take, empty))
			goto out;
		out_cpus[k] = (int)take;
	}
	*out_n = n;
	ok = true;
out:
	free(room);
	free(count);
	return ok;
}

/* Can one node give the whole job's GPUs their --cpus-per-gpu CPUs (each
 * item's per-node and per-task count for ntasks tasks, at least --gpus)? */
static bool one_node_gpus(const struct sched_node *nd, const struct sched_req *req, bool empty,
			  int64_t ntasks)
{
	int64_t gpus = 0;
	for (int g = 0; g < req->ngres; g++) {
		const struct sched_gres *it = &req->gres[g];
		int64_t base = it->per_node + sched_mul(ntasks, it->per_task);
		if (it->gpu)
			gpus += base > (int64_t)it->per_job ? base : it->per_job;
	}
	return gpus <= gpus_by_cpus(nd, req, empty);
}

/* One attempt; empty = pretend every node is idle and usable (can it ever fit?).
 * Every count derived from the request is 64 bits (see sched_mul): a CPU
 * count reaches a node's int only once it is no more than the node's CPUs. */
static bool try_pick(const struct sched_node *nodes, const int *cand, int ncand,
		     const struct sched_req *req, bool empty, int *out_node, int *out_cpus,
		     int *out_n)
{
	int64_t cpt = req->cpus_per_task > 0 ? req->cpus_per_task : 1;
	int64_t ntasks = req->ntasks > 0 ? req->ntasks : (req->nodes > 0 ? req->nodes : 1);
	int nreq = req->nrequired;
	int nodes_wanted = req->nodes > nreq ? req->nodes : nreq;
	int n = 0;

	if (req->nodes > 0 || (nreq > 0 && ntasks <= nreq)) {
		/* a node count: the same share on each (at least --mincpus);
		 * -N min-max: as many nodes as take the share of min, up to
		 * max, the tasks then spread over them all */
		int64_t share_tasks = (ntasks + nodes_wanted - 1) / nodes_wanted;
		int64_t per_node = sched_mul(share_tasks, cpt);
		int most = req->max_nodes > nodes_wanted && !req->use_min_nodes ? req->max_nodes
										 : nodes_wanted;
		if (per_node < req->mincpus)
			per_node = req->mincpus;
		for (int i = 0; i < ncand && n < most; i++) {
			const struct sched_node *nd = &nodes[cand[i]];
			int64_t take = req->exclusive ? nd->cpus : per_node;
			if (!node_ok(nd, req, empty) || room_cpus(nd, req, empty) < per_node ||
			    !mem_fits(nd, req, take, empty) ||
			    (req->ngres && sched_gres_tasks(nd, req, empty, false) < share_tasks)) {
				if (i < nreq)
					return false;   /* a required node must be had */
				continue;
			}
			out_node[n] = cand[i];
			out_cpus[n++] = (int)take;   /* at most the node's CPUs */
		}
		if (n < nodes_wanted)
			return false;
		if (n > nodes_wanted && !req->exclusive) {
			/* more nodes than the least: a smaller share each (no
			 * -n: one task per node) */
			int64_t tasks = req->ntasks > 0 ? req->ntasks : n;
			int64_t share = sched_mul((tasks + n - 1) / n, cpt);
			if (share < req->mincpus)
				share = req->mincpus;
			for (int k = 0; k < n; k++)
				out_cpus[k] = (int)(share < out_cpus[k] ? share : out_cpus[k]);
		}
		*out_n = n;
		return true;
	}
	if (req->spread)
		return spread_pick(nodes, cand, ncand, req, empty, ntasks, cpt, out_node, out_cpus,
				   out_n);
	int64_t need = sched_mul(ntasks, cpt);
	for (int i = 0; i < ncand && nreq == 0; i++) {   /* one node for all of it */
		const struct sched_node *nd = &nodes[cand[i]];
		if (req->batch && !batch_node_ok(req, cand[i]))
			continue;   /* --batch: alone, only one with those features */
		int64_t take = req->exclusive ? nd->cpus : need > req->mincpus ? need : req->mincpus;
		if (node_ok(nd, req, empty) && room_cpus(nd, req, empty) >= need &&
		    mem_fits(nd, req, take, empty) &&
		    (!req->ngres || (sched_gres_tasks(nd, req, empty, true) >= ntasks &&
				     one_node_gpus(nd, req, empty, ntasks)))) {
			out_node[0] = cand[i];
			out_cpus[0] = (int)take;
			*out_n = 1;
			return true;
		}
	}
	/* --gpus: the units still wanted beyond what the nodes' tasks take */
	int64_t gleft[SCHED_GRES_ITEMS] = { 0 };
	bool gwant = false;
	for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++)
		gwant |= (gleft[g] = req->gres[g].per_job) > 0;
	for (int i = 0; i < ncand && (need > 0 || gwant || i < nreq); i++) {   /* whole tasks, node after node */
		const struct sched_node *nd = &nodes[cand[i]];
		int64_t tasks = node_ok(nd, req, empty) ? task_room(nd, req, (int)cpt, empty) : 0;
		if (tasks <= 0 || (need <= 0 && i >= nreq && !gres_adds(nd, req, empty, gleft))) {
			if (i < nreq)
				return false;
			continue;
		}
		if (gwant) {   /* what this node's GRES add to the whole job's */
			gwant = false;
			for (int g = 0; g < req->ngres && g < SCHED_GRES_ITEMS; g++) {
				const struct sched_gres *it = &req->gres[g];
				int64_t f = gres_free(nd, it->kinds, empty);
				if (it->gpu && f > gpus_by_cpus(nd, req, empty))
					f = gpus_by_cpus(nd, req, empty);
				if (f > 0)
					gleft[g] -= f < gleft[g] ? f : gleft[g];
				gwant |= gleft[g] > 0;
			}
		}
		/* leave one task for each required node still to come */
		int64_t reserve = i < nreq ? sched_mul(nreq - i - 1, cpt) : 0;
		int64_t take = tasks * cpt < need - reserve ? tasks * cpt : need - reserve;
		if (take < cpt)
			take = cpt;
		int64_t tasks_cpus = take;   /* what its tasks use of the CPUs wanted */
		if (req->exclusive) {
			take = nd->cpus;
			if (!req->ngres)
				tasks_cpus = take;   /* (as before GRES: the whole node counts) */
		}
		int64_t held = take < req->mincpus ? req->mincpus : take;   /* --mincpus */
		if ((req->exclusive || held > take) && !mem_fits(nd, req, held, empty)) {
			if (i < nreq)
				return false;
			continue;
		}
		out_node[n] = cand[i];
		out_cpus[n++] = (int)held;
		need -= tasks_cpus;
	}
	if (need > 0 || gwant)
		return false;
	*out_n = n;
	return true;
}

/* The GRES of the pick's nodes as the caller will count them, into
 * out_gres (NULL: only checked). */
static bool gres_check(const struct sched_node *nodes, const struct sched_req *req, bool empty,
		       const int *out_node, int *out_cpus, int n, uint32_t *out_gres)
{
	if (!req->ngres)
		return true;
	uint32_t *split = out_gres ? out_gres : malloc(((size_t)n * req->ngres + 1) * sizeof(*split));
	bool ok = split && sched_gres_split(nodes, req, empty, out_node, out_cpus, n, split);
	if (!out_gres)
		free(split);
	return ok;
}

/* --batch: the nodes that will do tried first after the required ones (a
 * stable partition of order[nrequired..n) through tmp), so that the
 * first-fit passes take one when one can be had at all. */
static void batch_first(const struct sched_req *req, int *order, int n, int *tmp)
{
	int k = 0, from = req->nrequired < n ? req->nrequired : n;
	for (int i = from; i < n; i++)
		if (batch_node_ok(req, order[i]))
			tmp[k++] = order[i];
	for (int i = from; i < n; i++)
		if (!batch_node_ok(req, order[i]))
			tmp[k++] = order[i];
	for (int i = 0; i < k; i++)
		order[from + i] = tmp[i];
}

struct node_cpus {
	int node, cpus;
};

static int by_node(const void *a, const void *b)
{
	return int_cmp(&((const struct node_cpus *)a)->node, &((const struct node_cpus *)b)->node);
}

/* try_pick, and with --batch only a pick with one of those nodes, given
 * in node order as any other pick (the nodes that will do came first:
 * batch_first), so that task 0 and the node list start at the same node. */
static bool pick(const struct sched_node *nodes, const int *order, int n,
		 const struct sched_req *req, bool empty, int *out_node, int *out_cpus, int *out_n,
		 uint32_t *out_gres)
{
	if (!try_pick(nodes, order, n, req, empty, out_node, out_cpus, out_n))
		return false;
	if (!req->batch)
		return gres_check(nodes, req, empty, out_node, out_cpus, *out_n, out_gres);
	bool found = false;
	for (int k = 0; k < *out_n && !found; k++)
		found = batch_node_ok(req, out_node[k]);
	struct node_cpus *nc = found ? malloc((*out_n + 1) * sizeof(*nc)) : NULL;
	if (!nc)
		return false;
	for (int k = 0; k < *out_n; k++)
		nc[k] = (struct node_cpus){ out_node[k], out_cpus[k] };
	qsort(nc, *out_n, sizeof(*nc), by_node);
	for (int k = 0; k < *out_n; k++) {
		out_node[k] = nc[k].node;
		out_cpus[k] = nc[k].cpus;
	}
	free(nc);
	return gres_check(nodes, req, empty, out_node, out_cpus, *out_n, out_gres);
}

enum sched_fit sched_select(const struct sched_node *nodes, const int *cand, int ncand,
			    const struct sched_req *req, int *out_node, int *out_cpus, int *out_n,
			    uint32_t *out_gres)
{
	/* Without -w/-x/--batch the order is the candidates' own: no copy (a
	 * fit found early on 10,000 nodes costs the nodes looked at, not all). */
	bool plain = !req->nrequired && !req->nexcluded && !req->batch;
	size_t room = (size_t)ncand + req->nrequired + 1;
	int *order = plain ? (int *)cand : malloc((req->batch ? 2 : 1) * room * sizeof(int));
	enum sched_fit fit = SCHED_NEVER;
	int n;

	if (!order)
		return SCHED_BUSY;   /* try again later */
	n = plain ? ncand : node_order(cand, ncand, req, order);
	if (n >= 0 && req->batch)
		batch_first(req, order, n, order + room);
	if (n >= 0 && pick(nodes, order, n, req, false, out_node, out_cpus, out_n, out_gres))
		fit = SCHED_PICKED;
	else if (n >= 0 && pick(nodes, order, n, req, true, out_node, out_cpus, out_n, NULL))
		fit = SCHED_BUSY;
	if (!plain)
		free(order);
	return fit;
}

void sched_node_take(struct sched_node *n, const struct sched_req *req, int cpus, uint64_t mem,
		     const uint32_t *gres)
{
	if (gres && req->ngres) {
		uint16_t kinds[SCHED_GRES_KINDS];
		sched_gres_kinds(n, req, gres, kinds);
		for (int k = 0; k < SCHED_GRES_KINDS; k++)
			n->alloc_gres[k] += kinds[k];
	}
	if (n->njobs == 0) {
		n->user = req->user;
		n->user_owned = req->exclusive_user;
	} else {
		if (n->user != req->user)
			n->user = 0;   /* users mixed */
		n->user_owned |= req->exclusive_user;
	}
	n->alloc_cpus += sched_charge(req, cpus);
	n->alloc_mem += mem;
	n->njobs++;
}
