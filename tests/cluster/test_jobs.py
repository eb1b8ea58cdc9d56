"""Batch jobs as users see them: identity, permissions, output file names,
exit codes, time limits and cancellation.  One shared 4-node cluster."""
import os
import pwd
import time


def read(path):
    with open(path) as f:
        return f.read()


def test_jobs_run_as_their_users(cluster):
    jobs = {}
    for user in ("herdu1", "herdu2"):
        wd = cluster.workdir(user)
        jobs[user] = cluster.sbatch("-o", "ident-%j.out", "--wrap", "id -u; id -un; pwd",
                                    user=user, cwd=wd)
    for user, job_id in jobs.items():
        pw = pwd.getpwnam(user)
        assert cluster.wait_done(job_id) == "COMPLETED", cluster.show_job(job_id)
        path = os.path.join(cluster.workdir(user), f"ident-{job_id}.out")
        lines = read(path).split()
        assert lines[0] == str(pw.pw_uid)
        assert lines[1] == user
        assert lines[2] == cluster.workdir(user)
        st = os.stat(path)
        assert (st.st_uid, st.st_gid) == (pw.pw_uid, pw.pw_gid)
        info = cluster.show_job(job_id)
        assert info["UserId"].startswith(f"{user}({pw.pw_uid})")


def test_default_output_file(cluster):
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("--wrap", "echo to-default; echo err-too >&2", user="herdu1", cwd=wd)
    assert cluster.wait_done(job_id) == "COMPLETED"
    text = read(os.path.join(wd, f"slurm-{job_id}.out"))
    assert "to-default" in text and "err-too" in text


def test_users_cannot_cancel_each_others_jobs(cluster):
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd)
    cluster.wait_state(job_id, ("PENDING", "RUNNING"))
    r = cluster.run(["scancel", str(job_id)], user="herdu2")
    assert r.rc == 1, r
    assert f"scancel: error: Kill job error on job id {job_id}: Access/permission denied" in r.err
    time.sleep(1)
    assert cluster.job_state(job_id) in ("PENDING", "RUNNING")
    # Root may, and the job ends CANCELLED.
    r = cluster.run(["scancel", str(job_id)])
    assert r.rc == 0, r
    assert cluster.wait_done(job_id, timeout=30) == "CANCELLED"


def test_owner_cancels_running_job(cluster):
    wd = cluster.workdir("herdu2")
    job_id = cluster.sbatch("-o", "cancel-%j.out", "--wrap", "echo started; sleep 300",
                            user="herdu2", cwd=wd)
    cluster.wait_state(job_id, "RUNNING")
    path = os.path.join(wd, f"cancel-{job_id}.out")
    cluster.wait_until("the job's output", lambda: os.path.exists(path) and "started" in read(path))
    t0 = time.time()
    r = cluster.run(["scancel", str(job_id)], user="herdu2")
    assert r.rc == 0, r
    assert cluster.wait_done(job_id, timeout=30) == "CANCELLED"
    assert time.time() - t0 < 20
    info = cluster.show_job(job_id)
    assert info["JobState"] == "CANCELLED"
    # The job's processes are gone: nothing of user herdu2 still sleeps.
    uid = pwd.getpwnam("herdu2").pw_uid
    cluster.wait_until("the job's sleep to end",
                       lambda: not any(sleeping_as(uid, job_id, cluster.conf)), timeout=15)


