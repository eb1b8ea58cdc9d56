"""sreport over a small account tree after real jobs ran: every figure of
cluster utilization, cluster AccountUtilizationByUser, user TopUsage and
job SizesByAccount adds up to sacct's CPU time for the same jobs and
window; the banner and columns, -t's formats, -n/-p/-P, users=/accounts=/
grouping=/clusters=, a node's down time, PrivateData=usage, and errors."""
import re
import time

import pytest

from conftest import start_cluster, stop_cluster


@pytest.fixture(scope="module")
def c(users):
    cl = start_cluster(2)
    try:
        yield cl
    finally:
        stop_cluster(cl)


def ok(c, args, user=None):
    r = c.run(args, user=user)
    assert r.rc == 0, r
    assert r.err == "", r
    return r.out


def set_conf(c, **keys):
    with open(c.conf) as f:
        lines = [line for line in f if line.split("=", 1)[0] not in keys]
    lines += [f"{k}={v}\n" for k, v in keys.items() if v is not None]
    with open(c.conf, "w") as f:
        f.writelines(lines)
    ok(c, ["scontrol", "reconfigure"])


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


@pytest.fixture(scope="module")
def work(c):
    """root -> phys (herdu1), chem (herdu2) -> qm (herdu1); three jobs; the
    window: the hour they ran in (an end past now is now, rounded to the
    hour, and a window is at least an hour)."""
    for args in (["account", "phys"], ["account", "chem"], ["account", "qm", "parent=chem"],
                 ["user", "herdu1", "account=phys"], ["user", "herdu1", "account=qm"],
                 ["user", "herdu2", "account=chem"]):
        ok(c, ["sacctmgr", "-i", "add", *args])
    # sreport's window is whole hours: keep the jobs out of the last
    # minutes of one
    if 3600 - time.time() % 3600 < 90:
        time.sleep(3600 - time.time() % 3600 + 1)
    t0 = time.time()
    lt = time.localtime(t0)
    start = int(time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday, lt.tm_hour, 0, 0, 0, 0, -1)))
    for user, account, n in (("herdu1", "phys", "2"), ("herdu2", "chem", "1"),
                             ("herdu1", "qm", "1")):
        run_job(c, user, "-A", account, "-n", n, "--wrap", "sleep %d" % (4 - int(n)))
    w = {"start": start, "end": start + 3600,
         "args": [f"start={stamp(start)}", f"end={stamp(start + 7200)}"]}
    # each account's jobs (one user each) as sacct counts them
    out = ok(c, ["sacct", "-a", "-X", "-n", "-P", "-o", "Account,CPUTimeRAW",
                 "-S", stamp(start), "-E", stamp(start + 3600)])
    w["secs"] = {}
    for line in out.splitlines():
        a, t = line.split("|")
        w["secs"][a] = w["secs"].get(a, 0) + int(t)
    assert set(w["secs"]) == {"phys", "chem", "qm"} and all(w["secs"].values()), w
    return w


def run_job(c, user, *args):
    """Submit and wait for the job to complete."""
    j = c.sbatch(*args, "-o", "/dev/null", user=user, cwd=c.workdir(user))
    assert c.wait_done(j) == "COMPLETED"
    return j


def sreport(c, *args, user=None):
    return ok(c, ["sreport", *args], user=user)


def rows(out):
    """-P output as dicts (after the banner's four lines)."""
    lines = out.splitlines()
    if lines and lines[0].startswith("-----"):
        lines = lines[4:]
    head = lines[0].split("|")
    return [dict(zip(head, line.split("|"))) for line in lines[1:]]


def test_cluster_utilization_adds_up(c, work):
    before = time.time()
    r = rows(sreport(c, "-P", "-t", "seconds", "cluster", "utilization", *work["args"]))
    after = time.time()
    assert list(r[0]) == ["Cluster", "Allocated", "Down", "PLND Down", "Idle", "Reserved",
                          "Reported"]
    (u,) = r
    assert u["Cluster"] == c.name
    alloc, down, idle, rep = (int(u[k]) for k in ("Allocated", "Down", "Idle", "Reported"))
    # sacct's CPU time of every job in the window, summed
    out = ok(c, ["sacct", "-a", "-X", "-n", "-P", "-o", "CPUTimeRAW", "-S", stamp(work["start"]),
                 "-E", stamp(work["end"])])
    assert alloc == sum(int(x) for x in out.split()) == sum(work["secs"].values()) >= 10
    assert (u["PLND Down"], u["Reserved"]) == ("0", "0")
    assert alloc + down + idle == rep
    per_node = int(c.nodes[0]["CPUs"])
    cpus = per_node * len(c.nodes)
    assert rep % cpus == 0
    assert cpus * int(before - work["start"]) - cpus <= rep <= cpus * int(after - work["start"] + 1)


