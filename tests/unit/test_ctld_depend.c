/* ctld/depend.c: --dependency specs parsed and rendered as squeue %E shows
 * them (table driven), each type decided against targets in every state,
 * ',' and '?', singleton, failures that stick, and targets purged from
 * memory decided from a real store; the job record keeps the dependency,
 * the deadline and --kill-on-invalid-dep across a restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NOW ((time_t)1795946400)

static void parse_and_render(void **state)
{
	static const struct {
		const char *spec, *shown;
	} good[] = {
		{ "", "" },
		{ "afterok:12", "afterok:12(unfulfilled)" },
		{ "afterok:1:2:3", "afterok:1(unfulfilled),afterok:2(unfulfilled),afterok:3(unfulfilled)" },
		{ "after:5+10:6", "after:5+10(unfulfilled),after:6(unfulfilled)" },
		{ "after:5+0", "after:5(unfulfilled)" },
		{ "afterany:1?afternotok:2", "afterany:1(unfulfilled)?afternotok:2(unfulfilled)" },
		{ "singleton", "singleton(unfulfilled)" },
		{ "AfterOK:7,SINGLETON", "afterok:7(unfulfilled),singleton(unfulfilled)" },
		{ "42", "afterany:42(unfulfilled)" },
		{ "aftercorr:3,afterany:4:5", "aftercorr:3(unfulfilled),afterany:4(unfulfilled),afterany:5(unfulfilled)" },
		{ "afterok:4294967294", "afterok:4294967294(unfulfilled)" },
		{ "afterok:7_3:7_0,afterany:8", "afterok:7_3(unfulfilled),afterok:7_0(unfulfilled),afterany:8(unfulfilled)" },
		{ "after:7_3+2", "after:7_3+2(unfulfilled)" },
	};
	static const char *bad[] = {
		"afterok", "afterok:", "afterok::1", "afterok:1:", "afterok:1,", ",afterok:1", "afterok:x",
		"afterok:1+5", "afterany:1+5", "after:1+", "after:1+x", "after:1+-1", "bogus:1",
		"singleton:1", "afterok:1,afterok:2?afterok:3", "afterok:0", "afterok:4294967295",
		"afterok:99999999999", "expand:1", "aftercorr:1_2", "afterok:1_", "afterok:_2", "afterok:1_x",
		"afterok:1_2_3", "afterok:1_4294967295", "afterok:-1", ",", "?", "1+2",
		"after:1 ", " afterok:1",
	};
	struct herd_error err;
	struct depend *d;

	for (size_t i = 0; i < N(good); i++) {
		err.text[0] = '\0';
		if (depend_parse(good[i].spec, &d, &err) != 0)
			fail_msg("%s: refused: %s", good[i].spec, err.text);
		char *shown = depend_render(d);
		if (strcmp(shown, good[i].shown))
			fail_msg("%s: shown as %s, want %s", good[i].spec, shown, good[i].shown);
		free(shown);
		/* The record's form gives back the same. */
		json_t *o = depend_to_json(d);
		struct depend *back = depend_from_json(o);
		shown = depend_render(back);
		assert_string_equal(shown, good[i].shown);
		free(shown);
		json_decref(o);
		depend_destroy(back);
		depend_destroy(d);
	}
	for (size_t i = 0; i < N(bad); i++) {
		d = (struct depend *)&err;
		err.text[0] = '\0';
		if (depend_parse(bad[i], &d, &err) == 0)
			fail_msg("%s: accepted", bad[i]);
		assert_null(d);
		assert_true(err.text[0] != '\0');
	}
	assert_int_equal(depend_parse(NULL, &d, &err), 0);
	assert_null(d);
	char *none = depend_render(NULL);
	assert_string_equal(none, "");
	free(none);
}

static void setup_ctld(void)
{
	memset(&ctld, 0, sizeof(ctld));
	core.next_job_id = 1;
	core.min_job_age = 300;
}

static void teardown_ctld(void)
{
	job_table_clear();
	memset(&ctld, 0, sizeof(ctld));
}

