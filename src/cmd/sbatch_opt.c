/* sbatch's options: Slurm's names for them (and those Herd refuses rather
 * than drop), the help texts, and the three sources (#SBATCH lines,
 * SBATCH_* variables, the command line), each applied over the one before,
 * as in Slurm.  What the options become in the submission is sbatch.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/opt.h"
#include "cmd/sbatch_opt.h"
#include "common/bitmap.h"
#include "common/parse.h"
#include "common/xmalloc.h"

enum { OPT_MEM = 256, OPT_EXCLUSIVE, OPT_PARSABLE, OPT_EXPORT, OPT_COMMENT, OPT_WRAP,
       OPT_USAGE, OPT_DEADLINE, OPT_KILL_INVALID_DEP, OPT_NICE, OPT_REQUEUE, OPT_NO_REQUEUE,
       OPT_MAIL_TYPE, OPT_MAIL_USER, OPT_MEM_PER_CPU, OPT_NTASKS_PER_NODE, OPT_OPEN_MODE,
       OPT_TIME_MIN, OPT_SIGNAL, OPT_TEST_ONLY, OPT_RESERVATION, OPT_WCKEY, OPT_CONTAINER, OPT_UNSUPPORTED };

/* Slurm's own short options that Herd does not implement (see below). */
#define UNSUPPORTED_SHORT "B:F:G:kL:m:M:Os"
static const char short_opts[] = "+J:N:n:c:t:p:o:e:i:HD:A:QvhVWa:b:d:q:C:w:x:" UNSUPPORTED_SHORT;
static const struct option long_opts[] = {
	{ "job-name", required_argument, NULL, 'J' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "time", required_argument, NULL, 't' },
	{ "partition", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "error", required_argument, NULL, 'e' },
	{ "input", required_argument, NULL, 'i' },
	{ "hold", no_argument, NULL, 'H' },
	{ "chdir", required_argument, NULL, 'D' },
	{ "account", required_argument, NULL, 'A' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "exclusive", optional_argument, NULL, OPT_EXCLUSIVE },
	{ "parsable", no_argument, NULL, OPT_PARSABLE },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "comment", required_argument, NULL, OPT_COMMENT },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "wait", no_argument, NULL, 'W' },
	{ "qos", required_argument, NULL, 'q' },
	{ "constraint", required_argument, NULL, 'C' },
	{ "nodelist", required_argument, NULL, 'w' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "nice", optional_argument, NULL, OPT_NICE },
	{ "requeue", no_argument, NULL, OPT_REQUEUE },
	{ "no-requeue", no_argument, NULL, OPT_NO_REQUEUE },
	{ "mail-type", required_argument, NULL, OPT_MAIL_TYPE },
	{ "mail-user", required_argument, NULL, OPT_MAIL_USER },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
	{ "open-mode", required_argument, NULL, OPT_OPEN_MODE },
	{ "time-min", required_argument, NULL, OPT_TIME_MIN },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "test-only", no_argument, NULL, OPT_TEST_ONLY },
	{ "array", required_argument, NULL, 'a' },
	{ "begin", required_argument, NULL, 'b' },
	{ "dependency", required_argument, NULL, 'd' },
	{ "deadline", required_argument, NULL, OPT_DEADLINE },
	{ "kill-on-invalid-dep", required_argument, NULL, OPT_KILL_INVALID_DEP },
	/* Real sbatch options this cluster cannot honour yet: named in the
	 * refusal, so a script is not run with a request silently dropped. */
	{ "extra-node-info", required_argument, NULL, 'B' },
	{ "nodefile", required_argument, NULL, 'F' },
	{ "gpus", required_argument, NULL, 'G' },
	{ "no-kill", optional_argument, NULL, 'k' },
	{ "licenses", required_argument, NULL, 'L' },
	{ "distribution", required_argument, NULL, 'm' },
	{ "clusters", required_argument, NULL, 'M' },
	{ "cluster", required_argument, NULL, 'M' },
	{ "overcommit", no_argument, NULL, 'O' },
	{ "oversubscribe", no_argument, NULL, 's' },
	{ "acctg-freq", required_argument, NULL, OPT_UNSUPPORTED },
	{ "batch", required_argument, NULL, OPT_UNSUPPORTED },
	{ "bb", required_argument, NULL, OPT_UNSUPPORTED },
	{ "bbf", required_argument, NULL, OPT_UNSUPPORTED },
	{ "container", required_argument, NULL, OPT_CONTAINER },
	{ "core-spec", required_argument, NULL, OPT_UNSUPPORTED },
	{ "cores-per-socket", required_argument, NULL, OPT_UNSUPPORTED },
	{ "cpu-freq", required_argument, NULL, OPT_UNSUPPORTED },
	{ "cpus-per-gpu", required_argument, NULL, OPT_UNSUPPORTED },
	{ "delay-boot", required_argument, NULL, OPT_UNSUPPORTED },
	{ "export-file", required_argument, NULL, OPT_UNSUPPORTED },
	{ "get-user-env", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "gid", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpu-bind", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpu-freq", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpus-per-node", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpus-per-socket", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpus-per-task", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gres", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gres-flags", required_argument, NULL, OPT_UNSUPPORTED },
	{ "hint", required_argument, NULL, OPT_UNSUPPORTED },
	{ "ignore-pbs", no_argument, NULL, OPT_UNSUPPORTED },
	{ "mcs-label", required_argument, NULL, OPT_UNSUPPORTED },
	{ "mem-bind", required_argument, NULL, OPT_UNSUPPORTED },
	{ "mem-per-gpu", required_argument, NULL, OPT_UNSUPPORTED },
	{ "mincpus", required_argument, NULL, OPT_UNSUPPORTED },
	{ "network", required_argument, NULL, OPT_UNSUPPORTED },
	{ "ntasks-per-core", required_argument, NULL, OPT_UNSUPPORTED },
	{ "ntasks-per-gpu", required_argument, NULL, OPT_UNSUPPORTED },
	{ "ntasks-per-socket", required_argument, NULL, OPT_UNSUPPORTED },
	{ "power", required_argument, NULL, OPT_UNSUPPORTED },
	{ "priority", required_argument, NULL, OPT_UNSUPPORTED },
	{ "profile", required_argument, NULL, OPT_UNSUPPORTED },
	{ "propagate", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "reboot", no_argument, NULL, OPT_UNSUPPORTED },
	{ "reservation", required_argument, NULL, OPT_RESERVATION },
	{ "sockets-per-node", required_argument, NULL, OPT_UNSUPPORTED },
	{ "spread-job", no_argument, NULL, OPT_UNSUPPORTED },
	{ "switches", required_argument, NULL, OPT_UNSUPPORTED },
	{ "thread-spec", required_argument, NULL, OPT_UNSUPPORTED },
	{ "threads-per-core", required_argument, NULL, OPT_UNSUPPORTED },
	{ "tmp", required_argument, NULL, OPT_UNSUPPORTED },
	{ "uid", required_argument, NULL, OPT_UNSUPPORTED },
	{ "use-min-nodes", no_argument, NULL, OPT_UNSUPPORTED },
	{ "wait-all-nodes", required_argument, NULL, OPT_UNSUPPORTED },
	{ "wckey", required_argument, NULL, OPT_WCKEY },
	{ NULL, 0, NULL, 0 },
};

