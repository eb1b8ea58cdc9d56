"""Local licenses (herd.conf Licenses=, a job's -L): Slurm's parsing and
refusals, `scontrol show licenses`, a job that starts only once its licenses
are free (pending reason Licenses), what holds them (running and suspended
jobs; an end or a requeue gives them back), scontrol update, a reconfigure
and a controller restart.  Slurm 22.05's output is the reference."""
import json
import os
import re
import signal
import time
import uuid

import pytest

from cmd_helpers import cancel_all, squeue_field, wait_reason
from conftest import parse_kv, start_cluster, stop_cluster
from test_frames import Wire, exchange

SUBMIT_JOB = 2
RC_INVALID_LICENSES = 2048
LICENSES = "Licenses=a:2,b,C:3\n"


def reconfigure(c):
    r = c.run(["scontrol", "reconfigure"])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def c(users):
    c = start_cluster(2)
    try:
        with open(c.conf, "a") as f:
            f.write(LICENSES)
        reconfigure(c)
        c.wire = Wire(c)
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    yield c
    try:
        cancel_all(c)
    finally:   # even when that failed: the next test's Licenses= as it expects
        with open(c.conf) as f:
            text = f.read()
        if not text.endswith(LICENSES):   # a test changed Licenses=: put it back
            text = re.sub(r"(?m)^Licenses=.*\n", "", text) + LICENSES
            with open(c.conf, "w") as f:
                f.write(text)
            reconfigure(c)


def submit(c, licenses, script="sleep 300", hold=False, time_limit=-2):
    """A SUBMIT_JOB with the JOBSPEC key "licenses" as sbatch -L sends it;
    the reply ({"rc", "job_id" | "error"})."""
    job = {
        "name": "lic", "script": f"#!/bin/sh\n{script}\n", "argv": [], "env": ["PATH=/usr/bin:/bin"],
        "cwd": c.workdir(), "stdout": "/dev/null", "stderr": "", "stdin": "", "partition": "",
        "nodes": 0, "ntasks": 0, "cpus_per_task": 0, "mem_mb": 0, "exclusive": False,
        "time_limit": time_limit, "hold": hold, "submit_host": "localhost", "umask": 0o22,
        "account": "", "comment": "", "licenses": licenses,
    }
    body = json.dumps({"key": uuid.uuid4().hex, "job": job}).encode()
    reply = exchange(c.port, c.wire.request(SUBMIT_JOB, body))
    assert reply is not None
    return reply


def start(c, licenses, hold=False, user=None):
    """sbatch -L licenses of a job that sleeps; its ID."""
    return c.sbatch(*(["-H"] if hold else []), "-L", licenses, "-o", "/dev/null",
                    "--wrap", "sleep 300", user=user)


def show_lic(c, *args):
    r = c.run(["scontrol", "show", "licenses", *args])
    assert r.rc == 0, r
    return r.out


def lic_line(c, name):
    """{Total, Used, Free, Reserved, Remote} of one license (scontrol -o)."""
    r = c.run(["scontrol", "-o", "show", "lic", name])
    assert r.rc == 0 and r.out.startswith(f"LicenseName={name} "), r
    return parse_kv(r.out)


def test_show_licenses_as_slurm(clean):
    c = clean
    # sorted by name as Slurm sorts them (C before a), two lines each
    assert show_lic(c) == ("LicenseName=C\n    Total=3 Used=0 Free=3 Reserved=0 Remote=no\n"
                           "LicenseName=a\n    Total=2 Used=0 Free=2 Reserved=0 Remote=no\n"
                           "LicenseName=b\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n")
    assert show_lic(c, "a") == "LicenseName=a\n    Total=2 Used=0 Free=2 Reserved=0 Remote=no\n"
    r = c.run(["scontrol", "-o", "show", "lic"])
    assert r.out.splitlines()[1] == "LicenseName=a Total=2 Used=0 Free=2 Reserved=0 Remote=no"
    assert show_lic(c, "zz") == ""      # Slurm: nothing, and success
    assert show_lic(c, "A") == ""       # names are case-sensitive


