/* LAUNCH_JOB and LAUNCH_STEP: write the launch to the step's spool
 * directory (jobNNNNN for the batch step, jobNNNNN.S for step S) and start a
 * herdstepd for it, detached (own session: it survives herdd).  The reply
 * waits until herdstepd says on its readiness pipe that the job's shell
 * started, or the step's tasks were forked ("ok"), or why it could not. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

#define LAUNCH_READY_TIMEOUT_MS 30000

/* The uv_process_t lives until herdstepd exits, so libuv reaps it. */
struct launch_proc {
	uv_process_t proc;
};

struct launch_pending {
	struct noded *nd;
	struct net_req *req;
	uint32_t job_id;
	uint32_t step_id;         /* NODED_BATCH_STEP for LAUNCH_JOB */
	pid_t pid;
	uv_pipe_t ready;
	uv_timer_t timer;
	char buf[256];
	size_t len;
	int open_handles;
	bool answered;
};

static void launch_proc_closed(uv_handle_t *h)
{
	free(h->data);
}

static void launch_proc_exit(uv_process_t *p, int64_t status, int sig)
{
	log_debug("herdstepd %d exited (status %lld, signal %d)", p->pid, (long long)status, sig);
	uv_close((uv_handle_t *)p, launch_proc_closed);
}

static void launch_pending_closed(uv_handle_t *h)
{
	struct launch_pending *lp = h->data;
	if (--lp->open_handles == 0)
		free(lp);
}

/* Answer the controller once: ok = herdstepd runs the job. */
static void launch_finish(struct launch_pending *lp, bool timed_out)
{
	struct noded *nd = lp->nd;
	struct noded_job *job = jobs_find(nd, lp->job_id, lp->step_id);
	bool batch = lp->step_id == NODED_BATCH_STEP;

	if (lp->answered)
		return;
	lp->answered = true;
	lp->buf[lp->len] = '\0';
	assert(job && job->pid == 0);   /* only launch.c drops a starting job */
	if (!strncmp(lp->buf, "ok", 2) || (timed_out && jobs_stepd_alive(lp->pid, job->dir))) {
		job->pid = lp->pid;
		if (batch)
			log_info("job %u: launched, herdstepd %d", lp->job_id, (int)lp->pid);
		else
			log_info("step %u.%u: launched, herdstepd %d", lp->job_id, lp->step_id,
				 (int)lp->pid);
		net_respond(lp->req, HERD_OK, NULL, NULL);
		if (job->pending_kill_wait >= 0) {
			struct herd_error err;
			if (rpc_terminate(nd, job, job->pending_kill_wait, &err) != HERD_OK)
				log_error("job %u: %s", lp->job_id, err.text);
		}
	} else {
		char text[300];
		const char *why = lp->len ? lp->buf : "herdstepd exited without a word";
		/* A step's sentence goes back to srun through the controller
		 * (doc/protocol.md, STEP_CREATE: "herdstepd failed on n2: ..."). */
		if (batch)
			snprintf(text, sizeof(text), "job %u: herdstepd failed on %s: %s", lp->job_id,
				 nd->node, why);
		else
			snprintf(text, sizeof(text), "herdstepd failed on %s: %s", nd->node, why);
		if (batch)
			log_error("%s", text);
		else
			log_error("step %u.%u: herdstepd failed: %s", lp->job_id, lp->step_id, why);
		/* Killed after it started the script but before its word: the
		 * script runs on, unconstrained, unless it is reaped here. */
		if (lp->pid > 0 && !jobs_stepd_alive(lp->pid, job->dir))
			reclaim_step(nd, lp->job_id, lp->step_id);
		jobs_remove(nd, job, true);
		net_respond(lp->req, HERD_ERR_INTERNAL, NULL, text);
	}
	uv_timer_stop(&lp->timer);
	uv_close((uv_handle_t *)&lp->ready, launch_pending_closed);
	uv_close((uv_handle_t *)&lp->timer, launch_pending_closed);
}

static void launch_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct launch_pending *lp = h->data;
	*buf = uv_buf_init(lp->buf + lp->len, sizeof(lp->buf) - 1 - lp->len);
}

static void launch_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct launch_pending *lp = s->data;

	if (n > 0)
		lp->len += n;
	if (n < 0 || lp->len >= sizeof(lp->buf) - 1)
		launch_finish(lp, false);   /* EOF: herdstepd said all it will say */
}

static void launch_timeout(uv_timer_t *t)
{
	launch_finish(t->data, true);
}

