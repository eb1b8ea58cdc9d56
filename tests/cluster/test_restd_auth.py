"""herdrestd acts as the token's user, not as itself: the controller checks
each forwarded JWT (AuthAltTypes=auth/jwt) and applies PrivateData and roles
to the REST caller as to a command.  Also: `scontrol token`, the key's
permissions, who may relay tokens, and /metrics from a snapshot (a flood of
scrapes costs the controller one count, not a job list per scrape).  Its own
cluster, with PrivateData=jobs and SlurmctldDebug=debug (the controller logs
each request it handles, which the flood test counts)."""
import json
import os
import re
import subprocess
import time

import pytest

from conftest import BIN, Cluster, ensure_user, make_root, stop_cluster
from test_restd import API, RESTD, RESTD_USER, Restd, make_jwt

HERDCTLD = os.path.join(BIN, "herdctld")


@pytest.fixture(scope="module")
def c(users):
    ensure_user(RESTD_USER)
    c = Cluster(make_root(), 2)
    try:
        c.up("--cpus", "4", "--memory", "4000")
        with open(c.conf, "a") as f:
            f.write("PrivateData=jobs\nSlurmctldDebug=debug\n")
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture(scope="module")
def restd(c):
    # A page may be 30 s old: 50 scrapes in a row share one.
    r = Restd(c, "", ("-u", RESTD_USER, "--metrics-max-age", "30"))
    r.enable_jwt()
    r.start()
    yield r
    assert r.stop() == 0, r.logs()


def scontrol_token(c, *args, user=None):
    r = c.run(["scontrol", "token", *args], user=user)
    assert r.rc == 0, r
    m = re.fullmatch(r"SLURM_JWT=(\S+)\n", r.out)
    assert m, r.out
    return m.group(1)


@pytest.fixture(scope="module")
def tokens(c, restd):
    # Each user asks for his own, as with Slurm's `scontrol token`.
    return {u: scontrol_token(c, user=u) for u in ("herdu1", "herdu2")}


def held_job(c, user, name):
    return c.sbatch("-H", "-J", name, "-t", "5", "-o", "/dev/null", "--wrap", "true",
                    user=user, cwd=c.workdir(user))


def ctld_log(c):
    with open(os.path.join(c.dir, "log", "herdctld.log"), errors="replace") as f:
        return f.read()


def test_token_sees_what_its_user_may_see(c, restd, tokens):
    """PrivateData=jobs: herdu1's token lists herdu1's jobs, not herdu2's,
    exactly as squeue does for herdu1 (herdrestd's own account sees none)."""
    mine = held_job(c, "herdu1", "rest-mine")
    theirs = held_job(c, "herdu2", "rest-theirs")
    try:
        doc = restd.get_json(f"{API}/jobs", tokens["herdu1"])
        ids = {j["job_id"] for j in doc["jobs"]}
        assert mine in ids and theirs not in ids, doc["jobs"]
        assert {j["user_name"] for j in doc["jobs"]} == {"herdu1"}
        sq = c.run(["squeue", "-h", "-t", "all", "-o", "%i"], user="herdu1")
        assert ids == {int(x) for x in sq.out.split()}
        doc = restd.get_json(f"{API}/jobs", tokens["herdu2"])
        ids = {j["job_id"] for j in doc["jobs"]}
        assert theirs in ids and mine not in ids
        # One job by ID: someone else's is not there for herdu1.
        doc = restd.get_json(f"{API}/job/{theirs}", tokens["herdu1"], status=404)
        assert doc["errors"][0]["error_number"] == 2017
        doc = restd.get_json(f"{API}/job/{mine}", tokens["herdu1"])
        assert doc["jobs"][0]["name"] == "rest-mine"
    finally:
        c.run(["scancel", str(mine), str(theirs)])


def test_token_cannot_cancel_another_users_job(c, restd, tokens):
    mine = held_job(c, "herdu1", "rest-c1")
    theirs = held_job(c, "herdu2", "rest-c2")
    try:
        code, _, body = restd.request(f"{API}/job/{theirs}", tokens["herdu1"], method="DELETE")
        assert code == 403, body
        assert json.loads(body)["errors"][0]["error"] == "Access/permission denied"
        assert c.job_state(theirs) == "PENDING"
        # The owner's token cancels it, as scancel would.
        code, _, body = restd.request(f"{API}/job/{mine}", tokens["herdu1"], method="DELETE")
        assert code == 200 and json.loads(body)["errors"] == [], body
        assert c.wait_done(mine) == "CANCELLED"
        assert c.show_job(mine)["UserId"].startswith("herdu1(")
    finally:
        c.run(["scancel", str(mine), str(theirs)])


