/* squeue: list jobs from JOB_INFO in Slurm's formats (-o letters, -l,
 * SQUEUE_FORMAT), filtered by user, id, state and partition, sorted as Slurm
 * sorts (-S, default "P,t,-p"). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "cmd/squeue_cols.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

#define DEFAULT_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define LONG_FORMAT "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define DEFAULT_SORT "P,t,-p"

/* --start: what Slurm's squeue uses unless -o, -S or -t say otherwise. */
#define START_FORMAT "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
#define START_SORT "S"

struct sort_key {
	char letter;
	bool descending;
};

static struct sort_key *sort_keys;
static size_t nsort_keys;

static int cmp_num(long long a, long long b)
{
	return (a > b) - (a < b);
}

/* Sorting, folding arrays and %i read BASE_KEYS; each letter adds its own
 * (squeue_add_keys), each filter its own (main). */
#define BASE_KEYS "job_id state array_job_id array_task_id array_tasks array_throttle"

/* The "fields" of the JOB_INFO request for this format and sort; NULL: all. */
static json_t *wanted_fields(const struct fmt *fmt, const char *filter_keys)
{
	json_t *fields = json_array();
	bool ok = squeue_add_keys(fields, 'A');
	size_t n;
	char *keys = xasprintf("%s %s", BASE_KEYS, filter_keys);
	char **base = opt_split(keys, ' ', &n);
	free(keys);
	for (size_t k = 0; k < n; k++)
		json_array_append_new(fields, json_string(base[k]));
	opt_strv_free(base);
	for (size_t i = 0; ok && i < fmt->count; i++)
		if (fmt->items[i].letter)
			ok = squeue_add_keys(fields, fmt->items[i].letter);
	for (size_t i = 0; ok && i < nsort_keys; i++)
		ok = squeue_add_keys(fields, sort_keys[i].letter);
	if (!ok) {
		json_decref(fields);
		return NULL;
	}
	return fields;
}

/* A job with its sort values (nsort_keys of them), then its ID. */
struct sorted_job {
	const json_t *job;
	struct squeue_sort_value *v;
	long long id;
};

static int compare_jobs(const void *x, const void *y)
{
	const struct sorted_job *a = x, *b = y;
	for (size_t i = 0; i < nsort_keys; i++) {
		int c = a->v[i].s ? strcmp(a->v[i].s, b->v[i].s) : cmp_num(a->v[i].n, b->v[i].n);
		if (c)
			return sort_keys[i].descending ? -c : c;
	}
	return cmp_num(a->id, b->id);
}

/* Sort jobs[0..n) in place by -S. */
static void sort_jobs(json_t **jobs, size_t n)
{
	struct sorted_job *s = xmalloc((n + 1) * sizeof(*s));
	struct squeue_sort_value *v = xmalloc((n * nsort_keys + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		s[i] = (struct sorted_job){ jobs[i], v + i * nsort_keys, squeue_jint(jobs[i], "job_id") };
		for (size_t k = 0; k < nsort_keys; k++)
			s[i].v[k] = squeue_sort_value(jobs[i], sort_keys[k].letter);
	}
	qsort(s, n, sizeof(*s), compare_jobs);
	for (size_t i = 0; i < n; i++)
		jobs[i] = (json_t *)s[i].job;
	free(v);
	free(s);
}

/* -w names nodes the cluster has: Slurm refuses any other ("Invalid node
 * name n9", exit 1) rather than print an empty queue. */
static int check_node_names(struct cmd_client *client, const struct hostlist *want)
{
	struct herd_error err = { "" };
	json_t *body = json_object(), *reply = NULL;
	int rc = cmd_call(client, MSG_NODE_INFO, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "slurm_load_node error: %s\n", err.text);
		return -1;
	}
	json_t *nodes = json_object_get(reply, "nodes"), *n;
	size_t i;
	rc = 0;
	for (size_t k = 0; !rc && k < hostlist_count(want); k++) {
		const char *name = hostlist_nth(want, k);
		bool found = false;
		json_array_foreach(nodes, i, n)
			if (!strcmp(cmd_jstr(n, "name"), name))
				found = true;
		if (!found) {
			fprintf(stderr, "squeue: error: Invalid node name %s\n", name);
			rc = -1;
		}
	}
	json_decref(reply);
	return rc;
}

