"""Workload characterization keys (doc/accounting.md "WCKeys"), as Slurm
22.05 has them: sacctmgr's wckeys (add user WCKeys=, DefaultWCKey=, delete
user WCKeys=, list wckeys with its columns, names in lower case); a job's
--wckey ignored without TrackWCKey, and with it checked, defaulted ("*k"),
stored, shown by scontrol, squeue and sacct (-W), changed by scontrol
update while pending, refused under AccountingStorageEnforce=wckeys with
Slurm's sentence; kept over a controller restart; and sreport's
WCKeyUtilizationByUser and SizesByWckey over jobs that ran; the job
records on PostgreSQL too."""
import os
import signal
import time

import pytest

import pg
from conftest import start_cluster, stop_cluster

INVALID = "sbatch: error: Batch job submission failed: Invalid wckey specification\n"


@pytest.fixture(scope="module")
def c(users):
    cl = start_cluster(2)
    try:
        ok(cl, "sacctmgr", "-i", "add", "account", "wk_acct")
        ok(cl, "sacctmgr", "-i", "add", "user", "herdu1", "account=wk_acct", "WCKeys=Alpha,gamma")
        ok(cl, "sacctmgr", "-i", "add", "user", "herdu2", "account=wk_acct")
        yield cl
    finally:
        stop_cluster(cl)


def ok(c, *args, user=None):
    r = c.run(list(args), user=user, cwd=c.workdir(user) if user else None)
    assert r.rc == 0, r
    return r.out


def set_conf(c, **keys):
    """herd.conf's keys replaced (None: removed), then scontrol reconfigure."""
    with open(c.conf) as f:
        lines = [line for line in f if line.split("=", 1)[0] not in keys]
    lines += [f"{k}={v}\n" for k, v in keys.items() if v is not None]
    with open(c.conf, "w") as f:
        f.writelines(lines)
    ok(c, "scontrol", "reconfigure")


def submit(c, user, *args):
    out = ok(c, "sbatch", "--parsable", "-o", "/dev/null", *args, user=user)
    return out.strip().split(";")[0]


def show_wckey(c, job):
    """WCKey= of scontrol show job, None when the line has none."""
    for word in ok(c, "scontrol", "show", "job", job).split():
        if word.startswith("WCKey="):
            return word[len("WCKey="):]
    return None


def rows(c, *args):
    out = ok(c, "sacctmgr", "-P", "-n", "list", *args)
    return [line.split("|") for line in out.splitlines()]


def cl10(c):
    return c.name[:9] + "+" if len(c.name) > 10 else c.name


