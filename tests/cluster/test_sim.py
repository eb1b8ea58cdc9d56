"""`herd sim`: replays of small traces whose FCFS and EASY schedules are
worked out by hand below, the figures on the Parallel Workloads Archive
traces in shared/data/swf against an independent simulator (easy_ref.py),
the multifactor policy from a herd.conf, the CSV and SVG files, and bad
input.  No cluster: `herd sim` runs the scheduler in virtual time."""
import csv
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

import easy_ref
from conftest import HERD, REPO

# The traces stay where the workplace keeps them (shared/data/swf beside the
# project; HERD_SWF_DIR elsewhere), never copied into the repository.  A
# clone made somewhere else on the same machine still finds them.
SWF_DIR = os.environ.get("HERD_SWF_DIR") or next(
    (d for d in (os.path.join(os.path.dirname(REPO), "shared", "data", "swf"),
                 "/work/shared/data/swf") if os.path.isdir(d)),
    os.path.join(os.path.dirname(REPO), "shared", "data", "swf"))
TRACES = {"kth": "KTH-SP2-1996-2.1-cln.swf.gz", "lublin": "lublin_256.swf.gz",
          "nasa": "NASA-iPSC-1993-3.1-cln.swf.gz"}


def sim(*args, env=None):
    e = dict(os.environ)
    e.pop("HERD_CONF", None)
    e.update(env or {})
    return subprocess.run([HERD, "sim", *args], capture_output=True, text=True, env=e,
                          timeout=600)


def figures(out):
    """The printed figures, as the strings printed."""
    pats = {"jobs": r"^Jobs: +(\d+) \(skipped: (\d+) bigger than the machine, (\d+) without",
            "procs": r"^Processors: +(\d+)",
            "utilization": r"^Utilization: +([\d.]+)%$",
            "mean_wait": r"^Mean wait: +([\d.]+) s$",
            "max_wait": r"^Max wait: +(\d+) s$",
            "mean_bsld": r"^Mean bounded slowdown: +([\d.]+) \(tau = 10 s\)$",
            "makespan": r"^Makespan: +(\d+) s$"}
    got = {}
    for k, p in pats.items():
        m = re.search(p, out, re.M)
        assert m, (k, out)
        got[k] = m.groups() if k == "jobs" else m.group(1)
    return got


