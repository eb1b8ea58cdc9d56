"""The chaos soak (bench/chaos) for two minutes, and the defects it found, each
on its own: what a killed daemon must not leave behind or lose.  The soak
brings its own cluster; the other tests here share one of their own."""
import os
import signal
import subprocess
import sys

import pytest

from conftest import BIN, REPO

CHAOS = os.path.join(REPO, "bench", "chaos")


def job_pids(cluster, job_id):
    """Live processes whose environment says SLURM_JOB_ID=job_id of this
    cluster (other test clusters running beside it have their job 1 too)."""
    needles = (f"SLURM_JOB_ID={job_id}".encode(), f"SLURM_CLUSTER_NAME={cluster.name}".encode())
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
                if not all(n in env for n in needles):
                    continue
            with open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        found.append(int(d))
    return found


def job_cgroups(cluster, node, job_id):
    """The job's cgroup directories (any hierarchy) of that node."""
    scope = f"{cluster.name}_{node}"
    found = []
    for top in os.listdir("/sys/fs/cgroup"):
        base = os.path.join("/sys/fs/cgroup", top)
        for dirpath, dirnames, _ in os.walk(base):
            if os.path.basename(dirpath) == "herd":
                path = os.path.join(dirpath, scope, f"job_{job_id}")
                if os.path.isdir(path):
                    found.append(path)
                dirnames[:] = []
            elif dirpath[len(base):].count("/") >= 4:
                dirnames[:] = []
    return found


def test_killed_batch_herdstepd_leaves_nothing(cluster):
    """kill -9 of a batch job's herdstepd: its node daemon kills the script
    it left running and removes the job's cgroups and spool (before, the
    script ran on unconstrained and the cgroups stayed for good)."""
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd)
    cluster.wait_state(job_id, "RUNNING")
    node = cluster.show_job(job_id)["BatchHost"]
    spool = os.path.join(cluster.dir, "spool", node, f"job{job_id:05d}")
    stepd = cluster.wait_until("the job's herdstepd",
                               lambda: [p for p in cluster.daemon_pids("herdstepd")
                                        if spool in open(f"/proc/{p}/cmdline").read()])
    cluster.wait_until("the job's script", lambda: [p for p in job_pids(cluster, job_id)
                                                    if p not in stepd])
    if not job_cgroups(cluster, node, job_id):
        pytest.skip("no cgroup hierarchy usable here for job steps")
    os.kill(stepd[0], signal.SIGKILL)
    cluster.wait_until("the job's processes killed", lambda: not job_pids(cluster, job_id), timeout=40)
    cluster.wait_until("the job's cgroups removed",
                       lambda: not job_cgroups(cluster, node, job_id), timeout=10)
    assert not os.path.exists(spool)
    assert cluster.wait_done(job_id, timeout=60) == "NODE_FAIL"


def test_chaos_soak_two_minutes():
    """bench/chaos --duration 120: nothing acknowledged lost, nothing run
    twice, every job final, nothing left behind (its own 4-node cluster)."""
    p = subprocess.run([sys.executable, CHAOS, "--duration", "120", "--seed", "13",
                        "--drain", "240", "--pace", "1.5", "--min-gap", "8", "--max-gap", "25",
                        "--bin", BIN],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "violations                 0" in p.stdout, p.stdout[-6000:]


def test_launch_to_a_dead_herdd_requeues_not_holds(cluster):
    """A launch that no node daemon answers (herdd killed, not yet timed out)
    puts the job back in the queue, not held (before: JobHeldAdmin, "launch
    failed requeued held", and it waited for an administrator forever); it
    runs once the node daemons are back, and sacct -D shows the requeue."""
    cluster.wait_nodes_idle()
    nodes = [n["NodeName"] for n in cluster.nodes]
    pids = {n: cluster.herdd_pid(n) for n in nodes}
    for node, pid in pids.items():
        os.kill(pid, signal.SIGKILL)
    try:
        for node in nodes:
            cluster.wait_until(f"herdd {node} gone",
                               lambda: not cluster.daemon_pids("herdd", node), timeout=10)
        job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu2",
                                cwd=cluster.workdir("herdu2"))
        cluster.wait_until("the launch to fail",
                           lambda: int(cluster.show_job(job_id).get("Restarts", 0)) >= 1, timeout=20)
        job = cluster.show_job(job_id)
        assert job["JobState"] == "PENDING", job
        assert job["Reason"] != "launch", job   # "launch failed requeued held"
        r = cluster.run(["squeue", "-h", "-j", str(job_id), "-o", "%r"])
        assert "held" not in r.out, r
    finally:
        for node in nodes:
            if not cluster.daemon_pids("herdd", node):
                cluster.restart_herdd(node)
    assert cluster.wait_done(job_id, timeout=90) == "COMPLETED", cluster.show_job(job_id)
    r = cluster.run(["sacct", "-D", "-X", "-n", "--parsable2", "-j", str(job_id), "-o", "State"])
    states = r.out.split()
    assert len(states) >= 2 and set(states[:-1]) == {"REQUEUED"} and states[-1] == "COMPLETED", r
    cluster.wait_nodes_idle(timeout=60)
