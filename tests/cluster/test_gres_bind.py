"""GPU binding and isolation in herdstepd (doc/gres.md section 3), driven
directly as test_stepd_direct.py does: the test writes LAUNCH objects with
"gres" (the job's devices here) and the step's "gres", "gpu_bind" and
"gpus_per_task", and is the step's srun.  The GPUs are fake: character
devices made with mknod (major 195, NVIDIA's), which with no driver behind
them open with ENXIO when allowed and fail with EPERM when the device cgroup
hides them (ConstrainDevices=yes)."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import start_cluster, stop_cluster
from test_stepd_direct import (HERDSTEPD, JOB, STDERR, STDOUT, USER, Srun, Stepd, env_of,
                               launch_obj)

NGPUS = 4
VARS = ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
        "GPU_DEVICE_ORDINAL", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE",
        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
PROBE = r"""
import errno, os, sys
for k in %r:
    print(k + "=" + os.environ.get(k, "(unset)"))
for p in sys.argv[1:]:
    try:
        os.close(os.open(p, os.O_RDONLY))
        r = "ok"
    except OSError as e:
        r = errno.errorcode[e.errno]
    print("open " + os.path.basename(p) + " " + r)
""" % (VARS,)


@pytest.fixture(scope="module")
def cluster(users):
    c = start_cluster(1)
    try:
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture(scope="module")
def gpus():
    """/tmp/herd-gpus-XXX/nvidia0..3: root's directory, devices anyone may open."""
    d = tempfile.mkdtemp(prefix="herd-gpus-")
    os.chmod(d, 0o755)
    try:
        for i in range(NGPUS):
            p = os.path.join(d, f"nvidia{i}")
            try:
                os.mknod(p, 0o666 | 0o020000, os.makedev(195, i))
            except PermissionError as e:
                pytest.skip(f"cannot make device files here (mknod: {e})")
            os.chmod(p, 0o666)
        with open(os.path.join(d, "probe.py"), "w") as f:
            f.write(PROBE)
        os.chmod(os.path.join(d, "probe.py"), 0o644)
        yield d
    finally:
        shutil.rmtree(d)


def records(gpus, indices, **extra):
    return [dict({"name": "gpu", "type": "h100", "index": i,
                  "file": os.path.join(gpus, f"nvidia{i}"),
                  "cores": "0" if i < 2 else "1"}, **extra) for i in indices]


def probe_argv(gpus):
    return ["/usr/bin/python3", os.path.join(gpus, "probe.py")] + \
        [os.path.join(gpus, f"nvidia{i}") for i in range(NGPUS)]


def run(c, job_gres, conf=None, **step):
    """One step (tasks 0 and 1 of 4 here); {task: {VAR: value, "open nvidiaN": errno}}."""
    srun = Srun()
    launch = launch_obj(c, srun, **step)
    if job_gres is not None:
        launch["gres"] = job_gres
    sd = Stepd(c, launch, conf)
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.read_all()
        assert sd.wait(30) == 0
    finally:
        sd.kill()
        srun.close()
    out = {}
    for task in (0, 1):
        text = srun.stream(STDOUT, task)
        got = env_of(text)
        for line in text.splitlines():
            if line.startswith("open "):
                _, name, r = line.split()
                got["open " + name] = r
        got["stderr"] = srun.stream(STDERR, task)
        out[task] = got
    return out


# The matrix: the job has GPUs 0-3 here; what each of the two tasks sees,
# without ConstrainDevices (global indices).  Tasks 0 and 1 of a 4-task step.
@pytest.mark.parametrize("step,want", [
    ({}, ["0,1,2,3", "0,1,2,3"]),
    ({"gpus_per_task": 1}, ["0", "1"]),
    ({"gpus_per_task": 2}, ["0,1", "2,3"]),
    ({"gpus_per_task": 1, "gpu_bind": "none"}, ["0,1,2,3", "0,1,2,3"]),
    ({"gpu_bind": "single:2"}, ["0", "0"]),
    ({"gpu_bind": "map_gpu:3,1"}, ["3", "1"]),
    ({"gpu_bind": "mask_gpu:0x5,0xa"}, ["0,2", "1,3"]),
    ({"gpu_bind": "closest", "cpus": "0-1", "cpu_bind": "map_cpu:0,1"}, ["0,1", "2,3"]),
    ({"gres": [{"name": "gpu", "index": 2}, {"name": "gpu", "index": 3}],
      "gpu_bind": "per_task:1"}, ["2", "3"]),
])
def test_task_env_matrix(cluster, gpus, step, want):
    if "cpus" in step and os.cpu_count() < 2:
        pytest.skip("closest needs 2 CPUs to bind two tasks apart")
    job = records(gpus, range(NGPUS))
    got = run(cluster, job, argv=probe_argv(gpus), **step)
    step_gpus = ",".join(str(g["index"]) for g in step.get("gres", job))
    for task in (0, 1):
        e = got[task]
        for var in ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
                    "GPU_DEVICE_ORDINAL"):
            assert e[var] == want[task], (task, var, e)
        assert e["SLURM_STEP_GPUS"] == want[task], e   # the task's, global (Slurm 22.05)
        assert e["SLURM_GPUS_ON_NODE"] == str(len(step_gpus.split(","))), e
        assert e["SLURM_JOB_GPUS"] == "(unset)", e
        # not constrained: every device file opens (ENXIO: no driver behind it)
        assert [e[f"open nvidia{i}"] for i in range(NGPUS)] == ["ENXIO"] * NGPUS, e


