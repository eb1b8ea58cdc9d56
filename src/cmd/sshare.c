/* sshare: fair-share figures of the associations (SHARE_INFO), printed in
 * Slurm 22.05's columns: the account tree with user rows one space deeper
 * than their account, -l's NormUsage/LevelFS/GrpTRESMins/TRESRunMins,
 * -o fields with %width, -p/-P.  The controller computes the figures
 * (src/acct/usage.c) and decides who sees which rows (PrivateData=usage). */
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cmd/opt.h"
#include "common/msg.h"
#include "common/xmalloc.h"

enum field_id {
	F_ACCOUNT, F_CLUSTER, F_EFF_USAGE, F_FAIRSHARE, F_GRP_TRES_MINS, F_ID, F_LEVEL_FS,
	F_NORM_SHARES, F_NORM_USAGE, F_PARTITION, F_RAW_SHARES, F_RAW_USAGE, F_TRES_RUN_MINS,
	F_USER, F_GRP_TRES_RAW,
};

struct field {
	const char *name;
	int width;              /* negative: left-justified (header too) */
	enum field_id id;
};

static const struct field fields[] = {
	{ "Account", -20, F_ACCOUNT }, { "Cluster", 10, F_CLUSTER },
	{ "EffectvUsage", 13, F_EFF_USAGE }, { "FairShare", 10, F_FAIRSHARE },
	{ "GrpTRESMins", -30, F_GRP_TRES_MINS }, { "GrpTRESRaw", -30, F_GRP_TRES_RAW }, { "ID", 6, F_ID }, { "LevelFS", 10, F_LEVEL_FS },
	{ "NormShares", 11, F_NORM_SHARES }, { "NormUsage", 11, F_NORM_USAGE },
	{ "Partition", 12, F_PARTITION }, { "RawShares", 10, F_RAW_SHARES },
	{ "RawUsage", 11, F_RAW_USAGE }, { "TRESRunMins", -30, F_TRES_RUN_MINS },
	{ "User", 10, F_USER },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

#define SHORT_FORMAT "Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare"
#define LONG_FORMAT \
	"Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare,LevelFS," \
	"GrpTRESMins,TRESRunMins"
#define LONG_FORMAT_CLASSIC \
	"Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare," \
	"GrpTRESMins,TRESRunMins"

struct column {
	const struct field *field;
	int width;
};

enum parsable { PARSABLE_NO, PARSABLE_END, PARSABLE_NO_END };

/* "Account,User%20" -> columns (a name matches the field it begins, as
 * Slurm's; %N sets the width).  NULL, with the message printed, for an
 * unknown name. */
static struct column *sshare_format_parse(const char *spec, size_t *count)
{
	size_t n;
	char **names = opt_split(spec, ',', &n);
	struct column *cols = xmalloc((n + 1) * sizeof(*cols));
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char *pct = strchr(names[i], '%');
		int width = 0;
		if (pct) {
			*pct = '\0';
			width = atoi(pct + 1);
		}
		const struct field *f = NULL;
		size_t len = strlen(names[i]);
		for (size_t k = 0; k < NFIELDS && len; k++)
			if (!strncasecmp(fields[k].name, names[i], len)) {
				f = &fields[k];
				break;
			}
		if (!f) {
			fprintf(stderr, "sshare: error: Invalid field requested: \"%s\"\n", names[i]);
			free(cols);
			opt_strv_free(names);
			return NULL;
		}
		cols[*count].field = f;
		cols[*count].width = width ? (f->width < 0 ? -abs(width) : abs(width)) : f->width;
		(*count)++;
	}
	opt_strv_free(names);
	return cols;
}

/* One cell as Slurm's print_fields: cut to the width with a '+' at the end
 * when too long, justified by the width's sign, a space after. */
static void cell(const char *v, int width, enum parsable p, bool last)
{
	if (p != PARSABLE_NO) {
		fputs(v, stdout);
		if (!(last && p == PARSABLE_NO_END))
			putchar('|');
		return;
	}
	int w = abs(width);
	char buf[512];
	if ((int)strlen(v) > w && w > 0) {
		snprintf(buf, sizeof(buf), "%.*s", w, v);
		buf[w - 1] = '+';
		v = buf;
	}
	printf(width < 0 ? "%-*s " : "%*s ", w, v);
}

