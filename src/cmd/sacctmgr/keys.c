/* sacctmgr's words: the keys users write (Slurm's abbreviations, the old
 * one-TRES keys), entity names, and the lower case Slurm keeps names in.
 * Pure: no I/O. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/opt.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

static const struct key_def key_defs[] = {
	{ "Accounts", 3, "account", NULL },
	{ "Acct", 4, "account", NULL },
	{ "AdminLevel", 2, "adminlevel", NULL },
	{ "Clusters", 2, "cluster", NULL },
	{ "Coordinators", 4, "coordinators", NULL },
	{ "DefaultAccount", 8, "defaultaccount", NULL },
	{ "DefaultQOS", 8, "defaultqos", NULL },
	{ "DefQOS", 6, "defaultqos", NULL },
	{ "DefaultWCKey", 8, "defaultwckey", NULL },
	{ "Description", 3, "description", NULL },
	{ "FairShare", 2, "fairshare", NULL },
	{ "Shares", 5, "fairshare", NULL },
	{ "Flags", 2, "flags", NULL },
	{ "GrpCPUMins", 7, "grptresmins", "cpu" },
	{ "GrpCPUs", 7, "grptres", "cpu" },
	{ "GrpJobs", 4, "grpjobs", NULL },
	{ "GrpMemory", 4, "grptres", "mem" },
	{ "GrpNodes", 4, "grptres", "node" },
	{ "GrpSubmitJobs", 4, "grpsubmitjobs", NULL },
	{ "GrpTRESMins", 11, "grptresmins", NULL },
	{ "GrpTRES", 7, "grptres", NULL },
	{ "GrpWall", 4, "grpwall", NULL },
	{ "ID", 2, "id", NULL },
	{ "MaxCPUMinsPerJob", 7, "maxtresminsperjob", "cpu" },
	{ "MaxCPUsPerJob", 7, "maxtresperjob", "cpu" },
	{ "MaxJobsPerUser", 8, "maxjobsperuser", NULL },
	{ "MaxJobsPU", 8, "maxjobsperuser", NULL },
	{ "MaxJobs", 4, "maxjobs", NULL },
	{ "MaxNodesPerJob", 4, "maxtresperjob", "node" },
	{ "MaxSubmitJobsPerUser", 10, "maxsubmitjobsperuser", NULL },
	{ "MaxSubmitPU", 10, "maxsubmitjobsperuser", NULL },
	{ "MaxSubmitJobs", 4, "maxsubmitjobs", NULL },
	{ "MaxTRESMinsPerJob", 11, "maxtresminsperjob", NULL },
	{ "MaxTRESPerJob", 7, "maxtresperjob", NULL },
	{ "MaxTRESPerNode", 11, "maxtrespernode", NULL },
	{ "MaxTRESPN", 9, "maxtrespernode", NULL },
	{ "MaxTRESPerUser", 11, "maxtresperuser", NULL },
	{ "MaxTRESPU", 9, "maxtresperuser", NULL },
	{ "MaxWallDurationPerJob", 4, "maxwall", NULL },
	{ "Names", 1, "name", NULL },
	{ "Organization", 1, "organization", NULL },
	{ "Parent", 3, "parent", NULL },
	{ "Partitions", 4, "partition", NULL },
	{ "PreemptMode", 8, "preemptmode", NULL },
	{ "Preempt", 7, "preempt", NULL },
	{ "Priority", 3, "priority", NULL },
	{ "QosLevel", 1, "qos", NULL },
	{ "Type", 2, "type", NULL },
	{ "UsageFactor", 6, "usagefactor", NULL },
	{ "Users", 1, "user", NULL },
	{ "WithAssoc", 5, "withassoc", NULL },
	{ "WCKeys", 2, "wckey", NULL },
	{ NULL, 0, NULL, NULL },
};

/* MaxTRES and GrpTRES prefixes are those of the longer keys too: the
 * longest exact name wins, then the first prefix match in table order. */
const struct key_def *keys_find(const char *key, size_t len)
{
	for (const struct key_def *k = key_defs; k->name; k++)
		if (strlen(k->name) == len && !strncasecmp(k->name, key, len))
			return k;
	for (const struct key_def *k = key_defs; k->name; k++)
		if (len >= k->min && len <= strlen(k->name) && !strncasecmp(k->name, key, len))
			return k;
	return NULL;
}


static bool lowered_key(const char *canon)
{
	static const char *const keys[] = { "name", "account", "cluster", "user", "parent",
					    "defaultaccount", "qos", "defaultqos", "preempt",
					    "coordinators", "partition", "wckey", "defaultwckey", NULL };
	for (size_t i = 0; keys[i]; i++)
		if (!strcmp(keys[i], canon))
			return true;
	return false;
}


/* Put key=value (op '+' / '-' for += and -=) into obj, Slurm's way. */
int keys_put(json_t *obj, const struct key_def *k, const char *value, char op)
{
	char *v = lowered_key(k->canon) ? text_lower(value) : xstrdup(value);
	char *full;
	if (k->tres) {
		/* GrpCPUs=10: one TRES of the TRES limit; -1 clears it */
		full = xasprintf("%s=%s", k->tres, v);
	} else if (op) {
		full = xasprintf("%c%s", op, v);
	} else {
		full = xstrdup(v);
	}
	free(v);
	json_t *old = json_object_get(obj, k->canon);
	if (old && k->tres && json_is_string(old)) {
		/* GrpCPUs=1 GrpNodes=2: both TRES of one limit */
		char *both = xasprintf("%s,%s", json_string_value(old), full);
		free(full);
		full = both;
	}
	json_object_set_new(obj, k->canon, json_string(full));
	free(full);
	return 0;
}

void keys_names_add(json_t *names, const char *list)
{
	char *l = text_lower(list);
	char **v = opt_split(l, ',', NULL);
	for (char **p = v; p && *p; p++)
		json_array_append_new(names, json_string(*p));
	opt_strv_free(v);
	free(l);
}


static const struct {
	const char *name;
	size_t min;
	const char *entity;
} entities[] = {
	{ "accounts", 3, "account" },
	{ "associations", 3, "association" },
	{ "clusters", 2, "cluster" },
	{ "coordinators", 3, "coordinator" },
	{ "qos", 1, "qos" },
	{ "tres", 2, "tres" },
	{ "users", 1, "user" },
	{ "events", 1, "event" },
	{ "federations", 1, "federation" },
	{ "problems", 1, "problem" },
	{ "reservations", 3, "reservation" },
	{ "resources", 3, "resource" },
	{ "runawayjobs", 2, "runawayjobs" },
	{ "transactions", 2, "transaction" },
	{ "wckeys", 1, "wckey" },
	{ "stats", 2, "stats" },
};

const char *keys_entity(const char *w)
{
	size_t len = strlen(w);
	if (!strcasecmp(w, "acct"))
		return "account";
	for (size_t i = 0; i < sizeof(entities) / sizeof(entities[0]); i++)
		if (len >= entities[i].min && len <= strlen(entities[i].name) &&
		    !strncasecmp(entities[i].name, w, len))
			return entities[i].entity;
	return NULL;
}
