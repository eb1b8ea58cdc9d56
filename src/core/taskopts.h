/* Task placement and environment options at submission (taskopts.c). */
#ifndef HERD_CORE_TASKOPTS_H
#define HERD_CORE_TASKOPTS_H
#include <jansson.h>
#include "common/error.h"

struct job;
struct node;

/* distribution, hint, mem_bind, propagate, get_user_env parse (rc
 * HERD_ERR_INVALID_ARG with Slurm's sentence); ntasks_per_socket/core fit
 * some node of the partition (HERD_ERR_NODE_CONFIG), and raise the job's
 * node count when its tasks need more nodes.  0 when all is well. */
int taskopts_check_submit(const json_t *spec, struct job *job, struct herd_error *err);
/* The most tasks of cpt CPUs node n takes with --ntasks-per-socket and
 * --ntasks-per-core (0 = not given). */
int taskopts_node_cap(const struct node *n, int cpt, int per_socket, int per_core);

#endif
