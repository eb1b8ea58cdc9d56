"""Preemption and gang scheduling (doc/scheduling.md, "Preemption and gang
scheduling") with real processes: PreemptType=preempt/partition_prio with
each PreemptMode (CANCEL, REQUEUE, SUSPEND), GraceTime with --signal,
PreemptExemptTime, preempt/qos, and gang time-slicing on an
OverSubscribe=FORCE partition.

One 2-node cluster of 2 CPUs each.  Each test writes its own preemption
settings after herd up's configuration and reconfigures; the victims run
on n1 (partitions low*) and the preemptor in the higher tier there
(high); the gang partition is n2."""
import os
import time

import pytest

from conftest import Cluster, make_root, stop_cluster
from cmd_helpers import cancel_all as cancel_jobs, read, squeue_field, stays, wait_reason, write_script

PARTS = """\
PartitionName=low Nodes=n1 PriorityTier=1 PreemptMode=CANCEL
PartitionName=lowrq Nodes=n1 PriorityTier=1 PreemptMode=REQUEUE
PartitionName=lowsus Nodes=n1 PriorityTier=1 PreemptMode=SUSPEND
PartitionName=lowgrace Nodes=n1 PriorityTier=1 PreemptMode=CANCEL GraceTime=5
PartitionName=high Nodes=n1 PriorityTier=10
PartitionName=gang Nodes=n2 OverSubscribe=FORCE
"""


@pytest.fixture(scope="module")
def c():
    c = Cluster(make_root(), 2)
    try:
        c.up("--cpus", "2", "--memory", "2000")
        with open(c.conf) as f:
            c.base_conf = f.read()
        yield c
    finally:
        stop_cluster(c)


def cancel_all(c):
    """Every job cancelled, and both nodes idle (sinfo -N lists a node once
    per partition here)."""
    cancel_jobs(c, wait_idle=False)

    def idle():
        r = c.run(["sinfo", "-h", "-N", "-o", "%N %t"])
        states = dict(line.split() for line in r.out.splitlines() if line.strip())
        return r.rc == 0 and len(states) == 2 and set(states.values()) == {"idle"}
    c.wait_until("both nodes idle", idle, timeout=30)


def configure(c, settings):
    with open(c.conf, "w") as f:
        f.write(c.base_conf + settings + PARTS)
    r = c.run(["scontrol", "reconfigure"])
    assert r.rc == 0, r


@pytest.fixture
def prio(c):
    cancel_all(c)
    configure(c, "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\n")
    yield c
    cancel_all(c)


def submit(c, *args, script=None):
    wd = c.workdir()
    if script:
        path = write_script(os.path.join(wd, f"job-{time.time_ns()}.sh"), script)
        return c.sbatch("-o", "/dev/null", *args, path, cwd=wd)
    return c.sbatch("-o", "/dev/null", *args, "--wrap", "sleep 300", cwd=wd)


def counter_script(path):
    """A job that counts, 5 times a second, into path."""
    return f"#!/bin/bash\ni=0\nwhile true; do i=$((i+1)); echo $i > {path}.tmp; " \
           f"mv {path}.tmp {path}; sleep 0.2; done\n"


def count(path):
    try:
        return int(read(path).strip() or 0)
    except (OSError, ValueError):
        return 0


def stands_still(c, path, job):
    """The job is SUSPENDED and its counter did not move for a second."""
    before = count(path)
    time.sleep(1.0)
    return c.job_state(job) == "SUSPENDED" and count(path) == before


def advances(c, path, what):
    start = count(path)
    c.wait_until(what, lambda: count(path) > start + 2, timeout=30)


def test_partition_prio_cancel(prio):
    c = prio
    victim = submit(c, "-p", "low", "-n", "2")
    c.wait_state(victim, "RUNNING")
    job = submit(c, "-p", "high", "-n", "2")
    assert c.wait_state(victim, "PREEMPTED", timeout=60) == "PREEMPTED"
    c.wait_state(job, "RUNNING", timeout=60)
    assert c.show_job(victim)["JobState"] == "PREEMPTED"
    # (polled: with a PostgreSQL backend the records arrive through the outbox)
    c.wait_until("sacct showing PREEMPTED", lambda: c.run(
        ["sacct", "-n", "-X", "-P", "-j", str(victim), "-o", "State"]).out.split() == ["PREEMPTED"],
        timeout=30)


