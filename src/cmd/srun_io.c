/* srun's end of the step I/O protocol (srun_io.h, doc/steps.md).  One libuv
 * loop: the listener and a connection per node's herdstepd, signals and
 * timers (stdin and the terminal: srun_stdin.c).  Output is written with
 * blocking writes to srun's own stdout and stderr, whole lines at a time per
 * task (-u: as it comes), so a slow terminal slows the step rather than
 * growing srun's memory. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include "cmd/srun_io.h"
#include "cmd/srun_io_impl.h"
#include "cmd/srun_opt.h"
#include "common/msg.h"
#include "common/stepio.h"
#include "common/strbuf.h"
#include "common/secret.h"
#include "common/xmalloc.h"


#define FLUSH_MS 100           /* exits of one node gathered this long, then printed */
#define POLL_MS 2000           /* STEP_INFO while waiting */
#define LAUNCH_WAIT_S 30       /* a node's herdstepd connects within this */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void send_signal(struct srun_io *io, int sig);

/* ---- output ------------------------------------------------------------ */

static void write_fd(struct srun_io *io, int fd, const char *p, size_t len)
{
	while (len && !(fd == 1 && io->stdout_broken)) {
		ssize_t w = write(fd, p, len);
		if (w > 0) {
			p += w;
			len -= w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			poll(&pfd, 1, 1000);
			continue;
		}
		/* A closed reader (srun | head): Slurm kills the step on SIGPIPE. */
		if (w < 0 && errno == EPIPE && fd == 1) {
			io->stdout_broken = true;
			send_signal(io, SIGKILL);
		}
		return;
	}
}

/* A line or piece of task output, with the label when -l. */
static void emit(struct srun_io *io, int task, int stream, const char *p, size_t len)
{
	int fd = stream ? 2 : 1;
	struct task *t = &io->tasks[task];
	char label[32];

	if (!io->opts.label || io->opts.pty) {
		write_fd(io, fd, p, len);
		return;
	}
	srun_label(task, io->width, label, sizeof(label));
	struct strbuf sb = { 0 };
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t n = nl ? (size_t)(nl - p) + 1 : len;
		if (!t->mid_line[stream])
			strbuf_adds(&sb, label);
		strbuf_add(&sb, p, n);
		t->mid_line[stream] = !nl;
		p += n;
		len -= n;
	}
	if (sb.len)
		write_fd(io, fd, sb.s, sb.len);
	free(sb.s);
}

static void task_output(struct srun_io *io, int task, int stream, const char *p, size_t len)
{
	struct task *t = &io->tasks[task];
	struct strbuf *b = &t->out[stream];

	if (io->opts.unbuffered || io->opts.pty) {
		emit(io, task, stream, p, len);
		return;
	}
	/* Whole lines out; the rest waits for its newline or the stream's end. */
	const char *last = NULL;
	for (size_t i = len; i > 0; i--)
		if (p[i - 1] == '\n') {
			last = p + i - 1;
			break;
		}
	if (!last) {
		strbuf_add(b, p, len);
		return;
	}
	size_t head = (size_t)(last - p) + 1;
	if (b->len) {
		strbuf_add(b, p, head);
		emit(io, task, stream, b->s, b->len);
		b->len = 0;
	} else {
		emit(io, task, stream, p, head);
	}
	if (len > head)
		strbuf_add(b, p + head, len - head);
}

static void task_output_end(struct srun_io *io, int task, int stream)
{
	struct strbuf *b = &io->tasks[task].out[stream];
	if (b->len) {
		emit(io, task, stream, b->s, b->len);
		b->len = 0;
	}
}

static void errline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errline(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	for (ssize_t off = 0, w; off < n; off += w)
		if ((w = write(2, buf + off, n - off)) <= 0 && errno != EINTR)
			break;
		else if (w < 0)
			w = 0;
}

/* ---- sending ----------------------------------------------------------- */

