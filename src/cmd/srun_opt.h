/* srun's and salloc's pure pieces: reading their options by the job-option
 * table (cmd/jobopt.h; command line over SLURM_* / SRUN_* / SALLOC_* input
 * variables; srun_opt.c), the
 * checks of --distribution, --cpu-bind, --mpi, --input and --multi-prog, and
 * what the I/O side prints: task lists, labels, exit status sentences and the
 * exit code (srun_check.c).  No I/O but reading a --multi-prog file. */
#ifndef HERD_CMD_SRUN_OPT_H
#define HERD_CMD_SRUN_OPT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "cmd/jobopt.h"
#include "common/error.h"

#define SRUN_STDIN_ALL (-1)
#define SRUN_STDIN_NONE (-2)

/* The task srun's stdin goes to: --input's, else every task (srun(1): "By
 * default, srun redirects stdin from the terminal to all tasks"; seen on
 * Slurm 22.05), task 0 alone under --pty. */
static inline int srun_stdin_task(const struct jobopt *o)
{
	return (int)jobopt_int(o, "stdin_task", jobopt_flag(o, "pty") ? 0 : SRUN_STDIN_ALL);
}

enum srun_parse { SRUN_PARSE_OK = 0, SRUN_PARSE_INFO = 1, SRUN_PARSE_ERROR = -1 };

/* srun's or salloc's options (cmd: JOBOPT_SRUN or JOBOPT_SALLOC) into o
 * (jobopt.h; o is initialised here, free it with jobopt_free): the input
 * variables read by getenv_f (NULL: getenv), then argv (argv[0] the
 * program); srun's job ID from SLURM_JOB_ID when inside an allocation.
 * SRUN_PARSE_INFO when --help, --usage, --version, --mpi=list or --hint=help
 * answered the run (printed to out); SRUN_PARSE_ERROR with err holding the
 * sentence (jobopt_report prints it) or, when getopt already said why, err
 * empty.  What follows the options: o->argv, o->argc. */
int srun_opts_parse(struct jobopt *o, enum jobopt_cmd cmd, int argc, char **argv,
		    jobopt_getenv_f getenv_f, FILE *out, struct herd_error *err);

/* --het-group: "2", "0,4", "1,3-5" into out (at most max, each group once,
 * each below HET_MAX_GROUPS); the count, or -1 when malformed. */
#define HET_MAX_GROUPS 128
int srun_het_groups(const char *s, long *out, int max);

/* -m/--distribution: Slurm's forms (block, cyclic, plane=N, arbitrary,
 * "*", with :socket[:core] parts and ,Pack/NoPack); the node part Herd
 * lays out by into out ("" = the default).  -1 when malformed. */
int srun_dist_parse(const char *s, char *out, size_t len, struct herd_error *err);
/* --cpu-bind: 0 when every word is one Slurm knows. */
int srun_cpu_bind_check(const char *s, struct herd_error *err);
/* --mpi: none, pmi2, pmix (pmix_v*), or -1 with Slurm's sentence. */
int srun_mpi_check(const char *s, struct herd_error *err);
void srun_mpi_list(FILE *out, const char *prog);
/* -i: "all", "none", a task number, or a file pattern (then *pattern). */
int srun_input_parse(const char *s, int *stdin_task, const char **pattern);

/* A --multi-prog file: checked (every task of 0..ntasks-1 named once,
 * ranges well formed, a command on every line); returns its lines (caller
 * frees with opt_strv_free) and, when *ntasks is 0, sets it to the count the
 * file names.  NULL with err. */
char **srun_multi_prog_read(const char *path, long *ntasks, struct herd_error *err);
char **srun_multi_prog_check(const char *path, const char *text, long *ntasks,
			     struct herd_error *err);

/* Task IDs folded as Slurm prints them: "0-3,7". ids sorted or not. */
char *srun_task_list(const int *ids, size_t n, char *buf, size_t len);
/* "task 3" / "tasks 0-1,4". */
char *srun_task_phrase(const int *ids, size_t n, char *buf, size_t len);
/* Width of the -l label for ntasks tasks (digits of ntasks-1). */
int srun_label_width(long ntasks);
/* "  3: " style label into buf. */
char *srun_label(int task, int width, char *buf, size_t len);
/* The sentence for a task's raw wait status: "Exited with exit code 2",
 * "Killed", "Segmentation fault (core dumped)", "Out Of Memory"; NULL for
 * a clean exit (status 0). */
const char *srun_status_text(int status, bool oom, char *buf, size_t len);
/* The exit code a task's status gives srun: its exit code, 128+signal. */
int srun_status_code(int status);

/* Counts folded as Slurm writes them: {2,2,2,1} -> "2(x3),1". */
char *srun_fold_counts(const int *v, size_t n, char *buf, size_t len);
/* The tasks on each node of an allocation (salloc's SLURM_TASKS_PER_NODE),
 * as the controller lays out a batch job's: with -N the tasks spread evenly
 * (the first nodes get the remainder), else they fill each node's CPUs in
 * order.  ntasks 0: one per asked node, else 1.  out has n entries. */
void srun_tasks_per_node(const int *cpus, size_t n, long ntasks, long req_nodes, long cpt,
			 int *out);

#endif
