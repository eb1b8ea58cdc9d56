/* sbatch's options (sbatch_opt.c): the table of Slurm's option names, and
 * the three sources read in order, each overriding the one before: #SBATCH
 * lines, SBATCH_* variables, the command line.  Each reader prints Slurm's
 * message and returns -1 for a bad option (sbatch exits 255, as Slurm's -1)
 * or -2 for one Slurm treats as fatal (exit 1). */
#ifndef HERD_CMD_SBATCH_OPT_H
#define HERD_CMD_SBATCH_OPT_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Where the options being read come from: the first reading of the command
 * line (to find the script), then the three sources in order. */
enum sbatch_source { SBATCH_FROM_ARGS_FIRST = 1, SBATCH_FROM_SCRIPT, SBATCH_FROM_ENV,
		     SBATCH_FROM_ARGS };

struct sbatch_opts {
	char *job_name, *partition, *output, *error, *input, *chdir, *export_spec;
	char *account, *comment, *wrap, *array, *dependency;
	time_t begin, deadline;     /* 0 = not given */
	time_t now;                 /* what --begin/--deadline are relative to (0: the clock);
				     * herd sim's virtual time */
	int kill_on_invalid_dep;    /* 1 yes, 0 no, -1 not given */
	char *qos, *constraint, *nodelist, *exclude, *mail_user;
	char *reservation;
	char *container;             /* --container: OCI bundle path */
	long nodes, ntasks, cpus_per_task, ntasks_per_node;
	uint64_t mem_mb, mem_per_cpu;
	int mem_pass, mem_per_cpu_pass;   /* which pass set them (mutually exclusive in one) */
	int64_t time_limit;     /* TIME_NOT_GIVEN, TIME_INFINITE, or seconds */
	int64_t time_min;       /* TIME_NOT_GIVEN or seconds */
	bool hold, exclusive, parsable, quiet, wait, test_only;
	bool nice_set;
	long long nice;
	int requeue;            /* -1 not given (JobRequeue), 0, 1 */
	bool mail_type_set;
	unsigned mail_type;
	int open_mode;          /* 0 not given, 'a' append, 't' truncate */
	int signal, signal_time;   /* --signal: 0 = none */
	char signal_flag;       /* 'B', 'R' or 0 */
	int verbose;
	enum sbatch_source pass;   /* the source being read */
};

/* Nothing given yet. */
void sbatch_opts_init(struct sbatch_opts *o);
void sbatch_opts_free(struct sbatch_opts *o);

/* The command line (from, SBATCH_FROM_ARGS_FIRST or SBATCH_FROM_ARGS),
 * argv[0] the program.  Returns optind (where the script's name is), -1 or
 * -2; *info_only when --help/--usage/--version answered the run. */
int sbatch_opts_args(struct sbatch_opts *o, enum sbatch_source from, int argc, char **argv,
		     bool *info_only);
/* The script's #SBATCH lines; 0, -1 or -2 (*info_only as above).  Words
 * left after the options (a stray word on a #SBATCH line) are ignored, as
 * Slurm does. */
int sbatch_opts_script(struct sbatch_opts *o, const char *script, bool *info_only);
/* The SBATCH_* variables; 0, -1 or -2. */
int sbatch_opts_env(struct sbatch_opts *o);
/* What follows from the options together (after all three sources). */
void sbatch_opts_finish(struct sbatch_opts *o);

#endif
