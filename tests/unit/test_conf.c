/* conf: slurm.conf syntax, NodeName/PartitionName lines with DEFAULT,
 * Include, value checks and every error form, on files in a temp dir. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/herd-test-conf-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/* Write text to dir/name; returns the path (caller frees). */
static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir(path, 0700);    /* a sub-directory for include tests; may exist */
	*slash = '/';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct conf *load_text(const char *text, struct herd_error *err)
{
	char *path = write_file("herd.conf", text);
	struct conf *conf = conf_load(path, err);
	free(path);
	return conf;
}

static struct conf *load_ok(const char *text)
{
	struct herd_error err = { "" };
	struct conf *conf = load_text(text, &err);
	if (!conf)
		fail_msg("load failed: %s\n--- config:\n%s", err.text, text);
	return conf;
}

/* "@" in pattern stands for the directory of the test files. */
static char *expand_at(const char *pattern)
{
	size_t n = 1;
	for (const char *p = pattern; *p; p++)
		n += *p == '@' ? strlen(dir) : 1;
	char *s = xmalloc(n), *o = s;
	for (const char *p = pattern; *p; p++) {
		if (*p == '@') {
			strcpy(o, dir);
			o += strlen(dir);
		} else {
			*o++ = *p;
		}
	}
	return s;
}

static void test_defaults(void **state)
{
	struct conf *conf = load_ok("# nothing but a comment\n\n   \n");
	assert_string_equal(conf_cluster_name(conf), "cluster");
	assert_string_equal(conf_ctld_host(conf), "localhost");
	assert_int_equal(conf_ctld_port(conf), 6817);
	assert_null(conf_munge_socket(conf));
	assert_null(conf_get(conf, "ClusterName"));
	assert_int_equal(conf_get_int(conf, "KillWait", 30), 30);
	assert_int_equal(conf->nnodes, 0);
	assert_int_equal(conf->nparts, 0);
	conf_destroy(conf);
	conf_destroy(NULL);
}

static void test_plain_keys(void **state)
{
	struct conf *conf = load_ok(
		"ClusterName=alpha SlurmctldHost=ctl1(10.1.0.1)\n"
		"SlurmctldHost=ctl2(10.1.0.2)\n"
		"slurmctldport=6900-6903\n"
		"AuthType=auth/munge AuthInfo=ttl=60,socket=/run/munge/alt.socket\n"
		"KillWait=45 MinJobAge=300 MaxJobCount=10000 FirstJobId=100\n"
		"MaxMessageSize=1048576\n"
		"PriorityDecayHalfLife=7-0 PriorityMaxAge=14-0 PriorityFavorSmall=YES\n"
		"OverTimeLimit=UNLIMITED SuspendTime=NONE\n"
		"SchedulerParameters=bf_interval=30,bf_max_job_test=100\n"
		"ClusterName=beta\n");
	assert_string_equal(conf_cluster_name(conf), "beta");              /* last wins */
	assert_string_equal(conf_get(conf, "CLUSTERNAME"), "beta");
	assert_string_equal(conf_ctld_host(conf), "10.1.0.1");             /* first host */
	assert_string_equal(conf_get(conf, "SlurmctldHost"), "ctl1(10.1.0.1)");
	assert_int_equal(conf_ctld_port(conf), 6900);
	assert_string_equal(conf_get(conf, "SlurmctldPort"), "6900-6903");
	assert_string_equal(conf_munge_socket(conf), "/run/munge/alt.socket");
	assert_int_equal(conf_get_int(conf, "killwait", 0), 45);
	assert_int_equal(conf_get_int(conf, "MinJobAge", 0), 300);
	assert_int_equal(conf_get_int(conf, "MaxMessageSize", 0), 1048576);
	assert_int_equal(conf_get_int(conf, "OverTimeLimit", 0), -1);
	assert_int_equal(conf_get_int(conf, "SuspendTime", 0), -1);
	assert_int_equal(conf_get_time(conf, "PriorityDecayHalfLife", 0), 7 * 86400);
	assert_int_equal(conf_get_time(conf, "PriorityMaxAge", 0), 14 * 86400);
	assert_int_equal(conf_get_time(conf, "PreemptExemptTime", 99), 99);
	assert_true(conf_get_bool(conf, "PriorityFavorSmall", false));
	assert_false(conf_get_bool(conf, "UsePAM", false));
	assert_string_equal(conf_get(conf, "SchedulerParameters"), "bf_interval=30,bf_max_job_test=100");
	/* Keys are stored with Slurm's spelling. */
	int found = 0;
	for (size_t i = 0; i < conf->nkv; i++)
		found += strcmp(conf->kv[i].key, "SlurmctldPort") == 0;
	assert_int_equal(found, 1);
	conf_destroy(conf);
}

