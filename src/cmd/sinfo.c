/* sinfo: partitions and nodes from PART_INFO and NODE_INFO.  Like Slurm, a
 * line stands for the nodes of one partition that look the same in the
 * fields being printed; -N prints a line per node and partition. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/fmt.h"
#include "cmd/opt.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/xmalloc.h"

#define FMT_DEFAULT "%#P %.5a %.10l %.6D %.6t %N"
#define FMT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define FMT_NODE "%#N %.6D %.#P %6t"
#define FMT_NODE_LONG "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
#define FMT_SUMMARY "%#P %.5a %.10l %.16F  %N"
#define FMT_REASON "%20E %9u %19H %N"
#define LETTERS "AaBbCcDdEeFfGgHhIilLMmNnOoPpRrSsTtUuVvwXYZz"

static const struct fmt_title titles[] = {
	{ 'a', "AVAIL" }, { 'A', "NODES(A/I)" }, { 'b', "ACTIVE_FEATURES" },
	{ 'B', "MAX_CPUS_PER_NODE" }, { 'c', "CPUS" }, { 'C', "CPUS(A/I/O/T)" },
	{ 'd', "TMP_DISK" }, { 'D', "NODES" }, { 'e', "FREE_MEM" }, { 'E', "REASON" },
	{ 'f', "AVAIL_FEATURES" }, { 'F', "NODES(A/I/O/T)" }, { 'g', "GROUPS" }, { 'G', "GRES" },
	{ 'h', "OVERSUBSCRIBE" }, { 'H', "TIMESTAMP" }, { 'I', "PRIO_JOB_FACTOR" },
	{ 'l', "TIMELIMIT" }, { 'L', "DEFAULTTIME" }, { 'm', "MEMORY" }, { 'M', "PREEMPT_MODE" },
	{ 'n', "HOSTNAMES" }, { 'N', "NODELIST" }, { 'o', "NODE_ADDR" }, { 'O', "CPU_LOAD" },
	{ 'p', "PRIO_TIER" }, { 'P', "PARTITION" }, { 'r', "ROOT" }, { 'R', "PARTITION" },
	{ 's', "JOB_SIZE" }, { 'S', "ALLOCNODES" }, { 't', "STATE" }, { 'T', "STATE" },
	{ 'u', "USER" }, { 'U', "USER" }, { 'v', "VERSION" }, { 'V', "CLUSTER" },
	{ 'w', "WEIGHT" }, { 'X', "SOCKETS" }, { 'Y', "CORES" }, { 'Z', "THREADS" },
	{ 'z', "S:C:T" }, { 0, NULL },
};

/* Letters whose value sums or lists over the nodes of a line. */
#define AGGREGATE "ACDFNneoO"

struct record {
	const json_t *part;
	const json_t **nodes;
	size_t nnodes;
	char *key;
};

/* Node state as sinfo prints it: base state, drain turning it into
 * drain/drng, '*' when the node does not answer. */
static const char *node_state(const json_t *node, bool long_form, char *buf, size_t len)
{
	const char *base = cmd_jstr(node, "state");
	bool busy = !strcasecmp(base, "ALLOCATED") || !strcasecmp(base, "MIXED");
	const char *s;
	if (cmd_jbool(node, "drain"))
		s = busy ? (long_form ? "draining" : "drng") : (long_form ? "drained" : "drain");
	else if (!strcasecmp(base, "IDLE")) s = "idle";
	else if (!strcasecmp(base, "ALLOCATED")) s = long_form ? "allocated" : "alloc";
	else if (!strcasecmp(base, "MIXED")) s = long_form ? "mixed" : "mix";
	else if (!strcasecmp(base, "DOWN")) s = "down";
	else if (!strcasecmp(base, "FUTURE")) s = long_form ? "future" : "futr";
	else s = long_form ? "unknown" : "unk";
	snprintf(buf, len, "%s%s", s, cmd_jbool(node, "not_responding") ? "*" : "");
	return buf;
}

/* Slurm's node state numbers, flags included, for the default "-t"
 * (descending) sort: a drained or unresponsive node sorts first. */
static int state_rank(const json_t *node)
{
	const char *base = cmd_jstr(node, "state");
	int rank = 0;
	if (!strcasecmp(base, "MIXED")) rank = 5;
	else if (!strcasecmp(base, "ALLOCATED")) rank = 3;
	else if (!strcasecmp(base, "IDLE")) rank = 2;
	else if (!strcasecmp(base, "DOWN")) rank = 1;
	else if (!strcasecmp(base, "FUTURE")) rank = 6;
	if (cmd_jbool(node, "drain"))
		rank += 0x200;
	if (cmd_jbool(node, "not_responding"))
		rank += 0x800;
	return rank;
}

