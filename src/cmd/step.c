/* Job steps as the user commands name and show them (see step.h).  The
 * formats are Slurm 22.05's, as its squeue -s, scontrol show step and
 * sacct print them. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/opt.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/parse.h"
#include "common/xmalloc.h"

/* A step number: digits only, below the special IDs. */
static int step_number(const char *s, long long *out)
{
	char *end;
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return -1;
	*out = strtoll(s, &end, 10);
	return *out < CMD_STEP_BATCH - 1 ? 0 : -1;
}

int cmd_step_ref_parse(const char *s, bool bare, struct cmd_step_ref *ref)
{
	const char *dot = strchr(s, '.');
	char *job = dot ? xstrndup(s, dot - s) : xstrdup(s);
	struct bitmap *tasks = NULL;
	int rc = -1;

	ref->task = -1;
	ref->step = CMD_STEP_NONE;
	if (!job || (!dot && !bare))
		goto out;
	if (dot) {
		const char *st = dot + 1;
		if (!strcasecmp(st, "batch"))
			ref->step = CMD_STEP_BATCH;
		else if (!strcasecmp(st, "extern"))
			ref->step = CMD_STEP_EXTERN;
		else if (step_number(st, &ref->step) < 0)
			goto out;
	}
	if (cmd_job_id_parse(job, &ref->id, &tasks) < 0)
		goto out;
	if (tasks) {   /* one task: a step belongs to one job */
		if (bitmap_count(tasks) != 1)
			goto out;
		ref->task = bitmap_next(tasks, 0);
	}
	rc = 0;
out:
	bitmap_destroy(tasks);
	free(job);
	return rc;
}

const char *cmd_step_name(long long step, char *buf, size_t len)
{
	if (step == CMD_STEP_BATCH)
		return "batch";
	if (step == CMD_STEP_EXTERN)
		return "extern";
	snprintf(buf, len, "%lld", step);
	return buf;
}

static bool in_array(const json_t *step)
{
	long long task = cmd_jint(step, "array_task_id");
	return cmd_jint(step, "array_job_id") && task != CMD_NO_TASK;
}

char *cmd_step_id(const json_t *step, char *buf, size_t len)
{
	char name[24];
	const char *s = cmd_step_name(cmd_jint(step, "step_id"), name, sizeof(name));
	if (in_array(step))
		snprintf(buf, len, "%lld_%lld.%s", cmd_jint(step, "array_job_id"),
			 cmd_jint(step, "array_task_id"), s);
	else
		snprintf(buf, len, "%lld.%s", cmd_jint(step, "job_id"), s);
	return buf;
}

bool cmd_step_ref_matches(const struct cmd_step_ref *ref, const json_t *step)
{
	if (ref->task >= 0) {
		if (!in_array(step) || cmd_jint(step, "array_job_id") != ref->id ||
		    cmd_jint(step, "array_task_id") != ref->task)
			return false;
	} else if (cmd_jint(step, "job_id") != ref->id &&
		   !(cmd_jint(step, "array_job_id") && cmd_jint(step, "array_job_id") == ref->id)) {
		return false;   /* an array's ID names every task of it */
	}
	return ref->step == CMD_STEP_NONE || ref->step == cmd_jint(step, "step_id");
}

long long cmd_step_rank(long long step)
{
	if (step == CMD_STEP_BATCH)
		return -2;
	if (step == CMD_STEP_EXTERN)
		return -1;
	return step;
}

const char *cmd_step_dist(const json_t *step)
{
	const char *d = cmd_jstr(step, "distribution");
	if (!strncmp(d, "plane", 5))
		return "Plane";
	if (!strncmp(d, "arbitrary", 9))
		return "Arbitrary";
	/* "cyclic:fcyclic,pack": sacct names the node part */
	if (!strncmp(d, "cyclic", 6) || cmd_jint(step, "num_tasks") <= cmd_jint(step, "num_nodes"))
		return "Cyclic";
	return "Block";
}

static bool ended_by_job(const char *state)
{
	return !strcmp(state, "CANCELLED") || !strcmp(state, "TIMEOUT") || !strcmp(state, "NODE_FAIL");
}

int cmd_step_derived_status(const json_t *steps, const char *job_state, long long job_end)
{
	bool killed = ended_by_job(job_state) || !strcmp(job_state, "COMPLETING");
	int status = 0;
	size_t i;
	json_t *step;

	json_array_foreach(steps, i, step) {
		if (killed && ended_by_job(cmd_jstr(step, "state")) && !json_object_get(step, "requid") &&
		    (!job_end || cmd_jint(step, "end_time") >= job_end))
			continue;
		if (cmd_jint(step, "exit_code") > status)
			status = (int)cmd_jint(step, "exit_code");
	}
	return status;
}