def test_banner_and_columns(c, work):
    out = sreport(c, "cluster", "utilization", *work["args"])
    lines = out.splitlines()
    dash = "-" * 80
    assert lines[0] == dash and lines[3] == dash
    assert lines[1] == "Cluster Utilization %s - %s (3600 secs)" % (
        stamp(work["start"]), stamp(work["end"] - 1))
    assert lines[2] == "Usage reported in CPU Minutes"
    # each time column as wide as its figure needs: 8 for these, the
    # titles cut to it
    assert lines[4] == "  Cluster Allocate     Down PLND Dow     Idle Reserved Reported "
    assert lines[5] == " ".join("-" * w for w in (9, 8, 8, 8, 8, 8, 8)) + " "
    p = rows(sreport(c, "-P", "-t", "seconds", "cluster", "utilization", *work["args"]))[0]
    minutes = "%.0f" % (int(p["Allocated"]) / 60)
    shown = c.name if len(c.name) <= 9 else c.name[:8] + "+"   # cut as Slurm cuts
    assert lines[6].split()[:2] == [shown, minutes]
    assert len(lines) == 7
    # -t percent, -t hourper; -n drops banner and header; -p ends with '|'
    out = sreport(c, "-t", "percent", "cluster", "utilization", *work["args"]).splitlines()
    assert out[2] == "Usage reported in Percentage of Total"
    cells = out[6].split()
    assert all(re.fullmatch(r"\d+\.\d\d%", x) for x in cells[1:]), cells
    assert cells[-1] == "100.00%"
    out = sreport(c, "-n", "-t", "hourper", "cluster", "utilization", *work["args"]).splitlines()
    assert len(out) == 1 and re.fullmatch(r"\d+\(\d+\.\d\d%\)", out[0].split()[1]), out
    out = sreport(c, "-n", "-p", "cluster", "utilization", *work["args"]).splitlines()
    assert len(out) == 1 and out[0].endswith("|") and out[0].count("|") == 7
    # options after the report, and a window that ends before the jobs
    out = sreport(c, "cluster", "utilization", *work["args"], "-t", "s", "-P", "-n")
    assert out.split("|")[1] == p["Allocated"]
    out = sreport(c, "-P", "-n", "-t", "s", "cluster", "utilization",
                  f"start={stamp(work['start'] - 7200)}", f"end={stamp(work['start'])}")
    assert out.split("|")[1] == "0"
    # -T cpu: the TRES named in a column of its own, and in the banner
    out = sreport(c, "-T", "cpu", "cluster", "utilization", *work["args"]).splitlines()
    assert out[2] == "Usage reported in TRES Minutes"
    assert out[4].split()[:3] == ["Cluster", "TRES", "Name"] and out[6].split()[1] == "cpu"
    r = rows(sreport(c, "-P", "-T", "cpu", "user", "TopUsage", *work["args"]))
    assert list(r[0]) == ["Cluster", "Login", "Proper Name", "Account", "TRES Name", "Used"]
    # GPU time is test_gres_acct.py's; no other TRES' time is kept
    r = c.run(["sreport", "-T", "mem", "cluster", "utilization"])
    assert r.rc == 1 and "Only the cpu and gres/gpu TRES" in r.err, r
    # format= picks and orders the columns, Name%N sets a width
    out = sreport(c, "-n", "-t", "s", "cluster", "utilization", *work["args"],
                  "format=Reported,al%12,cl").splitlines()
    (line,) = out
    reported = line.split()[0]   # grows with the clock: what this call said
    assert reported.isdigit() and line == "%8s %12s %9s " % (reported, p["Allocated"], shown)
    out = sreport(c, "-P", "-n", "user", "TopUsage", *work["args"], "format=Login,Used")
    assert [line.split("|")[0] for line in out.splitlines()] == ["herdu1", "herdu2"] or \
        [line.split("|")[0] for line in out.splitlines()] == ["herdu2", "herdu1"]
    r = c.run(["sreport", "cluster", "utilization", *work["args"], "format=Cluster,Bogus"])
    assert r.rc == 1 and " Unknown field 'Bogus'" in r.err, r
    # clusters= naming another cluster: no row
    out = sreport(c, "-P", "-n", "cluster", "utilization", "clusters=nosuch", *work["args"])
    assert out == ""


