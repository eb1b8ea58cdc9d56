"""The user commands' side of job steps, with steps the real srun makes
inside batch jobs: squeue -s (Slurm 22.05's step format, filters, -o/-O),
scontrol show step, scancel N.S (and --signal to a step), and sacct's step
lines (N.batch, N.0, N.1 ... with their states, exit codes, usage and the
job's DerivedExitCode).  One shared 4-node cluster (2 CPUs a node)."""
import os
import re

from cmd_helpers import clean, read, wait_text, write_script  # noqa: F401 (fixture)

STEP_HEADER = "         STEPID     NAME PARTITION     USER      TIME NODELIST"


def step_lines(c, *args, user=None):
    r = c.run(["squeue", "-s", "-h", *args], user=user)
    assert r.rc == 0, r
    return r.out.splitlines()


def wait_steps(c, job_id, count, timeout=60):
    """Wait until job_id has count running steps (its batch step among them);
    returns squeue -s -o '%i %j' for them, in squeue's order."""
    def ready():
        lines = step_lines(c, "-j", str(job_id), "-o", "%i %j")
        return lines if len(lines) >= count else None
    return c.wait_until(f"{count} steps of job {job_id}", ready, timeout=timeout)


def two_steps(c, user="herdu1", name="steps"):
    """A 2-node, 4-task job running two steps: "four" (4 tasks, n[1-2]) and
    "one" (--overlap, 1 task); returns (job_id, {name: step id})."""
    job_id = c.sbatch("-J", name, "-N2", "-n4", "-o", "/dev/null", "--wrap",
                      "srun -n4 -J four sleep 300 & srun -n1 --overlap -J one sleep 300 & wait",
                      user=user, cwd=c.workdir(user))
    c.wait_state(job_id, "RUNNING")
    lines = wait_steps(c, job_id, 3)
    ids = {}
    for line in lines:
        sid, sname = line.split()
        ids[sname] = sid
    assert set(ids) == {"four", "one", "batch"}, lines
    assert ids["batch"] == f"{job_id}.batch"
    assert {ids["four"], ids["one"]} == {f"{job_id}.0", f"{job_id}.1"}, lines
    return job_id, ids


def sacct_rows(c, *args, user=None):
    r = c.run(["sacct", "-P", *args], user=user)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    keys = lines[0].split("|")
    return [dict(zip(keys, line.split("|"))) for line in lines[1:]]


# ---- squeue -s ------------------------------------------------------------

def test_squeue_steps_default_format(clean):
    c = clean
    job_id, ids = two_steps(c)
    r = c.run(["squeue", "-s"])
    assert r.rc == 0 and r.err == "", r
    lines = [l for l in r.out.splitlines() if l.split()[0].startswith(f"{job_id}.")
             or l == STEP_HEADER]
    assert lines[0] == STEP_HEADER, r.out
    # sorted by step ID within the job: 0, 1, then the batch step
    assert [l.split()[0] for l in lines[1:]] == [f"{job_id}.0", f"{job_id}.1", f"{job_id}.batch"]
    for line in lines[1:]:
        # "%.15i %.8j %.9P %.8u %.9M %N"
        m = re.fullmatch(r"( {0,15}\S+) ( {0,8}\S+) ( {0,9}\S+) ( {0,8}\S+) ( {0,9}\S+) (\S+)", line)
        assert m and [len(g) for g in m.groups()[:5]] == [15, 8, 9, 8, 9], line
        assert m.group(3).strip() == "debug" and m.group(4).strip() == "herdu1", line
        assert re.fullmatch(r"\d+:\d\d", m.group(5).strip()), line
    by_id = {l.split()[0]: l.split() for l in lines[1:]}
    assert by_id[ids["four"]][1] == "four" and by_id[ids["four"]][5] == "n[1-2]"
    assert by_id[ids["one"]][5] in ("n1", "n2")
    assert by_id[f"{job_id}.batch"][1] == "batch"