def test_partition_prio_requeue(prio):
    c = prio
    victim = submit(c, "-p", "lowrq", "-n", "2")
    c.wait_state(victim, "RUNNING")
    job = c.sbatch("-o", "/dev/null", "-p", "high", "-n", "2", "--wrap", "sleep 4",
                   cwd=c.workdir())
    c.wait_state(job, ("RUNNING", "COMPLETED"), timeout=60)
    c.wait_state(job, "COMPLETED", timeout=60)
    # requeued, and it runs again once the preemptor is done
    c.wait_state(victim, "RUNNING", timeout=60)
    assert c.show_job(victim)["Restarts"] == "1"
    want = [f"{victim}|PREEMPTED", f"{victim}|RUNNING"]
    c.wait_until("sacct -D showing the preempted run", lambda: c.run(
        ["sacct", "-n", "-X", "-D", "-P", "-j", str(victim), "-o", "JobID,State"]
    ).out.splitlines() == want, timeout=30)
    # without -D: the latest run only
    r = c.run(["sacct", "-n", "-X", "-P", "-j", str(victim), "-o", "JobID,State"])
    assert r.rc == 0 and r.out.splitlines() == [f"{victim}|RUNNING"], r


def test_partition_prio_suspend(prio):
    c = prio
    path = os.path.join(c.workdir(), "suspend.count")
    victim = submit(c, "-p", "lowsus", "-n", "2", script=counter_script(path))
    c.wait_state(victim, "RUNNING")
    advances(c, path, "the victim counting")
    job = submit(c, "-p", "high", "-n", "2")
    c.wait_state(job, "RUNNING", timeout=60)
    assert c.job_state(victim) == "SUSPENDED"
    # frozen: the counter stops (once the node has the suspend) and stays
    c.wait_until("the suspended victim's counter to stop",
                 lambda: stands_still(c, path, victim), timeout=30)
    frozen = count(path)
    assert stays(lambda: count(path) == frozen, seconds=2.0), \
        f"the suspended job still counts: {frozen} -> {count(path)}"
    assert c.job_state(job) == "RUNNING" and c.job_state(victim) == "SUSPENDED"
    # the preemptor ends: the victim is resumed and counts on
    r = c.run(["scancel", str(job)])
    assert r.rc == 0, r
    c.wait_state(victim, "RUNNING", timeout=30)
    advances(c, path, "the resumed victim counting again")
    assert c.show_job(victim)["Restarts"] == "0"


def test_grace_time_signal_checkpoints(prio):
    c = prio
    ckpt = os.path.join(c.workdir(), "grace.ckpt")
    started = os.path.join(c.workdir(), "grace.started")
    for p in (ckpt, started):
        if os.path.exists(p):
            os.unlink(p)
    script = f"#!/bin/bash\ntrap 'echo checkpointed > {ckpt}' USR1\ntouch {started}\n" \
             "while true; do sleep 0.5; done\n"
    victim = submit(c, "-p", "lowgrace", "-n", "2", "--signal=B:USR1@30", script=script)
    c.wait_state(victim, "RUNNING")
    c.wait_until("the victim's script running", lambda: os.path.exists(started), timeout=30)
    job = submit(c, "-p", "high", "-n", "2")
    c.wait_until("the checkpoint file", lambda: os.path.exists(ckpt), timeout=30)
    assert read(ckpt) == "checkpointed\n"
    # the trap ran and the job lives on through GraceTime, then it is ended
    c.wait_state(victim, "PREEMPTED", timeout=60)
    c.wait_state(job, "RUNNING", timeout=60)


def test_preempt_exempt_time(c):
    cancel_all(c)
    configure(c, "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\n"
                 "PreemptExemptTime=00:00:30\n")
    try:
        victim = submit(c, "-p", "low", "-n", "2")
        c.wait_state(victim, "RUNNING")
        job = submit(c, "-p", "high", "-n", "2")
        wait_reason(c, job, "Resources", timeout=20)
        # young: not a victim yet
        assert stays(lambda: c.job_state(victim) == "RUNNING", seconds=2.0)
        assert c.job_state(job) == "PENDING"
        # once it ran PreemptExemptTime it is
        c.wait_state(victim, "PREEMPTED", timeout=90)
        c.wait_state(job, "RUNNING", timeout=60)
    finally:
        cancel_all(c)