static struct job *add_job(uint32_t id, enum job_state state, time_t start, uid_t uid,
			   const char *name)
{
	struct job *job = xmalloc(sizeof(*job));
	job->id = id;
	job->state = state;
	job->start_time = start;
	job->uid = uid;
	job->name = xstrdup(name);
	job->kill_invalid_dep = -1;
	job_table_add(job);
	return job;
}

/* The dependent job (ID 100) with spec, evaluated at NOW. */
static enum depend_result eval(const char *spec, char **shown)
{
	struct job *job = job_find(100);
	bool changed;
	depend_destroy(job->depend);
	job->depend = NULL;
	assert_int_equal(depend_parse(spec, &job->depend, NULL), 0);
	enum depend_result r = depend_evaluate(job, NOW, &changed);
	*shown = depend_render(job->depend);
	return r;
}

static void each_type_against_each_state(void **state)
{
	static const struct {
		const char *spec;
		enum depend_result want;
		const char *shown;
	} cases[] = {
		/* 1 PENDING, 2 RUNNING for 30 s, 3 COMPLETED, 4 FAILED,
		 * 5 CANCELLED while pending, 6 TIMEOUT, 7 COMPLETING */
		{ "afterok:1", DEPEND_WAIT, "afterok:1(unfulfilled)" },
		{ "after:1", DEPEND_WAIT, "after:1(unfulfilled)" },
		{ "afterany:1", DEPEND_WAIT, "afterany:1(unfulfilled)" },
		{ "afternotok:1", DEPEND_WAIT, "afternotok:1(unfulfilled)" },
		{ "after:2", DEPEND_NONE, "" },
		{ "after:2+1", DEPEND_WAIT, "after:2+1(unfulfilled)" },
		{ "afterany:2", DEPEND_WAIT, "afterany:2(unfulfilled)" },
		{ "afterok:2", DEPEND_WAIT, "afterok:2(unfulfilled)" },
		{ "afterok:3", DEPEND_NONE, "" },
		{ "aftercorr:3", DEPEND_NONE, "" },
		{ "afterany:3", DEPEND_NONE, "" },
		{ "after:3", DEPEND_NONE, "" },
		{ "afternotok:3", DEPEND_NEVER, "afternotok:3(failed)" },
		{ "afterok:4", DEPEND_NEVER, "afterok:4(failed)" },
		{ "aftercorr:4", DEPEND_NEVER, "aftercorr:4(failed)" },
		{ "afternotok:4", DEPEND_NONE, "" },
		{ "afterany:4", DEPEND_NONE, "" },
		{ "after:5", DEPEND_NONE, "" },
		{ "afterok:5", DEPEND_NEVER, "afterok:5(failed)" },
		{ "afternotok:5", DEPEND_NONE, "" },
		{ "afternotok:6", DEPEND_NONE, "" },
		{ "afterany:7", DEPEND_WAIT, "afterany:7(unfulfilled)" },
		{ "afterok:7", DEPEND_WAIT, "afterok:7(unfulfilled)" },
		/* ',': all; met parts are dropped, a failed part stays shown */
		{ "afterok:3,afterok:1", DEPEND_WAIT, "afterok:1(unfulfilled)" },
		{ "afterok:3:4", DEPEND_NEVER, "afterok:4(failed)" },
		{ "afterok:4,afterok:1", DEPEND_NEVER, "afterok:4(failed),afterok:1(unfulfilled)" },
		{ "afterok:3,afterany:4,after:2", DEPEND_NONE, "" },
		/* '?': any one */
		{ "afterok:4?afterok:1", DEPEND_WAIT, "afterok:4(failed)?afterok:1(unfulfilled)" },
		{ "afterok:4?afterok:3", DEPEND_NONE, "" },
		{ "afterok:4?afternotok:3", DEPEND_NEVER, "afterok:4(failed)?afternotok:3(failed)" },
		{ "afterok:1?after:2", DEPEND_NONE, "" },
	};
	char *shown;

	setup_ctld();
	add_job(1, JOB_PENDING, 0, 1001, "a");
	add_job(2, JOB_RUNNING, NOW - 30, 1001, "a");
	add_job(3, JOB_COMPLETED, NOW - 100, 1001, "a");
	add_job(4, JOB_FAILED, NOW - 100, 1001, "a");
	add_job(5, JOB_CANCELLED, NOW - 10, 1001, "a");
	add_job(6, JOB_TIMEOUT, NOW - 100, 1001, "a");
	add_job(7, JOB_COMPLETING, NOW - 100, 1001, "a");
	add_job(100, JOB_PENDING, 0, 1001, "dependent");
	for (size_t i = 0; i < N(cases); i++) {
		enum depend_result r = eval(cases[i].spec, &shown);
		if (r != cases[i].want || strcmp(shown, cases[i].shown))
			fail_msg("%s: got %d \"%s\", want %d \"%s\"", cases[i].spec, r, shown,
				 cases[i].want, cases[i].shown);
		free(shown);
	}
	struct job *dep = job_find(100);
	/* after+minutes: met once the delay since the start has passed. */
	job_find(2)->start_time = NOW - 61;
	assert_int_equal(eval("after:2+1", &shown), DEPEND_NONE);
	free(shown);
	/* A failure sticks, even if the target is requeued and completes. */
	assert_int_equal(eval("afterok:4", &shown), DEPEND_NEVER);
	free(shown);
	job_find(4)->state = JOB_COMPLETED;
	bool changed;
	assert_int_equal(depend_evaluate(dep, NOW, &changed), DEPEND_NEVER);
	assert_false(changed);   /* nothing new to save */
	/* A target nothing is known of (no store here) can never be met. */
	assert_int_equal(eval("afterany:55", &shown), DEPEND_NEVER);
	free(shown);
	/* Only existing targets pass the submit check. */
	struct depend *d;
	struct herd_error err;
	assert_int_equal(depend_parse("afterok:3:1,singleton", &d, &err), 0);
	assert_int_equal(depend_check_targets(d, &err), 0);
	depend_destroy(d);
	assert_int_equal(depend_parse("afterok:3:55", &d, &err), 0);
	assert_int_equal(depend_check_targets(d, &err), -1);
	assert_string_equal(err.text, "Job dependency problem");
	depend_destroy(d);
	teardown_ctld();
}

