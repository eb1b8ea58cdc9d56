"""`herd up` and `herd down` themselves: the environment they print, two
clusters side by side, a second `up` in a running directory, and `down`
stopping exactly one cluster's processes."""
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest

from conftest import (HERD, BIN, Cluster, make_root, processes_naming, processes_with_conf,
                      read_conf, stop_cluster, stop_clusters)


@pytest.fixture(scope="module")
def pair(users):
    a, b = Cluster(make_root(), 2), Cluster(make_root(), 2)
    try:
        a.up()
        b.up()
        yield a, b
    finally:
        stop_clusters(a, b)


def test_up_prints_environment(pair):
    a, _ = pair
    out = a.up_result.out
    assert f"export HERD_CONF='{a.conf}'\n" in out
    # the cluster's own copy of the programs, which every user can run
    assert f"export PATH='{a.dir}/bin':\"$PATH\"\n" in out
    # The output is meant for eval: a shell that evals it finds the cluster.
    r = subprocess.run(["/bin/sh", "-c", f'eval "$1"; echo "$HERD_CONF"; command -v sbatch',
                        "sh", out], capture_output=True, text=True)
    assert r.stdout.split() == [a.conf, os.path.join(a.dir, "bin", "sbatch")]
    for name in ("herd", "herdctld", "herdd", "herdstepd", "sbatch", "srun", "squeue"):
        st = os.stat(os.path.join(a.dir, "bin", name))
        assert st.st_mode & 0o7777 == 0o755, name
    assert os.stat(os.path.join(a.dir, "bin")).st_mode & 0o777 == 0o755
    # the daemons run from there too
    assert os.readlink(f"/proc/{a.ctld_pid()}/exe") == os.path.join(a.dir, "bin", "herdctld")


