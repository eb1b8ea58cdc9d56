/* What the user commands share: connecting to the controller (config,
 * target, one call helper that turns failures into Slurm's sentences), reading
 * JSON replies, and the pure option pieces (#SBATCH lines, --export, signal
 * names, user names, comma lists).  Not for output formats (fmt.h). */
#ifndef HERD_CMD_OPT_H
#define HERD_CMD_OPT_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/net.h"

/* Slurm's version, which tools parse, then ours. */
#define CMD_VERSION "slurm 22.05.8 (herd 0.1)"

/* Slurm's words for a controller that did not answer. */
#define CMD_NO_CONTACT "Unable to contact slurm controller (connect failure)"

struct cmd_client {
	struct conf *conf;
	char *dest;
	char *host;              /* -M: another cluster's controller */
	struct net_target target;
	int timeout_ms;          /* MessageTimeout (default 10 s) */
	struct herd_error detail;   /* why the last call got no reply, for -v */
};

/* Load the configuration (NULL path: $HERD_CONF, else the default) and
 * aim at the controller.  -1 with err saying what was wrong with the file. */
int cmd_client_init(struct cmd_client *c, struct herd_error *err);
void cmd_client_fini(struct cmd_client *c);

/* -M/--clusters: clusters sharing one accounting database, each with its
 * controller (CLUSTER_INFO, doc/accounting.md "Clusters"). */
struct cmd_cluster {
	char *name, *host;
	int port;
};
/* The clusters list names (lowered; "all": every one the database knows),
 * this one without asking anybody.  An unknown name gets Slurm's two lines
 * ("No cluster 'x' known by database." ...) and is left out; NULL (and *n
 * 0) when none is left.  Free with cmd_clusters_free. */
struct cmd_cluster *cmd_clusters_resolve(struct cmd_client *c, const char *list, size_t *n);
void cmd_clusters_free(struct cmd_cluster *v, size_t n);
/* Aim c's next calls at that cluster's controller. */
void cmd_client_aim(struct cmd_client *c, const struct cmd_cluster *cl);
/* -M for a command that acts on one cluster: aimed at the first of list
 * that resolves; -1 (the lines printed) when none does. */
int cmd_client_cluster(struct cmd_client *c, const char *list);

#define CMD_NO_REPLY (-1)
/* One request.  Returns 0 with *reply (caller decrefs) when the controller
 * answered rc 0; otherwise the reply's rc (err: the reply's sentence, as is)
 * or CMD_NO_REPLY (err: CMD_NO_CONTACT, the detail in c->detail).  A request
 * MUNGE would not sign is HERD_ERR_AUTH, after printing MUNGE's reason as
 * Slurm does ("sbatch: error: MUNGE ..."): retrying cannot help it. */
int cmd_call(struct cmd_client *c, int type, const json_t *body, json_t **reply,
	     struct herd_error *err);

/* Reading replies leniently: a missing or mistyped key gives "" / 0. */
/* A job's team acts (its record's "acts", Herd's TeamJobs) as
 * "act:user@time,..." (scontrol's TeamActs=, sacct's TeamActs); "" when
 * none.  Caller frees. */
char *fmt_team_acts(const json_t *acts);
const char *cmd_jstr(const json_t *obj, const char *key);
long long cmd_jint(const json_t *obj, const char *key);
bool cmd_jbool(const json_t *obj, const char *key);

struct bitmap;
#define CMD_NO_TASK 4294967294LL   /* array_task_id of an array's meta record */
/* A job's ID as Slurm's commands print it: "N"; an array task "A_T"; an
 * array's pending tasks, folded, "A_[4-999%4]"; task >= 0 names one pending
 * task of such a record ("A_5", squeue -r).  Cut to len.  Returns buf. */
char *cmd_job_id(const json_t *job, long long task, char *buf, size_t len);
/* The same from the values (array 0: not an array job). */
char *cmd_job_id_of(long long id, long long array, long long own, long long throttle,
		    const char *pending, long long task, char *buf, size_t len);
/* A job ID on the command line: "N", "A_T", "A_[1-3,7]"; *tasks NULL when
 * none is named (caller frees).  -1 when malformed. */
