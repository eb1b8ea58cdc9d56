/* The durable store (SQLite, WAL, synchronous=FULL) with group commit: writes
 * queued by the loop thread during one loop iteration go to a worker as one
 * batch, committed in one transaction with one fsync; callbacks waiting on
 * that batch (replies to clients) run after it is durable.  One commit is in
 * flight at a time, so batches are durable in order.  The loop thread has its
 * own read connection for point reads (a job's script at launch).
 *
 * The accounting records (adb.h: a record per job run, steps, events) are
 * written in the same transaction as the job state they describe: into
 * herd.db's own acct_* tables (the SQLite backend), or into its outbox, which
 * outbox.c forwards to PostgreSQL.  Either way they cannot disagree with the
 * controller's state, and a PostgreSQL outage never holds a commit up. */
#include <errno.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/secret.h"
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"

enum op_kind { OP_INSERT, OP_UPDATE, OP_EVENT, OP_NODE, OP_STEP, OP_ACCT_PUT, OP_ACCT_DEL,
	       OP_RUN, OP_TRIM, OP_COUNT };
/* OP_RUN: an accounting record alone (a requeued run); OP_TRIM: outbox rows
 * PostgreSQL has (up to time) deleted */

/* The job's columns of its accounting record (adb.h's acct_job). */
struct acct_cols {
	uint32_t restart;
	int64_t uid;
	int state;                  /* enum job_state, or ADB_STATE_REQUEUED */
	int64_t submit, start, end, array_job_id;
	char *account;
};

struct store_op {
	enum op_kind kind;
	uint32_t id;
	int state;
	int64_t time;
	uid_t uid;
	uint32_t array_job_id;      /* OP_INSERT: 0 = not an array job */
	/* OP_EVENT: key = event name, rec = detail; OP_NODE: key = node;
	 * OP_ACCT_*: spec = kind, key = key */
	char *key, *rec, *spec;
	struct acct_cols acct;      /* OP_INSERT, OP_UPDATE, OP_RUN; OP_STEP: restart */
};

struct store_cb {
	void (*cb)(void *arg, bool ok);
	void *arg;
	bool until_durable;         /* store_after_durable: waits out failed commits */
};

struct batch {
	uv_work_t work;
	struct store_op *ops;
	size_t nops, ops_cap;
	struct store_cb *cbs;
	size_t ncbs, cbs_cap;
	bool ok;
};

static sqlite3 *db_write, *db_read;
static char *db_path;
static sqlite3_stmt *st_write[OP_COUNT];   /* by enum op_kind; used only by the commit worker */
static sqlite3_stmt *st_spec, *st_key, *st_final;
static struct batch *open_batch;
static bool in_flight;
static uv_prepare_t flush_hook;
/* After a failed commit (a full disk): its writes wait in open_batch and go
 * again, with whatever came since, no sooner than retry_at (loop ms). */
#define STORE_RETRY_MS 500
static uv_timer_t retry_timer;
static uint64_t retry_at;

/* Where the accounting records go (store_backend_open). */
static enum store_backend backend = STORE_ACCT_SQLITE;
static char *acct_cluster;          /* ClusterName, the records' cluster */
static char *pg_conninfo;
static struct adb *adb_write_db;    /* on db_write; the commit worker's */
static int64_t batch_outbox_max;    /* the commit worker's: the batch's last outbox row */
/* The forwarder's word that outbox rows up to trim_to are in PostgreSQL,
 * passed to the loop thread, whose next commit deletes them. */
