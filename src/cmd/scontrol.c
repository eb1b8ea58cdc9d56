/* scontrol: show jobs, nodes and partitions in Slurm's KEY=VALUE layout
 * (one record per paragraph, or one line with -o), hold/uhold/release jobs,
 * ping the controller, and expand/compress hostlists (no controller needed).
 * Fields Herd does not have show Slurm's own "nothing here" placeholders;
 * the records themselves are rendered in record.c. */
#define _GNU_SOURCE   /* vasprintf */
#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/record.h"
#include "cmd/scontrol_resv.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

struct scontrol {
	bool oneliner;
	int details;                /* -d */
	bool quiet;
	struct cmd_client client;
	bool client_ok;
};

static int client(struct scontrol *sc)
{
	struct herd_error err = { "" };
	if (sc->client_ok)
		return 0;
	if (cmd_client_init(&sc->client, &err) < 0) {
		fprintf(stderr, "scontrol: error: %s\n", err.text);
		return -1;
	}
	sc->client_ok = true;
	return 0;
}

/* An output path of a meta record with %a left (std_out_task): that task's. */
static char *task_path(const char *pattern, uint32_t task)
{
	struct strbuf out = { 0 };
	strbuf_add(&out, "", 0);
	for (const char *p = pattern; *p; p++) {
		char num[16];
		if (p[0] == '%' && p[1] == 'a')
			strbuf_add(&out, num, (size_t)snprintf(num, sizeof(num), "%u", (unsigned)task));
		else if (p[0] == '%' && p[1] == '%')
			strbuf_add(&out, "%", 1);
		else
			strbuf_add(&out, p, p[0] == '%' && p[1] ? 2 : 1);
		if (p[0] == '%' && p[1])
			p++;
	}
	return out.s;
}

/* "show job A_T" of tasks still pending in the meta record: each as its own
 * record would be (Slurm: JobId=A ArrayTaskId=T, %a the task), without
 * splitting the record in the controller.  How many were shown. */
static size_t show_pending_tasks(struct scontrol *sc, const json_t *meta,
				 const struct bitmap *tasks, time_t now)
{
	struct bitmap *pending = bitmap_parse(cmd_jstr(meta, "array_tasks"), UINT32_MAX);
	size_t shown = 0;

	for (uint32_t t = pending ? bitmap_next(pending, 0) : BITMAP_NONE; t != BITMAP_NONE;
	     t = bitmap_next(pending, t + 1)) {
		if (!bitmap_test(tasks, t))
			continue;
		json_t *job = json_deep_copy(meta);
		json_object_set_new(job, "array_task_id", json_integer(t));
		const char *keys[][2] = { { "std_out_task", "std_out" }, { "std_err_task", "std_err" } };
		for (size_t k = 0; k < 2; k++) {
			if (!*cmd_jstr(meta, keys[k][0]))
				continue;   /* an older controller: the meta record's path */
			char *path = task_path(cmd_jstr(meta, keys[k][0]), t);
			json_object_set_new(job, keys[k][1], json_string(path));
			free(path);
		}
		struct record r = { 0 };
		record_job(job, now, sc->details, &r);
		record_print(&r, sc->oneliner);
		json_decref(job);
		shown++;
	}
	bitmap_destroy(pending);
	return shown;
}

/* -d: each job's DerivedExitCode from its steps (STEP_INFO has those of
 * the jobs the controller still holds), as "derived_exit_code". */
