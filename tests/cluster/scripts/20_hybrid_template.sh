#!/bin/bash
# A centre's hybrid MPI+OpenMP template: tasks per core and socket, the
# distribution named, no SMT, binding to cores.
# expect-file: hybrid-%j.out
# expect: ^rank [01] of 2 threads=1$
#SBATCH --job-name=hybrid
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=2
#SBATCH --ntasks-per-core=1
#SBATCH --cpus-per-task=1
#SBATCH --hint=nomultithread
#SBATCH --distribution=block:block
#SBATCH --time=00:05:00
#SBATCH --output=hybrid-%j.out

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
srun --cpu-bind=cores bash -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS threads=$OMP_NUM_THREADS"'
