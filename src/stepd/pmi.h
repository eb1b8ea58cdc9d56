/* MPI process management served by herdstepd: the PMI-1 and PMI-2 wire
 * protocols over a socketpair per task (PMI_FD), and a PMIx server on
 * libpmix for --mpi=pmix.  The key-value space is the step's: a fence
 * gathers what this node's tasks put, hands it to fence_f (herdstepd sends
 * it to srun, which merges every node's), and pmi_fence_done delivers the
 * merged set and releases the node's tasks.  No other I/O than the tasks'
 * sockets.  Everything here runs on the uv loop's thread (libpmix's own
 * thread only queues events for it). */
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
	uid_t uid;              /* the tasks' user and group (PMIx's socket) */
	gid_t gid;
};

/* Called when every local task entered fence seq (0, 1, ...): kvs (stolen)
 * is what they put since the previous fence, an object of strings.  It may
 * call pmi_fence_done at once (a one-node step).  Neither callback may call
 * pmi_destroy: they run inside the server's own reading of a socket. */
typedef void (*pmi_fence_f)(void *arg, int seq, json_t *kvs);
/* A task called PMI_Abort / PMI2_Abort / PMIx_Abort: the step ends. */
typedef void (*pmi_abort_f)(void *arg, int rank, int code, const char *message);

enum pmi_kind { PMI_NONE, PMI_PMI1, PMI_PMI2, PMI_PMIX };
/* "none", "pmi1"/"pmi", "pmi2", "pmix" (and Slurm's "pmix_v3", "pmix_v4"
 * ...); -1 if unknown.  PMI_PMI1 and PMI_PMI2 serve the same socket, which
 * speaks whichever of the two the client starts with. */
int pmi_kind_parse(const char *name);
const char *pmi_kind_name(enum pmi_kind kind);

struct pmi_server;
/* kind PMI_NONE gives a server that sets no environment.  PMI_PMIX: at most
 * one per process (libpmix is a process-wide singleton). */
struct pmi_server *pmi_create(uv_loop_t *loop, enum pmi_kind kind,
			      const struct pmi_step_info *info, pmi_fence_f fence,
			      pmi_abort_f on_abort, void *arg, struct herd_error *err);
/* Before forking local task i (0 .. nranks-1): append the environment it
 * needs ("PMI_FD=…", "PMI_RANK=…", "PMI_SIZE=…", "PMIX_*") to *env (a
 * NULL-terminated vector, grown with opt_strv_push's rules).  *keep_fd is
 * the fd the child must keep open (-1 none); it is close-on-exec, so the
 * child clears FD_CLOEXEC on it (fcntl(fd, F_SETFD, 0)) before execve. */
int pmi_task_env(struct pmi_server *s, int local, char ***env, size_t *envc, int *keep_fd,
		 struct herd_error *err);
/* After the fork: the parent closes the child's end. */
void pmi_task_forked(struct pmi_server *s, int local, pid_t pid);
/* The merged key-value set of fence seq (stolen): release the tasks. */
void pmi_fence_done(struct pmi_server *s, int seq, json_t *kvs);
/* Closes the sockets; the handles finish closing on the loop's next turn
 * (run the loop once more before uv_loop_close). */
void pmi_destroy(struct pmi_server *s);

/* PMI_process_mapping of the layout, "(vector,(0,4,2))"; caller frees.
 * NULL if tasks_per_node does not parse. */
char *pmi_process_mapping(int size, int num_nodes, const char *tasks_per_node,
			  const char *distribution);

/* The node (0 ..) of every rank of the layout into node_of[size]; -1 if
 * tasks_per_node does not parse or does not add up to size. */
int pmi_layout(int size, int num_nodes, const char *tasks_per_node, const char *distribution,
	       int *node_of);

/* Between pmi.c and pmix.c only. */
struct pmix_state;
struct pmix_state *pmix_state_create(struct pmi_server *s, uv_loop_t *loop,
				     const struct pmi_step_info *info, struct herd_error *err);
int pmix_state_task_env(struct pmix_state *px, int local, char ***env, size_t *envc,
			struct herd_error *err);
void pmix_state_fence_done(struct pmix_state *px, int seq, json_t *kvs);
void pmix_state_destroy(struct pmix_state *px);
/* pmix.c reports to pmi.c's owner through these. */
int pmi_fence_begin(struct pmi_server *s, json_t *kvs);   /* returns seq */
void pmi_report_abort(struct pmi_server *s, int rank, int code, const char *message);
void pmi_strv_push(char ***v, size_t *n, char *item);   /* steals item */

#endif
