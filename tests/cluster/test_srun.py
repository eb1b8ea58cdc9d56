"""srun as users run it, on a real `herd up` cluster (4 nodes of 4 CPUs):
outside an allocation (it asks for one, runs the step, gives it back with its
exit status), inside one (sbatch, --jobid), the layout its tasks see, output
labels and files, stdin, exit codes and Slurm's error lines, -K, --wait,
--multi-prog, --pty, signals (Ctrl-C once and twice, SIGTERM forwarded),
waiting for resources and for busy step resources, and the option errors
srun gives before it talks to anyone."""
import os
import pty
import pwd
import re
import select
import signal
import subprocess
import time

import pytest

from cmd_helpers import clean, conf_lines, read, wait_text, write_script  # noqa: F401  (clean: fixture)
from conftest import BIN, COMMANDS, Cluster, make_root, stop_cluster

NODES = ("n1", "n2", "n3", "n4")


@pytest.fixture(scope="module")
def cluster(users):
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "4")
    except Exception:
        c.down()
        raise
    try:
        yield c
    finally:
        stop_cluster(c)


def popen(c, args, user=None, env_extra=None, **kw):
    """Start a command as cluster.run does, without waiting for it."""
    env = c.env()
    env.update(env_extra or {})
    cmd = list(args)
    if cmd[0] in COMMANDS:
        cmd[0] = os.path.join(BIN, cmd[0])
    if user:
        # The user's own process, not runuser's child: a signal sent to p
        # reaches srun itself (runuser would end the session instead).
        import pwd
        pw = pwd.getpwnam(user)
        env.update(HOME=pw.pw_dir, USER=user)
        kw.update(user=pw.pw_uid, group=pw.pw_gid, extra_groups=[])
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(cmd, env=env, cwd=c.workdir(user), text=True, **kw)


def srun(c, *args, user="herdu1", timeout=60, input=None):
    return c.run(["srun", *args], user=user, timeout=timeout, input=input)


def read_until(stream, pattern, timeout=30):
    """Read a pipe until what was read matches; returns it.  Raw reads of the
    file descriptor: a buffered readline could hold a second line back from
    select."""
    got = ""
    fd = stream.fileno()
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            got += chunk.decode(errors="replace")
            if re.search(pattern, got):
                return got
    pytest.fail(f"{pattern!r} not seen in {got!r}")


