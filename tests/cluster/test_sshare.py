"""sshare: fair-share figures of a small account tree after real jobs ran,
checked against sacct's CPU time and against the formulas of Slurm's
priority_multifactor (classic, PriorityFlags=NO_FAIR_TREE) and fair_tree
(the default) documents; Slurm 22.05's columns, the tree's indentation,
-A/-u/-a/-l/-o/-n/-p/-P, PrivateData=usage, TRESRunMins of a running job,
and usage that survives a controller restart."""
import os
import signal
import time

import pytest

from conftest import start_cluster, stop_cluster

ACTIVE = "PENDING,RUNNING,SUSPENDED,COMPLETING"


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
    return r.out


def set_conf(c, **keys):
    """Set plain keys in herd.conf (replacing earlier values; None removes
    one), reconfigure, and give the controller's tick a second to read them."""
    with open(c.conf) as f:
        lines = [line for line in f if line.split("=", 1)[0] not in keys]
    lines += [f"{k}={v}\n" for k, v in keys.items() if v is not None]
    with open(c.conf, "w") as f:
        f.writelines(lines)
    ok(c, ["scontrol", "reconfigure"])
    time.sleep(1.5)


def parse(out):
    """-P output as dicts, with each row's depth and its parent account row."""
    lines = out.splitlines()
    head = lines[0].split("|")
    rows, stack = [], []
    for line in lines[1:]:
        r = dict(zip(head, line.split("|")))
        acct = r["Account"]
        r["depth"] = len(acct) - len(acct.lstrip(" "))
        r["Account"] = acct.strip()
        del stack[r["depth"]:]
        r["parent"] = stack[-1] if stack else None
        if not r["User"]:
            stack.append(r)
        rows.append(r)
    return rows


def row(rows, account, user=""):
    found = [r for r in rows if r["Account"] == account and r["User"] == user]
    assert len(found) == 1, (account, user, rows)
    return found[0]


def used(c, account, user):
    """sacct's CPU time of every job of user in account."""
    out = ok(c, ["sacct", "-a", "-X", "-n", "-P", "-S", "2020-01-01", "-o",
                 "Account,User,CPUTimeRAW"])
    return sum(int(t) for a, u, t in (line.split("|") for line in out.splitlines())
               if a == account and u == user)


def run_job(c, user, *args):
    """Submit and wait for the job to complete."""
    j = c.sbatch(*args, "-o", "/dev/null", user=user, cwd=c.workdir(user))
    assert c.wait_done(j) == "COMPLETED"
    return j


@pytest.fixture(scope="module")
def tree(c):
    """root -> phys (Fairshare=2: herdu1, herdu2), chem (1: herdu2), bio (1:
    herdu1, root); no decay, so usage is exactly the jobs' CPU-seconds.  Two jobs
    ran: herdu1 in phys on 2 CPUs, herdu2 in chem on 1."""
    set_conf(c, PriorityDecayHalfLife="0")
    ok(c, ["sacctmgr", "-i", "add", "account", "phys", "fairshare=2"])
    ok(c, ["sacctmgr", "-i", "add", "account", "chem,bio", "fairshare=1"])
    ok(c, ["sacctmgr", "-i", "add", "user", "herdu1", "account=phys", "fairshare=1"])
    ok(c, ["sacctmgr", "-i", "add", "user", "herdu1", "account=bio", "fairshare=1"])
    ok(c, ["sacctmgr", "-i", "add", "user", "herdu2", "account=phys", "fairshare=1"])
    ok(c, ["sacctmgr", "-i", "add", "user", "herdu2", "account=chem", "fairshare=3"])
    ok(c, ["sacctmgr", "-i", "add", "user", "root", "account=bio"])
    # far apart (8+ against 1-2 CPU-seconds): a job's elapsed time rounds
    # up or down by a second, and sleep 3 on 2 CPUs against sleep 2 on 1
    # could come out 6 to 3, which ties phys's LevelFS with chem's
    run_job(c, "herdu1", "-A", "phys", "-n", "2", "--wrap", "sleep 4")
    run_job(c, "herdu2", "-A", "chem", "-n", "1", "--wrap", "sleep 1")


