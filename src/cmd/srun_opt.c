/* srun's and salloc's options and the pure checks behind them (srun_opt.h).
 * The sentences are Slurm 22.05's where it has one. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "cmd/opt.h"
#include "cmd/srun_opt.h"
#include "common/parse.h"
#include "common/xmalloc.h"

enum {
	OPT_MEM = 256, OPT_MEM_PER_CPU, OPT_NTASKS_PER_NODE, OPT_EXCLUSIVE, OPT_EXPORT,
	OPT_CPU_BIND, OPT_MPI, OPT_OVERLAP, OPT_EXACT, OPT_MULTI_PROG, OPT_PTY, OPT_SIGNAL,
	OPT_JOBID, OPT_USAGE, OPT_COMMENT, OPT_RESERVATION, OPT_BEGIN, OPT_NO_SHELL, OPT_KILL_CMD,
	OPT_MAIL_TYPE, OPT_MAIL_USER, OPT_WCKEY, OPT_CONTAINER, OPT_UNSUPPORTED,
};

static const struct option srun_long[] = {
	{ "account", required_argument, NULL, 'A' },
	{ "begin", required_argument, NULL, 'b' },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "constraint", required_argument, NULL, 'C' },
	{ "chdir", required_argument, NULL, 'D' },
	{ "error", required_argument, NULL, 'e' },
	{ "help", no_argument, NULL, 'h' },
	{ "input", required_argument, NULL, 'i' },
	{ "immediate", optional_argument, NULL, 'I' },
	{ "job-name", required_argument, NULL, 'J' },
	{ "kill-on-bad-exit", optional_argument, NULL, 'K' },
	{ "label", no_argument, NULL, 'l' },
	{ "distribution", required_argument, NULL, 'm' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "output", required_argument, NULL, 'o' },
	{ "partition", required_argument, NULL, 'p' },
	{ "qos", required_argument, NULL, 'q' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "time", required_argument, NULL, 't' },
	{ "unbuffered", no_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "nodelist", required_argument, NULL, 'w' },
	{ "wait", required_argument, NULL, 'W' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "disable-status", no_argument, NULL, 'X' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
	{ "exclusive", optional_argument, NULL, OPT_EXCLUSIVE },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "cpu-bind", required_argument, NULL, OPT_CPU_BIND },
	{ "cpu_bind", required_argument, NULL, OPT_CPU_BIND },
	{ "mpi", required_argument, NULL, OPT_MPI },
	{ "overlap", no_argument, NULL, OPT_OVERLAP },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "multi-prog", no_argument, NULL, OPT_MULTI_PROG },
	{ "pty", no_argument, NULL, OPT_PTY },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "jobid", required_argument, NULL, OPT_JOBID },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "comment", required_argument, NULL, OPT_COMMENT },
	{ "mail-type", required_argument, NULL, OPT_MAIL_TYPE },
	{ "mail-user", required_argument, NULL, OPT_MAIL_USER },
	{ "gres", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpus", required_argument, NULL, OPT_UNSUPPORTED },
	{ "reservation", required_argument, NULL, OPT_RESERVATION },
	{ "wckey", required_argument, NULL, OPT_WCKEY },
	{ "relative", required_argument, NULL, OPT_UNSUPPORTED },
	{ "het-group", required_argument, NULL, OPT_UNSUPPORTED },
	{ "licenses", required_argument, NULL, OPT_UNSUPPORTED },
	{ "nodefile", required_argument, NULL, OPT_UNSUPPORTED },
	{ "mem-bind", required_argument, NULL, OPT_UNSUPPORTED },
	{ "container", required_argument, NULL, OPT_CONTAINER },
	{ NULL, 0, NULL, 0 },
};
static const char srun_short[] = "+A:b:c:C:D:e:hi:I::J:K::lm:n:N:o:p:q:Qt:uvVw:W:x:X";

static const struct option salloc_long[] = {
	{ "account", required_argument, NULL, 'A' },
	{ "begin", required_argument, NULL, 'b' },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "constraint", required_argument, NULL, 'C' },
	{ "chdir", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ "hold", no_argument, NULL, 'H' },
	{ "immediate", optional_argument, NULL, 'I' },
	{ "job-name", required_argument, NULL, 'J' },
	{ "kill-command", optional_argument, NULL, 'K' },
	{ "distribution", required_argument, NULL, 'm' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "partition", required_argument, NULL, 'p' },
	{ "qos", required_argument, NULL, 'q' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "time", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "nodelist", required_argument, NULL, 'w' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
	{ "exclusive", optional_argument, NULL, OPT_EXCLUSIVE },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "no-shell", no_argument, NULL, OPT_NO_SHELL },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "comment", required_argument, NULL, OPT_COMMENT },
	{ "mail-type", required_argument, NULL, OPT_MAIL_TYPE },
	{ "mail-user", required_argument, NULL, OPT_MAIL_USER },
	{ "gres", required_argument, NULL, OPT_UNSUPPORTED },
	{ "gpus", required_argument, NULL, OPT_UNSUPPORTED },
	{ "reservation", required_argument, NULL, OPT_RESERVATION },
	{ "wckey", required_argument, NULL, OPT_WCKEY },
	{ "container", required_argument, NULL, OPT_CONTAINER },
	{ "licenses", required_argument, NULL, OPT_UNSUPPORTED },
	{ NULL, 0, NULL, 0 },
};
static const char salloc_short[] = "+A:b:c:C:D:hHI::J:K::m:n:N:p:q:Qt:vVw:x:";

/* Input variables (srun(1), salloc(1) "INPUT ENVIRONMENT VARIABLES"), read
 * before the command line, which overrides them.  SLURM_NNODES and the like
 * are srun's inputs only outside an allocation (inside one the controller
 * fills the step's defaults from the job): they are not listed here. */
