/* The accounting database on SQLite or PostgreSQL (adb.h).  Statements are
 * written once with $1..$n parameters, which both accept: SQLite takes `$1`
 * as a named parameter, so each is bound through its name and the numbers
 * may come in any order.  Every value is bound, never spliced into SQL. */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/adb.h"

/* One statement kept prepared, by the address of its text. */
struct adb_stmt {
	const char *sql;
	sqlite3_stmt *st;       /* SQLite */
	char name[16];          /* PostgreSQL: the prepared statement's name */
};
#define ADB_CACHE 16

struct adb {
	sqlite3 *lite;
	bool own_lite;
	PGconn *pg;
	struct adb_stmt cache[ADB_CACHE];
	int ncache;
	char err[256];
};

struct adb_rows {
	struct adb *db;
	sqlite3_stmt *st;       /* SQLite: stepped row by row */
	PGresult *res;          /* PostgreSQL: every row at once */
	int row, nrows;
	bool failed;
};

const char adb_schema[] =
	/* One record per run of a job: a requeued job's earlier runs keep theirs
	 * (restart 0, 1 ...), as slurmdbd does.  The columns are what queries
	 * select on; rec is the whole record (job_to_json).  end_time is 0
	 * while the run has not ended. */
	"CREATE TABLE IF NOT EXISTS acct_job ("
	"  cluster TEXT NOT NULL, job_id BIGINT NOT NULL, restart INTEGER NOT NULL,"
	"  uid BIGINT NOT NULL, account TEXT, state INTEGER NOT NULL,"
	"  submit_time BIGINT NOT NULL, start_time BIGINT NOT NULL, end_time BIGINT NOT NULL,"
	"  array_job_id BIGINT, rec TEXT NOT NULL,"
	"  PRIMARY KEY (cluster, job_id, restart));"
	"CREATE INDEX IF NOT EXISTS acct_job_uid ON acct_job (cluster, uid, end_time);"
	"CREATE INDEX IF NOT EXISTS acct_job_account ON acct_job (cluster, account, end_time);"
	"CREATE INDEX IF NOT EXISTS acct_job_end ON acct_job (cluster, end_time);"
	"CREATE INDEX IF NOT EXISTS acct_job_array ON acct_job (cluster, array_job_id);"
	"CREATE TABLE IF NOT EXISTS acct_step ("
	"  cluster TEXT NOT NULL, job_id BIGINT NOT NULL, restart INTEGER NOT NULL,"
	"  step_id BIGINT NOT NULL, state INTEGER NOT NULL, rec TEXT NOT NULL,"
	"  PRIMARY KEY (cluster, job_id, restart, step_id));"
	/* event_id: the controller's own number for the event (unique in its
	 * cluster), so an event sent twice is kept once. */
	"CREATE TABLE IF NOT EXISTS acct_event ("
	"  cluster TEXT NOT NULL, event_id BIGINT NOT NULL, job_id BIGINT NOT NULL,"
	"  time BIGINT NOT NULL, event TEXT NOT NULL, detail TEXT,"
	"  PRIMARY KEY (cluster, event_id));"
	"CREATE INDEX IF NOT EXISTS acct_event_job ON acct_event (cluster, job_id);"
	/* Where each cluster sharing the database has its controller (as
	 * slurmdbd's cluster table): written by each controller when its
	 * forwarder connects, read by -M/--clusters (CLUSTER_INFO). */
	"CREATE TABLE IF NOT EXISTS acct_cluster ("
	"  cluster TEXT PRIMARY KEY, control_host TEXT NOT NULL, control_port INTEGER NOT NULL,"
	"  rpc INTEGER NOT NULL, registered BIGINT NOT NULL);";

