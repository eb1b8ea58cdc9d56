"""salloc as users run it on a real `herd up` cluster: the grant lines, the
command (or the user's shell) run with the job's SLURM_* variables, srun
inside it making steps of that job, the exit code passed through, the
allocation given back (Relinquishing) or kept (--no-shell), waiting for
resources, -I, Ctrl-C while waiting, and the allocation revoked (scancel)
while the command runs."""
import re
import signal
import subprocess  # noqa: F401
import time

from cmd_helpers import clean  # noqa: F401  (fixture)
from test_srun import blocker, cluster, popen, read_until  # noqa: F401  (cluster: fixture)


def salloc(c, *args, user="herdu1", timeout=60, input=None):
    return c.run(["salloc", *args], user=user, timeout=timeout, input=input)


def granted_id(err):
    m = re.search(r"^salloc: Granted job allocation (\d+)$", err, re.M)
    assert m, err
    return int(m.group(1))


def test_option_errors(cluster):
    r = salloc(cluster, "-N", "0", "true")
    assert r.rc == 1 and "salloc: error: Invalid node count specification" in r.err, r
    r = salloc(cluster, "--label", "true")   # an srun option
    assert r.rc == 1 and "salloc: unrecognized option '--label'" in r.err, r
    r = salloc(cluster, "--kill-command=NOPE", "true")
    assert r.rc == 1 and "salloc: error: Invalid --kill-command specification" in r.err, r
    r = salloc(cluster, "--version")
    assert (r.rc, r.out) == (0, "slurm 22.05.8 (herd 0.1)\n"), r


def test_command_gets_the_job(clean):
    c = clean
    r = salloc(c, "-N", "2", "-n", "4", "-J", "alloc-env", "sh", "-c",
               'echo "$SLURM_JOB_ID|$SLURM_JOBID|$SLURM_NNODES|$SLURM_JOB_NUM_NODES|'
               '$SLURM_NTASKS|$SLURM_TASKS_PER_NODE|$SLURM_JOB_NODELIST|$SLURM_JOB_NAME|'
               '$SLURM_CLUSTER_NAME|$SLURM_SUBMIT_DIR"')
    assert r.rc == 0, r
    job_id = granted_id(r.err)
    lines = r.err.splitlines()
    assert lines[0] == f"salloc: Pending job allocation {job_id}", r
    assert lines[-1] == f"salloc: Relinquishing job allocation {job_id}", r
    f = r.out.strip().split("|")
    assert f[:2] == [str(job_id), str(job_id)], r
    assert f[2:6] == ["2", "2", "4", "2(x2)"], r
    assert re.fullmatch(r"n\[\d-\d\]|n\d,n\d", f[6]), r
    assert f[7:9] == ["alloc-env", c.name], r
    assert f[9] == c.workdir("herdu1"), r
    assert c.wait_done(job_id) == "COMPLETED"


def test_exit_code_and_failed_state(clean):
    c = clean
    r = salloc(c, "-N", "1", "sh", "-c", "exit 5")
    assert r.rc == 5, r
    assert c.wait_done(granted_id(r.err)) == "FAILED"
    r = salloc(c, "-N", "1", "/nonexistent/cmd")
    assert r.rc == 1, r
    assert "salloc: error: /nonexistent/cmd: No such file or directory" in r.err, r


def test_default_shell_reads_stdin(clean):
    c = clean
    r = salloc(c, "-N", "1", input='echo "in $SLURM_JOB_ID"; exit 3\n')
    assert r.rc == 3, r
    job_id = granted_id(r.err)
    assert r.out == f"in {job_id}\n", r


def test_srun_inside_makes_steps_of_the_job(clean):
    c = clean
    r = salloc(c, "-N", "2", "sh", "-c",
               "srun -l sh -c 'echo $SLURM_JOB_ID.$SLURM_STEP_ID'; srun -N 1 true; echo rc=$?")
    assert r.rc == 0, r
    job_id = granted_id(r.err)
    assert sorted(r.out.splitlines()) == [f"0: {job_id}.0", f"1: {job_id}.0", "rc=0"], r


def test_no_shell_keeps_the_allocation(clean):
    c = clean
    r = salloc(c, "-N", "1", "--no-shell")
    assert r.rc == 0, r
    job_id = granted_id(r.err)
    assert "Relinquishing" not in r.err
    assert c.job_state(job_id) == "RUNNING"
    r = c.run(["srun", f"--jobid={job_id}", "echo", "inside"], user="herdu1")
    assert r.out == "inside\n", r
    c.run(["scancel", str(job_id)])
    assert c.wait_done(job_id) == "CANCELLED"


def test_waits_then_is_granted(clean):
    c = clean
    block = blocker(c)
    p = popen(c, ["salloc", "-N", "1", "echo", "got-it"], user="herdu1")
    got = read_until(p.stderr, "queued and waiting for resources")
    job_id = int(re.search(r"salloc: Pending job allocation (\d+)", got).group(1))
    assert f"salloc: job {job_id} queued and waiting for resources" in got
    c.run(["scancel", str(block)])
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert f"salloc: job {job_id} has been allocated resources" in err, err
    assert f"salloc: Granted job allocation {job_id}" in err, err
    assert out == "got-it\n"


def test_immediate_gives_up(clean):
    c = clean
    blocker(c)
    t0 = time.time()
    r = salloc(c, "-I", "-N", "1", "true")
    assert time.time() - t0 < 15, r
    assert r.rc == 1, r
    assert "salloc: error: Unable to allocate resources: Requested nodes are busy" in r.err, r
    job_id = int(re.search(r"Pending job allocation (\d+)", r.err).group(1))
    assert c.wait_done(job_id) == "CANCELLED"


def test_ctrl_c_while_pending_revokes(clean):
    c = clean
    blocker(c)
    p = popen(c, ["salloc", "-N", "1", "true"], user="herdu1")
    got = read_until(p.stderr, "queued and waiting for resources")
    job_id = int(re.search(r"Pending job allocation (\d+)", got).group(1))
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1, err
    assert f"salloc: Job allocation {job_id} has been revoked." in err, err
    assert c.wait_done(job_id) == "CANCELLED"


def test_scancel_revokes_while_the_command_runs(clean):
    c = clean
    p = popen(c, ["salloc", "-N", "1", "sleep", "300"], user="herdu1")
    got = read_until(p.stderr, "Granted job allocation")
    job_id = int(re.search(r"Granted job allocation (\d+)", got).group(1))
    c.run(["scancel", str(job_id)])
    t0 = time.time()
    out, err = p.communicate(timeout=40)
    assert time.time() - t0 < 20, err
    assert f"salloc: Job allocation {job_id} has been revoked." in err, err
    assert "Relinquishing" not in err
    assert c.wait_done(job_id) == "CANCELLED"
