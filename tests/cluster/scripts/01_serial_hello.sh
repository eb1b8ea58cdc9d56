#!/bin/bash
# A first job, as centre quick-start pages write it.
# expect-file: hello-%j.out
# expect: ^Hello from n\d on job \d+ \(hello\)$
#SBATCH --job-name=hello
#SBATCH --output=hello-%j.out
#SBATCH --time=00:05:00
#SBATCH --mem=100M
#SBATCH --ntasks=1

echo "Hello from $SLURMD_NODENAME on job $SLURM_JOB_ID ($SLURM_JOB_NAME)"
