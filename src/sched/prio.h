/* Slurm's priority/multifactor as a pure function: a job's factors (each
 * in [0,1], unless a NO_NORMAL_* flag keeps one raw) and the priority the
 * weights make of them.  No I/O, no clock: the caller gives now, the
 * cluster's totals and the job's fair-share factor (src/acct/usage.c
 * computes it; `herd sim` may give its own).  herdctld (src/ctld/prio.c)
 * and `herd sim --policy multifactor` share it. */
#ifndef HERD_SCHED_PRIO_H
#define HERD_SCHED_PRIO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* PriorityFlags (slurm.conf(5)); those marked (usage) are the fair-share
 * code's business and only carried here. */
enum {
	PRIO_FLAG_ACCRUE_ALWAYS = 1u << 0,          /* age from submission, eligible or not */
	PRIO_FLAG_CALCULATE_RUNNING = 1u << 1,      /* running jobs' priority recomputed too */
	PRIO_FLAG_DEPTH_OBLIVIOUS = 1u << 2,        /* (usage) */
	PRIO_FLAG_NO_FAIR_TREE = 1u << 3,           /* (usage) classic fair-share */
	PRIO_FLAG_INCR_ONLY = 1u << 4,              /* a job's priority only rises */
	PRIO_FLAG_MAX_TRES = 1u << 5,               /* (usage) billing: the largest TRES */
	PRIO_FLAG_NO_NORMAL_ASSOC = 1u << 6,        /* assoc factor: its priority, raw */
	PRIO_FLAG_NO_NORMAL_PART = 1u << 7,         /* partition factor: PriorityJobFactor, raw */
	PRIO_FLAG_NO_NORMAL_QOS = 1u << 8,          /* QOS factor: its Priority, raw */
	PRIO_FLAG_NO_NORMAL_TRES = 1u << 9,         /* TRES factors: the job's counts, raw */
	PRIO_FLAG_SMALL_RELATIVE_TO_TIME = 1u << 10, /* job size / time limit */
};
#define PRIO_FLAG_NO_NORMAL_ALL (PRIO_FLAG_NO_NORMAL_ASSOC | PRIO_FLAG_NO_NORMAL_PART | \
				 PRIO_FLAG_NO_NORMAL_QOS | PRIO_FLAG_NO_NORMAL_TRES)

/* The TRES PriorityWeightTRES may weigh, in sprio's %T order. */
enum prio_tres { PRIO_TRES_CPU, PRIO_TRES_MEM, PRIO_TRES_NODE, PRIO_TRES_BILLING,
		 PRIO_TRES_GPU, PRIO_TRES_COUNT };
const char *prio_tres_name(enum prio_tres t);   /* "cpu", "mem", "node", "billing", "gres/gpu" */

/* The configuration: PriorityWeight*, PriorityMaxAge, PriorityFavorSmall,
 * PriorityFlags. */
struct prio_weights {
	uint32_t age, assoc, fairshare, job_size, partition, qos;
	double tres[PRIO_TRES_COUNT];   /* PriorityWeightTRES, 0 = not weighed */
	int64_t max_age;                /* seconds; PriorityMaxAge, default 7-0 */
	bool favor_small;               /* PriorityFavorSmall */
	unsigned flags;                 /* PRIO_FLAG_* */
};
#define PRIO_MAX_AGE_DEFAULT (7 * 86400)

/* Defaults: every weight 0, max_age 7 days, no flags. */
void prio_weights_init(struct prio_weights *w);
/* PriorityFlags "ACCRUE_ALWAYS,SMALL_RELATIVE_TO_TIME" into *flags; -1 with
 * a sentence in err for an unknown flag.  NULL or "" is 0. */
int prio_flags_parse(const char *s, unsigned *flags, char *err, size_t errlen);
/* PriorityWeightTRES "CPU=1000,Mem=2000,GRES/gpu=3000" (names as Slurm's,
 * any case) into w[]; -1 with err for an unknown TRES or a bad number. */
int prio_tres_weights_parse(const char *s, double w[PRIO_TRES_COUNT], char *err, size_t errlen);

/* What factors are normalized against: the cluster's and the highest
 * partition, QOS and association priorities (0: that factor is 0). */
struct prio_cluster {
	uint32_t nodes, cpus;           /* the cluster's (job size) */
	uint32_t max_part_factor;       /* highest PriorityJobFactor of all partitions */
	uint32_t max_qos_priority;      /* highest QOS Priority */
	uint32_t max_assoc_priority;    /* highest association Priority */
};

struct prio_job {
	time_t submit_time;
	time_t eligible_time;           /* since when it may run (accrues age); 0 = not yet */
	uint32_t nodes, cpus;           /* asked: min nodes, CPUs */
	int64_t time_limit;             /* seconds, <0 = none (SMALL_RELATIVE_TO_TIME) */
	double fairshare;               /* [0,1]: the user's FairShare (sshare's) */
	uint32_t part_factor;           /* its partition's PriorityJobFactor */
	uint32_t qos_priority;          /* its QOS's Priority */
	uint32_t assoc_priority;        /* its association's Priority */
	double tres[PRIO_TRES_COUNT];   /* what it asks (mem in MB) */
	double part_tres[PRIO_TRES_COUNT]; /* its partition's total of each */
	int64_t nice;
	int64_t site;                   /* the site factor (0 without a plugin) */
	bool held;                      /* priority 0 */
};

/* A job's factors as sprio shows them: normalized (sprio -n) and weighted. */
struct prio_factors {
	double age, assoc, fairshare, job_size, partition, qos;
	double tres[PRIO_TRES_COUNT];
	double w_age, w_assoc, w_fairshare, w_job_size, w_partition, w_qos;
	double w_tres[PRIO_TRES_COUNT];
	int64_t nice, site;
};

/* The job's factors into out (may be NULL) and its priority:
 * site + Σ weight×factor + Σ TRES weight×factor − nice, truncated to an
 * integer, at least 1 (0 is for held jobs), at most 0xFFFFFFFE. */
uint32_t prio_compute(const struct prio_weights *w, const struct prio_cluster *c,
		      const struct prio_job *job, time_t now, struct prio_factors *out);

/* The weighted TRES of f as sprio's %T prints them: "cpu=500,mem=20"
 * (weighed ones only, rounded); "" when none. */
void prio_tres_string(const struct prio_weights *w, const struct prio_factors *f, char *buf,
		      size_t len);
#endif
