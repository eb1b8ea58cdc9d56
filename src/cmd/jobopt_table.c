/* The job-option table of sbatch, salloc and srun (jobopt.h) and the
 * readers of values that need more than a string, a flag or a count.
 * Each row's comment says a decision where Herd's behaviour is not plain
 * (what Slurm does on a cluster configured as Herd's is).  The sentences
 * are Slurm 22.05's where it has one. */
#include <ctype.h>
#include <getopt.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/jobopt.h"
#include "cmd/opt.h"
#include "cmd/srun_opt.h"
#include "common/bitmap.h"
#include "common/taskopt.h"
#include "common/parse.h"
#include "common/xmalloc.h"

#define B JOBOPT_SBATCH
#define A JOBOPT_SALLOC
#define R JOBOPT_SRUN
#define ALL (B | A | R)
#define NO no_argument
#define REQ required_argument
#define OPTL optional_argument

/* ---- storing ------------------------------------------------------------ */

/* v into the row's key (or the command's own value of its name); steals v.
 * A string that is not UTF-8 cannot travel in JSON. */
static int put(struct jobopt *o, const struct jobopt_row *r, json_t *v, struct herd_error *err)
{
	if (!v) {
		errprintf(err, "the script or an option is not valid UTF-8");
		return JOBOPT_FATAL;
	}
	json_object_set_new(r->key ? o->spec : o->local, r->key ? r->key : r->name, v);
	return JOBOPT_OK;
}

/* A line to print before going on (a value not UTF-8 prints as "?"). */
static void note_line(struct jobopt *o, const char *line)
{
	json_t *v = json_string(line);
	json_array_append_new(o->notes, v ? v : json_string("?"));
}

static void note(struct jobopt *o, const char *fmt, const char *arg)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%s: error: ", jobopt_prog(o->cmd));
	snprintf(line + n, sizeof(line) - n, fmt, arg);
	note_line(o, line);
}

/* A boolean input variable: set unless "0"/"no"/"false" (Slurm takes any
 * other value as set). */
static bool env_true(const char *v)
{
	return v && strcmp(v, "0") && strcasecmp(v, "no") && strcasecmp(v, "false");
}

/* ---- the plain kinds ---------------------------------------------------- */

static int p_str(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	return put(o, r, json_string(arg ? arg : ""), err);
}

/* A flag; from a variable, set unless the value says no. */
static int p_flag(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	if (o->var && !env_true(arg))
		return JOBOPT_OK;
	return put(o, r, json_true(), err);
}

/* Accepted and ignored: what the row's comment says Slurm does here. */
static int p_ignore(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	return JOBOPT_OK;
}

/* A count of 1 or more; Slurm's parse_int is fatal (exit 1). */
static int p_count(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n < 1 || n > INT32_MAX) {
		errprintf(err, "Invalid numeric value \"%s\" for --%s.", arg ? arg : "", r->name);
		return JOBOPT_FATAL;
	}
	return put(o, r, json_integer(n), err);
}

/* A count of 0 or more (srun --wait, -r). */
static int p_count0(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n > INT32_MAX) {
		errprintf(err, "Invalid numeric value \"%s\" for --%s.", arg ? arg : "", r->name);
		return JOBOPT_FATAL;
	}
	return put(o, r, json_integer(n), err);
}

/* A size in MB, with Slurm's suffixes (--tmp). */
static int p_size(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	uint64_t mb;
	if (parse_size_mb(arg, &mb) < 0)
		return errprintf(err, "Invalid --%s specification", r->name);
	return put(o, r, json_integer((json_int_t)mb), err);
}

/* A duration in Slurm's time forms, into seconds (--delay-boot, --time-min). */
static int p_duration(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	int64_t seconds;
	if (parse_time_limit(arg, &seconds) < 0)
		return errprintf(err, "Invalid --%s specification", r->name);
	return put(o, r, json_integer(seconds), err);
}

/* ---- values with their own reading -------------------------------------- */

/* sbatch(1): "A time limit of zero requests that no time limit be
 * imposed" -- the same as UNLIMITED. */
static int p_time(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	int64_t seconds;
	if (parse_time_limit(arg, &seconds) < 0)
		return errprintf(err, "Invalid --time specification");
	return put(o, r, json_integer(seconds == 0 ? TIME_INFINITE : seconds), err);
}

/* -N min[-max]: a range gives max_nodes too. */
static int p_nodes(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	const char *s = arg ? arg : "";
	char *min_text = xstrndup(s, strcspn(s, "-"));
	const char *dash = strchr(s, '-');
	long min, max = 0;
	int bad = opt_count(min_text, &min) < 0 || min > INT32_MAX ||
		  (dash && (opt_count(dash + 1, &max) < 0 || max > INT32_MAX));
	free(min_text);
	if (bad)
		return errprintf(err, "\"%s\" is not a valid node count", s);
	if (min < 1) {
		/* Slurm's controller refuses -N 0 with this sentence; srun's own */
		if (o->cmd != JOBOPT_SBATCH)
			return errprintf(err, "Invalid node count specification");
		errprintf(err, "Batch job submission failed: Node count specification invalid");
		return JOBOPT_FATAL;
	}
	if (dash && max < min)
		return errprintf(err, "Maximum node count %ld is less than minimum node count %ld",
				 max, min);
	json_object_set_new(o->spec, "nodes", json_integer(min));
	if (dash && max > min)
		json_object_set_new(o->spec, "max_nodes", json_integer(max));
	else
		json_object_del(o->spec, "max_nodes");
	return JOBOPT_OK;
}

/* --mem and --mem-per-cpu: both from one source is Slurm's fatal error; a
 * later source (the command line over #SBATCH) replaces the other. */
