"""scontrol reconfigure (and SIGHUP), as an administrator uses it: edit
herd.conf, reconfigure, and the controller and node daemons apply it live,
whole or not at all; jobs, running or pending, are untouched; a broken file,
a change that needs a restart, or a user who is not an administrator is
refused with the reason.  This module edits the config, so it has its own
cluster: 2 nodes of 2 CPUs and 1000 MB, partition "debug" on both."""
import contextlib
import os
import re
import shutil
import signal

import pytest

from conftest import Cluster, make_root, parse_kv, stop_cluster

USER = "herdu1"


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 2)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        with open(c.conf) as f:
            c.base_conf = f.read()
        yield c
    finally:
        stop_cluster(c)


def write_conf(c, text):
    tmp = c.conf + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, c.conf)


def reconfigure(c, user=None):
    return c.run(["scontrol", "reconfigure"], user=user)


@pytest.fixture
def clean(c):
    """Every test starts from herd up's file, applied, and leaves no jobs."""
    yield c
    c.run(["scancel", "-u", "root"])
    c.run(["scancel", "-u", USER])
    write_conf(c, c.base_conf)
    r = reconfigure(c)
    assert r.rc == 0, r
    c.wait_until("no jobs left", lambda: c.run(["squeue", "-h"]).out == "")


def edited(c, old, new):
    assert old in c.base_conf, old
    return c.base_conf.replace(old, new)


def partition(c, name, user=None):
    r = c.run(["scontrol", "show", "partition", name], user=user)
    assert r.rc == 0, r
    return parse_kv(r.out)


def squeue(c, job_id, fmt):
    r = c.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", fmt])
    assert r.rc == 0, r
    return r.out.strip()


@contextlib.contextmanager
def commands_read(c, path):
    """Commands read path as their herd.conf (HERD_CONF), while the daemons
    re-read c.conf: how a broken c.conf is shown to the controller only."""
    saved = c.conf
    c.conf = path
    try:
        yield
    finally:
        c.conf = saved


DEBUG_LINE = "PartitionName=debug Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP"


def test_max_time_and_new_partition(clean):
    c = clean
    r = c.run(["sbatch", "-p", "extra", "--wrap", "true"])
    assert r.rc == 1 and "Invalid partition name specified" in r.err, r
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE.replace("UNLIMITED", "10")) +
               "PartitionName=extra Nodes=n2 MaxTime=5 DefaultTime=2 MaxNodes=1 State=UP\n"
               "KillWait=7\n")
    assert partition(c, "debug")["MaxTime"] == "UNLIMITED"   # nothing until reconfigure
    r = reconfigure(c)
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    info = partition(c, "debug", user=USER)
    assert info["MaxTime"] == "00:10:00"
    assert info["Default"] == "YES"
    extra = partition(c, "extra", user=USER)
    assert (extra["Nodes"], extra["MaxTime"], extra["DefaultTime"], extra["MaxNodes"],
            extra["Default"], extra["TotalNodes"]) == ("n2", "00:05:00", "00:02:00", "1", "NO", "1")
    r = c.run(["sinfo", "-h", "-o", "%P %D %N %l"])
    assert r.out.splitlines() == ["debug* 2 n[1-2] 10:00", "extra 1 n2 5:00"], r
    # The new partition takes jobs, and its DefaultTime is a new job's limit.
    wd = c.workdir(USER)
    job = c.sbatch("-p", "extra", "-o", f"{wd}/extra.out", "--wrap", "hostname", user=USER)
    assert c.wait_done(job) == "COMPLETED"
    assert squeue(c, job, "%P %N %l") == "extra n2 2:00"
    # MaxTime applies: a job over the new limit of debug waits, as in Slurm.
    long = c.sbatch("-t", "20", "-o", "/dev/null", "--wrap", "true")
    c.wait_until("the long job to wait for its partition's limit",
                 lambda: squeue(c, long, "%T %r") == "PENDING PartitionTimeLimit")
    r = c.run(["scontrol", "show", "config"])
    assert re.search(r"^KillWait\s+= 7$", r.out, re.M), r.out