def test_submitted_job_belongs_to_the_tokens_user(c, restd, tokens):
    wd = c.workdir("herdu1")
    out = os.path.join(wd, "rest-submit.out")
    req = {"script": "#!/bin/sh\nid -un\n",
           "job": {"name": "rest-sub", "current_working_directory": wd,
                   "standard_output": out, "environment": {"PATH": "/usr/bin:/bin"},
                   "time_limit": 2}}
    code, _, body = restd.request(f"{API}/job/submit", tokens["herdu1"], method="POST",
                                  headers={"Content-Type": "application/json"},
                                  data=json.dumps(req).encode())
    assert code == 200, body
    doc = json.loads(body)
    assert doc["errors"] == [] and doc["step_id"] == "BATCH"
    job = doc["job_id"]
    assert c.run(["squeue", "-h", "-t", "all", "-j", str(job), "-o", "%u %j %l"]).out.split() == \
        ["herdu1", "rest-sub", "2:00"]
    assert c.wait_done(job) == "COMPLETED"
    with open(out) as f:
        assert f.read() == "herdu1\n"      # it ran as herdu1, not as herdrest
    assert os.stat(out).st_uid == ensure_user("herdu1").pw_uid
    # A description the controller would not take is a 400 with a reason.
    bad = dict(req, job=dict(req["job"], nice_try=1))
    code, _, body = restd.request(f"{API}/job/submit", tokens["herdu1"], method="POST",
                                  data=json.dumps(bad).encode())
    assert code == 400 and "job.nice_try" in json.loads(body)["errors"][0]["error"]


def test_submit_heterogeneous_job(c, restd, tokens):
    """v0.0.38's "jobs" array is a heterogeneous job: the first runs the
    script, the others are its components (L+1 ...), all the token user's."""
    wd = c.workdir("herdu1")
    out = os.path.join(wd, "rest-het.out")
    first = {"name": "rest-het", "current_working_directory": wd, "standard_output": out,
             "environment": {"PATH": "/usr/bin:/bin"}, "nodes": 1}
    req = {"script": "#!/bin/sh\necho size=$SLURM_HET_SIZE\n",
           "jobs": [first, dict(first, nodes=2)]}
    code, _, body = restd.request(f"{API}/job/submit", tokens["herdu1"], method="POST",
                                  data=json.dumps(req).encode())
    assert code == 200, body
    job = json.loads(body)["job_id"]
    c.wait_until("both components done", lambda: c.run(
        ["squeue", "-h", "-t", "all", "-j", str(job), "-o", "%i %u %D %T"]).out.split() ==
        [f"{job}+0", "herdu1", "1", "COMPLETED", f"{job}+1", "herdu1", "2", "COMPLETED"])
    with open(out) as f:
        assert f.read() == "size=2\n"


def test_bad_tokens_are_refused_by_the_controller(c, restd, tmp_path):
    jobs = f"{API}/jobs"
    now = int(time.time())
    expired = scontrol_token(c, "lifespan=1", user="herdu1")
    time.sleep(2.2)
    forged = make_jwt(os.urandom(32), {"sun": "herdu1", "exp": now + 600, "iat": now})
    unsigned = make_jwt(restd.key, {"sun": "root", "exp": now + 600}, "none")
    for token, why in ((expired, "expired"), (forged, "invalid token"), (unsigned, "")):
        doc = restd.get_json(jobs, token, status=401)
        assert doc["errors"][0]["error_number"] == 1002, doc
        assert why in doc["errors"][0]["error"]
        # /metrics and /ping take no bad token either.
        assert restd.request("/metrics", token)[0] == 401
        assert restd.request(f"{API}/ping", token)[0] == 401
    assert restd.request("/metrics")[0] == 401
    # The controller judged them (herdrestd holds no key) and said so.
    log = ctld_log(c)
    assert "refused: token expired" in log
    assert "refused: invalid token" in log