def test_raw_usage_is_sacct_cpu_time(c, tree):
    rows = parse(ok(c, ["sshare", "-a", "-P"]))
    u1 = row(rows, "phys", "herdu1")
    u2 = row(rows, "chem", "herdu2")
    assert int(u1["RawUsage"]) == used(c, "phys", "herdu1") >= 8
    assert int(u2["RawUsage"]) == used(c, "chem", "herdu2") >= 1
    # every account's usage is its children's; root's the cluster's
    for r in rows:
        if r["User"]:
            continue
        kids = [k for k in rows if k["parent"] is r]
        assert int(r["RawUsage"]) == sum(int(k["RawUsage"]) for k in kids), (r, kids)
    assert int(row(rows, "root")["RawUsage"]) == int(u1["RawUsage"]) + int(u2["RawUsage"])
    assert int(row(rows, "bio", "herdu1")["RawUsage"]) == 0


def test_fair_tree_figures(c, tree):
    rows = parse(ok(c, ["sshare", "-a", "-l", "-P"]))
    assert list(rows[0])[:11] == ["Account", "User", "RawShares", "NormShares", "RawUsage",
                                  "NormUsage", "EffectvUsage", "FairShare", "LevelFS",
                                  "GrpTRESMins", "TRESRunMins"]
    root = row(rows, "root")
    assert (root["RawShares"], root["NormShares"], root["EffectvUsage"], root["FairShare"],
            root["LevelFS"], root["NormUsage"]) == ("", "0.000000", "1.000000", "", "", "")
    total = int(root["RawUsage"])
    users = [r for r in rows if r["User"]]
    for r in rows:
        if r is root:
            continue
        sibs = [k for k in rows if k["parent"] is r["parent"]]
        level = sum(int(k["RawShares"]) for k in sibs)
        norm = int(r["RawShares"]) / level
        assert abs(float(r["NormShares"]) - norm) < 1e-6, r
        praw = int(r["parent"]["RawUsage"])
        eff = int(r["RawUsage"]) / praw if praw else 0
        assert abs(float(r["EffectvUsage"]) - eff) < 1e-6, r
        assert abs(float(r["NormUsage"]) - int(r["RawUsage"]) / total) < 1e-6, r
        if eff == 0:
            assert r["LevelFS"] == "inf", r
        else:
            assert abs(float(r["LevelFS"]) - norm / eff) < 1e-5, r
        # fair tree gives users a rank; accounts have none
        if not r["User"]:
            assert r["FairShare"] == "", r
    # ranks k/N, a user of higher LevelFS in a higher ranked branch first:
    # chem (1/4 of shares... used less than its share) before phys
    n = len(users)
    for r in users:
        k = float(r["FairShare"]) * n
        assert abs(k - round(k)) < 1e-4, (r, n)
    fs = {(r["Account"], r["User"]): float(r["FairShare"]) for r in users}
    chem, phys = row(rows, "chem"), row(rows, "phys")
    assert float(chem["LevelFS"]) > float(phys["LevelFS"])
    assert fs[("chem", "herdu2")] > fs[("phys", "herdu2")] > fs[("phys", "herdu1")]
    assert fs[("bio", "herdu1")] > fs[("chem", "herdu2")]   # bio used nothing: inf
    assert max(fs.values()) == 1.0


