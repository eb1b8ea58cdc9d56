"""Paths a job's user can write, touched by root daemons (doc/steps.md, "Paths
a user can write"): herdstepd's PMIx directory, which root empties at the
step's end, and the job's output and input files.  Each test plays the
hostile user herdu1 and checks that root's files elsewhere survive."""
import os
import shutil
import textwrap

from conftest import BIN


def root_files(cluster, name, count, sub=None):
    """A root-owned directory (0755) of `count` root-owned files (0644),
    optionally one level down in `sub`; returns the directory."""
    top = os.path.join(cluster.root, name)
    shutil.rmtree(top, ignore_errors=True)
    d = os.path.join(top, sub) if sub else top
    os.makedirs(d)
    for p in {top, d}:
        os.chmod(p, 0o755)
    for i in range(count):
        with open(os.path.join(d, f"f{i}"), "w") as f:
            f.write(f"root's {i}\n")
    return top


def surviving(d, count):
    return sum(os.path.exists(os.path.join(d, f"f{i}")) for i in range(count))


def test_pmix_dir_swapped_for_a_link(cluster):
    """The task renames its PMIx directory away and puts a link to a root
    directory in its place: herdstepd, emptying the PMIx directory at the
    step's end, used to follow the link and unlink root's files.  The
    directory is root's now (the rename is refused) and is gone after."""
    victim = root_files(cluster, "victim-top", 5)
    script = (f'd="$PMIX_SERVER_TMPDIR"; echo "tmpdir=$d"; '
              f'if mv "$d" "$d.moved" 2>/dev/null && ln -s {victim} "$d"; then echo swapped; '
              f'else echo refused; fi')
    r = cluster.run(["srun", "-N1", "-n1", "--mpi=pmix", "sh", "-c", script], user="herdu1",
                    timeout=60)
    assert r.rc == 0, r
    tmpdir = r.out.split("tmpdir=", 1)[1].split()[0] if "tmpdir=/" in r.out else ""
    assert tmpdir.startswith("/tmp/herd-pmix."), r
    try:
        assert surviving(victim, 5) == 5, (r, os.listdir(victim))
        assert "refused" in r.out, r
        # herdstepd removes its directory once the step is over.
        assert cluster.wait_until("the PMIx directory removed",
                                  lambda: not os.path.lexists(tmpdir), timeout=15), \
            cluster.logs()
    finally:
        if os.path.islink(tmpdir):
            os.unlink(tmpdir)
        shutil.rmtree(tmpdir + ".moved", ignore_errors=True)


# The task: a big tree in libpmix's data-store directory (the user's), for
# root to be busy in at the step's end; it waits until the racer watches.
TASK = """\
import os, sys, time
ds = os.environ.get("PMIX_DSTORE_21_BASE_PATH") or os.environ["PMIX_DSTORE_ESH_BASE_PATH"]
big = os.path.join(ds, "a", "big")
os.makedirs(big)
for i in range({count}):
    open(os.path.join(big, "f%d" % i), "w").close()
with open("{work}/ds.path", "w") as f:
    f.write(ds)
for _ in range(600):
    if os.path.exists("{work}/racer.ready"):
        break
    time.sleep(0.05)
print("task built", big, flush=True)
"""

# The racer, in the batch script (it outlives the step): as soon as root
# starts deleting in a/big, it swaps a/ for a link to root's directory, so
# that a walk by path names goes on in root's directory.
RACER = """\
import os, time
for _ in range(1200):
    if os.path.exists("{work}/ds.path"):
        break
    time.sleep(0.05)
ds = open("{work}/ds.path").read()
a = os.path.join(ds, "a")
big = os.path.join(a, "big")
first = os.stat(big).st_mtime_ns
open("{work}/racer.ready", "w").close()
what = "no change seen"
deadline = time.time() + 60
while time.time() < deadline:
    try:
        if os.stat(big).st_mtime_ns == first:
            continue
    except OSError:
        pass
    try:
        os.rename(a, a + ".x")
        os.symlink("{victim}", a)
        what = "swapped"
    except OSError as e:
        what = "refused: %s" % e
    break
with open("{work}/racer.out", "w") as f:
    f.write(what + "\\n")
"""


