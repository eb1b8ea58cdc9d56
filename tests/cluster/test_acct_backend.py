"""The accounting records on both backends (doc/accounting.md, "Records and
backends"): herd.db's own tables (SQLite, the default) and a real PostgreSQL
server (AccountingStorageType=accounting_storage/pgsql).  The same checks on
each: a job's and its steps' records read back by sacct and found in the
database; a requeued job's runs (sacct -D); then, on PostgreSQL, two clusters
sharing one database (sacct -M) and an outage in the middle of 1,000 jobs
(every record arrives once)."""
import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import time

import pytest

import pg
from cmd_helpers import cancel_all
from conftest import Cluster, make_root, start_cluster, stop_cluster, stop_clusters

BACKENDS = ["sqlite", "pgsql"]

needs_pg = pytest.mark.skipif(not pg.available(),
                              reason="PostgreSQL 15's server binaries are not installed")


def use_backend(c, backend):
    if backend == "pgsql":
        pg.use_pgsql(c, pg.session_server())
    elif c.kv.get("AccountingStorageType"):   # HERD_TEST_ACCT=pgsql made it PostgreSQL
        pg.set_conf_keys(c, {k: None for k in pg.session_server().conf("x")})


@pytest.fixture(scope="module", params=BACKENDS)
def c(request, users):
    if request.param == "pgsql" and not pg.available():
        pytest.skip("PostgreSQL 15's server binaries are not installed")
    c = start_cluster(2)
    try:
        use_backend(c, request.param)
        c.backend = request.param
        c.wait_nodes_idle()
        yield c
    finally:
        stop_cluster(c)


def db_rows(c, sql, *args):
    """Rows of sql in the cluster's accounting database ($1.. parameters)."""
    if c.backend == "pgsql":
        for i, a in enumerate(args):   # test values are ints and plain names
            sql = sql.replace(f"${i + 1}", str(a) if isinstance(a, int) else f"'{a}'")
        return [tuple(r) for r in c.pg_server.psql(sql, c.pg_db)]
    db = sqlite3.connect(os.path.join(c.kv["StateSaveLocation"], "herd.db"), timeout=10)
    try:
        sql = re.sub(r"\$(\d+)", r"?\1", sql)
        return [tuple(str(v) for v in r) for r in db.execute(sql, args).fetchall()]
    finally:
        db.close()


def sacct(c, *args, user=None):
    r = c.run(["sacct", "-n", "-P", *args], user=user)
    assert r.rc == 0, r
    return [line.split("|") for line in r.out.splitlines()]


def wait_record(c, job_id, state, timeout=30):
    """The job's latest record in the database reads state (PostgreSQL's
    arrives a moment after the commit)."""
    def done():
        rows = db_rows(c, "SELECT rec FROM acct_job WHERE cluster=$1 AND job_id=$2"
                       " ORDER BY restart DESC", c.name, job_id)
        return rows and f'"state":"{state}"' in rows[0][0]
    c.wait_until(f"job {job_id}'s {state} record", done, timeout=timeout)


