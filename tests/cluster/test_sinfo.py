"""sinfo as users read it: the default partition summary to the character,
the idle/mix/alloc split following running jobs, the node-oriented -N table,
-h, -o and -t; then, on a second cluster whose herd.conf sets node features,
weights, disks and a second partition with every partition setting sinfo
shows, each -o letter's value, -O names and widths, SINFO_FORMAT, %all,
-e, -s and -R.  Shared 4-node clusters (2 CPUs per node)."""
import os
import re
import signal

import pytest

from cmd_helpers import clean, run_env
from conftest import Cluster, make_root, stop_cluster

HEADER = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"
NODE_HEADER = "NODELIST   NODES PARTITION STATE "


def summary_line(nodes, state, nodelist, part="debug*"):
    # "%#P %.5a %.10l %.6D %.6t %N": the partition column is as wide as its
    # title (PARTITION) here.
    return f"{part:<9} {'up':>5} {'infinite':>10} {nodes:>6} {state:>6} {nodelist}"


def node_line(name, state, part="debug*"):
    # "%#N %.6D %.#P %6t"
    return f"{name:<9} {1:>6} {part:>9} {state:<6}"


def sinfo(c, *args, user=None):
    r = c.run(["sinfo", *args], user=user)
    assert r.rc == 0 and r.err == "", r
    return r.out


def names(c):
    return [n["NodeName"] for n in c.nodes]


def test_default_summary(clean):
    c = clean
    assert sinfo(c, user="herdu1") == \
        f"{HEADER}\n{summary_line(4, 'idle', 'n[1-4]')}\n"
    assert sinfo(c, "-h") == summary_line(4, "idle", "n[1-4]") + "\n"
    assert sinfo(c, "-h", "-o", "%P %a %D %T %N") == "debug* up 4 idle n[1-4]\n"
    assert sinfo(c, "-o", "%P %a %D %T %N").split("\n")[0] == "PARTITION AVAIL NODES STATE NODELIST"
    assert sinfo(c, "-h", "-o", "%R|%c|%m|%l|%D") == \
        f"debug|2|{c.nodes[0]['RealMemory']}|infinite|4\n"
    assert sinfo(c, "-h", "-p", "debug") == summary_line(4, "idle", "n[1-4]") + "\n"
    # An unknown partition: the header and nothing else.
    assert sinfo(c, "-p", "nosuch") == HEADER + "\n"


def test_states_follow_jobs(clean):
    c = clean
    wd = c.workdir("herdu1")
    one_cpu = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "sleep 300", user="herdu1", cwd=wd)
    c.wait_state(one_cpu, "RUNNING")
    whole = c.sbatch("--exclusive", "-o", "/dev/null", "--wrap", "sleep 300", user="herdu1",
                     cwd=wd)
    c.wait_state(whole, "RUNNING")
    mixed = c.show_job(one_cpu)["NodeList"]
    alloc = c.show_job(whole)["NodeList"]
    assert mixed != alloc
    idle = [n for n in names(c) if n not in (mixed, alloc)]
    idle_list = c.run(["scontrol", "show", "hostlist", ",".join(idle)]).out.strip()
    # Lines of a partition are sorted by node state, descending (Slurm's
    # default "#P,-t"): mixed, allocated, idle.
    assert sinfo(c) == "\n".join([
        HEADER,
        summary_line(1, "mix", mixed),
        summary_line(1, "alloc", alloc),
        summary_line(2, "idle", idle_list),
        ""])
    assert sorted(sinfo(c, "-h", "-o", "%D %T %N").splitlines()) == sorted([
        f"1 mixed {mixed}", f"1 allocated {alloc}", f"2 idle {idle_list}"])
    assert sinfo(c, "-h", "-t", "idle", "-o", "%D %N") == f"2 {idle_list}\n"
    # Without a state field nodes of different states share a line.
    assert sinfo(c, "-h", "-t", "alloc,mix", "-o", "%D") == "2\n"
    assert sinfo(c, "-h", "-o", "%F") == "2/2/0/4\n"
    per_node = dict(line.split() for line in sinfo(c, "-h", "-N", "-o", "%N %t").splitlines())
    assert per_node == {**{n: "idle" for n in idle}, mixed: "mix", alloc: "alloc"}
    # When the jobs end every node is idle again.
    assert c.run(["scancel", str(one_cpu), str(whole)]).rc == 0
    c.wait_nodes_idle()
    assert sinfo(c, "-h") == summary_line(4, "idle", "n[1-4]") + "\n"


