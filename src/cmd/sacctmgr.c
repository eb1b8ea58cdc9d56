/* sacctmgr: Slurm's command line for the accounting objects.  The words
 * (add/modify/delete/list/dump/load, entities, where/set, key=value with
 * Slurm's abbreviations) become one ACCT_MGR request; the controller
 * checks and applies it (assoc_mgr.c) and says what changed, which this
 * file words as Slurm's sacctmgr does, and renders lists in its columns.
 * Without -i a change is first sent as a dry run and committed only when
 * the user answers y, as Slurm asks. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

struct opts {
	bool immediate, noheader, quiet, assocs, readonly;
	int parsable;                /* 0, 1 (-p: trailing '|'), 2 (-P) */
};

static struct opts o;
static char *opt_format;          /* --format before the command */

/* ---- keys ---- */

/* A key as users write it: Slurm accepts any prefix of the long name of
 * at least min characters (case-insensitive), and some old names that
 * stand for one TRES of a TRES limit (GrpCPUs=10 is GrpTRES=cpu=10). */
struct key_def {
	const char *name;
	size_t min;
	const char *canon;
	const char *tres;            /* "cpu": the value is that TRES' count */
};

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
	{ NULL, 0, NULL, NULL },
};

/* MaxTRES and GrpTRES prefixes are those of the longer keys too: the
 * longest exact name wins, then the first prefix match in table order. */
static const struct key_def *key_find(const char *key, size_t len)
{
	for (const struct key_def *k = key_defs; k->name; k++)
		if (strlen(k->name) == len && !strncasecmp(k->name, key, len))
			return k;
	for (const struct key_def *k = key_defs; k->name; k++)
		if (len >= k->min && len <= strlen(k->name) && !strncasecmp(k->name, key, len))
			return k;
	return NULL;
}

/* Names Slurm keeps in lower case (clusters, accounts, users, QOS). */
static char *lower(const char *s)
{
	char *r = xstrdup(s);
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x80)
			*p = tolower((unsigned char)*p);
	return r;
}

static bool lowered_key(const char *canon)
{
	static const char *const keys[] = { "name", "account", "cluster", "user", "parent",
					    "defaultaccount", "qos", "defaultqos", "preempt",
					    "coordinators", NULL };
	for (size_t i = 0; keys[i]; i++)
		if (!strcmp(keys[i], canon))
			return true;
	return false;
}

/* ---- the request from the words ---- */

enum op { OP_ADD, OP_MODIFY, OP_DELETE, OP_LIST, OP_DUMP, OP_LOAD };

struct request {
	enum op op;
	const char *entity;          /* "account", "user" ... */
	json_t *names, *where, *set, *options;
	char *format;                /* format= */
	char *file;                  /* dump/load file= */
	bool tree, withassoc, withcoord;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "sacctmgr: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return -1;
}

/* Put key=value (op '+' / '-' for += and -=) into obj, Slurm's way. */
static int put_value(json_t *obj, const struct key_def *k, const char *value, char op)
{
	char *v = lowered_key(k->canon) ? lower(value) : xstrdup(value);
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

static void names_add(json_t *names, const char *list)
{
	char *l = lower(list);
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

static const char *entity_find(const char *w)
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

/* The words after the command into r.  add: every key=value is a
 * setting; modify: where ... set ...; list/delete: conditions. */
static int request_parse(struct request *r, int argc, char **argv)
{
	bool in_set = false;
	r->names = json_array();
	r->where = json_object();
	r->set = json_object();
	r->options = json_array();
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!strcasecmp(w, "where")) {
			in_set = false;
			continue;
		}
		if (!strcasecmp(w, "set")) {
			if (r->op != OP_MODIFY)
				return usage_error("'set' is only for modify: %s", w);
			in_set = true;
			continue;
		}
		const char *eq = strchr(w, '=');
		if (!eq) {
			if (!strcasecmp(w, "tree")) {
				r->tree = true;
			} else if (!strncasecmp(w, "withassoc", strlen(w) > 5 ? strlen(w) : 5) ||
				   !strcasecmp(w, "-s")) {
				r->withassoc = true;
			} else if (!strncasecmp(w, "withcoordinators", strlen(w) > 5 ? strlen(w) : 5)) {
				r->withcoord = true;
			} else if (!strcasecmp(w, "clean") && r->op == OP_LOAD) {
				/* Slurm's clean empties the cluster first; refused rather
				 * than half done: delete what should go, then load */
				return usage_error("load %s is not supported: delete the accounts that "
						   "should go first, then load", w);
			} else if (r->op == OP_LOAD && !r->file) {
				r->file = xstrdup(w);
			} else if (in_set) {
				return usage_error("Unknown option: %s (use key=value after 'set')", w);
			} else {
				names_add(r->names, w);
			}
			continue;
		}
		size_t klen = eq - w;
		char op = 0;
		if (klen && (w[klen - 1] == '+' || w[klen - 1] == '-')) {
			op = w[klen - 1];
			klen--;
		}
		const char *value = eq + 1;
		if (klen == 6 && !strncasecmp(w, "format", 6)) {
			free(r->format);
			r->format = xstrdup(value);
			continue;
		}
		if (klen == 4 && !strncasecmp(w, "file", 4)) {
			free(r->file);
			r->file = xstrdup(value);
			continue;
		}
		const struct key_def *k = key_find(w, klen);
		if (!k) {
			fprintf(stderr, "sacctmgr: error: Unknown option: %s\n", w);
			fprintf(stderr, " Use keyword 'where' to modify condition\n");
			return -1;
		}
		if (op && strcmp(k->canon, "qos") && strcmp(k->canon, "flags") &&
		    strcmp(k->canon, "preempt"))
			return usage_error("%s: += and -= only work on QOS, Preempt and Flags", w);
		if (!strcmp(k->canon, "name")) {
			names_add(r->names, value);
			continue;
		}
		bool is_set = r->op == OP_ADD || r->op == OP_LOAD || in_set;
		/* modify without where: settings before 'set' are conditions */
		put_value(is_set ? r->set : r->where, k, value, op);
	}
	if (r->withassoc || o.assocs)
		json_array_append_new(r->options, json_string("withassoc"));
	if (r->tree)
		json_array_append_new(r->options, json_string("tree"));
	return 0;
}

/* ---- rendering ---- */

/* A column: its header, Slurm's default width (negative: left
 * justified), the names format= knows it by, and the row key it shows. */
enum render { R_STR, R_INT, R_TRES, R_TRES1, R_WALL, R_SHARE, R_FLOAT, R_LIST, R_FIXED };
struct col_def {
	const char *title;
	int width;
	const char *aliases;         /* ',' separated, matched case-insensitively by prefix */
	const char *key;
	enum render how;
	const char *tres;            /* R_TRES1: the one TRES shown (GrpCPUs) */
};