struct env_opt {
	const char *var;
	int opt;
};
static const struct env_opt srun_env[] = {
	{ "SLURM_ACCOUNT", 'A' }, { "SLURM_CONSTRAINT", 'C' }, { "SLURM_CPU_BIND", OPT_CPU_BIND },
	{ "SRUN_CPUS_PER_TASK", 'c' }, { "SLURM_DEBUG", 'v' }, { "SLURM_DISTRIBUTION", 'm' },
	{ "SLURM_EXACT", OPT_EXACT }, { "SLURM_EXCLUSIVE", OPT_EXCLUSIVE },
	{ "SLURM_EXPORT_ENV", OPT_EXPORT }, { "SRUN_EXPORT_ENV", OPT_EXPORT },
	{ "SLURM_IMMEDIATE", 'I' }, { "SLURM_JOB_NAME", 'J' }, { "SLURM_KILL_BAD_EXIT", 'K' },
	{ "SLURM_LABELIO", 'l' }, { "SLURM_MEM_PER_CPU", OPT_MEM_PER_CPU },
	{ "SLURM_MEM_PER_NODE", OPT_MEM }, { "SLURM_MPI_TYPE", OPT_MPI },
	{ "SLURM_NTASKS_PER_NODE", OPT_NTASKS_PER_NODE }, { "SLURM_OVERLAP", OPT_OVERLAP },
	{ "SLURM_PARTITION", 'p' }, { "SLURM_QOS", 'q' }, { "SLURM_RESERVATION", OPT_RESERVATION }, { "SLURM_SIGNAL", OPT_SIGNAL },
	{ "SLURM_STDERRMODE", 'e' }, { "SLURM_STDINMODE", 'i' }, { "SLURM_STDOUTMODE", 'o' },
	{ "SLURM_TIMELIMIT", 't' }, { "SLURM_UNBUFFEREDIO", 'u' }, { "SLURM_WAIT", 'W' },
	{ "SLURM_WCKEY", OPT_WCKEY }, { "SLURM_CONTAINER", OPT_CONTAINER },
	{ "SLURM_WORKING_DIR", 'D' }, { "SLURM_DISABLE_STATUS", 'X' },
	{ NULL, 0 },
};
static const struct env_opt salloc_env[] = {
	{ "SALLOC_ACCOUNT", 'A' }, { "SALLOC_CONSTRAINT", 'C' }, { "SALLOC_DEBUG", 'v' },
	{ "SALLOC_EXCLUSIVE", OPT_EXCLUSIVE }, { "SALLOC_IMMEDIATE", 'I' },
	{ "SALLOC_JOB_NAME", 'J' }, { "SALLOC_KILL_CMD", 'K' },
	{ "SALLOC_MEM_PER_CPU", OPT_MEM_PER_CPU }, { "SALLOC_MEM_PER_NODE", OPT_MEM },
	{ "SALLOC_NO_SHELL", OPT_NO_SHELL }, { "SALLOC_PARTITION", 'p' }, { "SALLOC_QOS", 'q' }, { "SALLOC_RESERVATION", OPT_RESERVATION },
	{ "SALLOC_WCKEY", OPT_WCKEY }, { "SALLOC_CONTAINER", OPT_CONTAINER },
	{ "SALLOC_SIGNAL", OPT_SIGNAL }, { "SALLOC_TIMELIMIT", 't' },
	{ NULL, 0 },
};

