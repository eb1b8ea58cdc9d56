/* The job field table (common/job_fields.h) and squeue's columns built on
 * it (cmd/squeue_cols.c): one row per key and per letter, the cells and
 * sort values squeue has always printed, and scontrol's keys. */
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
#include "cmd/record.c"
#include "cmd/squeue_cols.c"
#include "cmd/step.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_table(void **state)
{
	for (size_t i = 0; i < JOB_F_COUNT; i++) {
		const struct job_field *f = &job_fields[i];
		assert_non_null(f->key);
		assert_ptr_equal(job_field_find(f->key), f);   /* keys are unique */
		if (i < JOB_F_NKEYS) {   /* the controller's: typed, somewhere */
			assert_int_not_equal(f->type, JOB_FIELD_NONE);
			assert_true(f->flags & (JF_SHOWN | JF_STORED));
		} else {
			assert_int_equal(f->type, JOB_FIELD_NONE);
			assert_int_equal(f->flags, 0);
		}
		if (f->letter) {
			for (size_t k = 0; k < i; k++)   /* letters are unique too */
				assert_int_not_equal(job_fields[k].letter, f->letter);
			assert_non_null(f->title);
			assert_non_null(f->long_name);
		}
		if (f->flags & JF_SPARSE)
			assert_true(f->flags & JF_STORED);
	}
	assert_null(job_field_find("no_such_key"));
}

/* squeue's letters are Slurm's (squeue(1)), each once; the fields Slurm
 * has only under -O have letters below ' ' */
static void test_letters(void **state)
{
	const char *slurm = "AaBbCcDdEeFfGgHhIiJjKkLlMmNnOoPpQqRrSTtUuVvWwXxYyZz";
	const char *mine = squeue_letters();
	size_t printable = 0;
	for (const char *p = mine; *p; p++)
		printable += *p > ' ';
	assert_int_equal(printable, strlen(slurm));
	for (const char *p = slurm; *p; p++)
		assert_non_null(strchr(mine, *p));
	assert_string_equal(fmt_title_of(squeue_titles(), 'R'), "NODELIST(REASON)");
	assert_string_equal(fmt_title_of(squeue_titles(), 'G'), "GROUP");
	char *bad = NULL;
	char *spec = fmt_from_names("JobID,UserName:.8,TimeUsed:,tres-per-node", squeue_long_names(), &bad);
	assert_non_null(spec);
	assert_string_equal(spec, "%20A%.8u%0M%20b");
	free(spec);
	spec = fmt_from_names("HetJobID,HetJobIDSet,HetJobOffset,Container", squeue_long_names(), &bad);
	assert_non_null(spec);
	assert_string_equal(spec, "%20\x01%20\x02%20\x03%20\x04");
	free(spec);
	assert_null(fmt_from_names("JobID,Nope", squeue_long_names(), &bad));
	assert_string_equal(bad, "Nope");
	free(bad);
}

#define NOW ((time_t)1795946400)

