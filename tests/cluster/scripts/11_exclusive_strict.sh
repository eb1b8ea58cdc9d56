#!/bin/bash
#SBATCH --exclusive
#SBATCH --nodes=1
#SBATCH --time=01:00
#SBATCH --output=excl-%j.out
# Strict bash and a whole node, as performance runs ask.
# expect-file: excl-%j.out
# expect: ^whole node: cpus=\d+ nodelist=n\d$
set -euo pipefail
command -v module >/dev/null 2>&1 && module purge
echo "whole node: cpus=${SLURM_CPUS_ON_NODE} nodelist=${SLURM_JOB_NODELIST}"