def test_squeue_steps_fields_and_filters(clean):
    c = clean
    job_id, ids = two_steps(c)
    uid = c.run(["id", "-u", "herdu1"]).out.strip()
    four = ids["four"]
    r = c.run(["squeue", f"--steps={four}", "-o", "%i|%j|%A|%N|%u|%U|%P|%l|%b"])
    assert r.rc == 0, r
    assert r.out.splitlines() == [
        "STEPID|NAME|TASKS|NODELIST|USER|UID|PARTITION|TIME_LIMIT|TRES_PER_JOB",
        f"{four}|four|4|n[1-2]|herdu1|{uid}|debug|UNLIMITED|(null)"], r
    # -s LIST, as one argument glued to -s, and several steps
    assert step_lines(c, f"-s{four},{job_id}.batch", "-o", "%i") == \
        sorted([four, f"{job_id}.batch"], key=lambda s: (s.endswith("batch"), s))
    # -O: the step fields
    r = c.run(["squeue", "-s", "-j", str(job_id), "-h", "-O", "StepId:12,StepName:6,NumTasks:3,StepState"])
    assert r.rc == 0, r
    assert f"{four:<12}four  4  RUNNING" in [l.rstrip() for l in r.out.splitlines()], r
    # filters: user, partition, job
    assert step_lines(c, "-u", "herdu2") == []
    assert len(step_lines(c, "-u", "herdu1", "-j", str(job_id))) == 3
    assert step_lines(c, "-p", "nosuch") == []
    assert len(step_lines(c, "-p", "debug", "-j", str(job_id))) == 3
    # a step list entry without a step is refused, as Slurm's
    r = c.run(["squeue", f"-s{job_id}"])
    assert (r.rc, r.err) == (1, f"squeue: error: Invalid job_step id: {job_id}.??\n"), r
    # a job letter that steps have not: kept as written, reported
    r = c.run(["squeue", "-s", "-h", "-j", str(job_id), "-o", "%i %C"])
    assert r.rc == 0 and "Invalid job step format specification: C" in r.err, r
    assert f"{four} %C" in r.out.splitlines(), r


def test_squeue_steps_of_array_tasks(clean):
    c = clean
    array = c.sbatch("--array=1-2", "-o", "/dev/null", "--wrap", "srun -J task sleep 300",
                     user="herdu1", cwd=c.workdir("herdu1"))
    def both():
        lines = step_lines(c, "-o", "%i %j")
        got = {l.split()[0] for l in lines}
        want = {f"{array}_1.0", f"{array}_2.0", f"{array}_1.batch", f"{array}_2.batch"}
        return want <= got and lines
    lines = c.wait_until("both tasks' steps", both, timeout=60)
    assert f"{array}_1.0 task" in lines and f"{array}_2.0 task" in lines
    assert step_lines(c, f"-s{array}_2.0", "-o", "%i") == [f"{array}_2.0"]


# ---- scontrol show step ---------------------------------------------------

