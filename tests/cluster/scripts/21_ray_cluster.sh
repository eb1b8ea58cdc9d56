#!/bin/bash
# As the Ray documentation's launcher does: whole nodes, the old
# --tasks-per-node spelling, the head started on the first node by name.
# expect-file: ray-%j.out
# expect: ^head n\d+ of 2 nodes$
#SBATCH --job-name=ray
#SBATCH --nodes=2
#SBATCH --exclusive
#SBATCH --tasks-per-node=1
#SBATCH --time=00:05:00
#SBATCH --output=ray-%j.out

nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")
nodes_array=($nodes)
head_node=${nodes_array[0]}
srun --nodes=1 --ntasks=1 -w "$head_node" bash -c "echo head \$SLURMD_NODENAME of $SLURM_JOB_NUM_NODES nodes"
