"""sbatch's scheduling and job-control options as a user meets them: --nice,
--requeue/--no-requeue, --mail-type/--mail-user (MailProg), --mem-per-cpu,
--ntasks-per-node, --open-mode, --time-min, --signal, -q, -C (node Features),
--batch, -w/-x, -p a,b and --test-only: what the job sees, where it runs, what squeue
and scontrol show, and Slurm's refusals (message, exit code, nothing queued).
Its own cluster: 3 nodes of 4 CPUs and 1000 MB; n1 has Features=big,fast, n2
big, n3 slow; partitions debug (all, default) and p2 (n3); MailProg records
its calls.
The last test kills the controller and starts it again."""
import os
import re
import signal
import time

import pytest

from conftest import Cluster, make_root, stop_cluster
from cmd_helpers import read, run_env, squeue_field, stays, wait_text, write_script

USER = "herdu1"
BASE_PRIORITY = 0xFFFF0000


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 3)
    try:
        c.up("--cpus", "4", "--memory", "1000")
        # Features, a second partition and MailProg, as an administrator
        # adds them: stop the controller, edit, start it again.
        os.kill(c.ctld_pid(), signal.SIGTERM)
        c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
        c.mail_log = os.path.join(c.root, "mails")
        # one line per call, and each call's argv, one argument a line
        mailprog = write_script(os.path.join(c.root, "mailprog"),
                                f"#!/bin/sh\necho \"$*\" >> {c.mail_log}\n"
                                f"printf '%s\\n' \"$@\" > {c.root}/argv-$SLURM_JOB_ID\n")
        with open(c.conf) as f:
            text = f.read()
        text = re.sub(r"(?m)^(NodeName=n1 .*)$", r"\1 Features=big,fast", text)
        text = re.sub(r"(?m)^(NodeName=n2 .*)$", r"\1 Feature=big", text)
        text = re.sub(r"(?m)^(NodeName=n3 .*)$", r"\1 Features=slow", text)
        text += "PartitionName=p2 Nodes=n3 State=UP\n"
        text += f"MailProg={mailprog}\n"
        with open(c.conf, "w") as f:
            f.write(text)
        c.restart_ctld()
        wait_idle(c)
        yield c
    finally:
        stop_cluster(c)


def node_states(c):
    r = c.run(["sinfo", "-h", "-N", "-o", "%N %t"])
    return dict(line.split() for line in r.out.splitlines())


def wait_idle(c):
    c.wait_until("all nodes idle",
                 lambda: sorted(node_states(c).items()) ==
                 [("n1", "idle"), ("n2", "idle"), ("n3", "idle")])


def queue(c):
    r = c.run(["squeue", "-h", "-o", "%i"])
    assert r.rc == 0, r
    return r.out.split()


@pytest.fixture
def clean(c):
    yield c
    for user in ("root", USER):
        c.run(["scancel", "-u", user])
    c.wait_until("an empty queue", lambda: not queue(c))
    wait_idle(c)


def submit(c, *args, user=USER, env=None, input=None):
    wd = c.workdir(user)
    if env:
        return run_env(c, env, ["sbatch", *args], user=user, cwd=wd, input=input)
    return c.run(["sbatch", *args], user=user, cwd=wd, input=input)


def job_id(r):
    assert r.rc == 0, r
    m = re.fullmatch(r"Submitted batch job (\d+)\n", r.out)
    assert m, r
    return int(m.group(1))


def refused(c, message, *args, rc=255, env=None, user=USER):
    """sbatch args is refused with Slurm's message and exit code, and
    nothing is queued."""
    before = queue(c)
    r = submit(c, *args, env=env, user=user)
    assert r.rc == rc, r
    assert r.out == "", r
    assert message in r.err, r
    assert set(queue(c)) <= set(before)   # no new job


def job_env(c, jid, name):
    text = read(os.path.join(c.workdir(USER), f"env-{jid}.out"))
    m = re.search(rf"(?m)^{name}=(.*)$", text)
    return m.group(1) if m else None


ENV_JOB = "env | sort"


def test_help_lists_the_options(c):
    r = c.run(["sbatch", "--help"])
    assert r.rc == 0, r
    for opt in ("--nice", "--no-requeue", "--requeue", "--mail-type", "--mail-user",
                "--mem-per-cpu", "--ntasks-per-node", "--open-mode", "--time-min", "--signal",
                "--qos", "--constraint", "--nodelist", "--exclude", "--test-only"):
        assert opt in r.out, opt
    r = c.run(["sbatch", "--usage"])
    assert r.rc == 0 and "--mem-per-cpu" in r.out and "--test-only" in r.out, r