static int p_mem(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	uint64_t mb;
	bool per_cpu = !strcmp(r->key, "mem_per_cpu");
	if (parse_size_mb(arg, &mb) < 0)
		return errprintf(err, "Invalid --%s specification", r->name);
	int other = per_cpu ? o->mem_pass : o->mem_per_cpu_pass;
	if (other && other == (int)o->pass) {
		o->fatal = true;
		errprintf(err, "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
		return JOBOPT_FATAL;
	}
	json_object_del(o->spec, per_cpu ? "mem_mb" : "mem_per_cpu");
	json_object_set_new(o->spec, r->key, json_integer((json_int_t)mb));
	o->mem_pass = per_cpu ? 0 : o->pass;
	o->mem_per_cpu_pass = per_cpu ? o->pass : 0;
	return JOBOPT_OK;
}

/* --begin, --deadline: local time here, relative to now; the controller
 * gets seconds.  Slurm's time parser says where, unprefixed, first. */
static int p_when(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	time_t t;
	if (opt_time_parse(arg, o->now ? o->now : time(NULL), false, &t) < 0) {
		if (arg && *arg) {
			char line[512];
			snprintf(line, sizeof(line), "Invalid time specification (pos=%d): %s",
				 opt_time_error_pos(arg), arg);
			note_line(o, line);
		}
		return errprintf(err, "Invalid --%s specification", r->name);
	}
	return put(o, r, json_integer(t), err);
}

/* The syntax here; the controller checks MaxArraySize.  Slurm's controller
 * refuses a bad spec, so the sentence and exit code (1) are those of a
 * refused submission.  No task ID reaches the hard limit of MaxArraySize
 * (4000001): a bigger one would cost a bit set of half a gigabyte here. */
static int p_array(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	struct bitmap *tasks;
	uint32_t throttle;
	if (parse_array_spec(arg, 4000001, &tasks, &throttle) < 0) {
		errprintf(err, "Batch job submission failed: %s",
			  herd_strerror(HERD_ERR_INVALID_ARRAY));
		return JOBOPT_FATAL;
	}
	bitmap_destroy(tasks);
	return put(o, r, json_string(arg), err);
}

static int p_yes_no(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	if (arg && !strcasecmp(arg, "yes"))
		return put(o, r, json_true(), err);
	if (arg && !strcasecmp(arg, "no"))
		return put(o, r, json_false(), err);
	return errprintf(err, "Invalid --%s specification", r->name);
}

/* --requeue / --no-requeue: one key. */
static int p_requeue(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err)
{
	return put(o, r, json_boolean(!strcmp(r->name, "requeue")), err);
}

/* --exclusive[=user|mcs]: whole nodes; "user" (nodes shared only among the
 * user's jobs) and "mcs" (among the MCS label's) travel as exclusive_mode
 * with exclusive set, so a controller that knows only whole-node
 * exclusivity gives at least what was asked.  From a variable the value
 * is not read (Slurm's SBATCH_EXCLUSIVE). */
static int p_exclusive(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	if (o->var)
		return env_true(arg) ? put(o, r, json_true(), err) : JOBOPT_OK;
	if (arg && *arg && strcasecmp(arg, "user") && strcasecmp(arg, "mcs"))
		return errprintf(err, "Invalid --exclusive specification");
	if (arg && *arg)
		json_object_set_new(o->spec, "exclusive_mode", json_string(arg));
	else
		json_object_del(o->spec, "exclusive_mode");
	return put(o, r, json_true(), err);
}

static int p_nodelist(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	char *list = opt_nodelist_arg(arg);
	if (!list)
		return errprintf(err, "Invalid node list file %s", arg);
	int rc = put(o, r, json_string(list), err);
	free(list);
	return rc;
}

/* -F/--nodefile: always a file of node names (blanks, commas or lines
 * between them), the same as -w with a file. */
static int p_nodefile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	char *path = strchr(arg, '/') ? xstrdup(arg) : xasprintf("./%s", arg);
	char *list = opt_nodelist_arg(path);
	free(path);
	if (!list || !*list) {
		free(list);
		return errprintf(err, "Invalid --nodefile specification: %s", arg);
	}
	int rc = put(o, r, json_string(list), err);
	free(list);
	return rc;
}

static int p_nice(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	long long nice = 100;   /* sbatch(1): --nice without a value */
	int rc = arg ? opt_nice_parse(arg, &nice) : 0;
	if (rc == -2)
		return errprintf(err, "Nice value out of range (+/- 2147483645)");
	if (rc < 0)
		return errprintf(err, "Invalid --nice value: %s", arg);
	return put(o, r, json_integer(nice), err);
}

static int p_mail_type(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	unsigned mask;
	char text[256];
	if (parse_mail_type(arg, &mask) < 0)
		return errprintf(err, "Invalid --mail-type specification");
	return put(o, r, json_string(fmt_mail_type(mask, text, sizeof(text))), err);
}

/* Slurm looks at the first letter only. */
static int p_open_mode(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	if (arg && (*arg == 'a' || *arg == 'A'))
		return put(o, r, json_string("append"), err);
	if (arg && (*arg == 't' || *arg == 'T'))
		return put(o, r, json_string("truncate"), err);
	return errprintf(err, "Invalid --open-mode specification");
}

static int p_signal(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	int sig, secs;
	char flag, flags[2] = "";
	if (opt_signal_spec_parse(arg, &sig, &secs, &flag) < 0)
		return errprintf(err, "Invalid --signal specification");
	flags[0] = flag;
	json_object_set_new(o->spec, "signal", json_integer(sig));
	json_object_set_new(o->spec, "signal_time", json_integer(secs));
	json_object_set_new(o->spec, "signal_flags", json_string(flags));
	return JOBOPT_OK;
}

/* -v; from SBATCH_DEBUG "1" one more, from SLURM_DEBUG/SALLOC_DEBUG the level. */
static int p_verbose(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err)
{
	long n;
	if (!o->var)
		o->verbose++;
	else if (o->cmd == JOBOPT_SBATCH)
		o->verbose += !strcmp(arg, "1");
	else if (opt_count(arg, &n) == 0)
		o->verbose = (int)n;
	return JOBOPT_OK;
}

static int p_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	o->info = r->name;
	return JOBOPT_INFO;
}

/* -m: every Slurm form (srun_dist_parse), sent as typed; srun's step takes
 * its node part. */
static int p_distribution(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	char node[32], plane[48];
	/* Slurm writes -m plane=N into the job's environment as
	 * SLURM_DISTRIBUTION=plane and SLURM_DIST_PLANESIZE=N; srun reads it back */
	const char *size = getenv("SLURM_DIST_PLANESIZE");
	if (!strcasecmp(arg, "plane") && size && strlen(size) < 16) {
		snprintf(plane, sizeof(plane), "plane=%s", size);
		arg = plane;
	}
	if (srun_dist_parse(arg, node, sizeof(node), err) < 0)
		return JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

static int p_cpu_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	if (srun_cpu_bind_check(arg, err) < 0)
		return JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

static int p_mpi(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	if (!strcasecmp(arg, "list")) {
		o->info = "mpi-list";
		return JOBOPT_INFO;
	}
	if (srun_mpi_check(arg, err) < 0)
		return JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

/* srun -i: "all", "none", a task number, or a file pattern. */
static int p_srun_input(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			struct herd_error *err)
{
	const char *pattern = NULL;
	int task = 0;
	srun_input_parse(arg, &task, &pattern);
	json_object_set_new(o->local, "stdin_task", json_integer(task));
	if (!pattern) {
		json_object_del(o->local, "input");
		return JOBOPT_OK;
	}
	return put(o, r, json_string(pattern), err);
}

/* salloc -K[signal]: no signal named is salloc(1)'s default, SIGHUP on a
 * terminal, SIGTERM otherwise, chosen when it is sent (0 here). */
static int p_kill_command(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	int sig = 0;
	if (arg && *arg && (sig = opt_signal_parse(arg)) < 0)
		return errprintf(err, "Invalid --kill-command specification");
	return put(o, r, json_integer(sig), err);
}

/* srun -K, -K1, --kill-on-bad-exit[=0|1]; SLURM_KILL_BAD_EXIT=0|1 */
static int p_kill_bad_exit(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			   struct herd_error *err)
{
	long n = 1;
	if (arg && *arg && opt_count(arg, &n) < 0)
		return errprintf(err, "Invalid --kill-on-bad-exit specification");
	return put(o, r, json_integer(n != 0), err);
}

/* -I[secs]: a bad value from a variable is "at once". */
static int p_immediate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	long n = 0;
	if (arg && *arg && opt_count(arg, &n) < 0) {
		if (!o->var)
			return errprintf(err, "Invalid --immediate specification");
		n = 0;
	}
	return put(o, r, json_integer(n), err);
}

static int p_jobid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n < 1)
		return errprintf(err, "Invalid numeric value \"%s\" for --jobid.", arg ? arg : "");
	return put(o, r, json_integer(n), err);
}

