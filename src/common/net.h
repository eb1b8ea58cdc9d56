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
#include <netinet/in.h>
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
	struct in_addr origin;  /* the credential's origin (munged's host); INADDR_ANY: unknown */
	json_t *body;           /* validated against msg_schema(type); owned by req */
	struct net_conn *conn;  /* private */
};

typedef void (*net_handler_f)(struct net_req *req, void *arg);

/* What one unauthenticated peer may cost a daemon (doc/protocol.md "Reading
 * a frame", doc/conf.md).  0 in any field = its default. */
#define NET_DEFAULT_MAX_CONNS 4096
#define NET_DEFAULT_MAX_CONNS_PER_PEER 1024
#define NET_DEFAULT_FRAME_MS 10000            /* MessageTimeout's default */
#define NET_DEFAULT_IDLE_MS 60000
#define NET_DEFAULT_MAX_UNVERIFIED (16u << 20)
/* A body longer than this waits for its credential to be verified before
 * more of it is read. */
#define NET_EARLY_AUTH_BODY 65536

struct net_limits {
	unsigned max_conns;          /* connections held at once (also kept below RLIMIT_NOFILE) */
	unsigned max_conns_per_peer; /* of them from one IP address */
	unsigned frame_ms;           /* a frame must be whole this long after its first byte */
	unsigned idle_ms;            /* a connection with nothing to read or answer is closed */
	size_t max_unverified;       /* bytes buffered, all connections together, before their
				      * credential is verified */
};

struct conf;
/* The limits from herd.conf: MaxConnections, MaxConnectionsPerPeer,
 * MessageTimeout (the frame deadline), IdleConnectionTimeout, MaxUnverifiedBytes. */
void net_limits_from_conf(const struct conf *conf, struct net_limits *limits);

/* Raise RLIMIT_NOFILE's soft limit to the hard limit (daemons, at start);
 * returns the soft limit now in force.  The limit it had is left in the
 * environment (NET_NOFILE_ENV), for herdd's children. */
#define NET_NOFILE_ENV "HERD_NOFILE_SOFT"
long net_raise_nofile(void);
/* herdstepd: back to the soft limit herdd was started with, so that jobs do
 * not inherit the daemon's raised one. */
void net_restore_nofile(void);

/* The read buffer's next capacity for need bytes when the frame being read is
 * frame_len long (0: its header is not in yet): it grows with what arrives. */
size_t net_buf_grow(size_t cap, size_t need, size_t frame_len);

/* What a server holds now (for tests and logs). */
struct net_server_stats {
	unsigned conns;
	size_t buffered;       /* bytes of partial frames, all connections */
	size_t unverified;     /* of them, before their credential was verified */
	size_t allocated;      /* read buffers' capacity, all connections */
	unsigned long refused, evicted, timed_out;
};

struct net_server_opts {
	const char *host;          /* bind address or host name (resolved, IPv4), e.g. "127.0.0.1" */
	int port;
	const char *dest;          /* our destination name (auth_dest_*) */
	const char *munge_socket;  /* NULL = MUNGE default */
	uint32_t max_body;         /* 0 = FRAME_DEFAULT_MAX_BODY */
	struct net_limits limits;
	net_handler_f handler;
	void *arg;
};

struct net_server;
/* NULL with err and errno (EADDRNOTAVAIL: host is no address of this machine,
 * or does not resolve). */
struct net_server *net_server_start(uv_loop_t *loop, const struct net_server_opts *opts,
				    struct herd_error *err);
void net_server_stop(struct net_server *srv);   /* closes the listener and every connection */
/* Safe to read from another thread only as a test does: a snapshot, unlocked. */
void net_server_stats(const struct net_server *srv, struct net_server_stats *stats);

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
