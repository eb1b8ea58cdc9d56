/* herdd's requests: who may send them and what each does.  Only root and
 * SlurmUser may talk to a node daemon (doc/protocol.md). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

/* A step's herdstepd, or NULL when none runs it here (any more). */
static struct noded_job *rpc_job(struct noded *nd, json_int_t job_id, json_int_t step_id)
{
	if (job_id <= 0 || job_id > UINT32_MAX || step_id < 0 || step_id > UINT32_MAX)
		return NULL;
	jobs_reap(nd);
	return jobs_find(nd, job_id, step_id);
}

/* The optional "step_id" of SIGNAL_JOB/TERMINATE_JOB: that step's herdstepd
 * only; -1 when absent: every herdstepd of the job here. */
static json_int_t rpc_step_id(const struct net_req *req)
{
	json_t *v = json_object_get(req->body, "step_id");
	return v ? json_integer_value(v) : -1;
}

/* The targets of a request: the one step, or each of the job's. */
static size_t rpc_targets(struct noded *nd, json_int_t job_id, json_int_t step_id,
			  struct noded_job ***out)
{
	struct noded_job **v = NULL, *j;
	size_t n = 0;

	*out = NULL;
	if (step_id >= 0) {
		if (!(j = rpc_job(nd, job_id, step_id)))
			return 0;
		v = xmalloc(sizeof(*v));
		v[n++] = j;
	} else {
		if (job_id <= 0 || job_id > UINT32_MAX)
			return 0;
		jobs_reap(nd);
		for (j = jobs_next_of(nd, job_id, NULL); j; j = jobs_next_of(nd, job_id, j)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = j;
		}
	}
	*out = v;
	return n;
}

/* Forward a request to herdstepd; map "cannot reach it" to the right rc. */
static int rpc_forward(struct noded *nd, struct noded_job *job, json_t *request,
		       struct herd_error *err)
{
	int rc = jobs_control(job, request, err);

	json_decref(request);
	if (rc >= 0) {
		if (rc)
			errprintf(err, "%s", herd_strerror(rc));
		return rc;
	}
	if (!jobs_stepd_alive(job->pid, job->dir)) {
		gpu_usage_report(nd, job);
		jobs_remove(nd, job, true);
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_JOB));
		return HERD_ERR_INVALID_JOB;
	}
	return HERD_ERR_INTERNAL;
}

int rpc_terminate(struct noded *nd, struct noded_job *job, int kill_wait, struct herd_error *err)
{
	json_t *request = json_pack("{s:s, s:i}", "op", "terminate", "kill_wait", kill_wait);
	return rpc_forward(nd, job, request, err);
}

/* SIGNAL_JOB: with step_id, that step's herdstepd; without, every one of the
 * job here (the batch step applies the flags, doc/protocol.md; a step
 * signals its tasks unless the flags say "batch").  The reply is OK when
 * one of them took it. */
static void rpc_signal_job(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t sig = json_integer_value(json_object_get(req->body, "signal"));
	json_int_t step_id = rpc_step_id(req);
	const char *flags = json_string_value(json_object_get(req->body, "flags"));
	struct noded_job **targets;
	size_t n = rpc_targets(nd, job_id, step_id, &targets);
	struct herd_error err = { "" }, first = { "" };
	int rc = HERD_ERR_INVALID_JOB, one;

	if (n == 0) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	if (sig < 0 || sig >= NSIG) {
		free(targets);
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "invalid signal number");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct noded_job *job = targets[i];
		uint32_t sid = job->step_id;
		if (job->pid == 0) {
			one = HERD_ERR_NOT_RUNNING;
			errprintf(&err, "%s", herd_strerror(one));
		} else {
			one = rpc_forward(nd, job, json_pack("{s:s, s:I, s:s}", "op", "signal", "signal",
							     sig, "flags", flags), &err);
		}
		log_info("job %u step %u: signal %d (%s): rc %d", (unsigned)job_id, sid, (int)sig, flags,
			 one);
		if (one == HERD_OK)
			rc = HERD_OK;
		else if (rc != HERD_OK) {
			rc = one;
			first = err;
		}
	}
	free(targets);
	net_respond(req, rc, NULL, rc ? first.text : NULL);
}

/* SUSPEND_JOB (scontrol suspend/resume): every herdstepd of the job here
 * freezes or thaws its processes (the cgroup freezer, else SIGSTOP/SIGCONT). */
