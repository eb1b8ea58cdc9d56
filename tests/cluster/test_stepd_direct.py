"""The real herdstepd in step mode, run directly (as herdd would: -f CONF -N
NODE -r FD DIR) on a step directory whose launch.json the test writes, with
the test itself as srun: it listens, checks HELLO and speaks the step I/O
protocol of doc/steps.md (STDOUT/STDERR/EXIT/ERROR/DONE in, STDIN/SIGNAL
out).  A one-node cluster supplies herd.conf and the controller that
STEP_COMPLETE goes to."""
import json
import os
import pwd
import re
import socket
import struct
import subprocess
import time

import pytest

from conftest import BIN, start_cluster, stop_cluster

HERDSTEPD = os.path.join(BIN, "herdstepd")
USER = "herdu1"
HELLO, STDOUT, STDERR, EXIT, ERROR, STDIN, SIGNAL = 1, 2, 3, 4, 5, 6, 7
DONE = 10
ALL = 0xFFFFFFFF
JOB = 77


@pytest.fixture(scope="module")
def cluster(users):
    c = start_cluster(1)
    try:
        yield c
    finally:
        stop_cluster(c)


def encode(mtype, task, payload=b""):
    if isinstance(payload, (dict, list)):
        payload = json.dumps(payload).encode()
    return struct.pack(">IHHI", len(payload), mtype, 0, task) + payload


