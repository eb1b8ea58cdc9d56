"""sbatch as a user meets it: where the script comes from (file, stdin,
--wrap) and when it is read, #SBATCH lines, the precedence command line >
SBATCH_* > #SBATCH, the resource and file options as the job and scontrol see
them, --export, --wait, Slurm's messages and exit codes for refusals, and a
submission riding over a controller restart.  One shared 4-node cluster (2
CPUs per node); the last test kills and restarts its controller."""
import os
import pwd
import re
import signal
import subprocess
import time

from conftest import BIN
from cmd_helpers import (clean, read, run_env, squeue_field, wait_text, write_script,
                         active_ids)

USER = "herdu1"


def submit(cluster, *args, user=USER, cwd=None, env=None, input=None):
    """Run sbatch (not --parsable unless asked) and return the Result."""
    cwd = cwd or cluster.workdir(user)
    if env:
        return run_env(cluster, env, ["sbatch", *args], user=user, cwd=cwd, input=input)
    return cluster.run(["sbatch", *args], user=user, cwd=cwd, input=input)


def job_id_of(result, rc=0):
    m = re.fullmatch(r"Submitted batch job (\d+)\n", result.out)
    assert result.rc == rc and m, result
    return int(m.group(1))


def test_submitted_message_and_parsable(clean):
    c = clean
    r = submit(c, "-o", "/dev/null", "--wrap", "true")
    first = job_id_of(r)
    assert r.err == ""
    r = submit(c, "--parsable", "-o", "/dev/null", "--wrap", "true")
    assert r.rc == 0 and r.err == "", r
    assert re.fullmatch(r"\d+\n", r.out), r
    second = int(r.out)
    assert second > first
    for j in (first, second):
        assert c.wait_done(j) == "COMPLETED"
    # -Q prints nothing at all, and the job still exists.
    r = submit(c, "-Q", "-H", "-o", "/dev/null", "--wrap", "true")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    assert len(active_ids(c)) == 1


def test_script_file_is_read_at_submit_time(clean):
    c = clean
    wd = c.workdir(USER)
    script = write_script(os.path.join(wd, "readnow.sh"),
                          "#!/bin/bash\necho \"from the file as submitted: $1\"\n", owner=USER)
    # Held, so it cannot start before the file is gone.
    job_id = job_id_of(submit(c, "-H", "-o", "readnow-%j.out", script, "arg1"))
    write_script(script, "#!/bin/bash\necho changed after submission\n", owner=USER)
    os.unlink(script)
    assert c.run(["scontrol", "release", str(job_id)], user=USER).rc == 0
    assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
    assert read(os.path.join(wd, f"readnow-{job_id}.out")) == \
        "from the file as submitted: arg1\n"
    info = c.show_job(job_id)
    assert info["Command"] == script
    assert info["JobName"] == "readnow.sh"


def test_script_on_stdin(clean):
    c = clean
    wd = c.workdir(USER)
    r = submit(c, "-o", "stdin-%j.out",
               input="#!/bin/sh\n#SBATCH -J fromstdin\necho \"read from stdin as $(id -un)\"\n")
    job_id = job_id_of(r)
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"stdin-{job_id}.out")) == f"read from stdin as {USER}\n"
    assert squeue_field(c, job_id, "%j") == "fromstdin"
    # Without -J a script from stdin is named "sbatch", as in Slurm.
    job_id = job_id_of(submit(c, "-H", input="#!/bin/sh\ntrue\n"))
    assert squeue_field(c, job_id, "%j") == "sbatch"


def test_wrap(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = job_id_of(submit(c, "-o", "wrap-%j.out", "--wrap", "echo one; echo two | tr a-z A-Z"))
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"wrap-{job_id}.out")) == "one\nTWO\n"
    assert squeue_field(c, job_id, "%j") == "wrap"
    # A script argument cannot come with --wrap.
    r = submit(c, "--wrap", "true", "/bin/true")
    assert r.rc != 0 and r.out == ""
    assert "sbatch: error: script argument not permitted with --wrap option" in r.err


