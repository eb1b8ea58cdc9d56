/* cmd/sacct and opt_time_parse: Slurm's time notations for -S/-E, sacct's
 * -o field list with widths, and how a cell is cut and padded.  The command
 * sources are compiled in (they are not part of libherd), sacct.c without
 * its main. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/fmt.c"
#include "cmd/opt.c"
#include "cmd/step.c"
#define SACCT_NO_MAIN
#include "cmd/sacct.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Sunday 2026-11-29 10:00:00 UTC */
#define NOW ((time_t)1795946400)

static time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s };
	return timegm(&tm);
}

static void test_times(void **state)
{
	const struct {
		const char *text;
		bool past;
		time_t want;
	} good[] = {
		{ "now", true, NOW },
		{ "NOW", true, NOW },
		{ "now+90", true, NOW + 90 },
		{ "now+1hour", true, NOW + 3600 },
		{ "now-2days", true, NOW - 2 * 86400 },
		{ "now+5minutes", true, NOW + 300 },
		{ "now-1weeks", true, NOW - 7 * 86400 },
		{ "now+30seconds", true, NOW + 30 },
		{ "today", true, utc(2026, 11, 29, 0, 0, 0) },
		{ "midnight", true, utc(2026, 11, 29, 0, 0, 0) },
		{ "noon", true, utc(2026, 11, 29, 12, 0, 0) },
		{ "elevenses", true, utc(2026, 11, 29, 11, 0, 0) },
		{ "fika", true, utc(2026, 11, 29, 15, 0, 0) },
		{ "teatime", true, utc(2026, 11, 29, 16, 0, 0) },
		{ "tomorrow", true, utc(2026, 11, 30, 0, 0, 0) },
		/* a time of day alone: the last one for sacct, the next for --begin */
		{ "09:30", true, utc(2026, 11, 29, 9, 30, 0) },
		{ "11:30", true, utc(2026, 11, 28, 11, 30, 0) },
		{ "11:30:15", false, utc(2026, 11, 29, 11, 30, 15) },
		{ "09:30", false, utc(2026, 11, 30, 9, 30, 0) },
		{ "2:30PM", true, utc(2026, 11, 28, 14, 30, 0) },
		{ "12:00am", true, utc(2026, 11, 29, 0, 0, 0) },
		{ "2026-11-01", true, utc(2026, 11, 1, 0, 0, 0) },
		{ "2026-11-01T08:15:30", true, utc(2026, 11, 1, 8, 15, 30) },
		{ "2014-07-03-11:40", true, utc(2014, 7, 3, 11, 40, 0) },
		{ "1101", true, utc(2026, 11, 1, 0, 0, 0) },
		{ "110125", true, utc(2025, 11, 1, 0, 0, 0) },
		{ "12/25", true, utc(2025, 12, 25, 0, 0, 0) },
		{ "12/25", false, utc(2026, 12, 25, 0, 0, 0) },
		{ "12/25/27", true, utc(2027, 12, 25, 0, 0, 0) },
		{ "11.02.26-10:00", true, utc(2026, 11, 2, 10, 0, 0) },
		{ "11/02-23:59:59", true, utc(2026, 11, 2, 23, 59, 59) },
	};
	const char *bad[] = {
		"", "nope", "25:00", "12:5", "13/01", "00/10", "now+", "now+1fortnight", "now*2",
		"2026-13-01", "2026-11-01T", "2026-11-01X10:00", "1101x", "13:00PM",
	};
	time_t t;

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < N(good); i++) {
		t = 0;
		if (opt_time_parse(good[i].text, NOW, good[i].past, &t) != 0 || t != good[i].want)
			fail_msg("%s (past=%d): got %lld, want %lld", good[i].text, good[i].past,
				 (long long)t, (long long)good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++)
		if (opt_time_parse(bad[i], NOW, true, &t) == 0)
			fail_msg("%s: accepted", bad[i]);
	assert_int_equal(opt_time_parse(NULL, NOW, true, &t), -1);
}

