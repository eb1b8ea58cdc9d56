"""sacct's TRES and usage fields, sizes and --json on a real cluster,
compared with what Slurm 22.05's sacct prints: AllocTRES/ReqTRES in
Slurm's form (billing=2,cpu=2,mem=200M,node=1), TRESUsageInTot/Max/Ave
from what the step daemons measured (and agreeing with MaxRSS, AveRSS,
TotalCPU), --units/--noconvert, Reserved/ResvCPU, QOS/Cluster/Timelimit,
-o all, and the dbv0.0.38 job objects of --json."""
import json
import math
import os
import re

import pytest

USER = "herdu1"
# two tasks of about 40 MiB each, each using 0.6 s of CPU (however busy the machine)
WORK = ("srun -n2 python3 -c 'x = bytearray(40 << 20); import time\n"
        "while time.process_time() < 0.6: pass'")


def ok(cluster, *args, user=USER):
    r = cluster.run(["sacct", *args], user=user)
    assert r.rc == 0 and r.err == "", r
    return r.out


def rows(cluster, job, fields, *extra, user=USER):
    """{JobID: {field: value}} of sacct -P for the job."""
    out = ok(cluster, "-j", str(job), "-P", "-o", fields, *extra, user=user)
    lines = out.splitlines()
    names = lines[0].split("|")
    return {line.split("|")[0]: dict(zip(names, line.split("|"))) for line in lines[1:]}


