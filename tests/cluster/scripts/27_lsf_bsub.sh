#!/bin/bash
# An LSF script moved to a Slurm site unchanged: sbatch reads its #BSUB lines.
# expect-file: lsf-out.txt
# expect: ^lsf name=lsf_job tasks=2$
#BSUB -J lsf_job
#BSUB -n 2
#BSUB -W 10:00
#BSUB -o lsf-out.txt

echo "lsf name=$SLURM_JOB_NAME tasks=$SLURM_NTASKS"
