/* Allocations for srun and salloc (srun_alloc.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static void make_key(char *key, size_t size)
{
	unsigned char raw[16];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		snprintf(key, size, "%lx-%lx", (long)time(NULL), (long)getpid());
		return;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(key + 2 * i, size - 2 * i, "%02x", raw[i]);
}

json_t *srun_alloc_body(const struct srun_opts *o, const char *name, char *const *env,
			const char *cwd)
{
	char host[256] = "", key[64];
	long nodes = o->nodes, ntasks = o->ntasks;
	gethostname(host, sizeof(host) - 1);
	mode_t mask = umask(0);
	umask(mask);
	make_key(key, sizeof(key));
	/* --ntasks-per-node as sbatch turns it into counts (sbatch(1)) */
	if (o->ntasks_per_node > 0) {
		if (!ntasks)
			ntasks = (nodes ? nodes : 1) * o->ntasks_per_node;
		else if (!nodes)
			nodes = (ntasks + o->ntasks_per_node - 1) / o->ntasks_per_node;
	}
	json_t *job = json_pack("{s:s, s:s, s:[], s:o, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I,"
				" s:I, s:b, s:I, s:b, s:s, s:I, s:s, s:s, s:b}",
				"name", name, "script", "", "argv", "env", strv_json(env),
				"cwd", cwd, "stdout", "", "stderr", "", "stdin", "",
				"partition", o->partition ? o->partition : "",
				"nodes", (json_int_t)nodes, "ntasks", (json_int_t)ntasks,
				"cpus_per_task", (json_int_t)o->cpus_per_task,
				"mem_mb", (json_int_t)o->mem_mb, "exclusive", o->exclusive,
				"time_limit", (json_int_t)o->time_limit, "hold", o->hold,
				"submit_host", host, "umask", (json_int_t)mask,
				"account", o->account ? o->account : "",
				"comment", o->comment ? o->comment : "", "alloc", 1);
	if (!job)
		return NULL;
	const struct {
		const char *key, *value;
	} strs[] = {
		{ "qos", o->qos }, { "constraint", o->constraint }, { "req_nodelist", o->nodelist },
		{ "exc_nodelist", o->exclude }, { "reservation", o->reservation },
		{ "container", o->container },
		{ "mail_type", o->mail_type }, { "mail_user", o->mail_user },
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i].value && json_object_set_new(job, strs[i].key, json_string(strs[i].value))) {
			json_decref(job);
			return NULL;
		}
	if (o->mem_per_cpu)
		json_object_set_new(job, "mem_per_cpu", json_integer((json_int_t)o->mem_per_cpu));
	if (o->ntasks_per_node)
		json_object_set_new(job, "ntasks_per_node", json_integer(o->ntasks_per_node));
	if (o->begin)
		json_object_set_new(job, "begin_time", json_integer(o->begin));
	if (o->signal) {
		char flag[2] = { o->signal_flag, 0 };
		json_object_set_new(job, "signal", json_integer(o->signal));
		json_object_set_new(job, "signal_time", json_integer(o->signal_time));
		json_object_set_new(job, "signal_flags", json_string(flag));
	}
	return json_pack("{s:s, s:o}", "key", key, "job", job);
}

/* STEPSPEC (src/common/msg.c): 0 / "" for what was not given, so the
 * controller fills the job's defaults. */
json_t *srun_step_body(const struct srun_opts *o, const char *name, char *const *env,
		       const char *cwd, const char *host, int io_port, const char *io_key,
		       char *const *multi_prog)
{
	int64_t limit = o->time_limit == TIME_NOT_GIVEN ? 0 : o->time_limit;
	json_t *argv = json_array();
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(argv, json_string(o->argv[i]));
	json_t *step = json_pack(
		"{s:s, s:o, s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:b, s:b, s:b, s:s, s:s,"
		" s:I, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:b, s:s, s:i, s:i, s:s, s:i}",
		"name", name, "argv", argv, "env", strv_json(env), "cwd", cwd,
		"num_nodes", (json_int_t)o->nodes, "num_tasks", (json_int_t)o->ntasks,
		"cpus_per_task", (json_int_t)o->cpus_per_task,
		"ntasks_per_node", (json_int_t)o->ntasks_per_node,
		"mem_mb", (json_int_t)o->mem_mb, "mem_per_cpu", (json_int_t)o->mem_per_cpu,
		"distribution", o->distribution ? o->distribution : "",
		"overlap", o->overlap, "exact", o->exact, "exclusive", o->exclusive,
		"req_nodelist", o->nodelist ? o->nodelist : "",
		"exc_nodelist", o->exclude ? o->exclude : "",
		"time_limit", (json_int_t)limit, "cpu_bind", o->cpu_bind ? o->cpu_bind : "",
		"io_host", host, "io_port", io_port, "io_key", io_key,
		"stdout", o->output ? o->output : "", "stderr", o->error ? o->error : "",
		"stdin", o->input ? o->input : "", "stdin_task", o->stdin_task, "pty", o->pty,
		"mpi", o->mpi ? o->mpi : "", "signal", o->signal, "signal_time", o->signal_time,
		"launch_addr", host, "srun_pid", (int)getpid());
	if (step && multi_prog)
		json_object_set_new(step, "multi_prog", strv_json(multi_prog));
	if (step && o->container && *o->container)
		json_object_set_new(step, "container", json_string(o->container));
	return step;
}

int srun_alloc_submit(struct cmd_client *c, const char *prog, const struct srun_opts *o,
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
		if (rc == HERD_ERR_INVALID_PARTITION && o->partition)
			fprintf(stderr, "%s: error: invalid partition specified: %s\n", prog, o->partition);
		/* srun(1) and salloc(1) word it differently */
		fprintf(stderr, "%s: error: %s: %s\n", prog,
			strcmp(prog, "salloc") ? "Unable to allocate resources" : "Job submit/allocate failed",
			err.text);
		return -1;
	}
	*job_id = cmd_jint(reply, "job_id");
	json_decref(reply);
	return 0;
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

int srun_alloc_wait(struct cmd_client *c, const char *prog, const struct srun_opts *o,
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
				if (queued && !o->quiet)
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
			if (o->immediate >= 0 && waiting && now_s() - start >= o->immediate) {
				srun_alloc_cancel(c, job_id);
				fprintf(stderr, "%s: error: Unable to allocate resources: %s\n", prog,
					herd_strerror(HERD_ERR_NODES_BUSY));
				return -1;
			}
			if (!waiting) {
				nap(0.02);
				continue;
			}
			if (!queued && !o->quiet && pending_line)
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
