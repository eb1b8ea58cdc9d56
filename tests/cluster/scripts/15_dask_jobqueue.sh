#!/usr/bin/env bash
# As a Python cluster library (dask-jobqueue) writes a worker's job: short
# options, memory in M as it rounds them.
# expect-file: slurm-%j.out
# expect: ^dask worker ntasks=1 cpus=1 mem=954$

#SBATCH -J dask-worker
#SBATCH -n 1
#SBATCH --cpus-per-task=1
#SBATCH --mem=954M
#SBATCH -t 00:30:00

echo "dask worker ntasks=$SLURM_NTASKS cpus=$SLURM_CPUS_PER_TASK mem=$SLURM_MEM_PER_NODE"
