"""Task placement and task environment options on the nodes (issue 15):
-m/--distribution (every form), --ntasks-per-socket/--ntasks-per-core,
--hint, --mem-bind, --propagate with the submitter's resource limits, and
sbatch --get-user-env.  Jobs are submitted as SUBMIT_JOB frames carrying the
JOBSPEC keys (doc/protocol.md), the way sbatch sends them; what is checked
is what a user sees: the job's environment, where `srun -l` runs each task,
each task's CPU mask (SLURM_CPU_BIND_LIST), memory policy (numa_maps) and
limits (ulimit).  Nodes: 2, each declared with 2 sockets of 2 cores."""
import json
import os
import pwd
import re
import shutil

import pytest

from conftest import BIN, Cluster, make_root, stop_cluster
from test_frames import SUBMIT_JOB, Wire, exchange

USER = "herdu1"


@pytest.fixture(scope="module")
def c(users):
    root = make_root()
    cl = Cluster(root, 2)
    try:
        cl.up("--cpus", "4")
        # Two sockets of two cores: the socket part of -m shows in the masks.
        with open(cl.conf) as f:
            text = f.read()
        text = re.sub(r"(NodeName=\S+ .*CPUs=4)", r"\1 Sockets=2 CoresPerSocket=2 ThreadsPerCore=1",
                      text)
        with open(cl.conf, "w") as f:
            f.write(text)
        r = cl.run(["scontrol", "reconfigure"])
        assert r.rc == 0, r
        cl.wait_until("the topology", lambda: "CoresPerSocket=2" in cl.run(
            ["scontrol", "show", "node", "n1"]).out)
        yield cl
    finally:
        stop_cluster(cl)


@pytest.fixture(scope="module")
def wire(c):
    return Wire(c)


def job_body(c, script, out, **keys):
    job = {"name": "nodeopts", "script": script, "argv": [],
           "env": [f"PATH={BIN}:/usr/bin:/bin"], "cwd": c.workdir(USER), "stdout": out,
           "stderr": "", "stdin": "", "partition": "", "nodes": 0, "ntasks": 0,
           "cpus_per_task": 0, "mem_mb": 0, "exclusive": False, "time_limit": -2,
           "hold": False, "submit_host": "h", "umask": 18, "account": "", "comment": ""}
    job.update(keys)
    return json.dumps({"key": "", "job": job}).encode()


def submit(c, wire, script, user=USER, **keys):
    """SUBMIT_JOB as sbatch sends it; the reply object."""
    out = os.path.join(c.workdir(user), f"out-{os.urandom(4).hex()}")
    reply = exchange(c.port, wire.request(SUBMIT_JOB, job_body(c, script, out, **keys), user=user))
    reply["_out"] = out
    return reply


def run_job(c, wire, script, **keys):
    """Submit, wait for the end; the job's output."""
    reply = submit(c, wire, "#!/bin/sh\n" + script, **keys)
    assert reply["rc"] == 0, reply
    state = c.wait_done(reply["job_id"])
    with open(reply["_out"]) as f:
        out = f.read()
    assert state == "COMPLETED", (state, out, c.logs())
    return out


def env_of(out):
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line and
                not line[0].isdigit())


def labelled(out, prefix=""):
    """`srun -l` lines as {task: value}."""
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+): " + prefix + r"(.*)$", out,
                                                            re.M)}


# ---- -m/--distribution ----

def test_distribution_env_and_cyclic_steps(c, wire):
    """sbatch -m cyclic:fcyclic,Pack: SLURM_DISTRIBUTION as Slurm writes it;
    a step without -m takes the job's, tasks dealt round-robin over the nodes."""
    out = run_job(c, wire, "env | grep -E '^SLURM_(DIST|NTASKS_PER)'\n"
                  "srun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n",
                  distribution="cyclic:fcyclic,Pack", nodes=2, ntasks=4)
    env = env_of(out)
    assert env["SLURM_DISTRIBUTION"] == "cyclic:fcyclic,pack", out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert tasks == {0: "n1", 1: "n2", 2: "n1", 3: "n2"}, out


