"""PriorityType=priority/multifactor and sprio on a real cluster: the weights
(-w), each factor as the controller computes it (age grows while a job
waits, fair-share puts a heavy user's job below a light user's after jobs
ran, QOS Priority, PriorityJobFactor, nice), PRIORITY as the sum of the
weighted factors and as squeue %Q and scontrol show job say, the
-l/-n/-o/-u/-j/-p views, an administrator's fixed priority, and that the
higher-priority job is the one that starts when both wait.

One 2-node cluster; partitions debug (PriorityJobFactor 1, the default),
hi (10) and tier (PriorityTier 2); users herdu1 and herdu2 under account proj; QOS high (Priority
100).  Every test waits behind a blocker that holds both nodes."""
import os
import re
import signal

import pytest

from conftest import Cluster, make_root, stop_cluster
from cmd_helpers import cancel_all, run_env, squeue_field

U1, U2 = "herdu1", "herdu2"
WEIGHTS = dict(PriorityWeightAge=10000, PriorityWeightFairshare=100000,
               PriorityWeightJobSize=1000, PriorityWeightPartition=1000,
               PriorityWeightQOS=2000)
CONF = dict(PriorityType="priority/multifactor", PriorityMaxAge="0:10:00",
            PriorityCalcPeriod="0:03", PriorityDecayHalfLife="0",
            PriorityWeightTRES="cpu=100", **WEIGHTS)


def ok(c, args, user=None):
    r = c.run(args, user=user)
    assert r.rc == 0, r
    return r.out


@pytest.fixture(scope="module")
def c(users):
    c = Cluster(make_root(), 2)
    try:
        c.up()
        ok(c, ["sacctmgr", "-i", "add", "account", "proj"])
        ok(c, ["sacctmgr", "-i", "add", "user", f"{U1},{U2}", "account=proj"])
        ok(c, ["sacctmgr", "-i", "add", "qos", "high", "priority=100"])
        with open(c.conf, "a") as f:
            f.writelines(f"{k}={v}\n" for k, v in CONF.items())
            f.write("PartitionName=hi Nodes=ALL PriorityJobFactor=10 State=UP\n")
            f.write("PartitionName=tier Nodes=ALL PriorityTier=2 PriorityJobFactor=1 State=UP\n")
        ok(c, ["scontrol", "reconfigure"])
        yield c
    finally:
        stop_cluster(c)