class Srun:
    """The srun end: one connection from one herdstepd."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.conn = None
        self.buf = b""
        self.msgs = []

    def accept(self, timeout=20):
        self.listener.settimeout(timeout)
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(timeout)

    def read_msg(self):
        while True:
            if len(self.buf) >= 12:
                length, mtype, flags, task = struct.unpack(">IHHI", self.buf[:12])
                if len(self.buf) >= 12 + length:
                    payload = self.buf[12:12 + length]
                    self.buf = self.buf[12 + length:]
                    m = (mtype, task, payload)
                    self.msgs.append(m)
                    return m
            data = self.conn.recv(65536)
            if not data:
                return None
            self.buf += data

    def until(self, pred):
        """Read until pred(msg) holds; returns that message (None at EOF)."""
        while True:
            m = self.read_msg()
            if m is None or pred(m):
                return m

    def read_all(self):
        """Everything up to the end of the connection (DONE is the last)."""
        while self.read_msg() is not None:
            pass
        return self.msgs

    def send(self, mtype, task, payload=b""):
        self.conn.sendall(encode(mtype, task, payload))

    def close(self):
        if self.conn:
            self.conn.close()
        self.listener.close()

    # views of what came
    def stream(self, mtype, task):
        return b"".join(p for t, k, p in self.msgs if t == mtype and k == task).decode()

    def of(self, mtype):
        return [(k, p) for t, k, p in self.msgs if t == mtype]


def launch_obj(c, srun, job_id=JOB, **step):
    work = c.workdir(USER)
    pw = pwd.getpwnam(USER)
    s = {
        "step_id": 3, "step_name": "t", "step_nodes": "n[1-2]", "step_num_nodes": 2,
        "step_num_tasks": 4, "step_tasks_per_node": "2(x2)", "node_id": 0,
        "task_ids": [0, 1], "cpus": "", "cpus_per_task": 1, "mem_mb": 0, "cpu_bind": "",
        "distribution": "block", "argv": ["/bin/true"],
        "env": ["PATH=/usr/bin:/bin", "FROM_SRUN=yes"], "cwd": work,
        "io_host": "127.0.0.1", "io_port": srun.port if srun else 1, "io_key": "k" * 32,
        "stdout": "", "stderr": "", "stdin": "", "stdin_task": 0, "pty": False,
        "mpi": "", "time_limit": -1, "signal": 0, "signal_time": 0,
        "launch_addr": "127.0.0.1",
    }
    s.update(step)
    return {
        "job_id": job_id, "uid": pw.pw_uid, "gid": pw.pw_gid, "umask": 0o022, "user": USER,
        "name": "jobname", "partition": "debug", "account": "", "cluster": c.name,
        "submit_host": "login1", "script": "", "argv": [], "env": [], "cwd": work,
        "stdout": "", "stderr": "", "stdin": "", "nodes": "n[1-2]", "num_nodes": 2,
        "ntasks": 4, "cpus_per_task": 0, "cpus_on_node": 2, "mem_mb": 0,
        "tasks_per_node": "2(x2)", "time_limit": -1, "kill_wait": 1,
        "start_time": int(time.time()), "step": s,
    }


class Stepd:
    """herdstepd started on a fresh step directory."""

    def __init__(self, c, launch, conf=None):
        sid = launch["step"]["step_id"]
        base = os.path.join(c.root, "steps")
        os.makedirs(base, exist_ok=True)
        self.dir = os.path.join(base, "job%05d.%d" % (JOB, sid))
        subprocess.run(["rm", "-rf", self.dir], check=True)
        os.mkdir(self.dir, 0o711)
        with open(os.path.join(self.dir, "launch.json"), "w") as f:
            json.dump(launch, f)
        r, w = os.pipe()
        self.ready_r = r
        # its stderr (a sanitizer's reports) where stop_cluster looks
        with open(os.path.join(c.dir, "log", "herdstepd-direct.out"), "ab") as err:
            self.proc = subprocess.Popen(
                [HERDSTEPD, "-f", conf or c.conf, "-N", "n1", "-r", str(w), self.dir],
                pass_fds=(w,), stdin=subprocess.DEVNULL, stderr=err, start_new_session=True)
        os.close(w)

    def ready(self, timeout=20):
        """What herdstepd told herdd: 'ok' or the sentence."""
        out = b""
        deadline = time.time() + timeout
        os.set_blocking(self.ready_r, False)
        while time.time() < deadline:
            try:
                data = os.read(self.ready_r, 512)
            except BlockingIOError:
                time.sleep(0.05)
                continue
            if not data:
                break
            out += data
        os.close(self.ready_r)
        return out.decode().strip()

    def wait(self, timeout=30):
        return self.proc.wait(timeout=timeout)

    def ctl(self, request):
        s = socket.socket(socket.AF_UNIX)
        s.connect(os.path.join(self.dir, "ctl.sock"))
        s.sendall((json.dumps(request) + "\n").encode())
        reply = s.makefile().readline()
        s.close()
        return json.loads(reply)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run_step(c, timeout=30, **step):
    """Launch a step, be its srun until the connection ends; returns (srun, stepd)."""
    srun = Srun()
    sd = Stepd(c, launch_obj(c, srun, **step))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.read_all()
        assert sd.wait(timeout) == 0
    finally:
        sd.kill()
        srun.close()
    return srun, sd


def env_of(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_hello_output_env_and_exits(cluster, users):
    script = ('echo "out $SLURM_PROCID"; echo "err $SLURM_LOCALID" >&2; id -un; '
              'env | grep -E "^(SLURM|FROM_SRUN)"; exit $SLURM_PROCID')
    srun, sd = run_step(cluster, argv=["/bin/sh", "-c", script])
    hello = srun.msgs[0]
    assert hello[0] == HELLO and hello[1] == ALL
    assert json.loads(hello[2]) == {"key": "k" * 32, "job_id": JOB, "step_id": 3, "node": "n1",
                                    "node_id": 0, "tasks": [0, 1]}
    for task in (0, 1):
        out = srun.stream(STDOUT, task)
        assert out.startswith(f"out {task}\n{USER}\n"), out
        assert srun.stream(STDERR, task) == f"err {task}\n"
        env = env_of(out)
        want = {
            "SLURM_JOB_ID": "77", "SLURM_JOBID": "77", "SLURM_STEP_ID": "3", "SLURM_STEPID": "3",
            "SLURM_PROCID": str(task), "SLURM_LOCALID": str(task), "SLURM_NODEID": "0",
            "SLURM_STEP_NODELIST": "n[1-2]", "SLURM_STEP_NUM_NODES": "2",
            "SLURM_STEP_NUM_TASKS": "4", "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
            "SLURM_NTASKS": "4", "SLURM_NPROCS": "4", "SLURM_NNODES": "2",
            "SLURM_TASKS_PER_NODE": "2(x2)", "SLURM_JOB_NODELIST": "n[1-2]",
            "SLURM_NODELIST": "n[1-2]", "SLURM_JOB_NUM_NODES": "2", "SLURM_GTIDS": "0,1",
            "SLURMD_NODENAME": "n1", "SLURM_CLUSTER_NAME": cluster.name,
            "SLURM_JOB_USER": USER, "SLURM_JOB_NAME": "jobname", "SLURM_SRUN_COMM_PORT": str(srun.port),
            "SLURM_LAUNCH_NODE_IPADDR": "127.0.0.1", "SLURM_DISTRIBUTION": "block",
            "SLURM_CPU_BIND_TYPE": "none", "SLURM_CPU_BIND": "quiet,none",
            "SLURM_CPUS_ON_NODE": "2", "FROM_SRUN": "yes", "SLURM_UMASK": "0022",
        }
        for k, v in want.items():
            assert env.get(k) == v, f"task {task}: {k}={env.get(k)!r}, want {v!r}"
        assert int(env["SLURM_TASK_PID"]) > 1
    exits = dict((k, json.loads(p)["status"]) for k, p in srun.of(EXIT))
    assert exits == {0: 0, 1: 1 << 8}
    # each task's output ends (empty payload) before its EXIT; DONE is last
    types = [(t, k, len(p)) for t, k, p in srun.msgs]
    for task in (0, 1):
        eof = types.index((STDOUT, task, 0))
        ex = [i for i, m in enumerate(types) if m[0] == EXIT and m[1] == task][0]
        assert eof < ex
    assert srun.msgs[-1][0] == DONE and json.loads(srun.msgs[-1][2]) == {"oom": False}
    assert not os.path.exists(sd.dir), "herdstepd leaves its step directory behind"


def affinity(srun, task):
    m = re.search(r"Cpus_allowed_list:\s*(\S+)", srun.stream(STDOUT, task))
    assert m, srun.stream(STDOUT, task)
    return m.group(1)


@pytest.mark.parametrize("cpus,bind,want", [
    ("0-1", "", ["0", "1"]),                     # the default: cores, in order
    ("0-1", "cores", ["0", "1"]),
    ("0-1", "map_cpu:1,0", ["1", "0"]),
    ("0-1", "mask_cpu:0x3,0x2", ["0-1", "1"]),
    ("0", "none", None),                         # no binding: herdstepd's own set
])
def test_cpu_binding(cluster, cpus, bind, want):
    if os.cpu_count() < 2:
        pytest.skip("needs 2 CPUs")
    srun, _ = run_step(cluster, cpus=cpus, cpu_bind=bind,
                       argv=["/bin/grep", "Cpus_allowed_list", "/proc/self/status"])
    got = [affinity(srun, t) for t in (0, 1)]
    if want is None:
        own = re.search(r"Cpus_allowed_list:\s*(\S+)", open("/proc/self/status").read()).group(1)
        assert got == [own, own]
    else:
        assert got == want


def test_cpu_bind_verbose_and_env(cluster):
    if os.cpu_count() < 2:
        pytest.skip("needs 2 CPUs")
    srun, _ = run_step(cluster, cpus="0-1", cpu_bind="verbose,cores",
                       argv=["/bin/sh", "-c", "env | grep ^SLURM_CPU_BIND"])
    for task, mask in ((0, "0x1"), (1, "0x2")):
        err = srun.stream(STDERR, task)
        assert re.fullmatch(r"cpu-bind=MASK - n1, task  %d  %d \[\d+\]: mask %s set\n" % (task, task, mask),
                            err), err
        env = env_of(srun.stream(STDOUT, task))
        assert env["SLURM_CPU_BIND"] == "verbose,mask_cpu:0x1,0x2"
        assert env["SLURM_CPU_BIND_TYPE"] == "mask_cpu:"
        assert env["SLURM_CPU_BIND_LIST"] == "0x1,0x2"
        assert env["SLURM_CPU_BIND_VERBOSE"] == "verbose"


def test_exec_failure(cluster):
    srun, _ = run_step(cluster, task_ids=[0], argv=["nosuch-prog-xyz", "a"])
    errors = [p.decode() for k, p in srun.of(ERROR)]
    assert errors == ["n1: task 0: execve(): nosuch-prog-xyz: No such file or directory"]
    assert srun.stream(STDERR, 0) == \
        "slurmstepd-n1: error: execve(): nosuch-prog-xyz: No such file or directory\n"
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [2 << 8]


def test_no_path_searches_nowhere(cluster):
    """A task without PATH (srun --export=NONE) runs a program named by its
    path; a bare name is not searched for, as Slurm's slurmstepd does not."""
    srun, _ = run_step(cluster, task_ids=[0], env=["FOO=bar"], argv=["/usr/bin/env"])
    env = env_of(srun.stream(STDOUT, 0))
    assert env.get("FOO") == "bar" and "PATH" not in env, srun.stream(STDERR, 0)
    srun, _ = run_step(cluster, task_ids=[0], env=["FOO=bar"], argv=["env"])
    assert srun.stream(STDERR, 0) == "slurmstepd-n1: error: execve(): env: No such file or directory\n"
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [2 << 8]


