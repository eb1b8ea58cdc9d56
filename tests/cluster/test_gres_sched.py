"""GPU scheduling (doc/gres.md section 2, issue 16), checked as a user
would check it against Slurm's documented behaviour (sbatch(1) --gres,
--gpus, --gpus-per-node, --gpus-per-task, --cpus-per-gpu, --mem-per-gpu;
gres.html): what runs where with which devices, the batch shell's
variables, what is refused at submission and with which sentence, a GPU
job waiting for GPUs while CPUs are free, the backfill estimate, what
squeue and scontrol show, QOS and association limits on gres/gpu, a
controller restart keeping the devices held, and a DeepSpeed-style
script submitted unchanged.

One cluster: 2 nodes of 4 CPUs and 2 fake h100 GPUs each (`herd up
--gpus 2 --gpu-type h100`), bf_interval=1, limits enforced (root and
herdu1 have associations), partitions low and high over both nodes for
preemption (preempt/partition_prio, REQUEUE) besides the default debug."""
import os
import re
import signal
import time

import pytest

from cmd_helpers import cancel_all, read, squeue_field, wait_reason, write_script
from conftest import Cluster, make_root, stop_cluster
from pg import set_conf_keys

NODE_CONFIG = ("sbatch: error: Batch job submission failed: "
               "Requested node configuration is not available\n")
BAD_GRES = ("sbatch: error: Batch job submission failed: "
            "Invalid generic resource (gres) specification\n")
POLICY = ("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
          "(job submit limit, user's size and/or time limits)\n")
GPU_VARS = ("CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE")
HOLD = "sleep 300"


