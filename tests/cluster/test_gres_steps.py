"""GRES in job steps (doc/gres.md section 2, "Steps"; issue 16): inside a
GPU allocation srun's --gres, --gpus-per-task, --gpus, --gres=none and
--overlap give each step its share of the job's GPUs, lowest index first,
not those another running step holds (a step asking busy ones waits, as for
busy CPUs); a step asking more than the job has is refused with Slurm's
sentence; a step without GPU options has all the job's; the holds survive a
controller restart.  Checked as a user would: each task's
CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS and SLURM_GPUS_ON_NODE.  One cluster:
2 nodes of 4 CPUs and 2 fake H100s (herd up --gpus)."""
import json
import os
import re
import shutil
import signal
import time

import pytest

from conftest import Cluster, make_root, stop_cluster
from test_frames import Wire, exchange

STEP_INFO = 11

VARS = "CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS SLURM_GPUS_ON_NODE"
# one line per task: "TAG host CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS SLURM_GPUS_ON_NODE"
SHOW = ("bash -c 'echo {tag} $SLURMD_NODENAME ${{CUDA_VISIBLE_DEVICES-unset}} "
        "${{SLURM_STEP_GPUS-unset}} ${{SLURM_GPUS_ON_NODE-unset}}'")


@pytest.fixture(scope="module")
def c(users):
    root = make_root()
    cl = Cluster(root, 2)
    try:
        cl.up("--cpus", "4", "--gpus", "2", "--gpu-type", "h100")
    except Exception:
        cl.down()
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        yield cl
    finally:
        stop_cluster(cl)


def batch(c, script, *opts, timeout=90):
    """Run script as a batch job; its output (stdout and stderr)."""
    wd = c.workdir()
    name = f"gs-{time.time_ns()}"
    path = os.path.join(wd, name + ".sh")
    with open(path, "w") as f:
        f.write("#!/bin/bash\n" + script)
    out = os.path.join(wd, name + ".out")
    job = c.sbatch("-o", out, *opts, path)
    final = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")

    def states():   # a heterogeneous job: one line per component
        got = c.job_state(job)
        return got and all(s in final for s in got.split()) and got.split()
    state = c.wait_until(f"job {job} to end", states, timeout=timeout)
    with open(out) as f:
        text = f.read()
    assert set(state) == {"COMPLETED"}, f"job {job} {state}:\n{text}\n{c.logs()}"
    return job, text


def lines(text, tag):
    """{node-or-task key: (cuda, step_gpus, gpus_on_node)} of the tagged lines."""
    found = [ln.split() for ln in text.splitlines() if ln.split()[:1] == [tag]]
    return [tuple(f[1:]) for f in found]


def test_step_without_options_has_all(c):
    _, out = batch(c, f"srun {SHOW.format(tag='ALL')}\n", "-N2", "--gpus-per-node=2")
    assert sorted(lines(out, "ALL")) == [("n1", "0,1", "0,1", "2"), ("n2", "0,1", "0,1", "2")], out


def test_gpus_per_task_binds_each_task(c):
    _, out = batch(c, f"srun -n2 --gpus-per-task=1 -l {SHOW.format(tag='T')}\n"
                      f"srun -n1 --gpus-per-task=1 {SHOW.format(tag='ONE')}\n",
                   "-N1", "-n2", "--gpus-per-node=2")
    tasks = sorted(ln for ln in out.splitlines() if " T " in ln)
    assert tasks == ["0: T n1 0 0 2", "1: T n1 1 1 2"], out
    assert lines(out, "ONE") == [("n1", "0", "0", "1")], out


def test_gres_none_has_no_gpu(c):
    _, out = batch(c, f"srun --gres=none {SHOW.format(tag='NONE')}\n"
                      f"srun --gpus=0 {SHOW.format(tag='ZERO')}\n"
                      f"SLURM_STEP_GRES=none srun {SHOW.format(tag='ENV')}\n"
                      f"SLURM_STEP_GRES=gpu:1 srun {SHOW.format(tag='ENV1')}\n",
                   "-N1", "--gpus-per-node=2")
    assert lines(out, "NONE") == [("n1", "unset", "unset", "unset")], out
    assert lines(out, "ZERO") == [("n1", "unset", "unset", "unset")], out
    assert lines(out, "ENV") == [("n1", "unset", "unset", "unset")], out
    assert lines(out, "ENV1") == [("n1", "0", "0", "1")], out