def test_distribution_plane(c, wire):
    """-m plane=2: SLURM_DISTRIBUTION=plane and SLURM_DIST_PLANESIZE=2; tasks
    go to the nodes two at a time."""
    # srun reads SLURM_DISTRIBUTION=plane and SLURM_DIST_PLANESIZE back
    out = run_job(c, wire, "env | grep -E '^SLURM_DIST'\n"
                  "srun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n",
                  distribution="plane=2", nodes=2, ntasks=6)
    env = env_of(out)
    assert (env["SLURM_DISTRIBUTION"], env["SLURM_DIST_PLANESIZE"]) == ("plane", "2"), out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert tasks == {0: "n1", 1: "n1", 2: "n2", 3: "n2", 4: "n1", 5: "n2"}, out


def test_distribution_block_default(c, wire):
    """Without -m, steps fill the first node first (block) and the batch
    shell has no SLURM_DISTRIBUTION, as in Slurm."""
    out = run_job(c, wire, "echo DIST=${SLURM_DISTRIBUTION-unset}\n"
                  "srun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n", nodes=2, ntasks=4)
    assert "DIST=unset" in out, out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert tasks == {0: "n1", 1: "n1", 2: "n2", 3: "n2"}, out


def test_distribution_arbitrary(c, wire):
    """-m arbitrary: task i runs on the i-th name of the node list (srun -w
    n2,n1,n1, what SLURM_HOSTFILE gives srun)."""
    out = run_job(c, wire, "srun -l -n3 -w n2,n1,n1 printenv SLURMD_NODENAME SLURM_STEP_TASKS_PER_NODE"
                  " | sed 's/^/S /'\n",
                  distribution="arbitrary", nodes=2, ntasks=3, req_nodelist="n[1-2]")
    names = {}
    for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M):
        names.setdefault(int(m.group(1)), []).append(m.group(2))
    assert {t: v[0] for t, v in names.items()} == {0: "n2", 1: "n1", 2: "n1"}, out
    assert all(v[1] == "2,1" for v in names.values()), out


def test_arbitrary_needs_a_node_list(c, wire):
    reply = submit(c, wire, "#!/bin/sh\ntrue\n", distribution="arbitrary", ntasks=2)
    assert (reply["rc"], reply.get("error")) == (
        2072, "With Arbitrary distribution you need to specify a nodelist or hostfile with the -w "
        "option"), reply


@pytest.mark.parametrize("dist,cpt,masks", [
    ("block:block", 1, "0x1,0x2"),      # both on socket 0
    ("block:cyclic", 1, "0x1,0x4"),     # one per socket
    ("block", 1, "0x1,0x4"),            # the socket part's default is cyclic
    ("block:cyclic", 2, "0x3,0xc"),     # each task's two CPUs on one socket
    ("block:fcyclic", 2, "0x5,0xa"),    # each task's CPUs across the sockets
])
def test_socket_distribution_binds(c, wire, dist, cpt, masks):
    """The socket part of -m decides each task's CPUs on a node of 2 sockets
    (SLURM_CPU_BIND_LIST: the masks, local task by local task)."""
    out = run_job(c, wire, "srun -l printenv SLURM_CPU_BIND_LIST\n",
                  distribution=dist, nodes=1,
                  ntasks=2, cpus_per_task=cpt, exclusive=True)
    assert set(labelled(out).values()) == {masks}, out


def test_bad_distribution_is_refused(c, wire):
    for dist, error in [("sideways", "Invalid --distribution specification"),
                        ("plane=2:block", "Invalid plane size or size not specified"),
                        ("block:block:block:block", "Invalid --distribution specification"),
                        ("cyclic,Tight", "Invalid --distribution specification")]:
        reply = submit(c, wire, "#!/bin/sh\ntrue\n", distribution=dist)
        assert (reply["rc"], reply.get("error")) == (2072, error), (dist, reply)


# ---- --ntasks-per-socket, --ntasks-per-core ----

def test_ntasks_per_socket(c, wire):
    """--ntasks-per-socket=1 on 2-socket nodes: two tasks a node, so four
    tasks take both nodes; the job's environment says it."""
    out = run_job(c, wire, "env | grep -E '^SLURM_NTASKS_PER'\n"
                  "srun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n",
                  ntasks=4, ntasks_per_socket=1)
    env = env_of(out)
    assert env["SLURM_NTASKS_PER_SOCKET"] == "1", out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert sorted(tasks.values()) == ["n1", "n1", "n2", "n2"], out