def test_jobs_survive_and_removed_partition(clean):
    c = clean
    write_conf(c, c.base_conf + "PartitionName=extra Nodes=n2 State=UP\n")
    assert reconfigure(c).rc == 0
    running = c.sbatch("-p", "extra", "-o", "/dev/null", "--wrap", "sleep 6")
    c.wait_state(running, "RUNNING")
    held = c.sbatch("-p", "extra", "-H", "-o", "/dev/null", "--wrap", "true")
    other = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    before = {j: c.show_job(j) for j in (running, held, other)}
    # extra is removed while jobs are in it; debug changes too (for new jobs only).
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE + " DefaultTime=30"))
    r = reconfigure(c)
    assert (r.rc, r.err) == (0, ""), r
    assert c.run(["scontrol", "show", "partition", "extra"]).rc == 1
    assert c.run(["sinfo", "-h", "-o", "%P"]).out == "debug*\n"
    assert "Invalid partition name" in c.run(["sbatch", "-p", "extra", "--wrap", "true"]).err
    for j in (running, held, other):
        after = c.show_job(j)
        for key in ("JobState", "Partition", "TimeLimit", "NodeList", "StartTime", "Priority",
                    "SubmitTime"):
            assert after[key] == before[j][key], (j, key, before[j], after)
    assert squeue(c, running, "%T %P %N") == "RUNNING extra n2"
    assert c.wait_done(running) == "COMPLETED"
    assert squeue(c, running, "%P") == "extra"
    # Released, the job of the removed partition waits, PartitionDown, as in Slurm.
    assert c.run(["scontrol", "release", str(held)]).rc == 0
    c.wait_until("the job of the removed partition to wait",
                 lambda: squeue(c, held, "%T %r") == "PENDING PartitionDown")
    assert c.run(["scontrol", "release", str(other)]).rc == 0
    assert c.wait_done(other) == "COMPLETED"
    assert squeue(c, other, "%l") == "UNLIMITED"   # its limit is the one it was given
    # The partition comes back: its job runs.
    write_conf(c, c.base_conf + "PartitionName=extra Nodes=n2 State=UP\n")
    assert reconfigure(c).rc == 0
    assert c.wait_done(held) == "COMPLETED"
    assert squeue(c, held, "%P %N") == "extra n2"


def test_broken_file_is_refused(clean):
    c = clean
    good = os.path.join(c.root, "good.conf")
    shutil.copy(c.conf, good)
    before = partition(c, "debug")
    lines = edited(c, DEBUG_LINE, DEBUG_LINE.replace("UNLIMITED", "10")).splitlines()
    bad_line = len(lines) + 1
    cases = [
        ("Bogus=1\n", f"{c.conf}:{bad_line}: unknown key 'Bogus'"),
        ("PartitionName=x Nodes=n7\n", f"{c.conf}:{bad_line}: unknown node 'n7' in Nodes of "
                                       "partition 'x'"),
        ("PartitionName=x MaxTime=soon\n", f"{c.conf}:{bad_line}: invalid value 'soon' for key "
                                           "'MaxTime'"),
        ("StateSaveLocation=/elsewhere\n", f"{c.conf}: StateSaveLocation changed: restart "
                                           "herdctld and herdd to apply it"),
        ("SlurmUser=nosuchuser\n", f"{c.conf}: SlurmUser nosuchuser does not exist"),
    ]
    held = []
    for tail, message in cases:
        # Everything before the bad line is good and would change debug.
        write_conf(c, "\n".join(lines) + "\n" + tail)
        with commands_read(c, good):
            r = reconfigure(c)
            assert (r.rc, r.out, r.err) == (1, "", f"slurm_reconfigure error: {message}\n"), r
            assert partition(c, "debug") == before   # nothing half-applied
            assert c.run(["sinfo", "-h", "-o", "%P"]).out == "debug*\n"
            # The controller takes jobs as before.  (Held: herdstepd reads
            # herd.conf from disk at a launch, and that file is broken.)
            held.append(c.sbatch("-H", "-t", "20", "-o", "/dev/null", "--wrap", "true"))
            assert squeue(c, held[-1], "%T %r %P") == "PENDING JobHeldUser debug"
    write_conf(c, c.base_conf)
    for job in held:
        assert c.run(["scontrol", "release", str(job)]).rc == 0
        assert c.wait_done(job) == "COMPLETED"
    with open(os.path.join(c.dir, "log", "herdctld.log")) as f:
        assert f"reconfiguration refused: {c.conf}:{bad_line}: unknown key 'Bogus'" in f.read()


