/* herdstepd's batch environment: the submitter's entries, then Slurm's batch
 * variables on top, and the login variables only where missing.  The stepd
 * sources are not in libherd, so the ones under test are compiled in here. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "stepd/env.c"
#include "stepd/launch.c"
#include "stepd/gpu_env.c"

static const char *launch_json =
	"{\"job_id\": 77, \"uid\": 1001, \"gid\": 1002, \"umask\": 18, \"user\": \"alice\","
	" \"name\": \"train\", \"partition\": \"debug\", \"account\": \"\", \"cluster\": \"c1\","
	" \"submit_host\": \"login1\", \"script\": \"#!/bin/sh\\ntrue\\n\", \"argv\": [\"a\", \"b\"],"
	" \"env\": [\"PATH=/usr/bin\", \"SLURM_JOB_ID=1\", \"HOME=/custom\", \"FOO=x=y\", \"bogus\"],"
	" \"cwd\": \"/home/alice\", \"stdout\": \"\", \"stderr\": \"\", \"stdin\": \"\","
	" \"nodes\": \"n[1-2]\", \"num_nodes\": 2, \"ntasks\": 4, \"cpus_per_task\": 0,"
	" \"cpus_on_node\": 2, \"mem_mb\": 0, \"tasks_per_node\": \"2(x2)\", \"time_limit\": 60,"
	" \"kill_wait\": 5, \"start_time\": 1000}";

static void build(struct env *e, struct launch *l)
{
	struct herd_error err;
	json_t *obj = json_loads(launch_json, 0, NULL);
	assert_non_null(obj);
	assert_int_equal(launch_parse(obj, l, &err), 0);
	json_decref(obj);
	struct env_node node = { "n1", "/etc/herd/herd.conf", "/home/alice", "/bin/bash", false, NULL };
	env_init(e);
	env_batch(e, l, &node);
}

static void test_batch_variables(void **state)
{
	static const struct { const char *key, *value; } want[] = {
		{ "SLURM_JOB_ID", "77" }, { "SLURM_JOBID", "77" }, { "SLURM_JOB_NAME", "train" },
		{ "SLURM_JOB_USER", "alice" }, { "SLURM_JOB_UID", "1001" }, { "SLURM_JOB_GID", "1002" },
		{ "SLURM_JOB_NODELIST", "n[1-2]" }, { "SLURM_NODELIST", "n[1-2]" },
		{ "SLURM_JOB_NUM_NODES", "2" }, { "SLURM_NNODES", "2" }, { "SLURM_NTASKS", "4" },
		{ "SLURM_NPROCS", "4" }, { "SLURM_CPUS_ON_NODE", "2" },
		{ "SLURM_SUBMIT_DIR", "/home/alice" }, { "SLURM_SUBMIT_HOST", "login1" },
		{ "SLURM_JOB_PARTITION", "debug" }, { "SLURM_TASKS_PER_NODE", "2(x2)" },
		{ "SLURM_JOB_CPUS_PER_NODE", "2(x2)" }, { "SLURMD_NODENAME", "n1" },
		{ "SLURM_NODEID", "0" }, { "SLURM_PROCID", "0" }, { "SLURM_LOCALID", "0" },
		{ "SLURM_GTIDS", "0" }, { "SLURM_CLUSTER_NAME", "c1" }, { "SLURM_RESTART_COUNT", "0" },
		{ "SLURM_CONF", "/etc/herd/herd.conf" }, { "ENVIRONMENT", "BATCH" },
		{ "SLURM_UMASK", "0022" },
		{ "SLURM_JOB_START_TIME", "1000" }, { "SLURM_JOB_END_TIME", "1060" },
		{ "PATH", "/usr/bin" }, { "FOO", "x=y" },
		{ "HOME", "/custom" },           /* the submitter's wins */
		{ "USER", "alice" }, { "LOGNAME", "alice" }, { "SHELL", "/bin/bash" },
	};
	struct env e;
	struct launch l;

	build(&e, &l);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = env_get(&e, want[i].key);
		if (!got || strcmp(got, want[i].value))
			fail_msg("%s: got %s, want %s", want[i].key, got ? got : "(unset)", want[i].value);
	}
	/* unset when not requested, as Slurm */
	assert_null(env_get(&e, "SLURM_CPUS_PER_TASK"));
	assert_null(env_get(&e, "SLURM_MEM_PER_NODE"));
	assert_null(env_get(&e, "SLURM_JOB_ACCOUNT"));
	assert_null(env_get(&e, "SLURM_ARRAY_JOB_ID"));
	assert_null(env_get(&e, "SLURM_JOB_DEPENDENCY"));
	assert_null(env_get(&e, "bogus"));
	/* each key once, and the vector is NULL-terminated */
	size_t ids = 0;
	for (size_t i = 0; e.v[i]; i++)
		ids += !strncmp(e.v[i], "SLURM_JOB_ID=", 13);
	assert_int_equal(ids, 1);
	assert_null(e.v[e.n]);
	env_free(&e);
	launch_free(&l);
}

