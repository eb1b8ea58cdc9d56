/* Who may act on a job and who may see it (doc/accounting.md, "Roles,
 * limits, team jobs"): the owner; operators and administrators (AdminLevel);
 * coordinators of the job's account or of an account above it; and, for the
 * team acts only, the members of a TeamJobs account (Herd's own, not
 * Slurm's).  None of them acts AS the owner (runs code in the job): only
 * the owner, root and SlurmUser do (roles_may_act_as_owner).  Decisions
 * from the objects of assoc.c, and the record of each team act; the
 * requests that ask live in rpc.c, update.c and step.c. */
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"

static const char *const act_names[JOB_ACT_COUNT] = {
	[JOB_ACT_CANCEL] = "cancel", [JOB_ACT_SIGNAL] = "signal", [JOB_ACT_HOLD] = "hold",
	[JOB_ACT_RELEASE] = "release", [JOB_ACT_REQUEUE] = "requeue",
	[JOB_ACT_TIME_LIMIT] = "time_limit", [JOB_ACT_UPDATE] = "update",
};

bool core_is_admin(uid_t uid)
{
	/* AdminLevel=Administrator users are administrators too (sacctmgr) */
	return uid == 0 || uid == core.slurm_uid || acct_admin_level(uid) == ADMIN_ADMIN;
}

/* A job's acts list keeps its last entries only: a job held and released
 * in a loop must not grow its record without bound. */
#define ACTS_KEPT 64

const char *job_act_name(enum job_act a)
{
	return (unsigned)a < JOB_ACT_COUNT ? act_names[a] : "unknown";
}

/* Is uid a member of the job's account, and is that account a team's? */
static bool team_member(uid_t uid, const struct job *job)
{
	const struct acct_account *a = job->account ? acct_account_find(job->account) : NULL;
	return a && (a->flags & ACCT_FLAG_TEAMJOBS) && acct_user_in_account(uid, job->account);
}

bool roles_privileged(uid_t uid, const struct job *job)
{
	/* sacctmgr(1): a coordinator manages the jobs of its accounts as an
	 * operator would (holds them as an administrator, raises limits) */
	return acct_is_operator(uid) || (job->account && acct_is_coord(uid, job->account));
}

bool roles_may_act(uid_t uid, const struct job *job, enum job_act act, bool *team)
{
	if (team)
		*team = false;
	if (job->uid == uid || roles_privileged(uid, job))
		return true;
	/* TeamJobs opens the acts that stop, pause or shorten a job; never a
	 * change of what it asked for (UPDATE) */
	if (act != JOB_ACT_UPDATE && team_member(uid, job)) {
		if (team)
			*team = true;
		return true;
	}
	return false;
}

bool roles_may_act_as_owner(uid_t uid, const struct job *job)
{
	/* not core_is_admin: an AdminLevel=Administrator is no root (an
	 * Administrator's srun --jobid=<root's job> once ran as root) */
	return job->uid == uid || uid == 0 || uid == core.slurm_uid;
}

void roles_record(struct job *job, uid_t uid, enum job_act act, const char *detail)
{
	time_t now = core_now();
	const char *user = names_user(uid);

	if (!json_is_array(job->acts)) {
		json_decref(job->acts);
		job->acts = json_array();
	}
	while (json_array_size(job->acts) >= ACTS_KEPT)
		json_array_remove(job->acts, 0);
	json_array_append_new(job->acts, json_pack("{s:I, s:s, s:s, s:I, s:s}", "uid", (json_int_t)uid,
						   "user", user, "act", job_act_name(act),
						   "time", (json_int_t)now, "detail",
						   detail ? detail : ""));
	char *text = xasprintf("uid=%u user=%s act=%s%s%s", (unsigned)uid, user, job_act_name(act),
			       detail && *detail ? " " : "", detail ? detail : "");
	store_job_event(job->id, "TEAM_ACT", text);
	free(text);
	job_changed(job);   /* the record carries "acts" (sacct) */
	log_info("job %u: team act %s by %s (uid %u) for account %s", job->id, job_act_name(act),
		 user, (unsigned)uid, job->account ? job->account : "");
}

bool roles_may_see_job(uid_t uid, const struct job *job)
{
	if (!accounting.private_jobs || job->uid == uid || acct_is_operator(uid))
		return true;
	return job->account && (acct_is_coord(uid, job->account) || team_member(uid, job));
}

char **roles_visible_accounts(uid_t uid, bool *all)
{
	size_t n = 0;
	char **out = xmalloc(sizeof(*out));

	*all = !accounting.private_jobs || acct_is_operator(uid);
	if (*all)
		return out;
	for (const struct acct_account *a = accounting.accounts; a; a = a->next) {
		/* acct_is_coord covers the accounts under those uid coordinates */
		bool seen = acct_is_coord(uid, a->name) ||
			    ((a->flags & ACCT_FLAG_TEAMJOBS) && acct_user_in_account(uid, a->name));
		if (!seen)
			continue;
		out = xrealloc(out, (n + 2) * sizeof(*out));
		out[n++] = xstrdup(a->name);
	}
	out[n] = NULL;
	return out;
}

void roles_accounts_free(char **accounts)
{
	for (char **p = accounts; p && *p; p++)
		free(*p);
	free(accounts);
}

bool roles_account_listed(char *const *accounts, const char *account)
{
	for (char *const *p = accounts; account && p && *p; p++)
		if (!strcmp(*p, account))
			return true;
	return false;
}
