/* sacctmgr: Slurm's command line for the accounting objects.  The words
 * (add/modify/delete/list/dump/load, entities, where/set, key=value with
 * Slurm's abbreviations) become one ACCT_MGR request; the controller
 * checks and applies it (assoc_mgr.c) and says what changed, which this
 * file words as Slurm's sacctmgr does, and renders lists in its columns.
 * Without -i a change is first sent as a dry run and committed only when
 * the user answers y, as Slurm asks. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

struct sacctmgr_opts opts;
static char *opt_format;          /* --format before the command */

/* ---- the request from the words ---- */

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "sacctmgr: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return -1;
}

/* The words after the command into r.  add: every key=value is a
 * setting; modify: where ... set ...; list/delete: conditions. */
static int request_parse(struct request *r, int argc, char **argv)
{
	bool in_set = false;
	r->names = json_array();
	r->where = json_object();
	r->set = json_object();
	r->options = json_array();
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!strcasecmp(w, "where")) {
			in_set = false;
			continue;
		}
		if (!strcasecmp(w, "set")) {
			if (r->op != OP_MODIFY)
				return usage_error("'set' is only for modify: %s", w);
			in_set = true;
			continue;
		}
		const char *eq = strchr(w, '=');
		if (!eq) {
			if (!strcasecmp(w, "tree")) {
				r->tree = true;
			} else if (!strncasecmp(w, "withassoc", strlen(w) > 5 ? strlen(w) : 5) ||
				   !strcasecmp(w, "-s")) {
				r->withassoc = true;
			} else if (!strncasecmp(w, "withcoordinators", strlen(w) > 5 ? strlen(w) : 5)) {
				r->withcoord = true;
			} else if (!strcasecmp(w, "clean") && r->op == OP_LOAD) {
				/* Slurm's clean empties the cluster first; refused rather
				 * than half done: delete what should go, then load */
				return usage_error("load %s is not supported: delete the accounts that "
						   "should go first, then load", w);
			} else if (r->op == OP_LOAD && !r->file) {
				r->file = xstrdup(w);
			} else {
				/* a bare word is a name, after set too (Slurm takes
				 * "modify qos set normal Priority=0") */
				keys_names_add(r->names, w);
			}
			continue;
		}
		size_t klen = eq - w;
		char op = 0;
		if (klen && (w[klen - 1] == '+' || w[klen - 1] == '-')) {
			op = w[klen - 1];
			klen--;
		}
		const char *value = eq + 1;
		if (klen == 6 && !strncasecmp(w, "format", 6)) {
			free(r->format);
			r->format = xstrdup(value);
			continue;
		}
		if (klen == 4 && !strncasecmp(w, "file", 4)) {
			free(r->file);
			r->file = xstrdup(value);
			continue;
		}
		const struct key_def *k = keys_find(w, klen);
		if (!k) {
			fprintf(stderr, "sacctmgr: error: Unknown option: %s\n", w);
			fprintf(stderr, " Use keyword 'where' to modify condition\n");
			return -1;
		}
		if (op && strcmp(k->canon, "qos") && strcmp(k->canon, "flags") &&
		    strcmp(k->canon, "preempt"))
			return usage_error("%s: += and -= only work on QOS, Preempt and Flags", w);
		if (!strcmp(k->canon, "name")) {
			keys_names_add(r->names, value);
			continue;
		}
		bool is_set = r->op == OP_ADD || r->op == OP_LOAD || in_set;
		/* modify without where: settings before 'set' are conditions */
		keys_put(is_set ? r->set : r->where, k, value, op);
	}
	if (r->withassoc || opts.assocs)
		json_array_append_new(r->options, json_string("withassoc"));
	if (r->tree)
		json_array_append_new(r->options, json_string("tree"));
	return 0;
}

/* ---- talking to the controller ---- */

static struct cmd_client client;
static bool client_ready;

static int call(const struct request *r, bool dry_run, json_t *records, json_t **reply)
{
	struct herd_error err;
	if (!client_ready) {
		if (cmd_client_init(&client, &err) < 0) {
			fprintf(stderr, "sacctmgr: error: %s\n", err.text);
			return -1;
		}
		client_ready = true;
		/* a load of a large site's file is applied in one request: give
		 * it more than MessageTimeout before calling the controller gone */
		if (r->op == OP_LOAD && client.timeout_ms < 120000)
			client.timeout_ms = 120000;
	}
	json_t *opts = json_deep_copy(r->options);
	if (dry_run)
		json_array_append_new(opts, json_string("dry_run"));
	static const char *const opnames[] = { "add", "modify", "delete", "list", "dump", "load" };
	json_t *body = json_pack("{s:s, s:s, s:O, s:O, s:O, s:o}", "op", opnames[r->op], "entity",
				 r->entity, "names", r->names, "where", r->where, "set", r->set,
				 "options", opts);
	if (records)
		json_object_set(body, "records", records);
	int rc = cmd_call(&client, MSG_ACCT_MGR, body, reply, &err);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "sacctmgr: error: %s\n", err.text);
		return -1;
	}
	return 0;
}

