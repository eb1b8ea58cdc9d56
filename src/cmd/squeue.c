/* squeue: list jobs from JOB_INFO in Slurm's formats (-o letters, -l,
 * SQUEUE_FORMAT), filtered by user, id, state and partition, sorted as Slurm
 * sorts (-S, default "P,t,-p"). */
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
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

/* A job of the reply is an object, or with "rows" an array of values in the
 * order of the reply's "keys" (a third of the text, and no hash table per
 * job: squeue over 100,000 jobs).  These read either. */
static const json_t *reply_keys;
static struct {
	const char *key;    /* a key string of this program (a literal) */
	int idx;            /* its column, -1 when the reply has none */
} key_cache[64];

static int key_index(const char *key)
{
	size_t slot = ((uintptr_t)key >> 3) % (sizeof(key_cache) / sizeof(key_cache[0]));
	int idx = -1;
	size_t i;
	json_t *k;

	if (key_cache[slot].key == key)   /* the same literal: the same text */
		return key_cache[slot].idx;
	json_array_foreach(reply_keys, i, k)
		if (!strcmp(json_string_value(k), key)) {
			idx = (int)i;
			break;
		}
	key_cache[slot].key = key;
	key_cache[slot].idx = idx;
	return idx;
}

static const json_t *field(const json_t *job, const char *key)
{
	if (!json_is_array(job))
		return json_object_get(job, key);
	int i = key_index(key);
	return i < 0 ? NULL : json_array_get(job, i);
}

static const char *jstr(const json_t *job, const char *key)
{
	const char *s = json_string_value(field(job, key));
	return s ? s : "";
}

static long long jint(const json_t *job, const char *key)
{
	return json_integer_value(field(job, key));
}

static bool jbool(const json_t *job, const char *key)
{
	return json_is_true(field(job, key));
}
/* The -o letters; -S takes any of them. */
#define JOB_LETTERS "AaBbCcDdEeFfGgHhIiJjKkLlMmNnOoPpQqRrSTtUuVvwXxYyZz"
/* --start: what Slurm's squeue uses unless -o, -S or -t say otherwise. */
#define START_FORMAT "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
#define START_SORT "S"

static const struct fmt_title titles[] = {
	{ 'A', "JOBID" }, { 'a', "ACCOUNT" }, { 'B', "EXEC_HOST" }, { 'b', "TRES_PER_NODE" },
	{ 'C', "CPUS" }, { 'c', "MIN_CPUS" }, { 'D', "NODES" }, { 'd', "MIN_TMP_DISK" },
	{ 'E', "DEPENDENCY" }, { 'e', "END_TIME" }, { 'F', "ARRAY_JOB_ID" }, { 'f', "FEATURES" },
	{ 'G', "GROUP" }, { 'g', "GROUP" }, { 'H', "SOCKETS_PER_NODE" },
	{ 'h', "OVER_SUBSCRIBE" }, { 'I', "CORES_PER_SOCKET" }, { 'i', "JOBID" },
	{ 'J', "THREADS_PER_CORE" }, { 'j', "NAME" }, { 'K', "ARRAY_TASK_ID" },
	{ 'k', "COMMENT" }, { 'L', "TIME_LEFT" }, { 'l', "TIME_LIMIT" }, { 'M', "TIME" },
	{ 'm', "MIN_MEMORY" }, { 'N', "NODELIST" }, { 'n', "REQ_NODES" },
	{ 'O', "CONTIGUOUS" }, { 'o', "COMMAND" }, { 'P', "PARTITION" }, { 'p', "PRIORITY" },
	{ 'Q', "PRIORITY" }, { 'q', "QOS" }, { 'R', "NODELIST(REASON)" }, { 'r', "REASON" },
	{ 'S', "START_TIME" }, { 'T', "STATE" }, { 't', "ST" }, { 'U', "UID" },
	{ 'u', "USER" }, { 'V', "SUBMIT_TIME" }, { 'v', "RESERVATION" }, { 'w', "WCKEY" },
	{ 'X', "CORE_SPEC" }, { 'x', "EXC_NODES" }, { 'Y', "SCHEDNODES" }, { 'y', "NICE" },
	{ 'Z', "WORK_DIR" }, { 'z', "S:C:T" }, { 0, NULL },
};

