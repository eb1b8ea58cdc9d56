/* The libuv side of the transport: the request server (credential checks in
 * libuv's worker pool, handlers on the loop thread) and net_call_async.  Kept
 * apart from net.c so the commands, which only make blocking calls, do not
 * load libuv. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "common/auth.h"
#include "common/frame.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/xmalloc.h"

struct net_server {
	uv_tcp_t tcp;
	uv_loop_t *loop;
	char *dest;
	char *munge_socket;
	uint32_t max_body;
	net_handler_f handler;
	void *arg;
};

struct net_conn {
	uv_tcp_t tcp;
	uv_timer_t idle;            /* closes connections that stall mid-frame or sit idle */
	struct net_server *srv;
	int refs;
	int closed;
	char peer[64];
	unsigned char *buf;
	size_t len, cap;
};

/* One frame on its way through the worker pool. */
struct net_work {
	uv_work_t work;
	struct net_conn *conn;
	struct frame_hdr hdr;
	char *cred;
	char *body;
	/* results */
	int rc;
	struct herd_error err;
	uid_t uid;
	gid_t gid;
	json_t *json;
};

static void conn_unref(struct net_conn *c)
{
	if (--c->refs == 0) {
		free(c->buf);
		free(c);
	}
}

static void conn_close_cb(uv_handle_t *h)
{
	conn_unref(h->data);
}

static void conn_close(struct net_conn *c)
{
	if (c->closed)
		return;
	c->closed = 1;
	uv_close((uv_handle_t *)&c->tcp, conn_close_cb);
	uv_close((uv_handle_t *)&c->idle, conn_close_cb);
}

#define NET_IDLE_MS 60000

static void conn_idle(uv_timer_t *t)
{
	struct net_conn *c = t->data;
	if (c->len)
		log_error("closing connection from %s: stalled inside a frame", c->peer);
	conn_close(c);
}

static void write_done(uv_write_t *w, int status)
{
	free(w->data);
	free(w);
}

static void conn_send_text(struct net_conn *c, uint16_t type, uint32_t id, const char *b,
			   size_t blen)
{
	size_t flen;
	unsigned char *frame = frame_encode(type, id, NULL, b, blen, &flen);
	uv_write_t *w = xmalloc(sizeof(*w));
	uv_buf_t buf = uv_buf_init((char *)frame, flen);

	w->data = frame;
	if (uv_write(w, (uv_stream_t *)&c->tcp, &buf, 1, write_done) < 0) {
		free(frame);
		free(w);
		conn_close(c);
	}
}

static void conn_send(struct net_conn *c, uint16_t type, uint32_t id, json_t *body)
{
	size_t blen;
	char *b = frame_body_dump(body, &blen);
	conn_send_text(c, type, id, b, blen);
	free(b);
}

static void req_free(struct net_req *req)
{
	json_decref(req->body);
	conn_unref(req->conn);
	free(req);
}

void net_respond_text(struct net_req *req, char *body, size_t len)
{
	if (!req->conn->closed)
		conn_send_text(req->conn, req->type | MSG_REPLY, req->id, body, len);
	free(body);
	req_free(req);
}

void net_respond(struct net_req *req, int rc, json_t *body, const char *errtext)
{
	struct net_conn *c = req->conn;

	if (!body)
		body = json_object();
	json_object_set_new(body, "rc", json_integer(rc));
	if (rc)
		json_object_set_new(body, "error", json_string(errtext ? errtext : herd_strerror(rc)));
	if (!c->closed)
		conn_send(c, req->type | MSG_REPLY, req->id, body);
	json_decref(body);
	req_free(req);
}

