#!/bin/bash
# As a workflow engine (Nextflow) writes .command.run: short options with a
# space before the value, the signal to the batch shell, no requeue.
# expect-file: .command.log
# expect: ^nf task done cpus=1$
#SBATCH -J nf-HELLO_(1)
#SBATCH -o .command.log
#SBATCH --no-requeue
#SBATCH --signal B:USR2@30
#SBATCH -c 1
#SBATCH -t 00:10:00
#SBATCH --mem 512M
NXF_CHDIR=$PWD
set -e
nxf_main() {
	trap 'exit 143' USR2
	echo "nf task done cpus=$SLURM_CPUS_PER_TASK"
}
nxf_main
