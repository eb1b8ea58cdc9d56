"""Heterogeneous jobs as Slurm's "Heterogeneous Job Support" describes them:
one SUBMIT_JOB with components ("job" is component 0, "het" the others,
doc/protocol.md), each a job of its own with consecutive IDs from the
leader's, shown "L+N" by squeue and sacct and HetJobId=/HetJobOffset=/
HetJobIdSet= by scontrol; started together or not at all; the batch script
on component 0 with SLURM_HET_SIZE and the *_HET_GROUP_N variables; scancel
of the leader ends all, of "L+N" that component once it runs (refused while
pending, in Slurm's words); kept across a controller restart.  The
requests are made here by hand (sbatch's ':' and #SBATCH hetjob come with
the job-option table).  One 4-node cluster of 2 CPUs per node."""
import json
import os
import re
import time

import pytest

from cmd_helpers import stays, wait_text
from conftest import Cluster, make_root, parse_kv, stop_cluster
from test_frames import SUBMIT_JOB, Wire, exchange

NOT_WHOLE = "Operation not permitted on individual component of heterogeneous job"


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        yield c
    finally:
        stop_cluster(c)


def component(**kw):
    job = {"name": "het", "script": "", "hold": False, "argv": [], "env": ["PATH=/usr/bin:/bin"], "cwd": "/tmp",
           "stdout": "/dev/null", "stderr": "", "stdin": "", "partition": "", "nodes": 1,
           "ntasks": 0, "cpus_per_task": 0, "mem_mb": 0, "exclusive": False, "time_limit": -2,
           "submit_host": "h", "umask": 18, "account": "", "comment": ""}
    job.update(kw)
    return job


def submit(c, leader, *others):
    """SUBMIT_JOB with components; returns the reply (rc, job_id)."""
    body = json.dumps({"key": os.urandom(8).hex(), "job": leader, "het": list(others)}).encode()
    return exchange(c.port, Wire(c).request(SUBMIT_JOB, body))


def submitted(c, leader, *others):
    reply = submit(c, leader, *others)
    assert reply["rc"] == 0, reply
    return reply["job_id"]


def rows(c, *args):
    r = c.run(["squeue", "-h", "-t", "all", *args, "-o", "%i %T %D %N"])
    assert r.rc == 0, r
    return [line.split() for line in r.out.splitlines()]


def records(c, arg):
    """scontrol show job ARG, one dict per record."""
    r = c.run(["scontrol", "show", "job", str(arg)])
    assert r.rc == 0, r
    return [parse_kv(block) for block in r.out.split("\n\n") if block.strip()]


def states(c, job):
    """The states of job's records (a het job's: each component's, in order)."""
    def offset(row):
        return int(row[0].partition("+")[2] or 0)
    return [r[1] for r in sorted(rows(c, "-j", str(job)), key=offset)]


def wait_states(c, job, want, timeout=30):
    c.wait_until(f"job {job} {want}", lambda: states(c, job) == want, timeout=timeout)


def cancel(c, *ids):
    for i in ids:
        c.run(["scancel", str(i)])
    for i in ids:
        c.wait_until(f"job {i} to end", lambda: not set(states(c, i)) &
                     {"PENDING", "RUNNING", "COMPLETING"}, timeout=30)


