/* restd: the pure parts of herdrestd — URL routing, LISTEN and
 * AuthAltParameters parsing, the v0.0.38 JSON mapping and the OpenMetrics
 * page.  The Makefile links unit tests with libherd.a only, so the restd
 * sources under test are compiled into this file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/msg.h"
#include "restd/map.c"
#include "restd/metrics.c"
#include "restd/route.c"
#include "restd/submit.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *method, *path;
	int rc;
	enum restd_endpoint endpoint;
	int status;
	const char *arg;
} routes_table[] = {
	{ "GET", "/slurm/v0.0.38/ping", 0, RESTD_EP_PING, 0, "" },
	{ "HEAD", "/slurm/v0.0.38/ping", 0, RESTD_EP_PING, 0, "" },
	{ "GET", "/slurm/v0.0.38/jobs", 0, RESTD_EP_JOBS, 0, "" },
	{ "GET", "/slurm/v0.0.38/jobs/", 0, RESTD_EP_JOBS, 0, "" },
	{ "GET", "/slurm/v0.0.38/job/42", 0, RESTD_EP_JOB, 0, "42" },
	{ "GET", "/slurm/v0.0.38/job/4294967295", 0, RESTD_EP_JOB, 0, "4294967295" },
	{ "GET", "/slurm/v0.0.38/job/4294967296", -1, RESTD_EP_JOB, 400, NULL },
	{ "GET", "/slurm/v0.0.38/job/0", -1, RESTD_EP_JOB, 400, NULL },
	{ "GET", "/slurm/v0.0.38/job/12x", -1, RESTD_EP_JOB, 400, NULL },
	{ "GET", "/slurm/v0.0.38/job/", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38/job", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38/job/1/steps", -1, RESTD_EP_JOB, 404, NULL },
	{ "DELETE", "/slurm/v0.0.38/job/42", 0, RESTD_EP_JOB, 0, "42" },
	{ "POST", "/slurm/v0.0.38/job/42", -1, RESTD_EP_JOB, 405, NULL },
	{ "POST", "/slurm/v0.0.38/job/submit", 0, RESTD_EP_JOB_SUBMIT, 0, "" },
	{ "GET", "/slurm/v0.0.38/job/submit", -1, RESTD_EP_JOB_SUBMIT, 405, NULL },
	{ "DELETE", "/slurm/v0.0.38/nodes", -1, RESTD_EP_NODES, 405, NULL },
	{ "GET", "/slurm/v0.0.38/nodes", 0, RESTD_EP_NODES, 0, "" },
	{ "GET", "/slurm/v0.0.38/node/n1", 0, RESTD_EP_NODE, 0, "n1" },
	{ "GET", "/slurm/v0.0.38/node/node-01.rack_2", 0, RESTD_EP_NODE, 0, "node-01.rack_2" },
	{ "GET", "/slurm/v0.0.38/node/a%20b", -1, RESTD_EP_NODE, 400, NULL },
	{ "GET", "/slurm/v0.0.38/node/a b", -1, RESTD_EP_NODE, 400, NULL },
	{ "GET", "/slurm/v0.0.38/partitions", 0, RESTD_EP_PARTITIONS, 0, "" },
	{ "GET", "/slurm/v0.0.38/partition/debug", 0, RESTD_EP_PARTITION, 0, "debug" },
	{ "GET", "/slurm/v0.0.38/partition/x;y", -1, RESTD_EP_PARTITION, 400, NULL },
	{ "PUT", "/slurm/v0.0.38/nodes", -1, RESTD_EP_NODES, 405, NULL },
	{ "GET", "/metrics", 0, RESTD_EP_METRICS, 0, "" },
	{ "POST", "/metrics", -1, RESTD_EP_METRICS, 405, NULL },
	{ "GET", "/", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.37/jobs", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38/", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38/jobsx", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38/diag", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/slurm/v0.0.38//jobs", -1, RESTD_EP_NONE, 404, NULL },
	{ "GET", "/METRICS", -1, RESTD_EP_NONE, 404, NULL },
};

static void test_route(void **state)
{
	for (size_t i = 0; i < N(routes_table); i++) {
		struct restd_route r;
		int rc = restd_route(routes_table[i].method, routes_table[i].path, &r);
		if (rc != routes_table[i].rc || r.status != routes_table[i].status ||
		    (rc == 0 && r.endpoint != routes_table[i].endpoint))
			fail_msg("%s %s: rc %d status %d endpoint %d", routes_table[i].method,
				 routes_table[i].path, rc, r.status, r.endpoint);
		if (rc == 0)
			assert_string_equal(r.arg, routes_table[i].arg);
		else
			assert_non_null(r.error);
		if (r.status == 405)
			assert_string_equal(r.allow, r.endpoint == RESTD_EP_JOB_SUBMIT ? "POST"
					    : r.endpoint == RESTD_EP_JOB ? "GET, HEAD, DELETE" : "GET, HEAD");
	}
}

static void test_route_job_id_and_long_paths(void **state)
{
	struct restd_route r;
	char path[600];

	assert_int_equal(restd_route("GET", "/slurm/v0.0.38/job/4294967295", &r), 0);
	assert_int_equal(r.job_id, 4294967295u);
	/* A name longer than any node name, and a path longer than any route. */
	snprintf(path, sizeof(path), "/slurm/v0.0.38/node/%0100d", 7);
	assert_int_equal(restd_route("GET", path, &r), -1);
	assert_int_equal(r.status, 400);
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(restd_route("GET", path, &r), -1);
	assert_int_equal(r.status, 404);
}

