"""scontrol as users and admins use it: show job/node/partition fields, in
Slurm 22.05's order, and the one-line form, -d's detail lines,
ExitCode=code:signal, hostname list expansion (and bad lists), hold and
release by users and by root, and ping.  One shared 4-node cluster (2 CPUs
per node)."""
import os
import pwd
import re

from conftest import BIN, parse_kv
from cmd_helpers import clean, read, squeue_field, stays, wait_reason, wait_text, write_script

USER = "herdu1"


def scontrol(c, *args, user=None, rc=0):
    r = c.run(["scontrol", *args], user=user)
    assert r.rc == rc, r
    return r


def test_show_running_job(clean):
    c = clean
    wd = c.workdir(USER)
    pw = pwd.getpwnam(USER)
    script = write_script(os.path.join(wd, "show.sh"),
                          "#!/bin/sh\n#SBATCH -J showme\necho started\nsleep 300\n", owner=USER)
    job_id = c.sbatch("-t", "10", "-o", "show-%j.out", script, user=USER, cwd=wd)
    c.wait_state(job_id, "RUNNING")
    r = scontrol(c, "show", "job", str(job_id), user=USER)
    text = r.out
    info = parse_kv(text)
    assert text.startswith(f"JobId={job_id} JobName=showme\n")
    assert info["UserId"] == f"{USER}({pw.pw_uid})"
    assert info["GroupId"].endswith(f"({pw.pw_gid})")
    assert info["JobState"] == "RUNNING"
    assert info["Reason"] == "None"
    assert info["NumNodes"] == "1"
    assert info["NumCPUs"] == "1"
    assert info["NumTasks"] == "1"
    assert info["TimeLimit"] == "00:10:00"
    assert info["Partition"] == "debug"
    assert info["WorkDir"] == wd
    assert info["StdOut"] == os.path.join(wd, f"show-{job_id}.out")
    assert info["StdErr"] == info["StdOut"]
    assert info["Command"] == script
    assert info["ExitCode"] == "0:0"
    assert info["NodeList"] == info["BatchHost"] and info["NodeList"] in ("n1", "n2", "n3", "n4")
    assert re.fullmatch(r"\d\d:\d\d:\d\d", info["RunTime"]), info["RunTime"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", info["StartTime"])
    # A paragraph: first line flush left, the rest indented by three blanks,
    # a blank line after the record.
    lines = text.split("\n")
    assert all(line.startswith("   ") for line in lines[1:-2]), text
    assert text.endswith("\n\n")
    # -o: the same fields on one line.
    r = scontrol(c, "-o", "show", "job", str(job_id))
    assert r.out.count("\n") == 1 and r.out.startswith(f"JobId={job_id} JobName=showme ")
    one = parse_kv(r.out)
    assert {k: one[k] for k in info if k != "RunTime"} == \
        {k: v for k, v in info.items() if k != "RunTime"}
    wait_text(c, info["StdOut"], "started\n")


def test_exit_codes(clean):
    c = clean
    wd = c.workdir(USER)
    three = c.sbatch("-o", "/dev/null", "--wrap", "exit 3", user=USER, cwd=wd)
    killed = c.sbatch("-o", "/dev/null", "--wrap", "kill -9 $$", user=USER, cwd=wd)
    ok = c.sbatch("-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    assert c.wait_done(three) == "FAILED"
    assert c.wait_done(killed) == "FAILED"
    assert c.wait_done(ok) == "COMPLETED"
    assert c.show_job(three)["ExitCode"] == "3:0"
    assert c.show_job(three)["Reason"] == "NonZeroExitCode"
    assert c.show_job(killed)["ExitCode"] == "0:9"
    assert c.show_job(ok)["ExitCode"] == "0:0"


def test_show_job_errors(clean):
    c = clean
    r = scontrol(c, "show", "job", "999999", user=USER, rc=1)
    assert r.err == "slurm_load_jobs error: Invalid job id specified\n", r
    r = scontrol(c, "show", "job", "notanumber", rc=1)
    assert "Invalid job id specified" in r.err, r
    # All jobs: one paragraph per job.
    a = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=c.workdir(USER))
    b = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    out = scontrol(c, "show", "job").out
    ids = [int(x) for x in re.findall(r"^JobId=(\d+) ", out, re.M)]
    assert {a, b} <= set(ids)
    assert len(scontrol(c, "-o", "show", "job").out.splitlines()) == len(ids)


def test_show_node(clean):
    c = clean
    conf = c.nodes[0]
    r = scontrol(c, "show", "node", "n1", user=USER)
    info = parse_kv(r.out)
    assert r.out.startswith("NodeName=n1 ")
    assert info["CPUTot"] == conf["CPUs"] == "2"
    assert info["RealMemory"] == conf["RealMemory"]
    assert info["State"] == "IDLE"
    assert info["CPUAlloc"] == "0"
    assert info["Partitions"] == "debug"
    # State follows a job on the node.
    job_id = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(job_id, "RUNNING")
    node = c.show_job(job_id)["NodeList"]
    info = parse_kv(scontrol(c, "show", "node", node).out)
    assert (info["State"], info["CPUAlloc"]) == ("MIXED", "1")
    # Every node, one paragraph each; -o one line each.
    out = scontrol(c, "show", "nodes").out
    assert re.findall(r"^NodeName=(\S+)", out, re.M) == ["n1", "n2", "n3", "n4"]
    assert len(scontrol(c, "-o", "show", "node").out.splitlines()) == 4
    r = scontrol(c, "show", "node", "n9", rc=1)
    assert r.out == "Node n9 not found\n", r


def test_show_partition(clean):
    c = clean
    r = scontrol(c, "show", "partition", user=USER)
    info = parse_kv(r.out)
    assert r.out.startswith("PartitionName=debug\n")
    assert info["Nodes"] == "n[1-4]"
    assert info["Default"] == "YES"
    assert info["MaxTime"] == "UNLIMITED"
    assert info["State"] == "UP"
    assert info["TotalNodes"] == "4"
    assert info["TotalCPUs"] == "8"
    assert parse_kv(scontrol(c, "show", "partition", "debug").out) == info
    r = scontrol(c, "show", "partition", "nosuch", rc=1)
    assert r.out == "Partition nosuch not found\n", r


def test_hostnames_and_hostlist(clean):
    c = clean
    assert scontrol(c, "show", "hostnames", "n[1-3]", user=USER).out == "n1\nn2\nn3\n"
    assert scontrol(c, "show", "hostnames", "n[1,3],m[08-10]").out == "n1\nn3\nm08\nm09\nm10\n"
    assert scontrol(c, "show", "hostlist", "n1,n2,n3").out == "n[1-3]\n"
    assert scontrol(c, "show", "hostlist", "n1,n2,n3,n5,x").out == "n[1-3,5],x\n"
    assert scontrol(c, "show", "hostlistsorted", "n3,n1,n2").out == "n[1-3]\n"
    # Inside a job, with no argument, the job's own nodes ($SLURM_JOB_NODELIST).
    wd = c.workdir(USER)
    job_id = c.sbatch("-N", "3", "-o", "hn-%j.out", "--wrap",
                      f"{os.path.join(BIN, 'scontrol')} show hostnames", user=USER, cwd=wd)
    assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
    nodes = c.show_job(job_id)["NodeList"]
    expect = scontrol(c, "show", "hostnames", nodes).out
    assert len(expect.split()) == 3
    assert read(os.path.join(wd, f"hn-{job_id}.out")) == expect


def test_user_hold_and_release(clean):
    c = clean
    wd = c.workdir(USER)
    blocker = c.sbatch("-N", str(c.nnodes), "--exclusive", "-o", "/dev/null",
                       "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    job_id = c.sbatch("-o", "hold-%j.out", "--wrap", "echo ran", user=USER, cwd=wd)
    wait_reason(c, job_id, "Resources")
    r = scontrol(c, "hold", str(job_id), user=USER)
    assert (r.out, r.err) == ("", ""), r
    assert squeue_field(c, job_id, "%t %r") == "PD JobHeldUser"
    info = c.show_job(job_id)
    assert (info["JobState"], info["Reason"], info["Priority"]) == ("PENDING", "JobHeldUser", "0")
    # Room appears, yet a held job stays where it is.
    assert c.run(["scancel", str(blocker)]).rc == 0
    c.wait_nodes_idle()
    assert stays(lambda: squeue_field(c, job_id, "%t %r") == "PD JobHeldUser", 1.0)
    # Another user can neither hold nor release it.
    r = scontrol(c, "release", str(job_id), user="herdu2", rc=1)
    assert r.err.splitlines()[-1] == "slurm_suspend error: Invalid user id", r
    assert squeue_field(c, job_id, "%r") == "JobHeldUser"
    scontrol(c, "release", str(job_id), user=USER)
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"hold-{job_id}.out")) == "ran\n"
    # A job that no longer waits cannot be held.
    r = scontrol(c, "hold", str(job_id), user=USER, rc=1)
    assert "slurm_suspend error: " in r.err, r


