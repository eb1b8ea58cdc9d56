/* Bit sets, Slurm's range notation, and --array specs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "common/bitmap.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

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

/* issue 13: a spec of many "0-4000000" pieces cost pieces x 4 million steps
 * in the controller's loop.  A user's spec is refused (E2BIG) over its
 * length or its work, before any bit is set; runs are set a word at a time. */
static void user_spec_caps(void **state)
{
	(void)state;
	/* 4,000 pieces of 4,000,001 bits: 1.6e10 steps before; now refused
	 * from its length alone (250,000 words of work), nothing set */
	struct strbuf sb = { 0 };
	for (int i = 0; i < 4000; i++)
		strbuf_adds(&sb, i ? ",0-4000000" : "0-4000000");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	assert_null(bitmap_parse_user(sb.s, 4000001));
	assert_int_equal(errno, E2BIG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	free(sb.s);
	/* 60 of them fit the work: set a word at a time */
	sb = (struct strbuf){ 0 };
	for (int i = 0; i < 60; i++)
		strbuf_adds(&sb, i ? ",0-4000000" : "0-4000000");
	struct bitmap *b = bitmap_parse_user(sb.s, 4000001);
	assert_non_null(b);
	assert_int_equal(bitmap_count(b), 4000001);
	bitmap_destroy(b);
	free(sb.s);
	/* strides cost a step per bit: 100 x 2,000,000 is over the work */
	sb = (struct strbuf){ 0 };
	for (int i = 0; i < 100; i++)
		strbuf_adds(&sb, i ? ",0-4000000:2" : "0-4000000:2");
	errno = 0;
	assert_null(bitmap_parse_user(sb.s, 4000001));
	assert_int_equal(errno, E2BIG);
	b = bitmap_parse(sb.s, 4000001);   /* the controller's own strings: not capped */
	assert_non_null(b);
	assert_int_equal(bitmap_count(b), 2000001);
	bitmap_destroy(b);
	free(sb.s);
	/* longer than BITMAP_USER_MAX_LEN */
	size_t len = BITMAP_USER_MAX_LEN + 2;
	char *many = xmalloc(len + 1);
	for (size_t i = 0; i < len; i += 2)
		memcpy(many + i, "1,", 2);
	many[len - 1] = '1';
	errno = 0;
	assert_null(bitmap_parse_user(many, 4000001));
	assert_int_equal(errno, E2BIG);
	uint32_t throttle;
	assert_int_equal(parse_array_spec(many, 4000001, &b, &throttle), -1);
	assert_null(b);
	free(many);
	/* a run across words, and one inside a word */
	b = bitmap_parse_user("3-5,60-130,200", 1000);
	char *s = bitmap_fmt(b);
	assert_string_equal(s, "3-5,60-130,200");
	free(s);
	assert_false(bitmap_test(b, 2));
	assert_false(bitmap_test(b, 59));
	assert_false(bitmap_test(b, 131));
	bitmap_destroy(b);
	b = bitmap_parse_user("0-63,64-127,128", 1000);
	assert_int_equal(bitmap_count(b), 129);
	bitmap_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(ranges_without_strides),
		cmocka_unit_test(refuses),
		cmocka_unit_test(walks),
		cmocka_unit_test(array_specs),
		cmocka_unit_test(user_spec_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