/* Slurm's question, read from stdin (a terminal or not) for 30 seconds:
 * only y or Y commits. */
static bool commit_check(const char *question)
{
	char c = 0;
	ssize_t got = 0;
	printf("%s (You have 30 seconds to decide)\n", question);
	/* as Slurm's: one character is the answer, a newline after it is
	 * echoed; anything but y, n or a bare newline asks again */
	while (c != 'y' && c != 'Y' && c != 'n' && c != 'N' && c != '\n') {
		if (c)
			printf("Y or N please\n");
		printf("(N/y): ");
		fflush(stdout);
		fd_set fds;
		struct timeval tv = { 30, 0 };
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		if (select(STDIN_FILENO + 1, &fds, NULL, NULL, &tv) <= 0) {
			printf("timeout\n");
			return false;
		}
		got = read(STDIN_FILENO, &c, 1);
		printf("\n");
		/* end of input is a no (Slurm's getchar would spin on it) */
		if (got <= 0)
			return false;
	}
	/* the rest of the answer's line is not a command (commands from stdin) */
	for (char d = c; d != '\n' && read(STDIN_FILENO, &d, 1) == 1;)
		;
	return c == 'y' || c == 'Y';
}

/* ---- what changed, in Slurm's words ---- */

static void print_strs(const json_t *a)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		printf("  %s\n", json_string_value(v));
}

static const char *jget(const json_t *o, const char *key)
{
	return cmd_jstr(o, key);
}

#define CUT(s, n) (int)print_utf8_cut((s), (n)), (s)

static void print_assoc_ref(const json_t *a, bool modify)
{
	const char *user = jget(a, "user"), *part = jget(a, "partition");
	if (modify && !*user && *jget(a, "parent")) {
		/* an account's association names its parent, as Slurm's does */
		printf("  C = %-10s A = %s of %s", jget(a, "cluster"), jget(a, "account"),
		       jget(a, "parent"));
	} else if (modify) {
		printf("  C = %-10s A = %-20s", jget(a, "cluster"), jget(a, "account"));
		if (*user)
			printf(" U = %-9s", user);
	} else if (*user) {
		/* an add's lines cut each name to its column, as Slurm's do
		 * (where a character ends) */
		printf("  U = %-9.*s A = %-10.*s C = %-10.*s", CUT(user, 9), CUT(jget(a, "account"), 10),
		       CUT(jget(a, "cluster"), 10));
	} else {
		printf("  A = %-10.*s C = %-10.*s", CUT(jget(a, "account"), 10),
		       CUT(jget(a, "cluster"), 10));
	}
	if (*part) {
		if (modify)
			printf(" P = %s", part);
		else
			printf(" P = %-10.*s", CUT(part, 10));
	}
	printf("\n");
}

/* The settings of an add, in the order and with the titles Slurm's
 * sacctmgr prints them (its association and QOS forms differ; a few of
 * its titles run into their '='): walls as [D-]HH:MM:SS, -1 as NONE. */
struct setting {
	const char *key, *prefix;
	char how;                    /* 'w' wall, 'f' factor, 'l' lower case, 0 as given */
};

static const struct setting assoc_settings[] = {
	{ "fairshare", "  Fairshare     = ", 0 },
	{ "grpjobs", "  GrpJobs       = ", 0 },
	{ "grpsubmitjobs", "  GrpSubmitJobs = ", 0 },
	{ "grptres", "  GrpTRES       = ", 0 },
	{ "grptresmins", "  GrpTRESMins   = ", 0 },
	{ "grpwall", "  GrpWall       = ", 'w' },
	{ "maxjobs", "  MaxJobs       = ", 0 },
	{ "maxsubmitjobs", "  MaxSubmitJobs = ", 0 },
	{ "maxtresperjob", "  MaxTRES       = ", 0 },
	{ "maxtrespernode", "  MaxTRESPerNode= ", 0 },
	{ "maxtresminsperjob", "  MaxTRESMins   = ", 0 },
	{ "maxwall", "  MaxWall       = ", 'w' },
	{ "parent", "  Parent        = ", 0 },
	{ "qos", "  QOS           = ", 0 },
	{ "defaultqos", "  DefQOS        = ", 0 },
	{ NULL, NULL, 0 },
};

