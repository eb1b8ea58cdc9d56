#!/bin/bash
# A Torque/PBS script from an older centre guide, submitted to sbatch as is:
# sbatch reads its #PBS lines (name, nodes:ppn, walltime, -j oe, -o, -V).
# expect-file: torque.out
# expect: ^pbs name=torque_job nodes=1 tasks_per_node=2$
#PBS -N torque_job
#PBS -l nodes=1:ppn=2,walltime=00:05:00
#PBS -j oe
#PBS -o torque.out
#PBS -V

cd "${PBS_O_WORKDIR:-$SLURM_SUBMIT_DIR}"
echo "pbs name=$SLURM_JOB_NAME nodes=$SLURM_JOB_NUM_NODES tasks_per_node=$SLURM_NTASKS_PER_NODE"
