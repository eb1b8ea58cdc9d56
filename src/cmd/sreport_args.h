/* sreport's report arguments (sreport_args.c): the key=value words after
 * ENTITY REPORT (start= end= users= accounts= clusters= format= TopCount=
 * grouping=, tree, FlatView), with -t and the window, in one struct. */
#ifndef HERD_CMD_SREPORT_ARGS_H
#define HERD_CMD_SREPORT_ARGS_H
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "cmd/sreport_calc.h"

struct sreport_opts {
	enum time_fmt tf;
	bool start_given, end_given, tree, flat;
	time_t start_in, end_in, start, end, now;
	char **users, **accounts, **clusters;
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
