/* scontrol show's records of jobs, nodes and partitions (see record.h). */
#define _GNU_SOURCE   /* vasprintf */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd/opt.h"
#include "cmd/record.h"
#include "cmd/step.h"
#include "common/parse.h"
#include "common/xmalloc.h"

void record_add(struct record *r, const char *fmt, ...)
{
	va_list ap;
	char *line;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	opt_strv_push(&r->lines, &r->count, line);
}

void record_print(struct record *r, bool oneliner)
{
	for (size_t i = 0; i < r->count; i++) {
		if (oneliner)
			printf("%s%s", i ? " " : "", r->lines[i]);
		else
			printf("%s%s\n", i ? "   " : "", r->lines[i]);
	}
	printf("\n");
	opt_strv_free(r->lines);
	r->lines = NULL;
	r->count = 0;
}

/* scontrol's durations: HH:MM:SS, D-HH:MM:SS past a day. */
static const char *duration(long long s, const char *infinite, char *buf, size_t len)
{
	return s == TIME_INFINITE ? infinite : fmt_hms(s, buf, len);
}

static const char *stamp(long long t, char *buf, size_t len)
{
	return fmt_timestamp((time_t)t, buf, len);
}

static const char *or_null(const char *s)
{
	return *s ? s : "(null)";
}

static const char *all_or(const char *s)
{
	return *s ? s : "ALL";
}

static const char *upper(const char *s, char *buf, size_t len)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

/* Names as Slurm's commands show them: resolved here when the reply has none. */
static const char *user_name(const json_t *job, char *buf, size_t len)
{
	const char *s = cmd_jstr(job, "user");
	struct passwd *pw;
	if (*s)
		return s;
	if ((pw = getpwuid((uid_t)cmd_jint(job, "uid"))))
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%lld", cmd_jint(job, "uid"));
	return buf;
}

static const char *group_name(const json_t *job, char *buf, size_t len)
{
	const char *s = cmd_jstr(job, "group");
	struct group *gr;
	if (*s)
		return s;
	if ((gr = getgrgid((gid_t)cmd_jint(job, "gid"))))
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%lld", cmd_jint(job, "gid"));
	return buf;
}

/* JOB_GRES=: the GRES of its nodes' lines summed by name[:type]
 * ("gpu:h100:4"), (null) for none. */
static const char *job_gres_sum(const json_t *job, char *buf, size_t len)
{
	const json_t *alloc = json_object_get(job, "node_alloc"), *e;
	struct { char word[100]; long long n; } sum[16];
	int nsum = 0;
	size_t i;

	json_array_foreach(alloc, i, e) {
		const char *g = json_string_value(json_array_get(e, 3)) ?: "";
		while (*g) {   /* "gpu:h100:1(IDX:0),shard:2(IDX:1)" */
			size_t item = strcspn(g, ",(");
			const char *colon = item ? memrchr(g, ':', item) : NULL;
			if (colon && nsum < 16) {
				char word[100];
				snprintf(word, sizeof(word), "%.*s", (int)(colon - g), g);
				long long n = atoll(colon + 1);
				int k = 0;
				while (k < nsum && strcmp(sum[k].word, word))
					k++;
				if (k == nsum) {
					snprintf(sum[nsum].word, sizeof(sum[nsum].word), "%s", word);
					sum[nsum++].n = 0;
				}
				sum[k].n += n;
			}
			g += item;
			if (*g == '(')
				g += strcspn(g, ")") + (g[strcspn(g, ")")] == ')');
			g += *g == ',';
		}
	}
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < nsum && used < len; k++)
		used += snprintf(buf + used, len - used, "%s%s:%lld", k ? "," : "", sum[k].word, sum[k].n);
	return nsum ? buf : "(null)";
}

/* -d: one line per run of nodes where the job has the same CPU IDs,
 * memory and GRES, as Slurm's.  A controller that does not send the IDs
 * (node_alloc's fifth) numbers the CPUs from 0, so that their count is
 * right. */
