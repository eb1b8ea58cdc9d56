/* Job-array task specs (bitmap_parse, parse_array_spec): sbatch --array,
 * scancel/scontrol JOB_[spec].  The first 4 input bytes choose the limit
 * (MaxArraySize); the rest is the spec.  What bitmap_fmt prints must parse
 * back to the same set. */
#include <stdlib.h>
#include "common/bitmap.h"
#include "common/parse.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	/* Slurm's default 1001, up to the hard 4,000,001 the controller uses. */
	uint32_t max = ((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]) %
		       4000002u;
	char *spec = fuzz_str(data + 4, size - 4);
	struct bitmap *b = bitmap_parse(spec, max);
	if (b) {
		uint32_t count = bitmap_count(b), last = bitmap_last(b);
		if (!count || last == BITMAP_NONE || last >= max)
			abort();
		char *fmt = bitmap_fmt(b), *ranges = bitmap_fmt_ranges(b);
		struct bitmap *again = bitmap_parse(fmt, max), *again2 = bitmap_parse(ranges, max);
		if (!again || !again2 || bitmap_count(again) != count ||
		    bitmap_count_common(again, b) != count || bitmap_count(again2) != count)
			abort();
		bitmap_destroy(again);
		bitmap_destroy(again2);
		free(fmt);
		free(ranges);
		bitmap_destroy(b);
	}
	struct bitmap *tasks;
	uint32_t throttle;
	if (parse_array_spec(spec, max, &tasks, &throttle) == 0)
		bitmap_destroy(tasks);
	else if (tasks)
		abort();
	free(spec);
	return 0;
}