def test_multi_prog(cluster):
    lines = ["# a comment", "1   /bin/echo one %t %o", "0,2-3 /bin/echo 'zero  x' %t %o"]
    srun, _ = run_step(cluster, task_ids=[0, 1, 3], argv=[], multi_prog=lines)
    assert srun.stream(STDOUT, 0) == "zero  x 0 0\n"
    assert srun.stream(STDOUT, 1) == "one 1 0\n"
    assert srun.stream(STDOUT, 3) == "zero  x 3 2\n"


def test_stdin_to_task_0(cluster):
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, argv=["/bin/sh", "-c", "cat; echo end"]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.send(STDIN, 0, b"hello\n")
        srun.send(STDIN, ALL, b"world\n")
        srun.send(STDIN, 0, b"")
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    assert srun.stream(STDOUT, 0) == "hello\nworld\nend\n"
    assert srun.stream(STDOUT, 1) == "end\n"   # stdin_task 0: task 1 reads /dev/null


def test_signal_from_srun(cluster):
    script = "trap 'echo caught; exit 7' USR1; echo ready; while :; do sleep 0.1; done"
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], argv=["/bin/sh", "-c", script]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.until(lambda m: m[0] == STDOUT and b"ready" in m[2])
        srun.send(SIGNAL, ALL, {"signal": 10})
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    assert "caught" in srun.stream(STDOUT, 0)
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [7 << 8]


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_srun_gone_kills_everything(cluster):
    # a background child in its own session: the subreaper still finds it
    script = "setsid sleep 300 & echo $!; sleep 300 & echo $!; wait"
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], argv=["/bin/sh", "-c", script]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.until(lambda m: m[0] == STDOUT and srun.stream(STDOUT, 0).count("\n") >= 2)
        pids = [int(x) for x in srun.stream(STDOUT, 0).split()]
        assert all(alive(p) for p in pids)
        srun.conn.close()
        srun.conn = None
        assert sd.wait(20) == 0
        assert not any(alive(p) for p in pids), "tasks outlived srun"
    finally:
        sd.kill()
        srun.close()


