#!/bin/bash
# As a Python job launcher (submitit) writes its scripts: every option it
# knows on its own #SBATCH line, sorted, --wckey always among them, and the
# task started through srun with per-task logs.
# expect-file: logs/sub-%j_0_log.out
# expect: ^submitit task 0 of 1 on n\d+$

# Parameters
#SBATCH --cpus-per-task=1
#SBATCH --error=logs/sub-%j_0_log.err
#SBATCH --job-name=submitit
#SBATCH --mem=100MB
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --open-mode=append
#SBATCH --output=logs/sub-%j_0_log.out
#SBATCH --signal=USR2@90
#SBATCH --time=5
#SBATCH --wckey=submitit

# command
export SUBMITIT_EXECUTOR=slurm
srun --unbuffered --output logs/sub-%j_%t_log.out --error logs/sub-%j_%t_log.err \
	bash -c 'echo "submitit task $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME"'