static const struct {
	const char *in;
	int rc;
	const char *host;
	int port;
} listen_table[] = {
	{ "127.0.0.1:6820", 0, "127.0.0.1", 6820 },
	{ "localhost:80", 0, "localhost", 80 },
	{ ":6820", 0, "", 6820 },
	{ "[::1]:6820", 0, "::1", 6820 },
	{ "[::]:1", 0, "::", 1 },
	{ "::1:6820", -1, NULL, 0 },
	{ "6820", -1, NULL, 0 },
	{ "host:", -1, NULL, 0 },
	{ "host:0", -1, NULL, 0 },
	{ "host:65536", -1, NULL, 0 },
	{ "host:12ab", -1, NULL, 0 },
	{ "[::1]6820", -1, NULL, 0 },
	{ "[::1", -1, NULL, 0 },
	{ "unix:/tmp/sock", -1, NULL, 0 },
	{ "", -1, NULL, 0 },
};

static void test_listen_parse(void **state)
{
	for (size_t i = 0; i < N(listen_table); i++) {
		char host[64] = "unchanged";
		int port = -5;
		struct herd_error err = { "" };
		int rc = restd_listen_parse(listen_table[i].in, host, sizeof(host), &port, &err);
		if (rc != listen_table[i].rc)
			fail_msg("'%s': rc %d (%s)", listen_table[i].in, rc, err.text);
		if (rc == 0) {
			assert_string_equal(host, listen_table[i].host);
			assert_int_equal(port, listen_table[i].port);
		} else {
			assert_true(err.text[0] != '\0');
		}
	}
	char tiny[4];
	int port;
	assert_int_equal(restd_listen_parse("longhost:1", tiny, sizeof(tiny), &port, NULL), -1);
}

static void test_jwt_key_path(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "jwt_key=/etc/slurm/jwt.key", "/etc/slurm/jwt.key" },
		{ "disable_token_creation,jwt_key=/k", "/k" },
		{ "jwt_key=/k,disable_token_creation", "/k" },
		{ "JWT_KEY=/K", "/K" },
		{ "jwks=/x.json", NULL },
		{ "jwt_key=", NULL },
		{ "", NULL },
		{ NULL, NULL },
	};
	for (size_t i = 0; i < N(t); i++) {
		char *p = restd_jwt_key_path(t[i].in);
		if (!t[i].out)
			assert_null(p);
		else
			assert_string_equal(p, t[i].out);
		free(p);
	}
}

