/* Preemption victims (src/sched/preempt.c): hand-checked choices on four
 * nodes of 4 CPUs and 1000 MB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "sched/preempt.h"

#define N 4
#define MAXJ 6

struct pcase {
	const char *what;
	struct sched_req req;
	int njobs;
	struct {
		int node[N], cpus[N], n;
		uint64_t mem;        /* per node; 0 = none */
		bool keeps_mem;      /* mem NULL: suspended, memory stays */
		time_t start;
		int tier;
		uint32_t prio;
		bool no;             /* not preemptable */
	} job[MAXJ];
	int64_t exempt;
	int want;                /* victims, -1 none possible */
	int want_v[MAXJ];
};

/* Four 4-CPU jobs, one per node: priorities 10 5 5 20, starts 100 200 300 50. */
#define FULL4 4, { { { 0 }, { 4 }, 1, 0, false, 100, 1, 10, false }, \
		   { { 1 }, { 4 }, 1, 0, false, 200, 1, 5, false }, \
		   { { 2 }, { 4 }, 1, 0, false, 300, 1, 5, false }, \
		   { { 3 }, { 4 }, 1, 0, false, 50, 1, 20, false } }

static const struct pcase cases[] = {
	{ "the lowest priority, youngest of them", { .ntasks = 4 }, FULL4, 0, 1, { 2 } },
	{ "PreemptExemptTime spares the young one (ran 100 < 150)", { .ntasks = 4 }, FULL4, 150, 1, { 1 } },
	{ "every job too young: none", { .ntasks = 4 }, FULL4, 1000, -1, { 0 } },
	{ "two nodes: the two least valuable", { .nodes = 2, .ntasks = 8 }, FULL4, 0, 2, { 2, 1 } },
	{ "fits already: no victim", { .ntasks = 2 }, 1, { { { 0 }, { 2 }, 1, 0, false, 1, 1, 1, false } },
	  0, 0, { 0 } },
	/* node 0 keeps a job that may not be preempted: freeing the small
	 * job there is no use once node 1 is free */
	{ "greedy takes the small job first, pruning keeps it", { .ntasks = 4 }, 4,
	  { { { 0 }, { 1 }, 1, 0, false, 10, 1, 1, false },
	    { { 1 }, { 4 }, 1, 0, false, 10, 1, 2, false },
	    { { 2, 3 }, { 4, 4 }, 2, 0, false, 10, 1, 9, false },
	    { { 0 }, { 1 }, 1, 0, false, 10, 1, 0, true } },
	  0, 1, { 1 } },
	{ "a lower tier goes before a lower priority", { .ntasks = 4 }, 2,
	  { { { 0, 1 }, { 4, 4 }, 2, 0, false, 10, 2, 1, false },
	    { { 2, 3 }, { 4, 4 }, 2, 0, false, 10, 1, 100, false } },
	  0, 1, { 1 } },
	{ "not preemptable: none", { .ntasks = 4 }, 1,
	  { { { 0, 1, 2, 3 }, { 4, 4, 4, 4 }, 4, 0, false, 10, 1, 1, true } },
	  0, -1, { 0 } },
	{ "a suspended victim's memory stays: no room", { .ntasks = 4, .mem_per_node = 800 }, 1,
	  { { { 0, 1, 2, 3 }, { 4, 4, 4, 4 }, 4, 500, true, 10, 1, 1, false } },
	  0, -1, { 0 } },
	{ "a cancelled victim's memory comes back", { .ntasks = 4, .mem_per_node = 800 }, 1,
	  { { { 0, 1, 2, 3 }, { 4, 4, 4, 4 }, 4, 500, false, 10, 1, 1, false } },
	  0, 1, { 0 } },
	{ "exclusive: every job on the node goes", { .ntasks = 1, .exclusive = true }, 5,
	  { { { 0 }, { 2 }, 1, 0, false, 10, 1, 3, false },
	    { { 0 }, { 2 }, 1, 0, false, 10, 1, 4, false },
	    { { 1 }, { 4 }, 1, 0, false, 10, 1, 8, false },
	    { { 2 }, { 4 }, 1, 0, false, 10, 1, 8, false },
	    { { 3 }, { 4 }, 1, 0, false, 10, 1, 8, false } },
	  0, 2, { 0, 1 } },
};

static void table(void **state)
{
	int cand[N] = { 0, 1, 2, 3 };
	(void)state;
	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		const struct pcase *pc = &cases[t];
		struct sched_node nodes[N];
		struct sched_preempt_cand c[MAXJ];
		uint64_t mem[MAXJ][N];
		int victims[MAXJ];

		for (int i = 0; i < N; i++)
			nodes[i] = (struct sched_node){ .cpus = 4, .memory = 1000, .usable = true };
		for (int j = 0; j < pc->njobs; j++) {
			for (int i = 0; i < pc->job[j].n; i++) {
				struct sched_node *nd = &nodes[pc->job[j].node[i]];
				nd->alloc_cpus += pc->job[j].cpus[i];
				nd->alloc_mem += pc->job[j].mem;
				nd->njobs++;
				mem[j][i] = pc->job[j].mem;
			}
			c[j] = (struct sched_preempt_cand){
				.id = (uint32_t)j + 1, .node = pc->job[j].node, .cpus = pc->job[j].cpus,
				.mem = pc->job[j].keeps_mem ? NULL : mem[j], .n = pc->job[j].n,
				.start = pc->job[j].start, .tier = pc->job[j].tier,
				.priority = pc->job[j].prio, .preemptable = !pc->job[j].no,
			};
		}
		struct sched_preempt_job job = { &pc->req, cand, N, 400, pc->exempt };
		int nv = sched_preempt_select(nodes, N, c, pc->njobs, &job, victims);
		if (nv != pc->want)
			fail_msg("%s: %d victims, want %d", pc->what, nv, pc->want);
		for (int k = 0; k < nv; k++)
			if (victims[k] != pc->want_v[k])
				fail_msg("%s: victim %d is job %d, want %d", pc->what, k, victims[k],
					 pc->want_v[k]);
	}
}

/* Candidate nodes limit the victims: a job elsewhere frees nothing useful. */
static void only_candidate_nodes(void **state)
{
	struct sched_node nodes[2] = { { .cpus = 4, .alloc_cpus = 4, .memory = 1000, .njobs = 1, .usable = true },
				       { .cpus = 4, .alloc_cpus = 4, .memory = 1000, .njobs = 1, .usable = true } };
	int n0[] = { 0 }, n1[] = { 1 }, c4[] = { 4 }, cand[] = { 1 }, victims[2];
	struct sched_preempt_cand c[2] = {
		{ .id = 1, .node = n0, .cpus = c4, .n = 1, .start = 10, .tier = 1, .priority = 1, .preemptable = true },
		{ .id = 2, .node = n1, .cpus = c4, .n = 1, .start = 10, .tier = 1, .priority = 50, .preemptable = true },
	};
	struct sched_req req = { .ntasks = 4 };
	struct sched_preempt_job job = { &req, cand, 1, 100, 0 };
	(void)state;
	assert_int_equal(sched_preempt_select(nodes, 2, c, 2, &job, victims), 1);
	assert_int_equal(victims[0], 1);
	/* the nodes given are not changed */
	assert_int_equal(nodes[1].alloc_cpus, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(only_candidate_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
