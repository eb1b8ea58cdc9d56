/* Shared pieces of the user commands: the controller connection and the pure
 * option helpers (script directives, --export, signals, users, lists).  Every
 * command prints its own messages; this file only supplies the sentences. */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/opt.h"
#include "common/text.h"
#include <time.h>
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/bitmap.h"
#include "common/auth.h"
#include "common/msg.h"
#include "common/xmalloc.h"

/* glibc's name of the running program ("sbatch"); declared here because
 * <errno.h> declares it only under _GNU_SOURCE. */
extern char *program_invocation_short_name;

int cmd_client_init(struct cmd_client *c, struct herd_error *err)
{
	memset(c, 0, sizeof(*c));
	c->conf = conf_load(NULL, err);
	if (!c->conf)
		return -1;
	c->dest = auth_dest_ctld(conf_cluster_name(c->conf));
	c->target.host = conf_ctld_host(c->conf);
	c->target.port = conf_ctld_port(c->conf);
	c->target.dest = c->dest;
	c->target.munge_socket = conf_munge_socket(c->conf);
	/* Slurm's MessageTimeout (seconds, default 10) bounds one exchange. */
	c->timeout_ms = (int)conf_get_int(c->conf, "MessageTimeout", 10) * 1000;
	if (c->timeout_ms <= 0)
		c->timeout_ms = 10000;
	return 0;
}

void cmd_client_fini(struct cmd_client *c)
{
	if (!c)
		return;
	free(c->dest);
	free(c->host);
	conf_destroy(c->conf);
	memset(c, 0, sizeof(*c));
}

void cmd_client_aim(struct cmd_client *c, const struct cmd_cluster *cl)
{
	free(c->dest);
	c->dest = auth_dest_ctld(cl->name);
	c->target.dest = c->dest;
	free(c->host);
	c->host = xstrdup(cl->host);
	c->target.host = c->host;
	c->target.port = cl->port;
}

int cmd_client_cluster(struct cmd_client *c, const char *list)
{
	size_t n;
	struct cmd_cluster *v = cmd_clusters_resolve(c, list, &n);
	if (!v)
		return -1;
	cmd_client_aim(c, &v[0]);
	cmd_clusters_free(v, n);
	return 0;
}

static void cluster_add(struct cmd_cluster **v, size_t *n, const char *name, const char *host,
			int port)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return;   /* -M a,a */
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct cmd_cluster){ xstrdup(name), xstrdup(host), port };
}

struct cmd_cluster *cmd_clusters_resolve(struct cmd_client *c, const char *list, size_t *n)
{
	const char *prog = program_invocation_short_name;
	const char *self = conf_cluster_name(c->conf);
	size_t nnames;
	char **names = opt_split_lower(list, ',', &nnames);
	struct cmd_cluster *v = NULL;
	json_t *reply = NULL, *known = NULL;
	struct herd_error err = { "" };

	*n = 0;
	for (size_t i = 0; i < nnames; i++) {
		if (!strcmp(names[i], self)) {
			cluster_add(&v, n, self, conf_ctld_host(c->conf), conf_ctld_port(c->conf));
			continue;
		}
		if (!known) {
			/* the registry, through this cluster's controller */
			json_t *body = json_object();
			if (cmd_call(c, MSG_CLUSTER_INFO, body, &reply, &err) == 0)
				known = json_incref(json_object_get(reply, "clusters"));
			json_decref(body);
			if (!json_is_array(known)) {
				json_decref(known);
				known = json_array();   /* none but this one */
			}
		}
		bool found = false, all = !strcmp(names[i], "all");
		size_t k;
		json_t *row;
		json_array_foreach(known, k, row) {
			const char *name = cmd_jstr(row, "cluster");
			if (!all && strcmp(name, names[i]))
				continue;
			cluster_add(&v, n, name, cmd_jstr(row, "control_host"), (int)cmd_jint(row, "control_port"));
			found = true;
		}
		if (all && !found)
			cluster_add(&v, n, self, conf_ctld_host(c->conf), conf_ctld_port(c->conf));
		else if (!found)
			fprintf(stderr, "%s: error: No cluster '%s' known by database.\n"
				"%s: error: '%s' can't be reached now, or it is an invalid entry for "
				"--cluster.  Use 'sacctmgr list clusters' to see available clusters.\n",
				prog, names[i], prog, names[i]);
	}
	json_decref(known);
	json_decref(reply);
	opt_strv_free(names);
	return v;
}

