/* sinfo: partitions and nodes from PART_INFO and NODE_INFO.  Like Slurm, a
 * line stands for the nodes of one partition that look the same in the
 * fields being printed; -N prints a line per node and partition. */
#include <ctype.h>
#include <getopt.h>
#include <pwd.h>
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

/* sinfo -T's table (scontrol_resv.c: its header's struct record is not
 * this file's) */
void scontrol_resv_table(const json_t *list, bool no_header, FILE *out);

#define FMT_DEFAULT "%#P %.5a %.10l %.6D %.6t %N"
#define FMT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define FMT_NODE "%#N %.6D %.#P %6t"
/* CPUS left-justified: what Slurm 22.05 prints ("8       1:8:1"). */
#define FMT_NODE_LONG "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
#define FMT_SUMMARY "%#P %.5a %.10l %.16F %N"   /* one space before NODELIST, as 22.05 */
#define FMT_REASON "%20E %9u %19H %N"
#define FMT_REASON_LONG "%20E %12U %19H %6t %N"
/* "%all" and -O All: every -o letter, lower case ones first, as Slurm. */
#define FMT_ALL "%a|%b|%c|%d|%e|%f|%g|%h|%l|%m|%n|%o|%p|%r|%s|%t|%u|%v|%w|%z|%A |%B |%C |%D " \
		"|%E |%F |%G |%H |%I |%L |%M |%N |%O |%P |%R |%S |%T |%U |%V |%X |%Y |%Z "

/* Fields only -O names (no -o letter): codes of our own, never typed. */
enum {
	F_ALLOC_MEM = 1, F_COMMENT, F_EXTRA, F_GRES_USED, F_PORT, F_STATE_COMPLETE,
};
#define LETTERS "AaBbCcDdEeFfGgHhIilLMmNnOoPpRrSsTtUuVvwXYZz\1\2\3\4\5\6"

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
	{ 'z', "S:C:T" }, { F_ALLOC_MEM, "ALLOCMEM" }, { F_COMMENT, "COMMENT" },
	{ F_EXTRA, "EXTRA" }, { F_GRES_USED, "GRES_USED" }, { F_PORT, "PORT" },
	{ F_STATE_COMPLETE, "STATECOMPLETE" }, { 0, NULL },
};

/* sinfo -O names (sinfo(1)), case-insensitive.  "All" is handled apart. */
static const struct fmt_name long_fields[] = {
	{ "AllocMem", F_ALLOC_MEM }, { "AllocNodes", 'S' }, { "Available", 'a' },
	{ "Cluster", 'V' }, { "Comment", F_COMMENT }, { "Cores", 'Y' }, { "CPUs", 'c' },
	{ "CPUsLoad", 'O' }, { "CPUsState", 'C' }, { "DefaultTime", 'L' }, { "Disk", 'd' },
	{ "Extra", F_EXTRA }, { "Features", 'f' }, { "features_act", 'b' }, { "FreeMem", 'e' },
	{ "Gres", 'G' }, { "GresUsed", F_GRES_USED }, { "Groups", 'g' },
	{ "MaxCPUsPerNode", 'B' }, { "Memory", 'm' }, { "NodeAddr", 'o' }, { "NodeAI", 'A' },
	{ "NodeAIOT", 'F' }, { "NodeHost", 'n' }, { "NodeList", 'N' }, { "Nodes", 'D' },
	{ "OverSubscribe", 'h' }, { "Partition", 'P' }, { "PartitionName", 'R' },
	{ "Port", F_PORT }, { "PreemptMode", 'M' }, { "PriorityJobFactor", 'I' },
	{ "PriorityTier", 'p' }, { "Priority", 'p' }, { "Reason", 'E' }, { "Root", 'r' },
	{ "Size", 's' }, { "SocketCoreThread", 'z' }, { "Sockets", 'X' },
	{ "StateCompact", 't' }, { "StateLong", 'T' }, { "StateComplete", F_STATE_COMPLETE },
	{ "Threads", 'Z' }, { "Time", 'l' }, { "TimeStamp", 'H' }, { "User", 'u' },
	{ "UserLong", 'U' }, { "Version", 'v' }, { "Weight", 'w' }, { NULL, 0 },
};