/* -k/--no-kill[=off] */
static int p_no_kill(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err)
{
	if (o->var)
		return put(o, r, json_boolean(env_true(arg)), err);
	if (arg && *arg && strcasecmp(arg, "off") && strcasecmp(arg, "on"))
		return errprintf(err, "Invalid --no-kill specification");
	return put(o, r, json_boolean(!arg || !*arg || !strcasecmp(arg, "on")), err);
}

/* Is every comma-separated word of s one of words (a word ending in ':'
 * takes any value after it)?  The first that is not, into bad. */
static bool words_ok(const char *s, const char *const *words, char *bad, size_t len)
{
	size_t n;
	char **items = opt_split(s, ',', &n);
	bool ok = n > 0;
	for (size_t i = 0; ok && i < n; i++) {
		bool known = false;
		for (size_t w = 0; words[w] && !known; w++) {
			size_t wl = strlen(words[w]);
			known = words[w][wl - 1] == ':' ? !strncasecmp(items[i], words[w], wl)
							: !strcasecmp(items[i], words[w]);
		}
		if (!known) {
			snprintf(bad, len, "%s", items[i]);
			ok = false;
		}
	}
	if (n == 0)
		snprintf(bad, len, "%s", s);
	opt_strv_free(items);
	return ok;
}

/* --hint (srun(1)): Slurm exits 1 on a word it does not know. */
static int p_hint(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	static const char *const words[] = { "compute_bound", "memory_bound", "multithread",
					     "nomultithread", NULL };
	char bad[128];
	if (!strcasecmp(arg, "help")) {
		o->info = "hint-help";
		return JOBOPT_INFO;
	}
	if (!words_ok(arg, words, bad, sizeof(bad))) {
		errprintf(err, "unrecognized --hint argument \"%s\", see --hint=help", bad);
		return JOBOPT_FATAL;
	}
	return put(o, r, json_string(arg), err);
}

/* --mem-bind: Slurm's reading (common/taskopt.c); help prints the words. */
static int p_mem_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	struct mem_bind m;
	if (mem_bind_parse(arg, &m, err) < 0)
		return JOBOPT_ERROR;
	if (m.help) {
		o->info = "mem-bind-help";
		return JOBOPT_INFO;
	}
	return put(o, r, json_string(arg), err);
}

/* --cpu-freq=p1[-p2[:p3]]: a frequency in kHz or low, medium, high,
 * highm1; a governor by name.  Herd has no frequency control: the job and
 * its steps carry it (cpu_freq) for what does. */
static int p_cpu_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	static const char *const words[] = { "low", "medium", "high", "highm1", "conservative",
					     "ondemand", "performance", "powersave", "userspace",
					     "schedutil", NULL };
	char *copy = xstrdup(arg), *save = NULL;
	bool ok = *copy != '\0';
	for (char *w = strtok_r(copy, "-:", &save); ok && w; w = strtok_r(NULL, "-:", &save)) {
		long n;
		char bad[64];
		ok = opt_count(w, &n) == 0 || words_ok(w, words, bad, sizeof(bad));
	}
	free(copy);
	if (!ok) {
		note(o, "unrecognized --cpu-freq argument \"%s\"", arg);
		return errprintf(err, "Invalid --cpu-freq argument");
	}
	return put(o, r, json_string(arg), err);
}

/* --acctg-freq: <datatype>=<interval>,... (task, energy, network,
 * filesystem) or a bare interval (task's).  Carried as acctg_freq. */
static int p_acctg_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			struct herd_error *err)
{
	static const char *const types[] = { "task=", "energy=", "network=", "filesystem=", NULL };
	size_t n;
	char **items = opt_split(arg, ',', &n);
	bool ok = n > 0;
	for (size_t i = 0; ok && i < n; i++) {
		const char *value = items[i];
		for (size_t t = 0; types[t]; t++)
			if (!strncasecmp(items[i], types[t], strlen(types[t])))
				value = items[i] + strlen(types[t]);
		long secs;
		ok = opt_count(value, &secs) == 0 && (value != items[i] || n == 1);
	}
	opt_strv_free(items);
	if (!ok)
		return errprintf(err, "Invalid --acctg-freq specification: %s", arg);
	return put(o, r, json_string(arg), err);
}

/* --profile: all, none, or energy, lustre, network, task.  No
 * acct_gather_profile plugin here: Slurm then records nothing, so does Herd
 * (the job carries the request). */
static int p_profile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err)
{
	static const char *const words[] = { "all", "none", "energy", "lustre", "network", "task",
					     NULL };
	char bad[128];
	if (!words_ok(arg, words, bad, sizeof(bad)))
		return errprintf(err, "invalid --profile=%s option", arg);
	return put(o, r, json_string(arg), err);
}

/* --propagate[=list]: "" (bare) is every limit; names in upper case, as Slurm. */
static int p_propagate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	unsigned mask;
	struct herd_error why;
	if (arg && *arg && rlimit_list_parse(arg, &mask, &why) < 0) {
		note(o, "%s", why.text);
		errprintf(err, "--propagate=%s is not valid.", arg);
		return JOBOPT_FATAL;
	}
	return put(o, r, json_string(arg ? arg : ""), err);
}

/* --get-user-env[=timeout][S|L] */
static int p_get_user_env(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	const char *s = arg ? arg : "";
	int timeout;
	char mode;
	if (get_user_env_parse(s, &timeout, &mode, err) < 0)
		return JOBOPT_ERROR;
	return put(o, r, json_string(s), err);
}