static void print_header(const struct column *cols, size_t n, enum parsable p)
{
	for (size_t i = 0; i < n; i++) {
		if (p != PARSABLE_NO) {
			cell(cols[i].field->name, 0, p, i + 1 == n);
			continue;
		}
		int w = abs(cols[i].width);
		printf(cols[i].width < 0 ? "%-*.*s " : "%*.*s ", w, w, cols[i].field->name);
	}
	putchar('\n');
	if (p != PARSABLE_NO)
		return;
	for (size_t i = 0; i < n; i++) {
		int w = abs(cols[i].width);
		for (int k = 0; k < w; k++)
			putchar('-');
		putchar(' ');
	}
	putchar('\n');
}

static const char *value(const struct column *c, const json_t *row, bool fair_tree,
			 const char *cluster, char *buf, size_t len)
{
	bool root = cmd_jbool(row, "root");
	bool user = *cmd_jstr(row, "user") != '\0';
	json_t *v;

	switch (c->field->id) {
	case F_ACCOUNT:
		/* the depth as leading spaces, user rows one deeper than their account */
		snprintf(buf, len, "%*s%s", (int)cmd_jint(row, "depth"), "", cmd_jstr(row, "account"));
		return buf;
	case F_CLUSTER: return cluster;
	case F_USER: return cmd_jstr(row, "user");
	case F_PARTITION: return cmd_jstr(row, "partition");
	case F_ID:
		snprintf(buf, len, "%lld", cmd_jint(row, "id"));
		return buf;
	case F_RAW_SHARES:
		if (root)
			return "";
		v = json_object_get(row, "shares");
		if (json_is_string(v))
			return json_string_value(v);   /* "parent" */
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return buf;
	case F_NORM_SHARES:
		snprintf(buf, len, "%f", json_number_value(json_object_get(row, "norm_shares")));
		return buf;
	case F_RAW_USAGE:
		snprintf(buf, len, "%llu",
			 (unsigned long long)json_number_value(json_object_get(row, "raw_usage")));
		return buf;
	case F_NORM_USAGE:
		if (root)
			return "";
		snprintf(buf, len, "%f", json_number_value(json_object_get(row, "norm_usage")));
		return buf;
	case F_EFF_USAGE:
		snprintf(buf, len, "%f", json_number_value(json_object_get(row, "eff_usage")));
		return buf;
	case F_FAIRSHARE:
		/* fair tree ranks users only; classic has a factor for accounts too */
		if (root || (fair_tree && !user))
			return "";
		snprintf(buf, len, "%f", json_number_value(json_object_get(row, "fairshare")));
		return buf;
	case F_LEVEL_FS:
		if (root || !fair_tree)
			return "";
		v = json_object_get(row, "level_fs");
		if (json_is_null(v))
			return "inf";
		snprintf(buf, len, "%f", json_number_value(v));
		return buf;
	case F_GRP_TRES_MINS: return cmd_jstr(row, "grp_tres_mins");
	case F_TRES_RUN_MINS: return cmd_jstr(row, "tres_run_mins");
	case F_GRP_TRES_RAW: return cmd_jstr(row, "grp_tres_raw");
	}
	return "";
}

#ifndef SSHARE_NO_MAIN
static void help_format(void)
{
	for (size_t i = 0; i < NFIELDS; i++)
		printf("%-15s%s", fields[i].name, (i % 5 == 4 || i + 1 == NFIELDS) ? "\n" : "");
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: sshare [-A Accounts] [-a] [-l] [-m] [-n] [-p|-P] [-u Users] [-o fields] [-v]\n");
}

static void help(void)
{
	printf("Usage: sshare [OPTION]\n"
	       "  Valid OPTIONs are:\n"
	       "    -a or --all            list all users\n"
	       "    -A or --accounts=      display specific accounts (comma separated list)\n"
	       "    -e or --helpformat     Print a list of fields that can be specified\n"
	       "                           with the '--format' option\n"
	       "    -l or --long           include normalized usage in output\n"
	       "    -m or --partition      print the partition part of the association\n"
	       "    -M or --cluster=name   cluster to issue commands to.\n"
	       "    -n or --noheader       omit header from output\n"
	       "    -o or --format=        Comma separated list of fields. (use\n"
	       "                           (\"--helpformat\" for a list of available fields).\n"
	       "    -p or --parsable       '|' delimited output with a trailing '|'\n"
	       "    -P or --parsable2      '|' delimited output without a trailing '|'\n"
	       "    -u or --users=         display specific users (comma separated list)\n"
	       "    -U or --Users          display only user information\n"
	       "    -v or --verbose        display more information\n"
	       "    -V or --version        display tool version number\n"
	       "          --help           display this usage description\n"
	       "          --usage          display this usage description\n");
}

