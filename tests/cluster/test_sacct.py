"""sacct: job accounting records from the controller's store, compared with
what Slurm's sacct(1) prints: the default columns and their widths, -P/-p,
-o with widths, the N.batch step line and -X, states (CANCELLED by UID,
TIMEOUT ...) and exit codes, -j lists, -u/-a between two users, -s, -S/-E,
and records that outlive the controller's memory (MinJobAge, kill -9)."""
import os
import pwd
import re
import signal
import time

import pytest

from conftest import start_cluster, stop_cluster

ACTIVE = "PENDING,RUNNING,SUSPENDED,COMPLETING"


def sacct(cluster, *args, user=None):
    return cluster.run(["sacct", *args], user=user)


def ok(cluster, *args, user=None):
    r = sacct(cluster, *args, user=user)
    assert r.rc == 0, r
    assert r.err == "", r
    return r.out


def nodes_of(cluster, job_id):
    r = cluster.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%N"])
    assert r.rc == 0, r
    return r.out.strip()


@pytest.fixture(scope="module")
def jobs(cluster, users):
    """Jobs of herdu1 in every final state, one of herdu2, and one of herdu1
    still running; the module's tests read them."""
    wd1, wd2 = cluster.workdir("herdu1"), cluster.workdir("herdu2")
    j = {}
    j["done"] = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd1)
    j["fail"] = cluster.sbatch("-o", "/dev/null", "-J", "fails", "--wrap", "exit 3",
                               user="herdu1", cwd=wd1)
    j["cancel"] = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd1)
    j["timeout"] = cluster.sbatch("-o", "/dev/null", "--time=0:03", "--wrap", "sleep 120",
                                  user="herdu1", cwd=wd1)
    j["other"] = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu2", cwd=wd2)
    cluster.wait_state(j["cancel"], "RUNNING")
    r = cluster.run(["scancel", str(j["cancel"])], user="herdu1")
    assert r.rc == 0, r
    for name in ("done", "fail", "cancel", "timeout", "other"):
        cluster.wait_done(j[name], timeout=60)
    j["running"] = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd1)
    cluster.wait_state(j["running"], "RUNNING")
    j["held"] = cluster.sbatch("-o", "/dev/null", "-H", "--wrap", "true", user="herdu1", cwd=wd1)
    yield j
    r = cluster.run(["squeue", "-h", "-t", ACTIVE, "-o", "%i"])
    ids = r.out.split()
    if ids:
        cluster.run(["scancel", *ids])


def test_states_exit_codes_and_batch_lines(cluster, users, jobs):
    uid1 = users["herdu1"].pw_uid
    ids = ",".join(str(jobs[k]) for k in ("done", "fail", "cancel", "timeout", "running"))
    out = ok(cluster, "-j", ids, "-P", "-o",
             "JobID,JobName,State,ExitCode,NodeList,AllocCPUS,NNodes,User,End", user="herdu1")
    lines = out.splitlines()
    assert lines[0] == "JobID|JobName|State|ExitCode|NodeList|AllocCPUS|NNodes|User|End"
    rows = {line.split("|")[0]: line.split("|") for line in lines[1:]}
    assert list(rows) == [f"{jobs[k]}{s}" for k in ("done", "fail", "cancel", "timeout", "running")
                          for s in ("", ".batch")]

    def row(key, batch=False):
        return rows[f"{jobs[key]}{'.batch' if batch else ''}"]

    for key in ("done", "fail", "cancel", "timeout", "running"):
        node = nodes_of(cluster, jobs[key])
        assert row(key)[4] == node and row(key, True)[4] == node
        assert row(key)[5:8] == ["1", "1", "herdu1"]
        assert row(key, True)[5:8] == ["1", "1", ""], "a step shows no user, as in Slurm"
    assert row("done")[1:4] == ["wrap", "COMPLETED", "0:0"]
    assert row("done", True)[1:4] == ["batch", "COMPLETED", "0:0"]
    assert row("fail")[1:4] == ["fails", "FAILED", "3:0"]
    assert row("fail", True)[1:4] == ["batch", "FAILED", "3:0"]
    # Slurm: the job CANCELLED by the uid that asked, 0:0; its script killed by a signal
    assert row("cancel")[2:4] == [f"CANCELLED by {uid1}", "0:0"]
    assert row("cancel", True)[2] == "CANCELLED"
    assert re.fullmatch(r"0:(15|9)", row("cancel", True)[3]), row("cancel", True)
    assert row("timeout")[2:4] == ["TIMEOUT", "0:0"]
    assert row("timeout", True)[2] == "CANCELLED"
    assert re.fullmatch(r"0:(15|9)", row("timeout", True)[3]), row("timeout", True)
    assert row("running")[2:4] == ["RUNNING", "0:0"]
    assert row("running", True)[1:3] == ["batch", "RUNNING"]
    assert row("running")[8] == "Unknown" and row("running", True)[8] == "Unknown"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", row("done")[8])


