/* The transport end to end, in one process: a libuv server on its own thread
 * and net_call clients; hostile frames (garbage, oversize, truncated, forged,
 * replayed, unknown type) are refused and the server keeps serving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include "common/auth.h"
#include "common/conf.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/net.h"
#include "munged.h"

static uv_loop_t loop;
static uv_async_t stop_async;
static pthread_t loop_thread;
static int port;
static struct net_server *srv;
/* A second server with small limits, for the caps, deadlines and budgets. */
static struct net_server *srv2;
static int port2;
#define SRV2_FRAME_MS 1500
#define SRV2_IDLE_MS 2000
#define SRV2_PER_PEER 30
#define SRV2_UNVERIFIED (1u << 20)
static int handled;

static void echo(struct net_req *req, void *arg)
{
	handled++;
	net_respond(req, 0, json_pack("{s:i, s:O}", "uid", (int)req->uid, "body", req->body), NULL);
}

static void on_stop(uv_async_t *a)
{
	net_server_stop(srv);
	net_server_stop(srv2);
	uv_close((uv_handle_t *)a, NULL);
}

static void *run_loop(void *arg)
{
	uv_run(&loop, UV_RUN_DEFAULT);
	return NULL;
}

static int setup(void **state)
{
	struct herd_error err;
	if (start_munged(state) < 0)
		return -1;
	uv_loop_init(&loop);
	port = net_free_port();
	struct net_server_opts o = { .host = "127.0.0.1", .port = port, .dest = "t:ctld",
				     .munge_socket = sock, .max_body = 4096, .handler = echo };
	if (!(srv = net_server_start(&loop, &o, &err)))
		return -1;
	port2 = net_free_port();
	struct net_server_opts o2 = {
		.host = "localhost", .port = port2, .dest = "t:ctld", .munge_socket = sock,
		.handler = echo,
		.limits = { .max_conns = 200, .max_conns_per_peer = SRV2_PER_PEER,
			    .frame_ms = SRV2_FRAME_MS, .idle_ms = SRV2_IDLE_MS,
			    .max_unverified = SRV2_UNVERIFIED },
	};
	if (!(srv2 = net_server_start(&loop, &o2, &err)))
		return -1;
	uv_async_init(&loop, &stop_async, on_stop);
	return pthread_create(&loop_thread, NULL, run_loop, NULL);
}

static int teardown(void **state)
{
	uv_async_send(&stop_async);
	pthread_join(loop_thread, NULL);
	uv_loop_close(&loop);
	return stop_munged(state);
}

static struct net_target target(const char *dest)
{
	return (struct net_target){ "127.0.0.1", port, dest, sock };
}

static void call_ok(void)
{
	struct net_target to = target("t:ctld");
	struct herd_error err;
	json_t *reply, *body = json_pack("{s:[i]}", "job_ids", 7);
	assert_int_equal(net_call(&to, MSG_JOB_INFO, body, 5000, &reply, &err), 0);
	assert_int_equal(msg_reply_rc(reply, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(reply, "uid")), getuid());
	assert_true(json_equal(json_object_get(reply, "body"), body));
	json_decref(reply);
	json_decref(body);
}

