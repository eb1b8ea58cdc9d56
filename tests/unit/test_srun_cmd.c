/* The srun and salloc programs from start to end against a controller
 * stand-in (a real net_server on a private munged, answering SUBMIT_JOB,
 * JOB_INFO, STEP_CREATE, STEP_INFO and COMPLETE_ALLOC as doc/protocol.md and
 * doc/steps.md say the controller does) and a herdstepd stand-in that
 * connects to srun's I/O port with the key STEP_CREATE carried: the waiting
 * and busy lines, the step body srun sends, its output and error lines, its
 * exit code, and the status srun and salloc give the allocation back with.
 * The cluster tests (tests/cluster/test_srun.py, test_salloc.py) run the
 * same commands against the real daemons. */
#include <libgen.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "munged.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/stepio.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

static uv_loop_t loop;
static uv_async_t stop_async;
static struct net_server *srv;
static pthread_t loop_thread;
static int port;
static char conf_path[300];
static char bindir[512];

/* what the stand-in saw */
static int job_info_calls, step_create_calls;
static json_t *submitted, *step_body;
static int complete_status = -1;
static const char *step_stdout = "hi\n";
static int step_status = 2 << 8;
static bool pending_forever;
static int job_ends_after;   /* JOB_INFO calls after which job 7 is CANCELLED, 0 = never */
static bool stepd_dies;                  /* the stand-in herdstepd goes after HELLO */
static const char *step_state = "RUNNING";   /* what STEP_INFO says */
static int cancelled = -1;   /* the signal of a CANCEL_JOB of job 7 */

static void *stepd(void *arg)
{
	json_t *step = arg;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((int)json_integer_value(json_object_get(step, "io_port"))) };
	inet_pton(AF_INET, json_string_value(json_object_get(step, "io_host")), &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return NULL;
	struct strbuf sb = { 0 };
	char *hello = xasprintf("{\"key\":\"%s\",\"job_id\":7,\"step_id\":0,\"node\":\"n1\","
				"\"node_id\":0,\"tasks\":[0]}",
				json_string_value(json_object_get(step, "io_key")));
	char *exit_msg = xasprintf("{\"status\":%d}", step_status);
	stepio_encode(&sb, STEPIO_HELLO, STEPIO_ALL_TASKS, hello, strlen(hello));
	if (stepd_dies) {
		if (write(fd, sb.s, sb.len) < 0)
			perror("write");
		usleep(200000);
		close(fd);
		free(sb.s);
		free(hello);
		free(exit_msg);
		json_decref(step);
		return NULL;
	}
	stepio_encode(&sb, STEPIO_STDOUT, 0, step_stdout, strlen(step_stdout));
	stepio_encode(&sb, STEPIO_EXIT, 0, exit_msg, strlen(exit_msg));
	stepio_encode(&sb, STEPIO_DONE, STEPIO_ALL_TASKS, "{\"oom\":false}", 13);
	for (size_t off = 0; off < sb.len;) {
		ssize_t w = write(fd, sb.s + off, sb.len - off);
		if (w <= 0)
			break;
		off += w;
	}
	/* stay until srun closes, as herdstepd does */
	char buf[256];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	free(sb.s);
	free(hello);
	free(exit_msg);
	json_decref(step);
	return NULL;
}

static void handler(struct net_req *req, void *arg)
{
	switch (req->type) {
	case MSG_SUBMIT_JOB:
		json_decref(submitted);
		submitted = json_incref(req->body);
		job_info_calls = 0;
		net_respond(req, 0, json_pack("{s:i}", "job_id", 7), NULL);
		return;
	case MSG_JOB_INFO:
		/* pending (the scheduler has looked: Resources) twice, then running */
		if (job_ends_after && job_info_calls >= job_ends_after) {
			net_respond(req, 0, json_pack("{s:[{s:i, s:s, s:s}], s:i}", "jobs", "job_id", 7,
						      "state", "CANCELLED", "reason", "None", "time", 0),
				    NULL);
			return;
		}
		if (job_info_calls++ < 2 || pending_forever) {
			net_respond(req, 0, json_pack("{s:[{s:i, s:s, s:s, s:s}], s:i}", "jobs", "job_id", 7,
						      "state", "PENDING", "reason", "Resources",
						      "nodes", "", "time", 0), NULL);
			return;
		}
		net_respond(req, 0, json_pack("{s:[{s:i, s:s, s:s, s:s, s:i, s:i, s:s, s:s,"
					      " s:[[s,i,i]]}], s:i}", "jobs", "job_id", 7,
					      "state", "RUNNING", "reason", "None", "nodes", "n1",
					      "num_nodes", 1, "num_cpus", 2, "partition", "p",
					      "name", "prog", "node_alloc", "n1", 2, 100, "time", 0),
			    NULL);
		return;
	case MSG_STEP_CREATE:
		if (step_create_calls++ == 0) {
			net_respond(req, HERD_ERR_NODES_BUSY, NULL, NULL);
			return;
		}
		json_decref(step_body);
		step_body = json_incref(json_object_get(req->body, "step"));
		pthread_t t;
		pthread_create(&t, NULL, stepd, json_incref(step_body));
		pthread_detach(t);
		net_respond(req, 0, json_pack("{s:i, s:s, s:i, s:i, s:[s], s:s, s:[[i]], s:[i]}",
					      "step_id", 0, "nodes", "n1", "num_nodes", 1,
					      "num_tasks", 1, "node_names", "n1",
					      "tasks_per_node", "1", "task_ids", 0,
					      "cpus_per_node", 1), NULL);
		return;
	case MSG_STEP_INFO:
		net_respond(req, 0, json_pack("{s:[{s:i, s:i, s:s, s:s}], s:i}", "steps", "job_id", 7,
					      "step_id", 0, "state", step_state, "failed_node",
					      strcmp(step_state, "NODE_FAIL") ? "" : "n1", "time", 0),
			    NULL);
		return;
	case MSG_CANCEL_JOB:
		if (json_integer_value(json_object_get(req->body, "job_id")) == 7)
			cancelled = (int)json_integer_value(json_object_get(req->body, "signal"));
		net_respond(req, 0, NULL, NULL);
		return;
	case MSG_COMPLETE_ALLOC:
		complete_status = (int)json_integer_value(json_object_get(req->body, "status"));
		net_respond(req, 0, NULL, NULL);
		return;
	default:
		net_respond(req, HERD_ERR_UNKNOWN_TYPE, NULL, NULL);
	}
}