struct wreq {
	uv_write_t req;
	struct srun_io *io;
	struct strbuf data;
};

static void write_done(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	struct srun_io *io = w->io;
	free(w->data.s);
	free(w);
	srun_stdin_resume(io);
}

void srun_io_send(struct conn *c, uint16_t type, uint32_t task, const void *data, uint32_t len)
{
	if (!c || c->closing)
		return;
	struct wreq *w = xcalloc(1, sizeof(*w));
	w->io = c->io;
	stepio_encode(&w->data, type, task, data, len);
	uv_buf_t buf = uv_buf_init(w->data.s, (unsigned)w->data.len);
	if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, write_done) < 0) {
		free(w->data.s);
		free(w);
	}
}

void srun_io_send_json(struct conn *c, uint16_t type, json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (text) {
		srun_io_send(c, type, STEPIO_ALL_TASKS, text, (uint32_t)strlen(text));
		free(text);
	}
}

static void signal_node(struct srun_io *io, int node, int sig)
{
	srun_io_send_json(io->nodes[node].conn, STEPIO_SIGNAL, json_pack("{s:i}", "signal", sig));
}

/* To every node now connected; those still to say HELLO get it then. */
static void send_signal(struct srun_io *io, int sig)
{
	if (io->nsent < MAX_SENT_SIGNALS)
		io->sent[io->nsent++] = sig;
	for (int n = 0; n < io->nnodes; n++)
		if (!io->nodes[n].done)
			signal_node(io, n, sig);
}

/* ---- exits and the end ------------------------------------------------- */

static void flush_node(struct srun_io *io, int n)
{
	struct node *nd = &io->nodes[n];
	while (nd->npend) {
		/* one line per status, in the order the statuses came */
		int status = io->tasks[nd->pend[0]].status;
		int *ids = xmalloc(nd->npend * sizeof(*ids));
		size_t k = 0, keep = 0;
		for (size_t i = 0; i < nd->npend; i++) {
			if (io->tasks[nd->pend[i]].status == status)
				ids[k++] = nd->pend[i];
			else
				nd->pend[keep++] = nd->pend[i];
		}
		nd->npend = keep;
		char text[128], phrase[1100];
		if (srun_status_text(status, nd->oom, text, sizeof(text)))
			errline("srun: error: %s: %s: %s", nd->name,
				srun_task_phrase(ids, k, phrase, sizeof(phrase)), text);
		free(ids);
	}
}

static void flush_all(struct srun_io *io)
{
	for (int n = 0; n < io->nnodes; n++)
		flush_node(io, n);
}

static void flush_timer_cb(uv_timer_t *t)
{
	flush_all(t->data);
}

static void finish(struct srun_io *io)
{
	if (io->finished)
		return;
	io->finished = true;
	flush_all(io);
	for (int i = 0; i < io->ntasks; i++) {
		task_output_end(io, i, 0);
		task_output_end(io, i, 1);
	}
	int code = 0;
	for (int i = 0; i < io->ntasks; i++) {
		int c = srun_status_code(io->tasks[i].status);
		if (c > code)
			code = c;
	}
	if (io->terminating)
		errline("srun: Force Terminated %s", io->step_name);
	io->exit_code = code;
	uv_stop(&io->loop);
}

static void check_done(struct srun_io *io)
{
	for (int n = 0; n < io->nnodes; n++)
		if (!io->nodes[n].done)
			return;
	finish(io);
}

static void kill_timer_cb(uv_timer_t *t)
{
	send_signal(t->data, SIGKILL);
}

/* -K: Slurm terminates the step (SIGCONT, SIGTERM, SIGKILL after KillWait). */
static void terminate_step(struct srun_io *io)
{
	if (io->terminating)
		return;
	io->terminating = true;
	if (!io->opts.quiet)
		errline("srun: launch/slurm: _step_signal: Terminating %s", io->step_name);
	send_signal(io, SIGCONT);
	send_signal(io, SIGTERM);
	uv_timer_start(&io->kill_timer, kill_timer_cb, (uint64_t)io->opts.kill_wait * 1000, 0);
}