def test_account_utilization_by_user(c, work):
    s = work["secs"]
    r = rows(sreport(c, "-P", "-t", "seconds", "cluster", "AccountUtilizationByUser",
                     *work["args"]))
    assert list(r[0]) == ["Cluster", "Account", "Login", "Proper Name", "Used", "Energy"]
    got = [(x["Account"], x["Login"], int(x["Used"])) for x in r]
    assert got == [
        ("root", "", s["phys"] + s["chem"] + s["qm"]),
        ("chem", "", s["chem"] + s["qm"]),
        ("chem", "herdu2", s["chem"]),
        ("qm", "", s["qm"]),
        ("qm", "herdu1", s["qm"]),
        ("phys", "", s["phys"]),
        ("phys", "herdu1", s["phys"]),
    ]
    assert all(x["Cluster"] == c.name and x["Energy"] == "0" for x in r)
    # tree indents the accounts; accounts= a subtree; users= their rows
    t = rows(sreport(c, "-P", "cluster", "AccountUtilizationByUser", "tree", *work["args"]))
    assert [x["Account"] for x in t if not x["Login"]] == ["root", " chem", "  qm", " phys"]
    a = rows(sreport(c, "-P", "-t", "s", "cluster", "AccountUtilizationByUser", "accounts=chem",
                     *work["args"]))
    assert [(x["Account"], x["Login"]) for x in a] == [
        ("chem", ""), ("chem", "herdu2"), ("qm", ""), ("qm", "herdu1")]
    u = rows(sreport(c, "-P", "-t", "s", "cluster", "AccountUtilizationByUser", "users=herdu1",
                     *work["args"]))
    assert [(x["Account"], x["Login"], int(x["Used"])) for x in u] == [
        ("qm", "herdu1", s["qm"]), ("phys", "herdu1", s["phys"])]


def test_top_usage(c, work):
    s = work["secs"]
    out = sreport(c, "-t", "seconds", "user", "TopUsage", *work["args"])
    lines = out.splitlines()
    assert lines[1].startswith("Top 10 Users %s - " % stamp(work["start"]))
    assert lines[4] == "%9s %9s %15s %15s %8s %8s " % (
        "Cluster", "Login", "Proper Name", "Account", "Used", "Energy")
    r = rows(sreport(c, "-P", "-t", "seconds", "user", "TopUsage", *work["args"]))
    got = [(x["Login"], x["Account"], int(x["Used"])) for x in r]
    want = sorted([("herdu1", "phys, qm", s["phys"] + s["qm"]), ("herdu2", "chem", s["chem"])],
                  key=lambda x: -x[2])
    assert got == want
    r = rows(sreport(c, "-P", "user", "TopUsage", "TopCount=1", *work["args"]))
    assert len(r) == 1 and r[0]["Login"] == want[0][0]
    r = rows(sreport(c, "-P", "-t", "s", "user", "TopUsage", "accounts=qm", *work["args"]))
    assert [(x["Login"], x["Account"], int(x["Used"])) for x in r] == [("herdu1", "qm", s["qm"])]