def test_nice(clean):
    c = clean
    plain = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    nice = job_id(submit(c, "--nice=1000", "-o", "/dev/null", "-t", "5", "--wrap", "sleep 30"))
    default = job_id(submit(c, "--nice", "-o", "/dev/null", "-t", "5", "--wrap", "sleep 30"))
    assert c.show_job(plain)["Nice"] == "0"
    info = c.show_job(nice)
    assert info["Nice"] == "1000"
    assert int(info["Priority"]) == BASE_PRIORITY - nice - 1000
    assert c.show_job(default)["Nice"] == "100"   # --nice alone: 100, as sbatch(1)
    assert int(squeue_field(c, default, "%Q")) == BASE_PRIORITY - default - 100
    # Only root and the SlurmUser may ask for a negative nice.
    c.run(["scancel", str(plain), str(nice), str(default)])
    c.wait_until("an empty queue", lambda: not queue(c))
    refused(c, "sbatch: error: Batch job submission failed: Invalid --nice value",
            "--nice=-5", "-o", "/dev/null", "--wrap", "true", rc=1)
    refused(c, "sbatch: error: Invalid --nice value: abc", "--nice=abc", "-o", "/dev/null",
            "--wrap", "true")
    refused(c, "sbatch: error: Nice value out of range (+/- 2147483645)", "--nice=2147483646",
            "-o", "/dev/null", "--wrap", "true")
    root_job = job_id(submit(c, "--nice=-5", "-H", "-o", "/dev/null", "--wrap", "true",
                             user=None))
    assert c.show_job(root_job)["Nice"] == "-5"


def test_requeue_and_no_requeue(clean):
    c = clean
    default = job_id(submit(c, "-o", "/dev/null", "-t", "5", "--wrap", "sleep 30"))
    no = job_id(submit(c, "--no-requeue", "-o", "/dev/null", "-t", "5", "--wrap", "sleep 30"))
    by_env = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true",
                           env={"SBATCH_NO_REQUEUE": "1"}))
    # the command line wins over SBATCH_NO_REQUEUE
    yes = job_id(submit(c, "--requeue", "-H", "-o", "/dev/null", "--wrap", "true",
                        env={"SBATCH_NO_REQUEUE": "1"}))
    assert c.show_job(default)["Requeue"] == "1"
    assert c.show_job(no)["Requeue"] == "0"
    assert c.show_job(by_env)["Requeue"] == "0"
    assert c.show_job(yes)["Requeue"] == "1"
    for j in (default, no):
        c.wait_state(j, "RUNNING")
    r = c.run(["scontrol", "requeue", str(no)], user=USER)
    assert r.rc == 1, r
    assert "Requested operation is presently disabled" in r.err, r
    assert c.job_state(no) == "RUNNING"
    r = c.run(["scontrol", "requeue", str(default)], user=USER)
    assert r.rc == 0, r
    c.wait_state(default, "PENDING")


def test_mail_type_and_user(clean):
    c = clean
    if os.path.exists(c.mail_log):
        os.unlink(c.mail_log)
    ok = job_id(submit(c, "--mail-type=BEGIN,END", "-o", "/dev/null", "--wrap", "true"))
    bad = job_id(submit(c, "--mail-type=FAIL", "--mail-user=someone@example.org", "-o",
                        "/dev/null", "--wrap", "exit 3"))
    c.wait_done(ok)
    c.wait_done(bad)
    info = c.show_job(ok)
    assert (info["MailUser"], info["MailType"]) == (USER, "BEGIN,END")
    info = c.show_job(bad)
    assert (info["MailUser"], info["MailType"]) == ("someone@example.org", "FAIL")
    none = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    assert "MailType" not in c.show_job(none)   # as Slurm: no line without mail
    all_ = job_id(submit(c, "-H", "--mail-type=all", "-o", "/dev/null", "--wrap", "true"))
    assert c.show_job(all_)["MailType"] == "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"
    text = wait_text(c, c.mail_log, f"Job_id={bad} ")
    text = wait_text(c, c.mail_log, f"Job_id={ok} Name=wrap Ended")
    lines = text.splitlines()
    assert f"-s Slurm Job_id={ok} Name=wrap Began, Queued time 00:00:00 -- {USER}" in lines or \
        any(re.fullmatch(rf"-s Slurm Job_id={ok} Name=wrap Began, Queued time 00:00:0\d -- {USER}",
                         line) for line in lines), lines
    assert any(re.fullmatch(rf"-s Slurm Job_id={ok} Name=wrap Ended, Run time 00:00:0\d, "
                            rf"COMPLETED, ExitCode 0 -- {USER}", line) for line in lines), lines
    assert any(re.fullmatch(rf"-s Slurm Job_id={bad} Name=wrap Failed, Run time 00:00:0\d, "
                            r"FAILED, ExitCode 3 -- someone@example.org", line)
               for line in lines), lines
    # FAIL only: no mail when it began
    assert not any(f"Job_id={bad} Name=wrap Began" in line for line in lines), lines
    # time limits (-t 0:06 is six seconds) and requeue
    limited = job_id(submit(c, "--mail-type=TIME_LIMIT,TIME_LIMIT_50,REQUEUE", "-t", "0:06",
                            "-o", "/dev/null", "--wrap", "sleep 60"))
    c.wait_state(limited, "RUNNING")
    text = wait_text(c, c.mail_log, f"Job_id={limited} Name=wrap Reached 50% of time limit")
    assert re.search(rf"(?m)^-s Slurm Job_id={limited} Name=wrap Reached 50% of time limit, "
                     rf"Run time 00:00:0[34] -- {USER}$", text), text
    assert c.run(["scontrol", "requeue", str(limited)]).rc == 0
    text = wait_text(c, c.mail_log, f"Job_id={limited} Name=wrap Requeued")
    assert re.search(rf"(?m)^-s Slurm Job_id={limited} Name=wrap Requeued, Run time 00:00:0\d "
                     rf"-- {USER}$", text), text
    # run again: its own 50% mail, then the limit
    text = wait_text(c, c.mail_log, f"Job_id={limited} Name=wrap Reached time limit", timeout=40)
    assert len(re.findall(rf"Job_id={limited} Name=wrap Reached 50%", text)) == 2, text
    # The limit counts from the start time in whole seconds (as Slurm's):
    # a run that began late in its second ends 5.x s later, shown as 5.
    assert re.search(rf"(?m)^-s Slurm Job_id={limited} Name=wrap Reached time limit, "
                     rf"Run time 00:00:0[567] -- {USER}$", text), text
    assert c.wait_done(limited) == "TIMEOUT"
    assert not re.search(rf"Job_id={limited} Name=wrap (Ended|Failed|Began)", read(c.mail_log))
    refused(c, "sbatch: error: Invalid --mail-type specification",
            "--mail-type=BEGIN,SOMETIMES", "-o", "/dev/null", "--wrap", "true")


