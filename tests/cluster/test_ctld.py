"""The controller's own rules, seen through the commands: all-or-nothing
allocation of nodes, CPUs and memory; partition state and time limits; a node
that falls silent goes DOWN and its jobs end NODE_FAIL, and it comes back when
its daemon returns; a running job survives kill -9 of the controller.  This
module edits the config and kills daemons, so it has its own cluster:
3 nodes of 4 CPUs and 1000 MB."""
import os
import signal
import subprocess
import time

import pytest

from conftest import Cluster, make_root, stop_cluster


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 3)
    try:
        c.up("--cpus", "4", "--memory", "1000")
        # Two more partitions, as an administrator adds them: edit, restart.
        os.kill(c.ctld_pid(), signal.SIGTERM)
        c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
        with open(c.conf, "a") as f:
            f.write("PartitionName=short Nodes=n[1-2] MaxTime=1 State=UP\n")
            f.write("PartitionName=closed Nodes=n3 State=DOWN\n")
        c.restart_ctld()
        wait_idle(c)
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    yield c
    c.run(["scancel", "-u", "root"])
    c.run(["scancel", "-u", "herdu1"])
    wait_idle(c)


def squeue(c, job_id, fmt):
    r = c.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", fmt])
    assert r.rc == 0, r
    return r.out.strip()


def node_states(c):
    r = c.run(["sinfo", "-h", "-N", "-o", "%N %t"])
    return dict(line.split() for line in r.out.splitlines())


def wait_idle(c):
    """Every node idle (sinfo -N lists a node once per partition)."""
    c.wait_until("all nodes idle",
                 lambda: sorted(node_states(c).items()) == [("n1", "idle"), ("n2", "idle"),
                                                            ("n3", "idle")])


def test_allocation_is_all_or_nothing(clean):
    c = clean
    blocker = c.sbatch("--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    wide = c.sbatch("-N", "3", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_until("the wide job to wait for resources",
                 lambda: squeue(c, wide, "%T %r") == "PENDING Resources")
    # Nothing of it was taken: the two other nodes stay idle.
    assert sorted(node_states(c).values()) == ["alloc", "idle", "idle"]
    assert c.run(["scancel", str(blocker)]).rc == 0
    c.wait_state(wide, "RUNNING")
    assert squeue(c, wide, "%D %N") == "3 n[1-3]"
    assert sorted(node_states(c).values()) == ["mix", "mix", "mix"]