static int parse_sort(const char *spec)
{
	size_t n;
	char **keys = opt_split(spec, ',', &n);
	free(sort_keys);
	sort_keys = xmalloc((n + 1) * sizeof(*sort_keys));
	nsort_keys = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[i];
		bool desc = false;
		if (*k == '-' || *k == '+') {
			desc = *k == '-';
			k++;
		}
		if (strlen(k) != 1 || !strchr(squeue_letters(), *k)) {
			fprintf(stderr, "squeue: error: Invalid sort specification: %s\n", keys[i]);
			opt_strv_free(keys);
			return -1;
		}
		sort_keys[nsort_keys++] = (struct sort_key){ *k, desc };
	}
	opt_strv_free(keys);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
		"              [-n name] [-o format] [-p partitions] [--qos qos]\n"
		"              [--reservation reservation] [--sort fields] [--start]\n"
		"              [--step step_id] [-t states] [-u user_name] [--usage]\n"
		"              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
		"              [-ahjlrsv]\n");
}

static void help(void)
{
	printf("Usage: squeue [OPTIONS]\n"
	       "  -A, --account=account(s)        comma separated list of accounts\n"
	       "                                  to view, default is all accounts\n"
	       "  -a, --all                       display jobs in hidden partitions\n"
	       "  -M, --clusters=cluster_name     cluster to issue commands to.  Default is\n"
	       "                                  current cluster.  cluster with no name will\n"
	       "                                  reset to default.\n"
	       "  -h, --noheader                  no headers on output\n"
	       "  -i, --iterate=seconds           report again every so many seconds\n"
	       "  -j, --job=job(s)                comma separated list of jobs IDs to view,\n"
	       "                                  default is all\n"
	       "  -l, --long                      long report\n"
	       "      --me                        equivalent to --user=<my username>\n"
	       "  -n, --name=job_name(s)          comma separated list of job names to view\n"
	       "  -o, --format=format             format specification\n"
	       "  -q, --qos=qos(s)                comma separated list of qos's\n"
	       "  -R, --reservation=name          reservation to view, default is all\n"
	       "                                  to view, default is all qos's\n"
	       "  -p, --partition=partition(s)    comma separated list of partitions\n"
	       "                                  to view, default is all partitions\n"
	       "  -r, --array                     one job array task a line\n"
	       "      --array-unique              one pending job array task a line\n"
	       "  -s, --steps=step(s)             comma separated list of job steps\n"
	       "                                  to view, default is all\n"
	       "  -S, --sort=fields               comma separated list of fields to sort on\n"
	       "      --start                     pending jobs and when they are expected to start\n"
	       "  -t, --states=job_state(s)       comma separated list of states to view,\n"
	       "                                  default is pending and running,\n"
	       "                                  '--states=all' reports all states\n"
	       "  -u, --user=user_name(s)         comma separated list of users to view\n"
	       "  -v, --verbose                   verbosity level\n"
	       "  -w, --nodelist=hostlist         list of nodes to view, default is\n"
	       "                                  all nodes\n"
	       "  -V, --version                   output version information and exit\n\n"
	       "Help options:\n"
	       "  --help                          show this help message\n"
	       "  --usage                         display a brief summary of squeue options\n");
}

static bool in_list(char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* -p: a pending job of -p a,b shows "a,b"; any of them matches. */
static bool in_any_partition(char *const *list, const char *parts)
{
	size_t n = 0;
	char **mine = opt_split(parts, ',', &n);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++)
		found = in_list(list, mine[i]);
	opt_strv_free(mine);
	return found;
}