static void test_cells(void **state)
{
	json_t *job = json_pack(
		"{s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i,"
		" s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:s, s:i}",
		"job_id", 42, "name", "sim", "user", "alice", "uid", 1000, "gid", 100,
		"group", "users", "account", "", "partition", "debug", "state", "RUNNING",
		"reason", "None", "priority", 2147483647, "nodes", "n[1-2]", "num_nodes", 0,
		"num_cpus", 8, "cpus_per_task", 0, "mem_per_cpu", 0, "mem_per_node", 2048,
		"start_time", (int)NOW - 90, "end_time", 0, "time_limit", 3600, "batch_host", "",
		"command", "", "exclusive", 1, "qos", "", "features", "", "work_dir", "/w",
		"req_nodelist", "", "dependency", "", "submit_time", 0);
	struct squeue_row row = { job, NOW, -1 };
	const struct {
		char letter;
		const char *cell;
	} cases[] = {
		{ 'A', "42" }, { 'i', "42" }, { 'F', "42" }, { 'K', "N/A" }, { 'j', "sim" },
		{ 'u', "alice" }, { 'U', "1000" }, { 'g', "users" }, { 'G', "100" },
		{ 'a', "(null)" }, { 'P', "debug" }, { 't', "R" }, { 'T', "RUNNING" },
		{ 'M', "1:30" }, { 'l', "1:00:00" }, { 'L', "58:30" }, { 'D', "1" }, { 'C', "8" },
		{ 'c', "1" }, { 'm', "2G" }, { 'R', "n[1-2]" }, { 'r', "None" }, { 'N', "n[1-2]" },
		{ 'B', "n/a" }, { 'Q', "2147483647" }, { 'p', "0.49999999988358" }, { 'Z', "/w" },
		{ 'o', "(null)" }, { 'h', "NO" }, { 'k', "(null)" }, { 'E', "(null)" },
		{ 'q', "normal" }, { 'f', "(null)" }, { 'n', "" }, { 'x', "" }, { 'Y', "(null)" },
		{ 'v', "(null)" }, { 'w', "(null)" }, { 'b', "N/A" }, { 'X', "N/A" }, { 'y', "0" },
		{ 'O', "0" }, { 'd', "0" }, { 'z', "*:*:*" }, { 'H', "*" }, { 'I', "*" }, { 'J', "*" },
		{ 'W', "(null)" },   /* no -L */
	};
	char buf[256];
	squeue_reply_keys(NULL);
	for (size_t i = 0; i < N(cases); i++) {
		const char *cell = squeue_value(cases[i].letter, &row, buf, sizeof(buf));
		if (strcmp(cell, cases[i].cell))
			fail_msg("%%%c: \"%s\", not \"%s\"", cases[i].letter, cell, cases[i].cell);
	}
	json_decref(job);
}

/* A reply of rows reads as objects do; the keys asked per letter. */
static void test_rows_and_keys(void **state)
{
	json_t *keys = json_pack("[s,s,s]", "job_id", "state", "reason");
	json_t *job = json_pack("[i,s,s]", 7, "PENDING", "Priority");
	struct squeue_row row = { job, NOW, -1 };
	char buf[64];
	squeue_reply_keys(keys);
	assert_string_equal(squeue_value('R', &row, buf, sizeof(buf)), "(Priority)");
	assert_string_equal(squeue_value('t', &row, buf, sizeof(buf)), "PD");
	assert_int_equal(squeue_sort_value(job, 'A').n, 7);
	assert_string_equal(squeue_sort_value(job, 'R').s, "Priority");
	assert_string_equal(squeue_sort_value(job, 't').s, "PD");
	assert_null(squeue_sort_value(job, 'q').s);   /* no order by it */
	squeue_reply_keys(NULL);

	json_t *asked = json_array();
	assert_true(squeue_add_keys(asked, 'L'));
	assert_true(squeue_add_keys(asked, 'X'));   /* a placeholder asks nothing */
	assert_true(squeue_add_keys(asked, 'y'));   /* the job's nice */
	assert_true(squeue_add_keys(asked, 'j'));
	assert_false(squeue_add_keys(asked, 's'));   /* no field has it */
	char *text = json_dumps(asked, JSON_COMPACT);
	assert_string_equal(text, "[\"time_limit\",\"start_time\",\"end_time\",\"nice\",\"name\"]");
	free(text);
	json_decref(asked);
	json_decref(job);
	json_decref(keys);
}

/* Each scontrol key of the table is one scontrol show job prints (-d, a
 * job that has them all; TeamActs= is scontrol.c's, after the record). */
