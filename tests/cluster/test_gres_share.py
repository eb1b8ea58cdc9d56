"""Shares of a GPU (doc/gres.md sections 2 and 4, issue 16): a node of two
GPUs whose gres.conf gives each 4 shards (Name=shard Count=4 File=<the
GPU's file>).  Shards are numbered by their GPU; a GPU is never given
whole and as shares at once: a whole-GPU job does not get a GPU whose
shards are in use, and shards are not given of a GPU held whole."""
import os
import re
import shutil

import pytest

from conftest import Cluster, make_root, stop_cluster


@pytest.fixture(scope="module")
def c(users):
    root = make_root()
    cl = Cluster(root, 1)
    try:
        cl.up("--cpus", "8", "--gpus", "2", "--gpu-type", "h100")
    except Exception:
        cl.down()
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        with open(cl.conf) as f:
            text = f.read()
        text = text.replace("GresTypes=gpu", "GresTypes=gpu,shard,mps")
        text = re.sub(r"Gres=gpu:h100:2", "Gres=gpu:h100:2,shard:8,mps:200", text)
        text += "SchedulerParameters=bf_interval=1\n"   # the starts behind a waiting job
        with open(cl.conf, "w") as f:
            f.write(text)
        d = f"{cl.dir}/dev/n1"
        with open(os.path.join(cl.dir, "gres.conf"), "w") as f:
            f.write(f"NodeName=n1 Name=gpu Type=h100 File={d}/nvidia0 Cores=0-3\n"
                    f"NodeName=n1 Name=gpu Type=h100 File={d}/nvidia1 Cores=4-7\n"
                    f"NodeName=n1 Name=shard Count=4 File={d}/nvidia0\n"
                    f"NodeName=n1 Name=shard Count=4 File={d}/nvidia1\n"
                    f"NodeName=n1 Name=mps Count=200 File={d}/nvidia[0-1]\n")
        r = cl.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        cl.wait_until("shards declared", lambda: "shard:8" in cl.run(
            ["scontrol", "show", "node", "n1"]).out and "shard:0" in cl.run(
            ["scontrol", "-d", "show", "node", "n1"]).out)
        yield cl
    finally:
        stop_cluster(cl)


def env_of(c, job, name):
    path = os.path.join(c.workdir(), f"{job}.out")
    c.wait_until(f"{name} in {path}", lambda: os.path.exists(path) and
                 f"{name}=" in open(path).read())
    m = re.search(rf"^{name}=(.*)$", open(path).read(), re.M)
    return m.group(1)


def submit(c, gres, secs=300):
    return c.sbatch(f"--gres={gres}", "-o", "%j.out", "--wrap",
                    f"env | grep -E '^(CUDA_VISIBLE_DEVICES|SLURM_SHARDS_ON_NODE|SLURM_JOB_GPUS|CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)='; "
                    f"sleep {secs}")


def test_whole_and_shares_never_together(c):
    a = submit(c, "shard:2")
    c.wait_state(a, "RUNNING")
    # shards of GPU 0 (the lowest): its shard count, the GPU they are on
    assert env_of(c, a, "SLURM_SHARDS_ON_NODE") == "2"
    assert env_of(c, a, "CUDA_VISIBLE_DEVICES") == "0"
    assert "GRES=shard:2(IDX:0)" in c.run(["scontrol", "-d", "show", "job", str(a)]).out
    # GPU 0 carries shares: a job asking both GPUs whole waits, one GPU gets GPU 1
    both = submit(c, "gpu:2", 1)
    one = submit(c, "gpu:1")
    c.wait_state(one, "RUNNING")
    assert env_of(c, one, "SLURM_JOB_GPUS") == "1"
    assert c.job_state(both) == "PENDING"
    assert c.show_job(both)["Reason"] == "Resources"
    # GPU 1 is held whole: more shards come from GPU 0 only
    b = submit(c, "shard:2")
    c.wait_state(b, "RUNNING")
    assert env_of(c, b, "CUDA_VISIBLE_DEVICES") == "0"
    # GPU 0's four shards are all in use now: a fifth waits
    d = submit(c, "shard:1", 1)
    # (behind the two-GPU job: Priority, as Slurm says of a job behind one waiting)
    c.wait_until("the fifth shard waits", lambda: c.show_job(d)["Reason"] in ("Resources", "Priority"))
    assert c.job_state(d) == "PENDING"
    used = c.run(["scontrol", "-d", "show", "node", "n1"]).out
    assert re.search(r"GresUsed=gpu:h100:1\(IDX:1\),shard:4", used), used
    for j in (a, b, one):
        c.run(["scancel", str(j)])   # the two waiting then run (1 s each)
    assert c.wait_done(both, 60) == "COMPLETED"
    assert c.wait_done(d, 60) == "COMPLETED"


