/* herdctld's shared state and the interfaces between its files.  Everything
 * here is owned by the loop thread; workers get copies (see store.c). */
#ifndef HERD_CTLD_H
#define HERD_CTLD_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>
#include "common/conf.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/state.h"
#include "core/env.h"
#include "acct/assoc.h"

struct part;
struct bitmap;

struct depend;
struct step;

#define ARRAY_NO_TASK 4294967294u   /* array_task_id of a meta record (Slurm's NO_VAL) */
#define MAX_ARRAY_SIZE_LIMIT 4000001   /* slurm.conf(5): MaxArraySize at most 4000001 */

struct node {
	char *name;
	char *addr;
	int port;
	char *dest;                 /* auth destination name */
	enum node_state state;
	bool registered;            /* has registered since the controller started */
	bool not_responding;
	bool drain;
	bool admin_down;            /* DOWN by scontrol: registering does not lift it */
	char *reason;
	time_t reason_time;
	char *reason_user;          /* who set the reason ("root"), NULL for the controller */
	int cpus, boards, sockets, cores, threads;
	uint64_t real_memory;
	int alloc_cpus;
	uint64_t alloc_mem;
	int njobs;                  /* jobs holding part of this node */
	int nbatch;                 /* of those, jobs whose batch script runs here */
	int nsteps;                 /* step parts here not yet reported ended (step.c) */
	bool exclusive_job;         /* held whole by an --exclusive job */
	struct bitmap *cpus_used;   /* CPU IDs held by jobs (node_alloc picks the lowest free) */
	time_t last_seen, boot_time, slurmd_start_time;
	char *arch, *os;
	const struct conf_node *conf;
};

struct part {
	char *name;
	const struct conf_part *conf;
	int *node_idx;              /* indexes into ctld.nodes */
	int nnodes;
	char *nodes_str;            /* compressed */
	/* AllocNodes looked up at load (part.c): the IPv4 addresses a
	 * submission's credential may come from. */
	struct in_addr *alloc_addrs;
	int nalloc_addrs;
	/* Gone from herd.conf at a reconfigure while jobs were in it: kept for
	 * them (squeue still names it; pending ones wait, PartitionDown), but
	 * not listed, not found by name, never scheduled. */
	bool removed;
};

/* Why a job waits or ended (squeue %r). */
#define JOB_REASON_TABLE(X) \
	X(REASON_NONE, "None") \
	X(REASON_PRIORITY, "Priority") \
	X(REASON_RESOURCES, "Resources") \
	X(REASON_HELD_USER, "JobHeldUser") \
	X(REASON_HELD_ADMIN, "JobHeldAdmin") \
	X(REASON_PART_DOWN, "PartitionDown") \
	X(REASON_PART_INACTIVE, "PartitionInactive") \
	X(REASON_NONZERO_EXIT, "NonZeroExitCode") \
	X(REASON_TIME_LIMIT, "TimeLimit") \
	X(REASON_NODE_DOWN, "NodeDown") \
	X(REASON_LAUNCH_FAILED, "launch failed requeued held") \
	X(REASON_BEGIN_TIME, "BeginTime") \
	X(REASON_PART_TIME_LIMIT, "PartitionTimeLimit") \
	X(REASON_PART_NODE_LIMIT, "PartitionNodeLimit") \
	X(REASON_ARRAY_TASK_LIMIT, "JobArrayTaskLimit") \
	X(REASON_DEPENDENCY, "Dependency") \
	X(REASON_DEP_NEVER, "DependencyNeverSatisfied") \
	X(REASON_DEADLINE, "DeadLine") \
	X(REASON_REQ_NODE_NOT_AVAIL, "ReqNodeNotAvail") \
	X(REASON_RESERVATION, "Reservation") \
	X(REASON_ACCOUNT_NOT_ALLOWED, "AccountNotAllowed") \
	X(REASON_QOS_NOT_ALLOWED, "QOSNotAllowed") \
	LIMIT_REASON_TABLE(X) \
	RESV_REASON_TABLE(X)

/* Reservations (resv.c): its reservation was deleted (held), or only
 * reserved nodes would do. */
#define RESV_REASON_TABLE(X) \
	X(REASON_RESV_DELETED, "ReservationDeleted") \
	X(REASON_RESV_MAINT, "ReqNodeNotAvail, Reserved for maintenance") \
	X(REASON_RESV_OTHER, "ReqNodeNotAvail, May be reserved for other job")

/* AccountingStorageEnforce=limits (limits.c): why a job waits for its
 * association's or QOS's limits, in Slurm's words (squeue %r). */
