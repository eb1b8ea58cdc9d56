/* The accounting database layer on SQLite: $n parameters bound by name in
 * any order, the schema's upserts (a later write replaces the record, an
 * event twice is kept once), typed reads, and the conninfo quoting libpq
 * needs.  (PostgreSQL is exercised by tests/cluster/test_acct_backend.py.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "acct/adb.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static sqlite3 *lite;

static struct adb *open_mem(void)
{
	assert_int_equal(sqlite3_open(":memory:", &lite), SQLITE_OK);
	struct adb *db = adb_sqlite(lite);
	assert_int_equal(adb_exec_script(db, adb_schema), 0);
	return db;
}

/* adb_sqlite lends the handle: it stays open after adb_close */
static void close_mem(struct adb *db)
{
	adb_close(db);
	assert_int_equal(sqlite3_close(lite), SQLITE_OK);
}

static struct adb_row job_row(int64_t id, int64_t restart, int state, int64_t end, const char *rec)
{
	return (struct adb_row){ ADB_W_JOB, 11, {
		ADB_TEXT("c1"), ADB_INT(id), ADB_INT(restart), ADB_INT(1001), ADB_TEXT("physics"),
		ADB_INT(state), ADB_INT(100), ADB_INT(200), ADB_INT(end), ADB_TEXT(NULL),
		ADB_TEXT(rec) } };
}

static void params_by_name_in_any_order(void **state)
{
	struct adb *db = open_mem();
	struct adb_val v[3] = { ADB_INT(7), ADB_TEXT("x'y"), ADB_INT(-3) };
	/* $3 before $1, $2 twice */
	struct adb_rows *r = adb_query(db, "SELECT $3, $1, $2, $2 || 'z', $4", v, 3);
	assert_non_null(r);
	assert_true(adb_next(r));
	assert_int_equal(adb_int(r, 0), -3);
	assert_int_equal(adb_int(r, 1), 7);
	assert_string_equal(adb_text(r, 2), "x'y");
	assert_string_equal(adb_text(r, 3), "x'yz");
	assert_int_equal(adb_type(r, 4), ADB_V_NULL);   /* unbound: NULL */
	assert_int_equal(adb_type(r, 1), ADB_V_INT);
	assert_int_equal(adb_type(r, 2), ADB_V_TEXT);
	assert_false(adb_next(r));
	assert_int_equal(adb_done(r), 0);
	/* an error is a sentence, not a crash */
	assert_null(adb_query(db, "SELECT FROM nowhere", NULL, 0));
	assert_true(strlen(adb_errmsg(db)) > 0);
	close_mem(db);
}

static void upserts_replace_and_events_stay_once(void **state)
{
	struct adb *db = open_mem();
	struct adb_row a = job_row(5, 0, 1, 0, "{\"v\":1}"), b = job_row(5, 0, 3, 300, "{\"v\":2}"),
		       c = job_row(5, 1, 1, 0, "{\"v\":3}");
	assert_int_equal(adb_write(db, &a), 0);
	assert_int_equal(adb_write(db, &b), 0);
	assert_int_equal(adb_write(db, &c), 0);
	struct adb_val cl = ADB_TEXT("c1");
	struct adb_rows *r = adb_query(db, "SELECT restart, state, end_time, rec FROM acct_job"
				       " WHERE cluster=$1 ORDER BY restart", &cl, 1);
	assert_true(adb_next(r));
	assert_int_equal(adb_int(r, 0), 0);
	assert_int_equal(adb_int(r, 1), 3);
	assert_int_equal(adb_int(r, 2), 300);
	assert_string_equal(adb_text(r, 3), "{\"v\":2}");
	assert_true(adb_next(r));
	assert_int_equal(adb_int(r, 0), 1);
	assert_false(adb_next(r));
	adb_done(r);

	struct adb_row ev = { ADB_W_EVENT, 6, { ADB_TEXT("c1"), ADB_INT(42), ADB_INT(5),
						ADB_INT(1000), ADB_TEXT("CANCEL"), ADB_TEXT("0") } };
	struct adb_row batch[3] = { ev, ev, b };
	assert_int_equal(adb_write_many(db, batch, 3), 0);
	r = adb_query(db, "SELECT count(*) FROM acct_event", NULL, 0);
	assert_true(adb_next(r));
	assert_int_equal(adb_int(r, 0), 1);
	adb_done(r);

	/* a malformed write is refused, and a failed batch leaves nothing */
	struct adb_row bad = a;
	bad.n = 3;
	assert_int_equal(adb_write(db, &bad), -1);
	struct adb_row d = job_row(9, 0, 1, 0, "{}");
	struct adb_row nul = d;
	nul.v[10] = ADB_TEXT(NULL);   /* rec NOT NULL */
	struct adb_row fails[2] = { d, nul };
	assert_int_equal(adb_write_many(db, fails, 2), -1);
	struct adb_val id = ADB_INT(9);
	r = adb_query(db, "SELECT count(*) FROM acct_job WHERE job_id=$1", &id, 1);
	assert_true(adb_next(r));
	assert_int_equal(adb_int(r, 0), 0);
	adb_done(r);
	assert_int_equal(adb_write_params(ADB_W_STEP), 6);
	assert_int_equal(adb_write_params(99), -1);
	close_mem(db);
}

static void conninfo_quotes_values(void **state)
{
	char *s = adb_pg_conninfo("db.example", 5433, "herd", "it's a \\pass", "acct");
	assert_string_equal(s, "host='db.example' port='5433' user='herd'"
			       " password='it\\'s a \\\\pass' dbname='acct' connect_timeout='5'"
			       " options='-c statement_timeout=60000' application_name='herdctld'");
	free(s);
	s = adb_pg_conninfo("/run/pg", 5432, NULL, NULL, "slurm_acct_db");
	assert_non_null(strstr(s, "host='/run/pg' port='5432' dbname='slurm_acct_db'"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(params_by_name_in_any_order),
		cmocka_unit_test(upserts_replace_and_events_stay_once),
		cmocka_unit_test(conninfo_quotes_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