def test_sbatch_directive_forms(clean):
    """--key=value, --key value and -k value all work; a blank line or a
    plain comment does not end the directives, the first command does."""
    c = clean
    wd = c.workdir(USER)
    script = write_script(os.path.join(wd, "forms.sh"), "\n".join([
        "#!/bin/bash",
        "#SBATCH --job-name=formsjob",
        "#SBATCH --output forms-%j.out",
        "",
        "# an ordinary comment",
        "#SBATCH -e forms-%j.err",
        "#SBATCH -t 7",
        "#SBATCH --ntasks 2",
        "#SBATCH -N 2   # trailing comment",
        "echo \"tasks=$SLURM_NTASKS nodes=$SLURM_JOB_NUM_NODES\"",
        "echo oops >&2",
        "#SBATCH --partition=no_such_partition",
        "#SBATCH -J too_late",
        "",
    ]), owner=USER)
    job_id = job_id_of(submit(c, script))
    assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
    info = c.show_job(job_id)
    assert info["JobName"] == "formsjob"
    assert info["Partition"] == "debug"
    assert info["TimeLimit"] == "00:07:00"
    assert info["NumNodes"] == "2"
    assert info["NumTasks"] == "2"
    assert info["StdOut"] == os.path.join(wd, f"forms-{job_id}.out")
    assert info["StdErr"] == os.path.join(wd, f"forms-{job_id}.err")
    assert read(info["StdOut"]) == "tasks=2 nodes=2\n"
    assert read(info["StdErr"]) == "oops\n"


def test_precedence_command_line_env_script(clean):
    c = clean
    wd = c.workdir(USER)
    script = write_script(os.path.join(wd, "prec.sh"),
                          "#!/bin/sh\n#SBATCH -J from_script\n#SBATCH --time=3\ntrue\n",
                          owner=USER)
    cases = [
        ({}, [], "from_script", "3:00"),
        ({"SBATCH_JOB_NAME": "from_env", "SBATCH_TIMELIMIT": "4"}, [], "from_env", "4:00"),
        ({"SBATCH_JOB_NAME": "from_env", "SBATCH_TIMELIMIT": "4"},
         ["-J", "from_cli", "--time=5"], "from_cli", "5:00"),
        ({}, ["--job-name", "cli_only"], "cli_only", "3:00"),
    ]
    for env, args, name, limit in cases:
        job_id = job_id_of(submit(c, "-H", *args, script, env=env))
        assert squeue_field(c, job_id, "%j|%l") == f"{name}|{limit}", (env, args)
    # SBATCH_PARTITION is read (a bad one refuses the job) and -p overrides it.
    r = submit(c, "-H", "--wrap", "true", env={"SBATCH_PARTITION": "nowhere"})
    assert r.rc == 1 and "Invalid partition name specified" in r.err, r
    job_id = job_id_of(submit(c, "-H", "-p", "debug", "--wrap", "true",
                              env={"SBATCH_PARTITION": "nowhere"}))
    assert squeue_field(c, job_id, "%P") == "debug"


def test_resource_options_reach_job_and_scontrol(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = job_id_of(submit(c, "-J", "res", "-N", "2", "-n", "3", "-c", "1", "-t", "10",
                              "-p", "debug", "--mem=100", "-o", "res-%j.out", "-H", "--wrap",
                              "echo $SLURM_JOB_NUM_NODES $SLURM_NTASKS $SLURM_CPUS_PER_TASK "
                              "$SLURM_MEM_PER_NODE $SLURM_JOB_PARTITION $SLURM_JOB_NAME"))
    info = c.show_job(job_id)
    assert (info["JobState"], info["Reason"]) == ("PENDING", "JobHeldUser")
    assert info["JobName"] == "res"
    assert info["NumNodes"] == "2"
    assert info["NumTasks"] == "3"
    assert info["CPUs/Task"] == "1"
    assert info["TimeLimit"] == "00:10:00"
    assert info["Partition"] == "debug"
    assert info["MinMemoryNode"] == "100M"
    assert c.run(["scontrol", "release", str(job_id)], user=USER).rc == 0
    assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
    assert read(os.path.join(wd, f"res-{job_id}.out")).split() == \
        ["2", "3", "1", "100", "debug", "res"]
    assert int(c.show_job(job_id)["NumCPUs"]) >= 3
    # Memory with a unit suffix.
    job_id = job_id_of(submit(c, "-H", "--mem=1G", "--wrap", "true"))
    assert c.show_job(job_id)["MinMemoryNode"] == "1G"
    assert squeue_field(c, job_id, "%m") == "1G"


def test_cpus_per_task(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = job_id_of(submit(c, "-c", "2", "-o", "cpt-%j.out", "--wrap",
                              "echo $SLURM_CPUS_PER_TASK $SLURM_CPUS_ON_NODE"))
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"cpt-{job_id}.out")).split() == ["2", "2"]
    info = c.show_job(job_id)
    assert (info["NumCPUs"], info["CPUs/Task"]) == ("2", "2")


