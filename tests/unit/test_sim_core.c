/* `herd sim --policy slurm` (herd/sim_core.c, sim_assoc.c): a trace line's
 * partition (queue, partition, out of range), the fictional users' names,
 * the replay's counts of busy CPUs and queued jobs through a preemption
 * that requeues a job, and the trace's users as associations (an existing
 * user keeps its own). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "acct/assoc.h"
#include "ctld/ctld.h"
#include "herd/sim.h"
#include "herd/sim_core.h"

static struct conf *conf_of(const char *text)
{
	char path[] = "/tmp/test-sim-core-XXXXXX";
	int fd = mkstemp(path);
	struct herd_error err;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct conf *c = conf_load(path, &err);
	unlink(path);
	assert_non_null(c);
	return c;
}

static void partitions(void **state)
{
	struct conf *c = conf_of("ClusterName=t\nSlurmctldHost=localhost\nNodeName=n1 CPUs=1\n"
				 "PartitionName=a Nodes=ALL\nPartitionName=b Nodes=ALL Default=YES\n");
	static const struct { long queue, partition; const char *want; } cases[] = {
		{ 1, -1, "a" }, { 2, -1, "b" }, { 2, 1, "b" },   /* queue first */
		{ -1, 1, "a" }, { 0, 2, "b" },                    /* no queue: the partition */
		{ 3, 1, "" }, { -1, 3, "" }, { -1, -1, "" }, { 0, 0, "" },   /* the default */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct swf_job j = { .queue = cases[i].queue, .partition = cases[i].partition };
		assert_string_equal(sim_swf_partition(&j, c), cases[i].want);
	}
	struct swf_job j = { .queue = 1, .partition = 1 };
	assert_string_equal(sim_swf_partition(&j, NULL), "");
	conf_destroy(c);
}

static void fictional_names(void **state)
{
	names_fictional(SIM_FIRST_ID);
	assert_string_equal(names_user(SIM_FIRST_ID + 7), "u7");
	assert_string_equal(names_group(SIM_FIRST_ID + 3), "g3");
	assert_string_equal(names_user(SIM_FIRST_ID), "u0");
	assert_string_equal(names_user(0), "root");   /* below: the name service */
	names_fictional(0);
	assert_string_not_equal(names_user(SIM_FIRST_ID + 7), "u7");
}

/* Job 1 (low, 2 CPUs, 100 s) from 0; job 2 (high) at 10 requeues it and
 * runs to 60; 1 runs again 60-160; job 3 (1 CPU) 160-190. */
static const char *const preempt_trace[] = {
	"1  0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1  1 -1 -1 -1",
	"2 10 -1  50 2 -1 -1 2  50 -1 1 2 2 -1  2 -1 -1 -1",
	"3 20 -1  30 1 -1 -1 1  30 -1 1 3 3 -1 -1  1 -1 -1",
};

static void requeue_counts(void **state)
{
	struct swf_trace trace = { .jobs = calloc(3, sizeof(struct swf_job)), .njobs = 3 };
	struct herd_error err = { "" };
	struct sim_result res = { 0 };
	size_t n;
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(swf_parse_line(preempt_trace[i], &trace.jobs[i], NULL, &err), 1);
	struct conf *c = conf_of("ClusterName=t\nSlurmctldHost=localhost\n"
				 "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"
				 "NodeName=n1 CPUs=2\n"
				 "PartitionName=low Nodes=ALL Default=YES PriorityTier=1\n"
				 "PartitionName=high Nodes=ALL PriorityTier=2\n");
	struct sim_arrival *arr = sim_swf_arrivals(&trace, c, &n, &res);
	assert_int_equal(n, 3);
	assert_int_equal(sim_core_run(arr, n, c, NULL, &res, &err), 0);

	/* busy CPUs and queued jobs at each instant: never past the machine,
	 * never below 0, the requeued job queued again */
	static const struct { int64_t t; long busy, queued; } want[] = {
		{ 10, 2, 1 }, { 20, 2, 2 }, { 60, 2, 1 }, { 160, 1, 0 }, { 190, 0, 0 },
	};
	size_t seen = 0;
	for (size_t k = 0; k < res.nsamples; k++) {
		const struct sim_sample *s = &res.samples[k];
		assert_true(s->busy_cpus >= 0 && s->busy_cpus <= 2);
		assert_true(s->queued >= 0);
		for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
			if (want[w].t == s->time) {
				assert_int_equal(s->busy_cpus, want[w].busy);
				assert_int_equal(s->queued, want[w].queued);
				seen++;
			}
	}
	assert_true(seen >= sizeof(want) / sizeof(want[0]));
	assert_int_equal(res.samples[res.nsamples - 1].busy_cpus, 0);
	assert_int_equal(res.njobs, 3);
	assert_int_equal(res.jobs[0].start, 0);
	assert_int_equal(res.jobs[0].end, 160);
	assert_int_equal(res.jobs[0].run, 110);   /* 10 s, then 100 s */

	/* the trace's users: u<N> in g<G> under root */
	struct acct_user *u1 = acct_user_find("u1");
	assert_non_null(u1);
	assert_string_equal(u1->default_account, "g1");
	assert_non_null(assoc_find("g2", "u2", NULL));
	assert_string_equal(assoc_find_account("g3")->parent->account, "root");
	/* a user that has an association keeps it: nothing made for u1 in g9 */
	names_fictional(SIM_FIRST_ID);
	struct sim_arrival again = { .uid = SIM_FIRST_ID + 1, .gid = SIM_FIRST_ID + 9 };
	assert_int_equal(sim_assoc_add(&again, 1, &err), 0);
	assert_null(acct_account_find("g9"));
	assert_null(assoc_find("g9", "u1", NULL));
	names_fictional(0);

	sim_arrivals_free(arr, n);
	sim_result_free(&res);
	swf_trace_free(&trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(partitions),
		cmocka_unit_test(fictional_names),
		cmocka_unit_test(requeue_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
