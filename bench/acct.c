/* Accounting benchmark: job records through the controller's real store
 * (store_job_insert, group commit on the libuv loop: one transaction per loop
 * iteration), and the query of `sacct -u U -S yesterday` (ACCT_JOBS's own
 * code, acct_jobs_run) over 1,000,000 stored job records; on SQLite and, when
 * a PostgreSQL server can be started here (initdb, pg_ctl), on PostgreSQL,
 * where the insert rate is until the outbox has reached the server.
 *   acct [--jobs N] [--inserts N] [--no-pg] */
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"
#include "bench.h"

#define INSERT_TARGET 20000.0     /* records per second */
#define QUERY_TARGET_S 0.5
#define WAVE 1000                 /* records queued per loop iteration */
#define USERS 1000
#define QUERY_UID (10000 + 123)
#define PG_BIN "/usr/lib/postgresql/15/bin"

struct ctld ctld;   /* main.c's, which the benchmark does not link */

static uv_idle_t feeder;
static long to_queue, acked, total;
static uint32_t next_id = 1;
static struct job job;

static void on_commit(void *arg, bool ok)
{
	if (!ok) {
		fprintf(stderr, "acct: a commit failed\n");
		exit(1);
	}
	acked += (long)(intptr_t)arg;
	if (acked == total)
		uv_stop(ctld.loop);
}

/* One wave of submissions per loop iteration, as requests would come. */
static void feed(uv_idle_t *h)
{
	long n = to_queue < WAVE ? to_queue : WAVE;
	if (!n) {
		uv_idle_stop(h);
		return;
	}
	for (long i = 0; i < n; i++) {
		job.id = next_id++;
		job.uid = 10000 + job.id % USERS;
		job.submit_time = time(NULL);
		store_job_insert(&job, NULL);
	}
	store_after_commit(on_commit, (void *)(intptr_t)n);
	to_queue -= n;
}

/* Records per second through the store (committed in herd.db: the
 * controller's side); with PostgreSQL also until the forwarder has them all
 * in the server (*forwarded_rate). */
static double insert_rate(long n, bool pg, double *forwarded_rate)
{
	double t0 = now_s();
	to_queue = total = n;
	acked = 0;
	uv_idle_start(&feeder, feed);
	uv_run(ctld.loop, UV_RUN_DEFAULT);
	double stored = now_s();
	if (pg) {
		while (!outbox_wait_flushed(10000))
			;
		*forwarded_rate = n / (now_s() - t0);
	}
	return n / (stored - t0);
}

/* Bulk rows for the query: n finished jobs of USERS users, their ends spread
 * over 30 days, 1 in 100 still running; written with the store's own upsert
 * (adb_write) in transactions of 50,000. */
static int load_jobs(struct adb *db, long n)
{
	time_t now = time(NULL);
	char rec[512], account[16];
	if (adb_exec_script(db, "BEGIN") < 0)
		return -1;
	for (long i = 1; i <= n; i++) {
		bool running = i % 100 == 0;
		int64_t end = running ? 0 : now - (i * 2654435761) % (30 * 86400);
		int64_t start = running ? now - 600 : end - 600, submit = start - 60;
		int64_t uid = 10000 + i % USERS;
		snprintf(account, sizeof(account), "acct%ld", i % 50);
		snprintf(rec, sizeof(rec),
			 "{\"job_id\":%ld,\"name\":\"bench\",\"uid\":%lld,\"user\":\"u%lld\","
			 "\"account\":\"%s\",\"partition\":\"debug\",\"state\":\"%s\","
			 "\"submit_time\":%lld,\"eligible_time\":%lld,\"start_time\":%lld,"
			 "\"end_time\":%lld,\"exit_code\":0,\"num_nodes\":1,\"num_cpus\":1,"
			 "\"nodes\":\"n1\",\"alloc\":[[\"n1\",1,\"0\"]],\"restarts\":0}",
			 i, (long long)uid, (long long)uid, account, running ? "RUNNING" : "COMPLETED",
			 (long long)submit, (long long)submit, (long long)start, (long long)end);
		struct adb_row row = { ADB_W_JOB, 11, {
			ADB_TEXT("bench-q"), ADB_INT(1000000000 + i), ADB_INT(0), ADB_INT(uid),
			ADB_TEXT(account), ADB_INT(running ? JOB_RUNNING : JOB_COMPLETED),
			ADB_INT(submit), ADB_INT(start), ADB_INT(end), ADB_TEXT(NULL), ADB_TEXT(rec) } };
		if (adb_write(db, &row) < 0)
			return -1;
		if (i % 50000 == 0 && (adb_exec_script(db, "COMMIT") < 0 ||
				       adb_exec_script(db, "BEGIN") < 0))
			return -1;
	}
	return adb_exec_script(db, "COMMIT");
}