int cmd_job_id_parse(const char *s, long *id, struct bitmap **tasks);
/* Is one of tasks this array record's task (its own, or one pending in a
 * meta record)?  False for a job that is not an array's. */
bool cmd_array_task_named(const json_t *job, const struct bitmap *tasks);
/* Split a list of job IDs on commas outside brackets ("1,2_[3,4]"). */
char **cmd_job_ids_split(const char *s, size_t *count);

/* Split "a,b,,c" on sep into a NULL-terminated vector (empty items dropped). */
char **opt_split(const char *s, char sep, size_t *count);
/* The same for names Slurm keeps in lower case (accounts, QOS, users and
 * wckeys in the accounting database): -A TeamA matches account teama. */
char **opt_split_lower(const char *s, char sep, size_t *count);
void opt_strv_free(char **v);
size_t opt_strv_len(char *const *v);
void opt_strv_push(char ***v, size_t *n, char *item);   /* steals item */

/* Signal by name ("USR1", "SIGUSR1", case-insensitive) or number; -1 if none. */
int opt_signal_parse(const char *s);
const char *opt_signal_name(int sig);    /* "USR1"; NULL if unknown */

/* User by name or numeric uid; -1 if unknown. */
int opt_user_parse(const char *s, uid_t *uid);

/* Option words from a batch script's directive lines ("#SBATCH ..."): read
 * after the first line, up to the first line that is neither blank nor a
 * comment.  Words split on blanks; quotes group and are removed; a word
 * starting with '#' ends the line.  Returns a NULL-terminated vector. */
char **opt_script_directives(const char *script, const char *prefix, size_t *count);
/* The words of one line as a directive's are split (herd sim's jobs file):
 * NULL-terminated. */
char **opt_words(const char *line, size_t *count);

/* The job environment for --export=spec ("ALL" or NULL, "NONE",
 * "ALL,A=1,B", "A,B=x") from environ.  -1 with err for a spec sbatch refuses. */
int opt_export_env(const char *spec, char *const *environ, char ***env, size_t *count,
		   struct herd_error *err);

/* A point in time in Slurm's notations (sacct -S/-E, sbatch --begin):
 * HH:MM[:SS][AM|PM], MMDD[YY][-HH:MM[:SS]], MM.DD[.YY][-HH:MM[:SS]],
 * MM/DD[/YY][-HH:MM[:SS]], YYYY-MM-DD[THH:MM[:SS]] (or '-' before the time),
 * today, midnight, noon, elevenses, fika, teatime, tomorrow, now, and
 * now[+|-count[seconds|minutes|hours|days|weeks]].  Local time, relative to
 * now.  A time of day alone (and, when !past, midnight, noon, elevenses, fika
 * and teatime), or a date without a year, is taken in the past
 * when past is true (sacct: 23:00 at 10:00 means yesterday's) and in the
 * future otherwise (--begin).  -1 if malformed. */
int opt_time_parse(const char *s, time_t now, bool past, time_t *out);
/* Where in s (refused by opt_time_parse) the bad part starts, as Slurm's
 * "Invalid time specification (pos=N): s" counts it: after "now" when no
 * sign or count follows it, at the count when its unit is bad, after a
 * known word, at the first character no date or time has; else 0. */
int opt_time_error_pos(const char *s);

/* sbatch --signal=[{R|B}:]<sig_num>[@sig_time]: the signal (name or number),
 * the seconds before the time limit (default 60, at most 65535) and the flag
 * letter ('B', 'R' or 0).  -1 if malformed. */
int opt_signal_spec_parse(const char *s, int *sig, int *secs, char *flag);

/* --nice=adj: a signed number; -1 if not a number, -2 outside Slurm's range
 * (+/- 2147483645). */
int opt_nice_parse(const char *s, long long *nice);

/* -w/-x: a node list, or (when it holds a '/') a file of names separated by
 * blanks, commas or lines; returns the list with commas (caller frees), or
 * NULL if the file cannot be read. */
char *opt_nodelist_arg(const char *arg);

/* Slurm's strict counts: "12" but not "12x"/"" ; -1 if not a number. */
int opt_count(const char *s, long *out);
/* Arguments left after the options: "PROG: error: Unknown arguments: a b"
 * on stderr and true; false when none are left. */
bool opt_unknown_args(const char *prog, int argc, char **argv, int optind);

#endif