def test_flags_verbose_and_bad_map(cluster, gpus):
    job = records(gpus, [1], flags="amd_gpu_env") + records(gpus, [3], flags="nvidia_gpu_env")
    got = run(cluster, job, argv=probe_argv(gpus), gpu_bind="verbose,map_gpu:9")
    for task in (0, 1):
        e = got[task]
        # map_gpu:9 names no GPU of the step: the first (1), which sets only ROCR_
        assert e["ROCR_VISIBLE_DEVICES"] == "1" and e["CUDA_VISIBLE_DEVICES"] == "(unset)", e
        assert e["SLURM_STEP_GPUS"] == "1", e
        assert f"gpu-bind: task {task} (local {task}): GPUs 1 of the step's 1,3: " \
               "ROCR_VISIBLE_DEVICES=1\n" in e["stderr"], e["stderr"]
    # srun's own CUDA_VISIBLE_DEVICES is not the step's when the step has no GPU
    got = run(cluster, job, argv=probe_argv(gpus), gres=[],
              env=["PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=0"])
    assert got[0]["CUDA_VISIBLE_DEVICES"] == "(unset)" and \
        got[0]["SLURM_STEP_GPUS"] == "(unset)", got[0]
    # no GRES at all: left as srun gave it
    got = run(cluster, None, argv=probe_argv(gpus),
              env=["PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=0"])
    assert got[0]["CUDA_VISIBLE_DEVICES"] == "0", got[0]


def test_mps_share(cluster, gpus):
    job = [{"name": "mps", "index": 2, "count": 25, "total": 100,
            "file": os.path.join(gpus, "nvidia2")}]
    got = run(cluster, job, argv=probe_argv(gpus))
    assert got[0]["CUDA_VISIBLE_DEVICES"] == "2", got[0]
    assert got[0]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "25", got[0]


def test_hostile_launch_refused(cluster, gpus):
    """A malformed "gres" or --gpu-bind fails the launch with a sentence."""
    for bad_step, bad_job, why in [
        ({"gpu_bind": "map_gpu:0*99999999"}, records(gpus, [0]),
         "launch: step.gpu_bind: Invalid --gpu-bind argument: map_gpu:0*99999999"),
        ({}, [{"name": "gpu", "index": 0}] * 2, "launch: gres[1]: GPU 0 given twice"),
        ({}, [{"name": "gpu", "index": 1 << 40}], "launch: gres[0]: index/count/total: out of range"),
        ({}, {"name": "gpu"}, "launch: gres: expected an array of at most 1024 records"),
        ({"gres": [{"name": "gpu", "index": 5}]}, records(gpus, [0]),
         "launch: step.gres[0]: gpu 5 is not the job's"),
    ]:
        launch = launch_obj(cluster, None, argv=["/bin/true"], **bad_step)
        launch["gres"] = bad_job
        sd = Stepd(cluster, launch)
        try:
            assert sd.ready() == why
            assert sd.wait(10) != 0
        finally:
            sd.kill()


def cgroup_conf_for(version):
    """cgroup.conf text for ConstrainDevices on cgroup v1 or v2 here, or None."""
    magic = {"cgroup": 1, "cgroup2": 2}
    def fstype(p):
        try:
            with open("/proc/self/mounts") as f:
                for line in f:
                    dev, mnt, typ = line.split()[:3]
                    if mnt == p:
                        return magic.get(typ)
        except OSError:
            pass
        return None
    if os.geteuid() != 0:
        return None
    if version == 1 and fstype("/sys/fs/cgroup/devices") == 1:
        return "ConstrainDevices=yes\n"
    if version == 2:
        for mnt in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
            if fstype(mnt) == 2:
                return f"ConstrainDevices=yes\nCgroupMountpoint={mnt}\nCgroupPlugin=cgroup/v2\n"
    return None


@pytest.fixture(params=[1, 2], ids=["v1", "v2"])
def constrain_devices(request, cluster):
    text = cgroup_conf_for(request.param)
    if text is None:
        pytest.skip(f"no writable cgroup v{request.param} here (devices controller / cgroup2 mount)")
    path = os.path.join(cluster.dir, "cgroup.conf")
    with open(path, "w") as f:
        f.write(text)
    try:
        yield request.param
    finally:
        os.unlink(path)


