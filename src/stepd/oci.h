/* --container: each task of a step (or the batch script) runs in the user's
 * OCI bundle through the runtime oci.conf names (runc, crun), rootless as
 * the user, as Slurm's Containers Guide describes.  herdstepd (root) only
 * makes the per-task directory in its spool; everything that reads the
 * user's bundle runs as the user, in the task's child. */
#ifndef HERD_STEPD_OCI_H
#define HERD_STEPD_OCI_H
#include <stdbool.h>
#include <stddef.h>

struct stepd;
struct oci;

/* The launch's bundle (the step's --container, else the batch job's), or
 * NULL when the tasks run on the host. */
const char *oci_bundle(const struct stepd *sd);
/* Parent, before any fork: when the launch has a bundle, read oci.conf and
 * make room for ntasks local tasks (sd->oci).  Never fails the launch: a
 * missing or broken oci.conf is each task's error (oci_exec). */
void oci_start(struct stepd *sd, size_t ntasks);
/* Parent, before forking local task `local` (global ID task_id): its
 * generated bundle directory and the runtime commands' environment (env,
 * after RunTimeEnvExclude). */
void oci_prepare_task(struct stepd *sd, size_t local, int task_id, char *const *env);
/* Child only, as the user, stdio in place, in the task's cwd: write the
 * task's config.json from the bundle's (argv, env: the task's) and exec
 * the runtime.  Returns only on failure, with the sentence in why (the
 * caller reports it and exits 1). */
void oci_exec(struct stepd *sd, size_t local, char **argv, char **env, bool terminal, char *why,
	      size_t size);
/* Parent: local task ended: RunTimeDelete as the user, then its files go
 * (unless DisableCleanup).  Waits for that, a bounded time. */
void oci_task_ended(struct stepd *sd, size_t local);
/* Parent: RunTimeKill as the user for every task still running (a cancel,
 * the time limit).  Does not wait. */
void oci_kill(struct stepd *sd);
void oci_free(struct stepd *sd);
/* Where the step's spool directory appears in the container (MountSpoolDir). */
const char *oci_mount_spool_dir(const struct stepd *sd);

#endif