/* ---- squeue -s ---- */

/* The -O names without a letter of their own get one that -o has no use
 * for; squeue -s -o "%!" prints the array's ID, which is harmless. */
const char cmd_step_letters[] = "AbijlMNPSuU!&*^@+<>?~=$;";

const struct fmt_title cmd_step_titles[] = {
	{ 'A', "TASKS" }, { 'b', "TRES_PER_JOB" }, { 'i', "STEPID" }, { 'j', "NAME" },
	{ 'l', "TIME_LIMIT" }, { 'M', "TIME" }, { 'N', "NODELIST" }, { 'P', "PARTITION" },
	{ 'S', "START_TIME" }, { 'u', "USER" }, { 'U', "UID" }, { '!', "ARRAY_JOB_ID" },
	{ '&', "ARRAY_TASK_ID" }, { '*', "CPU_FREQ" }, { '^', "CLUSTER" }, { '@', "JOB_ID" },
	{ '+', "NETWORK" }, { '<', "NUM_CPUS" }, { '>', "RESERVED_PORTS" }, { '?', "STATE" },
	{ '~', "TRES_PER_STEP" }, { '=', "TRES_PER_TASK" }, { '$', "TRES_BIND" },
	{ ';', "TRES_FREQ" }, { 0, NULL },
};

/* squeue -s -O: the names squeue(1) marks valid for steps (Slurm refuses
 * the others, "Name" and "NodeList" among them). */
const struct fmt_name cmd_step_fields[] = {
	{ "ArrayJobID", '!' }, { "ArrayTaskID", '&' }, { "CPUFreq", '*' }, { "Cluster", '^' },
	{ "JobID", '@' }, { "Network", '+' }, { "Nodes", 'N' }, { "NumCPUs", '<' },
	{ "NumTasks", 'A' }, { "Partition", 'P' }, { "ResvPorts", '>' }, { "StartTime", 'S' },
	{ "StepID", 'i' }, { "StepName", 'j' }, { "StepState", '?' }, { "TimeLimit", 'l' },
	{ "TimeUsed", 'M' }, { "tres-per-node", 'b' }, { "tres-per-step", '~' },
	{ "tres-per-task", '=' }, { "tres-bind", '$' }, { "tres-freq", ';' }, { "UserID", 'U' },
	{ "UserName", 'u' }, { NULL, 0 },
};

static long long used(const json_t *step, time_t now)
{
	long long start = cmd_jint(step, "start_time");
	return start && now > start ? now - start : 0;
}

const char *cmd_step_value(char letter, const void *arg, char *buf, size_t len)
{
	const struct cmd_step_row *r = arg;
	const json_t *s = r->step;

	switch (letter) {
	case 'A': snprintf(buf, len, "%lld", cmd_jint(s, "num_tasks")); return buf;
	case 'i': return cmd_step_id(s, buf, len);
	case 'j': return cmd_jstr(s, "name");
	case 'l': {   /* -1: the job's; 0: none given (what srun sends) */
		long long limit = cmd_jint(s, "time_limit");
		return limit <= 0 ? "UNLIMITED" : fmt_time_limit(limit, buf, len);
	}
	case 'M': return fmt_duration(used(s, r->now), buf, len);
	case 'N': return cmd_jstr(s, "nodes");
	case 'P': return cmd_jstr(s, "partition");
	case 'S': return fmt_timestamp(cmd_jint(s, "start_time"), buf, len);
	case 'u': {
		struct passwd *pw;
		if (*cmd_jstr(s, "user"))
			return cmd_jstr(s, "user");
		if ((pw = getpwuid((uid_t)cmd_jint(s, "uid"))))
			return pw->pw_name;
		snprintf(buf, len, "%lld", cmd_jint(s, "uid"));
		return buf;
	}
	case 'U': snprintf(buf, len, "%lld", cmd_jint(s, "uid")); return buf;
	case '!':
		snprintf(buf, len, "%lld", in_array(s) ? cmd_jint(s, "array_job_id") : 0);
		return buf;
	case '&':
		if (!in_array(s))
			return "N/A";
		snprintf(buf, len, "%lld", cmd_jint(s, "array_task_id"));
		return buf;
	case '*': return "Unknown-Unknown:Unknown";
	case '^': return r->cluster ? r->cluster : "";
	case '@': snprintf(buf, len, "%lld", cmd_jint(s, "job_id")); return buf;
	case '<':   /* the batch step holds no CPUs of its own (Slurm: 0) */
		snprintf(buf, len, "%lld", cmd_jint(s, "step_id") == CMD_STEP_BATCH ? 0
					    : cmd_jint(s, "num_cpus"));
		return buf;
	case '?': return cmd_jstr(s, "state");
	case 'b': case '+': case '>': case '~': case '=': case '$': case ';': return "(null)";
	}
	return "";
}

