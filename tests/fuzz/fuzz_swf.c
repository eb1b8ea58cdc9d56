/* Standard Workload Format traces (herd/sim_swf.c) as `herd sim` reads
 * them: the input is written to a file and loaded (plain or gzip), and the
 * replay rules are applied to every job. */
#include <stdlib.h>
#include "herd/sim.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("trace.swf", data, size);
	struct swf_trace trace;
	struct herd_error err;
	if (swf_load(path, 0, &trace, &err) == 0) {
		for (size_t i = 0; i < trace.njobs; i++) {
			swf_job_size(&trace.jobs[i]);
			swf_job_estimate(&trace.jobs[i]);
			swf_job_runtime(&trace.jobs[i]);
		}
		swf_trace_free(&trace);
	}
	return 0;
}
