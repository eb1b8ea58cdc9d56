/* Allocations for srun and salloc (srun_alloc.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cmd/srun_alloc.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

#define SUBMIT_RETRY_S 60
#define STEP_RETRY_MS 500

volatile sig_atomic_t srun_alloc_interrupted;

static void on_signal(int sig)
{
	srun_alloc_interrupted = sig;
}

void srun_alloc_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep, cut short by a signal (the flag then says which). */
static void nap(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
}

json_t *srun_alloc_body(const struct jobopt *o, const char *name, char *const *env,
			const char *cwd)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	mode_t mask = umask(0);
	umask(mask);
	struct jobopt_ctx ctx = { .script = "", .env = env, .cwd = cwd, .name = name,
				  .host = host, .umask = mask, .alloc = true, .rlimits = true };
	json_t *body = jobopt_submit_body(o, &ctx);
	jobopt_arbitrary_job(o, json_object_get(body, "job"));
	return body;
}

/* STEPSPEC (src/common/msg.c): 0 / "" for what was not given, so the
 * controller fills the job's defaults. */
json_t *srun_step_body(const struct jobopt *o, const char *name, char *const *env,
		       const char *cwd, const char *host, int io_port, const char *io_key,
		       char *const *multi_prog)
{
	long long limit = jobopt_int(o, "time_limit", 0);
	char node_dist[32] = "";
	struct herd_error err;
	const char *dist = jobopt_str(o, "distribution");
	if (dist && srun_dist_parse(dist, node_dist, sizeof(node_dist), &err) < 0)
		node_dist[0] = '\0';   /* checked when read */
	/* -m arbitrary without -w: SLURM_HOSTFILE names each task's node, in order (srun(1)) */
	char *hostfile_list = jobopt_arbitrary_list(o);
	json_t *argv = json_array();
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(argv, json_string(o->argv[i]));
#define S(name) (jobopt_str(o, name) ? jobopt_str(o, name) : "")
	json_t *step = json_pack(
		"{s:s, s:o, s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:b, s:b, s:b, s:s, s:s,"
		" s:I, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:b, s:s, s:i, s:i, s:s, s:i}",
		"name", name, "argv", argv, "env", msg_strv(env), "cwd", cwd,
		"num_nodes", (json_int_t)jobopt_int(o, "nodes", 0),
		"num_tasks", (json_int_t)jobopt_int(o, "ntasks", 0),
		"cpus_per_task", (json_int_t)jobopt_int(o, "cpus_per_task", 0),
		"ntasks_per_node", (json_int_t)jobopt_int(o, "ntasks_per_node", 0),
		"mem_mb", (json_int_t)jobopt_int(o, "mem_mb", 0),
		"mem_per_cpu", (json_int_t)jobopt_int(o, "mem_per_cpu", 0),
		"distribution", dist && node_dist[0] ? dist : "",   /* as typed: the socket and core parts bind */
		"overlap", jobopt_flag(o, "overlap"), "exact", jobopt_flag(o, "exact"),
		"exclusive", jobopt_flag(o, "exclusive"),
		"req_nodelist", hostfile_list ? hostfile_list : S("req_nodelist"),
		"exc_nodelist", S("exc_nodelist"),
		"time_limit", (json_int_t)(limit == TIME_NOT_GIVEN ? 0 : limit),
		"cpu_bind", S("cpu-bind"),
		"io_host", host, "io_port", io_port, "io_key", io_key,
		"stdout", S("output"), "stderr", S("error"), "stdin", S("input"),
		"stdin_task", srun_stdin_task(o), "pty", jobopt_flag(o, "pty"),
		"mpi", S("mpi"), "signal", (int)jobopt_int(o, "signal", 0),
		"signal_time", (int)jobopt_int(o, "signal_time", 0),
		"launch_addr", host, "srun_pid", (int)getpid());
#undef S
	free(hostfile_list);
	/* the task options, keyed as the job's (doc/protocol.md), and this
	 * process's limits for --propagate */
	static const char *task_keys[] = { "hint", "mem_bind", "propagate" };
	for (size_t k = 0; step && k < sizeof(task_keys) / sizeof(task_keys[0]); k++)
		if (jobopt_str(o, task_keys[k]))
			json_object_set_new(step, task_keys[k], json_string(jobopt_str(o, task_keys[k])));
	static const char *count_keys[] = { "ntasks_per_socket", "ntasks_per_core" };
	for (size_t k = 0; step && k < sizeof(count_keys) / sizeof(count_keys[0]); k++)
		if (jobopt_int(o, count_keys[k], 0) > 0)
			json_object_set_new(step, count_keys[k],
					    json_integer((json_int_t)jobopt_int(o, count_keys[k], 0)));
	if (step)
		json_object_set_new(step, "rlimits", jobopt_rlimits());
	if (step && multi_prog)
		json_object_set_new(step, "multi_prog", msg_strv(multi_prog));
	if (step && jobopt_int(o, "slurmd-debug", 0) > 0)
		json_object_set_new(step, "slurmd_debug", json_integer(jobopt_int(o, "slurmd-debug", 0)));
	const char *ports = jobopt_str(o, "resv-ports");   /* bare: -1, as many as tasks on a node */
	if (step && ports)
		json_object_set_new(step, "resv_ports", json_integer(*ports ? strtol(ports, NULL, 10) : -1));
	/* GRES for the step (doc/gres.md section 2, Steps): srun's --gpus is
	 * the step's in all; none given: the step has all its job's */
	static const char *const gres_keys[][2] = { { "tres_per_job", "tres_per_step" },
						    { "tres_per_node", "tres_per_node" },
						    { "tres_per_socket", "tres_per_socket" },
						    { "tres_per_task", "tres_per_task" },
						    { "gpu_bind", "gpu_bind" } };
	for (size_t k = 0; step && k < sizeof(gres_keys) / sizeof(gres_keys[0]); k++)
		if (jobopt_str(o, gres_keys[k][0]) && *jobopt_str(o, gres_keys[k][0]))
			json_object_set_new(step, gres_keys[k][1], json_string(jobopt_str(o, gres_keys[k][0])));
	/* this component's own (jobopt_flag would look into the next ones) */
	if (step && json_is_true(json_object_get(o->local, "gres_none")))
		json_object_set_new(step, "gres_none", json_true());
	static const char *const per_gpu[] = { "cpus_per_gpu", "mem_per_gpu" };
	for (size_t k = 0; step && k < sizeof(per_gpu) / sizeof(per_gpu[0]); k++)
		if (jobopt_int(o, per_gpu[k], 0) > 0)
			json_object_set_new(step, per_gpu[k], json_integer((json_int_t)jobopt_int(o, per_gpu[k], 0)));
	if (step && jobopt_str(o, "container") && *jobopt_str(o, "container"))   /* doc/containers.md */
		json_object_set_new(step, "container", json_string(jobopt_str(o, "container")));
	return step;
}

