/* The libuv side of the transport: the request server (credential checks in
 * libuv's worker pool, handlers on the loop thread) and net_call_async.  Kept
 * apart from net.c so the commands, which only make blocking calls, do not
 * load libuv. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "common/auth.h"
#include "common/conf.h"
#include "common/frame.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/xmalloc.h"

struct peer_count;
#define PEER_BUCKETS 1024

struct net_server {
	uv_tcp_t tcp;
	uv_loop_t *loop;
	char *dest;
	char *munge_socket;
	uint32_t max_body;
	struct net_limits lim;
	size_t max_buffered;        /* partial frames, verified or not, all connections */
	net_handler_f handler;
	void *arg;
	int refs;                   /* the listener and each connection */
	int stopped;
	struct net_conn *oldest, *newest;   /* every open connection, in accept order */
	struct peer_count *peers[PEER_BUCKETS];
	unsigned nconns;
	size_t buffered, unverified, allocated;
	size_t decoding;            /* bodies of whole frames in the worker pool */
	unsigned long refused, evicted, timed_out;
	uint64_t refuse_logged;     /* when the last "refused" line was logged (ms) */
	unsigned long refuse_quiet; /* refusals since, not logged */
	char scratch[65536];        /* every read lands here, then only what arrived is kept */
};

/* A connection reads one frame at a time: while a frame is decoded or its
 * request handled ("in_flight"), reading stops, so a peer never has more than
 * one request queued and its buffer holds at most one frame. */
struct net_conn {
	uv_tcp_t tcp;
	uv_timer_t timer;           /* the frame deadline, or the idle limit */
	struct net_server *srv;
	struct net_conn *prev, *next;
	int refs;
	int closed;
	int reading;
	int in_flight;              /* a frame or a credential in the worker pool, or a request
				     * not yet answered */
	int close_after_write;
	int authed;                 /* the partial frame's credential is already verified */
	struct auth_id who;         /* what it says */
	char digest[65];            /* what that credential binds */
	char ip[64];
	int counted_peer;           /* counted in srv->peers */
	char peer[80];
	unsigned char *buf;
	size_t len, cap;
	size_t frame_len;           /* the whole first frame in buf, once its header is in; 0 */
	size_t counted, counted_unverified;   /* our share of srv->buffered / unverified */
	uint64_t frame_start;       /* when the first byte of the partial frame came (ms) */
	uint64_t last_active;       /* accepted, or last answer sent */
};

/* One frame on its way through the worker pool. */
struct net_work {
	uv_work_t work;
	struct net_conn *conn;
	struct frame_hdr hdr;
	int cred_only;              /* verify the credential before the body is read */
	int authed;                 /* the credential was verified: match digest only */
	char digest[65];
	char *cred;
	char *body;
	/* results */
	int rc;
	struct herd_error err;
	struct auth_id who;
	json_t *json;
};

static void conn_frames(struct net_conn *c);
static void conn_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf);
static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static void server_unref(struct net_server *srv)
{
	if (--srv->refs == 0) {
		free(srv->dest);
		free(srv->munge_socket);
		free(srv);
	}
}

/* Connections per peer address, for MaxConnectionsPerPeer: a chained hash, so
 * that a flood of connections costs O(1) each to count. */
struct peer_count {
	struct peer_count *next;
	unsigned n;
	char ip[64];
};

static struct peer_count **peer_slot(struct peer_count **table, const char *ip)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (const char *p = ip; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	struct peer_count **pp = &table[h % PEER_BUCKETS];
	while (*pp && strcmp((*pp)->ip, ip) != 0)
		pp = &(*pp)->next;
	return pp;
}

/* Count one more (delta 1) or one less (-1) from ip; returns the count now. */
static unsigned peer_add(struct peer_count **table, const char *ip, int delta)
{
	struct peer_count **pp = peer_slot(table, ip), *p = *pp;
	unsigned n;

	if (!p) {
		if (delta < 0)
			return 0;
		p = *pp = xmalloc(sizeof(*p));
		snprintf(p->ip, sizeof(p->ip), "%s", ip);
	}
	n = p->n += delta;
	if (n == 0) {
		*pp = p->next;
		free(p);
	}
	return n;
}

