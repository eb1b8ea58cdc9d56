/* Accounting objects in the controller (doc/accounting.md): clusters,
 * accounts, users, associations (cluster -> account tree -> user), QOS,
 * coordinators, and the TRES they are measured in.  Owned by the loop
 * thread, loaded from the store at start (kind/key/JSON rows of the
 * acct_objects table), changed only through ACCT_MGR (sacctmgr), every
 * change made durable before the reply.
 *
 * Who implements what:
 *   assoc.c   the objects, their store rows, ACCT_MGR (add/modify/delete/
 *             list/dump/load), the lookups below
 *   usage.c   fair-share usage (decayed), SHARE_INFO (sshare)
 *   roles.c   TeamJobs, PrivateData, coordinators' rights: who may act
 *   limits.c  AccountingStorageEnforce at submit and before a job starts */
#ifndef HERD_CTLD_ASSOC_H
#define HERD_CTLD_ASSOC_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/error.h"
#include "common/state.h"

struct job;
struct net_req;

/* Trackable resources, in Slurm's IDs and names.  A TRES vector holds one
 * int64 per entry; ACCT_UNSET (-1) means "no limit / not given". */
#define TRES_TABLE(X) \
	X(TRES_CPU, 1, "cpu") \
	X(TRES_MEM, 2, "mem") \
	X(TRES_ENERGY, 3, "energy") \
	X(TRES_NODE, 4, "node") \
	X(TRES_BILLING, 5, "billing") \
	X(TRES_FS_DISK, 6, "fs/disk") \
	X(TRES_VMEM, 7, "vmem") \
	X(TRES_PAGES, 8, "pages") \
	X(TRES_GPU, 1001, "gres/gpu")
enum tres {
#define TRES_ENUM(e, id, name) e,
	TRES_TABLE(TRES_ENUM)
#undef TRES_ENUM
	TRES_COUNT
};
#define ACCT_UNSET INT64_C(-1)
typedef int64_t tres_vec[TRES_COUNT];
int tres_id(enum tres t);                 /* 1, 2 ... 1001 */
const char *tres_name(enum tres t);       /* "cpu", "gres/gpu" */
/* "cpu=10,mem=4G,node=2,gres/gpu=8" (mem in MB, suffixes K M G T) into v
 * (entries not named are left alone; "cpu=-1" clears one).  -1 with a
 * sentence in err (at least 128 bytes) for an unknown name or bad count. */
int tres_parse(const char *s, tres_vec v, char *err, size_t errlen);
/* Back to "cpu=10,mem=4G" (set entries only, table order), caller frees. */
char *tres_string(const tres_vec v);
void tres_clear(tres_vec v);              /* every entry ACCT_UNSET */

/* Limits of an association or a QOS: ACCT_UNSET = none.  Times in minutes. */
struct acct_limits {
	int64_t grp_jobs, grp_submit, max_jobs, max_submit, max_wall, grp_wall;
	tres_vec grp_tres, grp_tres_mins, max_tres_per_job, max_tres_per_node,
		 max_tres_mins_per_job;
};
void acct_limits_clear(struct acct_limits *l);

enum admin_level { ADMIN_NONE, ADMIN_OPERATOR, ADMIN_ADMIN };

#define ACCT_FLAG_TEAMJOBS 0x1u    /* sacctmgr modify account A set flags=TeamJobs */

struct acct_cluster {
	char *name;
	time_t created;
	struct acct_cluster *next;
};

struct acct_account {
	char *name, *description, *organization;
	unsigned flags;              /* ACCT_FLAG_* */
	char **coords;               /* coordinators' user names, NULL-terminated */
	struct acct_account *next;
};

struct acct_user {
	char *name;
	uid_t uid;                   /* from the password database when added; (uid_t)-1 unknown */
	enum admin_level admin;
	char *default_account, *default_wckey;
	struct acct_user *next;
};

