/* fs_remove_flat_dir: a spool directory and its files go; a missing one is fine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/fs.h"

static void removes_dir_and_files(void **state)
{
	char dir[] = "/tmp/herd-fs-XXXXXX", path[64];
	struct stat st;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(fs_remove_flat_dir(dir), 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(fs_remove_flat_dir(dir), 0);   /* already gone */
}

static void nested_dir_is_an_error(void **state)
{
	char dir[] = "/tmp/herd-fs-XXXXXX", sub[64];
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(fs_remove_flat_dir(dir), -1);   /* not flat: left for a human */
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(removes_dir_and_files),
		cmocka_unit_test(nested_dir_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
