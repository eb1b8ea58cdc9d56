/* cmd/sreport's arithmetic: -t's names and how each time format prints a
 * figure, the window's rounding to the hour and its defaults, a job's
 * CPU-seconds clipped to the window (sacct's num_cpus x elapsed), and
 * SizesByAccount's buckets (sreport_calc.c, compiled in). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/opt.c"
#include "cmd/sreport_calc.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s };
	return timegm(&tm);
}

static void time_formats(void **state)
{
	static const struct {
		const char *name;
		int fmt;   /* -1: refused */
	} cases[] = {
		{ "Minutes", TF_MINS }, { "m", TF_MINS }, { "min", TF_MINS }, { "MINUTES", TF_MINS },
		{ "s", TF_SECS }, { "seconds", TF_SECS }, { "h", TF_HOURS }, { "hours", TF_HOURS },
		{ "p", TF_PERCENT }, { "percent", TF_PERCENT }, { "SecPer", TF_SECS_PER },
		{ "minper", TF_MINS_PER }, { "hourper", TF_HOURS_PER }, { "HourPer", TF_HOURS_PER },
		{ "x", -1 }, { "", -1 }, { "minutesx", -1 }, { "minp", -1 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		enum time_fmt f = TF_SECS;
		int rc = sreport_time_fmt_parse(cases[i].name, &f);
		if (cases[i].fmt < 0) {
			assert_int_equal(rc, -1);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(f, cases[i].fmt);
		}
	}
	assert_string_equal(sreport_time_fmt_name(TF_MINS), "Minutes");
	assert_string_equal(sreport_time_fmt_name(TF_PERCENT), "Percentage of Total");
	assert_string_equal(sreport_time_fmt_name(TF_HOURS_PER), "Hours/Percentage of Total");
	char line[128];
	sreport_usage_line(line, sizeof(line), "Usage", TF_MINS, false);
	assert_string_equal(line, "Usage reported in CPU Minutes");
	sreport_usage_line(line, sizeof(line), "Usage", TF_PERCENT, true);
	assert_string_equal(line, "Usage reported in Percentage of Total");
	sreport_usage_line(line, sizeof(line), "Usage", TF_HOURS_PER, false);
	assert_string_equal(line, "Usage reported in CPU Hours/Percentage of Total");
	sreport_usage_line(line, sizeof(line), "Usage", TF_HOURS, true);
	assert_string_equal(line, "Usage reported in TRES Hours");
	sreport_usage_line(line, sizeof(line), "Time", TF_SECS, false);
	assert_string_equal(line, "Time reported in Seconds");
}

static void time_values(void **state)
{
	static const struct {
		long long secs, total;
		enum time_fmt fmt;
		const char *shown;
	} cases[] = {
		{ 3600, 7200, TF_SECS, "3600" }, { 3600, 7200, TF_MINS, "60" },
		{ 3600, 7200, TF_HOURS, "1" }, { 3600, 7200, TF_PERCENT, "50.00%" },
		{ 3600, 7200, TF_SECS_PER, "3600(50.00%)" }, { 3600, 7200, TF_MINS_PER, "60(50.00%)" },
		{ 3600, 7200, TF_HOURS_PER, "1(50.00%)" },
		/* minutes and hours round */
		{ 89, 100, TF_MINS, "1" }, { 91, 100, TF_MINS, "2" }, { 29, 100, TF_MINS, "0" },
		{ 5399, 1, TF_HOURS, "1" }, { 5401, 1, TF_HOURS, "2" },
		{ 1, 3, TF_PERCENT, "33.33%" }, { 0, 0, TF_PERCENT, "0.00%" },
		{ 0, 100, TF_MINS, "0" },
	};
	char buf[64];
	for (size_t i = 0; i < N(cases); i++)
		assert_string_equal(sreport_time_value(cases[i].secs, cases[i].total, cases[i].fmt,
						       buf, sizeof(buf)), cases[i].shown);
}

static void windows(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	time_t now = utc(2026, 12, 1, 13, 10, 0), start, end;
	/* defaults: yesterday's midnight to today's */
	sreport_window(false, 0, false, 0, now, &start, &end);
	assert_true(start == utc(2026, 11, 30, 0, 0, 0));
	assert_true(end == utc(2026, 12, 1, 0, 0, 0));
	/* given times go to the nearest hour */
	sreport_window(true, utc(2026, 12, 1, 0, 0, 0), true, utc(2026, 12, 1, 12, 59, 59), now,
		       &start, &end);
	assert_true(start == utc(2026, 12, 1, 0, 0, 0));
	assert_true(end == utc(2026, 12, 1, 13, 0, 0));
	assert_int_equal(end - start, 46800);
	sreport_window(true, utc(2026, 12, 1, 10, 29, 29), true, utc(2026, 12, 1, 10, 30, 0), now,
		       &start, &end);
	assert_true(start == utc(2026, 12, 1, 10, 0, 0));
	assert_true(end == utc(2026, 12, 1, 11, 0, 0));
	/* an end past now is now (then rounded); at least an hour */
	sreport_window(true, utc(2026, 12, 1, 12, 0, 0), true, utc(2026, 12, 1, 18, 0, 0), now,
		       &start, &end);
	assert_true(end == utc(2026, 12, 1, 13, 0, 0));
	sreport_window(true, utc(2026, 12, 1, 13, 0, 0), true, utc(2026, 12, 1, 18, 0, 0), now,
		       &start, &end);
	assert_true(start == utc(2026, 12, 1, 13, 0, 0) && end == utc(2026, 12, 1, 14, 0, 0));
	sreport_window(true, utc(2026, 12, 1, 12, 0, 0), true, utc(2026, 12, 1, 10, 0, 0), now,
		       &start, &end);
	assert_true(end == utc(2026, 12, 1, 13, 0, 0));
	/* a start today and no end: up to the hour after it */
	sreport_window(true, utc(2026, 12, 1, 12, 0, 0), false, 0, now, &start, &end);
	assert_true(start == utc(2026, 12, 1, 12, 0, 0));
	assert_true(end == utc(2026, 12, 1, 13, 0, 0));
}