static json_t *sample_job(void)
{
	json_error_t jerr;
	json_t *j = json_loads(
		"{\"job_id\": 17, \"name\": \"train\", \"user\": \"herdu1\", \"group\": \"herdu1\","
		" \"account\": \"\", \"partition\": \"debug\", \"comment\": \"\", \"uid\": 1001,"
		" \"gid\": 1001, \"state\": \"RUNNING\", \"reason\": \"None\", \"priority\": 100,"
		" \"nodes\": \"n[1-2]\", \"batch_host\": \"n1\", \"num_nodes\": 2, \"num_cpus\": 4,"
		" \"num_tasks\": 4, \"cpus_per_task\": 1, \"mem_per_node\": 512, \"exclusive\": false,"
		" \"time_limit\": 90, \"submit_time\": 900, \"eligible_time\": 900,"
		" \"start_time\": 1000, \"end_time\": 0, \"exit_code\": 256,"
		" \"work_dir\": \"/home/herdu1\", \"std_out\": \"/home/herdu1/slurm-17.out\","
		" \"std_err\": \"/home/herdu1/slurm-17.out\", \"std_in\": \"/dev/null\","
		" \"command\": \"/home/herdu1/train.sh\", \"submit_host\": \"h\", \"restarts\": 0}",
		0, &jerr);
	assert_non_null(j);
	return j;
}

static json_int_t geti(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		fail_msg("%s is not an integer", key);
	return json_integer_value(v);
}

static const char *gets_(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		fail_msg("%s is not a string", key);
	return json_string_value(v);
}