def test_classic_figures(c, tree):
    set_conf(c, PriorityFlags="NO_FAIR_TREE")
    try:
        rows = parse(ok(c, ["sshare", "-a", "-l", "-P"]))
    finally:
        set_conf(c, PriorityFlags=None)
    assert "LevelFS" not in rows[0]
    assert list(rows[0])[:10] == ["Account", "User", "RawShares", "NormShares", "RawUsage",
                                  "NormUsage", "EffectvUsage", "FairShare", "GrpTRESMins",
                                  "TRESRunMins"]
    root = row(rows, "root")
    total = int(root["RawUsage"])
    for r in rows:
        if r is root:
            continue
        p = r["parent"]
        sibs = [k for k in rows if k["parent"] is p]
        s_level = int(r["RawShares"]) / sum(int(k["RawShares"]) for k in sibs)
        s_parent = 1.0 if p is root else float(p["NormShares"])
        assert abs(float(r["NormShares"]) - s_parent * s_level) < 2e-6, r
        ua = int(r["RawUsage"]) / total
        assert abs(float(r["NormUsage"]) - ua) < 1e-6, r
        ue = ua if p is root else ua + (float(p["EffectvUsage"]) - ua) * s_level
        assert abs(float(r["EffectvUsage"]) - ue) < 2e-6, r
        want = 2 ** (-ue / (s_parent * s_level))
        assert abs(float(r["FairShare"]) - want) < 1e-4, r   # accounts too
    # the heavier user of phys is behind
    assert float(row(rows, "phys", "herdu1")["FairShare"]) < \
        float(row(rows, "phys", "herdu2")["FairShare"])


def test_columns_and_tree(c, tree):
    out = ok(c, ["sshare", "-a"])
    lines = out.splitlines()
    assert lines[0] == ("Account                    User  RawShares  NormShares    RawUsage"
                        "  EffectvUsage  FairShare ")
    assert lines[1] == ("-------------------- ---------- ---------- ----------- -----------"
                        " ------------- ---------- ")
    rows = parse(ok(c, ["sshare", "-a", "-P"]))
    assert len(lines) == len(rows) + 2
    for line, r in zip(lines[2:], rows):
        acct = " " * r["depth"] + r["Account"]
        want = "%-20s %10s %10s %11s %11s %13s %10s " % (
            acct, r["User"], r["RawShares"], r["NormShares"], r["RawUsage"],
            r["EffectvUsage"], r["FairShare"])
        assert line == want
    # root first, then users before sub-accounts, by name, one deeper
    order = [(" " * r["depth"] + r["Account"], r["User"]) for r in rows]
    i = order.index((" phys", ""))
    assert order[i + 1:i + 3] == [("  phys", "herdu1"), ("  phys", "herdu2")]
    assert order[0] == ("root", "")
    accounts = [a for a, u in order if not u and a.startswith(" ") and not a.startswith("  ")]
    assert accounts == sorted(accounts)
    # -p ends lines with '|', -n drops the header, -o picks columns
    p = ok(c, ["sshare", "-a", "-p", "-n", "-o", "Account,User,RawUsage"]).splitlines()
    assert p[0] == "root||%s|" % rows[0]["RawUsage"]
    assert all(line.endswith("|") and line.count("|") == 3 for line in p)
    w = ok(c, ["sshare", "-a", "-o", "User%15,RawShares"]).splitlines()
    assert w[0] == "           User  RawShares "
    # -m: the partition column after User
    m = ok(c, ["sshare", "-a", "-m", "-P"]).splitlines()
    assert m[0].split("|")[:4] == ["Account", "User", "Partition", "RawShares"]


def test_who_is_shown(c, tree):
    # without -a: every account row, only the caller's user rows
    rows = parse(ok(c, ["sshare", "-P"], user="herdu1"))
    assert {r["User"] for r in rows if r["User"]} == {"herdu1"}
    assert {r["Account"] for r in rows if not r["User"]} == {"root", "phys", "chem", "bio"}
    rows = parse(ok(c, ["sshare", "-P", "-u", "herdu2"]))
    assert {(r["Account"], r["User"]) for r in rows if r["User"]} == \
        {("phys", "herdu2"), ("chem", "herdu2")}
    # -A: the account at the top, its users under it
    out = ok(c, ["sshare", "-a", "-P", "-A", "phys", "-o", "Account,User"])
    assert out.splitlines()[1:] == ["phys|", " phys|herdu1", " phys|herdu2"]
    # -U: the user rows alone
    out = ok(c, ["sshare", "-U", "-P", "-a", "-A", "phys", "-o", "Account,User"])
    assert out.splitlines()[1:] == ["phys|herdu1", "phys|herdu2"]


