"""The MPS control daemon herdd runs for a job's `mps` shares (doc/gres.md
section 4), with tests/fake/nvidia-cuda-mps-control standing in for
NVIDIA's: put in a root directory on herdd's PATH, it records each start,
command and end to mps-record.log beside it.  The steps are sent to herdd
directly (LAUNCH_STEP with the job's "gres" records, as the controller will
once it schedules GRES) inside a real batch job, whose herdstepd holds the
job on the node: the daemon lives until the job ends, then gets "quit"."""
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time

import pytest

from conftest import BIN, REPO, Cluster, make_root, stop_cluster
from test_stepd_direct import (LAUNCH_STEP, STDERR, STDOUT, USER, Srun, alive, env_of,
                               herdd_call, launch_obj)

FAKE = os.path.join(REPO, "tests", "fake", "nvidia-cuda-mps-control")
DEFAULT_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture(scope="module")
def fake_dir():
    """A root directory (0755) holding the fake program and its record."""
    d = tempfile.mkdtemp(prefix="herd-mps-")
    os.chmod(d, 0o755)
    shutil.copy(FAKE, os.path.join(d, "nvidia-cuda-mps-control"))
    os.chmod(os.path.join(d, "nvidia-cuda-mps-control"), 0o755)
    rec = os.path.join(d, "mps-record.log")
    open(rec, "w").close()
    os.chmod(rec, 0o666)
    try:
        yield d
    finally:
        shutil.rmtree(d)


@pytest.fixture(scope="module")
def cluster(users, fake_dir):
    c = Cluster(make_root(), 1)
    try:
        c.up(env={"PATH": f"{fake_dir}:{BIN}:{DEFAULT_PATH}"})
    except Exception:
        c.down()
        shutil.rmtree(c.root, ignore_errors=True)
        raise
    try:
        yield c
    finally:
        # no daemon of a job is left either: their environment names the spool
        stop_cluster(c)


def records(fake_dir):
    with open(os.path.join(fake_dir, "mps-record.log")) as f:
        return [json.loads(line) for line in f if line.strip()]


def spool(c):
    return os.path.join(c.dir, "spool", "n1")


def mps_dir(c, job, gpu):
    return os.path.join(spool(c), "mps%05d.%d" % (job, gpu))


def step(c, job, step_id, gres, argv, step_gres=None):
    """One task of a step through herdd; its stdout, stderr."""
    srun = Srun()
    try:
        launch = launch_obj(c, srun, job_id=job, step_id=step_id, task_ids=[0], argv=argv)
        launch["gres"] = gres
        if step_gres is not None:
            launch["step"]["gres"] = step_gres
        r = herdd_call(c, LAUNCH_STEP, {"job_id": job, "step_id": step_id, "launch": launch})
        assert r["rc"] == 0, r
        srun.accept()
        srun.read_all()
        return srun.stream(STDOUT, 0), srun.stream(STDERR, 0)
    finally:
        srun.close()


def batch_job(c):
    job = c.sbatch("--wrap", "sleep 300", user=USER)
    c.wait_state(job, "RUNNING")
    return job


def starts(fake_dir, job):
    return [r for r in records(fake_dir) if r["event"] == "start" and
            f"mps{job:05d}." in r["env"].get("CUDA_MPS_PIPE_DIRECTORY", "")]


MPS2 = [{"name": "mps", "index": 2, "count": 25, "total": 100},
        {"name": "mps", "index": 3, "count": 50, "total": 100}]