#define LIMIT_REASON_TABLE(X) \
	X(REASON_ACCT_POLICY, "AccountingPolicy") \
	X(REASON_ASSOC_MAX_JOBS, "AssocMaxJobsLimit") \
	X(REASON_ASSOC_GRP_JOBS, "AssocGrpJobsLimit") \
	X(REASON_ASSOC_MAX_WALL, "AssocMaxWallDurationPerJobLimit") \
	X(REASON_ASSOC_GRP_CPU, "AssocGrpCpuLimit") \
	X(REASON_ASSOC_GRP_MEM, "AssocGrpMemLimit") \
	X(REASON_ASSOC_GRP_NODE, "AssocGrpNodeLimit") \
	X(REASON_ASSOC_GRP_BILLING, "AssocGrpBilling") \
	X(REASON_ASSOC_GRP_GRES, "AssocGrpGRES") \
	X(REASON_ASSOC_GRP_CPU_MIN, "AssocGrpCPUMinutesLimit") \
	X(REASON_ASSOC_GRP_MEM_MIN, "AssocGrpMemMinutes") \
	X(REASON_ASSOC_GRP_NODE_MIN, "AssocGrpNodeMinutes") \
	X(REASON_ASSOC_GRP_BILLING_MIN, "AssocGrpBillingMinutes") \
	X(REASON_ASSOC_GRP_GRES_MIN, "AssocGrpGRESMinutes") \
	X(REASON_ASSOC_MAX_CPU_PER_JOB, "AssocMaxCpuPerJobLimit") \
	X(REASON_ASSOC_MAX_MEM_PER_JOB, "AssocMaxMemPerJob") \
	X(REASON_ASSOC_MAX_NODE_PER_JOB, "AssocMaxNodePerJobLimit") \
	X(REASON_ASSOC_MAX_BILLING_PER_JOB, "AssocMaxBillingPerJob") \
	X(REASON_ASSOC_MAX_GRES_PER_JOB, "AssocMaxGRESPerJob") \
	X(REASON_ASSOC_MAX_CPU_PER_NODE, "AssocMaxCpuPerNode") \
	X(REASON_ASSOC_MAX_MEM_PER_NODE, "AssocMaxMemPerNode") \
	X(REASON_ASSOC_MAX_BILLING_PER_NODE, "AssocMaxBillingPerNode") \
	X(REASON_ASSOC_MAX_GRES_PER_NODE, "AssocMaxGRESPerNode") \
	X(REASON_ASSOC_MAX_CPU_MIN_PER_JOB, "AssocMaxCpuMinutesPerJobLimit") \
	X(REASON_ASSOC_MAX_MEM_MIN_PER_JOB, "AssocMaxMemMinutesPerJob") \
	X(REASON_ASSOC_MAX_NODE_MIN_PER_JOB, "AssocMaxNodeMinutesPerJob") \
	X(REASON_ASSOC_MAX_BILLING_MIN_PER_JOB, "AssocMaxBillingMinutesPerJob") \
	X(REASON_ASSOC_MAX_GRES_MIN_PER_JOB, "AssocMaxGRESMinutesPerJob") \
	X(REASON_QOS_MAX_JOBS_PER_USER, "QOSMaxJobsPerUserLimit") \
	X(REASON_QOS_GRP_JOBS, "QOSGrpJobsLimit") \
	X(REASON_QOS_MAX_WALL, "QOSMaxWallDurationPerJobLimit") \
	X(REASON_QOS_GRP_CPU, "QOSGrpCpuLimit") \
	X(REASON_QOS_GRP_MEM, "QOSGrpMemLimit") \
	X(REASON_QOS_GRP_NODE, "QOSGrpNodeLimit") \
	X(REASON_QOS_GRP_BILLING, "QOSGrpBilling") \
	X(REASON_QOS_GRP_GRES, "QOSGrpGRES") \
	X(REASON_QOS_MAX_CPU_PER_JOB, "QOSMaxCpuPerJobLimit") \
	X(REASON_QOS_MAX_MEM_PER_JOB, "QOSMaxMemoryPerJob") \
	X(REASON_QOS_MAX_NODE_PER_JOB, "QOSMaxNodePerJobLimit") \
	X(REASON_QOS_MAX_BILLING_PER_JOB, "QOSMaxBillingPerJob") \
	X(REASON_QOS_MAX_GRES_PER_JOB, "QOSMaxGRESPerJob") \
	X(REASON_QOS_MAX_CPU_PER_NODE, "QOSMaxCpuPerNode") \
	X(REASON_QOS_MAX_MEM_PER_NODE, "QOSMaxMemoryPerNode") \
	X(REASON_QOS_MAX_BILLING_PER_NODE, "QOSMaxBillingPerNode") \
	X(REASON_QOS_MAX_GRES_PER_NODE, "QOSMaxGRESPerNode") \
	X(REASON_QOS_MAX_CPU_MIN_PER_JOB, "QOSMaxCpuMinutesPerJobLimit") \
	X(REASON_QOS_MAX_MEM_MIN_PER_JOB, "QOSMaxMemoryMinutesPerJob") \
	X(REASON_QOS_MAX_NODE_MIN_PER_JOB, "QOSMaxNodeMinutesPerJob") \
	X(REASON_QOS_MAX_BILLING_MIN_PER_JOB, "QOSMaxBillingMinutesPerJob") \
	X(REASON_QOS_MAX_GRES_MIN_PER_JOB, "QOSMaxGRESMinutesPerJob") \
	X(REASON_QOS_MAX_CPU_PER_USER, "QOSMaxCpuPerUserLimit") \
	X(REASON_QOS_MAX_MEM_PER_USER, "QOSMaxMemoryPerUser") \
	X(REASON_QOS_MAX_NODE_PER_USER, "QOSMaxNodePerUserLimit") \
	X(REASON_QOS_MAX_BILLING_PER_USER, "QOSMaxBillingPerUser") \
	X(REASON_QOS_MAX_GRES_PER_USER, "QOSMaxGRESPerUser")