static void node_alloc_lines(const json_t *job, struct record *r)
{
	const json_t *alloc = json_object_get(job, "node_alloc");
	size_t n = json_array_size(alloc);

	for (size_t i = 0; i < n;) {
		const json_t *e = json_array_get(alloc, i);
		long long cpus = json_integer_value(json_array_get(e, 1));
		long long mem = json_integer_value(json_array_get(e, 2));
		const char *gres = json_string_value(json_array_get(e, 3)) ?: "";
		const char *given = json_string_value(json_array_get(e, 4)) ?: "";
		const char **names = xmalloc(n * sizeof(*names));
		size_t k = 0;
		for (; i < n; i++, k++) {
			e = json_array_get(alloc, i);
			if (json_integer_value(json_array_get(e, 1)) != cpus ||
			    json_integer_value(json_array_get(e, 2)) != mem ||
			    strcmp(json_string_value(json_array_get(e, 3)) ?: "", gres) ||
			    strcmp(json_string_value(json_array_get(e, 4)) ?: "", given))
				break;
			names[k] = json_string_value(json_array_get(e, 0));
		}
		char *hosts = hostlist_compress(names, k), ids[32];
		if (cpus > 1)
			snprintf(ids, sizeof(ids), "0-%lld", cpus - 1);
		else
			snprintf(ids, sizeof(ids), "0");
		record_add(r, "  Nodes=%s CPU_IDs=%s Mem=%lld GRES=%s", hosts, *given ? given : ids, mem,
			gres);
		free(hosts);
		free(names);
	}
}

/* The memory the job holds on all its nodes (node_alloc's), 0 before it runs. */
static long long node_alloc_mem(const json_t *job)
{
	const json_t *alloc = json_object_get(job, "node_alloc"), *e;
	long long total = 0;
	size_t i;
	json_array_foreach(alloc, i, e)
		total += json_integer_value(json_array_get(e, 2));
	return total;
}

const char *record_job_tres(const json_t *job, char *buf, size_t len)
{
	char c[64];
	long long nodes = cmd_jint(job, "num_nodes"), cpus = cmd_jint(job, "num_cpus");
	long long mem = cmd_jint(job, "mem_per_node"), mem_all = 0;
	const char *gres = cmd_jstr(job, "gres_alloc"), *gpus = strstr(gres, "gres/gpu=");

	/* billing: TRESBillingWeights' once started (the controller's), else the CPUs */
	long long billing = cmd_jint(job, "billing") > 0 ? cmd_jint(job, "billing") : cpus;

	if (nodes < 1)
		nodes = 1;
	if (cmd_jint(job, "mem_per_gpu") > 0) {   /* what its nodes give it, else per GPU asked */
		mem_all = node_alloc_mem(job);
		if (!mem_all && gpus)
			mem_all = cmd_jint(job, "mem_per_gpu") * atoll(gpus + strlen("gres/gpu="));
	} else if (cmd_jint(job, "mem_per_cpu") > 0)
		mem_all = cmd_jint(job, "mem_per_cpu") * cpus;
	else if (mem > 0)
		mem_all = mem * nodes;
	if (mem_all > 0)
		snprintf(buf, len, "cpu=%lld,mem=%s,node=%lld,billing=%lld%s%s", cpus,
			 fmt_size_mb(mem_all, c, sizeof(c)), nodes, billing, *gres ? "," : "", gres);
	else
		snprintf(buf, len, "cpu=%lld,node=%lld,billing=%lld%s%s", cpus, nodes, billing,
			 *gres ? "," : "", gres);
	return buf;
}

