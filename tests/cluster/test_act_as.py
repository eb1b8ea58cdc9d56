"""Managing a job is not acting as its owner (doc/accounting.md, "Roles,
limits, team jobs"): an AdminLevel=Administrator or Operator, or a
coordinator, may cancel, signal, hold and update another user's job, but
never run code in it -- `srun --jobid=<theirs>` is refused and runs nothing,
while the owner, root and SlurmUser still may.  Then the partition keys that
guard who may allocate (RootOnly, AllocNodes), and the one warning naming the
herd.conf keys Herd accepts but ignores (Prolog, TaskProlog, ...).

Run as the test users herdu1 (the role holder) and herdu2 (the owner)."""
import json
import os
import re
import pwd
import signal
import socket

import pytest

from conftest import REPO, start_cluster, stop_cluster
from cmd_helpers import cancel_all, stays
from test_frames import SUBMIT_JOB, Wire, exchange, submit_body

ROLE, OWNER = "herdu1", "herdu2"
PART = "debug"


def sacctmgr(c, *args):
    r = c.run(["sacctmgr", "-i", *args])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def c(users):
    c = start_cluster(4)
    try:
        # herdu2 owns jobs in account "work"; herdu1 coordinates it and is
        # given each AdminLevel in turn (set_level)
        sacctmgr(c, "add", "account", "work")
        sacctmgr(c, "add", "account", "mine")
        sacctmgr(c, "add", "user", OWNER, "account=work")
        sacctmgr(c, "add", "user", ROLE, "account=mine")
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def clean(c):
    cancel_all(c, wait_idle=False)
    yield c
    cancel_all(c, wait_idle=False)


def set_level(c, level):
    sacctmgr(c, "modify", "user", ROLE, "set", f"adminlevel={level}")


def running(c, user=None, account=None):
    """A job of user (root when None) that sleeps, RUNNING."""
    extra = ["-A", account] if account else []
    job = c.sbatch(*extra, "-n1", "-o", "/dev/null", "--wrap", "sleep 300", user=user,
                   cwd=c.workdir(user))
    c.wait_state(job, "RUNNING")
    return job


def step_count(c, job):
    r = c.run(["squeue", "-h", "-s", "-j", str(job), "-o", "%i"])
    assert r.rc == 0, r
    return len([x for x in r.out.split() if not x.endswith(".batch")])


def try_step(c, job, user, marker):
    """srun --jobid=job --overlap as user: prints id, and leaves marker
    (a file in a world-writable directory) if anything ran."""
    return c.run(["srun", f"--jobid={job}", "--overlap", "-n1", "/bin/sh", "-c",
                  f"id -un; touch {marker}"], user=user, timeout=60)


@pytest.fixture
def marker_dir(c):
    d = os.path.join(c.root, "markers")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o1777)
    return d


def test_roles_may_not_run_steps_in_others_jobs(clean, marker_dir):
    c = clean
    root_job = running(c)
    owner_job = running(c, OWNER, "work")
    # herdu1 as Administrator, Operator, and coordinator of herdu2's account
    sacctmgr(c, "add", "coordinator", "account=work", f"names={ROLE}")
    try:
        for level in ("Administrator", "Operator", "None"):
            set_level(c, level)
            for job in (root_job, owner_job):
                if job == root_job and level == "None":
                    continue   # a coordinator of work has no role for root's job
                marker = os.path.join(marker_dir, f"{level}-{job}")
                before = step_count(c, job)
                r = try_step(c, job, ROLE, marker)
                assert (r.rc, r.out) == (1, ""), (level, job, r)
                assert r.err == (f"srun: error: Unable to create step for job {job}: "
                                 "Access/permission denied\n"), (level, job, r)
                assert stays(lambda: not os.path.exists(marker), 1.0), (level, job)
                assert step_count(c, job) == before, (level, job)
                # what the roles are for still works: a signal to the job
                if job == owner_job:
                    r = c.run(["scancel", "--signal=CONT", str(job)], user=ROLE)
                    assert (r.rc, r.err) == (0, ""), (level, r)
    finally:
        set_level(c, "None")
        sacctmgr(c, "delete", "coordinator", "account=work", f"names={ROLE}")
    # A member of a TeamJobs account (Herd's own role): the same.
    sacctmgr(c, "add", "user", ROLE, "account=work")
    sacctmgr(c, "modify", "account", "work", "set", "flags=TeamJobs")
    try:
        marker = os.path.join(marker_dir, f"team-{owner_job}")
        r = try_step(c, owner_job, ROLE, marker)
        assert (r.rc, r.out, r.err) == (1, "", f"srun: error: Unable to create step for job "
                                               f"{owner_job}: Access/permission denied\n"), r
        assert stays(lambda: not os.path.exists(marker), 1.0)
        r = c.run(["scancel", "--signal=CONT", str(owner_job)], user=ROLE)
        assert (r.rc, r.err) == (0, ""), r
    finally:
        sacctmgr(c, "modify", "account", "work", "set", "flags=none")
        sacctmgr(c, "delete", "user", ROLE, "account=work")
    # A stranger to the job is not told more than that it is not theirs.
    marker = os.path.join(marker_dir, "stranger")
    r = try_step(c, root_job, OWNER, marker)
    assert r.rc == 1 and r.err.startswith(
        f"srun: error: Unable to confirm allocation for job {root_job}: "
        "Access/permission denied\n"), r
    assert not os.path.exists(marker)
    # The owner and root may; each step runs as the job's owner.
    for user, job, who in ((OWNER, owner_job, OWNER), (None, owner_job, OWNER),
                           (None, root_job, "root")):
        marker = os.path.join(marker_dir, f"ok-{user}-{job}")
        r = try_step(c, job, user, marker)
        assert (r.rc, r.out) == (0, f"{who}\n"), (user, job, r)
        assert os.path.exists(marker)
        assert os.stat(marker).st_uid == pwd.getpwnam(who).pw_uid