/* How a line of several nodes shows a field.  Slurm groups a partition's
 * nodes whose other fields print the same (the key), and shows:
 * - counts and lists over the line's nodes: */
#define SUM_FIELDS "ACDFN"
/* - sizes as the smallest, with '+' when they differ ("250+"), unless -e
 *   (exact), which puts them in the key instead: */
#define SIZE_FIELDS "cdmwXYZzOev\5"
/* - the partition's own settings; a format with none of them groups nodes
 *   across partitions (as -R always does): */
#define PART_FIELDS "PRalLshrgSBMpIV"

struct record {
	const json_t *part;
	const json_t **nodes;
	size_t nnodes;
	char *key;
};

/* What every value needs beyond its line: the options and configuration. */
static struct {
	bool exact;                 /* -e */
	const char *slurm_user;     /* who set the controller's own reasons */
	const char *preempt_mode;   /* PreemptMode (default OFF) */
} ctx;

static const char *lower(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return buf;
}

static const char *upper(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return buf;
}

/* Node state as sinfo prints it: base state, drain turning it into
 * drain/drng, '*' when the node does not answer.  Herd has no power saving,
 * or reboots, so never Slurm's '~', '#', '%', '!',
 * '@', '^' or '$'. */
static const char *node_state(const json_t *node, bool long_form, char *buf, size_t len)
{
	const char *base = cmd_jstr(node, "state");
	bool busy = !strcasecmp(base, "ALLOCATED") || !strcasecmp(base, "MIXED");
	const char *s;
	const char *held = cmd_jstr(node, "resv");   /* an active reservation's */
	if (cmd_jbool(node, "drain"))
		s = busy ? (long_form ? "draining" : "drng") : (long_form ? "drained" : "drain");
	/* Slurm: MAINT unless the node has jobs or is down; RESERVED an idle one */
	else if (!strcmp(held, "MAINT") && !busy && strcasecmp(base, "DOWN")) s = "maint";
	else if (!strcmp(held, "RESERVED") && !strcasecmp(base, "IDLE")) s = long_form ? "reserved" : "resv";
	else if (!strcasecmp(base, "IDLE")) s = "idle";
	else if (!strcasecmp(base, "ALLOCATED")) s = long_form ? "allocated" : "alloc";
	else if (!strcasecmp(base, "MIXED")) s = long_form ? "mixed" : "mix";
	else if (!strcasecmp(base, "DOWN")) s = "down";
	else if (!strcasecmp(base, "FUTURE")) s = long_form ? "future" : "futr";
	else s = long_form ? "unknown" : "unk";
	snprintf(buf, len, "%s%s", s, cmd_jbool(node, "not_responding") ? "*" : "");
	return buf;
}

