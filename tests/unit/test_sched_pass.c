/* The scheduling pass (src/sched/pass.c, plan.c): hand-worked schedules,
 * main pass and backfill.  Each case says the nodes and the start times it
 * expects and why.  now = 1000 throughout; times are seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
	int req_node[MAXJ][2];   /* -w and -x of random jobs */
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

/* Main pass, FCFS: the head job waits for two nodes; the next jobs of its
 * partition wait behind it (one would fit, one would not: both priority;
 * one that never fits says so); a job of another partition starts.  The
 * nodes given are not changed. */
static void main_fcfs_blocks(void **state)
{
	world(2, false);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(CPUS(1), 100);
	struct sched_job *c = job(CPUS(1), 100);
	alt(c, 0, 1, NODES(1));
	job(WHOLE(2), 100);
	job(WHOLE(3), 100);
	struct sched_node before[MAXN];
	memcpy(before, w.nodes, sizeof(before));
	pass();
	assert_memory_equal(before, w.nodes, sizeof(before));
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
	expect(1, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 0, NO_NODES);
	expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[2].time_limit, 100);
	expect(3, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 0, NO_NODES);
	expect(4, SCHED_D_WAIT, SCHED_WHY_NEVER, 0, NO_NODES);
}

/* EASY: a job with no start in the window does not use up the one
 * reservation.  Node 0's job has no end, node 1's ends at 2000.  A (node
 * 0 only) has no start: waits, no estimate.  B (a whole node, 1000 s) is
 * the first with a plan: 2000 on node 1, held.  C (a whole node, 100 s)
 * would be next at 3000 on node 1, after B: an estimate only. */
static void easy_counts_plans_only(void **state)
{
	world(2, true);
	w.params.max_reservations = 1;
	running(0, 4, 0, NODES(0));
	running(2000, 4, 0, NODES(1));
	alt(job(WHOLE(1), 100), 0, 0, NODES(0));
	job(WHOLE(1), 1000);
	job(WHOLE(1), 100);
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
	assert_int_equal(w.out[0].start, 0);
	expect(1, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(1));
	expect(2, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 3000, NO_NODES);
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

/* EASY (max_reservations 1) against conservative (0).  Nodes 0..2; node 0
 * busy until 2000.  A: 2 nodes of 0,1 for 1000 s: planned at 2000 on 0,1.
 * B: 2 nodes of 1,2 for 2000 s: now it would run into A on node 1, so
 * the soonest is 3000 on 1,2.  C: one node of 2 for 3000 s, now until
 * 4000: that runs into B's start at 3000 on node 2.
 *  - conservative: B holds 1,2 from 3000, so C waits until B ends at 5000;
 *  - EASY: only A holds; B waits with an estimate (3000) and holds
 *    nothing, so C starts now on node 2. */
static void easy_and_conservative(int max_reservations)
{
	world(3, true);
	w.params.max_reservations = max_reservations;
	running(2000, 4, 0, NODES(0));
	alt(job(WHOLE(2), 1000), 0, 0, NODES(0, 1));
	alt(job(WHOLE(2), 2000), 0, 0, NODES(1, 2));
	alt(job(WHOLE(1), 3000), 0, 0, NODES(2));
	pass();
}

static void conservative(void **state)
{
	easy_and_conservative(0);
	assert_int_equal(w.started, 0);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0, 1));
	expect(1, SCHED_D_PLANNED, SCHED_WHY_PRIORITY, 3000, NODES(1, 2));
	expect(2, SCHED_D_PLANNED, SCHED_WHY_PRIORITY, 5000, NODES(2));
}

static void easy(void **state)
{
	easy_and_conservative(1);
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0, 1));
	/* an estimate, holding nothing */
	expect(1, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 3000, NO_NODES);
	assert_int_equal(w.out[1].n, 0);
	expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(2));
	assert_int_equal(w.out[2].time_limit, 3000);
}

/* EASY on one node of 10 CPUs is count-based EASY: 4 CPUs busy until 1100,
 * 4 until 1200.  A (8 CPUs) can start at 1200 (the shadow time), when 2
 * are left over.  B (2 CPUs, 1000 s) fits now and in what A leaves: it
 * starts though it runs past 1200.  C (1 CPU, 50 s) has nothing now; its
 * estimate is 1100 (4 given back, A not yet started). */
static void easy_on_one_node_is_count_based(void **state)
{
	world(1, true);
	w.nodes[0].cpus = 10;
	w.params.max_reservations = 1;
	running(1100, 4, 0, NODES(0));
	running(1200, 4, 0, NODES(0));
	job(CPUS(8), 500);
	job(CPUS(2), 1000);
	job(CPUS(1), 50);
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 1200, NODES(0));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(2, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 1100, NO_NODES);
	/* one more CPU and B would take from A: it waits */
	world(1, true);
	w.nodes[0].cpus = 10;
	w.params.max_reservations = 1;
	running(1100, 4, 0, NODES(0));
	running(1200, 3, 0, NODES(0));
	job(CPUS(8), 500);
	job(CPUS(3), 1000);
	pass();
	assert_int_equal(w.started, 0);
	expect(1, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 1700, NO_NODES);
}