def test_non_admin_is_refused(clean, users):
    c = clean
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE.replace("UNLIMITED", "10")))
    r = reconfigure(c, user=USER)
    assert (r.rc, r.out, r.err) == (1, "", "slurm_reconfigure error: Access/permission denied\n"), r
    assert partition(c, "debug")["MaxTime"] == "UNLIMITED"
    r = reconfigure(c)
    assert r.rc == 0, r
    assert partition(c, "debug")["MaxTime"] == "00:10:00"
    assert c.run(["scontrol", "reconfigure", "now"]).rc == 1


def test_sighup(clean):
    c = clean
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE.replace("UNLIMITED", "10")))
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGHUP)
    c.wait_until("SIGHUP to apply the new MaxTime",
                 lambda: partition(c, "debug")["MaxTime"] == "00:10:00")
    assert c.ctld_pid() == pid
    # A broken file on SIGHUP: refused, logged, the controller runs on.
    write_conf(c, c.base_conf + "Bogus=1\n")
    os.kill(pid, signal.SIGHUP)
    log = os.path.join(c.dir, "log", "herdctld.log")

    def refused():
        with open(log) as f:
            return f"reconfiguration refused: {c.conf}:" in f.read()
    c.wait_until("the refusal in the log", refused)
    assert c.ctld_pid() == pid
    good = os.path.join(c.root, "good-hup.conf")
    with open(good, "w") as f:
        f.write(c.base_conf)
    with commands_read(c, good):
        assert partition(c, "debug")["MaxTime"] == "00:10:00"
    # herdd too: it re-reads on SIGHUP and keeps running.
    write_conf(c, c.base_conf)
    herdd = c.herdd_pid("n1")
    os.kill(herdd, signal.SIGHUP)
    nlog = os.path.join(c.dir, "log", "herdd-n1.log")
    c.wait_until("herdd to re-read", lambda: "reconfigured from" in open(nlog).read())
    assert c.herdd_pid("n1") == herdd


def node(c, name):
    r = c.run(["scontrol", "show", "node", name])
    assert r.rc == 0, r
    return parse_kv(r.out)


