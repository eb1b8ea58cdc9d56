/* secret_read: the password file's owner, mode, type, and first line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/secret.h"

static char dir[64];

static char *put(const char *name, const char *text, mode_t mode)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/herd-secret-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void reads_first_line(void **state)
{
	struct herd_error err = { "" };
	char *s = secret_read(put("pw", "it's a \\pass\r\nsecond line\n", 0600), getuid(), "K", &err);
	assert_non_null(s);
	assert_string_equal(s, "it's a \\pass");
	free(s);
	s = secret_read(put("pw", "no newline", 0400), getuid(), "K", &err);
	assert_string_equal(s, "no newline");
	free(s);
}

static void refuses(void **state)
{
	struct herd_error err = { "" };
	assert_null(secret_read("relative/pw", getuid(), "AccountingStoragePass", &err));
	assert_non_null(strstr(err.text, "AccountingStoragePass must be the absolute path"));
	assert_null(secret_read(put("pw", "hunter2\n", 0644), getuid(), "K", &err));
	assert_non_null(strstr(err.text, "accessible to group or others (mode 0644)"));
	assert_non_null(strstr(err.text, dir));   /* names the file */
	assert_null(strstr(err.text, "hunter2"));   /* never the secret */
	assert_null(secret_read(put("pw", "hunter2\n", 0640), getuid(), "K", &err));
	assert_null(secret_read(put("pw", "hunter2\n", 0602), getuid(), "K", &err));
	assert_null(secret_read(put("pw", "\n", 0600), getuid(), "K", &err));
	assert_non_null(strstr(err.text, "is empty"));
	char missing[128];
	snprintf(missing, sizeof(missing), "%s/none", dir);
	assert_null(secret_read(missing, getuid(), "K", &err));
	assert_non_null(strstr(err.text, "cannot open"));
	/* a symlink to a good file: refused (O_NOFOLLOW) */
	char link[128], *target = put("pw", "hunter2\n", 0600);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(target, link), 0);
	assert_null(secret_read(link, getuid(), "K", &err));
	assert_null(secret_read(dir, getuid(), "K", &err));   /* a directory */
	/* owned by someone who is neither root nor the owner given */
	if (getuid() == 0) {
		char *p = put("pw", "hunter2\n", 0600);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_null(secret_read(p, 0, "K", &err));
		assert_non_null(strstr(err.text, "owned by root or SlurmUser"));
		char *s = secret_read(p, 65534, "K", &err);   /* SlurmUser's own: fine */
		assert_string_equal(s, "hunter2");
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_first_line),
		cmocka_unit_test(refuses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
