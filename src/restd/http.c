/* The HTTP side of herdrestd: libmicrohttpd with a thread per connection (a
 * request blocks in net_call while the controller answers).  Each API request
 * is one controller call in a JWT_REQUEST envelope that carries the client's
 * token: the controller verifies it and acts as its user, so PrivateData and
 * roles apply as to commands.  /metrics is served from a snapshot at most
 * metrics_max_age seconds old, and the tokens it has seen accepted are
 * remembered for as long, so a flood of scrapes costs the controller one
 * JOB_COUNTS and one NODE_INFO per period. */
#include <nettle/base64.h>
#include <nettle/sha2.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>
#include "common/log.h"
#include "common/msg.h"
#include "common/token.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

/* Only job/submit takes a body (its script); elsewhere a little is
 * tolerated, more refused. */
#define MAX_BODY (64 * 1024)
#define MAX_SUBMIT_BODY (1024 * 1024)
/* Request line plus headers must fit here; MHD answers 431/414 otherwise. */
#define CONN_MEMORY (32 * 1024)
#define MAX_CONNECTIONS 128
#define CONN_TIMEOUT_S 30
#define USER_MAX 256
/* Tokens /metrics has seen the controller accept. */
#define SEEN_MAX 64

struct restd_server {
	struct MHD_Daemon *mhd;
	struct restd *restd;
	pthread_mutex_t lock;          /* the snapshot and the tokens seen */
	time_t snap_time;              /* 0: none yet */
	int snap_status;
	char *snap_text;
	const char *snap_type;
	struct {
		uint8_t hash[SHA256_DIGEST_SIZE];
		time_t until;
	} seen[SEEN_MAX];
	size_t seen_next;
};

struct request {
	struct restd_route route;
	bool routed;
	size_t body_bytes;
	char *body;                    /* job/submit's, up to MAX_SUBMIT_BODY */
};

/* Who a request is for: the client's token (and X-SLURM-USER-NAME), or
 * herdrestd itself (token NULL: -a none, and the /metrics snapshot). */
struct caller {
	const char *token;
	const char *user;
};

/* What one endpoint produces: an HTTP status and a body. */
struct answer {
	int status;
	json_t *json;           /* JSON body, or */
	char *text;             /* a text body (metrics) */
	const char *type;
	const char *allow;
};

static void peer_name(struct MHD_Connection *conn, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	snprintf(buf, len, "?");
	if (ci && ci->client_addr)
		getnameinfo(ci->client_addr, ci->client_addr->sa_family == AF_INET6 ?
			    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
			    buf, len, NULL, 0, NI_NUMERICHOST);
}

static void fail(struct answer *a, int status, int rc, const char *error, const char *key)
{
	json_t *errors = json_array();
	json_array_append_new(errors, restd_error(rc, error, "herdrestd"));
	a->status = status;
	a->json = restd_envelope(key, key ? json_array() : NULL, errors);
}

/* One call to the controller as who; body is borrowed.  A token goes in a
 * JWT_REQUEST envelope around the request. */
static int ctld_send(struct restd *restd, const struct caller *who, int type, json_t *body,
		     json_t **reply, struct herd_error *err)
{
	json_t *msg = body;
	int rc;

	if (who && who->token) {
		msg = json_pack("{s:s, s:i, s:O}", "token", who->token, "type", type, "body", body);
		if (!msg) {
			/* Not UTF-8: no token of ours.  Answered as the controller would. */
			*reply = json_pack("{s:i, s:s}", "rc", HERD_ERR_AUTH, "error",
					   "invalid token: bad signature or format");
			return 0;
		}
		if (who->user && *who->user &&
		    json_object_set_new(msg, "user", json_string(who->user)) < 0) {
			json_decref(msg);   /* a name that is not UTF-8 names no user */
			*reply = json_pack("{s:i, s:s}", "rc", HERD_ERR_AUTH, "error",
					   "X-SLURM-USER-NAME does not match the token's user");
			return 0;
		}
		type = MSG_JWT_REQUEST;
	}
	rc = net_call(&restd->ctld, type, msg, restd->call_timeout_ms, reply, err);
	if (msg != body)
		json_decref(msg);
	return rc;
}

/* One call to the controller; steals body.  On failure fills a (status and
 * errors, with an empty key array) and returns NULL. */
static json_t *ctld_call(struct restd *restd, const struct caller *who, int type, json_t *body,
			 struct answer *a, const char *key)
{
	struct herd_error err;
	json_t *reply = NULL;
	int rc;

