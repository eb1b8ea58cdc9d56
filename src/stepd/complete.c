/* Reporting the end of the job (JOB_COMPLETE) or of a step (STEP_COMPLETE,
 * its body from step.c) to the controller, repeated with
 * back-off until the controller answers (it may be restarting: the job's end
 * must not be lost), then removing the job's spool directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/xmalloc.h"
#include "stepd/step.h"
#include "stepd/stepd.h"

#define COMPLETE_TIMEOUT_MS 10000
#define COMPLETE_BACKOFF_MIN_MS 500
#define COMPLETE_BACKOFF_MAX_MS 5000

static void complete_send(struct stepd *sd);

/* Remove the job's directory (flat: herdstepd puts no subdirectory there). */
static void complete_cleanup(struct stepd *sd)
{
	if (fs_remove_flat_dir(sd->job_dir) < 0)
		log_error("job %u: rmdir %s: %s", sd->launch.job_id, sd->job_dir, strerror(errno));
}

static void complete_done(struct stepd *sd)
{
	if (sd->on_complete) {
		void (*cb)(struct stepd *) = sd->on_complete;
		sd->on_complete = NULL;
		cb(sd);
		return;
	}
	complete_finish(sd);
}

void complete_finish(struct stepd *sd)
{
	ctl_stop(sd->ctl);
	sd->ctl = NULL;
	complete_cleanup(sd);
	uv_stop(sd->loop);
}

static void complete_retry_cb(uv_timer_t *t)
{
	complete_send(t->data);
}

static void complete_retry(struct stepd *sd)
{
	uv_timer_start(&sd->complete_timer, complete_retry_cb, sd->complete_backoff_ms, 0);
	sd->complete_backoff_ms *= 2;
	if (sd->complete_backoff_ms > COMPLETE_BACKOFF_MAX_MS)
		sd->complete_backoff_ms = COMPLETE_BACKOFF_MAX_MS;
}

static const char *complete_what(const struct stepd *sd)
{
	return sd->step ? "STEP_COMPLETE" : "JOB_COMPLETE";
}

static void complete_reply_cb(void *arg, json_t *reply, const struct herd_error *err)
{
	struct stepd *sd = arg;
	struct herd_error rerr = { "" };
	int rc;

	sd->complete_in_flight = false;
	if (!reply) {
		/* quiet: the controller being down is expected during restarts */
		log_debug("job %u: %s not delivered: %s", sd->launch.job_id, complete_what(sd), err->text);
		complete_retry(sd);
		return;
	}
	rc = msg_reply_rc(reply, &rerr);
	/* An authentication or internal failure may pass (munged or the store
	 * restarting); any other answer is final. */
	if (rc == HERD_ERR_AUTH || rc == HERD_ERR_INTERNAL || rc < 0) {
		log_error("job %u: %s refused: %s; retrying", sd->launch.job_id, complete_what(sd), rerr.text);
		complete_retry(sd);
		return;
	}
	if (rc != 0)
		log_error("job %u: controller answered %s with: %s", sd->launch.job_id,
			  complete_what(sd), rerr.text);
	else
		log_info("job %u: completion reported", sd->launch.job_id);
	complete_done(sd);
}

static void complete_send(struct stepd *sd)
{
	char *dest = auth_dest_ctld(conf_cluster_name(sd->conf));
	struct net_target to = {
		.host = conf_ctld_host(sd->conf),
		.port = conf_ctld_port(sd->conf),
		.dest = dest,
		.munge_socket = conf_munge_socket(sd->conf),
	};
	json_t *body = sd->step ? step_complete_body(sd)
				: json_pack("{s:I, s:s, s:i, s:b, s:b}", "job_id", (json_int_t)sd->launch.job_id,
					    "node", sd->node, "status", sd->status, "timed_out", sd->timed_out,
					    "oom", sd->oom);

	sd->complete_in_flight = true;
	net_call_async(sd->loop, &to, sd->step ? MSG_STEP_COMPLETE : MSG_JOB_COMPLETE, body,
		       COMPLETE_TIMEOUT_MS, complete_reply_cb, sd);
	json_decref(body);
	free(dest);
}

void complete_start(struct stepd *sd)
{
	uv_timer_init(sd->loop, &sd->complete_timer);
	sd->complete_timer.data = sd;
	sd->complete_backoff_ms = COMPLETE_BACKOFF_MIN_MS;
	complete_send(sd);
}