/* --time-min: A is planned at 2000 on both nodes.  B (one node, 3000 s,
 * at least 600 s) cannot run 3000 s now; shrunk to 1000 s it ends at
 * 2000, when A starts: it starts now on node 1 with 1000 s.  C (3000 s, at
 * least 1500 s) cannot start now even shrunk (both nodes busy until
 * 2000, then A): planned after A, at 3000 on node 0, with its full
 * limit.  D (at least 1100 s) does not fit the gap left by B either. */
static void time_min_shrinks(void **state)
{
	world(2, true);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(WHOLE(1), 3000)->time_min = 600;
	job(WHOLE(1), 3000)->time_min = 1500;
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0, 1));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[1].time_limit, 1000);
	expect(2, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 3000, NODES(0));
	assert_int_equal(w.out[2].time_limit, 3000);

	/* too long a minimum: no shrink, planned after A */
	world(2, true);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(2), 1000);
	job(WHOLE(1), 3000)->time_min = 1100;
	pass();
	assert_int_equal(w.started, 0);
	expect(1, SCHED_D_PLANNED, SCHED_WHY_PRIORITY, 3000, NODES(0));

	/* the main pass does not shrink: there is no plan; it starts whole */
	world(2, false);
	running(2000, 4, 0, NODES(0));
	job(WHOLE(1), 3000)->time_min = 600;
	pass();
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[0].time_limit, 3000);
}

/* bf_window and bf_resolution: the node is busy until 8200. */
static void window_and_resolution(void **state)
{
	world(1, true);
	running(8200, 4, 0, NODES(0));
	job(CPUS(1), 100);
	w.params.window = 3600;   /* 8200 is beyond now + 3600: no plan */
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
	assert_int_equal(w.out[0].start, 0);

	w.params.window = 7200;   /* 8200 = now + 7200: just inside */
	sched_decisions_free(w.out, MAXJ);
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 8200, NODES(0));

	w.params.window = 86400;
	w.params.resolution = 300;   /* 8200 rounds up to 8400 (28 * 300) */
	sched_decisions_free(w.out, MAXJ);
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 8400, NODES(0));
}

/* max_job_test and max_job_user: four one-CPU jobs on an idle node, three
 * of user 1 then one of user 2. */
static void job_test_and_user_limits(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(1, backfill);
		for (int i = 0; i < 4; i++)
			job(CPUS(1), 100)->user = i < 3 ? 1 : 2;
		w.params.max_job_test = 2;
		pass();
		assert_int_equal(w.started, 2);
		expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
		expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
		expect(2, SCHED_D_NONE, 0, 0, NO_NODES);
		expect(3, SCHED_D_NONE, 0, 0, NO_NODES);
	}
	world(1, true);
	for (int i = 0; i < 4; i++)
		job(CPUS(1), 100)->user = i < 3 ? 1 : 2;
	w.params.max_job_user = 2;   /* user 1's third job is not looked at */
	pass();
	assert_int_equal(w.started, 3);
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(2, SCHED_D_NONE, 0, 0, NO_NODES);
	expect(3, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
}

/* Reservations, outside jobs: R on node 1 over [1500, 2500).
 *  A (a whole node, 1000 s: until 2000, into R) keeps off node 1: node 0.
 *  B (a whole node, 1000 s): node 0 has A, node 1 is R's then: the only
 *    reason is the reservation.  Main pass: waits (reserved), and holds
 *    its partition back.  Backfill: planned at 2000 on node 0, A's end.
 *  C (one CPU, 400 s: until 1400, before R): main pass, behind B; backfill
 *    starts it on node 1. */
static void resv_keeps_others_off(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(2, backfill);
		reservation(1500, 2500, 0, NODES(1));
		job(WHOLE(1), 1000);
		job(WHOLE(1), 1000);
		job(CPUS(1), 400);
		pass();
		expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
		if (!backfill) {
			expect(1, SCHED_D_WAIT, SCHED_WHY_RESERVED, 0, NO_NODES);
			expect(2, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 0, NO_NODES);
		} else {
			expect(1, SCHED_D_PLANNED, SCHED_WHY_RESERVED, 2000, NODES(0));
			expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
		}
	}
	/* a job with no time limit runs into every reservation to come */
	world(2, false);
	reservation(50000, 60000, 0, NODES(0));
	job(CPUS(1), SCHED_TIME_INFINITE);
	pass();
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
}

/* Reservations, their own jobs: R on node 1 over [900, 2000), active.
 *  D (R's, one CPU, 500 s) runs inside only: node 1, though node 0 is
 *    free and first.
 *  E (R's, a whole node, 500 s): node 1 has D, and node 0 is not R's.
 *    Main pass: waits (resources).  Backfill: planned at 1500 on node 1.
 *  F (no reservation, a whole node, 100 s): R holds node 1 now, so node 0
 *    (backfill; the main pass holds it behind E). */
static void resv_own_jobs_inside(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(2, backfill);
		int r = reservation(900, 2000, 0, NODES(1));
		job(CPUS(1), 500)->resv = r;
		job(WHOLE(1), 500)->resv = r;
		job(WHOLE(1), 100);
		pass();
		expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
		if (!backfill)
			expect(1, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
		else
			expect(1, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 1500, NODES(1));
		/* main pass: E waited for resources in partition 0, so F waits */
		if (!backfill)
			expect(2, SCHED_D_WAIT, SCHED_WHY_PRIORITY, 0, NO_NODES);
		else
			expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	}
}

