/* A step's traffic with srun: the tasks' output relayed (and held back
 * while srun is behind), what srun sends (stdin, signals, the terminal's
 * size, the PMI fence's merge), and this node's fence going out.  The
 * step's life is step.c's. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include "common/log.h"
#include "common/stepio.h"
#include "common/xmalloc.h"
#include "stepd/io.h"
#include "stepd/pmi.h"
#include "stepd/step.h"
#include "stepd/stepd.h"

#define STEP_READ_CHUNK 65536
/* Bytes of stdin queued for the step's tasks above which srun's connection
 * is not read (srun then stops reading its own stdin), and the level at
 * which it is read again. */
#define STEP_STDIN_HIGH_WATER (4u << 20)
#define STEP_STDIN_LOW_WATER (1u << 20)

static void step_out_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	*buf = uv_buf_init(xmalloc(STEP_READ_CHUNK), STEP_READ_CHUNK);
}

static void step_out_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

/* Stop (or go on) reading every task's output while srun is behind: the
 * tasks block on their full pipes, as they would on a slow terminal. */
static void step_output_pause(struct step *st, bool pause)
{
	st->output_paused = pause;
	for (size_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		uv_stream_t *streams[2] = { t->out_open ? (uv_stream_t *)&t->out : NULL,
					    t->err_open ? (uv_stream_t *)&t->err : NULL };
		for (int k = 0; k < 2; k++) {
			if (!streams[k])
				continue;
			if (pause)
				uv_read_stop(streams[k]);
			else
				uv_read_start(streams[k], step_out_alloc, step_out_read);
		}
	}
}

void step_output_start(struct step_task *t)
{
	if (t->out_open)
		uv_read_start((uv_stream_t *)&t->out, step_out_alloc, step_out_read);
	if (t->err_open)
		uv_read_start((uv_stream_t *)&t->err, step_out_alloc, step_out_read);
}

void step_io_drained(void *arg)
{
	struct step *st = arg;
	if (st->output_paused)
		step_output_pause(st, false);
}

static void step_out_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct step_task *t = s->data;
	bool is_err = s == (uv_stream_t *)&t->err;
	uint16_t type = is_err ? STEPIO_STDERR : STEPIO_STDOUT;

	if (n > 0) {
		io_send(t->st->io, type, t->task_id, buf->base, n);
		if (!t->st->output_paused && io_backlogged(t->st->io))
			step_output_pause(t->st, true);
	}
	free(buf->base);
	if (n >= 0)
		return;
	/* EOF (a pty's master reads EIO once the last slave is closed) */
	io_send(t->st->io, type, t->task_id, NULL, 0);
	if (is_err)
		t->err_open = false;
	else {
		t->out_open = false;
		if (t->pty)
			t->in_open = false;
	}
	uv_close((uv_handle_t *)s, NULL);
	step_send_exit(t);
}

/* ---- what srun sends ------------------------------------------------------ */

struct step_write {
	uv_write_t req;
	char data[];
};

static uv_stream_t *step_stdin_stream(struct step_task *t)
{
	return (uv_stream_t *)(t->pty ? &t->out : &t->in);
}

static size_t step_stdin_queued(struct step *st)
{
	size_t n = 0;
	for (size_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].in_open)
			n += uv_stream_get_write_queue_size(step_stdin_stream(&st->tasks[i]));
	return n;
}

static void step_written(uv_write_t *req, int status)
{
	struct step_task *t = req->handle->data;
	struct step *st = t->st;

	free(req);
	if (st->stdin_paused && step_stdin_queued(st) < STEP_STDIN_LOW_WATER) {
		st->stdin_paused = false;
		io_pause_input(st->io, false);
	}
}

static void step_stdin_shut(uv_shutdown_t *req, int status)
{
	uv_close((uv_handle_t *)req->handle, NULL);
	free(req);
}

