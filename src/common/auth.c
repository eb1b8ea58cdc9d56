/* MUNGE credentials whose payload binds them to one frame: type, destination
 * and body.  See doc/protocol.md "Credentials". */
#include <arpa/inet.h>
#include <munge.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/auth.h"
#include "common/xmalloc.h"

char *auth_dest_ctld(const char *cluster)
{
	return xasprintf("%s:ctld", cluster);
}

char *auth_dest_node(const char *cluster, const char *node)
{
	return xasprintf("%s:%s", cluster, node);
}

/* Hex SHA-256 of type ‖ dest ‖ NUL ‖ body, into out[65].  Nettle, not
 * OpenSSL: every command computes one, and OpenSSL's start-up alone costs more
 * than the rest of a submission. */
static void frame_digest(uint16_t type, const char *dest, const char *body, size_t len,
			 char out[65])
{
	struct sha256_ctx ctx;
	uint8_t md[SHA256_DIGEST_SIZE];
	uint16_t t = htons(type);

	sha256_init(&ctx);
	sha256_update(&ctx, sizeof(t), (const uint8_t *)&t);
	sha256_update(&ctx, strlen(dest) + 1, (const uint8_t *)dest);
	sha256_update(&ctx, len, (const uint8_t *)body);
	sha256_digest(&ctx, sizeof(md), md);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = '\0';
}

static munge_ctx_t auth_ctx(const char *socket, struct herd_error *err)
{
	munge_ctx_t ctx = munge_ctx_create();
	if (!ctx) {
		errprintf(err, "cannot create a MUNGE context");
		return NULL;
	}
	if (socket && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		errprintf(err, "MUNGE socket %s: %s", socket, munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

char *auth_encode(const char *socket, uint16_t type, const char *dest, const char *body,
		  size_t len, struct herd_error *err)
{
	char digest[65], *cred = NULL;
	munge_ctx_t ctx = auth_ctx(socket, err);
	munge_err_t e;

	if (!ctx)
		return NULL;
	frame_digest(type, dest, body, len, digest);
	e = munge_encode(&cred, ctx, digest, sizeof(digest) - 1);
	if (e != EMUNGE_SUCCESS) {
		errprintf(err, "MUNGE encode failed: %s", munge_ctx_strerror(ctx));
		cred = NULL;
	}
	munge_ctx_destroy(ctx);
	return cred;
}

/* The real verifier: munged decodes the credential (and refuses expired and
 * replayed ones). */
static int munge_verify(void *arg, const char *cred, void **payload, int *plen,
			struct auth_id *id, struct herd_error *err)
{
	munge_ctx_t ctx = auth_ctx(arg, err);
	munge_err_t e;

	if (!ctx)
		return -1;
	e = munge_decode(cred, ctx, payload, plen, &id->uid, &id->gid);
	if (e != EMUNGE_SUCCESS) {
		switch (e) {
		case EMUNGE_CRED_REPLAYED: errprintf(err, "credential replayed"); break;
		case EMUNGE_CRED_EXPIRED: errprintf(err, "credential expired"); break;
		case EMUNGE_CRED_REWOUND: errprintf(err, "credential from the future (clock skew)"); break;
		default: errprintf(err, "invalid credential: %s", munge_ctx_strerror(ctx)); break;
		}
		free(*payload);
		*payload = NULL;
		munge_ctx_destroy(ctx);
		return -1;
	}
	if (munge_ctx_get(ctx, MUNGE_OPT_ADDR4, &id->addr) != EMUNGE_SUCCESS)
		id->addr.s_addr = htonl(INADDR_ANY);
	munge_ctx_destroy(ctx);
	return 0;
}

int auth_cred_decode_with(auth_verify_f verify, void *arg, const char *cred,
			  struct auth_id *id, char digest[65], struct herd_error *err)
{
	void *payload = NULL;
	int plen = 0, rc = -1;

	id->addr.s_addr = htonl(INADDR_ANY);
	if (verify(arg, cred, &payload, &plen, id, err) < 0)
		goto out;
	if (!payload || plen != 64) {
		errprintf(err, "credential does not match its frame");
		goto out;
	}
	memcpy(digest, payload, 64);
	digest[64] = '\0';
	rc = 0;
out:
	free(payload);
	return rc;
}

int auth_cred_decode(const char *socket, const char *cred, struct auth_id *id, char digest[65],
		     struct herd_error *err)
{
	return auth_cred_decode_with(munge_verify, (void *)socket, cred, id, digest, err);
}

int auth_cred_match(const char digest[65], uint16_t type, const char *dest, const char *body,
		    size_t len, struct herd_error *err)
{
	char want[65];

	frame_digest(type, dest, body, len, want);
	if (memcmp(digest, want, 64) != 0)
		return errprintf(err, "credential does not match its frame");
	return 0;
}

int auth_decode_with(auth_verify_f verify, void *arg, const char *cred, uint16_t type,
		     const char *dest, const char *body, size_t len, struct auth_id *id,
		     struct herd_error *err)
{
	char digest[65];

	if (auth_cred_decode_with(verify, arg, cred, id, digest, err) < 0)
		return -1;
	return auth_cred_match(digest, type, dest, body, len, err);
}

int auth_decode(const char *socket, const char *cred, uint16_t type, const char *dest,
		const char *body, size_t len, struct auth_id *id, struct herd_error *err)
{
	return auth_decode_with(munge_verify, (void *)socket, cred, type, dest, body, len, id, err);
}
