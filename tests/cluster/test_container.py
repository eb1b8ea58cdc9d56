"""--container (sbatch, srun, salloc): tasks run inside the user's OCI bundle
through runc or crun, rootless as the job's user, configured by oci.conf
beside herd.conf (doc/containers.md).  The bundle is a busybox-static rootfs
with a marker file the host does not have, built per test in a directory
the test user owns."""
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import BIN, start_cluster, stop_cluster

USER = "herdu1"
OTHER = "herdu2"
MARKER = "herd-container-marker-7d1c"
BUSYBOX = shutil.which("busybox") or "/bin/busybox"


def busybox_static():
    """A statically linked busybox (busybox-static), or None."""
    if not os.path.exists(BUSYBOX):
        return None
    out = subprocess.run(["file", "-L", BUSYBOX], capture_output=True, text=True).stdout \
        if shutil.which("file") else ""
    if out and "statically linked" not in out and "static-pie" not in out:
        return None
    return BUSYBOX


def make_bundle(path, owner):
    """An OCI bundle at path: rootfs with busybox and /etc/herd-marker, and a
    rootless config.json (what `runc spec --rootless` writes, trimmed), all
    owned by owner."""
    pw = pwd.getpwnam(owner)
    rootfs = os.path.join(path, "rootfs")
    for d in ("bin", "etc", "tmp", "proc", "dev", "sys"):
        os.makedirs(os.path.join(rootfs, d), exist_ok=True)
    shutil.copy(busybox_static(), os.path.join(rootfs, "bin", "busybox"))
    for cmd in ("sh", "cat", "echo", "ls", "id", "sleep", "env", "true", "false"):
        link = os.path.join(rootfs, "bin", cmd)
        if not os.path.lexists(link):
            os.symlink("busybox", link)
    with open(os.path.join(rootfs, "etc", "herd-marker"), "w") as f:
        f.write(MARKER + "\n")
    config = {
        "ociVersion": "1.0.2",
        "process": {"terminal": False, "user": {"uid": 0, "gid": 0}, "args": ["sh"],
                    "env": ["PATH=/bin"], "cwd": "/", "noNewPrivileges": True},
        "root": {"path": "rootfs", "readonly": True},
        "hostname": "herdbox",
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
            {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
             "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
        ],
        "linux": {
            # made by someone else: herdstepd maps the job's user itself
            "uidMappings": [{"containerID": 0, "hostID": 4242, "size": 1}],
            "gidMappings": [{"containerID": 0, "hostID": 4242, "size": 1}],
            "namespaces": [{"type": t} for t in ("pid", "ipc", "uts", "mount", "user")],
            "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"],
        },
    }
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    for d, dirs, files in os.walk(path):
        os.lchown(d, pw.pw_uid, pw.pw_gid)
        for name in dirs + files:
            os.lchown(os.path.join(d, name), pw.pw_uid, pw.pw_gid)
    os.chmod(path, 0o755)
    return path


def runtime_conf(runtime, state):
    """oci.conf for runtime (runc or crun) with its state under state/UID."""
    flags = "--rootless=true"
    if runtime == "crun":
        flags += " --cgroup-manager=disabled"
    root = f"--root={state}/%U"
    return "\n".join([
        "# written by test_container.py",
        'EnvExclude="^(HERD_CONF|SLURM_CONF)="',
        f'RunTimeQuery="{runtime} {flags} {root} state %n.%u.%j.%s.%t"',
        f'RunTimeKill="{runtime} {flags} {root} kill -a %n.%u.%j.%s.%t"',
        f'RunTimeDelete="{runtime} {flags} {root} delete --force %n.%u.%j.%s.%t"',
        f'RunTimeRun="{runtime} {flags} {root} run %n.%u.%j.%s.%t -b %b"',
        "",
    ])


