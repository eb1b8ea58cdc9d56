"""The options sbatch, salloc and srun handle on the client side (the job-
option table, src/cmd/jobopt*.c), as a user meets them on a real cluster:
--export-file, -F/--nodefile, #PBS directives and --ignore-pbs, --uid for
root, srun/salloc --dependency and --test-only, heterogeneous components
never dropped, srun -r, --prolog/--epilog, --task-prolog/--task-epilog, -E,
-M, the options Slurm accepts on a cluster without their plugin (with its
warnings), and the GPU/GRES and topology options refused with a sentence."""
import os
import re

from cmd_helpers import clean, conf_lines, read, run_env, write_script  # noqa: F401  (clean: fixture)
from test_srun import cluster  # noqa: F401  (fixture)

USER = "herdu1"


def sbatch(c, *args, user=USER, env=None, input=None):
    wd = c.workdir(user)
    if env:
        return run_env(c, env, ["sbatch", *args], user=user, cwd=wd, input=input)
    return c.run(["sbatch", *args], user=user, cwd=wd, input=input)


def job_id(r):
    assert r.rc == 0, r
    m = re.search(r"Submitted batch job (\d+)\n", r.out)
    assert m, r
    return int(m.group(1))


def queued(c):
    return c.run(["squeue", "-h", "-o", "%i"]).out.split()


def test_export_file(clean):
    c = clean
    wd = c.workdir(USER)
    path = os.path.join(wd, "vars.env")
    with open(path, "wb") as f:   # NAME=value entries, each ended by a NUL
        f.write(b"FROM_FILE=one\0SPACED=a b\nc\0")
    os.chmod(path, 0o644)
    jid = job_id(sbatch(c, f"--export-file={path}", "-o", "ef-%j.out", "--wrap",
                        'echo "F=$FROM_FILE"; echo "S=$SPACED"'))
    assert c.wait_done(jid) == "COMPLETED"
    text = read(os.path.join(wd, f"ef-{jid}.out"))
    assert "F=one\n" in text and "S=a b\nc\n" in text, text
    before = queued(c)
    r = sbatch(c, "--export-file=/no/such/file", "--wrap", "true")
    assert r.rc == 1 and "sbatch: error: Could not open user environment file /no/such/file" \
        in r.err, r
    assert queued(c) == before


def test_nodefile(clean):
    c = clean
    wd = c.workdir(USER)
    path = os.path.join(wd, "hosts")
    with open(path, "w") as f:
        f.write("n2\nn3\n")
    os.chmod(path, 0o644)
    jid = job_id(sbatch(c, "-F", path, "-N", "2", "-o", "/dev/null", "--wrap", "true"))
    assert c.wait_done(jid) == "COMPLETED"
    assert c.show_job(jid)["NodeList"] == "n[2-3]"
    r = sbatch(c, "--nodefile=/no/such/hosts", "--wrap", "true")
    assert r.rc == 255 and "Invalid --nodefile specification" in r.err, r


PBS_SCRIPT = """#!/bin/sh
#PBS -N pbsjob
#PBS -l nodes=2:ppn=1,walltime=00:07:00
#PBS -o {out}
#PBS -j oe
#PBS -m n
#SBATCH --comment=from-sbatch
echo ran
"""


def test_pbs_directives(clean):
    c = clean
    wd = c.workdir(USER)
    out = os.path.join(wd, "pbs.out")
    jid = job_id(sbatch(c, input=PBS_SCRIPT.format(out=out)))
    assert c.wait_done(jid) == "COMPLETED"
    info = c.show_job(jid)
    assert info["JobName"] == "pbsjob", info
    assert info["TimeLimit"] == "00:07:00", info
    assert info["NumNodes"] == "2", info
    assert info["Comment"] == "from-sbatch", info
    assert read(out) == "ran\n"
    # --ignore-pbs: the #PBS lines are comments again
    jid = job_id(sbatch(c, "--ignore-pbs", "-o", "/dev/null", input=PBS_SCRIPT.format(out=out)))
    info = c.show_job(jid)
    assert info["JobName"] == "sbatch" and info["NumNodes"] == "1", info
    # SBATCH_IGNORE_PBS too
    jid = job_id(sbatch(c, "-o", "/dev/null", env={"SBATCH_IGNORE_PBS": "1"},
                        input=PBS_SCRIPT.format(out=out)))
    assert c.show_job(jid)["JobName"] == "sbatch"


