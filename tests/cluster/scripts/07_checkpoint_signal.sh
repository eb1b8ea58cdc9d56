#!/bin/bash
# Checkpoint on a warning signal before the limit (--signal=B:USR1@secs),
# the way long-running codes are wrapped.
# expect-file: ckpt-%j.out
# expect: ^checkpoint written at step \d+$
#SBATCH --job-name=ckpt
#SBATCH --time=00:01:00
#SBATCH --signal=B:USR1@55
#SBATCH --output=ckpt-%j.out

step=0
trap 'echo "checkpoint written at step $step"; exit 0' USR1
while [ $step -lt 600 ]; do
	step=$((step + 1))
	sleep 0.1
done
echo "no signal came"
exit 1
