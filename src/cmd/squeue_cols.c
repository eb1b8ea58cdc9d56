/* squeue's job columns (squeue_cols.h): one row per job field with a squeue
 * letter, saying how it differs from showing its JOB key as it is. */
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.h"
#include "cmd/record.h"
#include "cmd/squeue_cols.h"
#include "common/job_fields.h"
#include "common/parse.h"
#include "common/state.h"

static const json_t *reply_keys;
static struct {
	const char *key;    /* a key string of this program (a literal) */
	int idx;            /* its column, -1 when the reply has none */
} key_cache[64];

void squeue_reply_keys(const json_t *keys)
{
	reply_keys = keys;
	memset(key_cache, 0, sizeof(key_cache));   /* this reply's columns */
}

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

const char *squeue_jstr(const json_t *job, const char *key)
{
	return jstr(job, key);
}

long long squeue_jint(const json_t *job, const char *key)
{
	return jint(job, key);
}

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

/* ---- cells that are more than their key (key: the field's, NULL if none) ---- */

typedef const char *cell_f(const struct squeue_row *r, const char *key, char *buf, size_t len);

static const char *c_job_array_id(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const json_t *job = r->job;
	if (jint(job, "het_job_id")) {   /* a het job's component: "L+N" */
		snprintf(buf, len, "%lld+%lld", jint(job, "het_job_id"), jint(job, "het_job_offset"));
		return buf;
	}
	return cmd_job_id_of(jint(job, "job_id"), jint(job, "array_job_id"),
			     jint(job, "array_task_id"), jint(job, "array_throttle"),
			     jstr(job, "array_tasks"), r->task, buf, len);
}

static const char *c_array_job_id(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%lld", jint(r->job, jint(r->job, "array_job_id") ? "array_job_id" : "job_id"));
	return buf;
}

static const char *c_array_task_id(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const json_t *job = r->job;
	if (!jint(job, "array_job_id"))
		return "N/A";
	if (r->task >= 0)
		snprintf(buf, len, "%lld", r->task);
	else if (jint(job, "array_task_id") != CMD_NO_TASK)
		snprintf(buf, len, "%lld", jint(job, "array_task_id"));
	else if (jint(job, "array_throttle"))
		snprintf(buf, len, "%s%%%lld", jstr(job, "array_tasks"), jint(job, "array_throttle"));
	else
		snprintf(buf, len, "%s", jstr(job, "array_tasks"));
	return buf;
}

/* Names are resolved here when the reply has none, as Slurm's commands
 * resolve them on the client. */
static const char *c_user(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	struct passwd *pw;
	if (*jstr(r->job, "user"))
		return jstr(r->job, "user");
	if ((pw = getpwuid((uid_t)jint(r->job, "uid"))))
		return pw->pw_name;
	snprintf(buf, len, "%lld", jint(r->job, "uid"));
	return buf;
}

static const char *c_group(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	struct group *gr;
	if (*jstr(r->job, "group"))
		return jstr(r->job, "group");
	if ((gr = getgrgid((gid_t)jint(r->job, "gid"))))
		return gr->gr_name;
	snprintf(buf, len, "%lld", jint(r->job, "gid"));
	return buf;
}

static const char *c_state_compact(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	return state_code(r->job);
}

static const char *c_time_used(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	return fmt_duration(elapsed(r->job, r->now), buf, len);
}

static const char *c_time_limit(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	return fmt_time_limit(jint(r->job, "time_limit"), buf, len);
}

static const char *c_time_left(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	int64_t limit = jint(r->job, "time_limit");
	if (limit == TIME_INFINITE)
		return "UNLIMITED";
	int64_t left = limit - elapsed(r->job, r->now);
	return fmt_duration(left > 0 ? left : 0, buf, len);
}

/* 0 = not asked; Slurm's default request is one node, one CPU a task. */
static const char *c_at_least_one(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	long long n = jint(r->job, key);
	snprintf(buf, len, "%lld", n > 0 ? n : 1);
	return buf;
}

/* %c: the CPUs a node must give it, -c or --mincpus when more (Slurm's
 * MIN_CPUS) */
static const char *c_min_cpus(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	long long n = jint(r->job, "cpus_per_task"), m = jint(r->job, "mincpus");
	snprintf(buf, len, "%lld", m > n ? m : n > 0 ? n : 1);
	return buf;
}

/* --mem-per-cpu shows its per-CPU size, as Slurm's %m does */
static const char *c_min_memory(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	long long mb = jint(r->job, "mem_per_cpu") > 0 ? jint(r->job, "mem_per_cpu")
						       : jint(r->job, "mem_per_node");
	return mb <= 0 ? "0" : fmt_size_mb(mb, buf, len);
}