/* A reservation not yet started, R on node 1 over [1500, 2500): its job
 * G (one CPU, 300 s) waits in the main pass (not active), and backfill
 * plans it at R's start on node 1.  It holds no partition back: H starts.
 * With R beyond the window, backfill has no plan for G either. */
static void resv_not_active(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(2, backfill);
		int r = reservation(1500, 2500, 0, NODES(1));
		job(CPUS(1), 300)->resv = r;
		job(CPUS(1), 100);
		pass();
		if (!backfill)
			expect(0, SCHED_D_WAIT, SCHED_WHY_RESV_NOT_ACTIVE, 0, NO_NODES);
		else
			expect(0, SCHED_D_PLANNED, SCHED_WHY_RESV_NOT_ACTIVE, 1500, NODES(1));
		expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	}
	world(2, true);
	w.params.window = 300;
	job(CPUS(1), 300)->resv = reservation(1500, 2500, 0, NODES(1));
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESV_NOT_ACTIVE, 0, NO_NODES);
	/* over: never again */
	world(2, true);
	job(CPUS(1), 300)->resv = reservation(100, 900, 0, NODES(1));
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_RESV_NOT_ACTIVE, 0, NO_NODES);
}

/* FLEX, R on node 1 over [1500, 2500): its jobs may start before it and
 * use nodes outside it, its own nodes first.  J (one CPU) goes on node 1
 * though node 0 comes first; K (a whole node) finds node 1 shared with J
 * and takes node 0. */
static void resv_flex(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(2, backfill);
		int r = reservation(1500, 2500, SCHED_RESV_FLEX, NODES(1));
		job(CPUS(1), 300)->resv = r;
		job(WHOLE(1), 3000)->resv = r;
		pass();
		assert_int_equal(w.started, 2);
		expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
		expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	}
}

/* Several alternatives: partition 0 is node 0 (busy until 3000), partition
 * 1 node 1 (busy until 2000).  The soonest wins: alternative 1 at 2000.
 * With both busy until 2000, the tie goes to the first.  Main pass: the
 * first that fits now. */
static void alternatives(void **state)
{
	world(2, true);
	running(3000, 4, 0, NODES(0));
	running(2000, 4, 0, NODES(1));
	struct sched_job *a = job(WHOLE(1), 100);
	alt(a, 0, 0, NODES(0));
	alt(a, 1, 1, NODES(1));
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(1));
	assert_int_equal(w.out[0].alt, 1);

	world(2, true);
	running(2000, 4, 0, NODES(0));
	running(2000, 4, 0, NODES(1));
	a = job(WHOLE(1), 100);
	alt(a, 0, 0, NODES(0));
	alt(a, 1, 1, NODES(1));
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0));
	assert_int_equal(w.out[0].alt, 0);

	world(2, false);
	running(3000, 4, 0, NODES(0));
	a = job(WHOLE(1), 100);
	alt(a, 0, 0, NODES(0));
	alt(a, 1, 1, NODES(1));
	pass();
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(1));
	assert_int_equal(w.out[0].alt, 1);
}

/* Memory: one node of 8 CPUs and 1000 MB; a running job holds 2 CPUs and
 * 800 MB until 2000.  A (one CPU, 500 MB, 1000 s): CPUs are free, memory
 * is not: planned at 2000 (until 3000).  B (2 tasks, 100 MB per CPU, 2000
 * s): 200 MB now, and at 2000 500 + 200 of 1000: starts now.  C (one CPU,
 * 400 MB, 100 s): 200 MB left now: planned; at 2000 A's 500 + B's 200 +
 * 400 > 1000; at 3000 (A ends) it fits. */
static void memory_limits(void **state)
{
	world(1, true);
	w.nodes[0].cpus = 8;
	running(2000, 2, 800, NODES(0));
	job((struct sched_req){ .ntasks = 1, .mem_per_node = 500 }, 1000);
	job((struct sched_req){ .ntasks = 2, .mem_per_cpu = 100 }, 2000);
	job((struct sched_req){ .ntasks = 1, .mem_per_node = 400 }, 100);
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(2, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 3000, NODES(0));
}

/* GRES in the backfill plan (doc/gres.md section 2): one node of 8 CPUs
 * and 2 GPUs; a running job holds both GPUs and 1 CPU until 2000.  A
 * 1-GPU job is planned at 2000 though CPUs are free now; a CPU-only job
 * starts now; a second 1-GPU job is planned at 2000 beside the first (the
 * node has two); a third at 2000 + the first's limit (the plan holds the
 * planned jobs' GPUs over their windows). */
static uint16_t gres_run_kinds[SCHED_GRES_KINDS] = { 2 };
static const struct sched_gres one_gpu[] = { { .kinds = 1, .per_node = 1, .gpu = true } };

static void gres_plan(void **state)
{
	world(1, true);
	w.nodes[0].cpus = 8;
	w.nodes[0].gres[0] = 2;
	running(2000, 1, 0, NODES(0));
	w.nodes[0].alloc_gres[0] = 2;
	w.run[0].gres = gres_run_kinds;
	job((struct sched_req){ .ntasks = 1, .gres = one_gpu, .ngres = 1 }, 500);
	job(CPUS(2), 100);
	job((struct sched_req){ .ntasks = 1, .gres = one_gpu, .ngres = 1 }, 800);
	job((struct sched_req){ .ntasks = 1, .gres = one_gpu, .ngres = 1 }, 100);
	pass();
	assert_int_equal(w.started, 1);
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0));
	assert_int_equal(w.out[0].gres[0], 1);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(2, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(0));
	expect(3, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2500, NODES(0));
}

