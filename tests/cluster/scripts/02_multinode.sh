#!/bin/bash -l
# Two nodes, one task each: what an MPI job's header looks like.
# expect-file: multi_%j.log
# expect: ^nodes=2 ntasks=2 tpn=1 list=n\[\d-\d\]|n\d,n\d$
# expect: ^SLURM_TASKS_PER_NODE=1\(x2\)$
#SBATCH -J multi
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
#SBATCH -t 10
#SBATCH -o multi_%j.log

echo "nodes=$SLURM_JOB_NUM_NODES ntasks=$SLURM_NTASKS tpn=$SLURM_NTASKS_PER_NODE list=$SLURM_JOB_NODELIST"
echo "SLURM_TASKS_PER_NODE=$SLURM_TASKS_PER_NODE"
