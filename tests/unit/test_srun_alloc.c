/* cmd/srun_alloc: the bodies srun and salloc send -- SUBMIT_JOB of an
 * allocation that runs no script, STEP_CREATE's step -- checked against the
 * controller's own schemas (msg_validate), and what the options put in them. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cmd/opt.c"
#include "cmd/jobopt.c"
#include "cmd/jobopt_read.c"
#include "cmd/jobopt_table.c"
#include "cmd/srun_opt.c"
#include "cmd/srun_check.c"
#include "cmd/srun_alloc.c"

static const char *no_env(const char *name)
{
	return NULL;
}

static void parse(struct jobopt *o, enum jobopt_cmd cmd, char **argv)
{
	int argc = 0;
	struct herd_error err;
	while (argv[argc])
		argc++;
	assert_int_equal(srun_opts_parse(o, cmd, argc, argv, no_env, stdout, &err), SRUN_PARSE_OK);
}

static void test_submit_body(void **state)
{
	struct jobopt o;
	char *argv[] = { "srun", "-N", "2", "--ntasks-per-node=3", "-p", "debug", "-w", "n[1-2]",
			 "-q", "high", "--mem-per-cpu=100", "--signal=USR1@30", "-t", "5", "prog", NULL };
	char *env[] = { "A=1", "SLURM_X=2", NULL };
	struct herd_error err;
	parse(&o, JOBOPT_SRUN, argv);
	json_t *body = srun_alloc_body(&o, "prog", env, "/work");
	assert_non_null(body);
	if (msg_validate(MSG_SUBMIT_JOB, body, &err) < 0)
		fail_msg("%s", err.text);
	json_t *job = json_object_get(body, "job");
	assert_true(json_is_true(json_object_get(job, "alloc")));
	assert_string_equal(json_string_value(json_object_get(job, "script")), "");
	assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 2);
	assert_int_equal(json_integer_value(json_object_get(job, "ntasks")), 6);
	assert_int_equal(json_integer_value(json_object_get(job, "time_limit")), 300);
	assert_int_equal(json_integer_value(json_object_get(job, "mem_per_cpu")), 100);
	assert_int_equal(json_integer_value(json_object_get(job, "signal")), SIGUSR1);
	assert_int_equal(json_integer_value(json_object_get(job, "signal_time")), 30);
	assert_string_equal(json_string_value(json_object_get(job, "req_nodelist")), "n[1-2]");
	assert_string_equal(json_string_value(json_object_get(job, "qos")), "high");
	assert_string_equal(json_string_value(json_object_get(job, "partition")), "debug");
	assert_int_equal(json_array_size(json_object_get(job, "env")), 2);
	assert_int_equal(strlen(json_string_value(json_object_get(body, "key"))), 32);
	json_decref(body);
	jobopt_free(&o);

	/* salloc without options: nothing asked, the time limit not given */
	char *sargv[] = { "salloc", NULL };
	parse(&o, JOBOPT_SALLOC, sargv);
	body = srun_alloc_body(&o, "interactive", env, "/work");
	if (msg_validate(MSG_SUBMIT_JOB, body, &err) < 0)
		fail_msg("%s", err.text);
	job = json_object_get(body, "job");
	assert_int_equal(json_integer_value(json_object_get(job, "time_limit")), TIME_NOT_GIVEN);
	assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 0);
	assert_null(json_object_get(job, "qos"));
	json_decref(body);
	jobopt_free(&o);
}

