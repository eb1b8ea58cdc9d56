/* The forwarder of herd.db's outbox to PostgreSQL: a thread of its own, with
 * its own read-only SQLite connection and its own PGconn, that sends the
 * accounting writes the store committed to the outbox, in order, in batches
 * of one PostgreSQL transaction each, and tells the store what PostgreSQL
 * committed, which the store's next commit deletes (herd.db keeps one
 * writer: a second one would make the controller's commits wait).  While the server is down rows wait; it reconnects with backoff
 * and says so once per outage.  Every write is an upsert keyed by its record
 * (adb.h), so a batch sent again after a crash between PostgreSQL's commit
 * and the outbox's delete changes nothing.  Not here: what the rows are
 * (store.c), reading them back (acct.c). */
#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "acct/adb.h"

#define OUTBOX_BATCH 1000
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

static pthread_t thread;
static bool started, stopping;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;      /* the forwarder's */
static pthread_cond_t flushed = PTHREAD_COND_INITIALIZER;   /* the readers' */
static pthread_cond_t stop_cv = PTHREAD_COND_INITIALIZER;   /* ends a backoff early */
static int64_t committed_id;    /* the last outbox row the store committed */
static int64_t forwarded_id;    /* the last one PostgreSQL has */
static bool pg_up;
static char *fwd_path, *fwd_conninfo;

static const char select_sql[] =
	"SELECT id, kind, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 FROM outbox"
	" WHERE id > $1 ORDER BY id LIMIT $2";
static void (*trim_fn)(int64_t id);   /* the store's: rows up to id may go */

static void deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* Sleep ms, or less when told to stop. */
static void nap(int ms)
{
	struct timespec ts;
	deadline_in(&ts, ms);
	pthread_mutex_lock(&mu);
	if (!stopping)
		pthread_cond_timedwait(&stop_cv, &mu, &ts);
	pthread_mutex_unlock(&mu);
}

/* This controller's entry in acct_cluster (outbox_register). */
static char *reg_cluster, *reg_host;
static int reg_port;

void outbox_register(const char *cluster, const char *host, int port)
{
	free(reg_cluster);
	free(reg_host);
	reg_cluster = xstrdup(cluster);
	reg_host = xstrdup(host);
	reg_port = port;
}

/* The tables, once per connection, and where this controller listens.
 * Clusters sharing the database may start together: an advisory lock
 * keeps their CREATEs apart. */
static int pg_prepare(struct adb *pg)
{
	struct adb_val reg[] = { ADB_TEXT(reg_cluster), ADB_TEXT(reg_host), ADB_INT(reg_port),
				 ADB_INT(ADB_RPC_VERSION), ADB_INT(time(NULL)) };
	if (adb_exec_script(pg, "BEGIN; SELECT pg_advisory_xact_lock(7714001);") < 0)
		return -1;
	if (adb_exec_script(pg, adb_schema) < 0 ||
	    (reg_cluster && adb_exec(pg, "INSERT INTO acct_cluster (cluster, control_host,"
				     " control_port, rpc, registered) VALUES ($1,$2,$3,$4,$5)"
				     " ON CONFLICT (cluster) DO UPDATE SET"
				     " control_host=excluded.control_host,"
				     " control_port=excluded.control_port, rpc=excluded.rpc,"
				     " registered=excluded.registered", reg, 5) < 0) ||
	    adb_exec_script(pg, "COMMIT") < 0) {
		adb_exec_script(pg, "ROLLBACK");
		return -1;
	}
	return 0;
}

/* An outbox row read back: the write, its strings its own. */
struct pending {
	int64_t id;
	bool malformed;
	struct adb_row row;
};

static void pending_clear(struct pending *p)
{
	for (int k = 0; k < p->row.n; k++)
		if (p->row.v[k].type == ADB_V_TEXT)
			free((char *)p->row.v[k].s);
	p->row.n = 0;
}

