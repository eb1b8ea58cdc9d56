#!/bin/sh
# Memory per CPU and two tasks on one node.
# expect-file: mpc-%j.txt
# expect: ^mem_per_cpu=200 ntasks=2$
#SBATCH --ntasks=2
#SBATCH --nodes=1
#SBATCH --mem-per-cpu=200M
#SBATCH --time=00:03:00
#SBATCH --output=mpc-%j.txt

echo "mem_per_cpu=$SLURM_MEM_PER_CPU ntasks=$SLURM_NTASKS"
