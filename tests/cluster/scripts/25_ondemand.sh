#!/bin/bash -l
# As a web portal (Open OnDemand's batch connect) submits a session: the
# options on the command line, the cluster named with -M, --export=NONE.
# submit-args: -D . -J ondemand/sys/dashboard/sys/bc_desktop -o output.log -t 01:00:00 -p debug --export=NONE --parsable -M @CLUSTER@ --nodes=1 --ntasks-per-node=1
# expect-file: output.log
# expect: ^ondemand session on n\d+ cluster=\S+$
echo "ondemand session on $SLURMD_NODENAME cluster=$SLURM_CLUSTER_NAME"