void cmd_clusters_free(struct cmd_cluster *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].host);
	}
	free(v);
}

int cmd_call(struct cmd_client *c, int type, const json_t *body, json_t **reply,
	     struct herd_error *err)
{
	json_t *r = NULL;

	*reply = NULL;
	c->detail.text[0] = '\0';
	if (net_call(&c->target, type, body, c->timeout_ms, &r, &c->detail) < 0) {
		if (!strncmp(c->detail.text, "MUNGE", 5)) {
			fprintf(stderr, "%s: error: %s\n", program_invocation_short_name, c->detail.text);
			errprintf(err, "%s", herd_strerror(HERD_ERR_AUTH));
			return HERD_ERR_AUTH;
		}
		errprintf(err, "%s", CMD_NO_CONTACT);
		return CMD_NO_REPLY;
	}
	json_t *rc = json_object_get(r, "rc");
	if (!json_is_integer(rc)) {
		json_decref(r);
		errprintf(err, "%s", herd_strerror(HERD_ERR_PROTOCOL));
		return HERD_ERR_PROTOCOL;
	}
	int code = (int)json_integer_value(rc);
	if (code != 0) {
		const char *text = cmd_jstr(r, "error");
		errprintf(err, "%s", *text ? text : herd_strerror(code));
		json_decref(r);
		return code;
	}
	*reply = r;
	return 0;
}

const char *cmd_jstr(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

long long cmd_jint(const json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

bool cmd_jbool(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

size_t opt_strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

void opt_strv_push(char ***v, size_t *n, char *item)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = item;
	(*v)[*n] = NULL;
}

void opt_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **opt_split(const char *s, char sep, size_t *count)
{
	char **v = xmalloc(sizeof(*v));
	size_t n = 0;

	while (s && *s) {
		const char *end = strchr(s, sep);
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (len)
			opt_strv_push(&v, &n, xstrndup(s, len));
		if (!end)
			break;
		s = end + 1;
	}
	if (count)
		*count = n;
	return v;
}

char **opt_split_lower(const char *s, char sep, size_t *count)
{
	char *l = s ? text_lower(s) : NULL;
	char **v = opt_split(l, sep, count);
	free(l);
	return v;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
	{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "STKFLT", SIGSTKFLT },
	{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP },
	{ "TTIN", SIGTTIN }, { "TTOU", SIGTTOU }, { "URG", SIGURG }, { "XCPU", SIGXCPU },
	{ "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
	{ "WINCH", SIGWINCH }, { "IO", SIGIO }, { "PWR", SIGPWR }, { "SYS", SIGSYS },
};

int opt_signal_parse(const char *s)
{
	if (!s || !*s)
		return -1;
	if (isdigit((unsigned char)*s)) {
		long n;
		if (opt_count(s, &n) < 0 || n < 1 || n >= NSIG)
			return -1;
		return (int)n;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcasecmp(s, signals[i].name))
			return signals[i].sig;
	return -1;
}

const char *opt_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return NULL;
}

int opt_count(const char *s, long *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	long n = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = n;
	return 0;
}

int opt_user_parse(const char *s, uid_t *uid)
{
	struct passwd *pw = getpwnam(s);
	long n;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	if (opt_count(s, &n) == 0 && n >= 0 && n < (long)UINT32_MAX) {
		*uid = (uid_t)n;
		return 0;
	}
	return -1;
}

/* Split one directive line into words; quotes group words and are removed. */
static void directive_words(const char *p, const char *end, char ***v, size_t *n)
{
	while (p < end) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end || *p == '#')
			return;   /* a word starting with '#' is a trailing comment */
		char *word = xmalloc(end - p + 1);
		size_t len = 0;
		char quote = 0;
		for (; p < end; p++) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else
					word[len++] = *p;
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else if (isspace((unsigned char)*p)) {
				break;
			} else {
				word[len++] = *p;
			}
		}
		word[len] = '\0';
		opt_strv_push(v, n, word);
	}
}

