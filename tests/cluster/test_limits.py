"""AccountingStorageEnforce=associations,limits,qos,safe (doc/accounting.md,
"Roles, limits, team jobs"), as Slurm's resource_limits page has it: a job
without an association, or with a QOS its association may not use, is
refused at submission with Slurm's sentence; the submit limits refuse; the
running limits (association, its accounts up the tree, QOS) keep a job
pending with Slurm's reason until the limit allows it, then it runs.

One 4-node cluster of 4 CPUs and 4000 MB each, the accounts root ->
lim_parent -> {lim_a, lim_b}; herdl_a in lim_a (QOS normal and lim_q),
herdl_b in lim_b (normal only), herdl_c with no association."""
import contextlib
import os
import signal

import pytest

from conftest import Cluster, ensure_user, make_root, stop_cluster
from cmd_helpers import cancel_all, squeue_field, stays, wait_reason

A, B, NOBODY = "herdl_a", "herdl_b", "herdl_c"
POLICY = ("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
          "(job submit limit, user's size and/or time limits)\n")


def sacctmgr(c, *args):
    r = c.run(["sacctmgr", "-i", *args])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def c():
    for u in (A, B, NOBODY):
        ensure_user(u)
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "4", "--memory", "4000")
        sacctmgr(c, "add", "account", "lim_parent")
        sacctmgr(c, "add", "account", "lim_a", "parent=lim_parent")
        sacctmgr(c, "add", "account", "lim_b", "parent=lim_parent")
        sacctmgr(c, "add", "qos", "lim_q")
        sacctmgr(c, "add", "qos", "lim_deny")
        sacctmgr(c, "modify", "qos", "lim_deny", "set", "flags=DenyOnLimit", "MaxTRESPerJob=cpu=1")
        sacctmgr(c, "add", "user", A, "account=lim_a")
        sacctmgr(c, "add", "user", B, "account=lim_b")
        sacctmgr(c, "modify", "user", A, "set", "qos=normal,lim_q,lim_deny", "defaultqos=normal")
        with open(c.conf, "a") as f:
            f.write("AccountingStorageEnforce=associations,limits,qos,safe\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c, wait_idle=False)
    yield c
    cancel_all(c, wait_idle=False)


@contextlib.contextmanager
def limit(c, kind, name, **settings):
    """sacctmgr modify KIND NAME set K=V ... for the block, then K=-1 again."""
    sacctmgr(c, "modify", kind, name, "set", *[f"{k}={v}" for k, v in settings.items()])
    try:
        yield
    finally:
        sacctmgr(c, "modify", kind, name, "set", *[f"{k}={unset(v)}" for k, v in settings.items()])


def unset(value):
    # GrpTRES=cpu=2 is unset as GrpTRES=cpu=-1
    return ",".join(f"{p.split('=')[0]}=-1" for p in str(value).split(",")) if "=" in str(value) \
        else "-1"


def submit(c, user, *args, rc=0):
    r = c.run(["sbatch", "--parsable", "-o", "/dev/null", *args], user=user,
              cwd=c.workdir(user))
    assert r.rc == rc, r
    return int(r.out.split(";")[0]) if rc == 0 else r


def sleeper(c, user, *args):
    return submit(c, user, "-t", "10", *args, "--wrap", "sleep 300")


def test_association_required_and_default_account(clean):
    c = clean
    r = submit(c, NOBODY, "--wrap", "true", rc=1)
    assert r.err == ("sbatch: error: Batch job submission failed: Invalid account or "
                     "account/partition combination specified\n"), r
    r = submit(c, A, "-A", "lim_b", "--wrap", "true", rc=1)
    assert "Invalid account or account/partition combination specified" in r.err, r
    # No -A: the user's DefaultAccount; no --qos: the association's default.
    job = submit(c, A, "--wrap", "true")
    info = c.show_job(job)
    assert (info["Account"], info["QOS"]) == ("lim_a", "normal"), info
    assert c.wait_done(job) == "COMPLETED"


def test_qos_allowed(clean):
    c = clean
    r = submit(c, B, "--qos=lim_q", "--wrap", "true", rc=1)
    assert r.err == "sbatch: error: Batch job submission failed: Invalid qos specification\n", r
    r = submit(c, A, "--qos=nosuchqos", "--wrap", "true", rc=1)
    assert "Invalid qos specification" in r.err, r
    job = submit(c, A, "--qos=lim_q", "--wrap", "true")
    assert c.show_job(job)["QOS"] == "lim_q"
    assert c.wait_done(job) == "COMPLETED"


def test_max_submit_jobs(clean):
    c = clean
    with limit(c, "user", A, MaxSubmitJobs=2):
        first, second = sleeper(c, A), sleeper(c, A)
        r = submit(c, A, "--wrap", "true", rc=1)
        assert r.err == POLICY, r
        # An array counts each of its tasks.
        assert c.run(["scancel", str(second)]).rc == 0
        c.wait_done(second)
        r = submit(c, A, "--array=0-1", "--wrap", "true", rc=1)
        assert r.err == POLICY, r
        # Once one ends there is room again.
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_done(first)
        job = submit(c, A, "--array=0-1", "-t", "1", "--wrap", "true")
        assert c.show_job(job)["Account"] == "lim_a"


def test_grp_submit_jobs_covers_the_subaccounts(clean):
    c = clean
    with limit(c, "account", "lim_parent", GrpSubmitJobs=2):
        sleeper(c, A)
        sleeper(c, B)
        for user in (A, B):
            assert submit(c, user, "--wrap", "true", rc=1).err == POLICY


def test_max_jobs(clean):
    c = clean
    with limit(c, "user", A, MaxJobs=1):
        first = sleeper(c, A)
        c.wait_state(first, "RUNNING")
        second = sleeper(c, A)
        wait_reason(c, second, "AssocMaxJobsLimit")
        assert stays(lambda: squeue_field(c, second, "%t %r") == "PD AssocMaxJobsLimit", 1.0)
        # Others are not held up behind it.
        other = sleeper(c, B)
        c.wait_state(other, "RUNNING")
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)


