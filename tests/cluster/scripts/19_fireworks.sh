#!/bin/bash -l
# As a workflow manager's queue adapter (FireWorks) fills its template.
# expect-file: FW_job-%j.out
# expect: ^rapidfire 2 tasks in physics/normal on debug$

#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:05:00
#SBATCH --partition=debug
#SBATCH --account=physics
#SBATCH --job-name=FW_job
#SBATCH --output=FW_job-%j.out
#SBATCH --error=FW_job-%j.error
#SBATCH --qos=normal

cd $SLURM_SUBMIT_DIR
echo "rapidfire $SLURM_NTASKS tasks in $SLURM_JOB_ACCOUNT/$SLURM_JOB_QOS on $SLURM_JOB_PARTITION"