static const struct col_def cols[] = {
	{ "Cluster", 10, "cluster", "cluster", R_STR, NULL },
	{ "Account", 10, "account", "account", R_STR, NULL },
	{ "User", 10, "user", "user", R_STR, NULL },
	{ "Partition", 10, "partition", "partition", R_STR, NULL },
	{ "Share", 9, "share,fairshare", "share", R_SHARE, NULL },
	{ "Priority", 10, "priority", "priority", R_INT, NULL },
	{ "GrpJobs", 7, "grpjobs", "grp_jobs", R_INT, NULL },
	{ "GrpTRES", 13, "grptres", "grp_tres", R_TRES, NULL },
	{ "GrpSubmit", 9, "grpsubmit,grpsubmitjobs", "grp_submit", R_INT, NULL },
	{ "GrpWall", 11, "grpwall", "grp_wall", R_WALL, NULL },
	{ "GrpTRESMins", 13, "grptresmins", "grp_tres_mins", R_TRES, NULL },
	{ "MaxJobs", 7, "maxjobs", "max_jobs", R_INT, NULL },
	{ "MaxTRES", 13, "maxtres,maxtresperjob", "max_tres", R_TRES, NULL },
	{ "MaxTRESPerNode", 14, "maxtrespernode,maxtrespn", "max_tres_per_node", R_TRES, NULL },
	{ "MaxSubmit", 9, "maxsubmit,maxsubmitjobs", "max_submit", R_INT, NULL },
	{ "MaxWall", 11, "maxwall,maxwalldurationperjob", "max_wall", R_WALL, NULL },
	{ "MaxTRESMins", 13, "maxtresmins,maxtresminsperjob", "max_tres_mins", R_TRES, NULL },
	{ "QOS", 20, "qos,qoslevel", "qos", R_STR, NULL },
	{ "Def QOS", 9, "defaultqos,defqos", "def_qos", R_STR, NULL },
	{ "GrpTRESRunMin", 13, "grptresrunmins", "", R_FIXED, NULL },
	{ "Par Name", 10, "parentname,parent", "parent_name", R_STR, NULL },
	{ "ID", 6, "id", "id", R_INT, NULL },
	{ "ParentID", 8, "parentid", "parent_id", R_INT, NULL },
	{ "GrpNodes", 8, "grpnodes", "grp_tres", R_TRES1, "node" },
	{ "GrpCPUs", 8, "grpcpus", "grp_tres", R_TRES1, "cpu" },
	{ "GrpMEM", 7, "grpmem", "grp_tres", R_TRES1, "mem" },
	{ "GrpCPUMins", 11, "grpcpumins", "grp_tres_mins", R_TRES1, "cpu" },
	{ "MaxNodes", 8, "maxnodes,maxnodesperjob", "max_tres", R_TRES1, "node" },
	{ "MaxCPUs", 8, "maxcpus,maxcpusperjob", "max_tres", R_TRES1, "cpu" },
	{ "MaxCPUMins", 11, "maxcpumins,maxcpuminsperjob", "max_tres_mins", R_TRES1, "cpu" },
	{ "Descr", 20, "description", "descr", R_STR, NULL },
	{ "Org", 20, "organization", "org", R_STR, NULL },
	{ "Flags", 20, "flags", "flags", R_STR, NULL },
	{ "Coordinators", 20, "coordinators", "coordinators", R_LIST, NULL },
	{ "Def Acct", 10, "defaultaccount", "default_account", R_STR, NULL },
	{ "Admin", 9, "adminlevel", "admin", R_STR, NULL },
	{ "Def WCKey", 10, "defaultwckey", "default_wckey", R_STR, NULL },
	{ "Coord Accounts", 20, "coordinatoraccounts", "coord_accounts", R_LIST, NULL },
	{ "ControlHost", 15, "controlhost", "control_host", R_STR, NULL },
	{ "ControlPort", 12, "controlport", "control_port", R_INT, NULL },
	{ "RPC", 5, "rpc", "rpc", R_INT, NULL },
	{ "Type", 8, "type", "type", R_STR, NULL },
	{ "Name", 15, "name", "name", R_STR, NULL },
};

/* QOS has columns of its own (some names as in associations, other keys). */
static const struct col_def qos_cols[] = {
	{ "Name", 10, "name", "name", R_STR, NULL },
	{ "Priority", 10, "priority", "priority", R_INT, NULL },
	{ "GraceTime", 10, "gracetime", "", R_FIXED, "00:00:00" },
	{ "Preempt", 10, "preempt", "preempt", R_STR, NULL },
	{ "PreemptExemptTime", 19, "preemptexempttime", "", R_FIXED, NULL },
	{ "PreemptMode", 11, "preemptmode", "preempt_mode", R_STR, NULL },
	{ "Flags", 40, "flags", "flags", R_STR, NULL },
	{ "UsageThres", 10, "usagethreshold", "", R_FIXED, NULL },
	{ "UsageFactor", 11, "usagefactor", "usage_factor", R_FLOAT, NULL },
	{ "GrpTRES", 13, "grptres", "grp_tres", R_TRES, NULL },
	{ "GrpTRESMins", 13, "grptresmins", "grp_tres_mins", R_TRES, NULL },
	{ "GrpTRESRunMin", 13, "grptresrunmins", "", R_FIXED, NULL },
	{ "GrpJobs", 7, "grpjobs", "grp_jobs", R_INT, NULL },
	{ "GrpSubmit", 9, "grpsubmit,grpsubmitjobs", "grp_submit", R_INT, NULL },
	{ "GrpWall", 11, "grpwall", "grp_wall", R_WALL, NULL },
	{ "MaxTRES", 13, "maxtres,maxtresperjob", "max_tres", R_TRES, NULL },
	{ "MaxTRESPerNode", 14, "maxtrespernode,maxtrespn", "max_tres_per_node", R_TRES, NULL },
	{ "MaxTRESMins", 13, "maxtresmins,maxtresminsperjob", "max_tres_mins", R_TRES, NULL },
	{ "MaxWall", 11, "maxwall,maxwalldurationperjob", "max_wall", R_WALL, NULL },
	{ "MaxTRESPU", 13, "maxtrespu,maxtresperuser", "max_tres_pu", R_TRES, NULL },
	{ "MaxJobsPU", 9, "maxjobspu,maxjobsperuser", "max_jobs_pu", R_INT, NULL },
	{ "MaxSubmitPU", 11, "maxsubmitpu,maxsubmitjobsperuser", "max_submit_pu", R_INT, NULL },
	{ "MaxTRESPA", 13, "maxtrespa,maxtresperaccount", "", R_FIXED, NULL },
	{ "MaxJobsPA", 9, "maxjobspa,maxjobsperaccount", "", R_FIXED, NULL },
	{ "MaxSubmitPA", 11, "maxsubmitpa,maxsubmitjobsperaccount", "", R_FIXED, NULL },
	{ "MinTRES", 13, "mintres", "", R_FIXED, NULL },
	{ "Descr", 11, "description", "description", R_STR, NULL },
	{ "ID", 6, "id", "id", R_INT, NULL },
};

struct col {
	const struct col_def *def;
	int width;
};

static const struct col_def *col_find(const struct col_def *defs, size_t n, const char *name)
{
	size_t len = strlen(name);
	/* exact title or alias first, then a prefix of an alias */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			char *title = lower(defs[i].title);
			char *sp;
			while ((sp = strchr(title, ' ')))
				memmove(sp, sp + 1, strlen(sp));
			char *al = xasprintf("%s,%s", title, defs[i].aliases);
			free(title);
			char **v = opt_split(al, ',', NULL);
			free(al);
			bool hit = false;
			for (char **p = v; *p && !hit; p++)
				hit = pass == 0 ? !strcasecmp(*p, name)
						: len >= 2 && !strncasecmp(*p, name, len);
			opt_strv_free(v);
			if (hit)
				return &defs[i];
		}
	return NULL;
}