def ref_figures(m):
    return {"utilization": f"{100 * m['utilization']:.4f}", "mean_wait": f"{m['mean_wait']:.2f}",
            "max_wait": str(m["max_wait"]), "mean_bsld": f"{m['mean_bsld']:.4f}",
            "makespan": str(m["makespan"])}


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def swf(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# Trace A, 4 processors.  Fields: 1 id, 2 submit, 4 run, 5 procs, 8 asked
# procs, 9 asked time.
#   1 @0   2 procs 100 s (estimate 100)
#   2 @10  4 procs  50 s (estimate 60)
#   3 @20  1 proc  runs 500 s but asked 70: killed at 70
#   4 @30  no field 5: 1 proc from field 8; no estimate: 40 s = its run time
#   5 @75  1 proc   30 s (estimate 100)
#   6 @80  8 procs: bigger than the machine, skipped
# FCFS: 1 starts at 0; 2 waits for 1's end (100) and all wait behind it;
#   2 runs 100-150; at 150 3, 4, 5 start (ends 220, 190, 180).
#   waits 0 90 130 120 75: mean 83.00, max 130; makespan 220;
#   CPU-s 200+200+70+40+30 = 540 over 4x220: 61.3636%;
#   bounded slowdown 1, 140/50, 200/70, 160/40, 105/30: mean 2.8314.
# EASY: at 10, 2 gets the shadow time 100 (1's end), extra 0 procs.
#   3 (1 proc, ends by 20+70 = 90 <= 100) starts at 20; 4 (ends 70) at 30;
#   5 arrives at 75 with 1 free proc but would end at 175 > 100 with no
#   extra procs: it waits; 2 starts at 100, 5 at 150 (end 180).
#   waits 0 90 0 0 75: mean 33.00, max 90; makespan 180; 540/720 = 75.0000%;
#   slowdowns 1, 2.8, 1, 1, 3.5: mean 1.8600.
TRACE_A = """; MaxProcs: 4
1  0 -1 100  2 -1 -1  2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1  50  4 -1 -1  4  60 -1 1 1 1 -1 -1 -1 -1 -1
3 20 -1 500  1 -1 -1  1  70 -1 1 1 1 -1 -1 -1 -1 -1
4 30 -1  40 -1 -1 -1  1  -1 -1 1 1 1 -1 -1 -1 -1 -1
5 75 -1  30  1 -1 -1  1 100 -1 1 1 1 -1 -1 -1 -1 -1
6 80 -1  10  8 -1 -1  8  10 -1 1 1 1 -1 -1 -1 -1 -1
"""
A_WANT = {
    "fcfs": ([0, 100, 150, 150, 150], [100, 150, 220, 190, 180],
             {"utilization": "61.3636", "mean_wait": "83.00", "max_wait": "130",
              "mean_bsld": "2.8314", "makespan": "220"}),
    "easy": ([0, 100, 20, 30, 150], [100, 150, 90, 70, 180],
             {"utilization": "75.0000", "mean_wait": "33.00", "max_wait": "90",
              "mean_bsld": "1.8600", "makespan": "180"}),
}

# Trace B, 6 processors: the extra processors, a job ending exactly at the
# shadow time, a job shorter than tau, a 0 s job, an end and an arrival at
# one time.
#   1 @0  4 procs 100 s (est 100)     2 @5  5 procs 100 s (est 100)
#   3 @6  1 proc  300 s (est 300)     4 @7  1 proc  300 s (est 300)
#   5 @8  1 proc    5 s (est 20)      6 @13 1 proc    0 s (no estimate)
#   7 @50 1 proc   40 s (est 50)
# EASY: 1 starts at 0 (2 free).  At 5, 2 waits: shadow 100, when 2 + 4
#   procs are free, extra 6 - 5 = 1.  3 (ends after 100) takes the extra
#   proc: starts at 6.  4 at 7: 1 free, no extra left: waits.  5 at 8
#   ends by 28 <= 100: starts.  At 13, 5's end and 6's arrival: one pass,
#   6 (planned 1 s) starts at 13 and ends at once.  7 at 50 ends at
#   100 = the shadow time: starts.  At 100, 2 starts; at 200, 4.
#   starts 0 100 6 200 8 13 50; waits 95 and 193: mean 288/7 = 41.14;
#   makespan 500 (4's end); CPU-s 400+500+300+300+5+0+40 = 1545 over
#   6x500 = 51.5000%; slowdowns 1, 1.95, 1, 493/300, 1 (5/10 < 1), 1, 1:
#   mean 1.2276.
# FCFS: 1 at 0; at 100, 2 and 3 (ends 400); at 200 (2's end), 4, 5, 6, 7.
#   waits 95 94 193 192 187 150: mean 911/7 = 130.14, max 193;
#   makespan 500, 51.5000%; slowdowns 1, 1.95, 394/300, 493/300, 19.7,
#   18.7, 4.75: mean 7.0081.
TRACE_B = """; MaxProcs: 6
1  0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2  5 -1 100 5 -1 -1 5 100 -1 1 1 1 -1 -1 -1 -1 -1
3  6 -1 300 1 -1 -1 1 300 -1 1 1 1 -1 -1 -1 -1 -1
4  7 -1 300 1 -1 -1 1 300 -1 1 1 1 -1 -1 -1 -1 -1
5  8 -1   5 1 -1 -1 1  20 -1 1 1 1 -1 -1 -1 -1 -1
6 13 -1   0 1 -1 -1 1  -1 -1 1 1 1 -1 -1 -1 -1 -1
7 50 -1  40 1 -1 -1 1  50 -1 1 1 1 -1 -1 -1 -1 -1
"""
B_WANT = {
    "fcfs": ([0, 100, 100, 200, 200, 200, 200], [100, 200, 400, 500, 205, 200, 240],
             {"utilization": "51.5000", "mean_wait": "130.14", "max_wait": "193",
              "mean_bsld": "7.0081", "makespan": "500"}),
    "easy": ([0, 100, 6, 200, 8, 13, 50], [100, 200, 306, 500, 13, 13, 90],
             {"utilization": "51.5000", "mean_wait": "41.14", "max_wait": "193",
              "mean_bsld": "1.2276", "makespan": "500"}),
}


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("name,text,want,skipped_big", [("a", TRACE_A, A_WANT, 1),
                                                        ("b", TRACE_B, B_WANT, 0)])
@pytest.mark.parametrize("node_cpus", [None, "1"])
def test_hand_worked(tmp_path, policy, name, text, want, skipped_big, node_cpus):
    path = swf(tmp_path, f"{name}.swf", text)
    out_csv = str(tmp_path / "jobs.csv")
    args = ["--swf", path, "--policy", policy, "--csv", out_csv]
    if node_cpus:   # the same machine as one-CPU nodes: the same schedule
        args += ["--node-cpus", node_cpus]
    r = sim(*args)
    assert r.returncode == 0, r.stderr
    starts, ends, figs = want[policy]
    rows = read_csv(out_csv)
    assert [int(x["job_id"]) for x in rows] == list(range(1, len(starts) + 1))
    assert [int(x["start"]) for x in rows] == starts
    assert [int(x["end"]) for x in rows] == ends
    assert [int(x["wait"]) for x in rows] == [int(x["start"]) - int(x["submit"]) for x in rows]
    got = figures(r.stdout)
    assert got["jobs"] == (str(len(starts)), str(skipped_big), "0")
    for k, v in figs.items():
        assert got[k] == v, (k, r.stdout)
    # easy_ref.py agrees with the hand-worked schedule
    trace, procs = easy_ref.load(path)
    ref, big, bad = easy_ref.simulate(trace, procs, policy)
    assert [j["start"] for j in ref] == starts
    assert ref_figures(easy_ref.metrics(ref, procs)) == figs


def test_jobs_and_procs_options(tmp_path):
    """--jobs N replays the first N jobs; --procs overrides MaxProcs."""
    path = swf(tmp_path, "a.swf", TRACE_A)
    out_csv = str(tmp_path / "j.csv")
    r = sim("--swf", path, "--policy", "fcfs", "--jobs", "3", "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 100, 150]
    # 8 processors: 1, 2, 3, 4 and 5 start on arrival (2 ends at 60, 4 at
    # 70); 6 now fits but needs all 8: it waits for 3 (90), 1 (100) and 5
    # (105).
    r = sim("--swf", path, "--policy", "fcfs", "--procs", "8", "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert figures(r.stdout)["procs"] == "8"
    assert figures(r.stdout)["jobs"] == ("6", "0", "0")
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 10, 20, 30, 75, 105]


def test_nodes_from_conf(tmp_path):
    """A trace without MaxProcs replays on herd.conf's nodes: here 2 nodes
    of 2 CPUs, trace A's first three jobs (job 3 backfills as on 4
    processors); --procs overrides them."""
    text = "".join(line + "\n" for line in TRACE_A.splitlines()[1:4])
    path = swf(tmp_path, "nh.swf", text)
    conf = tmp_path / "herd.conf"
    conf.write_text("ClusterName=t\nSlurmctldHost=localhost\nNodeName=n[1-2] CPUs=2\n"
                    "PartitionName=debug Nodes=ALL Default=YES\n")
    out_csv = str(tmp_path / "n.csv")
    r = sim("--swf", path, "-c", str(conf), "--policy", "easy", "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^Processors: +4 \(2 nodes\)$", r.stdout, re.M), r.stdout
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 100, 20]
    r = sim("--swf", path, "-c", str(conf), "--policy", "easy", "--procs", "8", "--csv", out_csv)
    assert re.search(r"^Processors: +8 \(1 node\)$", r.stdout, re.M), r.stdout
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 10, 20]


