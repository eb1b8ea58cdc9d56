/* The control socket herdd uses to reach a running job: a unix socket named
 * STEPD_CTL_SOCKET in the job's spool directory (root-only directory, socket
 * mode 0600, and the peer's uid checked with SO_PEERCRED).  One request per
 * connection, one JSON object per line each way:
 *   {"op":"signal","signal":N,"flags":"batch"|"full"|""} -> {"rc":R}
 *   {"op":"terminate","kill_wait":N}                      -> {"rc":0}
 *   {"op":"status"} -> {"rc":0,"job_id":J,"done":B}
 *   {"op":"time_limit","time_limit":S}                   -> {"rc":0} (scontrol update)
 *   {"op":"suspend"} / {"op":"resume"}                   -> {"rc":R} (every process of the step)
 * We chose a socket over signals to herdstepd because it carries an answer
 * (herdd replies to the controller with the real rc) and needs no state file.
 * The path is reached through /proc/self/fd/<dir fd> so a deep spool path
 * cannot exceed sun_path's 108 bytes. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "stepd/step.h"
#include "stepd/stepd.h"

#define CTL_MAX_REQUEST 4096

struct ctl_server {
	struct stepd *sd;
	uv_pipe_t listener;
};

struct ctl_client {
	struct ctl_server *srv;
	uv_pipe_t pipe;
	char buf[CTL_MAX_REQUEST];
	size_t len;
	bool answered;
};

static void ctl_client_closed(uv_handle_t *h)
{
	free(h->data);
}

static void ctl_client_close(struct ctl_client *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->pipe))
		uv_close((uv_handle_t *)&c->pipe, ctl_client_closed);
}

static void ctl_written(uv_write_t *w, int status)
{
	struct ctl_client *c = w->data;
	free(w);
	ctl_client_close(c);
}

static void ctl_reply(struct ctl_client *c, json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);
	size_t n = strlen(text);
	/* one allocation holds the write request and its bytes */
	uv_write_t *w = xmalloc(sizeof(*w) + n + 1);
	char *bytes = (char *)(w + 1);

	memcpy(bytes, text, n);
	bytes[n] = '\n';
	free(text);
	json_decref(reply);
	c->answered = true;
	w->data = c;
	uv_buf_t buf = uv_buf_init(bytes, n + 1);
	if (uv_write(w, (uv_stream_t *)&c->pipe, &buf, 1, ctl_written) < 0) {
		free(w);
		ctl_client_close(c);
	}
}

/* A new limit, counted from the job's start as at launch. */
static int ctl_time_limit(struct stepd *sd, json_int_t limit)
{
	if (limit < -1)
		return HERD_ERR_INVALID_ARG;
	job_set_time_limit(sd, limit);
	log_info("job %u: time limit now %lld s", sd->launch.job_id, (long long)limit);
	return HERD_OK;
}

static json_t *ctl_handle(struct stepd *sd, const json_t *req)
{
	const char *op = json_string_value(json_object_get(req, "op"));
	json_int_t sig, kill_wait;
	const char *flags;

	if (!op)
		return json_pack("{s:i}", "rc", HERD_ERR_PROTOCOL);
	if (!strcmp(op, "signal")) {
		if (json_unpack((json_t *)req, "{s:I, s:s}", "signal", &sig, "flags", &flags) < 0)
			return json_pack("{s:i}", "rc", HERD_ERR_PROTOCOL);
		return json_pack("{s:i}", "rc", sd->step ? step_signal(sd, (int)sig, flags)
							     : job_signal(sd, (int)sig, flags));
	}
	if (!strcmp(op, "terminate")) {
		if (json_unpack((json_t *)req, "{s:I}", "kill_wait", &kill_wait) < 0)
			return json_pack("{s:i}", "rc", HERD_ERR_PROTOCOL);
		if (kill_wait > 3600 * 24)
			kill_wait = 3600 * 24;
		if (sd->step)
			step_terminate(sd, (int)kill_wait);
		else
			job_terminate(sd, (int)kill_wait);
		return json_pack("{s:i}", "rc", HERD_OK);
	}
	if (!strcmp(op, "time_limit")) {
		json_int_t limit;
		if (json_unpack((json_t *)req, "{s:I}", "time_limit", &limit) < 0)
			return json_pack("{s:i}", "rc", HERD_ERR_PROTOCOL);
		if (sd->step)   /* the job's limit is the batch step's to enforce */
			return json_pack("{s:i}", "rc", HERD_ERR_INVALID_ARG);
		return json_pack("{s:i}", "rc", ctl_time_limit(sd, limit));
	}
	if (!strcmp(op, "suspend") || !strcmp(op, "resume")) {
		bool suspend = !strcmp(op, "suspend");
		return json_pack("{s:i}", "rc", sd->step ? step_suspend(sd, suspend)
							     : job_suspend(sd, suspend));
	}
	if (!strcmp(op, "status"))
		return json_pack("{s:i, s:I, s:b}", "rc", HERD_OK, "job_id",
				 (json_int_t)sd->launch.job_id, "done",
				 sd->step ? step_done(sd) : sd->shell_done);
	return json_pack("{s:i}", "rc", HERD_ERR_UNKNOWN_TYPE);
}

