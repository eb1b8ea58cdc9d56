"""Job dependencies (sbatch -d/--dependency, scontrol update Dependency=),
--begin and --deadline as a user meets them: what squeue and scontrol show
while a job waits, the order jobs run in, specs refused at submit with
Slurm's message and nothing made, and (on a second cluster whose controller
is killed and restarted with MinJobAge=1) dependencies on jobs purged from
the controller's memory and dependencies surviving kill -9.  The shared
cluster has 4 nodes with 2 CPUs each."""
import os
import re
import signal
import time

import pytest

from conftest import Cluster, make_root, stop_cluster
from cmd_helpers import clean, read, squeue_field, stays, wait_reason

USER = "herdu1"
OTHER = "herdu2"
REFUSED = "sbatch: error: Batch job submission failed: Job dependency problem\n"


def sub(c, *args, user=USER):
    return c.sbatch("-o", "/dev/null", *args, user=user, cwd=c.workdir(user))


def dependency(c, job_id):
    return squeue_field(c, job_id, "%E")


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def test_afterok_chain_runs_in_order(clean):
    c = clean
    out = os.path.join(c.workdir(USER), "chain.txt")
    if os.path.exists(out):
        os.unlink(out)
    a = sub(c, "--wrap", f"sleep 2; echo A >> {out}")
    b = sub(c, "-d", f"afterok:{a}", "--wrap", f"echo B >> {out}")
    last = sub(c, f"--dependency=afterok:{b}", "--wrap", f"echo C >> {out}")
    wait_reason(c, b, "Dependency")
    assert squeue_field(c, b, "%T %r") == "PENDING Dependency"
    assert dependency(c, b) == f"afterok:{a}(unfulfilled)"
    r = c.run(["squeue", "-h", "-j", str(last), "-O", "Dependency:40"])
    assert r.rc == 0 and r.out.strip() == f"afterok:{b}(unfulfilled)", r
    assert c.show_job(last)["Dependency"] == f"afterok:{b}(unfulfilled)"
    assert c.show_job(last)["EligibleTime"] == "Unknown"
    for j in (a, b, last):
        assert c.wait_done(j) == "COMPLETED", c.show_job(j)
    assert read(out) == "A\nB\nC\n"
    # Met dependencies are gone from what is shown, as in Slurm.
    assert c.show_job(last)["Dependency"] == "(null)"
    assert dependency(c, last) == "(null)"
    assert dependency(c, a) == "(null)"


def test_afternotok_runs_after_a_failure_and_afterok_never(clean):
    c = clean
    a = sub(c, "--wrap", "sleep 1; exit 3")
    notok = sub(c, "-d", f"afternotok:{a}", "--wrap", "true")
    ok = sub(c, "-d", f"afterok:{a}", "--wrap", "true")
    corr = sub(c, "-d", f"aftercorr:{a}", "--wrap", "true")
    assert c.wait_done(a) == "FAILED"
    assert c.wait_done(notok) == "COMPLETED"
    wait_reason(c, ok, "DependencyNeverSatisfied")
    assert dependency(c, ok) == f"afterok:{a}(failed)"
    assert squeue_field(c, ok, "%t %R") == "PD (DependencyNeverSatisfied)"
    # aftercorr on a job that is not an array: its one "task" is the job.
    wait_reason(c, corr, "DependencyNeverSatisfied")
    # It stays pending: nothing ever satisfies it.
    assert stays(lambda: c.job_state(ok) == "PENDING", seconds=2)
    # afternotok on a job that completed can never be met either.
    good = sub(c, "--wrap", "true")
    assert c.wait_done(good) == "COMPLETED"
    never = sub(c, "-d", f"afternotok:{good}", "--wrap", "true")
    wait_reason(c, never, "DependencyNeverSatisfied")