/* The long name of an option getopt returned (for the refusal message). */
static const char *option_name(int c, int index)
{
	if (index >= 0)
		return long_opts[index].name;
	for (size_t i = 0; long_opts[i].name; i++)
		if (long_opts[i].val == c)
			return long_opts[i].name;
	return "?";
}

/* SBATCH_* input variables (sbatch(1) "INPUT ENVIRONMENT VARIABLES"). */
static const struct {
	const char *var;
	int opt;
} env_opts[] = {
	{ "SBATCH_ACCOUNT", 'A' },       { "SBATCH_ARRAY_INX", 'a' },
	{ "SBATCH_ERROR", 'e' },
	{ "SBATCH_EXCLUSIVE", OPT_EXCLUSIVE }, { "SBATCH_EXPORT", OPT_EXPORT },
	{ "SBATCH_INPUT", 'i' },         { "SBATCH_JOB_NAME", 'J' },
	{ "SBATCH_MEM_PER_NODE", OPT_MEM }, { "SBATCH_OUTPUT", 'o' },
	{ "SBATCH_PARTITION", 'p' },     { "SBATCH_TIMELIMIT", 't' },
	{ "SBATCH_DEBUG", 'v' },         { "SBATCH_WAIT", 'W' },
	{ "SBATCH_CONSTRAINT", 'C' },    { "SBATCH_MEM_PER_CPU", OPT_MEM_PER_CPU },
	{ "SBATCH_NO_REQUEUE", OPT_NO_REQUEUE }, { "SBATCH_REQUEUE", OPT_REQUEUE },
	{ "SBATCH_OPEN_MODE", OPT_OPEN_MODE }, { "SBATCH_QOS", 'q' },
	{ "SBATCH_SIGNAL", OPT_SIGNAL },  { "SBATCH_RESERVATION", OPT_RESERVATION },
	{ "SBATCH_WCKEY", OPT_WCKEY }, { "SBATCH_CONTAINER", OPT_CONTAINER },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: sbatch [-N nnodes] [-n ntasks] [-c ncpus] [-p partition] [--hold]\n"
		"              [--array=indexes]\n"
		"              [--parsable] [-t minutes] [-D path] [-J jobname] [-A account]\n"
		"              [--input file] [--output file] [--error file] [--mem=MB]\n"
		"              [--exclusive] [--export[=names]] [--comment=text] [--quiet]\n"
		"              [--verbose] [--wait] [--wrap=command] [--begin=time]\n"
		"              [--dependency=type:jobid[:jobid...]] [--deadline=time]\n"
		"              [--kill-on-invalid-dep=yes|no] [--array=indexes] [--nice[=value]]\n"
		"              [--requeue] [--no-requeue] [--mail-type=type] [--mail-user=user]\n"
		"              [--mem-per-cpu=MB] [--ntasks-per-node=n] [--open-mode={append|truncate}]\n"
		"              [--time-min=minutes] [--signal=[[R|B]:]num[@time]] [-q qos]\n"
		"              [-C list] [-w hosts...] [-x hosts...] [--test-only]\n"
		"              executable [args...]\n");
}