char **opt_script_directives(const char *script, const char *prefix, size_t *count)
{
	char **v = xmalloc(sizeof(*v));
	size_t n = 0, plen = strlen(prefix);
	const char *line = script ? strchr(script, '\n') : NULL;   /* skip the #! line */

	while (line && *line) {
		line++;
		const char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		const char *p = line;
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p < end && *p != '#')
			break;    /* the first command ends the directives */
		/* Slurm takes "#SBATCH-N 2" too: no blank needed after the prefix. */
		if ((size_t)(end - line) >= plen && !strncmp(line, prefix, plen))
			directive_words(line + plen, end, &v, &n);
		line = *end ? end : NULL;
	}
	if (count)
		*count = n;
	return v;
}

char **opt_words(const char *line, size_t *count)
{
	char **v = xmalloc(sizeof(*v));
	size_t n = 0;

	directive_words(line, line + strlen(line), &v, &n);
	if (count)
		*count = n;
	return v;
}

static const char *env_lookup(char *const *environ, const char *name, size_t len)
{
	for (size_t i = 0; environ && environ[i]; i++)
		if (!strncmp(environ[i], name, len) && environ[i][len] == '=')
			return environ[i];
	return NULL;
}

static char **env_find(char **env, const char *name, size_t len)
{
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return &env[i];
	return NULL;
}

int opt_export_env(const char *spec, char *const *environ, char ***env, size_t *count,
		   struct herd_error *err)
{
	char **out = xmalloc(sizeof(*out));
	size_t n = 0, nitems = 0;
	bool all = !spec || !*spec;
	bool none = false;
	char **items = opt_split(spec ? spec : "", ',', &nitems);

	for (size_t i = 0; i < nitems; i++) {
		if (!strcasecmp(items[i], "ALL"))
			all = true;
		else if (!strcasecmp(items[i], "NONE"))
			none = true;
	}
	if (all && none) {
		opt_strv_free(items);
		free(out);
		return errprintf(err, "--export: ALL and NONE cannot be combined");
	}
	for (size_t i = 0; environ && environ[i]; i++)
		if (all || !strncmp(environ[i], "SLURM_", 6))
			opt_strv_push(&out, &n, xstrdup(environ[i]));
	/* NONE,FOO=bar,HOME: only SLURM_* and the variables named */
	for (size_t i = 0; i < nitems; i++) {
		const char *item = items[i];
		if (!strcasecmp(item, "ALL") || !strcasecmp(item, "NONE"))
			continue;
		const char *eq = strchr(item, '=');
		size_t len = eq ? (size_t)(eq - item) : strlen(item);
		if (!len) {
			errprintf(err, "Invalid environment variable specification: %s", item);
			opt_strv_free(items);
			opt_strv_free(out);
			return -1;
		}
		/* Already there: with ALL the caller's value wins (sbatch(1));
		 * a SLURM_* variable named with a value takes that value. */
		char **have = env_find(out, item, len);
		if (have && (all || !eq))
			continue;
		if (have) {
			free(*have);
			*have = xstrdup(item);
		} else if (eq) {
			opt_strv_push(&out, &n, xstrdup(item));
		} else {
			const char *cur = env_lookup(environ, item, len);
			if (cur)
				opt_strv_push(&out, &n, xstrdup(cur));
		}
	}
	opt_strv_free(items);
	*env = out;
	if (count)
		*count = n;
	return 0;
}

