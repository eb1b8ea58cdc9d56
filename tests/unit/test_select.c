/* Node selection (src/sched/select.c): all or nothing, table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "sched/select.h"

#define N 4
static struct sched_node idle(int cpus)
{
	return (struct sched_node){ .cpus = cpus, .memory = 1000, .usable = true };
}

static const int batch_23[] = { 2, 3 };   /* --batch: the nodes with its features */

struct sel_case {
	const char *what;
	struct sched_req req;
	int busy_cpus[N];        /* CPUs already taken on each node */
	enum sched_fit want;
	int want_n;
	int want_nodes[N], want_cpus[N];
};

static const struct sel_case cases[] = {
	{ "one task fits on the first node", { .ntasks = 1 }, { 0 }, SCHED_PICKED, 1, { 0 }, { 1 } },
	{ "-N2 takes two nodes", { .nodes = 2 }, { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 1, 1 } },
	{ "-N2 -n6 puts 3 on each", { .nodes = 2, .ntasks = 6 }, { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 3, 3 } },
	{ "-n8 -c2 spans 4 nodes", { .ntasks = 8, .cpus_per_task = 2 }, { 0 }, SCHED_PICKED, 4, { 0, 1, 2, 3 }, { 4, 4, 4, 4 } },
	{ "-n3 prefers one node with room", { .ntasks = 3 }, { 2, 0 }, SCHED_PICKED, 1, { 1 }, { 3 } },
	{ "exclusive gets the whole node", { .ntasks = 1, .exclusive = true }, { 1, 0 }, SCHED_PICKED, 1, { 1 }, { 4 } },
	{ "busy: all or nothing", { .nodes = 4 }, { 4, 0, 0, 0 }, SCHED_BUSY, 0, { 0 }, { 0 } },
	{ "never: more nodes than exist", { .nodes = 5 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "never: more CPUs than a node has", { .nodes = 1, .ntasks = 5 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "never: more memory than a node has", { .ntasks = 1, .mem_per_node = 2000 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "-n17 never fits 16 CPUs", { .ntasks = 17 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	/* issue 13: tasks x CPUs per task in 32 bits wrapped to 0 (it started
	 * at once) or went negative (NumCPUs=-1073741824) */
	{ "-n65536 -c65536 is 2^32 CPUs, not 0", { .ntasks = 65536, .cpus_per_task = 65536 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "-n49152 -c65536 is not negative", { .ntasks = 49152, .cpus_per_task = 65536 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "-N1 -n65536 -c65536: the share per node does not wrap", { .nodes = 1, .ntasks = 65536, .cpus_per_task = 65536 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "-N2 -n2 -c2^31-1: the share is not negative", { .nodes = 2, .ntasks = 3, .cpus_per_task = 2147483647 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "--mem-per-cpu 2^63 x 2 CPUs does not wrap to 0", { .ntasks = 1, .cpus_per_task = 2, .mem_per_cpu = 1ULL << 63 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "--mem-per-cpu 2^63 -N1 does not wrap to 0", { .nodes = 1, .ntasks = 2, .mem_per_cpu = 1ULL << 63 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "--mem-per-cpu 2^62 -n5 over nodes", { .ntasks = 5, .cpus_per_task = 4, .mem_per_cpu = 1ULL << 62 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	/* placement options (doc/scheduling.md) */
	{ "-N2-4 takes every free node", { .nodes = 2, .max_nodes = 4 }, { 0 }, SCHED_PICKED, 4, { 0, 1, 2, 3 }, { 1, 1, 1, 1 } },
	{ "-N2-4 --use-min-nodes takes two", { .nodes = 2, .max_nodes = 4, .use_min_nodes = true }, { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 1, 1 } },
	{ "-N2-4 -n8 spreads the tasks over four", { .nodes = 2, .max_nodes = 4, .ntasks = 8 }, { 0 }, SCHED_PICKED, 4, { 0, 1, 2, 3 }, { 2, 2, 2, 2 } },
	{ "-N2-4 gets the two that are free", { .nodes = 2, .max_nodes = 4 }, { 4, 4, 0, 0 }, SCHED_PICKED, 2, { 2, 3 }, { 1, 1 } },
	{ "--spread-job -n3: one task a node", { .ntasks = 3, .spread = true }, { 0 }, SCHED_PICKED, 3, { 0, 1, 2 }, { 1, 1, 1 } },
	{ "--spread-job -n6: round the nodes", { .ntasks = 6, .spread = true }, { 0 }, SCHED_PICKED, 4, { 0, 1, 2, 3 }, { 2, 2, 1, 1 } },
	{ "--mincpus 3 -n1 holds 3", { .ntasks = 1, .mincpus = 3 }, { 0 }, SCHED_PICKED, 1, { 0 }, { 3 } },
	{ "--mincpus 3 skips a node with 2 free", { .ntasks = 1, .mincpus = 3 }, { 2, 0 }, SCHED_PICKED, 1, { 1 }, { 3 } },
	{ "--mincpus 3 -N2: 3 on each", { .nodes = 2, .mincpus = 3 }, { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 3, 3 } },
	{ "--mincpus 5 never fits 4 CPUs", { .ntasks = 1, .mincpus = 5 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "--tmp: no node has any", { .ntasks = 1, .tmp_mb = 1 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "-B 2: no node says its sockets", { .ntasks = 1, .sockets = 2 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	/* sbatch --batch: one node of the allocation has its features */
	{ "--batch -n1 takes the node that will do", { .ntasks = 1, .batch = batch_23, .nbatch = 2 }, { 0 }, SCHED_PICKED, 1, { 2 }, { 1 } },
	{ "--batch -N2 takes the nodes that will do first", { .nodes = 2, .batch = batch_23, .nbatch = 2 }, { 0 }, SCHED_PICKED, 2, { 2, 3 }, { 1, 1 } },
	{ "--batch -N2 with node 2 busy", { .nodes = 2, .batch = batch_23, .nbatch = 2 }, { 0, 0, 4, 0 }, SCHED_PICKED, 2, { 0, 3 }, { 1, 1 } },
	{ "--batch: those nodes busy", { .ntasks = 1, .batch = batch_23, .nbatch = 2 }, { 0, 0, 4, 4 }, SCHED_BUSY, 0, { 0 }, { 0 } },
	{ "--batch: no node will do", { .ntasks = 1, .batch = batch_23, .nbatch = 0 }, { 0 }, SCHED_NEVER, 0, { 0 }, { 0 } },
	{ "--batch -n8 -c2: all four, in node order", { .ntasks = 8, .cpus_per_task = 2, .batch = batch_23, .nbatch = 1 }, { 0 }, SCHED_PICKED, 4, { 0, 1, 2, 3 }, { 4, 4, 4, 4 } },
	{ "--batch -n3 fills node 2 first", { .ntasks = 3, .batch = batch_23, .nbatch = 1 }, { 0, 0, 2, 0 }, SCHED_PICKED, 2, { 0, 2 }, { 1, 2 } },
};

static void table(void **state)
{
	int cand[N] = { 0, 1, 2, 3 };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct sel_case *tc = &cases[c];
		struct sched_node nodes[N];
		int out[N], cpus[N], n = 0;
		for (int i = 0; i < N; i++) {
			nodes[i] = idle(4);
			nodes[i].alloc_cpus = tc->busy_cpus[i];
			nodes[i].njobs = tc->busy_cpus[i] > 0;
		}
		enum sched_fit fit = sched_select(nodes, cand, N, &tc->req, out, cpus, &n, NULL);
		print_message("%s\n", tc->what);
		assert_int_equal(fit, tc->want);
		if (fit != SCHED_PICKED)
			continue;
		assert_int_equal(n, tc->want_n);
		for (int i = 0; i < n; i++) {
			assert_int_equal(out[i], tc->want_nodes[i]);
			assert_int_equal(cpus[i], tc->want_cpus[i]);
		}
	}
}

/* --tmp and -B pick the nodes that have them, and never the others. */
static void node_kind(void **state)
{
	struct sched_node nodes[N];
	int cand[N] = { 0, 1, 2, 3 }, out[N], cpus[N], n = 0;
	for (int i = 0; i < N; i++) {
		nodes[i] = idle(4);
		nodes[i].tmp_disk = 1000 * i;
		nodes[i].sockets = i < 2 ? 1 : 2;
		nodes[i].cores = i < 2 ? 4 : 2;
		nodes[i].threads = 1;
	}
	struct sched_req tmp = { .ntasks = 1, .tmp_mb = 1500 };
	assert_int_equal(sched_select(nodes, cand, N, &tmp, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 2);
	struct sched_req sockets = { .nodes = 2, .sockets = 2 };
	assert_int_equal(sched_select(nodes, cand, N, &sockets, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 3);
	struct sched_req cores = { .nodes = 3, .cores = 4 };   /* two nodes have 4 cores a socket */
	assert_int_equal(sched_select(nodes, cand, N, &cores, out, cpus, &n, NULL), SCHED_NEVER);
	nodes[2].alloc_cpus = 4;
	nodes[2].njobs = 1;
	assert_int_equal(sched_select(nodes, cand, N, &tmp, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 3);
	nodes[3].alloc_cpus = 4;
	nodes[3].njobs = 1;
	assert_int_equal(sched_select(nodes, cand, N, &tmp, out, cpus, &n, NULL), SCHED_BUSY);
}

static void unusable_nodes_are_skipped(void **state)
{
	struct sched_node nodes[2] = { idle(4), idle(4) };
	int cand[2] = { 0, 1 }, out[2], cpus[2], n;
	struct sched_req req = { .nodes = 2 };
	nodes[1].usable = false;
	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_BUSY);
	req.nodes = 1;
	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 0);
}

/* -w and -x: required nodes come first and all of them; excluded never. */
static void required_and_excluded(void **state)
{
	struct sched_node nodes[N] = { idle(4), idle(4), idle(4), idle(4) };
	int cand[N] = { 0, 1, 2, 3 }, out[N], cpus[N], n = 0;
	int req3[] = { 3 }, req13[] = { 1, 3 }, exc01[] = { 0, 1 };
	struct sched_req req = { .ntasks = 1, .required = req3, .nrequired = 1 };

	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 3);
	/* two named nodes: both, even for one task */
	req = (struct sched_req){ .ntasks = 1, .required = req13, .nrequired = 2 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 3);
	/* -N3 with one named node: it and two more */
	req = (struct sched_req){ .nodes = 3, .required = req3, .nrequired = 1 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 0);
	/* -n6 with one named node of 4 CPUs: it is filled, then another */
	req = (struct sched_req){ .ntasks = 6, .required = req3, .nrequired = 1 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(cpus[0], 4);
	assert_int_equal(cpus[1], 2);
	/* a busy named node: wait, even though others are free */
	nodes[3].alloc_cpus = 4;
	nodes[3].njobs = 1;
	req = (struct sched_req){ .ntasks = 1, .required = req3, .nrequired = 1 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_BUSY);
	nodes[3] = idle(4);
	/* excluded nodes are never picked */
	req = (struct sched_req){ .ntasks = 1, .excluded = exc01, .nexcluded = 2 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 2);
	req = (struct sched_req){ .nodes = 3, .excluded = exc01, .nexcluded = 2 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_NEVER);
	/* required and excluded at once, or required outside the candidates */
	int req0[] = { 0 };
	req = (struct sched_req){ .ntasks = 1, .required = req0, .nrequired = 1,
				  .excluded = exc01, .nexcluded = 2 };
	assert_int_equal(sched_select(nodes, cand, N, &req, out, cpus, &n, NULL), SCHED_NEVER);
	req = (struct sched_req){ .ntasks = 1, .required = req3, .nrequired = 1 };
	assert_int_equal(sched_select(nodes, cand, 3, &req, out, cpus, &n, NULL), SCHED_NEVER);
}

/* --mem-per-cpu: memory grows with the CPUs taken on each node. */
static void memory_per_cpu(void **state)
{
	struct sched_node nodes[2] = { idle(4), idle(4) };   /* 1000 MB each */
	int cand[2] = { 0, 1 }, out[2], cpus[2], n = 0;
	struct sched_req req = { .ntasks = 4, .mem_per_cpu = 250 };

	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 1);
	req.mem_per_cpu = 400;   /* 2 tasks' memory per node: spread over both */
	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(n, 2);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[1], 2);
	req.mem_per_cpu = 600;   /* one task per node: 4 never fit */
	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_NEVER);
	nodes[0].alloc_mem = 700;   /* busy memory: wait */
	req = (struct sched_req){ .nodes = 2, .mem_per_cpu = 500 };
	assert_int_equal(sched_select(nodes, cand, 2, &req, out, cpus, &n, NULL), SCHED_BUSY);
}

/* ExclusiveUser: a node with an ExclusiveUser job takes only that user's
 * jobs; an ExclusiveUser job joins only nodes whose jobs are all its user's;
 * without the fields (0) nothing changes. */
static void exclusive_user(void **state)
{
	struct sched_node nodes[2] = { idle(4), idle(4) };
	int cand[2] = { 0, 1 }, out[2], cpus[2], n = 0;
	struct sched_req u1 = { .ntasks = 1, .user = 1001, .exclusive_user = true };
	struct sched_req u2 = { .ntasks = 1, .user = 1002 };
	struct sched_req anyone = { .ntasks = 1 };

	sched_node_take(&nodes[0], &u1, 1, 0, NULL);
	assert_int_equal(nodes[0].njobs, 1);
	assert_int_equal(nodes[0].alloc_cpus, 1);
	assert_int_equal(nodes[0].user, 1001);
	assert_true(nodes[0].user_owned);
	/* another user goes to the other node, the same user may join */
	assert_int_equal(sched_select(nodes, cand, 2, &u2, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 1);
	assert_int_equal(sched_select(nodes, cand, 2, &anyone, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 1);
	struct sched_req u1_plain = { .ntasks = 1, .user = 1001 };
	assert_int_equal(sched_select(nodes, cand, 2, &u1_plain, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 0);
	/* both nodes taken by someone: the other user waits, but could run on empty nodes */
	sched_node_take(&nodes[1], &u2, 1, 0, NULL);
	assert_int_equal(nodes[1].user, 1002);
	assert_false(nodes[1].user_owned);
	struct sched_req u3 = { .ntasks = 1, .user = 1003, .exclusive_user = true };
	assert_int_equal(sched_select(nodes, cand, 2, &u3, out, cpus, &n, NULL), SCHED_BUSY);
	/* an ExclusiveUser job of u2 may join u2's node */
	struct sched_req u2x = { .ntasks = 1, .user = 1002, .exclusive_user = true };
	assert_int_equal(sched_select(nodes, cand, 2, &u2x, out, cpus, &n, NULL), SCHED_PICKED);
	assert_int_equal(out[0], 1);
	/* users mixed on a node: no ExclusiveUser job joins it */
	sched_node_take(&nodes[1], &u1_plain, 1, 0, NULL);
	assert_int_equal(nodes[1].user, 0);
	assert_int_equal(sched_select(nodes, cand, 2, &u2x, out, cpus, &n, NULL), SCHED_BUSY);
	/* default fields: busy nodes are shared as before */
	struct sched_node plain[1] = { idle(4) };
	plain[0].alloc_cpus = 1;
	plain[0].njobs = 1;
	assert_int_equal(sched_select(plain, cand, 1, &anyone, out, cpus, &n, NULL), SCHED_PICKED);
}

/* The saturating products every count goes through. */
static void saturating_products(void **state)
{
	(void)state;
	assert_true(sched_mul(65536, 65536) == 4294967296LL);
	assert_true(sched_mul(INT64_MAX / 2 + 1, 2) == INT64_MAX);
	assert_true(sched_mul(-(INT64_MAX / 2) - 2, 2) == INT64_MIN);
	assert_true(sched_umul(1ULL << 63, 2) == UINT64_MAX);
	assert_true(sched_umul(1ULL << 31, 1ULL << 31) == 1ULL << 62);
}

/* GRES (doc/gres.md section 2): four nodes of 4 CPUs and 2 GPUs of kind 0
 * (node 3: also 8 shards, kind 1); gpus_busy of each held. */
static const struct sched_gres gpu_node1[] = { { .kinds = 1, .per_node = 1, .gpu = true } };
static const struct sched_gres gpu_node2[] = { { .kinds = 1, .per_node = 2, .gpu = true } };
static const struct sched_gres gpu_node3[] = { { .kinds = 1, .per_node = 3, .gpu = true } };
static const struct sched_gres gpu_job3[] = { { .kinds = 1, .per_job = 3, .gpu = true } };
static const struct sched_gres gpu_total2_node1[] = { { .kinds = 1, .per_node = 1, .per_job = 2, .gpu = true } };
static const struct sched_gres gpu_total2[] = { { .kinds = 1, .per_job = 2, .gpu = true } };
static const struct sched_gres gpu_task1[] = { { .kinds = 1, .per_task = 1, .gpu = true } };
static const struct sched_gres shard4[] = { { .kinds = 2, .per_node = 4 } };
static const struct sched_gres gpu_any[] = { { .kinds = 3, .per_node = 2 } };

struct gres_case {
	const char *what;
	struct sched_req req;
	int gpus_busy[N];
	enum sched_fit want;
	int want_n;
	int want_nodes[N], want_cpus[N];
	uint32_t want_gres[N];   /* the item's count on each chosen node */
};

static const struct gres_case gres_cases[] = {
	{ "--gres=gpu:1 on the first node", { .ntasks = 1, .gres = gpu_node1, .ngres = 1 }, { 0 },
	  SCHED_PICKED, 1, { 0 }, { 1 }, { 1 } },
	{ "--gres=gpu:1 skips a node whose GPUs are held", { .ntasks = 1, .gres = gpu_node1, .ngres = 1 },
	  { 2, 1 }, SCHED_PICKED, 1, { 1 }, { 1 }, { 1 } },
	{ "--gres=gpu:2 -N2", { .nodes = 2, .gres = gpu_node2, .ngres = 1 }, { 1 }, SCHED_PICKED, 2,
	  { 1, 2 }, { 1, 1 }, { 2, 2 } },
	{ "--gres=gpu:3 never fits two-GPU nodes", { .ntasks = 1, .gres = gpu_node3, .ngres = 1 }, { 0 },
	  SCHED_NEVER, 0, { 0 }, { 0 }, { 0 } },
	{ "GPUs held, CPUs free: busy", { .ntasks = 1, .gres = gpu_node1, .ngres = 1 }, { 2, 2, 2, 2 },
	  SCHED_BUSY, 0, { 0 }, { 0 }, { 0 } },
	{ "--gpus=3 packs two nodes", { .ntasks = 1, .gres = gpu_job3, .ngres = 1 }, { 0 }, SCHED_PICKED, 2,
	  { 0, 1 }, { 1, 1 }, { 2, 1 } },
	{ "--gpus=3 with node 0 half held", { .ntasks = 1, .gres = gpu_job3, .ngres = 1 }, { 1 },
	  SCHED_PICKED, 2, { 0, 1 }, { 1, 1 }, { 1, 2 } },
	{ "--gpus-per-task=1 -n3: tasks as GPUs allow", { .ntasks = 3, .gres = gpu_task1, .ngres = 1 },
	  { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 2, 1 }, { 2, 1 } },
	{ "--gpus-per-task=1 -N2 -n4", { .nodes = 2, .ntasks = 4, .gres = gpu_task1, .ngres = 1 }, { 0 },
	  SCHED_PICKED, 2, { 0, 1 }, { 2, 2 }, { 2, 2 } },
	{ "--exclusive --gpus-per-task=1 -n4: two tasks a node, as the GPUs allow",
	  { .ntasks = 4, .exclusive = true, .gres = gpu_task1, .ngres = 1 }, { 0 }, SCHED_PICKED, 2,
	  { 0, 1 }, { 4, 4 }, { 2, 2 } },
	{ "--gpus=2 --gpus-per-node=1 -N2: the total, not one more each",
	  { .nodes = 2, .gres = gpu_total2_node1, .ngres = 1 }, { 0 }, SCHED_PICKED, 2,
	  { 0, 1 }, { 1, 1 }, { 1, 1 } },
	{ "--gpus=2 --cpus-per-gpu=3: one GPU and 3 CPUs a node",
	  { .ntasks = 1, .gres = gpu_total2, .ngres = 1, .cpus_per_gpu = 3 }, { 0 }, SCHED_PICKED, 2,
	  { 0, 1 }, { 3, 3 }, { 1, 1 } },
	{ "--gpus-per-task=1 -N1 -n3 never fits", { .nodes = 1, .ntasks = 3, .gres = gpu_task1, .ngres = 1 },
	  { 0 }, SCHED_NEVER, 0, { 0 }, { 0 }, { 0 } },
	{ "--cpus-per-gpu=2 with --gpus=3", { .ntasks = 1, .gres = gpu_job3, .ngres = 1, .cpus_per_gpu = 2 },
	  { 0 }, SCHED_PICKED, 2, { 0, 1 }, { 4, 2 }, { 2, 1 } },
	{ "--mem-per-gpu: 2 x 600 MB never fits 1000", { .ntasks = 1, .gres = gpu_node2, .ngres = 1, .mem_per_gpu = 600 },
	  { 0 }, SCHED_NEVER, 0, { 0 }, { 0 }, { 0 } },
	{ "shards: only node 3 has them", { .ntasks = 1, .gres = shard4, .ngres = 1 }, { 0 }, SCHED_PICKED, 1,
	  { 3 }, { 1 }, { 4 } },
	{ "an item of two kinds counts both: node 3's",
	  { .ntasks = 1, .gres = gpu_any, .ngres = 1 }, { 2, 2, 2, 2 }, SCHED_PICKED, 1, { 3 }, { 1 }, { 2 } },
};

static void gres(void **state)
{
	int cand[N] = { 0, 1, 2, 3 };
	for (size_t c = 0; c < sizeof(gres_cases) / sizeof(gres_cases[0]); c++) {
		const struct gres_case *tc = &gres_cases[c];
		struct sched_node nodes[N];
		int out[N], cpus[N], n = 0;
		uint32_t split[N];
		for (int i = 0; i < N; i++) {
			nodes[i] = idle(4);
			nodes[i].gres[0] = 2;
			nodes[i].alloc_gres[0] = (uint16_t)tc->gpus_busy[i];
			nodes[i].njobs = tc->gpus_busy[i] > 0;
		}
		nodes[3].gres[1] = 8;
		print_message("%s\n", tc->what);
		enum sched_fit fit = sched_select(nodes, cand, N, &tc->req, out, cpus, &n, split);
		assert_int_equal(fit, tc->want);
		if (fit != SCHED_PICKED)
			continue;
		assert_int_equal(n, tc->want_n);
		for (int i = 0; i < n; i++) {
			assert_int_equal(out[i], tc->want_nodes[i]);
			assert_int_equal(cpus[i], tc->want_cpus[i]);
			assert_int_equal(split[i], tc->want_gres[i]);
		}
		/* taken, the counts are held by kind */
		for (int i = 0; i < n; i++)
			sched_node_take(&nodes[out[i]], &tc->req, cpus[i], 0, &split[i]);
		uint32_t held = 0, want = 0;
		for (int i = 0; i < N; i++)
			held += nodes[i].alloc_gres[0] + nodes[i].alloc_gres[1] - tc->gpus_busy[i];
		for (int i = 0; i < n; i++)
			want += tc->want_gres[i];
		assert_int_equal(held, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(saturating_products),
		cmocka_unit_test(table),
		cmocka_unit_test(unusable_nodes_are_skipped),
		cmocka_unit_test(node_kind),
		cmocka_unit_test(required_and_excluded),
		cmocka_unit_test(memory_per_cpu),
		cmocka_unit_test(exclusive_user),
		cmocka_unit_test(gres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