def test_mps_share_of_a_gpu(c):
    """--gres=mps:25 of a GPU with 100 (Count=200 over two files): 25% of
    its threads (gres.html "MPS Management"); the same GPU's shards and
    the GPU whole are not given meanwhile."""
    a = submit(c, "mps:25")
    c.wait_state(a, "RUNNING")
    assert env_of(c, a, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "25"
    assert "GRES=mps:25(IDX:0)" in c.run(["scontrol", "-d", "show", "job", str(a)]).out
    g = submit(c, "gpu:1")
    c.wait_state(g, "RUNNING")
    assert env_of(c, g, "SLURM_JOB_GPUS") == "1"   # GPU 0 carries MPS shares
    s = submit(c, "shard:1", 1)
    c.wait_until("no shard of either GPU", lambda: c.show_job(s)["Reason"] in ("Resources", "Priority"))
    for j in (a, g):
        c.run(["scancel", str(j)])
    assert c.wait_done(s, 60) == "COMPLETED"


def test_sbatch_output_variables(c):
    """sbatch(1)'s output variables of the GPU options, in the batch
    script's environment (srun inside reads them back)."""
    j = c.sbatch("--gpus-per-node=h100:1", "--cpus-per-gpu=2", "--mem-per-gpu=64",
                 "--gpu-bind=closest", "-o", "%j.out", "--wrap",
                 "env | grep -E '^SLURM_(GPUS|GPUS_PER_NODE|CPUS_PER_GPU|MEM_PER_GPU|GPU_BIND|"
                 "GPUS_ON_NODE)=' | sort")
    assert c.wait_done(j) == "COMPLETED"
    with open(os.path.join(c.workdir(), f"{j}.out")) as f:
        assert f.read().splitlines() == [
            "SLURM_CPUS_PER_GPU=2", "SLURM_GPUS_ON_NODE=1", "SLURM_GPUS_PER_NODE=h100:1",
            "SLURM_GPU_BIND=closest", "SLURM_MEM_PER_GPU=64"]
    show = c.show_job(j)
    assert show["NumCPUs"] == "2" and show["TresPerNode"] == "gres:gpu:h100:1", show


def test_enforce_binding_waits_for_cpus_near_the_gpu(c):
    """--gres-flags=enforce-binding: every CPU of the job near its GPU
    (gres.conf Cores=): with GPU 1's CPUs 4-7 partly taken the job waits,
    though a GPU and CPUs elsewhere are free; once they are free it runs
    on GPU 1."""
    a = c.sbatch("-n4", "--gres=gpu:1", "-o", "/dev/null", "--wrap", "sleep 300")
    b = c.sbatch("-n1", "-o", "/dev/null", "--wrap", "sleep 300")   # takes CPU 4
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    e = c.sbatch("-n4", "--gres=gpu:1", "--gres-flags=enforce-binding", "-o", "%j.out", "--wrap",
                 "echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; sleep 300")
    c.wait_until("it waits", lambda: c.show_job(e)["Reason"] == "Resources")
    assert c.job_state(e) == "PENDING"
    c.run(["scancel", str(b)])
    c.wait_state(e, "RUNNING")
    assert env_of(c, e, "CUDA_VISIBLE_DEVICES") == "1"
    for j in (a, e):
        c.run(["scancel", str(j)])