static void add_derived_exit_codes(struct scontrol *sc, json_t *jobs)
{
	struct herd_error err = { "" };
	json_t *ids = json_array(), *reply = NULL, *job, *step;
	size_t i, k;

	json_array_foreach(jobs, i, job)
		json_array_append_new(ids, json_integer(cmd_jint(job, "job_id")));
	json_t *body = json_pack("{s:o}", "job_ids", ids);
	int rc = cmd_call(&sc->client, MSG_STEP_INFO, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {   /* a controller without steps: 0:0 as before */
		json_decref(reply);
		return;
	}
	json_t *steps = json_object_get(reply, "steps");
	json_array_foreach(jobs, i, job) {
		json_t *mine = json_array();
		json_array_foreach(steps, k, step)
			if (cmd_jint(step, "job_id") == cmd_jint(job, "job_id"))
				json_array_append(mine, step);
		int status = cmd_step_derived_status(mine, cmd_jstr(job, "state"),
						     cmd_jint(job, "end_time"));
		json_object_set_new(job, "derived_exit_code", json_integer(status));
		json_decref(mine);
	}
	json_decref(reply);
}

/* Herd's TeamJobs (doc/accounting.md): what members of the job's account
 * did to it besides its owner, as TeamActs=act:user@time,..., after
 * Power= (before -dd's BatchScript=).  Jobs without team acts show none. */
static void add_team_acts(const json_t *job, struct record *r)
{
	char *acts = fmt_team_acts(json_object_get(job, "acts"));
	if (!*acts) {
		free(acts);
		return;
	}
	struct strbuf line = { 0 };
	strbuf_adds(&line, "TeamActs=");
	strbuf_adds(&line, acts);
	free(acts);
	record_add(r, "%s", line.s);
	free(line.s);
	/* into its place: before BatchScript= or the record's closing empty line */
	size_t at = r->count - 1;
	while (at > 0 && (!*r->lines[at - 1] || !strncmp(r->lines[at - 1], "BatchScript=", 12)))
		at--;
	char *mine = r->lines[r->count - 1];
	memmove(&r->lines[at + 1], &r->lines[at], (r->count - 1 - at) * sizeof(*r->lines));
	r->lines[at] = mine;
}

static int show_jobs(struct scontrol *sc, const char *arg)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *body = json_object();

	struct bitmap *tasks = NULL;   /* show job A_T: those tasks of array A */
	if (arg) {
		long id;
		if (cmd_job_id_parse(arg, &id, &tasks) < 0) {
			json_decref(body);
			fprintf(stderr, "scontrol_print_job error: %s\n",
				herd_strerror(HERD_ERR_INVALID_JOB));
			return 1;
		}
		json_object_set_new(body, "job_ids", json_pack("[I]", (json_int_t)id));
	}
	if (sc->details > 1)
		json_object_set_new(body, "script", json_true());
	if (client(sc) < 0) {
		json_decref(body);
		bitmap_destroy(tasks);
		return 1;
	}
	int rc = cmd_call(&sc->client, MSG_JOB_INFO, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", err.text);
		bitmap_destroy(tasks);
		return 1;
	}
	json_t *jobs = json_object_get(reply, "jobs");
	time_t now = cmd_jint(reply, "time");
	size_t i, shown = 0;
	json_t *job;
	if (sc->details)
		add_derived_exit_codes(sc, jobs);
	json_array_foreach(jobs, i, job) {
		if (tasks && !cmd_array_task_named(job, tasks))
			continue;
		if (tasks && cmd_jint(job, "array_task_id") == CMD_NO_TASK) {
			shown += show_pending_tasks(sc, job, tasks, now);
			continue;
		}
		struct record r = { 0 };
		record_job(job, now, sc->details, &r);
		add_team_acts(job, &r);
		record_print(&r, sc->oneliner);
		shown++;
	}
	if (!shown && tasks) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", herd_strerror(HERD_ERR_INVALID_JOB));
		rc = 1;
	} else if (!shown) {
		printf("No jobs in the system\n");
	}
	bitmap_destroy(tasks);
	json_decref(reply);
	return rc ? 1 : 0;
}

/* Slurm's order: by job (an array's tasks by task ID), then batch,
 * extern, 0, 1 ... */
static long long step_job_key(const json_t *s)
{
	long long array = cmd_jint(s, "array_job_id");
	return array && cmd_jint(s, "array_task_id") != CMD_NO_TASK ? array : cmd_jint(s, "job_id");
}

static int by_job_then_step(const void *x, const void *y)
{
	const json_t *a = *(const json_t *const *)x, *b = *(const json_t *const *)y;
	long long v[][2] = {
		{ step_job_key(a), step_job_key(b) },
		{ cmd_jint(a, "array_job_id") ? cmd_jint(a, "array_task_id") : -1,
		  cmd_jint(b, "array_job_id") ? cmd_jint(b, "array_task_id") : -1 },
		{ cmd_jint(a, "job_id"), cmd_jint(b, "job_id") },
		{ cmd_step_rank(cmd_jint(a, "step_id")), cmd_step_rank(cmd_jint(b, "step_id")) },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i][0] != v[i][1])
			return v[i][0] < v[i][1] ? -1 : 1;
	return 0;
}

/* The raw job IDs a "N" or "A_T" names (an array's: every task's), as
 * JOB_INFO has them; 0 with *ids NULL when the controller knows no such
 * job, -1 after a message. */
static int step_job_ids(struct scontrol *sc, const struct cmd_step_ref *ref, json_t **ids)
{
	struct herd_error err = { "" };
	json_t *reply = NULL, *job;
	json_t *body = json_pack("{s:[I], s:[s,s,s]}", "job_ids", (json_int_t)ref->id, "fields",
				 "job_id", "array_job_id", "array_task_id");
	size_t i;

	*ids = NULL;
	int rc = cmd_call(&sc->client, MSG_JOB_INFO, body, &reply, &err);
	json_decref(body);
	if (rc == HERD_ERR_INVALID_JOB)
		return 0;
	if (rc != 0) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", err.text);
		return -1;
	}
	*ids = json_array();
	json_array_foreach(json_object_get(reply, "jobs"), i, job)
		if (ref->task < 0 || (cmd_jint(job, "array_job_id") == ref->id &&
				      cmd_jint(job, "array_task_id") == ref->task))
			json_array_append_new(*ids, json_integer(cmd_jint(job, "job_id")));
	json_decref(reply);
	if (!json_array_size(*ids)) {
		json_decref(*ids);
		*ids = NULL;
	}
	return 0;
}

/* "show step [N | N.S | A_T.S]": the steps that run, in Slurm's record.
 * As Slurm's scontrol, an argument that names no job lists them all. */