@pytest.fixture
def blocked(c):
    """A job holding both nodes, so what is submitted next waits."""
    cancel_all(c, wait_idle=False)
    wait_idle(c)
    b = c.sbatch("-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(b, "RUNNING")
    yield b
    cancel_all(c, wait_idle=False)


def wait_idle(c):
    """Both nodes idle (sinfo -N lists a node once per partition: debug's)."""
    def idle():
        out = ok(c, ["sinfo", "-h", "-N", "-p", "debug", "-o", "%t"]).split()
        return len(out) == 2 and set(out) == {"idle"}
    c.wait_until("both nodes idle", idle, timeout=30)


def submit(c, *args, user=None, sleep=1):
    return c.sbatch("-N2", "--exclusive", "-o", "/dev/null", *args, "--wrap", f"sleep {sleep}",
                    user=user, cwd=c.workdir(user))


def sprio(c, *args):
    """sprio's table as (header, rows): each row a dict by header word (the
    second PARTITION, the factor, is "PARTITION_F")."""
    lines = ok(c, ["sprio", *args]).splitlines()
    head = lines[0].split()
    if head.count("PARTITION") == 2:
        head[len(head) - 1 - head[::-1].index("PARTITION")] = "PARTITION_F"
    return head, [dict(zip(head, line.split())) for line in lines[1:]]


def job_row(c, job, *args):
    head, rows = sprio(c, "-l", *args)
    found = [r for r in rows if r["JOBID"] == str(job)]
    assert len(found) == 1, (job, rows)
    return found[0]


def prios(c, *jobs):
    """squeue's %Q of jobs, from one answer (one state of the controller:
    a recompute between two squeue calls could move one and not the other)."""
    out = ok(c, ["squeue", "-h", "-t", "all", "-j", ",".join(map(str, jobs)), "-o", "%i %Q"])
    return {int(i): int(q) for i, q in (line.split() for line in out.splitlines())}


def tres_sum(cell):
    return sum(int(v) for v in re.findall(r"=(\d+)", cell or ""))


def weighted_sum(r):
    return (int(r["SITE"]) + int(r["AGE"]) + int(r["ASSOC"]) + int(r["FAIRSHARE"]) +
            int(r["JOBSIZE"]) + int(r["PARTITION_F"]) + int(r["QOS"]) + tres_sum(r.get("TRES")) -
            int(r["NICE"]))


def consistent(c, job):
    """One snapshot: squeue's %Q read before and after sprio's row; equal
    (age grows at each recompute, so none came between) or try again."""
    for _ in range(20):
        before = squeue_field(c, job, "%Q")
        r = job_row(c, job)
        after = squeue_field(c, job, "%Q")
        if before == after:
            return r, int(before)
    pytest.fail(f"job {job}'s priority never held still across one sprio")


def test_basic_has_no_sprio(users):
    """priority/basic (22.05's default): sprio says only multifactor works."""
    c = Cluster(make_root(), 1)
    try:
        c.up()
        r = c.run(["sprio"])
        assert r.rc == 1, r
        assert r.err == ("You are not running a supported priority plugin\n"
                         "(priority/basic).\nOnly 'priority/multifactor' is supported.\n")
    finally:
        stop_cluster(c)


def test_weights(c):
    head, rows = sprio(c, "-w")
    # ASSOC's weight is 0: not a column; SITE always is
    assert head == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "FAIRSHARE", "JOBSIZE",
                    "PARTITION_F", "QOS", "TRES"]
    assert len(rows) == 1
    # one line, no partition or priority, SITE's weight 1
    line = ok(c, ["sprio", "-w", "-h"]).split()
    assert line == ["Weights", "1", "10000", "100000", "1000", "1000", "2000", "cpu=100"]
    # -l: every factor (ASSOC too), USER and NICE, as Slurm 22.05 prints them
    head, _ = sprio(c, "-l", "-w")
    assert head == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC",
                    "FAIRSHARE", "JOBSIZE", "PARTITION_F", "QOS", "NICE", "TRES"]
    line = ok(c, ["sprio", "-w", "-h", "-l"]).split()
    assert line == ["Weights", "1", "10000", "0", "100000", "1000", "1000", "2000", "cpu=100"]
    # -n: normalized figures, no SITE; the weights line without the TRES'
    head, _ = sprio(c, "-n", "-w")
    assert head == ["JOBID", "PARTITION", "PRIORITY", "AGE", "FAIRSHARE", "JOBSIZE",
                    "PARTITION_F", "QOS", "TRES"]
    line = ok(c, ["sprio", "-w", "-h", "-n"]).split()
    assert line == ["Weights", "10000", "100000", "1000", "1000", "2000"]


def test_sum_is_the_priority(c, blocked):
    j = submit(c, "--nice=100")
    r, q = consistent(c, j)
    assert int(r["PRIORITY"]) == q
    # each weighted column is rounded, the total truncated: within a unit each
    assert abs(weighted_sum(r) - q) <= 7, r
    assert int(r["NICE"]) == 100
    assert c.show_job(j)["Priority"] == str(q)
    assert r["USER"] == "root" and r["PARTITION"] == "debug"


def test_age_grows(c, blocked):
    j = submit(c)
    first = float(job_row(c, j, "-n")["AGE"])

    def older():
        return float(job_row(c, j, "-n")["AGE"]) > first
    c.wait_until("AGE to grow", older, timeout=30)
    assert float(job_row(c, j, "-n")["AGE"]) < 1.0   # PriorityMaxAge is 10 minutes


def test_hold_stops_age(c, blocked):
    """Without ACCRUE_ALWAYS a held job accrues no age: released, it starts
    from nothing, below a job that waited all along."""
    held = submit(c, "--hold")   # the older of the two
    plain = submit(c)
    c.wait_until("6 s of age", lambda: float(job_row(c, plain, "-n")["AGE"]) >= 0.01,
                 timeout=60)
    assert held not in [int(r["JOBID"]) for r in sprio(c)[1]]   # priority 0: not listed
    ok(c, ["scontrol", "release", str(held)])
    rows = {int(r["JOBID"]): r for r in sprio(c, "-n", "-l")[1]}
    assert float(rows[held]["AGE"]) < float(rows[plain]["AGE"]), rows


