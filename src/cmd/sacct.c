/* sacct: job accounting records from the controller's store (ACCT_JOBS),
 * printed in Slurm's sacct formats: fixed-width columns with a dashed line
 * (-o Name%N, '-' for left), -p/-P with '|', the batch step as "N.batch".
 * Which jobs: sacct(1)'s rules for users (-u/-a), IDs, states and the
 * default time window; the controller applies the window, this file the
 * rest.  Each job's steps (N.0, N.1 ...) follow its batch step, from the
 * record's "steps", with the usage their herdstepds measured (TotalCPU,
 * MaxRSS, AveRSS); what Herd does not measure prints empty. */
#include <ctype.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "cmd/step.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

enum field_id {
	F_BLANK, F_ACCOUNT, F_ALLOC_CPUS, F_ALLOC_NODES, F_ALLOC_TRES, F_CLUSTER, F_COMMENT,
	F_CONSTRAINTS, F_ELAPSED, F_ELAPSED_RAW, F_ELIGIBLE, F_END, F_EXIT_CODE, F_GID, F_GROUP,
	F_JOBID, F_JOBID_RAW, F_JOBNAME, F_NNODES, F_NODELIST, F_NTASKS, F_PARTITION, F_PRIORITY,
	F_QOS, F_REASON, F_REQ_CPUS, F_REQ_MEM, F_REQ_NODES, F_REQ_TRES, F_RESERVED, F_RESV_CPU,
	F_RESV_CPU_RAW, F_START, F_STATE, F_SUBMIT, F_TIMELIMIT, F_TIMELIMIT_RAW, F_UID, F_USER,
	F_WORKDIR, F_CPU_TIME, F_CPU_TIME_RAW, F_DERIVED_EXIT, F_LAYOUT, F_MAX_RSS, F_AVE_RSS,
	F_TOTAL_CPU, F_TRES_IN_AVE, F_TRES_IN_MAX, F_TRES_IN_TOT,
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

/* Slurm 22.05's fields, in its order and widths (sacct --helpformat; -o
 * all): a name given to -o matches the first field it begins ("job" is
 * JobID, "n" NCPUS).  F_BLANK: what Herd does not record (energy, disk
 * and VM sizes, CPU frequencies, wckeys, reservations ...). */
static const struct field fields[] = {
	{ "Account", 10, F_ACCOUNT, K_STR }, { "AdminComment", 15, F_BLANK, K_STR },
	{ "AllocCPUS", 10, F_ALLOC_CPUS, K_NUM }, { "AllocNodes", 10, F_ALLOC_NODES, K_STR },
	{ "AllocTRES", 10, F_ALLOC_TRES, K_STR }, { "AssocID", 7, F_BLANK, K_NUM },
	{ "AveCPU", 10, F_BLANK, K_STR }, { "AveCPUFreq", 10, F_BLANK, K_STR },
	{ "AveDiskRead", 14, F_BLANK, K_STR }, { "AveDiskWrite", 14, F_BLANK, K_STR },
	{ "AvePages", 10, F_BLANK, K_STR }, { "AveRSS", 10, F_AVE_RSS, K_STR },
	{ "AveVMSize", 10, F_BLANK, K_STR }, { "BlockID", 16, F_BLANK, K_STR },
	{ "Cluster", 10, F_CLUSTER, K_STR }, { "Comment", 14, F_COMMENT, K_STR },
	{ "Constraints", 19, F_CONSTRAINTS, K_STR }, { "ConsumedEnergy", 14, F_BLANK, K_STR },
	{ "ConsumedEnergyRaw", 17, F_BLANK, K_NUM }, { "Container", 19, F_BLANK, K_STR },
	{ "CPUTime", 10, F_CPU_TIME, K_TIME }, { "CPUTimeRAW", 10, F_CPU_TIME_RAW, K_NUM },
	{ "DBIndex", -10, F_BLANK, K_NUM }, { "DerivedExitCode", 15, F_DERIVED_EXIT, K_STR },
	{ "Elapsed", 10, F_ELAPSED, K_TIME }, { "ElapsedRaw", 10, F_ELAPSED_RAW, K_NUM },
	{ "Eligible", 19, F_ELIGIBLE, K_TIME }, { "End", 19, F_END, K_TIME },
	{ "ExitCode", 8, F_EXIT_CODE, K_STR }, { "Flags", 19, F_BLANK, K_STR },
	{ "GID", 6, F_GID, K_NUM }, { "Group", 9, F_GROUP, K_STR },
	{ "JobID", -12, F_JOBID, K_STR }, { "JobIDRaw", -12, F_JOBID_RAW, K_STR },
	{ "JobName", 10, F_JOBNAME, K_STR }, { "Layout", 9, F_LAYOUT, K_STR },
	{ "MaxDiskRead", 12, F_BLANK, K_STR }, { "MaxDiskReadNode", 15, F_BLANK, K_STR },
	{ "MaxDiskReadTask", 15, F_BLANK, K_NUM }, { "MaxDiskWrite", 12, F_BLANK, K_STR },
	{ "MaxDiskWriteNode", 16, F_BLANK, K_STR }, { "MaxDiskWriteTask", 16, F_BLANK, K_NUM },
	{ "MaxPages", 8, F_BLANK, K_STR }, { "MaxPagesNode", 12, F_BLANK, K_STR },
	{ "MaxPagesTask", 14, F_BLANK, K_NUM }, { "MaxRSS", 10, F_MAX_RSS, K_STR },
	{ "MaxRSSNode", 10, F_BLANK, K_STR }, { "MaxRSSTask", 10, F_BLANK, K_NUM },
	{ "MaxVMSize", 10, F_BLANK, K_STR }, { "MaxVMSizeNode", 14, F_BLANK, K_STR },
	{ "MaxVMSizeTask", 14, F_BLANK, K_NUM }, { "McsLabel", 12, F_BLANK, K_STR },
	{ "MinCPU", 10, F_BLANK, K_STR }, { "MinCPUNode", 10, F_BLANK, K_STR },
	{ "MinCPUTask", 10, F_BLANK, K_NUM }, { "NCPUS", 10, F_ALLOC_CPUS, K_NUM },
	{ "NNodes", 8, F_NNODES, K_NUM }, { "NodeList", 15, F_NODELIST, K_STR },
	{ "NTasks", 8, F_NTASKS, K_NUM }, { "Partition", 10, F_PARTITION, K_STR },
	{ "Priority", 10, F_PRIORITY, K_NUM }, { "QOS", 10, F_QOS, K_STR },
	{ "QOSRAW", 6, F_BLANK, K_NUM }, { "Reason", 22, F_REASON, K_STR },
	{ "ReqCPUFreq", 10, F_BLANK, K_STR }, { "ReqCPUFreqGov", 13, F_BLANK, K_STR },
	{ "ReqCPUFreqMax", 13, F_BLANK, K_STR }, { "ReqCPUFreqMin", 13, F_BLANK, K_STR },
	{ "ReqCPUS", 8, F_REQ_CPUS, K_NUM }, { "ReqMem", 10, F_REQ_MEM, K_STR },
	{ "ReqNodes", 8, F_REQ_NODES, K_STR }, { "ReqTRES", 10, F_REQ_TRES, K_STR },
	{ "Reservation", 20, F_BLANK, K_STR }, { "ReservationId", 8, F_BLANK, K_NUM },
	{ "Reserved", 10, F_RESERVED, K_TIME }, { "ResvCPU", 10, F_RESV_CPU, K_TIME },
	{ "ResvCPURAW", 10, F_RESV_CPU_RAW, K_NUM }, { "Start", 19, F_START, K_TIME },
	{ "State", 10, F_STATE, K_STR }, { "Submit", 19, F_SUBMIT, K_TIME },
	{ "SubmitLine", 20, F_BLANK, K_STR }, { "Suspended", 10, F_BLANK, K_TIME },
	{ "SystemComment", 15, F_BLANK, K_STR }, { "SystemCPU", 10, F_BLANK, K_STR },
	{ "Timelimit", 10, F_TIMELIMIT, K_STR }, { "TimelimitRaw", 10, F_TIMELIMIT_RAW, K_STR },
	{ "TotalCPU", 10, F_TOTAL_CPU, K_STR }, { "TRESUsageInAve", 14, F_TRES_IN_AVE, K_STR },
	{ "TRESUsageInMax", 14, F_TRES_IN_MAX, K_STR }, { "TRESUsageInMaxNode", 18, F_BLANK, K_STR },
	{ "TRESUsageInMaxTask", 18, F_BLANK, K_STR }, { "TRESUsageInMin", 14, F_BLANK, K_STR },
	{ "TRESUsageInMinNode", 18, F_BLANK, K_STR }, { "TRESUsageInMinTask", 18, F_BLANK, K_STR },
	{ "TRESUsageInTot", 14, F_TRES_IN_TOT, K_STR }, { "TRESUsageOutAve", 15, F_BLANK, K_STR },
	{ "TRESUsageOutMax", 15, F_BLANK, K_STR }, { "TRESUsageOutMaxNode", 19, F_BLANK, K_STR },
	{ "TRESUsageOutMaxTask", 19, F_BLANK, K_STR }, { "TRESUsageOutMin", 15, F_BLANK, K_STR },
	{ "TRESUsageOutMinNode", 19, F_BLANK, K_STR }, { "TRESUsageOutMinTask", 19, F_BLANK, K_STR },
	{ "TRESUsageOutTot", 15, F_BLANK, K_STR }, { "UID", 6, F_UID, K_NUM },
	{ "User", 9, F_USER, K_STR }, { "UserCPU", 10, F_BLANK, K_STR },
	{ "WCKey", 10, F_BLANK, K_STR }, { "WCKeyID", 10, F_BLANK, K_NUM },
	{ "WorkDir", 20, F_WORKDIR, K_STR },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

#define DEFAULT_FORMAT "jobid,jobname,partition,account,alloccpus,state,exitcode"
#define BRIEF_FORMAT "jobid,state,exitcode"
#define LONG_FORMAT \
	"jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize," \
	"maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages," \
	"mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode," \
	"avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy," \
	"maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite," \
	"maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave," \
	"tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn," \
	"tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt," \
	"tresusageoutave,tresusageouttot"

struct column {
	const struct field *field;
	int width;              /* >= 0 */
	bool right;
};

/* "jobid,jobname%-30,state%20" -> columns; NULL (bad names printed) when a
 * name matches no field.  %N: N characters right-justified, %-N left (N
 * read as Slurm's atoi does: "%x" is 0, an empty column).  A name that
 * begins "ALL" ("a", "al", "all") is every field, as in Slurm. */
static struct column *sacct_format_parse(const char *spec, size_t *count)
{
	size_t n;
	char **names = opt_split(spec, ',', &n);
	size_t cap = n + 1;
	struct column *cols = xmalloc(cap * sizeof(*cols));

	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char *name = names[i], *pct = strchr(name, '%');
		if (pct)
			*pct = '\0';
		size_t len = strlen(name);
		if (len && !strncasecmp("ALL", name, len)) {
			cap += NFIELDS;
			cols = xrealloc(cols, cap * sizeof(*cols));
			for (size_t k = 0; k < NFIELDS; k++)
				cols[(*count)++] = (struct column){ &fields[k], abs(fields[k].width),
								   fields[k].width > 0 };
			continue;
		}
		const struct field *f = NULL;
		for (size_t k = 0; len && k < NFIELDS && !f; k++)
			if (!strncasecmp(fields[k].name, name, len))
				f = &fields[k];
		if (!f) {
			fprintf(stderr, "sacct: error: Invalid field requested: \"%s\"\n", name);
			goto error;
		}
		struct column c = { f, abs(f->width), f->width > 0 };
		if (pct) {
			bool left = pct[1] == '-';
			long w = strtol(left ? pct + 2 : pct + 1, NULL, 10);
			if (w < 0 || w > 10000) {
				fprintf(stderr, "sacct: error: Invalid field requested: \"%s%%%s\"\n",
					name, pct + 1);
				goto error;
			}
			c.width = (int)w;
			c.right = !left;
		}
		cols[(*count)++] = c;
	}
	opt_strv_free(names);
	return cols;
error:
	opt_strv_free(names);
	free(cols);
	return NULL;
}

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

static const struct show default_show = { 0, false, false };

static const struct show *show_of(const struct row *r)
{
	return r->show ? r->show : &default_show;
}

/* sacct's durations: [D-]HH:MM:SS. */
static const char *duration(int64_t secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	int64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	if (d)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)d, (long long)h,
			 (long long)m, (long long)s);
	else
		snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)h, (long long)m, (long long)s);
	return buf;
}

