#!/bin/bash
# As a workflow engine (Cromwell's SLURM backend) submits: the working
# directory and the files on the command line, the command wrapped.
# submit-args: -J cromwell_7c1d_hello -D . -o execution/stdout -e execution/stderr -t 10 -p debug -n 1 --mem=100 --wrap "/bin/bash -c 'echo cromwell hello from $SLURM_JOB_NAME'"
# expect-file: execution/stdout
# expect: ^cromwell hello from cromwell_7c1d_hello$
