/* herd sim's environment for the controller core: see sim_env.h.  The
 * timers are a binary heap by (due, arming order), so that timers due at
 * the same virtual ms fire in the order they were armed, as libuv fires
 * them. */
#include <arpa/inet.h>
#include <stdlib.h>
#include "common/xmalloc.h"
#include "core/job.h"
#include "herd/sim_env.h"

struct sim_timer {
	struct core_timer *owner;
	uint64_t due, repeat, seq;
	long pos;                    /* in the heap, -1 when not armed */
};

static struct {
	const struct sim_env_hooks *hooks;
	time_t epoch;
	uint64_t now;                /* virtual ms */
	struct sim_timer **heap;
	size_t n, cap;
	uint64_t seq;
	unsigned long mails;
} env;

static bool before(const struct sim_timer *a, const struct sim_timer *b)
{
	return a->due != b->due ? a->due < b->due : a->seq < b->seq;
}

static void place(struct sim_timer *t, size_t i)
{
	env.heap[i] = t;
	t->pos = (long)i;
}

static void sift_up(size_t i)
{
	struct sim_timer *t = env.heap[i];
	while (i > 0 && before(t, env.heap[(i - 1) / 2])) {
		place(env.heap[(i - 1) / 2], i);
		i = (i - 1) / 2;
	}
	place(t, i);
}

static void sift_down(size_t i)
{
	struct sim_timer *t = env.heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= env.n)
			break;
		if (c + 1 < env.n && before(env.heap[c + 1], env.heap[c]))
			c++;
		if (!before(env.heap[c], t))
			break;
		place(env.heap[c], i);
		i = c;
	}
	place(t, i);
}

static void heap_remove(struct sim_timer *t)
{
	size_t i = (size_t)t->pos;
	struct sim_timer *last = env.heap[--env.n];

	t->pos = -1;
	if (i == env.n)
		return;
	place(last, i);
	sift_down(i);
	sift_up((size_t)last->pos);
}

static void heap_push(struct sim_timer *t)
{
	if (env.n == env.cap) {
		env.cap = env.cap ? 2 * env.cap : 16;
		env.heap = xrealloc(env.heap, env.cap * sizeof(*env.heap));
	}
	t->seq = ++env.seq;
	place(t, env.n++);
	sift_up(env.n - 1);
}

static time_t sim_now(void)
{
	return env.epoch + (time_t)(env.now / 1000);
}

static uint64_t sim_now_ms(void)
{
	return env.now;
}

static void sim_timer_init(struct core_timer *t, core_timer_f cb)
{
	struct sim_timer *st = xmalloc(sizeof(*st));

	st->owner = t;
	st->pos = -1;
	t->cb = cb;
	t->impl = st;
}

static void sim_timer_stop(struct core_timer *t)
{
	struct sim_timer *st = t->impl;
	if (st && st->pos >= 0)
		heap_remove(st);
}

/* A periodic timer of whole seconds (the scheduler's and backfill's
 * passes, the ticks) runs in the middle of its second.  In herdctld its
 * phase is that of the daemon's start, unrelated to when requests and job
 * ends come; here those come on whole seconds (a trace's times).  At the
 * top of the second, a pass would run before that second's arrivals and
 * ends, and what it could start then would wait a whole period; in the
 * middle it sees them, in the same second of core_now(). */
#define SIM_PHASE_MS 500

static void sim_timer_start(struct core_timer *t, uint64_t ms, uint64_t repeat_ms)
{
	struct sim_timer *st = t->impl;

	sim_timer_stop(t);
	st->due = env.now + ms;
	if (repeat_ms && repeat_ms % 1000 == 0 && ms >= 1000)
		st->due = st->due / 1000 * 1000 + SIM_PHASE_MS;
	st->repeat = repeat_ms;
	heap_push(st);
}

static bool sim_timer_active(const struct core_timer *t)
{
	const struct sim_timer *st = t->impl;
	return st && st->pos >= 0;
}

static uint64_t sim_timer_due_in(const struct core_timer *t)
{
	const struct sim_timer *st = t->impl;
	return st->pos >= 0 && st->due > env.now ? st->due - env.now : 0;
}

static void sim_timer_close(struct core_timer *t)
{
	sim_timer_stop(t);
	free(t->impl);
	t->impl = NULL;
}

/* Nothing runs beside the replay: the work is done at once. */
static int sim_work(struct core_work *w)
{
	w->run(w);
	w->done(w, true);
	return 0;
}

