#!/bin/bash
# As a regression-test framework (ReFrame) writes a test's job: quoted job
# name, --hint=nomultithread when it does not use SMT.
# expect-file: rfm_HelloTest.out
# expect: ^Hello, World!$
#SBATCH --job-name="rfm_HelloTest"
#SBATCH --ntasks=1
#SBATCH --output=rfm_HelloTest.out
#SBATCH --error=rfm_HelloTest.err
#SBATCH --time=0:10:0
#SBATCH --hint=nomultithread
srun echo 'Hello, World!'
