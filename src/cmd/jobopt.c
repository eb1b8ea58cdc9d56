/* Reading the job options by the table (jobopt_table.c), their help and
 * usage texts, and the one encoder of the SUBMIT_JOB job object: see
 * jobopt.h. */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "cmd/jobopt.h"
#include "common/tres_req.h"
#include "cmd/opt.h"
#include "cmd/srun_opt.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/secret.h"
#include "common/hostlist.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"

#define LONG_BASE 256   /* getopt's value of table row i: LONG_BASE + i */

const char *jobopt_prog(enum jobopt_cmd cmd)
{
	return cmd == JOBOPT_SBATCH ? "sbatch" : cmd == JOBOPT_SALLOC ? "salloc" : "srun";
}

void jobopt_init(struct jobopt *o, enum jobopt_cmd cmd)
{
	*o = (struct jobopt){ .cmd = cmd, .spec = json_object(), .local = json_object(),
			      .notes = json_array() };
}

void jobopt_free(struct jobopt *o)
{
	if (!o)
		return;
	json_decref(o->spec);
	json_decref(o->local);
	json_decref(o->notes);
	struct jobopt *next = o->het_next;
	while (next) {
		struct jobopt *after = next->het_next;
		next->het_next = NULL;
		jobopt_free(next);
		free(next);
		next = after;
	}
	o->spec = o->local = o->notes = NULL;
	o->het_next = NULL;
}

/* ---- reading ------------------------------------------------------------ */

static int apply(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err)
{
	err->text[0] = '\0';
	return r->parse(o, r, arg, err);
}

/* The row of getopt's answer c for o's command. */
static const struct jobopt_row *row_of(const struct jobopt *o, int c)
{
	if (c >= LONG_BASE)
		return &jobopt_table[c - LONG_BASE];
	for (const struct jobopt_row *r = jobopt_table; r->name; r++)
		if (r->letter == c && (r->cmds & o->cmd))
			return r;
	return NULL;
}

/* One component's options from argv[0] (its program name or the ":"). */
static int read_args(struct jobopt *o, enum jobopt_src pass, int argc, char **argv, int *next,
		     struct herd_error *err)
{
	size_t nrows = 0;
	for (const struct jobopt_row *r = jobopt_table; r->name; r++)
		nrows++;
	struct option *longs = xmalloc((nrows + 1) * sizeof(*longs));
	memset(longs, 0, (nrows + 1) * sizeof(*longs));
	char *shorts = xmalloc(3 * nrows + 2), *s = shorts;
	size_t n = 0;
	*s++ = '+';   /* options end at the script or command */
	for (size_t i = 0; i < nrows; i++) {
		const struct jobopt_row *r = &jobopt_table[i];
		if (!(r->cmds & o->cmd))
			continue;
		longs[n++] = (struct option){ r->name, r->has_arg, NULL, LONG_BASE + (int)i };
		if (r->letter) {
			*s++ = (char)r->letter;
			if (r->has_arg != no_argument)
				*s++ = ':';
			if (r->has_arg == optional_argument)
				*s++ = ':';
		}
	}
	*s = '\0';

	int c, rc = JOBOPT_OK;
	o->pass = pass;
	o->var = NULL;
	err->text[0] = '\0';
	optind = 0;     /* glibc: full re-initialisation for each reading */
	opterr = 1;
	while (rc == JOBOPT_OK && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct jobopt_row *r = c == '?' ? NULL : row_of(o, c);
		if (!r) {
			fprintf(stderr, "Try \"%s --help\" for more information\n", jobopt_prog(o->cmd));
			rc = JOBOPT_ERROR;
			break;
		}
		rc = apply(o, r, optarg, err);
	}
	*next = optind;
	free(longs);
	free(shorts);
	return rc;
}

static int env_one(struct jobopt *o, jobopt_getenv_f getenv_f, struct herd_error *err);

