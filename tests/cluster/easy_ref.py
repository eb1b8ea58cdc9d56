"""An independent FCFS and EASY-backfill simulator for SWF traces, written
from the replay rules (not from Herd's C), for test_sim.py to compare
`herd sim` with.  The machine is a count of processors (the literature's
model: a job needs `size` of them, anywhere).

Rules:
- a job line has 18 numbers; size = field 5, else field 8; estimate =
  field 9, else the run time (field 4); the job runs min(run time,
  estimate) (killed at its estimate); a job without a size or a run time
  is skipped (counted "bad"), one bigger than the machine too ("big");
- planning uses the estimate, at least 1 s (a 0 s job still ends at once);
- events at one time are taken together: every end, then every arrival,
  then one scheduling pass; a job that ends at once (0 s) makes a second
  batch at the same time;
- FCFS: start the queue's head while it fits;
- EASY (Mu'alem & Feitelson 2001): FCFS, then the head waiting is given
  the earliest time enough processors will be free by the running jobs'
  estimated ends (the shadow time) and the processors left over then
  (extra); a later job starts now if it fits now and either ends (by its
  estimate) by the shadow time or takes no more than extra (which it
  then uses up).
Run as a script it prints the figures: easy_ref.py TRACE POLICY [JOBS] [PROCS].
"""
import gzip
import heapq
import sys

TAU = 10


def open_trace(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt")
    return open(path, "rt")


def load(path, max_jobs=None):
    """The job lines as dicts, and the header's MaxProcs (else MaxNodes)."""
    jobs, max_procs, max_nodes = [], 0, 0
    with open_trace(path) as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                head = s.lstrip("; \t")
                for key in ("MaxProcs", "MaxNodes"):
                    if head.startswith(key + ":"):
                        try:
                            v = int(head[len(key) + 1:].split()[0])
                        except (ValueError, IndexError):
                            continue
                        if v > 0 and key == "MaxProcs":
                            max_procs = v
                        elif v > 0:
                            max_nodes = v
                continue
            f_ = [float(x) for x in s.split()]
            assert len(f_) == 18, line
            jobs.append({"id": int(f_[0]), "submit": int(f_[1]), "run": int(f_[3]),
                         "alloc": int(f_[4]), "req": int(f_[7]), "req_time": int(f_[8])})
            if max_jobs and len(jobs) == max_jobs:
                break
    return jobs, max_procs or max_nodes


def simulate(trace, procs, policy):
    """Returns (outcomes in trace order: dicts id, submit, start, end, run,
    procs), skipped_big, skipped_bad."""
    assert policy in ("fcfs", "easy")
    jobs, big, bad = [], 0, 0
    for t in trace:
        size = t["alloc"] if t["alloc"] > 0 else t["req"] if t["req"] > 0 else -1
        if size <= 0 or t["run"] < 0 or t["submit"] < 0:
            bad += 1
            continue
        if size > procs:
            big += 1
            continue
        est = t["req_time"] if t["req_time"] > 0 else t["run"]
        jobs.append({"id": t["id"], "submit": t["submit"], "procs": size, "estimate": est,
                     "run": min(t["run"], est), "plan": max(est, 1), "start": None,
                     "end": None})
    arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i]["submit"], i))
    ends = []               # heap of (end, index)
    running = {}            # index -> planned end
    queue = []
    free = procs
    nxt = 0

    def start(i, now):
        nonlocal free
        j = jobs[i]
        j["start"], j["end"] = now, now + j["run"]
        free -= j["procs"]
        running[i] = now + j["plan"]
        heapq.heappush(ends, (j["end"], i))

    while nxt < len(arrivals) or ends:
        now = jobs[arrivals[nxt]]["submit"] if nxt < len(arrivals) else None
        if ends and (now is None or ends[0][0] < now):
            now = ends[0][0]
        while ends and ends[0][0] == now:
            _, i = heapq.heappop(ends)
            free += jobs[i]["procs"]
            del running[i]
        while nxt < len(arrivals) and jobs[arrivals[nxt]]["submit"] == now:
            queue.append(arrivals[nxt])
            nxt += 1
        # FCFS part
        k = 0
        while k < len(queue) and jobs[queue[k]]["procs"] <= free:
            start(queue[k], now)
            k += 1
        queue = queue[k:]
        if policy == "fcfs" or not queue:
            continue
        # EASY: the head's shadow time and the extra processors then
        head = jobs[queue[0]]
        avail, shadow = free, None
        by_end = sorted(running.items(), key=lambda kv: kv[1])
        m = 0
        while m < len(by_end):
            t = by_end[m][1]
            while m < len(by_end) and by_end[m][1] == t:
                avail += jobs[by_end[m][0]]["procs"]
                m += 1
            if avail >= head["procs"]:
                shadow = t
                break
        assert shadow is not None
        extra = avail - head["procs"]
        rest = [queue[0]]
        for i in queue[1:]:
            j = jobs[i]
            if free > 0 and j["procs"] <= free and (now + j["plan"] <= shadow or j["procs"] <= extra):
                if now + j["plan"] > shadow:
                    extra -= j["procs"]
                start(i, now)
            else:
                rest.append(i)
        queue = rest
    assert not queue
    out = [{k: j[k] for k in ("id", "submit", "start", "end", "run", "procs")} for j in jobs]
    return out, big, bad


def metrics(out, procs):
    """utilization, mean wait, max wait, mean bounded slowdown, makespan:
    as `herd sim` defines them (doc/scheduling.md)."""
    if not out:
        return {"utilization": 0.0, "mean_wait": 0.0, "max_wait": 0, "mean_bsld": 0.0,
                "makespan": 0}
    first = min(j["submit"] for j in out)
    last = max(j["end"] for j in out)
    makespan = last - first
    waits = [j["start"] - j["submit"] for j in out]
    bsld = 0.0
    for j, w in zip(out, waits):
        bsld += max((w + j["run"]) / max(j["run"], TAU), 1.0)
    area = sum(j["procs"] * j["run"] for j in out)
    return {"utilization": area / (procs * makespan) if makespan > 0 else 0.0,
            "mean_wait": sum(waits) / len(out), "max_wait": max(waits),
            "mean_bsld": bsld / len(out), "makespan": makespan}


def main(argv):
    path, policy = argv[1], argv[2]
    n = int(argv[3]) if len(argv) > 3 and argv[3] != "0" else None
    trace, procs = load(path, n)
    if len(argv) > 4:
        procs = int(argv[4])
    out, big, bad = simulate(trace, procs, policy)
    m = metrics(out, procs)
    print(f"jobs {len(out)} big {big} bad {bad}")
    print(f"Utilization: {100 * m['utilization']:.4f}%")
    print(f"Mean wait: {m['mean_wait']:.2f} s")
    print(f"Max wait: {m['max_wait']} s")
    print(f"Mean bounded slowdown: {m['mean_bsld']:.4f}")
    print(f"Makespan: {m['makespan']} s")


if __name__ == "__main__":
    main(sys.argv)
