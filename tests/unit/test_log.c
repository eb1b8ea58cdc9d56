/* Logging (levels, one line per call, file output), errprintf and the rc
 * table, and the xmalloc helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"

static void levels_and_lines(void **state)
{
	char path[] = "/tmp/herd-log-XXXXXX", buf[4096];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_init("herdtest", LOG_LVL_INFO, path), 0);
	log_info("job %d started", 7);
	log_debug("not shown at info");
	log_error("bad frame from %s", "127.0.0.1:5");
	log_set_level(LOG_LVL_DEBUG);
	log_debug("now shown");
	FILE *f = fopen(path, "r");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "] herdtest: job 7 started\n"));
	assert_non_null(strstr(buf, "] herdtest: error: bad frame from 127.0.0.1:5\n"));
	assert_non_null(strstr(buf, "] herdtest: debug: now shown\n"));
	assert_null(strstr(buf, "not shown"));
	assert_int_equal(buf[0], '[');
	assert_int_equal(log_init("x", LOG_LVL_INFO, "/nonexistent/dir/log"), -1);
}

static void level_names(void **state)
{
	assert_int_equal(log_level_parse("error"), LOG_LVL_ERROR);
	assert_int_equal(log_level_parse("quiet"), LOG_LVL_ERROR);
	assert_int_equal(log_level_parse("debug2"), LOG_LVL_DEBUG);   /* Slurm's SlurmctldDebug names */
	assert_int_equal(log_level_parse("verbose"), LOG_LVL_INFO);
	assert_int_equal(log_level_parse(NULL), LOG_LVL_INFO);
}

static void errors(void **state)
{
	struct herd_error err;
	char long_name[400];
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	assert_int_equal(errprintf(&err, "node %s down", "n1"), -1);
	assert_string_equal(err.text, "node n1 down");
	assert_int_equal(errprintf(&err, "%s", long_name), -1);   /* truncated, terminated */
	assert_int_equal(strlen(err.text), sizeof(err.text) - 1);
	assert_int_equal(errprintf(NULL, "ignored"), -1);
	assert_string_equal(herd_strerror(HERD_ERR_INVALID_JOB), "Invalid job id specified");
	assert_string_equal(herd_strerror(HERD_OK), "No error");
}

static void allocation(void **state)
{
	char *s = xasprintf("%s-%d", "n", 12);
	assert_string_equal(s, "n-12");
	free(s);
	assert_null(xstrdup(NULL));
	s = xstrndup("abcdef", 3);
	assert_string_equal(s, "abc");
	free(s);
	int *z = xmalloc(16 * sizeof(int));
	for (int i = 0; i < 16; i++)
		assert_int_equal(z[i], 0);   /* zeroed */
	z = xrealloc(z, 32 * sizeof(int));
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(levels_and_lines),
		cmocka_unit_test(level_names),
		cmocka_unit_test(errors),
		cmocka_unit_test(allocation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
