/* scontrol show: jobs, steps, nodes, partitions and the configuration in
 * Slurm's KEY=VALUE layout (one record per paragraph, or one line with -o).
 * Fields Herd does not have show Slurm's own "nothing here" placeholders;
 * the records themselves are rendered in record.c, reservations in
 * scontrol_resv.c, hostlists in scontrol_misc.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/record.h"
#include "cmd/scontrol.h"
#include "cmd/scontrol_resv.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

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
	long het_leader = 0, het_offset = 0;   /* show job L+N: that component */
	if (arg) {
		long id;
		int het = cmd_het_id_parse(arg, &het_leader, &het_offset);
		if (het > 0)
			id = het_leader + het_offset;
		if (het < 0 || (!het && cmd_job_id_parse(arg, &id, &tasks) < 0)) {
			json_decref(body);
			fprintf(stderr, "scontrol_print_job error: %s\n",
				herd_strerror(HERD_ERR_INVALID_JOB));
			return 1;
		}
		json_object_set_new(body, "job_ids", json_pack("[I]", (json_int_t)id));
	}
	if (sc->details > 1)
		json_object_set_new(body, "script", json_true());
	if (scontrol_client(sc) < 0) {
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
		if (het_leader && cmd_jint(job, "het_job_id") != het_leader)
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
	if (!shown && (tasks || het_leader)) {
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

	if (scontrol_client(sc) < 0 || (one && step_job_ids(sc, &ref, &ids) < 0)) {
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
	if (scontrol_client(sc) < 0)
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
		record_node(node, conf_get_int(sc->client.conf, "SlurmdPort", 6818), sc->details, &r);
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

struct config_line {
	const char *key;
	char *value;
};

static int by_key(const void *a, const void *b)
{
	return strcasecmp(((const struct config_line *)a)->key,
			  ((const struct config_line *)b)->key);
}

/* "scontrol show config" (arg ignored): the keys of the configuration this
 * command and the controller read (the same file), with Slurm's defaults for
 * the keys Herd acts on, sorted, in Slurm's "Key = Value" layout, then the
 * ping line. */
static int show_config(struct scontrol *sc, const char *arg)
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
	if (scontrol_client(sc) < 0)
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
	return scontrol_ping(sc);
}

static int show_reservations(struct scontrol *sc, const char *name)
{
	return scontrol_client(sc) < 0 ? 1 : scontrol_resv_show(&sc->client, name, sc->oneliner);
}

/* "show licenses [name]": Slurm's two lines per license (-o: one), no
 * blank line between them. */
static int show_licenses(struct scontrol *sc, const char *name)
{
	struct herd_error e = { "" };
	json_t *body = name ? json_pack("{s:s}", "name", name) : json_object(), *reply = NULL, *lic;
	size_t i;

	if (scontrol_client(sc) < 0) {
		json_decref(body);
		return 1;
	}
	int rc = cmd_call(&sc->client, MSG_LICENSE_INFO, body, &reply, &e);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "slurm_load_licenses error: %s\n", e.text);
		return 1;
	}
	if (!json_integer_value(json_object_get(reply, "configured")))
		printf("No licenses configured in Slurm.\n");
	json_array_foreach(json_object_get(reply, "licenses"), i, lic) {
		printf("LicenseName=%s%sTotal=%lld Used=%lld Free=%lld Reserved=%lld Remote=%s\n",
		       json_string_value(json_object_get(lic, "name")), sc->oneliner ? " " : "\n    ",
		       (long long)json_integer_value(json_object_get(lic, "total")),
		       (long long)json_integer_value(json_object_get(lic, "used")),
		       (long long)json_integer_value(json_object_get(lic, "free")),
		       (long long)json_integer_value(json_object_get(lic, "reserved")),
		       json_is_true(json_object_get(lic, "remote")) ? "yes" : "no");
	}
	json_decref(reply);
	return 0;
}

static int show_hostnames(struct scontrol *sc, const char *expr)
{
	return scontrol_show_hostnames(expr);
}

static int show_hostlist(struct scontrol *sc, const char *expr)
{
	return scontrol_show_hostlist(expr, false);
}

static int show_hostlist_sorted(struct scontrol *sc, const char *expr)
{
	return scontrol_show_hostlist(expr, true);
}

/* show's entities: a word, the fewest of its letters taken, and what shows
 * it (arg: the ID or name after it, NULL for all).  In the order they are
 * tried: "j" is jobs, "jobi" jobid. */
static const struct show_entity {
	const char *name;
	size_t min;
	int (*show)(struct scontrol *sc, const char *arg);
} show_entities[] = {
	{ "jobs", 1, show_jobs },
	{ "jobid", 4, show_jobs },
	{ "steps", 4, show_steps },
	{ "nodes", 1, show_nodes },
	{ "nodename", 5, show_nodes },
	{ "partitions", 1, show_partitions },
	{ "partitionname", 10, show_partitions },
	{ "config", 1, show_config },
	{ "reservations", 3, show_reservations },
	{ "reservationname", 12, show_reservations },
	{ "licenses", 2, show_licenses },
	{ "hostnames", 9, show_hostnames },
	{ "hostlist", 8, show_hostlist },
	{ "hostlistsorted", 14, show_hostlist_sorted },
};

int scontrol_show(struct scontrol *sc, int argc, char **argv)
{
	const char *what = argv[0], *arg = argc > 1 ? argv[1] : NULL;
	if (argc > 2) {
		fprintf(stderr, "too many arguments for keyword:show\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(show_entities) / sizeof(show_entities[0]); i++)
		if (scontrol_is_word(what, show_entities[i].name, show_entities[i].min))
			return show_entities[i].show(sc, arg);
	fprintf(stderr, "invalid entity:%s for keyword:show \n", what);
	return 1;
}
