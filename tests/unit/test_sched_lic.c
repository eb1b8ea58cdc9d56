/* Licenses in the scheduling pass (src/sched/lic.c through pass.c): the
 * main pass starts a job only when its licenses are free, and a job that
 * waits for them holds back no one; backfill without lic_plan leaves it
 * unplanned (Slurm without bf_licenses), with lic_plan holds them over time
 * like nodes.  now = 1000; two nodes of 4 CPUs; license 0 has 2, license 1
 * has 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched/pass.h"

#define NOW 1000
#define MAXJ 8

static struct {
	struct sched_node nodes[2];
	int cand[2];
	struct sched_alt alt;
	struct sched_run run[MAXJ];
	int run_node[MAXJ], run_cpus[MAXJ];
	uint64_t run_mem[MAXJ];
	struct sched_lic run_lic[MAXJ];
	int nrun;
	struct sched_job job[MAXJ];
	struct sched_lic lic[MAXJ][2];
	int njobs;
	int64_t lic_free[2];
	struct sched_params params;
	struct sched_decision out[MAXJ];
} w;

static void world(bool backfill, bool plan)
{
	sched_decisions_free(w.out, MAXJ);
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		w.nodes[i] = (struct sched_node){ .cpus = 4, .memory = 1000, .usable = true };
		w.cand[i] = i;
	}
	w.alt = (struct sched_alt){ .part = 0, .cand = w.cand, .ncand = 2 };
	w.lic_free[0] = 2;
	w.lic_free[1] = 1;
	w.params = (struct sched_params){
		.now = NOW, .backfill = backfill, .window = 86400, .resolution = 1, .nparts = 1,
		.nlic = 2, .lic_free = w.lic_free, .lic_plan = plan,
	};
}

/* A running job of one CPU on node 0 holding count of license lic until end. */
static void running(time_t end, int lic, uint32_t count)
{
	int r = w.nrun++;
	w.run_node[r] = 0;
	w.run_cpus[r] = 1;
	w.nodes[0].alloc_cpus++;
	w.nodes[0].njobs++;
	w.run_lic[r] = (struct sched_lic){ lic, count };
	w.lic_free[lic] -= count;
	w.run[r] = (struct sched_run){ .node = &w.run_node[r], .cpus = &w.run_cpus[r],
				       .mem = &w.run_mem[r], .n = 1, .end = end,
				       .lic = &w.run_lic[r], .nlic = 1 };
}

/* A pending job of ntasks CPUs for time_limit, asking lic0 of license 0
 * and lic1 of license 1 (0: not asked), all of them or (any) one. */
static void job(int ntasks, int64_t time_limit, uint32_t lic0, uint32_t lic1, bool any)
{
	int j = w.njobs++, n = 0;
	if (lic0)
		w.lic[j][n++] = (struct sched_lic){ 0, lic0 };
	if (lic1)
		w.lic[j][n++] = (struct sched_lic){ 1, lic1 };
	w.job[j] = (struct sched_job){ .id = j + 1, .user = 1, .req = { .ntasks = ntasks },
				       .alt = &w.alt, .nalt = 1, .time_limit = time_limit, .resv = -1,
				       .lic = w.lic[j], .nlic = n, .lic_any = any };
}

static struct sched_resv resv;
static struct sched_lic resv_lic;
static int nresv;

static void pass(void)
{
	sched_pass(&w.params, w.nodes, 2, w.run, w.nrun, nresv ? &resv : NULL, nresv, w.job, w.njobs,
		   w.out);
}

static void expect(int j, enum sched_what what, enum sched_why why, time_t start)
{
	const struct sched_decision *d = &w.out[j];
	print_message("job %d: what %d why %d start %ld\n", j, d->what, d->why, (long)d->start);
	assert_int_equal(d->what, what);
	assert_int_equal(d->why, why);
	if (what != SCHED_D_WAIT)
		assert_int_equal(d->start, start);
}

/* One of license 0 is held: a job asking 2 waits (Licenses) and the lower
 * jobs of its partition still start; the starts of the pass count. */
