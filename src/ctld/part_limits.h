/* Partition limits (AllowAccounts AllowGroups AllowQos DenyAccounts MaxNodes
 * MinNodes ExclusiveUser OverSubscribe ...): part_limits.c. */
#ifndef HERD_CTLD_PART_LIMITS_H
#define HERD_CTLD_PART_LIMITS_H
#include "common/error.h"
#include "ctld/ctld.h"

/* Whether job may start in p as things stand: REASON_NONE, or the pending
 * reason Slurm gives. */
enum job_reason part_limits_check(const struct job *job, const struct part *p);
/* At submission (and update): 0, or an rc with Slurm's sentence in err when
 * none of the job's partitions could ever take it. */
int part_limits_submit(const struct job *job, struct herd_error *err);
#endif