def test_administrator_may_not_use_anothers_salloc(clean, marker_dir):
    """An allocation without a batch script (salloc --no-shell): the same."""
    c = clean
    r = c.run(["salloc", "-n1", "-A", "work", "--no-shell"], user=OWNER)
    assert r.rc == 0, r
    m = re.search(r"Granted job allocation (\d+)", r.err)
    assert m, r
    job = int(m.group(1))
    set_level(c, "Administrator")
    try:
        marker = os.path.join(marker_dir, f"salloc-{job}")
        r = try_step(c, job, ROLE, marker)
        assert (r.rc, r.err) == (1, f"srun: error: Unable to create step for job {job}: "
                                    "Access/permission denied\n"), r
        assert stays(lambda: not os.path.exists(marker), 1.0)
        assert c.job_state(job) == "RUNNING"
        # nor speak for its holder: "the allocation's command ended, exit 0"
        from test_frames import Wire, exchange
        body = ('{"job_id": %d, "status": 0}' % job).encode()
        reply = exchange(c.port, Wire(c).request(12, body, user=ROLE))   # COMPLETE_ALLOC
        assert reply is not None and (reply["rc"], reply.get("error")) == \
            (2002, DENIED), reply
        assert stays(lambda: c.job_state(job) == "RUNNING", 0.5)
        # and it may still end it, as a manager
        r = c.run(["scancel", str(job)], user=ROLE)
        assert (r.rc, r.err) == (0, ""), r
        assert c.wait_done(job, timeout=20) == "CANCELLED"
    finally:
        set_level(c, "None")


def test_fields_that_decide_what_runs_are_not_updatable(clean):
    """Nobody -- owner or role -- changes a job's command, working directory,
    output paths or user after submission: scontrol refuses them, and a
    hand-made request naming them is refused by the controller's schema."""
    from test_frames import Wire, exchange
    c = clean
    job = c.sbatch("-A", "work", "-H", "-o", "/dev/null", "--wrap", "true", user=OWNER,
                   cwd=c.workdir(OWNER))
    set_level(c, "Administrator")
    try:
        for arg in ("WorkDir=/tmp", "StdOut=/tmp/x", "UserId=0", "Command=/bin/sh"):
            r = c.run(["scontrol", "update", f"JobId={job}", arg], user=ROLE)
            assert r.rc == 1 and "not supported" in r.err, (arg, r)
        wire = Wire(c)
        for field in ("work_dir", "cwd", "stdout", "script", "env", "uid", "user_id"):
            body = ('{"job_id": %d, "action": "update", "fields": {"%s": "x"}}'
                    % (job, field)).encode()
            reply = exchange(c.port, wire.request(5, body, user=ROLE))
            assert reply is not None and reply["rc"] != 0, (field, reply)
    finally:
        set_level(c, "None")
    info = c.show_job(job)
    assert info["UserId"].startswith(f"{OWNER}(") and info["WorkDir"] == c.workdir(OWNER), info


# ---- RootOnly, AllocNodes ----------------------------------------------------

