#!/bin/bash
# Herd on a real NVIDIA GPU (doc/gres.md): for a machine with the driver,
# NVML and nvidia-smi.  Builds Herd if needed, brings up a one-node cluster
# with `herd up` autodetecting the GPUs through the real NVML (no --gpus),
# checks that `scontrol show node` shows them, runs
#   sbatch --gres=gpu:1 --wrap 'nvidia-smi -L; env | grep ...; ls /dev/nvidia*'
# under ConstrainDevices=yes and checks that the job sees exactly one GPU and
# that opening any other GPU's device file fails with EPERM, and prints the
# job's AllocTRES and TRESUsageInMax from sacct.  One PASS/FAIL/SKIP line
# per check, with its figures.
#   bench/gpu_real.sh [--keep]      (as root: cgroups and the device check)
# Exit 0 when every check passes, 1 when one fails, 2 when this machine has
# no usable NVIDIA GPU (nothing is started then).
set -u
cd "$(dirname "$0")/.." || exit 1
keep=0
[ "${1:-}" = "--keep" ] && keep=1

# ---- is there a GPU at all? ------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "gpu_real: no nvidia-smi on this machine: it has no NVIDIA driver, so no GPU to test" >&2
	exit 2
fi
gpus_smi=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus_smi" -lt 1 ]; then
	echo "gpu_real: nvidia-smi -L lists no GPU here (driver not loaded, or no device): nothing to test" >&2
	exit 2
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1'; then
	echo "gpu_real: libnvidia-ml.so.1 (NVML) is not in the loader's cache: herdd could not detect the GPUs" >&2
	exit 2
fi

fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
skip() { echo "SKIP $*"; }
# the job's final state (or its last one after 120 s)
wait_job() {
	local state=""
	for _ in $(seq 1 120); do
		state=$(squeue -h -t all -j "$1" -o %T 2>/dev/null)
		case "$state" in
		COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;;
		esac
		sleep 1
	done
	echo "$state"
}

# ---- build ------------------------------------------------------------------
if [ ! -x build/bin/herd ] || [ ! -x build/bin/herdd ] || [ ! -x build/bin/sbatch ]; then
	echo "gpu_real: building Herd (make -j2 all)"
	make -j2 all >/tmp/gpu_real.build.log 2>&1 || {
		echo "gpu_real: the build failed; see /tmp/gpu_real.build.log" >&2
		exit 1
	}
fi