/* Read 1..max digits as a number; -1 if none. */
static int digits(const char **p, int min, int max)
{
	int n = 0, v = 0;
	while (n < max && isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n >= min ? v : -1;
}

/* "HH:MM[:SS][AM|PM]" at p; the rest of the string must be empty. */
static int time_of_day(const char *p, int *h, int *m, int *sec)
{
	*sec = 0;
	if ((*h = digits(&p, 1, 2)) < 0 || *p++ != ':' || (*m = digits(&p, 2, 2)) < 0)
		return -1;
	if (*p == ':' && (p++, (*sec = digits(&p, 2, 2)) < 0))
		return -1;
	if (!strcasecmp(p, "AM") || !strcasecmp(p, "PM")) {
		if (*h < 1 || *h > 12)
			return -1;
		*h = *h % 12 + (toupper((unsigned char)*p) == 'P' ? 12 : 0);
		p += 2;
	}
	if (*p || *h > 23 || *m > 59 || *sec > 59)
		return -1;
	return 0;
}

static time_t make_local(int year, int mon, int day, int h, int m, int sec)
{
	struct tm tm = { .tm_year = year - 1900, .tm_mon = mon - 1, .tm_mday = day,
			 .tm_hour = h, .tm_min = m, .tm_sec = sec, .tm_isdst = -1 };
	return mktime(&tm);
}

int opt_time_error_pos(const char *s)
{
	static const char *words[] = { "tomorrow", "midnight", "teatime", "elevenses", "today",
				       "noon", "fika" };
	if (!strncasecmp(s, "now", 3)) {
		const char *p = s + 3;
		static const char *units[] = { "seconds", "second", "secs", "sec", "minutes", "minute",
					       "mins", "min", "hours", "hour", "days", "day", "weeks",
					       "week", "s", "m", "h", "d", "w" };
		if ((*p != '+' && *p != '-') || !isdigit((unsigned char)p[1]))
			return 3;
		const char *q = p + 1 + strspn(p + 1, "0123456789");
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strncasecmp(q, units[i], strlen(units[i])))
				return (int)(q - s + strlen(units[i]));   /* after a good unit */
		return 4;   /* at the count, whose unit is wrong */
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strncasecmp(s, words[i], strlen(words[i])))
			return (int)strlen(words[i]);
	if (!isdigit((unsigned char)*s))
		return 0;
	size_t n = strspn(s, "0123456789:/.-T");
	if (s[n])
		return (int)n;
	/* every character fits: a field out of range, counted at YYYY-MM's month */
	const char *dash = strchr(s, '-');
	return dash && dash - s == 4 ? 5 : 0;
}

int opt_time_parse(const char *s, time_t now, bool past, time_t *out)
{
	static const struct {
		const char *name;
		int hour;
	} named[] = {
		{ "today", 0 }, { "midnight", 0 }, { "noon", 12 }, { "elevenses", 11 },
		{ "fika", 15 }, { "teatime", 16 },
	};
	struct tm today;
	const char *p = s;
	int year, mon, day, h = 0, m = 0, sec = 0;

	if (!s || !*s)
		return -1;
	localtime_r(&now, &today);
	year = today.tm_year + 1900;
	mon = today.tm_mon + 1;
	day = today.tm_mday;
	if (!strncasecmp(s, "now", 3)) {
		p = s + 3;
		if (!*p) {
			*out = now;
			return 0;
		}
		if (*p != '+' && *p != '-')
			return -1;
		int sign = *p++ == '-' ? -1 : 1;
		char *end;
		errno = 0;
		long count = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
		if (count < 0 || errno)
			return -1;
		/* The unit's name, abbreviated or plural; nothing after it. */
		static const struct {
			const char *names;
			long seconds;
		} units[] = {
			{ "|s|sec|secs|second|seconds|", 1 }, { "|m|min|mins|minute|minutes|", 60 },
			{ "|h|hour|hours|", 3600 }, { "|d|day|days|", 86400 },
			{ "|w|week|weeks|", 7 * 86400 },
		};
		long unit = *end ? 0 : 1;
		char word[16];
		if (*end && strlen(end) < sizeof(word) - 2 && !strchr(end, '|')) {
			snprintf(word, sizeof(word), "|%s|", end);
			for (char *w = word; *w; w++)
				*w = tolower((unsigned char)*w);
			for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
				if (strstr(units[u].names, word))
					unit = units[u].seconds;
		}
		if (!unit)
			return -1;
		/* count is the user's: a product or sum past 64 bits is refused */
		long long delta, t;
		if (__builtin_mul_overflow((long long)count, (long long)unit, &delta) ||
		    __builtin_add_overflow((long long)now, sign * delta, &t))
			return -1;
		*out = (time_t)t;
		return 0;
	}
	if (!strcasecmp(s, "tomorrow")) {
		*out = make_local(year, mon, day + 1, 0, 0, 0);
		return 0;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcasecmp(s, named[i].name)) {
			time_t t = make_local(year, mon, day, named[i].hour, 0, 0);
			/* --begin=noon after noon is tomorrow's, as a time of day is
			 * (not "today", which is a date). */
			if (!past && i > 0 && t < now)
				t = make_local(year, mon, day + 1, named[i].hour, 0, 0);
			*out = t;
			return 0;
		}
	/* HH:MM... alone: today, or the day before/after as past says */
	if (strchr(s, ':') && (strchr(s, ':') - s) <= 2 && isdigit((unsigned char)*s)) {
		if (time_of_day(s, &h, &m, &sec) < 0)
			return -1;
		time_t t = make_local(year, mon, day, h, m, sec);
		if (past && t > now)
			t = make_local(year, mon, day - 1, h, m, sec);
		else if (!past && t < now)
			t = make_local(year, mon, day + 1, h, m, sec);
		*out = t;
		return 0;
	}
	bool have_year = false;
	if (isdigit((unsigned char)p[0]) && strlen(p) >= 10 && p[4] == '-') {
		/* YYYY-MM-DD[THH:MM[:SS]] */
		year = digits(&p, 4, 4);
		p++;
		if ((mon = digits(&p, 2, 2)) < 0 || *p++ != '-' || (day = digits(&p, 2, 2)) < 0)
			return -1;
		have_year = true;
	} else {
		if ((mon = digits(&p, 2, 2)) < 0)
			return -1;
		if (*p == '/' || *p == '.') {
			char sep = *p++;
			if ((day = digits(&p, 1, 2)) < 0)
				return -1;
			if (*p == sep) {
				p++;
				if ((year = digits(&p, 2, 4)) < 0)
					return -1;
				have_year = true;
			}
		} else {
			if ((day = digits(&p, 2, 2)) < 0)
				return -1;
			if (isdigit((unsigned char)*p)) {
				if ((year = digits(&p, 2, 2)) < 0)
					return -1;
				have_year = true;
			}
		}
		if (have_year && year < 100)
			year += 2000;
	}
	if (*p == 'T' || *p == '-') {
		p++;
		if (time_of_day(p, &h, &m, &sec) < 0)
			return -1;
	} else if (*p) {
		return -1;
	}
	if (mon < 1 || mon > 12 || day < 1 || day > 31)
		return -1;
	time_t t = make_local(year, mon, day, h, m, sec);
	if (!have_year && past && t > now)
		t = make_local(year - 1, mon, day, h, m, sec);
	else if (!have_year && !past && t < now)
		t = make_local(year + 1, mon, day, h, m, sec);
	*out = t;
	return 0;
}