def test_default_columns_and_header(cluster, jobs):
    job = jobs["done"]
    part = cluster.run(["squeue", "-h", "-t", "all", "-j", str(job), "-o", "%P"]).out.strip()
    out = ok(cluster, "-j", str(job))
    assert out.splitlines() == [
        "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
        "------------ ---------- ---------- ---------- ---------- ---------- -------- ",
        f"{job:<12} {'wrap':>10} {part:>10} {'':>10} {'1':>10} {'COMPLETED':>10} {'0:0':>8} ",
        f"{str(job) + '.batch':<12} {'batch':>10} {'':>10} {'':>10} {'1':>10} "
        f"{'COMPLETED':>10} {'0:0':>8} ",
    ]
    # a cut string ends in '+', as "CANCELLED by N" does in Slurm's 10 columns
    line = ok(cluster, "-j", str(jobs["cancel"]), "-X", "-n").splitlines()
    assert len(line) == 1 and line[0].split()[-2:] == ["CANCELLED+", "0:0"]
    # -b: JobID, State, ExitCode
    assert ok(cluster, "-j", str(job), "-b").splitlines()[0] == \
        "JobID             State ExitCode "


def test_allocations_noheader_and_parsable(cluster, jobs):
    job = jobs["fail"]
    assert ok(cluster, "-j", str(job), "-X", "-n", "-P", "-o", "jobid,state,exitcode") == \
        f"{job}|FAILED|3:0\n"
    assert ok(cluster, "-j", str(job), "-p", "-o", "jobid,jobname,state") == \
        f"JobID|JobName|State|\n{job}|fails|FAILED|\n{job}.batch|batch|FAILED|\n"
    assert ok(cluster, "-j", str(job), "-P", "-n", "--delimiter=,", "-o", "jobidraw,state") == \
        f"{job},FAILED\n{job}.batch,FAILED\n"
    # only the batch step
    assert ok(cluster, "-j", f"{job}.batch", "-n", "-P", "-o", "jobid,jobname") == \
        f"{job}.batch|batch\n"


def test_format_widths(cluster, jobs):
    job = jobs["done"]
    out = ok(cluster, "-j", str(job), "-X", "-o", "JobID%20,JobName%-30,State%5,nnodes")
    assert out.splitlines() == [
        f"{'JobID':>20} {'JobName':<30} State   NNodes ",
        f"{'-' * 20} {'-' * 30} ----- -------- ",
        f"{job:>20} {'wrap':<30} COMP+ {'1':>8} ",
    ]
    # a field name may be cut short, as in Slurm ("nnode"), and is case-blind
    assert ok(cluster, "-j", str(job), "-X", "-n", "-P", "-o", "NNODE,alloccpus,reqmem,uid") == \
        f"1|1|0|{pwd.getpwnam('herdu1').pw_uid}\n"
    r = sacct(cluster, "-o", "jobid,nosuchfield")
    assert r.rc == 1 and 'Invalid field requested: "nosuchfield"' in r.err, r


def test_job_lists(cluster, jobs):
    a, b = jobs["done"], jobs["fail"]
    want = f"{a}\n{b}\n"
    assert ok(cluster, "-j", f"{b},{a}", "-X", "-n", "-P", "-o", "jobid") == want
    assert ok(cluster, "-j", str(a), "-j", str(b), "-X", "-n", "-P", "-o", "jobid") == want
    assert ok(cluster, "--jobs", f"{a},{b},{a}", "-X", "-n", "-P", "-o", "jobid") == want