static const struct setting qos_settings[] = {
	{ "flags", "  Flags                    = ", 0 },
	{ "grpjobs", "  GrpJobs                  = ", 0 },
	{ "grpsubmitjobs", "  GrpSubmitJobs            = ", 0 },
	{ "grptres", "  GrpTRES                  = ", 0 },
	{ "grptresmins", "  GrpTRESMins              = ", 0 },
	{ "grpwall", "  GrpWall                  = ", 'w' },
	{ "maxjobsperuser", "  MaxJobsPerUser = ", 0 },
	{ "maxsubmitjobsperuser", "  MaxSubmitJobsPerUser     = ", 0 },
	{ "maxtresperjob", "  MaxTRESPerJob            = ", 0 },
	{ "maxtrespernode", "  MaxTRESPerNode           = ", 0 },
	{ "maxtresperuser", "  MaxTRESPerUser           = ", 0 },
	{ "maxtresminsperjob", "  MaxTRESMins              = ", 0 },
	{ "maxwall", "  MaxWall                  = ", 'w' },
	{ "preempt", "  Preempt                  = ", 0 },
	{ "preemptmode", "  PreemptMode              = ", 'l' },
	{ "priority", "  Priority                 = ", 0 },
	{ "usagefactor", "  UsageFactor              = ", 'f' },
	{ NULL, NULL, 0 },
};

/* parent: printed in its place even when not given (an account's is
 * root then), NULL for users and clusters */
static void print_settings(const json_t *set, const struct setting *t, const char *parent)
{
	for (; t->key; t++) {
		const char *v = cmd_jstr(set, t->key);
		char buf[64];
		int64_t secs;
		if (!strcmp(t->key, "parent")) {
			if (parent)
				printf("%s%s\n", t->prefix, parent);
			continue;
		}
		if (!json_object_get(set, t->key))
			continue;
		if (!strcmp(v, "-1")) {
			v = "NONE";
		} else if (t->how == 'w' && parse_time_limit(v, &secs) == 0 && secs >= 0) {
			print_wall(secs / 60, buf, sizeof(buf));
			v = buf;
		} else if (t->how == 'f') {
			snprintf(buf, sizeof(buf), "%.4f", strtod(v, NULL));
			v = buf;
		} else if (t->how == 'l') {
			snprintf(buf, sizeof(buf), "%s", v);
			for (char *p = buf; *p; p++)
				*p = tolower((unsigned char)*p);
			v = buf;
		}
		printf("%s%s\n", t->prefix, v);
	}
}

static bool has_limits(const json_t *set)
{
	for (const struct setting *t = assoc_settings; t->key; t++)
		if (strcmp(t->key, "parent") && json_object_get(set, t->key))
			return true;
	return false;
}

