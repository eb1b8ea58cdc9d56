"""Small helpers shared by the user-command tests (test_sbatch, test_squeue,
test_scancel, test_sinfo, test_scontrol): files a job writes, extra
environment for one command, and leaving the shared cluster empty between
tests.  The cluster itself comes from conftest."""
import contextlib
import os
import time

import pytest

from conftest import BIN, COMMANDS

ACTIVE = "PENDING,RUNNING,SUSPENDED,COMPLETING"


def read(path):
    with open(path) as f:
        return f.read()


def run_env(cluster, env, args, **kw):
    """Run args (a list) with extra environment variables set, as root or
    user=...: `env K=V ... args`, Herd's commands by absolute path."""
    args = list(args)
    if args[0] in COMMANDS:
        args[0] = os.path.join(BIN, args[0])
    return cluster.run(["env", *[f"{k}={v}" for k, v in env.items()], *args], **kw)


def wait_text(cluster, path, text, timeout=30):
    """Wait until the file at path exists and contains text; returns its content."""
    def has():
        return os.path.exists(path) and text in read(path) and read(path)
    return cluster.wait_until(f"{text!r} in {path}", has, timeout=timeout, interval=0.1)


def active_ids(cluster):
    r = cluster.run(["squeue", "-h", "-t", ACTIVE, "-o", "%A"])   # an array: its meta record
    assert r.rc == 0, r
    return [int(x) for x in r.out.split()]


def cancel_all(cluster, wait_idle=True):
    """Cancel every job still queued or running, as root, and wait until the
    queue is empty (and, by default, every node idle again)."""
    ids = active_ids(cluster)
    if ids:
        r = cluster.run(["scancel", *map(str, ids)])
        assert r.rc == 0, r
    cluster.wait_until("an empty queue", lambda: not active_ids(cluster), timeout=30)
    if wait_idle:
        cluster.wait_nodes_idle()


def squeue_field(cluster, job_id, fmt, **kw):
    r = cluster.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", fmt], **kw)
    assert r.rc == 0, r
    return r.out.rstrip("\n")


def wait_reason(cluster, job_id, reason, timeout=20):
    """Wait until squeue's %r for the job is reason."""
    def now():
        return squeue_field(cluster, job_id, "%r") == reason
    cluster.wait_until(f"job {job_id} pending for {reason}", now, timeout=timeout, interval=0.1)


def write_script(path, text, owner=None):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    if owner:
        import pwd
        pw = pwd.getpwnam(owner)
        os.chown(path, pw.pw_uid, pw.pw_gid)
    return path


def stays(predicate, seconds=1.0, interval=0.1):
    """True if predicate() holds for the whole period (for "it did not
    start / was not cancelled" checks, kept short)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not predicate():
            return False
        time.sleep(interval)
    return bool(predicate())


@pytest.fixture
def clean(cluster):
    """Each test starts and ends with nothing queued on the module's cluster."""
    cancel_all(cluster)
    yield cluster
    cancel_all(cluster)


@contextlib.contextmanager
def conf_lines(cluster, text):
    """herd.conf with text appended (and scontrol reconfigure) for the
    while of a with block; the file as it was, reconfigured, after."""
    with open(cluster.conf) as f:
        original = f.read()
    with open(cluster.conf, "a") as f:
        f.write(text)
    try:
        r = cluster.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        yield
    finally:
        with open(cluster.conf, "w") as f:
            f.write(original)
        cluster.run(["scontrol", "reconfigure"])