/* The component after o, made when missing (with the variables o read). */
static struct jobopt *next_component(struct jobopt *o, struct herd_error *err, int *rc)
{
	if (!o->het_next) {
		o->het_next = xmalloc(sizeof(*o->het_next));
		jobopt_init(o->het_next, o->cmd);
		o->het_next->now = o->now;
		if (o->getenv_f) {
			struct jobopt *after = o->het_next;
			*rc = jobopt_env(after, o->getenv_f, err);
		}
	}
	return o->het_next;
}

int jobopt_args(struct jobopt *o, enum jobopt_src pass, int argc, char **argv, int *next,
		struct herd_error *err)
{
	struct jobopt *part = o;
	int start = 0, rc = JOBOPT_OK;
	for (;;) {
		int n;
		char *arg0 = argv[start];
		argv[start] = (char *)jobopt_prog(o->cmd);   /* getopt's messages name it */
		rc = read_args(part, pass, argc - start, argv + start, &n, err);
		argv[start] = arg0;
		if (rc != JOBOPT_OK)
			return rc;
		int at = start + n;
		if (o->cmd == JOBOPT_SRUN) {   /* srun: each component's own command */
			int end = at;
			while (end < argc && strcmp(argv[end], ":"))
				end++;
			part->argv = argv + at;
			part->argc = end - at;
			at = end;
		}
		if (at >= argc || strcmp(argv[at], ":")) {
			*next = at;
			return JOBOPT_OK;
		}
		part = next_component(part, err, &rc);
		if (rc != JOBOPT_OK)
			return rc;
		start = at;
	}
}

/* Does input variable var belong to cmd?  SLURM_HINT and SLURM_CLUSTERS
 * are every command's (sbatch(1), salloc(1)). */
static bool var_of(const char *var, enum jobopt_cmd cmd)
{
	if (!strcmp(var, "SLURM_HINT") || !strcmp(var, "SLURM_CLUSTERS"))
		return true;
	if (!strncmp(var, "SBATCH_", 7))
		return cmd == JOBOPT_SBATCH;
	if (!strncmp(var, "SALLOC_", 7))
		return cmd == JOBOPT_SALLOC;
	return cmd == JOBOPT_SRUN;   /* SLURM_*, SRUN_* */
}

int jobopt_env(struct jobopt *o, jobopt_getenv_f getenv_f, struct herd_error *err)
{
	if (!getenv_f)
		getenv_f = (jobopt_getenv_f)getenv;
	for (; o; o = o->het_next) {
		int rc = env_one(o, getenv_f, err);
		if (rc != JOBOPT_OK)
			return rc;
	}
	return JOBOPT_OK;
}

static int env_one(struct jobopt *o, jobopt_getenv_f getenv_f, struct herd_error *err)
{
	o->getenv_f = getenv_f;
	o->pass = JOBOPT_ENV;
	for (const struct jobopt_row *r = jobopt_table; r->name; r++) {
		if (!(r->cmds & o->cmd) || !r->vars)
			continue;
		size_t n;
		char **vars = opt_split(r->vars, ' ', &n);
		int rc = JOBOPT_OK;
		for (size_t i = 0; i < n && rc == JOBOPT_OK; i++) {
			const char *v = var_of(vars[i], o->cmd) ? getenv_f(vars[i]) : NULL;
			if (!v)
				continue;
			/* srun(1): inside an allocation SLURM_JOB_NAME is ignored, or
			 * every step would bear the batch job's name. */
			if (!strcmp(vars[i], "SLURM_JOB_NAME") &&
			    (getenv_f("SLURM_JOB_ID") || getenv_f("SLURM_JOBID")))
				continue;
			o->var = vars[i];
			rc = apply(o, r, v, err);
			o->var = NULL;
			/* srun and salloc name the variable a bad value came from */
			if (rc < 0 && o->cmd != JOBOPT_SBATCH && *err->text) {
				struct herd_error why = *err;
				errprintf(err, "%s (from %s=%s)", why.text, vars[i], v);
			}
		}
		opt_strv_free(vars);
		if (rc != JOBOPT_OK)
			return rc;
	}
	return JOBOPT_OK;
}