static uv_async_t trim_async;
static bool trim_open;
static _Atomic int64_t trim_to;
static int64_t trim_queued;

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS jobs ("
	"  id INTEGER PRIMARY KEY, submit_key TEXT, uid INTEGER, state INTEGER,"
	"  end_time INTEGER, rec TEXT NOT NULL, spec TEXT, array_job_id INTEGER);"
	"CREATE UNIQUE INDEX IF NOT EXISTS jobs_key ON jobs(uid, submit_key) WHERE submit_key IS NOT NULL;"
	"CREATE TABLE IF NOT EXISTS job_events ("
	"  job_id INTEGER, time INTEGER, event TEXT, detail TEXT);"
	"CREATE INDEX IF NOT EXISTS job_events_job ON job_events(job_id);"
	/* Administrator-set node state (drain, down, reason), one row per node. */
	"CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, rec TEXT NOT NULL);"
	/* Job steps (N.0, N.1 ...): one row each, written at start and end. */
	"CREATE TABLE IF NOT EXISTS steps (job_id INTEGER, step_id INTEGER, state INTEGER,"
	"  rec TEXT NOT NULL, PRIMARY KEY (job_id, step_id));"
	/* Accounting objects (assoc.h): clusters, accounts, users, associations,
	 * QOS, fair-share usage; one JSON record per (kind, key). */
	"CREATE TABLE IF NOT EXISTS acct_objects (kind TEXT, key TEXT, rec TEXT NOT NULL,"
	"  PRIMARY KEY (kind, key));"
	/* Accounting writes waiting for PostgreSQL (outbox.c), in order: the
	 * write's kind (enum adb_write) and its values, a1 ... as bound (the
	 * columns have no type, so SQLite keeps each value's own). */
	"CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  kind INTEGER NOT NULL, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);";

/* A store made before the accounting tables: its jobs, steps and events
 * become their records (once, when acct_job is empty). */
static const char migrate_sql[] =
	"INSERT OR IGNORE INTO acct_job (cluster, job_id, restart, uid, account, state,"
	"  submit_time, start_time, end_time, array_job_id, rec)"
	" SELECT $1, id, coalesce(json_extract(rec, '$.restarts'), 0), uid,"
	"  json_extract(rec, '$.account'), state, coalesce(json_extract(rec, '$.submit_time'), 0),"
	"  coalesce(json_extract(rec, '$.start_time'), 0), coalesce(end_time, 0), array_job_id, rec"
	" FROM jobs WHERE NOT EXISTS (SELECT 1 FROM acct_job);"
	"INSERT OR IGNORE INTO acct_step (cluster, job_id, restart, step_id, state, rec)"
	" SELECT $1, job_id, coalesce((SELECT json_extract(j.rec, '$.restarts') FROM jobs j"
	"  WHERE j.id = steps.job_id), 0), step_id, state, rec FROM steps"
	" WHERE NOT EXISTS (SELECT 1 FROM acct_step);"
	"INSERT OR IGNORE INTO acct_event (cluster, event_id, job_id, time, event, detail)"
	" SELECT $1, rowid, job_id, time, event, detail FROM job_events"
	" WHERE NOT EXISTS (SELECT 1 FROM acct_event);";

static struct batch *batch_get(void)
{
	if (!open_batch)
		open_batch = xmalloc(sizeof(*open_batch));
	return open_batch;
}

static struct store_op *op_new(enum op_kind kind, uint32_t id)
{
	struct batch *b = batch_get();
	if (b->nops == b->ops_cap) {
		b->ops_cap = b->ops_cap ? 2 * b->ops_cap : 64;
		b->ops = xrealloc(b->ops, b->ops_cap * sizeof(*b->ops));
	}
	struct store_op *op = &b->ops[b->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->id = id;
	return op;
}

static char *dump(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);
	return s ? s : xstrdup("{}");
}

static void acct_cols_set(struct acct_cols *a, const struct job *job)
{
	a->restart = job->restarts;
	a->uid = job->uid;
	a->state = job->state;
	a->submit = job->submit_time;
	a->start = job->start_time;
	a->end = job_state_is_final(job->state) ? job->end_time : 0;
	a->array_job_id = job->array_job_id;
	a->account = job->account ? xstrdup(job->account) : NULL;
}

void store_job_insert(const struct job *job, json_t *spec)
{
	json_t *rec = job_to_json(job);
	struct store_op *op = op_new(OP_INSERT, job->id);
	op->uid = job->uid;
	op->state = job->state;
	op->key = xstrdup(job->key);
	op->array_job_id = job->array_job_id;
	op->rec = dump(rec);
	op->spec = spec ? dump(spec) : NULL;   /* an array task's is its array's */
	acct_cols_set(&op->acct, job);
	json_decref(rec);
	json_decref(spec);
}

void store_job_update(const struct job *job)
{
	json_t *rec = job_to_json(job);
	struct store_op *op = op_new(OP_UPDATE, job->id);
	op->state = job->state;
	op->time = job->end_time;
	op->rec = dump(rec);
	acct_cols_set(&op->acct, job);
	json_decref(rec);
}

/* job_requeue_finish, before the next run begins: this run keeps a record of
 * its own, REQUEUED, ended now if it had not (slurmdbd's requeued records;
 * sacct -D shows them). */
void store_job_requeued(const struct job *job)
{
	json_t *rec = job_to_json(job);
	struct store_op *op = op_new(OP_RUN, job->id);
	acct_cols_set(&op->acct, job);
	op->acct.state = ADB_STATE_REQUEUED;
	if (!op->acct.end)
		op->acct.end = core_now();
	/* preempted and requeued: sacct -D shows the run PREEMPTED (the column
	 * stays REQUEUED: not the job's latest run) */
	json_object_set_new(rec, "state", json_string(job->preempted ? "PREEMPTED" : "REQUEUED"));
	json_object_set_new(rec, "end_time", json_integer(op->acct.end));
	op->rec = dump(rec);
	json_decref(rec);
}

void store_job_event(uint32_t job_id, const char *event, const char *detail)
{
	struct store_op *op = op_new(OP_EVENT, job_id);
	op->time = core_now();
	op->key = xstrdup(event);
	op->rec = xstrdup(detail);
}

void store_node_admin(const char *name, json_t *rec)
{
	struct store_op *op = op_new(OP_NODE, 0);
	op->key = xstrdup(name);
	op->rec = dump(rec);
	json_decref(rec);
}

void store_step_save(uint32_t job_id, uint32_t step_id, int state, json_t *rec)
{
	struct store_op *op = op_new(OP_STEP, job_id);
	const struct job *job = job_find(job_id);
	op->acct.restart = job ? job->restarts : 0;
	op->time = step_id;
	op->state = state;
	op->rec = dump(rec);
	json_decref(rec);
}

void store_acct_put(const char *kind, const char *key, json_t *rec)
{
	struct store_op *op = op_new(OP_ACCT_PUT, 0);
	op->spec = xstrdup(kind);
	op->key = xstrdup(key);
	op->rec = dump(rec);
	json_decref(rec);
}

void store_acct_del(const char *kind, const char *key)
{
	struct store_op *op = op_new(OP_ACCT_DEL, 0);
	op->spec = xstrdup(kind);
	op->key = xstrdup(key);
}

int store_acct_load(const char *kind, void (*fn)(const char *key, const json_t *rec, void *arg),
		    void *arg)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db_read, "SELECT key, rec FROM acct_objects WHERE kind=? ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK) {
		log_error("store: %s", sqlite3_errmsg(db_read));
		return -1;
	}
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 1), 0, NULL);
		if (rec) {
			fn((const char *)sqlite3_column_text(st, 0), rec, arg);
			n++;
		} else {
			log_error("store: skipping an unreadable %s record", kind);
		}
		json_decref(rec);
	}
	sqlite3_finalize(st);
	return n;
}