def test_ids_display_env_and_end(c):
    """Two components: IDs L and L+1, shown L+0 and L+1; the script runs on
    component 0's node with the component variables; both end with it, and
    sacct keeps each component's record."""
    out = os.path.join(c.workdir(), "het-env.out")
    script = "#!/bin/sh\nenv | grep '^SLURM' | sort\necho done\n"
    leader = submitted(c, component(script=script, stdout=out, ntasks=1),
                       component(nodes=2, ntasks=2))
    text = wait_text(c, out, "done\n")
    env = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])
    assert env["SLURM_JOB_ID"] == str(leader)
    assert env["SLURM_HET_SIZE"] == "2" and env["SLURM_PACK_SIZE"] == "2"
    assert env["SLURM_JOB_ID_HET_GROUP_0"] == str(leader)
    assert env["SLURM_JOB_ID_HET_GROUP_1"] == str(leader + 1)
    assert env["SLURM_JOB_NUM_NODES_HET_GROUP_0"] == "1"
    assert env["SLURM_JOB_NUM_NODES_HET_GROUP_1"] == "2"
    assert env["SLURM_NTASKS_HET_GROUP_1"] == "2" and env["SLURM_NPROCS_HET_GROUP_1"] == "2"
    assert env["SLURM_TASKS_PER_NODE_HET_GROUP_1"] == "1(x2)"
    assert env["SLURM_JOB_NODELIST"] == env["SLURM_JOB_NODELIST_HET_GROUP_0"]
    assert env["SLURM_JOB_PARTITION_HET_GROUP_1"] == env["SLURM_JOB_PARTITION"]
    assert env["SLURM_JOB_NODELIST_PACK_GROUP_1"] == env["SLURM_JOB_NODELIST_HET_GROUP_1"]
    # the two components' nodes: three different ones
    recs = records(c, leader)
    assert [r["JobId"] for r in recs] == [str(leader), str(leader + 1)], recs
    assert [r["HetJobOffset"] for r in recs] == ["0", "1"]
    assert all(r["HetJobId"] == str(leader) for r in recs)
    assert all(r["HetJobIdSet"] == f"{leader}-{leader + 1}" for r in recs)
    assert [r["JobState"] for r in recs] == ["COMPLETED", "COMPLETED"]
    assert env["SLURM_JOB_NODELIST_HET_GROUP_1"] == recs[1]["NodeList"]
    # squeue: the leader's ID names both, "L+N" one
    assert [r[0] for r in rows(c, "-j", str(leader))] == [f"{leader}+0", f"{leader}+1"]
    assert [r[0] for r in rows(c, "-j", f"{leader}+1")] == [f"{leader}+1"]
    assert [r["JobId"] for r in records(c, f"{leader}+1")] == [str(leader + 1)]
    # sacct: each component's record, L+0 with its batch step
    r = c.run(["sacct", "-n", "-P", "-j", str(leader), "-o", "JobID,JobIDRaw,State"])
    assert r.rc == 0, r
    assert r.out.splitlines() == [f"{leader}+0|{leader}|COMPLETED",
                                  f"{leader}+0.batch|{leader}.batch|COMPLETED",
                                  f"{leader}+1|{leader + 1}|COMPLETED"], r
    r = c.run(["sacct", "-n", "-P", "-j", f"{leader}+1", "-o", "JobID,State"])
    assert r.out.splitlines() == [f"{leader}+1|COMPLETED"], r


def test_all_or_nothing(c):
    """Component 0 fits now, component 1 does not: neither starts (Slurm:
    all scheduled at the same time, or deferred); once there is room for
    both, both start at once."""
    hog = c.sbatch("-o", "/dev/null", "-N3", "--exclusive", "--wrap", "sleep 300")
    c.wait_state(hog, "RUNNING")
    leader = submitted(c, component(script="#!/bin/sh\nsleep 300\n"), component(nodes=2))
    assert stays(lambda: states(c, leader) == ["PENDING", "PENDING"],
                 3.0), rows(c, "-j", str(leader))
    cancel(c, hog)
    wait_states(c, leader, ["RUNNING", "RUNNING"])
    recs = records(c, leader)
    assert recs[0]["StartTime"] == recs[1]["StartTime"], recs
    cancel(c, leader)
    assert states(c, leader) == ["CANCELLED", "CANCELLED"]


