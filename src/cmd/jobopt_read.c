/* The readers of the job-option table's values that need more than a
 * string, a flag or a count (jobopt_read.h; the table is jobopt_table.c).
 * Each says a decision where Herd's behaviour is not plain (what Slurm does
 * on a cluster configured as Herd's is).  The sentences are Slurm 22.05's
 * where it has one. */
#include <ctype.h>
#include <getopt.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/jobopt.h"
#include "cmd/jobopt_read.h"
#include "common/tres_req.h"
#include "cmd/opt.h"
#include "cmd/srun_opt.h"
#include "common/bitmap.h"
#include "common/taskopt.h"
#include "common/parse.h"
#include "common/xmalloc.h"

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

int p_str(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	return put(o, r, json_string(arg ? arg : ""), err);
}

/* A flag; from a variable, set unless the value says no. */
int p_flag(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	if (o->var && !env_true(arg))
		return JOBOPT_OK;
	return put(o, r, json_true(), err);
}

/* Accepted and ignored: what the row's comment says Slurm does here. */
int p_ignore(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	return JOBOPT_OK;
}

/* A count of 1 or more; Slurm's parse_int is fatal (exit 1). */
int p_count(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_count0(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_size(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	uint64_t mb;
	if (parse_size_mb(arg, &mb) < 0)
		return errprintf(err, "Invalid --%s specification", r->name);
	return put(o, r, json_integer((json_int_t)mb), err);
}

/* A duration in Slurm's time forms, into seconds (--delay-boot, --time-min). */
int p_duration(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_time(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	int64_t seconds;
	if (parse_time_limit(arg, &seconds) < 0)
		return errprintf(err, "Invalid --time specification");
	return put(o, r, json_integer(seconds == 0 ? TIME_INFINITE : seconds), err);
}

/* -N min[-max]: a range gives max_nodes too. */
int p_nodes(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_mem(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_when(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_array(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_yes_no(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	if (arg && !strcasecmp(arg, "yes"))
		return put(o, r, json_true(), err);
	if (arg && !strcasecmp(arg, "no"))
		return put(o, r, json_false(), err);
	return errprintf(err, "Invalid --%s specification", r->name);
}

/* --requeue / --no-requeue: one key. */
int p_requeue(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err)
{
	return put(o, r, json_boolean(!strcmp(r->name, "requeue")), err);
}

/* --exclusive[=user|mcs]: whole nodes; "user" (nodes shared only among the
 * user's jobs) and "mcs" (among the MCS label's) travel as exclusive_mode
 * with exclusive set, so a controller that knows only whole-node
 * exclusivity gives at least what was asked.  From a variable the value
 * is not read (Slurm's SBATCH_EXCLUSIVE). */
int p_exclusive(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_nodelist(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_nodefile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_nice(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_mail_type(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	unsigned mask;
	char text[256];
	if (parse_mail_type(arg, &mask) < 0)
		return errprintf(err, "Invalid --mail-type specification");
	return put(o, r, json_string(fmt_mail_type(mask, text, sizeof(text))), err);
}

/* Slurm looks at the first letter only. */
int p_open_mode(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err)
{
	if (arg && (*arg == 'a' || *arg == 'A'))
		return put(o, r, json_string("append"), err);
	if (arg && (*arg == 't' || *arg == 'T'))
		return put(o, r, json_string("truncate"), err);
	return errprintf(err, "Invalid --open-mode specification");
}

int p_signal(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_verbose(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	o->info = r->name;
	return JOBOPT_INFO;
}

/* -m: every Slurm form (srun_dist_parse), sent as typed; srun's step takes
 * its node part. */
int p_distribution(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_cpu_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	if (srun_cpu_bind_check(arg, err) < 0)
		return JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

int p_mpi(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_srun_input(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_kill_command(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	int sig = 0;
	if (arg && *arg && (sig = opt_signal_parse(arg)) < 0)
		return errprintf(err, "Invalid --kill-command specification");
	return put(o, r, json_integer(sig), err);
}

/* srun -K, -K1, --kill-on-bad-exit[=0|1]; SLURM_KILL_BAD_EXIT=0|1 */
int p_kill_bad_exit(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			   struct herd_error *err)
{
	long n = 1;
	if (arg && *arg && opt_count(arg, &n) < 0)
		return errprintf(err, "Invalid --kill-on-bad-exit specification");
	return put(o, r, json_integer(n != 0), err);
}

/* -I[secs]: a bad value from a variable is "at once". */
int p_immediate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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

int p_jobid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err)
{
	long n;
	if (opt_count(arg, &n) < 0 || n < 1)
		return errprintf(err, "Invalid numeric value \"%s\" for --jobid.", arg ? arg : "");
	return put(o, r, json_integer(n), err);
}

/* -k/--no-kill[=off] */
int p_no_kill(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_hint(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_mem_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_cpu_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_acctg_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_profile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_propagate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_get_user_env(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_extra_node_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_priority(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	long n;
	if (strcasecmp(arg, "TOP") && opt_count(arg, &n) < 0)
		return errprintf(err, "Invalid --priority specification");
	return put(o, r, json_string(arg), err);
}

/* --uid/--gid: a name or a number.  Slurm lets only root submit for
 * another user (the controller checks the submitter too). */
int p_uid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	uid_t uid;
	if (getuid() != 0)
		return errprintf(err, "--uid only permitted by root user");
	if (opt_user_parse(arg, &uid) < 0)
		return errprintf(err, "Invalid --uid specification");
	return put(o, r, json_integer(uid), err);
}

int p_gid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_power(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_spec_resources(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_zero_one(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	if (!arg || (strcmp(arg, "0") && strcmp(arg, "1")))
		return errprintf(err, "Invalid --%s specification", r->name);
	return put(o, r, json_boolean(*arg == '1'), err);
}

/* --oom-kill-step[=0|1]: bare is 1 */
int p_zero_one_opt(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err)
{
	return p_zero_one(o, r, arg && *arg ? arg : "1", err);
}

/* --slurmd-debug=level: 0-9 or SlurmdDebug's names (quiet .. debug5),
 * kept as the number. */
int p_debug_level(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err)
{
	static const char *names[] = { "quiet", "fatal", "error", "info", "verbose", "debug",
				       "debug2", "debug3", "debug4", "debug5" };
	for (int i = 0; i < 10; i++) {
		char num[4];
		snprintf(num, sizeof(num), "%d", i);
		if (!strcasecmp(arg, names[i]) || !strcmp(arg, num))
			return put(o, r, json_integer(i), err);
	}
	return errprintf(err, "Invalid --%s specification: %s", r->name, arg);
}

/* srun --whole: not --exact */
int p_whole(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	    struct herd_error *err)
{
	json_object_set_new(o->local, "exact", json_false());
	return JOBOPT_OK;
}

/* --external-launcher: an --overlap step */
int p_external_launcher(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			       struct herd_error *err)
{
	json_object_set_new(o->local, "overlap", json_true());
	return JOBOPT_OK;
}

/* ---- generic resources (doc/gres.md section 2) ---- */

/* items added to the request kept under key (JOBSPEC's tres_per_*) */
static int tres_add(struct jobopt *o, const char *key, const struct tres_item *items, int n,
		    struct herd_error *err)
{
	struct tres_item all[TRES_REQ_MAX];
	int have = tres_req_parse(json_string_value(json_object_get(o->spec, key)), all,
				  TRES_REQ_MAX, err);
	for (int i = 0; have >= 0 && i < n; i++)
		have = tres_req_put(all, have, TRES_REQ_MAX, &items[i]);
	if (have < 0)
		return errprintf(err, "Invalid generic resource (gres) specification"), JOBOPT_FATAL;
	char *text = tres_req_format(all, have);
	json_object_set_new(o->spec, key, json_string(text));
	free(text);
	return JOBOPT_OK;
}

/* --gres=list ("none": none, as Slurm's steps say it) */
int p_gres(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	   struct herd_error *err)
{
	struct tres_item items[TRES_REQ_MAX];
	if (!strcasecmp(arg, "none")) {   /* a step: none of the job's (srun(1)) */
		json_object_set_new(o->local, "gres_none", json_true());
		return JOBOPT_OK;
	}
	int n = tres_req_parse(arg, items, TRES_REQ_MAX, err);
	if (n < 0)
		return JOBOPT_FATAL;
	return tres_add(o, r->key, items, n, err);
}

/* --gpus, --gpus-per-node, -per-socket, -per-task: "[type:]count,..." */
int p_gpus(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	   struct herd_error *err)
{
	struct tres_item items[TRES_REQ_MAX];
	char *list = xstrdup(arg), *save = NULL;
	int n = 0;
	for (char *w = strtok_r(list, ",", &save); w && n >= 0; w = strtok_r(NULL, ",", &save)) {
		char *one = xasprintf("gpu:%s", w);
		struct tres_item t[1];
		int k = tres_req_parse(one, t, 1, err);
		free(one);
		n = k == 1 ? tres_req_put(items, n, TRES_REQ_MAX, t) : -1;
	}
	free(list);
	if (n <= 0)
		return errprintf(err, "Invalid generic resource (gres) specification"), JOBOPT_FATAL;
	return tres_add(o, r->key, items, n, err);
}

/* --tres-per-task=cpu:4,gres/gpu:1 (or cpu=4, gres/gpu=1): cpu sets -c */
int p_tres_per_task(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err)
{
	struct tres_item items[TRES_REQ_MAX];
	char *list = xstrdup(arg), *save = NULL;
	int n = 0, rc = JOBOPT_OK;
	for (char *w = strtok_r(list, ",", &save); w && rc == JOBOPT_OK; w = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(w, '=');
		if (eq)
			*eq = ':';
		if (!strncasecmp(w, "cpu:", 4)) {
			long cpus;
			if (opt_count(w + 4, &cpus) < 0 || cpus < 1)
				rc = (errprintf(err, "Invalid --tres-per-task specification: %s", arg), JOBOPT_FATAL);
			else
				json_object_set_new(o->spec, "cpus_per_task", json_integer(cpus));
			continue;
		}
		if (strncmp(w, "gres/", 5) && strncmp(w, "gres:", 5)) {
			rc = (errprintf(err, "Invalid --tres-per-task specification: %s", arg), JOBOPT_FATAL);
			continue;
		}
		struct tres_item t[1];
		if (tres_req_parse(w, t, 1, err) != 1 || (n = tres_req_put(items, n, TRES_REQ_MAX, t)) < 0)
			rc = (errprintf(err, "Invalid generic resource (gres) specification"), JOBOPT_FATAL);
	}
	free(list);
	return rc == JOBOPT_OK && n ? tres_add(o, r->key, items, n, err) : rc;
}

/* --gpu-bind=[verbose,]closest|none|map_gpu:L|mask_gpu:L|single:N|per_task:N */
int p_gpu_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	       struct herd_error *err)
{
	const char *v = !strncasecmp(arg, "verbose,", 8) ? arg + 8 : arg;
	static const char *const plain[] = { "closest", "none" };
	static const char *const listed[] = { "map_gpu:", "mask_gpu:", "single:", "per_task:" };
	bool ok = false;
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++)
		ok |= !strcasecmp(v, plain[i]);
	for (size_t i = 0; i < sizeof(listed) / sizeof(*listed); i++) {
		size_t n = strlen(listed[i]);
		ok |= !strncasecmp(v, listed[i], n) && v[n] && strspn(v + n, "0123456789abcdefxABCDEFX,*") ==
									 strlen(v + n);
	}
	if (!ok)   /* Slurm's words: it reads the value as "gpu:" and the value */
		return errprintf(err, "Invalid --gpu-bind argument: gpu:%s", arg), JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

/* --gres-flags: Slurm's words, comma-separated */
int p_gres_flags(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	static const char *const words[] = { "enforce-binding", "disable-binding",
					      "multiple-tasks-per-sharing", "one-task-per-sharing",
					      "allow-task-sharing" };
	char *list = xstrdup(arg), *save = NULL;
	bool ok = *arg != '\0';
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		bool known = false;
		for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
			known |= !strcasecmp(w, words[i]);
		ok &= known;
	}
	free(list);
	if (!ok)
		return errprintf(err, "Invalid --gres-flags specification"), JOBOPT_ERROR;
	return put(o, r, json_string(arg), err);
}

/* Network topology options (issue 17 brings them): refused, never dropped. */
int p_topology(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err)
{
	errprintf(err, "--%s needs a network topology (TopologyPlugin), which this cluster has not",
		  r->name);
	return JOBOPT_FATAL;
}

/* --bbf: the file's text is the burst buffer request (read here, as Slurm). */
int p_bbf(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
int p_x11(struct jobopt *o, const struct jobopt_row *r, const char *arg,
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
