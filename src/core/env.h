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
#include <netinet/in.h>
#include "common/error.h"
#include "common/state.h"

struct core_timer;
typedef void (*core_timer_f)(struct core_timer *t);
struct core_timer {
	core_timer_f cb;
	void *data;                  /* the owner's */
	bool poll;                   /* a periodic check that may run late: a simulator
				      * fires it only when its clock moves on anyway */
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

struct job;
struct node;

struct core_env {
	time_t (*now)(void);                         /* wall clock, seconds */
	uint64_t (*now_ms)(void);                    /* monotonic ms, for intervals */
	void (*timer_init)(struct core_timer *t, core_timer_f cb);
	/* (re)arm: cb after ms, then every repeat_ms (0: once) */
	void (*timer_start)(struct core_timer *t, uint64_t ms, uint64_t repeat_ms);
	void (*timer_stop)(struct core_timer *t);
	bool (*timer_active)(const struct core_timer *t);
	uint64_t (*timer_due_in)(const struct core_timer *t);   /* ms until it fires (active) */
	void (*timer_close)(struct core_timer *t);   /* stopped, and what init took given back */
	int (*work)(struct core_work *w);            /* 0, or -1: not queued, done not called */
	/* host's IPv4 addresses (an array to free) and their count, or -1 with
	 * err (AllocNodes, at load and reconfigure) */
	int (*resolve)(const char *host, struct in_addr **addrs, struct herd_error *err);
	/* Effects on a job's nodes (herdctld: launch.c's node RPCs).  Each
	 * answer comes back later as a call into the core (a launch's failure,
	 * the job's end), never from inside these. */
	void (*launch)(struct job *job);             /* a job the core has started */
	void (*terminate)(struct job *job);          /* kill all of it, then report its end */
	void (*signal)(struct job *job, int sig, const char *flags);   /* flags: "batch" or "" */
	/* a job a node runs that the core does not know, or not there */
	void (*terminate_stray)(struct node *node, uint32_t job_id);
	/* then(arg), when not NULL, once every node has answered (or at once) */
	void (*suspend)(struct job *job, bool suspend, void (*then)(void *arg), void *arg);
	void (*time_limit)(struct job *job);         /* its limit changed */
	/* A mail about job to a checked address (herdctld: MailProg);
	 * what: the event in Slurm's words, times: ", Run time T" or "". */
	void (*mail)(const struct job *job, const char *to, const char *subject, const char *what,
		     const char *times);
	/* A job's steps (srun's, herdctld's step.c; the simulator runs none):
	 * they end with the job's run (state: its final state, or COMPLETING
	 * for a cancel), those on a failed node end NODE_FAIL, they go with the
	 * job; and every second, allocations without a batch script (salloc)
	 * past their limit end. */
	void (*steps_ended)(struct job *job, enum job_state state);
	void (*steps_node_failed)(struct job *job, int node);
	/* -k: the job's pos-th allocated node leaves its allocation (it
	 * failed; the job runs on): its steps there end NODE_FAIL, the
	 * others' positions follow the nodes after it down by one. */
	void (*steps_node_dropped)(struct job *job, int pos);
	void (*steps_free)(struct job *job);
	void (*steps_tick)(time_t now);
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

static inline uint64_t core_timer_due_in(const struct core_timer *t)
{
	return core_env->timer_due_in(t);
}

static inline void core_timer_close(struct core_timer *t)
{
	core_env->timer_close(t);
}

static inline int core_work_queue(struct core_work *w)
{
	return core_env->work(w);
}

static inline void core_launch(struct job *job)
{
	core_env->launch(job);
}

static inline void core_terminate(struct job *job)
{
	core_env->terminate(job);
}

static inline void core_signal(struct job *job, int sig, const char *flags)
{
	core_env->signal(job, sig, flags);
}

static inline void core_terminate_stray(struct node *node, uint32_t job_id)
{
	core_env->terminate_stray(node, job_id);
}

static inline void core_suspend(struct job *job, bool suspend, void (*then)(void *arg), void *arg)
{
	core_env->suspend(job, suspend, then, arg);
}

static inline void core_time_limit(struct job *job)
{
	core_env->time_limit(job);
}
static inline int core_resolve(const char *host, struct in_addr **addrs, struct herd_error *err)
{
	return core_env->resolve(host, addrs, err);
}

static inline void core_steps_ended(struct job *job, enum job_state state)
{
	core_env->steps_ended(job, state);
}

static inline void core_steps_node_failed(struct job *job, int node)
{
	core_env->steps_node_failed(job, node);
}

static inline void core_steps_node_dropped(struct job *job, int pos)
{
	core_env->steps_node_dropped(job, pos);
}

static inline void core_steps_free(struct job *job)
{
	core_env->steps_free(job);
}

static inline void core_steps_tick(time_t now)
{
	core_env->steps_tick(now);
}

#endif
