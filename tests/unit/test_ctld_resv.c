/* ctld/resv.c's pure pieces: flag names both ways (Herd's, Slurm's others
 * refused, unknown ones), recurring windows moving on, overlaps; and the
 * scheduler's view of a reservation table (sched list, job index, who
 * may use one, node states) on a small hand-made cluster. */
#define _XOPEN_SOURCE 700   /* nftw */
#include <ftw.h>
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
#include "core/resv.h"
#include "sched/pass.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NOW ((time_t)1795946400)
#define DAY 86400

static void flags_both_ways(void **state)
{
	static const struct {
		const char *in;
		unsigned flags;
		const char *shown;
	} good[] = {
		{ "", 0, "" },
		{ "MAINT", RESV_MAINT, "MAINT" },
		{ "daily,maint", RESV_DAILY | RESV_MAINT, "MAINT,DAILY" },
		{ "WEEKLY,IGNORE_JOBS,FLEX,OVERLAP", RESV_WEEKLY | RESV_IGNORE_JOBS | RESV_FLEX | RESV_OVERLAP,
		  "WEEKLY,IGNORE_JOBS,OVERLAP,FLEX" },
		{ "Spec_Nodes,MAINT", RESV_SPEC_NODES | RESV_MAINT, "MAINT,SPEC_NODES" },
	};
	char buf[128];
	struct herd_error err;
	for (size_t i = 0; i < N(good); i++) {
		unsigned f = 99;
		assert_int_equal(resv_flags_parse(good[i].in, &f, &err), 0);
		assert_int_equal(f, good[i].flags);
		assert_string_equal(resv_flags_string(f, buf, sizeof(buf)), good[i].shown);
	}
	unsigned f = 7;
	assert_int_equal(resv_flags_parse("MAINT,bogus", &f, &err), -1);
	assert_string_equal(err.text, "Error parsing flags bogus");
	assert_int_equal(f, 7);   /* unchanged on failure */
	assert_int_equal(resv_flags_parse("part_nodes", &f, &err), -1);
	assert_string_equal(err.text, "Reservation flag PART_NODES is not supported");
	assert_int_equal(resv_flags_parse(NULL, &f, &err), 0);
	assert_int_equal(f, 0);
}

static void recurring_windows(void **state)
{
	static const struct {
		unsigned flags;
		time_t start, end, now, want_start;
		bool moved;
	} cases[] = {
		{ RESV_DAILY, NOW, NOW + 3600, NOW + 100, NOW, false },          /* still on */
		{ RESV_DAILY, NOW, NOW + 3600, NOW + 3600, NOW + DAY, true },    /* just over */
		{ RESV_DAILY, NOW, NOW + 3600, NOW + 3 * DAY + 7200, NOW + 4 * DAY, true },
		{ RESV_DAILY, NOW, NOW + 3600, NOW + 3 * DAY + 60, NOW + 3 * DAY, true },   /* inside the 4th */
		{ RESV_WEEKLY, NOW, NOW + 3600, NOW + 4000, NOW + 7 * DAY, true },
		{ 0, NOW, NOW + 3600, NOW + 4000, NOW, false },                   /* not recurring */
		{ RESV_MAINT, NOW, NOW + 3600, NOW + 4000, NOW, false },
	};
	for (size_t i = 0; i < N(cases); i++) {
		time_t s = cases[i].start, e = cases[i].end;
		assert_int_equal(resv_next_occurrence(cases[i].flags, cases[i].now, &s, &e), cases[i].moved);
		assert_int_equal(s, cases[i].want_start);
		assert_int_equal(e - s, cases[i].end - cases[i].start);
		assert_true(!cases[i].moved || e > cases[i].now);
	}
	assert_true(resv_windows_overlap(0, 10, 5, 15));
	assert_true(resv_windows_overlap(5, 15, 0, 10));
	assert_true(resv_windows_overlap(0, 10, 2, 3));
	assert_false(resv_windows_overlap(0, 10, 10, 20));   /* [start, end): touching is no overlap */
	assert_false(resv_windows_overlap(10, 20, 0, 10));
}

/* A 3-node cluster and a store of its own with two reservation records,
 * loaded by resv_setup as at start. */
static struct node nodes[3];
static struct conf_node conf_nodes[3];
static int part_idx[3] = { 0, 1, 2 };
static struct part parts[1];

static bool committed;
static time_t stored_at;   /* the "now" of the stored records: the tests' too, a second later or not */
static char dir[] = "/tmp/test_ctld_resv.XXXXXX";
static uv_idle_t idle;

/* ResvOverRun: a job's limit ends it at its reservation's stop, unless it
 * ends earlier anyway; a stop already passed ends it now. */
static void stop_limits(void **state)
{
	time_t start = NOW - 100;
	assert_int_equal(resv_stop_limit(50, start, NOW + 10, NOW), 50);      /* ends before */
	assert_int_equal(resv_stop_limit(110, start, NOW + 10, NOW), 110);    /* at the stop */
	assert_int_equal(resv_stop_limit(600, start, NOW + 10, NOW), 110);
	assert_int_equal(resv_stop_limit(-1, start, NOW + 60, NOW), 160);     /* UNLIMITED */
	assert_int_equal(resv_stop_limit(600, start, NOW, NOW), 100);         /* at once */
	assert_int_equal(resv_stop_limit(600, start, NOW - 30, NOW), 100);    /* passed: now */
	assert_int_equal(resv_stop_limit(-1, NOW, NOW - 30, NOW), 1);         /* 1 s at least */
}

