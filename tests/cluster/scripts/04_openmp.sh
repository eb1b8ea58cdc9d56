#!/bin/bash
# A threaded program: one task, several CPUs, OMP_NUM_THREADS from Slurm.
# expect-file: omp.%j.out
# expect: ^threads=2 cpus_on_node=\d+$
#SBATCH --job-name=omp
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --time=00:02:00
#SBATCH --output=omp.%j.out

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
echo "threads=$OMP_NUM_THREADS cpus_on_node=$SLURM_CPUS_ON_NODE"