def test_sacctmgr_wckeys(c):
    """add user WCKeys= makes the user's wckeys (no account needed), in
    lower case, the first its default; list wckeys has Slurm's columns;
    DefaultWCKey must be one of the user's; delete user WCKeys= removes
    those (a default that goes is cleared); deleting the user removes the
    rest; wckeys are not an entity of add/delete, as in Slurm."""
    out = ok(c, "sacctmgr", "-i", "add", "user", "WCKUser", "WCKeys=Zeta,beta")
    assert out == (" Adding User(s)\n  wckuser\n WCKeys =\n"
                   f"  U = wckuser   W = zeta       C = {c.name[:10]:<10}\n"
                   f"  U = wckuser   W = beta       C = {c.name[:10]:<10}\n"), out
    assert rows(c, "wckeys") == [["alpha", c.name, "herdu1"], ["beta", c.name, "wckuser"],
                                 ["gamma", c.name, "herdu1"], ["zeta", c.name, "wckuser"]]
    out = ok(c, "sacctmgr", "list", "wckey", "where", "user=WCKUser")
    assert out.splitlines()[:2] == ["     WCKey    Cluster       User ",
                                    "---------- ---------- ---------- "], out
    assert out.splitlines()[2] == f"      beta {cl10(c):>10}    wckuser ", out
    ids = rows(c, "wckey", "format=WCKey,User,ID")
    assert [r[:2] for r in ids] == [["alpha", "herdu1"], ["beta", "wckuser"], ["gamma", "herdu1"],
                                    ["zeta", "wckuser"]]
    assert len({r[2] for r in ids}) == 4 and all(r[2].isdigit() for r in ids), ids
    assert rows(c, "wckey", "name=ZETA", "format=user") == [["wckuser"]]
    assert rows(c, "user", "wckuser", "format=User,DefaultWCKey,DefaultAccount") == \
        [["wckuser", "zeta", ""]]

    r = c.run(["sacctmgr", "-i", "modify", "user", "wckuser", "set", "DefaultWCKey=alpha"])
    assert r.rc == 1 and "aren't associated with new default wckey 'alpha'" in r.err, r
    r = c.run(["sacctmgr", "-i", "modify", "user", "wckuser", "set", "DefaultWCKey="])
    assert r.rc == 1 and "aren't associated with new default wckey ''" in r.err, r
    ok(c, "sacctmgr", "-i", "modify", "user", "wckuser", "set", "DefaultWCKey=BETA")
    assert rows(c, "user", "wckuser", "format=DefaultWCKey") == [["beta"]]

    out = ok(c, "sacctmgr", "-i", "delete", "user", "wckuser", "WCKeys=beta")
    assert out == (" Deleting user WCKeys...\n"
                   f"  C = {c.name[:10]:<10} W = {'beta':<20} U = wckuser  \n"), out
    assert rows(c, "user", "wckuser", "format=DefaultWCKey") == [[""]]
    # a user without a default gets the first wckey added; one with keeps it
    ok(c, "sacctmgr", "-i", "add", "user", "wckuser", "WCKeys=Omega")
    assert rows(c, "user", "wckuser", "format=DefaultWCKey") == [["omega"]]
    ok(c, "sacctmgr", "-i", "add", "user", "wckuser", "WCKeys=beta")
    assert rows(c, "user", "wckuser", "format=DefaultWCKey") == [["omega"]]
    ok(c, "sacctmgr", "-i", "delete", "user", "wckuser", "WCKeys=omega,beta")
    # DefaultWCKey= not among WCKeys= is added after them, and is the default
    out = ok(c, "sacctmgr", "-i", "add", "user", "wckuser2", "WCKeys=k1", "DefaultWCKey=K9")
    assert out == (" Adding User(s)\n  wckuser2\n Settings =\n  Default WCKey   = k9\n"
                   f" WCKeys =\n  U = wckuser2  W = k1         C = {c.name[:10]:<10}\n"
                   f"  U = wckuser2  W = k9         C = {c.name[:10]:<10}\n"), out
    assert rows(c, "user", "wckuser2", "format=DefaultWCKey") == [["k9"]]
    ok(c, "sacctmgr", "-i", "delete", "user", "wckuser2")
    r = c.run(["sacctmgr", "-i", "delete", "user", "wckuser", "WCKeys=nope"])
    assert r.rc == 1 and r.out == " Nothing deleted\n", r
    r = c.run(["sacctmgr", "-i", "delete", "wckey", "where", "name=zeta"])
    assert r.rc == 1 and r.err.startswith("No valid entity in delete command\n"), r
    # a plain user adds no wckeys, not even their own
    r = c.run(["sacctmgr", "-i", "add", "user", "herdu2", "WCKeys=mine"], user="herdu2")
    assert r.rc == 1, r
    ok(c, "sacctmgr", "-i", "delete", "user", "wckuser")
    r = c.run(["sacctmgr", "-i", "add", "user", "herdu1", "WCKeys=x", "cluster=nosuch"])
    assert r.rc == 1 and "Cluster 'nosuch' doesn't exist" in r.err, r
    # another cluster's wckeys are its own, and go with it
    ok(c, "sacctmgr", "-i", "add", "cluster", "wkother")
    ok(c, "sacctmgr", "-i", "add", "user", "herdu1", "WCKeys=alpha", "cluster=wkother")
    assert rows(c, "wckeys", "cluster=wkother") == [["alpha", "wkother", "herdu1"]]
    ok(c, "sacctmgr", "-i", "delete", "cluster", "wkother")
    assert rows(c, "wckeys") == [["alpha", c.name, "herdu1"], ["gamma", c.name, "herdu1"]]


