/* The LAUNCH object (stepd/launch.c) as herdstepd reads it from its spool
 * directory, then what it builds from it for GRES (doc/gres.md section 3):
 * each task's environment with and without ConstrainDevices, and its
 * device files.  A hostile or damaged LAUNCH is refused, never a crash. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include "stepd/env.h"
#include "stepd/gpu_env.h"
#include "stepd/launch.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *obj = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct launch l;
	struct herd_error err;
	if (!obj)
		return 0;
	if (launch_parse(obj, &l, &err) == 0) {
		struct env_node node = { "n1", NULL, NULL, NULL, false };
		for (int constrained = 0; constrained < 2; constrained++) {
			node.constrain_devices = constrained;
			struct env e;
			env_init(&e);
			if (!l.step) {
				env_batch(&e, &l, &node);
				env_free(&e);
				continue;
			}
			env_free(&e);
			cpu_set_t cpus;
			CPU_ZERO(&cpus);
			CPU_SET(1, &cpus);
			for (size_t i = 0; i < l.step->ntasks && i < 8; i++) {
				char verbose[512], warn[256];
				struct env_task t = { .local = (int)i, .task_id = l.step->task_ids[i],
						      .cpus = i % 2 ? &cpus : NULL,
						      .gpu_verbose = verbose, .gpu_warning = warn };
				env_init(&e);
				env_step(&e, &l, &node, &t);
				env_free(&e);
				size_t n;
				char **files = gpu_task_dev_files(&l, constrained, (int)i, t.cpus, &n);
				gpu_dev_files_free(files, n);
			}
		}
		size_t n;
		char **files = gpu_dev_files(l.gres, l.ngres, &n);
		gpu_dev_files_free(files, n);
		launch_free(&l);
	}
	json_decref(obj);
	return 0;
}