/* Returns 1 when nothing was changed (Slurm's exit 1), else 0. */
static int report_add(const struct request *r, const json_t *reply)
{
	json_t *added = json_object_get(reply, "added"), *assocs = json_object_get(reply, "assocs");
	json_t *wckeys = json_object_get(reply, "wckeys");
	const json_t *s = r->set;
	if (!json_array_size(added) && !json_array_size(assocs) && !json_array_size(wckeys) &&
	    strcmp(r->entity, "coordinator")) {
		printf(" Nothing new added.\n");
		return 1;
	}
	if (opts.quiet)
		return 0;
	if (!strcmp(r->entity, "account")) {
		if (json_array_size(added)) {
			printf(" Adding Account(s)\n");
			print_strs(added);
			printf(" Settings\n");
			printf("  Description     = %s\n",
			       json_object_get(s, "description") ? cmd_jstr(s, "description") : "Account Name");
			printf("  Organization    = %s\n", json_object_get(s, "organization")
							       ? cmd_jstr(s, "organization")
							       : "Parent/Account Name");
		}
		if (json_array_size(assocs)) {
			size_t i;
			json_t *a;
			printf(" Associations\n");
			json_array_foreach(assocs, i, a)
				print_assoc_ref(a, false);
			/* Slurm's second Settings: when anything but names was given */
			const char *key;
			json_t *v;
			bool given = false;
			json_object_foreach((json_t *)s, key, v)
				given |= strcmp(key, "cluster") != 0;
			if (given) {
				printf(" Settings\n");
				print_settings(s, assoc_settings,
					       json_object_get(s, "parent") ? cmd_jstr(s, "parent") : "root");
			}
		}
	} else if (!strcmp(r->entity, "user")) {
		if (json_array_size(added)) {
			printf(" Adding User(s)\n");
			print_strs(added);
			/* Slurm shows only what was given */
			if (json_object_get(s, "defaultaccount") || json_object_get(s, "adminlevel") ||
			    json_object_get(s, "defaultwckey"))
				printf(" Settings =\n");
			if (json_object_get(s, "defaultaccount"))
				printf("  Default Account = %s\n", cmd_jstr(s, "defaultaccount"));
			if (json_object_get(s, "defaultwckey"))
				printf("  Default WCKey   = %s\n", cmd_jstr(s, "defaultwckey"));
			if (json_object_get(s, "adminlevel"))
				printf("  Admin Level     = %s\n", cmd_jstr(reply, "admin_level"));
		}
		if (json_array_size(assocs)) {
			size_t i;
			json_t *a;
			printf(" Associations =\n");
			json_array_foreach(assocs, i, a)
				print_assoc_ref(a, false);
		}
		if (json_array_size(wckeys)) {
			size_t i;
			json_t *w;
			printf(" WCKeys =\n");
			json_array_foreach(wckeys, i, w)
				printf("  U = %-9.*s W = %-10.*s C = %-10.*s\n", CUT(jget(w, "user"), 9),
				       CUT(jget(w, "wckey"), 10), CUT(jget(w, "cluster"), 10));
		}
		if (has_limits(s)) {
			printf(" Non Default Settings\n");
			print_settings(s, assoc_settings, NULL);
		}
	} else if (!strcmp(r->entity, "qos")) {
		printf(" Adding QOS(s)\n");
		print_strs(added);
		printf(" Settings\n");
		/* a QOS' description is its name unless given */
		printf("  Description    = %s\n", json_object_get(s, "description")
						       ? cmd_jstr(s, "description")
						       : json_string_value(json_array_get(added, 0)));
		print_settings(s, qos_settings, NULL);
	} else if (!strcmp(r->entity, "cluster")) {
		size_t i;
		json_t *v;
		printf(" Adding Cluster(s)\n");
		json_array_foreach(added, i, v)
			printf("  Name           = %s\n", json_string_value(v));
		if (has_limits(s)) {
			printf(" Setting\n  Default Limits:\n");
			print_settings(s, assoc_settings, NULL);
		}
	} else if (!strcmp(r->entity, "coordinator")) {
		printf(" Adding Coordinator User(s)\n");
		print_strs(r->names);
		printf(" To Account(s) and all sub-accounts\n");
		char **accts = opt_split(cmd_jstr(json_object_get(r->where, "account") ? r->where
										: r->set,
						  "account"), ',', NULL);
		for (char **p = accts; p && *p; p++)
			printf("  %s\n", *p);
		opt_strv_free(accts);
	}
	return 0;
}

static int report_modify(const struct request *r, const json_t *reply)
{
	json_t *mod = json_object_get(reply, "modified"), *assocs = json_object_get(reply, "assocs");
	size_t i;
	json_t *a;
	if (!json_array_size(mod) && !json_array_size(assocs)) {
		printf(" Nothing modified\n");
		return 1;
	}
	if (opts.quiet)
		return 0;
	if (json_array_size(mod)) {
		const char *what = !strcmp(r->entity, "qos") ? "qos" : !strcmp(r->entity, "user") ? "users"
												  : "accounts";
		printf(" Modified %s...\n", what);
		print_strs(mod);
	}
	if (json_array_size(assocs)) {
		const char *what = !strcmp(r->entity, "user") ? "user" : !strcmp(r->entity, "cluster")
										 ? "cluster"
										 : "account";
		printf(" Modified %s associations...\n", what);
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, true);
	}
	return 0;
}