def test_all_nodes_allocated(clean):
    c = clean
    job_id = c.sbatch("-N", str(c.nnodes), "--exclusive", "-o", "/dev/null", "--wrap",
                      "sleep 300")
    c.wait_state(job_id, "RUNNING")
    assert sinfo(c, "-h") == summary_line(4, "alloc", "n[1-4]") + "\n"


def test_node_oriented(clean):
    c = clean
    assert sinfo(c, "-N") == "\n".join(
        [NODE_HEADER] + [node_line(n, "idle") for n in names(c)] + [""])
    assert sinfo(c, "-N", "-h") == "\n".join([node_line(n, "idle") for n in names(c)] + [""])
    assert sinfo(c, "--Node", "-h", "-o", "%N %P %t %c") == \
        "".join(f"{n} debug* idle 2\n" for n in names(c))
    assert sinfo(c, "-N", "-h", "-n", "n[2-3]", "-o", "%N") == "n2\nn3\n"


# ---- a cluster whose configuration sets what sinfo shows --------------------

LONG_PART = ("PartitionName=long Nodes=n[3-4] MaxTime=2-00:00:00 DefaultTime=1:00:00 "
             "PriorityTier=5 PriorityJobFactor=3 AllowGroups=wheel RootOnly=YES "
             "MaxCPUsPerNode=1 PreemptMode=requeue OverSubscribe=FORCE MinNodes=1 MaxNodes=2 "
             "State=INACTIVE AllocNodes=n1")
NODE_EXTRA = {"n1": " Features=fast,ssd Weight=10 TmpDisk=500",
              "n2": " Features=fast,ssd Weight=10 TmpDisk=800"}


def wait_idle(c):
    """Every node idle (conftest's wait_nodes_idle counts one line per node,
    and here n3 and n4 are in two partitions)."""
    c.wait_until("all nodes idle", lambda: c.run(["sinfo", "-h", "-p", "debug", "-o", "%D %t"]).out
                 == "4 idle\n")


@pytest.fixture(scope="module")
def known(users):
    """4 nodes of 2 CPUs and 1000 MB; n1 and n2 with features, weight 10 and
    500/800 MB of disk; partition long (n3, n4) with every setting."""
    c = Cluster(make_root(), 4)
    try:
        c.up("--cpus", "2", "--memory", "1000")
        os.kill(c.ctld_pid(), signal.SIGTERM)
        c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
        with open(c.conf) as f:
            lines = f.read().splitlines()
        out = []
        for line in lines:
            m = re.match(r"NodeName=(\S+) ", line)
            out.append(line + NODE_EXTRA.get(m.group(1), "") if m else line)
        out.append(LONG_PART)
        with open(c.conf, "w") as f:
            f.write("\n".join(out) + "\n")
        c.restart_ctld()
        c.wait_until("the controller", c.ping_ok, timeout=30)
        wait_idle(c)
        yield c
    finally:
        stop_cluster(c)


def ok(c, *args, env=None):
    r = run_env(c, env, ["sinfo", *args]) if env else c.run(["sinfo", *args])
    assert (r.rc, r.err) == (0, ""), r
    return r.out


# Every -o letter of sinfo(1) and its value on partition long (n3, n4 idle):
# Herd's own data where it has it, else what Slurm prints when unset.
LETTER_VALUES = {
    "a": "inactive", "A": "0/2", "b": "(null)", "B": "1", "c": "2", "C": "0/4/0/4", "d": "0",
    "D": "2", "e": "N/A", "E": "none", "f": "(null)", "F": "0/2/0/2", "g": "wheel",
    "G": "(null)", "h": "FORCE:4", "H": "Unknown", "I": "3", "l": "2-00:00:00",
    "L": "1:00:00", "m": "1000", "M": "REQUEUE", "N": "n[3-4]", "o": "127.0.0.1", "O": "N/A",
    "p": "5", "P": "long", "r": "yes", "R": "long", "s": "1-2", "S": "n1", "t": "idle",
    "T": "idle", "u": "Unknown", "U": "Unknown", "v": "22.05.8", "V": "N/A", "w": "1",
    "X": "2", "Y": "1", "Z": "1", "z": "2:1:1",
}


