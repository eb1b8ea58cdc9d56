"""Unauthenticated peers cannot exhaust the controller: with 2,000 idle
connections open and 50 slow-loris senders (a header claiming a 64 MiB body,
then 64 KiB every 200 ms, reconnecting when closed), squeue and sbatch still
answer within a second and herdctld's memory stays bounded.  10 more senders
do the same behind genuine MUNGE credentials (a local user can make them).
And the daemons listen only on their configured addresses (doc/conf.md
"Listening")."""
import resource
import socket
import struct
import subprocess
import threading
import time

import pytest

from conftest import start_cluster, stop_cluster

MAGIC = 0x48524431
SUBMIT_JOB = 2
IDLE = 2000
LORIS = 50
AUTHED = 10
ATTACK_S = 12
RSS_LIMIT_KB = 200 * 1024


@pytest.fixture(scope="module")
def cluster(users):
    # Started under the usual soft limit of 1,024 open files, as from a login
    # shell: the daemons must raise it themselves to hold 2,000 connections.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
    try:
        c = start_cluster(2)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        yield c
    finally:
        stop_cluster(c)


def open_files_limit(pid):
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                return line.split()[3:5]
    return None


def test_daemons_raise_their_open_file_limit(cluster):
    soft, hard = open_files_limit(cluster.ctld_pid())
    assert soft == hard, f"herdctld's open-file limit is {soft} (hard {hard})"
    soft, hard = open_files_limit(cluster.herdd_pid("n1"))
    assert soft == hard, f"herdd's open-file limit is {soft} (hard {hard})"
    # ... but jobs keep the limit herdd was started with
    r = cluster.run(["srun", "-w", "n1", "sh", "-c", "ulimit -n"], user="herdu1")
    assert r.rc == 0 and r.out.strip() == str(min(1024, int(hard))), r


def listening(port):
    """Local addresses (hex, as /proc/net/tcp{,6} write them) listening on port."""
    found = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    addr, hexport = fields[1].rsplit(":", 1)
                    if fields[3] == "0A" and int(hexport, 16) == port:
                        found.append(addr)
        except FileNotFoundError:
            pass
    return found


def test_daemons_listen_only_on_their_configured_address(cluster):
    # herd up writes SlurmctldHost=localhost(127.0.0.1) and NodeAddr=127.0.0.1
    assert cluster.kv["SlurmctldHost"] == "localhost(127.0.0.1)"
    assert listening(cluster.port) == ["0100007F"], \
        f"herdctld listens on {listening(cluster.port)}, not only 127.0.0.1"
    for node in cluster.nodes:
        port = int(node["Port"])
        assert listening(port) == ["0100007F"], f"herdd {node['NodeName']} listens on {listening(port)}"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def loris_head(i, munge_socket):
    """A header claiming 64 MiB: half with no credential, half with garbage
    where a credential goes; from LORIS on, a genuine credential of herdu1's
    (its payload, 64 hex digits, matches no body)."""
    if i >= LORIS:
        cmd = ["runuser", "-u", "herdu1", "--", "munge", "-s", "ab" * 32]
        if munge_socket:
            cmd += ["-S", munge_socket]
        cred = subprocess.run(cmd, capture_output=True, check=True, timeout=10).stdout.strip()
    else:
        cred = b"" if i % 2 == 0 else b"MUNGE:" + b"A" * 120 + b":"
    return struct.pack(">IHHIII", MAGIC, 1, SUBMIT_JOB, i, len(cred), 64 << 20) + cred