def test_unknown_job_prints_the_header_only(cluster):
    r = sacct(cluster, "-j", "999999")
    assert r.rc == 0 and r.err == "", r
    assert len(r.out.splitlines()) == 2 and r.out.startswith("JobID")
    r = sacct(cluster, "-j", "12x")
    assert r.rc == 1 and "Bad job/step specified: 12x" in r.err, r


def test_users_see_their_own_unless_asked(cluster, users, jobs):
    mine, theirs = jobs["done"], jobs["other"]
    both = f"{mine},{theirs}"
    cols = ["-X", "-n", "-P", "-o", "jobid,user"]
    assert ok(cluster, "-j", both, *cols, user="herdu1") == f"{mine}|herdu1\n"
    assert ok(cluster, "-j", both, *cols, user="herdu2") == f"{theirs}|herdu2\n"
    assert ok(cluster, "-j", both, "-a", *cols, user="herdu1") == \
        f"{mine}|herdu1\n{theirs}|herdu2\n"
    assert ok(cluster, "-j", both, "-u", "herdu2", *cols, user="herdu1") == f"{theirs}|herdu2\n"
    uid2 = users["herdu2"].pw_uid
    assert ok(cluster, "-j", both, "--uid", str(uid2), *cols) == f"{theirs}|herdu2\n"
    # root sees everyone's by default
    assert ok(cluster, "-j", both, *cols) == f"{mine}|herdu1\n{theirs}|herdu2\n"
    # without -j, herdu1's own jobs of today, and none of herdu2's
    out = ok(cluster, "-X", "-n", "-P", "-o", "jobid,user", user="herdu1")
    got = {int(line.split("|")[0]) for line in out.splitlines()}
    assert {jobs[k] for k in ("done", "fail", "cancel", "timeout", "running")} <= got
    assert theirs not in got
    assert jobs["held"] not in got, "a held job has no eligible time: not in the default window"
    assert jobs["held"] in {int(x) for x in ok(cluster, "-j", str(jobs["held"]), "-X", "-n", "-P",
                                               "-o", "jobid").split()}
    r = sacct(cluster, "-u", "nosuchuser_x")
    assert r.rc == 1 and "Invalid user id: nosuchuser_x" in r.err, r


def test_state_filter(cluster, jobs):
    ids = ",".join(str(jobs[k]) for k in ("done", "fail", "cancel", "timeout", "running"))
    cols = ["-X", "-n", "-P", "-o", "jobid,state"]
    assert ok(cluster, "-j", ids, "-s", "F", *cols) == f"{jobs['fail']}|FAILED\n"
    assert ok(cluster, "-j", ids, "-s", "completed,to", *cols) == \
        f"{jobs['done']}|COMPLETED\n{jobs['timeout']}|TIMEOUT\n"
    # RUNNING also matches jobs that ran during the window (sacct(1))
    got = ok(cluster, "-j", ids, "--state", "R", *cols).splitlines()
    assert f"{jobs['running']}|RUNNING" in got and len(got) == 5
    # -s without -S: the window is now, so only what runs now (Slurm's rule)
    out = ok(cluster, "-s", "R", "-a", *cols)
    assert f"{jobs['running']}|RUNNING" in out.splitlines()
    assert str(jobs["done"]) not in out.split("|")
    assert ok(cluster, "-s", "CD", *cols) == ""
    assert f"{jobs['done']}|COMPLETED" in ok(cluster, "-s", "CD", "-S", "now-1hour", "-E", "now",
                                             *cols).splitlines()
    r = sacct(cluster, "-s", "bogus")
    assert r.rc == 1 and r.err == "sacct: fatal: unrecognized job state value 'bogus'\n", r


