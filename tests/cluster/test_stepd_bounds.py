"""What a job's user can make root's herdstepd hold: stdin that srun sends a
task faster than the task reads it (herdstepd stops reading srun's
connection above 4 MiB queued, srun then stops reading its stdin), while
the step can still be ended.  The PMI bounds are unit tests
(tests/unit/test_stepd_pmi.c)."""
import os
import threading
import time



def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def user_procs(uid, comm, tail):
    """PIDs of uid's processes named comm whose arguments end with tail."""
    want = "\0".join(tail).encode() + b"\0"
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.stat(f"/proc/{d}").st_uid != uid:
                continue
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip() != comm:
                    continue
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if f.read().endswith(want):
                    found.append(int(d))
        except OSError:
            continue
    return found


def test_unread_stdin_does_not_grow_herdstepd(cluster):
    """300 MB piped into a task that never reads: herdstepd's memory stays
    small (it used to queue all of it), and the step ends normally."""
    result = {}

    def run():
        result["r"] = cluster.run("head -c 300000000 /dev/zero | srun -n1 -t 1:00 sleep 8",
                                  user="herdu1", timeout=90)

    t = threading.Thread(target=run)
    t.start()
    peak = 0
    deadline = time.time() + 7
    while time.time() < deadline:
        for pid in cluster.daemon_pids("herdstepd"):
            peak = max(peak, rss_kib(pid))
        time.sleep(0.1)
    t.join()
    r = result["r"]
    assert r.rc == 0, r
    assert peak > 0, "no herdstepd seen"
    assert peak < 64 * 1024, f"herdstepd reached {peak} KiB"


def test_cancel_while_stdin_is_held(cluster, users):
    """While herdstepd does not read srun (the task does not read its
    stdin), the step still ends: scancel kills the task, srun reports it
    and exits."""
    uid = users["herdu1"].pw_uid
    result = {}

    def run():
        result["r"] = cluster.run("head -c 100000000 /dev/zero | srun -n1 -t 2:00 sleep 97",
                                  user="herdu1", timeout=90)

    t = threading.Thread(target=run)
    t.start()
    try:
        assert cluster.wait_until("the task running",
                                  lambda: user_procs(uid, "sleep", ["sleep", "97"]), timeout=30)
        time.sleep(2)   # srun's stdin fills herdstepd's queue: it stops reading
        jobs = cluster.run(["squeue", "-h", "-u", "herdu1", "-o", "%i"]).out.split()
        assert len(jobs) == 1, jobs
        r = cluster.run(["scancel", jobs[0]], user="herdu1")
        assert r.rc == 0, r
        assert cluster.wait_until("the task killed",
                                  lambda: not user_procs(uid, "sleep", ["sleep", "97"]),
                                  timeout=20), cluster.logs()
    finally:
        t.join()
    assert result["r"].rc != 0, result["r"]