static int raw_connect_to(int to_port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(to_port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct timeval tv = { 5, 0 };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int raw_connect(void)
{
	return raw_connect_to(port);
}

/* Send bytes, read whatever comes back until the server closes or answers. */
static json_t *raw_exchange(const void *data, size_t len, bool *closed)
{
	unsigned char buf[8192];
	struct frame_hdr hdr;
	struct herd_error err;
	size_t got = 0;
	int fd = raw_connect();
	assert_int_equal(send(fd, data, len, MSG_NOSIGNAL), (ssize_t)len);
	*closed = false;
	for (;;) {
		ssize_t n = recv(fd, buf + got, sizeof(buf) - got, 0);
		if (n <= 0) {
			*closed = n == 0;
			close(fd);
			return NULL;
		}
		got += n;
		if (got >= FRAME_HDR_LEN && frame_hdr_decode(buf, 0, &hdr, &err) == 0 &&
		    got >= FRAME_HDR_LEN + hdr.body_len) {
			close(fd);
			return frame_body_parse((char *)buf + FRAME_HDR_LEN, hdr.body_len, &err);
		}
	}
}

static unsigned char *signed_frame(int type, const char *dest, const char *body, size_t *len)
{
	struct herd_error err;
	char *cred = auth_encode(sock, type, dest, body, strlen(body), &err);
	assert_non_null(cred);
	unsigned char *f = frame_encode(type, 5, cred, body, strlen(body), len);
	free(cred);
	return f;
}

static void good_calls(void **state)
{
	call_ok();
	call_ok();
}

static void garbage_closes_the_connection(void **state)
{
	bool closed;
	json_t *r = raw_exchange("GET / HTTP/1.0\r\n\r\nxxxxxxxxxxxxxxxxxxxx", 38, &closed);
	assert_null(r);
	assert_true(closed);
	call_ok();
}

static void oversize_frame_closes_the_connection(void **state)
{
	size_t len;
	bool closed;
	char *big = malloc(5000);
	memset(big, ' ', 4999);
	big[0] = '{';
	big[4998] = '}';
	big[4999] = 0;
	unsigned char *f = frame_encode(MSG_PING, 1, "x", big, strlen(big), &len);
	assert_null(raw_exchange(f, FRAME_HDR_LEN, &closed));   /* the header alone is enough */
	assert_true(closed);
	free(f);
	free(big);
	call_ok();
}

static void truncated_frame_leaves_the_server_up(void **state)
{
	size_t len;
	unsigned char *f = signed_frame(MSG_PING, "t:ctld", "{}", &len);
	int fd = raw_connect();
	assert_int_equal(send(fd, f, len - 1, 0), (ssize_t)(len - 1));
	close(fd);
	free(f);
	call_ok();
}

static void forged_and_replayed_are_refused(void **state)
{
	size_t len;
	bool closed;
	int before = handled;
	unsigned char *f = signed_frame(MSG_PING, "t:n1", "{}", &len);   /* for another daemon */
	json_t *r = raw_exchange(f, len, &closed);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	json_decref(r);
	free(f);

	f = signed_frame(MSG_PING, "t:ctld", "{}", &len);
	r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), 0);
	json_decref(r);
	r = raw_exchange(f, len, &closed);   /* the same bytes again */
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	assert_string_equal(json_string_value(json_object_get(r, "error")), "credential replayed");
	json_decref(r);
	free(f);

	f = frame_encode(MSG_PING, 5, "MUNGE:forged:", "{}", 2, &len);
	r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	json_decref(r);
	free(f);

	f = frame_encode(MSG_PING, 5, NULL, "{}", 2, &len);   /* no credential at all */
	r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	json_decref(r);
	free(f);
	assert_int_equal(handled, before + 1);   /* only the genuine one reached the handler */
	call_ok();
}

static void bad_type_and_shape_are_refused(void **state)
{
	size_t len;
	bool closed;
	unsigned char *f = signed_frame(999, "t:ctld", "{}", &len);
	json_t *r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_UNKNOWN_TYPE);
	json_decref(r);
	free(f);
	f = signed_frame(MSG_CANCEL_JOB, "t:ctld", "{\"job_id\":\"1\"}", &len);
	r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_PROTOCOL);
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "CANCEL_JOB.job_id"));
	json_decref(r);
	free(f);
	f = signed_frame(MSG_PING, "t:ctld", "{} trailing", &len);
	r = raw_exchange(f, len, &closed);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_PROTOCOL);
	json_decref(r);
	free(f);
	call_ok();
}

static void no_server_is_an_error(void **state)
{
	struct net_target to = { "127.0.0.1", net_free_port(), "t:ctld", sock };
	struct herd_error err;
	json_t *reply, *body = json_object();
	assert_int_equal(net_call(&to, MSG_PING, body, 2000, &reply, &err), -1);
	assert_non_null(strstr(err.text, "Connection refused"));
	json_decref(body);
}


/* ---- caps, deadlines, budgets (srv2) -------------------------------------- */

