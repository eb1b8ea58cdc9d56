/* herdstepd's output file patterns (sbatch(1) "filename pattern"), case by
 * case.  The stepd sources are not in libherd, so the one under test is
 * compiled in here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "stepd/pattern.c"

static const struct pattern_ctx ctx = {
	.job_id = 42,
	.array_task_id = PATTERN_NO_ARRAY,
	.job_name = "my job",
	.user = "alice",
	.node = "n3",
	.node_id = 0,
};

static void test_patterns(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "slurm-%j.out", "slurm-42.out" },
		{ "%x-%j.err", "my job-42.err" },
		{ "%u/%N/%n", "alice/n3/0" },
		{ "%J", "42" },
		{ "%A_%a", "42_4294967294" },
		{ "%5j", "00042" },
		{ "%2j", "42" },
		{ "%012j", "0000000042" },          /* at most 10 digits */
		{ "%3x", "my job" },                /* width ignored for names */
		{ "%3N-%3u", "n3-alice" },
		{ "100%%", "100%" },
		{ "%%j", "%j" },
		{ "a%qb", "a%qb" },                 /* unknown letter kept */
		{ "end%", "end%" },
		{ "end%4", "end%4" },
		{ "%t.%s", "0.batch" },
		{ "out\\%j", "out%j" },             /* a backslash turns expansion off */
		{ "/abs/%j/x", "/abs/42/x" },
		{ "", "" },
		{ "plain", "plain" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = pattern_expand(cases[i].in, &ctx);
		if (strcmp(got, cases[i].out))
			fail_msg("pattern '%s': got '%s', want '%s'", cases[i].in, got, cases[i].out);
		free(got);
	}
}

static void test_array_ids(void **state)
{
	struct pattern_ctx a = ctx;
	a.job_id = 107;
	a.array_job_id = 100;
	a.array_task_id = 7;
	char *got = pattern_expand("r-%A_%a-%j.out", &a);
	assert_string_equal(got, "r-100_7-107.out");
	free(got);
}

/* srun -o/-e/-i of a step's task: %t the task, %s the step, %J job.step,
 * %n the node's index in the step. */
static void test_step_patterns(void **state)
{
	struct pattern_ctx st = ctx;
	st.is_step = true;
	st.step_id = 3;
	st.task_id = 12;
	st.node_id = 2;
	static const struct { const char *in, *out; } cases[] = {
		{ "%j.%s-%t.out", "42.3-12.out" },
		{ "%J", "42.3" },
		{ "%5J", "00042.3" },
		{ "%3t", "012" },
		{ "%n-%N", "2-n3" },
		{ "%2s", "03" },
		{ "%x-%u-%%t", "my job-alice-%t" },
		{ "%A_%a", "42_4294967294" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = pattern_expand(cases[i].in, &st);
		if (strcmp(got, cases[i].out))
			fail_msg("step pattern '%s': got '%s', want '%s'", cases[i].in, got, cases[i].out);
		free(got);
	}
}

static void test_join(void **state)
{
	char *p = pattern_join("/home/a", "x.out");
	assert_string_equal(p, "/home/a/x.out");
	free(p);
	p = pattern_join("/home/a/", "x.out");
	assert_string_equal(p, "/home/a/x.out");
	free(p);
	p = pattern_join("/home/a", "/dev/null");
	assert_string_equal(p, "/dev/null");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_array_ids),
		cmocka_unit_test(test_step_patterns),
		cmocka_unit_test(test_join),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
