"""Reservations as an administrator and a user meet them: scontrol create,
show, update and delete in Slurm's words and layout; the creations Slurm
refuses (busy nodes, overlaps, no users, bad times, not an administrator);
--reservation jobs that run only on its nodes and only once it starts;
other jobs kept off reserved nodes, also a long job that would run into a
future reservation while a short one runs; RESERVED and MAINT in sinfo; a
reservation across a controller restart; DAILY moving on, a plain one
gone at its end.  One shared 4-node cluster (2 CPUs per node)."""
import os
import re
import signal
import time

import pytest

from cmd_helpers import clean, squeue_field, stays, wait_reason  # noqa: F401

TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def scontrol(c, *args, user=None):
    return c.run(["scontrol", *args], user=user)


def create(c, *spec, user=None):
    """scontrol create reservation SPEC...: the name it was given."""
    r = scontrol(c, "create", "reservation", *spec, user=user)
    m = re.fullmatch(r"Reservation created: (\S+)\n", r.out)
    assert r.rc == 0 and m and r.err == "", r
    return m.group(1)


def delete(c, name):
    r = scontrol(c, "delete", f"ReservationName={name}")
    assert r.rc == 0 and r.out == "" and r.err == "", r


def show(c, name):
    r = scontrol(c, "-o", "show", "reservation", name)
    assert r.rc == 0, r
    return dict(re.findall(r"(\w+)=(\S*)", r.out))


def no_reservations(c):
    r = scontrol(c, "show", "reservation")
    return r.rc == 0 and r.out == "No reservations in the system\n"


@pytest.fixture
def empty(clean):
    """No job and no reservation before and after the test."""
    c = clean
    for name in re.findall(r"ReservationName=(\S+)", scontrol(c, "show", "res").out):
        delete(c, name)
    yield c
    from cmd_helpers import cancel_all
    cancel_all(c, wait_idle=False)
    for name in re.findall(r"ReservationName=(\S+)", scontrol(c, "show", "res").out):
        delete(c, name)
    assert no_reservations(c)


def running_on(c, job_id, timeout=60):
    c.wait_state(job_id, "RUNNING", timeout=timeout)
    return squeue_field(c, job_id, "%N")