static void stats2(struct net_server_stats *st)
{
	net_server_stats(srv2, st);   /* a snapshot from the loop's thread, unlocked */
}

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* The server's answer to fd, or NULL when it closes (or 5 s pass); *closed_ms
 * gets when the connection ended. */
static json_t *read_reply(int fd, bool *closed)
{
	unsigned char buf[8192];
	struct frame_hdr hdr;
	struct herd_error err;
	size_t got = 0;

	*closed = false;
	for (;;) {
		ssize_t n = recv(fd, buf + got, sizeof(buf) - got, 0);
		if (n <= 0) {
			*closed = n == 0;
			return NULL;
		}
		got += n;
		if (got >= FRAME_HDR_LEN && frame_hdr_decode(buf, 0, &hdr, &err) == 0 &&
		    got >= FRAME_HDR_LEN + hdr.body_len)
			return frame_body_parse((char *)buf + FRAME_HDR_LEN, hdr.body_len, &err);
	}
}

/* A header claiming body_len, then the credential (NULL: none). */
static void send_head(int fd, int type, const char *cred, uint32_t body_len)
{
	size_t clen = cred ? strlen(cred) : 0, len;
	unsigned char *f = frame_encode(type, 9, cred, "", 0, &len);
	uint32_t be = htonl(body_len);
	memcpy(f + 16, &be, 4);
	assert_int_equal(send(fd, f, FRAME_HDR_LEN + clen, MSG_NOSIGNAL), (ssize_t)(FRAME_HDR_LEN + clen));
	free(f);
}

static void buffer_grows_with_what_arrives(void **state)
{
	static const struct { size_t cap, need, frame, want; } cases[] = {
		{ 0, 20, 0, 4096 },                       /* a header: a page, not the claim */
		{ 0, 65556, 64u << 20, 65556 },           /* one read of a 64 MiB frame */
		{ 65556, 65557, 64u << 20, 131112 },      /* then doubling */
		{ 4096, 4200, 5000, 5000 },               /* never past the frame ... */
		{ 4096, 5000, 4500, 8192 },               /* ... unless more than it is in */
		{ 8192, 100, 0, 8192 },                   /* enough room: unchanged */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(net_buf_grow(cases[i].cap, cases[i].need, cases[i].frame),
				 cases[i].want);
}

static void a_claimed_64mib_body_costs_nothing_without_a_credential(void **state)
{
	struct net_server_stats st;
	bool closed;
	uint64_t t0 = ms_now();
	int fd = raw_connect_to(port2);

	/* No credential: refused at the header, the body never read. */
	send_head(fd, MSG_PING, NULL, 64u << 20);
	json_t *r = read_reply(fd, &closed);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "without a credential"));
	json_decref(r);
	assert_null(read_reply(fd, &closed));
	assert_true(closed);
	close(fd);

	/* A forged one: refused as soon as munged has seen it. */
	fd = raw_connect_to(port2);
	send_head(fd, MSG_PING, "MUNGE:forged:", 64u << 20);
	char junk[65536];
	memset(junk, ' ', sizeof(junk));
	send(fd, junk, sizeof(junk), MSG_NOSIGNAL);
	r = read_reply(fd, &closed);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "rc")), HERD_ERR_AUTH);
	json_decref(r);
	close(fd);
	assert_true(ms_now() - t0 < 2000);
	stats2(&st);
	assert_true(st.allocated < (1u << 20));
}

static void a_replayed_credential_is_refused_before_the_body(void **state)
{
	struct herd_error err;
	bool closed;
	char *cred = auth_encode(sock, MSG_UPDATE_NODE, "t:ctld", "x", 1, &err);
	assert_non_null(cred);
	int fd = raw_connect_to(port2);
	send_head(fd, MSG_UPDATE_NODE, cred, 1u << 20);
	usleep(300000);
	char c;
	assert_true(recv(fd, &c, 1, MSG_DONTWAIT) < 0);   /* munged took it: the body is awaited */
	close(fd);
	json_t *r;
	fd = raw_connect_to(port2);
	send_head(fd, MSG_UPDATE_NODE, cred, 1u << 20);
	r = read_reply(fd, &closed);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "error")), "credential replayed");
	json_decref(r);
	close(fd);
	free(cred);
}

