/* acct/tres.c: TRES strings as sacctmgr takes them ("cpu=10,mem=4G,
 * gres/gpu=2") into vectors and back (table driven); entries not named are
 * kept, -1 clears one (or, alone, all); unknown names and bad counts are
 * refused with a sentence and leave the vector as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void ids_and_names(void **state)
{
	assert_int_equal(tres_id(TRES_CPU), 1);
	assert_int_equal(tres_id(TRES_MEM), 2);
	assert_int_equal(tres_id(TRES_NODE), 4);
	assert_int_equal(tres_id(TRES_BILLING), 5);
	assert_int_equal(tres_id(TRES_GPU), 1001);
	assert_string_equal(tres_name(TRES_FS_DISK), "fs/disk");
	assert_string_equal(tres_name(TRES_GPU), "gres/gpu");
	assert_null(tres_name(TRES_COUNT));
}

static void parse_and_render(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "cpu=10", "cpu=10" },
		{ "mem=4G", "mem=4G" },
		{ "mem=4096", "mem=4G" },
		{ "mem=1000", "mem=1000M" },
		{ "mem=2048K", "mem=2M" },
		{ "mem=1T", "mem=1T" },
		{ "node=2,cpu=8", "cpu=8,node=2" },   /* table order, as Slurm prints */
		{ "gres/gpu=4,cpu=1", "cpu=1,gres/gpu=4" },
		{ "CPU=3", "cpu=3" },
		{ "1=5,4=2", "cpu=5,node=2" },        /* by ID, as sacctmgr accepts */
		{ "1001=2", "gres/gpu=2" },
		{ "billing=100,energy=7", "energy=7,billing=100" },
		{ "fs/disk=10,vmem=3,pages=9", "fs/disk=10,vmem=3,pages=9" },
		{ "cpu=0", "cpu=0" },
		{ "cpu=1,cpu=2", "cpu=2" },           /* the last one wins */
		{ "cpu=-1", "" },
		{ "-1", "" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		tres_vec v;
		char err[160] = "";
		tres_clear(v);
		assert_int_equal(tres_parse(cases[i].in, v, err, sizeof(err)), 0);
		char *s = tres_string(v);
		if (strcmp(s, cases[i].out))
			fail_msg("%s gave %s, expected %s", cases[i].in, s, cases[i].out);
		free(s);
	}
}

static void refused(void **state)
{
	static const struct {
		const char *in, *says;
	} cases[] = {
		{ "foo=1", "Invalid TRES name 'foo'" },
		{ "gpu=1", "Invalid TRES name 'gpu'" },
		{ "cpu", "expected name=count" },
		{ "=3", "expected name=count" },
		{ "", "expected name=count" },
		{ "cpu=abc", "Invalid TRES count 'abc' for cpu" },
		{ "cpu=1.5", "Invalid TRES count '1.5' for cpu" },
		{ "cpu=", "Invalid TRES count '' for cpu" },
		{ "mem=4X", "Invalid TRES count '4X' for mem" },
		{ "cpu=-2", "Invalid TRES count '-2' for cpu" },
		{ "cpu=99999999999999999999", "Invalid TRES count" },
		{ "cpu=1,node=x", "Invalid TRES count 'x' for node" },
		{ "9999=1", "Invalid TRES name '9999'" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		tres_vec v;
		char err[160] = "";
		tres_clear(v);
		v[TRES_CPU] = 7;
		assert_int_equal(tres_parse(cases[i].in, v, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].says))
			fail_msg("%s: error '%s' lacks '%s'", cases[i].in, err, cases[i].says);
		/* nothing changed on failure, even entries parsed before the bad one */
		assert_int_equal(v[TRES_CPU], 7);
		assert_int_equal(v[TRES_NODE], ACCT_UNSET);
	}
}

/* A modify sets what it names and keeps the rest (GrpTRES=node=2 on
 * cpu=10 gives cpu=10,node=2); cpu=-1 drops only cpu. */
static void merge_and_clear(void **state)
{
	tres_vec v;
	char err[160];
	tres_clear(v);
	assert_int_equal(tres_parse("cpu=10,mem=4G", v, err, sizeof(err)), 0);
	assert_int_equal(tres_parse("node=2", v, err, sizeof(err)), 0);
	char *s = tres_string(v);
	assert_string_equal(s, "cpu=10,mem=4G,node=2");
	free(s);
	assert_int_equal(v[TRES_MEM], 4096);
	assert_int_equal(tres_parse("cpu=-1", v, err, sizeof(err)), 0);
	s = tres_string(v);
	assert_string_equal(s, "mem=4G,node=2");
	free(s);
	assert_int_equal(tres_parse("-1", v, err, sizeof(err)), 0);
	for (int i = 0; i < TRES_COUNT; i++)
		assert_int_equal(v[i], ACCT_UNSET);
	s = tres_string(v);
	assert_string_equal(s, "");
	free(s);
}

/* A small err buffer is cut, not overrun. */
static void short_error_buffer(void **state)
{
	tres_vec v;
	char err[8];
	tres_clear(v);
	assert_int_equal(tres_parse("bogus=1", v, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), 7);
}

static void limits_clear(void **state)
{
	struct acct_limits l;
	memset(&l, 0, sizeof(l));
	acct_limits_clear(&l);
	assert_int_equal(l.grp_jobs, ACCT_UNSET);
	assert_int_equal(l.max_wall, ACCT_UNSET);
	assert_int_equal(l.grp_tres[TRES_GPU], ACCT_UNSET);
	assert_int_equal(l.max_tres_mins_per_job[TRES_CPU], ACCT_UNSET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_and_names),
		cmocka_unit_test(parse_and_render),
		cmocka_unit_test(refused),
		cmocka_unit_test(merge_and_clear),
		cmocka_unit_test(short_error_buffer),
		cmocka_unit_test(limits_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
