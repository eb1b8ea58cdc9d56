"""Declared generic resources (doc/gres.md section 1, issue 16): `herd up
--gpus` (fake device files, gres.conf, GresTypes, Gres=), gres.conf parsed
by herdd and reported to the controller, shown as Slurm 22.05 shows them
(scontrol show node Gres=/-d GresUsed=, sinfo %G and -O GresUsed),
AutoDetect=nvml through the fake NVML (types, device files, cores,
NVLinks), a node reporting fewer GPUs than declared drained with Slurm's
reason, and a Gres= name outside GresTypes or a bad gres.conf refused.
Two clusters: 2 nodes from gres.conf, 1 node from the fake NVML."""
import errno
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile

import pytest

from conftest import BIN, Cluster, make_root, stop_cluster
from test_frames import NODE_INFO, Wire, exchange


def start(nodes, *args):
    root = make_root()
    cl = Cluster(root, nodes)
    try:
        cl.up("--cpus", "4", *args)
    except Exception:
        cl.down()
        shutil.rmtree(root, ignore_errors=True)
        raise
    return cl


@pytest.fixture(scope="module")
def c(users):
    cl = start(2, "--gpus", "2", "--gpu-type", "h100")
    try:
        yield cl
    finally:
        stop_cluster(cl)


@pytest.fixture(scope="module")
def nv(users):
    cl = start(1, "--gpus", "2", "--gpu-nvml")
    try:
        yield cl
    finally:
        stop_cluster(cl)


def node_info(cl, name):
    reply = exchange(cl.port, Wire(cl).request(NODE_INFO))
    assert reply["rc"] == 0, reply
    return next(n for n in reply["nodes"] if n["name"] == name)


def show(cl, node, *flags):
    r = cl.run(["scontrol", *flags, "show", "node", node])
    assert r.rc == 0, r
    return r.out


def field(text, key):
    m = re.search(rf"(?:^|\s){key}=(\S*)", text)
    return m.group(1) if m else None


def edit(path, fn):
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(fn(text))


def reconfigure(cl):
    r = cl.run(["scontrol", "reconfigure"])
    assert r.rc == 0, r


def test_herd_up_gpus(c):
    assert c.kv["GresTypes"] == "gpu"
    assert [n["Gres"] for n in c.nodes] == ["gpu:h100:2", "gpu:h100:2"]
    with open(os.path.join(c.dir, "gres.conf")) as f:
        gres = f.read()
    assert f"NodeName=n2 Name=gpu Type=h100 File={c.dir}/dev/n2/nvidia[0-1]" in gres
    for k in range(2):
        path = f"{c.dir}/dev/n1/nvidia{k}"
        st = os.stat(path)
        if os.geteuid() == 0:
            # The NVIDIA driver's major; with no driver loaded it opens with ENXIO.
            assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 195
            assert os.minor(st.st_rdev) == k
            with pytest.raises(OSError) as e:
                os.open(path, os.O_RDONLY)
            assert e.value.errno == errno.ENXIO
        else:
            assert stat.S_ISREG(st.st_mode)
            assert "fake GPU device files need root" in c.up_result.err

    out = show(c, "n1")
    assert field(out, "Gres") == "gpu:h100:2"
    assert "GresUsed" not in out   # Slurm prints it with -d only
    out = show(c, "n1", "-d")
    assert field(out, "GresDrain") == "N/A"
    assert field(out, "GresUsed") == "gpu:h100:0(IDX:N/A)"
    assert c.run(["sinfo", "-h", "-o", "%G %D"]).out.split() == ["gpu:h100:2", "2"]
    r = c.run(["sinfo", "-h", "-N", "-O", "NodeList,Gres:30,GresUsed:40"])
    assert [line.split() for line in r.out.splitlines()] == [
        ["n1", "gpu:h100:2", "gpu:h100:0(IDX:N/A)"], ["n2", "gpu:h100:2", "gpu:h100:0(IDX:N/A)"]]

    devs = node_info(c, "n2")["gres_devs"]
    assert [(d["name"], d["type"], d["index"], d["file"], d["count"]) for d in devs] == [
        ("gpu", "h100", k, f"{c.dir}/dev/n2/nvidia{k}", 1) for k in range(2)]


