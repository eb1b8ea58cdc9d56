"""Hostile counts (issue 13, defects 1, 4 and 5), through the real commands
and, where the commands themselves stop a request first, a hand-built frame:

- tasks x CPUs per task overflowed 32 bits: `-n 65536 -c 65536` started at
  once holding 0 CPUs, `-n 49152 -c 65536` ran with NumCPUs=-1073741824.
  Both are refused at submission with Slurm's "Requested node configuration
  is not available" (sbatch, salloc and srun), and nothing is queued;
- a -w/-x hostlist of a 10,000-character name times [0-99999] was expanded
  (1 GB) before any name was checked: now refused before expanding, and the
  controller's peak RSS (VmHWM) stays where it was; the same for
  reservations' Nodes= and scontrol update NodeName=; scontrol show
  hostnames and squeue -w refuse an expansion over 16 MiB;
- an array-task spec of 100,000 "0-4000000" pieces cost the controller's
  loop ~10^11 steps: refused at once, and so is the 120 kB one scancel's own
  parser took minutes on.

One 4-node cluster of 2 CPUs per node."""
import json
import time

import pytest

from cmd_helpers import active_ids
from test_frames import Wire, exchange

USER = "herdu1"
NODE_CONFIG = "Requested node configuration is not available"
# A name of 10,000 characters times 100,000 numbers: 1 GB expanded.
HUGE_LIST = "a" * 10000 + "[0-99999]"
# 20 MB expanded: over the commands' own 16 MiB cap, harmless to the old code.
BIG_LIST = "a" * 2000 + "[0-9999]"
CANCEL_JOB = 4
RC_INVALID_ARRAY = 2086
RC_INVALID_JOB = 2017


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmHWM in /proc/{pid}/status")


class Peak:
    """The controller's peak RSS across a block: it must not grow by more
    than a few MB (the old code took it from 10 MB to 995 MB)."""

    def __init__(self, cluster, limit_kb=32 * 1024):
        self.c, self.limit = cluster, limit_kb

    def __enter__(self):
        self.pid = self.c.ctld_pid()
        self.before = vm_hwm_kb(self.pid)
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.t0
        if exc[0]:
            return False
        grown = vm_hwm_kb(self.pid) - self.before
        assert grown < self.limit, f"controller peak RSS grew by {grown} kB"
        return False


@pytest.fixture
def empty(cluster):
    ids = active_ids(cluster)
    if ids:
        cluster.run(["scancel", *map(str, ids)])
        cluster.wait_until("an empty queue", lambda: not active_ids(cluster), timeout=30)
    return cluster


# ---- 1. CPU counts ---------------------------------------------------------

HUGE_REQUESTS = [
    ["-n", "65536", "-c", "65536"],          # 2^32 CPUs: wrapped to 0
    ["-n", "49152", "-c", "65536"],          # 3 * 2^30: wrapped negative
    ["-N", "1", "-n", "65536", "-c", "65536"],   # the share per node wrapped
    ["-N", "4", "-n", "100000000", "-c", "1000000"],   # the largest counts taken
    ["-n", "9", "-c", "1"],                  # one more CPU than the 8 there are
    ["-N", "5"],                             # one more node than there are
    ["--mem=1000000000"],                    # more memory than any node has
]


@pytest.mark.parametrize("args", HUGE_REQUESTS, ids=lambda a: " ".join(a))
def test_sbatch_larger_than_the_partition_is_refused(empty, args):
    c = empty
    r = c.run(["sbatch", *args, "-o", "/dev/null", "--wrap", "nproc; sleep 60"], user=USER)
    assert r.rc == 1, r
    assert r.err == f"sbatch: error: Batch job submission failed: {NODE_CONFIG}\n", r
    assert r.out == ""
    assert active_ids(c) == []


def test_salloc_and_srun_larger_than_the_partition_are_refused(empty):
    c = empty
    r = c.run(["salloc", "-n", "65536", "-c", "65536", "true"], user=USER)
    assert r.rc == 1, r
    assert f"salloc: error: Job submit/allocate failed: {NODE_CONFIG}" in r.err, r
    r = c.run(["srun", "-n", "49152", "-c", "65536", "nproc"], user=USER)
    assert r.rc == 1, r
    assert f"srun: error: Unable to allocate resources: {NODE_CONFIG}" in r.err, r
    assert active_ids(c) == []


def test_scontrol_update_cannot_make_a_job_huge(empty):
    """The same check guards an update of a pending job's counts."""
    c = empty
    job = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER)
    r = c.run(["scontrol", "update", f"JobId={job}", "NumTasks=65536", "CPUsPerTask=65536"],
              user=USER)
    assert r.rc == 1 and NODE_CONFIG in r.err, r
    show = c.show_job(job)
    assert show["NumCPUs"] == "1", show
    r = c.run(["scancel", str(job)], user=USER)
    assert r.rc == 0, r