/* A large request from a genuine client goes through the early check; one
 * whose credential belongs to another body is refused once the body is in. */
static void large_frames_are_checked_in_two_halves(void **state)
{
	struct net_target to = { "127.0.0.1", port2, "t:ctld", sock };
	struct herd_error err;
	size_t n = 3u << 20, len;
	char *reason = malloc(n + 1);
	memset(reason, 'r', n);
	reason[n] = 0;
	json_t *reply, *body = json_pack("{s:s, s:s, s:s}", "nodes", "n1", "state", "drain",
					 "reason", reason);
	int before = handled;
	assert_int_equal(net_call(&to, MSG_UPDATE_NODE, body, 10000, &reply, &err), 0);
	assert_int_equal(msg_reply_rc(reply, &err), 0);
	assert_true(json_equal(json_object_get(reply, "body"), body));
	assert_int_equal(handled, before + 1);
	json_decref(reply);

	char *text = frame_body_dump(body, &len);
	char *cred = auth_encode(sock, MSG_UPDATE_NODE, "t:ctld", "{}", 2, &err);
	unsigned char *f = frame_encode(MSG_UPDATE_NODE, 5, cred, text, len, &len);
	bool closed;
	int fd = raw_connect_to(port2);
	for (size_t off = 0; off < len;) {
		ssize_t w = send(fd, f + off, len - off, MSG_NOSIGNAL);
		assert_true(w > 0);
		off += w;
	}
	json_t *r = read_reply(fd, &closed);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "credential does not match its frame");
	json_decref(r);
	close(fd);
	assert_int_equal(handled, before + 1);
	free(f);
	free(cred);
	free(text);
	json_decref(body);
	free(reason);
}

/* Bytes trickling in do not keep a frame alive past its deadline. */
static void a_frame_has_a_deadline_from_its_first_byte(void **state)
{
	struct net_server_stats st0, st;
	char byte = ' ';
	uint64_t t0 = ms_now(), ended = 0;
	int fd = raw_connect_to(port2);

	stats2(&st0);
	send_head(fd, MSG_PING, "MUNGE:slow:", 100);
	while (ms_now() - t0 < 6000) {
		usleep(200000);
		if (send(fd, &byte, 1, MSG_NOSIGNAL) < 0) {
			ended = ms_now();
			break;
		}
		char c;
		if (recv(fd, &c, 1, MSG_DONTWAIT) == 0) {
			ended = ms_now();
			break;
		}
	}
	close(fd);
	assert_true(ended);
	assert_true(ended - t0 >= SRV2_FRAME_MS - 100);
	assert_true(ended - t0 < SRV2_FRAME_MS + 1500);
	stats2(&st);
	assert_true(st.timed_out > st0.timed_out);
}