static void print_status(struct srun_io *io)
{
	static const char *names[] = { "running", "exited", "exited abnormally", "unknown" };
	int *ids = xmalloc((io->ntasks ? io->ntasks : 1) * sizeof(*ids));
	for (int state = 0; state < 4; state++) {
		size_t k = 0;
		for (int i = 0; i < io->ntasks; i++) {
			struct task *t = &io->tasks[i];
			struct node *nd = &io->nodes[t->node];
			int s = t->exited ? (t->status ? 2 : 1) : (nd->conn ? 0 : 3);
			if (s == state)
				ids[k++] = i;
		}
		char phrase[1100];
		if (k)
			errline("srun: %s %s: %s", io->step_name,
				srun_task_phrase(ids, k, phrase, sizeof(phrase)), names[state]);
	}
	free(ids);
}

static void wait_timer_cb(uv_timer_t *t)
{
	struct srun_io *io = t->data;
	if (io->finished)
		return;
	errline("srun: First task exited %ds ago", io->opts.max_wait);
	print_status(io);
	errline("srun: error: Terminating %s", io->step_name);
	send_signal(io, SIGKILL);
}

static void task_exit(struct srun_io *io, int node, int task, int status)
{
	struct task *t = &io->tasks[task];
	struct node *nd = &io->nodes[node];
	if (t->exited)
		return;
	t->exited = true;
	t->status = status;
	task_output_end(io, task, 0);
	task_output_end(io, task, 1);
	nd->pend = xrealloc(nd->pend, (nd->npend + 1) * sizeof(*nd->pend));
	nd->pend[nd->npend++] = task;
	if (status && io->opts.kill_on_bad_exit && !io->terminating) {
		flush_node(io, node);
		terminate_step(io);
	} else if (!uv_is_active((uv_handle_t *)&io->flush_timer)) {
		uv_timer_start(&io->flush_timer, flush_timer_cb, FLUSH_MS, 0);
	}
	if (io->opts.max_wait > 0 && !io->wait_armed) {
		io->wait_armed = true;
		uv_timer_start(&io->wait_timer, wait_timer_cb, (uint64_t)io->opts.max_wait * 1000, 0);
	}
}

/* A node that will say no more: its tasks without an exit count as killed. */
static void node_lost(struct srun_io *io, int n)
{
	struct node *nd = &io->nodes[n];
	if (nd->done)
		return;
	for (size_t i = 0; i < nd->ntasks; i++)
		task_exit(io, n, nd->tasks[i], SIGKILL);
	nd->done = nd->lost = true;
	flush_node(io, n);
}

/* ---- the fence hub ----------------------------------------------------- */

static void fence_in(struct srun_io *io, int n, const char *p, size_t len)
{
	json_t *obj = json_loadb(p, len, 0, NULL);
	json_t *seq = json_object_get(obj, "seq"), *kvs = json_object_get(obj, "kvs");
	if (!json_is_integer(seq) || !json_is_object(kvs)) {
		errline("srun: error: %s: malformed PMI fence message", io->nodes[n].name);
		json_decref(obj);
		return;
	}
	struct node *nd = &io->nodes[n];
	nd->fence_in = true;
	nd->fence_seq = json_integer_value(seq);
	json_decref(nd->fence_kvs);
	nd->fence_kvs = json_incref(kvs);
	json_decref(obj);
	for (int i = 0; i < io->nnodes; i++)
		if (!io->nodes[i].fence_in || io->nodes[i].fence_seq != nd->fence_seq)
			return;
	json_t *merged = json_object();
	for (int i = 0; i < io->nnodes; i++) {
		json_object_update(merged, io->nodes[i].fence_kvs);
		json_decref(io->nodes[i].fence_kvs);
		io->nodes[i].fence_kvs = NULL;
		io->nodes[i].fence_in = false;
	}
	json_t *out = json_pack("{s:I, s:o}", "seq", (json_int_t)nd->fence_seq, "kvs", merged);
	char *text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	for (int i = 0; i < io->nnodes; i++)
		srun_io_send(io->nodes[i].conn, STEPIO_FENCE_OUT, STEPIO_ALL_TASKS, text,
			  (uint32_t)strlen(text));
	free(text);
}

