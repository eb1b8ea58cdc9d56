"""Each command's own --help and --usage walked against its options (the
job-option table, src/cmd/jobopt_table.c): every option the help names is
one the command reads (with a sample value it parses, then --usage answers:
nothing is submitted, so no cluster is needed), every option the usage
names is in the help, and every option of Slurm's own --help (22.05, kept
in SLURM_HELP below) is read too, never refused as unknown."""
import os
import re
import subprocess

import pytest

from conftest import BIN

COMMANDS = ("sbatch", "salloc", "srun")

# A value each argument placeholder takes (the help's "=..." part).
SAMPLES = {
    "name": "x", "indexes": "1-3", "list": "a", "time": "now+60", "ncpus": "2",
    "directory": "/tmp", "path": "/tmp", "type:jobid[:time]": "afterok:1", "err": "e",
    "out": "o", "in": "/dev/null", "jobname": "j", "names": "ALL", "type": "block",
    "user": "u", "MB": "100", "N": "1", "ntasks": "1", "n": "1", "partition": "p",
    "qos": "q", "minutes": "5", "wckey": "w", "hosts...": "n1",
    "[[R|B]:]num[@time]": "USR1@60", "{append|truncate}": "append", "<yes|no>": "yes",
    "S": "1", "C": "1", "T": "1", "S[:C[:T]]": "1:1:1", "mins": "5", "min[-max[:gov]]": "low",
    "<datatype>=<interval>": "task=30", "flags": "level", "value": "all",
    "hint": "nomultithread", "...": "none", "mcs": "m", "threads": "1", "cores": "1",
    "sec": "5", "id": "1", "program": "/bin/true", "level": "1", "<spec>": "x",
    "[!]list": "a", "<paths>": "/lib", "count[@max-time]": "1", "0|1": "1",
    "secs": "5", "signal": "TERM", "timeout][mode": "10L", "rlimits": "CORE", "off": "off",
    "count": "1", "library": "lz4", "yes|no": "yes", "<dest_path>": "/tmp",
    "user|mcs": "user", "<g|m|n|v>": "g", "size": "2", "opts": "enforce-binding", "command string": "true", "file|fd": "/dev/null", "filename": "/dev/null",
    "<file_name>": "/dev/null", "group_id": "0", "user_id": "0", "=...": "none", "all|first|last": "all", "dist": "block", "value,...": "0",
}
# Options the table refuses by design (topology: issue 17; X11 forwarding):
# read, then refused with a sentence, never "unrecognized".  The GPU/GRES
# options are read (issue 16); a cluster without GresTypes refuses them
# once the command has read its configuration, as Slurm's commands do.
REFUSED = {"segment", "spread-segments", "switches", "x11"}
# Options whose sample needs more than a value: what to give instead.
SPECIAL = {
    "help": None, "usage": None, "version": None,   # they answer themselves
    "mpi": ["--mpi=pmi2"], "nodefile": None, "bbf": None, "uid": None, "gid": None,
    "test-only": ["--test-only"], "wrap": ["--wrap=true"], "mail-type": ["--mail-type=END"],
    "nice": ["--nice=10"], "power": ["--power=level"], "profile": ["--profile=all"],
    "priority": ["--priority=10"], "hint": ["--hint=nomultithread"],
    "tres-per-task": ["--tres-per-task=cpu:1"], "gres-flags": ["--gres-flags=enforce-binding"],
}

