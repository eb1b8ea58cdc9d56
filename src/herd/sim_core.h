/* `herd sim --policy slurm`: the trace through the controller's own code
 * (sim_core.c, doc/core.md). */
#ifndef HERD_SIM_CORE_H
#define HERD_SIM_CORE_H
#include <jansson.h>
#include <sys/types.h>
#include "common/conf.h"
#include "herd/sim.h"

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
	char *origin;            /* "FILE:LINE" to name in a warning when the controller
				  * refuses it (as sbatch would say); NULL: counted only */
};

/* The arrivals of trace's jobs, in trace order: -n its size, -t its
 * estimate rounded up to whole minutes, as user 100000 + its user number.
 * Lines without a size or run time are left out (counted in res). */
struct sim_arrival *sim_swf_arrivals(const struct swf_trace *trace, size_t *n,
				     struct sim_result *res);
/* The arrivals of a jobs file (`herd sim --jobs`, sim_jobs.c): one job a
 * line, "<submit s> <user> <run s> <sbatch options>", '#' comments and
 * blank lines ignored; the options read by sbatch's parser and made into
 * the job object by sbatch's code; the script "sleep <run>"; id the line's
 * number.  In submit order (one second's lines in file order).  NULL with
 * err ("FILE:LINE: ...") on a bad line or an unknown user. */
struct sim_arrival *sim_jobs_load(const char *path, size_t *n, struct herd_error *err);
void sim_arrivals_free(struct sim_arrival *a, size_t n);

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