enum job_reason {
#define REASON_ENUM(e, s) e,
	JOB_REASON_TABLE(REASON_ENUM)
#undef REASON_ENUM
};
const char *job_reason_name(enum job_reason r);

/* A job as the controller holds it.  The script, environment and argv are not
 * here: they live in the store until launch (memory per pending job stays small). */
struct job {
	uint32_t id;
	enum job_state state;
	enum job_reason reason;
	bool durable;               /* its submission is committed: it may be scheduled */
	bool cancel_requested;
	/* scontrol requeue[hold] of a started job: back to PENDING (held when
	 * requeue_hold) once the node reports the end, not to a final state. */
	bool requeue_requested, requeue_hold;
	int32_t nice;               /* priority = base - nice */
	bool hold_admin, hold_user;
	/* Where the batch launch stands; a cancel must not overtake it (a
	 * TERMINATE that reaches the node before the LAUNCH finds nothing). */
	enum { LAUNCH_NONE, LAUNCH_SENT, LAUNCH_DONE } launch;
	uid_t uid;
	gid_t gid;
	char *user;
	char *name;
	struct part *part;
	char *account, *comment;
	char *work_dir, *std_out, *std_err, *std_in, *command, *submit_host;
	struct in_addr origin;      /* the submission's MUNGE origin address (AllocNodes) */
	char *std_out_task, *std_err_task;   /* an array's meta record: the paths, %a left */
	char *key;                  /* submission key, or NULL */
	uint32_t req_nodes, ntasks, cpus_per_task;
	uint64_t mem_mb;
	bool exclusive;
	int64_t time_limit;         /* seconds, -1 = UNLIMITED */
	int64_t time_min;           /* --time-min seconds, TIME_NOT_GIVEN = none */
	bool requeue;               /* --requeue/--no-requeue, default JobRequeue */
	unsigned mail_type;         /* MAIL_* bits (common/parse.h) */
	unsigned mail_sent;         /* of the TIME_LIMIT* ones, those already mailed */
	char *mail_user;            /* default: the user */
	uint64_t mem_per_cpu;       /* MB, 0 = not asked (then mem_mb per node) */
	uint32_t ntasks_per_node;   /* 0 = not asked */
	bool open_append;           /* --open-mode=append */
	int signal, signal_time;    /* --signal: 0 = none; seconds before the limit */
	bool signal_batch;          /* B: the batch shell only */
	char *qos;
	char *features;             /* -C expression, NULL = none */
	char *reservation;          /* --reservation, NULL = none (resv.c) */
	char *req_nodelist, *exc_nodelist;   /* -w/-x compressed, NULL = none */
	int *req_idx, nreq_idx, *exc_idx, nexc_idx;   /* the same as node indexes */
	/* -p a,b: every partition the job may run in, in the user's order;
	 * part is the first until the job starts, then the one it runs in. */
	char *partitions;           /* as given, NULL for one partition */
	struct part **parts;
	int nparts;
	uint32_t priority;
	uint32_t restarts;
	time_t submit_time, eligible_time, start_time, end_time;
	time_t deadline;            /* --deadline, 0 = none */
	struct depend *depend;      /* what is left of --dependency, NULL = none */
	int kill_invalid_dep;       /* --kill-on-invalid-dep: 1 yes, 0 no, -1 the config's */
	int exit_status;            /* raw wait status */
	/* allocation, while running/completing */
	int nalloc;
	int *alloc_node;            /* node indexes */
	int *alloc_cpus;            /* CPUs on each */
	struct bitmap **alloc_cpuset;   /* the CPU IDs on each (NULL entries: none known) */
	uint64_t alloc_mem;         /* per node */
	char *nodes_str;            /* compressed allocated nodes */
	/* Job arrays (sbatch --array); array_job_id is 0 for a plain job.  The
	 * pending tasks of an array stay in one record, the meta record (its ID
	 * is the array's, array_task_id ARRAY_NO_TASK, array_pending their set);
	 * a task that starts is split off into a record of its own with a new
	 * job ID, and the last one to start takes over the meta record, as in
	 * Slurm (array.c). */
	uint32_t array_job_id, array_task_id;
	struct bitmap *array_pending;
	uint32_t array_throttle;    /* %N: at most N tasks running, 0 = no limit */
	uint32_t array_count, array_min, array_max, array_step;   /* the whole array (SLURM_ARRAY_TASK_*) */
	uint32_t array_running, array_pass;   /* scratch of a scheduling pass (sched.c) */
	/* Steps (step.c): alloc_only jobs (salloc, srun outside an allocation)
	 * run no batch script; their steps come through STEP_CREATE. */
	bool alloc_only;
	struct step *steps;         /* newest first; ended ones too, until the job is purged */
	uint32_t next_step_id;
	struct bitmap **step_cpus;  /* per allocated node: CPU IDs held by its steps */
	struct job *hash_next;      /* by id */
	struct job *array_next;     /* by array_job_id (array jobs only) */
	struct job *key_next;       /* by submission key */
	/* limits.c: what the job is counted in (assoc.h's live counters).  A
	 * record counts its pending tasks (an array's meta record) or 1 in
	 * jobs_submitted while lim_counted; lim_tres is the TRES it was
	 * charged with while it runs (TRES_COUNT entries), else NULL. */
	struct assoc *lim_assoc;    /* its association when counted (kept, even deleted: assoc.c) */
	bool lim_counted;
	int64_t *lim_tres;
	/* roles.c: team acts on the job ([{uid, user, act, time, detail}]), NULL none */
	json_t *acts;
	/* sched.c, backfill.c: where the last backfill pass planned a pending
	 * job (squeue --start: StartTime, SchedNodes); 0 and NULL = no plan. */
	time_t start_estimate;
	char *sched_nodes;
	/* prio.c: the factors its multifactor priority was made of (what
	 * sprio shows), NULL under priority/basic or before the first
	 * computation.  prio_admin: the priority an administrator set
	 * (scontrol update Priority=), which stays until set again; 0 none. */
	struct prio_factors *prio;
	uint32_t prio_admin;
	time_t accrue_time;         /* prio.c: since when it may run (age); 0 = not now */
	/* preempt.c, gang.c: preempted (a cancel ends it PREEMPTED; a requeue
	 * records its run PREEMPTED); suspended by preemption or gang with its
	 * CPUs lent to others (node_lend: its memory stays held); gang: when
	 * its present time slice began (0: its start). */
	bool preempted, cpus_lent, gang_suspended;
	time_t slice_start;
};

