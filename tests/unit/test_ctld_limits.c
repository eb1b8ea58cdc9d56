/* acct/roles.c and ctld/limits.c over accounting objects made in memory
 * (assoc.c's own constructors): who may act on and see a job (a table of
 * roles x acts), and AccountingStorageEnforce's decisions: association and
 * QOS at submission, submit limits (an array counts its tasks), running
 * limits up the account tree with Slurm's reasons, a QOS's limit in place of
 * the association's, safe GrpTRESMins, DenyOnLimit; the counts as jobs
 * start and end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { OWNER = 5001, OTHER, COORD, OPER, TEAM };

static struct assoc *account(const char *name, const char *parent)
{
	acct_account_new(name);
	struct assoc *a = assoc_new(0, "c", name, NULL, NULL);
	a->parent_acct = parent ? xstrdup(parent) : NULL;
	return a;
}

static struct assoc *member(const char *user, uid_t uid, const char *acct)
{
	struct acct_user *u = acct_user_find(user);
	if (!u) {
		u = acct_user_new(user);
		u->uid = uid;
		u->default_account = xstrdup(acct);
	}
	return assoc_new(0, "c", acct, user, NULL);
}

/* root -> dept -> {team (TeamJobs), proj}; other */
static int setup(void **state)
{
	core.cluster = "c";
	core.slurm_uid = 4999;
	acct_qos_new("normal", 1);
	acct_qos_new("fast", 2);
	account("root", NULL)->qos_list = xstrdup("normal");
	account("dept", "root");
	account("team", "dept");
	account("proj", "dept");
	account("other", "root");
	acct_account_find("team")->flags |= ACCT_FLAG_TEAMJOBS;
	member("owner", OWNER, "team");
	member("owner", OWNER, "proj")->qos_list = xstrdup("normal,fast");
	member("team", TEAM, "team");
	member("other", OTHER, "other");
	member("coord", COORD, "other");
	member("oper", OPER, "other");
	struct acct_account *dept = acct_account_find("dept");
	dept->coords = xrealloc(dept->coords, 2 * sizeof(char *));
	dept->coords[0] = xstrdup("coord");
	dept->coords[1] = NULL;
	acct_user_find("oper")->admin = ADMIN_OPERATOR;
	assoc_resolve_parents();
	return 0;
}

static struct job *job_of(const char *acct)
{
	struct job *j = xmalloc(sizeof(*j));
	j->uid = OWNER;
	j->user = xstrdup("owner");
	j->account = acct ? xstrdup(acct) : NULL;
	j->state = JOB_PENDING;
	j->ntasks = 1;
	j->time_limit = 600;
	return j;
}

static void done(struct job *j)
{
	limits_job_ended(j, j->lim_tres != NULL);
	job_destroy(j);
}

static void roles_matrix(void **state)
{
	static const struct {
		uid_t uid;
		const char *acct;
		enum job_act act;
		bool allowed, team;
	} cases[] = {
		{ OWNER, "team", JOB_ACT_UPDATE, true, false },
		{ OTHER, "team", JOB_ACT_CANCEL, false, false },
		{ OTHER, "team", JOB_ACT_UPDATE, false, false },
		{ COORD, "team", JOB_ACT_UPDATE, true, false },    /* of dept, above team */
		{ COORD, "other", JOB_ACT_CANCEL, false, false },  /* not above "other" */
		{ OPER, "proj", JOB_ACT_UPDATE, true, false },
		{ 0, "proj", JOB_ACT_UPDATE, true, false },        /* root */
		{ 4999, "proj", JOB_ACT_CANCEL, true, false },     /* SlurmUser */
		{ TEAM, "team", JOB_ACT_CANCEL, true, true },
		{ TEAM, "team", JOB_ACT_SIGNAL, true, true },
		{ TEAM, "team", JOB_ACT_HOLD, true, true },
		{ TEAM, "team", JOB_ACT_RELEASE, true, true },
		{ TEAM, "team", JOB_ACT_REQUEUE, true, true },
		{ TEAM, "team", JOB_ACT_TIME_LIMIT, true, true },
		{ TEAM, "team", JOB_ACT_UPDATE, false, false },    /* no other field */
		{ TEAM, "proj", JOB_ACT_CANCEL, false, false },    /* proj is no team */
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct job *j = job_of(cases[i].acct);
		bool team = true;
		assert_int_equal(roles_may_act(cases[i].uid, j, cases[i].act, &team), cases[i].allowed);
		assert_int_equal(team, cases[i].team);
		job_destroy(j);
	}
	struct job *j = job_of("team");
	assert_true(roles_privileged(COORD, j));
	assert_true(roles_privileged(OPER, j));
	assert_false(roles_privileged(OWNER, j));
	assert_false(roles_privileged(TEAM, j));
	job_destroy(j);
}

