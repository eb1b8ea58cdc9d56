/* herdctld's mail (core_env->mail): the controller runs MailProg (default
 * /bin/mail) as Slurm does, `MailProg -s SUBJECT -- USER`, spawned through
 * libuv and never waited for on the loop; a MailProg that cannot be started
 * is a log line.  Which mail and when: core/mail.c. */
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

static void mail_closed(uv_handle_t *h)
{
	free(h);
}

static void mail_exit(uv_process_t *p, int64_t status, int sig)
{
	if (status || sig)
		log_info("MailProg exited with status %lld signal %d", (long long)status, sig);
	uv_close((uv_handle_t *)p, mail_closed);
}

/* herdctld's mail (core/env.h): MailProg -s SUBJECT -- TO, with Slurm's
 * SLURM_JOB_* variables, not waited for. */
void mail_spawn(const struct job *job, const char *to, const char *subject, const char *what,
		const char *times)
{
	const char *prog = conf_get(core.conf, "MailProg");
	uv_process_t *proc = xmalloc(sizeof(*proc));
	uv_process_options_t o = { 0 };
	uv_stdio_container_t stdio[3] = { { .flags = UV_IGNORE }, { .flags = UV_IGNORE },
					  { .flags = UV_IGNORE } };
	char *env[] = {
		xasprintf("SLURM_JOB_ID=%u", job->id),
		xasprintf("SLURM_JOB_NAME=%s", job->name ? job->name : ""),
		xasprintf("SLURM_JOB_USER=%s", job->user ? job->user : ""),
		xasprintf("SLURM_JOB_MAIL_TYPE=%s", what),
		xasprintf("SLURM_JOB_STATE=%s", job_state_name(job->state)),
		xasprintf("SLURM_CLUSTER_NAME=%s", core.cluster),
		xasprintf("SLURM_JOB_%s=%s", !strncmp(times, ", Queued", 8) ? "QUEUED_TIME" : "RUN_TIME",
			  *times ? strrchr(times, ' ') + 1 : ""),
		xstrdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"),
		NULL,
	};
	/* "--": whatever the address, MailProg never reads it as an option */
	char *args[] = { (char *)(prog ? prog : "/bin/mail"), "-s", (char *)subject, "--",
			 (char *)to, NULL };
	int e;

	o.file = args[0];
	o.args = args;
	o.env = env;
	o.exit_cb = mail_exit;
	o.stdio = stdio;
	o.stdio_count = 3;
	if ((e = uv_spawn(ctld.loop, proc, &o)) < 0) {
		log_error("job %u: MailProg %s: %s (no mail sent)", job->id, args[0], uv_strerror(e));
		uv_close((uv_handle_t *)proc, mail_closed);
	} else {
		log_info("job %u: mail (%s) to %s", job->id, what, to);
	}
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
}

