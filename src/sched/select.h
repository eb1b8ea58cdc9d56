/* Node selection: which nodes and how many CPUs on each a job gets, all or
 * nothing.  Pure: plain data in, a decision out; the controller and `herd sim`
 * share it.  (Backfill, priority and topology come later as their own files.) */
#ifndef HERD_SCHED_SELECT_H
#define HERD_SCHED_SELECT_H
#include <stdbool.h>
#include <stdint.h>

/* Generic resources (doc/gres.md section 2).  A pass knows at most this
 * many kinds (a name and type: gpu:h100, gpu:a100, shard) and counts each
 * node's of each kind; a request item names the kinds that satisfy it (a
 * bit each: "gpu" without a type, every gpu kind). */
#define SCHED_GRES_KINDS 8
#define SCHED_GRES_ITEMS 4        /* items of one request (gpu, shard, ...) */

struct sched_gres {
	uint32_t kinds;               /* bit k: kind k satisfies it */
	uint32_t per_node;            /* on every node (--gres, --gpus-per-node, x sockets) */
	uint32_t per_task;            /* for each task on a node (--gpus-per-task) */
	uint32_t per_job;             /* over the whole allocation (--gpus) */
	bool gpu;                     /* a GPU (--cpus-per-gpu, --mem-per-gpu count these) */
};

struct sched_node {
	int cpus, alloc_cpus;
	uint64_t memory, alloc_mem;   /* MB */
	int njobs;                    /* jobs holding part of it */
	bool usable;                  /* responding, not DOWN/DRAIN */
	/* ExclusiveUser (both 0 by default: no constraint).  user: uid + 1 when
	 * every job on the node is that one user's (0: no job, several users,
	 * or not known); user_owned: one of them runs in an ExclusiveUser
	 * partition, so no other user's job may join it. */
	uint32_t user;
	bool user_owned;
	/* What the node is, for --tmp and -B (0: not known, asks nothing of
	 * a job that asks nothing). */
	uint64_t tmp_disk;            /* TmpDisk, MB */
	int sockets, cores, threads;  /* per node, per socket, per core */
	/* GRES: how many of each kind it has, and how many are held */
	uint16_t gres[SCHED_GRES_KINDS], alloc_gres[SCHED_GRES_KINDS];
};

/* In an order that leaves few holes: a whole-queue pass has one per job
 * (100,000 of them), and memory is what it costs most. */
struct sched_req {
	int nodes;                    /* -N; 0 = as few as fit */
	int ntasks;                   /* -n; 0 = one per node */
	int cpus_per_task;            /* -c; 0 = 1 */
	bool exclusive;
	uint64_t mem_per_node;        /* MB; 0 = not asked */
	uint64_t mem_per_cpu;         /* MB per allocated CPU (--mem-per-cpu); 0 = not asked */
	/* -w: nodes the job must have, all of them (more when -N or the CPUs
	 * ask); -x: nodes it must not have.  Node indexes, as in cand. */
	const int *required;
	const int *excluded;
	int nrequired;
	int nexcluded;
	/* uid + 1 of the job's user (0: not known, joins no user_owned node);
	 * exclusive_user (its partition's ExclusiveUser=YES): it shares its
	 * nodes with no other user's job. */
	uint32_t user;
	bool exclusive_user;
	/* Placement options (0/false: not asked).  max_nodes: -N min-max,
	 * as many nodes as are free up to it (use_min_nodes: only nodes);
	 * mincpus: at least that many CPUs on each node; tmp_mb, sockets,
	 * cores, threads: only nodes with at least those; spread: as many
	 * nodes as there are tasks, their tasks spread evenly. */
	bool use_min_nodes, spread;
	int max_nodes;
	/* -s in OverSubscribe=YES:N (FORCE:N: every job): each CPU it gets
	 * may be another N-1 jobs' too, so it holds 1/N of each (rounded up
	 * over the node: sched_charge); 0 or 1: its CPUs are its own. */
	int share;
	int mincpus;
	int sockets, cores, threads;
	uint64_t tmp_mb;
	/* sbatch --batch: at least one chosen node is one of these (node
	 * indexes, ascending; nbatch may be 0: no node will do); NULL: not
	 * asked. */
	const int *batch;
	int nbatch;
	/* GRES items (NULL, 0: none); --cpus-per-gpu (CPUs a node must give
	 * for each GPU it gives; the per-node and per-task items' are in
	 * mincpus and cpus_per_task already), --mem-per-gpu (MB on a node for
	 * each GPU there, 0 = not asked) */
	const struct sched_gres *gres;
	int ngres;
	uint32_t cpus_per_gpu;
	uint64_t mem_per_gpu;
};

