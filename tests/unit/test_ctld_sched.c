/* ctld/sched.c's snapshot (sched_snap.h): which pending jobs go into a pass,
 * in which order (PriorityTier, priority, ID), with which alternatives
 * (partitions in the user's order, those that cannot take the job left out
 * with their reason), an array's pending record as k entries, the depth of
 * an event-driven pass; and sbatch --test-only's answer on free and busy
 * nodes.  Nothing is started here: decisions are read, not applied. */
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
#include "common/parse.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "core/sched_snap.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static char dir[] = "/tmp/herd-test-sched-XXXXXX";

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
		   "SchedulerParameters=bf_resolution=1\n");
	for (int i = 1; i <= 3; i++)
		fprintf(f, "NodeName=n%d NodeAddr=127.0.0.1 Port=2 CPUs=2 RealMemory=1000\n", i);
	fprintf(f, "PartitionName=low Nodes=n[1-3] Default=YES PriorityTier=1\n"
		   "PartitionName=high Nodes=n[1-2] PriorityTier=2\n"
		   "PartitionName=off Nodes=n3 State=DOWN\n"
		   "PartitionName=short Nodes=n3 MaxTime=10\n");
	fclose(f);
	core.conf = conf_load(path, &err);
	assert_non_null(core.conf);
	ctld.loop = uv_default_loop();
	core.cluster = "t";
	core.next_job_id = 1;
	reconf_settings(core.conf);
	node_setup();
	part_setup();
	sched_setup();
	for (int i = 0; i < core.nnodes; i++) {
		core.nodes[i].registered = true;
		core.nodes[i].state = NODE_IDLE;
	}
	return 0;
}

/* Priorities as the controller gives them without multifactor: base (by
 * ID) - nice, so prio_update leaves them as they are. */
static struct job *pending(const char *parts, int nice, int64_t limit)
{
	struct job *job = xmalloc(sizeof(*job));
	struct herd_error err;

	job->id = core.next_job_id++;
	job->uid = 1000;
	job->user = xstrdup("u");
	job->name = xstrdup("j");
	job->time_limit = limit;
	job->time_min = TIME_NOT_GIVEN;
	job->kill_invalid_dep = -1;
	job->durable = true;
	job->state = JOB_PENDING;
	job->req_nodes = 1;
	job->nice = nice;
	job->priority = job_priority(job);
	job->submit_time = job->eligible_time = time(NULL) - 10;
	if (strchr(parts, ','))
		job->partitions = xstrdup(parts);
	job->part = part_find(strchr(parts, ',') ? "low" : parts);
	assert_int_equal(job_resolve(job, &err), 0);
	if (job->nparts)
		job->part = job->parts[0];
	job_table_add(job);
	return job;
}

static void forget_all(void)
{
	for (uint32_t id = 1; id < core.next_job_id; id++) {
		struct job *job = job_find(id);
		if (job && job->nalloc)
			node_free(job);
		if (job)
			job_forget(job);
	}
}

static int entry_of(const struct sched_snap *s, uint32_t id)
{
	for (int i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == id)
			return i;
	return -1;
}

static void order_and_alternatives(void **state)
{
	struct job *a = pending("low", 0, 60);
	struct job *b = pending("high", 100, 60);            /* PriorityTier 2 first */
	struct job *c = pending("low", 0, 60);
	struct job *d = pending("low", -200, 60);
	struct job *both = pending("short,low", 50, 3600);   /* over short's MaxTime (10 minutes) */
	struct job *off = pending("off", -500, 60);
	struct job *held = pending("low", -900, 60);
	held->hold_user = true;
	held->reason = REASON_HELD_USER;

	struct sched_snap *s = snap_create(false, 0, time(NULL), NULL);
	uint32_t want[] = { b->id, d->id, a->id, c->id, both->id };
	int n = 0;
	for (int i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == want[n])
			n++;
	assert_int_equal(n, 5);   /* in that order */
	assert_int_equal(entry_of(s, off->id), -1);
	assert_int_equal(off->reason, REASON_PART_DOWN);
	assert_int_equal(entry_of(s, held->id), -1);
	int e = entry_of(s, both->id);
	assert_int_equal(s->jobs[e].nalt, 1);   /* short left out */
	assert_string_equal(core.parts[s->jobs[e].alt[0].part].name, "low");
	assert_int_equal(s->skip[e], REASON_PART_TIME_LIMIT);
	assert_int_equal(s->jobs[e].alt[0].ncand, 3);
	e = entry_of(s, b->id);
	assert_int_equal(s->jobs[e].alt[0].ncand, 2);
	snap_destroy(s);

	/* an event-driven pass looks at the first few only */
	s = snap_create(false, 2, time(NULL), NULL);
	assert_int_equal(s->njobs, 2);
	assert_int_equal(s->jobs[0].id, b->id);
	assert_int_equal(s->jobs[1].id, d->id);
	snap_destroy(s);
	forget_all();
}

