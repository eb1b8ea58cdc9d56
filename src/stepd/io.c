/* The srun connection on the loop.  Writes go out in the order they were
 * queued (libuv keeps uv_write order on one stream); each carries its own
 * copy of the bytes. */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/io.h"

#define IO_CONNECT_TIMEOUT_MS 10000
#define IO_READ_CHUNK 65536

enum io_state { IO_CONNECTING, IO_OPEN, IO_FINISHING, IO_CLOSED };

struct io {
	uv_loop_t *loop;
	uv_tcp_t tcp;
	uv_connect_t connect_req;
	uv_shutdown_t shutdown_req;
	uv_timer_t timer;
	int handles;                 /* tcp and timer, until both are closed */
	enum io_state state;
	const struct io_ops *ops;
	void *arg;
	struct stepio_decoder dec;
	char rbuf[IO_READ_CHUNK];
	char where[300];             /* host:port, for messages */
	void (*done)(void *arg);
	void *done_arg;
	bool freed_by_caller;        /* io_close was called: no more callbacks */
	bool backlogged;             /* io_backlogged said yes: tell `drained` */
	bool input_paused;           /* io_pause_input: not reading srun's */
};

struct io_write {
	uv_write_t req;
	struct strbuf bytes;
};

static void io_handle_closed(uv_handle_t *h)
{
	struct io *io = h->data;

	if (--io->handles > 0)
		return;
	if (io->done)
		io->done(io->done_arg);
	stepio_decoder_free(&io->dec);
	free(io);
}

static void io_shut(struct io *io)
{
	if (io->state == IO_CLOSED)
		return;
	io->state = IO_CLOSED;
	uv_timer_stop(&io->timer);
	uv_close((uv_handle_t *)&io->tcp, io_handle_closed);
	uv_close((uv_handle_t *)&io->timer, io_handle_closed);
}

/* The connection ended under us: tell the step once, then close. */
static void io_lost(struct io *io)
{
	bool tell = io->state == IO_OPEN && !io->freed_by_caller;

	io_shut(io);
	if (tell)
		io->ops->closed(io->arg);
}

static void io_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct io *io = h->data;
	*buf = uv_buf_init(io->rbuf, sizeof(io->rbuf));
}

static void io_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct io *io = s->data;
	struct stepio_msg m;
	int rc;

	if (n < 0) {
		log_debug("srun connection %s: %s", io->where, uv_strerror(n));
		io_lost(io);
		return;
	}
	stepio_feed(&io->dec, buf->base, n);
	while (io->state == IO_OPEN && (rc = stepio_next(&io->dec, &m)) != 0) {
		if (rc < 0) {
			log_error("srun connection %s: bad message header; closing it", io->where);
			io_lost(io);
			return;
		}
		io->ops->message(io->arg, &m);
	}
}

static void io_connect_timeout(uv_timer_t *t)
{
	struct io *io = t->data;
	struct herd_error err;

	if (io->state != IO_CONNECTING)
		return;
	errprintf(&err, "cannot connect to srun at %s: Connection timed out", io->where);
	io_shut(io);
	io->ops->connected(io->arg, -1, &err);
}

static void io_connected(uv_connect_t *req, int status)
{
	struct io *io = req->data;
	struct herd_error err = { "" };

	if (io->state != IO_CONNECTING)
		return;   /* timed out or closed meanwhile */
	uv_timer_stop(&io->timer);
	if (status < 0) {
		errprintf(&err, "cannot connect to srun at %s: %s", io->where, uv_strerror(status));
		io_shut(io);
		io->ops->connected(io->arg, -1, &err);
		return;
	}
	io->state = IO_OPEN;
	uv_tcp_nodelay(&io->tcp, 1);
	uv_read_start((uv_stream_t *)&io->tcp, io_alloc, io_read);
	io->ops->connected(io->arg, 0, &err);
}

struct io *io_connect(uv_loop_t *loop, const char *host, int port, const struct io_ops *ops,
		      void *arg, struct herd_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	char portstr[16];
	struct io *io;
	int rc;

	snprintf(portstr, sizeof(portstr), "%d", port);
	/* srun gives an address; a name resolves here, once, before the loop runs */
	if ((rc = getaddrinfo(host, portstr, &hints, &res)) != 0) {
		errprintf(err, "cannot connect to srun at %s:%d: %s", host, port, gai_strerror(rc));
		return NULL;
	}
	io = xmalloc(sizeof(*io));
	io->loop = loop;
	io->ops = ops;
	io->arg = arg;
	snprintf(io->where, sizeof(io->where), "%s:%d", host, port);
	uv_tcp_init(loop, &io->tcp);
	uv_timer_init(loop, &io->timer);
	io->tcp.data = io->timer.data = io->connect_req.data = io;
	io->handles = 2;
	io->state = IO_CONNECTING;
	rc = uv_tcp_connect(&io->connect_req, &io->tcp, res->ai_addr, io_connected);
	freeaddrinfo(res);
	if (rc < 0) {
		errprintf(err, "cannot connect to srun at %s: %s", io->where, uv_strerror(rc));
		io->freed_by_caller = true;
		io_shut(io);
		return NULL;
	}
	uv_timer_start(&io->timer, io_connect_timeout, IO_CONNECT_TIMEOUT_MS, 0);
	return io;
}