struct ctld {
	uv_loop_t *loop;
	struct conf *conf;
	char *conf_path;            /* absolute: what a reconfigure reads */
	const char *cluster;
	char *dest_self;
	struct net_target ctld_target;
	struct node *nodes;
	int nnodes;
	struct part *parts;
	int nparts;
	struct part *default_part;
	uid_t slurm_uid;
	int kill_wait;              /* seconds */
	int slurmd_timeout;
	int min_job_age;
	int return_to_service;
	bool log_forced;            /* -v: SlurmctldDebug does not apply */
	bool kill_invalid_depend;   /* SchedulerParameters=kill_invalid_depend */
	bool job_requeue;           /* JobRequeue: the default of --requeue */
	uint32_t next_job_id;
	uint32_t max_array_size;    /* MaxArraySize: task IDs are below it */
	time_t start_time;
	/* job table */
	struct job **job_hash, **key_hash, **array_hash;
	size_t job_hash_size, njobs;
	bool sched_queued;
};

extern struct ctld ctld;

/* job.c */
struct job *job_find(uint32_t id);
struct job *job_find_key(uid_t uid, const char *key);
void job_table_add(struct job *job);
void job_table_clear(void);   /* every job forgotten, the tables freed */
/* The one place a job's state changes: records it in the store, frees or
 * takes resources as needed, wakes the scheduler. */
void job_set_state(struct job *job, enum job_state state, enum job_reason reason);
/* The end of a cancelled job: PREEMPTED when preemption cancelled it. */
enum job_state job_cancelled_state(const struct job *job);
json_t *job_to_json(const struct job *job);   /* the stored record */
char *job_unavailable_reason(const struct job *job);   /* "ReqNodeNotAvail, UnavailableNodes:n2" */
char *job_parts_string(const struct job *job);         /* "a,b": the partitions it may run in */

/* job_view.c: the JOB object of JOB_INFO, written as JSON text with the keys
 * asked for (NULL: all of them, in common/job_fields.h's order). */
struct strbuf;
struct job_view;
struct job_view *job_view_create(const json_t *keys);
void job_view_destroy(struct job_view *v);
/* Also each job's batch script ("script"), for its owner or an administrator. */
void job_view_want_script(struct job_view *v, uid_t viewer, bool admin);
void job_view_write(const struct job_view *v, const struct job *job, struct strbuf *out);
/* The "rows" form: the keys once (a JSON array), then each job as an array
 * of its values in that order (null for an array key of a plain job). */