static int show_steps(struct scontrol *sc, const char *arg)
{
	struct herd_error err = { "" };
	struct cmd_step_ref ref;
	bool one = arg && cmd_step_ref_parse(arg, true, &ref) == 0;
	json_t *reply = NULL, *body = json_object(), *ids = NULL, *step;
	size_t i, n = 0;

	if (client(sc) < 0 || (one && step_job_ids(sc, &ref, &ids) < 0)) {
		json_decref(body);
		return 1;
	}
	if (one && !ids) {
		json_decref(body);
		fprintf(stderr, "slurm_get_job_steps error: %s\n", herd_strerror(HERD_ERR_INVALID_JOB));
		return 1;
	}
	if (ids)
		json_object_set_new(body, "job_ids", ids);
	int rc = cmd_call(&sc->client, MSG_STEP_INFO, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n", err.text);
		return 1;
	}
	json_t *steps = json_object_get(reply, "steps");
	const json_t **show = xmalloc((json_array_size(steps) + 1) * sizeof(*show));
	json_array_foreach(steps, i, step) {
		/* a step that ended is gone from Slurm's controller */
		if (strcmp(cmd_jstr(step, "state"), "RUNNING") ||
		    (one && !cmd_step_ref_matches(&ref, step)))
			continue;
		show[n++] = step;
	}
	qsort(show, n, sizeof(*show), by_job_then_step);
	for (i = 0; i < n; i++) {
		struct record r = { 0 };
		record_step(show[i], &r);
		record_print(&r, sc->oneliner);
	}
	free(show);
	json_decref(reply);
	if (n)
		return 0;
	if (!one) {
		printf("No job steps in the system\n");
		return 0;
	}
	/* Slurm names the step as typed, "N." for a job's steps */
	char name[24];
	const char *job = arg, *dot = strchr(arg, '.');
	printf("Job step %.*s.%s not found\n", (int)(dot ? dot - job : (long)strlen(job)), job,
	       ref.step == CMD_STEP_NONE ? "" : cmd_step_name(ref.step, name, sizeof(name)));
	return 1;
}

static int load(struct scontrol *sc, int type, const char *what, json_t **reply)
{
	struct herd_error err = { "" };
	if (client(sc) < 0)
		return -1;
	json_t *body = json_object();
	int rc = cmd_call(&sc->client, type, body, reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", what, err.text);
		return -1;
	}
	return 0;
}

static int show_nodes(struct scontrol *sc, const char *name)
{
	json_t *reply;
	if (load(sc, MSG_NODE_INFO, "slurm_load_node error", &reply) < 0)
		return 1;
	struct hostlist *want = name ? hostlist_create(name) : NULL;
	size_t i, shown = 0;
	json_t *node;
	json_array_foreach(json_object_get(reply, "nodes"), i, node) {
		if (want && hostlist_find(want, cmd_jstr(node, "name")) < 0)
			continue;
		struct record r = { 0 };
		record_node(node, conf_get_int(sc->client.conf, "SlurmdPort", 6818), &r);
		record_print(&r, sc->oneliner);
		shown++;
	}
	hostlist_destroy(want);
	json_decref(reply);
	if (name && !shown) {
		printf("Node %s not found\n", name);
		return 1;
	}
	return 0;
}

static int show_partitions(struct scontrol *sc, const char *name)
{
	json_t *reply, *nreply;
	if (load(sc, MSG_PART_INFO, "slurm_load_partitions error", &reply) < 0)
		return 1;
	if (load(sc, MSG_NODE_INFO, "slurm_load_node error", &nreply) < 0) {
		json_decref(reply);
		return 1;
	}
	size_t i, shown = 0;
	json_t *part;
	json_array_foreach(json_object_get(reply, "partitions"), i, part) {
		if (name && strcmp(name, cmd_jstr(part, "name")))
			continue;
		/* TRES mem: the sum of the partition's nodes' memory. */
		struct hostlist *members = hostlist_create(cmd_jstr(part, "nodes"));
		long long mem = 0;
		size_t k;
		json_t *node;
		json_array_foreach(json_object_get(nreply, "nodes"), k, node)
			if (members && hostlist_find(members, cmd_jstr(node, "name")) >= 0)
				mem += cmd_jint(node, "real_memory");
		hostlist_destroy(members);
		struct record r = { 0 };
		record_partition(part, mem, conf_get(sc->client.conf, "PreemptMode"), &r);
		record_print(&r, sc->oneliner);
		shown++;
	}
	json_decref(reply);
	json_decref(nreply);
	if (name && !shown) {
		printf("Partition %s not found\n", name);
		return 1;
	}
	if (!shown)
		printf("No partitions in the system\n");
	return 0;
}

/* Why a hostlist was not expanded: malformed, or over hostlist.c's caps
 * (checked before expanding; the expression is then not echoed whole). */
static void hostlist_error(const char *expr)
{
	if (errno == E2BIG)
		fprintf(stderr, "scontrol: error: Hostlist too large: it expands to more than "
			"1000000 names or 16 MiB\n");
	else
		fprintf(stderr, "Invalid hostlist: %s\n", expr);
}

static int show_hostnames(const char *expr)
{
	if (!expr)
		expr = getenv("SLURM_JOB_NODELIST");
	struct hostlist *hl = hostlist_create(expr ? expr : "");
	if (!hl) {
		hostlist_error(expr);
		return 1;
	}
	if (!hostlist_count(hl)) {
		fprintf(stderr, "scontrol: error: host list is empty\n");
		hostlist_destroy(hl);
		return 1;
	}
	for (size_t i = 0; i < hostlist_count(hl); i++)
		printf("%s\n", hostlist_nth(hl, i));
	hostlist_destroy(hl);
	return 0;
}