def test_scontrol_show_step(clean):
    c = clean
    job_id, ids = two_steps(c)
    uid = c.run(["id", "-u", "herdu1"]).out.strip()
    four = ids["four"]
    r = c.run(["scontrol", "show", "step", four])
    assert r.rc == 0 and r.err == "", r
    lines = r.out.splitlines()
    assert re.fullmatch(rf"StepId={re.escape(four)} UserId={uid} StartTime=\S+ TimeLimit=UNLIMITED",
                        lines[0]), lines
    assert lines[1:] == [
        "   State=RUNNING Partition=debug NodeList=n[1-2]",
        "   Nodes=2 CPUs=4 Tasks=4 Name=four Network=(null)",
        "   TRES=cpu=4,mem=0,node=2",
        "   ResvPorts=(null)",
        "   CPUFreqReq=Default Dist=Block",
        lines[6], ""], lines
    # srun's host and process, as Slurm's "SrunHost:Pid=login1:32707"
    assert re.fullmatch(r"   SrunHost:Pid=[^(:\s]\S*:[1-9]\d*", lines[6]), lines
    # -o: one line
    r = c.run(["scontrol", "-o", "show", "step", ids["one"]])
    assert r.rc == 0 and len(r.out.splitlines()) == 1, r
    assert " Tasks=1 Name=one " in r.out and " Dist=Cyclic " in r.out, r
    # every step of the job: the batch step first
    r = c.run(["scontrol", "show", "steps", str(job_id)])
    assert r.rc == 0, r
    assert re.findall(r"StepId=(\S+)", r.out) == [f"{job_id}.batch", f"{job_id}.0", f"{job_id}.1"]
    assert "Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n   TRES=(null)\n" in r.out, r
    # no such step, no such job
    r = c.run(["scontrol", "show", "step", f"{job_id}.7"])
    assert (r.rc, r.out) == (1, f"Job step {job_id}.7 not found\n"), r
    r = c.run(["scontrol", "show", "step", "99999.0"])
    assert (r.rc, r.out, r.err) == (1, "", "slurm_get_job_steps error: Invalid job id specified\n"), r


def test_scontrol_no_steps(clean):
    c = clean
    r = c.run(["scontrol", "show", "step"])
    assert (r.rc, r.out) == (0, "No job steps in the system\n"), r
    held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    r = c.run(["scontrol", "show", "step", str(held)])
    assert (r.rc, r.out) == (1, f"Job step {held}. not found\n"), r


# ---- scancel N.S -----------------------------------------------------------

def test_scancel_one_step(clean):
    c = clean
    job_id, ids = two_steps(c)
    r = c.run(["scancel", ids["one"]], user="herdu1")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    c.wait_until("the step gone", lambda: ids["one"] not in [
        l.split()[0] for l in step_lines(c, "-j", str(job_id))])
    # the other step and the job go on
    assert ids["four"] in [l.split()[0] for l in step_lines(c, "-j", str(job_id))]
    assert c.job_state(job_id) == "RUNNING"
    uid = c.run(["id", "-u", "herdu1"]).out.strip()
    rows = {row["JobID"]: row for row in sacct_rows(c, "-j", str(job_id), "-o", "jobid,state")}
    # who cancelled it, as Slurm records a step scancel ended
    assert rows[ids["one"]]["State"] == f"CANCELLED by {uid}", rows
    assert rows[ids["four"]]["State"] == "RUNNING", rows
    assert rows[str(job_id)]["State"] == "RUNNING", rows


def test_scancel_step_errors(clean):
    c = clean
    job_id, ids = two_steps(c)
    # a step the running job does not have: Slurm names the job alone
    r = c.run(["scancel", f"{job_id}.9"], user="herdu1")
    assert (r.rc, r.err) == (1, f"scancel: error: Kill job error on job step id {job_id}: "
                                "Invalid job id specified\n"), r
    # a job that does not exist
    r = c.run(["scancel", "99999.0"], user="herdu1")
    assert (r.rc, r.err) == (1, "scancel: error: Kill job error on job step id 99999.0: "
                                "Invalid job id specified\n"), r
    # Slurm 22.05's scancel takes no N.batch, and cancels nothing of a bad list
    for bad in (f"{job_id}.batch", f"{job_id}.x"):
        r = c.run(["scancel", ids["one"], bad], user="herdu1")
        assert (r.rc, r.err) == (1, f"scancel: error: Invalid job id {bad}\n"), r
    assert len(step_lines(c, "-j", str(job_id))) == 3
    # another user's step
    r = c.run(["scancel", ids["one"]], user="herdu2")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    assert len(step_lines(c, "-j", str(job_id))) == 3
    # -v names what it does
    r = c.run(["scancel", "-v", ids["one"]], user="herdu1")
    assert r.rc == 0 and f"scancel: Terminating step {ids['one']}\n" in r.err, r


