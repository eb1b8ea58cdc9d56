/* JSON Web Tokens as Slurm's auth/jwt makes and checks them: HS256 signed
 * with the bytes of one key file (AuthAltParameters=jwt_key=PATH), claims
 * "iat", "exp" and "sun" (the user name).  token.c holds the libjwt edge
 * (a program that calls it links -ljwt); auth_alt.c the pure parsing of
 * AuthAltParameters.  Not for RS256/JWKS keys. */
#ifndef HERD_TOKEN_H
#define HERD_TOKEN_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include "common/error.h"

/* Tokens longer than this are refused unread (Slurm's are ~200 bytes). */
#define TOKEN_MAX_LEN 8192
#define TOKEN_USER_MAX 256

struct token_key {
	unsigned char *data;
	size_t len;
};

/* Read the whole key file.  Refused: not a regular file, empty, too large,
 * owned by anyone but root or owner, or with any permission for "other"
 * (whoever reads the key mints tokens for every user; Slurm refuses such a
 * key too).  -1 with err. */
int token_key_load(const char *path, uid_t owner, struct token_key *key, struct herd_error *err);
void token_key_clear(struct token_key *key);

/* A token for user, valid lifespan seconds from now.  Caller frees; NULL
 * with err. */
char *token_mint(const struct token_key *key, const char *user, long lifespan, time_t now,
		 struct herd_error *err);

/* Check the signature (HS256 only), "exp" (required, > now) and "sun"
 * (required, into user); *exp gets the expiry when exp is not NULL.  -1 with
 * a sentence fit for a 401 answer. */
int token_verify(const struct token_key *key, const char *token, time_t now, char *user,
		 size_t userlen, time_t *exp, struct herd_error *err);

/* ---- auth_alt.c: AuthAltTypes / AuthAltParameters ----------------------- */

/* AuthAltTypes names auth/jwt (a comma-separated list, as Slurm's). */
bool auth_alt_jwt(const char *auth_alt_types);
/* The value of option name in AuthAltParameters ("jwt_key=/k,disable_token_creation"):
 * a new string; "" for an option without '='; NULL when absent. */
char *auth_alt_param(const char *params, const char *name);

#endif