int jobopt_words(struct jobopt *o, char **words, size_t nwords, struct herd_error *err)
{
	char **argv = xmalloc((nwords + 2) * sizeof(*argv));
	int next, rc = JOBOPT_OK;
	size_t first = 0;
	argv[0] = (char *)jobopt_prog(o->cmd);
	for (size_t i = 0; i <= nwords && rc == JOBOPT_OK; i++) {
		bool sep = i < nwords && (!strcmp(words[i], "hetjob") || !strcmp(words[i], "packjob"));
		if (i < nwords && !sep)
			continue;
		/* words[first..i): one component's */
		for (size_t w = first; w < i; w++)
			argv[w - first + 1] = words[w];
		argv[i - first + 1] = NULL;
		rc = read_args(o, JOBOPT_SCRIPT, (int)(i - first) + 1, argv, &next, err);
		if (rc == JOBOPT_OK && sep)
			o = next_component(o, err, &rc);
		first = i + 1;
	}
	free(argv);
	return rc;
}

/* ---- what was given ----------------------------------------------------- */

/* A JOBSPEC key is each component's; a command's own value is the
 * command's, whichever component gave it (sbatch -N1 : -N2 --wrap=...). */
static json_t *value(const struct jobopt *o, const char *name)
{
	json_t *v = json_object_get(o->local, name);
	if (!v)
		v = json_object_get(o->spec, name);
	for (const struct jobopt *h = o->het_next; !v && h; h = h->het_next)
		v = json_object_get(h->local, name);
	return v;
}

bool jobopt_given(const struct jobopt *o, const char *name)
{
	return value(o, name) != NULL;
}

const char *jobopt_str(const struct jobopt *o, const char *name)
{
	return json_string_value(value(o, name));
}

long long jobopt_int(const struct jobopt *o, const char *name, long long none)
{
	json_t *v = value(o, name);
	return json_is_integer(v) ? json_integer_value(v) : none;
}

bool jobopt_flag(const struct jobopt *o, const char *name)
{
	return json_is_true(value(o, name));
}

void jobopt_set(struct jobopt *o, const char *name, json_t *v)
{
	json_object_set_new(o->local, name, v);
}

/* ---- help and usage ----------------------------------------------------- */

#define HELP_COLUMN 30

static bool shown(const struct jobopt_row *r, enum jobopt_cmd cmd)
{
	return (r->cmds & cmd) && r->help;
}

static bool info_row(const struct jobopt_row *r)
{
	return !strcmp(r->name, "help") || !strcmp(r->name, "usage") || !strcmp(r->name, "version");
}