def test_ntasks_per_socket_and_core_bind(c):
    """As Slurm: --ntasks-per-socket binds each task to its socket (both of
    the step's CPUs there), --ntasks-per-core to its core, --cpu-bind=sockets
    to the socket as well."""
    out = batch(c, "-N1", "-n2", "--exclusive", script=(
        "srun -l --ntasks-per-socket=1 printenv SLURM_CPU_BIND_LIST | sed 's/^/S /'\n"
        "srun -l --ntasks-per-core=1 printenv SLURM_CPU_BIND_LIST | sed 's/^/C /'\n"
        "srun -l --cpu-bind=sockets printenv SLURM_CPU_BIND_LIST | sed 's/^/B /'\n"))
    assert set(re.findall(r"^S \d+: (\S+)$", out, re.M)) == {"0x3,0xc"}, out
    assert set(re.findall(r"^C \d+: (\S+)$", out, re.M)) == {"0x1,0x4"}, out
    assert set(re.findall(r"^B \d+: (\S+)$", out, re.M)) == {"0x3,0xc"}, out


def test_ntasks_per_socket_in_scontrol(c):
    """scontrol show job: NtasksPerN:B:S:C=0:0:S:C, as Slurm shows them."""
    job = c.sbatch("-H", "-n2", "--ntasks-per-socket=1", "--ntasks-per-core=1", "--wrap", "true",
                   user=USER)
    try:
        r = c.run(["scontrol", "show", "job", str(job)])
        assert "NtasksPerN:B:S:C=0:0:1:1 " in r.out, r
    finally:
        c.run(["scancel", str(job)])


def test_ntasks_per_core_and_socket_refused_when_no_node_fits(c, wire):
    """As Slurm: what no node can give is refused at submission."""
    for keys in ({"ntasks": 4, "nodes": 1, "ntasks_per_socket": 1},
                 {"ntasks": 5, "nodes": 1, "ntasks_per_core": 1},
                 {"ntasks": 1, "ntasks_per_socket": 3}):
        reply = submit(c, wire, "#!/bin/sh\ntrue\n", **keys)
        assert (reply["rc"], reply.get("error")) == (
            2014, "Requested node configuration is not available"), (keys, reply)
    reply = submit(c, wire, "#!/bin/sh\ntrue\n", ntasks_per_core=0)
    assert (reply["rc"], reply.get("error")) == (
        2072, 'Invalid numeric value "0" for --ntasks-per-core.'), reply


# ---- --hint ----

def test_hint(c, wire):
    """--hint=nomultithread: SLURM_HINT and SLURM_THREADS_PER_CORE=1 in the
    job; its steps bind to threads (Slurm's default for the hint)."""
    out = run_job(c, wire, "env | grep -E '^SLURM_(HINT|THREADS_PER_CORE)'\n"
                  "srun -l printenv SLURM_CPU_BIND_TYPE\n", hint="nomultithread", ntasks=2,
                  nodes=1)
    env = env_of(out)
    assert (env["SLURM_HINT"], env["SLURM_THREADS_PER_CORE"]) == ("nomultithread", "1"), out
    assert set(labelled(out).values()) == {"mask_cpu:"}, out


def test_bad_hint_is_refused(c, wire):
    reply = submit(c, wire, "#!/bin/sh\ntrue\n", hint="foo")
    assert (reply["rc"], reply.get("error")) == (
        2072, 'unrecognized --hint argument "foo", see --hint=help'), reply


# ---- --mem-bind ----