def test_nodes(clean):
    c = clean
    # CPUs and RealMemory of a node apply live, and every herdd re-reads.
    logs = [os.path.join(c.dir, "log", f"herdd-{n}.log") for n in ("n1", "n2")]
    seen = [open(p).read().count("reconfigured from") for p in logs]
    text = re.sub(r"(NodeName=n2 .*)CPUs=2 RealMemory=1000", r"\1CPUs=1 RealMemory=500",
                  c.base_conf)
    assert text != c.base_conf
    write_conf(c, text)
    assert reconfigure(c).rc == 0
    info = node(c, "n2")
    assert (info["CPUTot"], info["RealMemory"]) == ("1", "500"), info
    assert node(c, "n1")["CPUTot"] == "2"
    c.wait_until("every herdd to re-read the file",
                 lambda: all(open(p).read().count("reconfigured from") > s
                             for p, s in zip(logs, seen)))
    # After herdd's new registration the values hold.
    c.wait_until("n2 to stay at 1 CPU", lambda: node(c, "n2")["CPUTot"] == "1")
    # Adding or removing a node needs a restart: refused, nothing applied.
    n1 = next(line for line in c.base_conf.splitlines() if line.startswith("NodeName=n1 "))
    added = c.base_conf.replace(DEBUG_LINE, n1.replace("n1", "n9") + "\n" + DEBUG_LINE) \
        .replace("MaxTime=UNLIMITED", "MaxTime=10")
    write_conf(c, added)
    r = reconfigure(c)
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == (f"slurm_reconfigure error: {c.conf}: node n9 added (adding or removing "
                     "nodes): restart herdctld and herdd to apply it\n"), r
    assert partition(c, "debug")["MaxTime"] == "UNLIMITED"
    assert node(c, "n2")["CPUTot"] == "1"
    assert c.run(["scontrol", "show", "node", "n9"]).rc == 1
    removed = c.base_conf.replace(
        next(line for line in c.base_conf.splitlines() if line.startswith("NodeName=n2 ")) + "\n",
        "")
    write_conf(c, removed)
    r = reconfigure(c)
    assert r.rc == 1 and "node n2 removed" in r.err and "restart" in r.err, r
    assert partition(c, "debug")["Nodes"] == "n[1-2]"


def test_node_features(clean):
    """Features= of a node applies at a reconfigure: -C may name a feature a
    node was given, and no longer one taken away, both at submission and in
    the scheduler."""
    c = clean
    unknown = "sbatch: error: Batch job submission failed: Invalid feature specification"

    def refused(feature):
        r = c.run(["sbatch", "-C", feature, "-o", "/dev/null", "--wrap", "true"])
        assert (r.rc, r.out) == (1, "") and unknown in r.err, r
        assert c.run(["squeue", "-h"]).out == ""   # nothing queued

    # First checked before any node has it (this check is what the
    # controller used to remember for good).
    refused("gpu")
    text = re.sub(r"^(NodeName=n2 .*)$", r"\1 Features=gpu", c.base_conf, flags=re.M)
    assert text != c.base_conf
    write_conf(c, text)
    assert reconfigure(c).rc == 0
    assert node(c, "n2")["AvailableFeatures"] == "gpu"
    job = c.sbatch("-C", "gpu", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"
    assert squeue(c, job, "%N") == "n2"
    # n1 takes it too, n2 loses it: a job asking for it runs on n1.
    text = re.sub(r"^(NodeName=n1 .*)$", r"\1 Features=gpu", c.base_conf, flags=re.M)
    write_conf(c, text)
    assert reconfigure(c).rc == 0
    job = c.sbatch("-C", "gpu", "-N", "1", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"
    assert squeue(c, job, "%N") == "n1"
    # Taken away from every node: refused again, as Slurm refuses a
    # feature no node has.
    write_conf(c, c.base_conf)
    assert reconfigure(c).rc == 0
    assert node(c, "n1")["AvailableFeatures"] == "(null)"
    refused("gpu")


def test_partition_membership_and_state(clean):
    c = clean
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE.replace("Nodes=ALL", "Nodes=n1")))
    assert reconfigure(c).rc == 0
    info = partition(c, "debug")
    assert (info["Nodes"], info["TotalNodes"], info["TotalCPUs"]) == ("n1", "1", "2"), info
    r = c.run(["sbatch", "-N", "2", "-o", "/dev/null", "--wrap", "true"])
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r
    job = c.sbatch("-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"
    assert squeue(c, job, "%N") == "n1"
    # State=DOWN: jobs wait, PartitionDown; UP again: they run.
    write_conf(c, edited(c, DEBUG_LINE, DEBUG_LINE.replace("State=UP", "State=DOWN")))
    assert reconfigure(c).rc == 0
    assert partition(c, "debug")["State"] == "DOWN"
    job = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_until("the job to wait for its partition",
                 lambda: squeue(c, job, "%T %r") == "PENDING PartitionDown")
    write_conf(c, c.base_conf)
    assert reconfigure(c).rc == 0
    assert c.wait_done(job) == "COMPLETED"