static int show_hostlist(const char *expr, bool sorted)
{
	if (!expr) {
		fprintf(stderr, "scontrol: error: host list is empty\n");
		return 1;
	}
	struct hostlist *hl = hostlist_create(expr);
	if (!hl) {
		hostlist_error(expr);
		return 1;
	}
	if (!hostlist_count(hl)) {
		fprintf(stderr, "scontrol: error: host list is empty\n");
		hostlist_destroy(hl);
		return 1;
	}
	if (sorted)
		hostlist_uniq(hl);
	char *s = hostlist_ranged_string(hl);
	printf("%s\n", s);
	free(s);
	hostlist_destroy(hl);
	return 0;
}

static int cmd_ping(struct scontrol *sc);

struct config_line {
	const char *key;
	char *value;
};

static int by_key(const void *a, const void *b)
{
	return strcasecmp(((const struct config_line *)a)->key,
			  ((const struct config_line *)b)->key);
}

/* "scontrol show config": the keys of the configuration this command and
 * the controller read (the same file), with Slurm's defaults for the keys
 * Herd acts on, sorted, in Slurm's "Key = Value" layout, then the ping line. */
static int show_config(struct scontrol *sc)
{
	static const struct { const char *key, *dflt; } defaults[] = {
		{ "AuthType", "auth/munge" }, { "ClusterName", NULL }, { "FirstJobId", "1" },
		{ "KillWait", "30" }, { "MaxMessageSize", "67108864" }, { "MinJobAge", "300" },
		{ "ReturnToService", "0" }, { "SlurmctldHost", NULL }, { "SlurmctldPort", NULL },
		{ "SlurmdPort", "6818" }, { "SlurmdSpoolDir", "/var/spool/herd/%n" },
		{ "SlurmdTimeout", "300" }, { "SlurmUser", "root" },
		{ "StateSaveLocation", "/var/spool/herd/ctld" },
	};
	char stamp[32], port[16];
	if (client(sc) < 0)
		return 1;
	const struct conf *conf = sc->client.conf;
	size_t n = 0, cap = conf->nkv + sizeof(defaults) / sizeof(defaults[0]) + 1;
	struct config_line *lines = xmalloc(cap * sizeof(*lines));

	for (size_t i = 0; i < conf->nkv; i++)
		lines[n++] = (struct config_line){ conf->kv[i].key, xstrdup(conf->kv[i].value) };
	for (size_t d = 0; d < sizeof(defaults) / sizeof(defaults[0]); d++) {
		if (conf_get(conf, defaults[d].key))
			continue;
		const char *v = defaults[d].dflt;
		if (!strcmp(defaults[d].key, "ClusterName"))
			v = conf_cluster_name(conf);
		else if (!strcmp(defaults[d].key, "SlurmctldHost"))
			v = conf_ctld_host(conf);
		else if (!strcmp(defaults[d].key, "SlurmctldPort")) {
			snprintf(port, sizeof(port), "%d", conf_ctld_port(conf));
			v = port;
		}
		lines[n++] = (struct config_line){ defaults[d].key, xstrdup(v) };
	}
	qsort(lines, n, sizeof(*lines), by_key);
	printf("Configuration data as of %s\n", fmt_timestamp(time(NULL), stamp, sizeof(stamp)));
	for (size_t i = 0; i < n; i++) {
		printf("%-23s = %s\n", lines[i].key, lines[i].value);
		free(lines[i].value);
	}
	free(lines);
	printf("\n");
	return cmd_ping(sc);
}

/* Slurm accepts any unambiguous prefix of an entity name; so do we for the
 * ones scripts use. */
static bool is_word(const char *arg, const char *word, size_t min)
{
	size_t n = strlen(arg);
	return n >= min && n <= strlen(word) && !strncasecmp(arg, word, n);
}

static int cmd_show(struct scontrol *sc, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:show\n");
		return 1;
	}
	const char *what = argv[0], *arg = argc > 1 ? argv[1] : NULL;
	if (argc > 2) {
		fprintf(stderr, "too many arguments for keyword:show\n");
		return 1;
	}
	if (is_word(what, "jobs", 1) || is_word(what, "jobid", 4))
		return show_jobs(sc, arg);
	if (is_word(what, "steps", 4))
		return show_steps(sc, arg);
	if (is_word(what, "nodes", 1) || is_word(what, "nodename", 5))
		return show_nodes(sc, arg);
	if (is_word(what, "partitions", 1) || is_word(what, "partitionname", 10))
		return show_partitions(sc, arg);
	if (is_word(what, "config", 1))
		return show_config(sc);
	if (is_word(what, "reservations", 3) || is_word(what, "reservationname", 12))
		return client(sc) < 0 ? 1 : scontrol_resv_show(&sc->client, arg, sc->oneliner);
	if (!strcasecmp(what, "hostnames"))
		return show_hostnames(arg);
	if (!strcasecmp(what, "hostlist"))
		return show_hostlist(arg, false);
	if (!strcasecmp(what, "hostlistsorted"))
		return show_hostlist(arg, true);
	fprintf(stderr, "invalid entity:%s for keyword:show \n", what);
	return 1;
}

/* "N" or one array task "A_T" (task -1 for N); -1 when malformed. */
static int job_id_arg(const char *s, long *id, long long *task)
{
	struct bitmap *tasks;
	if (cmd_job_id_parse(s, id, &tasks) < 0)
		return -1;
	*task = tasks ? (long long)bitmap_next(tasks, 0) : -1;
	bool one = !tasks || bitmap_count(tasks) == 1;
	bitmap_destroy(tasks);
	return one ? 0 : -1;
}