	if (ctld_send(restd, who, type, body, &reply, &err) < 0) {
		char text[sizeof(err.text) + 40];
		snprintf(text, sizeof(text), "Unable to contact the controller: %s", err.text);
		log_error("%s", text);
		fail(a, 503, HERD_ERR_INTERNAL, text, key);
		json_decref(body);
		return NULL;
	}
	json_decref(body);
	rc = msg_reply_rc(reply, &err);
	if (rc != 0) {
		fail(a, rc < 0 ? 502 : restd_http_status(rc), rc < 0 ? HERD_ERR_PROTOCOL : rc, err.text,
		     key);
		json_decref(reply);
		return NULL;
	}
	return reply;
}

static void do_ping(struct restd *restd, const struct caller *who, struct answer *a)
{
	struct herd_error err;
	json_t *reply = NULL, *errors = json_array(), *pings = json_array(), *empty = json_object();
	int rc = -1;

	/* A controller that does not answer is a result here, not an error of ours:
	 * the answer says DOWN, as `scontrol ping` does.  One that refuses the
	 * request (the token: 401; the relay: 403) is an error. */
	if (ctld_send(restd, who, MSG_PING, empty, &reply, &err) == 0 &&
	    (rc = msg_reply_rc(reply, &err)) > 0) {
		json_decref(errors);
		json_decref(pings);
		json_decref(reply);
		json_decref(empty);
		fail(a, restd_http_status(rc), rc, err.text, NULL);
		return;
	}
	if (rc != 0) {
		json_array_append_new(errors, restd_error(HERD_ERR_INTERNAL, err.text, "herdctld"));
		json_array_append_new(pings, restd_ping_v38(NULL, restd->ctld.host));
	} else {
		json_array_append_new(pings, restd_ping_v38(reply, restd->ctld.host));
	}
	json_decref(reply);
	json_decref(empty);
	a->status = 200;
	a->json = restd_envelope("pings", pings, errors);
}

static void do_jobs(struct restd *restd, const struct caller *who, const struct restd_route *route,
		    struct answer *a)
{
	json_t *body = route->endpoint == RESTD_EP_JOB ?
		json_pack("{s:[I]}", "job_ids", (json_int_t)route->job_id) : json_object();
	json_t *reply = ctld_call(restd, who, MSG_JOB_INFO, body, a, "jobs");
	if (!reply)
		return;
	a->status = 200;
	a->json = restd_envelope("jobs", restd_jobs_v38(json_object_get(reply, "jobs"), restd->cluster),
				 NULL);
	json_decref(reply);
}

/* Nodes and partitions: the controller answers with all of them; one named
 * in the path is picked out here. */
static void do_list(struct restd *restd, const struct caller *who, const struct restd_route *route,
		    struct answer *a)
{
	bool nodes = route->endpoint == RESTD_EP_NODES || route->endpoint == RESTD_EP_NODE;
	const char *key = nodes ? "nodes" : "partitions";
	json_t *reply = ctld_call(restd, who, nodes ? MSG_NODE_INFO : MSG_PART_INFO, json_object(), a,
				  key);
	json_t *list, *picked, *v;
	size_t i;

	if (!reply)
		return;
	list = json_object_get(reply, key);
	picked = list;
	if (route->endpoint == RESTD_EP_NODE || route->endpoint == RESTD_EP_PARTITION) {
		picked = json_array();
		json_array_foreach(list, i, v)
			if (!strcmp(json_string_value(json_object_get(v, "name")) ?: "", route->arg))
				json_array_append(picked, v);
		if (!json_array_size(picked)) {
			int rc = nodes ? HERD_ERR_INVALID_NODE : HERD_ERR_INVALID_PARTITION;
			fail(a, 404, rc, herd_strerror(rc), key);
			json_decref(picked);
			json_decref(reply);
			return;
		}
	}
	a->status = 200;
	a->json = restd_envelope(key, nodes ? restd_nodes_v38(picked) : restd_partitions_v38(picked),
				 NULL);
	if (picked != list)
		json_decref(picked);
	json_decref(reply);
}

/* GET licenses: LICENSE_INFO, as scontrol show licenses. */
static void do_licenses(struct restd *restd, const struct caller *who, struct answer *a)
{
	json_t *reply = ctld_call(restd, who, MSG_LICENSE_INFO, json_object(), a, "licenses");
	if (!reply)
		return;
	a->status = 200;
	a->json = restd_envelope("licenses", restd_licenses_v38(json_object_get(reply, "licenses")),
				 NULL);
	json_decref(reply);
}

