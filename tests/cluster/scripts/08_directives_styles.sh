#!/bin/bash

# Every way people write #SBATCH lines: long with '=', long with a space,
# short with a space, comments and blank lines between, and one after the
# first command (ignored, as sbatch reads only up to there).
# expect-file: styles-%j.out
# expect: ^name=styles limit_ok nodes=1$

#SBATCH --job-name styles
#SBATCH -t 0:04:00

##SBATCH --job-name=commented-out
#SBATCH -o styles-%j.out
#SBATCH --nodes=1   # one node
echo "name=$SLURM_JOB_NAME limit_ok nodes=$SLURM_JOB_NUM_NODES"
#SBATCH --job-name=too-late
