/* Licenses= and -L text (common/license.c), as Slurm 22.05 reads them:
 * what it takes and refuses, counts summed, the OR form of later Slurms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/license.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* items as "name:count,..." ('|' between them for OR), or NULL when refused */
static char *render(const char *text, bool job)
{
	struct lic_list l;
	if (lic_parse(text, job, &l) < 0)
		return NULL;
	char *out = calloc(1, 1024);
	for (int i = 0; i < l.n; i++)
		snprintf(out + strlen(out), 1024 - strlen(out), "%s%s:%u", i ? (l.any ? "|" : ",") : "",
			 l.item[i].name, l.item[i].count);
	lic_list_clear(&l);
	return out;
}

static void cases(void **state)
{
	const struct {
		const char *text;
		bool job;
		const char *want;   /* NULL: refused */
	} t[] = {
		{ "a:2,b,C:3", false, "a:2,b:1,C:3" },
		{ "x:1,y:2;z", false, "x:1,y:2,z:1" },   /* ; separates too */
		{ "a,a", false, "a:2" },                  /* summed, as Slurm's Total=2 */
		{ "a:1,,b", false, "a:1,b:1" },
		{ "a:", false, "a:0" },
		{ "a:0", true, "a:0" },
		{ "a,", true, "a:1" },
		{ "a:2,a", true, "a:3" },                 /* the controller then refuses 3 > 2 */
		{ "", true, "" },
		{ "a|b", true, "a:1|b:1" },
		{ "a:2|b", true, "a:2|b:1" },
		{ "a|b", false, NULL },                   /* no '|' in a configured name */
		{ "a|b,c", true, NULL },                  /* OR and AND not mixed */
		{ "a:x", false, NULL },
		{ "a:-1", true, NULL },
		{ "a:1.5", true, NULL },
		{ "a:1:2", false, NULL },
		{ ":1", true, NULL },
		{ "a b", true, NULL },
		{ "a=1", true, NULL },
		{ "a:4294967294", true, "a:4294967294" },
		{ "a:4294967295", true, NULL },           /* over 32 bits (NO_VAL) */
		{ "a:4294967294,a", true, NULL },         /* the sum too */
		{ "a:99999999999999999999999", true, NULL },
	};
	for (size_t i = 0; i < N(t); i++) {
		char *got = render(t[i].text, t[i].job);
		print_message("%s (%s): %s\n", t[i].text, t[i].job ? "job" : "conf", got ? got : "(refused)");
		if (!t[i].want)
			assert_null(got);
		else
			assert_string_equal(got, t[i].want);
		free(got);
	}
}

static void copy_and_bounds(void **state)
{
	struct lic_list l, c;
	assert_int_equal(lic_parse("a:2;b", true, &l), 0);
	lic_list_copy(&c, &l);
	lic_list_clear(&l);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.item[1].name, "b");
	lic_list_clear(&c);
	assert_int_equal(c.n, 0);
	char *big = malloc(LIC_TEXT_MAX + 2);
	memset(big, 'a', LIC_TEXT_MAX + 1);
	big[LIC_TEXT_MAX + 1] = '\0';
	assert_int_equal(lic_parse(big, true, &l), -1);   /* too long: not parsed */
	assert_int_equal(lic_parse(NULL, true, &l), -1);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cases),
		cmocka_unit_test(copy_and_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
