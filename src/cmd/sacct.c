/* sacct: job accounting records from the controller's store (ACCT_JOBS),
 * printed in Slurm's sacct formats: fixed-width columns with a dashed line
 * (-o Name%N, '-' for left), -p/-P with '|', the batch step as "N.batch",
 * or --json.  Which jobs: sacct(1)'s rules for users (-u/-a), IDs, states,
 * accounts (-A), clusters (-M), requeued runs (-D) and the default time
 * window; the controller applies the window, the clusters and the runs,
 * this file the rest.  Each job's steps (N.0, N.1 ...) follow its batch
 * step, from the record's "steps".  What a field shows: sacct_fields.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "cmd/sacct_fields.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/text.h"
#include "common/xmalloc.h"

#define DEFAULT_FORMAT "jobid,jobname,partition,account,alloccpus,state,exitcode"
#define BRIEF_FORMAT "jobid,state,exitcode"
#define LONG_FORMAT \
	"jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize," \
	"maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages," \
	"mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode," \
	"avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy," \
	"maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite," \
	"maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave," \
	"tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn," \
	"tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt," \
	"tresusageoutave,tresusageouttot"

/* The rest prints and talks to the controller; tests/unit/test_sacct.c
 * compiles the pure part above without it. */
#ifndef SACCT_NO_MAIN
static void print_header(const struct column *cols, size_t n, const struct out *o)
{
	char *line = xstrdup("");
	for (size_t i = 0; i < n; i++)
		sacct_cell_cut(&line, o, &cols[i], cols[i].field->name, i + 1 == n, K_TIME);
	printf("%s\n", line);
	free(line);
	if (o->parsable)
		return;
	line = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *dashes = xmalloc(cols[i].width + 1);
		memset(dashes, '-', cols[i].width);
		fmt_cell(&line, dashes, 0, false);
		fmt_cell(&line, " ", 0, false);
		free(dashes);
	}
	printf("%s\n", line);
	free(line);
}

static void print_row(const struct column *cols, size_t n, const struct out *o,
		      const struct row *r)
{
	char *line = xstrdup("");
	char buf[4096];
	for (size_t i = 0; i < n; i++) {
		buf[0] = '\0';
		sacct_cell(&line, o, &cols[i], sacct_value(&cols[i], r, buf, sizeof(buf)), i + 1 == n);
	}
	printf("%s\n", line);
	free(line);
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: sacct [options]\n\tUse --help for help\n");
}

static void help(void)
{
	printf("sacct [<OPTION>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -a, --allusers:\n"
	       "\t           Display jobs for all users. By default, only the\n"
	       "\t           current user's jobs are displayed.  If ran by user root\n"
	       "\t           this is the default.\n"
	       "     -A, --accounts:\n"
	       "\t           Use this comma separated list of accounts to select jobs\n"
	       "\t           to display.  By default, all accounts are selected.\n"
	       "     -b, --brief:\n"
	       "\t           Equivalent to '--format=jobstep,state,error'.\n"
	       "     -D, --duplicates:\n"
	       "\t           Show every record of a job ID: the earlier runs of a\n"
	       "\t           requeued job (state REQUEUED) too, not only its last.\n"
	       "     --delimiter:\n"
	       "\t           ASCII characters used to separate the fields when\n"
	       "\t           specifying the -p or -P options.\n"
	       "     -e, --helpformat:\n"
	       "\t           Print a list of fields that can be specified with the\n"
	       "\t           '--format' option\n"
	       "     -E, --endtime:\n"
	       "\t           Select jobs eligible before this time.\n"
	       "     -h, --help:\n"
	       "\t           Print this description of use.\n"
	       "     -j, --jobs:\n"
	       "\t           Format is <job(.step)>. Display information about this\n"
	       "\t           job or comma-separated list of jobs.\n"
	       "     --json:\n"
	       "\t           Print the records as JSON (slurmdbd's data format\n"
	       "\t           v0.0.38).\n"
	       "     -L, --allclusters:\n"
	       "\t           The records of every cluster (as -M all).\n"
	       "     -l, --long:\n"
	       "\t           Equivalent to specifying a long list of fields.\n"
	       "     -M, --clusters:\n"
	       "\t           Comma separated list of clusters whose records to show,\n"
	       "\t           or 'all'.  The default is the local cluster.\n"
	       "     --name:\n"
	       "\t           Display jobs that have any of these name(s).\n"
	       "     --noconvert:\n"
	       "\t           Print sizes as counted (bytes), not in K, M, G ...\n"
	       "     -n, --noheader:\n"
	       "\t           No header will be added to the beginning of output.\n"
	       "\t           The default is to print a header.\n"
	       "     -o, --format:\n"
	       "\t           Comma separated list of fields. (use \"--helpformat\"\n"
	       "\t           for a list of available fields).\n"
	       "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
	       "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
	       "     -r, --partition:\n"
	       "\t           Comma separated list of partitions to select jobs and\n"
	       "\t           job steps from. The default is all partitions.\n"
	       "     -s, --state:\n"
	       "\t           Select jobs based on their current state or the state\n"
	       "\t           they were in during the time period given.\n"
	       "     -S, --starttime:\n"
	       "\t           Select jobs eligible after this time.  Default is\n"
	       "\t           00:00:00 of the current day, unless '-s' is set then\n"
	       "\t           the default is 'now'.\n"
	       "     -u, --uid, --user:\n"
	       "\t           Use this comma separated list of uids or user names\n"
	       "\t           to select jobs to display.  By default, the running\n"
	       "\t           user's uid is used.\n"
	       "     --units=[KMGTP]:\n"
	       "\t           Print sizes in this unit.\n"
	       "     --usage:\n"
	       "\t           Display brief usage message.\n"
	       "     -V, --version: Print version.\n"
	       "     -W, --wckeys:\n"
	       "\t           Only send data about these wckeys.  Default is all.\n"
	       "     -X, --allocations:\n"
	       "\t           Only show statistics relevant to the job allocation\n"
	       "\t           itself, not taking steps into consideration.\n");
}