def test_mail_user_is_never_an_option(clean):
    """--mail-user reaches MailProg after "--", and what is not a user name
    or an address (an option, shell syntax, a newline) is refused at
    submission and at scontrol update."""
    c = clean
    for bad in ("--exec=/tmp/x", "-s", "a;id", "$(id)", "a b", "x\ny", "a@b@c"):
        refused(c, "sbatch: error: Batch job submission failed: Invalid --mail-user",
                "--mail-type=END", f"--mail-user={bad}", "-o", "/dev/null", "--wrap", "true",
                rc=1)
    jid = job_id(submit(c, "--mail-type=END", "--mail-user=first.last+tag@example.org",
                        "-o", "/dev/null", "--wrap", "true"))
    argv = os.path.join(c.root, f"argv-{jid}")
    wait_text(c, argv, "first.last+tag@example.org")
    assert read(argv).splitlines() == [
        "-s", read(argv).splitlines()[1], "--", "first.last+tag@example.org"], read(argv)
    assert read(argv).splitlines()[1].startswith(f"Slurm Job_id={jid} Name=wrap Ended")
    held = job_id(submit(c, "-H", "--mail-type=END", "-o", "/dev/null", "--wrap", "true"))
    r = c.run(["scontrol", "update", f"JobId={held}", "MailUser=--exec=/tmp/x"], user=USER)
    assert r.rc == 1 and "Invalid --mail-user" in r.err, r
    assert c.show_job(held)["MailUser"] == USER
    r = c.run(["scontrol", "update", f"JobId={held}", "MailUser=me@example.org"], user=USER)
    assert r.rc == 0, r
    assert c.show_job(held)["MailUser"] == "me@example.org"
    # salloc and srun take --mail-type/--mail-user too, checked the same way
    for cmd in ("salloc", "srun"):
        r = c.run([cmd, "--mail-type=END", "--mail-user=--exec=/tmp/x", "-t", "1", "true"],
                  user=USER, cwd=c.workdir(USER))
        assert r.rc == 1 and "Invalid --mail-user" in r.err, r
    r = c.run(["srun", "--mail-type=END", "--mail-user=srun.user@example.org", "-t", "1", "true"],
              user=USER, cwd=c.workdir(USER))
    assert r.rc == 0, r
    r = c.run(["sacct", "-n", "-X", "-P", "-o", "JobID,JobName", "-S", "now-1hour"], user=USER)
    srun_job = max(int(line.split("|")[0]) for line in r.out.split() if line.endswith("|true"))
    argv = os.path.join(c.root, f"argv-{srun_job}")
    wait_text(c, argv, "srun.user@example.org")
    assert read(argv).splitlines()[2:] == ["--", "srun.user@example.org"], read(argv)
    # job names and comments end up in one-line records: no control characters
    refused(c, "sbatch: error: Batch job submission failed: Invalid job name",
            "-J", "two\nlines", "-o", "/dev/null", "--wrap", "true", rc=1)
    refused(c, "sbatch: error: Batch job submission failed: Invalid comment",
            "--comment", "tab\there", "-o", "/dev/null", "--wrap", "true", rc=1)
    r = c.run(["scontrol", "update", f"JobId={held}", "Comment=a\nb"], user=USER)
    assert r.rc == 1 and "Invalid comment" in r.err, r


