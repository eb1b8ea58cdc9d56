"""Scenario runner (doc/core.md "Agreement, checked"): one workload of
tests/scenarios/<name>/ run on a real `herd up` cluster with sleep jobs and
through `herd sim --policy slurm` with the same herd.conf, each giving one
row per job (ID as squeue shows it, name, user, start in seconds from the
workload's second 0, allocated nodes), and the two compared.

A scenario directory holds:
  herd.conf     lines added to what `herd up` writes; its PartitionName
                lines replace herd up's partition; a first line
                `# herd up --nodes N --cpus C --memory M` sizes the cluster
  accounts      sacctmgr's flat file (`sacctmgr dump`/`load`)
  reservations  optional: one `scontrol create reservation` spec per line,
                `now+N` meaning N seconds after the workload's second 0
  jobs          one job per line: `<submit s> <user> <run s> <sbatch options>`

How the real side is kept to whole seconds, as the simulator's clock is:
  - t0 is a whole wall-clock second; the submissions of second s are made
    from t0 + s + SUBMIT_AT on;
  - a job sleeps until its start as the controller recorded it
    (SLURM_JOB_START_TIME, whole seconds) + its run time + END_AT, not for
    its run time from whenever its process happened to be launched: the
    launch latency (0.1-0.5 s here) would otherwise add up along a chain of
    jobs and move later events into the next second;
  - so within each second the ends come first (END_AT), then the
    submissions, as in the simulator, which ends the jobs due at a second
    before it submits that second's arrivals;
  - the backfill pass (bf_interval=1) runs at BF_AT in each second: the
    scenario's SchedulerParameters are applied by a reconfigure made at
    that fraction of a second, which (re)arms the controller's backfill
    timer then.  Its phase is otherwise that of the controller's start,
    and a pass that came just before a second's events would start what it
    backfills a second late."""
import csv
import os
import re
import shlex
import subprocess
import time

from conftest import BIN, Cluster, make_root, stop_cluster

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(os.path.dirname(HERE), "scenarios")
END_AT = 0.1       # a job ends this far into its second
SUBMIT_AT = 0.3    # the submissions of a second begin this far into it
BF_AT = 0.75       # the backfill pass runs this far into each second
ACTIVE = "PENDING,RUNNING,SUSPENDED,COMPLETING"

JOB_SCRIPT = """#!/bin/bash
# A scenario's job: ends RUN s after the start the controller recorded,
# END_AT into that second (tests/cluster/scenario.py says why).
run=$1
now=$(date +%s.%N)
left=$(awk -v s="$SLURM_JOB_START_TIME" -v r="$run" -v n="$now" -v a="{end_at}" \
       'BEGIN {{ d = s + r + a - n; printf "%.3f", (d > 0 ? d : 0) }}')
exec sleep "$left"
"""


class Job:
    def __init__(self, submit, user, run, opts, line):
        self.submit, self.user, self.run, self.opts, self.line = submit, user, run, opts, line


class Scenario:
    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(SCENARIOS, name)
        self.conf_lines = read_lines(os.path.join(self.dir, "herd.conf"))
        self.up_args = []
        for line in self.conf_lines:
            m = re.match(r"#\s*herd up\s+(.*)", line)
            if m:
                self.up_args = m.group(1).split()
        self.accounts = os.path.join(self.dir, "accounts")
        resv = os.path.join(self.dir, "reservations")
        self.reservations = os.path.exists(resv) and resv or None
        self.jobs = []
        for line in read_lines(os.path.join(self.dir, "jobs")):
            words = shlex.split(line, comments=True)
            if words:
                self.jobs.append(Job(int(words[0]), words[1], int(words[2]), words[3:], line))
        self.jobs.sort(key=lambda j: j.submit)   # stable: the file's order within a second

    def nodes(self):
        """herd up's --nodes (Cluster takes it apart from the other options)."""
        a = self.up_args
        return int(a[a.index("--nodes") + 1]) if "--nodes" in a else 4

    def other_up_args(self):
        a = self.up_args
        i = a.index("--nodes") if "--nodes" in a else len(a)
        return a[:i] + a[i + 2:]


def read_lines(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f]


def scenario_names():
    return sorted(d for d in os.listdir(SCENARIOS) if os.path.isdir(os.path.join(SCENARIOS, d)))


# ---- the real side ---------------------------------------------------------

def conf_with(base, lines):
    """herd up's herd.conf with the scenario's lines: its PartitionName lines
    replace herd up's partition, the others are added at the end."""
    own_parts = any(line.lstrip().startswith("PartitionName=") for line in lines)
    kept = [line for line in base.splitlines()
            if not (own_parts and line.startswith("PartitionName="))]
    return "\n".join(kept + [line for line in lines if line.strip()]) + "\n"


