/* srun --multi-prog lines (srun(1) MULTIPLE PROGRAM CONFIGURATION): which
 * line a task takes and the argv it gets.  The stepd sources are not in
 * libherd, so the one under test is compiled in here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stepd/multiprog.c"

static char *joined(char **argv)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(buf, "|");
		strcat(buf, argv[i]);
	}
	return buf;
}

static void test_lines(void **state)
{
	char *lines[] = {
		"###################################################################",
		"# srun multiple program configuration file",
		"",
		"4-6       hostname",
		"1,7       echo  task:%t",
		"0,2-3     echo  offset:%o",
		"8         /bin/sh -c 'echo \"a  b\" %t'   # trailing comment",
		"9-10,12   prog %o-%t",
		"*         rest %t",
	};
	static const struct { uint32_t task; const char *argv; } cases[] = {
		{ 4, "hostname" }, { 6, "hostname" },
		{ 1, "echo|task:1" }, { 7, "echo|task:7" },
		{ 0, "echo|offset:0" }, { 2, "echo|offset:1" }, { 3, "echo|offset:2" },
		{ 8, "/bin/sh|-c|echo \"a  b\" 8" },
		{ 9, "prog|0-9" }, { 10, "prog|1-10" }, { 12, "prog|2-12" },
		{ 11, "rest|11" }, { 40, "rest|40" },     /* '*' takes the others */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct herd_error err;
		char **argv = multiprog_argv(lines, sizeof(lines) / sizeof(lines[0]), cases[i].task, 64, &err);
		if (!argv)
			fail_msg("task %u: %s", cases[i].task, err.text);
		if (strcmp(joined(argv), cases[i].argv))
			fail_msg("task %u: got '%s', want '%s'", cases[i].task, joined(argv), cases[i].argv);
		multiprog_free_argv(argv);
	}
}

static void test_refusals(void **state)
{
	static const struct { const char *line; uint32_t task; const char *text; } bad[] = {
		{ "0 echo", 1, "--multi-prog: no line names task 1" },
		{ "0-x echo", 0, "--multi-prog line 1: invalid task list" },
		{ "3-1 echo", 0, "--multi-prog line 1: invalid task list" },
		{ "0", 0, "--multi-prog line 1: no program given" },
		{ "0 echo 'open", 0, "--multi-prog line 1: unmatched quote" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct herd_error err;
		char *lines[] = { (char *)bad[i].line };
		assert_null(multiprog_argv(lines, 1, bad[i].task, 4, &err));
		assert_string_equal(err.text, bad[i].text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
