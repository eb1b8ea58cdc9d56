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

#include "munged.h"

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