/* -w: the job runs on at least one of the nodes. */
enum { OPT_ME = 256, OPT_USAGE, OPT_HELP, OPT_START, OPT_ARRAY_UNIQUE };

/* ---- squeue -s: job steps, from STEP_INFO (selection and cells: step.c) ---- */

/* One report of the steps; 0, or 1 after a message. */
static int show_steps(struct cmd_client *client, const struct cmd_step_filter *filter,
		      const struct cmd_step_sort *sort, size_t nsort, const struct fmt *fmt,
		      bool header, bool long_form)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *body = json_object(), *step;
	size_t i, n = 0;

	int rc = cmd_call(client, MSG_STEP_INFO, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n", err.text);
		return 1;
	}
	json_t *steps = json_object_get(reply, "steps");
	time_t now = cmd_jint(reply, "time");
	const json_t **show = xmalloc((json_array_size(steps) + 1) * sizeof(*show));
	json_array_foreach(steps, i, step)
		if (cmd_step_filter_match(filter, step))
			show[n++] = step;
	cmd_step_sort(show, n, sort, nsort, now);
	struct cmd_step_row *rows = xmalloc((n + 1) * sizeof(*rows));
	const void **ptrs = xmalloc((n + 1) * sizeof(*ptrs));
	for (i = 0; i < n; i++) {
		rows[i] = (struct cmd_step_row){ show[i], now, conf_cluster_name(client->conf) };
		ptrs[i] = &rows[i];
	}
	fmt_print_table(fmt, cmd_step_value, ptrs, n, cmd_step_titles, header, long_form);
	free(ptrs);
	free(rows);
	free(show);
	json_decref(reply);
	return 0;
}

/* A job named by -j: "N" (a job, or all of array N), "A_T", "A_[1-3]". */
struct wanted_id {
	long id;
	struct bitmap *tasks;   /* NULL: no tasks named */
};

struct rows {
	struct squeue_row *v;
	size_t n, cap;
};

static void row_push(struct rows *rows, const json_t *job, time_t now, long long task)
{
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? 2 * rows->cap : 256;
		rows->v = xrealloc(rows->v, rows->cap * sizeof(*rows->v));
	}
	rows->v[rows->n++] = (struct squeue_row){ job, now, task };
}

/* The -j entries that name this task (task -1: the record as a whole). */
static bool wanted(const struct wanted_id *want, size_t nwant, const json_t *job, long long task)
{
	long long id = squeue_jint(job, "job_id"), array = squeue_jint(job, "array_job_id");
	if (!nwant)
		return true;
	for (size_t i = 0; i < nwant; i++) {
		if (!want[i].tasks) {
			if (want[i].id == id || want[i].id == array)
				return true;
		} else if (want[i].id == array && task >= 0 && bitmap_test(want[i].tasks, task)) {
			return true;
		}
	}
	return false;
}

static bool tasks_named(const struct wanted_id *want, size_t nwant)
{
	for (size_t i = 0; i < nwant; i++)
		if (want[i].tasks)
			return true;
	return false;
}

/* One row per job; an array's pending tasks fold into one row unless -r
 * asks for one row each (or -j names some of them, which are shown alone). */
static void add_rows(struct rows *rows, const json_t *job, time_t now, bool unfold,
		     const struct wanted_id *want, size_t nwant)
{
	long long own = squeue_jint(job, "array_task_id");
	bool meta = squeue_jint(job, "array_job_id") && own == CMD_NO_TASK &&
		    *squeue_jstr(job, "array_tasks");
	bool pending = !strcmp(squeue_jstr(job, "state"), "PENDING");

	if (!meta) {
		if (wanted(want, nwant, job, squeue_jint(job, "array_job_id") ? own : -1))
			row_push(rows, job, now, -1);
		return;
	}
	if (!pending || (!unfold && !tasks_named(want, nwant))) {
		if (wanted(want, nwant, job, -1))
			row_push(rows, job, now, -1);
		return;
	}
	struct bitmap *tasks = bitmap_parse(squeue_jstr(job, "array_tasks"), UINT32_MAX);
	if (!tasks)
		return;
	if (!unfold && wanted(want, nwant, job, -1))
		row_push(rows, job, now, -1);   /* all of them asked for, folded */
	else
		for (uint32_t t = bitmap_next(tasks, 0); t != BITMAP_NONE; t = bitmap_next(tasks, t + 1))
			if (wanted(want, nwant, job, t))
				row_push(rows, job, now, t);
	bitmap_destroy(tasks);
}

