/* sacct's fields: Slurm 22.05's list (names, order, widths), -o parsing,
 * and what each field shows of a job record, its batch step and its
 * steps (sizes, times, TRES, states, exit codes).  Pure but for user and
 * group names; the command (sacct.c) and --json (sacct_json.c) use it. */
#include <ctype.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "cmd/sacct_fields.h"
#include "cmd/step.h"
#include "common/parse.h"
#include "common/state.h"
#include "common/xmalloc.h"

/* Slurm 22.05's fields, in its order and widths (sacct --helpformat; -o
 * all): a name given to -o matches the first field it begins ("job" is
 * JobID, "n" NCPUS).  F_BLANK: what Herd does not record (energy, disk
 * and VM sizes, CPU frequencies, reservations ...). */
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
	{ "ConsumedEnergyRaw", 17, F_BLANK, K_NUM }, { "Container", 19, F_CONTAINER, K_STR },
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
	{ "WCKey", 10, F_WCKEY, K_STR }, { "WCKeyID", 10, F_WCKEY_ID, K_NUM },
	{ "WorkDir", 20, F_WORKDIR, K_STR },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* Herd's own fields: named in full by -o only (not in --helpformat or -o
 * all, which stay Slurm 22.05's list).  TeamActs: what members of a
 * TeamJobs account did to the job (doc/accounting.md). */
static const struct field herd_fields[] = {
	{ "TeamActs", 30, F_TEAM_ACTS, K_STR },
};

/* "jobid,jobname%-30,state%20" -> columns; NULL (bad names printed) when a
 * name matches no field.  %N: N characters right-justified, %-N left (N
 * read as Slurm's atoi does: "%x" is 0, an empty column).  A name that
 * begins "ALL" ("a", "al", "all") is every field, as in Slurm. */
struct column *sacct_format_parse(const char *spec, size_t *count)
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
		for (size_t k = 0; len && k < sizeof(herd_fields) / sizeof(herd_fields[0]) && !f; k++)
			if (!strcasecmp(herd_fields[k].name, name))
				f = &herd_fields[k];
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

const struct show sacct_default_show = { 0, false, false };

const struct show *sacct_show_of(const struct row *r)
{
	return r->show ? r->show : &sacct_default_show;
}

/* sacct's durations: [D-]HH:MM:SS. */
static const char *duration(int64_t secs, char *buf, size_t len)
{
	return fmt_hms(secs, buf, len);
}

/* An earlier run of a requeued job (sacct -D): its own record, state
 * REQUEUED, which is no state a job has in the controller. */
static bool requeued(const json_t *job)
{
	return !strcmp(cmd_jstr(job, "state"), "REQUEUED");
}

int sacct_job_state(const json_t *job)
{
	return job_state_parse(cmd_jstr(job, "state"));
}

bool sacct_started(const json_t *job)
{
	int s = sacct_job_state(job);
	json_t *alloc = json_object_get(job, "alloc");
	return s != JOB_PENDING && cmd_jint(job, "start_time") && json_array_size(alloc) > 0;
}

bool sacct_ended(const json_t *job)
{
	int s = sacct_job_state(job);
	return (s >= 0 && job_state_is_final(s)) || requeued(job);
}

bool sacct_held(const json_t *job)
{
	return sacct_job_state(job) == JOB_PENDING &&
	       (cmd_jbool(job, "hold_user") || cmd_jbool(job, "hold_admin"));
}

int64_t sacct_elapsed(const struct row *r)
{
	int64_t start = cmd_jint(r->job, "start_time"), end = cmd_jint(r->job, "end_time");
	if (!start || sacct_job_state(r->job) == JOB_PENDING)
		return 0;
	if (!sacct_ended(r->job))
		return r->now > start ? r->now - start : 0;
	return end > start ? end - start : 0;
}

/* Reserved: how long the job waited once eligible, start - eligible (to
 * now while pending); a held job is not eligible. */
static int64_t reserved(const struct row *r)
{
	int64_t start = cmd_jint(r->job, "start_time"), eligible = cmd_jint(r->job, "eligible_time");
	if (!eligible || sacct_held(r->job))
		return 0;
	if (sacct_job_state(r->job) != JOB_PENDING && start)
		return start > eligible ? start - eligible : 0;
	return r->now > eligible ? r->now - eligible : 0;
}

/* What a state reads as in the accounting: a job being cancelled already
 * is CANCELLED there, one completing otherwise still RUNNING. */
