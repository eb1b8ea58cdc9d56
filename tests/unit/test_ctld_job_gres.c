/* core/job_gres.c: a job's GRES request read from its JOBSPEC (what is
 * refused, --ntasks-per-gpu's derived tasks or GPUs, --gpus as the job's
 * total), the devices picked at the start (lowest free index first), and
 * the strings scontrol shows.  Two nodes of 4 CPUs and 2 h100 each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/bitmap.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static char dir[] = "/tmp/herd-test-job-gres-XXXXXX";

static int setup(void **state)
{
	struct herd_error err;
	char path[128];

	log_init("test", LOG_LVL_ERROR, NULL);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/herd.conf", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "ClusterName=t\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=1\n"
		   "GresTypes=gpu\nAccountingStorageTRES=gres/gpu,gres/gpu:h100\n"
		   "NodeName=n[1-2] NodeAddr=127.0.0.1 Port=2 CPUs=4 RealMemory=1000 "
		   "Gres=gpu:h100:2\n"
		   "PartitionName=p Nodes=n[1-2] Default=YES\n");
	fclose(f);
	core.conf = conf_load(path, &err);
	assert_non_null(core.conf);
	core.cluster = "t";
	node_setup();
	part_setup();
	/* each herdd's registration: two devices, GPU 1 close to CPUs 2-3 */
	json_t *devs = json_loads("[{\"name\": \"gpu\", \"type\": \"h100\", \"index\": 0, "
				  "\"file\": \"/dev/nvidia0\", \"cores\": \"0-1\", \"links\": \"\", \"count\": 1},"
				  " {\"name\": \"gpu\", \"type\": \"h100\", \"index\": 1, "
				  "\"file\": \"/dev/nvidia1\", \"cores\": \"2-3\", \"links\": \"\", \"count\": 1}]",
				  0, NULL);
	assert_non_null(devs);
	for (int i = 0; i < core.nnodes; i++)
		node_gres_report(&core.nodes[i], devs);
	json_decref(devs);
	return 0;
}

static int teardown(void **state)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/herd.conf", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

/* A job read from spec (JSON text); rc is job_gres_set's. */
static struct job *job_of(const char *spec_text, int nodes, int ntasks, int *rc,
			  struct herd_error *err)
{
	struct job *job = xmalloc(sizeof(*job));
	json_t *spec = json_loads(spec_text, 0, NULL);
	assert_non_null(spec);
	job->req_nodes = nodes;
	job->ntasks = ntasks;
	*rc = job_gres_set(job, spec, err);
	json_decref(spec);
	return job;
}

static void done(struct job *job)
{
	job_alloc_clear(job);
	job_destroy(job);
}