def test_time_window(cluster, jobs):
    cols = ["-X", "-n", "-P", "-o", "jobid"]
    got = ok(cluster, "-S", "now-1hour", "-a", *cols).split()
    assert str(jobs["done"]) in got and str(jobs["other"]) in got
    assert ok(cluster, "-S", "2001-01-01", "-E", "2001-01-02T12:00:00", *cols) == ""
    assert ok(cluster, "-j", str(jobs["done"]), "-S", "2001-01-01", "-E", "01/02/01", *cols) == ""
    # a window ending before the jobs were submitted but after midnight
    assert str(jobs["done"]) not in ok(cluster, "-E", "now-2hours", "-S", "now-3hours",
                                       *cols).split()
    r = sacct(cluster, "-S", "yesterday-ish")
    assert r.rc == 1 and "Invalid time specification" in r.err, r
    r = sacct(cluster, "-S", "now+1hour", "-E", "now")
    assert r.rc == 1 and "is after end time" in r.err, r


def test_records_outlive_the_controller_memory(users):
    """A finished job leaves squeue after MinJobAge, and the controller may
    die: sacct still shows it from the store."""
    c = start_cluster(2)
    try:
        wd = c.workdir("herdu1")
        done = c.sbatch("-o", "/dev/null", "--wrap", "exit 2", user="herdu1", cwd=wd)
        c.wait_done(done)
        pid = c.ctld_pid()
        os.kill(pid, signal.SIGKILL)
        c.wait_until("the controller gone", lambda: not c.daemon_pids("herdctld"), timeout=10)
        # MinJobAge=1 for the restarted controller: the job is not loaded again
        with open(c.conf) as f:
            text = f.read()
        with open(c.conf, "w") as f:
            f.write(re.sub(r"(?m)^MinJobAge=\d+$", "MinJobAge=1", text))
        # Times are whole seconds: 2.5 s puts the end at least 2 s back, past MinJobAge=1.
        time.sleep(2.5)
        c.restart_ctld()
        c.wait_until("the restarted controller", c.ping_ok, timeout=30)
        r = c.run(["squeue", "-h", "-t", "all", "-j", str(done)])
        assert r.rc == 1 and "Invalid job id specified" in r.err, r
        r = c.run(["sacct", "-j", str(done), "-n", "-P", "-o", "jobid,state,exitcode,user"],
                  user="herdu1")
        assert r.rc == 0, r
        assert r.out == f"{done}|FAILED|2:0|herdu1\n{done}.batch|FAILED|2:0|\n", r
    finally:
        stop_cluster(c)


def test_cancelled_while_pending_has_no_batch_step(cluster, users):
    wd = cluster.workdir("herdu2")
    job = cluster.sbatch("-o", "/dev/null", "-H", "--wrap", "true", user="herdu2", cwd=wd)
    r = cluster.run(["scancel", str(job)])   # by root
    assert r.rc == 0, r
    cluster.wait_done(job)
    out = ok(cluster, "-j", str(job), "-n", "-P", "-o", "jobid,state,exitcode,nodelist,start,end",
             user="herdu2")
    fields = out.splitlines()
    assert len(fields) == 1, out
    jid, state, code, nodes, start, end = fields[0].split("|")
    assert (jid, state, code, nodes) == (str(job), "CANCELLED by 0", "0:0", "None assigned")
    assert start == end != "Unknown", "as Slurm: a job ended before it ran starts when it ends"


def test_many_queries_at_once(cluster, jobs):
    """More queries than the controller runs at once (4) wait their turn and
    all get their answer."""
    import threading
    want = f"{jobs['done']}|COMPLETED\n{jobs['fail']}|FAILED\n"
    results = []

    def one(user):
        results.append(sacct(cluster, "-j", f"{jobs['done']},{jobs['fail']}", "-X", "-n", "-P",
                             "-o", "jobid,state", user=user))

    threads = [threading.Thread(target=one, args=(u,)) for u in ("herdu1", None) * 8]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 16
    for r in results:
        assert r.rc == 0 and r.out == want, r


