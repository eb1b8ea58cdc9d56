/* `herd`: the operator's tool.  Dispatches to its subcommands; each lives in
 * its own file (up.c, down.c). */
#include <stdio.h>
#include <string.h>
#include "herd/herd.h"
#include "herd/sim.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{"up", herd_up_main, "start a cluster on this machine"},
	{"down", herd_down_main, "stop a cluster that `herd up` started"},
	{"sim", herd_sim_main, "replay a workload trace (SWF) through the scheduler in virtual time"},
};

static void usage(FILE *f)
{
	fputs("Usage: herd COMMAND [OPTIONS]\n", f);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-5s %s\n", subcommands[i].name, subcommands[i].help);
	fputs("Run `herd COMMAND --help` for its options.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "herd: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
