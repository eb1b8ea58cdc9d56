"""scontrol update job (TimeLimit, Partition, NumNodes, Name, Comment, Nice,
Account, QOS, MailUser/MailType, Requeue, TimeMin, Deadline, ReqNodeList,
ExcNodeList, Features, ArrayTaskThrottle, NumTasks, MinMemoryNode/CPU,
CPUsPerTask), requeue and requeuehold, and update node (DRAIN, DOWN, RESUME):
who may do what, Slurm's errors, running jobs learning a new time limit, and
every change surviving kill -9 of the controller (scontrol ping saying DOWN
meanwhile).  Its own 3-node cluster (2 CPUs each), with node Features, Gres,
TmpDisk and Weight and two more partitions added by editing the config."""
import os
import re
import signal
import time

import pytest

from conftest import Cluster, make_root, parse_kv, stop_cluster

USER = "herdu1"
OTHER = "herdu2"
NODE_EXTRA = {"n1": " Features=big,fast", "n2": " Feature=big",
              "n3": " Gres=gpu:2 TmpDisk=500 Weight=10"}
THIRD_PART = ("PartitionName=third Nodes=n3 AllowGroups=wheel AllocNodes=n1 RootOnly=YES "
              "MaxCPUsPerNode=1 PreemptMode=requeue State=UP")


def node_states(c):
    r = c.run(["sinfo", "-h", "-N", "-o", "%N %t"])
    return dict(line.split() for line in r.out.splitlines())


def wait_idle(c):
    c.wait_until("all nodes idle",
                 lambda: sorted(set(node_states(c).items())) ==
                 [("n1", "idle"), ("n2", "idle"), ("n3", "idle")])


def restart_ctld(c):
    """kill -9 the controller and start it again, as after a crash; scontrol
    ping says DOWN (and exits 1) while it is gone, the banner for root only."""
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    down = "Slurmctld(primary) at localhost is DOWN\n"
    r = scontrol(c, "ping")
    assert (r.rc, r.out) == (1, down + "*" * 41 + "\n** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
                             + "*" * 41 + "\n"), r
    r = scontrol(c, "ping", user=USER)
    assert (r.rc, r.out) == (1, down), r
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok)


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 3)
    try:
        c.up("--cpus", "2")
        os.kill(c.ctld_pid(), signal.SIGTERM)
        c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
        with open(c.conf) as f:
            text = f.read()
        for node, extra in NODE_EXTRA.items():
            text = re.sub(rf"(?m)^(NodeName={node} .*)$", rf"\1{extra}", text)
        text += "PartitionName=other Nodes=n[1-3] MaxTime=30 State=UP\n" + THIRD_PART + "\n"
        text += "GresTypes=gpu\n"
        with open(c.conf, "w") as f:
            f.write(text)
        # n3's GPUs as its herdd reports them (else it drains: doc/gres.md)
        with open(os.path.join(c.dir, "gres.conf"), "w") as f:
            f.write("NodeName=n3 Name=gpu Count=2\n")
        os.kill(c.herdd_pid("n3"), signal.SIGTERM)
        c.wait_until("n3's herdd to stop", lambda: not c.daemon_pids("herdd", "n3"))
        c.restart_herdd("n3")
        c.restart_ctld()
        wait_idle(c)
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    yield c
    c.run(["scontrol", "update", "NodeName=n[1-3]", "State=RESUME"])
    for user in ("root", USER, OTHER):
        c.run(["scancel", "-u", user])
    wait_idle(c)


def scontrol(c, *args, user=None):
    return c.run(["scontrol", *args], user=user)