static void help(void)
{
	printf("Usage: sbatch [OPTIONS...] executable [args...]\n\n"
	       "Parallel run options:\n"
	       "  -a, --array=indexes         job array index values\n"
	       "  -A, --account=name          charge job to specified account\n"
	       "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
	       "      --comment=name          arbitrary comment\n"
	       "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
	       "  -C, --constraint=list       specify a list of constraints\n"
	       "      --container             Path to OCI container bundle\n"
	       "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
	       "      --deadline=time         remove the job if no ending possible before\n"
	       "                              this deadline (start > (deadline - time[-min]))\n"
	       "  -D, --chdir=directory       set working directory for batch script\n"
	       "  -e, --error=err             file for batch script's standard error\n"
	       "      --export[=names]        specify environment variables to export\n"
	       "  -H, --hold                  submit job in held state\n"
	       "  -i, --input=in              file for batch script's standard input\n"
	       "  -J, --job-name=jobname      name of job\n"
	       "      --kill-on-invalid-dep=<yes|no> kill job if dependency is never satisfied\n"
	       "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
	       "      --mail-user=user        who to send email notification for job state\n"
	       "                              changes\n"
	       "  -N, --nodes=N               number of nodes on which to run\n"
	       "  -n, --ntasks=ntasks         number of tasks to run\n"
	       "      --nice[=value]          decrease scheduling priority by value\n"
	       "      --no-requeue            if set, do not permit the job to be requeued\n"
	       "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
	       "  -o, --output=out            file for batch script's standard output\n"
	       "      --open-mode={append|truncate} output and error files open mode\n"
	       "  -p, --partition=partition   partition requested\n"
	       "      --parsable              outputs only the jobid\n"
	       "  -q, --qos=qos               quality of service\n"
	       "      --reservation=name      allocate resources from named reservation\n"
	       "      --wckey=wckey           wckey to run job under (ignored: TrackWCKey is off)\n"
	       "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
	       "      --requeue               if set, permit the job to be requeued\n"
	       "      --signal=[[R|B]:]num[@time] send signal when time limit within time seconds\n"
	       "  -t, --time=minutes          time limit\n"
	       "      --time-min=minutes      minimum time limit (if distinct)\n"
	       "      --test-only             validate the job, print when it would start; do\n"
	       "                              not submit it\n"
	       "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
	       "  -W, --wait                  wait for completion of submitted job\n"
	       "      --wrap[=command string] wrap command string in a sh script and submit\n"
	       "      --exclusive             allocate nodes in exclusive mode\n"
	       "      --mem=MB                minimum amount of real memory\n"
	       "      --mem-per-cpu=MB        maximum amount of real memory per allocated\n"
	       "                              cpu required by the job.\n"
	       "                              --mem >= --mem-per-cpu if --mem is specified.\n"
	       "  -w, --nodelist=hosts...     request a specific list of hosts\n"
	       "  -x, --exclude=hosts...      exclude a specific list of hosts\n\n"
	       "Help options:\n"
	       "  -h, --help                  show this help message\n"
	       "      --usage                 display brief usage message\n\n"
	       "Other options:\n"
	       "  -V, --version               output version information and exit\n");
}

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

