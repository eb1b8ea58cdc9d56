#!/usr/bin/env bash
# A script that runs an inline Python payload and reads the job's variables.
# expect-file: py-%x-%j.out
# expect: ^python sees job \d+ with 1 task\(s\) on n\d$
#SBATCH --job-name=py
#SBATCH --nice=10
#SBATCH --time-min=00:01:00
#SBATCH --time=00:05:00
#SBATCH --output=py-%x-%j.out

python3 - <<'PY'
import os
print(f"python sees job {os.environ['SLURM_JOB_ID']} with {os.environ['SLURM_NTASKS']} task(s) on {os.environ['SLURMD_NODENAME']}")
PY
