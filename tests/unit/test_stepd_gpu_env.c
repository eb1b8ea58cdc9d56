/* herdstepd's GPU numbering (doc/gres.md section 3): --gpu-bind parsing, the
 * GPUs each task is bound to, and the variables of the batch shell and of
 * each task, from LAUNCH objects.  The stepd sources are compiled in. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stepd/env.c"
#include "stepd/launch.c"
#include "stepd/gpu_env.c"

static const char *launch_head =
	"{\"job_id\": 77, \"uid\": 1001, \"gid\": 1002, \"umask\": 18, \"user\": \"alice\","
	" \"name\": \"train\", \"partition\": \"debug\", \"account\": \"\", \"cluster\": \"c1\","
	" \"submit_host\": \"login1\", \"script\": \"#!/bin/sh\\ntrue\\n\", \"argv\": [],"
	" \"env\": [\"CUDA_VISIBLE_DEVICES=7\"], \"cwd\": \"/home/alice\", \"stdout\": \"\","
	" \"stderr\": \"\", \"stdin\": \"\", \"nodes\": \"n1\", \"num_nodes\": 1, \"ntasks\": 4,"
	" \"cpus_per_task\": 0, \"cpus_on_node\": 8, \"mem_mb\": 0, \"tasks_per_node\": \"4\","
	" \"time_limit\": 60, \"kill_wait\": 5, \"start_time\": 1000";

/* GPUs 1, 3, 4, 6 of the node: 1 and 3 near CPUs 0-3, 4 and 6 near 4-7. */
static const char *four_gpus =
	"[{\"name\": \"gpu\", \"type\": \"h100\", \"index\": 6, \"file\": \"/dev/nvidia6\", \"cores\": \"4-7\"},"
	" {\"name\": \"gpu\", \"type\": \"h100\", \"index\": 1, \"file\": \"/dev/nvidia1\", \"cores\": \"0-3\"},"
	" {\"name\": \"gpu\", \"type\": \"h100\", \"index\": 3, \"file\": \"/dev/nvidia3\", \"cores\": \"0-3\"},"
	" {\"name\": \"gpu\", \"type\": \"h100\", \"index\": 4, \"file\": \"/dev/nvidia4\", \"cores\": \"4-7\"}]";

/* Parse a LAUNCH: the head, "gres": job_gres (NULL none) and, when step is
 * given, "step": {the usual keys, plus step's text}. */
static int parse(const char *job_gres, const char *step, struct launch *l, struct herd_error *err)
{
	char *text = xasprintf("%s%s%s%s%s%s}", launch_head, job_gres ? ", \"gres\": " : "",
			       job_gres ? job_gres : "", step ? ", \"step\": {\"step_id\": 0, "
			       "\"node_id\": 0, \"task_ids\": [0, 1, 2, 3], \"argv\": [\"a\"], "
			       "\"io_host\": \"h\", \"io_port\": 9, \"io_key\": \"k\"" : "",
			       step ? step : "", step ? "}" : "");
	json_t *obj = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(obj);
	int rc = launch_parse(obj, l, err);
	json_decref(obj);
	return rc;
}

/* The value of key for task `local` of the step (NULL: unset). */
static char *task_var(const struct launch *l, bool constrained, int local, const cpu_set_t *cpus,
		      const char *key, char *warn)
{
	struct env e;
	struct env_node node = { "n1", NULL, NULL, NULL, constrained, NULL };
	char verbose[512];
	struct env_task t = { .local = local, .task_id = local, .cpus = cpus,
			      .gpu_verbose = verbose, .gpu_warning = warn };
	env_init(&e);
	env_step(&e, l, &node, &t);
	const char *v = env_get(&e, key);
	char *out = v ? xstrdup(v) : NULL;
	env_free(&e);
	return out;
}

static void expect_var(const struct launch *l, bool constrained, int local, const char *key,
		       const char *want)
{
	char warn[256] = "";
	char *got = task_var(l, constrained, local, NULL, key, warn);
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got ? got : "(unset)", want);
	free(got);
}

