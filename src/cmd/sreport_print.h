/* sreport's output (sreport_print.c): Slurm's banner and columns, plain or
 * '|'-separated (-p/-P), headers unless -n, and the format= fields of the
 * cluster and user reports. */
#ifndef HERD_CMD_SREPORT_PRINT_H
#define HERD_CMD_SREPORT_PRINT_H
#include <stdbool.h>
#include <stddef.h>
#include "cmd/sreport_args.h"

struct sreport_col {
	const char *title;
	int width;   /* negative: left-aligned */
};

/* One cell of a row (last: the row's last, for -P); a value wider than its
 * column is cut, its last letter '+'. */
void sreport_put_cell(const struct sreport_opts *o, const char *v, int width, bool last);
/* The titles and a line of dashes under each, unless -n. */
void sreport_put_header(const struct sreport_opts *o, const struct sreport_col *cols, size_t n);
/* The lines above a report naming it, its window and units, unless -n. */
void sreport_put_banner(const struct sreport_opts *o, const char *title, const char *units_line);

/* format=: which report's fields a name may pick. */
enum sreport_fields { SREPORT_CLUSTER_FIELDS, SREPORT_USER_FIELDS };

struct sreport_field;
struct sreport_pick {
	const struct sreport_field *def;
	int width;   /* from "Name%N", 0: the column's own */
};

/* One row of a cluster or user report. */
struct sreport_row {
	const char *cluster, *account, *login, *proper;
	long long used, alloc, down, idle, reported, cpus;
};

/* "Cluster,Used%12" into picks (at most max).  A name no field has is
 * reported as Slurm does (" Unknown field 'x'") and *bad set; the rest go on. */
size_t sreport_pick_fields(enum sreport_fields which, const char *spec, struct sreport_pick *out,
			   size_t max, bool *bad);
/* The picked columns of rows: header (unless -n), then a line each.  Time
 * columns are as wide as their largest figure needs; percentages are of
 * total; tree: the account column left-aligned and wider, for indenting. */
void sreport_print_rows(const struct sreport_opts *o, const struct sreport_pick *picks, size_t n,
			const struct sreport_row *rows, size_t nrows, long long total, bool tree);

#endif