/* Apply one option; 0, or -1 after printing Slurm's message (-2 for a
 * conflict Slurm treats as fatal). */
static int apply_option(struct sbatch_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'J': set_str(&o->job_name, arg); break;
	case 'p': set_str(&o->partition, arg); break;
	case 'o': set_str(&o->output, arg); break;
	case 'e': set_str(&o->error, arg); break;
	case 'i': set_str(&o->input, arg); break;
	case 'D': set_str(&o->chdir, arg); break;
	case 'A': set_str(&o->account, arg); break;
	case OPT_COMMENT: set_str(&o->comment, arg); break;
	case OPT_EXPORT: set_str(&o->export_spec, arg); break;
	case OPT_WRAP: set_str(&o->wrap, arg); break;
	case 'a': {
		/* The syntax here; the controller checks MaxArraySize.  Slurm's
		 * controller refuses a bad spec, so the sentence and exit code (1)
		 * are those of a refused submission.  No task ID reaches the hard
		 * limit of MaxArraySize (4000001): a bigger one would cost a bit
		 * set of half a gigabyte here. */
		struct bitmap *tasks;
		uint32_t throttle;
		if (parse_array_spec(arg, 4000001, &tasks, &throttle) < 0) {
			fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n",
				herd_strerror(HERD_ERR_INVALID_ARRAY));
			return -2;
		}
		bitmap_destroy(tasks);
		set_str(&o->array, arg);
		break;
	}
	case 'd': set_str(&o->dependency, arg); break;
	case 'b':
	case OPT_DEADLINE: {
		/* Local time here, relative to now: the controller gets seconds. */
		time_t t;
		if (opt_time_parse(arg, o->now ? o->now : time(NULL), false, &t) < 0) {
			/* Slurm's time parser says where, unprefixed, first (not for "") */
			if (*arg)
				fprintf(stderr, "Invalid time specification (pos=%d): %s\n",
					opt_time_error_pos(arg), arg);
			fprintf(stderr, "sbatch: error: Invalid --%s specification\n",
				opt == 'b' ? "begin" : "deadline");
			return -1;
		}
		if (opt == 'b')
			o->begin = t;
		else
			o->deadline = t;
		break;
	}
	case OPT_KILL_INVALID_DEP:
		if (!strcasecmp(arg, "yes"))
			o->kill_on_invalid_dep = 1;
		else if (!strcasecmp(arg, "no"))
			o->kill_on_invalid_dep = 0;
		else {
			fprintf(stderr, "sbatch: error: Invalid --kill-on-invalid-dep specification\n");
			return -1;
		}
		break;
	case 'H': o->hold = true; break;
	case 'Q': o->quiet = true; break;
	case 'W': o->wait = true; break;
	case 'v': o->verbose++; break;
	case OPT_PARSABLE: o->parsable = true; break;
	case OPT_EXCLUSIVE:
		/* Only whole-node exclusivity exists here; "user"/"mcs" would need
		 * the controller to know them, so they are refused, not ignored. */
		if (arg && *arg) {
			fprintf(stderr, "sbatch: error: --exclusive=%s is not supported\n", arg);
			return -1;
		}
		o->exclusive = true;
		break;
	case 'N': {
		long n;
		if (opt_count(arg, &n) < 0) {
			fprintf(stderr, "sbatch: error: \"%s\" is not a valid node count\n", arg);
			return -1;
		}
		if (n < 1) {
			/* Slurm's controller refuses -N 0 with this sentence. */
			fprintf(stderr, "sbatch: error: Batch job submission failed: "
				"Node count specification invalid\n");
			return -2;
		}
		o->nodes = n;
		break;
	}
	case 'n':
	case 'c': {
		long n;
		if (opt_count(arg, &n) < 0 || n < 1 || n > INT32_MAX) {
			fprintf(stderr, "sbatch: error: Invalid numeric value \"%s\" for %s.\n", arg,
				opt == 'n' ? "--ntasks" : "--cpus-per-task");
			return -2;   /* Slurm exits 1 here, not -1 */
		}
		if (opt == 'n')
			o->ntasks = n;
		else
			o->cpus_per_task = n;
		break;
	}
	case 't': {
		int64_t seconds;
		if (parse_time_limit(arg, &seconds) < 0) {
			fprintf(stderr, "sbatch: error: Invalid --time specification\n");
			return -1;
		}
		/* sbatch(1): "A time limit of zero requests that no time limit be
		 * imposed" -- the same as UNLIMITED. */
		o->time_limit = seconds == 0 ? TIME_INFINITE : seconds;
		break;
	}
	case OPT_MEM:
	case OPT_MEM_PER_CPU: {
		uint64_t mb;
		if (parse_size_mb(arg, &mb) < 0) {
			fprintf(stderr, "sbatch: error: Invalid --%s specification\n",
				opt == OPT_MEM ? "mem" : "mem-per-cpu");
			return -1;
		}
		/* Slurm: both from one source is an error; a later source
		 * (the command line over #SBATCH) replaces the other. */
		int other_pass = opt == OPT_MEM ? o->mem_per_cpu_pass : o->mem_pass;
		if (other_pass && other_pass == (int)o->pass) {
			fprintf(stderr, "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu "
				"are mutually exclusive.\n");
			return -2;
		}
		if (opt == OPT_MEM) {
			o->mem_mb = mb;
			o->mem_pass = o->pass;
			o->mem_per_cpu = 0;
			o->mem_per_cpu_pass = 0;
		} else {
			o->mem_per_cpu = mb;
			o->mem_per_cpu_pass = o->pass;
			o->mem_mb = 0;
			o->mem_pass = 0;
		}
		break;
	}
	case 'q': set_str(&o->qos, arg); break;
	case OPT_RESERVATION: set_str(&o->reservation, arg); break;
	case OPT_CONTAINER: set_str(&o->container, arg); break;
	/* Slurm ignores --wckey unless TrackWCKey=yes, which Herd does not act
	 * on yet (conf_inert.c): accepted, so that generated scripts run */
	case OPT_WCKEY: break;
	case 'C': set_str(&o->constraint, arg); break;
	case OPT_MAIL_USER: set_str(&o->mail_user, arg); break;
	case 'w':
	case 'x': {
		char *list = opt_nodelist_arg(arg);
		if (!list) {
			fprintf(stderr, "sbatch: error: Invalid node list file %s\n", arg);
			return -1;
		}
		char **field = opt == 'w' ? &o->nodelist : &o->exclude;
		free(*field);
		*field = list;
		break;
	}
	case OPT_NICE: {
		long long nice = 100;   /* sbatch(1): --nice without a value */
		int r = arg ? opt_nice_parse(arg, &nice) : 0;
		if (r == -2) {
			fprintf(stderr, "sbatch: error: Nice value out of range (+/- 2147483645)\n");
			return -1;
		}
		if (r < 0) {
			fprintf(stderr, "sbatch: error: Invalid --nice value: %s\n", arg);
			return -1;
		}
		o->nice = nice;
		o->nice_set = true;
		break;
	}
	case OPT_REQUEUE: o->requeue = 1; break;
	case OPT_NO_REQUEUE: o->requeue = 0; break;
	case OPT_TEST_ONLY: o->test_only = true; break;
	case OPT_MAIL_TYPE:
		if (parse_mail_type(arg, &o->mail_type) < 0) {
			fprintf(stderr, "sbatch: error: Invalid --mail-type specification\n");
			return -1;
		}
		o->mail_type_set = true;
		break;
	case OPT_NTASKS_PER_NODE: {
		long n;
		if (opt_count(arg, &n) < 0 || n < 1 || n > INT32_MAX) {
			fprintf(stderr, "sbatch: error: Invalid numeric value \"%s\" for "
				"--ntasks-per-node.\n", arg);
			return -1;
		}
		o->ntasks_per_node = n;
		break;
	}
	case OPT_OPEN_MODE:
		/* Slurm looks at the first letter only. */
		if (arg && (*arg == 'a' || *arg == 'A'))
			o->open_mode = 'a';
		else if (arg && (*arg == 't' || *arg == 'T'))
			o->open_mode = 't';
		else {
			fprintf(stderr, "sbatch: error: Invalid --open-mode specification\n");
			return -1;
		}
		break;
	case OPT_TIME_MIN: {
		int64_t seconds;
		if (parse_time_limit(arg, &seconds) < 0) {
			fprintf(stderr, "sbatch: error: Invalid --time-min specification\n");
			return -1;
		}
		o->time_min = seconds;
		break;
	}
	case OPT_SIGNAL:
		if (opt_signal_spec_parse(arg, &o->signal, &o->signal_time, &o->signal_flag) < 0) {
			fprintf(stderr, "sbatch: error: Invalid --signal specification\n");
			return -1;
		}
		break;
	default:
		return -1;
	}
	return 0;
}

