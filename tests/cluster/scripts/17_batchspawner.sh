#!/bin/bash
# As a notebook spawner (JupyterHub's batchspawner) writes its job: the
# user's login environment (--get-user-env=L), a few variables kept.
# expect-file: jupyterhub_slurmspawner_%j.log
# expect: ^spawner home=/\S+ user=herdu1 api=token-1$
#SBATCH --output=jupyterhub_slurmspawner_%j.log
#SBATCH --job-name=spawner-jupyterhub
#SBATCH --chdir=.
#SBATCH --export=ALL,JUPYTERHUB_API_TOKEN=token-1
#SBATCH --get-user-env=L
#SBATCH --time=5
#SBATCH --cpus-per-task=1

set -euo pipefail
trap 'echo SIGTERM received' TERM
srun bash -c 'echo "spawner home=$HOME user=$USER api=$JUPYTERHUB_API_TOKEN"'