def test_every_letter(known):
    c = known
    for letter, value in LETTER_VALUES.items():
        assert ok(c, "-h", "-p", "long", "-o", f"%{letter}") == value + "\n", letter
    # The default partition: '*', no DefaultTime, and the cluster's defaults.
    assert ok(c, "-h", "-p", "debug", "-o", "%P|%L|%s|%r|%h|%g|%S|%B|%M|%p|%I") == \
        "debug*|n/a|1-infinite|no|NO|all|all|UNLIMITED|OFF|1|1\n"
    # Hostnames differ (n3, n4), so %n gives each node its line, as Slurm.
    assert ok(c, "-h", "-p", "long", "-o", "%n %D") == "n3 1\nn4 1\n"
    # Features split lines; sizes do not: the smallest, '+' if they differ.
    assert ok(c, "-h", "-p", "debug", "-o", "%D|%c|%d|%w|%f|%b|%N") == \
        "2|2|500+|10|fast,ssd|fast,ssd|n[1-2]\n2|2|0|1|(null)|(null)|n[3-4]\n"
    # -e: only identical nodes share a line.
    assert ok(c, "-h", "-e", "-p", "debug", "-o", "%D|%d|%N") == "1|500|n1\n1|800|n2\n2|0|n[3-4]\n"
    # -S / SINFO_SORT: letters, '-' descending, "#P" configuration order.
    assert ok(c, "-h", "-o", "%R", "-S", "-P") == "long\ndebug\n"
    assert ok(c, "-h", "-o", "%R", "-S", "#P") == "debug\nlong\n"
    assert ok(c, "-h", "-N", "-p", "debug", "-o", "%N", "-S", "-N") == "n4\nn3\nn2\nn1\n"
    assert ok(c, "-h", "-e", "-p", "debug", "-o", "%d %N", env={"SINFO_SORT": "-d"}) == \
        "800 n2\n500 n1\n0 n[3-4]\n"
    # -l (date line first) and the --long columns, INACTIVE cut to "inact".
    out = ok(c, "-l").split("\n")
    assert re.fullmatch(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}", out[0]), out
    assert out[1:] == [
        "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST",
        "debug*       up   infinite 1-infinite   no       NO        all      4        idle n[1-4]",
        "long      inact 2-00:00:00        1-2  yes  FORCE:4      wheel      2        idle n[3-4]",
        ""]


# sinfo(1)'s -O names and the -o letters they stand for.
LONG_NAMES = {
    "AllocNodes": "S", "Available": "a", "Cluster": "V", "Cores": "Y", "CPUs": "c",
    "CPUsLoad": "O", "CPUsState": "C", "DefaultTime": "L", "Disk": "d", "Features": "f",
    "features_act": "b", "FreeMem": "e", "Gres": "G", "Groups": "g", "MaxCPUsPerNode": "B",
    "Memory": "m", "NodeAddr": "o", "NodeAI": "A", "NodeAIOT": "F", "NodeHost": "n",
    "NodeList": "N", "Nodes": "D", "OverSubscribe": "h", "Partition": "P",
    "PartitionName": "R", "PreemptMode": "M", "PriorityJobFactor": "I", "PriorityTier": "p",
    "Priority": "p", "Reason": "E", "Root": "r", "Size": "s", "SocketCoreThread": "z",
    "Sockets": "X", "StateCompact": "t", "StateLong": "T", "Threads": "Z", "Time": "l",
    "TimeStamp": "H", "User": "u", "UserLong": "U", "Version": "v", "Weight": "w",
}


def test_format_long(known):
    c = known
    for name, letter in LONG_NAMES.items():
        # 20 wide by default; the same value as the letter.
        assert ok(c, "-p", "long", "-N", "-O", name) == \
            ok(c, "-p", "long", "-N", "-o", f"%20{letter}"), name
        assert ok(c, "-h", "-p", "debug", "-O", f"{name}:.30") == \
            ok(c, "-h", "-p", "debug", "-o", f"%.30{letter}"), name
    # Fields without a letter.
    assert ok(c, "-O", "AllocMem,Comment,Extra,GresUsed,StateComplete", "-p", "long") == \
        f"{'ALLOCMEM':<20}{'COMMENT':<20}{'EXTRA':<20}{'GRES_USED':<20}{'STATECOMPLETE':<20}\n" \
        f"{'0':<20}{'(null)':<20}{'(null)':<20}{'(null)':<20}{'idle':<20}\n"
    port = {n["NodeName"]: n["Port"] for n in c.nodes}
    assert ok(c, "-h", "-N", "-p", "long", "-O", "NodeList:5,Port:") == \
        f"n3   {port['n3']}\nn4   {port['n4']}\n"
    # Widths, '.', suffixes, case, and "Name:" alone (as wide as the value).
    assert ok(c, "-p", "long", "-O", "PartitionName:6,available:.9,NodeList,Nodes:3|") == \
        f"PARTIT{'AVAIL':>9}{'NODELIST':<20}NOD|\nlong  {'inactive':>9}{'n[3-4]':<20}2  |\n"
    assert ok(c, "-h", "-p", "long", "-O", "Partition:,Nodes:") == "long2\n"
    r = c.run(["sinfo", "-O", "NodeList,Bogus"])
    assert (r.rc, r.out) == (1, ""), r
    assert r.err == "sinfo: error: Invalid node format specification: Bogus\n", r
    # SINFO_FORMAT is the default format; -o and -O win over it.
    assert ok(c, "-h", env={"SINFO_FORMAT": "%R:%D"}) == "debug:4\nlong:2\n"
    assert ok(c, "-h", "-o", "%R", env={"SINFO_FORMAT": "%R:%D"}) == "debug\nlong\n"
    # (Without a partition field lines are not split by partition, and a
    # node of two partitions counts once.)
    assert ok(c, "-h", "-O", "Nodes:2", env={"SINFO_FORMAT": "%R:%D"}) == "4 \n"
    assert ok(c, "-h", "-o", "%D %t") == "4 idle\n"