/* An earlier run of a requeued job (sacct -D): its own record, state
 * REQUEUED, which is no state a job has in the controller. */
static bool requeued(const json_t *job)
{
	return !strcmp(cmd_jstr(job, "state"), "REQUEUED");
}

static int job_state(const json_t *job)
{
	return job_state_parse(cmd_jstr(job, "state"));
}

static bool started(const json_t *job)
{
	int s = job_state(job);
	json_t *alloc = json_object_get(job, "alloc");
	return s != JOB_PENDING && cmd_jint(job, "start_time") && json_array_size(alloc) > 0;
}

static bool ended(const json_t *job)
{
	int s = job_state(job);
	return (s >= 0 && job_state_is_final(s)) || requeued(job);
}

static bool held(const json_t *job)
{
	return job_state(job) == JOB_PENDING &&
	       (cmd_jbool(job, "hold_user") || cmd_jbool(job, "hold_admin"));
}

static int64_t elapsed(const struct row *r)
{
	int64_t start = cmd_jint(r->job, "start_time"), end = cmd_jint(r->job, "end_time");
	if (!start || job_state(r->job) == JOB_PENDING)
		return 0;
	if (!ended(r->job))
		return r->now > start ? r->now - start : 0;
	return end > start ? end - start : 0;
}

/* Reserved: how long the job waited once eligible, start - eligible (to
 * now while pending); a held job is not eligible. */
static int64_t reserved(const struct row *r)
{
	int64_t start = cmd_jint(r->job, "start_time"), eligible = cmd_jint(r->job, "eligible_time");
	if (!eligible || held(r->job))
		return 0;
	if (job_state(r->job) != JOB_PENDING && start)
		return start > eligible ? start - eligible : 0;
	return r->now > eligible ? r->now - eligible : 0;
}

/* What a state reads as in the accounting: a job being cancelled already
 * is CANCELLED there, one completing otherwise still RUNNING. */
static const char *shown_state(const json_t *job, bool batch)
{
	int s = job_state(job);
	if (s == JOB_COMPLETING)
		return cmd_jbool(job, "cancel_requested") && !batch ? "CANCELLED" : "RUNNING";
	if (!batch)
		return cmd_jstr(job, "state");
	/* The batch step ends as its script did: killed by the time limit, a
	 * lost node or the requeue, Slurm records the step CANCELLED. */
	if (requeued(job))
		return "CANCELLED";
	switch (s) {
	case JOB_TIMEOUT: case JOB_NODE_FAIL: return "CANCELLED";
	default: return cmd_jstr(job, "state");
	}
}

/* "code:signal" from a raw wait status, as sacct prints it. */
static const char *exit_code(int status, char *buf, size_t len)
{
	int code = 0, sig = 0;
	if (WIFSIGNALED(status))
		sig = WTERMSIG(status);
	else if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	if (code >= 128)
		code -= 128;
	snprintf(buf, len, "%d:%d", code, sig);
	return buf;
}

/* The wait status a job's (or its batch step's) ExitCode shows: a job
 * cancelled, timed out or requeued ends 0:0; its batch step shows the
 * signal that ended the script. */
static int shown_status(const json_t *job, bool batch)
{
	int state = job_state(job);
	if (!ended(job))
		return 0;
	if (!batch && (state == JOB_CANCELLED || state == JOB_TIMEOUT || requeued(job)))
		return 0;
	return (int)cmd_jint(job, "exit_code");
}

static int batch_cpus(const json_t *job)
{
	json_t *first = json_array_get(json_object_get(job, "alloc"), 0);
	return (int)json_integer_value(json_array_get(first, 1));
}

/* A size as sacct prints it: value counts units of 1024^from (0 bytes,
 * 1 K, 2 M).  By default in the largest unit that divides it exactly
 * (13384K, 2G, 4000M); --units=X in X, two decimals unless whole (13.07M,
 * 0.10G); --noconvert as counted, bytes with no suffix. */
