/* The vocabulary of herd.conf: which keys exist (slurm.conf(5)'s, older
 * releases' and Herd's own), which attributes NodeName=/PartitionName= lines
 * take, and what each value must look like.  Data and checks only; the
 * reading of files is conf.c's. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/conf_keys.h"
#include "common/license.h"
#include "common/parse.h"

/* The plain keys of slurm.conf(5) that Herd accepts, older releases' names
 * included (ControlMachine, FastSchedule...), plus Herd's own
 * (MaxMessageSize, HeartbeatInterval).  Many are accepted for
 * compatibility and read by no one yet: a Slurm site's file must load. */
static const struct conf_key_def conf_keys_plain[] = {
	{ "AccountingStorageBackupHost", CONF_V_STR },
	{ "AccountingStorageEnforce", CONF_V_STR },
	{ "AccountingStorageExternalHost", CONF_V_STR },
	{ "AccountingStorageHost", CONF_V_STR },
	{ "AccountingStorageLoc", CONF_V_STR },
	{ "AccountingStorageParameters", CONF_V_STR },
	{ "AccountingStoragePass", CONF_V_STR },
	{ "AccountingStoragePort", CONF_V_PORT },
	{ "AccountingStorageTRES", CONF_V_STR },
	{ "AccountingStorageType", CONF_V_STR },
	{ "AccountingStorageUser", CONF_V_STR },
	{ "AccountingStoreFlags", CONF_V_STR },
	{ "AccountingStoreJobComment", CONF_V_BOOL },
	{ "AcctGatherEnergyType", CONF_V_STR },
	{ "AcctGatherFilesystemType", CONF_V_STR },
	{ "AcctGatherInterconnectType", CONF_V_STR },
	{ "AcctGatherNodeFreq", CONF_V_UINT },
	{ "AcctGatherProfileType", CONF_V_STR },
	{ "AllowSpecResourcesUsage", CONF_V_BOOL },
	{ "AuthAltParameters", CONF_V_STR },
	{ "AuthAltTypes", CONF_V_STR },
	{ "AuthInfo", CONF_V_STR },
	{ "AuthType", CONF_V_STR },
	{ "BackupAddr", CONF_V_STR },
	{ "BackupController", CONF_V_STR },
	{ "BatchStartTimeout", CONF_V_UINT },
	{ "BcastExclude", CONF_V_STR },
	{ "BcastParameters", CONF_V_STR },
	{ "BurstBufferType", CONF_V_STR },
	{ "CacheGroups", CONF_V_UINT },
	{ "CheckpointType", CONF_V_STR },
	{ "CliFilterPlugins", CONF_V_STR },
	{ "ClusterName", CONF_V_STR },
	{ "CommunicationParameters", CONF_V_STR },
	{ "CompleteWait", CONF_V_UINT },
	{ "ControlAddr", CONF_V_STR },
	{ "ControlMachine", CONF_V_STR },
	{ "CoreSpecPlugin", CONF_V_STR },
	{ "CpuFreqDef", CONF_V_STR },
	{ "CpuFreqGovernors", CONF_V_STR },
	{ "CredType", CONF_V_STR },
	{ "DebugFlags", CONF_V_STR },
	{ "DefaultStorageHost", CONF_V_STR },
	{ "DefaultStorageLoc", CONF_V_STR },
	{ "DefaultStoragePass", CONF_V_STR },
	{ "DefaultStoragePort", CONF_V_PORT },
	{ "DefaultStorageType", CONF_V_STR },
	{ "DefaultStorageUser", CONF_V_STR },
	{ "DefCpuPerGPU", CONF_V_UINT },
	{ "DefMemPerCPU", CONF_V_UINT },
	{ "DefMemPerGPU", CONF_V_UINT },
	{ "DefMemPerNode", CONF_V_UINT },
	{ "DependencyParameters", CONF_V_STR },
	{ "DisableRootJobs", CONF_V_BOOL },
	{ "EioTimeout", CONF_V_UINT },
	{ "EnforcePartLimits", CONF_V_STR },
	{ "Epilog", CONF_V_STR },
	{ "EpilogMsgTime", CONF_V_UINT },
	{ "EpilogSlurmctld", CONF_V_STR },
	{ "ExtSensorsFreq", CONF_V_UINT },
	{ "ExtSensorsType", CONF_V_STR },
	{ "FairShareDampeningFactor", CONF_V_UINT },
	{ "FastSchedule", CONF_V_UINT },
	{ "FederationParameters", CONF_V_STR },
	{ "FirstJobId", CONF_V_UINT },
	{ "GetEnvTimeout", CONF_V_UINT },
	{ "GpuFreqDef", CONF_V_STR },
	{ "GresTypes", CONF_V_STR },
	{ "GroupUpdateForce", CONF_V_UINT },
	{ "GroupUpdateTime", CONF_V_UINT },
	{ "HashPlugin", CONF_V_STR },
	{ "HealthCheckInterval", CONF_V_UINT },
	{ "HealthCheckNodeState", CONF_V_STR },
	{ "HealthCheckProgram", CONF_V_STR },
	{ "HeartbeatInterval", CONF_V_UINT },
	{ "IdleConnectionTimeout", CONF_V_UINT },   /* Herd: seconds an idle connection stays */
	{ "InactiveLimit", CONF_V_UINT },
	{ "InteractiveStepOptions", CONF_V_STR },
	{ "JobAcctGatherFrequency", CONF_V_STR },
	{ "JobAcctGatherParams", CONF_V_STR },
	{ "JobAcctGatherType", CONF_V_STR },
	{ "JobCheckpointDir", CONF_V_STR },
	{ "JobCompHost", CONF_V_STR },
	{ "JobCompLoc", CONF_V_STR },
	{ "JobCompParams", CONF_V_STR },
	{ "JobCompPass", CONF_V_STR },
	{ "JobCompPort", CONF_V_PORT },
	{ "JobCompType", CONF_V_STR },
	{ "JobCompUser", CONF_V_STR },
	{ "JobContainerType", CONF_V_STR },
	{ "JobCredentialPrivateKey", CONF_V_STR },
	{ "JobCredentialPublicCertificate", CONF_V_STR },
	{ "JobFileAppend", CONF_V_UINT },
	{ "JobRequeue", CONF_V_UINT },
	{ "JobSubmitPlugins", CONF_V_STR },
	{ "KeepAliveTime", CONF_V_UINT },
	{ "KillOnBadExit", CONF_V_UINT },
	{ "KillWait", CONF_V_UINT },
	{ "LaunchParameters", CONF_V_STR },
	{ "LaunchType", CONF_V_STR },
	{ "Licenses", CONF_V_LICENSES },
	{ "LogTimeFormat", CONF_V_STR },
	{ "MailDomain", CONF_V_STR },
	{ "MailProg", CONF_V_STR },
	{ "MaxArraySize", CONF_V_UINT },
	{ "MaxBatchRequeue", CONF_V_UINT },
	{ "MaxConnections", CONF_V_UINT },          /* Herd: connections a daemon holds */
	{ "MaxConnectionsPerPeer", CONF_V_UINT },   /* Herd: of them from one address */
	{ "MaxDBDMsgs", CONF_V_UINT },
	{ "MaxJobCount", CONF_V_UINT },
	{ "MaxJobId", CONF_V_UINT },
	{ "MaxMemPerCPU", CONF_V_UINT },
	{ "MaxMemPerNode", CONF_V_UINT },
	{ "MaxMessageSize", CONF_V_UINT },          /* Herd: largest frame accepted, bytes */
	{ "MaxNodeCount", CONF_V_UINT },
	{ "MaxStepCount", CONF_V_UINT },
	{ "MaxTasksPerNode", CONF_V_UINT },
	{ "MaxUnverifiedBytes", CONF_V_UINT },      /* Herd: bytes before credentials check */
	{ "MCSParameters", CONF_V_STR },
	{ "MCSPlugin", CONF_V_STR },
	{ "MemLimitEnforce", CONF_V_STR },
	{ "MessageTimeout", CONF_V_UINT },
	{ "MinJobAge", CONF_V_UINT },
	{ "MpiDefault", CONF_V_STR },
	{ "MpiParams", CONF_V_STR },
	{ "NodeFeaturesPlugins", CONF_V_STR },
	{ "OverTimeLimit", CONF_V_UINT_UNLIM },
	{ "PluginDir", CONF_V_STR },
	{ "PlugStackConfig", CONF_V_STR },
	{ "PowerParameters", CONF_V_STR },
	{ "PowerPlugin", CONF_V_STR },
	{ "PreemptExemptTime", CONF_V_TIME },
	{ "PreemptMode", CONF_V_STR },
	{ "PreemptParameters", CONF_V_STR },
	{ "PreemptType", CONF_V_STR },
	{ "PrEpParameters", CONF_V_STR },
	{ "PrEpPlugins", CONF_V_STR },
	{ "PriorityCalcPeriod", CONF_V_TIME },
	{ "PriorityDecayHalfLife", CONF_V_TIME },
	{ "PriorityFavorSmall", CONF_V_BOOL },
	{ "PriorityFlags", CONF_V_STR },
	{ "PriorityMaxAge", CONF_V_TIME },
	{ "PriorityParameters", CONF_V_STR },
	{ "PrioritySiteFactorParameters", CONF_V_STR },
	{ "PrioritySiteFactorPlugin", CONF_V_STR },
	{ "PriorityType", CONF_V_STR },
	{ "PriorityUsageResetPeriod", CONF_V_STR },
	{ "PriorityWeightAge", CONF_V_UINT },
	{ "PriorityWeightAssoc", CONF_V_UINT },
	{ "PriorityWeightFairshare", CONF_V_UINT },
	{ "PriorityWeightJobSize", CONF_V_UINT },
	{ "PriorityWeightPartition", CONF_V_UINT },
	{ "PriorityWeightQOS", CONF_V_UINT },
	{ "PriorityWeightTRES", CONF_V_STR },
	{ "PrivateData", CONF_V_STR },
	{ "ProctrackType", CONF_V_STR },
	{ "Prolog", CONF_V_STR },
	{ "PrologEpilogTimeout", CONF_V_UINT },
	{ "PrologFlags", CONF_V_STR },
	{ "PrologSlurmctld", CONF_V_STR },
	{ "PropagatePrioProcess", CONF_V_UINT },
	{ "PropagateResourceLimits", CONF_V_STR },
	{ "PropagateResourceLimitsExcept", CONF_V_STR },
	{ "RebootProgram", CONF_V_STR },
	{ "ReconfigFlags", CONF_V_STR },
	{ "RequeueExit", CONF_V_STR },
	{ "RequeueExitHold", CONF_V_STR },
	{ "ResumeFailProgram", CONF_V_STR },
	{ "ResumeProgram", CONF_V_STR },
	{ "ResumeRate", CONF_V_UINT },
	{ "ResumeTimeout", CONF_V_UINT },
	{ "ResvEpilog", CONF_V_STR },
	{ "ResvOverRun", CONF_V_UINT_UNLIM },
	{ "ResvProlog", CONF_V_STR },
	{ "ReturnToService", CONF_V_UINT },
	{ "RoutePlugin", CONF_V_STR },
	{ "SallocDefaultCommand", CONF_V_STR },
	{ "SchedulerParameters", CONF_V_STR },
	{ "SchedulerPort", CONF_V_PORT },
	{ "SchedulerRootFilter", CONF_V_UINT },
	{ "SchedulerTimeSlice", CONF_V_UINT },
	{ "SchedulerType", CONF_V_STR },
	{ "ScronParameters", CONF_V_STR },
	{ "SelectType", CONF_V_STR },
	{ "SelectTypeParameters", CONF_V_STR },
	{ "SlurmctldAddr", CONF_V_STR },
	{ "SlurmctldDebug", CONF_V_STR },
	{ "SlurmctldHost", CONF_V_CTLD_HOST },
	{ "SlurmctldLogFile", CONF_V_STR },
	{ "SlurmctldParameters", CONF_V_STR },
	{ "SlurmctldPidFile", CONF_V_STR },
	{ "SlurmctldPlugstack", CONF_V_STR },
	{ "SlurmctldPort", CONF_V_PORTS },
	{ "SlurmctldPrimaryOffProg", CONF_V_STR },
	{ "SlurmctldPrimaryOnProg", CONF_V_STR },
	{ "SlurmctldSyslogDebug", CONF_V_STR },
	{ "SlurmctldTimeout", CONF_V_UINT },
	{ "SlurmdDebug", CONF_V_STR },
	{ "SlurmdLogFile", CONF_V_STR },
	{ "SlurmdParameters", CONF_V_STR },
	{ "SlurmdPidFile", CONF_V_STR },
	{ "SlurmdPort", CONF_V_PORT },
	{ "SlurmdSpoolDir", CONF_V_STR },
	{ "SlurmdSyslogDebug", CONF_V_STR },
	{ "SlurmdTimeout", CONF_V_UINT },
	{ "SlurmdUser", CONF_V_STR },
	{ "SlurmSchedLogFile", CONF_V_STR },
	{ "SlurmSchedLogLevel", CONF_V_UINT },
	{ "SlurmUser", CONF_V_STR },
	{ "SrunEpilog", CONF_V_STR },
	{ "SrunPortRange", CONF_V_PORTS },
	{ "SrunProlog", CONF_V_STR },
	{ "StateSaveLocation", CONF_V_STR },
	{ "SuspendExcNodes", CONF_V_STR },
	{ "SuspendExcParts", CONF_V_STR },
	{ "SuspendExcStates", CONF_V_STR },
	{ "SuspendProgram", CONF_V_STR },
	{ "SuspendRate", CONF_V_UINT },
	{ "SuspendTime", CONF_V_UINT_UNLIM },
	{ "SuspendTimeout", CONF_V_UINT },
	{ "SwitchParameters", CONF_V_STR },
	{ "SwitchType", CONF_V_STR },
	{ "TaskEpilog", CONF_V_STR },
	{ "TaskPlugin", CONF_V_STR },
	{ "TaskPluginParam", CONF_V_STR },
	{ "TaskProlog", CONF_V_STR },
	{ "TCPTimeout", CONF_V_UINT },
	{ "TmpFS", CONF_V_STR },
	{ "TopologyParam", CONF_V_STR },
	{ "TopologyPlugin", CONF_V_STR },
	{ "TrackWCKey", CONF_V_BOOL },
	{ "TreeWidth", CONF_V_UINT },
	{ "UnkillableStepProgram", CONF_V_STR },
	{ "UnkillableStepTimeout", CONF_V_UINT },
	{ "UsePAM", CONF_V_BOOL },
	{ "VSizeFactor", CONF_V_UINT },
	{ "WaitTime", CONF_V_UINT },
	{ "X11Parameters", CONF_V_STR },
};