def test_unknown_or_too_many_are_refused(clean):
    c = clean
    for spec in ("zz", "c", "a:3", "a:2,a", "a:-1", "a:1.5", ":1", "a b", "a|b,C", "a:1:2"):
        r = c.run(["sbatch", "-H", "-L", spec, "--wrap", "true"])
        assert r.rc == 1, (spec, r)
        assert r.err == "sbatch: error: Batch job submission failed: Invalid license specification\n", r
        reply = submit(c, spec, hold=True)   # the controller's own check, whatever the client
        assert reply["rc"] == RC_INVALID_LICENSES, (spec, reply)
        assert reply["error"] == "Invalid license specification", reply
    r = c.run(["salloc", "-L", "zz", "true"])
    assert r.rc == 1 and r.err.endswith(
        "salloc: error: Job submit/allocate failed: Invalid license specification\n"), r
    r = c.run(["srun", "-L", "a:9", "true"])
    assert r.rc == 1 and r.err.endswith(
        "srun: error: Unable to allocate resources: Invalid license specification\n"), r
    # what Slurm takes: ; as a separator, a: and a:0 (none), a trailing comma
    for spec in ("a;b", "a:", "a:0", "a,", "a,a", "C:3", "a|b"):
        job = c.sbatch("-H", "--licenses=" + spec, "--wrap", "true")
        assert squeue_field(c, job, "%W") == spec   # as typed, as Slurm shows it


def test_licenses_from_script(clean):
    c = clean
    path = os.path.join(c.workdir(), "lic.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n#SBATCH -L C:2\n#SBATCH -H\ntrue\n")
    job = c.sbatch(path)
    assert c.show_job(job)["Licenses"] == "C:2"


def test_job_waits_for_licenses(clean):
    c = clean
    first = start(c, "a:2,b")
    c.wait_state(first, "RUNNING")
    second = start(c, "a")
    other = start(c, "C")             # needs nothing the first holds: runs beside it
    c.wait_state(other, "RUNNING")
    wait_reason(c, second, "Licenses")
    assert squeue_field(c, second, "%T %r %W") == "PENDING Licenses a"
    assert c.show_job(first)["Licenses"] == "a:2,b"
    assert lic_line(c, "a")["Used"] == "2" and lic_line(c, "a")["Free"] == "0"
    assert lic_line(c, "C")["Used"] == "1"
    r = c.run(["squeue", "-h", "-j", str(first), "-O", "JobID:8,Licenses:10"])
    assert r.out == f"{first:<8}a:2,b     \n", r
    # -L: the jobs asking one of the names (names only, as Slurm: C:2 is no name)
    assert c.run(["squeue", "-h", "-L", "C", "-o", "%i"]).out.split() == [str(other)]
    assert sorted(c.run(["squeue", "-h", "--licenses=b,a", "-o", "%i"]).out.split()) == \
        sorted([str(first), str(second)])
    assert c.run(["squeue", "-h", "-L", "C:1", "-o", "%i"]).out == ""
    assert c.run(["scancel", str(first)]).rc == 0
    c.wait_state(second, "RUNNING")
    assert lic_line(c, "a")["Used"] == "1" and lic_line(c, "b")["Used"] == "0"