def test_connect_refused_fails_the_launch(cluster):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()   # nobody listens there
    launch = launch_obj(cluster, None, io_port=port)
    sd = Stepd(cluster, launch)
    try:
        assert sd.ready() == f"cannot connect to srun at 127.0.0.1:{port}: connection refused"
        assert sd.wait() == 1
    finally:
        sd.kill()


def test_output_files(cluster):
    work = cluster.workdir(USER)
    for name in os.listdir(work):
        if name.startswith("o-"):
            os.unlink(os.path.join(work, name))
    srun, _ = run_step(cluster, stdout="o-%j.%s-%t-%n-%N.out",
                       argv=["/bin/sh", "-c", "echo out $SLURM_PROCID; echo err >&2"])
    for task in (0, 1):
        path = os.path.join(work, f"o-77.3-{task}-0-n1.out")
        with open(path) as f:
            assert f.read() == f"out {task}\nerr\n"
        assert os.stat(path).st_uid == pwd.getpwnam(USER).pw_uid
        assert srun.stream(STDOUT, task) == ""


def test_terminate_and_time_limit(cluster):
    script = "echo ready; exec sleep 300"
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], argv=["/bin/sh", "-c", script]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.until(lambda m: m[0] == STDOUT and b"ready" in m[2])
        assert sd.ctl({"op": "terminate", "kill_wait": 1}) == {"rc": 0}
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    assert re.search(r"slurmstepd-n1: error: \*\*\* STEP 77\.3 ON n1 CANCELLED AT \S+ \*\*\*\n",
                     srun.stream(STDERR, 0)), srun.stream(STDERR, 0)
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [15]

    srun, _ = run_step(cluster, task_ids=[0], time_limit=1, argv=["/bin/sleep", "300"])
    assert re.search(r"\*\*\* STEP 77\.3 ON n1 CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*\n",
                     srun.stream(STDERR, 0)), srun.stream(STDERR, 0)
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [15]


def test_pty_and_winsize(cluster):
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], pty=True,
                                   argv=["/bin/sh", "-c", "read x; stty size; tty; echo sid $(ps -o sid= -p $$) pid $$"]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.send(11, ALL, {"rows": 31, "cols": 101})
        srun.send(STDIN, 0, b"go\n")
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    out = srun.stream(STDOUT, 0).replace("\r", "")
    assert "31 101\n" in out, out
    assert re.search(r"^/dev/pts/\d+$", out, re.M), out
    m = re.search(r"sid\s+(\d+) pid (\d+)", out)
    assert m and m.group(1) == m.group(2), out   # the task leads its own session
    assert srun.stream(STDERR, 0) == ""
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [0]


def test_signal_before_time_limit(cluster):
    script = "trap 'echo got usr2; exit 0' USR2; while :; do sleep 0.1; done"
    srun, _ = run_step(cluster, task_ids=[0], time_limit=30, signal=12, signal_time=29,
                       argv=["/bin/sh", "-c", script])
    assert srun.stream(STDOUT, 0) == "got usr2\n"
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [0]


# ---- through herdd: LAUNCH_STEP, SIGNAL_JOB/TERMINATE_JOB, a restart -------

LAUNCH_STEP, SIGNAL_JOB, TERMINATE_JOB = 45, 41, 42