/* squeue -O / SQUEUE_FORMAT2 field names and the letters they stand for. */
static const struct fmt_name long_fields[] = {
	{ "Account", 'a' }, { "ArrayJobID", 'F' }, { "ArrayTaskID", 'K' }, { "BatchHost", 'B' },
	{ "Command", 'o' }, { "Comment", 'k' }, { "Contiguous", 'O' }, { "CoreSpec", 'X' },
	{ "CoresPerSocket", 'I' }, { "Dependency", 'E' }, { "EndTime", 'e' },
	{ "ExcNodes", 'x' }, { "Feature", 'f' }, { "GroupID", 'G' }, { "GroupName", 'g' },
	{ "JobArrayID", 'i' }, { "JobID", 'A' }, { "MinCpus", 'c' }, { "MinMemory", 'm' },
	{ "MinTmpDisk", 'd' }, { "Name", 'j' }, { "Nice", 'y' }, { "NodeList", 'N' },
	{ "NumCPUs", 'C' }, { "NumNodes", 'D' }, { "OverSubscribe", 'h' }, { "Partition", 'P' },
	{ "Priority", 'p' }, { "PriorityLong", 'Q' }, { "QOS", 'q' }, { "Reason", 'r' },
	{ "ReasonList", 'R' }, { "ReqNodes", 'n' }, { "Reservation", 'v' }, { "SCT", 'z' },
	{ "SchedNodes", 'Y' }, { "SocketsPerNode", 'H' }, { "StartTime", 'S' },
	{ "State", 'T' }, { "StateCompact", 't' }, { "SubmitTime", 'V' },
	{ "ThreadsPerCore", 'J' }, { "TimeLeft", 'L' }, { "TimeLimit", 'l' }, { "TimeUsed", 'M' },
	{ "tres-per-node", 'b' }, { "UID", 'U' }, { "UserName", 'u' }, { "WCKey", 'w' },
	{ "WorkDir", 'Z' }, { NULL, 0 },
};

struct row {
	const json_t *job;
	time_t now;
	long long task;     /* one pending task of an array's meta record (-r), else -1 */
};

static bool is_state(const json_t *job, const char *name)
{
	return !strcmp(jstr(job, "state"), name);
}

static int64_t elapsed(const json_t *job, time_t now)
{
	int64_t start = jint(job, "start_time"), end = jint(job, "end_time");
	if (!start || is_state(job, "PENDING"))
		return 0;
	if (is_state(job, "RUNNING") || is_state(job, "SUSPENDED") || !end)
		return now > start ? now - start : 0;
	return end > start ? end - start : 0;
}

static const char *state_code(const json_t *job)
{
	int s = job_state_parse(jstr(job, "state"));
	return s < 0 ? jstr(job, "state") : job_state_code(s);
}

static const char *or_null(const char *s)
{
	return *s ? s : "(null)";
}

