/* Job and node state names, as Slurm spells them (squeue, sacct, scontrol,
 * sinfo), shared by the controller and the commands. */
#ifndef HERD_STATE_H
#define HERD_STATE_H
#include <stdbool.h>

#define JOB_STATE_TABLE(X) \
	X(JOB_PENDING, "PENDING", "PD") \
	X(JOB_RUNNING, "RUNNING", "R") \
	X(JOB_SUSPENDED, "SUSPENDED", "S") \
	X(JOB_COMPLETING, "COMPLETING", "CG") \
	X(JOB_COMPLETED, "COMPLETED", "CD") \
	X(JOB_CANCELLED, "CANCELLED", "CA") \
	X(JOB_FAILED, "FAILED", "F") \
	X(JOB_TIMEOUT, "TIMEOUT", "TO") \
	X(JOB_NODE_FAIL, "NODE_FAIL", "NF") \
	X(JOB_PREEMPTED, "PREEMPTED", "PR") \
	X(JOB_BOOT_FAIL, "BOOT_FAIL", "BF") \
	X(JOB_DEADLINE, "DEADLINE", "DL") \
	X(JOB_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM")

enum job_state {
#define JOB_STATE_ENUM(e, name, code) e,
	JOB_STATE_TABLE(JOB_STATE_ENUM)
#undef JOB_STATE_ENUM
	JOB_STATE_COUNT
};

const char *job_state_name(enum job_state s);       /* "PENDING" */
const char *job_state_code(enum job_state s);       /* "PD" */
/* Accepts long names and short codes, case-insensitive; -1 if unknown. */
int job_state_parse(const char *s);
static inline bool job_state_is_final(enum job_state s)
{
	return s >= JOB_COMPLETED;
}

/* Node base states; flags (DRAIN, NOT_RESPONDING, COMPLETING) are separate. */
#define NODE_STATE_TABLE(X) \
	X(NODE_UNKNOWN, "UNKNOWN", "unk") \
	X(NODE_IDLE, "IDLE", "idle") \
	X(NODE_ALLOCATED, "ALLOCATED", "alloc") \
	X(NODE_MIXED, "MIXED", "mix") \
	X(NODE_DOWN, "DOWN", "down") \
	X(NODE_FUTURE, "FUTURE", "futr")

enum node_state {
#define NODE_STATE_ENUM(e, name, code) e,
	NODE_STATE_TABLE(NODE_STATE_ENUM)
#undef NODE_STATE_ENUM
	NODE_STATE_COUNT
};

const char *node_state_name(enum node_state s);     /* "IDLE" */
const char *node_state_short(enum node_state s);    /* "idle" (sinfo) */
int node_state_parse(const char *s);

#endif
