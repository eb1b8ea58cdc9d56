/* The scheduling pass (src/sched/pass.c, plan.c): hand-worked schedules,
 * main pass and backfill.  Each case says the nodes and the start times it
 * expects and why.  now = 1000 throughout; times are seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "sched/pass.h"

#define NOW 1000
#define MAXN 8
#define MAXJ 16

/* A small cluster: nodes of 4 CPUs and 1000 MB unless a test says else. */
static struct world {
	struct sched_node nodes[MAXN];
	int nnodes;
	struct sched_run run[MAXJ];
	int run_node[MAXJ][MAXN], run_cpus[MAXJ][MAXN];
	uint64_t run_mem[MAXJ][MAXN];
	int nrun;
	struct sched_resv resv[4];
	int resv_node[4][MAXN];
	int nresv;
	struct sched_job job[MAXJ];
	struct sched_alt alt[MAXJ][4];
	int alt_cand[MAXJ][4][MAXN];
	int njobs;
	struct sched_params params;
	struct sched_decision out[MAXJ];
	int started;
} w;

static void world(int nnodes, bool backfill)
{
	sched_decisions_free(w.out, MAXJ);
	memset(&w, 0, sizeof(w));
	w.nnodes = nnodes;
	for (int i = 0; i < nnodes; i++)
		w.nodes[i] = (struct sched_node){ .cpus = 4, .memory = 1000, .usable = true };
	w.params = (struct sched_params){
		.now = NOW, .backfill = backfill, .window = 86400, .resolution = 1, .nparts = 2,
	};
}

/* A running job: cpus and mem on each of the nodes listed (-1 ends the list), until end. */
static void running(time_t end, int cpus, uint64_t mem, const int *nodes)
{
	struct sched_run *r = &w.run[w.nrun];
	int n = 0;
	for (; nodes[n] >= 0; n++) {
		w.run_node[w.nrun][n] = nodes[n];
		w.run_cpus[w.nrun][n] = cpus;
		w.run_mem[w.nrun][n] = mem;
		w.nodes[nodes[n]].alloc_cpus += cpus;
		w.nodes[nodes[n]].alloc_mem += mem;
		w.nodes[nodes[n]].njobs++;
	}
	*r = (struct sched_run){ .node = w.run_node[w.nrun], .cpus = w.run_cpus[w.nrun],
				 .mem = w.run_mem[w.nrun], .n = n, .end = end };
	w.nrun++;
}

static int reservation(time_t start, time_t end, unsigned flags, const int *nodes)
{
	int n = 0;
	for (; nodes[n] >= 0; n++)
		w.resv_node[w.nresv][n] = nodes[n];
	w.resv[w.nresv] = (struct sched_resv){ .start = start, .end = end, .node = w.resv_node[w.nresv],
					       .nnodes = n, .flags = flags };
	return w.nresv++;
}

/* A pending job on every node (partition 0), in priority order. */
static struct sched_job *job(struct sched_req req, int64_t time_limit)
{
	int j = w.njobs++;
	struct sched_job *jb = &w.job[j];
	for (int i = 0; i < w.nnodes; i++)
		w.alt_cand[j][0][i] = i;
	w.alt[j][0] = (struct sched_alt){ .part = 0, .cand = w.alt_cand[j][0], .ncand = w.nnodes };
	*jb = (struct sched_job){ .id = j + 1, .user = 1, .req = req, .alt = w.alt[j], .nalt = 1,
				  .time_limit = time_limit, .resv = -1 };
	return jb;
}

/* Give job j alternative a: partition part on the nodes listed (-1 ends). */
static void alt(struct sched_job *jb, int a, int part, const int *nodes)
{
	int j = jb - w.job, n = 0;
	for (; nodes[n] >= 0; n++)
		w.alt_cand[j][a][n] = nodes[n];
	w.alt[j][a] = (struct sched_alt){ .part = part, .cand = w.alt_cand[j][a], .ncand = n };
	if (a + 1 > jb->nalt)
		jb->nalt = a + 1;
}

static void pass(void)
{
	w.started = sched_pass(&w.params, w.nodes, w.nnodes, w.run, w.nrun, w.resv, w.nresv, w.job,
			       w.njobs, w.out);
}

/* Job j's decision: what, why, start (START: now), and its nodes (-1 ends;
 * PLANNED and START only). */
static void expect(int j, enum sched_what what, enum sched_why why, time_t start, const int *nodes)
{
	const struct sched_decision *d = &w.out[j];
	print_message("job %d: what %d why %d start %ld n %d\n", j, d->what, d->why, (long)d->start, d->n);
	assert_int_equal(d->what, what);
	if (what == SCHED_D_NONE)
		return;
	assert_int_equal(d->why, why);
	if (what != SCHED_D_WAIT || start)
		assert_int_equal(d->start, start);
	if (what == SCHED_D_START || what == SCHED_D_PLANNED) {
		int n = 0;
		for (; nodes[n] >= 0; n++) {
			assert_true(n < d->n);
			assert_int_equal(d->node[n], nodes[n]);
		}
		assert_int_equal(d->n, n);
	}
}

#define NODES(...) ((const int[]){ __VA_ARGS__, -1 })
#define NO_NODES ((const int[]){ -1 })
#define WHOLE(k) ((struct sched_req){ .nodes = (k), .ntasks = 4 * (k) })   /* k whole nodes */
#define CPUS(k) ((struct sched_req){ .ntasks = (k) })

/* Main pass, FCFS: the head job waits for two nodes; the next job of its
 * partition would fit but waits behind it; a job of another partition
 * starts. */
static void main_fcfs_blocks(void **state)
{
	world(2, false);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(CPUS(1), 100);
	struct sched_job *c = job(CPUS(1), 100);
	alt(c, 0, 1, NODES(1));
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
	expect(1, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 0, NO_NODES);
	expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[2].time_limit, 100);
}

/* Backfill: node 0 is busy until 2000.  A wants both nodes: planned at
 * 2000 on 0,1 (until 3000).  B (4 CPUs, 500 s) fits node 1 now and ends at
 * 1500, before A: it starts.  C (4 CPUs, 2000 s) would end at 3000 and
 * delay A: planned after A, at 3000 on node 0. */
static void backfill_short_not_long(void **state)
{
	world(2, true);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(CPUS(4), 500);
	job(CPUS(4), 2000);
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0, 1));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[1].time_limit, 500);
	/* now: nodes 0 and 1 busy; 1500: node 1, but A from 2000; 3000 */
	expect(2, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 3000, NODES(0));
}

/* The long job alone behind A: it fits now on node 1 but would delay A,
 * so it is planned at 3000 (why: priority, A holds the nodes). */
static void long_job_waits_for_head(void **state)
{
	world(2, true);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(CPUS(4), 2000);
	job(CPUS(4), SCHED_TIME_INFINITE);
	pass();
	assert_int_equal(w.started, 0);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0, 1));
	expect(1, SCHED_D_PLANNED, SCHED_WHY_PRIORITY, 3000, NODES(0));
	/* no end: from 3000 on node 1 for ever (node 0 is the other's at 3000) */
	expect(2, SCHED_D_PLANNED, SCHED_WHY_PRIORITY, 3000, NODES(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(main_fcfs_blocks),
		cmocka_unit_test(backfill_short_not_long),
		cmocka_unit_test(long_job_waits_for_head),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
