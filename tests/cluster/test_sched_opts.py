"""The job's placement options in the controller (doc/scheduling.md,
"Placement options"), as sbatch(1) has them: --tmp against the nodes'
TmpDisk, --mincpus, -B S:C:T, -N min-max with --use-min-nodes,
--spread-job, -O, --priority (operators and administrators), -k (a failed
node leaves the job, which runs on), -s and --delay-boot kept and shown;
all of it kept over a controller restart and changed by scontrol update.

Jobs come from sbatch with the options (cmd/jobopt_table.c encodes them
into the JOBSPEC keys of doc/protocol.md).  One 4-node cluster of 2 CPUs each; n3 and n4
have TmpDisk=2000, n4 has two sockets of one core (the others one of two)."""
import os
import re

import pytest

from conftest import Cluster, make_root, parse_kv, stop_cluster
from cmd_helpers import cancel_all, stays



def node_line(line):
    m = re.match(r"NodeName=(n\d+) ", line)
    if not m:
        return line
    if m.group(1) == "n4":
        return line + " TmpDisk=2000 Sockets=2 CoresPerSocket=1 ThreadsPerCore=1"
    if m.group(1) == "n3":
        return line + " TmpDisk=2000 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1"
    return line + " Sockets=1 CoresPerSocket=2 ThreadsPerCore=1"


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        with open(c.conf) as f:
            text = "\n".join(node_line(l) for l in f.read().splitlines()) + "\n"
        with open(c.conf, "w") as f:
            # backfill each second: what only backfill starts (a job beside
            # a waiting one of higher priority) starts in seconds, not 30
            f.write(text + "PartitionName=share Nodes=ALL OverSubscribe=YES:2 State=UP\n"
                    "SchedulerParameters=bf_interval=1\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        c.wait_until("n4's two sockets",
                     lambda: "Sockets=2 " in c.run(["scontrol", "show", "node", "n4"]).out)
        yield c
    finally:
        stop_cluster(c)


def all_idle(c):
    r = c.run(["sinfo", "-h", "-N", "-p", "debug", "-o", "%N %t"])
    states = [line.split()[1] for line in r.out.splitlines() if line.strip()]
    return r.rc == 0 and len(states) == 4 and all(s == "idle" for s in states)


@pytest.fixture
def clean(c):
    cancel_all(c, wait_idle=False)
    c.wait_until("all nodes idle", lambda: all_idle(c))
    yield c
    cancel_all(c, wait_idle=False)


def sbatch(c, *args, user=None):
    """sbatch --parsable ARGS --wrap "sleep 300": the Result."""
    return c.run(["sbatch", "--parsable", "-o", "/dev/null", *args, "--wrap", "sleep 300"],
                 user=user, cwd=c.workdir(user))


def submit_script(c, *args):
    r = c.run(["sbatch", "--parsable", *args[:-1], "--wrap", args[-1]], cwd=c.workdir(None))
    assert r.rc == 0, r
    return int(r.out.split(";")[0])


def submit(c, *args, user=None):
    r = sbatch(c, *args, user=user)
    assert r.rc == 0, r
    return int(r.out.split(";")[0])


def show(c, job_id):
    r = c.run(["scontrol", "show", "job", str(job_id)])
    assert r.rc == 0, r
    return parse_kv(r.out)


def nodes_of(c, job_id):
    r = c.run(["scontrol", "show", "hostnames", show(c, job_id)["NodeList"]])
    assert r.rc == 0, r
    return r.out.split()


def started_on(c, job_id):
    """The job's nodes once it runs."""
    c.wait_state(job_id, ("RUNNING",))
    return nodes_of(c, job_id)


def squeue(c, job_id, fmt):
    r = c.run(["squeue", "-h", "-j", str(job_id), "-o", fmt])
    assert r.rc == 0, r
    return r.out.strip()