int srun_alloc_submit(struct cmd_client *c, const char *prog, const struct jobopt *o,
		      json_t *body, long long *job_id)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	double start = now_s(), delay = 0.2;
	int rc;
	for (;;) {
		rc = cmd_call(c, MSG_SUBMIT_JOB, body, &reply, &err);
		if (rc != CMD_NO_REPLY || now_s() - start >= SUBMIT_RETRY_S || srun_alloc_interrupted)
			break;
		nap(delay);
		if (delay < 2)
			delay *= 2;
	}
	if (rc != 0) {
		if (rc == HERD_ERR_INVALID_PARTITION && jobopt_str(o, "partition"))
			fprintf(stderr, "%s: error: invalid partition specified: %s\n", prog,
				jobopt_str(o, "partition"));
		/* srun(1) and salloc(1) word it differently */
		fprintf(stderr, "%s: error: %s: %s\n", prog,
			strcmp(prog, "salloc") ? "Unable to allocate resources" : "Job submit/allocate failed",
			err.text);
		return -1;
	}
	*job_id = cmd_jint(reply, "job_id");
	if (jobopt_flag(o, "test_only")) {
		/* Slurm's --test-only line; nothing was queued. */
		char when[64];
		fprintf(stderr, "%s: Job %lld to start at %s using %lld processors on nodes %s "
			"in partition %s\n", prog, *job_id,
			fmt_timestamp(cmd_jint(reply, "start_time"), when, sizeof(when)),
			cmd_jint(reply, "num_cpus"), cmd_jstr(reply, "nodes"),
			cmd_jstr(reply, "partition"));
		json_decref(reply);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* STEP_CREATE, retried while the nodes are busy; the layout, or NULL after
 * printing why. */
json_t *srun_step_create(struct cmd_client *c, const struct jobopt *o, long long job_id,
			 json_t *step, json_t *het)
{
	json_t *body = json_pack("{s:I, s:O}", "job_id", (json_int_t)job_id, "step", step);
	if (het)
		json_object_set(body, "het", het);
	bool said_busy = false;
	json_t *reply = NULL;
	for (int tries = 0;; tries++) {
		struct herd_error err = { "" };
		int rc = cmd_call(c, MSG_STEP_CREATE, body, &reply, &err);
		if (rc == 0)
			break;
		if (srun_alloc_interrupted) {
			reply = NULL;
			break;
		}
		bool busy = rc == HERD_ERR_NODES_BUSY || rc == HERD_ERR_PORTS_BUSY;
		if (busy || (rc == CMD_NO_REPLY && tries < 120)) {
			if (busy && !said_busy && !jobopt_flag(o, "quiet"))
				fprintf(stderr, "srun: Job %lld step creation temporarily disabled, retrying "
					"(%s)\n", job_id, err.text);
			said_busy |= busy;
			usleep(STEP_RETRY_MS * 1000);
			continue;
		}
		/* Slurm looks the allocation up first: these are its words for a
		 * job that is not (or no longer, or not the caller's) to be had. */
		if (rc == HERD_ERR_INVALID_JOB || rc == HERD_ERR_ALREADY_DONE || rc == HERD_ERR_ACCESS) {
			fprintf(stderr, "srun: error: Unable to confirm allocation for job %lld: %s\n",
				job_id, err.text);
			fprintf(stderr, "srun: Check SLURM_JOB_ID environment variable. Expired or invalid "
				"job %lld\n", job_id);
		} else {
			fprintf(stderr, "srun: error: Unable to create step for job %lld: %s\n", job_id,
				err.text);
		}
		reply = NULL;
		break;
	}
	if (reply && said_busy && !jobopt_flag(o, "quiet"))
		fprintf(stderr, "srun: Step created for job %lld\n", job_id);
	json_decref(body);
	return reply;
}

void srun_alloc_cancel(struct cmd_client *c, long long job_id)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	json_t *body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)job_id, "signal", 0,
				 "flags", "");
	for (int i = 0; i < 3; i++)
		if (cmd_call(c, MSG_CANCEL_JOB, body, &reply, &err) != CMD_NO_REPLY)
			break;
	json_decref(reply);
	json_decref(body);
}

