/* conf_inert: which keys and attributes a file sets that Herd ignores, as
 * the one line herdctld logs; values that ask for what Herd does anyway and
 * attributes at their default are not named. */
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
#include "common/conf_inert.h"
#include "common/xmalloc.h"

static char *inert_of(const char *text)
{
	char path[] = "/tmp/herd-test-inert-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("ClusterName=c\nSlurmctldHost=h\n", f);
	fputs(text, f);
	fclose(f);
	struct herd_error err = { "" };
	struct conf *conf = conf_load(path, &err);
	unlink(path);
	if (!conf)
		fail_msg("%s", err.text);
	char *keys = conf_inert_keys(conf);
	conf_destroy(conf);
	return keys;
}

static void check(const char *text, const char *want)
{
	char *got = inert_of(text);
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

static void test_inert_keys(void **state)
{
	/* nothing ignored: NULL, no warning */
	check("NodeName=n1 CPUs=2\nPartitionName=p Nodes=n1 Default=YES\n", NULL);
	check("Prolog=/bin/true\nTaskProlog=/x\nEpilog=/y\nNodeName=n1\nPartitionName=p Nodes=n1\n",
	      "Epilog, Prolog, TaskProlog");
	/* what Herd does anyway is not named; any other value is */
	check("AuthType=auth/munge\nSwitchType=switch/none\nSelectType=select/cons_tres\n"
	      "ProctrackType=proctrack/cgroup\nNodeName=n1\nPartitionName=p Nodes=n1\n", NULL);
	check("SelectType=select/linear\nTopologyPlugin=topology/none\nNodeName=n1\n"
	      "PartitionName=p Nodes=n1\n", "SelectType");
	check("SelectType=select/cons_tres,select/other\nNodeName=n1\nPartitionName=p Nodes=n1\n",
	      "SelectType");
	/* attributes: named once with their line, only off their default */
	check("NodeName=n[1-3] Weight=1\nPartitionName=p Nodes=ALL\n", NULL);
	check("NodeName=n[1-2] Weight=5 TmpDisk=100\nNodeName=n3\nPartitionName=p Nodes=ALL LLN=YES\n"
	      "PartitionName=q Nodes=n3 LLN=YES QOS=normal\n",
	      "Weight (NodeName), LLN (PartitionName), QOS (PartitionName)");
	/* DownNodes= sets a State and Reason that nothing reads (FUTURE is read) */
	check("NodeName=n[1-2]\nNodeName=n3 State=FUTURE\nDownNodes=n2 Reason=fan\n"
	      "PartitionName=p Nodes=ALL MaxCPUsPerNode=2\n",
	      "State (NodeName), Reason (NodeName), MaxCPUsPerNode (PartitionName)");
	check("NodeName=n1 State=UNKNOWN\nNodeName=n2 State=FUTURE\nPartitionName=p Nodes=ALL "
	      "MaxCPUsPerNode=UNLIMITED\n", NULL);
	/* implemented keys are not named */
	check("NodeName=n1\nPartitionName=p Nodes=n1 RootOnly=YES "
	      "AllocNodes=login1\nPrivateData=jobs\nKillWait=5\n", NULL);
}

static void test_inert_key(void **state)
{
	assert_true(conf_inert_key("Prolog"));
	assert_true(conf_inert_key("taskprolog"));
	assert_false(conf_inert_key("PrologFlags"));   /* Contain: read */
	assert_false(conf_inert_key("KillWait"));
	assert_false(conf_inert_key("NoSuchKey"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inert_keys),
		cmocka_unit_test(test_inert_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
