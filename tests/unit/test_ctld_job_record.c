/* The stored record of a job (job_to_json) and its reading back at restart
 * (job_from_json), driven by the job field table (common/job_fields.h,
 * ctld/job_view.c): the record a job has always had, and the same record
 * after a round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/bitmap.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct ctld ctld;

#define NOW ((time_t)1795946400)

static struct job *plain_job(void)
{
	struct job *job = xmalloc(sizeof(*job));
	job->id = 17;
	job->state = JOB_PENDING;
	job->reason = REASON_PRIORITY;
	job->name = xstrdup("sim \"one\"");
	job->user = xstrdup("alice");
	job->uid = 1000;
	job->gid = 100;
	job->account = xstrdup("physics");
	job->comment = xstrdup("tab\there");
	job->work_dir = xstrdup("/home/alice");
	job->std_out = xstrdup("/home/alice/slurm-17.out");
	job->std_err = xstrdup("/home/alice/slurm-17.err");
	job->submit_host = xstrdup("login1");
	job->key = xstrdup("k-17");
	job->req_nodes = 2;
	job->cpus_per_task = 4;
	job->mem_mb = 1024;
	job->time_limit = 3600;
	job->time_min = TIME_NOT_GIVEN;
	job->requeue = true;
	job->mail_type = MAIL_END;
	job->mail_user = xstrdup("alice@example.org");
	job->ntasks_per_node = 2;
	job->open_append = true;
	job->signal = 10;
	job->signal_time = 60;
	job->signal_batch = true;
	job->features = xstrdup("a&b");
	job->reservation = xstrdup("maint");
	job->priority = 4000;
	job->nice = -5;
	job->prio_admin = 0;
	job->accrue_time = NOW - 50;
	job->submit_time = NOW - 100;
	job->eligible_time = NOW - 100;
	job->deadline = NOW + 86400;
	job->kill_invalid_dep = -1;
	job->hold_user = true;
	return job;
}

static struct job *array_meta(void)
{
	struct job *job = xmalloc(sizeof(*job));
	job->id = 30;
	job->state = JOB_PENDING;
	job->reason = REASON_NONE;
	job->uid = 1001;
	job->time_limit = -1;
	job->time_min = 120;
	job->requeue = false;
	job->kill_invalid_dep = 1;
	job->array_job_id = 30;
	job->array_task_id = 4294967294u;
	job->array_pending = bitmap_parse("4-9", UINT32_MAX);
	job->array_throttle = 2;
	job->array_count = 10;
	job->array_max = 9;
	job->array_step = 1;
	job->std_out_task = xstrdup("/w/o-%a.out");
	return job;
}

static void check_record(struct job *job, const char *expected)
{
	json_t *rec = job_to_json(job);
	char *text = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
	if (getenv("DUMP"))
		printf("REC %s\n", text);
	else if (strcmp(text, expected))
		fail_msg("the record is\n%s\nnot\n%s", text, expected);
	/* Read back, it is the same record. */
	struct job *again = job_from_json(rec);
	assert_non_null(again);
	json_t *rec2 = job_to_json(again);
	char *text2 = json_dumps(rec2, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text2, text);
	free(text2);
	json_decref(rec2);
	job_destroy(again);
	free(text);
	json_decref(rec);
}

/* The JOB object of JOB_INFO: every key, and the rows form of a few. */
static void check_view(const struct job *job, const char *expected, const char *expected_row)
{
	struct strbuf out = { 0 };
	struct job_view *v = job_view_create(NULL);
	job_view_write(v, job, &out);
	if (getenv("DUMP"))
		printf("VIEW %s\n", out.s);
	else if (strcmp(out.s, expected))
		fail_msg("JOB is\n%s\nnot\n%s", out.s, expected);
	job_view_destroy(v);
	free(out.s);
	memset(&out, 0, sizeof(out));
	json_t *keys = json_pack("[s,s,s,s,s,s,s,s,s]", "state", "job_id", "nope", "mem_mb",
				 "array_tasks", "reason", "state", "num_cpus", "partition");
	v = job_view_create(keys);
	job_view_keys(v, &out);
	strbuf_adds(&out, " ");
	job_view_write_row(v, job, &out);
	if (getenv("DUMP"))
		printf("ROW %s\n", out.s);
	else if (strcmp(out.s, expected_row))
		fail_msg("the row is\n%s\nnot\n%s", out.s, expected_row);
	job_view_destroy(v);
	json_decref(keys);
	free(out.s);
}

static void views(void **state)
{
	struct job *job = plain_job();
	check_view(job, "VIEW_PLAIN", "ROW_PLAIN");
	job_destroy(job);
	job = array_meta();
	check_view(job, "VIEW_ARRAY", "ROW_ARRAY");
	job_destroy(job);
}

static void records(void **state)
{
	struct job *job = plain_job();
	check_record(job, "EXPECT_PLAIN");
	job_destroy(job);
	job = array_meta();
	check_record(job, "EXPECT_ARRAY");
	job_destroy(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records),
		cmocka_unit_test(views),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
