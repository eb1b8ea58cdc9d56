"""`herd sim --jobs FILE --accounts FILE --reservations FILE`: a scenario
(sbatch lines, sacctmgr's flat file, scontrol reservation specs) replayed
through the controller's own code in virtual time, the CSV columns that
compare it with a real cluster (jobid, jobname, user, nodelist), and the
errors that name a bad line.  No cluster: `herd sim` runs no daemon."""
import csv
import os
import subprocess

import pytest

from conftest import HERD

CONF = """ClusterName=simt
SlurmctldHost=localhost
{extra}NodeName=n[1-4] CPUs=2
PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def conf(tmp_path, extra=""):
    return write(tmp_path, "herd.conf", CONF.format(extra=extra))


def sim(*args):
    e = dict(os.environ)
    e.pop("HERD_CONF", None)
    return subprocess.run([HERD, "sim", *args], capture_output=True, text=True, env=e,
                          timeout=120)


def replay(tmp_path, jobs, *args, extra=""):
    """Run the jobs file; the CSV's rows by start, then job ID."""
    out = str(tmp_path / "out.csv")
    r = sim("--jobs", write(tmp_path, "jobs.txt", jobs), "-c", conf(tmp_path, extra),
            "--csv", out, *args)
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    return r, sorted(rows, key=lambda x: (int(x["start"]), x["jobid"]))


def by_id(rows):
    return {x["jobid"]: x for x in rows}


def test_array_and_dependency(tmp_path, users):
    # 4 nodes of 2 CPUs.  At 0: a (2 CPUs) and b's three tasks fill them;
    # d (at 2) waits for b's tasks to end (5); c waits for a's end (10).
    # b's tasks 0 and 1 are split off with IDs 3 and 4 (task 2 keeps the
    # array's record), so c and d are jobs 5 and 6, as on a fresh cluster.
    r, rows = replay(tmp_path, """# submit user run sbatch options
0 herdu1 10 -J a -N1 -n2

0 herdu2 5 -J b -n2 --array=0-2
1 herdu1 3 -J c -N1 -n2 --dependency=afterok:1   # after a
2 herdu1 4 -J d -N1 -n2 -t 1
""")
    assert "Jobs file:" in r.stdout and "(4 jobs read)" in r.stdout
    assert "Policy:                slurm" in r.stdout
    assert [(x["jobid"], x["start"], x["end"]) for x in rows] == [
        ("1", "0", "10"), ("2_0", "0", "5"), ("2_1", "0", "5"), ("2_2", "0", "5"),
        ("6", "5", "9"), ("5", "10", "13")]
    j = by_id(rows)
    assert {x["jobname"] for x in rows} == {"a", "b", "c", "d"}
    assert (j["1"]["user"], j["2_1"]["user"], j["6"]["jobname"]) == ("herdu1", "herdu2", "d")
    # every job of the first second on a node of its own: all four nodes
    first = [x["nodelist"] for x in rows if x["start"] == "0"]
    assert sorted(first) == ["n1", "n2", "n3", "n4"]
    # the source's number: the line of the jobs file
    assert (j["1"]["job_id"], j["2_2"]["job_id"], j["5"]["job_id"]) == ("2", "4", "5")
    assert j["6"]["estimate"] == "60" and j["1"]["estimate"] == "-1"
    assert j["1"]["procs"] == "2"


def test_ids_in_submit_order(tmp_path, users):
    # lines out of time order: IDs go by submit time, one second's lines
    # in file order; --begin=now+N counts from the job's submission (first
    # ends at 20: a pass then)
    _, rows = replay(tmp_path, """5 herdu1 1 -J late
0 herdu2 20 -J first
0 herdu1 1 -J second --begin=now+20
""")
    names = {x["jobname"]: x for x in rows}
    assert (names["first"]["jobid"], names["second"]["jobid"], names["late"]["jobid"]) == \
        ("1", "2", "3")
    assert names["second"]["start"] == "20"
    assert names["late"]["start"] == "5"


def test_nodelist_is_quoted(tmp_path, users):
    _, rows = replay(tmp_path, "0 herdu1 1 -J w -N2 -w n1,n3\n")
    assert rows[0]["nodelist"] == "n[1,3]"
    with open(tmp_path / "out.csv") as f:
        assert f.read().splitlines()[1].endswith(',w,herdu1,"n[1,3]",0')


ACCOUNTS = """# sacctmgr dump simt
Cluster - 'simt'
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Account - 'physics':Description='physics':Organization='physics':Fairshare=1
Parent - 'physics'
User - 'herdu1':DefaultAccount='physics':Fairshare=1:MaxJobs=1
User - 'herdu2':DefaultAccount='physics':Fairshare=1
"""

ENFORCE = "AccountingStorageEnforce=associations,limits\n"


