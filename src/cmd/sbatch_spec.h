/* The SUBMIT_JOB job object (doc/protocol.md) from sbatch's options: what
 * sbatch sends, and what `herd sim --jobs` submits for a scenario line, so
 * that the two cannot differ. */
#ifndef HERD_CMD_SBATCH_SPEC_H
#define HERD_CMD_SBATCH_SPEC_H
#include <jansson.h>
#include <sys/types.h>
#include "cmd/sbatch_opt.h"

/* What the job object takes from outside the options. */
struct sbatch_spec_ctx {
	const char *script;          /* the batch script's text */
	char *const *args;           /* the script's arguments (NULL: none) */
	char *const *env;            /* the job's environment (NULL: none) */
	const char *cwd;             /* the working directory, absolute (--chdir applied) */
	const char *name;            /* the name when -J is not given */
	const char *command;         /* Command= (the script's path); NULL: none */
	const char *host;            /* submit host */
	mode_t umask;
};

/* The job object of o (after sbatch_opts_finish) and c; NULL when the
 * script or an option is not valid UTF-8 (JSON holds nothing else). */
json_t *sbatch_spec_job(const struct sbatch_opts *o, const struct sbatch_spec_ctx *c);
#endif