/* Refusals, evictions and bad frames come in floods under attack: one line a
 * second, with a count of the others. */
static void server_log_refusal(struct net_server *srv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void server_log_refusal(struct net_server *srv, const char *fmt, ...)
{
	uint64_t now = uv_now(srv->loop);
	char line[200];
	va_list ap;

	if (srv->refuse_logged && now - srv->refuse_logged < 1000) {
		srv->refuse_quiet++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (srv->refuse_quiet)
		log_error("%s (and %lu more refused or closed since the last such line)", line,
			  srv->refuse_quiet);
	else
		log_error("%s", line);
	srv->refuse_logged = now;
	srv->refuse_quiet = 0;
}

/* Keep srv's byte counts in step with c's buffer. */
static void conn_account(struct net_conn *c)
{
	struct net_server *srv = c->srv;
	size_t held = c->closed ? 0 : c->len;
	size_t unverified = c->authed ? 0 : held;

	srv->buffered = srv->buffered - c->counted + held;
	srv->unverified = srv->unverified - c->counted_unverified + unverified;
	c->counted = held;
	c->counted_unverified = unverified;
}

static void conn_set_buf(struct net_conn *c, unsigned char *buf, size_t cap)
{
	c->srv->allocated = c->srv->allocated - c->cap + cap;
	c->buf = buf;
	c->cap = cap;
}

static void conn_unref(struct net_conn *c)
{
	if (--c->refs == 0) {
		struct net_server *srv = c->srv;
		free(c->buf);
		conn_set_buf(c, NULL, 0);
		free(c);
		server_unref(srv);
	}
}

static void conn_close_cb(uv_handle_t *h)
{
	conn_unref(h->data);
}

static void conn_close(struct net_conn *c)
{
	struct net_server *srv = c->srv;

	if (c->closed)
		return;
	c->closed = 1;
	conn_account(c);   /* closed: its bytes no longer count */
	*(c->prev ? &c->prev->next : &srv->oldest) = c->next;
	*(c->next ? &c->next->prev : &srv->newest) = c->prev;
	srv->nconns--;
	if (c->counted_peer)
		peer_add(srv->peers, c->ip, -1);
	uv_close((uv_handle_t *)&c->tcp, conn_close_cb);
	uv_close((uv_handle_t *)&c->timer, conn_close_cb);
}

static void conn_pause(struct net_conn *c)
{
	if (c->reading && !c->closed)
		uv_read_stop((uv_stream_t *)&c->tcp);
	c->reading = 0;
}

static void conn_timeout(uv_timer_t *t)
{
	struct net_conn *c = t->data;

	if (c->in_flight)
		return;   /* re-armed when the answer has gone */
	if (c->len) {
		c->srv->timed_out++;
		server_log_refusal(c->srv, "closing connection from %s: frame not whole %u ms after "
				   "its first byte (%zu bytes in)", c->peer, c->srv->lim.frame_ms,
				   c->len);
	}
	conn_close(c);
}

/* A partial frame has until frame_start + frame_ms, however its bytes trickle
 * in; a connection with nothing pending is closed idle_ms after it last was
 * answered.  Nothing runs while a request is in flight. */
static void conn_arm(struct net_conn *c)
{
	uint64_t now = uv_now(c->srv->loop), end;

	if (c->closed)
		return;
	if (c->in_flight) {
		uv_timer_stop(&c->timer);
		return;
	}
	end = c->len ? c->frame_start + c->srv->lim.frame_ms : c->last_active + c->srv->lim.idle_ms;
	uv_timer_start(&c->timer, conn_timeout, end > now ? end - now : 0, 0);
}

static void conn_resume(struct net_conn *c)
{
	if (c->closed || c->in_flight || c->close_after_write)
		return;
	if (!c->reading) {
		if (uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_read) < 0) {
			conn_close(c);
			return;
		}
		c->reading = 1;
	}
}

struct net_write {
	uv_write_t req;
	struct net_conn *conn;
	unsigned char *frame;
};

static void write_done(uv_write_t *w, int status)
{
	struct net_write *nw = w->data;
	struct net_conn *c = nw->conn;

	free(nw->frame);
	free(nw);
	if (status < 0 || c->close_after_write)
		conn_close(c);
	conn_unref(c);
}

static void conn_send_text(struct net_conn *c, uint16_t type, uint32_t id, const char *b,
			   size_t blen)
{
	size_t flen;
	struct net_write *w = xmalloc(sizeof(*w));
	uv_buf_t buf;

	w->frame = frame_encode(type, id, NULL, b, blen, &flen);
	w->conn = c;
	w->req.data = w;
	buf = uv_buf_init((char *)w->frame, flen);
	c->refs++;
	if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, write_done) < 0) {
		free(w->frame);
		free(w);
		conn_close(c);
		conn_unref(c);
	}
}