/* -B S[:C[:T]]: each part a count, a min-max range (its minimum) or '*'. */
static int p_extra_node_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			     struct herd_error *err)
{
	static const char *const keys[] = { "sockets_per_node", "cores_per_socket",
					    "threads_per_core" };
	static const char *const nth[] = { "first", "second", "third" };
	size_t n;
	char **parts = opt_split(arg, ':', &n);
	int rc = JOBOPT_OK;
	if (n == 0 || n > 3) {
		errprintf(err, "Invalid --extra-node-info specification");
		rc = JOBOPT_ERROR;
	}
	for (size_t i = 0; rc == JOBOPT_OK && i < n; i++) {
		if (!strcmp(parts[i], "*"))
			continue;
		char *min_text = xstrndup(parts[i], strcspn(parts[i], "-"));
		long v;
		if (opt_count(min_text, &v) < 0 || v < 1 || v > INT32_MAX) {
			errprintf(err, "Invalid numeric value \"%s\" for %s arg of -B.", parts[i], nth[i]);
			rc = JOBOPT_FATAL;
		} else {
			json_object_set_new(o->spec, keys[i], json_integer(v));
		}
		free(min_text);
	}
	opt_strv_free(parts);
	return rc;
}

/* --priority: TOP or a number (the controller decides who may). */
static int p_priority(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	long n;
	if (strcasecmp(arg, "TOP") && opt_count(arg, &n) < 0)
		return errprintf(err, "Invalid --priority specification");
	return put(o, r, json_string(arg), err);
}

/* --uid/--gid: a name or a number.  Slurm lets only root submit for
 * another user (the controller checks the submitter too). */
static int p_uid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	uid_t uid;
	if (getuid() != 0)
		return errprintf(err, "--uid only permitted by root user");
	if (opt_user_parse(arg, &uid) < 0)
		return errprintf(err, "Invalid --uid specification");
	return put(o, r, json_integer(uid), err);
}

static int p_gid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	long n;
	if (getuid() != 0)
		return errprintf(err, "--gid only permitted by root user");
	struct group *g = getgrnam(arg);
	if (g)
		return put(o, r, json_integer(g->gr_gid), err);
	if (opt_count(arg, &n) < 0)
		return errprintf(err, "Invalid --gid specification");
	return put(o, r, json_integer(n), err);
}

/* --power: Slurm knows one flag, "level"; any other it names and ignores. */
static int p_power(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	if (strcasecmp(arg, "level")) {
		note(o, "Ignoring unrecognized power option (%s)", arg);
		return JOBOPT_OK;
	}
	return put(o, r, json_string(arg), err);
}

/* -S/--core-spec, --thread-spec: with AllowSpecResourcesUsage off (Herd has
 * no specialized resources) Slurm says so and submits without them. */
static int p_spec_resources(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			    struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n > INT32_MAX) {
		errprintf(err, "Invalid numeric value \"%s\" for --%s.", arg, r->name);
		return JOBOPT_FATAL;
	}
	note(o, "Ignoring %s since it's not allowed by configuration (AllowSpecResourcesUsage = No)",
	     r->letter ? "-S" : "--thread-spec");
	return JOBOPT_OK;
}

/* --wait-all-nodes=0|1 */
static int p_zero_one(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	if (!arg || (strcmp(arg, "0") && strcmp(arg, "1")))
		return errprintf(err, "Invalid --%s specification", r->name);
	return put(o, r, json_boolean(*arg == '1'), err);
}

/* --oom-kill-step[=0|1]: bare is 1 */
static int p_zero_one_opt(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	return p_zero_one(o, r, arg && *arg ? arg : "1", err);
}

/* --external-launcher: an --overlap step */
static int p_external_launcher(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			       struct herd_error *err)
{
	json_object_set_new(o->local, "overlap", json_true());
	return JOBOPT_OK;
}

/* GPU and GRES options: this cluster has no generic resources (issue 16
 * brings them); Slurm's controller refuses a job asking for what no node
 * has with this sentence. */
static int p_gres(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	if (arg && !strcasecmp(arg, "none") && !strcmp(r->name, "gres"))
		return JOBOPT_OK;   /* Slurm: --gres=none asks for none (steps use it) */
	note(o, "--%s: this cluster has no GPUs or other generic resources (GresTypes)", r->name);
	errprintf(err, "Invalid generic resource (gres) specification");
	return JOBOPT_FATAL;
}

/* Network topology options (issue 17 brings them): refused, never dropped. */
static int p_topology(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	errprintf(err, "--%s needs a network topology (TopologyPlugin), which this cluster has not",
		  r->name);
	return JOBOPT_FATAL;
}

/* --bbf: the file's text is the burst buffer request (read here, as Slurm). */
static int p_bbf(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	FILE *f = fopen(arg, "r");
	char buf[8192];
	size_t n = 0;
	if (!f)
		return errprintf(err, "Unable to open file %s", arg);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return put(o, r, json_string(buf), err);
}

/* --x11: Herd forwards no X11 connections: Slurm's words without a
 * display, else those of a cluster without PrologFlags=X11. */
static int p_x11(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	if (!getenv("DISPLAY"))
		errprintf(err, "No DISPLAY variable set, cannot setup x11 forwarding.");
	else
		errprintf(err, "X11 forwarding not enabled by the cluster's configuration "
			  "(PrologFlags=X11)");
	return JOBOPT_ERROR;
}

/* ---- the table ---------------------------------------------------------- */