def blocker(c):
    """Every node taken by one exclusive batch job of root's; returns its ID."""
    job_id = c.sbatch("-N", "4", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(job_id, "RUNNING")
    return job_id


# ---- before the controller: options -------------------------------------

def test_option_errors_exit_1(cluster):
    cases = [
        (["-n", "abc", "true"], 'srun: error: Invalid numeric value "abc" for --ntasks.'),
        (["-N", "0", "true"], "srun: error: Invalid node count specification"),
        (["-m", "sideways", "true"], "srun: error: Invalid --distribution specification"),
        (["--cpu-bind=foo", "true"], 'srun: error: unrecognized --cpu-bind argument "foo"'),
        (["--cpu-bind=map_cpu:", "true"],
         'srun: error: missing list for "--cpu-bind=map_cpu:<list>"'),
        (["--mpi=lam", "true"],
         "srun: error: invalid MPI type 'lam', --mpi=list for acceptable types"),
        ([], "srun: error: No executable name specified"),
        (["--bogus", "true"], "srun: unrecognized option '--bogus'"),
    ]
    for args, line in cases:
        r = srun(cluster, *args)
        assert r.rc == 1, (args, r)
        assert line in r.err.splitlines(), (args, r)
        assert r.out == "", (args, r)


def test_input_variable_errors_name_the_variable(cluster):
    r = cluster.run(["env", "SLURM_DISTRIBUTION=sideways", os.path.join(BIN, "srun"), "true"],
                    user="herdu1")
    assert r.rc == 1, r
    assert "srun: error: Invalid --distribution specification " \
           "(from SLURM_DISTRIBUTION=sideways)" in r.err


def test_version_help_mpi_list(cluster):
    r = srun(cluster, "--version")
    assert (r.rc, r.out) == (0, "slurm 22.05.8 (herd 0.1)\n"), r
    r = srun(cluster, "--help")
    assert r.rc == 0 and r.out.startswith("Usage: srun"), r
    assert "--multi-prog" in r.out and "--kill-on-bad-exit" in r.out
    r = srun(cluster, "--mpi=list")
    assert r.rc == 0, r
    # Slurm 22.05's lines, on stdout (its cray_shasta plugin aside)
    assert r.out == ("MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\n"
                     "specific pmix plugin versions available: pmix_v4\n"), r


def test_multi_prog_file_is_checked_first(cluster):
    wd = cluster.workdir("herdu1")
    path = write_script(os.path.join(wd, "bad.conf"), "0 echo zero\n2 echo two\n", "herdu1")
    r = srun(cluster, "-n", "3", "--multi-prog", path)
    assert r.rc == 1, r
    assert f"srun: error: Configuration file {path} invalid: no program for task 1" in r.err
    r = srun(cluster, "--multi-prog", "/nonexistent.conf")
    assert r.rc == 1, r
    assert "srun: error: Unable to open configuration file /nonexistent.conf" in r.err


# ---- outside an allocation -----------------------------------------------

def test_own_allocation_layout_and_labels(clean):
    c = clean
    r = srun(c, "-N", "2", "-n", "4", "-l", "sh", "-c",
             'echo "$SLURM_PROCID $SLURM_NODEID $SLURMD_NODENAME $SLURM_NTASKS $SLURM_STEP_ID"')
    assert r.rc == 0, r
    assert r.err == "", r
    lines = sorted(r.out.splitlines())
    assert len(lines) == 4, r
    # block: tasks 0-1 on the first node, 2-3 on the second; labels "T: "
    fields = [line.split() for line in lines]
    assert [f[0] for f in fields] == ["0:", "1:", "2:", "3:"]
    assert [f[1] for f in fields] == ["0", "1", "2", "3"]
    assert [f[2] for f in fields] == ["0", "0", "1", "1"]
    assert fields[0][3] == fields[1][3] != fields[2][3] == fields[3][3]
    assert {f[3] for f in fields} <= set(NODES)
    assert all(f[4] == "4" and f[5] == "0" for f in fields)


def test_cyclic_distribution(clean):
    r = srun(clean, "-N", "2", "-n", "4", "-m", "cyclic", "sh", "-c",
             'echo "$SLURM_PROCID $SLURM_NODEID"')
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0 0", "1 1", "2 0", "3 1"]


def test_runs_as_the_user_in_the_cwd(clean):
    c = clean
    r = srun(c, "sh", "-c", "id -un; pwd")
    assert r.rc == 0, r
    assert r.out.splitlines() == ["herdu1", c.workdir("herdu1")]
    r = srun(c, "-D", "/tmp", "pwd")
    assert r.out == "/tmp\n", r


def test_allocation_is_given_back_with_the_exit_status(clean):
    c = clean
    r = srun(c, "-J", "ok-step", "true")
    assert r.rc == 0, r
    r = srun(c, "-J", "bad-step", "sh", "-c", "exit 3")
    assert r.rc == 3, r
    states = {}
    for name in ("ok-step", "bad-step"):
        out = c.run(["squeue", "-h", "-t", "all", "-n", name, "-o", "%T"]).out.split()
        assert len(out) == 1, out
        states[name] = out[0]
    assert states == {"ok-step": "COMPLETED", "bad-step": "FAILED"}, states
    c.wait_nodes_idle()


def test_exit_codes_and_error_lines(clean):
    c = clean
    r = srun(c, "-N", "1", "-n", "3", "sh", "-c", "exit $((SLURM_PROCID + 1))")
    assert r.rc == 3, r
    errs = r.err.splitlines()
    assert any(re.fullmatch(r"srun: error: n\d: task 0: Exited with exit code 1", e) for e in errs), r
    assert any(re.fullmatch(r"srun: error: n\d: task 2: Exited with exit code 3", e) for e in errs), r
    # the same status on one node: one line, tasks folded
    r = srun(c, "-N", "1", "-n", "2", "sh", "-c", "exit 4")
    assert r.rc == 4, r
    assert re.search(r"^srun: error: n\d: tasks 0-1: Exited with exit code 4$", r.err, re.M), r
    # a signal: 128 + its number, above a smaller exit code
    r = srun(c, "-N", "1", "-n", "2", "sh", "-c",
             'if [ "$SLURM_PROCID" = 0 ]; then kill -9 $$; fi; exit 2')
    assert r.rc == 137, r
    assert re.search(r"^srun: error: n\d: task 0: Killed$", r.err, re.M), r
    assert re.search(r"^srun: error: n\d: task 1: Exited with exit code 2$", r.err, re.M), r


def test_missing_command_is_reported(clean):
    r = srun(clean, "/nonexistent/prog")
    assert r.rc != 0, r
    assert re.search(r"srun: error: n\d: task 0: .*nonexistent/prog", r.err), r


def test_stdin_goes_to_every_task(clean):
    """srun(1): "By default, srun redirects stdin from the terminal to all
    tasks" (Slurm 22.05: `echo hello | srun -n2 cat` prints it twice);
    -i 0 to task 0 alone."""
    r = srun(clean, "-n", "2", "-l", "cat", input="one\ntwo\n")
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0: one", "0: two", "1: one", "1: two"], r
    r = srun(clean, "-n", "2", "-l", "-i", "0", "cat", input="x\n")
    assert r.out == "0: x\n", r
    r = srun(clean, "-n", "2", "-l", "-i", "all", "cat", input="x\n")
    assert sorted(r.out.splitlines()) == ["0: x", "1: x"], r
    r = srun(clean, "-n", "1", "-i", "none", "sh", "-c", "cat; echo end", input="ignored\n")
    assert r.out == "end\n", r


def test_output_files_per_task(clean):
    c = clean
    wd = c.workdir("herdu1")
    for name in ("o-0.txt", "o-1.txt"):
        if os.path.exists(os.path.join(wd, name)):
            os.unlink(os.path.join(wd, name))
    r = srun(c, "-n", "2", "-o", "o-%t.txt", "sh", "-c", "echo task $SLURM_PROCID")
    assert r.rc == 0, r
    assert r.out == ""
    assert read(os.path.join(wd, "o-0.txt")) == "task 0\n"
    assert read(os.path.join(wd, "o-1.txt")) == "task 1\n"


def test_unbuffered_and_line_buffered(clean):
    # line buffered: a line written in two pieces comes out whole, once
    r = srun(clean, "-l", "sh", "-c", "printf 'ab'; sleep 0.3; printf 'cd\\n'")
    assert r.out == "0: abcd\n", r
    # -u: a piece without its newline is written as it comes, while the task runs
    p = popen(clean, ["srun", "-u", "sh", "-c", "printf 'part'; exec sleep 30"], user="herdu1")
    got = read_until(p.stdout, "part", timeout=15)
    p.send_signal(signal.SIGTERM)   # forwarded: the sleep ends
    p.communicate(timeout=30)
    assert "part" in got, got
    # without -u the same piece waits for its line's end (here: the task's)
    p = popen(clean, ["srun", "sh", "-c", "printf 'part'; sleep 3"], user="herdu1")
    time.sleep(1.5)
    ready, _, _ = select.select([p.stdout.fileno()], [], [], 0)
    early = os.read(p.stdout.fileno(), 65536).decode() if ready else ""
    out, _ = p.communicate(timeout=30)
    assert early == "" and early + out == "part", (early, out)


def test_export(clean):
    c = clean
    r = c.run(["env", "MARK=here", os.path.join(BIN, "srun"), "--export=NONE,FOO=bar", "/bin/sh", "-c",
               'echo "${FOO}-${MARK:-unset}"'], user="herdu1")
    assert r.out == "bar-unset\n", r
    # no PATH in the task's environment: a bare name is not searched for,
    # as Slurm's slurmstepd (exit code 2, its words)
    r = c.run([os.path.join(BIN, "srun"), "--export=NONE", "true"], user="herdu1")
    assert r.rc == 2 and "execve(): true: No such file or directory" in r.err, r
    r = c.run(["env", "MARK=here", os.path.join(BIN, "srun"), "sh", "-c", 'echo "${MARK}"'],
              user="herdu1")
    assert r.out == "here\n", r


def test_multi_prog(clean):
    c = clean
    wd = c.workdir("herdu1")
    path = write_script(os.path.join(wd, "mp.conf"),
                        "# two programs\n0 echo zero %t\n1-2 echo rest %t\n", "herdu1")
    r = srun(c, "-n", "3", "-l", "--multi-prog", path)
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0: zero 0", "1: rest 1", "2: rest 2"], r


def test_kill_on_bad_exit(clean):
    t0 = time.time()
    r = srun(clean, "-N", "1", "-n", "2", "-K", "sh", "-c",
             'if [ "$SLURM_PROCID" = 1 ]; then exit 3; fi; exec sleep 60')
    assert time.time() - t0 < 30, r
    assert r.rc != 0, r
    assert re.search(r"^srun: error: n\d: task 1: Exited with exit code 3$", r.err, re.M), r
    assert re.search(r"^srun: launch/slurm: _step_signal: Terminating StepId=\d+\.0$", r.err, re.M), r
    assert re.search(r"^srun: error: n\d: task 0: (Terminated|Killed)$", r.err, re.M), r


def test_wait_after_first_exit(clean):
    t0 = time.time()
    r = srun(clean, "-N", "1", "-n", "2", "-W", "2", "sh", "-c",
             'if [ "$SLURM_PROCID" = 1 ]; then exec sleep 60; fi')
    assert time.time() - t0 < 30, r
    assert "srun: First task exited 2s ago" in r.err, r
    assert re.search(r"^srun: error: n\d: task 1: Killed$", r.err, re.M), r
    assert r.rc == 137, r


def test_sigterm_is_forwarded(clean):
    p = popen(clean, ["srun", "-u", "sh", "-c",
                      'trap "echo got-term; exit 7" TERM; echo ready; '
                      'while :; do sleep 0.1; done'], user="herdu1")
    read_until(p.stdout, "ready")
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert "got-term" in out, (out, err)
    assert p.returncode == 7, (out, err)


def test_ctrl_c_once_shows_status_twice_aborts(clean):
    p = popen(clean, ["srun", "-N", "1", "-n", "2", "-u", "sh", "-c", "echo ready; exec sleep 100"],
              user="herdu1")
    read_until(p.stdout, "ready\nready")
    p.send_signal(signal.SIGINT)
    got = read_until(p.stderr, r"tasks 0-1: running")
    assert "srun: interrupt (one more within 1 sec to abort)" in got, got
    assert re.search(r"^srun: StepId=\d+\.0 tasks 0-1: running$", got, re.M), got
    p.send_signal(signal.SIGINT)
    t0 = time.time()
    out, err = p.communicate(timeout=40)
    assert time.time() - t0 < 20, err
    assert re.search(r"^srun: sending Ctrl-C to StepId=\d+\.0$", err, re.M), err
    assert "srun: Job step aborted: Waiting up to 7 seconds for job step to finish." in err, err
    assert p.returncode != 0


def test_sigint_while_waiting_revokes(clean):
    c = clean
    blocker(c)
    p = popen(c, ["srun", "-J", "waiter", "-N", "4", "true"], user="herdu1")
    got = read_until(p.stderr, r"queued and waiting for resources")
    m = re.search(r"srun: job (\d+) queued and waiting for resources", got)
    assert m, got
    job_id = int(m.group(1))
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1, err
    assert f"srun: Job allocation {job_id} has been revoked." in err, err
    assert c.wait_done(job_id) == "CANCELLED"


def test_waits_for_resources(clean):
    c = clean
    block = blocker(c)
    p = popen(c, ["srun", "-N", "2", "echo", "ran"], user="herdu1")
    got = read_until(p.stderr, r"queued and waiting for resources")
    job_id = int(re.search(r"srun: job (\d+) queued", got).group(1))
    assert c.job_state(job_id) == "PENDING"
    c.run(["scancel", str(block)])
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert f"srun: job {job_id} has been allocated resources" in err, err
    assert out == "ran\nran\n"


def test_impossible_request(clean):
    r = srun(clean, "-N", "5", "true")
    assert r.rc == 1, r
    assert "srun: error: Unable to allocate resources: " \
           "Requested node configuration is not available" in r.err, r


# ---- inside an allocation -------------------------------------------------

def test_steps_inside_a_batch_job(clean):
    c = clean
    wd = c.workdir("herdu1")
    script = write_script(os.path.join(wd, "steps.sh"),
                          "#!/bin/sh\n"
                          "srun -l sh -c 'echo step $SLURM_STEP_ID on $SLURM_JOB_ID'\n"
                          "srun -n 1 sh -c 'echo second $SLURM_STEP_ID'\n"
                          "srun sh -c 'exit 5'\n"
                          "echo rc=$?\n", "herdu1")
    job_id = c.sbatch("-N", "2", "-n", "2", "-o", "steps-%j.out", script, user="herdu1", cwd=wd)
    assert c.wait_done(job_id) == "COMPLETED"
    text = read(os.path.join(wd, f"steps-{job_id}.out"))
    assert f"0: step 0 on {job_id}" in text and f"1: step 0 on {job_id}" in text, text
    assert "second 1" in text, text
    assert "rc=5" in text, text
    assert re.search(r"srun: error: n\d: tasks? [0-9,-]+: Exited with exit code 5", text), text


def test_jobid_option_reaches_a_running_job(clean):
    c = clean
    job_id = c.sbatch("-N", "1", "-o", "/dev/null", "--wrap", "sleep 300", user="herdu1",
                      cwd=c.workdir("herdu1"))
    c.wait_state(job_id, "RUNNING")
    r = srun(c, f"--jobid={job_id}", "--overlap", "sh", "-c", "echo $SLURM_JOB_ID")
    assert r.rc == 0, r
    assert r.out == f"{job_id}\n"
    # another user's job: refused
    r = srun(c, f"--jobid={job_id}", "true", user="herdu2")
    assert r.rc == 1, r
    assert "Access/permission denied" in r.err, r


def test_unknown_job_id(clean):
    r = srun(clean, "--jobid=999999", "true")
    assert r.rc == 1, r
    assert "srun: error: Unable to confirm allocation for job 999999: " \
           "Invalid job id specified" in r.err, r


def test_busy_step_resources_are_waited_for(clean):
    c = clean
    wd = c.workdir("herdu1")
    script = write_script(os.path.join(wd, "busy.sh"),
                          "#!/bin/sh\n"
                          "srun -n 1 sleep 3 &\n"
                          "sleep 1\n"
                          "srun -n 1 echo second\n"
                          "wait\n", "herdu1")
    job_id = c.sbatch("-n", "1", "-o", "busy-%j.out", script, user="herdu1", cwd=wd)
    assert c.wait_done(job_id) == "COMPLETED"
    text = read(os.path.join(wd, f"busy-{job_id}.out"))
    assert f"srun: Job {job_id} step creation temporarily disabled, retrying " \
           "(Requested nodes are busy)" in text, text
    assert f"srun: Step created for job {job_id}" in text, text
    assert "second" in text


def test_pty(clean):
    c = clean
    master, slave = pty.openpty()
    p = popen(c, ["srun", "--pty", "sh", "-c", "tty; echo done"], user="herdu1",
              stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    got = b""
    deadline = time.time() + 30
    while time.time() < deadline and b"done" not in got:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                got += os.read(master, 4096)
            except OSError:
                break
    p.wait(timeout=30)
    os.close(master)
    assert p.returncode == 0, got
    assert b"/dev/pts/" in got and b"not a tty" not in got, got


def test_bcast_copies_the_program_to_each_node(cluster):
    """--bcast=FILE copies the program to FILE on every node of the job
    (as the job's owner) and runs the copy; --bcast=DIR/ names each node's
    copy slurm_bcast_<job>.<step>_<node>, as srun(1); --compress sends it
    compressed; the copying is a step of its own, "bcast", in sacct."""
    work = cluster.workdir("herdu1")
    prog = os.path.join(work, "bcast-prog")
    write_script(prog, "#!/bin/sh\necho \"ran $0 on $SLURMD_NODENAME\"\n")
    os.chmod(prog, 0o755)
    dest = os.path.join(work, "bcast-dest")
    os.makedirs(dest, exist_ok=True)
    os.chmod(dest, 0o777)
    fixed = os.path.join(dest, "copy")
    r = srun(cluster, "-N2", f"--bcast={fixed}", prog)
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == [f"ran {fixed} on n1", f"ran {fixed} on n2"], r
    st = os.stat(fixed)
    assert st.st_uid == pwd.getpwnam("herdu1").pw_uid and st.st_mode & 0o777 == 0o700, st
    with open(prog) as a, open(fixed) as b:
        assert a.read() == b.read()
    r = srun(cluster, "-N2", "-l", "--compress", f"--bcast={dest}/", prog)
    assert r.rc == 0, r
    m = re.findall(rf"ran {dest}/slurm_bcast_(\d+)\.(\d+)_(n\d) on (n\d)", r.out)
    assert len(m) == 2 and all(node == on for _, _, node, on in m), r
    job, step = m[0][0], m[0][1]
    r = cluster.run(["sacct", "-n", "-P", "-j", job, "-o", "JobID,JobName,State"])
    assert f"{job}.{step}|bcast|COMPLETED" in r.out.splitlines(), r
    # a program that is not there is said so before any step runs
    r = srun(cluster, "-N1", f"--bcast={fixed}", "no-such-program-here")
    assert r.rc == 1 and "--bcast: no-such-program-here: no such file to copy" in r.err, r


def test_bcast_send_libs(cluster):
    """--send-libs copies the program's shared libraries that lie outside
    the excluded directories (Slurm's default /lib,/usr/lib,/lib64,/usr/lib64)
    to <copy>_libs on each node and puts it first in LD_LIBRARY_PATH: the
    copy loads its library from there."""
    work = cluster.workdir("herdu1")
    src = os.path.join(work, "sendlibs")
    libdir = os.path.join(src, "lib")
    dest = os.path.join(work, "sendlibs-dest")
    for d in (src, libdir, dest):
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o777)
    with open(os.path.join(src, "lib.c"), "w") as f:
        f.write("int herd_answer(void) { return 42; }\n")
    with open(os.path.join(src, "main.c"), "w") as f:
        f.write("#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdio.h>\n"
                "int herd_answer(void);\n"
                "int main(void) { Dl_info i; dladdr((void *)herd_answer, &i);\n"
                "  printf(\"answer %d from %s\\n\", herd_answer(), i.dli_fname); return 0; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", os.path.join(libdir, "libherdanswer.so"),
                    os.path.join(src, "lib.c")], check=True)
    prog = os.path.join(src, "answer")
    subprocess.run(["cc", "-o", prog, os.path.join(src, "main.c"), "-L", libdir, "-lherdanswer", "-ldl"],
                   check=True)
    os.chmod(prog, 0o755)
    fixed = os.path.join(dest, "answer")
    env = ["env", f"LD_LIBRARY_PATH={libdir}", os.path.join(BIN, "srun")]
    r = cluster.run(env + ["-N2", "--send-libs", f"--bcast={fixed}", prog], user="herdu1", timeout=60)
    assert r.rc == 0, r
    lib = os.path.join(dest, "answer_libs", "libherdanswer.so")
    assert r.out.splitlines() == [f"answer 42 from {lib}"] * 2, r
    # --bcast-exclude names the library's directory: not sent, found where it is
    r = cluster.run(env + ["-N1", "--send-libs", f"--bcast-exclude={libdir}", f"--bcast={dest}/", prog],
                    user="herdu1", timeout=60)
    assert r.rc == 0 and r.out == f"answer 42 from {os.path.join(libdir, 'libherdanswer.so')}\n", r


