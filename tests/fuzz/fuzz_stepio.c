/* Step I/O frames (stepio.c) as srun reads herdstepd's and herdstepd
 * reads srun's: the input is fed in pieces whose sizes the input's first
 * byte chooses, and every message is taken out. */
#include <stdlib.h>
#include "common/stepio.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t piece = data[0] ? data[0] : 4096;
	struct stepio_decoder d = { 0 };
	struct stepio_msg m;
	size_t off = 1;
	int rc = 0;

	while (off < size && rc >= 0) {
		size_t n = size - off < piece ? size - off : piece;
		stepio_feed(&d, data + off, n);
		off += n;
		while ((rc = stepio_next(&d, &m)) == 1) {
			if (m.len > STEPIO_MAX_PAYLOAD || m.type < STEPIO_HELLO ||
			    m.type > STEPIO_WINSIZE)
				abort();
			/* Touch the payload: it must lie inside what was fed. */
			volatile char sum = 0;
			for (uint32_t i = 0; i < m.len; i++)
				sum ^= m.data[i];
			(void)sum;
		}
	}
	stepio_decoder_free(&d);
	return 0;
}