/* ---- the controller ---------------------------------------------------- */

static void step_info_cb(void *arg, json_t *reply, const struct herd_error *err)
{
	struct srun_io *io = arg;
	io->info_busy = false;
	if (io->finished || !reply || cmd_jint(reply, "rc") != 0)
		return;
	json_t *steps = json_object_get(reply, "steps"), *s;
	bool *seen = xcalloc(io->njobs, sizeof(bool));
	size_t i;
	json_array_foreach(steps, i, s) {
		long long job = cmd_jint(s, "job_id");
		int k = 0;
		while (k < io->njobs && io->job_ids[k] != job)
			k++;
		if (k == io->njobs || cmd_jint(s, "step_id") != io->step_id)
			continue;
		seen[k] = true;
		const char *state = cmd_jstr(s, "state");
		if (!strcmp(state, "RUNNING") || !*state)
			continue;
		if (!io->ctld_final) {
			io->ctld_final = true;
			io->ctld_final_at = now_s();
			snprintf(io->ctld_state, sizeof(io->ctld_state), "%s", state);
			const char *failed = cmd_jstr(s, "failed_node");
			if (!strcmp(state, "NODE_FAIL") && *failed)
				errline("srun: error: Node failure on %s", failed);
			/* Slurm's line when the step is ended under srun (scancel,
			 * time limit, a node's failure) */
			if (strcmp(state, "COMPLETED") && strcmp(state, "FAILED") && !io->forcing)
				errline("srun: Job step aborted: Waiting up to %d seconds for job step to "
					"finish.", io->opts.kill_wait + 2);
			for (int n = 0; n < io->nnodes; n++)
				if (io->nodes[n].job_id == job && !strcmp(io->nodes[n].name, failed))
					node_lost(io, n);
		}
		/* The controller ended the step: nodes that are gone say no more;
		 * those still connected get KillWait to report their tasks. */
		for (int n = 0; n < io->nnodes; n++) {
			struct node *nd = &io->nodes[n];
			if (nd->job_id == job && !nd->done &&
			    (!nd->conn || nd->closed_early ||
			     now_s() - io->ctld_final_at > io->opts.kill_wait + 2))
				node_lost(io, n);
		}
	}
	/* The controller no longer knows the step (its job is gone). */
	for (int n = 0; n < io->nnodes; n++) {
		int k = 0;
		while (k < io->njobs && io->job_ids[k] != io->nodes[n].job_id)
			k++;
		if (k < io->njobs && !seen[k] && (!io->nodes[n].conn || io->nodes[n].closed_early))
			node_lost(io, n);
	}
	free(seen);
	check_done(io);
}

static void ask_ctld(struct srun_io *io)
{
	if (io->info_busy || !io->client)
		return;
	io->info_busy = true;
	json_t *ids = json_array();
	for (int k = 0; k < io->njobs; k++)
		json_array_append_new(ids, json_integer(io->job_ids[k]));
	json_t *body = json_pack("{s:o}", "job_ids", ids);
	net_call_async(&io->loop, &io->client->target, MSG_STEP_INFO, body, io->client->timeout_ms,
		       step_info_cb, io);
	json_decref(body);
}

