/* Internal to the step files (step.c, step_layout.c, step_info.c): a job
 * step as the controller keeps it.  Other parts see steps only through
 * ctld.h's step_* functions. */
#ifndef HERD_CTLD_STEP_IMPL_H
#define HERD_CTLD_STEP_IMPL_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>
#include "common/bitmap.h"
#include "ctld/ctld.h"

struct step {
	uint32_t job_id, step_id;
	char *name;
	enum job_state state;
	time_t start_time, end_time;
	int nnodes;
	int *job_node;              /* index into the job's allocation, per step node */
	int *ntasks;                /* tasks on each step node */
	struct bitmap **cpuset;     /* the CPU IDs it may use on each */
	bool holds;                 /* its cpusets are held in job->step_cpus (not --overlap) */
	uint64_t mem_mb;            /* per node, 0 = the job's */
	uint32_t num_tasks, cpus_per_task;
	int64_t time_limit;         /* seconds, -1 = the job's */
	char *nodes_str, *tasks_per_node, *distribution;
	int *task_node;             /* -m arbitrary: each task's step node; NULL otherwise */
	int exit_status;            /* the highest raw status of its tasks */
	bool *node_done;
	int nodes_done;
	bool cancelled, timed_out, oom, launch_failed;
	bool with_job;              /* still running when its job ended normally: waits for its reports */
	bool parts_out;             /* its nodes' nsteps were counted down (step_end) */
	long long requid;           /* scancel N.S: who asked, -1 = none */
	char *srun_host;
	char *container;            /* srun --container: the OCI bundle, or NULL */
	long long srun_pid;
	char *failed_node;          /* NODE_FAIL: the node that failed */
	int port_lo, nports;        /* --resv-ports: held on each of its nodes (step_ports.c) */
	/* GRES (step_gres.c): asked (gres_given), its devices on each step
	 * node; else all the job's there.  gres_holds: others may not have
	 * them (not --overlap) while it runs. */
	bool gres_given, gres_holds;
	struct gres_hold **gres;
	int *ngres;
	uint64_t cpu_time_us, max_rss_kb, ave_rss_sum;
	uint64_t tot_rss_kb, max_cpu_us;   /* sacct's TRESUsageInTot/Max: over the nodes */
	/* STEP_CREATE's reply waits for every node's LAUNCH_STEP answer:
	 * the request's steps (step.c), NULL once answered */
	struct step_group *group;
	struct step *next;
};

/* One STEP_CREATE: its step, or one step per component of a heterogeneous
 * job ("het": srun A : B), made together under one step ID, launched
 * together as one set of tasks (global task IDs), and answered once every
 * node's LAUNCH_STEP has.  It names its steps by job and step ID, never by
 * pointer: a component's job may end (and its steps go) meanwhile. */
struct step_group {
	struct net_req *req;        /* NULL once answered */
	int n;
	uint32_t *job_ids;          /* each component's job */
	uint32_t step_id;
	json_t *specs;              /* each component's "step" */
	int launches_left;
	char *launch_error;
};

/* step.c: the steps of a job */
struct step *step_find(const struct job *job, uint32_t step_id);
void step_free(struct step *s);
void count_parts(const struct job *job, struct step *s, int delta);   /* nodes' nsteps */
void step_save(const struct job *job, const struct step *s);          /* to the store */
void step_end(struct job *job, struct step *s, enum job_state state);  /* final, saved */
/* step_launch.c: the request's steps fail (each FAILED), it hears why */
void step_group_fail(struct step_group *g, const char *why);

/* step_layout.c: where a step's tasks and CPUs go */
/* Lay the step out on the job's nodes (spec: STEP_CREATE's "step"): its
 * nodes, tasks on each and CPU IDs, into s.  0, or an rc with err (2014
 * never fits the job, 2016 not now). */