def test_concurrent_steps_get_different_gpus_third_waits(c):
    hold = "bash -c 'echo {tag} $SLURM_STEP_GPUS $(date +%s.%N); sleep {secs}; echo END{tag} $(date +%s.%N)'"
    script = (f"srun --exact -n1 --gres=gpu:1 {hold.format(tag='A', secs=6)} &\n"
              "sleep 1.5\n"
              f"srun --exact -n1 --gres=gpu:1 {hold.format(tag='B', secs=8)} &\n"
              "sleep 1.5\n"
              # both GPUs held: --overlap shares them at once
              f"srun --exact --overlap -n1 --gres=gpu:2 {hold.format(tag='O', secs=0)}\n"
              # the third waits for A's GPU
              f"srun --exact -n1 --gres=gpu:1 {hold.format(tag='C', secs=0)}\n"
              "wait\n")
    _, out = batch(c, script, "-N1", "-n3", "--gpus-per-node=2")
    got = {f[0]: f[1:] for f in (ln.split() for ln in out.splitlines()) if f and f[0] in
           ("A", "B", "C", "O", "ENDA", "ENDB")}
    assert got["A"][0] == "0" and got["B"][0] == "1", out
    assert got["O"][0] == "0,1", out
    assert float(got["O"][1]) < float(got["ENDA"][0]), out   # did not wait
    assert got["C"][0] == "0", out                            # A's, given back
    assert float(got["C"][1]) >= float(got["ENDA"][0]), out
    assert "step creation temporarily disabled, retrying (Requested nodes are busy)" in out, out


def test_step_gpus_spread_and_per_node(c):
    _, out = batch(c, f"srun -N2 --gpus-per-node=1 {SHOW.format(tag='PN')}\n"
                      f"srun -N2 -n2 --gpus=3 {SHOW.format(tag='PS')}\n",
                   "-N2", "--gpus-per-node=2")
    assert sorted(lines(out, "PN")) == [("n1", "0", "0", "1"), ("n2", "0", "0", "1")], out
    assert sorted(lines(out, "PS")) == [("n1", "0,1", "0,1", "2"), ("n2", "0", "0", "1")], out


def test_more_than_the_job_has_is_refused(c):
    job, out = batch(c, "srun --gres=gpu:3 true; echo rc=$?\n"
                        "srun -N1 --gres=gpu:3 true; echo rc=$?\n"
                        "srun --gpus-per-task=2 -n3 -N2 true; echo rc=$?\n",
                     "-N2", "-n4", "--gpus-per-node=2")
    # Slurm 22.05's words for all three (step_mgr.c: never satisfiable GRES)
    assert out.count(f"srun: error: Unable to create step for job {job}: Invalid generic resource "
                     "(gres) specification") == 3, out
    assert out.count("rc=1") == 3, out


def test_holds_survive_controller_restart(c):
    wd = c.workdir()
    out = os.path.join(wd, f"gs-restart-{time.time_ns()}.out")
    marker = out + ".started"
    script = os.path.join(wd, "gs-restart.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n"
                f"srun --exact -n1 --gres=gpu:1 bash -c 'echo A $SLURM_STEP_GPUS; touch {marker}; sleep 20' &\n"
                f"while [ ! -e {marker} ]; do sleep 0.2; done\n"
                f"while [ ! -e {marker}.go ]; do sleep 0.2; done\n"
                "srun --exact -n1 --gres=gpu:1 bash -c 'echo B $SLURM_STEP_GPUS'\n"
                "wait\n")
    job = c.sbatch("-o", out, "-N1", "-n2", "--gpus-per-node=2", script)
    c.wait_until("the first step", lambda: os.path.exists(marker), timeout=60)
    killed = c.ctld_pid()
    os.kill(killed, signal.SIGKILL)
    time.sleep(1)
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    r = c.run(["scontrol", "show", "step", f"{job}.0"])
    assert r.rc == 0 and "RUNNING" in r.out, r
    # the step's record as kept (and stored for sacct): its GPU, held
    reply = exchange(c.port, Wire(c).request(STEP_INFO, json.dumps({"job_ids": [job]}).encode()))
    step = next(s for s in reply["steps"] if s["step_id"] == 0)
    assert step["gres"] == [[["gpu", "h100", 0, 1]]] and step["gres_holds"], step
    assert step["tres_gres"] == "gres/gpu=1,gres/gpu:h100=1", step
    open(marker + ".go", "w").close()
    c.wait_until("the second step", lambda: re.search(r"^B ", open(out).read(), re.M), timeout=60)
    text = open(out).read()
    assert re.search(r"^A 0$", text, re.M) and re.search(r"^B 1$", text, re.M), text
    c.run(["scancel", str(job)])
    c.wait_done(job)


