"""Steps end to end on a cluster of its own (it kills daemons), with
cgroup.conf constraining cores and memory: tasks confined to the CPUs of
their step (sched_getaffinity and the cpuset cgroup), a step over its --mem
ends OUT_OF_MEMORY with Slurm's message, the task environment of a
multi-node step, another user's allocation refused, srun killed with
SIGKILL leaving nothing behind, and a node daemon dying mid-step: the step
ends NODE_FAIL and srun names the node."""
import os
import pwd
import select
import re
import signal
import subprocess
import time

import pytest

from conftest import BIN, start_cluster, stop_cluster

CGROUP_CONF = "ConstrainCores=yes\nConstrainRAMSpace=yes\n"


@pytest.fixture(scope="module")
def c(users):
    c = start_cluster(4)
    with open(os.path.join(c.dir, "cgroup.conf"), "w") as f:
        f.write(CGROUP_CONF)
    yield c
    stop_cluster(c)


def expand(nodelist):
    """n[1-2,4] or n1,n3 as names (the forms a 4-node herd up cluster has)."""
    m = re.fullmatch(r"(\w+?)\[([\d,-]+)\]", nodelist)
    if not m:
        return nodelist.split(",")
    names = []
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        names += [f"{m.group(1)}{i}" for i in range(int(lo), int(hi or lo) + 1)]
    return names


