/* herdrestd's parts: routing of URLs (route.c), the mapping of controller
 * replies to slurmrestd's openapi/v0.0.38 JSON (map.c), the OpenMetrics page
 * (metrics.c), job submission bodies (submit.c) and the HTTP server (http.c).
 * route.c, map.c, metrics.c and submit.c are pure (jansson and common/ only)
 * so that cmocka tests can take them in whole; http.c holds the libmicrohttpd
 * edge.  herdrestd holds no JWT key: it forwards each token to the controller,
 * which verifies it and acts as its user.  Its only state is the /metrics
 * snapshot. */
#ifndef HERD_RESTD_H
#define HERD_RESTD_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "common/error.h"
#include "common/net.h"

#define RESTD_API_VERSION "v0.0.38"
#define RESTD_PREFIX "/slurm/" RESTD_API_VERSION "/"

/* Slurm's sentinels in uint32 fields, which openapi/v0.0.38 prints raw. */
#define RESTD_INFINITE 4294967295LL   /* INFINITE: UNLIMITED time limits, node counts */
#define RESTD_NO_VAL 4294967294LL     /* NO_VAL: a value that was never set */

/* ---- route.c: what a request asks for ------------------------------------ */

enum restd_endpoint {
	RESTD_EP_NONE,
	RESTD_EP_PING,
	RESTD_EP_JOBS,
	RESTD_EP_JOB,          /* arg: the job ID, digits; GET, or DELETE (cancel) */
	RESTD_EP_JOB_SUBMIT,   /* POST */
	RESTD_EP_NODES,
	RESTD_EP_NODE,         /* arg: node name */
	RESTD_EP_PARTITIONS,
	RESTD_EP_PARTITION,    /* arg: partition name */
	RESTD_EP_LICENSES,
	RESTD_EP_METRICS,
};

#define RESTD_ARG_MAX 64

struct restd_route {
	enum restd_endpoint endpoint;
	char arg[RESTD_ARG_MAX];
	uint32_t job_id;       /* RESTD_EP_JOB */
	/* When the request cannot be served: the HTTP status (400, 404, 405) and a
	 * sentence for the errors array; allow is the Allow header for a 405. */
	int status;
	const char *error;
	const char *allow;
};

/* Route method+path (the path without its query string).  Always fills
 * route; returns 0 when routed, -1 when route->status says why not. */
int restd_route(const char *method, const char *path, struct restd_route *route);

/* LISTEN as slurmrestd takes it: "host:port", ":port" (every interface) or
 * "[v6addr]:port".  host gets "" for every interface.  -1 with err. */
int restd_listen_parse(const char *listen, char *host, size_t hostlen, int *port,
		       struct herd_error *err);

/* The jwt_key= option of AuthAltParameters ("jwt_key=/path,disable_token_creation"):
 * returns a new string or NULL when the option is absent or empty. */
char *restd_jwt_key_path(const char *auth_alt_parameters);

/* ---- map.c: controller replies as openapi/v0.0.38 ------------------------ */

/* {"plugin": {...}, "Slurm": {"version": ..., "release": ...}} */
json_t *restd_meta(void);
/* One entry of an "errors" array. */
json_t *restd_error(int error_number, const char *error, const char *source);
/* The body of every answer: {"meta", "errors", key: items}.  Steals items and
 * errors; key NULL leaves the items out, errors NULL means []. */
json_t *restd_envelope(const char *key, json_t *items, json_t *errors);
/* Seconds to the minutes v0.0.38 uses for time limits; -1 -> RESTD_INFINITE. */
int64_t restd_minutes(int64_t seconds);

/* One controller JOB/NODE/PART object (doc/protocol.md) in v0.0.38's names.
 * Missing or mistyped fields read as ""/0 rather than failing: a newer
 * controller may add or drop fields. */
json_t *restd_job_v38(const json_t *job, const char *cluster);
json_t *restd_node_v38(const json_t *node);
json_t *restd_partition_v38(const json_t *part);
/* A ping entry; reply is the PING reply, or NULL when the controller did not
 * answer. */
json_t *restd_ping_v38(const json_t *reply, const char *host);
/* Map every element of array with fn (cluster is passed to jobs). */
json_t *restd_jobs_v38(const json_t *jobs, const char *cluster);
json_t *restd_nodes_v38(const json_t *nodes);
json_t *restd_partitions_v38(const json_t *parts);
/* LICENSE_INFO's list as v0.0.38's licenses (LicenseName, Total, ...). */
json_t *restd_licenses_v38(const json_t *lics);

/* The HTTP status for a controller rc: 404 for unknown job/node/partition,
 * 500 otherwise. */
int restd_http_status(int rc);

/* ---- metrics.c: /metrics in OpenMetrics text ----------------------------- */

/* The page for JOB_COUNTS's "jobs" object ({state: count}) and NODE_INFO's
 * nodes array (either NULL counts as empty).  Ends with "# EOF\n".  Caller
 * frees. */
char *restd_metrics_render(const json_t *job_counts, const json_t *nodes);
#define RESTD_METRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* ---- submit.c: POST job/submit ----------------------------------------- */

/* slurmrestd's {"job": {...}, "script": "..."} as a SUBMIT_JOB body made on
 * submit_host (herdrestd's host, as sbatch's); NULL with a sentence for the
 * 400 answer. */
json_t *restd_submit_body(const json_t *request, const char *submit_host, struct herd_error *err);

/* ---- http.c: the server --------------------------------------------------- */

struct restd {
	struct net_target ctld;      /* where the controller is */
	const char *cluster;
	bool auth_none;              /* -a none: loopback only, no tokens, herdrestd's own identity */
	int call_timeout_ms;
	int metrics_max_age;         /* seconds: how old a /metrics snapshot may be */
};

struct restd_server;
/* Serve on the bound, listening socket fd (taken over). */
struct restd_server *restd_server_start(struct restd *restd, int fd, struct herd_error *err);
void restd_server_stop(struct restd_server *srv);

#endif