static void request_read_and_refused(void **state)
{
	static const struct {
		const char *spec;
		int nodes, ntasks, rc;
		int64_t gpus;       /* job_gres_count while pending */
		uint32_t tasks;     /* job->ntasks after */
		const char *err;    /* a prefix of the sentence */
	} cases[] = {
		{ "{\"tres_per_node\": \"gres/gpu:1\"}", 1, 0, 0, 1, 0, NULL },
		{ "{\"tres_per_node\": \"gres/gpu:2\"}", 2, 0, 0, 4, 0, NULL },
		{ "{\"tres_per_task\": \"gres/gpu:1\"}", 1, 3, 0, 3, 3, NULL },
		{ "{\"tres_per_job\": \"gres/gpu:h100:3\"}", 0, 0, 0, 3, 0, NULL },
		/* --gpus is the job's total, at least what per node/task ask */
		{ "{\"tres_per_job\": \"gres/gpu:2\", \"tres_per_node\": \"gres/gpu:1\"}", 2, 0, 0, 2, 0,
		  NULL },
		{ "{\"tres_per_job\": \"gres/gpu:1\", \"tres_per_task\": \"gres/gpu:1\"}", 1, 2, 0, 2, 2,
		  NULL },
		/* no node has a100: taken, never fits (Requested node configuration
		 * is not available, the submission's check), as Slurm 22.05 */
		{ "{\"tres_per_node\": \"gres/gpu:a100:1\"}", 1, 0, 0, 1, 0, NULL },
		{ "{\"tres_per_node\": \"gres/fpga:1\"}", 1, 0, HERD_ERR_INVALID_GRES, 0, 0,
		  "Invalid generic resource" },
		{ "{\"tres_per_node\": \"gres/gpu:1\", \"gres_flags\": \"bogus\"}", 1, 0,
		  HERD_ERR_INVALID_GRES, 0, 0, "Invalid generic resource" },
		{ "{\"tres_per_socket\": \"gres/gpu:1\"}", 1, 0, HERD_ERR_INVALID_GRES, 0, 0,
		  "--gpus-per-socket option requires --sockets-per-node" },
		/* --ntasks-per-gpu: tasks from GPUs, GPUs from tasks */
		{ "{\"tres_per_job\": \"gres/gpu:2\", \"ntasks_per_gpu\": 2}", 0, 0, 0, 2, 4, NULL },
		{ "{\"tres_per_node\": \"gres/gpu:1\", \"ntasks_per_gpu\": 3}", 2, 0, 0, 2, 6, NULL },
		{ "{\"ntasks_per_gpu\": 2}", 1, 3, 0, 2, 3, NULL },
		{ "{\"ntasks_per_gpu\": 2}", 1, 0, 0, 1, 0, NULL },
		{ "{\"tres_per_job\": \"gres/gpu:4\", \"ntasks_per_gpu\": 2}", 0, 3, 0, 4, 3, NULL },
		{ "{\"tres_per_task\": \"gres/gpu:1\", \"ntasks_per_gpu\": 1}", 1, 1,
		  HERD_ERR_INVALID_GRES, 0, 0, "--ntasks-per-gpu is not compatible" },
		{ "{\"tres_per_job\": \"gres/gpu:1\", \"ntasks_per_gpu\": 1, \"ntasks_per_node\": 1}",
		  1, 0, HERD_ERR_INVALID_GRES, 0, 0, "--ntasks-per-gpu is not compatible" },
		{ "{\"ntasks_per_gpu\": 1, \"ntasks_per_node\": 2}", 1, 2, HERD_ERR_INVALID_GRES, 0, 0,
		  "--ntasks-per-gpu is not compatible" },
		/* 2^20 GPUs x 1000 tasks each: over the tasks' bound, no overflow */
		{ "{\"tres_per_job\": \"gres/gpu:1048576\", \"ntasks_per_gpu\": 1000}", 0, 0,
		  HERD_ERR_INVALID_GRES, 0, 0, "Invalid generic resource" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct herd_error err = { "" };
		int rc;
		struct job *job = job_of(cases[i].spec, cases[i].nodes, cases[i].ntasks, &rc, &err);
		if (rc != cases[i].rc)
			fail_msg("case %zu (%s): rc %d (%s), not %d", i, cases[i].spec, rc, err.text,
				 cases[i].rc);
		if (cases[i].err && strncmp(err.text, cases[i].err, strlen(cases[i].err)))
			fail_msg("case %zu: \"%s\"", i, err.text);
		if (!rc) {
			assert_int_equal(job_gres_count(job, "gpu"), cases[i].gpus);
			assert_int_equal(job->ntasks, cases[i].tasks);
		}
		done(job);
	}
}

/* --ntasks-per-gpu with tasks only: the GPUs are kept in tres_per_job,
 * which is what a restart reads again. */
static void ntasks_per_gpu_kept(void **state)
{
	struct herd_error err;
	int rc;
	struct job *job = job_of("{\"tres_per_job\": \"gres/shard:1\", \"ntasks_per_gpu\": 4}", 1, 5,
				 &rc, &err);
	assert_int_equal(rc, HERD_ERR_INVALID_GRES);   /* GresTypes has no shard */
	done(job);
	job = job_of("{\"ntasks_per_gpu\": 4}", 1, 5, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(job->tres_per_job, "gres/gpu:2");
	job_gres_load(job);
	assert_int_equal(job->ngres, 1);
	assert_int_equal(job->gres[0].per_job, 2);
	char *shown = job_gres_shown(job->tres_per_job);
	assert_string_equal(shown, "gres:gpu:2");
	free(shown);
	done(job);
}

/* Pending, TRES= is the request: typed ones under their name too. */
static void pending_tres(void **state)
{
	struct herd_error err;
	int rc;
	struct job *job = job_of("{\"tres_per_node\": \"gres/gpu:h100:1\", "
				 "\"tres_per_job\": \"gres/gpu:3\"}", 2, 0, &rc, &err);
	assert_int_equal(rc, 0);
	char *s = job_gres_alloc_string(job);
	assert_string_equal(s, "gres/gpu=5,gres/gpu:h100=2");
	free(s);
	done(job);
	job = job_of("{}", 1, 0, &rc, &err);
	assert_null(job_gres_alloc_string(job));
	done(job);
}

/* Lowest free index first; what is held is not picked again; the strings
 * scontrol shows. */
static void picked_lowest_first(void **state)
{
	struct herd_error err;
	int rc, node[] = { 0, 1 };
	uint32_t one[] = { 1, 1 }, two[] = { 2, 0 };
	struct job *a = job_of("{\"tres_per_node\": \"gres/gpu:1\"}", 2, 0, &rc, &err);
	assert_int_equal(rc, 0);
	assert_true(job_gres_pick(a, node, NULL, 2, one, true));
	a->nalloc = 2;
	a->alloc_node = xmalloc(2 * sizeof(int));
	a->alloc_cpus = xmalloc(2 * sizeof(int));
	memcpy(a->alloc_node, node, sizeof(node));
	a->alloc_cpus[0] = a->alloc_cpus[1] = 1;
	node_alloc(a);
	char *s = job_gres_node_string(a, 1);
	assert_string_equal(s, "gpu:h100:1(IDX:0)");
	free(s);
	/* the node's TRES (scontrol show node CfgTRES=, AllocTRES=) */
	json_t *o = json_object();
	node_gres_json(&core.nodes[0], o);
	assert_string_equal(json_string_value(json_object_get(o, "gres_tres")),
			    "gres/gpu=2,gres/gpu:h100=2");
	assert_string_equal(json_string_value(json_object_get(o, "gres_tres_used")),
			    "gres/gpu=1,gres/gpu:h100=1");
	json_decref(o);
	s = job_gres_alloc_string(a);
	assert_string_equal(s, "gres/gpu=2,gres/gpu:h100=2");
	free(s);
	assert_int_equal(job_gres_count(a, "gpu"), 2);
	assert_int_equal(job_node_gpus(a, 0), 1);

	/* two on n1: only GPU 1 is free there */
	struct job *b = job_of("{\"tres_per_job\": \"gres/gpu:2\"}", 1, 0, &rc, &err);
	assert_int_equal(rc, 0);
	assert_false(job_gres_pick(b, node, NULL, 2, two, false));
	uint32_t spread[] = { 1, 1 };
	assert_true(job_gres_pick(b, node, NULL, 2, spread, true));
	s = job_gres_node_string(b, 0);
	assert_string_equal(s, "gpu:h100:1(IDX:1)");
	free(s);
	/* the CPUs: near each one's GPU (Cores=) */
	b->nalloc = 2;
	b->alloc_node = xmalloc(2 * sizeof(int));
	b->alloc_cpus = xmalloc(2 * sizeof(int));
	memcpy(b->alloc_node, node, sizeof(node));
	b->alloc_cpus[0] = b->alloc_cpus[1] = 1;
	node_alloc(b);
	s = bitmap_fmt_ranges(a->alloc_cpuset[0]);
	assert_string_equal(s, "0");
	free(s);
	s = bitmap_fmt_ranges(b->alloc_cpuset[0]);
	assert_string_equal(s, "2");
	free(s);
	node_free(b);
	json_t *launch = job_gres_launch(a, 0);
	assert_int_equal(json_array_size(launch), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(launch, 0), "index")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(launch, 0), "total")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(launch, 0), "file")),
			    "/dev/nvidia0");
	json_decref(launch);
	node_free(a);
	done(a);
	done(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_read_and_refused),
		cmocka_unit_test(ntasks_per_gpu_kept),
		cmocka_unit_test(pending_tres),
		cmocka_unit_test(picked_lowest_first),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