static void step_stdin_write(struct step_task *t, const char *data, size_t len)
{
	uv_stream_t *s = step_stdin_stream(t);
	struct step_write *w = xmalloc(sizeof(*w) + len);
	uv_buf_t buf;

	memcpy(w->data, data, len);
	buf = uv_buf_init(w->data, len);
	if (uv_write(&w->req, s, &buf, 1, step_written) < 0) {
		free(w);
		return;
	}
	if (!t->st->stdin_paused && step_stdin_queued(t->st) > STEP_STDIN_HIGH_WATER) {
		t->st->stdin_paused = true;
		io_pause_input(t->st->io, true);
	}
}

static void step_stdin(struct step *st, const struct stepio_msg *m)
{
	for (size_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		if ((m->task != STEPIO_ALL_TASKS && (uint32_t)t->task_id != m->task) || !t->in_open)
			continue;
		if (m->len) {
			step_stdin_write(t, m->data, m->len);
		} else if (t->pty) {
			step_stdin_write(t, "\x04", 1);   /* the terminal's end-of-file */
		} else {
			uv_shutdown_t *req = xmalloc(sizeof(*req));
			t->in_open = false;
			if (uv_shutdown(req, (uv_stream_t *)&t->in, step_stdin_shut) < 0) {
				free(req);
				uv_close((uv_handle_t *)&t->in, NULL);
			}
		}
	}
}

static json_t *step_json(const struct stepio_msg *m)
{
	json_t *obj = json_loadb(m->data, m->len, 0, NULL);
	if (!json_is_object(obj)) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

void step_io_message(void *arg, const struct stepio_msg *m)
{
	struct step *st = arg;
	json_t *obj;
	json_int_t a, b;

	switch (m->type) {
	case STEPIO_STDIN:
		step_stdin(st, m);
		return;
	case STEPIO_SIGNAL:
		obj = step_json(m);
		if (obj && json_unpack(obj, "{s:I}", "signal", &a) == 0 && a > 0 && a < NSIG) {
			log_info("step %u.%u: signal %d from srun", st->sd->launch.job_id,
				 st->sd->launch.step->step_id, (int)a);
			step_kill_all(st, (int)a);
		} else {
			log_error("step %u.%u: bad SIGNAL message from srun", st->sd->launch.job_id,
				  st->sd->launch.step->step_id);
		}
		json_decref(obj);
		return;
	case STEPIO_WINSIZE:
		obj = step_json(m);
		if (obj && json_unpack(obj, "{s:I, s:I}", "rows", &a, "cols", &b) == 0 && a >= 0 &&
		    b >= 0 && a < 65536 && b < 65536) {
			struct winsize ws = { .ws_row = a, .ws_col = b };
			for (size_t i = 0; i < st->ntasks; i++)
				if (st->tasks[i].pty && st->tasks[i].pty_fd >= 0)
					ioctl(st->tasks[i].pty_fd, TIOCSWINSZ, &ws);
		}
		json_decref(obj);
		return;
	case STEPIO_FENCE_OUT:
		obj = step_json(m);
		if (st->pmi && obj && json_unpack(obj, "{s:I}", "seq", &a) == 0 &&
		    json_is_object(json_object_get(obj, "kvs"))) {
			pmi_fence_done(st->pmi, (int)a, json_incref(json_object_get(obj, "kvs")));
		} else {
			log_error("step %u.%u: bad or unexpected FENCE_OUT from srun", st->sd->launch.job_id,
				  st->sd->launch.step->step_id);
		}
		json_decref(obj);
		return;
	default:
		log_error("step %u.%u: srun sent message type %u, which only herdstepd sends",
			  st->sd->launch.job_id, st->sd->launch.step->step_id, m->type);
		return;
	}
}

/* ---- PMI ------------------------------------------------------------------ */

/* This node's tasks entered the fence: srun merges every node's share. */
void step_pmi_fence(void *arg, int seq, json_t *kvs)
{
	struct step *st = arg;

	io_send_json(st->io, STEPIO_FENCE_IN, STEPIO_ALL_TASKS,
		     json_pack("{s:i, s:o}", "seq", seq, "kvs", kvs));
}

