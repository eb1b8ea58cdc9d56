/* Pure parsing of what reaches herdrestd from outside: request paths and
 * methods, the LISTEN argument, the AuthAltParameters option.  No I/O, so the
 * unit tests drive every branch with tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/parse.h"
#include "common/token.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

static const struct {
	const char *name;           /* path below RESTD_PREFIX; a trailing '/' takes an argument */
	enum restd_endpoint endpoint;
} route_table[] = {
	{ "ping", RESTD_EP_PING },
	{ "jobs", RESTD_EP_JOBS },
	{ "job/submit", RESTD_EP_JOB_SUBMIT },   /* before "job/", which would take "submit" as an ID */
	{ "job/", RESTD_EP_JOB },
	{ "nodes", RESTD_EP_NODES },
	{ "node/", RESTD_EP_NODE },
	{ "partitions", RESTD_EP_PARTITIONS },
	{ "partition/", RESTD_EP_PARTITION },
	{ "licenses", RESTD_EP_LICENSES },
};

static int route_refuse(struct restd_route *route, int status, const char *error)
{
	route->status = status;
	route->error = error;
	return -1;
}

/* Node and partition names as slurm.conf allows them; anything else cannot
 * name one, and keeping it out spares the logs odd bytes. */
static bool route_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

int restd_route(const char *method, const char *path, struct restd_route *route)
{
	char rest[256];
	size_t len, n;
	bool read_only = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	bool ok;

	memset(route, 0, sizeof(*route));
	route->allow = "GET, HEAD";
	len = strlen(path);
	if (len >= sizeof(rest))
		return route_refuse(route, 404, "Unknown URL");
	memcpy(rest, path, len + 1);
	/* "/slurm/v0.0.38/jobs/" is the same resource as ".../jobs". */
	if (len > 1 && rest[len - 1] == '/')
		rest[--len] = '\0';

	if (!strcmp(rest, "/metrics")) {
		route->endpoint = RESTD_EP_METRICS;
		goto method;
	}
	n = strlen(RESTD_PREFIX);
	if (strncmp(rest, RESTD_PREFIX, n))
		return route_refuse(route, 404, "Unknown URL");
	const char *tail = rest + n;
	for (size_t i = 0; i < sizeof(route_table) / sizeof(route_table[0]); i++) {
		size_t m = strlen(route_table[i].name);
		bool with_arg = route_table[i].name[m - 1] == '/';
		if (!with_arg ? strcmp(tail, route_table[i].name) : strncmp(tail, route_table[i].name, m))
			continue;
		route->endpoint = route_table[i].endpoint;
		if (!with_arg)
			goto method;
		const char *arg = tail + m;
		if (strchr(arg, '/'))
			return route_refuse(route, 404, "Unknown URL");
		if (strlen(arg) >= sizeof(route->arg))
			return route_refuse(route, 400, "Name too long");
		strcpy(route->arg, arg);
		if (route->endpoint == RESTD_EP_JOB) {
			uint64_t id;
			/* Job IDs are uint32 in Slurm; 0 is never a job. */
			if (parse_uint(arg, UINT32_MAX, &id) < 0 || id == 0)
				return route_refuse(route, 400, "Invalid job id specified");
			route->job_id = id;
		} else if (!route_name_ok(arg)) {
			return route_refuse(route, 400, route->endpoint == RESTD_EP_NODE ?
				      "Invalid node name specified" : "Invalid partition name specified");
		}
		goto method;
	}
	return route_refuse(route, 404, "Unknown URL");
method:
	/* DELETE of a job is Slurm's cancel; job/submit takes POST only. */
	switch (route->endpoint) {
	case RESTD_EP_JOB_SUBMIT:
		route->allow = "POST";
		ok = !strcmp(method, "POST");
		break;
	case RESTD_EP_JOB:
		route->allow = "GET, HEAD, DELETE";
		ok = read_only || !strcmp(method, "DELETE");
		break;
	default:
		ok = read_only;
	}
	if (!ok)
		return route_refuse(route, 405, "Method not allowed");
	return 0;
}

int restd_listen_parse(const char *listen, char *host, size_t hostlen, int *port,
		       struct herd_error *err)
{
	const char *colon, *h = listen, *hend;
	uint64_t p;

	if (!listen || !*listen)
		return errprintf(err, "missing LISTEN address (host:port)");
	if (!strncmp(listen, "unix:", 5))
		return errprintf(err, "UNIX sockets are not supported; give host:port");
	if (*listen == '[') {
		hend = strchr(listen, ']');
		if (!hend || hend[1] != ':')
			return errprintf(err, "bad LISTEN address '%s': expected [address]:port", listen);
		h = listen + 1;
		colon = hend + 1;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return errprintf(err, "bad LISTEN address '%s': expected host:port", listen);
		hend = colon;
		if (memchr(listen, ':', colon - listen))
			return errprintf(err, "bad LISTEN address '%s': write IPv6 addresses as [address]:port",
					 listen);
	}
	if (parse_uint(colon + 1, 65535, &p) < 0 || p == 0)
		return errprintf(err, "bad port in LISTEN address '%s'", listen);
	if ((size_t)(hend - h) >= hostlen)
		return errprintf(err, "host name too long in LISTEN address '%s'", listen);
	memcpy(host, h, hend - h);
	host[hend - h] = '\0';
	*port = p;
	return 0;
}

char *restd_jwt_key_path(const char *params)
{
	char *path = auth_alt_param(params, "jwt_key");

	if (path && !*path) {
		free(path);
		return NULL;
	}
	return path;
}
