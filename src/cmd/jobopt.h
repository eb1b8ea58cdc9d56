/* The job options of sbatch, salloc and srun: ONE table (jobopt.c) whose
 * rows say an option's names, its argument, which commands take it, its
 * input variables, where its value lands (a JOBSPEC key, whose type and
 * bounds are common/jobspec.c's, or the command's own), and its help line;
 * the readers of the three sources (the command line, #SBATCH lines, the
 * input variables), the --help and --usage texts, and the one encoder of
 * the SUBMIT_JOB job object (sbatch, salloc, srun's allocation, herd sim
 * --jobs).  Adding an option is adding a row.  What the commands do with
 * their own values is theirs. */
#ifndef HERD_CMD_JOBOPT_H
#define HERD_CMD_JOBOPT_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include "common/error.h"

enum jobopt_cmd { JOBOPT_SBATCH = 1, JOBOPT_SALLOC = 2, JOBOPT_SRUN = 4 };

/* Where the options being read come from.  sbatch reads the command line
 * once alone (to find the script), then #SBATCH lines, SBATCH_* variables
 * and the command line, each over the one before; srun and salloc read
 * their variables, then the command line. */
enum jobopt_src { JOBOPT_ARGS_FIRST = 1, JOBOPT_SCRIPT, JOBOPT_ENV, JOBOPT_ARGS };

/* What a reader returns. */
enum {
	JOBOPT_OK = 0,
	JOBOPT_INFO = 1,     /* --help, --usage, --version, --mpi=list, --hint=help: o->info */
	JOBOPT_ERROR = -1,   /* a bad option: sbatch exits 255 (Slurm's -1) */
	JOBOPT_FATAL = -2,   /* one Slurm treats as fatal: exit 1 */
};

struct jobopt {
	enum jobopt_cmd cmd;
	enum jobopt_src pass;       /* the source being read */
	json_t *spec;               /* the JOBSPEC keys the options gave */
	json_t *local;              /* the command's own values, by option name */
	json_t *notes;              /* lines to print (stderr) before going on: Slurm's warnings */
	time_t now;                 /* what --begin/--deadline count from (0: the clock) */
	const char *info;           /* the info option that answered the run */
	const char *var;            /* the input variable being read; NULL: an argument */
	bool fatal;                 /* the error is Slurm's fatal() ("PROG: fatal: ...") */
	int mem_pass, mem_per_cpu_pass;   /* which source set them (exclusive within one) */
	int verbose;
	char **argv;                /* what follows the options (borrowed) */
	int argc;
	struct jobopt *het_next;    /* the next component of a heterogeneous job */
	const char *(*getenv_f)(const char *name);   /* how variables were read (NULL: not yet) */
};

struct jobopt_row;
typedef int (*jobopt_parse_f)(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			      struct herd_error *err);

struct jobopt_row {
	const char *name;       /* the long name */
	int letter;             /* the short one, 0: none */
	int has_arg;            /* getopt's no_argument, required_argument, optional_argument */
	unsigned cmds;          /* JOBOPT_* of the commands that take it */
	const char *vars;       /* input variables, blank separated: SBATCH_* are sbatch's,
				 * SALLOC_* salloc's, SLURM_* and SRUN_* srun's
				 * (SLURM_HINT, SLURM_CLUSTERS: every command's) */
	const char *key;        /* the JOBSPEC key it lands in; NULL: the command's own */
	jobopt_parse_f parse;   /* reads the value into key (or local[name]) */
	const char *arg;        /* the argument in help and usage ("=name") */
	const char *help;       /* the help line ('\n' continues it); NULL: an alias, not shown */
};

/* The table, ending with a row of NULL name. */
extern const struct jobopt_row jobopt_table[];

const char *jobopt_prog(enum jobopt_cmd cmd);   /* "sbatch", "salloc", "srun" */

void jobopt_init(struct jobopt *o, enum jobopt_cmd cmd);
void jobopt_free(struct jobopt *o);   /* and its het components */

/* The command line (argv[0] the program): *next is where the options
 * ended (the script or command).  A ":" after a component's options (after
 * its command, for srun) starts the next component of a heterogeneous job
 * (o->het_next, made with the variables read as o's were); srun's command
 * of each component is its argv/argc. */
int jobopt_args(struct jobopt *o, enum jobopt_src pass, int argc, char **argv, int *next,
		struct herd_error *err);