int srun_alloc_wait(struct cmd_client *c, const char *prog, const struct jobopt *o,
		    long long job_id, bool pending_line, json_t **job)
{
	double delay = 0.05, start = now_s();
	bool queued = false;
	*job = NULL;
	for (;;) {
		if (srun_alloc_interrupted) {
			srun_alloc_cancel(c, job_id);
			fprintf(stderr, "%s: Job allocation %lld has been revoked.\n", prog, job_id);
			return -1;
		}
		struct herd_error err = { "" };
		json_t *reply = NULL;
		json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)job_id);
		int rc = cmd_call(c, MSG_JOB_INFO, body, &reply, &err);
		json_decref(body);
		if (rc != 0 && rc != CMD_NO_REPLY) {
			fprintf(stderr, "%s: error: %s\n", prog, err.text);
			return -1;
		}
		if (rc == 0) {
			json_t *rec = json_incref(json_array_get(json_object_get(reply, "jobs"), 0));
			json_decref(reply);
			int state = job_state_parse(cmd_jstr(rec, "state"));
			if (state == JOB_RUNNING) {
				if (queued && !jobopt_flag(o, "quiet"))
					fprintf(stderr, "%s: job %lld has been allocated resources\n", prog,
						job_id);
				*job = rec;
				return 0;
			}
			if (!rec || (state >= 0 && job_state_is_final(state))) {
				json_decref(rec);
				fprintf(stderr, "%s: Job allocation %lld has been revoked.\n", prog, job_id);
				return -1;
			}
			/* A job seen before the scheduler's first look at it (reason
			 * None) is not yet waiting: the pass right after submission
			 * may start it. */
			bool waiting = strcmp(cmd_jstr(rec, "reason"), "None") || now_s() - start > 1;
			json_decref(rec);
			/* -I: Slurm gives up at once (or after the seconds given). */
			long long immediate = jobopt_int(o, "immediate", -1);
			if (immediate >= 0 && waiting && now_s() - start >= immediate) {
				srun_alloc_cancel(c, job_id);
				fprintf(stderr, "%s: error: Unable to allocate resources: %s\n", prog,
					herd_strerror(HERD_ERR_NODES_BUSY));
				return -1;
			}
			if (!waiting) {
				nap(0.02);
				continue;
			}
			if (!queued && !jobopt_flag(o, "quiet") && pending_line)
				fprintf(stderr, "%s: job %lld queued and waiting for resources\n", prog,
					job_id);
			queued = true;
		}
		nap(delay);
		if (delay < 1)
			delay = delay * 2 > 1 ? 1 : delay * 2;
	}
}

