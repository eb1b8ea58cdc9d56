/* ACCT_JOBS: job accounting records for sacct, read from the store.  The
 * query runs in a libuv worker on its own read-only SQLite connection, so a
 * scan over many jobs never holds up the loop thread; the worker touches
 * nothing of the loop's state (it gets a copy of the request).  Not here:
 * writing records (store.c does that at every state change). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct acct_query {
	uv_work_t work;
	struct net_req *req;
	char *db_path;
	int64_t *ids, *uids;
	size_t nids, nuids;
	bool want_state[JOB_STATE_COUNT];
	bool by_state;
	int64_t start, end;         /* the time window, Unix seconds */
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

static bool in_list(const int64_t *v, size_t n, int64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
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
		if (held && !q->nids)
			return false;   /* as Slurm: a held job has no eligible time */
		if (!eligible)
			eligible = submit;
		return eligible <= q->end && (!end || end >= q->start);
	}
	for (int s = 0; s < JOB_STATE_COUNT; s++) {
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

/* Who cancelled the job: the uid the controller recorded with its CANCEL event. */
static int cancel_uid(sqlite3_stmt *st, int64_t id)
{
	int uid = -1;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		if (text && *text)
			uid = atoi(text);
	}
	sqlite3_reset(st);
	return uid;
}

/* The job's steps (N.0, N.1 ...), in step order. */
static json_t *job_steps(sqlite3_stmt *st, int64_t id)
{
	json_t *steps = json_array();
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		if (rec) {
			json_object_del(rec, "alloc");
			json_object_del(rec, "holds");
			json_array_append_new(steps, rec);
		}
	}
	sqlite3_reset(st);
	return steps;
}

static void add_row(struct acct_query *q, sqlite3_stmt *ev, sqlite3_stmt *steps, const char *text,
		    size_t *n)
{
	json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
	int state = rec ? job_state_parse(json_string_value(json_object_get(rec, "state")) ?: "") : -1;

	if (state < 0)
		goto out;
	if (q->nuids && !in_list(q->uids, q->nuids, rec_int(rec, "uid")))
		goto out;
	if (!in_window(q, rec, state))
		goto out;
	json_object_del(rec, "key");   /* the client's submission key is its own business */
	if (state == JOB_CANCELLED || json_is_true(json_object_get(rec, "cancel_requested"))) {
		int uid = cancel_uid(ev, rec_int(rec, "job_id"));
		if (uid >= 0)
			json_object_set_new(rec, "requid", json_integer(uid));
	}
	json_object_set_new(rec, "steps", job_steps(steps, rec_int(rec, "job_id")));
	char *row = json_dumps(rec, JSON_COMPACT);
	if (*n)
		strbuf_add(&q->out, ",", 1);
	strbuf_adds(&q->out, row);
	free(row);
	(*n)++;
out:
	json_decref(rec);
}

static int cmp_id(const void *a, const void *b);

/* Worker thread. */
static void acct_work(uv_work_t *w)
{
	struct acct_query *q = w->data;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *ev = NULL, *steps = NULL;
	size_t n = 0;
	char tail[64];

	if (sqlite3_open_v2(q->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		goto error;
	sqlite3_busy_timeout(db, 10000);
	if (sqlite3_prepare_v2(db, "SELECT detail FROM job_events WHERE job_id=? AND event='CANCEL'"
			       " ORDER BY rowid DESC LIMIT 1", -1, &ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT rec FROM steps WHERE job_id=? ORDER BY step_id", -1, &steps,
			       NULL) != SQLITE_OK)
		goto error;
	/* One read transaction: the rows are one consistent picture. */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto error;
	strbuf_adds(&q->out, "{\"jobs\":[");
	if (q->nids) {
		/* sacct -j: indexed reads per ID (sorted): the job, or every
		 * record of the array with that ID.  A record named twice (an
		 * array and one of its tasks' own IDs) is shown once. */
		struct found { int64_t id; char *rec; } *found = NULL;
		size_t nfound = 0, cap = 0;
		if (sqlite3_prepare_v2(db, "SELECT id, rec FROM jobs WHERE id=?1 OR array_job_id=?1",
				       -1, &st, NULL) != SQLITE_OK)
			goto error;
		for (size_t i = 0; i < q->nids; i++) {
			if (i && q->ids[i] == q->ids[i - 1])
				continue;
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, q->ids[i]);
			while (sqlite3_step(st) == SQLITE_ROW) {
				if (nfound == cap) {
					cap = cap ? 2 * cap : 64;
					found = xrealloc(found, cap * sizeof(*found));
				}
				const char *text = (const char *)sqlite3_column_text(st, 1);
				found[nfound].id = sqlite3_column_int64(st, 0);
				found[nfound++].rec = xstrdup(text ? text : "");
			}
		}
		if (nfound)
			qsort(found, nfound, sizeof(*found), cmp_id);   /* id first in each entry */
		for (size_t i = 0; i < nfound; i++) {
			if (!i || found[i].id != found[i - 1].id)
				add_row(q, ev, steps, found[i].rec, &n);
			free(found[i].rec);
		}
		free(found);
	} else {
		/* Jobs that ended before the window cannot be in it; end_time is
		 * NULL or 0 while a job has not ended. */
		if (sqlite3_prepare_v2(db, "SELECT rec FROM jobs WHERE end_time IS NULL OR end_time = 0"
				       " OR end_time >= ? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
			goto error;
		sqlite3_bind_int64(st, 1, q->start);
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			add_row(q, ev, steps, (const char *)sqlite3_column_text(st, 0), &n);
		if (rc != SQLITE_DONE)
			goto error;
	}
	snprintf(tail, sizeof(tail), "],\"time\":%lld,\"rc\":0}", (long long)time(NULL));
	strbuf_adds(&q->out, tail);
	q->rc = 0;
	goto out;
error:
	snprintf(q->err, sizeof(q->err), "Unable to read the job accounting records: %s",
		 db ? sqlite3_errmsg(db) : "out of memory");
	q->rc = HERD_ERR_INTERNAL;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ev);
	sqlite3_finalize(steps);
	if (db)
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
}

static void query_free(struct acct_query *q)
{
	free(q->db_path);
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
		net_respond(q->req, HERD_ERR_INTERNAL, NULL, q->err[0] ? q->err : NULL);
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

void acct_jobs(struct net_req *req)
{
	struct acct_query *q = xmalloc(sizeof(*q));
	json_t *states = json_object_get(req->body, "states"), *v;
	json_t *start = json_object_get(req->body, "start_time"),
	       *end = json_object_get(req->body, "end_time");
	size_t i;

	json_array_foreach(states, i, v) {
		const char *name = json_string_value(v);
		int s = job_state_parse(name);
		if (s < 0) {
			net_respond(req, HERD_ERR_INVALID_ARG, NULL, NULL);
			free(q);
			return;
		}
		q->want_state[s] = true;
		q->by_state = true;
	}
	q->req = req;
	q->ids = int_array(json_object_get(req->body, "job_ids"), &q->nids);
	/* Records come in job ID order, however the IDs were listed. */
	qsort(q->ids, q->nids, sizeof(*q->ids), cmp_id);
	q->uids = int_array(json_object_get(req->body, "uids"), &q->nuids);
	q->start = start ? json_integer_value(start) : 0;
	q->end = end ? json_integer_value(end) : time(NULL);
	/* The same place store_open() was given (main.c's default). */
	q->db_path = xstrdup(store_path());
	q->work.data = q;
	*waiting_tail = q;
	waiting_tail = &q->next;
	start_next();
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