def test_tmp_disk_places_on_nodes_that_have_it(clean):
    c = clean
    # n3 and n4 have 2000 MB: four one-CPU jobs fill them, a fifth waits
    ids = [submit(c, "--tmp=1500") for _ in range(4)]
    for j in ids:
        assert set(started_on(c, j)) <= {"n3", "n4"}
    late = submit(c, "--tmp=1500")
    c.wait_until("the fifth to wait", lambda: squeue(c, late, "%T %r") == "PENDING Resources")
    info = show(c, late)
    assert info["MinTmpDiskNode"] == "1500M", info
    assert squeue(c, late, "%d") == "1500M"
    # without --tmp a job goes anywhere (n1 is free)
    free = submit(c)
    assert started_on(c, free) == ["n1"]
    # more than any node has: refused at submission, as Slurm
    r = sbatch(c, "--tmp=3G")
    assert r.rc == 1 and r.err == ("sbatch: error: Batch job submission failed: Requested node "
                                   "configuration is not available\n"), r


def test_sockets_cores_threads(clean):
    c = clean
    j = submit(c, "-B", "2")
    assert started_on(c, j) == ["n4"]
    info = show(c, j)
    assert info["Socks/Node"] == "2" and info["ReqB:S:C:T"] == "0:0:*:*", info
    assert squeue(c, j, "%H %I %J %z") == "2 * * 2:*:*"
    k = submit(c, "--cores-per-socket=2", "--threads-per-core=1")
    assert started_on(c, k)[0] in ("n1", "n2", "n3")
    assert show(c, k)["ReqB:S:C:T"] == "0:0:2:1"
    r = sbatch(c, "-B", "*:*:2")   # no node has two threads a core
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r


def test_mincpus(clean):
    c = clean
    j = submit(c, "-n1", "--mincpus=2")
    c.wait_state(j, ("RUNNING",))
    info = show(c, j)
    assert info["NumCPUs"] == "2" and info["MinCPUsNode"] == "2", info
    assert squeue(c, j, "%c") == "2"   # MIN_CPUS
    r = sbatch(c, "--mincpus=3")   # every node has 2 CPUs
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r


def test_node_range(clean):
    c = clean
    j = submit(c, "-N", "2-4", "--hold")
    assert show(c, j)["NumNodes"] == "2-4"
    c.run(["scontrol", "release", str(j)])
    assert len(started_on(c, j)) == 4   # as many as are free
    info = show(c, j)
    assert info["NumNodes"] == "4" and info["NumTasks"] == "4", info
    c.run(["scancel", str(j)])
    c.wait_until("all nodes idle", lambda: all_idle(c))
    k = submit(c, "-N2-4", "--use-min-nodes", "-c2")
    assert len(started_on(c, k)) == 2
    # two nodes full: a 2-4 job gets the two that are left
    m = submit(c, "--nodes=2-4")
    assert len(started_on(c, m)) == 2


def test_spread_job(clean):
    c = clean
    j = submit(c, "-n4", "--spread-job")
    assert started_on(c, j) == ["n1", "n2", "n3", "n4"]
    c.run(["scancel", str(j)])
    c.wait_until("all nodes idle", lambda: all_idle(c))
    k = submit(c, "-n4")   # packed: two nodes of 2 CPUs
    assert len(started_on(c, k)) == 2


def test_overcommit(clean):
    c = clean
    # 16 tasks on 8 CPUs: only with -O, on one CPU of one node
    r = sbatch(c, "-n16")
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r
    j = submit(c, "-n16", "-O")
    c.wait_state(j, ("RUNNING",))
    info = show(c, j)
    assert (info["NumNodes"], info["NumCPUs"], info["NumTasks"]) == ("1", "1", "16"), info
    # its steps run 16 tasks on that one CPU
    out = os.path.join(c.workdir(None), f"oc-{j}.out")
    k = submit_script(c, "-n8", "-O", "-o", out, "srun hostname | wc -l")
    c.wait_state(k, ("COMPLETED",))
    with open(out) as f:
        assert f.read().split() == ["8"]


def test_priority_operators_only(clean):
    c = clean
    j = submit(c, "--priority=TOP", "--begin=now+1hour")
    k = submit(c, "--priority", "1234", "--begin=now+1hour")
    assert show(c, k)["Priority"] == "1234"
    assert show(c, j)["Priority"] == "4294967293"
    assert squeue(c, j, "%Q") == "4294967293"
    r = sbatch(c, "--priority=10", user="herdu1")
    assert r.rc == 1 and r.err == ("sbatch: error: Batch job submission failed: "
                                   "Access/permission denied\n"), r
    r = sbatch(c, "--priority=high")
    assert r.rc != 0, r