def test_cancel_components(c):
    """While pending only the whole job may be cancelled ("L+1" and the
    component's own ID are refused in Slurm's words); once running, "L+1"
    ends that component alone and the leader's ID ends the rest."""
    leader = submitted(c, component(script="#!/bin/sh\nsleep 300\n", hold=True),
                       component(hold=True))
    for name in (f"{leader}+1", str(leader + 1)):
        r = c.run(["scancel", name])
        assert (r.rc, r.err) == (1, f"scancel: error: Kill job error on job id {name}: "
                                    f"{NOT_WHOLE}\n"), r
    assert states(c, leader) == ["PENDING", "PENDING"]
    r = c.run(["scontrol", "release", str(leader)])   # the leader's ID: both
    assert r.rc == 0, r
    wait_states(c, leader, ["RUNNING", "RUNNING"])
    r = c.run(["scancel", f"{leader}+1"])
    assert r.rc == 0, r
    c.wait_state(leader + 1, "CANCELLED")
    assert stays(lambda: states(c, leader) == ["RUNNING", "CANCELLED"], 1.0), states(c, leader)
    cancel(c, leader)
    assert states(c, leader) == ["CANCELLED", "CANCELLED"]


def test_refused_whole(c):
    """A het job is checked whole: an array in any component, or a
    component no node could run, refuses the submission and makes nothing."""
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%A"]).out.split()
    reply = submit(c, component(script="#!/bin/sh\ntrue\n"), component(array="1-2"))
    assert reply["rc"] == 2086, reply   # Invalid job array specification
    reply = submit(c, component(script="#!/bin/sh\ntrue\n"), component(nodes=9))
    assert reply["rc"] != 0, reply
    reply = submit(c, component(script="#!/bin/sh\ntrue\n"), component(partition="nosuch"))
    assert reply["rc"] == 2000, reply   # Invalid partition name specified
    r = c.run(["sbatch", "--array=1-2", "-N1", "--wrap", "true", ":", "-N1"])
    assert (r.rc, r.err) == (1, "sbatch: error: Batch job submission failed: "
                                "Invalid job array specification\n"), r
    assert c.run(["squeue", "-h", "-t", "all", "-o", "%A"]).out.split() == before


def test_kept_across_restart(c):
    """A pending het job comes back whole after a controller restart (the
    store keeps each component's HetJobId and offset), and the next job
    gets the next ID after its components."""
    leader = submitted(c, component(script="#!/bin/sh\nsleep 300\n", hold=True),
                       component(hold=True), component(hold=True, nodes=2))
    os.kill(c.ctld_pid(), 9)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller back", c.ping_ok)
    recs = records(c, leader)
    assert [(r["JobId"], r["HetJobOffset"], r["HetJobIdSet"]) for r in recs] == \
        [(str(leader + k), str(k), f"{leader}-{leader + 2}") for k in range(3)], recs
    after = c.sbatch("-o", "/dev/null", "-H", "--wrap", "true")
    assert after == leader + 3
    cancel(c, after)
    assert c.run(["scontrol", "release", str(leader)]).rc == 0
    wait_states(c, leader, ["RUNNING"] * 3)
    cancel(c, leader)


def test_sbatch_hetjob_lines_and_srun_het_group(c):
    """sbatch's #SBATCH hetjob makes the components; srun --het-group=1 in
    the script runs its step on component 1's nodes, its tasks there; a
    group past the last is refused in Slurm's words."""
    work = c.workdir()
    out = os.path.join(work, "het-steps.out")
    script = os.path.join(work, "het-steps.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n#SBATCH -N1 -n1\n#SBATCH hetjob\n#SBATCH -N2 -n2\n"
                "srun --het-group=1 sh -c 'echo task $SLURM_PROCID on $SLURMD_NODENAME"
                " of $SLURM_JOB_ID'"
                " | sort\n"
                "srun --het-group=2 true; echo rc=$?\n")
    leader = c.sbatch("-o", out, script)
    text = wait_text(c, out, "rc=")
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])
    nodes = c.run(["scontrol", "show", "hostnames", records(c, leader)[1]["NodeList"]]).out.split()
    assert len(nodes) == 2, records(c, leader)[1]
    assert f"task 0 on {nodes[0]} of {leader}\ntask 1 on {nodes[1]} of {leader}\n" in text, text
    assert ("srun: error: Requested het-group offset exceeds highest hetjob index (2 > 1)\n"
            "rc=1\n") in text, text
    # and the components on the command line, with ':'
    leader = c.sbatch("-o", "/dev/null", "-N1", "--wrap", "true", ":", "-N2")
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])
    assert [r["NumNodes"] for r in records(c, leader)] == ["1", "2"]
    r = c.run(["sacct", "--json", "-j", str(leader)])
    assert r.rc == 0, r
    assert [(j["job_id"], j["het"]) for j in json.loads(r.out)["jobs"]] == \
        [(leader, {"job_id": leader, "job_offset": 0}),
         (leader + 1, {"job_id": leader, "job_offset": 1})], r.out
    # -H holds the whole job, as Slurm's sbatch
    held = c.sbatch("-o", "/dev/null", "-H", "-N1", "--wrap", "true", ":", "-N1")
    assert [r["Reason"] for r in records(c, held)] == ["JobHeldUser", "JobHeldUser"]
    cancel(c, held)


