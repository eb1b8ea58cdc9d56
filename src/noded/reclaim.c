/* What a herdstepd killed without finishing leaves behind: its tasks (now
 * orphans, still running as the user) and its cgroups.  herdd kills the one
 * and removes the other when it finds the step daemon gone but its spool
 * directory still there (a herdstepd that finishes removes its directory
 * itself, src/stepd/complete.c).  Not for live steps: TERMINATE_JOB asks
 * their herdstepd. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"
#include "stepd/cgroup.h"

#define RECLAIM_WAIT_MS 2000

static void reclaim_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void reclaim_step(struct noded *nd, uint32_t job_id, uint32_t step_id)
{
	struct cgroup_conf cc;
	struct herd_error err = { "" };
	char step[16];
	const char *slash = strrchr(nd->conf_path, '/');
	char *conf_dir = slash ? xasprintf("%.*s", (int)(slash - nd->conf_path), nd->conf_path)
			       : xstrdup(".");

	if (cgroup_conf_load(conf_dir, &cc, &err) < 0) {
		log_error("job %u: cannot clean up after its herdstepd: %s", job_id, err.text);
		free(conf_dir);
		return;
	}
	free(conf_dir);
	if (step_id == NODED_BATCH_STEP)
		snprintf(step, sizeof(step), "batch");
	else if (step_id == NODED_EXTERN_STEP)
		snprintf(step, sizeof(step), "extern");
	else
		snprintf(step, sizeof(step), "%u", step_id);
	/* Only the hierarchy is wanted, not limits: the defaults (nothing
	 * constrained) reopen the step's directories without changing them. */
	struct cgroup_conf plain = { .allowed_ram = 100, .mountpoint = cc.mountpoint,
				     .plugin = cc.plugin };
	struct cgroup_limits lim = { NULL, 0 };
	char *scope = cgroup_scope(conf_get(nd->conf, "ClusterName"), nd->node);
	struct cgroup_step *cg = cgroup_step_create(&plain, scope, job_id, step, &lim);
	size_t n = 0, killed = 0;
	for (int waited = 0; waited <= RECLAIM_WAIT_MS; waited += 20) {
		pid_t *pids = cgroup_pids(cg, &n);
		for (size_t i = 0; i < n; i++)
			if (kill(pids[i], SIGKILL) == 0)
				killed++;
		free(pids);
		if (!n)
			break;
		reclaim_sleep_ms(20);
	}
	if (n)
		log_error("job %u: %zu processes of step %s outlived SIGKILL", job_id, n, step);
	log_info("job %u: step %s lost its herdstepd: %zu processes killed, cgroups removed",
		 job_id, step, killed);
	cgroup_step_destroy(cg);
	free(scope);
	cgroup_conf_free(&cc);
}
