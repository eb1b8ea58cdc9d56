"""MPI programs started by srun across the nodes of a herd up cluster: Debian's
MPICH (PMI-1/PMI-2 served by herdstepd, the fence relayed through srun) and
Open MPI (a PMIx server on libpmix), `srun -N4 -n8`, hello world with ranks
and hostnames and an allreduce whose sum proves the ranks exchanged data;
also from a batch script, and as an ordinary user.  The programs are
tests/unit/mpi/*.c, built by the Makefile with each MPI's compiler."""
import os
import re
import shutil

import pytest

from conftest import BIN

MPI_DIR = os.path.join(os.path.dirname(BIN), "tests", "mpi")
# Open MPI as root, over TCP on the loopback interface: the "nodes" of a
# herd up cluster are one machine, which Open MPI's shared-memory transport
# (vader) mistakes for one node and crashes in (doc/mpi.md).  Given in srun's
# environment, which srun passes on (--export=ALL): --export's list is split
# on commas, which these values contain.
OMPI_ENV = ["OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl=self,tcp",
            "OMPI_MCA_pml=ob1", "OMPI_MCA_btl_tcp_if_include=lo"]


def program(cluster, mpi, name, user=None):
    src = os.path.join(MPI_DIR, mpi, name)
    if not os.path.exists(src):
        pytest.skip(f"{src} was not built: no {mpi} compiler on this machine")
    dst_dir = os.path.join(cluster.workdir(user), "mpi", mpi)
    os.makedirs(dst_dir, exist_ok=True)
    dst = os.path.join(dst_dir, name)
    shutil.copy(src, dst)
    os.chmod(dst, 0o755)
    for d in (os.path.dirname(dst_dir), dst_dir):
        os.chmod(d, 0o755)
    return dst


def srun_mpi(cluster, mpi, kind, prog, user=None, nodes=4, tasks=8):
    args = [os.path.join(BIN, "srun"), f"-N{nodes}", f"-n{tasks}", f"--mpi={kind}", "-t", "2:00"]
    env = ["env"] + (OMPI_ENV if mpi == "openmpi" else [])
    return cluster.run(env + args + [prog], user=user, timeout=120)


def ranks(out, word):
    found = {}
    for m in re.finditer(rf"^{word} rank (\d+) size (\d+) (.*)$", out, re.M):
        found[int(m.group(1))] = (int(m.group(2)), m.group(3))
    return found


@pytest.mark.parametrize("mpi,kind", [("mpich", "pmi2"), ("openmpi", "pmix")])
def test_hello_across_four_nodes(cluster, mpi, kind):
    prog = program(cluster, mpi, "hello")
    r = srun_mpi(cluster, mpi, kind, prog)
    assert r.rc == 0, r
    got = ranks(r.out, "hello")
    assert sorted(got) == list(range(8)), r
    assert all(size == 8 for size, _ in got.values()), r
    assert all(rest.startswith("host ") for _, rest in got.values()), r


@pytest.mark.parametrize("mpi,kind", [("mpich", "pmi2"), ("openmpi", "pmix")])
def test_allreduce_across_four_nodes(cluster, mpi, kind):
    prog = program(cluster, mpi, "allreduce")
    r = srun_mpi(cluster, mpi, kind, prog)
    assert r.rc == 0, r
    got = ranks(r.out, "allreduce")
    assert sorted(got) == list(range(8)), r
    assert all(rest == "sum 36 ok" for _, rest in got.values()), r


def test_mpi_in_a_batch_script_as_a_user(cluster):
    """The way people run MPI: sbatch -N4 -n8 with srun inside, as themselves;
    sacct then shows the step with its 8 tasks."""
    prog = program(cluster, "mpich", "allreduce", user="herdu1")
    wd = cluster.workdir("herdu1")
    job = cluster.sbatch("-N4", "-n8", "-t", "2:00", "-o", "mpi-%j.out", "--wrap",
                         f"srun --mpi=pmi2 {prog}", user="herdu1", cwd=wd)
    assert cluster.wait_done(job, timeout=120) == "COMPLETED", cluster.show_job(job)
    with open(os.path.join(wd, f"mpi-{job}.out")) as f:
        out = f.read()
    got = ranks(out, "allreduce")
    assert sorted(got) == list(range(8)) and all(r == "sum 36 ok" for _, r in got.values()), out
    r = cluster.run(["sacct", "-n", "-P", "-j", f"{job}.0", "-o", "JobID,State,NTasks,NNodes"])
    assert r.out.split() == [f"{job}.0|COMPLETED|8|4"], r


def test_one_rank_failing_sets_srun_exit_code(cluster):
    """Rank 3 exits 7 after a clean MPI run: srun's exit code is 7 and its
    error line names the task."""
    prog = program(cluster, "mpich", "hello")
    r = cluster.run(["srun", "-N2", "-n4", "--mpi=pmi2", "sh", "-c",
                     f'{prog} >/dev/null; [ "$SLURM_PROCID" != 3 ] || exit 7'], timeout=120)
    assert r.rc == 7, r
    assert re.search(r"srun: error: n\d: task 3: Exited with exit code 7", r.err), r


@pytest.mark.parametrize("mpi,kind", [("mpich", "pmi2"), ("openmpi", "pmix")])
def test_one_mpi_world_over_heterogeneous_components(cluster, mpi, kind):
    """srun A : B, a heterogeneous job's two components (one node with two
    ranks, two nodes with a rank each), is one MPI_COMM_WORLD: four ranks,
    each sees size 4, and the allreduce over all of them sums right (Slurm's
    heterogeneous_jobs.html: one srun's components share one world)."""
    prog = program(cluster, mpi, "allreduce")
    env = ["env"] + (OMPI_ENV if mpi == "openmpi" else [])
    r = cluster.run(env + [os.path.join(BIN, "srun"), f"--mpi={kind}", "-t", "2:00", "-N1", "-n2", prog,
                           ":", "-N2", "-n2", prog], timeout=120)
    assert r.rc == 0, r
    got = ranks(r.out, "allreduce")
    assert sorted(got) == list(range(4)), r
    assert all(rest == "sum 10 ok" for _, rest in got.values()), r