static void an_idle_connection_is_closed(void **state)
{
	bool closed;
	uint64_t t0 = ms_now();
	int fd = raw_connect_to(port2);
	struct timeval tv = { 6, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_null(read_reply(fd, &closed));
	assert_true(closed);
	assert_true(ms_now() - t0 >= SRV2_IDLE_MS - 100);
	assert_true(ms_now() - t0 < SRV2_IDLE_MS + 1500);
	close(fd);
}

/* Over the per-peer cap the oldest idle connection gives way, and real
 * requests keep being answered. */
static void connections_are_capped_per_peer(void **state)
{
	struct net_server_stats st0, st;
	int fds[SRV2_PER_PEER + 5];
	char c;

	stats2(&st0);
	for (int i = 0; i < SRV2_PER_PEER + 5; i++) {
		fds[i] = raw_connect_to(port2);
		usleep(2000);
	}
	usleep(200000);
	stats2(&st);
	assert_true(st.conns <= SRV2_PER_PEER);
	assert_true(st.evicted >= st0.evicted + 5);
	/* the oldest went, the newest stay */
	assert_int_equal(recv(fds[0], &c, 1, 0), 0);
	assert_true(recv(fds[SRV2_PER_PEER + 4], &c, 1, MSG_DONTWAIT) < 0);
	struct net_target to = { "127.0.0.1", port2, "t:ctld", sock };
	struct herd_error err;
	json_t *reply, *body = json_object();
	assert_int_equal(net_call(&to, MSG_PING, body, 2000, &reply, &err), 0);
	json_decref(reply);
	json_decref(body);
	for (int i = 0; i < SRV2_PER_PEER + 5; i++)
		close(fds[i]);
}

/* Partial frames of unverified senders stay under the budget: the largest
 * sender is closed. */
static void unverified_bytes_have_a_budget(void **state)
{
	enum { N = 25 };
	struct net_server_stats st0, st;
	static char chunk[60000];
	int fds[N], open_ones = 0;
	char c;

	memset(chunk, ' ', sizeof(chunk));
	stats2(&st0);
	for (int i = 0; i < N; i++) {
		fds[i] = raw_connect_to(port2);
		send_head(fds[i], MSG_PING, "MUNGE:budget:", 65000);   /* small: read whole */
		assert_int_equal(send(fds[i], chunk, sizeof(chunk), MSG_NOSIGNAL), (ssize_t)sizeof(chunk));
	}
	usleep(300000);
	stats2(&st);
	assert_true(st.unverified <= SRV2_UNVERIFIED);
	assert_true(st.evicted >= st0.evicted + 5);
	for (int i = 0; i < N; i++) {
		open_ones += recv(fds[i], &c, 1, MSG_DONTWAIT) < 0;
		close(fds[i]);
	}
	assert_true(open_ones >= 10);   /* only as many as needed were closed */
	assert_true(open_ones <= N - 5);
}

/* herd.conf's keys reach the limits; unset keys leave 0 (the defaults). */
static void limits_come_from_herd_conf(void **state)
{
	char path[] = "/tmp/herd-net-conf-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "ClusterName=t\nMaxConnections=300\nMaxConnectionsPerPeer=20\n"
			   "MessageTimeout=7\nIdleConnectionTimeout=90\nMaxUnverifiedBytes=1048576\n";
	struct herd_error err;
	struct net_limits l;

	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct conf *conf = conf_load(path, &err);
	assert_non_null(conf);
	net_limits_from_conf(conf, &l);
	assert_int_equal(l.max_conns, 300);
	assert_int_equal(l.max_conns_per_peer, 20);
	assert_int_equal(l.frame_ms, 7000);
	assert_int_equal(l.idle_ms, 90000);
	assert_int_equal(l.max_unverified, 1048576);
	conf_destroy(conf);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "ClusterName=t\n", 14), 14);
	close(fd);
	conf = conf_load(path, &err);
	net_limits_from_conf(conf, &l);
	assert_int_equal(l.max_conns + l.max_conns_per_peer + l.frame_ms + l.idle_ms, 0);
	assert_int_equal(l.max_unverified, 0);
	conf_destroy(conf);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_calls),
		cmocka_unit_test(garbage_closes_the_connection),
		cmocka_unit_test(oversize_frame_closes_the_connection),
		cmocka_unit_test(truncated_frame_leaves_the_server_up),
		cmocka_unit_test(forged_and_replayed_are_refused),
		cmocka_unit_test(bad_type_and_shape_are_refused),
		cmocka_unit_test(no_server_is_an_error),
		cmocka_unit_test(buffer_grows_with_what_arrives),
		cmocka_unit_test(a_claimed_64mib_body_costs_nothing_without_a_credential),
		cmocka_unit_test(a_replayed_credential_is_refused_before_the_body),
		cmocka_unit_test(large_frames_are_checked_in_two_halves),
		cmocka_unit_test(a_frame_has_a_deadline_from_its_first_byte),
		cmocka_unit_test(an_idle_connection_is_closed),
		cmocka_unit_test(connections_are_capped_per_peer),
		cmocka_unit_test(unverified_bytes_have_a_budget),
		cmocka_unit_test(limits_come_from_herd_conf),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