root=$(mktemp -d /tmp/herd-gpu-real.XXXXXX)
chmod 755 "$root"
dir="$root/c"
cleanup() {
	build/bin/herd down --dir "$dir" >/dev/null 2>&1 || true
	if [ "$keep" = 1 ]; then
		echo "gpu_real: kept $root (logs in $dir/log)"
	else
		rm -rf "$root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the cluster: the real NVML, no fake -----------------------------------
unset HERD_NVML_LIBRARY HERD_NVML_DEV_DIR HERD_NVML_MIG_MINORS
# To try this script itself where there is no GPU: GPU_REAL_TEST_NVML names
# the tests' fake NVML (with HERD_FAKE_NVML, and a stand-in nvidia-smi and
# ldconfig first in PATH); never set on a real run.
if [ -n "${GPU_REAL_TEST_NVML:-}" ]; then
	export HERD_NVML_LIBRARY=$GPU_REAL_TEST_NVML
fi
if ! up=$(build/bin/herd up --nodes 1 --dir "$dir" 2>"$root/up.err"); then
	fail "herd up: $(tail -3 "$root/up.err")"
	exit 1
fi
eval "$up"
echo "gpu_real: nvidia-smi -L lists $gpus_smi GPU(s); herd up in $dir"

# ConstrainDevices=yes (herdstepd reads cgroup.conf at each launch)
cg=""
if [ "$(id -u)" = 0 ]; then
	if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		cg="ConstrainDevices=yes
CgroupMountpoint=/sys/fs/cgroup
CgroupPlugin=cgroup/v2"
	elif [ -d /sys/fs/cgroup/devices ]; then
		cg="ConstrainDevices=yes"
	fi
fi
[ -n "$cg" ] && printf '%s\n' "$cg" >"$dir/cgroup.conf"

# ---- the node shows its GPUs -----------------------------------------------
node=$(scontrol show node n1)
gres=$(printf '%s\n' "$node" | grep -o 'Gres=[^ ]*' | head -1)
# gpu[:type]:N(S:...) -> N
count=$(printf '%s\n' "$gres" | sed -n 's/^Gres=\(.*,\)\{0,1\}gpu\(:[^:,(]*\)\{0,1\}:\([0-9][0-9]*\).*/\3/p')
if [ -n "$count" ] && [ "$count" = "$gpus_smi" ]; then
	pass "scontrol show node: $gres ($count GPUs, nvidia-smi -L: $gpus_smi)"
elif [ -n "$count" ] && [ "$count" -ge 1 ]; then
	# MIG instances are GPUs of their own to Herd (doc/gres.md section 1)
	fail "scontrol show node: $gres: $count GPUs, nvidia-smi -L: $gpus_smi (MIG mode counts instances)"
else
	fail "scontrol show node: no GPU in '$gres'"
	printf '%s\n' "$node" | sed 's/^/    /'
	exit 1
fi

# ---- one GPU for a job ------------------------------------------------------
out="$root/job.out"
# shellcheck disable=SC2016  # the job's shell expands it
script='nvidia-smi -L
env | grep -E "CUDA|SLURM_.*GPU" | sort
ls /dev/nvidia*
for d in /dev/nvidia[0-9]*; do
	if ( exec 3<"$d" ) 2>/tmp/gpu_real.$$.err; then
		echo "open $d ok"
	elif grep -q "not permitted" /tmp/gpu_real.$$.err; then
		echo "open $d EPERM"
	else
		echo "open $d failed: $(cat /tmp/gpu_real.$$.err)"
	fi
done
rm -f /tmp/gpu_real.$$.err'
job=$(sbatch --parsable --gres=gpu:1 -o "$out" --wrap "$script" 2>"$root/sbatch.err")
if [ -z "$job" ]; then
	fail "sbatch --gres=gpu:1: $(cat "$root/sbatch.err")"
	exit 1
fi
state=$(wait_job "$job")
if [ "$state" = COMPLETED ]; then
	pass "job $job: COMPLETED"
else
	fail "job $job: $state (after 120 s)"
fi
echo "---- job $job output ----"
sed 's/^/    /' "$out" 2>/dev/null
echo "----"

seen=$(grep -c '^GPU [0-9]' "$out" 2>/dev/null)
if [ "$seen" = 1 ]; then
	pass "nvidia-smi -L in the job: 1 GPU"
else
	fail "nvidia-smi -L in the job: ${seen:-0} GPUs, not 1"
fi
jobgpus=$(sed -n 's/^SLURM_JOB_GPUS=//p' "$out")
cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$out")
if [ -n "$jobgpus" ] && [ "${jobgpus#*,}" = "$jobgpus" ]; then
	pass "SLURM_JOB_GPUS=$jobgpus (one global ID)"
else
	fail "SLURM_JOB_GPUS='$jobgpus', not one ID"
fi
want_cvd=$jobgpus
[ -n "$cg" ] && want_cvd=0   # counted from 0 among the cgroup's GPUs (section 3 rule 6)
if [ "$cvd" = "$want_cvd" ]; then
	pass "CUDA_VISIBLE_DEVICES=$cvd"
else
	fail "CUDA_VISIBLE_DEVICES='$cvd', want '$want_cvd'"
fi

ok=$(grep -c '^open /dev/nvidia[0-9]* ok' "$out")
eperm=$(grep -c '^open /dev/nvidia[0-9]* EPERM' "$out")
files=$(grep -c '^open /dev/nvidia[0-9]' "$out")
if [ -z "$cg" ]; then
	skip "device isolation: not root or no devices cgroup here (ConstrainDevices needs both); $ok of $files GPU files open"
elif [ "$files" -lt 2 ]; then
	skip "device isolation: one GPU device file on this machine, no other GPU's to try ($ok opens)"
elif [ "$ok" = 1 ] && [ "$eperm" = $((files - 1)) ]; then
	pass "ConstrainDevices: 1 GPU device opens, $eperm others fail with EPERM"
else
	fail "ConstrainDevices: $ok of $files GPU device files open, $eperm EPERM (want 1 and $((files - 1)))"
fi

# ---- accounting ----------------------------------------------------------
acct=$(sacct -j "$job" -P -n -o JobID,AllocTRES,TRESUsageInMax 2>&1)
echo "sacct -j $job -o JobID,AllocTRES,TRESUsageInMax:"
printf '%s\n' "$acct" | sed 's/^/    /'
alloc=$(printf '%s\n' "$acct" | head -1 | cut -d'|' -f2)
if printf '%s\n' "$alloc" | grep -q 'gres/gpu'; then
	pass "sacct AllocTRES: $alloc"
elif [ -n "$alloc" ]; then
	echo "WARN sacct AllocTRES: $alloc: no gres/gpu (GPU TRES accounting: doc/gres.md section 4, not yet)"
else
	fail "sacct has no AllocTRES for job $job"
fi

# ---- MPS (doc/gres.md section 4) ------------------------------------------
# herdd (started by herd up with this PATH) finds nvidia-cuda-mps-control in
# its PATH; the node gets mps:100 per GPU through a reconfigure.  SKIP while
# the controller refuses mps requests.
if ! command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
	skip "MPS: no nvidia-cuda-mps-control in PATH"
else
	mps=$((count * 100))
	sed -i 's/^GresTypes=gpu$/GresTypes=gpu,mps/; s/\(NodeName=n1 .*Gres=[^ ]*\)/\1,mps:'"$mps"'/' "$dir/herd.conf"
	echo "NodeName=n1 Name=mps Count=$mps" >>"$dir/gres.conf"
	scontrol reconfigure >/dev/null 2>&1
	sleep 2
	mout="$root/mps.out"
	# shellcheck disable=SC2016  # the job's shell expands it
	mscript='env | grep -E "^CUDA" | sort
echo get_server_list | nvidia-cuda-mps-control; echo "control rc=$?"'
	mjob=$(sbatch --parsable --gres=mps:50 -o "$mout" --wrap "$mscript" 2>"$root/sbatch.err")
	if [ -z "$mjob" ] && grep -q 'Invalid generic resource' "$root/sbatch.err"; then
		skip "MPS: sbatch --gres=mps:50 refused ($(cat "$root/sbatch.err")): the controller does not schedule mps (doc/gres.md section 2)"
	elif [ -z "$mjob" ]; then
		fail "MPS: sbatch --gres=mps:50: $(cat "$root/sbatch.err")"
	else
		mstate=$(wait_job "$mjob")
		echo "---- job $mjob output ----"
		sed 's/^/    /' "$mout" 2>/dev/null
		echo "----"
		pipe=$(sed -n 's/^CUDA_MPS_PIPE_DIRECTORY=//p' "$mout")
		pct=$(sed -n 's/^CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=//p' "$mout")
		if [ "$mstate" = COMPLETED ] && [ -n "$pipe" ] && grep -q '^control rc=0' "$mout"; then
			pass "MPS: job $mjob's daemon answered in $pipe (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct)"
		else
			fail "MPS: job $mjob $mstate, CUDA_MPS_PIPE_DIRECTORY='$pipe', $(grep '^control rc=' "$mout")"
		fi
		sleep 8   # herdd stops it within a second of the job's end, kills it after 5 s
		left=$(find "$dir/spool/n1" -maxdepth 1 -name 'mps*' | wc -l)
		if [ "$left" = 0 ]; then
			pass "MPS: the daemon's directory is gone after the job"
		else
			fail "MPS: $left MPS directories left in $dir/spool/n1"
		fi
	fi
fi

echo "gpu_real: $fails failed"
[ "$fails" = 0 ]