def test_salloc_components(c):
    """salloc with ':' gets every component at once; its command sees
    SLURM_HET_SIZE and each component's variables; its end ends them all."""
    r = c.run(["salloc", "-N1", ":", "-N2", "-n2", "sh", "-c",
               "echo size=$SLURM_HET_SIZE id1=$SLURM_JOB_ID_HET_GROUP_1"
               " nodes1=$SLURM_JOB_NUM_NODES_HET_GROUP_1 tasks1=$SLURM_NTASKS_HET_GROUP_1"])
    assert r.rc == 0, r
    m = re.search(r"Granted job allocation (\d+)", r.err)
    assert m, r
    leader = int(m.group(1))
    assert r.out == f"size=2 id1={leader + 1} nodes1=2 tasks1=2\n", r
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])


def test_requeue_and_suspend_through_the_leader(c):
    """requeue, suspend and resume act on the whole job through its leader
    (every component queued again, frozen, thawed); on a component they are
    refused in Slurm's words."""
    leader = c.sbatch("-o", "/dev/null", "-N1", "--wrap", "sleep 300", ":", "-N1")
    wait_states(c, leader, ["RUNNING", "RUNNING"])
    r = c.run(["scontrol", "suspend", f"{leader}+1"])
    assert r.rc == 1 and f"{NOT_WHOLE} for job {leader}+1\n" in r.err, r
    r = c.run(["scontrol", "requeue", str(leader + 1)])
    assert r.rc == 1 and f"Job not heterogeneous job leader for job {leader + 1}\n" in r.err, r
    assert c.run(["scontrol", "suspend", str(leader)]).rc == 0
    wait_states(c, leader, ["SUSPENDED", "SUSPENDED"])
    assert c.run(["scontrol", "resume", str(leader)]).rc == 0
    wait_states(c, leader, ["RUNNING", "RUNNING"])
    first = [r["StartTime"] for r in records(c, leader)]
    assert c.run(["scontrol", "requeue", str(leader)]).rc == 0
    c.wait_until("both started again", lambda: states(c, leader) == ["RUNNING", "RUNNING"] and
                 [r["StartTime"] for r in records(c, leader)] != first, timeout=40)
    recs = records(c, leader)
    assert recs[0]["StartTime"] == recs[1]["StartTime"] and \
        [r["Restarts"] for r in recs] == ["1", "1"], recs
    cancel(c, leader)


def test_srun_step_over_components(c):
    """srun A : B outside an allocation makes a heterogeneous allocation and
    one step over its components: one set of tasks with global task IDs
    (SLURM_PROCID over SLURM_NTASKS, Slurm's one MPI_COMM_WORLD), each part
    on its own component's nodes; the step is L+0.S and L+1.S in sacct; a
    part without a command runs the next one's."""
    show = "$SLURM_PROCID/$SLURM_NTASKS job=$SLURM_JOB_ID node=$SLURMD_NODENAME"
    r = c.run(["srun", "-l", "-N1", "-n1", "sh", "-c", "echo A " + show, ":",
               "-N2", "-n2", "sh", "-c", "echo B " + show])
    assert r.rc == 0, r
    m = re.search(r"job=(\d+)", r.out)
    assert m, r
    leader = int(m.group(1))
    lines = sorted(r.out.splitlines())
    assert [l.split()[:3] for l in lines] == [["0:", "A", "0/3"], ["1:", "B", "1/3"], ["2:", "B", "2/3"]], r
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])
    nodes0 = records(c, leader)[0]["NodeList"]
    assert f"node={nodes0}" in lines[0], (lines, nodes0)
    r = c.run(["sacct", "-n", "-P", "-j", str(leader), "-o", "JobID,State,NTasks"])
    assert r.rc == 0, r
    steps = [l for l in r.out.splitlines() if "." in l.split("|")[0]]
    assert sorted(steps) == [f"{leader}+0.0|COMPLETED|1", f"{leader}+1.0|COMPLETED|2"], r.out
    # the part without a command runs the next one's (Slurm's -n2 : -n1 hostname)
    r = c.run(["srun", "-l", "-n1", ":", "-n2", "sh", "-c", "echo $SLURM_PROCID"])
    assert r.rc == 0 and sorted(r.out.splitlines()) == ["0: 0", "1: 1", "2: 2"], r