static const struct {
	const char *text;
	const char *host;
} ctld_cases[] = {
	{ "SlurmctldHost=head\n", "head" },
	{ "SlurmctldHost=head(192.168.1.5)\n", "192.168.1.5" },
	{ "ControlMachine=old\n", "old" },
	{ "ControlMachine=old ControlAddr=10.0.0.9\n", "10.0.0.9" },
	{ "SlurmctldHost=head SlurmctldAddr=vip\n", "vip" },
	{ "SlurmctldHost=head ControlMachine=old\n", "head" },
};

static void test_ctld_host(void **state)
{
	for (size_t i = 0; i < N(ctld_cases); i++) {
		struct conf *conf = load_ok(ctld_cases[i].text);
		assert_string_equal(conf_ctld_host(conf), ctld_cases[i].host);
		conf_destroy(conf);
	}
}

static void test_syntax(void **state)
{
	struct conf *conf = load_ok(
		"  # indented comment\n"
		"ClusterName=\"my cluster\"   # trailing comment\n"
		"SlurmctldLogFile=\"/var/log/a#b.log\"\n"           /* '#' inside quotes */
		"SlurmdLogFile=/var/log/c\\#d.log\n"                 /* escaped '#' */
		"Prolog=/etc/herd/prolog \\\n"
		"   Epilog=/etc/herd/epilog\n"
		"SchedulerParameters=bf_interval=30,\\\n"
		"bf_continue\n"                                      /* joined without a space */
		"KillWait = 12\n"                                    /* spaces around '=' */
		"HealthCheckProgram=\r\n"                            /* empty value, CRLF */
		"PluginDir=/usr/lib/\"herd plugins\"/x\n"            /* partly quoted */
		"MailProg=/bin/mail \\");                            /* continuation at EOF */
	assert_string_equal(conf_cluster_name(conf), "my cluster");
	assert_string_equal(conf_get(conf, "SlurmctldLogFile"), "/var/log/a#b.log");
	assert_string_equal(conf_get(conf, "SlurmdLogFile"), "/var/log/c#d.log");
	assert_string_equal(conf_get(conf, "Prolog"), "/etc/herd/prolog");
	assert_string_equal(conf_get(conf, "Epilog"), "/etc/herd/epilog");
	assert_string_equal(conf_get(conf, "SchedulerParameters"), "bf_interval=30,bf_continue");
	assert_int_equal(conf_get_int(conf, "KillWait", 0), 12);
	assert_string_equal(conf_get(conf, "HealthCheckProgram"), "");
	assert_string_equal(conf_get(conf, "PluginDir"), "/usr/lib/herd plugins/x");
	assert_string_equal(conf_get(conf, "MailProg"), "/bin/mail");
	conf_destroy(conf);
}

