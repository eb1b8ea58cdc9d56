/* `herd sim --policy slurm`: the trace through the controller's own code
 * (sim_core.c, doc/core.md). */
#ifndef HERD_SIM_CORE_H
#define HERD_SIM_CORE_H
#include <jansson.h>
#include <sys/types.h>
#include "common/conf.h"
#include "herd/sim.h"

/* The trace's users and groups: user N runs as uid SIM_FIRST_ID + N, in
 * group SIM_FIRST_ID + G, named u<N> and g<G> (names_fictional); -1
 * (unknown) is 0.  The replay gives each user an association under
 * account g<G> (sim_assoc.c). */
#define SIM_FIRST_ID 100000
/* The replay's second 0 as the core's wall clock: a real epoch, so that no
 * time the core sees is 0 ("never"). */
#define SIM_CORE_EPOCH 1000000000

/* One job as the replay submits it, whatever it came from (a trace line,
 * a scenario line). */
struct sim_arrival {
	long id;                 /* the source's number for the job, in the output */
	int64_t submit;          /* s from the replay's start */
	uid_t uid;
	gid_t gid;
	json_t *spec;            /* SUBMIT_JOB's job object (doc/protocol.md); owned */
	int64_t run;             /* s it runs once started (killed at its limit) */
	int64_t estimate;        /* s it asked for, for the output (-1: none) */
	long procs;              /* CPUs it asked for, for the output (0: those allocated) */
	/* The source's number of the job this one follows (SWF's preceding
	 * job, -1: none): it is submitted think s after that job's end, and
	 * not before its own submit time.  A preceding job that is not
	 * replayed (skipped, refused, or later in the source): none. */
	long after;
	int64_t think;
	char *origin;            /* "FILE:LINE" to name in a warning when the controller
				  * refuses it (as sbatch would say); NULL: counted only */
};

/* The partition of a trace line: SWF numbers queues and partitions from
 * 1, so queue (field 15) N >= 1 is herd.conf's Nth partition, in the
 * file's order; without a queue (-1, or 0: "interactive" in SWF) the
 * partition field (16) the same way.  A number past the last partition,
 * or none: "" (the default partition). */
const char *sim_swf_partition(const struct swf_job *j, const struct conf *conf);

/* The arrivals of trace's jobs, in trace order: -n its size, -t its
 * estimate rounded up to whole minutes, in its partition (conf's, above),
 * as its user and group (SIM_FIRST_ID).  Lines without a size or run
 * time are left out (counted in res). */
struct sim_arrival *sim_swf_arrivals(const struct swf_trace *trace, const struct conf *conf,
				     size_t *n, struct sim_result *res);
void sim_arrivals_free(struct sim_arrival *a, size_t n);

/* sim_assoc.c: an association for every user of the arrivals that has
 * none yet (an accounts file's users keep theirs): user u<N> under
 * account g<G> under root, made by sacctmgr's own add requests.  Runs in
 * the started core.  -1 with err when the accounting refuses one. */
int sim_assoc_add(const struct sim_arrival *arr, size_t n, struct herd_error *err);

/* The arrivals of a jobs file (`herd sim --jobs`, sim_jobs.c): one job a
 * line, "<submit s> <user> <run s> <sbatch options>", '#' comments and
 * blank lines ignored; the options read by sbatch's parser and made into
 * the job object by sbatch's code; the script "sleep <run>"; id the line's
 * number.  In submit order (one second's lines in file order).  NULL with
 * err ("FILE:LINE: ...") on a bad line or an unknown user. */
struct sim_arrival *sim_jobs_load(const char *path, size_t *n, struct herd_error *err);
/* `herd sim --accounts FILE` (sacctmgr dump's flat format) as the records
 * `sacctmgr load` sends; `--reservations FILE` (one `scontrol create
 * reservation` line each, now+N from the replay's second 0) as
 * [{line, body}], body what scontrol sends.  NULL with err
 * ("FILE:LINE: ...") on a bad line (sim_inputs.c). */
json_t *sim_accounts_load(const char *path, struct herd_error *err);
json_t *sim_resv_load(const char *path, struct herd_error *err);

/* What the controller is given at the replay's second 0, before the first
 * arrival (NULL: nothing): the accounts' records, through sacctmgr load's
 * handler; the reservations, through scontrol's create. */
struct sim_core_start {
	bool local_users;            /* a jobs file's: no association made for them */
	json_t *accounts;
	const char *accounts_path;
	json_t *reservations;
	const char *reservations_path;
};

/* Replay the n arrivals (in submit order) on conf's nodes and partitions,
 * with its priority, scheduler and preemption settings, after start's
 * accounts and reservations (start may be NULL).  Takes conf (the
 * controller keeps it).  -1 with err when the controller cannot start on
 * conf, refuses start's accounts or a reservation, or some job never
 * starts. */
int sim_core_run(const struct sim_arrival *arr, size_t n, struct conf *conf,
		 const struct sim_core_start *start, struct sim_result *res,
		 struct herd_error *err);
#endif
