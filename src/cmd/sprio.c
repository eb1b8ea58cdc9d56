/* sprio: the factors of each pending job's multifactor priority (PRIO_INFO),
 * in Slurm 22.05's columns: the default and -l formats without the factors
 * whose weight is 0, -n normalized, -w the weights, -o letters.  The
 * controller computes the factors (src/ctld/prio.c); this only prints what
 * the scheduler uses. */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

#define LETTERS "aAbBcfFijJnNopPqQrStTuyY"

static const struct fmt_title titles[] = {
	{ 'a', "AGE" }, { 'A', "AGE" }, { 'b', "ASSOC" }, { 'B', "ASSOC" }, { 'c', "CLUSTER" },
	{ 'f', "FAIRSHARE" }, { 'F', "FAIRSHARE" }, { 'i', "JOBID" }, { 'j', "JOBSIZE" },
	{ 'J', "JOBSIZE" }, { 'n', "QOSNAME" }, { 'N', "NICE" }, { 'o', "ACCOUNT" },
	{ 'p', "PARTITION" }, { 'P', "PARTITION" }, { 'q', "QOS" }, { 'Q', "QOS" },
	{ 'r', "PARTITION" }, { 'S', "SITE" }, { 't', "TRES" }, { 'T', "TRES" }, { 'u', "USER" },
	{ 'y', "PRIORITY" }, { 'Y', "PRIORITY" }, { 0, NULL },
};

/* One line: a job, or (weights) the -w line. */
struct row {
	const json_t *job;
	const json_t *weights;
	const char *cluster;
};

static const char *factor_key(char letter)
{
	switch (letter) {
	case 'a': case 'A': return "age";
	case 'b': case 'B': return "assoc";
	case 'f': case 'F': return "fairshare";
	case 'j': case 'J': return "job_size";
	case 'p': case 'P': return "part_prio";
	case 'q': case 'Q': return "qos_prio";
	}
	return NULL;
}

static const char *weight_key(char letter)
{
	switch (letter) {
	case 'a': case 'A': return "age";
	case 'b': case 'B': return "assoc";
	case 'f': case 'F': return "fairshare";
	case 'j': case 'J': return "job_size";
	case 'p': case 'P': return "partition";
	case 'q': case 'Q': return "qos";
	}
	return NULL;
}

static double jnum(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : 0;
}

static const char *tres_cell(const json_t *tres, bool normalized, char *buf, size_t len)
{
	struct strbuf sb = { 0 };
	size_t i;
	json_t *t;
	char item[96];
	json_array_foreach(tres, i, t) {
		if (normalized)
			snprintf(item, sizeof(item), "%s%s=%.2f", sb.len ? "," : "",
				 json_string_value(json_array_get(t, 0)), jnum(json_array_get(t, 1)));
		else
			snprintf(item, sizeof(item), "%s%s=%.0f", sb.len ? "," : "",
				 json_string_value(json_array_get(t, 0)), jnum(json_array_get(t, 2)));
		strbuf_adds(&sb, item);
	}
	snprintf(buf, len, "%s", sb.s ? sb.s : "");
	free(sb.s);
	return buf;
}

static const char *weights_value(char letter, const struct row *r, char *buf, size_t len)
{
	const char *k = weight_key(letter);
	if (k) {
		snprintf(buf, len, "%lld", cmd_jint(r->weights, k));
		return buf;
	}
	switch (letter) {
	case 'i': return "Weights";
	case 'S': return "1";
	case 'T': return cmd_jstr(r->weights, "tres");
	case 'c': return r->cluster;
	}
	return "";
}

static const char *value(char letter, const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const json_t *job = r->job;
	const char *k;

	if (!job)
		return weights_value(letter, r, buf, len);
	if ((k = factor_key(letter))) {
		const json_t *f = json_object_get(job, k);
		if (letter >= 'a' && letter <= 'z')
			snprintf(buf, len, "%.7f", jnum(json_array_get(f, 0)));
		else
			snprintf(buf, len, "%.0f", jnum(json_array_get(f, 1)));
		return buf;
	}
	switch (letter) {
	case 'c': return r->cluster;
	case 'i': snprintf(buf, len, "%lld", cmd_jint(job, "job_id")); return buf;
	case 'n': return cmd_jstr(job, "qos");
	case 'N': snprintf(buf, len, "%lld", cmd_jint(job, "nice")); return buf;
	case 'o': return cmd_jstr(job, "account");
	case 'r': return cmd_jstr(job, "partition");
	case 'S': snprintf(buf, len, "%lld", cmd_jint(job, "site")); return buf;
	case 't': return tres_cell(json_object_get(job, "tres"), true, buf, len);
	case 'T': return tres_cell(json_object_get(job, "tres"), false, buf, len);
	case 'u': return cmd_jstr(job, "user");
	case 'y':
		snprintf(buf, len, "%.14f", (double)cmd_jint(job, "priority") / 4294967295.0);
		return buf;
	case 'Y': snprintf(buf, len, "%lld", cmd_jint(job, "priority")); return buf;
	}
	return "";
}