/* The rows after `after` (at most OUTBOX_BATCH); -1 on error. */
static int read_batch(struct adb *lite, int64_t after, struct pending *out, int *n)
{
	struct adb_val v[2] = { ADB_INT(after), ADB_INT(OUTBOX_BATCH) };
	struct adb_rows *r = adb_query(lite, select_sql, v, 2);
	*n = 0;
	if (!r)
		return -1;
	while (adb_next(r)) {
		struct pending *p = &out[(*n)++];
		int kind = (int)adb_int(r, 1), nv = adb_write_params(kind);
		p->id = adb_int(r, 0);
		p->malformed = nv < 0;
		p->row.kind = kind;
		p->row.n = nv < 0 ? 0 : nv;
		for (int k = 0; k < p->row.n; k++) {
			enum adb_type t = adb_type(r, k + 2);
			p->row.v[k] = t == ADB_V_INT ? ADB_INT(adb_int(r, k + 2))
				      : t == ADB_V_TEXT ? ADB_TEXT(xstrdup(adb_text(r, k + 2)))
				      : ADB_TEXT(NULL);
		}
	}
	return adb_done(r);
}

/* One row, outside any transaction of ours: for a batch that failed on a row
 * (not on the connection), so one bad row cannot hold up the rest. */
static int send_one(struct adb *pg, const struct pending *p)
{
	if (p->malformed) {
		log_error("outbox: dropping malformed row %lld", (long long)p->id);
		return 0;
	}
	if (adb_write(pg, &p->row) < 0) {
		if (adb_broken(pg))
			return -1;
		log_error("outbox: PostgreSQL refused row %lld (dropped): %s", (long long)p->id,
			  adb_errmsg(pg));
	}
	return 0;
}

/* The batch in one transaction: 0 when PostgreSQL committed it all (or
 * refused only rows it will never take, which are dropped and logged). */
static int send_batch(struct adb *pg, const struct pending *p, int n)
{
	struct adb_row *rows = xmalloc(n * sizeof(*rows));
	bool malformed = false;
	int rc;
	for (int i = 0; i < n; i++) {
		malformed |= p[i].malformed;
		rows[i] = p[i].row;
	}
	rc = malformed ? -1 : adb_write_many(pg, rows, n);
	free(rows);
	if (rc == 0)
		return 0;
	if (adb_broken(pg))
		return -1;
	for (int i = 0; i < n; i++)
		if (send_one(pg, &p[i]) < 0)
			return -1;
	return 0;
}

static void set_forwarded(int64_t id)
{
	pthread_mutex_lock(&mu);
	if (id > forwarded_id)
		forwarded_id = id;
	pthread_cond_broadcast(&flushed);
	pthread_mutex_unlock(&mu);
}

