/* srun: run a parallel job step.  Inside an allocation (SLURM_JOB_ID or
 * --jobid) it makes a step of that job; outside one it first asks for an
 * allocation that runs no batch script, runs the step in it, then gives it
 * back with srun's exit status.  The step's I/O is srun_io.c; the options
 * are srun_opt.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/srun_alloc.h"
#include "cmd/srun_bcast.h"
#include "cmd/srun_io.h"
#include "cmd/srun_opt.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

extern char **environ;

static void step_name(const struct jobopt *o, char *buf, size_t len)
{
	if (jobopt_str(o, "name")) {
		snprintf(buf, len, "%s", jobopt_str(o, "name"));
		return;
	}
	char *copy = xstrdup(o->argv[0]);
	snprintf(buf, len, "%s", basename(copy));
	free(copy);
}

static char *abs_path(const char *path, const char *cwd)
{
	return path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
}

/* --prolog/--epilog (srun(1)): run here, the step's command and arguments
 * its arguments; "none" runs nothing.  The raw wait status (0: ran clean). */
static int run_hook(const char *path, const struct jobopt *o, long long job_id)
{
	if (!path || !strcasecmp(path, "none"))
		return 0;
	pid_t pid = fork();
	if (pid < 0)
		return 1 << 8;
	if (pid == 0) {
		char **argv = xmalloc((o->argc + 2) * sizeof(*argv));
		char id[32];
		argv[0] = (char *)path;
		for (int i = 0; i < o->argc; i++)
			argv[i + 1] = o->argv[i];
		snprintf(id, sizeof(id), "%lld", job_id);
		setenv("SLURM_JOB_ID", id, 1);
		setenv("SLURM_JOBID", id, 1);
		execv(path, argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* --task-prolog/--task-epilog: each task runs them around its command, by
 * a shell that reads the prolog's "export NAME=value", "unset NAME" and
 * "print text" lines as Slurm's task prolog does. */
static const char task_wrapper[] =
	"p=$1 e=$2; shift 2\n"
	"if [ -n \"$p\" ]; then\n"
	"  out=$(\"$p\")\n"
	"  while IFS= read -r line; do\n"
	"    case $line in\n"
	"      'export '*) export \"${line#export }\" ;;\n"
	"      'unset '*) unset \"${line#unset }\" ;;\n"
	"      'print '*) printf '%s\\n' \"${line#print }\" ;;\n"
	"    esac\n"
	"  done <<HERD_TASK_PROLOG\n"
	"$out\n"
	"HERD_TASK_PROLOG\n"
	"fi\n"
	"\"$@\"; rc=$?\n"
	"if [ -n \"$e\" ]; then \"$e\"; fi\n"
	"exit $rc\n";

static char **task_wrap(struct jobopt *o, const char *prolog, const char *epilog)
{
	char **argv = xmalloc((o->argc + 7) * sizeof(*argv));
	int n = 0;
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = (char *)task_wrapper;
	argv[n++] = "slurm_task";
	argv[n++] = (char *)(prolog ? prolog : "");
	argv[n++] = (char *)(epilog ? epilog : "");
	for (int i = 0; i < o->argc; i++)
		argv[n++] = o->argv[i];
	argv[n] = NULL;
	o->argv = argv;
	o->argc = n;
	return argv;
}

/* -r N: the step's nodes from node N of the allocation (job_nodes) on, as
 * many as -N asks (all the rest without it).  NULL with err. */
static char *relative_nodes(const struct jobopt *o, const char *job_nodes,
			    struct herd_error *err)
{
	struct hostlist *all = hostlist_create(job_nodes ? job_nodes : "");
	long long from = jobopt_int(o, "relative", 0), want = jobopt_int(o, "nodes", 0);
	size_t count = all ? hostlist_count(all) : 0;
	char *list = NULL;
	if (from < 0 || (size_t)from >= count) {
		errprintf(err, "--relative=%lld is beyond the allocation's %zu nodes", from, count);
	} else {
		if (!want || (size_t)(from + want) > count) {
			if (want && (size_t)(from + want) > count)
				fprintf(stderr, "srun: warning: -N %lld with --relative=%lld: the step "
					"gets the %zu nodes from node %lld on\n", want, from,
					count - (size_t)from, from);
			want = (long long)(count - (size_t)from);
		}
		const char **names = xmalloc(want * sizeof(*names));
		for (long long i = 0; i < want; i++)
			names[i] = hostlist_nth(all, (size_t)(from + i));
		list = hostlist_compress(names, (size_t)want);
		free(names);
	}
	hostlist_destroy(all);
	return list;
}

/* ---- a step over several components (srun A : B, --het-group=0,1) ---- */

struct step_part {
	struct jobopt *o;           /* its options and command */
	long group;                 /* the component it runs in */
	long long job_id;
};

/* The step's parts: each component of o, in the component its --het-group
 * names (else its place), one per group of a list.  Their count, or -1
 * with err. */
static int step_parts(struct jobopt *o, struct step_part **out, struct herd_error *err)
{
	struct step_part *p = NULL;
	int n = 0, k = 0;
	for (struct jobopt *c = o; c; c = c->het_next, k++) {
		long groups[HET_MAX_GROUPS] = { k };
		int ng = 1;
		const char *g = jobopt_str(c, "het-group");
		if (g && (ng = srun_het_groups(g, groups, HET_MAX_GROUPS)) < 0) {
			free(p);
			return errprintf(err, "Invalid --het-group value: %s", g);
		}
		for (int i = 0; i < ng; i++) {
			for (int j = 0; j < n; j++)
				if (p[j].group == groups[i]) {
					free(p);
					return errprintf(err, "Only one job step per heterogeneous job component "
							 "can be launched by a single srun (het-group %ld twice)",
							 groups[i]);
				}
			if (groups[i] >= HET_MAX_GROUPS) {
				free(p);
				return errprintf(err, "Invalid --het-group value: %ld", groups[i]);
			}
			p = xrealloc(p, (n + 1) * sizeof(*p));
			p[n++] = (struct step_part){ c, groups[i], 0 };
		}
	}
	*out = p;
	return n;
}

/* Inside a heterogeneous allocation: each part's job from the allocation's
 * SLURM_JOB_ID_HET_GROUP_N.  -1 with err. */
static int parts_in_het_job(struct step_part *p, int n, long size, struct herd_error *err)
{
	for (int k = 0; k < n; k++) {
		char var[64];
		long id;
		if (p[k].group >= size)
			return errprintf(err, "Attempt to run a job step with het group value of %ld, but "
					 "the job allocation has maximum value of %ld", p[k].group, size - 1);
		snprintf(var, sizeof(var), "SLURM_JOB_ID_HET_GROUP_%ld", p[k].group);
		if (!getenv(var) || opt_count(getenv(var), &id) < 0 || id < 1)
			return errprintf(err, "%s is not set: not inside the heterogeneous job's "
					 "allocation", var);
		p[k].job_id = id;
	}
	return 0;
}

/* A word of a --multi-prog line: quoted so it stays one word. */
static int quote_word(struct strbuf *b, const char *w, struct herd_error *err)
{
	char q = strchr(w, '\'') ? '"' : '\'';
	if (q == '"' && strchr(w, '"'))
		return errprintf(err, "an argument holds both quote characters: %.40s", w);
	char quote[3] = { ' ', q, 0 };
	strbuf_adds(b, quote);
	strbuf_adds(b, w);
	strbuf_add(b, &q, 1);
	return 0;
}

/* In a job that is not heterogeneous (Slurm 20.11's heterogeneous steps):
 * the parts as one step whose tasks run each part's command, in order, as
 * --multi-prog lays them out; each part's -n counts (1 when not given), the
 * other options are the first part's.  The lines, *ntasks the total; NULL
 * with err. */
static char **parts_as_multi_prog(const struct step_part *p, int n, long *ntasks,
				  struct herd_error *err)
{
	struct strbuf b = { 0 };
	long first = 0;
	char **lines = NULL;
	for (int k = 0; k < n; k++) {
		long nt = (long)jobopt_int(p[k].o, "ntasks", 0);
		if (nt < 1)
			nt = 1;
		if (nt > 10000000 - first) {
			errprintf(err, "too many tasks");
			goto out;
		}
		char range[48];
		if (nt > 1)
			snprintf(range, sizeof(range), "%ld-%ld", first, first + nt - 1);
		else
			snprintf(range, sizeof(range), "%ld", first);
		strbuf_adds(&b, range);
		for (int i = 0; i < p[k].o->argc; i++)
			if (quote_word(&b, p[k].o->argv[i], err) < 0)
				goto out;
		strbuf_adds(&b, "\n");
		first += nt;
	}
	*ntasks = first;
	lines = srun_multi_prog_check("(srun A : B)", b.s, ntasks, err);
out:
	free(b.s);
	return lines;
}

/* STEP_CREATE's "het": parts 1.. as {job_id, step}, each with what the
 * first part gave and it did not of what Slurm propagates (--time,
 * --signal, -o/-e/-i, --propagate, -m) and of what the one set of tasks
 * shares (--mpi).  NULL when an option is not valid UTF-8. */
static json_t *parts_het(const struct step_part *p, int n, const json_t *first, char *const *env,
			 const char *cwd, const char *host, int port, const char *key)
{
	static const char *inherit[] = { "mpi", "time_limit", "signal", "signal_time", "stdout",
					 "stderr", "stdin", "propagate", "distribution" };
	json_t *het = json_array();
	for (int k = 1; k < n; k++) {
		char name[256];
		step_name(p[k].o, name, sizeof(name));
		json_t *step = srun_step_body(p[k].o, name, env, cwd, host, port, key, NULL);
		if (!step) {
			json_decref(het);
			return NULL;
		}
		for (size_t i = 0; i < sizeof(inherit) / sizeof(inherit[0]); i++) {
			json_t *mine = json_object_get(step, inherit[i]);
			json_t *theirs = json_object_get(first, inherit[i]);
			if (theirs && (!mine || (json_is_string(mine) && !*json_string_value(mine)) ||
				       (json_is_integer(mine) && !json_integer_value(mine))))
				json_object_set(step, inherit[i], theirs);
		}
		json_array_append_new(het, json_pack("{s:I, s:o}", "job_id", (json_int_t)p[k].job_id,
						     "step", step));
	}
	return het;
}

int main(int argc, char **argv)
{
	struct jobopt o;
	struct herd_error err = { "" };
	struct cmd_client client;
	bool have_client = false, own_alloc = false;
	char **env = NULL, **multi_prog = NULL, **wrapped = NULL, **bcast_argv = NULL;
	char *cwd = NULL, *work_dir = NULL;
	struct srun_io *io = NULL;
	json_t *layout = NULL, *job = NULL, *het = NULL;
	long long job_id = 0;
	struct step_part *parts = NULL;
	int nparts = 1;
	int status = 1;

	argv[0] = "srun";
	int r = srun_opts_parse(&o, JOBOPT_SRUN, argc, argv, NULL, stdout, &err);
	jobopt_report(&o, r, &err);
	if (r == SRUN_PARSE_INFO) {
		status = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	const char *task_prolog = jobopt_str(&o, "task-prolog"), *task_epilog = jobopt_str(&o, "task-epilog");
	if ((task_prolog || task_epilog) && jobopt_flag(&o, "multi-prog")) {
		fprintf(stderr, "srun: error: --task-prolog and --task-epilog do not combine with "
			"--multi-prog here: give each program its own\n");
		goto out;
	}
	if (jobopt_given(&o, "relative") && !jobopt_int(&o, "jobid", 0)) {
		fprintf(stderr, "srun: fatal: --relative option invalid for job allocation request\n");
		goto out;
	}
	if (jobopt_given(&o, "relative") &&
	    (jobopt_given(&o, "req_nodelist") || jobopt_given(&o, "exc_nodelist"))) {
		fprintf(stderr, "srun: fatal: --relative cannot be given with -w or -x\n");
		goto out;
	}
	if (jobopt_flag(&o, "no-allocate")) {
		/* srun(1): root and SlurmUser only, on the nodes of -w; the step
		 * shares them with whatever runs there */
		if (getuid() != 0) {
			fprintf(stderr, "srun: error: --no-allocate is only for root or SlurmUser\n");
			goto out;
		}
		if (!jobopt_given(&o, "req_nodelist")) {
			fprintf(stderr, "srun: error: --no-allocate needs the nodes (-w)\n");
			goto out;
		}
		json_object_set_new(o.spec, "oversubscribe", json_true());
	}
	/* srun A : B, or --het-group=0,1: one step over several components */
	bool in_job = jobopt_int(&o, "jobid", 0) != 0;
	const char *het_size = getenv("SLURM_HET_SIZE");
	if (o.het_next || (in_job && het_size && jobopt_str(&o, "het-group"))) {
		nparts = step_parts(&o, &parts, &err);
		if (nparts < 0) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
	}
	if (nparts > 1 && jobopt_flag(&o, "multi-prog")) {
		fprintf(stderr, "srun: fatal: --multi-prog cannot span more than one heterogeneous job "
			"component\n");
		goto out;
	}
	long het_n;
	if (nparts > 1 && in_job && het_size && opt_count(het_size, &het_n) == 0 && het_n > 0) {
		if (parts_in_het_job(parts, nparts, het_n, &err) < 0) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
	} else if (nparts > 1 && in_job) {
		long ntasks;
		multi_prog = parts_as_multi_prog(parts, nparts, &ntasks, &err);
		if (!multi_prog) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
		json_object_set_new(o.spec, "ntasks", json_integer(ntasks));
		nparts = 1;
	}
	if (!multi_prog && jobopt_flag(&o, "multi-prog")) {
		long ntasks = jobopt_int(&o, "ntasks", 0);
		multi_prog = srun_multi_prog_read(o.argv[0], &ntasks, &err);
		if (!multi_prog) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
		json_object_set_new(o.spec, "ntasks", json_integer(ntasks));
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "srun: error: getcwd failed: %s\n", strerror(errno));
		goto out;
	}
	const char *chdir_to = jobopt_str(&o, "chdir");
	work_dir = chdir_to ? abs_path(chdir_to, cwd) : xstrdup(cwd);
	if (opt_export_env(jobopt_str(&o, "export"), environ, &env, NULL, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	have_client = true;
	if (jobopt_gres_check(&o, client.conf, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	const char *cluster = jobopt_clusters(&o, &client);
	if (cluster && !*cluster)
		goto out;
	srun_alloc_catch_signals();
	signal(SIGPIPE, SIG_IGN);

	char name[256];
	step_name(&o, name, sizeof(name));
	if (jobopt_int(&o, "jobid", 0)) {
		job_id = jobopt_int(&o, "jobid", 0);
	} else {
		json_t *body = srun_alloc_body(&o, name, env, work_dir);
		if (!body) {
			fprintf(stderr, "srun: error: an option is not valid UTF-8\n");
			goto out;
		}
		r = srun_alloc_submit(&client, "srun", &o, body, &job_id);
		json_decref(body);
		if (r != 0) {
			status = r > 0 ? 0 : 1;
			goto out;
		}
		own_alloc = true;
		if (srun_alloc_wait(&client, "srun", &o, job_id, true, &job) < 0) {
			own_alloc = false;   /* cancelled or ended: nothing to give back */
			goto out;
		}
		if (nparts > 1) {   /* the heterogeneous job just made: its components */
			long long ids[HET_MAX_GROUPS] = { 0 };
			int n = srun_alloc_het_env(&client, job_id, ids, HET_MAX_GROUPS);
			for (int k = 0; k < nparts; k++)
				parts[k].job_id = parts[k].group < n ? ids[parts[k].group] : 0;
			for (int k = 0; k < nparts; k++)
				if (!parts[k].job_id) {
					fprintf(stderr, "srun: error: Attempt to run a job step with het group "
						"value of %ld, but the job allocation has maximum value of %d\n",
						parts[k].group, n - 1);
					goto out;
				}
			opt_strv_free(env);
			env = NULL;
			if (opt_export_env(jobopt_str(&o, "export"), environ, &env, NULL, &err) < 0) {
				fprintf(stderr, "srun: error: %s\n", err.text);
				goto out;
			}
		}
		if (o.verbose)
			fprintf(stderr, "srun: jobid %lld: nodes(%lld):`%s', cpu counts: %lld\n", job_id,
				cmd_jint(job, "num_nodes"), cmd_jstr(job, "nodes"),
				cmd_jint(job, "num_cpus"));
	}

	if (jobopt_given(&o, "relative")) {
		char *nodes = relative_nodes(&o, getenv("SLURM_JOB_NODELIST"), &err);
		if (!nodes) {
			fprintf(stderr, "srun: error: %s\n", err.text);
			goto out;
		}
		struct hostlist *step_nodes = hostlist_create(nodes);
		json_object_set_new(o.spec, "req_nodelist", json_string(nodes));
		json_object_set_new(o.spec, "nodes", json_integer((json_int_t)hostlist_count(step_nodes)));
		hostlist_destroy(step_nodes);
		free(nodes);
	}
	const char *prolog = jobopt_str(&o, "prolog");
	if (prolog) {
		int st = run_hook(prolog, &o, job_id);
		if (st) {
			fprintf(stderr, "srun: error: srun prolog failed rc = %d. Aborting step.\n",
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			goto out;
		}
	}

	char host[64];
	if (srun_local_addr(&client, host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (jobopt_given(&o, "bcast") && nparts == 1 && !multi_prog &&
	    srun_bcast(&client, &o, job_id, host, work_dir, &env, &bcast_argv) < 0)
		goto out;
	if (task_prolog || task_epilog)
		wrapped = task_wrap(&o, task_prolog, task_epilog);
	struct srun_io_opts io_opts = {
		.label = jobopt_flag(&o, "label"), .unbuffered = jobopt_flag(&o, "unbuffered"),
		.pty = jobopt_flag(&o, "pty"), .quiet = jobopt_flag(&o, "quiet"),
		.disable_status = jobopt_flag(&o, "disable-status"),
		.quit_on_interrupt = jobopt_flag(&o, "quit-on-interrupt"),
		.kill_on_bad_exit = (int)jobopt_int(&o, "kill-on-bad-exit", 0),
		.max_wait = (int)jobopt_int(&o, "wait", 0),
		.stdin_task = srun_stdin_task(&o),
		.stdin_file = jobopt_given(&o, "input"),
		.stdout_file = jobopt_given(&o, "output"), .stderr_file = jobopt_given(&o, "error"),
		.kill_wait = (int)conf_get_int(client.conf, "KillWait", 30),
	};
	io = srun_io_create(host, &io_opts, &err);
	if (!io) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	json_t *step = srun_step_body(&o, name, env, work_dir, host, srun_io_port(io),
				      srun_io_key(io), multi_prog);
	if (!step) {
		fprintf(stderr, "srun: error: the command or an option is not valid UTF-8\n");
		goto out;
	}
	if (own_alloc) {   /* the job was made for this step: it has all of it */
		static const char *const asked[] = { "tres_per_step", "tres_per_node", "tres_per_socket",
						     "tres_per_task", "gres_none" };
		for (size_t k = 0; k < sizeof(asked) / sizeof(asked[0]); k++)
			json_object_del(step, asked[k]);
	}
	long long step_job = job_id;   /* a het step: the first part's component */
	if (nparts > 1) {
		het = parts_het(parts, nparts, step, env, work_dir, host, srun_io_port(io), srun_io_key(io));
		if (!het) {
			json_decref(step);
			fprintf(stderr, "srun: error: the command or an option is not valid UTF-8\n");
			goto out;
		}
		step_job = parts[0].job_id;
	}
	layout = srun_step_create(&client, &o, step_job, step, het);
	json_decref(step);
	if (!layout) {
		if (srun_alloc_interrupted && own_alloc)
			fprintf(stderr, "srun: Job allocation %lld has been revoked.\n", job_id);
		goto out;
	}
	if (srun_io_set_step(io, step_job, layout, &client, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	if (o.verbose)
		fprintf(stderr, "srun: launching StepId=%lld.%lld on host%s %s, %lld tasks\n", job_id,
			cmd_jint(layout, "step_id"), cmd_jint(layout, "num_nodes") > 1 ? "s" : "",
			cmd_jstr(layout, "nodes"), cmd_jint(layout, "num_tasks"));
	status = srun_io_run(io);
	if (jobopt_str(&o, "epilog")) {
		int st = run_hook(jobopt_str(&o, "epilog"), &o, job_id);
		if (st)
			fprintf(stderr, "srun: error: srun epilog failed status=%d\n",
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}

out:
	if (own_alloc)
		srun_alloc_complete(&client, "srun", job_id, (status & 0xff) << 8);
	srun_io_destroy(io);
	json_decref(layout);
	json_decref(job);
	json_decref(het);
	free(parts);
	if (have_client)
		cmd_client_fini(&client);
	opt_strv_free(env);
	opt_strv_free(multi_prog);
	free(cwd);
	free(work_dir);
	free(wrapped);
	srun_bcast_free(bcast_argv);
	jobopt_free(&o);
	return status;
}
