/* ACCT_JOBS: job accounting records for sacct, read from the accounting
 * database (adb.h): herd.db's tables, or PostgreSQL when the records go
 * there (every cluster sharing it is then visible, sacct -M).  The query runs
 * in a libuv worker on a connection of its own, so a scan over many jobs
 * never holds up the loop thread; the worker touches nothing of the loop's
 * state (it gets a copy of the request).  The scan selects on the indexed
 * columns (cluster, uid or account, end time); the rest of sacct's window
 * rules are applied to each record.  Not here: writing records (store.c does
 * that at every state change). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"

/* The state of an earlier run of a requeued job, beside enum job_state. */
#define STATE_REQUEUED JOB_STATE_COUNT

struct acct_query {
	uv_work_t work;
	struct net_req *req;
	char *db_path;              /* herd.db, or */
	char *conninfo;             /* PostgreSQL's */
	char **clusters;            /* NULL-terminated; NULL: every cluster */
	char **accounts;            /* NULL: any */
	int64_t *ids, *uids;
	size_t nids, nuids;
	bool want_state[JOB_STATE_COUNT + 1];   /* + STATE_REQUEUED */
	bool by_state;
	bool duplicates;            /* every run of a requeued job (sacct -D) */
	bool registry;              /* CLUSTER_INFO: the clusters, not jobs */
	int64_t start, end;         /* the time window, Unix seconds */
	/* Who may see what (PrivateData=jobs): set by roles; default everyone's. */
	bool vis_all;
	uid_t vis_uid;
	char **vis_accounts;        /* NULL-terminated, besides vis_uid's own jobs */
	struct acct_query *next;    /* waiting for a worker */
	/* results (worker) */
	struct strbuf out;
	int rc;
	char err[160];
};

/* At most this many queries run at once: the worker pool also checks
 * credentials and commits the store, and a burst of sacct scans must not
 * hold those up.  The rest wait in order. */
#define ACCT_MAX_RUNNING 4
static int running;
static struct acct_query *waiting, **waiting_tail = &waiting;

static int64_t rec_int(const json_t *rec, const char *key)
{
	return json_integer_value(json_object_get(rec, key));
}

/* Is the job in the window, as sacct(1) selects: without states, every job
 * eligible before the window's end that had not ended before its start
 * (with job IDs, not-yet-eligible ones too); with states, a job that was
 * in one of them during the window. */
static bool in_window(const struct acct_query *q, const json_t *rec, int state)
{
	int64_t submit = rec_int(rec, "submit_time"), start = rec_int(rec, "start_time"),
		end = rec_int(rec, "end_time"), eligible = rec_int(rec, "eligible_time");
	bool held = state == JOB_PENDING &&
		    (json_is_true(json_object_get(rec, "hold_user")) ||
		     json_is_true(json_object_get(rec, "hold_admin")));

	if (!q->by_state) {
		if (q->nids && q->start == 0)
			return true;    /* sacct -j from the epoch: not-yet-eligible ones too */
		if (held && !q->nids)
			return false;   /* as Slurm: a held job has no eligible time */
		if (!eligible)
			eligible = submit;
		return eligible <= q->end && (!end || end >= q->start);
	}
	for (int s = 0; s <= STATE_REQUEUED; s++) {
		if (!q->want_state[s])
			continue;
		switch (s) {
		case JOB_PENDING:
			/* pending from submission until it started (a job ended
			 * while pending "starts" when it ends) */
			if (submit <= q->end && (state == JOB_PENDING || start >= q->start))
				return true;
			break;
		case JOB_RUNNING:
			/* sacct(1): RUNNING also returns jobs that ran during the
			 * window and have ended since */
			if (state != JOB_PENDING && start && start <= q->end &&
			    (!end || end >= q->start))
				return true;
			break;
		case JOB_SUSPENDED: case JOB_COMPLETING:
			if (state == s)
				return true;
			break;
		default:
			if (state == s && end >= q->start && end <= q->end)
				return true;
			break;
		}
	}
	return false;
}

/* The SQL of one query, its parameters bound as $1..$n. */
struct sql {
	struct strbuf text;
	struct adb_val *v;
	int n, cap;
};

static void sql_add(struct sql *q, const char *text)
{
	strbuf_adds(&q->text, text);
}

