/* cmd/step and record_step: step IDs as the commands take them (N.S,
 * N.batch, A_T.S), squeue -s's cells and order, and scontrol show step's
 * record, from STEP objects as STEP_INFO sends them.  The command sources
 * are compiled in (they are not part of libherd). */
#define _GNU_SOURCE   /* record.c's vasprintf */
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
#include "cmd/record.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Sunday 2026-11-29 10:00:00 UTC */
#define NOW ((time_t)1795946400)

static void test_parse(void **state)
{
	const struct {
		const char *text;
		bool bare;
		int rc;
		long id;
		long long task, step;
	} cases[] = {
		{ "5.0", false, 0, 5, -1, 0 },
		{ "5.12", false, 0, 5, -1, 12 },
		{ "5.batch", false, 0, 5, -1, CMD_STEP_BATCH },
		{ "5.extern", false, 0, 5, -1, CMD_STEP_EXTERN },
		{ "7_3.1", false, 0, 7, 3, 1 },
		{ "7_[3].1", false, 0, 7, 3, 1 },
		{ "7_3.batch", false, 0, 7, 3, CMD_STEP_BATCH },
		{ "5", true, 0, 5, -1, CMD_STEP_NONE },
		{ "7_3", true, 0, 7, 3, CMD_STEP_NONE },
		{ "5", false, -1, 0, 0, 0 },          /* a step list wants a step */
		{ "5.", false, -1, 0, 0, 0 },
		{ "5.x", false, -1, 0, 0, 0 },
		{ "5.-1", false, -1, 0, 0, 0 },
		{ "5.1x", false, -1, 0, 0, 0 },
		{ "5.4294967291", false, -1, 0, 0, 0 },   /* the batch step goes by its name */
		{ ".0", false, -1, 0, 0, 0 },
		{ "0.0", false, -1, 0, 0, 0 },
		{ "x.0", false, -1, 0, 0, 0 },
		{ "7_[1-3].0", false, -1, 0, 0, 0 },     /* a step is one job's */
		{ "", true, -1, 0, 0, 0 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct cmd_step_ref ref = { 0, 0, 0 };
		int rc = cmd_step_ref_parse(cases[i].text, cases[i].bare, &ref);
		if (rc != cases[i].rc)
			fail_msg("%s: rc %d", cases[i].text, rc);
		if (rc == 0 && (ref.id != cases[i].id || ref.task != cases[i].task ||
				ref.step != cases[i].step))
			fail_msg("%s: %ld %lld %lld", cases[i].text, ref.id, ref.task, ref.step);
	}
}

static json_t *step_obj(long long job, long long step, const char *name)
{
	return json_pack("{s:I, s:I, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:i,"
			 " s:i, s:i, s:s, s:s, s:i, s:i, s:i}",
			 "job_id", (json_int_t)job, "step_id", (json_int_t)step, "name", name,
			 "state", "RUNNING", "start_time", (int)(NOW - 75), "end_time", 0,
			 "nodes", "n[1-2]", "num_nodes", 2, "num_tasks", 4, "num_cpus", 4,
			 "cpus_per_task", 1, "tasks_per_node", "2(x2)", "distribution", "block",
			 "exit_code", 0, "time_limit", -1, "uid", 1001, "user", "herdu1",
			 "partition", "debug", "array_job_id", 0, "array_task_id", 0, "mem_mb", 0);
}

static void test_ids(void **state)
{
	char buf[64];
	json_t *s = step_obj(5, 0, "hostname");
	assert_string_equal(cmd_step_id(s, buf, sizeof(buf)), "5.0");
	json_object_set_new(s, "step_id", json_integer(CMD_STEP_BATCH));
	assert_string_equal(cmd_step_id(s, buf, sizeof(buf)), "5.batch");
	json_object_set_new(s, "step_id", json_integer(CMD_STEP_EXTERN));
	assert_string_equal(cmd_step_id(s, buf, sizeof(buf)), "5.extern");
	/* an array task: A_T.S, whatever its own job ID */
	json_object_set_new(s, "job_id", json_integer(9));
	json_object_set_new(s, "array_job_id", json_integer(7));
	json_object_set_new(s, "array_task_id", json_integer(3));
	json_object_set_new(s, "step_id", json_integer(2));
	assert_string_equal(cmd_step_id(s, buf, sizeof(buf)), "7_3.2");

	struct cmd_step_ref ref;
	const struct {
		const char *text;
		bool match;
	} refs[] = {
		{ "9.2", true }, { "7_3.2", true }, { "7.2", true }, { "7_4.2", false },
		{ "9.1", false }, { "9", true }, { "7", true }, { "7_3", true }, { "8", false },
	};
	for (size_t i = 0; i < N(refs); i++) {
		assert_int_equal(cmd_step_ref_parse(refs[i].text, true, &ref), 0);
		if (cmd_step_ref_matches(&ref, s) != refs[i].match)
			fail_msg("%s: matched %d", refs[i].text, !refs[i].match);
	}
	json_decref(s);

	/* scontrol/sacct order: batch, extern, then the numbered steps */
	assert_true(cmd_step_rank(CMD_STEP_BATCH) < cmd_step_rank(CMD_STEP_EXTERN));
	assert_true(cmd_step_rank(CMD_STEP_EXTERN) < cmd_step_rank(0));
	assert_true(cmd_step_rank(0) < cmd_step_rank(1));
}

static char *render(const char *spec, const json_t *step, bool header)
{
	struct fmt *f = fmt_parse(spec, cmd_step_letters);
	struct cmd_step_row row = { step, NOW, "c1" };
	char *line = fmt_line(f, header ? NULL : cmd_step_value, &row, cmd_step_titles);
	assert_int_equal(f->bad, 0);
	fmt_destroy(f);
	return line;
}

/* squeue -s: the default format of Slurm 22.05 and every step letter. */
static void test_squeue_cells(void **state)
{
	json_t *s = step_obj(5, 1, "hostname");
	char *line;

	setenv("TZ", "UTC", 1);
	tzset();
	line = render(CMD_STEP_FORMAT, s, true);
	assert_string_equal(line, "         STEPID     NAME PARTITION     USER      TIME NODELIST");
	free(line);
	line = render(CMD_STEP_FORMAT, s, false);
	assert_string_equal(line, "            5.1 hostname     debug   herdu1      1:15 n[1-2]");
	free(line);
	line = render("%A|%b|%i|%j|%l|%M|%N|%P|%S|%u|%U", s, true);
	assert_string_equal(line, "TASKS|TRES_PER_JOB|STEPID|NAME|TIME_LIMIT|TIME|NODELIST|PARTITION|"
			    "START_TIME|USER|UID");
	free(line);
	line = render("%A|%b|%i|%j|%l|%M|%N|%P|%S|%u|%U", s, false);
	assert_string_equal(line, "4|(null)|5.1|hostname|UNLIMITED|1:15|n[1-2]|debug|"
			    "2026-11-29T09:58:45|herdu1|1001");
	free(line);
	json_object_set_new(s, "time_limit", json_integer(300));
	line = render("%l", s, false);
	assert_string_equal(line, "5:00");
	free(line);
	json_object_set_new(s, "time_limit", json_integer(93600));
	line = render("%l", s, false);
	assert_string_equal(line, "1-02:00:00");
	free(line);

	/* -O: the step fields, some standing for letters of their own */
	char *bad = NULL;
	char *spec = fmt_from_names("StepID,NumCPUs,ArrayJobID:5,ArrayTaskID:5,JobID:4,StepState,"
				    "Cluster:3,CPUFreq:.24", cmd_step_fields, &bad);
	assert_non_null(spec);
	line = render(spec, s, false);
	assert_string_equal(line, "5.1                 4                   0    N/A  5   RUNNING"
			    "             c1  Unknown-Unknown:Unknown");
	free(line);
	free(spec);
	/* Slurm refuses the job fields that steps do not have */
	assert_null(fmt_from_names("Name", cmd_step_fields, &bad));
	assert_string_equal(bad, "Name");
	free(bad);
	assert_null(fmt_from_names("NodeList", cmd_step_fields, &bad));
	free(bad);
	/* %C is no step letter: kept as written, reported */
	struct fmt *f = fmt_parse("%C %i", cmd_step_letters);
	assert_int_equal(f->bad, 'C');
	fmt_destroy(f);

	/* the batch step holds no CPUs of its own */
	json_object_set_new(s, "step_id", json_integer(CMD_STEP_BATCH));
	line = render("%i %<", s, false);
	assert_string_equal(line, "5.batch 0");
	free(line);
	json_decref(s);
}

/* Slurm's step order: by job ID, then step ID (the batch step after 0, 1). */
static void test_squeue_order(void **state)
{
	json_t *a = step_obj(4, CMD_STEP_BATCH, "batch"), *b = step_obj(4, 1, "x"),
	       *c = step_obj(5, 0, "y");
	assert_true(cmd_step_compare('i', b, a, NOW) < 0);
	assert_true(cmd_step_compare('i', a, c, NOW) < 0);
	assert_int_equal(cmd_step_compare('P', a, c, NOW), 0);
	assert_true(cmd_step_compare('j', b, c, NOW) < 0);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static char *joined(struct record *r)
{
	size_t len = 1;
	for (size_t i = 0; i < r->count; i++)
		len += strlen(r->lines[i]) + 1;
	char *out = calloc(1, len);
	for (size_t i = 0; i < r->count; i++) {
		strcat(out, r->lines[i]);
		strcat(out, "\n");
	}
	opt_strv_free(r->lines);
	r->lines = NULL;
	r->count = 0;
	return out;
}

/* scontrol show step: Slurm 22.05's lines. */
static void test_record(void **state)
{
	json_t *s = step_obj(5, 1, "sleep");
	struct record r = { 0 };
	char *text;

	setenv("TZ", "UTC", 1);
	tzset();
	json_object_set_new(s, "srun_host", json_string("login1"));
	json_object_set_new(s, "srun_pid", json_integer(32707));
	record_step(s, &r);
	text = joined(&r);
	assert_string_equal(text,
		"StepId=5.1 UserId=1001 StartTime=2026-11-29T09:58:45 TimeLimit=UNLIMITED\n"
		"State=RUNNING Partition=debug NodeList=n[1-2]\n"
		"Nodes=2 CPUs=4 Tasks=4 Name=sleep Network=(null)\n"
		"TRES=cpu=4,mem=0,node=2\n"
		"ResvPorts=(null)\n"
		"CPUFreqReq=Default Dist=Block\n"
		"SrunHost:Pid=login1:32707\n");
	free(text);

	/* one task on one node: Slurm shows srun's default, Cyclic; a limit
	 * and memory asked for */
	json_object_set_new(s, "num_tasks", json_integer(1));
	json_object_set_new(s, "num_nodes", json_integer(1));
	json_object_set_new(s, "num_cpus", json_integer(2));
	json_object_set_new(s, "nodes", json_string("n1"));
	json_object_set_new(s, "time_limit", json_integer(300));
	json_object_set_new(s, "mem_mb", json_integer(1024));
	json_object_set_new(s, "array_job_id", json_integer(4));
	json_object_set_new(s, "array_task_id", json_integer(2));
	record_step(s, &r);
	text = joined(&r);
	assert_string_equal(text,
		"StepId=4_2.1 UserId=1001 StartTime=2026-11-29T09:58:45 TimeLimit=00:05:00\n"
		"State=RUNNING Partition=debug NodeList=n1\n"
		"Nodes=1 CPUs=2 Tasks=1 Name=sleep Network=(null)\n"
		"TRES=cpu=2,mem=1G,node=1\n"
		"ResvPorts=(null)\n"
		"CPUFreqReq=Default Dist=Cyclic\n"
		"SrunHost:Pid=login1:32707\n");
	free(text);
	json_decref(s);

	/* the batch step */
	s = step_obj(6, CMD_STEP_BATCH, "batch");
	json_object_set_new(s, "nodes", json_string("n1"));
	json_object_set_new(s, "num_nodes", json_integer(1));
	json_object_set_new(s, "num_tasks", json_integer(1));
	record_step(s, &r);
	text = joined(&r);
	assert_string_equal(text,
		"StepId=6.batch UserId=1001 StartTime=2026-11-29T09:58:45 TimeLimit=UNLIMITED\n"
		"State=RUNNING Partition=debug NodeList=n1\n"
		"Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n"
		"TRES=(null)\n"
		"ResvPorts=(null)\n"
		"CPUFreqReq=Default\n"
		"SrunHost:Pid=(null):0\n");
	free(text);
	json_decref(s);
}

/* squeue -s's selection: only running steps, each filter given. */
static void test_filter(void **state)
{
	json_t *a = step_obj(4, 0, "four"), *b = step_obj(4, CMD_STEP_BATCH, "batch"),
	       *c = step_obj(9, 1, "x");
	json_object_set_new(c, "uid", json_integer(1002));
	json_object_set_new(c, "partition", json_string("long"));
	json_object_set_new(c, "nodes", json_string("n3"));
	json_object_set_new(c, "array_job_id", json_integer(7));
	json_object_set_new(c, "array_task_id", json_integer(2));
	struct cmd_step_filter f = { 0 };
	assert_true(cmd_step_filter_match(&f, a) && cmd_step_filter_match(&f, c));

	struct cmd_step_ref *refs = NULL;
	size_t n = 0;
	char *bad = NULL;
	assert_int_equal(cmd_step_list_parse("4.batch,7_2.1", &refs, &n, &bad), 0);
	assert_int_equal(n, 2);
	f.steps = refs;
	f.nsteps = n;
	assert_false(cmd_step_filter_match(&f, a));
	assert_true(cmd_step_filter_match(&f, b) && cmd_step_filter_match(&f, c));
	assert_int_equal(cmd_step_list_parse("5.0,6", &refs, &n, &bad), -1);
	assert_string_equal(bad, "6");
	free(bad);
	f.nsteps = 0;

	struct cmd_step_ref jobs[] = { { 7, -1, CMD_STEP_NONE } };
	f.jobs = jobs;
	f.njobs = 1;
	assert_false(cmd_step_filter_match(&f, a));
	assert_true(cmd_step_filter_match(&f, c));   /* the array's ID names its tasks */
	f.njobs = 0;

	char *uids[] = { "1001", NULL }, *parts[] = { "long", NULL }, *names[] = { "four", NULL };
	f.uids = uids;
	f.uids_given = true;
	assert_true(cmd_step_filter_match(&f, a));
	assert_false(cmd_step_filter_match(&f, c));
	f.uids_given = false;
	f.partitions = parts;
	assert_false(cmd_step_filter_match(&f, a));
	assert_true(cmd_step_filter_match(&f, c));
	f.partitions = NULL;
	f.names = names;
	assert_true(cmd_step_filter_match(&f, a));
	assert_false(cmd_step_filter_match(&f, b));
	f.names = NULL;
	struct hostlist *hl = hostlist_create("n[2-3]");
	f.nodes = hl;
	assert_true(cmd_step_filter_match(&f, a) && cmd_step_filter_match(&f, c));
	hostlist_destroy(hl);
	hl = hostlist_create("n4");
	f.nodes = hl;
	assert_false(cmd_step_filter_match(&f, a));
	hostlist_destroy(hl);
	f.nodes = NULL;
	/* a step that ended is not listed */
	json_object_set_new(a, "state", json_string("COMPLETED"));
	assert_false(cmd_step_filter_match(&f, a));

	/* -S: default P,i; -M by time used; a job letter is refused */
	size_t nkeys;
	struct cmd_step_sort *keys = cmd_step_sort_parse(CMD_STEP_SORT, &nkeys, &bad);
	assert_non_null(keys);
	const json_t *v[] = { c, b, a };
	cmd_step_sort(v, 3, keys, nkeys, NOW);
	assert_ptr_equal(v[0], a);   /* debug before long; 4.0 before 4.batch */
	assert_ptr_equal(v[1], b);
	assert_ptr_equal(v[2], c);
	free(keys);
	keys = cmd_step_sort_parse("-i", &nkeys, &bad);
	cmd_step_sort(v, 3, keys, nkeys, NOW);
	assert_ptr_equal(v[0], c);
	assert_ptr_equal(v[2], a);
	free(keys);
	assert_null(cmd_step_sort_parse("P,t", &nkeys, &bad));
	assert_string_equal(bad, "t");
	free(bad);
	free(refs);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* DerivedExitCode: the highest exit of the steps, but not of those the
 * job's own end killed (Slurm: a cancelled job's killed steps give 0:0). */
static void test_derived(void **state)
{
	json_t *steps = json_pack("[{s:s, s:i, s:i}, {s:s, s:i, s:i}, {s:s, s:i, s:i, s:i}]",
				  "state", "FAILED", "exit_code", 3 << 8, "end_time", 100,
				  "state", "CANCELLED", "exit_code", 15, "end_time", 200,
				  "state", "CANCELLED", "exit_code", 9, "end_time", 50, "requid", 0);
	assert_int_equal(cmd_step_derived_status(steps, "COMPLETED", 200), 3 << 8);
	assert_int_equal(cmd_step_derived_status(steps, "CANCELLED", 200), 3 << 8);
	json_array_remove(steps, 0);
	/* a completed job: every step counts, the signals too */
	assert_int_equal(cmd_step_derived_status(steps, "COMPLETED", 200), 15);
	/* cancelled: the step its end killed does not; scancel N.S's does */
	assert_int_equal(cmd_step_derived_status(steps, "CANCELLED", 200), 9);
	assert_int_equal(cmd_step_derived_status(steps, "TIMEOUT", 200), 9);
	json_array_remove(steps, 1);
	assert_int_equal(cmd_step_derived_status(steps, "CANCELLED", 200), 0);
	json_decref(steps);
	json_t *none = json_array();
	assert_int_equal(cmd_step_derived_status(none, "COMPLETED", 0), 0);
	json_decref(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_squeue_cells),
		cmocka_unit_test(test_squeue_order),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