# Multifactor, 4 processors, PriorityWeightJobSize with PriorityFavorSmall:
#   1 @0 4 procs 100 s; 2 @10 4 procs 50 s; 3 @20 1 proc 50 s.
# At 100 the small job 3 is first (size factor 0.375 against 0): it starts
# at 100; 2 needs all 4 and starts at 150 (3's end).  Under FCFS 2 starts
# at 100 and 3 at 150.
TRACE_M = """; MaxProcs: 4
1  0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1  50 4 -1 -1 4  50 -1 1 2 1 -1 -1 -1 -1 -1
3 20 -1  50 1 -1 -1 1  50 -1 1 3 1 -1 -1 -1 -1 -1
"""


@pytest.mark.parametrize("via_env", [False, True])
def test_multifactor_from_conf(tmp_path, via_env):
    path = swf(tmp_path, "m.swf", TRACE_M)
    conf = tmp_path / "herd.conf"
    conf.write_text("PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n"
                    "PriorityFavorSmall=YES\nSchedulerType=sched/backfill\n"
                    "SchedulerParameters=bf_window=60,bf_resolution=1\n")
    out_csv = str(tmp_path / "m.csv")
    args = ["--swf", path, "--policy", "multifactor", "--csv", out_csv]
    r = sim(*args, env={"HERD_CONF": str(conf)}) if via_env else sim(*args, "-c", str(conf))
    assert r.returncode == 0, r.stderr
    assert "Policy:                multifactor" in r.stdout
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 150, 100]
    # without the config, or without PriorityType=priority/multifactor (as
    # herdctld), the weights count for nothing: priorities tie, oldest first
    r = sim(*args)
    assert r.returncode == 0, r.stderr
    assert "PriorityType=priority/basic (the default)" in r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 100, 150]
    basic = tmp_path / "basic.conf"
    basic.write_text(conf.read_text().replace("priority/multifactor", "priority/basic"))
    r = sim(*args, "-c", str(basic))
    assert r.returncode == 0, r.stderr
    assert "herd sim: warning: PriorityType=priority/basic: every priority" in r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 100, 150]
    r = sim("--swf", path, "--policy", "fcfs", "--csv", out_csv)
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 100, 150]