def test_srun_step_over_components_in_a_batch_script(c):
    """Inside a heterogeneous batch job: srun A : B and srun --het-group=0,1
    run one step over the components; a step over a component the job does
    not have is refused in Slurm's words; one srun per component still works."""
    work = c.workdir()
    out = os.path.join(work, "het-step.out")
    script = os.path.join(work, "het-step.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n#SBATCH -N1 -n1\n#SBATCH hetjob\n#SBATCH -N2 -n2\n"
                "srun -l sh -c 'echo A $SLURM_PROCID/$SLURM_NTASKS' : "
                "sh -c 'echo B $SLURM_PROCID/$SLURM_NTASKS' | sort\n"
                "srun --het-group=0,1 -l sh -c 'echo C $SLURM_PROCID/$SLURM_NTASKS' | sort\n"
                "srun true : true : true; echo rc=$?\n"
                "srun --het-group=1 -l sh -c 'echo D $SLURM_PROCID/$SLURM_NTASKS' | sort\n")
    leader = c.sbatch("-o", out, script)
    text = wait_text(c, out, "D 1/2")
    assert "0: A 0/3\n1: B 1/3\n2: B 2/3\n" in text, text
    assert "0: C 0/3\n1: C 1/3\n2: C 2/3\n" in text, text
    assert ("srun: error: Attempt to run a job step with het group value of 2, but the job "
            "allocation has maximum value of 1\nrc=1\n") in text, text
    assert "0: D 0/2\n1: D 1/2\n" in text, text
    wait_states(c, leader, ["COMPLETED", "COMPLETED"])


def test_srun_parts_in_a_job_that_is_not_heterogeneous(c):
    """In an allocation of one job, srun A : B runs one step whose tasks run
    each part's command in order (Slurm 20.11's heterogeneous steps)."""
    r = c.run(["salloc", "-n3", "srun", "-l", "-n1", "echo", "A", ":", "-n2", "echo", "B"])
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0: A", "1: B", "2: B"], r


def test_squeue_het_fields(c):
    """squeue -O HetJobID,HetJobIDSet,HetJobOffset (Slurm has no -o letter
    for them): a component's, and N/A for a job that is not heterogeneous,
    as Slurm 22.05 prints them."""
    leader = c.sbatch("-o", "/dev/null", "-N1", "--wrap", "sleep 300", ":", "-N1")
    plain = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    wait_states(c, leader, ["RUNNING", "RUNNING"])
    r = c.run(["squeue", "-j", f"{leader},{plain}", "-O", "JobID,HetJobID,HetJobIDSet,HetJobOffset,Container"])
    assert r.rc == 0, r
    lines = [l.split() for l in r.out.splitlines()]
    assert lines[0] == ["JOBID", "HET_JOB_ID", "HET_JOB_ID_SET", "HET_JOB_OFFSET", "CONTAINER"], r
    assert sorted(lines[1:]) == sorted([
        [str(leader), str(leader), f"{leader}-{leader + 1}", "0", "(null)"],
        [str(leader + 1), str(leader), f"{leader}-{leader + 1}", "1", "(null)"],
        [str(plain), "N/A", "N/A", "N/A", "(null)"]]), r
    cancel(c, leader, plain)