static const char *size_text(uint64_t value, int from, const struct show *sh, char *buf,
			     size_t len)
{
	static const char units[] = " KMGTPE";
	if (value == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (sh->unit) {
		int to = (int)(strchr(units, sh->unit) - units);
		double v = (double)value;
		for (int u = from; u < to; u++)
			v /= 1024;
		for (int u = to; u < from; u++)
			v *= 1024;
		if (v == (double)(uint64_t)v)
			snprintf(buf, len, "%.0f%c", v, sh->unit);
		else
			snprintf(buf, len, "%.2f%c", v, sh->unit);
		return buf;
	}
	int u = from;
	while (!sh->noconvert && units[u + 1] && value % 1024 == 0) {
		value /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%llu%c", (unsigned long long)value, units[u]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)value);
	return buf;
}

/* mem= of a TRES string (AllocTRES, ReqTRES): megabytes, exact, whatever
 * --units says (as Slurm). */
static const char *mem_text(long long mb, char *buf, size_t len)
{
	return size_text(mb > 0 ? (uint64_t)mb : 0, 2, &default_show, buf, len);
}

/* TotalCPU as sacct prints it: [D-]HH:MM:SS past an hour, MM:SS.mmm
 * under one, and 00:00:00 for none. */
static const char *cpu_text(long long us, char *buf, size_t len)
{
	long long secs = us / 1000000, ms = us % 1000000 / 1000;
	long long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	if (us <= 0)
		snprintf(buf, len, "00:00:00");
	else if (d)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
	else if (h)
		snprintf(buf, len, "%02lld:%02lld:%02lld", h, m, s);
	else
		snprintf(buf, len, "%02lld:%02lld.%03lld", m, s, ms);
	return buf;
}

/* MaxRSS/AveRSS: kilobytes as sacct prints bytes (10820K, 2G; with
 * --noconvert the bytes). */
static const char *kb_text(long long kb, const struct show *sh, char *buf, size_t len)
{
	return size_text(kb > 0 ? (uint64_t)kb * 1024 : 0, 0, sh, buf, len);
}

static bool step_running(const json_t *step)
{
	return !strcmp(cmd_jstr(step, "state"), "RUNNING");
}

static int64_t step_elapsed(const struct row *r)
{
	int64_t start = cmd_jint(r->step, "start_time"), end = cmd_jint(r->step, "end_time");
	if (!start)
		return 0;
	if (step_running(r->step) || !end)
		return r->now > start ? r->now - start : 0;
	return end > start ? end - start : 0;
}

/* The job's steps' CPU time (its batch step's is not measured); -1 with
 * no steps. */
static long long steps_cpu_us(const json_t *job)
{
	long long us = -1;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(job, "steps"), i, step)
		us = (us < 0 ? 0 : us) + cmd_jint(step, "cpu_time_us");
	return us;
}

enum usage_kind { USAGE_TOT, USAGE_MAX, USAGE_AVE };

/* A step's measured use, per kind, as TRESUsageIn* and the JSON's TRES
 * lists count it: CPU microseconds and RSS kilobytes.  Herd measures a
 * step per node, not per task: the maximum is the busiest node's, the
 * total the nodes' sum, the average CPU the total over the tasks and the
 * average RSS the nodes' average over time.  cpu_us -1: not known (a
 * record from before max_cpu_us, on several nodes). */
static void step_usage(const json_t *step, enum usage_kind kind, long long *cpu_us,
		       long long *rss_kb)
{
	long long cpu = cmd_jint(step, "cpu_time_us"), tasks = cmd_jint(step, "num_tasks");
	bool one_node = cmd_jint(step, "num_nodes") <= 1;
	switch (kind) {
	case USAGE_TOT:
		*cpu_us = cpu;
		*rss_kb = json_object_get(step, "tot_rss_kb") ? cmd_jint(step, "tot_rss_kb")
							      : cmd_jint(step, "max_rss_kb");
		break;
	case USAGE_MAX:
		*cpu_us = json_object_get(step, "max_cpu_us") ? cmd_jint(step, "max_cpu_us")
							      : one_node ? cpu : -1;
		*rss_kb = cmd_jint(step, "max_rss_kb");
		break;
	case USAGE_AVE:
		*cpu_us = cpu / (tasks > 0 ? tasks : 1);
		*rss_kb = cmd_jint(step, "ave_rss_kb");
		break;
	}
}

/* TRESUsageInTot/Max/Ave: "cpu=00:00:02,mem=13384K" (CPU time in whole
 * seconds, memory as MaxRSS prints); nothing while the step runs. */
static const char *tres_usage_text(const json_t *step, enum usage_kind kind,
				   const struct show *sh, char *buf, size_t len)
{
	long long cpu, rss;
	char t[32], m[32];
	if (step_running(step))
		return NULL;
	step_usage(step, kind, &cpu, &rss);
	if (cpu < 0)
		snprintf(buf, len, "mem=%s", kb_text(rss, sh, m, sizeof(m)));
	else
		snprintf(buf, len, "cpu=%s,mem=%s", duration(cpu / 1000000, t, sizeof(t)),
			 kb_text(rss, sh, m, sizeof(m)));
	return buf;
}

static const char *cluster_of(const struct row *r)
{
	const char *c = cmd_jstr(r->job, "cluster");
	return *c ? c : r->cluster;
}

/* The job's TRES (AllocTRES, ReqTRES; the JSON's lists): CPUs, memory in
 * MB, nodes; billing is the CPUs (no TRESBillingWeights).  The batch
 * step: its node's. */
struct job_tres {
	long long cpus, mem_mb, nodes, billing;
};

static struct job_tres job_tres(const json_t *job, bool batch)
{
	struct job_tres t;
	t.cpus = batch ? batch_cpus(job) : cmd_jint(job, "num_cpus");
	t.nodes = batch ? 1 : cmd_jint(job, "num_nodes");
	t.mem_mb = cmd_jint(job, "mem_per_node") * t.nodes;
	if (cmd_jint(job, "mem_per_cpu") > 0)   /* --mem-per-cpu: CPUs times it */
		t.mem_mb = cmd_jint(job, "mem_per_cpu") * t.cpus;
	t.billing = t.cpus;
	return t;
}

/* A field of one of the job's steps (N.0, N.1 ...): its own layout, times
 * and usage; the job's account and cluster; blank where Slurm leaves a
 * step blank (partition, user, limits ...). */
static const char *step_value(const struct column *c, const struct row *r, char *buf, size_t len)
{
	const json_t *job = r->job, *step = r->step;
	long long id = cmd_jint(step, "step_id"), cpus = cmd_jint(step, "num_cpus");
	char name[24], a[4096], mem[32];

	switch (c->field->id) {
	case F_ACCOUNT: return cmd_jstr(job, "account");
	case F_CLUSTER: return cluster_of(r);
	case F_JOBID:
		snprintf(buf, len, "%s.%s", cmd_job_id(job, -1, a, sizeof(a)),
			 cmd_step_name(id, name, sizeof(name)));
		return buf;
	case F_JOBID_RAW:
		snprintf(buf, len, "%lld.%s", cmd_jint(job, "job_id"), cmd_step_name(id, name, sizeof(name)));
		return buf;
	case F_JOBNAME: return cmd_jstr(step, "name");
	case F_ALLOC_CPUS: case F_REQ_CPUS:
		snprintf(buf, len, "%lld", cpus);
		return buf;
	case F_ALLOC_NODES: case F_NNODES: case F_REQ_NODES:
		snprintf(buf, len, "%lld", cmd_jint(step, "num_nodes"));
		return buf;
	case F_NTASKS:
		snprintf(buf, len, "%lld", cmd_jint(step, "num_tasks"));
		return buf;
	case F_NODELIST: return cmd_jstr(step, "nodes");
	case F_ALLOC_TRES: {
		long long mb = cmd_jint(step, "mem_mb") * cmd_jint(step, "num_nodes");
		snprintf(buf, len, "cpu=%lld,mem=%s,node=%lld", cpus, mem_text(mb, mem, sizeof(mem)),
			 cmd_jint(step, "num_nodes"));
		return buf;
	}
	case F_ELAPSED: return duration(step_elapsed(r), buf, len);
	case F_ELAPSED_RAW:
		snprintf(buf, len, "%lld", (long long)step_elapsed(r));
		return buf;
	case F_CPU_TIME: return duration(step_elapsed(r) * cpus, buf, len);
	case F_CPU_TIME_RAW:
		snprintf(buf, len, "%lld", (long long)step_elapsed(r) * cpus);
		return buf;
	case F_SUBMIT: case F_ELIGIBLE: case F_START:
		return fmt_timestamp(cmd_jint(step, "start_time"), buf, len);
	case F_END:
		return fmt_timestamp(step_running(step) ? 0 : cmd_jint(step, "end_time"), buf, len);
	case F_STATE:
		/* scancel N.S records who asked; a step its job's end killed is
		 * plain CANCELLED */
		if (!strcmp(cmd_jstr(step, "state"), "CANCELLED") && json_object_get(step, "requid")) {
			snprintf(buf, len, "CANCELLED by %lld", cmd_jint(step, "requid"));
			return buf;
		}
		return cmd_jstr(step, "state");
	case F_EXIT_CODE: return exit_code((int)cmd_jint(step, "exit_code"), buf, len);
	case F_LAYOUT: return cmd_step_dist(step);
	case F_TOTAL_CPU: return cpu_text(cmd_jint(step, "cpu_time_us"), buf, len);
	case F_MAX_RSS: case F_AVE_RSS:
		if (step_running(step))
			return NULL;
		return kb_text(cmd_jint(step, c->field->id == F_MAX_RSS ? "max_rss_kb" : "ave_rss_kb"),
			       show_of(r), buf, len);
	case F_TRES_IN_TOT: return tres_usage_text(step, USAGE_TOT, show_of(r), buf, len);
	case F_TRES_IN_MAX: return tres_usage_text(step, USAGE_MAX, show_of(r), buf, len);
	case F_TRES_IN_AVE: return tres_usage_text(step, USAGE_AVE, show_of(r), buf, len);
	default:
		return NULL;
	}
}

/* The value of a field, or NULL when it has none (printed blank). */
static const char *value(const struct column *c, const struct row *r, char *buf, size_t len)
{
	const json_t *job = r->job;
	bool batch = r->batch;
	int state = job_state(job);
	bool ran = started(job);
	char mem[32];

	if (r->step)
		return step_value(c, r, buf, len);
	switch (c->field->id) {
	case F_BLANK: case F_MAX_RSS: case F_AVE_RSS: case F_LAYOUT:
	case F_TRES_IN_TOT: case F_TRES_IN_MAX: case F_TRES_IN_AVE:
		return NULL;   /* measured per step; the batch step is not */
	case F_CPU_TIME: case F_CPU_TIME_RAW: {
		long long secs = (batch || ran ? elapsed(r) : 0) *
				 (batch ? batch_cpus(job) : ran ? cmd_jint(job, "num_cpus") : 0);
		if (c->field->id == F_CPU_TIME)
			return duration(secs, buf, len);
		snprintf(buf, len, "%lld", secs);
		return buf;
	}
	case F_TOTAL_CPU: {
		if (batch)
			return NULL;
		if (show_of(r)->allocations)   /* Slurm adds up the steps it read: none */
			return cpu_text(0, buf, len);
		long long us = steps_cpu_us(job);
		return us < 0 ? NULL : cpu_text(us, buf, len);
	}
	case F_DERIVED_EXIT:
		return batch ? NULL : exit_code(cmd_step_derived_status(json_object_get(job, "steps"),
									       cmd_jstr(job, "state"),
									       cmd_jint(job, "end_time")),
						 buf, len);
	case F_ACCOUNT: return cmd_jstr(job, "account");
	case F_CLUSTER: return cluster_of(r);
	case F_COMMENT: return batch ? NULL : cmd_jstr(job, "comment");
	case F_CONSTRAINTS: return batch ? NULL : cmd_jstr(job, "features");
	case F_QOS: return batch ? NULL : cmd_jstr(job, "qos");
	case F_JOBID: {
		char id[4096];
		snprintf(buf, len, "%s%s", cmd_job_id(job, -1, id, sizeof(id)), batch ? ".batch" : "");
		return buf;
	}
	case F_JOBID_RAW:
		snprintf(buf, len, "%lld%s", cmd_jint(job, "job_id"), batch ? ".batch" : "");
		return buf;
	case F_JOBNAME: return batch ? "batch" : cmd_jstr(job, "name");
	case F_PARTITION: return batch ? NULL : cmd_jstr(job, "partition");
	case F_ALLOC_CPUS:
		snprintf(buf, len, "%d", batch ? batch_cpus(job) : ran ? (int)cmd_jint(job, "num_cpus") : 0);
		return buf;
	case F_ALLOC_NODES:
		snprintf(buf, len, "%d", batch ? 1 : ran ? (int)cmd_jint(job, "num_nodes") : 0);
		return buf;
	case F_REQ_CPUS:
		if (batch)
			snprintf(buf, len, "%d", batch_cpus(job));
		else
			snprintf(buf, len, "%lld", cmd_jint(job, "num_cpus"));
		return buf;
	case F_NNODES:
		snprintf(buf, len, "%lld", batch ? 1 : cmd_jint(job, "num_nodes"));
		return buf;
	case F_REQ_NODES:
		snprintf(buf, len, "%lld", batch ? 1 : cmd_jint(job, "req_nodes") ? cmd_jint(job, "req_nodes") : 1);
		return buf;
	case F_NTASKS:
		return batch ? "1" : NULL;
	case F_NODELIST:
		if (batch)
			return json_string_value(json_array_get(
				json_array_get(json_object_get(job, "alloc"), 0), 0));
		return ran ? cmd_jstr(job, "nodes") : "None assigned";
	case F_ALLOC_TRES: case F_REQ_TRES: {
		bool alloc = c->field->id == F_ALLOC_TRES;
		if (alloc && !ran)
			return NULL;
		if (!alloc && batch)
			return NULL;
		struct job_tres t = job_tres(job, batch);
		if (batch)
			snprintf(buf, len, "cpu=%lld,mem=%s,node=1", t.cpus,
				 mem_text(t.mem_mb, mem, sizeof(mem)));
		else
			snprintf(buf, len, "billing=%lld,cpu=%lld,mem=%s,node=%lld", t.billing, t.cpus,
				 mem_text(t.mem_mb, mem, sizeof(mem)), t.nodes);
		return buf;
	}
	case F_REQ_MEM: {
		if (batch)
			return NULL;
		long long mb = cmd_jint(job, "mem_per_node") * (ran ? cmd_jint(job, "num_nodes") : 1);
		if (cmd_jint(job, "mem_per_cpu") > 0)
			mb = cmd_jint(job, "mem_per_cpu") * cmd_jint(job, "num_cpus");
		return size_text(mb > 0 ? (uint64_t)mb : 0, 2, show_of(r), buf, len);
	}
	case F_ELAPSED: return duration(batch || ran ? elapsed(r) : 0, buf, len);
	case F_ELAPSED_RAW:
		snprintf(buf, len, "%lld", (long long)elapsed(r));
		return buf;
	case F_RESERVED: case F_RESV_CPU: case F_RESV_CPU_RAW: {
		if (batch)
			return NULL;
		long long secs = reserved(r);
		if (c->field->id != F_RESERVED)
			secs *= cmd_jint(job, "num_cpus");
		if (c->field->id == F_RESV_CPU_RAW) {
			snprintf(buf, len, "%lld", secs);
			return buf;
		}
		return duration(secs, buf, len);
	}
	case F_SUBMIT:
		return fmt_timestamp(batch ? cmd_jint(job, "start_time") : cmd_jint(job, "submit_time"),
				     buf, len);
	case F_ELIGIBLE:
		if (!batch && held(job))
			return fmt_timestamp(0, buf, len);   /* Unknown, as Slurm */
		return fmt_timestamp(batch ? cmd_jint(job, "start_time") : cmd_jint(job, "eligible_time"),
				     buf, len);
	case F_START:
		return fmt_timestamp(state == JOB_PENDING ? 0 : cmd_jint(job, "start_time"), buf, len);
	case F_END:
		return fmt_timestamp(ended(job) ? cmd_jint(job, "end_time") : 0, buf, len);
	case F_STATE: {
		const char *s = shown_state(job, batch);
		if (!batch && !strcmp(s, "CANCELLED") && json_object_get(job, "requid")) {
			snprintf(buf, len, "CANCELLED by %lld", cmd_jint(job, "requid"));
			return buf;
		}
		return s;
	}
	case F_EXIT_CODE: return exit_code(shown_status(job, batch), buf, len);
	case F_GID:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "gid"));
		return buf;
	case F_GROUP: {
		if (batch)
			return NULL;
		struct group *gr = getgrgid((gid_t)cmd_jint(job, "gid"));
		if (gr)
			return gr->gr_name;
		snprintf(buf, len, "%lld", cmd_jint(job, "gid"));
		return buf;
	}
	case F_UID:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "uid"));
		return buf;
	case F_USER:
		return batch ? NULL : cmd_jstr(job, "user");
	case F_WORKDIR: return batch ? NULL : cmd_jstr(job, "work_dir");
	case F_REASON: return batch ? NULL : cmd_jstr(job, "reason");
	case F_PRIORITY:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "priority"));
		return buf;
	case F_TIMELIMIT: case F_TIMELIMIT_RAW: {
		if (batch)
			return NULL;
		long long limit = cmd_jint(job, "time_limit");
		if (limit == TIME_INFINITE)
			return "UNLIMITED";
		if (limit < 0)
			return "Partition_Limit";
		if (c->field->id == F_TIMELIMIT_RAW) {
			snprintf(buf, len, "%lld", limit / 60);
			return buf;
		}
		return duration(limit / 60 * 60, buf, len);
	}
	}
	return NULL;
}