def test_name_partition_env_and_helpformat(cluster, jobs):
    from cmd_helpers import run_env
    ids = f"{jobs['done']},{jobs['fail']}"
    part = cluster.run(["squeue", "-h", "-t", "all", "-j", str(jobs["done"]), "-o", "%P"]).out.strip()
    assert ok(cluster, "-j", ids, "--name", "fails", "-X", "-n", "-P", "-o", "jobid") == \
        f"{jobs['fail']}\n"
    assert ok(cluster, "-j", ids, "-r", part, "-X", "-n", "-P", "-o", "jobid") == \
        f"{jobs['done']}\n{jobs['fail']}\n"
    assert ok(cluster, "-j", ids, "-r", "nosuchpart", "-X", "-n", "-P", "-o", "jobid") == ""
    # SACCT_FORMAT replaces the default columns; -o wins over it
    r = run_env(cluster, {"SACCT_FORMAT": "jobid,user"}, ["sacct", "-j", str(jobs["done"]), "-X",
                                                          "-n", "-P"])
    assert r.rc == 0 and r.out == f"{jobs['done']}|herdu1\n", r
    r = run_env(cluster, {"SACCT_FORMAT": "jobid,user"}, ["sacct", "-j", str(jobs["done"]), "-X",
                                                          "-n", "-P", "-o", "state"])
    assert r.rc == 0 and r.out == "COMPLETED\n", r
    out = ok(cluster, "--helpformat")
    for name in ("JobID", "JobIDRaw", "ExitCode", "NodeList", "AllocCPUS", "ReqMem", "WorkDir"):
        assert name in out.split()
    assert ok(cluster, "-V").startswith("slurm ")


# Slurm 22.05's sacct --helpformat (its field list, four to a line in
# columns of 19), as printed by the anchor's sacct.
SLURM_FIELDS = """
Account AdminComment AllocCPUS AllocNodes AllocTRES AssocID AveCPU AveCPUFreq AveDiskRead
AveDiskWrite AvePages AveRSS AveVMSize BlockID Cluster Comment Constraints ConsumedEnergy
ConsumedEnergyRaw Container CPUTime CPUTimeRAW DBIndex DerivedExitCode Elapsed ElapsedRaw
Eligible End ExitCode Flags GID Group JobID JobIDRaw JobName Layout MaxDiskRead
MaxDiskReadNode MaxDiskReadTask MaxDiskWrite MaxDiskWriteNode MaxDiskWriteTask MaxPages
MaxPagesNode MaxPagesTask MaxRSS MaxRSSNode MaxRSSTask MaxVMSize MaxVMSizeNode MaxVMSizeTask
McsLabel MinCPU MinCPUNode MinCPUTask NCPUS NNodes NodeList NTasks Partition Priority QOS
QOSRAW Reason ReqCPUFreq ReqCPUFreqGov ReqCPUFreqMax ReqCPUFreqMin ReqCPUS ReqMem ReqNodes
ReqTRES Reservation ReservationId Reserved ResvCPU ResvCPURAW Start State Submit SubmitLine
Suspended SystemComment SystemCPU Timelimit TimelimitRaw TotalCPU TRESUsageInAve
TRESUsageInMax TRESUsageInMaxNode TRESUsageInMaxTask TRESUsageInMin TRESUsageInMinNode
TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOutMax TRESUsageOutMaxNode
TRESUsageOutMaxTask TRESUsageOutMin TRESUsageOutMinNode TRESUsageOutMinTask TRESUsageOutTot
UID User UserCPU WCKey WCKeyID WorkDir
""".split()


def test_helpformat_is_slurms(cluster):
    want = ""
    for i, name in enumerate(SLURM_FIELDS):
        last = i + 1 == len(SLURM_FIELDS)
        want += f"{name:<19}" + ("\n" if i % 4 == 3 or last else " ")
    assert ok(cluster, "--helpformat") == want
    assert ok(cluster, "-e") == want
    # what 22.05 does not have is refused as any unknown field
    for name in ("restarts", "FailedNode", "StdOut", "Planned"):
        r = sacct(cluster, "-o", f"jobid,{name}")
        assert (r.rc, r.out, r.err) == (1, "", f'sacct: error: Invalid field requested: "{name}"\n'), r


def test_clusters_option(cluster, jobs):
    """-M names the clusters whose records to show (or all), -L is -M all;
    the Cluster column says whose a record is."""
    job = jobs["done"]
    cols = ["-j", str(job), "-X", "-n", "-P", "-o", "jobid,cluster"]
    want = f"{job}|{cluster.name}\n"
    assert ok(cluster, *cols) == want
    assert ok(cluster, *cols, "-M", cluster.name) == want
    assert ok(cluster, *cols, "--clusters", f"nosuch,{cluster.name}") == want
    assert ok(cluster, *cols, "-M", "all") == want
    assert ok(cluster, *cols, "-L") == want
    assert ok(cluster, *cols, "-M", "nosuch") == "", "another cluster's records only"
    # every line of a job names it, the steps' too
    out = ok(cluster, "-j", str(job), "-n", "-P", "-o", "jobid,cluster", "-M", "all")
    assert out == f"{job}|{cluster.name}\n{job}.batch|{cluster.name}\n"