def test_grp_jobs_on_the_parent_account(clean):
    c = clean
    with limit(c, "account", "lim_parent", GrpJobs=1):
        first = sleeper(c, A)
        c.wait_state(first, "RUNNING")
        second = sleeper(c, B)
        wait_reason(c, second, "AssocGrpJobsLimit")
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)


@pytest.mark.parametrize("tres, first_args, second_args, reason", [
    ("cpu=3", ["-n", "2"], ["-n", "2"], "AssocGrpCpuLimit"),
    ("mem=1500", ["--mem=1000"], ["--mem=1000"], "AssocGrpMemLimit"),
    ("node=1", ["-N", "1"], ["-N", "1"], "AssocGrpNodeLimit"),
])
def test_grp_tres(clean, tres, first_args, second_args, reason):
    c = clean
    with limit(c, "account", "lim_parent", GrpTRES=tres):
        first = sleeper(c, A, *first_args)
        c.wait_state(first, "RUNNING")
        second = sleeper(c, B, *second_args)
        wait_reason(c, second, reason)
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)


def test_max_tres_per_job(clean):
    c = clean
    with limit(c, "user", A, MaxTRES="cpu=2"):
        job = sleeper(c, A, "-n", "3")
        wait_reason(c, job, "AssocMaxCpuPerJobLimit")
        # A smaller job of the same user runs; this one once it asks for less.
        small = sleeper(c, A, "-n", "2")
        c.wait_state(small, "RUNNING")
        assert c.run(["scontrol", "update", f"JobId={job}", "NumTasks=2"], user=A).rc == 0
        c.wait_state(job, "RUNNING", timeout=20)