# The header of Slurm's "sinfo -o %all" (lower case letters, then upper case).
ALL_HEADER = ("AVAIL|ACTIVE_FEATURES|CPUS|TMP_DISK|FREE_MEM|AVAIL_FEATURES|GROUPS|OVERSUBSCRIBE|"
              "TIMELIMIT|MEMORY|HOSTNAMES|NODE_ADDR|PRIO_TIER|ROOT|JOB_SIZE|STATE|USER|VERSION|"
              "WEIGHT|S:C:T|NODES(A/I) |MAX_CPUS_PER_NODE |CPUS(A/I/O/T) |NODES |REASON |"
              "NODES(A/I/O/T) |GRES |TIMESTAMP |PRIO_JOB_FACTOR |DEFAULTTIME |PREEMPT_MODE |"
              "NODELIST |CPU_LOAD |PARTITION |PARTITION |ALLOCNODES |STATE |USER |CLUSTER |"
              "SOCKETS |CORES |THREADS ")


def test_all(known):
    c = known
    out = ok(c, "-o", "%all", "-p", "long").split("\n")
    assert out[0] == ALL_HEADER
    assert out[2] == ("inactive|(null)|2|0|N/A|(null)|wheel|FORCE:4|2-00:00:00|1000|n4|127.0.0.1|"
                      "5|yes|1-2|idle|Unknown|22.05.8|1|2:1:1|0/1 |1 |0/2/0/2 |1 |none |0/1/0/1 |"
                      "(null) |Unknown |3 |1:00:00 |REQUEUE |n4 |N/A |long |long |n1 |idle |"
                      "Unknown |N/A |2 |1 |1 ")
    assert len(out) == 4 and out[3] == ""
    assert ok(c, "-O", "All", "-p", "long") == "\n".join(out)


def test_summary_and_reasons(known):
    c = known
    assert ok(c, "-s") == "\n".join([
        "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST",
        "debug*       up   infinite          0/4/0/4 n[1-4]",
        "long      inact 2-00:00:00          0/2/0/2 n[3-4]", ""])
    assert ok(c, "-R") == "REASON               USER      TIMESTAMP           NODELIST\n"
    try:
        for node, state, reason in (("n2", "DRAIN", "disk bad"), ("n3", "DOWN", "fan")):
            r = c.run(["scontrol", "update", f"NodeName={node}", f"State={state}",
                       f"Reason={reason}"])
            assert r.rc == 0, r
        ts = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"
        # Each node once, whatever its partitions; drained before down.
        out = ok(c, "-R").split("\n")
        assert out[0] == "REASON               USER      TIMESTAMP           NODELIST"
        assert re.fullmatch(rf"disk bad {{13}}root {{6}}{ts} n2", out[1]), out
        assert re.fullmatch(rf"fan {{18}}root {{6}}{ts} n3", out[2]), out
        assert out[3:] == [""]
        out = ok(c, "-R", "-l").split("\n")
        assert out[1] == "REASON               USER         TIMESTAMP           STATE  NODELIST"
        assert re.fullmatch(rf"disk bad {{13}}root\(0\) {{6}}{ts} drain  n2", out[2]), out
        assert re.fullmatch(rf"fan {{18}}root\(0\) {{6}}{ts} down   n3", out[3]), out
        # Drained and down nodes are "other"; their CPUs too.
        assert ok(c, "-h", "-p", "debug", "-o", "%A %F %C") == "0/2 0/2/2/4 0/4/4/8\n"
        assert ok(c, "-s", "-h", "-p", "debug") == \
            "debug*       up   infinite          0/2/2/4 n[1-4]\n"
        # Lines by state, descending: drained, idle, down.
        assert ok(c, "-h", "-p", "debug", "-o", "%t %T|%N") == \
            "drain drained|n2\nidle idle|n[1,4]\ndown down|n3\n"
        assert ok(c, "-h", "-N", "-o", "%N %E|%u|%U", "-n", "n[1-2]") == \
            "n1 none|Unknown|Unknown\nn2 disk bad|root|root(0)\n"
        assert ok(c, "-h", "-N", "-p", "debug", "-O", "NodeList:4,StateComplete") == \
            f"n1  {'idle':<20}\nn2  {'idle+drain':<20}\nn3  {'down':<20}\nn4  {'idle':<20}\n"
        assert ok(c, "-h", "-t", "drain", "-p", "debug", "-o", "%N") == "n2\n"
        assert ok(c, "-h", "-t", "down,drained", "-p", "debug", "-o", "%N %t") == "n2 drain\nn3 down\n"
        assert ok(c, "-h", "-t", "drain&idle", "-p", "debug", "-o", "%N") == "\n"
        assert ok(c, "-h", "-t", "maint", "-p", "debug", "-o", "%D") == "0\n"
        assert ok(c, "-h", "-d", "-o", "%D") == "0\n0\n"
        assert ok(c, "-h", "-r", "-p", "long", "-o", "%D %t %N") == "1 idle n4\n1 down n3\n"
    finally:
        r = c.run(["scontrol", "update", "NodeName=n[2-3]", "State=RESUME"])
        assert r.rc == 0, r
    wait_idle(c)