def test_create_show_update_delete(empty):
    c = empty
    assert no_reservations(c)
    name = create(c, "StartTime=now+1hour", "Duration=60", "Nodes=n1", "Users=root")
    assert re.fullmatch(r"root_\d+", name)
    r = scontrol(c, "show", "reservation", name)
    assert r.rc == 0, r
    lines = r.out.split("\n")
    assert re.fullmatch(rf"ReservationName={name} StartTime={TS} EndTime={TS} Duration=01:00:00",
                        lines[0]), r.out
    assert lines[1:] == [
        "   Nodes=n1 NodeCnt=1 CoreCnt=2 Features=(null) PartitionName=(null) Flags=SPEC_NODES",
        "   TRES=cpu=2",
        "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE "
        "BurstBuffer=(null) Watts=n/a",
        "   MaxStartDelay=(null)", "", ""], r.out
    one = scontrol(c, "-o", "show", "res")
    assert one.out.count("\n") == 1 and " Nodes=n1 NodeCnt=1 " in one.out, one

    # a name of one's own; NodeCnt from the default partition
    assert create(c, "ReservationName=team", "StartTime=now+1hour", "EndTime=now+2hours",
                  "NodeCnt=2", "Accounts=root", "Flags=MAINT,DAILY") == "team"
    t = show(c, "team")
    assert (t["NodeCnt"], t["PartitionName"], t["Flags"], t["Accounts"], t["Users"]) == \
        ("2", "debug", "MAINT,DAILY", "root", "(null)"), t
    assert t["Nodes"] == "n[2-3]", t   # n1 is the other one's then

    # sinfo -T: Slurm's table, the name column as wide as the longest name
    r = c.run(["sinfo", "-T"])
    w = max(9, len(name))
    assert r.rc == 0 and r.out.split("\n")[0] == \
        f"{'RESV_NAME':<{w}}     STATE           START_TIME             END_TIME     DURATION  NODELIST", r
    assert re.fullmatch(rf"{name:<{w}}  INACTIVE  {TS}  {TS}     01:00:00  n1", r.out.split("\n")[1]), r
    assert re.fullmatch(rf"{'team':<{w}}  INACTIVE  {TS}  {TS}     01:00:00  n\[2-3\]",
                        r.out.split("\n")[2]), r
    assert len(c.run(["sinfo", "-T", "-h"]).out.splitlines()) == 2

    r = scontrol(c, "update", f"Reservation={name}", "Duration=20", "Flags+=WEEKLY")
    assert r.rc == 0 and r.out == "Reservation updated.\n", r
    u = show(c, name)
    assert (u["Duration"], u["Flags"]) == ("00:20:00", "WEEKLY,SPEC_NODES"), u
    r = scontrol(c, "update", "ReservationName=team", "Flags-=DAILY", "Users=root")
    assert r.rc == 0, r
    assert (show(c, "team")["Flags"], show(c, "team")["Users"]) == ("MAINT", "root")
    r = scontrol(c, "update", "Reservation=nosuch", "Duration=20")
    assert r.rc == 1 and r.err == ("Error updating the reservation: Requested reservation is invalid\n"
                                   "slurm_update error: Requested reservation is invalid\n"), r
    r = scontrol(c, "update", f"Reservation={name}", "Color=red")
    assert r.rc == 1 and r.err == \
        "scontrol: error: Unknown parameter Color=red.  No reservation update.\n", r

    r = scontrol(c, "show", "reservation", "nosuch")
    assert r.rc == 1 and r.out == "Reservation nosuch not found\n", r
    r = scontrol(c, "delete", "ReservationName=nosuch")
    assert r.rc == 1 and r.err == \
        "delete_reservation ReservationName=nosuch: Requested reservation is invalid\n", r
    delete(c, name)
    delete(c, "team")
    assert no_reservations(c)
    r = c.run(["sinfo", "-T"])
    assert r.rc == 0 and r.out == "No reservations in the system\n", r


