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
#include <unistd.h>
#include "common/auth.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/net.h"
#include "munged.h"

static uv_loop_t loop;
static uv_async_t stop_async;
static pthread_t loop_thread;
static int port;
static struct net_server *srv;
static int handled;

static void echo(struct net_req *req, void *arg)
{
	handled++;
	net_respond(req, 0, json_pack("{s:i, s:O}", "uid", (int)req->uid, "body", req->body), NULL);
}

static void on_stop(uv_async_t *a)
{
	net_server_stop(srv);
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

static int raw_connect(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct timeval tv = { 5, 0 };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
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
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