def herdd_call(c, msg_type, body, port=None):
    from test_frames import digest, exchange, frame, munge_cred
    data = json.dumps(body).encode()
    dest = f"{c.name}:n1"
    cred = munge_cred(digest(msg_type, dest, data), c.munge_socket)
    port = port or int(c.nodes[0]["Port"])
    return exchange(port, frame(msg_type, data, cred))


def test_herdd_launch_step_signal_terminate(cluster):
    job = cluster.sbatch("--wrap", "sleep 300", user=USER)
    cluster.wait_state(job, "RUNNING")
    script = "trap 'echo usr1' USR1; echo ready; while :; do sleep 0.1; done"
    srun = Srun()
    try:
        launch = launch_obj(cluster, srun, job_id=job, step_id=5, task_ids=[0],
                            argv=["/bin/sh", "-c", script])
        reply = herdd_call(cluster, LAUNCH_STEP, {"job_id": job, "step_id": 5, "launch": launch})
        assert reply["rc"] == 0, reply
        srun.accept()
        srun.until(lambda m: m[0] == STDOUT and b"ready" in m[2])
        assert json.loads(srun.msgs[0][2])["step_id"] == 5
        spool = os.path.join(cluster.dir, "spool", "n1", "job%05d.5" % job)
        assert os.path.isfile(os.path.join(spool, "launch.json"))
        # the same launch again: it runs once
        assert herdd_call(cluster, LAUNCH_STEP, {"job_id": job, "step_id": 5, "launch": launch})["rc"] == 0

        # no step_id: every herdstepd of the job (flags "": the batch shell is left alone)
        assert herdd_call(cluster, SIGNAL_JOB, {"job_id": job, "signal": 10, "flags": ""})["rc"] == 0
        srun.until(lambda m: m[0] == STDOUT and b"usr1" in m[2])

        # herdd restarts: it finds the step again from its spool directory
        pid = cluster.herdd_pid("n1")
        os.kill(pid, 15)
        cluster.wait_until("herdd gone", lambda: not alive(pid))
        cluster.restart_herdd("n1")
        cluster.wait_until("herdd back", lambda: cluster.daemon_pids("herdd", "n1"))

        def terminated():
            try:
                r = herdd_call(cluster, TERMINATE_JOB, {"job_id": job, "kill_wait": 1, "step_id": 5})
            except ConnectionRefusedError:
                return None   # not listening yet
            assert r["rc"] == 0, r
            return r
        cluster.wait_until("TERMINATE_JOB of the step answered", terminated)
        srun.read_all()
        assert re.search(r"\*\*\* STEP %d\.5 ON n1 CANCELLED AT \S+ \*\*\*" % job,
                         srun.stream(STDERR, 0)), srun.stream(STDERR, 0)
        assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [15]
        assert srun.msgs[-1][0] == DONE
        cluster.wait_until("step directory removed", lambda: not os.path.exists(spool))
        # the batch step goes on
        assert cluster.job_state(job) == "RUNNING"
        # a step that is not there
        r = herdd_call(cluster, TERMINATE_JOB, {"job_id": job, "kill_wait": 1, "step_id": 6})
        assert r["rc"] == 2017, r
    finally:
        srun.close()
        cluster.run(["scancel", str(job)])
    cluster.wait_done(job)


def test_herdd_launch_step_refusals(cluster):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    launch = launch_obj(cluster, None, job_id=4242, step_id=1, io_port=port)
    r = herdd_call(cluster, LAUNCH_STEP, {"job_id": 4242, "step_id": 1, "launch": launch})
    assert r["rc"] == 1004 and \
        r["error"] == f"herdstepd failed on n1: cannot connect to srun at 127.0.0.1:{port}: connection refused", r
    assert not os.path.exists(os.path.join(cluster.dir, "spool", "n1", "job04242.1"))
    r = herdd_call(cluster, LAUNCH_STEP, {"job_id": 4242, "step_id": 2, "launch": launch})
    assert r["rc"] == 2072 and "step_id" in r["error"], r
    bad = dict(launch, step=dict(launch["step"], cpu_bind="sockets9"))
    r = herdd_call(cluster, LAUNCH_STEP, {"job_id": 4242, "step_id": 1, "launch": bad})
    assert r["rc"] == 1004 and r["error"] == "herdstepd failed on n1: Invalid --cpu-bind argument: sockets9", r


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def test_slow_srun_is_not_buffered_without_end(cluster):
    size = 64 << 20
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0],
                                   argv=["/bin/sh", "-c", f"head -c {size} /dev/zero"]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        time.sleep(2)   # srun reads nothing meanwhile
        assert rss_kb(sd.proc.pid) < 40 * 1024, "herdstepd buffers what srun has not read"
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    got = sum(len(p) for t, k, p in srun.msgs if t == STDOUT)
    assert got == size
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [0]


