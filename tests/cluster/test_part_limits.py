"""Partition limits (doc/scheduling.md, "Limits"), as slurm.conf(5) has them:
with EnforcePartLimits=NO (the default) a job over MaxNodes, MinNodes or
MaxTime, or in an account or QOS the partition does not allow, is queued and
waits with Slurm's reason; with ALL/ANY it is refused with Slurm's sentence.
AllowGroups always refuses.  DefaultTime is a job's limit without -t;
ExclusiveUser keeps other users' jobs off a user's nodes;
OverSubscribe=EXCLUSIVE gives whole nodes.

One 4-node cluster of 2 CPUs each; AccountingStorageEnforce=associations,
herdu1 in account pl_a (QOS normal and pl_q), herdu2 in pl_b."""
import pytest

from conftest import Cluster, make_root, stop_cluster
from cmd_helpers import cancel_all, squeue_field, stays, wait_reason

U1, U2 = "herdu1", "herdu2"
FAILED = "sbatch: error: Batch job submission failed: "
PARTS = """\
PartitionName=small Nodes=n[1-4] MaxNodes=1 MaxTime=10 DefaultTime=5 State=UP
PartitionName=wide Nodes=n[1-4] MinNodes=2 State=UP
PartitionName=acct Nodes=n[1-4] AllowAccounts=pl_a State=UP
PartitionName=deny Nodes=n[1-4] DenyAccounts=pl_b State=UP
PartitionName=qosp Nodes=n[1-4] AllowQos=pl_q State=UP
PartitionName=grp Nodes=n[1-4] AllowGroups=herdu1 State=UP
PartitionName=excl Nodes=n[1-2] ExclusiveUser=YES State=UP
PartitionName=whole Nodes=n[3-4] OverSubscribe=EXCLUSIVE State=UP
"""


def sacctmgr(c, *args):
    r = c.run(["sacctmgr", "-i", *args])
    assert r.rc == 0, r
    return r


def reconfigure(c, text):
    with open(c.conf, "w") as f:
        f.write(text)
    r = c.run(["scontrol", "reconfigure"])
    assert r.rc == 0, r


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        sacctmgr(c, "add", "account", "pl_a")
        sacctmgr(c, "add", "account", "pl_b")
        sacctmgr(c, "add", "qos", "pl_q")
        sacctmgr(c, "add", "user", U1, "account=pl_a")
        sacctmgr(c, "add", "user", U2, "account=pl_b")
        sacctmgr(c, "modify", "user", U1, "set", "qos=normal,pl_q", "defaultqos=normal")
        with open(c.conf) as f:
            c.base_conf = f.read() + PARTS + "AccountingStorageEnforce=associations\n"
        reconfigure(c, c.base_conf)
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c, wait_idle=False)
    yield c
    cancel_all(c, wait_idle=False)


def submit(c, user, *args, rc=0):
    r = c.run(["sbatch", "--parsable", "-o", "/dev/null", *args], user=user, cwd=c.workdir(user))
    assert r.rc == rc, r
    return int(r.out.split(";")[0]) if rc == 0 else r


def sleeper(c, user, *args):
    return submit(c, user, *args, "--wrap", "sleep 300")


def test_default_time_and_max_time(clean):
    c = clean
    job = sleeper(c, U1, "-p", "small")
    assert c.show_job(job)["TimeLimit"] == "00:05:00"
    c.wait_state(job, "RUNNING")
    long = sleeper(c, U1, "-p", "small", "-t", "20")
    assert c.show_job(long)["TimeLimit"] == "00:20:00"
    wait_reason(c, long, "PartitionTimeLimit")
    assert squeue_field(c, long, "%T") == "PENDING"


def test_node_limits_wait(clean):
    c = clean
    big = sleeper(c, U1, "-p", "small", "-N", "2")
    wait_reason(c, big, "PartitionNodeLimit")
    few = sleeper(c, U1, "-p", "wide", "-N", "1")
    wait_reason(c, few, "PartitionNodeLimit")
    assert stays(lambda: squeue_field(c, few, "%T %r") == "PENDING PartitionNodeLimit", 1.0)
    # No -N: the partition's MinNodes.
    job = sleeper(c, U1, "-p", "wide")
    c.wait_state(job, "RUNNING")
    assert (squeue_field(c, job, "%D"), c.show_job(job)["NumNodes"]) == ("2", "2")
    # An update within the limit lets the waiting job go.
    assert c.run(["scontrol", "update", f"JobId={big}", "NumNodes=1"], user=U1).rc == 0
    c.wait_state(big, "RUNNING", timeout=30)


def test_accounts_and_qos_wait(clean):
    c = clean
    for user, part, reason in ((U2, "acct", "AccountNotAllowed"),
                               (U2, "deny", "AccountNotAllowed"),
                               (U1, "qosp", "QOSNotAllowed")):
        job = sleeper(c, user, "-p", part)
        wait_reason(c, job, reason)
        assert squeue_field(c, job, "%T") == "PENDING"
    for user, args in ((U1, ["-p", "acct"]), (U1, ["-p", "deny"]), (U1, ["-p", "qosp", "--qos=pl_q"])):
        job = sleeper(c, user, *args)
        c.wait_state(job, "RUNNING")