/* Slurm 22.05's default formats: the short one without the factors
 * weighted 0 (SITE stays; USER with -u), -l every column and NICE; -n
 * left-justified normalized figures, without SITE and NICE. */
static char *default_format(const json_t *weights, bool long_form, bool norm, bool user)
{
	static const struct { const char *key; char letter; } cols[] = {
		{ "age", 'a' }, { "assoc", 'b' }, { "fairshare", 'f' }, { "job_size", 'j' },
		{ "partition", 'p' }, { "qos", 'q' },
	};
	struct strbuf sb = { 0 };
	char item[16];

	strbuf_adds(&sb, "%.15i %9r");
	if (long_form || user)
		strbuf_adds(&sb, " %.8u");
	strbuf_adds(&sb, norm ? " %10y" : " %.10Y");
	if (!norm)
		strbuf_adds(&sb, " %.10S");
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (!long_form && !cmd_jint(weights, cols[i].key))
			continue;
		snprintf(item, sizeof(item), norm ? " %%10%c" : " %%.10%c",
			 norm ? cols[i].letter : cols[i].letter - 32);
		strbuf_adds(&sb, item);
	}
	if (long_form && !norm)
		strbuf_adds(&sb, " %.11N");
	if (long_form || *cmd_jstr(weights, "tres"))
		strbuf_adds(&sb, norm ? " %20t" : " %.20T");   /* (the man page says %20T; 22.05 right-justifies) */
	return sb.s;
}

/* -S "u,r,-y": keys as the format's letters, '-' descending; numbers
 * compare as numbers, names as text; the job ID last (the default, "i"). */
static const char *sort_keys;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	char bx[512], by[512];
	const char *k = sort_keys ? sort_keys : "";

	while (*k) {
		bool desc = false;
		if (*k == '+' || *k == '-')
			desc = *k++ == '-';
		char letter = *k;
		if (!letter)
			break;
		const char *vx = value(letter, x, bx, sizeof(bx));
		const char *vy = value(letter, y, by, sizeof(by));
		int c;
		if (strchr("iYyAaBbFfJjPpQqSN", letter)) {
			double dx = atof(vx), dy = atof(vy);
			c = dx < dy ? -1 : dx > dy;
		} else {
			c = strcmp(vx, vy);
		}
		if (c)
			return desc ? -c : c;
		k++;
		while (*k == ',' || *k == ' ')
			k++;
	}
	long long ix = cmd_jint(x->job, "job_id"), iy = cmd_jint(y->job, "job_id");
	return ix < iy ? -1 : ix > iy;
}

static json_t *list_arg(const char *arg, bool users, bool ints, bool *bad)
{
	json_t *a = json_array();
	char **v = opt_split(arg, ',', NULL);
	for (char **s = v; s && *s; s++) {
		if (ints) {
			char *end;
			long long id = strtoll(*s, &end, 10);
			if (!**s || (*end && *end != '_') || id <= 0) {
				fprintf(stderr, "sprio: error: Invalid job id: %s\n", *s);
				*bad = true;
				break;
			}
			json_array_append_new(a, json_integer(id));
		} else if (users) {
			char *end;
			long uid = strtol(*s, &end, 10);
			struct passwd *pw = NULL;
			if (!*end && **s)
				pw = getpwuid((uid_t)uid);
			else
				pw = getpwnam(*s);
			if (!pw) {   /* as Slurm: said, and left out */
				fprintf(stderr, "sprio: error: Invalid user: %s\n", *s);
				continue;
			}
			json_array_append_new(a, json_string(pw->pw_name));
		} else {
			json_array_append_new(a, json_string(*s));
		}
	}
	opt_strv_free(v);
	return a;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
		     "       [--federation] [--local] [--usage] [-hlnvVw] [-M cluster]\n");
}

static void help(void)
{
	usage(stdout);
	printf("\n"
	       "  -h, --noheader                  no headers on output\n"
	       "  -j, --jobs                      comma separated list of jobs to view\n"
	       "  -l, --long                      long report\n"
	       "  -M, --cluster=cluster_name      cluster to issue commands to\n"
	       "  -n, --norm                      display normalized values\n"
	       "  -o, --format=format             format specification\n"
	       "  -p, --partition=partition_name  comma separated list of partitions\n"
	       "  -S, --sort=fields               sort by these format letters (-: descending)\n"
	       "  -u, --user=user_name            comma separated list of users to view\n"
	       "  -v, --verbose                   display more information\n"
	       "  -V, --version                   output version information and exit\n"
	       "  -w, --weights                   show the weights for each priority factor\n"
	       "\nHelp options:\n"
	       "  --help                          show this help message\n"
	       "  --usage                         display a brief summary of sprio options\n");
}