def test_cpus_and_memory_are_counted(clean):
    c = clean
    whole = c.sbatch("-n", "4", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(whole, "RUNNING")
    assert squeue(c, whole, "%C %D") == "4 1"
    host = squeue(c, whole, "%N")
    assert node_states(c)[host] == "alloc"          # every CPU taken
    a = c.sbatch("--mem=600", "-o", "/dev/null", "--wrap", "sleep 300")
    b = c.sbatch("--mem=600", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    nodes = {host, squeue(c, a, "%N"), squeue(c, b, "%N")}
    assert len(nodes) == 3, "1200 MB cannot share a 1000 MB node, nor join the full one"
    third = c.sbatch("--mem=600", "-o", "/dev/null", "--wrap", "true")
    c.wait_until("the third 600 MB job to wait",
                 lambda: squeue(c, third, "%T %r") == "PENDING Resources")
    # Requests no node could ever hold are refused at submit.
    for args in (["-c", "5"], ["--mem=1001"], ["-N", "4"], ["-n", "13"]):
        r = c.run(["sbatch", *args, "--wrap", "true"])
        assert r.rc == 1, (args, r)
        assert r.err.strip().endswith(
            "Batch job submission failed: Requested node configuration is not available"), r


def test_cancel_racing_the_launch(clean):
    """scancel at every moment of a start: before the job is scheduled, while
    its launch is on the way to the node, once it runs.  Every job ends
    CANCELLED and every node is free again."""
    c = clean
    jobs = []
    for i in range(12):
        job_id = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
        if i % 3 == 1:
            c.wait_until("the job to start", lambda: c.job_state(job_id) != "PENDING",
                         interval=0.01)
        elif i % 3 == 2:
            c.wait_state(job_id, "RUNNING")
            time.sleep(0.2)
        assert c.run(["scancel", str(job_id)]).rc == 0
        jobs.append(job_id)
    for job_id in jobs:
        assert c.wait_done(job_id, timeout=30) == "CANCELLED"
    wait_idle(c)


def test_partition_state_and_time_limit(clean):
    c = clean
    closed = c.sbatch("-p", "closed", "-o", "/dev/null", "--wrap", "true")
    too_long = c.sbatch("-p", "short", "-t", "5", "-o", "/dev/null", "--wrap", "true")
    fits = c.sbatch("-p", "short", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(fits) == "COMPLETED"
    assert c.show_job(fits)["TimeLimit"] == "00:01:00"     # MaxTime is the default limit
    c.wait_until("reasons", lambda: squeue(c, closed, "%T %r") == "PENDING PartitionDown")
    assert squeue(c, too_long, "%T %r") == "PENDING PartitionTimeLimit"
    r = c.run(["sinfo", "-h", "-o", "%P %a %l %D"])
    assert r.out.splitlines() == ["debug* up infinite 3", "short up 1:00 2",
                                  "closed down infinite 1"], r


def test_silent_node_goes_down_and_comes_back(clean):
    c = clean
    marker = os.path.join(c.workdir(), "lost-%j.out")
    job_id = c.sbatch("-N", "3", "-o", marker, "--wrap", "echo start; sleep 300")
    c.wait_state(job_id, "RUNNING")
    os.kill(c.herdd_pid("n3"), signal.SIGKILL)
    # SlurmdTimeout is 10 s in herd up's config.
    c.wait_until("n3 to go down", lambda: node_states(c).get("n3") == "down*", timeout=40)
    assert c.wait_done(job_id, timeout=30) == "NODE_FAIL"
    assert squeue(c, job_id, "%r") == "NodeDown"
    show = c.run(["scontrol", "show", "node", "n3"]).out
    assert "State=DOWN+NOT_RESPONDING" in show or "State=DOWN*" in show, show
    assert "Reason=Not responding" in show, show
    # The batch script on n1 was stopped too: n1 is free again.
    c.wait_until("n1 and n2 idle",
                 lambda: [node_states(c)[n] for n in ("n1", "n2")] == ["idle", "idle"])
    c.restart_herdd("n3")
    c.wait_until("n3 back", lambda: node_states(c).get("n3") == "idle", timeout=30)
    again = c.sbatch("-N", "3", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(again) == "COMPLETED"


def test_running_job_survives_controller_kill9(clean):
    c = clean
    out = os.path.join(c.workdir("herdu1"), "survive-%j.out")
    job_id = c.sbatch("-o", out, "--wrap", "echo start; sleep 4; echo done", user="herdu1")
    c.wait_state(job_id, "RUNNING")
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    time.sleep(1)
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok)
    assert c.job_state(job_id) in ("RUNNING", "COMPLETED")
    assert c.wait_done(job_id) == "COMPLETED"
    with open(out.replace("%j", str(job_id))) as f:
        assert f.read() == "start\ndone\n"
    # The next ID follows on: nothing reused.
    assert c.sbatch("-H", "-o", "/dev/null", "--wrap", "true") == job_id + 1


def test_full_disk_refuses_submissions_cleanly(users):
    """When the store cannot commit, sbatch is told so, no half-made job is
    left behind, the controller stays up, and acknowledged jobs stay."""
    c = Cluster(make_root(), 1)
    state = os.path.join(c.dir, "state")
    os.makedirs(state, mode=0o700)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", state]).returncode:
        pytest.skip("this machine cannot mount a tmpfs (needs CAP_SYS_ADMIN)")
    try:
        c.up()
        script = os.path.join(c.workdir(), "big.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n# " + "x" * 60000 + "\ntrue\n")
        printed, refused = [], 0
        for _ in range(12):
            r = c.run(["sbatch", "--parsable", "-H", "-o", "/dev/null", script])
            if r.rc == 0:
                printed.append(int(r.out.strip()))
            else:
                assert r.err.strip() == ("sbatch: error: Batch job submission failed: "
                                         "Unable to save state (store commit failed)"), r
                refused += 1
        assert printed and refused, (printed, refused)
        assert c.ping_ok()
        r = c.run(["squeue", "-h", "-o", "%i"])
        assert [int(x) for x in r.out.split()] == printed, r
        # After a crash, exactly the acknowledged jobs are there.
        os.kill(c.ctld_pid(), signal.SIGKILL)
        c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
        c.restart_ctld()
        c.wait_until("the controller", c.ping_ok)
        r = c.run(["squeue", "-h", "-o", "%i"])
        assert [int(x) for x in r.out.split()] == printed, r
    finally:
        stop_cluster(c)
        subprocess.run(["umount", "-l", state])