/* StateComplete: the base state and every flag, "idle+drain+not_responding". */
static const char *node_state_complete(const json_t *node, char *buf, size_t len)
{
	char s[64];
	const char *held = cmd_jstr(node, "resv");
	snprintf(s, sizeof(s), "%s%s%s%s", cmd_jstr(node, "state"), cmd_jbool(node, "drain") ? "+DRAIN" : "",
		 !strcmp(held, "MAINT") ? "+MAINT+RESERVED" : *held ? "+RESERVED" : "",
		 cmd_jbool(node, "not_responding") ? "+NOT_RESPONDING" : "");
	return lower(s, buf, len);
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

/* Slurm's A/I/O split: a node with jobs is allocated (draining or not),
 * else a drained or down one is other, else idle (unknown and unresponsive
 * ones too).  CPUs: the allocated ones, the rest other on a drained or down
 * node, else idle. */
enum { COUNT_ALLOC, COUNT_IDLE, COUNT_OTHER };

static int node_count_class(const json_t *node)
{
	const char *base = cmd_jstr(node, "state");
	if (!strcasecmp(base, "ALLOCATED") || !strcasecmp(base, "MIXED"))
		return COUNT_ALLOC;
	if (cmd_jbool(node, "drain") || !strcasecmp(base, "DOWN"))
		return COUNT_OTHER;
	return COUNT_IDLE;
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

/* A size over a line's nodes: "2", or "2+" when some have more. */
static const char *min_plus(const struct record *r, const char *key, char *buf, size_t len)
{
	long long lo = 0, hi = 0;
	for (size_t i = 0; i < r->nnodes; i++) {
		long long v = cmd_jint(r->nodes[i], key);
		if (!i || v < lo)
			lo = v;
		if (!i || v > hi)
			hi = v;
	}
	snprintf(buf, len, "%lld%s", lo, hi > lo ? "+" : "");
	return buf;
}

static const char *or_null(const char *s)
{
	return *s ? s : "(null)";
}

/* Fields of the partition, the same on each of its lines. */
static const char *part_value(char letter, const json_t *part, char *buf, size_t len)
{
	switch (letter) {
	case 'P':
		snprintf(buf, len, "%s%s", cmd_jstr(part, "name"), cmd_jbool(part, "default") ? "*" : "");
		return buf;
	case 'R': return cmd_jstr(part, "name");
	case 'a':   /* up, down, drain, inactive (what "%.5a" cuts to "inact") */
		return lower(cmd_jstr(part, "state"), buf, len);
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
	case 'r': return cmd_jbool(part, "root_only") ? "yes" : "no";
	case 'h': {
		/* YES and FORCE show their count, 4 unless given ("FORCE:4"). */
		const char *s = cmd_jstr(part, "oversubscribe");
		if ((!strcasecmp(s, "YES") || !strcasecmp(s, "FORCE")))
			snprintf(buf, len, "%s:4", s);
		else
			snprintf(buf, len, "%s", s);
		return buf;
	}
	case 'g': {
		const char *s = cmd_jstr(part, "allow_groups");
		return *s && strcasecmp(s, "ALL") ? s : "all";
	}
	case 'S': {
		const char *s = cmd_jstr(part, "alloc_nodes");
		return *s && strcasecmp(s, "ALL") ? s : "all";
	}
	case 'B': {
		long long n = cmd_jint(part, "max_cpus_per_node");
		if (n < 0 || !json_object_get(part, "max_cpus_per_node"))
			return "UNLIMITED";
		snprintf(buf, len, "%lld", n);
		return buf;
	}
	case 'M': {
		const char *s = cmd_jstr(part, "preempt_mode");
		return upper(*s ? s : ctx.preempt_mode, buf, len);
	}
	case 'p': snprintf(buf, len, "%lld", cmd_jint(part, "priority_tier")); return buf;
	case 'I': snprintf(buf, len, "%lld", cmd_jint(part, "priority_job_factor")); return buf;
	case 'V': return "N/A";   /* the cluster's name only in a federation */
	}
	return "";
}

/* Who set a node's reason: "root", or "root(0)" for UserLong; the
 * controller's own reasons are SlurmUser's, as in Slurm. */
static const char *reason_user(const json_t *node, bool with_uid, char *buf, size_t len)
{
	const char *user = cmd_jstr(node, "reason_user");
	if (!*cmd_jstr(node, "reason"))
		return "Unknown";
	if (!*user)
		user = ctx.slurm_user;
	struct passwd *pw = getpwnam(user);
	if (with_uid && pw)
		snprintf(buf, len, "%s(%u)", user, (unsigned)pw->pw_uid);
	else
		snprintf(buf, len, "%s", user);
	return buf;
}

static const char *record_value(char letter, const void *arg, char *buf, size_t len)
{
	const struct record *r = arg;
	const json_t *node = r->nnodes ? r->nodes[0] : NULL;

	if (strchr(PART_FIELDS, letter))
		return part_value(letter, r->part, buf, len);
	switch (letter) {
	case 'D': snprintf(buf, len, "%zu", r->nnodes); return buf;
	case 'N': case 'n': case 'o': {
		char *s = compress_field(r, letter == 'N' ? "name" : letter == 'n' ? "hostname" : "addr");
		snprintf(buf, len, "%s", s);
		free(s);
		return buf;
	}
	case 'A': case 'F': case 'C': {
		long long n[3] = { 0 }, t = 0;
		for (size_t k = 0; k < r->nnodes; k++) {
			const json_t *nd = r->nodes[k];
			int cls = node_count_class(nd);
			if (letter == 'C') {
				long long cpus = cmd_jint(nd, "cpus"), used = cmd_jint(nd, "alloc_cpus");
				bool other = cmd_jbool(nd, "drain") || !strcasecmp(cmd_jstr(nd, "state"), "DOWN");
				t += cpus;
				n[COUNT_ALLOC] += used;
				n[other ? COUNT_OTHER : COUNT_IDLE] += cpus - used;
			} else {
				t++;
				n[cls]++;
			}
		}
		if (letter == 'A')
			snprintf(buf, len, "%lld/%lld", n[COUNT_ALLOC], n[COUNT_IDLE]);
		else
			snprintf(buf, len, "%lld/%lld/%lld/%lld", n[COUNT_ALLOC], n[COUNT_IDLE],
				 n[COUNT_OTHER], t);
		return buf;
	}
	}
	if (!node) {
		/* A partition line without nodes (sinfo -t with no match). */
		return strchr("tT\6", letter) ? "n/a" : "";
	}
	switch (letter) {
	case 't': return node_state(node, false, buf, len);
	case 'T': return node_state(node, true, buf, len);
	case F_STATE_COMPLETE: return node_state_complete(node, buf, len);
	case 'c': return min_plus(r, "cpus", buf, len);
	case 'm': return min_plus(r, "real_memory", buf, len);
	case 'd': return min_plus(r, "tmp_disk", buf, len);
	case 'w': return min_plus(r, "weight", buf, len);
	case 'X': return min_plus(r, "sockets", buf, len);
	case 'Y': return min_plus(r, "cores", buf, len);
	case 'Z': return min_plus(r, "threads", buf, len);
	case 'z': {
		char s[32], c[32], t[32];
		snprintf(buf, len, "%s:%s:%s", min_plus(r, "sockets", s, sizeof(s)),
			 min_plus(r, "cores", c, sizeof(c)), min_plus(r, "threads", t, sizeof(t)));
		return buf;
	}
	/* herdd does not report the load or free memory: Slurm's unset value. */
	case 'e': case 'O': return "N/A";
	case F_ALLOC_MEM: snprintf(buf, len, "%lld", cmd_jint(node, "alloc_mem")); return buf;
	case F_PORT: snprintf(buf, len, "%lld", cmd_jint(node, "port")); return buf;
	case 'E': {
		const char *s = cmd_jstr(node, "reason");
		return *s ? s : "none";
	}
	case 'H': {
		time_t t = cmd_jint(node, "reason_time");
		return *cmd_jstr(node, "reason") && t ? fmt_timestamp(t, buf, len) : "Unknown";
	}
	case 'u': return reason_user(node, false, buf, len);
	case 'U': return reason_user(node, true, buf, len);
	/* Features are not changeable at run time here: the active ones are
	 * the configured ones. */
	case 'f': case 'b': return or_null(cmd_jstr(node, "features"));
	case 'G': return or_null(cmd_jstr(node, "gres"));
	case F_GRES_USED: return or_null(cmd_jstr(node, "gres_used"));
	/* Herd keeps no node comments or extra strings: Slurm's unset value. */
	case F_COMMENT: case F_EXTRA: return "(null)";
	case 'v': {
		const char *s = cmd_jstr(node, "version");
		return *s ? s : "N/A";
	}
	}
	return "";
}

/* Nodes share a line when every key field prints the same: all but the
 * sums, and but the sizes unless -e. */
static char *record_key(const struct fmt *f, const json_t *part, const json_t *node)
{
	struct record one = { part, &node, 1, NULL };
	char *key = xstrdup("");
	char buf[4096];
	for (size_t i = 0; i < f->count; i++) {
		char letter = f->items[i].letter;
		if (!letter || strchr(SUM_FIELDS, letter) || strchr(PART_FIELDS, letter) ||
		    (!ctx.exact && strchr(SIZE_FIELDS, letter)))
			continue;
		const char *v = record_value(letter, &one, buf, sizeof(buf));
		char *k = xasprintf("%s%s\x1f", key, v);
		free(key);
		key = k;
	}
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
	       "  -e, --exact                group nodes only on exact match of configuration\n"
	       "  -h, --noheader             no headers on output\n"
	       "  -l, --long                 long output - displays more information\n"
	       "  -n, --nodes=NODES          report on specific node(s)\n"
	       "  -N, --Node                 Node-centric format\n"
	       "  -o, --format=format        format specification\n"
	       "  -O, --Format=format        long format specification\n"
	       "  -p, --partition=PARTITION  report on specific partition\n"
	       "  -r, --responding           report only responding nodes\n"
	       "  -R, --list-reasons         list reason nodes are down or drained\n"
	       "  -s, --summarize            report state summary only\n"
	       "  -T, --reservation          show only reservation information\n"
	       "  -S, --sort=fields          comma separated list of fields to sort on\n"
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

/* One -t name against a node, as Slurm's sinfo: "drain" is any drained or
 * draining node; a drained or draining node matches nothing but those and
 * its flags; others match their base state. */
static bool state_is(const json_t *node, const char *want)
{
	char buf[32], lbuf[32];
	const char *s = node_state(node, false, buf, sizeof(buf));
	const char *l = node_state(node, true, lbuf, sizeof(lbuf));
	size_t n = strcspn(s, "*"), ln = strcspn(l, "*");

	if (!strcasecmp(want, "drain"))
		return cmd_jbool(node, "drain");
	if (!strcasecmp(want, "no_respond"))
		return cmd_jbool(node, "not_responding");
	return (!strncasecmp(want, s, n) && strlen(want) == n) ||
	       (!strncasecmp(want, l, ln) && strlen(want) == ln);
}

/* -t a,b (any of them) or a&b (all of them). */
static bool state_matches(const json_t *node, char *const *states, bool all)
{
	for (size_t i = 0; states[i]; i++) {
		bool hit = state_is(node, states[i]);
		if (hit != all)
			return hit;
	}
	return all;
}

/* sinfo(1)'s -t names.  Herd's nodes are never in the second line's states
 * but maint, resv and reserved (no power saving, reboots or failing nodes):
 * those names are accepted and match nothing. */
static const char *const valid_states[] = {
	"unknown", "unk", "down", "idle", "allocated", "alloc", "mixed", "mix", "future", "futr",
	"drain", "drained", "draining", "drng", "no_respond",
	"cloud", "comp", "completing", "fail", "failing", "maint", "npc", "perfctrs", "planned",
	"power_down", "powering_down", "powered_down", "powering_up", "reboot_issued",
	"reboot_requested", "resv", "reserved", "inval", NULL,
};

struct line {
	struct record rec;
	int part_idx;     /* the partition's place in the configuration */
	size_t seq;       /* order of creation: ties keep it */
};

/* -S (SINFO_SORT): format letters, each '+' (default) or '-' (descending);
 * "#P" is the partitions' order in the configuration.  Slurm's defaults:
 * "#P,-t", and "N" with -N. */
struct sort_key {
	char letter;
	bool descending, config_order;
};

static struct sort_key *sort_keys;
static size_t nsort_keys;

static void parse_sort(const char *spec)
{
	sort_keys = xrealloc(sort_keys, (strlen(spec) + 1) * sizeof(*sort_keys));
	nsort_keys = 0;
	for (const char *p = spec; *p; p++) {
		struct sort_key k = { 0 };
		for (; *p == '+' || *p == '-' || *p == '#'; p++) {
			if (*p == '-')
				k.descending = true;
			if (*p == '#')
				k.config_order = true;
		}
		/* Slurm skips what is not a field letter. */
		if (*p && *p != ',' && strchr(LETTERS, *p) && !strchr("\1\2\3\4\5\6", *p)) {
			k.letter = *p;
			sort_keys[nsort_keys++] = k;
		}
		if (!*p)
			break;
	}
}

static int num_or_text_cmp(const char *a, const char *b)
{
	char *ea, *eb;
	long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
	if (ea != a && eb != b && !*ea && !*eb)
		return (x > y) - (x < y);
	return strcmp(a, b);
}

static int key_cmp(const struct line *a, const struct line *b, const struct sort_key *k)
{
	char x[4096], y[4096];
	switch (k->letter) {
	case 'P': case 'R':
		if (k->config_order)
			return a->part_idx - b->part_idx;
		break;
	case 't': case 'T': {
		/* Slurm's node state numbers, flags included. */
		int ra = a->rec.nnodes ? state_rank(a->rec.nodes[0]) : -1;
		int rb = b->rec.nnodes ? state_rank(b->rec.nodes[0]) : -1;
		return (ra > rb) - (ra < rb);
	}
	case 'N':
		if (a->rec.nnodes && b->rec.nnodes)
			return name_cmp(cmd_jstr(a->rec.nodes[0], "name"),
					cmd_jstr(b->rec.nodes[0], "name"));
		return (a->rec.nnodes > 0) - (b->rec.nnodes > 0);
	}
	return num_or_text_cmp(record_value(k->letter, &a->rec, x, sizeof(x)),
			       record_value(k->letter, &b->rec, y, sizeof(y)));
}

static int line_cmp(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	for (size_t i = 0; i < nsort_keys; i++) {
		int c = key_cmp(a, b, &sort_keys[i]);
		if (c)
			return sort_keys[i].descending ? -c : c;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool has_field_of(const struct fmt *f, const char *set)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->items[i].letter && strchr(set, f->items[i].letter))
			return true;
	return false;
}

struct filter {
	struct hostlist *nodes;   /* -n */
	char **states;            /* -t */
	bool states_all;          /* -t a&b */
	bool dead, responding, reasons;
};

static bool node_wanted(const struct filter *flt, const json_t *node)
{
	const char *base = cmd_jstr(node, "state");
	if (flt->nodes && hostlist_find(flt->nodes, cmd_jstr(node, "name")) < 0)
		return false;
	if (flt->states && !state_matches(node, flt->states, flt->states_all))
		return false;
	if (flt->dead && !cmd_jbool(node, "not_responding"))
		return false;
	if (flt->responding && cmd_jbool(node, "not_responding"))
		return false;
	/* -R: down, drained and draining nodes. */
	if (flt->reasons && !cmd_jbool(node, "drain") && strcasecmp(base, "DOWN"))
		return false;
	return true;
}

static struct line *line_push(struct line **lines, size_t *n, const json_t *part, int part_idx,
			      char *key)
{
	*lines = xrealloc(*lines, (*n + 1) * sizeof(**lines));
	struct line *l = &(*lines)[*n];
	*l = (struct line){ { part, NULL, 0, key }, part_idx, *n };
	(*n)++;
	return l;
}

static void line_add_node(struct line *l, const json_t *node, bool across)
{
	for (size_t i = 0; across && i < l->rec.nnodes; i++)
		if (l->rec.nodes[i] == node)
			return;   /* seen through another partition */
	l->rec.nodes = xrealloc(l->rec.nodes, (l->rec.nnodes + 1) * sizeof(*l->rec.nodes));
	l->rec.nodes[l->rec.nnodes++] = node;
}

/* Lines by key through a jansson hash table, so that a large cluster is
 * not grouped in quadratic time.  A key may hold any byte (reasons) and an
 * object's keys must be UTF-8: keys are hashed (FNV-1a) to hex, and each
 * slot lists its lines. */
static char *key_slot(const char *key, int part_idx)
{
	unsigned long long h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return xasprintf("%d:%016llx", part_idx, h);
}

static struct line *line_find(json_t *index, struct line *lines, const char *key, int part_idx)
{
	char *slot = key_slot(key, part_idx);
	json_t *list = json_object_get(index, slot), *v;
	size_t i;
	free(slot);
	json_array_foreach(list, i, v)
		if (!strcmp(lines[json_integer_value(v)].rec.key, key))
			return &lines[json_integer_value(v)];
	return NULL;
}

static void line_index(json_t *index, const char *key, int part_idx, size_t n)
{
	char *slot = key_slot(key, part_idx);
	json_t *list = json_object_get(index, slot);
	if (!list)
		json_object_set_new(index, slot, list = json_array());
	json_array_append_new(list, json_integer((json_int_t)n));
	free(slot);
}

enum { OPT_USAGE = 256, OPT_HELP };

int main(int argc, char **argv)
{
	const char *clusters_arg = getenv("SINFO_CLUSTERS");
	static const struct option long_opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "dead", no_argument, NULL, 'd' },
		{ "exact", no_argument, NULL, 'e' },
		{ "noheader", no_argument, NULL, 'h' },
		{ "long", no_argument, NULL, 'l' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "Node", no_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'o' },
		{ "Format", required_argument, NULL, 'O' },
		{ "partition", required_argument, NULL, 'p' },
		{ "responding", no_argument, NULL, 'r' },
		{ "list-reasons", no_argument, NULL, 'R' },
		{ "reservation", no_argument, NULL, 'T' },
		{ "summarize", no_argument, NULL, 's' },
		{ "sort", required_argument, NULL, 'S' },
		{ "states", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = getenv("SINFO_FORMAT"), *format_long = NULL;
	const char *parts_arg = getenv("SINFO_PARTITION"), *sort = getenv("SINFO_SORT");
	const char *nodes_arg = NULL, *states_arg = NULL;
	bool no_header = false, long_form = false, node_mode = false, summarize = false;
	bool reservations = false;   /* -T */
	struct filter flt = { 0 };
	int c, status = 1;

	argv[0] = "sinfo";
	while ((c = getopt_long(argc, argv, "adehlM:n:No:O:p:rRsS:t:TvV", long_opts, NULL)) != -1) {
		if (c == 'M') {
			clusters_arg = optarg;
			continue;
		}
		switch (c) {
		case 'a': case 'v': break;   /* no hidden partitions */
		case 'd': flt.dead = true; break;
		case 'e': ctx.exact = true; break;
		case 'h': no_header = true; break;
		case 'l': long_form = true; break;
		case 'n': nodes_arg = optarg; break;
		case 'N': node_mode = true; break;
		case 'o': format = optarg; format_long = NULL; break;
		case 'O': format_long = optarg; format = NULL; break;
		case 'p': parts_arg = optarg; break;
		case 'r': flt.responding = true; break;
		case 'R': flt.reasons = true; break;
		case 's': summarize = true; break;
		case 'T': reservations = true; break;
		case 'S': sort = optarg; break;
		case 't': states_arg = optarg; break;
		case 'V': printf("%s\n", CMD_VERSION); return 0;
		case OPT_HELP: help(); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"sinfo --help\" for more information\n");
			return 1;
		}
	}

	char **parts = NULL, *long_spec = NULL;
	struct fmt *fmt = NULL;
	struct line *lines = NULL;
	size_t nlines = 0;
	json_t *preply = NULL, *nreply = NULL, *by_name = json_object(), *by_key = json_object();
	struct cmd_client client;
	bool client_ok = false;
	struct herd_error err = { "" };

	if (states_arg) {
		flt.states_all = strchr(states_arg, '&') != NULL;
		flt.states = opt_split(states_arg, flt.states_all ? '&' : ',', NULL);
		for (size_t i = 0; flt.states[i]; i++) {
			bool ok = false;
			for (size_t k = 0; valid_states[k]; k++)
				ok |= !strcasecmp(flt.states[i], valid_states[k]);
			if (!ok) {
				fprintf(stderr, "sinfo: error: Bad state string: \"%s\"\n", flt.states[i]);
				fprintf(stderr, "sinfo: error: valid states: unknown,down,idle,allocated,"
					"mixed,future,drain,drained,draining,no_respond\n");
				goto out;
			}
		}
	}
	if (parts_arg)
		parts = opt_split(parts_arg, ',', NULL);
	if (nodes_arg) {
		flt.nodes = hostlist_create(nodes_arg);
		if (!flt.nodes) {
			fprintf(stderr, "sinfo: error: Invalid node name specified: %s\n", nodes_arg);
			goto out;
		}
	}
	if (format_long) {
		char *bad;
		if (!strcasecmp(format_long, "All"))
			format = FMT_ALL;
		else if (!(format = long_spec = fmt_from_names(format_long, long_fields, &bad))) {
			fprintf(stderr, "sinfo: error: Invalid node format specification: %s\n", bad);
			free(bad);
			goto out;
		}
	}
	if (format && !strcasecmp(format, "%all"))
		format = FMT_ALL;
	if (!format) {
		if (flt.reasons)
			format = long_form ? FMT_REASON_LONG : FMT_REASON;
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
	if (clusters_arg && *clusters_arg) {
		/* -M: the cluster's report under its name (the first that
		 * resolves: one report per run here) */
		size_t ncl;
		struct cmd_cluster *cl = cmd_clusters_resolve(&client, clusters_arg, &ncl);
		if (!cl)
			goto out;
		cmd_client_aim(&client, &cl[0]);
		printf("CLUSTER: %s\n", cl[0].name);
		cmd_clusters_free(cl, ncl);
	}
	if (reservations) {   /* -T: the reservations alone, other options ignored (as Slurm) */
		json_t *rreply = NULL, *body = json_object();
		int rrc = cmd_call(&client, MSG_RESV_INFO, body, &rreply, &err);
		json_decref(body);
		if (rrc != 0) {
			fprintf(stderr, "slurm_load_reservations: %s\n", err.text);
			goto out;
		}
		scontrol_resv_table(json_object_get(rreply, "reservations"), no_header, stdout);
		json_decref(rreply);
		status = 0;
		goto out;
	}
	ctx.slurm_user = conf_get(client.conf, "SlurmUser");
	if (!ctx.slurm_user)
		ctx.slurm_user = "root";
	ctx.preempt_mode = conf_get(client.conf, "PreemptMode");
	if (!ctx.preempt_mode)
		ctx.preempt_mode = "OFF";
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

	/* Without a partition field (and always for -R) Slurm does not split
	 * lines by partition: a node of several partitions is counted once. */
	bool across = !node_mode && (flt.reasons || !has_field_of(fmt, PART_FIELDS));
	json_t *plist = json_object_get(preply, "partitions");
	json_t *nlist = json_object_get(nreply, "nodes");
	size_t pi, ni;
	json_t *part, *n;
	json_array_foreach(nlist, ni, n)
		json_object_set_new(by_name, cmd_jstr(n, "name"), json_integer((json_int_t)ni));
	json_array_foreach(plist, pi, part) {
		bool part_wanted = true, had_nodes = false;
		if (parts) {
			part_wanted = false;
			for (size_t k = 0; parts[k]; k++)
				part_wanted |= !strcmp(parts[k], cmd_jstr(part, "name"));
		}
		if (!part_wanted)
			continue;
		struct hostlist *members = hostlist_create(cmd_jstr(part, "nodes"));
		for (size_t k = 0; members && k < hostlist_count(members); k++) {
			json_t *at = json_object_get(by_name, hostlist_nth(members, k));
			const json_t *node = at ? json_array_get(nlist, json_integer_value(at)) : NULL;
			if (!node || !node_wanted(&flt, node))
				continue;
			had_nodes = true;
			char *key = node_mode ? NULL : record_key(fmt, part, node);
			int slot_part = across ? -1 : (int)pi;
			struct line *l = key ? line_find(by_key, lines, key, slot_part) : NULL;
			if (l) {
				free(key);
			} else {
				if (key)
					line_index(by_key, key, slot_part, nlines);
				l = line_push(&lines, &nlines, part, (int)pi, key);
			}
			line_add_node(l, node, across);
		}
		/* Slurm still lists a partition whose nodes were all filtered out,
		 * with 0 nodes -- but not for node lists or reasons. */
		if (!had_nodes && !node_mode && !flt.reasons && !flt.nodes)
			line_push(&lines, &nlines, part, (int)pi, NULL);
		hostlist_destroy(members);
	}
	parse_sort(sort ? sort : node_mode ? "N" : "#P,-t");
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), line_cmp);

	const void **rows = xmalloc((nlines + 1) * sizeof(*rows));
	for (size_t i = 0; i < nlines; i++)
		rows[i] = &lines[i].rec;
	fmt_fit(fmt, record_value, rows, nlines, titles, 0);
	/* Slurm's node-list column is never narrower than this in -N. */
	for (size_t i = 0; node_mode && i < fmt->count; i++)
		if (fmt->items[i].fit && fmt->items[i].letter == 'N' && fmt->items[i].width < 9)
			fmt->items[i].width = 9;
	fmt_print_table(fmt, record_value, rows, nlines, titles, !no_header, long_form);
	free(rows);
	status = 0;
out:
	for (size_t i = 0; i < nlines; i++) {
		free(lines[i].rec.nodes);
		free(lines[i].rec.key);
	}
	free(lines);
	if (client_ok)
		cmd_client_fini(&client);
	json_decref(preply);
	json_decref(nreply);
	json_decref(by_name);
	json_decref(by_key);
	opt_strv_free(flt.states);
	opt_strv_free(parts);
	hostlist_destroy(flt.nodes);
	fmt_destroy(fmt);
	free(long_spec);
	free(sort_keys);
	return status;
}
