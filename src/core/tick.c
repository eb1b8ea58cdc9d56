/* What the controller checks once a second: nodes not heard from, time
 * limits (mail, allocations), fair-share usage and its limits, the report
 * roll-up; every 10 s the purge of old jobs and a pass.  On the core's
 * timer: in herd sim it fires when the simulated clock moves on
 * (doc/core.md "Time in the simulator"). */
#include <malloc.h>
#include "acct/assoc.h"
#include "core/core.h"

static struct core_timer tick_timer;

static void tick(struct core_timer *t)
{
	static unsigned n;
	time_t now = core_now();

	node_check_timeouts(now);
	mail_check_time_limits(now);
	core_steps_tick(now);
	usage_tick(now);
	limits_tick(now);   /* GrpTRESMins used up: running jobs time out */
	report_tick(now);
	if (++n % 10 == 0) {
		job_purge_old(now);
		sched_request();
		/* Large replies (squeue over many jobs) leave free pages between
		 * long-lived job records; give them back to the system. */
		malloc_trim(0);
	}
}

void tick_setup(void)
{
	core_timer_init(&tick_timer, tick);
	tick_timer.poll = true;
	core_timer_start(&tick_timer, 1000, 1000);
}
