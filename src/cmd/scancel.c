/* scancel: cancel or signal jobs by id, or every job matching -u/-p/-n/-t
 * (found through JOB_INFO).  As in Slurm, a job that is unknown or already
 * finished is not an error unless -v asks to hear about it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/state.h"
#include "common/xmalloc.h"

struct scancel_opts {
	int signal;
	const char *flags;
	int verbose;
	bool quiet;
	bool have_uid;
	uid_t uid;
	char **partitions, **names, **accounts, **qoses;
	struct hostlist *nodes;   /* -w: jobs using any of them */
	int state;            /* -1: any active state */
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
		"               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal |\n"
		"               integer] [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
		"               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey] [job_id[_array_id]]\n");
}

static void help(void)
{
	printf("Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
	       "  -A, --account=account           act only on jobs charging this account\n"
	       "  -b, --batch                     signal batch shell for specified job\n"
	       "  -f, --full                      signal batch shell and all steps for specified job\n"
	       "      --me                        equivalent to --user=<my username>\n"
	       "  -n, --name=job_name             act only on jobs with this name\n"
	       "  -p, --partition=partition       act only on jobs in this partition\n"
	       "  -q, --qos=qos                   act only on jobs with this quality of service\n"
	       "  -Q, --quiet                     disable warnings\n"
	       "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n"
	       "  -t, --state=states              act only on jobs in this state.  Valid job\n"
	       "                                  states are PENDING, RUNNING and SUSPENDED\n"
	       "  -u, --user=user_name            act only on jobs of this user\n"
	       "  -V, --version                   output version information and exit\n"
	       "  -w, --nodelist                  act only on jobs on these nodes\n"
	       "  -v, --verbose                   verbosity level\n\n"
	       "Help options:\n"
	       "  --help                          show this help message\n"
	       "  --usage                         display brief usage message\n");
}

/* What one CANCEL_JOB names: a job, all of array id (tasks NULL), or some
 * of its tasks ("1-3"); with a step, that step of the job (or of the one
 * task in tasks). */
struct target {
	long long id;
	char *tasks;
	long long step;   /* CMD_STEP_NONE: the job */
};

static void target_push(struct target **v, size_t *n, long long id, char *tasks)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct target){ id, tasks, CMD_STEP_NONE };
}

static void targets_free(struct target *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].tasks);
	free(v);
}

/* The raw job ID of array task A_T (JOB_INFO), 0 when it has none (not
 * started, or no such task): a step is its own job's. */
static long long task_job_id(struct cmd_client *client, long long array, long long task)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *job;
	json_t *body = json_pack("{s:[I], s:[s,s,s]}", "job_ids", (json_int_t)array, "fields",
				 "job_id", "array_job_id", "array_task_id");
	long long id = 0;
	size_t i;

	if (cmd_call(client, MSG_JOB_INFO, body, &reply, &err) == 0)
		json_array_foreach(json_object_get(reply, "jobs"), i, job)
			if (cmd_jint(job, "array_job_id") == array &&
			    cmd_jint(job, "array_task_id") == task)
				id = cmd_jint(job, "job_id");
	json_decref(body);
	json_decref(reply);
	return id;
}

/* scancel N.S / A_T.S: CANCEL_JOB with the step's ID, to the step's own
 * job.  Slurm 22.05's lines: a step the running job does not have is
 * "Kill job error on job step id N: Invalid job id specified" (the job's
 * raw ID alone), a job that is gone the same with the step named; a
 * pending job's step is no error. */