def test_resv_ports(cluster):
    """--resv-ports: without MpiParams=ports a count is refused in Slurm's
    words and a bare one reserves nothing; with ports=A-B each task sees
    SLURM_STEP_RESV_PORTS, the same block on every node of the step (bare:
    as many as its most tasks on a node), held until the step ends (another
    step that needs them waits), more than the range refused."""
    r = srun(cluster, "--resv-ports=2", "true")
    assert r.rc == 1 and re.search(r"srun: error: Unable to create step for job \d+: "
                                   r"Requires more ports than can be reserved", r.err), r
    r = srun(cluster, "--resv-ports", "sh", "-c", "echo ${SLURM_STEP_RESV_PORTS-none}")
    assert r.rc == 0 and r.out == "none\n", r
    with conf_lines(cluster, "MpiParams=ports=12000-12003\n"):
        r = srun(cluster, "-N2", "-n4", "--resv-ports", "sh", "-c", "echo $SLURM_STEP_RESV_PORTS")
        assert r.rc == 0 and r.out.split() == ["12000-12001"] * 4, r
        r = srun(cluster, "-N1", "--resv-ports=5", "true")
        assert r.rc == 1 and "Requires more ports than can be reserved" in r.err, r
        # a step holding all four: the next waits for them
        job = cluster.sbatch("-N1", "-o", "/dev/null", "--wrap",
                             "srun --overlap --resv-ports=4 sleep 3 & sleep 1; "
                             "srun --overlap --resv-ports=1 sh -c 'echo got $SLURM_STEP_RESV_PORTS' > resv.out 2> resv.err; wait",
                             user="herdu1", cwd=cluster.workdir("herdu1"))
        assert cluster.wait_done(job, timeout=60) == "COMPLETED", cluster.show_job(job)
        text = read(os.path.join(cluster.workdir("herdu1"), "resv.out"))
        err = read(os.path.join(cluster.workdir("herdu1"), "resv.err"))
        assert text == "got 12000\n", (text, err)
        assert "step creation temporarily disabled, retrying (Required ports are in use)" in err, err


def test_slurmd_debug_says_the_tasks(cluster):
    """--slurmd-debug=N (0-9 or SlurmdDebug's names) has each node's step
    daemon say its tasks' starts and ends on srun's stderr, as Slurm's
    slurmstepd does; quiet (0) says nothing; a bad level is refused."""
    r = srun(cluster, "-N2", "-n2", "--slurmd-debug=info", "sh", "-c", "exit 3")
    assert r.rc == 3, r
    for node in ("n1", "n2"):
        assert f"slurmstepd-{node}: starting 1 tasks" in r.err, r
    assert re.search(r"slurmstepd-n1: task 0 \(\d+\) started \d{4}-\d\d-\d\dT", r.err), r
    assert re.search(r"slurmstepd-n2: task 1 \(\d+\) exited with exit code 3\.", r.err), r
    r = srun(cluster, "--slurmd-debug=0", "true")
    assert r.rc == 0 and "slurmstepd" not in r.err, r
    r = srun(cluster, "--slurmd-debug=loud", "true")
    assert r.rc == 1 and "Invalid --slurmd-debug specification: loud" in r.err, r