/* The main pass counts the GPUs its starts take: two 1-GPU jobs start on
 * a node of 2, the third waits though CPUs are free. */
static void gres_main(void **state)
{
	world(1, false);
	w.nodes[0].gres[0] = 2;
	for (int k = 0; k < 3; k++)
		job((struct sched_req){ .ntasks = 1, .gres = one_gpu, .ngres = 1 }, 100);
	pass();
	assert_int_equal(w.started, 2);
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	expect(2, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
}

/* A running job with no end never gives its node back: node 0's job has
 * none, node 1's ends at 2000.  A whole-node job is planned at 2000 on
 * node 1; on node 0 alone it has no start at all.  An overdue job (its end
 * passed) ends any moment: planned a second from now. */
static void running_without_end(void **state)
{
	world(2, true);
	running(0, 4, 0, NODES(0));
	running(2000, 4, 0, NODES(1));
	job(WHOLE(1), 100);
	alt(job(WHOLE(1), 100), 0, 0, NODES(0));
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, 2000, NODES(1));
	expect(1, SCHED_D_WAIT, SCHED_WHY_RESOURCES, 0, NO_NODES);
	assert_int_equal(w.out[1].start, 0);

	world(1, true);
	running(900, 4, 0, NODES(0));
	job(WHOLE(1), 100);
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_RESOURCES, NOW + 1, NODES(0));
}

/* Never: more than the nodes have, even empty. */
static void never_fits(void **state)
{
	for (int backfill = 0; backfill < 2; backfill++) {
		world(2, backfill);
		job(WHOLE(3), 100);
		job(CPUS(1), 100);
		pass();
		expect(0, SCHED_D_WAIT, SCHED_WHY_NEVER, 0, NO_NODES);
		expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
	}
}

/* issue 13: tasks x CPUs per task wrapped in 32 bits (to 0: the job started
 * holding no CPU; negative: NumCPUs=-1073741824).  Both passes must see it
 * never fits, with and without a node count. */
static void huge_counts_never_fit(void **state)
{
	static const struct sched_req huge[] = {
		{ .ntasks = 65536, .cpus_per_task = 65536 },
		{ .ntasks = 49152, .cpus_per_task = 65536 },
		{ .nodes = 1, .ntasks = 65536, .cpus_per_task = 65536 },
		{ .nodes = 2, .ntasks = 3, .cpus_per_task = 2147483647 },
		{ .ntasks = 1, .cpus_per_task = 2, .mem_per_cpu = 1ULL << 63 },
	};
	(void)state;
	for (int backfill = 0; backfill < 2; backfill++)
		for (size_t k = 0; k < sizeof(huge) / sizeof(huge[0]); k++) {
			world(2, backfill);
			job(huge[k], 100);
			job(CPUS(1), 100);
			pass();
			expect(0, SCHED_D_WAIT, SCHED_WHY_NEVER, 0, NO_NODES);
			expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW, NODES(0));
		}
}

/* ---- against a plain reference ----
 * The pass looks again only at what changed between candidate times; the
 * reference below works every window out from scratch (every allocation an
 * interval, every candidate time tried).  On random small clusters both
 * must give the same decisions, starts, nodes and limits. */

#define RMAX 64
static struct ref {
	int node[RMAX];
	time_t start[RMAX], end[RMAX];   /* end -1: never */
	int cpus[RMAX];
	uint64_t mem[RMAX];
	int n;
} ref;

static void ref_add(int node, time_t start, time_t end, int cpus, uint64_t mem)
{
	assert_true(ref.n < RMAX);
	ref.node[ref.n] = node;
	ref.start[ref.n] = start;
	ref.end[ref.n] = end;
	ref.cpus[ref.n] = cpus;
	ref.mem[ref.n++] = mem;
}

/* (own -2: no reservation counts) */
static bool ref_blocked(int node, time_t from, time_t to, int own)
{
	for (int r = 0; r < w.nresv && own != -2; r++)
		for (int k = 0; k < w.resv[r].nnodes; k++)
			if (w.resv[r].node[k] == node && r != own && w.resv[r].start < to && w.resv[r].end > from)
				return true;
	return false;
}

/* Every node as seen over [from, to): the most allocated at any point. */
static void ref_view(struct sched_node *view, time_t from, time_t to, int own)
{
	for (int c = 0; c < w.nnodes; c++) {
		view[c] = w.nodes[c];
		view[c].alloc_cpus = view[c].alloc_mem = view[c].njobs = 0;
		for (int i = -1; i < ref.n; i++) {   /* the points: from, and each start inside */
			time_t at = i < 0 ? from : ref.start[i];
			int cpus = 0, njobs = 0;
			uint64_t mem = 0;
			if (at < from || at >= to)
				continue;
			for (int j = 0; j < ref.n; j++)
				if (ref.node[j] == c && ref.start[j] <= at && (ref.end[j] < 0 || ref.end[j] > at)) {
					cpus += ref.cpus[j];
					mem += ref.mem[j];
					njobs++;
				}
			if (cpus > view[c].alloc_cpus)
				view[c].alloc_cpus = cpus;
			if (mem > view[c].alloc_mem)
				view[c].alloc_mem = mem;
			if (njobs > view[c].njobs)
				view[c].njobs = njobs;
		}
		if (ref_blocked(c, from, to, own))
			view[c].usable = false;
	}
}

