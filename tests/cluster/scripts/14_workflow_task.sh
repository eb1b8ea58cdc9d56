#!/bin/bash
#SBATCH -J nf-align_(1)
#SBATCH -o task.log
#SBATCH --no-requeue
#SBATCH --signal B:USR2@30
#SBATCH -c 2
#SBATCH -t 00:05:00
#SBATCH --mem 200M
# A workflow engine's task wrapper: its #SBATCH block (short options with a
# space, a name with brackets, --signal B:), then the task in a subshell.
# expect-file: task.log
# expect: ^task cpus=2 name=nf-align_\(1\) requeue=no$
set -e
(
  echo "task cpus=$SLURM_CPUS_PER_TASK name=$SLURM_JOB_NAME requeue=no"
)