static void test_format(void **state)
{
	size_t n;
	struct column *c = sacct_format_parse("jobid,jobname%-30,state%20,job,elapsedr,NNODE", &n);
	assert_non_null(c);
	assert_int_equal(n, 6);
	assert_string_equal(c[0].field->name, "JobID");
	assert_int_equal(c[0].width, 12);
	assert_false(c[0].right);
	assert_string_equal(c[1].field->name, "JobName");
	assert_int_equal(c[1].width, 30);
	assert_false(c[1].right);
	assert_string_equal(c[2].field->name, "State");
	assert_int_equal(c[2].width, 20);
	assert_true(c[2].right);
	assert_string_equal(c[3].field->name, "JobID");   /* first in Slurm's order */
	assert_string_equal(c[4].field->name, "ElapsedRaw");
	assert_string_equal(c[5].field->name, "NNodes");
	assert_int_equal(c[5].width, 8);
	assert_true(c[5].right);
	free(c);
	/* the default columns, with Slurm's widths */
	c = sacct_format_parse(DEFAULT_FORMAT, &n);
	assert_int_equal(n, 7);
	int widths[] = { 12, 10, 10, 10, 10, 10, 8 };
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c[i].width, widths[i]);
	free(c);
	c = sacct_format_parse(LONG_FORMAT, &n);
	assert_non_null(c);
	assert_int_equal(n, 54);
	free(c);
	fprintf(stderr, "(two error lines expected)\n");
	assert_null(sacct_format_parse("jobid,bogus", &n));
	assert_null(sacct_format_parse("state%0", &n));
}

static void test_cells(void **state)
{
	const struct field *state_f = &fields[0], *num_f = NULL, *time_f = NULL;
	for (size_t i = 0; i < NFIELDS; i++) {
		if (!strcmp(fields[i].name, "State"))
			state_f = &fields[i];
		if (!strcmp(fields[i].name, "ElapsedRaw"))
			num_f = &fields[i];
		if (!strcmp(fields[i].name, "Start"))
			time_f = &fields[i];
	}
	struct out plain = { PARSABLE_NO, "|" }, p1 = { PARSABLE_END, "|" },
		   p2 = { PARSABLE_NO_END, "|" };
	struct column st = { state_f, 10, true }, left = { state_f, 10, false },
		      num = { num_f, 3, true }, tm = { time_f, 10, true };
	char *line = xstrdup("");

	cell(&line, &plain, &st, "CANCELLED by 1000", false);    /* cut, ends in '+' */
	cell(&line, &plain, &left, "RUNNING", false);
	cell(&line, &plain, &num, "123456", false);              /* numbers are never cut */
	cell(&line, &plain, &tm, "2026-11-29T10:00:00", false);   /* times are cut plainly */
	cell(&line, &plain, &st, NULL, true);                     /* no value: blank */
	assert_string_equal(line, "CANCELLED+ RUNNING    123456 2026-11-29            ");
	free(line);
	line = xstrdup("");
	cell(&line, &p1, &st, "CANCELLED by 1000", false);
	cell(&line, &p1, &st, NULL, true);
	assert_string_equal(line, "CANCELLED by 1000||");
	free(line);
	line = xstrdup("");
	cell(&line, &p2, &st, "A", false);
	cell(&line, &p2, &st, "B", true);
	assert_string_equal(line, "A|B");
	free(line);
}

static void test_durations_and_exit_codes(void **state)
{
	char buf[64];
	assert_string_equal(duration(0, buf, sizeof(buf)), "00:00:00");
	assert_string_equal(duration(3599, buf, sizeof(buf)), "00:59:59");
	assert_string_equal(duration(90061, buf, sizeof(buf)), "1-01:01:01");
	assert_string_equal(duration(-5, buf, sizeof(buf)), "00:00:00");
	assert_string_equal(exit_code(0, buf, sizeof(buf)), "0:0");
	assert_string_equal(exit_code(3 << 8, buf, sizeof(buf)), "3:0");
	assert_string_equal(exit_code(15, buf, sizeof(buf)), "0:15");
	assert_string_equal(exit_code(9, buf, sizeof(buf)), "0:9");
	assert_string_equal(exit_code(130 << 8, buf, sizeof(buf)), "2:0");   /* Slurm takes 128 off */
}