def test_times_past_64_bits_are_refused(empty):
    """Time limits, begin times and deadlines: a start plus a limit must
    never wrap."""
    c = empty
    r = c.run(["sbatch", "--begin=now+15250284452471weeks", "--wrap", "true"], user=USER)
    assert r.rc != 0 and "sbatch: error: Invalid --begin specification" in r.err, r
    r = c.run(["sbatch", "--begin=now+500000weeks", "--wrap", "true"], user=USER)   # year 11600
    assert r.rc == 1, r
    assert r.err == "sbatch: error: Batch job submission failed: Invalid time specified\n", r
    r = c.run(["sbatch", "-t", "99999999-00:00:00", "--wrap", "true"], user=USER)
    assert r.rc == 1, r
    assert r.err == ("sbatch: error: Batch job submission failed: Requested time limit is "
                     "invalid (missing or exceeds some limit)\n"), r
    job = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user=USER)
    r = c.run(["scontrol", "update", f"JobId={job}", "TimeLimit=99999999-00:00:00"])
    assert r.rc == 1 and "Requested time limit is invalid" in r.err, r
    r = c.run(["scontrol", "update", f"JobId={job}", "TimeLimit=2-00:00:00"])
    assert r.rc == 0, r
    assert c.show_job(job)["TimeLimit"] == "2-00:00:00"
    assert c.run(["scancel", str(job)]).rc == 0
    assert active_ids(c) == []


def test_a_fitting_request_still_runs(empty):
    """The checks refuse only what cannot fit: all 8 CPUs run."""
    c = empty
    job = c.sbatch("-n", "4", "-c", "2", "-o", "/dev/null", "--wrap", "true", user=USER)
    assert c.wait_done(job) == "COMPLETED"


# ---- 4. hostlists ------------------------------------------------------------

@pytest.mark.parametrize("opt", ["-w", "-x"])
def test_huge_node_list_is_refused_unexpanded(empty, opt):
    c = empty
    with Peak(c) as p:
        r = c.run(["sbatch", opt, HUGE_LIST, "-o", "/dev/null", "--wrap", "true"], user=USER)
    assert r.rc == 1, r
    assert r.err.startswith("sbatch: error: Batch job submission failed: "
                            "Invalid node name specified"), r
    assert "more than the 4 nodes" in r.err, r
    assert p.seconds < 10, p.seconds
    with Peak(c) as p:
        r = c.run(["srun", opt, HUGE_LIST, "true"], user=USER)
    assert r.rc == 1 and "Invalid node name specified" in r.err, r
    assert active_ids(c) == []
    assert c.ping_ok()


def test_more_names_than_nodes_is_refused(empty):
    c = empty
    r = c.run(["sbatch", "-w", "node[1-5]", "-o", "/dev/null", "--wrap", "true"], user=USER)
    assert r.rc == 1 and "more than the 4 nodes" in r.err, r
    r = c.run(["sinfo", "-h", "-N", "-o", "%N"])
    names = ",".join(r.out.split())
    assert len(r.out.split()) == 4, r
    job = c.sbatch("-w", names, "-o", "/dev/null", "--wrap", "true", user=USER)
    assert c.wait_done(job) == "COMPLETED"


def test_steps_refuse_huge_lists_and_counts(empty):
    """A step inside a job: its -w is bounded by the cluster like the job's,
    its counts never wrap (tasks x CPUs, nodes x tasks per node)."""
    c = empty
    job = c.sbatch("-N", "1", "-o", "/dev/null", "--wrap", "sleep 120", user=USER)
    c.wait_until("job running", lambda: c.show_job(job)["JobState"] == "RUNNING", timeout=30)
    with Peak(c) as p:
        r = c.run(["srun", f"--jobid={job}", "--overlap", "-w", HUGE_LIST, "true"], user=USER)
    assert r.rc == 1 and "Invalid node name specified" in r.err, r
    assert p.seconds < 10, p.seconds
    for args in (["-n", "65536", "-c", "65536"], ["-N", "1", "--ntasks-per-node", "2147483647"]):
        r = c.run(["srun", f"--jobid={job}", "--overlap", *args, "true"], user=USER)
        assert r.rc != 0, (args, r)
    r = c.run(["srun", f"--jobid={job}", "--overlap", "-n", "1", "true"], user=USER)
    assert r.rc == 0, r
    assert c.run(["scancel", str(job)]).rc == 0
    assert c.ping_ok()