/* A delete's report; 1 when nothing was deleted or Slurm refuses it. */
static int report_delete(const struct request *r, const json_t *reply)
{
	json_t *del = json_object_get(reply, "deleted"), *assocs = json_object_get(reply, "assocs");
	json_t *jobs = json_object_get(reply, "jobs_active");
	json_t *in_use = json_object_get(reply, "defaults_in_use");
	json_t *gone = json_object_get(reply, "users_gone");
	size_t i;
	json_t *a;
	if (json_array_size(jobs)) {
		fprintf(stderr, " Error with request: %s\n", cmd_jstr(reply, "error"));
		json_array_foreach(jobs, i, a)
			fprintf(stderr, "  JobID = %-10lld C = %-10s A = %-10s U = %-9s\n",
				cmd_jint(a, "job_id"), cmd_jstr(a, "cluster"), cmd_jstr(a, "account"),
				cmd_jstr(a, "user"));
		return 1;
	}
	if (json_array_size(in_use)) {
		fprintf(stderr, " Users listed below have these as their Default Accounts.\n");
		json_array_foreach(in_use, i, a)
			fprintf(stderr, "C = %-10s A = %-20s U = %-9s\n", cmd_jstr(a, "cluster"),
				cmd_jstr(a, "account"), cmd_jstr(a, "user"));
		fprintf(stderr, " Please either remove the accounts listed above from list and "
				"resubmit,\n or change these users' default accounts to remove the "
				"account(s).\n Changes Discarded\n");
		return 1;
	}
	if (!strcmp(r->entity, "coordinator")) {
		/* what was asked, then what went (Slurm's two parts) */
		printf(" Removing Coordinators with user name\n");
		json_array_foreach(r->names, i, a)
			printf("  %s\n", json_string_value(a));
		printf(" From Account(s)\n");
		char **accts = opt_split(cmd_jstr(json_object_get(r->where, "account")
							  ? r->where : r->set, "account"), ',', NULL);
		for (char **p = accts; p && *p; p++)
			printf("  %s\n", *p);
		opt_strv_free(accts);
		if (!json_array_size(del)) {
			printf(" Nothing removed\n");
			return 1;
		}
		printf(" Removed Coordinators (sub accounts not listed)...\n");
		json_array_foreach(del, i, a)
			printf("  U = %-9s A = %-10s\n", cmd_jstr(a, "user"), cmd_jstr(a, "account"));
		return 0;
	}
	json_t *wckeys = json_object_get(reply, "wckeys");
	if (json_is_array(wckeys)) {   /* delete user NAME WCKeys=K */
		if (!json_array_size(wckeys)) {
			printf(" Nothing deleted\n");
			return 1;
		}
		if (!opts.quiet) {
			printf(" Deleting user WCKeys...\n");
			json_array_foreach(wckeys, i, a)
				printf("  C = %-10.*s W = %-20.*s U = %-9.*s\n", CUT(jget(a, "cluster"), 10),
				       CUT(jget(a, "wckey"), 20), CUT(jget(a, "user"), 9));
		}
		return 0;
	}
	if (!json_array_size(del) && !json_array_size(assocs)) {
		printf(" Nothing deleted\n");
		return 1;
	}
	if (json_array_size(del)) {
		const char *what = !strcmp(r->entity, "qos") ? "QOS(s)" : !strcmp(r->entity, "user")
									  ? "users"
									  : !strcmp(r->entity, "cluster")
										    ? "clusters"
										    : "accounts";
		if (!opts.quiet) {
			printf(" Deleting %s...\n", what);
			print_strs(del);
		}
	} else if (json_array_size(assocs) && !opts.quiet) {
		printf(" Deleting %s associations...\n", !strcmp(r->entity, "user") ? "user" : "account");
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, true);
	}
	if (json_array_size(json_object_get(reply, "default_deleted"))) {
		fprintf(stderr, " You must change the default account of these users or remove the "
				"users completely from the affected clusters to allow these changes.\n"
				" Changes Discarded\n");
		return 1;
	}
	if (json_array_size(gone) && !opts.quiet) {
		printf(" Deleting users (No Associations)...\n");
		print_strs(gone);
	}
	return 0;
}

static int do_dump(struct request *r)
{
	json_t *reply;
	if (call(r, false, NULL, &reply) < 0)
		return 1;
	const char *cl = cmd_jstr(reply, "cluster");
	struct strbuf sb = { 0 };
	sb.s = flat_dump(cl, json_object_get(reply, "rows"));
	sb.len = strlen(sb.s);
	char *path = r->file ? xstrdup(r->file) : xasprintf("%s.cfg", cl);
	FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
	int rc = 0;
	if (!f) {
		fprintf(stderr, "sacctmgr: error: Can't open file %s: %s\n", path, strerror(errno));
		rc = 1;
	} else {
		fwrite(sb.s, 1, sb.len, f);
		if (f != stdout && fclose(f) != 0) {
			fprintf(stderr, "sacctmgr: error: Can't write file %s: %s\n", path, strerror(errno));
			rc = 1;
		}
		if (!rc && f != stdout && !opts.quiet)
			printf("sacctmgr: Cluster %s dumped to %s\n", cl, path);
	}
	free(path);
	free(sb.s);
	json_decref(reply);
	return rc;
}