def test_dump_and_load_wckeys(c):
    """dump writes a user's DefaultWCKey and WCKeys as Slurm's flat file
    does; load makes them again."""
    path = os.path.join(c.workdir(), "wckeys.cfg")
    ok(c, "sacctmgr", "dump", c.name, f"file={path}")
    with open(path) as f:
        users = [line for line in f if line.startswith("User - 'herdu1'")]
    assert users == ["User - 'herdu1':DefaultAccount='wk_acct':DefaultWCKey='alpha':"
                     "WCKeys='alpha,gamma':Fairshare=1\n"], users
    ok(c, "sacctmgr", "-i", "delete", "user", "herdu1", "WCKeys=gamma")
    ok(c, "sacctmgr", "-i", "load", f"file={path}")
    assert rows(c, "wckeys", "user=herdu1", "format=WCKey") == [["alpha"], ["gamma"]]
    assert rows(c, "user", "herdu1", "format=DefaultWCKey") == [["alpha"]]


def test_wckey_ignored_without_track(c):
    """TrackWCKey=no (the default): --wckey is taken and ignored, the job
    has no wckey anywhere, as in Slurm."""
    j = submit(c, "herdu1", "--wckey=alpha", "-H", "--wrap", "true")
    assert show_wckey(c, j) is None
    assert ok(c, "squeue", "-h", "-j", j, "-o", "%w").strip() == "(null)"
    out = ok(c, "sacct", "-X", "-n", "-P", "-j", j, "-o", "WCKey,WCKeyID")
    assert out == "|0\n", out
    ok(c, "scancel", j)


def test_job_wckey_given_and_default(c):
    """TrackWCKey=yes: --wckey is the job's (lower case), an unknown one
    accepted without enforcement; none given is the user's default marked
    with Slurm's '*' ("*" alone when the user has none); scontrol, squeue
    (%w, -O wckey) and sacct (WCKey, WCKeyID, -W) show it."""
    set_conf(c, TrackWCKey="yes")
    dflt = submit(c, "herdu1", "-H", "--wrap", "true")
    given = submit(c, "herdu1", "-H", "--wckey=Gamma", "--wrap", "true")
    unknown = submit(c, "herdu1", "-H", "--wckey=zzz", "--wrap", "true")
    none = submit(c, "herdu2", "-H", "--wrap", "true")
    assert [show_wckey(c, j) for j in (dflt, given, unknown, none)] == \
        ["*alpha", "gamma", "zzz", "*"]
    out = ok(c, "squeue", "-h", "-j", f"{dflt},{given}", "-o", "%i %w", "-S", "i")
    assert out == f"{dflt} *alpha\n{given} gamma\n", out
    out = ok(c, "squeue", "-h", "-j", given, "-O", "JobID,WCKey")
    assert out.split() == [given, "gamma"], out
    ids = {r[0]: r[3] for r in rows(c, "wckeys", "format=WCKey,Cluster,User,ID")}
    out = ok(c, "sacct", "-X", "-n", "-P", "-j", f"{dflt},{given},{unknown},{none}",
             "-o", "JobID,WCKey,WCKeyID")
    assert out.splitlines() == [f"{dflt}|*alpha|{ids['alpha']}", f"{given}|gamma|{ids['gamma']}",
                                f"{unknown}|zzz|0", f"{none}|*|0"], out
    # -W / --wckeys: the job's wckey as shown, names in any case
    sel = ok(c, "sacct", "-X", "-n", "-P", "-a", "-j", f"{dflt},{given},{unknown}", "-o", "JobID",
             "-W", "GAMMA,zzz")
    assert sel.split() == [given, unknown], sel
    sel = ok(c, "sacct", "-X", "-n", "-P", "-a", "-j", f"{dflt},{given}", "-o", "JobID",
             "--wckeys=*alpha")
    assert sel.split() == [dflt], sel
    for j in (dflt, given, unknown, none):
        ok(c, "scancel", j)
    # srun's and salloc's jobs take it the same way
    out = ok(c, "srun", "--wckey=Gamma", "sh", "-c", "scontrol show job $SLURM_JOB_ID", user="herdu1")
    assert " WCKey=gamma" in out, out
    out = ok(c, "salloc", "sh", "-c", "scontrol show job $SLURM_JOB_ID", user="herdu1")
    assert " WCKey=*alpha" in out, out