def test_admin_hold_needs_admin_release(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    assert squeue_field(c, job_id, "%r") == "JobHeldUser"
    # root's "hold" is an administrator's hold ...
    scontrol(c, "hold", str(job_id))
    assert squeue_field(c, job_id, "%t %r") == "PD JobHeldAdmin"
    # ... which the job's owner cannot release (Slurm: Access/permission denied).
    r = scontrol(c, "release", str(job_id), user=USER, rc=1)
    assert "Access/permission denied" in r.err, r
    assert r.err.splitlines()[-1] == "slurm_suspend error: Access/permission denied", r
    assert squeue_field(c, job_id, "%t %r") == "PD JobHeldAdmin"
    # root can.
    scontrol(c, "release", str(job_id))
    assert c.wait_done(job_id) == "COMPLETED"
    # uhold by root is a user hold, which the owner may release.
    job_id = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    scontrol(c, "release", str(job_id))
    c.wait_done(job_id)
    job_id = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    scontrol(c, "uhold", str(job_id))
    assert squeue_field(c, job_id, "%r") == "JobHeldUser"
    scontrol(c, "release", str(job_id), user=USER)
    assert c.wait_done(job_id) == "COMPLETED"


def test_ping(clean):
    c = clean
    r = scontrol(c, "ping", user=USER)
    assert (r.out, r.err) == ("Slurmctld(primary) at localhost is UP\n", ""), r


def test_show_config(clean):
    c = clean
    r = scontrol(c, "show", "config", user=USER)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert re.fullmatch(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[0]), r
    assert lines[-2:] == ["", "Slurmctld(primary) at localhost is UP"], r
    pairs = [line.split(" = ", 1) for line in lines[1:-2]]
    assert all(len(p) == 2 and len(p[0]) == 23 for p in pairs), r   # "%-23s = %s"
    conf = dict((k.strip(), v) for k, v in pairs)
    keys = [k.strip() for k, _ in pairs]
    assert keys == sorted(keys, key=str.lower), keys
    assert conf["ClusterName"] == c.name
    assert conf["SlurmctldPort"] == str(c.port)
    assert conf["KillWait"] == "5"              # from herd.conf
    assert conf["AuthType"] == "auth/munge"     # a default, shown as Slurm does
    assert scontrol(c, "show", "conf").out.splitlines()[1:] == lines[1:]


JOB_LINES = ["JobId", "UserId", "Priority", "JobState", "Requeue", "RunTime", "SubmitTime",
             "AccrueTime", "StartTime", "SuspendTime", "Partition", "ReqNodeList", "NodeList",
             "BatchHost", "NumNodes", "TRES", "Socks/Node", "MinCPUsNode", "Features",
             "OverSubscribe", "Command", "WorkDir", "StdErr", "StdIn", "StdOut", "Power"]


def first_keys(text):
    return [line.split("=")[0].strip() for line in text.splitlines() if line.strip()]


def test_show_job_layout_and_details(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = c.sbatch("-N", "2", "-n", "2", "--mem=100", "-o", "/dev/null", "--wrap",
                      "sleep 300", user=USER, cwd=wd)
    c.wait_state(job_id, "RUNNING")
    text = scontrol(c, "show", "job", str(job_id)).out
    assert first_keys(text) == JOB_LINES, text
    assert "DerivedExitCode" not in text and "CPU_IDs" not in text
    # -d: the steps' exit code, then the job's GRES and one line for its nodes
    # (the same CPUs and memory on both), indented two more.
    detail = scontrol(c, "-d", "show", "job", str(job_id), user=USER).out
    nodes = parse_kv(text)["NodeList"]
    want = JOB_LINES[:5] + ["DerivedExitCode"] + JOB_LINES[5:17] + ["JOB_GRES", "Nodes"] + \
        JOB_LINES[17:]
    assert first_keys(detail) == want, detail
    assert "\n   DerivedExitCode=0:0\n" in detail
    assert f"\n   JOB_GRES=(null)\n     Nodes={nodes} CPU_IDs=0 Mem=100 GRES=\n" in detail, detail
    one = scontrol(c, "-d", "-o", "show", "job", str(job_id)).out
    assert one.count("\n") == 1 and f" Nodes={nodes} CPU_IDs=0 Mem=100 GRES= " in one, one
    # Two CPUs on one node: CPU_IDs=0-1.
    two = c.sbatch("-n", "2", "-o", "/dev/null", "--wrap", "sleep 300", user=USER, cwd=wd)
    c.wait_state(two, "RUNNING")
    detail = scontrol(c, "-d", "show", "job", str(two)).out
    node = parse_kv(detail)["NodeList"]
    assert re.search(rf"^     Nodes={node} CPU_IDs=0-1 Mem=\d+ GRES=$", detail, re.M), detail
    # A pending job has no nodes to detail.
    held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER, cwd=wd)
    detail = scontrol(c, "-d", "show", "job", str(held)).out
    assert "JOB_GRES" not in detail and "Nodes=" not in detail.replace("NumNodes=", "")
    assert "DerivedExitCode=0:0" in detail


def test_hostlist_bad_input(clean):
    c = clean
    for expr in ("n[1-", "n[3-1]", "n]", "n[a-b]"):
        r = scontrol(c, "show", "hostnames", expr, rc=1)
        assert (r.out, r.err) == ("", f"Invalid hostlist: {expr}\n"), r
        r = scontrol(c, "show", "hostlist", expr, rc=1)
        assert (r.out, r.err) == ("", f"Invalid hostlist: {expr}\n"), r
    # Nothing to expand: no argument and no SLURM_JOB_NODELIST.
    r = scontrol(c, "show", "hostnames", rc=1)
    assert (r.out, r.err) == ("", "scontrol: error: host list is empty\n"), r
    r = scontrol(c, "show", "hostlist", rc=1)
    assert "host list is empty" in r.err, r
    r = scontrol(c, "show", "hostnames", "", rc=1)
    assert "host list is empty" in r.err, r


def test_show_partition_and_node_layout(clean):
    c = clean
    text = scontrol(c, "show", "partition", "debug").out
    assert first_keys(text) == ["PartitionName", "AllowGroups", "AllocNodes", "DefaultTime",
                                "MaxNodes", "Nodes", "PriorityJobFactor", "OverTimeLimit",
                                "State", "JobDefaults", "DefMemPerNode", "TRES"], text
    info = parse_kv(text)
    assert (info["AllowGroups"], info["AllocNodes"], info["RootOnly"], info["PreemptMode"],
            info["MaxCPUsPerNode"], info["OverSubscribe"]) == \
        ("ALL", "ALL", "NO", "OFF", "UNLIMITED", "NO"), text
    text = scontrol(c, "show", "node", "n2").out
    info = parse_kv(text)
    assert (info["AvailableFeatures"], info["ActiveFeatures"], info["Gres"], info["TmpDisk"],
            info["Weight"]) == ("(null)", "(null)", "(null)", "0", "1"), text
    assert f"Version={info['Version']}" in text and info["Version"].startswith("22.05"), text


def test_show_job_script_dd(clean):
    c = clean
    wd = c.workdir(USER)
    body = "#!/bin/sh\n#SBATCH -J ddjob\necho 'a \"quoted\" line'\n"
    script = write_script(os.path.join(wd, "dd.sh"), body, owner=USER)
    job_id = c.sbatch("-H", "-o", "/dev/null", script, user=USER, cwd=wd)
    # -dd: the batch script after BatchScript=, for its owner and for root ...
    for user in (USER, None):
        out = scontrol(c, "-dd", "show", "job", str(job_id), user=user).out
        assert f"\n   BatchScript=\n{body}   \n\n" in out, out
        assert out.startswith(f"JobId={job_id} JobName=ddjob\n"), out
    # ... not for another user, and not with one -d.
    out = scontrol(c, "-dd", "show", "job", str(job_id), user="herdu2").out
    assert "BatchScript" not in out and "DerivedExitCode" in out, out
    assert "BatchScript" not in scontrol(c, "-d", "show", "job", str(job_id)).out