def probe_runtime(tmp):
    """The first of runc, crun that runs the test bundle rootless as USER
    here, or (None, why) when neither can (no user namespaces, ...)."""
    if not busybox_static():
        return None, "no static busybox (apt-get install busybox-static)"
    pw = pwd.getpwnam(USER)
    bundle = make_bundle(os.path.join(tmp, "probe"), USER)
    cfg_path = os.path.join(bundle, "config.json")
    with open(cfg_path) as f:
        cfg = json.load(f)
    cfg["process"]["args"] = ["cat", "/etc/herd-marker"]
    cfg["linux"]["uidMappings"][0]["hostID"] = pw.pw_uid
    cfg["linux"]["gidMappings"][0]["hostID"] = pw.pw_gid
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    state = os.path.join(tmp, "probe-state")
    os.makedirs(state, exist_ok=True)
    os.chmod(state, 0o1777)
    why = []
    for runtime in ("runc", "crun"):
        exe = shutil.which(runtime) or shutil.which(runtime, path="/usr/sbin:/usr/bin:/sbin")
        if not exe:
            why.append(f"{runtime}: not installed")
            continue
        flags = ["--rootless=true"] + (["--cgroup-manager=disabled"] if runtime == "crun" else [])
        p = subprocess.run(["runuser", "-u", USER, "--", exe, *flags,
                            f"--root={state}/{runtime}-{pw.pw_uid}", "run", "-b", bundle,
                            f"probe-{os.getpid()}"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if p.returncode == 0 and MARKER in p.stdout:
            return exe, None
        why.append(f"{runtime}: {p.stderr.strip()[:200]}")
    return None, "; ".join(why)


@pytest.fixture(scope="module")
def oci(users):
    """A cluster with oci.conf for the first runtime that works here, and
    a temp dir for bundles.  Skips only when no runtime can run a rootless
    container on this machine, saying why."""
    tmp = tempfile.mkdtemp(prefix="herd-oci-", dir="/tmp")
    os.chmod(tmp, 0o755)
    runtime, why = probe_runtime(tmp)
    if not runtime:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"no OCI runtime can run a rootless container here: {why}")
    c = start_cluster(2)
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    os.chmod(state, 0o1777)
    conf = os.path.join(os.path.dirname(c.conf), "oci.conf")
    with open(conf, "w") as f:
        f.write(runtime_conf(runtime, state))
    c.oci_conf = conf
    c.oci_text = runtime_conf(runtime, state)
    c.tmp = tmp
    c.bundle = make_bundle(os.path.join(tmp, "bundle"), USER)
    try:
        yield c
    finally:
        stop_cluster(c)
        shutil.rmtree(tmp, ignore_errors=True)


def test_srun_runs_the_task_in_the_bundle(oci):
    """srun --container: the task sees the bundle's root (its marker file,
    busybox), not the host's; output and the exit code come back as for
    any task."""
    r = oci.run(["srun", f"--container={oci.bundle}", "cat", "/etc/herd-marker"], user=USER)
    assert r.rc == 0, r
    assert r.out == MARKER + "\n", r
    assert not os.path.exists("/etc/herd-marker")
    # the host's root is not there: its /usr is absent in the bundle
    r = oci.run(["srun", f"--container={oci.bundle}", "sh", "-c",
                 "ls /usr >/dev/null 2>&1 && echo host || echo bundle; exit 3"], user=USER)
    assert r.rc == 3, r
    assert r.out == "bundle\n", r
    assert "task 0: Exited with exit code 3" in r.err, r


def test_srun_container_task_env_and_stdin(oci):
    """The task's environment (SLURM_*, SLURM_CONTAINER) is the container's,
    EnvExclude drops what oci.conf names; stdin reaches the task; each of
    several tasks runs in its own container, as the job's user."""
    r = oci.run(["srun", "-n2", f"--container={oci.bundle}", "sh", "-c",
                 "echo $SLURM_PROCID:$SLURM_CONTAINER:${HERD_CONF:-none}:$(id -u)"],
                user=USER)
    assert r.rc == 0, r
    lines = sorted(r.out.split())
    assert lines == [f"0:{oci.bundle}:none:0", f"1:{oci.bundle}:none:0"], r
    r = oci.run(["srun", f"--container={oci.bundle}", "cat"], user=USER, input="through stdin\n")
    assert r.rc == 0 and r.out == "through stdin\n", r


def test_sbatch_container_runs_the_script_in_the_bundle(oci):
    """sbatch --container: the batch script runs in the bundle (from the
    spool directory mounted at MountSpoolDir); its output lands in the
    output file; scontrol and sacct show the container; the exit code is
    the job's."""
    work = oci.workdir(USER)
    script = os.path.join(work, "ctr.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ncat /etc/herd-marker\necho \"script=$0 c=$SLURM_CONTAINER\"\nexit 5\n")
    os.chmod(script, 0o755)
    out = os.path.join(work, "ctr.out")
    job = oci.sbatch(f"--container={oci.bundle}", "-o", out, script, user=USER)
    assert oci.wait_done(job) == "FAILED"
    with open(out) as f:
        text = f.read()
    assert text.splitlines()[0] == MARKER, text
    assert f"script=/var/run/slurm/slurm_script c={oci.bundle}" in text, text
    info = oci.show_job(job)
    assert info["Container"] == oci.bundle
    assert info["ExitCode"] == "5:0"
    r = oci.run(["scontrol", "show", "job", str(job)])
    assert f"\n   Container={oci.bundle}\n" in r.out, r
    r = oci.run(["sacct", "-j", str(job), "-n", "-P", "-o", "JobID,Container"])
    assert f"{job}|{oci.bundle}" in r.out.splitlines(), r


def test_refuses_a_link_and_another_users_bundle(oci):
    """The bundle must be the user's (or root's) and not a symbolic link:
    herdstepd reads it as the user with O_NOFOLLOW, and says why not."""
    link = os.path.join(oci.tmp, "link-to-bundle")
    if not os.path.lexists(link):
        os.symlink(oci.bundle, link)
    r = oci.run(["srun", f"--container={link}", "cat", "/etc/herd-marker"], user=USER)
    assert r.rc == 1, r
    assert MARKER not in r.out
    assert f"container bundle {link} is a symbolic link" in r.err, r

    other = make_bundle(os.path.join(oci.tmp, "other"), OTHER)
    r = oci.run(["srun", f"--container={other}", "cat", "/etc/herd-marker"], user=USER)
    assert r.rc == 1, r
    assert MARKER not in r.out
    assert f"container bundle {other} is owned by uid {pwd.getpwnam(OTHER).pw_uid}" in r.err, r

    r = oci.run(["srun", f"--container={oci.tmp}/nosuch", "true"], user=USER)
    assert r.rc == 1 and "No such file or directory" in r.err, r


def test_timeout_kills_and_tears_down_the_container(oci):
    """A container task past its time limit is killed (its init ignores
    SIGTERM: RunTimeKill, then SIGKILL) and deleted: the same container ID
    can run again at once, and nothing of the step is left."""
    start = time.time()
    r = oci.run(["srun", "-t", "0:02", f"--container={oci.bundle}", "sleep", "300"], user=USER,
                timeout=120)
    assert r.rc != 0, r
    assert " CANCELLED AT " in r.err, r
    assert time.time() - start < 60, r
    r = oci.run(["srun", f"--container={oci.bundle}", "echo", "again"], user=USER)
    assert r.rc == 0 and r.out == "again\n", r
    # the generated bundles went with their steps
    spool = os.path.join(oci.dir, "spool")
    left = [os.path.join(d, n) for d, dirs, _ in os.walk(spool) for n in dirs
            if n.startswith("oci-")]
    assert not left, left


def test_without_oci_conf_the_job_is_refused(oci):
    """No oci.conf beside herd.conf: a --container task does not run (on
    the host or anywhere), with Slurm's reason."""
    os.rename(oci.oci_conf, oci.oci_conf + ".off")
    try:
        r = oci.run(["srun", f"--container={oci.bundle}", "echo", "ran"], user=USER)
        assert r.rc == 1, r
        assert "ran" not in r.out
        assert "Container support is not configured" in r.err, r
    finally:
        os.rename(oci.oci_conf + ".off", oci.oci_conf)


def test_a_broken_oci_conf_names_the_line(oci):
    """An unknown key or an inconsistent set of commands in oci.conf: the
    task fails with the file, the line and what is wrong."""
    try:
        with open(oci.oci_conf, "w") as f:
            f.write(oci.oci_text + "NoSuchKey=1\n")
        r = oci.run(["srun", f"--container={oci.bundle}", "true"], user=USER)
        assert r.rc == 1, r
        n = len(oci.oci_text.splitlines()) + 1
        assert f"oci.conf:{n}: unknown key 'NoSuchKey'" in r.err, r
        with open(oci.oci_conf, "w") as f:
            f.write(oci.oci_text + 'RunTimeStart="runc start %n"\n')
        r = oci.run(["srun", f"--container={oci.bundle}", "true"], user=USER)
        assert r.rc == 1, r
        assert "RunTimeRun and RunTimeCreate/RunTimeStart are mutually exclusive" in r.err, r
    finally:
        with open(oci.oci_conf, "w") as f:
            f.write(oci.oci_text)


def create_start_conf(runtime, state, container_path):
    """oci.conf in RunTimeCreate/RunTimeStart mode (RunTimeQuery polls the
    end), with ContainerPath and an environment file the create command
    checks."""
    flags = "--rootless=true" + (" --cgroup-manager=disabled" if "crun" in runtime else "")
    rt = f"{runtime} {flags} --root={state}/%U"
    ident = "%n.%u.%j.%s.%t"
    return "\n".join([
        f"ContainerPath={container_path}/%u/%j.%s.%t",
        "CreateEnvFile=newline",
        "DisableHooks=prestart,poststart",
        f'RunTimeQuery="{rt} state {ident}"',
        # the environment file is there, with the task's variables
        f'RunTimeCreate="grep -q ^SLURM_PROCID= %e && {rt} create --bundle %b {ident}"',
        f'RunTimeStart="{rt} start {ident}"',
        f'RunTimeKill="{rt} kill -a {ident}"',
        f'RunTimeDelete="{rt} delete --force {ident}"',
        "",
    ])


def test_create_start_mode_and_container_path(oci):
    """RunTimeCreate + RunTimeStart (instead of RunTimeRun): the task's
    output and its exit code still come back; the generated bundle goes
    where ContainerPath says, made by the user, and is removed when the
    task ends."""
    runtime = oci.oci_text.split('RunTimeQuery="', 1)[1].split()[0]
    state = os.path.join(oci.tmp, "state")
    where = os.path.join(oci.tmp, "generated")
    os.makedirs(where, exist_ok=True)
    os.chmod(where, 0o1777)
    try:
        with open(oci.oci_conf, "w") as f:
            f.write(create_start_conf(runtime, state, where))
        r = oci.run(["srun", f"--container={oci.bundle}", "sh", "-c",
                     "cat /etc/herd-marker; echo $SLURM_JOB_ID"], user=USER)
        assert r.rc == 0, r
        lines = r.out.split()
        assert lines[0] == MARKER and lines[1].isdigit(), r
        mine = os.path.join(where, USER)
        assert os.path.isdir(mine) and os.stat(mine).st_uid == pwd.getpwnam(USER).pw_uid
        assert os.listdir(mine) == [], os.listdir(mine)   # its task's bundle went
        # the container's exit code is the task's, as in RunTimeRun mode
        r = oci.run(["srun", f"--container={oci.bundle}", "sh", "-c",
                     "cat /etc/herd-marker; exit 3"], user=USER)
        assert r.rc == 3 and r.out == MARKER + "\n", r
        assert "task 0: Exited with exit code 3" in r.err, r
        r = oci.run(["srun", "-n", "2", f"--container={oci.bundle}", "sh", "-c",
                     "exit $((SLURM_PROCID + 4))"], user=USER)
        assert r.rc == 5, r   # srun's: the highest of its tasks'
        assert os.listdir(mine) == [], os.listdir(mine)
        # and the batch script's is the job's
        job = oci.sbatch(f"--container={oci.bundle}", "-o", "/dev/null", "--wrap", "exit 6",
                         user=USER)
        assert oci.wait_done(job) == "FAILED"
        assert oci.show_job(job)["ExitCode"] == "6:0"
    finally:
        with open(oci.oci_conf, "w") as f:
            f.write(oci.oci_text)


def test_salloc_container(oci):
    """salloc --container: as Slurm, only with
    LaunchParameters=use_interactive_step; then the job has the container
    and the command's steps run in it (Slurm runs the command as an
    interactive step in the container; Herd runs it on the submit host
    with SLURM_CONTAINER and SRUN_CONTAINER, which srun reads)."""
    r = oci.run(["salloc", f"--container={oci.bundle}", "true"], user=USER)
    assert r.rc == 1, r
    assert r.err == "salloc: error: --container requires LaunchParameters=use_interactive_step\n", r
    with open(oci.conf) as f:
        saved = f.read()
    try:
        with open(oci.conf, "a") as f:
            f.write("LaunchParameters=use_interactive_step\n")
        r = oci.run(["salloc", "-Q", f"--container={oci.bundle}", "sh", "-c",
                     f'echo "env=$SLURM_CONTAINER"; {os.path.join(BIN, "srun")} cat /etc/herd-marker'],
                    user=USER)
        assert r.rc == 0, r
        assert r.out == f"env={oci.bundle}\n{MARKER}\n", r
    finally:
        with open(oci.conf, "w") as f:
            f.write(saved)


def test_step_container_in_sacct_and_batch_refusal(oci):
    """sacct shows a step's own container; a batch job whose bundle is
    another user's fails, with herdstepd's reason in its output file, and
    its script never runs (on the host or in the bundle)."""
    r = oci.run(["srun", "-J", "ctrstep", f"--container={oci.bundle}", "true"], user=USER)
    assert r.rc == 0, r
    r = oci.run(["sacct", "-u", USER, "-n", "-P", "-o", "JobID,JobName,Container"])
    rows = [line.split("|") for line in r.out.splitlines()]
    steps = [row for row in rows if row[1] == "ctrstep" and row[0].endswith(".0")]
    assert steps and steps[-1][2] == oci.bundle, r

    other = os.path.join(oci.tmp, "other-batch")
    if not os.path.exists(other):
        make_bundle(other, OTHER)
    work = oci.workdir(USER)
    out = os.path.join(work, "refused.out")
    flag = os.path.join(work, "refused.ran")
    job = oci.sbatch(f"--container={other}", "-o", out, "--wrap", f"touch {flag}", user=USER)
    assert oci.wait_done(job) == "FAILED"
    with open(out) as f:
        text = f.read()
    assert f"slurmstepd: error: container bundle {other} is owned by uid" in text, text
    assert not os.path.exists(flag)


@pytest.mark.skipif(not shutil.which("script"), reason="no script(1) to give srun a terminal")
def test_pty_in_the_container(oci):
    """srun --pty --container: task 0 gets a terminal inside the container
    (process.terminal: the runtime's pty over herdstepd's), and its exit
    code comes back."""
    r = oci.run(["script", "-qec", f"{os.path.join(BIN, 'srun')} --pty --container={oci.bundle} "
                 "sh -c 'tty; cat /etc/herd-marker; exit 3'", "/dev/null"], user=USER)
    assert r.rc == 3, r
    assert "/dev/pts/" in r.out and MARKER in r.out, r
