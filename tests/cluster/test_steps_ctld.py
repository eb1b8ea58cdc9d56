"""The controller's side of steps, on the wire (doc/protocol.md): jobs that
run no batch script (what salloc and srun make), COMPLETE_ALLOC, the time
limit of such a job, and STEP_CREATE's refusals (wrong user, pending job,
a step larger than the job, bad distribution).  srun and salloc drive the
same messages end to end in test_srun.py / test_salloc.py."""
import json
import os
import time

import pytest

from test_frames import Wire, exchange

SUBMIT_JOB, CANCEL_JOB, STEP_CREATE, STEP_INFO, COMPLETE_ALLOC = 2, 4, 10, 11, 12


@pytest.fixture(scope="module")
def wire(cluster):
    return Wire(cluster)


def alloc_body(**over):
    job = {"name": "alloc", "script": "", "argv": [], "env": [], "cwd": "/tmp",
           "stdout": "", "stderr": "", "stdin": "", "partition": "", "nodes": 0,
           "ntasks": 0, "cpus_per_task": 0, "mem_mb": 0, "exclusive": False,
           "time_limit": -2, "hold": False, "submit_host": "h", "umask": 18, "account": "",
           "comment": "", "alloc": True}
    job.update(over)
    return json.dumps({"key": os.urandom(8).hex(), "job": job}).encode()


def step_body(job_id, **over):
    step = {"name": "", "argv": ["true"], "env": [], "cwd": "/tmp", "num_nodes": 0,
            "num_tasks": 0, "cpus_per_task": 0, "ntasks_per_node": 0, "mem_mb": 0,
            "mem_per_cpu": 0, "distribution": "", "overlap": False, "exact": False,
            "exclusive": False, "req_nodelist": "", "exc_nodelist": "", "time_limit": -2,
            "cpu_bind": "", "io_host": "127.0.0.1", "io_port": 1, "io_key": "k" * 32,
            "stdout": "", "stderr": "", "stdin": "", "stdin_task": 0, "pty": False,
            "mpi": "none", "signal": 0, "signal_time": 0, "launch_addr": "127.0.0.1"}
    step.update(over)
    return json.dumps({"job_id": job_id, "step": step}).encode()


def call(cluster, wire, msg_type, body, user=None):
    reply = exchange(cluster.port, wire.request(msg_type, body, user=user))
    assert reply is not None
    return reply


def submit_alloc(cluster, wire, user="herdu1", **over):
    r = call(cluster, wire, SUBMIT_JOB, alloc_body(**over), user=user)
    assert r["rc"] == 0, r
    return r["job_id"]


def test_alloc_job_runs_nothing_and_completes_on_request(cluster, wire):
    job = submit_alloc(cluster, wire, nodes=2)
    assert cluster.wait_state(job, "RUNNING") == "RUNNING"
    # No batch script anywhere: every node is allocated, but no herdstepd
    # runs for it; a registration round does not call the job lost.
    time.sleep(2)
    assert cluster.job_state(job) == "RUNNING"
    # Another user may not end it.
    r = call(cluster, wire, COMPLETE_ALLOC, json.dumps({"job_id": job, "status": 0}).encode(),
             user="herdu2")
    assert r["rc"] == 2002, r
    r = call(cluster, wire, COMPLETE_ALLOC, json.dumps({"job_id": job, "status": 0}).encode(),
             user="herdu1")
    assert r["rc"] == 0, r
    assert cluster.wait_done(job) == "COMPLETED"
    cluster.wait_nodes_idle()


def test_alloc_job_failed_status_and_cancel(cluster, wire):
    job = submit_alloc(cluster, wire)
    cluster.wait_state(job, "RUNNING")
    call(cluster, wire, COMPLETE_ALLOC, json.dumps({"job_id": job, "status": 3 << 8}).encode(),
         user="herdu1")
    assert cluster.wait_done(job) == "FAILED"
    r = cluster.run(["sacct", "-n", "-X", "-P", "-j", str(job), "-o", "State,ExitCode"])
    assert r.out.split() == ["FAILED|3:0"], r

    job = submit_alloc(cluster, wire)
    cluster.wait_state(job, "RUNNING")
    r = cluster.run(["scancel", str(job)], user="herdu1")
    assert r.rc == 0, r
    # No batch script to wait for: it ends at once.
    assert cluster.wait_done(job, timeout=5) == "CANCELLED"


def test_alloc_job_time_limit(cluster, wire):
    job = submit_alloc(cluster, wire, time_limit=2)
    cluster.wait_state(job, "RUNNING")
    assert cluster.wait_done(job, timeout=15) == "TIMEOUT"


def test_alloc_job_refuses_a_script_or_array(cluster, wire):
    r = call(cluster, wire, SUBMIT_JOB, alloc_body(script="#!/bin/sh\n"), user="herdu1")
    assert r["rc"] == 2072, r
    r = call(cluster, wire, SUBMIT_JOB, alloc_body(array="0-3"), user="herdu1")
    assert r["rc"] == 2072, r