/* The most tasks one "hold A_[...]" names: one call each. */
#define HOLD_TASKS_MAX 100000

/* hold/uhold/release/requeue of one ID as typed ("A", "A_3", "A_[1-2]":
 * each task of the range, as Slurm does); 0 or an rc, err filled. */
static int update_one_id(struct scontrol *sc, const char *action, const char *arg,
			 struct herd_error *err)
{
	struct bitmap *tasks;
	long id;
	int rc = 0;

	if (cmd_job_id_parse(arg, &id, &tasks) < 0 ||
	    (tasks && (!bitmap_count(tasks) || bitmap_count(tasks) > HOLD_TASKS_MAX))) {
		bitmap_destroy(tasks);
		errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_JOB));
		return HERD_ERR_INVALID_JOB;
	}
	uint32_t t = tasks ? bitmap_next(tasks, 0) : BITMAP_NONE;
	do {
		json_t *reply = NULL;
		json_t *body = json_pack("{s:I, s:s}", "job_id", (json_int_t)id, "action", action);
		if (t != BITMAP_NONE)
			json_object_set_new(body, "array_task", json_integer(t));
		int one = cmd_call(&sc->client, MSG_UPDATE_JOB, body, &reply, err);
		json_decref(body);
		json_decref(reply);
		if (one)
			rc = one;   /* the others are still tried */
		t = t == BITMAP_NONE ? t : bitmap_next(tasks, t + 1);
	} while (t != BITMAP_NONE);
	bitmap_destroy(tasks);
	return rc;
}

static int cmd_update_job(struct scontrol *sc, const char *action, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:%s\n", action);
		return 1;
	}
	if (client(sc) < 0)
		return 1;
	int status = 0;
	for (int a = 0; a < argc; a++) {
		size_t n;
		/* "scontrol hold 1,2 3": ids by commas or words. */
		char **ids = cmd_job_ids_split(argv[a], &n);
		for (size_t i = 0; i < n; i++) {
			struct herd_error err = { "" };
			if (update_one_id(sc, action, ids[i], &err) != 0) {
				/* Slurm names the job, then the call that failed. */
				fprintf(stderr, "%s for job %s\n", err.text, ids[i]);
				fprintf(stderr, "%s error: %s\n", strncmp(action, "requeue", 7) ?
					"slurm_suspend" : "slurm_requeue", err.text);
				status = 1;
			}
		}
		opt_strv_free(ids);
	}
	return status;
}

/* "Key=value" against a key: the value, or NULL. */
static const char *kv_value(const char *arg, const char *key)
{
	size_t n = strlen(key);
	return !strncasecmp(arg, key, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

/* job: the ID as typed, for Slurm's "... for job N" (NULL: none). */
static int update_call(struct scontrol *sc, int type, json_t *body, const char *job)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	int rc = client(sc) < 0 ? -1 : cmd_call(&sc->client, type, body, &reply, &err);
	json_decref(body);
	json_decref(reply);
	if (rc > 0 && job)
		fprintf(stderr, "%s for job %s\n", err.text, job);
	else if (rc > 0)
		fprintf(stderr, "slurm_update error: %s\n", err.text);
	return rc ? 1 : 0;
}

/* "update job" keys that map straight to one FIELDS key; what the value is. */
enum job_value { V_STR, V_COUNT, V_UINT, V_BOOL01, V_LIMIT, V_WHEN, V_MEM, V_MAIL };

static const struct job_key {
	const char *key, *alias, *field;
	enum job_value kind;
} job_keys[] = {
	{ "Partition", NULL, "partition", V_STR },
	{ "Name", "JobName", "name", V_STR },
	{ "Comment", NULL, "comment", V_STR },
	{ "Dependency", NULL, "dependency", V_STR },
	{ "Account", NULL, "account", V_STR },
	{ "QOS", NULL, "qos", V_STR },
	{ "MailUser", NULL, "mail_user", V_STR },
	{ "MailType", NULL, "mail_type", V_MAIL },
	{ "Requeue", NULL, "requeue", V_BOOL01 },
	{ "TimeLimit", NULL, "time_limit", V_LIMIT },
	{ "TimeMin", NULL, "time_min", V_LIMIT },
	{ "StartTime", "BeginTime", "begin_time", V_WHEN },
	{ "Deadline", NULL, "deadline", V_WHEN },
	{ "ExcNodeList", NULL, "exc_nodelist", V_STR },
	{ "ReqNodeList", "NodeList", "req_nodelist", V_STR },
	{ "Features", NULL, "features", V_STR },
	{ "Reservation", "ReservationName", "reservation", V_STR },
	{ "ArrayTaskThrottle", NULL, "array_throttle", V_UINT },
	{ "Priority", NULL, "priority", V_UINT },
	{ "NumTasks", "ReqProcs", "num_tasks", V_COUNT },
	{ "CPUsPerTask", NULL, "cpus_per_task", V_COUNT },
	{ "MinMemoryNode", NULL, "min_mem_node", V_MEM },
	{ "MinMemoryCPU", NULL, "min_mem_cpu", V_MEM },
};

/* The value of one of job_keys as JSON; NULL after a message. */
static json_t *job_value(const struct job_key *k, const char *v, const char *arg)
{
	int64_t t;
	time_t when;
	uint64_t n;
	unsigned mail;

	switch (k->kind) {
	case V_STR:
		return json_string(v);
	case V_COUNT:
		if (parse_uint(v, 1000000000, &n) < 0 || n < 1)
			break;
		return json_integer((json_int_t)n);
	case V_UINT:
		if (parse_uint(v, UINT32_MAX, &n) < 0)
			break;
		return json_integer((json_int_t)n);
	case V_BOOL01:   /* Slurm: Requeue=0|1 */
		if (strcmp(v, "0") && strcmp(v, "1"))
			break;
		return json_boolean(*v == '1');
	case V_LIMIT:
		if (parse_time_limit(v, &t) < 0)
			break;
		return json_integer(t);
	case V_WHEN:
		if (opt_time_parse(v, time(NULL), false, &when) < 0) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", arg);
			return NULL;
		}
		return json_integer(when);
	case V_MEM:
		if (parse_size_mb(v, &n) < 0)
			break;
		return json_integer((json_int_t)n);
	case V_MAIL:
		if (parse_mail_type(v, &mail) < 0)
			break;
		return json_string(v);
	}
	fprintf(stderr, "scontrol: error: Invalid %s value\n", k->key);   /* Slurm: no value */
	return NULL;
}

