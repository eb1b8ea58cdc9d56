/* The herd.conf keys Herd accepts but no daemon acts on: a Slurm site's
 * slurm.conf must load (conf_keys.c), and what it sets that Herd ignores
 * must be said, never silently dropped.  Data and one function; herdctld
 * logs the answer at start and at every reconfigure.  A key leaves this list
 * the day a daemon reads it (tests/cluster/test_act_as.py checks the list
 * against the sources). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/conf_inert.h"
#include "common/conf_keys.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

/* name: a plain key; same: the values (comma-separated) that ask for what
 * Herd does anyway (AuthType=auth/munge, SwitchType=switch/none), NULL when
 * every value is ignored. */
struct inert_key {
	const char *name, *same;
};

static const struct inert_key inert_plain[] = {
	{ "AccountingStorageBackupHost", NULL },
	{ "AccountingStorageExternalHost", NULL },
	{ "AccountingStorageParameters", NULL },
	{ "AccountingStoreFlags", NULL },
	{ "AccountingStoreJobComment", NULL },
	{ "AcctGatherEnergyType", "acct_gather_energy/none" },
	{ "AcctGatherFilesystemType", "acct_gather_filesystem/none" },
	{ "AcctGatherInterconnectType", "acct_gather_interconnect/none" },
	{ "AcctGatherNodeFreq", NULL },
	{ "AcctGatherProfileType", "acct_gather_profile/none" },
	{ "AllowSpecResourcesUsage", NULL },
	{ "AuthType", "auth/munge" },
	{ "BackupAddr", NULL },
	{ "BackupController", NULL },
	{ "BatchStartTimeout", NULL },
	{ "BurstBufferType", "burst_buffer/none" },
	{ "CacheGroups", NULL },
	{ "CheckpointType", "checkpoint/none" },
	{ "CliFilterPlugins", NULL },
	{ "CommunicationParameters", NULL },
	{ "CompleteWait", NULL },
	{ "CoreSpecPlugin", "core_spec/none" },
	{ "CpuFreqDef", NULL },
	{ "CpuFreqGovernors", NULL },
	{ "CredType", "cred/munge" },
	{ "DebugFlags", NULL },
	{ "DefaultStorageHost", NULL },
	{ "DefaultStorageLoc", NULL },
	{ "DefaultStoragePass", NULL },
	{ "DefaultStoragePort", NULL },
	{ "DefaultStorageType", NULL },
	{ "DefaultStorageUser", NULL },
	{ "DefCpuPerGPU", NULL },
	{ "DefMemPerCPU", NULL },
	{ "DefMemPerGPU", NULL },
	{ "DefMemPerNode", NULL },
	{ "DependencyParameters", NULL },
	{ "DisableRootJobs", NULL },
	{ "EioTimeout", NULL },
	{ "Epilog", NULL },
	{ "EpilogMsgTime", NULL },
	{ "EpilogSlurmctld", NULL },
	{ "ExtSensorsFreq", NULL },
	{ "ExtSensorsType", "ext_sensors/none" },
	{ "FairShareDampeningFactor", NULL },
	{ "FastSchedule", NULL },
	{ "FederationParameters", NULL },
	{ "GetEnvTimeout", NULL },
	{ "GpuFreqDef", NULL },
	{ "GroupUpdateForce", NULL },
	{ "GroupUpdateTime", NULL },
	{ "HashPlugin", NULL },
	{ "HealthCheckInterval", NULL },
	{ "HealthCheckNodeState", NULL },
	{ "HealthCheckProgram", NULL },
	{ "HeartbeatInterval", NULL },
	{ "InactiveLimit", NULL },
	{ "InteractiveStepOptions", NULL },
	{ "JobAcctGatherParams", NULL },
	{ "JobAcctGatherType", NULL },
	{ "JobCheckpointDir", NULL },
	{ "JobCompHost", NULL },
	{ "JobCompLoc", NULL },
	{ "JobCompParams", NULL },
	{ "JobCompPass", NULL },
	{ "JobCompPort", NULL },
	{ "JobCompType", "jobcomp/none" },
	{ "JobCompUser", NULL },
	{ "JobContainerType", "job_container/none" },
	{ "JobCredentialPrivateKey", NULL },
	{ "JobCredentialPublicCertificate", NULL },
	{ "JobFileAppend", NULL },
	{ "JobSubmitPlugins", NULL },
	{ "KeepAliveTime", NULL },
	{ "KillOnBadExit", NULL },
	{ "LaunchParameters", NULL },
	{ "LaunchType", "launch/slurm" },
	{ "LogTimeFormat", NULL },
	{ "MailDomain", NULL },
	{ "MaxBatchRequeue", NULL },
	{ "MaxDBDMsgs", NULL },
	{ "MaxJobCount", NULL },
	{ "MaxJobId", NULL },
	{ "MaxMemPerCPU", NULL },
	{ "MaxMemPerNode", NULL },
	{ "MaxNodeCount", NULL },
	{ "MaxStepCount", NULL },
	{ "MaxTasksPerNode", NULL },
	{ "MCSParameters", NULL },
	{ "MCSPlugin", "mcs/none" },
	{ "MemLimitEnforce", NULL },
	{ "NodeFeaturesPlugins", NULL },
	{ "OverTimeLimit", NULL },
	{ "PluginDir", NULL },
	{ "PlugStackConfig", NULL },
	{ "PowerParameters", NULL },
	{ "PowerPlugin", NULL },
	{ "PreemptParameters", NULL },
	{ "PrEpParameters", NULL },
	{ "PrEpPlugins", NULL },
	{ "PriorityParameters", NULL },
	{ "PrioritySiteFactorParameters", NULL },
	{ "PrioritySiteFactorPlugin", "site_factor/none" },
	{ "ProctrackType", "proctrack/cgroup" },
	{ "Prolog", NULL },
	{ "PrologEpilogTimeout", NULL },
	{ "PrologSlurmctld", NULL },
	{ "PropagatePrioProcess", NULL },
	{ "RebootProgram", NULL },
	{ "ReconfigFlags", NULL },
	{ "RequeueExit", NULL },
	{ "RequeueExitHold", NULL },
	{ "ResumeFailProgram", NULL },
	{ "ResumeProgram", NULL },
	{ "ResumeRate", NULL },
	{ "ResumeTimeout", NULL },
	{ "ResvEpilog", NULL },
	{ "ResvProlog", NULL },
	{ "RoutePlugin", "route/default" },
	{ "SallocDefaultCommand", NULL },
	{ "SchedulerPort", NULL },
	{ "SchedulerRootFilter", NULL },
	{ "ScronParameters", NULL },
	{ "SelectType", "select/cons_tres,select/cons_res" },
	{ "SelectTypeParameters", NULL },
	{ "SlurmctldParameters", NULL },
	{ "SlurmctldPlugstack", NULL },
	{ "SlurmctldPrimaryOffProg", NULL },
	{ "SlurmctldPrimaryOnProg", NULL },
	{ "SlurmctldSyslogDebug", NULL },
	{ "SlurmctldTimeout", NULL },
	{ "SlurmdParameters", NULL },
	{ "SlurmdSyslogDebug", NULL },
	{ "SlurmdUser", "root" },
	{ "SlurmSchedLogFile", NULL },
	{ "SlurmSchedLogLevel", NULL },
	{ "SrunEpilog", NULL },
	{ "SrunPortRange", NULL },
	{ "SrunProlog", NULL },
	{ "SuspendExcNodes", NULL },
	{ "SuspendExcParts", NULL },
	{ "SuspendExcStates", NULL },
	{ "SuspendProgram", NULL },
	{ "SuspendRate", NULL },
	{ "SuspendTime", NULL },
	{ "SuspendTimeout", NULL },
	{ "SwitchParameters", NULL },
	{ "SwitchType", "switch/none" },
	{ "TaskEpilog", NULL },
	{ "TaskPlugin", NULL },
	{ "TaskPluginParam", NULL },
	{ "TaskProlog", NULL },
	{ "TCPTimeout", NULL },
	{ "TmpFS", NULL },
	{ "TopologyParam", NULL },
	{ "TopologyPlugin", "topology/none,topology/default,topology/flat" },
	{ "TreeWidth", NULL },
	{ "UnkillableStepProgram", NULL },
	{ "UnkillableStepTimeout", NULL },
	{ "UsePAM", NULL },
	{ "VSizeFactor", NULL },
	{ "WaitTime", NULL },
	{ "X11Parameters", NULL },
};

