/* What the controller core takes from the program that runs it: the clock,
 * timers, and work done off the loop thread (doc/core.md "The interface").
 * herdctld gives it libuv's (ctld/env_uv.c, the default); herd sim gives it
 * a virtual clock, in which a timer fires when the simulation reaches its
 * time and work runs at once.  Core code reads no clock and starts no timer
 * or thread but through these. */
#ifndef HERD_CORE_ENV_H
#define HERD_CORE_ENV_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct core_timer;
typedef void (*core_timer_f)(struct core_timer *t);
struct core_timer {
	core_timer_f cb;
	void *data;                  /* the owner's */
	void *impl;                  /* the environment's */
};

/* run: off the loop thread, on plain data only (never ctld state); done: on
 * it, after run (ran false: the work was cancelled before it ran). */
struct core_work;
struct core_work {
	void (*run)(struct core_work *w);
	void (*done)(struct core_work *w, bool ran);
	void *data;
	void *impl;
};

struct core_env {
	time_t (*now)(void);                         /* wall clock, seconds */
	uint64_t (*now_ms)(void);                    /* monotonic ms, for intervals */
	void (*timer_init)(struct core_timer *t, core_timer_f cb);
	/* (re)arm: cb after ms, then every repeat_ms (0: once) */
	void (*timer_start)(struct core_timer *t, uint64_t ms, uint64_t repeat_ms);
	void (*timer_stop)(struct core_timer *t);
	bool (*timer_active)(const struct core_timer *t);
	int (*work)(struct core_work *w);            /* 0, or -1: not queued, done not called */
};

extern const struct core_env *core_env;

static inline time_t core_now(void)
{
	return core_env->now();
}

static inline uint64_t core_now_ms(void)
{
	return core_env->now_ms();
}

static inline void core_timer_init(struct core_timer *t, core_timer_f cb)
{
	core_env->timer_init(t, cb);
}

static inline void core_timer_start(struct core_timer *t, uint64_t ms, uint64_t repeat_ms)
{
	core_env->timer_start(t, ms, repeat_ms);
}

static inline void core_timer_stop(struct core_timer *t)
{
	core_env->timer_stop(t);
}

static inline bool core_timer_active(const struct core_timer *t)
{
	return core_env->timer_active(t);
}

static inline int core_work_queue(struct core_work *w)
{
	return core_env->work(w);
}
#endif