static void test_job_v38(void **state)
{
	json_t *in = sample_job();
	json_t *j = restd_job_v38(in, "c1");

	assert_int_equal(geti(j, "job_id"), 17);
	assert_string_equal(gets_(j, "job_state"), "RUNNING");
	assert_string_equal(gets_(j, "user_name"), "herdu1");
	assert_int_equal(geti(j, "user_id"), 1001);
	assert_string_equal(gets_(j, "group_name"), "herdu1");
	assert_string_equal(gets_(j, "partition"), "debug");
	assert_string_equal(gets_(j, "nodes"), "n[1-2]");
	assert_int_equal(geti(j, "node_count"), 2);
	assert_int_equal(geti(j, "cpus"), 4);
	assert_int_equal(geti(j, "tasks"), 4);
	assert_string_equal(gets_(j, "name"), "train");
	assert_string_equal(gets_(j, "cluster"), "c1");
	assert_string_equal(gets_(j, "state_reason"), "None");
	assert_string_equal(gets_(j, "batch_host"), "n1");
	assert_string_equal(gets_(j, "standard_output"), "/home/herdu1/slurm-17.out");
	assert_string_equal(gets_(j, "standard_input"), "/dev/null");
	assert_string_equal(gets_(j, "current_working_directory"), "/home/herdu1");
	assert_string_equal(gets_(j, "command"), "/home/herdu1/train.sh");
	/* v0.0.38 counts time limits in minutes; 90 s is two started minutes. */
	assert_int_equal(geti(j, "time_limit"), 2);
	assert_int_equal(geti(j, "submit_time"), 900);
	assert_int_equal(geti(j, "start_time"), 1000);
	/* A running job's end is its expected end: start + limit. */
	assert_int_equal(geti(j, "end_time"), 1090);
	/* Raw wait status, as Slurm keeps it: exit 1 is 256. */
	assert_int_equal(geti(j, "exit_code"), 256);
	assert_int_equal(geti(j, "memory_per_node"), 512);
	assert_true(json_is_true(json_object_get(j, "batch_flag")));
	assert_true(json_is_null(json_object_get(j, "array_task_id")));
	/* a record without sbatch's later keys: their defaults */
	assert_string_equal(gets_(j, "qos"), "normal");
	assert_true(json_is_true(json_object_get(j, "requeue")));
	assert_int_equal(geti(j, "nice"), 0);
	assert_int_equal(geti(j, "time_minimum"), 0);
	json_decref(j);
	json_object_update_new(in, json_pack("{s:s, s:b, s:i, s:i, s:s, s:s, s:i, s:i}", "qos", "high",
					     "requeue", 0, "nice", 5, "time_min", 300,
					     "features", "big&fast", "req_nodelist", "n[1-2]",
					     "mem_per_cpu", 100, "ntasks_per_node", 2));
	j = restd_job_v38(in, "c1");
	assert_string_equal(gets_(j, "qos"), "high");
	assert_true(json_is_false(json_object_get(j, "requeue")));
	assert_int_equal(geti(j, "nice"), 5);
	assert_int_equal(geti(j, "time_minimum"), 5);
	assert_string_equal(gets_(j, "features"), "big&fast");
	assert_string_equal(gets_(j, "required_nodes"), "n[1-2]");
	assert_string_equal(gets_(j, "excluded_nodes"), "");
	assert_int_equal(geti(j, "memory_per_cpu"), 100);
	assert_int_equal(geti(j, "tasks_per_node"), 2);
	json_decref(j);

	/* Pending and unlimited: INFINITE minutes, no expected end. */
	json_object_set_new(in, "state", json_string("PENDING"));
	json_object_set_new(in, "time_limit", json_integer(-1));
	json_object_set_new(in, "start_time", json_integer(0));
	j = restd_job_v38(in, NULL);
	assert_int_equal(geti(j, "time_limit"), RESTD_INFINITE);
	assert_int_equal(geti(j, "end_time"), 0);
	assert_string_equal(gets_(j, "cluster"), "");
	json_decref(j);

	/* An ended job keeps its real end time. */
	json_object_set_new(in, "time_limit", json_integer(600));
	json_object_set_new(in, "start_time", json_integer(1000));
	json_object_set_new(in, "end_time", json_integer(1005));
	j = restd_job_v38(in, NULL);
	assert_int_equal(geti(j, "end_time"), 1005);
	assert_int_equal(geti(j, "time_limit"), 10);
	json_decref(j);
	json_decref(in);
}

static void test_job_missing_fields(void **state)
{
	/* A record with nothing useful, wrong types and odd array elements: no
	 * crash, defaults of the right JSON type. */
	json_t *in = json_pack("[{s:s, s:i}, i, s, {}]", "job_id", "seven", "name", 3, 5, "x");
	json_t *out = restd_jobs_v38(in, "c");
	assert_int_equal(json_array_size(out), 2);
	json_t *j = json_array_get(out, 0);
	assert_int_equal(geti(j, "job_id"), 0);
	assert_string_equal(gets_(j, "name"), "");
	assert_string_equal(gets_(j, "job_state"), "");
	assert_int_equal(geti(j, "time_limit"), 0);
	json_decref(out);
	json_decref(in);
	out = restd_jobs_v38(NULL, NULL);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
}

