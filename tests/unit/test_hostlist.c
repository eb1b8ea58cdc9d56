/* hostlist: expansion, compression, round trips and malformed expressions. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/hostlist.h"
#include "common/xmalloc.h"

/* Names of hl joined by single spaces. */
static char *joined(const struct hostlist *hl)
{
	size_t len = 1;
	for (size_t i = 0; i < hostlist_count(hl); i++)
		len += strlen(hostlist_nth(hl, i)) + 1;
	char *s = xmalloc(len);
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		if (i)
			strcat(s, " ");
		strcat(s, hostlist_nth(hl, i));
	}
	return s;
}

static const struct {
	const char *expr;
	const char *names;       /* space-joined expansion */
} expand_cases[] = {
	{ "", "" },
	{ "n1", "n1" },
	{ "login", "login" },
	{ "n[1-3]", "n1 n2 n3" },
	{ "n[01-03,07]", "n01 n02 n03 n07" },
	{ "n[008-010]", "n008 n009 n010" },
	{ "n[8-10]", "n8 n9 n10" },
	{ "n[098-101]", "n098 n099 n100 n101" },
	{ "n[3,1,2]", "n3 n1 n2" },
	{ "n[5]", "n5" },
	{ "a,b[1-3],c", "a b1 b2 b3 c" },
	{ "rack[1-2]-n[1-3]", "rack1-n1 rack1-n2 rack1-n3 rack2-n1 rack2-n2 rack2-n3" },
	{ "[1-2]x", "1x 2x" },
	{ "n[1-2]-ib", "n1-ib n2-ib" },
	{ "n[1-2],m[3-4]", "n1 n2 m3 m4" },
	{ "n1 n2\tn3", "n1 n2 n3" },           /* Slurm also splits on whitespace */
	{ "n1,,n2,", "n1 n2" },                /* empty elements are skipped */
	{ "n-1", "n-1" },
	{ "n[0-0]", "n0" },
	{ "n[1-2,2]", "n1 n2 n2" },            /* duplicates kept until uniq */
	{ "a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]j[1]k[1]l[1]m[1]n[1]o[1]p[1-2]",
	  "a1b1c1d1e1f1g1h1i1j1k1l1m1n1o1p1 a1b1c1d1e1f1g1h1i1j1k1l1m1n1o1p2" },   /* 16 groups */
};

static void test_expand(void **state)
{
	for (size_t i = 0; i < sizeof(expand_cases) / sizeof(expand_cases[0]); i++) {
		struct hostlist *hl = hostlist_create(expand_cases[i].expr);
		assert_non_null(hl);
		char *s = joined(hl);
		assert_string_equal(s, expand_cases[i].names);
		free(s);
		hostlist_destroy(hl);
	}
}

static void test_null_is_empty(void **state)
{
	struct hostlist *hl = hostlist_create(NULL);
	assert_non_null(hl);
	assert_int_equal(hostlist_count(hl), 0);
	assert_null(hostlist_nth(hl, 0));
	char *s = hostlist_ranged_string(hl);
	assert_string_equal(s, "");
	free(s);
	hostlist_destroy(hl);
	hostlist_destroy(NULL);
}

static const char *const bad_exprs[] = {
	"n[1-3",            /* unbalanced */
	"n1-3]",
	"n[[1-3]]",         /* nested */
	"n[]",              /* empty group */
	"n[3-1]",           /* reversed range */
	"n[a-c]",           /* not numbers */
	"n[1-x]",
	"n[1-]",
	"n[-3]",
	"n[1--3]",
	"n[1-2-3]",
	"n[1,,2]",
	"n[1,]",
	"n[ 1-2]",
	"n[1-1000000]n[1-2]", /* 2,000,000 names */
	"n[0-1000000]",      /* 1,000,001 names */
	"n[1-500000],m[1-500001]",
	"n[1-9999999999999999999]",   /* number too large */
	"ok1,n[2-1]",       /* one bad element spoils the expression */
	"a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]j[1]k[1]l[1]m[1]n[1]o[1]p[1]q[1]",   /* 17 groups */
};

static void test_malformed(void **state)
{
	for (size_t i = 0; i < sizeof(bad_exprs) / sizeof(bad_exprs[0]); i++) {
		errno = 0;
		struct hostlist *hl = hostlist_create(bad_exprs[i]);
		if (hl)
			fail_msg("'%s' was accepted (%zu names)", bad_exprs[i], hostlist_count(hl));
		assert_int_equal(errno, EINVAL);
	}
}

static void test_limit(void **state)
{
	struct hostlist *hl = hostlist_create("n[1-1000000]");
	assert_non_null(hl);
	assert_int_equal(hostlist_count(hl), 1000000);
	assert_string_equal(hostlist_nth(hl, 999999), "n1000000");
	char *s = hostlist_ranged_string(hl);
	assert_string_equal(s, "n[1-1000000]");
	free(s);
	hostlist_destroy(hl);
}