def test_refused_creations(empty, users):
    c = empty
    busy = c.sbatch("-w", "n4", "-t", "30", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(busy, "RUNNING")
    note = ("Note, unless nodes are directly requested a reservation must exist in a single "
            "partition.\nIf no partition is requested the default partition is assumed.\n")
    # a running job there, also when the window starts before its time limit ends
    for start in ("now", "now+10minutes"):
        for flags in ([], ["Flags=MAINT"]):
            r = scontrol(c, "create", "res", f"StartTime={start}", "Duration=10", "Nodes=n4",
                         "Users=root", *flags)
            assert r.rc == 1 and r.err == "Error creating the reservation: Requested nodes are busy\n" \
                and r.out == note, r
    # after its time limit the node is free; IGNORE_JOBS takes it now
    later = create(c, "StartTime=now+1hour", "Duration=10", "Nodes=n4", "Users=root")
    ign = create(c, "StartTime=now", "Duration=10", "Nodes=n4", "Users=root", "Flags=IGNORE_JOBS")
    # all four nodes cannot be had now; three can, and not the busy one
    delete(c, ign)
    r = scontrol(c, "create", "res", "StartTime=now", "Duration=10", "NodeCnt=4", "Users=root")
    assert r.rc == 1 and r.err == "Error creating the reservation: Requested nodes are busy\n", r
    three = create(c, "StartTime=now", "Duration=10", "NodeCnt=3", "Users=root")
    assert show(c, three)["Nodes"] == "n[1-3]"
    # overlapping another reservation, unless OVERLAP (or MAINT)
    r = scontrol(c, "create", "res", "StartTime=now", "Duration=10", "Nodes=n1", "Users=root")
    assert r.rc == 1 and r.err == ("Error creating the reservation: Requested reservation "
                                   "overlaps with another reservation\n"), r
    both = create(c, "StartTime=now", "Duration=10", "Nodes=n1", "Users=root", "Flags=OVERLAP")
    # what scontrol itself refuses, in Slurm's words
    cases = {
        ("StartTime=now", "Duration=10", "Nodes=n2"):
            "Either Users/Groups and/or Accounts must be specified.  No reservation created.",
        ("Duration=10", "Nodes=n2", "Users=root"):
            "A start time must be given.  No reservation created.",
        ("StartTime=now", "Nodes=n2", "Users=root"):
            "An end time or duration must be given.  No reservation created.",
        ("StartTime=now+1hour", "EndTime=now", "Nodes=n2", "Users=root"):
            "Start time cannot be after end time.  No reservation created.",
        ("StartTime=now", "Duration=10", "Users=root"):
            "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  "
            "No reservation created.",
        ("StartTime=now", "Duration=10", "Nodes=n2", "Users=root", "Flags=bogus"):
            "Error parsing flags bogus.  No reservation created.",
    }
    for spec, text in cases.items():
        r = scontrol(c, "create", "reservation", *spec)
        assert r.rc == 1 and r.err == f"scontrol: error: {text}\n" and r.out == "", (spec, r)
    # what the controller refuses
    server = {
        ("StartTime=now-1hour", "Duration=10", "Nodes=n2", "Users=root"): "Invalid time specified",
        ("StartTime=now", "Duration=10", "Nodes=nx9", "Users=root"): "Invalid node name specified",
        ("StartTime=now", "Duration=10", "Nodes=n2", "Users=nosuchuser"): "Invalid user id",
        ("StartTime=now", "Duration=10", "Nodes=n2", "Accounts=nosuchacct"):
            "Invalid account or account/partition combination specified",
        ("ReservationName=" + three, "StartTime=now+5hours", "Duration=10", "Nodes=n2",
         "Users=root"): "Duplicate reservation name",
        ("StartTime=now", "Duration=10", "NodeCnt=1", "Users=root", "PartitionName=nop"):
            "Invalid partition name specified",
        ("StartTime=now+5hours", "Duration=10", "Nodes=n2", "Users=root", "Flags=PART_NODES"):
            "Reservation flag PART_NODES is not supported",
    }
    for spec, text in server.items():
        r = scontrol(c, "create", "reservation", *spec)
        assert r.rc == 1 and r.err == f"Error creating the reservation: {text}\n", (spec, r)
    # only operators and administrators
    r = scontrol(c, "create", "res", "StartTime=now+5hours", "Duration=10", "Nodes=n2",
                 "Users=herdu1", user="herdu1")
    assert r.rc == 1 and r.err == "Error creating the reservation: Access/permission denied\n", r
    r = scontrol(c, "delete", f"Reservation={later}", user="herdu1")
    assert r.rc == 1 and r.err == \
        f"delete_reservation Reservation={later}: Access/permission denied\n", r
    r = scontrol(c, "update", f"Reservation={later}", "Duration=5", user="herdu1")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    for name in (later, three, both):
        delete(c, name)


def test_reservation_jobs(empty, users):
    c = empty
    name = create(c, "ReservationName=lab", "StartTime=now+1hour", "Duration=60", "Nodes=n2",
                  "Users=herdu1")
    out = os.path.join(c.workdir("herdu1"), "resv-job.out")
    job = c.sbatch("--reservation=lab", "-o", out, "--wrap", "printenv SLURM_JOB_RESERVATION",
                   user="herdu1")
    wait_reason(c, job, "Reservation")
    assert squeue_field(c, job, "%v") == "lab"
    r = c.run(["squeue", "-h", "-R", "lab", "-o", "%i %v"])
    assert r.rc == 0 and r.out == f"{job} lab\n", r
    r = c.run(["squeue", "-h", "--reservation=nosuch"])
    assert r.rc == 0 and r.out == "", r
    assert c.show_job(job)["Reservation"] == "lab"
    # not a user of it; no such reservation
    r = c.run(["sbatch", "--reservation=lab", "--wrap", "true"], user="herdu2")
    assert r.rc == 1 and r.err == \
        "sbatch: error: Batch job submission failed: Access denied to requested reservation\n", r
    r = c.run(["sbatch", "--reservation=nosuch", "--wrap", "true"], user="herdu1")
    assert r.rc == 1 and r.err == \
        "sbatch: error: Batch job submission failed: Requested reservation is invalid\n", r
    # scontrol update job Reservation=: one the job's user may use
    held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user="herdu1")
    r = scontrol(c, "update", f"JobId={held}", "Reservation=lab")
    assert r.rc == 0, r
    assert c.show_job(held)["Reservation"] == "lab"
    other = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user="herdu2")
    r = scontrol(c, "update", f"JobId={other}", "Reservation=lab")
    assert r.rc == 1 and r.err == f"Access denied to requested reservation for job {other}\n", r
    assert "Reservation" not in c.show_job(other)
    c.run(["scancel", str(held), str(other)])
    # a job without a reservation does not show one
    plain = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_done(plain)
    assert "Reservation" not in c.show_job(plain)
    assert squeue_field(c, plain, "%v") == "(null)"
    # the reservation starts: the job runs there and only there
    r = scontrol(c, "update", "Reservation=lab", "StartTime=now")
    assert r.rc == 0, r
    c.wait_done(job)
    assert squeue_field(c, job, "%T %N") == "COMPLETED n2"
    with open(out) as f:
        assert f.read() == "lab\n"
    r = c.run(["srun", "--reservation=lab", "-N1", "printenv", "SLURMD_NODENAME"], user="herdu1")
    assert r.rc == 0 and r.out == "n2\n", r
    r = c.run(["salloc", "--reservation=lab", "-N1", "sh", "-c",
               "echo $SLURM_JOB_NODELIST $SLURM_JOB_RESERVATION"], user="herdu1")
    assert r.rc == 0 and r.out == "n2 lab\n", r
    r = c.run(["srun", "--reservation=lab", "-N1", "true"], user="herdu2")
    assert r.rc == 1 and "Access denied to requested reservation" in r.err, r
    many = [c.sbatch("--reservation=lab", "-o", "/dev/null", "--wrap", "sleep 300", user="herdu1")
            for _ in range(3)]
    assert running_on(c, many[0]) == "n2"
    assert running_on(c, many[1]) == "n2"   # 2 CPUs on n2: two of them
    assert stays(lambda: c.job_state(many[2]) == "PENDING", 2.0)
    delete_busy = scontrol(c, "delete", "ReservationName=lab")
    assert delete_busy.rc == 1 and "Requested reservation is in use" in delete_busy.err, delete_busy
    assert name == "lab"
    for job in many:
        c.run(["scancel", str(job)])


