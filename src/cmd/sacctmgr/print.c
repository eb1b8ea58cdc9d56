/* sacctmgr's lists as Slurm's print_fields draws them: the columns of
 * each entity (titles, widths, the names format= knows), Slurm 22.05's
 * default columns, cells cut and justified, -p/-P/-n.  Pure but for the
 * table going to stdout. */
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
	{ "GrpTRESRunMins", 13, "grptresrunmins", "", R_FIXED, NULL },
	{ "Par Name", 10, "parentname,parent", "parent_name", R_STR, NULL },
	{ "ID", 6, "id", "id", R_INT, NULL },
	{ "Par ID", 6, "parentid", "parent_id", R_INT, NULL },
	{ "GrpNodes", 8, "grpnodes", "grp_tres", R_TRES1, "node" },
	{ "GrpCPUs", 8, "grpcpus", "grp_tres", R_TRES1, "cpu" },
	{ "GrpMem", 7, "grpmem,grpmemory", "grp_tres", R_TRES1, "mem" },
	{ "GrpCPUMins", 11, "grpcpumins", "grp_tres_mins", R_TRES1, "cpu" },
	{ "MaxNodes", 8, "maxnodes,maxnodesperjob", "max_tres", R_TRES1, "node" },
	{ "MaxCPUs", 8, "maxcpus,maxcpusperjob", "max_tres", R_TRES1, "cpu" },
	{ "MaxCPUMins", 11, "maxcpumins,maxcpuminsperjob", "max_tres_mins", R_TRES1, "cpu" },
	{ "Descr", 20, "description", "descr", R_STR, NULL },
	{ "Org", 20, "organization", "org", R_STR, NULL },
	{ "Flags", 20, "flags", "flags", R_STR, NULL },
	{ "Coord Accounts", 20, "coordinators", "coordinators", R_LIST, NULL },
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
	{ "GrpTRESRunMins", 13, "grptresrunmins", "", R_FIXED, NULL },
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

/* wckeys' columns (Slurm 22.05's sacctmgr list wckeys: Name is WCKey) */
static const struct col_def wckey_cols[] = {
	{ "WCKey", 10, "wckey,name", "wckey", R_STR, NULL },
	{ "Cluster", 10, "cluster", "cluster", R_STR, NULL },
	{ "User", 10, "user", "user", R_STR, NULL },
	{ "ID", 6, "id", "id", R_INT, NULL },
};

static const struct col_def *col_find(const struct col_def *defs, size_t n, const char *name)
{
	size_t len = strlen(name);
	/* exact title or alias first, then a prefix of an alias */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			char *title = text_lower(defs[i].title);
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
						: len >= 1 && !strncasecmp(*p, name, len);
			opt_strv_free(v);
			if (hit)
				return &defs[i];
		}
	return NULL;
}

/* "Account,User%20,Share%-8" into columns; -1 naming the bad field. */
int print_cols_parse(const struct col_def *defs, size_t n, const char *spec, struct col **out,
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
void print_wall(long long minutes, char *buf, size_t len)
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

char *print_cell_value(const struct col_def *d, const json_t *row)
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
		print_wall(json_integer_value(v), buf, sizeof(buf));
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

static void cell_print(struct strbuf *out, const char *value, int width, bool last);

size_t print_utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* A header cell: Slurm cuts a title to its width without the '+'
 * (the full title in -p/-P). */
static void header_print(struct strbuf *out, const char *title, int width, bool last)
{
	int w = width < 0 ? -width : width;
	if (opts.parsable || (int)strlen(title) <= w) {
		cell_print(out, title, width, last);
		return;
	}
	char *cut = xstrndup(title, print_utf8_cut(title, w));
	char *cell = xasprintf(width < 0 ? "%-*s " : "%*s ", w, cut);
	strbuf_adds(out, cell);
	free(cell);
	free(cut);
}

/* One cell as Slurm's print_fields does: parsable "v|", else cut to the
 * width (its last character a '+' when cut), right-justified for a
 * positive width, left for a negative one, and a space after. */
static void cell_print(struct strbuf *out, const char *value, int width, bool last)
{
	if (opts.parsable) {
		strbuf_adds(out, value);
		if (!(last && opts.parsable == 2))
			strbuf_adds(out, "|");
		return;
	}
	int w = width < 0 ? -width : width;
	char *v = xstrdup(value);
	if ((int)strlen(v) > w && w > 0) {
		/* cut where a character ends (Slurm cuts bytes, which can leave
		 * half of a UTF-8 character) */
		size_t k = print_utf8_cut(v, w - 1);
		v[k] = '+';
		v[k + 1] = 0;
	}
	char *cell = xasprintf(width < 0 ? "%-*s " : "%*s ", w, v);
	strbuf_adds(out, cell);
	free(cell);
	free(v);
}

void print_table(const struct col *c, size_t nc, const json_t *rows, bool tree)
{
	struct strbuf out = { 0 };
	strbuf_adds(&out, "");
	if (!opts.noheader) {
		for (size_t i = 0; i < nc; i++)
			header_print(&out, c[i].def->title, c[i].width, i + 1 == nc);
		strbuf_adds(&out, "\n");
		if (!opts.parsable) {
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
			char *v = print_cell_value(c[i].def, row);
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
/* users: Slurm puts the coordinators' column before the associations' */
#define USER_ASSOC_TAIL ",Cluster,Account,Partition,Share,Priority," \
	"MaxJobs,MaxNodes,MaxCPUs,MaxSubmit,MaxWall,MaxCPUMins,QOS,DefaultQOS"
#define USER_ASSOC_COLS "User,DefaultAccount,Admin" USER_ASSOC_TAIL
const char *print_default_format(const struct request *r)
{
	bool wa = r->withassoc || opts.assocs;
	static const char *const formats[2][2][2] = {
		/* account: [withassoc][withcoord] */
		{ { "Account,Descr,Org", "Account,Descr,Org,Coordinators" },
		  { ACCT_ASSOC_COLS, ACCT_ASSOC_COLS ",Coordinators" } },
		/* user */
		{ { "User,DefaultAccount,Admin", "User,DefaultAccount,Admin,CoordinatorAccounts" },
		  { USER_ASSOC_COLS, "User,DefaultAccount,Admin,CoordinatorAccounts"
				     USER_ASSOC_TAIL } },
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
	if (!strcmp(r->entity, "wckey"))
		return "WCKey,Cluster,User";
	return "";
}


const struct col_def *print_columns(const char *entity, size_t *n)
{
	if (!strcmp(entity, "qos")) {
		*n = sizeof(qos_cols) / sizeof(qos_cols[0]);
		return qos_cols;
	}
	if (!strcmp(entity, "wckey")) {
		*n = sizeof(wckey_cols) / sizeof(wckey_cols[0]);
		return wckey_cols;
	}
	*n = sizeof(cols) / sizeof(cols[0]);
	return cols;
}