/* A parameter's placeholder, appended; the value is lent. */
static void sql_param(struct sql *q, struct adb_val v)
{
	char name[16];
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 16;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
	}
	q->v[q->n++] = v;
	snprintf(name, sizeof(name), "$%d", q->n);
	strbuf_adds(&q->text, name);
}

static void sql_in_text(struct sql *q, const char *column, char **names)
{
	sql_add(q, " AND ");
	sql_add(q, column);
	sql_add(q, " IN (");
	for (size_t i = 0; names[i]; i++) {
		if (i)
			sql_add(q, ",");
		sql_param(q, ADB_TEXT(names[i]));
	}
	sql_add(q, ")");
}

static void sql_in_int(struct sql *q, const char *column, const int64_t *v, size_t n)
{
	sql_add(q, " AND ");
	sql_add(q, column);
	sql_add(q, " IN (");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sql_add(q, ",");
		sql_param(q, ADB_INT(v[i]));
	}
	sql_add(q, ")");
}

/* The conditions every branch of the query shares: clusters, runs, users,
 * accounts.  Parameters are numbered anew in each branch (SQLite's and
 * PostgreSQL's numbering both allow a value twice). */
static void sql_common(struct sql *s, const struct acct_query *q)
{
	sql_add(s, "SELECT cluster, job_id, restart, state, rec FROM acct_job WHERE 1=1");
	if (q->clusters)
		sql_in_text(s, "cluster", q->clusters);
	/* Without -D only a job's latest run: its earlier ones are REQUEUED. */
	if (!q->duplicates && !q->want_state[STATE_REQUEUED]) {
		sql_add(s, " AND state <> ");
		sql_param(s, ADB_INT(ADB_STATE_REQUEUED));
	}
	if (q->nuids)
		sql_in_int(s, "uid", q->uids, q->nuids);
	if (q->accounts)
		sql_in_text(s, "account", q->accounts);
}

static bool in_strv(char **v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (s && !strcmp(v[i], s))
			return true;
	return false;
}

/* Who cancelled the job: the uid the controller recorded with its CANCEL event. */
static int cancel_uid(struct adb *db, const char *cluster, int64_t id)
{
	static const char sql[] = "SELECT detail FROM acct_event WHERE cluster=$1 AND job_id=$2"
				  " AND event='CANCEL' ORDER BY event_id DESC LIMIT 1";
	struct adb_val v[2] = { ADB_TEXT(cluster), ADB_INT(id) };
	struct adb_rows *r = adb_query(db, sql, v, 2);
	int uid = -1;
	if (r && adb_next(r)) {
		const char *text = adb_text(r, 0);
		if (text && *text)
			uid = atoi(text);
	}
	adb_done(r);
	return uid;
}

/* The run's steps (N.0, N.1 ...), in step order. */
static json_t *job_steps(struct adb *db, const char *cluster, int64_t id, int64_t restart)
{
	static const char sql[] = "SELECT rec FROM acct_step WHERE cluster=$1 AND job_id=$2"
				  " AND restart=$3 ORDER BY step_id";
	struct adb_val v[3] = { ADB_TEXT(cluster), ADB_INT(id), ADB_INT(restart) };
	struct adb_rows *r = adb_query(db, sql, v, 3);
	json_t *steps = json_array();
	while (r && adb_next(r)) {
		const char *text = adb_text(r, 0);
		json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
		if (rec) {
			json_object_del(rec, "alloc");
			json_object_del(rec, "holds");
			json_array_append_new(steps, rec);
		}
	}
	adb_done(r);
	return steps;
}

/* One record of the reply, and what it is sorted by. */
struct out_row {
	char *cluster;
	int64_t job_id, restart;
	char *json;
};

static int cmp_row(const void *a, const void *b)
{
	const struct out_row *x = a, *y = b;
	int c = strcmp(x->cluster, y->cluster);
	if (c)
		return c;
	if (x->job_id != y->job_id)
		return (x->job_id > y->job_id) - (x->job_id < y->job_id);
	return (x->restart > y->restart) - (x->restart < y->restart);
}