def test_update_wckey(c):
    """scontrol update job WCKey= while pending: a known one is set; an
    unknown one without enforcement becomes the user's default (Slurm's
    update_job_wckey); a running job's is not changed."""
    set_conf(c, TrackWCKey="yes")
    j = submit(c, "herdu1", "-H", "--wrap", "true")
    ok(c, "scontrol", "update", f"jobid={j}", "WCKey=Gamma")
    assert show_wckey(c, j) == "gamma"
    ok(c, "scontrol", "update", f"jobid={j}", "WCKey=nothing")
    assert show_wckey(c, j) == "alpha"
    ok(c, "scancel", j)
    run = submit(c, "herdu1", "--wckey=gamma", "--wrap", "sleep 60")
    c.wait_state(run, ["RUNNING"])
    r = c.run(["scontrol", "update", f"jobid={run}", "WCKey=alpha"])
    assert r.rc == 1 and r.err == f"Job is no longer pending execution for job {run}\n", r
    assert show_wckey(c, run) == "gamma"
    ok(c, "scancel", run)


def test_enforce_wckeys(c):
    """AccountingStorageEnforce=wckeys: a wckey the user does not have is
    refused with Slurm's sentence, so is a job without --wckey of a user
    without a default; a held one is accepted; scontrol update refuses an
    unknown one too."""
    set_conf(c, TrackWCKey="yes", AccountingStorageEnforce="wckeys")
    try:
        r = c.run(["sbatch", "--wckey=zzz", "-o", "/dev/null", "--wrap", "true"], user="herdu1",
                  cwd=c.workdir("herdu1"))
        assert r.rc == 1 and r.err == INVALID, r
        r = c.run(["sbatch", "-o", "/dev/null", "--wrap", "true"], user="herdu2",
                  cwd=c.workdir("herdu2"))
        assert r.rc == 1 and r.err == INVALID, r
        for cmd, says in (("srun", "Unable to allocate resources"),
                          ("salloc", "Job submit/allocate failed")):
            r = c.run([cmd, "--wckey=zzz", "true"], user="herdu1", cwd=c.workdir("herdu1"))
            assert r.rc == 1 and r.err == \
                f"{cmd}: error: {says}: Invalid wckey specification\n", r
        j = submit(c, "herdu1", "-H", "--wckey=ALPHA", "--wrap", "true")
        assert show_wckey(c, j) == "alpha"
        r = c.run(["scontrol", "update", f"jobid={j}", "WCKey=zzz"])
        assert r.rc == 1 and "Invalid wckey specification" in r.err, r
        assert show_wckey(c, j) == "alpha"
        ok(c, "scancel", j)
    finally:
        set_conf(c, TrackWCKey="yes", AccountingStorageEnforce=None)


def test_wckeys_survive_restart(c):
    """The wckeys and a pending job's wckey are in the store: a controller
    killed and started again has them."""
    set_conf(c, TrackWCKey="yes")
    j = submit(c, "herdu1", "-H", "--wckey=gamma", "--wrap", "true")
    before = rows(c, "wckeys", "format=WCKey,User,ID")
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    assert rows(c, "wckeys", "format=WCKey,User,ID") == before
    assert show_wckey(c, j) == "gamma"
    ok(c, "scancel", j)


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def report(c, *args):
    out = ok(c, "sreport", "-P", "-t", "seconds", *args)
    lines = out.splitlines()[4:]
    head = lines[0].split("|")
    return [dict(zip(head, line.split("|"))) for line in lines[1:]]