def test_max_wall(clean):
    c = clean
    with limit(c, "user", A, MaxWall=10):
        job = submit(c, A, "-t", "20", "--wrap", "sleep 300")
        wait_reason(c, job, "AssocMaxWallDurationPerJobLimit")
        # Without --time the job's limit is MaxWall.
        plain = submit(c, A, "--wrap", "sleep 300")
        assert c.show_job(plain)["TimeLimit"] == "00:10:00"
        c.wait_state(plain, "RUNNING")
        assert c.run(["scontrol", "update", f"JobId={job}", "TimeLimit=10"], user=A).rc == 0
        c.wait_state(job, "RUNNING", timeout=20)


def test_qos_limits(clean):
    c = clean
    with limit(c, "qos", "lim_q", MaxJobsPerUser=1):
        first = sleeper(c, A, "--qos=lim_q")
        c.wait_state(first, "RUNNING")
        second = sleeper(c, A, "--qos=lim_q")
        wait_reason(c, second, "QOSMaxJobsPerUserLimit")
        normal = sleeper(c, A)   # QOS normal: not counted under lim_q
        c.wait_state(normal, "RUNNING")
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)
    cancel_all(c, wait_idle=False)
    with limit(c, "qos", "lim_q", GrpTRES="cpu=2"):
        first = sleeper(c, A, "--qos=lim_q", "-n", "2")
        c.wait_state(first, "RUNNING")
        second = sleeper(c, A, "--qos=lim_q")
        wait_reason(c, second, "QOSGrpCpuLimit")
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)
    cancel_all(c, wait_idle=False)
    with limit(c, "qos", "lim_q", MaxTRESPerJob="cpu=1", MaxWall=5):
        big = sleeper(c, A, "--qos=lim_q", "-n", "2", "-t", "5")
        wait_reason(c, big, "QOSMaxCpuPerJobLimit")
        long = sleeper(c, A, "--qos=lim_q", "-t", "6")
        wait_reason(c, long, "QOSMaxWallDurationPerJobLimit")
        assert c.run(["scontrol", "update", f"JobId={long}", "TimeLimit=5"], user=A).rc == 0
        c.wait_state(long, "RUNNING", timeout=20)


def test_qos_deny_on_limit_and_submit_limit(clean):
    c = clean
    # lim_deny: DenyOnLimit, MaxTRESPerJob=cpu=1 (the fixture's)
    r = submit(c, A, "--qos=lim_deny", "-n", "2", "--wrap", "true", rc=1)
    assert r.err == POLICY, r
    job = submit(c, A, "--qos=lim_deny", "-n", "1", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"
    with limit(c, "qos", "lim_q", MaxSubmitJobsPerUser=1):
        sleeper(c, A, "--qos=lim_q")
        assert submit(c, A, "--qos=lim_q", "--wrap", "true", rc=1).err == POLICY
        sleeper(c, A)   # another QOS: its own count


def test_safe_grp_tres_mins(clean):
    c = clean
    # safe: a job starts only if it can run to its time limit within
    # GrpTRESMins (1 CPU x 200 minutes > 100 CPU-minutes; the earlier tests'
    # jobs used a few CPU-minutes of it at most).
    with limit(c, "account", "lim_a", GrpTRESMins="cpu=100"):
        job = submit(c, A, "-t", "200", "--wrap", "sleep 300")
        wait_reason(c, job, "AssocGrpCPUMinutesLimit")
        assert c.run(["scontrol", "update", f"JobId={job}", "TimeLimit=20"], user=A).rc == 0
        c.wait_state(job, "RUNNING", timeout=20)


def test_counts_survive_a_controller_restart(clean):
    c = clean
    # The jobs the store gives back are counted again: MaxJobs=1 still holds
    # with one running, and MaxSubmitJobs=2 with two in the queue.
    with limit(c, "user", A, MaxJobs=1, MaxSubmitJobs=2):
        first = sleeper(c, A)
        c.wait_state(first, "RUNNING")
        killed = c.ctld_pid()
        os.kill(killed, signal.SIGKILL)
        c.wait_until("the controller gone", lambda: not c.ping_ok(), timeout=10)
        c.restart_ctld()
        c.wait_until("the restarted controller", c.ping_ok, timeout=30)
        second = sleeper(c, A)
        wait_reason(c, second, "AssocMaxJobsLimit")
        assert submit(c, A, "--wrap", "true", rc=1).err == POLICY
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)


