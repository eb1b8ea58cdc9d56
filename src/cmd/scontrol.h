/* scontrol's pieces and what they share: the state of one run (options,
 * the controller connection made on first need) and each concern's
 * commands, which the dispatch table in scontrol.c calls.  Each returns the
 * exit status (0 or 1) after printing Slurm's messages.
 *   scontrol_show.c    show job|step|node|partition|config|reservation
 *   scontrol_update.c  update, and hold|uhold|release|requeue|suspend|resume
 *   scontrol_misc.c    the connection, ping, reconfigure, token, hostnames
 *   scontrol_resv.c    create|update|delete|show reservation */
#ifndef HERD_CMD_SCONTROL_H
#define HERD_CMD_SCONTROL_H
#include <stdbool.h>
#include <stddef.h>
#include "cmd/opt.h"

struct scontrol {
	bool oneliner;
	int details;                /* -d */
	bool quiet;
	const char *clusters;       /* -M: the cluster to act on */
	struct cmd_client client;
	bool client_ok;
};

/* Connect on first need; -1 after "scontrol: error: ..." on stderr. */
int scontrol_client(struct scontrol *sc);
/* Does arg abbreviate word: at least min letters, case-insensitive?  Slurm
 * accepts any unambiguous prefix of a command or entity name. */
bool scontrol_is_word(const char *arg, const char *word, size_t min);

/* "show ENTITY [ID]": argv after "show". */
int scontrol_show(struct scontrol *sc, int argc, char **argv);
/* "update KEY=VALUE ...": argv after "update" (at least one word). */
int scontrol_update(struct scontrol *sc, int argc, char **argv);
/* hold, uhold, release, requeue, requeuehold, suspend, resume (the action's
 * name on the wire) of each job ID in argv. */
int scontrol_job_action(struct scontrol *sc, const char *action, int argc, char **argv);

int scontrol_ping(struct scontrol *sc);
int scontrol_reconfigure(struct scontrol *sc, int argc);
int scontrol_token(struct scontrol *sc, int argc, char **argv);
/* "show hostnames" (expr NULL: $SLURM_JOB_NODELIST), "show hostlist[sorted]". */
int scontrol_show_hostnames(const char *expr);
int scontrol_show_hostlist(const char *expr, bool sorted);
#endif