static int do_load(struct request *r)
{
	if (!r->file) {
		fprintf(stderr, "sacctmgr: error: No filename given, specify one with file=''\n");
		return 1;
	}
	FILE *f = fopen(r->file, "r");
	if (!f) {
		fprintf(stderr, "sacctmgr: error: Unable to read \"%s\": %s\n", r->file, strerror(errno));
		return 1;
	}
	json_t *records = json_array();
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 1;
	while (getline(&line, &cap, f) > 0) {
		bool bad;
		lineno++;
		json_t *rec = flat_parse_line(line, &bad);
		if (bad) {
			fprintf(stderr, "sacctmgr: error: %s line %d: not a flat file line: %s", r->file, lineno,
				line);
			json_decref(rec);
			goto out;
		}
		if (rec) {
			json_object_set_new(rec, "line", json_integer(lineno));
			json_array_append_new(records, rec);
		}
	}
	json_t *cl = json_object_get(r->where, "cluster") ? json_object_get(r->where, "cluster")
							   : json_object_get(r->set, "cluster");
	if (cl && json_array_size(records) &&
	    !strcmp(cmd_jstr(json_array_get(records, 0), "type"), "cluster"))
		/* load file=F cluster=other: the file's tree, for that cluster */
		json_object_set(json_array_get(records, 0), "name", cl);
	json_object_del(r->set, "cluster");
	json_object_del(r->where, "cluster");
	json_t *reply;
	if (call(r, !opts.immediate, records, &reply) < 0)
		goto out;
	if (json_array_size(records) && !opts.quiet)
		printf("For cluster %s\n", cmd_jstr(json_array_get(records, 0), "name"));
	json_t *sum = json_object_get(reply, "loaded");
	bool any = false;
	static const struct {
		const char *key, *title;
	} parts[] = { { "clusters", " Adding Cluster(s)\n" }, { "accounts", " Adding Account(s)\n" },
		      { "users", " Adding User(s)\n" } };
	for (size_t i = 0; i < 3; i++) {
		json_t *a = json_object_get(sum, parts[i].key);
		if (json_array_size(a) && !opts.quiet) {
			fputs(parts[i].title, stdout);
			print_strs(a);
		}
	}
	json_t *assocs = json_object_get(sum, "assocs");
	if (json_array_size(assocs) && !opts.quiet) {
		size_t i;
		json_t *a;
		printf(" Associations\n");
		json_array_foreach(assocs, i, a)
			print_assoc_ref(a, false);
	}
	any = true;   /* a load also updates what exists: always a change to commit */
	json_decref(reply);
	if (!opts.immediate && any) {
		if (!commit_check("Would you like to commit changes?")) {
			printf(" Changes Discarded\n");
			rc = 0;
			goto out;
		}
		if (call(r, false, records, &reply) < 0)
			goto out;
		json_decref(reply);
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	json_decref(records);
	return rc;
}

/* ---- main ---- */

static int do_list(struct request *r)
{
	size_t ndefs;
	const struct col_def *defs = print_columns(r->entity, &ndefs);
	struct col *c;
	size_t nc;
	/* where keys of a list are its conditions, set ones too (Slurm takes both) */
	json_object_update(r->where, r->set);
	json_object_clear(r->set);
	if (print_cols_parse(defs, ndefs, r->format ? r->format : print_default_format(r), &c, &nc) < 0)
		return 1;
	/* tree: the account column left-justified so its indentation shows
	 * (20 wide unless format= gives a width) */
	if (r->tree)
		for (size_t i = 0; i < nc; i++)
			if (!strcmp(c[i].def->key, "account"))
				c[i].width = c[i].width == c[i].def->width ? -20
					     : c[i].width > 0 ? -c[i].width : c[i].width;
	json_t *reply;
	if (call(r, false, NULL, &reply) < 0) {
		free(c);
		return 1;
	}
	print_table(c, nc, json_object_get(reply, "rows"), r->tree);
	json_decref(reply);
	free(c);
	return 0;
}

static int do_change(struct request *r)
{
	json_t *reply;
	if (opts.readonly) {
		fprintf(stderr, "sacctmgr: error: Can't run this command in readonly mode.\n");
		return 1;
	}
	/* Slurm asks before adding a user the system does not know (not
	 * with -i, which answers every question yes) */
	if (r->op == OP_ADD && !strcmp(r->entity, "user") && !opts.immediate) {
		size_t i;
		json_t *v;
		json_array_foreach(r->names, i, v) {
			if (getpwnam(json_string_value(v)))
				continue;
			char *q = xasprintf("There is no uid for user '%s'\nAre you sure you want to continue?",
					    json_string_value(v));
			bool yes = commit_check(q);
			free(q);
			if (!yes)
				return 1;
		}
	}
	if (call(r, !opts.immediate, NULL, &reply) < 0)
		return 1;
	int nothing = r->op == OP_ADD ? report_add(r, reply)
		      : r->op == OP_MODIFY ? report_modify(r, reply) : report_delete(r, reply);
	json_decref(reply);
	if (nothing)
		return 1;
	if (!opts.immediate) {
		if (!commit_check("Would you like to commit changes?")) {
			printf(" Changes Discarded\n");
			return 0;
		}
		if (call(r, false, NULL, &reply) < 0)
			return 1;
		/* between the question and the answer someone else may have
		 * changed things: what the commit says wins */
		if (r->op == OP_DELETE && json_array_size(json_object_get(reply, "jobs_active"))) {
			report_delete(r, reply);
			json_decref(reply);
			return 1;
		}
		json_decref(reply);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: sacctmgr [OPTIONS] [COMMAND ENTITY SPECS]\n"
		"  -h, --help          this text\n"
		"  -i, --immediate     commit changes without asking\n"
		"  -n, --noheader      no header lines in lists\n"
		"  -p, --parsable      '|' after every field\n"
		"  -P, --parsable2     '|' between fields\n"
		"  -Q, --quiet         only errors\n"
		"  -r, --readonly      refuse changes\n"
		"  -s, --associations  lists show associations\n"
		"  -V, --version       version\n"
		"Commands: add|create, modify|update, delete|remove, list|show, dump, load\n"
		"Entities: account, association, cluster, coordinator, qos, tres, user, wckey\n"
		"  add account NAMES [Parent=P Description=D Organization=O Fairshare=N limits...]\n"
		"  add user NAMES Account=A [DefaultAccount=A AdminLevel=L Partition=P limits...]\n"
		"  add user NAMES WCKeys=K1,K2 [DefaultWCKey=K]   delete user NAMES WCKeys=K\n"
		"  modify ENTITY where CONDITIONS set VALUES\n"
		"  list ENTITY [CONDITIONS] [format=F1,F2%%20] [withassoc] [tree]\n"
		"  dump CLUSTER [file=F]    load file=F\n");
}

static const struct {
	const char *name;
	size_t min;
	enum op op;
} commands[] = {
	{ "add", 3, OP_ADD }, { "create", 2, OP_ADD }, { "modify", 1, OP_MODIFY },
	{ "update", 2, OP_MODIFY }, { "delete", 3, OP_DELETE }, { "remove", 3, OP_DELETE },
	{ "list", 3, OP_LIST }, { "show", 3, OP_LIST }, { "dump", 2, OP_DUMP }, { "load", 2, OP_LOAD },
};

/* One command: argv[0] the command word, then its words. */
static int run_command(int argc, char **argv)
{
	const char *cmd = argv[0];
	int rc = 1;
	struct request r = { 0 };
	r.format = xstrdup(opt_format);
	size_t clen = strlen(cmd), i;
	if (!strcasecmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcasecmp(cmd, "version")) {
		printf("%s\n", CMD_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (clen >= commands[i].min && clen <= strlen(commands[i].name) &&
		    !strncasecmp(commands[i].name, cmd, clen))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		fprintf(stderr, "sacctmgr: error: Invalid command: %s\n", cmd);
		return 1;
	}
	r.op = commands[i].op;
	/* options after the command words (sacctmgr list user -P): Slurm's
	 * getopt takes them anywhere */
	int n = 0;
	char **words = xmalloc((argc + 1) * sizeof(char *));
	for (int j = 1; j < argc; j++) {
		const char *w = argv[j];
		if (!strcmp(w, "-i") || !strcmp(w, "--immediate")) opts.immediate = true;
		else if (!strcmp(w, "-n") || !strcmp(w, "--noheader")) opts.noheader = true;
		else if (!strcmp(w, "-p") || !strcmp(w, "--parsable")) opts.parsable = 1;
		else if (!strcmp(w, "-P") || !strcmp(w, "--parsable2")) opts.parsable = 2;
		else if (!strcmp(w, "-Q") || !strcmp(w, "--quiet")) opts.quiet = true;
		else if (!strcmp(w, "-s") || !strcmp(w, "--associations")) opts.assocs = true;
		else if (!strncmp(w, "--format=", 9)) {
			free(r.format);
			r.format = xstrdup(w + 9);
		}
		else words[n++] = argv[j];
	}
	if (r.op == OP_DUMP) {
		r.entity = "cluster";
	} else if (r.op == OP_LOAD) {
		r.entity = "cluster";
	} else {
		if (!n) {
			fprintf(stderr, "sacctmgr: error: No entity given for %s\n", cmd);
			goto out;
		}
		r.entity = keys_entity(words[0]);
		if (!r.entity) {
			fprintf(stderr, "sacctmgr: error: Unknown entity: %s\n", words[0]);
			goto out;
		}
		if (!strcmp(r.entity, "tres") && r.op != OP_LIST) {
			fprintf(stderr, "sacctmgr: error: TRES can only be listed\n");
			goto out;
		}
		if (!strcmp(r.entity, "wckey") && r.op != OP_LIST) {
			/* Slurm 22.05: wckeys change through their user (add/delete
			 * user NAME WCKeys=K) */
			const char *verb = r.op == OP_ADD ? "add" : r.op == OP_MODIFY ? "modify" : "delete";
			fprintf(stderr, "No valid entity in %s command\n"
					"Input line must include \"Account\", \"Cluster\", \"Coordinator\", "
					"\"Federation\", \"QOS\", \"Resource\", or \"User\"\n", verb);
			goto out;
		}
		if (!strcmp(r.entity, "association") && r.op != OP_LIST) {
			fprintf(stderr, "sacctmgr: error: Associations are changed through their user, "
					"account or cluster (modify user|account|cluster)\n");
			goto out;
		}
		memmove(words, words + 1, n * sizeof(char *));
		n--;
	}
	static const char *const known[] = { "account", "association", "cluster", "coordinator",
					     "qos", "tres", "user", "wckey", NULL };
	for (i = 0; known[i] && strcmp(known[i], r.entity); i++)
		;
	if (!known[i]) {
		fprintf(stderr, "sacctmgr: error: %s is not supported by this sacctmgr\n", r.entity);
		goto out;
	}
	if (request_parse(&r, n, words) < 0)
		goto out;
	switch (r.op) {
	case OP_LIST: rc = do_list(&r); break;
	case OP_DUMP: rc = do_dump(&r); break;
	case OP_LOAD: rc = do_load(&r); break;
	default: rc = do_change(&r); break;
	}
out:
	free(words);
	json_decref(r.names);
	json_decref(r.where);
	json_decref(r.set);
	json_decref(r.options);
	free(r.format);
	free(r.file);
	return rc;
}

/* A line of commands split as a shell would split simple words: blanks
 * apart, quotes group and are removed, a backslash escapes. */
static char **line_words(const char *line, int *count)
{
	char **v = xmalloc(sizeof(char *));
	int n = 0;
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		struct strbuf w = { 0 };
		strbuf_adds(&w, "");
		char q = 0;
		for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')); p++) {
			if (q && *p == q)
				q = 0;
			else if (!q && (*p == '\'' || *p == '"'))
				q = *p;
			else if (*p == '\\' && p[1] && q != '\'')
				strbuf_add(&w, ++p, 1);
			else
				strbuf_add(&w, p, 1);
		}
		v = xrealloc(v, (n + 2) * sizeof(char *));
		v[n++] = w.s;
	}
	v[n] = NULL;
	*count = n;
	return v;
}