def test_qos_partition_and_nice(c, blocked):
    plain = submit(c)
    high = submit(c, "--qos=high")
    hi = submit(c, "-p", "hi")
    nice = submit(c, "--nice=500")
    rows = {int(r["JOBID"]): r for r in sprio(c, "-l")[1]}
    assert {plain, high, hi, nice} <= set(rows)
    assert int(rows[plain]["QOS"]) == 0            # normal's Priority is 0
    assert int(rows[high]["QOS"]) == 2000          # 100 of the highest, 100
    assert int(rows[plain]["PARTITION_F"]) == 100  # 1 of the highest, 10
    assert int(rows[hi]["PARTITION_F"]) == 1000
    assert rows[hi]["PARTITION"] == "hi"
    assert int(rows[nice]["NICE"]) == 500
    # the same user, size and (nearly) age: the factors order them
    p = prios(c, plain, high, hi, nice)
    assert p[high] > p[hi] > p[plain] > p[nice], p
    # -n: the normalized factors
    n = {int(r["JOBID"]): r for r in sprio(c, "-n", "-l")[1]}
    assert float(n[high]["QOS"]) == 1.0 and float(n[plain]["QOS"]) == 0.0
    assert float(n[hi]["PARTITION_F"]) == 1.0 and float(n[plain]["PARTITION_F"]) == 0.1


def test_filters_and_format(c, blocked):
    a = submit(c, user=U1)
    b = submit(c, "-p", "hi", user=U2)
    ids = lambda *args: [int(r["JOBID"]) for r in sprio(c, *args)[1]]   # noqa: E731
    assert set(ids()) >= {a, b}
    assert ids("-u", U1) == [a]
    assert ids("-u", f"{U1},{U2}") == [a, b]
    assert ids(f"-j{b}") == [b]
    assert ids("-j", f"{a},{b}") == [a, b]
    assert ids("-p", "hi") == [b]
    out = ok(c, ["sprio", "-h", "-j", str(a), "-o", "%i|%u|%r|%Y|%a|%A|%T|%N"])
    jid, user, part, prio, age_n, age_w, tres, nice = out.strip().split("|")
    assert (jid, user, part, nice) == (str(a), U1, "debug", "0")
    assert abs(float(age_n) * 10000 - int(age_w)) <= 1
    assert re.fullmatch(r"cpu=\d+", tres)
    # -S: sorted by format letters, '-' descending (hi's factor puts b above a)
    only = ["-h", "-o", "%i", "-j", f"{a},{b}"]
    assert ok(c, ["sprio", *only, "-S", "-Y"]).split() == [str(b), str(a)]
    assert ok(c, ["sprio", *only, "-S", "Y"]).split() == [str(a), str(b)]
    assert ok(c, ["sprio", *only, "--sort=-u,i"]).split() == [str(b), str(a)]
    r = c.run(["sprio", *only, "-S", "Z"])
    assert r.rc == 1 and r.err == "sprio: error: Invalid sort specification: Z\n", r
    # an unknown user is said and left out, as Slurm does
    r = c.run(["sprio", "-h", "-o", "%i", "-u", f"nosuchuser,{U1}"])
    assert r.rc == 0 and r.err == "sprio: error: Invalid user: nosuchuser\n", r
    assert r.out.split() == [str(a)]
    r = c.run(["sprio", "-j", "0"])
    assert r.rc == 1 and r.err == "sprio: error: Invalid job id: 0\n", r
    # SPRIO_FORMAT stands for -o
    r = run_env(c, {"SPRIO_FORMAT": "%i %u"}, ["sprio", "-h", "-j", str(a)])
    assert r.rc == 0 and r.out.split() == [str(a), U1], r
    # a job that does not wait is not listed
    r = c.run(["sprio", "-j", str(blocked)])
    assert r.rc == 0 and r.out == "Unable to find jobs matching user/id(s) specified\n", r