enum { OPT_HELP = 256, OPT_USAGE };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "accounts", required_argument, NULL, 'A' }, { "all", no_argument, NULL, 'a' },
		{ "helpformat", no_argument, NULL, 'e' }, { "long", no_argument, NULL, 'l' },
		{ "cluster", required_argument, NULL, 'M' }, { "clusters", required_argument, NULL, 'M' },
		{ "partition", no_argument, NULL, 'm' },
		{ "noheader", no_argument, NULL, 'n' }, { "format", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' }, { "parsable2", no_argument, NULL, 'P' },
		{ "users", required_argument, NULL, 'u' }, { "Users", no_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' }, { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, OPT_HELP }, { "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	const char *clusters_arg = NULL, *accounts_arg = NULL, *users_arg = NULL, *format = NULL;
	bool all = false, long_form = false, no_header = false, users_only = false;
	bool partitions = false;
	enum parsable p = PARSABLE_NO;
	int c, status = 1;

	while ((c = getopt_long(argc, argv, "aA:elmM:no:pPu:UvVh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'A': accounts_arg = optarg; break;
		case 'e': help_format(); return 0;
		case 'l': long_form = true; break;
		case 'm': partitions = true; break;
		case 'M': clusters_arg = optarg; break;
		case 'v': break;   /* one cluster: this one */
		case 'n': no_header = true; break;
		case 'o': format = optarg; break;
		case 'p': p = PARSABLE_END; break;
		case 'P': p = PARSABLE_NO_END; break;
		case 'u': users_arg = optarg; break;
		case 'U': users_only = true; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'h': case OPT_HELP: case OPT_USAGE: help(); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (opt_unknown_args("sshare", argc, argv, optind))
		return 1;

	struct cmd_client client;
	struct herd_error err = { "" };
	json_t *body = json_object(), *reply = NULL;
	struct column *cols = NULL;
	size_t ncols = 0;
	bool client_ok = false;

	if (accounts_arg) {
		json_t *a = json_array();
		char **v = opt_split_lower(accounts_arg, ',', NULL);
		for (char **s = v; s && *s; s++)
			json_array_append_new(a, json_string(*s));
		opt_strv_free(v);
		json_object_set_new(body, "accounts", a);
	}
	/* sshare without -a or -u: the caller's own user rows (with every
	 * account row); -u all is -a */
	json_t *users = json_array();
	if (users_arg) {
		char **v = opt_split(users_arg, ',', NULL);
		for (char **s = v; s && *s; s++) {
			if (!strcasecmp(*s, "all"))
				all = true;
			json_array_append_new(users, json_string(*s));
		}
		opt_strv_free(v);
	} else if (!all) {
		struct passwd *pw = getpwuid(getuid());
		if (pw)
			json_array_append_new(users, json_string(pw->pw_name));
	}
	json_object_set_new(body, "users", users);
	if (all)
		json_object_set_new(body, "all", json_true());

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sshare: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	if (clusters_arg && *clusters_arg && cmd_client_cluster(&client, clusters_arg) < 0)
		goto out;
	int rc = cmd_call(&client, MSG_SHARE_INFO, body, &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "sshare: error: %s\n", err.text);
		goto out;
	}
	bool fair_tree = cmd_jbool(reply, "fair_tree");
	char *with_partition = NULL;
	if (!format) {
		format = long_form ? (fair_tree ? LONG_FORMAT : LONG_FORMAT_CLASSIC) : SHORT_FORMAT;
		/* -m: the partition of per-partition associations, after User */
		if (partitions)
			format = with_partition = xasprintf("Account,User,Partition%s",
							    format + strlen("Account,User"));
	}
	cols = sshare_format_parse(format, &ncols);
	free(with_partition);
	if (!cols)
		goto out;
	if (!no_header)
		print_header(cols, ncols, p);
	json_t *rows = json_object_get(reply, "shares"), *row;
	const char *cluster = cmd_jstr(reply, "cluster");
	size_t i;
	char buf[512];
	json_array_foreach(rows, i, row) {
		bool is_user = *cmd_jstr(row, "user") != '\0';
		if (users_only && !is_user)
			continue;
		if (users_only)   /* -U: the users alone, not under their accounts */
			json_object_set_new(row, "depth", json_integer(0));
		for (size_t k = 0; k < ncols; k++)
			cell(value(&cols[k], row, fair_tree, cluster, buf, sizeof(buf)), cols[k].width,
			     p, k + 1 == ncols);
		putchar('\n');
	}
	status = 0;
out:
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(body);
	json_decref(reply);
	free(cols);
	return status;
}
#endif
