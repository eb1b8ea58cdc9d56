/* Free-text checks: control characters in stored fields, --mail-user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/text.h"

static void control_characters(void **state)
{
	struct herd_error err = { "" };
	assert_false(text_has_control(""));
	assert_false(text_has_control("Physics dept. 'ü' :#\\"));
	assert_true(text_has_control("a\nb"));
	assert_true(text_has_control("a\tb"));
	assert_true(text_has_control("\r"));
	assert_true(text_has_control("x\x7f"));
	assert_true(text_has_control("\x1b[31m"));
	assert_int_equal(text_check_plain("fine text", "Description", &err), 0);
	assert_int_equal(text_check_plain("two\nlines", "Description", &err), -1);
	assert_non_null(strstr(err.text, "Invalid Description"));
	assert_null(strchr(err.text, '\n'));   /* the value is not echoed */
}

static void mail_users(void **state)
{
	static const char *const good[] = {
		"alice", "alice@example.org", "first.last+tag@sub.example.co.uk", "user_1",
		"j\xc3\xbcrgen@example.de", "a-b@x", "x=y%z@h",
	};
	static const char *const bad[] = {
		"", "--exec=/tmp/x", "-s", "-", "a b", "a\nb", "a;rm", "$(id)", "`id`", "a|b",
		"a>b", "a&b", "a,b", "@host", "user@", "a@b@c", ".hidden", "a\tb", "a/b", "a\\b",
		"a*b", "'quoted'", "\"q\"",
	};
	struct herd_error err;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err.text[0] = 0;
		if (text_check_mail_user(good[i], &err))
			fail_msg("'%s' refused: %s", good[i], err.text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.text[0] = 0;
		if (text_check_mail_user(bad[i], &err) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.text, "Invalid --mail-user"));
	}
	char longest[300];
	memset(longest, 'a', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = 0;
	assert_int_equal(text_check_mail_user(longest, &err), -1);
	longest[256] = 0;
	assert_int_equal(text_check_mail_user(longest, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_characters),
		cmocka_unit_test(mail_users),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
