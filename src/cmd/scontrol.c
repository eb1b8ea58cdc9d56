/* scontrol: show jobs, nodes and partitions in Slurm's KEY=VALUE layout
 * (one record per paragraph, or one line with -o), hold/uhold/release jobs,
 * ping the controller, and expand/compress hostlists (no controller needed).
 * This file reads the options and the command words and finds the command in
 * one table; the commands live in scontrol_*.c (scontrol.h says which). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/scontrol.h"
#include "cmd/scontrol_resv.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: scontrol [-o] [-Q] [-v] [-V] [COMMAND]\n");
}

static void help(void)
{
	printf("scontrol [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -h or --help: equivalent to \"help\" command\n"
	       "     -o or --oneliner: equivalent to \"oneliner\" command\n"
	       "     -Q or --quiet: equivalent to \"quiet\" command\n"
	       "     -v or --verbose: equivalent to \"verbose\" command\n"
	       "     -V or --version: equivalent to \"version\" command\n\n"
	       "    Valid <COMMAND> values are:\n"
	       "     create <SPECIFICATIONS>  create a new reservation\n"
	       "     delete <SPECIFICATIONS>  delete the specified reservation\n"
	       "     hold <job_list>          prevent specified job from starting\n"
	       "     ping                     print status of slurmctld daemons\n"
	       "     reconfigure              re-read the configuration file (all daemons)\n"
	       "     release <job_list>       permit specified job to start\n"
	       "     requeue <job_id>         re-queue a batch job\n"
	       "     requeuehold <job_id>     re-queue and hold a batch job\n"
	       "     resume <job_list>        resume previously suspended job (see suspend)\n"
	       "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
	       "                              is all records; ENTITY is job, step,\n"
	       "                              node, partition, hostnames, hostlist or\n"
	       "                              hostlistsorted\n"
	       "     suspend <job_list>       suspend specified job (see resume)\n"
	       "     token [username=<user>] [lifespan=<seconds>]\n"
	       "                              get a JSON Web Token (AuthAltTypes=auth/jwt)\n"
	       "     uhold <job_list>         place user hold on specified job\n"
	       "     update <SPECIFICATIONS>  update job or node configuration\n"
	       "     version                  display tool version number\n");
}

struct command;
typedef int command_f(struct scontrol *sc, const struct command *cmd, int argc, char **argv);

/* What a command needs after its name. */
enum command_args {
	ARGS_ANY,            /* nothing, or what the command itself checks */
	ARGS_ENTITY,         /* an entity or ID: "too few arguments for keyword:NAME" */
	ARGS_ENTITY_TYPED,   /* the same, naming the word as typed (as create, delete did) */
};

/* One scontrol command: its name, the fewest of its letters taken, what runs
 * it (argv: the words after the name), and whether it needs an entity.
 * Slurm's manual takes any unambiguous prefix of a command; Herd takes the
 * abbreviations scripts use (sho, cr, del, rec) and the rest in full. */
struct command {
	const char *name;
	size_t min;
	command_f *run;
	enum command_args args;
};

static int run_show(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_show(sc, argc, argv);
}

/* hold ... resume: the command's name is the action sent. */
static int run_job_action(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_job_action(sc, cmd->name, argc, argv);
}

static int run_update(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_update(sc, argc, argv);
}

/* create|delete: reservations only (partitions are herd.conf's) */
static int run_create(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	if (scontrol_client(sc) < 0)
		return 1;
	return scontrol_resv_run(&sc->client, RESV_OP_CREATE, argc, argv);
}

static int run_delete(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	if (scontrol_client(sc) < 0)
		return 1;
	return scontrol_resv_run(&sc->client, RESV_OP_DELETE, argc, argv);
}

static int run_ping(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_ping(sc);
}

static int run_reconfigure(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_reconfigure(sc, argc);
}

static int run_token(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	return scontrol_token(sc, argc, argv);
}