const char *sacct_shown_state(const json_t *job, bool batch)
{
	int s = sacct_job_state(job);
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
int sacct_shown_status(const json_t *job, bool batch)
{
	int state = sacct_job_state(job);
	if (!sacct_ended(job))
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
	return size_text(mb > 0 ? (uint64_t)mb : 0, 2, &sacct_default_show, buf, len);
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

bool sacct_step_running(const json_t *step)
{
	return !strcmp(cmd_jstr(step, "state"), "RUNNING");
}

int64_t sacct_step_elapsed(const struct row *r)
{
	int64_t start = cmd_jint(r->step, "start_time"), end = cmd_jint(r->step, "end_time");
	if (!start)
		return 0;
	if (sacct_step_running(r->step) || !end)
		return r->now > start ? r->now - start : 0;
	return end > start ? end - start : 0;
}

/* The job's steps' CPU time (its batch step's is not measured); -1 with
 * no steps. */
long long sacct_steps_cpu_us(const json_t *job)
{
	long long us = -1;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(job, "steps"), i, step)
		us = (us < 0 ? 0 : us) + cmd_jint(step, "cpu_time_us");
	return us;
}

/* A step's measured use, per kind, as TRESUsageIn* and the JSON's TRES
 * lists count it: CPU microseconds and RSS kilobytes.  Herd measures a
 * step per node, not per task: the maximum is the busiest node's, the
 * total the nodes' sum, the average CPU the total over the tasks and the
 * average RSS the nodes' average over time.  cpu_us -1: not known (a
 * record from before max_cpu_us, on several nodes). */
void sacct_step_usage(const json_t *step, enum sacct_usage kind, long long *cpu_us,
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
 * seconds, memory as MaxRSS prints), with "gres/gpumem=2G,gres/gpuutil=50"
 * when its GPUs were sampled; nothing while the step runs.  The batch
 * step (step NULL): its GPUs' only (its CPU and memory are not measured). */
static const char *tres_usage_text(const json_t *job, const json_t *step, enum sacct_usage kind,
				   const struct show *sh, char *buf, size_t len)
{
	long long cpu, rss, gmem, gutil;
	char t[32], m[32], g[32], base[160];
	const json_t *gpu = sacct_gpu_usage(job, step ? cmd_jint(step, "step_id") : CMD_STEP_BATCH);
	bool gpus = sacct_gpu_figures(gpu, kind, &gmem, &gutil);

	if (step ? sacct_step_running(step) : !sacct_ended(job) || !gpus)
		return NULL;
	base[0] = '\0';
	if (step) {
		sacct_step_usage(step, kind, &cpu, &rss);
		if (cpu < 0)
			snprintf(base, sizeof(base), "mem=%s", kb_text(rss, sh, m, sizeof(m)));
		else
			snprintf(base, sizeof(base), "cpu=%s,mem=%s", duration(cpu / 1000000, t, sizeof(t)),
				 kb_text(rss, sh, m, sizeof(m)));
	}
	if (gpus) {
		size_t at = strlen(base);
		snprintf(base + at, sizeof(base) - at, "%sgres/gpumem=%s,gres/gpuutil=%lld",
			 at ? "," : "", size_text(gmem > 0 ? (uint64_t)gmem : 0, 2, sh, g, sizeof(g)),
			 gutil);
	}
	return sacct_tres_join(base, NULL, buf, len);
}

const char *sacct_cluster_of(const struct row *r)
{
	const char *c = cmd_jstr(r->job, "cluster");
	return *c ? c : r->cluster;
}

struct sacct_tres sacct_job_tres(const json_t *job, bool batch, bool alloc)
{
	struct sacct_tres t = { 0 };
	t.cpus = batch ? batch_cpus(job) : cmd_jint(job, "num_cpus");
	t.nodes = batch ? 1 : cmd_jint(job, "num_nodes");
	t.mem_mb = cmd_jint(job, "mem_per_node") * t.nodes;
	if (cmd_jint(job, "mem_per_cpu") > 0)   /* --mem-per-cpu: CPUs times it */
		t.mem_mb = cmd_jint(job, "mem_per_cpu") * t.cpus;
	t.billing = cmd_jint(job, "billing") > 0 ? cmd_jint(job, "billing") : t.cpus;
	if (batch)
		sacct_gres_on_nodes(job, NULL, &t);
	else
		sacct_gres_parse(cmd_jstr(job, alloc ? "tres_alloc_gres" : "tres_req_gres"), &t);
	return t;
}

struct sacct_tres sacct_step_tres(const json_t *job, const json_t *step)
{
	struct sacct_tres t = { 0 };
	t.cpus = cmd_jint(step, "num_cpus");
	t.nodes = cmd_jint(step, "num_nodes");
	t.mem_mb = cmd_jint(step, "mem_mb") * t.nodes;
	sacct_gres_of_step(job, step, &t);
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
	case F_CLUSTER: return sacct_cluster_of(r);
	case F_JOBID:
		snprintf(buf, len, "%s.%s", cmd_job_id(job, -1, a, sizeof(a)),
			 cmd_step_name(id, name, sizeof(name)));
		return buf;
	case F_JOBID_RAW:
		snprintf(buf, len, "%lld.%s", cmd_jint(job, "job_id"), cmd_step_name(id, name, sizeof(name)));
		return buf;
	case F_JOBNAME: return cmd_jstr(step, "name");
	case F_CONTAINER: return cmd_jstr(step, "container");
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
		struct sacct_tres t = sacct_step_tres(job, step);
		snprintf(a, sizeof(a), "cpu=%lld,mem=%s,node=%lld", t.cpus,
			 mem_text(t.mem_mb, mem, sizeof(mem)), t.nodes);
		return sacct_tres_join(a, &t, buf, len);
	}
	case F_ELAPSED: return duration(sacct_step_elapsed(r), buf, len);
	case F_ELAPSED_RAW:
		snprintf(buf, len, "%lld", (long long)sacct_step_elapsed(r));
		return buf;
	case F_CPU_TIME: return duration(sacct_step_elapsed(r) * cpus, buf, len);
	case F_CPU_TIME_RAW:
		snprintf(buf, len, "%lld", (long long)sacct_step_elapsed(r) * cpus);
		return buf;
	case F_SUBMIT: case F_ELIGIBLE: case F_START:
		return fmt_timestamp(cmd_jint(step, "start_time"), buf, len);
	case F_END:
		return fmt_timestamp(sacct_step_running(step) ? 0 : cmd_jint(step, "end_time"), buf, len);
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
		if (sacct_step_running(step))
			return NULL;
		return kb_text(cmd_jint(step, c->field->id == F_MAX_RSS ? "max_rss_kb" : "ave_rss_kb"),
			       sacct_show_of(r), buf, len);
	case F_TRES_IN_TOT: return tres_usage_text(job, step, USAGE_TOT, sacct_show_of(r), buf, len);
	case F_TRES_IN_MAX: return tres_usage_text(job, step, USAGE_MAX, sacct_show_of(r), buf, len);
	case F_TRES_IN_AVE: return tres_usage_text(job, step, USAGE_AVE, sacct_show_of(r), buf, len);
	default:
		return NULL;
	}
}