def test_scancel_signal_to_step(clean):
    c = clean
    work = c.workdir("herdu1")
    mark = os.path.join(work, "usr1.mark")
    if os.path.exists(mark):
        os.unlink(mark)
    trap = write_script(os.path.join(work, "trap.sh"),
                        f"#!/bin/sh\ntrap 'echo got > {mark}; exit 0' USR1\n"
                        "while :; do sleep 0.1; done\n", owner="herdu1")
    job_id = c.sbatch("-n1", "-o", "/dev/null", "--wrap", f"srun -J trap {trap}", user="herdu1",
                      cwd=work)
    wait_steps(c, job_id, 2)
    r = c.run(["scancel", "--signal=USR1", f"{job_id}.0"], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    wait_text(c, mark, "got")
    assert c.wait_done(job_id) == "COMPLETED"
    rows = {row["JobID"]: row for row in sacct_rows(c, "-j", str(job_id), "-o", "jobid,state,exitcode")}
    assert rows[f"{job_id}.0"]["State"] == "COMPLETED" and rows[f"{job_id}.0"]["ExitCode"] == "0:0"


def test_scancel_array_task_step(clean):
    c = clean
    array = c.sbatch("--array=1-2", "-o", "/dev/null", "--wrap",
                     "srun -J a sleep 300 & srun --overlap -J b sleep 300 & wait",
                     user="herdu1", cwd=c.workdir("herdu1"))
    def ready():
        got = [l.split()[0] for l in step_lines(c, "-o", "%i")]
        return all(f"{array}_{t}.{s}" in got for t in (1, 2) for s in (0, 1)) and got
    c.wait_until("both tasks' two steps", ready, timeout=60)
    for task in (1, 2):
        r = c.run(["scancel", f"{array}_{task}.1"], user="herdu1")
        assert (r.rc, r.err) == (0, ""), r
    def gone():
        got = [l.split()[0] for l in step_lines(c, "-o", "%i")]
        return all(f"{array}_{t}.1" not in got for t in (1, 2)) and got
    # (the task that bears the array's ID too: its step, not the array)
    got = c.wait_until("step 1 of both tasks gone", gone)
    # only the named steps: each task's step 0 runs on, and so do the tasks
    assert f"{array}_1.0" in got and f"{array}_2.0" in got, got
    assert c.job_state(f"{array}_1") == "RUNNING" and c.job_state(f"{array}_2") == "RUNNING"


# ---- sacct ----------------------------------------------------------------

def test_sacct_step_lines(clean):
    c = clean
    work = c.workdir("herdu1")
    job_id = c.sbatch("-J", "acct", "-N2", "-n2", "-o", "/dev/null", "--wrap",
                      "srun -n2 true; srun -n1 -J fail sh -c 'exit 3'; "
                      "srun -n1 -J killed sh -c 'kill -9 $$'; exit 0",
                      user="herdu1", cwd=work)
    assert c.wait_done(job_id) == "COMPLETED"
    fields = "jobid,jobname,partition,alloccpus,state,exitcode,ntasks,nnodes,nodelist"
    rows = sacct_rows(c, "-j", str(job_id), "-o", fields, user="herdu1")
    assert [r["JobID"] for r in rows] == [str(job_id), f"{job_id}.batch", f"{job_id}.0",
                                         f"{job_id}.1", f"{job_id}.2"], rows
    job, batch, s0, s1, s2 = rows
    assert (job["JobName"], job["Partition"], job["State"], job["ExitCode"]) == \
        ("acct", "debug", "COMPLETED", "0:0")
    assert (batch["JobName"], batch["Partition"], batch["NTasks"]) == ("batch", "", "1")
    assert (s0["Partition"], s0["State"], s0["ExitCode"], s0["NTasks"], s0["NNodes"],
            s0["NodeList"]) == ("", "COMPLETED", "0:0", "2", "2", "n[1-2]"), s0
    assert (s1["JobName"], s1["State"], s1["ExitCode"], s1["NTasks"]) == \
        ("fail", "FAILED", "3:0", "1")
    # a step a signal ended: Slurm records it CANCELLED, with the signal
    assert (s2["JobName"], s2["State"], s2["ExitCode"]) == ("killed", "CANCELLED", "0:9"), s2
    # the highest exit of the steps: an exit code above a signal
    rows = sacct_rows(c, "-j", str(job_id), "-o", "jobid,derivedexitcode,totalcpu,cputime,"
                      "maxrss,averss,start,end,elapsed", user="herdu1")
    assert rows[0]["DerivedExitCode"] == "3:0", rows
    assert all(r["DerivedExitCode"] == "" for r in rows[1:]), rows
    for r in rows[2:]:
        assert re.fullmatch(r"\d\d:\d\d[.:]\d{2,3}", r["TotalCPU"]), r
        assert re.fullmatch(r"\d+[KMG]?", r["MaxRSS"]) and re.fullmatch(r"\d+[KMG]?", r["AveRSS"]), r
        assert r["Start"] != "Unknown" and r["End"] != "Unknown", r
        assert re.fullmatch(r"\d\d:\d\d:\d\d", r["Elapsed"]) and re.fullmatch(r"\d\d:\d\d:\d\d", r["CPUTime"]), r
    # a step without -J is named for its command: srun ignores SLURM_JOB_NAME
    # inside an allocation (srun(1)), so the job's name is not every step's
    assert s0["JobName"] == "true", s0


def test_sacct_step_selection(clean):
    c = clean
    job_id = c.sbatch("-n1", "-o", "/dev/null", "--wrap", "srun true; srun -J second true",
                      user="herdu1", cwd=c.workdir("herdu1"))
    assert c.wait_done(job_id) == "COMPLETED"
    def ids(*args):
        return [r["JobID"] for r in sacct_rows(c, *args, "-o", "jobid", user="herdu1")]
    assert ids("-j", str(job_id)) == [str(job_id), f"{job_id}.batch", f"{job_id}.0", f"{job_id}.1"]
    assert ids("-j", f"{job_id}.1") == [f"{job_id}.1"]
    assert ids("-j", f"{job_id}.1,{job_id}.batch") == [f"{job_id}.batch", f"{job_id}.1"]
    assert ids("-j", f"{job_id}.7") == []
    assert ids("-X", "-j", str(job_id)) == [str(job_id)]
    # a state selects jobs; their steps come with them, whatever their state
    assert ids("-s", "CD", "-S", "now-1hour", "-E", "now", "-j", str(job_id)) == \
        [str(job_id), f"{job_id}.batch", f"{job_id}.0", f"{job_id}.1"]
    r = c.run(["sacct", "-j", f"{job_id}.x"], user="herdu1")
    assert (r.rc, r.err) == (1, f"sacct: fatal: Bad step specified: {job_id}\n"), r
    # the default columns: a step has no partition
    r = c.run(["sacct", "-j", f"{job_id}.1"], user="herdu1")
    assert r.rc == 0, r
    assert re.fullmatch(rf"{job_id}\.1 +second +\S* +\d+ +COMPLETED +0:0 ", r.out.splitlines()[2]), r


def test_scontrol_derived_exit_code(clean):
    c = clean
    job_id = c.sbatch("-n1", "-o", "/dev/null", "--wrap", "srun sh -c 'exit 4'; exit 0",
                      user="herdu1", cwd=c.workdir("herdu1"))
    assert c.wait_done(job_id) == "COMPLETED"
    r = c.run(["scontrol", "-d", "show", "job", str(job_id)])
    assert r.rc == 0, r
    assert "   DerivedExitCode=4:0\n" in r.out, r.out
    assert "ExitCode=0:0" in r.out
