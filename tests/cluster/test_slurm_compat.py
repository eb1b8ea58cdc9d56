"""What Slurm 22.05 prints, checked against Herd: each case here was run on a
real Slurm 22.05 (shared/slurm-anchor) and on Herd, and differed before the
fix it tests (doc/slurm-compat.md lists them, and what still differs).  One
4-node cluster."""
import re

import pytest

from cmd_helpers import clean  # noqa: F401  (fixture)

USER = "herdu1"
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def rows(c, *args):
    r = c.run(["squeue", "-h", *args])
    assert r.rc == 0, r
    return r.out.split("\n")[:-1]


def test_pending_array_sets_print_without_strides(clean):
    c = clean
    # Slurm folds a pending --array=1-7:2 as A_[1,3,5,7], never A_[1-7:2],
    # in %i and %K alike; a throttle follows as %N; plain runs stay a-b.
    step = c.sbatch("-H", "--array=1-7:2", "-o", "/dev/null", "--wrap", "true")
    limited = c.sbatch("-H", "--array=1-7:2%2", "-o", "/dev/null", "--wrap", "true")
    listed = c.sbatch("-H", "--array=1,3,5,7", "-o", "/dev/null", "--wrap", "true")
    run = c.sbatch("-H", "--array=0-15%4", "-o", "/dev/null", "--wrap", "true")
    assert rows(c, "-j", f"{step},{limited},{listed},{run}", "-o", "%i %K", "-S", "i") == [
        f"{step}_[1,3,5,7] 1,3,5,7", f"{limited}_[1,3,5,7%2] 1,3,5,7%2",
        f"{listed}_[1,3,5,7] 1,3,5,7", f"{run}_[0-15%4] 0-15%4"]
    r = c.run(["squeue", "-j", str(step)])
    assert r.out.split("\n")[1] == \
        f"{step}_[1,3,5,7]".rjust(18) + "     debug     wrap     root PD       0:00      1 (JobHeldUser)", r
    # What is left after a task goes keeps the same form.
    assert c.run(["scancel", f"{step}_3"]).rc == 0
    assert rows(c, "-j", str(step), "-o", "%i") == [f"{step}_[1,5,7]"]
    assert c.run(["scancel", f"{run}_[4-11]"]).rc == 0
    assert rows(c, "-j", str(run), "-o", "%i") == [f"{run}_[0-3,12-15%4]"]


def test_zero_throttle_is_no_throttle(clean):
    c = clean
    # Slurm takes --array=0-3%0 (no throttle), where Herd used to refuse it.
    a = c.sbatch("-H", "--array=0-3%0", "-o", "/dev/null", "--wrap", "true")
    assert rows(c, "-j", str(a), "-o", "%i %K") == [f"{a}_[0-3] 0-3"]


@pytest.mark.parametrize("spec", ["5-1", "x", "1-3:0", "-1"])
def test_bad_array_is_a_refused_submission(clean, spec):
    c = clean
    r = c.run(["sbatch", f"--array={spec}", "--wrap", "true"])
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == "sbatch: error: Batch job submission failed: Invalid job array specification\n", r


@pytest.mark.parametrize("args, message", [
    (["-N", "0"], "Batch job submission failed: Node count specification invalid"),
    (["-n", "0"], 'Invalid numeric value "0" for --ntasks.'),
    (["-c", "0"], 'Invalid numeric value "0" for --cpus-per-task.'),
])
def test_zero_counts_exit_1(clean, args, message):
    c = clean
    r = c.run(["sbatch", *args, "--wrap", "true"])
    assert (r.rc, r.out, r.err) == (1, "", f"sbatch: error: {message}\n"), r


def test_bad_mail_type_sentence(clean):
    c = clean
    r = c.run(["sbatch", "--mail-type=bogus", "--wrap", "true"])
    assert (r.rc, r.err) == (255, "sbatch: error: Invalid --mail-type specification\n"), r


def test_unprivileged_negative_nice(clean):
    c = clean
    r = c.run(["sbatch", "--nice=-5", "-o", "/dev/null", "--wrap", "true"], user=USER)
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == "sbatch: error: Batch job submission failed: Invalid --nice value\n", r