def test_records_and_steps_round_trip(c):
    wd = c.workdir("herdu1")
    job = c.sbatch("-N1", "-A", "physics", "-o", "/dev/null", "--wrap",
                   "srun true; srun false; exit 3", user="herdu1", cwd=wd)
    assert c.wait_done(job) == "FAILED"
    wait_record(c, job, "FAILED")
    rows = sacct(c, "-j", str(job), "-o", "JobID,State,ExitCode,User,Cluster", user="herdu1")
    assert rows == [[str(job), "FAILED", "3:0", "herdu1", c.name],
                    [f"{job}.batch", "FAILED", "3:0", "", c.name],
                    [f"{job}.0", "COMPLETED", "0:0", "", c.name],
                    [f"{job}.1", "FAILED", "1:0", "", c.name]], rows
    # the records themselves: the indexed columns beside the record
    uid = users_uid("herdu1")
    [(restart, ruid, state, end)] = db_rows(
        c, "SELECT restart, uid, state, end_time FROM acct_job WHERE cluster=$1 AND job_id=$2",
        c.name, job)
    assert (restart, ruid) == ("0", str(uid)) and int(end) > 0, (restart, ruid, end)
    steps = db_rows(c, "SELECT step_id FROM acct_step WHERE cluster=$1 AND job_id=$2"
                    " ORDER BY step_id", c.name, job)
    assert [s[0] for s in steps][-2:] == ["0", "1"], steps
    events = db_rows(c, "SELECT event FROM acct_event WHERE cluster=$1 AND job_id=$2",
                     c.name, job)
    assert ("RUNNING",) in events and ("FAILED",) in events, events
    # sacct -u U -S: the scan by user and window finds it; another user's not
    assert [str(job)] in sacct(c, "-X", "-u", "herdu1", "-S", "now-1hour", "-o", "JobID")
    assert [str(job)] not in sacct(c, "-X", "-u", "herdu2", "-S", "now-1hour", "-o", "JobID")
    # the account the job was charged to selects it (request key "accounts")
    assert sacct(c, "-X", "-a", "-A", "physics", "-S", "now-1hour", "-o", "JobID,Account") == \
        [[str(job), "physics"]]
    assert [str(job)] not in sacct(c, "-X", "-a", "-A", "chem", "-S", "now-1hour", "-o", "JobID")


def users_uid(name):
    import pwd
    return pwd.getpwnam(name).pw_uid


def test_requeued_runs_with_duplicates(c):
    wd = c.workdir("herdu1")
    job = c.sbatch("-N1", "--requeue", "-o", "/dev/null", "--wrap", "sleep 60", user="herdu1",
                   cwd=wd)
    c.wait_state(job, "RUNNING")
    r = c.run(["scontrol", "requeue", str(job)])
    assert r.rc == 0, r
    c.wait_until("the second run", lambda: c.show_job(job).get("Restarts") == "1" and
                 c.job_state(job) == "RUNNING", timeout=60)
    r = c.run(["scancel", str(job)])
    assert r.rc == 0, r
    c.wait_done(job)
    wait_record(c, job, "CANCELLED")
    runs = sacct(c, "-X", "-D", "-j", str(job), "-o", "JobID,State", user="herdu1")
    assert runs == [[str(job), "REQUEUED"], [str(job), "CANCELLED by 0"]], runs
    latest = sacct(c, "-X", "-j", str(job), "-o", "JobID,State", user="herdu1")
    assert latest == [[str(job), "CANCELLED by 0"]], latest
    rows = db_rows(c, "SELECT restart, end_time FROM acct_job WHERE cluster=$1 AND job_id=$2"
                   " ORDER BY restart", c.name, job)
    assert [r[0] for r in rows] == ["0", "1"] and all(int(r[1]) > 0 for r in rows), rows


@needs_pg
def test_two_clusters_share_one_database(users):
    server = pg.session_server()
    db = server.create_db(f"herd_shared_{os.getpid()}")
    a, b = start_cluster(1), None
    try:
        b = start_cluster(1)
        assert a.name != b.name
        pg.use_pgsql(a, server, db)
        pg.use_pgsql(b, server, db)
        a.wait_nodes_idle()
        b.wait_nodes_idle()
        ja = a.sbatch("-o", "/dev/null", "--wrap", "true")
        jb = b.sbatch("-o", "/dev/null", "--wrap", "true")
        a.wait_done(ja)
        b.wait_done(jb)
        a.backend = b.backend = "pgsql"
        wait_record(a, ja, "COMPLETED")
        wait_record(b, jb, "COMPLETED")
        want = sorted([[a.name, str(ja)], [b.name, str(jb)]])
        both = sacct(a, "-X", "-a", "-M", f"{a.name},{b.name}", "-o", "Cluster,JobID")
        assert sorted(both) == want, both
        assert sorted(sacct(b, "-X", "-a", "-M", "all", "-o", "Cluster,JobID")) == want
        # without -M: the cluster's own records only
        assert sacct(a, "-X", "-a", "-o", "Cluster,JobID") == [[a.name, str(ja)]]
        assert sacct(b, "-X", "-a", "-o", "Cluster,JobID") == [[b.name, str(jb)]]
    finally:
        stop_clusters(*[x for x in (a, b) if x])


