/* Reservations (scontrol create|update|delete|show reservation): resv.c.
 * The scheduler (sched.c, backfill.c) asks them as src/sched/pass.h's
 * struct sched_resv list. */
#ifndef HERD_CTLD_RESV_H
#define HERD_CTLD_RESV_H
#include <stdbool.h>
#include <time.h>
#include "common/error.h"
#include "core/core.h"

struct sched_resv;
/* The reservations a pass at now must respect: one per reservation, in
 * resv.c's table order (a recurring one as its occurrence current or next
 * at now; one that is over stays until resv.c's one-second timer deletes
 * it, harmless to the pass); *out points into resv.c's own array, valid
 * until the next call.  Returns their count. */
int resv_sched_list(time_t now, const struct sched_resv **out);
/* The job's reservation (--reservation) as an index of that list; -1 for a
 * job without one (or naming one deleted since: such jobs are held). */
int resv_job_index(const struct job *job, time_t now);
/* Licenses= of reservation i of that list (as given), NULL for none. */
const char *resv_licenses(int i);
void resv_setup(void);   /* the stored reservations, at start */

/* ResvOverRun (minutes a job running in a reservation may go on after its
 * end; UNLIMITED: no end), from reconf_settings at start and reconfigure. */
void resv_configure(const struct conf *conf);
/* When a running job of a (not FLEX) reservation is ended: the
 * reservation's end + ResvOverRun; 0 for none (no reservation, FLEX,
 * UNLIMITED).  For the scheduler's plan of running jobs. */
time_t resv_job_stop(const struct job *job);
/* The time limit (seconds, -1 = UNLIMITED) of a job started at job_start
 * whose reservation stops it at stop: unchanged when it ends by then, else
 * one ending at stop (at now, if stop has passed; 1 s at least). */
int64_t resv_stop_limit(int64_t time_limit, time_t job_start, time_t stop, time_t now);

/* Reservation flags (Slurm's names; doc/scheduling.md "Reservations"). */
enum {
	RESV_MAINT = 1 << 0,
	RESV_IGNORE_JOBS = 1 << 1,
	RESV_DAILY = 1 << 2,
	RESV_WEEKLY = 1 << 3,
	RESV_FLEX = 1 << 4,
	RESV_OVERLAP = 1 << 5,
	RESV_SPEC_NODES = 1 << 6,   /* Nodes= was given (Slurm shows SPEC_NODES) */
};
/* "MAINT,daily": the flags named (case-insensitive, Slurm's names, also
 * its shortest unambiguous prefixes are not taken: whole names only).  A
 * name Slurm knows that Herd does not implement, or an unknown one, is
 * refused with a sentence.  0 or -1. */
int resv_flags_parse(const char *s, unsigned *flags, struct herd_error *err);
/* "MAINT,DAILY,SPEC_NODES" in Slurm's order, into buf. */
char *resv_flags_string(unsigned flags, char *buf, size_t len);
/* The occurrence of a recurring window [*start, *end) that is current or
 * next at now (DAILY: a day on, WEEKLY: a week on); unchanged when not
 * recurring or not yet over.  True when it moved. */
bool resv_next_occurrence(unsigned flags, time_t now, time_t *start, time_t *end);
/* Do [s1, e1) and [s2, e2) meet? */
bool resv_windows_overlap(time_t s1, time_t e1, time_t s2, time_t e2);

/* What RESV_CREATE, RESV_UPDATE, RESV_DELETE and RESV_INFO do (doc/protocol.md
 * has their bodies; ctld/rpc_resv.c decodes and answers them).  Each returns
 * 0 or a HERD_ERR_* rc, with err's text when there is more to say; created
 * and updated get the reservation's name (to free). */
bool resv_may_manage(uid_t uid);   /* root, SlurmUser, operators and administrators */
int resv_create(const json_t *body, uid_t uid, char **created, struct herd_error *err);
int resv_update(const json_t *body, char **updated, struct herd_error *err);
int resv_delete(const char *name, uid_t uid);
json_t *resv_info(const char *name, time_t now);   /* the list, name NULL: all */

/* Submission (and update) of a job with --reservation: 0, or an rc with
 * err ("Requested reservation is invalid", "Access denied to requested
 * reservation"). */
int resv_check_job(const struct job *job, struct herd_error *err);
/* What an active reservation makes of node idx now, for sinfo: "MAINT",
 * "RESERVED" or NULL. */
const char *resv_node_state(int idx, time_t now);
/* The pending reason for pass.h's SCHED_WHY_RESV_NOT_ACTIVE and
 * SCHED_WHY_RESERVED (Reservation; ReqNodeNotAvail, Reserved for
 * maintenance; ReqNodeNotAvail, May be reserved for other job); other
 * whys: REASON_NONE. */
enum job_reason resv_why_reason(int why, const struct job *job, time_t now);

#endif