def test_update_pending_job_fields(clean):
    c = clean
    job = c.sbatch("-H", "-t", "20", "-J", "before", "-o", "/dev/null", "--wrap", "true", user=USER)
    r = scontrol(c, "update", f"JobId={job}", "TimeLimit=10", "Name=after", "Comment=hello",
                 "Partition=other", "NumNodes=2", "Nice=5", user=USER)
    assert r.rc == 0, r
    info = c.show_job(job)
    assert info["TimeLimit"] == "00:10:00"
    assert info["JobName"] == "after"
    assert info["Comment"] == "hello"
    assert info["Partition"] == "other"
    assert info["NumNodes"] == "2"
    assert info["Nice"] == "5"
    # Released while the nodes are busy: the nice value lowers its priority.
    blocker = c.sbatch("-N", "3", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    assert scontrol(c, "release", str(job), user=USER).rc == 0
    base = 0xFFFF0000
    info = c.show_job(job)
    assert info["JobState"] == "PENDING" and int(info["Priority"]) == base - job - 5
    # job=N is the same as JobId=N.
    r = scontrol(c, "update", f"job={job}", "Nice=0", user=USER)
    assert r.rc == 0, r
    assert int(c.show_job(job)["Priority"]) == base - job


def test_update_errors_and_permissions(clean):
    c = clean
    job = c.sbatch("-H", "-t", "10", "-o", "/dev/null", "--wrap", "true", user=USER)
    # Raising the limit: administrators only.
    r = scontrol(c, "update", f"JobId={job}", "TimeLimit=20", user=USER)
    assert (r.rc, r.err) == (1, f"Access/permission denied for job {job}\n"), r
    assert c.show_job(job)["TimeLimit"] == "00:10:00"
    assert scontrol(c, "update", f"JobId={job}", "TimeLimit=20").rc == 0
    assert c.show_job(job)["TimeLimit"] == "00:20:00"
    # Negative nice: administrators only.
    r = scontrol(c, "update", f"JobId={job}", "Nice=-5", user=USER)
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    # Someone else's job.
    r = scontrol(c, "update", f"JobId={job}", "Comment=x", user=OTHER)
    assert (r.rc, r.err) == (1, f"Invalid user id for job {job}\n"), r
    assert "Comment" not in c.show_job(job)
    # Unknown job, unknown partition, unknown key.
    r = scontrol(c, "update", "JobId=999999", "Comment=x")
    assert r.rc == 1 and "Invalid job id specified" in r.err, r
    r = scontrol(c, "update", f"JobId={job}", "Partition=nope")
    assert r.rc == 1 and "Invalid partition name specified" in r.err, r
    r = scontrol(c, "update", f"JobId={job}", "Color=red")
    assert r.rc == 1 and "Update of this parameter is not supported: Color=red" in r.err, r
    # A refused request changes nothing, not even its valid parts.
    r = scontrol(c, "update", f"JobId={job}", "Name=half", "Partition=nope")
    assert r.rc == 1
    assert c.show_job(job)["JobName"] == "wrap"
    # More nodes than exist.
    r = scontrol(c, "update", f"JobId={job}", "NumNodes=4")
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r


def test_running_job_limits(clean):
    c = clean
    wd = c.workdir(USER)
    job = c.sbatch("-t", "10", "-o", os.path.join(wd, "run-%j.out"), "--wrap", "sleep 300",
                   user=USER)
    c.wait_state(job, "RUNNING")
    r = scontrol(c, "update", f"JobId={job}", "Partition=other", user=USER)
    assert r.rc == 1 and "Job is no longer pending execution" in r.err, r
    r = scontrol(c, "update", f"JobId={job}", "NumNodes=2")
    assert r.rc == 1 and "Requested operation not supported on this system" in r.err, r
    assert scontrol(c, "update", f"JobId={job}", "Name=renamed", user=USER).rc == 0
    assert c.show_job(job)["JobName"] == "renamed"
    # Lowered below the time it has run: herdstepd ends it now, TIMEOUT.
    time.sleep(2)
    assert scontrol(c, "update", f"JobId={job}", "TimeLimit=0:01", user=USER).rc == 0
    assert c.wait_done(job, timeout=30) == "TIMEOUT"
    # Raised on a running job by root: it keeps running past the old limit.
    job2 = c.sbatch("-t", "0:03", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(job2, "RUNNING")
    assert scontrol(c, "update", f"JobId={job2}", "TimeLimit=10").rc == 0
    time.sleep(5)
    assert c.job_state(job2) == "RUNNING"
    assert c.show_job(job2)["TimeLimit"] == "00:10:00"
    # A job that started without a limit gets one.
    job3 = c.sbatch("-t", "UNLIMITED", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(job3, "RUNNING")
    assert c.show_job(job3)["TimeLimit"] == "UNLIMITED"
    assert scontrol(c, "update", f"JobId={job3}", "TimeLimit=0:02").rc == 0
    assert c.wait_done(job3, timeout=30) == "TIMEOUT"


def test_requeue_running_job(clean):
    c = clean
    wd = c.workdir(USER)
    path = os.path.join(wd, "rq-marks")
    job = c.sbatch("-o", "/dev/null", "--wrap",
                   f"echo run $SLURM_RESTART_COUNT >> {path}; sleep 300", user=USER)
    c.wait_state(job, "RUNNING")
    c.wait_until("first run", lambda: os.path.exists(path) and "run 0" in open(path).read())
    r = scontrol(c, "requeue", str(job), user=OTHER)
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    assert scontrol(c, "requeue", str(job), user=USER).rc == 0
    # Runs again (nodes are free), with the restart count in its environment.
    c.wait_until("second run", lambda: "run 1" in open(path).read(), timeout=30)
    info = c.show_job(job)
    assert info["Restarts"] == "1" and info["JobState"] == "RUNNING"
    # requeuehold: back in the queue, held.
    assert scontrol(c, "requeuehold", str(job), user=USER).rc == 0
    c.wait_state(job, "PENDING")
    info = c.show_job(job)
    assert info["Reason"] == "JobHeldUser" and info["Priority"] == "0"
    assert info["Restarts"] == "2"
    time.sleep(1)
    assert c.job_state(job) == "PENDING"
    # A pending job cannot be requeued.
    r = scontrol(c, "requeue", str(job))
    assert r.rc == 1 and "Job is pending execution" in r.err, r
    wait_idle(c)


def test_requeue_finished_job(clean):
    c = clean
    job = c.sbatch("-o", "/dev/null", "--wrap", "exit 3", user=USER)
    assert c.wait_done(job) == "FAILED"
    assert scontrol(c, "requeuehold", str(job), user=USER).rc == 0
    assert c.job_state(job) == "PENDING"
    assert c.show_job(job)["Restarts"] == "1"
    assert scontrol(c, "release", str(job), user=USER).rc == 0
    assert c.wait_done(job) == "FAILED"


def node_info(c, name):
    r = scontrol(c, "show", "node", name)
    assert r.rc == 0, r
    return r.out, parse_kv(r.out)


def test_node_drain_down_resume(clean):
    c = clean
    r = scontrol(c, "update", "NodeName=n1", "State=DRAIN", "Reason=maint", user=USER)
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    r = scontrol(c, "update", "NodeName=n1", "State=DRAIN")
    assert r.rc == 1 and "You must specify a reason" in r.err, r
    r = scontrol(c, "update", "NodeName=n9", "State=RESUME")
    assert r.rc == 1 and "Invalid node name specified" in r.err, r
    assert node_states(c)["n1"] == "idle"
    # Draining with a job on it: drng, the job keeps running, nothing new starts.
    job = c.sbatch("-N", "3", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(job, "RUNNING")
    assert scontrol(c, "update", "NodeName=n[1-2]", "State=DRAIN", "Reason=disk swap").rc == 0
    assert node_states(c)["n1"] == "drng"
    text, info = node_info(c, "n1")
    assert info["State"] == "MIXED+DRAIN"
    assert "Reason=disk swap [root@" in text
    assert c.job_state(job) == "RUNNING"
    assert c.run(["scancel", str(job)]).rc == 0
    c.wait_done(job)
    c.wait_until("drained", lambda: node_states(c)["n1"] == "drain")
    assert node_info(c, "n1")[1]["State"] == "IDLE+DRAIN"
    # DOWN ends the node's jobs NODE_FAIL, and stops what runs of them there.
    mark = os.path.join(c.workdir(), "down-mark")
    one = c.sbatch("-o", "/dev/null", "--wrap",
                   f"trap 'echo term > {mark}; exit 1' TERM; sleep 300 & wait")
    c.wait_state(one, "RUNNING")
    assert c.show_job(one)["NodeList"] == "n3"   # the others are drained
    time.sleep(0.5)   # the trap is set
    assert scontrol(c, "update", "NodeName=n3", "State=DOWN", "Reason=dead fan").rc == 0
    assert c.wait_done(one) == "NODE_FAIL"
    c.wait_until("the job terminated on n3", lambda: os.path.exists(mark))
    assert node_states(c)["n3"] == "down"
    two = c.sbatch("-N", "2", "-o", "/dev/null", "--wrap", "true")
    time.sleep(2)
    assert c.job_state(two) == "PENDING"   # no node is usable
    # Survives a controller crash, and a registration (ReturnToService=2).
    restart_ctld(c)
    time.sleep(2)
    states = node_states(c)
    assert states["n1"] == "drain" and states["n2"] == "drain" and states["n3"] == "down", states
    text, info = node_info(c, "n3")
    assert "Reason=dead fan [root@" in text
    # RESUME: back in service, the waiting job runs.
    assert scontrol(c, "update", "NodeName=n[1-3]", "State=RESUME").rc == 0
    assert c.wait_done(two) == "COMPLETED"
    assert "Reason=" not in node_info(c, "n1")[0]


def test_updates_survive_controller_restart(clean):
    c = clean
    job = c.sbatch("-H", "-t", "20", "-o", "/dev/null", "--wrap", "true", user=USER)
    assert scontrol(c, "update", f"JobId={job}", "TimeLimit=5", "Name=kept", "Comment=note",
                    "Nice=7", "NumNodes=2", "Partition=other", user=USER).rc == 0
    run = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user=USER)
    c.wait_state(run, "RUNNING")
    assert scontrol(c, "requeuehold", str(run), user=USER).rc == 0
    c.wait_state(run, "PENDING")
    later = c.sbatch("-H", "-t", "20", "-o", "/dev/null", "--wrap", "true", user=USER)
    assert scontrol(c, "update", f"JobId={later}", "Account=acct", "QOS=high",
                    "MailUser=me@example.org", "MailType=FAIL", "Requeue=0", "TimeMin=3",
                    "Deadline=2031-02-03T04:05:06", "ExcNodeList=n2", "Features=big",
                    "NumTasks=2", "MinMemoryCPU=20", user=USER).rc == 0
    restart_ctld(c)
    info = c.show_job(job)
    assert (info["TimeLimit"], info["JobName"], info["Comment"], info["Nice"], info["NumNodes"],
            info["Partition"]) == ("00:05:00", "kept", "note", "7", "2", "other")
    info = c.show_job(later)
    assert (info["Account"], info["QOS"], info["MailUser"], info["MailType"], info["Requeue"],
            info["TimeMin"], info["Deadline"], info["ExcNodeList"], info["Features"],
            info["NumTasks"], info["MinMemoryCPU"]) == \
        ("acct", "high", "me@example.org", "FAIL", "0", "00:03:00", "2031-02-03T04:05:06", "n2",
         "big", "2", "20M"), info
    info = c.show_job(run)
    assert (info["JobState"], info["Reason"], info["Restarts"]) == ("PENDING", "JobHeldUser", "1")


def squeue_one(c, job, fmt):
    r = c.run(["squeue", "-h", "-t", "all", "-j", str(job), "-o", fmt])
    assert r.rc == 0, r
    return r.out.strip()


def test_update_more_pending_fields(clean):
    c = clean
    job = c.sbatch("-H", "-t", "20", "-o", "/dev/null", "--wrap", "sleep 300", user=USER)
    info = c.show_job(job)
    assert (info["Account"], info["QOS"], info["Requeue"], info["TimeMin"], info["Deadline"],
            info["Features"], info["ExcNodeList"], info["ReqNodeList"], info["NodeList"]) == \
        ("(null)", "normal", "1", "N/A", "N/A", "(null)", "(null)", "(null)", "(null)"), info
    assert "MailUser" not in info
    r = scontrol(c, "update", f"JobId={job}", "Account=proj", "QOS=high",
                 "MailUser=me@example.org", "MailType=END,FAIL", "Requeue=0", "TimeMin=5",
                 "Deadline=2030-01-02T03:04:05", "ExcNodeList=n2", "Features=big",
                 "NumTasks=2", "CPUsPerTask=1", "MinMemoryCPU=10", user=USER)
    assert (r.rc, r.err) == (0, ""), r
    info = c.show_job(job)
    assert (info["Account"], info["QOS"], info["MailUser"], info["MailType"], info["Requeue"],
            info["TimeMin"], info["Deadline"], info["ExcNodeList"], info["Features"],
            info["NumTasks"], info["CPUs/Task"], info["MinMemoryCPU"]) == \
        ("proj", "high", "me@example.org", "END,FAIL", "0", "00:05:00", "2030-01-02T03:04:05",
         "n2", "big", "2", "1", "10M"), info
    assert squeue_one(c, job, "%q %a") == "high proj"
    # big and not n2: n1, with its two tasks (both of n1's CPUs) and 2 x 10 MB.
    assert scontrol(c, "release", str(job), user=USER).rc == 0
    c.wait_state(job, "RUNNING")
    info = c.show_job(job)
    assert (info["NodeList"], info["NumCPUs"]) == ("n1", "2"), info
    assert "mem=20M" in info["TRES"], info
    # On a running job: mail and requeue may change, the rest not.
    assert scontrol(c, "update", f"JobId={job}", "MailType=NONE", "Requeue=1", user=USER).rc == 0
    info = c.show_job(job)
    assert info["Requeue"] == "1" and "MailUser" not in info, info
    for arg in ("Account=x", "QOS=low", "Features=fast", "ExcNodeList=n3", "ReqNodeList=n3",
                "TimeMin=1", "Deadline=2030-01-01T00:00:00", "NumTasks=1", "CPUsPerTask=1",
                "MinMemoryNode=5"):
        r = scontrol(c, "update", f"JobId={job}", arg, user=USER)
        assert r.rc == 1 and "Job is no longer pending execution" in r.err, (arg, r)
    # ReqNodeList (and its other name NodeList), MinMemoryNode: where and how it runs.
    two = c.sbatch("-H", "-o", "/dev/null", "--wrap", "sleep 300", user=USER)
    assert scontrol(c, "update", f"JobId={two}", "NodeList=n3", "MinMemoryNode=50",
                    user=USER).rc == 0
    info = c.show_job(two)
    assert (info["ReqNodeList"], info["MinMemoryNode"]) == ("n3", "50M"), info
    assert "MinMemoryCPU" not in info
    assert scontrol(c, "update", f"JobId={two}", "ReqNodeList=n[2-3]",
                    "NumNodes=1", user=USER).rc == 0
    # -w longer than -N: the job gets the whole list, as at submission
    info = c.show_job(two)
    assert (info["ReqNodeList"], info["NumNodes"]) == ("n[2-3]", "2"), info
    assert scontrol(c, "update", f"JobId={two}", "ReqNodeList=n3", "NumNodes=1",
                    user=USER).rc == 0
    assert scontrol(c, "release", str(two), user=USER).rc == 0
    c.wait_state(two, "RUNNING")
    assert c.show_job(two)["NodeList"] == "n3"
    # "" clears: Features= and ExcNodeList= back to (null)
    three = c.sbatch("-H", "-C", "fast", "-x", "n3", "-o", "/dev/null", "--wrap", "true",
                     user=USER)
    assert scontrol(c, "update", f"JobId={three}", "Features=", "ExcNodeList=", "QOS=",
                    "Account=", user=USER).rc == 0
    info = c.show_job(three)
    assert (info["Features"], info["ExcNodeList"], info["QOS"], info["Account"]) == \
        ("(null)", "(null)", "normal", "(null)"), info


def test_update_new_field_errors(clean):
    c = clean
    job = c.sbatch("-H", "-t", "20", "-A", "first", "-o", "/dev/null", "--wrap", "true",
                   user=USER)
    refused = [
        (("Features=nosuch",), "Invalid feature specification"),
        (("Features=big&(",), "Invalid feature specification"),
        (("ReqNodeList=n9",), "Invalid node name specified"),
        (("ExcNodeList=n[1-",), "Invalid node name specified"),
        (("ReqNodeList=n1", "ExcNodeList=n1"), "Requested node configuration is not available"),
        (("ExcNodeList=n[1-3]",), "Requested node configuration is not available"),
        (("Features=fast", "ExcNodeList=n1"), "Requested node configuration is not available"),
        (("CPUsPerTask=3",), "Requested node configuration is not available"),
        (("NumTasks=7",), "Requested node configuration is not available"),
        (("MinMemoryNode=10", "MinMemoryCPU=10"), "Invalid argument"),
        (("TimeMin=30",), "Requested time limit is invalid"),
        (("TimeLimit=10", "TimeMin=15"), "Requested time limit is invalid"),
        (("ArrayTaskThrottle=2",), "Invalid job array specification"),
        (("Account=zzz", "Features=nosuch"), "Invalid feature specification"),
    ]
    for args, text in refused:
        r = scontrol(c, "update", f"JobId={job}", *args, user=USER)
        assert r.rc == 1 and r.err.startswith(text) and f" for job {job}\n" in r.err, (args, r)
    # Refused by scontrol itself, before asking.
    for arg in ("MailType=SOMETIMES", "Requeue=2", "TimeMin=soon", "NumTasks=0",
                "CPUsPerTask=x", "MinMemoryNode=lots", "ArrayTaskThrottle=-1"):
        r = scontrol(c, "update", f"JobId={job}", arg, user=USER)
        key = arg.split("=")[0]
        assert r.rc == 1 and f"Invalid {key} value" in r.err, (arg, r)
    r = scontrol(c, "update", f"JobId={job}", "Deadline=whenever", user=USER)
    assert r.rc == 1 and "Invalid input: Deadline=whenever" in r.err, r
    # Nothing of the refused requests stuck.
    info = c.show_job(job)
    assert (info["Account"], info["Features"], info["ReqNodeList"], info["ExcNodeList"],
            info["TimeMin"], info["TimeLimit"], info["NumTasks"], info["MinMemoryNode"]) == \
        ("first", "(null)", "(null)", "(null)", "N/A", "00:20:00", "1", "0"), info
    # Someone else's job: no.
    r = scontrol(c, "update", f"JobId={job}", "QOS=high", user=OTHER)
    assert r.rc == 1 and "Invalid user id" in r.err, r


def running_tasks(c, array):
    r = c.run(["squeue", "-h", "-t", "RUNNING", "-j", str(array), "-o", "%i"])
    return len(r.out.split())


def test_update_array_task_throttle(clean):
    c = clean
    a = c.sbatch("--array=0-3%1", "-o", "/dev/null", "--wrap", "sleep 300", user=USER)
    c.wait_until("one task running", lambda: running_tasks(c, a) == 1)
    time.sleep(1)
    assert running_tasks(c, a) == 1
    assert squeue_one(c, f"{a}_3", "%r") == "JobArrayTaskLimit"
    # Raised on the array's ID: more tasks start (6 CPUs would take all four).
    assert scontrol(c, "update", f"JobId={a}", "ArrayTaskThrottle=3", user=USER).rc == 0
    c.wait_until("three tasks running", lambda: running_tasks(c, a) == 3)
    time.sleep(1)
    assert running_tasks(c, a) == 3
    # show job of the array's ID: every record of it; the pending one carries the throttle
    out = scontrol(c, "show", "job", str(a)).out
    records = [parse_kv(p) for p in out.strip().split("\n\n")]
    assert sorted(r["ArrayTaskId"] for r in records) == ["0", "1", "2", "3%3"], out
    assert [r.get("ArrayTaskThrottle") for r in records if r["ArrayTaskId"] == "3%3"] == ["3"]
    assert all("ArrayTaskThrottle" not in r for r in records if r["ArrayTaskId"] != "3%3")
    r = c.run(["squeue", "-h", "-t", "PENDING", "-j", str(a), "-o", "%i"])
    assert r.out == f"{a}_[3%3]\n", r
    # 0: no limit (Slurm); the field goes.
    assert scontrol(c, "update", f"JobId={a}", "ArrayTaskThrottle=0", user=USER).rc == 0
    c.wait_until("all four running", lambda: running_tasks(c, a) == 4)
    r = scontrol(c, "update", f"JobId={a}", "ArrayTaskThrottle=1", user=OTHER)
    assert r.rc == 1 and "Invalid user id" in r.err, r


def test_show_node_config_fields(clean):
    c = clean
    slurmd_port = c.kv.get("SlurmdPort", "6818")
    for name, feats, gres, tmp, weight in (("n1", "big,fast", "(null)", "0", "1"),
                                           ("n2", "big", "(null)", "0", "1"),
                                           ("n3", "(null)", "gpu:2", "500", "10")):
        text, info = node_info(c, name)
        assert (info["AvailableFeatures"], info["ActiveFeatures"], info["Gres"],
                info["TmpDisk"], info["Weight"]) == (feats, feats, gres, tmp, weight), text
        conf = next(n for n in c.nodes if n["NodeName"] == name)
        port = conf.get("Port", slurmd_port)
        assert ("Port" in info) == (port != slurmd_port), text
        if port != slurmd_port:
            assert info["Port"] == port
        # Slurm 22.05's order of the lines (first key of each).
        firsts = [line.split("=")[0].strip() for line in text.splitlines() if line.strip()]
        assert firsts == ["NodeName", "CPUAlloc", "AvailableFeatures", "ActiveFeatures", "Gres",
                          "NodeAddr", "OS", "RealMemory", "State", "Partitions", "BootTime",
                          "LastBusyTime", "CfgTRES", "AllocTRES", "CapWatts", "CurrentWatts",
                          "ExtSensorsJoules"], text
        assert re.search(r"^   State=\S+ ThreadsPerCore=\d+ TmpDisk=\d+ Weight=\d+ "
                         r"Owner=N/A MCS_label=N/A$", text, re.M), text


def test_show_partition_settings(clean):
    c = clean
    r = scontrol(c, "show", "partition", "third")
    assert r.rc == 0, r
    info = parse_kv(r.out)
    assert (info["AllowGroups"], info["AllocNodes"], info["RootOnly"], info["MaxCPUsPerNode"],
            info["PreemptMode"], info["Nodes"], info["Default"]) == \
        ("wheel", "n1", "YES", "1", "REQUEUE", "n3", "NO"), r.out
    info = parse_kv(scontrol(c, "show", "partition", "other").out)
    assert (info["AllowGroups"], info["AllocNodes"], info["RootOnly"], info["MaxCPUsPerNode"],
            info["PreemptMode"], info["MaxTime"]) == \
        ("ALL", "ALL", "NO", "UNLIMITED", "OFF", "00:30:00"), info