/* The row as the reply's record, or NULL when it is not one. */
static char *add_row(struct acct_query *q, struct adb *db, const struct adb_rows *r)
{
	char *row = NULL;
	const char *cluster = adb_text(r, 0), *text = adb_text(r, 4);
	int64_t restart = adb_int(r, 2);
	json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
	int state = !rec ? -1 : adb_int(r, 3) == ADB_STATE_REQUEUED ? STATE_REQUEUED
		    : job_state_parse(json_string_value(json_object_get(rec, "state")) ?: "");

	if (state < 0 || !cluster)
		goto out;
	if (!q->vis_all && rec_int(rec, "uid") != (int64_t)q->vis_uid &&
	    !in_strv(q->vis_accounts, json_string_value(json_object_get(rec, "account"))))
		goto out;
	if (!in_window(q, rec, state))
		goto out;
	json_object_del(rec, "key");   /* the client's submission key is its own business */
	if (state == JOB_CANCELLED || json_is_true(json_object_get(rec, "cancel_requested"))) {
		int uid = cancel_uid(db, cluster, rec_int(rec, "job_id"));
		if (uid >= 0)
			json_object_set_new(rec, "requid", json_integer(uid));
	}
	json_object_set_new(rec, "steps", job_steps(db, cluster, rec_int(rec, "job_id"), restart));
	json_object_set_new(rec, "cluster", json_string(cluster));
	row = json_dumps(rec, JSON_COMPACT);
out:
	json_decref(rec);
	return row;
}

/* The query: sacct -j's IDs (each job, or every record of the array with
 * that ID; UNION shows a record named both ways once), else the window:
 * runs that ended in or after it, and those still going (end_time 0), each
 * branch on an index. */
static void build_query(struct sql *s, const struct acct_query *q)
{
	if (q->nids) {
		sql_common(s, q);
		sql_in_int(s, "job_id", q->ids, q->nids);
		sql_add(s, " UNION ");
		sql_common(s, q);
		sql_in_int(s, "array_job_id", q->ids, q->nids);
	} else {
		sql_common(s, q);
		sql_add(s, " AND end_time > 0 AND end_time >= ");
		sql_param(s, ADB_INT(q->start));
		sql_add(s, " AND submit_time <= ");
		sql_param(s, ADB_INT(q->end));
		sql_add(s, " UNION ALL ");
		sql_common(s, q);
		sql_add(s, " AND end_time = 0 AND submit_time <= ");
		sql_param(s, ADB_INT(q->end));
	}
	/* No ORDER BY: SQLite would walk the primary key for it rather than
	 * the index that selects; the worker sorts what it found. */
}

/* CLUSTER_INFO's answer from db: every cluster the registry holds, this
 * one first (itself, as configured, even before its forwarder connected). */
static int registry_read(struct acct_query *q, struct adb *db)
{
	json_t *list = json_array();
	json_array_append_new(list, json_pack("{s:s, s:s, s:i, s:i}", "cluster", store_cluster(),
					      "control_host", conf_ctld_host(core.conf),
					      "control_port", conf_ctld_port(core.conf),
					      "rpc", ADB_RPC_VERSION));
	struct adb_rows *rows = adb_is_pg(db) ? adb_query(db, "SELECT cluster, control_host,"
							  " control_port, rpc FROM acct_cluster"
							  " ORDER BY cluster", NULL, 0) : NULL;
	while (rows && adb_next(rows)) {
		const char *name = adb_text(rows, 0);
		if (name && strcmp(name, store_cluster()))
			json_array_append_new(list, json_pack("{s:s, s:s?, s:I, s:I}", "cluster", name,
							      "control_host", adb_text(rows, 1),
							      "control_port", (json_int_t)adb_int(rows, 2),
							      "rpc", (json_int_t)adb_int(rows, 3)));
	}
	int rc = rows ? adb_done(rows) : 0;
	json_t *reply = json_pack("{s:o, s:i}", "clusters", list, "rc", 0);
	char *text = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	strbuf_adds(&q->out, text);
	free(text);
	return rc;
}

