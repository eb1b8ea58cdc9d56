/* cmd/sacct and opt_time_parse: Slurm's time notations for -S/-E, sacct's
 * -o field list (Slurm 22.05's names, order, widths), how a cell is cut and
 * padded, what every field shows of a job, its batch step and its steps
 * (sizes with --units/--noconvert, TRES, usage, requeued runs), and the
 * --json objects.  The command sources are compiled in (they are not part
 * of libherd): sacct_fields.c, sacct_json.c, and sacct.c without its main. */
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
#include "cmd/sacct_fields.c"
#include "cmd/sacct_json.c"
#include "cmd/sacct_tres.c"
#define SACCT_NO_MAIN
#include "cmd/sacct.c"
#include "common/job_fields.h"

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
	assert_null(sacct_format_parse("restarts", &n));   /* not a field of 22.05 */
	/* %0 and %x: Slurm's atoi gives an empty column */
	c = sacct_format_parse("state%0,jobid%x,jobid%-0", &n);
	assert_non_null(c);
	assert_int_equal(n, 3);
	assert_int_equal(c[0].width, 0);
	assert_int_equal(c[1].width, 0);
	assert_false(c[2].right);
	free(c);
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

	sacct_cell(&line, &plain, &st, "CANCELLED by 1000", false);    /* cut, ends in '+' */
	sacct_cell(&line, &plain, &left, "RUNNING", false);
	sacct_cell(&line, &plain, &num, "123456", false);              /* numbers are never cut */
	sacct_cell(&line, &plain, &tm, "2026-11-29T10:00:00", false);   /* times are cut plainly */
	sacct_cell(&line, &plain, &st, NULL, true);                     /* no value: blank */
	assert_string_equal(line, "CANCELLED+ RUNNING    123456 2026-11-29            ");
	free(line);
	/* titles are cut plainly ("TimelimitR"); a 0-wide column is empty */
	struct column zero = { state_f, 0, true };
	line = xstrdup("");
	sacct_cell_cut(&line, &plain, &st, "TimelimitRaw", false, K_TIME);
	sacct_cell(&line, &plain, &zero, "RUNNING", true);
	assert_string_equal(line, "TimelimitR  ");
	free(line);
	line = xstrdup("");
	sacct_cell(&line, &p1, &st, "CANCELLED by 1000", false);
	sacct_cell(&line, &p1, &st, NULL, true);
	assert_string_equal(line, "CANCELLED by 1000||");
	free(line);
	line = xstrdup("");
	sacct_cell(&line, &p2, &st, "A", false);
	sacct_cell(&line, &p2, &st, "B", true);
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
	struct row job_row = { job, false, NOW, "c1", NULL, NULL };
	struct row step_row = { job, true, NOW, "c1", NULL, NULL };
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
		const char *v = sacct_value(c, &job_row, buf, sizeof(buf));
		if (want[i].job ? !v || strcmp(v, want[i].job) : v && *v)
			fail_msg("%s (job): got %s", want[i].field, v ? v : "NULL");
		v = sacct_value(c, &step_row, buf, sizeof(buf));
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
		const char *v = sacct_value(c, &job_row, buf, sizeof(buf));
		if (!v || strcmp(v, pending[i].job))
			fail_msg("%s (pending): got %s", pending[i].field, v ? v : "NULL");
		free(c);
	}
	assert_false(sacct_started(job));
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
		assert_string_equal(kb_text(rss[i].kb, &sacct_default_show, buf, sizeof(buf)), rss[i].want);
}