def test_draining_and_node_long(known):
    c = known
    # -N -l: "%#N %.6D %#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E" (partition
    # right-justified as Herd's -N does).
    out = ok(c, "-N", "-l", "-n", "n1").split("\n")
    assert out[1:] == [
        "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON              ",
        "n1             1    debug*        idle 2       2:1:1   1000      500     10 fast,ssd none                ",
        ""], out
    job = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    node = None
    try:
        c.wait_state(job, "RUNNING")
        node = c.show_job(job)["NodeList"]
        assert ok(c, "-h", "-N", "-p", "debug", "-n", node, "-o", "%t %T") == "mix mixed\n"
        r = c.run(["scontrol", "update", f"NodeName={node}", "State=DRAIN", "Reason=retire"])
        assert r.rc == 0, r
        assert ok(c, "-h", "-N", "-p", "debug", "-n", node, "-o", "%t %T") == "drng draining\n"
        assert ok(c, "-h", "-N", "-p", "debug", "-n", node, "-O", "StateComplete:") == \
            "mixed+drain\n"
        # A draining node with a job is allocated; its free CPU is other.
        assert ok(c, "-h", "-p", "debug", "-o", "%A|%F|%C") == "1/3|1/3/0/4|1/6/1/8\n"
        assert ok(c, "-h", "-p", "debug", "-t", "draining", "-o", "%N") == f"{node}\n"
    finally:
        c.run(["scancel", str(job)])
        if node:
            r = c.run(["scontrol", "update", f"NodeName={node}", "State=RESUME"])
            assert r.rc == 0, r
    wait_idle(c)


def test_not_responding(known):
    """A node whose herdd stops answering: '*' after its state, -d and -r,
    and -R with the controller's reason (SlurmdTimeout is 10 s here)."""
    c = known
    pid = c.herdd_pid("n1")
    os.kill(pid, signal.SIGSTOP)
    try:
        c.wait_until("n1 not responding", lambda: c.run(
            ["sinfo", "-h", "-N", "-n", "n1", "-o", "%t"]).out == "down*\n", timeout=40)
        assert ok(c, "-h", "-N", "-n", "n1", "-o", "%t|%T|%E") == "down*|down*|Not responding\n"
        assert ok(c, "-h", "-N", "-n", "n1", "-O", "StateComplete:") == "down+not_responding\n"
        assert ok(c, "-h", "-d", "-o", "%P %D %N") == "debug* 1 n1\nlong 0 \n"
        assert ok(c, "-h", "-r", "-p", "debug", "-o", "%D %N") == "3 n[2-4]\n"
        assert ok(c, "-h", "-t", "no_respond", "-p", "debug", "-o", "%N") == "n1\n"
        out = ok(c, "-R").split("\n")
        assert re.fullmatch(r"Not responding {7}root {6}\S+ n1", out[1]), out
        assert ok(c, "-h", "-p", "debug", "-o", "%F") == "0/3/1/4\n"
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_idle(c)