static void help_line(const struct jobopt_row *r, FILE *out)
{
	char head[128];
	int n;
	if (r->letter)
		n = snprintf(head, sizeof(head), "  -%c, --%s%s", r->letter, r->name, r->arg);
	else
		n = snprintf(head, sizeof(head), "      --%s%s", r->name, r->arg);
	fprintf(out, "%s%*s", head, n < HELP_COLUMN - 1 ? HELP_COLUMN - n : 1, "");
	for (const char *p = r->help; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

void jobopt_help(enum jobopt_cmd cmd, FILE *out)
{
	static const char *const what[] = { [JOBOPT_SBATCH] = "script(0) [args(0)...]",
					    [JOBOPT_SALLOC] = "[command(0) [args(0)...]]",
					    [JOBOPT_SRUN] = "executable(0) [args(0)...]" };
	fprintf(out, "Usage: %s [OPTIONS(0)...] [ : [OPTIONS(N)...]] %s\n\nParallel run options:\n",
		jobopt_prog(cmd), what[cmd]);
	for (const struct jobopt_row *r = jobopt_table; r->name; r++)
		if (shown(r, cmd) && !info_row(r))
			help_line(r, out);
	fprintf(out, "\nHelp options:\n");
	for (const struct jobopt_row *r = jobopt_table; r->name; r++)
		if (shown(r, cmd) && (!strcmp(r->name, "help") || !strcmp(r->name, "usage")))
			help_line(r, out);
	fprintf(out, "\nOther options:\n");
	for (const struct jobopt_row *r = jobopt_table; r->name; r++)
		if (shown(r, cmd) && !strcmp(r->name, "version"))
			help_line(r, out);
}

void jobopt_usage(enum jobopt_cmd cmd, FILE *out)
{
	char head[32];
	int indent = snprintf(head, sizeof(head), "Usage: %s ", jobopt_prog(cmd)), col = indent;
	fputs(head, out);
	for (const struct jobopt_row *r = jobopt_table; r->name; r++) {
		char item[128];
		if (!shown(r, cmd) || info_row(r))
			continue;
		int n = r->letter ? snprintf(item, sizeof(item), "[-%c|--%s%s]", r->letter, r->name, r->arg)
				  : snprintf(item, sizeof(item), "[--%s%s]", r->name, r->arg);
		if (col > indent && col + 1 + n > 79) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fputs(item, out);
		col += n;
	}
	fprintf(out, "\n%*s%s\n", indent, "",
		cmd == JOBOPT_SBATCH ? "script [args...]" : cmd == JOBOPT_SALLOC
		? "[command [args...]]" : "executable [args...]");
}

void jobopt_info(const struct jobopt *o, FILE *out)
{
	if (!strcmp(o->info, "help"))
		jobopt_help(o->cmd, out);
	else if (!strcmp(o->info, "usage"))
		jobopt_usage(o->cmd, out);
	else if (!strcmp(o->info, "version"))
		fprintf(out, "%s\n", CMD_VERSION);
	else if (!strcmp(o->info, "mpi-list"))
		srun_mpi_list(out, jobopt_prog(o->cmd));
	else if (!strcmp(o->info, "hint-help"))
		fprintf(out, "--hint takes a comma-separated list of:\n"
			"  compute_bound   every core of each socket\n"
			"  memory_bound    one core of each socket\n"
			"  multithread     the cores' extra hardware threads too\n"
			"  nomultithread   one thread of each core\n");
	else if (!strcmp(o->info, "mem-bind-help"))
		fputs(mem_bind_help_text, out);
}

void jobopt_report(struct jobopt *o, int rc, const struct herd_error *err)
{
	size_t i;
	json_t *line;
	json_array_foreach(o->notes, i, line)
		fprintf(stderr, "%s\n", json_string_value(line));
	json_array_clear(o->notes);
	if (rc < 0 && *err->text)
		fprintf(stderr, "%s: %s: %s\n", jobopt_prog(o->cmd), o->fatal ? "fatal" : "error",
			err->text);
}

/* ---- the job object ----------------------------------------------------- */

char *jobopt_arbitrary_list(const struct jobopt *o)
{
	struct dist d;
	const char *dist = jobopt_str(o, "distribution");
	const char *hostfile = getenv("SLURM_HOSTFILE");

	if (!dist || dist_parse(dist, &d, NULL) < 0 || d.node != DIST_NODE_ARBITRARY)
		return NULL;
	if (jobopt_str(o, "req_nodelist"))
		return xstrdup(jobopt_str(o, "req_nodelist"));
	if (!hostfile || !*hostfile)
		return NULL;
	char *path = strchr(hostfile, '/') ? xstrdup(hostfile) : xasprintf("./%s", hostfile);
	char *list = opt_nodelist_arg(path);   /* a value with '/' is read as a file */
	free(path);
	return list;
}

void jobopt_arbitrary_job(const struct jobopt *o, json_t *job)
{
	char *list = jobopt_arbitrary_list(o);
	struct hostlist *hl = list && job ? hostlist_create(list) : NULL;

	if (hl && hostlist_count(hl)) {
		size_t tasks = hostlist_count(hl);
		hostlist_uniq(hl);
		char *nodes = hostlist_ranged_string(hl);
		json_object_set_new(job, "req_nodelist", json_string(nodes));
		if (!jobopt_int(o, "ntasks", 0))
			json_object_set_new(job, "ntasks", json_integer((json_int_t)tasks));
		if (!jobopt_int(o, "nodes", 0))
			json_object_set_new(job, "nodes", json_integer((json_int_t)hostlist_count(hl)));
		free(nodes);
	}
	hostlist_destroy(hl);
	free(list);
}

/* This process's limits, which --propagate hands to the job (-1: unlimited). */
json_t *jobopt_rlimits(void)
{
	static const struct {
		const char *name;
		int resource;
	} limits[] = {
		{ "CPU", RLIMIT_CPU }, { "FSIZE", RLIMIT_FSIZE }, { "DATA", RLIMIT_DATA },
		{ "STACK", RLIMIT_STACK }, { "CORE", RLIMIT_CORE }, { "RSS", RLIMIT_RSS },
		{ "NPROC", RLIMIT_NPROC }, { "NOFILE", RLIMIT_NOFILE },
		{ "MEMLOCK", RLIMIT_MEMLOCK }, { "AS", RLIMIT_AS },
	};
	json_t *all = json_object();
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct rlimit rl;
		if (getrlimit(limits[i].resource, &rl) < 0)
			continue;
		json_int_t soft = rl.rlim_cur == RLIM_INFINITY ? -1 : (json_int_t)rl.rlim_cur;
		json_int_t hard = rl.rlim_max == RLIM_INFINITY ? -1 : (json_int_t)rl.rlim_max;
		json_object_set_new(all, limits[i].name, json_pack("[I, I]", soft, hard));
	}
	return all;
}

json_t *jobopt_job(const struct jobopt *o, const struct jobopt_ctx *c)
{
	json_t *job = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i,"
				" s:i, s:b, s:I, s:b, s:s, s:I, s:s, s:s}",
				"name", c->name, "script", c->script ? c->script : "",
				"argv", msg_strv(c->args), "env", msg_strv(c->env),
				"cwd", c->cwd, "stdout", "", "stderr", "", "stdin", "",
				"partition", "", "nodes", 0, "ntasks", 0, "cpus_per_task", 0,
				"mem_mb", 0, "exclusive", 0, "time_limit", (json_int_t)TIME_NOT_GIVEN,
				"hold", 0, "submit_host", c->host, "umask", (json_int_t)c->umask,
				"account", "", "comment", "");
	if (!job)
		return NULL;   /* the script, an argument or a variable is not UTF-8 */
	json_object_update(job, o->spec);
	if (c->command && json_object_set_new(job, "command", json_string(c->command)) < 0) {
		json_decref(job);
		return NULL;
	}
	if (c->alloc)
		json_object_set_new(job, "alloc", json_true());
	if (c->rlimits)
		json_object_set_new(job, "rlimits", jobopt_rlimits());
	/* --ntasks-per-node with -N gives the task count (sbatch(1)); with -n
	 * alone it gives the node count; alone, one node with that many tasks. */
	json_int_t tpn = json_integer_value(json_object_get(job, "ntasks_per_node"));
	json_int_t nodes = json_integer_value(json_object_get(job, "nodes"));
	json_int_t ntasks = json_integer_value(json_object_get(job, "ntasks"));
	if (tpn > 0 && !ntasks)
		json_object_set_new(job, "ntasks", json_integer((nodes ? nodes : 1) * tpn));
	else if (tpn > 0 && !nodes)
		json_object_set_new(job, "nodes", json_integer((ntasks + tpn - 1) / tpn));
	return job;
}

