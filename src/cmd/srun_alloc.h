/* What srun (outside a job) and salloc share: the JOBSPEC of an allocation
 * that runs no batch script and of a step, submitting it, waiting until it runs (with
 * Slurm's "queued and waiting" lines), giving it back (COMPLETE_ALLOC), and
 * the address the nodes reach this host at.  Blocking calls; no loop. */
#ifndef HERD_CMD_SRUN_ALLOC_H
#define HERD_CMD_SRUN_ALLOC_H
#include <jansson.h>
#include <signal.h>
#include "cmd/opt.h"
#include "cmd/srun_opt.h"

/* Set by the commands' SIGINT/SIGTERM handlers while waiting. */
extern volatile sig_atomic_t srun_alloc_interrupted;
void srun_alloc_catch_signals(void);

/* The SUBMIT_JOB body ({"key", "job"}) for the options. */
json_t *srun_alloc_body(const struct jobopt *o, const char *name, char *const *env,
			const char *cwd);
/* STEP_CREATE's "step" object (STEPSPEC, src/common/msg.c). */
json_t *srun_step_body(const struct jobopt *o, const char *name, char *const *env,
		       const char *cwd, const char *host, int io_port, const char *io_key,
		       char *const *multi_prog);
/* STEP_CREATE of step (and, for a heterogeneous step, "het": its other
 * parts), retried while the nodes are busy; the layout, or NULL after
 * printing why in Slurm's words. */
json_t *srun_step_create(struct cmd_client *c, const struct jobopt *o, long long job_id,
			 json_t *step, json_t *het);
/* Submit (retried with the same key while the controller does not answer);
 * 0 with *job_id, else -1 after printing "PROG: error: ...", or 1 after
 * printing when a --test-only job would start (nothing queued). */
int srun_alloc_submit(struct cmd_client *c, const char *prog, const struct jobopt *o,
		      json_t *body, long long *job_id);
/* Wait until the job runs: 0 with *job (its JOB_INFO record, caller
 * decrefs); -1 after printing why (revoked, interrupted: the job is then
 * cancelled, -I expired). */
int srun_alloc_wait(struct cmd_client *c, const char *prog, const struct jobopt *o,
		    long long job_id, bool pending_line, json_t **job);
/* COMPLETE_ALLOC with a raw wait status. */
void srun_alloc_complete(struct cmd_client *c, const char *prog, long long job_id, int status);
/* Cancel the job (CANCEL_JOB, signal 0). */
void srun_alloc_cancel(struct cmd_client *c, long long job_id);
/* A heterogeneous allocation's variables in this process's environment:
 * SLURM_HET_SIZE and each component's with _HET_GROUP_N (and the older
 * _PACK_GROUP_N), as Slurm's salloc and srun set them, from JOB_INFO of the
 * leader; each component's job ID into ids[offset] (up to max).  The
 * number of components, 0 when the controller did not say. */
int srun_alloc_het_env(struct cmd_client *c, long long leader, long long *ids, int max);
/* The local address a connection to the controller goes out from: what a
 * node reaches srun at.  0 or -1. */
int srun_local_addr(const struct cmd_client *c, char *buf, size_t len);

#endif