/* Attributes of NodeName= and PartitionName= lines (DownNodes= writes the
 * nodes' State and Reason) that nothing reads; set: a value other than the
 * default (dflt), and for a string not one of same. */
struct inert_attr {
	const char *name;
	long dflt;
	const char *same;
};

static const struct inert_attr inert_node[] = {
	{ "SocketsPerBoard", 0, NULL }, { "CoreSpecCount", 0, NULL }, { "CpuSpecList", 0, NULL },
	{ "MemSpecLimit", 0, NULL }, { "Weight", 1, NULL },   /* TmpDisk: --tmp */
	/* only FUTURE is read: a node starts UNKNOWN until it registers */
	{ "State", 0, "UNKNOWN,FUTURE,IDLE" }, { "Reason", 0, NULL },
	{ NULL, 0, NULL },
};

static const struct inert_attr inert_part[] = {
	{ "DefMemPerCPU", 0, NULL }, { "MaxMemPerCPU", 0, NULL }, { "DefMemPerNode", 0, NULL },
	{ "MaxMemPerNode", 0, NULL }, { "MaxCPUsPerNode", -1, NULL }, { "LLN", 0, NULL },
	{ "Alternate", 0, NULL }, { "QOS", 0, NULL },
	{ NULL, 0, NULL },
};