static int cancel_step(struct cmd_client *client, const struct scancel_opts *o,
		       const struct target *t)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	char name[96], step[24];
	long long id = t->id;

	cmd_step_name(t->step, step, sizeof(step));
	if (t->tasks)
		snprintf(name, sizeof(name), "%lld_%s.%s", t->id, t->tasks, step);
	else
		snprintf(name, sizeof(name), "%lld.%s", t->id, step);
	if (o->verbose) {
		if (o->signal)
			fprintf(stderr, "scancel: Signal %d to step %s\n", o->signal, name);
		else
			fprintf(stderr, "scancel: Terminating step %s\n", name);
	}
	if (t->tasks && !(id = task_job_id(client, t->id, atoll(t->tasks)))) {
		fprintf(stderr, "scancel: error: Kill job error on job step id %s: %s\n", name,
			herd_strerror(HERD_ERR_INVALID_JOB));
		return 1;
	}
	json_t *body = json_pack("{s:I, s:i, s:s, s:I}", "job_id", (json_int_t)id, "signal",
				 o->signal, "flags", "", "step_id", (json_int_t)t->step);
	int rc = cmd_call(client, MSG_CANCEL_JOB, body, &reply, &err);
	json_decref(body);
	json_decref(reply);
	if (rc == 0 || rc == HERD_ERR_JOB_PENDING)
		return 0;
	if (rc == HERD_ERR_NO_STEP)
		fprintf(stderr, "scancel: error: Kill job error on job step id %lld: %s\n", id,
			herd_strerror(HERD_ERR_INVALID_JOB));
	else if (rc == HERD_ERR_INVALID_JOB || rc == HERD_ERR_ALREADY_DONE)
		fprintf(stderr, "scancel: error: Kill job error on job step id %s: %s\n", name,
			herd_strerror(HERD_ERR_INVALID_JOB));
	else
		fprintf(stderr, "scancel: error: Kill job error on job step id %s: %s\n", name,
			err.text);
	return 1;
}

/* One CANCEL_JOB; returns 0, or 1 when the failure is worth an exit code. */
static int cancel_one(struct cmd_client *client, const struct scancel_opts *o,
		      const struct target *t)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	char name[256];

	if (t->step != CMD_STEP_NONE)
		return cancel_step(client, o, t);

	if (t->tasks)
		snprintf(name, sizeof(name), strpbrk(t->tasks, ",-") ? "%lld_[%s]" : "%lld_%s", t->id,
			 t->tasks);
	else
		snprintf(name, sizeof(name), "%lld", t->id);
	if (o->verbose) {
		if (o->signal)
			fprintf(stderr, "scancel: Signal %d to job %s\n", o->signal, name);
		else
			fprintf(stderr, "scancel: Terminating job %s\n", name);
	}
	json_t *body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)t->id, "signal", o->signal,
				 "flags", o->flags);
	if (t->tasks)
		json_object_set_new(body, "array_tasks", json_string(t->tasks));
	int rc = cmd_call(client, MSG_CANCEL_JOB, body, &reply, &err);
	json_decref(body);
	json_decref(reply);
	if (rc == 0)
		return 0;
	if (rc == HERD_ERR_INVALID_JOB || rc == HERD_ERR_ALREADY_DONE) {
		if (o->verbose && !o->quiet)
			fprintf(stderr, "scancel: error: Kill job error on job id %s: %s\n", name, err.text);
		return 0;
	}
	fprintf(stderr, "scancel: error: Kill job error on job id %s: %s\n", name, err.text);
	return 1;
}