def test_mem_per_cpu(clean):
    c = clean
    jid = job_id(submit(c, "--mem-per-cpu=200", "-n", "2", "-o", "env-%j.out",
                        "--wrap", ENV_JOB))
    assert c.wait_done(jid) == "COMPLETED"
    assert job_env(c, jid, "SLURM_MEM_PER_CPU") == "200"
    assert job_env(c, jid, "SLURM_MEM_PER_NODE") is None
    info = c.show_job(jid)
    assert info["MinMemoryCPU"] == "200M"
    assert "MinMemoryNode" not in info
    assert squeue_field(c, jid, "%m") == "200M"
    r = c.run(["sacct", "-j", str(jid), "-n", "-P", "-o", "jobid,reqmem,reqtres"], user=USER)
    assert r.out.splitlines()[0] == f"{jid}|400M|billing=2,cpu=2,mem=400M,node=1", r
    # Memory per node is CPUs there times the value: 400 MB per CPU on
    # 1000 MB nodes fits two tasks a node, so four tasks take two nodes.
    spread = job_id(submit(c, "--mem-per-cpu=400", "-n", "4", "-t", "5", "-o", "/dev/null",
                           "--wrap", "sleep 30"))
    c.wait_state(spread, "RUNNING")
    info = c.show_job(spread)
    assert info["NumNodes"] == "2", info
    r = c.run(["scontrol", "show", "node", info["BatchHost"]])
    assert "AllocMem=800 " in r.out, r
    # more than a node's memory for one CPU: refused
    r = submit(c, "--mem-per-cpu=2000", "-o", "/dev/null", "--wrap", "true")
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r
    c.run(["scancel", str(spread)])
    c.wait_until("an empty queue", lambda: not queue(c))
    # --mem and --mem-per-cpu from one source: Slurm's fatal error
    refused(c, "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.",
            "--mem=100", "--mem-per-cpu=100", "-o", "/dev/null", "--wrap", "true", rc=1)
    # from different sources the later wins: #SBATCH --mem, command line --mem-per-cpu
    wd = c.workdir(USER)
    script = write_script(os.path.join(wd, "mem.sh"),
                          "#!/bin/sh\n#SBATCH --mem=300\nenv | sort\n", owner=USER)
    jid = job_id(submit(c, "--mem-per-cpu=50", "-o", "env-%j.out", script))
    assert c.wait_done(jid) == "COMPLETED"
    assert job_env(c, jid, "SLURM_MEM_PER_CPU") == "50"
    assert job_env(c, jid, "SLURM_MEM_PER_NODE") is None
    jid = job_id(submit(c, "-o", "env-%j.out", "--wrap", ENV_JOB,
                        env={"SBATCH_MEM_PER_CPU": "64"}))
    assert c.wait_done(jid) == "COMPLETED"
    assert job_env(c, jid, "SLURM_MEM_PER_CPU") == "64"
    refused(c, "sbatch: error: Invalid --mem-per-cpu specification",
            "--mem-per-cpu=lots", "-o", "/dev/null", "--wrap", "true")


def test_ntasks_per_node(clean):
    c = clean
    jid = job_id(submit(c, "-N", "2", "--ntasks-per-node=2", "-o", "env-%j.out",
                        "--wrap", ENV_JOB))
    assert c.wait_done(jid) == "COMPLETED"
    assert job_env(c, jid, "SLURM_NTASKS_PER_NODE") == "2"
    assert job_env(c, jid, "SLURM_NTASKS") == "4"
    assert job_env(c, jid, "SLURM_TASKS_PER_NODE") == "2(x2)"
    assert job_env(c, jid, "SLURM_JOB_NUM_NODES") == "2"
    info = c.show_job(jid)
    assert (info["NumTasks"], info["NumNodes"]) == ("4", "2")
    assert info["NtasksPerN:B:S:C"].startswith("2:")
    # -n alone with --ntasks-per-node: as many nodes as that takes
    jid = job_id(submit(c, "-n", "3", "--ntasks-per-node=1", "-o", "env-%j.out",
                        "--wrap", ENV_JOB))
    assert c.wait_done(jid) == "COMPLETED"
    assert job_env(c, jid, "SLURM_JOB_NUM_NODES") == "3"
    assert job_env(c, jid, "SLURM_TASKS_PER_NODE") == "1(x3)"
    refused(c, 'sbatch: error: Invalid numeric value "0" for --ntasks-per-node.',
            "--ntasks-per-node=0", "-o", "/dev/null", "--wrap", "true", rc=1)   # Slurm: 1


def test_open_mode(clean):
    c = clean
    wd = c.workdir(USER)
    for mode, want in (("append", "old\nnew\n"), ("truncate", "new\n"), (None, "new\n"),
                       ("env-append", "old\nnew\n")):
        out = os.path.join(wd, f"open-{mode}.out")
        write_script(out, "old\n", owner=USER)
        args = ["-o", out, "--wrap", "echo new"]
        env = None
        if mode == "env-append":
            env = {"SBATCH_OPEN_MODE": "append"}
        elif mode:
            args = [f"--open-mode={mode}"] + args
        jid = job_id(submit(c, *args, env=env))
        assert c.wait_done(jid) == "COMPLETED"
        assert read(out) == want, mode
    refused(c, "sbatch: error: Invalid --open-mode specification",
            "--open-mode=sideways", "-o", "/dev/null", "--wrap", "true")


