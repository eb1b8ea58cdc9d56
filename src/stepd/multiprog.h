/* srun --multi-prog: the configuration file's lines (srun(1) "MULTIPLE
 * PROGRAM CONFIGURATION") and the argv each task gets from them.  Pure. */
#ifndef HERD_STEPD_MULTIPROG_H
#define HERD_STEPD_MULTIPROG_H
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

/* The argv (NULL-terminated, caller frees with multiprog_free_argv) of the
 * task with global ID task among ntasks, from the first line whose task list
 * names it: "0-3,5", "*"; %t becomes the task ID and %o its offset within
 * the line's list; '#' starts a comment; single and double quotes group
 * words.  NULL with err when no line names the task or a line is malformed. */
char **multiprog_argv(char *const *lines, size_t nlines, uint32_t task, uint32_t ntasks,
		      struct herd_error *err);
void multiprog_free_argv(char **argv);

#endif