/* squeue -s: the steps named (all when list is NULL) that pass the job
 * filters, in the step format, every iterate seconds when set.  The exit
 * status. */
static int steps_main(const char *list, const struct wanted_id *want, size_t nwant,
		      char **users, bool users_given, char **parts, char **names,
		      const struct hostlist *nodes, const char *format, const char *format2,
		      const char *sort, bool header, bool long_form, unsigned iterate)
{
	struct cmd_step_filter filter = { .uids = users, .uids_given = users_given,
					  .partitions = parts, .names = names, .nodes = nodes };
	struct cmd_step_ref *jobs = xmalloc((nwant + 1) * sizeof(*jobs)), *refs = NULL;
	struct cmd_step_sort *keys = NULL;
	size_t nrefs = 0, nkeys = 0;
	char *letters = NULL, *bad = NULL;
	struct fmt *fmt = NULL;
	struct cmd_client client;
	struct herd_error err = { "" };
	int status = 1;

	for (size_t i = 0; i < nwant; i++) {
		/* -j A_T: that task's steps; a range of tasks: every task of A,
		 * filtered no further (squeue -s -j takes job IDs) */
		long long task = want[i].tasks && bitmap_count(want[i].tasks) == 1
				 ? (long long)bitmap_next(want[i].tasks, 0) : -1;
		jobs[i] = (struct cmd_step_ref){ want[i].id, task, CMD_STEP_NONE };
	}
	filter.jobs = jobs;
	filter.njobs = nwant;
	/* Slurm's sentence for an entry without a step: "Invalid job_step id: 5.??" */
	if (list && cmd_step_list_parse(list, &refs, &nrefs, &bad) < 0) {
		fprintf(stderr, "squeue: error: Invalid job_step id: %s%s\n", bad,
			strchr(bad, '.') ? "" : ".??");
		goto out;
	}
	filter.steps = refs;
	filter.nsteps = nrefs;
	if (!(keys = cmd_step_sort_parse(sort ? sort : CMD_STEP_SORT, &nkeys, &bad))) {
		fprintf(stderr, "squeue: error: Invalid sort specification: %s\n", bad);
		goto out;
	}
	if (format2) {
		letters = fmt_from_names(format2, cmd_step_fields, &bad);
		if (!letters) {
			fprintf(stderr, "squeue: error: Invalid job step format specification: %s\n",
				bad);
			goto out;
		}
		format = letters;
	}
	fmt = fmt_parse(format ? format : CMD_STEP_FORMAT, cmd_step_letters);
	if (fmt->bad)   /* printed as written, as Slurm does */
		fprintf(stderr, "squeue: error: Invalid job step format specification: %c\n",
			fmt->bad);
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "squeue: error: %s\n", err.text);
		goto out;
	}
	for (;;) {
		status = show_steps(&client, &filter, keys, nkeys, fmt, header, long_form);
		if (status || !iterate)
			break;
		printf("\n");
		fflush(stdout);
		sleep(iterate);
	}
	cmd_client_fini(&client);
out:
	fmt_destroy(fmt);
	free(letters);
	free(bad);
	free(jobs);
	free(refs);
	free(keys);
	return status;
}

/* squeue lives for one reply: the million small allocations jansson makes
 * for 100,000 jobs come from a region given back only at exit (a fifth of
 * squeue's time went to malloc and free).  Chunks stay linked from a static,
 * so leak checkers see them reachable; sanitizer builds keep malloc, so
 * ASan still checks jansson's memory. */