static const char *prog(const struct srun_opts *o)
{
	return o->cmd == SRUN_CMD_SALLOC ? "salloc" : "srun";
}

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static void usage(const struct srun_opts *o, FILE *out)
{
	if (o->cmd == SRUN_CMD_SALLOC)
		fprintf(out,
			"Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
			"              [-c ncpus] [-p partition] [--hold] [-I] [-H]\n"
			"              [-t minutes] [-D path] [-J jobname] [-A account] [--mem=MB]\n"
			"              [--mem-per-cpu=MB] [--ntasks-per-node=n] [--exclusive]\n"
			"              [--begin=time] [-q qos] [-C list] [-w hosts...] [-x hosts...]\n"
			"              [--kill-command[=signal]] [--no-shell] [--signal=[B:]num[@time]]\n"
			"              [executable [args...]]\n");
	else
		fprintf(out,
			"Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
			"            [-c ncpus] [-r n] [-p partition] [--hold] [-t minutes]\n"
			"            [-D path] [--immediate[=secs]] [--overcommit] [--no-kill]\n"
			"            [--label] [--unbuffered] [-m dist] [-J jobname] [--jobid=id]\n"
			"            [--verbose] [--quiet] [--exclusive] [--exact] [--overlap]\n"
			"            [--cpu-bind=...] [--mem=MB] [--mem-per-cpu=MB] [--mpi=type]\n"
			"            [--ntasks-per-node=n] [--kill-on-bad-exit] [--wait=sec]\n"
			"            [--export=names] [--pty] [--signal=[R:]num[@time]] [--multi-prog]\n"
			"            [-A account] [-q qos] [-C list] [-w hosts...] [-x hosts...]\n"
			"            executable [args...]\n");
}

static void help(const struct srun_opts *o, FILE *out)
{
	bool s = o->cmd == SRUN_CMD_SRUN;
	fprintf(out, "Usage: %s [OPTIONS(0)...] %sexecutable(0) [args(0)...]\n\n", prog(o),
		s ? "" : "[");
	fprintf(out, "Parallel run options:\n"
		"  -A, --account=name          charge job to specified account\n"
		"  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
		"  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
		"      --comment=name          arbitrary comment\n"
		"  -C, --constraint=list       specify a list of constraints\n"
		"      --container             Path to OCI container bundle\n"
		"  -D, --chdir=path            change remote current working directory\n"
		"      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
		"      --mail-user=user        who to send email notification for job state\n"
		"                              changes\n");
	if (s)
		fprintf(out,
			"      --cpu-bind=...          bind tasks to CPUs (none, rank, map_cpu:,\n"
			"                              mask_cpu:, sockets, cores, threads, ldoms)\n"
			"  -e, --error=err             location of stderr redirection\n"
			"      --exact                 use only the resources requested for the step\n"
			"      --export=env_vars|NONE  environment passed to the tasks\n"
			"  -i, --input=in              location of stdin redirection\n"
			"      --jobid=id              run under already allocated job\n"
			"  -K, --kill-on-bad-exit      kill the job if any task terminates with a\n"
			"                              non-zero exit code\n"
			"  -l, --label                 prepend task number to lines of stdout/err\n"
			"      --mpi=type              type of MPI being used (--mpi=list)\n"
			"      --multi-prog            if set the program name specified is the\n"
			"                              configuration specification for multiple programs\n"
			"  -o, --output=out            location of stdout redirection\n"
			"      --overlap               share the step's resources with other steps\n"
			"      --pty                   run task zero in pseudo terminal\n"
			"  -u, --unbuffered            do not line-buffer stdout/err\n"
			"  -W, --wait=sec              seconds to wait after first task exits\n"
			"                              before killing job\n"
			"  -X, --disable-status        Disable Ctrl-C status feature\n");
	else
		fprintf(out,
			"  -H, --hold                  submit job in held state\n"
			"  -K, --kill-command[=signal] signal to send terminating job\n"
			"      --no-shell              immediately exit after allocating resources,\n"
			"                              without running a command\n");
	fprintf(out,
		"  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
		"  -J, --job-name=jobname      name of job\n"
		"  -m, --distribution=type     distribution method for processes to nodes\n"
		"                              (type = block|cyclic|plane=N)\n"
		"      --mem=MB                minimum amount of real memory\n"
		"      --mem-per-cpu=MB        maximum amount of real memory per allocated cpu\n"
		"  -N, --nodes=N               number of nodes on which to run\n"
		"  -n, --ntasks=ntasks         number of tasks to run\n"
		"      --ntasks-per-node=n     number of tasks to invoke on each node\n"
		"  -p, --partition=partition   partition requested\n"
		"  -q, --qos=qos               quality of service\n"
		"      --reservation=name      allocate resources from named reservation\n"
		"      --wckey=wckey           wckey to run job under (ignored: TrackWCKey is off)\n"
		"  -Q, --quiet                 quiet mode (suppress informational messages)\n"
		"      --signal=[%s:]num[@time] send signal when time limit within time seconds\n"
		"  -t, --time=minutes          time limit\n"
		"  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
		"  -w, --nodelist=hosts...     request a specific list of hosts\n"
		"  -x, --exclude=hosts...      exclude a specific list of hosts\n"
		"      --exclusive             allocate nodes in exclusive mode\n\n"
		"Help options:\n"
		"  -h, --help                  show this help message\n"
		"      --usage                 display brief usage message\n\n"
		"Other options:\n"
		"  -V, --version               output version information and exit\n",
		s ? "R" : "B");
}