def test_allow_groups(clean):
    c = clean
    r = submit(c, U2, "-p", "grp", "--wrap", "true", rc=1)
    assert (r.out, r.err) == ("", FAILED + "User's group not permitted to use this partition\n"), r
    # Also when another partition of the list would take it.
    r = submit(c, U2, "-p", "debug,grp", "--wrap", "true", rc=1)
    assert "User's group not permitted to use this partition" in r.err, r
    job = submit(c, U1, "-p", "grp", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"


def test_exclusive_user(clean):
    c = clean
    first = sleeper(c, U1, "-p", "excl", "-n", "1")
    c.wait_state(first, "RUNNING")
    node1 = squeue_field(c, first, "%N")
    other = sleeper(c, U2, "-p", "excl", "-n", "1")
    c.wait_state(other, "RUNNING")
    node2 = squeue_field(c, other, "%N")
    assert node1 != node2 and {node1, node2} == {"n1", "n2"}
    # The same user's jobs share a node; another user's wait, though a CPU is free.
    again = sleeper(c, U2, "-p", "excl", "-n", "1")
    c.wait_state(again, "RUNNING")
    assert squeue_field(c, again, "%N") == node2
    waits = sleeper(c, U2, "-p", "excl", "-n", "1")
    wait_reason(c, waits, "Resources")
    assert stays(lambda: squeue_field(c, waits, "%T") == "PENDING", 1.0)
    # A job of another partition does not join a user's node either.
    outside = sleeper(c, U2, "-p", "debug", "-w", node1)
    assert stays(lambda: squeue_field(c, outside, "%T") == "PENDING", 1.0)
    assert c.run(["scancel", str(first)]).rc == 0
    c.wait_state(waits, "RUNNING", timeout=30)
    assert squeue_field(c, waits, "%N") == node1


def test_oversubscribe_exclusive(clean):
    c = clean
    one = sleeper(c, U1, "-p", "whole", "-n", "1")
    c.wait_state(one, "RUNNING")
    assert squeue_field(c, one, "%C") == "2"   # the whole node
    two = sleeper(c, U1, "-p", "whole", "-n", "1")
    c.wait_state(two, "RUNNING")
    assert {squeue_field(c, one, "%N"), squeue_field(c, two, "%N")} == {"n3", "n4"}
    three = sleeper(c, U1, "-p", "whole", "-n", "1")
    wait_reason(c, three, "Resources")


@pytest.fixture
def enforced(clean):
    c = clean
    yield c
    reconfigure(c, c.base_conf)


@pytest.mark.parametrize("mode", ["ALL", "ANY"])
def test_enforce_part_limits(enforced, mode):
    c = enforced
    reconfigure(c, c.base_conf + f"EnforcePartLimits={mode}\n")
    for user, args, text in (
            (U2, ["-p", "acct"], "Invalid account or account/partition combination specified"),
            (U2, ["-p", "deny"], "Invalid account or account/partition combination specified"),
            (U1, ["-p", "qosp"], "Invalid qos specification"),
            (U1, ["-p", "small", "-N", "2"], "Node count specification invalid"),
            (U1, ["-p", "wide", "-N", "1"], "Node count specification invalid"),
            (U1, ["-p", "small", "-t", "20"],
             "Requested time limit is invalid (missing or exceeds some limit)")):
        r = submit(c, user, *args, "--wrap", "true", rc=1)
        assert (r.out, r.err) == ("", FAILED + text + "\n"), (args, r)
    # Several partitions: ANY takes a job one of them can run, ALL refuses it.
    args = ["-p", "small,wide", "-N", "2", "--wrap", "true"]
    if mode == "ANY":
        job = submit(c, U1, *args)
        assert c.wait_done(job) == "COMPLETED"
        assert squeue_field(c, job, "%P") == "wide"
    else:
        r = submit(c, U1, *args, rc=1)
        assert r.err == FAILED + "Node count specification invalid\n", r
    # What is allowed is taken.
    job = submit(c, U1, "-p", "qosp", "--qos=pl_q", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"


def test_qos_flags_pass_partition_limits(clean):
    c = clean
    sacctmgr(c, "modify", "qos", "pl_q", "set", "flags=PartitionTimeLimit,PartitionMaxNodes")
    try:
        long = sleeper(c, U1, "-p", "small", "--qos=pl_q", "-t", "20")
        c.wait_state(long, "RUNNING")
        big = sleeper(c, U1, "-p", "small", "--qos=pl_q", "-N", "2")
        c.wait_state(big, "RUNNING")
        assert squeue_field(c, big, "%D") == "2"
        # QOS normal has no such flag: its jobs still wait.
        plain = sleeper(c, U1, "-p", "small", "-t", "20")
        wait_reason(c, plain, "PartitionTimeLimit")
    finally:
        sacctmgr(c, "modify", "qos", "pl_q", "set", "flags-=PartitionTimeLimit,PartitionMaxNodes")