def test_gres_conf_cores_shards_shown(c):
    """Cores= gives the sockets Slurm shows; a declared name without a
    gres.conf line (shard) counts as declared."""
    edit(c.conf, lambda t: re.sub(
        r"(NodeName=\S+ .*CPUs=4) .*Gres=gpu:h100:2",
        r"\1 Sockets=2 CoresPerSocket=2 ThreadsPerCore=1 Gres=gpu:h100:2,shard:8",
        t.replace("GresTypes=gpu", "GresTypes=gpu,shard")))
    d = f"{c.dir}/dev"
    with open(os.path.join(c.dir, "gres.conf"), "w") as f:
        f.write(f"NodeName=n1 Name=gpu Type=h100 File={d}/n1/nvidia0 Cores=0-1\n"
                f"NodeName=n1 Name=gpu Type=h100 File={d}/n1/nvidia1 Cores=2-3 Links=-1,4\n"
                f"NodeName=n[1-2] Name=shard Count=8\n"
                f"NodeName=n2 Name=gpu Type=h100 File={d}/n2/nvidia[0-1] Cores=0-1\n")
    reconfigure(c)
    c.wait_until("Cores= shown", lambda: field(show(c, "n1"), "Gres") ==
                 "gpu:h100:2(S:0-1),shard:8")
    c.wait_until("n2's", lambda: field(show(c, "n2"), "Gres") == "gpu:h100:2(S:0),shard:8")
    assert field(show(c, "n1", "-d"), "GresUsed") == "gpu:h100:0(IDX:N/A),shard:0"
    assert sorted(c.run(["sinfo", "-h", "-N", "-o", "%N %G"]).out.splitlines()) == [
        "n1 gpu:h100:2(S:0-1),shard:8", "n2 gpu:h100:2(S:0),shard:8"]
    devs = node_info(c, "n1")["gres_devs"]
    assert [(x["name"], x["index"], x["cores"], x["links"], x["count"]) for x in devs] == [
        ("gpu", 0, "0-1", "", 1), ("gpu", 1, "2-3", "-1,4", 1), ("shard", 0, "", "", 8)]
    assert "DRAIN" not in field(show(c, "n1"), "State")


def test_fewer_gpus_than_declared_drains(c):
    edit(os.path.join(c.dir, "gres.conf"),
         lambda t: t.replace("n2/nvidia[0-1]", "n2/nvidia1"))
    reconfigure(c)
    c.wait_until("n2 drained", lambda: "DRAIN" in field(show(c, "n2"), "State"))
    out = show(c, "n2")
    assert field(out, "State") == "IDLE+DRAIN"
    assert re.search(r"Reason=gres/gpu count reported lower than configured \(1 < 2\) "
                     r"\[root@\S+\]", out), out
    r = c.run(["sinfo", "-h", "-R", "-o", "%N|%E"])
    assert "n2|gres/gpu count reported lower than configured (1 < 2)" in r.out.splitlines()
    assert "DRAIN" not in field(show(c, "n1"), "State")
    # Put right and resumed by the administrator, as in Slurm.
    edit(os.path.join(c.dir, "gres.conf"),
         lambda t: t.replace("n2/nvidia1", "n2/nvidia[0-1]"))
    reconfigure(c)
    c.wait_until("n2's report", lambda: len(node_info(c, "n2")["gres_devs"]) == 3)
    assert c.run(["scontrol", "update", "nodename=n2", "state=resume"]).rc == 0
    assert field(show(c, "n2"), "State") == "IDLE"


def test_autodetect_nvml(nv):
    """The fake NVML's GPUs: their type from the product name, device files,
    CPU affinity as cores, NVLinks as Slurm's Links."""
    with open(os.path.join(nv.dir, "gres.conf")) as f:
        assert "AutoDetect=nvml" in f.read()
    devs = node_info(nv, "n1")["gres_devs"]
    assert [(d["type"], d["file"]) for d in devs] == [
        ("nvidia_fake_gpu", f"{nv.dir}/dev/n1/nvidia{k}") for k in range(2)]
    assert field(show(nv, "n1"), "Gres") == "gpu:2"

    with open(os.path.join(nv.dir, "dev", "n1", "nvml.conf"), "w") as f:
        f.write("name=NVIDIA H100 80GB HBM3;minor=0;cpus=0-1;nvlink=1,1\n"
                "name=NVIDIA H100 80GB HBM3;minor=1;cpus=2-3;nvlink=0,0\n")
    edit(nv.conf, lambda t: re.sub(r"(NodeName=n1 .*CPUs=4) .*Gres=gpu:2",
                                   r"\1 Sockets=2 CoresPerSocket=2 ThreadsPerCore=1 Gres=gpu:h100:2",
                                   t))
    reconfigure(nv)
    nv.wait_until("H100s", lambda: node_info(nv, "n1")["gres_devs"][0]["type"] ==
                  "nvidia_h100_80gb_hbm3")
    devs = node_info(nv, "n1")["gres_devs"]
    assert [(d["index"], d["file"], d["cores"], d["links"]) for d in devs] == [
        (0, f"{nv.dir}/dev/n1/nvidia0", "0-1", "-1,2"),
        (1, f"{nv.dir}/dev/n1/nvidia1", "2-3", "2,-1")]
    # "h100" names the detected type as Slurm matches it: a substring.
    out = show(nv, "n1")
    assert field(out, "Gres") == "gpu:h100:2(S:0-1)"
    assert field(out, "State") == "IDLE"

    with open(os.path.join(nv.dir, "dev", "n1", "nvml.conf"), "w") as f:
        f.write("name=NVIDIA H100 80GB HBM3\n")
    reconfigure(nv)
    nv.wait_until("n1 drained", lambda: "DRAIN" in field(show(nv, "n1"), "State"))
    assert "Reason=gres/gpu count reported lower than configured (1 < 2)" in show(nv, "n1")


