/* --mail-type/--mail-user: the controller runs MailProg (default /bin/mail)
 * as Slurm does, `MailProg -s SUBJECT USER`, with Slurm's subject line, when
 * a job begins, ends or fails.  Spawned through libuv and never waited for
 * on the loop; a MailProg that cannot be started is a log line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "common/log.h"
#include "common/parse.h"
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

/* Slurm's HH:MM:SS, with days in front when there are some. */
static char *mail_duration(int64_t secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs >= 86400)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)secs / 86400,
			 (long long)secs % 86400 / 3600, (long long)secs % 3600 / 60, (long long)secs % 60);
	else
		snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)secs / 3600,
			 (long long)secs % 3600 / 60, (long long)secs % 60);
	return buf;
}

static void mail_send(const struct job *job, const char *what, const char *subject)
{
	const char *prog = conf_get(ctld.conf, "MailProg");
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
		xasprintf("SLURM_CLUSTER_NAME=%s", ctld.cluster),
		xstrdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"),
		NULL,
	};
	char *args[] = { (char *)(prog ? prog : "/bin/mail"), "-s", (char *)subject,
			 job->mail_user ? job->mail_user : job->user, NULL };
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
		log_info("job %u: mail (%s) to %s", job->id, what, args[3]);
	}
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
}

void mail_job_state(const struct job *job, enum job_state old)
{
	char subject[512], t[32];
	const char *name = job->name ? job->name : "";
	enum job_state st = job->state;

	if (!job->mail_type || st == old)
		return;
	if (st == JOB_RUNNING && old == JOB_PENDING && (job->mail_type & MAIL_BEGIN)) {
		snprintf(subject, sizeof(subject), "Slurm Job_id=%u Name=%s Began, Queued time %s",
			 job->id, name, mail_duration(job->start_time - job->submit_time, t, sizeof(t)));
		mail_send(job, "Began", subject);
		return;
	}
	if (!job_state_is_final(st) || job_state_is_final(old))
		return;
	/* As Slurm: a job that did not complete mails FAIL if asked, else END. */
	bool ok = st == JOB_COMPLETED || st == JOB_CANCELLED;
	bool fail = !ok && (job->mail_type & MAIL_FAIL);
	if (!fail && !(job->mail_type & MAIL_END))
		return;
	int code = WIFEXITED(job->exit_status) ? WEXITSTATUS(job->exit_status) : 0;
	snprintf(subject, sizeof(subject), "Slurm Job_id=%u Name=%s %s, Run time %s, %s, ExitCode %d",
		 job->id, name, fail ? "Failed" : "Ended",
		 mail_duration(job->start_time ? job->end_time - job->start_time : 0, t, sizeof(t)),
		 job_state_name(st), code);
	mail_send(job, fail ? "Failed" : "Ended", subject);
}