def test_other_jobs_keep_off_reserved_nodes(empty):
    c = empty
    name = create(c, "StartTime=now", "Duration=60", "Nodes=n[1-2]", "Users=herdu1")
    three = c.sbatch("-N", "3", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    two = c.sbatch("-N", "2", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    # the backfill pass starts it (every bf_interval, 30 s): a generous wait
    assert running_on(c, two, timeout=150) == "n[3-4]"
    assert c.job_state(three) == "PENDING"
    assert stays(lambda: c.job_state(three) == "PENDING", 2.0)
    for job in (two, three):
        c.run(["scancel", str(job)])
    c.wait_done(two)
    delete(c, name)


def test_long_job_waits_for_a_future_reservation_a_short_one_runs(empty):
    c = empty
    name = create(c, "StartTime=now+1hour", "Duration=60", "Nodes=ALL", "Users=herdu1")
    long_job = c.sbatch("-N", "1", "-t", "120", "-o", "/dev/null", "--wrap", "sleep 300")
    short_job = c.sbatch("-N", "1", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    running_on(c, short_job, timeout=150)   # by the backfill pass (bf_interval 30 s)
    assert c.job_state(long_job) == "PENDING"
    assert stays(lambda: c.job_state(long_job) == "PENDING", 2.0)
    c.run(["scancel", str(long_job), str(short_job)])
    c.wait_done(short_job)
    delete(c, name)


def node_states(c, *args):
    r = c.run(["sinfo", "-h", "-N", *args, "-o", "%N %t %T"])
    assert r.rc == 0, r
    return {line.split()[0]: tuple(line.split()[1:]) for line in r.out.splitlines()}


def test_sinfo_reserved_and_maint(empty):
    c = empty
    maint = create(c, "StartTime=now", "Duration=60", "Nodes=n3", "Users=root", "Flags=MAINT")
    resv = create(c, "StartTime=now", "Duration=60", "Nodes=n4", "Users=root")
    future = create(c, "StartTime=now+1hour", "Duration=60", "Nodes=n1", "Users=root")
    states = node_states(c)
    assert states == {"n1": ("idle", "idle"), "n2": ("idle", "idle"),
                      "n3": ("maint", "maint"), "n4": ("resv", "reserved")}, states
    r = c.run(["sinfo"])
    assert r.rc == 0 and re.search(r"^debug\*\s+up\s+infinite\s+1\s+maint n3$", r.out, re.M) \
        and re.search(r"^debug\*\s+up\s+infinite\s+1\s+resv n4$", r.out, re.M), r
    assert set(node_states(c, "-t", "resv")) == {"n4"}
    assert c.run(["scontrol", "show", "node", "n3"]).out.count(" State=IDLE+MAINTENANCE+RESERVED ") == 1
    assert c.run(["scontrol", "show", "node", "n4"]).out.count(" State=IDLE+RESERVED ") == 1
    assert set(node_states(c, "-t", "maint")) == {"n3"}
    # a job in the reservation: the node shows its jobs, as Slurm's does
    job = c.sbatch("--reservation=" + resv, "-o", "/dev/null", "--wrap", "sleep 300")
    assert running_on(c, job) == "n4"
    assert node_states(c)["n4"][0] in ("mix", "alloc")
    c.run(["scancel", str(job)])
    c.wait_done(job)
    for name in (maint, resv, future):
        delete(c, name)
    c.wait_nodes_idle()


def test_survives_a_controller_restart(empty):
    c = empty
    name = create(c, "ReservationName=keep", "StartTime=now+1hour", "Duration=90",
                  "NodeCnt=2", "Accounts=root", "Flags=WEEKLY")
    before = show(c, name)
    job = c.sbatch("--reservation=keep", "-o", "/dev/null", "--wrap", "true")
    wait_reason(c, job, "Reservation")
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not c.daemon_pids("herdctld"), timeout=30)
    c.restart_ctld()
    c.wait_until("the controller back", c.ping_ok, timeout=60)
    after = show(c, name)
    assert after == {**before, "State": "INACTIVE"}, (before, after)
    assert c.show_job(job)["Reservation"] == "keep"
    wait_reason(c, job, "Reservation", timeout=60)
    # the name sequence goes on after the restart
    n1 = int(create(c, "StartTime=now+3hours", "Duration=10", "Nodes=n4", "Users=root")
             .split("_")[1])
    c.run(["scancel", str(job)])
    c.wait_done(job)
    delete(c, name)
    delete(c, f"root_{n1}")


def test_daily_moves_on_a_plain_one_ends(empty):
    c = empty
    t0 = time.time()
    daily = create(c, "StartTime=now", "EndTime=now+10", "Nodes=n1", "Users=root", "Flags=DAILY")
    plain = create(c, "StartTime=now", "EndTime=now+10", "Nodes=n2", "Users=root")

    def start_of(name):
        return time.mktime(time.strptime(show(c, name)["StartTime"], "%Y-%m-%dT%H:%M:%S"))

    # ended, it starts again a day after it first did
    c.wait_until("the daily reservation's next occurrence",
                 lambda: start_of(daily) > t0 + 3600, timeout=90)
    assert abs(start_of(daily) - (t0 + 86400)) < 60, show(c, daily)
    d = show(c, daily)
    assert d["State"] == "INACTIVE" and d["Flags"] == "DAILY,SPEC_NODES", d
    assert re.fullmatch(r"00:00:(0\d|10)", d["Duration"]), d
    c.wait_until("the plain one gone", lambda: scontrol(c, "show", "res", plain).rc == 1,
                 timeout=60)
    r = scontrol(c, "show", "res", plain)
    assert r.out == f"Reservation {plain} not found\n", r
    delete(c, daily)


def test_pending_reasons_of_reserved_nodes(empty):
    c = empty
    other = create(c, "StartTime=now", "Duration=60", "Nodes=ALL", "Users=root")
    job = c.sbatch("-t", "10", "-o", "/dev/null", "--wrap", "true", user="herdu1")
    wait_reason(c, job, "ReqNodeNotAvail, May be reserved for other job", timeout=30)
    # a maintenance reservation may take nodes another one holds
    maint = create(c, "StartTime=now", "Duration=60", "Nodes=ALL", "Users=root", "Flags=MAINT")
    wait_reason(c, job, "ReqNodeNotAvail, Reserved for maintenance", timeout=30)
    assert c.job_state(job) == "PENDING"
    delete(c, maint)
    delete(c, other)
    c.wait_done(job)   # nothing reserved any more: it runs


def test_flex_jobs_may_use_other_nodes(empty):
    c = empty
    flex = create(c, "StartTime=now", "Duration=60", "Nodes=n1", "Users=herdu1", "Flags=FLEX")
    job = c.sbatch("--reservation=" + flex, "-N", "2", "-t", "10", "-o", "/dev/null",
                   "--wrap", "sleep 300", user="herdu1")
    nodes = running_on(c, job)
    assert nodes.startswith("n[1,") or nodes == "n[1-2]", nodes   # its own node and another
    c.run(["scancel", str(job)])
    c.wait_done(job)
    delete(c, flex)


def seconds(hms):
    """scontrol's [D-]HH:MM:SS (or MM:SS) as seconds."""
    days, _, rest = hms.rpartition("-")
    secs = 0
    for part in rest.split(":"):
        secs = secs * 60 + int(part)
    return secs + int(days or 0) * 86400


def stamp(ts):
    return time.mktime(time.strptime(ts, "%Y-%m-%dT%H:%M:%S"))


def test_running_jobs_end_with_their_reservation(empty):
    """ResvOverRun=0 (the default): a job still running at its reservation's
    end ends then, TIMEOUT as at a time limit; ResvOverRun=1: it runs on,
    its time limit now ending it a minute after the reservation's end."""
    c = empty
    name = create(c, "StartTime=now", "EndTime=now+25", "Nodes=n3", "Users=root")
    job = c.sbatch("--reservation=" + name, "-o", "/dev/null", "--wrap", "sleep 600")
    assert running_on(c, job) == "n3"
    c.wait_state(job, "TIMEOUT", timeout=120)
    assert c.show_job(job)["Reason"] == "TimeLimit"
    c.wait_until("the reservation gone", lambda: scontrol(c, "show", "res", name).rc == 1,
                 timeout=60)
    with open(c.conf) as f:
        saved = f.read()
    try:
        with open(c.conf, "w") as f:
            f.write(saved + "ResvOverRun=1\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        name = create(c, "StartTime=now", "EndTime=now+20", "Nodes=n3", "Users=root")
        end = stamp(show(c, name)["EndTime"])
        job = c.sbatch("--reservation=" + name, "-o", "/dev/null", "--wrap", "sleep 600")
        assert running_on(c, job) == "n3"
        before = c.show_job(job)["TimeLimit"]
        c.wait_until("the reservation gone", lambda: scontrol(c, "show", "res", name).rc == 1,
                     timeout=90)
        c.wait_until("the job's time limit cut to the end + 1 minute",
                     lambda: c.show_job(job)["TimeLimit"] != before, timeout=30)
        j = c.show_job(job)
        assert j["JobState"] == "RUNNING", j
        assert stamp(j["StartTime"]) + seconds(j["TimeLimit"]) == end + 60, j
    finally:
        with open(c.conf, "w") as f:
            f.write(saved)
        assert c.run(["scontrol", "reconfigure"]).rc == 0
