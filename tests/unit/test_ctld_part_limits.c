/* ctld/part_limits.c over partitions and jobs made in memory: the pending
 * reason of each partition limit (table), what EnforcePartLimits refuses at
 * submission and with which rc (one partition and several), AllowGroups in
 * every mode, MinNodes for a job without -N, QOS flags that pass limits,
 * and what the selection is told (ExclusiveUser, OverSubscribe=EXCLUSIVE). */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/parse.h"
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "ctld/ctld.h"
#include "core/part_limits.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct conf_kv enforce_kv = { "EnforcePartLimits", NULL };
static struct conf conf = { .kv = &enforce_kv, .nkv = 1 };

static void enforce(const char *mode)
{
	enforce_kv.value = (char *)mode;   /* NULL: unset (NO) */
}

static struct conf_part base_conf(void)
{
	return (struct conf_part){ .name = "p", .max_time = TIME_INFINITE,
				   .default_time = TIME_INFINITE, .max_nodes = -1,
				   .max_cpus_per_node = -1, .oversubscribe = "NO" };
}

static struct job job_in(struct part *p)
{
	return (struct job){ .uid = 5001, .gid = 54321, .user = "herd-no-such-user", .part = p,
			     .account = "a", .time_limit = 600, .req_nodes = 1 };
}

static int setup(void **state)
{
	core.conf = &conf;
	core.slurm_uid = 4999;
	acct_qos_new("normal", 1);
	acct_qos_new("q", 2)->flags = QOS_FLAG_PART_TIME_LIMIT | QOS_FLAG_PART_MAX_NODE;
	accounting.enforce_assoc = true;
	return 0;
}

static void pending_reasons(void **state)
{
	static const struct {
		const char *what;
		int max_nodes, min_nodes;
		int64_t max_time;
		const char *allow_accounts, *deny_accounts, *allow_qos, *deny_qos;
		uint32_t nodes;
		int64_t time_limit;
		const char *account, *qos;
		enum job_reason want;
	} cases[] = {
		{ "no limits", -1, 0, TIME_INFINITE, NULL, NULL, NULL, NULL, 4, TIME_INFINITE, "a", NULL, REASON_NONE },
		{ "over MaxNodes", 2, 0, TIME_INFINITE, NULL, NULL, NULL, NULL, 3, 60, "a", NULL, REASON_PART_NODE_LIMIT },
		{ "at MaxNodes", 2, 0, TIME_INFINITE, NULL, NULL, NULL, NULL, 2, 60, "a", NULL, REASON_NONE },
		{ "under MinNodes", -1, 2, TIME_INFINITE, NULL, NULL, NULL, NULL, 1, 60, "a", NULL, REASON_PART_NODE_LIMIT },
		{ "over MaxTime", -1, 0, 600, NULL, NULL, NULL, NULL, 1, 601, "a", NULL, REASON_PART_TIME_LIMIT },
		{ "UNLIMITED over MaxTime", -1, 0, 600, NULL, NULL, NULL, NULL, 1, TIME_INFINITE, "a", NULL, REASON_PART_TIME_LIMIT },
		{ "QOS PartitionTimeLimit", -1, 0, 600, NULL, NULL, NULL, NULL, 1, 6000, "a", "q", REASON_NONE },
		{ "QOS PartitionMaxNodes", 1, 0, TIME_INFINITE, NULL, NULL, NULL, NULL, 3, 60, "a", "q", REASON_NONE },
		{ "account not in AllowAccounts", -1, 0, TIME_INFINITE, "b,c", NULL, NULL, NULL, 1, 60, "a", NULL, REASON_ACCOUNT_NOT_ALLOWED },
		{ "account in AllowAccounts", -1, 0, TIME_INFINITE, "b,a", NULL, NULL, NULL, 1, 60, "a", NULL, REASON_NONE },
		{ "AllowAccounts=ALL", -1, 0, TIME_INFINITE, "ALL", NULL, NULL, NULL, 1, 60, "a", NULL, REASON_NONE },
		{ "no account, AllowAccounts", -1, 0, TIME_INFINITE, "b", NULL, NULL, NULL, 1, 60, NULL, NULL, REASON_ACCOUNT_NOT_ALLOWED },
		{ "account in DenyAccounts", -1, 0, TIME_INFINITE, NULL, "x,a", NULL, NULL, 1, 60, "a", NULL, REASON_ACCOUNT_NOT_ALLOWED },
		{ "normal not in AllowQos", -1, 0, TIME_INFINITE, NULL, NULL, "q", NULL, 1, 60, "a", NULL, REASON_QOS_NOT_ALLOWED },
		{ "QOS in AllowQos", -1, 0, TIME_INFINITE, NULL, NULL, "q", NULL, 1, 60, "a", "q", REASON_NONE },
		{ "QOS in DenyQos", -1, 0, TIME_INFINITE, NULL, NULL, NULL, "normal", 1, 60, "a", NULL, REASON_QOS_NOT_ALLOWED },
		{ "node limit before time", 1, 0, 60, NULL, NULL, NULL, NULL, 2, 600, "a", NULL, REASON_PART_NODE_LIMIT },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct conf_part c = base_conf();
		struct part p = { .name = "p", .conf = &c };
		c.max_nodes = cases[i].max_nodes;
		c.min_nodes = cases[i].min_nodes;
		c.max_time = cases[i].max_time;
		c.allow_accounts = (char *)cases[i].allow_accounts;
		c.deny_accounts = (char *)cases[i].deny_accounts;
		c.allow_qos = (char *)cases[i].allow_qos;
		c.deny_qos = (char *)cases[i].deny_qos;
		struct job j = job_in(&p);
		j.req_nodes = cases[i].nodes;
		j.time_limit = cases[i].time_limit;
		j.account = (char *)cases[i].account;
		j.qos = (char *)cases[i].qos;
		print_message("%s\n", cases[i].what);
		assert_int_equal(part_limits_check(&j, &p), cases[i].want);
	}
	/* accounts are free words without AccountingStorageEnforce */
	struct conf_part c = base_conf();
	struct part p = { .name = "p", .conf = &c };
	c.allow_accounts = "b";
	struct job j = job_in(&p);
	accounting.enforce_assoc = false;
	assert_int_equal(part_limits_check(&j, &p), REASON_NONE);
	accounting.enforce_assoc = true;
	assert_int_equal(part_limits_check(&j, &p), REASON_ACCOUNT_NOT_ALLOWED);
}

