/* The MUNGE-bound credential check (auth.c), with a fake verifier standing
 * for munged: the input chooses what the "decoded credential" says (uid,
 * gid, payload, or a refusal) and the frame it is checked against (type,
 * destination, body).  Besides crashes, the target aborts if the check
 * accepts a payload that is not the frame's digest, or loses the uid.
 * Input: u16 type, u8 flags, then "cred\0dest\0body".  Cred is
 * "uid:gid:payload" ("E..." = the verifier refuses). */
#include <stdlib.h>
#include <string.h>
#include "common/auth.h"
#include "fuzz.h"
#include "fuzz_digest.h"

static int fake_verify(void *arg, const char *cred, void **payload, int *plen,
		       struct auth_id *id, struct herd_error *err)
{
	char *end;
	if (cred[0] == 'E')
		return errprintf(err, "invalid credential: %s", cred);
	unsigned long u = strtoul(cred, &end, 10);
	if (*end != ':')
		return errprintf(err, "invalid credential");
	unsigned long g = strtoul(end + 1, &end, 10);
	if (*end != ':')
		return errprintf(err, "invalid credential");
	id->uid = (uid_t)u;
	id->gid = (gid_t)g;
	size_t n = strlen(end + 1);
	*payload = malloc(n + 1);
	memcpy(*payload, end + 1, n + 1);
	*plen = (int)n;
	/* munged may hand back a payload with an error (an expired one). */
	if (*(uint8_t *)arg & 1)
		return errprintf(err, "credential expired");
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	uint16_t type = (uint16_t)(data[0] << 8 | data[1]);
	uint8_t flags = data[2];
	const char *p = (const char *)data + 3, *end = (const char *)data + size;
	const char *nul = memchr(p, 0, end - p);
	if (!nul)
		return 0;
	char *cred = strndup(p, nul - p);
	p = nul + 1;
	nul = memchr(p, 0, end - p);
	char *dest = nul ? strndup(p, nul - p) : strdup("cluster:ctld");
	p = nul ? nul + 1 : p;
	size_t blen = end - p;
	char *body = malloc(blen + 1);
	memcpy(body, p, blen);

	struct herd_error err = { "" };
	struct auth_id who = { .uid = (uid_t)-2, .gid = (gid_t)-2 };
	int rc = auth_decode_with(fake_verify, &flags, cred, type, dest, body, blen, &who, &err);
	if (rc == 0) {
		char digest[65];
		fuzz_digest(type, dest, body, blen, digest);
		const char *payload = strchr(strchr(cred, ':') + 1, ':') + 1;
		if (strcmp(payload, digest) || (flags & 1) ||
		    who.uid != (uid_t)strtoul(cred, NULL, 10))
			abort();   /* accepted a credential that does not bind this frame */
	} else if (!err.text[0])
		abort();   /* a refusal must say why */
	free(cred);
	free(dest);
	free(body);
	return 0;
}