/* "Account,User%20,Share%-8" into columns; -1 naming the bad field. */
static int cols_parse(const struct col_def *defs, size_t n, const char *spec, struct col **out,
		      size_t *nout)
{
	char **v = opt_split(spec, ',', NULL);
	size_t k = 0;
	*out = xmalloc((opt_strv_len(v) + 1) * sizeof(**out));
	for (char **p = v; *p; p++) {
		char *pct = strchr(*p, '%');
		int width = 0;
		bool has_width = false;
		if (pct) {
			char *end;
			*pct = 0;
			width = strtol(pct + 1, &end, 10);
			if (*end || end == pct + 1 || width == 0) {
				fprintf(stderr, "sacctmgr: error: Invalid field width in '%s%%%s'\n", *p,
					pct + 1);
				goto error;
			}
			has_width = true;
		}
		const struct col_def *d = col_find(defs, n, *p);
		if (!d) {
			fprintf(stderr, "sacctmgr: error: Invalid field requested: \"%s\"\n", *p);
			goto error;
		}
		(*out)[k].def = d;
		(*out)[k].width = has_width ? width : d->width;
		k++;
	}
	opt_strv_free(v);
	*nout = k;
	return 0;
error:
	opt_strv_free(v);
	free(*out);
	*out = NULL;
	return -1;
}

/* Slurm's sacctmgr walls: "[days-]hh:mm:ss" of a count of minutes. */
static void wall_str(long long minutes, char *buf, size_t len)
{
	long long secs = minutes * 60;
	long long d = secs / 86400, h = secs % 86400 / 3600, m = secs % 3600 / 60;
	if (d)
		snprintf(buf, len, "%lld-%02lld:%02lld:00", d, h, m);
	else
		snprintf(buf, len, "%02lld:%02lld:00", h, m);
}

/* One TRES' count out of "cpu=10,node=2". */
static void tres_one(const char *tres, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);
	*buf = 0;
	for (const char *p = tres; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l > n && !strncmp(p, name, n) && p[n] == '=') {
			snprintf(buf, len, "%.*s", (int)(l - n - 1), p + n + 1);
			return;
		}
		p += l;
		if (*p == ',')
			p++;
	}
}

static char *cell_value(const struct col_def *d, const json_t *row)
{
	json_t *v = json_object_get(row, d->key);
	char buf[64];
	switch (d->how) {
	case R_FIXED:
		return xstrdup(d->tres ? d->tres : "");
	case R_STR:
		return xstrdup(json_is_string(v) ? json_string_value(v) : "");
	case R_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return xstrdup("");
		return xasprintf("%lld", (long long)json_integer_value(v));
	case R_SHARE:
		if (json_is_string(v))
			return xstrdup(json_string_value(v));
		return json_is_integer(v) ? xasprintf("%lld", (long long)json_integer_value(v)) : xstrdup("");
	case R_WALL:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return xstrdup("");
		wall_str(json_integer_value(v), buf, sizeof(buf));
		return xstrdup(buf);
	case R_TRES:
		return xstrdup(json_is_string(v) ? json_string_value(v) : "");
	case R_TRES1:
		tres_one(json_string_value(v), d->tres, buf, sizeof(buf));
		return xstrdup(buf);
	case R_FLOAT:
		return json_is_number(v) ? xasprintf("%f", json_number_value(v)) : xstrdup("");
	case R_LIST: {
		struct strbuf sb = { 0 };
		size_t i;
		json_t *e;
		strbuf_adds(&sb, "");
		json_array_foreach(v, i, e) {
			if (i)
				strbuf_adds(&sb, ",");
			strbuf_adds(&sb, json_string_value(e));
		}
		return sb.s;
	}
	}
	return xstrdup("");
}

/* One cell as Slurm's print_fields does: parsable "v|", else cut to the
 * width (its last character a '+' when cut), right-justified for a
 * positive width, left for a negative one, and a space after. */
static void cell_print(struct strbuf *out, const char *value, int width, bool last)
{
	if (o.parsable) {
		strbuf_adds(out, value);
		if (!(last && o.parsable == 2))
			strbuf_adds(out, "|");
		return;
	}
	int w = width < 0 ? -width : width;
	char *v = xstrdup(value);
	if ((int)strlen(v) > w && w > 0) {
		v[w] = 0;
		v[w - 1] = '+';
	}
	char *cell = xasprintf(width < 0 ? "%-*s " : "%*s ", w, v);
	strbuf_adds(out, cell);
	free(cell);
	free(v);
}

static void table_print(const struct col *c, size_t nc, const json_t *rows, bool tree)
{
	struct strbuf out = { 0 };
	strbuf_adds(&out, "");
	if (!o.noheader) {
		for (size_t i = 0; i < nc; i++)
			cell_print(&out, c[i].def->title, c[i].width, i + 1 == nc);
		strbuf_adds(&out, "\n");
		if (!o.parsable) {
			for (size_t i = 0; i < nc; i++) {
				int w = c[i].width < 0 ? -c[i].width : c[i].width;
				char *dash = xmalloc(w + 2);
				memset(dash, '-', w);
				dash[w] = ' ';
				strbuf_adds(&out, dash);
				free(dash);
			}
			strbuf_adds(&out, "\n");
		}
	}
	size_t r;
	json_t *row;
	json_array_foreach(rows, r, row) {
		for (size_t i = 0; i < nc; i++) {
			char *v = cell_value(c[i].def, row);
			if (tree && !strcmp(c[i].def->key, "account")) {
				/* tree: the account indented by its depth (a user's
				 * row one deeper than its account's) */
				long long depth = cmd_jint(row, "depth");
				char *ind = xasprintf("%*s%s", (int)(depth > 200 ? 200 : depth), "", v);
				free(v);
				v = ind;
			}
			cell_print(&out, v, c[i].width, i + 1 == nc);
			free(v);
		}
		strbuf_adds(&out, "\n");
	}
	fwrite(out.s, 1, out.len, stdout);
	free(out.s);
}

/* Slurm 22.05's default columns of each list. */
#define ACCT_ASSOC_COLS "Account,Descr,Org,Cluster,ParentName,User,Share,Priority,GrpJobs,GrpNodes," \
	"GrpCPUs,GrpMEM,GrpSubmit,GrpWall,GrpCPUMins,MaxJobs,MaxNodes,MaxCPUs,MaxSubmit,MaxWall," \
	"MaxCPUMins,QOS,DefaultQOS"
#define USER_ASSOC_COLS "User,DefaultAccount,Admin,Cluster,Account,Partition,Share,Priority," \
	"MaxJobs,MaxNodes,MaxCPUs,MaxSubmit,MaxWall,MaxCPUMins,QOS,DefaultQOS"