static bool in_strv(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool in_strv_nocase(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcasecmp(v[i], s))
			return true;
	return false;
}

static int parse_window_time(const char *arg, time_t now, time_t *out)
{
	if (opt_time_parse(arg, now, true, out) < 0) {
		/* Slurm's time parser prints this line without "sacct: error: " */
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", opt_time_error_pos(arg),
			arg);
		return -1;
	}
	return 0;
}

/* A wanted job, and whether only one of its lines was asked ("12.batch"). */
struct want {
	long id;
	long long step;   /* CMD_STEP_NONE = the whole job, else that step (CMD_STEP_BATCH ...) */
	struct bitmap *tasks;   /* -j A_T: these tasks of array A; NULL: job (or array) id */
};

/* Does -j's entry name this record: its ID, its array's ID, or a task of
 * its array (a meta record: one of its pending tasks)? */
static bool want_matches(const struct want *w, const json_t *job)
{
	long long array = cmd_jint(job, "array_job_id");
	if (!w->tasks)
		return w->id == cmd_jint(job, "job_id") || (array && w->id == array);
	if (!array || w->id != array)
		return false;
	return cmd_array_task_named(job, w->tasks);
}

/* Does -j name this step of the job ("12.3")? */
static bool step_named(const struct want *want, size_t nwant, const json_t *job, long long step)
{
	for (size_t k = 0; k < nwant; k++)
		if (want[k].step == step && want_matches(&want[k], job))
			return true;
	return false;
}