char *cmd_job_id(const json_t *job, long long task, char *buf, size_t len)
{
	return cmd_job_id_of(cmd_jint(job, "job_id"), cmd_jint(job, "array_job_id"),
			     cmd_jint(job, "array_task_id"), cmd_jint(job, "array_throttle"),
			     cmd_jstr(job, "array_tasks"), task, buf, len);
}

char *cmd_job_id_of(long long id, long long array, long long own, long long throttle,
		    const char *pending, long long task, char *buf, size_t len)
{
	if (!array)
		snprintf(buf, len, "%lld", id);
	else if (task >= 0)
		snprintf(buf, len, "%lld_%lld", array, task);
	else if (own != CMD_NO_TASK || !*pending)
		snprintf(buf, len, "%lld_%lld", array, own);
	else if (throttle)
		snprintf(buf, len, "%lld_[%s%%%lld]", array, pending, throttle);
	else
		snprintf(buf, len, "%lld_[%s]", array, pending);
	return buf;
}

int cmd_job_id_parse(const char *s, long *id, struct bitmap **tasks)
{
	const char *us = strchr(s, '_');
	char *head = us ? xstrndup(s, us - s) : xstrdup(s);
	int rc = -1;

	*tasks = NULL;
	if (!head || opt_count(head, id) < 0 || *id <= 0)
		goto out;
	if (!us) {
		rc = 0;
		goto out;
	}
	const char *t = us + 1;
	size_t n = strlen(t);
	char *inner = n >= 2 && t[0] == '[' && t[n - 1] == ']' ? xstrndup(t + 1, n - 2) : xstrdup(t);
	/* "%N" has no meaning here: refused by the bitmap syntax.  No task ID
	 * reaches Slurm's hard MaxArraySize limit, 4000001; the spec's length
	 * and work are bounded (bitmap_parse_user). */
	*tasks = inner && !strchr(inner, '%') ? bitmap_parse_user(inner, 4000001) : NULL;
	free(inner);
	rc = *tasks ? 0 : -1;
out:
	free(head);
	return rc;
}