static void private_data(void **state)
{
	static const struct {
		uid_t uid;
		const char *acct;
		bool seen;
	} cases[] = {
		{ OWNER, "proj", true }, { OTHER, "team", false }, { COORD, "proj", true },
		{ OPER, "proj", true }, { TEAM, "team", true }, { TEAM, "proj", false },
	};
	accounting.private_jobs = false;
	struct job *j = job_of("proj");
	assert_true(roles_may_see_job(OTHER, j));   /* no PrivateData: everyone */
	job_destroy(j);
	accounting.private_jobs = true;
	for (size_t i = 0; i < N(cases); i++) {
		j = job_of(cases[i].acct);
		assert_int_equal(roles_may_see_job(cases[i].uid, j), cases[i].seen);
		job_destroy(j);
	}
	bool all;
	char **v = roles_visible_accounts(COORD, &all);
	assert_false(all);
	assert_true(roles_account_listed(v, "dept") && roles_account_listed(v, "team") &&
		    roles_account_listed(v, "proj"));
	assert_false(roles_account_listed(v, "other"));
	roles_accounts_free(v);
	v = roles_visible_accounts(TEAM, &all);
	assert_true(roles_account_listed(v, "team") && !roles_account_listed(v, "proj"));
	roles_accounts_free(v);
	v = roles_visible_accounts(OPER, &all);
	assert_true(all);
	roles_accounts_free(v);
	accounting.private_jobs = false;
}

static void submit_association_and_qos(void **state)
{
	struct herd_error err = { "" };
	accounting.enforce_assoc = accounting.enforce_qos = true;
	struct job *j = job_of(NULL);   /* no -A: DefaultAccount */
	assert_int_equal(limits_check_submit(j, &err), 0);
	assert_string_equal(j->account, "team");
	assert_string_equal(j->qos, "normal");
	job_destroy(j);
	j = job_of("other");   /* owner has no association there */
	assert_int_equal(limits_check_submit(j, &err), HERD_ERR_INVALID_ACCOUNT);
	assert_string_equal(err.text, "Invalid account or account/partition combination specified");
	job_destroy(j);
	j = job_of("team");
	j->qos = xstrdup("fast");   /* exists, not allowed under team */
	assert_int_equal(limits_check_submit(j, &err), HERD_ERR_INVALID_QOS);
	free(j->account);
	j->account = xstrdup("proj");
	assert_int_equal(limits_check_submit(j, &err), 0);
	free(j->qos);
	j->qos = xstrdup("nosuch");
	assert_int_equal(limits_check_submit(j, &err), HERD_ERR_INVALID_QOS);
	job_destroy(j);
	accounting.enforce_assoc = accounting.enforce_qos = false;
}

static void submit_limits_count_tasks(void **state)
{
	struct herd_error err = { "" };
	struct assoc *owner_team = assoc_find("team", "owner", NULL);
	accounting.enforce_limits = true;
	owner_team->lim.max_submit = 3;
	struct job *a = job_of("team");
	assert_int_equal(limits_check_submit(a, &err), 0);
	limits_job_submitted(a);
	struct job *arr = job_of("team");   /* 3 tasks: 1 + 3 > 3 */
	arr->array_pending = bitmap_create(8);
	for (int t = 0; t < 3; t++)
		bitmap_set(arr->array_pending, t);
	assert_int_equal(limits_check_submit(arr, &err), HERD_ERR_ACCOUNTING_POLICY);
	assert_string_equal(err.text, "Job violates accounting/QOS policy (job submit limit, "
				      "user's size and/or time limits)");
	bitmap_clear(arr->array_pending, 2);   /* 2 tasks fit */
	assert_int_equal(limits_check_submit(arr, &err), 0);
	limits_job_submitted(arr);
	assert_int_equal(owner_team->jobs_submitted, 3);
	assert_int_equal(assoc_find_account("dept")->jobs_submitted, 3);   /* up the tree */
	/* GrpSubmitJobs on dept covers proj too */
	owner_team->lim.max_submit = ACCT_UNSET;
	assoc_find_account("dept")->lim.grp_submit = 3;
	struct job *p = job_of("proj");
	assert_int_equal(limits_check_submit(p, &err), HERD_ERR_ACCOUNTING_POLICY);
	assoc_find_account("dept")->lim.grp_submit = ACCT_UNSET;
	job_destroy(p);
	done(a);
	done(arr);
	assert_int_equal(owner_team->jobs_submitted, 0);
	assert_int_equal(assoc_find_account("root")->jobs_submitted, 0);
	accounting.enforce_limits = false;
}