static const char *default_format(const struct request *r)
{
	bool wa = r->withassoc || o.assocs;
	static const char *const formats[2][2][2] = {
		/* account: [withassoc][withcoord] */
		{ { "Account,Descr,Org", "Account,Descr,Org,Coordinators" },
		  { ACCT_ASSOC_COLS, ACCT_ASSOC_COLS ",Coordinators" } },
		/* user */
		{ { "User,DefaultAccount,Admin", "User,DefaultAccount,Admin,CoordinatorAccounts" },
		  { USER_ASSOC_COLS, USER_ASSOC_COLS ",CoordinatorAccounts" } },
	};
	if (!strcmp(r->entity, "account"))
		return formats[0][wa][r->withcoord];
	if (!strcmp(r->entity, "user"))
		return formats[1][wa][r->withcoord];
	if (!strcmp(r->entity, "association"))
		return "Cluster,Account,User,Partition,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,"
		       "GrpTRESMins,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,"
		       "DefaultQOS,GrpTRESRunMins";
	if (!strcmp(r->entity, "cluster"))
		return "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,"
		       "MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS";
	if (!strcmp(r->entity, "qos"))
		return "Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,Flags,UsageThres,"
		       "UsageFactor,GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJobs,GrpSubmit,GrpWall,MaxTRES,"
		       "MaxTRESPerNode,MaxTRESMins,MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU,MaxTRESPA,"
		       "MaxJobsPA,MaxSubmitPA,MinTRES";
	if (!strcmp(r->entity, "tres"))
		return "Type,Name%15,ID";
	if (!strcmp(r->entity, "coordinator"))
		return "Account,User";
	return "";
}

/* ---- talking to the controller ---- */

static struct cmd_client client;
static bool client_ready;

static int call(const struct request *r, bool dry_run, json_t *records, json_t **reply)
{
	struct herd_error err;
	if (!client_ready) {
		if (cmd_client_init(&client, &err) < 0) {
			fprintf(stderr, "sacctmgr: error: %s\n", err.text);
			return -1;
		}
		client_ready = true;
		/* a load of a large site's file is applied in one request: give
		 * it more than MessageTimeout before calling the controller gone */
		if (r->op == OP_LOAD && client.timeout_ms < 120000)
			client.timeout_ms = 120000;
	}
	json_t *opts = json_deep_copy(r->options);
	if (dry_run)
		json_array_append_new(opts, json_string("dry_run"));
	static const char *const opnames[] = { "add", "modify", "delete", "list", "dump", "load" };
	json_t *body = json_pack("{s:s, s:s, s:O, s:O, s:O, s:o}", "op", opnames[r->op], "entity",
				 r->entity, "names", r->names, "where", r->where, "set", r->set,
				 "options", opts);
	if (records)
		json_object_set(body, "records", records);
	int rc = cmd_call(&client, MSG_ACCT_MGR, body, reply, &err);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "sacctmgr: error: %s\n", err.text);
		return -1;
	}
	return 0;
}

/* Slurm's question, read from stdin (a terminal or not) for 30 seconds:
 * only y or Y commits. */
static bool commit_check(void)
{
	char c = 0;
	printf("Would you like to commit changes? (You have 30 seconds to decide)\n");
	for (;;) {
		printf("(N/y): ");
		fflush(stdout);
		fd_set fds;
		struct timeval tv = { 30, 0 };
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		int n = select(STDIN_FILENO + 1, &fds, NULL, NULL, &tv);
		if (n <= 0) {
			printf("timeout\n");
			return false;
		}
		ssize_t got = read(STDIN_FILENO, &c, 1);
		if (got <= 0) {
			printf("\n");
			return false;
		}
		if (c == 'y' || c == 'Y')
			return true;
		if (c == 'n' || c == 'N' || c == '\n')
			return false;
		printf("Y or N please\n");
		/* the rest of that line is not an answer */
		while (got > 0 && c != '\n')
			got = read(STDIN_FILENO, &c, 1);
	}
}

/* ---- what changed, in Slurm's words ---- */

static void print_strs(const json_t *a)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		printf("  %s\n", json_string_value(v));
}

static const char *jget(const json_t *o, const char *key)
{
	return cmd_jstr(o, key);
}

static void print_assoc_ref(const json_t *a, bool modify)
{
	const char *user = jget(a, "user"), *part = jget(a, "partition");
	if (modify) {
		printf("  C = %-10s A = %-20s", jget(a, "cluster"), jget(a, "account"));
		if (*user)
			printf(" U = %-9s", user);
	} else if (*user) {
		printf("  U = %-9s A = %-10s C = %-10s", user, jget(a, "account"), jget(a, "cluster"));
	} else {
		printf("  A = %-10s C = %-10s", jget(a, "account"), jget(a, "cluster"));
	}
	if (*part)
		printf(" P = %s", part);
	printf("\n");
}

/* The association settings of an add or modify, Slurm's way. */
static void print_limits(const json_t *set)
{
	static const struct {
		const char *key, *title;
	} lim[] = {
		{ "fairshare", "Fairshare" }, { "grpjobs", "GrpJobs" },
		{ "grpsubmitjobs", "GrpSubmitJobs" }, { "grptres", "GrpTRES" },
		{ "grptresmins", "GrpTRESMins" }, { "grpwall", "GrpWall" }, { "maxjobs", "MaxJobs" },
		{ "maxsubmitjobs", "MaxSubmitJobs" }, { "maxtresperjob", "MaxTRESPerJob" },
		{ "maxtrespernode", "MaxTRESPerNode" }, { "maxtresminsperjob", "MaxTRESMinsPerJob" },
		{ "maxwall", "MaxWall" }, { "qos", "QOS" }, { "defaultqos", "DefQOS" },
		{ "priority", "Priority" }, { "usagefactor", "UsageFactor" },
		{ "preempt", "Preempt" }, { "preemptmode", "PreemptMode" },
		{ "maxtresperuser", "MaxTRESPerUser" }, { "maxjobsperuser", "MaxJobsPerUser" },
		{ "maxsubmitjobsperuser", "MaxSubmitJobsPerUser" },
	};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		const char *v = cmd_jstr(set, lim[i].key);
		if (!json_object_get(set, lim[i].key))
			continue;
		printf("  %-13s = %s\n", lim[i].title, !strcmp(v, "-1") ? "NONE" : v);
	}
}

static bool has_limits(const json_t *set)
{
	static const char *const keys[] = { "fairshare", "grpjobs", "grpsubmitjobs", "grptres",
					    "grptresmins", "grpwall", "maxjobs", "maxsubmitjobs",
					    "maxtresperjob", "maxtrespernode", "maxtresminsperjob",
					    "maxwall", "qos", "defaultqos", NULL };
	for (size_t i = 0; keys[i]; i++)
		if (json_object_get(set, keys[i]))
			return true;
	return false;
}