enum { OPT_HELP = 256, OPT_USAGE, OPT_LOCAL };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "noheader", no_argument, NULL, 'h' }, { "jobs", optional_argument, NULL, 'j' },
		{ "long", no_argument, NULL, 'l' }, { "cluster", required_argument, NULL, 'M' },
		{ "clusters", required_argument, NULL, 'M' }, { "norm", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'o' },
		{ "partition", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' }, { "users", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' }, { "version", no_argument, NULL, 'V' },
		{ "weights", no_argument, NULL, 'w' }, { "federation", no_argument, NULL, OPT_LOCAL },
		{ "local", no_argument, NULL, OPT_LOCAL }, { "help", no_argument, NULL, OPT_HELP },
		{ "usage", no_argument, NULL, OPT_USAGE }, { "sort", required_argument, NULL, 'S' },
		{ "sibling", no_argument, NULL, OPT_LOCAL }, { NULL, 0, NULL, 0 },
	};
	const char *clusters_arg = NULL, *jobs_arg = NULL, *users_arg = NULL, *parts_arg = NULL, *format = NULL;
	bool no_header = false, long_form = false, norm = false, weights_only = false;
	bool jobs_given = false, bad = false;
	int c, status = 1;

	format = getenv("SPRIO_FORMAT");
	if (format && !*format)
		format = NULL;
	while ((c = getopt_long(argc, argv, "hj::lM:no:p:S:u:vVw", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': no_header = true; break;
		case 'j': jobs_given = true; jobs_arg = optarg; break;
		case 'l': long_form = true; break;
		case 'M': clusters_arg = optarg; break;
		case 'v': case OPT_LOCAL: break;   /* one cluster: this one */
		case 'n': norm = true; break;
		case 'o': format = optarg; break;
		case 'p': parts_arg = optarg; break;
		case 'S': sort_keys = optarg; break;
		case 'u': users_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case 'w': weights_only = true; break;
		case OPT_HELP: help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"sprio --help\" for more information\n");
			return 1;
		}
	}
	/* -j's list is optional, so "-j 12" leaves 12 behind: take it, as
	 * Slurm's sprio does with a trailing job list */
	if (jobs_given && !jobs_arg && optind < argc)
		jobs_arg = argv[optind++];
	if (opt_unknown_args("sprio", argc, argv, optind))
		return 1;

	struct cmd_client client;
	struct herd_error err = { "" };
	json_t *body = json_object(), *reply = NULL;
	struct fmt *fmt = NULL;
	char *dflt = NULL;
	bool client_ok = false;

	if (jobs_arg)
		json_object_set_new(body, "job_ids", list_arg(jobs_arg, false, true, &bad));
	if (users_arg)
		json_object_set_new(body, "users", list_arg(users_arg, true, false, &bad));
	if (parts_arg)
		json_object_set_new(body, "partitions", list_arg(parts_arg, false, false, &bad));
	for (const char *k = sort_keys; k && *k; k++) {
		if (*k == ',' || *k == '+' || *k == '-' || *k == ' ')
			continue;
		if (!strchr(LETTERS, *k)) {
			fprintf(stderr, "sprio: error: Invalid sort specification: %c\n", *k);
			bad = true;
			break;
		}
	}
	if (bad)
		goto out;
	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sprio: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	if (clusters_arg && *clusters_arg && cmd_client_cluster(&client, clusters_arg) < 0)
		goto out;
	if (cmd_call(&client, MSG_PRIO_INFO, body, &reply, &err) != 0) {
		fprintf(stderr, "sprio: error: %s\n", err.text);
		goto out;
	}
	if (!cmd_jbool(reply, "multifactor")) {
		fprintf(stderr, "You are not running a supported priority plugin\n(%s).\n"
				"Only 'priority/multifactor' is supported.\n",
			cmd_jstr(reply, "type"));
		goto out;
	}
	const json_t *weights = json_object_get(reply, "weights");
	const char *cluster = client.conf ? conf_cluster_name(client.conf) : "";
	if (!format)
		format = dflt = default_format(weights, long_form, norm, users_arg != NULL);
	fmt = fmt_parse(format, LETTERS);
	if (fmt->bad)   /* as Slurm: said, and the rest printed */
		fprintf(stderr, "sprio: error: Invalid job format specification: %c\n", fmt->bad);
	const json_t *jobs = json_object_get(reply, "jobs");
	size_t n = weights_only ? 1 : json_array_size(jobs);
	struct row *rows = xmalloc((n + 1) * sizeof(*rows));
	const void **ptrs = xmalloc((n + 1) * sizeof(*ptrs));
	for (size_t i = 0; i < n; i++) {
		rows[i] = (struct row){ weights_only ? NULL : json_array_get(jobs, i), weights,
					cluster };
		ptrs[i] = &rows[i];
	}
	if (sort_keys && !weights_only && n > 1)
		qsort(ptrs, n, sizeof(*ptrs), cmp_rows);
	if (!n && jobs_arg && !weights_only) {
		printf("Unable to find jobs matching user/id(s) specified\n");
	} else {
		fmt_print_table(fmt, value, ptrs, n, titles, !no_header, false);
	}
	free(rows);
	free(ptrs);
	status = 0;
out:
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(body);
	json_decref(reply);
	fmt_destroy(fmt);
	free(dflt);
	return status;
}