def test_no_kill_drops_the_failed_node(clean):
    c = clean
    keep = submit(c, "-N2", "-k")
    lose = submit(c, "-N2")
    kn, ln = started_on(c, keep), started_on(c, lose)
    try:
        for n in (kn[1], ln[1]):
            r = c.run(["scontrol", "update", f"nodename={n}", "state=down", "reason=test"])
            assert r.rc == 0, r
        c.wait_state(lose, ("NODE_FAIL",))
        assert c.job_state(keep) == "RUNNING"
        info = show(c, keep)
        assert info["NodeList"] == kn[0] and info["NumNodes"] == "1", info
    finally:
        for n in (kn[1], ln[1]):
            c.run(["scontrol", "update", f"nodename={n}", "state=resume"])


def test_options_shown_and_kept_over_restart(clean):
    c = clean
    j = submit(c, "--hold", "-N1-3", "--tmp=100", "--mincpus=2", "-B", "1:2:1", "-s", "-O",
               "--spread-job", "--use-min-nodes", "-k", "--delay-boot=5", "-p", "share",
               "--priority=77")
    want = {"NumNodes": "1-3", "MinTmpDiskNode": "100M", "MinCPUsNode": "2",
            "Socks/Node": "1", "ReqB:S:C:T": "0:0:2:1", "OverSubscribe": "YES",
            "DelayBoot": "00:05:00"}
    info = show(c, j)
    assert {k: info[k] for k in want} == want, info
    assert squeue(c, j, "%h") == "YES"
    os.kill(c.ctld_pid(), 9)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok)
    info = show(c, j)
    assert {k: info[k] for k in want} == want, info
    r = c.run(["squeue", "-h", "-j", str(j), "-O", "MinTmpDisk,SocketsPerNode"])
    assert r.out.split() == ["100M", "1"], r


def test_update_placement_options(clean):
    c = clean
    j = submit(c, "--hold", "-N1")
    r = c.run(["scontrol", "update", f"jobid={j}", "NumNodes=2-3", "MinTmpDiskNode=500",
               "MinCPUsNode=2", "OverSubscribe=yes", "DelayBoot=10"])
    assert r.rc == 0, r
    info = show(c, j)
    assert (info["NumNodes"], info["MinTmpDiskNode"], info["MinCPUsNode"],
            info["OverSubscribe"], info["DelayBoot"]) == ("2-3", "500M", "2", "YES", "00:10:00"), info
    # a size no node has is refused, and changes nothing
    r = c.run(["scontrol", "update", f"jobid={j}", "MinTmpDiskNode=9000"])
    assert r.rc != 0, r
    assert show(c, j)["MinTmpDiskNode"] == "500M"
    r = c.run(["scontrol", "update", f"jobid={j}", "NumNodes=2"])
    assert r.rc == 0 and show(c, j)["NumNodes"] == "2", r
    c.run(["scontrol", "release", str(j)])
    assert set(started_on(c, j)) == {"n3", "n4"}   # TmpDisk


def test_oversubscribe_shares_cpus(clean):
    """OverSubscribe=YES:2: jobs that ask -s share each CPU with one other
    such job; a job without -s has its CPUs to itself."""
    c = clean
    a = submit(c, "-p", "share", "-w", "n1", "-c2", "-s")
    b = submit(c, "-p", "share", "-w", "n1", "-c2", "--oversubscribe")
    for j in (a, b):
        assert started_on(c, j) == ["n1"]
        assert show(c, j)["NumCPUs"] == "2"
    assert squeue(c, a, "%h") == "YES"
    third = submit(c, "-p", "share", "-w", "n1", "-c2", "-s")   # each CPU twice already
    c.wait_until("the third to wait", lambda: squeue(c, third, "%T %r") == "PENDING Resources")
    # what each holds survives a controller restart (cpu_share is stored)
    os.kill(c.ctld_pid(), 9)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok)
    assert stays(lambda: squeue(c, third, "%T") == "PENDING", 2)
    assert c.job_state(a) == "RUNNING" and c.job_state(b) == "RUNNING"
    # without -s: CPUs of its own only
    d = submit(c, "-p", "share", "-w", "n2", "-c2")
    assert started_on(c, d) == ["n2"]
    e = submit(c, "-p", "share", "-w", "n2", "-c2", "-s")
    assert stays(lambda: squeue(c, e, "%T") == "PENDING", 2)   # beside a job without -s
    # -s in a partition with OverSubscribe=NO shares nothing
    f = submit(c, "-w", "n3", "-c2", "-s")
    assert started_on(c, f) == ["n3"]
    g = submit(c, "-w", "n3", "-c2", "-s")
    assert stays(lambda: squeue(c, g, "%T") == "PENDING", 2)   # no sharing in debug
    r = c.run(["scontrol", "show", "partition", "share"])
    assert "OverSubscribe=YES:2" in r.out, r