static void poll_timer_cb(uv_timer_t *t)
{
	struct srun_io *io = t->data;
	/* A node whose herdstepd went away while the controller still counts
	 * the step running: after a few polls its tasks are taken as lost. */
	for (int n = 0; n < io->nnodes; n++) {
		struct node *nd = &io->nodes[n];
		if (nd->closed_early && !nd->done && ++nd->lost_polls > 3)
			node_lost(io, n);
		/* The controller answered STEP_CREATE after every node's herdstepd
		 * had connected (doc/steps.md): one that never did is lost. */
		if (!nd->connected && !nd->done && now_s() - io->run_start > LAUNCH_WAIT_S) {
			errline("srun: error: Task launch for %s failed on node %s: no connection from "
				"its step daemon", io->step_name, nd->name);
			node_lost(io, n);
		}
	}
	check_done(io);
	if (!io->finished)
		ask_ctld(io);
}

/* ---- connections ------------------------------------------------------- */

static void conn_closed(uv_handle_t *h)
{
	struct conn *c = h->data;
	stepio_decoder_free(&c->dec);
	free(c);
}

static void wait_remove(struct conn *c)
{
	struct srun_io *io = c->io;
	if (c->node >= 0 || (!c->wait_prev && io->wait_oldest != c))
		return;   /* not in the list */
	*(c->wait_prev ? &c->wait_prev->wait_next : &io->wait_oldest) = c->wait_next;
	*(c->wait_next ? &c->wait_next->wait_prev : &io->wait_newest) = c->wait_prev;
	c->wait_prev = c->wait_next = NULL;
	io->nwaiting--;
}

static void conn_close(struct conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	wait_remove(c);
	struct srun_io *io = c->io;
	if (c->node >= 0) {
		struct node *nd = &io->nodes[c->node];
		if (nd->conn == c)
			nd->conn = NULL;
		if (!nd->done) {
			nd->closed_early = true;
			ask_ctld(io);
		}
	}
	uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static bool key_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

static int hello(struct conn *c, const char *p, size_t len)
{
	struct srun_io *io = c->io;
	json_t *obj = json_loadb(p, len, 0, NULL);
	int rc = -1;
	const char *key = cmd_jstr(obj, "key");
	long long node_id = cmd_jint(obj, "node_id");

	if (!obj || !key_equal(key, io->key))
		goto out;   /* not our step's herdstepd: say nothing to it */
	if (cmd_jint(obj, "step_id") != io->step_id || node_id < 0 || node_id >= io->nnodes ||
	    cmd_jint(obj, "job_id") != io->nodes[node_id].job_id || io->nodes[node_id].conn ||
	    io->nodes[node_id].done)
		goto out;
	wait_remove(c);
	c->node = (int)node_id;
	io->nodes[node_id].conn = c;
	io->nodes[node_id].connected = true;
	for (int i = 0; i < io->nsent; i++)
		signal_node(io, c->node, io->sent[i]);
	if (io->opts.pty && io->tasks[0].node == c->node)
		srun_stdin_winsize(io);
	srun_stdin_start(io);
	if (io->in_eof && srun_stdin_wanted(io) &&
	    (srun_stdin_node(io) < 0 || srun_stdin_node(io) == c->node))
		srun_io_send(c, STEPIO_STDIN, io->opts.stdin_task < 0 ? STEPIO_ALL_TASKS
					   : (uint32_t)io->opts.stdin_task, "", 0);
	rc = 0;
out:
	json_decref(obj);
	return rc;
}

static bool task_on_node(struct srun_io *io, int node, uint32_t task)
{
	return task < (uint32_t)io->ntasks && io->tasks[task].node == node;
}

/* One message; -1 closes the connection. */
static int conn_message(struct conn *c, const struct stepio_msg *m)
{
	struct srun_io *io = c->io;
	if (c->node < 0)
		return m->type == STEPIO_HELLO ? hello(c, m->data, m->len) : -1;
	struct node *nd = &io->nodes[c->node];
	switch (m->type) {
	case STEPIO_STDOUT:
	case STEPIO_STDERR: {
		if (!task_on_node(io, c->node, m->task))
			return 0;
		int stream = m->type == STEPIO_STDERR;
		if (m->len)
			task_output(io, m->task, stream, m->data, m->len);
		else
			task_output_end(io, m->task, stream);
		return 0;
	}
	case STEPIO_EXIT: {
		json_t *obj = json_loadb(m->data, m->len, 0, NULL);
		json_t *st = json_object_get(obj, "status");
		if (json_is_integer(st) && task_on_node(io, c->node, m->task))
			task_exit(io, c->node, m->task, (int)json_integer_value(st));
		json_decref(obj);
		return 0;
	}
	case STEPIO_ERROR:
		errline("srun: error: %.*s", (int)m->len, m->data);
		return 0;
	case STEPIO_FENCE_IN:
		fence_in(io, c->node, m->data, m->len);
		return 0;
	case STEPIO_DONE: {
		json_t *obj = json_loadb(m->data, m->len, 0, NULL);
		nd->oom = json_is_true(json_object_get(obj, "oom"));
		json_decref(obj);
		/* a task the node never reported: it did not run to an exit */
		for (size_t i = 0; i < nd->ntasks; i++)
			if (!io->tasks[nd->tasks[i]].exited)
				task_exit(io, c->node, nd->tasks[i], SIGKILL);
		nd->done = true;
		flush_node(io, c->node);
		check_done(io);
		return 0;
	}
	default:
		return 0;   /* HELLO twice, or a type only srun sends: ignored */
	}
}

static void conn_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char space[65536];
	*buf = uv_buf_init(space, sizeof(space));
}

