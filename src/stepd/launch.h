/* The LAUNCH object herdd wrote to the job's spool directory (doc/protocol.md,
 * "Controller -> node daemon"), read into plain C fields. */
#ifndef HERD_STEPD_LAUNCH_H
#define HERD_STEPD_LAUNCH_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

struct launch {
	uint32_t job_id;
	int uid, gid, umask;
	char *user, *name, *partition, *account, *cluster, *submit_host;
	char *qos;                /* optional key, NULL when absent */
	char *dependency;         /* optional: --dependency as submitted */
	char *script;
	char **argv;  size_t argc;
	char **env;   size_t envc;
	char *cwd, *std_out, *std_err, *std_in;
	char *nodes;              /* compressed hostlist of the allocation */
	int num_nodes, ntasks, cpus_per_task, cpus_on_node;
	int64_t mem_mb;
	char *tasks_per_node;     /* "2(x3),1" */
	char *cpus_per_node;      /* optional, same form; NULL = derive from cpus_on_node */
	int64_t time_limit;       /* seconds, -1 = none */
	int kill_wait;            /* seconds */
	int64_t start_time;
	int restarts;             /* optional, 0 */
	/* optional: an array task (array_job_id 0 otherwise) and its whole array */
	int64_t array_job_id, array_task_id, array_task_count, array_task_min, array_task_max,
		array_task_step;
	int64_t mem_per_cpu;      /* optional, MB; 0 = not asked */
	int ntasks_per_node;      /* optional, 0 = not asked */
	bool open_append;         /* optional open_mode "append" (default truncate) */
	int signal, signal_time;  /* optional --signal: 0 = none; seconds before the limit */
	bool signal_batch;        /* signal_flags "B": the batch shell only */
};

/* Fill l from the LAUNCH object; -1 with err naming the bad field. */
int launch_parse(const json_t *obj, struct launch *l, struct herd_error *err);
/* Read and parse a launch file. */
int launch_load(const char *path, struct launch *l, struct herd_error *err);
void launch_free(struct launch *l);

#endif
