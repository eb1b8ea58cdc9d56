"""Accounting of GPUs (doc/gres.md section 4, issue 16 item 5): with
AccountingStorageTRES=gres/gpu,gres/gpu:h100 sacct's AllocTRES and ReqTRES
of a GPU job, its batch step and its steps name gres/gpu and gres/gpu:h100
(-P, %N widths, --json), and without it they do not; association and QOS
limits on gres/gpu keep a job pending with Slurm's reasons; a partition's
TRESBillingWeights GRES/gpu weighs the GPUs in billing; sshare shows the
GPU-minutes running jobs have left; sreport -T gres/gpu adds up to sacct's
GPU time; herdd samples the fake NVML's memory and utilisation while a job
runs and sacct shows them as TRESUsageInMax/Ave/Tot gres/gpumem and
gres/gpuutil.  One cluster: 2 nodes of 4 CPUs and 2 fake H100s each,
reported through the fake NVML (herd up --gpu-nvml)."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import BIN, Cluster, make_root, stop_cluster
from cmd_helpers import wait_reason

TRES = "gres/gpu,gres/gpu:h100"


def ok(c, args, user=None):
    r = c.run(args, user=user)
    assert r.rc == 0, r
    return r.out


def set_conf(c, **keys):
    with open(c.conf) as f:
        lines = [line for line in f if line.split("=", 1)[0] not in keys]
    lines += [f"{k}={v}\n" for k, v in keys.items() if v is not None]
    with open(c.conf, "w") as f:
        f.writelines(lines)
    ok(c, ["scontrol", "reconfigure"])


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def nvml_file(c, node):
    return os.path.join(c.dir, "dev", node, "nvml.conf")


def set_gpus(c, node, *gpus):
    """The fake NVML's GPUs of node: (mem_used MiB, util %) each."""
    with open(nvml_file(c, node), "w") as f:
        for minor, (mem, util) in enumerate(gpus):
            f.write(f"name=h100;minor={minor};mem_used={mem};util={util}\n")


@pytest.fixture(scope="module")
def c(users):
    root = make_root()
    cl = Cluster(root, 2)
    try:
        cl.up("--cpus", "4", "--gpus", "2", "--gpu-nvml", "--gpu-type", "h100")
        with open(cl.conf, "a") as f:
            f.write(f"AccountingStorageTRES={TRES}\nJobAcctGatherFrequency=1\n"
                    "AccountingStorageEnforce=associations,limits,qos\n"
                    "PartitionName=bill Nodes=ALL TRESBillingWeights=CPU=1.0,GRES/gpu=2.0\n")
        ok(cl, ["scontrol", "reconfigure"])
        cl.t0 = time.time()
        yield cl
    finally:
        stop_cluster(cl)
        shutil.rmtree(root, ignore_errors=True)


def run_job(c, *args):
    j = c.sbatch("-o", "/dev/null", *args)
    assert c.wait_done(j) == "COMPLETED"
    return j


def sacct_rows(c, job, fields, *extra):
    out = ok(c, ["sacct", "-P", "-j", str(job), "-o", fields, *extra])
    lines = out.splitlines()
    head = lines[0].split("|")
    return {row["JobID"]: row for row in (dict(zip(head, line.split("|"))) for line in lines[1:])}


def test_alloc_and_req_tres(c):
    j = run_job(c, "--gres=gpu:2", "-w", "n1", "--wrap", "srun true")
    rows = sacct_rows(c, j, "JobID,AllocTRES,ReqTRES")
    job, batch, step = rows[str(j)], rows[f"{j}.batch"], rows[f"{j}.0"]
    # Slurm's sacct order: gres/gpu:h100 sorts before gres/gpu
    assert re.fullmatch(r"billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2,mem=\d+M?,node=1",
                        job["AllocTRES"]), job
    assert re.fullmatch(r"billing=1,cpu=1,gres/gpu=2,mem=\d+M?,node=1", job["ReqTRES"]), job
    assert "gres/gpu:h100=2,gres/gpu=2," in batch["AllocTRES"], batch
    assert "gres/gpu:h100=2,gres/gpu=2," in step["AllocTRES"], step
    assert batch["ReqTRES"] == ""
    # a column as wide as asked: the whole list, not cut
    out = ok(c, ["sacct", "-X", "-n", "-j", str(j), "-o", "AllocTRES%70"])
    assert out.strip() == job["AllocTRES"]
    out = ok(c, ["sacct", "-X", "-n", "-j", str(j), "-o", "AllocTRES"])
    assert out.strip() == "billing=1+"
    # --json: gres entries after billing, gres/gpu's ID 1001
    doc = json.loads(ok(c, ["sacct", "-j", str(j), "--json"]))
    (rec,) = doc["jobs"]
    gres = [t for t in rec["tres"]["allocated"] if t["type"] == "gres"]
    assert {(t["name"], t["count"]) for t in gres} == {("gpu", 2), ("gpu:h100", 2)}
    assert [t["id"] for t in gres if t["name"] == "gpu"] == [1001]
    assert [t["count"] for t in rec["tres"]["requested"] if t["type"] == "gres"] == [2]


