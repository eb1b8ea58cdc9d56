"""Cluster-test harness: every test runs the real commands against real daemons
started by `build/bin/herd up`, as root or as the unprivileged users herdu1 and
herdu2, and checks what a user would check.  One cluster per test module
(`cluster` fixture); modules that kill daemons get their own."""
import fcntl
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# HERD_BIN points the tests at another build (e.g. `make B=build-san SAN=1`).
BIN = os.environ.get("HERD_BIN") or os.path.join(REPO, "build", "bin")


def reachable(path):
    """Whether other users may pass every directory down to path (o+x)."""
    path = os.path.abspath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def users_copy(bin_dir):
    """bin_dir when the test users can reach it; else a copy of it (and of
    its ../tests/mpi, which the MPI tests run) in a world-readable temp dir,
    removed at exit: a clone inside `mktemp -d` or root's 0700 home.  `herd
    up` copies the programs into each cluster's DIR/bin as well, but tests
    run programs by BIN's path, and write it into job scripts."""
    if reachable(bin_dir):
        return bin_dir
    import atexit
    top = tempfile.mkdtemp(prefix="herd-bin-", dir="/tmp")
    os.chmod(top, 0o755)
    atexit.register(shutil.rmtree, top, True)
    shutil.copytree(bin_dir, os.path.join(top, "bin"))
    for sub in (("tests", "mpi"), ("lib",)):   # the MPI test programs, the fake NVML
        src = os.path.join(os.path.dirname(bin_dir), *sub)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(top, *sub))
    for d, subdirs, files in os.walk(top):
        for name in subdirs + files:
            p = os.path.join(d, name)
            os.chmod(p, 0o755 if os.path.isdir(p) or os.access(p, os.X_OK) else 0o644)
    return os.path.join(top, "bin")


BIN = users_copy(BIN)
HERD = os.path.join(BIN, "herd")
USERS = ("herdu1", "herdu2")
# Herd's commands are run by absolute path: a machine may also have Slurm's
# own commands on PATH, and a test must never talk to them by accident.
COMMANDS = {"sbatch", "squeue", "scancel", "sinfo", "scontrol", "srun", "salloc", "sacct",
            "sprio", "sshare", "sacctmgr", "sreport", "sdiag", "herd", "herdctld", "herdd"}