static void test_nodes(void **state)
{
	struct conf *conf = load_ok(
		"NodeName=n[1-4] NodeHostname=localhost Port=[17001-17004] CPUs=4 RealMemory=2048\n"
		"NodeName=c[01-03] NodeAddr=10.0.0.[1-3] Port=7000 Features=\"a,b\" Gres=gpu:h100:8 "
		"State=future Weight=5 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 TmpDisk=100 "
		"Reason=\"new rack\" CpuSpecList=0,1 MemSpecLimit=512\n"
		"NodeName=m1 Port=17100-17100\n"
		"NodeName=x[1-2] NodeHostname=h[1-2] Boards=2 SocketsPerBoard=2\n"
		"NodeName=y1 Feature=big Procs=16\n"
		"SlurmdPort=6999\n");                  /* applies to nodes defined before it */
	assert_int_equal(conf->nnodes, 11);
	for (int i = 0; i < 4; i++) {
		const struct conf_node *n = &conf->nodes[i];
		char name[16];
		snprintf(name, sizeof(name), "n%d", i + 1);
		assert_string_equal(n->name, name);
		assert_string_equal(n->hostname, "localhost");
		assert_string_equal(n->addr, "localhost");       /* NodeAddr defaults to NodeHostname */
		assert_int_equal(n->port, 17001 + i);
		assert_int_equal(n->cpus, 4);
		assert_int_equal(n->real_memory, 2048);
		assert_int_equal(n->weight, 1);
		assert_null(n->features);
		assert_null(n->state);
	}
	const struct conf_node *c2 = conf_node_find(conf, "c02");
	assert_ptr_equal(c2, &conf->nodes[5]);
	assert_string_equal(c2->addr, "10.0.0.2");
	assert_string_equal(c2->hostname, "c02");
	assert_int_equal(c2->port, 7000);
	assert_string_equal(c2->features, "a,b");
	assert_string_equal(c2->gres, "gpu:h100:8");
	assert_string_equal(c2->state, "FUTURE");
	assert_int_equal(c2->weight, 5);
	assert_int_equal(c2->sockets, 2);
	assert_int_equal(c2->cores_per_socket, 8);
	assert_int_equal(c2->threads_per_core, 2);
	assert_int_equal(c2->tmp_disk, 100);
	assert_string_equal(c2->reason, "new rack");
	assert_string_equal(c2->cpu_spec_list, "0,1");
	assert_int_equal(c2->mem_spec_limit, 512);
	assert_int_equal(conf_node_find(conf, "m1")->port, 17100);
	const struct conf_node *x2 = conf_node_find(conf, "x2");
	assert_string_equal(x2->hostname, "h2");
	assert_string_equal(x2->addr, "h2");
	assert_int_equal(x2->sockets, 4);                   /* Boards x SocketsPerBoard */
	assert_int_equal(x2->port, 6999);                   /* SlurmdPort, set later */
	const struct conf_node *y1 = conf_node_find(conf, "y1");
	assert_string_equal(y1->features, "big");
	assert_int_equal(y1->cpus, 16);
	assert_null(conf_node_find(conf, "n5"));
	assert_null(conf_node_find(conf, NULL));
	conf_destroy(conf);

	conf = load_ok("NodeName=a1\n");
	assert_int_equal(conf->nodes[0].port, 6818);        /* no SlurmdPort */
	assert_string_equal(conf->nodes[0].addr, "a1");
	assert_int_equal(conf->nodes[0].cpus, 0);           /* not declared */
	conf_destroy(conf);
}

static void test_node_default(void **state)
{
	struct conf *conf = load_ok(
		"NodeName=DEFAULT CPUs=8 RealMemory=1000 State=UNKNOWN Port=7001\n"
		"NodeName=a1\n"
		"NodeName=DEFAULT CPUs=16\n"                 /* cumulative: memory stays */
		"NodeName=a2 RealMemory=5 State=DOWN\n"
		"nodename=default features=gpu\n"
		"NodeName=a3 Port=7003\n");
	const struct conf_node *a1 = conf_node_find(conf, "a1");
	const struct conf_node *a2 = conf_node_find(conf, "a2");
	const struct conf_node *a3 = conf_node_find(conf, "a3");
	assert_int_equal(conf->nnodes, 3);
	assert_null(conf_node_find(conf, "DEFAULT"));
	assert_int_equal(a1->cpus, 8);
	assert_int_equal(a1->real_memory, 1000);
	assert_string_equal(a1->state, "UNKNOWN");
	assert_int_equal(a1->port, 7001);
	assert_null(a1->features);
	assert_int_equal(a2->cpus, 16);
	assert_int_equal(a2->real_memory, 5);
	assert_string_equal(a2->state, "DOWN");
	assert_int_equal(a3->cpus, 16);
	assert_int_equal(a3->real_memory, 1000);
	assert_string_equal(a3->features, "gpu");
	assert_int_equal(a3->port, 7003);
	conf_destroy(conf);
}

