/* sacct's pure core: Slurm 22.05's fields (the -o names, widths and
 * cutting), what each shows of a job record, its batch step or one of its
 * steps, and the --json objects.  No I/O but the user and group names;
 * src/cmd/sacct.c asks the controller and prints. */
#ifndef HERD_CMD_SACCT_FIELDS_H
#define HERD_CMD_SACCT_FIELDS_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum field_id {
	F_BLANK, F_ACCOUNT, F_ALLOC_CPUS, F_ALLOC_NODES, F_ALLOC_TRES, F_CLUSTER, F_COMMENT,
	F_CONSTRAINTS, F_ELAPSED, F_ELAPSED_RAW, F_ELIGIBLE, F_END, F_EXIT_CODE, F_GID, F_GROUP,
	F_JOBID, F_JOBID_RAW, F_JOBNAME, F_NNODES, F_NODELIST, F_NTASKS, F_PARTITION, F_PRIORITY,
	F_QOS, F_REASON, F_REQ_CPUS, F_REQ_MEM, F_REQ_NODES, F_REQ_TRES, F_RESERVED, F_RESV_CPU,
	F_RESV_CPU_RAW, F_START, F_STATE, F_SUBMIT, F_TIMELIMIT, F_TIMELIMIT_RAW, F_TEAM_ACTS, F_UID, F_USER,
	F_WORKDIR, F_CPU_TIME, F_CPU_TIME_RAW, F_DERIVED_EXIT, F_LAYOUT, F_MAX_RSS, F_AVE_RSS,
	F_TOTAL_CPU, F_TRES_IN_AVE, F_TRES_IN_MAX, F_TRES_IN_TOT, F_CONTAINER, F_WCKEY, F_WCKEY_ID,
};

/* How a value is cut to its column, as Slurm's: a string longer than the
 * column ends in '+', a number is never cut, a time is cut plainly. */
enum kind { K_STR, K_NUM, K_TIME };

struct field {
	const char *name;
	int width;              /* Slurm's default; negative = left-justified */
	enum field_id id;
	enum kind kind;
};

struct column {
	const struct field *field;
	int width;              /* >= 0 */
	bool right;
};

/* How sizes print (--units, --noconvert) and whether the steps were asked
 * for (-X). */
struct show {
	char unit;              /* 'K' ... 'P'; 0: the largest unit that divides exactly */
	bool noconvert;
	bool allocations;
};

/* One line of output: a job, its batch step (batch), or one of its steps
 * (step: a STEP of the record's "steps", doc/protocol.md). */
struct row {
	const json_t *job;
	bool batch;
	time_t now;
	const char *cluster;    /* the local cluster, for records that name none */
	const json_t *step;
	const struct show *show;   /* NULL: the defaults */
};

enum parsable { PARSABLE_NO, PARSABLE_END, PARSABLE_NO_END };

struct out {
	enum parsable parsable;
	const char *delim;
};

/* The job's TRES (AllocTRES, ReqTRES; the JSON's lists): CPUs, memory in
 * MB, nodes; billing the record's (TRESBillingWeights), else the CPUs; the
 * GRES TRES its record keeps.  The batch step: its node's. */
#define SACCT_GRES_MAX 8
struct sacct_gres {
	char name[96];          /* "gres/gpu", "gres/gpu:h100" */
	long long count;
};
struct sacct_tres {
	long long cpus, mem_mb, nodes, billing;
	struct sacct_gres gres[SACCT_GRES_MAX];   /* the GRES TRES recorded */
	int ngres;
};

enum sacct_usage { USAGE_TOT, USAGE_MAX, USAGE_AVE };

struct sacct_ranked {
	const json_t *rec;
	size_t index;           /* in the reply: a requeued job's runs come in run order */
};

extern const struct show sacct_default_show;

/* "jobid,jobname%-30,state%20" (or "all") -> columns; NULL, with the
 * error printed, when a name is no field.  Caller frees. */