/* Returns 1 when nothing was changed (Slurm's exit 1), else 0. */
static int report_add(const struct request *r, const json_t *reply)
{
	json_t *added = json_object_get(reply, "added"), *assocs = json_object_get(reply, "assocs");
	const json_t *s = r->set;
	if (!json_array_size(added) && !json_array_size(assocs)) {
		printf(" Nothing new added.\n");
		return 1;
	}
	if (o.quiet)
		return 0;
	if (!strcmp(r->entity, "account")) {
		if (json_array_size(added)) {
			printf(" Adding Account(s)\n");
			print_strs(added);
			printf(" Settings\n");
			printf("  Description     = %s\n",
			       json_object_get(s, "description") ? cmd_jstr(s, "description") : "Account Name");
			printf("  Organization    = %s\n", json_object_get(s, "organization")
							       ? cmd_jstr(s, "organization")
							       : "Parent/Account Name");
		}
		if (json_array_size(assocs)) {
			size_t i;
			json_t *a;
			printf(" Associations\n");
			json_array_foreach(assocs, i, a)
				print_assoc_ref(a, false);
			printf(" Settings\n");
			printf("  %-13s = %s\n", "Parent",
			       json_object_get(s, "parent") ? cmd_jstr(s, "parent") : "root");
			print_limits(s);
		}
	} else if (!strcmp(r->entity, "user")) {
		if (json_array_size(added)) {
			printf(" Adding User(s)\n");
			print_strs(added);
			printf(" Settings =\n");
			const char *d = cmd_jstr(s, "defaultaccount");
			if (!*d) {
				char **v = opt_split(cmd_jstr(s, "account"), ',', NULL);
				printf("  Default Account = %s\n", v && v[0] ? v[0] : "");
				opt_strv_free(v);
			} else {
				printf("  Default Account = %s\n", d);
			}
			if (json_object_get(s, "adminlevel"))
				printf("  Admin Level     = %s\n", cmd_jstr(s, "adminlevel"));
		}
		if (json_array_size(assocs)) {
			size_t i;
			json_t *a;
			printf(" Associations =\n");
			json_array_foreach(assocs, i, a)
				print_assoc_ref(a, false);
		}
		if (has_limits(s)) {
			printf(" Non Default Settings\n");
			print_limits(s);
		}
	} else if (!strcmp(r->entity, "qos")) {
		printf(" Adding QOS(s)\n");
		print_strs(added);
		printf(" Settings\n");
		if (json_object_get(s, "description"))
			printf("  Description    = %s\n", cmd_jstr(s, "description"));
		else
			printf("  Description    = %s\n", "QOS Name");
		print_limits(s);
	} else if (!strcmp(r->entity, "cluster")) {
		size_t i;
		json_t *v;
		printf(" Adding Cluster(s)\n");
		json_array_foreach(added, i, v)
			printf("  Name           = %s\n", json_string_value(v));
		if (has_limits(s)) {
			printf(" Setting\n");
			print_limits(s);
		}
	} else if (!strcmp(r->entity, "coordinator")) {
		printf(" Adding Coordinator User(s)\n");
		print_strs(added);
		printf(" To Account(s) and all sub-accounts\n");
		print_strs(json_object_get(reply, "accounts"));
	}
	return 0;
}

static int report_modify(const struct request *r, const json_t *reply)
{
	json_t *mod = json_object_get(reply, "modified"), *assocs = json_object_get(reply, "assocs");
	size_t i;
	json_t *a;
	if (!json_array_size(mod) && !json_array_size(assocs)) {
		printf(" Nothing modified\n");
		return 1;
	}
	if (o.quiet)
		return 0;
	if (json_array_size(mod)) {
		const char *what = !strcmp(r->entity, "qos") ? "qos" : !strcmp(r->entity, "user") ? "users"
												  : "accounts";
		printf(" Modified %s...\n", what);
		print_strs(mod);
	}
	if (json_array_size(assocs)) {
		const char *what = !strcmp(r->entity, "user") ? "user" : !strcmp(r->entity, "cluster")
										 ? "cluster"
										 : "account";
		printf(" Modified %s associations...\n", what);
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, true);
	}
	return 0;
}

static int report_delete(const struct request *r, const json_t *reply)
{
	json_t *del = json_object_get(reply, "deleted"), *assocs = json_object_get(reply, "assocs");
	json_t *jobs = json_object_get(reply, "jobs_active");
	size_t i;
	json_t *a;
	if (json_array_size(jobs)) {
		fprintf(stderr, " Error with request: %s\n", cmd_jstr(reply, "error"));
		json_array_foreach(jobs, i, a)
			fprintf(stderr, "  JobID = %-10lld C = %-10s A = %-10s U = %-9s\n",
				cmd_jint(a, "job_id"), cmd_jstr(a, "cluster"), cmd_jstr(a, "account"),
				cmd_jstr(a, "user"));
		return 1;
	}
	if (!json_array_size(del) && !json_array_size(assocs)) {
		printf(" Nothing deleted\n");
		return 1;
	}
	if (o.quiet)
		return 0;
	if (!strcmp(r->entity, "coordinator")) {
		printf(" Removing Coordinators with user name\n");
		json_array_foreach(del, i, a)
			printf("  U = %-9s A = %s\n", cmd_jstr(a, "user"), cmd_jstr(a, "account"));
		return 0;
	}
	if (json_array_size(del)) {
		const char *what = !strcmp(r->entity, "qos") ? "QOS(s)" : !strcmp(r->entity, "user")
									  ? "users"
									  : !strcmp(r->entity, "cluster")
										    ? "clusters"
										    : "accounts";
		printf(" Deleting %s...\n", what);
		print_strs(del);
	}
	if (json_array_size(assocs) && (!json_array_size(del) || !strcmp(r->entity, "account"))) {
		printf(" Deleting %s associations...\n", !strcmp(r->entity, "user") ? "user" : "account");
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, true);
	}
	return 0;
}

/* ---- dump and load: Slurm's flat file ---- */

/* A value as the file holds it: in single quotes, a quote or backslash
 * inside escaped with a backslash (Slurm has no escape; ours lets any
 * name round-trip). */
static void flat_quote(struct strbuf *sb, const char *v)
{
	strbuf_adds(sb, "'");
	for (const char *p = v; *p; p++) {
		if (*p == '\'' || *p == '\\')
			strbuf_adds(sb, "\\");
		strbuf_add(sb, p, 1);
	}
	strbuf_adds(sb, "'");
}

static void flat_limits(struct strbuf *sb, const json_t *row, bool user)
{
	static const struct {
		const char *key, *name;
		enum render how;
	} lim[] = {
		{ "grp_jobs", "GrpJobs", R_INT }, { "grp_submit", "GrpSubmitJobs", R_INT },
		{ "grp_tres", "GrpTRES", R_TRES }, { "grp_tres_mins", "GrpTRESMins", R_TRES },
		{ "grp_wall", "GrpWall", R_INT }, { "max_jobs", "MaxJobs", R_INT },
		{ "max_submit", "MaxSubmitJobs", R_INT }, { "max_tres", "MaxTRESPerJob", R_TRES },
		{ "max_tres_per_node", "MaxTRESPerNode", R_TRES },
		{ "max_tres_mins", "MaxTRESMinsPerJob", R_TRES },
		{ "max_wall", "MaxWallDurationPerJob", R_INT },
	};
	json_t *share = json_object_get(row, "share");
	if (json_is_string(share))
		strbuf_adds(sb, ":Fairshare=parent");
	else {
		char n[32];
		snprintf(n, sizeof(n), ":Fairshare=%lld", (long long)json_integer_value(share));
		strbuf_adds(sb, n);
	}
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		json_t *v = json_object_get(row, lim[i].key);
		char n[48];
		if (lim[i].how == R_INT) {
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				continue;
			snprintf(n, sizeof(n), ":%s=%lld", lim[i].name, (long long)json_integer_value(v));
			strbuf_adds(sb, n);
		} else if (json_is_string(v) && *json_string_value(v)) {
			strbuf_adds(sb, ":");
			strbuf_adds(sb, lim[i].name);
			strbuf_adds(sb, "=");
			strbuf_adds(sb, json_string_value(v));
		}
	}
	(void)user;
}

/* The dump's rows indexed: by ID (a parent's row) and by parent ID (an
 * account's children, in tree order).  Sorted arrays: a site's tens of
 * thousands of associations dump in one pass. */
