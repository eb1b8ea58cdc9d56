/* Bit sets, Slurm's range notation, and --array specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/parse.h"

static void round_trips(void **state)
{
	static const struct { const char *in, *out; uint32_t count; } cases[] = {
		{ "0-31", "0-31", 32 },
		{ "1,3,5,7", "1-7:2", 4 },
		{ "1-7:2", "1-7:2", 4 },
		{ "5", "5", 1 },
		{ "1,3", "1,3", 2 },
		{ "1,3,4,5", "1,3-5", 4 },
		{ "10-12,0,3-5", "0,3-5,10-12", 7 },
		{ "0-9:3,1", "0-1,3-9:3", 5 },
		{ "63,64,65,127,128", "63-65,127-128", 5 },
		{ "2-2", "2", 1 },
		{ "0-8:4", "0-8:4", 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bitmap *b = bitmap_parse(cases[i].in, 1001);
		assert_non_null(b);
		char *s = bitmap_fmt(b);
		assert_string_equal(s, cases[i].out);
		assert_int_equal(bitmap_count(b), cases[i].count);
		free(s);
		/* the format reads back to the same set */
		struct bitmap *again = bitmap_parse(cases[i].out, 1001);
		assert_non_null(again);
		s = bitmap_fmt(again);
		assert_string_equal(s, cases[i].out);
		free(s);
		bitmap_destroy(again);
		bitmap_destroy(b);
	}
}

static void ranges_without_strides(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "1-7:2", "1,3,5,7" }, { "0-15", "0-15" }, { "0-9:3,1", "0-1,3,6,9" },
		{ "1,3-5", "1,3-5" }, { "2", "2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bitmap *b = bitmap_parse(cases[i].in, 1001);
		assert_non_null(b);
		char *s = bitmap_fmt_ranges(b);
		assert_string_equal(s, cases[i].out);
		free(s);
		bitmap_destroy(b);
	}
	(void)state;
}

static void refuses(void **state)
{
	static const struct { const char *in; int err; } cases[] = {
		{ "", EINVAL }, { "a", EINVAL }, { "1-", EINVAL }, { "-3", EINVAL },
		{ "5-1", EINVAL }, { "1-7:0", EINVAL }, { "1,,2", EINVAL }, { "1:2", EINVAL },
		{ "1-3:", EINVAL }, { "1 ", EINVAL }, { "1001", ERANGE }, { "0-5000", ERANGE },
		{ "99999999999", ERANGE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 0;
		assert_null(bitmap_parse(cases[i].in, 1001));
		assert_int_equal(errno, cases[i].err);
	}
}

static void walks(void **state)
{
	struct bitmap *b = bitmap_create(200);
	assert_int_equal(bitmap_next(b, 0), BITMAP_NONE);
	assert_int_equal(bitmap_last(b), BITMAP_NONE);
	bitmap_set(b, 199);
	bitmap_set(b, 64);
	bitmap_set(b, 200);   /* past the end: ignored */
	assert_int_equal(bitmap_next(b, 0), 64);
	assert_int_equal(bitmap_next(b, 65), 199);
	assert_int_equal(bitmap_next(b, 200), BITMAP_NONE);
	assert_int_equal(bitmap_last(b), 199);
	assert_true(bitmap_test(b, 64));
	assert_false(bitmap_test(b, 5000));
	bitmap_clear(b, 199);
	assert_int_equal(bitmap_last(b), 64);
	struct bitmap *c = bitmap_copy(b);
	struct bitmap *d = bitmap_parse("64,70", 1001);   /* a different size */
	assert_int_equal(bitmap_count_common(b, d), 1);
	assert_int_equal(bitmap_count_common(d, b), 1);
	bitmap_destroy(d);
	bitmap_clear(b, 64);
	assert_int_equal(bitmap_count(b), 0);
	assert_int_equal(bitmap_count(c), 1);
	bitmap_destroy(b);
	bitmap_destroy(c);
	bitmap_destroy(NULL);
}

static void array_specs(void **state)
{
	struct bitmap *t;
	uint32_t throttle;
	assert_int_equal(parse_array_spec("0-15%4", 1001, &t, &throttle), 0);
	assert_int_equal(bitmap_count(t), 16);
	assert_int_equal(throttle, 4);
	bitmap_destroy(t);
	assert_int_equal(parse_array_spec("0-999999", 1000001, &t, &throttle), 0);
	assert_int_equal(bitmap_count(t), 1000000);
	assert_int_equal(throttle, 0);
	char *s = bitmap_fmt(t);
	assert_string_equal(s, "0-999999");
	free(s);
	bitmap_destroy(t);
	/* Slurm takes %0 as no throttle. */
	assert_int_equal(parse_array_spec("0-3%0", 1000, &t, &throttle), 0);
	assert_int_equal(throttle, 0);
	assert_int_equal(bitmap_count(t), 4);
	bitmap_destroy(t);
	const char *bad[] = { "0-15%", "0-15%x", "%4", "1000", "0-7%2%3", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_array_spec(bad[i], 1000, &t, &throttle), -1);
		assert_null(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(ranges_without_strides),
		cmocka_unit_test(refuses),
		cmocka_unit_test(walks),
		cmocka_unit_test(array_specs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