static void running_limits_and_reasons(void **state)
{
	struct assoc *owner_team = assoc_find("team", "owner", NULL);
	struct assoc *dept = assoc_find_account("dept");
	accounting.enforce_limits = true;
	struct job *a = job_of("team");
	a->ntasks = 2;
	limits_job_submitted(a);
	assert_int_equal(limits_check_start(a), REASON_NONE);
	a->state = JOB_RUNNING;
	limits_job_started(a);
	assert_int_equal(dept->tres_running[TRES_CPU], 2);
	assert_int_equal(owner_team->jobs_running, 1);
	struct job *b = job_of("proj");
	b->ntasks = 2;
	limits_job_submitted(b);
	const struct {
		struct assoc **at;
		size_t field;    /* offsetof in struct acct_limits */
		int tres;        /* -1: the field itself */
		int64_t value;
		int want;
	} cases[] = {
		{ &dept, offsetof(struct acct_limits, grp_tres), TRES_CPU, 3, REASON_ASSOC_GRP_CPU },
		{ &dept, offsetof(struct acct_limits, grp_tres), TRES_CPU, 4, REASON_NONE },
		{ &dept, offsetof(struct acct_limits, grp_jobs), -1, 1, REASON_ASSOC_GRP_JOBS },
		{ &dept, offsetof(struct acct_limits, grp_tres), TRES_NODE, 1, REASON_ASSOC_GRP_NODE },
		{ &dept, offsetof(struct acct_limits, max_tres_per_job), TRES_CPU, 1,
		  REASON_ASSOC_MAX_CPU_PER_JOB },   /* a Max limit of an account is its users' */
		{ &dept, offsetof(struct acct_limits, max_wall), -1, 5, REASON_ASSOC_MAX_WALL },
		{ &dept, offsetof(struct acct_limits, max_wall), -1, 10, REASON_NONE },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct assoc *at = *cases[i].at;
		int64_t *f = (int64_t *)((char *)&at->lim + cases[i].field) +
			     (cases[i].tres >= 0 ? cases[i].tres : 0);
		*f = cases[i].value;
		assert_int_equal(limits_check_start(b), cases[i].want);
		*f = ACCT_UNSET;
	}
	/* MaxJobs on the owner's proj association counts that association only */
	struct assoc *owner_proj = assoc_find("proj", "owner", NULL);
	owner_proj->lim.max_jobs = 1;
	assert_int_equal(limits_check_start(b), REASON_NONE);
	owner_team->lim.max_jobs = 1;
	struct job *c = job_of("team");
	limits_job_submitted(c);
	assert_int_equal(limits_check_start(c), REASON_ASSOC_MAX_JOBS);
	/* the QOS's MaxJobsPerUser is the one in effect: the association's is not looked at */
	struct acct_qos *normal = acct_qos_find("normal");
	normal->lim.max_jobs = 2;
	assert_int_equal(limits_check_start(c), REASON_NONE);
	normal->lim.max_jobs = 1;
	assert_int_equal(limits_check_start(c), REASON_QOS_MAX_JOBS_PER_USER);
	normal->lim.max_jobs = ACCT_UNSET;
	owner_team->lim.max_jobs = owner_proj->lim.max_jobs = ACCT_UNSET;
	/* the job ends: the counts are given back */
	done(a);
	assert_int_equal(dept->tres_running[TRES_CPU], 0);
	assert_int_equal(dept->jobs_running, 0);
	assert_int_equal(normal->jobs_running, 0);
	done(b);
	done(c);
	accounting.enforce_limits = false;
}

static void safe_grp_tres_mins(void **state)
{
	struct assoc *team = assoc_find_account("team");
	accounting.enforce_limits = true;
	team->lim.grp_tres_mins[TRES_CPU] = 100;
	struct job *j = job_of("team");
	j->time_limit = 200 * 60;   /* 1 CPU x 200 min */
	assert_int_equal(limits_check_start(j), REASON_NONE);   /* not safe: usage 0 < 100 */
	accounting.enforce_safe = true;
	assert_int_equal(limits_check_start(j), REASON_ASSOC_GRP_CPU_MIN);
	j->time_limit = 50 * 60;
	assert_int_equal(limits_check_start(j), REASON_NONE);
	team->tres_usage[TRES_CPU] = 60.0 * 60;   /* 60 CPU-minutes used */
	assert_int_equal(limits_check_start(j), REASON_ASSOC_GRP_CPU_MIN);
	accounting.enforce_safe = false;
	team->tres_usage[TRES_CPU] = 100.0 * 60;   /* used up: waits even without safe */
	assert_int_equal(limits_check_start(j), REASON_ASSOC_GRP_CPU_MIN);
	team->tres_usage[TRES_CPU] = 0;
	team->lim.grp_tres_mins[TRES_CPU] = ACCT_UNSET;
	job_destroy(j);
	accounting.enforce_limits = false;
}