const struct conf_key_def *conf_keys_find(const char *name)
{
	for (size_t i = 0; i < sizeof(conf_keys_plain) / sizeof(conf_keys_plain[0]); i++)
		if (strcasecmp(conf_keys_plain[i].name, name) == 0)
			return &conf_keys_plain[i];
	return NULL;
}

bool conf_keys_unlimited(const char *v)
{
	return strcasecmp(v, "UNLIMITED") == 0 || strcasecmp(v, "INFINITE") == 0 ||
	       strcasecmp(v, "NONE") == 0 || strcmp(v, "-1") == 0;
}

/* "6817" or "6817-6820": the ports, low first. */
int conf_keys_port_range(const char *v, long *lo, long *hi)
{
	char buf[16];
	const char *dash = strchr(v, '-');
	size_t n = dash ? (size_t)(dash - v) : strlen(v);
	uint64_t a, b;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (parse_uint(buf, 65535, &a) < 0 || a == 0)
		return -1;
	b = a;
	if (dash && (parse_uint(dash + 1, 65535, &b) < 0 || b < a))
		return -1;
	*lo = (long)a;
	*hi = (long)b;
	return 0;
}

bool conf_keys_value_ok(enum conf_value_kind kind, const char *v)
{
	uint64_t u;
	int64_t t;
	long lo, hi;
	bool b;

	switch (kind) {
	case CONF_V_STR:
		return true;
	case CONF_V_CTLD_HOST: {
		const char *open = strchr(v, '(');
		size_t n = open ? strlen(open) : 0;
		return *v && *v != '(' && (!open || (n >= 3 && open[n - 1] == ')' &&
		                                     !strchr(open + 1, '(')));
	}
	case CONF_V_UINT:
		return parse_uint(v, LONG_MAX, &u) == 0;
	case CONF_V_UINT_UNLIM:
		return conf_keys_unlimited(v) || parse_uint(v, LONG_MAX, &u) == 0;
	case CONF_V_PORT:
		return parse_uint(v, 65535, &u) == 0 && u > 0;
	case CONF_V_PORTS:
		return conf_keys_port_range(v, &lo, &hi) == 0;
	case CONF_V_TIME:
		return parse_time_limit(v, &t) == 0;
	case CONF_V_BOOL:
		return parse_bool(v, &b);
	case CONF_V_LICENSES: {
		struct lic_list l;
		if (lic_parse(v, false, &l) < 0)
			return false;
		lic_list_clear(&l);
		return true;
	}
	}
	return false;
}

