/* The controller's store: group commit runs callbacks only after their
 * writes are durable, in order; a restart loads exactly what was committed
 * (jobs, submission keys, the next job ID), and scripts stay in the store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static char dir[] = "/tmp/herd-store-XXXXXX";
static int order[16], norder;

static void spin(uv_idle_t *h)
{
}

/* A controller with an empty table on a fresh loop; an idle handle keeps
 * the loop turning (the daemon has its listening socket for that). */
static uv_idle_t idle;

static void setup_ctld(void)
{
	memset(&ctld, 0, sizeof(ctld));
	ctld.loop = xmalloc(sizeof(*ctld.loop));
	uv_loop_init(ctld.loop);
	uv_idle_init(ctld.loop, &idle);
	uv_idle_start(&idle, spin);
	core.next_job_id = 1;
	core.min_job_age = 300;
}

/* After store_close: the loop and the job table go. */
static void teardown_ctld(void)
{
	uv_close((uv_handle_t *)&idle, NULL);
	uv_run(ctld.loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(ctld.loop), 0);
	free(ctld.loop);
	job_table_clear();
}

static void note(void *arg, bool ok)
{
	assert_true(ok);
	order[norder++] = (int)(intptr_t)arg;
}

static struct job *new_job(uint32_t id, const char *key, enum job_state state)
{
	struct job *job = xmalloc(sizeof(*job));
	job->id = id;
	job->uid = 1001;
	job->gid = 1001;
	job->user = xstrdup("herdu1");
	job->name = xstrdup("train \"v2\"; é");
	job->key = key ? xstrdup(key) : NULL;
	job->state = state;
	job->time_limit = 3600;
	job->req_nodes = 2;
	job->submit_time = 1795944000;
	job->priority = job_base_priority(id);
	return job;
}

static void commit_and_load(void **state)
{
	assert_non_null(mkdtemp(dir));
	setup_ctld();
	struct herd_error err;
	assert_int_equal(store_open(dir, &err), 0);

	struct job *a = new_job(1, "key-a", JOB_PENDING), *b = new_job(2, NULL, JOB_PENDING);
	job_table_add(a);
	job_table_add(b);
	store_job_insert(a, json_pack("{s:s, s:[s]}", "script", "#!/bin/sh\necho a\n", "env", "X=1"));
	store_after_commit(note, (void *)1);
	store_job_insert(b, json_pack("{s:s}", "script", "#!/bin/sh\necho b\n"));
	store_after_commit(note, (void *)2);
	/* Nothing is durable, nor answered, before the loop has run the commit. */
	assert_int_equal(norder, 0);
	assert_int_equal(store_find_key(1001, "key-a"), 0);
	while (norder < 2)
		uv_run(ctld.loop, UV_RUN_ONCE);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(store_find_key(1001, "key-a"), 1);
	assert_int_equal(store_find_key(1002, "key-a"), 0);   /* keys are per user */

	b->state = JOB_CANCELLED;
	b->end_time = time(NULL);
	store_job_update(b);
	store_after_commit(note, (void *)3);
	while (norder < 3)
		uv_run(ctld.loop, UV_RUN_ONCE);

	json_t *spec = store_job_spec(1);
	assert_string_equal(json_string_value(json_object_get(spec, "script")), "#!/bin/sh\necho a\n");
	json_decref(spec);
	assert_true(store_job_known(2));
	assert_false(store_job_known(3));
	store_close();
	teardown_ctld();

	/* A restart: a fresh table, loaded from the store. */
	setup_ctld();
	assert_int_equal(store_open(dir, &err), 0);
	assert_int_equal(store_load(), 0);
	assert_int_equal(core.next_job_id, 3);
	struct job *la = job_find(1), *lb = job_find(2);
	assert_non_null(la);
	assert_non_null(lb);
	assert_true(la->durable);
	assert_string_equal(la->name, "train \"v2\"; é");
	assert_int_equal(la->state, JOB_PENDING);
	assert_int_equal(la->time_limit, 3600);
	assert_int_equal(la->req_nodes, 2);
	assert_int_equal(la->uid, 1001);
	assert_ptr_equal(job_find_key(1001, "key-a"), la);
	assert_int_equal(lb->state, JOB_CANCELLED);
	store_close();
	teardown_ctld();
}