int step_layout(struct job *job, const json_t *spec, struct step *s, struct herd_error *err);
/* A count in a step request: absent, or from 0 to INT_MAX. */
bool step_layout_count_ok(const json_t *spec, const char *key);
/* Hold (on) or give back the step's CPUs in job->step_cpus (not --overlap). */
void step_layout_hold(struct job *job, struct step *s, bool on);
/* Global task IDs of step node i (block, cyclic, plane=P). */
json_t *step_layout_task_ids(const struct step *s, int i);
/* step_ports.c: srun --resv-ports (MpiParams=ports=A-B) */
/* want: -1 bare (as many as the most tasks on a node), 0 none, N.  0, or
 * HERD_ERR_PORTS_INVALID (more than the range, or no range and N given),
 * HERD_ERR_PORTS_BUSY (not now). */
int step_ports_take(const struct job *job, struct step *s, long long want, struct herd_error *err);
void step_ports_give(const struct job *job, struct step *s);
void step_ports_string(const struct step *s, char *buf, size_t len);   /* "A-B", "A", "" */
void step_ports_restore(const struct job *job, struct step *s, const char *list);
/* step_gres.c: a step's generic resources (doc/gres.md section 2, Steps) */
#define STEP_GRES_ITEMS 16
#define STEP_GRES_NEVER (-1)        /* the job has too few there */
#define STEP_GRES_BUSY (-2)         /* other steps hold them now */
struct step_gres_item {
	char name[32], type[64];
	uint32_t per_step, per_node, per_task;
};
struct step_gres_req {
	struct step_gres_item items[STEP_GRES_ITEMS];
	int n;
	bool given;                 /* a GRES option (or --gres=none) was given */
	bool none;
	bool overlap;
};
/* STEPSPEC's tres_per_step/node/socket/task, gres_none into r: 0, or 2033
 * (Invalid generic resource (gres) specification) with err: malformed, or
 * of a GRES the job has none of. */
int step_gres_request(const struct job *job, const json_t *spec, struct step_gres_req *r,
		      struct herd_error *err);
/* More in all than the job has (nodes, ntasks: the step's): 2033 with err. */
int step_gres_total_check(const struct job *job, const struct step_gres_req *r, int nodes,
			  int64_t ntasks, struct herd_error *err);
/* Pure: count units of name[:type] ("" any) from a node's job holds (nj),
 * lowest index first, not counting used[h] of each (updated with what is
 * taken) into out (room): the number written, STEP_GRES_NEVER (the holds
 * have fewer) or STEP_GRES_BUSY (fewer are free). */
int step_gres_pick(const struct gres_hold *job, int nj, uint32_t *used, const char *name,
		   const char *type, uint64_t count, struct gres_hold *out, int room);
/* Can the job's node j give ntasks tasks of the step what r asks per node
 * and task now: 0, STEP_GRES_NEVER or STEP_GRES_BUSY. */
int step_gres_node_fits(const struct job *job, int j, int ntasks, const struct step_gres_req *r);
/* The laid out step's devices on each of its nodes into s: 0, or
 * HERD_ERR_NODES_BUSY / HERD_ERR_INVALID_GRES (its nodes never have
 * enough) with err. */
int step_gres_take(const struct job *job, struct step *s, const struct step_gres_req *r,
		   struct herd_error *err);
void step_gres_free(struct step *s);
/* The step object's "gres" for step node i (NULL: absent, the job's). */
json_t *step_gres_launch(const struct job *job, const struct step *s, int i);
/* "gres/gpu=2,gres/gpu:h100=2": what it has on its nodes ("" none). */
char *step_gres_tres(const struct job *job, const struct step *s);
/* The stored record's "tres_gres", "gres", "gres_holds"; back (rec_node:
 * each step node's place in the record's "alloc"). */
void step_gres_to_json(const struct job *job, const struct step *s, json_t *o);
void step_gres_restore(struct step *s, const json_t *rec, const int *rec_node);
/* The step object's gpus_per_task: the step's --gpus-per-task, or its
 * job's when the step asks no GRES. */
int step_gres_per_task(const struct job *job, const json_t *spec);
bool step_gres_asked(const json_t *spec);
#endif