static void deny_on_limit_and_max_wall_default(void **state)
{
	struct herd_error err = { "" };
	struct acct_qos *fast = acct_qos_find("fast");
	accounting.enforce_limits = true;
	fast->lim.max_tres_per_job[TRES_CPU] = 1;
	struct job *j = job_of("proj");
	j->qos = xstrdup("fast");
	j->ntasks = 2;
	assert_int_equal(limits_check_submit(j, &err), 0);   /* waits instead */
	assert_int_equal(limits_check_start(j), REASON_QOS_MAX_CPU_PER_JOB);
	fast->flags |= QOS_FLAG_DENY_ON_LIMIT;
	assert_int_equal(limits_check_submit(j, &err), HERD_ERR_ACCOUNTING_POLICY);
	fast->flags = 0;
	fast->lim.max_tres_per_job[TRES_CPU] = ACCT_UNSET;
	/* no --time: MaxWall (the QOS's before the association's) */
	assoc_find("proj", "owner", NULL)->lim.max_wall = 30;
	j->time_limit = TIME_NOT_GIVEN;
	assert_int_equal(limits_check_submit(j, &err), 0);
	assert_int_equal(j->time_limit, 30 * 60);
	fast->lim.max_wall = 20;
	j->time_limit = TIME_NOT_GIVEN;
	assert_int_equal(limits_check_submit(j, &err), 0);
	assert_int_equal(j->time_limit, 20 * 60);
	fast->lim.max_wall = ACCT_UNSET;
	assoc_find("proj", "owner", NULL)->lim.max_wall = ACCT_UNSET;
	job_destroy(j);
	accounting.enforce_limits = false;
}

/* Through job_set_state: an array's tasks split off its meta record keep
 * the sum; a start, a requeue and an end move the counts. */
static void counts_follow_job_states(void **state)
{
	struct assoc *team = assoc_find_account("team");
	core.sched_queued = true;   /* no loop here: sched_request is a no-op */
	core.max_array_size = 1001;
	core.next_job_id = 200;
	struct job *meta = job_of("team");
	meta->id = 100;
	assert_int_equal(array_setup(meta, "0-3"), 0);
	job_table_add(meta);
	limits_job_submitted(meta);
	assert_int_equal(team->jobs_submitted, 4);
	struct job *t0 = array_split(meta, 0);
	assert_int_equal(team->jobs_submitted, 4);
	job_set_state(t0, JOB_RUNNING, REASON_NONE);
	assert_int_equal(team->jobs_running, 1);
	assert_int_equal(team->tres_running[TRES_CPU], 1);
	job_set_state(t0, JOB_PENDING, REASON_BEGIN_TIME);   /* requeued */
	assert_int_equal(team->jobs_running, 0);
	assert_int_equal(team->jobs_submitted, 4);
	job_set_state(t0, JOB_RUNNING, REASON_NONE);
	job_set_state(t0, JOB_COMPLETED, REASON_NONE);
	assert_int_equal(team->jobs_running, 0);
	assert_int_equal(team->jobs_submitted, 3);
	struct bitmap *two = bitmap_create(4);
	bitmap_set(two, 1);
	bitmap_set(two, 2);
	struct job *set = array_split_set(meta, two);
	bitmap_destroy(two);
	job_set_state(set, JOB_CANCELLED, REASON_NONE);
	assert_int_equal(team->jobs_submitted, 1);
	job_set_state(meta, JOB_CANCELLED, REASON_NONE);   /* the last task with it */
	assert_int_equal(team->jobs_submitted, 0);
	assert_int_equal(assoc_find_account("root")->jobs_submitted, 0);
	job_table_clear();
	core.sched_queued = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roles_matrix),
		cmocka_unit_test(private_data),
		cmocka_unit_test(submit_association_and_qos),
		cmocka_unit_test(submit_limits_count_tasks),
		cmocka_unit_test(running_limits_and_reasons),
		cmocka_unit_test(safe_grp_tres_mins),
		cmocka_unit_test(deny_on_limit_and_max_wall_default),
		cmocka_unit_test(counts_follow_job_states),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
