/* The HTTP side of herdrestd: libmicrohttpd with a thread per connection (a
 * request blocks in net_call while the controller answers), JWT checks, and
 * one controller call per request.  Nothing is cached: each answer is the
 * controller's state at that moment. */
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

/* Our endpoints take no body; a little is tolerated, more is refused. */
#define MAX_BODY (64 * 1024)
/* Request line plus headers must fit here; MHD answers 431/414 otherwise. */
#define CONN_MEMORY (32 * 1024)
#define MAX_CONNECTIONS 128
#define CONN_TIMEOUT_S 30
#define USER_MAX 256

struct restd_server {
	struct MHD_Daemon *mhd;
	struct restd *restd;
};

struct request {
	struct restd_route route;
	bool routed;
	size_t body_bytes;
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

/* One call to the controller; steals body.  On failure fills a (status and
 * errors, with an empty key array) and returns NULL. */
static json_t *ctld_call(struct restd *restd, int type, json_t *body, struct answer *a,
			 const char *key)
{
	struct herd_error err;
	json_t *reply = NULL;
	int rc;

	if (net_call(&restd->ctld, type, body, restd->call_timeout_ms, &reply, &err) < 0) {
		char text[200];
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

static void do_ping(struct restd *restd, struct answer *a)
{
	struct herd_error err;
	json_t *reply = NULL, *errors = json_array(), *pings = json_array(), *empty = json_object();

	/* A controller that does not answer is a result here, not an error of ours:
	 * the answer says DOWN, as `scontrol ping` does. */
	if (net_call(&restd->ctld, MSG_PING, empty, restd->call_timeout_ms, &reply, &err) < 0
	    || msg_reply_rc(reply, &err) != 0) {
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

static void do_jobs(struct restd *restd, const struct restd_route *route, struct answer *a)
{
	json_t *body = route->endpoint == RESTD_EP_JOB ?
		json_pack("{s:[I]}", "job_ids", (json_int_t)route->job_id) : json_object();
	json_t *reply = ctld_call(restd, MSG_JOB_INFO, body, a, "jobs");
	if (!reply)
		return;
	a->status = 200;
	a->json = restd_envelope("jobs", restd_jobs_v38(json_object_get(reply, "jobs"), restd->cluster),
				 NULL);
	json_decref(reply);
}

/* Nodes and partitions: the controller answers with all of them; one named
 * in the path is picked out here. */
static void do_list(struct restd *restd, const struct restd_route *route, struct answer *a)
{
	bool nodes = route->endpoint == RESTD_EP_NODES || route->endpoint == RESTD_EP_NODE;
	const char *key = nodes ? "nodes" : "partitions";
	json_t *reply = ctld_call(restd, nodes ? MSG_NODE_INFO : MSG_PART_INFO, json_object(), a, key);
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

static void do_metrics(struct restd *restd, struct answer *a)
{
	struct herd_error err;
	json_t *jobs = NULL, *nodes = NULL, *empty = json_object();

	if (net_call(&restd->ctld, MSG_JOB_INFO, empty, restd->call_timeout_ms, &jobs, &err) < 0
	    || msg_reply_rc(jobs, &err) != 0
	    || net_call(&restd->ctld, MSG_NODE_INFO, empty, restd->call_timeout_ms, &nodes, &err) < 0
	    || msg_reply_rc(nodes, &err) != 0) {
		/* No page rather than a page of zeros that would look like an empty cluster. */
		a->status = 503;
		a->text = xasprintf("controller unavailable: %s\n", err.text);
		a->type = "text/plain; charset=utf-8";
	} else {
		a->status = 200;
		a->text = restd_metrics_render(json_object_get(jobs, "jobs"),
					       json_object_get(nodes, "nodes"));
		a->type = RESTD_METRICS_TYPE;
	}
	json_decref(jobs);
	json_decref(nodes);
	json_decref(empty);
}

static int authenticate(struct restd *restd, struct MHD_Connection *conn, char *user,
			struct herd_error *err)
{
	const char *token, *name;

	if (restd->auth_none) {
		snprintf(user, USER_MAX, "(none)");
		return 0;
	}
	token = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-TOKEN");
	name = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-NAME");
	if (restd_token_verify(&restd->key, token, time(NULL), user, USER_MAX, err) < 0)
		return -1;
	/* The token names its user; a header naming another is refused rather
	 * than trusted (see doc/rest.md). */
	if (name && *name && strcmp(name, user))
		return errprintf(err, "X-SLURM-USER-NAME does not match the token's user");
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
			     const struct restd_route *route, const char *method, const char *url)
{
	struct restd *restd = srv->restd;
	struct answer a = { 0 };
	struct herd_error err;
	char user[USER_MAX] = "", peer[64];

	if (route->endpoint != RESTD_EP_METRICS && authenticate(restd, conn, user, &err) < 0) {
		peer_name(conn, peer, sizeof(peer));
		log_info("refused %s %s from %s: %s", method, url, peer, err.text);
		fail(&a, 401, HERD_ERR_AUTH, err.text, NULL);
		return send_answer(conn, &a);
	}
	switch (route->endpoint) {
	case RESTD_EP_PING:
		do_ping(restd, &a);
		break;
	case RESTD_EP_JOBS:
	case RESTD_EP_JOB:
		do_jobs(restd, route, &a);
		break;
	case RESTD_EP_NODES:
	case RESTD_EP_NODE:
	case RESTD_EP_PARTITIONS:
	case RESTD_EP_PARTITION:
		do_list(restd, route, &a);
		break;
	case RESTD_EP_METRICS:
		do_metrics(restd, &a);
		break;
	case RESTD_EP_NONE:
		fail(&a, 404, HERD_ERR_INVALID_ARG, "Unknown URL", NULL);
		break;
	}
	log_debug("%s %s by %s -> %d", method, url, *user ? user : "-", a.status);
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
		if (clen && strtoull(clen, NULL, 10) > MAX_BODY) {
			struct answer a = { 0 };
			fail(&a, 413, HERD_ERR_INVALID_ARG, "Request body too large", NULL);
			return send_answer(conn, &a);
		}
		r->routed = true;
		return MHD_YES;
	}
	if (*upload_data_size) {
		r->body_bytes += *upload_data_size;
		*upload_data_size = 0;
		/* A chunked body has no length up front: cut it off here. */
		return r->body_bytes > MAX_BODY ? MHD_NO : MHD_YES;
	}
	if (!r->routed)
		return MHD_YES;   /* answered on the first call */
	r->routed = false;
	return serve(cls, conn, &r->route, method, url);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	free(*con_cls);
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
	free(srv);
}