static time_t ref_to(time_t from, int64_t limit)
{
	return limit == SCHED_TIME_INFINITE ? INT64_MAX : from + limit;
}

static bool ref_fits(const struct sched_job *jb, const int *cand, int ncand, time_t from, time_t to,
		     int *node, int *cpus, int *n)
{
	struct sched_node view[MAXN];
	ref_view(view, from, to, jb->resv);
	return sched_select(view, cand, ncand, &jb->req, node, cpus, n, NULL) == SCHED_PICKED;
}

static int time_sort(const void *a, const void *b)
{
	time_t x = *(const time_t *)a, y = *(const time_t *)b;
	return (x > y) - (x < y);
}

/* The reference backfill, for jobs with every limit off but max_reservations. */
static void ref_backfill(struct sched_decision *out)
{
	time_t now = w.params.now, horizon = now + w.params.window, times[2 * RMAX + 8];
	int res = w.params.resolution > 0 ? w.params.resolution : 1, holds = 0;

	memset(&ref, 0, sizeof(ref));
	for (int j = 0; j < w.nrun; j++)
		for (int k = 0; k < w.run[j].n; k++)
			ref_add(w.run[j].node[k], 0, w.run[j].end == 0 ? -1 : w.run[j].end > now ? w.run[j].end : now + 1,
				w.run[j].cpus[k], w.run[j].mem[k]);
	for (int i = 0; i < w.njobs; i++) {
		const struct sched_job *jb = &w.job[i];
		const struct sched_resv *r = jb->resv >= 0 ? &w.resv[jb->resv] : NULL;
		struct sched_decision *d = &out[i];
		time_t earliest = now, latest = horizon, best = -1;
		int best_alt = -1, best_node[MAXN], best_cpus[MAXN], best_n = 0;
		bool never[4];

		memset(d, 0, sizeof(*d));
		d->what = SCHED_D_WAIT;
		if (r && r->end <= now)
			continue;
		if (r && !(r->flags & SCHED_RESV_FLEX)) {
			earliest = r->start > now ? r->start : now;
			latest = r->end - 1 < latest ? r->end - 1 : latest;
		}
		/* candidate times: now, and every release rounded up */
		int nt = 0;
		times[nt++] = earliest;
		for (int k = 0; k < ref.n; k++)
			if (ref.end[k] > 0)
				times[nt++] = ref.end[k];
		for (int k = 0; k < w.nresv; k++)
			times[nt++] = w.resv[k].end;
		for (int k = 1; k < nt; k++) {
			if (times[k] % res)
				times[k] += res - times[k] % res;
			if (times[k] < now)
				times[k] = now;
		}
		qsort(times, nt, sizeof(time_t), time_sort);
		for (int a = 0; a < jb->nalt; a++) {
			int cand[MAXN], ncand = 0, node[MAXN], cpus[MAXN], n;
			const struct sched_alt *al = &jb->alt[a];
			for (int pass2 = 0; pass2 < 2; pass2++)
				for (int k = 0; k < al->ncand; k++) {
					bool in = !r;
					for (int q = 0; r && q < r->nnodes; q++)
						in |= r->node[q] == al->cand[k];
					if ((pass2 == 0 && in) || (pass2 == 1 && !in && r && (r->flags & SCHED_RESV_FLEX)))
						cand[ncand++] = al->cand[k];
				}
			never[a] = sched_select(w.nodes, cand, ncand, &jb->req, node, cpus, &n, NULL) == SCHED_NEVER;
			for (int k = 0; !never[a] && k < nt; k++) {
				time_t at = times[k];
				if (at < earliest || at > latest || (best >= 0 && at >= best))
					continue;
				if (ref_fits(jb, cand, ncand, at, ref_to(at, jb->time_limit), node, cpus, &n)) {
					best = at;
					best_alt = a;
					best_n = n;
					memcpy(best_node, node, n * sizeof(int));
					memcpy(best_cpus, cpus, n * sizeof(int));
					break;
				}
			}
		}
		int64_t limit = jb->time_limit;
		if (best != now && jb->time_min > 0 && earliest == now &&
		    (limit == SCHED_TIME_INFINITE || jb->time_min < limit)) {
			for (int a = 0; a < jb->nalt && best != now; a++) {
				int cand[MAXN], ncand = 0, node[MAXN], cpus[MAXN], n;
				const struct sched_alt *al = &jb->alt[a];
				for (int pass2 = 0; pass2 < 2; pass2++)
					for (int k = 0; k < al->ncand; k++) {
						bool in = !r;
						for (int q = 0; r && q < r->nnodes; q++)
							in |= r->node[q] == al->cand[k];
						if ((pass2 == 0 && in) || (pass2 == 1 && !in && r && (r->flags & SCHED_RESV_FLEX)))
							cand[ncand++] = al->cand[k];
					}
				if (never[a] || !ref_fits(jb, cand, ncand, now, now + jb->time_min, node, cpus, &n))
					continue;
				/* the largest end among the holds' and reservations' starts */
				time_t end = -1, top = ref_to(now, limit);
				for (int k = 0; k < ref.n + w.nresv; k++) {
					time_t at = k < ref.n ? ref.start[k] : w.resv[k - ref.n].start;
					if (at >= now + jb->time_min && at < top && at > end &&
					    ref_fits(jb, cand, ncand, now, at, node, cpus, &n))
						end = at;
				}
				if (end > 0 && ref_fits(jb, cand, ncand, now, end, node, cpus, &n)) {
					best = now;
					best_alt = a;
					limit = end - now;
					best_n = n;
					memcpy(best_node, node, n * sizeof(int));
					memcpy(best_cpus, cpus, n * sizeof(int));
				}
			}
		}
		if (best < 0)
			continue;
		d->start = best;
		d->alt = best_alt;
		d->time_limit = limit;
		bool hold = best == now || w.params.max_reservations == 0 || holds < w.params.max_reservations;
		d->what = best == now ? SCHED_D_START : hold ? SCHED_D_PLANNED : SCHED_D_WAIT;
		if (!hold)
			continue;
		holds += best != now;
		d->n = best_n;
		d->node = malloc(best_n * sizeof(int) + 1);
		d->cpus = malloc(best_n * sizeof(int) + 1);
		memcpy(d->node, best_node, best_n * sizeof(int));
		memcpy(d->cpus, best_cpus, best_n * sizeof(int));
		for (int k = 0; k < best_n; k++)
			ref_add(best_node[k], best, limit == SCHED_TIME_INFINITE ? -1 : best + limit, best_cpus[k],
				jb->req.mem_per_cpu ? jb->req.mem_per_cpu * best_cpus[k] : jb->req.mem_per_node);
	}
}

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static int pick(int n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (int)(seed % (uint64_t)n);
}