static void singleton(void **state)
{
	char *shown;
	setup_ctld();
	struct job *run = add_job(10, JOB_RUNNING, NOW - 5, 1001, "x");
	add_job(100, JOB_PENDING, 0, 1001, "x");
	add_job(101, JOB_PENDING, 0, 1001, "x");   /* later: does not hold 100 back */
	add_job(11, JOB_RUNNING, NOW - 5, 1002, "y");   /* another user's */
	add_job(12, JOB_COMPLETED, NOW - 5, 1001, "y");
	assert_int_equal(eval("singleton", &shown), DEPEND_WAIT);
	assert_string_equal(shown, "singleton(unfulfilled)");
	free(shown);
	run->state = JOB_COMPLETED;
	assert_int_equal(eval("singleton", &shown), DEPEND_NONE);
	free(shown);
	/* An earlier pending job of the same name and user holds it back. */
	run->state = JOB_PENDING;
	assert_int_equal(eval("singleton", &shown), DEPEND_WAIT);
	free(shown);
	free(job_find(100)->name);
	job_find(100)->name = xstrdup("y");   /* y: only another user's, and a finished one */
	assert_int_equal(eval("singleton", &shown), DEPEND_NONE);
	free(shown);
	teardown_ctld();
}

/* ---- with a real store ---------------------------------------------------- */

static char dir[] = "/tmp/herd-depend-XXXXXX";
static uv_idle_t idle;
static int committed;

static void spin(uv_idle_t *h)
{
}

static void note(void *arg, bool ok)
{
	assert_true(ok);
	committed++;
}

