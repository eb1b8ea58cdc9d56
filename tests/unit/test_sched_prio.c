/* The multifactor formula (src/sched/prio.c) on hand-worked figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched/prio.h"

#define DAY 86400

/* 10 nodes of 8 CPUs; partitions' highest PriorityJobFactor 10, QOS' 100. */
static const struct prio_cluster cluster = {
	.nodes = 10, .cpus = 80, .max_part_factor = 10, .max_qos_priority = 100,
	.max_assoc_priority = 4,
};

static void weights(struct prio_weights *w)
{
	prio_weights_init(w);
	w->age = 1000;
	w->fairshare = 10000;
	w->job_size = 1000;
	w->partition = 1000;
	w->qos = 1000;
}

static struct prio_job job_2x8(void)
{
	struct prio_job j = {
		.submit_time = 1000, .eligible_time = 1000, .nodes = 2, .cpus = 16,
		.time_limit = 3600, .fairshare = 0.25, .part_factor = 5, .qos_priority = 20,
		.nice = 100,
	};
	return j;
}

/* age 3.5 of 7 days: 0.5 -> 500; fair-share 0.25 -> 2500; size (2/10 +
 * 16/80) / 2 = 0.2 -> 200; partition 5/10 -> 500; QOS 20/100 -> 200;
 * nice 100: 3800. */
static void all_factors(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	struct prio_factors f;
	weights(&w);
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000 + 7 * DAY / 2, &f), 3800);
	assert_true(f.age == 0.5 && f.w_age == 500);
	assert_true(f.fairshare == 0.25 && f.w_fairshare == 2500);
	assert_true(f.job_size == 0.2 && f.w_job_size == 200);
	assert_true(f.partition == 0.5 && f.w_partition == 500);
	assert_true(f.qos == 0.2 && f.w_qos == 200);
	assert_int_equal(f.nice, 100);
	assert_true(f.assoc == 0.0 && f.w_assoc == 0);
	/* the sum of the weighted factors is the priority */
	assert_true(f.site + f.w_age + f.w_fairshare + f.w_job_size + f.w_partition + f.w_qos -
		    f.nice == 3800);
}

static void age(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	struct prio_factors f;
	weights(&w);
	prio_compute(&w, &cluster, &j, 1000 + 30 * DAY, &f);
	assert_true(f.age == 1.0);                       /* capped at PriorityMaxAge */
	w.max_age = 2 * DAY;
	prio_compute(&w, &cluster, &j, 1000 + DAY / 2, &f);
	assert_true(f.age == 0.25);
	prio_compute(&w, &cluster, &j, 500, &f);
	assert_true(f.age == 0.0);                       /* not eligible yet */
	j.eligible_time = 0;                             /* held, dependent: no accrual */
	prio_compute(&w, &cluster, &j, 1000 + DAY, &f);
	assert_true(f.age == 0.0);
	w.flags = PRIO_FLAG_ACCRUE_ALWAYS;               /* from submission all the same */
	prio_compute(&w, &cluster, &j, 1000 + DAY, &f);
	assert_true(f.age == 0.5);
}

static void job_size(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	struct prio_factors f;
	weights(&w);
	w.favor_small = true;   /* (8/10 + 64/80) / 2 */
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.job_size == 0.8);
	j.cpus = 0;             /* nodes only */
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.job_size == 0.8);
	w.favor_small = false;
	j.nodes = 10;
	j.cpus = 80;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.job_size == 1.0);
	/* SMALL_RELATIVE_TO_TIME: 2 nodes = 16 CPUs (the cluster's 8 a node),
	 * more than the 4 asked; per minute of 60: 16 / 60 / 80 */
	w.flags = PRIO_FLAG_SMALL_RELATIVE_TO_TIME;
	j = job_2x8();
	j.cpus = 4;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_float_equal(f.job_size, 16.0 / 60 / 80, 1e-12);
	w.favor_small = true;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_float_equal(f.job_size, 1 - 16.0 / 60 / 80, 1e-12);
	j.time_limit = -1;      /* no limit */
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.job_size == 1.0);
}