def test_bsub_directives(clean):
    c = clean
    jid = job_id(sbatch(c, "-o", "/dev/null",
                        input="#!/bin/sh\n#BSUB -J lsfjob\n#BSUB -n 2\n#BSUB -W 9:00\ntrue\n"))
    info = c.show_job(jid)
    assert (info["JobName"], info["NumTasks"], info["TimeLimit"]) == ("lsfjob", "2", "00:09:00"), info
    r = sbatch(c, input="#!/bin/sh\n#BSUB -B\ntrue\n")
    assert r.rc == 1 and "sbatch: invalid option -- 'B'\n" \
        "sbatch: error: Unrecognized command line parameter ?" in r.err, r


def test_uid_is_root_only(clean):
    c = clean
    r = sbatch(c, "--uid=herdu2", "--wrap", "true")
    assert r.rc == 255 and "sbatch: error: --uid only permitted by root user" in r.err, r
    r = sbatch(c, "--gid=0", "--wrap", "true")
    assert r.rc == 255 and "sbatch: error: --gid only permitted by root user" in r.err, r
    wd = c.workdir(USER)
    jid = job_id(c.run(["sbatch", "--uid=herdu1", "-o", os.path.join(wd, "uid-%j.out"),
                        "--wrap", "id -un"], cwd=wd))
    assert c.wait_done(jid) == "COMPLETED"
    assert c.show_job(jid)["UserId"].startswith("herdu1(")
    assert read(os.path.join(wd, f"uid-{jid}.out")) == "herdu1\n"


def test_srun_dependency_and_test_only(clean):
    c = clean
    r = c.run(["srun", "--dependency=afterok:999999", "true"], user=USER)
    assert r.rc == 1 and "Job dependency problem" in r.err, r
    first = job_id(sbatch(c, "-o", "/dev/null", "--wrap", "sleep 1"))
    r = c.run(["srun", "-d", f"afterok:{first}", "echo", "after"], user=USER)
    assert r.rc == 0 and r.out == "after\n", r
    assert c.job_state(first) == "COMPLETED"
    before = queued(c)
    r = c.run(["srun", "--test-only", "-N", "1", "true"], user=USER)
    assert r.rc == 0 and r.out == "", r
    assert re.match(r"srun: Job \d+ to start at \S+ using 1 processors on nodes n\d "
                    r"in partition debug\n", r.err), r
    assert queued(c) == before


def test_het_components_are_never_dropped(clean):
    """The components go to the controller as "het": it runs them as one
    heterogeneous job, or refuses; never a job of component 0 alone."""
    c = clean
    r = sbatch(c, "-N", "1", ":", "-N", "2", "-o", "/dev/null", "--wrap", "true")
    if r.rc == 0:
        info = c.show_job(job_id(r))
        assert "HetJobId" in info, info
    else:
        assert r.rc == 1 and "Batch job submission failed" in r.err, r
        assert not queued(c)
    script = "#!/bin/sh\n#SBATCH -N 1\n#SBATCH hetjob\n#SBATCH -N 2\ntrue\n"
    r = sbatch(c, "-o", "/dev/null", input=script)
    assert r.rc == 0 and "HetJobId" in c.show_job(job_id(r)) or r.rc == 1, r


def test_srun_relative(clean):
    c = clean
    r = c.run(["srun", "-r", "1", "true"], user=USER)
    assert r.rc == 1 and "srun: fatal: --relative option invalid for job allocation request" \
        in r.err, r
    r = c.run(["salloc", "-N", "3", "sh", "-c",
               "srun -r 1 -N 1 printenv SLURMD_NODENAME; srun -r 2 printenv SLURMD_NODENAME; "
               "srun -r 5 true"], user=USER)
    lines = r.out.splitlines()
    assert lines == ["n2", "n3"], r
    assert "--relative=5 is beyond the allocation's 3 nodes" in r.err, r


