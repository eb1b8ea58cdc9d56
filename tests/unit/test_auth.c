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
	struct auth_id who;
	const char *body = "{\"job_id\":1}";
	char *cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);

	assert_non_null(cred);
	/* wrong type, destination, body: refused, and those tries do not spend it */
	assert_int_equal(auth_decode(sock, cred, MSG_UPDATE_JOB, "c1:ctld", body, strlen(body), &who, &err), -1);
	assert_string_equal(err.text, "credential does not match its frame");
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:n1", body, strlen(body), &who, &err), -1);
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", "{\"job_id\":2}", 12, &who, &err), -1);
	free(cred);

	cred = auth_encode(sock, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &err);
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &who, &err), 0);
	assert_int_equal(who.uid, getuid());
	assert_int_equal(who.gid, getgid());
	/* where it was made: this host, as its munged resolved its own name */
	assert_int_not_equal(who.addr.s_addr, htonl(INADDR_ANY));
	/* the same credential again: a replay */
	assert_int_equal(auth_decode(sock, cred, MSG_CANCEL_JOB, "c1:ctld", body, strlen(body), &who, &err), -1);
	assert_string_equal(err.text, "credential replayed");
	free(cred);
}

static void garbage_is_refused(void **state)
{
	struct herd_error err;
	struct auth_id who;
	assert_int_equal(auth_decode(sock, "MUNGE:AAAA:", MSG_PING, "c1:ctld", "{}", 2, &who, &err), -1);
	assert_int_equal(auth_decode(sock, "", MSG_PING, "c1:ctld", "{}", 2, &who, &err), -1);
	assert_null(auth_encode("/nonexistent/sock", MSG_PING, "c1:ctld", "{}", 2, &err));
}

/* auth_decode_with, the seam the fuzz targets use: the verifier's payload
 * must be the frame's digest; a verifier's refusal, an empty payload or a
 * payload of another frame is refused; the uid it gives is passed on. */
static const char *fake_payload;

static int fake_verify(void *arg, const char *cred, void **payload, int *plen,
		       struct auth_id *id, struct herd_error *err)
{
	if (!strcmp(cred, "refuse"))
		return errprintf(err, "invalid credential: refused");
	*payload = fake_payload ? strdup(fake_payload) : NULL;
	*plen = fake_payload ? (int)strlen(fake_payload) : 64;
	id->uid = 4242;
	id->gid = 4243;
	return 0;
}

static void decode_with_a_verifier(void **state)
{
	struct herd_error err;
	struct auth_id who = { 0 };
	/* A payload of another frame (the digest of an empty PING to c1:n1). */
	fake_payload = "b2d5c9a4e9b4fd5a1f3c9f7e6f0d4f6b0e0b4a3f2c1d0e9f8a7b6c5d4e3f2a1b";
	assert_int_equal(auth_decode_with(fake_verify, NULL, "ok", MSG_PING, "c1:ctld", "{}", 2,
					  &who, &err), -1);
	assert_string_equal(err.text, "credential does not match its frame");
	fake_payload = NULL;
	assert_int_equal(auth_decode_with(fake_verify, NULL, "ok", MSG_PING, "c1:ctld", "{}", 2,
					  &who, &err), -1);
	assert_int_equal(auth_decode_with(fake_verify, NULL, "refuse", MSG_PING, "c1:ctld", "{}", 2,
					  &who, &err), -1);
	assert_string_equal(err.text, "invalid credential: refused");
	/* sha256(00 01 "c1:ctld" 00 "{}"), as test_frames.py computes it */
	fake_payload = "1039c225043dac96d359013b8cc8f0a18ad768a11e312b0ce9ee10abfc6753ec";
	assert_int_equal(auth_decode_with(fake_verify, NULL, "ok", MSG_PING, "c1:ctld", "{}", 2,
					  &who, &err), 0);
	assert_int_equal(who.uid, 4242);
	assert_int_equal(who.gid, 4243);
	/* ... and only for that frame */
	assert_int_equal(auth_decode_with(fake_verify, NULL, "ok", MSG_PING, "c1:ctld", "{} ", 3,
					  &who, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bound_to_its_frame),
		cmocka_unit_test(garbage_is_refused),
		cmocka_unit_test(decode_with_a_verifier),
	};
	return cmocka_run_group_tests(tests, start_munged, stop_munged);
}
