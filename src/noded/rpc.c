/* herdd's requests: who may send them and what each does.  Only root and
 * SlurmUser may talk to a node daemon (doc/protocol.md). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "common/log.h"
#include "common/msg.h"
#include "noded/noded.h"

/* The job's herdstepd, or NULL when none runs it here (any more). */
static struct noded_job *rpc_job(struct noded *nd, json_int_t job_id)
{
	if (job_id <= 0 || job_id > UINT32_MAX)
		return NULL;
	jobs_reap(nd);
	return jobs_find(nd, job_id);
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

static void rpc_signal_job(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t sig = json_integer_value(json_object_get(req->body, "signal"));
	const char *flags = json_string_value(json_object_get(req->body, "flags"));
	struct noded_job *job = rpc_job(nd, job_id);
	struct herd_error err = { "" };
	int rc;

	if (!job) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	if (sig < 0 || sig >= NSIG) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "invalid signal number");
		return;
	}
	if (job->pid == 0) {
		net_respond(req, HERD_ERR_NOT_RUNNING, NULL, NULL);
		return;
	}
	rc = rpc_forward(nd, job, json_pack("{s:s, s:I, s:s}", "op", "signal", "signal", sig,
					    "flags", flags), &err);
	log_info("job %u: signal %d (%s): rc %d", (unsigned)job_id, (int)sig, flags, rc);
	net_respond(req, rc, NULL, rc ? err.text : NULL);
}

static void rpc_terminate_job(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t kill_wait = json_integer_value(json_object_get(req->body, "kill_wait"));
	struct noded_job *job = rpc_job(nd, job_id);
	struct herd_error err = { "" };
	int rc;

	if (!job) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	if (kill_wait < 0)
		kill_wait = 0;
	if (kill_wait > 65535)
		kill_wait = 65535;
	if (job->pid == 0) {
		/* herdstepd is starting: it gets the terminate once it is up */
		job->pending_kill_wait = kill_wait;
		net_respond(req, HERD_OK, NULL, NULL);
		return;
	}
	rc = rpc_terminate(nd, job, kill_wait, &err);
	log_info("job %u: terminate (KillWait %d): rc %d", (unsigned)job_id, (int)kill_wait, rc);
	net_respond(req, rc, NULL, rc ? err.text : NULL);
}

/* scontrol update TimeLimit= of a running job: herdstepd enforces limits. */
static void rpc_update_job_limit(struct noded *nd, struct net_req *req)
{
	json_int_t job_id = json_integer_value(json_object_get(req->body, "job_id"));
	json_int_t limit = json_integer_value(json_object_get(req->body, "time_limit"));
	struct noded_job *job = rpc_job(nd, job_id);
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
	{ MSG_SIGNAL_JOB, rpc_signal_job },
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
