/* herd sim's environment for the controller core (herd/sim_env.c): the
 * virtual clock, timers in due order (ties in arming order), repeating
 * timers coalesced, one-shot timers alone deciding the next event, work at
 * once, effects handed to the replay's hooks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "core/job.h"
#include "herd/sim_env.h"



static char fired[64];
static size_t nfired;
static uint64_t fired_at[64];
static struct core_timer a, b, c, tick;

static void note(struct core_timer *t)
{
	fired[nfired] = t == &a ? 'a' : t == &b ? 'b' : t == &c ? 'c' : 't';
	fired_at[nfired++] = sim_env_now_ms();
}

static int teardown(void **state)
{
	core_timer_close(&a);
	core_timer_close(&b);
	core_timer_close(&c);
	core_timer_close(&tick);
	return 0;
}

/* b re-arms a at once: it fires in the same move, after b. */
static void rearm_a(struct core_timer *t)
{
	note(t);
	core_timer_start(&a, 0, 0);
}

static int setup(void **state)
{
	core_env = sim_env_table(NULL, 1000000000);
	sim_env_reset();
	memset(fired, 0, sizeof(fired));
	nfired = 0;
	core_timer_init(&a, note);
	core_timer_init(&b, note);
	core_timer_init(&c, note);
	core_timer_init(&tick, note);
	return 0;
}

static void due_order_and_ties(void **state)
{
	core_timer_start(&c, 500, 0);
	core_timer_start(&a, 200, 0);
	core_timer_start(&b, 200, 0);   /* same time as a, armed after it */
	assert_int_equal(core_timer_due_in(&c), 500);
	assert_int_equal(sim_env_next_due(false), 200);
	sim_env_advance(400);
	assert_string_equal(fired, "ab");
	assert_int_equal(fired_at[0], 200);
	assert_int_equal(sim_env_now_ms(), 400);
	assert_int_equal(core_now(), 1000000000);   /* 0.4 s on: the same second */
	assert_true(core_timer_active(&c));
	assert_false(core_timer_active(&a));
	core_timer_stop(&c);
	assert_int_equal(sim_env_next_due(false), UINT64_MAX);
	sim_env_advance(10000);
	assert_string_equal(fired, "ab");
	assert_int_equal(core_now(), 1000000010);
	assert_int_equal(core_now_ms(), 10000);
}

static void repeating_timers_coalesce(void **state)
{
	tick.poll = true;
	core_timer_start(&tick, 1000, 1000);
	core_timer_start(&a, 3600 * 1000, 0);
	core_timer_start(&b, 60 * 1000, 60 * 1000);   /* a periodic pass */
	/* the tick does not make the next event: an hour's replay is not
	 * 3,600 stops; the pass does when asked for */
	assert_int_equal(sim_env_next_due(true), 60 * 1000 + 500);   /* mid-second */
	core_timer_stop(&b);
	assert_int_equal(sim_env_next_due(true), 3600 * 1000);
	sim_env_advance(3600 * 1000);
	assert_string_equal(fired, "ta");   /* once, at its first due time */
	assert_int_equal(fired_at[0], 1500);
	assert_int_equal(core_timer_due_in(&tick), 500);   /* its next, in its phase */
	sim_env_advance(3600 * 1000 + 2500);
	assert_string_equal(fired, "tat");
	assert_int_equal(fired_at[2], 3600 * 1000 + 500);
}

/* Armed in mid-second (a reconfigure after an arrival), a periodic timer
 * still runs in the middle of its seconds; one-shot timers keep their ms. */
static void periodic_phase(void **state)
{
	sim_env_advance(7000);
	core_timer_start(&a, 50, 0);
	core_timer_start(&tick, 1000, 1000);
	assert_int_equal(core_timer_due_in(&a), 50);
	assert_int_equal(core_timer_due_in(&tick), 1500);
	sim_env_advance(7200);
	core_timer_start(&b, 1000, 1000);
	assert_int_equal(core_timer_due_in(&b), 1300);
	sim_env_advance(9000);
	assert_string_equal(fired, "atb");
	assert_int_equal(fired_at[1], 8500);
	assert_int_equal(fired_at[2], 8500);
}

static void armed_while_firing(void **state)
{
	core_timer_close(&b);
	core_timer_init(&b, rearm_a);
	core_timer_start(&b, 10, 0);
	sim_env_advance(10);
	assert_string_equal(fired, "ba");
	assert_int_equal(fired_at[1], 10);
}

static int ran, done;

static void work_run(struct core_work *w)
{
	ran++;
}

static void work_done(struct core_work *w, bool ok)
{
	assert_true(ok);
	assert_int_equal(ran, 1);
	done++;
}

static struct job *launched, *ended;

static void hook_launch(struct job *job)
{
	launched = job;
}

static void hook_terminate(struct job *job)
{
	ended = job;
}

static void work_and_effects(void **state)
{
	struct core_work w = { .run = work_run, .done = work_done };
	assert_int_equal(core_work_queue(&w), 0);
	assert_int_equal(done, 1);   /* at once */

	static const struct sim_env_hooks hooks = { .launch = hook_launch,
						    .terminate = hook_terminate };
	core_env = sim_env_table(&hooks, 0);
	static struct job j;
	struct job *job = &j;
	core_launch(job);
	assert_int_equal(job->launch, LAUNCH_DONE);   /* the node took it */
	core_terminate(job);
	core_signal(job, 10, "");   /* no hook: ignored */
	core_env->mail(job, "u", "s", "Began", "");
	core_timer_close(&a);   /* given back (teardown's close is then a no-op) */
	assert_null(a.impl);
	assert_ptr_equal(launched, job);
	assert_ptr_equal(ended, job);
	assert_int_equal(sim_env_mails(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(due_order_and_ties, setup, teardown),
		cmocka_unit_test_setup_teardown(repeating_timers_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(periodic_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(armed_while_firing, setup, teardown),
		cmocka_unit_test_setup_teardown(work_and_effects, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