static const char *cell_of(const char *field, const struct row *r, char *buf, size_t len)
{
	size_t n;
	struct column *c = sacct_format_parse(field, &n);
	assert_non_null(c);
	const char *v = sacct_value(c, r, buf, len);
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
	struct row job_row = { job, false, NOW, "c1", NULL, NULL };
	struct row s0 = { job, false, NOW, "c1", json_array_get(steps, 0), NULL };
	struct row s1 = { job, false, NOW, "c1", json_array_get(steps, 1), NULL };
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
	struct row s2 = { job, false, NOW, "c1", run, NULL };
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

static const struct field *field_named(const char *name)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

/* The field list is Slurm 22.05's (sacct --helpformat on the anchor):
 * names, order and widths; -o all; what 22.05 has not is refused. */
static void test_field_list(void **state)
{
	size_t n;
	assert_int_equal(NFIELDS, 109);
	for (size_t i = 0; i < NFIELDS; i++)
		for (size_t k = i + 1; k < NFIELDS; k++)
			assert_true(strcasecmp(fields[i].name, fields[k].name) != 0);
	const struct {
		const char *name;
		int width;
	} widths[] = {
		{ "DBIndex", -10 }, { "JobID", -12 }, { "JobIDRaw", -12 }, { "Reserved", 10 },
		{ "ResvCPU", 10 }, { "ResvCPURAW", 10 }, { "ReservationId", 8 }, { "Reason", 22 },
		{ "TRESUsageInTot", 14 }, { "TRESUsageOutMaxNode", 19 }, { "SubmitLine", 20 },
		{ "ConsumedEnergyRaw", 17 }, { "AssocID", 7 }, { "QOSRAW", 6 }, { "Flags", 19 },
	};
	for (size_t i = 0; i < N(widths); i++) {
		const struct field *f = field_named(widths[i].name);
		if (!f || f->width != widths[i].width)
			fail_msg("%s: width %d", widths[i].name, f ? f->width : 0);
	}
	fprintf(stderr, "(six error lines expected)\n");
	const char *not_22_05[] = { "Restarts", "FailedNode", "Planned", "Licenses", "QOSREQ",
				    "StdOut" };
	for (size_t i = 0; i < N(not_22_05); i++)
		assert_null(sacct_format_parse(not_22_05[i], &n));
	/* "a", "al", "all": every field, in order, with its width */
	const char *all[] = { "all", "a", "ALL", "Al" };
	for (size_t i = 0; i < N(all); i++) {
		struct column *c = sacct_format_parse(all[i], &n);
		assert_non_null(c);
		assert_int_equal(n, NFIELDS);
		assert_ptr_equal(c[0].field, &fields[0]);
		assert_ptr_equal(c[NFIELDS - 1].field, &fields[NFIELDS - 1]);
		assert_int_equal(c[22].width, 10);   /* DBIndex, left */
		assert_false(c[22].right);
		free(c);
	}
	struct column *c = sacct_format_parse("jobid,all%5", &n);
	assert_int_equal(n, NFIELDS + 1);
	free(c);
	/* prefixes take the first field in Slurm's order */
	const struct {
		const char *given, *field;
	} prefix[] = {
		{ "res", "Reservation" }, { "reserved", "Reserved" }, { "resv", "ResvCPU" },
		{ "n", "NCPUS" }, { "r", "Reason" }, { "m", "MaxDiskRead" }, { "cpu", "CPUTime" },
		{ "tres", "TRESUsageInAve" }, { "tresusageinm", "TRESUsageInMax" },
		{ "s", "Start" }, { "u", "UID" }, { "c", "Cluster" }, { "qos", "QOS" },
		{ "constr", "Constraints" },
	};
	for (size_t i = 0; i < N(prefix); i++) {
		c = sacct_format_parse(prefix[i].given, &n);
		assert_non_null(c);
		if (strcmp(c[0].field->name, prefix[i].field))
			fail_msg("%s: got %s", prefix[i].given, c[0].field->name);
		free(c);
	}
}

/* Sizes as Slurm's convert_num_unit shows them in sacct: exact by
 * default, --units=X with two decimals, --noconvert as counted. */
static void test_size_text(void **state)
{
	const struct {
		uint64_t value;
		int from;
		char unit;
		bool noconvert;
		const char *want;
	} cases[] = {
		{ 13705216, 0, 0, false, "13384K" },   /* anchor: MaxRSS of a step */
		{ 1685846, 0, 0, false, "1685846" },   /* not a whole K: bytes, no suffix */
		{ 100, 2, 0, false, "100M" }, { 4000, 2, 0, false, "4000M" },
		{ 2048, 2, 0, false, "2G" }, { 3145728, 2, 0, false, "3T" },
		{ 0, 2, 0, false, "0" }, { 0, 0, 'M', false, "0" },
		{ 13705216, 0, 'M', false, "13.07M" }, { 3, 0, 'M', false, "0.00M" },
		{ 100, 2, 'K', false, "102400K" }, { 100, 2, 'G', false, "0.10G" },
		{ 2048, 2, 'G', false, "2G" }, { 1048576, 0, 'K', false, "1024K" },
		{ 13705216, 0, 0, true, "13705216" }, { 100, 2, 0, true, "100M" },
		{ 13705216, 0, 'K', true, "13384K" },   /* --units wins over --noconvert */
		{ 5, 0, 'P', false, "0.00P" },
	};
	char buf[64];
	for (size_t i = 0; i < N(cases); i++) {
		struct show sh = { cases[i].unit, cases[i].noconvert, false };
		const char *got = size_text(cases[i].value, cases[i].from, &sh, buf, sizeof(buf));
		if (strcmp(got, cases[i].want))
			fail_msg("%llu (from %d, unit %c, noconvert %d): got %s, want %s",
				 (unsigned long long)cases[i].value, cases[i].from,
				 cases[i].unit ? cases[i].unit : '-', cases[i].noconvert, got,
				 cases[i].want);
	}
	/* --units=X reads its first letter, either case */
	char u = 0;
	assert_int_equal(sacct_units_parse("m", &u), 0);
	assert_int_equal(u, 'M');
	assert_int_equal(sacct_units_parse("KM", &u), 0);
	assert_int_equal(u, 'K');
	fprintf(stderr, "(four error lines expected)\n");
	assert_int_equal(sacct_units_parse("X", &u), -1);
	assert_int_equal(sacct_units_parse("", &u), -1);
}

static json_t *usage_job(void)
{
	return json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:[[s,i]], s:i,"
			 " s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:i, s:s}",
			 "job_id", 7, "name", "tres", "state", "COMPLETED", "exit_code", 0,
			 "num_cpus", 4, "num_nodes", 2, "mem_per_node", 1000, "start_time",
			 (int)(NOW - 100), "end_time", (int)(NOW - 40), "nodes", "n[1-2]", "alloc",
			 "n1", 2, "submit_time", (int)(NOW - 130), "user", "herdu1", "account", "phys",
			 "partition", "debug", "eligible_time", (int)(NOW - 120), "uid", 1001,
			 "time_limit", 600, "qos", "normal", "features", "fast", "gid", 0,
			 "reason", "None");
}

