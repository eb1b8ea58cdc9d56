/* MPI process management served by herdstepd: the PMI-1 and PMI-2 wire
 * protocols over a socketpair per task (PMI_FD), and a PMIx server on
 * libpmix for --mpi=pmix.  The key-value space is the step's: a fence
 * gathers what this node's tasks put, hands it to fence_f (herdstepd sends
 * it to srun, which merges every node's), and pmi_fence_done delivers the
 * merged set and releases the node's tasks.  No other I/O than the tasks'
 * sockets. */
#ifndef HERD_STEPD_PMI_H
#define HERD_STEPD_PMI_H
#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "common/error.h"

struct pmi_step_info {
	uint32_t job_id, step_id;
	int size;               /* tasks in the step */
	int num_nodes, node_id;
	const int *ranks;       /* this node's global ranks, nranks of them */
	int nranks;
	const char *node_names; /* compressed hostlist of the step's nodes */
	const char *tasks_per_node;   /* "2(x3),1" */
	const char *distribution;     /* block, cyclic, plane=N */
};

/* Called when every local task entered fence seq: kvs (stolen) is what they
 * put since the previous fence. */
typedef void (*pmi_fence_f)(void *arg, int seq, json_t *kvs);
/* A task called PMI_Abort / PMI2_Abort / PMIx_Abort: the step ends. */
typedef void (*pmi_abort_f)(void *arg, int rank, int code, const char *message);

enum pmi_kind { PMI_NONE, PMI_PMI1, PMI_PMI2, PMI_PMIX };
/* "none", "pmi1", "pmi2", "pmix" (and Slurm's "pmix_v4"...); -1 if unknown. */
int pmi_kind_parse(const char *name);

struct pmi_server;
struct pmi_server *pmi_create(uv_loop_t *loop, enum pmi_kind kind,
			      const struct pmi_step_info *info, pmi_fence_f fence,
			      pmi_abort_f on_abort, void *arg, struct herd_error *err);
/* Before forking local task i (0 .. nranks-1): append the environment it
 * needs ("PMI_FD=…", "PMI_RANK=…", "PMI_SIZE=…", "PMIX_*") to *env (a
 * NULL-terminated vector, grown with opt_strv_push's rules).  *keep_fd is
 * the fd the child must keep open (-1 none). */
int pmi_task_env(struct pmi_server *s, int local, char ***env, size_t *envc, int *keep_fd,
		 struct herd_error *err);
/* After the fork: the parent closes the child's end. */
void pmi_task_forked(struct pmi_server *s, int local, pid_t pid);
/* The merged key-value set of fence seq (stolen): release the tasks. */
void pmi_fence_done(struct pmi_server *s, int seq, json_t *kvs);
void pmi_destroy(struct pmi_server *s);

#endif