enum parsable { PARSABLE_NO, PARSABLE_END, PARSABLE_NO_END };

struct out {
	enum parsable parsable;
	const char *delim;
};

/* One cell as Slurm's sacct prints it; see enum kind.  A title is cut
 * plainly ("TimelimitR"). */
static void cell_cut(char **line, const struct out *o, const struct column *c, const char *v,
		     bool last, enum kind kind)
{
	if (o->parsable) {
		fmt_cell(line, v ? v : "", 0, false);
		if (!(o->parsable == PARSABLE_NO_END && last))
			fmt_cell(line, o->delim, 0, false);
		return;
	}
	char *cut = NULL;
	if (!v || !*v || c->width == 0) {
		v = "";
	} else if (strlen(v) > (size_t)c->width) {
		if (kind == K_NUM) {
			fmt_cell(line, v, 0, false);   /* numbers are never cut */
			fmt_cell(line, " ", 0, false);
			return;
		}
		cut = xstrndup(v, c->width);
		if (kind == K_STR)
			cut[c->width - 1] = '+';
		v = cut;
	}
	if (c->width)
		fmt_cell(line, v, c->width, c->right);
	fmt_cell(line, " ", 0, false);
	free(cut);
}

static void cell(char **line, const struct out *o, const struct column *c, const char *v,
		 bool last)
{
	cell_cut(line, o, c, v, last, c->field->kind);
}

