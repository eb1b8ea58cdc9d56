#!/bin/bash
# One task per input line (the classic array pattern).
# expect-array: 1-4
# expect-file: arr_%A_%a.out
# expect: ^task (\d) of 4 processes input-\1$
#SBATCH --job-name=arr
#SBATCH --array=1-4
#SBATCH --output=arr_%A_%a.out
#SBATCH --time=0-00:05

line=$(printf 'input-1\ninput-2\ninput-3\ninput-4\n' | sed -n "${SLURM_ARRAY_TASK_ID}p")
echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT processes $line"