/* Worker pool: credential, JSON and schema checks, which may block on munged. */
static void work_decode(uv_work_t *w)
{
	struct net_work *nw = w->data;
	struct net_server *srv = nw->conn->srv;
	uint16_t type = nw->hdr.type;

	nw->rc = HERD_ERR_PROTOCOL;
	if ((type & MSG_REPLY) || !msg_schema(type)) {
		nw->rc = HERD_ERR_UNKNOWN_TYPE;
		errprintf(&nw->err, "unknown message type %u", type);
		return;
	}
	if (!nw->cred) {
		nw->rc = HERD_ERR_AUTH;
		errprintf(&nw->err, "%s request without a credential", msg_name(type));
		return;
	}
	if (auth_decode(srv->munge_socket, nw->cred, type, srv->dest, nw->body, nw->hdr.body_len,
			&nw->uid, &nw->gid, &nw->err) < 0) {
		nw->rc = HERD_ERR_AUTH;
		return;
	}
	nw->json = frame_body_parse(nw->body, nw->hdr.body_len, &nw->err);
	if (!nw->json)
		return;
	if (msg_validate(type, nw->json, &nw->err) < 0) {
		json_decref(nw->json);
		nw->json = NULL;
		return;
	}
	nw->rc = 0;
}

static void work_decoded(uv_work_t *w, int status)
{
	struct net_work *nw = w->data;
	struct net_conn *c = nw->conn;
	struct net_req *req = xmalloc(sizeof(*req));

	req->type = nw->hdr.type;
	req->id = nw->hdr.req_id;
	req->uid = nw->uid;
	req->gid = nw->gid;
	req->body = nw->json;
	req->conn = c;   /* the work's reference on c passes to req */
	free(nw->cred);
	free(nw->body);
	if (nw->rc) {
		const char *name = msg_name(req->type);
		log_error("refused %s request from %s: %s", name ? name : "unknown", c->peer,
			  nw->err.text);
		net_respond(req, nw->rc, NULL, nw->err.text);
	} else {
		/* Even when the client has gone, the handler runs: a submission it
		 * carried is then made, and a retry with the same key finds it. */
		c->srv->handler(req, c->srv->arg);
	}
	free(nw);
}

static void conn_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct net_conn *c = h->data;
	size_t want = c->len + 65536;

	if (c->cap < want) {
		c->cap = want;
		c->buf = xrealloc(c->buf, c->cap);
	}
	*buf = uv_buf_init((char *)c->buf + c->len, c->cap - c->len);
}

/* Take every complete frame out of the buffer and queue it for decoding. */
static void conn_frames(struct net_conn *c)
{
	struct herd_error err;
	struct frame_hdr hdr;
	size_t off = 0;

	while (c->len - off >= FRAME_HDR_LEN) {
		if (frame_hdr_decode(c->buf + off, c->srv->max_body, &hdr, &err) < 0) {
			log_error("closing connection from %s: %s", c->peer, err.text);
			conn_close(c);
			return;
		}
		size_t need = FRAME_HDR_LEN + (size_t)hdr.cred_len + hdr.body_len;
		if (c->len - off < need) {
			if (c->cap < off + need) {   /* room for the whole frame */
				c->cap = off + need;
				c->buf = xrealloc(c->buf, c->cap);
			}
			break;
		}
		struct net_work *nw = xmalloc(sizeof(*nw));
		nw->work.data = nw;
		nw->conn = c;
		nw->hdr = hdr;
		if (hdr.cred_len)
			nw->cred = xstrndup((char *)c->buf + off + FRAME_HDR_LEN, hdr.cred_len);
		nw->body = xmalloc(hdr.body_len + 1);
		memcpy(nw->body, c->buf + off + FRAME_HDR_LEN + hdr.cred_len, hdr.body_len);
		c->refs++;
		uv_queue_work(c->srv->loop, &nw->work, work_decode, work_decoded);
		off += need;
	}
	memmove(c->buf, c->buf + off, c->len - off);
	c->len -= off;
}

static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct net_conn *c = s->data;

	if (n < 0) {
		if (c->len)
			log_error("connection from %s closed inside a frame (%zu bytes pending)",
				  c->peer, c->len);
		conn_close(c);
		return;
	}
	c->len += n;
	uv_timer_again(&c->idle);
	conn_frames(c);
}