def test_scontrol_token(c, restd):
    # A user gets a token for himself only; root for anyone.
    r = c.run(["scontrol", "token", "username=herdu2"], user="herdu1")
    assert r.rc == 1 and "Access/permission denied" in r.err, r
    tok = scontrol_token(c, "username=herdu2", "lifespan=120")
    claims = json.loads(__import__("base64").urlsafe_b64decode(tok.split(".")[1] + "=="))
    assert claims["sun"] == "herdu2" and claims["exp"] - claims["iat"] == 120
    assert restd.get_json(f"{API}/ping", tok)["pings"][0]["ping"] == "UP"
    r = c.run(["scontrol", "token", "username=no-such-user-x"])
    assert r.rc == 1 and "Invalid user id" in r.err, r
    r = c.run(["scontrol", "token", "lifespan=0"])
    assert r.rc == 1 and "Invalid lifespan" in r.err, r


def test_only_the_rest_account_may_relay_tokens(c, restd, tokens):
    """A user who sends JWT_REQUEST himself (here: a herdrestd run as herdu2)
    is refused: tokens reach the controller from herdrestd's account only."""
    r = Restd(c, "", ("-u", "herdu2"), name="herdrestd-u2")
    r.start()
    try:
        code, _, body = r.request(f"{API}/jobs", tokens["herdu1"])
        assert code == 403, body
        assert "may not relay tokens" in json.loads(body)["errors"][0]["error"]
        assert r.request(f"{API}/ping", tokens["herdu1"])[0] == 403
        # It said so when it started; the right account does not.
        assert "herdu2 is not in AuthAltParameters=restd_user=" in r.logs()
        assert "restd_user=" not in restd.logs()
    finally:
        assert r.stop() == 0
    assert "JWT_REQUEST from uid %d refused" % ensure_user("herdu2").pw_uid in ctld_log(c)


def test_metrics_flood_costs_one_count(c, restd, tokens):
    """50 scrapes: one JOB_COUNTS (no JOB_INFO: no job list is built) and one
    token check at the controller, whatever the scrape rate."""
    held = held_job(c, "herdu2", "rest-m")
    try:
        c.wait_state(held, "PENDING")
        time.sleep(0.5)   # the log is written as requests are handled
        before = ctld_log(c)
        pages = [restd.request("/metrics", headers={"Authorization": f"Bearer {tokens['herdu1']}"})
                 for _ in range(50)]
        assert all(p[0] == 200 for p in pages), pages[0]
        assert len({p[2] for p in pages}) == 1   # one snapshot
        # Counts of every user's jobs (no names): herdu2's held job is there.
        m = re.search(r'^herd_jobs\{state="pending"\} (\d+)$', pages[0][2], re.M)
        assert m and int(m.group(1)) >= 1
        time.sleep(0.5)
        new = ctld_log(c)[len(before):]
        counts = {t: len(re.findall(rf"\b{t} from uid", new))
                  for t in ("JOB_INFO", "JOB_COUNTS", "NODE_INFO", "PING")}
        assert counts["JOB_INFO"] == 0, counts
        assert 1 <= counts["JOB_COUNTS"] <= 2, counts
        assert counts["NODE_INFO"] <= 2 and counts["PING"] <= 4, counts
    finally:
        c.run(["scancel", str(held)])


def test_key_must_be_private(c, restd):
    """A key others can read is refused: by a reconfigure (the old one stays)
    and at the controller's start."""
    os.chmod(restd.key_path, 0o644)
    try:
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc == 1 and "accessible by others" in r.err, r
        p = subprocess.run([HERDCTLD, "-D", "-f", c.conf], capture_output=True, text=True,
                           env=c.env(), timeout=20)
        assert p.returncode == 1 and "accessible by others" in p.stderr, p
    finally:
        os.chmod(restd.key_path, 0o600)
    # The running controller still checks tokens with the key it had.
    tok = scontrol_token(c, user="herdu1")
    assert restd.get_json(f"{API}/ping", tok)["pings"][0]["ping"] == "UP"


def test_tokens_need_auth_jwt(c, restd, tokens):
    """With AuthAltTypes=auth/jwt taken out (a reconfigure), the controller
    takes no token and mints none; put back, both work again."""
    with open(c.conf) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("AuthAlt")]
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        assert c.run(["scontrol", "reconfigure"]).rc == 0
        doc = restd.get_json(f"{API}/jobs", tokens["herdu1"], status=401)
        assert "not enabled" in doc["errors"][0]["error"]
        r = c.run(["scontrol", "token"], user="herdu1")
        assert r.rc == 1 and "not enabled" in r.err, r
    finally:
        restd.enable_jwt()
    assert restd.get_json(f"{API}/jobs", tokens["herdu1"])["errors"] == []