def test_time_min(clean):
    c = clean
    jid = job_id(submit(c, "-H", "--time-min=5", "-t", "10", "-o", "/dev/null", "--wrap", "true"))
    info = c.show_job(jid)
    assert (info["TimeMin"], info["TimeLimit"]) == ("00:05:00", "00:10:00")
    jid = job_id(submit(c, "-H", "--time-min=1-02:03:04", "-o", "/dev/null", "--wrap", "true"))
    assert c.show_job(jid)["TimeMin"] == "1-02:03:04"
    jid = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    assert c.show_job(jid)["TimeMin"] == "N/A"
    c.run(["scancel", "-u", USER])
    c.wait_until("an empty queue", lambda: not queue(c))
    refused(c, "sbatch: error: Invalid --time-min specification",
            "--time-min=soon", "-o", "/dev/null", "--wrap", "true")


# The traps write their time with bash's own printf: a `date` they forked
# could itself be caught by the signal, which goes to every process of the
# job at once, and die before it printed.
SIGNAL_SCRIPT = """#!/bin/bash
trap 'printf "shell %(%s)T\\n" -1 >> {out}' USR1
bash -c 'trap "printf \\"child %(%s)T\\\\n\\" -1 >> {out}" USR1; while :; do sleep 0.2; done' &
printf "start %(%s)T\\n" -1 >> {out}
while :; do sleep 0.2; done
"""


def wait_signal_line(c, path, who, timeout):
    """Until the line of who (shell, child) is written whole."""
    c.wait_until(f"the {who}'s line in {path}",
                 lambda: os.path.exists(path) and who in signal_times(path), timeout=timeout)


def signal_times(path):
    times = {}
    for line in read(path).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():   # a line being written is skipped
            times.setdefault(parts[0], int(parts[1]))
    return times


def test_signal_batch_shell(clean):
    """--signal=B:USR1@50 with a one-minute limit: the batch shell gets USR1
    about 10 s after the start, its children do not, and the job goes on."""
    c = clean
    wd = c.workdir(USER)
    out = os.path.join(wd, "sig-batch.txt")
    script = write_script(os.path.join(wd, "sig.sh"), SIGNAL_SCRIPT.format(out=out), owner=USER)
    jid = job_id(submit(c, "-t", "1", "--signal=B:USR1@50", "-o", "/dev/null", script))
    wait_signal_line(c, out, "shell", timeout=30)
    assert c.job_state(jid) == "RUNNING"
    t = signal_times(out)
    assert 8 <= t["shell"] - t["start"] <= 13, t
    assert "child" not in t, t
    c.run(["scancel", str(jid)])
    # SBATCH_SIGNAL, one second into a one-minute limit
    out2 = os.path.join(wd, "sig-env.txt")
    script = write_script(os.path.join(wd, "sig3.sh"), SIGNAL_SCRIPT.format(out=out2), owner=USER)
    jid = job_id(submit(c, "-t", "1", "-o", "/dev/null", script,
                        env={"SBATCH_SIGNAL": "B:USR1@59"}))
    wait_signal_line(c, out2, "shell", timeout=15)
    t = signal_times(out2)
    assert t["shell"] - t["start"] <= 3, t
    c.run(["scancel", str(jid)])


def test_signal_job_processes(clean):
    """Without B: Slurm signals the job's steps, not the batch shell; in Herd
    the processes the script started stand for them."""
    c = clean
    wd = c.workdir(USER)
    out = os.path.join(wd, "sig-steps.txt")
    script = write_script(os.path.join(wd, "sig2.sh"), SIGNAL_SCRIPT.format(out=out), owner=USER)
    jid = job_id(submit(c, "-t", "1", "--signal=SIGUSR1@52", "-o", "/dev/null", script))
    wait_signal_line(c, out, "child", timeout=30)
    t = signal_times(out)
    assert 6 <= t["child"] - t["start"] <= 11, t
    assert stays(lambda: "shell" not in signal_times(out), 1.0)
    assert c.job_state(jid) == "RUNNING"
    c.run(["scancel", str(jid)])
    for bad in ("B:NOSUCH@10", "USR1@later", "", "X:USR1"):
        refused(c, "sbatch: error: Invalid --signal specification",
                f"--signal={bad}", "-o", "/dev/null", "--wrap", "true")


def test_qos(clean):
    c = clean
    plain = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    high = job_id(submit(c, "-H", "-q", "high", "-o", "/dev/null", "--wrap", "true"))
    env = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true", env={"SBATCH_QOS": "low"}))
    assert squeue_field(c, plain, "%q") == "normal"
    assert c.show_job(plain)["QOS"] == "normal"
    assert squeue_field(c, high, "%q") == "high"
    assert c.show_job(high)["QOS"] == "high"
    assert c.show_job(env)["QOS"] == "low"
    c.run(["scontrol", "release", str(high)], user=USER)
    c.wait_done(high)


def ran_on(c, *args):
    jid = job_id(submit(c, "-o", "/dev/null", *args, "--wrap", "true"))
    assert c.wait_done(jid) == "COMPLETED", c.show_job(jid)
    return squeue_field(c, jid, "%N")


