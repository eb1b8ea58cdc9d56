/* srun --cpu-bind on a node: parsing, each local task's mask from the
 * step's CPUs, the SLURM_CPU_BIND* values and the verbose line.  The stepd
 * sources are not in libherd, so the one under test is compiled in here. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "stepd/bind.c"
#include "stepd/bind_dist.c"

static char *mask_of(const struct bind *b, const char *cpus, int cpt, int local)
{
	static char hex[BIND_MAX_CPUS / 4 + 3];
	int *ids;
	size_t n;
	cpu_set_t set;

	assert_int_equal(bind_cpu_list(cpus, NULL, &ids, &n), 0);
	if (bind_task_mask(b, ids, n, cpt, local, &set) <= 0)
		strcpy(hex, "unbound");
	else
		bind_mask_hex(&set, hex, sizeof(hex));
	free(ids);
	return hex;
}

static void test_masks(void **state)
{
	static const struct {
		const char *spec, *cpus;
		int cpt, local;
		const char *mask;
	} cases[] = {
		{ "", "0-3", 1, 0, "0x1" },            /* default: cores, in order */
		{ "", "0-3", 1, 3, "0x8" },
		{ "", "0-3", 2, 1, "0xc" },            /* cpus_per_task wide */
		{ "", "4,6,8-9", 2, 1, "0x300" },
		{ "", "0-1", 1, 3, "0x2" },            /* more tasks than CPUs wrap */
		{ "cores", "2-3", 1, 0, "0x4" },
		{ "sockets", "2-3", 1, 1, "0x8" },
		{ "ldoms", "0-3", 2, 1, "0xc" },
		{ "rank", "4-7", 2, 1, "0x20" },        /* one CPU a task, whatever -c */
		{ "rank", "4-5", 1, 3, "0x20" },
		{ "threads", "2-3", 1, 1, "0x8" },
		{ "none", "0-3", 1, 0, "unbound" },
		{ "", "", 1, 0, "unbound" },           /* holds no CPUs: nothing to bind to */
		{ "map_cpu:3,1", "0-3", 1, 0, "0x8" },
		{ "map_cpu:3,1", "0-3", 1, 1, "0x2" },
		{ "map_cpu:3,1", "0-3", 1, 2, "0x8" }, /* task i: entry i mod n */
		{ "map_cpu:0x10", "", 1, 0, "0x10000" },
		{ "mask_cpu:0x3,0xc", "0-3", 1, 1, "0xc" },
		{ "mask_cpu:F0", "0-7", 1, 5, "0xf0" },
		{ "verbose,mask_cpu:0x3,0xc", "", 1, 0, "0x3" },
		{ "q,map_cpu:1", "", 1, 0, "0x2" },
		{ "v,cores", "0-1", 1, 1, "0x2" },
		{ "mask_cpu:0x10000000000000000", "", 1, 0, "0x10000000000000000" },   /* CPU 64 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bind b;
		struct herd_error err;
		if (bind_parse(cases[i].spec, &b, &err) < 0)
			fail_msg("'%s': %s", cases[i].spec, err.text);
		const char *got = mask_of(&b, cases[i].cpus, cases[i].cpt, cases[i].local);
		if (strcmp(got, cases[i].mask))
			fail_msg("'%s' cpus '%s' cpt %d task %d: got %s, want %s", cases[i].spec,
				 cases[i].cpus, cases[i].cpt, cases[i].local, got, cases[i].mask);
		bind_free(&b);
	}
}

static void test_refusals(void **state)
{
	static const struct { const char *spec, *text; } bad[] = {
		{ "sockets2", "Invalid --cpu-bind argument: sockets2" },
		{ "verbose,nope", "Invalid --cpu-bind argument: verbose,nope" },
		{ "map_cpu:", "Failed to parse --cpu-bind list: map_cpu:" },
		{ "map_cpu:1,x", "Failed to parse --cpu-bind list: map_cpu:1,x" },
		{ "map_cpu:-1", "Failed to parse --cpu-bind list: map_cpu:-1" },
		{ "mask_cpu:0x0", "Failed to parse --cpu-bind list: mask_cpu:0x0" },
		{ "mask_cpu:0xg", "Failed to parse --cpu-bind list: mask_cpu:0xg" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bind b;
		struct herd_error err;
		assert_int_equal(bind_parse(bad[i].spec, &b, &err), -1);
		assert_string_equal(err.text, bad[i].text);
	}
	int *ids;
	size_t n;
	assert_int_equal(bind_cpu_list("0-x", NULL, &ids, &n), -1);
	assert_int_equal(bind_cpu_list("3-1", NULL, &ids, &n), -1);
	assert_int_equal(bind_cpu_list("0,,2", NULL, &ids, &n), -1);
}

static void test_env(void **state)
{
	static const struct {
		const char *spec, *cpus;
		int cpt, nlocal;
		const char *bind, *type, *list, *verbose;
	} cases[] = {
		{ "", "0-3", 2, 2, "quiet,mask_cpu:0x3,0xc", "mask_cpu:", "0x3,0xc", "quiet" },
		{ "verbose", "0-1", 1, 2, "verbose,mask_cpu:0x1,0x2", "mask_cpu:", "0x1,0x2", "verbose" },
		{ "none", "0-3", 1, 2, "quiet,none", "none", "", "quiet" },
		{ "", "", 1, 2, "quiet,none", "none", "", "quiet" },
		{ "v,map_cpu:2,3", "", 1, 2, "verbose,map_cpu:2,3", "map_cpu:", "2,3", "verbose" },
		{ "mask_cpu:0x3", "", 1, 2, "quiet,mask_cpu:0x3,0x3", "mask_cpu:", "0x3,0x3", "quiet" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bind b;
		struct herd_error err;
		char *v[4];
		int *ids;
		size_t n;
		assert_int_equal(bind_parse(cases[i].spec, &b, &err), 0);
		assert_int_equal(bind_cpu_list(cases[i].cpus, NULL, &ids, &n), 0);
		bind_env(&b, ids, n, cases[i].cpt, cases[i].nlocal, &v[0], &v[1], &v[2], &v[3]);
		const char *want[4] = { cases[i].bind, cases[i].type, cases[i].list, cases[i].verbose };
		for (int k = 0; k < 4; k++) {
			if (strcmp(v[k], want[k]))
				fail_msg("'%s' value %d: got '%s', want '%s'", cases[i].spec, k, v[k], want[k]);
			free(v[k]);
		}
		free(ids);
		bind_free(&b);
	}
}

static void test_verbose_line(void **state)
{
	struct bind b;
	struct herd_error err;
	cpu_set_t set;
	char line[BIND_MAX_CPUS / 4 + 200];

	assert_int_equal(bind_parse("verbose", &b, &err), 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	bind_verbose_line(&b, &set, "node1", 0, 0, 12345, line, sizeof(line));
	assert_string_equal(line, "cpu-bind=MASK - node1, task  0  0 [12345]: mask 0x1 set\n");
	CPU_SET(5, &set);
	bind_verbose_line(&b, &set, "n2", 13, 1, 7, line, sizeof(line));
	assert_string_equal(line, "cpu-bind=MASK - n2, task 13  1 [7]: mask 0x21 set\n");
	bind_free(&b);
}

/* bind_dist.c: each task's CPUs by -m's socket and core parts and --hint. */
static void test_dist_order(void **state)
{
	static const struct {
		int sockets, cores, threads;
		const char *dist, *cpus;
		bool one_thread;
		int cpt, ntasks;
		const char *order;   /* the CPUs, task after task */
	} cases[] = {
		{ 2, 2, 1, "block:block", "0-3", false, 1, 2, "0,1,2,3" },
		{ 2, 2, 1, "block:cyclic", "0-3", false, 1, 4, "0,2,1,3" },
		{ 2, 2, 1, "block", "0-3", false, 1, 2, "0,2,1,3" },          /* cyclic by default */
		{ 2, 2, 1, "block:cyclic", "0-3", false, 2, 2, "0,1,2,3" },   /* a task on one socket */
		{ 2, 2, 1, "block:fcyclic", "0-3", false, 2, 2, "0,2,1,3" },
		{ 2, 2, 1, "block:cyclic", "0-2", false, 2, 2, "0,1,2" },     /* spills where it must */
		{ 2, 2, 2, "block:block", "0-7", true, 1, 4, "0,2,4,6" },     /* nomultithread */
		{ 1, 2, 2, "block:block:fcyclic", "0-3", false, 1, 4, "0,2,1,3" },
		{ 4, 1, 1, "block", "0-3", false, 2, 2, "0,1,2,3" },          /* CPUs=4 alone */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bind_topo t = { cases[i].sockets, cases[i].cores, cases[i].threads };
		struct dist d;
		int *ids, *order;
		size_t n, nout;
		char text[128] = "";
		assert_int_equal(dist_parse(cases[i].dist, &d, NULL), 0);
		assert_int_equal(bind_cpu_list(cases[i].cpus, NULL, &ids, &n), 0);
		order = bind_dist_order(&t, dist_socket(&d), dist_core(&d), cases[i].one_thread, ids, n,
					cases[i].cpt, cases[i].ntasks, &nout);
		for (size_t k = 0; k < nout; k++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d", k ? "," : "",
				 order[k]);
		if (strcmp(text, cases[i].order))
			fail_msg("case %zu (%s): %s, expected %s", i, cases[i].dist, text, cases[i].order);
		free(ids);
		free(order);
	}
	/* binding to cores takes each core's other threads */
	struct bind_topo t = { 1, 2, 2 };
	int all[] = { 0, 1, 2, 3 };
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(2, &set);
	bind_cores_expand(&t, all, 4, &set);
	assert_true(CPU_ISSET(3, &set) && CPU_ISSET(2, &set) && !CPU_ISSET(0, &set));
	/* binding to sockets takes the socket's other CPUs */
	struct bind_topo two = { 2, 2, 1 };
	CPU_ZERO(&set);
	CPU_SET(2, &set);
	bind_sockets_expand(&two, all, 4, &set);
	assert_true(CPU_ISSET(2, &set) && CPU_ISSET(3, &set) && !CPU_ISSET(1, &set));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dist_order),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_verbose_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
