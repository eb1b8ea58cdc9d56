/* Slurm's flat file of a cluster's associations (sacctmgr dump and
 * load, sacctmgr(1) "FLAT FILE DUMP AND LOAD"): written from the rows
 * the controller lists.  Read back line by line by flat_parse.c.  Pure:
 * no I/O. */
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

/* A value as the file holds it: in single quotes, a quote or backslash
 * inside escaped with a backslash, a control character as \n, \r, \t or
 * \xHH (Slurm has no escape; ours lets any name round-trip and keeps each
 * object on one line, even for a value stored before the controller
 * refused control characters). */
static void flat_quote(struct strbuf *sb, const char *v)
{
	strbuf_adds(sb, "'");
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		char esc[8];
		if (*p == '\'' || *p == '\\') {
			strbuf_adds(sb, "\\");
			strbuf_add(sb, (const char *)p, 1);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), *p == '\n' ? "\\n" : *p == '\r' ? "\\r"
				 : *p == '\t' ? "\\t" : "\\x%02x", *p);
			strbuf_adds(sb, esc);
		} else {
			strbuf_add(sb, (const char *)p, 1);
		}
	}
	strbuf_adds(sb, "'");
}

/* An association's settings in Slurm's order (DefaultQOS, Fairshare,
 * the Grp then the Max limits, QOS); qos NULL when inherited. */
static void flat_limits(struct strbuf *sb, const json_t *row, const char *qos)
{
	static const struct {
		const char *key, *name;
		enum render how;
	} lim[] = {
		{ "grp_tres_mins", "GrpTRESMins", R_TRES }, { "grp_tres", "GrpTRES", R_TRES },
		{ "grp_jobs", "GrpJobs", R_INT }, { "grp_submit", "GrpSubmitJobs", R_INT },
		{ "grp_wall", "GrpWall", R_INT }, { "max_tres_mins", "MaxTRESMinsPerJob", R_TRES },
		{ "max_tres", "MaxTRESPerJob", R_TRES }, { "max_tres_per_node", "MaxTRESPerNode", R_TRES },
		{ "max_jobs", "MaxJobs", R_INT }, { "max_submit", "MaxSubmitJobs", R_INT },
		{ "max_wall", "MaxWallDurationPerJob", R_INT },
	};
	if (*cmd_jstr(row, "def_qos")) {
		strbuf_adds(sb, ":DefaultQOS=");
		flat_quote(sb, cmd_jstr(row, "def_qos"));
	}
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
	if (qos) {
		strbuf_adds(sb, ":QOS=");
		flat_quote(sb, qos);
	}
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

static void flat_list(struct strbuf *sb, const char *name, const json_t *row, const char *key)
{
	if (!json_array_size(json_object_get(row, key)))
		return;
	char *list = print_cell_value(&(struct col_def){ "", 0, "", key, R_LIST, NULL }, row);
	strbuf_adds(sb, name);
	flat_quote(sb, list);
	free(list);
}

/* Slurm's lines: User - 'u':Partition:DefaultAccount:DefaultWCKey:
 * AdminLevel:WCKeys:Coordinator (the accounts it coordinates), Account - 'a':Description:
 * Organization (and Herd's Flags), then the association's settings. */
static void flat_line(struct strbuf *sb, const struct dump_index *d, const json_t *row)
{
	const char *user = cmd_jstr(row, "user");
	if (*user) {
		strbuf_adds(sb, "User - ");
		flat_quote(sb, user);
		if (*cmd_jstr(row, "partition")) {
			strbuf_adds(sb, ":Partition=");
			flat_quote(sb, cmd_jstr(row, "partition"));
		}
		strbuf_adds(sb, ":DefaultAccount=");
		flat_quote(sb, cmd_jstr(row, "default_account"));
		if (*cmd_jstr(row, "default_wckey")) {
			strbuf_adds(sb, ":DefaultWCKey=");
			flat_quote(sb, cmd_jstr(row, "default_wckey"));
		}
		if (strcmp(cmd_jstr(row, "admin"), "None")) {
			strbuf_adds(sb, ":AdminLevel=");
			flat_quote(sb, cmd_jstr(row, "admin"));
		}
		flat_list(sb, ":WCKeys=", row, "wckeys");
		flat_list(sb, ":Coordinator=", row, "coord_accounts");
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
	}
	flat_limits(sb, row, row_qos_own(d, row));
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

char *flat_dump(const char *cluster, const json_t *rows)
{
	struct strbuf sb = { 0 };
	struct dump_index d;
	dump_index_build(&d, rows);
	strbuf_adds(&sb, "# Herd sacctmgr dump: Slurm's flat file of the cluster's associations.\n"
			 "# One line per object: Cluster, then for each account with children a\n"
			 "# Parent line followed by its users and sub-accounts.  Options follow\n"
			 "# a ':' in any order; quoted values escape ' and \\ with a backslash,\n"
			 "# control characters as \\n, \\r, \\t or \\xHH.\n");
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
		if (!strcmp(cmd_jstr(row, "account"), "root") && !*cmd_jstr(row, "user") &&
		    !cmd_jint(row, "parent_id")) {
			strbuf_adds(&sb, "Cluster - ");
			flat_quote(&sb, cluster);
			flat_limits(&sb, row, *cmd_jstr(row, "qos") ? cmd_jstr(row, "qos") : NULL);
			strbuf_adds(&sb, "\n");
			flat_children(&sb, &d, cmd_jint(row, "id"), "root", 0);
		}
	free(d.by_id);
	free(d.by_parent);
	return sb.s;
}
