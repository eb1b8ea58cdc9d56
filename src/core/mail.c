/* --mail-type/--mail-user: which mail a job gets and when, with Slurm's
 * subject line: when it begins, ends, fails, is requeued or reaches
 * 50/80/90/100% of its time limit.  Sending is core_env->mail's (herdctld:
 * ctld/mail_spawn.c runs MailProg). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/text.h"
#include "common/xmalloc.h"
#include "core/core.h"

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

/* what: Slurm's words for the event ("Began", "Reached 90% of time limit");
 * times: ", Queued time T" or ", Run time T" (or ""); term: ", STATE, ExitCode N" or "". */
static void mail_send(const struct job *job, const char *what, const char *times,
		      const char *term)
{
	char subject[512];
	snprintf(subject, sizeof(subject), "Slurm Job_id=%u Name=%s %s%s%s", job->id,
		 job->name ? job->name : "", what, times, term);
	const char *to = job->mail_user ? job->mail_user : job->user;
	struct herd_error err = { "" };
	/* Checked at submission; a job stored before that check is not mailed. */
	if (!to || text_check_mail_user(to, &err) < 0) {
		log_error("job %u: no mail sent: %s", job->id, to ? err.text : "no user");
		return;
	}
	core_env->mail(job, to, subject, what, times);
}

static const char *run_time(const struct job *job, time_t end, char *buf, size_t len)
{
	char t[32];
	if (!job->start_time)
		return "";
	snprintf(buf, len, ", Run time %s", mail_duration(end - job->start_time, t, sizeof(t)));
	return buf;
}

static const char *time_limit_words(unsigned bit)
{
	switch (bit) {
	case MAIL_TIME_LIMIT: return "Reached time limit";
	case MAIL_TIME_LIMIT_90: return "Reached 90% of time limit";
	case MAIL_TIME_LIMIT_80: return "Reached 80% of time limit";
	default: return "Reached 50% of time limit";
	}
}

/* A time-limit mail, once per job and threshold (job->mail_sent). */
static void mail_time_limit(struct job *job, unsigned bit, time_t now)
{
	char times[64];
	if (!(job->mail_type & bit) || (job->mail_sent & bit))
		return;
	job->mail_sent |= bit;
	job_changed(job);   /* not again after a restart */
	mail_send(job, time_limit_words(bit), run_time(job, now, times, sizeof(times)), "");
}

void mail_job_state(struct job *job, enum job_state old)
{
	char times[64], t[32], term[128];
	enum job_state st = job->state;

	if (!job->mail_type || st == old)
		return;
	if (st == JOB_RUNNING && old == JOB_PENDING && (job->mail_type & MAIL_BEGIN)) {
		snprintf(times, sizeof(times), ", Queued time %s",
			 mail_duration(job->start_time - job->submit_time, t, sizeof(t)));
		mail_send(job, "Began", times, "");
		return;
	}
	if (!job_state_is_final(st) || job_state_is_final(old))
		return;
	if (st == JOB_TIMEOUT)
		mail_time_limit(job, MAIL_TIME_LIMIT, job->end_time);
	/* As Slurm: a job that did not complete mails FAIL if asked, else END. */
	bool ok = st == JOB_COMPLETED || st == JOB_CANCELLED;
	bool fail = !ok && (job->mail_type & MAIL_FAIL);
	if (!fail && !(job->mail_type & MAIL_END))
		return;
	if (WIFEXITED(job->exit_status))
		snprintf(term, sizeof(term), ", %s, ExitCode %d", job_state_name(st),
			 WEXITSTATUS(job->exit_status));
	else
		snprintf(term, sizeof(term), ", %s", job_state_name(st));
	mail_send(job, fail ? "Failed" : "Ended", run_time(job, job->end_time, times, sizeof(times)),
		  term);
}

void mail_job_requeued(const struct job *job)
{
	char times[64];
	if (job->mail_type & MAIL_REQUEUE)
		mail_send(job, "Requeued",
			  run_time(job, job->end_time ? job->end_time : core_now(), times, sizeof(times)),
			  "");
}

static void check_limits(struct job *job, void *arg)
{
	time_t now = *(time_t *)arg;
	static const struct {
		unsigned bit;
		int percent;
	} marks[] = { { MAIL_TIME_LIMIT, 100 }, { MAIL_TIME_LIMIT_90, 90 },
		      { MAIL_TIME_LIMIT_80, 80 }, { MAIL_TIME_LIMIT_50, 50 } };

	if (job->state != JOB_RUNNING || job->time_limit <= 0 || !job->start_time)
		return;
	int64_t ran = now - job->start_time;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ran * 100 >= job->time_limit * marks[i].percent) {
			/* the highest mark passed; lower ones are not sent late */
			for (size_t k = i; k < sizeof(marks) / sizeof(marks[0]); k++)
				if (k == i)
					mail_time_limit(job, marks[k].bit, now);
				else
					job->mail_sent |= marks[k].bit;
			return;
		}
}

void mail_check_time_limits(time_t now)
{
	job_foreach(check_limits, &now);
}
