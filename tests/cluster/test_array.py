"""Job arrays as Slurm documents them (job_array.html, sbatch(1) --array):
ranges, lists, steps and %throttle; one pending record that squeue folds
as A_[..] and -r unfolds; tasks with their own job IDs and SLURM_ARRAY_*;
scancel of an array, a task and a range; scontrol and sacct of tasks;
MaxArraySize; a million-task array; a controller restart.  One 3-node
cluster of 2 CPUs per node, MaxArraySize=1000001."""
import os
import re
import signal
import time

import pytest

from cmd_helpers import cancel_all, read, squeue_field, stays, wait_text
from conftest import Cluster, make_root, stop_cluster


def set_conf(c, key, value):
    """Rewrite (or add, or with value None drop) one key of herd.conf and restart the controller."""
    os.kill(c.ctld_pid(), signal.SIGTERM)
    c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
    with open(c.conf) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith(key + "=")]
    if value is not None:
        lines.append(f"{key}={value}")
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok, timeout=30)
    c.wait_nodes_idle()


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 3)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        set_conf(c, "MaxArraySize", "1000001")
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c)
    yield c
    cancel_all(c)


def ids_rows(c, *args):
    r = c.run(["squeue", "-h", *args])
    assert r.rc == 0, r
    return r.out.split("\n")[:-1]


def test_tasks_environment_and_output(clean):
    c = clean
    wd = c.workdir("herdu1")
    script = ("#!/bin/sh\n"
              "echo id=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID"
              " count=$SLURM_ARRAY_TASK_COUNT min=$SLURM_ARRAY_TASK_MIN"
              " max=$SLURM_ARRAY_TASK_MAX step=$SLURM_ARRAY_TASK_STEP\n")
    r = c.run(["sbatch", "--array=1-7:2"], user="herdu1", cwd=wd, input=script)
    assert r.rc == 0, r
    m = re.fullmatch(r"Submitted batch job (\d+)\n", r.out)
    assert m, r
    a = int(m.group(1))
    seen = {}
    for t in (1, 3, 5, 7):
        # Slurm's default for an array: slurm-%A_%a.out
        text = wait_text(c, os.path.join(wd, f"slurm-{a}_{t}.out"), "step=")
        kv = dict(x.split("=") for x in text.split())
        assert kv["array"] == str(a) and kv["task"] == str(t), text
        assert (kv["count"], kv["min"], kv["max"], kv["step"]) == ("4", "1", "7", "2"), text
        seen[t] = int(kv["id"])
    # Every task has its own job ID; the last to start took the array's.
    assert len(set(seen.values())) == 4
    assert seen[7] == a and all(seen[t] > a for t in (1, 3, 5)), seen
    c.wait_until("all tasks done", lambda: ids_rows(c, "-j", str(a)) == [])
    # squeue names each task A_T, %A its own ID, %F the array, %K the task.
    rows = ids_rows(c, "-t", "all", "-j", str(a), "-o", "%i %A %F %K %T")
    assert sorted(rows) == sorted(f"{a}_{t} {seen[t]} {a} {t} COMPLETED" for t in seen), rows
    # the array and one of its tasks' own IDs both named: each record once
    both = ids_rows(c, "-t", "all", "-j", f"{a},{seen[3]}", "-o", "%i %A %F %K %T")
    assert sorted(both) == sorted(rows), both
    # sacct: one record per task, JobIDRaw its own ID, from the store.
    r = c.run(["sacct", "-X", "-P", "-n", "-j", str(a), "-o", "JobID,JobIDRaw,State"])
    assert r.rc == 0, r
    assert sorted(r.out.split()) == sorted(f"{a}_{t}|{seen[t]}|COMPLETED" for t in seen), r
    r = c.run(["sacct", "-P", "-n", "-j", f"{a}_3", "-o", "JobID,State"])
    assert r.out.split() == [f"{a}_3|COMPLETED", f"{a}_3.batch|COMPLETED"], r


def test_output_patterns(clean):
    c = clean
    wd = c.workdir()
    a = c.sbatch("--array=0,4", "-o", "p-%A-%a-%j.txt", "--wrap", "echo $SLURM_ARRAY_TASK_ID", cwd=wd)
    c.wait_until("both done", lambda: ids_rows(c, "-j", str(a)) == [])
    names = sorted(n for n in os.listdir(wd) if n.startswith(f"p-{a}-"))
    assert len(names) == 2, names
    for n in names:
        _, arr, task, job = n[:-4].split("-")
        assert arr == str(a) and read(os.path.join(wd, n)).strip() == task
        info = c.show_job(f"{a}_{task}")
        assert (info["JobId"], info["ArrayTaskId"]) == (job, task), info
        assert info["StdOut"] == os.path.join(wd, n)