def test_constraint(clean):
    c = clean
    assert ran_on(c, "-C", "fast") == "n1"
    assert ran_on(c, "--constraint=big&fast") == "n1"
    assert ran_on(c, "-C", "big,fast") == "n1"   # a comma is AND
    assert ran_on(c, "-N", "2", "-C", "big") == "n[1-2]"
    assert ran_on(c, "-C", "(fast|big)&big", "-x", "n1") == "n2"
    # Slurm's matching OR: every node with the same one of them
    assert ran_on(c, "-N", "2", "-C", "fast|slow") == "n[1,3]"
    assert ran_on(c, "-N", "2", "-C", "[fast|big]") == "n[1-2]"
    refused(c, "Requested node configuration is not available",
            "-N", "2", "-C", "[fast|slow]", "-o", "/dev/null", "--wrap", "true", rc=1)
    # n1 busy: a "big" job goes to n2, never to n3
    hog = job_id(submit(c, "-w", "n1", "--exclusive", "-t", "5", "-o", "/dev/null",
                        "--wrap", "sleep 60"))
    c.wait_state(hog, "RUNNING")
    assert ran_on(c, "-C", "big") == "n2"
    waiting = job_id(submit(c, "-C", "fast", "-o", "/dev/null", "--wrap", "true"))
    assert stays(lambda: c.job_state(waiting) == "PENDING", 1.5)
    info = c.show_job(waiting)
    assert info["Features"] == "fast"
    assert squeue_field(c, waiting, "%f") == "fast"
    c.run(["scancel", str(hog)])
    assert c.wait_done(waiting) == "COMPLETED"
    r = c.run(["sinfo", "-h", "-N", "-p", "debug", "-o", "%N %f"])
    assert r.out.splitlines() == ["n1 big,fast", "n2 big", "n3 slow"], r
    assert "AvailableFeatures=big,fast" in c.run(["scontrol", "show", "node", "n1"]).out
    for bad in ("huge", "big&huge", "big|", "(big"):
        refused(c, "sbatch: error: Batch job submission failed: Invalid feature "
                      "specification", "-C", bad, "-o", "/dev/null", "--wrap", "true", rc=1)
    refused(c, "Invalid feature specification",
            "-o", "/dev/null", "--wrap", "true", rc=1, env={"SBATCH_CONSTRAINT": "nope"})


def test_batch_features(clean):
    """--batch: the script runs on the first node of the job with those
    features, and the job always has one (Slurm 22.05)."""
    c = clean
    wd = c.workdir(USER)
    # without --batch, "big|slow" -N1 takes n1; with it, n3
    assert ran_on(c, "-N", "1", "-C", "big|slow", "--batch=slow") == "n3"
    # -N2: first fit would take n[1-2], neither slow
    out = os.path.join(wd, "batch-host.txt")
    jid = job_id(submit(c, "-N", "2", "-C", "big|slow", "--batch=slow", "-t", "2", "-o", out,
                        "--wrap", "echo host=$SLURMD_NODENAME; sleep 30"))
    c.wait_state(jid, "RUNNING")
    info = c.show_job(jid)
    assert (info["NodeList"], info["BatchHost"]) == ("n[1,3]", "n3"), info
    assert squeue_field(c, jid, "%B") == "n3"
    c.wait_until("the script's output", lambda: os.path.exists(out) and "host=" in read(out))
    assert read(out).strip() == "host=n3"
    c.run(["scancel", str(jid)])
    c.wait_done(jid)
    # the nodes that will do busy: the job waits, never runs without one
    hog = job_id(submit(c, "-w", "n3", "--exclusive", "-t", "5", "-o", "/dev/null",
                        "--wrap", "sleep 60"))
    c.wait_state(hog, "RUNNING")
    waiting = job_id(submit(c, "-N", "2", "-C", "big|slow", "--batch=slow", "-o", "/dev/null",
                            "--wrap", "true"))
    assert stays(lambda: c.job_state(waiting) == "PENDING", 1.5)
    c.run(["scancel", str(hog)])
    assert c.wait_done(waiting) == "COMPLETED"
    assert c.show_job(waiting)["BatchHost"] == "n3"
    # AND of two features no node has together: never
    refused(c, "Requested node configuration is not available", "-C", "big|slow",
            "--batch=big&slow", "-o", "/dev/null", "--wrap", "true", rc=1)
    refused(c, "Job --batch option is invalid or not a subset of --constraints",
            "-C", "big|slow", "--batch=big&(", "-o", "/dev/null", "--wrap", "true", rc=1)