static void ctl_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct ctl_client *c = h->data;
	*buf = uv_buf_init(c->buf + c->len, sizeof(c->buf) - c->len);
}

static void ctl_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct ctl_client *c = s->data;
	char *nl;

	if (nread < 0) {
		if (!c->answered)
			ctl_client_close(c);
		return;
	}
	c->len += nread;
	nl = memchr(c->buf, '\n', c->len);
	if (!nl) {
		if (c->len == sizeof(c->buf))
			ctl_client_close(c);
		return;
	}
	uv_read_stop(s);
	json_t *req = json_loadb(c->buf, nl - c->buf, 0, NULL);
	json_t *reply = json_is_object(req) ? ctl_handle(c->srv->sd, req)
					    : json_pack("{s:i}", "rc", HERD_ERR_PROTOCOL);
	json_decref(req);
	ctl_reply(c, reply);
}

static void ctl_connection(uv_stream_t *listener, int status)
{
	struct ctl_server *srv = listener->data;
	struct ctl_client *c;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	uv_os_fd_t fd;

	if (status < 0)
		return;
	c = xmalloc(sizeof(*c));
	c->srv = srv;
	uv_pipe_init(srv->sd->loop, &c->pipe, 0);
	c->pipe.data = c;
	if (uv_accept(listener, (uv_stream_t *)&c->pipe) < 0) {
		ctl_client_close(c);
		return;
	}
	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
		log_error("job %u: control connection from a non-root peer refused",
			  srv->sd->launch.job_id);
		ctl_client_close(c);
		return;
	}
	uv_read_start((uv_stream_t *)&c->pipe, ctl_alloc, ctl_read);
}

static void ctl_server_closed(uv_handle_t *h)
{
	free(h->data);
}

struct ctl_server *ctl_start(struct stepd *sd, struct herd_error *err)
{
	struct ctl_server *srv = xmalloc(sizeof(*srv));
	char path[64];
	int rc;

	srv->sd = sd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", sd->job_dir_fd, STEPD_CTL_SOCKET);
	unlinkat(sd->job_dir_fd, STEPD_CTL_SOCKET, 0);
	uv_pipe_init(sd->loop, &srv->listener, 0);
	srv->listener.data = srv;
	if ((rc = uv_pipe_bind(&srv->listener, path)) < 0 ||
	    (rc = uv_listen((uv_stream_t *)&srv->listener, 16, ctl_connection)) < 0) {
		errprintf(err, "control socket %s/%s: %s", sd->job_dir, STEPD_CTL_SOCKET, uv_strerror(rc));
		uv_close((uv_handle_t *)&srv->listener, ctl_server_closed);
		return NULL;
	}
	fchmodat(sd->job_dir_fd, STEPD_CTL_SOCKET, 0600, 0);
	return srv;
}

void ctl_stop(struct ctl_server *srv)
{
	if (!srv)
		return;
	uv_close((uv_handle_t *)&srv->listener, ctl_server_closed);
}
