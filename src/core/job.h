/* A job as the controller holds it: its record, its reasons, the job
 * table and arrays (job.c, job_view.c, submit.c, job_end.c, array.c).
 * Included by ctld.h. */
#ifndef HERD_CTLD_JOB_H
#define HERD_CTLD_JOB_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <netinet/in.h>
#include "common/error.h"
#include "common/state.h"

struct part;
struct bitmap;
struct depend;
struct step;

#define ARRAY_NO_TASK 4294967294u   /* array_task_id of a meta record (Slurm's NO_VAL) */
#define MAX_ARRAY_SIZE_LIMIT 4000001   /* slurm.conf(5): MaxArraySize at most 4000001 */
#define HET_MAX_COMPONENTS 128      /* components of a heterogeneous job, as Slurm */

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
	X(REASON_LICENSES, "Licenses") \
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
	bool changed;               /* its row is to be written (job_changed) */
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
	char *container;            /* --container: the OCI bundle path, or NULL */
	char *work_dir, *std_out, *std_err, *std_in, *command, *submit_host;
	struct in_addr origin;      /* the submission's MUNGE origin address (AllocNodes) */
	char *std_out_task, *std_err_task;   /* an array's meta record: the paths, %a left */
	char *key;                  /* submission key, or NULL */
	uint32_t req_nodes, ntasks, cpus_per_task;
	uint64_t mem_mb;
	bool exclusive;
	/* Where and how it may be placed (doc/scheduling.md, "Placement
	 * options"): -N min-max (max_nodes 0: exactly req_nodes), --mincpus,
	 * --tmp (MB of the node's TmpDisk), -B S:C:T (0: any), -s, -O,
	 * --spread-job, --use-min-nodes; -k keeps it running when one of its
	 * nodes fails (that node is dropped); --delay-boot is kept and shown. */
	uint32_t max_nodes, mincpus;
	uint64_t tmp_mb;
	uint32_t sockets_per_node, cores_per_socket, threads_per_core;
	bool oversubscribe, overcommit, spread_job, use_min_nodes, no_kill;
	bool exclusive_user;        /* --exclusive=user: its nodes only its user's jobs' */
	uint32_t delay_boot;        /* seconds */
	/* Set at its start: each of its CPUs may be up to this many jobs'
	 * (OverSubscribe=YES:N with -s, FORCE:N), so it counts 1/N of each
	 * on its nodes (job_node_charge); 0 or 1: its CPUs are its own. */
	uint32_t cpu_share;
	int64_t time_limit;         /* seconds, -1 = UNLIMITED */
	int64_t time_min;           /* --time-min seconds, TIME_NOT_GIVEN = none */
	bool requeue;               /* --requeue/--no-requeue, default JobRequeue */
	unsigned mail_type;         /* MAIL_* bits (common/parse.h) */
	unsigned mail_sent;         /* of the TIME_LIMIT* ones, those already mailed */
	char *mail_user;            /* default: the user */
	uint64_t mem_per_cpu;       /* MB, 0 = not asked (then mem_mb per node) */
	uint32_t ntasks_per_node;   /* 0 = not asked */
	uint32_t ntasks_per_socket, ntasks_per_core;   /* 0 = not asked (taskopts.c) */
	bool open_append;           /* --open-mode=append */
	int signal, signal_time;    /* --signal: 0 = none; seconds before the limit */
	bool signal_batch;          /* B: the batch shell only */
	char *qos;
	char *features;             /* -C expression, NULL = none */
	/* --batch: the features the batch host must have (NULL = none), and
	 * the nodes that have them, ascending (job_batch_set; the passes'
	 * requests point at it, so it is freed through backfill_free_later) */
	char *batch_features;
	int *batch_idx, nbatch_idx;
	char *reservation;          /* --reservation, NULL = none (resv.c) */
	char *wckey;                /* TrackWCKey: "name", "*default" (acct/wckey.c); NULL = none */
	uint32_t wckey_id;          /* its record's ID, 0 = none */
	/* -L as given, NULL = none; its items and, while it holds them, which
	 * of an OR list it holds (licenses.c) */
	char *licenses;
	struct job_lic *lic;
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
	/* GRES (job_gres.c, doc/gres.md section 2): the request as given
	 * (TRES form, "gres/gpu:h100:2"; NULL none), its items, and while it
	 * runs its devices on each allocated node (gres_hold arrays) */
	char *tres_per_job, *tres_per_node, *tres_per_socket, *tres_per_task;
	uint32_t cpus_per_gpu;
	uint64_t mem_per_gpu;       /* MB */
	char *gpu_bind, *gpu_freq, *gres_flags;
	struct job_gres *gres;
	int ngres;
	struct gres_hold **alloc_gres;   /* per allocated node (NULL: no GRES) */
	int *nalloc_gres;
	/* allocation, while running/completing */
	int nalloc;
	int *alloc_node;            /* node indexes */
	int batch_node;             /* the one of them the batch script runs on (job_batch_node) */
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
	/* Heterogeneous jobs (het.c): het_job_id is the leader's ID (component
	 * 0), 0 for a plain job; the components have consecutive IDs from it,
	 * het_job_offset 0..het_size-1.  They start together or not at all. */
	uint32_t het_job_id, het_job_offset, het_size;   /* het_size <= HET_MAX_COMPONENTS */
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
	/* GPU_USAGE (ctld/rpc_node.c, doc/gres.md section 4): per step ID (a
	 * decimal key), its GPUs' samples over its nodes; NULL none */
	json_t *gpu_usage;
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
void job_view_drop_het_keys(struct job_view *v);   /* the same for a het job's keys */
void job_view_write_row(const struct job_view *v, const struct job *job, struct strbuf *out);
/* The table's part of the stored record: every STORED field (job_to_json
 * adds the rest), and read back into a new job (job_from_json). */