static bool in_list(char *const *list, const char *s)
{
	if (!list)
		return true;
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Jobs matching the filters (among ids when given); -1 after printing. */
static int select_jobs(struct cmd_client *client, const struct scancel_opts *o, json_t *ids,
		       struct target **out, size_t *nout)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *body = json_object();

	if (ids)
		json_object_set(body, "job_ids", ids);
	if (o->have_uid)
		json_object_set_new(body, "uid", json_integer(o->uid));
	int rc = cmd_call(client, MSG_JOB_INFO, body, &reply, &err);
	json_decref(body);
	if (rc == HERD_ERR_INVALID_JOB) {
		*out = NULL;
		*nout = 0;
		return 0;
	}
	if (rc != 0) {
		fprintf(stderr, "scancel: error: slurm_load_jobs error: %s\n", err.text);
		return -1;
	}
	json_t *jobs = json_object_get(reply, "jobs");
	*out = NULL;
	*nout = 0;
	size_t i;
	json_t *job;
	json_array_foreach(jobs, i, job) {
		int s = job_state_parse(cmd_jstr(job, "state"));
		if (s < 0 || job_state_is_final(s) || s == JOB_COMPLETING)
			continue;
		if (o->state >= 0 && s != o->state)
			continue;
		if (o->have_uid && cmd_jint(job, "uid") != (long long)o->uid)
			continue;
		if (!in_list(o->partitions, cmd_jstr(job, "partition")) ||
		    !in_list(o->names, cmd_jstr(job, "name")) ||
		    !in_list(o->accounts, cmd_jstr(job, "account")) ||
		    !in_list(o->qoses, *cmd_jstr(job, "qos") ? cmd_jstr(job, "qos") : "normal") ||
		    (o->nodes && !hostlist_overlaps(cmd_jstr(job, "nodes"), o->nodes)))
			continue;
		/* An array's record is named by its tasks, so that what the
		 * filters matched is all that is cancelled (its ID alone would
		 * be every task of the array). */
		long long array = cmd_jint(job, "array_job_id"), task = cmd_jint(job, "array_task_id");
		if (!array)
			target_push(out, nout, cmd_jint(job, "job_id"), NULL);
		else if (task == CMD_NO_TASK)
			target_push(out, nout, array, xstrdup(cmd_jstr(job, "array_tasks")));
		else
			target_push(out, nout, array, xasprintf("%lld", task));
	}
	json_decref(reply);
	return 0;
}