#if !defined(__SANITIZE_ADDRESS__)
#define REGION_CHUNK (4u << 20)
static void *region_alloc(size_t n)
{
	static char *cur;
	static size_t left;
	static void **chunks;
	n = (n + 15) & ~(size_t)15;
	if (n > left) {
		size_t size = n + 16 > REGION_CHUNK ? n + 16 : REGION_CHUNK;
		void **chunk = malloc(size);
		if (!chunk)
			return NULL;
		*chunk = chunks;
		chunks = chunk;
		cur = (char *)chunk + 16;
		left = size - 16;
	}
	void *p = cur;
	cur += n;
	left -= n;
	return p;
}

static void region_free(void *p)
{
}
#endif

int main(int argc, char **argv)
{

	static const struct option long_opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "account", required_argument, NULL, 'A' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "noheader", no_argument, NULL, 'h' },
		/* optional, as in Slurm: "-j 12" leaves 12 as an argument */
		{ "jobs", optional_argument, NULL, 'j' },
		{ "job", optional_argument, NULL, 'j' },
		{ "long", no_argument, NULL, 'l' },
		{ "me", no_argument, NULL, OPT_ME },
		{ "iterate", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'o' },
		{ "Format", required_argument, NULL, 'O' },
		{ "partition", required_argument, NULL, 'p' },
		{ "qos", required_argument, NULL, 'q' },
		{ "reservation", required_argument, NULL, 'R' },
		{ "array", no_argument, NULL, 'r' },
		{ "array-unique", no_argument, NULL, OPT_ARRAY_UNIQUE },
		{ "start", no_argument, NULL, OPT_START },
		/* optional, as in Slurm: "-s5.0", "--steps=5.0"; "-s" alone: all */
		{ "steps", optional_argument, NULL, 's' },
		{ "sort", required_argument, NULL, 'S' },
		{ "states", required_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = getenv("SQUEUE_FORMAT");
	const char *format2 = format ? NULL : getenv("SQUEUE_FORMAT2");
	char *format2_letters = NULL;
	const char *sort = getenv("SQUEUE_SORT");
	const char *states_arg = getenv("SQUEUE_STATES");
	const char *users_arg = getenv("SQUEUE_USERS");
	const char *parts_arg = getenv("SQUEUE_PARTITION");
	const char *jobs_arg = NULL, *names_arg = NULL;
	const char *accounts_arg = getenv("SQUEUE_ACCOUNT"), *nodes_arg = NULL;
	const char *qos_arg = getenv("SQUEUE_QOS");
	const char *resv_arg = NULL;   /* -R: jobs of that reservation */
	const char *clusters_arg = getenv("SQUEUE_CLUSTERS");
	struct cmd_cluster *clusters = NULL;   /* -M: each one's report */
	size_t nclusters = 0;
	bool no_header = false, long_format = false, me = false, unfold = false, start = false;
	bool format_given = false;
	bool steps = false;             /* -s: job steps, not jobs */
	char *steps_arg = NULL;         /* -s's list */
	unsigned iterate = 0;           /* -i: seconds between reports, 0 = once */
	int c, status = 1;

	argv[0] = "squeue";
	while ((c = getopt_long(argc, argv, "aA:hi:j::lM:n:o:O:p:q:R:rs::S:t:u:vVw:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'M': clusters_arg = optarg; break;
		case 'a': case 'v': break;   /* no hidden partitions */
		/* --array-unique: one pending task a line, which is all -r
		 * unfolds here (a task that started has its own record). */
		case 'r': case OPT_ARRAY_UNIQUE: unfold = true; break;
		case OPT_START: start = true; break;
		case 's':
			steps = true;
			if (optarg) {
				char *j = xasprintf("%s%s%s", steps_arg ? steps_arg : "",
						    steps_arg ? "," : "", optarg);
				free(steps_arg);
				steps_arg = j;
			}
			break;
		case 'h': no_header = true; break;
		case 'A': accounts_arg = optarg; break;
		case 'w': nodes_arg = optarg; break;
		case 'j':
			if (optarg)
				jobs_arg = optarg;
			break;
		case 'l': long_format = true; break;
		case OPT_ME: me = true; break;
		case 'i': {
			long s;
			if (opt_count(optarg, &s) < 0 || s < 1) {
				fprintf(stderr, "squeue: error: Invalid --iterate value: %s\n", optarg);
				return 1;
			}
			iterate = (unsigned)s;
			break;
		}
		case 'n': names_arg = optarg; break;
		case 'o': format = optarg; format2 = NULL; format_given = true; break;
		case 'O': format2 = optarg; format = NULL; format_given = true; break;
		case 'p': parts_arg = optarg; break;
		case 'q': qos_arg = optarg; break;
		case 'R': resv_arg = optarg; break;
		case 'S': sort = optarg; break;
		case 't': states_arg = optarg; break;
		case 'u': users_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case OPT_HELP: help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return 1;
		}
	}
	/* --start: pending jobs by expected start, in its own format; it
	 * outranks SQUEUE_FORMAT(2), not -o/-O, nor -S/-t or SQUEUE_SORT and
	 * SQUEUE_STATES (as in Slurm). */
	if (start) {
		if (!format_given) {
			format = START_FORMAT;
			format2 = NULL;
		}
		if (!sort)
			sort = START_SORT;
		if (!states_arg)
			states_arg = "PD";
	}
	/* squeue also takes job ids as plain arguments (with -s, steps too:
	 * "squeue -s -j 5" leaves the 5 here, "squeue -s 5.0" names a step). */
	char *jobs_joined = NULL;
	if (optind < argc) {
		jobs_joined = xstrdup(jobs_arg ? jobs_arg : "");
		for (int i = optind; i < argc; i++) {
			if (steps && strchr(argv[i], '.')) {
				char *j = xasprintf("%s%s%s", steps_arg ? steps_arg : "",
						    steps_arg ? "," : "", argv[i]);
				free(steps_arg);
				steps_arg = j;
				continue;
			}
			char *j = xasprintf("%s%s%s", jobs_joined, *jobs_joined ? "," : "", argv[i]);
			free(jobs_joined);
			jobs_joined = j;
		}
		jobs_arg = jobs_joined;
	}

#if !defined(__SANITIZE_ADDRESS__)
	if (!iterate)   /* a region is for one reply; -i reads many */
		json_set_alloc_funcs(region_alloc, region_free);
#endif
	json_t *body = json_object();
	json_t *ids = NULL;
	struct wanted_id *want = NULL;
	size_t nwant = 0;
	char **users = NULL, **parts = NULL, **names = NULL, **accounts = NULL, **qoses = NULL;
	struct hostlist *want_nodes = NULL;
	size_t nusers = 0;
	bool state_filter[JOB_STATE_COUNT] = { false };
	bool states_given = false, users_given = false;
	struct fmt *fmt = NULL;
	json_t *reply = NULL;
	struct cmd_client client = { 0 };
	bool client_ok = false;

	if (jobs_arg) {
		size_t n;
		char **v = cmd_job_ids_split(jobs_arg, &n);
		ids = json_array();
		want = xmalloc((n + 1) * sizeof(*want));
		for (size_t i = 0; i < n; i++) {
			if (cmd_job_id_parse(v[i], &want[i].id, &want[i].tasks) < 0) {
				fprintf(stderr, "squeue: error: Invalid job id: %s\n", v[i]);
				opt_strv_free(v);
				goto out;
			}
			nwant++;
			json_array_append_new(ids, json_integer(want[i].id));
		}
		opt_strv_free(v);
		json_object_set(body, "job_ids", ids);
	}
	if (states_arg) {
		size_t n;
		char **v = opt_split(states_arg, ',', &n);
		states_given = true;
		for (size_t i = 0; i < n; i++) {
			if (!strcasecmp(v[i], "all")) {
				for (int s = 0; s < JOB_STATE_COUNT; s++)
					state_filter[s] = true;
				continue;
			}
			int s = job_state_parse(v[i]);
			if (s < 0) {
				fprintf(stderr, "squeue: error: Invalid job state specified: %s\n", v[i]);
				/* In Slurm's order: the base states, then COMPLETING (a flag there). */
				fprintf(stderr, "squeue: error: Valid job states include: ");
				bool first = true;
				for (int k = 0; k < JOB_STATE_COUNT; k++)
					if (k != JOB_COMPLETING) {
						fprintf(stderr, "%s%s", first ? "" : ",", job_state_name(k));
						first = false;
					}
				fprintf(stderr, ",%s", job_state_name(JOB_COMPLETING));
				fprintf(stderr, "\n\n");
				opt_strv_free(v);
				goto out;
			}
			state_filter[s] = true;
		}
		opt_strv_free(v);
	} else {
		/* Slurm's default, even with -j: jobs still in the queue. */
		state_filter[JOB_PENDING] = state_filter[JOB_RUNNING] = true;
		state_filter[JOB_SUSPENDED] = state_filter[JOB_COMPLETING] = true;
		states_given = true;
	}
	users = xmalloc(sizeof(*users));
	if (users_arg) {
		size_t n;
		char **v = opt_split(users_arg, ',', &n);
		for (size_t i = 0; i < n; i++) {
			uid_t uid;
			/* Slurm names an unknown user and goes on: it matches no
			 * job, so "-u nosuch" lists nothing and exits 0. */
			if (opt_user_parse(v[i], &uid) < 0) {
				fprintf(stderr, "squeue: error: Invalid user: %s\n\n", v[i]);
				continue;
			}
			opt_strv_push(&users, &nusers, xasprintf("%u", (unsigned)uid));
		}
		opt_strv_free(v);
		users_given = true;
	}
	if (me) {
		opt_strv_push(&users, &nusers, xasprintf("%u", (unsigned)getuid()));
		users_given = true;
	}
	if (parts_arg)
		parts = opt_split(parts_arg, ',', NULL);
	if (names_arg)
		names = opt_split(names_arg, ',', NULL);
	if (accounts_arg)
		accounts = opt_split_lower(accounts_arg, ',', NULL);
	if (qos_arg)
		qoses = opt_split_lower(qos_arg, ',', NULL);
	if (nodes_arg && !(want_nodes = hostlist_create(nodes_arg))) {
		fprintf(stderr, "squeue: error: Invalid node name specified: %s\n", nodes_arg);
		goto out;
	}
	if (steps) {
		status = steps_main(steps_arg, want, nwant, users, users_given, parts, names,
				    want_nodes, format, format2, sort, !no_header,
				    long_format || iterate, iterate);
		goto out;
	}
	if (parse_sort(sort ? sort : DEFAULT_SORT) < 0)
		goto out;
	if (format2) {
		char *bad;
		format2_letters = fmt_from_names(format2, squeue_long_names(), &bad);
		if (!format2_letters) {
			fprintf(stderr, "squeue: error: Invalid job format specification: %s\n", bad);
			free(bad);
			goto out;
		}
		format = format2_letters;
	}
	fmt = fmt_parse(format ? format : long_format ? LONG_FORMAT : DEFAULT_FORMAT,
			squeue_letters());
	if (fmt->bad)
		fprintf(stderr, "squeue: error: Invalid job format specification: %c\n", fmt->bad);
	char *filter_keys = xasprintf("%s %s %s %s %s %s %s", users_given ? "uid" : "",
				      parts ? "partition" : "", names ? "name" : "",
				      accounts ? "account" : "", want_nodes ? "nodes" : "",
				      qoses ? "qos" : "", resv_arg ? "reservation" : "");
	json_t *fields = wanted_fields(fmt, filter_keys);
	free(filter_keys);
	if (fields) {
		json_object_set_new(body, "fields", fields);
		json_object_set_new(body, "rows", json_true());
	}

	struct herd_error err = { "" };
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "squeue: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	if (clusters_arg && *clusters_arg &&
	    !(clusters = cmd_clusters_resolve(&client, clusters_arg, &nclusters)))
		goto out;
	if (want_nodes && check_node_names(&client, want_nodes) < 0)
		goto out;
	/* -i: the same report every so many seconds, each with its time
	 * stamp above the header, until interrupted (squeue(1)). */
	for (;;) {
		/* -M: each cluster's report under its name, as Slurm's squeue */
		for (size_t ci = 0; ci < (nclusters ? nclusters : 1); ci++) {
			if (nclusters) {
				cmd_client_aim(&client, &clusters[ci]);
				printf("CLUSTER: %s\n", clusters[ci].name);
			}
			json_decref(reply);
			reply = NULL;
			int rc = cmd_call(&client, MSG_JOB_INFO, body, &reply, &err);
			if (rc != 0) {
				fprintf(stderr, "slurm_load_jobs error: %s\n", err.text);
				goto out;
			}
			json_t *jobs = json_object_get(reply, "rows");
			squeue_reply_keys(json_object_get(reply, "keys"));
			if (!jobs)
				jobs = json_object_get(reply, "jobs");
			time_t now = squeue_jint(reply, "time");
			size_t njobs = json_array_size(jobs), nshow = 0;
			json_t **show = xmalloc((njobs + 1) * sizeof(*show));
			for (size_t i = 0; i < njobs; i++) {
				json_t *job = json_array_get(jobs, i);
				int s = job_state_parse(squeue_jstr(job, "state"));
				if (states_given && (s < 0 || !state_filter[s]))
					continue;
				char uid[24];
				snprintf(uid, sizeof(uid), "%lld", squeue_jint(job, "uid"));
				if (users_given && !in_list(users, uid))
					continue;
				if (parts && !in_any_partition(parts, squeue_jstr(job, "partition")))
					continue;
				if (names && !in_list(names, squeue_jstr(job, "name")))
					continue;
				if (accounts && !in_list(accounts, squeue_jstr(job, "account")))
					continue;
				if (resv_arg && strcmp(resv_arg, squeue_jstr(job, "reservation")))
					continue;
				if (qoses && !in_list(qoses, *squeue_jstr(job, "qos") ? squeue_jstr(job, "qos") : "normal"))
					continue;
				if (want_nodes && !hostlist_overlaps(squeue_jstr(job, "nodes"), want_nodes))
					continue;
				show[nshow++] = job;
			}
			sort_jobs(show, nshow);

			struct rows rows = { 0 };
			for (size_t i = 0; i < nshow; i++)
				add_rows(&rows, show[i], now, unfold, want, nwant);
			const void **ptrs = xmalloc((rows.n + 1) * sizeof(*ptrs));
			for (size_t i = 0; i < rows.n; i++)
				ptrs[i] = &rows.v[i];
			fmt_print_table(fmt, squeue_value, ptrs, rows.n, squeue_titles(), !no_header, long_format || iterate);
			free(ptrs);
			free(rows.v);
			free(show);
		}
		if (!iterate)
			break;
		printf("\n");
		fflush(stdout);
		json_decref(reply);
		reply = NULL;
		sleep(iterate);
	}
	status = 0;
out:
	cmd_clusters_free(clusters, nclusters);
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(reply);
	json_decref(body);
	json_decref(ids);
	opt_strv_free(users);
	opt_strv_free(parts);
	opt_strv_free(names);
	opt_strv_free(accounts);
	opt_strv_free(qoses);
	hostlist_destroy(want_nodes);
	fmt_destroy(fmt);
	free(jobs_joined);
	for (size_t i = 0; i < nwant; i++)
		bitmap_destroy(want[i].tasks);
	free(want);
	free(format2_letters);
	free(sort_keys);
	free(steps_arg);
	return status;
}