/* The simulated node takes every launch at once: the job is launched, as
 * launch.c marks it when the node replies.  Without it a preemption or a
 * cancel would take the job for one never started (LAUNCH_NONE), end it
 * without a terminate, and the replay would keep it running. */
static void sim_launch(struct job *job)
{
	job->launch = LAUNCH_DONE;
	if (env.hooks && env.hooks->launch)
		env.hooks->launch(job);
}

static void sim_terminate(struct job *job)
{
	if (env.hooks && env.hooks->terminate)
		env.hooks->terminate(job);
}

/* No node runs anything the simulation does not know. */
static void sim_terminate_stray(struct node *node, uint32_t job_id)
{
}

static void sim_signal(struct job *job, int sig, const char *flags)
{
	if (env.hooks && env.hooks->signal)
		env.hooks->signal(job, sig);
}

static void sim_suspend(struct job *job, bool suspend, void (*then)(void *arg), void *arg)
{
	if (env.hooks && env.hooks->suspend)
		env.hooks->suspend(job, suspend);
	if (then)
		then(arg);
}

static void sim_time_limit(struct job *job)
{
	if (env.hooks && env.hooks->time_limit)
		env.hooks->time_limit(job);
}

static void sim_mail(const struct job *job, const char *to, const char *subject,
		     const char *what, const char *times)
{
	env.mails++;
}

/* The simulator runs no steps. */
static void sim_steps_ended(struct job *job, enum job_state state)
{
}

static void sim_steps_node_failed(struct job *job, int node)
{
}

static void sim_steps_node_dropped(struct job *job, int pos)
{
}

static void sim_steps_free(struct job *job)
{
}

static void sim_steps_tick(time_t now)
{
}

/* No name service in a replay: an address is itself, a name is refused
 * (no submission carries an origin to check AllocNodes against). */
static int sim_resolve(const char *host, struct in_addr **addrs, struct herd_error *err)
{
	struct in_addr a;

	if (inet_pton(AF_INET, host, &a) != 1)
		return errprintf(err, "not an address, and the simulator looks up no names");
	*addrs = xmalloc(sizeof(**addrs));
	**addrs = a;
	return 1;
}

static const struct core_env sim_env = {
	.now = sim_now,
	.now_ms = sim_now_ms,
	.timer_init = sim_timer_init,
	.timer_start = sim_timer_start,
	.timer_stop = sim_timer_stop,
	.timer_active = sim_timer_active,
	.timer_due_in = sim_timer_due_in,
	.timer_close = sim_timer_close,
	.work = sim_work,
	.resolve = sim_resolve,
	.launch = sim_launch,
	.terminate = sim_terminate,
	.terminate_stray = sim_terminate_stray,
	.signal = sim_signal,
	.suspend = sim_suspend,
	.time_limit = sim_time_limit,
	.mail = sim_mail,
	.steps_ended = sim_steps_ended,
	.steps_node_failed = sim_steps_node_failed,
	.steps_node_dropped = sim_steps_node_dropped,
	.steps_free = sim_steps_free,
	.steps_tick = sim_steps_tick,
};

const struct core_env *sim_env_table(const struct sim_env_hooks *hooks, time_t epoch)
{
	env.hooks = hooks;
	env.epoch = epoch;
	return &sim_env;
}

uint64_t sim_env_now_ms(void)
{
	return env.now;
}

/* The heap is ordered by due time, not by kind: the soonest that counts
 * is found by a walk (a few dozen timers at most). */
uint64_t sim_env_next_due(bool repeating)
{
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < env.n; i++) {
		const struct sim_timer *t = env.heap[i];
		if (t->owner->poll || (t->repeat && !repeating))
			continue;
		if (t->due < next)
			next = t->due;
	}
	return next;
}

void sim_env_advance(uint64_t to)
{
	while (env.n && env.heap[0]->due <= to) {
		struct sim_timer *t = env.heap[0];
		heap_remove(t);
		if (t->due > env.now)
			env.now = t->due;
		if (t->repeat) {   /* once, however many periods passed, */
			uint64_t next = t->due + t->repeat;   /* in its phase */
			if (next <= to)
				next += ((to - next) / t->repeat + 1) * t->repeat;
			t->due = next;
			heap_push(t);
		}
		t->owner->cb(t->owner);   /* may arm or stop timers, this one too */
	}
	if (to > env.now)
		env.now = to;
}

unsigned long sim_env_mails(void)
{
	return env.mails;
}

void sim_env_reset(void)
{
	while (env.n)
		heap_remove(env.heap[0]);
	env.now = 0;
	env.seq = 0;
	env.mails = 0;
}