/* The same rows made by the server itself (one round trip a row would take
 * longer than the benchmark is about). */
static int load_jobs_pg(struct adb *db, long n)
{
	static const char sql[] =
		"INSERT INTO acct_job (cluster, job_id, restart, uid, account, state, submit_time,"
		" start_time, end_time, array_job_id, rec)"
		" SELECT 'bench-q', 1000000000 + i, 0, uid, 'acct' || (i % 50), st, e - 660, e - 600,"
		"  CASE WHEN run THEN 0 ELSE e END, NULL,"
		"  '{\"job_id\":' || i || ',\"name\":\"bench\",\"uid\":' || uid || ',\"user\":\"u' || uid"
		"  || '\",\"account\":\"acct' || (i % 50) || '\",\"partition\":\"debug\",\"state\":\"'"
		"  || CASE WHEN run THEN 'RUNNING' ELSE 'COMPLETED' END || '\",\"submit_time\":' || (e - 660)"
		"  || ',\"eligible_time\":' || (e - 660) || ',\"start_time\":' || (e - 600)"
		"  || ',\"end_time\":' || CASE WHEN run THEN 0 ELSE e END || ',\"exit_code\":0,"
		"\"num_nodes\":1,\"num_cpus\":1,\"nodes\":\"n1\",\"alloc\":[[\"n1\",1,\"0\"]],\"restarts\":0}'"
		" FROM (SELECT i, 10000 + i % CAST($2 AS INTEGER) AS uid, i % 100 = 0 AS run,"
		"  CASE WHEN i % 100 = 0 THEN CAST($3 AS INTEGER) ELSE CAST($4 AS INTEGER) END AS st,"
		"  CASE WHEN i % 100 = 0 THEN CAST($5 AS BIGINT) + 600 ELSE CAST($5 AS BIGINT) - (i * 2654435761) % (30 * 86400) END AS e"
		"  FROM generate_series(1, $1) AS i) AS g";
	struct adb_val v[5] = { ADB_INT(n), ADB_INT(USERS), ADB_INT(JOB_RUNNING),
				ADB_INT(JOB_COMPLETED), ADB_INT(time(NULL)) };
	return adb_exec(db, sql, v, 5);
}

/* sacct -u U -S yesterday: midnight before last, to now. */
static double query_time(size_t *nrows)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= 1;
	tm.tm_isdst = -1;
	json_t *body = json_pack("{s:[i], s:I, s:I, s:[s]}", "uids", QUERY_UID, "start_time",
				 (json_int_t)mktime(&tm), "end_time", (json_int_t)now, "clusters",
				 "bench-q");
	double t[5];
	for (int i = 0; i < 5; i++) {
		char err[160];
		int rc;
		double t0 = now_s();
		char *out = acct_jobs_run(body, &rc, err, sizeof(err));
		t[i] = now_s() - t0;
		if (!out) {
			fprintf(stderr, "acct: query: %s\n", err);
			json_decref(body);
			return -1;
		}
		json_t *reply = json_loads(out, 0, NULL);
		*nrows = json_array_size(json_object_get(reply, "jobs"));
		json_decref(reply);
		free(out);
	}
	json_decref(body);
	qsort(t, 5, sizeof(*t), cmp_double);
	return t[2];
}