struct acct_qos {
	char *name, *description;
	uint32_t id;
	uint32_t priority;
	double usage_factor;         /* 1.0 */
	unsigned flags;              /* QOS_FLAG_* */
	char *preempt;               /* QOS names, comma-separated, NULL none */
	char *preempt_mode;          /* "cluster" (default), "cancel", "requeue", "suspend" */
	/* Per user of the QOS (max_jobs = MaxJobsPerUser, max_submit =
	 * MaxSubmitJobsPerUser), per job (max_wall, max_tres_per_job) and the
	 * QOS as a whole (grp_*). */
	struct acct_limits lim;
	tres_vec max_tres_per_user;
	/* live, not stored */
	int64_t jobs_running, jobs_submitted;
	tres_vec tres_running;
	struct acct_qos *next;
};
#define QOS_FLAG_DENY_ON_LIMIT 0x1u

/* A workload characterization key: name (lower case) for one user on one
 * cluster (wckey.c). */
struct acct_wckey {
	uint32_t id;                 /* stable, given at add (store key) */
	char *name, *cluster, *user;
	struct acct_wckey *next;
};

/* One association: an account's (user NULL) or a user's under an account,
 * optionally for one partition, on one cluster.  The account tree is the
 * account associations' parent links; root is the cluster's "root" account
 * association.  A user association's parent is its account's association. */
struct assoc {
	uint32_t id;                 /* stable, given at add (store key) */
	char *cluster, *account, *user, *partition;   /* user, partition NULL when none */
	char *parent_acct;           /* account associations: the parent account; NULL for root */
	struct assoc *parent;        /* resolved: the parent account's association */
	uint32_t shares;             /* Fairshare=N (default 1); SHARES_PARENT for "parent" */
	struct acct_limits lim;
	char *qos_list;              /* "normal,high"; NULL = inherit from the parent */
	char *default_qos;           /* NULL = inherit */
	/* live counters, kept by limits.c (not stored): this association and
	 * (for account associations) everything under it */
	int64_t jobs_running, jobs_submitted;
	tres_vec tres_running;
	/* usage.c: decayed usage in billing-seconds, and per TRES (TRES-seconds)
	 * for GrpTRESMins; stored as kind "usage" rows */
	double raw_usage;
	double tres_usage[TRES_COUNT];
	time_t usage_time;           /* when raw_usage was last decayed */
	bool deleted;                /* gone from the tree, kept while jobs point at it */
	struct assoc *next;
};
#define SHARES_PARENT UINT32_MAX

struct accounting {
	struct acct_cluster *clusters;
	struct acct_account *accounts;
	struct acct_user *users;
	struct acct_qos *qos;
	struct assoc *assocs;        /* every association, in ID order */
	struct acct_wckey *wckeys;   /* wckey.c */
	uint32_t next_assoc_id, next_qos_id, next_wckey_id;
	/* AccountingStorageEnforce */
	bool enforce_assoc, enforce_limits, enforce_qos, enforce_safe, enforce_wckeys;
	bool track_wckey;            /* TrackWCKey */
	/* PrivateData */
	bool private_jobs, private_usage, private_users, private_accounts;
};
extern struct accounting accounting;

/* assoc.c */
/* At start, after store_open: the cluster's own objects (the cluster,
 * "root" account and association, the "normal" QOS, root user as
 * Administrator are made when the store has none), then the stored ones.
 * Reads AccountingStorageEnforce and PrivateData from the config. */
void assoc_setup(void);
void assoc_reconfigure(void);          /* the config's keys again */
/* sacctmgr's requests (msg ACCT_MGR, doc/accounting.md; herdctld's
 * ctld/rpc_acct.c answers them), by uid: 0 with *out (the answer's body, to
 * free) and *changed (true: answer once committed), or a HERD_ERR_* rc with
 * sacctmgr's sentence in err. */
int assoc_mgr_request(uid_t uid, const json_t *body, json_t **out, bool *changed,
		      struct herd_error *err);