/* How many entries a comma list has. */
static int items(const char *list)
{
	int n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

static void test_bind_parse(void **state)
{
	static const struct {
		const char *spec;
		int ok, type, n;
		size_t nlist;
	} cases[] = {
		{ "", 1, GPU_BIND_DEFAULT, 0, 0 },
		{ "none", 1, GPU_BIND_NONE, 0, 0 },
		{ "closest", 1, GPU_BIND_CLOSEST, 0, 0 },
		{ "verbose,closest", 1, GPU_BIND_CLOSEST, 0, 0 },
		{ "single:2", 1, GPU_BIND_SINGLE, 2, 0 },
		{ "per_task:3", 1, GPU_BIND_PER_TASK, 3, 0 },
		{ "map_gpu:0,1,2", 1, GPU_BIND_MAP, 0, 3 },
		{ "map_gpu:0*4,1*4", 1, GPU_BIND_MAP, 0, 8 },
		{ "mask_gpu:0x3,0xc", 1, GPU_BIND_MASK, 0, 2 },
		{ "mask_gpu:f*2", 1, GPU_BIND_MASK, 0, 2 },
		{ "single:0", 0, 0, 0, 0 },
		{ "single:", 0, 0, 0, 0 },
		{ "single:x", 0, 0, 0, 0 },
		{ "per_task:-1", 0, 0, 0, 0 },
		{ "map_gpu:", 0, 0, 0, 0 },
		{ "map_gpu:a", 0, 0, 0, 0 },
		{ "map_gpu:-1", 0, 0, 0, 0 },
		{ "map_gpu:70000", 0, 0, 0, 0 },
		{ "map_gpu:0*99999999", 0, 0, 0, 0 },
		{ "map_gpu:0*4000,1*4000", 0, 0, 0, 0 },
		{ "mask_gpu:0", 0, 0, 0, 0 },
		{ "mask_gpu:0xzz", 0, 0, 0, 0 },
		{ "mask_gpu:0x10000000000000000", 0, 0, 0, 0 },
		{ "nearest", 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct gpu_bind b;
		struct herd_error err = { "" };
		int rc = gpu_bind_parse(cases[i].spec, &b, &err);
		if (!cases[i].ok) {
			if (rc != -1)
				fail_msg("%s: accepted", cases[i].spec);
			assert_non_null(strstr(err.text, "Invalid --gpu-bind argument"));
			continue;
		}
		if (rc != 0)
			fail_msg("%s: %s", cases[i].spec, err.text);
		assert_int_equal(b.type, cases[i].type);
		assert_int_equal(b.n, cases[i].n);
		assert_int_equal(b.nlist, cases[i].nlist);
		assert_int_equal(b.verbose, strncmp(cases[i].spec, "verbose", 7) == 0);
		gpu_bind_free(&b);
	}
}

/* The batch shell: SLURM_JOB_GPUS the global indices, CUDA_VISIBLE_DEVICES
 * the same or, under ConstrainDevices, 0..n-1; the submitter's value goes. */
static void test_batch(void **state)
{
	struct launch l;
	struct herd_error err;
	struct env e;
	assert_int_equal(parse(four_gpus, NULL, &l, &err), 0);
	for (int constrained = 0; constrained < 2; constrained++) {
		struct env_node node = { "n1", NULL, NULL, NULL, constrained, NULL };
		env_init(&e);
		env_batch(&e, &l, &node);
		assert_string_equal(env_get(&e, "SLURM_JOB_GPUS"), "1,3,4,6");
		assert_string_equal(env_get(&e, "SLURM_GPUS_ON_NODE"), "4");
		const char *vis = constrained ? "0,1,2,3" : "1,3,4,6";
		assert_string_equal(env_get(&e, "CUDA_VISIBLE_DEVICES"), vis);
		assert_string_equal(env_get(&e, "ROCR_VISIBLE_DEVICES"), vis);
		assert_string_equal(env_get(&e, "ZE_AFFINITY_MASK"), vis);
		assert_string_equal(env_get(&e, "GPU_DEVICE_ORDINAL"), vis);
		assert_null(env_get(&e, "SLURM_STEP_GPUS"));
		env_free(&e);
	}
	launch_free(&l);

	/* no GRES at all: the submitter's variable stays */
	assert_int_equal(parse(NULL, NULL, &l, &err), 0);
	struct env_node node = { "n1", NULL, NULL, NULL, true, NULL };
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_string_equal(env_get(&e, "CUDA_VISIBLE_DEVICES"), "7");
	assert_null(env_get(&e, "SLURM_JOB_GPUS"));
	env_free(&e);
	launch_free(&l);
}

/* gres.conf(5) Flags: only the variables named; no_gpu_env none. */
static void test_flags(void **state)
{
	struct launch l;
	struct herd_error err;
	assert_int_equal(parse("[{\"name\": \"gpu\", \"index\": 2, \"flags\": \"amd_gpu_env\"},"
			       " {\"name\": \"gpu\", \"index\": 5, \"flags\": [\"nvidia_gpu_env\", \"opencl_env\"]}]",
			       "", &l, &err), 0);
	expect_var(&l, false, 0, "ROCR_VISIBLE_DEVICES", "2");
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "5");
	expect_var(&l, false, 0, "GPU_DEVICE_ORDINAL", "5");
	expect_var(&l, false, 0, "ZE_AFFINITY_MASK", NULL);
	expect_var(&l, true, 0, "CUDA_VISIBLE_DEVICES", "1");   /* the step's second GPU */
	expect_var(&l, false, 0, "SLURM_STEP_GPUS", "2,5");   /* unbound: the step's */
	launch_free(&l);
	/* section 1's records: GRES_F_* bits (common/gres.h) */
	char *bits = xasprintf("[{\"name\": \"gpu\", \"index\": 2, \"flags\": %d},"
			       " {\"name\": \"gpu\", \"index\": 5, \"flags\": %d}]",
			       GRES_F_AMD_GPU_ENV | GRES_F_COUNT_ONLY,
			       GRES_F_NVIDIA_GPU_ENV | GRES_F_OPENCL_ENV);
	assert_int_equal(parse(bits, "", &l, &err), 0);
	free(bits);
	expect_var(&l, false, 0, "ROCR_VISIBLE_DEVICES", "2");
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "5");
	expect_var(&l, false, 0, "GPU_DEVICE_ORDINAL", "5");
	expect_var(&l, false, 0, "ZE_AFFINITY_MASK", NULL);
	launch_free(&l);
	assert_int_equal(parse("[{\"name\": \"gpu\", \"index\": 2, \"flags\": \"no_gpu_env\"}]", "",
			       &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", NULL);   /* srun's "7" removed too */
	expect_var(&l, false, 0, "SLURM_STEP_GPUS", "2");
	expect_var(&l, false, 0, "SLURM_GPUS_ON_NODE", "1");
	launch_free(&l);
}

/* The matrix: --gpu-bind / --gpus-per-task against each task's
 * CUDA_VISIBLE_DEVICES, unconstrained (global) and constrained (local). */
static void test_task_matrix(void **state)
{
	static const struct {
		const char *step;           /* extra step keys */
		const char *global[4];      /* tasks 0-3, no ConstrainDevices */
		const char *local[4];       /* with it */
	} cases[] = {
		{ "", { "1,3,4,6", "1,3,4,6", "1,3,4,6", "1,3,4,6" },
		      { "0,1,2,3", "0,1,2,3", "0,1,2,3", "0,1,2,3" } },
		{ ", \"gpu_bind\": \"none\"", { "1,3,4,6", "1,3,4,6", "1,3,4,6", "1,3,4,6" },
		      { "0,1,2,3", "0,1,2,3", "0,1,2,3", "0,1,2,3" } },
		{ ", \"gpus_per_task\": 1", { "1", "3", "4", "6" }, { "0", "0", "0", "0" } },
		{ ", \"gpus_per_task\": 2", { "1,3", "4,6", "1,3", "4,6" },
		      { "0,1", "0,1", "0,1", "0,1" } },
		{ ", \"gpus_per_task\": 1, \"gpu_bind\": \"none\"",
		      { "1,3,4,6", "1,3,4,6", "1,3,4,6", "1,3,4,6" },
		      { "0,1,2,3", "0,1,2,3", "0,1,2,3", "0,1,2,3" } },
		{ ", \"gpu_bind\": \"per_task:1\"", { "1", "3", "4", "6" }, { "0", "0", "0", "0" } },
		{ ", \"gpu_bind\": \"single:1\"", { "1", "3", "4", "6" }, { "0", "0", "0", "0" } },
		{ ", \"gpu_bind\": \"single:2\"", { "1", "1", "3", "3" }, { "0", "0", "0", "0" } },
		/* map_gpu: global IDs unconstrained, positions constrained (the
		 * task's own GPUs are test_task_files') */
		{ ", \"gpu_bind\": \"map_gpu:6,4,3,1\"", { "6", "4", "3", "1" },
		      { "0", "0", "0", "0" } },   /* one GPU each: its cgroup shows it as 0 */
		{ ", \"gpu_bind\": \"map_gpu:3,2,1,0\"", { "3", "1", "1", "1" },
		      { "0", "0", "0", "0" } },
		{ ", \"gpu_bind\": \"map_gpu:1*2,3\"", { "1", "1", "3", "1" }, { "0", "0", "0", "0" } },
		/* mask_gpu: bit i = ID i */
		{ ", \"gpu_bind\": \"mask_gpu:0x0a,0x50\"", { "1,3", "4,6", "1,3", "4,6" },
		      { "0,1", "0", "0,1", "0" } },
		{ ", \"gpu_bind\": \"verbose,mask_gpu:0x3\"", { "1", "1", "1", "1" },
		      { "0,1", "0,1", "0,1", "0,1" } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct launch l;
		struct herd_error err;
		if (parse(four_gpus, cases[c].step, &l, &err) < 0)
			fail_msg("case %zu: %s", c, err.text);
		for (int constrained = 0; constrained < 2; constrained++)
			for (int task = 0; task < 4; task++) {
				char warn[256] = "";
				char *got = task_var(&l, constrained, task, NULL, "CUDA_VISIBLE_DEVICES",
						     warn);
				const char *want = constrained ? cases[c].local[task] : cases[c].global[task];
				if (!got || strcmp(got, want))
					fail_msg("case %zu (%s) task %d%s: got %s, want %s", c,
						 cases[c].step, task, constrained ? " constrained" : "",
						 got ? got : "(unset)", want);
				free(got);
				/* the task's GPUs, globally: unconstrained, what
				 * CUDA_VISIBLE_DEVICES says; constrained, as many */
				got = task_var(&l, constrained, task, NULL, "SLURM_STEP_GPUS", warn);
				if (!constrained)
					assert_string_equal(got, cases[c].global[task]);
				else
					assert_int_equal(items(got), items(want));
				free(got);
			}
		launch_free(&l);
	}
}

/* Under ConstrainDevices a bound task's cgroup gets its own GPUs' files:
 * map_gpu's IDs are then positions among the step's GPUs. */
static void test_task_files(void **state)
{
	struct launch l;
	struct herd_error err;
	size_t n;
	assert_int_equal(parse(four_gpus, ", \"gpu_bind\": \"map_gpu:3,0\"", &l, &err), 0);
	char **f = gpu_task_dev_files(&l, true, 0, NULL, &n);
	assert_int_equal(n, 5);   /* its GPU and NVIDIA's shared files */
	assert_string_equal(f[0], "/dev/nvidia6");
	assert_string_equal(f[1], "/dev/nvidiactl");
	gpu_dev_files_free(f, n);
	f = gpu_task_dev_files(&l, true, 1, NULL, &n);
	assert_string_equal(f[0], "/dev/nvidia1");
	gpu_dev_files_free(f, n);
	assert_null(gpu_task_dev_files(&l, false, 1, NULL, &n));   /* not constrained */
	launch_free(&l);
	assert_int_equal(parse(four_gpus, "", &l, &err), 0);
	assert_null(gpu_task_dev_files(&l, true, 1, NULL, &n));    /* all the step's */
	assert_int_equal(n, 0);
	launch_free(&l);
	assert_int_equal(parse("[{\"name\": \"gpu\", \"index\": 0, \"file\": \"/dev/dri/card0,/dev/dri/renderD128\"}]",
			       "", &l, &err), 0);
	f = gpu_dev_files(l.gres, l.ngres, &n);
	assert_int_equal(n, 3);
	assert_string_equal(f[1], "/dev/dri/renderD128");
	assert_string_equal(f[2], "/dev/kfd");
	gpu_dev_files_free(f, n);
	launch_free(&l);
}

/* closest and single:N with the task's CPUs: the GPUs whose Cores meet them. */
static void test_closest(void **state)
{
	struct launch l;
	struct herd_error err;
	cpu_set_t low, high, none;
	char warn[256];
	CPU_ZERO(&low);
	CPU_ZERO(&high);
	CPU_ZERO(&none);
	CPU_SET(1, &low);
	CPU_SET(6, &high);
	CPU_SET(40, &none);
	assert_int_equal(parse(four_gpus, ", \"gpu_bind\": \"closest\"", &l, &err), 0);
	char *v = task_var(&l, false, 0, &low, "CUDA_VISIBLE_DEVICES", warn);
	assert_string_equal(v, "1,3");
	free(v);
	v = task_var(&l, true, 1, &high, "CUDA_VISIBLE_DEVICES", warn);
	assert_string_equal(v, "0,1");
	free(v);
	v = task_var(&l, false, 2, &none, "CUDA_VISIBLE_DEVICES", warn);   /* near none: all */
	assert_string_equal(v, "1,3,4,6");
	free(v);
	launch_free(&l);
	assert_int_equal(parse(four_gpus, ", \"gpu_bind\": \"single:1\"", &l, &err), 0);
	v = task_var(&l, false, 0, &high, "CUDA_VISIBLE_DEVICES", warn);
	assert_string_equal(v, "4");
	free(v);
	v = task_var(&l, false, 1, &high, "CUDA_VISIBLE_DEVICES", warn);
	assert_string_equal(v, "6");
	free(v);
	v = task_var(&l, false, 2, &high, "CUDA_VISIBLE_DEVICES", warn);   /* wraps */
	assert_string_equal(v, "4");
	free(v);
	launch_free(&l);
}

/* A map naming no GPU of the step: the first, with Slurm's sentence; one
 * task: no binding; the verbose line. */
static void test_bind_edges(void **state)
{
	struct launch l;
	struct herd_error err;
	char warn[256] = "";
	assert_int_equal(parse(four_gpus, ", \"gpu_bind\": \"verbose,map_gpu:9\"", &l, &err), 0);
	char *v = task_var(&l, false, 2, NULL, "CUDA_VISIBLE_DEVICES", warn);
	assert_string_equal(v, "1");
	free(v);
	assert_string_equal(warn, "Bind request gpu:verbose,map_gpu:9 does not specify any devices within the "
			    "allocation for task 2. Binding to the first device in the allocation "
			    "instead.");
	struct env e;
	struct env_node node = { "n1", NULL, NULL, NULL, true, NULL };
	char verbose[512] = "";
	struct env_task t = { .local = 1, .task_id = 5, .gpu_verbose = verbose };
	env_init(&e);
	env_step(&e, &l, &node, &t);
	env_free(&e);
	assert_string_equal(verbose, "gpu-bind: task 5 (local 1): GPUs 1 of the step's 1,3,4,6: "
			    "CUDA_VISIBLE_DEVICES=0\n");
	launch_free(&l);
	assert_int_equal(parse(four_gpus, ", \"gpus_per_task\": 1, \"step_num_tasks\": 1", &l,
			       &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "1,3,4,6");   /* one task: unbound */
	launch_free(&l);
}

/* The step's own GRES: a subset, its numbering; none in a GPU job: the
 * variables srun carried are removed. */
static void test_step_gres(void **state)
{
	struct launch l;
	struct herd_error err;
	assert_int_equal(parse(four_gpus, ", \"gres\": [{\"name\": \"gpu\", \"index\": 4}, "
			       "{\"name\": \"gpu\", \"index\": 3}]", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "3,4");
	expect_var(&l, true, 0, "CUDA_VISIBLE_DEVICES", "0,1");
	expect_var(&l, false, 0, "SLURM_STEP_GPUS", "3,4");
	expect_var(&l, false, 0, "SLURM_GPUS_ON_NODE", "2");
	expect_var(&l, false, 0, "SLURM_JOB_GPUS", NULL);
	launch_free(&l);
	assert_int_equal(parse(four_gpus, ", \"gres\": []", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", NULL);
	expect_var(&l, false, 0, "SLURM_STEP_GPUS", NULL);
	launch_free(&l);
	assert_int_equal(parse(four_gpus, ", \"gres\": [{\"name\": \"gpu\", \"index\": 2}]", &l,
			       &err), -1);
	assert_string_equal(err.text, "launch: step.gres[0]: gpu 2 is not the job's");
	/* no GRES anywhere: srun's variable stays */
	assert_int_equal(parse(NULL, ", \"env\": [\"CUDA_VISIBLE_DEVICES=5\"]", &l, &err), 0);
	expect_var(&l, true, 0, "CUDA_VISIBLE_DEVICES", "5");
	launch_free(&l);
}

/* Shares: MPS gives the GPU and its thread percentage, shards the GPU and
 * SLURM_SHARDS_ON_NODE. */
static void test_shares(void **state)
{
	struct launch l;
	struct herd_error err;
	assert_int_equal(parse("[{\"name\": \"mps\", \"index\": 2, \"count\": 25, \"total\": 100,"
			       " \"file\": \"/dev/nvidia2\"}]", "", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "2");
	expect_var(&l, true, 0, "CUDA_VISIBLE_DEVICES", "0");
	expect_var(&l, false, 0, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25");
	launch_free(&l);
	assert_int_equal(parse("[{\"name\": \"shard\", \"index\": 1, \"count\": 3},"
			       " {\"name\": \"shard\", \"index\": 1, \"count\": 2}]", "", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "1");
	expect_var(&l, false, 0, "SLURM_SHARDS_ON_NODE", "5");
	expect_var(&l, false, 0, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", NULL);
	launch_free(&l);

	/* Slurm's shard and mps plugins set their variables whatever the gpu
	 * plugin does: a whole GPU and shards (the batch shell, an unbound
	 * task, a bound one) */
	assert_int_equal(parse("[{\"name\": \"gpu\", \"index\": 1}, {\"name\": \"gpu\", \"index\": 2},"
			       " {\"name\": \"shard\", \"index\": 3, \"count\": 4}]",
			       ", \"gpus_per_task\": 1", &l, &err), 0);
	expect_var(&l, false, 1, "CUDA_VISIBLE_DEVICES", "2");
	expect_var(&l, false, 1, "SLURM_GPUS_ON_NODE", "2");
	expect_var(&l, false, 1, "SLURM_SHARDS_ON_NODE", "4");
	struct env e;
	struct env_node node = { "n1", NULL, NULL, NULL, false, NULL };
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_string_equal(env_get(&e, "SLURM_JOB_GPUS"), "1,2");
	assert_string_equal(env_get(&e, "SLURM_SHARDS_ON_NODE"), "4");
	env_free(&e);
	launch_free(&l);
	/* a step without the shards in a job with them: not the step's */
	assert_int_equal(parse("[{\"name\": \"gpu\", \"index\": 1},"
			       " {\"name\": \"shard\", \"index\": 3, \"count\": 4}]",
			       ", \"gres\": [{\"name\": \"gpu\", \"index\": 1}]", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "1");
	expect_var(&l, false, 0, "SLURM_SHARDS_ON_NODE", NULL);
	launch_free(&l);
	/* mps on two GPUs: the lowest one's share (the GPU whose daemon the
	 * process uses), whatever the order of the records */
	assert_int_equal(parse("[{\"name\": \"mps\", \"index\": 5, \"count\": 10, \"total\": 100},"
			       " {\"name\": \"mps\", \"index\": 2, \"count\": 50, \"total\": 200}]",
			       "", &l, &err), 0);
	expect_var(&l, false, 0, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25");
	expect_var(&l, false, 0, "CUDA_VISIBLE_DEVICES", "2,5");
	launch_free(&l);
}

/* doc/gres.md section 4: the MPS directories of the job's daemon for the
 * lowest mps GPU of the process, when herdd made them (SlurmdSpoolDir/
 * mps00077.G); none without them, nor for a process without mps. */
static void test_mps_dirs(void **state)
{
	char spool[] = "/tmp/herd-gpu-env-XXXXXX", *dir;
	struct launch l;
	struct herd_error err;
	struct env e;
	struct env_node node = { "n1", NULL, NULL, NULL, false, spool };
	struct env_task t = { .local = 0, .task_id = 0 };
	const char *mps = "[{\"name\": \"mps\", \"index\": 5, \"count\": 10, \"total\": 100},"
			  " {\"name\": \"mps\", \"index\": 2, \"count\": 25, \"total\": 100}]";

	assert_non_null(mkdtemp(spool));
	assert_int_equal(parse(mps, "", &l, &err), 0);
	assert_int_equal(gpu_mps_gpu(l.gres, l.ngres), 2);
	assert_int_equal(gpu_mps_gpu(l.gres, 0), -1);
	/* no directory: herdd started no daemon (no program): no variable,
	 * the global indices */
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_null(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"));
	assert_string_equal(env_get(&e, "CUDA_VISIBLE_DEVICES"), "2,5");
	env_free(&e);
	/* a link in its place is not the directory */
	dir = xasprintf("%s/mps00077.2", spool);
	assert_int_equal(symlink("/tmp", dir), 0);
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_null(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"));
	env_free(&e);
	assert_int_equal(unlink(dir), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	char *pipe = xasprintf("%s/pipe", dir), *log = xasprintf("%s/log", dir);
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_string_equal(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"), pipe);
	assert_string_equal(env_get(&e, "CUDA_MPS_LOG_DIRECTORY"), log);
	/* the daemon's server numbers its one GPU 0; the others keep theirs */
	assert_string_equal(env_get(&e, "CUDA_VISIBLE_DEVICES"), "0");
	assert_string_equal(env_get(&e, "ROCR_VISIBLE_DEVICES"), "2,5");
	env_free(&e);
	env_init(&e);
	env_step(&e, &l, &node, &t);
	assert_string_equal(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"), pipe);
	/* the percentage is the share of that same GPU (2's 25 of 100), not of
	 * the first record's (5's 10) */
	assert_string_equal(env_get(&e, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), "25");
	env_free(&e);
	launch_free(&l);
	/* a step with the GPU 5 share only: GPU 5's daemon, not there */
	assert_int_equal(parse(mps, ", \"gres\": [{\"name\": \"mps\", \"index\": 5}]", &l, &err), 0);
	env_init(&e);
	env_step(&e, &l, &node, &t);
	assert_null(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"));
	env_free(&e);
	launch_free(&l);
	/* no spool known (unit callers): nothing */
	assert_int_equal(parse(mps, NULL, &l, &err), 0);
	node.spool = NULL;
	env_init(&e);
	env_batch(&e, &l, &node);
	assert_null(env_get(&e, "CUDA_MPS_PIPE_DIRECTORY"));
	env_free(&e);
	launch_free(&l);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(rmdir(spool), 0);
	free(pipe);
	free(log);
	free(dir);
}

/* Hostile or malformed records are refused with a sentence, never a crash. */
static void test_refusals(void **state)
{
	static const struct {
		const char *gres, *step, *why;
	} cases[] = {
		{ "{}", NULL, "launch: gres: expected an array of at most 1024 records" },
		{ "[1]", NULL, "launch: gres[0]: expected an object" },
		{ "[{\"index\": 0}]", NULL, "launch: gres[0]: name: expected a string" },
		{ "[{\"name\": \"g/pu\", \"index\": 0}]", NULL, "launch: gres[0]: name: not a GRES name" },
		{ "[{\"name\": \"gpu\"}]", NULL, "launch: gres[0]: index: expected integer" },
		{ "[{\"name\": \"gpu\", \"index\": -1}]", NULL, "launch: gres[0]: index/count/total: out of range" },
		{ "[{\"name\": \"gpu\", \"index\": 99999}]", NULL, "launch: gres[0]: index/count/total: out of range" },
		{ "[{\"name\": \"gpu\", \"index\": 0, \"count\": -5}]", NULL, "launch: gres[0]: index/count/total: out of range" },
		{ "[{\"name\": \"gpu\", \"index\": 0, \"file\": 5}]", NULL, "launch: gres[0]: file: expected a string" },
		{ "[{\"name\": \"gpu\", \"index\": 0}, {\"name\": \"gpu\", \"index\": 0}]", NULL, "launch: gres[1]: GPU 0 given twice" },
		{ "[{\"name\": \"gpu\", \"index\": 0, \"flags\": [1]}]", NULL, "launch: gres[0]: flags[0]: expected a flag name" },
		{ "[{\"name\": \"gpu\", \"index\": 0, \"flags\": -1}]", NULL, "launch: gres[0]: flags: out of range" },
		{ "[]", ", \"gpu_bind\": \"map_gpu:x\"", "launch: step.gpu_bind: Invalid --gpu-bind argument: map_gpu:x" },
		{ "[]", ", \"gpus_per_task\": -1", "launch: step.gpus_per_task: out of range" },
		{ "[]", ", \"gpus_per_task\": \"1\"", "launch: step.gpus_per_task: expected integer" },
		{ "[]", ", \"gpu_bind\": 3", "launch: step.gpu_bind: expected string" },
		{ "[]", ", \"gres\": {}", "launch: step.gres: expected an array of at most 1024 records" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct launch l;
		struct herd_error err = { "" };
		if (parse(cases[i].gres, cases[i].step, &l, &err) != -1)
			fail_msg("case %zu accepted", i);
		if (strncmp(err.text, cases[i].why, strlen(cases[i].why)))
			fail_msg("case %zu: %s", i, err.text);
	}
	/* too many records */
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "[");
	for (int i = 0; i <= LAUNCH_GRES_MAX; i++) {
		char rec[64];
		snprintf(rec, sizeof(rec), "%s{\"name\": \"gpu\", \"index\": %d}", i ? "," : "", i);
		strbuf_adds(&sb, rec);
	}
	strbuf_adds(&sb, "]");
	struct launch l;
	struct herd_error err;
	assert_int_equal(parse(sb.s, NULL, &l, &err), -1);
	free(sb.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_parse),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_task_matrix),
		cmocka_unit_test(test_task_files),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_bind_edges),
		cmocka_unit_test(test_step_gres),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_mps_dirs),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