def test_accounts_option(cluster, users):
    wd = cluster.workdir("herdu1")
    a = cluster.sbatch("-A", "acct_a", "-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    b = cluster.sbatch("-A", "acct_b", "-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    cluster.wait_done(a)
    cluster.wait_done(b)
    cols = ["-j", f"{a},{b}", "-X", "-n", "-P", "-o", "jobid,account"]
    assert ok(cluster, *cols, user="herdu1") == f"{a}|acct_a\n{b}|acct_b\n"
    assert ok(cluster, *cols, "-A", "acct_b", user="herdu1") == f"{b}|acct_b\n"
    assert ok(cluster, *cols, "--accounts", "acct_b,acct_a", user="herdu1") == \
        f"{a}|acct_a\n{b}|acct_b\n"
    assert ok(cluster, *cols, "-A", "nosuch", user="herdu1") == ""
    # the job's steps keep the job's account
    assert ok(cluster, "-j", str(a), "-A", "acct_a", "-n", "-P", "-o", "jobid,account",
              user="herdu1") == f"{a}|acct_a\n{a}.batch|acct_a\n"


def test_requeued_job_runs(cluster, users):
    """A requeued job: without -D its last run only; with -D its earlier
    runs first, each REQUEUED with its own times and a CANCELLED batch
    step, as Slurm's sacct -D shows them.  Needs the controller to keep
    each run's record (ACCT_JOBS "duplicates")."""
    wd = cluster.workdir("herdu1")
    job = cluster.sbatch("-o", "/dev/null", "--wrap",
                         'if [ "$SLURM_RESTART_COUNT" = 0 ]; then sleep 300; fi; exit 0',
                         user="herdu1", cwd=wd)
    cluster.wait_state(job, "RUNNING")
    time.sleep(1.1)   # whole seconds: the first run's end after its start
    r = cluster.run(["scontrol", "requeue", str(job)], user="herdu1")
    assert r.rc == 0, r
    assert cluster.wait_done(job, timeout=60) == "COMPLETED"
    cols = ["-j", str(job), "-n", "-P", "-o", "jobid,state,exitcode,start,end"]
    last = ok(cluster, *cols, user="herdu1").splitlines()
    assert [line.split("|")[:3] for line in last] == [
        [str(job), "COMPLETED", "0:0"], [f"{job}.batch", "COMPLETED", "0:0"]], last
    runs = ok(cluster, *cols, "-D", user="herdu1").splitlines()
    assert [line.split("|")[:2] for line in runs] == [
        [str(job), "REQUEUED"], [f"{job}.batch", "CANCELLED"],
        [str(job), "COMPLETED"], [f"{job}.batch", "COMPLETED"]], runs
    first, second = runs[0].split("|"), runs[2].split("|")
    assert first[2] == "0:0"
    assert first[3] < first[4] <= second[3], (first, second)
    assert runs[2:] == last
    # -X -D: one line per run; the window without -j finds both too
    assert ok(cluster, "-j", str(job), "-X", "-D", "-n", "-P", "-o", "jobid,state",
              user="herdu1") == f"{job}|REQUEUED\n{job}|COMPLETED\n"
    out = ok(cluster, "-X", "-D", "-n", "-P", "-o", "jobid,state", user="herdu1").splitlines()
    assert [x for x in out if x.startswith(f"{job}|")] == [f"{job}|REQUEUED", f"{job}|COMPLETED"]
    # -s RQ: the earlier runs, without -D too
    assert ok(cluster, "-j", str(job), "-X", "-n", "-P", "-o", "jobid,state", "-s", "RQ",
              "-S", "now-1hour", "-E", "now", user="herdu1") == f"{job}|REQUEUED\n"