static void main_pass_licenses(void **state)
{
	world(false, false);
	running(2000, 0, 1);
	job(1, 100, 2, 0, false);
	job(1, 100, 0, 0, false);
	job(1, 100, 1, 0, false);
	job(1, 100, 1, 0, false);
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(3, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
}

/* a|b: the first item free is taken; the next such job finds none. */
static void or_takes_one(void **state)
{
	world(false, false);
	running(2000, 0, 2);
	job(1, 100, 1, 1, true);
	job(1, 100, 1, 1, true);
	job(1, 100, 0, 0, false);
	pass();
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(1, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
	expect(2, SCHED_D_START, SCHED_WHY_NONE, NOW);
}

/* Backfill without planning: the job waiting for licenses gets no plan,
 * and a lower job takes the license it waits for (Slurm's default). */
static void backfill_unplanned(void **state)
{
	world(true, false);
	running(2000, 0, 1);
	job(1, 1000, 2, 0, false);
	job(1, 5000, 1, 0, false);
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
	assert_int_equal(w.out[0].n, 0);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW);
}

/* bf_licenses: the head job is planned when the running job gives its
 * license back (2000); a short job that ends before then starts now; a long
 * one would keep the head from its start, so it goes after it (3000). */
static void backfill_plans_licenses(void **state)
{
	world(true, true);
	running(2000, 0, 1);
	job(1, 1000, 2, 0, false);
	job(1, 500, 1, 0, false);
	job(1, 2000, 1, 0, false);
	pass();
	expect(0, SCHED_D_PLANNED, SCHED_WHY_LICENSES, 2000);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(2, SCHED_D_PLANNED, SCHED_WHY_LICENSES, 3000);
}

/* A license no one configured (index -1) never fits; a count of 0 always does. */
static void unknown_and_zero(void **state)
{
	world(false, false);
	job(1, 100, 0, 0, false);
	w.lic[0][0] = (struct sched_lic){ -1, 1 };
	w.job[0].nlic = 1;
	job(1, 100, 0, 0, false);
	w.lic[1][0] = (struct sched_lic){ 1, 0 };
	w.job[1].nlic = 1;
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW);
}

/* A reservation active now holding both of license 0 (on no node that
 * matters here): free outside is 0; its own job gets them, then the
 * outside count goes below 0 (Slurm counts the reservation whole). */
static void reservation_lends_its_own(void **state)
{
	world(false, false);
	int cand = 1;
	resv = (struct sched_resv){ .start = NOW - 10, .end = NOW + 3600, .node = &cand, .nnodes = 1,
				    .flags = SCHED_RESV_FLEX, .lic = &resv_lic, .nlic = 1 };
	resv_lic = (struct sched_lic){ 0, 2 };
	nresv = 1;
	w.lic_free[0] = 0;   /* 2 - 0 used - 2 reserved */
	job(1, 100, 1, 0, false);
	job(1, 100, 2, 0, false);
	w.job[1].resv = 0;
	job(1, 100, 1, 0, false);
	w.job[2].resv = 0;
	pass();
	expect(0, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);
	expect(1, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(2, SCHED_D_WAIT, SCHED_WHY_LICENSES, 0);   /* its reservation's are taken */
	world(true, true);   /* planning: the same */
	w.lic_free[0] = 0;
	job(1, 100, 2, 0, false);
	w.job[0].resv = 0;
	job(1, 100, 1, 0, false);
	pass();
	expect(0, SCHED_D_START, SCHED_WHY_NONE, NOW);
	expect(1, SCHED_D_PLANNED, SCHED_WHY_LICENSES, NOW + 3600);   /* the reservation's end */
	nresv = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(main_pass_licenses),
		cmocka_unit_test(or_takes_one),
		cmocka_unit_test(backfill_unplanned),
		cmocka_unit_test(backfill_plans_licenses),
		cmocka_unit_test(unknown_and_zero),
		cmocka_unit_test(reservation_lends_its_own),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	sched_decisions_free(w.out, MAXJ);
	return rc;
}
