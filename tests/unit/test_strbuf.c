/* Growable strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/strbuf.h"

static void appends(void **state)
{
	struct strbuf sb = { 0 };
	strbuf_add(&sb, "", 0);
	assert_string_equal(sb.s, "");   /* terminated even when empty */
	strbuf_adds(&sb, "n[1-3]");
	strbuf_add(&sb, ",xyz", 2);
	strbuf_adds(&sb, NULL);
	assert_string_equal(sb.s, "n[1-3],x");
	assert_int_equal(sb.len, 8);
	for (int i = 0; i < 10000; i++)
		strbuf_add(&sb, "ab", 2);
	assert_int_equal(sb.len, 8 + 20000);
	assert_int_equal(strlen(sb.s), sb.len);
	assert_memory_equal(sb.s + sb.len - 4, "abab", 4);
	free(sb.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(appends) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
