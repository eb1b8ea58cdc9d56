#!/bin/bash
# As a parallel scripting library (Parsl's SlurmProvider) writes a block:
# whole nodes by default, stdout/stderr beside the submit script.
# expect-file: parsl.slurm.1764.submit.stdout
# expect: ^parsl block on 1 node\(s\), 1 per node$

#SBATCH --job-name=parsl.slurm.1764
#SBATCH --output=parsl.slurm.1764.submit.stdout
#SBATCH --error=parsl.slurm.1764.submit.stderr
#SBATCH --nodes=1
#SBATCH --time=10
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive

export JOBNAME="parsl.slurm.1764"
echo "parsl block on $SLURM_JOB_NUM_NODES node(s), $SLURM_NTASKS_PER_NODE per node"