static void report(const char *backend, double rate, double q, size_t rows, long njobs)
{
	printf("%-10s %-40s %10.0f /s   target >= %.0f /s: %s\n", backend,
	       strcmp(backend, "pgsql") ? "job records through the store"
					: "job records through the store (outbox)", rate, INSERT_TARGET,
	       rate >= INSERT_TARGET ? "ok" : "MISSED");
	if (q < 0) {
		printf("%-10s %-40s failed\n", backend, "sacct -u U -S yesterday");
		return;
	}
	char what[64];
	snprintf(what, sizeof(what), "sacct -u U -S yesterday (%zu of %ldk)", rows, njobs / 1000);
	printf("%-10s %-40s %10.3f s    target < %.1f s: %s\n", backend, what, q, QUERY_TARGET_S,
	       q < QUERY_TARGET_S ? "ok" : "MISSED");
}

/* ---- a PostgreSQL server of our own ---- */

static char pg_root[64];
static int pg_port;
static const char *pg_user;   /* the OS user it runs as (postgres refuses root) */

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd);
}

static void pg_stop(void);

static int pg_start(void)
{
	char cmd[1024];
	struct passwd *pw = NULL;
	if (access(PG_BIN "/initdb", X_OK) < 0)
		return -1;
	if (getuid() == 0) {
		pw = getpwnam("postgres");
		if (!pw)
			return -1;
		pg_user = "postgres";
	}
	snprintf(pg_root, sizeof(pg_root), "/tmp/herd-bench-pg-XXXXXX");
	if (!mkdtemp(pg_root)) {
		pg_root[0] = 0;
		return -1;
	}
	atexit(pg_stop);   /* whatever way the benchmark ends */
	chmod(pg_root, 0755);
	if (pw && chown(pg_root, pw->pw_uid, pw->pw_gid) < 0)
		return -1;
	pg_port = 20000 + getpid() % 20000;
	char as[64] = "";
	if (pg_user)
		snprintf(as, sizeof(as), "runuser -u %s -- ", pg_user);
	snprintf(cmd, sizeof(cmd),
		 "%s" PG_BIN "/initdb -D %s/data -U herd --auth=trust --no-sync >%s/initdb.log 2>&1 &&"
		 " %s" PG_BIN "/pg_ctl -D %s/data -l %s/pg.log -w -o '-p %d -k %s"
		 " -c listen_addresses=127.0.0.1 -c fsync=off' start >/dev/null 2>&1",
		 as, pg_root, pg_root, as, pg_root, pg_root, pg_port, pg_root);
	if (system(cmd) != 0) {
		fprintf(stderr, "acct: PostgreSQL did not start (%s/initdb.log, pg.log)\n", pg_root);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s" PG_BIN "/psql -h %s -p %d -U herd -d postgres -qc"
		 " 'CREATE DATABASE bench' >/dev/null", as, pg_root, pg_port);
	return system(cmd) == 0 ? 0 : -1;
}

static void pg_stop(void)
{
	char pidfile[128];
	if (!pg_root[0])
		return;
	snprintf(pidfile, sizeof(pidfile), "%s/data/postmaster.pid", pg_root);
	FILE *f = fopen(pidfile, "r");
	int pid = 0;
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid > 0) {
		kill(pid, SIGINT);
		for (int i = 0; i < 300 && kill(pid, 0) == 0; i++)
			usleep(100000);
	}
	sh("rm -rf %s%s", pg_root, "");
	pg_root[0] = 0;
}