def test_private_data_usage(c, tree):
    set_conf(c, PrivateData="usage")
    try:
        rows = parse(ok(c, ["sshare", "-a", "-P"], user="herdu2"))
        # herdu2's rows and the accounts above them only
        assert {(r["Account"], r["User"]) for r in rows} == {
            ("root", ""), ("phys", ""), ("chem", ""), ("phys", "herdu2"), ("chem", "herdu2")}
        rows = parse(ok(c, ["sshare", "-a", "-P"], user="herdu1"))
        assert ("chem", "") not in {(r["Account"], r["User"]) for r in rows}
        # a coordinator sees the account's rows, its users' too
        ok(c, ["sacctmgr", "-i", "add", "coordinator", "account=bio", "names=herdu2"])
        rows = parse(ok(c, ["sshare", "-a", "-P"], user="herdu2"))
        seen = {(r["Account"], r["User"]) for r in rows}
        assert {("bio", ""), ("bio", "herdu1")} <= seen and ("phys", "herdu1") not in seen
        ok(c, ["sacctmgr", "-i", "delete", "coordinator", "account=bio", "names=herdu2"])
        # an administrator still sees everything
        rows = parse(ok(c, ["sshare", "-a", "-P"]))
        assert ("chem", "herdu2") in {(r["Account"], r["User"]) for r in rows}
        assert ("bio", "herdu1") in {(r["Account"], r["User"]) for r in rows}
    finally:
        set_conf(c, PrivateData=None)


def test_tres_run_mins_of_a_running_job(c, tree):
    # root's job (root is in bio)
    j = c.sbatch("-A", "bio", "-n", "2", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 60")
    try:
        c.wait_state(j, "RUNNING")
        rows = parse(ok(c, ["sshare", "-a", "-P", "-l"]))
        for acct, user in (("bio", "root"), ("bio", ""), ("root", "")):
            run = dict(kv.split("=") for kv in row(rows, acct, user)["TRESRunMins"].split(","))
            assert int(run["cpu"]) in (19, 20), run   # 2 CPUs x what is left of 10 minutes
            assert int(run["node"]) in (9, 10), run
        run = dict(kv.split("=") for kv in row(rows, "chem")["TRESRunMins"].split(","))
        assert run["cpu"] == "0"
        assert list(run)[:8] == ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem",
                                 "pages"]
        # while it runs, its usage grows by its 2 CPUs a second
        before = int(row(rows, "bio", "root")["RawUsage"])
        time.sleep(3)
        after = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "bio", "root")["RawUsage"])
        assert c.job_state(j) == "RUNNING"
        assert before + 4 <= after <= before + 10, (before, after)
    finally:
        ok(c, ["scancel", str(j)])
        c.wait_done(j)


def test_usage_survives_a_restart(c, tree):
    before = parse(ok(c, ["sshare", "-a", "-P"]))
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGTERM)
    c.wait_until("herdctld to stop", lambda: not c.daemon_pids("herdctld"), timeout=20)
    c.restart_ctld()
    c.wait_until("herdctld to answer", c.ping_ok, timeout=30)
    after = parse(ok(c, ["sshare", "-a", "-P"]))
    key = lambda rows: {(r["Account"], r["User"]): r["RawUsage"] for r in rows}
    assert key(after) == key(before)
    assert int(row(after, "phys", "herdu1")["RawUsage"]) == used(c, "phys", "herdu1")


def test_errors(c):
    r = c.run(["sshare", "-o", "Account,Bogus"])
    assert r.rc == 1 and 'Invalid field requested: "Bogus"' in r.err, r
    r = c.run(["sshare", "--bogus"])
    assert r.rc == 1, r