const struct jobopt_row jobopt_table[] = {
	/* srun --accel-bind: no GPUs or MICs here, so nothing to bind to */
	{ "accel-bind", 0, REQ, R, NULL, NULL, p_ignore, "=<g|m|n|v>",
	  "bind tasks to accelerators near them (none here)" },
	{ "account", 'A', REQ, ALL, "SBATCH_ACCOUNT SALLOC_ACCOUNT SLURM_ACCOUNT", "account", p_str,
	  "=name", "charge job to specified account" },
	{ "acctg-freq", 0, REQ, ALL, "SBATCH_ACCTG_FREQ SALLOC_ACCTG_FREQ SLURM_ACCTG_FREQ",
	  "acctg_freq", p_acctg_freq, "=<datatype>=<interval>",
	  "sampling intervals of accounting (task, energy,\nnetwork, filesystem)" },
	{ "array", 'a', REQ, B, "SBATCH_ARRAY_INX", "array", p_array, "=indexes",
	  "job array index values" },
	/* --batch: the controller checks it against the constraints */
	{ "batch", 0, REQ, B, "SBATCH_BATCH", "batch_features", p_str, "=list",
	  "features the batch host must have" },
	/* no burst buffer plugin: Slurm takes the request and does nothing; it is kept */
	{ "bb", 0, REQ, ALL, "SALLOC_BURST_BUFFER SLURM_BURST_BUFFER", "burst_buffer", p_str,
	  "=<spec>", "burst buffer specifications" },
	{ "bbf", 0, REQ, ALL, NULL, "burst_buffer", p_bbf, "=<file_name>",
	  "burst buffer specification file" },
	/* --bcast and what goes with it: Herd's nodes run the program from where
	 * it is (one file system); Slurm's copy would be the same file */
	{ "bcast", 0, OPTL, R, "SLURM_BCAST", NULL, p_str, "[=<dest_path>]",
	  "copy the program to the nodes first" },
	{ "bcast-exclude", 0, REQ, R, "SLURM_BCAST_EXCLUDE", NULL, p_str, "=<paths>",
	  "library paths --send-libs leaves out" },
	{ "begin", 'b', REQ, ALL, NULL, "begin_time", p_when, "=time",
	  "defer job until HH:MM MM/DD/YY" },
	{ "bell", 0, NO, A, "SALLOC_BELL", NULL, p_flag, "", "ring the terminal bell when allocated" },
	{ "chdir", 'D', REQ, ALL, "SLURM_WORKING_DIR", NULL, p_str, "=directory",
	  "working directory of the job (salloc: of the command)" },
	/* -M: the cluster this one is; another is the lead's (issue 15) */
	{ "clusters", 'M', REQ, ALL, "SLURM_CLUSTERS SBATCH_CLUSTERS SALLOC_CLUSTERS", NULL, p_str,
	  "=names", "Comma separated list of clusters to issue\ncommands to" },
	{ "cluster", 0, REQ, ALL, NULL, NULL, p_str, "=names", NULL },
	/* one cluster, no federation: Slurm keeps and ignores it there */
	{ "cluster-constraint", 0, REQ, ALL, NULL, "cluster_constraint", p_str, "=[!]list",
	  "federation cluster features to run on" },
	{ "comment", 0, REQ, ALL, NULL, "comment", p_str, "=name", "arbitrary comment" },
	{ "compress", 0, OPTL, R, "SLURM_COMPRESS", NULL, p_ignore, "[=library]",
	  "compress what --bcast copies" },
	{ "constraint", 'C', REQ, ALL, "SBATCH_CONSTRAINT SALLOC_CONSTRAINT SLURM_CONSTRAINT",
	  "constraint", p_str, "=list", "specify a list of constraints" },
	{ "container", 0, REQ, ALL, "SBATCH_CONTAINER SALLOC_CONTAINER SRUN_CONTAINER", "container",
	  p_str, "=path", "Path to OCI container bundle" },
	/* Slurm 23.02: the OCI container's ID, with --container */
	{ "container-id", 0, REQ, ALL, "SBATCH_CONTAINER_ID SALLOC_CONTAINER_ID SRUN_CONTAINER_ID",
	  "container_id", p_str, "=id", "ID of the OCI container to run in" },
	{ "contiguous", 0, NO, ALL, NULL, "contiguous", p_flag, "",
	  "nodes next to each other in the node list" },
	{ "core-spec", 'S', REQ, ALL, "SBATCH_CORE_SPEC SALLOC_CORE_SPEC SLURM_CORE_SPEC", NULL,
	  p_spec_resources, "=cores", "count of reserved cores" },
	{ "cores-per-socket", 0, REQ, ALL, NULL, "cores_per_socket", p_count, "=C",
	  "number of cores per socket to allocate" },
	{ "cpu-bind", 0, REQ, R, "SLURM_CPU_BIND", NULL, p_cpu_bind, "=...",
	  "bind tasks to CPUs (none, rank, map_cpu:,\nmask_cpu:, sockets, cores, threads, ldoms)" },
	{ "cpu_bind", 0, REQ, R, NULL, NULL, p_cpu_bind, "=...", NULL },
	{ "cpu-freq", 0, REQ, ALL, "SBATCH_CPU_FREQ_REQ SALLOC_CPU_FREQ_REQ SLURM_CPU_FREQ_REQ",
	  "cpu_freq", p_cpu_freq, "=min[-max[:gov]]", "CPU frequency (and governor) to run at" },
	{ "cpus-per-gpu", 0, REQ, ALL, "SBATCH_CPUS_PER_GPU SALLOC_CPUS_PER_GPU SLURM_CPUS_PER_GPU",
	  NULL, p_gres, "=n", "CPUs per allocated GPU (no GPUs here)" },
	{ "cpus-per-task", 'c', REQ, ALL, "SRUN_CPUS_PER_TASK", "cpus_per_task", p_count, "=ncpus",
	  "number of cpus required per task" },
	{ "deadline", 0, REQ, ALL, NULL, "deadline", p_when, "=time",
	  "remove the job if no ending possible before\n"
	  "this deadline (start > (deadline - time[-min]))" },
	{ "delay-boot", 0, REQ, ALL, "SBATCH_DELAY_BOOT SALLOC_DELAY_BOOT SLURM_DELAY_BOOT",
	  "delay_boot", p_duration, "=mins", "wait this long before rebooting nodes for features" },
	{ "dependency", 'd', REQ, ALL, "SLURM_DEPENDENCY", "dependency", p_str,
	  "=type:jobid[:time]", "defer job until condition on jobid is satisfied" },
	{ "disable-status", 'X', NO, R, "SLURM_DISABLE_STATUS", NULL, p_flag, "",
	  "Disable Ctrl-C status feature" },
	{ "distribution", 'm', REQ, ALL,
	  "SBATCH_DISTRIBUTION SALLOC_DISTRIBUTION SLURM_DISTRIBUTION", "distribution",
	  p_distribution, "=type", "distribution method for processes to nodes\n"
	  "(type = block|cyclic|plane=N|arbitrary)" },
	/* srun runs them itself, before and after the step (srun(1)) */
	{ "epilog", 0, REQ, R, "SLURM_EPILOG", NULL, p_str, "=program",
	  "run program after the step ends" },
	{ "error", 'e', REQ, B, "SBATCH_ERROR", "stderr", p_str, "=err",
	  "file for batch script's standard error" },
	{ "error", 'e', REQ, R, "SLURM_STDERRMODE", NULL, p_str, "=err",
	  "location of stderr redirection" },
	{ "exact", 0, NO, R, "SLURM_EXACT", NULL, p_flag, "",
	  "use only the resources requested for the step" },
	{ "exclude", 'x', REQ, ALL, NULL, "exc_nodelist", p_nodelist, "=hosts...",
	  "exclude a specific list of hosts" },
	/* Slurm 23.11: a step for a launcher (mpirun's) in an allocation: it
	 * shares the resources, as --overlap does */
	{ "external-launcher", 0, NO, R, NULL, NULL, p_external_launcher, "",
	  "a step of an external launcher (shares resources)" },
	{ "exclusive", 0, OPTL, ALL, "SBATCH_EXCLUSIVE SALLOC_EXCLUSIVE SLURM_EXCLUSIVE",
	  "exclusive", p_exclusive, "[=user|mcs]",
	  "allocate nodes in exclusive mode (user: the\nuser's jobs may share them)" },
	{ "export", 0, REQ, B | R, "SBATCH_EXPORT SLURM_EXPORT_ENV SRUN_EXPORT_ENV", NULL, p_str,
	  "[=names]", "environment variables passed to the job\n(ALL, NONE, or names)" },
	{ "export-file", 0, REQ, B, NULL, NULL, p_str, "=file|fd",
	  "more variables for the job from a file (or fd)" },
	{ "extra-node-info", 'B', REQ, ALL, NULL, NULL, p_extra_node_info, "=S[:C[:T]]",
	  "sockets per node, cores per socket, threads per core" },
	{ "get-user-env", 0, OPTL, B | A, "SBATCH_GET_USER_ENV", "get_user_env", p_get_user_env,
	  "[=timeout][mode]", "the job's environment from the user's login" },
	{ "gid", 0, REQ, B | A, NULL, "gid", p_gid, "=group_id",
	  "group ID to run job as (user root only)" },
	{ "gpu-bind", 0, REQ, ALL, "SBATCH_GPU_BIND SALLOC_GPU_BIND SLURM_GPU_BIND", NULL, p_gres,
	  "=...", "task to GPU binding (no GPUs here)" },
	{ "gpu-freq", 0, REQ, ALL, "SBATCH_GPU_FREQ SALLOC_GPU_FREQ SLURM_GPU_FREQ", NULL, p_gres,
	  "=...", "GPU frequency (no GPUs here)" },
	{ "gpus", 'G', REQ, ALL, "SBATCH_GPUS SALLOC_GPUS SLURM_GPUS", NULL, p_gres, "=n",
	  "count of GPUs (no GPUs here)" },
	{ "gpus-per-node", 0, REQ, ALL, "SBATCH_GPUS_PER_NODE SALLOC_GPUS_PER_NODE SLURM_GPUS_PER_NODE",
	  NULL, p_gres, "=n", "GPUs per node (no GPUs here)" },
	{ "gpus-per-socket", 0, REQ, ALL, NULL, NULL, p_gres, "=n", "GPUs per socket (no GPUs here)" },
	{ "gpus-per-task", 0, REQ, ALL, "SBATCH_GPUS_PER_TASK SALLOC_GPUS_PER_TASK SLURM_GPUS_PER_TASK",
	  NULL, p_gres, "=n", "GPUs per task (no GPUs here)" },
	{ "gres", 0, REQ, ALL, "SBATCH_GRES SALLOC_GRES SLURM_GRES", NULL, p_gres, "=list",
	  "generic resources (none here)" },
	{ "gres-flags", 0, REQ, ALL, "SBATCH_GRES_FLAGS SALLOC_GRES_FLAGS SLURM_GRES_FLAGS", NULL,
	  p_gres, "=opts", "generic resource flags (none here)" },
	/* --het-group: which components of a heterogeneous allocation a step
	 * runs in; outside one Slurm runs the step as if not given */
	{ "het-group", 0, REQ, R, NULL, NULL, p_str, "=value,...",
	  "the heterogeneous job's components to run in" },
	{ "help", 'h', NO, ALL, NULL, NULL, p_info, "", "show this help message" },
	{ "hint", 0, REQ, ALL, "SLURM_HINT SBATCH_HINT SALLOC_HINT", "hint", p_hint, "=hint",
	  "application hint: compute_bound, memory_bound,\nmultithread, nomultithread" },
	{ "hold", 'H', NO, ALL, NULL, "hold", p_flag, "", "submit job in held state" },
	{ "ignore-pbs", 0, NO, B, "SBATCH_IGNORE_PBS", NULL, p_flag, "",
	  "ignore #PBS lines in the batch script" },
	{ "immediate", 'I', OPTL, A | R, "SALLOC_IMMEDIATE SLURM_IMMEDIATE", NULL, p_immediate,
	  "[=secs]", "exit if resources not available in \"secs\"" },
	{ "input", 'i', REQ, B, "SBATCH_INPUT", "stdin", p_str, "=in",
	  "file for batch script's standard input" },
	{ "input", 'i', REQ, R, "SLURM_STDINMODE", NULL, p_srun_input, "=in",
	  "location of stdin redirection" },
	{ "jobid", 0, REQ, R, NULL, NULL, p_jobid, "=id", "run under already allocated job" },
	{ "job-name", 'J', REQ, ALL, "SBATCH_JOB_NAME SALLOC_JOB_NAME SLURM_JOB_NAME", "name", p_str,
	  "=jobname", "name of job" },
	{ "kill-command", 'K', OPTL, A, "SALLOC_KILL_CMD", NULL, p_kill_command, "[=signal]",
	  "signal to send terminating job" },
	{ "kill-on-bad-exit", 'K', OPTL, R, "SLURM_KILL_BAD_EXIT", NULL, p_kill_bad_exit, "[=0|1]",
	  "kill the job if any task terminates with a\nnon-zero exit code" },
	{ "kill-on-invalid-dep", 0, REQ, B, NULL, "kill_on_invalid_dep", p_yes_no, "=<yes|no>",
	  "kill job if dependency is never satisfied" },
	{ "label", 'l', NO, R, "SLURM_LABELIO", NULL, p_flag, "",
	  "prepend task number to lines of stdout/err" },
	{ "licenses", 'L', REQ, ALL, NULL, "licenses", p_str, "=names",
	  "licenses the job needs (name[:count],...)" },
	{ "mail-type", 0, REQ, ALL, NULL, "mail_type", p_mail_type, "=type",
	  "notify on state change: BEGIN, END, FAIL or ALL" },
	{ "mail-user", 0, REQ, ALL, NULL, "mail_user", p_str, "=user",
	  "who to send email notification for job state\nchanges" },
	/* no MCS plugin: Slurm keeps the label and enforces nothing */
	{ "mcs-label", 0, REQ, ALL, NULL, "mcs_label", p_str, "=mcs",
	  "MCS label (used by an MCS plugin)" },
	{ "mem", 0, REQ, ALL, "SBATCH_MEM_PER_NODE SALLOC_MEM_PER_NODE SLURM_MEM_PER_NODE", "mem_mb",
	  p_mem, "=MB", "minimum amount of real memory" },
	{ "mem-bind", 0, REQ, ALL, "SBATCH_MEM_BIND SALLOC_MEM_BIND SLURM_MEM_BIND", "mem_bind",
	  p_mem_bind, "=...", "bind memory to locality domains" },
	{ "mem_bind", 0, REQ, ALL, NULL, "mem_bind", p_mem_bind, "=...", NULL },
	{ "mem-per-cpu", 0, REQ, ALL, "SBATCH_MEM_PER_CPU SALLOC_MEM_PER_CPU SLURM_MEM_PER_CPU",
	  "mem_per_cpu", p_mem, "=MB", "maximum amount of real memory per allocated\n"
	  "cpu required by the job.\n--mem >= --mem-per-cpu if --mem is specified." },
	{ "mem-per-gpu", 0, REQ, ALL, "SBATCH_MEM_PER_GPU SALLOC_MEM_PER_GPU SLURM_MEM_PER_GPU", NULL,
	  p_gres, "=n", "memory per GPU (no GPUs here)" },
	{ "mincpus", 0, REQ, ALL, NULL, "mincpus", p_count, "=n",
	  "minimum number of logical processors per node" },
	{ "mpi", 0, REQ, R, "SLURM_MPI_TYPE", NULL, p_mpi, "=type",
	  "type of MPI being used (--mpi=list)" },
	{ "multi-prog", 0, NO, R, NULL, NULL, p_flag, "",
	  "if set the program name specified is the\n"
	  "configuration specification for multiple programs" },
	/* not a Cray: Slurm keeps it and does nothing with it */
	{ "network", 0, REQ, ALL, "SBATCH_NETWORK SALLOC_NETWORK SLURM_NETWORK", "network", p_str,
	  "=type", "network options (Cray systems)" },
	{ "nice", 0, OPTL, ALL, NULL, "nice", p_nice, "[=value]", "decrease scheduling priority by value" },
	{ "no-allocate", 'Z', NO, R, NULL, NULL, p_flag, "",
	  "run on the nodes of -w without an allocation\n(root or SlurmUser only)" },
	{ "no-bell", 0, NO, A, "SALLOC_NO_BELL", NULL, p_flag, "", "never ring the terminal bell" },
	{ "no-kill", 'k', OPTL, ALL, "SBATCH_NO_KILL SALLOC_NO_KILL SLURM_NO_KILL", "no_kill",
	  p_no_kill, "[=off]", "do not kill job on node failure" },
	{ "no-requeue", 0, NO, B, "SBATCH_NO_REQUEUE", "requeue", p_requeue, "",
	  "if set, do not permit the job to be requeued" },
	{ "no-shell", 0, NO, A, "SALLOC_NO_SHELL", NULL, p_flag, "",
	  "immediately exit after allocating resources,\nwithout running a command" },
	{ "nodefile", 'F', REQ, B | A, NULL, "req_nodelist", p_nodefile, "=filename",
	  "request the hosts listed in a file" },
	{ "nodelist", 'w', REQ, ALL, NULL, "req_nodelist", p_nodelist, "=hosts...",
	  "request a specific list of hosts" },
	{ "nodes", 'N', REQ, ALL, NULL, "nodes", p_nodes, "=N",
	  "number of nodes on which to run (N = min[-max])" },
	{ "ntasks", 'n', REQ, ALL, NULL, "ntasks", p_count, "=ntasks", "number of tasks to run" },
	{ "ntasks-per-core", 0, REQ, ALL, "SLURM_NTASKS_PER_CORE", "ntasks_per_core", p_count, "=n",
	  "number of tasks to invoke on each core" },
	{ "ntasks-per-gpu", 0, REQ, ALL, "SLURM_NTASKS_PER_GPU", NULL, p_gres, "=n",
	  "tasks per GPU (no GPUs here)" },
	{ "ntasks-per-node", 0, REQ, ALL, "SLURM_NTASKS_PER_NODE", "ntasks_per_node", p_count, "=n",
	  "number of tasks to invoke on each node" },
	{ "ntasks-per-socket", 0, REQ, ALL, "SLURM_NTASKS_PER_SOCKET", "ntasks_per_socket", p_count,
	  "=n", "number of tasks to invoke on each socket" },
	/* Slurm 24.11: whether one task's OOM ends the step; the job carries it */
	{ "oom-kill-step", 0, OPTL, ALL, "SBATCH_OOM_KILL_STEP SALLOC_OOM_KILL_STEP SLURM_OOM_KILL_STEP",
	  "oom_kill_step", p_zero_one_opt, "[=0|1]", "end the step when a task runs out of memory" },
	{ "open-mode", 0, REQ, B | R, "SBATCH_OPEN_MODE SLURM_OPEN_MODE", "open_mode", p_open_mode,
	  "={append|truncate}", "output and error files open mode" },
	{ "output", 'o', REQ, B, "SBATCH_OUTPUT", "stdout", p_str, "=out",
	  "file for batch script's standard output" },
	{ "output", 'o', REQ, R, "SLURM_STDOUTMODE", NULL, p_str, "=out",
	  "location of stdout redirection" },
	{ "overcommit", 'O', NO, ALL, "SBATCH_OVERCOMMIT SALLOC_OVERCOMMIT SLURM_OVERCOMMIT",
	  "overcommit", p_flag, "", "overcommit resources" },
	{ "overlap", 0, NO, R, "SLURM_OVERLAP", NULL, p_flag, "",
	  "share the step's resources with other steps" },
	{ "oversubscribe", 's', NO, ALL, NULL, "oversubscribe", p_flag, "",
	  "share nodes' CPUs with other jobs" },
	{ "parsable", 0, NO, B, NULL, NULL, p_flag, "", "outputs only the jobid" },
	{ "partition", 'p', REQ, ALL, "SBATCH_PARTITION SALLOC_PARTITION SLURM_PARTITION", "partition",
	  p_str, "=partition", "partition requested" },
	{ "power", 0, REQ, ALL, "SBATCH_POWER SALLOC_POWER SLURM_POWER", "power", p_power, "=flags",
	  "power management options" },
	{ "prefer", 0, REQ, ALL, NULL, "prefer", p_str, "=list",
	  "features preferred, not required" },
	/* -E: the node and task counts of the allocation over the options */
	{ "preserve-env", 'E', NO, R, NULL, NULL, p_flag, "",
	  "SLURM_NNODES and SLURM_NTASKS over -N and -n" },
	{ "priority", 0, REQ, ALL, NULL, "priority", p_priority, "=value",
	  "the job's priority (TOP or a number; operators)" },
	{ "profile", 0, REQ, ALL, "SBATCH_PROFILE SALLOC_PROFILE SLURM_PROFILE", "profile", p_profile,
	  "=value", "detailed profiling: all, none, or energy,\nlustre, network, task" },
	{ "prolog", 0, REQ, R, "SLURM_PROLOG", NULL, p_str, "=program",
	  "run program before the step starts" },
	{ "propagate", 0, OPTL, B | R, NULL, "propagate", p_propagate, "[=rlimits]",
	  "propagate all [or specific list of] rlimits" },
	{ "pty", 0, NO, R, NULL, NULL, p_flag, "", "run task zero in pseudo terminal" },
	{ "qos", 'q', REQ, ALL, "SBATCH_QOS SALLOC_QOS SLURM_QOS", "qos", p_str, "=qos",
	  "quality of service" },
	{ "quiet", 'Q', NO, ALL, NULL, NULL, p_flag, "",
	  "quiet mode (suppress informational messages)" },
	{ "quit-on-interrupt", 0, NO, R, NULL, NULL, p_flag, "", "quit on a single Ctrl-C" },
	/* no RebootProgram: the controller keeps the request (Slurm starts the
	 * job without a reboot then) */
	{ "reboot", 0, NO, ALL, NULL, "reboot", p_flag, "", "reboot nodes before starting job" },
	{ "relative", 'r', REQ, R, NULL, NULL, p_count0, "=n",
	  "run the step from node n of the allocation" },
	{ "requeue", 0, NO, B, "SBATCH_REQUEUE", "requeue", p_requeue, "",
	  "if set, permit the job to be requeued" },
	{ "reservation", 0, REQ, ALL, "SBATCH_RESERVATION SALLOC_RESERVATION SLURM_RESERVATION",
	  "reservation", p_str, "=name", "allocate resources from named reservation" },
	/* no MpiParams=ports: Slurm reserves none, and so here */
	{ "resv-ports", 0, OPTL, R, "SLURM_RESV_PORTS", NULL, p_ignore, "[=count]",
	  "reserve communication ports" },
	{ "send-libs", 0, OPTL, R, "SLURM_SEND_LIBS", NULL, p_ignore, "[=yes|no]",
	  "send the program's libraries with --bcast" },
	/* Slurm 24.11 and 25.05's block topology: issue 17 */
	{ "segment", 0, REQ, ALL, "SBATCH_SEGMENT_SIZE SALLOC_SEGMENT_SIZE SLURM_SEGMENT_SIZE", NULL,
	  p_topology, "=size", "nodes per topology segment (no topology here)" },
	/* --share: Slurm's older name of --oversubscribe */
	{ "share", 0, NO, ALL, NULL, "oversubscribe", p_flag, "", NULL },
	{ "signal", 0, REQ, ALL, "SBATCH_SIGNAL SALLOC_SIGNAL SLURM_SIGNAL", NULL, p_signal,
	  "=[[R|B]:]num[@time]", "send signal when time limit within time seconds" },
	/* herdd logs at its own level */
	{ "slurmd-debug", 0, REQ, R, NULL, NULL, p_ignore, "=level", "slurmd debug level" },
	{ "sockets-per-node", 0, REQ, ALL, NULL, "sockets_per_node", p_count, "=S",
	  "number of sockets per node to allocate" },
	{ "spread-segments", 0, NO, ALL, NULL, NULL, p_topology, "",
	  "segments across the topology (no topology here)" },
	{ "spread-job", 0, NO, ALL, "SBATCH_SPREAD_JOB SALLOC_SPREAD_JOB SLURM_SPREAD_JOB",
	  "spread_job", p_flag, "", "spread job across as many nodes as possible" },
	/* Slurm 24.05: the job's steps managed on its first node; here the
	 * controller manages every step, which is what this asks for anyway */
	{ "stepmgr", 0, NO, B | A, "SBATCH_STEPMGR SALLOC_STEPMGR", NULL, p_flag, "",
	  "manage the job's steps from its first node" },
	{ "switches", 0, REQ, ALL, "SBATCH_REQ_SWITCH SALLOC_REQ_SWITCH SLURM_REQ_SWITCH", NULL,
	  p_topology, "=count[@max-time]", "leaf switches the job may span (no topology here)" },
	{ "task-epilog", 0, REQ, R, "SLURM_TASK_EPILOG", NULL, p_str, "=program",
	  "run program after each task" },
	{ "task-prolog", 0, REQ, R, "SLURM_TASK_PROLOG", NULL, p_str, "=program",
	  "run program before each task" },
	/* --tasks-per-node: Slurm's other name of --ntasks-per-node */
	{ "tasks-per-node", 0, REQ, ALL, NULL, "ntasks_per_node", p_count, "=n", NULL },
	{ "test-only", 0, NO, ALL, NULL, "test_only", p_flag, "",
	  "validate the job, print when it would start; do\nnot submit it" },
	{ "thread-spec", 0, REQ, ALL, "SBATCH_THREAD_SPEC SALLOC_THREAD_SPEC SLURM_THREAD_SPEC", NULL,
	  p_spec_resources, "=threads", "count of reserved threads" },
	{ "threads", 'T', REQ, R, "SLURM_THREADS", NULL, p_count, "=threads",
	  "srun's launch fanout (the controller launches here)" },
	{ "threads-per-core", 0, REQ, ALL,
	  "SBATCH_THREADS_PER_CORE SALLOC_THREADS_PER_CORE SLURM_THREADS_PER_CORE",
	  "threads_per_core", p_count, "=T", "number of threads per core to allocate" },
	{ "time", 't', REQ, ALL, "SBATCH_TIMELIMIT SALLOC_TIMELIMIT SLURM_TIMELIMIT", "time_limit",
	  p_time, "=minutes", "time limit" },
	{ "time-min", 0, REQ, ALL, NULL, "time_min", p_duration, "=minutes",
	  "minimum time limit (if distinct)" },
	{ "tmp", 0, REQ, ALL, NULL, "tmp_mb", p_size, "=MB", "minimum amount of temporary disk" },
	{ "tres-bind", 0, REQ, ALL, NULL, NULL, p_gres, "=...", "task to TRES binding (no GRES here)" },
	{ "tres-per-task", 0, REQ, ALL, NULL, NULL, p_gres, "=list",
	  "TRES per task (no GRES here)" },
	{ "uid", 0, REQ, B | A, NULL, "uid", p_uid, "=user_id",
	  "user ID to run job as (user root only)" },
	{ "unbuffered", 'u', NO, R, "SLURM_UNBUFFEREDIO", NULL, p_flag, "",
	  "do not line-buffer stdout/err" },
	{ "usage", 0, NO, ALL, NULL, NULL, p_info, "", "display brief usage message" },
	{ "use-min-nodes", 0, NO, ALL, "SBATCH_USE_MIN_NODES SALLOC_USE_MIN_NODES SLURM_USE_MIN_NODES",
	  "use_min_nodes", p_flag, "", "of a range of node counts, prefer the smaller" },
	{ "verbose", 'v', NO, ALL, "SBATCH_DEBUG SALLOC_DEBUG SLURM_DEBUG", NULL, p_verbose, "",
	  "verbose mode (multiple -v's increase verbosity)" },
	{ "version", 'V', NO, ALL, NULL, NULL, p_info, "", "output version information and exit" },
	{ "wait", 'W', NO, B, "SBATCH_WAIT", NULL, p_flag, "", "wait for completion of submitted job" },
	{ "wait", 'W', REQ, R, "SLURM_WAIT", NULL, p_count0, "=sec",
	  "seconds to wait after first task exits\nbefore killing job" },
	{ "wait-all-nodes", 0, REQ, B | A, "SBATCH_WAIT_ALL_NODES SALLOC_WAIT_ALL_NODES",
	  "wait_all_nodes", p_zero_one, "=0|1", "start once every node is up (1) or at once (0)" },
	{ "wckey", 0, REQ, ALL, "SBATCH_WCKEY SALLOC_WCKEY SLURM_WCKEY", "wckey", p_str, "=wckey",
	  "wckey to run job under" },
	{ "wrap", 0, REQ, B, NULL, NULL, p_str, "[=command string]",
	  "wrap command string in a sh script and submit" },
	{ "x11", 0, OPTL, A | R, NULL, NULL, p_x11, "[=all|first|last]",
	  "forward X11 (not available here)" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL },
};
