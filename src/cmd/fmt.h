/* Output formats of the user commands: Slurm's "%[.][#]N<letter>" field specs
 * (squeue -o, sinfo -o) and the cells they render.  Pure: no I/O, no clock;
 * what a letter means is the command's business (a value callback). */
#ifndef HERD_CMD_FMT_H
#define HERD_CMD_FMT_H
#include <stdbool.h>
#include <stddef.h>

struct fmt_item {
	char letter;      /* field letter; 0 for literal text */
	int width;        /* 0 = as wide as the value */
	bool right;       /* '.': right-justify */
	bool fit;         /* '#' (sinfo): width is fitted to the data by the command */
	char *text;       /* literal text (letter == 0) */
};

struct fmt {
	struct fmt_item *items;
	size_t count;
	char bad;         /* first letter not in the allowed set (0 = none); kept as literal */
};

struct fmt_title {
	char letter;
	const char *title;
};

/* Parse spec ("%.18i %.9P %8j", "%%" is a literal '%').  letters: the
 * accepted field letters; any other is kept as literal text (as Slurm does)
 * and reported in fmt->bad.  Never fails. */
struct fmt *fmt_parse(const char *spec, const char *letters);
void fmt_destroy(struct fmt *f);

/* Value of a field for one row; buf is scratch space the function may fill
 * and return.  Never returns NULL (use ""). */
typedef const char *(*fmt_value_f)(char letter, const void *row, char *buf, size_t len);

/* One cell: the value cut to width (Slurm truncates when a width is given),
 * then padded on the left (right) or right (left).  width 0 = whole value.
 * Appends to *line (malloc'd string, may be NULL). */
void fmt_cell(char **line, const char *value, int width, bool right);

/* Render one row (or, with value NULL, the header from titles; a letter
 * without a title renders as its letter).  Caller frees. */
char *fmt_line(const struct fmt *f, fmt_value_f value, const void *row,
	       const struct fmt_title *titles);

/* Widen every '#' item to its longest value over rows, and its title, and
 * at least min_width. */
void fmt_fit(struct fmt *f, fmt_value_f value, const void *const *rows, size_t nrows,
	     const struct fmt_title *titles, int min_width);

const char *fmt_title_of(const struct fmt_title *titles, char letter);

/* A long field name (squeue/sinfo -O) and the letter it stands for. */
struct fmt_name {
	const char *name;
	char letter;
};

/* Translate a -O spec into a -o spec: "JobID,Name:.10,State:|" ->
 * "%20A%.10j%0T|".  Names are case-insensitive; names ends with a NULL
 * name.  A field is 20 wide unless told (":" alone: as wide as its value),
 * left-justified unless '.', and what follows the width is literal text
 * after it.  NULL with *bad (caller frees) naming the first unknown field. */
char *fmt_from_names(const char *spec, const struct fmt_name *names, char **bad);

/* Print a table as squeue and sinfo do: with long_form a date line first
 * ("Sun Nov 29 10:09:36 2026"), then the header line when header is true,
 * then one line per row. */
void fmt_print_table(const struct fmt *f, fmt_value_f value, const void *const *rows,
		     size_t nrows, const struct fmt_title *titles, bool header, bool long_form);

#endif