static void array_entries(void **state)
{
	struct job *meta = pending("low", 0, 60);
	meta->array_job_id = meta->id;
	meta->array_task_id = ARRAY_NO_TASK;
	meta->array_pending = bitmap_create(10);
	for (int t = 0; t < 5; t++)
		bitmap_set(meta->array_pending, t);
	meta->array_throttle = 2;
	struct sched_snap *s = snap_create(false, 0, time(NULL), NULL);
	assert_int_equal(s->njobs, 2);   /* the throttle's room */
	assert_int_equal(s->jobs[0].id, meta->id);
	assert_int_equal(s->jobs[1].id, meta->id);
	snap_destroy(s);
	meta->array_throttle = 0;
	s = snap_create(false, 0, time(NULL), NULL);
	assert_int_equal(s->njobs, 5);   /* one per pending task */
	snap_run(s);
	int starts = 0;
	for (int i = 0; i < s->njobs; i++)
		starts += s->out[i].what == SCHED_D_START;
	assert_int_equal(starts, 5);   /* 6 CPUs: one task each */
	snap_destroy(s);
	forget_all();
}

/* A whole-queue snapshot's per-entry arrays are the next one's
 * (sched_snap.c keeps them: fresh pages cost more than the pass), never an
 * event-driven or backfill pass's, and the decisions made on them are the
 * same; grown past their room by an array's entries and let go before any
 * pass, nothing stale in them is freed. */
static void whole_queue_arrays_kept(void **state)
{
	time_t now = time(NULL);
	pending("low", 0, 60);
	pending("low", 0, 60);

	struct sched_snap *s = snap_create(false, 0, now, NULL);
	snap_run(s);
	struct sched_job *kept = s->jobs;
	assert_int_equal(s->njobs, 2);
	struct sched_decision first[2] = { s->out[0], s->out[1] };
	int first_node[2] = { s->out[0].node[0], s->out[1].node[0] };
	assert_int_equal(first[0].what, SCHED_D_START);
	snap_destroy(s);

	s = snap_create(true, sched_conf.bf_max_job_test, now, NULL);
	assert_ptr_not_equal(s->jobs, kept);
	snap_destroy(s);
	s = snap_create(false, 1, now, NULL);
	assert_ptr_not_equal(s->jobs, kept);
	snap_destroy(s);

	s = snap_create(false, 0, now, NULL);
	assert_ptr_equal(s->jobs, kept);
	snap_run(s);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(s->out[i].what, first[i].what);
		assert_int_equal(s->out[i].n, first[i].n);
		assert_int_equal(s->out[i].node[0], first_node[i]);
	}
	snap_destroy(s);

	struct job *meta = pending("low", 0, 60);
	meta->array_job_id = meta->id;
	meta->array_task_id = ARRAY_NO_TASK;
	meta->array_pending = bitmap_create(200);
	for (int t = 0; t < 200; t++)
		bitmap_set(meta->array_pending, t);
	s = snap_create(false, 0, now, NULL);
	assert_int_equal(s->njobs, 102);   /* the array's 100 (at most) and the two */
	snap_destroy(s);                   /* no pass: decisions all empty */
	s = snap_create(false, 0, now, NULL);
	snap_run(s);
	int starts = 0;
	for (int i = 0; i < s->njobs; i++)
		starts += s->out[i].what == SCHED_D_START;
	assert_int_equal(starts, 6);   /* 6 CPUs, one each */
	snap_destroy(s);
	forget_all();
}