/* One KEY=VALUE of "update job" into fields; 0, or 1 after a message. */
static int job_field(json_t *fields, const char *arg)
{
	const char *v;
	long n;

	for (size_t i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]); i++) {
		const struct job_key *k = &job_keys[i];
		if (!(v = kv_value(arg, k->key)) && !(k->alias && (v = kv_value(arg, k->alias))))
			continue;
		json_t *value = job_value(k, v, arg);
		if (!value)
			return 1;
		json_object_set_new(fields, k->field, value);
		return 0;
	}
	if ((v = kv_value(arg, "NumNodes")) || (v = kv_value(arg, "ReqNodes"))) {
		char *min = xstrdup(v);
		min[strcspn(min, "-")] = '\0';   /* "2-4": the minimum; Herd allocates exactly */
		int bad = opt_count(min, &n) < 0 || n < 1;
		free(min);
		if (bad) {
			fprintf(stderr, "scontrol: error: Invalid node count %s\n", v);
			return 1;
		}
		json_object_set_new(fields, "num_nodes", json_integer(n));
	} else if ((v = kv_value(arg, "Nice"))) {
		char *end;
		long long nice = strtoll(v, &end, 10);
		if (!*v || *end || nice < -2147483645LL || nice > 2147483645LL) {
			fprintf(stderr, "scontrol: error: Invalid nice value, must be between "
				"-2147483645 and 2147483645\n");
			return 1;
		}
		json_object_set_new(fields, "nice", json_integer(nice));
	} else {
		fprintf(stderr, "Update of this parameter is not supported: %s\n", arg);
		fprintf(stderr, "Request aborted\n");
		return 1;
	}
	return 0;
}

static int update_job(struct scontrol *sc, int argc, char **argv)
{
	json_t *fields = json_object();
	long id = -1;
	long long task = -1;
	const char *v, *job = NULL;

	for (int a = 0; a < argc; a++) {
		if ((v = kv_value(argv[a], "JobId")) || (v = kv_value(argv[a], "Job"))) {
			job = v;
			if (job_id_arg(v, &id, &task) < 0) {
				fprintf(stderr, "scontrol: error: Invalid job id specified\n");
				json_decref(fields);
				return 1;
			}
		} else if (job_field(fields, argv[a])) {
			json_decref(fields);
			return 1;
		}
	}
	if (!json_object_size(fields)) {
		fprintf(stderr, "No changes specified\n");
		json_decref(fields);
		return 1;
	}
	json_t *body = json_pack("{s:I, s:s, s:o}", "job_id", (json_int_t)id, "action", "update",
				 "fields", fields);
	if (task >= 0)
		json_object_set_new(body, "array_task", json_integer(task));
	return update_call(sc, MSG_UPDATE_JOB, body, job);
}

static int update_node(struct scontrol *sc, int argc, char **argv)
{
	const char *nodes = NULL, *state = NULL, *reason = NULL, *v;
	static const char *states[] = { "DRAIN", "DOWN", "RESUME", "IDLE", "UNDRAIN", NULL };

	for (int a = 0; a < argc; a++) {
		if ((v = kv_value(argv[a], "NodeName")))
			nodes = v;
		else if ((v = kv_value(argv[a], "State")))
			state = v;
		else if ((v = kv_value(argv[a], "Reason")))
			reason = v;
		else {
			fprintf(stderr, "Update of this parameter is not supported: %s\n", argv[a]);
			fprintf(stderr, "Request aborted\n");
			return 1;
		}
	}
	int k = 0;
	while (state && states[k] && strcasecmp(state, states[k]))
		k++;
	if (!state || !states[k]) {
		fprintf(stderr, "Invalid input: State=%s\nRequest aborted\n"
			"Valid states are: DOWN DRAIN IDLE RESUME UNDRAIN\n", state ? state : "");
		return 1;
	}
	if (k < 2 && (!reason || !*reason)) {
		fprintf(stderr, "You must specify a reason when DOWNING or DRAINING a node. "
			"Request denied\n");
		return 1;
	}
	json_t *body = json_pack("{s:s, s:s}", "nodes", nodes, "state", state);
	if (reason)
		json_object_set_new(body, "reason", json_string(reason));
	return update_call(sc, MSG_UPDATE_NODE, body, NULL);
}

