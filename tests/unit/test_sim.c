/* `herd sim`'s pieces (src/herd/sim_*.c): the SWF reader (lines, headers,
 * plain and gzip files, errors), the replay rules, the figures, the CSV
 * and the SVG, and a small FCFS and EASY replay worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include "herd/sim.h"

struct line_case {
	const char *line;
	int want;                 /* 1 job, 0 not a job, -1 error */
	long id, submit, run, alloc, req, req_time, user;
	const char *err;          /* part of the error */
};

static const struct line_case lines[] = {
	{ "   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1\n",
	  1, 15, 599850, 3477, 4, 4, 53940, 12, NULL },
	{ "1 5094 -1 12072 16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1", 1, 1, 5094, 12072, 16, -1, -1, -1, NULL },
	{ "2 10 -1 7.5 2 1.25 -1 2 60 -1 1 3 1 -1 -1 -1 -1 -1\r\n", 1, 2, 10, 7, 2, 2, 60, 3, NULL },
	{ "; MaxProcs: 100\n", 0, .err = NULL },
	{ "\n", 0, .err = NULL },
	{ "   \t ", 0, .err = NULL },
	{ "1 2 3", -1, .err = "3 fields, SWF has 18" },
	{ "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", -1, .err = "more than 18 fields" },
	{ "1 2 x 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", -1, .err = "field 3 is not a number: 'x'" },
	{ "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 1e99", -1, .err = "field 18 is not a number" },
	{ "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 nan", -1, .err = "field 18 is not a number" },
};

static void parse_lines(void **state)
{
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const struct line_case *c = &lines[i];
		struct swf_job job;
		struct herd_error err = { "" };
		print_message("%s\n", c->line);
		int rc = swf_parse_line(c->line, &job, NULL, &err);
		assert_int_equal(rc, c->want);
		if (rc < 0)
			assert_non_null(strstr(err.text, c->err));
		if (rc != 1)
			continue;
		assert_int_equal(job.id, c->id);
		assert_int_equal(job.submit, c->submit);
		assert_int_equal(job.run, c->run);
		assert_int_equal(job.alloc_procs, c->alloc);
		assert_int_equal(job.req_procs, c->req);
		assert_int_equal(job.req_time, c->req_time);
		assert_int_equal(job.user, c->user);
	}
}

static void headers(void **state)
{
	struct swf_trace t = { 0 };
	struct swf_job job;
	assert_int_equal(swf_parse_line("; MaxProcs: 128", &job, &t, NULL), 0);
	assert_int_equal(swf_parse_line(";MaxNodes:   256  ", &job, &t, NULL), 0);
	assert_int_equal(swf_parse_line("; Note: MaxProcs are many", &job, &t, NULL), 0);
	assert_int_equal(swf_parse_line("; MaxProcs: -1", &job, &t, NULL), 0);
	assert_int_equal(t.max_procs, 128);
	assert_int_equal(t.max_nodes, 256);
}

static void rules(void **state)
{
	struct swf_job j = { .alloc_procs = 4, .req_procs = 8, .run = 100, .req_time = 60 };
	assert_int_equal(swf_job_size(&j), 4);
	assert_int_equal(swf_job_estimate(&j), 60);
	assert_int_equal(swf_job_runtime(&j), 60);   /* killed at its estimate */
	j.alloc_procs = -1;
	j.req_time = -1;
	assert_int_equal(swf_job_size(&j), 8);       /* field 8 */
	assert_int_equal(swf_job_estimate(&j), 100); /* the run time */
	assert_int_equal(swf_job_runtime(&j), 100);
	j.req_procs = -1;
	assert_int_equal(swf_job_size(&j), -1);
	j.req_time = 500;
	assert_int_equal(swf_job_runtime(&j), 100);
}

static const char trace_a[] =
	"; MaxProcs: 4\n"
	"1  0 -1 100  2 -1 -1  2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 10 -1  50  4 -1 -1  4  60 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 20 -1 500  1 -1 -1  1  70 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 30 -1  40 -1 -1 -1  1  -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"5 75 -1  30  1 -1 -1  1 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"6 80 -1  10  8 -1 -1  8  10 -1 1 1 1 -1 -1 -1 -1 -1\n";

