/* The accounting database: one schema and one set of statements, run on
 * SQLite (the controller's herd.db) or on PostgreSQL (libpq), through a
 * small layer both share: statements with $1..$n parameters, always bound,
 * and rows read by column.  Not here: when records are written (store.c),
 * how they are selected for sacct (acct.c), the forwarder of the
 * outbox to PostgreSQL (outbox.c). */
#ifndef HERD_CTLD_ADB_H
#define HERD_CTLD_ADB_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "common/error.h"

struct sqlite3;
struct adb;                    /* a connection */
struct adb_rows;               /* the rows of one query */

enum adb_type { ADB_V_NULL, ADB_V_INT, ADB_V_TEXT };
struct adb_val {
	enum adb_type type;
	int64_t i;
	const char *s;          /* lent */
};
#define ADB_INT(x)  ((struct adb_val){ ADB_V_INT, (int64_t)(x), NULL })
static inline struct adb_val adb_text_val(const char *s)
{
	return (struct adb_val){ s ? ADB_V_TEXT : ADB_V_NULL, 0, s };
}
#define ADB_TEXT(x) adb_text_val(x)   /* NULL: SQL NULL */

/* A connection on an open SQLite handle (lent: adb_close leaves it open). */
struct adb *adb_sqlite(struct sqlite3 *db);
/* A connection of its own to the file; read_only for readers. */
struct adb *adb_sqlite_open(const char *path, bool read_only, struct herd_error *err);
/* A PostgreSQL connection; conninfo as libpq's (adb_pg_conninfo builds it).
 * NULL with libpq's reason in err. */
struct adb *adb_pg_connect(const char *conninfo, struct herd_error *err);
void adb_close(struct adb *db);
bool adb_is_pg(const struct adb *db);
const char *adb_errmsg(const struct adb *db);   /* the last failure's */
/* Is the PostgreSQL connection broken (server gone)?  Always false on SQLite. */
bool adb_broken(const struct adb *db);

/* A statement without rows (BEGIN, an upsert ...).  sql is kept prepared
 * by its address: pass string constants.  0 or -1 (adb_errmsg). */
int adb_exec(struct adb *db, const char *sql, const struct adb_val *v, int n);
/* Several statements of text, no parameters (the schema). */
int adb_exec_script(struct adb *db, const char *sql);
/* A query: rows to read with adb_next; sql may be built at run time (its
 * parameters still bound).  NULL on failure. */
struct adb_rows *adb_query(struct adb *db, const char *sql, const struct adb_val *v, int n);
bool adb_next(struct adb_rows *r);
int64_t adb_int(const struct adb_rows *r, int col);
const char *adb_text(const struct adb_rows *r, int col);   /* NULL for NULL */
/* The value's type (PostgreSQL gives every value as text). */
enum adb_type adb_type(const struct adb_rows *r, int col);
/* Frees the rows: 0 when every row was read without error, else -1. */
int adb_done(struct adb_rows *r);

/* ---- the accounting schema and its writes ---- */

/* The tables (the same text on both backends). */
extern const char adb_schema[];

/* The writes the controller makes, each one statement: a job run's record,
 * a step's, a job event. */
enum adb_write { ADB_W_JOB, ADB_W_STEP, ADB_W_EVENT, ADB_W_COUNT };
#define ADB_MAX_PARAMS 12
struct adb_row {
	enum adb_write kind;
	int n;
	struct adb_val v[ADB_MAX_PARAMS];
};
/* A state column value beyond enum job_state: an earlier run of a job that
 * was requeued (slurmdbd's REQUEUED records). */
#define ADB_STATE_REQUEUED 100

int adb_write(struct adb *db, const struct adb_row *row);
/* n writes in one transaction (on PostgreSQL one round trip): 0 when it
 * committed, else -1 and nothing of it stays. */
int adb_write_many(struct adb *db, const struct adb_row *rows, int n);
/* How many values a write of kind takes; -1 for no such kind. */
int adb_write_params(int kind);

/* libpq's conninfo from the AccountingStorage* keys, values quoted. */
char *adb_pg_conninfo(const char *host, int port, const char *user, const char *pass,
		      const char *dbname);

/* ---- store.c: where the controller's records go ---- */
struct conf;
enum store_backend { STORE_ACCT_SQLITE, STORE_ACCT_NONE, STORE_ACCT_PGSQL };
/* After store_open: AccountingStorageType and its keys (a config error
 * names the key); with PostgreSQL, starts the outbox's forwarder. */
int store_backend_open(const struct conf *conf, struct herd_error *err);
void store_backend_close(void);        /* before store_close */
enum store_backend store_backend(void);
const char *store_pg_conninfo(void);   /* NULL unless PostgreSQL */
const char *store_cluster(void);       /* the records' cluster: ClusterName */

/* ---- acct.c ---- */
/* ACCT_JOBS's answer to body, run here and now (bench/acct times the real
 * query with it): the reply's JSON text (caller frees), or NULL with *rc
 * and err. */
char *acct_jobs_run(const json_t *body, int *rc, char *err, size_t errlen);

/* ---- outbox.c: herd.db's outbox forwarded to PostgreSQL ---- */
/* trim (called on the forwarder's thread): outbox rows up to id are in
 * PostgreSQL and may be deleted. */
/* What the cluster registry (acct_cluster) says of this controller, written
 * each time the forwarder connects; before outbox_start. */
#define ADB_RPC_VERSION 9728   /* sacctmgr's RPC column: Slurm 22.05's protocol */
void outbox_register(const char *cluster, const char *host, int port);
int outbox_start(const char *db_path, const char *conninfo, void (*trim)(int64_t id),
		 struct herd_error *err);
void outbox_stop(void);
/* The store committed outbox rows up to id (the commit worker calls it). */
void outbox_kick(int64_t id);
/* Readers: wait (at most timeout_ms) until every row committed so far has
 * reached PostgreSQL; false when it has not (the server is down). */
bool outbox_wait_flushed(int timeout_ms);

#endif
