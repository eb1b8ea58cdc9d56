/* acct/wckey.c's decisions for jobs, over wckeys made in memory: a job's
 * wckey at submission with and without TrackWCKey and
 * AccountingStorageEnforce=wckeys (lower case, the default as "*k", the
 * record's ID), and scontrol update's (an unknown one becomes the
 * default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static int setup(void **state)
{
	core.cluster = "c";
	struct acct_user *u = acct_user_new("ann");
	u->default_wckey = xstrdup("alpha");
	acct_user_new("bob");
	acct_wckey_new(0, "c", "alpha", "ann");
	acct_wckey_new(0, "c", "gamma", "ann");
	acct_wckey_new(0, "other", "beta", "ann");   /* another cluster's */
	return 0;
}

static int teardown(void **state)
{
	assoc_free_all();
	return 0;
}

/* A job of user's submitted with given (NULL: no --wckey): its rc, and
 * its wckey and ID into *wckey (to free) and *id. */
static int submit(const char *user, const char *given, char **wckey, uint32_t *id)
{
	struct job *j = xmalloc(sizeof(*j));
	struct herd_error err = { "" };
	j->user = xstrdup(user);
	int rc = wckey_job_submit(j, given, &err);
	if (rc)
		assert_string_equal(err.text, "Invalid wckey specification");
	*wckey = j->wckey ? xstrdup(j->wckey) : NULL;
	*id = j->wckey_id;
	job_destroy(j);
	return rc;
}

static void expect(const char *user, const char *given, int rc, const char *wckey, uint32_t id)
{
	char *got;
	uint32_t gid;
	assert_int_equal(submit(user, given, &got, &gid), rc);
	if (wckey)
		assert_string_equal(got ? got : "(none)", wckey);
	else
		assert_null(got);
	assert_int_equal(gid, id);
	free(got);
}

static void submission(void **state)
{
	uint32_t alpha = acct_wckey_find("c", "alpha", "ann")->id;
	uint32_t gamma = acct_wckey_find("c", "gamma", "ann")->id;
	assert_true(alpha && gamma && alpha != gamma);
	assert_null(acct_wckey_find("c", "beta", "ann"));
	/* TrackWCKey=no: ignored */
	accounting.track_wckey = false;
	expect("ann", "gamma", 0, NULL, 0);
	/* TrackWCKey=yes */
	accounting.track_wckey = true;
	accounting.enforce_wckeys = false;
	expect("ann", "Gamma", 0, "gamma", gamma);
	expect("ann", NULL, 0, "*alpha", alpha);
	expect("ann", "", 0, "*alpha", alpha);
	expect("ann", "zzz", 0, "zzz", 0);
	expect("ann", "beta", 0, "beta", 0);       /* its record is another cluster's */
	expect("bob", NULL, 0, "*", 0);
	expect("nobody", "alpha", 0, "alpha", 0);
	/* AccountingStorageEnforce=wckeys */
	accounting.enforce_wckeys = true;
	expect("ann", "GAMMA", 0, "gamma", gamma);
	expect("ann", NULL, 0, "*alpha", alpha);
	expect("ann", "zzz", HERD_ERR_INVALID_WCKEY, NULL, 0);
	expect("ann", "beta", HERD_ERR_INVALID_WCKEY, NULL, 0);
	expect("bob", NULL, HERD_ERR_INVALID_WCKEY, NULL, 0);
	expect("bob", "alpha", HERD_ERR_INVALID_WCKEY, NULL, 0);   /* ann's, not bob's */
	accounting.enforce_wckeys = false;
}

static void update(void **state)
{
	struct job j = { .user = "ann", .wckey = "*alpha", .wckey_id = 1 };
	struct herd_error err = { "" };
	char *w;
	uint32_t id;
	accounting.track_wckey = true;
	accounting.enforce_wckeys = false;
	assert_int_equal(wckey_job_update(&j, "GAMMA", &w, &id, &err), 0);
	assert_string_equal(w, "gamma");
	assert_int_equal(id, acct_wckey_find("c", "gamma", "ann")->id);
	free(w);
	/* unknown or empty: the user's default, without the '*' */
	assert_int_equal(wckey_job_update(&j, "zzz", &w, &id, &err), 0);
	assert_string_equal(w, "alpha");
	free(w);
	assert_int_equal(wckey_job_update(&j, "", &w, &id, &err), 0);
	assert_string_equal(w, "alpha");
	free(w);
	/* a user without a default keeps what was asked */
	struct job b = { .user = "bob" };
	assert_int_equal(wckey_job_update(&b, "Zzz", &w, &id, &err), 0);
	assert_string_equal(w, "zzz");
	assert_int_equal(id, 0);
	free(w);
	accounting.enforce_wckeys = true;
	assert_int_equal(wckey_job_update(&j, "zzz", &w, &id, &err), HERD_ERR_INVALID_WCKEY);
	free(w);
	/* without TrackWCKey the job's own stays */
	accounting.track_wckey = false;
	assert_int_equal(wckey_job_update(&j, "zzz", &w, &id, &err), 0);
	assert_string_equal(w, "*alpha");
	assert_int_equal(id, 1);
	free(w);
	accounting.enforce_wckeys = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(submission),
		cmocka_unit_test(update),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