static void server_accept(uv_stream_t *s, int status)
{
	struct net_server *srv = s->data;
	struct net_conn *c;
	struct sockaddr_storage ss;
	int sslen = sizeof(ss);

	if (status < 0) {
		log_error("accept: %s", uv_strerror(status));
		return;
	}
	c = xmalloc(sizeof(*c));
	c->srv = srv;
	c->refs = 2;   /* the socket and the idle timer, each until closed */
	uv_tcp_init(srv->loop, &c->tcp);
	c->tcp.data = c;
	uv_timer_init(srv->loop, &c->idle);
	c->idle.data = c;
	uv_timer_start(&c->idle, conn_idle, NET_IDLE_MS, NET_IDLE_MS);
	if (uv_accept(s, (uv_stream_t *)&c->tcp) < 0) {
		conn_close(c);
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sslen) == 0 &&
	    ss.ss_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
		char ip[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(c->peer, sizeof(c->peer), "%s:%d", ip, ntohs(sin->sin_port));
	}
	uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_read);
}

static void server_closed(uv_handle_t *h)
{
	struct net_server *srv = h->data;
	free(srv->dest);
	free(srv->munge_socket);
	free(srv);
}

struct net_server *net_server_start(uv_loop_t *loop, const struct net_server_opts *o,
				    struct herd_error *err)
{
	struct net_server *srv = xmalloc(sizeof(*srv));
	struct sockaddr_in addr;
	int e;

	srv->loop = loop;
	srv->dest = xstrdup(o->dest);
	srv->munge_socket = xstrdup(o->munge_socket);
	srv->max_body = o->max_body ? o->max_body : FRAME_DEFAULT_MAX_BODY;
	srv->handler = o->handler;
	srv->arg = o->arg;
	if ((e = uv_ip4_addr(o->host, o->port, &addr)) < 0) {
		errprintf(err, "bad listen address %s: %s", o->host, uv_strerror(e));
		goto error;
	}
	uv_tcp_init(loop, &srv->tcp);
	srv->tcp.data = srv;
	if ((e = uv_tcp_bind(&srv->tcp, (struct sockaddr *)&addr, 0)) < 0 ||
	    (e = uv_listen((uv_stream_t *)&srv->tcp, 1024, server_accept)) < 0) {
		errprintf(err, "cannot listen on %s:%d: %s", o->host, o->port, uv_strerror(e));
		uv_close((uv_handle_t *)&srv->tcp, server_closed);   /* frees srv */
		return NULL;
	}
	return srv;
error:
	free(srv->dest);
	free(srv->munge_socket);
	free(srv);
	return NULL;
}

void net_server_stop(struct net_server *srv)
{
	if (srv)
		uv_close((uv_handle_t *)&srv->tcp, server_closed);
}

struct net_async {
	uv_work_t work;
	char *host, *dest, *munge_socket;
	int port, type, timeout_ms;
	json_t *body, *reply;
	struct herd_error err;
	net_call_f cb;
	void *arg;
};

static void async_work(uv_work_t *w)
{
	struct net_async *a = w->data;
	struct net_target to = { a->host, a->port, a->dest, a->munge_socket };
	net_call(&to, a->type, a->body, a->timeout_ms, &a->reply, &a->err);
}

static void async_done(uv_work_t *w, int status)
{
	struct net_async *a = w->data;
	if (a->cb)
		a->cb(a->arg, a->reply, &a->err);
	json_decref(a->reply);
	json_decref(a->body);
	free(a->host);
	free(a->dest);
	free(a->munge_socket);
	free(a);
}

void net_call_async(uv_loop_t *loop, const struct net_target *to, int type, const json_t *body,
		    int timeout_ms, net_call_f cb, void *arg)
{
	struct net_async *a = xmalloc(sizeof(*a));

	a->work.data = a;
	a->host = xstrdup(to->host);
	a->dest = xstrdup(to->dest);
	a->munge_socket = xstrdup(to->munge_socket);
	a->port = to->port;
	a->type = type;
	a->timeout_ms = timeout_ms;
	a->body = json_deep_copy(body);   /* the worker must not share refcounts with the loop */
	a->cb = cb;
	a->arg = arg;
	uv_queue_work(loop, &a->work, async_work, async_done);
}