static char *write_temp(const char *text, bool gz)
{
	char *path = strdup(gz ? "/tmp/test_sim_XXXXXX.swf.gz" : "/tmp/test_sim_XXXXXX.swf");
	int fd = mkstemps(path, gz ? 7 : 4);
	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		assert_int_equal(gzputs(g, text), (int)strlen(text));
		gzclose(g);
	} else {
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
	}
	return path;
}

static void load_files(void **state)
{
	for (int gz = 0; gz <= 1; gz++) {
		char *path = write_temp(trace_a, gz);
		struct swf_trace t;
		struct herd_error err = { "" };
		assert_int_equal(swf_load(path, 0, &t, &err), 0);
		assert_int_equal(t.njobs, 6);
		assert_int_equal(t.max_procs, 4);
		assert_int_equal(t.jobs[3].req_procs, 1);
		swf_trace_free(&t);
		assert_int_equal(swf_load(path, 2, &t, &err), 0);   /* --jobs 2 */
		assert_int_equal(t.njobs, 2);
		assert_int_equal(t.jobs[1].id, 2);
		swf_trace_free(&t);
		unlink(path);
		free(path);
	}
	struct swf_trace t;
	struct herd_error err = { "" };
	assert_int_equal(swf_load("/nonexistent/trace.swf", 0, &t, &err), -1);
	assert_non_null(strstr(err.text, "/nonexistent/trace.swf: No such file or directory"));
	char *path = write_temp("; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n1 2\n", false);
	assert_int_equal(swf_load(path, 0, &t, &err), -1);
	assert_non_null(strstr(err.text, ":3: 2 fields, SWF has 18"));
	assert_null(t.jobs);
	unlink(path);
	free(path);
}

static void metrics(void **state)
{
	/* Trace A under EASY (worked out in run_trace_a below). */
	const struct sim_outcome jobs[] = {
		{ 1, 0, 0, 100, 100, 100, 2, "", NULL, NULL, NULL, 0 },
		{ 2, 10, 100, 150, 50, 60, 4, "", NULL, NULL, NULL, 0 },
		{ 3, 20, 20, 90, 70, 70, 1, "", NULL, NULL, NULL, 0 },
		{ 4, 30, 30, 70, 40, 40, 1, "", NULL, NULL, NULL, 0 },
		{ 5, 75, 150, 180, 30, 100, 1, "", NULL, NULL, NULL, 0 },
	};
	struct sim_metrics m;
	sim_metrics_compute(jobs, 5, 4, &m);
	assert_int_equal(m.njobs, 5);
	assert_int_equal(m.makespan, 180);
	assert_int_equal(m.max_wait, 90);
	assert_true(m.mean_wait == 33.0);
	assert_true(m.utilization == 540.0 / 720.0);
	assert_true(m.mean_bsld > 1.86 - 1e-12 && m.mean_bsld < 1.86 + 1e-12);
	/* bounded slowdown: short jobs count as tau, never below 1 */
	const struct sim_outcome shorty = { 9, 0, 15, 20, 5, 5, 1, "", NULL, NULL, NULL, 0 };
	assert_true(sim_bsld(&shorty) == 2.0);   /* (15 + 5) / 10 */
	const struct sim_outcome zero = { 9, 0, 3, 3, 0, 0, 1, "", NULL, NULL, NULL, 0 };
	assert_true(sim_bsld(&zero) == 1.0);
	sim_metrics_compute(jobs, 0, 4, &m);
	assert_int_equal(m.njobs, 0);
	assert_true(m.utilization == 0);
}

