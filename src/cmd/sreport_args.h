/* sreport's report arguments (sreport_args.c): the key=value words after
 * ENTITY REPORT (start= end= users= accounts= clusters= format= TopCount=
 * grouping=, tree, FlatView), with the options (-t -p -P -n -T) and the
 * window, in one struct. */
#ifndef HERD_CMD_SREPORT_ARGS_H
#define HERD_CMD_SREPORT_ARGS_H
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "cmd/sreport_calc.h"

enum sreport_parsable { SREPORT_PARSABLE_NO, SREPORT_PARSABLE_END, SREPORT_PARSABLE_NO_END };

struct sreport_opts {
	enum time_fmt tf;
	enum sreport_parsable parsable;   /* -p: '|' after each cell; -P: between */
	bool header;                 /* not -n */
	bool tres_named;             /* -T cpu: a "TRES Name" column, as Slurm adds */
	enum sreport_tres tres;      /* -T gres/gpu: GPU time instead of CPU time */
	bool start_given, end_given, tree, flat;
	time_t start_in, end_in, start, end, now;
	char **users, **accounts, **clusters;
	char **wckeys;               /* wckeys= (lower case) */
	char *format;                /* format=, NULL: the report's own columns */
	long top_count;
	long groups[16];
	size_t ngroups;
};

/* Does word abbreviate name (at least min letters, case-insensitive)? */
bool sreport_word_is(const char *word, const char *name, size_t min);
/* The words after the report's name into o; -1 after Slurm's message. */
int sreport_args_parse(int argc, char **argv, struct sreport_opts *o);

#endif
