#!/bin/bash
#SBATCH --job-name=affinity
#SBATCH --output=affinity-%j.out
#SBATCH --ntasks=2
#SBATCH --ntasks-per-core=1
#SBATCH --hint=nomultithread
#SBATCH --distribution=block:block
#SBATCH --mem-bind=local
#SBATCH --cpu-freq=high
#SBATCH --propagate=STACK
#SBATCH --time=00:05:00
# A centre's MPI template: placement and binding hints on every job.
# expect-file: affinity-%j.out
# expect: ^rank 0 of 2$
# expect: ^rank 1 of 2$
srun sh -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS"'
