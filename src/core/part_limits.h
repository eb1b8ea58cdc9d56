/* Partition limits (RootOnly AllocNodes AllowAccounts AllowGroups AllowQos DenyAccounts DenyQos
 * MaxNodes MinNodes MaxTime ExclusiveUser OverSubscribe): part_limits.c. */
#ifndef HERD_CTLD_PART_LIMITS_H
#define HERD_CTLD_PART_LIMITS_H
#include "common/error.h"
#include "core/core.h"
#include "sched/select.h"

/* Whether job may start in p as things stand: REASON_NONE, or the pending
 * reason Slurm gives (PartitionNodeLimit, PartitionTimeLimit,
 * AccountNotAllowed, QOSNotAllowed).  The partition's state is the
 * caller's (PartitionDown). */
enum job_reason part_limits_check(const struct job *job, const struct part *p);
/* At submission (and update, on a copy): 0, or an rc with Slurm's sentence
 * in err when the job may not be queued (RootOnly, AllocNodes and
 * AllowGroups always; the rest as
 * EnforcePartLimits says).  A job without -N is given the smallest MinNodes
 * of its partitions, as in Slurm. */
int part_limits_submit(struct job *job, struct herd_error *err);
/* What the selection must know of p for job: whole nodes
 * (OverSubscribe=EXCLUSIVE), ExclusiveUser, the job's user. */
void part_limits_req(const struct job *job, const struct part *p, struct sched_req *req);
/* How many jobs each CPU of job may be shared by (slurm.conf(5)
 * OverSubscribe): YES[:N] for a job with -s, FORCE[:N] for every job
 * (unless gang scheduling takes turns on it, preempt.c), N 4 when not
 * given; NO, EXCLUSIVE and --exclusive 1.  The least of its partitions,
 * so that where it starts does not change what it holds. */
int part_cpu_share(const struct job *job);
/* The users of the nodes (ExclusiveUser, --exclusive=user) into a snapshot
 * of core.nodes, from the jobs holding them; nothing when no partition has
 * ExclusiveUser and no job asked --exclusive=user. */
void part_limits_nodes(struct sched_node *sn);
#endif
