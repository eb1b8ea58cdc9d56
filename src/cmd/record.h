/* scontrol show's records: a job, node or partition in Slurm's KEY=VALUE
 * layout, as a list of lines that record_print writes as a paragraph (or
 * one line, -o).  Pure rendering from the controller's JSON; scontrol_show.c
 * does the asking. */
#ifndef HERD_CMD_RECORD_H
#define HERD_CMD_RECORD_H
#include <jansson.h>
#include <stdbool.h>
#include <time.h>

/* A record is a list of lines; printed as a paragraph or, with -o, joined. */
struct record {
	char **lines;
	size_t count;
};


void record_add(struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void record_print(struct record *r, bool oneliner);   /* and empties r */
/* details: scontrol -d (1) or -dd (2). */
void record_job(const json_t *job, time_t now, int details, struct record *r);
/* Its TRES as scontrol show job's TRES= (squeue -O tres-alloc): what it
 * holds, or while pending what it asks; into buf. */
const char *record_job_tres(const json_t *job, char *buf, size_t len);
void record_node(const json_t *node, long long slurmd_port, int details, struct record *r);
/* A job step (a STEP of STEP_INFO) as scontrol show step prints it. */
void record_step(const json_t *step, struct record *r);
void record_partition(const json_t *part, long long mem, const char *cluster_preempt_mode,
		      struct record *r);

#endif