static void test_optional_variables(void **state)
{
	struct env e;
	struct launch l;

	build(&e, &l);
	env_free(&e);
	l.cpus_per_task = 3;
	l.mem_mb = 2048;
	free(l.account);
	l.account = strdup("physics");
	l.num_nodes = 1;
	l.time_limit = -1;
	struct env_node node = { "n1", NULL, NULL, NULL, false, NULL };
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_string_equal(env_get(&e, "SLURM_CPUS_PER_TASK"), "3");
	assert_string_equal(env_get(&e, "SLURM_MEM_PER_NODE"), "2048");
	assert_string_equal(env_get(&e, "SLURM_JOB_ACCOUNT"), "physics");
	assert_string_equal(env_get(&e, "SLURM_JOB_CPUS_PER_NODE"), "2");
	assert_null(env_get(&e, "SLURM_JOB_END_TIME"));
	env_free(&e);
	launch_free(&l);
}

static void test_launch_rejects_bad_fields(void **state)
{
	struct herd_error err;
	struct launch l;
	json_t *obj = json_loads(launch_json, 0, NULL);

	json_object_set_new(obj, "ntasks", json_string("4"));
	assert_int_equal(launch_parse(obj, &l, &err), -1);
	assert_string_equal(err.text, "launch: ntasks: expected integer");
	json_object_set_new(obj, "ntasks", json_integer(4));
	json_object_del(obj, "cwd");
	assert_int_equal(launch_parse(obj, &l, &err), -1);
	assert_string_equal(err.text, "launch: cwd: expected string");
	json_object_set_new(obj, "cwd", json_string("/"));
	json_object_set_new(obj, "job_id", json_integer(0));
	assert_int_equal(launch_parse(obj, &l, &err), -1);
	json_decref(obj);
}

/* An array task: SLURM_ARRAY_* from the launch, and the dependency as given. */
static void test_array_and_dependency_variables(void **state)
{
	struct herd_error err;
	json_t *obj = json_loads(launch_json, 0, NULL);
	struct launch l;
	struct env e;
	assert_non_null(obj);
	json_object_update_new(obj, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s}",
					      "array_job_id", 70, "array_task_id", 5,
					      "array_task_count", 4, "array_task_min", 1,
					      "array_task_max", 7, "array_task_step", 2,
					      "dependency", "afterok:12"));
	assert_int_equal(launch_parse(obj, &l, &err), 0);
	struct env_node node = { "n1", NULL, "/home/alice", "/bin/bash", false, NULL };
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_string_equal(env_get(&e, "SLURM_ARRAY_JOB_ID"), "70");
	assert_string_equal(env_get(&e, "SLURM_ARRAY_TASK_ID"), "5");
	assert_string_equal(env_get(&e, "SLURM_ARRAY_TASK_COUNT"), "4");
	assert_string_equal(env_get(&e, "SLURM_ARRAY_TASK_MIN"), "1");
	assert_string_equal(env_get(&e, "SLURM_ARRAY_TASK_MAX"), "7");
	assert_string_equal(env_get(&e, "SLURM_ARRAY_TASK_STEP"), "2");
	assert_string_equal(env_get(&e, "SLURM_JOB_ID"), "77");   /* the task's own */
	assert_string_equal(env_get(&e, "SLURM_JOB_DEPENDENCY"), "afterok:12");
	/* out of range: refused, not wrapped */
	json_object_set_new(obj, "array_task_id", json_integer(-1));
	launch_free(&l);
	assert_int_equal(launch_parse(obj, &l, &err), -1);
	json_decref(obj);
	env_free(&e);
}

