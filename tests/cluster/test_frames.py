"""Hostile frames on the wire: forged credentials (another MUNGE key, garbage,
a credential moved to another body), replays, non-root senders of daemon-only
messages, truncated and malformed frames.  Each is refused and the daemon
stays up.  Frames are built here by hand, after doc/protocol.md; a valid one
is sent first so that a broken builder cannot pass the refusal tests."""
import hashlib
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time

import pytest

MAGIC = 0x48524431
PING, NODE_INFO, NODE_REGISTER, LAUNCH_JOB = 1, 6, 20, 40
RC_AUTH = 1002


def digest(msg_type, dest, body):
    return hashlib.sha256(struct.pack(">H", msg_type) + dest.encode() + b"\0" + body).hexdigest()


def munge_cred(payload, socket_path=None, user=None):
    cmd = ["munge", "-s", payload]
    if socket_path:
        cmd += ["-S", socket_path]
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    return subprocess.run(cmd, capture_output=True, check=True, timeout=10).stdout.strip()


def frame(msg_type, body, cred, req_id=7):
    return struct.pack(">IHHIII", MAGIC, 1, msg_type, req_id, len(cred), len(body)) + cred + body


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def exchange(port, data, close_write=False):
    """Send raw bytes; return the reply object, or None when the daemon closed
    the connection without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        if close_write:
            s.shutdown(socket.SHUT_WR)
        hdr = recv_exact(s, 20)
        if hdr is None:
            return None
        magic, version, rtype, req_id, cred_len, body_len = struct.unpack(">IHHIII", hdr)
        assert magic == MAGIC and version == 1
        payload = recv_exact(s, cred_len + body_len)
        reply = json.loads(payload[cred_len:])
        reply["_type"] = rtype
        reply["_id"] = req_id
        return reply


class Wire:
    def __init__(self, cluster):
        self.c = cluster
        self.dest = f"{cluster.name}:ctld"

    def request(self, msg_type, body=b"{}", user=None, socket_path="default", dest=None):
        sock = self.c.munge_socket if socket_path == "default" else socket_path
        cred = munge_cred(digest(msg_type, dest or self.dest, body), sock, user)
        return frame(msg_type, body, cred)


@pytest.fixture(scope="module")
def wire(cluster):
    return Wire(cluster)


@pytest.fixture(scope="module")
def other_munge():
    """A second munged with a different key: its credentials are valid MUNGE
    credentials that no daemon of the cluster can decode."""
    d = tempfile.mkdtemp(prefix="herd-munge2-", dir="/tmp")
    os.chmod(d, 0o755)
    key = os.path.join(d, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    sock = os.path.join(d, "munge.sock")
    p = subprocess.Popen(["/usr/sbin/munged", "--foreground", f"--socket={sock}",
                          f"--key-file={key}", f"--pid-file={d}/munged.pid",
                          f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed",
                          "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["munge", "-n", "-S", sock], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            pytest.fail("second munged did not start")
        yield sock
    finally:
        p.terminate()
        p.wait(timeout=10)
        shutil.rmtree(d, ignore_errors=True)


def assert_up(cluster, wire):
    reply = exchange(cluster.port, wire.request(PING))
    assert reply is not None and reply["rc"] == 0, reply
    assert cluster.ping_ok()


def test_valid_frame_is_answered(cluster, wire):
    reply = exchange(cluster.port, wire.request(PING))
    assert reply["rc"] == 0, reply
    assert reply["_type"] == PING | 0x8000 and reply["_id"] == 7
    assert reply["cluster"] == cluster.name
    reply = exchange(cluster.port, wire.request(NODE_INFO, user="herdu1"))
    assert reply["rc"] == 0 and len(reply["nodes"]) == cluster.nnodes


def test_replayed_frame_is_refused(cluster, wire):
    data = wire.request(PING)
    assert exchange(cluster.port, data)["rc"] == 0
    reply = exchange(cluster.port, data)
    assert reply is not None and reply["rc"] == RC_AUTH, reply
    assert "error" in reply
    assert_up(cluster, wire)


def test_credential_from_another_key_is_refused(cluster, wire, other_munge):
    reply = exchange(cluster.port, wire.request(PING, socket_path=other_munge))
    assert reply is not None and reply["rc"] == RC_AUTH, reply
    assert_up(cluster, wire)


def test_garbage_credential_is_refused(cluster, wire):
    body = b"{}"
    for cred in (b"MUNGE:garbage:", b"x" * 300, b"\xff\x00\x01"):
        reply = exchange(cluster.port, frame(PING, body, cred))
        assert reply is None or reply["rc"] == RC_AUTH, reply
    # A frame without any credential is not a request either.
    reply = exchange(cluster.port, frame(PING, body, b""))
    assert reply is None or reply["rc"] == RC_AUTH, reply
    assert_up(cluster, wire)


def test_credential_moved_to_another_frame_is_refused(cluster, wire):
    # Made for PING {} but sent with another body, another type, another cluster.
    cred = munge_cred(digest(PING, wire.dest, b"{}"), cluster.munge_socket)
    reply = exchange(cluster.port, frame(PING, b'{ }', cred))
    assert reply["rc"] == RC_AUTH, reply
    cred = munge_cred(digest(PING, wire.dest, b"{}"), cluster.munge_socket)
    reply = exchange(cluster.port, frame(NODE_INFO, b"{}", cred))
    assert reply["rc"] == RC_AUTH, reply
    reply = exchange(cluster.port, wire.request(PING, dest="othercluster:ctld"))
    assert reply["rc"] == RC_AUTH, reply
    assert_up(cluster, wire)


def test_daemon_messages_from_a_user_are_refused(cluster, wire):
    """Only root/SlurmUser may register a node or launch a job on one."""
    node = cluster.nodes[0]
    body = json.dumps({"node": node["NodeName"], "cpus": 1, "boards": 1, "sockets": 1,
                       "cores": 1, "threads": 1, "memory": 1, "boot_time": 0,
                       "start_time": 0, "arch": "x", "os": "x", "jobs": []},
                      separators=(",", ":")).encode()
    reply = exchange(cluster.port, wire.request(NODE_REGISTER, body, user="herdu1"))
    assert reply is not None and reply["rc"] != 0, reply
    # LAUNCH_JOB to a node daemon, as a user: must not run anything.
    marker = os.path.join(cluster.workdir("herdu1"), "forged-launch.marker")
    launch = {"job_id": 999999, "uid": 0, "gid": 0, "umask": 18, "user": "root", "name": "x",
              "partition": "debug", "account": "", "cluster": cluster.name, "submit_host": "x",
              "script": f"#!/bin/sh\ntouch {marker}\n", "argv": [], "env": [],
              "cwd": "/tmp", "stdout": "/dev/null", "stderr": "/dev/null", "stdin": "/dev/null",
              "nodes": node["NodeName"], "num_nodes": 1, "ntasks": 1, "cpus_per_task": 1,
              "cpus_on_node": 1, "mem_mb": 0, "tasks_per_node": "1", "time_limit": -1,
              "kill_wait": 5, "start_time": 0}
    body = json.dumps({"job_id": 999999, "launch": launch}, separators=(",", ":")).encode()
    dest = f"{cluster.name}:{node['NodeName']}"
    reply = exchange(int(node["Port"]), wire.request(LAUNCH_JOB, body, user="herdu1", dest=dest))
    assert reply is not None and reply["rc"] != 0, reply
    time.sleep(1)
    assert not os.path.exists(marker)
    assert_up(cluster, wire)


def test_truncated_and_malformed_frames(cluster, wire):
    good = wire.request(PING)
    # Header promises more than is sent, then the client goes away.
    assert exchange(cluster.port, good[:len(good) - 1], close_write=True) is None
    assert exchange(cluster.port, good[:10], close_write=True) is None
    # Bad magic, bad version: the connection is closed without a reply.
    assert exchange(cluster.port, b"XXXX" + good[4:]) is None
    assert exchange(cluster.port, good[:4] + struct.pack(">H", 99) + good[6:]) is None
    # A body over the limit is refused from its header alone.
    big = struct.pack(">IHHIII", MAGIC, 1, PING, 1, 10, 1 << 30)
    assert exchange(cluster.port, big) is None
    # A credential over 4096 bytes likewise.
    big = struct.pack(">IHHIII", MAGIC, 1, PING, 1, 1 << 20, 2)
    assert exchange(cluster.port, big) is None
    # Trailing bytes after the JSON body, and a body that is not an object.
    for body in (b"{} x", b"[]", b"{\"a\":", b"\xff\xfe"):
        reply = exchange(cluster.port, wire.request(PING, body))
        assert reply is None or reply["rc"] != 0, (body, reply)
    # Unknown message type.
    reply = exchange(cluster.port, wire.request(999))
    assert reply is None or reply["rc"] != 0, reply
    assert_up(cluster, wire)
    # The node daemons survive the same.
    for node in cluster.nodes:
        assert exchange(int(node["Port"]), good[:10], close_write=True) is None
        assert exchange(int(node["Port"]), b"XXXX" + good[4:]) is None
    cluster.wait_nodes_idle()


SUBMIT_JOB = 2


def submit_body(key):
    job = {"name": "keyed", "script": "#!/bin/sh\ntrue\n", "argv": [], "env": [], "cwd": "/tmp",
           "stdout": "/dev/null", "stderr": "", "stdin": "", "partition": "", "nodes": 0,
           "ntasks": 0, "cpus_per_task": 0, "mem_mb": 0, "exclusive": False,
           "time_limit": -2, "hold": True, "submit_host": "h", "umask": 18, "account": "",
           "comment": ""}
    return json.dumps({"key": key, "job": job}).encode()


def test_submission_key_makes_one_job(cluster, wire):
    """A retry after a lost reply carries the same key (and a fresh credential):
    it gets the first job's ID, and there is one job.  Keys are per user."""
    key = os.urandom(16).hex()
    body = submit_body(key)
    first = exchange(cluster.port, wire.request(SUBMIT_JOB, body, user="herdu1"))
    assert first["rc"] == 0, first
    again = exchange(cluster.port, wire.request(SUBMIT_JOB, body, user="herdu1"))
    assert again["rc"] == 0 and again["job_id"] == first["job_id"], (first, again)
    r = cluster.run(["squeue", "-h", "-u", "herdu1", "-n", "keyed", "-o", "%i"])
    assert r.out.split() == [str(first["job_id"])], r
    # The same key from another user is another submission.
    other = exchange(cluster.port, wire.request(SUBMIT_JOB, body, user="herdu2"))
    assert other["rc"] == 0 and other["job_id"] != first["job_id"], other
    # And it holds across a controller restart (the key is in the store).
    os.kill(cluster.ctld_pid(), 9)
    cluster.wait_until("the controller to die", lambda: not cluster.daemon_pids("herdctld"))
    cluster.restart_ctld()
    cluster.wait_until("the controller", cluster.ping_ok)
    after = exchange(cluster.port, wire.request(SUBMIT_JOB, body, user="herdu1"))
    assert after["rc"] == 0 and after["job_id"] == first["job_id"], after
    cluster.run(["scancel", str(first["job_id"]), str(other["job_id"])])
