/* JSON Web Tokens as Slurm's auth/jwt makes and checks them (token.h): the
 * key file, minting and verification, on libjwt.  The controller verifies
 * every token (herdrestd only forwards them) and mints them for
 * `scontrol token`; `herdrestd --token` mints offline for the key's owner. */
#include <errno.h>
#include <fcntl.h>
#include <jwt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/token.h"
#include "common/xmalloc.h"

/* Slurm's keys are a few hundred bytes; anything this big is a wrong path. */
#define KEY_MAX (64 * 1024)

int token_key_load(const char *path, uid_t owner, struct token_key *key, struct herd_error *err)
{
	struct stat st;
	unsigned char *data = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(key, 0, sizeof(*key));
	if (fd < 0)
		return errprintf(err, "cannot open JWT key %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		errprintf(err, "JWT key %s is not a regular file", path);
		goto error;
	}
	/* Anyone who can read the key can mint a token for any user. */
	if (st.st_mode & 0007) {
		errprintf(err, "JWT key %s is accessible by others (mode %04o): "
			  "chmod 0600 it, owned by root or SlurmUser", path, (unsigned)(st.st_mode & 07777));
		goto error;
	}
	if (st.st_uid != 0 && st.st_uid != owner) {
		errprintf(err, "JWT key %s is owned by uid %u: it must belong to root or SlurmUser",
			  path, (unsigned)st.st_uid);
		goto error;
	}
	if (st.st_size == 0 || st.st_size > KEY_MAX) {
		errprintf(err, "JWT key %s is %s", path, st.st_size ? "too large" : "empty");
		goto error;
	}
	data = xmalloc(st.st_size);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errprintf(err, "cannot read JWT key %s: %s", path, n ? strerror(errno) : "short read");
			goto error;
		}
		got += n;
	}
	close(fd);
	key->data = data;
	key->len = got;
	return 0;
error:
	if (data)
		explicit_bzero(data, st.st_size);
	free(data);
	close(fd);
	return -1;
}

void token_key_clear(struct token_key *key)
{
	if (!key || !key->data)
		return;
	explicit_bzero(key->data, key->len);
	free(key->data);
	key->data = NULL;
	key->len = 0;
}

char *token_mint(const struct token_key *key, const char *user, long lifespan, time_t now,
		 struct herd_error *err)
{
	jwt_t *jwt = NULL;
	char *token, *out = NULL;

	if (!user || !*user) {
		errprintf(err, "no user name for the token");
		return NULL;
	}
	if (lifespan <= 0) {
		errprintf(err, "the token lifespan must be a positive number of seconds");
		return NULL;
	}
	if (!key->data) {
		errprintf(err, "no JWT key loaded");
		return NULL;
	}
	if (jwt_new(&jwt) || jwt_add_grant_int(jwt, "iat", now) ||
	    jwt_add_grant_int(jwt, "exp", now + lifespan) || jwt_add_grant(jwt, "sun", user) ||
	    jwt_set_alg(jwt, JWT_ALG_HS256, key->data, key->len)) {
		errprintf(err, "cannot build a token: %s", strerror(errno));
		goto out;
	}
	token = jwt_encode_str(jwt);
	if (!token) {
		errprintf(err, "cannot sign the token: %s", strerror(errno));
		goto out;
	}
	out = xstrdup(token);
	free(token);
out:
	jwt_free(jwt);
	return out;
}

int token_verify(const struct token_key *key, const char *token, time_t now, char *user,
		 size_t userlen, time_t *exp_out, struct herd_error *err)
{
	jwt_t *jwt = NULL;
	const char *sun;
	long exp;
	int rc = -1;

	if (!token || !*token)
		return errprintf(err, "missing X-SLURM-USER-TOKEN");
	if (strlen(token) > TOKEN_MAX_LEN)
		return errprintf(err, "invalid token: longer than %d bytes", TOKEN_MAX_LEN);
	if (!key->data || jwt_decode(&jwt, token, key->data, key->len) || !jwt)
		return errprintf(err, "invalid token: bad signature or format");
	/* Only what Slurm signs with; "none" or another HMAC must not pass. */
	if (jwt_get_alg(jwt) != JWT_ALG_HS256) {
		errprintf(err, "invalid token: algorithm %s is not HS256", jwt_alg_str(jwt_get_alg(jwt)));
		goto out;
	}
	errno = 0;
	exp = jwt_get_grant_int(jwt, "exp");
	if (errno) {
		errprintf(err, "invalid token: no \"exp\" claim");
		goto out;
	}
	if (exp <= now) {
		errprintf(err, "token expired");
		goto out;
	}
	sun = jwt_get_grant(jwt, "sun");
	if (!sun || !*sun) {
		errprintf(err, "invalid token: no \"sun\" claim");
		goto out;
	}
	if (strlen(sun) >= userlen) {
		errprintf(err, "invalid token: user name too long");
		goto out;
	}
	strcpy(user, sun);
	if (exp_out)
		*exp_out = exp;
	rc = 0;
out:
	jwt_free(jwt);
	return rc;
}
