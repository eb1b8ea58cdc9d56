/* sreport's output in Slurm's layout: the banner, the columns (fixed
 * width, truncated with '+'; or '|'-separated with -p/-P), and the format=
 * fields of the cluster and user reports.  What goes in the rows is the
 * reports' business (sreport.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/opt.h"
#include "cmd/sreport_print.h"
#include "common/xmalloc.h"

void sreport_put_cell(const struct sreport_opts *o, const char *v, int width, bool last)
{
	if (o->parsable != SREPORT_PARSABLE_NO) {
		fputs(v, stdout);
		if (!(last && o->parsable == SREPORT_PARSABLE_NO_END))
			putchar('|');
		return;
	}
	int w = abs(width);
	char buf[512];
	if ((int)strlen(v) > w && w > 1) {
		snprintf(buf, sizeof(buf), "%.*s", w, v);
		buf[w - 1] = '+';
		v = buf;
	}
	printf(width < 0 ? "%-*s " : "%*s ", w, v);
}

void sreport_put_header(const struct sreport_opts *o, const struct sreport_col *cols, size_t n)
{
	if (!o->header)
		return;
	for (size_t i = 0; i < n; i++) {
		if (o->parsable != SREPORT_PARSABLE_NO) {
			sreport_put_cell(o, cols[i].title, 0, i + 1 == n);
			continue;
		}
		int w = abs(cols[i].width);
		printf(cols[i].width < 0 ? "%-*.*s " : "%*.*s ", w, w, cols[i].title);
	}
	putchar('\n');
	if (o->parsable != SREPORT_PARSABLE_NO)
		return;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < abs(cols[i].width); k++)
			putchar('-');
		putchar(' ');
	}
	putchar('\n');
}

void sreport_put_banner(const struct sreport_opts *o, const char *title, const char *units_line)
{
	char a[32], b[32];
	struct tm tm;
	time_t start = o->start, end = o->end, last = end - 1;
	if (!o->header)
		return;
	strftime(a, sizeof(a), "%Y-%m-%dT%H:%M:%S", localtime_r(&start, &tm));
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", localtime_r(&last, &tm));
	printf("--------------------------------------------------------------------------------\n");
	printf("%s %s - %s (%lld secs)\n", title, a, b, (long long)(end - start));
	printf("%s\n", units_line);
	printf("--------------------------------------------------------------------------------\n");
}

/* ---- format=: the columns of the cluster and user reports ---- */

enum fk { FK_ACCOUNT, FK_ALLOC, FK_CLUSTER, FK_CPU_COUNT, FK_DOWN, FK_ENERGY, FK_IDLE, FK_LOGIN,
	  FK_OVER_COMM, FK_PLND_DOWN, FK_PROPER, FK_REPORTED, FK_RESERVED, FK_TRES_NAME, FK_USED,
	  FK_WCKEY };

struct sreport_field {
	const char *name;   /* what format= names, abbreviated to at least min letters */
	size_t min;
	const char *title;
	enum fk kind;
};

/* In Slurm's order of matching (the first a name abbreviates wins). */
static const struct sreport_field cluster_fields[] = {
	{ "Accounts", 2, "Account", FK_ACCOUNT }, { "Allocated", 2, "Allocated", FK_ALLOC },
	{ "Cluster", 2, "Cluster", FK_CLUSTER }, { "CPUCount", 2, "CPU count", FK_CPU_COUNT },
	{ "Down", 1, "Down", FK_DOWN }, { "Idle", 1, "Idle", FK_IDLE },
	{ "Login", 1, "Login", FK_LOGIN }, { "OverCommitted", 1, "Over Comm", FK_OVER_COMM },
	{ "PlannedDown", 2, "PLND Down", FK_PLND_DOWN }, { "Proper", 2, "Proper Name", FK_PROPER },
	{ "Reported", 3, "Reported", FK_REPORTED }, { "Reserved", 3, "Reserved", FK_RESERVED },
	{ "TresName", 5, "TRES Name", FK_TRES_NAME }, { "Used", 1, "Used", FK_USED },
	{ "Energy", 1, "Energy", FK_ENERGY }, { "WCKeys", 1, "WCKey", FK_WCKEY },
	{ NULL, 0, NULL, 0 },
};
static const struct sreport_field user_fields[] = {
	{ "Accounts", 1, "Account", FK_ACCOUNT }, { "Cluster", 1, "Cluster", FK_CLUSTER },
	{ "Energy", 1, "Energy", FK_ENERGY }, { "Login", 1, "Login", FK_LOGIN },
	{ "Proper", 1, "Proper Name", FK_PROPER }, { "TresName", 5, "TRES Name", FK_TRES_NAME },
	{ "Used", 1, "Used", FK_USED }, { NULL, 0, NULL, 0 },
};

