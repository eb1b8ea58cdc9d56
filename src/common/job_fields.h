/* A job's fields, once: each key of the JOB object (JOB_INFO) and of the
 * stored record, its JSON type, where it lives, and the names Slurm's
 * commands give it; then the fields the commands compute from those keys or
 * show as Slurm's placeholders.  The controller (ctld/job_view.c: what it
 * shows and stores) and squeue (cmd/squeue_cols.c) are driven by it; what
 * each key means is doc/protocol.md's.  A new field is a row here, then the
 * controller's value of it (job_view.c refuses to build without one). */
#ifndef HERD_JOB_FIELDS_H
#define HERD_JOB_FIELDS_H
#include <stdbool.h>
#include <stddef.h>

enum job_field_type {
	JOB_FIELD_NONE,   /* no JOB key: computed by the commands, or a placeholder */
	JOB_FIELD_INT,
	JOB_FIELD_STR,
	JOB_FIELD_BOOL,
	JOB_FIELD_LIST,   /* a JSON array, written by the controller's own code */
};

enum {
	JF_SHOWN = 1,     /* in the JOB object of JOB_INFO */
	JF_STORED = 2,    /* in the stored record (job_to_json), with the value shown */
	JF_ARRAY = 4,     /* only for an array's jobs, in both */
	JF_SPARSE = 8,    /* stored only when not 0, "" or false (absent reads so) */
	JF_HET = 16,      /* only for a heterogeneous job's components, in both */
	JF_KEPT = JF_SHOWN | JF_STORED,
};

/* The fields the controller has, in the order JOB_INFO writes them:
 * X(key, type, flags, squeue -o letter (below ' ': Slurm has none, -O only), squeue -O name, squeue title,
 *   scontrol show job KEY, sacct -o name of the same value, slurmrestd
 *   v0.0.38 job key of the same value), 0/NULL: none.
 * STORED fields the record keeps otherwise than shown (partition, reason,
 * eligible_time, num_tasks: what was asked) are job_to_json's own; so are
 * the record's structured keys (alloc, depend, acts, kill_invalid_dep). */