def test_exclusive_gets_whole_node(clean):
    c = clean
    job_id = job_id_of(submit(c, "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300"))
    c.wait_state(job_id, "RUNNING")
    info = c.show_job(job_id)
    assert info["OverSubscribe"] == "NO"
    assert info["NumCPUs"] == "2"    # every CPU of the node, not the one asked
    r = c.run(["sinfo", "-h", "-N", "-n", info["NodeList"], "-o", "%t"])
    assert r.out.split() == ["alloc"], r


def test_chdir(clean):
    c = clean
    wd = c.workdir(USER)
    sub = os.path.join(wd, "elsewhere")
    os.makedirs(sub, exist_ok=True)
    pw = pwd.getpwnam(USER)
    os.chown(sub, pw.pw_uid, pw.pw_gid)
    job_id = job_id_of(submit(c, "--chdir", sub, "-o", "chdir-%j.out", "--wrap", "pwd"))
    assert c.wait_done(job_id) == "COMPLETED"
    # A relative output path is relative to the job's working directory.
    assert read(os.path.join(sub, f"chdir-{job_id}.out")) == sub + "\n"
    assert c.show_job(job_id)["WorkDir"] == sub
    # -D with a relative path is taken from where sbatch ran.
    job_id = job_id_of(submit(c, "-D", "elsewhere", "-o", "rel-%j.out", "--wrap", "pwd"))
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(sub, f"rel-{job_id}.out")) == sub + "\n"


def test_export(clean):
    c = clean
    wd = c.workdir(USER)
    env = {"HERD_T_VAR": "hello", "HERD_T_OTHER": "other"}
    show = "echo \"var=${HERD_T_VAR-unset} other=${HERD_T_OTHER-unset} " \
           "a=${A-unset} id=${SLURM_JOB_ID:+set}\""
    expect = {
        (): "var=hello other=other a=unset id=set",
        ("--export=ALL",): "var=hello other=other a=unset id=set",
        ("--export=NONE",): "var=unset other=unset a=unset id=set",
        ("--export=A=1,HERD_T_VAR",): "var=hello other=unset a=1 id=set",
        ("--export=ALL,A=2",): "var=hello other=other a=2 id=set",
    }
    jobs = {}
    for args in expect:
        jobs[args] = job_id_of(submit(c, *args, "-o", "export-%j.out", "--wrap", show, env=env))
    for args, job_id in jobs.items():
        assert c.wait_done(job_id) == "COMPLETED", (args, c.show_job(job_id))
        assert read(os.path.join(wd, f"export-{job_id}.out")) == expect[args] + "\n", args


def test_output_file_patterns(clean):
    c = clean
    wd = c.workdir(USER)
    job_id = job_id_of(submit(c, "-J", "pat", "-o", "out-%x-%j-%u-%N.txt", "-e",
                              "err-%j-%x.txt", "--wrap", "echo to-out; echo to-err >&2"))
    assert c.wait_done(job_id) == "COMPLETED"
    node = c.show_job(job_id)["BatchHost"]
    assert read(os.path.join(wd, f"out-pat-{job_id}-{USER}-{node}.txt")) == "to-out\n"
    assert read(os.path.join(wd, f"err-{job_id}-pat.txt")) == "to-err\n"
    # Without -o/-e both streams go to slurm-%j.out in the working directory.
    job_id = job_id_of(submit(c, "--wrap", "echo o; sleep 0.1; echo e >&2"))
    assert c.wait_done(job_id) == "COMPLETED"
    assert read(os.path.join(wd, f"slurm-{job_id}.out")) == "o\ne\n"