/* Steps the store says run: back under their jobs (step.c), whose CPUs they hold. */
static void load_steps(void)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db_read, "SELECT rec FROM steps WHERE state = ?", -1, &st, NULL) != SQLITE_OK) {
		log_error("store: %s", sqlite3_errmsg(db_read));
		return;
	}
	sqlite3_bind_int(st, 1, JOB_RUNNING);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		if (rec)
			step_restore(rec);
		json_decref(rec);
	}
	sqlite3_finalize(st);
}

/* Node admin state saved by store_node_admin, handed to node.c at start. */
static void load_nodes(void)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db_read, "SELECT name, rec FROM nodes", -1, &st, NULL) != SQLITE_OK) {
		log_error("store: %s", sqlite3_errmsg(db_read));
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 1), 0, NULL);
		if (rec)
			node_admin_restore((const char *)sqlite3_column_text(st, 0), rec);
		json_decref(rec);
	}
	sqlite3_finalize(st);
}

static void after(void (*cb)(void *arg, bool ok), void *arg, bool until_durable)
{
	struct batch *b = batch_get();
	if (b->ncbs == b->cbs_cap) {
		b->cbs_cap = b->cbs_cap ? 2 * b->cbs_cap : 64;
		b->cbs = xrealloc(b->cbs, b->cbs_cap * sizeof(*b->cbs));
	}
	b->cbs[b->ncbs++] = (struct store_cb){ cb, arg, until_durable };
}

void store_after_commit(void (*cb)(void *arg, bool ok), void *arg)
{
	after(cb, arg, false);
}

void store_after_durable(void (*cb)(void *arg, bool ok), void *arg)
{
	after(cb, arg, true);
}

static const char outbox_sql[] =
	"INSERT INTO outbox (kind, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)"
	" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";

/* The accounting write of op, if it has one: into herd.db's tables, or into
 * the outbox for PostgreSQL.  The commit worker's. */