static void usage_widths(void **state)
{
	assert_int_equal(sreport_usage_width(0, TF_MINS), 8);
	assert_int_equal(sreport_usage_width(99999999, TF_SECS), 8);
	assert_int_equal(sreport_usage_width(100000000, TF_SECS), 9);
	assert_int_equal(sreport_usage_width(999999999, TF_HOURS), 9);
	assert_int_equal(sreport_usage_width(12732386400LL, TF_HOURS), 11);
	assert_int_equal(sreport_usage_width(12732386400LL, TF_HOURS_PER), 20);
	assert_int_equal(sreport_usage_width(504655200, TF_HOURS_PER), 18);
	assert_int_equal(sreport_usage_width(0, TF_MINS_PER), 17);
	assert_int_equal(sreport_usage_width(0, TF_PERCENT), 8);
}

static json_t *job(const char *state, long long start, long long end, long long cpus)
{
	return json_pack("{s:s, s:I, s:I, s:I, s:[[s,I]]}", "state", state, "start_time",
			 (json_int_t)start, "end_time", (json_int_t)end, "num_cpus", (json_int_t)cpus,
			 "alloc", "n1", (json_int_t)cpus);
}

/* -T gres/gpu: a record's GPUs are its tres_alloc_gres' gres/gpu. */
static void gpu_seconds(void **state)
{
	json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:s, s:[[s,i]]}", "state", "COMPLETED",
			      "start_time", 100, "end_time", 200, "num_cpus", 8, "tres_alloc_gres",
			      "gres/gpu:h100=2,gres/gpu=3,gres/gpumem=9", "alloc", "n1", 8);
	assert_int_equal(sreport_job_count(j, SREPORT_TRES_GPU), 3);
	assert_int_equal(sreport_job_count(j, SREPORT_TRES_CPU), 8);
	assert_int_equal(sreport_job_tres_secs(j, SREPORT_TRES_GPU, 150, 300, 300), 150);
	json_object_del(j, "tres_alloc_gres");
	assert_int_equal(sreport_job_tres_secs(j, SREPORT_TRES_GPU, 0, 300, 300), 0);
	json_decref(j);
}

static void job_seconds(void **state)
{
	static const struct {
		const char *state;
		long long start, end, cpus;
		time_t wstart, wend, now;
		long long secs;
	} cases[] = {
		{ "COMPLETED", 100, 200, 4, 0, 1000, 5000, 400 },     /* inside: sacct's CPUTimeRAW */
		{ "COMPLETED", 100, 200, 4, 150, 1000, 5000, 200 },   /* clipped at the start */
		{ "FAILED", 100, 200, 4, 0, 120, 5000, 80 },          /* and at the end */
		{ "COMPLETED", 100, 200, 4, 200, 300, 5000, 0 },      /* ended as it opened */
		{ "RUNNING", 100, 0, 2, 0, 1000, 250, 300 },          /* running: up to now */
		{ "COMPLETING", 100, 0, 2, 0, 1000, 250, 300 },
		{ "PENDING", 0, 0, 2, 0, 1000, 250, 0 },
		{ "CANCELLED", 100, 100, 2, 0, 1000, 250, 0 },        /* cancelled before it ran */
	};
	for (size_t i = 0; i < N(cases); i++) {
		json_t *j = job(cases[i].state, cases[i].start, cases[i].end, cases[i].cpus);
		assert_int_equal(sreport_job_cpu_secs(j, cases[i].wstart, cases[i].wend, cases[i].now),
				 cases[i].secs);
		json_decref(j);
	}
	/* a record without an allocation never ran */
	json_t *j = json_pack("{s:s, s:I, s:I, s:I}", "state", "CANCELLED", "start_time",
			      (json_int_t)5, "end_time", (json_int_t)9, "num_cpus", (json_int_t)1);
	assert_int_equal(sreport_job_cpu_secs(j, 0, 100, 100), 0);
	json_decref(j);
}

static void buckets(void **state)
{
	const long groups[] = { 50, 250, 500, 1000 };
	assert_int_equal(sreport_size_bucket(groups, 4, 1), 0);
	assert_int_equal(sreport_size_bucket(groups, 4, 49), 0);
	assert_int_equal(sreport_size_bucket(groups, 4, 50), 1);
	assert_int_equal(sreport_size_bucket(groups, 4, 249), 1);
	assert_int_equal(sreport_size_bucket(groups, 4, 250), 2);
	assert_int_equal(sreport_size_bucket(groups, 4, 999), 3);
	assert_int_equal(sreport_size_bucket(groups, 4, 1000), 4);
	const long two[] = { 2 };
	assert_int_equal(sreport_size_bucket(two, 1, 1), 0);
	assert_int_equal(sreport_size_bucket(two, 1, 2), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(time_formats), cmocka_unit_test(time_values),
		cmocka_unit_test(windows),      cmocka_unit_test(job_seconds), cmocka_unit_test(gpu_seconds),
		cmocka_unit_test(buckets),      cmocka_unit_test(usage_widths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