static void on_stop(uv_async_t *a)
{
	net_server_stop(srv);
	uv_close((uv_handle_t *)a, NULL);
}

static void *run_loop(void *arg)
{
	uv_run(&loop, UV_RUN_DEFAULT);
	return NULL;
}

static int setup(void **state)
{
	struct herd_error err;
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	/* $(B)/tests/test_srun_cmd -> $(B)/bin */
	snprintf(bindir, sizeof(bindir), "%s/bin", dirname(dirname(exe)));
	if (start_munged(state) < 0)
		return -1;
	uv_loop_init(&loop);
	port = net_free_port();
	struct net_server_opts o = { .host = "127.0.0.1", .port = port, .dest = "t:ctld",
				     .munge_socket = sock, .handler = handler };
	if (!(srv = net_server_start(&loop, &o, &err)))
		return -1;
	uv_async_init(&loop, &stop_async, on_stop);
	snprintf(conf_path, sizeof(conf_path), "%s/herd.conf", dir);
	FILE *f = fopen(conf_path, "w");
	fprintf(f, "ClusterName=t\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=%d\n"
		"AuthInfo=socket=%s\nKillWait=1\nStateSaveLocation=%s/state\n"
		"NodeName=n1 NodeAddr=127.0.0.1 Port=1 CPUs=2 RealMemory=100\n"
		"PartitionName=p Nodes=ALL Default=YES State=UP\n", port, sock, dir);
	fclose(f);
	setenv("HERD_CONF", conf_path, 1);
	return pthread_create(&loop_thread, NULL, run_loop, NULL);
}

static int teardown(void **state)
{
	uv_async_send(&stop_async);
	pthread_join(loop_thread, NULL);
	uv_loop_close(&loop);
	json_decref(submitted);
	json_decref(step_body);
	return stop_munged(state);
}