def test_start_shows_begin_time(clean):
    c = clean
    # A job waiting for --begin starts then at the earliest: squeue --start
    # says so (as scontrol's StartTime), held or not.
    later = c.sbatch("--begin=now+1hour", "-o", "/dev/null", "--wrap", "true")
    held = c.sbatch("-H", "--begin=now+1hour", "-o", "/dev/null", "--wrap", "true")
    plain = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    start = c.show_job(later)["StartTime"]
    assert re.fullmatch(STAMP, start), start
    got = dict(x.split(" ", 1) for x in rows(c, "--start", "-o", "%i %S"))
    assert got[str(later)] == start, got
    assert re.fullmatch(STAMP, got[str(held)]), got
    assert got[str(plain)] == "N/A", got
    r = c.run(["squeue", "--start", "-j", str(later)])
    assert r.out.split("\n")[1] == (f"{later:>18} {'debug':>9} {'wrap':>8} {'root':>8} PD "
                                    f"{start:>19} {1:>6} {'(null)':<20} (BeginTime)"), r


def test_squeue_unknown_node(clean):
    c = clean
    r = c.run(["squeue", "-w", "n9"])
    assert (r.rc, r.out, r.err) == (1, "", "squeue: error: Invalid node name n9\n"), r
    r = c.run(["squeue", "-w", "n[1-2],n7"])
    assert (r.rc, r.err) == (1, "squeue: error: Invalid node name n7\n"), r
    r = c.run(["squeue", "-h", "-w", "n[1-2]"])
    assert (r.rc, r.out, r.err) == (0, "", ""), r


def test_squeue_bad_state_lists_slurms_order(clean):
    c = clean
    r = c.run(["squeue", "-t", "bogus"])
    assert r.rc == 1, r
    assert r.err == ("squeue: error: Invalid job state specified: bogus\n"
                     "squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,"
                     "COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,"
                     "DEADLINE,OUT_OF_MEMORY,COMPLETING\n\n"), r


def test_scancel_bad_state_unprefixed(clean):
    c = clean
    r = c.run(["scancel", "--state=bogus", "-u", "root"])
    assert r.rc == 1, r
    assert r.err == ("Invalid job state specified: bogus\n"
                     "Valid job states are PENDING, RUNNING, and SUSPENDED\n"), r


def test_sinfo_summary_and_node_long_columns(clean):
    c = clean
    r = c.run(["sinfo", "-s"])
    assert r.rc == 0, r
    # One space between NODES(A/I/O/T) and NODELIST.
    assert r.out.split("\n")[:2] == ["PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST",
                                     "debug*       up   infinite          0/4/0/4 n[1-4]"], r
    r = c.run(["sinfo", "-N", "-l", "-n", "n1"])
    assert r.rc == 0, r
    # CPUS left-justified in 4 columns: "idle 2       2:1:1" on 2-CPU nodes.
    line = r.out.split("\n")[2]
    m = re.match(r"n1 +1 +debug\* +idle (\d+) +(\d+:\d+:\d+) ", line)
    assert m, line
    assert f" idle {m.group(1):<4} {m.group(2):>8} " in line, line


def test_long_without_header_has_no_date(clean):
    c = clean
    # -l -h: no date line either (Slurm prints it only above the titles).
    for cmd in (["squeue", "-l", "-h"], ["sinfo", "-l", "-h"], ["sinfo", "-N", "-l", "-h"]):
        r = c.run(cmd)
        assert r.rc == 0, r
        assert not re.match(r"[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d ", r.out), r
    r = c.run(["sinfo", "-l"])
    assert re.match(r"[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \d{4}\nPARTITION ", r.out), r
    r = c.run(["sinfo", "-N", "-l", "-h", "-n", "n1"])
    assert r.out.startswith("n1 "), r


