/* herdd's MPS parts (doc/gres.md section 4): which GPUs a LAUNCH has mps
 * shares of, where the program is found (never a directory or file others
 * may change), and the directory root makes for the user.  The daemons'
 * start and stop: tests/cluster/test_gres_mps.py.  mps.c is compiled in. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "noded/mps.c"
#include "stepd/rmtree.c"

/* mps_tick's question; not reached here */
struct noded_job *jobs_next_of(struct noded *nd, uint32_t job_id, struct noded_job *after)
{
	return NULL;
}

static void test_launch_gpus(void **state)
{
	int gpus[4];
	json_t *l = json_loads(
		"{\"gres\": [{\"name\": \"gpu\", \"index\": 0},"
		" {\"name\": \"mps\", \"index\": 3, \"count\": 25, \"total\": 100},"
		" {\"name\": \"mps\", \"index\": 3, \"count\": 25},"
		" {\"name\": \"mps\", \"index\": -1}, {\"name\": \"mps\", \"index\": 70000},"
		" {\"name\": \"mps\", \"index\": \"1\"}, {\"name\": 5, \"index\": 1}, 7,"
		" {\"name\": \"shard\", \"index\": 2}, {\"name\": \"mps\", \"index\": 0}]}", 0, NULL);
	assert_non_null(l);
	assert_int_equal(mps_launch_gpus(l, gpus, 4), 2);
	assert_int_equal(gpus[0], 3);
	assert_int_equal(gpus[1], 0);
	assert_int_equal(mps_launch_gpus(l, gpus, 1), 1);   /* at most max */
	json_decref(l);
	l = json_loads("{\"gres\": {\"name\": \"mps\", \"index\": 1}}", 0, NULL);
	assert_int_equal(mps_launch_gpus(l, gpus, 4), 0);
	json_decref(l);
	l = json_loads("{}", 0, NULL);
	assert_int_equal(mps_launch_gpus(l, gpus, 4), 0);
	json_decref(l);
}

static void put_program(const char *dir, mode_t mode)
{
	char *p = xasprintf("%s/%s", dir, MPS_PROGRAM);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void test_program_find(void **state)
{
	char a[] = "/tmp/herd-mps-a-XXXXXX", b[] = "/tmp/herd-mps-b-XXXXXX";
	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	char *want_b = xasprintf("%s/%s", b, MPS_PROGRAM), *path, *got;

	path = xasprintf("%s:%s", a, b);
	assert_null(mps_program_find(path));      /* in neither */
	put_program(b, 0755);
	got = mps_program_find(path);
	assert_string_equal(got, want_b);
	free(got);
	put_program(a, 0644);                    /* not executable: passed over */
	got = mps_program_find(path);
	assert_string_equal(got, want_b);
	free(got);
	put_program(a, 0775);                    /* its group may write it: passed over */
	got = mps_program_find(path);
	assert_string_equal(got, want_b);
	free(got);
	put_program(a, 0757);
	got = mps_program_find(path);
	assert_string_equal(got, want_b);
	free(got);
	free(path);
	/* a relative or empty entry is never searched (the caller's directory) */
	assert_int_equal(chdir(b), 0);
	assert_null(mps_program_find(".:relative::"));
	assert_int_equal(chdir("/"), 0);

	char *pa = xasprintf("%s/%s", a, MPS_PROGRAM);
	unlink(pa);
	unlink(want_b);
	rmdir(a);
	rmdir(b);
	free(pa);
	free(want_b);
}

/* Root's until filled, then the user's 0700, pipe/ and log/ too; a name
 * already there (a link the user left, say) is refused, not followed. */
static void test_dir_create(void **state)
{
	char spool[] = "/tmp/herd-mps-spool-XXXXXX", name[64];
	struct stat st;
	uid_t uid = geteuid() == 0 ? 65534 : geteuid();
	gid_t gid = geteuid() == 0 ? 65534 : getegid();

	assert_non_null(mkdtemp(spool));
	int fd = open(spool, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	mps_dir_name(name, sizeof(name), 77, 2);
	assert_string_equal(name, "mps00077.2");
	assert_int_equal(mps_dir_create(fd, name, uid, gid), 0);
	const char *subs[] = { "mps00077.2", "mps00077.2/pipe", "mps00077.2/log" };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fstatat(fd, subs[i], &st, AT_SYMLINK_NOFOLLOW), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(st.st_mode & 07777, 0700);
		assert_int_equal(st.st_uid, uid);
		assert_int_equal(st.st_gid, gid);
	}
	assert_int_equal(mps_dir_create(fd, name, uid, gid), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(rmtree_remove(fd, name, uid), 0);

	assert_int_equal(symlinkat("/etc", fd, name), 0);
	assert_int_equal(mps_dir_create(fd, name, uid, gid), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(unlinkat(fd, name, 0), 0);
	close(fd);
	assert_int_equal(rmdir(spool), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_gpus),
		cmocka_unit_test(test_program_find),
		cmocka_unit_test(test_dir_create),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