void job_view_keys(const struct job_view *v, struct strbuf *out);
/* Leave out the array keys (when no job of the reply is an array's: in
 * "rows" they would be a null each per job). */
void job_view_drop_array_keys(struct job_view *v);
void job_view_write_row(const struct job_view *v, const struct job *job, struct strbuf *out);
/* The table's part of the stored record: every STORED field (job_to_json
 * adds the rest), and read back into a new job (job_from_json). */
void job_view_store(const struct job *job, json_t *rec);
void job_view_load(struct job *job, const json_t *rec);
struct job *job_from_json(const json_t *rec);
void job_destroy(struct job *job);

/* tick.c: the once-a-second checks, on the core's timer. */
void tick_setup(void);

/* submit.c: a job from a submission (the SUBMIT_JOB "job" object, doc/protocol.md),
 * checked, queued and recorded: 0 with *out the job (scheduled once its row
 * is durable), or an rc (err->text: Slurm's sentence, or "" for the rc's own).
 * test_only: only checked; *out is the caller's to destroy. */
struct submitter {
	uid_t uid;
	gid_t gid;
	struct in_addr origin;      /* the credential's (AllocNodes) */
	const char *key;            /* submission key, or NULL */
};
int job_submit(const json_t *spec, const struct submitter *who, bool test_only,
	       struct job **out, struct herd_error *err);

/* job_end.c: a job's end as its batch host reports it.  JOB_END_TAKEN: the
 * job has its final state (or was requeued, or had it already): the
 * reporter waits for that to be durable; JOB_END_NOT_OURS: no such job, or
 * a run that is not the job's (one given up on and requeued). */
struct job_end {
	uint32_t id;
	int status;                 /* wait status */
	bool timed_out, oom;
	const char *node;           /* the reporter, or NULL */
};
enum job_end_taken { JOB_END_TAKEN, JOB_END_NOT_OURS };
enum job_end_taken job_ended(const struct job_end *end);
struct job *job_copy(const struct job *job);   /* a new record with the same request, not in the table */
void job_forget(struct job *job);     /* out of the table, and destroyed */
void job_purge_old(time_t now);
void job_foreach(void (*fn)(struct job *job, void *arg), void *arg);
uint32_t job_base_priority(uint32_t id);
uint32_t job_priority(struct job *job);   /* 0 when held; else prio.c's (base - nice, or multifactor) */
/* A started job whose requeue is done (or need not wait): allocation given
 * back, restart count up, PENDING (held for requeuehold). */
void job_requeue_finish(struct job *job);
/* Fill %N (batch host) and %n/%t (0) in the output paths once the job has nodes. */
void job_expand_node_patterns(struct job *job);
/* Memory the job holds on its i-th allocated node (MB): --mem, or the CPUs
 * there times --mem-per-cpu. */
uint64_t job_node_mem(const struct job *job, int i);
/* Forget the job's allocation (nodes, CPU IDs, its steps' holds); the nodes
 * must have been given back (node_free) already. */
void job_alloc_clear(struct job *job);
/* Turn the job's -w/-x lists and partition list into indexes and pointers.
 * 0, or an rc (Invalid node name / partition) with err. */
int job_resolve(struct job *job, struct herd_error *err);
/* job_resolve, then what a submission and an update both check of where
 * the job may run: -C names known features, no node both in -w and -x; a
 * -w list longer than -N raises -N.  0, or an rc with err. */
int job_check_placement(struct job *job, struct herd_error *err);
/* The partitions the job may run in (at least its part). */
struct part *const *job_parts(const struct job *job, int *n);

/* Absolute output path for display: the patterns known in the controller
 * (%j %A %a %x %u %%) filled in; dflt when given is empty. */
char *job_output_path(const struct job *job, const char *given, const char *dflt);
void job_set_output_paths(struct job *job, const json_t *spec);

/* array.c */
/* Set up a new job as an array's meta record from its --array value; rc, or 0. */
int array_setup(struct job *job, const char *spec);
bool array_is_meta(const struct job *job);      /* has pending tasks in it */
/* The next task to start: split off the meta record (or the meta itself,
 * for the last pending task).  Steals nothing; the task is in the table. */
struct job *array_split(struct job *meta, uint32_t task_id);
/* Several pending tasks (those of tasks in meta's pending set, at least
 * one, not all) into one record of their own, still pending, out of the
 * meta record; one task: array_split. */
struct job *array_split_set(struct job *meta, const struct bitmap *tasks);
/* Every job of array array_job_id (meta record and tasks), through the
 * table's index by array ID (no scan of the whole table). */