static int launch_write_file(const char *dir, const json_t *launch, struct herd_error *err)
{
	char *tmp = xasprintf("%s/%s.tmp", dir, NODED_LAUNCH_FILE);
	char *path = xasprintf("%s/%s", dir, NODED_LAUNCH_FILE);
	char *text = json_dumps(launch, JSON_COMPACT);
	size_t len = strlen(text), off = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600), rc = -1;

	if (fd < 0) {
		errprintf(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errprintf(err, "cannot write %s: %s", tmp, strerror(errno));
			close(fd);
			goto out;
		}
		off += n;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		errprintf(err, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		unlink(tmp);
	free(text);
	free(tmp);
	free(path);
	return rc;
}

/* Start herdstepd; -1 with err.  On success lp's pipe will hear from it. */
static int launch_spawn(struct noded *nd, struct launch_pending *lp, const char *dir,
			struct herd_error *err)
{
	struct launch_proc *lproc = xmalloc(sizeof(*lproc));
	uv_process_options_t o = { 0 };
	uv_stdio_container_t stdio[4];
	char *args[12];
	int n = 0, e;

	args[n++] = nd->stepd_path;
	args[n++] = "-f";
	args[n++] = nd->conf_path;
	args[n++] = "-N";
	args[n++] = (char *)nd->node;
	args[n++] = "-r";
	args[n++] = "3";
	if (nd->verbose)
		args[n++] = "-v";
	args[n++] = (char *)dir;
	args[n] = NULL;

	uv_pipe_init(nd->loop, &lp->ready, 0);
	lp->ready.data = lp;
	lp->open_handles++;
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = 1;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = 2;
	stdio[3].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio[3].data.stream = (uv_stream_t *)&lp->ready;
	o.file = nd->stepd_path;
	o.args = args;
	o.exit_cb = launch_proc_exit;
	o.flags = UV_PROCESS_DETACHED;
	o.stdio = stdio;
	o.stdio_count = 4;
	lproc->proc.data = lproc;
	if ((e = uv_spawn(nd->loop, &lproc->proc, &o)) < 0) {
		/* libuv still requires the handle to be closed */
		uv_close((uv_handle_t *)&lproc->proc, launch_proc_closed);
		return errprintf(err, "cannot start %s: %s", nd->stepd_path, uv_strerror(e));
	}
	lp->pid = lproc->proc.pid;
	uv_read_start((uv_stream_t *)&lp->ready, launch_alloc, launch_read);
	uv_timer_init(nd->loop, &lp->timer);
	lp->timer.data = lp;
	lp->open_handles++;
	uv_timer_start(&lp->timer, launch_timeout, LAUNCH_READY_TIMEOUT_MS, 0);
	return 0;
}

/* Both launches: the spool directory, launch.json, herdstepd. */
static void launch_common(struct noded *nd, struct net_req *req, uint32_t job_id, uint32_t step_id,
			  const json_t *launch)
{
	struct herd_error err = { "" };
	struct noded_job *job;
	struct launch_pending *lp;
	char *dir = NULL;
	bool batch = step_id == NODED_BATCH_STEP;

	jobs_reap(nd);
	if ((job = jobs_find(nd, job_id, step_id))) {
		/* a retried LAUNCH: the step runs (or is starting) once */
		if (batch)
			log_info("job %u: already launched here", (unsigned)job_id);
		else
			log_info("step %u.%u: already launched here", (unsigned)job_id, (unsigned)step_id);
		net_respond(req, HERD_OK, NULL, NULL);
		return;
	}
	dir = batch ? xasprintf("%s/" NODED_JOB_DIR_FMT, nd->spool, (unsigned)job_id)
		    : xasprintf("%s/" NODED_STEP_DIR_FMT, nd->spool, (unsigned)job_id, (unsigned)step_id);
	/* A directory no table entry knows is what a dead herdstepd left
	 * (jobs_reap and jobs_scan only keep live ones). */
	jobs_remove_dir(dir);
	/* The user's shell must traverse it to run slurm_script (0500, the
	 * user's); everything else inside is root's 0600. */
	if (mkdir(dir, 0711) < 0 || chmod(dir, 0711) < 0) {
		errprintf(&err, "cannot create %s: %s", dir, strerror(errno));
		goto error;
	}
	if (launch_write_file(dir, launch, &err) < 0)
		goto error_dir;

	lp = xmalloc(sizeof(*lp));
	lp->nd = nd;
	lp->req = req;
	lp->job_id = job_id;
	lp->step_id = step_id;
	job = jobs_add(nd, job_id, step_id, dir);   /* pid 0: starting */
	mps_launch(nd, job_id, launch);   /* before the tasks look for it */
	gpu_usage_watch(nd, job, launch);
	if (launch_spawn(nd, lp, dir, &err) < 0) {
		jobs_remove(nd, job, false);
		if (lp->open_handles)
			uv_close((uv_handle_t *)&lp->ready, launch_pending_closed);
		else
			free(lp);
		goto error_dir;
	}
	free(dir);
	return;

error_dir:
	jobs_remove_dir(dir);
error:
	if (batch)
		log_error("job %u: %s", (unsigned)job_id, err.text);
	else
		log_error("step %u.%u: %s", (unsigned)job_id, (unsigned)step_id, err.text);
	net_respond(req, HERD_ERR_INTERNAL, NULL, err.text);
	free(dir);
}

void launch_job(struct noded *nd, struct net_req *req)
{
	json_t *launch = json_object_get(req->body, "launch");
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));

	if (job_id <= 0 || job_id > UINT32_MAX ||
	    json_integer_value(json_object_get(launch, "job_id")) != job_id) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "LAUNCH_JOB: job_id does not match the launch");
		return;
	}
	if (json_object_get(launch, "step")) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "LAUNCH_JOB: a step's launch comes as LAUNCH_STEP");
		return;
	}
	launch_common(nd, req, job_id, NODED_BATCH_STEP, launch);
}

/* LAUNCH_STEP: {job_id, step_id, launch} with launch.step (doc/steps.md). */
void launch_step(struct noded *nd, struct net_req *req)
{
	json_t *launch = json_object_get(req->body, "launch");
	json_t *step = json_object_get(launch, "step");
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t step_id = json_integer_value(json_object_get(req->body, "step_id"));

	if (job_id <= 0 || job_id > UINT32_MAX ||
	    json_integer_value(json_object_get(launch, "job_id")) != job_id) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "LAUNCH_STEP: job_id does not match the launch");
		return;
	}
	if (!json_is_object(step) || !json_is_integer(json_object_get(step, "step_id")) ||
	    json_integer_value(json_object_get(step, "step_id")) != step_id) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL,
			    "LAUNCH_STEP: the launch has no step object with this step_id");
		return;
	}
	if (step_id < 0 || step_id == NODED_BATCH_STEP || step_id > NODED_EXTERN_STEP) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "LAUNCH_STEP: step_id out of range");
		return;
	}
	launch_common(nd, req, job_id, step_id, launch);
}