def received_within(srun, seconds):
    """Messages that arrive within seconds (the connection stays open)."""
    srun.conn.settimeout(0.1)
    got = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            data = srun.conn.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        got.append(data)
        srun.buf += data
    srun.conn.settimeout(20)
    return b"".join(got)


def test_suspend_resume(cluster):
    script = "i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done"
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], argv=["/bin/sh", "-c", script]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.until(lambda m: m[0] == STDOUT and m[2].strip())
        assert sd.ctl({"op": "suspend"}) == {"rc": 0}
        received_within(srun, 0.5)              # what was on its way
        assert received_within(srun, 1.5) == b"", "a suspended step goes on"
        assert sd.ctl({"op": "resume"}) == {"rc": 0}
        assert received_within(srun, 1.5) != b"", "a resumed step stays stopped"
        assert sd.ctl({"op": "suspend"}) == {"rc": 0}
        # a cancel of a suspended step still ends it (thawed, SIGCONT first)
        assert sd.ctl({"op": "terminate", "kill_wait": 5}) == {"rc": 0}
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [15]


def memory_cgroup_usable():
    if os.path.isdir("/sys/fs/cgroup/memory"):
        return os.access("/sys/fs/cgroup/memory", os.W_OK)
    try:
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            return "memory" in f.read().split()
    except OSError:
        return False


@pytest.fixture
def constrained(cluster):
    """cgroup.conf beside herd.conf with RAM and cores constrained, for one test."""
    path = os.path.join(cluster.dir, "cgroup.conf")
    with open(path, "w") as f:
        f.write("ConstrainRAMSpace=yes\nConstrainCores=yes\n")
    try:
        yield path
    finally:
        os.unlink(path)


def test_oom_in_the_step_cgroup(cluster, constrained):
    if not memory_cgroup_usable():
        pytest.skip("no writable memory cgroup on this machine")
    # tail keeps the whole NUL-only "line" in memory: 200 MB against a 32 MB limit
    srun, _ = run_step(cluster, task_ids=[0], mem_mb=32, cpus="0",
                       argv=["/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; "
                                              "head -c 200000000 /dev/zero | tail > /dev/null"])
    assert "Cpus_allowed_list:\t0\n" in srun.stream(STDOUT, 0)
    assert ("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=77.3. Some of your "
            "processes may have been killed by the cgroup out-of-memory handler.\n") in \
        srun.stream(STDERR, 0), srun.stream(STDERR, 0)
    assert json.loads(srun.msgs[-1][2]) == {"oom": True}


PMI_CLIENT = r"""
import os, socket, sys
s = socket.socket(fileno=int(os.environ["PMI_FD"]))
f = s.makefile("rw")
def call(line):
    f.write(line + "\n"); f.flush()
    return dict(w.split("=", 1) for w in f.readline().split())
rank = os.environ["PMI_RANK"]
assert call("cmd=init pmi_version=1 pmi_subversion=1")["rc"] == "0"
kvs = call("cmd=get_my_kvsname")["kvsname"]
assert call(f"cmd=put kvsname={kvs} key=k{rank} value=v{rank}")["rc"] == "0"
assert call("cmd=barrier_in")["cmd"] == "barrier_out"
other = "0" if rank == "1" else "1"
print(rank, os.environ["PMI_SIZE"], call(f"cmd=get kvsname={kvs} key=k{other}")["value"],
      call(f"cmd=get kvsname={kvs} key=k9")["value"], flush=True)
call("cmd=finalize")
"""


def test_pmi_fence_through_srun(cluster):
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, mpi="pmi2", step_num_tasks=10,
                                   step_tasks_per_node="2,8",
                                   argv=["/usr/bin/python3", "-c", PMI_CLIENT]))
    try:
        srun.accept()
        assert sd.ready() == "ok"
        m = srun.until(lambda m: m[0] == 8)
        assert m, srun.msgs
        fence = json.loads(m[2])
        assert fence == {"seq": 0, "kvs": {"k0": "v0", "k1": "v1"}}, fence
        merged = dict(fence["kvs"], k9="remote")
        srun.send(9, ALL, {"seq": 0, "kvs": merged})
        srun.read_all()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
    assert srun.stream(STDOUT, 0) == "0 10 v1 remote\n", srun.stream(STDERR, 0)
    assert srun.stream(STDOUT, 1) == "1 10 v0 remote\n", srun.stream(STDERR, 1)
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [0, 0]


def ctl_call(job_dir, request):
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.path.join(job_dir, "ctl.sock"))
    s.sendall((json.dumps(request) + "\n").encode())
    reply = s.makefile().readline()
    s.close()
    return json.loads(reply)


