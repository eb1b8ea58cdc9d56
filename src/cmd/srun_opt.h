/* srun's and salloc's pure pieces: the option set and its parser (command
 * line over SLURM_* / SRUN_* / SALLOC_* input variables; srun_opt.c), the
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
#include "common/error.h"

enum srun_cmd { SRUN_CMD_SRUN, SRUN_CMD_SALLOC };

#define SRUN_STDIN_ALL (-1)
#define SRUN_STDIN_NONE (-2)

struct srun_opts {
	enum srun_cmd cmd;
	char *job_name, *partition, *account, *qos, *constraint, *nodelist, *exclude;
	char *reservation;           /* --reservation */
	char *container;             /* --container: OCI bundle path */
	char *mail_type, *mail_user; /* --mail-type (checked), --mail-user */
	char *output, *error, *input;    /* -o/-e/-i patterns for herdstepd ("" / NULL = stream) */
	char *chdir, *export_spec, *cpu_bind, *distribution, *mpi, *comment;
	long nodes, ntasks, cpus_per_task, ntasks_per_node;   /* 0 = not given */
	long jobid;                 /* --jobid / SLURM_JOB_ID: 0 = none */
	uint64_t mem_mb, mem_per_cpu;
	int64_t time_limit;         /* TIME_NOT_GIVEN, TIME_INFINITE or seconds */
	time_t begin;
	bool label, unbuffered, pty, overlap, exact, exclusive, quiet, multi_prog, hold;
	bool no_shell, disable_status;
	int kill_on_bad_exit;       /* 0 or 1 */
	int max_wait;               /* -W seconds, 0 = none */
	int immediate;              /* -I: -1 not given, else seconds (0 = at once) */
	int kill_command;           /* salloc --kill-command: the signal, 0 = the default */
	int signal, signal_time;    /* --signal: 0 = none */
	char signal_flag;
	int stdin_task;             /* 0.., SRUN_STDIN_ALL, SRUN_STDIN_NONE */
	int verbose;
	char **argv;                /* the command (borrowed from main's argv) */
	int argc;
};

enum srun_parse { SRUN_PARSE_OK = 0, SRUN_PARSE_INFO = 1, SRUN_PARSE_ERROR = -1 };

/* Parse argv (argv[0] is the program) after the input variables read by
 * getenv_f (NULL: getenv).  SRUN_PARSE_INFO when --help, --usage, --version
 * or --mpi=list answered the run (printed to out); SRUN_PARSE_ERROR with err
 * holding the sentence (printed "srun: error: ...") or, when getopt already
 * said why, err empty. */
typedef const char *(*srun_getenv_f)(const char *name);
int srun_opts_parse(struct srun_opts *o, enum srun_cmd cmd, int argc, char **argv,
		    srun_getenv_f getenv_f, FILE *out, struct herd_error *err);
void srun_opts_free(struct srun_opts *o);

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
