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
#include "ctld/node.h"
#include "ctld/part.h"
#include "ctld/depend.h"
#include "ctld/job.h"
#include "ctld/sched_api.h"
#include "ctld/launch.h"
#include "ctld/store.h"
#include "ctld/step.h"

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

/* tick.c: the once-a-second checks, on the core's timer. */
void tick_setup(void);

/* names.c */
const char *names_user(uid_t uid);     /* cached; the number when unknown */
const char *names_group(gid_t gid);
/* herd sim's users are made up (a trace numbers them): from first on, uid
 * first + N is "u<N>" and gid first + N "g<N>", without asking the name
 * service (names.c).  0: none, every name from the name service. */
void names_fictional(unsigned first);

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