def test_srun_prolog_epilog(clean):
    c = clean
    wd = c.workdir(USER)
    log = os.path.join(wd, "hooks.log")
    pro = write_script(os.path.join(wd, "pro.sh"), f"#!/bin/sh\necho \"pro $SLURM_JOB_ID $*\" >> {log}\n",
                       owner=USER)
    epi = write_script(os.path.join(wd, "epi.sh"), f"#!/bin/sh\necho \"epi $*\" >> {log}\n",
                       owner=USER)
    r = c.run(["srun", f"--prolog={pro}", f"--epilog={epi}", "echo", "hi"], user=USER)
    assert r.rc == 0 and r.out == "hi\n", r
    lines = read(log).splitlines()
    assert re.fullmatch(r"pro \d+ echo hi", lines[0]) and lines[1] == "epi echo hi", lines
    bad = write_script(os.path.join(wd, "bad.sh"), "#!/bin/sh\nexit 3\n", owner=USER)
    r = c.run(["srun", f"--prolog={bad}", "echo", "never"], user=USER)
    assert r.rc == 1 and r.out == "" and "srun prolog failed rc = 3" in r.err, r


def test_task_prolog_epilog(clean):
    c = clean
    wd = c.workdir(USER)
    tp = write_script(os.path.join(wd, "tp.sh"),
                      "#!/bin/sh\necho export FOO=bar$SLURM_PROCID\necho print hello\n"
                      "echo unset HOME\n", owner=USER)
    te = write_script(os.path.join(wd, "te.sh"),
                      f"#!/bin/sh\ntouch {wd}/te-$SLURM_PROCID\n", owner=USER)
    r = c.run(["srun", "-n", "2", "-l", f"--task-prolog={tp}", f"--task-epilog={te}",
               "sh", "-c", 'echo "FOO=$FOO HOME=${HOME:-none}"'], user=USER)
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0: FOO=bar0 HOME=none", "0: hello",
                                          "1: FOO=bar1 HOME=none", "1: hello"], r
    assert os.path.exists(f"{wd}/te-0") and os.path.exists(f"{wd}/te-1")


def test_preserve_env(clean):
    c = clean
    r = c.run(["salloc", "-N", "2", "-n", "2", "sh", "-c",
               "srun -N1 -n1 hostname | wc -l; srun -E -N1 -n1 hostname | wc -l"], user=USER)
    assert r.rc == 0 and r.out.split() == ["1", "2"], r


def test_clusters(clean):
    c = clean
    r = sbatch(c, "-M", "nosuch", "--wrap", "true")
    assert r.rc == 1 and "sbatch: error: No cluster 'nosuch' known by database." in r.err, r
    name = re.search(r"(?m)^ClusterName=(\S+)", read(c.conf))
    name = name.group(1) if name else "cluster"
    r = sbatch(c, "-M", name, "-o", "/dev/null", "--wrap", "true")
    m = re.fullmatch(rf"Submitted batch job (\d+) on cluster {name}\n", r.out)   # Slurm's words
    assert r.rc == 0 and m, r
    assert c.wait_done(int(m.group(1))) == "COMPLETED"
    r = sbatch(c, "-M", name, "--parsable", "-o", "/dev/null", "--wrap", "true")
    assert r.rc == 0 and re.fullmatch(rf"\d+;{name}\n", r.out), r
    r = c.run(["srun", f"--clusters={name}", "true"], user=USER)
    assert r.rc == 0, r