/* Slurm's order of a job's steps: extern, 0, 1 ... (the store lists them
 * by ID; the batch step is the job record's own). */
static int by_step_rank(const void *x, const void *y)
{
	long long a = cmd_step_rank(cmd_jint(*(const json_t *const *)x, "step_id"));
	long long b = cmd_step_rank(cmd_jint(*(const json_t *const *)y, "step_id"));
	return (a > b) - (a < b);
}

/* ---- --json: Slurm 22.05's (slurmdbd's openapi dbv0.0.38) job objects ---- */

/* {"status", "return_code"} (and "signal") of a raw wait status. */
static json_t *json_exit(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		return json_pack("{s:s, s:n, s:{s:i, s:s}}", "status", "SIGNALED", "return_code",
				 "signal", "signal_id", sig, "name", strsignal(sig));
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	return json_pack("{s:s, s:i}", "status", code ? "FAILED" : "SUCCESS", "return_code", code);
}

static json_t *json_tres_entry(const char *type, int id, long long count)
{
	return json_pack("{s:s, s:n, s:i, s:I}", "type", type, "name", "id", id, "count",
			 (json_int_t)count);
}

/* A TRES list in Slurm's ID order: cpu (1), mem (2, MB), node (4), billing (5). */
static json_t *json_tres_list(const struct job_tres *t, bool billing)
{
	json_t *a = json_array();
	json_array_append_new(a, json_tres_entry("cpu", 1, t->cpus));
	json_array_append_new(a, json_tres_entry("mem", 2, t->mem_mb));
	json_array_append_new(a, json_tres_entry("node", 4, t->nodes));
	if (billing)
		json_array_append_new(a, json_tres_entry("billing", 5, t->billing));
	return a;
}

static json_t *json_seconds(long long us)
{
	return json_pack("{s:I, s:I}", "seconds", (json_int_t)(us / 1000000), "microseconds",
			 (json_int_t)(us % 1000000));
}

/* A step's measured use in the dbv0.0.38 lists (under "requested", as
 * Slurm 22.05 puts it): CPU in milliseconds, memory in bytes; none while
 * it runs.  Herd measures per node, not per task: no "min" and no task or
 * node of the "max". */
static json_t *json_step_usage(const json_t *step)
{
	json_t *u = json_pack("{s:[], s:[], s:[], s:[]}", "max", "min", "average", "total");
	static const struct { const char *key; enum usage_kind kind; } lists[] = {
		{ "max", USAGE_MAX }, { "average", USAGE_AVE }, { "total", USAGE_TOT },
	};
	if (step && step_running(step))
		return u;
	for (size_t i = 0; step && i < sizeof(lists) / sizeof(lists[0]); i++) {
		long long cpu, rss;
		json_t *a = json_object_get(u, lists[i].key);
		step_usage(step, lists[i].kind, &cpu, &rss);
		if (cpu >= 0)
			json_array_append_new(a, json_tres_entry("cpu", 1, cpu / 1000));
		json_array_append_new(a, json_tres_entry("mem", 2, rss * 1024));
	}
	return u;
}

/* One step object; step NULL: the batch step, from the job's record. */
static json_t *json_step(const struct row *r)
{
	const json_t *job = r->job, *step = r->step;
	long long start, end, elapsed_s, cpu_us, tasks;
	const char *nodes, *state, *name, *dist;
	int status;
	struct job_tres t;
	json_t *id;

	if (step) {
		start = cmd_jint(step, "start_time");
		end = step_running(step) ? 0 : cmd_jint(step, "end_time");
		elapsed_s = step_elapsed(r);
		cpu_us = cmd_jint(step, "cpu_time_us");
		nodes = cmd_jstr(step, "nodes");
		state = cmd_jstr(step, "state");
		name = cmd_jstr(step, "name");
		dist = cmd_step_dist(step);
		status = (int)cmd_jint(step, "exit_code");
		tasks = cmd_jint(step, "num_tasks");
		t = (struct job_tres){ cmd_jint(step, "num_cpus"),
				       cmd_jint(step, "mem_mb") * cmd_jint(step, "num_nodes"),
				       cmd_jint(step, "num_nodes"), 0 };
		long long sid = cmd_jint(step, "step_id");
		char buf[24];
		id = sid == CMD_STEP_EXTERN ? json_string(cmd_step_name(sid, buf, sizeof(buf)))
					    : json_integer(sid);
	} else {
		start = cmd_jint(job, "start_time");
		end = ended(job) ? cmd_jint(job, "end_time") : 0;
		elapsed_s = elapsed(r);
		cpu_us = 0;
		nodes = json_string_value(json_array_get(json_array_get(json_object_get(job, "alloc"), 0), 0));
		state = shown_state(job, true);
		name = "batch";
		dist = "Unknown";
		status = shown_status(job, true);
		tasks = 1;
		t = job_tres(job, true);
		id = json_string("batch");
	}
	const char *kill = NULL;
	struct passwd *pw = NULL;
	if (step && json_object_get(step, "requid") && (pw = getpwuid((uid_t)cmd_jint(step, "requid"))))
		kill = pw->pw_name;
	json_t *list = json_array();
	struct hostlist *hl = nodes && *nodes ? hostlist_create(nodes) : NULL;
	for (size_t i = 0; hl && i < hostlist_count(hl); i++)
		json_array_append_new(list, json_string(hostlist_nth(hl, i)));
	hostlist_destroy(hl);
	return json_pack(
		"{s:{s:o, s:I, s:s}, s:{s:o, s:o, s:o}, s:{s:I, s:I, s:I, s:i, s:{s:i, s:i}, s:o,"
		" s:{s:i, s:i}}, s:o, s:{s:I}, s:n, s:{s:{s:i, s:i}, s:[]}, s:s?, s:s,"
		" s:{s:{s:i}, s:{s:i}}, s:{s:I, s:{s:n}, s:o, s:s}, s:{s:s}}",
		"nodes", "list", list, "count", (json_int_t)json_array_size(list), "range", nodes ? nodes : "",
		"tres", "requested", json_step_usage(step), "consumed",
		json_pack("{s:[], s:[], s:[], s:[]}", "max", "min", "average", "total"),
		"allocated", json_tres_list(&t, false),
		"time", "elapsed", (json_int_t)elapsed_s, "end", (json_int_t)end, "start", (json_int_t)start,
		"suspended", 0, "system", "seconds", 0, "microseconds", 0, "total", json_seconds(cpu_us),
		"user", "seconds", 0, "microseconds", 0,
		"exit_code", json_exit(status), "tasks", "count", (json_int_t)tasks, "pid",
		"CPU", "requested_frequency", "min", 0, "max", 0, "governor",
		"kill_request_user", kill, "state", state,
		"statistics", "CPU", "actual_frequency", 0, "energy", "consumed", 0,
		"step", "job_id", (json_int_t)cmd_jint(job, "job_id"), "het", "component", "id", id,
		"name", name, "task", "distribution", dist);
}

