/* The job field table (job_fields.h) as data, and its look-up by key. */
#include <string.h>
#include "common/job_fields.h"

#define JOB_FIELD_ROW(k, type, flags, letter, long_name, title, scontrol, sacct, rest) \
	[JOB_F_##k] = { #k, JOB_FIELD_##type, flags, letter, long_name, title, scontrol, sacct, rest },
const struct job_field job_fields[JOB_F_COUNT] = {
	JOB_KEYS(JOB_FIELD_ROW)
	JOB_DERIVED(JOB_FIELD_ROW)
};
#undef JOB_FIELD_ROW

const struct job_field *job_field_find(const char *key)
{
	for (size_t i = 0; key && i < JOB_F_COUNT; i++)
		if (job_fields[i].key && !strcmp(job_fields[i].key, key))
			return &job_fields[i];
	return NULL;
}
