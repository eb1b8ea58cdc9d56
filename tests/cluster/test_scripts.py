"""A directory of real-world batch scripts (tests/cluster/scripts/), written in
the styles of HPC centres' user guides: each is submitted unchanged, as a
user, with `sbatch script`, and must run to COMPLETED and write what its
header says.  A script's header lines:

    # expect-file: NAME    output file, with %j %A %a %x as sbatch fills them
    # expect: REGEX        a line of it must match (several allowed)
    # expect-array: SPEC   it is an array of these tasks; each task's file is checked
    # submit-args: ARGS    sbatch's command line as the tool that wrote it runs
                           it (shell words; @CLUSTER@ is the cluster's name); the
                           script is added unless the words hold --wrap

Scripts 13 on are written as tools generate them (job launchers, workflow
engines, portals, test frameworks): submitted unchanged, they must run.  The
tool makes the directory of its output file first, as each of them does.
"""
import os
import re
import shlex
import shutil

import pytest

from cmd_helpers import read, run_env

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
SCRIPTS = sorted(f for f in os.listdir(HERE) if f.endswith(".sh"))
USER = "herdu1"


def header(path):
    meta = {"expect": []}
    for line in read(path).splitlines():
        m = re.match(r"#\s*submit-args:\s*(.*)$", line)
        if m:
            meta["submit-args"] = m.group(1)
        m = re.match(r"#\s*expect(-file|-array)?:\s*(.*)$", line)
        if m:
            key = "expect" + (m.group(1) or "")
            if key == "expect":
                meta["expect"].append(m.group(2))
            else:
                meta[key] = m.group(2).strip()
    assert "expect-file" in meta and meta["expect"], f"{path}: no expect header"
    return meta


def tasks_of(spec):
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def test_the_directory_is_real():
    assert len(SCRIPTS) >= 12, SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs_unchanged(cluster, users, name):
    c = cluster
    src = os.path.join(HERE, name)
    meta = header(src)
    wd = os.path.join(c.workdir(USER), name[:-3])
    os.makedirs(os.path.join(wd, "sub"), exist_ok=True)
    os.makedirs(os.path.join(wd, os.path.dirname(meta["expect-file"])), exist_ok=True)
    shutil.copy(src, wd)
    with open(os.path.join(wd, "append.log"), "w") as f:
        f.write("earlier line\n")
    for root, dirs, files in os.walk(wd):
        for x in dirs + files:
            shutil.chown(os.path.join(root, x), USER, USER)
    shutil.chown(wd, USER, USER)
    # a variable of the submitter's: only --export=NONE keeps it out
    args = [name]
    if "submit-args" in meta:
        args = shlex.split(meta["submit-args"].replace("@CLUSTER@", c.name))
        if not any(a == "--wrap" or a.startswith("--wrap=") for a in args):
            args.append(name)
    r = run_env(c, {"HERD_TEST_SECRET": "leaked-value"}, ["sbatch"] + args, user=USER, cwd=wd)
    assert r.rc == 0, r
    m = re.fullmatch(r"(?:Submitted batch job )?(\d+)(?:;\S+)?\n", r.out)
    assert m, r
    job = int(m.group(1))
    if "expect-array" in meta:
        c.wait_until(f"array {job} done", lambda: c.run(
            ["squeue", "-h", "-j", str(job)]).out == "", timeout=90)
        states = c.run(["squeue", "-h", "-t", "all", "-j", str(job), "-o", "%T"]).out.split()
        tasks = tasks_of(meta["expect-array"])
        assert states == ["COMPLETED"] * len(tasks), (states, c.logs())
        files = [meta["expect-file"].replace("%A", str(job)).replace("%a", str(t)) for t in tasks]
    else:
        assert c.wait_done(job, timeout=90) == "COMPLETED", c.logs()
        jobname = c.show_job(job)["JobName"]
        files = [meta["expect-file"].replace("%j", str(job)).replace("%x", jobname)]
    for f in files:
        path = os.path.join(wd, f)
        assert os.path.exists(path), (path, os.listdir(wd))
        text = read(path)
        for want in meta["expect"]:
            assert re.search(want, text, re.M), (name, want, text)