static int acct_exec(const struct store_op *op, int64_t event_id)
{
	struct adb_row row = { 0 };
	const char *cluster = acct_cluster ? acct_cluster : "cluster";

	if (backend == STORE_ACCT_NONE)
		return 0;
	switch (op->kind) {
	case OP_INSERT: case OP_UPDATE: case OP_RUN:
		row = (struct adb_row){ ADB_W_JOB, 11, {
			ADB_TEXT(cluster), ADB_INT(op->id), ADB_INT(op->acct.restart),
			ADB_INT(op->acct.uid),
			ADB_TEXT(op->acct.account), ADB_INT(op->acct.state),
			ADB_INT(op->acct.submit), ADB_INT(op->acct.start), ADB_INT(op->acct.end),
			op->acct.array_job_id ? ADB_INT(op->acct.array_job_id) : ADB_TEXT(NULL),
			ADB_TEXT(op->rec) } };
		break;
	case OP_STEP:
		row = (struct adb_row){ ADB_W_STEP, 6, {
			ADB_TEXT(cluster), ADB_INT(op->id), ADB_INT(op->acct.restart),
			ADB_INT(op->time), ADB_INT(op->state), ADB_TEXT(op->rec) } };
		break;
	case OP_EVENT:
		row = (struct adb_row){ ADB_W_EVENT, 6, {
			ADB_TEXT(cluster), ADB_INT(event_id), ADB_INT(op->id), ADB_INT(op->time),
			ADB_TEXT(op->key), ADB_TEXT(op->rec) } };
		break;
	default:
		return 0;
	}
	if (backend == STORE_ACCT_SQLITE)
		return adb_write(adb_write_db, &row);
	struct adb_val v[12] = { ADB_INT(row.kind) };
	for (int k = 0; k < 11; k++)
		v[k + 1] = k < row.n ? row.v[k] : ADB_TEXT(NULL);
	int rc = adb_exec(adb_write_db, outbox_sql, v, 12);
	if (rc == 0)
		batch_outbox_max = sqlite3_last_insert_rowid(db_write);
	return rc;
}

