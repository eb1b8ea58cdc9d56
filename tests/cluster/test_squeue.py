"""squeue as users read it: the default table to the character, -h, the
-u/-j/-t filters, -o field widths and justification, and the reasons a
pending job shows (held, waiting for resources, behind a higher priority
job).  One shared 4-node cluster (2 CPUs per node)."""
import re

import pytest

from cmd_helpers import clean, run_env, squeue_field, wait_reason

HEADER = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"


def default_row(job_id, part, name, user, st, time, nodes, reason):
    """A line of squeue's default format, built field by field
    ("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R": right-justified, truncated)."""
    return (f"{str(job_id)[:18]:>18} {part[:9]:>9} {name[:8]:>8} {user[:8]:>8} "
            f"{st[:2]:>2} {time[:10]:>10} {str(nodes)[:6]:>6} {reason}")


def held(c, user, *args, name="held"):
    return c.sbatch("-H", "-J", name, "-o", "/dev/null", *args, "--wrap", "true", user=user,
                    cwd=c.workdir(user))


def ids(result):
    assert result.rc == 0, result
    return sorted(int(x) for x in result.out.split())


def test_default_table(clean):
    c = clean
    r = c.run(["squeue"])
    assert (r.rc, r.out, r.err) == (0, HEADER + "\n", ""), r
    j = held(c, "herdu1", name="averyverylongname")
    r = c.run(["squeue"], user="herdu2")
    assert r.rc == 0, r
    assert r.out.split("\n") == [
        HEADER,
        default_row(j, "debug", "averyverylongname", "herdu1", "PD", "0:00", 1, "(JobHeldUser)"),
        ""]
    # -h drops only the header.
    r = c.run(["squeue", "-h"])
    assert r.out == default_row(j, "debug", "averyver", "herdu1", "PD", "0:00", 1,
                                "(JobHeldUser)") + "\n"


def test_running_job_row(clean):
    c = clean
    j = c.sbatch("-N", "2", "-J", "run2", "-o", "/dev/null", "--wrap", "sleep 300",
                 user="herdu2", cwd=c.workdir("herdu2"))
    c.wait_state(j, "RUNNING")
    nodes = c.show_job(j)["NodeList"]
    assert re.fullmatch(r"n\[\d-\d\]|n\d,n\d|n\[\d,\d\]", nodes), nodes
    r = c.run(["squeue", "-h"])
    line = r.out.rstrip("\n")
    m = re.fullmatch(r" {4,}(\d+) +debug +run2 +herdu2 +R +(\d+:\d\d) +2 (\S+)", line)
    assert m, line
    assert int(m.group(1)) == j and m.group(3) == nodes
    # Each field sits where the header's column ends.
    assert len(line) == len(default_row(j, "debug", "run2", "herdu2", "R", m.group(2), 2,
                                        nodes))


def test_user_filter(clean):
    c = clean
    a1, a2 = held(c, "herdu1"), held(c, "herdu1")
    b1 = held(c, "herdu2")
    r0 = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-u", "herdu1"])) == [a1, a2]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "--user=herdu1,herdu2"])) == [a1, a2, b1]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-u", "root"])) == [r0]
    uid = c.run(["id", "-u", "herdu2"]).out.strip()
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-u", uid])) == [b1]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "--me"], user="herdu2")) == [b1]
    assert ids(c.run(["squeue", "-h", "-o", "%i"], user="herdu2")) == [a1, a2, b1, r0]


def test_unknown_user_matches_nothing(clean):
    c = clean
    held(c, "herdu1")
    # An unknown user is reported and matches nothing (Slurm goes on and
    # lists no job rather than failing).
    r = c.run(["squeue", "-h", "-o", "%i", "-u", "nosuchuser"])
    assert (r.rc, r.out) == (0, ""), r
    assert r.err.startswith("squeue: error: Invalid user: nosuchuser\n"), r
    r = c.run(["squeue", "-h", "-o", "%i", "-u", "nosuchuser,herdu1"])
    assert r.rc == 0 and len(r.out.split()) == 1, r


def test_partition_and_name_filters(clean):
    c = clean
    a = held(c, "herdu1", name="alpha")
    b = held(c, "herdu2", name="beta")
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-p", "debug"])) == [a, b]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "--partition=nosuch"])) == []
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-n", "beta"])) == [b]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "--name=alpha,beta"])) == [a, b]
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-n", "alpha", "-u", "herdu2"])) == []