/* --tmp: its size as Slurm's %d prints it ("100M"), 0 when not asked */
static const char *c_tmp_disk(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	long long mb = jint(r->job, key);
	return mb <= 0 ? "0" : fmt_size_mb(mb, buf, len);
}

/* -O tres-alloc: as scontrol show job's TRES= (Slurm: "the trackable
 * resources allocated to the job if running. If not running, then ...
 * requested") */
static const char *c_tres_alloc(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	static const char *const keys[] = { "num_cpus", "num_nodes", "mem_per_node", "mem_per_cpu",
					    "mem_per_gpu", "node_alloc", "gres_alloc", "billing" };
	json_t *job = json_object();   /* the row's columns, as record.c reads a job */
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		const json_t *v = field(r->job, keys[k]);
		if (v)
			json_object_set(job, keys[k], (json_t *)v);
	}
	record_job_tres(job, buf, len);
	json_decref(job);
	return buf;
}

/* -B S:C:T: each as asked, "*" when not */
static const char *c_star(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	long long n = jint(r->job, key);
	if (n <= 0)
		return "*";
	snprintf(buf, len, "%lld", n);
	return buf;
}

static const char *c_sct(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	char s[3][24];
	const char *v[3];
	static const char *const keys[] = { "sockets_per_node", "cores_per_socket", "threads_per_core" };
	for (int i = 0; i < 3; i++)
		v[i] = c_star(r, keys[i], s[i], sizeof(s[i]));
	snprintf(buf, len, "%s:%s:%s", v[0], v[1], v[2]);
	return buf;
}

/* Slurm shows why a job waits or failed; otherwise where it ran. */
static const char *c_reason_list(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const char *reason = jstr(r->job, "reason");
	if (is_state(r->job, "PENDING") ||
	    (*reason && strcmp(reason, "None") && !is_state(r->job, "RUNNING"))) {
		snprintf(buf, len, "(%s)", reason);
		return buf;
	}
	return jstr(r->job, "nodes");
}

static const char *c_timestamp(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	return fmt_timestamp(jint(r->job, key), buf, len);
}

static const char *c_start_time(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const json_t *job = r->job;
	time_t t = jint(job, "start_time");
	/* Slurm shows a job waiting for --begin as starting then, held or not. */
	if (!t && is_state(job, "PENDING") && jint(job, "eligible_time") > time(NULL))
		t = jint(job, "eligible_time");
	/* else the backfill plan's start (--start), if it has one */
	if (!t && is_state(job, "PENDING"))
		t = jint(job, "start_estimate");
	return t ? fmt_timestamp(t, buf, len) : "N/A";
}

static const char *c_end_time(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const json_t *job = r->job;
	time_t end = jint(job, "end_time"), start = jint(job, "start_time");
	int64_t limit = jint(job, "time_limit");
	if (end)
		return fmt_timestamp(end, buf, len);
	if (!start || is_state(job, "PENDING"))
		return "N/A";
	/* A running job ends at its limit, or never. */
	return limit == TIME_INFINITE ? "NONE" : fmt_timestamp(start + limit, buf, len);
}

static const char *c_priority_norm(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%.14f", (double)jint(r->job, "priority") / 4294967295.0);
	return buf;
}

/* Slurm's words: NO (--exclusive), YES (-s), else OK */
static const char *c_oversubscribe(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	return json_is_true(field(r->job, "exclusive")) ? "NO"
	       : json_is_true(field(r->job, "exclusive_user")) ? "USER"
	       : json_is_true(field(r->job, "oversubscribe")) ? "YES" : "OK";
}

/* A heterogeneous job's field; N/A for any other job, as Slurm */
static const char *c_het(const struct squeue_row *r, const char *key, char *buf, size_t len)
{
	const json_t *v = field(r->job, key);
	if (!jint(r->job, "het_job_id") || !v)
		return "N/A";
	if (json_is_string(v))
		return json_string_value(v);
	snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	return buf;
}

/* ---- -S values that are more than their key ---- */

typedef struct squeue_sort_value sort_f(const json_t *job);

static struct squeue_sort_value s_state_compact(const json_t *job)
{
	return (struct squeue_sort_value){ state_code(job), 0 };
}

static struct squeue_sort_value s_start_time(const json_t *job)
{
	if (!jint(job, "start_time") && is_state(job, "PENDING"))
		return (struct squeue_sort_value){ NULL, jint(job, "start_estimate") };   /* the plan's */
	return (struct squeue_sort_value){ NULL, jint(job, "start_time") };
}