/* Run a command line under sh; its exit code, stdout and stderr. */
static int run(const char *cmd, char **out, char **err)
{
	char *line = xasprintf("cd %s && { %s; } >%s/out 2>%s/err </dev/null", dir, cmd, dir, dir);
	int st = system(line);
	free(line);
	char path[400];
	char **dst[2] = { out, err };
	const char *names[2] = { "out", "err" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "r");
		char buf[8192];
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		buf[n] = '\0';
		if (f)
			fclose(f);
		*dst[i] = xstrdup(buf);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_srun_own_allocation(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("%s/srun -n1 -l prog arg", bindir);
	complete_status = -1;
	step_create_calls = 0;
	int rc = run(cmd, &out, &err);
	free(cmd);
	if (rc != 2)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_string_equal(out, "0: hi\n");
	assert_non_null(strstr(err, "srun: job 7 queued and waiting for resources\n"));
	assert_non_null(strstr(err, "srun: job 7 has been allocated resources\n"));
	assert_non_null(strstr(err, "srun: Job 7 step creation temporarily disabled, retrying "
			       "(Requested nodes are busy)\n"));
	assert_non_null(strstr(err, "srun: Step created for job 7\n"));
	assert_non_null(strstr(err, "srun: error: n1: task 0: Exited with exit code 2\n"));
	/* the allocation: no script, alloc, the command's name */
	json_t *job = json_object_get(submitted, "job");
	assert_true(json_is_true(json_object_get(job, "alloc")));
	assert_string_equal(json_string_value(json_object_get(job, "script")), "");
	assert_string_equal(json_string_value(json_object_get(job, "name")), "prog");
	assert_int_equal(json_integer_value(json_object_get(job, "ntasks")), 1);
	/* the step: the command, 1 task, the key srun made, and given back
	 * with srun's exit status as a wait status */
	assert_string_equal(json_string_value(json_array_get(json_object_get(step_body, "argv"), 1)),
			    "arg");
	assert_int_equal(json_integer_value(json_object_get(step_body, "num_tasks")), 1);
	assert_int_equal(strlen(json_string_value(json_object_get(step_body, "io_key"))), 32);
	assert_int_equal(complete_status, 2 << 8);
	free(out);
	free(err);
}

static void test_srun_inside_a_job(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("SLURM_JOB_ID=7 %s/srun -n1 prog", bindir);
	complete_status = -1;
	step_create_calls = 1;   /* not busy this time */
	json_decref(submitted);
	submitted = NULL;
	step_status = 0;
	int rc = run(cmd, &out, &err);
	free(cmd);
	step_status = 2 << 8;
	if (rc != 0)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_string_equal(out, "hi\n");
	assert_string_equal(err, "");
	assert_null(submitted);            /* no allocation asked */
	assert_int_equal(complete_status, -1);   /* nor given back */
	free(out);
	free(err);
}

static void test_salloc(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("%s/salloc -N1 sh -c 'echo $SLURM_JOB_ID $SLURM_JOB_NODELIST "
			      "$SLURM_NNODES $SLURM_TASKS_PER_NODE $SLURM_JOB_CPUS_PER_NODE "
			      "$SLURM_CLUSTER_NAME; exit 4'", bindir);
	complete_status = -1;
	int rc = run(cmd, &out, &err);
	free(cmd);
	if (rc != 4)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_string_equal(out, "7 n1 1 1 2 t\n");
	assert_string_equal(err, "salloc: Pending job allocation 7\n"
				 "salloc: job 7 queued and waiting for resources\n"
				 "salloc: job 7 has been allocated resources\n"
				 "salloc: Granted job allocation 7\n"
				 "salloc: Relinquishing job allocation 7\n");
	assert_int_equal(complete_status, 4 << 8);
	json_t *job = json_object_get(submitted, "job");
	assert_true(json_is_true(json_object_get(job, "alloc")));
	assert_string_equal(json_string_value(json_object_get(job, "name")), "sh");
	assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 1);
	free(out);
	free(err);
}

/* Ctrl-C while the allocation is pending: the job is cancelled, srun says
 * it was revoked and exits 1, with nothing to give back. */
static void test_interrupt_while_pending(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("%s/srun -n1 prog & p=$!; sleep 1; kill -INT $p; wait $p", bindir);
	pending_forever = true;
	cancelled = -1;
	complete_status = -1;
	int rc = run(cmd, &out, &err);
	free(cmd);
	pending_forever = false;
	if (rc != 1)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_string_equal(err, "srun: job 7 queued and waiting for resources\n"
				 "srun: Job allocation 7 has been revoked.\n");
	assert_int_equal(cancelled, 0);
	assert_int_equal(complete_status, -1);
	free(out);
	free(err);
}

/* The node's herdstepd goes away and the controller ends the step
 * NODE_FAIL: Slurm's lines, the task counted as killed. */
static void test_node_failure(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("SLURM_JOB_ID=7 %s/srun -n1 prog", bindir);
	step_create_calls = 1;
	stepd_dies = true;
	step_state = "NODE_FAIL";
	int rc = run(cmd, &out, &err);
	free(cmd);
	stepd_dies = false;
	step_state = "RUNNING";
	if (rc != 137)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_string_equal(err, "srun: error: Node failure on n1\n"
				 "srun: Job step aborted: Waiting up to 3 seconds for job step to "
				 "finish.\n"
				 "srun: error: n1: task 0: Killed\n");
	free(out);
	free(err);
}

/* scancel while salloc's command runs: salloc says so, signals the
 * command (SIGTERM: no terminal here), exits with its status, and has
 * nothing to give back. */
static void test_salloc_revoked(void **state)
{
	char *out, *err;
	char *cmd = xasprintf("%s/salloc -N1 sleep 60", bindir);
	complete_status = -1;
	job_ends_after = 4;   /* 2 pending, 1 running at the grant, 1 more while it runs */
	int rc = run(cmd, &out, &err);
	free(cmd);
	job_ends_after = 0;
	if (rc != 128 + SIGTERM)
		fail_msg("rc %d, stdout '%s', stderr '%s'", rc, out, err);
	assert_non_null(strstr(err, "salloc: Granted job allocation 7\n"
				    "salloc: Job allocation 7 has been revoked.\n"));
	assert_null(strstr(err, "Relinquishing"));
	assert_int_equal(complete_status, -1);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_srun_own_allocation),
		cmocka_unit_test(test_srun_inside_a_job),
		cmocka_unit_test(test_salloc),
		cmocka_unit_test(test_interrupt_while_pending),
		cmocka_unit_test(test_node_failure),
		cmocka_unit_test(test_salloc_revoked),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