/* The value of a field, or NULL when it has none (printed blank). */
const char *sacct_value(const struct column *c, const struct row *r, char *buf, size_t len)
{
	const json_t *job = r->job;
	bool batch = r->batch;
	int state = sacct_job_state(job);
	bool ran = sacct_started(job);
	char mem[32];

	if (r->step)
		return step_value(c, r, buf, len);
	switch (c->field->id) {
	case F_BLANK: case F_MAX_RSS: case F_AVE_RSS: case F_LAYOUT:
		return NULL;   /* measured per step; the batch step is not */
	case F_TRES_IN_TOT: case F_TRES_IN_MAX: case F_TRES_IN_AVE: {
		if (!batch)
			return NULL;
		enum sacct_usage kind = c->field->id == F_TRES_IN_TOT ? USAGE_TOT
				      : c->field->id == F_TRES_IN_MAX ? USAGE_MAX : USAGE_AVE;
		return tres_usage_text(job, NULL, kind, sacct_show_of(r), buf, len);
	}
	case F_CPU_TIME: case F_CPU_TIME_RAW: {
		long long secs = (batch || ran ? sacct_elapsed(r) : 0) *
				 (batch ? batch_cpus(job) : ran ? cmd_jint(job, "num_cpus") : 0);
		if (c->field->id == F_CPU_TIME)
			return duration(secs, buf, len);
		snprintf(buf, len, "%lld", secs);
		return buf;
	}
	case F_TOTAL_CPU: {
		if (batch)
			return NULL;
		if (sacct_show_of(r)->allocations)   /* Slurm adds up the steps it read: none */
			return cpu_text(0, buf, len);
		long long us = sacct_steps_cpu_us(job);
		return us < 0 ? NULL : cpu_text(us, buf, len);
	}
	case F_DERIVED_EXIT:
		return batch ? NULL : exit_code(cmd_step_derived_status(json_object_get(job, "steps"),
									       cmd_jstr(job, "state"),
									       cmd_jint(job, "end_time")),
						 buf, len);
	case F_ACCOUNT: return cmd_jstr(job, "account");
	case F_CLUSTER: return sacct_cluster_of(r);
	case F_COMMENT: return batch ? NULL : cmd_jstr(job, "comment");
	case F_CONTAINER: return cmd_jstr(job, "container");   /* the batch step's too */
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
		snprintf(buf, len, "%lld", batch || !cmd_jint(job, "req_nodes") ? 1
								: cmd_jint(job, "req_nodes"));
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
		struct sacct_tres t = sacct_job_tres(job, batch, alloc);
		char base[256];
		if (batch)
			snprintf(base, sizeof(base), "cpu=%lld,mem=%s,node=1", t.cpus,
				 mem_text(t.mem_mb, mem, sizeof(mem)));
		else
			snprintf(base, sizeof(base), "billing=%lld,cpu=%lld,mem=%s,node=%lld", t.billing,
				 t.cpus, mem_text(t.mem_mb, mem, sizeof(mem)), t.nodes);
		return sacct_tres_join(base, &t, buf, len);
	}
	case F_REQ_MEM: {
		if (batch)
			return NULL;
		long long mb = cmd_jint(job, "mem_per_node") * (ran ? cmd_jint(job, "num_nodes") : 1);
		if (cmd_jint(job, "mem_per_cpu") > 0)
			mb = cmd_jint(job, "mem_per_cpu") * cmd_jint(job, "num_cpus");
		return size_text(mb > 0 ? (uint64_t)mb : 0, 2, sacct_show_of(r), buf, len);
	}
	case F_ELAPSED: return duration(batch || ran ? sacct_elapsed(r) : 0, buf, len);
	case F_ELAPSED_RAW:
		snprintf(buf, len, "%lld", (long long)sacct_elapsed(r));
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
		if (!batch && sacct_held(job))
			return fmt_timestamp(0, buf, len);   /* Unknown, as Slurm */
		return fmt_timestamp(batch ? cmd_jint(job, "start_time") : cmd_jint(job, "eligible_time"),
				     buf, len);
	case F_START:
		return fmt_timestamp(state == JOB_PENDING ? 0 : cmd_jint(job, "start_time"), buf, len);
	case F_END:
		return fmt_timestamp(sacct_ended(job) ? cmd_jint(job, "end_time") : 0, buf, len);
	case F_STATE: {
		const char *s = sacct_shown_state(job, batch);
		if (!batch && !strcmp(s, "CANCELLED") && json_object_get(job, "requid")) {
			snprintf(buf, len, "CANCELLED by %lld", cmd_jint(job, "requid"));
			return buf;
		}
		return s;
	}
	case F_EXIT_CODE: return exit_code(sacct_shown_status(job, batch), buf, len);
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
	/* TrackWCKey: "*name" for a default (Slurm's mark); the record's ID, 0 none */
	case F_WCKEY: return batch ? NULL : cmd_jstr(job, "wckey");
	case F_WCKEY_ID:
		if (batch)
			return NULL;
		snprintf(buf, len, "%lld", cmd_jint(job, "wckey_id"));
		return buf;
	case F_WORKDIR: return batch ? NULL : cmd_jstr(job, "work_dir");
	case F_TEAM_ACTS: {
		if (batch)
			return NULL;
		char *acts = fmt_team_acts(json_object_get(job, "acts"));
		snprintf(buf, len, "%s", acts);
		free(acts);
		return buf;
	}
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

/* One cell as Slurm's sacct prints it; see enum kind.  A title is cut
 * plainly ("TimelimitR"). */
void sacct_cell_cut(char **line, const struct out *o, const struct column *c, const char *v,
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

void sacct_cell(char **line, const struct out *o, const struct column *c, const char *v,
		 bool last)
{
	sacct_cell_cut(line, o, c, v, last, c->field->kind);
}

/* Slurm's order of a job's steps: extern, 0, 1 ... (the store lists them
 * by ID; the batch step is the job record's own). */
int sacct_by_step_rank(const void *x, const void *y)
{
	long long a = cmd_step_rank(cmd_jint(*(const json_t *const *)x, "step_id"));
	long long b = cmd_step_rank(cmd_jint(*(const json_t *const *)y, "step_id"));
	return (a > b) - (a < b);
}

/* The controller answers with the clusters asked (-M) or the local one;
 * a record of another is not shown either way. */
bool sacct_cluster_wanted(const char *clusters_arg, const char *cluster, const char *local)
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
int sacct_units_parse(const char *arg, char *unit)
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

int sacct_by_record(const void *a, const void *b)
{
	const struct sacct_ranked *rx = a, *ry = b;
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

void sacct_help_format(void)
{
	/* four to a line, each in 19 columns and a space or the line's end */
	for (size_t i = 0; i < NFIELDS; i++)
		printf("%-19s%s", fields[i].name, (i % 4 == 3 || i + 1 == NFIELDS) ? "\n" : " ");
}