/* One job object of sacct --json, with its steps (none with -X). */
static json_t *json_job(const struct row *r)
{
	const json_t *job = r->job;
	bool ran = started(job);
	struct row sr = *r;
	json_t *steps = json_array();

	if (!show_of(r)->allocations) {
		if (ran && !cmd_jbool(job, "alloc_only"))
			json_array_append_new(steps, json_step(r));
		json_t *recs = json_object_get(job, "steps");
		size_t n = json_array_size(recs);
		const json_t **order = xmalloc((n + 1) * sizeof(*order));
		for (size_t k = 0; k < n; k++)
			order[k] = json_array_get(recs, k);
		qsort(order, n, sizeof(*order), by_step_rank);
		for (size_t k = 0; k < n; k++) {
			if (cmd_jint(order[k], "step_id") == CMD_STEP_BATCH)
				continue;
			sr.step = order[k];
			json_array_append_new(steps, json_step(&sr));
		}
		free(order);
	}
	long long limit = cmd_jint(job, "time_limit");
	json_t *limit_j = limit == TIME_INFINITE || limit < 0 ? json_null() : json_integer(limit / 60);
	long long array = cmd_jint(job, "array_job_id"), task = cmd_jint(job, "array_task_id");
	json_t *task_id = array && task != CMD_NO_TASK ? json_integer(task) : json_null();
	const char *pending_tasks = cmd_jstr(job, "array_tasks");
	struct group *gr = getgrgid((gid_t)cmd_jint(job, "gid"));
	char gid[24];
	snprintf(gid, sizeof(gid), "%lld", cmd_jint(job, "gid"));
	const char *kill = NULL;
	struct passwd *pw = NULL;
	if (json_object_get(job, "requid") && (pw = getpwuid((uid_t)cmd_jint(job, "requid"))))
		kill = pw->pw_name;
	struct job_tres t = job_tres(job, false);
	json_t *alloc = ran ? json_tres_list(&t, true) : json_array();
	long long cpu_us = show_of(r)->allocations ? 0 : steps_cpu_us(job);
	int64_t eligible = held(job) ? 0 : cmd_jint(job, "eligible_time");
	const char *comment = cmd_jstr(job, "comment");
	const char *state = ended(job) || job_state(job) != JOB_COMPLETING ? cmd_jstr(job, "state")
									    : shown_state(job, false);
	long long mem = cmd_jint(job, "mem_per_cpu") > 0 ? cmd_jint(job, "mem_per_cpu")
							 : cmd_jint(job, "mem_mb");

	json_t *o = json_pack("{s:s, s:{s:n, s:s?, s:n}, s:I, s:{s:I, s:{s:{s:{s:I}}}, s:s?, s:o},"
			      " s:{s:s, s:s, s:n, s:s}, s:s, s:s, s:n, s:o}",
			      "account", cmd_jstr(job, "account"),
			      "comment", "administrator", "job", *comment ? comment : NULL, "system",
			      "allocation_nodes", (json_int_t)(ran ? cmd_jint(job, "num_nodes") : 0),
			      "array", "job_id", (json_int_t)array, "limits", "max", "running", "tasks",
			      (json_int_t)cmd_jint(job, "array_throttle"),
			      "task", *pending_tasks && task == CMD_NO_TASK ? pending_tasks : NULL,
			      "task_id", task_id,
			      "association", "account", cmd_jstr(job, "account"), "cluster", cluster_of(r),
			      "partition", "user", cmd_jstr(job, "user"),
			      "cluster", cluster_of(r), "constraints", cmd_jstr(job, "features"),
			      "container",
			      "derived_exit_code", json_exit(cmd_step_derived_status(
				      json_object_get(job, "steps"), cmd_jstr(job, "state"),
				      cmd_jint(job, "end_time"))));
	json_object_set_new(o, "time", json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:i, s:{s:i, s:i}, s:o, s:o, s:{s:i, s:i}}",
		"elapsed", (json_int_t)elapsed(r), "eligible", (json_int_t)eligible,
		"end", (json_int_t)(ended(job) ? cmd_jint(job, "end_time") : 0),
		"start", (json_int_t)(job_state(job) == JOB_PENDING ? 0 : cmd_jint(job, "start_time")),
		"submission", (json_int_t)cmd_jint(job, "submit_time"), "suspended", 0,
		"system", "seconds", 0, "microseconds", 0, "limit", limit_j,
		"total", json_seconds(cpu_us > 0 ? cpu_us : 0), "user", "seconds", 0, "microseconds", 0));
	json_object_set_new(o, "exit_code", json_exit(shown_status(job, false)));
	json_object_set_new(o, "flags", json_array());
	json_object_set_new(o, "group", json_string(gr ? gr->gr_name : gid));
	json_object_set_new(o, "het", json_pack("{s:i, s:n}", "job_id", 0, "job_offset"));
	json_object_set_new(o, "job_id", json_integer(cmd_jint(job, "job_id")));
	json_object_set_new(o, "name", json_string(cmd_jstr(job, "name")));
	json_object_set_new(o, "mcs", json_pack("{s:s}", "label", ""));
	json_object_set_new(o, "nodes", json_string(ran ? cmd_jstr(job, "nodes") : "None assigned"));
	json_object_set_new(o, "partition", json_string(cmd_jstr(job, "partition")));
	json_object_set_new(o, "priority", json_integer(cmd_jint(job, "priority")));
	json_object_set_new(o, "qos", json_string(cmd_jstr(job, "qos")));
	json_object_set_new(o, "required", json_pack("{s:I, s:I}", "CPUs",
						     (json_int_t)cmd_jint(job, "num_cpus"), "memory",
						     (json_int_t)mem));
	json_object_set_new(o, "kill_request_user", kill ? json_string(kill) : json_null());
	json_object_set_new(o, "reservation", json_pack("{s:i, s:i}", "id", 0, "name", 0));
	json_object_set_new(o, "state", json_pack("{s:s, s:s}", "current", state, "reason",
						  cmd_jstr(job, "reason")));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "tres", json_pack("{s:o, s:o}", "allocated", alloc, "requested",
						 json_tres_list(&t, true)));
	json_object_set_new(o, "user", json_string(cmd_jstr(job, "user")));
	json_object_set_new(o, "wckey", json_pack("{s:s, s:[]}", "wckey", "", "flags"));
	json_object_set_new(o, "working_directory", json_string(cmd_jstr(job, "work_dir")));
	return o;
}

/* The document sacct --json prints around the jobs (steals jobs). */
static json_t *json_document(json_t *jobs)
{
	json_t *errors = json_array();
	if (!json_array_size(jobs))   /* as slurmdbd answers an empty query */
		json_array_append_new(errors, json_pack("{s:s, s:i, s:s, s:s}", "description",
							"Nothing found", "error_number", 9003, "error",
							"Nothing found with query", "source",
							"slurmdb_jobs_get"));
	return json_pack("{s:{s:{s:s, s:s}, s:{s:{s:i, s:i, s:i}, s:s}}, s:o, s:o}",
			 "meta", "plugin", "type", "openapi/dbv0.0.38", "name",
			 "Slurm OpenAPI DB v0.0.38", "Slurm", "version", "major", 22, "micro", 8,
			 "minor", 5, "release", "22.05.8", "errors", errors, "jobs", jobs);
}

/* The controller answers with the clusters asked (-M) or the local one;
 * a record of another is not shown either way. */
static bool cluster_wanted(const char *clusters_arg, const char *cluster, const char *local)
{
	if (!clusters_arg)
		return !strcasecmp(cluster, local);
	size_t n;
	char **v = opt_split(clusters_arg, ',', &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++)
		yes = !strcasecmp(v[i], "all") || !strcmp(v[i], "-1") || !strcasecmp(v[i], cluster);
	opt_strv_free(v);
	return yes;
}

/* --units=X: K M G T P (the first letter counts, either case), as sacct. */
static int parse_units(const char *arg, char *unit)
{
	char u = (char)toupper((unsigned char)arg[0]);
	if (!u || !strchr("KMGTP", u)) {
		fprintf(stderr, "sacct: error: Invalid unit type '%c'. Possible options are 'KMGTP'\n",
			arg[0] ? arg[0] : ' ');
		fprintf(stderr, "sacct: fatal: Invalid unit type\n");
		return -1;
	}
	*unit = u;
	return 0;
}

/* Slurm lists an array's tasks together, by task ID (A_1, A_2, A_3), where
 * the array's ID falls among the others, whatever IDs the tasks got when
 * they started; a record still pending for several tasks comes last. */
struct ranked {
	const json_t *rec;
	size_t index;           /* in the reply: a requeued job's runs come in run order */
};

static int by_array_then_task(const void *a, const void *b)
{
	const struct ranked *rx = a, *ry = b;
	const json_t *x = rx->rec, *y = ry->rec;
	long long ax = cmd_jint(x, "array_job_id"), ay = cmd_jint(y, "array_job_id");
	long long kx = ax ? ax : cmd_jint(x, "job_id"), ky = ay ? ay : cmd_jint(y, "job_id");
	if (kx != ky)
		return kx < ky ? -1 : 1;
	long long tx = ax ? cmd_jint(x, "array_task_id") : -1, ty = ay ? cmd_jint(y, "array_task_id") : -1;
	if (tx == CMD_NO_TASK)
		tx = LLONG_MAX;
	if (ty == CMD_NO_TASK)
		ty = LLONG_MAX;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	long long ix = cmd_jint(x, "job_id"), iy = cmd_jint(y, "job_id");
	if (ix != iy)
		return ix < iy ? -1 : 1;   /* a requeued task's records, in order */
	return (rx->index > ry->index) - (rx->index < ry->index);
}

/* The rest prints and talks to the controller; tests/unit/test_sacct.c
 * compiles the pure part above without it. */
#ifndef SACCT_NO_MAIN
static void print_header(const struct column *cols, size_t n, const struct out *o)
{
	char *line = xstrdup("");
	for (size_t i = 0; i < n; i++)
		cell_cut(&line, o, &cols[i], cols[i].field->name, i + 1 == n, K_TIME);
	printf("%s\n", line);
	free(line);
	if (o->parsable)
		return;
	line = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *dashes = xmalloc(cols[i].width + 1);
		memset(dashes, '-', cols[i].width);
		fmt_cell(&line, dashes, 0, false);
		fmt_cell(&line, " ", 0, false);
		free(dashes);
	}
	printf("%s\n", line);
	free(line);
}

static void print_row(const struct column *cols, size_t n, const struct out *o,
		      const struct row *r)
{
	char *line = xstrdup("");
	char buf[4096];
	for (size_t i = 0; i < n; i++) {
		buf[0] = '\0';
		cell(&line, o, &cols[i], value(&cols[i], r, buf, sizeof(buf)), i + 1 == n);
	}
	printf("%s\n", line);
	free(line);
}