def test_mem_bind_map_mem(c, wire):
    """--mem-bind=verbose,map_mem:0: the batch shell gets SLURM_MEM_BIND as
    typed; each task of a step runs with a bind policy on NUMA node 0
    (numa_maps), SLURM_MEM_BIND* as srun sets them, and the verbose line."""
    out = run_job(c, wire, "env | grep -E '^SLURM_MEM_BIND'\n"
                  "srun -l sh -c 'env | grep ^SLURM_MEM_BIND | sort | tr \"\\n\" \" \"; echo;"
                  " grep -m1 -E \" (bind|default|prefer|local)\" /proc/self/numa_maps"
                  " | cut -d\" \" -f2' 2>&1\n",
                  mem_bind="verbose,map_mem:0", ntasks=2, nodes=1)
    env = env_of(out)
    assert (env["SLURM_MEM_BIND"], env["SLURM_MEM_BIND_VERBOSE"]) == ("verbose,map_mem:0",
                                                                      "verbose"), out
    assert re.search(r"^0: SLURM_MEM_BIND=verbose,map_mem:0 SLURM_MEM_BIND_LIST=0 "
                     r"SLURM_MEM_BIND_TYPE=map_mem: SLURM_MEM_BIND_VERBOSE=verbose $", out, re.M), out
    assert re.search(r"^0: bind:0$", out, re.M) and re.search(r"^1: bind:0$", out, re.M), out
    assert re.search(r"^0: mem-bind=MAP - n1, task  0  0 \[\d+\]: mask 0x1 set$", out, re.M), out


def test_mem_bind_local_and_prefer(c, wire):
    out = run_job(c, wire, "srun sh -c 'grep -m1 -E \" (bind|default|prefer|local)\" "
                  "/proc/self/numa_maps | cut -d\" \" -f2'\n", mem_bind="local", ntasks=1)
    assert out.strip() == "local", out
    out = run_job(c, wire, "srun sh -c 'grep -m1 -E \" (bind|default|prefer|local)\" "
                  "/proc/self/numa_maps | cut -d\" \" -f2'\n", mem_bind="prefer,map_mem:0", ntasks=1)
    assert out.strip() == "prefer:0", out


def test_mem_bind_to_a_missing_node(c, wire):
    """A NUMA node the machine lacks: the task says so and runs unbound."""
    out = run_job(c, wire, "srun sh -c 'grep -m1 -E \" (bind|default|prefer|local)\" "
                  "/proc/self/numa_maps | cut -d\" \" -f2' 2>&1\n", mem_bind="map_mem:5", ntasks=1)
    assert "slurmstepd-n1: error: --mem-bind: set_mempolicy: Invalid argument" in out, out
    assert out.strip().endswith("default"), out


def test_bad_mem_bind_is_refused(c, wire):
    for spec, error in [("foo", 'unrecognized --mem-bind argument "foo"'),
                        ("map_mem:", 'missing list for "--mem-bind=map_mem:<list>"'),
                        ("mask_mem:zz", "Failed to validate number: zz, the offending character is z")]:
        reply = submit(c, wire, "#!/bin/sh\ntrue\n", mem_bind=spec)
        assert (reply["rc"], reply.get("error")) == (2072, error), (spec, reply)


# ---- --propagate and the submitter's limits ----

LIMITS = {"NOFILE": [256, 1024], "CORE": [0, -1], "STACK": [4096 * 1024, -1]}


def test_rlimits_propagate_to_batch_and_steps(c, wire):
    """Every limit the client sent is set (soft) on the batch shell by
    default (PropagateResourceLimits=ALL)."""
    out = run_job(c, wire, "echo B $(ulimit -Sn) $(ulimit -Sc) $(ulimit -Ss)\n", rlimits=LIMITS,
                  ntasks=1)
    assert "B 256 0 4096" in out, out


def test_propagate_selects(c, wire):
    """--propagate=CORE: only CORE is set; NOFILE stays the node's."""
    out = run_job(c, wire, "echo B $(ulimit -Sn) $(ulimit -Sc)\n", rlimits=LIMITS, propagate="CORE",
                  ntasks=1)
    assert out.split()[1:] != ["256"], out
    assert out.split()[2] == "0", out
    reply = submit(c, wire, "#!/bin/sh\ntrue\n", propagate="FOO")
    assert (reply["rc"], reply.get("error")) == (2072, "Bad rlimit name: FOO"), reply


def test_propagate_never_above_the_node_hard_limit(c, wire):
    """A soft limit above the node daemon's hard one is set to the hard one,
    and the node's log says it could not propagate it."""
    out = run_job(c, wire, "echo B $(ulimit -Sn) $(ulimit -Hn)\n",
                  rlimits={"NOFILE": [1 << 40, -1]}, ntasks=1)
    soft, hard = out.split()[1:3]
    assert soft == hard, out
    with open(os.path.join(c.dir, "log", "herdd-n1.log")) as f:
        assert "Can't propagate RLIMIT_NOFILE of 1099511627776 from submit host" in f.read()