static void submit_one_partition(void **state)
{
	struct conf_part c = base_conf();
	struct part p = { .name = "p", .conf = &c };
	struct herd_error err = { "" };
	c.max_nodes = 1;
	c.max_time = 300;
	c.allow_qos = "normal";
	struct job j = job_in(&p);
	j.req_nodes = 2;

	enforce(NULL);   /* NO: queued, it waits */
	assert_int_equal(part_limits_submit(&j, &err), 0);
	enforce("NO");
	assert_int_equal(part_limits_submit(&j, &err), 0);
	for (int m = 0; m < 3; m++) {
		enforce((const char *[]){ "ALL", "ANY", "YES" }[m]);
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_INVALID_NODE_COUNT);
		assert_string_equal(err.text, "Node count specification invalid");
		j.req_nodes = 1;
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_TIME_LIMIT);
		j.time_limit = 300;
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.qos = "q";   /* not in AllowQos (its flags pass the size and time only) */
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_INVALID_QOS);
		j.qos = NULL;
		c.deny_accounts = "a";
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_INVALID_ACCOUNT);
		c.deny_accounts = NULL;
		j.req_nodes = 2;
		j.time_limit = 600;
	}
	enforce(NULL);
}

static void submit_several_partitions(void **state)
{
	struct conf_part small = base_conf(), wide = base_conf();
	struct part ps = { .name = "small", .conf = &small }, pw = { .name = "wide", .conf = &wide };
	struct part *parts[] = { &ps, &pw };
	struct herd_error err = { "" };
	small.max_nodes = 1;
	struct job j = job_in(&ps);
	j.parts = parts;
	j.nparts = 2;
	j.req_nodes = 2;

	enforce("ANY");
	assert_int_equal(part_limits_submit(&j, &err), 0);
	enforce("ALL");
	assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_INVALID_NODE_COUNT);
	wide.max_nodes = 1;
	enforce("ANY");
	assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_INVALID_NODE_COUNT);
	enforce(NULL);
	assert_int_equal(part_limits_submit(&j, &err), 0);
	/* MinNodes: a job without -N asks for the smallest of its partitions' */
	small.min_nodes = 3;
	wide.min_nodes = 2;
	wide.max_nodes = -1;
	j.req_nodes = 0;
	assert_int_equal(part_limits_submit(&j, &err), 0);
	assert_int_equal(j.req_nodes, 2);
	j.req_nodes = 1;   /* -N given: kept, and it waits */
	assert_int_equal(part_limits_submit(&j, &err), 0);
	assert_int_equal(j.req_nodes, 1);
	assert_int_equal(part_limits_check(&j, &pw), REASON_PART_NODE_LIMIT);
}