def test_pending_array_is_one_folded_record(clean):
    c = clean
    a = c.sbatch("-H", "--array=0-9%3", "-o", "/dev/null", "--wrap", "true")
    assert ids_rows(c, "-j", str(a), "-o", "%i|%t|%r|%F|%K") == [
        f"{a}_[0-9%3]|PD|JobHeldUser|{a}|0-9%3"]
    # -r: one line per task
    rows = ids_rows(c, "-r", "-j", str(a), "-o", "%i %A %K")
    assert rows == [f"{a}_{t} {a} {t}" for t in range(10)], rows
    # a task of the meta record, alone
    assert ids_rows(c, "-j", f"{a}_4", "-o", "%i") == [f"{a}_4"]
    assert ids_rows(c, "-j", f"{a}_[2-3]", "-o", "%i") == [f"{a}_2", f"{a}_3"]
    info = c.show_job(a)
    assert (info["JobId"], info["ArrayJobId"], info["ArrayTaskId"], info["ArrayTaskThrottle"]) == \
        (str(a), str(a), "0-9%3", "3")   # Slurm: the throttle in ArrayTaskId too
    # a task still in the meta record: shown as that task (Slurm), the ID the array's
    r = c.run(["scontrol", "show", "job", f"{a}_7"])
    assert r.rc == 0 and f"JobId={a} ArrayJobId={a} ArrayTaskId=7 " in r.out, r
    r = c.run(["scontrol", "show", "job", f"{a}_77"])
    assert r.rc == 1 and "Invalid job id specified" in r.err, r


def test_throttle_limits_running_tasks(clean):
    c = clean
    a = c.sbatch("--array=0-5%2", "-o", "/dev/null", "--wrap", "sleep 1")
    most = 0
    reasons = set()
    deadline = time.time() + 60
    while time.time() < deadline:
        rows = ids_rows(c, "-j", str(a), "-o", "%t %r")
        if not rows:
            break
        most = max(most, sum(1 for r in rows if r.startswith("R ")))
        reasons |= {r.split()[1] for r in rows if r.startswith("PD")}
        time.sleep(0.1)
    # 3 nodes x 2 CPUs would run all six at once: the throttle holds it to 2.
    assert most == 2, most
    assert "JobArrayTaskLimit" in reasons, reasons
    rows = ids_rows(c, "-t", "all", "-j", str(a), "-o", "%i %T")
    assert sorted(rows) == sorted(f"{a}_{t} COMPLETED" for t in range(6)), rows