def test_job_filter(clean):
    c = clean
    a, b, x = held(c, "herdu1"), held(c, "herdu2"), held(c, "herdu2")
    assert ids(c.run(["squeue", "-h", "-o", "%i", "-j", f"{a},{b}"])) == [a, b]
    assert ids(c.run(["squeue", "-h", "-o", "%i", f"--jobs={x}"])) == [x]
    r = c.run(["squeue", "-j", "999999"], user="herdu1")
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == "slurm_load_jobs error: Invalid job id specified\n"
    r = c.run(["squeue", "-j", "abc"])
    assert r.rc == 1 and "Invalid job id" in r.err, r


def test_nice(clean):
    """%y and -O nice: the job's --nice, sortable (it was always 0)."""
    c = clean
    a = held(c, "herdu1", "--nice=10")
    b = held(c, "herdu1")
    r = c.run(["squeue", "-h", "-o", "%i %y", "-j", f"{a},{b}", "-S", "y"])
    assert r.rc == 0 and r.out.split("\n")[:2] == [f"{b} 0", f"{a} 10"], r
    r = c.run(["squeue", "-h", "-O", "JobID,Nice", "-j", str(a)])
    assert r.rc == 0 and r.out.split() == [str(a), "10"], r


def test_state_filter(clean):
    c = clean
    wd = c.workdir("herdu1")
    done = c.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    failed = c.sbatch("-o", "/dev/null", "--wrap", "exit 2", user="herdu1", cwd=wd)
    assert c.wait_done(done) == "COMPLETED" and c.wait_done(failed) == "FAILED"
    running = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd)
    pending = held(c, "herdu1")
    c.wait_state(running, "RUNNING")
    mine = {done, failed, running, pending}

    def shown(*args):
        return set(ids(c.run(["squeue", "-h", "-o", "%i", *args]))) & mine

    assert shown() == {running, pending}
    assert shown("-t", "PD") == {pending}
    assert shown("-t", "pending") == {pending}
    assert shown("-t", "R") == {running}
    assert shown("--states=PD,R") == {running, pending}
    assert shown("-t", "CD") == {done}
    assert shown("-t", "F") == {failed}
    assert shown("-t", "all") == mine
    assert squeue_field(c, done, "%t %T") == "CD COMPLETED"
    assert squeue_field(c, failed, "%t %T") == "F FAILED"
    assert squeue_field(c, running, "%t %T") == "R RUNNING"
    assert squeue_field(c, pending, "%t %T") == "PD PENDING"
    r = c.run(["squeue", "-t", "bogus"])
    assert (r.rc, r.out) == (1, ""), r
    assert r.err.startswith("squeue: error: Invalid job state specified: bogus\n"), r


def test_format_widths_and_justification(clean):
    c = clean
    j = held(c, "herdu1", name="fmtjob")
    explicit = c.run(["squeue", "-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"])
    default = c.run(["squeue"])
    assert explicit.rc == 0 and explicit.out == default.out, (explicit, default)
    # Without '.', fields are left-justified and padded to the width.
    r = c.run(["squeue", "-h", "-o", "%20j|%.8i|%7u|%j|%.3t"])
    assert r.out == f"{'fmtjob':<20}|{j:>8}|herdu1 |fmtjob|{'PD':>3}\n", r
    r = c.run(["squeue", "-o", "%20j|%.8i|"])
    assert r.out.split("\n")[0] == f"{'NAME':<20}|{'JOBID':>8}|"
    # A width narrower than the value truncates it.
    assert squeue_field(c, j, "%.3j|%4u") == "fmt|herd"
    # Text around the fields is kept; %% is a percent sign.
    assert squeue_field(c, j, "id=%i name=%j 100%%") == f"id={j} name=fmtjob 100%"
    # Slurm has no '-' flag (left is the default): the field is refused.
    r = c.run(["squeue", "-h", "-o", "%-20j"])
    assert "squeue: error: Invalid job format specification: -" in r.err, r
    # SQUEUE_FORMAT is the default format; -o wins over it.
    r = run_env(c, {"SQUEUE_FORMAT": "%i:%j"}, ["squeue", "-h"])
    assert r.out == f"{j}:fmtjob\n", r
    r = run_env(c, {"SQUEUE_FORMAT": "%i:%j"}, ["squeue", "-h", "-o", "%j"])
    assert r.out == "fmtjob\n", r