/* "update JobId=N KEY=VALUE ..." or "update NodeName=LIST State=..." */
static int cmd_update(struct scontrol *sc, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:update\n");
		return 1;
	}
	for (int a = 0; a < argc; a++) {
		if (kv_value(argv[a], "JobId") || kv_value(argv[a], "Job"))
			return update_job(sc, argc, argv);
		if (kv_value(argv[a], "NodeName"))
			return update_node(sc, argc, argv);
		if (kv_value(argv[a], "ReservationName") || kv_value(argv[a], "Reservation"))
			return client(sc) < 0 ? 1 : scontrol_resv_run(&sc->client, RESV_OP_UPDATE, argc, argv);
	}
	fprintf(stderr, "No valid entity in update command\n");
	fprintf(stderr, "Input line must include \"NodeName\", \"PartitionName\", "
		"\"Reservation\", \"JobId\", or \"StepId\"\n");
	return 1;
}

static int cmd_ping(struct scontrol *sc)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	if (client(sc) < 0)
		return 1;
	json_t *body = json_object();
	int rc = cmd_call(&sc->client, MSG_PING, body, &reply, &err);
	json_decref(body);
	/* Slurm names the controller as configured: "name" of "name(addr)". */
	const char *host = conf_get(sc->client.conf, "SlurmctldHost");
	char *name = xstrdup(host ? host : conf_ctld_host(sc->client.conf));
	name[strcspn(name, "(,")] = '\0';
	printf("Slurmctld(primary) at %s is %s\n", name, rc == 0 ? "UP" : "DOWN");
	free(name);
	json_decref(reply);
	if (rc != 0 && getuid() == 0)   /* as Slurm: the call to act is for root */
		printf("*****************************************\n"
		       "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
		       "*****************************************\n");
	return rc ? 1 : 0;
}

/* "reconfigure": every daemon re-reads herd.conf.  Silent on success, as
 * Slurm's, but for Herd's warning naming what the file sets and Herd
 * ignores; a refusal (a file that does not load, a change that needs a
 * restart, a user who is not an administrator) is the controller's sentence. */
static int cmd_reconfigure(struct scontrol *sc, int argc)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;

	if (argc > 0) {
		fprintf(stderr, "too many arguments for keyword:reconfigure\n");
		return 1;
	}
	if (client(sc) < 0)
		return 1;
	json_t *body = json_object();
	int rc = cmd_call(&sc->client, MSG_RECONFIGURE, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		json_decref(reply);
		fprintf(stderr, "slurm_reconfigure error: %s\n", err.text);
		return 1;
	}
	/* Herd: the keys the file sets that Herd ignores (the controller's
	 * log has the same line) */
	const char *warning = json_string_value(json_object_get(reply, "warning"));
	if (warning)
		fprintf(stderr, "scontrol: warning: %s\n", warning);
	json_decref(reply);
	return 0;
}

/* "token [username=NAME] [lifespan=SECONDS]": a JWT minted by the
 * controller, which alone reads the key (AuthAltTypes=auth/jwt).  Root and
 * SlurmUser get one for anyone, a user for himself, as in Slurm. */
static int cmd_token(struct scontrol *sc, int argc, char **argv)
{
	struct herd_error err = { "" };
	json_t *body = json_object(), *reply = NULL;
	uint64_t lifespan;
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (eq && klen == 8 && !strncasecmp(argv[i], "username", 8) && eq[1]) {
			json_object_set_new(body, "username", json_string(eq + 1));
		} else if (eq && klen == 8 && !strncasecmp(argv[i], "lifespan", 8)) {
			if (parse_uint(eq + 1, 100ULL * 365 * 86400, &lifespan) < 0 || lifespan == 0) {
				fprintf(stderr, "scontrol: error: Invalid lifespan: %s\n", eq + 1);
				json_decref(body);
				return 1;
			}
			json_object_set_new(body, "lifespan", json_integer((json_int_t)lifespan));
		} else {
			fprintf(stderr, "scontrol: error: Invalid token parameter: %s\n", argv[i]);
			json_decref(body);
			return 1;
		}
	}
	if (!json_object_get(body, "username") && json_object_size(body) < (size_t)argc) {
		json_decref(body);   /* a name that is not UTF-8 */
		fprintf(stderr, "scontrol: error: Invalid user name\n");
		return 1;
	}
	if (client(sc) < 0) {
		json_decref(body);
		return 1;
	}
	rc = cmd_call(&sc->client, MSG_TOKEN_CREATE, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "scontrol: error: Unable to fetch token: %s\n", err.text);
		return 1;
	}
	printf("SLURM_JWT=%s\n", cmd_jstr(reply, "token"));
	json_decref(reply);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: scontrol [-o] [-Q] [-v] [-V] [COMMAND]\n");
}