static void help_format(void)
{
	/* four to a line, each in 19 columns and a space or the line's end */
	for (size_t i = 0; i < NFIELDS; i++)
		printf("%-19s%s", fields[i].name, (i % 4 == 3 || i + 1 == NFIELDS) ? "\n" : " ");
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: sacct [options]\n\tUse --help for help\n");
}

static void help(void)
{
	printf("sacct [<OPTION>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -a, --allusers:\n"
	       "\t           Display jobs for all users. By default, only the\n"
	       "\t           current user's jobs are displayed.  If ran by user root\n"
	       "\t           this is the default.\n"
	       "     -A, --accounts:\n"
	       "\t           Use this comma separated list of accounts to select jobs\n"
	       "\t           to display.  By default, all accounts are selected.\n"
	       "     -b, --brief:\n"
	       "\t           Equivalent to '--format=jobstep,state,error'.\n"
	       "     -D, --duplicates:\n"
	       "\t           Show every record of a job ID: the earlier runs of a\n"
	       "\t           requeued job (state REQUEUED) too, not only its last.\n"
	       "     --delimiter:\n"
	       "\t           ASCII characters used to separate the fields when\n"
	       "\t           specifying the -p or -P options.\n"
	       "     -e, --helpformat:\n"
	       "\t           Print a list of fields that can be specified with the\n"
	       "\t           '--format' option\n"
	       "     -E, --endtime:\n"
	       "\t           Select jobs eligible before this time.\n"
	       "     -h, --help:\n"
	       "\t           Print this description of use.\n"
	       "     -j, --jobs:\n"
	       "\t           Format is <job(.step)>. Display information about this\n"
	       "\t           job or comma-separated list of jobs.\n"
	       "     --json:\n"
	       "\t           Print the records as JSON (slurmdbd's data format\n"
	       "\t           v0.0.38).\n"
	       "     -L, --allclusters:\n"
	       "\t           The records of every cluster (as -M all).\n"
	       "     -l, --long:\n"
	       "\t           Equivalent to specifying a long list of fields.\n"
	       "     -M, --clusters:\n"
	       "\t           Comma separated list of clusters whose records to show,\n"
	       "\t           or 'all'.  The default is the local cluster.\n"
	       "     --name:\n"
	       "\t           Display jobs that have any of these name(s).\n"
	       "     --noconvert:\n"
	       "\t           Print sizes as counted (bytes), not in K, M, G ...\n"
	       "     -n, --noheader:\n"
	       "\t           No header will be added to the beginning of output.\n"
	       "\t           The default is to print a header.\n"
	       "     -o, --format:\n"
	       "\t           Comma separated list of fields. (use \"--helpformat\"\n"
	       "\t           for a list of available fields).\n"
	       "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
	       "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
	       "     -r, --partition:\n"
	       "\t           Comma separated list of partitions to select jobs and\n"
	       "\t           job steps from. The default is all partitions.\n"
	       "     -s, --state:\n"
	       "\t           Select jobs based on their current state or the state\n"
	       "\t           they were in during the time period given.\n"
	       "     -S, --starttime:\n"
	       "\t           Select jobs eligible after this time.  Default is\n"
	       "\t           00:00:00 of the current day, unless '-s' is set then\n"
	       "\t           the default is 'now'.\n"
	       "     -u, --uid, --user:\n"
	       "\t           Use this comma separated list of uids or user names\n"
	       "\t           to select jobs to display.  By default, the running\n"
	       "\t           user's uid is used.\n"
	       "     --units=[KMGTP]:\n"
	       "\t           Print sizes in this unit.\n"
	       "     --usage:\n"
	       "\t           Display brief usage message.\n"
	       "     -V, --version: Print version.\n"
	       "     -X, --allocations:\n"
	       "\t           Only show statistics relevant to the job allocation\n"
	       "\t           itself, not taking steps into consideration.\n");
}

static bool in_strv(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool in_strv_nocase(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcasecmp(v[i], s))
			return true;
	return false;
}

static int parse_window_time(const char *arg, time_t now, time_t *out)
{
	if (opt_time_parse(arg, now, true, out) < 0) {
		/* Slurm's time parser prints this line without "sacct: error: " */
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", opt_time_error_pos(arg),
			arg);
		return -1;
	}
	return 0;
}

/* A wanted job, and whether only one of its lines was asked ("12.batch"). */
struct want {
	long id;
	long long step;   /* CMD_STEP_NONE = the whole job, else that step (CMD_STEP_BATCH ...) */
	struct bitmap *tasks;   /* -j A_T: these tasks of array A; NULL: job (or array) id */
};

/* Does -j's entry name this record: its ID, its array's ID, or a task of
 * its array (a meta record: one of its pending tasks)? */
static bool want_matches(const struct want *w, const json_t *job)
{
	long long array = cmd_jint(job, "array_job_id");
	if (!w->tasks)
		return w->id == cmd_jint(job, "job_id") || (array && w->id == array);
	if (!array || w->id != array)
		return false;
	return cmd_array_task_named(job, w->tasks);
}

/* Does -j name this step of the job ("12.3")? */
static bool step_named(const struct want *want, size_t nwant, const json_t *job, long long step)
{
	for (size_t k = 0; k < nwant; k++)
		if (want[k].step == step && want_matches(&want[k], job))
			return true;
	return false;
}