static void *forwarder(void *arg)
{
	/* Behind the loop thread and the commits: the records wait a moment
	 * rather than the controller's answers (Linux: nice is per thread). */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) < 0)
		log_debug("outbox: cannot lower the forwarder's priority: %s", strerror(errno));
	struct herd_error err = { "" };
	struct adb *lite = adb_sqlite_open(fwd_path, true, &err), *pg = NULL;
	int64_t sent = 0;   /* rows up to it are in PostgreSQL (this run's count) */
	struct pending *batch = xmalloc(OUTBOX_BATCH * sizeof(*batch));
	int backoff = BACKOFF_MIN_MS;
	bool outage_logged = false;

	if (!lite) {
		log_error("outbox: %s; accounting records stay in the outbox", err.text);
		free(batch);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&mu);
		bool stop = stopping, idle = forwarded_id >= committed_id;
		int64_t target = committed_id;
		pthread_mutex_unlock(&mu);
		if (!pg) {
			if (stop)
				break;
			pg = adb_pg_connect(fwd_conninfo, &err);
			if (pg && pg_prepare(pg) < 0) {
				snprintf(err.text, sizeof(err.text), "%s", adb_errmsg(pg));
				adb_close(pg);
				pg = NULL;
			}
			if (!pg) {
				if (!outage_logged)
					log_error("outbox: cannot reach the PostgreSQL accounting database"
						  " (%s); accounting records wait in the outbox, retrying",
						  err.text);
				outage_logged = true;
				pthread_mutex_lock(&mu);
				pg_up = false;
				pthread_cond_broadcast(&flushed);
				pthread_mutex_unlock(&mu);
				nap(backoff);
				backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
				continue;
			}
			if (outage_logged)
				log_info("outbox: the PostgreSQL accounting database is back;"
					 " forwarding the records that waited");
			outage_logged = false;
			backoff = BACKOFF_MIN_MS;
			pthread_mutex_lock(&mu);
			pg_up = true;
			pthread_mutex_unlock(&mu);
		}
		int n = 0;
		/* Rows sent by an earlier run and not yet deleted go again:
		 * the upserts make that harmless. */
		if (read_batch(lite, sent, batch, &n) < 0) {
			log_error("outbox: reading herd.db: %s", adb_errmsg(lite));
			for (int i = 0; i < n; i++)
				pending_clear(&batch[i]);
			nap(1000);
			continue;
		}
		if (!n) {
			set_forwarded(target);
			if (stop)
				break;
			if (idle) {
				struct timespec ts;
				deadline_in(&ts, 1000);
				pthread_mutex_lock(&mu);
				if (!stopping && forwarded_id >= committed_id)
					pthread_cond_timedwait(&wake, &mu, &ts);
				pthread_mutex_unlock(&mu);
			}
			continue;
		}
		int rc = send_batch(pg, batch, n);
		int64_t last = batch[n - 1].id;
		for (int i = 0; i < n; i++)
			pending_clear(&batch[i]);
		if (rc < 0) {
			if (!outage_logged)
				log_error("outbox: PostgreSQL: %s; accounting records wait in the outbox,"
					  " retrying", adb_errmsg(pg));
			outage_logged = true;
			adb_close(pg);
			pg = NULL;
			if (stop)
				break;
			continue;
		}
		sent = last;
		set_forwarded(last);
		if (trim_fn)
			trim_fn(last);
	}
	adb_close(pg);
	adb_close(lite);
	free(batch);
	return NULL;
}

int outbox_start(const char *db_path, const char *conninfo, void (*trim)(int64_t id),
		 struct herd_error *err)
{
	if (started)
		return 0;
	struct adb *lite = adb_sqlite_open(db_path, true, err);
	if (!lite)
		return -1;
	/* Rows left by the last run go first. */
	struct adb_rows *r = adb_query(lite, "SELECT coalesce(max(id), 0) FROM outbox", NULL, 0);
	int64_t max = r && adb_next(r) ? adb_int(r, 0) : 0;
	adb_done(r);
	adb_close(lite);
	free(fwd_path);
	free(fwd_conninfo);
	fwd_path = xstrdup(db_path);
	fwd_conninfo = xstrdup(conninfo);
	committed_id = max;
	trim_fn = trim;
	forwarded_id = 0;
	stopping = false;
	pg_up = true;   /* until a connection fails */
	if (pthread_create(&thread, NULL, forwarder, NULL) != 0)
		return errprintf(err, "cannot start the accounting forwarder thread");
	started = true;
	return 0;
}

void outbox_stop(void)
{
	if (!started)
		return;
	/* What can go in a few seconds goes; the rest waits in herd.db. */
	outbox_wait_flushed(3000);
	pthread_mutex_lock(&mu);
	stopping = true;
	pthread_cond_broadcast(&wake);
	pthread_cond_broadcast(&stop_cv);
	pthread_mutex_unlock(&mu);
	pthread_join(thread, NULL);
	started = false;
}

void outbox_kick(int64_t id)
{
	pthread_mutex_lock(&mu);
	if (id > committed_id)
		committed_id = id;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&mu);
}

bool outbox_wait_flushed(int timeout_ms)
{
	struct timespec ts;
	deadline_in(&ts, timeout_ms);
	pthread_mutex_lock(&mu);
	int64_t target = committed_id;
	while (forwarded_id < target && pg_up && started &&
	       pthread_cond_timedwait(&flushed, &mu, &ts) == 0)
		;
	bool ok = forwarded_id >= target;
	pthread_mutex_unlock(&mu);
	return ok;
}
