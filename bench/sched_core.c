/* Scheduler core benchmark: one pass of src/sched/pass.c over a synthetic
 * big cluster, no daemons.  10,000 nodes of 64 CPUs, ~20,000 running jobs
 * (ends spread over two days, a few without end), 1,000 pending jobs of
 * mixed sizes on every node; a backfill pass that tests 500 of them
 * (bf_max_job_test's default) and a main pass of 100 (default_queue_depth).
 * Prints the median of a few runs beside the targets, wall clock and the
 * CPU time the pass took (on a loaded machine the second is the cost).
 *   build/bench/sched_core [nodes [running [pending]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "sched/pass.h"
#include "bench.h"

#define NOW 1700000000
#define CPUS 64
#define MEM 256000
#define RUNS 5

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

struct cluster {
	struct sched_node *nodes;
	int nnodes;
	struct sched_run *run;
	int nrun;
	struct sched_job *jobs;
	int njobs;
	struct sched_alt alt;
	int *all;
};

static void place(struct cluster *c, int want)
{
	int failed = 0;

	c->run = xmalloc(want * sizeof(*c->run));
	while (c->nrun < want && failed < 1000) {
		bool multi = rnd(10) == 0;
		int n = multi ? 1 + rnd(4) : 1, cpus = multi ? CPUS : 1 + rnd(32);
		int *node = xmalloc(n * sizeof(int)), *cp = xmalloc(n * sizeof(int)), got = 0;
		uint64_t *mem = xmalloc(n * sizeof(uint64_t));
		for (int tries = 0; tries < 64 && got < n; tries++) {
			int k = rnd(c->nnodes);
			struct sched_node *nd = &c->nodes[k];
			bool dup = false;
			for (int i = 0; i < got; i++)
				dup |= node[i] == k;
			if (!dup && nd->cpus - nd->alloc_cpus >= cpus) {
				node[got] = k;
				cp[got] = cpus;
				mem[got++] = (uint64_t)cpus * 2000;
			}
		}
		if (got < n) {
			free(node);
			free(cp);
			free(mem);
			failed++;
			continue;
		}
		failed = 0;
		for (int i = 0; i < n; i++) {
			c->nodes[node[i]].alloc_cpus += cp[i];
			c->nodes[node[i]].alloc_mem += mem[i];
			c->nodes[node[i]].njobs++;
		}
		c->run[c->nrun++] = (struct sched_run){
			.node = node, .cpus = cp, .mem = mem, .n = n,
			.end = rnd(200) == 0 ? 0 : NOW + 60 + rnd(2 * 86400) };
	}
}

static void pending(struct cluster *c, int njobs)
{
	c->jobs = xmalloc(njobs * sizeof(*c->jobs));
	c->alt = (struct sched_alt){ .part = 0, .cand = c->all, .ncand = c->nnodes };
	for (int j = 0; j < njobs; j++) {
		struct sched_job *jb = &c->jobs[j];
		int kind = rnd(10);
		*jb = (struct sched_job){ .id = j + 1, .user = rnd(50), .alt = &c->alt, .nalt = 1,
					  .time_limit = 300 + rnd(86400), .resv = -1 };
		if (kind < 6)
			jb->req = (struct sched_req){ .ntasks = 1 + rnd(CPUS), .mem_per_cpu = 1000 };
		else if (kind < 9)
			jb->req = (struct sched_req){ .nodes = 1 + rnd(16), .exclusive = true };
		else
			jb->req = (struct sched_req){ .nodes = 64 + rnd(960), .exclusive = true };
		if (rnd(5) == 0)
			jb->time_min = jb->time_limit / 4;
	}
	c->njobs = njobs;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double one_pass(struct cluster *c, struct sched_params *pr, int njobs, int counts[4],
		       double *cpu)
{
	struct sched_decision *out = xmalloc(njobs * sizeof(*out));
	double t0 = now_s(), c0 = cpu_s(), t;
	sched_pass(pr, c->nodes, c->nnodes, c->run, c->nrun, NULL, 0, c->jobs, njobs, out);
	t = now_s() - t0;
	*cpu = cpu_s() - c0;
	memset(counts, 0, 4 * sizeof(int));
	for (int i = 0; i < njobs; i++)
		counts[out[i].what]++;
	sched_decisions_free(out, njobs);
	free(out);
	return t;
}

static void report(const char *what, struct cluster *c, struct sched_params *pr, int njobs,
		   double target)
{
	double t[RUNS], cpu[RUNS];
	int counts[4];
	for (int i = 0; i < RUNS; i++)
		t[i] = one_pass(c, pr, njobs, counts, &cpu[i]);
	qsort(t, RUNS, sizeof(double), cmp_double);
	qsort(cpu, RUNS, sizeof(double), cmp_double);
	/* the CPU time says what the pass costs on a loaded machine */
	printf("%-34s %9.2f ms (CPU %.2f ms)  target < %g ms: %s   [start %d, planned %d, wait %d, none %d]\n",
	       what, t[RUNS / 2] * 1e3, cpu[RUNS / 2] * 1e3, target * 1e3,
	       t[RUNS / 2] < target ? "ok" : "SLOW", counts[1], counts[2], counts[3], counts[0]);
}

int main(int argc, char **argv)
{
	struct cluster c = { 0 };
	int want_run = argc > 2 ? atoi(argv[2]) : 20000, npend = argc > 3 ? atoi(argv[3]) : 1000;
	long busy = 0;

	c.nnodes = argc > 1 ? atoi(argv[1]) : 10000;
	c.nodes = xmalloc(c.nnodes * sizeof(*c.nodes));
	c.all = xmalloc(c.nnodes * sizeof(int));
	for (int i = 0; i < c.nnodes; i++) {
		c.nodes[i] = (struct sched_node){ .cpus = CPUS, .memory = MEM, .usable = rnd(500) != 0 };
		c.all[i] = i;
	}
	place(&c, want_run);
	pending(&c, npend);
	for (int i = 0; i < c.nnodes; i++)
		busy += c.nodes[i].alloc_cpus;
	printf("sched_core: %d nodes x %d CPUs, %d running jobs (%.0f%% of CPUs), %d pending\n",
	       c.nnodes, CPUS, c.nrun, 100.0 * busy / ((double)c.nnodes * CPUS), c.njobs);

	struct sched_params bf = { .now = NOW, .backfill = true, .window = 86400, .resolution = 60,
				   .max_job_test = 500, .nparts = 1 };
	report("backfill, conservative, 500 tested", &c, &bf, c.njobs, 1.0);
	bf.max_reservations = 1;
	report("backfill, EASY, 500 tested", &c, &bf, c.njobs, 1.0);
	struct sched_params mp = { .now = NOW, .max_job_test = 100, .nparts = 1 };
	report("main pass, 100 jobs", &c, &mp, c.njobs, 0.005);
	for (int j = 0; j < c.nrun; j++) {
		free((void *)c.run[j].node);
		free((void *)c.run[j].cpus);
		free((void *)c.run[j].mem);
	}
	free(c.run);
	free(c.jobs);
	free(c.nodes);
	free(c.all);
	return 0;
}