static const char *const write_sql[ADB_W_COUNT] = {
	[ADB_W_JOB] =
	"INSERT INTO acct_job (cluster, job_id, restart, uid, account, state, submit_time,"
	" start_time, end_time, array_job_id, rec) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)"
	" ON CONFLICT (cluster, job_id, restart) DO UPDATE SET uid=excluded.uid,"
	" account=excluded.account, state=excluded.state, submit_time=excluded.submit_time,"
	" start_time=excluded.start_time, end_time=excluded.end_time,"
	" array_job_id=excluded.array_job_id, rec=excluded.rec",
	[ADB_W_STEP] =
	"INSERT INTO acct_step (cluster, job_id, restart, step_id, state, rec)"
	" VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (cluster, job_id, restart, step_id)"
	" DO UPDATE SET state=excluded.state, rec=excluded.rec",
	[ADB_W_EVENT] =
	"INSERT INTO acct_event (cluster, event_id, job_id, time, event, detail)"
	" VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (cluster, event_id) DO NOTHING",
};
static const int write_params[ADB_W_COUNT] = { 11, 6, 6 };

static void set_err(struct adb *db, const char *what)
{
	snprintf(db->err, sizeof(db->err), "%s", what ? what : "unknown error");
	/* libpq's messages end with a newline */
	size_t n = strlen(db->err);
	while (n && (db->err[n - 1] == '\n' || db->err[n - 1] == ' '))
		db->err[--n] = 0;
}

struct adb *adb_sqlite(sqlite3 *lite)
{
	struct adb *db = xmalloc(sizeof(*db));
	db->lite = lite;
	return db;
}

struct adb *adb_sqlite_open(const char *path, bool read_only, struct herd_error *err)
{
	sqlite3 *lite;
	int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		    SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &lite, flags, NULL) != SQLITE_OK) {
		errprintf(err, "cannot open %s: %s", path, sqlite3_errmsg(lite));
		sqlite3_close(lite);
		return NULL;
	}
	sqlite3_busy_timeout(lite, 10000);
	struct adb *db = adb_sqlite(lite);
	db->own_lite = true;
	return db;
}

struct adb *adb_pg_connect(const char *conninfo, struct herd_error *err)
{
	PGconn *pg = PQconnectdb(conninfo);
	if (PQstatus(pg) != CONNECTION_OK) {
		char msg[sizeof(err->text)];
		snprintf(msg, sizeof(msg), "%s", PQerrorMessage(pg));
		msg[strcspn(msg, "\n")] = 0;
		errprintf(err, "%s", msg);   /* libpq's own sentence; callers add what for */
		PQfinish(pg);
		return NULL;
	}
	struct adb *db = xmalloc(sizeof(*db));
	db->pg = pg;
	/* Records are small; a commit need not wait for the standby or the
	 * disk twice, but it does wait for the local WAL flush (default). */
	PQclear(PQexec(pg, "SET client_min_messages = warning"));
	return db;
}

void adb_close(struct adb *db)
{
	if (!db)
		return;
	int saved = errno;
	for (int i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	if (db->own_lite)
		sqlite3_close(db->lite);
	if (db->pg)
		PQfinish(db->pg);
	free(db);
	errno = saved;
}

bool adb_is_pg(const struct adb *db)
{
	return db->pg != NULL;
}

const char *adb_errmsg(const struct adb *db)
{
	return db->err;
}

bool adb_broken(const struct adb *db)
{
	return db->pg && PQstatus(db->pg) != CONNECTION_OK;
}

/* SQLite: bind v[k] to the parameter named "$k+1" (absent names are skipped:
 * a statement may not use every value). */
static int lite_bind(struct adb *db, sqlite3_stmt *st, const struct adb_val *v, int n)
{
	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$%d", k + 1);
		int idx = sqlite3_bind_parameter_index(st, name);
		if (!idx)
			continue;
		int rc = v[k].type == ADB_V_INT ? sqlite3_bind_int64(st, idx, v[k].i)
			 : v[k].type == ADB_V_TEXT ? sqlite3_bind_text(st, idx, v[k].s, -1, SQLITE_STATIC)
			 : sqlite3_bind_null(st, idx);
		if (rc != SQLITE_OK) {
			set_err(db, sqlite3_errmsg(db->lite));
			return -1;
		}
	}
	return 0;
}