/* Run getopt over argv, applying options.  Returns optind, -1 on a bad
 * option (message printed), -2 on a fatal one (exit 1, as Slurm's fatal());
 * *info_only when --help/--usage/--version answered the run. */
static int parse_args(struct sbatch_opts *o, int argc, char **argv, bool *info_only)
{
	int c, index = -1;
	optind = 0;     /* glibc: full re-initialisation for each pass */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, &index)) != -1) {
		if (c == OPT_UNSUPPORTED || (c < 128 && c != ':' && strchr(UNSUPPORTED_SHORT, c))) {
			fprintf(stderr, "sbatch: error: --%s is not supported by this cluster (herd) yet\n",
				option_name(c, index));
			return -1;
		}
		index = -1;
		switch (c) {
		case 'h':
			help();
			*info_only = true;
			return 0;
		case OPT_USAGE:
			usage(stdout);
			*info_only = true;
			return 0;
		case 'V':
			printf("%s\n", CMD_VERSION);
			*info_only = true;
			return 0;
		case '?':
			fprintf(stderr, "Try \"sbatch --help\" for more information\n");
			return -1;
		default: {
			int r = apply_option(o, c, optarg);
			if (r < 0)
				return r;
		}
		}
	}
	return optind;
}

int sbatch_opts_args(struct sbatch_opts *o, enum sbatch_source from, int argc, char **argv,
		     bool *info_only)
{
	o->pass = from;
	return parse_args(o, argc, argv, info_only);
}