static int run_version(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	printf("%s\n", CMD_VERSION);
	return 0;
}

static int run_help(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	help();
	return 0;
}

static int run_oneliner(struct scontrol *sc, const struct command *cmd, int argc, char **argv)
{
	sc->oneliner = true;
	return 0;
}

/* In the order they are tried. */
static const struct command commands[] = {
	{ "show", 3, run_show, ARGS_ENTITY },
	{ "hold", 4, run_job_action, ARGS_ENTITY },
	{ "uhold", 5, run_job_action, ARGS_ENTITY },
	{ "release", 7, run_job_action, ARGS_ENTITY },
	{ "requeue", 7, run_job_action, ARGS_ENTITY },
	{ "requeuehold", 11, run_job_action, ARGS_ENTITY },
	{ "suspend", 7, run_job_action, ARGS_ENTITY },
	{ "resume", 6, run_job_action, ARGS_ENTITY },
	{ "update", 6, run_update, ARGS_ENTITY },
	{ "create", 2, run_create, ARGS_ENTITY_TYPED },
	{ "delete", 3, run_delete, ARGS_ENTITY_TYPED },
	{ "ping", 4, run_ping, ARGS_ANY },
	{ "reconfigure", 3, run_reconfigure, ARGS_ANY },
	{ "token", 5, run_token, ARGS_ANY },
	{ "version", 7, run_version, ARGS_ANY },
	{ "help", 4, run_help, ARGS_ANY },
	{ "oneliner", 8, run_oneliner, ARGS_ANY },
};

static int run_command(struct scontrol *sc, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];
		if (!scontrol_is_word(argv[0], cmd->name, cmd->min))
			continue;
		if (cmd->args != ARGS_ANY && argc < 2) {
			fprintf(stderr, "too few arguments for keyword:%s\n",
				cmd->args == ARGS_ENTITY_TYPED ? argv[0] : cmd->name);
			return 1;
		}
		return cmd->run(sc, cmd, argc - 1, argv + 1);
	}
	fprintf(stderr, "invalid keyword: %s\n", argv[0]);
	return 1;
}

/* No command: read commands from stdin as Slurm's scontrol does, until
 * EOF, "quit" or "exit". */
static int interactive(struct scontrol *sc)
{
	char *line = NULL;
	size_t cap = 0;
	int status = 0;

	for (;;) {
		printf("scontrol: ");
		fflush(stdout);
		if (getline(&line, &cap, stdin) < 0)
			break;
		size_t n;
		char *p = line;
		for (char *q = p; *q; q++)
			if (*q == '\t' || *q == '\n' || *q == '\r')
				*q = ' ';
		char **words = opt_split(p, ' ', &n);
		if (n && (!strcasecmp(words[0], "quit") || !strcasecmp(words[0], "exit"))) {
			opt_strv_free(words);
			break;
		}
		if (n && run_command(sc, (int)n, words))
			status = 1;   /* an error anywhere is the exit code, as in Slurm */
		opt_strv_free(words);
	}
	free(line);
	return status;
}

enum { OPT_USAGE = 256 };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "oneliner", no_argument, NULL, 'o' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "details", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	struct scontrol sc = { 0 };
	int c, status = 1;

	argv[0] = "scontrol";
	/* '+': options stop at the command, so "show job -o" is not reordered. */
	while ((c = getopt_long(argc, argv, "+M:odQvVh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'M': sc.clusters = optarg; break;
		case 'o': sc.oneliner = true; break;
		case 'd': sc.details++; break;
		case 'v': break;
		case 'Q': sc.quiet = true; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'h': help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"scontrol --help\" for more information\n");
			return 1;
		}
	}
	if (optind >= argc) {
		status = interactive(&sc);
	} else {
		status = run_command(&sc, argc - optind, argv + optind);
	}
	if (sc.client_ok)
		cmd_client_fini(&sc.client);
	return status;
}