/* ---- attributes of NodeName=, PartitionName= and DownNodes= lines ---- */

static const char *const conf_keys_node_states[] = {
	"UNKNOWN", "FUTURE", "DOWN", "DRAIN", "FAIL", "FAILING", "CLOUD", "IDLE", NULL
};
static const char *const conf_keys_part_states[] = { "UP", "DOWN", "DRAIN", "INACTIVE", NULL };
const char *const conf_keys_oversubscribe[] = { "NO", "YES", "EXCLUSIVE", "FORCE", NULL };

#define NODE_ATTR(n, t, f) { n, t, offsetof(struct conf_node, f), NULL }
const struct conf_attr_def conf_keys_node_attrs[] = {
	{ "NodeName", CONF_A_SPECIAL, 0, NULL },
	{ "NodeAddr", CONF_A_SPECIAL, 0, NULL },
	{ "NodeHostname", CONF_A_SPECIAL, 0, NULL },
	{ "Port", CONF_A_SPECIAL, 0, NULL },
	NODE_ATTR("CPUs", CONF_A_INT, cpus),
	NODE_ATTR("Procs", CONF_A_INT, cpus),                     /* Slurm's old name */
	NODE_ATTR("Boards", CONF_A_INT, boards),
	NODE_ATTR("SocketsPerBoard", CONF_A_INT, sockets_per_board),
	NODE_ATTR("Sockets", CONF_A_INT, sockets),
	NODE_ATTR("CoresPerSocket", CONF_A_INT, cores_per_socket),
	NODE_ATTR("ThreadsPerCore", CONF_A_INT, threads_per_core),
	NODE_ATTR("RealMemory", CONF_A_U64, real_memory),
	NODE_ATTR("TmpDisk", CONF_A_U64, tmp_disk),
	NODE_ATTR("Weight", CONF_A_INT, weight),
	NODE_ATTR("Features", CONF_A_STR, features),
	NODE_ATTR("Feature", CONF_A_STR, features),
	NODE_ATTR("Gres", CONF_A_STR, gres),
	{ "State", CONF_A_UPPER, offsetof(struct conf_node, state), conf_keys_node_states },
	NODE_ATTR("CoreSpecCount", CONF_A_INT, core_spec_count),
	NODE_ATTR("CpuSpecList", CONF_A_STR, cpu_spec_list),
	NODE_ATTR("MemSpecLimit", CONF_A_U64, mem_spec_limit),
	NODE_ATTR("Reason", CONF_A_STR, reason),
	{ NULL, 0, 0, NULL },
};