static void test_scontrol_keys(void **state)
{
	json_t *job = json_pack(
		"{s:i, s:s, s:i, s:i, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s,"
		" s:[[s,i,i,s]], s:s, s:s, s:s, s:s, s:s, s:s}",
		"job_id", 9, "state", "RUNNING", "array_job_id", 9, "array_task_id", 2,
		"batch_host", "n1", "mem_per_cpu", 0, "reservation", "r1", "sched_nodes", "n2",
		"mail_type", "END", "mail_user", "a@b", "comment", "c", "array_throttle", 0,
		"partition", "debug", "submit_host", "login", "command", "/x.sh",
		"node_alloc", "n1", 1, 100, "gpu:1(IDX:0)", "container", "/b", "wckey", "*k",
		"tres_per_job", "gres:gpu:1", "tres_per_node", "gres:gpu:1", "tres_per_socket",
		"gres:gpu:1", "tres_per_task", "gres:gpu:1");
	struct record r = { 0 };
	record_job(job, NOW, 1, &r);
	char *text = xstrdup("");
	for (size_t i = 0; i < r.count; i++) {
		char *next = xasprintf("%s %s", text, r.lines[i]);
		free(text);
		text = next;
	}
	for (size_t i = 0; i < r.count; i++)
		free(r.lines[i]);
	free(r.lines);
	for (size_t i = 0; i < JOB_F_COUNT; i++) {
		const char *key = job_fields[i].scontrol;
		if (!key || !strcmp(key, "TeamActs") || !strcmp(key, "MinMemoryCPU") ||
		    !strcmp(key, "ArrayTaskThrottle") || !strncmp(key, "HetJob", 6))
			continue;   /* shown only otherwise: checked below */
		char *want = xasprintf(" %s=", key);
		char *want_mid = xasprintf("%s=", key);
		if (!strstr(text, want) && strncmp(text + 1, want_mid, strlen(want_mid)))
			fail_msg("no %s in: %s", want, text);
		free(want);
		free(want_mid);
	}
	free(text);
	json_decref(job);
	/* the rest: MinMemoryCPU= with --mem-per-cpu, the throttle of a meta record */
	job = json_pack("{s:i, s:i, s:I, s:s, s:i}", "mem_per_cpu", 100, "array_job_id", 9,
			"array_task_id", (json_int_t)CMD_NO_TASK, "array_tasks", "1-3",
			"array_throttle", 2);
	memset(&r, 0, sizeof(r));
	record_job(job, NOW, 0, &r);
	bool cpu = false, throttle = false;
	for (size_t i = 0; i < r.count; i++) {
		cpu |= strstr(r.lines[i], " MinMemoryCPU=") != NULL;
		throttle |= strstr(r.lines[i], " ArrayTaskThrottle=2") != NULL;
		free(r.lines[i]);
	}
	free(r.lines);
	assert_true(cpu);
	assert_true(throttle);
	json_decref(job);
	/* a het job's component: its three keys, as Slurm's first two lines */
	job = json_pack("{s:i, s:i, s:i, s:s, s:s}", "job_id", 10, "het_job_id", 9, "het_job_offset", 1,
			"het_job_id_set", "9-10", "name", "x");
	memset(&r, 0, sizeof(r));
	record_job(job, NOW, 0, &r);
	assert_true(r.count > 2);
	assert_string_equal(r.lines[0], "JobId=10 HetJobId=9 HetJobOffset=1 JobName=x");
	assert_string_equal(r.lines[1], "HetJobIdSet=9-10");
	for (size_t i = 0; i < r.count; i++)
		free(r.lines[i]);
	free(r.lines);
	json_decref(job);
}

/* A job's TRES= (squeue -O tres-alloc). */
static void test_gres_tres(void **state)
{
	char buf[128];
	static const struct { const char *job, *want; } jobs[] = {
		{ "{\"num_cpus\": 2, \"num_nodes\": 1, \"gres_alloc\": \"gres/gpu=2\"}",
		  "cpu=2,node=1,billing=2,gres/gpu=2" },
		/* --mem-per-gpu: held on its nodes, or per GPU asked */
		{ "{\"num_cpus\": 1, \"mem_per_gpu\": 10, \"gres_alloc\": \"gres/gpu=3\","
		  " \"node_alloc\": [[\"n1\", 1, 20, \"\"], [\"n2\", 1, 10, \"\"]]}",
		  "cpu=1,mem=30M,node=1,billing=1,gres/gpu=3" },
		{ "{\"num_cpus\": 1, \"mem_per_gpu\": 10, \"gres_alloc\": \"gres/gpu=3\"}",
		  "cpu=1,mem=30M,node=1,billing=1,gres/gpu=3" },
		{ "{\"num_cpus\": 2, \"num_nodes\": 2, \"mem_per_node\": 100}",
		  "cpu=2,mem=200M,node=2,billing=2" },
	};
	for (size_t i = 0; i < N(jobs); i++) {
		json_t *job = json_loads(jobs[i].job, 0, NULL);
		assert_non_null(job);
		assert_string_equal(record_job_tres(job, buf, sizeof(buf)), jobs[i].want);
		json_decref(job);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_letters),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_rows_and_keys),
		cmocka_unit_test(test_scontrol_keys),
		cmocka_unit_test(test_gres_tres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