def test_sreport_wckey_reports(c):
    """cluster WCKeyUtilizationByUser: each wckey's row then its users',
    what sacct counts (a default *alpha counted as alpha); job SizesByWckey:
    the same time by CPU count, with its share."""
    set_conf(c, TrackWCKey="yes")
    if 3600 - time.time() % 3600 < 90:   # keep the jobs in one whole hour
        time.sleep(3600 - time.time() % 3600 + 1)
    lt = time.localtime()
    start = int(time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday, lt.tm_hour, 0, 0, 0, 0, -1)))
    jobs = [submit(c, "herdu1", "-n", "2", "--wrap", "sleep 2"),
            submit(c, "herdu1", "--wckey=gamma", "--wrap", "sleep 3")]
    for j in jobs:
        assert c.wait_done(j) == "COMPLETED"
    # every job of the hour (earlier tests' srun and salloc too), as sacct counts them
    out = ok(c, "sacct", "-a", "-X", "-n", "-P", "-S", stamp(start), "-E", stamp(start + 3600),
             "-o", "WCKey,AllocCPUS,CPUTimeRAW")
    secs, big = {}, {}
    for line in out.splitlines():
        w, cpus, t = line.split("|")
        w = w.lstrip("*")
        if w and int(t):
            secs[w] = secs.get(w, 0) + int(t)
            big[w] = big.get(w, 0) + (int(t) if int(cpus) >= 2 else 0)
    assert set(secs) == {"alpha", "gamma"} and big["alpha"] > 0, out
    window = [f"start={stamp(start)}", f"end={stamp(start + 7200)}"]
    r = report(c, "cluster", "WCKeyUtilizationByUser", *window)
    assert [(x["WCKey"], x["Login"], int(x["Used"])) for x in r] == [
        ("alpha", "", secs["alpha"]), ("alpha", "herdu1", secs["alpha"]),
        ("gamma", "", secs["gamma"]), ("gamma", "herdu1", secs["gamma"])], (r, out)
    assert list(r[0]) == ["Cluster", "WCKey", "Login", "Proper Name", "Used"]
    r = report(c, "cluster", "WCKeyUtilizationByUser", "wckeys=GAMMA", *window)
    assert [x["WCKey"] for x in r] == ["gamma", "gamma"], r
    r = report(c, "job", "SizesByWckey", "grouping=2", *window)
    assert list(r[0]) == ["Cluster", "Wckey", "0-1 CPUs", ">= 2 CPUs", "% of cluster"], r
    total = sum(secs.values())
    assert [(x["Wckey"], int(x["0-1 CPUs"]), int(x[">= 2 CPUs"])) for x in r] == [
        (w, secs[w] - big.get(w, 0), big.get(w, 0)) for w in ("alpha", "gamma")], (r, out)
    assert r[1]["% of cluster"] == "%.2f%%" % (secs["gamma"] * 100.0 / total), r
    out = ok(c, "sreport", "job", "SizesByWckey", *window)
    assert out.splitlines()[1].startswith("Job Sizes by Wckey "), out


@pytest.mark.skipif(not pg.available(), reason="PostgreSQL 15's server binaries are not installed")
def test_wckey_records_on_postgresql(users):
    """With the records on PostgreSQL, a job's wckey and its ID are in its
    record: sacct shows and selects them, sreport counts them."""
    cl = start_cluster(2)
    try:
        server = pg.session_server()
        db = server.create_db(f"herd_wckey_{os.getpid()}")
        pg.set_conf_keys(cl, {**server.conf(db), "TrackWCKey": "yes"})
        ok(cl, "sacctmgr", "-i", "add", "user", "herdu1", "account=root", "WCKeys=pgkey")
        j = submit(cl, "herdu1", "--wrap", "sleep 1")
        assert cl.wait_done(j) == "COMPLETED"
        [[wid]] = rows(cl, "wckeys", "format=ID")

        def arrived():
            out = ok(cl, "sacct", "-X", "-n", "-P", "-j", j, "-o", "WCKey,WCKeyID,State")
            return out == f"*pgkey|{wid}|COMPLETED\n"
        cl.wait_until("the job's record on PostgreSQL", arrived, timeout=30)
        out = ok(cl, "sacct", "-X", "-n", "-P", "-a", "-j", j, "-o", "JobID", "-W", "*PGKEY")
        assert out == f"{j}\n", out
        recs = server.psql(f"SELECT rec FROM acct_job WHERE job_id={int(j)}", db)
        assert recs and '"wckey":"*pgkey"' in recs[-1][0], recs
    finally:
        stop_cluster(cl)