static void replay(const char *text, enum sim_policy policy, int node_cpus, struct sim_result *res)
{
	char *path = write_temp(text, false);
	struct swf_trace t;
	struct herd_error err = { "" };
	assert_int_equal(swf_load(path, 0, &t, &err), 0);
	int per = node_cpus ? node_cpus : (int)t.max_procs;
	struct sim_machine m = { .nnodes = (int)(t.max_procs / per) };
	m.cpus = calloc(m.nnodes, sizeof(int));
	for (int i = 0; i < m.nnodes; i++)
		m.cpus[i] = per;
	struct sim_opts o = { .policy = policy, .machine = m };
	if (policy == SIM_EASY) {
		o.backfill = true;
		o.max_reservations = 1;
		o.window = 100000000;
		o.resolution = 1;
	}
	assert_int_equal(sim_run(&t, &o, res, &err), 0);
	free(m.cpus);
	swf_trace_free(&t);
	unlink(path);
	free(path);
}

/* Trace A on 4 processors.  FCFS: 1 starts at 0; 2 (4 procs) waits for 1's
 * end at 100 and everything waits behind it; at 150 3, 4, 5 start.  Job 6
 * (8 procs) is bigger than the machine; 4 has its size in field 8 and no
 * estimate; 3 is killed at its estimate (70 s). */
static void run_trace_a(void **state)
{
	static const long fcfs_start[] = { 0, 100, 150, 150, 150 };
	static const long fcfs_end[] = { 100, 150, 220, 190, 180 };
	for (int model = 0; model < 2; model++) {   /* one 4-CPU node, four 1-CPU nodes */
		struct sim_result res;
		replay(trace_a, SIM_FCFS, model ? 1 : 0, &res);
		assert_int_equal(res.njobs, 5);
		assert_int_equal(res.skipped_big, 1);
		assert_int_equal(res.skipped_bad, 0);
		assert_int_equal(res.procs, 4);
		for (int i = 0; i < 5; i++) {
			assert_int_equal(res.jobs[i].id, i + 1);
			assert_int_equal(res.jobs[i].start, fcfs_start[i]);
			assert_int_equal(res.jobs[i].end, fcfs_end[i]);
		}
		/* the last sample: nothing runs, nothing waits */
		assert_int_equal(res.samples[res.nsamples - 1].busy_cpus, 0);
		assert_int_equal(res.samples[res.nsamples - 1].queued, 0);

		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(sim_write_csv(f, &res), 0);
		fclose(f);
		assert_non_null(strstr(buf, "job_id,submit,start,end,wait,run_time,estimate,procs,"
					    "bounded_slowdown,jobid,jobname,user,nodelist,last_start\n"
					    "1,0,0,100,0,100,100,2,1.000000,,,,,\n"));
		assert_non_null(strstr(buf, "\n3,20,150,220,130,70,70,1,2.857143,,,,,\n"));
		free(buf);
		f = open_memstream(&buf, &len);
		assert_int_equal(sim_write_svg(f, &res, "a <trace> & more"), 0);
		fclose(f);
		assert_non_null(strstr(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
		assert_non_null(strstr(buf, "a &lt;trace&gt; &amp; more"));
		assert_non_null(strstr(buf, "<polyline"));
		assert_non_null(strstr(buf, "</svg>\n"));
		free(buf);
		sim_result_free(&res);
	}
}

/* Trace A under EASY: at 10, job 2 (4 procs) waits for 1's end at 100
 * (its shadow time), with no extra procs then; 3 (ends by 90) and 4 (by
 * 70) backfill on arrival; 5 at 75 would end at 175 > 100: it waits until
 * 2 is done (150). */
static void run_trace_a_easy(void **state)
{
	static const long start[] = { 0, 100, 20, 30, 150 };
	static const long end[] = { 100, 150, 90, 70, 180 };
	struct sim_result res;
	replay(trace_a, SIM_EASY, 0, &res);
	assert_int_equal(res.njobs, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(res.jobs[i].start, start[i]);
		assert_int_equal(res.jobs[i].end, end[i]);
	}
	struct sim_metrics m;
	sim_metrics_compute(res.jobs, res.njobs, res.procs, &m);
	assert_true(m.mean_wait == 33.0);
	assert_int_equal(m.makespan, 180);
	sim_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lines),
		cmocka_unit_test(headers),
		cmocka_unit_test(rules),
		cmocka_unit_test(load_files),
		cmocka_unit_test(metrics),
		cmocka_unit_test(run_trace_a),
		cmocka_unit_test(run_trace_a_easy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
