/* Request/reply over TCP with frames and MUNGE.
 * Server side runs on a libuv loop: frames are read on the loop; credential
 * checks and JSON parsing run in libuv's worker pool; the handler then runs on
 * the loop thread with a `struct net_req` it must answer exactly once (now or
 * later, e.g. after a group commit) with net_respond().
 * Client side: net_call() blocks (commands, herdstepd); net_call_async() runs a
 * net_call in the worker pool and calls back on the loop thread. */
#ifndef HERD_NET_H
#define HERD_NET_H
#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "common/error.h"

struct net_conn;

struct net_req {
	uint16_t type;
	uint32_t id;
	uid_t uid;              /* from the credential: the only identity to trust */
	gid_t gid;
	json_t *body;           /* validated against msg_schema(type); owned by req */
	struct net_conn *conn;  /* private */
};

typedef void (*net_handler_f)(struct net_req *req, void *arg);

struct net_server_opts {
	const char *host;          /* bind address, e.g. "127.0.0.1" or "0.0.0.0" */
	int port;
	const char *dest;          /* our destination name (auth_dest_*) */
	const char *munge_socket;  /* NULL = MUNGE default */
	uint32_t max_body;         /* 0 = FRAME_DEFAULT_MAX_BODY */
	net_handler_f handler;
	void *arg;
};

struct net_server;
struct net_server *net_server_start(uv_loop_t *loop, const struct net_server_opts *opts,
				    struct herd_error *err);
void net_server_stop(struct net_server *srv);   /* closes the listener */

/* Answer req and free it.  body is stolen (NULL = {}); "rc" is set to rc and,
 * when rc != 0, "error" to errtext (or herd_strerror(rc)).  If the client has
 * gone, the reply is dropped. */
void net_respond(struct net_req *req, int rc, json_t *body, const char *errtext);

/* Answer req with a body already serialized (a JSON object that carries
 * "rc"), for replies too large to build as one tree.  Steals body. */
void net_respond_text(struct net_req *req, char *body, size_t len);

struct net_target {
	const char *host;
	int port;
	const char *dest;
	const char *munge_socket;
};

/* Send one request and wait for its reply (timeout_ms for connect+reply).
 * Returns 0 and *reply (the whole reply object, including rc) on a reply, -1 with
 * err when no reply came (connect refused, timeout, bad frame, credential). */
int net_call(const struct net_target *to, int type, const json_t *body, int timeout_ms,
	     json_t **reply, struct herd_error *err);

/* Like net_call but from a loop: cb (may be NULL) runs on the loop thread; reply NULL when
 * the call failed (err says why).  to's strings and body are copied. */
typedef void (*net_call_f)(void *arg, json_t *reply, const struct herd_error *err);
void net_call_async(uv_loop_t *loop, const struct net_target *to, int type, const json_t *body,
		    int timeout_ms, net_call_f cb, void *arg);

/* A free TCP port on 127.0.0.1 (for tests and herd up); -1 on failure. */
int net_free_port(void);

#endif