def test_devices_isolated(cluster, gpus, constrain_devices):
    """The job has GPUs 1 and 2, the step GPU 2 only: the step's tasks open
    GPU 2 (ENXIO) and nothing else (EPERM); CUDA_VISIBLE_DEVICES counts from
    0 among the visible ones, SLURM_STEP_GPUS is global."""
    job = records(gpus, [1, 2])
    got = run(cluster, job, argv=probe_argv(gpus), gres=[{"name": "gpu", "index": 2}])
    for task in (0, 1):
        e = got[task]
        assert [e[f"open nvidia{i}"] for i in range(NGPUS)] == \
            ["EPERM", "EPERM", "ENXIO", "EPERM"], e
        assert e["CUDA_VISIBLE_DEVICES"] == "0" and e["SLURM_STEP_GPUS"] == "2", e
    # bound one per task: each task's own cgroup shows only its GPU, as
    # Slurm 22.05 does, so each counts it as 0
    got = run(cluster, job, argv=probe_argv(gpus), gpus_per_task=1)
    for task, mine in ((0, 1), (1, 2)):
        e = got[task]
        assert [e[f"open nvidia{i}"] for i in range(NGPUS)] == \
            ["ENXIO" if i == mine else "EPERM" for i in range(NGPUS)], e
        assert e["CUDA_VISIBLE_DEVICES"] == "0" and e["SLURM_STEP_GPUS"] == str(mine), e
    # map_gpu's IDs are positions among the step's GPUs under ConstrainDevices
    got = run(cluster, job, argv=probe_argv(gpus), gpu_bind="map_gpu:1,0")
    for task, mine in ((0, 2), (1, 1)):
        e = got[task]
        assert [e[f"open nvidia{i}"] for i in range(NGPUS)] == \
            ["ENXIO" if i == mine else "EPERM" for i in range(NGPUS)], e
        assert e["CUDA_VISIBLE_DEVICES"] == "0", e
    # a map naming none of them: the first, and Slurm's complaint on stderr
    got = run(cluster, job, argv=probe_argv(gpus), gpu_bind="map_gpu:7")
    assert got[1]["open nvidia1"] == "ENXIO" and got[1]["open nvidia2"] == "EPERM", got[1]
    assert got[1]["stderr"].startswith(
        "slurmstepd-n1: error: Bind request gpu:map_gpu:7 does not specify any devices within "
        "the allocation for task 1. Binding to the first device in the allocation instead.\n"), \
        got[1]["stderr"]


def test_batch_env_and_devices(cluster, gpus, constrain_devices):
    """The batch shell: SLURM_JOB_GPUS global, CUDA_VISIBLE_DEVICES from 0,
    only the job's devices open."""
    wd = cluster.workdir(USER)
    out = os.path.join(wd, f"gres-batch-v{constrain_devices}.out")
    if os.path.exists(out):
        os.unlink(out)
    launch = launch_obj(cluster, None)
    del launch["step"]
    paths = " ".join(os.path.join(gpus, f"nvidia{i}") for i in range(NGPUS))
    launch.update(script="#!/bin/sh\nexec /usr/bin/python3 %s/probe.py %s\n" % (gpus, paths),
                  stdout=out, env=["PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=9"],
                  gres=records(gpus, [0, 3]))
    # herdstepd in batch mode on a job directory, as herdd starts it
    jobdir = os.path.join(cluster.root, "steps", "job%05d" % JOB)
    subprocess.run(["rm", "-rf", jobdir], check=True)
    os.makedirs(jobdir, 0o711)
    with open(os.path.join(jobdir, "launch.json"), "w") as f:
        json.dump(launch, f)
    r, w = os.pipe()
    # its stderr (a sanitizer's reports) where stop_cluster looks
    with open(os.path.join(cluster.dir, "log", "herdstepd-direct.out"), "ab") as err:
        proc = subprocess.Popen([HERDSTEPD, "-f", cluster.conf, "-N", "n1", "-r", str(w), jobdir],
                                pass_fds=(w,), stdin=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
    os.close(w)
    try:
        with os.fdopen(r) as ready:
            assert ready.read().strip() == "ok"
        proc.wait(30)   # the controller does not know job 77: its answer ends it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with open(out) as f:
        text = f.read()
    e = env_of(text)
    assert e["SLURM_JOB_GPUS"] == "0,3" and e["CUDA_VISIBLE_DEVICES"] == "0,1", text
    assert e["SLURM_GPUS_ON_NODE"] == "2" and e["SLURM_STEP_GPUS"] == "(unset)", text
    for i, want in enumerate(["ENXIO", "EPERM", "EPERM", "ENXIO"]):
        assert f"open nvidia{i} {want}\n" in text, text


def test_section1_records(cluster, gpus):
    """Records in the form herdd registers them (doc/gres.md section 1:
    "links", "count", "flags" as GRES_F_* bits): nvidia_gpu_env (2) and
    opencl_env (8) set CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL only."""
    job = [{"name": "gpu", "type": "h100", "index": i, "file": os.path.join(gpus, f"nvidia{i}"),
            "cores": "", "links": "", "count": 1, "flags": 2 | 8} for i in (0, 2)]
    got = run(cluster, job, argv=probe_argv(gpus), gpus_per_task=1)
    for task, mine in ((0, "0"), (1, "2")):
        e = got[task]
        assert e["CUDA_VISIBLE_DEVICES"] == mine and e["GPU_DEVICE_ORDINAL"] == mine, e
        assert e["ROCR_VISIBLE_DEVICES"] == "(unset)" and e["ZE_AFFINITY_MASK"] == "(unset)", e