static void io_written(uv_write_t *req, int status)
{
	struct io_write *w = (struct io_write *)req;
	struct io *io = req->data;

	free(w->bytes.s);
	free(w);
	if (status < 0 && status != UV_ECANCELED && io->state == IO_OPEN) {
		log_debug("srun connection %s: write: %s", io->where, uv_strerror(status));
		io_lost(io);
		return;
	}
	if (io->backlogged && io->state == IO_OPEN &&
	    uv_stream_get_write_queue_size((uv_stream_t *)&io->tcp) < IO_LOW_WATER) {
		io->backlogged = false;
		if (io->ops->drained && !io->freed_by_caller)
			io->ops->drained(io->arg);
	}
}

int io_backlogged(struct io *io)
{
	if (!io || io->state != IO_OPEN)
		return 0;
	if (uv_stream_get_write_queue_size((uv_stream_t *)&io->tcp) > IO_HIGH_WATER)
		io->backlogged = true;
	return io->backlogged;
}

void io_send(struct io *io, uint16_t type, uint32_t task, const void *data, uint32_t len)
{
	struct io_write *w;
	uv_buf_t buf;

	if (!io || io->state != IO_OPEN)
		return;
	w = xmalloc(sizeof(*w));
	stepio_encode(&w->bytes, type, task, data, len);
	w->req.data = io;
	buf = uv_buf_init(w->bytes.s, w->bytes.len);
	if (uv_write(&w->req, (uv_stream_t *)&io->tcp, &buf, 1, io_written) < 0) {
		free(w->bytes.s);
		free(w);
		io_lost(io);
	}
}

void io_send_json(struct io *io, uint16_t type, uint32_t task, json_t *payload)
{
	char *text = json_dumps(payload, JSON_COMPACT);
	json_decref(payload);
	if (text)
		io_send(io, type, task, text, strlen(text));
	free(text);
}

/* Input stopped: srun resetting the connection (or closing it with
 * nothing left to send) shows in the TCP state, though what it sent is not
 * read.  An srun killed with bytes still queued for us leaves its kernel
 * holding the connection against our closed window; keepalive probes
 * reach its host once that gives up, and the reset they get shows here. */
static void io_pause_watch(uv_timer_t *t)
{
	struct io *io = t->data;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	uv_os_fd_t fd;

	if (io->state != IO_OPEN || !io->input_paused)
		return;
	if (uv_fileno((uv_handle_t *)&io->tcp, &fd) < 0 ||
	    getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || ti.tcpi_state != TCP_ESTABLISHED) {
		log_debug("srun connection %s: gone while its input was paused", io->where);
		io_lost(io);
	}
}

void io_pause_input(struct io *io, bool pause)
{
	if (!io || io->state != IO_OPEN || io->input_paused == pause)
		return;
	io->input_paused = pause;
	if (pause) {
		uv_read_stop((uv_stream_t *)&io->tcp);
		uv_tcp_keepalive(&io->tcp, 1, 10);
		uv_timer_start(&io->timer, io_pause_watch, 1000, 1000);
	} else {
		uv_timer_stop(&io->timer);
		uv_read_start((uv_stream_t *)&io->tcp, io_alloc, io_read);
	}
}

int io_is_open(const struct io *io)
{
	return io && io->state == IO_OPEN;
}

static void io_shutdown_done(uv_shutdown_t *req, int status)
{
	io_shut(req->data);
}

void io_finish(struct io *io, void (*done)(void *arg), void *arg)
{
	io->done = done;
	io->done_arg = arg;
	io->freed_by_caller = true;
	if (io->state != IO_OPEN) {
		io_shut(io);   /* done runs once the handles are closed */
		return;
	}
	io->state = IO_FINISHING;
	uv_read_stop((uv_stream_t *)&io->tcp);
	io->shutdown_req.data = io;
	if (uv_shutdown(&io->shutdown_req, (uv_stream_t *)&io->tcp, io_shutdown_done) < 0)
		io_shut(io);
}

void io_close(struct io *io)
{
	if (!io)
		return;
	io->freed_by_caller = true;
	io_shut(io);
}