void srun_alloc_complete(struct cmd_client *c, const char *prog, long long job_id, int status)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	json_t *body = json_pack("{s:I, s:i}", "job_id", (json_int_t)job_id, "status", status);
	int rc = CMD_NO_REPLY;
	double start = now_s(), delay = 0.2;
	while ((rc = cmd_call(c, MSG_COMPLETE_ALLOC, body, &reply, &err)) == CMD_NO_REPLY &&
	       now_s() - start < SUBMIT_RETRY_S) {
		nap(delay);
		if (delay < 2)
			delay *= 2;
	}
	/* An allocation already gone (cancelled, timed out) is not srun's error. */
	if (rc != 0 && rc != HERD_ERR_ALREADY_DONE && rc != HERD_ERR_INVALID_JOB &&
	    rc != HERD_ERR_JOB_FINISHED)
		fprintf(stderr, "%s: error: Unable to release job allocation %lld: %s\n", prog, job_id,
			err.text);
	json_decref(reply);
	json_decref(body);
}

static void het_setenv(const char *name, long long group, const char *value)
{
	char var[128];
	snprintf(var, sizeof(var), "%s_HET_GROUP_%lld", name, group);
	setenv(var, value, 1);
	snprintf(var, sizeof(var), "%s_PACK_GROUP_%lld", name, group);   /* the older name */
	setenv(var, value, 1);
}

int srun_alloc_het_env(struct cmd_client *c, long long leader, long long *ids, int max)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *body = json_pack("{s:[I]}", "job_ids", (json_int_t)leader), *job;
	char buf[4096];
	size_t i, n = 0;

	if (cmd_call(c, MSG_JOB_INFO, body, &reply, &err) != 0) {
		json_decref(body);
		return 0;
	}
	json_decref(body);
	json_array_foreach(json_object_get(reply, "jobs"), i, job) {
		long long k = cmd_jint(job, "het_job_offset");
		json_t *alloc = json_object_get(job, "node_alloc"), *a;
		size_t m = json_array_size(alloc), j;
		if (cmd_jint(job, "het_job_id") != leader)
			continue;
		n++;
		if (k >= 0 && k < max)
			ids[k] = cmd_jint(job, "job_id");
		snprintf(buf, sizeof(buf), "%lld", cmd_jint(job, "job_id"));
		het_setenv("SLURM_JOB_ID", k, buf);
		het_setenv("SLURM_JOB_NODELIST", k, cmd_jstr(job, "nodes"));
		snprintf(buf, sizeof(buf), "%lld", cmd_jint(job, "num_nodes"));
		het_setenv("SLURM_JOB_NUM_NODES", k, buf);
		snprintf(buf, sizeof(buf), "%lld", cmd_jint(job, "num_tasks"));
		het_setenv("SLURM_NTASKS", k, buf);
		het_setenv("SLURM_NPROCS", k, buf);
		het_setenv("SLURM_JOB_PARTITION", k, cmd_jstr(job, "partition"));
		het_setenv("SLURM_JOB_NAME", k, cmd_jstr(job, "name"));
		if (*cmd_jstr(job, "account"))
			het_setenv("SLURM_JOB_ACCOUNT", k, cmd_jstr(job, "account"));
		het_setenv("SLURM_JOB_QOS", k, *cmd_jstr(job, "qos") ? cmd_jstr(job, "qos") : "normal");
		int *cpus = xmalloc((m ? m : 1) * sizeof(int));
		json_array_foreach(alloc, j, a)
			cpus[j] = (int)json_integer_value(json_array_get(a, 1));
		if (m)
			het_setenv("SLURM_JOB_CPUS_PER_NODE", k, srun_fold_counts(cpus, m, buf, sizeof(buf)));
		free(cpus);
	}
	snprintf(buf, sizeof(buf), "%zu", n);
	setenv("SLURM_HET_SIZE", buf, 1);
	setenv("SLURM_PACK_SIZE", buf, 1);
	json_decref(reply);
	return (int)n;
}

int srun_local_addr(const struct cmd_client *c, char *buf, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res = NULL;
	char port[16];
	int rc = -1;

	snprintf(port, sizeof(port), "%d", c->target.port);
	if (getaddrinfo(c->target.host, port, &hints, &res) != 0 || !res)
		return -1;
	/* A UDP "connect" sends nothing: it only picks the route, and so the
	 * source address a TCP connection to the controller would use. */
	int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, buf, len, NULL, 0, NI_NUMERICHOST) == 0)
		rc = 0;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	return rc;
}