static struct job *running(int node, int64_t limit, time_t start)
{
	struct job *job = pending("low", 0, limit);
	job->state = JOB_RUNNING;
	job->exclusive = true;
	job->start_time = start;
	job->nalloc = 1;
	job->alloc_node = xmalloc(sizeof(int));
	job->alloc_cpus = xmalloc(sizeof(int));
	job->alloc_node[0] = node;
	job->alloc_cpus[0] = 2;
	node_alloc(job);
	return job;
}

static void test_only(void **state)
{
	struct job tried = { 0 };
	time_t start, now = time(NULL);
	char *nodes = NULL;
	int cpus = 0;
	const struct part *part = NULL;
	struct herd_error err;

	tried.req_nodes = 3;
	tried.exclusive = true;
	tried.time_limit = 600;
	tried.time_min = TIME_NOT_GIVEN;
	tried.part = part_find("low");
	tried.uid = 1000;
	assert_int_equal(sched_test_only(&tried, &start, &nodes, &cpus, &part, &err), 0);
	assert_true(start >= now && start <= now + 2);
	assert_string_equal(nodes, "n[1-3]");
	assert_int_equal(cpus, 6);
	assert_string_equal(part->name, "low");
	free(nodes);

	/* n2 busy until now + 300: then */
	running(1, 300, now);
	assert_int_equal(sched_test_only(&tried, &start, &nodes, &cpus, &part, &err), 0);
	assert_true(start >= now + 299 && start <= now + 302);
	assert_string_equal(nodes, "n[1-3]");
	free(nodes);

	/* a higher pending job planned first on all three: after it */
	struct job *big = pending("low", 0, 1000);
	big->req_nodes = 3;
	big->exclusive = true;
	assert_int_equal(sched_test_only(&tried, &start, &nodes, &cpus, &part, &err), 0);
	assert_true(start >= now + 1299 && start <= now + 1302);
	free(nodes);

	/* never: more nodes than the partition has */
	tried.req_nodes = 4;
	assert_int_not_equal(sched_test_only(&tried, &start, &nodes, &cpus, &part, &err), 0);
	forget_all();
}

/* issue 13: a -w/-x list is expanded only when it names at most as many
 * hosts as there are nodes (counted before expanding), and its names are
 * looked up by hash; huge counts never fit (rc 2014). */
static void node_lists_and_counts_bounded(void **state)
{
	(void)state;
	struct herd_error err = { "" };
	struct job *job = pending("low", 0, 60);

	assert_int_equal(node_index("n1"), 0);
	assert_int_equal(node_index("n3"), 2);
	assert_int_equal(node_index("n4"), -1);
	job->req_nodelist = xstrdup("n[1-3]");
	assert_int_equal(job_check_placement(job, &err), 0);
	assert_int_equal(job->nreq_idx, 3);
	free(job->req_nodelist);
	job->req_nodelist = xstrdup("n[1-4]");
	assert_int_equal(job_check_placement(job, &err), HERD_ERR_INVALID_NODE);
	assert_non_null(strstr(err.text, "more than the 3 nodes"));
	/* 10,000 characters x 100,000: refused from the expression alone */
	free(job->req_nodelist);
	job->req_nodelist = xmalloc(10000 + 16);
	memset(job->req_nodelist, 'a', 10000);
	strcpy(job->req_nodelist + 10000, "[0-99999]");
	assert_int_equal(job_check_placement(job, &err), HERD_ERR_INVALID_NODE);
	free(job->req_nodelist);
	job->req_nodelist = NULL;
	assert_int_equal(job_check_placement(job, &err), 0);
	job->req_nodes = 0;
	job->ntasks = 65536;
	job->cpus_per_task = 65536;
	assert_int_equal(sched_job_runnable(job, &err), HERD_ERR_NODE_CONFIG);
	job->ntasks = 49152;
	assert_int_equal(sched_job_runnable(job, &err), HERD_ERR_NODE_CONFIG);
	job->ntasks = 6;
	job->cpus_per_task = 1;
	assert_int_equal(sched_job_runnable(job, &err), 0);
	forget_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node_lists_and_counts_bounded),
		cmocka_unit_test(order_and_alternatives),
		cmocka_unit_test(array_entries),
		cmocka_unit_test(whole_queue_arrays_kept),
		cmocka_unit_test(test_only),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