static void test_node_v38(void **state)
{
	json_t *in = json_pack("{s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:s, s:i, s:i, s:i, s:i, s:i,"
			       " s:i, s:i, s:i, s:[s,s], s:s, s:s, s:s}",
			       "name", "n1", "addr", "10.0.0.1", "hostname", "host1", "port", 6818,
			       "state", "MIXED", "drain", 1, "not_responding", 1, "reason", "bad fan",
			       "cpus", 8, "alloc_cpus", 3, "sockets", 2, "cores", 2, "threads", 2,
			       "boards", 1, "real_memory", 4096, "alloc_mem", 1024,
			       "partitions", "debug", "batch", "arch", "x86_64", "os", "Linux",
			       "version", "22.05.8");
	json_t *n = restd_node_v38(in);

	assert_string_equal(gets_(n, "name"), "n1");
	assert_string_equal(gets_(n, "address"), "10.0.0.1");
	assert_string_equal(gets_(n, "hostname"), "host1");
	assert_string_equal(gets_(n, "state"), "mixed");
	json_t *flags = json_object_get(n, "state_flags");
	assert_int_equal(json_array_size(flags), 2);
	assert_string_equal(json_string_value(json_array_get(flags, 0)), "DRAIN");
	assert_string_equal(json_string_value(json_array_get(flags, 1)), "NOT_RESPONDING");
	assert_int_equal(geti(n, "cpus"), 8);
	assert_int_equal(geti(n, "alloc_cpus"), 3);
	assert_int_equal(geti(n, "idle_cpus"), 5);
	assert_int_equal(geti(n, "real_memory"), 4096);
	assert_int_equal(geti(n, "alloc_memory"), 1024);
	assert_int_equal(geti(n, "port"), 6818);
	assert_string_equal(gets_(n, "reason"), "bad fan");
	assert_string_equal(gets_(n, "architecture"), "x86_64");
	assert_string_equal(gets_(n, "operating_system"), "Linux");
	assert_int_equal(json_array_size(json_object_get(n, "partitions")), 2);
	assert_string_equal(gets_(n, "gres"), "");   /* none declared */
	json_decref(n);
	json_object_set_new(in, "gres", json_string("gpu:h100:2(S:0-1)"));
	json_object_set_new(in, "gres_used", json_string("gpu:h100:0(IDX:N/A)"));
	n = restd_node_v38(in);
	assert_string_equal(gets_(n, "gres"), "gpu:h100:2(S:0-1)");
	assert_string_equal(gets_(n, "gres_used"), "gpu:h100:0(IDX:N/A)");
	assert_string_equal(gets_(n, "gres_drained"), "N/A");
	json_decref(n);

	/* Over-allocated (a reconfigured node) never shows negative idle CPUs. */
	json_object_set_new(in, "alloc_cpus", json_integer(9));
	json_object_set_new(in, "drain", json_false());
	json_object_set_new(in, "not_responding", json_false());
	n = restd_node_v38(in);
	assert_int_equal(geti(n, "idle_cpus"), 0);
	assert_int_equal(json_array_size(json_object_get(n, "state_flags")), 0);
	json_decref(n);
	json_decref(in);
}

static void test_partition_v38(void **state)
{
	json_t *in = json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I}",
			       "name", "debug", "nodes", "n[1-4]", "state", "UP", "oversubscribe", "NO",
			       "default", 1, "total_nodes", 4, "total_cpus", 8, "max_nodes", -1,
			       "min_nodes", 0, "priority_tier", 1, "priority_job_factor", 1,
			       "max_time", (json_int_t)-1, "default_time", (json_int_t)-1);
	json_t *p = restd_partition_v38(in);

	assert_string_equal(gets_(p, "name"), "debug");
	assert_string_equal(gets_(p, "nodes"), "n[1-4]");
	assert_string_equal(gets_(p, "state"), "UP");
	assert_int_equal(geti(p, "total_nodes"), 4);
	assert_int_equal(geti(p, "total_cpus"), 8);
	assert_int_equal(geti(p, "maximum_nodes_per_job"), RESTD_INFINITE);
	assert_int_equal(geti(p, "max_time_limit"), RESTD_INFINITE);
	assert_int_equal(geti(p, "default_time_limit"), RESTD_NO_VAL);
	json_t *flags = json_object_get(p, "flags");
	assert_int_equal(json_array_size(flags), 1);
	assert_string_equal(json_string_value(json_array_get(flags, 0)), "default");
	json_decref(p);

	json_object_set_new(in, "default", json_false());
	json_object_set_new(in, "max_time", json_integer(3600));
	json_object_set_new(in, "default_time", json_integer(61));
	json_object_set_new(in, "max_nodes", json_integer(2));
	p = restd_partition_v38(in);
	assert_int_equal(geti(p, "max_time_limit"), 60);
	assert_int_equal(geti(p, "default_time_limit"), 2);
	assert_int_equal(geti(p, "maximum_nodes_per_job"), 2);
	assert_int_equal(json_array_size(json_object_get(p, "flags")), 0);
	json_decref(p);
	json_decref(in);
}

