/* SchedulerType=sched/backfill's periodic pass: every bf_interval (and soon
 * after a submission or a job end once one is due), a snapshot of the queue
 * (sched.c) is planned over time by sched_pass in a worker (core/env.h), so the
 * loop keeps answering requests meanwhile; its decisions are applied back in
 * the loop thread, each start rechecked against the state of then.  Not
 * here: what the plan decides (src/sched/pass.c). */
#include <stdlib.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/env.h"
#include "core/core.h"
#include "core/sched_snap.h"

static struct {
	struct core_timer timer;     /* every bf_interval */
	struct core_timer soon;      /* a pass asked for by an event */
	struct core_work work;
	bool in_flight;
	uint64_t last_ms;            /* core_now_ms when the last pass began */
	bool ready;
	void **later;                /* backfill_free_later's, while a pass runs */
	size_t nlater;
} bf;

void backfill_free_later(void *p)
{
	if (!bf.in_flight) {
		free(p);
		return;
	}
	if ((bf.nlater & (bf.nlater - 1)) == 0)   /* 0, 1, 2, 4, ...: doubled */
		bf.later = xrealloc(bf.later, (bf.nlater ? 2 * bf.nlater : 1) * sizeof(*bf.later));
	bf.later[bf.nlater++] = p;
}

static void free_the_later(void)
{
	for (size_t i = 0; i < bf.nlater; i++)
		free(bf.later[i]);
	free(bf.later);
	bf.later = NULL;
	bf.nlater = 0;
}

static bool enabled(void)
{
	return sched_conf.backfill && sched_conf.bf_interval > 0;
}

static void work_cb(struct core_work *w)
{
	snap_run(w->data);   /* plain data only: no ctld state here */
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void after_cb(struct core_work *w, bool ran)
{
	struct sched_snap *s = w->data;
	struct timespec t0;
	struct sched_stats *st = (struct sched_stats *)sched_stats();

	bf.in_flight = false;
	free_the_later();   /* the worker is done with them */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int started = ran ? snap_apply(s, true) : 0;
	double apply_ms = ms_since(&t0);
	st->bf_passes++;
	st->bf_last_ms = s->ms;
	st->bf_apply_last_ms = apply_ms;
	if (s->ms > st->bf_max_ms)
		st->bf_max_ms = s->ms;
	log_debug("sched: backfill pass: %d jobs, %d started, pass %.3f ms, apply %.3f ms",
		  s->njobs, started, s->ms, apply_ms);
	snap_destroy(s);
	if (started)
		sched_request();   /* what they leave for the main pass (nothing, often) */
}

void backfill_start(void)
{
	struct sched_snap *s;

	if (!enabled() || bf.in_flight)
		return;
	bf.last_ms = core_now_ms();
	s = snap_create(true, sched_conf.bf_max_job_test, core_now(), NULL);
	if (!s->njobs) {
		snap_destroy(s);
		return;
	}
	bf.in_flight = true;
	bf.work = (struct core_work){ .run = work_cb, .done = after_cb, .data = s };
	if (core_work_queue(&bf.work) < 0) {
		bf.in_flight = false;
		snap_destroy(s);
	}
}

static void timer_cb(struct core_timer *t)
{
	backfill_start();
}

void backfill_poke(void)
{
	if (!bf.ready || !enabled() || bf.in_flight || core_timer_active(&bf.soon))
		return;
	if (core_now_ms() - bf.last_ms >= (uint64_t)sched_conf.bf_interval * 1000)
		core_timer_start(&bf.soon, 50, 0);   /* after the events of now */
}

void backfill_configure(void)
{
	if (!bf.ready)
		return;
	core_timer_stop(&bf.timer);
	if (enabled())
		core_timer_start(&bf.timer, sched_conf.bf_interval * 1000,
				 sched_conf.bf_interval * 1000);
}

void backfill_setup(void)
{
	if (!bf.timer.impl) {   /* once: a second sched_setup (tests) keeps them */
		core_timer_init(&bf.timer, timer_cb);
		core_timer_init(&bf.soon, timer_cb);
	}
	bf.ready = true;
	backfill_configure();
}