struct drow {
	long long id, pid;
	size_t order;
	const json_t *row;
};
struct dump_index {
	struct drow *by_id, *by_parent;
	size_t n;
};

static int cmp_drow_id(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_drow_parent(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void dump_index_build(struct dump_index *d, const json_t *rows)
{
	size_t i;
	json_t *r;
	d->n = json_array_size(rows);
	d->by_id = xmalloc((d->n + 1) * sizeof(*d->by_id));
	d->by_parent = xmalloc((d->n + 1) * sizeof(*d->by_parent));
	json_array_foreach(rows, i, r)
		d->by_id[i] = (struct drow){ cmd_jint(r, "id"), cmd_jint(r, "parent_id"), i, r };
	memcpy(d->by_parent, d->by_id, d->n * sizeof(*d->by_id));
	qsort(d->by_id, d->n, sizeof(*d->by_id), cmp_drow_id);
	qsort(d->by_parent, d->n, sizeof(*d->by_parent), cmp_drow_parent);
}

static const json_t *dump_row_by_id(const struct dump_index *d, long long id)
{
	struct drow key = { .id = id };
	const struct drow *hit = bsearch(&key, d->by_id, d->n, sizeof(*d->by_id), cmp_drow_id);
	return hit ? hit->row : NULL;
}

/* The first of pid's children in by_parent (d->n when none). */
static size_t dump_first_child(const struct dump_index *d, long long pid)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->by_parent[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The own QOS list of a row: only where it differs from its parent's
 * (it is inherited otherwise, and a load would pin it). */
static const char *row_qos_own(const struct dump_index *d, const json_t *row)
{
	long long pid = cmd_jint(row, "parent_id");
	const char *q = cmd_jstr(row, "qos");
	const json_t *p = pid ? dump_row_by_id(d, pid) : NULL;
	if (!p)
		return q;
	return strcmp(cmd_jstr(p, "qos"), q) ? q : NULL;
}

static void flat_line(struct strbuf *sb, const struct dump_index *d, const json_t *row)
{
	const char *user = cmd_jstr(row, "user");
	const char *qos = row_qos_own(d, row);
	if (*user) {
		strbuf_adds(sb, "User - ");
		flat_quote(sb, user);
		strbuf_adds(sb, ":DefaultAccount=");
		flat_quote(sb, cmd_jstr(row, "default_account"));
		if (strcmp(cmd_jstr(row, "admin"), "None")) {
			strbuf_adds(sb, ":AdminLevel=");
			flat_quote(sb, cmd_jstr(row, "admin"));
		}
		if (*cmd_jstr(row, "partition")) {
			strbuf_adds(sb, ":Partition=");
			flat_quote(sb, cmd_jstr(row, "partition"));
		}
	} else {
		strbuf_adds(sb, "Account - ");
		flat_quote(sb, cmd_jstr(row, "account"));
		strbuf_adds(sb, ":Description=");
		flat_quote(sb, cmd_jstr(row, "descr"));
		strbuf_adds(sb, ":Organization=");
		flat_quote(sb, cmd_jstr(row, "org"));
		if (*cmd_jstr(row, "flags")) {
			strbuf_adds(sb, ":Flags=");
			strbuf_adds(sb, cmd_jstr(row, "flags"));
		}
		json_t *coords = json_object_get(row, "coordinators");
		if (json_array_size(coords)) {
			char *list = cell_value(&(struct col_def){ "", 0, "", "coordinators", R_LIST, NULL }, row);
			strbuf_adds(sb, ":Coordinators=");
			flat_quote(sb, list);
			free(list);
		}
	}
	flat_limits(sb, row, *user);
	if (qos) {
		strbuf_adds(sb, ":QOS=");
		flat_quote(sb, qos);
	}
	if (*cmd_jstr(row, "def_qos")) {
		strbuf_adds(sb, ":DefaultQOS=");
		flat_quote(sb, cmd_jstr(row, "def_qos"));
	}
	strbuf_adds(sb, "\n");
}

/* Slurm's order: each account that has children gets a Parent line,
 * then its users, then its sub-accounts; then the same for each of them. */
static void flat_children(struct strbuf *sb, const struct dump_index *d, long long id,
			  const char *name, int depth)
{
	size_t first = dump_first_child(d, id), end = first;
	while (end < d->n && d->by_parent[end].pid == id)
		end++;
	if (first == end || depth > 1000)
		return;
	strbuf_adds(sb, "Parent - ");
	flat_quote(sb, name);
	strbuf_adds(sb, "\n");
	for (size_t i = first; i < end; i++)
		flat_line(sb, d, d->by_parent[i].row);
	for (size_t i = first; i < end; i++)
		if (!*cmd_jstr(d->by_parent[i].row, "user"))
			flat_children(sb, d, d->by_parent[i].id, cmd_jstr(d->by_parent[i].row, "account"),
				      depth + 1);
}

static int do_dump(struct request *r)
{
	json_t *reply;
	if (call(r, false, NULL, &reply) < 0)
		return 1;
	const char *cl = cmd_jstr(reply, "cluster");
	json_t *rows = json_object_get(reply, "rows");
	struct strbuf sb = { 0 };
	struct dump_index d;
	dump_index_build(&d, rows);
	strbuf_adds(&sb, "# Herd sacctmgr dump: Slurm's flat file of the cluster's associations.\n"
			 "# One line per object: Cluster, then for each account with children a\n"
			 "# Parent line followed by its users and sub-accounts.  Options follow\n"
			 "# a ':' in any order; quoted values escape ' and \\ with a backslash.\n");
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
		if (!strcmp(cmd_jstr(row, "account"), "root") && !*cmd_jstr(row, "user") &&
		    !cmd_jint(row, "parent_id")) {
			strbuf_adds(&sb, "Cluster - ");
			flat_quote(&sb, cl);
			flat_limits(&sb, row, false);
			if (*cmd_jstr(row, "qos")) {
				strbuf_adds(&sb, ":QOS=");
				flat_quote(&sb, cmd_jstr(row, "qos"));
			}
			if (*cmd_jstr(row, "def_qos")) {
				strbuf_adds(&sb, ":DefaultQOS=");
				flat_quote(&sb, cmd_jstr(row, "def_qos"));
			}
			strbuf_adds(&sb, "\n");
			flat_children(&sb, &d, cmd_jint(row, "id"), "root", 0);
		}
	char *path = r->file ? xstrdup(r->file) : xasprintf("%s.cfg", cl);
	FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
	int rc = 0;
	if (!f) {
		fprintf(stderr, "sacctmgr: error: Can't open file %s: %s\n", path, strerror(errno));
		rc = 1;
	} else {
		fwrite(sb.s, 1, sb.len, f);
		if (f != stdout && fclose(f) != 0) {
			fprintf(stderr, "sacctmgr: error: Can't write file %s: %s\n", path, strerror(errno));
			rc = 1;
		}
		if (!rc && f != stdout && !o.quiet)
			printf("sacctmgr: Cluster %s dumped to %s\n", cl, path);
	}
	free(path);
	free(sb.s);
	free(d.by_id);
	free(d.by_parent);
	json_decref(reply);
	return rc;
}

/* A quoted or bare value at *p (bare: up to the next ':'); advances *p. */
static char *flat_value(const char **p)
{
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "");
	const char *s = *p;
	if (*s == '\'' || *s == '"') {
		char q = *s++;
		while (*s && *s != q) {
			if (*s == '\\' && s[1])
				s++;
			strbuf_add(&sb, s++, 1);
		}
		if (*s == q)
			s++;
	} else {
		while (*s && *s != ':' && *s != '\n')
			strbuf_add(&sb, s++, 1);
		while (sb.len && isspace((unsigned char)sb.s[sb.len - 1]))
			sb.s[--sb.len] = 0;
	}
	*p = s;
	return sb.s;
}

/* One line into {type, name, attrs}; NULL for a blank or comment line, or
 * (with *bad) a malformed one. */
static json_t *flat_parse_line(const char *line, bool *bad)
{
	const char *p = line;
	*bad = false;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return NULL;
	const char *dash = strstr(p, " - ");
	if (!dash) {
		*bad = true;
		return NULL;
	}
	char *type = xstrndup(p, dash - p);
	p = dash + 3;
	while (*p == ' ')
		p++;
	char *name = flat_value(&p);
	json_t *attrs = json_object();
	while (*p == ':') {
		p++;
		const char *eq = strchr(p, '=');
		if (!eq) {
			*bad = true;
			break;
		}
		char *key = xstrndup(p, eq - p);
		p = eq + 1;
		char *val = flat_value(&p);
		const struct key_def *k = key_find(key, strlen(key));
		if (!k) {
			json_object_set_new(attrs, key, json_string(val));   /* the controller names it */
		} else {
			put_value(attrs, k, val, 0);
		}
		free(key);
		free(val);
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		*bad = true;
	char *ltype = lower(type), *lname = lower(name);
	json_t *rec = json_pack("{s:s, s:s, s:o}", "type", ltype, "name", lname, "attrs", attrs);
	free(type);
	free(name);
	free(ltype);
	free(lname);
	return rec;
}

static int do_load(struct request *r)
{
	if (!r->file) {
		fprintf(stderr, "sacctmgr: error: No filename given (load file=FILE)\n");
		return 1;
	}
	FILE *f = fopen(r->file, "r");
	if (!f) {
		fprintf(stderr, "sacctmgr: error: Unable to read \"%s\": %s\n", r->file, strerror(errno));
		return 1;
	}
	json_t *records = json_array();
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 1;
	while (getline(&line, &cap, f) > 0) {
		bool bad;
		lineno++;
		json_t *rec = flat_parse_line(line, &bad);
		if (bad) {
			fprintf(stderr, "sacctmgr: error: %s line %d: not a flat file line: %s", r->file, lineno,
				line);
			json_decref(rec);
			goto out;
		}
		if (rec) {
			json_object_set_new(rec, "line", json_integer(lineno));
			json_array_append_new(records, rec);
		}
	}
	json_t *cl = json_object_get(r->where, "cluster") ? json_object_get(r->where, "cluster")
							   : json_object_get(r->set, "cluster");
	if (cl && json_array_size(records) &&
	    !strcmp(cmd_jstr(json_array_get(records, 0), "type"), "cluster"))
		/* load file=F cluster=other: the file's tree, for that cluster */
		json_object_set(json_array_get(records, 0), "name", cl);
	json_object_del(r->set, "cluster");
	json_object_del(r->where, "cluster");
	json_t *reply;
	if (call(r, !o.immediate, records, &reply) < 0)
		goto out;
	json_t *sum = json_object_get(reply, "loaded");
	bool any = false;
	static const struct {
		const char *key, *title;
	} parts[] = { { "clusters", " Adding Cluster(s)\n" }, { "accounts", " Adding Account(s)\n" },
		      { "users", " Adding User(s)\n" } };
	for (size_t i = 0; i < 3; i++) {
		json_t *a = json_object_get(sum, parts[i].key);
		if (json_array_size(a) && !o.quiet) {
			fputs(parts[i].title, stdout);
			print_strs(a);
		}
	}
	json_t *assocs = json_object_get(sum, "assocs");
	if (json_array_size(assocs) && !o.quiet) {
		size_t i;
		json_t *a;
		printf(" Associations\n");
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, false);
	}
	any = true;   /* a load also updates what exists: always a change to commit */
	json_decref(reply);
	if (!o.immediate && any) {
		if (!commit_check()) {
			printf(" Changes Discarded\n");
			rc = 0;
			goto out;
		}
		if (call(r, false, records, &reply) < 0)
			goto out;
		json_decref(reply);
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	json_decref(records);
	return rc;
}

/* ---- main ---- */

static int do_list(struct request *r)
{
	const struct col_def *defs = !strcmp(r->entity, "qos") ? qos_cols : cols;
	size_t ndefs = !strcmp(r->entity, "qos") ? sizeof(qos_cols) / sizeof(qos_cols[0])
						 : sizeof(cols) / sizeof(cols[0]);
	struct col *c;
	size_t nc;
	/* where keys of a list are its conditions, set ones too (Slurm takes both) */
	json_object_update(r->where, r->set);
	json_object_clear(r->set);
	if (cols_parse(defs, ndefs, r->format ? r->format : default_format(r), &c, &nc) < 0)
		return 1;
	/* tree: the account column left-justified so its indentation shows
	 * (20 wide unless format= gives a width) */
	if (r->tree)
		for (size_t i = 0; i < nc; i++)
			if (!strcmp(c[i].def->key, "account"))
				c[i].width = c[i].width == c[i].def->width ? -20
					     : c[i].width > 0 ? -c[i].width : c[i].width;
	json_t *reply;
	if (call(r, false, NULL, &reply) < 0) {
		free(c);
		return 1;
	}
	table_print(c, nc, json_object_get(reply, "rows"), r->tree);
	json_decref(reply);
	free(c);
	return 0;
}

static int do_change(struct request *r)
{
	json_t *reply;
	if (o.readonly) {
		fprintf(stderr, "sacctmgr: error: Can't run this command in readonly mode.\n");
		return 1;
	}
	if (call(r, !o.immediate, NULL, &reply) < 0)
		return 1;
	int nothing = r->op == OP_ADD ? report_add(r, reply)
		      : r->op == OP_MODIFY ? report_modify(r, reply) : report_delete(r, reply);
	json_decref(reply);
	if (nothing)
		return 1;
	if (!o.immediate) {
		if (!commit_check()) {
			printf(" Changes Discarded\n");
			return 0;
		}
		if (call(r, false, NULL, &reply) < 0)
			return 1;
		/* between the question and the answer someone else may have
		 * changed things: what the commit says wins */
		if (r->op == OP_DELETE && json_array_size(json_object_get(reply, "jobs_active"))) {
			report_delete(r, reply);
			json_decref(reply);
			return 1;
		}
		json_decref(reply);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: sacctmgr [OPTIONS] [COMMAND ENTITY SPECS]\n"
		"  -h, --help          this text\n"
		"  -i, --immediate     commit changes without asking\n"
		"  -n, --noheader      no header lines in lists\n"
		"  -p, --parsable      '|' after every field\n"
		"  -P, --parsable2     '|' between fields\n"
		"  -Q, --quiet         only errors\n"
		"  -r, --readonly      refuse changes\n"
		"  -s, --associations  lists show associations\n"
		"  -V, --version       version\n"
		"Commands: add|create, modify|update, delete|remove, list|show, dump, load\n"
		"Entities: account, association, cluster, coordinator, qos, tres, user\n"
		"  add account NAMES [Parent=P Description=D Organization=O Fairshare=N limits...]\n"
		"  add user NAMES Account=A [DefaultAccount=A AdminLevel=L Partition=P limits...]\n"
		"  modify ENTITY where CONDITIONS set VALUES\n"
		"  list ENTITY [CONDITIONS] [format=F1,F2%%20] [withassoc] [tree]\n"
		"  dump CLUSTER [file=F]    load file=F\n");
}

static const struct {
	const char *name;
	size_t min;
	enum op op;
} commands[] = {
	{ "add", 3, OP_ADD }, { "create", 2, OP_ADD }, { "modify", 1, OP_MODIFY },
	{ "update", 2, OP_MODIFY }, { "delete", 3, OP_DELETE }, { "remove", 3, OP_DELETE },
	{ "list", 3, OP_LIST }, { "show", 3, OP_LIST }, { "dump", 2, OP_DUMP }, { "load", 2, OP_LOAD },
};

/* One command: argv[0] the command word, then its words. */
static int run_command(int argc, char **argv)
{
	const char *cmd = argv[0];
	int rc = 1;
	struct request r = { 0 };
	r.format = xstrdup(opt_format);
	size_t clen = strlen(cmd), i;
	if (!strcasecmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcasecmp(cmd, "version")) {
		printf("%s\n", CMD_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (clen >= commands[i].min && clen <= strlen(commands[i].name) &&
		    !strncasecmp(commands[i].name, cmd, clen))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		fprintf(stderr, "sacctmgr: error: Invalid command: %s\n", cmd);
		return 1;
	}
	r.op = commands[i].op;
	/* options after the command words (sacctmgr list user -P): Slurm's
	 * getopt takes them anywhere */
	int n = 0;
	char **words = xmalloc((argc + 1) * sizeof(char *));
	for (int j = 1; j < argc; j++) {
		const char *w = argv[j];
		if (!strcmp(w, "-i") || !strcmp(w, "--immediate")) o.immediate = true;
		else if (!strcmp(w, "-n") || !strcmp(w, "--noheader")) o.noheader = true;
		else if (!strcmp(w, "-p") || !strcmp(w, "--parsable")) o.parsable = 1;
		else if (!strcmp(w, "-P") || !strcmp(w, "--parsable2")) o.parsable = 2;
		else if (!strcmp(w, "-Q") || !strcmp(w, "--quiet")) o.quiet = true;
		else if (!strcmp(w, "-s") || !strcmp(w, "--associations")) o.assocs = true;
		else if (!strncmp(w, "--format=", 9)) {
			free(r.format);
			r.format = xstrdup(w + 9);
		}
		else words[n++] = argv[j];
	}
	if (r.op == OP_DUMP) {
		r.entity = "cluster";
	} else if (r.op == OP_LOAD) {
		r.entity = "cluster";
	} else {
		if (!n) {
			fprintf(stderr, "sacctmgr: error: No entity given for %s\n", cmd);
			goto out;
		}
		r.entity = entity_find(words[0]);
		if (!r.entity) {
			fprintf(stderr, "sacctmgr: error: Unknown entity: %s\n", words[0]);
			goto out;
		}
		if (!strcmp(r.entity, "tres") && r.op != OP_LIST) {
			fprintf(stderr, "sacctmgr: error: TRES can only be listed\n");
			goto out;
		}
		if (!strcmp(r.entity, "association") && r.op != OP_LIST) {
			fprintf(stderr, "sacctmgr: error: Associations are changed through their user, "
					"account or cluster (modify user|account|cluster)\n");
			goto out;
		}
		memmove(words, words + 1, n * sizeof(char *));
		n--;
	}
	static const char *const known[] = { "account", "association", "cluster", "coordinator",
					     "qos", "tres", "user", NULL };
	for (i = 0; known[i] && strcmp(known[i], r.entity); i++)
		;
	if (!known[i]) {
		fprintf(stderr, "sacctmgr: error: %s is not supported by this sacctmgr\n", r.entity);
		goto out;
	}
	if (request_parse(&r, n, words) < 0)
		goto out;
	switch (r.op) {
	case OP_LIST: rc = do_list(&r); break;
	case OP_DUMP: rc = do_dump(&r); break;
	case OP_LOAD: rc = do_load(&r); break;
	default: rc = do_change(&r); break;
	}
out:
	free(words);
	json_decref(r.names);
	json_decref(r.where);
	json_decref(r.set);
	json_decref(r.options);
	free(r.format);
	free(r.file);
	return rc;
}

/* A line of commands split as a shell would split simple words: blanks
 * apart, quotes group and are removed, a backslash escapes. */
static char **line_words(const char *line, int *count)
{
	char **v = xmalloc(sizeof(char *));
	int n = 0;
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		struct strbuf w = { 0 };
		strbuf_adds(&w, "");
		char q = 0;
		for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')); p++) {
			if (q && *p == q)
				q = 0;
			else if (!q && (*p == '\'' || *p == '"'))
				q = *p;
			else if (*p == '\\' && p[1] && q != '\'')
				strbuf_add(&w, ++p, 1);
			else
				strbuf_add(&w, p, 1);
		}
		v = xrealloc(v, (n + 2) * sizeof(char *));
		v[n++] = w.s;
	}
	v[n] = NULL;
	*count = n;
	return v;
}

/* sacctmgr without a command: commands from stdin, one a line (a prompt
 * when it is a terminal), until end of input, quit or exit.  Read with
 * read(2), a byte at a time: the commit question reads the same input. */
static int interactive(void)
{
	bool tty = isatty(STDIN_FILENO);
	int status = 0;
	for (;;) {
		struct strbuf line = { 0 };
		char c;
		ssize_t got = 0;
		if (tty) {
			printf("sacctmgr: ");
			fflush(stdout);
		}
		strbuf_adds(&line, "");
		while ((got = read(STDIN_FILENO, &c, 1)) == 1 && c != '\n')
			strbuf_add(&line, &c, 1);
		int n;
		char **words = line_words(line.s, &n);
		free(line.s);
		bool quit = n && (!strcasecmp(words[0], "quit") || !strcasecmp(words[0], "exit"));
		if (n && !quit && run_command(n, words))
			status = 1;
		for (int i = 0; i < n; i++)
			free(words[i]);
		free(words);
		fflush(stdout);
		if (quit || got != 1)
			break;
	}
	if (tty)
		printf("\n");
	return status;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "associations", no_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
		{ "immediate", no_argument, NULL, 'i' },    { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },     { "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },        { "readonly", no_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },      { "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, 'h' },        { "format", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	/* '+': options only before the command, so a value like -1 after it
	 * is never taken for an option */
	while ((c = getopt_long(argc, argv, "+hinpPQrsvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'i': o.immediate = true; break;
		case 'n': o.noheader = true; break;
		case 'p': o.parsable = 1; break;
		case 'P': o.parsable = 2; break;
		case 'Q': o.quiet = true; break;
		case 'r': o.readonly = true; break;
		case 's': o.assocs = true; break;
		case 'v': break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'o':
			free(opt_format);
			opt_format = xstrdup(optarg);
			break;
		default: usage(stderr); return 1;
		}
	}
	rc = optind >= argc ? interactive() : run_command(argc - optind, argv + optind);
	free(opt_format);
	if (client_ready)
		cmd_client_fini(&client);
	return rc;
}