def test_scancel_tasks_ranges_and_array(clean):
    c = clean
    a = c.sbatch("-H", "--array=0-9", "-o", "/dev/null", "--wrap", "true", user="herdu1")
    r = c.run(["scancel", f"{a}_3", f"{a}_[5-6]"], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    assert ids_rows(c, "-j", str(a), "-o", "%i %t") == [f"{a}_[0-2,4,7-9] PD"]
    rows = ids_rows(c, "-t", "CANCELLED", "-j", str(a), "-o", "%i")
    assert sorted(rows) == sorted([f"{a}_3", f"{a}_[5-6]"]), rows
    # another user may not touch it
    r = c.run(["scancel", f"{a}_1"], user="herdu2")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    r = c.run(["scancel", str(a)], user="herdu2")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    # the whole array, in one word
    r = c.run(["scancel", str(a)], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    assert ids_rows(c, "-j", str(a)) == []
    assert ids_rows(c, "-t", "all", "-j", str(a), "-o", "%i %T")[0] == \
        f"{a}_[0-2,4,7-9] CANCELLED"
    r = c.run(["scancel", "-v", f"{a}_"], user="herdu1")
    assert r.rc == 1 and "Invalid job id" in r.err, r


def test_scancel_running_task_then_array(clean):
    c = clean
    a = c.sbatch("--array=0-3", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_until("4 tasks running", lambda: len(ids_rows(c, "-t", "R", "-j", str(a))) == 4)
    own = int(squeue_field(c, f"{a}_1", "%A"))
    r = c.run(["scancel", f"{a}_1"])
    assert r.rc == 0, r
    assert c.wait_done(own) == "CANCELLED"
    assert sorted(ids_rows(c, "-j", str(a), "-o", "%i %t")) == \
        sorted(f"{a}_{t} R" for t in (0, 2, 3))
    # a task's own ID names that task only
    other = int(squeue_field(c, f"{a}_2", "%A"))
    assert other != a
    assert c.run(["scancel", str(other)]).rc == 0
    assert c.wait_done(other) == "CANCELLED"
    assert len(ids_rows(c, "-j", str(a))) == 2
    assert c.run(["scancel", str(a)]).rc == 0
    c.wait_until("the array gone", lambda: ids_rows(c, "-j", str(a)) == [])
    assert sorted(ids_rows(c, "-t", "all", "-j", str(a), "-o", "%i %T")) == \
        sorted(f"{a}_{t} CANCELLED" for t in range(4))


def test_scancel_filters_cancel_only_what_matches(clean):
    """scancel -t PENDING must not take an array's running tasks with it."""
    c = clean
    a = c.sbatch("--array=0-9%2", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_until("2 running", lambda: len(ids_rows(c, "-t", "R", "-j", str(a))) == 2)
    r = c.run(["scancel", "-t", "PENDING", "-u", "root"])
    assert r.rc == 0, r
    c.wait_until("no pending", lambda: ids_rows(c, "-t", "PD", "-j", str(a)) == [])
    assert stays(lambda: len(ids_rows(c, "-t", "R", "-j", str(a))) == 2, 1.0)


def test_scontrol_update_hold_release_a_task(clean):
    c = clean
    a = c.sbatch("-H", "--array=0-4", "-o", "/dev/null", "--wrap", "true")
    r = c.run(["scontrol", "update", f"JobId={a}_4", "Name=four"])
    assert r.rc == 0, r
    r = c.run(["scontrol", "release", f"{a}_2"])
    assert r.rc == 0, r
    own = int(squeue_field(c, f"{a}_2", "%A"))
    assert c.wait_done(own) == "COMPLETED"
    rows = ids_rows(c, "-j", str(a), "-o", "%i %j %r")
    assert sorted(rows) == sorted([f"{a}_[0-1,3] wrap JobHeldUser", f"{a}_4 four JobHeldUser"]), rows
    assert c.run(["scontrol", "release", str(a)]).rc == 0
    c.wait_until("the rest done", lambda: ids_rows(c, "-j", str(a)) == [])
    assert ids_rows(c, "-t", "all", "-j", str(a), "-o", "%T").count("COMPLETED") == 5


@pytest.mark.parametrize("spec, message", [
    ("5-1", "Batch job submission failed: Invalid job array specification"),
    ("x", "Batch job submission failed: Invalid job array specification"),
    ("1-7:0", "Batch job submission failed: Invalid job array specification"),
    ("1,,2", "Batch job submission failed: Invalid job array specification"),
    ("1000001", "Batch job submission failed: Invalid job array specification"),
    ("0-2000000", "Batch job submission failed: Invalid job array specification"),
])
def test_bad_array_specs(clean, spec, message):
    c = clean
    before = ids_rows(c, "-t", "all", "-o", "%A")
    r = c.run(["sbatch", f"--array={spec}", "--wrap", "true"])
    assert r.rc == 1 and r.out == "", r   # Slurm 22.05: 1, whether sbatch or the controller refuses
    assert r.err == f"sbatch: error: {message}\n", r
    assert ids_rows(c, "-t", "all", "-o", "%A") == before   # nothing half-submitted


def test_max_array_size_default(clean):
    c = clean
    set_conf(c, "MaxArraySize", None)
    try:
        r = c.run(["sbatch", "--array=1001", "--wrap", "true"])
        assert r.rc == 1 and "Invalid job array specification" in r.err, r
        a = c.sbatch("-H", "--array=0-1000", "--wrap", "true")
        assert ids_rows(c, "-j", str(a), "-o", "%i") == [f"{a}_[0-1000]"]
    finally:
        set_conf(c, "MaxArraySize", "1000001")


def test_million_task_array_is_one_record(clean):
    c = clean
    a = c.sbatch("-H", "--array=0-999999", "--wrap", "true")
    assert ids_rows(c, "-j", str(a), "-o", "%i %t") == [f"{a}_[0-999999] PD"]
    assert len(ids_rows(c, "-r", "-j", str(a), "-o", "%i")) == 1000000
    r = c.run(["scancel", f"{a}_[0-499999]"])
    assert r.rc == 0, r
    assert ids_rows(c, "-j", str(a), "-o", "%i") == [f"{a}_[500000-999999]"]
    # ... as one record of the cancelled set (one ID), not 500,000
    rows = ids_rows(c, "-t", "CANCELLED", "-j", str(a), "-o", "%i %A")
    assert rows == [f"{a}_[0-499999] {a + 1}"], rows
    b = c.sbatch("-H", "--wrap", "true")
    assert b == a + 2, (a, b)
    r = c.run(["sacct", "-X", "-n", "-P", "-j", str(a), "-o", "JobID,State"])
    assert r.out.splitlines() == [f"{a}_[500000-999999]|PENDING",
                                  f"{a}_[0-499999]|CANCELLED by 0"], r


def test_array_survives_controller_kill(clean):
    c = clean
    a = c.sbatch("--array=0-5%2", "-o", "/dev/null", "--wrap", "sleep 3")
    c.wait_until("2 running", lambda: len(ids_rows(c, "-t", "R", "-j", str(a))) == 2)
    before = sorted(ids_rows(c, "-j", str(a), "-o", "%i %A"))
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok, timeout=30)
    assert sorted(ids_rows(c, "-j", str(a), "-o", "%i %A")) == before
    c.wait_until("all done", lambda: ids_rows(c, "-j", str(a)) == [], timeout=60)
    rows = ids_rows(c, "-t", "all", "-j", str(a), "-o", "%i %T")
    assert sorted(rows) == sorted(f"{a}_{t} COMPLETED" for t in range(6)), rows


def test_dependency_on_whole_array(clean):
    """afterok:A waits for every task of A; afternotok:A holds once all
    ended and one failed; afterok of a failed array never is."""
    c = clean
    wd = c.workdir()
    a = c.sbatch("--array=0-2", "-o", "/dev/null", "--wrap",
                 "sleep 1; [ $SLURM_ARRAY_TASK_ID != 1 ]", cwd=wd)
    ok = c.sbatch("-d", f"afterok:{a}", "-o", "/dev/null", "--wrap", "true", cwd=wd)
    notok = c.sbatch("-d", f"afternotok:{a}", "-o", "/dev/null", "--wrap", "true", cwd=wd)
    anyj = c.sbatch("-d", f"afterany:{a}", "-o", "/dev/null", "--wrap", "true", cwd=wd)
    # a whole array as Slurm shows it: A_*
    assert squeue_field(c, ok, "%r %E") == f"Dependency afterok:{a}_*(unfulfilled)"
    c.wait_until("the array done", lambda: ids_rows(c, "-j", str(a)) == [])
    assert c.wait_done(notok) == "COMPLETED"
    assert c.wait_done(anyj) == "COMPLETED"
    c.wait_until("never satisfied",
                 lambda: squeue_field(c, ok, "%r") == "DependencyNeverSatisfied")


def test_dependency_on_one_task(clean):
    c = clean
    a = c.sbatch("-H", "--array=0-3", "-o", "/dev/null", "--wrap", "true")
    dep = c.sbatch("-d", f"afterok:{a}_2", "-o", "/dev/null", "--wrap", "true")
    assert squeue_field(c, dep, "%E") == f"afterok:{a}_2(unfulfilled)"
    assert c.run(["scontrol", "release", f"{a}_2"]).rc == 0
    assert c.wait_done(dep) == "COMPLETED"
    # the rest of the array is still held: only task 2 counted
    assert ids_rows(c, "-j", str(a), "-o", "%i %r") == [f"{a}_[0-1,3] JobHeldUser"]
    # a task the array does not have is refused at submit
    r = c.run(["sbatch", "-d", f"afterok:{a}_9", "--wrap", "true"])
    assert r.rc == 1 and "Job dependency problem" in r.err, r


def test_aftercorr_pairs_tasks(clean):
    """aftercorr:A: task i of B waits for task i of A only."""
    c = clean
    wd = c.workdir()
    # A's task i takes (3 - i) s: its tasks end in reverse order.
    a = c.sbatch("--array=0-2", "-o", "/dev/null", "--wrap",
                 f"sleep $((3 - $SLURM_ARRAY_TASK_ID)); date +%s.%N > {wd}/a-$SLURM_ARRAY_TASK_ID",
                 cwd=wd)
    b = c.sbatch("--array=0-2", "-d", f"aftercorr:{a}", "-o", "/dev/null", "--wrap",
                 f"date +%s.%N > {wd}/b-$SLURM_ARRAY_TASK_ID", cwd=wd)
    c.wait_until("both arrays done", lambda: ids_rows(c, "-j", f"{a},{b}") == [], timeout=60)
    ends = {i: float(read(f"{wd}/a-{i}")) for i in range(3)}
    starts = {i: float(read(f"{wd}/b-{i}")) for i in range(3)}
    for i in range(3):
        assert starts[i] >= ends[i], (i, ends, starts)
    # B's task 2 did not wait for A's task 0 (which ended last)
    assert starts[2] < ends[0], (ends, starts)
    rows = ids_rows(c, "-t", "all", "-j", str(b), "-o", "%i %T")
    assert sorted(rows) == sorted(f"{b}_{i} COMPLETED" for i in range(3)), rows


def test_pending_task_paths_survive_restart(clean):
    c = clean
    # show job A_T of a task still in the meta record fills %a from the
    # record's std_out_task, which a restarted controller still has.
    a = c.sbatch("-H", "--array=1-3", "-o", "/tmp/arr-%A-%a.out", "--wrap", "true")
    os.kill(c.ctld_pid(), signal.SIGTERM)
    c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok, timeout=30)
    info = c.show_job(f"{a}_2")
    assert (info["ArrayTaskId"], info["StdOut"]) == ("2", f"/tmp/arr-{a}-2.out"), info
