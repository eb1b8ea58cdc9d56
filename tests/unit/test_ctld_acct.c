/* ACCT_JOBS on the SQLite backend, through the real store: records written
 * by the group commit come back selected by user, account, cluster and
 * window; a requeued job's runs only with duplicates; every record names
 * its cluster.  (PostgreSQL: tests/cluster/test_acct_backend.py.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static char dir[] = "/tmp/herd-acct-XXXXXX";
static uv_idle_t idle;
static int done;

static void spin(uv_idle_t *h)
{
}

static void committed(void *arg, bool ok)
{
	assert_true(ok);
	done++;
}

static void commit(void)
{
	int want = done + 1;
	store_after_commit(committed, NULL);
	while (done < want)
		uv_run(ctld.loop, UV_RUN_ONCE);
}

static struct job *new_job(uint32_t id, uid_t uid, const char *account, time_t end)
{
	struct job *job = xmalloc(sizeof(*job));
	job->id = id;
	job->uid = uid;
	job->user = xstrdup(uid == 1001 ? "herdu1" : "herdu2");
	job->name = xstrdup("j");
	job->account = xstrdup(account);
	job->state = end ? JOB_COMPLETED : JOB_RUNNING;
	job->submit_time = job->eligible_time = 1795944000;
	job->start_time = 1795944060;
	job->end_time = end;
	job->restarts = 0;
	job_table_add(job);
	store_job_insert(job, NULL);
	return job;
}

/* The job IDs and restarts of ACCT_JOBS's answer to body (steals it), as "1:0 2:0". */
static char *ask(json_t *body)
{
	char err[160];
	int rc;
	char *out = acct_jobs_run(body, &rc, err, sizeof(err));
	json_decref(body);
	assert_non_null(out);
	assert_int_equal(rc, 0);
	json_t *reply = json_loads(out, 0, NULL), *job;
	free(out);
	size_t i;
	char *ids = xstrdup("");
	json_array_foreach(json_object_get(reply, "jobs"), i, job) {
		assert_string_equal(json_string_value(json_object_get(job, "cluster")), "c1");
		char *more = xasprintf("%s%s%lld:%lld", ids, i ? " " : "",
				       (long long)json_integer_value(json_object_get(job, "job_id")),
				       (long long)json_integer_value(json_object_get(job, "restarts")));
		free(ids);
		ids = more;
	}
	json_decref(reply);
	return ids;
}

static void check(json_t *body, const char *want)
{
	char *got = ask(body);
	assert_string_equal(got, want);
	free(got);
}

static void selects_by_user_account_window_and_runs(void **state)
{
	struct herd_error err;
	assert_non_null(mkdtemp(dir));
	memset(&ctld, 0, sizeof(ctld));
	ctld.loop = xmalloc(sizeof(*ctld.loop));
	uv_loop_init(ctld.loop);
	uv_idle_init(ctld.loop, &idle);
	uv_idle_start(&idle, spin);
	core.cluster = "c1";
	core.min_job_age = 300;
	assert_int_equal(store_open(dir, &err), 0);

	time_t t = 1795950000;
	new_job(1, 1001, "physics", t - 86400 * 3);   /* ended three days before */
	new_job(2, 1001, "physics", t);
	new_job(3, 1002, "chem", t);
	struct job *run = new_job(4, 1002, "chem", 0);   /* still running */
	commit();

	/* job 4 is requeued: its first run keeps a REQUEUED record */
	store_job_requeued(run);
	run->restarts = 1;
	run->state = JOB_COMPLETED;
	run->end_time = t + 100;
	store_job_update(run);
	commit();

	json_t *win = json_pack("{s:I, s:I}", "start_time", (json_int_t)(t - 3600), "end_time",
				(json_int_t)(t + 3600));
	check(json_deep_copy(win), "2:0 3:0 4:1");
	json_object_set_new(win, "uids", json_pack("[i]", 1001));
	check(json_deep_copy(win), "2:0");
	json_object_del(win, "uids");
	json_object_set_new(win, "accounts", json_pack("[s]", "chem"));
	check(json_deep_copy(win), "3:0 4:1");
	json_object_set_new(win, "duplicates", json_true());
	check(json_deep_copy(win), "3:0 4:0 4:1");
	json_object_set_new(win, "clusters", json_pack("[s]", "other"));
	check(json_deep_copy(win), "");
	json_object_set_new(win, "clusters", json_pack("[s]", "all"));
	check(json_deep_copy(win), "3:0 4:0 4:1");
	json_object_set_new(win, "accounts", json_array());   /* [] is no filter */
	check(json_deep_copy(win), "2:0 3:0 4:0 4:1");
	json_decref(win);
	/* sacct -j: the job whatever the window; the earliest job by its ID */
	check(json_pack("{s:[i,i]}", "job_ids", 4, 1), "1:0 4:1");
	check(json_pack("{s:[i], s:b}", "job_ids", 4, "duplicates", 1), "4:0 4:1");
	/* REQUEUED as a state: the run ended when it was requeued (now) */
	check(json_pack("{s:[s], s:I, s:I}", "states", "REQUEUED", "start_time",
			(json_int_t)(t - 3600), "end_time", (json_int_t)(t + 3600)), "");
	check(json_pack("{s:[s], s:I, s:I}", "states", "REQUEUED", "start_time",
			(json_int_t)(t - 3600), "end_time", (json_int_t)time(NULL) + 60), "4:0");

	store_close();
	uv_close((uv_handle_t *)&idle, NULL);
	uv_run(ctld.loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(ctld.loop), 0);
	free(ctld.loop);
	job_table_clear();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(selects_by_user_account_window_and_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
