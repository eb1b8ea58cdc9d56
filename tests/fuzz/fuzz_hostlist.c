/* Hostlist expressions (hostlist.c) as users give them: sbatch -w/-x,
 * scontrol show hostnames, squeue -w, reservations, NodeName= lines.
 * Expand, look up, compress, and expand the compressed form again: it must
 * parse and name the same set of hosts.  Expanded as the controller does,
 * bounded by a node count (65,536 here, a large machine's): a list of a
 * million names is refused unexpanded there, and costs seconds per input
 * here (the two known-timeout-* corpus entries). */
#include <stdlib.h>
#include "common/hostlist.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_str(data, size);
	struct hostlist *hl = hostlist_create_max(expr, 65536);
	if (hl) {
		size_t n = hostlist_count(hl);
		if (n) {
			const char *last = hostlist_nth(hl, n - 1);
			if (!last || hostlist_find(hl, last) < 0)
				abort();
		}
		if (hostlist_nth(hl, n))
			abort();
		hostlist_overlaps(expr, hl);
		char *ranged = hostlist_ranged_string(hl);
		struct hostlist *again = hostlist_create_max(ranged, 65536);
		if (!again)
			abort();   /* our own output must parse */
		hostlist_uniq(hl);
		hostlist_uniq(again);
		if (hostlist_count(again) != hostlist_count(hl))
			abort();
		hostlist_destroy(again);
		free(ranged);
		hostlist_destroy(hl);
	}
	/* The same text appended to a list that has names already. */
	struct hostlist *two = hostlist_create("n[1-3]");
	hostlist_push(two, expr);
	hostlist_destroy(two);
	free(expr);
	return 0;
}
