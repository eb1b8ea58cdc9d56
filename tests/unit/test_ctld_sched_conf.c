/* SchedulerType and SchedulerParameters (src/ctld/sched_conf.c), table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ctld/ctld.h"
#include "core/sched_conf.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static void defaults(void **state)
{
	struct sched_conf c;
	struct herd_error err;

	assert_int_equal(sched_conf_parse(NULL, NULL, &c, &err), 0);
	assert_true(c.backfill);
	assert_int_equal(c.default_queue_depth, 100);
	assert_int_equal(c.sched_interval, 60);
	assert_int_equal(c.bf_window, 1440);
	assert_int_equal(c.bf_resolution, 60);
	assert_int_equal(c.bf_interval, 30);
	assert_int_equal(c.bf_max_job_test, 500);
	assert_int_equal(c.bf_max_job_user, 0);
	assert_false(c.bf_continue);
}

static void values(void **state)
{
	struct sched_conf c;
	struct herd_error err;

	assert_int_equal(sched_conf_parse("sched/builtin",
					  "bf_window=60,bf_resolution=1,kill_invalid_depend,"
					  "bf_interval=2,bf_max_job_test=10,bf_max_job_user=3,"
					  "default_queue_depth=7,sched_interval=0,bf_continue",
					  &c, &err), 0);
	assert_false(c.backfill);
	assert_int_equal(c.bf_window, 60);
	assert_int_equal(c.bf_resolution, 1);
	assert_int_equal(c.bf_interval, 2);
	assert_int_equal(c.bf_max_job_test, 10);
	assert_int_equal(c.bf_max_job_user, 3);
	assert_int_equal(c.default_queue_depth, 7);
	assert_int_equal(c.sched_interval, 0);
	assert_true(c.bf_continue);
	assert_int_equal(sched_conf_parse("SCHED/BACKFILL", "BF_WINDOW=5", &c, &err), 0);
	assert_true(c.backfill);
	assert_int_equal(c.bf_window, 5);
}

static const struct {
	const char *type, *params, *names;   /* names: what the sentence must name */
} bad[] = {
	{ "sched/wiki", NULL, "SchedulerType=sched/wiki" },
	{ NULL, "bf_window=0", "bf_window=0" },
	{ NULL, "bf_window=43201", "bf_window=43201" },
	{ NULL, "bf_window=abc", "bf_window=abc" },
	{ NULL, "bf_window=", "bf_window=" },
	{ NULL, "bf_window", "bf_window" },
	{ NULL, "bf_resolution=0", "bf_resolution=0" },
	{ NULL, "bf_interval=-2", "bf_interval=-2" },
	{ NULL, "bf_max_job_test=0", "bf_max_job_test=0" },
	{ NULL, "bf_max_job_test=10,bf_max_job_user=11", "bf_max_job_user=11" },
	{ NULL, "default_queue_depth=0", "default_queue_depth=0" },
	{ NULL, "sched_interval=-1", "sched_interval=-1" },
	{ NULL, "bf_window=12x", "bf_window=12x" },
	{ NULL, "bf_window=99999999999999999999", "bf_window=" },
	{ NULL, "bf_continue=1", "bf_continue" },
};

static void refused(void **state)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sched_conf c;
		struct herd_error err = { "" };
		sched_conf_default(&c);
		c.bf_window = 77;
		print_message("%s %s\n", bad[i].type ? bad[i].type : "-", bad[i].params ? bad[i].params : "-");
		assert_int_equal(sched_conf_parse(bad[i].type, bad[i].params, &c, &err), -1);
		assert_non_null(strstr(err.text, bad[i].names));
		assert_int_equal(c.bf_window, 77);   /* left as it was */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(values),
		cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