def add_partitions(c, lines):
    with open(c.conf, "a") as f:
        f.write("".join(line + "\n" for line in lines))
    r = c.run(["scontrol", "reconfigure"])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def guarded(c):
    host = socket.gethostname()
    add_partitions(c, [
        "PartitionName=rootq Nodes=n1 RootOnly=YES",
        "PartitionName=farq Nodes=n2 AllocNodes=elsewhere[1-3],nohost",
        f"PartitionName=hereq Nodes=n3 AllocNodes=elsewhere1,{host.split('.')[0]}",
    ])
    return c


def queued(c):
    r = c.run(["squeue", "-h", "-t", "all", "-o", "%i"])
    assert r.rc == 0, r
    return set(r.out.split())


DENIED = "Access/permission denied"


def test_root_only(guarded, users):
    c = guarded
    before = queued(c)
    for args in (["-p", "rootq"], ["-p", f"{PART},rootq"]):
        r = c.run(["sbatch", *args, "-o", "/dev/null", "--wrap", "true"], user=OWNER)
        assert (r.rc, r.out, r.err) == (1, "", f"sbatch: error: Batch job submission failed: "
                                               f"{DENIED}\n"), (args, r)
    r = c.run(["srun", "-p", "rootq", "true"], user=OWNER)
    assert r.rc == 1 and f"srun: error: Unable to allocate resources: {DENIED}\n" in r.err, r
    r = c.run(["salloc", "-p", "rootq", "--no-shell"], user=OWNER)
    assert r.rc == 1 and DENIED in r.err, r
    # an Administrator is not root either
    set_level(c, "Administrator")
    try:
        r = c.run(["sbatch", "-p", "rootq", "-o", "/dev/null", "--wrap", "true"], user=ROLE)
        assert r.rc == 1 and DENIED in r.err, r
    finally:
        set_level(c, "None")
    assert queued(c) == before
    # nor moved there afterwards, by its owner or by a manager
    job = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=OWNER, cwd=c.workdir(OWNER))
    set_level(c, "Operator")
    try:
        for user in (OWNER, ROLE):
            r = c.run(["scontrol", "update", f"JobId={job}", "Partition=rootq"], user=user)
            assert (r.rc, r.err) == (1, f"{DENIED} for job {job}\n"), (user, r)
    finally:
        set_level(c, "None")
    assert c.show_job(job)["Partition"] == PART
    assert c.run(["scancel", str(job)]).rc == 0
    # root may
    job = c.sbatch("-p", "rootq", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(job) == "COMPLETED"
    assert "RootOnly=YES" in c.run(["scontrol", "show", "partition", "rootq"]).out


def test_alloc_nodes(guarded, users):
    c = guarded
    before = queued(c)
    for user in (OWNER, None):
        r = c.run(["sbatch", "-p", "farq", "-o", "/dev/null", "--wrap", "true"], user=user)
        assert (r.rc, r.err) == (1, f"sbatch: error: Batch job submission failed: {DENIED}\n"), r
        r = c.run(["srun", "-p", "farq", "true"], user=user)
        assert r.rc == 1 and f"Unable to allocate resources: {DENIED}" in r.err, r
    assert queued(c) == before
    log = open(os.path.join(c.dir, "log", "herdctld.log")).read()
    assert (f"its credential comes from {origin()} (SubmitHost {socket.gethostname()}), "
            "not from AllocNodes=elsewhere[1-3],nohost") in log
    # from a listed host (this one, by its short name) it is accepted
    job = c.sbatch("-p", "hereq", "-o", "/dev/null", "--wrap", "true", user=OWNER,
                   cwd=c.workdir(OWNER))
    assert c.wait_done(job) == "COMPLETED"
    assert c.show_job(job)["Partition"] == "hereq"


def origin():
    """The address munged puts in its credentials: its host's name, resolved."""
    return socket.gethostbyname(socket.gethostname())


def test_alloc_nodes_trusts_the_credential_not_the_name(guarded, users):
    """AllocNodes is checked against the MUNGE credential's origin address,
    not the SubmitHost the client writes: a hand-made request that claims a
    listed host (elsewhere1, which does not resolve) is refused, and one
    that names no host at all but comes from a listed host is taken."""
    c = guarded
    before = queued(c)
    wire = Wire(c)

    def submit(partition, host):
        body = json.loads(submit_body(os.urandom(8).hex()))
        body["job"].update(partition=partition, submit_host=host, hold=True)
        return exchange(c.port, wire.request(SUBMIT_JOB, json.dumps(body).encode(), user=OWNER))

    for host in ("elsewhere1", "nohost", ""):
        reply = submit("farq", host)
        assert reply["rc"] != 0, (host, reply)
    assert queued(c) == before
    reply = submit("hereq", "elsewhere1")
    assert reply["rc"] == 0, reply
    job = reply["job_id"]
    assert c.show_job(job)["Partition"] == "hereq"
    # moving it later is checked against where it was submitted from, too
    # (kept in the store: the same after a controller restart)
    r = c.run(["scontrol", "update", f"JobId={job}", "Partition=farq"])
    assert (r.rc, r.err) == (1, f"{DENIED} for job {job}\n"), r
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not os.path.exists(f"/proc/{pid}"), timeout=20)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    r = c.run(["scontrol", "update", f"JobId={job}", "Partition=farq"])
    assert (r.rc, r.err) == (1, f"{DENIED} for job {job}\n"), r
    assert c.run(["scontrol", "update", f"JobId={job}", "Partition=hereq"]).rc == 0
    assert c.run(["scancel", str(job)]).rc == 0