static void conn_send(struct net_conn *c, uint16_t type, uint32_t id, json_t *body)
{
	size_t blen;
	char *b = frame_body_dump(body, &blen);
	conn_send_text(c, type, id, b, blen);
	free(b);
}

/* The request on c has been answered: read the next one. */
static void conn_answered(struct net_conn *c)
{
	c->in_flight = 0;
	if (c->closed)
		return;
	c->last_active = uv_now(c->srv->loop);
	if (c->len)
		c->frame_start = c->last_active;   /* it could not be read while we worked */
	conn_frames(c);
	conn_resume(c);
	conn_arm(c);
}

/* Answer a frame we will not read to its end, then close. */
static void conn_refuse(struct net_conn *c, const struct frame_hdr *hdr, int rc, const char *why)
{
	json_t *body = json_pack("{s:i, s:s}", "rc", rc, "error", why);

	server_log_refusal(c->srv, "refused request from %s: %s", c->peer, why);
	conn_pause(c);
	c->close_after_write = 1;
	conn_send(c, hdr->type | MSG_REPLY, hdr->req_id, body);
	json_decref(body);
}

static void req_free(struct net_req *req)
{
	struct net_conn *c = req->conn;
	json_decref(req->body);
	free(req);
	conn_answered(c);
	conn_unref(c);
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

/* The checks that need no credential; -1 with nw's rc and err. */
static int work_check_type(struct net_work *nw)
{
	uint16_t type = nw->hdr.type;

	if ((type & MSG_REPLY) || !msg_schema(type)) {
		nw->rc = HERD_ERR_UNKNOWN_TYPE;
		return errprintf(&nw->err, "unknown message type %u", type);
	}
	if (!nw->cred && !nw->authed) {
		nw->rc = HERD_ERR_AUTH;
		return errprintf(&nw->err, "%s request without a credential", msg_name(type));
	}
	return 0;
}

/* Worker pool: credential, JSON and schema checks, which may block on munged. */
static void work_decode(uv_work_t *w)
{
	struct net_work *nw = w->data;
	struct net_server *srv = nw->conn->srv;
	uint16_t type = nw->hdr.type;

	nw->rc = HERD_ERR_PROTOCOL;
	if (work_check_type(nw) < 0)
		return;
	if (nw->cred_only) {
		if (auth_cred_decode(srv->munge_socket, nw->cred, &nw->who, nw->digest, &nw->err) < 0)
			nw->rc = HERD_ERR_AUTH;
		else
			nw->rc = 0;
		return;
	}
	if (nw->authed ? auth_cred_match(nw->digest, type, srv->dest, nw->body, nw->hdr.body_len,
					 &nw->err)
		       : auth_decode(srv->munge_socket, nw->cred, type, srv->dest, nw->body,
				     nw->hdr.body_len, &nw->who, &nw->err)) {
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

/* A large frame's credential has been checked: read its body, or refuse. */
static void work_cred_checked(struct net_work *nw)
{
	struct net_conn *c = nw->conn;

	c->in_flight = 0;
	if (!c->closed && nw->rc) {
		conn_refuse(c, &nw->hdr, nw->rc, nw->err.text);
	} else if (!c->closed) {
		c->authed = 1;
		c->who = nw->who;
		memcpy(c->digest, nw->digest, sizeof(c->digest));
		conn_account(c);
		conn_frames(c);
		conn_resume(c);
		conn_arm(c);
	}
	free(nw->cred);
	free(nw);
	conn_unref(c);
}

static void work_decoded(uv_work_t *w, int status)
{
	struct net_work *nw = w->data;
	struct net_conn *c = nw->conn;
	struct net_req *req;

	if (nw->cred_only) {
		work_cred_checked(nw);
		return;
	}
	req = xmalloc(sizeof(*req));
	req->type = nw->hdr.type;
	req->id = nw->hdr.req_id;
	req->uid = nw->who.uid;
	req->gid = nw->who.gid;
	req->origin = nw->who.addr;
	req->body = nw->json;
	req->conn = c;   /* the work's reference on c passes to req */
	c->srv->decoding -= nw->hdr.body_len;
	free(nw->cred);
	free(nw->body);
	if (nw->rc) {
		const char *name = msg_name(req->type);
		server_log_refusal(c->srv, "refused %s request from %s: %s", name ? name : "unknown",
				   c->peer, nw->err.text);
		net_respond(req, nw->rc, NULL, nw->err.text);
	} else {
		/* Even when the client has gone, the handler runs: a submission it
		 * carried is then made, and a retry with the same key finds it. */
		c->srv->handler(req, c->srv->arg);
	}
	free(nw);
}

static void conn_queue(struct net_conn *c, struct net_work *nw)
{
	if (nw->body)
		c->srv->decoding += nw->hdr.body_len;
	nw->work.data = nw;
	nw->conn = c;
	c->refs++;
	c->in_flight = 1;
	uv_timer_stop(&c->timer);
	uv_queue_work(c->srv->loop, &nw->work, work_decode, work_decoded);
}

/* Take the next whole frame out of the buffer and queue it for decoding; for a
 * large one, queue its credential as soon as it is in. */
static void conn_frames(struct net_conn *c)
{
	struct herd_error err;
	struct frame_hdr hdr;
	size_t off = 0;

	while (!c->in_flight && !c->closed && !c->close_after_write && c->len - off >= FRAME_HDR_LEN) {
		if (frame_hdr_decode(c->buf + off, c->srv->max_body, &hdr, &err) < 0) {
			server_log_refusal(c->srv, "closing connection from %s: %s", c->peer, err.text);
			conn_close(c);
			return;
		}
		size_t need = FRAME_HDR_LEN + (size_t)hdr.cred_len + hdr.body_len;
		c->frame_len = need;
		if (c->len - off < need) {
			if (hdr.body_len <= NET_EARLY_AUTH_BODY || c->authed)
				break;
			/* A large body: whoever sends it must show a credential
			 * first, so that unauthenticated peers cost little memory. */
			struct net_work *nw = xmalloc(sizeof(*nw));
			nw->hdr = hdr;
			nw->cred_only = 1;
			if (hdr.cred_len && c->len - off < FRAME_HDR_LEN + hdr.cred_len) {
				free(nw);
				break;
			}
			if (hdr.cred_len)
				nw->cred = xstrndup((char *)c->buf + off + FRAME_HDR_LEN, hdr.cred_len);
			if (work_check_type(nw) < 0) {
				conn_refuse(c, &hdr, nw->rc, nw->err.text);
				free(nw->cred);
				free(nw);
				break;
			}
			conn_queue(c, nw);
			break;
		}
		struct net_work *nw = xmalloc(sizeof(*nw));
		nw->hdr = hdr;
		if (c->authed) {
			nw->authed = 1;
			nw->who = c->who;
			memcpy(nw->digest, c->digest, sizeof(nw->digest));
			c->authed = 0;
		} else if (hdr.cred_len) {
			nw->cred = xstrndup((char *)c->buf + off + FRAME_HDR_LEN, hdr.cred_len);
		}
		if (off == 0 && c->len == need) {
			/* The usual case, and the one that matters for a large
			 * body: hand the buffer over rather than copy it. */
			memmove(c->buf, c->buf + FRAME_HDR_LEN + hdr.cred_len, hdr.body_len);
			nw->body = (char *)c->buf;
			nw->body[hdr.body_len] = '\0';   /* need > body_len: there is room */
			conn_set_buf(c, NULL, 0);
			c->len = 0;
			c->frame_len = 0;
			conn_queue(c, nw);
			break;
		}
		nw->body = xmalloc(hdr.body_len + 1);
		memcpy(nw->body, c->buf + off + FRAME_HDR_LEN + hdr.cred_len, hdr.body_len);
		off += need;
		c->frame_len = 0;
		conn_queue(c, nw);
	}
	if (off) {
		memmove(c->buf, c->buf + off, c->len - off);
		c->len -= off;
		c->frame_start = uv_now(c->srv->loop);
	}
	/* An idle connection keeps no buffer: 2,000 of them cost next to nothing. */
	if (c->len == 0 && c->buf) {
		free(c->buf);
		conn_set_buf(c, NULL, 0);
	}
	conn_account(c);
	if (c->in_flight)
		conn_pause(c);
}

/* Room for need bytes: the buffer grows with what has arrived (doubling, never
 * past the frame being read), not with what a header claims. */
size_t net_buf_grow(size_t cap, size_t need, size_t frame_len)
{
	size_t next;

	if (cap >= need)
		return cap;
	next = cap ? cap * 2 : 4096;
	if (frame_len >= need && next > frame_len)
		next = frame_len;
	return next > need ? next : need;
}

/* Close partial senders, the largest (then the oldest) first, until the
 * unverified bytes, and all frames (partial, or whole and being decoded), are
 * back under their budgets. */
static void server_enforce_budget(struct net_server *srv)
{
	while (srv->unverified > srv->lim.max_unverified ||
	       srv->buffered + srv->decoding > srv->max_buffered) {
		int unverified = srv->unverified > srv->lim.max_unverified;
		struct net_conn *victim = NULL;
		for (struct net_conn *c = srv->oldest; c; c = c->next) {
			size_t held = unverified ? c->counted_unverified : c->counted;
			if (held && (!victim || held > (unverified ? victim->counted_unverified
								  : victim->counted)))
				victim = c;
		}
		if (!victim)
			return;
		srv->evicted++;
		server_log_refusal(srv, "closing connection from %s: %zu bytes of a frame pending, "
				   "over the daemon's budget for %s", victim->peer, victim->len,
				   unverified ? "unverified senders" : "partial frames");
		conn_close(victim);
	}
}

static void conn_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct net_conn *c = h->data;
	*buf = uv_buf_init(c->srv->scratch, sizeof(c->srv->scratch));
}

static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct net_conn *c = s->data;
	struct net_server *srv = c->srv;

	if (n < 0) {
		if (c->len)
			server_log_refusal(srv, "connection from %s closed inside a frame (%zu bytes "
					   "pending)", c->peer, c->len);
		conn_close(c);
		return;
	}
	if (n == 0)
		return;
	if (c->close_after_write)
		return;   /* refused: what follows is not read */
	size_t cap = net_buf_grow(c->cap, c->len + n, c->frame_len);
	if (cap != c->cap)
		conn_set_buf(c, xrealloc(c->buf, cap), cap);
	if (c->len == 0)
		c->frame_start = uv_now(srv->loop);
	memcpy(c->buf + c->len, buf->base, n);
	c->len += n;
	conn_account(c);
	conn_frames(c);
	server_enforce_budget(srv);
	conn_arm(c);
}

/* The connection to give up for a new one from ip (NULL: from anyone): the
 * oldest idle one, else the oldest still sending an unverified frame; NULL
 * when every one is busy with a request. */
static struct net_conn *server_victim(struct net_server *srv, const char *ip)
{
	struct net_conn *partial = NULL;

	for (struct net_conn *c = srv->oldest; c; c = c->next) {
		if (c->in_flight || c->close_after_write || (ip && strcmp(c->ip, ip) != 0))
			continue;
		if (c->len == 0)
			return c;
		if (!partial && !c->authed)
			partial = c;
	}
	return partial;
}

static void server_accept(uv_stream_t *s, int status)
{
	struct net_server *srv = s->data;
	struct net_conn *c, *victim = NULL;
	struct sockaddr_storage ss;
	int sslen = sizeof(ss);
	unsigned from_peer = 0;

	if (status < 0) {
		/* At EMFILE libuv has already accepted and closed the waiting
		 * connections (its spare descriptor), so the loop does not spin. */
		srv->refused++;
		server_log_refusal(srv, "cannot accept a connection: %s", uv_strerror(status));
		return;
	}
	c = xmalloc(sizeof(*c));
	c->srv = srv;
	c->refs = 2;   /* the socket and the timer, each until closed */
	srv->refs++;
	uv_tcp_init(srv->loop, &c->tcp);
	c->tcp.data = c;
	uv_timer_init(srv->loop, &c->timer);
	c->timer.data = c;
	c->prev = srv->newest;
	*(srv->newest ? &srv->newest->next : &srv->oldest) = c;
	srv->newest = c;
	srv->nconns++;
	if (uv_accept(s, (uv_stream_t *)&c->tcp) < 0) {
		conn_close(c);
		return;
	}
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sslen) == 0) {
		int port = 0;
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &sin->sin_addr, c->ip, sizeof(c->ip));
			port = ntohs(sin->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &sin6->sin6_addr, c->ip, sizeof(c->ip));
			port = ntohs(sin6->sin6_port);
		}
		snprintf(c->peer, sizeof(c->peer), "%s:%d", c->ip, port);
	}
	from_peer = peer_add(srv->peers, c->ip, 1) - 1;   /* the others */
	c->counted_peer = 1;
	if (from_peer >= srv->lim.max_conns_per_peer || srv->nconns > srv->lim.max_conns) {
		int per_peer = from_peer >= srv->lim.max_conns_per_peer;
		victim = server_victim(srv, per_peer ? c->ip : NULL);
		if (victim == c)
			victim = NULL;
		if (!victim) {
			srv->refused++;
			server_log_refusal(srv, "refusing a connection from %s: %u connections%s, "
					   "all busy", c->ip, per_peer ? from_peer : srv->nconns - 1,
					   per_peer ? " from it" : "");
			conn_close(c);
			return;
		}
		srv->evicted++;
		server_log_refusal(srv, "closing %s connection from %s for a new one (%u connections%s)",
				   victim->len ? "a slow" : "an idle", victim->peer,
				   per_peer ? from_peer : srv->nconns - 1, per_peer ? " from it" : "");
		conn_close(victim);
	}
	uv_tcp_nodelay(&c->tcp, 1);
	c->last_active = uv_now(srv->loop);
	conn_resume(c);
	conn_arm(c);
}

