/* The frame digest auth.c binds a credential to (doc/protocol.md,
 * "Credentials"), computed independently here so that the fuzz targets can
 * hand the check a payload that matches, and catch it accepting one that
 * does not. */
#ifndef HERD_FUZZ_DIGEST_H
#define HERD_FUZZ_DIGEST_H
#include <arpa/inet.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

static inline void fuzz_digest(uint16_t type, const char *dest, const char *body, size_t len,
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

#endif