static void test_envelope_and_errors(void **state)
{
	json_t *errors = json_array();
	json_array_append_new(errors, restd_error(HERD_ERR_INVALID_JOB, NULL, "herdrestd"));
	json_t *o = restd_envelope("jobs", NULL, errors);

	json_t *meta = json_object_get(o, "meta");
	assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "plugin"), "type")),
			    "openapi/v0.0.38");
	json_t *ver = json_object_get(json_object_get(meta, "Slurm"), "version");
	assert_int_equal(geti(ver, "major"), 22);
	assert_int_equal(geti(ver, "minor"), 5);
	assert_int_equal(json_array_size(json_object_get(o, "jobs")), 0);
	json_t *e = json_array_get(json_object_get(o, "errors"), 0);
	assert_string_equal(gets_(e, "error"), "Invalid job id specified");
	assert_int_equal(geti(e, "error_number"), 2017);
	assert_string_equal(gets_(e, "source"), "herdrestd");
	json_decref(o);

	/* No key: only meta and errors. */
	o = restd_envelope(NULL, json_array(), NULL);
	assert_int_equal(json_object_size(o), 2);
	assert_int_equal(json_array_size(json_object_get(o, "errors")), 0);
	json_decref(o);

	e = restd_error(HERD_ERR_AUTH, "token expired", NULL);
	assert_string_equal(gets_(e, "error"), "token expired");
	assert_null(json_object_get(e, "source"));
	json_decref(e);
}

static void test_ping_and_status(void **state)
{
	json_t *reply = json_pack("{s:i, s:s, s:s, s:i}", "rc", 0, "cluster", "c", "controller", "ctl1",
				  "time", 5);
	json_t *p = restd_ping_v38(reply, "fallback");
	assert_string_equal(gets_(p, "ping"), "UP");
	assert_string_equal(gets_(p, "hostname"), "ctl1");
	assert_int_equal(geti(p, "status"), 0);
	json_decref(p);
	json_decref(reply);
	p = restd_ping_v38(NULL, "ctl0");
	assert_string_equal(gets_(p, "ping"), "DOWN");
	assert_string_equal(gets_(p, "hostname"), "ctl0");
	assert_int_not_equal(geti(p, "status"), 0);
	json_decref(p);

	assert_int_equal(restd_http_status(0), 200);
	assert_int_equal(restd_http_status(HERD_ERR_INVALID_JOB), 404);
	assert_int_equal(restd_http_status(HERD_ERR_INVALID_NODE), 404);
	assert_int_equal(restd_http_status(HERD_ERR_INVALID_PARTITION), 404);
	assert_int_equal(restd_http_status(HERD_ERR_ACCESS), 403);
	assert_int_equal(restd_http_status(HERD_ERR_AUTH), 401);
	assert_int_equal(restd_http_status(HERD_ERR_INTERNAL), 500);
	assert_int_equal(restd_minutes(0), 0);
	assert_int_equal(restd_minutes(1), 1);
	assert_int_equal(restd_minutes(60), 1);
	assert_int_equal(restd_minutes(61), 2);
	assert_int_equal(restd_minutes(-1), RESTD_INFINITE);
}