def test_accounts_limit_bites(tmp_path, users):
    # herdu1 may run one job at a time (MaxJobs=1): its second waits for
    # its first although the machine is idle; herdu2's does not
    jobs = "0 herdu1 10 -J a -n1\n0 herdu1 10 -J b -n1\n0 herdu2 10 -J c -n1\n"
    accounts = write(tmp_path, "accounts.txt", ACCOUNTS)
    _, rows = replay(tmp_path, jobs, "--accounts", accounts, extra=ENFORCE)
    start = {x["jobname"]: x["start"] for x in rows}
    assert start == {"a": "0", "b": "10", "c": "0"}
    # without the limit all three start at once
    _, rows = replay(tmp_path, jobs, "--accounts",
                     write(tmp_path, "free.txt", ACCOUNTS.replace(":MaxJobs=1", "")),
                     extra=ENFORCE)
    assert [x["start"] for x in rows] == ["0", "0", "0"]


def test_no_association_refuses_jobs(tmp_path, users):
    # associations enforced and none loaded: the controller refuses each
    # job, as sbatch would be told, and the warning names its line
    r = sim("--jobs", write(tmp_path, "jobs.txt", "# one job\n0 herdu1 10 -n1\n"),
            "-c", conf(tmp_path, ENFORCE))
    assert r.returncode == 0, r.stderr
    assert f"herd sim: warning: {tmp_path}/jobs.txt:2: job refused: Invalid account" in r.stderr
    assert "Jobs:                  0 " in r.stdout


def test_reservations_keep_jobs_off(tmp_path, users):
    # r1 holds n[1-2] for herdu1 from second 0 for 10 minutes: herdu2's
    # whole-node jobs take turns on n3 and n4; herdu1's runs in r1.  r2
    # starts at second 100 (now+100 from the replay's start) on n3: a job
    # that would end after that keeps off it.
    resv = write(tmp_path, "resv.txt", """# name start duration nodes users
ReservationName=r1 StartTime=now Duration=10 Nodes=n[1-2] Users=herdu1
reservation ReservationName=r2 StartTime=now+100 Duration=10 Nodes=n3 Users=herdu1
""")
    _, rows = replay(tmp_path, """0 herdu1 5 -J in -N2 --reservation=r1 -t 1
0 herdu2 5 -J x1 -N1 --exclusive -t 1
0 herdu2 5 -J x2 -N1 --exclusive -t 1
0 herdu2 5 -J x3 -N1 --exclusive -t 1
0 herdu2 5 -J x4 -N1 --exclusive -t 1
50 herdu2 5 -J y -N1 --exclusive -t 2
""", "--reservations", resv)
    j = {x["jobname"]: x for x in rows}
    assert (j["in"]["start"], j["in"]["nodelist"]) == ("0", "n[1-2]")
    for name in ("x1", "x2", "x3", "x4"):
        assert j[name]["nodelist"] in ("n3", "n4"), rows
    assert sorted(j[n]["start"] for n in ("x1", "x2", "x3", "x4")) == ["0", "0", "5", "5"]
    # y (at 50, 2 minutes) would run into r2 on n3: n4
    assert (j["y"]["start"], j["y"]["nodelist"]) == ("50", "n4")


@pytest.mark.parametrize("kind, text, line, msg", [
    ("jobs", "# c\n\n0 nobodyx 5 -n1\n", 3, "unknown user 'nobodyx'"),
    ("jobs", "0 herdu1 5 --bogus\n", 1, "sbatch: unrecognized option '--bogus'"),
    ("jobs", "0 herdu1 5 -t abc\n", 1, "sbatch: Invalid --time specification"),
    ("jobs", "0 herdu1 5 --array=x\n", 1,
     "sbatch: Batch job submission failed: Invalid job array specification"),
    ("jobs", "x herdu1 5\n", 1, "submit time 'x': not a whole number of seconds"),
    ("jobs", "0 herdu1 -5\n", 1, "run time '-5': not a whole number of seconds"),
    ("jobs", "0 herdu1\n", 1, "expected '<submit s> <user> <run s> [sbatch options]'"),
    ("jobs", "0 herdu1 5 -n1 --test-only\n", 1, "--test-only submits nothing"),
    ("jobs", "0 herdu1 5 job.sh\n", 1,
     "unexpected argument 'job.sh' (the script is \"sleep <run>\")"),
    ("accounts", "Cluster - 'simt'\nbogus line\n", 2,
     "not a flat file line (sacctmgr dump's format): bogus line"),
    ("accounts", "Cluster - 'simt'\nParent - 'root'\nUser - 'herdu1':DefaultAccount='root'"
     ":QOS='nosuchqos'\n", 3, "Invalid QOS name 'nosuchqos'"),
    ("reservations", "ReservationName=r StartTime=now Duration=2 Users=herdu1\n", 1,
     "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  "
     "No reservation created."),
    ("reservations", "# c\nReservationName=r StartTime=now Duration=2 Nodes=zz9 Users=herdu1\n",
     2, "Invalid node name specified"),
    ("reservations", "ReservationName=r StartTime=soon Duration=2 Nodes=n1 Users=herdu1\n", 1,
     "Invalid time specification (pos=0): soon Invalid start time StartTime=soon.  "
     "No reservation created."),
])
def test_bad_line(tmp_path, users, kind, text, line, msg):
    path = write(tmp_path, kind + ".txt", text)
    args = ["--jobs", path] if kind == "jobs" else \
        ["--jobs", write(tmp_path, "jobs.txt", "0 herdu1 1 -n1\n"), "--" + kind, path]
    r = sim(*args, "-c", conf(tmp_path))
    assert r.returncode == 1
    assert r.stderr == f"herd sim: error: {path}:{line}: {msg}\n"
    assert r.stdout == ""