static void test_partitions(void **state)
{
	struct conf *conf = load_ok(
		"NodeName=n[1-4]\n"
		"NodeName=g[1-2]\n"
		"PartitionName=all Nodes=ALL\n"
		"PartitionName=DEFAULT MaxTime=1-00:00:00 State=DOWN\n"
		"PartitionName=batch Nodes=n[1-4] Default=YES DefaultTime=30 MaxNodes=2 MinNodes=1 "
		"PriorityTier=10 PriorityJobFactor=3 ExclusiveUser=YES OverSubscribe=force:4 "
		"AllowAccounts=a,b AllowGroups=wheel AllowQos=normal DenyAccounts=c DenyQos=bad "
		"MaxCPUsPerNode=32 DefMemPerCPU=1024 MaxMemPerCPU=4096 DefMemPerNode=2048 "
		"MaxMemPerNode=8192 Hidden=YES RootOnly=NO QOS=partqos GraceTime=60 "
		"PreemptMode=REQUEUE TRESBillingWeights=CPU=1.0,Mem=0.25G AllocNodes=login "
		"LLN=YES Alternate=all State=up\n"
		"PartitionName=gpu Nodes=g[1-2],n1 Default=YES MaxTime=UNLIMITED Shared=EXCLUSIVE\n"
		"PartitionName=old Priority=7\n");
	assert_int_equal(conf->nparts, 4);
	const struct conf_part *all = conf_part_find(conf, "all");
	assert_string_equal(all->nodes, "ALL");
	assert_false(all->is_default);
	assert_int_equal(all->max_time, TIME_INFINITE);
	assert_int_equal(all->default_time, TIME_INFINITE);
	assert_string_equal(all->state, "UP");
	assert_int_equal(all->max_nodes, -1);
	assert_int_equal(all->min_nodes, 0);
	assert_int_equal(all->priority_tier, 1);
	assert_int_equal(all->priority_job_factor, 1);
	assert_string_equal(all->oversubscribe, "NO");
	assert_int_equal(all->max_cpus_per_node, -1);
	struct hostlist *hl = conf_part_hostlist(conf, all);
	char *s = hostlist_ranged_string(hl);
	assert_string_equal(s, "n[1-4],g[1-2]");
	free(s);
	hostlist_destroy(hl);

	const struct conf_part *b = conf_part_find(conf, "batch");
	assert_false(b->is_default);                      /* the later Default=YES wins */
	assert_int_equal(b->max_time, 86400);             /* from PartitionName=DEFAULT */
	assert_int_equal(b->default_time, 1800);
	assert_string_equal(b->state, "UP");
	assert_int_equal(b->max_nodes, 2);
	assert_int_equal(b->min_nodes, 1);
	assert_int_equal(b->priority_tier, 10);
	assert_int_equal(b->priority_job_factor, 3);
	assert_true(b->exclusive_user);
	assert_string_equal(b->oversubscribe, "FORCE:4");
	assert_string_equal(b->allow_accounts, "a,b");
	assert_string_equal(b->allow_groups, "wheel");
	assert_string_equal(b->allow_qos, "normal");
	assert_string_equal(b->deny_accounts, "c");
	assert_string_equal(b->deny_qos, "bad");
	assert_int_equal(b->max_cpus_per_node, 32);
	assert_int_equal(b->def_mem_per_cpu, 1024);
	assert_int_equal(b->max_mem_per_cpu, 4096);
	assert_int_equal(b->def_mem_per_node, 2048);
	assert_int_equal(b->max_mem_per_node, 8192);
	assert_true(b->hidden);
	assert_false(b->root_only);
	assert_string_equal(b->qos, "partqos");
	assert_int_equal(b->grace_time, 60);
	assert_string_equal(b->preempt_mode, "REQUEUE");
	assert_string_equal(b->tres_billing_weights, "CPU=1.0,Mem=0.25G");
	assert_string_equal(b->alloc_nodes, "login");
	assert_true(b->lln);
	assert_string_equal(b->alternate, "all");
	hl = conf_part_hostlist(conf, b);
	assert_int_equal(hostlist_count(hl), 4);
	hostlist_destroy(hl);

	const struct conf_part *g = conf_part_find(conf, "gpu");
	assert_true(g->is_default);
	assert_int_equal(g->max_time, TIME_INFINITE);
	assert_string_equal(g->state, "DOWN");            /* from PartitionName=DEFAULT */
	assert_string_equal(g->oversubscribe, "EXCLUSIVE");
	assert_null(g->allow_accounts);

	const struct conf_part *old = conf_part_find(conf, "old");
	assert_int_equal(old->priority_tier, 7);
	assert_int_equal(old->priority_job_factor, 7);
	assert_null(old->nodes);
	hl = conf_part_hostlist(conf, old);
	assert_int_equal(hostlist_count(hl), 0);
	hostlist_destroy(hl);
	assert_null(conf_part_find(conf, "DEFAULT"));
	assert_null(conf_part_find(conf, "nope"));
	conf_destroy(conf);
}