static struct squeue_sort_value s_time_used(const json_t *job)
{
	return (struct squeue_sort_value){ NULL, -jint(job, "start_time") };   /* the later, the less */
}

/* A column is its field's JOB key shown as it is, asked for and sorted by
 * that key, unless its row here says otherwise. */
static const struct column {
	const char *keys;     /* the JOB keys it reads, space-separated; NULL: its field's */
	cell_f *cell;         /* NULL: the key's value as it is */
	const char *empty;    /* shown for "" */
	const char *fixed;    /* always this (and no keys): Slurm's placeholder */
	const char *sort_key; /* -S sorts by this key; NULL: its field's */
	sort_f *sort;         /* -S sorts by this */
	bool unsorted;        /* -S takes the letter, and sorts nothing by it */
} columns[JOB_F_COUNT] = {
	[JOB_F_job_array_id] = { .cell = c_job_array_id, .sort_key = "job_id" },
	[JOB_F_array_job_id] = { .keys = "", .cell = c_array_job_id, .sort_key = "job_id" },
	[JOB_F_array_task_id] = { .keys = "", .cell = c_array_task_id },
	[JOB_F_user] = { .cell = c_user },
	[JOB_F_group] = { .keys = "group gid", .cell = c_group },
	[JOB_F_account] = { .empty = "(null)" },
	[JOB_F_state_compact] = { .cell = c_state_compact, .sort = s_state_compact },
	[JOB_F_time_used] = { .keys = "start_time end_time", .cell = c_time_used, .sort = s_time_used },
	[JOB_F_time_limit] = { .cell = c_time_limit },
	[JOB_F_time_left] = { .keys = "time_limit start_time end_time", .cell = c_time_left },
	[JOB_F_num_nodes] = { .cell = c_at_least_one },
	[JOB_F_cpus_per_task] = { .keys = "cpus_per_task mincpus", .cell = c_min_cpus },
	[JOB_F_mem_per_node] = { .keys = "mem_per_cpu mem_per_node", .cell = c_min_memory },
	[JOB_F_reason_list] = { .keys = "reason nodes", .cell = c_reason_list, .sort_key = "reason" },
	[JOB_F_batch_host] = { .empty = "n/a" },
	[JOB_F_submit_time] = { .cell = c_timestamp },
	[JOB_F_start_time] = { .keys = "start_time eligible_time start_estimate",
			       .cell = c_start_time, .sort = s_start_time },
	[JOB_F_end_time] = { .keys = "end_time start_time time_limit", .cell = c_end_time },
	[JOB_F_priority_norm] = { .keys = "priority", .cell = c_priority_norm, .sort_key = "priority" },
	[JOB_F_command] = { .empty = "(null)" },
	[JOB_F_exclusive] = { .keys = "exclusive exclusive_user oversubscribe", .cell = c_oversubscribe, .unsorted = true },
	[JOB_F_comment] = { .empty = "(null)" },
	[JOB_F_dependency] = { .empty = "(null)" },   /* what remains of it */
	[JOB_F_qos] = { .empty = "normal", .unsorted = true },
	[JOB_F_features] = { .empty = "(null)", .unsorted = true },
	[JOB_F_req_nodelist] = { .unsorted = true },
	[JOB_F_exc_nodelist] = { .unsorted = true },
	/* A pending job's start_time and sched_nodes are the scheduler's
	 * estimate (--start); none yet is 0 / absent: N/A, (null). */
	[JOB_F_sched_nodes] = { .empty = "(null)", .unsorted = true },
	[JOB_F_reservation] = { .empty = "(null)", .unsorted = true },
	[JOB_F_licenses] = { .empty = "(null)", .unsorted = true },
	[JOB_F_container] = { .empty = "(null)", .unsorted = true },
	[JOB_F_het_job_id] = { .keys = "het_job_id", .cell = c_het },
	[JOB_F_het_job_offset] = { .keys = "het_job_id het_job_offset", .cell = c_het },
	[JOB_F_het_job_id_set] = { .keys = "het_job_id het_job_id_set", .cell = c_het, .unsorted = true },
	/* Fields this scheduler does not have: Slurm's placeholders for "none". */
	[JOB_F_wckey] = { .empty = "(null)" },
	[JOB_F_tres_per_node] = { .empty = "N/A" },
	[JOB_F_tres_per_job] = { .empty = "N/A" },
	[JOB_F_tres_per_socket] = { .empty = "N/A" },
	[JOB_F_tres_per_task] = { .empty = "N/A" },
	[JOB_F_core_spec] = { .fixed = "N/A" },
	[JOB_F_contiguous] = { .fixed = "0" },
	[JOB_F_min_tmp_disk] = { .cell = c_tmp_disk },
	[JOB_F_sct] = { .keys = "sockets_per_node cores_per_socket threads_per_core", .cell = c_sct },
	[JOB_F_sockets_per_node] = { .cell = c_star },
	[JOB_F_cores_per_socket] = { .cell = c_star },
	[JOB_F_threads_per_core] = { .cell = c_star },
	[JOB_F_gres_alloc] = { .keys = "num_cpus num_nodes mem_per_node mem_per_cpu mem_per_gpu "
				       "node_alloc gres_alloc billing", .cell = c_tres_alloc, .unsorted = true },
};