enum { OPT_ME = 256, OPT_USAGE, OPT_HELP };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "account", required_argument, NULL, 'A' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "qos", required_argument, NULL, 'q' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "batch", no_argument, NULL, 'b' },
		{ "full", no_argument, NULL, 'f' },
		{ "me", no_argument, NULL, OPT_ME },
		{ "name", required_argument, NULL, 'n' },
		{ "jobname", required_argument, NULL, 'n' },
		{ "partition", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "signal", required_argument, NULL, 's' },
		{ "state", required_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	struct scancel_opts o = { .flags = "", .state = -1 };
	bool filters = false;
	const char *clusters_arg = getenv("SLURM_CLUSTERS");
	int c, status = 1;

	argv[0] = "scancel";
	while ((c = getopt_long(argc, argv, "A:bfM:n:p:q:Qs:t:u:vVw:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'M': clusters_arg = optarg; break;
		case 'A':
			opt_strv_free(o.accounts);
			o.accounts = opt_split_lower(optarg, ',', NULL);
			filters = true;
			break;
		case 'q':
			opt_strv_free(o.qoses);
			o.qoses = opt_split_lower(optarg, ',', NULL);
			filters = true;
			break;
		case 'w':
			hostlist_destroy(o.nodes);
			if (!(o.nodes = hostlist_create(optarg))) {
				fprintf(stderr, "scancel: error: Invalid node name specified: %s\n", optarg);
				goto out;
			}
			filters = true;
			break;
		case 'b': o.flags = "batch"; break;
		case 'f': o.flags = "full"; break;
		case OPT_ME:
			o.have_uid = true;
			o.uid = getuid();
			filters = true;
			break;
		case 'n':
			opt_strv_free(o.names);
			o.names = opt_split(optarg, ',', NULL);
			filters = true;
			break;
		case 'p':
			opt_strv_free(o.partitions);
			o.partitions = opt_split(optarg, ',', NULL);
			filters = true;
			break;
		case 'Q': o.quiet = true; break;
		case 's':
			o.signal = opt_signal_parse(optarg);
			if (o.signal < 0) {
				fprintf(stderr, "Unknown job signal: %s\n", optarg);
				goto out;
			}
			break;
		case 't': {
			int s = job_state_parse(optarg);
			if (s != JOB_PENDING && s != JOB_RUNNING && s != JOB_SUSPENDED) {
				/* Slurm prints these two lines without its "scancel: error: " */
				fprintf(stderr, "Invalid job state specified: %s\n", optarg);
				fprintf(stderr, "Valid job states are PENDING, RUNNING, "
					"and SUSPENDED\n");
				goto out;
			}
			o.state = s;
			filters = true;
			break;
		}
		case 'u':
			if (opt_user_parse(optarg, &o.uid) < 0) {
				fprintf(stderr, "scancel: error: Invalid user name: %s\n", optarg);
				goto out;
			}
			o.have_uid = true;
			filters = true;
			break;
		case 'v': o.verbose++; break;
		case 'V': printf("%s\n", CMD_VERSION); status = 0; goto out;
		case OPT_HELP: help(); status = 0; goto out;
		case OPT_USAGE: usage(stdout); status = 0; goto out;
		default:
			fprintf(stderr, "Try \"scancel --help\" for more information\n");
			goto out;
		}
	}

	json_t *ids = NULL;
	struct target *named = NULL;
	size_t nnamed = 0;
	if (optind < argc) {
		ids = json_array();
		for (int i = optind; i < argc; i++) {
			size_t n;
			char **v = cmd_job_ids_split(argv[i], &n);   /* "1,2" as Slurm accepts */
			for (size_t k = 0; k < n; k++) {
				long id;
				struct bitmap *tasks;
				struct cmd_step_ref ref;
				if (strchr(v[k], '.')) {
					/* N.S, A_T.S; Slurm 22.05 takes no N.batch */
					if (cmd_step_ref_parse(v[k], false, &ref) < 0 ||
					    ref.step == CMD_STEP_BATCH || ref.step == CMD_STEP_EXTERN) {
						fprintf(stderr, "scancel: error: Invalid job id %s\n", v[k]);
						opt_strv_free(v);
						json_decref(ids);
						targets_free(named, nnamed);
						goto out;
					}
					target_push(&named, &nnamed, ref.id,
						    ref.task >= 0 ? xasprintf("%lld", ref.task) : NULL);
					named[nnamed - 1].step = ref.step;
					continue;
				}
				if (cmd_job_id_parse(v[k], &id, &tasks) < 0) {
					fprintf(stderr, "scancel: error: Invalid job id %s\n", v[k]);
					opt_strv_free(v);
					json_decref(ids);
					targets_free(named, nnamed);
					goto out;
				}
				json_array_append_new(ids, json_integer(id));
				target_push(&named, &nnamed, id, tasks ? bitmap_fmt(tasks) : NULL);
				bitmap_destroy(tasks);
			}
			opt_strv_free(v);
		}
	}
	if (!ids && !filters) {
		fprintf(stderr, "scancel: error: No job identification provided\n");
		goto out;
	}

	struct cmd_client client;
	struct herd_error err = { "" };
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "scancel: error: %s\n", err.text);
		json_decref(ids);
		targets_free(named, nnamed);
		goto out;
	}
	if (clusters_arg && *clusters_arg && cmd_client_cluster(&client, clusters_arg) < 0) {
		cmd_client_fini(&client);
		json_decref(ids);
		targets_free(named, nnamed);
		goto out;
	}
	status = 0;
	if (filters) {
		/* steps named are signalled as named; the filters pick jobs */
		for (size_t i = 0; i < nnamed; i++)
			if (named[i].step != CMD_STEP_NONE)
				status |= cancel_one(&client, &o, &named[i]);
	}
	if (filters && (!ids || json_array_size(ids))) {
		struct target *jobs;
		size_t njobs;
		if (select_jobs(&client, &o, ids, &jobs, &njobs) < 0) {
			status = 1;
		} else {
			for (size_t i = 0; i < njobs; i++)
				status |= cancel_one(&client, &o, &jobs[i]);
			targets_free(jobs, njobs);
		}
	} else if (!filters) {
		for (size_t i = 0; i < nnamed; i++)
			status |= cancel_one(&client, &o, &named[i]);
	}
	cmd_client_fini(&client);
	targets_free(named, nnamed);
	json_decref(ids);
out:
	opt_strv_free(o.names);
	opt_strv_free(o.partitions);
	opt_strv_free(o.accounts);
	opt_strv_free(o.qoses);
	hostlist_destroy(o.nodes);
	return status;
}