#define PART_ATTR(n, t, f) { n, t, offsetof(struct conf_part, f), NULL }
const struct conf_attr_def conf_keys_part_attrs[] = {
	{ "PartitionName", CONF_A_SPECIAL, 0, NULL },
	{ "Nodes", CONF_A_SPECIAL, 0, NULL },
	{ "Priority", CONF_A_SPECIAL, 0, NULL },                  /* old: tier and job factor */
	PART_ATTR("Default", CONF_A_BOOL, is_default),
	PART_ATTR("MaxTime", CONF_A_TIME, max_time),
	PART_ATTR("DefaultTime", CONF_A_TIME, default_time),
	{ "State", CONF_A_UPPER, offsetof(struct conf_part, state), conf_keys_part_states },
	PART_ATTR("MaxNodes", CONF_A_INT_UNLIM, max_nodes),
	PART_ATTR("MinNodes", CONF_A_INT, min_nodes),
	PART_ATTR("PriorityTier", CONF_A_INT, priority_tier),
	PART_ATTR("PriorityJobFactor", CONF_A_INT, priority_job_factor),
	PART_ATTR("ExclusiveUser", CONF_A_BOOL, exclusive_user),
	{ "OverSubscribe", CONF_A_UPPER, offsetof(struct conf_part, oversubscribe), conf_keys_oversubscribe },
	{ "Shared", CONF_A_UPPER, offsetof(struct conf_part, oversubscribe), conf_keys_oversubscribe },
	PART_ATTR("AllowAccounts", CONF_A_STR, allow_accounts),
	PART_ATTR("AllowGroups", CONF_A_STR, allow_groups),
	PART_ATTR("AllowQos", CONF_A_STR, allow_qos),
	PART_ATTR("DenyAccounts", CONF_A_STR, deny_accounts),
	PART_ATTR("DenyQos", CONF_A_STR, deny_qos),
	PART_ATTR("MaxCPUsPerNode", CONF_A_INT_UNLIM, max_cpus_per_node),
	PART_ATTR("DefMemPerCPU", CONF_A_U64, def_mem_per_cpu),
	PART_ATTR("MaxMemPerCPU", CONF_A_U64, max_mem_per_cpu),
	PART_ATTR("DefMemPerNode", CONF_A_U64, def_mem_per_node),
	PART_ATTR("MaxMemPerNode", CONF_A_U64, max_mem_per_node),
	PART_ATTR("Hidden", CONF_A_BOOL, hidden),
	PART_ATTR("RootOnly", CONF_A_BOOL, root_only),
	PART_ATTR("QOS", CONF_A_STR, qos),
	PART_ATTR("GraceTime", CONF_A_INT, grace_time),
	PART_ATTR("PreemptMode", CONF_A_STR, preempt_mode),
	PART_ATTR("TRESBillingWeights", CONF_A_STR, tres_billing_weights),
	PART_ATTR("AllocNodes", CONF_A_STR, alloc_nodes),
	PART_ATTR("LLN", CONF_A_BOOL, lln),
	PART_ATTR("Alternate", CONF_A_STR, alternate),
	{ NULL, 0, 0, NULL },
};

const struct conf_attr_def *conf_keys_attr_find(const struct conf_attr_def *table, const char *name)
{
	for (; table->name; table++)
		if (strcasecmp(table->name, name) == 0)
			return table;
	return NULL;
}

bool conf_keys_word_ok(const char *const *words, const char *v, bool count_suffix)
{
	size_t n = strcspn(v, ":");
	uint64_t u;

	/* Only YES and FORCE take a job count ("FORCE:4"). */
	if (v[n] == ':' && (!count_suffix || parse_uint(v + n + 1, INT_MAX, &u) < 0 || u == 0 ||
	                    !(strncasecmp(v, "YES:", 4) == 0 || strncasecmp(v, "FORCE:", 6) == 0)))
		return false;
	for (; *words; words++)
		if (strlen(*words) == n && strncasecmp(*words, v, n) == 0)
			return true;
	return false;
}

const char *const conf_keys_down_states[] = {
	"DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "UNKNOWN", NULL
};