static void help(void)
{
	printf("scontrol [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -h or --help: equivalent to \"help\" command\n"
	       "     -o or --oneliner: equivalent to \"oneliner\" command\n"
	       "     -Q or --quiet: equivalent to \"quiet\" command\n"
	       "     -v or --verbose: equivalent to \"verbose\" command\n"
	       "     -V or --version: equivalent to \"version\" command\n\n"
	       "    Valid <COMMAND> values are:\n"
	       "     create <SPECIFICATIONS>  create a new reservation\n"
	       "     delete <SPECIFICATIONS>  delete the specified reservation\n"
	       "     hold <job_list>          prevent specified job from starting\n"
	       "     ping                     print status of slurmctld daemons\n"
	       "     reconfigure              re-read the configuration file (all daemons)\n"
	       "     release <job_list>       permit specified job to start\n"
	       "     requeue <job_id>         re-queue a batch job\n"
	       "     requeuehold <job_id>     re-queue and hold a batch job\n"
	       "     resume <job_list>        resume previously suspended job (see suspend)\n"
	       "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
	       "                              is all records; ENTITY is job, step,\n"
	       "                              node, partition, hostnames, hostlist or\n"
	       "                              hostlistsorted\n"
	       "     suspend <job_list>       suspend specified job (see resume)\n"
	       "     token [username=<user>] [lifespan=<seconds>]\n"
	       "                              get a JSON Web Token (AuthAltTypes=auth/jwt)\n"
	       "     uhold <job_list>         place user hold on specified job\n"
	       "     update <SPECIFICATIONS>  update job or node configuration\n"
	       "     version                  display tool version number\n");
}

static int run_command(struct scontrol *sc, int argc, char **argv)
{
	const char *cmd = argv[0];
	int nargs = argc - 1;
	char **args = argv + 1;

	if (is_word(cmd, "show", 3))
		return cmd_show(sc, nargs, args);
	if (!strcasecmp(cmd, "hold"))
		return cmd_update_job(sc, "hold", nargs, args);
	if (!strcasecmp(cmd, "uhold"))
		return cmd_update_job(sc, "uhold", nargs, args);
	if (!strcasecmp(cmd, "release"))
		return cmd_update_job(sc, "release", nargs, args);
	if (!strcasecmp(cmd, "requeue"))
		return cmd_update_job(sc, "requeue", nargs, args);
	if (!strcasecmp(cmd, "requeuehold"))
		return cmd_update_job(sc, "requeuehold", nargs, args);
	if (!strcasecmp(cmd, "suspend"))
		return cmd_update_job(sc, "suspend", nargs, args);
	if (!strcasecmp(cmd, "resume"))
		return cmd_update_job(sc, "resume", nargs, args);
	if (!strcasecmp(cmd, "update"))
		return cmd_update(sc, nargs, args);
	/* create|delete: reservations only (partitions are herd.conf's) */
	if (is_word(cmd, "create", 2) || is_word(cmd, "delete", 3)) {
		if (nargs < 1) {
			fprintf(stderr, "too few arguments for keyword:%s\n", cmd);
			return 1;
		}
		return client(sc) < 0 ? 1 : scontrol_resv_run(&sc->client, is_word(cmd, "create", 2)
							  ? RESV_OP_CREATE : RESV_OP_DELETE, nargs, args);
	}
	if (!strcasecmp(cmd, "ping"))
		return cmd_ping(sc);
	if (is_word(cmd, "reconfigure", 3))
		return cmd_reconfigure(sc, nargs);
	if (!strcasecmp(cmd, "token"))
		return cmd_token(sc, nargs, args);
	if (!strcasecmp(cmd, "version")) {
		printf("%s\n", CMD_VERSION);
		return 0;
	}
	if (!strcasecmp(cmd, "help")) {
		help();
		return 0;
	}
	if (!strcasecmp(cmd, "oneliner")) {
		sc->oneliner = true;
		return 0;
	}
	fprintf(stderr, "invalid keyword: %s\n", cmd);
	return 1;
}

/* No command: read commands from stdin as Slurm's scontrol does, until
 * EOF, "quit" or "exit". */
static int interactive(struct scontrol *sc)
{
	char *line = NULL;
	size_t cap = 0;
	int status = 0;

	for (;;) {
		printf("scontrol: ");
		fflush(stdout);
		if (getline(&line, &cap, stdin) < 0)
			break;
		size_t n;
		char *p = line;
		for (char *q = p; *q; q++)
			if (*q == '\t' || *q == '\n' || *q == '\r')
				*q = ' ';
		char **words = opt_split(p, ' ', &n);
		if (n && (!strcasecmp(words[0], "quit") || !strcasecmp(words[0], "exit"))) {
			opt_strv_free(words);
			break;
		}
		if (n && run_command(sc, (int)n, words))
			status = 1;   /* an error anywhere is the exit code, as in Slurm */
		opt_strv_free(words);
	}
	free(line);
	return status;
}

enum { OPT_USAGE = 256 };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "oneliner", no_argument, NULL, 'o' },
		{ "details", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	struct scontrol sc = { 0 };
	int c, status = 1;

	argv[0] = "scontrol";
	/* '+': options stop at the command, so "show job -o" is not reordered. */
	while ((c = getopt_long(argc, argv, "+odQvVh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o': sc.oneliner = true; break;
		case 'd': sc.details++; break;
		case 'v': break;
		case 'Q': sc.quiet = true; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'h': help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"scontrol --help\" for more information\n");
			return 1;
		}
	}
	if (optind >= argc) {
		status = interactive(&sc);
	} else {
		status = run_command(&sc, argc - optind, argv + optind);
	}
	if (sc.client_ok)
		cmd_client_fini(&sc.client);
	return status;
}