/* What each field reads from a record, for a job and for its batch step. */
static void test_values(void **state)
{
	json_t *job = json_pack("{s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i,"
				" s:i, s:s, s:[[s,i],[s,i]], s:i, s:i, s:i, s:i, s:i, s:s}",
				"job_id", 42, "name", "wrap", "state", "CANCELLED", "requid", 1001,
				"exit_code", 15, "partition", "debug", "user", "herdu1",
				"uid", 1001, "num_cpus", 5, "num_nodes", 2, "mem_per_node", 2048,
				"submit_time", (int)(NOW - 100), "start_time", (int)(NOW - 90),
				"nodes", "n[1-2]", "alloc", "n1", 3, "n2", 2, "end_time", (int)(NOW - 30),
				"time_limit", 3600, "eligible_time", (int)(NOW - 100), "gid", 1001,
				"req_nodes", 2, "account", "");
	struct row job_row = { job, false, NOW, "c1", NULL }, step_row = { job, true, NOW, "c1", NULL };
	const struct {
		const char *field, *job, *step;   /* NULL: blank */
	} want[] = {
		{ "JobID", "42", "42.batch" }, { "JobIDRaw", "42", "42.batch" },
		{ "JobName", "wrap", "batch" }, { "Partition", "debug", NULL },
		{ "State", "CANCELLED by 1001", "CANCELLED" }, { "ExitCode", "0:0", "0:15" },
		{ "AllocCPUS", "5", "3" }, { "NNodes", "2", "1" }, { "NodeList", "n[1-2]", "n1" },
		{ "Elapsed", "00:01:00", "00:01:00" }, { "ElapsedRaw", "60", "60" },
		{ "ReqMem", "4G", NULL }, { "User", "herdu1", NULL }, { "UID", "1001", NULL },
		{ "Timelimit", "01:00:00", NULL }, { "TimelimitRaw", "60", NULL },
		{ "AllocTRES", "billing=5,cpu=5,mem=4G,node=2", "cpu=3,mem=2G,node=1" },
		{ "Cluster", "c1", "c1" }, { "MaxRSS", NULL, NULL }, { "NTasks", NULL, "1" },
	};
	char buf[256];
	size_t n;

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < N(want); i++) {
		struct column *c = sacct_format_parse(want[i].field, &n);
		assert_non_null(c);
		const char *v = value(c, &job_row, buf, sizeof(buf));
		if (want[i].job ? !v || strcmp(v, want[i].job) : v && *v)
			fail_msg("%s (job): got %s", want[i].field, v ? v : "NULL");
		v = value(c, &step_row, buf, sizeof(buf));
		if (want[i].step ? !v || strcmp(v, want[i].step) : v && *v)
			fail_msg("%s (batch): got %s", want[i].field, v ? v : "NULL");
		free(c);
	}
	/* a pending job: nothing allocated, no start or end yet */
	json_object_set_new(job, "state", json_string("PENDING"));
	json_object_set_new(job, "alloc", json_array());
	json_object_set_new(job, "start_time", json_integer(0));
	json_object_set_new(job, "end_time", json_integer(0));
	const struct {
		const char *field, *job;
	} pending[] = {
		{ "AllocCPUS", "0" }, { "NodeList", "None assigned" }, { "Start", "Unknown" },
		{ "End", "Unknown" }, { "Elapsed", "00:00:00" }, { "State", "PENDING" },
	};
	for (size_t i = 0; i < N(pending); i++) {
		struct column *c = sacct_format_parse(pending[i].field, &n);
		const char *v = value(c, &job_row, buf, sizeof(buf));
		if (!v || strcmp(v, pending[i].job))
			fail_msg("%s (pending): got %s", pending[i].field, v ? v : "NULL");
		free(c);
	}
	assert_false(started(job));
	json_decref(job);
}