def test_update_of_account_and_qos(clean):
    c = clean
    job = submit(c, A, "--begin=now+3600", "--wrap", "true")
    r = c.run(["scontrol", "update", f"JobId={job}", "Account=lim_b"], user=A)
    assert (r.rc, r.err) == (1, "Invalid account or account/partition combination specified "
                                f"for job {job}\n"), r
    r = c.run(["scontrol", "update", f"JobId={job}", "QOS=nosuchqos"], user=A)
    assert (r.rc, r.err) == (1, f"Invalid qos specification for job {job}\n"), r
    assert (c.show_job(job)["Account"], c.show_job(job)["QOS"]) == ("lim_a", "normal")
    # A QOS change moves the job's count: MaxSubmitJobsPerUser=1 of lim_q.
    with limit(c, "qos", "lim_q", MaxSubmitJobsPerUser=1):
        assert c.run(["scontrol", "update", f"JobId={job}", "QOS=lim_q"], user=A).rc == 0
        assert c.show_job(job)["QOS"] == "lim_q"
        assert submit(c, A, "--qos=lim_q", "--wrap", "true", rc=1).err == POLICY
        assert c.run(["scontrol", "update", f"JobId={job}", "QOS=normal"], user=A).rc == 0
        other = submit(c, A, "--qos=lim_q", "--begin=now+3600", "--wrap", "true")
        # ... and a change into a full QOS is refused as a submission would be
        r = c.run(["scontrol", "update", f"JobId={job}", "QOS=lim_q"], user=A)
        assert (r.rc, r.err) == (1, POLICY.replace("sbatch: error: Batch job submission failed: ",
                                                   "").rstrip("\n") + f" for job {job}\n"), r
        assert c.show_job(other)["QOS"] == "lim_q"


def test_qos_grp_jobs_and_max_tres_per_user(clean):
    c = clean
    with limit(c, "qos", "lim_q", GrpJobs=1):
        first = sleeper(c, A, "--qos=lim_q")
        c.wait_state(first, "RUNNING")
        second = sleeper(c, A, "--qos=lim_q")
        wait_reason(c, second, "QOSGrpJobsLimit")
        normal = sleeper(c, A)   # QOS normal: not counted under lim_q
        c.wait_state(normal, "RUNNING")
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)
    cancel_all(c, wait_idle=False)
    with limit(c, "qos", "lim_q", MaxTRESPerUser="cpu=2"):
        first = sleeper(c, A, "--qos=lim_q", "-n", "2")
        c.wait_state(first, "RUNNING")
        second = sleeper(c, A, "--qos=lim_q", "-n", "1")
        wait_reason(c, second, "QOSMaxCpuPerUserLimit")
        assert stays(lambda: squeue_field(c, second, "%T") == "PENDING", 1.0)
        assert c.run(["scancel", str(first)]).rc == 0
        c.wait_state(second, "RUNNING", timeout=20)


def test_grp_tres_mins_used_up_kills_running_jobs(clean):
    c = clean
    # A 4-CPU job of lim_b uses 1 CPU-minute within 15 s; then, as
    # sacctmgr(1) says, the association's running jobs are killed (TIMEOUT,
    # as Slurm ends them) and new ones wait.
    job = sleeper(c, B, "-n", "4")
    c.wait_state(job, "RUNNING")
    with limit(c, "account", "lim_b", GrpTRESMins="cpu=1"):
        assert c.wait_done(job, timeout=60) == "TIMEOUT"
        later = sleeper(c, B)
        wait_reason(c, later, "AssocGrpCPUMinutesLimit")
        other = sleeper(c, A)   # another account: not held
        c.wait_state(other, "RUNNING")