static int cmp_num(long long a, long long b)
{
	return (a > b) - (a < b);
}

int cmd_step_compare(char letter, const json_t *a, const json_t *b, time_t now)
{
	static const struct {
		char letter;
		const char *key;
	} text[] = { { 'j', "name" }, { 'P', "partition" }, { 'u', "user" }, { 'N', "nodes" },
		     { '?', "state" } },
	  num[] = { { 'U', "uid" }, { 'S', "start_time" }, { 'l', "time_limit" }, { 'A', "num_tasks" },
		    { '<', "num_cpus" }, { '@', "job_id" } };

	if (letter == 'i') {
		int c = cmp_num(cmd_jint(a, "job_id"), cmd_jint(b, "job_id"));
		return c ? c : cmp_num(cmd_jint(a, "step_id"), cmd_jint(b, "step_id"));
	}
	if (letter == 'M')
		return cmp_num(used(a, now), used(b, now));
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		if (text[i].letter == letter)
			return strcmp(cmd_jstr(a, text[i].key), cmd_jstr(b, text[i].key));
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++)
		if (num[i].letter == letter)
			return cmp_num(cmd_jint(a, num[i].key), cmd_jint(b, num[i].key));
	return 0;
}

struct cmd_step_sort *cmd_step_sort_parse(const char *spec, size_t *count, char **bad)
{
	size_t n;
	char **keys = opt_split(spec, ',', &n);
	struct cmd_step_sort *out = xmalloc((n + 1) * sizeof(*out));

	*count = 0;
	*bad = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[i];
		bool desc = *k == '-';
		if (*k == '-' || *k == '+')
			k++;
		if (strlen(k) != 1 || !strchr(cmd_step_letters, *k)) {
			*bad = xstrdup(keys[i]);
			free(out);
			out = NULL;
			break;
		}
		out[(*count)++] = (struct cmd_step_sort){ *k, desc };
	}
	opt_strv_free(keys);
	return out;
}

/* qsort has no context argument: the keys of the sort in progress. */
static const struct cmd_step_sort *sort_keys;
static size_t sort_nkeys;
static time_t sort_now;

static int compare_steps(const void *x, const void *y)
{
	const json_t *a = *(const json_t *const *)x, *b = *(const json_t *const *)y;
	for (size_t i = 0; i < sort_nkeys; i++) {
		int c = cmd_step_compare(sort_keys[i].letter, a, b, sort_now);
		if (c)
			return sort_keys[i].descending ? -c : c;
	}
	return cmd_step_compare('i', a, b, sort_now);
}

void cmd_step_sort(const json_t **steps, size_t n, const struct cmd_step_sort *keys,
		   size_t nkeys, time_t now)
{
	sort_keys = keys;
	sort_nkeys = nkeys;
	sort_now = now;
	qsort(steps, n, sizeof(*steps), compare_steps);
}

int cmd_step_list_parse(const char *list, struct cmd_step_ref **refs, size_t *count, char **bad)
{
	size_t n;
	char **v = cmd_job_ids_split(list, &n);
	int rc = 0;

	*bad = NULL;
	*refs = xrealloc(*refs, (*count + n + 1) * sizeof(**refs));
	for (size_t i = 0; i < n && !rc; i++) {
		if (cmd_step_ref_parse(v[i], false, &(*refs)[*count]) < 0) {
			*bad = xstrdup(v[i]);
			rc = -1;
		} else {
			(*count)++;
		}
	}
	opt_strv_free(v);
	return rc;
}

static bool in_strv(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool any_ref(const struct cmd_step_ref *refs, size_t n, const json_t *step)
{
	for (size_t i = 0; i < n; i++)
		if (cmd_step_ref_matches(&refs[i], step))
			return true;
	return !n;
}

bool cmd_step_filter_match(const struct cmd_step_filter *f, const json_t *step)
{
	char uid[24];
	/* STEP_INFO also has the steps of a running job that already ended:
	 * Slurm's controller has forgotten them */
	if (strcmp(cmd_jstr(step, "state"), "RUNNING"))
		return false;
	if (!any_ref(f->steps, f->nsteps, step) || !any_ref(f->jobs, f->njobs, step))
		return false;
	snprintf(uid, sizeof(uid), "%lld", cmd_jint(step, "uid"));
	if (f->uids_given && !in_strv(f->uids, uid))
		return false;
	if (f->partitions && !in_strv(f->partitions, cmd_jstr(step, "partition")))
		return false;
	if (f->names && !in_strv(f->names, cmd_jstr(step, "name")))
		return false;
	return !f->nodes || hostlist_overlaps(cmd_jstr(step, "nodes"), f->nodes);
}