/* The value of one sample line "name{labels} value" in page, or -1. */
static long sample(const char *page, const char *series)
{
	size_t n = strlen(series);
	for (const char *p = page; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

static void test_metrics(void **state)
{
	/* JOB_COUNTS's "jobs": a count per state name */
	json_t *jobs = json_pack("{s:i, s:i, s:i, s:i, s:s}", "PENDING", 2, "RUNNING", 1,
				 "NO_SUCH_STATE", 3, "COMPLETED", -5, "FAILED", "x");
	json_t *nodes = json_pack("[{s:s, s:i, s:i, s:i, s:i}, {s:s, s:i, s:i, s:b, s:b}]",
				  "state", "IDLE", "cpus", 4, "alloc_cpus", 0, "real_memory", 1000,
				  "alloc_mem", 0,
				  "state", "MIXED", "cpus", 8, "alloc_cpus", 3, "drain", 1,
				  "not_responding", 0);
	char *page = restd_metrics_render(jobs, nodes);

	assert_int_equal(sample(page, "herd_jobs{state=\"pending\"}"), 2);
	assert_int_equal(sample(page, "herd_jobs{state=\"running\"}"), 1);
	assert_int_equal(sample(page, "herd_jobs{state=\"completed\"}"), 0);
	assert_int_equal(sample(page, "herd_jobs{state=\"out_of_memory\"}"), 0);
	assert_int_equal(sample(page, "herd_jobs{state=\"no_such_state\"}"), -1);
	assert_int_equal(sample(page, "herd_nodes{state=\"idle\"}"), 1);
	assert_int_equal(sample(page, "herd_nodes{state=\"mixed\"}"), 1);
	assert_int_equal(sample(page, "herd_nodes{state=\"down\"}"), 0);
	assert_int_equal(sample(page, "herd_nodes_drain"), 1);
	assert_int_equal(sample(page, "herd_nodes_not_responding"), 0);
	assert_int_equal(sample(page, "herd_cpus_total"), 12);
	assert_int_equal(sample(page, "herd_cpus_alloc"), 3);
	assert_int_equal(sample(page, "herd_memory_total_megabytes"), 1000);

	/* OpenMetrics: each family's TYPE and HELP come before its samples, and
	 * the page ends with exactly one "# EOF". */
	static const char *const families[] = { "herd_jobs", "herd_nodes", "herd_nodes_drain",
		"herd_cpus_total", "herd_cpus_alloc" };
	for (size_t i = 0; i < N(families); i++) {
		char type[64], help[64], first[64];
		snprintf(type, sizeof(type), "# TYPE %s gauge\n", families[i]);
		snprintf(help, sizeof(help), "# HELP %s ", families[i]);
		snprintf(first, sizeof(first), "\n%s", families[i]);
		const char *t = strstr(page, type), *h = strstr(page, help);
		const char *s = strstr(page, first);
		while (s && s[1 + strlen(families[i])] != '{' && s[1 + strlen(families[i])] != ' ')
			s = strstr(s + 1, first);
		assert_non_null(t);
		assert_non_null(h);
		assert_non_null(s);
		assert_true(t < s && h < s);
	}
	size_t len = strlen(page);
	assert_true(len > 6 && !strcmp(page + len - 6, "# EOF\n"));
	assert_ptr_equal(strstr(page, "# EOF"), page + len - 6);
	free(page);

	/* Nothing known: every series present, at zero. */
	page = restd_metrics_render(NULL, NULL);
	assert_int_equal(sample(page, "herd_jobs{state=\"pending\"}"), 0);
	assert_int_equal(sample(page, "herd_nodes{state=\"idle\"}"), 0);
	assert_int_equal(sample(page, "herd_cpus_total"), 0);
	free(page);
	json_decref(jobs);
	json_decref(nodes);
}

static json_t *submit_of(const char *text, struct herd_error *err)
{
	json_t *in = json_loads(text, 0, NULL), *out;
	assert_non_null(in);
	out = restd_submit_body(in, "login1", err);
	json_decref(in);
	return out;
}

static void test_submit_body(void **state)
{
	struct herd_error err;
	json_t *b = submit_of("{\"script\": \"#!/bin/sh\\ntrue\\n\", \"job\": {\"name\": \"j\","
			      " \"current_working_directory\": \"/home/a\", \"environment\": {\"A\": \"1\"},"
			      " \"nodes\": \"2\", \"tasks\": 4, \"time_limit\": 5, \"hold\": true,"
			      " \"memory_per_cpu\": 100, \"argv\": [\"x\"]}}", &err);
	assert_non_null(b);
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, b, &err), 0);   /* what the controller takes */
	json_t *job = json_object_get(b, "job");
	assert_string_equal(gets_(job, "name"), "j");
	assert_string_equal(gets_(job, "cwd"), "/home/a");
	assert_string_equal(gets_(job, "submit_host"), "login1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(job, "env"), 0)), "A=1");
	assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 2);
	assert_int_equal(json_integer_value(json_object_get(job, "ntasks")), 4);
	assert_int_equal(json_integer_value(json_object_get(job, "time_limit")), 300);
	assert_int_equal(json_integer_value(json_object_get(job, "mem_per_cpu")), 100);
	assert_true(json_is_true(json_object_get(job, "hold")));
	json_decref(b);

	/* No limit given: the partition's default; environment as an array. */
	b = submit_of("{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\","
		      " \"environment\": [\"PATH=/bin\"]}}", &err);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "job"), "time_limit")),
			 TIME_NOT_GIVEN);
	json_decref(b);

	static const struct {
		const char *body, *why;
	} bad[] = {
		{ "{\"job\": {\"current_working_directory\": \"/\"}}", "script" },
		{ "{\"script\": \"echo\", \"job\": {\"current_working_directory\": \"/\"}}", "#!" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {}}", "absolute" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"rel\"}}", "absolute" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"qos\": \"x\"}}", "job.qos" },
		{ "{\"script\": \"#!/bin/sh\", \"jobs\": [], \"job\": {}}", "jobs" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"tasks\": -1}}", "job.tasks" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"nodes\": \"1-2\"}}", "job.nodes" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"environment\": {\"A\": 1}}}", "environment" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"environment\": [\"noequals\"]}}", "environment" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"argv\": [1]}}", "argv" },
		{ "{\"script\": \"#!/bin/sh\", \"job\": {\"current_working_directory\": \"/\", \"hold\": 1}}", "hold" },
		{ "{\"script\": 5, \"job\": {\"current_working_directory\": \"/\"}}", "script" },
		{ "[]", "object" },
	};
	for (size_t i = 0; i < N(bad); i++) {
		err.text[0] = '\0';
		b = submit_of(bad[i].body, &err);
		if (b || !strstr(err.text, bad[i].why))
			fail_msg("%s: %s", bad[i].body, err.text);
	}
}