#define JOB_KEYS(X) \
	X(job_id, INT, JF_KEPT, 'A', "JobID", "JOBID", "JobId", "JobIDRaw", "job_id") \
	X(name, STR, JF_KEPT, 'j', "Name", "NAME", "JobName", "JobName", "name") \
	X(user, STR, JF_KEPT, 'u', "UserName", "USER", "UserId", "User", "user_name") \
	X(uid, INT, JF_KEPT, 'U', "UID", "UID", NULL, "UID", "user_id") \
	X(gid, INT, JF_KEPT, 'G', "GroupID", "GROUP", NULL, "GID", "group_id") \
	X(group, STR, JF_SHOWN, 'g', "GroupName", "GROUP", "GroupId", "Group", "group_name") \
	X(account, STR, JF_KEPT, 'a', "Account", "ACCOUNT", "Account", "Account", "account") \
	X(partition, STR, JF_KEPT, 'P', "Partition", "PARTITION", "Partition", "Partition", "partition") \
	X(partitions, STR, JF_KEPT, 0, NULL, NULL, NULL, NULL, NULL) \
	X(comment, STR, JF_KEPT, 'k', "Comment", "COMMENT", "Comment", "Comment", "comment") \
	X(state, STR, JF_KEPT, 'T', "State", "STATE", "JobState", "State", "job_state") \
	X(reason, STR, JF_KEPT, 'r', "Reason", "REASON", "Reason", "Reason", "state_reason") \
	X(priority, INT, JF_KEPT, 'Q', "PriorityLong", "PRIORITY", "Priority", "Priority", "priority") \
	X(nice, INT, JF_KEPT, 'y', "Nice", "NICE", "Nice", NULL, "nice") \
	X(nodes, STR, JF_KEPT, 'N', "NodeList", "NODELIST", "NodeList", "NodeList", "nodes") \
	X(batch_host, STR, JF_KEPT, 'B', "BatchHost", "EXEC_HOST", "BatchHost", NULL, "batch_host") \
	X(num_nodes, INT, JF_KEPT, 'D', "NumNodes", "NODES", "NumNodes", "NNodes", "node_count") \
	X(num_cpus, INT, JF_KEPT, 'C', "NumCPUs", "CPUS", "NumCPUs", "AllocCPUS", "cpus") \
	X(num_tasks, INT, JF_KEPT, 0, NULL, NULL, "NumTasks", NULL, "tasks") \
	X(cpus_per_task, INT, JF_KEPT, 'c', "MinCpus", "MIN_CPUS", "CPUs/Task", NULL, "cpus_per_task") \
	X(mem_per_node, INT, JF_KEPT, 'm', "MinMemory", "MIN_MEMORY", "MinMemoryNode", NULL, "memory_per_node") \
	X(mem_per_cpu, INT, JF_KEPT, 0, NULL, NULL, "MinMemoryCPU", NULL, "memory_per_cpu") \
	X(ntasks_per_node, INT, JF_KEPT, 0, NULL, NULL, "NtasksPerN:B:S:C", NULL, "tasks_per_node") \
	X(ntasks_per_socket, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, "tasks_per_socket") \
	X(ntasks_per_core, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, "tasks_per_core") \
	X(exclusive, BOOL, JF_KEPT, 'h', "OverSubscribe", "OVER_SUBSCRIBE", "OverSubscribe", NULL, NULL) \
	X(oversubscribe, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(max_nodes, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(mincpus, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, "MinCPUsNode", NULL, "minimum_cpus_per_node") \
	X(min_tmp_disk, INT, JF_KEPT | JF_SPARSE, 'd', "MinTmpDisk", "MIN_TMP_DISK", "MinTmpDiskNode", NULL, "minimum_tmp_disk_per_node") \
	X(sockets_per_node, INT, JF_KEPT | JF_SPARSE, 'H', "SocketsPerNode", "SOCKETS_PER_NODE", NULL, NULL, "sockets_per_node") \
	X(cores_per_socket, INT, JF_KEPT | JF_SPARSE, 'I', "CoresPerSocket", "CORES_PER_SOCKET", NULL, NULL, "cores_per_socket") \
	X(threads_per_core, INT, JF_KEPT | JF_SPARSE, 'J', "ThreadsPerCore", "THREADS_PER_CORE", NULL, NULL, "threads_per_core") \
	X(overcommit, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(spread_job, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(use_min_nodes, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(no_kill, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(exclusive_user, BOOL, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(delay_boot, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, "DelayBoot", NULL, NULL) \
	X(time_limit, INT, JF_KEPT, 'l', "TimeLimit", "TIME_LIMIT", "TimeLimit", "Timelimit", NULL) \
	X(time_min, INT, JF_KEPT, 0, NULL, NULL, "TimeMin", NULL, NULL) \
	X(submit_time, INT, JF_KEPT, 'V', "SubmitTime", "SUBMIT_TIME", "SubmitTime", "Submit", "submit_time") \
	X(eligible_time, INT, JF_KEPT, 0, NULL, NULL, "EligibleTime", "Eligible", "eligible_time") \
	X(start_time, INT, JF_KEPT, 'S', "StartTime", "START_TIME", "StartTime", "Start", "start_time") \
	X(end_time, INT, JF_KEPT, 'e', "EndTime", "END_TIME", "EndTime", "End", NULL) \
	X(deadline, INT, JF_KEPT, 0, NULL, NULL, "Deadline", NULL, NULL) \
	X(exit_code, INT, JF_KEPT, 0, NULL, NULL, "ExitCode", "ExitCode", "exit_code") \
	X(work_dir, STR, JF_KEPT, 'Z', "WorkDir", "WORK_DIR", "WorkDir", "WorkDir", "current_working_directory") \
	X(std_out, STR, JF_KEPT, 0, NULL, NULL, "StdOut", NULL, "standard_output") \
	X(std_err, STR, JF_KEPT, 0, NULL, NULL, "StdErr", NULL, "standard_error") \
	X(std_in, STR, JF_KEPT, 0, NULL, NULL, "StdIn", NULL, "standard_input") \
	X(command, STR, JF_KEPT, 'o', "Command", "COMMAND", "Command", NULL, "command") \
	X(submit_host, STR, JF_KEPT, 0, NULL, NULL, "AllocNode:Sid", NULL, NULL) \
	X(restarts, INT, JF_KEPT, 0, NULL, NULL, "Restarts", NULL, "restart_cnt") \
	X(requeue, BOOL, JF_KEPT, 0, NULL, NULL, "Requeue", NULL, NULL) \
	X(mail_type, STR, JF_KEPT, 0, NULL, NULL, "MailType", NULL, NULL) \
	X(mail_user, STR, JF_KEPT, 0, NULL, NULL, "MailUser", NULL, "mail_user") \
	X(open_mode, STR, JF_KEPT, 0, NULL, NULL, NULL, NULL, NULL) \
	X(signal, INT, JF_KEPT, 0, NULL, NULL, NULL, NULL, NULL) \
	X(signal_time, INT, JF_KEPT, 0, NULL, NULL, NULL, NULL, NULL) \
	X(signal_flags, STR, JF_KEPT, 0, NULL, NULL, NULL, NULL, NULL) \
	X(qos, STR, JF_KEPT, 'q', "QOS", "QOS", "QOS", "QOS", NULL) \
	X(features, STR, JF_KEPT, 'f', "Feature", "FEATURES", "Features", "Constraints", "features") \
	X(batch_features, STR, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, "batch_features") \
	X(reservation, STR, JF_KEPT | JF_SPARSE, 'v', "Reservation", "RESERVATION", "Reservation", NULL, NULL) \
	X(container, STR, JF_KEPT | JF_SPARSE, '\x04', "Container", "CONTAINER", "Container", "Container", "container") \
	X(wckey, STR, JF_KEPT | JF_SPARSE, 'w', "WCKey", "WCKEY", "WCKey", "WCKey", "wckey") \
	X(wckey_id, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, "WCKeyID", NULL) \
	X(licenses, STR, JF_KEPT | JF_SPARSE, 'W', "Licenses", "LICENSES", "Licenses", NULL, "licenses") \
	X(tres_per_job, STR, JF_KEPT | JF_SPARSE, '\x05', "tres-per-job", "TRES_PER_JOB", "TresPerJob", NULL, "tres_per_job") \
	X(tres_per_node, STR, JF_KEPT | JF_SPARSE, 'b', "tres-per-node", "TRES_PER_NODE", "TresPerNode", NULL, "tres_per_node") \
	X(tres_per_socket, STR, JF_KEPT | JF_SPARSE, '\x06', "tres-per-socket", "TRES_PER_SOCKET", "TresPerSocket", NULL, "tres_per_socket") \
	X(tres_per_task, STR, JF_KEPT | JF_SPARSE, '\x07', "tres-per-task", "TRES_PER_TASK", "TresPerTask", NULL, "tres_per_task") \
	X(cpus_per_gpu, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, "cpus_per_tres") \
	X(mem_per_gpu, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, "memory_per_tres") \
	X(gpu_bind, STR, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(gpu_freq, STR, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(gres_flags, STR, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(gres_alloc, STR, JF_SHOWN, '\x08', "tres-alloc", "TRES_ALLOC", NULL, NULL, NULL) \
	/* accounting (core/job_gres.c job_gres_tres, usage.c): the GRES TRES AccountingStorageTRES \
	 * names, asked and held ("gres/gpu=2,gres/gpu:h100=2"), and the billing TRES */ \
	X(tres_req_gres, STR, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(tres_alloc_gres, STR, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(billing, INT, JF_KEPT | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(req_nodelist, STR, JF_KEPT, 'n', "ReqNodes", "REQ_NODES", "ReqNodeList", NULL, "required_nodes") \
	X(exc_nodelist, STR, JF_KEPT, 'x', "ExcNodes", "EXC_NODES", "ExcNodeList", NULL, "excluded_nodes") \
	X(dependency, STR, JF_SHOWN, 'E', "Dependency", "DEPENDENCY", "Dependency", NULL, NULL) \
	X(node_alloc, LIST, JF_SHOWN, 0, NULL, NULL, NULL, NULL, NULL) \
	X(acts, LIST, JF_SHOWN, 0, NULL, NULL, "TeamActs", "TeamActs", NULL) \
	X(start_estimate, INT, JF_SHOWN, 0, NULL, NULL, NULL, NULL, NULL) \
	X(sched_nodes, STR, JF_SHOWN, 'Y', "SchedNodes", "SCHEDNODES", "SchedNodeList", NULL, NULL) \
	X(array_job_id, INT, JF_KEPT | JF_ARRAY, 'F', "ArrayJobID", "ARRAY_JOB_ID", "ArrayJobId", NULL, NULL) \
	X(array_task_id, INT, JF_KEPT | JF_ARRAY, 'K', "ArrayTaskID", "ARRAY_TASK_ID", "ArrayTaskId", NULL, NULL) \
	X(array_tasks, STR, JF_KEPT | JF_ARRAY, 0, NULL, NULL, NULL, NULL, NULL) \
	X(array_throttle, INT, JF_KEPT | JF_ARRAY, 0, NULL, NULL, "ArrayTaskThrottle", NULL, NULL) \
	X(std_out_task, STR, JF_KEPT | JF_ARRAY | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(std_err_task, STR, JF_KEPT | JF_ARRAY | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	/* heterogeneous jobs (core/het.c) */ \
	X(het_job_id, INT, JF_KEPT | JF_HET, '\x01', "HetJobID", "HET_JOB_ID", "HetJobId", NULL, "het_job_id") \
	X(het_job_offset, INT, JF_KEPT | JF_HET, '\x03', "HetJobOffset", "HET_JOB_OFFSET", "HetJobOffset", NULL, "het_job_offset") \
	X(het_job_id_set, STR, JF_SHOWN | JF_HET, '\x02', "HetJobIDSet", "HET_JOB_ID_SET", "HetJobIdSet", NULL, "het_job_id_set") \
	/* the record's own: how the controller resumes the job after a restart */ \
	X(origin, STR, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(priority_admin, INT, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(cpu_share, INT, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(accrue_time, INT, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(mail_sent, INT, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(alloc_only, BOOL, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(next_step_id, INT, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(req_nodes, INT, JF_STORED, 0, NULL, NULL, NULL, "ReqNodes", NULL) \
	X(mem_mb, INT, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(hold_user, BOOL, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(hold_admin, BOOL, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(cancel_requested, BOOL, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(requeue_requested, BOOL, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(requeue_hold, BOOL, JF_STORED, 0, NULL, NULL, NULL, NULL, NULL) \
	X(preempted, BOOL, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(cpus_lent, BOOL, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(gang_suspended, BOOL, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(key, STR, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(licenses_alt, INT, JF_STORED | JF_SPARSE, 0, NULL, NULL, NULL, NULL, NULL) \
	X(array_count, INT, JF_STORED | JF_ARRAY, 0, NULL, NULL, NULL, NULL, NULL) \
	X(array_min, INT, JF_STORED | JF_ARRAY, 0, NULL, NULL, NULL, NULL, NULL) \
	X(array_max, INT, JF_STORED | JF_ARRAY, 0, NULL, NULL, NULL, NULL, NULL) \
	X(array_step, INT, JF_STORED | JF_ARRAY, 0, NULL, NULL, NULL, NULL, NULL) \
	X(het_size, INT, JF_STORED | JF_HET, 0, NULL, NULL, NULL, NULL, NULL)

/* What the commands make of those keys, and Slurm's fields Herd does not
 * have (the commands show Slurm's "nothing here" for them). */
#define JOB_DERIVED(X) \
	X(job_array_id, NONE, 0, 'i', "JobArrayID", "JOBID", "JobId", "JobID", NULL) \
	X(state_compact, NONE, 0, 't', "StateCompact", "ST", NULL, NULL, NULL) \
	X(reason_list, NONE, 0, 'R', "ReasonList", "NODELIST(REASON)", NULL, NULL, NULL) \
	X(priority_norm, NONE, 0, 'p', "Priority", "PRIORITY", NULL, NULL, NULL) \
	X(time_used, NONE, 0, 'M', "TimeUsed", "TIME", "RunTime", "Elapsed", NULL) \
	X(time_left, NONE, 0, 'L', "TimeLeft", "TIME_LEFT", NULL, NULL, NULL) \
	X(contiguous, NONE, 0, 'O', "Contiguous", "CONTIGUOUS", "Contiguous", NULL, NULL) \
	X(core_spec, NONE, 0, 'X', "CoreSpec", "CORE_SPEC", "CoreSpec", NULL, NULL) \
	X(sct, NONE, 0, 'z', "SCT", "S:C:T", NULL, NULL, NULL)

#define JOB_FIELD_ID(key, ...) JOB_F_##key,
enum job_field_id {
	JOB_KEYS(JOB_FIELD_ID)
	JOB_F_NKEYS,   /* the controller's fields are below this */
	JOB_F_DERIVED_ = JOB_F_NKEYS - 1,
	JOB_DERIVED(JOB_FIELD_ID)
	JOB_F_COUNT
};
#undef JOB_FIELD_ID

struct job_field {
	const char *key;          /* the JOB / record key; a derived field's name */
	enum job_field_type type;
	unsigned flags;           /* JF_* */
	char letter;              /* squeue -o, 0 = none */
	const char *long_name;    /* squeue -O */
	const char *title;        /* squeue's header */
	const char *scontrol;     /* scontrol show job's KEY= */
	const char *sacct;        /* sacct -o, where it reads this very value */
	const char *rest;         /* slurmrestd v0.0.38's key, where it is this very value */
};

extern const struct job_field job_fields[JOB_F_COUNT];

/* The field of a JOB key or derived name, or NULL. */
const struct job_field *job_field_find(const char *key);

#endif