/* sacctmgr without a command: commands from stdin, one a line (a prompt
 * when it is a terminal), until end of input, quit or exit.  Read with
 * read(2), a byte at a time: the commit question reads the same input. */
static int interactive(void)
{
	bool tty = isatty(STDIN_FILENO);
	int status = 0;
	for (;;) {
		struct strbuf line = { 0 };
		char c;
		ssize_t got = 0;
		if (tty) {
			printf("sacctmgr: ");
			fflush(stdout);
		}
		strbuf_adds(&line, "");
		while ((got = read(STDIN_FILENO, &c, 1)) == 1 && c != '\n')
			strbuf_add(&line, &c, 1);
		int n;
		char **words = line_words(line.s, &n);
		free(line.s);
		bool quit = n && (!strcasecmp(words[0], "quit") || !strcasecmp(words[0], "exit"));
		if (n && !quit && run_command(n, words))
			status = 1;
		for (int i = 0; i < n; i++)
			free(words[i]);
		free(words);
		fflush(stdout);
		if (quit || got != 1)
			break;
	}
	if (tty)
		printf("\n");
	return status;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "associations", no_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
		{ "immediate", no_argument, NULL, 'i' },    { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },     { "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },        { "readonly", no_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },      { "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, 'h' },        { "format", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	/* '+': options only before the command, so a value like -1 after it
	 * is never taken for an option */
	while ((c = getopt_long(argc, argv, "+hinpPQrsvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'i': opts.immediate = true; break;
		case 'n': opts.noheader = true; break;
		case 'p': opts.parsable = 1; break;
		case 'P': opts.parsable = 2; break;
		case 'Q': opts.quiet = true; break;
		case 'r': opts.readonly = true; break;
		case 's': opts.assocs = true; break;
		case 'v': break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'o':
			free(opt_format);
			opt_format = xstrdup(optarg);
			break;
		default: usage(stderr); return 1;
		}
	}
	rc = optind >= argc ? interactive() : run_command(argc - optind, argv + optind);
	free(opt_format);
	if (client_ready)
		cmd_client_fini(&client);
	return rc;
}