void jobopt_key(char *key, size_t size)
{
	/* No entropy source: time and pid still make a per-run key. */
	if (secret_random_hex(key, size) < 0)
		snprintf(key, size, "%lx-%lx-%x", (long)time(NULL), (long)getpid(), (unsigned)clock());
}

json_t *jobopt_submit_body(const struct jobopt *o, const struct jobopt_ctx *c)
{
	char key[64];
	json_t *job = jobopt_job(o, c);
	if (!job)
		return NULL;
	jobopt_key(key, sizeof(key));
	json_t *body = json_pack("{s:s, s:o}", "key", key, "job", job);
	if (o->het_next) {
		/* components 1..n of a heterogeneous job (component 0 is "job") */
		json_t *het = json_array();
		for (const struct jobopt *h = o->het_next; h; h = h->het_next) {
			json_t *part = jobopt_job(h, c);
			if (!part) {
				json_decref(het);
				json_decref(body);
				return NULL;
			}
			json_array_append_new(het, part);
		}
		json_object_set_new(body, "het", het);
	}
	return body;
}

/* -M a,b: as Slurm, the cluster where the job would start first, asked
 * of each with a --test-only submission of the job's options (an
 * allocation's: the script plays no part in where or when it starts).
 * Ties, and clusters that cannot say (no reply, or they would refuse the
 * job), go to the one named first; none can say: the first, whose own
 * refusal the real submission then prints. */
