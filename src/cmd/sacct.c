/* sacct: job accounting records from the controller's store (ACCT_JOBS),
 * printed in Slurm's sacct formats: fixed-width columns with a dashed line
 * (-o Name%N, '-' for left), -p/-P with '|', the batch step as "N.batch".
 * Which jobs: sacct(1)'s rules for users (-u/-a), IDs, states and the
 * default time window; the controller applies the window, this file the
 * rest.  Each job's steps (N.0, N.1 ...) follow its batch step, from the
 * record's "steps", with the usage their herdstepds measured (TotalCPU,
 * MaxRSS, AveRSS); what Herd does not measure prints empty. */
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
#include "common/msg.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

enum field_id {
	F_BLANK, F_ACCOUNT, F_ALLOC_CPUS, F_ALLOC_NODES, F_ALLOC_TRES, F_CLUSTER, F_COMMENT,
	F_ELAPSED, F_ELAPSED_RAW, F_ELIGIBLE, F_END, F_EXIT_CODE, F_GID, F_GROUP, F_JOBID,
	F_JOBID_RAW, F_JOBNAME, F_NNODES, F_NODELIST, F_NTASKS, F_PARTITION, F_PRIORITY,
	F_REASON, F_REQ_CPUS, F_REQ_MEM, F_REQ_NODES, F_REQ_TRES, F_RESTARTS, F_START, F_STATE,
	F_STDERR, F_STDIN, F_STDOUT, F_SUBMIT, F_TIMELIMIT, F_TIMELIMIT_RAW, F_UID, F_USER,
	F_WORKDIR, F_CPU_TIME, F_CPU_TIME_RAW, F_DERIVED_EXIT, F_FAILED_NODE, F_LAYOUT, F_MAX_RSS,
	F_AVE_RSS, F_TOTAL_CPU,
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

/* In Slurm's order: a name given to -o matches the first field it begins
 * ("job" is JobID), as in sacct. */
static const struct field fields[] = {
	{ "Account", 10, F_ACCOUNT, K_STR }, { "AdminComment", 15, F_BLANK, K_STR },
	{ "AllocCPUS", 10, F_ALLOC_CPUS, K_NUM }, { "AllocNodes", 10, F_ALLOC_NODES, K_STR },
	{ "AllocTRES", 10, F_ALLOC_TRES, K_STR }, { "AssocID", 7, F_BLANK, K_NUM },
	{ "AveCPU", 10, F_BLANK, K_STR }, { "AveCPUFreq", 10, F_BLANK, K_STR },
	{ "AveDiskRead", 14, F_BLANK, K_STR }, { "AveDiskWrite", 14, F_BLANK, K_STR },
	{ "AvePages", 10, F_BLANK, K_STR }, { "AveRSS", 10, F_AVE_RSS, K_STR },
	{ "AveVMSize", 10, F_BLANK, K_STR }, { "BlockID", 16, F_BLANK, K_STR },
	{ "Cluster", 10, F_CLUSTER, K_STR }, { "Comment", 14, F_COMMENT, K_STR },
	{ "Constraints", 19, F_BLANK, K_STR }, { "ConsumedEnergy", 14, F_BLANK, K_STR },
	{ "ConsumedEnergyRaw", 17, F_BLANK, K_NUM }, { "Container", 19, F_BLANK, K_STR },
	{ "CPUTime", 10, F_CPU_TIME, K_TIME }, { "CPUTimeRAW", 10, F_CPU_TIME_RAW, K_NUM },
	{ "DBIndex", -21, F_BLANK, K_NUM }, { "DerivedExitCode", 15, F_DERIVED_EXIT, K_STR },
	{ "Elapsed", 10, F_ELAPSED, K_TIME }, { "ElapsedRaw", 10, F_ELAPSED_RAW, K_NUM },
	{ "Eligible", 19, F_ELIGIBLE, K_TIME }, { "End", 19, F_END, K_TIME },
	{ "ExitCode", 8, F_EXIT_CODE, K_STR }, { "Extra", 14, F_BLANK, K_STR },
	{ "FailedNode", 8, F_FAILED_NODE, K_STR }, { "Flags", 19, F_BLANK, K_STR },
	{ "GID", 6, F_GID, K_NUM }, { "Group", 9, F_GROUP, K_STR },
	{ "JobID", -12, F_JOBID, K_STR }, { "JobIDRaw", -12, F_JOBID_RAW, K_STR },
	{ "JobName", 10, F_JOBNAME, K_STR }, { "Layout", 9, F_LAYOUT, K_STR },
	{ "Licenses", 10, F_BLANK, K_STR }, { "MaxDiskRead", 12, F_BLANK, K_STR },
	{ "MaxDiskReadNode", 15, F_BLANK, K_STR }, { "MaxDiskReadTask", 15, F_BLANK, K_NUM },
	{ "MaxDiskWrite", 12, F_BLANK, K_STR }, { "MaxDiskWriteNode", 16, F_BLANK, K_STR },
	{ "MaxDiskWriteTask", 16, F_BLANK, K_NUM }, { "MaxPages", 8, F_BLANK, K_STR },
	{ "MaxPagesNode", 12, F_BLANK, K_STR }, { "MaxPagesTask", 14, F_BLANK, K_NUM },
	{ "MaxRSS", 10, F_MAX_RSS, K_STR }, { "MaxRSSNode", 10, F_BLANK, K_STR },
	{ "MaxRSSTask", 10, F_BLANK, K_NUM }, { "MaxVMSize", 10, F_BLANK, K_STR },
	{ "MaxVMSizeNode", 14, F_BLANK, K_STR }, { "MaxVMSizeTask", 14, F_BLANK, K_NUM },
	{ "McsLabel", 12, F_BLANK, K_STR }, { "MinCPU", 10, F_BLANK, K_STR },
	{ "MinCPUNode", 10, F_BLANK, K_STR }, { "MinCPUTask", 10, F_BLANK, K_NUM },
	{ "NCPUS", 10, F_ALLOC_CPUS, K_NUM }, { "NNodes", 8, F_NNODES, K_NUM },
	{ "NodeList", 15, F_NODELIST, K_STR }, { "NTasks", 8, F_NTASKS, K_NUM },
	{ "Partition", 10, F_PARTITION, K_STR }, { "Planned", 10, F_BLANK, K_TIME },
	{ "PlannedCPU", 10, F_BLANK, K_TIME }, { "PlannedCPURAW", 13, F_BLANK, K_NUM },
	{ "Priority", 10, F_PRIORITY, K_NUM }, { "QOS", 10, F_BLANK, K_STR },
	{ "QOSRAW", 6, F_BLANK, K_NUM }, { "QOSREQ", 10, F_BLANK, K_STR },
	{ "Reason", 22, F_REASON, K_STR }, { "ReqCPUFreq", 10, F_BLANK, K_STR },
	{ "ReqCPUFreqGov", 13, F_BLANK, K_STR }, { "ReqCPUFreqMax", 13, F_BLANK, K_STR },
	{ "ReqCPUFreqMin", 13, F_BLANK, K_STR }, { "ReqCPUS", 8, F_REQ_CPUS, K_NUM },
	{ "ReqMem", 10, F_REQ_MEM, K_STR }, { "ReqNodes", 8, F_REQ_NODES, K_STR },
	{ "ReqTRES", 10, F_REQ_TRES, K_STR }, { "Reservation", 20, F_BLANK, K_STR },
	{ "ReservationId", 8, F_BLANK, K_NUM }, { "Restarts", 8, F_RESTARTS, K_NUM },
	{ "Start", 19, F_START, K_TIME }, { "State", 10, F_STATE, K_STR },
	{ "StdErr", 20, F_STDERR, K_STR }, { "StdIn", 20, F_STDIN, K_STR },
	{ "StdOut", 20, F_STDOUT, K_STR }, { "Submit", 19, F_SUBMIT, K_TIME },
	{ "SubmitLine", 20, F_BLANK, K_STR }, { "Suspended", 10, F_BLANK, K_TIME },
	{ "SystemComment", 15, F_BLANK, K_STR }, { "SystemCPU", 10, F_BLANK, K_STR },
	{ "Timelimit", 10, F_TIMELIMIT, K_STR }, { "TimelimitRaw", 10, F_TIMELIMIT_RAW, K_STR },
	{ "TotalCPU", 10, F_TOTAL_CPU, K_STR }, { "TRESUsageInAve", 14, F_BLANK, K_STR },
	{ "TRESUsageInMax", 14, F_BLANK, K_STR }, { "TRESUsageInMaxNode", 18, F_BLANK, K_STR },
	{ "TRESUsageInMaxTask", 18, F_BLANK, K_STR }, { "TRESUsageInMin", 14, F_BLANK, K_STR },
	{ "TRESUsageInMinNode", 18, F_BLANK, K_STR }, { "TRESUsageInMinTask", 18, F_BLANK, K_STR },
	{ "TRESUsageInTot", 14, F_BLANK, K_STR }, { "TRESUsageOutAve", 15, F_BLANK, K_STR },
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
	int width;              /* > 0 */
	bool right;
};

/* "jobid,jobname%-30,state%20" -> columns; NULL (bad names printed) when a
 * name matches no field.  %N: N characters right-justified, %-N left. */
static struct column *sacct_format_parse(const char *spec, size_t *count)
{
	size_t n;
	char **names = opt_split(spec, ',', &n);
	struct column *cols = xmalloc((n + 1) * sizeof(*cols));

	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char *name = names[i], *pct = strchr(name, '%');
		if (pct)
			*pct = '\0';
		const struct field *f = NULL;
		size_t len = strlen(name);
		for (size_t k = 0; len && k < NFIELDS && !f; k++)
			if (!strncasecmp(fields[k].name, name, len))
				f = &fields[k];
		if (!f) {
			fprintf(stderr, "sacct: error: Invalid field requested: \"%s\"\n", name);
			goto error;
		}
		struct column c = { f, abs(f->width), f->width > 0 };
		if (pct) {
			long w;
			const char *num = pct[1] == '-' ? pct + 2 : pct + 1;
			if (opt_count(num, &w) < 0 || w <= 0 || w > 10000) {
				fprintf(stderr, "sacct: error: Invalid field requested: \"%s%%%s\"\n",
					name, pct + 1);
				goto error;
			}
			c.width = (int)w;
			c.right = pct[1] != '-';
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

/* One line of output: a job, its batch step (batch), or one of its steps
 * (step: a STEP of the record's "steps", doc/protocol.md). */
struct row {
	const json_t *job;
	bool batch;
	time_t now;
	const char *cluster;
	const json_t *step;
};

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
	return s >= 0 && job_state_is_final(s);
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

/* What a state reads as in the accounting: a job being cancelled already
 * is CANCELLED there, one completing otherwise still RUNNING. */
static const char *shown_state(const json_t *job, bool batch)
{
	int s = job_state(job);
	if (s == JOB_COMPLETING)
		return cmd_jbool(job, "cancel_requested") && !batch ? "CANCELLED" : "RUNNING";
	if (!batch)
		return cmd_jstr(job, "state");
	/* The batch step ends as its script did: killed by the time limit or
	 * a lost node, Slurm records the step CANCELLED. */
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

static int batch_cpus(const json_t *job)
{
	json_t *first = json_array_get(json_object_get(job, "alloc"), 0);
	return (int)json_integer_value(json_array_get(first, 1));
}

static const char *mem_text(long long mb, char *buf, size_t len)
{
	if (mb <= 0)
		return "0";
	return fmt_size_mb((uint64_t)mb, buf, len);
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

/* MaxRSS/AveRSS: kilobytes, in the largest unit that divides them
 * exactly, as sacct prints them (10820K, 2G). */
static const char *kb_text(long long kb, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	size_t u = 0;
	if (kb <= 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (units[u + 1] && kb % 1024 == 0) {
		kb /= 1024;
		u++;
	}
	snprintf(buf, len, "%lld%c", kb, units[u]);
	return buf;
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
	case F_CLUSTER: return r->cluster;
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
	case F_FAILED_NODE: return cmd_jstr(step, "failed_node");
	case F_LAYOUT: return cmd_step_dist(step);
	case F_TOTAL_CPU: return cpu_text(cmd_jint(step, "cpu_time_us"), buf, len);
	case F_MAX_RSS: case F_AVE_RSS:
		if (step_running(step))
			return NULL;
		return kb_text(cmd_jint(step, c->field->id == F_MAX_RSS ? "max_rss_kb" : "ave_rss_kb"),
			       buf, len);
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
		return NULL;
	case F_CPU_TIME: case F_CPU_TIME_RAW: {
		long long secs = (batch || ran ? elapsed(r) : 0) *
				 (batch ? batch_cpus(job) : ran ? cmd_jint(job, "num_cpus") : 0);
		if (c->field->id == F_CPU_TIME)
			return duration(secs, buf, len);
		snprintf(buf, len, "%lld", secs);
		return buf;
	}
	case F_TOTAL_CPU: {
		long long us = batch ? -1 : steps_cpu_us(job);
		return us < 0 ? NULL : cpu_text(us, buf, len);
	}
	case F_DERIVED_EXIT:
		return batch ? NULL : exit_code(cmd_step_derived_status(json_object_get(job, "steps"),
									       cmd_jstr(job, "state"),
									       cmd_jint(job, "end_time")),
						 buf, len);
	case F_FAILED_NODE: return NULL;
	case F_ACCOUNT: return cmd_jstr(job, "account");
	case F_CLUSTER: return r->cluster;
	case F_COMMENT: return batch ? NULL : cmd_jstr(job, "comment");
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
		long long cpus = batch ? batch_cpus(job) : cmd_jint(job, "num_cpus");
		long long nodes = batch ? 1 : cmd_jint(job, "num_nodes");
		long long mb = cmd_jint(job, "mem_per_node") * nodes;
		if (cmd_jint(job, "mem_per_cpu") > 0)   /* --mem-per-cpu: CPUs times it */
			mb = cmd_jint(job, "mem_per_cpu") * cpus;
		if (batch)
			snprintf(buf, len, "cpu=%lld,mem=%s,node=1", cpus, mem_text(mb, mem, sizeof(mem)));
		else
			snprintf(buf, len, "billing=%lld,cpu=%lld,mem=%s,node=%lld", cpus, cpus,
				 mem_text(mb, mem, sizeof(mem)), nodes);
		return buf;
	}
	case F_REQ_MEM:
		if (batch)
			return NULL;
		if (cmd_jint(job, "mem_per_cpu") > 0)
			return mem_text(cmd_jint(job, "mem_per_cpu") * cmd_jint(job, "num_cpus"), buf, len);
		return mem_text(cmd_jint(job, "mem_per_node") * (ran ? cmd_jint(job, "num_nodes") : 1),
				buf, len);
	case F_ELAPSED: return duration(batch || ran ? elapsed(r) : 0, buf, len);
	case F_ELAPSED_RAW:
		snprintf(buf, len, "%lld", (long long)elapsed(r));
		return buf;
	case F_SUBMIT:
		return fmt_timestamp(batch ? cmd_jint(job, "start_time") : cmd_jint(job, "submit_time"),
				     buf, len);
	case F_ELIGIBLE:
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
	case F_EXIT_CODE: {
		int status = (int)cmd_jint(job, "exit_code");
		/* A job cancelled or timed out ends 0:0; its batch step shows
		 * the signal that ended the script. */
		if (!batch && (state == JOB_CANCELLED || state == JOB_TIMEOUT || !ended(job)))
			status = 0;
		if (batch && !ended(job))
			status = 0;
		return exit_code(status, buf, len);
	}
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
	case F_STDOUT: return batch ? NULL : cmd_jstr(job, "std_out");
	case F_STDERR: return batch ? NULL : cmd_jstr(job, "std_err");
	case F_STDIN: return batch ? NULL : cmd_jstr(job, "std_in");
	case F_REASON: return batch ? NULL : cmd_jstr(job, "reason");
	case F_PRIORITY:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "priority"));
		return buf;
	case F_RESTARTS:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "restarts"));
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

/* One cell as Slurm's sacct prints it; see enum kind. */
static void cell(char **line, const struct out *o, const struct column *c, const char *v,
		 bool last)
{
	if (o->parsable) {
		fmt_cell(line, v ? v : "", 0, false);
		if (!(o->parsable == PARSABLE_NO_END && last))
			fmt_cell(line, o->delim, 0, false);
		return;
	}
	char *cut = NULL;
	if (!v || !*v) {
		v = "";
	} else if (strlen(v) > (size_t)c->width) {
		if (c->field->kind == K_NUM) {
			fmt_cell(line, v, 0, false);   /* numbers are never cut */
			fmt_cell(line, " ", 0, false);
			return;
		}
		cut = xstrndup(v, c->width);
		if (c->field->kind == K_STR)
			cut[c->width - 1] = '+';
		v = cut;
	}
	fmt_cell(line, v, c->width, c->right);
	fmt_cell(line, " ", 0, false);
	free(cut);
}

/* The rest prints and talks to the controller; tests/unit/test_sacct.c
 * compiles the pure part above without it. */
#ifndef SACCT_NO_MAIN
static void print_header(const struct column *cols, size_t n, const struct out *o)
{
	char *line = xstrdup("");
	for (size_t i = 0; i < n; i++)
		cell(&line, o, &cols[i], cols[i].field->name, i + 1 == n);
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
	for (size_t i = 0; i < NFIELDS; i++)
		printf("%-20s%s", fields[i].name, (i % 4 == 3 || i + 1 == NFIELDS) ? "\n" : "");
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
	       "\t           If Slurm job ids are reset, but the job ids are still in\n"
	       "\t           the database, show all of them.\n"
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
	       "     -l, --long:\n"
	       "\t           Equivalent to specifying a long list of fields.\n"
	       "     --name:\n"
	       "\t           Display jobs that have any of these name(s).\n"
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

/* Slurm lists an array's tasks together, by task ID (A_1, A_2, A_3), where
 * the array's ID falls among the others, whatever IDs the tasks got when
 * they started; a record still pending for several tasks comes last. */
static int by_array_then_task(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
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
	return (ix > iy) - (ix < iy);   /* a requeued task's records, in order */
}

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

static int by_step_rank(const void *x, const void *y)
{
	long long a = cmd_step_rank(cmd_jint(*(const json_t *const *)x, "step_id"));
	long long b = cmd_step_rank(cmd_jint(*(const json_t *const *)y, "step_id"));
	return (a > b) - (a < b);
}

enum { OPT_DELIMITER = 256, OPT_NAME, OPT_USAGE, OPT_HELP, OPT_IGNORED };

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
		   *end_arg = NULL, *names_arg = NULL, *parts_arg = NULL, *accounts_arg = NULL;
	char *jobs_joined = NULL;
	bool all_users = false, allocations = false, no_header = false;
	struct out o = { PARSABLE_NO, "|" };
	int c, status = 1;

	argv[0] = "sacct";
	while ((c = getopt_long(argc, argv, "aA:bDeE:hj:lLno:pPr:s:S:u:vVX", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': all_users = true; break;
		case 'A': accounts_arg = optarg; break;
		case 'b': format = BRIEF_FORMAT; break;
		case 'D': case 'L': case 'v': case OPT_IGNORED: break;
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
		case 'X': allocations = true; break;
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
	if (accounts_arg)
		accounts = opt_split(accounts_arg, ',', NULL);

	int rc = cmd_call(&client, MSG_ACCT_JOBS, body, &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "sacct: error: %s\n", err.text);
		goto out;
	}
	if (!no_header)
		print_header(cols, ncols, &o);
	json_t *jobs = json_object_get(reply, "jobs"), *job;
	time_t reply_now = cmd_jint(reply, "time");
	size_t njobs = json_array_size(jobs);
	json_t **sorted = xmalloc((njobs + 1) * sizeof(*sorted));
	for (size_t i = 0; i < njobs; i++)
		sorted[i] = json_array_get(jobs, i);
	qsort(sorted, njobs, sizeof(*sorted), by_array_then_task);
	for (size_t i = 0; i < njobs; i++) {
		job = sorted[i];
		if (names && !in_strv(names, cmd_jstr(job, "name")))
			continue;
		if (parts && !in_strv(parts, cmd_jstr(job, "partition")))
			continue;
		if (accounts && !in_strv(accounts, cmd_jstr(job, "account")))
			continue;
		/* -j 12.batch: only that line of job 12 (both when named both ways) */
		bool whole = !nwant;
		for (size_t k = 0; k < nwant; k++)
			if (want_matches(&want[k], job))
				whole |= want[k].step == CMD_STEP_NONE;
		struct row r = { job, false, reply_now ? reply_now : now,
				 conf_cluster_name(client.conf), NULL };
		if (whole)
			print_row(cols, ncols, &o, &r);
		/* salloc's and srun's jobs run no batch script: no N.batch line */
		if (started(job) && !cmd_jbool(job, "alloc_only") && ((whole && !allocations) ||
				     step_named(want, nwant, job, CMD_STEP_BATCH))) {
			r.batch = true;
			print_row(cols, ncols, &o, &r);
			r.batch = false;
		}
		/* then its steps, as Slurm: extern, 0, 1 ... (the store lists
		 * them by ID; the batch step is the job record's own) */
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
			if ((whole && !allocations) || step_named(want, nwant, job, id)) {
				r.step = order[k];
				print_row(cols, ncols, &o, &r);
			}
		}
		free(order);
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
	free(jobs_joined);
	return status;
}
#endif