def test_grp_tres_mins_column(c, tree):
    ok(c, ["sacctmgr", "-i", "modify", "account", "bio", "set", "GrpTRESMins=cpu=1000"])
    rows = parse(ok(c, ["sshare", "-a", "-l", "-P"]))
    assert row(rows, "bio")["GrpTRESMins"] == "cpu=1000"
    assert row(rows, "phys")["GrpTRESMins"] == ""



def test_billing_weights(c, tree):
    """TRESBillingWeights on the partition: usage is the weighted TRES."""
    with open(c.conf) as f:
        text = f.read()
    part = [line for line in text.splitlines() if line.startswith("PartitionName=")][0]
    with open(c.conf, "w") as f:
        f.write(text.replace(part, part + " TRESBillingWeights=CPU=3.0"))
    ok(c, ["scontrol", "reconfigure"])
    try:
        before = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "bio", "root")["RawUsage"])
        j = c.sbatch("-A", "bio", "-n", "1", "-o", "/dev/null", "--wrap", "sleep 2")
        assert c.wait_done(j) == "COMPLETED"
        after = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "bio", "root")["RawUsage"])
        out = ok(c, ["sacct", "-X", "-n", "-P", "-j", str(j), "-o", "CPUTimeRAW"])
        assert after - before == 3 * int(out) >= 6, (before, after, out)
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
        ok(c, ["scontrol", "reconfigure"])


def test_qos_usage_factor(c, tree):
    """A job of a QOS with UsageFactor=2 is charged twice its CPU-seconds."""
    ok(c, ["sacctmgr", "-i", "add", "qos", "double", "UsageFactor=2"])
    ok(c, ["sacctmgr", "-i", "modify", "user", "root", "where", "account=bio", "set",
           "qos+=double"])
    before = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "bio", "root")["RawUsage"])
    j = c.sbatch("-A", "bio", "-q", "double", "-n", "1", "-o", "/dev/null", "--wrap", "sleep 2")
    assert c.wait_done(j) == "COMPLETED"
    after = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "bio", "root")["RawUsage"])
    out = ok(c, ["sacct", "-X", "-n", "-P", "-j", str(j), "-o", "QOS,CPUTimeRAW"])
    qos, secs = out.strip().split("|")
    assert qos == "double", out
    assert after - before == 2 * int(secs) >= 4, (before, after, out)


def test_decay(c, tree):
    """Last: PriorityDecayHalfLife of one second halves the usage every second."""
    before = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "root")["RawUsage"])
    assert before > 0
    set_conf(c, PriorityDecayHalfLife="00:00:01")
    time.sleep(3)
    after = int(row(parse(ok(c, ["sshare", "-a", "-P"])), "root")["RawUsage"])
    assert after <= before / 4, (before, after)


def test_usage_reset_now(c, tree):
    """Last: PriorityUsageResetPeriod=NOW clears the usage when the
    controller starts (and stays cleared after the next restart)."""
    set_conf(c, PriorityDecayHalfLife="0")
    j = c.sbatch("-A", "bio", "-n", "1", "-o", "/dev/null", "--wrap", "sleep 1")
    assert c.wait_done(j) == "COMPLETED"
    assert int(row(parse(ok(c, ["sshare", "-a", "-P"])), "root")["RawUsage"]) > 0
    with open(c.conf, "a") as f:
        f.write("PriorityUsageResetPeriod=NOW\n")
    os.kill(c.ctld_pid(), signal.SIGTERM)
    c.wait_until("herdctld to stop", lambda: not c.daemon_pids("herdctld"), timeout=20)
    c.restart_ctld()
    c.wait_until("herdctld to answer", c.ping_ok, timeout=30)
    rows = parse(ok(c, ["sshare", "-a", "-P"]))
    assert all(r["RawUsage"] == "0" for r in rows), rows