def test_daemon_per_job_and_gpu(cluster, fake_dir):
    c = cluster
    pw = pwd.getpwnam(USER)
    job = batch_job(c)
    try:
        client = os.path.join(fake_dir, "nvidia-cuda-mps-control")
        script = f"env; echo get_server_list | {client}"
        out, err = step(c, job, 1, MPS2, ["/bin/sh", "-c", script],
                        step_gres=[{"name": "mps", "index": 2, "count": 25, "total": 100}])
        e = env_of(out)
        d2 = mps_dir(c, job, 2)
        assert e.get("CUDA_MPS_PIPE_DIRECTORY") == d2 + "/pipe", (e, err)
        assert e.get("CUDA_MPS_LOG_DIRECTORY") == d2 + "/log", e
        assert e.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "25", e
        # the daemon's server shows its GPU as 0 (NVIDIA); the others keep
        # the global index (no ConstrainDevices here)
        assert e.get("CUDA_VISIBLE_DEVICES") == "0", e
        assert e.get("ROCR_VISIBLE_DEVICES") == "2", e
        assert err == "", err

        # one daemon per GPU of the job's mps records, as the job's user,
        # with only the GPU and the directories from herdd
        got = {r["env"]["CUDA_VISIBLE_DEVICES"]: r for r in starts(fake_dir, job)}
        assert sorted(got) == ["2", "3"], records(fake_dir)
        for gpu, r in got.items():
            d = mps_dir(c, job, int(gpu))
            assert r["argv"] == ["-d"] and r["uid"] == pw.pw_uid and r["gid"] == pw.pw_gid, r
            assert r["env"] == {"PATH": "/usr/bin:/bin", "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                                "CUDA_VISIBLE_DEVICES": gpu,
                                "CUDA_MPS_PIPE_DIRECTORY": d + "/pipe",
                                "CUDA_MPS_LOG_DIRECTORY": d + "/log"}, r
            assert alive(r["pid"]), r
            for sub in ("", "/pipe", "/log"):
                st = os.lstat(d + sub)
                assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700, (sub, st)
                assert (st.st_uid, st.st_gid) == (pw.pw_uid, pw.pw_gid), (sub, st)
        # the task reached its daemon through the pipe directory
        assert any(r["event"] == "command" and r["command"] == "get_server_list" and
                   r["pid"] == got["2"]["pid"] for r in records(fake_dir)), records(fake_dir)

        # the step is over, the job is not: the daemons stay; a second step
        # uses them (no new start)
        time.sleep(2)
        assert all(alive(r["pid"]) for r in got.values())
        out, _ = step(c, job, 2, MPS2, ["/bin/sh", "-c", "env"])
        assert env_of(out).get("CUDA_MPS_PIPE_DIRECTORY") == d2 + "/pipe"
        assert len(starts(fake_dir, job)) == 2, records(fake_dir)

        # herdd restarts: the new one finds the daemons and stops them at the end
        pid = c.herdd_pid("n1")
        os.kill(pid, 15)
        c.wait_until("herdd gone", lambda: not alive(pid))
        with open(os.path.join(c.dir, "log", "herdd-n1-restart.out"), "ab") as log:
            subprocess.Popen([os.path.join(BIN, "herdd"), "-N", "n1", "-f", c.conf],
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             env={**c.env(), "PATH": f"{fake_dir}:{BIN}:{DEFAULT_PATH}"},
                             start_new_session=True)
        c.wait_until("herdd back", lambda: c.daemon_pids("herdd", "n1"))
        time.sleep(2)
        assert all(alive(r["pid"]) for r in got.values())
    finally:
        c.run(["scancel", str(job)])
    c.wait_done(job)
    # the end of the job: "quit" through each pipe, the daemons leave, the
    # directories go
    c.wait_until("daemons gone", lambda: not any(alive(r["pid"]) for r in got.values()))
    c.wait_until("directories gone", lambda: not os.path.exists(mps_dir(c, job, 2)) and
                 not os.path.exists(mps_dir(c, job, 3)))
    quits = [r for r in records(fake_dir) if r["event"] == "quit"]
    assert {r["pid"] for r in quits} >= {r["pid"] for r in got.values()}, records(fake_dir)


def test_killed_when_it_does_not_quit(cluster, fake_dir):
    c = cluster
    ignore = os.path.join(fake_dir, "ignore-quit")
    open(ignore, "w").close()
    job = batch_job(c)
    try:
        step(c, job, 1, [{"name": "mps", "index": 0, "count": 10, "total": 100}], ["/bin/true"])
        [r] = starts(fake_dir, job)
        c.run(["scancel", str(job)])
        c.wait_done(job)
        t0 = time.time()
        c.wait_until("the daemon killed", lambda: not alive(r["pid"]), timeout=20)
        c.wait_until("its directory gone", lambda: not os.path.exists(mps_dir(c, job, 0)))
        assert any(x["event"] == "command" and x["command"] == "quit" and x["pid"] == r["pid"]
                   for x in records(fake_dir))
        assert not any(x["event"] == "quit" and x["pid"] == r["pid"] for x in records(fake_dir))
        assert time.time() - t0 < 15
    finally:
        os.unlink(ignore)
        c.run(["scancel", str(job)])