enum { OPT_DELIMITER = 256, OPT_NAME, OPT_USAGE, OPT_HELP, OPT_IGNORED, OPT_UNITS, OPT_NOCONVERT,
       OPT_JSON };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "allusers", no_argument, NULL, 'a' },
		{ "accounts", required_argument, NULL, 'A' },
		{ "allocations", no_argument, NULL, 'X' },
		{ "brief", no_argument, NULL, 'b' },
		{ "duplicates", no_argument, NULL, 'D' },
		{ "delimiter", required_argument, NULL, OPT_DELIMITER },
		{ "endtime", required_argument, NULL, 'E' },
		{ "format", required_argument, NULL, 'o' },
		{ "helpformat", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "long", no_argument, NULL, 'l' },
		{ "local", no_argument, NULL, OPT_IGNORED },
		{ "allclusters", no_argument, NULL, 'L' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "partition", required_argument, NULL, 'r' },
		{ "state", required_argument, NULL, 's' },
		{ "starttime", required_argument, NULL, 'S' },
		{ "uid", required_argument, NULL, 'u' },
		{ "user", required_argument, NULL, 'u' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "wckeys", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = getenv("SACCT_FORMAT");
	const char *jobs_arg = NULL, *users_arg = NULL, *states_arg = NULL, *start_arg = NULL,
		   *end_arg = NULL, *names_arg = NULL, *parts_arg = NULL, *accounts_arg = NULL,
		   *clusters_arg = NULL, *wckeys_arg = NULL;
	char *jobs_joined = NULL;
	bool all_users = false, no_header = false, duplicates = false, as_json = false,
	     want_requeued = false;
	struct show show = { 0, false, false };
	struct out o = { PARSABLE_NO, "|" };
	int c, status = 1;

	argv[0] = "sacct";
	while ((c = getopt_long(argc, argv, "aA:bDeE:hj:lLM:no:pPr:s:S:u:vVW:X", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': all_users = true; break;
		case 'A': accounts_arg = optarg; break;
		case 'b': format = BRIEF_FORMAT; break;
		case 'D': duplicates = true; break;
		case 'L': clusters_arg = "all"; break;
		case 'M': clusters_arg = optarg; break;
		case OPT_UNITS:
			if (sacct_units_parse(optarg, &show.unit) < 0) {
				free(jobs_joined);
				return 1;
			}
			break;
		case OPT_NOCONVERT: show.noconvert = true; break;
		case OPT_JSON: as_json = true; break;
		case 'v': case OPT_IGNORED: break;
		case OPT_DELIMITER: o.delim = optarg; break;
		case 'e': sacct_help_format(); return 0;
		case 'E': end_arg = optarg; break;
		case 'h': case OPT_HELP: help(); return 0;
		case 'j':   /* several -j add up */
			if (jobs_arg) {
				char *joined = xasprintf("%s,%s", jobs_arg, optarg);
				free(jobs_joined);
				jobs_arg = jobs_joined = joined;
			} else {
				jobs_arg = optarg;
			}
			break;
		case 'l': format = LONG_FORMAT; break;
		case OPT_NAME: names_arg = optarg; break;
		case 'n': no_header = true; break;
		case 'o': format = optarg; break;
		case 'p': o.parsable = PARSABLE_END; break;
		case 'P': o.parsable = PARSABLE_NO_END; break;
		case 'r': parts_arg = optarg; break;
		case 's': states_arg = optarg; break;
		case 'S': start_arg = optarg; break;
		case 'u': users_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'W': wckeys_arg = optarg; break;
		case 'X': show.allocations = true; break;
		case OPT_USAGE: usage(stdout); return 0;
		default: usage(stderr); free(jobs_joined); return 1;
		}
	}
	if (opt_unknown_args("sacct", argc, argv, optind)) {
		free(jobs_joined);
		return 1;
	}

	json_t *body = json_object(), *reply = NULL;
	struct column *cols = NULL;
	size_t ncols = 0, nwant = 0;
	struct want *want = NULL;
	char **names = NULL, **parts = NULL, **accounts = NULL, **wckeys = NULL;
	json_t *out_jobs = NULL;
	struct cmd_client client;
	bool client_ok = false;
	struct herd_error err = { "" };
	time_t now = time(NULL), start, end;

	cols = sacct_format_parse(format && *format ? format : DEFAULT_FORMAT, &ncols);
	if (!cols)
		goto out;
	if (jobs_arg) {
		size_t n;
		char **v = cmd_job_ids_split(jobs_arg, &n);
		json_t *ids = json_array();
		want = xmalloc((n + 1) * sizeof(*want));
		for (size_t i = 0; i < n; i++) {
			char *dot = strchr(v[i], '.');
			struct want w = { 0, CMD_STEP_NONE, NULL };
			struct cmd_step_ref ref;
			if (dot)
				*dot = '\0';
			if (cmd_job_id_parse(v[i], &w.id, &w.tasks) < 0) {
				if (dot)
					*dot = '.';
				fprintf(stderr, "sacct: fatal: Bad job/step specified: %s\n", v[i]);
				opt_strv_free(v);
				json_decref(ids);
				goto out;
			}
			if (dot) {
				/* "12.batch", "12.3": only that line; Slurm names the
				 * job of a step that is none: "Bad step specified: 12" */
				char *whole = xasprintf("1.%s", dot + 1);
				int bad = cmd_step_ref_parse(whole, false, &ref);
				free(whole);
				if (bad) {
					fprintf(stderr, "sacct: fatal: Bad step specified: %s\n", v[i]);
					bitmap_destroy(w.tasks);
					opt_strv_free(v);
					json_decref(ids);
					goto out;
				}
				w.step = ref.step;
			}
			want[nwant++] = w;
			json_array_append_new(ids, json_integer(w.id));
		}
		opt_strv_free(v);
		json_object_set_new(body, "job_ids", ids);
	}
	if (states_arg) {
		size_t n;
		char **v = opt_split(states_arg, ',', &n);
		json_t *states = json_array();
		for (size_t i = 0; i < n; i++) {
			/* RQ: the earlier runs of requeued jobs, a state of the
			 * accounting only */
			if (!strcasecmp(v[i], "RQ") || !strcasecmp(v[i], "REQUEUED")) {
				json_array_append_new(states, json_string("REQUEUED"));
				want_requeued = true;
				continue;
			}
			int s = job_state_parse(v[i]);
			if (s < 0) {
				fprintf(stderr, "sacct: fatal: unrecognized job state value '%s'\n",
					v[i]);
				opt_strv_free(v);
				json_decref(states);
				goto out;
			}
			json_array_append_new(states, json_string(job_state_name(s)));
		}
		opt_strv_free(v);
		json_object_set_new(body, "states", states);
	}
	/* sacct(1)'s default window: with -j from the epoch, with -s from now,
	 * else from midnight; to now, or (with -s) to the start. */
	if (start_arg) {
		if (parse_window_time(start_arg, now, &start) < 0)
			goto out;
	} else if (jobs_arg) {
		start = 0;
	} else if (states_arg) {
		start = now;
	} else {
		opt_time_parse("midnight", now, true, &start);
	}
	if (end_arg) {
		if (parse_window_time(end_arg, now, &end) < 0)
			goto out;
	} else {
		end = states_arg && start_arg ? start : now;
	}
	if (end < start) {
		fprintf(stderr, "sacct: error: Start time (%lld) requested is after end time (%lld).\n",
			(long long)start, (long long)end);
		goto out;
	}
	json_object_set_new(body, "start_time", json_integer(start));
	json_object_set_new(body, "end_time", json_integer(end));

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sacct: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	/* Whose jobs: -u's users; everyone's with -a or for root and the
	 * SlurmUser; else the caller's own. */
	json_t *uids = json_array();
	if (users_arg) {
		size_t n;
		char **v = opt_split(users_arg, ',', &n);
		for (size_t i = 0; i < n; i++) {
			uid_t uid;
			if (!strcmp(v[i], "-1")) {   /* sacct -u -1: every user */
				json_array_clear(uids);
				all_users = true;
				break;
			}
			if (opt_user_parse(v[i], &uid) < 0) {
				fprintf(stderr, "sacct: error: Invalid user id: %s\n", v[i]);
				opt_strv_free(v);
				json_decref(uids);
				goto out;
			}
			json_array_append_new(uids, json_integer(uid));
		}
		opt_strv_free(v);
	} else if (!all_users) {
		const char *slurm_user = conf_get(client.conf, "SlurmUser");
		uid_t admin = 0;
		bool is_admin = getuid() == 0 ||
				(slurm_user && opt_user_parse(slurm_user, &admin) == 0 && admin == getuid());
		if (!is_admin)
			json_array_append_new(uids, json_integer(getuid()));
	}
	if (json_array_size(uids))
		json_object_set_new(body, "uids", uids);
	else
		json_decref(uids);
	if (names_arg)
		names = opt_split(names_arg, ',', NULL);
	if (parts_arg)
		parts = opt_split(parts_arg, ',', NULL);
	if (wckeys_arg) {   /* as Slurm: lower case, matched as the job shows it ("*k": a default) */
		char *l = text_lower(wckeys_arg);
		wckeys = opt_split(l, ',', NULL);
		free(l);
	}
	if (accounts_arg) {
		size_t n;
		accounts = opt_split_lower(accounts_arg, ',', &n);
		json_t *v = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(v, json_string(accounts[i]));
		json_object_set_new(body, "accounts", v);
	}
	/* -M a,b / -M all / -L: those clusters' records ("all": every one);
	 * without, the local cluster's */
	if (clusters_arg) {
		size_t n;
		char **v = opt_split(clusters_arg, ',', &n);
		json_t *clusters = json_array();
		for (size_t i = 0; i < n; i++)
			if (!strcasecmp(v[i], "all") || !strcmp(v[i], "-1"))
				json_array_append_new(clusters, json_string("all"));
			else
				json_array_append_new(clusters, json_string(v[i]));
		opt_strv_free(v);
		json_object_set_new(body, "clusters", clusters);
	}
	if (duplicates)
		json_object_set_new(body, "duplicates", json_true());

	int rc = cmd_call(&client, MSG_ACCT_JOBS, body, &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "sacct: error: %s\n", err.text);
		goto out;
	}
	if (!no_header && !as_json)
		print_header(cols, ncols, &o);
	json_t *jobs = json_object_get(reply, "jobs");
	time_t reply_now = cmd_jint(reply, "time");
	const char *local = conf_cluster_name(client.conf);
	size_t njobs = json_array_size(jobs);
	struct sacct_ranked *sorted = xmalloc((njobs + 1) * sizeof(*sorted));
	for (size_t i = 0; i < njobs; i++)
		sorted[i] = (struct sacct_ranked){ json_array_get(jobs, i), i };
	qsort(sorted, njobs, sizeof(*sorted), sacct_by_record);
	out_jobs = json_array();
	for (size_t i = 0; i < njobs; i++) {
		const json_t *job = sorted[i].rec;
		/* an earlier run of a requeued job: only with -D or -s RQ
		 * (the controller sends them only then; a store that keeps
		 * them apart anyway is not shown them twice) */
		if (!duplicates && !want_requeued && !strcmp(cmd_jstr(job, "state"), "REQUEUED"))
			continue;
		if (names && !in_strv(names, cmd_jstr(job, "name")))
			continue;
		if (parts && !in_strv(parts, cmd_jstr(job, "partition")))
			continue;
		if (accounts && !in_strv_nocase(accounts, cmd_jstr(job, "account")))
			continue;
		if (wckeys && !in_strv(wckeys, cmd_jstr(job, "wckey")))
			continue;
		struct row r = { job, false, reply_now ? reply_now : now, local, NULL, &show };
		if (!sacct_cluster_wanted(clusters_arg, sacct_cluster_of(&r), local))
			continue;
		if (as_json) {
			json_array_append_new(out_jobs, sacct_json_job(&r));
			continue;
		}
		/* -j 12.batch: only that line of job 12 (both when named both ways) */
		bool whole = !nwant;
		for (size_t k = 0; k < nwant; k++)
			if (want_matches(&want[k], job))
				whole |= want[k].step == CMD_STEP_NONE;
		if (whole)
			print_row(cols, ncols, &o, &r);
		/* salloc's and srun's jobs run no batch script: no N.batch line */
		if (sacct_started(job) && !cmd_jbool(job, "alloc_only") &&
		    ((whole && !show.allocations) || step_named(want, nwant, job, CMD_STEP_BATCH))) {
			r.batch = true;
			print_row(cols, ncols, &o, &r);
			r.batch = false;
		}
		json_t *steps = json_object_get(job, "steps");
		size_t nsteps = json_array_size(steps);
		const json_t **order = xmalloc((nsteps + 1) * sizeof(*order));
		for (size_t k = 0; k < nsteps; k++)
			order[k] = json_array_get(steps, k);
		qsort(order, nsteps, sizeof(*order), sacct_by_step_rank);
		for (size_t k = 0; k < nsteps; k++) {
			long long id = cmd_jint(order[k], "step_id");
			if (id == CMD_STEP_BATCH)
				continue;
			if ((whole && !show.allocations) || step_named(want, nwant, job, id)) {
				r.step = order[k];
				print_row(cols, ncols, &o, &r);
			}
		}
		free(order);
	}
	if (as_json) {
		json_t *doc = sacct_json_document(out_jobs);
		out_jobs = NULL;
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_ESCAPE_SLASH);
		printf("%s\n", text);
		free(text);
		json_decref(doc);
	}
	free(sorted);
	status = 0;
out:
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(reply);
	json_decref(body);
	free(cols);
	for (size_t k = 0; k < nwant; k++)
		bitmap_destroy(want[k].tasks);
	free(want);
	opt_strv_free(names);
	opt_strv_free(parts);
	opt_strv_free(accounts);
	opt_strv_free(wckeys);
	json_decref(out_jobs);
	free(jobs_joined);
	return status;
}
#endif