def test_step_alloc_tres_is_its_own(c):
    """A step that asked one of the job's two GPUs shows one; a plain step
    (all the job's) shows both."""
    j = run_job(c, "--gres=gpu:2", "-w", "n1", "--wrap", "srun --gres=gpu:1 true; srun true")
    rows = sacct_rows(c, j, "JobID,AllocTRES")
    assert "gres/gpu:h100=1,gres/gpu=1," in rows[f"{j}.0"]["AllocTRES"], rows
    assert "gres/gpu:h100=2,gres/gpu=2," in rows[f"{j}.1"]["AllocTRES"], rows


def test_per_node_request_on_two_nodes(c):
    j = run_job(c, "-N2", "--gpus-per-node=1", "--wrap", "srun -N2 true")
    rows = sacct_rows(c, j, "JobID,AllocTRES,ReqTRES")
    assert "gres/gpu:h100=2,gres/gpu=2," in rows[str(j)]["AllocTRES"]
    assert "gres/gpu=2," in rows[str(j)]["ReqTRES"]
    assert "gres/gpu:h100=1,gres/gpu=1," in rows[f"{j}.batch"]["AllocTRES"]   # its node's
    assert "gres/gpu:h100=2,gres/gpu=2," in rows[f"{j}.0"]["AllocTRES"]


def test_not_recorded_unless_named(c):
    set_conf(c, AccountingStorageTRES=None)
    try:
        j = run_job(c, "--gres=gpu:1", "--wrap", "true")
    finally:
        set_conf(c, AccountingStorageTRES=TRES)
    rows = sacct_rows(c, j, "JobID,AllocTRES,ReqTRES")
    assert "gres/" not in rows[str(j)]["AllocTRES"] + rows[str(j)]["ReqTRES"], rows
    assert "gres/" not in rows[f"{j}.batch"]["AllocTRES"], rows
    # gres/gpu alone: the typed one is not recorded
    set_conf(c, AccountingStorageTRES="gres/gpu")
    try:
        j = run_job(c, "--gres=gpu:1", "--wrap", "true")
    finally:
        set_conf(c, AccountingStorageTRES=TRES)
    alloc = sacct_rows(c, j, "JobID,AllocTRES")[str(j)]["AllocTRES"]
    assert "gres/gpu=1," in alloc and "h100" not in alloc, alloc


def test_limits_on_gres_gpu(c):
    ok(c, ["sacctmgr", "-i", "add", "qos", "gpu1", "MaxTRESPerJob=gres/gpu=1"])
    ok(c, ["sacctmgr", "-i", "modify", "user", "root", "set", "qos+=gpu1"])
    j = c.sbatch("-o", "/dev/null", "--qos=gpu1", "--gres=gpu:2", "--wrap", "true")
    wait_reason(c, j, "QOSMaxGRESPerJob")
    one = run_job(c, "--qos=gpu1", "--gres=gpu:1", "--wrap", "true")
    assert "gres/gpu=1," in sacct_rows(c, one, "JobID,AllocTRES")[str(one)]["AllocTRES"]
    ok(c, ["scancel", str(j)])
    ok(c, ["sacctmgr", "-i", "modify", "user", "root", "set", "MaxTRESPerJob=gres/gpu=1"])
    try:
        k = c.sbatch("-o", "/dev/null", "--gres=gpu:2", "--wrap", "true")
        wait_reason(c, k, "AssocMaxGRESPerJob")
        ok(c, ["sacctmgr", "-i", "modify", "user", "root", "set", "MaxTRESPerJob=gres/gpu=-1"])
        assert c.wait_done(k) == "COMPLETED"
    finally:
        ok(c, ["sacctmgr", "-i", "modify", "user", "root", "set", "MaxTRESPerJob=gres/gpu=-1"])