def test_dependency_on_whole_array_shows_star(clean):
    c = clean
    a = c.sbatch("-H", "--array=1-3", "-o", "/dev/null", "--wrap", "true")
    plain = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    whole = c.sbatch("-d", f"afterok:{a}", "-o", "/dev/null", "--wrap", "true")
    task = c.sbatch("-d", f"afterok:{a}_2", "-o", "/dev/null", "--wrap", "true")
    single = c.sbatch("-d", f"afterany:{plain}", "-o", "/dev/null", "--wrap", "true")
    corr = c.sbatch("--array=1-3", "-d", f"aftercorr:{a}", "-o", "/dev/null", "--wrap", "true")
    got = dict(x.split(" ", 1) for x in rows(c, "-j", f"{whole},{task},{single},{corr}",
                                             "-o", "%F %E"))
    assert got == {str(whole): f"afterok:{a}_*(unfulfilled)",
                   str(task): f"afterok:{a}_2(unfulfilled)",
                   str(single): f"afterany:{plain}(unfulfilled)",
                   str(corr): f"aftercorr:{a}_*(unfulfilled)"}, got


def test_sacct_lists_array_tasks_by_task(clean):
    c = clean
    # The last task to start takes the array's ID, so by raw ID the tasks
    # are A_3, A_1, A_2; Slurm lists them A_1, A_2, A_3.
    a = c.sbatch("--array=1-3", "-o", "/dev/null", "--wrap", "true")
    after = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_until("all done", lambda: rows(c, "-j", f"{a},{after}") == [])
    r = c.run(["sacct", "-X", "-P", "-n", "-j", f"{a},{after}", "-o", "JobID"])
    assert r.rc == 0, r
    assert r.out.split() == [f"{a}_1", f"{a}_2", f"{a}_3", str(after)], r
    r = c.run(["sacct", "-P", "-n", "-j", str(a), "-o", "JobID"])
    assert r.out.split() == [f"{a}_1", f"{a}_1.batch", f"{a}_2", f"{a}_2.batch",
                             f"{a}_3", f"{a}_3.batch"], r


def test_sacct_bad_state_and_time_sentences(clean):
    c = clean
    r = c.run(["sacct", "-s", "bogus"])
    assert (r.rc, r.out, r.err) == (1, "", "sacct: fatal: unrecognized job state value 'bogus'\n"), r
    r = c.run(["sacct", "-S", "bogus"])
    assert (r.rc, r.out, r.err) == (1, "", "Invalid time specification (pos=0): bogus\n"), r


@pytest.mark.parametrize("value, pos", [
    ("soon", 0), ("now+abc", 3), ("now+5x", 4), ("now-1hour+", 9), ("16:00x", 5),
    ("12/31x", 5), ("tomorrowx", 8), ("midnight+1", 8), ("2026-13-45", 5),
])
def test_bad_begin_says_where(clean, value, pos):
    c = clean
    # Slurm's time parser prints where it stopped, unprefixed, before sbatch's line.
    r = c.run(["sbatch", f"--begin={value}", "--wrap", "true"])
    assert (r.rc, r.out) == (255, ""), r
    assert r.err == (f"Invalid time specification (pos={pos}): {value}\n"
                     "sbatch: error: Invalid --begin specification\n"), r
    r = c.run(["sacct", "-S", value])
    assert (r.rc, r.err) == (1, f"Invalid time specification (pos={pos}): {value}\n"), r


def test_empty_begin_has_no_position_line(clean):
    c = clean
    r = c.run(["sbatch", "--begin=", "--wrap", "true"])
    assert (r.rc, r.err) == (255, "sbatch: error: Invalid --begin specification\n"), r


def scontrol(c, *args, user=None):
    return c.run(["scontrol", *args], user=user)


def test_show_job_throttled_array(clean):
    c = clean
    a = c.sbatch("-H", "--array=1-7:2%2", "-o", "/dev/null", "--wrap", "true")
    r = scontrol(c, "show", "job", str(a))
    assert r.rc == 0, r
    assert f"JobId={a} ArrayJobId={a} ArrayTaskId=1,3,5,7%2 ArrayTaskThrottle=2 " in r.out, r


def test_held_begin_job_shows_begin_time(clean):
    c = clean
    held = c.sbatch("-H", "--begin=now+1hour", "-o", "/dev/null", "--wrap", "true")
    info = c.show_job(held)
    assert re.fullmatch(STAMP, info["EligibleTime"]), info
    assert info["StartTime"] == info["EligibleTime"], info
    plain = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    info = c.show_job(plain)
    assert (info["EligibleTime"], info["StartTime"]) == ("Unknown", "Unknown"), info


