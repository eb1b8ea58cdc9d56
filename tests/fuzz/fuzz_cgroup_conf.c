/* cgroup.conf (stepd/cgroup.c) as herdstepd loads it beside herd.conf. */
#include <stdlib.h>
#include "stepd/cgroup.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write("cgroup.conf", data, size);
	struct cgroup_conf cc;
	struct herd_error err;
	if (cgroup_conf_load(fuzz_dir(), &cc, &err) == 0)
		cgroup_conf_free(&cc);
	return 0;
}