def test_preempt_qos(c):
    cancel_all(c)
    for args in (["add", "qos", "pq_low"], ["add", "qos", "pq_high"],
                 ["modify", "qos", "pq_high", "set", "preempt=pq_low"],
                 ["modify", "qos", "pq_low", "set", "preemptmode=requeue"]):
        r = c.run(["sacctmgr", "-i", *args])
        assert r.rc == 0, r
    configure(c, "PreemptType=preempt/qos\nPreemptMode=CANCEL\n")
    try:
        # the same partition: only the QOS lets one preempt the other
        other = submit(c, "-p", "high", "-n", "2", "--qos=normal")
        c.wait_state(other, "RUNNING")
        blocked = submit(c, "-p", "high", "-n", "2", "--qos=pq_high")
        wait_reason(c, blocked, "Resources", timeout=20)
        assert stays(lambda: c.job_state(other) == "RUNNING", seconds=2.0)
        r = c.run(["scancel", str(other), str(blocked)])
        assert r.rc == 0, r
        cancel_all(c)
        victim = submit(c, "-p", "high", "-n", "2", "--qos=pq_low")
        c.wait_state(victim, "RUNNING")
        job = submit(c, "-p", "high", "-n", "2", "--qos=pq_high")
        c.wait_state(job, "RUNNING", timeout=60)
        # pq_low's PreemptMode=requeue: back in the queue, Restarts=1
        c.wait_until("the victim requeued",
                     lambda: c.show_job(victim).get("Restarts") == "1", timeout=60)
        assert c.job_state(victim) == "PENDING"
    finally:
        cancel_all(c)


def test_gang_time_slicing(c):
    cancel_all(c)
    configure(c, "PreemptMode=SUSPEND,GANG\nSchedulerTimeSlice=5\n")
    try:
        paths = [os.path.join(c.workdir(), f"gang{i}.count") for i in (1, 2)]
        for p in paths:
            if os.path.exists(p):
                os.unlink(p)
        a = submit(c, "-p", "gang", "-n", "2", script=counter_script(paths[0]))
        c.wait_state(a, "RUNNING")
        b = submit(c, "-p", "gang", "-n", "2", script=counter_script(paths[1]))
        seen = {a: set(), b: set()}
        at_suspend = {}   # a job's count when it was first seen suspended
        switches, last = 0, None
        deadline = time.time() + 90
        while time.time() < deadline and switches < 3:
            r = c.run(["squeue", "-h", "-j", f"{a},{b}", "-o", "%i %T"])
            assert r.rc == 0, r
            states = dict(line.split() for line in r.out.splitlines())
            sa, sb = states.get(str(a)), states.get(str(b))
            assert not (sa == "RUNNING" and sb == "RUNNING"), "both run at once"
            seen[a].add(sa)
            seen[b].add(sb)
            for job, st, path in ((a, sa, paths[0]), (b, sb, paths[1])):
                if st == "SUSPENDED" and job not in at_suspend:
                    at_suspend[job] = count(path)
            running = a if sa == "RUNNING" else b if sb == "RUNNING" else None
            if running and last and running != last:
                switches += 1
            last = running or last
            time.sleep(0.2)
        assert switches >= 3, f"{switches} switches in 90 s: {seen}"
        assert {"RUNNING", "SUSPENDED"} <= seen[a] and {"RUNNING", "SUSPENDED"} <= seen[b]
        # both made progress after a turn suspended, and the suspended one
        # of them stands still
        c.wait_until("both jobs counting after their suspension",
                     lambda: count(paths[0]) > at_suspend[a] + 5 and
                     count(paths[1]) > at_suspend[b] + 5, timeout=60)
        c.wait_until("a suspended gang job standing still",
                     lambda: stands_still(c, paths[0], a) or stands_still(c, paths[1], b),
                     timeout=60)
        # GANG taken away: no more turns; the suspended one resumes once
        # the running one is gone
        configure(c, "")
        states = {a: c.job_state(a), b: c.job_state(b)}
        assert sorted(states.values()) == ["RUNNING", "SUSPENDED"], states
        running = a if states[a] == "RUNNING" else b
        waiting = b if running == a else a
        r = c.run(["scancel", str(running)])
        assert r.rc == 0, r
        c.wait_state(waiting, "RUNNING", timeout=30)
    finally:
        cancel_all(c)


def test_bad_preempt_settings_refused(c):
    for bad, key in (("PreemptType=preempt/bogus\n", "PreemptType"),
                     ("PreemptMode=SOMETIMES\n", "PreemptMode"),
                     ("SchedulerTimeSlice=1\n", "SchedulerTimeSlice")):
        with open(c.conf, "w") as f:
            f.write(c.base_conf + bad + PARTS)
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc != 0 and key in r.err, r
    configure(c, "")


def test_bad_preempt_settings_stop_herdctld(c):
    """At start the same check: herdctld refuses, naming the key (before it
    opens its store or its port)."""
    bad = os.path.join(c.root, "bad-preempt.conf")
    with open(bad, "w") as f:
        f.write(c.base_conf + "PreemptMode=REQUEUE,CANCEL\n")
    r = c.run(["herdctld", "-D", "-f", bad], timeout=30)
    assert r.rc == 1, r
    assert "PreemptMode=REQUEUE,CANCEL is invalid" in r.err, r