def size_kb(text):
    """MaxRSS's default form (exact units) back to kilobytes."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    assert m, text
    return int(m.group(1)) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}[
        m.group(2)]


def cpu_seconds(text):
    """TotalCPU (MM:SS.mmm or [D-]HH:MM:SS) in seconds."""
    m = re.fullmatch(r"(\d+):(\d\d)\.(\d{3})", text)
    if m:
        return int(m.group(1)) * 60 + int(m.group(2)) + int(m.group(3)) / 1000
    h, mi, s = (int(x) for x in text.split("-")[-1].split(":"))
    d = int(text.split("-")[0]) if "-" in text else 0
    return ((d * 24 + h) * 60 + mi) * 60 + s


def hms(text):
    d = 0
    if "-" in text:
        d, text = text.split("-")
    h, m, s = (int(x) for x in text.split(":"))
    return ((int(d) * 24 + h) * 60 + m) * 60 + s


@pytest.fixture(scope="module")
def jobs(cluster, users):
    cluster.wait_nodes_idle()
    wd = cluster.workdir(USER)
    j = {}
    out = os.path.join(wd, "tres-%j.out")
    # On n4: step cgroups are herd/NODE/job_N/step_S, the same path for
    # every test cluster on this host, and other sessions' first jobs run
    # on n1 (one ending there killed this step now and then).
    j["work"] = cluster.sbatch("-w", "n4", "-N1", "-n2", "--mem=200M", "-t", "5", "-o", out,
                               "--wrap", WORK, user=USER, cwd=wd)
    j["percpu"] = cluster.sbatch("-N2", "-n2", "--mem-per-cpu=100", "-o", out,
                                 "--wrap", "true", user=USER, cwd=wd)
    for name in ("work", "percpu"):
        state = cluster.wait_done(j[name], timeout=90)
        path = out.replace("%j", str(j[name]))
        assert state == "COMPLETED", (
            name, open(path).read() if os.path.exists(path) else "",
            cluster.run(["sacct", "-j", str(j[name]), "-P", "-o", "jobid,state,exitcode,nodelist"]).out,
            cluster.logs(15))
    j["held"] = cluster.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    yield j
    cluster.run(["scancel", str(j["held"])])


def test_tres_strings(cluster, jobs):
    job = jobs["work"]
    got = rows(cluster, job, "jobid,alloctres,reqtres,reqmem,ncpus,nnodes")
    assert list(got) == [str(job), f"{job}.batch", f"{job}.0"]
    assert got[str(job)]["AllocTRES"] == "billing=2,cpu=2,mem=200M,node=1"
    assert got[str(job)]["ReqTRES"] == "billing=2,cpu=2,mem=200M,node=1"
    assert got[str(job)]["ReqMem"] == "200M"
    # the batch step: its node's CPUs and memory, no billing; requests are the job's
    assert got[f"{job}.batch"]["AllocTRES"] == "cpu=2,mem=200M,node=1"
    assert got[f"{job}.batch"]["ReqTRES"] == "" and got[f"{job}.batch"]["ReqMem"] == ""
    assert re.fullmatch(r"cpu=2,mem=\d+[MG]?,node=1", got[f"{job}.0"]["AllocTRES"]), got
    # --mem-per-cpu: the CPUs times it
    pc = jobs["percpu"]
    got = rows(cluster, pc, "jobid,alloctres,reqtres,reqmem", "-X")
    assert got[str(pc)]["ReqMem"] == "200M"
    assert got[str(pc)]["ReqTRES"] == "billing=2,cpu=2,mem=200M,node=2"
    # pending: requested, nothing allocated
    held = jobs["held"]
    got = rows(cluster, held, "jobid,alloctres,reqtres,allocnodes,nodelist")
    assert got[str(held)]["AllocTRES"] == "" and got[str(held)]["AllocNodes"] == "0"
    assert re.fullmatch(r"billing=1,cpu=1,mem=\d+[MG]?,node=1", got[str(held)]["ReqTRES"]), got
    assert got[str(held)]["NodeList"] == "None assigned"


def test_usage_agrees_with_maxrss_and_totalcpu(cluster, jobs):
    job = jobs["work"]
    got = rows(cluster, job, "jobid,tresusageintot,tresusageinmax,tresusageinave,maxrss,averss,"
                             "totalcpu,ntasks")
    step = got[f"{job}.0"]
    assert step["NTasks"] == "2"
    usage = {}
    for kind in ("Tot", "Max", "Ave"):
        text = step[f"TRESUsageIn{kind}"]
        m = re.fullmatch(r"cpu=(\d\d:\d\d:\d\d),mem=(\d+[KMGT]?)", text)
        assert m, (kind, text)
        usage[kind] = (hms(m.group(1)), m.group(2))
    total = cpu_seconds(step["TotalCPU"])
    assert total >= 1.2, step   # two tasks of 0.6 s
    assert usage["Tot"][0] == math.floor(total), (usage, step)
    assert usage["Ave"][0] == math.floor(total / 2), (usage, step)
    assert usage["Max"][0] <= usage["Tot"][0]
    # one node: its peak is the step's maximum and its total
    assert usage["Max"][1] == step["MaxRSS"] == usage["Tot"][1], (usage, step)
    assert usage["Ave"][1] == step["AveRSS"], (usage, step)
    assert size_kb(step["MaxRSS"]) >= 40 * 1024, step
    # the job and its batch step carry none (the batch script is not measured)
    for line in (str(job), f"{job}.batch"):
        assert [got[line][f"TRESUsageIn{k}"] for k in ("Tot", "Max", "Ave")] == ["", "", ""]
    # the job's TotalCPU adds up its steps; with -X Slurm reads no steps
    assert got[str(job)]["TotalCPU"] == step["TotalCPU"]
    assert rows(cluster, job, "jobid,totalcpu", "-X")[str(job)]["TotalCPU"] == "00:00:00"


def test_units_and_noconvert(cluster, jobs):
    job = jobs["work"]
    base = rows(cluster, job, "jobid,maxrss,averss,tresusageintot,reqmem,alloctres")
    kb = size_kb(base[f"{job}.0"]["MaxRSS"])
    got = rows(cluster, job, "jobid,maxrss,tresusageintot,reqmem,alloctres", "--units=M")
    mb = kb / 1024
    want = f"{mb:.0f}M" if mb == int(mb) else f"{mb:.2f}M"
    assert got[f"{job}.0"]["MaxRSS"] == want, got
    assert got[f"{job}.0"]["TRESUsageInTot"].endswith(f",mem={want}"), got
    assert got[str(job)]["ReqMem"] == "200M"
    # TRES strings keep Slurm's own form whatever the unit
    assert got[str(job)]["AllocTRES"] == base[str(job)]["AllocTRES"]
    assert rows(cluster, job, "jobid,reqmem", "-X", "--units=k")[str(job)]["ReqMem"] == "204800K"
    assert rows(cluster, job, "jobid,reqmem", "-X", "--units=G")[str(job)]["ReqMem"] == "0.20G"
    # --noconvert: sizes as counted, bytes without a suffix
    got = rows(cluster, job, "jobid,maxrss,averss,tresusageintot,reqmem", "--noconvert")
    assert got[f"{job}.0"]["MaxRSS"] == str(int(kb * 1024)), got
    assert got[f"{job}.0"]["AveRSS"] == str(int(size_kb(base[f"{job}.0"]["AveRSS"]) * 1024))
    assert got[f"{job}.0"]["TRESUsageInTot"].endswith(f",mem={int(kb * 1024)}"), got
    assert got[str(job)]["ReqMem"] == "200M"
    r = cluster.run(["sacct", "--units=x"])
    assert r.rc == 1 and r.out == "" and r.err == (
        "sacct: error: Invalid unit type 'x'. Possible options are 'KMGTP'\n"
        "sacct: fatal: Invalid unit type\n"), r


def test_reserved_is_start_minus_eligible(cluster, users):
    wd = cluster.workdir(USER)
    # the second job waits for the first to give n3 back
    first = cluster.sbatch("-w", "n3", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 3",
                           user=USER, cwd=wd)
    cluster.wait_state(first, "RUNNING")
    second = cluster.sbatch("-w", "n3", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    assert cluster.wait_done(second, timeout=60) == "COMPLETED"
    got = rows(cluster, second, "jobid,reserved,resvcpu,resvcpuraw,start,eligible,alloccpus")
    job = got[str(second)]
    import datetime
    start = datetime.datetime.fromisoformat(job["Start"])
    eligible = datetime.datetime.fromisoformat(job["Eligible"])
    secs = int((start - eligible).total_seconds())
    assert secs >= 1, job
    assert hms(job["Reserved"]) == secs, job
    assert int(job["ResvCPURAW"]) == secs * int(job["AllocCPUS"]), job
    assert hms(job["ResvCPU"]) == int(job["ResvCPURAW"]), job
    # the batch step has none
    assert [got[f"{second}.batch"][k] for k in ("Reserved", "ResvCPU", "ResvCPURAW")] == \
        ["", "", ""]


def test_held_job_is_not_eligible(cluster, jobs):
    got = rows(cluster, jobs["held"], "jobid,state,reason,eligible,reserved,start,timelimit")
    assert got[str(jobs["held"])] == {
        "JobID": str(jobs["held"]), "State": "PENDING", "Reason": "JobHeldUser",
        "Eligible": "Unknown", "Reserved": "00:00:00", "Start": "Unknown",
        "Timelimit": got[str(jobs["held"])]["Timelimit"]}
    assert got[str(jobs["held"])]["Timelimit"] in ("UNLIMITED", "Partition_Limit")


def test_record_fields(cluster, jobs):
    job = jobs["work"]
    got = rows(cluster, job, "jobid,qos,cluster,timelimit,timelimitraw,reason,user,group,uid")
    j = got[str(job)]
    assert (j["QOS"], j["Cluster"], j["Timelimit"], j["TimelimitRaw"], j["Reason"], j["User"]) == \
        ("normal", cluster.name, "00:05:00", "5", "None", USER), j
    step = got[f"{job}.0"]
    assert (step["QOS"], step["Cluster"], step["Timelimit"], step["User"]) == \
        ("", cluster.name, "", ""), step


def test_format_all(cluster, jobs):
    names = ok(cluster, "--helpformat").split()
    out = ok(cluster, "-j", str(jobs["work"]), "-X", "-P", "-o", "all")
    lines = out.splitlines()
    assert lines[0].split("|") == names
    assert len(lines) == 2 and len(lines[1].split("|")) == len(names)
    # "a" means all too, as in Slurm; the fixed-width form has Slurm's widths
    out = ok(cluster, "-j", str(jobs["work"]), "-X", "-o", "a")
    dashes = out.splitlines()[1].split()
    assert len(dashes) == len(names)
    widths = dict(zip(names, map(len, dashes)))
    assert (widths["JobID"], widths["DBIndex"], widths["Reason"], widths["ReservationId"],
            widths["TRESUsageOutMaxNode"]) == (12, 10, 22, 8, 19)
    assert "Reservat " in out.splitlines()[0], "titles are cut plainly"


def test_json(cluster, users, jobs):
    job = jobs["work"]
    out = ok(cluster, "-j", str(job), "--json")
    assert "openapi\\/dbv0.0.38" in out, "slashes escaped, as Slurm's JSON writer does"
    doc = json.loads(out)
    assert doc["meta"]["plugin"]["type"] == "openapi/dbv0.0.38"
    assert doc["meta"]["Slurm"]["release"] == "22.05.8"
    assert doc["errors"] == [] and len(doc["jobs"]) == 1
    j = doc["jobs"][0]
    table = rows(cluster, job, "jobid,jobname,user,account,partition,nodelist,cluster,state,"
                               "elapsedraw,submit,maxrss,totalcpu,alloccpus")
    t = table[str(job)]
    assert (j["job_id"], j["name"], j["user"], j["account"], j["partition"], j["nodes"],
            j["cluster"]) == (job, t["JobName"], USER, t["Account"], t["Partition"],
                              t["NodeList"], cluster.name)
    assert j["state"] == {"current": "COMPLETED", "reason": "None"}
    assert j["association"] == {"account": t["Account"], "cluster": cluster.name,
                                "partition": None, "user": USER}
    assert j["exit_code"] == {"status": "SUCCESS", "return_code": 0}
    assert j["time"]["elapsed"] == int(t["ElapsedRaw"]) and j["time"]["limit"] == 5
    assert j["time"]["start"] > 0 and j["time"]["end"] >= j["time"]["start"]
    assert j["time"]["eligible"] >= j["time"]["submission"] > 0
    assert j["tres"]["allocated"] == j["tres"]["requested"] == [
        {"type": "cpu", "name": None, "id": 1, "count": 2},
        {"type": "mem", "name": None, "id": 2, "count": 200},
        {"type": "node", "name": None, "id": 4, "count": 1},
        {"type": "billing", "name": None, "id": 5, "count": 2}]
    assert [s["step"]["id"] for s in j["steps"]] == ["batch", 0]
    batch, s0 = j["steps"]
    assert batch["state"] == "COMPLETED" and batch["tasks"] == {"count": 1}
    assert s0["step"] == {"job_id": job, "het": {"component": None}, "id": 0, "name": "python3"}
    assert s0["tasks"] == {"count": 2} and s0["nodes"]["count"] == 1
    assert s0["nodes"]["list"] == [t["NodeList"]]
    total = {e["type"]: e["count"] for e in s0["tres"]["requested"]["total"]}
    step = table[f"{job}.0"]
    assert total["mem"] == size_kb(step["MaxRSS"]) * 1024, (total, step)
    assert total["cpu"] == round(cpu_seconds(step["TotalCPU"]) * 1000), (total, step)
    # -X: the job alone
    doc = json.loads(ok(cluster, "-j", str(job), "--json", "-X"))
    assert doc["jobs"][0]["steps"] == []
    # nothing found: the job is someone else's, or there is none
    for args, user in ((["-j", str(job)], "herdu2"), (["-j", "999999"], USER)):
        doc = json.loads(ok(cluster, *args, "--json", user=user))
        assert doc["jobs"] == [] and doc["errors"][0]["error_number"] == 9003, doc