struct column *sacct_format_parse(const char *spec, size_t *count);
const struct show *sacct_show_of(const struct row *r);
int sacct_job_state(const json_t *job);
bool sacct_started(const json_t *job);
bool sacct_ended(const json_t *job);
bool sacct_held(const json_t *job);
int64_t sacct_elapsed(const struct row *r);
const char *sacct_shown_state(const json_t *job, bool batch);
int sacct_shown_status(const json_t *job, bool batch);
bool sacct_step_running(const json_t *step);
int64_t sacct_step_elapsed(const struct row *r);
/* A step's CPU microseconds (-1: not known) and RSS KB of a kind. */
/* The job's steps' CPU time (its batch step's is not measured); -1 with
 * no steps. */
long long sacct_steps_cpu_us(const json_t *job);
void sacct_step_usage(const json_t *step, enum sacct_usage kind, long long *cpu_us,
		      long long *rss_kb);
const char *sacct_cluster_of(const struct row *r);
/* The TRES of a job (or of its batch step); alloc: what it held, else
 * what it asked for (the GRES differ). */
struct sacct_tres sacct_job_tres(const json_t *job, bool batch, bool alloc);
/* A step's (its own CPUs, memory and nodes; the job's GRES on its nodes). */
struct sacct_tres sacct_step_tres(const json_t *job, const json_t *step);

/* sacct_tres.c: "gres/gpu=2,gres/gpu:h100=2" into t's GRES; the job's
 * recorded GRES on the nodes of a hostlist (NULL: its first node, the
 * batch step's); base ("cpu=1,mem=2G,node=1") and t's GRES as one list
 * in Slurm's order, into buf. */
void sacct_gres_parse(const char *text, struct sacct_tres *t);
void sacct_gres_on_nodes(const json_t *job, const char *nodes, struct sacct_tres *t);
/* A step's own GRES (its record's tres_gres: what it held), of the names
 * the job's record tracks; else the job's on the step's nodes. */
void sacct_gres_of_step(const json_t *job, const json_t *step, struct sacct_tres *t);
const char *sacct_tres_join(const char *base, const struct sacct_tres *t, char *buf, size_t len);
/* The GPU samples of a step of the job's record (its "gpu_usage", the
 * controller's GPU_USAGE), NULL none; their gres/gpumem (MB) and
 * gres/gpuutil (percent, summed over the step's GPUs) of a kind: Max the
 * busiest node's, Tot the nodes' added, Ave the nodes' averages' mean. */
const json_t *sacct_gpu_usage(const json_t *job, long long step_id);
bool sacct_gpu_figures(const json_t *usage, enum sacct_usage kind, long long *mem_mb,
		       long long *util);
/* The value of a column in a row, or NULL (blank); may use buf. */
const char *sacct_value(const struct column *c, const struct row *r, char *buf, size_t len);
/* Append one cell to *line as sacct prints it, cut as kind says. */
void sacct_cell_cut(char **line, const struct out *o, const struct column *c, const char *v,
		    bool last, enum kind kind);
/* The same, cut as the column's field is. */
void sacct_cell(char **line, const struct out *o, const struct column *c, const char *v,
		bool last);
/* qsort order of STEP records: extern, 0, 1 ... */
int sacct_by_step_rank(const void *x, const void *y);
/* Is a record of cluster shown for -M clusters_arg (NULL: the local one)? */
bool sacct_cluster_wanted(const char *clusters_arg, const char *cluster, const char *local);
/* --units=X: the unit, or -1 with Slurm's two lines printed. */
int sacct_units_parse(const char *arg, char *unit);
/* qsort order of struct sacct_ranked: by job, an array by task, runs in order. */
int sacct_by_record(const void *a, const void *b);
/* sacct --helpformat. */
void sacct_help_format(void);

/* sacct_json.c: --json's job object for a row, and the document around
 * the jobs (steals jobs). */
json_t *sacct_json_job(const struct row *r);
json_t *sacct_json_document(json_t *jobs);

#endif