def sleeping_as(uid, job_id, conf):
    """The job's `sleep 300` processes (by uid and SLURM_JOB_ID, and this
    cluster's HERD_CONF, since other clusters may run the same test)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                status = f.read()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
            if f"\nUid:\t{uid}\t" not in status or not cmd.startswith(b"sleep\x00300"):
                continue
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if f"SLURM_JOB_ID={job_id}".encode() in env and f"HERD_CONF={conf}".encode() in env:
            yield int(d)


def test_output_patterns(cluster):
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("-J", "patjob", "-o", "%x-%j-%u-%N.out", "-e", "%x-%j.err",
                            "--wrap", "echo out; echo err >&2", user="herdu1", cwd=wd)
    assert cluster.wait_done(job_id) == "COMPLETED"
    info = cluster.show_job(job_id)
    node = info["BatchHost"]
    assert node in {n["NodeName"] for n in cluster.nodes}
    out = os.path.join(wd, f"patjob-{job_id}-herdu1-{node}.out")
    err = os.path.join(wd, f"patjob-{job_id}.err")
    assert read(out) == "out\n"
    assert read(err) == "err\n"
    # Whether scontrol expands %N (the batch host) differs between Slurm
    # versions; %x %j %u must be expanded.
    assert info["StdOut"] in (out, os.path.join(wd, f"patjob-{job_id}-herdu1-%N.out"))
    assert info["StdErr"] == err


def test_exit_code_fails_job(cluster):
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3", user="herdu1", cwd=wd)
    assert cluster.wait_done(job_id) == "FAILED"
    r = cluster.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%i %T"])
    assert r.out.split() == [str(job_id), "FAILED"]
    info = cluster.show_job(job_id)
    assert info["JobState"] == "FAILED"
    assert info["ExitCode"] == "3:0"
    assert info["Reason"] == "NonZeroExitCode"


def test_zero_exit_completes(cluster):
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu2",
                            cwd=cluster.workdir("herdu2"))
    assert cluster.wait_done(job_id) == "COMPLETED"
    assert cluster.show_job(job_id)["ExitCode"] == "0:0"


def test_time_limit_kills_job(cluster):
    """Herd enforces limits to the second: --time=0:05 is 5 s (minutes:seconds)."""
    wd = cluster.workdir("herdu1")
    t0 = time.time()
    job_id = cluster.sbatch("--time=0:05", "-o", "tl-%j.out", "--wrap", "echo begin; sleep 120",
                            user="herdu1", cwd=wd)
    assert cluster.wait_done(job_id, timeout=60) == "TIMEOUT"
    assert time.time() - t0 < 45
    info = cluster.show_job(job_id)
    assert info["TimeLimit"] == "00:00:05" or info["TimeLimit"] == "0:05"
    assert "begin" in read(os.path.join(wd, f"tl-{job_id}.out"))


def test_batch_script_with_sbatch_lines(cluster):
    wd = cluster.workdir("herdu2")
    script = os.path.join(wd, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n#SBATCH -J scripted\n#SBATCH -o scripted-%j.out\n"
                "echo \"name=$SLURM_JOB_NAME id=$SLURM_JOB_ID arg=$1\"\n")
    os.chmod(script, 0o755)
    job_id = cluster.sbatch(script, "hello", user="herdu2", cwd=wd)
    assert cluster.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"scripted-{job_id}.out")) == \
        f"name=scripted id={job_id} arg=hello\n"


def test_multi_node_job(cluster):
    wd = cluster.workdir("herdu1")
    job_id = cluster.sbatch("-N", "2", "-o", "mn-%j.out", "--wrap",
                            "echo nodes=$SLURM_JOB_NUM_NODES list=$SLURM_JOB_NODELIST",
                            user="herdu1", cwd=wd)
    assert cluster.wait_done(job_id) == "COMPLETED"
    info = cluster.show_job(job_id)
    assert info["NumNodes"] == "2"
    text = read(os.path.join(wd, f"mn-{job_id}.out"))
    assert text.startswith("nodes=2 list=")
    assert text.split("list=")[1].strip() == info["NodeList"]


def test_submission_variables(cluster):
    """sbatch(1)'s OUTPUT ENVIRONMENT that come from the submission:
    SLURM_UMASK (sbatch's umask), SLURM_PRIO_PROCESS (its nice value),
    SLURM_JOB_DEPENDENCY (as given)."""
    wd = cluster.workdir("herdu1")
    first = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    assert cluster.wait_done(first) == "COMPLETED"
    r = cluster.run(f"umask 0027; nice -n 7 sbatch --parsable -o subvars-%j.out -d afterany:{first}"
                    " --wrap 'echo $SLURM_UMASK $SLURM_PRIO_PROCESS $SLURM_JOB_DEPENDENCY'",
                    user="herdu1", cwd=wd)
    assert r.rc == 0, r
    job_id = int(r.out)
    assert cluster.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"subvars-{job_id}.out")).split() == ["0027", "7", f"afterany:{first}"]
