"""sinfo as users read it: the default partition summary to the character,
the idle/mix/alloc split following running jobs, the node-oriented -N table,
-h, -o and -t.  One shared 4-node cluster (2 CPUs per node)."""
from cmd_helpers import clean

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