/* Worker thread. */
static void acct_work(uv_work_t *w)
{
	struct acct_query *q = w->data;
	struct herd_error err = { "" };
	struct adb *db = NULL;
	struct adb_rows *rows = NULL;
	struct sql s = { 0 };
	struct out_row *found = NULL;
	size_t n = 0, cap = 0;
	char tail[64];

	if (q->conninfo) {
		/* What this controller committed is read back (the forwarder
		 * is normally milliseconds behind). */
		outbox_wait_flushed(3000);
		db = adb_pg_connect(q->conninfo, &err);
		if (!db) {
			/* as sacct when slurmdbd cannot be reached */
			snprintf(q->err, sizeof(q->err), "Problem talking to the database: %.120s",
				 err.text);
			q->rc = HERD_ERR_INTERNAL;
			return;
		}
	} else {
		db = adb_sqlite_open(q->db_path, true, &err);
		if (!db) {
			snprintf(q->err, sizeof(q->err), "Unable to read the job accounting records: %.110s",
				 err.text);
			q->rc = HERD_ERR_INTERNAL;
			return;
		}
	}
	/* One read transaction: the rows are one consistent picture. */
	if (adb_exec_script(db, adb_is_pg(db) ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
					       : "BEGIN") < 0)
		goto error;
	if (q->registry) {
		if (registry_read(q, db) < 0)
			goto error;
		q->rc = 0;
		goto out;
	}
	build_query(&s, q);
	rows = adb_query(db, s.text.s, s.v, s.n);
	if (!rows)
		goto error;
	while (adb_next(rows)) {
		char *json = add_row(q, db, rows);
		if (!json)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			found = xrealloc(found, cap * sizeof(*found));
		}
		found[n++] = (struct out_row){ xstrdup(adb_text(rows, 0)), adb_int(rows, 1),
					       adb_int(rows, 2), json };
	}
	if (adb_done(rows) < 0) {
		rows = NULL;
		goto error;
	}
	rows = NULL;
	if (n)
		qsort(found, n, sizeof(*found), cmp_row);
	strbuf_adds(&q->out, "{\"jobs\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_add(&q->out, ",", 1);
		strbuf_adds(&q->out, found[i].json);
	}
	snprintf(tail, sizeof(tail), "],\"time\":%lld,\"rc\":0}", (long long)core_now());
	strbuf_adds(&q->out, tail);
	q->rc = 0;
	goto out;
error:
	snprintf(q->err, sizeof(q->err), "Unable to read the job accounting records: %s",
		 adb_errmsg(db));
	q->rc = HERD_ERR_INTERNAL;
	adb_done(rows);
out:
	for (size_t i = 0; i < n; i++) {
		free(found[i].cluster);
		free(found[i].json);
	}
	free(found);
	adb_exec_script(db, "COMMIT");
	adb_close(db);
	free(s.text.s);
	free(s.v);
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A JSON array of strings as a NULL-terminated copy; NULL when absent. */
static char **strv_of(const json_t *arr)
{
	size_t i;
	json_t *v;
	if (!json_is_array(arr))
		return NULL;
	char **out = xmalloc((json_array_size(arr) + 1) * sizeof(*out));
	size_t n = 0;
	json_array_foreach(arr, i, v)
		if (json_is_string(v))
			out[n++] = xstrdup(json_string_value(v));
	return out;
}

static void query_free(struct acct_query *q)
{
	free(q->db_path);
	free(q->conninfo);
	strv_free(q->clusters);
	strv_free(q->accounts);
	strv_free(q->vis_accounts);
	free(q->ids);
	free(q->uids);
	free(q->out.s);
	free(q);
}

static void start_next(void);

