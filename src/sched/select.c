/* First-fit node selection in configuration order (topology-aware placement
 * comes with topology/tree), required nodes (-w) first.  With -N, every node
 * gets ceil(ntasks/N) tasks' worth of CPUs; without it, one node that holds
 * the whole job is preferred, else nodes are filled in order.  A job asking
 * for nodes by name gets at least that many nodes, as in Slurm; one with
 * sbatch --batch gets at least one node with those features. */
#include <stddef.h>
#include <stdlib.h>
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
		int64_t per_node = sched_mul((ntasks + nodes_wanted - 1) / nodes_wanted, cpt);
		int most = req->max_nodes > nodes_wanted && !req->use_min_nodes ? req->max_nodes
										 : nodes_wanted;
		if (per_node < req->mincpus)
			per_node = req->mincpus;
		for (int i = 0; i < ncand && n < most; i++) {
			const struct sched_node *nd = &nodes[cand[i]];
			int64_t take = req->exclusive ? nd->cpus : per_node;
			if (!node_ok(nd, req, empty) || room_cpus(nd, req, empty) < per_node ||
			    !mem_fits(nd, req, take, empty)) {
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
		    mem_fits(nd, req, take, empty)) {
			out_node[0] = cand[i];
			out_cpus[0] = (int)take;
			*out_n = 1;
			return true;
		}
	}
	for (int i = 0; i < ncand && (need > 0 || i < nreq); i++) {   /* whole tasks, node after node */
		const struct sched_node *nd = &nodes[cand[i]];
		int64_t tasks = node_ok(nd, req, empty) ? task_room(nd, req, (int)cpt, empty) : 0;
		if (tasks <= 0) {
			if (i < nreq)
				return false;
			continue;
		}
		/* leave one task for each required node still to come */
		int64_t reserve = i < nreq ? sched_mul(nreq - i - 1, cpt) : 0;
		int64_t take = tasks * cpt < need - reserve ? tasks * cpt : need - reserve;
		if (take < cpt)
			take = cpt;
		if (req->exclusive)
			take = nd->cpus;
		int64_t held = take < req->mincpus ? req->mincpus : take;   /* --mincpus */
		if ((req->exclusive || held > take) && !mem_fits(nd, req, held, empty)) {
			if (i < nreq)
				return false;
			continue;
		}
		out_node[n] = cand[i];
		out_cpus[n++] = (int)held;
		need -= take;
	}
	if (need > 0)
		return false;
	*out_n = n;
	return true;
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
		 const struct sched_req *req, bool empty, int *out_node, int *out_cpus, int *out_n)
{
	if (!try_pick(nodes, order, n, req, empty, out_node, out_cpus, out_n))
		return false;
	if (!req->batch)
		return true;
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
	return true;
}

enum sched_fit sched_select(const struct sched_node *nodes, const int *cand, int ncand,
			    const struct sched_req *req, int *out_node, int *out_cpus, int *out_n)
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
	if (n >= 0 && pick(nodes, order, n, req, false, out_node, out_cpus, out_n))
		fit = SCHED_PICKED;
	else if (n >= 0 && pick(nodes, order, n, req, true, out_node, out_cpus, out_n))
		fit = SCHED_BUSY;
	if (!plain)
		free(order);
	return fit;
}

void sched_node_take(struct sched_node *n, const struct sched_req *req, int cpus, uint64_t mem)
{
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
