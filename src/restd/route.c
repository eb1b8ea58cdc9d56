/* Pure parsing of what reaches herdrestd from outside: request paths and
 * methods, the LISTEN argument, the AuthAltParameters option.  No I/O, so the
 * unit tests drive every branch with tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/parse.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

static const struct {
	const char *name;           /* path below RESTD_PREFIX; a trailing '/' takes an argument */
	enum restd_endpoint endpoint;
} route_table[] = {
	{ "ping", RESTD_EP_PING },
	{ "jobs", RESTD_EP_JOBS },
	{ "job/", RESTD_EP_JOB },
	{ "nodes", RESTD_EP_NODES },
	{ "node/", RESTD_EP_NODE },
	{ "partitions", RESTD_EP_PARTITIONS },
	{ "partition/", RESTD_EP_PARTITION },
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
			/* DELETE is Slurm's cancel; see doc/rest.md for why it is not here. */
			if (!strcmp(method, "DELETE"))
				return route_refuse(route, 405,
					      "Job cancellation over REST is not supported: the controller "
					      "acts only on MUNGE identities (see doc/rest.md)");
		} else if (!route_name_ok(arg)) {
			return route_refuse(route, 400, route->endpoint == RESTD_EP_NODE ?
				      "Invalid node name specified" : "Invalid partition name specified");
		}
		goto method;
	}
	return route_refuse(route, 404, "Unknown URL");
method:
	if (!read_only)
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
	const char *p = params;

	/* Comma-separated options, as Slurm's AuthAltParameters. */
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		if (len > 8 && !strncasecmp(p, "jwt_key=", 8))
			return xstrndup(p + 8, len - 8);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}