static const char *job_value(char letter, const void *arg, char *buf, size_t len)
{
	const struct row *r = arg;
	const json_t *job = r->job;
	int64_t limit = jint(job, "time_limit");

	switch (letter) {
	case 'i':
		return cmd_job_id_of(jint(job, "job_id"), jint(job, "array_job_id"),
				     jint(job, "array_task_id"), jint(job, "array_throttle"),
				     jstr(job, "array_tasks"), r->task, buf, len);
	case 'A':
		snprintf(buf, len, "%lld", jint(job, "job_id"));
		return buf;
	case 'F':
		snprintf(buf, len, "%lld", jint(job, jint(job, "array_job_id") ? "array_job_id"
											: "job_id"));
		return buf;
	case 'K':
		if (!jint(job, "array_job_id"))
			return "N/A";
		if (r->task >= 0)
			snprintf(buf, len, "%lld", r->task);
		else if (jint(job, "array_task_id") != CMD_NO_TASK)
			snprintf(buf, len, "%lld", jint(job, "array_task_id"));
		else if (jint(job, "array_throttle"))
			snprintf(buf, len, "%s%%%lld", jstr(job, "array_tasks"),
				 jint(job, "array_throttle"));
		else
			snprintf(buf, len, "%s", jstr(job, "array_tasks"));
		return buf;
	case 'j': return jstr(job, "name");
	case 'u': {
		/* Names are resolved here when the reply has none, as Slurm's
		 * commands resolve them on the client. */
		struct passwd *pw;
		if (*jstr(job, "user"))
			return jstr(job, "user");
		if ((pw = getpwuid((uid_t)jint(job, "uid"))))
			return pw->pw_name;
		snprintf(buf, len, "%lld", jint(job, "uid"));
		return buf;
	}
	case 'U': snprintf(buf, len, "%lld", jint(job, "uid")); return buf;
	case 'g': {
		struct group *gr;
		if (*jstr(job, "group"))
			return jstr(job, "group");
		if ((gr = getgrgid((gid_t)jint(job, "gid"))))
			return gr->gr_name;
		snprintf(buf, len, "%lld", jint(job, "gid"));
		return buf;
	}
	case 'G': snprintf(buf, len, "%lld", jint(job, "gid")); return buf;
	case 'a': return or_null(jstr(job, "account"));
	case 'P': return jstr(job, "partition");
	case 't': return state_code(job);
	case 'T': return jstr(job, "state");
	case 'M': return fmt_duration(elapsed(job, r->now), buf, len);
	case 'l': return fmt_time_limit(limit, buf, len);
	case 'L': {
		if (limit == TIME_INFINITE)
			return "UNLIMITED";
		int64_t left = limit - elapsed(job, r->now);
		return fmt_duration(left > 0 ? left : 0, buf, len);
	}
	case 'D': {
		/* 0 = not asked; Slurm's default request is one node. */
		long long n = jint(job, "num_nodes");
		snprintf(buf, len, "%lld", n > 0 ? n : 1);
		return buf;
	}
	case 'C': snprintf(buf, len, "%lld", jint(job, "num_cpus")); return buf;
	case 'c': {
		long long c = jint(job, "cpus_per_task");
		snprintf(buf, len, "%lld", c > 0 ? c : 1);
		return buf;
	}
	case 'm': {
		/* --mem-per-cpu shows its per-CPU size, as Slurm's %m does */
		long long mb = jint(job, "mem_per_cpu") > 0 ? jint(job, "mem_per_cpu")
								 : jint(job, "mem_per_node");
		if (mb <= 0)
			return "0";
		return fmt_size_mb(mb, buf, len);
	}
	case 'd': return "0";
	case 'R': {
		const char *reason = jstr(job, "reason");
		/* Slurm shows why a job waits or failed; otherwise where it ran. */
		if (is_state(job, "PENDING") ||
		    (*reason && strcmp(reason, "None") && !is_state(job, "RUNNING"))) {
			snprintf(buf, len, "(%s)", reason);
			return buf;
		}
		return jstr(job, "nodes");
	}
	case 'r': return jstr(job, "reason");
	case 'N': return jstr(job, "nodes");
	case 'B': {
		const char *h = jstr(job, "batch_host");
		return *h ? h : "n/a";
	}
	case 'V': return fmt_timestamp(jint(job, "submit_time"), buf, len);
	case 'S': {
		time_t t = jint(job, "start_time");
		/* Slurm shows a job waiting for --begin as starting then, held
		 * or not. */
		if (!t && is_state(job, "PENDING") && jint(job, "eligible_time") > time(NULL))
			t = jint(job, "eligible_time");
		/* else the backfill plan's start (--start), if it has one */
		if (!t && is_state(job, "PENDING"))
			t = jint(job, "start_estimate");
		return t ? fmt_timestamp(t, buf, len) : "N/A";
	}
	case 'e': {
		time_t end = jint(job, "end_time"), start = jint(job, "start_time");
		if (end)
			return fmt_timestamp(end, buf, len);
		if (!start || is_state(job, "PENDING"))
			return "N/A";
		/* A running job ends at its limit, or never. */
		return limit == TIME_INFINITE ? "NONE" : fmt_timestamp(start + limit, buf, len);
	}
	case 'Q': snprintf(buf, len, "%lld", jint(job, "priority")); return buf;
	case 'p':
		snprintf(buf, len, "%.14f", (double)jint(job, "priority") / 4294967295.0);
		return buf;
	case 'Z': return jstr(job, "work_dir");
	case 'o': return or_null(jstr(job, "command"));
	case 'h': return jbool(job, "exclusive") ? "NO" : "OK";
	case 'k': return or_null(jstr(job, "comment"));
	/* Features this scheduler does not have: Slurm's placeholders for "none". */
	case 'E': return or_null(jstr(job, "dependency"));   /* what remains of it */
	case 'q': return *jstr(job, "qos") ? jstr(job, "qos") : "normal";
	case 'f': return or_null(jstr(job, "features"));
	case 'n': return jstr(job, "req_nodelist");
	case 'x': return jstr(job, "exc_nodelist");
	/* A pending job's start_time and sched_nodes are the scheduler's
	 * estimate (--start); none yet is 0 / absent: N/A, (null). */
	case 'Y': return or_null(jstr(job, "sched_nodes"));
	case 'v': return or_null(jstr(job, "reservation"));
	case 'w': return "(null)";
	case 'b': case 'X': return "N/A";
	case 'y': case 'O': return "0";
	case 'z': return "*:*:*";
	case 'H': case 'I': case 'J': return "*";
	}
	return "";
}

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

