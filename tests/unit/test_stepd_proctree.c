/* herdstepd's process-tree walk: every descendant is found and killed,
 * including one that left the job's session with setsid(), and a process in
 * the job's group gets each signal once.  Forks real processes; the test is
 * a child subreaper so the orphaned grandchild comes back to it, as it does
 * to herdstepd.  The stepd sources are not in libherd, so proctree.c is
 * compiled in here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stepd/proctree.c"

static bool contains(const pid_t *v, ssize_t n, pid_t pid)
{
	for (ssize_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* Wait for the pids a child wrote to the pipe. */
static void read_pids(int fd, pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(read(fd, &pids[i], sizeof(pid_t)), sizeof(pid_t));
}

static void test_tree_with_setsid_grandchild(void **state)
{
	int p[2];
	pid_t child, got[2], *desc;
	ssize_t n;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t me = getpid(), gc = fork();
		if (gc == 0) {
			setsid();
			pid_t self = getpid();
			if (write(p[1], &self, sizeof(self)) < 0)
				_exit(1);
			pause();
			_exit(0);
		}
		if (write(p[1], &me, sizeof(me)) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	read_pids(p[0], got, 2);
	n = proctree_descendants(getpid(), &desc);
	assert_true(n >= 2);
	assert_true(contains(desc, n, got[0]));
	assert_true(contains(desc, n, got[1]));
	assert_false(contains(desc, n, getpid()));
	free(desc);

	assert_true(proctree_signal(getpid(), 0, 0, SIGKILL) >= 2);
	/* both come back to us: the child directly, the grandchild as an orphan */
	int reaped = 0;
	time_t end = time(NULL) + 10;
	while (reaped < 2 && time(NULL) < end) {
		pid_t w = waitpid(-1, NULL, 0);
		if (w == got[0] || w == got[1])
			reaped++;
	}
	assert_int_equal(reaped, 2);
	assert_int_equal(proctree_descendants(getpid(), &desc), 0);
	free(desc);
	close(p[0]);
	close(p[1]);
}

static volatile sig_atomic_t signal_count;
static void on_signal(int sig)
{
	signal_count++;
}

/* A group member that is also a descendant gets the signal once.  A
 * real-time signal, because those queue: two sends would count two. */
static void test_group_member_signalled_once(void **state)
{
	int p[2], q[2];
	pid_t child;
	char count;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct sigaction sa = { .sa_handler = on_signal };
		sigaction(SIGRTMIN + 1, &sa, NULL);
		setpgid(0, 0);
		pid_t me = getpid();
		if (write(p[1], &me, sizeof(me)) < 0)
			_exit(1);
		/* wait until told to report */
		char c;
		while (read(q[0], &c, 1) < 0 && errno == EINTR)
			;
		count = signal_count;
		if (write(p[1], &count, 1) < 0)
			_exit(1);
		_exit(0);
	}
	pid_t got;
	read_pids(p[0], &got, 1);
	assert_int_equal(got, child);
	assert_true(proctree_signal(getpid(), child, 0, SIGRTMIN + 1) >= 1);
	usleep(200000);
	assert_int_equal(write(q[1], "x", 1), 1);
	assert_int_equal(read(p[0], &count, 1), 1);
	assert_int_equal(count, 1);
	waitpid(child, NULL, 0);
	close(p[0]), close(p[1]), close(q[0]), close(q[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_with_setsid_grandchild),
		cmocka_unit_test(test_group_member_signalled_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