/* TotalCPU and MaxRSS as sacct prints them. */
static void test_usage_formats(void **state)
{
	const struct {
		long long us;
		const char *want;
	} cpu[] = {
		{ 0, "00:00:00" }, { 7000, "00:00.007" }, { 3901000, "00:03.901" },
		{ 61500000, "01:01.500" }, { 3600000000LL, "01:00:00" },
		{ 3723400000LL, "01:02:03" }, { 90061000000LL, "1-01:01:01" },
	};
	const struct {
		long long kb;
		const char *want;
	} rss[] = {
		{ 0, "0" }, { 10820, "10820K" }, { 1536, "1536K" }, { 2048, "2M" },
		{ 2097152, "2G" }, { 3 * 1048576LL + 1024, "3073M" },
	};
	char buf[64];
	for (size_t i = 0; i < N(cpu); i++)
		assert_string_equal(cpu_text(cpu[i].us, buf, sizeof(buf)), cpu[i].want);
	for (size_t i = 0; i < N(rss); i++)
		assert_string_equal(kb_text(rss[i].kb, &default_show, buf, sizeof(buf)), rss[i].want);
}

static const char *cell_of(const char *field, const struct row *r, char *buf, size_t len)
{
	size_t n;
	struct column *c = sacct_format_parse(field, &n);
	assert_non_null(c);
	const char *v = value(c, r, buf, len);
	free(c);
	return v ? v : "";
}