def user_popen(c, user, args):
    """srun as the user's own process, so that a signal to it reaches srun."""
    pw = pwd.getpwnam(user)
    env = dict(c.env(), HOME=pw.pw_dir, USER=user)
    cmd = [os.path.join(BIN, args[0])] + list(args[1:])
    return subprocess.Popen(cmd, env=env, cwd=c.workdir(user), user=pw.pw_uid, group=pw.pw_gid,
                            extra_groups=[], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def steps_running(c, user=None):
    r = c.run(["squeue", "-h", "-s", "-o", "%i %N"] + (["-u", user] if user else []))
    return [line.split() for line in r.out.splitlines() if ".batch" not in line]


def user_processes(c, user, name):
    """The user's live processes named name that belong to this cluster (their
    environment holds its HERD_CONF): other clusters of a parallel run have
    the same users running the same commands, and are not ours to count or
    kill."""
    uid = pwd.getpwnam(user).pw_uid
    needle = f"HERD_CONF={c.conf}".encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.stat(f"/proc/{d}").st_uid != uid:
                continue
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            if comm != name or stat.rsplit(")", 1)[1].split()[0] == "Z":
                continue
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if needle in env:
            found.append(int(d))
    return found


def test_tasks_are_confined_to_their_cores(c):
    r = c.run(["srun", "-N1", "-n2", "--exact", "-c1", "-l", "sh", "-c",
               "grep Cpus_allowed_list /proc/self/status; grep cpuset /proc/self/cgroup"],
              user="herdu1")
    assert r.rc == 0, r
    cpus = dict(re.findall(r"^(\d): Cpus_allowed_list:\s*(\S+)$", r.out, re.M))
    assert set(cpus) == {"0", "1"}, r
    assert cpus["0"] != cpus["1"], r   # one CPU each, not the same one
    cgroups = dict(re.findall(r"^(\d): \d+:cpuset:(\S+)$", r.out, re.M))
    for task, path in cgroups.items():
        assert re.search(rf"/herd/[^/]+_n\d/job_\d+/step_0/task_{task}$", path), r
    assert set(cgroups) == {"0", "1"}, r


def test_memory_limit_ends_the_step_out_of_memory(c):
    hog = "b = b'x' * (300 << 20); import time; time.sleep(1)"
    r = c.run(["srun", "--mem=40", "python3", "-c", hog], user="herdu1", timeout=60)
    assert r.rc != 0, r
    m = re.search(r"Detected \d+ oom-kill event\(s\) in StepId=(\d+)\.0\. Some of your processes "
                  r"may have been killed by the cgroup out-of-memory handler\.", r.err)
    assert m, r
    job = m.group(1)
    acct = c.run(["sacct", "-n", "-P", "-j", f"{job}.0", "-o", "JobID,State"])
    assert acct.out.split() == [f"{job}.0|OUT_OF_MEMORY"], acct


def test_task_environment_of_a_multi_node_step(c):
    script = ('echo "$SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME $SLURM_STEP_ID '
              '$SLURM_STEP_NODELIST $SLURM_STEP_NUM_NODES $SLURM_STEP_NUM_TASKS '
              '$SLURM_STEP_TASKS_PER_NODE $SLURM_NTASKS $SLURM_TASKS_PER_NODE $SLURM_JOB_ID '
              '$SLURM_LAUNCH_NODE_IPADDR"')
    r = c.run(["salloc", "-Q", "-N2", "-n4", "srun", "sh", "-c", script], user="herdu1")
    assert r.rc == 0, r
    rows = sorted(line.split() for line in r.out.splitlines())
    assert [row[0] for row in rows] == ["0", "1", "2", "3"], r
    nodes = {row[3] for row in rows}
    assert len(nodes) == 2, r
    for procid, localid, nodeid, name, step, nodelist, nnodes, ntasks, tpn, njob, jtpn, job, addr in rows:
        assert (step, nnodes, ntasks, tpn, njob) == ("0", "2", "4", "2(x2)", "4"), r
        assert localid == str(int(procid) % 2) and nodeid == str(int(procid) // 2), r
        assert re.fullmatch(r"n\[\d-\d\]|n\d,n\d", nodelist), r
        assert addr == "127.0.0.1", r
        assert jtpn == "2(x2)", r


def test_another_users_allocation_is_refused(c):
    r = c.run(["salloc", "--no-shell", "-N1"], user="herdu1")
    m = re.search(r"Granted job allocation (\d+)", r.err)
    assert r.rc == 0 and m, r
    job = m.group(1)
    theirs = c.run(["srun", f"--jobid={job}", "id", "-un"], user="herdu2")
    assert theirs.rc != 0 and "Access/permission denied" in theirs.err, theirs
    mine = c.run(["srun", f"--jobid={job}", "id", "-un"], user="herdu1")
    assert mine.rc == 0 and mine.out == "herdu1\n", mine
    c.run(["scancel", job])
    assert c.wait_done(int(job)) == "CANCELLED"


def test_srun_killed_leaves_no_task_behind(c):
    p = user_popen(c, "herdu2", ["srun", "-N2", "-n4", "sh", "-c",
                                 "sleep 300 & sleep 300; wait"])
    c.wait_until("the step's sleeps", lambda: len(user_processes(c, "herdu2", "sleep")) >= 8,
                 timeout=30)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=10)
    c.wait_until("every task to be gone", lambda: not user_processes(c, "herdu2", "sleep"),
                 timeout=20)
    # The step ended with srun; its job stays until cancelled or its time
    # limit, as Slurm's with InactiveLimit=0 (the default).
    jobs = c.run(["squeue", "-h", "-u", "herdu2", "-o", "%i"]).out.split()
    assert len(jobs) == 1, jobs
    acct = c.run(["sacct", "-n", "-P", "-j", f"{jobs[0]}.0", "-o", "State"])
    assert acct.out.split() == ["CANCELLED"], acct
    c.run(["scancel", jobs[0]])
    assert c.wait_done(int(jobs[0])) == "CANCELLED"


def test_node_daemon_dying_mid_step_is_a_node_failure(c):
    p = user_popen(c, "herdu1", ["srun", "-N2", "-n2", "sleep", "300"])
    c.wait_until("the step", lambda: steps_running(c, "herdu1"), timeout=30)
    # Its tasks run on both nodes: srun has its launch answered (killed
    # before that, the node daemon's reset ends srun's step creation
    # instead, "Unable to create step ... Connection reset by peer").
    c.wait_until("the step's tasks", lambda: len(user_processes(c, "herdu1", "sleep")) >= 2,
                 timeout=30)
    step_id, nodelist = steps_running(c, "herdu1")[0]
    victim = expand(nodelist)[-1]
    os.kill(c.herdd_pid(victim), signal.SIGKILL)
    try:
        out, err = p.communicate(timeout=60)   # SlurmdTimeout is 10 s in herd up's config
        assert p.returncode != 0, err
        assert f"srun: error: Node failure on {victim}" in err, err
        job = step_id.split(".")[0]
        acct = c.run(["sacct", "-n", "-P", "-j", step_id, "-o", "JobID,State"])
        assert acct.out.split() == [f"{step_id}|NODE_FAIL"], acct
        assert c.wait_done(int(job)) == "NODE_FAIL"
        # nothing of the step is left, even on the node whose herdd died
        c.wait_until("the sleeps to be gone", lambda: not user_processes(c, "herdu1", "sleep"),
                     timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
        c.restart_herdd(victim)
        c.run(["scontrol", "update", f"NodeName={victim}", "State=RESUME"])
        c.wait_nodes_idle(timeout=40)


def test_pty_session_driven_through_a_terminal(c):
    """srun --pty bash, typed at through a pseudo-terminal: the task has a
    terminal (its own session, the pty as its controlling terminal), reads
    what is typed, and srun exits with the shell's code."""
    import pty
    pw = pwd.getpwnam("herdu1")
    master, slave = pty.openpty()
    env = dict(c.env(), HOME=pw.pw_dir, USER="herdu1", TERM="dumb", PS1="$ ")
    p = subprocess.Popen([os.path.join(BIN, "srun"), "--pty", "bash", "--norc", "-i"], env=env,
                         cwd=c.workdir("herdu1"), user=pw.pw_uid, group=pw.pw_gid, extra_groups=[],
                         stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)

    def read_for(pattern, timeout=30):
        got = b""
        deadline = time.time() + timeout
        while time.time() < deadline and not re.search(pattern, got):
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    got += os.read(master, 4096)
                except OSError:
                    break
        return got

    try:
        assert re.search(rb"\$ ", read_for(rb"\$ ")), "no prompt"
        os.write(master, b"tty; echo $((6*7)) $SLURM_STEP_ID\n")
        got = read_for(rb"42 0")
        assert re.search(rb"/dev/pts/\d+", got) and b"42 0" in got, got
        os.write(master, b"exit 3\n")
        assert p.wait(timeout=30) == 3
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)


def test_lost_step_daemon_frees_the_steps_cpus(c):
    """herdstepd killed with SIGKILL: srun loses the node's connection and
    gives up on its tasks; the controller, told by the node's registrations
    that the step no longer runs there, ends it, so the next step of the
    job gets the CPUs instead of waiting for ever."""
    r = c.run(["salloc", "--no-shell", "-N1"], user="herdu1")
    job = re.search(r"Granted job allocation (\d+)", r.err).group(1)
    p = user_popen(c, "herdu1", ["srun", f"--jobid={job}", "sleep", "300"])
    try:
        needle = f"job{int(job):05d}.0".encode()

        def stepds():
            found = []
            for d in os.listdir("/proc"):
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        cmd = f.read()
                except OSError:
                    continue
                if b"herdstepd" in cmd and needle in cmd and c.dir.encode() in cmd:
                    found.append(int(d))
            return found
        c.wait_until("the step's herdstepd and task",
                     lambda: stepds() and user_processes(c, "herdu1", "sleep"), timeout=30)
        assert len(stepds()) == 1, stepds()
        os.kill(stepds()[0], signal.SIGKILL)
        p.communicate(timeout=60)
        assert p.returncode != 0
        nxt = c.run(["srun", f"--jobid={job}", "true"], user="herdu1", timeout=90)
        assert nxt.rc == 0, nxt
        acct = c.run(["sacct", "-n", "-P", "-j", f"{job}.0", "-o", "State"])
        assert acct.out.split() == ["CANCELLED"], acct
    finally:
        if p.poll() is None:
            p.kill()
        c.run(["scancel", job])
        for pid in user_processes(c, "herdu1", "sleep"):
            os.kill(pid, signal.SIGKILL)   # the lost step's task: no herdstepd left to kill it


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])   # utime + stime