static void allow_groups(void **state)
{
	struct conf_part c = base_conf(), open = base_conf();
	struct part p = { .name = "p", .conf = &c }, po = { .name = "o", .conf = &open };
	struct part *parts[] = { &po, &p };
	struct herd_error err = { "" };
	c.allow_groups = "root";   /* gid 0 */
	struct job j = job_in(&p);

	for (int m = 0; m < 2; m++) {
		enforce(m ? "ANY" : NULL);
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_PART_GROUP);
		assert_string_equal(err.text, "User's group not permitted to use this partition");
		j.gid = 0;
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.gid = 54321;
		j.uid = 0;   /* root may use every partition */
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.uid = 4999;   /* and SlurmUser */
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.uid = 5001;
		/* one partition of a list it may not use refuses the job */
		j.parts = parts;
		j.nparts = 2;
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_PART_GROUP);
		j.parts = NULL;
		j.nparts = 0;
	}
	c.allow_groups = "ALL";
	assert_int_equal(part_limits_submit(&j, &err), 0);
	enforce(NULL);
}

/* RootOnly: root and SlurmUser only; AllocNodes: the submit host (or its
 * short name) in the hostlist; both refuse whatever EnforcePartLimits and
 * the job's other partitions say. */
static void root_only_and_alloc_nodes(void **state)
{
	struct conf_part c = base_conf(), open = base_conf();
	struct part p = { .name = "p", .conf = &c }, po = { .name = "o", .conf = &open };
	struct part *parts[] = { &po, &p };
	struct herd_error err = { "" };
	struct job j = job_in(&p);

	c.root_only = true;
	for (int m = 0; m < 2; m++) {
		enforce(m ? "ANY" : NULL);
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_ACCESS);
		assert_string_equal(err.text, "Access/permission denied");
		j.parts = parts;
		j.nparts = 2;
		assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_ACCESS);
		j.parts = NULL;
		j.nparts = 0;
		j.uid = 0;
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.uid = 4999;   /* SlurmUser */
		assert_int_equal(part_limits_submit(&j, &err), 0);
		j.uid = 5001;
	}
	enforce(NULL);
	c.root_only = false;
	/* AllocNodes: the credential's origin against the addresses part.c
	 * looked the hosts up as; SubmitHost (the client's word) does not count */
	struct in_addr listed[2];
	inet_pton(AF_INET, "10.0.0.2", &listed[0]);
	inet_pton(AF_INET, "10.0.0.3", &listed[1]);
	const struct { const char *alloc_nodes; int naddrs; const char *origin, *host; int rc; } cases[] = {
		{ NULL, 0, "0.0.0.0", NULL, 0 },
		{ "ALL", 0, "192.0.2.1", "anywhere", 0 },
		{ "login[1-3]", 2, "10.0.0.2", "login2", 0 },
		{ "login[1-3]", 2, "10.0.0.3", "elsewhere", 0 },
		{ "login[1-3]", 2, "10.0.0.4", "login2", HERD_ERR_ACCESS },   /* the name lies */
		{ "login[1-3]", 2, "0.0.0.0", "login2", HERD_ERR_ACCESS },    /* origin unknown */
		{ "login[1-3]", 0, "10.0.0.2", "login2", HERD_ERR_ACCESS },   /* nothing resolved */
	};
	for (size_t i = 0; i < N(cases); i++) {
		c.alloc_nodes = (char *)cases[i].alloc_nodes;
		p.alloc_addrs = listed;
		p.nalloc_addrs = cases[i].naddrs;
		inet_pton(AF_INET, cases[i].origin, &j.origin);
		j.submit_host = (char *)cases[i].host;
		for (uid_t uid = 0; uid < 2; uid++) {   /* root too */
			j.uid = uid ? 5001 : 0;
			assert_int_equal(part_limits_submit(&j, &err), cases[i].rc);
		}
	}
	c.alloc_nodes = "login1";
	p.nalloc_addrs = 1;
	inet_pton(AF_INET, "10.0.0.9", &j.origin);
	j.parts = parts;
	j.nparts = 2;
	assert_int_equal(part_limits_submit(&j, &err), HERD_ERR_ACCESS);
	p.alloc_addrs = NULL;
	p.nalloc_addrs = 0;
}

static void selection_request(void **state)
{
	struct conf_part c = base_conf();
	struct part p = { .name = "p", .conf = &c };
	struct job j = job_in(&p);
	struct sched_req req = { 0 };

	part_limits_req(&j, &p, &req);
	assert_int_equal(req.user, 5002);
	assert_false(req.exclusive_user);
	assert_false(req.exclusive);
	c.exclusive_user = true;
	c.oversubscribe = "EXCLUSIVE";
	part_limits_req(&j, &p, &req);
	assert_true(req.exclusive_user);
	assert_true(req.exclusive);
	c.oversubscribe = "FORCE:4";
	req = (struct sched_req){ 0 };
	part_limits_req(&j, &p, &req);
	assert_false(req.exclusive);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pending_reasons),
		cmocka_unit_test(submit_one_partition),
		cmocka_unit_test(submit_several_partitions),
		cmocka_unit_test(allow_groups),
		cmocka_unit_test(root_only_and_alloc_nodes),
		cmocka_unit_test(selection_request),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