/* A job's steps (the STEP records of ACCT_JOBS) as their lines show them. */
static void test_step_values(void **state)
{
	json_t *job = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i,"
				" s:s, s:[[s,i],[s,i]], s:i, s:s, s:i, s:i}",
				"job_id", 42, "name", "run.sh", "state", "FAILED", "exit_code", 2 << 8,
				"partition", "debug", "user", "herdu1", "uid", 1001, "num_cpus", 4,
				"num_nodes", 2, "start_time", (int)(NOW - 100), "end_time", (int)(NOW - 10),
				"nodes", "n[1-2]", "alloc", "n1", 2, "n2", 2, "submit_time", (int)(NOW - 110),
				"account", "phys", "array_job_id", 0, "time_limit", -1);
	json_t *steps = json_pack(
		"[{s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:i,"
		"  s:i, s:s, s:i},"
		" {s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:i,"
		"  s:i, s:s, s:i, s:i},"
		" {s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:i,"
		"  s:i, s:s, s:i}]",
		"job_id", 42, "step_id", 0, "name", "hostname", "state", "FAILED",
		"start_time", (int)(NOW - 90), "end_time", (int)(NOW - 60), "nodes", "n[1-2]",
		"num_nodes", 2, "num_tasks", 4, "num_cpus", 4, "cpus_per_task", 1,
		"tasks_per_node", "2(x2)", "distribution", "block", "exit_code", 3 << 8,
		"cpu_time_us", 3901000, "max_rss_kb", 10820, "ave_rss_kb", 2048, "failed_node", "",
		"mem_mb", 0,
		"job_id", 42, "step_id", 1, "name", "sleep", "state", "CANCELLED",
		"start_time", (int)(NOW - 60), "end_time", (int)(NOW - 30), "nodes", "n1",
		"num_nodes", 1, "num_tasks", 1, "num_cpus", 2, "cpus_per_task", 1,
		"tasks_per_node", "1", "distribution", "block", "exit_code", 9,
		"cpu_time_us", 2000, "max_rss_kb", 1564, "ave_rss_kb", 1564, "failed_node", "",
		"mem_mb", 100, "requid", 1001,
		"job_id", 42, "step_id", 2, "name", "late", "state", "CANCELLED",
		"start_time", (int)(NOW - 20), "end_time", (int)(NOW - 10), "nodes", "n2",
		"num_nodes", 1, "num_tasks", 1, "num_cpus", 2, "cpus_per_task", 1,
		"tasks_per_node", "1", "distribution", "cyclic", "exit_code", 15,
		"cpu_time_us", 0, "max_rss_kb", 0, "ave_rss_kb", 0, "failed_node", "",
		"mem_mb", 0);
	json_object_set_new(job, "steps", steps);
	struct row job_row = { job, false, NOW, "c1", NULL };
	struct row s0 = { job, false, NOW, "c1", json_array_get(steps, 0) };
	struct row s1 = { job, false, NOW, "c1", json_array_get(steps, 1) };
	const struct {
		const char *field, *job, *s0, *s1;   /* "": blank */
	} want[] = {
		{ "JobID", "42", "42.0", "42.1" }, { "JobIDRaw", "42", "42.0", "42.1" },
		{ "JobName", "run.sh", "hostname", "sleep" }, { "Partition", "debug", "", "" },
		{ "Account", "phys", "phys", "phys" }, { "AllocCPUS", "4", "4", "2" },
		{ "State", "FAILED", "FAILED", "CANCELLED by 1001" },
		{ "ExitCode", "2:0", "3:0", "0:9" },
		/* the highest exit of the steps (an exit code above a signal) */
		{ "DerivedExitCode", "3:0", "", "" },
		{ "Start", "2026-11-29T09:58:20", "2026-11-29T09:58:30", "2026-11-29T09:59:00" },
		{ "End", "2026-11-29T09:59:50", "2026-11-29T09:59:00", "2026-11-29T09:59:30" },
		{ "Elapsed", "00:01:30", "00:00:30", "00:00:30" },
		{ "NNodes", "2", "2", "1" }, { "NTasks", "", "4", "1" },
		{ "NodeList", "n[1-2]", "n[1-2]", "n1" },
		{ "TotalCPU", "00:03.903", "00:03.901", "00:00.002" },
		{ "CPUTime", "00:06:00", "00:02:00", "00:01:00" }, { "CPUTimeRAW", "360", "120", "60" },
		{ "MaxRSS", "", "10820K", "1564K" }, { "AveRSS", "", "2M", "1564K" },
		{ "Layout", "", "Block", "Cyclic" }, { "AllocTRES", NULL, "cpu=4,mem=0,node=2",
							  "cpu=2,mem=100M,node=1" },
		{ "User", "herdu1", "", "" }, { "Timelimit", "UNLIMITED", "", "" },
		{ "Cluster", "c1", "c1", "c1" },
	};
	char buf[256];

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < N(want); i++) {
		const char *v;
		if (want[i].job && strcmp(v = cell_of(want[i].field, &job_row, buf, sizeof(buf)),
					  want[i].job))
			fail_msg("%s (job): got '%s'", want[i].field, v);
		if (strcmp(v = cell_of(want[i].field, &s0, buf, sizeof(buf)), want[i].s0))
			fail_msg("%s (step 0): got '%s'", want[i].field, v);
		if (strcmp(v = cell_of(want[i].field, &s1, buf, sizeof(buf)), want[i].s1))
			fail_msg("%s (step 1): got '%s'", want[i].field, v);
	}
	/* A job cancelled while a step ran: the step shows CANCELLED with the
	 * signal, and does not count in DerivedExitCode (Slurm: 0:0). */
	json_object_set_new(job, "state", json_string("CANCELLED"));
	json_array_remove(steps, 0);
	json_array_remove(steps, 0);
	assert_string_equal(cell_of("DerivedExitCode", &job_row, buf, sizeof(buf)), "0:0");
	/* a step still running: no end, no usage yet, elapsed up to now */
	json_t *run = json_array_get(steps, 0);
	json_object_set_new(run, "state", json_string("RUNNING"));
	json_object_set_new(run, "end_time", json_integer(0));
	struct row s2 = { job, false, NOW, "c1", run };
	assert_string_equal(cell_of("End", &s2, buf, sizeof(buf)), "Unknown");
	assert_string_equal(cell_of("Elapsed", &s2, buf, sizeof(buf)), "00:00:20");
	assert_string_equal(cell_of("MaxRSS", &s2, buf, sizeof(buf)), "");
	assert_string_equal(cell_of("TotalCPU", &s2, buf, sizeof(buf)), "00:00:00");
	assert_string_equal(cell_of("State", &s2, buf, sizeof(buf)), "RUNNING");
	assert_string_equal(cell_of("ExitCode", &s2, buf, sizeof(buf)), "0:15");
	/* no steps: no TotalCPU to add up, DerivedExitCode 0:0 */
	json_object_set_new(job, "steps", json_array());
	assert_string_equal(cell_of("TotalCPU", &job_row, buf, sizeof(buf)), "");
	assert_string_equal(cell_of("DerivedExitCode", &job_row, buf, sizeof(buf)), "0:0");
	json_decref(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_durations_and_exit_codes),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_usage_formats),
		cmocka_unit_test(test_step_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