# ---- keys accepted and ignored: one warning ---------------------------------

WARN = "accepted but not acted on (Herd ignores them): "


def warnings_in(text):
    return [line for line in text.splitlines() if WARN in line]


def test_ignored_keys_warning(c):
    log_path = os.path.join(c.dir, "log", "herdctld.log")
    with open(log_path) as f:
        assert warnings_in(f.read()) == [], "herd up's own file names an ignored key"
    with open(c.conf, "a") as f:
        f.write("Prolog=/bin/true\nEpilog=/bin/true\nTaskProlog=/bin/true\n"
                "SwitchType=switch/none\nProctrackType=proctrack/linuxproc\n"
                "PartitionName=lln Nodes=n4 LLN=YES\n")
    want = (f"{c.conf}: {WARN}Epilog, ProctrackType, Prolog, TaskProlog, "
            "LLN (PartitionName)")
    # at reconfigure: the log and scontrol's answer
    r = c.run(["scontrol", "reconfigure"])
    assert (r.rc, r.out, r.err) == (0, "", f"scontrol: warning: {want}\n"), r
    with open(log_path) as f:
        lines = warnings_in(f.read())
    assert len(lines) == 1 and lines[0].endswith(want), lines
    # at start
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGTERM)
    c.wait_until("the controller gone", lambda: not os.path.exists(f"/proc/{pid}"), timeout=20)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    with open(log_path) as f:
        lines = warnings_in(f.read())
    assert len(lines) == 2 and lines[1].endswith(want), lines


def plain_keys():
    with open(os.path.join(REPO, "src/common/conf_keys.c")) as f:
        return re.findall(r'\{ "(\w+)", CONF_V_', f.read())


def inert_keys():
    with open(os.path.join(REPO, "src/common/conf_inert.c")) as f:
        text = f.read()
    table = text[text.index("inert_plain[] = {"):text.index("};", text.index("inert_plain[]"))]
    return re.findall(r'\{ "(\w+)", ', table)


def keys_read_by_daemons():
    """Plain keys named in a daemon's source (outside the tables that only
    list them: conf_keys.c, conf_inert.c, and conf_diff.c's restart list;
    oci_conf.c's are oci.conf's keys, some of the same name), and those only
    a command acts on (srun --bcast: BcastParameters, BcastExclude)."""
    keys = set(plain_keys())
    found = {"BcastParameters", "BcastExclude"}
    skip = {"conf_keys.c", "conf_inert.c", "conf_diff.c", "oci_conf.c"}
    for sub in ("core", "ctld", "acct", "noded", "stepd", "restd", "common", "sched"):
        for dirpath, _, files in os.walk(os.path.join(REPO, "src", sub)):
            for name in files:
                if name in skip or not name.endswith((".c", ".h")):
                    continue
                with open(os.path.join(dirpath, name)) as f:
                    found |= set(re.findall(r'"(\w+)"', f.read())) & keys
    return found


def test_ignored_keys_list_matches_the_sources():
    """No cluster: the list of ignored keys is every accepted key no daemon
    reads.  A key that gets implemented leaves conf_inert.c; a key added to
    conf_keys.c is either read or listed there."""
    plain, inert, read = set(plain_keys()), inert_keys(), keys_read_by_daemons()
    assert len(plain) > 200 and len(inert) > 100
    assert inert == sorted(inert, key=str.lower), "conf_inert.c: keep the list sorted"
    assert set(inert) <= plain, set(inert) - plain
    for must in ("Prolog", "Epilog", "TaskProlog", "TaskEpilog", "PrologSlurmctld"):
        assert must in inert or must in read
    assert set(inert) & read == set(), \
        f"read by a daemon, so no longer ignored: drop from conf_inert.c: {set(inert) & read}"
    assert plain - read - set(inert) == set(), \
        f"accepted, read by no daemon, and not named as ignored: {plain - read - set(inert)}"