static int count_arg(const char *arg, const char *name, long min, long *out,
		     struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n < min || n > INT32_MAX)
		return errprintf(err, "Invalid numeric value \"%s\" for %s.", arg ? arg : "", name);
	*out = n;
	return 0;
}

/* A boolean input variable: set unless "0"/"no" (Slurm treats any other
 * value as set). */
static bool env_true(const char *v)
{
	return v && strcmp(v, "0") && strcasecmp(v, "no") && strcasecmp(v, "false");
}

static int apply(struct srun_opts *o, int opt, const char *arg, bool from_env, FILE *out,
		 struct herd_error *err)
{
	switch (opt) {
	case 'A': set_str(&o->account, arg); break;
	case 'C': set_str(&o->constraint, arg); break;
	case 'D': set_str(&o->chdir, arg); break;
	case 'e': set_str(&o->error, arg); break;
	case 'o': set_str(&o->output, arg); break;
	case 'J': set_str(&o->job_name, arg); break;
	case 'p': set_str(&o->partition, arg); break;
	case 'q': set_str(&o->qos, arg); break;
	case OPT_COMMENT: set_str(&o->comment, arg); break;
	case OPT_MAIL_USER: set_str(&o->mail_user, arg); break;   /* checked by the controller */
	case OPT_MAIL_TYPE: {
		unsigned mask;
		if (parse_mail_type(arg, &mask) < 0)
			return errprintf(err, "Invalid --mail-type specification");
		set_str(&o->mail_type, arg);
		break;
	}
	case OPT_RESERVATION: set_str(&o->reservation, arg); break;
	case OPT_CONTAINER: set_str(&o->container, arg); break;
	/* Slurm ignores --wckey unless TrackWCKey=yes, which Herd does not act
	 * on yet (conf_inert.c): accepted, so that generated scripts run */
	case OPT_WCKEY: break;
	case OPT_EXPORT: set_str(&o->export_spec, arg); break;
	case 'i': {
		const char *pattern = NULL;
		srun_input_parse(arg, &o->stdin_task, &pattern);
		free(o->input);
		o->input = pattern ? xstrdup(pattern) : NULL;
		break;
	}
	case 'b': {
		time_t t;
		if (opt_time_parse(arg, time(NULL), false, &t) < 0)
			return errprintf(err, "Invalid --begin specification");
		o->begin = t;
		break;
	}
	case 'c': return count_arg(arg, "--cpus-per-task", 1, &o->cpus_per_task, err);
	case 'n': return count_arg(arg, "--ntasks", 1, &o->ntasks, err);
	case OPT_NTASKS_PER_NODE:
		return count_arg(arg, "--ntasks-per-node", 1, &o->ntasks_per_node, err);
	case 'N': {
		long n;
		if (opt_count(arg, &n) < 0 || n > INT32_MAX)
			return errprintf(err, "\"%s\" is not a valid node count", arg ? arg : "");
		if (n < 1)
			return errprintf(err, "Invalid node count specification");
		o->nodes = n;
		break;
	}
	case OPT_JOBID: {
		long n;
		if (opt_count(arg, &n) < 0 || n < 1)
			return errprintf(err, "Invalid numeric value \"%s\" for --jobid.", arg ? arg : "");
		o->jobid = n;
		break;
	}
	case 't': {
		int64_t seconds;
		if (parse_time_limit(arg, &seconds) < 0)
			return errprintf(err, "Invalid --time specification");
		o->time_limit = seconds == 0 ? TIME_INFINITE : seconds;
		break;
	}
	case OPT_MEM:
	case OPT_MEM_PER_CPU: {
		uint64_t mb;
		if (parse_size_mb(arg, &mb) < 0)
			return errprintf(err, "Invalid --%s specification",
					 opt == OPT_MEM ? "mem" : "mem-per-cpu");
		if (opt == OPT_MEM) {
			o->mem_mb = mb;
			o->mem_per_cpu = 0;
		} else {
			o->mem_per_cpu = mb;
			o->mem_mb = 0;
		}
		break;
	}
	case 'w':
	case 'x': {
		char *list = opt_nodelist_arg(arg);
		if (!list)
			return errprintf(err, "Invalid node list file %s", arg);
		char **field = opt == 'w' ? &o->nodelist : &o->exclude;
		free(*field);
		*field = list;
		break;
	}
	case 'm': {
		char node[32];
		if (srun_dist_parse(arg, node, sizeof(node), err) < 0)
			return -1;
		free(o->distribution);
		o->distribution = *node ? xstrdup(node) : NULL;
		break;
	}
	case OPT_CPU_BIND:
		if (srun_cpu_bind_check(arg, err) < 0)
			return -1;
		set_str(&o->cpu_bind, arg);
		break;
	case OPT_MPI:
		if (!strcasecmp(arg, "list")) {
			srun_mpi_list(stdout, prog(o));
			return 1;
		}
		if (srun_mpi_check(arg, err) < 0)
			return -1;
		set_str(&o->mpi, arg);
		break;
	case OPT_SIGNAL:
		if (opt_signal_spec_parse(arg, &o->signal, &o->signal_time, &o->signal_flag) < 0)
			return errprintf(err, "Invalid --signal specification");
		break;
	case OPT_EXCLUSIVE:
		/* The step option (and the whole-node job option): "user" and
		 * "mcs" would need the controller to know them. */
		if (!from_env && arg && *arg)
			return errprintf(err, "--exclusive=%s is not supported", arg);
		if (from_env && !env_true(arg))
			break;
		o->exclusive = true;
		break;
	case 'K':
		if (o->cmd == SRUN_CMD_SALLOC) {
			/* no signal named: salloc(1)'s default, SIGHUP on a terminal,
			 * SIGTERM otherwise, chosen when it is sent (0 here) */
			int sig = 0;
			if (arg && *arg && (sig = opt_signal_parse(arg)) < 0)
				return errprintf(err, "Invalid --kill-command specification");
			o->kill_command = sig;
			break;
		}
		/* -K, -K1 / --kill-on-bad-exit[=0|1]; SLURM_KILL_BAD_EXIT=0|1 */
		if (!arg || !*arg) {
			o->kill_on_bad_exit = 1;
		} else {
			long n;
			if (opt_count(arg, &n) < 0)
				return errprintf(err, "Invalid --kill-on-bad-exit specification");
			o->kill_on_bad_exit = n != 0;
		}
		break;
	case 'W': {
		long n = 0;
		if (count_arg(arg, "--wait", 0, &n, err) < 0)
			return -1;
		o->max_wait = (int)n;
		break;
	}
	case 'I': {
		long n = 0;
		if (arg && *arg && opt_count(arg, &n) < 0) {
			if (from_env)
				n = 0;
			else
				return errprintf(err, "Invalid --immediate specification");
		}
		o->immediate = (int)n;
		break;
	}
	case 'l': if (!from_env || env_true(arg)) o->label = true; break;
	case 'u': if (!from_env || env_true(arg)) o->unbuffered = true; break;
	case OPT_OVERLAP: if (!from_env || env_true(arg)) o->overlap = true; break;
	case OPT_EXACT: if (!from_env || env_true(arg)) o->exact = true; break;
	case 'X': if (!from_env || env_true(arg)) o->disable_status = true; break;
	case OPT_NO_SHELL: if (!from_env || env_true(arg)) o->no_shell = true; break;
	case 'H': o->hold = true; break;
	case 'Q': o->quiet = true; break;
	case 'v':
		if (from_env) {
			long n;
			if (opt_count(arg, &n) == 0)
				o->verbose = (int)n;
		} else {
			o->verbose++;
		}
		break;
	case OPT_PTY: o->pty = true; break;
	case OPT_MULTI_PROG: o->multi_prog = true; break;
	default:
		return errprintf(err, "unknown option");
	}
	return 0;
}