def test_array_tasks_each_take_theirs(clean):
    c = clean
    array = c.sbatch("-L", "a", "--array=1-3", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_until("two tasks running", lambda: squeue_field(c, array, "%T").split().count("RUNNING") == 2)
    assert lic_line(c, "a")["Used"] == "2"
    rows = c.run(["squeue", "-h", "-r", "-j", str(array), "-t", "PD", "-o", "%K %r %W"]).out
    assert rows == "3 Licenses a\n", rows


def test_no_licenses_show_null(clean):
    c = clean
    job = c.sbatch("-H", "--wrap", "true")
    assert c.show_job(job)["Licenses"] == "(null)"
    assert squeue_field(c, job, "%W") == "(null)"


def test_or_takes_the_first_free(clean):
    c = clean
    first = start(c, "a:2")
    c.wait_state(first, "RUNNING")
    either = start(c, "a|b")
    c.wait_state(either, "RUNNING")
    assert lic_line(c, "b")["Used"] == "1" and lic_line(c, "a")["Used"] == "2"
    third = start(c, "a|b")
    wait_reason(c, third, "Licenses")
    assert c.run(["scancel", str(either)]).rc == 0
    c.wait_state(third, "RUNNING")
    assert lic_line(c, "b")["Used"] == "1"


def test_update_licenses(clean, users):
    c = clean
    job = start(c, "a", hold=True, user="herdu1")
    r = c.run(["scontrol", "update", f"jobid={job}", "Licenses=zz"], user="herdu1")
    assert r.rc == 1 and r.err == f"Invalid license specification for job {job}\n", r
    r = c.run(["scontrol", "update", f"jobid={job}", "Licenses=a:3"])
    assert r.rc == 1, r
    assert c.show_job(job)["Licenses"] == "a"
    assert c.run(["scontrol", "update", f"jobid={job}", "Licenses=C:2"], user="herdu1").rc == 0
    assert c.show_job(job)["Licenses"] == "C:2"
    # an administrator's change of a running job: the old given back, the new taken
    assert c.run(["scontrol", "release", str(job)]).rc == 0
    c.wait_state(job, "RUNNING")
    assert lic_line(c, "C")["Used"] == "2"
    assert c.run(["scontrol", "update", f"jobid={job}", "Licenses=b"]).rc == 0
    assert lic_line(c, "C")["Used"] == "0" and lic_line(c, "b")["Used"] == "1"


def test_user_cannot_change_a_running_jobs_licenses(clean, users):
    c = clean
    job = start(c, "b", user="herdu1")
    c.wait_state(job, "RUNNING")
    r = c.run(["scontrol", "update", f"jobid={job}", "Licenses=a"], user="herdu1")
    assert r.rc == 1 and "Job is no longer pending execution" in r.err, r


def test_suspend_keeps_requeue_gives_back(clean):
    c = clean
    job = start(c, "a:2")
    c.wait_state(job, "RUNNING")
    assert c.run(["scontrol", "suspend", str(job)]).rc == 0
    c.wait_state(job, "SUSPENDED")
    assert lic_line(c, "a")["Used"] == "2"        # Slurm: a suspended job keeps them
    waiting = start(c, "a")
    wait_reason(c, waiting, "Licenses")
    assert c.run(["scontrol", "resume", str(job)]).rc == 0
    c.wait_state(job, "RUNNING")
    assert c.run(["scontrol", "requeue", str(job)]).rc == 0
    c.wait_state(waiting, "RUNNING")              # given back at the requeue
    c.wait_state(job, "PENDING")


def start_estimate(c, job):
    r = c.run(["squeue", "-h", "--start", "-j", str(job), "-o", "%S"])
    assert r.rc == 0, r
    return r.out.strip()


def epoch(stamp):
    import datetime
    return int(datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S").timestamp())


def test_bf_licenses_plans_the_wait(clean):
    """Without bf_licenses (Slurm's default) a job waiting for licenses gets
    no planned start; with it, backfill plans it at the holder's end."""
    c = clean
    holder = c.sbatch("-L", "a:2", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(holder, "RUNNING")
    waiting = c.sbatch("-L", "a", "-t", "5", "-o", "/dev/null", "--wrap", "sleep 300")
    wait_reason(c, waiting, "Licenses")
    with open(c.conf) as f:
        text = f.read()
    try:
        with open(c.conf, "w") as f:
            f.write(text + "SchedulerParameters=bf_interval=1,bf_resolution=1\n")
        reconfigure(c)
        time.sleep(3)   # backfill passes every second: none plans it
        assert start_estimate(c, waiting) == "N/A"
        with open(c.conf, "w") as f:
            f.write(text + "SchedulerParameters=bf_interval=1,bf_resolution=1,bf_licenses\n")
        reconfigure(c)
        est = c.wait_until("a planned start", lambda: start_estimate(c, waiting) != "N/A" and
                           start_estimate(c, waiting), timeout=20)
        begun = epoch(c.show_job(holder)["StartTime"])
        assert epoch(est) == begun + 600, (est, begun)
        assert squeue_field(c, waiting, "%r") == "Licenses"
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
        reconfigure(c)


def test_reservation_holds_licenses(clean):
    """Licenses= of a reservation: Reserved= while it is active, for its own
    jobs only; the others see them taken (Slurm 22.05 counts the whole
    reservation even while its jobs use them)."""
    c = clean
    r = c.run(["scontrol", "create", "reservation", "ReservationName=lr", "StartTime=now",
               "Duration=60", "Users=root", "Nodes=n2", "Licenses=C:2"])
    assert r.rc == 0, r
    try:
        info = parse_kv(c.run(["scontrol", "show", "res", "lr"]).out)
        assert info["Licenses"] == "C:2", info
        assert lic_line(c, "C") == {"LicenseName": "C", "Total": "3", "Used": "0", "Free": "3",
                                    "Reserved": "2", "Remote": "no"}
        outside = start(c, "C:2")
        wait_reason(c, outside, "Licenses")
        inside = c.sbatch("-L", "C:2", "--reservation=lr", "-o", "/dev/null", "--wrap", "sleep 300")
        c.wait_state(inside, "RUNNING")
        one = start(c, "C:1")
        wait_reason(c, one, "Licenses")
        assert lic_line(c, "C")["Used"] == "2"
        for bad, why in (("Licenses=zz", "Invalid license specification"),
                         ("Licenses=C:4", "Invalid license specification"),
                         ("Licenses=C|a", "Invalid license specification")):
            r = c.run(["scontrol", "create", "reservation", "StartTime=now", "Duration=5",
                       "Users=root", "Nodes=n1", bad])
            assert r.rc == 1 and why in r.err, (bad, r)
        r = c.run(["scontrol", "create", "reservation", "StartTime=now", "Duration=5",
                   "Users=root", "Licenses=a"])
        assert r.rc == 1 and "Invalid node name specified" in r.err, r
        assert c.run(["scontrol", "update", "reservation", "ReservationName=lr",
                      "Licenses=C:3"]).rc == 0
        assert lic_line(c, "C")["Reserved"] == "3"
    finally:
        cancel_all(c, wait_idle=False)   # n2 shows reserved until the delete
        assert c.run(["scontrol", "delete", "reservation", "lr"]).rc == 0
    assert lic_line(c, "C")["Reserved"] == "0"


def test_reconfigure_changes_totals(clean):
    c = clean
    job = start(c, "a:2")
    c.wait_state(job, "RUNNING")
    with open(c.conf) as f:
        text = f.read()
    with open(c.conf, "w") as f:
        f.write(text.replace(LICENSES, "Licenses=a:5;d:1,d\n"))
    reconfigure(c)
    assert show_lic(c) == ("LicenseName=a\n    Total=5 Used=2 Free=3 Reserved=0 Remote=no\n"
                           "LicenseName=d\n    Total=2 Used=0 Free=2 Reserved=0 Remote=no\n")
    more = start(c, "a:3,d:2")
    c.wait_state(more, "RUNNING")
    assert submit(c, "b", hold=True)["rc"] == RC_INVALID_LICENSES   # b is gone


def test_bad_licenses_line_is_refused(clean):
    c = clean
    with open(c.conf) as f:
        text = f.read()
    try:
        for bad in ("a:x", "a:-1", "a:1:2", "a|b"):
            with open(c.conf, "w") as f:
                f.write(text.replace(LICENSES, f"Licenses={bad}\n"))
            r = c.run(["scontrol", "reconfigure"])
            assert r.rc == 1 and f"invalid value '{bad}' for key 'Licenses'" in r.err, r
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
    assert lic_line(c, "a")["Total"] == "2"       # the running values stayed


def test_none_configured(users):
    c = start_cluster(1)
    try:
        c.wire = Wire(c)
        assert show_lic(c) == "No licenses configured in Slurm.\n"
        assert show_lic(c, "a") == "No licenses configured in Slurm.\n"
        reply = submit(c, "a", hold=True)
        assert reply["rc"] == RC_INVALID_LICENSES, reply
    finally:
        stop_cluster(c)


def test_restart_keeps_what_jobs_hold(clean):
    c = clean
    running = start(c, "a|b")
    c.wait_state(running, "RUNNING")
    held = start(c, "b:1", hold=True)
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not os.path.exists(f"/proc/{pid}/stat") or
                 open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z")
    c.restart_ctld()
    c.wait_until("the controller back", c.ping_ok, timeout=30)
    assert lic_line(c, "a")["Used"] == "1"
    assert c.show_job(held)["Licenses"] == "b:1"
    assert c.show_job(running)["Licenses"] == "a|b"
    second = start(c, "a:2")
    wait_reason(c, second, "Licenses")
