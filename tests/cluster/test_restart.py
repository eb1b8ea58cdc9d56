"""Crashes: a job ID that sbatch printed survives `kill -9` of the controller,
and a running job survives `kill -9` of its node daemon.  This module kills
daemons, so it has its own cluster."""
import os
import signal
import threading
import time

import pytest


def submit_loop(cluster, user, stop, printed, failures):
    """sbatch held jobs in a loop until stop is set; record every printed ID."""
    while not stop.is_set():
        r = cluster.run(["sbatch", "--parsable", "-H", "-o", "/dev/null", "--wrap", "true"],
                        user=user, timeout=120)
        if r.rc == 0:
            printed.append(int(r.out.strip().split(";")[0]))
        else:
            failures.append(r.err.strip())
            time.sleep(0.05)


def test_ctld_kill9_during_submission_burst(cluster):
    stop = threading.Event()
    printed, failures = [], []
    threads = [threading.Thread(target=submit_loop,
                                args=(cluster, user, stop, printed, failures))
               for user in ("herdu1", "herdu2", None, "herdu1", "herdu2", None)]
    for t in threads:
        t.start()
    try:
        cluster.wait_until("some submissions", lambda: len(printed) >= 20, timeout=60,
                           interval=0.05)
        before_kill = len(printed)
        killed = cluster.ctld_pid()
        os.kill(killed, signal.SIGKILL)
        time.sleep(1.0)
        assert not cluster.ping_ok()
        cluster.restart_ctld()
        cluster.wait_until("the restarted controller", cluster.ping_ok, timeout=30)
        assert cluster.ctld_pid() != killed
        n = len(printed)
        cluster.wait_until("submissions after the restart", lambda: len(printed) >= n + 20,
                           timeout=60, interval=0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=180)
    assert before_kill >= 20
    assert len(printed) == len(set(printed)), "an ID was printed twice"
    r = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"], timeout=60)
    assert r.rc == 0, r
    known = {int(x) for x in r.out.split()}
    lost = sorted(set(printed) - known)
    assert not lost, f"{len(lost)} printed IDs lost after kill -9: {lost[:20]}"
    r = cluster.run(["squeue", "-h", "-o", "%i %T %r", "-j", str(printed[0])])
    assert r.out.split()[1:] == ["PENDING", "JobHeldUser"], r
    cluster.run(["scancel", *map(str, printed)], timeout=120)


def test_herdd_kill9_keeps_running_job(cluster):
    cluster.wait_nodes_idle()
    wd = cluster.workdir("herdu1")
    marker = os.path.join(wd, "herdd-kill.marker")
    job_id = cluster.sbatch("-o", "nodekill-%j.out", "--wrap",
                            f"echo start; while [ ! -e {marker} ]; do sleep 0.2; done; echo done",
                            user="herdu1", cwd=wd)
    cluster.wait_state(job_id, "RUNNING")
    out = os.path.join(wd, f"nodekill-{job_id}.out")
    # The batch script runs (not merely allocated: a launch still in flight
    # when herdd dies fails and is requeued, as in Slurm).
    cluster.wait_until("the job's first output",
                       lambda: os.path.exists(out) and open(out).read() == "start\n")
    node = cluster.show_job(job_id)["BatchHost"]
    pid = cluster.herdd_pid(node)
    os.kill(pid, signal.SIGKILL)
    cluster.wait_until(f"herdd {node} gone", lambda: cluster.daemon_pids("herdd", node) == [],
                       timeout=10)
    time.sleep(1)
    assert cluster.job_state(job_id) == "RUNNING"
    cluster.restart_herdd(node)
    cluster.wait_until(f"herdd {node} back", lambda: cluster.daemon_pids("herdd", node))
    assert cluster.herdd_pid(node) != pid
    time.sleep(2)
    assert cluster.job_state(job_id) == "RUNNING"
    open(marker, "w").close()
    assert cluster.wait_done(job_id, timeout=60) == "COMPLETED", cluster.show_job(job_id)
    with open(out) as f:
        assert f.read() == "start\ndone\n"
    cluster.wait_nodes_idle()