def sacctmgr(c, *args):
    r = c.run(["sacctmgr", "-i", *args])
    assert r.rc == 0, r
    return r


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 2)
    try:
        c.up("--cpus", "4", "--gpus", "2", "--gpu-type", "h100")
        sacctmgr(c, "add", "user", "herdu1", "account=root")
        sacctmgr(c, "add", "qos", "gpu1")
        sacctmgr(c, "modify", "qos", "gpu1", "set", "MaxTRESPerJob=gres/gpu=1")
        sacctmgr(c, "add", "qos", "gpu1deny")
        sacctmgr(c, "modify", "qos", "gpu1deny", "set", "flags=DenyOnLimit",
                 "MaxTRESPerJob=gres/gpu=1")
        sacctmgr(c, "modify", "user", "root", "set", "qos=normal,gpu1,gpu1deny")
        set_conf_keys(c, {"SchedulerParameters": "bf_interval=1,bf_resolution=1",
                          "AccountingStorageEnforce": "associations,limits,qos,safe",
                          "PreemptType": "preempt/partition_prio", "PreemptMode": "REQUEUE",
                          # TRES= names the GPUs only when tracked, as Slurm's
                          "AccountingStorageTRES": "gres/gpu,gres/gpu:h100"})
        with open(c.conf, "a") as f:   # low and high: preemption (the default is debug)
            f.write("PartitionName=low Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE\n"
                    "PartitionName=high Nodes=ALL PriorityTier=10\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        yield c
    finally:
        stop_cluster(c)


def empty(c):
    """No job left, both nodes idle (sinfo -N lists a node per partition)."""
    cancel_all(c, wait_idle=False)

    def idle():
        r = c.run(["sinfo", "-h", "-N", "-p", "debug", "-o", "%N %t"])
        return r.rc == 0 and r.out.split() == ["n1", "idle", "n2", "idle"]
    c.wait_until("both nodes idle", idle)


@pytest.fixture
def clean(c):
    empty(c)
    yield c
    empty(c)


def submit(c, *args, user=None):
    return c.sbatch("-o", "/dev/null", *args, user=user)


def refused(c, *args):
    r = c.run(["sbatch", "-o", "/dev/null", *args, "--wrap", "true"])
    assert r.rc == 1, r
    return r.err


def detail(c, job):
    """scontrol -d show job: (its fields, [(nodes, GRES=) of each node line])."""
    r = c.run(["scontrol", "-d", "show", "job", str(job)])
    assert r.rc == 0, r
    kv = dict(re.findall(r"(\w[\w/:]*)=(\S*)", r.out))
    nodes = re.findall(r"^\s+Nodes=(\S+) CPU_IDs=(\S+) Mem=(\d+) GRES=(\S*)$", r.out, re.M)
    return kv, nodes


def gres_used(c, node):
    r = c.run(["scontrol", "-d", "show", "node", node])
    assert r.rc == 0, r
    return re.search(r"GresUsed=(\S+)", r.out).group(1)


def env_of(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def batch_env(c, job, path):
    assert c.wait_done(job) == "COMPLETED", read(path)
    return env_of(read(path))


def env_script(c, name, *directives):
    """A batch script printing the GPU variables (and then whatever srun prints)."""
    lines = ["#!/bin/bash", *[f"#SBATCH {d}" for d in directives]]
    lines += [f'echo "{v}=${{{v}-(unset)}}"' for v in GPU_VARS]
    return write_script(os.path.join(c.workdir(), name), "\n".join(lines) + "\n")


def test_gres_gpu_1_batch_env(clean):
    c = clean
    out = os.path.join(c.workdir(), "gres1.out")
    script = env_script(c, "gres1.sh", "--gres=gpu:1", f"--output={out}")
    with open(script, "a") as f:
        f.write(f"{HOLD}\n")
    job = c.sbatch(script)
    c.wait_state(job, "RUNNING")
    kv, nodes = detail(c, job)
    assert kv["TresPerNode"] == "gres:gpu:1"
    assert kv["TRES"] == "cpu=1,node=1,billing=1,gres/gpu=1,gres/gpu:h100=1"
    assert kv["JOB_GRES"] == "gpu:h100:1"
    assert nodes == [("n1", "0", "0", "gpu:h100:1(IDX:0)")]
    assert gres_used(c, "n1") == "gpu:h100:1(IDX:0)"
    assert gres_used(c, "n2") == "gpu:h100:0(IDX:N/A)"
    # the node's TRES name the GPUs as the job's TRES= does
    r = c.run(["scontrol", "show", "node", "n1"])
    assert re.search(r"CfgTRES=cpu=4,mem=\d+M,billing=4,gres/gpu=2,gres/gpu:h100=2\n", r.out), r
    assert "AllocTRES=cpu=1,gres/gpu=1,gres/gpu:h100=1\n" in r.out, r
    c.wait_until("the batch shell's output", lambda: os.path.exists(out) and "ON_NODE" in read(out))
    env = env_of(read(out))
    assert [env[v] for v in GPU_VARS] == ["0", "0", "1"]
    assert c.run(["scancel", str(job)]).rc == 0
    c.wait_done(job)
    c.wait_until("GPU 0 free", lambda: gres_used(c, "n1") == "gpu:h100:0(IDX:N/A)")


@pytest.mark.parametrize("opts,tres_key,tres,gpus,want", [
    # --gpus=3 on two 2-GPU nodes: both of one, one of the other
    (["--gpus=3"], "TresPerJob", "gres:gpu:3", 3,
     [("n1", "gpu:h100:2(IDX:0-1)"), ("n2", "gpu:h100:1(IDX:0)")]),
    (["--gpus-per-node=2", "-N2"], "TresPerNode", "gres:gpu:2", 4,
     [("n[1-2]", "gpu:h100:2(IDX:0-1)")]),
    (["--gpus-per-task=1", "-n4"], "TresPerTask", "gres:gpu:1", 4,
     [("n[1-2]", "gpu:h100:2(IDX:0-1)")]),
    (["--gpus=h100:1"], "TresPerJob", "gres:gpu:h100:1", 1, [("n1", "gpu:h100:1(IDX:0)")]),
])
def test_placement(clean, opts, tres_key, tres, gpus, want):
    c = clean
    job = submit(c, *opts, "--wrap", HOLD)
    c.wait_state(job, "RUNNING")
    kv, nodes = detail(c, job)
    assert kv[tres_key] == tres
    assert [(n, g) for n, _, _, g in nodes] == want
    assert kv["TRES"].endswith(f",gres/gpu={gpus},gres/gpu:h100={gpus}"), kv["TRES"]


def test_batch_env_on_two_nodes(clean):
    """The batch shell has its node's GPUs (SLURM_JOB_GPUS: global IDs
    there); srun's tasks have their node's."""
    c = clean
    out = os.path.join(c.workdir(), "gpus3.out")
    script = env_script(c, "gpus3.sh", "--gpus=3", f"--output={out}")
    with open(script, "a") as f:
        f.write('srun bash -c \'echo "task $SLURM_PROCID $SLURMD_NODENAME '
                '$CUDA_VISIBLE_DEVICES $SLURM_GPUS_ON_NODE"\'\n')
    job = c.sbatch(script)
    env = batch_env(c, job, out)
    assert [env[v] for v in GPU_VARS] == ["0,1", "0,1", "2"]
    tasks = sorted(line.split()[1:] for line in read(out).splitlines()
                   if line.startswith("task "))
    assert tasks == [["0", "n1", "0,1", "2"], ["1", "n2", "0", "1"]]


def test_gpu_options_reach_the_script_and_its_srun(clean):
    """sbatch(1)'s output variables of the GPU options; srun in the script
    reads them back, so --gpus-per-task binds each task to its own GPU."""
    c = clean
    out = os.path.join(c.workdir(), "pertask.out")
    job = c.sbatch("-o", out, "-n4", "--gpus-per-task=1", "--cpus-per-gpu=1",
                   "--mem-per-gpu=10", "--wrap",
                   'env | grep -E "^SLURM_(GPUS_PER_TASK|CPUS_PER_GPU|MEM_PER_GPU)="; '
                   'srun bash -c "echo task \\$SLURM_PROCID \\$SLURMD_NODENAME '
                   '\\$CUDA_VISIBLE_DEVICES"')
    assert c.wait_done(job) == "COMPLETED", read(out)
    lines = read(out).splitlines()
    env = env_of("\n".join(line for line in lines if "=" in line))
    assert env == {"SLURM_GPUS_PER_TASK": "1", "SLURM_CPUS_PER_GPU": "1",
                   "SLURM_MEM_PER_GPU": "10"}, lines
    assert sorted(line.split()[1:] for line in lines if line.startswith("task ")) == [
        ["0", "n1", "0"], ["1", "n1", "1"], ["2", "n2", "0"], ["3", "n2", "1"]], lines


@pytest.mark.parametrize("opts,err", [
    (["--gres=gpu:a100:1"], NODE_CONFIG),        # no node has the type (Slurm 22.05 says so)
    (["--gres=fpga:1"], "sbatch: error: Invalid generic resource (gres) specification\n"),
    (["--gres=gpu:3"], NODE_CONFIG),             # more than a node has
    (["--gpus=5"], NODE_CONFIG),                 # more than the cluster has
    (["--gpus-per-task=1", "-n5"], NODE_CONFIG),
    (["--gpus=4", "-N1"], NODE_CONFIG),
    (["--gpus-per-node=2", "--cpus-per-gpu=4"], NODE_CONFIG),      # 8 CPUs on a node
    (["--gpus=1", "--mem-per-gpu=1000000"], NODE_CONFIG),          # more memory than a node
])
def test_refused_at_submit(c, opts, err):
    assert refused(c, *opts) == err


def test_gpu_job_waits_for_gpus_not_cpus(clean):
    """All four GPUs held by a 2-CPU job: a GPU job pends (Resources) while
    a CPU-only job runs beside it; sbatch --test-only and squeue --start
    give the hog's end; the GPU job starts once the GPUs are freed."""
    c = clean
    hog = submit(c, "--gpus-per-node=2", "-N2", "-t", "2", "--wrap", HOLD)
    c.wait_state(hog, "RUNNING")
    hog_start = time.time()
    out = os.path.join(c.workdir(), "waiter.out")
    waiter = c.sbatch("-o", out, "--gres=gpu:1", "-t", "1", "--wrap",
                      'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; sleep 300')
    cpu_job = submit(c, "-n2", "-t", "1", "--wrap", HOLD)
    c.wait_state(cpu_job, "RUNNING", timeout=20)   # the main pass or backfill (bf_interval=1)
    wait_reason(c, waiter, "Resources")
    assert c.job_state(waiter) == "PENDING"
    # pending, TRES= is what it asks (Slurm's request), --mem-per-gpu too
    asks = submit(c, "--gpus=3", "--mem-per-gpu=10", "--wrap", "true")
    assert c.job_state(asks) == "PENDING"
    assert c.show_job(asks)["TRES"] == "cpu=1,mem=30M,node=1,billing=1,gres/gpu=3"
    assert c.show_job(waiter)["TRES"] == "cpu=1,node=1,billing=1,gres/gpu=1"
    assert c.run(["scancel", str(asks)]).rc == 0

    # the start the backfill plan gives it: the hog's limit, 2 minutes on
    def start():
        text = squeue_field(c, waiter, "%S")
        return text not in ("N/A", "") and text
    text = c.wait_until("squeue --start's estimate", start, timeout=15)
    est = time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    assert hog_start + 100 <= est <= hog_start + 140, (text, hog_start)
    r = c.run(["squeue", "--start", "-h", "-j", str(waiter)])
    assert r.rc == 0 and text in r.out and "(Resources)" in r.out, r
    r = c.run(["sbatch", "--test-only", "--gres=gpu:2", "--wrap", "true"])
    m = re.fullmatch(r"sbatch: Job \d+ to start at (\S+) using 1 processors on nodes (n[12]) "
                     r"in partition debug\n", r.err)
    assert r.rc == 0 and m, r
    est = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
    assert hog_start + 100 <= est <= hog_start + 140, (r.err, hog_start)

    assert c.run(["scancel", str(hog)]).rc == 0
    c.wait_state(waiter, "RUNNING", timeout=20)
    kv, nodes = detail(c, waiter)
    assert nodes[0][3] == "gpu:h100:1(IDX:0)"
    c.wait_until("the waiter's output", lambda: os.path.exists(out) and "CUDA" in read(out))
    assert read(out) == "CUDA_VISIBLE_DEVICES=0\n"


def test_cpus_and_mem_per_gpu(clean):
    c = clean
    job = submit(c, "--gpus=2", "--cpus-per-gpu=2", "--mem-per-gpu=100", "--wrap", HOLD)
    c.wait_state(job, "RUNNING")
    kv, nodes = detail(c, job)
    assert kv["NumCPUs"] == "4"
    assert kv["CpusPerTres"] == "gres:gpu:2" and kv["MemPerTres"] == "gres:gpu:100"
    assert nodes == [("n1", "0-3", "200", "gpu:h100:2(IDX:0-1)")]
    assert kv["TRES"] == "cpu=4,mem=200M,node=1,billing=4,gres/gpu=2,gres/gpu:h100=2"
    r = c.run(["scontrol", "show", "node", "n1"])
    assert "AllocMem=200 " in r.out and "CPUAlloc=4 " in r.out, r
    # one GPU, one CPU each: 1 GPU and 2 CPUs
    one = submit(c, "--gpus=1", "--cpus-per-gpu=2", "--wrap", HOLD)
    c.wait_state(one, "RUNNING")
    kv, nodes = detail(c, one)
    assert kv["NumCPUs"] == "2" and nodes == [("n2", "0-1", "0", "gpu:h100:1(IDX:0)")]


@pytest.mark.parametrize("opts,tasks,tres_key,tres", [
    # GPUs asked, no --ntasks: N tasks per GPU
    (["--ntasks-per-gpu=2", "--gpus=2"], "4", "TresPerJob", "gres:gpu:2"),
    (["--ntasks-per-gpu=2", "--gpus-per-node=1", "-N2"], "4", "TresPerNode", "gres:gpu:1"),
    # --ntasks, no GPUs: the type-less GPUs they need
    (["--ntasks-per-gpu=2", "-n3"], "3", "TresPerJob", "gres:gpu:2"),
])
def test_ntasks_per_gpu(clean, opts, tasks, tres_key, tres):
    c = clean
    job = submit(c, *opts, "--wrap", HOLD)
    c.wait_state(job, "RUNNING")
    kv, nodes = detail(c, job)
    assert (kv["NumTasks"], kv[tres_key]) == (tasks, tres)
    gpus = int(tres.rsplit(":", 1)[1]) * (2 if tres_key == "TresPerNode" else 1)
    assert kv["TRES"].endswith(f",gres/gpu={gpus},gres/gpu:h100={gpus}"), kv["TRES"]


def test_ntasks_per_gpu_refused_with_gpus_per_task(c):
    assert refused(c, "--ntasks-per-gpu=1", "--gpus-per-task=1", "-n1") == (
        "sbatch: error: Batch job submission failed: --ntasks-per-gpu is not compatible with "
        "--gpus-per-task, --gpus-per-socket, --ntasks-per-node or a node range\n")


# --gpus is the job's total (sbatch(1): "the total number of GPUs required
# for the job"), what --gpus-per-node/-task give counted in it.
@pytest.mark.parametrize("opts,want", [
    (["--gpus=2", "--gpus-per-node=1", "-N2"], [("n[1-2]", "gpu:h100:1(IDX:0)")]),
    (["--gpus=1", "--gpus-per-task=1", "-n1"], [("n1", "gpu:h100:1(IDX:0)")]),
])
def test_gpus_is_the_jobs_total(clean, opts, want):
    c = clean
    job = submit(c, *opts, "--wrap", HOLD)
    c.wait_state(job, "RUNNING")
    assert [(n, g) for n, _, _, g in detail(c, job)[1]] == want


def test_cpus_per_gpu_spreads_the_gpus(clean):
    c = clean
    job = submit(c, "--gpus=2", "--cpus-per-gpu=3", "--wrap", HOLD)
    c.wait_state(job, "RUNNING")
    kv, nodes = detail(c, job)
    assert kv["NumCPUs"] == "6"
    assert [(n, g) for n, _, _, g in nodes] == [("n[1-2]", "gpu:h100:1(IDX:0)")]


def test_squeue_shows_the_request(clean):
    c = clean
    a = submit(c, "--gres=gpu:1", "--wrap", HOLD)
    b = submit(c, "--gpus-per-task=1", "-n1", "--wrap", HOLD)
    d = submit(c, "--gpus=1", "--wrap", HOLD)
    plain = submit(c, "--wrap", HOLD)
    for job in (a, b, d, plain):
        c.wait_state(job, "RUNNING")
    assert squeue_field(c, a, "%b") == "gres:gpu:1"
    assert squeue_field(c, b, "%b") == "N/A"
    assert squeue_field(c, plain, "%b") == "N/A"
    r = c.run(["squeue", "-h", "-j", f"{a},{b},{d}", "-S", "i",
               "-O", "JobID:6,tres-per-node:14,tres-per-task:14,tres-per-job:14"])
    assert r.rc == 0, r
    assert [line.split() for line in r.out.splitlines()] == [
        [str(a), "gres:gpu:1", "N/A", "N/A"], [str(b), "N/A", "gres:gpu:1", "N/A"],
        [str(d), "N/A", "N/A", "gres:gpu:1"]]
    # tres-alloc: scontrol's TRES=
    r = c.run(["squeue", "-h", "-j", str(a), "-O", "tres-alloc:60"])
    assert r.rc == 0 and r.out.split() == ["cpu=1,node=1,billing=1,gres/gpu=1,gres/gpu:h100=1"], r


def test_limits_on_gres_gpu(clean):
    """sacctmgr MaxTRESPerJob=gres/gpu=1 (QOS) and MaxTRES=gres/gpu=1 (the
    user's association) hold a 2-GPU job with Slurm's reasons; a QOS with
    DenyOnLimit refuses it."""
    c = clean
    qos_held = submit(c, "--qos=gpu1", "--gres=gpu:2", "--wrap", HOLD)
    wait_reason(c, qos_held, "QOSMaxGRESPerJob")
    ok = submit(c, "--qos=gpu1", "--gres=gpu:1", "--wrap", HOLD)
    c.wait_state(ok, "RUNNING")
    assert refused(c, "--qos=gpu1deny", "--gres=gpu:2") == POLICY
    sacctmgr(c, "modify", "user", "root", "set", "MaxTRES=gres/gpu=1")
    try:
        assoc_held = submit(c, "--gpus=2", "--wrap", HOLD)
        wait_reason(c, assoc_held, "AssocMaxGRESPerJob")
    finally:
        sacctmgr(c, "modify", "user", "root", "set", "MaxTRES=gres/gpu=-1")
    c.wait_state(assoc_held, "RUNNING", timeout=20)
    assert c.job_state(qos_held) == "PENDING"


def test_preempted_job_gives_its_gpus_back(clean):
    """A high-tier GPU job requeues the low one holding every GPU, gets
    GPU 0; the low one runs again, with all four, once it ends."""
    c = clean
    low = submit(c, "-p", "low", "--gpus-per-node=2", "-N2", "--wrap", HOLD)
    c.wait_state(low, "RUNNING")
    high = submit(c, "-p", "high", "--gres=gpu:1", "--wrap", HOLD)
    c.wait_state(high, "RUNNING", timeout=30)
    assert c.job_state(low) == "PENDING"
    assert detail(c, high)[1][0][3] == "gpu:h100:1(IDX:0)"
    assert c.run(["scancel", str(high)]).rc == 0
    c.wait_state(low, "RUNNING", timeout=30)
    kv, nodes = detail(c, low)
    assert kv["Restarts"] == "1" and nodes[0][3] == "gpu:h100:2(IDX:0-1)"


def test_restart_keeps_the_devices(clean):
    """kill -9 of the controller while a job holds GPU 0 of n1: once it is
    back, a new job on n1 gets GPU 1, and a third waits."""
    c = clean
    first = submit(c, "-w", "n1", "--gres=gpu:1", "--wrap", HOLD)
    c.wait_state(first, "RUNNING")
    os.kill(c.ctld_pid(), signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the restarted controller", c.ping_ok, timeout=30)
    assert c.job_state(first) == "RUNNING"
    assert detail(c, first)[1][0][3] == "gpu:h100:1(IDX:0)"
    assert gres_used(c, "n1") == "gpu:h100:1(IDX:0)"
    out = os.path.join(c.workdir(), "second.out")
    second = c.sbatch("-o", out, "-w", "n1", "--gres=gpu:1", "--wrap",
                      'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"')
    env = batch_env(c, second, out)
    assert env["CUDA_VISIBLE_DEVICES"] == "1"
    assert detail(c, second)[1][0][3] == "gpu:h100:1(IDX:1)"
    holder = submit(c, "-w", "n1", "--gres=gpu:1", "--wrap", HOLD)
    c.wait_state(holder, "RUNNING")
    third = submit(c, "-w", "n1", "--gres=gpu:1", "--wrap", "true")
    wait_reason(c, third, "Resources")


DDP = r"""#!/bin/bash
#SBATCH --job-name=ddp-train
#SBATCH --nodes=2
#SBATCH --gpus-per-node=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-gpu=1
#SBATCH --time=00:05:00
#SBATCH --output=%x-%j.out

# the usual torchrun / DeepSpeed launcher preamble
export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=$((29500 + SLURM_JOB_ID % 1000))
export WORLD_SIZE=$((SLURM_NNODES * SLURM_NTASKS_PER_NODE))
echo "batch $SLURM_JOB_NUM_NODES $SLURM_NTASKS $CUDA_VISIBLE_DEVICES $SLURM_GPUS_ON_NODE $MASTER_ADDR $WORLD_SIZE"
srun python3 train.py
"""
TRAIN = """import os
rank, local_rank = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_LOCALID"])
devices = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
assert local_rank < len(devices), devices     # torch.cuda.set_device(local_rank)
print("rank", rank, local_rank, os.environ["WORLD_SIZE"], os.environ["SLURMD_NODENAME"],
      ",".join(devices), os.environ["MASTER_ADDR"], flush=True)
"""


def test_deepspeed_style_script(clean, users):
    c = clean
    work = c.workdir("herdu1")
    write_script(os.path.join(work, "train.sh"), DDP, owner="herdu1")
    write_script(os.path.join(work, "train.py"), TRAIN, owner="herdu1")
    job = c.sbatch("train.sh", user="herdu1", cwd=work)
    out = os.path.join(work, f"ddp-train-{job}.out")
    assert c.wait_done(job) == "COMPLETED", read(out) if os.path.exists(out) else c.logs()
    kv, nodes = detail(c, job)
    assert kv["NumCPUs"] == "4" and kv["NumTasks"] == "4"
    assert nodes == [("n[1-2]", "0-1", "0", "gpu:h100:2(IDX:0-1)")]
    lines = read(out).splitlines()
    assert lines[0] == "batch 2 4 0,1 2 n1 4", lines
    ranks = sorted(line.split()[1:] for line in lines[1:] if line.startswith("rank "))
    assert ranks == [["0", "0", "4", "n1", "0,1", "n1"], ["1", "1", "4", "n1", "0,1", "n1"],
                     ["2", "0", "4", "n2", "0,1", "n1"], ["3", "1", "4", "n2", "0,1", "n1"]], lines


def test_cpus_near_the_gpus(clean):
    """gres.conf Cores=: a GPU job gets the free CPUs its GPUs are close to
    (scontrol -d CPU_IDs=, the batch shell's affinity);
    --gres-flags=disable-binding takes the lowest free ones."""
    c = clean
    path = os.path.join(c.dir, "gres.conf")
    before = read(path)
    d = f"{c.dir}/dev"
    with open(path, "w") as f:
        f.write(f"NodeName=n1 Name=gpu Type=h100 File={d}/n1/nvidia0 Cores=2-3\n"
                f"NodeName=n1 Name=gpu Type=h100 File={d}/n1/nvidia1 Cores=0-1\n"
                f"NodeName=n2 Name=gpu Type=h100 File={d}/n2/nvidia[0-1]\n")
    try:
        assert c.run(["scontrol", "reconfigure"]).rc == 0
        c.wait_until("n1's Cores=", lambda: "Gres=gpu:h100:2(S:0-3)" in
                     c.run(["scontrol", "show", "node", "n1"]).out)
        first = submit(c, "-w", "n1", "--gres=gpu:1", "--wrap", HOLD)
        c.wait_state(first, "RUNNING")
        assert detail(c, first)[1] == [("n1", "2", "0", "gpu:h100:1(IDX:0)")]
        out = os.path.join(c.workdir(), "near.out")
        second = c.sbatch("-o", out, "-w", "n1", "-c2", "--gres=gpu:1", "--wrap",
                          "grep Cpus_allowed_list /proc/self/status; sleep 300")
        c.wait_state(second, "RUNNING")
        assert detail(c, second)[1] == [("n1", "0-1", "0", "gpu:h100:1(IDX:1)")]
        c.wait_until("the affinity", lambda: os.path.exists(out) and "Cpus" in read(out))
        assert read(out).split() == ["Cpus_allowed_list:", "0-1"]
        assert c.run(["scancel", str(second)]).rc == 0
        c.wait_done(second)
        third = submit(c, "-w", "n1", "-c1", "--gres=gpu:1", "--gres-flags=disable-binding",
                       "--wrap", HOLD)
        c.wait_state(third, "RUNNING")
        assert detail(c, third)[1] == [("n1", "0", "0", "gpu:h100:1(IDX:1)")]
    finally:
        with open(path, "w") as f:
            f.write(before)
        c.run(["scontrol", "reconfigure"])
        c.wait_until("n1's Cores= gone", lambda: re.search(
            r"Gres=(\S+)", c.run(["scontrol", "show", "node", "n1"]).out).group(1) == "gpu:h100:2")