static bool node_is_other(const json_t *node)
{
	const char *base = cmd_jstr(node, "state");
	return cmd_jbool(node, "drain") || cmd_jbool(node, "not_responding") ||
	       !strcasecmp(base, "DOWN") || !strcasecmp(base, "UNKNOWN") ||
	       !strcasecmp(base, "FUTURE");
}

/* The names (or hostnames, addresses) of a line's nodes, compressed.  Only
 * node names are unique; hostnames and addresses are shown once each. */
static char *compress_field(const struct record *r, const char *key)
{
	struct hostlist *hl = hostlist_create("");
	for (size_t i = 0; hl && i < r->nnodes; i++)
		if (hostlist_push(hl, cmd_jstr(r->nodes[i], key)) < 0)
			break;
	if (hl && strcmp(key, "name"))
		hostlist_uniq(hl);
	char *s = hl ? hostlist_ranged_string(hl) : NULL;
	hostlist_destroy(hl);
	return s ? s : xstrdup("");
}

static const char *range(long long lo, long long hi, char *buf, size_t len)
{
	if (lo == hi)
		snprintf(buf, len, "%lld", lo);
	else
		snprintf(buf, len, "%lld-%lld", lo, hi);
	return buf;
}

static const char *record_value(char letter, const void *arg, char *buf, size_t len)
{
	const struct record *r = arg;
	const json_t *part = r->part;
	const json_t *node = r->nnodes ? r->nodes[0] : NULL;

	switch (letter) {
	case 'P':
		snprintf(buf, len, "%s%s", cmd_jstr(part, "name"), cmd_jbool(part, "default") ? "*" : "");
		return buf;
	case 'R': return cmd_jstr(part, "name");
	case 'a': {
		const char *s = cmd_jstr(part, "state");
		if (!strcasecmp(s, "INACTIVE"))
			return "inact";
		snprintf(buf, len, "%s", s);
		for (char *p = buf; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		return buf;
	}
	case 'l': {
		long long t = cmd_jint(part, "max_time");
		return t == TIME_INFINITE ? "infinite" : fmt_duration(t, buf, len);
	}
	case 'L': {
		long long t = cmd_jint(part, "default_time");
		return t == TIME_INFINITE ? "n/a" : fmt_duration(t, buf, len);
	}
	case 's': {
		long long lo = cmd_jint(part, "min_nodes"), hi = cmd_jint(part, "max_nodes");
		if (lo < 1)
			lo = 1;
		if (hi < 0)
			snprintf(buf, len, "%lld-infinite", lo);
		else
			range(lo, hi, buf, len);
		return buf;
	}
	case 'r': return "no";
	case 'h': return cmd_jstr(part, "oversubscribe");
	case 'g': case 'S': return "all";
	case 'B': return "UNLIMITED";
	case 'M': return "OFF";
	case 'p': snprintf(buf, len, "%lld", cmd_jint(part, "priority_tier")); return buf;
	case 'I': snprintf(buf, len, "%lld", cmd_jint(part, "priority_job_factor")); return buf;
	case 'V': return "N/A";
	case 'D': snprintf(buf, len, "%zu", r->nnodes); return buf;
	case 'N': case 'n': case 'o': {
		char *s = compress_field(r, letter == 'N' ? "name" : letter == 'n' ? "hostname" : "addr");
		snprintf(buf, len, "%s", s);
		free(s);
		return buf;
	}
	case 'A': case 'F': case 'C': {
		long long a = 0, i = 0, o = 0, t = 0;
		for (size_t k = 0; k < r->nnodes; k++) {
			const json_t *n = r->nodes[k];
			if (letter == 'C') {
				long long cpus = cmd_jint(n, "cpus"), used = cmd_jint(n, "alloc_cpus");
				t += cpus;
				if (node_is_other(n))
					o += cpus;
				else {
					a += used;
					i += cpus - used;
				}
			} else {
				t++;
				if (node_is_other(n))
					o++;
				else if (cmd_jint(n, "alloc_cpus") > 0)
					a++;
				else
					i++;
			}
		}
		if (letter == 'A')
			snprintf(buf, len, "%lld/%lld", a, i);
		else
			snprintf(buf, len, "%lld/%lld/%lld/%lld", a, i, o, t);
		return buf;
	}
	}
	if (!node) {
		/* A partition line without nodes (sinfo -t with no match). */
		return letter == 't' || letter == 'T' ? "n/a" : "";
	}
	switch (letter) {
	case 't': return node_state(node, false, buf, len);
	case 'T': return node_state(node, true, buf, len);
	case 'c': snprintf(buf, len, "%lld", cmd_jint(node, "cpus")); return buf;
	case 'm': snprintf(buf, len, "%lld", cmd_jint(node, "real_memory")); return buf;
	case 'd': return "0";
	case 'e': case 'O': return "N/A";   /* not reported by herdd */
	case 'E': {
		const char *s = cmd_jstr(node, "reason");
		return *s ? s : "none";
	}
	case 'f': return *cmd_jstr(node, "features") ? cmd_jstr(node, "features") : "(null)";
	case 'b': case 'G': return "(null)";
	case 'H': case 'u': case 'U': return "Unknown";
	case 'v': {
		const char *s = cmd_jstr(node, "version");
		return *s ? s : "N/A";
	}
	case 'w': return "1";
	case 'X': snprintf(buf, len, "%lld", cmd_jint(node, "sockets")); return buf;
	case 'Y': snprintf(buf, len, "%lld", cmd_jint(node, "cores")); return buf;
	case 'Z': snprintf(buf, len, "%lld", cmd_jint(node, "threads")); return buf;
	case 'z':
		snprintf(buf, len, "%lld:%lld:%lld", cmd_jint(node, "sockets"), cmd_jint(node, "cores"),
			 cmd_jint(node, "threads"));
		return buf;
	}
	return "";
}

/* Nodes look the same when every non-aggregate field prints the same. */
static char *record_key(const struct fmt *f, const json_t *part, const json_t *node)
{
	struct record one = { part, &node, 1, NULL };
	char *key = xstrdup("");
	char buf[4096];
	for (size_t i = 0; i < f->count; i++) {
		char letter = f->items[i].letter;
		if (!letter || strchr(AGGREGATE, letter))
			continue;
		const char *v = record_value(letter, &one, buf, sizeof(buf));
		char *k = xasprintf("%s%s\x1f", key, v);
		free(key);
		key = k;
	}
	/* Slurm never merges nodes of different states on a state-less line
	 * for -t filtering; the state rank keeps sort order stable too. */
	return key;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: sinfo [-adelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
		"             [-S fields] [-o format] [-O Format] [--federation] [--local]\n"
		"             [--noconvert]\n");
}

static void help(void)
{
	printf("Usage: sinfo [OPTIONS]\n"
	       "  -a, --all                  show all partitions (including hidden and those\n"
	       "                             not accessible)\n"
	       "  -d, --dead                 show only non-responding nodes\n"
	       "  -h, --noheader             no headers on output\n"
	       "  -l, --long                 long output - displays more information\n"
	       "  -n, --nodes=NODES          report on specific node(s)\n"
	       "  -N, --Node                 Node-centric format\n"
	       "  -o, --format=format        format specification\n"
	       "  -p, --partition=PARTITION  report on specific partition\n"
	       "  -r, --responding           report only responding nodes\n"
	       "  -R, --list-reasons         list reason nodes are down or drained\n"
	       "  -s, --summarize            report state summary only\n"
	       "  -t, --states=node_state    specify the what states of nodes to view\n"
	       "  -v, --verbose              verbosity level\n"
	       "  -V, --version              output version information and exit\n\n"
	       "Help options:\n"
	       "  --help                     show this help message\n"
	       "  --usage                    display brief usage message\n");
}

/* Node names in natural order: "n2" before "n10". */
static int name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* -t: node state names as sinfo accepts them. */
static bool state_matches(const json_t *node, char *const *states)
{
	char buf[32], lbuf[32];
	const char *s = node_state(node, false, buf, sizeof(buf));
	const char *l = node_state(node, true, lbuf, sizeof(lbuf));
	bool nresp = cmd_jbool(node, "not_responding");
	for (size_t i = 0; states[i]; i++) {
		const char *want = states[i];
		size_t n = strcspn(s, "*"), ln = strcspn(l, "*");
		if ((!strncasecmp(want, s, n) && strlen(want) == n) ||
		    (!strncasecmp(want, l, ln) && strlen(want) == ln))
			return true;
		if (!strcasecmp(want, "drain") && cmd_jbool(node, "drain"))
			return true;
		if (!strcasecmp(want, "no_respond") && nresp)
			return true;
		if (!strcasecmp(want, "alloc") && !strncmp(l, "allocated", 9))
			return true;
	}
	return false;
}

static const char *const valid_states[] = {
	"unknown", "unk", "down", "idle", "allocated", "alloc", "mixed", "mix", "future", "futr",
	"drain", "drained", "draining", "drng", "no_respond", NULL,
};

static int state_cmp_desc(const void *x, const void *y)
{
	const struct record *a = x, *b = y;
	int pa = a->part == b->part ? 0 : 1;
	if (pa)
		return 0;
	int ra = a->nnodes ? state_rank(a->nodes[0]) : -1;
	int rb = b->nnodes ? state_rank(b->nodes[0]) : -1;
	return rb - ra;
}

enum { OPT_USAGE = 256, OPT_HELP };

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "dead", no_argument, NULL, 'd' },
		{ "exact", no_argument, NULL, 'e' },
		{ "noheader", no_argument, NULL, 'h' },
		{ "long", no_argument, NULL, 'l' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "Node", no_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'o' },
		{ "partition", required_argument, NULL, 'p' },
		{ "responding", no_argument, NULL, 'r' },
		{ "list-reasons", no_argument, NULL, 'R' },
		{ "summarize", no_argument, NULL, 's' },
		{ "states", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = getenv("SINFO_FORMAT"), *parts_arg = getenv("SINFO_PARTITION");
	const char *nodes_arg = NULL, *states_arg = NULL;
	bool no_header = false, long_form = false, node_mode = false, summarize = false;
	bool reasons = false, dead = false, responding = false;
	int c, status = 1;

	argv[0] = "sinfo";
	while ((c = getopt_long(argc, argv, "adehln:No:p:rRst:vV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'e': case 'v': break;   /* no hidden partitions; lines are exact */
		case 'd': dead = true; break;
		case 'h': no_header = true; break;
		case 'l': long_form = true; break;
		case 'n': nodes_arg = optarg; break;
		case 'N': node_mode = true; break;
		case 'o': format = optarg; break;
		case 'p': parts_arg = optarg; break;
		case 'r': responding = true; break;
		case 'R': reasons = true; break;
		case 's': summarize = true; break;
		case 't': states_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case OPT_HELP: help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"sinfo --help\" for more information\n");
			return 1;
		}
	}

	char **states = NULL, **parts = NULL;
	struct hostlist *want_nodes = NULL;
	struct fmt *fmt = NULL;
	struct record *recs = NULL;
	size_t nrecs = 0;
	json_t *preply = NULL, *nreply = NULL;
	struct cmd_client client;
	bool client_ok = false;
	struct herd_error err = { "" };

	if (states_arg) {
		states = opt_split(states_arg, ',', NULL);
		for (size_t i = 0; states[i]; i++) {
			bool ok = false;
			for (size_t k = 0; valid_states[k]; k++)
				ok |= !strcasecmp(states[i], valid_states[k]);
			if (!ok) {
				fprintf(stderr, "sinfo: error: Bad state string: \"%s\"\n", states[i]);
				fprintf(stderr, "sinfo: error: valid states: unknown,down,idle,allocated,"
					"mixed,future,drain,drained,draining,no_respond\n");
				goto out;
			}
		}
	}
	if (parts_arg)
		parts = opt_split(parts_arg, ',', NULL);
	if (nodes_arg) {
		want_nodes = hostlist_create(nodes_arg);
		if (!want_nodes) {
			fprintf(stderr, "sinfo: error: Invalid node name specified: %s\n", nodes_arg);
			goto out;
		}
	}
	if (!format) {
		if (reasons)
			format = FMT_REASON;
		else if (summarize)
			format = FMT_SUMMARY;
		else if (node_mode)
			format = long_form ? FMT_NODE_LONG : FMT_NODE;
		else
			format = long_form ? FMT_LONG : FMT_DEFAULT;
	}
	fmt = fmt_parse(format, LETTERS);
	if (fmt->bad)
		fprintf(stderr, "Invalid node format specification: %c\n", fmt->bad);

	if (cmd_client_init(&client, &err) < 0) {
		fprintf(stderr, "sinfo: error: %s\n", err.text);
		goto out;
	}
	client_ok = true;
	json_t *empty = json_object();
	int rc = cmd_call(&client, MSG_PART_INFO, empty, &preply, &err);
	if (rc != 0) {
		json_decref(empty);
		fprintf(stderr, "slurm_load_partitions: %s\n", err.text);
		goto out;
	}
	rc = cmd_call(&client, MSG_NODE_INFO, empty, &nreply, &err);
	json_decref(empty);
	if (rc != 0) {
		fprintf(stderr, "slurm_load_node: %s\n", err.text);
		goto out;
	}

	json_t *plist = json_object_get(preply, "partitions");
	json_t *nlist = json_object_get(nreply, "nodes");
	size_t pi;
	json_t *part;
	json_array_foreach(plist, pi, part) {
		bool part_wanted = true;
		if (parts) {
			part_wanted = false;
			for (size_t k = 0; parts[k]; k++)
				part_wanted |= !strcmp(parts[k], cmd_jstr(part, "name"));
		}
		if (!part_wanted)
			continue;
		struct hostlist *members = hostlist_create(cmd_jstr(part, "nodes"));
		size_t first_rec = nrecs;
		for (size_t k = 0; members && k < hostlist_count(members); k++) {
			const char *name = hostlist_nth(members, k);
			const json_t *node = NULL;
			size_t ni;
			json_t *n;
			json_array_foreach(nlist, ni, n)
				if (!strcmp(cmd_jstr(n, "name"), name))
					node = n;
			if (!node)
				continue;
			if (want_nodes && hostlist_find(want_nodes, name) < 0)
				continue;
			if (states && !state_matches(node, states))
				continue;
			if (dead && !cmd_jbool(node, "not_responding"))
				continue;
			if (responding && cmd_jbool(node, "not_responding"))
				continue;
			if (reasons && !*cmd_jstr(node, "reason") && !cmd_jbool(node, "drain") &&
			    strcasecmp(cmd_jstr(node, "state"), "DOWN"))
				continue;
			char *key = node_mode ? NULL : record_key(fmt, part, node);
			struct record *r = NULL;
			for (size_t q = first_rec; key && q < nrecs; q++)
				if (!strcmp(recs[q].key, key))
					r = &recs[q];
			if (r) {
				free(key);
			} else {
				recs = xrealloc(recs, (nrecs + 1) * sizeof(*recs));
				r = &recs[nrecs++];
				*r = (struct record){ part, NULL, 0, key };
			}
			r->nodes = xrealloc(r->nodes, (r->nnodes + 1) * sizeof(*r->nodes));
			r->nodes[r->nnodes++] = node;
		}
		/* Slurm still lists a partition whose nodes were all filtered out,
		 * with 0 nodes -- but not for node lists or reasons. */
		if (nrecs == first_rec && !node_mode && !reasons && !want_nodes) {
			recs = xrealloc(recs, (nrecs + 1) * sizeof(*recs));
			recs[nrecs++] = (struct record){ part, NULL, 0, NULL };
		}
		if (!node_mode && nrecs > first_rec)
			qsort(recs + first_rec, nrecs - first_rec, sizeof(*recs), state_cmp_desc);
		hostlist_destroy(members);
	}
	if (node_mode) {
		/* One line per node, by node name (stable: a node's partitions keep
		 * their order). */
		for (size_t i = 1; i < nrecs; i++)
			for (size_t k = i; k > 0 && name_cmp(cmd_jstr(recs[k - 1].nodes[0], "name"),
							     cmd_jstr(recs[k].nodes[0], "name")) > 0; k--) {
				struct record t = recs[k - 1];
				recs[k - 1] = recs[k];
				recs[k] = t;
			}
	}

	const void **rows = xmalloc((nrecs + 1) * sizeof(*rows));
	for (size_t i = 0; i < nrecs; i++)
		rows[i] = &recs[i];
	fmt_fit(fmt, record_value, rows, nrecs, titles, 0);
	/* Slurm's node-list column is never narrower than this in -N. */
	for (size_t i = 0; node_mode && i < fmt->count; i++)
		if (fmt->items[i].fit && fmt->items[i].letter == 'N' && fmt->items[i].width < 9)
			fmt->items[i].width = 9;
	fmt_print_table(fmt, record_value, rows, nrecs, titles, !no_header, long_form);
	free(rows);
	status = 0;
out:
	for (size_t i = 0; i < nrecs; i++) {
		free(recs[i].nodes);
		free(recs[i].key);
	}
	free(recs);
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(preply);
	json_decref(nreply);
	opt_strv_free(states);
	opt_strv_free(parts);
	hostlist_destroy(want_nodes);
	fmt_destroy(fmt);
	return status;
}