/* The same request made inside the controller, as uid, with no client to
 * answer (herd sim makes its trace's users so): body as ACCT_MGR's
 * (doc/protocol.md).  0, or -1 with sacctmgr's sentence in err. */
int assoc_mgr_local(uid_t uid, const json_t *body, struct herd_error *err);
/* `sacctmgr -i load`'s records (flat file lines as sacctmgr parses them),
 * by root, through ACCT_MGR's own handler: herd sim's --accounts.  0, or
 * an rc with err ("Line N: ..."). */
int assoc_load_records(const json_t *records, struct herd_error *err);
struct acct_account *acct_account_find(const char *name);
struct acct_user *acct_user_find(const char *name);
struct acct_user *acct_user_by_uid(uid_t uid);
struct acct_qos *acct_qos_find(const char *name);
/* The association of a job: user's under account (partition's first, then
 * the one without a partition), on this cluster; NULL when none. */
struct assoc *assoc_find(const char *account, const char *user, const char *partition);
struct assoc *assoc_find_account(const char *account);   /* the account's own */
struct assoc *assoc_by_id(uint32_t id);
/* The user's default account (their user record's), NULL when none. */
const char *acct_default_account(const char *user);
/* The QOS a job of this association may use: explicit list, else the
 * nearest ancestor's; the default likewise ("normal" when none). */
bool assoc_qos_allowed(const struct assoc *a, const char *qos);
const char *assoc_default_qos(const struct assoc *a);
/* Is account `account` the same as or under `top` in the tree? */
bool acct_account_under(const char *account, const char *top);
/* Every user name with an association under account (direct). */
void assoc_foreach(void (*fn)(struct assoc *a, void *arg), void *arg);

/* Lookups of roles (assoc.c: they read its objects). */
enum admin_level acct_admin_level(uid_t uid);   /* root and SlurmUser: ADMIN_ADMIN */
bool acct_is_operator(uid_t uid);      /* Operator or Administrator (or root/SlurmUser) */
/* Coordinator of account or of an account above it. */
bool acct_is_coord(uid_t uid, const char *account);
/* Has uid's user an association under account (directly)? */
bool acct_user_in_account(uid_t uid, const char *account);

/* roles.c */
/* What a user may do to someone else's job.  JOB_ACT_* are the acts a
 * TeamJobs account opens to its members. */
enum job_act { JOB_ACT_CANCEL, JOB_ACT_SIGNAL, JOB_ACT_HOLD, JOB_ACT_RELEASE,
	       JOB_ACT_REQUEUE, JOB_ACT_TIME_LIMIT, JOB_ACT_UPDATE, JOB_ACT_COUNT };
const char *job_act_name(enum job_act a);   /* "cancel", "signal", "hold" ... */
/* May uid do act to job?  Owner, operators, coordinators of the job's
 * account, and (for TeamJobs accounts, the team acts only) users with an
 * association under the job's account.  *team is set when only the team
 * rule allowed it (the act is then recorded, roles_record). */
bool roles_may_act(uid_t uid, const struct job *job, enum job_act act, bool *team);
/* May uid make code run as the job's owner (a step, anything that runs in
 * the job)?  Only the owner, root and SlurmUser: roles_may_act's roles
 * manage a job, never act as its owner (doc/accounting.md). */
bool roles_may_act_as_owner(uid_t uid, const struct job *job);
/* Record a team act on job: a job event and an entry of the job's "acts"
 * (shown by scontrol show job and sacct). */
void roles_record(struct job *job, uid_t uid, enum job_act act, const char *detail);
/* PrivateData=jobs: may uid see job? */
bool roles_may_see_job(uid_t uid, const struct job *job);
/* For readers off the loop thread (acct.c's workers): the accounts whose
 * jobs uid may see besides its own (those it coordinates, with the ones
 * under them, and TeamJobs accounts it belongs to), NULL-terminated, caller
 * frees (array and strings); *all set when uid sees every job (no
 * PrivateData=jobs, or an operator). */
