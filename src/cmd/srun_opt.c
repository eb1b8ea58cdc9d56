/* srun's and salloc's options by the job-option table (srun_opt.h): the
 * input variables, then the command line, then what only these two check.
 * The sentences are Slurm 22.05's where it has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/jobopt.h"
#include "cmd/opt.h"
#include "cmd/srun_opt.h"

int srun_opts_parse(struct jobopt *o, enum jobopt_cmd cmd, int argc, char **argv,
		    jobopt_getenv_f getenv_f, FILE *out, struct herd_error *err)
{
	int next = argc, rc;

	jobopt_init(o, cmd);
	err->text[0] = '\0';
	if (!getenv_f)
		getenv_f = (jobopt_getenv_f)getenv;
	rc = jobopt_env(o, getenv_f, err);
	/* The job ID, when inside an allocation: srun makes a step of it. */
	if (rc == JOBOPT_OK && cmd == JOBOPT_SRUN) {
		const char *id = getenv_f("SLURM_JOB_ID");
		long n;
		if (!id)
			id = getenv_f("SLURM_JOBID");
		if (id && opt_count(id, &n) == 0 && n > 0)
			jobopt_set(o, "jobid", json_integer(n));
	}
	if (rc == JOBOPT_OK)
		rc = jobopt_args(o, JOBOPT_ARGS, argc, argv, &next, err);
	/* -E: the allocation's node and task counts over -N and -n */
	if (rc == JOBOPT_OK && jobopt_flag(o, "preserve-env")) {
		const char *nodes = getenv_f("SLURM_NNODES"), *tasks = getenv_f("SLURM_NTASKS");
		long n;
		if (!tasks)
			tasks = getenv_f("SLURM_NPROCS");
		if (nodes && opt_count(nodes, &n) == 0 && n > 0)
			json_object_set_new(o->spec, "nodes", json_integer(n));
		if (tasks && opt_count(tasks, &n) == 0 && n > 0)
			json_object_set_new(o->spec, "ntasks", json_integer(n));
	}
	if (rc == JOBOPT_INFO) {
		jobopt_info(o, out);
		return SRUN_PARSE_INFO;
	}
	if (rc < 0)
		return SRUN_PARSE_ERROR;
	if (cmd == JOBOPT_SALLOC) {   /* srun's: each component's, by jobopt_args */
		o->argv = argv + next;
		o->argc = argc - next;
	}
	for (struct jobopt *part = o; cmd == JOBOPT_SRUN && part; part = part->het_next)
		if (part->argc == 0)
			return errprintf(err, "No executable name specified"), SRUN_PARSE_ERROR;
	if (jobopt_flag(o, "pty") && jobopt_flag(o, "multi-prog"))
		return errprintf(err, "--pty and --multi-prog are incompatible"), SRUN_PARSE_ERROR;
	if (cmd == JOBOPT_SRUN && jobopt_flag(o, "overlap") && jobopt_flag(o, "exclusive"))
		return errprintf(err, "--exclusive and --overlap are mutually exclusive"),
		       SRUN_PARSE_ERROR;
	return SRUN_PARSE_OK;
}