static void test_include(void **state)
{
	free(write_file("sub/nodes.conf", "NodeName=n[1-2] CPUs=2\nInclude more.conf\n"));
	free(write_file("sub/more.conf", "NodeName=n3\n"));
	free(write_file("parts.d/10-batch.conf", "PartitionName=batch Nodes=n[1-3]\n"));
	free(write_file("parts.d/20-debug.conf", "PartitionName=debug Nodes=n1\n"));
	char *abs = xasprintf("%s/abs.conf", dir);
	free(write_file("abs.conf", "KillWait=7\n"));
	char *text = xasprintf(
		"ClusterName=inc\n"
		"Include sub/nodes.conf\n"                    /* relative to herd.conf's dir */
		"include \"%s\"\n"                            /* absolute, quoted, lower case */
		"Include parts.d/*.conf\n"                     /* glob, sorted */
		"Include none.d/*.conf\n"                      /* a pattern may match nothing */
		"MinJobAge=5\n", abs);
	struct conf *conf = load_ok(text);
	assert_int_equal(conf->nnodes, 3);
	assert_string_equal(conf->nodes[2].name, "n3");
	assert_int_equal(conf->nparts, 2);
	assert_string_equal(conf->parts[0].name, "batch");
	assert_string_equal(conf->parts[1].name, "debug");
	assert_int_equal(conf_get_int(conf, "KillWait", 0), 7);
	assert_int_equal(conf_get_int(conf, "MinJobAge", 0), 5);
	conf_destroy(conf);
	free(text);
	free(abs);
}