/* Is the node what the request asks for, whatever runs there (--tmp, -B,
 * --mincpus against its size)?  plan.c's counts ask it too. */
bool sched_node_kind_ok(const struct sched_node *n, const struct sched_req *req);

/* Products of counts a user gives (tasks x CPUs per task, MB per CPU x
 * CPUs): 64 bits, saturating instead of wrapping, so that 65536 tasks of
 * 65536 CPUs ask for 2^32 CPUs (more than any node has), never 0. */
static inline int64_t sched_mul(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_mul_overflow(a, b, &r) ? (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX : r;
}

static inline uint64_t sched_umul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* What cpus CPUs of a job count against a node's CPUs (req->share). */
static inline int sched_charge(const struct sched_req *req, int cpus)
{
	return req->share > 1 ? (int)(((int64_t)cpus + req->share - 1) / req->share) : cpus;
}

enum sched_fit { SCHED_NEVER = -1, SCHED_BUSY = 0, SCHED_PICKED = 1 };

/* Choose among the candidate nodes cand[0..ncand) (a required node that is
 * not a candidate, or is excluded, makes the request SCHED_NEVER).  On SCHED_PICKED, out_node
 * and out_cpus (room for ncand entries) get the chosen nodes and the CPUs on
 * each, and *out_n their count; exclusive jobs get every CPU of their nodes;
 * out_gres (room for ncand * req->ngres; NULL: not wanted) the GRES of each
 * item on each (sched_gres_split).  SCHED_NEVER: not even on empty, usable
 * nodes. */
enum sched_fit sched_select(const struct sched_node *nodes, const int *cand, int ncand,
			    const struct sched_req *req, int *out_node, int *out_cpus, int *out_n,
			    uint32_t *out_gres);

/* How many tasks node n's GRES allow after every item's per_node units
 * (with whole, -1 also unless all its per_job units are free there):
 * INT32_MAX when no item is per task; -1 when even those do not fit
 * (empty: as if nothing were held). */
int64_t sched_gres_tasks(const struct sched_node *n, const struct sched_req *req, bool empty,
			 bool whole);
/* The GRES of each item a pick gives on each of its n nodes (node, cpus:
 * sched_select's out_node, out_cpus): out[k * req->ngres + g].  Tasks are
 * laid out as srun's block distribution (one on each node, then each node
 * filled in order); per_job items are packed on the first nodes.  cpus[k]
 * is raised where --cpus-per-gpu asks more of a node's GPUs.  false when
 * they do not fit (sched_select never picks such nodes). */
bool sched_gres_split(const struct sched_node *nodes, const struct sched_req *req, bool empty,
		      const int *node, int *cpus, int n, uint32_t *out);
/* MB of memory the job holds on a node where it has cpus CPUs and the
 * items' counts gres (NULL: none) there. */
uint64_t sched_mem_on(const struct sched_req *req, int cpus, const uint32_t *gres);
/* The items' counts gres (req->ngres of them) on node n as counts per
 * kind (SCHED_GRES_KINDS), taken from the kinds n has free, in order. */
void sched_gres_kinds(const struct sched_node *n, const struct sched_req *req, const uint32_t *gres,
		      uint16_t *kinds);

/* A job given cpus, mem (MB) and the items' counts gres (NULL: none) of
 * node n by a pass: counted in n (the CPUs, memory, GRES, jobs and, for
 * ExclusiveUser, whose jobs they are). */
void sched_node_take(struct sched_node *n, const struct sched_req *req, int cpus, uint64_t mem,
		     const uint32_t *gres);

#endif