/* The JOB keys each letter reads, so squeue asks the controller for those
 * alone (a 100,000-job reply is then a fraction of the size to write,
 * send and parse).  Sorting, folding arrays and %i read BASE_KEYS; each
 * filter adds its own (main). */
#define BASE_KEYS "job_id state array_job_id array_task_id array_tasks array_throttle"
static const struct {
	char letter;
	const char *keys;
} letter_keys[] = {
	{ 'A', "" }, { 'F', "" }, { 'K', "" }, { 'i', "" }, { 'j', "name" }, { 'u', "user" },
	{ 'U', "uid" }, { 'a', "account" }, { 'P', "partition" }, { 't', "" }, { 'T', "" },
	{ 'N', "nodes" },
	{ 'g', "group gid" }, { 'G', "gid" }, { 'M', "start_time end_time" },
	{ 'l', "time_limit" }, { 'L', "time_limit start_time end_time" }, { 'D', "num_nodes" },
	{ 'C', "num_cpus" }, { 'c', "cpus_per_task" }, { 'm', "mem_per_cpu mem_per_node" },
	{ 'R', "reason nodes" }, { 'r', "reason" }, { 'B', "batch_host" }, { 'V', "submit_time" },
	{ 'S', "start_time eligible_time start_estimate" }, { 'e', "end_time start_time time_limit" }, { 'Q', "priority" },
	{ 'p', "priority" }, { 'Z', "work_dir" }, { 'o', "command" }, { 'h', "exclusive" },
	{ 'k', "comment" }, { 'E', "dependency" }, { 'q', "qos" }, { 'f', "features" },
	{ 'n', "req_nodelist" }, { 'x', "exc_nodelist" }, { 'Y', "sched_nodes" },
	/* constant placeholders */
	{ 'v', "reservation" }, { 'w', "" }, { 'b', "" }, { 'X', "" }, { 'y', "" }, { 'O', "" },
	{ 'z', "" }, { 'H', "" }, { 'I', "" }, { 'J', "" }, { 'd', "" },
};

/* Add letter's keys to fields; false when the letter is not in the table
 * (then every key is asked for). */
static bool add_letter_keys(json_t *fields, char letter)
{
	for (size_t i = 0; i < sizeof(letter_keys) / sizeof(letter_keys[0]); i++) {
		if (letter_keys[i].letter != letter)
			continue;
		size_t n;
		char **v = opt_split(letter_keys[i].keys, ' ', &n);
		for (size_t k = 0; k < n; k++)
			json_array_append_new(fields, json_string(v[k]));
		opt_strv_free(v);
		return true;
	}
	return false;
}

