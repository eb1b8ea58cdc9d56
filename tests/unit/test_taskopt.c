/* common/taskopt.c: -m/--distribution, --hint, --mem-bind, rlimit names
 * and --get-user-env as Slurm 22.05 reads them (the values and sentences
 * were taken from Slurm's srun and sbatch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/taskopt.h"

static void test_distribution(void **state)
{
	static const struct {
		const char *in, *env;   /* env NULL: refused with the sentence in err */
		const char *err;
	} cases[] = {
		{ "block", "block", NULL },
		{ "BLOCK", "block", NULL },
		{ "cyclic:fcyclic,Pack", "cyclic:fcyclic,pack", NULL },
		{ "cyclic,NoPack", "cyclic,nopack", NULL },
		{ "block:*", "block:cyclic", NULL },
		{ "*:cyclic", "block:cyclic", NULL },
		{ "cyclic:fcyclic:*", "cyclic:fcyclic:fcyclic", NULL },
		{ "cyclic:block:fcyclic", "cyclic:block:fcyclic", NULL },
		{ "plane=2", "plane", NULL },
		{ "arbitrary", "arbitrary", NULL },
		{ "*", "", NULL },
		{ "plane=2:block", NULL, "Invalid plane size or size not specified" },
		{ "plane", NULL, "Invalid plane size or size not specified" },
		{ "plane=0", NULL, "Invalid plane size or size not specified" },
		{ "block:block:block:block", NULL, "Invalid --distribution specification" },
		{ "sideways", NULL, "Invalid --distribution specification" },
		{ "block,Tight", NULL, "Invalid --distribution specification" },
		{ "block:wide", NULL, "Invalid --distribution specification" },
		{ "", NULL, "Invalid --distribution specification" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dist d;
		struct herd_error err = { "" };
		char env[64];
		int rc = dist_parse(cases[i].in, &d, &err);
		if (!cases[i].env) {
			assert_int_equal(rc, -1);
			assert_string_equal(err.text, cases[i].err);
			continue;
		}
		assert_int_equal(rc, 0);
		dist_env(&d, env, sizeof(env));
		assert_string_equal(env, cases[i].env);
	}
	struct dist d;
	assert_int_equal(dist_parse("plane=4", &d, NULL), 0);
	assert_int_equal(d.plane, 4);
	assert_int_equal(dist_socket(&d), DIST_CPU_CYCLIC);
	assert_int_equal(dist_parse("block:block:fcyclic", &d, NULL), 0);
	assert_int_equal(dist_socket(&d), DIST_CPU_BLOCK);
	assert_int_equal(dist_core(&d), DIST_CPU_FCYCLIC);
	(void)state;
}

static void test_hint(void **state)
{
	unsigned flags;
	struct herd_error err = { "" };
	assert_int_equal(hint_parse("nomultithread", &flags, &err), 0);
	assert_int_equal(flags, HINT_NOMULTITHREAD);
	assert_int_equal(hint_parse("compute_bound,multithread", &flags, &err), 0);
	assert_int_equal(flags, HINT_COMPUTE_BOUND | HINT_MULTITHREAD);
	assert_int_equal(hint_parse("foo", &flags, &err), -1);
	assert_string_equal(err.text, "unrecognized --hint argument \"foo\", see --hint=help");
	(void)state;
}

static void test_mem_bind(void **state)
{
	static const struct {
		const char *in, *env, *type, *list, *err;
	} cases[] = {
		{ "v,map_mem:0,1", "verbose,map_mem:0,1", "map_mem:", "0,1", NULL },
		{ "mask_mem:0x1,0x3", "quiet,mask_mem:1,3", "mask_mem:", "1,3", NULL },
		{ "prefer,map_mem:0", "quiet,prefer,map_mem:0", "map_mem:", "0", NULL },
		{ "local", "quiet,local", "local", "", NULL },
		{ "rank", "quiet,rank", "rank", "", NULL },
		{ "none", "quiet,none", "none", "", NULL },
		{ "sort", "quiet", "", "", NULL },
		{ "foo", NULL, NULL, NULL, "unrecognized --mem-bind argument \"foo\"" },
		{ "map_mem:", NULL, NULL, NULL, "missing list for \"--mem-bind=map_mem:<list>\"" },
		{ "map_mem:0x1,3", NULL, NULL, NULL, "Failed to validate number: 0x1, the offending character is x" },
		{ "mask_mem:zz", NULL, NULL, NULL, "Failed to validate number: zz, the offending character is z" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mem_bind m;
		struct herd_error err = { "" };
		char env[300];
		int rc = mem_bind_parse(cases[i].in, &m, &err);
		if (!cases[i].env) {
			assert_int_equal(rc, -1);
			assert_string_equal(err.text, cases[i].err);
			continue;
		}
		assert_int_equal(rc, 0);
		mem_bind_env(&m, env, sizeof(env));
		assert_string_equal(env, cases[i].env);
		assert_string_equal(mem_bind_type_name(&m), cases[i].type);
		if (m.type == MEM_BIND_MAP || m.type == MEM_BIND_MASK)
			assert_string_equal(m.list, cases[i].list);
	}
	(void)state;
}

static void test_rlimits_and_get_user_env(void **state)
{
	unsigned mask;
	int timeout;
	char mode;
	struct herd_error err = { "" };

	assert_int_equal(rlimit_list_parse("", &mask, &err), 0);
	assert_int_equal(mask, (1u << RLIMIT_NAMES) - 1);
	assert_int_equal(rlimit_list_parse("NOFILE, CORE", &mask, &err), 0);
	assert_int_equal(mask, (1u << 7) | (1u << 4));
	assert_int_equal(rlimit_list_parse("NONE", &mask, &err), 0);
	assert_int_equal(mask, 0);
	assert_int_equal(rlimit_list_parse("NOFILE,core", &mask, &err), -1);
	assert_string_equal(err.text, "Bad rlimit name: core");

	assert_int_equal(get_user_env_parse("", &timeout, &mode, &err), 0);
	assert_true(timeout == GET_USER_ENV_TIMEOUT_DEFAULT && mode == 0);
	assert_int_equal(get_user_env_parse("10L", &timeout, &mode, &err), 0);
	assert_true(timeout == 10 && mode == 'L');
	assert_int_equal(get_user_env_parse("s", &timeout, &mode, &err), 0);
	assert_true(mode == 'S');
	assert_int_equal(get_user_env_parse("10X", &timeout, &mode, &err), -1);
	assert_string_equal(err.text, "Invalid --get-user-env specification");
	assert_int_equal(get_user_env_parse("abc", &timeout, &mode, &err), -1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distribution),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_mem_bind),
		cmocka_unit_test(test_rlimits_and_get_user_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
