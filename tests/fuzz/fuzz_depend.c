/* Job dependency specs (core/depend.c): sbatch -d, scontrol update
 * Dependency=.  Parsed, rendered as squeue shows it, and carried through
 * the JSON the controller stores; what is stored must load back the same.
 * The job table and the store are not part of this: the stubs below say
 * no job is known (decisions are not fuzzed, only the text). */
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "fuzz.h"

struct job *job_find(uint32_t id) { return NULL; }
void job_foreach(void (*fn)(struct job *job, void *arg), void *arg) { }
bool array_is_meta(const struct job *job) { return false; }
int array_target_state(uint32_t array_job_id, uint32_t task, enum job_state *state,
		       time_t *start_time) { return -1; }
bool store_job_known(uint32_t job_id) { return false; }
int store_job_final(uint32_t job_id, enum job_state *state, time_t *start_time) { return -1; }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_str(data, size);
	struct depend *d;
	struct herd_error err;
	if (depend_parse(spec, &d, &err) == 0 && d) {
		char *shown = depend_render(d);
		json_t *j = depend_to_json(d);
		struct depend *back = depend_from_json(j), *copy = depend_copy(d);
		char *shown2 = back ? depend_render(back) : NULL;
		if (!shown2 || strcmp(shown, shown2))
			abort();   /* a stored dependency must load back as it was */
		free(shown);
		free(shown2);
		json_decref(j);
		depend_destroy(back);
		depend_destroy(copy);
		depend_destroy(d);
	}
	free(spec);
	return 0;
}
