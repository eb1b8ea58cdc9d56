#!/bin/bash
# As a workflow engine's executor (Snakemake's slurm plugin) submits: no
# script file, every option on the command line, --parsable, the rule in
# --comment.  (This file only carries the header.)
# submit-args: --parsable --job-name 5f1e8a3c --output logs/rule_a/%j.log --export=ALL --comment rule_a -A physics -p debug -t 10 --mem 100 --ntasks=1 --cpus-per-task=1 --wrap "echo snakemake rule_a ran in $SLURM_JOB_PARTITION"
# expect-file: logs/rule_a/%j.log
# expect: ^snakemake rule_a ran in debug$
