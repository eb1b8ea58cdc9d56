/* srun's and salloc's options by the job-option table (srun_opt.h): the
 * input variables, then the command line, then what only these two check.
 * The sentences are Slurm 22.05's where it has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/jobopt.h"
#include "cmd/opt.h"
#include "cmd/srun_opt.h"

int srun_het_groups(const char *s, long *out, int max)
{
	int n = 0;
	const char *p = s;
	if (!s || !*s)
		return -1;
	while (*p) {
		char *end;
		if (*p < '0' || *p > '9')
			return -1;
		long lo = strtol(p, &end, 10), hi = lo;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			hi = strtol(end + 1, &end, 10);
		}
		if (hi < lo || hi >= HET_MAX_GROUPS || (*end && *end != ','))
			return -1;
		for (long g = lo; g <= hi; g++) {
			for (int i = 0; i < n; i++)
				if (out[i] == g)
					return -1;
			if (n == max)
				return -1;
			out[n++] = g;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -1;
	}
	return n;
}

/* srun --het-group=N inside a heterogeneous allocation: the step runs in
 * component N (its own job ID, SLURM_JOB_ID_HET_GROUP_N of the batch
 * script's or salloc's environment).  Outside one Slurm ignores it.  A list
 * of several (0,1 or 0-2) is one step over those components (srun.c).  -1
 * with err when a group names no component. */
static int het_group(struct jobopt *o, jobopt_getenv_f getenv_f, struct herd_error *err)
{
	const char *group = jobopt_str(o, "het-group"), *size_s = getenv_f("SLURM_HET_SIZE");
	long groups[HET_MAX_GROUPS], size;
	char var[64];

	if (!group || !size_s || opt_count(size_s, &size) < 0 || size < 1)
		return 0;
	int n = srun_het_groups(group, groups, HET_MAX_GROUPS);
	if (n < 0)
		return errprintf(err, "Invalid --het-group value: %s", group);
	for (int i = 0; i < n; i++)
		if (groups[i] >= size)
			return errprintf(err, "Requested het-group offset exceeds highest hetjob index "
					 "(%ld > %ld)", groups[i], size - 1);
	if (n > 1)
		return 0;
	snprintf(var, sizeof(var), "SLURM_JOB_ID_HET_GROUP_%ld", groups[0]);
	const char *id = getenv_f(var);
	long job;
	if (id && opt_count(id, &job) == 0 && job > 0)
		jobopt_set(o, "jobid", json_integer(job));
	return 0;
}

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
	/* A component without a command runs the next one's (Slurm's
	 * heterogeneous_jobs.html: srun -n2 : -n1 hostname). */
	for (struct jobopt *part = o; cmd == JOBOPT_SRUN && part; part = part->het_next) {
		const struct jobopt *with = part;
		while (with && with->argc == 0)
			with = with->het_next;
		if (!with)
			return errprintf(err, "No executable name specified"), SRUN_PARSE_ERROR;
		part->argv = with->argv;
		part->argc = with->argc;
	}
	if (cmd == JOBOPT_SRUN && het_group(o, getenv_f, err) < 0)
		return SRUN_PARSE_ERROR;
	if (jobopt_flag(o, "pty") && jobopt_flag(o, "multi-prog"))
		return errprintf(err, "--pty and --multi-prog are incompatible"), SRUN_PARSE_ERROR;
	if (cmd == JOBOPT_SRUN && jobopt_flag(o, "overlap") && jobopt_flag(o, "exclusive"))
		return errprintf(err, "--exclusive and --overlap are mutually exclusive"),
		       SRUN_PARSE_ERROR;
	return SRUN_PARSE_OK;
}