static json_t *usage_step(int nodes, bool with_node_stats)
{
	json_t *s = json_pack("{s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:i, s:s, s:i, s:i,"
			      " s:i, s:i, s:i}",
			      "job_id", 7, "step_id", 0, "name", "work", "state", "COMPLETED",
			      "start_time", (int)(NOW - 90), "end_time", (int)(NOW - 50), "nodes",
			      nodes > 1 ? "n[1-2]" : "n1", "num_nodes", nodes, "num_tasks", 2,
			      "num_cpus", 4, "distribution", "block", "exit_code", 0,
			      "cpu_time_us", 4300000, "max_rss_kb", 13384, "ave_rss_kb", 6692,
			      "mem_mb", 500);
	if (with_node_stats) {
		json_object_set_new(s, "max_cpu_us", json_integer(2600000));
		json_object_set_new(s, "tot_rss_kb", json_integer(20000));
	}
	return s;
}

/* GPUs (doc/gres.md section 4): AllocTRES/ReqTRES from the record's
 * tres_alloc_gres/tres_req_gres and billing, in Slurm's order; the batch
 * step's and a step's from the devices on their nodes (only the names the
 * record kept); TRESUsageIn* gres/gpumem and gres/gpuutil from gpu_usage. */
static void test_gpu_tres(void **state)
{
	json_t *job = usage_job(), *steps = json_array();
	json_t *two = usage_step(2, true), *one = usage_step(1, true);
	json_object_set_new(one, "step_id", json_integer(1));
	json_object_set_new(one, "nodes", json_string("n2"));
	json_array_append(steps, two);
	json_array_append(steps, one);
	json_object_set_new(job, "steps", steps);
	json_object_set_new(job, "alloc", json_pack("[[s,i,s,[[s,s,i,i],[s,s,i,i],[s,s,i,i]]],"
						    "[s,i,s,[[s,s,i,i]]]]",
						    "n1", 2, "0-1", "gpu", "h100", 0, 1, "gpu", "h100", 1, 1,
						    "shard", "", 0, 4, "n2", 2, "0-1", "gpu", "h100", 3, 1));
	json_object_set_new(job, "tres_alloc_gres", json_string("gres/gpu=3,gres/gpu:h100=3"));
	json_object_set_new(job, "tres_req_gres", json_string("gres/gpu=4"));
	json_object_set_new(job, "billing", json_integer(10));
	json_object_set_new(job, "gpu_usage", json_pack(
		"{s:{s:[s,s], s:i, s:i, s:i, s:i, s:i, s:i}, s:{s:[s], s:i, s:i, s:i, s:i, s:i, s:i}}",
		"0", "nodes", "n1", "n2", "mem_max", 3072, "mem_tot", 4096, "mem_ave_sum", 3000,
		"util_max", 150, "util_tot", 200, "util_ave_sum", 101,
		"4294967291", "nodes", "n1", "mem_max", 1000, "mem_tot", 1000, "mem_ave_sum", 900,
		"util_max", 30, "util_tot", 30, "util_ave_sum", 20));
	struct row r = { job, false, NOW, "c1", NULL, NULL };
	char buf[512];
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)),
			    "billing=10,cpu=4,gres/gpu:h100=3,gres/gpu=3,mem=2000M,node=2");
	assert_string_equal(cell_of("ReqTRES", &r, buf, sizeof(buf)),
			    "billing=10,cpu=4,gres/gpu=4,mem=2000M,node=2");
	r.batch = true;   /* the first node's */
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)),
			    "cpu=2,gres/gpu:h100=2,gres/gpu=2,mem=1000M,node=1");
	assert_string_equal(cell_of("TRESUsageInMax", &r, buf, sizeof(buf)),
			    "gres/gpumem=1000M,gres/gpuutil=30");
	assert_string_equal(cell_of("TRESUsageInAve", &r, buf, sizeof(buf)),
			    "gres/gpumem=900M,gres/gpuutil=20");
	r.batch = false;
	r.step = two;
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)),
			    "cpu=4,gres/gpu:h100=3,gres/gpu=3,mem=1000M,node=2");
	assert_string_equal(cell_of("TRESUsageInMax", &r, buf, sizeof(buf)),
			    "cpu=00:00:02,gres/gpumem=3G,gres/gpuutil=150,mem=13384K");
	assert_string_equal(cell_of("TRESUsageInTot", &r, buf, sizeof(buf)),
			    "cpu=00:00:04,gres/gpumem=4G,gres/gpuutil=200,mem=20000K");
	assert_string_equal(cell_of("TRESUsageInAve", &r, buf, sizeof(buf)),
			    "cpu=00:00:02,gres/gpumem=1500M,gres/gpuutil=50,mem=6692K");
	r.step = one;   /* on n2 only; no samples */
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)),
			    "cpu=4,gres/gpu:h100=1,gres/gpu=1,mem=500M,node=1");
	assert_string_equal(cell_of("TRESUsageInMax", &r, buf, sizeof(buf)), "cpu=00:00:02,mem=13384K");
	/* a record without the keys (AccountingStorageTRES did not name
	 * gres/gpu): no GRES anywhere */
	json_object_del(job, "tres_alloc_gres");
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)), "cpu=4,mem=500M,node=1");
	r.step = NULL;
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)),
			    "billing=10,cpu=4,mem=2000M,node=2");
	/* --json: the GRES entries after billing, gpumem in bytes */
	json_object_set_new(job, "tres_alloc_gres", json_string("gres/gpu=3,gres/gpu:h100=3"));
	json_t *o = sacct_json_job(&r);
	json_t *alloc = json_object_get(json_object_get(o, "tres"), "allocated");
	assert_int_equal(json_array_size(alloc), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(alloc, 4), "name")), "gpu");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(alloc, 4), "id")), 1001);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(alloc, 5), "count")), 3);
	json_t *max = json_object_get(json_object_get(json_object_get(json_array_get(
		json_object_get(o, "steps"), 1), "tres"), "requested"), "max");
	json_t *gm = json_array_get(max, 2);
	assert_string_equal(json_string_value(json_object_get(gm, "name")), "gpumem");
	assert_int_equal(json_integer_value(json_object_get(gm, "count")), 3072LL * 1048576);
	json_decref(o);
	json_decref(two);
	json_decref(one);
	json_decref(job);
}