def test_sizes_by_account(c, work):
    s = work["secs"]
    total = sum(s.values())
    out = sreport(c, "job", "SizesByAccount", *work["args"])
    lines = out.splitlines()
    assert lines[1].startswith("Job Sizes %s - " % stamp(work["start"]))
    assert lines[2] == "Time reported in Minutes"
    r = rows(sreport(c, "-P", "-t", "seconds", "job", "SizesByAccount", *work["args"]))
    assert list(r[0]) == ["Cluster", "Account", "0-49 CPUs", "50-249 CPUs", "250-499 CPUs",
                          "500-999 CPUs", ">= 1000 CPUs", "% of cluster"]
    got = {x["Account"]: (int(x["0-49 CPUs"]), x["% of cluster"]) for x in r}
    assert got == {"chem": (s["chem"] + s["qm"], "%.2f%%" % ((s["chem"] + s["qm"]) * 100 / total)),
                   "phys": (s["phys"], "%.2f%%" % (s["phys"] * 100 / total))}
    # grouping=2: the 2-CPU job in its own column; FlatView: every account
    r = rows(sreport(c, "-P", "-t", "s", "job", "SizesByAccount", "grouping=2", *work["args"]))
    assert list(r[0])[2:4] == ["0-1 CPUs", ">= 2 CPUs"]
    g = {x["Account"]: (int(x["0-1 CPUs"]), int(x[">= 2 CPUs"])) for x in r}
    assert g == {"chem": (s["chem"] + s["qm"], 0), "phys": (0, s["phys"])}
    r = rows(sreport(c, "-P", "-t", "s", "job", "SizesByAccount", "FlatView", *work["args"]))
    assert {x["Account"]: int(x["0-49 CPUs"]) for x in r} == \
        {"chem": s["chem"] + s["qm"], "qm": s["qm"], "phys": s["phys"]}
    r = rows(sreport(c, "-P", "-t", "percent", "job", "SizesByAccount", *work["args"]))
    assert {x["Account"]: x["0-49 CPUs"] for x in r}["phys"] == "%.2f%%" % (s["phys"] * 100 / total)


def test_private_data_usage(c, work):
    s = work["secs"]
    set_conf(c, PrivateData="usage")
    try:
        time.sleep(1)
        r = rows(sreport(c, "-P", "-t", "s", "user", "TopUsage", *work["args"], user="herdu2"))
        assert [(x["Login"], int(x["Used"])) for x in r] == [("herdu2", s["chem"])]
        r = rows(sreport(c, "-P", "-t", "s", "cluster", "AccountUtilizationByUser",
                         *work["args"], user="herdu2"))
        assert [(x["Account"], x["Login"], int(x["Used"])) for x in r] == [
            ("root", "", s["chem"]), ("chem", "", s["chem"]), ("chem", "herdu2", s["chem"])]
        # the cluster's figures are not a user's usage
        r = rows(sreport(c, "-P", "-t", "s", "cluster", "utilization", *work["args"],
                         user="herdu2"))
        assert int(r[0]["Allocated"]) == sum(s.values())
        r = rows(sreport(c, "-P", "-t", "s", "user", "TopUsage", *work["args"]))
        assert len(r) == 2
    finally:
        set_conf(c, PrivateData=None)


def test_node_down_time(c, work):
    node = c.nodes[-1]["NodeName"]
    cpus = int(c.nodes[-1]["CPUs"])
    t0 = time.time()
    ok(c, ["scontrol", "update", f"NodeName={node}", "State=DOWN", "Reason=sreport test"])
    time.sleep(3)
    ok(c, ["scontrol", "update", f"NodeName={node}", "State=RESUME"])
    t1 = time.time()
    time.sleep(1.5)
    r = rows(sreport(c, "-P", "-t", "s", "cluster", "utilization", *work["args"]))[0]
    down = int(r["Down"])
    assert cpus * 2 <= down <= cpus * (int(t1 - t0) + 2), (down, r)
    assert int(r["Allocated"]) + down + int(r["Idle"]) == int(r["Reported"])


def test_errors(c, work):
    r = c.run(["sreport", "-t", "bogus", "cluster", "utilization"])
    assert r.rc == 1 and "unknown time format bogus" in r.err, r
    r = c.run(["sreport", "cluster", "bogus"])
    assert r.rc == 1 and "Not valid report bogus" in r.err, r
    r = c.run(["sreport", "cluster", "utilization", "start=nonsense"])
    assert r.rc == 1 and "Invalid time specification" in r.err, r
    r = c.run(["sreport", "cluster", "utilization", "nosuchkey=1"])
    assert r.rc == 1 and "Unknown condition: nosuchkey=1" in r.err, r
    # an end before the start: the hour from the start, as Slurm
    out = ok(c, ["sreport", "-n", "-P", "-t", "s", "cluster", "utilization",
                 f"start={stamp(work['start'])}", f"end={stamp(work['start'] - 7200)}"])
    assert out.split("|")[1] == str(sum(work["secs"].values()))