/* The field of each letter, by letter, and the field each sorts by: built
 * once. */
static const struct job_field *by_letter[128];
static const struct job_field *sort_by[JOB_F_COUNT];
static char letters[JOB_F_COUNT + 1];
static struct fmt_title titles[JOB_F_COUNT + 1];
static struct fmt_name long_names[JOB_F_COUNT + 1];

static void index_letters(void)
{
	size_t n = 0;
	if (*letters)
		return;
	for (size_t id = 0; id < JOB_F_COUNT; id++) {
		const struct job_field *f = &job_fields[id];
		if (!f->letter)
			continue;
		const struct column *col = &columns[id];
		by_letter[(unsigned char)f->letter & 127] = f;
		if (!col->unsorted && col->sort_key)
			sort_by[id] = job_field_find(col->sort_key);
		else if (!col->unsorted && f->flags & JF_SHOWN)
			sort_by[id] = f;
		titles[n] = (struct fmt_title){ f->letter, f->title };
		long_names[n] = (struct fmt_name){ f->long_name, f->letter };
		letters[n++] = f->letter;
	}
}

const char *squeue_letters(void)
{
	index_letters();
	return letters;
}

const struct fmt_title *squeue_titles(void)
{
	index_letters();
	return titles;
}

const struct fmt_name *squeue_long_names(void)
{
	index_letters();
	return long_names;
}

/* letter's field and column; NULL for a letter no field has */
static const struct job_field *column_of(char letter, const struct column **col)
{
	index_letters();
	const struct job_field *f = by_letter[(unsigned char)letter & 127];
	if (f)
		*col = &columns[f - job_fields];
	return f;
}

/* The JOB key of a field, NULL when the controller has none. */
static const char *key_of(const struct job_field *f)
{
	return f->flags & JF_SHOWN ? f->key : NULL;
}

const char *squeue_value(char letter, const void *arg, char *buf, size_t len)
{
	const struct squeue_row *r = arg;
	const struct column *col;
	const struct job_field *f = column_of(letter, &col);
	const char *key = f ? key_of(f) : NULL;

	if (!f)
		return "";
	if (col->fixed)
		return col->fixed;
	if (col->cell)
		return col->cell(r, key, buf, len);
	if (!key)
		return "";
	if (f->type != JOB_FIELD_STR) {
		snprintf(buf, len, "%lld", jint(r->job, key));
		return buf;
	}
	const char *s = jstr(r->job, key);
	return !*s && col->empty ? col->empty : s;
}

bool squeue_add_keys(json_t *keys, char letter)
{
	const struct column *col;
	const struct job_field *f = column_of(letter, &col);
	if (!f)
		return false;
	if (col->fixed)
		return true;
	if (!col->keys) {
		if (key_of(f))
			json_array_append_new(keys, json_string(key_of(f)));
		return true;
	}
	size_t n;
	char **v = opt_split(col->keys, ' ', &n);
	for (size_t k = 0; k < n; k++)
		json_array_append_new(keys, json_string(v[k]));
	opt_strv_free(v);
	return true;
}

struct squeue_sort_value squeue_sort_value(const json_t *job, char letter)
{
	const struct column *col;
	const struct job_field *f = column_of(letter, &col);
	const struct job_field *by = f ? sort_by[f - job_fields] : NULL;

	if (f && col->sort)
		return col->sort(job);
	if (!by)
		return (struct squeue_sort_value){ NULL, 0 };   /* not a sort key: no order */
	if (by->type == JOB_FIELD_STR)
		return (struct squeue_sort_value){ jstr(job, by->key), 0 };
	return (struct squeue_sort_value){ NULL, jint(job, by->key) };
}