static const char *option_name(const struct option *table, int c, int index)
{
	if (index >= 0)
		return table[index].name;
	for (size_t i = 0; table[i].name; i++)
		if (table[i].val == c)
			return table[i].name;
	return "?";
}

int srun_opts_parse(struct srun_opts *o, enum srun_cmd cmd, int argc, char **argv,
		    srun_getenv_f getenv_f, FILE *out, struct herd_error *err)
{
	const struct option *table = cmd == SRUN_CMD_SALLOC ? salloc_long : srun_long;
	const char *shorts = cmd == SRUN_CMD_SALLOC ? salloc_short : srun_short;
	const struct env_opt *envs = cmd == SRUN_CMD_SALLOC ? salloc_env : srun_env;
	int c, index = -1, r;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->time_limit = TIME_NOT_GIVEN;
	o->immediate = -1;
	err->text[0] = '\0';
	if (!getenv_f)
		getenv_f = (srun_getenv_f)getenv;
	for (const struct env_opt *e = envs; e->var; e++) {
		const char *v = getenv_f(e->var);
		if (!v)
			continue;
		/* srun(1): inside an allocation SLURM_JOB_NAME is ignored, or every
		 * step would bear the batch job's name. */
		if (e->opt == 'J' && cmd == SRUN_CMD_SRUN &&
		    (getenv_f("SLURM_JOB_ID") || getenv_f("SLURM_JOBID")))
			continue;
		r = apply(o, e->opt, v, true, out, err);
		if (r < 0) {
			/* Slurm names the variable a bad value came from. */
			struct herd_error why = *err;
			errprintf(err, "%s (from %s=%s)", why.text, e->var, v);
			return SRUN_PARSE_ERROR;
		}
	}
	/* The job ID, when inside an allocation: srun makes a step of it. */
	if (cmd == SRUN_CMD_SRUN) {
		const char *id = getenv_f("SLURM_JOB_ID");
		if (!id)
			id = getenv_f("SLURM_JOBID");
		long n;
		if (id && opt_count(id, &n) == 0 && n > 0)
			o->jobid = n;
	}
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, shorts, table, &index)) != -1) {
		if (c == OPT_UNSUPPORTED) {
			errprintf(err, "--%s is not supported by this cluster (herd) yet",
				  option_name(table, c, index));
			return SRUN_PARSE_ERROR;
		}
		index = -1;
		switch (c) {
		case 'h':
			help(o, out);
			return SRUN_PARSE_INFO;
		case OPT_USAGE:
			usage(o, out);
			return SRUN_PARSE_INFO;
		case 'V':
			fprintf(out, "%s\n", CMD_VERSION);
			return SRUN_PARSE_INFO;
		case '?':
			fprintf(stderr, "Try \"%s --help\" for more information\n", prog(o));
			err->text[0] = '\0';
			return SRUN_PARSE_ERROR;
		default:
			r = apply(o, c, optarg, false, out, err);
			if (r < 0)
				return SRUN_PARSE_ERROR;
			if (r > 0)
				return SRUN_PARSE_INFO;
		}
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (cmd == SRUN_CMD_SRUN && o->argc == 0)
		return errprintf(err, "No executable name specified"), SRUN_PARSE_ERROR;
	if (o->pty && o->multi_prog)
		return errprintf(err, "--pty and --multi-prog are incompatible"), SRUN_PARSE_ERROR;
	if (o->overlap && o->exclusive && cmd == SRUN_CMD_SRUN)
		return errprintf(err, "--exclusive and --overlap are mutually exclusive"),
		       SRUN_PARSE_ERROR;
	return SRUN_PARSE_OK;
}

void srun_opts_free(struct srun_opts *o)
{
	char **fields[] = { &o->job_name, &o->partition, &o->account, &o->qos, &o->constraint,
			    &o->nodelist, &o->exclude, &o->output, &o->error, &o->input,
			    &o->chdir, &o->export_spec, &o->cpu_bind, &o->distribution, &o->mpi,
			    &o->comment, &o->reservation, &o->mail_type, &o->mail_user, &o->container };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
}
