#!/bin/bash

# A Python job launcher's generated script: its parameter block, sorted,
# with the wckey, USR2 signal and append mode it puts in every job; the
# payload runs as one srun step with its own log.
# expect-file: 0_log.out
# expect: ^launched task 0 of 1 key=submit$

# Parameters
#SBATCH --cpus-per-task=1
#SBATCH --error=%j_0_log.err
#SBATCH --job-name=launcher
#SBATCH --mem=100M
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --open-mode=append
#SBATCH --output=%j_0_log.out
#SBATCH --signal=USR2@90
#SBATCH --time=5
#SBATCH --wckey=submit

# command
export LAUNCHER_EXECUTOR=slurm
srun --unbuffered --output 0_log.out sh -c 'echo "launched task $SLURM_PROCID of $SLURM_NTASKS key=submit"'