static int exec_op(const struct store_op *op)
{
	sqlite3_stmt *st = st_write[op->kind];
	if (op->kind == OP_RUN)
		return acct_exec(op, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	switch (op->kind) {
	case OP_INSERT:
		sqlite3_bind_int64(st, 1, op->id);
		if (op->key)
			sqlite3_bind_text(st, 2, op->key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, op->uid);
		sqlite3_bind_int(st, 4, op->state);
		sqlite3_bind_text(st, 5, op->rec, -1, SQLITE_STATIC);
		if (op->spec)
			sqlite3_bind_text(st, 6, op->spec, -1, SQLITE_STATIC);
		if (op->array_job_id)
			sqlite3_bind_int64(st, 7, op->array_job_id);
		break;
	case OP_UPDATE:
		sqlite3_bind_int(st, 1, op->state);
		sqlite3_bind_int64(st, 2, op->time);
		sqlite3_bind_text(st, 3, op->rec, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, op->id);
		break;
	case OP_EVENT:
		sqlite3_bind_int64(st, 1, op->id);
		sqlite3_bind_int64(st, 2, op->time);
		sqlite3_bind_text(st, 3, op->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, op->rec, -1, SQLITE_STATIC);
		break;
	case OP_NODE:
		sqlite3_bind_text(st, 1, op->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, op->rec, -1, SQLITE_STATIC);
		break;
	case OP_STEP:
		sqlite3_bind_int64(st, 1, op->id);
		sqlite3_bind_int64(st, 2, op->time);
		sqlite3_bind_int(st, 3, op->state);
		sqlite3_bind_text(st, 4, op->rec, -1, SQLITE_STATIC);
		break;
	case OP_ACCT_PUT:
		sqlite3_bind_text(st, 1, op->spec, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, op->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, op->rec, -1, SQLITE_STATIC);
		break;
	case OP_ACCT_DEL:
		sqlite3_bind_text(st, 1, op->spec, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, op->key, -1, SQLITE_STATIC);
		break;
	case OP_TRIM:
		sqlite3_bind_int64(st, 1, op->time);
		break;
	case OP_RUN: case OP_COUNT:
		break;
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		return -1;
	/* An event's number: its job_events row's (rows are never deleted, so
	 * the numbers only grow). */
	return acct_exec(op, op->kind == OP_EVENT ? sqlite3_last_insert_rowid(db_write) : 0);
}

/* Worker thread: the only user of db_write. */
static void batch_commit(uv_work_t *w)
{
	struct batch *b = w->data;

	if (!st_write[0]) {
		const char *sql[OP_COUNT] = {
			"INSERT INTO jobs(id, submit_key, uid, state, rec, spec, array_job_id)"
			" VALUES(?,?,?,?,?,?,?)",
			"UPDATE jobs SET state=?, end_time=?, rec=? WHERE id=?",
			"INSERT INTO job_events(job_id, time, event, detail) VALUES(?,?,?,?)",
			"INSERT OR REPLACE INTO nodes(name, rec) VALUES(?,?)",
			"INSERT OR REPLACE INTO steps(job_id, step_id, state, rec) VALUES(?,?,?,?)",
			"INSERT INTO acct_objects(kind, key, rec) VALUES(?,?,?)"
			" ON CONFLICT(kind, key) DO UPDATE SET rec=excluded.rec",
			"DELETE FROM acct_objects WHERE kind=? AND key=?",
			"SELECT 1",   /* OP_RUN: acct_exec's alone */
			"DELETE FROM outbox WHERE id <= ?",
		};
		for (int i = 0; i < OP_COUNT; i++)
			if (sqlite3_prepare_v2(db_write, sql[i], -1, &st_write[i], NULL) != SQLITE_OK) {
				log_error("store: %s", sqlite3_errmsg(db_write));
				b->ok = false;
				return;
			}
	}
	b->ok = true;
	if (!b->nops)
		return;
	if (sqlite3_exec(db_write, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto error;
	batch_outbox_max = 0;
	for (size_t i = 0; i < b->nops; i++)
		if (exec_op(&b->ops[i]) < 0) {
			log_error("store: job %u: %s", b->ops[i].id, sqlite3_errmsg(db_write));
			sqlite3_exec(db_write, "ROLLBACK", NULL, NULL, NULL);
			goto error;
		}
	if (sqlite3_exec(db_write, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto error;
	if (batch_outbox_max)
		outbox_kick(batch_outbox_max);
	return;
error:
	log_error("store: commit of %zu writes failed: %s", b->nops, sqlite3_errmsg(db_write));
	b->ok = false;
}

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->nops; i++) {
		free(b->ops[i].key);
		free(b->ops[i].rec);
		free(b->ops[i].spec);
		free(b->ops[i].acct.account);
	}
	free(b->ops);
	free(b->cbs);
	free(b);
}

/* Move src's writes and callbacks to the end of dst; src is freed. */
static void batch_append(struct batch *dst, struct batch *src)
{
	for (size_t i = 0; i < src->nops; i++) {
		if (dst->nops == dst->ops_cap) {
			dst->ops_cap = dst->ops_cap ? 2 * dst->ops_cap : 64;
			dst->ops = xrealloc(dst->ops, dst->ops_cap * sizeof(*dst->ops));
		}
		dst->ops[dst->nops++] = src->ops[i];
	}
	for (size_t i = 0; i < src->ncbs; i++) {
		if (dst->ncbs == dst->cbs_cap) {
			dst->cbs_cap = dst->cbs_cap ? 2 * dst->cbs_cap : 64;
			dst->cbs = xrealloc(dst->cbs, dst->cbs_cap * sizeof(*dst->cbs));
		}
		dst->cbs[dst->ncbs++] = src->cbs[i];
	}
	free(src->ops);
	free(src->cbs);
	free(src);
}

static bool op_of_job(const struct store_op *op)
{
	return op->kind == OP_INSERT || op->kind == OP_UPDATE || op->kind == OP_EVENT ||
	       op->kind == OP_STEP || op->kind == OP_RUN;
}

/* A commit failed (a full disk, an I/O error): the loop's state has moved on
 * and must still reach the disk, or a restart would bring back jobs as they
 * were (a finished job running again, a started one pending again).  The
 * waiting clients are told no, and submissions they were told no about are
 * forgotten (reply_after_commit); every other write is kept, ahead of those
 * queued since, and tried again shortly. */
static void retry_wake(uv_timer_t *t);

static void batch_failed(struct batch *b)
{
	struct batch *keep = xmalloc(sizeof(*keep));
	for (size_t i = 0; i < b->ncbs; i++) {
		if (b->cbs[i].until_durable) {
			if (keep->ncbs == keep->cbs_cap) {
				keep->cbs_cap = keep->cbs_cap ? 2 * keep->cbs_cap : 16;
				keep->cbs = xrealloc(keep->cbs, keep->cbs_cap * sizeof(*keep->cbs));
			}
			keep->cbs[keep->ncbs++] = b->cbs[i];
		} else {
			b->cbs[i].cb(b->cbs[i].arg, false);
		}
	}
	b->ncbs = 0;
	/* Those callbacks may have queued writes (open_batch): after ours. */
	struct batch *later = open_batch;
	open_batch = NULL;
	batch_append(keep, b);          /* frees b, not its ops' strings: keep owns them */
	if (later)
		batch_append(keep, later);
	/* A job whose submission was refused is gone: none of its writes stay. */
	size_t n = 0;
	for (size_t i = 0; i < keep->nops; i++) {
		struct store_op *op = &keep->ops[i];
		bool gone = false;
		if (op_of_job(op) && !job_find(op->id))
			for (size_t k = 0; k < keep->nops && !gone; k++)
				gone = keep->ops[k].kind == OP_INSERT && keep->ops[k].id == op->id;
		if (gone) {
			free(op->key), free(op->rec), free(op->spec), free(op->acct.account);
			continue;
		}
		keep->ops[n++] = *op;
	}
	keep->nops = n;
	open_batch = keep;
	retry_at = uv_now(ctld.loop) + STORE_RETRY_MS;
	uv_timer_start(&retry_timer, retry_wake, STORE_RETRY_MS, 0);
}

static void retry_wake(uv_timer_t *t)
{
	(void)t;   /* the loop's next turn runs flush */
}

static void batch_done(uv_work_t *w, int status)
{
	struct batch *b = w->data;
	in_flight = false;
	if (!b->ok || status != 0) {
		batch_failed(b);
		return;
	}
	for (size_t i = 0; i < b->ncbs; i++)
		b->cbs[i].cb(b->cbs[i].arg, true);
	batch_free(b);
}

/* Before the loop waits for I/O: everything this iteration queued goes out. */
static void flush(uv_prepare_t *h)
{
	job_write_changed();   /* the rows of the jobs that changed (core/job.c) */
	if (in_flight || !open_batch || uv_now(ctld.loop) < retry_at)
		return;
	struct batch *b = open_batch;
	open_batch = NULL;
	in_flight = true;
	b->work.data = b;
	uv_queue_work(ctld.loop, &b->work, batch_commit, batch_done);
}

static sqlite3 *db_open(const char *path, struct herd_error *err)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		errprintf(err, "cannot open %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 10000);
	return db;
}

int store_open(const char *dir, struct herd_error *err)
{
	char *path;
	char *msg = NULL;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "cannot create StateSaveLocation %s: %s", dir, strerror(errno));
	path = xasprintf("%s/herd.db", dir);
	free(db_path);
	db_path = xstrdup(path);
	db_write = db_open(path, err);
	if (!db_write)
		goto error;
	if (sqlite3_exec(db_write, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL,
			 NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db_write, schema, NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "%s: %s", path, msg ? msg : "schema failed");
		sqlite3_free(msg);
		goto error;
	}
	/* A store made before job arrays lacks the column ("duplicate column"
	 * otherwise: nothing to do). */
	sqlite3_exec(db_write, "ALTER TABLE jobs ADD COLUMN array_job_id INTEGER", NULL, NULL, NULL);
	if (sqlite3_exec(db_write, "CREATE INDEX IF NOT EXISTS jobs_array ON jobs(array_job_id)"
			 " WHERE array_job_id IS NOT NULL", NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "%s: %s", path, msg ? msg : "schema failed");
		sqlite3_free(msg);
		goto error;
	}
	/* The accounting tables live in herd.db whichever the backend: they
	 * are the SQLite backend's records, and cost nothing otherwise. */
	if (sqlite3_exec(db_write, adb_schema, NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "%s: %s", path, msg ? msg : "schema failed");
		sqlite3_free(msg);
		goto error;
	}
	free(acct_cluster);
	acct_cluster = xstrdup(core.cluster ? core.cluster : "cluster");
	adb_close(adb_write_db);
	adb_write_db = adb_sqlite(db_write);
	struct adb_val cl = ADB_TEXT(acct_cluster);
	if (adb_exec(adb_write_db, migrate_sql, &cl, 1) < 0) {
		errprintf(err, "%s: %s", path, adb_errmsg(adb_write_db));
		goto error;
	}
	db_read = db_open(path, err);
	if (!db_read)
		goto error;
	if (sqlite3_prepare_v2(db_read, "SELECT spec FROM jobs WHERE id=?", -1, &st_spec, NULL)) {
		errprintf(err, "%s: %s", path, sqlite3_errmsg(db_read));
		goto error;
	}
	if (sqlite3_prepare_v2(db_read, "SELECT id FROM jobs WHERE uid=? AND submit_key=?", -1,
			       &st_key, NULL)) {
		errprintf(err, "%s: %s", path, sqlite3_errmsg(db_read));
		goto error;
	}
	if (sqlite3_prepare_v2(db_read, "SELECT state, rec FROM jobs WHERE id=?", -1, &st_final,
			       NULL)) {
		errprintf(err, "%s: %s", path, sqlite3_errmsg(db_read));
		goto error;
	}
	free(path);
	uv_timer_init(ctld.loop, &retry_timer);   /* only wakes the loop for flush */
	uv_unref((uv_handle_t *)&retry_timer);
	uv_prepare_init(ctld.loop, &flush_hook);
	uv_prepare_start(&flush_hook, flush);
	uv_unref((uv_handle_t *)&flush_hook);
	return 0;
error:
	free(path);
	return -1;
}

const char *store_path(void)
{
	return db_path;
}

json_t *store_job_spec(uint32_t job_id)
{
	json_t *spec = NULL;
	sqlite3_reset(st_spec);
	sqlite3_bind_int64(st_spec, 1, job_id);
	if (sqlite3_step(st_spec) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st_spec, 0);
		if (text)
			spec = json_loads(text, 0, NULL);
	}
	sqlite3_reset(st_spec);
	return spec;
}

uint32_t store_find_key(uid_t uid, const char *key)
{
	uint32_t id = 0;
	sqlite3_reset(st_key);
	sqlite3_bind_int64(st_key, 1, uid);
	sqlite3_bind_text(st_key, 2, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st_key) == SQLITE_ROW)
		id = (uint32_t)sqlite3_column_int64(st_key, 0);
	sqlite3_reset(st_key);
	return id;
}

/* Whether the row exists; the script and environment are not parsed for it. */
bool store_job_known(uint32_t job_id)
{
	bool known;
	sqlite3_reset(st_spec);
	sqlite3_bind_int64(st_spec, 1, job_id);
	known = sqlite3_step(st_spec) == SQLITE_ROW;
	sqlite3_reset(st_spec);
	return known;
}

/* For a dependency on a job purged from memory (MinJobAge): its record,
 * without the script and environment. */
int store_job_final(uint32_t job_id, enum job_state *state, time_t *start_time)
{
	int rc = -1;
	sqlite3_reset(st_final);
	sqlite3_bind_int64(st_final, 1, job_id);
	if (sqlite3_step(st_final) == SQLITE_ROW) {
		int st = sqlite3_column_int(st_final, 0);
		json_t *rec = json_loads((const char *)sqlite3_column_text(st_final, 1), 0, NULL);
		if (st >= 0 && st < JOB_STATE_COUNT) {
			*state = st;
			*start_time = json_integer_value(json_object_get(rec, "start_time"));
			rc = 0;
		}
		json_decref(rec);
	}
	sqlite3_reset(st_final);
	return rc;
}

int store_array_records(uint32_t array_job_id, void (*fn)(const struct job *job, void *arg),
			void *arg)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db_read, "SELECT rec FROM jobs WHERE array_job_id=?", -1, &st,
			       NULL) != SQLITE_OK) {
		log_error("store: %s", sqlite3_errmsg(db_read));
		return 0;
	}
	sqlite3_bind_int64(st, 1, array_job_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		struct job *job = rec ? job_from_json(rec) : NULL;
		json_decref(rec);
		if (job) {
			fn(job, arg);
			job_destroy(job);
			n++;
		}
	}
	sqlite3_finalize(st);
	return n;
}