def test_step_create_refusals(cluster, wire):
    cpus = int(cluster.nodes[0].get("CPUs", "0") or 0)
    job = submit_alloc(cluster, wire, nodes=1)
    cluster.wait_state(job, "RUNNING")
    # Not the owner.
    r = call(cluster, wire, STEP_CREATE, step_body(job), user="herdu2")
    assert r["rc"] == 2002, r
    # An unknown job.
    r = call(cluster, wire, STEP_CREATE, step_body(999999), user="herdu1")
    assert r["rc"] == 2017, r
    # More nodes than the job has, or a node outside it: never fits.
    r = call(cluster, wire, STEP_CREATE, step_body(job, num_nodes=2, num_tasks=2), user="herdu1")
    assert r["rc"] == 2014, r
    # Far more CPUs than the node has.
    r = call(cluster, wire, STEP_CREATE, step_body(job, num_tasks=1, cpus_per_task=4096),
             user="herdu1")
    assert r["rc"] == 2014, r
    r = call(cluster, wire, STEP_CREATE, step_body(job, distribution="zigzag"), user="herdu1")
    assert r["rc"] == 2072, r
    r = call(cluster, wire, STEP_CREATE, step_body(job, argv=[]), user="herdu1")
    assert r["rc"] == 2072, r
    r = call(cluster, wire, STEP_CREATE, step_body(job, req_nodelist="nosuch9"), user="herdu1")
    assert r["rc"] == 2023, r
    # None of these made a step.
    info = call(cluster, wire, STEP_INFO, json.dumps({"job_ids": [job]}).encode())
    assert info["rc"] == 0 and info["steps"] == [], info
    cluster.run(["scancel", str(job)])

    # A pending job: Job is pending execution.
    held = submit_alloc(cluster, wire, hold=True)
    r = call(cluster, wire, STEP_CREATE, step_body(held), user="herdu1")
    assert r["rc"] == 2019, r
    cluster.run(["scancel", str(held)])
    # A finished one.
    r = call(cluster, wire, STEP_CREATE, step_body(job), user="herdu1")
    assert r["rc"] == 2021, r


def test_step_launch_failure_is_reported(cluster, wire):
    """srun's I/O port is closed: herdstepd cannot connect, the launch fails
    on the node, and STEP_CREATE says why; the step is recorded FAILED."""
    job = submit_alloc(cluster, wire, nodes=1)
    cluster.wait_state(job, "RUNNING")
    r = call(cluster, wire, STEP_CREATE, step_body(job, io_port=1), user="herdu1")
    assert r["rc"] != 0 and r.get("error"), r
    info = call(cluster, wire, STEP_INFO, json.dumps({"job_ids": [job]}).encode())
    steps = [s for s in info["steps"] if s["step_id"] == 0]
    assert steps and steps[0]["state"] == "FAILED", info
    # The CPUs it would have held are free again: the next step is not busy.
    r = call(cluster, wire, STEP_CREATE, step_body(job, io_port=1), user="herdu1")
    assert r["rc"] != 2016, r
    cluster.run(["scancel", str(job)])


def test_step_larger_than_the_job_is_refused(cluster, wire):
    """More tasks than the job has CPUs (Slurm without --overcommit), or a
    count large enough to make the controller build huge layouts: refused,
    and the controller stays up."""
    job = submit_alloc(cluster, wire, nodes=1)
    cluster.wait_state(job, "RUNNING")
    for body in (step_body(job, num_tasks=2 ** 31 - 1), step_body(job, num_tasks=1000),
                 step_body(job, num_tasks=2 ** 30, cpus_per_task=2 ** 30)):
        r = call(cluster, wire, STEP_CREATE, body, user="herdu1")
        assert r["rc"] == 2014, r
    assert cluster.ping_ok()
    cluster.run(["scancel", str(job)])


def het_step_body(first, *others, **over):
    """STEP_CREATE with "het": the first job's step, then the others'."""
    body = json.loads(step_body(first, **over))
    body["het"] = [json.loads(step_body(j, **over)) for j in others]
    return json.dumps(body).encode()


def test_het_step_create_refusals(cluster, wire):
    """A step over several jobs is one over the components of one
    heterogeneous job, each once, all the caller's: anything else is
    refused whole, and nothing is made."""
    mine = submit_alloc(cluster, wire, nodes=1)
    other = submit_alloc(cluster, wire, nodes=1)
    theirs = submit_alloc(cluster, wire, user="herdu2", nodes=1)
    for job in (mine, other, theirs):
        cluster.wait_state(job, "RUNNING")
    # two jobs that are not components of one heterogeneous job
    r = call(cluster, wire, STEP_CREATE, het_step_body(mine, other), user="herdu1")
    assert r["rc"] == 2072 and "heterogeneous job" in r["error"], r
    # another user's job among the parts
    r = call(cluster, wire, STEP_CREATE, het_step_body(mine, theirs), user="herdu1")
    assert r["rc"] == 2002, r
    # the same job twice
    r = call(cluster, wire, STEP_CREATE, het_step_body(mine, mine), user="herdu1")
    assert r["rc"] == 2072, r
    # more parts than a heterogeneous job may have
    r = call(cluster, wire, STEP_CREATE, het_step_body(mine, *([other] * 128)), user="herdu1")
    assert r["rc"] == 2072, r
    info = call(cluster, wire, STEP_INFO, json.dumps({"job_ids": [mine, other]}).encode())
    assert info["rc"] == 0 and info["steps"] == [], info
    for job in (mine, other, theirs):
        cluster.run(["scancel", str(job)])