size_t sreport_pick_fields(enum sreport_fields which, const char *spec, struct sreport_pick *out,
			   size_t max, bool *bad)
{
	const struct sreport_field *defs = which == SREPORT_USER_FIELDS ? user_fields : cluster_fields;
	size_t n = 0, count;
	char **names = opt_split(spec, ',', &count);
	for (size_t i = 0; i < count && n < max; i++) {
		char *pct = strchr(names[i], '%');
		int width = 0;
		if (pct) {
			*pct = '\0';
			width = atoi(pct + 1);
		}
		size_t len = strlen(names[i]);
		const struct sreport_field *f;
		for (f = defs; f->name; f++)
			if (len >= f->min && len <= strlen(f->name) && !strncasecmp(f->name, names[i], len))
				break;
		if (!f->name) {
			fprintf(stderr, " Unknown field '%s'\n", names[i]);
			*bad = true;
			continue;
		}
		out[n++] = (struct sreport_pick){ f, width };
	}
	opt_strv_free(names);
	return n;
}

static bool fk_is_time(enum fk k)
{
	switch (k) {
	case FK_ALLOC: case FK_DOWN: case FK_ENERGY: case FK_IDLE: case FK_OVER_COMM:
	case FK_PLND_DOWN: case FK_REPORTED: case FK_RESERVED: case FK_USED:
		return true;
	default:
		return false;
	}
}

/* A time figure of a row (what Herd does not keep, energy, planned down
 * time, reservations, over-commit, is 0). */
static long long fk_secs(enum fk k, const struct sreport_row *r)
{
	switch (k) {
	case FK_ALLOC: return r->alloc;
	case FK_DOWN: return r->down;
	case FK_IDLE: return r->idle;
	case FK_REPORTED: return r->reported;
	case FK_USED: return r->used;
	default: return 0;
	}
}

void sreport_print_rows(const struct sreport_opts *o, const struct sreport_pick *picks, size_t n,
			const struct sreport_row *rows, size_t nrows, long long total, bool tree)
{
	enum time_fmt tf = o->tf;
	struct sreport_col *cols = xmalloc((n + 1) * sizeof(*cols));
	for (size_t i = 0; i < n; i++) {
		enum fk k = picks[i].def->kind;
		int w;
		if (fk_is_time(k)) {
			long long max = 0;
			for (size_t r = 0; r < nrows; r++)
				if (fk_secs(k, &rows[r]) > max)
					max = fk_secs(k, &rows[r]);
			w = sreport_usage_width(max, tf);
		} else {
			w = k == FK_ACCOUNT ? (tree ? -20 : 15) : k == FK_PROPER || k == FK_WCKEY ? 15
			    : k == FK_TRES_NAME ? 14 : 9;
		}
		cols[i] = (struct sreport_col){ picks[i].def->title, picks[i].width ? picks[i].width : w };
	}
	sreport_put_header(o, cols, n);
	for (size_t r = 0; r < nrows; r++) {
		char buf[64];
		for (size_t i = 0; i < n; i++) {
			enum fk k = picks[i].def->kind;
			const char *v = "";
			if (fk_is_time(k))
				v = sreport_time_value(fk_secs(k, &rows[r]), total, tf, buf, sizeof(buf));
			else if (k == FK_CLUSTER)
				v = rows[r].cluster;
			else if (k == FK_ACCOUNT || k == FK_WCKEY)
				v = rows[r].account;   /* the wckey reports' rows name it there */
			else if (k == FK_LOGIN)
				v = rows[r].login;
			else if (k == FK_PROPER)
				v = rows[r].proper;
			else if (k == FK_TRES_NAME)
				v = o->tres == SREPORT_TRES_GPU ? "gres/gpu" : "cpu";
			else if (k == FK_CPU_COUNT)
				snprintf(buf, sizeof(buf), "%lld", rows[r].cpus), v = buf;
			sreport_put_cell(o, v ? v : "", cols[i].width, i + 1 == n);
		}
		putchar('\n');
	}
	free(cols);
}