int store_load(void)
{
	sqlite3_stmt *st;
	time_t horizon = core_now() - core.min_job_age;
	int n = 0;

	if (sqlite3_prepare_v2(db_read, "SELECT max(id) FROM jobs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		uint32_t max = (uint32_t)sqlite3_column_int64(st, 0);
		if (max >= core.next_job_id)
			core.next_job_id = max + 1;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db_read, "SELECT rec FROM jobs WHERE state < ? OR end_time >= ?",
			       -1, &st, NULL) != SQLITE_OK) {
		log_error("store: %s", sqlite3_errmsg(db_read));
		return -1;
	}
	sqlite3_bind_int(st, 1, JOB_COMPLETED);
	sqlite3_bind_int64(st, 2, horizon);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *rec = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		struct job *job = rec ? job_from_json(rec) : NULL;
		json_decref(rec);
		if (!job) {
			log_error("store: skipping an unreadable job record");
			continue;
		}
		job->durable = true;
		job_table_add(job);
		if (job->state == JOB_RUNNING || job->state == JOB_COMPLETING ||
		    job->state == JOB_SUSPENDED) {
			/* a suspended job holds its nodes too; one suspended by
			 * preemption or gang lends its CPUs again (preempt.c) */
			bool lent = job->cpus_lent;
			job->cpus_lent = false;
			node_alloc(job);
			if (lent)
				node_lend(job);
		}
		n++;
	}
	sqlite3_finalize(st);
	load_steps();
	load_nodes();
	log_info("store: loaded %d jobs; next job id %u", n, core.next_job_id);
	return 0;
}