def test_pending_reasons(clean):
    c = clean
    wd = c.workdir("herdu1")
    blocker = c.sbatch("-N", str(c.nnodes), "--exclusive", "-o", "/dev/null",
                       "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    first = c.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    second = c.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    hold = held(c, "herdu1")
    wait_reason(c, first, "Resources")
    wait_reason(c, second, "Priority")
    r = c.run(["squeue", "-h", "-u", "herdu1", "-o", "%i %t %R"])
    assert sorted(r.out.splitlines()) == sorted([
        f"{first} PD (Resources)", f"{second} PD (Priority)", f"{hold} PD (JobHeldUser)"])
    assert squeue_field(c, blocker, "%t %R") == "R n[1-4]"
    # When the blocker ends both run; the held one keeps waiting.
    assert c.run(["scancel", str(blocker)]).rc == 0
    assert c.wait_done(first) == "COMPLETED"
    assert c.wait_done(second) == "COMPLETED"
    assert squeue_field(c, hold, "%t %R") == "PD (JobHeldUser)"


START_HEADER = ("             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
                "SCHEDNODES           NODELIST(REASON)")


def start_row(job_id, name, user, reason, start="N/A", sched="(null)"):
    """A line of squeue --start ("%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R")."""
    return (f"{job_id:>18} {'debug':>9} {name[:8]:>8} {user[:8]:>8} {'PD':>2} {start:>19} "
            f"{1:>6} {sched:<20} {reason}")


def test_start(clean):
    c = clean
    wd = c.workdir("herdu1")
    blocker = c.sbatch("-N", str(c.nnodes), "--exclusive", "-J", "blocker", "-o", "/dev/null",
                       "--wrap", "sleep 300")
    c.wait_state(blocker, "RUNNING")
    hold = held(c, "herdu2", name="waiting")
    first = c.sbatch("-J", "first", "-o", "/dev/null", "--wrap", "true", user="herdu1", cwd=wd)
    wait_reason(c, first, "Resources")
    # Pending jobs only, in Slurm's --start format.  Herd's scheduler does
    # not estimate start times yet: START_TIME N/A, SCHEDNODES (null), as
    # Slurm prints a job without an estimate; ties by job ID.
    r = c.run(["squeue", "--start"], user="herdu1")
    assert (r.rc, r.err) == (0, ""), r
    assert r.out.split("\n") == [
        START_HEADER,
        start_row(hold, "waiting", "herdu2", "(JobHeldUser)"),
        start_row(first, "first", "herdu1", "(Resources)"),
        ""], r
    # --start outranks SQUEUE_FORMAT; -o, -t and -h go with it.
    r = run_env(c, {"SQUEUE_FORMAT": "%i"}, ["squeue", "--start", "-h"])
    assert r.out == "\n".join([start_row(hold, "waiting", "herdu2", "(JobHeldUser)"),
                               start_row(first, "first", "herdu1", "(Resources)"), ""]), r
    r = c.run(["squeue", "--start", "-h", "-o", "%i %S %Y"])
    assert r.out == f"{hold} N/A (null)\n{first} N/A (null)\n", r
    r = c.run(["squeue", "--start", "-h", "-t", "R", "-o", "%i %t"])
    assert r.out == f"{blocker} R\n", r
    # -S keys from the -o letters; a descending key reverses.
    r = c.run(["squeue", "--start", "-h", "-o", "%i", "-S", "-i"])
    assert r.out == f"{first}\n{hold}\n", r
    r = c.run(["squeue", "-h", "-o", "%i", "-S", "j", "-t", "all", "-j", f"{first},{hold},{blocker}"])
    assert r.out == f"{blocker}\n{first}\n{hold}\n", r   # blocker, first, waiting
    r = c.run(["squeue", "-h", "-S", "%"])
    assert r.rc == 1 and "Invalid sort specification" in r.err, r


def test_array_unique(clean):
    c = clean
    arr = c.sbatch("-H", "--array=1-3", "-o", "/dev/null", "--wrap", "true")
    assert squeue_field(c, arr, "%i") == f"{arr}_[1-3]"
    r = c.run(["squeue", "-h", "--array-unique", "-o", "%i %K"])
    assert r.out == f"{arr}_1 1\n{arr}_2 2\n{arr}_3 3\n", r
    r = c.run(["squeue", "-h", "--start", "-r", "-o", "%i"])
    assert r.out == f"{arr}_1\n{arr}_2\n{arr}_3\n", r


def test_iterate(clean):
    """-i N reports again every N seconds, each report with its time stamp
    above the header, until interrupted."""
    c = clean
    job = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    r = c.run("timeout -s INT 2.5 squeue -i 1 -o '%i %t'; true")
    reports = r.out.split("\n\n")
    stamps = [l for l in r.out.splitlines() if re.match(r"\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}$", l)]
    assert len(stamps) >= 2, r
    assert r.out.count("JOBID ST") == len(stamps), r
    assert f"{job} PD" in reports[0], r
    r = c.run(["squeue", "-i", "0"])
    assert r.rc == 1 and "Invalid --iterate value: 0" in r.err, r