def sleep_until(t):
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def check(r, what):
    assert r.rc == 0, f"{what}: {r}"
    return r


def resv_spec(line, t0):
    """The spec with now+N as the wall-clock time t0 + N (local time, as
    scontrol reads a date)."""
    def absolute(m):
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t0 + int(m.group(1) or 0)))
    return re.sub(r"\bnow(?:\+(\d+))?\b", absolute, line, flags=re.IGNORECASE)


def wait_empty(c, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = c.run(["squeue", "-h", "-t", ACTIVE, "-o", "%i"])
        if r.rc == 0 and not r.out.strip():
            return
        time.sleep(0.5)
    raise AssertionError(f"jobs still active after {timeout} s:\n"
                         f"{c.run(['squeue', '-t', ACTIVE]).out}\n{c.logs()}")


def parse_date(text):
    if text in ("", "N/A", "Unknown", "None"):
        return None
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def run_real(sc, timeout=60):
    """The scenario on a fresh `herd up` cluster.  Returns (rows, the
    herd.conf it ran with); rows as read_sim_csv's."""
    c = Cluster(make_root(), sc.nodes())
    try:
        c.up(*sc.other_up_args())
        check(c.run(["sacctmgr", "-i", "load", f"file={sc.accounts}", f"cluster={c.name}"]),
              "sacctmgr load")
        with open(c.conf) as f:
            conf = conf_with(f.read(), sc.conf_lines)
        with open(c.conf, "w") as f:
            f.write(conf)
        # the reconfigure arms the backfill timer at BF_AT (see above)
        sleep_until(int(time.time()) + 1 + BF_AT - 0.03)
        check(c.run(["scontrol", "reconfigure"]), "scontrol reconfigure")
        script = os.path.join(c.workdir(), "job.sh")
        with open(script, "w") as f:
            f.write(JOB_SCRIPT.format(end_at=END_AT))
        os.chmod(script, 0o755)
        for u in {j.user for j in sc.jobs}:
            c.workdir(u)
        t0 = int(time.time()) + 2
        for line in read_lines(sc.reservations) if sc.reservations else []:
            spec = shlex.split(resv_spec(line, t0), comments=True)
            if spec:
                check(c.run(["scontrol", "create", "reservation", *spec]), f"reservation {line}")
        late = []
        for j in sc.jobs:
            sleep_until(t0 + j.submit + SUBMIT_AT)
            if time.time() >= t0 + j.submit + 1:
                late.append(j.line)
            r = c.run(["sbatch", "--parsable", "-o", "/dev/null", *j.opts, script, str(j.run)],
                      user=j.user, cwd=c.workdir(j.user))
            check(r, f"sbatch {j.line}")
        assert not late, f"submissions that missed their second (machine too busy): {late}"
        wait_empty(c, timeout)
        r = check(c.run(["squeue", "-h", "-t", "all", "-o", "%i|%j|%u|%S|%e|%N|%T"]), "squeue")
        rows = {}
        for line in r.out.splitlines():
            jid, name, user, start, end, nodes, state = line.split("|")
            # a job's own failure (its script) is the harness's, not the scheduler's
            assert state in ("COMPLETED", "PREEMPTED", "CANCELLED"), \
                f"job {jid} ({name}) ended {state}\n{c.logs()}"
            s, e = parse_date(start), parse_date(end)
            rows[jid] = {"id": jid, "name": name, "user": user,
                         "start": None if s is None else int(s - t0),
                         "end": None if e is None else int(e - t0),
                         "nodes": expand(nodes)}
        return rows, conf
    finally:
        stop_cluster(c)


# ---- the simulator's side --------------------------------------------------

def run_sim(sc, conf_text, workdir):
    """`herd sim --policy slurm` on the scenario, herd.conf as the real
    cluster ran it."""
    conf = os.path.join(workdir, "herd.conf")
    with open(conf, "w") as f:
        f.write(conf_text)
    out = os.path.join(workdir, "sim.csv")
    # (the file's Cluster line names no cluster of either side: herd sim
    # loads it into herd.conf's, as `sacctmgr load ... cluster=NAME` does)
    argv = [os.path.join(BIN, "herd"), "sim", "--policy", "slurm", "-c", conf,
            "--jobs", os.path.join(sc.dir, "jobs"), "--accounts", sc.accounts, "--csv", out]
    if sc.reservations:
        argv += ["--reservations", sc.reservations]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"herd sim failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    return read_sim_csv(out)


def read_sim_csv(path):
    """The simulator's CSV, by its header's names: jobid (as squeue shows
    it), jobname, user, last_start (its last run's: sacct's Start, which
    the real side reads), end (s from second 0), nodelist."""
    rows = {}
    with open(path) as f:
        for rec in csv.DictReader(f):
            start, end = int(rec["last_start"]), int(rec["end"])
            rows[rec["jobid"]] = {"id": rec["jobid"], "name": rec["jobname"], "user": rec["user"],
                                  "submit": int(rec["submit"]),
                                  "start": start if start >= 0 else None,
                                  "end": end if end >= 0 else None,
                                  "nodes": expand(rec["nodelist"])}
    return rows


# ---- comparing -------------------------------------------------------------

def expand(hostlist):
    """n[1-3,5] -> ('n1', 'n2', 'n3', 'n5'); '' or (null) -> ()."""
    names = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", hostlist or ""):
        m = re.fullmatch(r"(.*)\[(.*)\]", part)
        if not m:
            if part not in ("(null)", "None", "N/A"):
                names.append(part)
            continue
        for r in m.group(2).split(","):
            lo, _, hi = r.partition("-")
            for i in range(int(lo), int(hi or lo) + 1):
                names.append(f"{m.group(1)}{str(i).zfill(len(lo))}")
    return tuple(names)


def start_order(rows):
    """Job IDs by start, then by ID (arrays' tasks by task)."""
    def key(jid):
        return tuple(int(x) for x in jid.split("_"))
    started = [j for j in rows if rows[j]["start"] is not None]
    return sorted(started, key=lambda j: (rows[j]["start"], key(j)))


# The simulator's clock and the controller's start times are whole seconds;
# the real side keeps its events inside their second (see above), so both
# should give the same second.  A start one second apart is still accepted,
# as issue 14 asks ("within the clock's resolution"): a pass that ran just
# across a second's boundary on the real machine.  The order and the nodes
# must be the same.
TOLERANCE = 1


def compare(real, sim):
    """Differences as sentences; [] when the two agree."""
    problems = []
    if set(real) != set(sim):
        problems.append(f"job IDs differ: only real {sorted(set(real) - set(sim))}, "
                        f"only sim {sorted(set(sim) - set(real))}")
    if start_order(real) != start_order(sim):
        problems.append(f"start order differs:\n  real {start_order(real)}\n  sim  {start_order(sim)}")
    for jid in sorted(set(real) & set(sim), key=lambda j: tuple(int(x) for x in j.split("_"))):
        a, b = real[jid], sim[jid]
        if a["nodes"] != b["nodes"]:
            problems.append(f"job {jid}: nodes real {','.join(a['nodes'])} sim {','.join(b['nodes'])}")
        if (a["start"] is None) != (b["start"] is None) or \
                (a["start"] is not None and abs(a["start"] - b["start"]) > TOLERANCE):
            problems.append(f"job {jid}: start real {a['start']} sim {b['start']}")
    return problems


def table(real, sim):
    """Both sides, job by job, side by side."""
    lines = [f"{'job':<8} {'user':<8} | {'real start':>10} {'end':>4} {'nodes':<12} | "
             f"{'sim start':>9} {'end':>4} {'nodes':<12}"]
    ids = sorted(set(real) | set(sim), key=lambda j: tuple(int(x) for x in j.split("_")))
    for jid in ids:
        a, b = real.get(jid, {}), sim.get(jid, {})
        lines.append(f"{jid:<8} {a.get('user') or b.get('user', ''):<8} | "
                     f"{str(a.get('start')):>10} {str(a.get('end')):>4} "
                     f"{','.join(a.get('nodes', ())):<12} | "
                     f"{str(b.get('start')):>9} {str(b.get('end')):>4} "
                     f"{','.join(b.get('nodes', ())):<12}")
    return "\n".join(lines)


def races(rows):
    """Seconds at which two or more jobs end and a job that was waiting
    starts (the simulator's rows): which of the ends a real cluster hears
    first may decide where (or whether) that job starts, where the
    simulator hears them all at once.  A job submitted in that second is
    not at stake: the ends come before the second's submissions on both
    sides.  A scenario should have none (its jobs file is then to be
    changed, not the test)."""
    found = []
    for t in sorted({r["end"] for r in rows.values() if r["end"] is not None}):
        ends = sorted(j for j, r in rows.items() if r["end"] == t)
        starts = sorted(j for j, r in rows.items() if r["start"] == t and r["submit"] < t)
        if len(ends) > 1 and starts:
            found.append(f"second {t}: {ends} end, {starts} start")
    return found
