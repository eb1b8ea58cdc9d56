/* Constraint expressions (src/sched/feature.c), table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include "sched/feature.h"

static const struct {
	const char *expr, *features;
	int want;
} match_cases[] = {
	{ "a", "a,b", 1 },
	{ "c", "a,b", 0 },
	{ "a", NULL, 0 },
	{ "a&b", "a,b", 1 },
	{ "a&c", "a,b", 0 },
	{ "a,b", "b,a", 1 },           /* a comma is AND, as in Slurm */
	{ "a,c", "a,b", 0 },
	{ "a|c", "c", 1 },
	{ "a|c", "b", 0 },
	{ "a&b|c", "c", 1 },           /* AND binds tighter than OR */
	{ "a&(b|c)", "a,c", 1 },
	{ "a&(b|c)", "c", 0 },
	{ "[a|c]", "c", 1 },
	{ "ab", "a,b", 0 },            /* whole names only */
	{ "gpu.big", "gpu.big,x", 1 },
	{ "", "a", -1 },
	{ "a&", "a", -1 },
	{ "a||b", "a", -1 },
	{ "(a", "a", -1 },
	{ "[a)", "a", -1 },
	{ "a b", "a", -1 },
	{ "a*2", "a", -1 },
};

static void match_table(void **state)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		print_message("%s on %s\n", match_cases[i].expr, match_cases[i].features);
		assert_int_equal(feature_match(match_cases[i].expr, match_cases[i].features),
				 match_cases[i].want);
	}
}

/* Deep nesting is refused, never recursed into without bound. */
static void deep_nesting(void **state)
{
	static char expr[200002];   /* 100000 '(', "a", 100000 ')' */
	for (int i = 0; i < 100000; i++) {
		expr[i] = '(';
		expr[100001 + i] = ')';
	}
	expr[100000] = 'a';
	expr[200001] = '\0';
	assert_int_equal(feature_match(expr, "a"), -1);
	assert_int_equal(feature_check(expr, "a"), -1);
	assert_int_equal(feature_match("((((a))))", "a"), 1);
}

static void check_names(void **state)
{
	assert_int_equal(feature_check("a&b", "a,b,c"), 0);
	assert_int_equal(feature_check("a|zz", "a,b,c"), -1);   /* an unknown name */
	assert_int_equal(feature_check("(a|b),c", "a,b,c"), 0);
	assert_int_equal(feature_check("a&", "a,b,c"), -1);
	assert_int_equal(feature_check("a", ""), -1);
}

static void matching_or(void **state)
{
	char **alts;
	assert_int_equal(feature_matching_or("[a|bb|c]", &alts), 3);
	assert_string_equal(alts[0], "a");
	assert_string_equal(alts[1], "bb");
	assert_string_equal(alts[2], "c");
	for (int i = 0; i < 3; i++)
		free(alts[i]);
	free(alts);
	assert_int_equal(feature_matching_or("[a]", &alts), 1);
	free(alts[0]);
	free(alts);
	assert_int_equal(feature_matching_or("a|b", &alts), 0);
	assert_null(alts);
	assert_int_equal(feature_matching_or("[a&b]", &alts), 0);
	assert_int_equal(feature_matching_or("[a|b]&c", &alts), 0);
	assert_int_equal(feature_matching_or("[a||b]", &alts), 0);
	assert_int_equal(feature_matching_or("[]", &alts), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(match_table),
		cmocka_unit_test(check_names),
		cmocka_unit_test(deep_nesting),
		cmocka_unit_test(matching_or),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