static const char *step_json =
	"{\"step_id\": 3, \"step_name\": \"hostname\", \"step_nodes\": \"n[1-2]\","
	" \"step_num_nodes\": 2, \"step_num_tasks\": 4, \"step_tasks_per_node\": \"2(x2)\","
	" \"node_id\": 1, \"task_ids\": [2, 3], \"cpus\": \"0-3\", \"cpus_per_task\": 2,"
	" \"mem_mb\": 512, \"cpu_bind\": \"\", \"distribution\": \"cyclic\","
	" \"argv\": [\"hostname\"], \"env\": [\"PATH=/bin\", \"SLURM_UMASK=0077\", \"SLURM_NTASKS=9\"],"
	" \"cwd\": \"/w\", \"io_host\": \"10.0.0.5\", \"io_port\": 4321, \"io_key\": \"k\","
	" \"stdout\": \"\", \"stderr\": \"\", \"stdin\": \"\", \"stdin_task\": 0, \"pty\": false,"
	" \"mpi\": \"none\", \"time_limit\": -1, \"signal\": 0, \"signal_time\": 0,"
	" \"launch_addr\": \"10.0.0.9\"}";

static void build_step(struct launch *l, json_t *step)
{
	struct herd_error err;
	json_t *obj = json_loads(launch_json, 0, NULL);
	assert_non_null(obj);
	json_object_set_new(obj, "step", step);
	if (launch_parse(obj, l, &err) < 0)
		fail_msg("launch_parse: %s", err.text);
	json_decref(obj);
}

/* srun(1) OUTPUT ENVIRONMENT VARIABLES: the step's counts, the job's
 * SLURM_JOB_*, this task's IDs. */
static void test_step_variables(void **state)
{
	static const struct { const char *key, *value; } want[] = {
		{ "SLURM_JOB_ID", "77" }, { "SLURM_JOBID", "77" }, { "SLURM_STEP_ID", "3" },
		{ "SLURM_STEPID", "3" }, { "SLURM_PROCID", "3" }, { "SLURM_LOCALID", "1" },
		{ "SLURM_NODEID", "1" }, { "SLURM_STEP_NODELIST", "n[1-2]" },
		{ "SLURM_STEP_NUM_NODES", "2" }, { "SLURM_STEP_NUM_TASKS", "4" },
		{ "SLURM_STEP_TASKS_PER_NODE", "2(x2)" }, { "SLURM_NNODES", "2" },
		{ "SLURM_JOB_NUM_NODES", "2" }, { "SLURM_NODELIST", "n[1-2]" },
		{ "SLURM_JOB_NODELIST", "n[1-2]" }, { "SLURM_NTASKS", "4" }, { "SLURM_NPROCS", "4" },
		{ "SLURM_TASKS_PER_NODE", "2(x2)" }, { "SLURM_CPUS_ON_NODE", "2" },
		{ "SLURM_CPUS_PER_TASK", "2" }, { "SLURM_JOB_CPUS_PER_NODE", "2(x2)" },
		{ "SLURM_CPU_BIND", "quiet,mask_cpu:0x3,0xc" }, { "SLURM_CPU_BIND_TYPE", "mask_cpu:" },
		{ "SLURM_CPU_BIND_LIST", "0x3,0xc" }, { "SLURM_CPU_BIND_VERBOSE", "quiet" },
		{ "SLURM_DISTRIBUTION", "cyclic" }, { "SLURM_LAUNCH_NODE_IPADDR", "10.0.0.9" },
		{ "SLURM_SRUN_COMM_HOST", "10.0.0.9" }, { "SLURM_SRUN_COMM_PORT", "4321" },
		{ "SLURMD_NODENAME", "n2" }, { "SLURM_TOPOLOGY_ADDR", "n2" },
		{ "SLURM_TOPOLOGY_ADDR_PATTERN", "node" }, { "SLURM_GTIDS", "2,3" },
		{ "SLURM_UMASK", "0077" },            /* srun's, as srun exports it */
		{ "SLURM_CLUSTER_NAME", "c1" }, { "SLURM_JOB_UID", "1001" },
		{ "SLURM_JOB_USER", "alice" }, { "SLURM_JOB_NAME", "train" },
		{ "SLURM_JOB_PARTITION", "debug" }, { "SLURM_MEM_PER_NODE", "512" },
		{ "SLURM_PRIO_PROCESS", "0" }, { "SLURM_SUBMIT_DIR", "/home/alice" },
		{ "SLURM_SUBMIT_HOST", "login1" }, { "PATH", "/bin" },
	};
	struct launch l;
	struct env e;
	struct env_node node = { "n2", "/etc/herd/herd.conf", "/home/alice", "/bin/bash", false, NULL };
	struct env_task t = { .local = 1, .task_id = 3, .cpu_bind = "quiet,mask_cpu:0x3,0xc",
			      .cpu_bind_type = "mask_cpu:", .cpu_bind_list = "0x3,0xc",
			      .cpu_bind_verbose = "quiet" };

	build_step(&l, json_loads(step_json, 0, NULL));
	assert_non_null(l.step);
	assert_int_equal(l.step->ntasks, 2);
	env_init(&e);
	env_step(&e, &l, &node, &t);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = env_get(&e, want[i].key);
		if (!got || strcmp(got, want[i].value))
			fail_msg("%s: got %s, want %s", want[i].key, got ? got : "(unset)", want[i].value);
	}
	/* not the batch shell's */
	assert_null(env_get(&e, "ENVIRONMENT"));
	assert_null(env_get(&e, "SLURM_TASK_PID"));   /* set by the child */
	env_free(&e);
	launch_free(&l);
}