static void random_world(void)
{
	world(2 + pick(4), true);
	w.params.resolution = (int[]){ 1, 7, 60 }[pick(3)];
	w.params.window = (int[]){ 500, 5000, 86400 }[pick(3)];
	w.params.max_reservations = pick(3);
	for (int j = pick(7); j > 0; j--) {
		int node = pick(w.nnodes), cpus = 1 + pick(4);
		uint64_t mem = pick(3) * 200;
		if (w.nodes[node].alloc_cpus + cpus > w.nodes[node].cpus ||
		    w.nodes[node].alloc_mem + mem > w.nodes[node].memory)
			continue;
		int kind = pick(8);
		time_t end = kind == 0 ? 0 : kind == 1 ? NOW - 10 : NOW + 1 + pick(3000);
		running(end, cpus, mem, (const int[]){ node, -1 });
	}
	for (int r = pick(3); r > 0; r--) {
		int nodes[MAXN + 1], n = 0;
		for (int c = 0; c < w.nnodes; c++)
			if (pick(3) == 0)
				nodes[n++] = c;
		nodes[n] = -1;
		time_t start = NOW - 500 + pick(2500);
		reservation(start, start + 100 + pick(2000), pick(3) == 0 ? SCHED_RESV_FLEX : 0, nodes);
	}
	for (int j = 1 + pick(8); j > 0; j--) {
		struct sched_req req;
		switch (pick(4)) {
		case 0: req = CPUS(1 + pick(8)); break;
		case 1: req = WHOLE(1 + pick(2)); break;
		case 2: req = (struct sched_req){ .nodes = 1 + pick(2), .ntasks = 1 + pick(3) }; break;
		default: req = (struct sched_req){ .ntasks = 1 + pick(2), .exclusive = true }; break;
		}
		if (pick(4) == 0)
			req.mem_per_node = 100 * (1 + pick(8));
		else if (pick(4) == 0)
			req.mem_per_cpu = 100 * (1 + pick(3));
		struct sched_job *jb = job(req, pick(6) == 0 ? SCHED_TIME_INFINITE : 100 + pick(3000));
		if (pick(4) == 0)
			jb->time_min = 50 + pick(500);
		int j = jb - w.job;
		if (pick(6) == 0) {
			w.req_node[j][0] = pick(w.nnodes);
			jb->req.required = &w.req_node[j][0];
			jb->req.nrequired = 1;
		}
		if (pick(6) == 0) {
			w.req_node[j][1] = pick(w.nnodes);
			jb->req.excluded = &w.req_node[j][1];
			jb->req.nexcluded = 1;
		}
		if (w.nresv && pick(4) == 0)
			jb->resv = pick(w.nresv);
		if (pick(3) == 0) {
			int nodes[MAXN + 1], n = 0;
			for (int c = w.nnodes - 1; c >= 0; c--)
				if (pick(2) == 0)
					nodes[n++] = c;
			nodes[n] = -1;
			alt(jb, 0, 0, nodes);
			alt(jb, 1, 1, NODES(0));
		}
	}
}