static void rpc_suspend_job(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	bool suspend = json_is_true(json_object_get(req->body, "suspend"));
	struct noded_job **targets;
	size_t n = rpc_targets(nd, job_id, -1, &targets);
	struct herd_error err = { "" }, first = { "" };
	int rc = HERD_ERR_INVALID_JOB;

	for (size_t i = 0; i < n; i++) {
		int one = targets[i]->pid == 0 ? HERD_ERR_NOT_RUNNING
			  : rpc_forward(nd, targets[i], json_pack("{s:s}", "op", suspend ? "suspend" : "resume"),
					&err);
		log_info("job %u step %u: %s: rc %d", (unsigned)job_id, targets[i]->step_id,
			 suspend ? "suspend" : "resume", one);
		if (one == HERD_OK)
			rc = HERD_OK;
		else if (rc != HERD_OK) {
			rc = one;
			first = err;
		}
	}
	free(targets);
	net_respond(req, rc, NULL, rc && first.text[0] ? first.text : NULL);
}

/* TERMINATE_JOB: the same targets; one still starting gets it once up. */
static void rpc_terminate_job(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t kill_wait = json_integer_value(json_object_get(req->body, "kill_wait"));
	json_int_t step_id = rpc_step_id(req);
	struct noded_job **targets;
	size_t n = rpc_targets(nd, job_id, step_id, &targets);
	struct herd_error err = { "" };
	int rc = HERD_ERR_INVALID_JOB, one;

	if (n == 0) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	if (kill_wait < 0)
		kill_wait = 0;
	if (kill_wait > 65535)
		kill_wait = 65535;
	for (size_t i = 0; i < n; i++) {
		struct noded_job *job = targets[i];
		uint32_t sid = job->step_id;
		if (job->pid == 0) {
			/* herdstepd is starting: it gets the terminate once it is up */
			job->pending_kill_wait = kill_wait;
			one = HERD_OK;
		} else {
			one = rpc_terminate(nd, job, kill_wait, &err);
		}
		log_info("job %u step %u: terminate (KillWait %d): rc %d", (unsigned)job_id, sid,
			 (int)kill_wait, one);
		if (one == HERD_OK || rc != HERD_OK)
			rc = one;
	}
	free(targets);
	net_respond(req, rc, NULL, rc ? err.text : NULL);
}

/* scontrol update TimeLimit= of a running job: herdstepd enforces limits. */
static void rpc_update_job_limit(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t limit = json_integer_value(json_object_get(req->body, "time_limit"));
	/* the job's limit is the batch step's to enforce (a step has its own) */
	struct noded_job *job = rpc_job(nd, job_id, NODED_BATCH_STEP);
	struct herd_error err = { "" };
	int rc;

	if (!job) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	if (job->pid == 0) {
		net_respond(req, HERD_ERR_NOT_RUNNING, NULL, NULL);
		return;
	}
	rc = rpc_forward(nd, job, json_pack("{s:s, s:I}", "op", "time_limit", "time_limit", limit),
			 &err);
	log_info("job %u: time limit %lld s: rc %d", (unsigned)job_id, (long long)limit, rc);
	net_respond(req, rc, NULL, rc ? err.text : NULL);
}

static void rpc_launch_job(struct noded *nd, struct net_req *req)
{
	launch_job(nd, req);
}

static void rpc_launch_step(struct noded *nd, struct net_req *req)
{
	launch_step(nd, req);
}

static void rpc_request_registration(struct noded *nd, struct net_req *req)
{
	net_respond(req, 0, NULL, NULL);
	register_now(nd);
}

/* The controller passes "scontrol reconfigure" on; it does not wait for us. */
static void rpc_reconfigure(struct noded *nd, struct net_req *req)
{
	struct herd_error err;
	int rc = reconf_reload(nd, &err) < 0 ? HERD_ERR_INVALID_ARG : 0;
	net_respond(req, rc, NULL, rc ? err.text : NULL);
}

static const struct rpc_entry {
	int type;
	void (*handler)(struct noded *nd, struct net_req *req);
} rpc_table[] = {
	{ MSG_LAUNCH_JOB, rpc_launch_job },
	{ MSG_LAUNCH_STEP, rpc_launch_step },
	{ MSG_SIGNAL_JOB, rpc_signal_job },
	{ MSG_SUSPEND_JOB, rpc_suspend_job },
	{ MSG_TERMINATE_JOB, rpc_terminate_job },
	{ MSG_REQUEST_REGISTRATION, rpc_request_registration },
	{ MSG_UPDATE_JOB_LIMIT, rpc_update_job_limit },
	{ MSG_RECONFIGURE_NODE, rpc_reconfigure },
};

void rpc_handle(struct net_req *req, void *arg)
{
	struct noded *nd = arg;

	for (size_t i = 0; i < sizeof(rpc_table) / sizeof(rpc_table[0]); i++) {
		if (rpc_table[i].type != req->type)
			continue;
		if (req->uid != 0 && req->uid != nd->slurm_uid) {
			log_error("refused %s from uid %d: only root and SlurmUser may send it",
				  msg_name(req->type), (int)req->uid);
			net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
			return;
		}
		rpc_table[i].handler(nd, req);
		return;
	}
	net_respond(req, HERD_ERR_UNKNOWN_TYPE, NULL, NULL);
}