def test_huge_reservation_and_node_update_are_refused(empty):
    c = empty
    with Peak(c):
        r = c.run(["scontrol", "create", "reservation", "ReservationName=huge",
                   "StartTime=now", "Duration=10", "Users=root", f"Nodes={HUGE_LIST}"])
        assert r.rc != 0, r
        r = c.run(["scontrol", "update", f"NodeName={HUGE_LIST}", "State=DRAIN", "Reason=x"])
        assert r.rc != 0, r
    r = c.run(["scontrol", "show", "reservation"])
    assert "huge" not in r.out, r
    assert c.ping_ok()


def test_commands_refuse_an_expansion_over_their_cap(cluster):
    c = cluster
    t0 = time.monotonic()
    r = c.run(["scontrol", "show", "hostnames", BIG_LIST], user=USER)
    assert r.rc == 1 and r.out == "", (r.rc, r.err[:200], len(r.out))
    assert "scontrol: error: Hostlist too large" in r.err, r.err[:200]
    r = c.run(["squeue", "-w", BIG_LIST], user=USER)
    assert r.rc == 1 and "squeue: error:" in r.err, (r.rc, r.err[:200])
    assert time.monotonic() - t0 < 10
    r = c.run(["scontrol", "show", "hostnames", "n[1-3]"], user=USER)
    assert (r.rc, r.out) == (0, "n1\nn2\nn3\n"), r


# ---- 5. array-task specs -----------------------------------------------------

@pytest.fixture
def held_array(empty):
    a = empty.sbatch("-H", "--array=0-9", "-o", "/dev/null", "--wrap", "true", user=USER)
    yield a
    empty.run(["scancel", str(a)])


def test_scancel_huge_array_spec_is_refused_quickly(empty, held_array):
    c, a = empty, held_array
    spec = ",".join(["0-4000000"] * 12000)   # 120 kB: about the most one argument holds
    t0 = time.monotonic()
    r = c.run(["scancel", f"{a}_[{spec}]"], user=USER, timeout=30)
    assert time.monotonic() - t0 < 10
    assert r.rc == 1 and r.err.startswith("scancel: error: Invalid job id"), r.err[:200]
    r = c.run(["squeue", "-h", "-j", str(a), "-o", "%i"], user=USER)
    assert r.out == f"{a}_[0-9]\n", r


def test_controller_refuses_a_megabyte_array_spec(empty, held_array):
    """A client of our own sends what scancel would never: 1 MB of pieces."""
    c, a = empty, held_array
    wire = Wire(c)

    def cancel(spec):
        body = json.dumps({"job_id": a, "signal": 0, "flags": "",
                           "array_tasks": spec}).encode()
        t0 = time.monotonic()
        reply = exchange(c.port, wire.request(CANCEL_JOB, body, user=USER))
        return reply, time.monotonic() - t0

    with Peak(c):
        reply, seconds = cancel(",".join(["0-4000000"] * 100000))
    assert reply["rc"] == RC_INVALID_ARRAY, reply
    assert seconds < 5, seconds
    # strides past MaxArraySize (1001), 2 million steps each before: they
    # name no task (Slurm's "Invalid job id"), told at once
    reply, seconds = cancel(",".join(["0-4000000:2"] * 10))
    assert reply["rc"] == RC_INVALID_JOB and seconds < 5, (reply, seconds)
    reply, _ = cancel("5000")
    assert reply["rc"] == RC_INVALID_JOB, reply
    # within the caps (50 kB, 2.3 million steps): parsed, names no task here
    reply, seconds = cancel(",".join(["100-1000:2"] * 5000))
    assert reply["rc"] == RC_INVALID_JOB and seconds < 5, (reply, seconds)
    r = c.run(["squeue", "-h", "-j", str(a), "-o", "%i"], user=USER)
    assert r.out == f"{a}_[0-9]\n", r
    # an ordinary spec still works
    reply, _ = cancel("3-4")
    assert reply["rc"] == 0, reply
    r = c.run(["squeue", "-h", "-j", str(a), "-o", "%i"], user=USER)
    assert r.out == f"{a}_[0-2,5-9]\n", r


def test_sbatch_huge_array_spec_is_refused(empty):
    c = empty
    spec = ",".join(["0-1000"] * 12000)   # 84 kB: over the 64 kB a spec may have
    t0 = time.monotonic()
    r = c.run(["sbatch", f"--array={spec}", "-o", "/dev/null", "--wrap", "true"], user=USER)
    assert time.monotonic() - t0 < 10
    assert r.rc == 1, r.err[:200]
    assert r.err == "sbatch: error: Batch job submission failed: " \
                    "Invalid job array specification\n", r.err[:200]
    assert active_ids(c) == []
