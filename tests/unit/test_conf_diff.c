/* conf_diff_restart: which herd.conf changes a reconfigure may apply and
 * which need a restart, on real files in a temp dir (table-driven). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/conf.h"
#include "common/xmalloc.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/herd-test-diff-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static struct conf *load(const char *name, const char *text)
{
	struct herd_error err = { "" };
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct conf *conf = conf_load(path, &err);
	if (!conf)
		fail_msg("load failed: %s", err.text);
	free(path);
	return conf;
}

#define BASE "ClusterName=c\nSlurmctldPort=7000\nKillWait=5\n" \
	"NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001-7003 CPUs=4 RealMemory=1000\n" \
	"PartitionName=debug Nodes=ALL Default=YES\n"

static const struct {
	const char *text;
	const char *error;   /* after "DIR/new.conf: "; NULL = applies live */
} cases[] = {
	{ BASE, NULL },
	/* Live: partitions, scalar settings, a node's CPUs and memory. */
	{ "ClusterName=c\nSlurmctldPort=7000\nKillWait=9\nMinJobAge=2\nSchedulerParameters=x\n"
	  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001-7003 CPUs=8 RealMemory=500\n"
	  "PartitionName=debug Nodes=n1 MaxTime=10 State=DOWN\nPartitionName=new Nodes=n[2-3]\n",
	  NULL },
	/* The same nodes in another order and other lines. */
	{ "ClusterName=c\nSlurmctldPort=7000\nKillWait=5\n"
	  "NodeName=n3 NodeAddr=127.0.0.1 Port=7003 CPUs=4\n"
	  "NodeName=n[1-2] NodeAddr=127.0.0.1 Port=7001-7002 CPUs=4\n"
	  "PartitionName=debug Nodes=ALL Default=YES\n", NULL },
	/* Restart: nodes added or removed, addresses and ports, keys read once. */
	{ BASE "NodeName=n4 NodeAddr=127.0.0.1 Port=7004\n",
	  "node n4 added (adding or removing nodes): restart herdctld and herdd to apply it" },
	{ "ClusterName=c\nSlurmctldPort=7000\n"
	  "NodeName=n[1-2] NodeAddr=127.0.0.1 Port=7001-7002 CPUs=4 RealMemory=1000\n",
	  "node n3 removed (adding or removing nodes): restart herdctld and herdd to apply it" },
	{ "ClusterName=c\nSlurmctldPort=7000\n"
	  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001,7002,7009 CPUs=4 RealMemory=1000\n",
	  "node n3: NodeAddr, NodeHostname or Port changed: restart herdctld and herdd to apply it" },
	{ "ClusterName=c\nSlurmctldPort=7000\n"
	  "NodeName=n[1-3] NodeAddr=10.0.0.1 Port=7001-7003 CPUs=4 RealMemory=1000\n",
	  "node n1: NodeAddr, NodeHostname or Port changed: restart herdctld and herdd to apply it" },
	{ "ClusterName=d\nSlurmctldPort=7000\n"
	  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001-7003\n",
	  "ClusterName changed: restart herdctld and herdd to apply it" },
	{ "ClusterName=c\n"
	  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001-7003\n",
	  "SlurmctldPort changed: restart herdctld and herdd to apply it" },
	{ BASE "StateSaveLocation=/var/tmp/x\n",
	  "StateSaveLocation changed: restart herdctld and herdd to apply it" },
	{ BASE "AuthInfo=socket=/run/m.sock\n",
	  "AuthInfo changed: restart herdctld and herdd to apply it" },
};

static void test_cases(void **state)
{
	struct conf *old = load("old.conf", BASE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct herd_error err = { "" };
		struct conf *new = load("new.conf", cases[i].text);
		int rc = conf_diff_restart(old, new, &err);
		if (!cases[i].error) {
			if (rc != 0)
				fail_msg("case %zu: refused: %s", i, err.text);
		} else {
			char *want = xasprintf("%s/new.conf: %s", dir, cases[i].error);
			assert_int_equal(rc, -1);
			assert_string_equal(err.text, want);
			free(want);
		}
		conf_destroy(new);
	}
	conf_destroy(old);
}

/* 20,000 nodes in reverse order are the same nodes, found by a sort, not
 * by one search per node. */
static void test_many_nodes_reordered(void **state)
{
	struct conf *old = load("old.conf", "NodeName=n[1-20000] CPUs=1\n");
	char *text = xmalloc(20000 * 24);
	size_t len = 0;
	for (int i = 20000; i >= 1; i--)
		len += sprintf(text + len, "NodeName=n%d CPUs=2\n", i);
	struct conf *new = load("new.conf", text);
	struct herd_error err = { "" };
	assert_int_equal(conf_diff_restart(old, new, &err), 0);
	conf_destroy(new);
	free(text);
	conf_destroy(old);
}

/* A definition copied out of its conf outlives it. */
static void test_part_dup(void **state)
{
	struct conf *conf = load("old.conf", BASE "PartitionName=p Nodes=n1 MaxTime=10 State=DOWN\n");
	struct conf_part *p = conf_part_dup(conf_part_find(conf, "p"));
	conf_destroy(conf);
	assert_string_equal(p->name, "p");
	assert_string_equal(p->nodes, "n1");
	assert_string_equal(p->state, "DOWN");
	assert_int_equal(p->max_time, 600);
	conf_part_destroy(p);
	conf_part_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_many_nodes_reordered),
		cmocka_unit_test(test_part_dup),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
