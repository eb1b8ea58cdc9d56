/* srun's stdin (srun_io_impl.h): read from whatever fd 0 is (a terminal, a
 * pipe or socket on the loop, a file or device in slices from an idle
 * handle) once the nodes that take it said HELLO, forwarded as STDIN to the
 * stdin task's node (or every node), paused while a node's queue is long;
 * --pty puts the terminal in raw mode and sends its size. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cmd/srun_io_impl.h"
#include "cmd/srun_opt.h"

#define STDIN_HIGH (4u << 20)  /* stop reading stdin above this much queued per node */
#define STDIN_LOW (1u << 20)

struct srun_io *srun_stdin_tty_owner;

bool srun_stdin_wanted(struct srun_io *io)
{
	return !io->opts.stdin_file && io->opts.stdin_task != SRUN_STDIN_NONE;
}

int srun_stdin_node(struct srun_io *io)
{
	if (io->opts.stdin_task < 0)
		return -1;
	return io->tasks[io->opts.stdin_task].node;
}

static size_t stdin_queued(struct srun_io *io)
{
	size_t most = 0;
	for (int n = 0; n < io->nnodes; n++) {
		struct conn *c = io->nodes[n].conn;
		if (c && !c->closing) {
			size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
			if (q > most)
				most = q;
		}
	}
	return most;
}

static void stdin_forward(struct srun_io *io, const char *p, size_t len)
{
	int target = srun_stdin_node(io);
	uint32_t task = io->opts.stdin_task < 0 ? STEPIO_ALL_TASKS : (uint32_t)io->opts.stdin_task;
	for (int n = 0; n < io->nnodes; n++)
		if ((target < 0 || n == target) && !io->nodes[n].done)
			srun_io_send(io->nodes[n].conn, STEPIO_STDIN, task, p, (uint32_t)len);
}

static void stdin_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char space[65536];
	*buf = uv_buf_init(space, sizeof(space));
}

static void stdin_stop(struct srun_io *io)
{
	if (io->in_kind == 1)
		uv_read_stop((uv_stream_t *)&io->in);
	else if (io->in_kind == 2)
		uv_idle_stop(&io->in_idle);
}

static void stdin_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct srun_io *io = s->data;
	if (n > 0) {
		stdin_forward(io, buf->base, n);
		if (stdin_queued(io) > STDIN_HIGH) {
			io->in_paused = true;
			stdin_stop(io);
		}
	} else if (n < 0) {
		io->in_eof = true;
		stdin_stop(io);
		stdin_forward(io, "", 0);
	}
}

static void stdin_idle(uv_idle_t *h)
{
	struct srun_io *io = h->data;
	char buf[65536];
	ssize_t n = read(0, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		io->in_eof = true;
		uv_idle_stop(h);
		stdin_forward(io, "", 0);
		return;
	}
	stdin_forward(io, buf, n);
	if (stdin_queued(io) > STDIN_HIGH) {
		io->in_paused = true;
		uv_idle_stop(h);
	}
}

static void stdin_go(struct srun_io *io)
{
	if (io->in_kind == 1)
		uv_read_start((uv_stream_t *)&io->in, stdin_alloc, stdin_read);
	else if (io->in_kind == 2)
		uv_idle_start(&io->in_idle, stdin_idle);
}

void srun_stdin_resume(struct srun_io *io)
{
	if (io->in_paused && !io->in_eof && stdin_queued(io) < STDIN_LOW) {
		io->in_paused = false;
		stdin_go(io);
	}
}

/* Start reading once every node that takes stdin has said HELLO. */
void srun_stdin_start(struct srun_io *io)
{
	if (io->in_started || !srun_stdin_wanted(io))
		return;
	int target = srun_stdin_node(io);
	for (int n = 0; n < io->nnodes; n++)
		if ((target < 0 || n == target) && !io->nodes[n].conn)
			return;
	io->in_started = true;
	uv_handle_type kind = uv_guess_handle(0);
	if (kind == UV_TTY) {
		if (uv_tty_init(&io->loop, &io->in.tty, 0, 1) == 0) {
			io->in_kind = 1;
			if (io->opts.pty && uv_tty_set_mode(&io->in.tty, UV_TTY_MODE_RAW) == 0) {
				io->tty_raw = true;
				srun_stdin_tty_owner = io;
			}
		}
	} else if (kind == UV_NAMED_PIPE) {
		if (uv_pipe_init(&io->loop, &io->in.pipe, 0) == 0 &&
		    uv_pipe_open(&io->in.pipe, 0) == 0)
			io->in_kind = 1;
	} else if (kind == UV_TCP) {
		uv_tcp_t *t = (uv_tcp_t *)&io->in;
		if (uv_tcp_init(&io->loop, t) == 0 && uv_tcp_open(t, 0) == 0)
			io->in_kind = 1;
	}
	if (!io->in_kind && fcntl(0, F_GETFL) >= 0) {
		uv_idle_init(&io->loop, &io->in_idle);
		io->in_idle.data = io;
		io->in_kind = 2;
	}
	if (io->in_kind == 1)
		((uv_handle_t *)&io->in)->data = io;
	if (!io->in_kind) {
		stdin_forward(io, "", 0);   /* no stdin at all: EOF */
		return;
	}
	stdin_go(io);
}

void srun_io_tty_restore(void)
{
	if (srun_stdin_tty_owner && srun_stdin_tty_owner->tty_raw) {
		uv_tty_reset_mode();
		srun_stdin_tty_owner->tty_raw = false;
	}
}

void srun_stdin_winsize(struct srun_io *io)
{
	struct winsize ws;
	if (!io->opts.pty || ioctl(0, TIOCGWINSZ, &ws) < 0)
		return;
	int n = io->tasks[0].node;
	srun_io_send_json(io->nodes[n].conn, STEPIO_WINSIZE,
		       json_pack("{s:i, s:i}", "rows", ws.ws_row, "cols", ws.ws_col));
}

