#!/bin/bash
# Requeueable jobs that append to one log across restarts.
# expect-file: append.log
# expect: ^earlier line$
# expect: ^run 0 of job \d+$
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=append.log
#SBATCH --time=00:02:00

echo "run $SLURM_RESTART_COUNT of job $SLURM_JOB_ID"
