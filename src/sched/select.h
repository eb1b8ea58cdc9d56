/* Node selection: which nodes and how many CPUs on each a job gets, all or
 * nothing.  Pure: plain data in, a decision out; the controller and `herd sim`
 * share it.  (Backfill, priority and topology come later as their own files.) */
#ifndef HERD_SCHED_SELECT_H
#define HERD_SCHED_SELECT_H
#include <stdbool.h>
#include <stdint.h>

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
 * each, and *out_n their count; exclusive jobs get every CPU of their nodes.
 * SCHED_NEVER: not even on empty, usable nodes. */
enum sched_fit sched_select(const struct sched_node *nodes, const int *cand, int ncand,
			    const struct sched_req *req, int *out_node, int *out_cpus, int *out_n);

/* A job given cpus and mem (MB) of node n by a pass: counted in n (the
 * CPUs, memory, jobs and, for ExclusiveUser, whose jobs they are). */
void sched_node_take(struct sched_node *n, const struct sched_req *req, int cpus, uint64_t mem);

#endif