char **cmd_job_ids_split(const char *s, size_t *count)
{
	char **v = xmalloc(sizeof(*v));
	size_t n = 0;
	int depth = 0;
	const char *start = s;

	v[0] = NULL;
	for (const char *p = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth)
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		if (p > start)
			opt_strv_push(&v, &n, xstrndup(start, p - start));
		if (!*p)
			break;
		start = p + 1;
	}
	if (count)
		*count = n;
	return v;
}

bool cmd_array_task_named(const json_t *job, const struct bitmap *tasks)
{
	long long task = cmd_jint(job, "array_task_id");
	if (!cmd_jint(job, "array_job_id"))
		return false;
	if (task != CMD_NO_TASK)
		return bitmap_test(tasks, (uint32_t)task);
	struct bitmap *pending = bitmap_parse(cmd_jstr(job, "array_tasks"), UINT32_MAX);
	bool any = false;
	for (uint32_t t = pending ? bitmap_next(pending, 0) : BITMAP_NONE; t != BITMAP_NONE && !any;
	     t = bitmap_next(pending, t + 1))
		any = bitmap_test(tasks, t);
	bitmap_destroy(pending);
	return any;
}

int opt_signal_spec_parse(const char *s, int *sig, int *secs, char *flag)
{
	char name[32];
	const char *at;
	long t = 60;
	char f = 0;

	if (!s || !*s)
		return -1;
	if ((s[0] == 'B' || s[0] == 'R') && s[1] == ':') {
		f = s[0];
		s += 2;
	} else if ((!strncmp(s, "RB", 2) || !strncmp(s, "BR", 2)) && s[2] == ':') {
		f = 'B';   /* both; the reservation part has no meaning here */
		s += 3;
	}
	at = strchr(s, '@');
	size_t len = at ? (size_t)(at - s) : strlen(s);
	if (len == 0 || len >= sizeof(name))
		return -1;
	memcpy(name, s, len);
	name[len] = '\0';
	int n = opt_signal_parse(name);
	if (n < 0)
		return -1;
	if (at && (opt_count(at + 1, &t) < 0 || t > 0xffff))
		return -1;
	*sig = n;
	*secs = (int)t;
	*flag = f;
	return 0;
}

int opt_nice_parse(const char *s, long long *nice)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || end == s)
		return -1;
	if (errno || v > 2147483645LL || v < -2147483645LL)
		return -2;
	*nice = v;
	return 0;
}

char *opt_nodelist_arg(const char *arg)
{
	if (!strchr(arg, '/'))
		return xstrdup(arg);
	FILE *f = fopen(arg, "r");
	if (!f)
		return NULL;
	size_t cap = 256, n = 0;
	char *out = xmalloc(cap);
	int c;
	bool sep = true;   /* no separator at the start */
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 >= cap)
			out = xrealloc(out, cap *= 2);
		if (isspace(c) || c == ',') {
			if (!sep)
				out[n++] = ',';
			sep = true;
			continue;
		}
		out[n++] = (char)c;
		sep = false;
	}
	fclose(f);
	if (n && out[n - 1] == ',')
		n--;
	out[n] = '\0';
	return out;
}

char *fmt_team_acts(const json_t *acts)
{
	struct strbuf out = { 0 };
	const json_t *a;
	char when[64];
	size_t i;

	strbuf_adds(&out, "");
	json_array_foreach(acts, i, a) {
		char *one = xasprintf("%s%s:%s@%s", i ? "," : "", cmd_jstr(a, "act"), cmd_jstr(a, "user"),
				      fmt_timestamp((time_t)cmd_jint(a, "time"), when, sizeof(when)));
		strbuf_adds(&out, one);
		free(one);
	}
	return out.s;
}

bool opt_unknown_args(const char *prog, int argc, char **argv, int optind)
{
	if (optind >= argc)
		return false;
	fprintf(stderr, "%s: error: Unknown arguments:", prog);
	for (int i = optind; i < argc; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
	return true;
}