def test_refusals(clean):
    c = clean
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).out.split()

    r = submit(c, input="echo no interpreter line\n")
    assert r.rc == 1 and r.out == "", r
    assert r.err == ("sbatch: error: This does not look like a batch script.  The first\n"
                     "sbatch: error: line must start with #! followed by the path to an"
                     " interpreter.\n"
                     "sbatch: error: For instance: #!/bin/sh\n")

    r = submit(c, "-p", "nosuchpart", "--wrap", "true")
    assert r.rc == 1 and r.out == "", r
    assert r.err.splitlines()[-1] == \
        "sbatch: error: Batch job submission failed: Invalid partition name specified"

    r = submit(c, "-N", str(c.nnodes + 1), "--wrap", "true")
    assert r.rc == 1 and r.out == "", r
    assert r.err == ("sbatch: error: Batch job submission failed: "
                     "Requested node configuration is not available\n")

    # More CPUs per task than any node has, and more memory than any node has.
    for args in (["-c", "3"], ["--mem=100000000"]):
        r = submit(c, *args, "--wrap", "true")
        assert r.rc == 1, (args, r)
        assert "Requested node configuration is not available" in r.err, (args, r)

    # Slurm exits -1 (255) on a malformed option value.
    r = submit(c, "--time=bogus", "--wrap", "true")
    assert (r.rc, r.out) == (255, ""), r
    assert r.err == "sbatch: error: Invalid --time specification\n"

    r = submit(c, "/no/such/script.sh")
    assert r.rc == 1 and r.err == "sbatch: error: Unable to open file /no/such/script.sh\n", r

    # None of these made a job.
    assert c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).out.split() == before


def test_wait_returns_exit_code(clean):
    c = clean
    r = submit(c, "--wait", "-o", "/dev/null", "--wrap", "sleep 0.5; exit 7")
    job_id = job_id_of(r, rc=7)
    assert c.job_state(job_id) == "FAILED"
    r = submit(c, "-W", "-o", "/dev/null", "--wrap", "true")
    assert c.job_state(job_id_of(r)) == "COMPLETED"
    # Killed by a signal: 1 (sbatch(1): the job did not exit by itself).
    r = submit(c, "--wait", "-o", "/dev/null", "--wrap", "kill -9 $$")
    assert c.job_state(job_id_of(r, rc=1)) == "FAILED"


def test_submission_rides_over_controller_restart(cluster):
    """Controller down: the read-only commands say so at once; sbatch keeps
    trying and submits once the controller is back (Slurm retries too).  The
    60 s after which sbatch gives up is not waited for here."""
    c = cluster
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller to be gone", lambda: not c.daemon_pids("herdctld"))
    r = c.run(["squeue"], user=USER)
    assert r.rc == 1
    assert r.err == "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"
    r = c.run(["scontrol", "ping"])
    assert r.rc == 1 and r.out.startswith("Slurmctld(primary) at localhost is DOWN\n"), r
    r = c.run(["sinfo"], user=USER)
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == \
        "slurm_load_partitions: Unable to contact slurm controller (connect failure)\n"
    r = c.run(["scontrol", "show", "job"], user=USER)
    assert r.rc == 1, r
    assert r.err == "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"

    env = c.env()
    proc = subprocess.Popen(
        ["runuser", "-u", USER, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
         os.path.join(BIN, "sbatch"), "-o", "/dev/null", "--wrap", "true"],
        cwd=c.workdir(USER), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        assert proc.poll() is None, proc.communicate()
        c.restart_ctld()
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    m = re.fullmatch(r"Submitted batch job (\d+)\n", out)
    assert m, (out, err)
    assert c.wait_done(int(m.group(1))) == "COMPLETED"