/* The "fields" of the JOB_INFO request for this format and sort; NULL: all. */
static json_t *wanted_fields(const struct fmt *fmt, const char *filter_keys)
{
	json_t *fields = json_array();
	bool ok = add_letter_keys(fields, 'A');
	size_t n;
	char *keys = xasprintf("%s %s", BASE_KEYS, filter_keys);
	char **base = opt_split(keys, ' ', &n);
	free(keys);
	for (size_t k = 0; k < n; k++)
		json_array_append_new(fields, json_string(base[k]));
	opt_strv_free(base);
	for (size_t i = 0; ok && i < fmt->count; i++)
		if (fmt->items[i].letter)
			ok = add_letter_keys(fields, fmt->items[i].letter);
	for (size_t i = 0; ok && i < nsort_keys; i++)
		ok = add_letter_keys(fields, sort_keys[i].letter);
	if (!ok) {
		json_decref(fields);
		return NULL;
	}
	return fields;
}

/* A job's value for one sort letter, looked up once per job, not at every
 * comparison (qsort of 100,000 jobs compares some 1.7 million times). */
struct sort_value {
	const char *s;          /* string keys; NULL for numeric ones */
	long long n;
};

static struct sort_value sort_value_of(const json_t *job, char letter)
{
	static const struct {
		char letter;
		const char *key;
		bool text;
	} keys[] = {
		{ 'i', "job_id", false }, { 'A', "job_id", false }, { 'F', "job_id", false },
		{ 'j', "name", true }, { 'u', "user", true }, { 'U', "uid", false },
		{ 'a', "account", true }, { 'P', "partition", true }, { 'T', "state", true },
		{ 'p', "priority", false }, { 'Q', "priority", false }, { 'l', "time_limit", false },
		{ 'D', "num_nodes", false }, { 'C', "num_cpus", false }, { 'V', "submit_time", false },
		{ 'S', "start_time", false }, { 'e', "end_time", false }, { 'N', "nodes", true },
		{ 'r', "reason", true }, { 'R', "reason", true }, { 'B', "batch_host", true },
		{ 'c', "cpus_per_task", false }, { 'g', "group", true }, { 'G', "gid", false },
		{ 'k', "comment", true }, { 'm', "mem_per_node", false }, { 'o', "command", true },
		{ 'Z', "work_dir", true }, { 'K', "array_task_id", false }, { 'E', "dependency", true },
	};
	if (letter == 't')
		return (struct sort_value){ state_code(job), 0 };
	if (letter == 'S' && !jint(job, "start_time") && is_state(job, "PENDING"))
		return (struct sort_value){ NULL, jint(job, "start_estimate") };   /* the plan's */
	if (letter == 'M')   /* time used: the later start, the less */
		return (struct sort_value){ NULL, -jint(job, "start_time") };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].letter == letter)
			return keys[i].text ? (struct sort_value){ jstr(job, keys[i].key), 0 }
					    : (struct sort_value){ NULL, jint(job, keys[i].key) };
	return (struct sort_value){ NULL, 0 };   /* not a sort key: no order */
}