def test_no_program_runs_without_mps(cluster, fake_dir):
    c = cluster
    prog = os.path.join(fake_dir, "nvidia-cuda-mps-control")
    hidden = prog + ".hidden"
    os.rename(prog, hidden)
    job = batch_job(c)
    try:
        out, err = step(c, job, 1, [{"name": "mps", "index": 1, "count": 50, "total": 100}],
                        ["/bin/sh", "-c", "env"])
        e = env_of(out)
        assert "CUDA_MPS_PIPE_DIRECTORY" not in e and "CUDA_MPS_LOG_DIRECTORY" not in e, e
        assert e.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "50", e
        assert e.get("CUDA_VISIBLE_DEVICES") == "1", e   # no server renumbers it
        assert not os.path.exists(mps_dir(c, job, 1))
        with open(os.path.join(c.dir, "log", "herdd-n1.log")) as f:
            log = f.read()
        assert f"job {job}: GPU 1 has MPS shares but no nvidia-cuda-mps-control is in " \
               "herdd's PATH" in log, log[-2000:]
    finally:
        os.rename(hidden, prog)
        c.run(["scancel", str(job)])
    c.wait_done(job)


def test_program_others_may_write_is_not_run(cluster, fake_dir):
    """A program group or others may write would run as every job's user:
    it is passed over (no daemon), as a missing one is."""
    c = cluster
    prog = os.path.join(fake_dir, "nvidia-cuda-mps-control")
    os.chmod(prog, 0o775)
    job = batch_job(c)
    try:
        out, _ = step(c, job, 1, [{"name": "mps", "index": 1, "count": 50, "total": 100}],
                      ["/bin/sh", "-c", "env"])
        assert "CUDA_MPS_PIPE_DIRECTORY" not in env_of(out)
        assert starts(fake_dir, job) == []
    finally:
        os.chmod(prog, 0o755)
        c.run(["scancel", str(job)])
    c.wait_done(job)


LAUNCH_JOB = 40


def test_batch_step_holds_the_daemon(cluster, fake_dir):
    """A batch step's LAUNCH_JOB with mps records: the batch shell gets the
    directories, and the daemon goes when the batch step ends (a job ID
    the controller does not know: its JOB_COMPLETE is answered and over)."""
    c = cluster
    job = 4321
    out = os.path.join(c.workdir(USER), "mps-batch.out")
    if os.path.exists(out):
        os.unlink(out)
    launch = launch_obj(c, None, job_id=job)
    del launch["step"]
    launch.update(script="#!/bin/sh\nenv\nsleep 2\n", stdout=out, env=["PATH=/usr/bin:/bin"],
                  gres=[{"name": "mps", "index": 1, "count": 30, "total": 100}])
    r = herdd_call(c, LAUNCH_JOB, {"job_id": job, "launch": launch})
    assert r["rc"] == 0, r
    d = mps_dir(c, job, 1)
    [rec] = c.wait_until("the daemon started", lambda: starts(fake_dir, job))
    c.wait_until("the batch output", lambda: os.path.exists(out) and
                 "CUDA_MPS" in open(out).read())
    e = env_of(open(out).read())
    assert e.get("CUDA_MPS_PIPE_DIRECTORY") == d + "/pipe", e
    assert e.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "30", e
    assert e.get("SLURM_JOB_GPUS") == "1" and e.get("CUDA_VISIBLE_DEVICES") == "0", e
    c.wait_until("the daemon gone", lambda: not alive(rec["pid"]), timeout=20)
    c.wait_until("its directory gone", lambda: not os.path.exists(d))
    assert any(x["event"] == "quit" and x["pid"] == rec["pid"] for x in records(fake_dir))