def test_propagate_except_in_conf(c, wire):
    """PropagateResourceLimitsExcept=NOFILE in herd.conf: NOFILE is not set."""
    with open(c.conf) as f:
        saved = f.read()
    try:
        with open(c.conf, "a") as f:
            f.write("PropagateResourceLimitsExcept=NOFILE\n")
        out = run_job(c, wire, "echo B $(ulimit -Sn) $(ulimit -Sc)\n", rlimits=LIMITS, ntasks=1)
        assert out.split()[1] != "256" and out.split()[2] == "0", out
    finally:
        with open(c.conf, "w") as f:
            f.write(saved)


# ---- --get-user-env ----

class profile:
    """The test user's ~/.profile replaced by text while in the block, then
    put back as it was (or removed when there was none)."""

    def __init__(self, text):
        pw = pwd.getpwnam(USER)
        self.path = os.path.join(pw.pw_dir, ".profile")
        self.text, self.uid, self.gid = text, pw.pw_uid, pw.pw_gid

    def __enter__(self):
        self.saved = open(self.path).read() if os.path.exists(self.path) else None
        with open(self.path, "w") as f:
            f.write(self.text)
        os.chown(self.path, self.uid, self.gid)
        return self.path

    def __exit__(self, *exc):
        if self.saved is None:
            os.unlink(self.path)
        else:
            with open(self.path, "w") as f:
                f.write(self.saved)


def test_get_user_env(c, wire):
    """--get-user-env: the user's login environment (their ~/.profile, read
    by their shell as them), under what was submitted."""
    pw = pwd.getpwnam(USER)
    for name in (".bash_profile", ".bash_login"):
        assert not os.path.exists(os.path.join(pw.pw_dir, name))
    with profile("export NODEOPT_LOGIN=yes\nexport NODEOPT_BOTH=login\n"
                 "export NODEOPT_UID=$(id -u)\n"):
        out = run_job(c, wire, "env | grep ^NODEOPT_ | sort\n", get_user_env="",
                      env=[f"PATH={BIN}:/usr/bin:/bin", "NODEOPT_BOTH=submitted"])
        assert out.split() == ["NODEOPT_BOTH=submitted", "NODEOPT_LOGIN=yes",
                               f"NODEOPT_UID={pw.pw_uid}"], out
        # without the option, nothing of the login
        out = run_job(c, wire, "env | grep ^NODEOPT_ | sort\n")
        assert out == "", out


def test_get_user_env_timeout(c, wire):
    """A login that takes longer than the time out: the job runs with what
    was submitted, and the node's log says why."""
    with profile("export NODEOPT_LOGIN=yes\nsleep 30\n"):
        out = run_job(c, wire, "echo LOGIN=${NODEOPT_LOGIN-unset}\n", get_user_env="1L")
        assert out.strip() == "LOGIN=unset", out
        with open(os.path.join(c.dir, "log", "herdd-n1.log")) as f:
            log = f.read()
        assert "Unable to get user's local environment, running only with passed environment" in log
    reply = submit(c, wire, "#!/bin/sh\ntrue\n", get_user_env="10X")
    assert (reply["rc"], reply.get("error")) == (2072, "Invalid --get-user-env specification"), reply


# ---- kept with the job ----

def test_options_survive_a_controller_restart(c, wire):
    """A job held across a controller restart still launches with its
    options (they are kept in the stored submission)."""
    reply = submit(c, wire, "#!/bin/sh\nenv | grep -E '^SLURM_(DISTRIBUTION|MEM_BIND=)'\n"
                   "echo N $(ulimit -Sn)\n", distribution="cyclic", mem_bind="local",
                   rlimits={"NOFILE": [300, 1024]}, hold=True, ntasks=1)
    assert reply["rc"] == 0, reply
    os.kill(c.ctld_pid(), 9)
    c.wait_until("the controller to die", lambda: not c.daemon_pids("herdctld"))
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok)
    assert c.run(["scontrol", "release", str(reply["job_id"])]).rc == 0
    assert c.wait_done(reply["job_id"]) == "COMPLETED"
    with open(reply["_out"]) as f:
        out = f.read()
    env = env_of(out)
    assert (env["SLURM_DISTRIBUTION"], env["SLURM_MEM_BIND"]) == ("cyclic", "local"), out
    assert "N 300" in out, out