def start_cluster_sharing_key(other, nodes=1):
    """A cluster whose MUNGE key is other's, as clusters that talk to each
    other need (herd up keeps a key it finds in DIR/munge)."""
    c = Cluster(make_root(), nodes)
    os.makedirs(os.path.join(c.dir, "munge"), mode=0o700)
    key = os.path.join(c.dir, "munge", "munge.key")
    shutil.copyfile(os.path.join(other.dir, "munge", "munge.key"), key)
    os.chmod(key, 0o400)
    c.up()
    return c


@contextlib.contextmanager
def clusters_sharing_db(prefix):
    """Two one-node clusters (a, b) sharing a MUNGE key and one PostgreSQL
    database, stopped at the end."""
    server = pg.session_server()
    db = server.create_db(f"{prefix}_{os.getpid()}")
    a, b = start_cluster(1), None
    try:
        b = start_cluster_sharing_key(a)
        pg.use_pgsql(a, server, db)
        pg.use_pgsql(b, server, db)
        yield a, b
    finally:
        stop_clusters(*[x for x in (a, b) if x])


@needs_pg
def test_commands_reach_another_cluster_with_M(users):
    """-M names a cluster sharing the accounting database: the commands ask
    this controller where that cluster's controller is (CLUSTER_INFO, from
    the database's cluster registry) and talk to it; an unknown name gets
    Slurm's two lines."""
    with clusters_sharing_db("herd_multi") as (a, b):
        # sbatch -M on a submits to b, as Slurm's says it
        r = a.run(["sbatch", "-M", b.name, "-H", "-J", "onb", "--wrap", "true"])
        m = re.fullmatch(rf"Submitted batch job (\d+) on cluster {b.name}\n", r.out)
        assert r.rc == 0 and m, r
        job = int(m.group(1))
        assert b.show_job(job)["JobName"] == "onb"
        r = a.run(["sbatch", "-M", f"nosuch,{b.name}", "--parsable", "-H", "--wrap", "true"])
        assert r.rc == 0 and re.fullmatch(rf"\d+;{b.name}\n", r.out), r
        assert "No cluster 'nosuch' known by database." in r.err, r
        b.run(["scancel", r.out.split(";")[0]])
        r = a.run(["squeue", "-M", b.name, "-h", "-o", "%i %j"])
        assert r.rc == 0 and r.out == f"CLUSTER: {b.name}\n{job} onb\n", r
        r = a.run(["squeue", "-M", "all", "-h", "-o", "%i"])
        assert r.out.split() == ["CLUSTER:", a.name, "CLUSTER:", b.name, str(job)], r
        r = a.run(["sinfo", "-M", b.name.upper(), "-h", "-o", "%D"])
        assert r.rc == 0 and r.out == f"CLUSTER: {b.name}\n1\n", r
        r = a.run(["scontrol", "-M", b.name, "show", "job", str(job)])
        assert r.rc == 0 and "JobName=onb" in r.out, r
        assert a.run(["scancel", "-M", b.name, str(job)]).rc == 0
        b.wait_state(job, ("CANCELLED",))
        r = a.run(["squeue", "-M", "nosuch", "-h"])
        assert r.rc == 1 and r.err == (
            "squeue: error: No cluster 'nosuch' known by database.\n"
            "squeue: error: 'nosuch' can't be reached now, or it is an invalid entry for "
            "--cluster.  Use 'sacctmgr list clusters' to see available clusters.\n"), r
        # the cluster's own name needs no database
        r = a.run(["scontrol", "-M", a.name, "show", "partition"])
        assert r.rc == 0 and "PartitionName=" in r.out, r


