#!/bin/bash
# A clean environment (--export=NONE) and a working directory of its own.
# expect-file: sub/envcheck-%j.out
# expect: ^pwd_is_sub=yes submit_dir_set=yes leaked=$
#SBATCH --export=NONE
#SBATCH --chdir=sub
#SBATCH --output=envcheck-%j.out
#SBATCH --time=2

case "$(pwd)" in */sub) in_sub=yes ;; *) in_sub=no ;; esac
echo "pwd_is_sub=$in_sub submit_dir_set=$([ -n "$SLURM_SUBMIT_DIR" ] && echo yes) leaked=$HERD_TEST_SECRET"