enum { OPT_DELIMITER = 256, OPT_NAME, OPT_USAGE, OPT_HELP, OPT_IGNORED, OPT_UNITS, OPT_NOCONVERT,
       OPT_JSON };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "allusers", no_argument, NULL, 'a' },
		{ "accounts", required_argument, NULL, 'A' },
		{ "allocations", no_argument, NULL, 'X' },
		{ "brief", no_argument, NULL, 'b' },
		{ "duplicates", no_argument, NULL, 'D' },
		{ "delimiter", required_argument, NULL, OPT_DELIMITER },
		{ "endtime", required_argument, NULL, 'E' },
		{ "format", required_argument, NULL, 'o' },
		{ "helpformat", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "long", no_argument, NULL, 'l' },
		{ "local", no_argument, NULL, OPT_IGNORED },
		{ "allclusters", no_argument, NULL, 'L' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "partition", required_argument, NULL, 'r' },
		{ "state", required_argument, NULL, 's' },
		{ "starttime", required_argument, NULL, 'S' },
		{ "uid", required_argument, NULL, 'u' },
		{ "user", required_argument, NULL, 'u' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = getenv("SACCT_FORMAT");
	const char *jobs_arg = NULL, *users_arg = NULL, *states_arg = NULL, *start_arg = NULL,
		   *end_arg = NULL, *names_arg = NULL, *parts_arg = NULL, *accounts_arg = NULL,
		   *clusters_arg = NULL;
	char *jobs_joined = NULL;
	bool all_users = false, no_header = false, duplicates = false, as_json = false;
	struct show show = { 0, false, false };
	struct out o = { PARSABLE_NO, "|" };
	int c, status = 1;

	argv[0] = "sacct";
	while ((c = getopt_long(argc, argv, "aA:bDeE:hj:lLM:no:pPr:s:S:u:vVX", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': all_users = true; break;
		case 'A': accounts_arg = optarg; break;
		case 'b': format = BRIEF_FORMAT; break;
		case 'D': duplicates = true; break;
		case 'L': clusters_arg = "all"; break;
		case 'M': clusters_arg = optarg; break;
		case OPT_UNITS:
			if (parse_units(optarg, &show.unit) < 0) {
				free(jobs_joined);
				return 1;
			}
			break;
		case OPT_NOCONVERT: show.noconvert = true; break;
		case OPT_JSON: as_json = true; break;
		case 'v': case OPT_IGNORED: break;
		case OPT_DELIMITER: o.delim = optarg; break;
		case 'e': help_format(); return 0;
		case 'E': end_arg = optarg; break;
		case 'h': case OPT_HELP: help(); return 0;
		case 'j':   /* several -j add up */
			if (jobs_arg) {
				char *joined = xasprintf("%s,%s", jobs_arg, optarg);
				free(jobs_joined);
				jobs_arg = jobs_joined = joined;
			} else {
				jobs_arg = optarg;
			}
			break;
		case 'l': format = LONG_FORMAT; break;
		case OPT_NAME: names_arg = optarg; break;
		case 'n': no_header = true; break;
		case 'o': format = optarg; break;
		case 'p': o.parsable = PARSABLE_END; break;
		case 'P': o.parsable = PARSABLE_NO_END; break;
		case 'r': parts_arg = optarg; break;
		case 's': states_arg = optarg; break;
		case 'S': start_arg = optarg; break;
		case 'u': users_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'X': show.allocations = true; break;
		case OPT_USAGE: usage(stdout); return 0;
		default: usage(stderr); free(jobs_joined); return 1;
		}
	}
	if (optind < argc) {
		free(jobs_joined);
		fprintf(stderr, "sacct: error: Unknown arguments:");
		for (int i = optind; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
		return 1;
	}

	json_t *body = json_object(), *reply = NULL;
	struct column *cols = NULL;
	size_t ncols = 0, nwant = 0;
	struct want *want = NULL;
	char **names = NULL, **parts = NULL, **accounts = NULL;
	json_t *out_jobs = NULL;
	struct cmd_client client;
	bool client_ok = false;
	struct herd_error err = { "" };
	time_t now = time(NULL), start, end;

	cols = sacct_format_parse(format && *format ? format : DEFAULT_FORMAT, &ncols);
	if (!cols)
		goto out;
	if (jobs_arg) {
		size_t n;
		char **v = cmd_job_ids_split(jobs_arg, &n);
		json_t *ids = json_array();
		want = xmalloc((n + 1) * sizeof(*want));
		for (size_t i = 0; i < n; i++) {
			char *dot = strchr(v[i], '.');
			struct want w = { 0, CMD_STEP_NONE, NULL };
			struct cmd_step_ref ref;
			if (dot)
				*dot = '\0';
			if (cmd_job_id_parse(v[i], &w.id, &w.tasks) < 0) {
				if (dot)
					*dot = '.';
				fprintf(stderr, "sacct: fatal: Bad job/step specified: %s\n", v[i]);
				opt_strv_free(v);
				json_decref(ids);
				goto out;
			}
			if (dot) {
				/* "12.batch", "12.3": only that line; Slurm names the
				 * job of a step that is none: "Bad step specified: 12" */
				char *whole = xasprintf("1.%s", dot + 1);
				int bad = cmd_step_ref_parse(whole, false, &ref);
				free(whole);
				if (bad) {
					fprintf(stderr, "sacct: fatal: Bad step specified: %s\n", v[i]);
					bitmap_destroy(w.tasks);
					opt_strv_free(v);
					json_decref(ids);
					goto out;
				}
				w.step = ref.step;
			}
			want[nwant++] = w;
			json_array_append_new(ids, json_integer(w.id));
		}
		opt_strv_free(v);
		json_object_set_new(body, "job_ids", ids);
	}
	if (states_arg) {
		size_t n;
		char **v = opt_split(states_arg, ',', &n);
		json_t *states = json_array();
		for (size_t i = 0; i < n; i++) {
			int s = job_state_parse(v[i]);
			if (s < 0) {
				fprintf(stderr, "sacct: fatal: unrecognized job state value '%s'\n",
					v[i]);
				opt_strv_free(v);
				json_decref(states);
				goto out;
			}
			json_array_append_new(states, json_string(job_state_name(s)));
		}
		opt_strv_free(v);
		json_object_set_new(body, "states", states);
	}
	/* sacct(1)'s default window: with -j from the epoch, with -s from now,
	 * else from midnight; to now, or (with -s) to the start. */
	if (start_arg) {
		if (parse_window_time(start_arg, now, &start) < 0)
			goto out;
	} else if (jobs_arg) {
		start = 0;
	} else if (states_arg) {
		start = now;
	} else {
		opt_time_parse("midnight", now, true, &start);
	}
	if (end_arg) {
		if (parse_window_time(end_arg, now, &end) < 0)
			goto out;
	} else {
		end = states_arg && start_arg ? start : now;
	}
	if (end < start) {
		fprintf(stderr, "sacct: error: Start time (%lld) requested is after end time (%lld).\n",
			(long long)start, (long long)end);
		goto out;
	}
	json_object_set_new(body, "start_time", json_integer(start));
	json_object_set_new(body, "end_time", json_integer(end));

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sacct: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	/* Whose jobs: -u's users; everyone's with -a or for root and the
	 * SlurmUser; else the caller's own. */
	json_t *uids = json_array();
	if (users_arg) {
		size_t n;
		char **v = opt_split(users_arg, ',', &n);
		for (size_t i = 0; i < n; i++) {
			uid_t uid;
			if (!strcmp(v[i], "-1")) {   /* sacct -u -1: every user */
				json_array_clear(uids);
				all_users = true;
				break;
			}
			if (opt_user_parse(v[i], &uid) < 0) {
				fprintf(stderr, "sacct: error: Invalid user id: %s\n", v[i]);
				opt_strv_free(v);
				json_decref(uids);
				goto out;
			}
			json_array_append_new(uids, json_integer(uid));
		}
		opt_strv_free(v);
	} else if (!all_users) {
		const char *slurm_user = conf_get(client.conf, "SlurmUser");
		uid_t admin = 0;
		bool is_admin = getuid() == 0 ||
				(slurm_user && opt_user_parse(slurm_user, &admin) == 0 && admin == getuid());
		if (!is_admin)
			json_array_append_new(uids, json_integer(getuid()));
	}
	if (json_array_size(uids))
		json_object_set_new(body, "uids", uids);
	else
		json_decref(uids);
	if (names_arg)
		names = opt_split(names_arg, ',', NULL);
	if (parts_arg)
		parts = opt_split(parts_arg, ',', NULL);
	if (accounts_arg) {
		size_t n;
		accounts = opt_split(accounts_arg, ',', &n);
		json_t *v = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(v, json_string(accounts[i]));
		json_object_set_new(body, "accounts", v);
	}
	/* -M a,b / -M all / -L: those clusters' records ("all": every one);
	 * without, the local cluster's */
	if (clusters_arg) {
		size_t n;
		char **v = opt_split(clusters_arg, ',', &n);
		json_t *clusters = json_array();
		for (size_t i = 0; i < n; i++)
			if (!strcasecmp(v[i], "all") || !strcmp(v[i], "-1"))
				json_array_append_new(clusters, json_string("all"));
			else
				json_array_append_new(clusters, json_string(v[i]));
		opt_strv_free(v);
		json_object_set_new(body, "clusters", clusters);
	}
	if (duplicates)
		json_object_set_new(body, "duplicates", json_true());

	int rc = cmd_call(&client, MSG_ACCT_JOBS, body, &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "sacct: error: %s\n", err.text);
		goto out;
	}
	if (!no_header && !as_json)
		print_header(cols, ncols, &o);
	json_t *jobs = json_object_get(reply, "jobs");
	time_t reply_now = cmd_jint(reply, "time");
	const char *local = conf_cluster_name(client.conf);
	size_t njobs = json_array_size(jobs);
	struct ranked *sorted = xmalloc((njobs + 1) * sizeof(*sorted));
	for (size_t i = 0; i < njobs; i++)
		sorted[i] = (struct ranked){ json_array_get(jobs, i), i };
	qsort(sorted, njobs, sizeof(*sorted), by_array_then_task);
	out_jobs = json_array();
	for (size_t i = 0; i < njobs; i++) {
		const json_t *job = sorted[i].rec;
		if (names && !in_strv(names, cmd_jstr(job, "name")))
			continue;
		if (parts && !in_strv(parts, cmd_jstr(job, "partition")))
			continue;
		if (accounts && !in_strv_nocase(accounts, cmd_jstr(job, "account")))
			continue;
		struct row r = { job, false, reply_now ? reply_now : now, local, NULL, &show };
		if (!cluster_wanted(clusters_arg, cluster_of(&r), local))
			continue;
		if (as_json) {
			json_array_append_new(out_jobs, json_job(&r));
			continue;
		}
		/* -j 12.batch: only that line of job 12 (both when named both ways) */
		bool whole = !nwant;
		for (size_t k = 0; k < nwant; k++)
			if (want_matches(&want[k], job))
				whole |= want[k].step == CMD_STEP_NONE;
		if (whole)
			print_row(cols, ncols, &o, &r);
		/* salloc's and srun's jobs run no batch script: no N.batch line */
		if (started(job) && !cmd_jbool(job, "alloc_only") &&
		    ((whole && !show.allocations) || step_named(want, nwant, job, CMD_STEP_BATCH))) {
			r.batch = true;
			print_row(cols, ncols, &o, &r);
			r.batch = false;
		}
		json_t *steps = json_object_get(job, "steps");
		size_t nsteps = json_array_size(steps);
		const json_t **order = xmalloc((nsteps + 1) * sizeof(*order));
		for (size_t k = 0; k < nsteps; k++)
			order[k] = json_array_get(steps, k);
		qsort(order, nsteps, sizeof(*order), by_step_rank);
		for (size_t k = 0; k < nsteps; k++) {
			long long id = cmd_jint(order[k], "step_id");
			if (id == CMD_STEP_BATCH)
				continue;
			if ((whole && !show.allocations) || step_named(want, nwant, job, id)) {
				r.step = order[k];
				print_row(cols, ncols, &o, &r);
			}
		}
		free(order);
	}
	if (as_json) {
		json_t *doc = json_document(out_jobs);
		out_jobs = NULL;
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_ESCAPE_SLASH);
		printf("%s\n", text);
		free(text);
		json_decref(doc);
	}
	free(sorted);
	status = 0;
out:
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(reply);
	json_decref(body);
	free(cols);
	for (size_t k = 0; k < nwant; k++)
		bitmap_destroy(want[k].tasks);
	free(want);
	opt_strv_free(names);
	opt_strv_free(parts);
	opt_strv_free(accounts);
	json_decref(out_jobs);
	free(jobs_joined);
	return status;
}
#endif