def test_light_user_before_heavy(c, blocked):
    """herdu1 ran a job (usage); herdu2 did not: herdu2's fair-share, and
    priority, are the higher, as sshare's FairShare says."""
    ok(c, ["scancel", str(blocked)])
    wait_idle(c)
    used = c.sbatch("-N2", "--exclusive", "-A", "proj", "-o", "/dev/null", "--wrap", "sleep 2",
                    user=U1, cwd=c.workdir(U1))
    assert c.wait_done(used) == "COMPLETED"
    blocker = c.sbatch("-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    heavy = submit(c, "-A", "proj", user=U1, sleep=300)   # the older
    light = submit(c, "-A", "proj", user=U2, sleep=300)

    def sshare():
        out = ok(c, ["sshare", "-a", "-P", "-n", "-o", "Account,User,FairShare"])
        fs = {}
        for line in out.splitlines():
            acct, user, value = line.split("|")
            if user:
                fs[(acct.strip(), user)] = float(value)
        return fs

    def agree():
        """sprio's figures are those of the last recompute, sshare's of now:
        a rank may move in between (root's blocker keeps adding usage), so
        poll until one answer of each agrees."""
        rows = {int(r["JOBID"]): r for r in sprio(c, "-n", "-l")[1]}
        fs = sshare()
        if heavy not in rows or light not in rows:
            return None
        h, lt = float(rows[heavy]["FAIRSHARE"]), float(rows[light]["FAIRSHARE"])
        if lt > h and abs(h - fs[("proj", U1)]) < 1e-5 and abs(lt - fs[("proj", U2)]) < 1e-5:
            return rows
    c.wait_until("the light user's fair-share above the heavy one's, as sshare has them",
                 agree, timeout=60)
    p = prios(c, light, heavy)
    assert p[light] > p[heavy], p
    # and the light user's job is the one that starts
    ok(c, ["scancel", str(blocker)])
    assert c.wait_state(light, "RUNNING") == "RUNNING"
    assert c.job_state(heavy) == "PENDING"


def test_higher_priority_starts_first(c, blocked):
    """Both wait; the older one has no QOS, the newer QOS high: once the
    blocker ends, the newer starts and the older keeps waiting."""
    older = submit(c, sleep=300)
    newer = submit(c, "--qos=high", sleep=300)   # runs until cancelled: the older one waits
    p = prios(c, newer, older)
    assert p[newer] > p[older], p
    ok(c, ["scancel", str(blocked)])
    assert c.wait_state(newer, "RUNNING") == "RUNNING"
    assert c.job_state(older) == "PENDING"


def test_priority_tier_comes_first(c, blocked):
    """A partition's PriorityTier orders before the priority: the job of the
    higher tier starts though its priority is the lower."""
    low_tier = submit(c, "--qos=high", sleep=300)
    high_tier = submit(c, "-p", "tier", sleep=300)
    p = prios(c, low_tier, high_tier)
    assert p[low_tier] > p[high_tier], p
    ok(c, ["scancel", str(blocked)])
    assert c.wait_state(high_tier, "RUNNING") == "RUNNING"
    assert c.job_state(low_tier) == "PENDING"


def test_admin_priority_stays(c, blocked):
    j = submit(c)
    ok(c, ["scontrol", "update", f"jobid={j}", "priority=4242"])
    assert squeue_field(c, j, "%Q") == "4242"
    ok(c, ["scontrol", "reconfigure"])           # every priority computed again
    assert c.show_job(j)["Priority"] == "4242"
    killed = c.ctld_pid()                        # and from the store, after a kill -9
    os.kill(killed, signal.SIGKILL)
    c.wait_until("the controller gone", lambda: not c.ping_ok(), timeout=30)
    c.restart_ctld()
    c.wait_until("the controller back", lambda: c.ping_ok() and c.ctld_pid() != killed,
                 timeout=30)
    assert c.show_job(j)["Priority"] == "4242"
    # an administrator's priority is not the factors': sprio leaves it out
    assert j not in [int(r["JOBID"]) for r in sprio(c)[1]]
    # a user may lower their own job's priority, not raise it
    u = submit(c, user=U1)
    p = int(squeue_field(c, u, "%Q"))
    r = c.run(["scontrol", "update", f"jobid={u}", f"priority={p + 1000}"], user=U1)
    assert r.rc != 0, r
    ok(c, ["scontrol", "update", f"jobid={u}", "priority=5"], user=U1)
    assert squeue_field(c, u, "%Q") == "5"


@pytest.mark.parametrize("key,value,says", [
    ("PriorityFlags", "ACCRUE_ALWAYS,BOGUS", "invalid flag 'BOGUS'"),
    ("PriorityWeightTRES", "cpu=1,disk=2", "invalid TRES 'disk'"),
    ("PriorityType", "priority/fancy", "PriorityType=priority/fancy is not supported"),
])
def test_bad_priority_keys_are_refused(c, key, value, says):
    """A reconfigure with a bad Priority* key changes nothing and says why."""
    with open(c.conf) as f:
        saved = f.read()
    try:
        with open(c.conf, "a") as f:
            f.write(f"{key}={value}\n")
        r = c.run(["scontrol", "reconfigure"])
        assert r.rc != 0 and says in r.err, r
        head, _ = sprio(c, "-w")                 # still multifactor, the old weights
        assert "FAIRSHARE" in head
    finally:
        with open(c.conf, "w") as f:
            f.write(saved)
        ok(c, ["scontrol", "reconfigure"])