int sbatch_opts_script(struct sbatch_opts *o, const char *script, bool *info_only)
{
	size_t nwords;
	char **words = opt_script_directives(script, "#SBATCH", &nwords);
	char **dargv = xmalloc((nwords + 2) * sizeof(*dargv));
	dargv[0] = "sbatch";
	for (size_t i = 0; i < nwords; i++)
		dargv[i + 1] = words[i];
	o->pass = SBATCH_FROM_SCRIPT;
	int r = parse_args(o, (int)nwords + 1, dargv, info_only);
	free(dargv);
	opt_strv_free(words);
	return r < 0 ? r : 0;
}

int sbatch_opts_env(struct sbatch_opts *o)
{
	o->pass = SBATCH_FROM_ENV;
	for (size_t i = 0; i < sizeof(env_opts) / sizeof(env_opts[0]); i++) {
		const char *v = getenv(env_opts[i].var);
		if (!v)
			continue;
		if (env_opts[i].opt == 'v') {
			if (!strcmp(v, "1"))
				o->verbose++;
			continue;
		}
		if (env_opts[i].opt == OPT_EXCLUSIVE)
			v = NULL;
		int r = apply_option(o, env_opts[i].opt, v);
		if (r < 0)
			return r;
	}
	return 0;
}

void sbatch_opts_init(struct sbatch_opts *o)
{
	*o = (struct sbatch_opts){ .time_limit = TIME_NOT_GIVEN, .time_min = TIME_NOT_GIVEN,
				   .requeue = -1, .kill_on_invalid_dep = -1 };
}

void sbatch_opts_free(struct sbatch_opts *o)
{
	free(o->job_name); free(o->partition); free(o->output); free(o->error); free(o->input);
	free(o->chdir); free(o->export_spec); free(o->account); free(o->comment); free(o->wrap);
	free(o->array); free(o->dependency);
	free(o->reservation);
	free(o->container);
	free(o->qos); free(o->constraint); free(o->nodelist); free(o->exclude); free(o->mail_user);
}

/* What follows from the options together.  --ntasks-per-node with -N gives
 * the task count (sbatch(1)); with -n alone it gives the node count; alone,
 * one node with that many tasks. */
void sbatch_opts_finish(struct sbatch_opts *o)
{
	if (o->ntasks_per_node > 0) {
		if (!o->ntasks)
			o->ntasks = (o->nodes ? o->nodes : 1) * o->ntasks_per_node;
		else if (!o->nodes)
			o->nodes = (o->ntasks + o->ntasks_per_node - 1) / o->ntasks_per_node;
	}
}