/* What the step object may leave out, and what it may not. */
static void test_step_defaults_and_refusals(void **state)
{
	struct herd_error err;
	struct launch l;
	json_t *step = json_pack("{s:i, s:i, s:[i], s:[s], s:s, s:i, s:s}", "step_id", 0, "node_id", 0,
				 "task_ids", 0, "argv", "true", "io_host", "h", "io_port", 9, "io_key", "k");

	build_step(&l, json_incref(step));
	assert_string_equal(l.step->step_nodes, "n[1-2]");    /* the job's */
	assert_string_equal(l.step->distribution, "block");
	assert_string_equal(l.step->cwd, "/home/alice");
	assert_int_equal(l.step->stdin_task, 0);
	assert_int_equal(l.step->time_limit, -1);
	assert_int_equal(l.step->step_num_tasks, 1);
	assert_string_equal(l.step->step_tasks_per_node, "1");
	launch_free(&l);

	static const struct { const char *key; json_t *(*value)(void); const char *text; } bad[] = {
		{ "task_ids", json_array, "launch: step.task_ids: expected a non-empty array of integers" },
		{ "io_port", json_null, "launch: step.io_port: expected integer" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *obj = json_loads(launch_json, 0, NULL), *s = json_deep_copy(step);
		json_object_set_new(s, bad[i].key, bad[i].value());
		json_object_set_new(obj, "step", s);
		assert_int_equal(launch_parse(obj, &l, &err), -1);
		assert_string_equal(err.text, bad[i].text);
		json_decref(obj);
	}
	json_t *obj = json_loads(launch_json, 0, NULL), *s = json_deep_copy(step);
	json_object_set_new(s, "io_port", json_integer(70000));
	json_object_set_new(obj, "step", s);
	assert_int_equal(launch_parse(obj, &l, &err), -1);
	assert_string_equal(err.text, "launch: step.io_port: out of range");
	json_decref(obj);
	json_decref(step);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_variables),
		cmocka_unit_test(test_array_and_dependency_variables),
		cmocka_unit_test(test_optional_variables),
		cmocka_unit_test(test_launch_rejects_bad_fields),
		cmocka_unit_test(test_step_variables),
		cmocka_unit_test(test_step_defaults_and_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