bool store_quiet(void)
{
	return !in_flight && !open_batch && !job_any_changed();
}

/* Only when no commit is in flight (at exit, after the loop has stopped). */
void store_close(void)
{
	adb_close(adb_write_db);
	adb_write_db = NULL;
	for (int i = 0; i < OP_COUNT; i++) {
		sqlite3_finalize(st_write[i]);
		st_write[i] = NULL;
	}
	uv_close((uv_handle_t *)&flush_hook, NULL);
	uv_close((uv_handle_t *)&retry_timer, NULL);
	sqlite3_finalize(st_spec);
	sqlite3_finalize(st_key);
	sqlite3_finalize(st_final);
	sqlite3_close(db_read);
	sqlite3_close(db_write);
}

/* ---- the accounting backend ---- */

/* Forwarder thread. */
static void outbox_forwarded(int64_t id)
{
	trim_to = id;
	uv_async_send(&trim_async);
}

/* Loop thread. */
static void outbox_trim(uv_async_t *h)
{
	int64_t id = trim_to;
	if (id <= trim_queued)
		return;
	op_new(OP_TRIM, 0)->time = id;
	trim_queued = id;
}

static const char *plugin_name(const char *type)
{
	return !strncmp(type, "accounting_storage/", 19) ? type + 19 : type;
}

