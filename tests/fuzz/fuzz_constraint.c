/* Constraint expressions (sched/feature.c): sbatch -C, matched against
 * node features.  The input is "expr\0features" (features default to a
 * fixed list). */
#include <stdlib.h>
#include <string.h>
#include "sched/feature.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_str(data, size);
	const char *nul = memchr(data, 0, size);
	const char *features = nul ? expr + (nul - (const char *)data) + 1 : "big,fast,gpu,ib";
	/* fuzz_str stops the string at the NUL; the features follow it. */
	char *feat = nul ? fuzz_str((const uint8_t *)nul + 1, size - (nul - (const char *)data) - 1)
			 : strdup(features);
	feature_match(expr, feat);
	feature_check(expr, feat);
	char **alts;
	int n = feature_matching_or(expr, &alts);
	for (int i = 0; i < n; i++)
		free(alts[i]);
	free(alts);
	free(feat);
	free(expr);
	return 0;
}
