/* MUNGE credentials bound to frames, against a private munged started in a
 * temp dir: a credential works once, for its own type, destination and body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/msg.h"

static char dir[] = "/tmp/herd-auth-XXXXXX";
static char sock[256];

static int start_munged(void **state)
{
	char cmd[1024];
	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof(sock), "%s/munge.sock", dir);
	snprintf(cmd, sizeof(cmd),
		 "dd if=/dev/urandom of=%1$s/key bs=1024 count=1 2>/dev/null && chmod 400 %1$s/key && "
		 "/usr/sbin/munged --socket=%1$s/munge.sock --key-file=%1$s/key --pid-file=%1$s/pid "
		 "--log-file=%1$s/log --seed-file=%1$s/seed --force", dir);
	if (system(cmd) != 0)
		return -1;
	for (int i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(20000);
	return 0;
}

static int stop_munged(void **state)
{
	char path[300], cmd[400];
	FILE *f;
	int pid = 0;
	snprintf(path, sizeof(path), "%s/pid", dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &pid) == 1 && pid > 0)
			kill(pid, SIGTERM);
		fclose(f);
	}
	usleep(100000);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void bound_to_its_frame(void **state)
{
	struct herd_error err;
	uid_t uid;
	gid_t gid;
	const char *body = "{\"job_id\":1}";
	char *cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);

	assert_non_null(cred);
	/* wrong type, destination, body: refused, and those tries do not spend it */
	assert_int_equal(auth_decode(sock, cred, MSG_UPDATE_JOB, "c1:ctld", body, strlen(body), &uid, &gid, &err), -1);
	assert_string_equal(err.text, "credential does not match its frame");
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:n1", body, strlen(body), &uid, &gid, &err), -1);
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", "{\"job_id\":2}", 12, &uid, &gid, &err), -1);
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &uid, &gid, &err), 0);
	assert_int_equal(uid, getuid());
	assert_int_equal(gid, getgid());
	/* the same credential again: a replay */
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &uid, &gid, &err), -1);
	assert_string_equal(err.text, "credential replayed");
	free(cred);
}

static void garbage_is_refused(void **state)
{
	struct herd_error err;
	uid_t uid;
	gid_t gid;
	assert_int_equal(auth_decode(sock, "MUNGE:AAAA:", MSG_PING, "c1:ctld", "{}", 2, &uid, &gid, &err), -1);
	assert_int_equal(auth_decode(sock, "", MSG_PING, "c1:ctld", "{}", 2, &uid, &gid, &err), -1);
	assert_null(auth_encode("/nonexistent/sock", MSG_PING, "c1:ctld", "{}", 2, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bound_to_its_frame),
		cmocka_unit_test(garbage_is_refused),
	};
	return cmocka_run_group_tests(tests, start_munged, stop_munged);
}
