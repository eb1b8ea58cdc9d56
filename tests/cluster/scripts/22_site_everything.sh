#!/bin/bash
# A site template that names the options users copy from man pages: no
# kill on node failure, overcommit, sharing, spread, the rlimits to keep.
# expect-file: every-%j.out
# expect: ^4 tasks on one node: ok$
#SBATCH --job-name=everything
#SBATCH --no-kill
#SBATCH --overcommit
#SBATCH --oversubscribe
#SBATCH --spread-job
#SBATCH --propagate=STACK,CORE
#SBATCH --nodes=1
#SBATCH --ntasks=4
#SBATCH --cpus-per-task=1
#SBATCH --mem-bind=local
#SBATCH --use-min-nodes
#SBATCH --delay-boot=5
#SBATCH --requeue
#SBATCH --kill-on-invalid-dep=yes
#SBATCH --nice=10
#SBATCH --mail-type=END,FAIL
#SBATCH --time=5
#SBATCH --output=every-%j.out

n=$(srun --overcommit -n 4 echo x | wc -l)
[ "$n" = 4 ] && echo "4 tasks on one node: ok"