void job_view_store(const struct job *job, json_t *rec);
void job_view_load(struct job *job, const json_t *rec);
struct job *job_from_json(const json_t *rec);
void job_destroy(struct job *job);
/* The job's row changed: it is written once, with whatever else changed,
 * just before the store's next commit (job_write_changed, called by the
 * store), or when the job leaves the table.  The one place a job's row is
 * written; a reply or launch that waits for the commit (store_after_commit,
 * store_after_durable) finds it in. */
void job_changed(struct job *job);
void job_write_changed(void);
bool job_any_changed(void);

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
/* The CPUs it counts against its i-th node: its CPUs there, shared
 * cpu_share ways (rounded up). */
int job_node_charge(const struct job *job, int i);
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
/* --batch: batch_idx made again from batch_features and the nodes'
 * features (the old one freed through backfill_free_later). */
void job_batch_set(struct job *job);
/* The node of the started job (nalloc > 0) its batch script runs on: the
 * first of its nodes with the --batch features (Slurm 22.05), else its first. */
int job_batch_pick(const struct job *job);
static inline int job_batch_node(const struct job *job)
{
	return job->batch_node;
}
/* The partitions the job may run in (at least its part). */
struct part *const *job_parts(const struct job *job, int *n);

/* Absolute output path for display: the patterns known in the controller
 * (%j %A %a %x %u %%) filled in; dflt when given is empty. */
char *job_output_path(const struct job *job, const char *given, const char *dflt);
void job_set_output_paths(struct job *job, const json_t *spec);

/* job_gres.c: generic resources (doc/gres.md section 2) */
#define JOB_GRES_MAX 4               /* items of one job (SCHED_GRES_ITEMS) */
struct job_gres {                    /* one requested name[:type], from every option */
	char name[32], type[64];
	uint32_t per_node, per_task, per_job, per_socket;
};
struct gres_hold {                   /* a device (count 1) or a share of one, on a node */
	char name[32], type[64];
	uint32_t index, count;
};
/* The SUBMIT_JOB keys tres_per_*, cpus_per_gpu, mem_per_gpu, gpu_bind,
 * gpu_freq, gres_flags into job: 0, or rc 2033 (Invalid generic resource
 * (gres) specification) with err when malformed, too large or of a GRES
 * no node has. */