def test_accepted_as_slurm_without_the_plugin(clean):
    """Burst buffers, profiling, CPU frequency, MCS, Cray network, power,
    specialized cores: Slurm takes them on a cluster without the plugin (and
    says what it ignores); the job runs."""
    c = clean
    r = sbatch(c, "--bb=capacity=1G", "--profile=none", "--cpu-freq=high",
               "--acctg-freq=task=30", "--mcs-label=m", "--network=x", "--power=foo",
               "-S", "1", "--hint=nomultithread", "--mem-bind=local", "--spread-job",
               "--use-min-nodes", "--propagate=CORE", "-o", "/dev/null", "--wrap", "true")
    jid = job_id(r)
    assert "sbatch: error: Ignoring unrecognized power option (foo)" in r.err, r
    assert "sbatch: error: Ignoring -S since it's not allowed by configuration " \
        "(AllowSpecResourcesUsage = No)" in r.err, r
    assert c.wait_done(jid) == "COMPLETED"
    r = c.run(["srun", "--cpu-freq=low", "--slurmd-debug=3", "--resv-ports", "--bcast",
               "--quit-on-interrupt", "-T", "4", "echo", "ok"], user=USER)
    assert r.rc == 0 and r.out == "ok\n", r


def test_gres_and_topology_are_refused(clean):
    c = clean
    # without GresTypes, as Slurm's commands read their slurm.conf
    for args in (["--gpus=1"], ["--gres=gpu:1"], ["--mem-per-gpu=1G"], ["--gpus-per-task=1"],
                 ["--cpus-per-gpu=2"], ["--tres-per-task=gres/gpu:1"]):
        r = sbatch(c, *args, "--wrap", "true")
        assert r.rc == 1 and r.err == "sbatch: error: Invalid generic resource (gres) specification\n", \
            (args, r)
    r = c.run(["srun", "--gpus-per-node=1", "true"], user=USER)
    assert r.rc == 1 and r.err == "srun: error: Invalid generic resource (gres) specification\n", r
    # Slurm's sentences for malformed values; --gres=gpu:0 and --gpu-bind alone ask for nothing
    r = sbatch(c, "--gpu-bind=foo", "--wrap", "true")
    assert r.rc == 255 and r.err == "sbatch: error: Invalid --gpu-bind argument: gpu:foo\n", r
    r = sbatch(c, "--gres-flags=foo", "--wrap", "true")
    assert r.rc == 255 and r.err == "sbatch: error: Invalid --gres-flags specification\n", r
    for args in (["--gres=gpu:0"], ["--gpu-bind=closest"], ["--gres-flags=enforce-binding"]):
        r = sbatch(c, *args, "--test-only", "--wrap", "true")
        assert r.rc == 0, (args, r)
    r = c.run(["salloc", "--switches=1", "true"], user=USER)
    assert r.rc == 1 and "--switches needs a network topology" in r.err, r
    r = c.run(["srun", "--x11", "true"], user=USER)
    assert r.rc == 1 and "srun: error: No DISPLAY variable set, cannot setup x11 forwarding." \
        in r.err, r
    assert not queued(c)
    # --batch must name features of -C (Slurm's sentence, nothing queued)
    r = sbatch(c, "--batch=fast", "--wrap", "true")
    assert r.rc == 1 and r.err == "sbatch: error: Batch job submission failed: Job --batch " \
        "option is invalid or not a subset of --constraints\n", r
    assert not queued(c)
    # --gres=none asks for none, as Slurm reads it (a step's way to say so)
    r = sbatch(c, "--gres=none", "--test-only", "--wrap", "true")
    assert r.rc == 0, r


def test_gres_request_reaches_the_controller(clean):
    """With GresTypes=gpu the commands read GPU requests and send them in
    TRES form (tres_per_job, tres_per_node, tres_per_task); until the
    scheduler places generic resources (issue 16) the controller refuses
    any count above 0 in Slurm's words, and nothing is queued."""
    c = clean
    with conf_lines(c, "GresTypes=gpu\n"):
        for args in (["--gpus=h100:2"], ["--gres=gpu:1"], ["--gpus-per-task=1", "--cpus-per-gpu=2"]):
            r = sbatch(c, *args, "--wrap", "true")
            assert r.rc == 1 and r.err == "sbatch: error: Batch job submission failed: " \
                "Invalid generic resource (gres) specification\n", (args, r)
        r = sbatch(c, "--gres=gpu:0", "--test-only", "--wrap", "true")
        assert r.rc == 0, r
        assert not queued(c)