@needs_pg
def test_M_goes_to_the_cluster_that_starts_the_job_first(users):
    """-M a,b (sbatch, salloc, srun): as Slurm, the job goes to the cluster
    where it would start first (a --test-only question to each), not to
    the first named; a tie goes to the first named."""
    with clusters_sharing_db("herd_first") as (a, b):
        both = f"{a.name},{b.name}"
        # both idle: the first named, either way round
        for first, second in ((a, b), (b, a)):
            r = a.run(["sbatch", "-M", f"{first.name},{second.name}", "--parsable", "-H",
                       "--wrap", "true"])
            assert r.rc == 0 and re.fullmatch(rf"(\d+);{first.name}\n", r.out), r
            first.run(["scancel", r.out.split(";")[0]])
        # a's one node busy for ten minutes: b starts the job now
        r = a.run(["sbatch", "--parsable", "--exclusive", "-t", "10", "-o", "/dev/null",
                   "--wrap", "sleep 600"])
        assert r.rc == 0, r
        hog = int(r.out)
        a.wait_state(hog, ("RUNNING",))
        r = a.run(["sbatch", "-M", both, "-J", "firstfree", "-o", "/dev/null", "--wrap", "true"])
        m = re.fullmatch(rf"Submitted batch job (\d+) on cluster {b.name}\n", r.out)
        assert r.rc == 0 and m, r
        assert b.wait_done(int(m.group(1))) == "COMPLETED"
        r = a.run(["srun", "-M", both, "-t", "1", "printenv", "SLURM_CLUSTER_NAME"])
        assert r.rc == 0 and r.out == f"{b.name}\n", r
        r = a.run(["salloc", "-M", both, "-t", "1", "printenv", "SLURM_CLUSTER_NAME"])
        assert r.rc == 0 and r.out == f"{b.name}\n", r
        assert a.run(["scancel", str(hog)]).rc == 0


def log_text(c):
    with open(os.path.join(c.dir, "log", "herdctld.log"), errors="replace") as f:
        return f.read()


@needs_pg
def test_outage_loses_nothing(users):
    """1,000 jobs; PostgreSQL stopped while they run and started again: every
    record arrives, once, and sacct answers again."""
    server = pg.PgServer()   # its own: this test stops it
    c = start_cluster(4)
    try:
        pg.use_pgsql(c, server, server.create_db("outage"))
        c.backend = "pgsql"
        c.wait_nodes_idle()
        n = 1000
        submit = subprocess.Popen(
            ["/bin/sh", "-c", f"i=0; while [ $i -lt {n} ]; do i=$((i+1));"
             " sbatch --parsable -o /dev/null --wrap true || exit 1; done"],
            stdout=subprocess.PIPE, text=True, env=c.env(), cwd=c.workdir())
        time.sleep(3)
        server.stop()
        stopped = time.time()
        # while it is down: the controller goes on, sacct says why it cannot answer
        r = c.run(["sacct", "-a", "-X", "-n"])
        assert r.rc != 0 and "sacct: error: Problem talking to the database" in r.err, r
        time.sleep(max(0, 4 - (time.time() - stopped)))
        server.start()
        out, _ = submit.communicate(timeout=120)
        assert submit.returncode == 0, out
        ids = [int(x) for x in out.split()]
        assert len(ids) == n
        c.wait_until("every job to end", lambda: c.run(["squeue", "-h"]).out == "",
                     timeout=120, interval=1)

        def arrived():
            rows = server.psql("SELECT count(*), count(DISTINCT job_id) FROM acct_job WHERE"
                               f" cluster='{c.name}' AND rec LIKE '%\"state\":\"COMPLETED\"%'",
                               "outage")
            return rows[0] == [str(n), str(n)]
        c.wait_until("every record in PostgreSQL", arrived, timeout=60, interval=1)
        rows = server.psql(f"SELECT job_id, restart FROM acct_job WHERE cluster='{c.name}'",
                           "outage")
        assert sorted(int(r[0]) for r in rows) == sorted(ids)   # none lost, none doubled
        assert all(r[1] == "0" for r in rows)
        # the outbox is empty again, and the outage was told once
        lite = sqlite3.connect(os.path.join(c.kv["StateSaveLocation"], "herd.db"), timeout=10)
        assert lite.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
        lite.close()
        log = log_text(c)
        assert log.count("accounting records wait in the outbox") == 1, log[-3000:]
        assert "the PostgreSQL accounting database is back" in log
        got = sacct(c, "-a", "-X", "-S", "now-1hour", "-o", "JobID,State")
        assert sorted(int(r[0]) for r in got if r[1] == "COMPLETED") == sorted(ids)
    finally:
        try:
            cancel_all(c)
        except Exception:
            pass
        stop_cluster(c)
        server.destroy()