/* DELETE job/{id}: scancel's CANCEL_JOB, as the token's user. */
static void do_cancel(struct restd *restd, const struct caller *who, const struct restd_route *route,
		      struct answer *a)
{
	json_t *body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)route->job_id, "signal", 0,
				 "flags", "");
	json_t *reply = ctld_call(restd, who, MSG_CANCEL_JOB, body, a, NULL);
	if (!reply)
		return;
	a->status = 200;
	a->json = restd_envelope(NULL, NULL, NULL);
	json_decref(reply);
}

/* POST job/submit: the job belongs to the token's user (the controller
 * takes the uid from the token), runs in its current_working_directory. */
static void do_submit(struct restd *restd, const struct caller *who, const char *text,
		      size_t len, struct answer *a)
{
	json_error_t jerr;
	struct herd_error err;
	json_t *in = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &jerr), *body, *reply;

	if (!in) {
		errprintf(&err, "the request body is not JSON: %.100s", jerr.text);
		fail(a, 400, HERD_ERR_INVALID_ARG, err.text, NULL);
		return;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	body = restd_submit_body(in, host, &err);
	json_decref(in);
	if (!body) {
		fail(a, 400, HERD_ERR_INVALID_ARG, err.text, NULL);
		return;
	}
	reply = ctld_call(restd, who, MSG_SUBMIT_JOB, body, a, NULL);
	if (!reply)
		return;
	json_t *out = restd_envelope(NULL, NULL, NULL);
	json_object_set(out, "job_id", json_object_get(reply, "job_id"));
	json_object_set_new(out, "step_id", json_string("BATCH"));
	json_object_set_new(out, "job_submit_user_msg", json_string(""));
	a->status = 200;
	a->json = out;
	json_decref(reply);
}

/* The token's expiry from its payload, read without checking the signature:
 * only for a token the controller has just accepted.  0 when unreadable. */
static time_t token_exp(const char *token)
{
	const char *dot = strchr(token, '.'), *end = dot ? strchr(dot + 1, '.') : NULL;
	struct base64_decode_ctx ctx;
	size_t n, len;
	uint8_t *buf;
	time_t exp = 0;

	if (!end || end - dot - 1 > 4096)
		return 0;
	len = end - dot - 1;
	buf = xmalloc(BASE64_DECODE_LENGTH(len) + 1);
	base64url_decode_init(&ctx);
	n = BASE64_DECODE_LENGTH(len);
	if (base64_decode_update(&ctx, &n, buf, len, dot + 1)) {
		json_t *claims = json_loadb((char *)buf, n, 0, NULL);
		exp = json_integer_value(json_object_get(claims, "exp"));
		json_decref(claims);
	}
	free(buf);
	return exp;
}

/* /metrics takes a token like the API; one the controller accepted is
 * remembered until it expires or the snapshot period ends, whichever comes
 * first, so a scraper's every request does not cost a controller call. */
static int metrics_auth(struct restd_server *srv, const struct caller *who, struct answer *a)
{
	struct restd *restd = srv->restd;
	struct sha256_ctx ctx;
	uint8_t hash[SHA256_DIGEST_SIZE];
	time_t now = time(NULL), exp;
	struct herd_error err;
	json_t *reply = NULL, *empty;
	int rc;

	if (restd->auth_none)
		return 0;
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(who->token), (const uint8_t *)who->token);
	sha256_digest(&ctx, sizeof(hash), hash);
	pthread_mutex_lock(&srv->lock);
	for (size_t i = 0; i < SEEN_MAX; i++)
		if (srv->seen[i].until > now && !memcmp(srv->seen[i].hash, hash, sizeof(hash))) {
			pthread_mutex_unlock(&srv->lock);
			return 0;
		}
	pthread_mutex_unlock(&srv->lock);

	empty = json_object();
	rc = ctld_send(restd, who, MSG_PING, empty, &reply, &err);
	json_decref(empty);
	if (rc < 0) {
		a->status = 503;
		a->text = xasprintf("controller unavailable: %s\n", err.text);
		a->type = "text/plain; charset=utf-8";
		return -1;
	}
	rc = msg_reply_rc(reply, &err);
	json_decref(reply);
	if (rc != 0) {
		fail(a, rc == HERD_ERR_AUTH ? 401 : restd_http_status(rc), rc, err.text, NULL);
		return -1;
	}
	exp = token_exp(who->token);
	pthread_mutex_lock(&srv->lock);
	memcpy(srv->seen[srv->seen_next].hash, hash, sizeof(hash));
	srv->seen[srv->seen_next].until = exp && exp < now + restd->metrics_max_age ? exp
					  : now + restd->metrics_max_age;
	srv->seen_next = (srv->seen_next + 1) % SEEN_MAX;
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