def test_gpu_minutes_limit(c):
    """GPU-seconds are charged to the association: under GrpTRESMins=
    gres/gpu=1 a 2-GPU job is ended (TIMEOUT, as Slurm) after some 30 s,
    and the next GPU job waits with Slurm's reason."""
    ok(c, ["sacctmgr", "-i", "add", "account", "gpumin"])
    ok(c, ["sacctmgr", "-i", "add", "user", "root", "account=gpumin"])
    ok(c, ["sacctmgr", "-i", "modify", "account", "gpumin", "set", "GrpTRESMins=gres/gpu=1"])
    first = c.sbatch("-o", "/dev/null", "-A", "gpumin", "--gres=gpu:2", "--wrap", "sleep 120")
    j = None
    try:
        assert c.wait_done(first, timeout=90) == "TIMEOUT"
        secs = int(ok(c, ["sacct", "-X", "-n", "-P", "-j", str(first), "-o", "ElapsedRaw"]))
        assert 28 <= secs <= 45, secs
        j = c.sbatch("-o", "/dev/null", "-A", "gpumin", "--gres=gpu:1", "--wrap", "true")
        wait_reason(c, j, "AssocGrpGRESMinutes")
        out = ok(c, ["sshare", "-P", "-n", "-A", "gpumin", "-o", "Account,User,GrpTRESRaw"])
        line = next(row for row in out.splitlines() if row.split("|")[1] == "")
        assert re.search(r"(^|,)gres/gpu=1(,|$)", line.split("|")[2]), line
    finally:
        ok(c, ["scancel", str(first)] + ([str(j)] if j else []))
        ok(c, ["sacctmgr", "-i", "modify", "account", "gpumin", "set", "GrpTRESMins=gres/gpu=-1"])


def test_billing_weights_and_sshare(c):
    j = c.sbatch("-o", "/dev/null", "-p", "bill", "--gres=gpu:2", "-t", "10", "--wrap", "sleep 30")
    c.wait_state(j, "RUNNING")
    try:
        # 1 CPU x 1.0 + 2 GPUs x 2.0
        out = ok(c, ["sacct", "-X", "-n", "-P", "-j", str(j), "-o", "AllocTRES"])
        assert out.startswith("billing=5,cpu=1,gres/gpu:h100=2,gres/gpu=2,"), out
        tres = c.show_job(j)["TRES"]   # scontrol show job: the same billing
        assert tres.startswith("cpu=1,") and ",billing=5," in tres and "gres/gpu=2" in tres, tres
        # TRESRunMins: GPU-minutes left to its time limit (2 x 10)
        out = ok(c, ["sshare", "-P", "-n", "-u", "root", "-o", "Account,User,GrpTRESRaw,TRESRunMins"])
        line = next(row for row in out.splitlines() if row.split("|")[1] == "root")
        raw, run = line.split("|")[2:]
        assert re.search(r"(^|,)gres/gpu=\d+(,|$)", raw), line
        m = re.search(r"(^|,)gres/gpu=(\d+)", run)
        assert m and 18 <= int(m.group(2)) <= 20, line
        assert re.search(r"(^|,)billing=(4[6-9]|50)(,|$)", run), line   # 5 x ~10 minutes
    finally:
        ok(c, ["scancel", str(j)])
        c.wait_done(j)


def test_sreport_gpu_hours(c):
    # the window is whole hours: keep the jobs out of the last minutes of one
    if 3600 - time.time() % 3600 < 60:
        time.sleep(3600 - time.time() % 3600 + 1)
    run_job(c, "--gres=gpu:2", "--wrap", "sleep 3")
    run_job(c, "-N2", "--gpus-per-node=1", "--wrap", "sleep 2")
    lt = time.localtime()
    start = int(time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday, lt.tm_hour, 0, 0, 0, 0, -1)))
    args = [f"start={stamp(start)}", f"end={stamp(start + 7200)}"]
    # sacct's GPU time of every job, within the window (an earlier test's
    # job may have begun before it)
    out = ok(c, ["sacct", "-a", "-X", "-n", "-P", "-o", "Start,End,AllocTRES", "-S", stamp(start),
                 "-E", stamp(start + 3600)])
    want = 0
    for line in out.splitlines():
        begin, end, tres = line.split("|")
        m = re.search(r"(^|,)gres/gpu=(\d+)", tres)
        if not m or begin in ("", "None", "Unknown"):
            continue
        t = [time.mktime(time.strptime(x, "%Y-%m-%dT%H:%M:%S")) for x in (begin, end)]
        want += max(0, int(min(t[1], start + 3600) - max(t[0], start))) * int(m.group(2))
    assert want >= 5
    out = ok(c, ["sreport", "-P", "-n", "-T", "gres/gpu", "-t", "seconds", "cluster",
                 "AccountUtilizationByUser", *args])
    rows = [line.split("|") for line in out.splitlines()]
    assert rows[0][1:] == ["root", "", "", "gres/gpu", str(want)], (rows, want)
    out = ok(c, ["sreport", "-P", "-n", "-T", "gres/gpu", "-t", "seconds", "cluster",
                 "utilization", *args])
    cluster, name, alloc, down, pdown, idle, resv, rep = out.strip().split("|")
    assert (name, int(alloc)) == ("gres/gpu", want)
    assert int(alloc) + int(idle) == int(rep) and int(rep) % 4 == 0   # 4 GPUs
    # the CPU report is still the CPUs'
    out = ok(c, ["sreport", "-P", "-n", "-T", "cpu", "-t", "seconds", "cluster",
                 "utilization", *args])
    assert out.split("|")[1] == "cpu"
    r = c.run(["sreport", "-T", "gres/shard", "cluster", "utilization"])
    assert r.rc == 1 and "gres/gpu" in r.err