static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct conn *c = s->data;
	struct stepio_msg m;
	int r;

	if (n < 0) {
		conn_close(c);
		return;
	}
	stepio_feed(&c->dec, buf->base, n);
	while (!c->closing && (r = stepio_next(&c->dec, &m)) != 0)
		if (r < 0 || conn_message(c, &m) < 0) {
			conn_close(c);
			return;
		}
	if (c->node < 0 && c->dec.len - c->dec.off > SRUN_HELLO_MAX)
		conn_close(c);   /* no HELLO is this long: not a herdstepd of ours */
}

static void on_connect(uv_stream_t *server, int status)
{
	struct srun_io *io = server->data;
	if (status < 0)
		return;
	struct conn *c = xcalloc(1, sizeof(*c));
	c->io = io;
	c->node = -1;
	uv_tcp_init(&io->loop, &c->tcp);
	c->tcp.data = c;
	if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
		c->closing = true;
		uv_close((uv_handle_t *)&c->tcp, conn_closed);
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	c->wait_prev = io->wait_newest;
	*(io->wait_newest ? &io->wait_newest->wait_next : &io->wait_oldest) = c;
	io->wait_newest = c;
	if (++io->nwaiting > io->nnodes + SRUN_HELLO_SPARE)
		conn_close(io->wait_oldest);   /* a herdstepd says HELLO at once: not this one */
	uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_read);
}

/* ---- signals ----------------------------------------------------------- */

static void abort_timer_cb(uv_timer_t *t)
{
	struct srun_io *io = t->data;
	errline("srun: error: Timed out waiting for job step to complete");
	for (int n = 0; n < io->nnodes; n++)
		node_lost(io, n);
	finish(io);
}