/* The file `herd up` writes (doc/conf.md) loads as the programs expect. */
static void test_herd_up_file(void **state)
{
	struct conf *conf = load_ok(
		"ClusterName=c1-0123abcd\n"
		"SlurmctldHost=localhost(127.0.0.1)\n"
		"SlurmctldPort=40123\n"
		"SlurmUser=root\n"
		"AuthInfo=socket=/tmp/c1/munge/munge.sock        # only when herd up started its own munged\n"
		"StateSaveLocation=/tmp/c1/state\n"
		"SlurmdSpoolDir=/tmp/c1/spool/%n\n"
		"SlurmctldLogFile=/tmp/c1/log/herdctld.log\n"
		"SlurmdLogFile=/tmp/c1/log/herdd-%n.log\n"
		"SlurmctldPidFile=/tmp/c1/run/herdctld.pid\n"
		"SlurmdPidFile=/tmp/c1/run/herdd-%n.pid\n"
		"SlurmdTimeout=10\n"
		"KillWait=5\n"
		"MinJobAge=300\n"
		"NodeName=n1 NodeAddr=127.0.0.1 Port=40124 CPUs=2 RealMemory=1800\n"
		"NodeName=n2 NodeAddr=127.0.0.1 Port=40125 CPUs=2 RealMemory=1800\n"
		"PartitionName=debug Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n");
	assert_string_equal(conf_cluster_name(conf), "c1-0123abcd");
	assert_string_equal(conf_ctld_host(conf), "127.0.0.1");
	assert_int_equal(conf_ctld_port(conf), 40123);
	assert_string_equal(conf_munge_socket(conf), "/tmp/c1/munge/munge.sock");
	assert_string_equal(conf_get(conf, "SlurmdSpoolDir"), "/tmp/c1/spool/%n");
	assert_int_equal(conf_get_int(conf, "SlurmdTimeout", 300), 10);
	assert_int_equal(conf_get_int(conf, "MaxMessageSize", 64 << 20), 64 << 20);
	assert_int_equal(conf->nnodes, 2);
	assert_int_equal(conf_node_find(conf, "n2")->port, 40125);
	assert_string_equal(conf_node_find(conf, "n2")->addr, "127.0.0.1");
	assert_string_equal(conf_node_find(conf, "n2")->hostname, "n2");
	const struct conf_part *p = conf_part_find(conf, "debug");
	assert_true(p->is_default);
	assert_int_equal(p->max_time, TIME_INFINITE);
	struct hostlist *hl = conf_part_hostlist(conf, p);
	char *s = hostlist_ranged_string(hl);
	assert_string_equal(s, "n[1-2]");
	free(s);
	hostlist_destroy(hl);
	conf_destroy(conf);
}

static void test_down_nodes(void **state)
{
	struct conf *conf = load_ok(
		"NodeName=n[1-4] State=UNKNOWN\n"
		"DownNodes=n[2-3] State=drain Reason=\"bad fan\"\n"
		"DownNodes=n4\n");
	assert_string_equal(conf_node_find(conf, "n1")->state, "UNKNOWN");
	assert_null(conf_node_find(conf, "n1")->reason);
	assert_string_equal(conf_node_find(conf, "n2")->state, "DRAIN");
	assert_string_equal(conf_node_find(conf, "n3")->reason, "bad fan");
	assert_string_equal(conf_node_find(conf, "n4")->state, "DOWN");
	conf_destroy(conf);
}

static void test_env_path(void **state)
{
	char *path = write_file("env.conf", "ClusterName=fromenv\n");
	setenv("HERD_CONF", path, 1);
	struct herd_error err;
	struct conf *conf = conf_load(NULL, &err);
	assert_non_null(conf);
	assert_string_equal(conf_cluster_name(conf), "fromenv");
	assert_string_equal(conf->path, path);
	conf_destroy(conf);
	unsetenv("HERD_CONF");
	free(path);
}