def test_gpumem_gpuutil_sampled(c):
    set_gpus(c, "n1", (1000, 30), (2048, 50))
    try:
        j = c.sbatch("-o", "/dev/null", "-w", "n1", "--gres=gpu:2", "--wrap",
                     "srun sleep 5")
        c.wait_state(j, "RUNNING")
        time.sleep(3)
        set_gpus(c, "n1", (1000, 100), (2048, 50))   # read again at each sample
        assert c.wait_done(j) == "COMPLETED"

        def rows():
            r = sacct_rows(c, j, "JobID,TRESUsageInMax,TRESUsageInAve,TRESUsageInTot")
            return r if all("gpumem" in r[k]["TRESUsageInMax"] for k in (f"{j}.batch", f"{j}.0")) \
                else None
        r = c.wait_until("the GPU samples in the record", rows, timeout=20)
    finally:
        set_gpus(c, "n1", (0, 0), (0, 0))
    step = r[f"{j}.0"]
    # summed over the step's two GPUs; memory as Slurm prints it (MiB)
    assert "gres/gpumem=3048M,gres/gpuutil=150," in step["TRESUsageInMax"], step
    assert re.match(r"cpu=[0-9:]+,gres/gpumem=3048M,gres/gpuutil=\d+,mem=", step["TRESUsageInAve"])
    ave = int(re.search(r"gpuutil=(\d+)", step["TRESUsageInAve"]).group(1))
    assert 80 <= ave < 150, step
    assert "gres/gpumem=3048M,gres/gpuutil=150," in step["TRESUsageInTot"]   # one node
    assert r[f"{j}.batch"]["TRESUsageInMax"] == "gres/gpumem=3048M,gres/gpuutil=150"
    assert r[str(j)]["TRESUsageInMax"] == ""
    doc = json.loads(ok(c, ["sacct", "-j", str(j), "--json"]))
    (rec,) = doc["jobs"]
    found = {(t["name"], t["count"]) for s in rec["steps"] for t in s["tres"]["requested"]["max"]
             if t["type"] == "gres"}
    assert ("gpumem", 3048 * 1048576) in found and ("gpuutil", 150) in found, found


def test_sampled_after_herdd_restart(c):
    """A restarted herdd samples the steps it adopts again (launch.json)."""
    set_gpus(c, "n1", (500, 10), (700, 20))
    try:
        j = c.sbatch("-o", "/dev/null", "-w", "n1", "--gres=gpu:2", "--wrap", "sleep 8")
        c.wait_state(j, "RUNNING")
        time.sleep(2)   # launched (herdstepd runs), before herdd stops
        pid = c.herdd_pid("n1")
        with open(f"/proc/{pid}/environ", "rb") as f:   # the fake NVML's variables
            env = dict(v.decode().split("=", 1) for v in f.read().split(b"\0") if b"=" in v)
        os.kill(pid, signal.SIGTERM)
        c.wait_until("herdd n1 gone", lambda: not c.daemon_pids("herdd", "n1"), timeout=20)
        with open(os.path.join(c.dir, "log", "herdd-n1-restart.out"), "ab") as out:
            subprocess.Popen([os.path.join(BIN, "herdd"), "-N", "n1", "-f", c.conf],
                             stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
                             start_new_session=True)
        c.wait_until("herdd n1 back", lambda: c.daemon_pids("herdd", "n1"), timeout=20)
        assert c.wait_done(j) == "COMPLETED"

        def batch():
            v = sacct_rows(c, j, "JobID,TRESUsageInMax")[f"{j}.batch"]["TRESUsageInMax"]
            return v or None
        assert c.wait_until("the batch step's samples", batch, timeout=20) == \
            "gres/gpumem=1200M,gres/gpuutil=30"
    finally:
        set_gpus(c, "n1", (0, 0), (0, 0))