def test_hold_release_task_range(clean):
    c = clean
    # Slurm holds and releases each task of A_[1-2]; Herd said Invalid job id.
    a = c.sbatch("--begin=now+1hour", "--array=1-4", "-o", "/dev/null", "--wrap", "true")

    def reasons():
        return dict(x.split(" ", 1) for x in rows(c, "-r", "-j", str(a), "-o", "%i %r"))
    r = scontrol(c, "uhold", f"{a}_[1-2]")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    assert reasons() == {f"{a}_1": "JobHeldUser", f"{a}_2": "JobHeldUser",
                         f"{a}_3": "BeginTime", f"{a}_4": "BeginTime"}, reasons()
    r = scontrol(c, "release", f"{a}_[1-2]")
    assert (r.rc, r.out, r.err) == (0, "", ""), r
    assert set(reasons().values()) == {"BeginTime"}, reasons()


def test_hold_of_another_users_job(clean):
    c = clean
    job = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    r = scontrol(c, "hold", str(job), user=USER)
    assert (r.rc, r.err) == (1, f"Invalid user id for job {job}\n"
                                "slurm_suspend error: Invalid user id\n"), r
    # scancel keeps its own sentence.
    r = c.run(["scancel", str(job)], user=USER)
    assert r.rc == 1 and "Access/permission denied" in r.err, r


def test_update_refusal_sentences(clean):
    c = clean
    job = c.sbatch("-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    for key in ("TimeLimit", "TimeMin", "NumTasks", "MinMemoryNode", "Requeue"):
        r = scontrol(c, "update", f"JobId={job}", f"{key}=abc")
        assert (r.rc, r.err) == (1, f"scontrol: error: Invalid {key} value\n"), r
    r = scontrol(c, "update", "JobId=999999", "TimeLimit=5")
    assert (r.rc, r.err) == (1, "Invalid job id specified for job 999999\n"), r
    c.wait_state(job, "RUNNING")
    r = scontrol(c, "update", f"JobId={job}", "NumNodes=2")
    assert (r.rc, r.err) == (1, "Requested operation not supported on this system "
                                f"for job {job}\n"), r
    done = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_done(done)
    r = scontrol(c, "update", f"JobId={done}", "TimeLimit=5")
    assert (r.rc, r.err) == (1, f"Job has already finished for job {done}\n"), r


def test_show_job_bad_id(clean):
    c = clean
    r = scontrol(c, "show", "job", "abc")
    assert (r.rc, r.out, r.err) == (1, "", "scontrol_print_job error: Invalid job id specified\n"), r


def test_show_job_of_a_task_still_in_the_array(clean):
    c = clean
    # Slurm shows the task as its own record would be, not the whole array.
    wd = c.workdir()
    a = c.sbatch("-H", "--array=1-7:2", "--wrap", "true", cwd=wd)
    r = scontrol(c, "show", "job", f"{a}_3")
    assert r.rc == 0 and len(re.findall(r"^JobId=", r.out, re.M)) == 1, r
    assert f"JobId={a} ArrayJobId={a} ArrayTaskId=3 JobName=wrap" in r.out, r
    assert f"StdOut={wd}/slurm-{a}_3.out\n" in r.out, r
    assert f"StdErr={wd}/slurm-{a}_3.out\n" in r.out, r
    b = c.sbatch("-H", "--array=1-3", "-o", "/tmp/o-%A-%a-100%%.txt", "-e", "/tmp/e-%a",
                 "--wrap", "true")
    r = scontrol(c, "show", "job", f"{b}_[2-3]")
    assert r.rc == 0 and len(re.findall(r"^JobId=", r.out, re.M)) == 2, r
    assert [x for x in r.out.split() if x.startswith(("ArrayTaskId=", "StdOut=", "StdErr="))] == [
        "ArrayTaskId=2", "StdErr=/tmp/e-2", f"StdOut=/tmp/o-{b}-2-100%.txt",
        "ArrayTaskId=3", "StdErr=/tmp/e-3", f"StdOut=/tmp/o-{b}-3-100%.txt"], r
    # The array itself is still one record.
    assert "ArrayTaskId=1-3 " in scontrol(c, "show", "job", str(b)).out
