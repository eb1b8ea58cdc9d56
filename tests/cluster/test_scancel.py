"""scancel as users use it: by id, several ids, by user, a signal to the
batch shell that its trap catches, the refusal to touch another user's job,
and the CANCELLED state that squeue and scontrol report afterwards.  One
shared 4-node cluster."""
import os

from cmd_helpers import clean, read, squeue_field, stays, wait_text, write_script


def held(c, user):
    return c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=user, cwd=c.workdir(user))


def running(c, user, name="run"):
    job_id = c.sbatch("-J", name, "-o", "/dev/null", "--wrap", "sleep 300", user=user,
                      cwd=c.workdir(user))
    c.wait_state(job_id, "RUNNING")
    return job_id


def test_cancel_pending_by_id(clean):
    c = clean
    job_id = held(c, "herdu1")
    r = c.run(["scancel", str(job_id)], user="herdu1")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    assert c.wait_done(job_id) == "CANCELLED"
    assert squeue_field(c, job_id, "%i %t %T") == f"{job_id} CA CANCELLED"
    info = c.show_job(job_id)
    assert info["JobState"] == "CANCELLED"
    # Gone from the default listing, which shows only queued and running jobs.
    assert str(job_id) not in c.run(["squeue", "-h", "-o", "%i"]).out.split()


def test_cancel_running_by_id(clean):
    c = clean
    job_id = running(c, "herdu2")
    r = c.run(["scancel", str(job_id)], user="herdu2")
    assert (r.rc, r.err) == (0, ""), r
    assert c.wait_done(job_id, timeout=30) == "CANCELLED"
    info = c.show_job(job_id)
    assert info["JobState"] == "CANCELLED"
    assert info["EndTime"] != "Unknown"
    c.wait_nodes_idle()