/* AccountingStorageType and, for PostgreSQL, where the database is.  Unset
 * and accounting_storage/sqlite keep the records in herd.db; so does
 * accounting_storage/slurmdbd (a Slurm configuration: Herd's controller
 * keeps what slurmdbd would).  accounting_storage/none keeps none, as
 * Slurm's does. */
int store_backend_open(const struct conf *conf, struct herd_error *err)
{
	const char *type = conf_get(conf, "AccountingStorageType");
	const char *name = type ? plugin_name(type) : "sqlite";

	/* herd.conf is read by every user: a password written in it is
	 * refused whatever the storage type (doc/accounting.md) */
	const char *pass_key = conf_get(conf, "AccountingStoragePass");
	if (pass_key && pass_key[0] != '/')
		return errprintf(err, "AccountingStoragePass must be the path of a root-only file "
				 "holding the password, not the password: every user reads %.40s",
				 conf->path);
	if (!strcmp(name, "sqlite") || !strcmp(name, "slurmdbd")) {
		backend = STORE_ACCT_SQLITE;
		return 0;
	}
	if (!strcmp(name, "none")) {
		backend = STORE_ACCT_NONE;
		return 0;
	}
	if (strcmp(name, "pgsql") && strcmp(name, "postgresql"))
		return errprintf(err, "AccountingStorageType=%s is not a storage type Herd has"
				 " (accounting_storage/none, /sqlite, /pgsql)", type);
	const char *host = conf_get(conf, "AccountingStorageHost"),
		   *user = conf_get(conf, "AccountingStorageUser"),
		   *pass = conf_get(conf, "AccountingStoragePass"),
		   *loc = conf_get(conf, "AccountingStorageLoc"),
		   *port_s = conf_get(conf, "AccountingStoragePort");
	if (!host || !*host)
		return errprintf(err, "AccountingStorageHost is required with AccountingStorageType=%s",
				 type);
	long port = 5432;
	if (port_s) {
		char *end;
		port = strtol(port_s, &end, 10);
		if (!*port_s || *end || port < 1 || port > 65535)
			return errprintf(err, "AccountingStoragePort=%s is not a port number", port_s);
	}
	if (user && !*user)
		return errprintf(err, "AccountingStorageUser is empty");
	if (loc && (!*loc || strchr(loc, '/')))
		return errprintf(err, "AccountingStorageLoc=%s is not a database name", loc);
	/* The password is in a root-only file that herd.conf names. */
	char *secret = pass ? secret_read(pass, core.slurm_uid, "AccountingStoragePass", err) : NULL;
	if (pass && !secret)
		return -1;
	free(pg_conninfo);
	pg_conninfo = adb_pg_conninfo(host, (int)port, user, secret, loc ? loc : "slurm_acct_db");
	if (secret) {
		memset(secret, 0, strlen(secret));
		free(secret);
	}
	uv_async_init(ctld.loop, &trim_async, outbox_trim);
	uv_unref((uv_handle_t *)&trim_async);
	trim_open = true;
	outbox_register(store_cluster(), conf_ctld_host(core.conf), conf_ctld_port(core.conf));
	if (outbox_start(db_path, pg_conninfo, outbox_forwarded, err) < 0) {
		free(pg_conninfo);
		pg_conninfo = NULL;
		uv_close((uv_handle_t *)&trim_async, NULL);
		trim_open = false;
		return -1;
	}
	backend = STORE_ACCT_PGSQL;
	log_info("store: accounting records go to PostgreSQL at %s:%ld, database %s", host, port,
		 loc ? loc : "slurm_acct_db");
	return 0;
}

/* After the loop has stopped and the last commit is in: the forwarder gets
 * a moment to drain the outbox (what it leaves waits for the next start). */
void store_backend_close(void)
{
	if (backend == STORE_ACCT_PGSQL)
		outbox_stop();
	if (trim_open)
		uv_close((uv_handle_t *)&trim_async, NULL);
	trim_open = false;
	free(pg_conninfo);
	pg_conninfo = NULL;
	backend = STORE_ACCT_SQLITE;
}

enum store_backend store_backend(void)
{
	return backend;
}

const char *store_pg_conninfo(void)
{
	return pg_conninfo;
}

const char *store_cluster(void)
{
	return acct_cluster ? acct_cluster : "cluster";
}
