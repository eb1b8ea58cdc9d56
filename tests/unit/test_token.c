/* common/token.c: the JWT key file's checks, minting and verification as the
 * controller does them (HS256 only, exp and sun required), and tokens made
 * by libjwt itself with what must be refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jwt.h>
#include "common/token.h"

static char dir[] = "/tmp/test_token.XXXXXX";

static char *key_file(const char *name, const char *bytes, mode_t mode)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(bytes, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void test_key_file(void **state)
{
	struct token_key key;
	struct herd_error err;

	assert_int_equal(token_key_load(key_file("good", "0123456789abcdef", 0600), getuid(), &key,
					&err), 0);
	assert_int_equal(key.len, 16);
	token_key_clear(&key);
	assert_null(key.data);
	/* Group access is Slurm's choice to allow; "other" never. */
	assert_int_equal(token_key_load(key_file("group", "k", 0640), getuid(), &key, &err), 0);
	token_key_clear(&key);
	assert_int_equal(token_key_load(key_file("world", "k", 0644), getuid(), &key, &err), -1);
	assert_non_null(strstr(err.text, "accessible by others"));
	assert_null(key.data);
	assert_int_equal(token_key_load(key_file("worldw", "k", 0602), getuid(), &key, &err), -1);
	assert_int_equal(token_key_load(key_file("empty", "", 0600), getuid(), &key, &err), -1);
	assert_non_null(strstr(err.text, "empty"));
	assert_int_equal(token_key_load(dir, getuid(), &key, &err), -1);
	assert_non_null(strstr(err.text, "not a regular file"));
	assert_int_equal(token_key_load("/nonexistent/key", getuid(), &key, &err), -1);
	/* Owned by someone who is neither root nor the allowed owner. */
	if (getuid() == 0) {
		char *p = key_file("theirs", "k", 0600);
		assert_int_equal(chown(p, 4242, 4242), 0);
		assert_int_equal(token_key_load(p, 0, &key, &err), -1);
		assert_non_null(strstr(err.text, "owned by uid 4242"));
		assert_int_equal(token_key_load(p, 4242, &key, &err), 0);   /* SlurmUser's */
		token_key_clear(&key);
	}
	token_key_clear(NULL);
}

/* A token made with libjwt directly: alg, key, and which claims. */
static char *made(jwt_alg_t alg, const char *k, long exp, const char *sun)
{
	jwt_t *jwt;
	assert_int_equal(jwt_new(&jwt), 0);
	if (exp)
		jwt_add_grant_int(jwt, "exp", exp);
	if (sun)
		jwt_add_grant(jwt, "sun", sun);
	assert_int_equal(jwt_set_alg(jwt, alg, alg == JWT_ALG_NONE ? NULL : (const unsigned char *)k,
				     alg == JWT_ALG_NONE ? 0 : strlen(k)), 0);
	char *t = jwt_encode_str(jwt);
	jwt_free(jwt);
	assert_non_null(t);
	return t;
}

static void test_mint_and_verify(void **state)
{
	struct token_key key = { (unsigned char *)"secret-key-bytes", 16 };
	struct token_key other = { (unsigned char *)"another-key-byte", 16 };
	struct herd_error err;
	char user[TOKEN_USER_MAX], tiny[4];
	time_t now = 1700000000, exp = 0;

	char *t = token_mint(&key, "alice", 1800, now, &err);
	assert_non_null(t);
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), &exp, &err), 0);
	assert_string_equal(user, "alice");
	assert_int_equal(exp, now + 1800);
	/* Expired at exp; another key; a user name that does not fit. */
	assert_int_equal(token_verify(&key, t, now + 1800, user, sizeof(user), NULL, &err), -1);
	assert_string_equal(err.text, "token expired");
	assert_int_equal(token_verify(&other, t, now, user, sizeof(user), NULL, &err), -1);
	assert_non_null(strstr(err.text, "invalid token"));
	assert_int_equal(token_verify(&key, t, now, tiny, sizeof(tiny), NULL, &err), -1);
	/* A flipped signature character. */
	size_t n = strlen(t);
	t[n - 2] = t[n - 2] == 'A' ? 'B' : 'A';
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), -1);
	free(t);

	assert_null(token_mint(&key, "", 10, now, &err));
	assert_null(token_mint(&key, "alice", 0, now, &err));
	assert_int_equal(token_verify(&key, NULL, now, user, sizeof(user), NULL, &err), -1);
	assert_string_equal(err.text, "missing X-SLURM-USER-TOKEN");

	/* Made elsewhere: HS256 with both claims passes; none, HS384, or a
	 * missing claim does not. */
	t = made(JWT_ALG_HS256, "secret-key-bytes", now + 60, "bob");
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), 0);
	assert_string_equal(user, "bob");
	free(t);
	t = made(JWT_ALG_NONE, NULL, now + 60, "root");
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), -1);
	free(t);
	t = made(JWT_ALG_HS384, "secret-key-bytes", now + 60, "bob");
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), -1);
	free(t);
	t = made(JWT_ALG_HS256, "secret-key-bytes", 0, "bob");
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), -1);
	assert_non_null(strstr(err.text, "exp"));
	free(t);
	t = made(JWT_ALG_HS256, "secret-key-bytes", now + 60, NULL);
	assert_int_equal(token_verify(&key, t, now, user, sizeof(user), NULL, &err), -1);
	assert_non_null(strstr(err.text, "sun"));
	free(t);
	/* Over the length limit: refused unread. */
	char *big = malloc(TOKEN_MAX_LEN + 2);
	memset(big, 'a', TOKEN_MAX_LEN + 1);
	big[TOKEN_MAX_LEN + 1] = '\0';
	assert_int_equal(token_verify(&key, big, now, user, sizeof(user), NULL, &err), -1);
	assert_non_null(strstr(err.text, "longer"));
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_mint_and_verify),
	};
	assert_non_null(mkdtemp(dir));
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