# ---- the same from the command line (sbatch, srun) ----

def batch(c, *args, script, user=USER):
    """sbatch ARGS with the script; the job's output once it ended."""
    wd = c.workdir(user)
    path = os.path.join(wd, f"job-{os.urandom(4).hex()}.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + script)
    pw = pwd.getpwnam(user)
    os.chown(path, pw.pw_uid, pw.pw_gid)
    out = path + ".out"
    job = c.sbatch("-o", out, *args, path, user=user)
    state = c.wait_done(job)
    with open(out) as f:
        text = f.read()
    assert state == "COMPLETED", (state, text)
    return text


def test_cli_sbatch_distribution_and_srun_layout(c):
    """sbatch -m plane=2: the job's environment as Slurm's; srun inside
    reads it back (SLURM_DISTRIBUTION=plane, SLURM_DIST_PLANESIZE=2)."""
    out = batch(c, "-N2", "-n6", "-m", "plane=2", script=(
        "env | grep -E '^SLURM_DIST'\nsrun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n"))
    env = env_of(out)
    assert (env["SLURM_DISTRIBUTION"], env["SLURM_DIST_PLANESIZE"]) == ("plane", "2"), out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert tasks == {0: "n1", 1: "n1", 2: "n2", 3: "n2", 4: "n1", 5: "n2"}, out


def test_cli_srun_distribution_forms(c):
    """srun -m inside a job: cyclic over the nodes, the socket part in the
    masks, arbitrary from -w and from SLURM_HOSTFILE."""
    wd = c.workdir(USER)
    hostfile = os.path.join(wd, "hosts")
    with open(hostfile, "w") as f:
        f.write("n2\nn2\nn1\n")
    out = batch(c, "-N2", "-n4", "--exclusive", script=(
        "srun -l -m cyclic printenv SLURMD_NODENAME | sed 's/^/C /'\n"
        "srun -l -N1 -n2 -m block:block printenv SLURM_CPU_BIND_LIST | sed 's/^/B /'\n"
        "srun -l -N1 -n2 -m block:cyclic printenv SLURM_CPU_BIND_LIST | sed 's/^/Y /'\n"
        "srun -l -n3 -m arbitrary -w n2,n1,n1 printenv SLURMD_NODENAME | sed 's/^/A /'\n"
        f"SLURM_HOSTFILE={hostfile} srun -l -n3 -m arbitrary printenv SLURMD_NODENAME"
        " | sed 's/^/H /'\n"))

    def by(tag):
        return {int(m.group(1)): m.group(2) for m in re.finditer(rf"^{tag} (\d+): (\S+)$", out, re.M)}
    assert by("C") == {0: "n1", 1: "n2", 2: "n1", 3: "n2"}, out
    assert set(by("B").values()) == {"0x1,0x2"}, out
    assert set(by("Y").values()) == {"0x1,0x4"}, out
    assert by("A") == {0: "n2", 1: "n1", 2: "n1"}, out
    assert by("H") == {0: "n2", 1: "n2", 2: "n1"}, out


def test_cli_srun_mem_bind_and_hint(c):
    out = batch(c, "-n2", "-N1", script=(
        "srun -l --mem-bind=v,map_mem:0 sh -c 'grep -m1 -E \" (bind|default|prefer|local)\" "
        "/proc/self/numa_maps | cut -d\" \" -f2' 2>&1 | sort\n"
        "srun -l --hint=compute_bound printenv SLURM_CPU_BIND_TYPE SLURM_THREADS_PER_CORE"
        " | sed 's/^/T /'\n"))
    assert re.search(r"^0: bind:0$", out, re.M) and re.search(r"^1: bind:0$", out, re.M), out
    assert re.search(r"^0: mem-bind=MAP - n1, task  0  0 \[\d+\]: mask 0x1 set$", out, re.M), out
    assert re.findall(r"^T 0: (\S+)$", out, re.M) == ["mask_cpu:", "1"], out


def test_cli_propagate(c):
    """The submitting shell's limits reach the batch shell (sbatch sends
    them all, PropagateResourceLimits=ALL) and srun's reach its tasks;
    --propagate=CORE keeps NOFILE the node's."""
    wd = c.workdir(USER)
    path = os.path.join(wd, "limits.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho B $(ulimit -Sn)\nulimit -Sn 300\nsrun sh -c 'echo S $(ulimit -Sn)'\n"
                "srun --propagate=CORE sh -c 'echo P $(ulimit -Sn)'\n")
    pw = pwd.getpwnam(USER)
    os.chown(path, pw.pw_uid, pw.pw_gid)
    r = c.run(f"ulimit -Sn 256; sbatch --parsable -o {path}.out {path}", user=USER)
    assert r.rc == 0, r
    assert c.wait_done(int(r.out.strip().split(";")[0])) == "COMPLETED"
    with open(path + ".out") as f:
        out = f.read()
    assert "B 256" in out and "S 300" in out, out
    p = re.search(r"^P (\d+)$", out, re.M)
    assert p and p.group(1) not in ("256", "300"), out


def test_cli_get_user_env(c):
    with profile("export NODEOPT_LOGIN=yes\n"):
        out = batch(c, "--get-user-env", script="echo LOGIN=${NODEOPT_LOGIN-unset}\n")
        assert out.strip() == "LOGIN=yes", out


def test_cli_refusals(c):
    """The client's sentences and exit codes (Slurm's), and what no node can give."""
    for args, rc, err in [
            (["-m", "sideways"], 255, "sbatch: error: Invalid --distribution specification\n"),
            (["--hint=foo"], 1, 'sbatch: error: unrecognized --hint argument "foo", see '
             "--hint=help\n"),
            (["--mem-bind=map_mem:"], 255, 'sbatch: error: missing list for '
             '"--mem-bind=map_mem:<list>"\n'),
            (["-n4", "-N1", "--ntasks-per-socket=1"], 1, "sbatch: error: Batch job submission "
             "failed: Requested node configuration is not available\n")]:
        r = c.run(["sbatch", *args, "--wrap", "true"], user=USER)
        assert (r.rc, r.err) == (rc, err), (args, r)


def test_cli_srun_arbitrary_allocation(c):
    """srun -m arbitrary outside a job: the job gets each named node once
    and a task per name; task i runs on the i-th name (-w, SLURM_HOSTFILE)."""
    r = c.run(["srun", "-l", "-m", "arbitrary", "-w", "n2,n1,n1", "printenv", "SLURMD_NODENAME"],
              user=USER)
    assert r.rc == 0, r
    assert labelled(r.out) == {0: "n2", 1: "n1", 2: "n1"}, r
    hostfile = os.path.join(c.workdir(USER), "hosts2")
    with open(hostfile, "w") as f:
        f.write("n2\nn1\nn2\n")
    r = c.run(f"SLURM_HOSTFILE={hostfile} srun -l -m arbitrary printenv SLURMD_NODENAME", user=USER)
    assert r.rc == 0, r
    assert labelled(r.out) == {0: "n2", 1: "n1", 2: "n2"}, r


def test_cli_sbatch_arbitrary(c):
    """sbatch -m arbitrary with SLURM_HOSTFILE: the job gets those nodes;
    srun inside puts task i on the file's i-th line."""
    wd = c.workdir(USER)
    hostfile = os.path.join(wd, "hosts3")
    with open(hostfile, "w") as f:
        f.write("n2\nn1\nn1\n")
    path = os.path.join(wd, "arb.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho DIST=$SLURM_DISTRIBUTION\n"
                "srun -l printenv SLURMD_NODENAME | sed 's/^/S /'\n")
    pw = pwd.getpwnam(USER)
    os.chown(path, pw.pw_uid, pw.pw_gid)
    r = c.run(f"SLURM_HOSTFILE={hostfile} sbatch --parsable -m arbitrary -o {path}.out {path}",
              user=USER)
    assert r.rc == 0, r
    assert c.wait_done(int(r.out.strip().split(";")[0])) == "COMPLETED"
    with open(path + ".out") as f:
        out = f.read()
    assert "DIST=arbitrary" in out, out
    tasks = {int(m.group(1)): m.group(2) for m in re.finditer(r"^S (\d+): (\S+)$", out, re.M)}
    assert tasks == {0: "n2", 1: "n1", 2: "n1"}, out