static void test_auth_alt(void **state)
{
	static const struct {
		const char *params, *name, *value;
	} t[] = {
		{ "jwt_key=/k,restd_user=a:b", "restd_user", "a:b" },
		{ "jwt_key=/k, disable_token_creation ", "disable_token_creation", "" },
		{ "jwt_key=/k", "disable_token_creation", NULL },
		{ "jwt_keyx=/k", "jwt_key", NULL },
		{ "jwt_key", "jwt_key", "" },
		{ NULL, "jwt_key", NULL },
	};
	for (size_t i = 0; i < N(t); i++) {
		char *v = auth_alt_param(t[i].params, t[i].name);
		if (!t[i].value)
			assert_null(v);
		else
			assert_string_equal(v, t[i].value);
		free(v);
	}
	assert_true(auth_alt_jwt("auth/jwt"));
	assert_true(auth_alt_jwt("auth/munge, auth/jwt"));
	assert_false(auth_alt_jwt("auth/jwtx"));
	assert_false(auth_alt_jwt(""));
	assert_false(auth_alt_jwt(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_route_job_id_and_long_paths),
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_jwt_key_path),
		cmocka_unit_test(test_job_v38),
		cmocka_unit_test(test_job_missing_fields),
		cmocka_unit_test(test_node_v38),
		cmocka_unit_test(test_partition_v38),
		cmocka_unit_test(test_envelope_and_errors),
		cmocka_unit_test(test_ping_and_status),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_submit_body),
		cmocka_unit_test(test_auth_alt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