def test_autodetect_nvml_mig(nv):
    """A GPU in MIG mode is its MIG instances, each a GPU of its own: the
    parent's device file and its two nvidia-caps devices (the driver's
    minors table)."""
    d = os.path.join(nv.dir, "dev", "n1")
    with open(os.path.join(d, "mig-minors"), "w") as f:
        f.write("gpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\n"
                "gpu0/gi2/access 21\ngpu0/gi2/ci0/access 22\n")
    with open(os.path.join(d, "nvml.conf"), "w") as f:
        f.write("name=NVIDIA H100 80GB HBM3;cpus=0-1;mig=1g.10gb,3g.40gb\n"
                "name=NVIDIA H100 80GB HBM3;cpus=2-3\n")
    reconfigure(nv)
    nv.wait_until("the MIG instances", lambda: len(node_info(nv, "n1")["gres_devs"]) == 3)
    devs = node_info(nv, "n1")["gres_devs"]
    assert [(x["index"], x["type"], x["file"], x["cores"]) for x in devs] == [
        (0, "nvidia_h100_80gb_hbm3_mig_1g.10gb",
         f"{d}/nvidia0,{d}/nvidia-caps/nvidia-cap12,{d}/nvidia-caps/nvidia-cap13", "0-1"),
        (1, "nvidia_h100_80gb_hbm3_mig_3g.40gb",
         f"{d}/nvidia0,{d}/nvidia-caps/nvidia-cap21,{d}/nvidia-caps/nvidia-cap22", "0-1"),
        (2, "nvidia_h100_80gb_hbm3", f"{d}/nvidia1", "2-3")]


def test_herd_up_finds_this_machines_gpus(users):
    """Without --gpus, herd up gives every node the GPUs NVML reports (here
    the fake's, named by HERD_NVML_LIBRARY in herd up's environment, which
    the node daemons inherit)."""
    root = make_root()
    gpus = os.path.join(root, "nvml.conf")
    with open(gpus, "w") as f:
        f.write("name=NVIDIA H200;cpus=0-1\nname=NVIDIA H200;cpus=2-3\n")
    cl = Cluster(root, 1)
    try:
        cl.up("--cpus", "4", env={"HERD_NVML_LIBRARY": os.path.join(
            os.path.dirname(BIN), "lib", "fake-nvml", "libnvidia-ml.so.1"),
            "HERD_FAKE_NVML": gpus})
        assert "NVML reports 2 GPUs here" in cl.up_result.err
        assert cl.kv["GresTypes"] == "gpu" and cl.nodes[0]["Gres"] == "gpu:nvidia_h200:2"
        with open(os.path.join(cl.dir, "gres.conf")) as f:
            assert "AutoDetect=nvml" in f.read()
        out = show(cl, "n1")
        assert field(out, "Gres") == "gpu:nvidia_h200:2(S:0-3)" and field(out, "State") == "IDLE"
        assert [d["file"] for d in node_info(cl, "n1")["gres_devs"]] == ["/dev/nvidia0",
                                                                        "/dev/nvidia1"]
    finally:
        stop_cluster(cl)


def conf_copy(cl, tmp, fn):
    """The cluster's herd.conf changed by fn, in tmp, apart from its state."""
    with open(cl.conf) as f:
        text = f.read()
    text = re.sub(r"(?m)^(StateSaveLocation|SlurmdSpoolDir|SlurmctldLogFile|SlurmdLogFile)=.*\n",
                  "", text)
    text = re.sub(r"(?m)^SlurmctldPort=.*$", "SlurmctldPort=1", text)
    text += f"StateSaveLocation={tmp}/state\nSlurmdSpoolDir={tmp}/spool\n"
    path = os.path.join(tmp, "herd.conf")
    with open(path, "w") as f:
        f.write(fn(text))
    return path


def test_gres_outside_gres_types_stops_the_controller(c):
    tmp = tempfile.mkdtemp(prefix="herd-gres-")
    try:
        path = conf_copy(c, tmp, lambda t: t.replace("Gres=gpu:h100:2,shard:8",
                                                     "Gres=gpu:h100:2,foo:1", 1))
        p = subprocess.run([os.path.join(BIN, "herdctld"), "-D", "-f", path],
                           capture_output=True, text=True, timeout=20)
        assert p.returncode == 1
        assert p.stderr.strip() == (f"herdctld: error: {path}: Invalid GRES configured on node "
                                    "n1: foo:1 (gres/foo is not in GresTypes=gpu,shard)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_bad_gres_conf_stops_herdd(c):
    tmp = tempfile.mkdtemp(prefix="herd-gres-")
    try:
        path = conf_copy(c, tmp, lambda t: t)
        with open(os.path.join(tmp, "gres.conf"), "w") as f:
            f.write("# ok\nNodeName=n1 Name=gpu File=/dev/nvidia[0-1] Count=3\n")
        p = subprocess.run([os.path.join(BIN, "herdd"), "-D", "-N", "n1", "-f", path],
                           capture_output=True, text=True, timeout=20)
        assert p.returncode == 1
        assert p.stderr.strip().endswith(
            f"herdd: error: {tmp}/gres.conf:2: Count=3 does not match the 2 device files of "
            "File=/dev/nvidia[0-1]"), p.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