static void on_intr(struct srun_io *io)
{
	double now = now_s();
	if (io->forcing) {
		/* srun(1): a third Ctrl-C ends srun without waiting */
		for (int n = 0; n < io->nnodes; n++)
			node_lost(io, n);
		finish(io);
		return;
	}
	if (io->opts.quit_on_interrupt || io->opts.disable_status || now - io->last_intr < 1.0) {
		errline("srun: sending Ctrl-C to %s", io->step_name);
		send_signal(io, SIGINT);
		if (!io->opts.quit_on_interrupt && io->opts.disable_status &&
		    now - io->last_intr >= 1.0) {
			io->last_intr = now;
			return;
		}
		io->forcing = true;
		errline("srun: Job step aborted: Waiting up to %d seconds for job step to finish.",
			io->opts.kill_wait + 2);
		send_signal(io, SIGKILL);
		uv_timer_start(&io->abort_timer, abort_timer_cb,
			       (uint64_t)(io->opts.kill_wait + 2) * 1000, 0);
		return;
	}
	errline("srun: interrupt (one more within 1 sec to abort)");
	print_status(io);
	io->last_intr = now;
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct srun_io *io = h->data;
	switch (sig) {
	case SIGINT:
		on_intr(io);
		break;
	case SIGWINCH:
		srun_stdin_winsize(io);
		break;
	case SIGTSTP:
		break;   /* srun(1): Ctrl-Z is ignored */
	default:
		send_signal(io, sig);
	}
}

/* ---- set up ------------------------------------------------------------ */

/* Caught while the step runs (started by srun_io_run, so that until then
 * the command's own handlers see them). */
static const int forwarded[] = { SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGHUP, SIGCONT,
				 SIGALRM, SIGTSTP, SIGWINCH };

struct srun_io *srun_io_create(const char *host, const struct srun_io_opts *opts,
			       struct herd_error *err)
{
	struct srun_io *io = xcalloc(1, sizeof(*io));
	struct sockaddr_storage ss;
	int namelen = sizeof(ss);

	io->opts = *opts;
	io->last_intr = -10;
	if (uv_loop_init(&io->loop) < 0) {
		free(io);
		errprintf(err, "cannot start the I/O loop");
		return NULL;
	}
	if (secret_random_hex(io->key, sizeof(io->key)) < 0)
		abort();   /* no entropy: a guessable key would let anyone in */
	uv_tcp_init(&io->loop, &io->listener);
	io->listener.data = io;
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	const struct sockaddr *addr;
	if (uv_ip4_addr(host, 0, &a4) == 0)
		addr = (const struct sockaddr *)&a4;
	else if (uv_ip6_addr(host, 0, &a6) == 0)
		addr = (const struct sockaddr *)&a6;
	else {
		errprintf(err, "cannot listen on %s: not an address", host);
		goto error;
	}
	int r = uv_tcp_bind(&io->listener, addr, 0);
	if (r == 0)
		r = uv_listen((uv_stream_t *)&io->listener, 1024, on_connect);
	if (r == 0)
		r = uv_tcp_getsockname(&io->listener, (struct sockaddr *)&ss, &namelen);
	if (r < 0) {
		errprintf(err, "cannot listen on %s: %s", host, uv_strerror(r));
		goto error;
	}
	io->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					    : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		uv_signal_init(&io->loop, &io->sigs[i]);
		io->sigs[i].data = io;
		io->nsigs++;
	}
	uv_timer_t *timers[] = { &io->flush_timer, &io->poll_timer, &io->kill_timer,
				 &io->wait_timer, &io->abort_timer };
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		uv_timer_init(&io->loop, timers[i]);
		timers[i]->data = io;
	}
	return io;
error:
	uv_close((uv_handle_t *)&io->listener, NULL);
	uv_run(&io->loop, UV_RUN_NOWAIT);
	uv_loop_close(&io->loop);
	free(io);
	return NULL;
}

int srun_io_port(const struct srun_io *io)
{
	return io->port;
}

const char *srun_io_key(const struct srun_io *io)
{
	return io->key;
}

int srun_io_set_step(struct srun_io *io, long long job_id, const json_t *layout,
		     struct cmd_client *client, struct herd_error *err)
{
	json_t *names = json_object_get(layout, "node_names");
	json_t *ids = json_object_get(layout, "task_ids");
	json_t *jobs = json_object_get(layout, "job_ids");   /* a het step's: each node's job */
	long long ntasks = cmd_jint(layout, "num_tasks");
	size_t nnodes = json_array_size(names);