static void setup(const char *dir)
{
	struct herd_error err;
	memset(&ctld, 0, sizeof(ctld));
	ctld.loop = uv_default_loop();
	core.cluster = "bench";
	core.next_job_id = 1;
	core.min_job_age = 300;
	if (store_open(dir, &err) < 0) {
		fprintf(stderr, "acct: %s\n", err.text);
		exit(1);
	}
	uv_idle_init(ctld.loop, &feeder);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' }, { "inserts", required_argument, NULL, 'i' },
		{ "no-pg", no_argument, NULL, 'n' }, { NULL, 0, NULL, 0 } };
	long njobs = 1000000, ninserts = 200000;
	bool with_pg = true;
	int c;
	while ((c = getopt_long(argc, argv, "j:i:n", opts, NULL)) != -1) {
		switch (c) {
		case 'j': njobs = atol(optarg); break;
		case 'i': ninserts = atol(optarg); break;
		case 'n': with_pg = false; break;
		default:
			fprintf(stderr, "usage: acct [--jobs N] [--inserts N] [--no-pg]\n");
			return 2;
		}
	}
	log_init("acct", LOG_LVL_WARN, NULL);
	char dir[] = "/tmp/herd-bench-acct-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	/* a job as sbatch --wrap makes it: its record is job_to_json's */
	job.user = "benchuser";
	job.name = "wrap";
	job.account = "physics";
	job.work_dir = "/home/benchuser";
	job.std_out = "/home/benchuser/slurm-%j.out";
	job.command = "/home/benchuser/job.sh";
	job.state = JOB_PENDING;
	job.time_limit = 60;
	job.req_nodes = 1;

	printf("Accounting benchmark: %ld records through the store, a query over %ld jobs\n",
	       ninserts, njobs);
	setup(dir);
	if (getenv("BENCH_NONE")) {
		struct conf_kv kv0[] = { { "AccountingStorageType", "accounting_storage/none" } };
		struct conf conf0 = { .kv = kv0, .nkv = 1 };
		store_backend_open(&conf0, NULL);
	}
	double rate = insert_rate(ninserts, false, NULL);
	struct herd_error err;
	char path[128];
	snprintf(path, sizeof(path), "%s/herd.db", dir);
	struct adb *lite = adb_sqlite_open(path, false, &err);
	size_t rows = 0;
	double q = lite && load_jobs(lite, njobs) == 0 ? query_time(&rows) : -1;
	adb_close(lite);
	report("sqlite", rate, q, rows, njobs);

	if (with_pg && pg_start() == 0) {
		char port[16];
		snprintf(port, sizeof(port), "%d", pg_port);
		struct conf_kv kv[] = {
			{ "AccountingStorageType", "accounting_storage/pgsql" },
			{ "AccountingStorageHost", "127.0.0.1" }, { "AccountingStoragePort", port },
			{ "AccountingStorageUser", "herd" }, { "AccountingStorageLoc", "bench" } };
		struct conf conf = { .kv = kv, .nkv = sizeof(kv) / sizeof(kv[0]) };
		if (store_backend_open(&conf, &err) < 0) {
			fprintf(stderr, "acct: %s\n", err.text);
		} else {
			outbox_wait_flushed(10000);   /* the forwarder has made the tables */
			double forwarded;
			rate = insert_rate(ninserts, true, &forwarded);
			printf("%-10s %-40s %10.0f /s   (the outbox drained into PostgreSQL)\n", "pgsql",
			       "job records into PostgreSQL", forwarded);
			char *conninfo = adb_pg_conninfo("127.0.0.1", pg_port, "herd", NULL, "bench");
			struct adb *pg = adb_pg_connect(conninfo, &err);
			free(conninfo);
			q = pg && load_jobs_pg(pg, njobs) == 0 &&
			    adb_exec_script(pg, "ANALYZE acct_job") == 0 ? query_time(&rows) : -1;
			if (pg && q < 0)
				fprintf(stderr, "acct: %s\n", adb_errmsg(pg));
			adb_close(pg);
			report("pgsql", rate, q, rows, njobs);
			store_backend_close();
		}
		pg_stop();
	} else if (with_pg) {
		printf("%-10s not run: no PostgreSQL server could be started here\n", "pgsql");
	}
	store_close();
	sh("rm -rf %s%s", dir, "");
	return 0;
}
