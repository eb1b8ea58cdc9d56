/* cmd/srun_io: srun's side of the step I/O protocol, run for real on its
 * libuv loop against two peers speaking herdstepd's side over TCP (threads
 * of this test): the key check, labelled line-buffered output, stdin to
 * task 0, the PMI fence, the error lines folded per node and status, and
 * the exit code.  srun's stdout/stderr are redirected to files and read
 * back. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include "cmd/opt.c"
#include "cmd/srun_check.c"
#include "cmd/srun_io.c"
#include "cmd/srun_stdin.c"

struct peer {
	int port;
	const char *key;
	int node_id;
	const char *node;
	char stdin_got[256];
	bool stdin_eof;
	char fence_out[512];
	bool closed_on_bad_key;
};

static int peer_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		abort();
	return fd;
}

static void peer_send(int fd, uint16_t type, uint32_t task, const char *data, size_t len)
{
	struct strbuf sb = { 0 };
	stepio_encode(&sb, type, task, data, (uint32_t)len);
	for (size_t off = 0; off < sb.len;) {
		ssize_t w = write(fd, sb.s + off, sb.len - off);
		if (w <= 0)
			break;
		off += w;
	}
	free(sb.s);
}

static void peer_sends(int fd, uint16_t type, uint32_t task, const char *text)
{
	peer_send(fd, type, task, text, strlen(text));
}

/* The next message from srun; 0 at EOF. */
static int peer_next(int fd, struct stepio_decoder *d, struct stepio_msg *m)
{
	for (;;) {
		int r = stepio_next(d, m);
		if (r)
			return r;
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return 0;
		stepio_feed(d, buf, n);
	}
}

static void peer_hello(int fd, struct peer *p, const char *key, const char *tasks)
{
	char text[256];
	snprintf(text, sizeof(text),
		 "{\"key\":\"%s\",\"job_id\":12,\"step_id\":3,\"node\":\"%s\",\"node_id\":%d,"
		 "\"tasks\":%s}", key, p->node, p->node_id, tasks);
	peer_sends(fd, STEPIO_HELLO, STEPIO_ALL_TASKS, text);
}

static void fence(int fd, struct stepio_decoder *d, struct peer *p, const char *kvs)
{
	struct stepio_msg m;
	char text[128];
	snprintf(text, sizeof(text), "{\"seq\":0,\"kvs\":%s}", kvs);
	peer_sends(fd, STEPIO_FENCE_IN, STEPIO_ALL_TASKS, text);
	while (peer_next(fd, d, &m) == 1)
		if (m.type == STEPIO_FENCE_OUT) {
			snprintf(p->fence_out, sizeof(p->fence_out), "%.*s", (int)m.len, m.data);
			return;
		}
}

/* node n1: tasks 0 and 1; reads stdin for task 0 first. */
static void *node1(void *arg)
{
	struct peer *p = arg;
	struct stepio_decoder d = { 0 };
	struct stepio_msg m;

	/* a connection with another key is closed without a word */
	int bad = peer_connect(p->port);
	peer_hello(bad, p, "0123456789abcdef0123456789abcdef", "[0,1]");
	p->closed_on_bad_key = peer_next(bad, &d, &m) == 0;
	close(bad);
	stepio_decoder_free(&d);

	int fd = peer_connect(p->port);
	peer_hello(fd, p, p->key, "[0,1]");
	while (!p->stdin_eof && peer_next(fd, &d, &m) == 1)
		if (m.type == STEPIO_STDIN && m.task == 0) {
			if (!m.len)
				p->stdin_eof = true;
			else
				strncat(p->stdin_got, m.data, m.len);
		}
	fence(fd, &d, p, "{\"a\":\"1\"}");
	peer_sends(fd, STEPIO_STDOUT, 0, "hello\nwor");
	peer_sends(fd, STEPIO_STDOUT, 1, "from one\n");
	peer_sends(fd, STEPIO_STDOUT, 0, "ld\n");
	peer_sends(fd, STEPIO_STDERR, 1, "no newline");
	peer_send(fd, STEPIO_STDERR, 1, "", 0);
	peer_sends(fd, STEPIO_ERROR, STEPIO_ALL_TASKS, "n1: task 1: a message from the node");
	peer_sends(fd, STEPIO_EXIT, 0, "{\"status\":256}");
	peer_sends(fd, STEPIO_EXIT, 1, "{\"status\":256}");
	peer_sends(fd, STEPIO_DONE, STEPIO_ALL_TASKS, "{\"oom\":false}");
	close(fd);
	stepio_decoder_free(&d);
	return NULL;
}