# Slurm 22.05's --help of each command (the long names; the anchor's).
SLURM_HELP = {
    "sbatch": """array account bb bbf begin comment cpu-freq cpus-per-task dependency deadline
        delay-boot chdir error export export-file get-user-env gid gres gres-flags hold
        ignore-pbs input job-name no-kill licenses clusters container distribution mail-type
        mail-user mcs-label ntasks nice no-requeue ntasks-per-node nodes output overcommit
        partition parsable power priority profile propagate qos quiet reboot requeue
        oversubscribe core-spec signal spread-job switches thread-spec time time-min uid
        use-min-nodes verbose wait wckey wrap cluster-constraint contiguous constraint
        nodefile mem mincpus reservation tmp nodelist exclude exclusive mem-per-cpu
        sockets-per-node cores-per-socket threads-per-core extra-node-info ntasks-per-core
        ntasks-per-socket cpus-per-gpu gpus gpu-bind gpu-freq gpus-per-node gpus-per-socket
        gpus-per-task mem-per-gpu help usage version""",
    "salloc": """account begin bell bb bbf cpus-per-task comment container cpu-freq delay-boot
        dependency deadline chdir get-user-env gid gres gres-flags hold immediate job-name
        no-kill kill-command licenses clusters distribution mail-type mail-user mcs-label
        ntasks nice no-bell ntasks-per-node nodes overcommit power priority profile
        partition qos quiet reboot oversubscribe signal spread-job switches core-spec
        thread-spec time time-min uid use-min-nodes verbose wckey cluster-constraint
        contiguous constraint nodefile mem mincpus reservation tmp nodelist exclude
        exclusive mem-per-cpu sockets-per-node cores-per-socket threads-per-core
        extra-node-info ntasks-per-core ntasks-per-socket cpus-per-gpu gpus gpu-bind gpu-freq
        gpus-per-node gpus-per-socket gpus-per-task mem-per-gpu help usage version""",
    "srun": """account acctg-freq bb bbf bcast bcast-exclude begin cpus-per-task comment compress
        container cpu-freq dependency deadline delay-boot chdir export error epilog
        preserve-env gres gres-flags hold input immediate jobid job-name no-kill
        kill-on-bad-exit label licenses clusters distribution mail-type mail-user mcs-label
        mpi multi-prog ntasks nice ntasks-per-node nodes output overcommit overlap het-group
        partition power priority prolog profile propagate pty quit-on-interrupt qos quiet
        reboot relative oversubscribe core-spec send-libs signal slurmd-debug spread-job
        switches task-epilog task-prolog thread-spec threads time time-min unbuffered
        use-min-nodes verbose wait wckey disable-status cluster-constraint contiguous
        constraint mem mincpus reservation tmp nodelist exclude no-allocate exact exclusive
        mem-per-cpu resv-ports sockets-per-node cores-per-socket threads-per-core
        extra-node-info ntasks-per-core ntasks-per-socket cpus-per-gpu gpus gpu-bind gpu-freq
        gpus-per-node gpus-per-socket gpus-per-task mem-per-gpu help usage version""",
}

OPTION = re.compile(r"^  (?:-(\w), |    )--([\w-]+)(\S*)")


def run(cmd, *args):
    return subprocess.run([os.path.join(BIN, cmd), *args], capture_output=True, text=True,
                          timeout=30, env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"})


def help_options(cmd):
    """{long name: (letter, argument placeholder)} from cmd --help."""
    r = run(cmd, "--help")
    assert r.returncode == 0, r
    found = {}
    for line in r.stdout.splitlines():
        m = OPTION.match(line)
        if m:
            found[m.group(2)] = (m.group(1), m.group(3))
    return found


def sample(cmd, name, arg):
    """The words that give option name a value it takes."""
    if name in SPECIAL:
        return SPECIAL[name]
    if not arg:
        return [f"--{name}"]
    placeholder = re.sub(r"^\[?=", "", arg)
    placeholder = placeholder[:-1] if arg.startswith("[") else placeholder
    assert placeholder in SAMPLES, f"{cmd} --{name}: no sample for {arg}"
    return [f"--{name}={SAMPLES[placeholder]}"]


def read_problem(cmd, name, args, refused):
    """What is wrong with cmd reading args (then answering --usage); None."""
    r = run(cmd, *args, "--usage")
    if "unrecognized option" in r.stderr or "invalid option" in r.stderr:
        return f"{cmd} {args}: not an option: {r.stderr}"
    if refused:
        return None if r.returncode != 0 and "error: " in r.stderr else f"{cmd} {args}: {r}"
    if r.returncode != 0 or not r.stdout.startswith(f"Usage: {cmd} "):
        return f"{cmd} {args}: rc {r.returncode}: {r.stderr.strip()}"
    return None


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_option_in_help_is_read(cmd):
    opts = help_options(cmd)
    assert len(opts) > 40, opts
    problems = []
    for name, (letter, arg) in sorted(opts.items()):
        args = sample(cmd, name, arg)
        if args is None:
            continue
        problems.append(read_problem(cmd, name, args, name in REFUSED))
        if letter:   # the short name is the same option
            value = args[0].split("=", 1)[1] if "=" in args[0] else None
            if arg.startswith("[="):   # an optional argument sticks to the letter
                short = [f"-{letter}{value}" if value else f"-{letter}"]
            else:
                short = [f"-{letter}"] + ([value] if value is not None else [])
            problems.append(read_problem(cmd, name, short, name in REFUSED))
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_usage_names_what_help_does(cmd):
    opts = help_options(cmd)
    r = run(cmd, "--usage")
    assert r.returncode == 0 and r.stdout.startswith(f"Usage: {cmd} "), r
    in_usage = set(re.findall(r"--([\w-]+)", r.stdout))
    assert in_usage, r.stdout
    assert in_usage <= set(opts), in_usage - set(opts)
    # every option of the help but the informational ones is in the usage
    assert set(opts) - {"help", "usage", "version"} <= in_usage, \
        set(opts) - {"help", "usage", "version"} - in_usage


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_slurm_option_is_known(cmd):
    """Slurm 22.05's --help names these: each is in ours, and none is
    refused as an unknown option."""
    opts = help_options(cmd)
    missing = [name for name in SLURM_HELP[cmd].split() if name not in opts]
    assert not missing, missing
