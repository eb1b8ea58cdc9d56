/* JWTs in X-SLURM-USER-TOKEN (common/token.c), checked with a key as
 * the controller does.  A token it accepts must name a user. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/token.h"
#include "fuzz.h"

static unsigned char key_bytes[] = "fuzz-jwt-key-0123456789abcdef0123456789abcdef";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct token_key key = { key_bytes, sizeof(key_bytes) - 1 };
	char *token = fuzz_str(data, size), user[256];
	struct herd_error err;
	if (token_verify(&key, token, time(NULL), user, sizeof(user), NULL, &err) == 0 &&
	    !user[0])
		abort();
	free(token);
	return 0;
}
