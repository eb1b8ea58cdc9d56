/* The core's environment in herdctld (core/env.h): the wall clock,
 * libuv's timers and worker pool on ctld.loop, launch.c's node RPCs and
 * MailProg.  The timers do not keep the
 * loop alive (the server's handles do). */
#include <netdb.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "common/xmalloc.h"
#include "core/env.h"
#include "ctld/ctld.h"

static time_t uv_env_now(void)
{
	return time(NULL);
}

static uint64_t uv_env_now_ms(void)
{
	return uv_now(ctld.loop);
}

static void timer_fired(uv_timer_t *h)
{
	struct core_timer *t = h->data;
	t->cb(t);
}

static void uv_env_timer_init(struct core_timer *t, core_timer_f cb)
{
	uv_timer_t *h = xmalloc(sizeof(*h));

	t->cb = cb;
	t->impl = h;
	uv_timer_init(ctld.loop, h);
	uv_unref((uv_handle_t *)h);
	h->data = t;
}

static void uv_env_timer_start(struct core_timer *t, uint64_t ms, uint64_t repeat_ms)
{
	uv_timer_start(t->impl, timer_fired, ms, repeat_ms);
}

static void uv_env_timer_stop(struct core_timer *t)
{
	if (t->impl)
		uv_timer_stop(t->impl);
}

static bool uv_env_timer_active(const struct core_timer *t)
{
	return t->impl && uv_is_active(t->impl);
}

static uint64_t uv_env_timer_due_in(const struct core_timer *t)
{
	return uv_timer_get_due_in(t->impl);
}

static void timer_closed(uv_handle_t *h)
{
	free(h);
}

static void uv_env_timer_close(struct core_timer *t)
{
	if (t->impl)
		uv_close(t->impl, timer_closed);
	t->impl = NULL;
}

static void work_run(uv_work_t *req)
{
	struct core_work *w = req->data;
	w->run(w);
}

static void work_done(uv_work_t *req, int status)
{
	struct core_work *w = req->data;
	free(req);
	w->impl = NULL;
	w->done(w, status == 0);
}

static int uv_env_work(struct core_work *w)
{
	uv_work_t *req = xmalloc(sizeof(*req));

	req->data = w;
	w->impl = req;
	if (uv_queue_work(ctld.loop, req, work_run, work_done) < 0) {
		free(req);
		w->impl = NULL;
		return -1;
	}
	return 0;
}

/* The name service, blocking: only at load and reconfigure. */
static int uv_env_resolve(const char *host, struct in_addr **addrs, struct herd_error *err)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	int e = getaddrinfo(host, NULL, &hints, &ai), n = 0;

	if (e != 0)
		return errprintf(err, "%s", gai_strerror(e));
	for (struct addrinfo *a = ai; a; a = a->ai_next)
		n++;
	*addrs = xmalloc((n + 1) * sizeof(**addrs));
	n = 0;
	for (struct addrinfo *a = ai; a; a = a->ai_next)
		(*addrs)[n++] = ((struct sockaddr_in *)a->ai_addr)->sin_addr;
	freeaddrinfo(ai);
	return n;
}

static const struct core_env uv_env = {
	.now = uv_env_now,
	.now_ms = uv_env_now_ms,
	.timer_init = uv_env_timer_init,
	.timer_start = uv_env_timer_start,
	.timer_stop = uv_env_timer_stop,
	.timer_active = uv_env_timer_active,
	.timer_due_in = uv_env_timer_due_in,
	.timer_close = uv_env_timer_close,
	.work = uv_env_work,
	.resolve = uv_env_resolve,
	.launch = launch_job,
	.terminate = launch_terminate,
	.signal = launch_signal,
	.terminate_stray = launch_terminate_id,
	.suspend = launch_suspend,
	.time_limit = launch_time_limit,
	.mail = mail_spawn,
	.steps_ended = step_job_ended,
	.steps_node_failed = step_node_failed,
	.steps_node_dropped = step_node_dropped,
	.steps_free = step_destroy_all,
	.steps_tick = step_check_alloc_limits,
};

const struct core_env *core_env = &uv_env;
