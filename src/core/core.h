/* The controller core's state and its cross-cutting functions (doc/core.md).
 * The core is jobs, nodes, partitions, reservations, associations' use,
 * priority, eligibility, preemption and the scheduler's passes: no libuv,
 * socket, database or MUNGE, checked by tests/unit/test_core_includes.sh.
 * It takes its clock, timers, workers and effects from core/env.h and
 * persists through core/store.h; herdctld (src/ctld/) and `herd sim`
 * (src/herd/sim*.c) each supply both.  Everything here is owned by one
 * thread (the loop); workers get copies. */
#ifndef HERD_CORE_H
#define HERD_CORE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/conf.h"
#include "common/msg.h"
#include "common/state.h"
#include "core/env.h"
#include "acct/assoc.h"
#include "core/node.h"
#include "core/part.h"
#include "core/depend.h"
#include "core/job.h"
#include "core/sched_api.h"
#include "core/store.h"

struct core {
	struct conf *conf;
	const char *cluster;
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
	bool kill_invalid_depend;   /* SchedulerParameters=kill_invalid_depend */
	bool job_requeue;           /* JobRequeue: the default of --requeue */
	uint32_t next_job_id;
	uint32_t max_array_size;    /* MaxArraySize: task IDs are below it */
	time_t start_time;
	/* job table */
	struct job **job_hash, **key_hash, **array_hash;
	size_t job_hash_size, njobs;
	size_t njobs_exclusive_user;   /* of them, --exclusive=user ones (part_limits_nodes) */
	bool sched_queued;
};

extern struct core core;

/* tick.c: the once-a-second checks, on the core's timer. */
void tick_setup(void);

/* names.c */
const char *names_user(uid_t uid);     /* cached; the number when unknown */
const char *names_group(gid_t gid);
/* herd sim's users are made up (a trace numbers them): from first on, uid
 * first + N is "u<N>" and gid first + N "g<N>", without asking the name
 * service (names.c).  0: none, every name from the name service. */
void names_fictional(unsigned first);

/* May uid act as an administrator: root, SlurmUser, AdminLevel=Administrator. */
bool core_is_admin(uid_t uid);

/* update.c: UPDATE_JOB's "update", "requeue" and "requeuehold" by uid: 0
 * (the daemon answers once durable) or a HERD_ERR_* rc, with err's text when
 * there is more to say.  admin: the user is privileged for the job
 * (roles_privileged); team: only the TeamJobs rule lets the user act, so
 * only a shorter TimeLimit is taken, and each act is recorded
 * (roles_record). */
int update_job_fields(struct job *job, json_t *fields, uid_t uid, bool admin, bool team,
		      struct herd_error *err);
/* Nice within Slurm's range, negative only for an administrator: 0 or an rc
 * (sbatch --nice and scontrol update Nice= share it). */
int update_check_nice(long long nice, bool admin);
int update_requeue(struct job *job, uid_t uid, bool hold, bool team);

/* mail.c: which mail for --mail-type, sent through core_env->mail.  From
 * job_set_state (BEGIN, END, FAIL, TIME_LIMIT at a timeout), from
 * job_requeue_finish (REQUEUE), and every tick (TIME_LIMIT_50/80/90, and
 * TIME_LIMIT once the limit passed). */
void mail_job_state(struct job *job, enum job_state old);
void mail_job_requeued(const struct job *job);
void mail_check_time_limits(time_t now);

/* job_text.c: the free text of a submission or an update (job name,
 * comment, --mail-user, ...) is refused, with err, when it would break a
 * line of a record or reach MailProg as an option. */
int job_text_check(const json_t *fields, struct herd_error *err);

#endif
