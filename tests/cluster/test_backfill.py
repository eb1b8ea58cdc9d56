"""SchedulerType=sched/backfill as Slurm documents it (sched_config.html,
slurm.conf(5) SchedulerParameters): a short job starts in front of a big one
waiting for nodes when it ends before the big one could start; a long one
does not; a --time-min job shrinks to fit; `squeue --start` shows the plan
(StartTime, SchedNodes) and `sbatch --test-only` the same answer, and both
come true; sched/builtin does not backfill; bad SchedulerParameters are
refused.  One 2-node cluster of 2 CPUs per node, bf_interval=1 and
bf_resolution=1 so that plans are exact to the second."""
import os
import re
import shutil
import subprocess
import time

import pytest

from cmd_helpers import cancel_all, stays
from conftest import BIN, Cluster, make_root, stop_cluster
from pg import set_conf_keys

PARAMS = "bf_interval=1,bf_resolution=1"


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 2)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        set_conf_keys(c, {"SchedulerParameters": PARAMS})
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c)
    yield c
    cancel_all(c)


def submit(c, *args):
    return c.sbatch("-o", "/dev/null", *args)


def stamp(text):
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def field(c, job, fmt):
    r = c.run(["squeue", "-h", "-j", str(job), "-o", fmt])
    assert r.rc == 0, r
    return r.out.strip()


def planned(c, job):
    """The job's (start estimate, SchedNodes) once a backfill pass planned it."""
    def plan():
        start, nodes = field(c, job, "%S %Y").split()
        return (stamp(start), nodes) if start != "N/A" and nodes != "(null)" else None
    return c.wait_until(f"a start estimate for job {job}", plan, timeout=60)


def seconds(limit):
    """scontrol's TimeLimit ([D-]HH:MM:SS or MM:SS) in seconds."""
    days, _, rest = limit.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return (int(days) if days else 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


TEST_ONLY = re.compile(r"sbatch: Job (\d+) to start at (\S+) using (\d+) processors on nodes "
                       r"(\S+) in partition (\S+)\n")


def test_backfill_plan_and_estimates_come_true(clean):
    c = clean
    # n1 busy for 2 minutes
    hog = submit(c, "-w", "n1", "--exclusive", "-t", "2", "--wrap", "sleep 600")
    c.wait_state(hog, "RUNNING")
    hog_end = stamp(c.show_job(hog)["StartTime"]) + 120

    # --test-only: the whole machine once the hog's limit ends it
    r = c.run(["sbatch", "--test-only", "-N", "2", "--exclusive", "-t", "5", "-o", "/dev/null",
               "--wrap", "sleep 600"])
    m = TEST_ONLY.fullmatch(r.err)
    assert r.rc == 0 and m, r
    told = stamp(m.group(2))
    assert abs(told - hog_end) <= 2, (m.group(2), hog_end)
    assert m.group(3, 4, 5) == ("4", "n[1-2]", "debug")

    big = submit(c, "-N", "2", "--exclusive", "-t", "5", "--wrap", "sleep 600")
    assert big == int(m.group(1))   # the ID --test-only named
    est, nodes = planned(c, big)
    assert abs(est - hog_end) <= 2 and nodes == "n[1-2]", (est, hog_end, nodes)
    assert abs(est - told) <= 2
    r = c.run(["squeue", "--start"])
    assert r.rc == 0, r
    head, *rows = r.out.splitlines()
    assert head.split() == ["JOBID", "PARTITION", "NAME", "USER", "ST", "START_TIME", "NODES",
                            "SCHEDNODES", "NODELIST(REASON)"], head
    row = next(l.split() for l in rows if l.split()[0] == str(big))
    assert row[5] == time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(est)) and row[7] == "n[1-2]"
    assert row[8] == "(Resources)", row
    # scontrol show job: the same start and nodes, ending at its limit
    info = c.show_job(big)
    assert abs(stamp(info["StartTime"]) - est) <= 2, (info["StartTime"], est)
    assert stamp(info["EndTime"]) - stamp(info["StartTime"]) == 300, info
    assert info["SchedNodeList"] == "n[1-2]", info

    # a short job ends before the big one could start: it goes now, on n2
    short = submit(c, "-N", "1", "-n", "1", "-t", "1", "--wrap", "sleep 20")
    assert c.wait_state(short, ("RUNNING", "COMPLETED")) in ("RUNNING", "COMPLETED")
    assert field(c, short, "%N") == "n2" or c.job_state(short) == "COMPLETED"
    assert c.job_state(big) == "PENDING"

    # --time-min: ten minutes would delay the big job; shrunk, it fits now
    shrink = submit(c, "-N", "1", "-n", "1", "-t", "10", "--time-min", "1", "--wrap", "sleep 600")
    c.wait_state(shrink, "RUNNING")
    limit = seconds(c.show_job(shrink)["TimeLimit"])
    started = stamp(c.show_job(shrink)["StartTime"])
    assert 60 <= limit <= hog_end - started + 2, (limit, hog_end - started)

    # a long one would delay it: planned after the big job, not started
    long = submit(c, "-N", "1", "-n", "1", "-t", "10", "--wrap", "sleep 600")
    long_est, _ = planned(c, long)
    assert c.job_state(long) == "PENDING"
    assert long_est >= est + 300 - 2, (long_est, est)

    # nothing else changes: the big job starts when and where it was told
    c.wait_state(big, "RUNNING", timeout=hog_end - time.time() + 90)
    info = c.show_job(big)
    assert abs(stamp(info["StartTime"]) - est) <= 15, (info["StartTime"], est)
    assert info["NodeList"] == "n[1-2]"
    assert c.job_state(long) == "PENDING"