def test_kill_on_invalid_dep(clean):
    c = clean
    a = sub(c, "--wrap", "exit 1")
    assert c.wait_done(a) == "FAILED"
    killed = sub(c, "--kill-on-invalid-dep=yes", "-d", f"afterok:{a}", "--wrap", "true")
    kept = sub(c, "--kill-on-invalid-dep=no", "-d", f"afterok:{a}", "--wrap", "true")
    assert c.wait_done(killed) == "CANCELLED"
    assert squeue_field(c, killed, "%r") == "DependencyNeverSatisfied"
    wait_reason(c, kept, "DependencyNeverSatisfied")
    r = c.run(["sbatch", "--kill-on-invalid-dep=maybe", "--wrap", "true"], user=USER)
    assert r.rc != 0 and "Invalid --kill-on-invalid-dep specification" in r.err, r


def test_afterany_and_after(clean):
    c = clean
    a = sub(c, "--wrap", "sleep 1; exit 2")
    anyjob = sub(c, "-d", f"afterany:{a}", "--wrap", "true")
    # A bare job ID is afterany, as in Slurm.
    bare = sub(c, "-d", str(a), "--wrap", "true")
    assert c.wait_done(anyjob) == "COMPLETED"
    assert c.wait_done(bare) == "COMPLETED"
    # afterany and after on a job cancelled while it waited.
    held = sub(c, "-H", "--wrap", "true")
    dep_any = sub(c, "-d", f"afterany:{held}", "--wrap", "true")
    dep_after = sub(c, "-d", f"after:{held}", "--wrap", "true")
    wait_reason(c, dep_any, "Dependency")
    wait_reason(c, dep_after, "Dependency")
    assert c.run(["scancel", str(held)], user=USER).rc == 0
    assert c.wait_done(dep_any) == "COMPLETED"
    assert c.wait_done(dep_after) == "COMPLETED"
    # after: once the target starts, not when it ends.
    long = sub(c, "--wrap", "sleep 30")
    started = sub(c, "-d", f"after:{long}", "--wrap", "true")
    assert c.wait_done(started, timeout=20) == "COMPLETED"
    assert c.job_state(long) == "RUNNING"


