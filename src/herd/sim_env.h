/* herd sim's environment for the controller core (core/env.h): a virtual
 * clock, timers kept in a heap by due time, work run at once, and the
 * effects on nodes handed to the replay loop (doc/core.md "Time in the
 * simulator").  One environment per process, as the core has one clock. */
#ifndef HERD_SIM_ENV_H
#define HERD_SIM_ENV_H
#include <stdint.h>
#include <time.h>
#include "core/env.h"

/* What the replay loop does with the core's effects: a launch schedules
 * the job's end, a terminate ends it now, ... (NULL: ignored). */
struct sim_env_hooks {
	void (*launch)(struct job *job);
	void (*terminate)(struct job *job);
	void (*signal)(struct job *job, int sig);
	void (*suspend)(struct job *job, bool suspend);
	void (*time_limit)(struct job *job);
	void *arg;
};

/* The table, its clock at epoch (wall seconds at virtual 0 ms).  The
 * caller installs it (core_env = sim_env_table(...)). */
const struct core_env *sim_env_table(const struct sim_env_hooks *hooks, time_t epoch);

/* Virtual ms now. */
uint64_t sim_env_now_ms(void);

/* When the next timer that is an event of its own is due (virtual ms), or
 * UINT64_MAX.  Polls (core_timer.poll: the once-a-second ticks) never are:
 * a replay of a year would otherwise stop every second; they fire when the
 * clock moves on for another reason.  Other repeating timers (the
 * periodic scheduler passes) are when repeating is true: the replay asks
 * for them while jobs wait. */
uint64_t sim_env_next_due(bool repeating);

/* Move the clock to `to` (never back), firing in due order every timer due
 * by then; the clock reads each one's due time while it fires.  A
 * repeating timer fires once however many of its periods passed: next a
 * period after that firing, or a period after `to` when that is past. */
void sim_env_advance(uint64_t to);

/* Mails the core sent (counted, not sent). */
unsigned long sim_env_mails(void);

/* Forget every timer and reset the clock (tests). */
void sim_env_reset(void);
#endif
