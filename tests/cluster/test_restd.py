"""herdrestd against a real cluster: the slurmrestd v0.0.38 JSON API with JWT
auth (the controller checks each token: AuthAltTypes=auth/jwt), /metrics in
OpenMetrics text, and the refusals (bad tokens, unknown paths, wrong methods,
oversized or malformed requests).  One shared 4-node cluster; herdrestd runs
as its own account, herdrest (started as root with -u, as slurmrestd).
test_restd_auth.py checks that the controller acts as the token's user."""
import base64
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import BIN, ensure_user

# HERD_RESTD runs another build (e.g. a sanitizer one) under the same tests.
RESTD = os.environ.get("HERD_RESTD", os.path.join(BIN, "herdrestd"))
API = "/slurm/v0.0.38"
INFINITE = 4294967295
RESTD_USER = "herdrest"   # herdrestd's own account: not a user whose jobs are looked at


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_jwt(key, claims, alg="HS256"):
    """A token made by hand (not by herdrestd), as any JWT library would."""
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384}.get(alg)
    head = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    body = b64url(json.dumps(claims).encode())
    msg = f"{head}.{body}".encode()
    sig = b64url(hmac.new(key, msg, digest).digest()) if digest else ""
    return f"{head}.{body}.{sig}"


class Restd:
    def __init__(self, cluster, extra_conf="", args=(), name="herdrestd"):
        self.cluster = cluster
        self.key_path = os.path.join(cluster.root, "jwt.key")
        if not os.path.exists(self.key_path):
            with open(self.key_path, "wb") as f:
                f.write(os.urandom(64))
            os.chmod(self.key_path, 0o600)
        self.key = open(self.key_path, "rb").read()
        self.conf = os.path.join(cluster.root, f"{name}.conf")
        with open(self.conf, "w") as f:
            f.write(f"Include {cluster.conf}\n{extra_conf}")
        os.chmod(self.conf, 0o644)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = os.path.join(cluster.dir, "log", f"{name}.log")
        self.argv = [RESTD, "-v", "-f", self.conf, *args, f"127.0.0.1:{self.port}"]
        self.proc = None

    def start(self):
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                     env=self.cluster.env(), start_new_session=True)
        out.close()
        deadline = time.time() + 20
        while time.time() < deadline:
            assert self.proc.poll() is None, f"herdrestd exited {self.proc.returncode}\n{self.logs()}"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        pytest.fail(f"herdrestd did not listen on {self.port}\n{self.logs()}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            return self.proc.wait(timeout=20)
        return self.proc.returncode if self.proc else None

    def logs(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def enable_jwt(self, extra=""):
        """auth/jwt in the controller: the key (root's, 0600), herdrestd's
        account as the one that may relay tokens; applied by a reconfigure."""
        ensure_user(RESTD_USER)
        c = self.cluster
        with open(c.conf) as f:
            lines = [l for l in f.read().splitlines()
                     if l.split("=", 1)[0] not in ("AuthAltTypes", "AuthAltParameters")]
        lines += ["AuthAltTypes=auth/jwt",
                  f"AuthAltParameters=jwt_key={self.key_path},restd_user={RESTD_USER}{extra}"]
        with open(c.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r

    def token(self, user, *args):
        p = subprocess.run([RESTD, "-f", self.conf, "--token", user, *args],
                           capture_output=True, text=True, env=self.cluster.env(), timeout=20)
        assert p.returncode == 0, p.stderr
        m = re.fullmatch(r"SLURM_JWT=(\S+)\n", p.stdout)
        assert m, p.stdout
        return m.group(1)

    def request(self, path, token=None, user=None, method="GET", headers=None, data=None):
        """(status, headers, body text); never raises on an HTTP error status."""
        h = dict(headers or {})
        if token is not None:
            h["X-SLURM-USER-TOKEN"] = token
        if user is not None:
            h["X-SLURM-USER-NAME"] = user
        req = urllib.request.Request(self.base + path, method=method, headers=h, data=data)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode()

    def get_json(self, path, token=None, user=None, method="GET", status=200):
        code, headers, body = self.request(path, token, user, method)
        assert code == status, f"{method} {path}: {code} {body}\n{self.logs()}"
        assert headers["Content-Type"] == "application/json"
        doc = json.loads(body)
        assert doc["meta"]["plugin"]["type"] == "openapi/v0.0.38"
        assert isinstance(doc["errors"], list)
        return doc


@pytest.fixture(scope="module")
def restd(cluster):
    # Scrapes see a page at most a second old: the page is compared with squeue.
    r = Restd(cluster, "", ("-u", RESTD_USER, "--metrics-max-age", "1"))
    r.enable_jwt()
    r.start()
    yield r
    rc = r.stop()
    assert rc == 0, f"herdrestd exited {rc} on SIGTERM\n{r.logs()}"


@pytest.fixture(scope="module")
def token(restd):
    return restd.token("herdu1")


def raw_http(port, data, timeout=10):
    """Send raw bytes; return what the server answered before closing."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        return out


def test_runs_as_the_unprivileged_user(restd, users):
    with open(f"/proc/{restd.proc.pid}/status") as f:
        uids = re.search(r"^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", f.read(), re.M).groups()
    assert set(int(u) for u in uids) == {ensure_user(RESTD_USER).pw_uid}


def test_ping(restd, token):
    doc = restd.get_json(f"{API}/ping", token)
    assert doc["errors"] == []
    assert len(doc["pings"]) == 1
    ping = doc["pings"][0]
    assert ping["ping"] == "UP" and ping["status"] == 0 and ping["mode"] == "primary"
    assert doc["meta"]["Slurm"]["version"]["major"] == 22
    # slurmrestd's query parameters (update_time) are accepted and ignored.
    doc = restd.get_json(f"{API}/jobs?update_time=0", token)
    assert doc["errors"] == [] and isinstance(doc["jobs"], list)


def test_token_command(restd, users):
    tok = restd.token("herdu2", "--lifespan", "120")
    head, body, sig = tok.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    assert header["alg"] == "HS256"
    assert claims["sun"] == "herdu2"
    assert claims["exp"] - claims["iat"] == 120
    assert abs(claims["iat"] - time.time()) < 30
    # The signature is HS256 over the key file, so any JWT library agrees.
    assert sig == b64url(hmac.new(restd.key, f"{head}.{body}".encode(), hashlib.sha256).digest())
    # scontrol token's default lifespan is 1800 s.
    claims = json.loads(base64.urlsafe_b64decode(restd.token("herdu1").split(".")[1] + "=="))
    assert claims["exp"] - claims["iat"] == 1800
    p = subprocess.run([RESTD, "-f", restd.conf, "--token", "no-such-user-x"],
                       capture_output=True, text=True, env=restd.cluster.env())
    assert p.returncode != 0 and "Invalid user" in p.stderr


def job_by_id(doc, job_id):
    found = [j for j in doc["jobs"] if j["job_id"] == job_id]
    assert len(found) == 1, doc["jobs"]
    return found[0]


def test_jobs_after_sbatch(restd, token, cluster, users):
    wd = cluster.workdir("herdu1")
    held = cluster.sbatch("-H", "-J", "rest-held", "-t", "5", "-o", "/dev/null", "--wrap", "true",
                          user="herdu1", cwd=wd)
    running = cluster.sbatch("-J", "rest-run", "-o", "/dev/null", "--wrap", "sleep 300",
                             user="herdu1", cwd=wd)
    try:
        cluster.wait_state(held, "PENDING")
        cluster.wait_state(running, "RUNNING")
        doc = restd.get_json(f"{API}/jobs", token)
        assert doc["errors"] == []
        uid = users["herdu1"].pw_uid

        j = job_by_id(doc, held)
        assert j["job_state"] == "PENDING"
        assert j["user_name"] == "herdu1" and j["user_id"] == uid
        assert j["name"] == "rest-held"
        assert j["partition"] == "debug"
        assert j["time_limit"] == 5                      # minutes, as v0.0.38
        assert j["state_reason"] == cluster.run(
            ["squeue", "-h", "-j", str(held), "-o", "%r"]).out.strip()
        assert j["nodes"] == "" and j["start_time"] == 0
        assert abs(j["submit_time"] - time.time()) < 120

        j = job_by_id(doc, running)
        assert j["job_state"] == "RUNNING"
        assert j["user_name"] == "herdu1"
        assert j["name"] == "rest-run"
        sq = cluster.run(["squeue", "-h", "-j", str(running), "-o", "%N %D %C"]).out.split()
        assert [j["nodes"], str(j["node_count"]), str(j["cpus"])] == sq
        assert j["start_time"] > 0
        assert j["time_limit"] == INFINITE                # MaxTime=UNLIMITED, no -t
        assert j["current_working_directory"] == wd

        # One job by its ID.
        doc = restd.get_json(f"{API}/job/{held}", token)
        assert [j["job_id"] for j in doc["jobs"]] == [held]
        assert doc["jobs"][0]["job_state"] == "PENDING"
    finally:
        cluster.run(["scancel", str(held), str(running)])
    cluster.wait_done(running, timeout=30)
    doc = restd.get_json(f"{API}/job/{running}", token)
    assert doc["jobs"][0]["job_state"] == "CANCELLED"
    assert doc["jobs"][0]["end_time"] >= doc["jobs"][0]["start_time"] > 0


def test_unknown_job(restd, token):
    doc = restd.get_json(f"{API}/job/999999", token, status=404)
    assert doc["jobs"] == []
    assert doc["errors"][0]["error_number"] == 2017
    assert doc["errors"][0]["error"] == "Invalid job id specified"
    doc = restd.get_json(f"{API}/job/abc", token, status=400)
    assert doc["errors"]


def test_nodes(restd, token, cluster):
    cluster.wait_nodes_idle()
    doc = restd.get_json(f"{API}/nodes", token)
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert sorted(nodes) == sorted(n["NodeName"] for n in cluster.nodes)
    sinfo = cluster.run(["sinfo", "-h", "-N", "-o", "%N %T %c %m"]).out.split("\n")
    for line in filter(None, sinfo):
        name, state, cpus, mem = line.split()
        n = nodes[name]
        assert n["state"] == state.rstrip("*")
        assert n["cpus"] == int(cpus) and n["real_memory"] == int(mem)
        assert n["idle_cpus"] == n["cpus"] - n["alloc_cpus"]
        assert n["partitions"] == ["debug"]
        assert n["state_flags"] == []
    one = cluster.nodes[0]["NodeName"]
    doc = restd.get_json(f"{API}/node/{one}", token)
    assert [n["name"] for n in doc["nodes"]] == [one]
    doc = restd.get_json(f"{API}/node/nosuchnode", token, status=404)
    assert doc["nodes"] == [] and doc["errors"][0]["error"] == "Invalid node name specified"


def test_partitions(restd, token, cluster):
    doc = restd.get_json(f"{API}/partitions", token)
    assert [p["name"] for p in doc["partitions"]] == ["debug"]
    p = doc["partitions"][0]
    assert p["total_nodes"] == cluster.nnodes
    assert "default" in p["flags"]
    assert p["max_time_limit"] == INFINITE
    assert p["state"] == "UP"
    total = sum(int(n["CPUs"]) for n in cluster.nodes)
    assert p["total_cpus"] == total
    doc = restd.get_json(f"{API}/partition/debug", token)
    assert len(doc["partitions"]) == 1
    restd.get_json(f"{API}/partition/nosuch", token, status=404)


def test_licenses(restd, token, cluster):
    """GET licenses: scontrol show licenses' counts, v0.0.38's keys; a job's
    licenses in its record."""
    assert restd.get_json(f"{API}/licenses", token)["licenses"] == []
    with open(cluster.conf) as f:
        saved = f.read()
    try:
        with open(cluster.conf, "w") as f:
            f.write(saved + "Licenses=fluent:3\n")
        assert cluster.run(["scontrol", "reconfigure"]).rc == 0
        job = cluster.sbatch("-H", "-L", "fluent:2", "--wrap", "true", user="herdu1")
        doc = restd.get_json(f"{API}/licenses", token)
        assert doc["licenses"] == [{"LicenseName": "fluent", "Total": 3, "Used": 0, "Free": 3,
                                    "Reserved": 0, "Remote": False}]
        assert job_by_id(restd.get_json(f"{API}/job/{job}", token), job)["licenses"] == "fluent:2"
        assert cluster.run(["scancel", str(job)]).rc == 0
    finally:
        with open(cluster.conf, "w") as f:
            f.write(saved)
        assert cluster.run(["scontrol", "reconfigure"]).rc == 0


def assert_401(restd, path, token=None, user=None, why=None):
    doc = restd.get_json(path, token, user, status=401)
    assert doc["errors"], doc
    assert doc["errors"][0]["error_number"] == 1002
    if why:
        assert why in doc["errors"][0]["error"], doc["errors"]
    return doc


def test_auth_refusals(restd, token, cluster, tmp_path):
    jobs = f"{API}/jobs"
    assert_401(restd, jobs, why="missing X-SLURM-USER-TOKEN")
    assert_401(restd, jobs, token="", why="missing")
    assert_401(restd, jobs, token="not-a-jwt", why="invalid token")
    # Signed with another key.
    other = tmp_path / "other.key"
    other.write_bytes(os.urandom(64))
    other.chmod(0o600)
    p = subprocess.run([RESTD, "--jwt-key", str(other), "--token", "herdu1"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert_401(restd, jobs, token=p.stdout.strip().split("=", 1)[1], why="invalid token")
    # A flipped signature byte.
    bad = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    assert_401(restd, jobs, token=bad)
    # Expired.
    short = restd.token("herdu1", "--lifespan", "1")
    time.sleep(2.2)
    assert_401(restd, jobs, token=short, why="expired")
    now = int(time.time())
    # Unsigned ("alg": "none"), another HMAC, no exp, no sun: all refused.
    assert_401(restd, jobs, token=make_jwt(restd.key, {"sun": "herdu1", "exp": now + 60}, "none"))
    assert_401(restd, jobs, token=make_jwt(restd.key, {"sun": "herdu1", "exp": now + 60}, "HS384"))
    assert_401(restd, jobs, token=make_jwt(restd.key, {"sun": "herdu1"}), why="exp")
    assert_401(restd, jobs, token=make_jwt(restd.key, {"exp": now + 60}), why="sun")
    # The user header must name the token's user.
    assert_401(restd, jobs, token=token, user="root", why="does not match")
    assert_401(restd, jobs, token=token, user="h\xe9rdu1", why="does not match")   # not UTF-8
    # Each refusal is logged with the peer address.
    assert "refused GET /slurm/v0.0.38/jobs from 127.0.0.1" in restd.logs()

    # What is accepted: our token, with or without the matching header, and a
    # token made by another JWT implementation with the same key.
    restd.get_json(jobs, token, user="herdu1")
    restd.get_json(jobs, make_jwt(restd.key, {"sun": "herdu2", "exp": now + 60, "iat": now}))


def parse_metrics(text):
    """OpenMetrics text -> ({(name, labels): value}, {family: type}); asserts the syntax."""
    assert text.endswith("# EOF\n"), text[-200:]
    lines = text[:-len("# EOF\n")].split("\n")[:-1]
    samples, types, helps = {}, {}, set()
    for line in lines:
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert name not in types, f"family {name} declared twice"
            types[name] = kind
            continue
        if line.startswith("# HELP "):
            helps.add(line.split(" ", 3)[2])
            continue
        if line.startswith("# UNIT "):
            continue
        m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(\w+)="([^"]*)"\})? (-?\d+(?:\.\d+)?)', line)
        assert m, f"bad sample line {line!r}"
        name, label, lval, value = m.groups()
        assert name in types, f"sample {name} before its # TYPE"
        key = (name, lval if label else None)
        assert key not in samples, f"duplicate sample {line!r}"
        samples[key] = float(value)
    assert helps == set(types), "every family has a # HELP"
    return samples, types


def squeue_counts(cluster):
    r = cluster.run(["squeue", "-h", "-t", "all", "-o", "%T"])
    assert r.rc == 0, r
    counts = {}
    for s in r.out.split():
        counts[s.lower()] = counts.get(s.lower(), 0) + 1
    return counts


def sinfo_snapshot(cluster):
    """({state: count} from sinfo -N %T, allocated CPUs, total CPUs from %C)."""
    states = {}
    for line in filter(None, cluster.run(["sinfo", "-h", "-N", "-o", "%N %T"]).out.split("\n")):
        s = line.split()[1].rstrip("*")
        states[s] = states.get(s, 0) + 1
    alloc, idle, other, total = map(int, cluster.run(["sinfo", "-h", "-o", "%C"]).out.split("/"))
    return states, alloc, total


def test_metrics_match_squeue_and_sinfo(restd, token, cluster):
    wd = cluster.workdir("herdu2")
    held = cluster.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user="herdu2", cwd=wd)
    running = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu2", cwd=wd)
    try:
        cluster.wait_state(running, "RUNNING")
        # The page and the commands are compared at a moment when the
        # commands saw the same before and after it.
        for _ in range(20):
            before = squeue_counts(cluster), sinfo_snapshot(cluster)
            # The page is at most a second old (--metrics-max-age 1): one
            # asked for after a second is the cluster's state now.
            time.sleep(1.1)
            code, headers, text = restd.request("/metrics", token)
            after = squeue_counts(cluster), sinfo_snapshot(cluster)
            if before == after:
                break
            time.sleep(0.2)
        assert before == after, "the cluster never stood still"
        assert code == 200, text
        assert headers["Content-Type"].startswith("application/openmetrics-text; version=1.0.0")
        samples, types = parse_metrics(text)
        for fam in ("herd_jobs", "herd_nodes", "herd_cpus_total", "herd_cpus_alloc"):
            assert types[fam] == "gauge"
        jobs = {lv: int(v) for (n, lv), v in samples.items() if n == "herd_jobs"}
        job_counts, (states, alloc, total) = before
        assert {k: v for k, v in jobs.items() if v} == job_counts
        assert jobs["pending"] >= 1 and jobs["running"] >= 1
        nodes = {lv: int(v) for (n, lv), v in samples.items() if n == "herd_nodes"}
        assert {k: v for k, v in nodes.items() if v} == states
        assert sum(nodes.values()) == cluster.nnodes
        assert samples[("herd_cpus_total", None)] == total
        assert samples[("herd_cpus_alloc", None)] == alloc >= 1
    finally:
        cluster.run(["scancel", str(held), str(running)])
    cluster.wait_done(running, timeout=30)
    # HEAD gives the headers without the page.
    code, headers, body = restd.request("/metrics", token, method="HEAD")
    assert code == 200 and body == ""


def test_bad_requests(restd, token):
    code, headers, body = restd.request("/no/such/path", token)
    assert code == 404 and json.loads(body)["errors"][0]["error"] == "Unknown URL"
    code, headers, body = restd.request(f"{API}/diag", token)
    assert code == 404
    code, headers, body = restd.request(f"{API}/jobs", token, method="POST", data=b"{}")
    assert code == 405 and headers["Allow"] == "GET, HEAD"
    assert json.loads(body)["errors"]
    # DELETE of a job is a cancel (test_restd_auth.py); of a job that is not there, a 404.
    code, headers, body = restd.request(f"{API}/job/999999", token, method="DELETE")
    assert code == 404 and json.loads(body)["errors"][0]["error_number"] == 2017
    code, headers, body = restd.request(f"{API}/job/submit", token)
    assert code == 405 and headers["Allow"] == "POST"
    code, headers, body = restd.request("/metrics", method="PUT", data=b"x")
    assert code == 405
    # A body beyond what any request needs is refused from its Content-Length,
    # before it is read (so a raw socket: urllib would still be sending).
    answer = raw_http(restd.port, b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nHost: x\r\n"
                      b"X-SLURM-USER-TOKEN: " + token.encode() +
                      b"\r\nContent-Length: 1048576\r\n\r\n" + b"x" * 1000)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b'"errors"' in answer
    # Headers past the per-connection memory: refused, no crash.
    answer = raw_http(restd.port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " +
                      b"a" * 100000 + b"\r\n\r\n")
    assert answer == b"" or answer.split(b" ", 2)[1] in (b"413", b"431", b"400"), answer[:100]
    # Not HTTP at all; a request line with no end; a NUL in the path.
    for junk in (b"GARBAGE\r\n\r\n", b"\x00\x01\x02\xff" * 1000, b"GET /" + b"a" * 70000,
                 b"GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"):
        answer = raw_http(restd.port, junk, timeout=5)
        assert answer == b"" or answer.startswith(b"HTTP/1."), answer[:100]
    # A chunked body that never ends within the limit is cut off.
    chunk = b"10000\r\n" + b"y" * 0x10000 + b"\r\n"
    answer = raw_http(restd.port, b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\nX-SLURM-USER-TOKEN: " + token.encode() +
                      b"\r\n\r\n" + chunk * 4, timeout=5)
    assert b"200 OK" not in answer
    # Still serving.
    assert restd.request(f"{API}/ping", token)[0] == 200
    assert restd.proc.poll() is None


def test_many_clients_at_once(restd, token):
    import concurrent.futures
    paths = [f"{API}/jobs", f"{API}/nodes", f"{API}/partitions", "/metrics", f"{API}/ping"] * 8
    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        codes = list(pool.map(lambda p: restd.request(p, token)[0], paths))
    assert codes == [200] * len(paths)


def run_restd(cluster, *args, conf=None):
    return subprocess.run([RESTD, *(["-f", conf] if conf else []), *args], capture_output=True,
                          text=True, env=cluster.env(), timeout=20)


def test_refuses_to_start_unsafely(cluster, restd, tmp_path):
    port = str(free_port())
    # No auth/jwt in the controller: tokens could not be checked.
    noauth = tmp_path / "noauth.conf"
    noauth.write_text("".join(l for l in open(cluster.conf) if not l.startswith("AuthAlt")))
    noauth.chmod(0o644)
    r = run_restd(cluster, "-u", RESTD_USER, f"127.0.0.1:{port}", conf=str(noauth))
    assert r.returncode == 1 and "AuthAltTypes=auth/jwt" in r.stderr, r
    # herdrestd holds no key while serving.
    r = run_restd(cluster, "-u", RESTD_USER, "--jwt-key", restd.key_path, f"127.0.0.1:{port}",
                  conf=restd.conf)
    assert r.returncode == 1 and "holds no key" in r.stderr, r
    # As root without -u.
    r = run_restd(cluster, f"127.0.0.1:{port}", conf=restd.conf)
    assert r.returncode == 1 and "must not run as root" in r.stderr, r
    # -u root is no better.
    r = run_restd(cluster, "-u", "root", f"127.0.0.1:{port}", conf=restd.conf)
    assert r.returncode == 1 and "not root or SlurmUser" in r.stderr, r
    # Nor SlurmUser: -u to it, or started as it.
    # (under the cluster's world-readable root: herdu2 reads it)
    slurm = os.path.join(cluster.root, "slurmuser.conf")
    with open(slurm, "w") as f:
        f.write(f"Include {restd.conf}\nSlurmUser=herdu2\n")
    os.chmod(slurm, 0o644)
    r = run_restd(cluster, "-u", "herdu2", f"127.0.0.1:{port}", conf=slurm)
    assert r.returncode == 1 and "not root or SlurmUser" in r.stderr, r
    r = subprocess.run(["runuser", "-u", "herdu2", "--", RESTD, "-f", slurm,
                        f"127.0.0.1:{port}"], capture_output=True, text=True,
                       env=cluster.env(), timeout=20)
    assert r.returncode == 1 and "must not run as SlurmUser" in r.stderr, r
    r = subprocess.run(["runuser", "-u", "herdu2", "--", RESTD, "-f", slurm, "-u", "herdu2",
                        f"127.0.0.1:{port}"], capture_output=True, text=True,
                       env=cluster.env(), timeout=20)
    assert r.returncode == 1 and "must not run as SlurmUser" in r.stderr, r
    # No tokens only on loopback.
    r = run_restd(cluster, "-a", "none", "-u", RESTD_USER, f"0.0.0.0:{port}", conf=cluster.conf)
    assert r.returncode == 1 and "loopback" in r.stderr, r
    # Bad LISTEN and options.
    for listen in ("nonsense", "127.0.0.1:0", "127.0.0.1:99999", "unix:/tmp/x"):
        r = run_restd(cluster, "-u", RESTD_USER, listen, conf=restd.conf)
        assert r.returncode == 1 and "herdrestd: error:" in r.stderr, (listen, r)
    r = run_restd(cluster, "--jwt-key", "/nonexistent/key", "--token", "herdu1")
    assert r.returncode == 1 and "/nonexistent/key" in r.stderr, r


def test_controller_down_and_no_auth_mode(cluster):
    """-a none on loopback serves without tokens; a controller that does not
    answer gives ping DOWN, 503 with an error for the API, 503 for /metrics."""
    dead = free_port()
    r = Restd(cluster, f"SlurmctldPort={dead}\nMessageTimeout=2\n", ("-a", "none", "-u", RESTD_USER),
              name="herdrestd-dead")
    r.start()
    try:
        doc = r.get_json(f"{API}/ping")
        assert doc["pings"][0]["ping"] == "DOWN" and doc["errors"]
        doc = r.get_json(f"{API}/jobs", status=503)
        assert doc["jobs"] == [] and "Unable to contact the controller" in doc["errors"][0]["error"]
        code, headers, body = r.request("/metrics")
        assert code == 503 and "# EOF" not in body
    finally:
        assert r.stop() == 0
