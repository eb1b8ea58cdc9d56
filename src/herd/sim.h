/* `herd sim`: replay a Standard Workload Format trace through src/sched's
 * pass (pass.h) in virtual time.  The pieces: the SWF reader (sim_swf.c),
 * the replay loop (sim_run.c), the figures, CSV and SVG (sim_out.c), the
 * command line and the config (sim.c).  Nothing here runs a daemon. */
#ifndef HERD_SIM_H
#define HERD_SIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/error.h"
#include "sched/pass.h"
#include "herd/sim_prio.h"

/* The fields of one SWF job line that replay uses, as written (-1 where
 * the trace says unknown). */
struct swf_job {
	long id;                  /* 1: job number */
	int64_t submit;           /* 2: submit time, s */
	int64_t run;              /* 4: run time, s */
	long alloc_procs;         /* 5: allocated processors */
	long req_procs;           /* 8: requested processors */
	int64_t req_time;         /* 9: requested time, s */
	long user, group;         /* 12, 13 */
	long queue, partition;    /* 15, 16 */
	long preceding;           /* 17: the job this one follows */
	int64_t think;            /* 18: s after that job's end it was submitted */
};

struct swf_trace {
	struct swf_job *jobs;
	size_t njobs;
	long max_procs, max_nodes;   /* header "; MaxProcs:", "; MaxNodes:"; 0 when absent */
};

/* One line: 1 and *job filled for a job line, 0 for a header, comment or
 * blank line (a "; MaxProcs: N" header fills trace's field when trace is
 * not NULL), -1 with err for a malformed line (not 18 numbers). */
int swf_parse_line(const char *line, struct swf_job *job, struct swf_trace *trace,
		   struct herd_error *err);
/* Read path (plain or gzip, told apart by its content) up to max_jobs job
 * lines (0: all).  -1 with err ("FILE:LINE: ...") on a missing file or a
 * malformed line. */
int swf_load(const char *path, size_t max_jobs, struct swf_trace *trace, struct herd_error *err);
void swf_trace_free(struct swf_trace *trace);

/* The replay rules (as the literature uses them): size = field 5, else 8;
 * estimate = field 9, else the run time; the job runs min(run, estimate)
 * (killed at its estimate). */
long swf_job_size(const struct swf_job *job);
int64_t swf_job_estimate(const struct swf_job *job);
int64_t swf_job_runtime(const struct swf_job *job);

/* SIM_SLURM: the controller's own code (sim_core.c), not this loop */
enum sim_policy { SIM_FCFS, SIM_EASY, SIM_MULTIFACTOR, SIM_SLURM };

struct sim_machine {
	int nnodes;
	int *cpus;                  /* per node */
};

struct sim_opts {
	enum sim_policy policy;
	struct sim_machine machine;
	/* The pass's bounds (SchedulerParameters for multifactor; EASY and FCFS
	 * are exact: no window, 1 s resolution, every job looked at). */
	bool backfill;
	int window, resolution, max_job_test, max_job_user, max_reservations;
	struct sim_prio_conf prio;   /* multifactor */
};

/* One simulated job's outcome (times in the trace's seconds: from the
 * replay's start).  A job preempted and run again (--policy slurm): start
 * is its first start, end its last end, run the seconds of all its runs.
 * The controller's view of it (jobid, name, user, nodes) only under
 * --policy slurm: empty otherwise; owned by the result. */
struct sim_outcome {
	long id;                     /* the source's number (SWF job, jobs file line) */
	int64_t submit, start, end;
	int64_t run, estimate;
	long procs;
	char jobid[32];              /* as squeue shows it: "12", "10_3" */
	char *name, *user, *nodes;   /* job name, user name, allocated nodes ("n[1-2]") */
	int64_t last_start;          /* its last run's start (sacct's Start); 0 with no jobid */
};

/* Utilization and queue length after each batch of events. */
struct sim_sample {
	int64_t time;
	long busy_cpus;
	long queued;
};

struct sim_result {
	struct sim_outcome *jobs;    /* in trace order, simulated jobs only */
	size_t njobs;
	size_t skipped_big;          /* bigger than the machine */
	size_t skipped_bad;          /* no size or no run time */
	struct sim_sample *samples;
	size_t nsamples;
	long procs;                  /* the machine's CPUs */
	int nnodes;                  /* and nodes */
	size_t passes;
};

/* Replay trace under opts.  -1 with err when a job never fits although it
 * is not bigger than the machine (a node model that cannot hold it). */
int sim_run(const struct swf_trace *trace, const struct sim_opts *opts, struct sim_result *res,
	    struct herd_error *err);
void sim_result_free(struct sim_result *res);

#define SIM_BSLD_TAU 10          /* bounded slowdown's threshold, s */

struct sim_metrics {
	size_t njobs;
	double utilization;          /* fraction of procs x makespan */
	double mean_wait;
	int64_t max_wait;
	double mean_bsld;
	int64_t makespan;            /* last end - first submit */
};

double sim_bsld(const struct sim_outcome *job);
void sim_metrics_compute(const struct sim_outcome *jobs, size_t n, long procs,
			 struct sim_metrics *m);
int sim_write_csv(FILE *f, const struct sim_result *res);
int sim_write_svg(FILE *f, const struct sim_result *res, const char *title);

int herd_sim_main(int argc, char **argv);

#endif
