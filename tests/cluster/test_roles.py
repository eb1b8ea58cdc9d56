"""Who may act on a job (doc/accounting.md, "Roles, limits, team jobs"): an
authorization matrix of roles x acts, each cell allowed (and done) or refused
with Slurm's sentence, run as real users against real daemons.  The roles:
the job's owner, a plain other user, a coordinator of an account above the
job's, an Operator, an Administrator, and a member of the job's TeamJobs
account (Herd's own); that member again on a job of an account that is not
a team's.  Team acts are recorded (job event, the record's "acts", and
`scontrol show job`'s TeamActs=).  PrivateData=jobs hides the rest.

One 4-node cluster of 4 CPUs (room for a job per role at once), with the
accounts root -> dept -> {team (TeamJobs), proj}, and other."""
import json
import os
import signal
import sqlite3

import pytest

from conftest import Cluster, ensure_user, make_root, parse_kv, stop_cluster
from cmd_helpers import cancel_all, read, squeue_field, stays, wait_text, write_script

OWNER, OTHER, COORD, OPER, ADMIN, TEAM = ("herdr_owner", "herdr_other", "herdr_coord",
                                          "herdr_oper", "herdr_admin", "herdr_team")
# case: (who acts, the account of the job they act on; the owner's job each time)
CASES = {
    "owner": (OWNER, "team"),
    "other": (OTHER, "team"),
    "coord": (COORD, "team"),
    "operator": (OPER, "team"),
    "admin": (ADMIN, "team"),
    "team": (TEAM, "team"),
    "team_elsewhere": (TEAM, "proj"),
}
EVERYONE_BUT_STRANGERS = {"owner", "coord", "operator", "admin", "team"}
ALLOWED = {
    "cancel": EVERYONE_BUT_STRANGERS,
    "hold": EVERYONE_BUT_STRANGERS,
    "release": EVERYONE_BUT_STRANGERS,
    "requeue": EVERYONE_BUT_STRANGERS,
    "signal": EVERYONE_BUT_STRANGERS,
    "shorten": EVERYONE_BUT_STRANGERS,
    "lengthen": {"coord", "operator", "admin"},     # users only lower their limits
    "update": {"owner", "coord", "operator", "admin"},   # TeamJobs: no other field
    "see": EVERYONE_BUT_STRANGERS,
}
PRIVILEGED = {"coord", "operator", "admin"}   # hold as JobHeldAdmin