/* The input variables, by getenv_f (NULL: getenv), into every component. */
typedef const char *(*jobopt_getenv_f)(const char *name);
int jobopt_env(struct jobopt *o, jobopt_getenv_f getenv_f, struct herd_error *err);
/* Directive words (#SBATCH, or #PBS translated): read as a command line;
 * words left after the options are ignored, as Slurm does.  A "hetjob" (or
 * "packjob") word starts the next component of a heterogeneous job. */
int jobopt_words(struct jobopt *o, char **words, size_t nwords, struct herd_error *err);

/* #PBS directive words (after opt_script_directives) as sbatch's option
 * words (jobopt_pbs.c): what Slurm's sbatch reads of them.  NULL-terminated,
 * *count of them; the caller frees with opt_strv_free. */
char **jobopt_pbs_words(char **words, size_t nwords, size_t *count);
/* #BSUB words the same way; NULL with *bad the letter Slurm does not take. */
char **jobopt_bsub_words(char **words, size_t nwords, size_t *count, char *bad);

/* What the options gave: a JOBSPEC key or an option's own value. */
bool jobopt_given(const struct jobopt *o, const char *name);
const char *jobopt_str(const struct jobopt *o, const char *name);   /* NULL: not given */
long long jobopt_int(const struct jobopt *o, const char *name, long long none);
bool jobopt_flag(const struct jobopt *o, const char *name);
/* Set one of the command's own values (steals v). */
void jobopt_set(struct jobopt *o, const char *name, json_t *v);

/* The help and usage texts of cmd, from the table. */
void jobopt_help(enum jobopt_cmd cmd, FILE *out);
void jobopt_usage(enum jobopt_cmd cmd, FILE *out);
/* What o->info asks printed (help, usage, version, MPI types, hints). */
void jobopt_info(const struct jobopt *o, FILE *out);
/* Print the notes, then (rc < 0) err as "PROG: error: ..." (or fatal). */
void jobopt_report(struct jobopt *o, int rc, const struct herd_error *err);

/* -M/--clusters: c aimed at the named cluster (this one, or one sharing
 * the accounting database: cmd_clusters_resolve) where the job would
 * start first, each asked with a --test-only submission; returns its name, NULL when -M was not given, "" when none resolved
 * (Slurm's sentences printed). */
struct cmd_client;
const char *jobopt_clusters(const struct jobopt *o, struct cmd_client *c);
/* Each generic resource o (and its components) asks for is one of the
 * cluster's GresTypes, as Slurm's commands check with their own
 * slurm.conf: 0, or -1 with err "Invalid generic resource (gres)
 * specification". */
struct conf;
int jobopt_gres_check(const struct jobopt *o, const struct conf *conf, struct herd_error *err);

/* What the job object takes from outside the options. */
struct jobopt_ctx {
	const char *script;     /* the batch script ("" for an allocation) */
	char *const *args;      /* the script's arguments (NULL: none) */
	char *const *env;       /* the job's environment (NULL: none) */
	const char *cwd;        /* the working directory, absolute */
	const char *name;       /* the name when -J is not given */
	const char *command;    /* Command= (the script's path); NULL: none */
	const char *host;       /* submit host */
	mode_t umask;
	bool alloc;             /* salloc or srun: an allocation that runs no script */
	bool rlimits;           /* capture this process's resource limits */
};

/* The SUBMIT_JOB job object of o and c; NULL when a value is not UTF-8. */
json_t *jobopt_job(const struct jobopt *o, const struct jobopt_ctx *c);
/* -m arbitrary: each task's node in order, from -w or else the file
 * SLURM_HOSTFILE names (srun(1), sbatch(1)); NULL for another distribution. */
char *jobopt_arbitrary_list(const struct jobopt *o);
/* -m arbitrary: the JOBSPEC asks each named node once and a task per name. */
void jobopt_arbitrary_job(const struct jobopt *o, json_t *job);
/* JOBSPEC/STEPSPEC "rlimits": this process's resource limits (-1 unlimited). */
json_t *jobopt_rlimits(void);
/* The SUBMIT_JOB body {"key", "job", "het"?}: every component of o by
 * jobopt_job (c for each), with a fresh request key.  NULL as above. */
json_t *jobopt_submit_body(const struct jobopt *o, const struct jobopt_ctx *c);
/* A request key: 32 hex digits, or time and pid without entropy. */
void jobopt_key(char *key, size_t size);

#endif