int job_gres_set(struct job *job, const json_t *spec, struct herd_error *err);
void job_gres_load(struct job *job);     /* items from the stored strings */
void job_gres_free(struct job *job);     /* the request and the holds */
void job_gres_clear_alloc(struct job *job);
/* The pass's items of the job (kinds of the present configuration). */
struct sched_gres;
const struct sched_gres *job_gres_sched(const struct job *job, int *n);
/* The devices the GRES counts (n nodes x the job's items, sched_gres_split)
 * come to on those nodes, lowest free index first (with
 * --gres-flags=enforce-binding, those with the most free CPUs near them,
 * and false unless each node's cpus are free near them); false when they are not
 * free (a worker's pass on an older state).  install: they become the
 * job's (alloc_gres), else only checked. */
bool job_gres_pick(struct job *job, const int *node, const int *cpus, int n, const uint32_t *counts,
		   bool install);
int64_t job_gres_count(const struct job *job, const char *name);   /* held, or asked (pending) */
uint32_t job_node_gpus(const struct job *job, int i);   /* GPUs on its i-th node */
/* The LAUNCH "gres" records of its i-th node (NULL: none). */
json_t *job_gres_launch(const struct job *job, int i);
/* Its holds on node i as stored: [[name, type, index, count], ...]; back. */
json_t *job_gres_hold_json(const struct job *job, int i);
void job_gres_hold_load(struct job *job, int i, int nodes, const json_t *a);
/* "gpu:h100:2(IDX:0-1)": scontrol -d show job's GRES= of node i; caller frees. */
char *job_gres_node_string(const struct job *job, int i);
/* What it holds in all, as TRES: "gres/gpu=2,gres/gpu:h100=2"; while
 * pending, what it asks; only the names AccountingStorageTRES tracks, as
 * scontrol's TRES= shows (NULL none).  Caller frees. */
char *job_gres_alloc_string(const struct job *job);
/* The same of what it holds (alloc) or asks, whatever its state: its
 * accounting record's tres_alloc_gres and tres_req_gres (sacct's
 * AllocTRES, ReqTRES). */
char *job_gres_tres(const struct job *job, bool alloc);
/* TRES sums (a job's, a node's): count of name[:type] added to sum (n
 * items so far), and of name alone when typed, as Slurm counts them; the
 * sums as text ("gres/gpu=2,gres/gpu:h100=2"), only the names
 * AccountingStorageTRES tracks, NULL for none (caller frees). */
struct tres_item;
void gres_tres_add(struct tres_item *sum, int *n, const char *name, const char *type,
		   uint64_t count);
char *gres_tres_text(const struct tres_item *sum, int n);
/* A request as Slurm 22.05 shows it ("gres:gpu:2"), NULL for none.  Caller
 * frees. */
char *job_gres_shown(const char *tres);
/* Its holds as counts per pass kind on each node (nalloc x
 * SCHED_GRES_KINDS, caller frees), NULL when none. */
uint16_t *job_gres_kinds(const struct job *job);

/* het.c: heterogeneous jobs */
/* A SUBMIT_JOB with "het": every component checked, then made with
 * consecutive IDs (the leader's first); 0 with *out the leader, or an rc
 * and err as job_submit. */
int het_submit(const json_t *spec, const json_t *het, const struct submitter *who,
	       bool test_only, struct job **out, struct herd_error *err);
/* Component offset of het job leader_id; NULL when gone. */
struct job *het_component(uint32_t leader_id, uint32_t offset);
/* Every component still in the table of the het job job belongs to. */
void het_foreach(const struct job *job, void (*fn)(struct job *c, void *arg), void *arg);
/* "54-55": the IDs of the het job (HetJobIdSet); buf of len. */
const char *het_id_set(const struct job *job, char *buf, size_t len);
/* A component's state changed (a watcher): the leader's end ends the rest. */
void het_job_state(struct job *job, enum job_state old);

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

#endif