def test_up_from_a_private_directory(users):
    """herd built inside a 0700 directory (a clone in `mktemp -d`, root's
    home): the cluster's users still run its commands, through the PATH
    `herd up` prints, in a job and in its steps."""
    private = tempfile.mkdtemp(prefix="herd-private-")   # 0700
    assert os.stat(private).st_mode & 0o077 == 0
    shutil.copytree(BIN, os.path.join(private, "bin"))
    c = Cluster(make_root(), 2)
    try:
        p = subprocess.run([os.path.join(private, "bin", "herd"), "up", "--nodes", "2",
                            "--dir", c.dir], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p
        c.kv, c.nodes = read_conf(c.conf)
        user = "herdu1"
        wd = c.workdir(user)
        script = ('eval "$1"; cd "$2" && sbatch --parsable -N 2 -o out-%j.txt '
                  '--wrap "srun hostname; id -un" && squeue -h -o %i >/dev/null && echo ok')
        r = subprocess.run(["runuser", "-u", user, "--", "env", "-i", "PATH=/usr/bin:/bin",
                            "/bin/sh", "-c", script, "sh", p.stdout, wd],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stdout.endswith("ok\n"), r
        job = int(r.stdout.split()[0])
        assert c.wait_done(job) == "COMPLETED"
        with open(os.path.join(wd, f"out-{job}.txt")) as f:
            assert f.read().split()[-1] == user
    finally:
        stop_cluster(c)
    # a cluster inside the private directory itself: only root can use it, said so
    inside = Cluster(private, 1)
    try:
        inside.up()
        assert (f"herd: warning: other users cannot reach {inside.dir}: {private} is mode 0700"
                in inside.up_result.err), inside.up_result
        r = inside.run(["sinfo", "-h", "-o", "%D"], user="herdu1")
        assert r.rc != 0, r
    finally:
        inside.down()
        shutil.rmtree(private, ignore_errors=True)


def test_generated_conf(pair):
    a, b = pair
    kv, nodes = read_conf(a.conf)
    assert [n["NodeName"] for n in nodes] == ["n1", "n2"]
    ports = {int(kv["SlurmctldPort"])} | {int(n["Port"]) for n in nodes}
    assert len(ports) == 3
    assert kv["StateSaveLocation"] == os.path.join(a.dir, "state")
    assert os.stat(kv["StateSaveLocation"]).st_mode & 0o077 == 0
    assert a.name != b.name
    if a.munge_socket:
        key = os.path.join(a.dir, "munge", "munge.key")
        st = os.stat(key)
        assert st.st_mode & 0o777 == 0o400 and st.st_size == 1024
        assert a.munge_socket != b.munge_socket


def test_two_clusters_side_by_side(pair):
    a, b = pair
    for c in pair:
        assert c.ping_ok()
        r = c.run(["sinfo", "-h", "-N", "-o", "%N %t"])
        assert r.rc == 0 and r.out.split() == ["n1", "idle", "n2", "idle"], r
    ja = a.sbatch("-o", "/dev/null", "-H", "--wrap", "true")
    jb = b.sbatch("-o", "/dev/null", "-H", "--wrap", "true")
    # Each controller has its own job IDs and knows nothing of the other's jobs.
    ra = a.run(["squeue", "-h", "-o", "%i"])
    rb = b.run(["squeue", "-h", "-o", "%i"])
    assert str(ja) in ra.out.split() and str(jb) in rb.out.split()
    assert a.run(["scancel", str(ja)]).rc == 0
    assert b.run(["scancel", str(jb)]).rc == 0


def test_up_refuses_a_running_dir(pair):
    a, _ = pair
    r = subprocess.run([HERD, "up", "--nodes", "2", "--dir", a.dir], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert "already runs a cluster" in r.stderr
    assert a.ping_ok()


def test_down_stops_only_its_cluster(users):
    a, b = Cluster(make_root(), 2), Cluster(make_root(), 2)
    try:
        a.up()
        b.up()
        job_id = a.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="herdu1")
        a.wait_state(job_id, "RUNNING")
        a.wait_until("the job's processes", lambda: len(processes_with_conf(a.conf)) > 4)
        assert processes_naming(a.dir + "/")
        r = a.down()
        assert r.rc == 0, r
        assert processes_naming(a.dir + "/") == []
        assert processes_with_conf(a.conf) == []
        assert b.ping_ok()
        assert len(b.daemon_pids("herdd")) == 2
    finally:
        stop_clusters(a, b)
    assert processes_naming(b.dir + "/") == []


def test_up_options(users):
    c = Cluster(make_root(), 1)
    try:
        c.up("--cpus", "3", "--memory", "2000", "--partition", "batch")
        r = c.run(["sinfo", "-h", "-o", "%P %D %c %m %t"])
        assert r.out.split() == ["batch*", "1", "3", "2000", "idle"], r
        job_id = c.sbatch("-n", "3", "-o", "/dev/null", "--wrap", "true")
        assert c.wait_done(job_id) == "COMPLETED"
        assert c.show_job(job_id)["Partition"] == "batch"
    finally:
        stop_cluster(c)


def test_up_again_keeps_the_jobs(users):
    """herd down then herd up in the same directory: same cluster, same jobs."""
    c = Cluster(make_root(), 1)
    try:
        c.up()
        name = c.name
        held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", user="herdu1")
        done = c.sbatch("-o", "/dev/null", "--wrap", "true", user="herdu1")
        assert c.wait_done(done) == "COMPLETED"
        assert c.down().rc == 0
        c.up()
        assert c.name == name
        assert c.job_state(held) == "PENDING"
        assert c.job_state(done) == "COMPLETED"
        assert c.sbatch("-H", "-o", "/dev/null", "--wrap", "true") > done
    finally:
        stop_cluster(c)


def test_up_as_an_ordinary_user(users):
    """Anyone may bring up a cluster: started by herdu1, its daemons run as herdu1
    and run herdu1's jobs as herdu1."""
    root = make_root()
    pw = pwd.getpwnam("herdu1")
    os.chown(root, pw.pw_uid, pw.pw_gid)
    c = Cluster(root, 2)
    try:
        c.up(user="herdu1")
        owners = {os.stat(f"/proc/{pid}").st_uid for pid in c.daemon_pids("herdd") + [c.ctld_pid()]}
        assert owners == {pw.pw_uid}
        out = os.path.join(c.workdir("herdu1"), "who-%j")
        job_id = c.sbatch("-N", "2", "-o", out, "--wrap", "id -un; echo $SLURM_JOB_NODELIST",
                          user="herdu1")
        assert c.wait_done(job_id) == "COMPLETED", c.show_job(job_id)
        with open(out.replace("%j", str(job_id))) as f:
            assert f.read() == "herdu1\nn[1-2]\n"
    finally:
        stop_cluster(c)


def test_usage_errors():
    r = subprocess.run([HERD, "up", "--dir", "/tmp/x"], capture_output=True, text=True)
    assert r.returncode == 2 and "--nodes" in r.stderr
    r = subprocess.run([HERD, "up", "--nodes", "0", "--dir", "/tmp/x"], capture_output=True,
                       text=True)
    assert r.returncode == 2
    r = subprocess.run([HERD, "down"], capture_output=True, text=True)
    assert r.returncode == 2
    r = subprocess.run([HERD, "sim"], capture_output=True, text=True)
    assert r.returncode == 1 and \
        r.stderr.startswith("herd sim: error: --swf FILE or --jobs FILE is required")
    r = subprocess.run([HERD, "bogus"], capture_output=True, text=True)
    assert r.returncode == 2