static size_t earliest_cluster(const struct jobopt *o, struct cmd_client *c,
			       const struct cmd_cluster *v, size_t n)
{
	char cwd[4096], host[256] = "";
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	gethostname(host, sizeof(host) - 1);
	struct jobopt_ctx ctx = { .script = "", .cwd = cwd, .name = "will-run", .host = host,
				  .umask = 022, .alloc = true };
	json_t *body = jobopt_submit_body(o, &ctx);
	size_t best = 0;
	long long best_start = -1;

	if (!body)
		return 0;   /* not UTF-8: the real submission says so */
	json_object_set_new(json_object_get(body, "job"), "test_only", json_true());
	for (size_t i = 0; i < n; i++) {
		struct herd_error err;
		json_t *reply = NULL;
		cmd_client_aim(c, &v[i]);
		if (cmd_call(c, MSG_SUBMIT_JOB, body, &reply, &err) != 0)
			continue;
		long long start = cmd_jint(reply, "start_time");
		json_decref(reply);
		if (best_start < 0 || start < best_start) {
			best = i;
			best_start = start;
		}
	}
	json_decref(body);
	return best;
}

/* Is name one of the comma-separated words of list (case-insensitive)? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncasecmp(p, name, n))
			return true;
	return false;
}

int jobopt_gres_check(const struct jobopt *o, const struct conf *conf, struct herd_error *err)
{
	static const char *const keys[] = { "tres_per_job", "tres_per_node", "tres_per_socket",
					    "tres_per_task" };
	const char *types = conf_get(conf, "GresTypes");
	for (; o; o = o->het_next) {
		/* what counts per GPU asks for GPUs: Slurm's sentence without them */
		bool per_gpu = jobopt_given(o, "cpus_per_gpu") || jobopt_given(o, "mem_per_gpu") ||
			       jobopt_given(o, "ntasks_per_gpu");
		if (per_gpu && !in_list(types, "gpu"))
			return errprintf(err, "Invalid generic resource (gres) specification");
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			struct tres_item items[TRES_REQ_MAX];
			int n = tres_req_parse(json_string_value(json_object_get(o->spec, keys[k])), items,
					       TRES_REQ_MAX, err);
			for (int i = 0; i < n; i++)
				if (items[i].count && !in_list(types, items[i].name))
					n = -1;
			if (n < 0)
				return errprintf(err, "Invalid generic resource (gres) specification");
		}
		/* Slurm's sbatch says so before it sends anything */
		if (json_object_get(o->spec, "tres_per_socket") && !jobopt_given(o, "sockets_per_node"))
			return errprintf(err, "--gpus-per-socket option requires --sockets-per-node "
					 "specification");
	}
	return 0;
}

const char *jobopt_clusters(const struct jobopt *o, struct cmd_client *c)
{
	const char *want = jobopt_str(o, "clusters");
	if (!want)
		want = jobopt_str(o, "cluster");
	if (!want || !*want)
		return NULL;
	size_t n;
	struct cmd_cluster *v = cmd_clusters_resolve(c, want, &n);
	if (!v)
		return "";
	size_t pick = n > 1 ? earliest_cluster(o, c, v, n) : 0;
	static char name[256];
	snprintf(name, sizeof(name), "%s", v[pick].name);
	cmd_client_aim(c, &v[pick]);
	cmd_clusters_free(v, n);
	return name;
}