def test_batch_suspend_resume(cluster):
    wd = cluster.workdir(USER)
    out = os.path.join(wd, "suspend-count.out")
    job = cluster.sbatch("-o", out, "--wrap", "i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done",
                         user=USER, cwd=wd)
    try:
        cluster.wait_state(job, "RUNNING")
        cluster.wait_until("output", lambda: os.path.exists(out) and os.path.getsize(out) > 0)
        job_dir = os.path.join(cluster.dir, "spool", "n1", "job%05d" % job)
        assert ctl_call(job_dir, {"op": "suspend"}) == {"rc": 0}
        time.sleep(0.5)
        size = os.path.getsize(out)
        time.sleep(1.5)
        assert os.path.getsize(out) == size, "a suspended batch job goes on"
        assert ctl_call(job_dir, {"op": "resume"}) == {"rc": 0}
        cluster.wait_until("output again", lambda: os.path.getsize(out) > size, timeout=5)
        assert ctl_call(job_dir, {"op": "suspend"}) == {"rc": 0}
    finally:
        cluster.run(["scancel", str(job)])
    # cancelled while suspended: thawed, then ended
    assert cluster.wait_done(job, timeout=30) == "CANCELLED"


def mpi_program(cluster, flavour, name):
    """An MPI test program (built by make when that MPI is installed), copied
    where the task's user can run it."""
    src = os.path.join(BIN, "..", "tests", "mpi", flavour, name)
    if not os.path.exists(src):
        pytest.skip(f"no {flavour} MPI installed (mpicc.{flavour}): {name} was not built")
    dst = os.path.join(cluster.workdir(USER), f"{flavour}-{name}")
    subprocess.run(["install", "-m", "755", src, dst], check=True)
    return dst


@pytest.mark.parametrize("flavour,mpi", [("mpich", "pmi2"), ("openmpi", "pmix")])
def test_mpi_allreduce(cluster, flavour, mpi):
    prog = mpi_program(cluster, flavour, "allreduce")
    host = socket.gethostname()
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, mpi=mpi, step_num_nodes=1, step_num_tasks=2,
                                   step_tasks_per_node="2", step_nodes=host, argv=[prog]))
    fences = 0
    try:
        srun.accept(timeout=60)
        assert sd.ready(60) == "ok"
        while True:   # srun's part: every node's contributions merged (one node here)
            m = srun.read_msg()
            if m is None:
                break
            if m[0] == 8:
                fences += 1
                srun.send(9, ALL, json.loads(m[2]))
        assert sd.wait(60) == 0
    finally:
        sd.kill()
        srun.close()
    out = srun.stream(STDOUT, 0) + srun.stream(STDOUT, 1)
    for rank in (0, 1):
        assert f"allreduce rank {rank} size 2 sum 3 ok\n" in out, (out, srun.stream(STDERR, 0))
    if flavour == "mpich":   # PMI-1's barrier always goes through srun (Open MPI on one node need not)
        assert fences >= 1
    assert [json.loads(p)["status"] for k, p in srun.of(EXIT)] == [0, 0]


def test_mpi_abort_ends_the_step(cluster):
    prog = mpi_program(cluster, "mpich", "abort")
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, mpi="pmi2", step_num_nodes=1, step_num_tasks=2,
                                   step_tasks_per_node="2", step_nodes="n1", argv=[prog]))
    try:
        srun.accept(timeout=60)
        assert sd.ready(60) == "ok"
        while True:
            m = srun.read_msg()
            if m is None:
                break
            if m[0] == 8:
                srun.send(9, ALL, json.loads(m[2]))
        assert sd.wait(60) == 0
    finally:
        sd.kill()
        srun.close()
    errors = [p.decode() for k, p in srun.of(ERROR)]
    assert any(e.startswith("n1: task 1: MPI abort with code 7") for e in errors), errors
    assert len(srun.of(EXIT)) == 2 and srun.msgs[-1][0] == DONE


# ---- STEP_COMPLETE, as the controller receives it ---------------------------

STEP_COMPLETE = 22


class FakeCtld:
    """The controller's end of herdstepd's STEP_COMPLETE: frames read as
    doc/protocol.md writes them, answered with the rc given."""

    def __init__(self, cluster):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        port = self.listener.getsockname()[1]
        self.conf = os.path.join(cluster.dir, "herd-fakectld.conf")
        with open(cluster.conf) as f, open(self.conf, "w") as out:
            for line in f:
                out.write(f"SlurmctldPort={port}\n" if line.startswith("SlurmctldPort=") else line)

    def take(self, rc=0, timeout=30):
        """One request: (type, body); answered with rc."""
        self.listener.settimeout(timeout)
        conn, _ = self.listener.accept()
        with conn:
            conn.settimeout(timeout)
            hdr = b""
            while len(hdr) < 20:
                hdr += conn.recv(20 - len(hdr))
            magic, version, mtype, req_id, cred_len, body_len = struct.unpack(">IHHIII", hdr)
            assert magic == 0x48524431 and version == 1
            rest = b""
            while len(rest) < cred_len + body_len:
                rest += conn.recv(cred_len + body_len - len(rest))
            body = json.loads(rest[cred_len:])
            reply = json.dumps({"rc": rc} if rc == 0 else {"rc": rc, "error": "busy"}).encode()
            conn.sendall(struct.pack(">IHHIII", magic, 1, mtype | 0x8000, req_id, 0, len(reply)) + reply)
        return mtype, body

    def close(self):
        self.listener.close()