def test_after_with_delay(clean):
    c = clean
    a = sub(c, "--wrap", "sleep 300")
    c.wait_state(a, "RUNNING")
    start_a = time.time()
    delayed = sub(c, "-d", f"after:{a}+1", "--wrap", "true")
    wait_reason(c, delayed, "Dependency")
    assert dependency(c, delayed) == f"after:{a}+1(unfulfilled)"
    assert stays(lambda: c.job_state(delayed) == "PENDING", seconds=20)
    assert c.wait_done(delayed, timeout=90) == "COMPLETED"
    info_a, info_d = c.show_job(a), c.show_job(delayed)
    t_a = time.mktime(time.strptime(info_a["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    t_d = time.mktime(time.strptime(info_d["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    assert t_d - t_a >= 60, (info_a["StartTime"], info_d["StartTime"], start_a)


def test_or_dependency(clean):
    c = clean
    held = sub(c, "-H", "--wrap", "true")
    quick = sub(c, "--wrap", "sleep 1")
    either = sub(c, "-d", f"afterok:{held}?afterok:{quick}", "--wrap", "true")
    both = sub(c, "-d", f"afterok:{held},afterok:{quick}", "--wrap", "true")
    wait_reason(c, either, "Dependency")
    assert dependency(c, either) == f"afterok:{held}(unfulfilled)?afterok:{quick}(unfulfilled)"
    assert c.wait_done(either) == "COMPLETED"
    # ',' needs both: the met one is dropped, the held one remains.
    c.wait_until("the met part dropped",
                 lambda: dependency(c, both) == f"afterok:{held}(unfulfilled)")
    assert c.job_state(both) == "PENDING"
    # Several IDs for one type: all of them.
    fail = sub(c, "--wrap", "exit 1")
    multi = sub(c, "-d", f"afterok:{quick}:{fail}", "--wrap", "true")
    wait_reason(c, multi, "DependencyNeverSatisfied")
    assert dependency(c, multi) == f"afterok:{fail}(failed)"
    # '?' fails only when every part has failed.
    any_fail = sub(c, "-d", f"afterok:{fail}?afternotok:{quick}", "--wrap", "true")
    wait_reason(c, any_fail, "DependencyNeverSatisfied")


def test_singleton(clean):
    c = clean
    wd = c.workdir(USER)
    out = os.path.join(wd, "single.txt")
    if os.path.exists(out):
        os.unlink(out)
    first = sub(c, "-J", "solo", "--wrap", f"echo first >> {out}; sleep 3; echo first-end >> {out}")
    c.wait_state(first, "RUNNING")
    second = sub(c, "-J", "solo", "-d", "singleton", "--wrap", f"echo second >> {out}")
    other_name = sub(c, "-J", "notsolo", "-d", "singleton", "--wrap", "true")
    other_user = sub(c, "-J", "solo", "-d", "singleton", "--wrap", "true", user=OTHER)
    wait_reason(c, second, "Dependency")
    assert dependency(c, second) == "singleton(unfulfilled)"
    assert c.wait_done(other_name) == "COMPLETED"
    assert c.wait_done(other_user) == "COMPLETED"
    assert c.wait_done(second) == "COMPLETED"
    assert read(out) == "first\nfirst-end\nsecond\n"
    # An earlier pending job of the same name holds a later singleton back.
    held = sub(c, "-J", "solo2", "-H", "--wrap", "true")
    later = sub(c, "-J", "solo2", "-d", "singleton", "--wrap", "true")
    wait_reason(c, later, "Dependency")
    assert stays(lambda: c.job_state(later) == "PENDING", seconds=1.5)
    assert c.run(["scancel", str(held)], user=USER).rc == 0
    assert c.wait_done(later) == "COMPLETED"


def test_bad_specs_are_refused_and_nothing_is_made(clean):
    c = clean
    real = sub(c, "-H", "--wrap", "true")
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).out.split()
    for spec in ("afterok", "afterok:", "afterok:abc", "bogus:1", f"afterok:{real}:",
                 f"afterok:{real},afterany:{real}?afterok:{real}", "afterok:999999",
                 f"afterok:{real}+5", f"after:{real}+x", "singleton:1", f"afterok:{real}_1",
                 f"expand:{real}", ","):
        r = c.run(["sbatch", "-o", "/dev/null", "-d", spec, "--wrap", "true"], user=USER)
        assert (r.rc, r.out, r.err) == (1, "", REFUSED), (spec, r)
    # The same from a #SBATCH line.
    wd = c.workdir(USER)
    r = c.run(["sbatch", "-o", "/dev/null"], user=USER, cwd=wd,
              input="#!/bin/sh\n#SBATCH --dependency=afterok:999998\ntrue\n")
    assert (r.rc, r.out, r.err) == (1, "", REFUSED), r
    assert c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).out.split() == before
    # No job ID was used up by the refusals.
    assert sub(c, "-H", "--wrap", "true") == real + 1
    r = c.run(["sbatch", "--begin=yesterday-ish", "--wrap", "true"], user=USER)
    assert r.rc != 0 and r.err == ("Invalid time specification (pos=0): yesterday-ish\n"
                                   "sbatch: error: Invalid --begin specification\n"), r
    r = c.run(["sbatch", "--deadline=soon", "--wrap", "true"], user=USER)
    assert r.rc != 0 and r.err == ("Invalid time specification (pos=0): soon\n"
                                   "sbatch: error: Invalid --deadline specification\n"), r


def test_begin_time(clean):
    c = clean
    t0 = int(time.time())
    job = sub(c, "--begin=now+4", "--wrap", "true")
    assert squeue_field(c, job, "%T %r") == "PENDING BeginTime"
    info = c.show_job(job)
    begin = time.mktime(time.strptime(info["EligibleTime"], "%Y-%m-%dT%H:%M:%S"))
    assert t0 + 3 <= begin <= t0 + 6, info["EligibleTime"]
    assert info["StartTime"] == info["EligibleTime"]
    assert stays(lambda: c.job_state(job) == "PENDING", seconds=2)
    assert c.wait_done(job, timeout=30) == "COMPLETED"
    started = time.mktime(time.strptime(c.show_job(job)["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    assert started >= begin
    # A named time of day: later (today or tomorrow), never now.
    job = sub(c, "--begin=teatime", "--wrap", "true")
    assert squeue_field(c, job, "%r") == "BeginTime"
    info = c.show_job(job)
    assert info["EligibleTime"].endswith("T16:00:00"), info["EligibleTime"]


def test_deadline(clean):
    c = clean
    late = sub(c, "-t", "5", "--deadline=now+30", "--wrap", "true")
    assert c.wait_done(late) == "DEADLINE"
    assert squeue_field(c, late, "%T %r") == "DEADLINE DeadLine"
    fine = sub(c, "-t", "1", "--deadline=now+1hour", "--wrap", "true")
    assert c.wait_done(fine) == "COMPLETED"
    deadline = c.show_job(fine)["Deadline"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", deadline), deadline
    assert c.show_job(fine)["Deadline"] != "N/A"
    plain = sub(c, "-H", "--wrap", "true")
    assert c.show_job(plain)["Deadline"] == "N/A"
    r = c.run(["sbatch", "--begin=now+2hours", "--deadline=now+1hour", "--wrap", "true"],
              user=USER)
    assert (r.rc, r.out, r.err) == \
        (1, "", "sbatch: error: Incompatible begin and deadline time specification\n"), r
    # Waiting for its begin time, a job that could not end by the deadline
    # is not kept waiting until then.
    begin_late = sub(c, "-t", "30", "--begin=now+1hour", "--deadline=now+80minutes",
                     "--wrap", "true")
    assert c.wait_done(begin_late) == "DEADLINE"


def test_scontrol_update_dependency_and_start_time(clean):
    c = clean
    target = sub(c, "-H", "--wrap", "true")
    job = sub(c, "-H", "--wrap", "true")
    r = c.run(["scontrol", "update", f"JobId={job}", f"Dependency=afterok:{target}"], user=USER)
    assert r.rc == 0, r
    assert c.show_job(job)["Dependency"] == f"afterok:{target}(unfulfilled)"
    assert c.run(["scontrol", "release", str(job)], user=USER).rc == 0
    wait_reason(c, job, "Dependency")
    r = c.run(["scontrol", "update", f"JobId={job}", "Dependency=afterok:999999"], user=USER)
    assert r.rc == 1 and r.err == f"Job dependency problem for job {job}\n", r
    r = c.run(["scontrol", "update", f"JobId={job}", f"Dependency=afterok:{job}"], user=USER)
    assert r.rc == 1 and "Job dependency problem" in r.err, r
    assert c.show_job(job)["Dependency"] == f"afterok:{target}(unfulfilled)"
    # StartTime= on a pending job: BeginTime until then.
    r = c.run(["scontrol", "update", f"JobId={job}", "Dependency=", "StartTime=now+1hour"],
              user=USER)
    assert r.rc == 0, r
    wait_reason(c, job, "BeginTime")
    assert c.show_job(job)["Dependency"] == "(null)"
    r = c.run(["scontrol", "update", f"JobId={job}", "StartTime=now"], user=USER)
    assert r.rc == 0, r
    assert c.wait_done(job) == "COMPLETED"
    r = c.run(["scontrol", "update", f"JobId={job}", f"Dependency=afterok:{target}"], user=USER)
    assert r.rc == 1 and r.err == f"Job has already finished for job {job}\n", r


# ---- a controller killed and restarted -------------------------------------

def restart_ctld(c, **conf):
    """kill -9 the controller, set keys in the config, start it again."""
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    with open(c.conf) as f:
        text = f.read()
    for key, value in conf.items():
        text, n = re.subn(rf"(?m)^{key}=.*$", f"{key}={value}", text)
        if not n:
            text += f"{key}={value}\n"
    with open(c.conf, "w") as f:
        f.write(text)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)


@pytest.fixture(scope="module")
def c2(users):
    c = Cluster(make_root(), 2)
    try:
        c.up()
        yield c
    finally:
        stop_cluster(c)


def test_restart_keeps_dependency_begin_and_deadline(c2):
    c = c2
    target = sub(c, "-H", "--wrap", "true")
    dep = sub(c, "-d", f"afterok:{target}", "--wrap", "true")
    later = sub(c, "--begin=now+1hour", "--wrap", "true")
    dl = sub(c, "-H", "-t", "1", "--deadline=now+2hours", "--wrap", "true")
    wait_reason(c, dep, "Dependency")
    before = {j: c.show_job(j) for j in (dep, later, dl)}
    restart_ctld(c)
    after = {j: c.show_job(j) for j in (dep, later, dl)}
    assert after[dep]["Dependency"] == f"afterok:{target}(unfulfilled)"
    assert after[dep]["JobState"] == "PENDING"
    wait_reason(c, dep, "Dependency")
    assert after[later]["EligibleTime"] == before[later]["EligibleTime"]
    wait_reason(c, later, "BeginTime")
    assert after[dl]["Deadline"] == before[dl]["Deadline"] != "N/A"
    assert c.run(["scontrol", "release", str(target)], user=USER).rc == 0
    assert c.wait_done(dep) == "COMPLETED"
    for j in (later, dl):
        assert c.run(["scancel", str(j)], user=USER).rc == 0


def test_dependency_on_purged_jobs(c2):
    """MinJobAge=1: finished jobs leave the controller's memory; a
    dependency on them is decided from the store."""
    c = c2
    ok = sub(c, "--wrap", "true")
    bad = sub(c, "--wrap", "exit 1")
    for j in (ok, bad):
        c.wait_done(j)
    time.sleep(2.5)   # whole-second times: past MinJobAge=1 at the restart
    restart_ctld(c, MinJobAge="1", SchedulerParameters="kill_invalid_depend")
    for j in (ok, bad):
        r = c.run(["squeue", "-h", "-t", "all", "-j", str(j)])
        assert r.rc == 1 and "Invalid job id specified" in r.err, (j, r)
    after_ok = sub(c, "-d", f"afterok:{ok}", "--wrap", "true")
    assert c.wait_done(after_ok) == "COMPLETED"
    after_notok = sub(c, "-d", f"afternotok:{bad}", "--wrap", "true")
    assert c.wait_done(after_notok) == "COMPLETED"
    after_any = sub(c, "-d", f"afterany:{bad}?afterok:{bad}", "--wrap", "true")
    assert c.wait_done(after_any) == "COMPLETED"
    # SchedulerParameters=kill_invalid_depend: cancelled, unless the job says no.
    never = sub(c, "-d", f"afterok:{bad}", "--wrap", "true")
    assert c.wait_done(never) == "CANCELLED"
    kept = sub(c, "--kill-on-invalid-dep=no", "-d", f"afterok:{bad}", "--wrap", "true")
    wait_reason(c, kept, "DependencyNeverSatisfied")
    assert dependency(c, kept) == f"afterok:{bad}(failed)"
    r = c.run(["sbatch", "-o", "/dev/null", "-d", "afterok:999999", "--wrap", "true"], user=USER)
    assert (r.rc, r.out, r.err) == (1, "", REFUSED), r
    assert c.run(["scancel", str(kept)], user=USER).rc == 0