def test_nodelist(clean):
    c = clean
    assert ran_on(c, "-w", "n3") == "n3"
    assert ran_on(c, "--nodelist=n[2-3]") == "n[2-3]"
    assert ran_on(c, "-w", "n3", "-N", "2") == "n[1,3]"
    wd = c.workdir(USER)
    listfile = write_script(os.path.join(wd, "nodes.txt"), "n2\nn3\n", owner=USER)
    assert ran_on(c, "-w", listfile) == "n[2-3]"
    jid = job_id(submit(c, "-H", "-w", "n3,n1", "-o", "/dev/null", "--wrap", "true"))
    assert c.show_job(jid)["ReqNodeList"] == "n[1,3]"
    assert squeue_field(c, jid, "%n") == "n[1,3]"
    c.run(["scancel", str(jid)])
    c.wait_until("an empty queue", lambda: not queue(c))
    # a named node that is drained: Slurm's ReqNodeNotAvail, until it is back
    assert c.run(["scontrol", "update", "NodeName=n3", "State=DRAIN", "Reason=test"]).rc == 0
    try:
        jid = job_id(submit(c, "-w", "n[2-3]", "-o", "/dev/null", "--wrap", "true"))
        c.wait_until("ReqNodeNotAvail", lambda: squeue_field(c, jid, "%r") ==
                     "ReqNodeNotAvail, UnavailableNodes:n3")
        assert squeue_field(c, jid, "%R") == "(ReqNodeNotAvail, UnavailableNodes:n3)"
        assert c.job_state(jid) == "PENDING"
    finally:
        assert c.run(["scontrol", "update", "NodeName=n3", "State=RESUME"]).rc == 0
    assert c.wait_done(jid) == "COMPLETED"
    assert squeue_field(c, jid, "%N") == "n[2-3]"
    refused(c, "sbatch: error: Batch job submission failed: Invalid node name specified",
            "-w", "n9", "-o", "/dev/null", "--wrap", "true", rc=1)
    refused(c, "Requested node configuration is not available",
            "-w", "n3", "-p", "p2", "-x", "n3", "-o", "/dev/null", "--wrap", "true", rc=1)


def test_exclude(clean):
    c = clean
    assert ran_on(c, "-x", "n[1-2]") == "n3"
    assert ran_on(c, "-N", "2", "--exclude=n1") == "n[2-3]"
    jid = job_id(submit(c, "-H", "-x", "n2,n1", "-o", "/dev/null", "--wrap", "true"))
    assert c.show_job(jid)["ExcNodeList"] == "n[1-2]"
    assert squeue_field(c, jid, "%x") == "n[1-2]"
    c.run(["scancel", str(jid)])
    c.wait_until("an empty queue", lambda: not queue(c))
    refused(c, "sbatch: error: Batch job submission failed: Requested node configuration "
                  "is not available", "-N", "3", "-x", "n1", "-o", "/dev/null", "--wrap", "true",
            rc=1)
    refused(c, "Invalid node name specified",
            "-x", "n[1-7]", "-o", "/dev/null", "--wrap", "true", rc=1)


def test_several_partitions(clean):
    c = clean
    # p2 (n3) busy: a job for p2,debug runs in debug, on another node
    hog = job_id(submit(c, "-p", "p2", "--exclusive", "-t", "5", "-o", "/dev/null",
                        "--wrap", "sleep 60"))
    c.wait_state(hog, "RUNNING")
    jid = job_id(submit(c, "-p", "p2,debug", "-o", "/dev/null", "--wrap", "true"))
    assert c.wait_done(jid) == "COMPLETED"
    assert squeue_field(c, jid, "%P %N") in ("debug n1", "debug n2")
    # the first that can start it, in the user's order
    jid = job_id(submit(c, "-p", "debug,p2", "-w", "n1", "-o", "/dev/null", "--wrap", "true"))
    assert c.wait_done(jid) == "COMPLETED"
    assert squeue_field(c, jid, "%P") == "debug"
    # pending: every partition it may run in
    held = job_id(submit(c, "-H", "-p", "p2,debug", "-o", "/dev/null", "--wrap", "true"))
    assert squeue_field(c, held, "%P") == "p2,debug"
    for p in ("p2", "debug"):   # squeue -p finds it under either
        r = c.run(["squeue", "-h", "-p", p, "-o", "%i"])
        assert str(held) in r.out.split(), (p, r)
    c.run(["scancel", str(hog)])
    c.wait_done(hog)
    assert c.run(["scontrol", "release", str(held)], user=USER).rc == 0
    assert c.wait_done(held) == "COMPLETED"
    assert squeue_field(c, held, "%P") in ("p2", "debug")
    assert c.show_job(held)["Partition"] == squeue_field(c, held, "%P")
    refused(c, "Invalid partition name specified",
            "-p", "p2,nosuch", "-o", "/dev/null", "--wrap", "true", rc=1)


def test_test_only(clean):
    c = clean
    before = int(time.time())
    r = submit(c, "--test-only", "-N", "2", "-o", "/dev/null", "--wrap", "true")
    assert r.rc == 0 and r.out == "", r
    m = re.fullmatch(r"sbatch: Job (\d+) to start at (\S+) using (\d+) processors on nodes "
                     r"(\S+) in partition (\S+)\n", r.err)
    assert m, r
    assert m.group(3, 4, 5) == ("2", "n[1-2]", "debug")
    start = time.mktime(time.strptime(m.group(2), "%Y-%m-%dT%H:%M:%S"))
    assert before - 1 <= start <= time.time() + 1
    assert queue(c) == []
    # nothing was queued: the next job gets the ID it named
    nxt = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    assert nxt == int(m.group(1))
    c.run(["scancel", str(nxt)])
    # busy nodes: it would start when the running jobs' limits end them
    hogs = [job_id(submit(c, "-w", f"n{i}", "--exclusive", "-t", "2", "-o", "/dev/null",
                          "--wrap", "sleep 100")) for i in (1, 2, 3)]
    for h in hogs:
        c.wait_state(h, "RUNNING")
    r = submit(c, "--test-only", "-p", "p2", "-o", "/dev/null", "--wrap", "true")
    m = re.fullmatch(r"sbatch: Job \d+ to start at (\S+) using 1 processors on nodes n3 "
                     r"in partition p2\n", r.err)
    assert r.rc == 0 and m, r
    start = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
    assert before + 100 <= start <= time.time() + 121, (before, start)
    assert sorted(map(int, queue(c))) == hogs
    r = submit(c, "--test-only", "-N", "4", "-o", "/dev/null", "--wrap", "true")
    assert r.rc == 1 and "Requested node configuration is not available" in r.err, r