/* The page: counts only (JOB_COUNTS, not a job list), fetched as herdrestd
 * itself, at most once per metrics_max_age; scrapes that arrive while it is
 * fetched wait for it and share it. */
static void do_metrics(struct restd_server *srv, const struct caller *who, struct answer *a)
{
	struct restd *restd = srv->restd;
	struct herd_error err;
	json_t *jobs = NULL, *nodes = NULL, *empty;
	time_t now;

	if (metrics_auth(srv, who, a) < 0)
		return;
	pthread_mutex_lock(&srv->lock);
	now = time(NULL);
	if (!srv->snap_time || now - srv->snap_time >= restd->metrics_max_age || now < srv->snap_time) {
		empty = json_object();
		free(srv->snap_text);
		if (net_call(&restd->ctld, MSG_JOB_COUNTS, empty, restd->call_timeout_ms, &jobs, &err) < 0
		    || msg_reply_rc(jobs, &err) != 0
		    || net_call(&restd->ctld, MSG_NODE_INFO, empty, restd->call_timeout_ms, &nodes, &err) < 0
		    || msg_reply_rc(nodes, &err) != 0) {
			/* No page rather than a page of zeros that would look like an empty cluster. */
			srv->snap_status = 503;
			srv->snap_text = xasprintf("controller unavailable: %s\n", err.text);
			srv->snap_type = "text/plain; charset=utf-8";
		} else {
			srv->snap_status = 200;
			srv->snap_text = restd_metrics_render(json_object_get(jobs, "jobs"),
							      json_object_get(nodes, "nodes"));
			srv->snap_type = RESTD_METRICS_TYPE;
		}
		/* A failure is kept for the period too: a dead controller is not
		 * asked again by every scrape. */
		srv->snap_time = time(NULL);
		json_decref(jobs);
		json_decref(nodes);
		json_decref(empty);
	}
	a->status = srv->snap_status;
	a->text = xstrdup(srv->snap_text);
	a->type = srv->snap_type;
	pthread_mutex_unlock(&srv->lock);
}

/* The client's token: X-SLURM-USER-TOKEN as slurmrestd's clients send it,
 * or "Authorization: Bearer" as Prometheus does.  Only its presence is
 * checked here: herdrestd holds no key, the controller judges it. */
static int authenticate(struct restd *restd, struct MHD_Connection *conn, struct caller *who,
			struct herd_error *err)
{
	const char *auth;

	memset(who, 0, sizeof(*who));
	if (restd->auth_none)
		return 0;
	who->token = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-TOKEN");
	who->user = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-NAME");
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if ((!who->token || !*who->token) && auth && !strncasecmp(auth, "Bearer ", 7))
		who->token = auth + 7;
	if (!who->token || !*who->token)
		return errprintf(err, "missing X-SLURM-USER-TOKEN");
	if (strlen(who->token) > TOKEN_MAX_LEN)
		return errprintf(err, "invalid token: longer than %d bytes", TOKEN_MAX_LEN);
	return 0;
}