def test_step_complete_body_and_retry(cluster):
    ctld = FakeCtld(cluster)
    srun = Srun()
    script = "head -c 20000000 /dev/zero | tail > /dev/null; exit $((SLURM_PROCID * 3))"
    sd = Stepd(cluster, launch_obj(cluster, srun, argv=["/bin/sh", "-c", script]), conf=ctld.conf)
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.read_all()
        # the controller is busy once (rc 1004): herdstepd tries again
        mtype, first = ctld.take(rc=1004)
        mtype2, body = ctld.take(rc=0)
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
        ctld.close()
    assert mtype == mtype2 == STEP_COMPLETE
    assert first == body
    assert {k: body[k] for k in ("job_id", "step_id", "node", "status", "tasks", "oom", "timed_out")} == \
        {"job_id": JOB, "step_id": 3, "node": "n1", "status": 3 << 8, "tasks": [0, 3 << 8],
         "oom": False, "timed_out": False}
    assert body["cpu_time_us"] > 0
    assert body["max_rss_kb"] >= 10000, body     # tail held 20 MB
    assert 0 < body["ave_rss_kb"] <= body["max_rss_kb"], body


def test_step_complete_timed_out(cluster):
    ctld = FakeCtld(cluster)
    srun = Srun()
    sd = Stepd(cluster, launch_obj(cluster, srun, task_ids=[0], time_limit=1,
                                   argv=["/bin/sleep", "100"]), conf=ctld.conf)
    try:
        srun.accept()
        assert sd.ready() == "ok"
        srun.read_all()
        mtype, body = ctld.take()
        assert sd.wait() == 0
    finally:
        sd.kill()
        srun.close()
        ctld.close()
    assert body["timed_out"] is True and body["tasks"] == [15] and body["status"] == 15, body


def test_node_register_lists_steps(cluster):
    """A second herdd for n1 (its own port and spool) registering with a
    controller stand-in: NODE_REGISTER names the job once and the step."""
    ctld = FakeCtld(cluster)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = os.path.join(cluster.dir, "herd-n1b.conf")
    with open(ctld.conf) as f, open(conf, "w") as out:
        for line in f:
            if line.startswith("NodeName=n1 "):
                line = re.sub(r"Port=\d+", f"Port={port}", line)
            for key, value in (("SlurmdSpoolDir", f"{cluster.dir}/spool-b/%n"),
                               ("SlurmdPidFile", f"{cluster.dir}/run/herdd-b-%n.pid"),
                               ("SlurmdLogFile", f"{cluster.dir}/log/herdd-b-%n.log")):
                if line.startswith(key + "="):
                    line = f"{key}={value}\n"
            out.write(line)
    herdd = cluster.start_daemon([os.path.join(BIN, "herdd"), "-D", "-N", "n1", "-f", conf],
                                 "herdd-b.out")
    srun = Srun()
    try:
        mtype, body = ctld.take()
        assert mtype == 20 and body["jobs"] == [] and body["steps"] == []
        for sid in (4, 5):
            launch = launch_obj(cluster, srun, step_id=sid, task_ids=[0], argv=["/bin/sleep", "60"])
            assert herdd_call(cluster, LAUNCH_STEP, {"job_id": JOB, "step_id": sid, "launch": launch},
                              port=port)["rc"] == 0
        deadline = time.time() + 20
        while time.time() < deadline:
            mtype, body = ctld.take()
            if body["steps"]:
                break
        assert body["jobs"] == [JOB]
        assert sorted(body["steps"]) == [[JOB, 4], [JOB, 5]]
        # no step_id: both steps end
        assert herdd_call(cluster, TERMINATE_JOB, {"job_id": JOB, "kill_wait": 1}, port=port)["rc"] == 0
        # each step's STEP_COMPLETE, among the heartbeats
        done = set()
        while len(done) < 2 and time.time() < deadline + 20:
            mtype, body = ctld.take()
            if mtype == STEP_COMPLETE:
                done.add(body["step_id"])
                assert body["tasks"] == [15], body
        assert done == {4, 5}
    finally:
        herdd.terminate()
        herdd.wait(10)
        srun.close()
        ctld.close()