/* Every error names the file and line ("@" is the test directory). */
static const struct {
	const char *text;
	const char *error;
} error_cases[] = {
	{ "Foo=1\n", "@/herd.conf:1: unknown key 'Foo'" },
	{ "ClusterName=a\n\n# c\nFooBar=2\n", "@/herd.conf:4: unknown key 'FooBar'" },
	{ "KillWait=x\n", "@/herd.conf:1: invalid value 'x' for key 'KillWait'" },
	{ "killwait=-1\n", "@/herd.conf:1: invalid value '-1' for key 'KillWait'" },
	{ "KillWait=\n", "@/herd.conf:1: invalid value '' for key 'KillWait'" },
	{ "MinJobAge=1.5\n", "@/herd.conf:1: invalid value '1.5' for key 'MinJobAge'" },
	{ "MaxJobCount=99999999999999999999\n",
	  "@/herd.conf:1: invalid value '99999999999999999999' for key 'MaxJobCount'" },
	{ "MaxMessageSize=64M\n", "@/herd.conf:1: invalid value '64M' for key 'MaxMessageSize'" },
	{ "SlurmdPort=70000\n", "@/herd.conf:1: invalid value '70000' for key 'SlurmdPort'" },
	{ "SlurmctldPort=0\n", "@/herd.conf:1: invalid value '0' for key 'SlurmctldPort'" },
	{ "SlurmctldPort=6820-6817\n", "@/herd.conf:1: invalid value '6820-6817' for key 'SlurmctldPort'" },
	{ "PriorityWeightAge=lots\n", "@/herd.conf:1: invalid value 'lots' for key 'PriorityWeightAge'" },
	{ "PriorityDecayHalfLife=1:2:3:4\n",
	  "@/herd.conf:1: invalid value '1:2:3:4' for key 'PriorityDecayHalfLife'" },
	{ "PriorityFavorSmall=maybe\n", "@/herd.conf:1: invalid value 'maybe' for key 'PriorityFavorSmall'" },
	{ "SlurmctldHost=ctl(10.0.0.1\n", "@/herd.conf:1: invalid value 'ctl(10.0.0.1' for key 'SlurmctldHost'" },
	{ "SlurmctldHost=(10.0.0.1)\n", "@/herd.conf:1: invalid value '(10.0.0.1)' for key 'SlurmctldHost'" },
	{ "ClusterName=\"abc\n", "@/herd.conf:1: unterminated quote" },
	{ "a=1\n", "@/herd.conf:1: unknown key 'a'" },
	{ "KillWait=1 \\\nMinJobAge=2 \\\nBogus=3\n", "@/herd.conf:1: unknown key 'Bogus'" },
	{ "KillWait=1\nClusterName=\"a \\\nb\" Zap=1\n", "@/herd.conf:2: unknown key 'Zap'" },
	{ "ClusterName=x junk\n", "@/herd.conf:1: expected Key=Value, got 'junk'" },
	{ "=5\n", "@/herd.conf:1: expected Key=Value, got '=5'" },
	{ "NodeName=n[1-2] Foo=1\n", "@/herd.conf:1: unknown key 'Foo'" },
	{ "NodeName=n[2-1]\n", "@/herd.conf:1: invalid value 'n[2-1]' for key 'NodeName'" },
	{ "NodeName=\n", "@/herd.conf:1: invalid value '' for key 'NodeName'" },
	{ "NodeName=n1 CPUs=four\n", "@/herd.conf:1: invalid value 'four' for key 'CPUs'" },
	{ "NodeName=n1 RealMemory=4G\n", "@/herd.conf:1: invalid value '4G' for key 'RealMemory'" },
	{ "NodeName=n1 State=SLEEPY\n", "@/herd.conf:1: invalid value 'SLEEPY' for key 'State'" },
	{ "NodeName=n1 Port=0\n", "@/herd.conf:1: invalid value '0' for key 'Port'" },
	{ "NodeName=n1 Port=x\n", "@/herd.conf:1: invalid value 'x' for key 'Port'" },
	{ "NodeName=n[1-3] NodeAddr=a[1-2]\n", "@/herd.conf:1: 2 NodeAddr values for 3 nodes" },
	{ "NodeName=n[1-3] NodeHostname=h[1-4]\n", "@/herd.conf:1: 4 NodeHostname values for 3 nodes" },
	{ "NodeName=n[1-3] Port=1-2\n", "@/herd.conf:1: 2 Port values for 3 nodes" },
	{ "NodeName=DEFAULT NodeAddr=x\n", "@/herd.conf:1: NodeAddr cannot be set for NodeName=DEFAULT" },
	{ "NodeName=n1 NodeName=n2\n", "@/herd.conf:1: NodeName given twice" },
	{ "NodeName=n1\nNodeName=n[0-1]\n", "@/herd.conf:2: duplicate NodeName 'n1'" },
	{ "NodeName=n1 MaxTime=5\n", "@/herd.conf:1: unknown key 'MaxTime'" },
	{ "PartitionName=p MaxTime=1:2:3:4\n", "@/herd.conf:1: invalid value '1:2:3:4' for key 'MaxTime'" },
	{ "PartitionName=p State=SIDEWAYS\n", "@/herd.conf:1: invalid value 'SIDEWAYS' for key 'State'" },
	{ "PartitionName=p Default=perhaps\n", "@/herd.conf:1: invalid value 'perhaps' for key 'Default'" },
	{ "PartitionName=p MaxNodes=-5\n", "@/herd.conf:1: invalid value '-5' for key 'MaxNodes'" },
	{ "PartitionName=p OverSubscribe=SOMETIMES\n",
	  "@/herd.conf:1: invalid value 'SOMETIMES' for key 'OverSubscribe'" },
	{ "PartitionName=p OverSubscribe=NO:4\n", "@/herd.conf:1: invalid value 'NO:4' for key 'OverSubscribe'" },
	{ "PartitionName=p Nodes=n[1-\n", "@/herd.conf:1: invalid value 'n[1-' for key 'Nodes'" },
	{ "PartitionName=p Bogus=1\n", "@/herd.conf:1: unknown key 'Bogus'" },
	{ "PartitionName=p CPUs=1\n", "@/herd.conf:1: unknown key 'CPUs'" },
	{ "PartitionName=\n", "@/herd.conf:1: invalid value '' for key 'PartitionName'" },
	{ "PartitionName=p\nPartitionName=p\n", "@/herd.conf:2: duplicate PartitionName 'p'" },
	{ "NodeName=n[1-2]\n\nPartitionName=p Nodes=n[1-3]\n",
	  "@/herd.conf:3: unknown node 'n3' in Nodes of partition 'p'" },
	{ "NodeName=n1\nDownNodes=n[1-2]\n", "@/herd.conf:2: unknown node 'n2' in DownNodes" },
	{ "NodeName=n1\nDownNodes=n1 State=UP\n", "@/herd.conf:2: invalid value 'UP' for key 'State'" },
	{ "NodeName=n1\nDownNodes=n1 CPUs=1\n", "@/herd.conf:2: unknown key 'CPUs'" },
	{ "Include missing.conf\n", "@/missing.conf: No such file or directory" },
	{ "Include herd.conf\n", "@/herd.conf:1: Include nested too deeply ('herd.conf')" },
	{ "Include \n", "@/herd.conf:1: Include needs a file name" },
	{ "Include bad.d/bad.conf\n", "@/bad.d/bad.conf:2: unknown key 'Nope'" },
};