static enum MHD_Result send_answer(struct MHD_Connection *conn, struct answer *a)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *body;
	size_t len;

	if (a->json) {
		char *dump = json_dumps(a->json, JSON_INDENT(2));
		json_decref(a->json);
		if (!dump)
			abort();
		body = xasprintf("%s\n", dump);
		free(dump);
		a->type = "application/json";
	} else {
		body = a->text;
	}
	len = strlen(body);
	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
	if (a->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, a->allow);
	ret = MHD_queue_response(conn, a->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result refuse_route(struct MHD_Connection *conn, const struct restd_route *route,
				    const char *method, const char *url)
{
	struct answer a = { 0 };
	fail(&a, route->status, route->status == 405 ? HERD_ERR_DISABLED : HERD_ERR_INVALID_ARG,
	     route->error, NULL);
	if (route->status == 405)
		a.allow = route->allow;
	log_debug("%s %s -> %d %s", method, url, route->status, route->error);
	return send_answer(conn, &a);
}

static enum MHD_Result serve(struct restd_server *srv, struct MHD_Connection *conn,
			     const struct request *r, const char *method, const char *url)
{
	const struct restd_route *route = &r->route;
	struct restd *restd = srv->restd;
	struct answer a = { 0 };
	struct herd_error err;
	struct caller who;
	char peer[64];

	if (authenticate(restd, conn, &who, &err) < 0) {
		peer_name(conn, peer, sizeof(peer));
		log_info("refused %s %s from %s: %s", method, url, peer, err.text);
		fail(&a, 401, HERD_ERR_AUTH, err.text, NULL);
		return send_answer(conn, &a);
	}
	switch (route->endpoint) {
	case RESTD_EP_PING:
		do_ping(restd, &who, &a);
		break;
	case RESTD_EP_JOB:
		if (!strcmp(method, "DELETE")) {
			do_cancel(restd, &who, route, &a);
			break;
		}
		/* fall through */
	case RESTD_EP_JOBS:
		do_jobs(restd, &who, route, &a);
		break;
	case RESTD_EP_JOB_SUBMIT:
		do_submit(restd, &who, r->body, r->body_bytes, &a);
		break;
	case RESTD_EP_NODES:
	case RESTD_EP_NODE:
	case RESTD_EP_PARTITIONS:
	case RESTD_EP_PARTITION:
		do_list(restd, &who, route, &a);
		break;
	case RESTD_EP_LICENSES:
		do_licenses(restd, &who, &a);
		break;
	case RESTD_EP_METRICS:
		do_metrics(srv, &who, &a);
		break;
	case RESTD_EP_NONE:
		fail(&a, 404, HERD_ERR_INVALID_ARG, "Unknown URL", NULL);
		break;
	}
	if (a.status == 401) {
		peer_name(conn, peer, sizeof(peer));
		log_info("refused %s %s from %s: %s", method, url, peer,
			 a.json ? json_string_value(json_object_get(json_array_get(
				 json_object_get(a.json, "errors"), 0), "error")) ?: "" : "");
	}
	log_debug("%s %s by %s -> %d", method, url, who.user && *who.user ? who.user : "-", a.status);
	return send_answer(conn, &a);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct request *r = *con_cls;

	if (!r) {
		/* First call: only the headers are in.  Refusals go out now, before
		 * any body is read. */
		const char *clen = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_CONTENT_LENGTH);
		r = xmalloc(sizeof(*r));
		*con_cls = r;
		if (restd_route(method, url, &r->route) < 0)
			return refuse_route(conn, &r->route, method, url);
		size_t max = r->route.endpoint == RESTD_EP_JOB_SUBMIT ? MAX_SUBMIT_BODY : MAX_BODY;
		if (clen && strtoull(clen, NULL, 10) > max) {
			struct answer a = { 0 };
			fail(&a, 413, HERD_ERR_INVALID_ARG, "Request body too large", NULL);
			return send_answer(conn, &a);
		}
		r->routed = true;
		return MHD_YES;
	}
	if (*upload_data_size) {
		bool keep = r->routed && r->route.endpoint == RESTD_EP_JOB_SUBMIT;
		size_t n = *upload_data_size;
		*upload_data_size = 0;
		/* A chunked body has no length up front: cut it off here. */
		if (r->body_bytes + n > (keep ? MAX_SUBMIT_BODY : MAX_BODY))
			return MHD_NO;
		if (keep) {
			r->body = xrealloc(r->body, r->body_bytes + n + 1);
			memcpy(r->body + r->body_bytes, upload_data, n);
			r->body[r->body_bytes + n] = '\0';
		}
		r->body_bytes += n;
		return MHD_YES;
	}
	if (!r->routed)
		return MHD_YES;   /* answered on the first call */
	r->routed = false;
	return serve(cls, conn, r, method, url);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request *r = *con_cls;
	if (r)
		free(r->body);
	free(r);
	*con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_info("http: %s", line);
}

struct restd_server *restd_server_start(struct restd *restd, int fd, struct herd_error *err)
{
	struct restd_server *srv = xmalloc(sizeof(*srv));

	pthread_mutex_init(&srv->lock, NULL);
	srv->restd = restd;
	srv->mhd = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
		MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, srv,
		/* First, so that MHD's own start-up messages go to our log too. */
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!srv->mhd) {
		pthread_mutex_destroy(&srv->lock);
		free(srv);
		errprintf(err, "cannot start the HTTP server");
		return NULL;
	}
	return srv;
}

void restd_server_stop(struct restd_server *srv)
{
	if (!srv)
		return;
	MHD_stop_daemon(srv->mhd);
	pthread_mutex_destroy(&srv->lock);
	free(srv->snap_text);
	free(srv);
}