static void server_closed(uv_handle_t *h)
{
	server_unref(h->data);
}

/* herd.conf's values are checked by conf_keys (0..LONG_MAX); 0 keeps a default. */
static unsigned conf_uint(const struct conf *conf, const char *key, unsigned long scale)
{
	long v = conf_get_int(conf, key, 0);
	if (v <= 0)
		return 0;
	return (unsigned long)v > UINT_MAX / scale ? UINT_MAX : (unsigned)(v * scale);
}

void net_limits_from_conf(const struct conf *conf, struct net_limits *l)
{
	long unverified = conf_get_int(conf, "MaxUnverifiedBytes", 0);

	l->max_conns = conf_uint(conf, "MaxConnections", 1);
	l->max_conns_per_peer = conf_uint(conf, "MaxConnectionsPerPeer", 1);
	l->frame_ms = conf_uint(conf, "MessageTimeout", 1000);
	l->idle_ms = conf_uint(conf, "IdleConnectionTimeout", 1000);
	l->max_unverified = unverified > 0 ? (size_t)unverified : 0;
}

long net_raise_nofile(void)
{
	struct rlimit rl;
	char was[32];

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	/* What we were started with, for the jobs (net_restore_nofile). */
	snprintf(was, sizeof(was), "%llu", (unsigned long long)rl.rlim_cur);
	setenv(NET_NOFILE_ENV, was, 0);
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

void net_restore_nofile(void)
{
	const char *was = getenv(NET_NOFILE_ENV);
	struct rlimit rl;
	char *end;

	if (!was)
		return;
	unsigned long long v = strtoull(was, &end, 10);
	if (*was && !*end && getrlimit(RLIMIT_NOFILE, &rl) == 0 && v < rl.rlim_cur) {
		rl.rlim_cur = v;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	unsetenv(NET_NOFILE_ENV);
}

/* Room for the connections under the descriptor limit, leaving what the
 * daemon needs besides (store, logs, children's pipes, outgoing calls). */
static unsigned fd_room(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > UINT_MAX)
		return UINT_MAX;
	return rl.rlim_cur > 256 ? (unsigned)rl.rlim_cur - 128 : (unsigned)rl.rlim_cur / 2;
}

static int resolve_v4(const char *host, int port, struct sockaddr_in *addr, struct herd_error *err)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	int e;

	if (uv_ip4_addr(host, port, addr) == 0)
		return 0;
	if ((e = getaddrinfo(host, NULL, &hints, &ai)) != 0)
		return errprintf(err, "cannot resolve listen address %s: %s", host, gai_strerror(e));
	memcpy(addr, ai->ai_addr, sizeof(*addr));
	addr->sin_port = htons(port);
	freeaddrinfo(ai);
	return 0;
}