	if (!nnodes || json_array_size(ids) != nnodes || ntasks < 1 || ntasks > 10000000 ||
	    (jobs && json_array_size(jobs) != nnodes))
		return errprintf(err, "the controller's step layout is malformed");
	io->job_id = job_id;
	io->step_id = cmd_jint(layout, "step_id");
	snprintf(io->step_name, sizeof(io->step_name), "StepId=%lld.%lld", job_id, io->step_id);
	io->client = client;
	io->ntasks = (int)ntasks;
	io->tasks = xcalloc(ntasks, sizeof(*io->tasks));
	for (long long i = 0; i < ntasks; i++)
		io->tasks[i].node = -1;
	io->nnodes = (int)nnodes;
	io->nodes = xcalloc(nnodes, sizeof(*io->nodes));
	for (size_t n = 0; n < nnodes; n++) {
		struct node *nd = &io->nodes[n];
		json_t *list = json_array_get(ids, n), *t;
		size_t i;
		nd->name = xstrdup(json_string_value(json_array_get(names, n)) ?: "?");
		nd->job_id = jobs ? json_integer_value(json_array_get(jobs, n)) : job_id;
		int k = 0;
		while (k < io->njobs && io->job_ids[k] != nd->job_id)
			k++;
		if (k == io->njobs) {
			io->job_ids = xrealloc(io->job_ids, (k + 1) * sizeof(*io->job_ids));
			io->job_ids[io->njobs++] = nd->job_id;
		}
		nd->tasks = xcalloc(json_array_size(list) + 1, sizeof(int));
		json_array_foreach(list, i, t) {
			long long id = json_integer_value(t);
			if (!json_is_integer(t) || id < 0 || id >= ntasks || io->tasks[id].node >= 0)
				return errprintf(err, "the controller's step layout is malformed");
			io->tasks[id].node = (int)n;
			nd->tasks[nd->ntasks++] = (int)id;
		}
	}
	for (long long i = 0; i < ntasks; i++)
		if (io->tasks[i].node < 0)
			return errprintf(err, "the controller's step layout is malformed");
	if (io->opts.stdin_task >= io->ntasks)
		return errprintf(err, "--input=%d: the step has no task %d", io->opts.stdin_task,
				 io->opts.stdin_task);
	io->width = srun_label_width(ntasks);
	return 0;
}

int srun_io_run(struct srun_io *io)
{
	io->run_start = now_s();
	for (int i = 0; i < io->nsigs; i++)
		uv_signal_start(&io->sigs[i], on_signal, forwarded[i]);
	uv_timer_start(&io->poll_timer, poll_timer_cb, POLL_MS, POLL_MS);
	uv_run(&io->loop, UV_RUN_DEFAULT);
	srun_io_tty_restore();
	return io->exit_code;
}

static void close_any(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, h->type == UV_TCP && h->data && h->data != arg ? conn_closed : NULL);
}

void srun_io_destroy(struct srun_io *io)
{
	if (!io)
		return;
	srun_io_tty_restore();
	/* Connections close without waiting: herdstepd ends the step's tasks
	 * when srun goes away before they did. */
	uv_walk(&io->loop, close_any, io);
	uv_run(&io->loop, UV_RUN_NOWAIT);
	for (int n = 0; n < io->nnodes; n++) {
		free(io->nodes[n].name);
		free(io->nodes[n].tasks);
		free(io->nodes[n].pend);
		json_decref(io->nodes[n].fence_kvs);
	}
	for (int i = 0; i < io->ntasks; i++) {
		free(io->tasks[i].out[0].s);
		free(io->tasks[i].out[1].s);
	}
	free(io->nodes);
	free(io->tasks);
	free(io->job_ids);
	/* An in-flight STEP_INFO's worker still points at the loop inside io:
	 * then io is left for the process's exit to take. */
	if (!io->info_busy && uv_loop_close(&io->loop) == 0)
		free(io);
}