/* A job with its sort values (nsort_keys of them), then its ID. */
struct sorted_job {
	const json_t *job;
	struct sort_value *v;
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
	struct sort_value *v = xmalloc((n * nsort_keys + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		s[i] = (struct sorted_job){ jobs[i], v + i * nsort_keys, jint(jobs[i], "job_id") };
		for (size_t k = 0; k < nsort_keys; k++)
			s[i].v[k] = sort_value_of(jobs[i], sort_keys[k].letter);
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
		if (strlen(k) != 1 || !strchr(JOB_LETTERS, *k)) {
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
	struct row *v;
	size_t n, cap;
};

static void row_push(struct rows *rows, const json_t *job, time_t now, long long task)
{
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? 2 * rows->cap : 256;
		rows->v = xrealloc(rows->v, rows->cap * sizeof(*rows->v));
	}
	rows->v[rows->n++] = (struct row){ job, now, task };
}

/* The -j entries that name this task (task -1: the record as a whole). */
static bool wanted(const struct wanted_id *want, size_t nwant, const json_t *job, long long task)
{
	long long id = jint(job, "job_id"), array = jint(job, "array_job_id");
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
	long long own = jint(job, "array_task_id");
	bool meta = jint(job, "array_job_id") && own == CMD_NO_TASK &&
		    *jstr(job, "array_tasks");
	bool pending = !strcmp(jstr(job, "state"), "PENDING");

	if (!meta) {
		if (wanted(want, nwant, job, jint(job, "array_job_id") ? own : -1))
			row_push(rows, job, now, -1);
		return;
	}
	if (!pending || (!unfold && !tasks_named(want, nwant))) {
		if (wanted(want, nwant, job, -1))
			row_push(rows, job, now, -1);
		return;
	}
	struct bitmap *tasks = bitmap_parse(jstr(job, "array_tasks"), UINT32_MAX);
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
	bool no_header = false, long_format = false, me = false, unfold = false, start = false;
	bool format_given = false;
	bool steps = false;             /* -s: job steps, not jobs */
	char *steps_arg = NULL;         /* -s's list */
	unsigned iterate = 0;           /* -i: seconds between reports, 0 = once */
	int c, status = 1;

	argv[0] = "squeue";
	while ((c = getopt_long(argc, argv, "aA:hi:j::ln:o:O:p:q:R:rs::S:t:u:vVw:", long_opts, NULL)) != -1) {
		switch (c) {
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
		accounts = opt_split(accounts_arg, ',', NULL);
	if (qos_arg)
		qoses = opt_split(qos_arg, ',', NULL);
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
		format2_letters = fmt_from_names(format2, long_fields, &bad);
		if (!format2_letters) {
			fprintf(stderr, "squeue: error: Invalid job format specification: %s\n", bad);
			free(bad);
			goto out;
		}
		format = format2_letters;
	}
	fmt = fmt_parse(format ? format : long_format ? LONG_FORMAT : DEFAULT_FORMAT,
			JOB_LETTERS);
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
	if (want_nodes && check_node_names(&client, want_nodes) < 0)
		goto out;
	/* -i: the same report every so many seconds, each with its time
	 * stamp above the header, until interrupted (squeue(1)). */
	for (;;) {
		int rc = cmd_call(&client, MSG_JOB_INFO, body, &reply, &err);
		if (rc != 0) {
			fprintf(stderr, "slurm_load_jobs error: %s\n", err.text);
			goto out;
		}
		memset(key_cache, 0, sizeof(key_cache));   /* this reply's columns */

		json_t *jobs = json_object_get(reply, "rows");
		reply_keys = json_object_get(reply, "keys");
		if (!jobs)
			jobs = json_object_get(reply, "jobs");
		time_t now = jint(reply, "time");
		size_t njobs = json_array_size(jobs), nshow = 0;
		json_t **show = xmalloc((njobs + 1) * sizeof(*show));
		for (size_t i = 0; i < njobs; i++) {
			json_t *job = json_array_get(jobs, i);
			int s = job_state_parse(jstr(job, "state"));
			if (states_given && (s < 0 || !state_filter[s]))
				continue;
			char uid[24];
			snprintf(uid, sizeof(uid), "%lld", jint(job, "uid"));
			if (users_given && !in_list(users, uid))
				continue;
			if (parts && !in_any_partition(parts, jstr(job, "partition")))
				continue;
			if (names && !in_list(names, jstr(job, "name")))
				continue;
			if (accounts && !in_list(accounts, jstr(job, "account")))
				continue;
			if (resv_arg && strcmp(resv_arg, jstr(job, "reservation")))
				continue;
			if (qoses && !in_list(qoses, *jstr(job, "qos") ? jstr(job, "qos") : "normal"))
				continue;
			if (want_nodes && !hostlist_overlaps(jstr(job, "nodes"), want_nodes))
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
		fmt_print_table(fmt, job_value, ptrs, rows.n, titles, !no_header, long_format || iterate);
		free(ptrs);
		free(rows.v);
		free(show);
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