def test_builtin_does_not_backfill(c):
    cancel_all(c)
    set_conf_keys(c, {"SchedulerType": "sched/builtin"})
    try:
        hog = submit(c, "-w", "n1", "--exclusive", "-t", "3", "--wrap", "sleep 600")
        c.wait_state(hog, "RUNNING")
        big = submit(c, "-N", "2", "--exclusive", "-t", "5", "--wrap", "sleep 600")
        short = submit(c, "-N", "1", "-n", "1", "-t", "1", "--wrap", "sleep 20")
        c.wait_until("the short job waiting for priority",
                     lambda: field(c, short, "%T %r") == "PENDING Priority")
        assert field(c, big, "%r") == "Resources"
        # bf_interval=1: a backfill pass would have started it within seconds
        assert stays(lambda: c.job_state(short) == "PENDING", seconds=8)
        assert field(c, big, "%S") == "N/A"
    finally:
        cancel_all(c)
        set_conf_keys(c, {"SchedulerType": None})


def test_bad_scheduler_parameters_refused(c):
    bad = os.path.join(c.root, "bad.conf")
    for key, value, named in (("SchedulerParameters", "bf_window=0", "bf_window=0"),
                              ("SchedulerParameters", PARAMS + ",bf_max_job_test=abc",
                               "bf_max_job_test=abc"),
                              ("SchedulerType", "sched/nope", "SchedulerType=sched/nope")):
        with open(c.conf) as f:
            lines = [l for l in f.read().splitlines() if not l.startswith(key + "=")]
        with open(bad, "w") as f:
            f.write("\n".join(lines + [f"{key}={value}"]) + "\n")
        # at start: herdctld says so and stops, before it touches anything
        p = subprocess.run([os.path.join(BIN, "herdctld"), "-f", bad], capture_output=True,
                           text=True, timeout=30, env=c.env())
        assert p.returncode == 1 and named in p.stderr, p
        # at a reconfigure: refused, the running values kept
        shutil.copy(c.conf, bad + ".good")
        shutil.copy(bad, c.conf)
        try:
            r = c.run(["scontrol", "reconfigure"])
            assert r.rc != 0 and named in r.err, r
        finally:
            shutil.copy(bad + ".good", c.conf)
    assert c.ping_ok()
    assert len(c.daemon_pids("herdctld")) == 1
    # the controller still backfills with its values
    assert c.run(["scontrol", "reconfigure"]).rc == 0