static void old_finished_jobs_stay_in_the_store_only(void **state)
{
	struct herd_error err;
	setup_ctld();
	assert_int_equal(store_open(dir, &err), 0);
	struct job *old = new_job(3, NULL, JOB_COMPLETED);
	old->end_time = time(NULL) - 3600;   /* past MinJobAge */
	job_table_add(old);
	store_job_insert(old, json_pack("{s:s}", "script", "#!/bin/sh\n"));
	norder = 0;
	store_after_commit(note, (void *)4);
	while (norder < 1)
		uv_run(ctld.loop, UV_RUN_ONCE);
	store_close();
	teardown_ctld();

	setup_ctld();
	assert_int_equal(store_open(dir, &err), 0);
	assert_int_equal(store_load(), 0);
	assert_null(job_find(3));               /* not loaded ... */
	assert_true(store_job_known(3));        /* ... but kept */
	assert_int_equal(core.next_job_id, 4);  /* and its ID is never given again */
	store_close();
	teardown_ctld();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A commit that fails (the disk full) must not lose what the loop already
 * did: a job that ended is still ended after a restart; the refused
 * submission is gone; a launch waits until its start is durable. */
static sqlite3 *saboteur;
static bool refused_seen, launched;

static void sabotage(bool on)
{
	assert_int_equal(sqlite3_exec(saboteur, on ? "INSERT INTO fail_now VALUES (1)"
						   : "DELETE FROM fail_now", NULL, NULL, NULL), SQLITE_OK);
}

static void refused(void *arg, bool ok)
{
	assert_false(ok);
	refused_seen = true;
	/* as reply_after_commit: a submission that was not saved never happened */
	struct job *job = job_find((uint32_t)(intptr_t)arg);
	assert_non_null(job);
	job_forget(job);
}

static void launch(void *arg, bool ok)
{
	assert_true(ok);
	launched = true;
}

static void failed_commit_is_retried(void **state)
{
	struct herd_error err;
	strcpy(dir, "/tmp/herd-store-XXXXXX");
	assert_non_null(mkdtemp(dir));
	setup_ctld();
	assert_int_equal(store_open(dir, &err), 0);
	struct job *ended = new_job(1, NULL, JOB_RUNNING), *started = new_job(2, NULL, JOB_PENDING);
	ended->durable = started->durable = true;
	job_table_add(ended);
	job_table_add(started);
	store_job_insert(ended, json_pack("{s:s}", "script", "#!/bin/sh\n"));
	store_job_insert(started, json_pack("{s:s}", "script", "#!/bin/sh\n"));
	norder = 0;
	store_after_commit(note, (void *)1);
	while (norder < 1)
		uv_run(ctld.loop, UV_RUN_ONCE);

	/* Every write to jobs fails while fail_now has a row (as on a full disk). */
	assert_int_equal(sqlite3_open(store_path(), &saboteur), SQLITE_OK);
	sqlite3_busy_timeout(saboteur, 10000);
	assert_int_equal(sqlite3_exec(saboteur,
		"CREATE TABLE fail_now (x);"
		"CREATE TRIGGER fail_ins BEFORE INSERT ON jobs WHEN EXISTS (SELECT 1 FROM fail_now)"
		" BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"
		"CREATE TRIGGER fail_upd BEFORE UPDATE ON jobs WHEN EXISTS (SELECT 1 FROM fail_now)"
		" BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;", NULL, NULL, NULL),
		SQLITE_OK);
	sabotage(true);

	ended->state = JOB_COMPLETED;
	ended->end_time = time(NULL);
	store_job_update(ended);
	started->state = JOB_RUNNING;
	started->start_time = time(NULL);
	store_job_update(started);
	store_after_durable(launch, NULL);
	struct job *submitted = new_job(3, "key-c", JOB_PENDING);
	job_table_add(submitted);
	store_job_insert(submitted, json_pack("{s:s}", "script", "#!/bin/sh\n"));
	store_after_commit(refused, (void *)3);
	while (!refused_seen)
		uv_run(ctld.loop, UV_RUN_ONCE);
	assert_false(launched);            /* not while its start is not on disk */
	assert_null(job_find(3));
	/* Still failing: a few more turns, still no launch. */
	uint64_t until = uv_now(ctld.loop) + 800;
	while (uv_now(ctld.loop) < until) {
		uv_run(ctld.loop, UV_RUN_ONCE);
		uv_update_time(ctld.loop);
	}
	assert_false(launched);

	sabotage(false);                   /* the disk has room again */
	while (!launched)
		uv_run(ctld.loop, UV_RUN_ONCE);
	sqlite3_close(saboteur);
	store_close();
	teardown_ctld();

	setup_ctld();
	assert_int_equal(store_open(dir, &err), 0);
	assert_int_equal(store_load(), 0);
	assert_int_equal(job_find(1)->state, JOB_COMPLETED);
	assert_int_equal(job_find(2)->state, JOB_RUNNING);
	assert_null(job_find(3));
	assert_false(store_job_known(3));
	assert_int_equal(store_find_key(1001, "key-c"), 0);
	store_close();
	teardown_ctld();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commit_and_load),
		cmocka_unit_test(old_finished_jobs_stay_in_the_store_only),
		cmocka_unit_test(failed_commit_is_retried),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