def test_job_options_bind_a_plain_step(c):
    """A step asking no GRES binds as its job asked (--gpus-per-task), in a
    batch job and in the job srun makes for itself."""
    _, out = batch(c, f"srun -l {SHOW.format(tag='J')}\n", "-N1", "-n2", "--gpus-per-task=1")
    assert sorted(ln for ln in out.splitlines() if " J " in ln) == \
        ["0: J n1 0 0 2", "1: J n1 1 1 2"], out
    r = c.run(["srun", "-N1", "-n2", "--gpus-per-task=1", "-l", "/bin/sh", "-c",
               "echo S $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES $SLURM_STEP_GPUS "
               "$SLURM_GPUS_ON_NODE"])
    assert r.rc == 0, r
    assert sorted(r.out.splitlines()) == ["0: S n1 0 0 2", "1: S n1 1 1 2"] or \
        sorted(r.out.splitlines()) == ["0: S n2 0 0 2", "1: S n2 1 1 2"], r


def test_busy_node_passed_over_unless_named(c):
    """A step finds free GPUs on another node of the job; one naming the
    busy node (-w) waits for it rather than going elsewhere."""
    show = "bash -c 'echo {tag} $SLURMD_NODENAME $SLURM_STEP_GPUS $(date +%s.%N)'"
    script = ("srun --exact -n1 -w n1 --gres=gpu:2 bash -c 'sleep 5; echo ENDA $(date +%s.%N)' &\n"
              "sleep 1.5\n"
              f"srun --exact -n1 --gres=gpu:1 {show.format(tag='ELSE')}\n"
              f"srun --exact -n1 -w n1 --gres=gpu:1 {show.format(tag='NAMED')}\n"
              "wait\n")
    _, out = batch(c, script, "-N2", "-n4", "--gpus-per-node=2", "-w", "n[1-2]")
    got = {f[0]: f[1:] for f in (ln.split() for ln in out.splitlines()) if f and f[0] in
           ("ELSE", "NAMED", "ENDA")}
    assert got["ELSE"][:2] == ["n2", "0"], out
    assert float(got["ELSE"][2]) < float(got["ENDA"][0]), out
    assert got["NAMED"][:2] == ["n1", "0"], out
    assert float(got["NAMED"][2]) >= float(got["ENDA"][0]), out


def test_het_step_components_ask_their_own(c):
    """srun A : B: each component's GPU options are its own (--gres=none
    in one does not empty the other)."""
    script = ("#SBATCH -N1 --gpus-per-node=2\n#SBATCH hetjob\n#SBATCH -N1 --gpus-per-node=2\n"
              f"srun --gres=gpu:1 {SHOW.format(tag='A0')} : --gres=none {SHOW.format(tag='A1')}\n"
              f"srun --gres=none {SHOW.format(tag='B0')} : --gpus=2 {SHOW.format(tag='B1')}\n")
    _, out = batch(c, script)
    assert lines(out, "A0") == [("n1", "0", "0", "1")], out
    assert lines(out, "A1") == [("n2", "unset", "unset", "unset")], out
    assert lines(out, "B0") == [("n1", "unset", "unset", "unset")], out
    assert lines(out, "B1") == [("n2", "0,1", "0,1", "2")], out