/* Loop thread: answer the request. */
static void acct_done(uv_work_t *w, int status)
{
	struct acct_query *q = w->data;
	running--;
	start_next();
	if (status == 0 && q->rc == 0) {
		net_respond_text(q->req, q->out.s, q->out.len);
		q->out.s = NULL;
	} else {
		log_error("ACCT_JOBS: %s", q->err[0] ? q->err : "worker cancelled");
		net_respond(q->req, q->rc ? q->rc : HERD_ERR_INTERNAL, NULL, q->err[0] ? q->err : NULL);
	}
	query_free(q);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t *int_array(const json_t *arr, size_t *n)
{
	size_t i;
	json_t *v;
	*n = json_array_size(arr);
	int64_t *out = xmalloc((*n + 1) * sizeof(*out));
	json_array_foreach(arr, i, v)
		out[i] = json_integer_value(v);
	return out;
}

/* The query a request body asks for; NULL with *rc (and maybe errtext) when
 * it cannot be run. */
static struct acct_query *query_new(const json_t *body, int *rc, const char **errtext)
{
	json_t *states = json_object_get(body, "states"), *v;
	json_t *start = json_object_get(body, "start_time"), *end = json_object_get(body, "end_time");
	size_t i;

	*errtext = NULL;
	if (store_backend() == STORE_ACCT_NONE) {
		*rc = HERD_ERR_DISABLED;
		*errtext = "Slurm accounting storage is disabled";
		return NULL;
	}
	struct acct_query *q = xmalloc(sizeof(*q));
	json_array_foreach(states, i, v) {
		const char *name = json_string_value(v);
		int s = name && !strcmp(name, "REQUEUED") ? STATE_REQUEUED : job_state_parse(name);
		if (s < 0) {
			*rc = HERD_ERR_INVALID_ARG;
			free(q);
			return NULL;
		}
		q->want_state[s] = true;
		q->by_state = true;
	}
	q->ids = int_array(json_object_get(body, "job_ids"), &q->nids);
	/* Records come in job ID order, however the IDs were listed. */
	qsort(q->ids, q->nids, sizeof(*q->ids), cmp_id);
	q->uids = int_array(json_object_get(body, "uids"), &q->nuids);
	q->start = start ? json_integer_value(start) : 0;
	q->end = end ? json_integer_value(end) : core_now();
	q->duplicates = json_is_true(json_object_get(body, "duplicates"));
	q->accounts = strv_of(json_object_get(body, "accounts"));
	if (q->accounts && !q->accounts[0]) {   /* [] selects nothing out: no filter */
		strv_free(q->accounts);
		q->accounts = NULL;
	}
	/* clusters: absent = this one; "all" = every one the database holds */
	q->clusters = strv_of(json_object_get(body, "clusters"));
	if (!q->clusters || !q->clusters[0]) {
		strv_free(q->clusters);
		q->clusters = xmalloc(2 * sizeof(*q->clusters));
		q->clusters[0] = xstrdup(store_cluster());
		q->clusters[1] = NULL;
	} else if (in_strv(q->clusters, "all")) {
		strv_free(q->clusters);
		q->clusters = NULL;
	}
	q->vis_all = true;
	/* The same place store_open() was given (main.c's default). */
	q->db_path = xstrdup(store_path());
	if (store_pg_conninfo())
		q->conninfo = xstrdup(store_pg_conninfo());
	return q;
}

void acct_jobs(struct net_req *req)
{
	int rc;
	const char *errtext;
	struct acct_query *q = query_new(req->body, &rc, &errtext);
	if (!q) {
		net_respond(req, rc, NULL, errtext);
		return;
	}
	q->req = req;
	/* PrivateData=jobs (roles.c): the caller's own records, and those of
	 * the accounts it coordinates or is a TeamJobs member of */
	q->vis_uid = req->uid;
	strv_free(q->vis_accounts);
	q->vis_accounts = roles_visible_accounts(req->uid, &q->vis_all);
	q->work.data = q;
	*waiting_tail = q;
	waiting_tail = &q->next;
	start_next();
}

void acct_clusters(struct net_req *req)
{
	int rc;
	const char *errtext;
	json_t *none = json_object();
	struct acct_query *q = query_new(none, &rc, &errtext);
	json_decref(none);
	if (!q) {
		net_respond(req, rc, NULL, errtext);
		return;
	}
	q->req = req;
	q->registry = true;
	q->work.data = q;
	*waiting_tail = q;
	waiting_tail = &q->next;
	start_next();
}

char *acct_jobs_run(const json_t *body, int *rc, char *err, size_t errlen)
{
	const char *errtext;
	struct acct_query *q = query_new(body, rc, &errtext);
	char *out = NULL;
	if (!q) {
		snprintf(err, errlen, "%s", errtext ? errtext : herd_strerror(*rc));
		return NULL;
	}
	q->work.data = q;
	acct_work(&q->work);
	*rc = q->rc;
	if (q->rc == 0) {
		out = q->out.s;
		q->out.s = NULL;
	} else {
		snprintf(err, errlen, "%s", q->err);
	}
	query_free(q);
	return out;
}

static void start_next(void)
{
	while (running < ACCT_MAX_RUNNING && waiting) {
		struct acct_query *q = waiting;
		waiting = q->next;
		if (!waiting)
			waiting_tail = &waiting;
		if (uv_queue_work(ctld.loop, &q->work, acct_work, acct_done) != 0) {
			net_respond(q->req, HERD_ERR_INTERNAL, NULL, NULL);
			query_free(q);
			continue;
		}
		running++;
	}
}