static void open_store(void)
{
	struct herd_error err;
	setup_ctld();
	ctld.loop = xmalloc(sizeof(*ctld.loop));
	uv_loop_init(ctld.loop);
	uv_idle_init(ctld.loop, &idle);
	uv_idle_start(&idle, spin);
	assert_int_equal(store_open(dir, &err), 0);
}

static void commit(void)
{
	int want = committed + 1;
	store_after_commit(note, NULL);
	while (committed < want)
		uv_run(ctld.loop, UV_RUN_ONCE);
}

static void close_store(void)
{
	uv_loop_t *loop = ctld.loop;
	store_close();
	uv_close((uv_handle_t *)&idle, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(loop), 0);
	free(loop);
	teardown_ctld();
}

static void purged_targets_and_restart(void **state)
{
	char *shown;
	assert_non_null(mkdtemp(dir));
	open_store();
	/* Two jobs that ended an hour ago (past MinJobAge) ... */
	struct job *ok = add_job(1, JOB_COMPLETED, NOW - 3700, 1001, "a");
	struct job *bad = add_job(2, JOB_FAILED, NOW - 3700, 1001, "a");
	ok->end_time = bad->end_time = time(NULL) - 3600;
	/* ... and a pending job with everything this file keeps. */
	struct job *dep = add_job(100, JOB_PENDING, 0, 1001, "d");
	assert_int_equal(depend_parse("afterok:1?afterok:2", &dep->depend, NULL), 0);
	dep->depend->items[1].failed = true;
	dep->deadline = NOW + 7200;
	dep->kill_invalid_dep = 0;
	dep->eligible_time = NOW + 60;
	store_job_insert(ok, json_object());
	store_job_insert(bad, json_object());
	store_job_insert(dep, json_object());
	commit();
	close_store();

	/* A restart: the finished jobs are not loaded, the dependent is whole. */
	open_store();
	assert_int_equal(store_load(), 0);
	assert_null(job_find(1));
	assert_null(job_find(2));
	dep = job_find(100);
	assert_non_null(dep);
	assert_int_equal(dep->deadline, NOW + 7200);
	assert_int_equal(dep->kill_invalid_dep, 0);
	assert_int_equal(dep->eligible_time, NOW + 60);
	shown = depend_render(dep->depend);
	assert_string_equal(shown, "afterok:1(unfulfilled)?afterok:2(failed)");
	free(shown);
	/* Targets purged from memory are decided from the store. */
	struct depend_target t;
	assert_int_equal(depend_target_state(2, DEPEND_WHOLE, &t), 0);
	assert_int_equal(t.state, JOB_FAILED);
	assert_int_equal(t.start_time, NOW - 3700);
	assert_int_equal(depend_target_state(3, DEPEND_WHOLE, &t), -1);
	struct herd_error err;
	struct depend *d;
	assert_int_equal(depend_parse("afterok:1:2", &d, &err), 0);
	assert_int_equal(depend_check_targets(d, &err), 0);
	depend_destroy(d);
	assert_int_equal(eval("afterok:1", &shown), DEPEND_NONE);
	free(shown);
	assert_int_equal(eval("afternotok:1", &shown), DEPEND_NEVER);
	free(shown);
	assert_int_equal(eval("afternotok:2,after:1+5", &shown), DEPEND_NONE);
	free(shown);
	assert_int_equal(eval("afterok:2", &shown), DEPEND_NEVER);
	assert_string_equal(shown, "afterok:2(failed)");
	free(shown);
	/* A record without the new keys (an older controller's) has none of them. */
	json_t *rec = json_pack("{s:I, s:s, s:[]}", "job_id", (json_int_t)7, "state", "PENDING",
				"alloc");
	struct job *old = job_from_json(rec);
	assert_non_null(old);
	assert_null(old->depend);
	assert_int_equal(old->deadline, 0);
	assert_int_equal(old->kill_invalid_dep, -1);
	job_destroy(old);
	json_decref(rec);
	close_store();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_and_render),
		cmocka_unit_test(each_type_against_each_state),
		cmocka_unit_test(singleton),
		cmocka_unit_test(purged_targets_and_restart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