static void test_errors(void **state)
{
	free(write_file("bad.d/bad.conf", "KillWait=1\nNope=1\n"));
	for (size_t i = 0; i < N(error_cases); i++) {
		struct herd_error err = { "" };
		errno = 0;
		struct conf *conf = load_text(error_cases[i].text, &err);
		if (conf)
			fail_msg("accepted:\n%s", error_cases[i].text);
		assert_int_not_equal(errno, 0);
		char *want = expand_at(error_cases[i].error);
		assert_string_equal(err.text, want);
		free(want);
	}
}

static void test_missing_file(void **state)
{
	struct herd_error err;
	char *path = xasprintf("%s/does-not-exist.conf", dir);
	char *want = xasprintf("%s: No such file or directory", path);
	assert_null(conf_load(path, &err));
	assert_string_equal(err.text, want);
	assert_null(conf_load(path, NULL));           /* err may be NULL */
	free(want);
	free(path);
}

/* A long node list: the duplicate check must not be quadratic. */
static void test_many_nodes(void **state)
{
	struct conf *conf = load_ok("NodeName=n[1-100000] CPUs=1\nPartitionName=all Nodes=n[1-100000]\n");
	assert_int_equal(conf->nnodes, 100000);
	assert_string_equal(conf->nodes[99999].name, "n100000");
	conf_destroy(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_plain_keys),
		cmocka_unit_test(test_ctld_host),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_node_default),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_herd_up_file),
		cmocka_unit_test(test_down_nodes),
		cmocka_unit_test(test_env_path),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_many_nodes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
