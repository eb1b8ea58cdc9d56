/* The stored record of a job (job_to_json) and its reading back at restart
 * (job_from_json), driven by the job field table (common/job_fields.h,
 * ctld/job_view.c): the record and the JOB object a job had before the
 * table (but std_err_task, now kept only when not ""), and the same record
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
	job->wckey = xstrdup("*alpha");
	job->wckey_id = 3;
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
	if (strcmp(text, expected))
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
	if (strcmp(out.s, expected))
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
	if (strcmp(out.s, expected_row))
		fail_msg("the row is\n%s\nnot\n%s", out.s, expected_row);
	job_view_destroy(v);
	json_decref(keys);
	free(out.s);
}

static void views(void **state)
{
	struct job *job = plain_job();
	check_view(job,
		"{\"job_id\":17,\"name\":\"sim \\\"one\\\"\",\"user\":\"alice\",\"uid\":1000,\"gid\":100,\"group\":\"users\","
		"\"account\":\"physics\",\"partition\":\"\",\"partitions\":\"\",\"comment\":\"tab\\u0009here\","
		"\"state\":\"PENDING\",\"reason\":\"Priority\",\"priority\":4000,\"nice\":-5,\"nodes\":\"\","
		"\"batch_host\":\"\",\"num_nodes\":2,\"num_cpus\":8,\"num_tasks\":2,\"cpus_per_task\":4,"
		"\"mem_per_node\":1024,\"mem_per_cpu\":0,\"ntasks_per_node\":2,"
		"\"ntasks_per_socket\":0,\"ntasks_per_core\":0,\"exclusive\":false,"
		"\"oversubscribe\":false,\"max_nodes\":0,\"mincpus\":0,\"min_tmp_disk\":0,\"sockets_per_node\":0,\"cores_per_socket\":0,\"threads_per_core\":0,\"overcommit\":false,\"spread_job\":false,\"use_min_nodes\":false,\"no_kill\":false,\"exclusive_user\":false,\"delay_boot\":0,"
		"\"time_limit\":3600,\"time_min\":-2,\"submit_time\":1795946300,\"eligible_time\":1795946300,"
		"\"start_time\":0,\"end_time\":0,\"deadline\":1796032800,\"exit_code\":0,\"work_dir\":\"/home/alice\","
		"\"std_out\":\"/home/alice/slurm-17.out\",\"std_err\":\"/home/alice/slurm-17.err\","
		"\"std_in\":\"\",\"command\":\"(null)\",\"submit_host\":\"login1\",\"restarts\":0,\"requeue\":true,"
		"\"mail_type\":\"END\",\"mail_user\":\"alice@example.org\",\"open_mode\":\"append\","
		"\"signal\":10,\"signal_time\":60,\"signal_flags\":\"B\",\"qos\":\"normal\",\"features\":\"a&b\",\"batch_features\":\"\","
		"\"reservation\":\"maint\",\"container\":\"\",\"wckey\":\"*alpha\",\"wckey_id\":3,"
		"\"licenses\":\"\",\"tres_per_job\":\"\",\"tres_per_node\":\"\",\"tres_per_socket\":\"\",\"tres_per_task\":\"\",\"cpus_per_gpu\":0,\"mem_per_gpu\":0,\"gpu_bind\":\"\",\"gpu_freq\":\"\",\"gres_flags\":\"\",\"gres_alloc\":\"\",\"billing\":0,"
		"\"req_nodelist\":\"\",\"exc_nodelist\":\"\",\"dependency\":\"\","
		"\"node_alloc\":[],\"acts\":[],\"start_estimate\":0,\"sched_nodes\":\"\"}",
		"[\"state\",\"job_id\",\"array_tasks\",\"reason\",\"num_cpus\",\"partition\"] [\"PENDING\","
		"17,null,\"Priority\",8,\"\"]");
	job_destroy(job);
	job = array_meta();
	check_view(job,
		"{\"job_id\":30,\"name\":\"\",\"user\":\"\",\"uid\":1001,\"gid\":0,\"group\":\"root\",\"account\":\"\","
		"\"partition\":\"\",\"partitions\":\"\",\"comment\":\"\",\"state\":\"PENDING\",\"reason\":\"None\","
		"\"priority\":0,\"nice\":0,\"nodes\":\"\",\"batch_host\":\"\",\"num_nodes\":1,\"num_cpus\":1,"
		"\"num_tasks\":1,\"cpus_per_task\":0,\"mem_per_node\":0,\"mem_per_cpu\":0,\"ntasks_per_node\":0,"
		"\"ntasks_per_socket\":0,\"ntasks_per_core\":0,\"exclusive\":false,"
		"\"oversubscribe\":false,\"max_nodes\":0,\"mincpus\":0,\"min_tmp_disk\":0,\"sockets_per_node\":0,\"cores_per_socket\":0,\"threads_per_core\":0,\"overcommit\":false,\"spread_job\":false,\"use_min_nodes\":false,\"no_kill\":false,\"exclusive_user\":false,\"delay_boot\":0,\"time_limit\":-1,\"time_min\":120,\"submit_time\":0,\"eligible_time\":0,"
		"\"start_time\":0,\"end_time\":0,\"deadline\":0,\"exit_code\":0,\"work_dir\":\"\",\"std_out\":\"\","
		"\"std_err\":\"\",\"std_in\":\"\",\"command\":\"(null)\",\"submit_host\":\"\",\"restarts\":0,"
		"\"requeue\":false,\"mail_type\":\"NONE\",\"mail_user\":\"\",\"open_mode\":\"truncate\","
		"\"signal\":0,\"signal_time\":0,\"signal_flags\":\"\",\"qos\":\"normal\",\"features\":\"\",\"batch_features\":\"\","
		"\"reservation\":\"\",\"container\":\"\",\"wckey\":\"\",\"wckey_id\":0,"
		"\"licenses\":\"\",\"tres_per_job\":\"\",\"tres_per_node\":\"\",\"tres_per_socket\":\"\",\"tres_per_task\":\"\",\"cpus_per_gpu\":0,\"mem_per_gpu\":0,\"gpu_bind\":\"\",\"gpu_freq\":\"\",\"gres_flags\":\"\",\"gres_alloc\":\"\",\"billing\":0,"
		"\"req_nodelist\":\"\",\"exc_nodelist\":\"\",\"dependency\":\"\",\"node_alloc\":[],"
		"\"acts\":[],\"start_estimate\":0,\"sched_nodes\":\"\",\"array_job_id\":30,\"array_task_id\":4294967294,"
		"\"array_tasks\":\"4-9\",\"array_throttle\":2,\"std_out_task\":\"/w/o-%a.out\",\"std_err_task\":\"\"}",
		"[\"state\",\"job_id\",\"array_tasks\",\"reason\",\"num_cpus\",\"partition\"] [\"PENDING\","
		"30,\"4-9\",\"None\",1,\"\"]");
	job_destroy(job);
}

static void records(void **state)
{
	struct job *job = plain_job();
	check_record(job,
		"{\"account\":\"physics\",\"accrue_time\":1795946350,\"alloc\":[],\"batch_host\":\"\","
		"\"cancel_requested\":false,\"command\":\"(null)\",\"comment\":\"tab\\there\",\"cpus_per_task\":4,"
		"\"deadline\":1796032800,\"eligible_time\":1795946300,\"end_time\":0,\"exc_nodelist\":\"\","
		"\"exclusive\":false,\"exit_code\":0,\"features\":\"a&b\",\"gid\":100,\"hold_admin\":false,"
		"\"hold_user\":true,\"job_id\":17,\"key\":\"k-17\",\"mail_sent\":0,\"mail_type\":\"END\","
		"\"mail_user\":\"alice@example.org\",\"mem_mb\":1024,\"mem_per_cpu\":0,\"mem_per_node\":1024,"
		"\"name\":\"sim \\\"one\\\"\",\"nice\":-5,\"nodes\":\"\",\"ntasks_per_node\":2,\"num_cpus\":8,"
		"\"num_nodes\":2,\"num_tasks\":0,\"open_mode\":\"append\",\"partition\":\"\",\"partitions\":\"\","
		"\"priority\":4000,\"qos\":\"normal\",\"reason\":\"Priority\",\"req_nodelist\":\"\",\"req_nodes\":2,"
		"\"requeue\":true,\"requeue_hold\":false,\"requeue_requested\":false,\"reservation\":\"maint\","
		"\"restarts\":0,\"signal\":10,\"signal_flags\":\"B\",\"signal_time\":60,\"start_time\":0,"
		"\"state\":\"PENDING\",\"std_err\":\"/home/alice/slurm-17.err\",\"std_in\":\"\",\"std_out\":\"/home/alice/slurm-17.out\","
		"\"submit_host\":\"login1\",\"submit_time\":1795946300,\"time_limit\":3600,\"time_min\":-2,"
		"\"uid\":1000,\"user\":\"alice\",\"wckey\":\"*alpha\",\"wckey_id\":3,"
		"\"work_dir\":\"/home/alice\"}");
	job_destroy(job);
	job = array_meta();
	check_record(job,
		"{\"account\":\"\",\"alloc\":[],\"array_count\":10,\"array_job_id\":30,\"array_max\":9,"
		"\"array_min\":0,\"array_step\":1,\"array_task_id\":4294967294,\"array_tasks\":\"4-9\","
		"\"array_throttle\":2,\"batch_host\":\"\",\"cancel_requested\":false,\"command\":\"(null)\","
		"\"comment\":\"\",\"cpus_per_task\":0,\"deadline\":0,\"eligible_time\":0,\"end_time\":0,"
		"\"exc_nodelist\":\"\",\"exclusive\":false,\"exit_code\":0,\"features\":\"\",\"gid\":0,"
		"\"hold_admin\":false,\"hold_user\":false,\"job_id\":30,\"kill_invalid_dep\":true,"
		"\"mail_sent\":0,\"mail_type\":\"NONE\",\"mail_user\":\"\",\"mem_mb\":0,\"mem_per_cpu\":0,"
		"\"mem_per_node\":0,\"name\":\"\",\"nice\":0,\"nodes\":\"\",\"ntasks_per_node\":0,\"num_cpus\":1,"
		"\"num_nodes\":1,\"num_tasks\":0,\"open_mode\":\"truncate\",\"partition\":\"\",\"partitions\":\"\","
		"\"priority\":0,\"qos\":\"normal\",\"reason\":\"None\",\"req_nodelist\":\"\",\"req_nodes\":0,"
		"\"requeue\":false,\"requeue_hold\":false,\"requeue_requested\":false,\"restarts\":0,"
		"\"signal\":0,\"signal_flags\":\"\",\"signal_time\":0,\"start_time\":0,\"state\":\"PENDING\","
		"\"std_err\":\"\",\"std_in\":\"\",\"std_out\":\"\",\"std_out_task\":\"/w/o-%a.out\",\"submit_host\":\"\","
		"\"submit_time\":0,\"time_limit\":-1,\"time_min\":120,\"uid\":1001,\"user\":\"\",\"work_dir\":\"\"}");
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