/* A list of many single numbers (as a scheduler might print) stays fast. */
static void test_long_list(void **state)
{
	size_t n = 200000, len = 0;
	char *expr = xmalloc(n * 8 + 8);
	len += (size_t)sprintf(expr, "n[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(expr + len, "%zu,", 2 * i);
	expr[len - 1] = ']';
	struct hostlist *hl = hostlist_create(expr);
	assert_non_null(hl);
	assert_int_equal(hostlist_count(hl), n);
	assert_string_equal(hostlist_nth(hl, n - 1), "n399998");
	char *back = hostlist_ranged_string(hl);
	assert_string_equal(back, expr);
	free(back);
	hostlist_destroy(hl);
	free(expr);
}

/* Many distinct prefixes: compression keeps their order and stays fast. */
static void test_many_prefixes(void **state)
{
	size_t n = 100000;
	struct hostlist *hl = hostlist_create(NULL);
	char name[32];
	for (size_t i = n; i > 0; i--) {
		snprintf(name, sizeof(name), "h%zux", i);
		assert_int_equal(hostlist_push(hl, name), 0);
	}
	char *s = hostlist_ranged_string(hl);
	assert_true(strncmp(s, "h100000x,h99999x,h99998x,", 25) == 0);
	size_t len = strlen(s);
	assert_true(len > 8 && strcmp(s + len - 8, ",h2x,h1x") == 0);
	free(s);
	hostlist_destroy(hl);
}

static void test_push_failure_leaves_list(void **state)
{
	struct hostlist *hl = hostlist_create("a[1-2]");
	assert_non_null(hl);
	assert_int_equal(hostlist_push(hl, "b1,c[2-1]"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(hostlist_count(hl), 2);
	assert_int_equal(hostlist_push(hl, "b[1-2]"), 0);
	assert_int_equal(hostlist_count(hl), 4);
	assert_string_equal(hostlist_nth(hl, 3), "b2");
	assert_null(hostlist_nth(hl, 4));
	hostlist_destroy(hl);
}

static void test_find(void **state)
{
	struct hostlist *hl = hostlist_create("n[01-04],login");
	assert_int_equal(hostlist_find(hl, "n01"), 0);
	assert_int_equal(hostlist_find(hl, "n04"), 3);
	assert_int_equal(hostlist_find(hl, "login"), 4);
	assert_int_equal(hostlist_find(hl, "n1"), -1);
	assert_int_equal(hostlist_find(hl, "n05"), -1);
	assert_int_equal(hostlist_find(hl, NULL), -1);
	hostlist_destroy(hl);
}

static const struct {
	const char *in;          /* expression to expand first */
	const char *uniq;        /* names after hostlist_uniq */
} uniq_cases[] = {
	{ "n10,n9,n1,n9", "n1 n9 n10" },
	{ "b2,a1,b1,a1", "a1 b1 b2" },
	{ "n01,n1,n1", "n1 n01" },
	{ "n2,n,n1", "n n1 n2" },
	{ "x", "x" },
	{ "", "" },
};

static void test_uniq(void **state)
{
	for (size_t i = 0; i < sizeof(uniq_cases) / sizeof(uniq_cases[0]); i++) {
		struct hostlist *hl = hostlist_create(uniq_cases[i].in);
		hostlist_uniq(hl);
		char *s = joined(hl);
		assert_string_equal(s, uniq_cases[i].uniq);
		free(s);
		hostlist_destroy(hl);
	}
}

static const struct {
	const char *in;          /* expression whose names are compressed */
	const char *ranged;
} compress_cases[] = {
	{ "n1", "n1" },
	{ "n1,n2,n3", "n[1-3]" },
	{ "n1,n2", "n[1-2]" },
	{ "n01,n02,n03,n07", "n[01-03,07]" },
	{ "n008,n009,n010", "n[008-010]" },
	{ "n8,n9,n10", "n[8-10]" },
	{ "n08,n09,n10", "n[08-10]" },
	{ "n098,n099,n100,n101", "n[098-101]" },
	{ "n9,n010", "n[9,010]" },           /* widths kept per range */
	{ "n1,n01", "n[1,01]" },
	{ "n3,n1,n2,n5", "n[1-3,5]" },        /* sorted within a prefix */
	{ "b1,a1,b2", "b[1-2],a1" },          /* prefixes in order of appearance */
	{ "login,n1,n2,gpu7", "login,n[1-2],gpu7" },
	{ "rack1-n1,rack1-n2,rack2-n1", "rack1-n[1-2],rack2-n1" },
	{ "n1,n2,n2", "n[1-2,2]" },           /* duplicates kept */
	{ "a,a", "a,a" },
	{ "n,n1", "n,n1" },
	{ "n1x,n2x", "n1x,n2x" },             /* only a trailing number is ranged */
	{ "", "" },
};

static void test_compress(void **state)
{
	for (size_t i = 0; i < sizeof(compress_cases) / sizeof(compress_cases[0]); i++) {
		struct hostlist *hl = hostlist_create(compress_cases[i].in);
		assert_non_null(hl);
		char *s = hostlist_ranged_string(hl);
		assert_string_equal(s, compress_cases[i].ranged);
		free(s);
		hostlist_destroy(hl);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of hl, sorted bytewise, joined by spaces: a multiset fingerprint. */
static char *sorted_joined(const struct hostlist *hl)
{
	size_t n = hostlist_count(hl);
	const char **v = xmalloc((n + 1) * sizeof(*v));
	size_t len = 1;
	for (size_t i = 0; i < n; i++) {
		v[i] = hostlist_nth(hl, i);
		len += strlen(v[i]) + 1;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	char *s = xmalloc(len);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	free(v);
	return s;
}

/* Compressing then expanding gives back the same names (as a multiset). */
static void test_round_trip(void **state)
{
	const char *exprs[] = {
		"n[01-16,20]", "rack[1-2]-n[1-4]", "a,b[1-3],c", "n[008-010]",
		"n[098-101],n[5-7]", "n9,n010,n1,n01", "x[1-3],y,x[7-9],y", "n[1-2,2]",
		"gpu[001-128],cpu[1-300],login[1-2]", "n[1-5],n[3-8]",
	};
	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		struct hostlist *hl = hostlist_create(exprs[i]);
		assert_non_null(hl);
		char *ranged = hostlist_ranged_string(hl);
		struct hostlist *back = hostlist_create(ranged);
		if (!back)
			fail_msg("'%s' compressed to unparsable '%s'", exprs[i], ranged);
		char *a = sorted_joined(hl), *b = sorted_joined(back);
		assert_string_equal(a, b);
		free(a);
		free(b);
		free(ranged);
		hostlist_destroy(back);
		hostlist_destroy(hl);
	}
}

static void test_compress_names(void **state)
{
	const char *names[] = { "n3", "n[1-2]", "login", "n4" };
	char *s = hostlist_compress(names, 4);
	assert_string_equal(s, "n[1-4],login");
	free(s);
	s = hostlist_compress(NULL, 0);
	assert_string_equal(s, "");
	free(s);
}

static void overlaps(void **state)
{
	struct hostlist *set = hostlist_create("n[2-4],gpu7");
	assert_true(hostlist_overlaps("n[1-2]", set));
	assert_true(hostlist_overlaps("gpu7", set));
	assert_false(hostlist_overlaps("n[5-9],gpu1", set));
	assert_false(hostlist_overlaps("", set));
	assert_false(hostlist_overlaps("n[1-", set));
	hostlist_destroy(set);
}

/* issue 13: "<10,000 chars>[0-99999]" took the controller to 995 MB.  The
 * bytes of the names are counted before any is made: refused, E2BIG. */
static void test_byte_cap(void **state)
{
	(void)state;
	size_t len = 2000;
	char *expr = xmalloc(len + 16);
	memset(expr, 'a', len);
	strcpy(expr + len, "[0-9999]");   /* 10,000 names of 2,005 bytes: 20 MB */
	errno = 0;
	assert_null(hostlist_create(expr));
	assert_int_equal(errno, E2BIG);
	struct hostlist *hl = hostlist_create("x");
	errno = 0;
	assert_int_equal(hostlist_push(hl, expr), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(hostlist_count(hl), 1);
	strcpy(expr + len, "[0-999]");   /* 2 MB: taken */
	assert_int_equal(hostlist_push(hl, expr), 0);
	assert_int_equal(hostlist_count(hl), 1001);
	hostlist_destroy(hl);
	/* the bytes add up across the elements of one expression */
	char *two = xmalloc(2 * (len + 16));
	strcpy(expr + len, "[0-4999]");
	sprintf(two, "%s,%s", expr, expr);
	assert_null(hostlist_create(two));
	assert_int_equal(errno, E2BIG);
	free(two);
	free(expr);
	/* malformed is still EINVAL */
	errno = 0;
	assert_null(hostlist_create("n[1-"));
	assert_int_equal(errno, EINVAL);
}

/* A cap on names (the controller's: its node count), before expanding. */
static void test_name_cap(void **state)
{
	(void)state;
	struct hostlist *hl = hostlist_create_max("n[1-4]", 4);
	assert_non_null(hl);
	assert_int_equal(hostlist_count(hl), 4);
	hostlist_destroy(hl);
	errno = 0;
	assert_null(hostlist_create_max("n[1-5]", 4));
	assert_int_equal(errno, E2BIG);
	assert_null(hostlist_create_max("n[1-3],m1,m2", 4));
	assert_int_equal(errno, E2BIG);
	assert_null(hostlist_create_max("n[0-999999]", 4));
	assert_int_equal(errno, E2BIG);
	errno = 0;
	assert_null(hostlist_create_max("n[1-", 4));
	assert_int_equal(errno, EINVAL);
	hl = hostlist_create_max("", 0);
	assert_non_null(hl);
	assert_int_equal(hostlist_count(hl), 0);
	hostlist_destroy(hl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlaps),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_null_is_empty),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_byte_cap),
		cmocka_unit_test(test_name_cap),
		cmocka_unit_test(test_long_list),
		cmocka_unit_test(test_many_prefixes),
		cmocka_unit_test(test_push_failure_leaves_list),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_uniq),
		cmocka_unit_test(test_compress),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_compress_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
