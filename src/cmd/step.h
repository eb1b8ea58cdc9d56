/* Job steps as the user commands name and show them (squeue -s, scontrol
 * show step, sacct, scancel N.S): step IDs on the command line and in
 * output, and squeue's step cells, from a STEP object (doc/protocol.md).
 * Pure: no I/O, no clock; the commands do the asking. */
#ifndef HERD_CMD_STEP_H
#define HERD_CMD_STEP_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "cmd/fmt.h"

#define CMD_STEP_BATCH 4294967291LL    /* Slurm's SLURM_BATCH_SCRIPT */
#define CMD_STEP_EXTERN 4294967292LL   /* SLURM_EXTERN_CONT */
#define CMD_STEP_NONE (-1LL)

/* A step (or a job) named on the command line. */
struct cmd_step_ref {
	long id;             /* the job's ID; with task >= 0 the array's */
	long long task;      /* array task ID, -1 = none */
	long long step;      /* step ID (CMD_STEP_BATCH ...), CMD_STEP_NONE = "N" alone */
};

/* "N.S", "N.batch", "N.extern", "A_T.S"; with bare also "N" and "A_T"
 * (step CMD_STEP_NONE).  -1 when malformed (a step that is no number,
 * batch or extern; an array range such as "A_[1-3].0"). */
int cmd_step_ref_parse(const char *s, bool bare, struct cmd_step_ref *ref);

/* "7", "batch", "extern". */
const char *cmd_step_name(long long step, char *buf, size_t len);

/* The step's ID as Slurm prints it: "N.S", "N.batch", an array task's
 * "A_T.S".  Returns buf. */
char *cmd_step_id(const json_t *step, char *buf, size_t len);

/* Does ref name this step: its job (or its array task) and, when ref
 * names one, its step? */
bool cmd_step_ref_matches(const struct cmd_step_ref *ref, const json_t *step);

/* Slurm's order of a job's steps where scontrol and sacct list them:
 * batch, extern, then 0, 1, ... */
long long cmd_step_rank(long long step);

/* scontrol's and sacct's name for the step's distribution: Block, Cyclic,
 * Plane.  One task per node is laid out the same either way, and srun's
 * default for it is cyclic: Slurm shows Cyclic. */
const char *cmd_step_dist(const json_t *step);

/* A job's DerivedExitCode, as a raw wait status: the highest exit of its
 * steps (an exit code above a signal).  As Slurm's, the steps that the
 * job's own end killed (its cancel, time limit or failed node) do not
 * count; one cancelled by scancel N.S (it has "requid") does. */
int cmd_step_derived_status(const json_t *steps, const char *job_state, long long job_end);

/* ---- squeue -s ---- */

/* The -o letters valid for steps (squeue(1): "Valid for job steps"), and
 * the -O names, some of which stand for letters of their own. */
extern const char cmd_step_letters[];
extern const struct fmt_title cmd_step_titles[];
extern const struct fmt_name cmd_step_fields[];
#define CMD_STEP_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"
#define CMD_STEP_SORT "P,i"

struct cmd_step_row {
	const json_t *step;
	time_t now;
	const char *cluster;
};

/* A cell of a step row (a fmt_value_f: row is a struct cmd_step_row). */
const char *cmd_step_value(char letter, const void *row, char *buf, size_t len);

/* Compare two steps by one -S letter (ascending); 0 for a letter that is
 * no sort key.  "i" is the job ID, then the step ID (batch after 0, 1 ...). */
int cmd_step_compare(char letter, const json_t *a, const json_t *b, time_t now);

/* -S for steps ("P,i", "-M"): NULL with *bad (the entry, caller frees)
 * when a key is no step letter. */
struct cmd_step_sort {
	char letter;
	bool descending;
};
struct cmd_step_sort *cmd_step_sort_parse(const char *spec, size_t *count, char **bad);
/* In -S order, then by step ID. */
void cmd_step_sort(const json_t **steps, size_t n, const struct cmd_step_sort *keys,
		   size_t nkeys, time_t now);

/* --steps=LIST ("5.0,6_1.batch") appended to *refs; -1 with *bad (the
 * entry, caller frees) when one names no step. */
int cmd_step_list_parse(const char *list, struct cmd_step_ref **refs, size_t *count, char **bad);

/* What squeue -s shows: steps that run, and pass each filter given. */
struct hostlist;
struct cmd_step_filter {
	const struct cmd_step_ref *steps;   /* --steps; 0 = any */
	size_t nsteps;
	const struct cmd_step_ref *jobs;    /* -j (steps CMD_STEP_NONE); 0 = any */
	size_t njobs;
	char *const *uids;                  /* -u: uids as text, with uids_given */
	bool uids_given;
	char *const *partitions, *const *names;   /* -p, -n; NULL = any */
	const struct hostlist *nodes;       /* -w: a step on any of them */
};
bool cmd_step_filter_match(const struct cmd_step_filter *f, const json_t *step);

#endif