def test_config_errors_name_the_key(users):
    """A bad AccountingStorage* value stops the controller with a sentence naming
    it; accounting_storage/none keeps no records."""
    from conftest import BIN
    ctld = os.path.join(BIN, "herdctld")
    c = start_cluster(1)
    try:
        with open(c.conf) as f:
            # its own state, PID file and no log file (errors to stderr)
            base = [l for l in f.read().splitlines()
                    if not l.startswith(("AccountingStorage", "StateSaveLocation",
                                         "SlurmctldPidFile", "SlurmctldLogFile"))]
        base += [f"StateSaveLocation={c.dir}/bad-state", f"SlurmctldPidFile={c.dir}/bad.pid"]
        cases = [
            ({"AccountingStorageType": "accounting_storage/mongo"}, "AccountingStorageType"),
            ({"AccountingStorageType": "accounting_storage/pgsql"}, "AccountingStorageHost"),
            ({"AccountingStorageType": "accounting_storage/pgsql",
              "AccountingStorageHost": "127.0.0.1", "AccountingStorageLoc": "a/b"},
             "AccountingStorageLoc"),
        ]
        # AccountingStoragePass names a root-only file; the password itself,
        # or a file others may read or own, stops the controller
        pwfile = os.path.join(c.dir, "dbpass")
        with open(pwfile, "w") as f:
            f.write("s3cret-pw\n")
        pgkeys = {"AccountingStorageType": "accounting_storage/pgsql",
                  "AccountingStorageHost": "127.0.0.1"}
        pass_cases = [
            ({**pgkeys, "AccountingStoragePass": "s3cret-pw"},
             "AccountingStoragePass must be the path of a root-only file", 0o600, 0),
            ({"AccountingStoragePass": "s3cret-pw"},   # whatever the storage type
             "AccountingStoragePass must be the path of a root-only file", 0o600, 0),
            ({**pgkeys, "AccountingStoragePass": pwfile},
             f"AccountingStoragePass={pwfile} is accessible to group or others (mode 0644)",
             0o644, 0),
            ({**pgkeys, "AccountingStoragePass": pwfile},
             f"AccountingStoragePass={pwfile} is accessible to group or others (mode 0640)",
             0o640, 0),
            ({**pgkeys, "AccountingStoragePass": pwfile},
             f"AccountingStoragePass={pwfile} must be owned by root or SlurmUser", 0o600,
             users["herdu1"].pw_uid),
        ]
        for keys, named, mode, owner in [(k, n, 0o600, 0) for k, n in cases] + pass_cases:
            os.chown(pwfile, owner, 0)
            os.chmod(pwfile, mode)
            conf = os.path.join(c.dir, "bad.conf")
            with open(conf, "w") as f:
                f.write("\n".join(base + [f"{k}={v}" for k, v in keys.items()]) + "\n")
            # a second controller on the same conf with the bad key: it must refuse
            p = subprocess.run([ctld, "-D", "-f", conf], capture_output=True, text=True,
                               timeout=30, env=c.env())
            assert p.returncode != 0 and named in p.stderr, (keys, p)
            assert "s3cret-pw" not in p.stderr + p.stdout, p   # never the password
        # accounting_storage/none: no records, and sacct says so (as Slurm's)
        pg.set_conf_keys(c, {"AccountingStorageType": "accounting_storage/none"})
        job = c.sbatch("-o", "/dev/null", "--wrap", "true")
        c.wait_done(job)
        r = c.run(["sacct", "-j", str(job)])
        assert r.rc == 1 and r.err == "sacct: error: Slurm accounting storage is disabled\n", r
        lite = sqlite3.connect(os.path.join(c.kv["StateSaveLocation"], "herd.db"), timeout=10)
        assert lite.execute("SELECT count(*) FROM acct_job").fetchone()[0] == 0
        lite.close()
    finally:
        stop_cluster(c)