void record_job(const json_t *job, time_t now, int details, struct record *r)
{
	char a[64], b[64], c[64];
	const char *state = cmd_jstr(job, "state");
	bool pending = !strcmp(state, "PENDING");
	long long start = cmd_jint(job, "start_time"), end = cmd_jint(job, "end_time");
	long long run = 0;
	if (start && !pending)
		run = (end && strcmp(state, "RUNNING") ? end : now) - start;
	int status = (int)cmd_jint(job, "exit_code");
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	long long nodes = cmd_jint(job, "num_nodes"), cpus = cmd_jint(job, "num_cpus");
	long long mem = cmd_jint(job, "mem_per_node"), cpt = cmd_jint(job, "cpus_per_task");
	const char *host = cmd_jstr(job, "batch_host");

	/* Slurm's defaults for what was not asked: one node, one task. */
	if (nodes < 1)
		nodes = 1;
	long long tasks = cmd_jint(job, "num_tasks");
	if (tasks < 1)
		tasks = 1;
	if (cmd_jint(job, "het_job_id")) {   /* a het job's component */
		record_add(r, "JobId=%lld HetJobId=%lld HetJobOffset=%lld JobName=%s", cmd_jint(job, "job_id"),
			cmd_jint(job, "het_job_id"), cmd_jint(job, "het_job_offset"), cmd_jstr(job, "name"));
		record_add(r, "HetJobIdSet=%s", cmd_jstr(job, "het_job_id_set"));
	} else if (!cmd_jint(job, "array_job_id"))
		record_add(r, "JobId=%lld JobName=%s", cmd_jint(job, "job_id"), cmd_jstr(job, "name"));
	else if (cmd_jint(job, "array_task_id") != CMD_NO_TASK)
		record_add(r, "JobId=%lld ArrayJobId=%lld ArrayTaskId=%lld JobName=%s",
			cmd_jint(job, "job_id"), cmd_jint(job, "array_job_id"),
			cmd_jint(job, "array_task_id"), cmd_jstr(job, "name"));
	else if (cmd_jint(job, "array_throttle"))   /* Slurm: the throttle in ArrayTaskId too */
		record_add(r, "JobId=%lld ArrayJobId=%lld ArrayTaskId=%s%%%lld ArrayTaskThrottle=%lld "
			"JobName=%s", cmd_jint(job, "job_id"), cmd_jint(job, "array_job_id"),
			cmd_jstr(job, "array_tasks"), cmd_jint(job, "array_throttle"),
			cmd_jint(job, "array_throttle"), cmd_jstr(job, "name"));
	else
		record_add(r, "JobId=%lld ArrayJobId=%lld ArrayTaskId=%s JobName=%s",
			cmd_jint(job, "job_id"), cmd_jint(job, "array_job_id"),
			cmd_jstr(job, "array_tasks"), cmd_jstr(job, "name"));
	record_add(r, "UserId=%s(%lld) GroupId=%s(%lld) MCS_label=N/A", user_name(job, a, sizeof(a)),
		cmd_jint(job, "uid"), group_name(job, b, sizeof(b)), cmd_jint(job, "gid"));
	/* WCKey= only when the job has one (TrackWCKey), as Slurm */
	record_add(r, "Priority=%lld Nice=%lld Account=%s QOS=%s%s%s", cmd_jint(job, "priority"),
		cmd_jint(job, "nice"), or_null(cmd_jstr(job, "account")),
		*cmd_jstr(job, "qos") ? cmd_jstr(job, "qos") : "normal",
		*cmd_jstr(job, "wckey") ? " WCKey=" : "", cmd_jstr(job, "wckey"));
	record_add(r, "JobState=%s Reason=%s Dependency=%s", state, cmd_jstr(job, "reason"),
		or_null(cmd_jstr(job, "dependency")));
	json_t *rq = json_object_get(job, "requeue");
	record_add(r, "Requeue=%d Restarts=%lld BatchFlag=1 Reboot=0 ExitCode=%d:%d",
		rq ? json_is_true(rq) : 1, cmd_jint(job, "restarts"), code, sig);
	if (details) {   /* the highest exit of the job's steps (scontrol.c puts it in) */
		int derived = (int)cmd_jint(job, "derived_exit_code");
		record_add(r, "DerivedExitCode=%d:%d", WIFEXITED(derived) ? WEXITSTATUS(derived) : 0,
			WIFSIGNALED(derived) ? WTERMSIG(derived) : 0);
	}
	long long tmin = json_object_get(job, "time_min") ? cmd_jint(job, "time_min") : TIME_NOT_GIVEN;
	record_add(r, "RunTime=%s TimeLimit=%s TimeMin=%s", duration(run, "", a, sizeof(a)),
		duration(cmd_jint(job, "time_limit"), "UNLIMITED", b, sizeof(b)),
		tmin == TIME_NOT_GIVEN ? "N/A" : duration(tmin, "UNLIMITED", c, sizeof(c)));
	/* A held job is not eligible (Slurm shows Unknown); a running job
	 * with a limit shows when it will be stopped. */
	const char *reason = cmd_jstr(job, "reason");
	bool held = pending && (!strcmp(reason, "JobHeldUser") || !strcmp(reason, "JobHeldAdmin"));
	/* ... unless it waits for --begin: then the begin time (Slurm) */
	long long eligible = cmd_jint(job, "eligible_time");
	long long accrue = held ? 0 : eligible;
	if (held && eligible <= now)
		eligible = 0;
	long long limit = cmd_jint(job, "time_limit");
	if (!end && start && !pending && limit != TIME_INFINITE)
		end = start + limit;
	record_add(r, "SubmitTime=%s EligibleTime=%s", stamp(cmd_jint(job, "submit_time"), a, sizeof(a)),
		stamp(eligible, b, sizeof(b)));
	record_add(r, "AccrueTime=%s", stamp(accrue, a, sizeof(a)));
	/* A pending job with --begin starts at the earliest then (Slurm shows it). */
	if (pending && !start && eligible > now)
		start = eligible;
	/* ... else where the backfill plan starts it (squeue --start's), and
	 * ends it at its limit */
	long long estimate = cmd_jint(job, "start_estimate");
	if (pending && !start && estimate > 0) {
		start = estimate;
		if (limit != TIME_INFINITE)
			end = start + limit;
	}
	long long deadline = cmd_jint(job, "deadline");
	record_add(r, "StartTime=%s EndTime=%s Deadline=%s", stamp(start, a, sizeof(a)),
		stamp(end, b, sizeof(b)), deadline ? stamp(deadline, c, sizeof(c)) : "N/A");
	record_add(r, "SuspendTime=None SecsPreSuspend=0 LastSchedEval=Unknown Scheduler=Main");
	record_add(r, "Partition=%s AllocNode:Sid=%s:0", cmd_jstr(job, "partition"),
		cmd_jstr(job, "submit_host"));
	record_add(r, "ReqNodeList=%s ExcNodeList=%s", or_null(cmd_jstr(job, "req_nodelist")),
		or_null(cmd_jstr(job, "exc_nodelist")));
	record_add(r, "NodeList=%s", or_null(cmd_jstr(job, "nodes")));   /* pending: (null) */
	if (*cmd_jstr(job, "sched_nodes"))   /* where the scheduler expects to start it */
		record_add(r, "SchedNodeList=%s", cmd_jstr(job, "sched_nodes"));
	if (*host)
		record_add(r, "BatchHost=%s", host);
	/* -N min-max: the range while pending (Slurm) */
	long long max_nodes = cmd_jint(job, "max_nodes");
	char range[48];
	if (pending && max_nodes > nodes)
		snprintf(range, sizeof(range), "%lld-%lld", nodes, max_nodes);
	else
		snprintf(range, sizeof(range), "%lld", nodes);
	/* -B S:C:T: "*" for what was not asked; Slurm shows the sockets
	 * as Socks/Node, and 0 for boards and sockets here */
	char sct[3][24];
	static const char *const sct_keys[] = { "sockets_per_node", "cores_per_socket",
						"threads_per_core" };
	for (int i = 0; i < 3; i++) {
		long long v = cmd_jint(job, sct_keys[i]);
		snprintf(sct[i], sizeof(sct[i]), v > 0 ? "%lld" : "*", v);
	}
	record_add(r, "NumNodes=%s NumCPUs=%lld NumTasks=%lld CPUs/Task=%lld ReqB:S:C:T=0:0:%s:%s",
		range, cpus, tasks, cpt > 0 ? cpt : 1, sct[1], sct[2]);
	char tres[1024];
	record_add(r, "TRES=%s", record_job_tres(job, tres, sizeof(tres)));
	char per_socket[24] = "*", per_core[24] = "*";
	if (cmd_jint(job, "ntasks_per_socket") > 0)
		snprintf(per_socket, sizeof(per_socket), "%lld", cmd_jint(job, "ntasks_per_socket"));
	if (cmd_jint(job, "ntasks_per_core") > 0)
		snprintf(per_core, sizeof(per_core), "%lld", cmd_jint(job, "ntasks_per_core"));
	record_add(r, "Socks/Node=%s NtasksPerN:B:S:C=%lld:0:%s:%s CoreSpec=*", sct[0],
		cmd_jint(job, "ntasks_per_node"), per_socket, per_core);
	if (details && json_array_size(json_object_get(job, "node_alloc"))) {
		char gsum[256];
		record_add(r, "JOB_GRES=%s", job_gres_sum(job, gsum, sizeof(gsum)));
		node_alloc_lines(job, r);
	}
	long long mpc = cmd_jint(job, "mem_per_cpu");
	/* the CPUs a node must give it: -c, or --mincpus when more */
	long long min_cpus = cmd_jint(job, "mincpus") > cpt ? cmd_jint(job, "mincpus") : cpt > 0 ? cpt : 1;
	long long tmp = cmd_jint(job, "min_tmp_disk");
	char tmp_text[32];
	snprintf(tmp_text, sizeof(tmp_text), "%s", tmp > 0 ? fmt_size_mb(tmp, b, sizeof(b)) : "0");
	if (mpc > 0)   /* Slurm shows MinMemoryCPU= in place of MinMemoryNode= */
		record_add(r, "MinCPUsNode=%lld MinMemoryCPU=%s MinTmpDiskNode=%s", min_cpus,
			fmt_size_mb(mpc, c, sizeof(c)), tmp_text);
	else
		record_add(r, "MinCPUsNode=%lld MinMemoryNode=%s MinTmpDiskNode=%s", min_cpus,
			mem > 0 ? fmt_size_mb(mem, c, sizeof(c)) : "0", tmp_text);
	record_add(r, "Features=%s DelayBoot=%s", or_null(cmd_jstr(job, "features")),
		fmt_hms(cmd_jint(job, "delay_boot"), a, sizeof(a)));
	if (*cmd_jstr(job, "reservation"))   /* Slurm: only for a job with one */
		record_add(r, "Reservation=%s", cmd_jstr(job, "reservation"));
	record_add(r, "OverSubscribe=%s Contiguous=0 Licenses=%s Network=(null)",
		cmd_jbool(job, "exclusive") ? "NO" : cmd_jbool(job, "exclusive_user") ? "USER"
		: cmd_jbool(job, "oversubscribe") ? "YES" : "OK",
		or_null(cmd_jstr(job, "licenses")));
	record_add(r, "Command=%s", or_null(cmd_jstr(job, "command")));
	record_add(r, "WorkDir=%s", cmd_jstr(job, "work_dir"));
	if (*cmd_jstr(job, "comment"))
		record_add(r, "Comment=%s ", cmd_jstr(job, "comment"));
	record_add(r, "StdErr=%s", cmd_jstr(job, "std_err"));
	record_add(r, "StdIn=%s", cmd_jstr(job, "std_in"));
	record_add(r, "StdOut=%s", cmd_jstr(job, "std_out"));
	record_add(r, "Power=");
	/* GRES asked (Slurm: each only when given) */
	static const char *const tres_keys[][2] = { { "tres_per_job", "TresPerJob" },
						    { "tres_per_node", "TresPerNode" },
						    { "tres_per_socket", "TresPerSocket" },
						    { "tres_per_task", "TresPerTask" } };
	/* in Slurm 22.05's order */
	if (cmd_jint(job, "cpus_per_gpu") > 0)
		record_add(r, "CpusPerTres=gres:gpu:%lld", cmd_jint(job, "cpus_per_gpu"));
	if (cmd_jint(job, "mem_per_gpu") > 0)
		record_add(r, "MemPerTres=gres:gpu:%lld", cmd_jint(job, "mem_per_gpu"));
	if (*cmd_jstr(job, "gpu_bind"))
		record_add(r, "TresBind=gpu:%s", cmd_jstr(job, "gpu_bind"));
	if (*cmd_jstr(job, "gpu_freq"))
		record_add(r, "TresFreq=gpu:%s", cmd_jstr(job, "gpu_freq"));
	for (size_t k = 0; k < sizeof(tres_keys) / sizeof(*tres_keys); k++)
		if (*cmd_jstr(job, tres_keys[k][0]))
			record_add(r, "%s=%s", tres_keys[k][1], cmd_jstr(job, tres_keys[k][0]));
	/* as Slurm: only for a job that asked for mail */
	const char *mail_type = cmd_jstr(job, "mail_type");
	if (*mail_type && strcmp(mail_type, "NONE") && *cmd_jstr(job, "mail_user"))
		record_add(r, "MailUser=%s MailType=%s", cmd_jstr(job, "mail_user"), mail_type);
	if (*cmd_jstr(job, "container"))   /* as Slurm: only for a job with one */
		record_add(r, "Container=%s", cmd_jstr(job, "container"));
	/* -dd: the script, unindented after its key, as Slurm prints it */
	const json_t *script = json_object_get(job, "script");
	if (script) {
		const char *text = json_string_value(script);
		size_t len = strlen(text);
		record_add(r, "BatchScript=\n%.*s", (int)(len && text[len - 1] == '\n' ? len - 1 : len),
			text);
	}
	record_add(r, "%s", "");
}