@pytest.mark.parametrize("args, msg", [
    (["--jobs", "J", "--policy", "easy"], "--jobs FILE: replayed by --policy slurm, not 'easy'"),
    (["--swf", "X", "--policy", "easy", "--accounts", "A"],
     "--accounts and --reservations need --policy slurm"),
    (["--jobs", "/nonexistent/jobs"], "/nonexistent/jobs: No such file or directory"),
    ([], "--swf FILE or --jobs FILE is required (see herd sim --help)"),
    (["--jobs", "J"], "--jobs FILE runs on herd.conf's nodes: give -c herd.conf (or --procs)"),
])
def test_bad_use(tmp_path, args, msg):
    args = [write(tmp_path, "jobs.txt", "0 herdu1 1\n") if a == "J" else a for a in args]
    r = sim(*args)
    assert r.returncode == 1
    assert r.stderr == f"herd sim: error: {msg}\n"


def test_help_names_the_inputs():
    r = sim("--help")
    assert r.returncode == 0
    for word in ("--jobs FILE", "--accounts FILE", "--reservations FILE",
                 "jobid,jobname,user,nodelist,last_start"):
        assert word in r.stdout


def test_job_that_never_starts(tmp_path, users):
    # a dependency never satisfied (a's end at its time limit is a
    # failure) and a held job: the replay gives up on them (a virtual day
    # with nothing running) instead of running forever; the one that
    # --kill-on-invalid-dep cancels is not counted
    r = sim("--jobs", write(tmp_path, "jobs.txt", """0 herdu1 100 -J a -n1 -t 1
0 herdu1 5 -J b -n1 --dependency=afterok:1
0 herdu1 5 -J c -n1 --dependency=afterok:1 --kill-on-invalid-dep=yes
"""), "-c", conf(tmp_path))
    assert r.returncode == 1
    assert r.stderr == ("herd sim: error: 1 jobs never started (the configuration cannot "
                        "run them)\n")


def test_times_to_the_second(tmp_path, users):
    # a --begin and a reservation's end wake the scheduler at their second
    # (one-shot timers), as herdctld does, not at the next periodic pass:
    # b (in r1) starts at 25; x and y, whose minute would run into r1 (3
    # to 80 s, on every node), start when it ends
    resv = write(tmp_path, "resv.txt",
                 "ReservationName=r1 StartTime=now+3 Duration=1:17 Nodes=n[1-4] Users=herdu1\n")
    _, rows = replay(tmp_path, """0 herdu1 1 -J b --begin=now+25 -t 1 --reservation=r1
0 herdu2 5 -J x -N1 -t 1
4 herdu2 5 -J y -N1 -t 1
""", "--reservations", resv)
    assert [(x["jobname"], x["start"]) for x in rows] == [("b", "25"), ("x", "80"), ("y", "80")]


def test_one_submission_at_a_time(tmp_path, users):
    # two lines of one second: lo is submitted, and its pass has run (lo
    # holds n1), before hi comes, as with two sbatch commands in a row;
    # hi's partition tier would put it first in a pass over both
    path = write(tmp_path, "tier.conf", """ClusterName=simt
SlurmctldHost=localhost
NodeName=n1 CPUs=2
PartitionName=low Nodes=ALL Default=YES MaxTime=UNLIMITED PriorityTier=1
PartitionName=high Nodes=ALL MaxTime=UNLIMITED PriorityTier=2
""")
    out = str(tmp_path / "out.csv")
    r = sim("--jobs", write(tmp_path, "jobs.txt", "0 herdu1 10 -J lo -p low -n2\n"
                            "0 herdu2 10 -J hi -p high -n2\n"), "-c", path, "--csv", out)
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(x["jobname"], x["start"]) for x in rows] == [("lo", "0"), ("hi", "10")]