# Fair-share, 2 processors, two users (field 12):
#   1 @0  user 1, 2 procs 100 s;  2 @10 user 1, 2 procs 50 s;
#   3 @20 user 2, 2 procs 50 s.
# At 100 user 1 has used 200 CPU-s, all of the usage: fair-share factor
# 2^(-(200/200)/(1/2)) = 0.25, user 2's 1.  With PriorityWeightFairshare
# 3 (user 2) starts at 100 and 2 at 150; with PriorityWeightAge instead,
# the older job 2 goes first (100) and 3 at 150.
TRACE_FS = """; MaxProcs: 2
1  0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1  50 2 -1 -1 2  50 -1 1 1 1 -1 -1 -1 -1 -1
3 20 -1  50 2 -1 -1 2  50 -1 1 2 1 -1 -1 -1 -1 -1
"""


@pytest.mark.parametrize("weights,starts", [
    ("PriorityWeightFairshare=1000\nPriorityDecayHalfLife=0\n", [0, 150, 100]),
    ("PriorityWeightFairshare=1000\nPriorityDecayHalfLife=7-0\n", [0, 150, 100]),
    ("PriorityWeightAge=1000\n", [0, 100, 150]),
])
def test_multifactor_fairshare(tmp_path, weights, starts):
    path = swf(tmp_path, "fs.swf", TRACE_FS)
    conf = tmp_path / "herd.conf"
    conf.write_text("PriorityType=priority/multifactor\n" + weights)
    out_csv = str(tmp_path / "fs.csv")
    r = sim("--swf", path, "--policy", "multifactor", "-c", str(conf), "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == starts


def check_feasible(rows, procs):
    """A schedule whatever the policy: no job starts before its submission,
    each runs its run time, and the processors in use never exceed procs."""
    ev = []
    for x in rows:
        start, end, sub = int(x["start"]), int(x["end"]), int(x["submit"])
        assert start >= sub and end - start == int(x["run_time"]), x
        ev += [(start, 1, int(x["procs"])), (end, 0, -int(x["procs"]))]
    busy = peak = 0
    for _, _, d in sorted(ev):   # at one time ends (0) before starts (1)
        busy += d
        peak = max(peak, busy)
    assert peak <= procs
    return peak


@pytest.mark.parametrize("sched", ["sched/backfill", "sched/builtin"])
@pytest.mark.parametrize("trace,njobs", [("kth", 3000), ("lublin", 1024)])
def test_multifactor_traces(tmp_path, trace, njobs, sched):
    """Multifactor on real traces: a feasible schedule of every job, and
    with small jobs favoured, their wait drops below FCFS's."""
    need_traces()
    path = os.path.join(SWF_DIR, TRACES[trace])
    conf = tmp_path / "herd.conf"
    conf.write_text("PriorityType=priority/multifactor\nPriorityWeightJobSize=10000\n"
                    "PriorityFavorSmall=YES\nPriorityWeightAge=100\nPriorityWeightFairshare=1000\n"
                    f"SchedulerType={sched}\n"
                    "SchedulerParameters=bf_window=2880,bf_max_job_test=200\n")
    out_csv = str(tmp_path / "mf.csv")
    r = sim("--swf", path, "--jobs", str(njobs), "--policy", "multifactor", "-c", str(conf),
            "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    got = figures(r.stdout)
    rows = read_csv(out_csv)
    assert int(got["jobs"][0]) == len(rows) > 0.99 * njobs
    check_feasible(rows, int(got["procs"]))
    fcfs = figures(sim("--swf", path, "--jobs", str(njobs), "--policy", "fcfs").stdout)
    assert float(got["mean_wait"]) < float(fcfs["mean_wait"])


@pytest.mark.parametrize("trace", ["kth", "lublin"])
def test_node_model_feasible(tmp_path, trace):
    """--node-cpus: the same processors as nodes (reservations then hold
    particular nodes, as in Slurm): still a feasible schedule of every job."""
    need_traces()
    path = os.path.join(SWF_DIR, TRACES[trace])
    out_csv = str(tmp_path / "n.csv")
    r = sim("--swf", path, "--jobs", "2000", "--policy", "easy", "--node-cpus", "4",
            "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    got = figures(r.stdout)
    assert re.search(r"^Processors: +\d+ \((\d+) nodes\)", r.stdout, re.M)
    peak = check_feasible(read_csv(out_csv), int(got["procs"]))
    assert peak == int(got["procs"])   # the machine fills at some point


def test_csv_and_svg(tmp_path):
    path = swf(tmp_path, "b.swf", TRACE_B)
    out_csv, svg = str(tmp_path / "b.csv"), str(tmp_path / "b.svg")
    r = sim("--swf", path, "--policy", "easy", "--csv", out_csv, "--plot", svg)
    assert r.returncode == 0, r.stderr
    assert "Policy:                easy" in r.stdout
    with open(out_csv) as f:
        assert f.readline() == ("job_id,submit,start,end,wait,run_time,estimate,procs,"
                                "bounded_slowdown,jobid,jobname,user,nodelist,last_start\n")
    rows = read_csv(out_csv)
    assert len(rows) == 7
    assert rows[5]["run_time"] == "0" and rows[5]["estimate"] == "0"
    assert float(rows[1]["bounded_slowdown"]) == 1.95
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    lines = root.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 3   # utilization, queue length, wait
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Utilization" in texts and "Queue length" in texts and "b.swf" in texts
    assert "Wait (hours" in texts
    for line in lines:
        pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        assert len(pts) > 100
        assert all(a[0] < b[0] for a, b in zip(pts, pts[1:]))
    # the utilization line is not flat: the trace's machine fills and empties
    ys = {y for _, y in [tuple(map(float, p.split(","))) for p in lines[0].get("points").split()]}
    assert len(ys) > 2
    # the wait line: jobs 2 and 4 waited (95 s, 193 s), the others not
    waits = {y for _, y in [tuple(map(float, p.split(","))) for p in lines[2].get("points").split()]}
    assert len(waits) >= 2
    # --chart is the same option
    r = sim("--swf", path, "--policy", "easy", "--chart", svg)
    assert r.returncode == 0 and len(ET.parse(svg).getroot().findall(
        "{http://www.w3.org/2000/svg}polyline")) == 3


def need_traces():
    if not os.path.isdir(SWF_DIR):
        pytest.skip(f"the SWF traces are not on this machine ({SWF_DIR})")


def compare_with_ref(tmp_path, trace, policy, njobs):
    need_traces()
    path = os.path.join(SWF_DIR, TRACES[trace])
    out_csv = str(tmp_path / "t.csv")
    args = ["--swf", path, "--policy", policy, "--csv", out_csv]
    if njobs:
        args += ["--jobs", str(njobs)]
    r = sim(*args)
    assert r.returncode == 0, r.stderr
    jobs, procs = easy_ref.load(path, njobs)
    ref, big, bad = easy_ref.simulate(jobs, procs, policy)
    got = figures(r.stdout)
    assert got["procs"] == str(procs)
    assert got["jobs"] == (str(len(ref)), str(big), str(bad))
    rows = read_csv(out_csv)
    assert [int(x["job_id"]) for x in rows] == [j["id"] for j in ref]
    starts = [int(x["start"]) for x in rows]
    want = [j["start"] for j in ref]
    if starts != want:
        first = next(i for i, (a, b) in enumerate(zip(starts, want)) if a != b)
        pytest.fail(f"job {ref[first]['id']} starts at {starts[first]}, easy_ref says "
                    f"{want[first]} ({sum(a != b for a, b in zip(starts, want))} differ)")
    figs = ref_figures(easy_ref.metrics(ref, procs))
    for k, v in figs.items():
        assert got[k] == v, (k, r.stdout)
    check_feasible(rows, procs)
    return got


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("trace,njobs", [("kth", 2000), ("lublin", 1024), ("nasa", 2000)])
def test_traces_first_jobs(tmp_path, trace, njobs, policy):
    compare_with_ref(tmp_path, trace, policy, njobs)


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("trace", ["kth", "lublin", "nasa"])
def test_traces_whole(tmp_path, trace, policy):
    got = compare_with_ref(tmp_path, trace, policy, None)
    if trace == "kth":   # job 27313 has no size
        assert got["jobs"] == ("28475", "0", "1")


def test_easy_beats_fcfs_on_kth(tmp_path):
    """Backfill does what it is for: on KTH's first 2,000 jobs EASY waits
    less than FCFS (and easy_ref.py, above, agrees with both figures)."""
    need_traces()
    path = os.path.join(SWF_DIR, TRACES["kth"])
    w = {p: float(figures(sim("--swf", path, "--jobs", "2000", "--policy", p).stdout)["mean_wait"])
         for p in ("fcfs", "easy")}
    assert w["easy"] < w["fcfs"]


@pytest.mark.parametrize("args,msg", [
    (["--swf", "/nonexistent/t.swf"], "/nonexistent/t.swf: No such file or directory"),
    ([], "--swf FILE or --jobs FILE is required"),
    (["--swf", "X", "--policy", "sjf"], "--policy: slurm, fcfs, easy or multifactor, not 'sjf'"),
    (["--swf", "X", "--jobs", "ten"], "--jobs: not a positive number: 'ten'"),
    (["--swf", "X", "--jobs", "0"], "--jobs: not a positive number: '0'"),
    (["--swf", "X", "--procs", "-4"], "--procs: not a positive number"),
    (["--swf", "X", "--bogus"], "unrecognized option '--bogus'"),
    (["--swf"], "option '--swf' needs a value"),
    (["--swf", "X", "extra"], "unexpected argument 'extra'"),
    (["--swf", "X", "-c", "/nonexistent/herd.conf"], "/nonexistent/herd.conf"),
    (["--swf", "X", "--csv", "/nonexistent/j.csv"], "/nonexistent/j.csv: No such file or directory"),
    (["--swf", "X", "--chart", "/nonexistent/c.svg"], "/nonexistent/c.svg: No such file or directory"),
    (["--swf", "/"], "/: Is a directory"),
])
def test_bad_input(tmp_path, args, msg):
    good = swf(tmp_path, "a.swf", TRACE_A)
    args = [good if a == "X" else a for a in args]
    r = sim(*args)
    assert r.returncode == 1, r
    assert r.stderr.startswith("herd sim: error: "), r.stderr
    assert msg in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("text,msg", [
    ("; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 -1 10\n",
     "bad.swf:3: 4 fields, SWF has 18"),
    ("; MaxProcs: 4\n1 0 -1 ten 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
     "bad.swf:2: field 4 is not a number: 'ten'"),
    ("1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
     "the machine's size is unknown: give --procs"),
])
def test_malformed_trace(tmp_path, text, msg):
    r = sim("--swf", swf(tmp_path, "bad.swf", text))
    assert r.returncode == 1
    assert r.stderr.startswith("herd sim: error: ") and msg in r.stderr, r.stderr


@pytest.mark.parametrize("text,msg", [
    ("PriorityWeightAge=lots\n", "PriorityWeightAge"),
    ("PriorityType=priority/fancy\n", "PriorityType=priority/fancy: priority/basic or"),
    ("PriorityType=priority/multifactor\nPriorityFlags=SOMETIMES\n", "SOMETIMES"),
    ("SchedulerType=sched/wiki\n", "SchedulerType=sched/wiki"),
    ("SchedulerParameters=bf_window=soon\n", "SchedulerParameters=bf_window=soon"),
])
def test_bad_conf(tmp_path, text, msg):
    conf = tmp_path / "herd.conf"
    conf.write_text(text)
    r = sim("--swf", swf(tmp_path, "a.swf", TRACE_A), "--policy", "multifactor", "-c", str(conf))
    assert r.returncode == 1
    assert r.stderr.startswith("herd sim: error: ") and msg in r.stderr, r.stderr


def test_help():
    r = sim("--help")
    assert r.returncode == 0
    assert "--swf FILE" in r.stdout and "--policy" in r.stdout


# --policy slurm: the controller's own code (doc/core.md).  Trace A again.
# The limits are the estimates rounded up to whole minutes, as Slurm keeps
# them: 1 120 s, 2 60 s, 3 120 s, 4 (no estimate: its run time) 60 s,
# 5 120 s.  Priorities by age: 2 goes first, and waits for 4 CPUs.
# sched/backfill: the backfill pass (every 30 s, in the middle of its
# second: herd/sim_env.c) at 30.5 sees 4, which came at 30, and plans 2 at
# 120 (1's limit); 4 (60 s) fits before that and starts at 30, 3 (120 s)
# does not.  1 ends at 100: 2 starts, ends at 150; then 3 and 5.
# sched/builtin: no backfill: 3, 4, 5 wait for 2 and start at 150.
# Nodes from herd.conf: the same machine as 4 one-CPU nodes, the same plan.
SLURM_A = {
    "backfill": ("", [0, 100, 150, 30, 150], [100, 150, 220, 70, 180]),
    "builtin": ("SchedulerType=sched/builtin\n", [0, 100, 150, 150, 150],
                [100, 150, 220, 190, 180]),
}


@pytest.mark.parametrize("nodes", ["NodeName=n1 CPUs=4", "NodeName=n[1-4] CPUs=1", None])
@pytest.mark.parametrize("sched", ["backfill", "builtin"])
def test_slurm_policy_runs_the_controller(tmp_path, sched, nodes):
    keys, starts, ends = SLURM_A[sched]
    path = swf(tmp_path, "a.swf", TRACE_A)
    out_csv = str(tmp_path / "a.csv")
    args = ["--swf", path, "--policy", "slurm", "--csv", out_csv]
    if nodes or keys:
        conf = tmp_path / "herd.conf"
        conf.write_text("ClusterName=sim\nSlurmctldHost=localhost\n" + keys +
                        (nodes or "NodeName=n1 CPUs=4") +
                        "\nPartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED\n")
        args += ["-c", str(conf)]
    r = sim(*args)
    assert r.returncode == 0, r.stderr
    assert "Policy:                slurm" in r.stdout
    assert f"({4 if nodes and '[1-4]' in nodes else 1} node" in r.stdout
    rows = read_csv(out_csv)
    assert [int(x["start"]) for x in rows] == starts
    assert [int(x["end"]) for x in rows] == ends
    # job 6 (8 CPUs) is refused as the controller refuses it: skipped
    assert figures(r.stdout)["jobs"] == ("5", "1", "0")


def test_slurm_policy_on_a_trace(tmp_path):
    """The first 300 jobs of KTH through the controller: every job runs,
    a feasible schedule, each job its run time or its limit."""
    out_csv = str(tmp_path / "k.csv")
    r = sim("--swf", os.path.join(SWF_DIR, TRACES["kth"]), "--jobs", "300", "--policy", "slurm",
            "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    rows = read_csv(out_csv)
    assert figures(r.stdout)["jobs"] == ("300", "0", "0") and len(rows) == 300
    assert check_feasible(rows, 100) > 0


def test_slurm_is_the_default(tmp_path):
    """Without --policy, the controller's own code: trace A's plan above."""
    path = swf(tmp_path, "a.swf", TRACE_A)
    out_csv = str(tmp_path / "a.csv")
    r = sim("--swf", path, "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert "Policy:                slurm" in r.stdout
    _, starts, ends = SLURM_A["backfill"]
    assert [int(x["start"]) for x in read_csv(out_csv)] == starts


def slurm_conf(tmp_path, text):
    conf = tmp_path / "herd.conf"
    conf.write_text("ClusterName=sim\nSlurmctldHost=localhost\n" + text)
    return str(conf)


# Fair-share through the controller: trace FS's users (field 12) are
# users u1 and u2, in accounts g1 and g2 (field 13) under root.  At 100
# u1 has used all the usage: its fair-share factor drops below u2's, and
# 3 (u2) starts before 2 (u1), under fair tree and classic alike.  With
# 3 as u1's job too, the factors tie and 2, the older, goes first.
@pytest.mark.parametrize("flags", ["", "PriorityFlags=NO_FAIR_TREE\n"])
@pytest.mark.parametrize("third_user,starts", [(2, [0, 150, 100]), (1, [0, 100, 150])])
def test_slurm_policy_fairshare(tmp_path, flags, third_user, starts):
    text = TRACE_FS.replace(" 1 2 1 -1 -1 -1 -1 -1", f" 1 {third_user} {third_user} -1 -1 -1 -1 -1")
    path = swf(tmp_path, "fs.swf", text)
    conf = slurm_conf(tmp_path, "PriorityType=priority/multifactor\nPriorityWeightFairshare=1000\n"
                      + flags + "NodeName=n1 CPUs=2\n"
                      "PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED\n")
    out_csv = str(tmp_path / "fs.csv")
    r = sim("--swf", path, "-c", conf, "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == starts


# Queue (15) and partition (16): N >= 1 is herd.conf's Nth partition.
# p1 (the default, node n1) is busy with job 1 until 1000; p2 (n2) is free.
#   2 queue 2 -> p2: starts at once     3 no queue, partition 2 -> p2
#   4 queue 0 (SWF's "interactive"), partition 2 -> p2
#   5 queue 3, past the last -> the default, p1: waits for 1's end
#   6 neither -> p1: after 5
TRACE_Q = """; MaxProcs: 2
1  0 -1 1000 1 -1 -1 1 1000 -1 1 1 1 -1  1 -1 -1 -1
2 10 -1   10 1 -1 -1 1   10 -1 1 1 1 -1  2 -1 -1 -1
3 30 -1   10 1 -1 -1 1   10 -1 1 1 1 -1 -1  2 -1 -1
4 50 -1   10 1 -1 -1 1   10 -1 1 1 1 -1  0  2 -1 -1
5 70 -1   10 1 -1 -1 1   10 -1 1 1 1 -1  3  2 -1 -1
6 80 -1   10 1 -1 -1 1   10 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_slurm_policy_queue_and_partition(tmp_path):
    conf = slurm_conf(tmp_path, "NodeName=n1 CPUs=1\nNodeName=n2 CPUs=1\n"
                      "PartitionName=p1 Nodes=n1 Default=YES MaxTime=UNLIMITED\n"
                      "PartitionName=p2 Nodes=n2 MaxTime=UNLIMITED\n")
    out_csv = str(tmp_path / "q.csv")
    r = sim("--swf", swf(tmp_path, "q.swf", TRACE_Q), "-c", conf, "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert [int(x["start"]) for x in read_csv(out_csv)] == [0, 10, 30, 50, 1000, 1010]


# Preceding job (17) and think time (18): a job is submitted its think time
# after its preceding job's end, and not before its own submit time.
#   2 follows 1 (ends 100) by 20 s: submitted and started at 120
#   3 follows 99, not in the trace: no dependency, waits for 1's CPUs
#   4 needs 8 CPUs: refused; 5 follows it: no dependency, submitted at 40
#   6 follows 2 (ends 150) by 0 s; 7 follows 2 by 5 s but comes at 300
TRACE_DEP = """; MaxProcs: 2
1   0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2  10 -1  30 1 -1 -1 1  30 -1 1 1 1 -1 -1 -1  1 20
3  20 -1  30 1 -1 -1 1  30 -1 1 2 1 -1 -1 -1 99 50
4  30 -1  10 8 -1 -1 8  10 -1 1 2 1 -1 -1 -1 -1 -1
5  40 -1  10 1 -1 -1 1  10 -1 1 2 1 -1 -1 -1  4 10
6  50 -1  10 1 -1 -1 1  10 -1 1 2 1 -1 -1 -1  2  0
7 300 -1  10 1 -1 -1 1  10 -1 1 2 1 -1 -1 -1  2  5
"""


def test_slurm_policy_preceding_job(tmp_path):
    out_csv = str(tmp_path / "d.csv")
    r = sim("--swf", swf(tmp_path, "d.swf", TRACE_DEP), "--csv", out_csv)
    assert r.returncode == 0, r.stderr
    assert figures(r.stdout)["jobs"] == ("6", "1", "0")
    rows = read_csv(out_csv)
    assert [int(x["job_id"]) for x in rows] == [1, 2, 3, 5, 6, 7]
    assert [int(x["submit"]) for x in rows] == [0, 120, 20, 40, 150, 300]
    assert [int(x["start"]) for x in rows] == [0, 120, 100, 100, 150, 300]


# Preemption in the replay, PreemptType=preempt/partition_prio: job 1 (p
# "low", 2 CPUs, 100 s) runs from 0; job 2 (queue 2, "high") comes at 10
# and takes the node until 60; job 3 (1 CPU, low) waits.
#   REQUEUE: 1 ran 10 s, is queued again and runs 100 s from 60 (first
#     start 0, end 160, 110 s run); 3 at 160.
#   SUSPEND: 1 stops at 10 with 90 s left, goes on at 60, ends at 150.
#   CANCEL: 1 ends at 10 after 10 s; 3 starts when 2 ends.
# Utilization counts the CPU-seconds actually run: (220+100+30)/(2x190),
# (200+100+30)/(2x180), (20+100+30)/(2x90).
TRACE_PRE = """; MaxProcs: 2
1  0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1  1 -1 -1 -1
2 10 -1  50 2 -1 -1 2  50 -1 1 2 2 -1  2 -1 -1 -1
3 20 -1  30 1 -1 -1 1  30 -1 1 3 3 -1 -1  1 -1 -1
"""


@pytest.mark.parametrize("mode,starts,ends,runs,util", [
    ("REQUEUE", [0, 10, 160], [160, 60, 190], [110, 50, 30], "92.1053"),
    ("SUSPEND", [0, 10, 150], [150, 60, 180], [100, 50, 30], "91.6667"),
    ("CANCEL", [0, 10, 60], [10, 60, 90], [10, 50, 30], "83.3333"),
])
def test_slurm_policy_preemption(tmp_path, mode, starts, ends, runs, util):
    conf = slurm_conf(tmp_path, f"PreemptType=preempt/partition_prio\nPreemptMode={mode}\n"
                      "NodeName=n1 CPUs=2\n"
                      "PartitionName=low Nodes=ALL Default=YES MaxTime=UNLIMITED PriorityTier=1\n"
                      "PartitionName=high Nodes=ALL MaxTime=UNLIMITED PriorityTier=2\n")
    out_csv, svg = str(tmp_path / "p.csv"), str(tmp_path / "p.svg")
    r = sim("--swf", swf(tmp_path, "p.swf", TRACE_PRE), "-c", conf, "--csv", out_csv,
            "--plot", svg)
    assert r.returncode == 0, r.stderr
    rows = read_csv(out_csv)
    assert [int(x["start"]) for x in rows] == starts
    assert [int(x["end"]) for x in rows] == ends
    assert [int(x["run_time"]) for x in rows] == runs
    assert figures(r.stdout)["utilization"] == util