static const char *node_state_text(const json_t *node, char *buf, size_t len)
{
	const char *held = cmd_jstr(node, "resv");   /* an active reservation's (Slurm's flags) */
	snprintf(buf, len, "%s%s%s%s", cmd_jstr(node, "state"),
		 cmd_jbool(node, "not_responding") ? "*" : "",
		 cmd_jbool(node, "drain") ? "+DRAIN" : "",
		 !strcmp(held, "MAINT") ? "+MAINTENANCE+RESERVED" : *held ? "+RESERVED" : "");
	return buf;
}

void record_node(const json_t *node, long long slurmd_port, int details, struct record *r)
{
	char a[64], b[64], c[64];
	long long cpus = cmd_jint(node, "cpus"), alloc = cmd_jint(node, "alloc_cpus");
	long long mem = cmd_jint(node, "real_memory"), alloc_mem = cmd_jint(node, "alloc_mem");
	json_t *parts = json_object_get(node, "partitions");
	char *plist = xstrdup("");
	size_t i;
	json_t *p;
	json_array_foreach(parts, i, p) {
		char *n = xasprintf("%s%s%s", plist, i ? "," : "", json_string_value(p));
		free(plist);
		plist = n;
	}
	const char *arch = cmd_jstr(node, "arch"), *os = cmd_jstr(node, "os");

	record_add(r, "NodeName=%s Arch=%s CoresPerSocket=%lld ", cmd_jstr(node, "name"),
		*arch ? arch : "(null)", cmd_jint(node, "cores"));
	record_add(r, "CPUAlloc=%lld CPUEfctv=%lld CPUTot=%lld CPULoad=N/A", alloc, cpus, cpus);
	record_add(r, "AvailableFeatures=%s", or_null(cmd_jstr(node, "features")));
	record_add(r, "ActiveFeatures=%s", or_null(cmd_jstr(node, "features")));
	record_add(r, "Gres=%s", or_null(cmd_jstr(node, "gres")));
	if (details) {   /* Slurm 22.05's scontrol -d; nothing drains GRES apart */
		record_add(r, "GresDrain=N/A");
		record_add(r, "GresUsed=%s", or_null(cmd_jstr(node, "gres_used")));
	}
	/* Slurm names the port only when it is not the cluster's SlurmdPort */
	if (cmd_jint(node, "port") != slurmd_port)
		snprintf(b, sizeof(b), " Port=%lld", cmd_jint(node, "port"));
	else
		*b = '\0';
	record_add(r, "NodeAddr=%s NodeHostName=%s%s Version=%s", cmd_jstr(node, "addr"),
		cmd_jstr(node, "hostname"), b,
		*cmd_jstr(node, "version") ? cmd_jstr(node, "version") : "(null)");
	record_add(r, "OS=%s ", *os ? os : "(null)");
	record_add(r, "RealMemory=%lld AllocMem=%lld FreeMem=N/A Sockets=%lld Boards=%lld", mem,
		alloc_mem, cmd_jint(node, "sockets"), cmd_jint(node, "boards"));
	record_add(r, "State=%s ThreadsPerCore=%lld TmpDisk=%lld Weight=%lld Owner=N/A MCS_label=N/A",
		node_state_text(node, a, sizeof(a)), cmd_jint(node, "threads"),
		cmd_jint(node, "tmp_disk"), cmd_jint(node, "weight"));
	record_add(r, "Partitions=%s ", plist);
	record_add(r, "BootTime=%s SlurmdStartTime=%s",
		cmd_jint(node, "boot_time") ? stamp(cmd_jint(node, "boot_time"), a, sizeof(a)) : "None",
		cmd_jint(node, "slurmd_start_time") ?
			stamp(cmd_jint(node, "slurmd_start_time"), b, sizeof(b)) : "None");
	record_add(r, "LastBusyTime=Unknown");
	/* the GRES as jobs' TRES= has them: what AccountingStorageTRES tracks */
	const char *cfg_gres = cmd_jstr(node, "gres_tres"), *used_gres = cmd_jstr(node, "gres_tres_used");
	record_add(r, "CfgTRES=cpu=%lld,mem=%s,billing=%lld%s%s", cpus, fmt_size_mb(mem, c, sizeof(c)),
		cpus, *cfg_gres ? "," : "", cfg_gres);
	if (alloc && alloc_mem)
		record_add(r, "AllocTRES=cpu=%lld,mem=%s%s%s", alloc, fmt_size_mb(alloc_mem, c, sizeof(c)),
			*used_gres ? "," : "", used_gres);
	else if (alloc)
		record_add(r, "AllocTRES=cpu=%lld%s%s", alloc, *used_gres ? "," : "", used_gres);
	else
		record_add(r, "AllocTRES=%s", used_gres);
	record_add(r, "CapWatts=n/a");
	record_add(r, "CurrentWatts=0 AveWatts=0");
	record_add(r, "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
	if (*cmd_jstr(node, "reason") && *cmd_jstr(node, "reason_user"))
		record_add(r, "Reason=%s [%s@%s]", cmd_jstr(node, "reason"), cmd_jstr(node, "reason_user"),
			stamp(cmd_jint(node, "reason_time"), a, sizeof(a)));
	else if (*cmd_jstr(node, "reason"))
		record_add(r, "Reason=%s", cmd_jstr(node, "reason"));
	free(plist);
}

/* A partition; mem is its nodes' memory (TRES), cluster_preempt_mode the
 * configuration's PreemptMode (shown where the partition sets none). */
void record_partition(const json_t *part, long long mem, const char *cluster_preempt_mode,
		      struct record *r)
{
	char a[64], b[64], c[64];
	long long max_nodes = cmd_jint(part, "max_nodes");
	long long cpus = cmd_jint(part, "total_cpus"), nodes = cmd_jint(part, "total_nodes");

	record_add(r, "PartitionName=%s", cmd_jstr(part, "name"));
	record_add(r, "AllowGroups=%s AllowAccounts=ALL AllowQos=ALL",
		all_or(cmd_jstr(part, "allow_groups")));
	record_add(r, "AllocNodes=%s Default=%s QoS=N/A",
		all_or(cmd_jstr(part, "alloc_nodes")), cmd_jbool(part, "default") ? "YES" : "NO");
	record_add(r, "DefaultTime=%s DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO",
		duration(cmd_jint(part, "default_time"), "NONE", a, sizeof(a)));
	if (max_nodes < 0)
		snprintf(b, sizeof(b), "UNLIMITED");
	else
		snprintf(b, sizeof(b), "%lld", max_nodes);
	long long max_cpus = cmd_jint(part, "max_cpus_per_node");
	if (max_cpus < 0)
		snprintf(c, sizeof(c), "UNLIMITED");
	else
		snprintf(c, sizeof(c), "%lld", max_cpus);
	record_add(r, "MaxNodes=%s MaxTime=%s MinNodes=%lld LLN=NO MaxCPUsPerNode=%s", b,
		duration(cmd_jint(part, "max_time"), "UNLIMITED", a, sizeof(a)),
		cmd_jint(part, "min_nodes"), c);
	record_add(r, "Nodes=%s", or_null(cmd_jstr(part, "nodes")));
	record_add(r, "PriorityJobFactor=%lld PriorityTier=%lld RootOnly=%s ReqResv=NO "
		"OverSubscribe=%s", cmd_jint(part, "priority_job_factor"),
		cmd_jint(part, "priority_tier"), cmd_jbool(part, "root_only") ? "YES" : "NO",
		cmd_jstr(part, "oversubscribe"));
	/* not set on the partition: the cluster's PreemptMode (default OFF) */
	const char *pm = *cmd_jstr(part, "preempt_mode") ? cmd_jstr(part, "preempt_mode")
			 : cluster_preempt_mode;
	record_add(r, "OverTimeLimit=NONE PreemptMode=%s",
		upper(pm ? pm : "OFF", a, sizeof(a)));
	record_add(r, "State=%s TotalCPUs=%lld TotalNodes=%lld SelectTypeParameters=NONE",
		cmd_jstr(part, "state"), cpus, nodes);
	record_add(r, "JobDefaults=(null)");
	record_add(r, "DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
	record_add(r, "TRES=cpu=%lld,mem=%s,node=%lld,billing=%lld", cpus,
		fmt_size_mb(mem, c, sizeof(c)), nodes, cpus);
}

/* Slurm 22.05's step record.  The batch step holds no CPUs of its own
 * (CPUs=0, TRES=(null)) and has neither distribution nor srun.  Herd
 * reserves no ports and has no network options or CPU frequencies. */
void record_step(const json_t *step, struct record *r)
{
	char a[64], b[64], c[64];
	bool batch = cmd_jint(step, "step_id") == CMD_STEP_BATCH;
	long long limit = cmd_jint(step, "time_limit");
	long long nodes = cmd_jint(step, "num_nodes"), cpus = batch ? 0 : cmd_jint(step, "num_cpus");
	long long mem = cmd_jint(step, "mem_mb") * nodes;

	record_add(r, "StepId=%s UserId=%lld StartTime=%s TimeLimit=%s", cmd_step_id(step, a, sizeof(a)),
		cmd_jint(step, "uid"), stamp(cmd_jint(step, "start_time"), b, sizeof(b)),
		limit <= 0 ? "UNLIMITED" : duration(limit, "UNLIMITED", c, sizeof(c)));
	record_add(r, "State=%s Partition=%s NodeList=%s", cmd_jstr(step, "state"),
		cmd_jstr(step, "partition"), or_null(cmd_jstr(step, "nodes")));
	record_add(r, "Nodes=%lld CPUs=%lld Tasks=%lld Name=%s Network=(null)", nodes, cpus,
		cmd_jint(step, "num_tasks"), cmd_jstr(step, "name"));
	if (batch)
		record_add(r, "TRES=(null)");
	else
		record_add(r, "TRES=cpu=%lld,mem=%s,node=%lld", cpus,
			mem > 0 ? fmt_size_mb(mem, a, sizeof(a)) : "0", nodes);
	record_add(r, "ResvPorts=(null)");
	if (batch)
		record_add(r, "CPUFreqReq=Default");
	else
		record_add(r, "CPUFreqReq=Default Dist=%s", cmd_step_dist(step));
	/* srun's host and pid, when the controller has them */
	const char *host = cmd_jstr(step, "srun_host");
	record_add(r, "SrunHost:Pid=%s:%lld", *host && !batch ? host : "(null)",
		batch ? 0 : cmd_jint(step, "srun_pid"));
}