def ensure_user(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    # Test files run in parallel (make cluster): one useradd at a time, or
    # two racing ones can lose a user added a moment before (seen: herdu1's
    # uid changed under a running test).
    with open("/tmp/herd-test-useradd.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True)
            return pwd.getpwnam(name)


@pytest.fixture(scope="session")
def users():
    """The two test users, created (useradd -m) when absent."""
    return {name: ensure_user(name) for name in USERS}


def read_conf(path):
    """herd.conf as {key: value} for plain keys and a list of node dicts."""
    kv, nodes = {}, []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            pairs = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if "NodeName" in pairs:
                nodes.append(pairs)
            elif "PartitionName" not in pairs:
                kv.update(pairs)
    return kv, nodes


def parse_kv(text):
    """`scontrol show ...` output as {Key: value} (values without spaces)."""
    return dict(re.findall(r"(\w[\w/:]*)=(\S*)", text))


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def __repr__(self):
        return f"<rc={self.rc} out={self.out!r} err={self.err!r}>"


class Cluster:
    """A running cluster: where it lives and how to talk to it."""

    def __init__(self, root, nodes):
        self.root = root
        self.dir = os.path.join(root, "c")
        self.conf = os.path.join(self.dir, "herd.conf")
        self.nnodes = nodes
        self.up_result = None

    # ---- lifecycle -------------------------------------------------------
    def up(self, *extra, timeout=60, user=None, env=None):
        as_user = ["runuser", "-u", user, "--"] if user else []
        # On a machine with GPUs herd up gives every node its GPUs (doc/gres.md):
        # a test's cluster has none unless it asks (env names an NVML).
        env = {**os.environ, "HERD_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1", **(env or {})}
        p = subprocess.run([*as_user, HERD, "up", "--nodes", str(self.nnodes), "--dir", self.dir,
                            *extra], capture_output=True, text=True, timeout=timeout, env=env)
        self.up_result = Result(p)
        if p.returncode != 0:
            raise RuntimeError(f"herd up failed ({p.returncode}):\n{p.stderr}\n{self.logs()}")
        self.kv, self.nodes = read_conf(self.conf)
        self.name = self.kv["ClusterName"]
        self.port = int(self.kv["SlurmctldPort"])
        auth = self.kv.get("AuthInfo", "")
        m = re.search(r"socket=([^,]+)", auth)
        self.munge_socket = m.group(1) if m else None
        # HERD_TEST_ACCT=pgsql: the accounting records of every cluster go to
        # PostgreSQL (one server per session, a fresh database per cluster).
        if os.environ.get("HERD_TEST_ACCT") == "pgsql":
            import pg
            pg.use_pgsql(self, pg.session_server())

    def down(self):
        return Result(subprocess.run([HERD, "down", "--dir", self.dir],
                                     capture_output=True, text=True, timeout=60))

    def logs(self, tail=40):
        """The last lines of every log, for failure messages."""
        out = []
        logdir = os.path.join(self.dir, "log")
        if os.path.isdir(logdir):
            for name in sorted(os.listdir(logdir)):
                with open(os.path.join(logdir, name), errors="replace") as f:
                    lines = f.readlines()[-tail:]
                out.append(f"==> {name} <==\n" + "".join(lines))
        return "\n".join(out)

    # ---- running commands ------------------------------------------------
    def env(self):
        return {"HERD_CONF": self.conf, "PATH": f"{BIN}:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG": "C.UTF-8"}

    def workdir(self, user=None):
        """A directory the user owns, for job output; under the world-readable root."""
        name = user or "root"
        path = os.path.join(self.root, f"work-{name}")
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            return path
        if user:
            pw = pwd.getpwnam(user)
            os.chown(path, pw.pw_uid, pw.pw_gid)
        return path

    def run(self, args, user=None, timeout=60, cwd=None, input=None):
        """Run a command (list or shell string) as root or as user; never raises
        on a non-zero exit."""
        if isinstance(args, str):
            args = ["/bin/sh", "-c", args]
        env = self.env()
        cmd = list(args)
        if cmd[0] in COMMANDS:
            cmd[0] = os.path.join(BIN, cmd[0])
        if user:
            cmd = ["runuser", "-u", user, "--", "env", "-i"] + \
                  [f"{k}={v}" for k, v in env.items()] + \
                  [f"HOME={pwd.getpwnam(user).pw_dir}", f"USER={user}"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=cwd or self.workdir(user), env=env, input=input)
        return Result(p)

    def sbatch(self, *args, user=None, cwd=None):
        """Submit with --parsable; returns the job ID (asserts success)."""
        r = self.run(["sbatch", "--parsable", *args], user=user, cwd=cwd)
        assert r.rc == 0, f"sbatch {args} failed: {r}"
        m = re.fullmatch(r"(\d+)(;\S+)?\n?", r.out)
        assert m, f"sbatch --parsable printed {r.out!r}"
        return int(m.group(1))

    def job_state(self, job_id):
        r = self.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%T"])
        return r.out.strip() if r.rc == 0 else None

    def show_job(self, job_id):
        r = self.run(["scontrol", "show", "job", str(job_id)])
        assert r.rc == 0, f"scontrol show job {job_id}: {r}"
        return parse_kv(r.out)

    def wait_state(self, job_id, states, timeout=60):
        """Poll squeue until the job is in one of states; returns that state."""
        if isinstance(states, str):
            states = (states,)
        deadline = time.time() + timeout
        state = None
        while time.time() < deadline:
            state = self.job_state(job_id)
            if state in states:
                return state
            time.sleep(0.2)
        pytest.fail(f"job {job_id} is {state!r}, not {states} after {timeout}s\n{self.logs()}")

    def wait_done(self, job_id, timeout=60):
        return self.wait_state(job_id, FINAL_STATES, timeout)

    def wait_until(self, what, predicate, timeout=30, interval=0.2):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        pytest.fail(f"timed out after {timeout}s waiting for {what}\n{self.logs()}")

    # ---- daemons ---------------------------------------------------------
    def daemon_pids(self, comm, needle=None):
        """PIDs of live processes named comm whose command line names this
        cluster (and contains needle, e.g. a node name)."""
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/comm") as f:
                    if f.read().strip() != comm:
                        continue
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
                with open(f"/proc/{d}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        continue
            except OSError:
                continue
            text = [a.decode(errors="replace") for a in argv]
            if not any(self.dir + "/" in a for a in text):
                continue
            if needle is not None and needle not in text:
                continue
            pids.append(int(d))
        return pids

    def ctld_pid(self):
        pids = self.daemon_pids("herdctld")
        assert len(pids) == 1, f"expected one herdctld, found {pids}"
        return pids[0]

    def herdd_pid(self, node):
        pids = self.daemon_pids("herdd", node)
        assert len(pids) == 1, f"expected one herdd for {node}, found {pids}"
        return pids[0]

    def start_daemon(self, argv, log):
        """Start a daemon by hand, as an operator would after a crash."""
        with open(os.path.join(self.dir, "log", log), "ab") as out:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    env=self.env(), start_new_session=True)

    def restart_ctld(self):
        return self.start_daemon([os.path.join(BIN, "herdctld"), "-f", self.conf],
                                 "herdctld-restart.out")

    def restart_herdd(self, node):
        return self.start_daemon([os.path.join(BIN, "herdd"), "-N", node, "-f", self.conf],
                                 f"herdd-{node}-restart.out")

    def ping_ok(self):
        r = self.run(["scontrol", "ping"], timeout=20)
        return r.rc == 0 and "UP" in r.out

    def wait_nodes_idle(self, timeout=30):
        def idle():
            r = self.run(["sinfo", "-h", "-N", "-o", "%N %t"])
            states = [line.split()[1] for line in r.out.splitlines() if line.strip()]
            return r.rc == 0 and len(states) == self.nnodes and all(s == "idle" for s in states)
        return self.wait_until("all nodes idle", idle, timeout)


FINAL_STATES = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                "BOOT_FAIL", "DEADLINE", "PREEMPTED")


def make_root():
    """A world-readable temp root: users must reach herd.conf, the MUNGE socket
    and their work directories; herd keeps state/ and the key private itself."""
    root = tempfile.mkdtemp(prefix="herd-test-", dir="/tmp")
    os.chmod(root, 0o755)
    return root


def start_cluster(nodes=4):
    root = make_root()
    c = Cluster(root, nodes)
    try:
        c.up()
    except Exception:
        c.down()
        shutil.rmtree(root, ignore_errors=True)
        raise
    return c


SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def sanitizer_reports(c):
    """Lines that ASan/UBSan/LSan wrote into the daemons' logs (a `make SAN=1`
    build); UBSan does not stop a daemon, so only the logs tell."""
    found = []
    for sub in ("log", "munge"):
        logdir = os.path.join(c.dir, sub)
        if not os.path.isdir(logdir):
            continue
        for name in sorted(os.listdir(logdir)):
            if not (name.endswith(".log") or name.endswith(".out")):
                continue
            with open(os.path.join(logdir, name), errors="replace") as f:
                for line in f:
                    if any(m in line for m in SANITIZER_MARKS):
                        found.append(f"{name}: {line.strip()}")
    return found


def processes_naming(path):
    """PIDs of live processes whose command line or environment names path."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if path.encode() in cmd:
            found.append((int(d), cmd.replace(b"\0", b" ").decode(errors="replace")))
    return found


def processes_with_conf(conf):
    """PIDs of live processes whose environment holds HERD_CONF=conf (daemons,
    step daemons and job processes of that cluster)."""
    needle = f"HERD_CONF={conf}".encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if needle in env:
            found.append(int(d))
    return found


def stop_cluster(c):
    """herd down; fails when it did not stop cleanly or when a sanitizer
    reported something in the logs (the directory is then kept)."""
    r = c.down()
    reports = sanitizer_reports(c)
    left = processes_naming(c.dir + "/") + processes_with_conf(c.conf)
    if r.rc == 0 and not reports and not left and not os.environ.get("HERD_KEEP"):
        shutil.rmtree(c.root, ignore_errors=True)
    assert r.rc == 0, f"herd down failed: {r}"
    assert not left, f"processes of the cluster left after herd down: {left}"
    assert not reports, f"sanitizer reports (kept {c.dir}):\n" + "\n".join(reports[:20])
    return r


def stop_clusters(*clusters):
    """Stop every cluster, then report the first failure."""
    errors = []
    for c in clusters:
        try:
            stop_cluster(c)
        except AssertionError as e:
            errors.append(e)
    if errors:
        raise errors[0]


@pytest.fixture(scope="module")
def cluster(users):
    """A 4-node cluster shared by the tests of one module."""
    c = start_cluster(4)
    try:
        yield c
    finally:
        stop_cluster(c)