/* PostgreSQL: every value as text (the server casts it to its column's type). */
struct pg_params {
	const char **values;
	char (*ints)[24];
};

static const char *const *pg_values(struct pg_params *p, const struct adb_val *v, int n)
{
	p->values = xmalloc((n + 1) * sizeof(*p->values));
	p->ints = xmalloc((n + 1) * sizeof(*p->ints));
	for (int k = 0; k < n; k++) {
		if (v[k].type == ADB_V_INT) {
			snprintf(p->ints[k], sizeof(p->ints[k]), "%" PRId64, v[k].i);
			p->values[k] = p->ints[k];
		} else {
			p->values[k] = v[k].type == ADB_V_TEXT ? v[k].s : NULL;
		}
	}
	return p->values;
}

static void pg_params_free(struct pg_params *p)
{
	free(p->values);
	free(p->ints);
}

static struct adb_stmt *stmt_get(struct adb *db, const char *sql)
{
	for (int i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			return &db->cache[i];
	if (db->ncache == ADB_CACHE)
		return NULL;   /* run unprepared */
	struct adb_stmt *s = &db->cache[db->ncache];
	memset(s, 0, sizeof(*s));
	s->sql = sql;
	if (db->lite) {
		if (sqlite3_prepare_v2(db->lite, sql, -1, &s->st, NULL) != SQLITE_OK) {
			set_err(db, sqlite3_errmsg(db->lite));
			return NULL;
		}
	} else {
		snprintf(s->name, sizeof(s->name), "adb%d", db->ncache);
		PGresult *res = PQprepare(db->pg, s->name, sql, 0, NULL);
		bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
		if (!ok)
			set_err(db, PQerrorMessage(db->pg));
		PQclear(res);
		if (!ok)
			return NULL;
	}
	db->ncache++;
	return s;
}

int adb_exec(struct adb *db, const char *sql, const struct adb_val *v, int n)
{
	if (db->lite) {
		struct adb_stmt *s = stmt_get(db, sql);
		sqlite3_stmt *st = s ? s->st : NULL;
		if (!st && sqlite3_prepare_v2(db->lite, sql, -1, &st, NULL) != SQLITE_OK) {
			set_err(db, sqlite3_errmsg(db->lite));
			return -1;
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		int rc = lite_bind(db, st, v, n);
		if (rc == 0 && sqlite3_step(st) != SQLITE_DONE) {
			set_err(db, sqlite3_errmsg(db->lite));
			rc = -1;
		}
		sqlite3_reset(st);
		if (!s)
			sqlite3_finalize(st);
		return rc;
	}
	struct pg_params p;
	struct adb_stmt *s = n ? stmt_get(db, sql) : NULL;
	PGresult *res = s ? PQexecPrepared(db->pg, s->name, n, pg_values(&p, v, n), NULL, NULL, 0)
			  : PQexecParams(db->pg, sql, n, NULL, pg_values(&p, v, n), NULL, NULL, 0);
	ExecStatusType status = PQresultStatus(res);
	int rc = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? 0 : -1;
	if (rc < 0)
		set_err(db, PQerrorMessage(db->pg));
	PQclear(res);
	pg_params_free(&p);
	return rc;
}

int adb_exec_script(struct adb *db, const char *sql)
{
	if (db->lite) {
		char *msg = NULL;
		if (sqlite3_exec(db->lite, sql, NULL, NULL, &msg) != SQLITE_OK) {
			set_err(db, msg ? msg : sqlite3_errmsg(db->lite));
			sqlite3_free(msg);
			return -1;
		}
		return 0;
	}
	PGresult *res = PQexec(db->pg, sql);
	int rc = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK
		 ? 0 : -1;
	if (rc < 0)
		set_err(db, PQerrorMessage(db->pg));
	PQclear(res);
	return rc;
}

struct adb_rows *adb_query(struct adb *db, const char *sql, const struct adb_val *v, int n)
{
	struct adb_rows *r;
	r = xmalloc(sizeof(*r));
	r->db = db;
	r->row = -1;
	if (db->lite) {
		if (sqlite3_prepare_v2(db->lite, sql, -1, &r->st, NULL) != SQLITE_OK) {
			set_err(db, sqlite3_errmsg(db->lite));
			goto error;
		}
		if (lite_bind(db, r->st, v, n) < 0)
			goto error;
		return r;
	}
	struct pg_params p;
	r->res = PQexecParams(db->pg, sql, n, NULL, pg_values(&p, v, n), NULL, NULL, 0);
	pg_params_free(&p);
	if (PQresultStatus(r->res) != PGRES_TUPLES_OK) {
		set_err(db, PQerrorMessage(db->pg));
		goto error;
	}
	r->nrows = PQntuples(r->res);
	return r;
error:
	sqlite3_finalize(r->st);
	PQclear(r->res);
	free(r);
	return NULL;
}

bool adb_next(struct adb_rows *r)
{
	if (r->st) {
		int rc = sqlite3_step(r->st);
		if (rc == SQLITE_ROW)
			return true;
		if (rc != SQLITE_DONE) {
			set_err(r->db, sqlite3_errmsg(r->db->lite));
			r->failed = true;
		}
		return false;
	}
	return ++r->row < r->nrows;
}

int64_t adb_int(const struct adb_rows *r, int col)
{
	if (r->st)
		return sqlite3_column_int64(r->st, col);
	const char *s = PQgetvalue(r->res, r->row, col);
	return s ? strtoll(s, NULL, 10) : 0;
}

enum adb_type adb_type(const struct adb_rows *r, int col)
{
	if (r->st) {
		int t = sqlite3_column_type(r->st, col);
		return t == SQLITE_NULL ? ADB_V_NULL : t == SQLITE_INTEGER ? ADB_V_INT : ADB_V_TEXT;
	}
	return PQgetisnull(r->res, r->row, col) ? ADB_V_NULL : ADB_V_TEXT;
}

const char *adb_text(const struct adb_rows *r, int col)
{
	if (r->st)
		return (const char *)sqlite3_column_text(r->st, col);
	return PQgetisnull(r->res, r->row, col) ? NULL : PQgetvalue(r->res, r->row, col);
}

int adb_done(struct adb_rows *r)
{
	if (!r)
		return -1;
	int rc = r->failed ? -1 : 0;
	sqlite3_finalize(r->st);
	PQclear(r->res);
	free(r);
	return rc;
}

int adb_write(struct adb *db, const struct adb_row *row)
{
	if (row->kind >= ADB_W_COUNT || row->n != write_params[row->kind]) {
		set_err(db, "malformed accounting row");
		return -1;
	}
	return adb_exec(db, write_sql[row->kind], row->v, row->n);
}

/* ---- PostgreSQL: many writes at once ----
 * A batch is one transaction sent in one pipeline (libpq 14+): one round
 * trip, not one a row.  Writes of a record that a later write of the batch
 * replaces are left out (every upsert sets the whole record), and the rest
 * go ADB_CHUNK rows to a statement: the same INSERT ... ON CONFLICT with
 * more VALUES groups, which a statement may hold only once per key. */
#define ADB_CHUNK 64
static const int key_columns[ADB_W_COUNT] = { 3, 4, 2 };
static char *chunk_sql[ADB_W_COUNT];
static pthread_once_t chunk_once = PTHREAD_ONCE_INIT;

/* write_sql[kind] with k VALUES groups. */
static char *multi_sql(int kind, int k)
{
	const char *sql = write_sql[kind], *values = strstr(sql, " VALUES ("),
		   *conflict = strstr(sql, " ON CONFLICT");
	struct { char *s; size_t len, cap; } b = { 0 };
	size_t need = (values - sql) + strlen(conflict) + 16 + (size_t)k * write_params[kind] * 7;
	b.s = xmalloc(need);
	b.len = values - sql;
	memcpy(b.s, sql, b.len);
	b.len += sprintf(b.s + b.len, " VALUES ");
	for (int r = 0; r < k; r++) {
		b.s[b.len++] = r ? ',' : ' ';
		b.s[b.len++] = '(';
		for (int c = 0; c < write_params[kind]; c++)
			b.len += sprintf(b.s + b.len, "%s$%d", c ? "," : "", r * write_params[kind] + c + 1);
		b.s[b.len++] = ')';
	}
	strcpy(b.s + b.len, conflict);
	return b.s;
}

static void chunk_init(void)
{
	for (int k = 0; k < ADB_W_COUNT; k++)
		chunk_sql[k] = multi_sql(k, ADB_CHUNK);
}

static bool same_value(const struct adb_val *a, const struct adb_val *b)
{
	if (a->type != b->type)
		return false;
	return a->type == ADB_V_INT ? a->i == b->i
	       : a->type == ADB_V_TEXT ? !strcmp(a->s, b->s) : true;
}

static bool same_key(const struct adb_row *a, const struct adb_row *b)
{
	if (a->kind != b->kind)
		return false;
	for (int c = 0; c < key_columns[a->kind]; c++)
		if (!same_value(&a->v[c], &b->v[c]))
			return false;
	return true;
}

/* Send one statement of k rows (all of one kind); false when libpq could not. */
static bool send_chunk(struct adb *db, const struct adb_row *const *rows, int k)
{
	int kind = rows[0]->kind, np = write_params[kind], n = k * np;
	struct adb_val *v = xmalloc(n * sizeof(*v));
	struct pg_params p;
	for (int r = 0; r < k; r++)
		memcpy(&v[r * np], rows[r]->v, np * sizeof(*v));
	const char *const *values = pg_values(&p, v, n);
	int ok;
	struct adb_stmt *s = k == ADB_CHUNK ? stmt_get(db, chunk_sql[kind]) : NULL;
	if (s) {
		ok = PQsendQueryPrepared(db->pg, s->name, n, values, NULL, NULL, 0);
	} else {
		char *sql = multi_sql(kind, k);
		ok = PQsendQueryParams(db->pg, sql, n, NULL, values, NULL, NULL, 0);
		free(sql);
	}
	pg_params_free(&p);
	free(v);
	return ok;
}

static int pg_write_many(struct adb *db, const struct adb_row *rows, int n)
{
	PGconn *pg = db->pg;
	int rc = 0, nsent = 0, nwant = 2;
	const struct adb_row **keep = xmalloc((n + 1) * sizeof(*keep));
	int nkeep = 0;

	pthread_once(&chunk_once, chunk_init);
	for (int i = 0; i < n; i++)
		if (rows[i].kind >= ADB_W_COUNT || rows[i].n != write_params[rows[i].kind]) {
			set_err(db, "malformed accounting row");
			free(keep);
			return -1;
		}
	/* the last write of each record, in batch order */
	for (int i = n - 1; i >= 0; i--) {
		bool later = false;
		for (int j = 0; j < nkeep && !later; j++)
			later = same_key(&rows[i], keep[j]);
		if (!later)
			keep[nkeep++] = &rows[i];
	}
	for (int i = 0; i < nkeep / 2; i++) {
		const struct adb_row *t = keep[i];
		keep[i] = keep[nkeep - 1 - i];
		keep[nkeep - 1 - i] = t;
	}
	for (int k = 0; k < ADB_W_COUNT; k++)   /* full chunks prepared outside the pipeline */
		stmt_get(db, chunk_sql[k]);
	if (!PQenterPipelineMode(pg)) {
		set_err(db, PQerrorMessage(pg));
		free(keep);
		return -1;
	}
	if (PQsendQueryParams(pg, "BEGIN", 0, NULL, NULL, NULL, NULL, 0))
		nsent++;
	for (int kind = 0; kind < ADB_W_COUNT; kind++) {
		const struct adb_row *chunk[ADB_CHUNK];
		int k = 0;
		for (int i = 0; i <= nkeep; i++) {
			if (i < nkeep && keep[i]->kind == kind)
				chunk[k++] = keep[i];
			if (k && (k == ADB_CHUNK || i == nkeep)) {
				nwant++;
				if (send_chunk(db, chunk, k))
					nsent++;
				k = 0;
			}
		}
	}
	if (PQsendQueryParams(pg, "COMMIT", 0, NULL, NULL, NULL, NULL, 0))
		nsent++;
	free(keep);
	if (nsent != nwant) {
		set_err(db, PQerrorMessage(pg));
		rc = -1;
	}
	if (!PQpipelineSync(pg)) {
		set_err(db, PQerrorMessage(pg));
		PQexitPipelineMode(pg);
		return -1;
	}
	for (int q = 0; q < nsent; q++) {
		PGresult *res = PQgetResult(pg);
		if (!res) {
			set_err(db, PQerrorMessage(pg));
			rc = -1;
			break;
		}
		ExecStatusType st = PQresultStatus(res);
		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && rc == 0) {
			set_err(db, st == PGRES_PIPELINE_ABORTED ? "pipeline aborted"
							: PQresultErrorMessage(res));
			rc = -1;
		}
		PQclear(res);
		while ((res = PQgetResult(pg)))   /* the NULL that ends each result */
			PQclear(res);
	}
	PGresult *res;
	while ((res = PQgetResult(pg))) {   /* PGRES_PIPELINE_SYNC */
		bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
		PQclear(res);
		if (sync)
			break;
	}
	PQexitPipelineMode(pg);
	if (rc < 0 && PQstatus(pg) == CONNECTION_OK)
		PQclear(PQexec(pg, "ROLLBACK"));
	return rc;
}

int adb_write_many(struct adb *db, const struct adb_row *rows, int n)
{
	if (db->pg)
		return pg_write_many(db, rows, n);
	if (adb_exec_script(db, "BEGIN") < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (adb_write(db, &rows[i]) < 0) {
			char saved[sizeof(db->err)];
			memcpy(saved, db->err, sizeof(saved));
			adb_exec_script(db, "ROLLBACK");
			memcpy(db->err, saved, sizeof(saved));
			return -1;
		}
	return adb_exec_script(db, "COMMIT");
}

int adb_write_params(int kind)
{
	return kind >= 0 && kind < ADB_W_COUNT ? write_params[kind] : -1;
}

/* One conninfo value in single quotes, \ and ' escaped (libpq's rules). */
static void add_kv(char **s, const char *key, const char *value)
{
	size_t len = strlen(*s), need = len + strlen(key) + 2 * strlen(value) + 6;
	*s = xrealloc(*s, need);
	char *o = *s + len;
	o += sprintf(o, "%s%s='", len ? " " : "", key);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '\'')
			*o++ = '\\';
		*o++ = *p;
	}
	*o++ = '\'';
	*o = 0;
}

char *adb_pg_conninfo(const char *host, int port, const char *user, const char *pass,
		      const char *dbname)
{
	char *s = xstrdup(""), portbuf[16];
	add_kv(&s, "host", host);
	snprintf(portbuf, sizeof(portbuf), "%d", port);
	add_kv(&s, "port", portbuf);
	if (user)
		add_kv(&s, "user", user);
	if (pass)
		add_kv(&s, "password", pass);
	add_kv(&s, "dbname", dbname);
	add_kv(&s, "connect_timeout", "5");
	/* a hung server must not hold a reader or the forwarder for ever */
	add_kv(&s, "options", "-c statement_timeout=60000");
	add_kv(&s, "application_name", "herdctld");
	return s;
}