def test_options_survive_a_controller_restart(clean):
    c = clean
    jid = job_id(submit(c, "-H", "--nice=7", "--no-requeue", "--mail-type=END",
                        "--mem-per-cpu=64", "--ntasks-per-node=2", "-N", "2",
                        "--open-mode=append", "--time-min=3", "-t", "9", "--signal=B:USR2@20",
                        "-q", "high", "-C", "big", "-w", "n1", "-x", "n3", "-p", "p2,debug",
                        "-o", "/dev/null", "--wrap", "true"))
    want = c.show_job(jid)
    assert (want["Nice"], want["Requeue"], want["MailType"], want["MinMemoryCPU"],
            want["TimeMin"], want["QOS"], want["Features"], want["ReqNodeList"],
            want["ExcNodeList"], want["NumTasks"]) == \
        ("7", "0", "END", "64M", "00:03:00", "high", "big", "n1", "n3", "4")
    part = squeue_field(c, jid, "%P")
    assert part == "p2,debug"
    # a running job's batch host (--batch: not its first node)
    batch = job_id(submit(c, "-N", "2", "-C", "fast|slow", "--batch=slow", "-t", "2",
                          "-o", "/dev/null", "--wrap", "sleep 8"))
    c.wait_state(batch, "RUNNING")
    assert c.show_job(batch)["BatchHost"] == "n3"
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    # and the restarted controller has JobRequeue=0 (for new jobs only)
    with open(c.conf, "a") as f:
        f.write("JobRequeue=0\n")
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    got = c.show_job(jid)
    for key in ("Nice", "Requeue", "MailUser", "MailType", "MinMemoryCPU", "TimeMin", "QOS",
                "Features", "ReqNodeList", "ExcNodeList", "NumTasks", "Priority"):
        assert got[key] == want[key], key
    assert squeue_field(c, jid, "%P") == part
    assert (c.show_job(batch)["NodeList"], c.show_job(batch)["BatchHost"]) == ("n[1,3]", "n3")
    assert c.wait_done(batch) == "COMPLETED"   # its end heard from n3
    dflt = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true"))
    asked = job_id(submit(c, "-H", "--requeue", "-o", "/dev/null", "--wrap", "true"))
    by_env = job_id(submit(c, "-H", "-o", "/dev/null", "--wrap", "true",
                           env={"SBATCH_REQUEUE": "1"}))
    assert c.show_job(dflt)["Requeue"] == "0"
    assert c.show_job(asked)["Requeue"] == "1"
    assert c.show_job(by_env)["Requeue"] == "1"
    c.run(["scancel", str(dflt), str(asked), str(by_env)])
    assert c.run(["scontrol", "release", str(jid)], user=USER).rc == 0
    assert c.wait_done(jid) == "COMPLETED"
    assert squeue_field(c, jid, "%N %P") == "n[1-2] debug"


def test_wckey_is_accepted_and_ignored(clean):
    """A job launcher writes `#SBATCH --wckey=...` into every script it
    makes.  With TrackWCKey off (Slurm's default; Herd does not act on it
    yet) Slurm takes the option and ignores it: so do sbatch, srun and
    salloc, from the command line, a script and their input variables."""
    c = clean
    jid = job_id(submit(c, "--wckey=proj", "-o", "/dev/null", "--wrap", "true"))
    assert c.wait_done(jid) == "COMPLETED"
    script = "#!/bin/sh\n#SBATCH --wckey=fromscript\n#SBATCH -o /dev/null\ntrue\n"
    jid = job_id(submit(c, input=script))
    assert c.wait_done(jid) == "COMPLETED"
    jid = job_id(submit(c, "-o", "/dev/null", "--wrap", "true", env={"SBATCH_WCKEY": "env"}))
    assert c.wait_done(jid) == "COMPLETED"
    r = c.run(["srun", "--wckey=proj", "true"], user=USER)
    assert r.rc == 0 and r.err == "", r
    r = run_env(c, {"SLURM_WCKEY": "env"}, ["srun", "true"], user=USER)
    assert r.rc == 0 and r.err == "", r
    r = c.run(["salloc", "--wckey=proj", "true"], user=USER)
    assert r.rc == 0, r
    for cmd in ("sbatch", "srun", "salloc"):
        assert "--wckey" in c.run([cmd, "--help"]).out, cmd