static void same_as_reference(void **state)
{
	struct sched_decision want[MAXJ];
	int seen[4] = { 0 }, shrunk = 0, inresv = 0;

	for (int round = 0; round < 3000; round++) {
		random_world();
		pass();
		ref_backfill(want);
		for (int i = 0; i < w.njobs; i++) {
			const struct sched_decision *d = &w.out[i], *e = &want[i];
			if (d->what != e->what || (e->what != SCHED_D_WAIT && d->start != e->start) ||
			    (e->what == SCHED_D_WAIT && e->start && d->start != e->start) ||
			    d->n != e->n || (e->what == SCHED_D_START && d->time_limit != e->time_limit) ||
			    (d->n && memcmp(d->node, e->node, d->n * sizeof(int)))) {
				print_message("round %d job %d: what %d/%d start %ld/%ld n %d/%d limit %ld/%ld\n",
					      round, i, d->what, e->what, (long)d->start, (long)e->start, d->n,
					      e->n, (long)d->time_limit, (long)e->time_limit);
				fail();
			}
		}
		for (int i = 0; i < w.njobs; i++) {
			seen[w.out[i].what]++;
			shrunk += w.out[i].what == SCHED_D_START && w.out[i].time_limit != w.job[i].time_limit;
			inresv += w.job[i].resv >= 0 && w.out[i].what == SCHED_D_PLANNED;
		}
		sched_decisions_free(want, w.njobs);
	}
	print_message("start %d planned %d wait %d, shrunk %d, planned in a reservation %d\n", seen[1],
		      seen[2], seen[3], shrunk, inresv);
	/* the rounds cover each kind of answer */
	assert_true(seen[1] > 100 && seen[2] > 100 && seen[3] > 100 && shrunk > 10 && inresv > 10);
}

/* The reference main pass: strict priority per partition, nothing planned. */
static void ref_main(struct sched_decision *out)
{
	time_t now = w.params.now;
	bool blocked[4] = { false };

	memset(&ref, 0, sizeof(ref));
	for (int j = 0; j < w.nrun; j++)
		for (int k = 0; k < w.run[j].n; k++)
			ref_add(w.run[j].node[k], 0, -1, w.run[j].cpus[k], w.run[j].mem[k]);
	for (int i = 0; i < w.njobs; i++) {
		const struct sched_job *jb = &w.job[i];
		const struct sched_resv *r = jb->resv >= 0 ? &w.resv[jb->resv] : NULL;
		struct sched_decision *d = &out[i];
		bool busy[4] = { false };

		memset(d, 0, sizeof(*d));
		d->what = SCHED_D_WAIT;
		d->why = SCHED_WHY_NEVER;
		if (r && (r->end <= now || (!(r->flags & SCHED_RESV_FLEX) && r->start > now))) {
			d->why = SCHED_WHY_RESV_NOT_ACTIVE;
			continue;
		}
		for (int a = 0; a < jb->nalt && d->what == SCHED_D_WAIT; a++) {
			int cand[MAXN], ncand = 0, node[MAXN], cpus[MAXN], n;
			const struct sched_alt *al = &jb->alt[a];
			struct sched_node view[MAXN];
			enum sched_why why;
			for (int pass2 = 0; pass2 < 2; pass2++)
				for (int k = 0; k < al->ncand; k++) {
					bool in = !r;
					for (int q = 0; r && q < r->nnodes; q++)
						in |= r->node[q] == al->cand[k];
					if ((pass2 == 0 && in) || (pass2 == 1 && !in && r && (r->flags & SCHED_RESV_FLEX)))
						cand[ncand++] = al->cand[k];
				}
			ref_view(view, now, ref_to(now, jb->time_limit), jb->resv);
			enum sched_fit fit = sched_select(view, cand, ncand, &jb->req, node, cpus, &n, NULL);
			if (fit == SCHED_NEVER) {
				why = SCHED_WHY_NEVER;
			} else if (blocked[al->part]) {
				why = SCHED_WHY_PRIORITY;
			} else if (fit == SCHED_PICKED) {
				d->what = SCHED_D_START;
				d->why = SCHED_WHY_NONE;
				d->alt = a;
				d->start = now;
				d->time_limit = jb->time_limit;
				d->n = n;
				d->node = malloc(n * sizeof(int) + 1);
				d->cpus = malloc(n * sizeof(int) + 1);
				memcpy(d->node, node, n * sizeof(int));
				memcpy(d->cpus, cpus, n * sizeof(int));
				for (int k = 0; k < n; k++)
					ref_add(node[k], now, -1, cpus[k],
						jb->req.mem_per_cpu ? jb->req.mem_per_cpu * cpus[k] : jb->req.mem_per_node);
				break;
			} else {
				busy[a] = true;
				ref_view(view, now, now + 1, -2);   /* would it fit but for reservations? */
				why = sched_select(view, cand, ncand, &jb->req, node, cpus, &n, NULL) == SCHED_PICKED
					      ? SCHED_WHY_RESERVED : SCHED_WHY_RESOURCES;
			}
			int rank[] = { [SCHED_WHY_NEVER] = 1, [SCHED_WHY_PRIORITY] = 2, [SCHED_WHY_RESERVED] = 3,
				       [SCHED_WHY_RESOURCES] = 4 };
			if (rank[why] > rank[d->why])
				d->why = why;
		}
		for (int a = 0; a < jb->nalt && d->what == SCHED_D_WAIT; a++)
			if (busy[a])
				blocked[jb->alt[a].part] = true;
	}
}