/* Does every comma-separated word of value ask for what Herd does? */
static bool same_as_herd(const char *same, const char *value)
{
	if (!same)
		return false;
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ",");
		bool found = false;
		for (const char *q = same; *q && !found;) {
			size_t m = strcspn(q, ",");
			found = m == n && !strncasecmp(p, q, n);
			q += m + (q[m] == ',');
		}
		if (!found)
			return false;
		p += n + (p[n] == ',');
	}
	return true;
}

/* Is the attribute set (not its default, not what Herd does) in the struct
 * at base? */
static bool attr_set(const struct conf_attr_def *def, const void *base,
		     const struct inert_attr *a)
{
	const char *field = (const char *)base + def->offset;
	const char *str;

	switch (def->type) {
	case CONF_A_STR:
	case CONF_A_UPPER:
		str = *(char *const *)field;
		return str && !same_as_herd(a->same, str);
	case CONF_A_INT:
	case CONF_A_INT_UNLIM:
		return *(const int *)field != a->dflt;
	case CONF_A_U64:
		return *(const uint64_t *)field != (uint64_t)a->dflt;
	case CONF_A_TIME:
		return *(const int64_t *)field != a->dflt;
	case CONF_A_BOOL:
		return *(const bool *)field != (a->dflt != 0);
	case CONF_A_SPECIAL:
		return false;
	}
	return false;
}

static void add(struct strbuf *sb, const char *name, const char *line)
{
	if (sb->len)
		strbuf_adds(sb, ", ");
	strbuf_adds(sb, name);
	if (line) {
		strbuf_adds(sb, " (");
		strbuf_adds(sb, line);
		strbuf_adds(sb, ")");
	}
}

static void attrs(struct strbuf *sb, const struct inert_attr *list,
		  const struct conf_attr_def *table, const void *items, size_t size, size_t n,
		  const char *line)
{
	for (; list->name; list++) {
		const struct conf_attr_def *def = conf_keys_attr_find(table, list->name);
		for (size_t i = 0; def && i < n; i++)
			if (attr_set(def, (const char *)items + i * size, list)) {
				add(sb, def->name, line);
				break;
			}
	}
}

char *conf_inert_keys(const struct conf *conf)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < sizeof(inert_plain) / sizeof(inert_plain[0]); i++) {
		const char *v = conf_get(conf, inert_plain[i].name);
		if (v && !same_as_herd(inert_plain[i].same, v))
			add(&sb, inert_plain[i].name, NULL);
	}
	attrs(&sb, inert_node, conf_keys_node_attrs, conf->nodes, sizeof(*conf->nodes),
	      conf->nnodes, "NodeName");
	attrs(&sb, inert_part, conf_keys_part_attrs, conf->parts, sizeof(*conf->parts),
	      conf->nparts, "PartitionName");
	return sb.s;   /* NULL: none */
}

bool conf_inert_key(const char *name)
{
	for (size_t i = 0; i < sizeof(inert_plain) / sizeof(inert_plain[0]); i++)
		if (!strcasecmp(inert_plain[i].name, name))
			return true;
	return false;
}
