/* scontrol's commands that show no record: ping, reconfigure, token, the
 * hostlist expansions (no controller needed), and the connection every
 * piece opens on first need.  The dispatch table is scontrol.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/scontrol.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/xmalloc.h"

int scontrol_client(struct scontrol *sc)
{
	struct herd_error err = { "" };
	if (sc->client_ok)
		return 0;
	if (cmd_client_init(&sc->client, &err) < 0) {
		fprintf(stderr, "scontrol: error: %s\n", err.text);
		return -1;
	}
	if (sc->clusters && *sc->clusters && cmd_client_cluster(&sc->client, sc->clusters) < 0) {
		cmd_client_fini(&sc->client);
		return -1;
	}
	sc->client_ok = true;
	return 0;
}

/* Slurm accepts any unambiguous prefix of a command or entity name; so do we
 * for the ones scripts use. */
bool scontrol_is_word(const char *arg, const char *word, size_t min)
{
	size_t n = strlen(arg);
	return n >= min && n <= strlen(word) && !strncasecmp(arg, word, n);
}

/* Why a hostlist was not expanded: malformed, or over hostlist.c's caps
 * (checked before expanding; the expression is then not echoed whole). */
static void hostlist_error(const char *expr)
{
	if (errno == E2BIG)
		fprintf(stderr, "scontrol: error: Hostlist too large: it expands to more than "
			"1000000 names or 16 MiB\n");
	else
		fprintf(stderr, "Invalid hostlist: %s\n", expr);
}

/* The list expr names, or NULL after saying why (not a list, or empty). */
static struct hostlist *nonempty_hostlist(const char *expr)
{
	struct hostlist *hl = hostlist_create(expr ? expr : "");
	if (!hl) {
		hostlist_error(expr);
		return NULL;
	}
	if (!hostlist_count(hl)) {
		fprintf(stderr, "scontrol: error: host list is empty\n");
		hostlist_destroy(hl);
		return NULL;
	}
	return hl;
}

int scontrol_show_hostnames(const char *expr)
{
	if (!expr)
		expr = getenv("SLURM_JOB_NODELIST");
	struct hostlist *hl = nonempty_hostlist(expr);
	if (!hl)
		return 1;
	for (size_t i = 0; i < hostlist_count(hl); i++)
		printf("%s\n", hostlist_nth(hl, i));
	hostlist_destroy(hl);
	return 0;
}

int scontrol_show_hostlist(const char *expr, bool sorted)
{
	struct hostlist *hl = nonempty_hostlist(expr);
	if (!hl)
		return 1;
	if (sorted)
		hostlist_uniq(hl);
	char *s = hostlist_ranged_string(hl);
	printf("%s\n", s);
	free(s);
	hostlist_destroy(hl);
	return 0;
}

int scontrol_ping(struct scontrol *sc)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;
	if (scontrol_client(sc) < 0)
		return 1;
	json_t *body = json_object();
	int rc = cmd_call(&sc->client, MSG_PING, body, &reply, &err);
	json_decref(body);
	/* Slurm names the controller as configured: "name" of "name(addr)". */
	const char *host = conf_get(sc->client.conf, "SlurmctldHost");
	char *name = xstrdup(host ? host : conf_ctld_host(sc->client.conf));
	name[strcspn(name, "(,")] = '\0';
	printf("Slurmctld(primary) at %s is %s\n", name, rc == 0 ? "UP" : "DOWN");
	free(name);
	json_decref(reply);
	if (rc != 0 && getuid() == 0)   /* as Slurm: the call to act is for root */
		printf("*****************************************\n"
		       "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
		       "*****************************************\n");
	return rc ? 1 : 0;
}

/* "reconfigure": every daemon re-reads herd.conf.  Silent on success, as
 * Slurm's, but for Herd's warning naming what the file sets and Herd
 * ignores; a refusal (a file that does not load, a change that needs a
 * restart, a user who is not an administrator) is the controller's sentence. */
int scontrol_reconfigure(struct scontrol *sc, int argc)
{
	struct herd_error err = { "" };
	json_t *reply = NULL;

	if (argc > 0) {
		fprintf(stderr, "too many arguments for keyword:reconfigure\n");
		return 1;
	}
	if (scontrol_client(sc) < 0)
		return 1;
	json_t *body = json_object();
	int rc = cmd_call(&sc->client, MSG_RECONFIGURE, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		json_decref(reply);
		fprintf(stderr, "slurm_reconfigure error: %s\n", err.text);
		return 1;
	}
	/* Herd: the keys the file sets that Herd ignores (the controller's
	 * log has the same line) */
	const char *warning = json_string_value(json_object_get(reply, "warning"));
	if (warning)
		fprintf(stderr, "scontrol: warning: %s\n", warning);
	json_decref(reply);
	return 0;
}

/* "token [username=NAME] [lifespan=SECONDS]": a JWT minted by the
 * controller, which alone reads the key (AuthAltTypes=auth/jwt).  Root and
 * SlurmUser get one for anyone, a user for himself, as in Slurm. */
int scontrol_token(struct scontrol *sc, int argc, char **argv)
{
	struct herd_error err = { "" };
	json_t *body = json_object(), *reply = NULL;
	uint64_t lifespan;
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (eq && klen == 8 && !strncasecmp(argv[i], "username", 8) && eq[1]) {
			json_object_set_new(body, "username", json_string(eq + 1));
		} else if (eq && klen == 8 && !strncasecmp(argv[i], "lifespan", 8)) {
			if (parse_uint(eq + 1, 100ULL * 365 * 86400, &lifespan) < 0 || lifespan == 0) {
				fprintf(stderr, "scontrol: error: Invalid lifespan: %s\n", eq + 1);
				json_decref(body);
				return 1;
			}
			json_object_set_new(body, "lifespan", json_integer((json_int_t)lifespan));
		} else {
			fprintf(stderr, "scontrol: error: Invalid token parameter: %s\n", argv[i]);
			json_decref(body);
			return 1;
		}
	}
	if (!json_object_get(body, "username") && json_object_size(body) < (size_t)argc) {
		json_decref(body);   /* a name that is not UTF-8 */
		fprintf(stderr, "scontrol: error: Invalid user name\n");
		return 1;
	}
	if (scontrol_client(sc) < 0) {
		json_decref(body);
		return 1;
	}
	rc = cmd_call(&sc->client, MSG_TOKEN_CREATE, body, &reply, &err);
	json_decref(body);
	if (rc != 0) {
		fprintf(stderr, "scontrol: error: Unable to fetch token: %s\n", err.text);
		return 1;
	}
	printf("SLURM_JWT=%s\n", cmd_jstr(reply, "token"));
	json_decref(reply);
	return 0;
}
