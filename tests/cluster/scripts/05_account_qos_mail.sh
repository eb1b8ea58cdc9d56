#!/bin/bash
# Account, QOS, partition and mail lines, as university clusters ask for them.
# expect-file: slurm-%j.out
# expect: ^account=physics qos=normal partition=debug$
#SBATCH --account=physics
#SBATCH --qos=normal
#SBATCH --partition=debug
#SBATCH --mail-type=begin,end,fail
#SBATCH --mail-user=someone@example.org
#SBATCH --time=5:00

echo "account=$SLURM_JOB_ACCOUNT qos=$SLURM_JOB_QOS partition=$SLURM_JOB_PARTITION"