static void main_same_as_reference(void **state)
{
	struct sched_decision want[MAXJ];
	int seen[6] = { 0 };

	for (int round = 0; round < 3000; round++) {
		random_world();
		w.params.backfill = false;
		pass();
		ref_main(want);
		for (int i = 0; i < w.njobs; i++) {
			const struct sched_decision *d = &w.out[i], *e = &want[i];
			if (d->what != e->what || d->why != e->why || d->n != e->n ||
			    (d->n && memcmp(d->node, e->node, d->n * sizeof(int)))) {
				print_message("round %d job %d: what %d/%d why %d/%d n %d/%d\n", round, i, d->what,
					      e->what, d->why, e->why, d->n, e->n);
				fail();
			}
			seen[d->why]++;
		}
		sched_decisions_free(want, w.njobs);
	}
	print_message("none %d resources %d priority %d never %d resv not active %d reserved %d\n", seen[0],
		      seen[1], seen[2], seen[3], seen[4], seen[5]);
	for (int why = 0; why < 6; why++)
		assert_true(seen[why] > 20);
}

/* Start estimates hold: jobs (whole nodes, or CPUs spread over nodes) that
 * run exactly their limit,
 * conservative backfill at every start and end (as `herd sim` drives it).
 * Each job starts when the first pass that planned it said, on the nodes
 * it said. */
static void estimates_come_true(void **state)
{
	struct { struct sched_req req; int64_t limit; time_t planned, started, end; int node[MAXN], cpus[MAXN], n; }
		js[MAXJ];
	int kept = 0;

	for (int round = 0; round < 300; round++) {
		int nnodes = 2 + pick(4), njobs = 2 + pick(MAXJ - 2), left = njobs;
		time_t now = NOW;
		for (int j = 0; j < njobs; j++) {
			int k = 1 + pick(nnodes);
			js[j].req = pick(2) ? (struct sched_req){ .nodes = k, .ntasks = k, .exclusive = true }
					    : (struct sched_req){ .ntasks = 1 + pick(4 * nnodes) };
			js[j].limit = 10 + pick(1000);
			js[j].planned = js[j].started = -1;
		}
		for (int step = 0; left > 0 && step < 4 * MAXJ; step++) {
			int map[MAXJ], n = 0;
			world(nnodes, true);
			for (int j = 0; j < njobs; j++)
				if (js[j].started >= 0 && js[j].end > now)
					for (int k = 0; k < js[j].n; k++)
						running(js[j].end, js[j].cpus[k], 0, (const int[]){ js[j].node[k], -1 });
			for (int j = 0; j < njobs; j++)
				if (js[j].started < 0) {
					job(js[j].req, js[j].limit);
					map[n++] = j;
				}
			w.params.now = now;
			pass();
			time_t next = INT64_MAX;
			for (int i = 0; i < n; i++) {
				const struct sched_decision *d = &w.out[i];
				int j = map[i];
				if (d->what == SCHED_D_START) {
					if (js[j].planned >= 0) {
						assert_int_equal(now, js[j].planned);
						assert_int_equal(d->n, js[j].n);
						assert_memory_equal(d->node, js[j].node, d->n * sizeof(int));
						kept++;
					}
					js[j].started = now;
					js[j].end = now + js[j].limit;
					js[j].n = d->n;
					memcpy(js[j].node, d->node, d->n * sizeof(int));
					memcpy(js[j].cpus, d->cpus, d->n * sizeof(int));
					left--;
				} else {
					assert_int_equal(d->what, SCHED_D_PLANNED);
					if (js[j].planned < 0) {
						js[j].planned = d->start;
						js[j].n = d->n;
						memcpy(js[j].node, d->node, d->n * sizeof(int));
					}
					assert_int_equal(d->start, js[j].planned);   /* the same every pass */
					if (d->start < next)
						next = d->start;
				}
			}
			for (int j = 0; j < njobs; j++)
				if (js[j].started >= 0 && js[j].end > now && js[j].end < next)
					next = js[j].end;
			if (next == INT64_MAX)
				break;
			now = next;
		}
		assert_int_equal(left, 0);
	}
	print_message("%d planned starts kept\n", kept);
	assert_true(kept > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(main_fcfs_blocks),
		cmocka_unit_test(backfill_short_not_long),
		cmocka_unit_test(long_job_waits_for_head),
		cmocka_unit_test(conservative),
		cmocka_unit_test(easy),
		cmocka_unit_test(easy_counts_plans_only),
		cmocka_unit_test(easy_on_one_node_is_count_based),
		cmocka_unit_test(time_min_shrinks),
		cmocka_unit_test(window_and_resolution),
		cmocka_unit_test(job_test_and_user_limits),
		cmocka_unit_test(resv_keeps_others_off),
		cmocka_unit_test(resv_own_jobs_inside),
		cmocka_unit_test(resv_not_active),
		cmocka_unit_test(resv_flex),
		cmocka_unit_test(alternatives),
		cmocka_unit_test(memory_limits),
		cmocka_unit_test(gres_plan),
		cmocka_unit_test(gres_main),
		cmocka_unit_test(running_without_end),
		cmocka_unit_test(never_fits),
		cmocka_unit_test(huge_counts_never_fit),
		cmocka_unit_test(same_as_reference),
		cmocka_unit_test(main_same_as_reference),
		cmocka_unit_test(estimates_come_true),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