class Attack:
    """2,000 idle connections and 50 slow-loris senders against one port."""

    def __init__(self, port, munge_socket):
        self.port = port
        self.munge_socket = munge_socket
        self.stop = threading.Event()
        self.idle = []
        self.loris_connects = 0
        self.loris_closed = 0
        self.errors = []

    def connect(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(("127.0.0.1", self.port))
        s.setblocking(False)
        return s

    def open_idle(self, count=IDLE):
        for _ in range(count):
            try:
                self.idle.append(self.connect())
            except OSError as e:
                self.errors.append(f"idle connect: {e}")
                time.sleep(0.01)

    def loris(self):
        chunk = b" " * 65536
        socks = [None] * (LORIS + AUTHED)
        while not self.stop.is_set():
            for i in range(LORIS + AUTHED):
                try:
                    if socks[i] is None:
                        head = loris_head(i, self.munge_socket)
                        socks[i] = self.connect()
                        self.loris_connects += 1
                        socks[i].send(head)
                    else:
                        socks[i].send(chunk)
                except BlockingIOError:
                    pass   # the controller reads no more of it: its buffer is full
                except OSError:
                    self.loris_closed += 1
                    socks[i].close()
                    socks[i] = None
            self.stop.wait(0.2)
        for s in socks:
            if s is not None:
                s.close()

    def close(self):
        self.stop.set()
        for s in self.idle:
            s.close()


def timed(cluster, args, user=None):
    t0 = time.monotonic()
    r = cluster.run(args, user=user, timeout=30)
    return r, time.monotonic() - t0


def test_idle_and_slow_loris_do_not_stop_the_controller(cluster):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < IDLE + LORIS + 200:
        pytest.skip(f"this machine's RLIMIT_NOFILE hard limit ({hard}) is below "
                    f"{IDLE + LORIS + 200}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    pid = cluster.ctld_pid()
    rss_before = rss_kb(pid)
    attack = Attack(cluster.port, cluster.munge_socket)
    loris = threading.Thread(target=attack.loris)
    try:
        loris.start()
        attack.open_idle()
        time.sleep(1)
        peak, slow, worst = rss_kb(pid), [], 0.0
        end = time.monotonic() + ATTACK_S
        rounds = 0
        while time.monotonic() < end:
            r, took = timed(cluster, ["squeue"], user="herdu1")
            assert r.rc == 0, f"squeue under attack: {r}"
            worst = max(worst, took)
            if took >= 1.0:
                slow.append(f"squeue {took:.2f} s")
            r, took = timed(cluster, ["sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true"],
                            user="herdu1")
            assert r.rc == 0, f"sbatch under attack: {r}"
            worst = max(worst, took)
            if took >= 1.0:
                slow.append(f"sbatch {took:.2f} s")
            peak = max(peak, rss_kb(pid))
            rounds += 1
            time.sleep(0.3)
    finally:
        attack.close()
        loris.join()
    print(f"{rounds} rounds of squeue + sbatch, slowest {worst:.3f} s; herdctld RSS "
          f"{rss_before} kB before, {peak} kB at most; {attack.loris_connects} slow-sender "
          f"connections; {len(attack.errors)} idle connects failed")
    assert rounds >= 5
    # A machine shared with other work may stall one command now and then;
    # a controller that the attack slowed down stalls most of them.
    assert len(slow) <= 1, f"{len(slow)} of {2 * rounds} commands took a second or more: {slow}"
    assert peak < RSS_LIMIT_KB, f"herdctld RSS {peak} kB (was {rss_before} kB)"
    assert attack.loris_connects > LORIS + AUTHED, "the slow senders were never cut off"
    assert cluster.ping_ok()
    assert "closing" in cluster.logs(200) or "refused" in cluster.logs(200)


def test_a_node_daemon_under_the_same_attack_still_launches(cluster):
    """herdd reads frames with the same code: jobs still start on its node."""
    node = cluster.nodes[0]
    attack = Attack(int(node["Port"]), cluster.munge_socket)
    loris = threading.Thread(target=attack.loris)
    try:
        loris.start()
        attack.open_idle(500)
        time.sleep(1)
        for _ in range(3):
            t0 = time.monotonic()
            r = cluster.run(["srun", "-w", node["NodeName"], "hostname"], user="herdu1", timeout=30)
            took = time.monotonic() - t0
            assert r.rc == 0, f"srun on {node['NodeName']} under attack: {r}"
            assert took < 5, f"srun on {node['NodeName']} took {took:.1f} s under attack"
        # The sruns may all be done before the senders pass a limit (on a
        # loaded machine they send slowly): the frame deadline, MessageTimeout
        # (10 s), cuts them off at the latest.
        deadline = time.monotonic() + 15
        while attack.loris_connects <= LORIS + AUTHED and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        attack.close()
        loris.join()
    assert attack.loris_connects > LORIS + AUTHED, f"herdd never cut the slow senders off ({attack.loris_connects})"
    print(f"herdd: {attack.loris_connects} slow-sender connections, {attack.loris_closed} closed")
    pid = cluster.herdd_pid(node["NodeName"])
    assert rss_kb(pid) < RSS_LIMIT_KB