/* TRESUsageInTot/Max/Ave of a step from what its record carries. */
static void test_tres_usage(void **state)
{
	json_t *job = usage_job(), *steps = json_array();
	json_t *two = usage_step(2, true), *old = usage_step(2, false), *one = usage_step(1, false);
	json_array_append(steps, two);
	json_object_set_new(job, "steps", steps);
	struct show units_m = { 'M', false, false }, raw = { 0, true, false };
	struct row r = { job, false, NOW, "c1", two, NULL };
	char buf[256];
	const struct {
		json_t *step;
		const struct show *show;
		const char *field, *want;
	} cases[] = {
		{ two, NULL, "TRESUsageInTot", "cpu=00:00:04,mem=20000K" },
		{ two, NULL, "TRESUsageInMax", "cpu=00:00:02,mem=13384K" },
		{ two, NULL, "TRESUsageInAve", "cpu=00:00:02,mem=6692K" },   /* 4.3 s over 2 tasks */
		{ two, &units_m, "TRESUsageInTot", "cpu=00:00:04,mem=19.53M" },
		{ two, &raw, "TRESUsageInMax", "cpu=00:00:02,mem=13705216" },
		{ two, &units_m, "MaxRSS", "13.07M" }, { two, &raw, "AveRSS", "6852608" },
		/* a record from before the per-node sums: the total is the
		 * largest node's RSS; on several nodes no CPU maximum */
		{ old, NULL, "TRESUsageInTot", "cpu=00:00:04,mem=13384K" },
		{ old, NULL, "TRESUsageInMax", "mem=13384K" },
		{ one, NULL, "TRESUsageInMax", "cpu=00:00:04,mem=13384K" },
		{ two, NULL, "AllocTRES", "cpu=4,mem=1000M,node=2" },
		{ two, NULL, "TotalCPU", "00:04.300" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		r.step = cases[i].step;
		r.show = cases[i].show;
		const char *v = cell_of(cases[i].field, &r, buf, sizeof(buf));
		if (strcmp(v, cases[i].want))
			fail_msg("%s (case %zu): got '%s', want '%s'", cases[i].field, i, v, cases[i].want);
	}
	/* the job and its batch step carry no usage; a running step none yet */
	r.step = NULL;
	r.show = NULL;
	assert_string_equal(cell_of("TRESUsageInTot", &r, buf, sizeof(buf)), "");
	r.batch = true;
	assert_string_equal(cell_of("TRESUsageInMax", &r, buf, sizeof(buf)), "");
	r.batch = false;
	json_object_set_new(two, "state", json_string("RUNNING"));
	r.step = two;
	assert_string_equal(cell_of("TRESUsageInAve", &r, buf, sizeof(buf)), "");
	json_decref(two);
	json_decref(old);
	json_decref(one);
	json_decref(job);
}

/* Reserved, ResvCPU, ResvCPURAW, Eligible; QOS, Constraints, Cluster;
 * TotalCPU with -X. */
static void test_job_fields(void **state)
{
	json_t *job = usage_job();
	json_object_set_new(job, "steps", json_pack("[o]", usage_step(2, true)));
	struct show alloc = { 0, false, true };
	struct row r = { job, false, NOW, "c1", NULL, NULL };
	struct row b = { job, true, NOW, "c1", NULL, NULL };
	struct row s = { job, false, NOW, "c1", json_array_get(json_object_get(job, "steps"), 0), NULL };
	char buf[256];

	setenv("TZ", "UTC", 1);
	tzset();
	const struct {
		const char *field, *job, *batch, *step;
	} want[] = {
		{ "Reserved", "00:00:20", "", "" },   /* start - eligible */
		{ "ResvCPU", "00:01:20", "", "" }, { "ResvCPURAW", "80", "", "" },
		{ "QOS", "normal", "", "" }, { "Constraints", "fast", "", "" },
		{ "Cluster", "c1", "c1", "c1" }, { "TotalCPU", "00:04.300", "", "00:04.300" },
		{ "Timelimit", "00:10:00", "", "" }, { "TimelimitRaw", "10", "", "" },
		{ "ReqMem", "2000M", "", "" }, { "NCPUS", "4", "2", "4" },
		{ "ReqTRES", "billing=4,cpu=4,mem=2000M,node=2", "", "" },
		{ "AllocTRES", "billing=4,cpu=4,mem=2000M,node=2", "cpu=2,mem=1000M,node=1",
		  "cpu=4,mem=1000M,node=2" },
		{ "Reason", "None", "", "" }, { "AllocNodes", "2", "1", "2" },
	};
	for (size_t i = 0; i < N(want); i++) {
		const char *v;
		if (strcmp(v = cell_of(want[i].field, &r, buf, sizeof(buf)), want[i].job))
			fail_msg("%s (job): got '%s'", want[i].field, v);
		if (strcmp(v = cell_of(want[i].field, &b, buf, sizeof(buf)), want[i].batch))
			fail_msg("%s (batch): got '%s'", want[i].field, v);
		if (strcmp(v = cell_of(want[i].field, &s, buf, sizeof(buf)), want[i].step))
			fail_msg("%s (step): got '%s'", want[i].field, v);
	}
	/* -X: Slurm adds up the steps it read, none */
	r.show = &alloc;
	assert_string_equal(cell_of("TotalCPU", &r, buf, sizeof(buf)), "00:00:00");
	r.show = NULL;
	/* a record of another cluster (-M) names it */
	json_object_set_new(job, "cluster", json_string("other"));
	assert_string_equal(cell_of("Cluster", &r, buf, sizeof(buf)), "other");
	assert_string_equal(cell_of("Cluster", &s, buf, sizeof(buf)), "other");
	/* pending: reserved until now; held: not eligible at all */
	json_object_set_new(job, "state", json_string("PENDING"));
	json_object_set_new(job, "start_time", json_integer(0));
	json_object_set_new(job, "alloc", json_array());
	assert_string_equal(cell_of("Reserved", &r, buf, sizeof(buf)), "00:02:00");
	assert_string_equal(cell_of("ResvCPURAW", &r, buf, sizeof(buf)), "480");
	assert_string_equal(cell_of("Eligible", &r, buf, sizeof(buf)), "2026-11-29T09:58:00");
	json_object_set_new(job, "hold_user", json_true());
	assert_string_equal(cell_of("Reserved", &r, buf, sizeof(buf)), "00:00:00");
	assert_string_equal(cell_of("Eligible", &r, buf, sizeof(buf)), "Unknown");
	/* eligible later (a requeued job's delay): nothing reserved yet */
	json_object_set_new(job, "hold_user", json_false());
	json_object_set_new(job, "eligible_time", json_integer(NOW + 60));
	assert_string_equal(cell_of("Reserved", &r, buf, sizeof(buf)), "00:00:00");
	assert_string_equal(cell_of("AllocTRES", &r, buf, sizeof(buf)), "");
	json_decref(job);
}

/* An earlier run of a requeued job (-D): REQUEUED, its batch step
 * CANCELLED with the signal, its own times. */
static void test_requeued_run(void **state)
{
	json_t *job = usage_job();
	json_object_set_new(job, "state", json_string("REQUEUED"));
	json_object_set_new(job, "exit_code", json_integer(15));
	json_object_set_new(job, "steps", json_array());
	struct row r = { job, false, NOW, "c1", NULL, NULL }, b = { job, true, NOW, "c1", NULL, NULL };
	char buf[256];

	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(cell_of("State", &r, buf, sizeof(buf)), "REQUEUED");
	assert_string_equal(cell_of("State", &b, buf, sizeof(buf)), "CANCELLED");
	assert_string_equal(cell_of("ExitCode", &r, buf, sizeof(buf)), "0:0");
	assert_string_equal(cell_of("ExitCode", &b, buf, sizeof(buf)), "0:15");
	assert_string_equal(cell_of("End", &r, buf, sizeof(buf)), "2026-11-29T09:59:20");
	assert_string_equal(cell_of("Elapsed", &r, buf, sizeof(buf)), "00:01:00");
	assert_string_equal(cell_of("Elapsed", &b, buf, sizeof(buf)), "00:01:00");
	assert_true(sacct_ended(job));
	json_decref(job);
}

/* Records sort by job (an array's tasks by task ID); a job's runs keep
 * the order the controller sent them in. */
static void test_record_order(void **state)
{
	json_t *a = json_pack("{s:i, s:s}", "job_id", 9, "state", "REQUEUED");
	json_t *b = json_pack("{s:i, s:s}", "job_id", 9, "state", "COMPLETED");
	json_t *c = json_pack("{s:i, s:s}", "job_id", 3, "state", "COMPLETED");
	json_t *t2 = json_pack("{s:i, s:i, s:i}", "job_id", 12, "array_job_id", 10, "array_task_id", 2);
	json_t *t1 = json_pack("{s:i, s:i, s:i}", "job_id", 13, "array_job_id", 10, "array_task_id", 1);
	struct sacct_ranked v[] = { { a, 0 }, { b, 1 }, { c, 2 }, { t2, 3 }, { t1, 4 } };
	qsort(v, N(v), sizeof(v[0]), sacct_by_record);
	assert_ptr_equal(v[0].rec, c);
	assert_ptr_equal(v[1].rec, a);
	assert_ptr_equal(v[2].rec, b);
	assert_ptr_equal(v[3].rec, t1);
	assert_ptr_equal(v[4].rec, t2);
	struct sacct_ranked w[] = { { b, 1 }, { a, 0 } };
	qsort(w, N(w), sizeof(w[0]), sacct_by_record);
	assert_ptr_equal(w[0].rec, a);
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(t1);
	json_decref(t2);
}

/* -M: which records' clusters are shown. */
static void test_clusters_wanted(void **state)
{
	assert_true(sacct_cluster_wanted(NULL, "c1", "c1"));
	assert_false(sacct_cluster_wanted(NULL, "c2", "c1"));
	assert_true(sacct_cluster_wanted("all", "c2", "c1"));
	assert_true(sacct_cluster_wanted("ALL", "c2", "c1"));
	assert_true(sacct_cluster_wanted("c3,c2", "c2", "c1"));
	assert_false(sacct_cluster_wanted("c3,c2", "c1", "c1"));
	assert_false(sacct_cluster_wanted("nosuch", "c1", "c1"));
}

static const char *const job_keys[] = {
	"account", "comment", "allocation_nodes", "array", "association", "cluster", "constraints",
	"container", "derived_exit_code", "time", "exit_code", "flags", "group", "het", "job_id",
	"name", "mcs", "nodes", "partition", "priority", "qos", "required", "kill_request_user",
	"reservation", "state", "steps", "tres", "user", "wckey", "working_directory",
};

static const char *const step_keys[] = {
	"nodes", "tres", "time", "exit_code", "tasks", "pid", "CPU", "kill_request_user", "state",
	"statistics", "step", "task",
};

static void assert_keys(const json_t *o, const char *const *keys, size_t n)
{
	assert_int_equal(json_object_size(o), n);
	size_t i = 0;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)o, key, v) {   /* in dbv0.0.38's order */
		if (strcmp(key, keys[i]))
			fail_msg("key %zu: %s, want %s", i, key, keys[i]);
		i++;
	}
}