def test_suspend_and_resume_freeze_the_steps_processes(c):
    """scontrol suspend: the job is SUSPENDED and its tasks stop (the cgroup
    freezer: no CPU time while frozen); resume thaws them.  Users may not."""
    p = user_popen(c, "herdu1", ["srun", "-N1", "-n1", "sh", "-c", "while :; do :; done"])
    try:
        c.wait_until("the busy task", lambda: user_processes(c, "herdu1", "sh"), timeout=30)
        pid = user_processes(c, "herdu1", "sh")[0]
        job = c.run(["squeue", "-h", "-u", "herdu1", "-o", "%i"]).out.split()[0]
        r = c.run(["scontrol", "suspend", job], user="herdu1")
        assert r.rc != 0 and "Access/permission denied" in r.err, r
        r = c.run(["scontrol", "suspend", job])
        assert r.rc == 0, r
        assert c.job_state(int(job)) == "SUSPENDED"
        with open(f"/proc/{pid}/cgroup") as f:
            freezer = [line.split(":", 2)[2].strip() for line in f if ":freezer:" in line]
        state_file = f"/sys/fs/cgroup/freezer{freezer[0]}/freezer.state"
        c.wait_until("the freezer", lambda: open(state_file).read().strip() == "FROZEN", timeout=10)
        before = cpu_ticks(pid)
        time.sleep(1.0)
        assert cpu_ticks(pid) == before
        r = c.run(["scontrol", "resume", job])
        assert r.rc == 0, r
        assert c.job_state(int(job)) == "RUNNING"
        c.wait_until("the task to run again", lambda: cpu_ticks(pid) > before, timeout=10)
        r = c.run(["scontrol", "resume", job])
        assert r.rc != 0 and "Job not suspended" in r.err, r
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=10)
        for job in c.run(["squeue", "-h", "-u", "herdu1", "-o", "%i"]).out.split():
            c.run(["scancel", job])


