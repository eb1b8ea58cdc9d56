/* ctld/prio.c over a controller made in memory: each job's inputs (its
 * partition's PriorityJobFactor against the highest, its QOS's Priority,
 * age, nice, holds, an administrator's priority), and when prio_update
 * recomputes: not before PriorityCalcPeriod has passed, at once after a
 * change, with 100,000 pending jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "ctld/ctld.h"
#include "core/prio.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define T0 1795944000
#define NJOBS 100000

static struct conf_kv kv[] = {
	{ "PriorityType", "priority/multifactor" },
	{ "PriorityWeightAge", "1000" },
	{ "PriorityWeightPartition", "1000" },
	{ "PriorityWeightQOS", "1000" },
	{ "PriorityMaxAge", "1:40" },        /* 100 seconds */
	{ "PriorityCalcPeriod", "5" },       /* minutes */
};
static struct conf conf = { .kv = kv, .nkv = sizeof(kv) / sizeof(kv[0]) };
static struct conf_part part_conf[2];
static int node_idx[2] = { 0, 1 };

static int setup(void **state)
{
	memset(&ctld, 0, sizeof(ctld));
	core.cluster = "c";
	core.conf = &conf;
	core.nnodes = 2;
	core.nodes = xmalloc(2 * sizeof(*core.nodes));
	for (int i = 0; i < 2; i++) {
		core.nodes[i].cpus = 4;
		core.nodes[i].real_memory = 1000;
	}
	/* debug: PriorityJobFactor 1; hi: 4, the highest */
	part_conf[0] = (struct conf_part){ .name = "debug", .priority_job_factor = 1 };
	part_conf[1] = (struct conf_part){ .name = "hi", .priority_job_factor = 4 };
	core.nparts = 2;
	core.parts = xmalloc(2 * sizeof(*core.parts));
	for (int p = 0; p < 2; p++)
		core.parts[p] = (struct part){ .name = part_conf[p].name, .conf = &part_conf[p],
					       .node_idx = node_idx, .nnodes = 2 };
	acct_qos_new("normal", 1);
	acct_qos_new("high", 2)->priority = 50;
	prio_setup();
	return 0;
}

static struct job *pending(uint32_t id, int part, const char *qos)
{
	struct job *j = xmalloc(sizeof(*j));
	j->id = id;
	j->state = JOB_PENDING;
	j->user = xstrdup("nobody");
	j->part = &core.parts[part];
	j->qos = qos ? xstrdup(qos) : NULL;
	j->req_nodes = 1;
	j->submit_time = j->eligible_time = T0;
	j->time_limit = -1;
	j->priority = job_priority(j);   /* at submission (time(NULL), not T0: ... */
	j->accrue_time = T0;             /* ... so submitted at T0, eligible since) */
	job_table_add(j);
	return j;
}

/* hi (1000) + high (1000) + half of PriorityMaxAge (500) - nice 7 */
static void factors(void **state)
{
	assert_true(prio_multifactor());
	struct job *j = pending(1, 1, "high");
	j->nice = 7;
	assert_int_equal(prio_job(j, T0 + 50), 2493);
	assert_non_null(j->prio);
	assert_true(j->prio->partition == 1.0 && j->prio->qos == 1.0 && j->prio->age == 0.5);
	struct job *d = pending(2, 0, NULL);   /* debug 1/4, normal 0, no age yet */
	assert_int_equal(prio_job(d, T0), 250);
	assert_true(d->prio->w_partition == 250 && d->prio->w_qos == 0);
	d->hold_user = true;
	assert_int_equal(job_priority(d), 0);
	d->hold_user = false;
	d->prio_admin = 77;
	assert_int_equal(job_priority(d), 77);   /* fixed, whatever the factors */
	d->prio_admin = 0;
	prio_update(T0);   /* the first recompute: jobs seen eligible from now on accrue from then */
	d->depend = xmalloc(sizeof(*d->depend));   /* waits for another job: no age */
	assert_int_equal(prio_job(d, T0 + 50), 250);
	depend_destroy(d->depend);
	d->depend = NULL;   /* met at T0 + 50: its age counts from then */
	assert_int_equal(prio_job(d, T0 + 50), 250);
	assert_int_equal(prio_job(d, T0 + 100), 250 + 500);
	d->hold_user = true;   /* a hold stops it; the release starts it again */
	prio_update(T0 + 1000);
	d->hold_user = false;
	assert_int_equal(prio_job(d, T0 + 1000), 250);
	assert_int_equal(prio_job(d, T0 + 1025), 250 + 250);
	job_table_clear();
}

static void recompute_only_when_due(void **state)
{
	struct job *first = NULL, *held = NULL, *fixed = NULL;
	for (uint32_t id = 1; id <= NJOBS; id++) {
		struct job *j = pending(id, id % 2, NULL);
		if (id == 1)
			first = j;
	}
	held = job_find(2);
	held->hold_admin = true;
	held->priority = 0;
	fixed = job_find(3);
	fixed->prio_admin = fixed->priority = 9;
	prio_update(T0 + 10);                   /* setup's change: everyone now */
	assert_int_equal(first->priority, 1000 + 100);   /* hi, age 10 of 100 s */
	/* the scheduler calls it before every pass: nothing moves until the
	 * period has passed, though age grew and a QOS changed */
	free(first->qos);
	first->qos = xstrdup("high");
	for (int pass = 1; pass < 1000; pass++)
		prio_update(T0 + 10 + pass % 299);
	assert_int_equal(first->priority, 1100);
	prio_update(T0 + 10 + 300);             /* PriorityCalcPeriod: 5 minutes */
	assert_int_equal(first->priority, 1000 + 1000 + 1000);   /* age capped at 1 */
	assert_int_equal(held->priority, 0);
	assert_int_equal(fixed->priority, 9);
	assert_int_equal(job_find(NJOBS)->priority, 250 + 1000);  /* debug (even ID), aged */
	/* a change (reconfigure, a QOS's Priority) recomputes at the next call */
	acct_qos_find("high")->priority = 100;
	acct_qos_new("top", 3)->priority = 200;
	prio_update(T0 + 320);
	assert_int_equal(first->priority, 3000);
	prio_changed();
	prio_update(T0 + 321);
	assert_int_equal(first->priority, 1000 + 500 + 1000);   /* high: 100 of 200 */
	job_table_clear();
}

/* A reconfigure back to priority/basic: first come first served again. */
static void back_to_basic(void **state)
{
	struct job *j = pending(5, 1, "high");
	j->nice = 3;
	prio_update(T0 + 400);
	assert_true(j->priority < 10000);
	kv[0].value = "priority/basic";
	prio_setup();
	assert_false(prio_multifactor());
	assert_int_equal(j->priority, job_base_priority(5) - 3);
	assert_null(j->prio);
	kv[0].value = "priority/multifactor";
	prio_setup();
	prio_update(T0 + 400);
	assert_true(j->priority < 10000 && j->prio);
	job_table_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(factors),
		cmocka_unit_test(recompute_only_when_due),
		cmocka_unit_test(back_to_basic),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