static void spin(uv_idle_t *h)
{
}

static void note(void *arg, bool ok)
{
	assert_true(ok);
	committed = true;
}

static void commit(void)
{
	committed = false;
	store_after_commit(note, NULL);
	while (!committed)
		uv_run(ctld.loop, UV_RUN_ONCE);
}

static int setup_cluster(void **state)
{
	static char *names[] = { "n1", "n2", "n3" };
	memset(&ctld, 0, sizeof(ctld));
	for (int i = 0; i < 3; i++) {
		nodes[i] = (struct node){ .name = names[i], .cpus = 4, .threads = 1,
					  .state = NODE_IDLE, .registered = true, .conf = &conf_nodes[i] };
	}
	parts[0] = (struct part){ .name = "debug", .node_idx = part_idx, .nnodes = 3 };
	core.nodes = nodes;
	core.nnodes = 3;
	core.parts = parts;
	core.nparts = 1;
	core.default_part = &parts[0];
	/* an idle handle keeps the loop turning while commits finish (the
	 * daemon has its listening socket for that) */
	ctld.loop = uv_default_loop();
	uv_idle_init(ctld.loop, &idle);
	uv_idle_start(&idle, spin);
	assert_non_null(mkdtemp(dir));
	struct herd_error err;
	assert_int_equal(store_open(dir, &err), 0);
	/* two stored reservations: maint on n1 now, a daily one on n2-n3 tomorrow */
	time_t now = stored_at = time(NULL);
	store_acct_put("resv", "m", json_pack("{s:I, s:I, s:s, s:i, s:s}", "start", (json_int_t)now - 60,
					      "end", (json_int_t)now + 3600, "nodes", "n1",
					      "flags", RESV_MAINT, "users", "root"));
	store_acct_put("resv", "d", json_pack("{s:I, s:I, s:s, s:i, s:s}", "start", (json_int_t)now + DAY,
					      "end", (json_int_t)now + DAY + 600, "nodes", "n[2-3]",
					      "flags", RESV_DAILY, "accounts", "physics"));
	commit();
	return 0;
}

static void table_as_scheduler_sees_it(void **state)
{
	time_t now = stored_at;
	resv_setup();   /* the stored records, as at start */
	const struct sched_resv *list;
	int n = resv_sched_list(now, &list);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].nnodes, 1);
	assert_int_equal(list[0].node[0], 0);
	assert_int_equal(list[0].flags, SCHED_RESV_MAINT);
	assert_int_equal(list[1].nnodes, 2);
	assert_int_equal(list[1].end - list[1].start, 600);
	/* a day and a half on, the daily one is given as its next occurrence */
	n = resv_sched_list(now + DAY + DAY / 2, &list);
	assert_int_equal(list[1].start, now + 2 * DAY);

	struct job job = { .uid = 1000, .user = "someone", .account = "physics",
			   .time_limit = 600, .part = &parts[0] };
	struct herd_error err;
	assert_int_equal(resv_job_index(&job, now), -1);
	assert_int_equal(resv_check_job(&job, &err), 0);
	job.reservation = "d";
	assert_int_equal(resv_job_index(&job, now), 1);
	assert_int_equal(resv_check_job(&job, &err), 0);   /* by its account */
	job.account = "chemistry";
	assert_int_equal(resv_check_job(&job, &err), HERD_ERR_RESV_ACCESS);
	assert_string_equal(err.text, "Access denied to requested reservation");
	job.reservation = "gone";
	assert_int_equal(resv_check_job(&job, &err), HERD_ERR_RESV_INVALID);
	assert_string_equal(err.text, "Requested reservation is invalid");

	/* node states now: n1 in the active maintenance, the others not yet held */
	assert_string_equal(resv_node_state(0, now), "MAINT");
	assert_null(resv_node_state(1, now));
	assert_string_equal(resv_node_state(1, now + DAY + 1), "RESERVED");

	/* why a job waits, as the scheduler's decisions say */
	job.reservation = NULL;
	assert_int_equal(resv_why_reason(SCHED_WHY_RESERVED, &job, now), REASON_RESV_MAINT);
	assert_int_equal(resv_why_reason(SCHED_WHY_RESERVED, &job, now + 2 * 3600), REASON_RESV_OTHER);
	assert_int_equal(resv_why_reason(SCHED_WHY_RESV_NOT_ACTIVE, &job, now), REASON_RESERVATION);
	assert_int_equal(resv_why_reason(SCHED_WHY_RESOURCES, &job, now), REASON_NONE);
	assert_string_equal(job_reason_name(REASON_RESV_MAINT), "ReqNodeNotAvail, Reserved for maintenance");
	assert_string_equal(job_reason_name(REASON_RESERVATION), "Reservation");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int remove_store(void **state)
{
	store_close();
	return nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_both_ways),
		cmocka_unit_test(recurring_windows),
		cmocka_unit_test(stop_limits),
		cmocka_unit_test_setup_teardown(table_as_scheduler_sees_it, setup_cluster, remove_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