def test_test_only_places_as_the_scheduler(clean):
    """--test-only answers from the same placement: --tmp and -B pick the
    nodes that have them, -N min-max takes every free node."""
    c = clean
    cases = [(["--tmp=1G"], "n3"), (["-B", "2"], "n4"), (["-N", "2-4"], "n[1-4]"),
             (["-n3", "--spread-job"], "n[1-3]"), (["--mincpus=2"], "n1")]
    for args, nodes in cases:
        r = c.run(["sbatch", "--test-only", *args, "-o", "/dev/null", "--wrap", "true"],
                  cwd=c.workdir(None))
        m = re.fullmatch(r"sbatch: Job \d+ to start at \S+ using (\d+) processors on nodes "
                         r"(\S+) in partition debug\n", r.err)
        assert r.rc == 0 and m and m.group(2) == nodes, (args, r)
    r = c.run(["squeue", "-h"])
    assert r.out == "", r   # nothing queued


def test_no_kill_when_a_node_goes_silent(clean):
    """A node that stops answering (its herdd killed): after SlurmdTimeout
    a -k job goes on without it; the node's part is ended once it is back."""
    c = clean
    j = submit(c, "-N2", "--no-kill", "-w", "n1,n2")
    assert started_on(c, j) == ["n1", "n2"]
    os.kill(c.herdd_pid("n2"), 9)
    try:
        c.wait_until("n2 to leave the job", lambda: show(c, j)["NodeList"] == "n1", timeout=40)
        assert c.job_state(j) == "RUNNING"
        assert squeue(c, j, "%D %N") == "1 n1"
    finally:
        c.restart_herdd("n2")
        c.wait_until("n2 back", lambda: "idle" in c.run(["sinfo", "-h", "-n", "n2", "-p", "debug",
                                                          "-o", "%t"]).out, timeout=40)


def test_exclusive_user_shares_nodes_with_the_same_user(clean, users):
    """--exclusive=user (sbatch(1)): the job's nodes take other jobs of its
    user only, never another user's, and it waits beside another user's
    job; shown OverSubscribe=USER (scontrol, squeue %h)."""
    c = clean
    a = submit(c, "--exclusive=user", "-w", "n1", "-n1", user="herdu1")
    assert started_on(c, a) == ["n1"]
    assert show(c, a)["OverSubscribe"] == "USER" and squeue(c, a, "%h") == "USER"
    assert show(c, a)["NumCPUs"] == "1"   # not the whole node
    other = submit(c, "-w", "n1", "-n1", user="herdu2")
    c.wait_until("another user's job to wait",
                 lambda: squeue(c, other, "%T %r") == "PENDING Resources")
    mine = submit(c, "-w", "n1", "-n1", user="herdu1")
    assert started_on(c, mine) == ["n1"]
    # beside another user's running job it waits
    b = submit(c, "-w", "n2", "-n1", user="herdu2")
    assert started_on(c, b) == ["n2"]
    d = submit(c, "--exclusive=user", "-w", "n2", "-n1", user="herdu1")
    assert stays(lambda: squeue(c, d, "%T") == "PENDING", 2)
    # whole nodes with plain --exclusive, as before
    e = submit(c, "--exclusive", "-w", "n3", "-n1", user="herdu1")
    assert started_on(c, e) == ["n3"] and show(c, e)["OverSubscribe"] == "NO"