void array_foreach(uint32_t array_job_id, void (*fn)(struct job *job, void *arg), void *arg);
char *array_pending_string(const struct job *meta);   /* "4-999", caller frees */
/* Where array array_job_id stands, for dependencies: task DEPEND_WHOLE, the
 * array as a whole (PENDING while a task waits, RUNNING while one runs, then
 * COMPLETED when all did, else the state of one that did not; start: the
 * last task's start); else that task.  -1 when no such array or task. */
int array_target_state(uint32_t array_job_id, uint32_t task, enum job_state *state,
		       time_t *start_time);
/* Task task_id of array array_job_id: its own record, else (split off the
 * meta record) a new one, still pending; NULL when the array has no such task. */
struct job *array_task_job(uint32_t array_job_id, uint32_t task_id);

/* node.c */
int node_index(const char *name);
char *node_list_string(const int *idx, int n);   /* "n[1-3]" of node indexes; caller frees */
void node_broadcast(int type);        /* an empty request of type to every node daemon */
void node_setup(void);
void node_register(struct net_req *req);
void node_check_timeouts(time_t now);
void node_request_registrations(void);   /* at start: every node, register now */
json_t *node_to_json(const struct node *node);
void node_alloc(struct job *job);     /* take the job's allocation on its nodes */
void node_free(struct job *job);      /* give it back */
/* A job suspended by preemption or gang lends its CPUs (their count, IDs
 * and its share of the node) to others while its memory stays held;
 * node_reclaim takes them again (node_free does when it ends so);
 * node_can_reclaim: whether they are all free now. */
void node_lend(struct job *job);
void node_reclaim(struct job *job);
bool node_can_reclaim(const struct job *job);
void node_update_state(struct node *node);
void node_update(struct net_req *req);     /* UPDATE_NODE: drain, down, resume */
void node_admin_restore(const char *name, const json_t *rec);   /* from the store at start */

/* part.c */
void part_setup(void);
/* conf's partitions into a new array with room for extra more (reconf.c). */
void part_build(const struct conf *conf, int extra, struct part **parts, int *nparts,
		struct part **default_part);
void part_release(struct part *p);      /* its fields; the array is the caller's */
struct part *part_find(const char *name);   /* a listed partition (not a removed one) */
json_t *part_to_json(const struct part *part);

/* sched.c */
void sched_request(void);             /* run a scheduling pass soon */
void sched_request_later(unsigned ms); /* and one after ms (a requeued job's delay) */
void sched_setup(void);
/* Can the job ever run in one of its partitions? 0, or an rc with err. */
int sched_job_runnable(const struct job *job, struct herd_error *err);
/* sbatch --test-only: where and when the job could start, on the nodes as
 * they are now (jobs with time limits end on time; nothing new comes).  0
 * with the answer filled, or an rc with err. */
int sched_test_only(const struct job *job, time_t *start, char **nodes, int *cpus,
		    const struct part **part, struct herd_error *err);
/* Every feature some node has, comma-separated (for checking -C). */
const char *sched_known_features(void);
void sched_features_changed(void);   /* the nodes' Features changed (a reconfigure) */
/* SchedulerType, SchedulerParameters: 0, or -1 with a sentence naming the
 * key (a reconfigure is refused; at start herdctld stops). */
int sched_check(const struct conf *conf, struct herd_error *err);
void sched_configure(const struct conf *conf);   /* checked: apply */
/* How long the passes take (ms), for sdiag-like reports and bench/sched. */
struct sched_stats {
	uint64_t main_passes, bf_passes;
	double main_last_ms, main_max_ms;
	double main_pass_last_ms;           /* of main_last_ms, sched_pass itself */
	double main_build_last_ms, main_apply_last_ms;   /* the snapshot; its decisions applied */
	double bf_last_ms, bf_max_ms;       /* the pass in the worker */
	double bf_apply_last_ms;            /* its decisions applied in the loop thread */
};
const struct sched_stats *sched_stats(void);

/* launch.c */
void launch_job(struct job *job);
void launch_terminate(struct job *job);
void launch_terminate_id(struct node *node, uint32_t job_id);
void launch_signal(struct job *job, int signal, const char *flags);
json_t *launch_object(const struct job *job, const json_t *spec);   /* LAUNCH's job keys */
char *launch_counts_string(const int *v, int n);   /* Slurm's "2(x3),1"; caller frees */
void launch_step_signal(struct node *node, uint32_t job_id, uint32_t step_id, int sig);
/* scontrol suspend/resume: SUSPEND_JOB to every node of the job. */
void launch_suspend(struct job *job, bool suspend);
struct net_target launch_node_target(const struct node *n);