struct net_server *net_server_start(uv_loop_t *loop, const struct net_server_opts *o,
				    struct herd_error *err)
{
	struct net_server *srv = xmalloc(sizeof(*srv));
	struct sockaddr_in addr;
	char ip[INET_ADDRSTRLEN];
	int e;

	srv->loop = loop;
	srv->refs = 1;
	srv->dest = xstrdup(o->dest);
	srv->munge_socket = xstrdup(o->munge_socket);
	srv->max_body = o->max_body ? o->max_body : FRAME_DEFAULT_MAX_BODY;
	srv->lim = o->limits;
	if (!srv->lim.max_conns)
		srv->lim.max_conns = NET_DEFAULT_MAX_CONNS;
	if (srv->lim.max_conns > fd_room())
		srv->lim.max_conns = fd_room();
	if (!srv->lim.max_conns_per_peer)
		srv->lim.max_conns_per_peer = NET_DEFAULT_MAX_CONNS_PER_PEER;
	if (!srv->lim.frame_ms)
		srv->lim.frame_ms = NET_DEFAULT_FRAME_MS;
	if (!srv->lim.idle_ms)
		srv->lim.idle_ms = NET_DEFAULT_IDLE_MS;
	if (!srv->lim.max_unverified)
		srv->lim.max_unverified = NET_DEFAULT_MAX_UNVERIFIED;
	/* Room for two of the largest frames at once, from verified senders. */
	srv->max_buffered = 2 * (size_t)srv->max_body;
	if (srv->max_buffered < srv->lim.max_unverified)
		srv->max_buffered = srv->lim.max_unverified;
	srv->handler = o->handler;
	srv->arg = o->arg;
	if (resolve_v4(o->host, o->port, &addr, err) < 0) {
		errno = EADDRNOTAVAIL;
		goto error;
	}
	inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof(ip));
	uv_tcp_init(loop, &srv->tcp);
	srv->tcp.data = srv;
	if ((e = uv_tcp_bind(&srv->tcp, (struct sockaddr *)&addr, 0)) < 0 ||
	    (e = uv_listen((uv_stream_t *)&srv->tcp, 1024, server_accept)) < 0) {
		errprintf(err, "cannot listen on %s:%d: %s", ip, o->port, uv_strerror(e));
		uv_close((uv_handle_t *)&srv->tcp, server_closed);   /* frees srv */
		errno = -e;   /* libuv's codes are negated errnos on Unix */
		return NULL;
	}
	return srv;
error:
	free(srv->dest);
	free(srv->munge_socket);
	free(srv);
	return NULL;
}

/* Closes the listener and every connection; requests being handled still get
 * their net_respond (dropped). */
void net_server_stop(struct net_server *srv)
{
	if (!srv || srv->stopped)
		return;
	srv->stopped = 1;
	while (srv->oldest)
		conn_close(srv->oldest);
	uv_close((uv_handle_t *)&srv->tcp, server_closed);
}

void net_server_stats(const struct net_server *srv, struct net_server_stats *st)
{
	st->conns = srv->nconns;
	st->buffered = srv->buffered;
	st->unverified = srv->unverified;
	st->allocated = srv->allocated;
	st->refused = srv->refused;
	st->evicted = srv->evicted;
	st->timed_out = srv->timed_out;
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