def sacctmgr(c, *args):
    r = c.run(["sacctmgr", "-i", *args])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def c():
    for u in (OWNER, OTHER, COORD, OPER, ADMIN, TEAM):
        ensure_user(u)
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "4", "--memory", "4000")
        sacctmgr(c, "add", "account", "dept")
        sacctmgr(c, "add", "account", "team", "parent=dept")
        sacctmgr(c, "add", "account", "proj", "parent=dept")
        sacctmgr(c, "add", "account", "other")
        sacctmgr(c, "add", "user", OWNER, "account=team")
        sacctmgr(c, "add", "user", OWNER, "account=proj")
        sacctmgr(c, "add", "user", TEAM, "account=team")
        for u in (OTHER, COORD, OPER, ADMIN):
            sacctmgr(c, "add", "user", u, "account=other")
        sacctmgr(c, "add", "coordinator", "account=dept", f"names={COORD}")
        sacctmgr(c, "modify", "user", OPER, "set", "adminlevel=Operator")
        sacctmgr(c, "modify", "user", ADMIN, "set", "adminlevel=Administrator")
        sacctmgr(c, "modify", "account", "team", "set", "flags=TeamJobs")
        with open(c.conf, "a") as f:
            f.write("PrivateData=jobs\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c, wait_idle=False)
    yield c
    cancel_all(c, wait_idle=False)


def pending(c, account):
    """The owner's job that waits (--begin an hour away)."""
    return c.sbatch("-A", account, "--begin=now+3600", "-t", "30", "-o", "/dev/null",
                    "--wrap", "true", user=OWNER, cwd=c.workdir(OWNER))


def running(c, account, script=None):
    wd = c.workdir(OWNER)
    args = [script] if script else ["--wrap", "sleep 300"]
    job = c.sbatch("-A", account, "-t", "30", "-o", os.path.join(wd, "out-%j"), *args,
                   user=OWNER, cwd=wd)
    return job


def jobs_per_case(c, make):
    return {case: make(c, account) for case, (_, account) in CASES.items()}


def scontrol(c, *args, user):
    return c.run(["scontrol", *args], user=user)


def refused_update(job):
    return f"Invalid user id for job {job}\n"


def test_cancel(clean):
    c = clean
    jobs = jobs_per_case(c, pending)
    for case, job in jobs.items():
        user = CASES[case][0]
        r = c.run(["scancel", str(job)], user=user)
        if case in ALLOWED["cancel"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
        else:
            assert (r.rc, r.err) == (1, f"scancel: error: Kill job error on job id {job}: "
                                        "Access/permission denied\n"), (case, r)
    for case, job in jobs.items():
        want = "CANCELLED" if case in ALLOWED["cancel"] else "PENDING"
        assert c.wait_state(job, want, timeout=10) == want, case


def test_hold_and_release(clean):
    c = clean
    jobs = jobs_per_case(c, pending)
    for case, job in jobs.items():
        user = CASES[case][0]
        r = scontrol(c, "hold", str(job), user=user)
        if case in ALLOWED["hold"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
            want = "JobHeldAdmin" if case in PRIVILEGED else "JobHeldUser"
            assert squeue_field(c, job, "%r") == want, case
        else:
            assert (r.rc, r.err) == (1, refused_update(job) +
                                     "slurm_suspend error: Invalid user id\n"), (case, r)
            assert squeue_field(c, job, "%r") == "BeginTime", case
            assert scontrol(c, "uhold", str(job), user="root").rc == 0
    for case, job in jobs.items():
        user = CASES[case][0]
        r = scontrol(c, "release", str(job), user=user)
        if case in ALLOWED["release"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
            assert squeue_field(c, job, "%r") == "BeginTime", case
        else:
            assert r.rc == 1 and r.err.endswith("slurm_suspend error: Invalid user id\n"), (case, r)
            assert squeue_field(c, job, "%r") == "JobHeldUser", case
    # An administrator's hold is not the team's to lift (nor the owner's).
    job = jobs["team"]
    assert scontrol(c, "hold", str(job), user="root").rc == 0
    for user in (TEAM, OWNER):
        r = scontrol(c, "release", str(job), user=user)
        assert (r.rc, r.err) == (1, f"Access/permission denied for job {job}\n"
                                    "slurm_suspend error: Access/permission denied\n"), r
    assert squeue_field(c, job, "%r") == "JobHeldAdmin"
    assert scontrol(c, "release", str(job), user=COORD).rc == 0   # the coordinator's is
    assert squeue_field(c, job, "%r") == "BeginTime"


def test_requeue(clean):
    c = clean
    jobs = jobs_per_case(c, running)
    for job in jobs.values():
        c.wait_state(job, "RUNNING")
    for case, job in jobs.items():
        user = CASES[case][0]
        r = scontrol(c, "requeue", str(job), user=user)
        if case in ALLOWED["requeue"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
        else:
            assert (r.rc, r.err) == (1, f"Access/permission denied for job {job}\n"
                                        "slurm_requeue error: Access/permission denied\n"), (case, r)
    for case, job in jobs.items():
        want = "1" if case in ALLOWED["requeue"] else "0"
        c.wait_until(f"{case}: Restarts={want}", lambda: c.show_job(job)["Restarts"] == want,
                     timeout=15)
        if want == "0":
            assert c.job_state(job) == "RUNNING", case


def test_signal(clean):
    c = clean
    wd = c.workdir(OWNER)
    script = write_script(os.path.join(wd, "trap.sh"), "\n".join([
        "#!/bin/bash",
        "trap 'echo got USR1' USR1",
        "echo ready",
        "for i in $(seq 3000); do sleep 0.1; done",
        "",
    ]), owner=OWNER)
    jobs = jobs_per_case(c, lambda c, account: running(c, account, script))
    for job in jobs.values():
        wait_text(c, os.path.join(wd, f"out-{job}"), "ready\n")
    for case, job in jobs.items():
        user = CASES[case][0]
        r = c.run(["scancel", "--signal=USR1", "-b", str(job)], user=user)
        if case in ALLOWED["signal"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
        else:
            assert (r.rc, r.err) == (1, f"scancel: error: Kill job error on job id {job}: "
                                        "Access/permission denied\n"), (case, r)
    for case, job in jobs.items():
        out = os.path.join(wd, f"out-{job}")
        if case in ALLOWED["signal"]:
            wait_text(c, out, "got USR1\n", timeout=10)
        else:
            assert stays(lambda: "got" not in read(out), 0.5), case
        assert c.job_state(job) == "RUNNING", case   # a signal, not a cancel


def test_time_limit_shorten_lengthen(clean):
    c = clean
    jobs = jobs_per_case(c, pending)   # -t 30
    for case, job in jobs.items():
        user = CASES[case][0]
        r = scontrol(c, "update", f"JobId={job}", "TimeLimit=20", user=user)
        if case in ALLOWED["shorten"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
            assert c.show_job(job)["TimeLimit"] == "00:20:00", case
        else:
            assert (r.rc, r.err) == (1, refused_update(job)), (case, r)
            assert c.show_job(job)["TimeLimit"] == "00:30:00", case
        r = scontrol(c, "update", f"JobId={job}", "TimeLimit=45", user=user)
        if case in ALLOWED["lengthen"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
            assert c.show_job(job)["TimeLimit"] == "00:45:00", case
        else:
            want = refused_update(job) if case not in ALLOWED["shorten"] else \
                f"Access/permission denied for job {job}\n"
            assert (r.rc, r.err) == (1, want), (case, r)
            assert c.show_job(job)["TimeLimit"] != "00:45:00", case
    # Nor UNLIMITED, nor a shorter limit together with another field, for the team.
    job = jobs["team"]
    for args in (["TimeLimit=UNLIMITED"], ["TimeLimit=10", "Comment=x"]):
        r = scontrol(c, "update", f"JobId={job}", *args, user=TEAM)
        assert (r.rc, r.err) == (1, f"Access/permission denied for job {job}\n"), (args, r)
    assert c.show_job(job)["TimeLimit"] == "00:20:00"


def test_other_update(clean):
    c = clean
    jobs = jobs_per_case(c, pending)
    for case, job in jobs.items():
        user = CASES[case][0]
        r = scontrol(c, "update", f"JobId={job}", f"Comment=by_{case}", user=user)
        if case in ALLOWED["update"]:
            assert (r.rc, r.err) == (0, ""), (case, r)
            assert c.show_job(job).get("Comment") == f"by_{case}", case
        elif case == "team":
            assert (r.rc, r.err) == (1, f"Access/permission denied for job {job}\n"), (case, r)
        else:
            assert (r.rc, r.err) == (1, refused_update(job)), (case, r)
        if case not in ALLOWED["update"]:
            assert "Comment" not in c.show_job(job), case


def test_private_data_jobs(clean):
    c = clean
    jobs = jobs_per_case(c, pending)
    team_job, proj_job = jobs["team"], jobs["team_elsewhere"]
    for case, (user, _) in CASES.items():
        if case == "team_elsewhere":
            continue
        shown = c.run(["squeue", "-h", "-o", "%i"], user=user)
        assert shown.rc == 0, shown
        ids = {int(x) for x in shown.out.split()}
        if case in ALLOWED["see"] and case != "team":
            assert ids == set(jobs.values()), (case, shown)
        elif case == "team":
            # its team's jobs, not the owner's other account's
            assert team_job in ids and proj_job not in ids, (case, shown)
        else:
            assert ids == set(), (case, shown)
        r = c.run(["scontrol", "show", "job", str(proj_job)], user=user)
        if case in {"owner", "coord", "operator", "admin"}:
            assert r.rc == 0 and parse_kv(r.out)["JobId"] == str(proj_job), (case, r)
        else:
            assert (r.rc, r.err) == (1, "slurm_load_jobs error: Invalid job id specified\n"), \
                (case, r)
    # sacct (the store's records) shows the same; held jobs, which it lists
    # (one waiting for its --begin time it does not).
    wd = c.workdir(OWNER)
    held = {acct: c.sbatch("-A", acct, "-H", "-o", "/dev/null", "--wrap", "true", user=OWNER,
                           cwd=wd) for acct in ("team", "proj")}
    ids = ",".join(map(str, held.values()))
    for case, (user, _) in CASES.items():
        r = c.run(["sacct", "-a", "-n", "-X", "-P", "-o", "JobID", "-j", ids], user=user)
        assert r.rc == 0, (case, r)
        seen = {int(x) for x in r.out.split()}
        if case in {"owner", "coord", "operator", "admin"}:
            assert seen == set(held.values()), (case, r)
        elif case.startswith("team"):
            assert seen == {held["team"]}, (case, r)
        else:
            assert seen == set(), (case, r)
    # scancel by filter reaches the team's jobs the member sees, and only those.
    r = c.run(["scancel", "-u", OWNER], user=TEAM)
    assert r.rc == 0, r
    assert c.wait_done(team_job, timeout=10) == "CANCELLED"
    assert stays(lambda: c.job_state(proj_job) == "PENDING", 0.5)


def test_scancel_by_account_team(clean):
    c = clean
    mine = [pending(c, "team") for _ in range(2)]
    theirs = pending(c, "proj")
    r = c.run(["scancel", "-A", "team"], user=TEAM)
    assert (r.rc, r.err) == (0, ""), r
    for job in mine:
        assert c.wait_done(job, timeout=10) == "CANCELLED"
    assert c.job_state(theirs) == "PENDING"


def db_rows(c, sql, *args):
    db = sqlite3.connect(f"file:{c.dir}/state/herd.db?mode=ro", uri=True, timeout=10)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def test_team_acts_recorded(clean):
    c = clean
    job = pending(c, "team")
    assert scontrol(c, "hold", str(job), user=TEAM).rc == 0
    assert scontrol(c, "release", str(job), user=TEAM).rc == 0
    assert scontrol(c, "update", f"JobId={job}", "TimeLimit=10", user=TEAM).rc == 0
    # The owner's own acts and an operator's are no team acts.
    assert scontrol(c, "hold", str(job), user=OWNER).rc == 0
    assert scontrol(c, "release", str(job), user=OPER).rc == 0
    r = c.run(["scontrol", "show", "job", str(job)])
    assert r.rc == 0, r
    line = [ln.strip() for ln in r.out.splitlines() if ln.strip().startswith("TeamActs=")]
    assert len(line) == 1, r.out
    acts = line[0][len("TeamActs="):].split(",")
    assert [a.split("@")[0] for a in acts] == [f"hold:{TEAM}", f"release:{TEAM}",
                                               f"time_limit:{TEAM}"], acts
    for a in acts:
        assert len(a.split("@")[1]) == len("2026-12-01T10:00:00"), a
    # One line in -o too, and nothing for a job without team acts.
    one = c.run(["scontrol", "-o", "show", "job", str(job)]).out
    assert "TeamActs=hold:" in one and "\n" not in one.rstrip("\n")
    quiet = pending(c, "team")
    assert "TeamActs" not in c.run(["scontrol", "show", "job", str(quiet)]).out
    # The team member cancels it: recorded as well, in the store's record
    # (what sacct reads) and its events.
    assert c.run(["scancel", str(job)], user=TEAM).rc == 0
    assert c.wait_done(job, timeout=10) == "CANCELLED"
    uid = int(c.run(["id", "-u", TEAM]).out)

    def stored():
        rows = db_rows(c, "SELECT rec FROM jobs WHERE id=?", job)
        rec = json.loads(rows[0][0]) if rows else {}
        return rec.get("state") == "CANCELLED" and rec.get("acts")
    recorded = c.wait_until("the record's acts", stored, timeout=10)
    assert [(a["act"], a["user"], a["uid"]) for a in recorded] == \
        [(act, TEAM, uid) for act in ("hold", "release", "time_limit", "cancel")], recorded
    assert recorded[2]["detail"] == "TimeLimit=30:00->10:00", recorded
    events = [d for (d,) in db_rows(c, "SELECT detail FROM job_events WHERE job_id=? AND "
                                       "event='TEAM_ACT' ORDER BY rowid", job)]
    assert [e.split()[2] for e in events] == ["act=hold", "act=release", "act=time_limit",
                                              "act=cancel"], events
    assert all(e.startswith(f"uid={uid} user={TEAM} ") for e in events), events
    # sacct's TeamActs (Herd's own field, named in full only) says the same.
    r = c.run(["sacct", "-X", "-n", "-P", "-j", str(job), "-o", "JobID,TeamActs"])
    assert r.rc == 0, r
    assert r.out.count("|") == 1, r
    jid, acts = r.out.strip().split("|")
    assert jid == str(job), r.out
    assert [a.split("@")[0] for a in acts.split(",")] == \
        [f"{act}:{TEAM}" for act in ("hold", "release", "time_limit", "cancel")], r.out
    assert "TeamActs" not in c.run(["sacct", "--helpformat"]).out


def test_what_needs_an_administrator(clean):
    c = clean
    # An Administrator does what root and SlurmUser do (sacctmgr(1)); an
    # Operator acts on jobs only.
    for user, ok in ((ADMIN, True), (OPER, False), (COORD, False), (OWNER, False)):
        r = c.run(["scontrol", "update", "NodeName=n4", "State=DRAIN", "Reason=by_" + user],
                  user=user)
        if ok:
            assert (r.rc, r.err) == (0, ""), r
            assert c.run(["scontrol", "update", "NodeName=n4", "State=RESUME"], user=user).rc == 0
        else:
            assert r.rc == 1 and "Access/permission denied" in r.err, (user, r)
        r = c.run(["scontrol", "reconfigure"], user=user)
        if ok:
            assert (r.rc, r.err) == (0, ""), r
        else:
            assert (r.rc, r.out, r.err) == (1, "", "slurm_reconfigure error: "
                                            "Access/permission denied\n"), (user, r)
    c.wait_until("n4 back", lambda: "drain" not in
                 c.run(["sinfo", "-h", "-n", "n4", "-o", "%t"]).out, timeout=10)


def test_team_acts_survive_a_restart(clean):
    c = clean
    job = pending(c, "team")
    assert scontrol(c, "hold", str(job), user=TEAM).rc == 0
    killed = c.ctld_pid()
    os.kill(killed, signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not c.ping_ok(), timeout=10)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    info = c.show_job(job)
    assert info["TeamActs"].startswith(f"hold:{TEAM}@"), info
    assert info["Reason"] == "JobHeldUser"
    # and PrivateData=jobs still holds after the restart
    assert c.run(["squeue", "-h", "-o", "%i"], user=OTHER).out == ""
    assert str(job) in c.run(["squeue", "-h", "-o", "%i"], user=TEAM).out.split()