/* store.c */
int store_open(const char *dir, struct herd_error *err);
int store_load(void);                 /* jobs into the job table, next_job_id */
/* Queue writes for the next group commit. */
void store_job_insert(const struct job *job, json_t *spec);   /* steals spec */
void store_job_update(const struct job *job);
void store_job_requeued(const struct job *job);   /* the run ending: its own REQUEUED record */
void store_job_event(uint32_t job_id, const char *event, const char *detail);
void store_node_admin(const char *name, json_t *rec);        /* steals rec */
void store_step_save(uint32_t job_id, uint32_t step_id, int state, json_t *rec);   /* steals rec */
/* Accounting objects (assoc.h): one JSON record per (kind, key), written
 * with the next group commit; store_acct_load calls fn for each stored
 * record of kind, in the order they were first written. */
void store_acct_put(const char *kind, const char *key, json_t *rec);   /* steals rec */
void store_acct_del(const char *kind, const char *key);
int store_acct_load(const char *kind, void (*fn)(const char *key, const json_t *rec, void *arg),
		    void *arg);
/* Run cb after everything queued so far is durable (ok false if the commit failed). */
void store_after_commit(void (*cb)(void *arg, bool ok), void *arg);
/* cb runs (ok true) once what was queued before it is durable, however many
 * commits fail first (a full disk): for work with no client to refuse. */
void store_after_durable(void (*cb)(void *arg, bool ok), void *arg);
json_t *store_job_spec(uint32_t job_id);
const char *store_path(void);          /* the database file, for other readers */
uint32_t store_find_key(uid_t uid, const char *key);
bool store_job_known(uint32_t job_id);                 /* any record of it, even purged */
/* A job's last committed state and start time, even purged from memory; -1 if none. */
int store_job_final(uint32_t job_id, enum job_state *state, time_t *start_time);
/* Every committed record of array array_job_id, as a job read from the
 * store (destroyed after fn); the number of records. */
int store_array_records(uint32_t array_job_id, void (*fn)(const struct job *job, void *arg),
			void *arg);
/* Nothing queued, nothing being committed (herd sim drains the store
 * with the loop until it is). */
bool store_quiet(void);
void store_close(void);

/* depend.c: --dependency (parse, evaluate, render) */
enum depend_type { DEP_AFTER, DEP_AFTERANY, DEP_AFTEROK, DEP_AFTERNOTOK, DEP_AFTERCORR,
		   DEP_SINGLETON };
struct depend_item {
	enum depend_type type;
	uint32_t job_id;            /* 0 for singleton */
	uint32_t task;              /* ID_TASK: that task of array job_id; else DEPEND_WHOLE */
	int minutes;                /* after:id+minutes */
	bool failed;                /* can never be met (sticky, as in Slurm) */
};
struct depend {
	bool any;                   /* '?': one item met is enough; else ',' all */
	size_t n;
	struct depend_item *items;  /* those not yet met (met ones are dropped) */
};
/* DEPEND_TASKS: for an array's meta record, only aftercorr items are left,
 * decided task by task (depend_task_ready). */
enum depend_result { DEPEND_NONE, DEPEND_WAIT, DEPEND_NEVER, DEPEND_TASKS };
/* Parse a --dependency spec; "" gives *out NULL.  -1 with err when malformed. */
int depend_parse(const char *spec, struct depend **out, struct herd_error *err);
void depend_destroy(struct depend *d);
/* What remains, as squeue %E shows it ("afterok:12(unfulfilled)"); "" = none. */
char *depend_render(const struct depend *d);
json_t *depend_to_json(const struct depend *d);     /* for the job record */
struct depend *depend_from_json(const json_t *o);   /* NULL when absent or empty */
/* Every target of d is a job that exists or existed; -1 with err if not. */
int depend_check_targets(const struct depend *d, struct herd_error *err);
/* Where a target stands.  The hook for job arrays: an array ID (task ==
 * DEPEND_WHOLE) or one task of it (aftercorr) can be answered here; a plain
 * job is answered from memory, else from the store.  -1 if it never existed. */
#define DEPEND_WHOLE UINT32_MAX
struct depend_target {
	enum job_state state;
	time_t start_time;
};
int depend_target_state(uint32_t job_id, uint32_t task, struct depend_target *out);
/* For a task of meta's array: are its aftercorr items met (true), can they
 * never be (*never), or not yet?  Changes nothing. */
bool depend_task_ready(const struct job *meta, uint32_t task, bool *never);
struct depend *depend_copy(const struct depend *d);
/* Drop what is met, mark what can never be; *changed when the job's record
 * must be saved again.  Frees job->depend when nothing is left. */
enum depend_result depend_evaluate(struct job *job, time_t now, bool *changed);

/* step.c: job steps inside an allocation (doc/steps.md) */
#define STEP_BATCH 4294967291u      /* SLURM_BATCH_SCRIPT: N.batch */
#define STEP_EXTERN 4294967292u     /* SLURM_EXTERN_CONT: N.extern */
void step_create(struct net_req *req);     /* STEP_CREATE */
void step_complete(struct net_req *req);   /* STEP_COMPLETE from a herdstepd */
void step_info(struct net_req *req);       /* STEP_INFO */
/* scancel N.S: sig 0 cancels; 0 or an rc. */
int step_cancel(struct job *job, uint32_t step_id, int sig, uid_t uid);
/* The job ended (state is its final state, or COMPLETING for a cancel):
 * every step still running ends with it, its processes are terminated. */