static long long jpath_int(const json_t *o, const char *path)
{
	json_t *v = json_object_get(o, path);
	return json_integer_value(v);
}

/* --json: the job objects as Slurm 22.05's sacct writes them. */
static void test_json(void **state)
{
	json_t *job = usage_job();
	json_t *step = usage_step(2, true);
	json_object_set_new(step, "exit_code", json_integer(3 << 8));
	json_object_set_new(job, "steps", json_pack("[o]", step));
	json_object_set_new(job, "cluster", json_string("c1"));
	json_object_set_new(job, "state", json_string("FAILED"));
	json_object_set_new(job, "exit_code", json_integer(3 << 8));
	struct row r = { job, false, NOW, "local", NULL, NULL };

	json_t *o = sacct_json_job(&r);
	assert_keys(o, job_keys, N(job_keys));
	assert_int_equal(jpath_int(o, "job_id"), 7);
	assert_string_equal(cmd_jstr(o, "name"), "tres");
	assert_string_equal(cmd_jstr(o, "cluster"), "c1");
	assert_string_equal(cmd_jstr(o, "user"), "herdu1");
	assert_string_equal(cmd_jstr(o, "nodes"), "n[1-2]");
	assert_string_equal(cmd_jstr(o, "partition"), "debug");
	json_t *assoc = json_object_get(o, "association");
	assert_string_equal(cmd_jstr(assoc, "account"), "phys");
	assert_string_equal(cmd_jstr(assoc, "cluster"), "c1");
	assert_true(json_is_null(json_object_get(assoc, "partition")));
	json_t *st = json_object_get(o, "state");
	assert_string_equal(cmd_jstr(st, "current"), "FAILED");
	assert_string_equal(cmd_jstr(st, "reason"), "None");
	json_t *t = json_object_get(o, "time");
	assert_int_equal(jpath_int(t, "elapsed"), 60);
	assert_int_equal(jpath_int(t, "eligible"), NOW - 120);
	assert_int_equal(jpath_int(t, "start"), NOW - 100);
	assert_int_equal(jpath_int(t, "end"), NOW - 40);
	assert_int_equal(jpath_int(t, "submission"), NOW - 130);
	assert_int_equal(jpath_int(t, "limit"), 10);   /* minutes */
	assert_int_equal(jpath_int(json_object_get(t, "total"), "seconds"), 4);
	assert_int_equal(jpath_int(json_object_get(t, "total"), "microseconds"), 300000);
	json_t *ec = json_object_get(o, "exit_code");
	assert_string_equal(cmd_jstr(ec, "status"), "FAILED");
	assert_int_equal(jpath_int(ec, "return_code"), 3);
	assert_string_equal(cmd_jstr(json_object_get(o, "derived_exit_code"), "status"), "FAILED");
	json_t *alloc = json_object_get(json_object_get(o, "tres"), "allocated");
	assert_int_equal(json_array_size(alloc), 4);
	const char *types[] = { "cpu", "mem", "node", "billing" };
	long long counts[] = { 4, 2000, 2, 4 }, ids[] = { 1, 2, 4, 5 };
	for (size_t i = 0; i < 4; i++) {
		json_t *e = json_array_get(alloc, i);
		assert_string_equal(cmd_jstr(e, "type"), types[i]);
		assert_int_equal(jpath_int(e, "count"), counts[i]);
		assert_int_equal(jpath_int(e, "id"), ids[i]);
		assert_true(json_is_null(json_object_get(e, "name")));
	}
	/* its steps: the batch step, then 0 */
	json_t *steps = json_object_get(o, "steps");
	assert_int_equal(json_array_size(steps), 2);
	json_t *batch = json_array_get(steps, 0), *s0 = json_array_get(steps, 1);
	assert_keys(batch, step_keys, N(step_keys));
	assert_keys(s0, step_keys, N(step_keys));
	assert_string_equal(cmd_jstr(json_object_get(batch, "step"), "id"), "batch");
	assert_string_equal(cmd_jstr(json_object_get(batch, "step"), "name"), "batch");
	assert_int_equal(jpath_int(json_object_get(s0, "step"), "id"), 0);
	assert_string_equal(cmd_jstr(json_object_get(s0, "step"), "name"), "work");
	assert_string_equal(cmd_jstr(s0, "state"), "COMPLETED");
	/* one task per node reads as Cyclic, as in the table (cmd_step_dist) */
	assert_string_equal(cmd_jstr(json_object_get(s0, "task"), "distribution"), "Cyclic");
	assert_int_equal(jpath_int(json_object_get(s0, "tasks"), "count"), 2);
	json_t *nodes = json_object_get(s0, "nodes");
	assert_int_equal(jpath_int(nodes, "count"), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(nodes, "list"), 1)), "n2");
	assert_string_equal(cmd_jstr(nodes, "range"), "n[1-2]");
	json_t *sec = json_object_get(s0, "exit_code");
	assert_string_equal(cmd_jstr(sec, "status"), "FAILED");
	assert_int_equal(jpath_int(sec, "return_code"), 3);
	/* usage: CPU in ms, memory in bytes */
	json_t *used = json_object_get(json_object_get(s0, "tres"), "requested");
	json_t *tot = json_object_get(used, "total");
	assert_string_equal(cmd_jstr(json_array_get(tot, 0), "type"), "cpu");
	assert_int_equal(jpath_int(json_array_get(tot, 0), "count"), 4300);
	assert_string_equal(cmd_jstr(json_array_get(tot, 1), "type"), "mem");
	assert_int_equal(jpath_int(json_array_get(tot, 1), "count"), 20000LL * 1024);
	assert_int_equal(jpath_int(json_array_get(json_object_get(used, "max"), 0), "count"), 2600);
	assert_int_equal(jpath_int(json_array_get(json_object_get(used, "average"), 1), "count"),
			 6692LL * 1024);
	json_decref(o);

	/* -X: no steps; a signal; no limit */
	struct show alloc_only = { 0, false, true };
	r.show = &alloc_only;
	json_object_set_new(job, "state", json_string("CANCELLED"));
	json_object_set_new(job, "exit_code", json_integer(9));
	json_object_set_new(job, "time_limit", json_integer(TIME_INFINITE));
	o = sacct_json_job(&r);
	assert_int_equal(json_array_size(json_object_get(o, "steps")), 0);
	assert_true(json_is_null(json_object_get(json_object_get(o, "time"), "limit")));
	assert_string_equal(cmd_jstr(json_object_get(o, "exit_code"), "status"), "SUCCESS");
	json_decref(o);
	r.show = NULL;
	json_object_set_new(job, "state", json_string("FAILED"));
	o = sacct_json_job(&r);
	ec = json_object_get(o, "exit_code");
	assert_string_equal(cmd_jstr(ec, "status"), "SIGNALED");
	assert_true(json_is_null(json_object_get(ec, "return_code")));
	assert_int_equal(jpath_int(json_object_get(ec, "signal"), "signal_id"), 9);
	json_decref(o);
	/* pending: nothing allocated yet */
	json_object_set_new(job, "state", json_string("PENDING"));
	json_object_set_new(job, "alloc", json_array());
	json_object_set_new(job, "steps", json_array());
	o = sacct_json_job(&r);
	assert_string_equal(cmd_jstr(o, "nodes"), "None assigned");
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "tres"), "allocated")), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "tres"), "requested")), 4);
	assert_int_equal(jpath_int(o, "allocation_nodes"), 0);
	assert_int_equal(json_array_size(json_object_get(o, "steps")), 0);
	/* the document around the jobs */
	json_t *doc = sacct_json_document(json_pack("[o]", o));
	assert_string_equal(cmd_jstr(json_object_get(json_object_get(doc, "meta"), "plugin"), "type"),
			    "openapi/dbv0.0.38");
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "jobs")), 1);
	json_decref(doc);
	doc = sacct_json_document(json_array());
	assert_int_equal(jpath_int(json_array_get(json_object_get(doc, "errors"), 0), "error_number"),
			 9003);
	json_decref(doc);
	json_decref(job);
}

/* The job field table's sacct names are sacct's own fields. */
static void test_job_field_names(void **state)
{
	for (size_t i = 0; i < JOB_F_COUNT; i++) {
		const char *name = job_fields[i].sacct;
		size_t n = 0;
		if (!name)
			continue;
		struct column *c = sacct_format_parse(name, &n);
		if (!c || n != 1 || strcmp(c->field->name, name))
			fail_msg("%s is no sacct field", name);
		free(c);
	}
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
		cmocka_unit_test(test_field_list),
		cmocka_unit_test(test_size_text),
		cmocka_unit_test(test_tres_usage),
		cmocka_unit_test(test_gpu_tres),
		cmocka_unit_test(test_job_fields),
		cmocka_unit_test(test_requeued_run),
		cmocka_unit_test(test_record_order),
		cmocka_unit_test(test_clusters_wanted),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_job_field_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