def test_prolog_flags_contain_makes_the_extern_step(c):
    """PrologFlags=Contain: each job gets N.extern on every one of its nodes
    (a herdstepd holding the job's cgroup, step_extern), listed by squeue -s
    while the job runs and by sacct after, COMPLETED or CANCELLED with the job."""
    with open(c.conf) as f:
        original = f.read()
    with open(c.conf, "a") as f:
        f.write("PrologFlags=Contain\n")
    try:
        assert c.run(["scontrol", "reconfigure"]).rc == 0
        job = c.sbatch("-N2", "-o", "/dev/null", "--wrap", "srun true; sleep 3", user="herdu1")
        c.wait_state(job, "RUNNING")
        c.wait_until("the extern step", lambda: any(
            s[0] == f"{job}.extern" for s in
            (line.split() for line in c.run(["squeue", "-h", "-s", "-o", "%i %N"]).out.splitlines())),
            timeout=20)
        def holders():
            found = []
            for d in os.listdir("/proc"):
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        cmd = f.read()
                except OSError:
                    continue
                if (b"herdstepd" in cmd and f"job{job:05d}.4294967292".encode() in cmd
                        and c.dir.encode() in cmd):
                    found.append(d)
            return found
        c.wait_until("a herdstepd for it on each node", lambda: len(holders()) == 2, timeout=20)
        assert c.wait_done(job) == "COMPLETED"
        acct = c.run(["sacct", "-n", "-P", "-j", str(job), "-o", "JobID,State,NNodes"])
        assert acct.out.split() == [f"{job}|COMPLETED|2", f"{job}.batch|COMPLETED|1",
                                    f"{job}.extern|COMPLETED|2", f"{job}.0|COMPLETED|2"], acct
        cancelled = c.sbatch("-o", "/dev/null", "--wrap", "sleep 60", user="herdu1")
        c.wait_state(cancelled, "RUNNING")
        c.run(["scancel", str(cancelled)])
        assert c.wait_done(cancelled) == "CANCELLED"
        c.wait_until("the extern step's end", lambda: c.run(
            ["sacct", "-n", "-P", "-j", f"{cancelled}.extern", "-o", "State"]).out.split() ==
            ["CANCELLED"], timeout=20)
    finally:
        with open(c.conf, "w") as f:
            f.write(original)
        c.run(["scontrol", "reconfigure"])