void step_job_ended(struct job *job, enum job_state state);
/* Node idx of the job failed: its steps there end NODE_FAIL. */
void step_node_failed(struct job *job, int idx);
void step_destroy_all(struct job *job);
/* PrologFlags=Contain: the job's N.extern on each of its nodes (at its start). */
void step_extern_start(struct job *job);
/* NODE_REGISTER listed fewer steps than node idx should run: a step part
 * there that is not in reported ([[job, step]]) and started over 30 s ago
 * lost its herdstepd; it counts as killed. */
void step_reconcile(int idx, const json_t *reported, time_t now);
json_t *step_to_json(const struct job *job, const struct step *step);   /* the stored record */
/* At start: a step the store says runs, back under its running job. */
void step_restore(const json_t *rec);
/* COMPLETE_ALLOC: salloc/srun are done with an alloc_only job. */
void step_complete_alloc(struct net_req *req);
/* Every second: alloc_only jobs past their time limit end TIMEOUT. */
void step_check_alloc_limits(time_t now);

/* names.c */
const char *names_user(uid_t uid);     /* cached; the number when unknown */
const char *names_group(gid_t gid);

/* acct.c: ACCT_JOBS, answered from the store by a worker */
void acct_jobs(struct net_req *req);

/* update.c: UPDATE_JOB's "update", "requeue" and "requeuehold".  admin: the
 * user is privileged for the job (roles_privileged); team: only the TeamJobs
 * rule lets the user act, so only a shorter TimeLimit is taken, and each
 * act is recorded (roles_record). */
void update_job_fields(struct net_req *req, struct job *job, bool admin, bool team);
/* Nice within Slurm's range, negative only for an administrator: 0 or an rc
 * (sbatch --nice and scontrol update Nice= share it). */
int update_check_nice(long long nice, bool admin);
void update_requeue(struct net_req *req, struct job *job, bool hold, bool team);
void launch_time_limit(struct job *job);   /* launch.c: tell the node a new limit */

/* mail.c: MailProg for --mail-type, never blocking the loop.  From
 * job_set_state (BEGIN, END, FAIL, TIME_LIMIT at a timeout), from
 * job_requeue_finish (REQUEUE), and every tick (TIME_LIMIT_50/80/90, and
 * TIME_LIMIT once the limit passed). */
void mail_job_state(struct job *job, enum job_state old);
void mail_spawn(const struct job *job, const char *to, const char *subject, const char *what,
		const char *times);   /* herdctld's core_env->mail */
void mail_job_requeued(const struct job *job);
void mail_check_time_limits(time_t now);

/* job_text.c: the free text of a submission or an update (job name,
 * comment, --mail-user, ...) is refused, with err, when it would break a
 * line of a record or reach MailProg as an option. */
int job_text_check(const json_t *fields, struct herd_error *err);
/* reconf.c: scontrol reconfigure and SIGHUP */
/* The settings read from conf (KillWait, SlurmdTimeout, ...) into ctld;
 * out-of-range values are logged and replaced, as at start. */
void reconf_settings(const struct conf *conf);
/* The keys conf sets that Herd accepts and does not act on (conf_inert.c),
 * logged as one warning; that sentence (to free), or NULL when none. */
char *reconf_inert_warning(const struct conf *conf);
/* Re-read ctld.conf->path and apply it whole; -1 with err (nothing
 * changed) when it does not load or needs a restart. */
/* warning (may be NULL): reconf_inert_warning's sentence, to free. */
int reconf_reload(struct herd_error *err, char **warning);
void reconf_rpc(struct net_req *req);

/* rpc.c */
void respond_durable(struct net_req *req, uint32_t job_id, bool with_id);
void rpc_handle(struct net_req *req, void *arg);
bool rpc_is_admin(uid_t uid);

/* auth_jwt.c: AuthAltTypes=auth/jwt (doc/protocol.md "Requests on a user's token") */
/* Read the key and options of conf; -1 with err (and the old settings kept)
 * when auth/jwt is on and its key cannot be used. */
int auth_jwt_configure(const struct conf *conf, struct herd_error *err);
/* A JWT_REQUEST: checks the relay, the token and the inner request, then
 * makes req that request of the token's user; returns its type, or -1 when
 * req was answered (refused). */
int auth_jwt_unwrap(struct net_req *req);
void auth_jwt_token_rpc(struct net_req *req);   /* TOKEN_CREATE */
/* counts.c: JOB_COUNTS */
void counts_rpc(struct net_req *req);

#endif