/* node n2: task 2, killed. */
static void *node2(void *arg)
{
	struct peer *p = arg;
	struct stepio_decoder d = { 0 };
	int fd = peer_connect(p->port);
	peer_hello(fd, p, p->key, "[2]");
	fence(fd, &d, p, "{\"b\":\"2\"}");
	peer_sends(fd, STEPIO_STDOUT, 2, "two\n");
	peer_sends(fd, STEPIO_EXIT, 2, "{\"status\":9}");
	peer_sends(fd, STEPIO_DONE, STEPIO_ALL_TASKS, "{\"oom\":false}");
	close(fd);
	stepio_decoder_free(&d);
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return xstrdup(buf);
}

static void test_step(void **state)
{
	struct herd_error err;
	struct srun_io_opts opts = { .label = true, .stdin_task = 0, .kill_wait = 30 };
	struct srun_io *io = srun_io_create("127.0.0.1", &opts, &err);
	assert_non_null(io);
	assert_int_equal(strlen(srun_io_key(io)), 32);
	json_t *layout = json_loads("{\"step_id\":3,\"nodes\":\"n[1-2]\",\"num_nodes\":2,"
				    "\"num_tasks\":3,\"node_names\":[\"n1\",\"n2\"],"
				    "\"tasks_per_node\":\"2,1\",\"task_ids\":[[0,1],[2]],"
				    "\"cpus_per_node\":[2,1]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 12, layout, NULL, &err), 0);

	char out_path[] = "/tmp/srun-io-out-XXXXXX", err_path[] = "/tmp/srun-io-err-XXXXXX";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
	int in[2];
	assert_int_equal(pipe(in), 0);
	assert_int_equal(write(in[1], "input line\n", 11), 11);
	close(in[1]);
	int saved[3] = { dup(0), dup(1), dup(2) };
	dup2(in[0], 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);

	struct peer p1 = { .port = srun_io_port(io), .key = srun_io_key(io), .node_id = 0,
			   .node = "n1" };
	struct peer p2 = p1;
	p2.node_id = 1;
	p2.node = "n2";
	pthread_t t1, t2;
	pthread_create(&t1, NULL, node1, &p1);
	pthread_create(&t2, NULL, node2, &p2);
	int code = srun_io_run(io);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	dup2(saved[0], 0);
	dup2(saved[1], 1);
	dup2(saved[2], 2);
	for (int i = 0; i < 3; i++)
		close(saved[i]);
	close(in[0]);

	/* SIGKILL's 128+9 is above task 0's exit code 1 */
	assert_int_equal(code, 137);
	assert_true(p1.closed_on_bad_key);
	assert_string_equal(p1.stdin_got, "input line\n");
	assert_true(p1.stdin_eof);
	json_t *f1 = json_loads(p1.fence_out, 0, NULL), *f2 = json_loads(p2.fence_out, 0, NULL);
	assert_non_null(f1);
	assert_true(json_equal(f1, f2));
	assert_string_equal(json_string_value(json_object_get(json_object_get(f1, "kvs"), "a")), "1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(f1, "kvs"), "b")), "2");
	json_decref(f1);
	json_decref(f2);

	char *out = slurp(out_path), *errs = slurp(err_path);
	if (getenv("SRUN_IO_DEBUG"))
		fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", out, errs);
	/* whole lines per task, labelled; the order between tasks is free */
	char *hello_line = strstr(out, "0: hello\n"), *world_line = strstr(out, "0: world\n");
	assert_non_null(hello_line);
	assert_non_null(world_line);
	assert_true(hello_line < world_line);
	assert_non_null(strstr(out, "1: from one\n"));
	assert_non_null(strstr(out, "2: two\n"));
	assert_null(strstr(out, "wor\n"));
	assert_non_null(strstr(errs, "1: no newline"));
	assert_non_null(strstr(errs, "srun: error: n1: task 1: a message from the node\n"));
	assert_non_null(strstr(errs, "srun: error: n1: tasks 0-1: Exited with exit code 1\n"));
	assert_non_null(strstr(errs, "srun: error: n2: task 2: Killed\n"));
	free(out);
	free(errs);
	unlink(out_path);
	unlink(err_path);
	close(out_fd);
	close(err_fd);
	json_decref(layout);
	srun_io_destroy(io);
}


/* -K: task 1 exits 3; srun must signal the node (SIGCONT, SIGTERM) before
 * task 0 ends. */
static void *node_kill_bad(void *arg)
{
	struct peer *p = arg;
	struct stepio_decoder d = { 0 };
	struct stepio_msg m;
	int fd = peer_connect(p->port);
	peer_hello(fd, p, p->key, "[0,1]");
	peer_sends(fd, STEPIO_EXIT, 1, "{\"status\":768}");
	int seen = 0;
	while (seen < 2 && peer_next(fd, &d, &m) == 1)
		if (m.type == STEPIO_SIGNAL) {
			json_t *o = json_loadb(m.data, m.len, 0, NULL);
			int sig = (int)json_integer_value(json_object_get(o, "signal"));
			json_decref(o);
			if (sig == SIGCONT || sig == SIGTERM)
				seen++;
		}
	snprintf(p->stdin_got, sizeof(p->stdin_got), "%d", seen);
	peer_sends(fd, STEPIO_EXIT, 0, "{\"status\":15}");
	peer_sends(fd, STEPIO_DONE, STEPIO_ALL_TASKS, "{\"oom\":false}");
	close(fd);
	stepio_decoder_free(&d);
	return NULL;
}

static void test_kill_on_bad_exit(void **state)
{
	struct herd_error err;
	struct srun_io_opts opts = { .kill_on_bad_exit = true, .stdin_task = SRUN_STDIN_NONE,
				     .kill_wait = 30 };
	struct srun_io *io = srun_io_create("127.0.0.1", &opts, &err);
	json_t *layout = json_loads("{\"step_id\":3,\"num_tasks\":2,\"node_names\":[\"n1\"],"
				    "\"task_ids\":[[0,1]]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 12, layout, NULL, &err), 0);
	char err_path[] = "/tmp/srun-io-err-XXXXXX";
	int err_fd = mkstemp(err_path), saved = dup(2);
	dup2(err_fd, 2);
	struct peer p = { .port = srun_io_port(io), .key = srun_io_key(io), .node = "n1" };
	pthread_t t;
	pthread_create(&t, NULL, node_kill_bad, &p);
	int code = srun_io_run(io);
	pthread_join(t, NULL);
	dup2(saved, 2);
	close(saved);
	char *errs = slurp(err_path);
	assert_string_equal(p.stdin_got, "2");
	assert_int_equal(code, 143);
	const char *bad = strstr(errs, "srun: error: n1: task 1: Exited with exit code 3\n");
	const char *term = strstr(errs, "srun: launch/slurm: _step_signal: Terminating StepId=12.3\n");
	assert_non_null(bad);
	assert_non_null(term);
	assert_true(bad < term);
	assert_non_null(strstr(errs, "srun: error: n1: task 0: Terminated\n"));
	assert_non_null(strstr(errs, "srun: Force Terminated StepId=12.3\n"));
	free(errs);
	unlink(err_path);
	close(err_fd);
	json_decref(layout);
	srun_io_destroy(io);
}

/* A herdstepd that goes away before DONE: its task without an exit is taken
 * as killed once the controller (none here) has not ended the step for a
 * few polls. */
static void *node_dies(void *arg)
{
	struct peer *p = arg;
	int fd = peer_connect(p->port);
	peer_hello(fd, p, p->key, "[0,1]");
	peer_sends(fd, STEPIO_EXIT, 0, "{\"status\":0}");
	close(fd);
	return NULL;
}

static void test_lost_node(void **state)
{
	struct herd_error err;
	struct srun_io_opts opts = { .stdin_task = SRUN_STDIN_NONE, .kill_wait = 30 };
	struct srun_io *io = srun_io_create("127.0.0.1", &opts, &err);
	json_t *layout = json_loads("{\"step_id\":3,\"num_tasks\":2,\"node_names\":[\"n1\"],"
				    "\"task_ids\":[[0,1]]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 12, layout, NULL, &err), 0);
	char err_path[] = "/tmp/srun-io-err-XXXXXX";
	int err_fd = mkstemp(err_path), saved = dup(2);
	dup2(err_fd, 2);
	struct peer p = { .port = srun_io_port(io), .key = srun_io_key(io), .node = "n1" };
	pthread_t t;
	pthread_create(&t, NULL, node_dies, &p);
	int code = srun_io_run(io);
	pthread_join(t, NULL);
	dup2(saved, 2);
	close(saved);
	char *errs = slurp(err_path);
	assert_int_equal(code, 137);
	assert_non_null(strstr(errs, "srun: error: n1: task 1: Killed\n"));
	assert_null(strstr(errs, "task 0"));
	free(errs);
	unlink(err_path);
	close(err_fd);
	json_decref(layout);
	srun_io_destroy(io);
}

/* Strangers on srun's I/O port: a flood of silent connections (the oldest
 * give way) and one sending a long message before any HELLO (closed) cost
 * srun little, and the real herdstepd still gets through. */
#define STRANGERS (1 + SRUN_HELLO_SPARE + 8)
struct strangers {
	struct peer p;
	bool oldest_closed, newest_open, long_closed;
};

static bool is_closed(int fd)
{
	struct timeval tv = { 5, 0 };
	char c;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ssize_t n = recv(fd, &c, 1, 0);
	return n == 0 || (n < 0 && errno == ECONNRESET);   /* RST: it left our bytes unread */
}

static void *node_after_strangers(void *arg)
{
	struct strangers *st = arg;
	int fds[STRANGERS];
	char c;

	for (int i = 0; i < STRANGERS; i++)
		fds[i] = peer_connect(st->p.port);
	st->oldest_closed = is_closed(fds[0]);
	usleep(100000);
	st->newest_open = recv(fds[STRANGERS - 1], &c, 1, MSG_DONTWAIT) < 0;

	int lng = peer_connect(st->p.port);
	static char junk[SRUN_HELLO_MAX + 4096];
	memset(junk, 'x', sizeof(junk));
	unsigned char head[STEPIO_HEADER] = { 0 };
	struct strbuf sb = { 0 };
	stepio_encode(&sb, STEPIO_STDOUT, 0, "", 0);
	memcpy(head, sb.s, STEPIO_HEADER);
	free(sb.s);
	uint32_t claim = htonl(STEPIO_MAX_PAYLOAD);   /* the header's first field: the length */
	memcpy(head, &claim, 4);
	send(lng, head, sizeof(head), MSG_NOSIGNAL);
	send(lng, junk, sizeof(junk), MSG_NOSIGNAL);
	st->long_closed = is_closed(lng);
	close(lng);

	int fd = peer_connect(st->p.port);
	peer_hello(fd, &st->p, st->p.key, "[0]");
	peer_sends(fd, STEPIO_EXIT, 0, "{\"status\":0}");
	peer_sends(fd, STEPIO_DONE, STEPIO_ALL_TASKS, "{\"oom\":false}");
	close(fd);
	for (int i = 0; i < STRANGERS; i++)
		close(fds[i]);
	return NULL;
}

static void test_strangers(void **state)
{
	struct herd_error err;
	struct srun_io_opts opts = { .stdin_task = SRUN_STDIN_NONE, .kill_wait = 30 };
	struct srun_io *io = srun_io_create("127.0.0.1", &opts, &err);
	json_t *layout = json_loads("{\"step_id\":3,\"num_tasks\":1,\"node_names\":[\"n1\"],"
				    "\"task_ids\":[[0]]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 12, layout, NULL, &err), 0);
	struct strangers st = { .p = { .port = srun_io_port(io), .key = srun_io_key(io),
				       .node = "n1" } };
	pthread_t t;
	pthread_create(&t, NULL, node_after_strangers, &st);
	int code = srun_io_run(io);
	pthread_join(t, NULL);
	assert_int_equal(code, 0);
	assert_true(st.oldest_closed);
	assert_true(st.newest_open);
	assert_true(st.long_closed);
	json_decref(layout);
	srun_io_destroy(io);
}

static void test_bad_layout(void **state)
{
	struct herd_error err;
	struct srun_io_opts opts = { .stdin_task = 5, .kill_wait = 30 };
	struct srun_io *io = srun_io_create("127.0.0.1", &opts, &err);
	assert_non_null(io);
	json_t *dup = json_loads("{\"step_id\":0,\"num_tasks\":2,\"node_names\":[\"a\",\"b\"],"
				 "\"task_ids\":[[0],[0]]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 1, dup, NULL, &err), -1);
	assert_string_equal(err.text, "the controller's step layout is malformed");
	json_decref(dup);
	srun_io_destroy(io);
	io = srun_io_create("127.0.0.1", &opts, &err);
	json_t *ok = json_loads("{\"step_id\":0,\"num_tasks\":2,\"node_names\":[\"a\"],"
				"\"task_ids\":[[0,1]]}", 0, NULL);
	assert_int_equal(srun_io_set_step(io, 1, ok, NULL, &err), -1);
	assert_string_equal(err.text, "--input=5: the step has no task 5");
	json_decref(ok);
	srun_io_destroy(io);
	assert_null(srun_io_create("not-an-address", &opts, &err));
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_kill_on_bad_exit),
		cmocka_unit_test(test_lost_node),
		cmocka_unit_test(test_bad_layout),
		cmocka_unit_test(test_strangers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