def test_pmix_tree_renamed_during_the_walk(cluster, users):
    """libpmix gives its data-store directory to the tasks' user; a racer of
    the user's renames a subdirectory for a link while root deletes in it.
    The old walk by path names (herdstepd's, and libpmix's own at finalize)
    went on through the link into root's directory."""
    count = 30000
    victim = root_files(cluster, "victim-walk", count, sub="big")
    work = os.path.join(cluster.workdir("herdu1"), "paths-walk")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chown(work, users["herdu1"].pw_uid, users["herdu1"].pw_gid)
    for name, text in (("task.py", TASK), ("racer.py", RACER)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text.format(work=work, count=count, victim=victim))
    batch = textwrap.dedent(f"""\
        #!/bin/sh
        /usr/bin/python3 {work}/racer.py &
        {BIN}/srun -n1 --mpi=pmix /usr/bin/python3 {work}/task.py
        wait
        """)
    job = cluster.sbatch("-N1", "-n1", "-t", "3:00", "-o", f"{work}/out", "--wrap", batch,
                         user="herdu1", cwd=work)
    state = cluster.wait_done(job, timeout=150)
    out = open(os.path.join(work, "out")).read() if os.path.exists(
        os.path.join(work, "out")) else ""
    racer = open(os.path.join(work, "racer.out")).read() if os.path.exists(
        os.path.join(work, "racer.out")) else ""
    try:
        assert state == "COMPLETED", (out, cluster.logs())
        assert "task built" in out, out
        assert surviving(os.path.join(victim, "big"), count) == count, (racer, out)
        # Root took the tree from the user before reading it.
        assert racer.startswith("refused"), (racer, out)
    finally:
        ds = open(os.path.join(work, "ds.path")).read() if os.path.exists(
            os.path.join(work, "ds.path")) else ""
        if ds and os.path.islink(os.path.join(ds, "a")):
            os.unlink(os.path.join(ds, "a"))


def test_output_and_input_links_to_root_files(cluster):
    """Output, error and input files are opened as the user (after the
    switch of identity), so a link to a root file is as good as the file:
    a job cannot write root's file nor read a root-only one."""
    target = root_files(cluster, "victim-out", 2)
    with open(os.path.join(target, "secret"), "w") as f:
        f.write("root only\n")
    os.chmod(os.path.join(target, "secret"), 0o600)
    wd = cluster.workdir("herdu1")
    links = {"out": os.path.join(target, "f0"), "err": os.path.join(target, "f1"),
             "in": os.path.join(target, "secret")}
    for name, dest in links.items():
        p = os.path.join(wd, f"link-{name}")
        if os.path.lexists(p):
            os.unlink(p)
        r = cluster.run(["ln", "-s", dest, p], user="herdu1")
        assert r.rc == 0, r
    job = cluster.sbatch("-o", os.path.join(wd, "link-out"), "--wrap", "echo written",
                         user="herdu1", cwd=wd)
    cluster.wait_done(job)
    job2 = cluster.sbatch("-o", os.path.join(wd, "plain-%j.out"), "-e",
                          os.path.join(wd, "link-err"), "--wrap", "echo written >&2",
                          user="herdu1", cwd=wd)
    cluster.wait_done(job2)
    r = cluster.run(["srun", "-n1", "-o", os.path.join(wd, "link-out"), "echo", "written"],
                    user="herdu1")
    assert r.rc != 0, r
    r = cluster.run(["srun", "-n1", "-i", os.path.join(wd, "link-in"), "cat"], user="herdu1")
    assert r.rc != 0 and "root only" not in r.out, r
    job3 = cluster.sbatch("-i", os.path.join(wd, "link-in"), "-o",
                          os.path.join(wd, "in-%j.out"), "--wrap", "cat", user="herdu1", cwd=wd)
    cluster.wait_done(job3)
    with open(os.path.join(wd, f"in-{job3}.out")) as f:
        assert "root only" not in f.read()
    for i in (0, 1):
        with open(os.path.join(target, f"f{i}")) as f:
            assert f.read() == f"root's {i}\n"
    st = os.stat(os.path.join(target, "f0"))
    assert st.st_uid == 0 and (st.st_mode & 0o777) == 0o644