def test_cancel_several_ids(clean):
    c = clean
    a, b, d = held(c, "herdu1"), held(c, "herdu1"), held(c, "herdu1")
    keep = held(c, "herdu1")
    r = c.run(["scancel", str(a), f"{b},{d}"], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    for j in (a, b, d):
        assert c.wait_done(j) == "CANCELLED"
    assert c.job_state(keep) == "PENDING"


def test_cancel_by_user(clean):
    c = clean
    mine = [held(c, "herdu1"), running(c, "herdu1")]
    theirs = [held(c, "herdu2"), running(c, "herdu2")]
    roots = [held(c, None)]
    r = c.run(["scancel", "-u", "herdu1"])
    assert (r.rc, r.err) == (0, ""), r
    for j in mine:
        assert c.wait_done(j) == "CANCELLED"
    for j in theirs + roots:
        assert c.job_state(j) in ("PENDING", "RUNNING")
    # A user cancels all of their own jobs with -u themselves.
    r = c.run(["scancel", "--user=herdu2"], user="herdu2")
    assert (r.rc, r.err) == (0, ""), r
    for j in theirs:
        assert c.wait_done(j) == "CANCELLED"
    assert c.job_state(roots[0]) == "PENDING"


def test_signal_reaches_batch_shell_trap(clean):
    c = clean
    wd = c.workdir("herdu1")
    script = write_script(os.path.join(wd, "trap.sh"), "\n".join([
        "#!/bin/bash",
        "trap 'echo got USR1; done=1' USR1",
        "echo ready",
        "while [ -z \"$done\" ]; do sleep 0.1; done",
        "echo finished",
        "",
    ]), owner="herdu1")
    job_id = c.sbatch("-o", "trap-%j.out", script, user="herdu1", cwd=wd)
    out = os.path.join(wd, f"trap-{job_id}.out")
    wait_text(c, out, "ready\n")
    r = c.run(["scancel", "--signal=USR1", "-b", str(job_id)], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    # The trap ran and the script went on to its end: a signal, not a cancel.
    assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
    assert read(out) == "ready\ngot USR1\nfinished\n"
    assert c.show_job(job_id)["ExitCode"] == "0:0"


def test_signal_by_number_and_name_forms(clean):
    c = clean
    wd = c.workdir("herdu2")
    job_id = c.sbatch("-o", "trap2-%j.out", "--wrap",
                      "trap 'echo usr2' USR2; trap 'echo usr1' USR1; echo ready; "
                      "for i in $(seq 600); do sleep 0.1; done", user="herdu2", cwd=wd)
    out = os.path.join(wd, f"trap2-{job_id}.out")
    wait_text(c, out, "ready\n")
    # Without -b a signal goes to the job's steps, not to the batch shell
    # (scancel(1)); this job has no steps, so nothing is caught.
    assert c.run(["scancel", "--signal=USR1", str(job_id)], user="herdu2").rc == 0
    assert stays(lambda: read(out) == "ready\n" and c.job_state(job_id) == "RUNNING", 1.0)
    assert c.run(["scancel", "-b", "-s", "SIGUSR2", str(job_id)], user="herdu2").rc == 0
    wait_text(c, out, "usr2\n")
    assert c.run(["scancel", "-b", "-s", "10", str(job_id)], user="herdu2").rc == 0
    wait_text(c, out, "usr1\n")
    assert c.job_state(job_id) == "RUNNING"
    r = c.run(["scancel", "-s", "NOSUCHSIG", str(job_id)], user="herdu2")
    assert (r.rc, r.err) == (1, "Unknown job signal: NOSUCHSIG\n"), r
    assert c.job_state(job_id) == "RUNNING"


def test_other_users_job_is_refused(clean):
    c = clean
    job_id = running(c, "herdu1")
    r = c.run(["scancel", str(job_id)], user="herdu2")
    assert r.rc == 1, r
    assert r.err == \
        f"scancel: error: Kill job error on job id {job_id}: Access/permission denied\n"
    assert stays(lambda: c.job_state(job_id) == "RUNNING", 1.0)
    # A signal is refused the same way.
    r = c.run(["scancel", "-s", "USR1", str(job_id)], user="herdu2")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    # -u with someone else's name does not reach their jobs either.
    c.run(["scancel", "-u", "herdu1"], user="herdu2")
    assert stays(lambda: c.job_state(job_id) == "RUNNING", 0.5)
    # Root may.
    r = c.run(["scancel", str(job_id)])
    assert (r.rc, r.err) == (0, ""), r
    assert c.wait_done(job_id) == "CANCELLED"


def test_unknown_and_finished_jobs(clean):
    c = clean
    # Slurm is silent about a job that does not exist or has ended (-v tells).
    r = c.run(["scancel", "999999"], user="herdu1")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    r = c.run(["scancel", "-v", "999999"], user="herdu1")
    assert "Invalid job id specified" in r.err, r
    job_id = c.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1",
                      cwd=c.workdir("herdu1"))
    assert c.wait_done(job_id) == "COMPLETED"
    r = c.run(["scancel", str(job_id)], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    assert c.job_state(job_id) == "COMPLETED"
    r = c.run(["scancel"], user="herdu1")
    assert r.rc == 1 and r.err == "scancel: error: No job identification provided\n", r


def test_filters_account_qos_nodelist(clean):
    """scancel -A, -q, -w act only on the jobs they match (and squeue -q
    lists by QOS)."""
    c = clean
    u = "herdu1"
    wd = c.workdir(u)
    a = c.sbatch("-H", "-A", "physics", "-o", "/dev/null", "--wrap", "true", user=u, cwd=wd)
    b = c.sbatch("-H", "-A", "chem", "-q", "long", "-o", "/dev/null", "--wrap", "true", user=u, cwd=wd)
    run_n1 = c.sbatch("-w", "n1", "-o", "/dev/null", "--wrap", "sleep 300", user=u, cwd=wd)
    run_n2 = c.sbatch("-w", "n2", "-o", "/dev/null", "--wrap", "sleep 300", user=u, cwd=wd)
    c.wait_state(run_n1, "RUNNING")
    c.wait_state(run_n2, "RUNNING")
    r = c.run(["squeue", "-h", "-q", "long", "-o", "%i %q"], user=u)
    assert r.out.split("\n")[:-1] == [f"{b} long"], r
    r = c.run(["squeue", "-h", "--qos=normal", "-o", "%i"], user=u)
    assert sorted(map(int, r.out.split())) == sorted([a, run_n1, run_n2]), r

    assert c.run(["scancel", "-A", "physics"], user=u).rc == 0
    assert c.wait_done(a) == "CANCELLED"
    assert stays(lambda: c.job_state(b) == "PENDING", 0.5)
    assert c.run(["scancel", "-q", "long"], user=u).rc == 0
    assert c.wait_done(b) == "CANCELLED"
    assert c.run(["scancel", "-w", "n2"], user=u).rc == 0
    assert c.wait_done(run_n2) == "CANCELLED"
    assert c.job_state(run_n1) == "RUNNING"
    r = c.run(["scancel", "-w", "n[1-"], user=u)
    assert r.rc == 1 and "Invalid node name specified" in r.err, r
    assert c.job_state(run_n1) == "RUNNING"
