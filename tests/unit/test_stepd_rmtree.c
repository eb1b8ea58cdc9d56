/* rmtree: emptying a tree a user may write, as root, without following
 * links, entering directories that are not the user's, or leaving the
 * tree's filesystem.  The walk during a rename is raced for real in
 * tests/cluster/test_stepd_paths.py; here, what a tree left in place
 * holds.  The stepd sources are not in libherd: compiled in here. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "stepd/rmtree.c"

/* A uid that is neither root nor anyone's on a test machine. */
#define OTHER_UID 54321

static char base[64];

static void path_of(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", base, rel);
}

static void make_dir(const char *rel)
{
	char p[256];
	path_of(p, sizeof(p), rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void make_file(const char *rel, const char *text)
{
	char p[256];
	path_of(p, sizeof(p), rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *rel)
{
	char p[256];
	struct stat st;
	path_of(p, sizeof(p), rel);
	return lstat(p, &st) == 0;
}

static int setup(void **state)
{
	snprintf(base, sizeof(base), "/tmp/herd-rmtree-test.XXXXXX");
	assert_non_null(mkdtemp(base));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* Links inside the tree (to a directory and to a file outside) go as
 * links; what they point at stays.  Sockets, FIFOs, nested directories go. */
static void test_links_are_not_followed(void **state)
{
	char p[256], q[256];
	make_dir("outside");
	make_file("outside/keep", "root's\n");
	make_dir("tree");
	make_dir("tree/a");
	make_dir("tree/a/b");
	make_file("tree/a/b/f", "x");
	make_file("tree/top", "x");
	path_of(p, sizeof(p), "outside");
	path_of(q, sizeof(q), "tree/a/dirlink");
	assert_int_equal(symlink(p, q), 0);
	path_of(p, sizeof(p), "outside/keep");
	path_of(q, sizeof(q), "tree/filelink");
	assert_int_equal(symlink(p, q), 0);
	path_of(q, sizeof(q), "tree/a/fifo");
	assert_int_equal(mkfifo(q, 0600), 0);
	int sock = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	path_of(sun.sun_path, sizeof(sun.sun_path), "tree/sock");
	assert_int_equal(bind(sock, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(sock);

	int fd = open(base, O_RDONLY | O_DIRECTORY);
	assert_int_equal(rmtree_remove(fd, "tree", getuid()), 0);
	assert_false(exists("tree"));
	assert_true(exists("outside/keep"));
	close(fd);
}

/* The top itself a link: refused (ENOTDIR), nothing removed behind it. */
static void test_top_link_refused(void **state)
{
	char p[256], q[256];
	make_dir("target");
	make_file("target/keep", "root's\n");
	path_of(p, sizeof(p), "target");
	path_of(q, sizeof(q), "top");
	assert_int_equal(symlink(p, q), 0);
	int fd = open(base, O_RDONLY | O_DIRECTORY);
	assert_int_equal(rmtree_remove(fd, "top", getuid()), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_true(exists("target/keep"));
	assert_true(exists("top"));
	close(fd);
}

/* Run as root: directories of the user (OTHER_UID here) are taken (root's
 * 0700) and emptied; a directory of someone else inside one of them (root's
 * own, say) is left whole, and the walk says the tree is not empty. */
static void test_only_the_users_directories(void **state)
{
	char p[256];
	if (geteuid() != 0) {
		printf("skipped: needs root (chown to another uid)\n");
		skip();
	}
	make_dir("t");
	make_dir("t/users");
	make_file("t/users/f", "x");
	make_dir("t/users/roots");
	make_file("t/users/roots/keep", "root's\n");
	path_of(p, sizeof(p), "t/users");
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	path_of(p, sizeof(p), "t/users/f");
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	make_dir("t/users2");
	path_of(p, sizeof(p), "t/users2");
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);

	int fd = open(base, O_RDONLY | O_DIRECTORY);
	assert_int_equal(rmtree_remove(fd, "t", OTHER_UID), -1);
	assert_int_equal(errno, ENOTEMPTY);
	assert_true(exists("t/users/roots/keep"));
	assert_false(exists("t/users/f"));
	assert_false(exists("t/users2"));
	/* What is left is no longer the user's to change. */
	struct stat st;
	path_of(p, sizeof(p), "t/users");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	close(fd);
}

/* A tree deeper than RMTREE_MAX_DEPTH stays below that depth, without a
 * crash or an error other than ENOTEMPTY; a wide one goes whole (more names
 * than one getdents64 buffer, removed while read). */
static void test_deep_and_wide(void **state)
{
	char rel[4096] = "deep";
	make_dir("deep");
	for (int i = 0; i < RMTREE_MAX_DEPTH + 3; i++) {
		strcat(rel, "/d");
		make_dir(rel);
	}
	make_dir("wide");
	for (int i = 0; i < 3000; i++) {
		char name[64];
		snprintf(name, sizeof(name), "wide/a-rather-long-file-name-%05d", i);
		make_file(name, "");
	}
	int fd = open(base, O_RDONLY | O_DIRECTORY);
	assert_int_equal(rmtree_remove(fd, "deep", getuid()), -1);
	assert_int_equal(errno, ENOTEMPTY);
	assert_int_equal(rmtree_remove(fd, "wide", getuid()), 0);
	assert_false(exists("wide"));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_links_are_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_the_users_directories, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_and_wide, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