static void tres(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	struct prio_factors f;
	char buf[64];
	weights(&w);
	w.age = w.fairshare = w.job_size = w.partition = w.qos = 0;
	assert_int_equal(prio_tres_weights_parse("CPU=2000,Mem=1000", w.tres, buf, sizeof(buf)), 0);
	j.nice = 0;
	j.tres[PRIO_TRES_CPU] = 16;
	j.tres[PRIO_TRES_MEM] = 32000;
	j.part_tres[PRIO_TRES_CPU] = 80;
	j.part_tres[PRIO_TRES_MEM] = 128000;
	/* 16/80 x 2000 + 32000/128000 x 1000 */
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000, &f), 650);
	prio_tres_string(&w, &f, buf, sizeof(buf));
	assert_string_equal(buf, "cpu=400,mem=250");
	w.flags = PRIO_FLAG_NO_NORMAL_TRES;   /* the counts themselves */
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000, &f), 16 * 2000 + 32000 * 1000);
	memset(w.tres, 0, sizeof(w.tres));
	prio_compute(&w, &cluster, &j, 1000, &f);
	prio_tres_string(&w, &f, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void normalization_flags(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	struct prio_factors f;
	weights(&w);
	w.assoc = 100;
	j.assoc_priority = 3;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.assoc == 0.75 && f.w_assoc == 75);
	w.flags = PRIO_FLAG_NO_NORMAL_QOS;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.qos == 20 && f.w_qos == 20000);
	w.flags = PRIO_FLAG_NO_NORMAL_ALL;
	prio_compute(&w, &cluster, &j, 1000, &f);
	assert_true(f.partition == 5 && f.assoc == 3 && f.qos == 20);
	/* nothing to normalize against: 0, not a division by zero */
	struct prio_cluster empty = { 0 };
	w.flags = 0;
	prio_compute(&w, &empty, &j, 1000, &f);
	assert_true(f.partition == 0 && f.qos == 0 && f.assoc == 0 && f.job_size == 0);
}

static void bounds(void **state)
{
	struct prio_weights w;
	struct prio_job j = job_2x8();
	weights(&w);
	j.held = true;
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000 + DAY, NULL), 0);
	j.held = false;
	j.nice = 1000000;   /* far below 0: 1, as 0 is for held jobs */
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000, NULL), 1);
	j.nice = -2147483645LL;
	j.site = 2147483647LL;
	assert_int_equal(prio_compute(&w, &cluster, &j, 1000, NULL), 0xFFFFFFFEu);
	/* truncated: 10000 x 0.25 + 1000 x 0.0037 */
	prio_weights_init(&w);
	w.fairshare = 10000;
	w.qos = 1000;
	j = job_2x8();
	j.nice = 0;
	j.qos_priority = 37;
	struct prio_cluster c = cluster;
	c.max_qos_priority = 10000;
	assert_int_equal(prio_compute(&w, &c, &j, 1000, NULL), 2503);
	j.site = 7;
	assert_int_equal(prio_compute(&w, &c, &j, 1000, NULL), 2510);
}

static void parse(void **state)
{
	unsigned flags;
	char err[128];
	double tw[PRIO_TRES_COUNT];
	assert_int_equal(prio_flags_parse("ACCRUE_ALWAYS,no_normal_all", &flags, err, sizeof(err)),
			 0);
	assert_int_equal(flags, PRIO_FLAG_ACCRUE_ALWAYS | PRIO_FLAG_NO_NORMAL_ALL);
	assert_int_equal(prio_flags_parse(NULL, &flags, err, sizeof(err)), 0);
	assert_int_equal(flags, 0);
	assert_int_equal(prio_flags_parse("MAX_TRES,BOGUS", &flags, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "BOGUS"));
	assert_int_equal(prio_tres_weights_parse("CPU=1000,Mem=2000,GRES/gpu=3000", tw, err,
						 sizeof(err)), 0);
	assert_true(tw[PRIO_TRES_CPU] == 1000 && tw[PRIO_TRES_MEM] == 2000 &&
		    tw[PRIO_TRES_GPU] == 3000 && tw[PRIO_TRES_NODE] == 0);
	assert_int_equal(prio_tres_weights_parse("disk=1", tw, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "disk"));
	assert_int_equal(prio_tres_weights_parse("cpu=x", tw, err, sizeof(err)), -1);
	assert_int_equal(prio_tres_weights_parse("cpu", tw, err, sizeof(err)), -1);
	assert_int_equal(prio_tres_weights_parse("cpu=-1", tw, err, sizeof(err)), -1);
	assert_string_equal(prio_tres_name(PRIO_TRES_GPU), "gres/gpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_factors),
		cmocka_unit_test(age),
		cmocka_unit_test(job_size),
		cmocka_unit_test(tres),
		cmocka_unit_test(normalization_flags),
		cmocka_unit_test(bounds),
		cmocka_unit_test(parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
