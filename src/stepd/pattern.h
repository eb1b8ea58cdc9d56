/* Slurm's file name patterns for a batch job's stdin/stdout/stderr
 * ("slurm-%j.out", "%x-%5j.log", ...).  Pure: no I/O, no clock. */
#ifndef HERD_STEPD_PATTERN_H
#define HERD_STEPD_PATTERN_H
#include <stdbool.h>
#include <stdint.h>

/* Slurm's NO_VAL-style value printed for %a of a job that is not an array
 * element (and for %A's array part), as Slurm does. */
#define PATTERN_NO_ARRAY 4294967294u

struct pattern_ctx {
	uint32_t job_id;
	uint32_t array_job_id;     /* 0 = not an array job: %A is the job id */
	uint32_t array_task_id;    /* PATTERN_NO_ARRAY = not an array element */
	const char *job_name;      /* %x */
	const char *user;          /* %u */
	const char *node;          /* %N: this node (the batch host) */
	uint32_t node_id;          /* %n: index of this node in the job (step), 0 for the batch host */
	/* A job step's task (srun -o/-e/-i); all zero = the batch step. */
	bool is_step;
	uint32_t step_id;          /* %s, and %J = job_id.step_id */
	uint32_t task_id;          /* %t: the task's global ID */
};

/* Expand pattern (caller frees the result):
 *   %j job id, %J job id (jobid.stepid; the batch step prints the job id alone),
 *   %A array master id, %a array task id, %x job name, %u user, %N node name,
 *   %n node index, %t task id (0 for the batch step), %s step ("batch" for
 *   the batch step), %% a literal '%'.
 * A width between '%' and the letter zero-pads numbers ("%5j" -> "00042"),
 * at most 10 digits, and is ignored for names, as Slurm documents.  An unknown
 * letter is kept as written.  A pattern containing '\' is not expanded at all;
 * the backslashes are removed (Slurm's "\\" escape). */
char *pattern_expand(const char *pattern, const struct pattern_ctx *ctx);

/* dir + "/" + path when path is relative; a copy of path otherwise. */
char *pattern_join(const char *dir, const char *path);

#endif