static void test_step_body(void **state)
{
	struct jobopt o;
	char *argv[] = { "srun", "-n", "4", "-m", "plane=2", "--cpu-bind=cores", "-i", "none",
			 "-o", "out-%t", "--overlap", "--mpi=pmi2", "-t", "0", "prog", "a", NULL };
	char *env[] = { "A=1", NULL };
	char *mp[] = { "0-3 echo", NULL };
	struct herd_error err;
	parse(&o, JOBOPT_SRUN, argv);
	json_t *step = srun_step_body(&o, "prog", env, "/work", "127.0.0.1", 4000,
				      "0123456789abcdef0123456789abcdef", mp);
	assert_non_null(step);
	json_t *body = json_pack("{s:i, s:o}", "job_id", 5, "step", step);
	if (msg_validate(MSG_STEP_CREATE, body, &err) < 0)
		fail_msg("%s", err.text);
	assert_int_equal(json_integer_value(json_object_get(step, "num_tasks")), 4);
	assert_int_equal(json_integer_value(json_object_get(step, "num_nodes")), 0);
	assert_string_equal(json_string_value(json_object_get(step, "distribution")), "plane=2");
	assert_string_equal(json_string_value(json_object_get(step, "cpu_bind")), "cores");
	assert_int_equal(json_integer_value(json_object_get(step, "stdin_task")), SRUN_STDIN_NONE);
	assert_string_equal(json_string_value(json_object_get(step, "stdout")), "out-%t");
	assert_string_equal(json_string_value(json_object_get(step, "stdin")), "");
	assert_true(json_is_true(json_object_get(step, "overlap")));
	assert_int_equal(json_integer_value(json_object_get(step, "time_limit")), TIME_INFINITE);
	assert_int_equal(json_integer_value(json_object_get(step, "io_port")), 4000);
	assert_int_equal(json_array_size(json_object_get(step, "argv")), 2);
	assert_int_equal(json_array_size(json_object_get(step, "multi_prog")), 1);
	json_decref(body);
	jobopt_free(&o);

	/* nothing given: zeros and "" for the controller to fill from the job */
	char *bare[] = { "srun", "true", NULL };
	parse(&o, JOBOPT_SRUN, bare);
	step = srun_step_body(&o, "true", env, "/", "10.0.0.1", 1, "k", NULL);
	body = json_pack("{s:i, s:o}", "job_id", 5, "step", step);
	if (msg_validate(MSG_STEP_CREATE, body, &err) < 0)
		fail_msg("%s", err.text);
	assert_int_equal(json_integer_value(json_object_get(step, "time_limit")), 0);
	assert_int_equal(json_integer_value(json_object_get(step, "num_tasks")), 0);
	/* stdin to every task, as Slurm's srun */
	assert_int_equal(json_integer_value(json_object_get(step, "stdin_task")), SRUN_STDIN_ALL);
	assert_null(json_object_get(step, "multi_prog"));
	json_decref(body);
	jobopt_free(&o);
}

/* srun's GPU options in the step (doc/gres.md section 2, Steps): --gpus is
 * the step's in all, the others as the job's keys; --gres=none says so. */
static void test_step_body_gres(void **state)
{
	struct jobopt o;
	char *argv[] = { "srun", "--gpus=3", "--gpus-per-node=h100:1", "--gpus-per-task=1",
			 "--gpu-bind=closest", "--cpus-per-gpu=2", "--mem-per-gpu=100", "prog", NULL };
	char *env[] = { NULL };
	struct herd_error err;
	parse(&o, JOBOPT_SRUN, argv);
	json_t *step = srun_step_body(&o, "prog", env, "/", "10.0.0.1", 1, "k", NULL);
	json_t *body = json_pack("{s:i, s:o}", "job_id", 5, "step", step);
	if (msg_validate(MSG_STEP_CREATE, body, &err) < 0)
		fail_msg("%s", err.text);
	assert_string_equal(json_string_value(json_object_get(step, "tres_per_step")), "gres/gpu:3");
	assert_string_equal(json_string_value(json_object_get(step, "tres_per_node")), "gres/gpu:h100:1");
	assert_string_equal(json_string_value(json_object_get(step, "tres_per_task")), "gres/gpu:1");
	assert_string_equal(json_string_value(json_object_get(step, "gpu_bind")), "closest");
	assert_int_equal(json_integer_value(json_object_get(step, "cpus_per_gpu")), 2);
	assert_int_equal(json_integer_value(json_object_get(step, "mem_per_gpu")), 100);
	assert_null(json_object_get(step, "gres_none"));
	json_decref(body);
	jobopt_free(&o);

	char *none[] = { "srun", "--gres=none", "prog", NULL };
	parse(&o, JOBOPT_SRUN, none);
	step = srun_step_body(&o, "prog", env, "/", "10.0.0.1", 1, "k", NULL);
	assert_true(json_is_true(json_object_get(step, "gres_none")));
	assert_null(json_object_get(step, "tres_per_node"));
	json_decref(step);
	jobopt_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_submit_body),
		cmocka_unit_test(test_step_body),
		cmocka_unit_test(test_step_body_gres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