char **roles_visible_accounts(uid_t uid, bool *all);
void roles_accounts_free(char **accounts);      /* roles_visible_accounts' answer */
bool roles_account_listed(char *const *accounts, const char *account);
/* Operator, administrator, or coordinator of the job's account: acts on the
 * job as an administrator would (holds as JobHeldAdmin, releases those,
 * raises its time limit, negative Nice). */
bool roles_privileged(uid_t uid, const struct job *job);

/* limits.c */
/* At submission: associations (refused without one), QOS, submit limits;
 * fills job->account and job->qos defaults.  0, or an rc with err. */
struct herd_error;
int limits_check_submit(struct job *job, struct herd_error *err);
/* Before a start: the running limits (GrpTRES, GrpJobs, MaxJobs,
 * GrpTRESMins, QOS limits).  REASON_NONE when it may start, else the
 * reason it waits for (AssocGrpCpuLimit ...). */
int limits_check_start(const struct job *job);
/* Counters: a job was submitted / started / ended (any final state). */
void limits_job_submitted(const struct job *job);
void limits_job_started(const struct job *job);
void limits_job_ended(const struct job *job, bool was_running);
/* Each tick: running jobs of an association at its GrpTRESMins end TIMEOUT. */
void limits_tick(time_t now);

/* usage.c */
void usage_setup(void);                /* PriorityDecayHalfLife, stored usage */
/* Each tick: running jobs' usage added (CPU-seconds x UsageFactor along the
 * job's association and its ancestors), everything decayed. */
void usage_tick(time_t now);
/* SHARE_INFO's answer (sshare): the shares body asks for that uid may see. */
json_t *usage_share_info(const json_t *body, uid_t uid);
/* Every association's FairShare as sshare prints it now, by association
 * ID (*n entries, -1 for IDs without a row); caller frees (prio.c). */
double *usage_fairshares(time_t now, uint32_t *n);
/* job_set_state calls it on every change (job->state is the new one):
 * a job that now holds an allocation (RUNNING, COMPLETING) is charged from
 * its start (a resumed one from now), one that no longer does up to its
 * end; usage.c keeps these jobs in a list of its own. */
void usage_job_state(struct job *job, enum job_state old);
/* What a started job holds, as TRES counts (cpu, mem MB, node, gres/gpu,
 * billing rounded up), and its billing: TRESBillingWeights of its
 * partition (GRES/gpu=2 weighs its GPUs), else its CPUs. */
double usage_job_tres(const struct job *job, int64_t tres[TRES_COUNT]);
/* Charge and store every association's usage now (at shutdown). */
void usage_save(time_t now);

/* wckey.c: WCKeys.  Loaded at start (assoc_setup), freed with the rest. */
void wckey_load(void);
void wckey_free_all(void);
void wckey_drop_user(const char *user);   /* every wckey of a user that goes */
void wckey_drop_cluster(const char *cluster);   /* of a cluster that goes */
struct acct_wckey *acct_wckey_find(const char *cluster, const char *name, const char *user);
/* At submission, given the spec's "wckey" (NULL or "" when not given):
 * with TrackWCKey the job's wckey (lower case; "*default" or "*" when none
 * was given) and its record's ID; refused with AccountingStorageEnforce=
 * wckeys when the user has no such wckey (or no default).  Without
 * TrackWCKey the job gets none.  0, or an rc with err. */
int wckey_job_submit(struct job *job, const char *given, struct herd_error *err);
/* scontrol update job WCKey= (a pending job): the job's new wckey and ID
 * (*wckey to free, NULL on error; the job's own without TrackWCKey), checked likewise; an
 * unknown one without enforcement becomes the user's default.  The job is
 * not changed.  0, or an rc with err. */
int wckey_job_update(const struct job *job, const char *value, char **wckey, uint32_t *id,
		     struct herd_error *err);

/* report.c: ACCT_REPORT (sreport), and the node events it records each tick. */
void report_rpc(struct net_req *req);
void report_tick(time_t now);

#endif
