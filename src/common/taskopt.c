/* The task placement and task environment options as Slurm reads them
 * (taskopt.h).  The sentences are Slurm 22.05's, because users and tools
 * grep for them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include "common/taskopt.h"

/* ---- -m/--distribution ---- */

static int dist_cpu_word(const char *w, enum dist_cpu *out)
{
	if (!strcmp(w, "*"))
		*out = DIST_CPU_DEFAULT;
	else if (!strcasecmp(w, "block"))
		*out = DIST_CPU_BLOCK;
	else if (!strcasecmp(w, "cyclic"))
		*out = DIST_CPU_CYCLIC;
	else if (!strcasecmp(w, "fcyclic"))
		*out = DIST_CPU_FCYCLIC;
	else
		return -1;
	return 0;
}

int dist_parse(const char *s, struct dist *d, struct herd_error *err)
{
	char buf[128], *parts[3] = { buf, NULL, NULL };
	int n = 1;

	memset(d, 0, sizeof(*d));
	d->pack = -1;
	if (!s || !*s || strlen(s) >= sizeof(buf))
		return errprintf(err, "Invalid --distribution specification");
	snprintf(buf, sizeof(buf), "%s", s);
	char *comma = strchr(buf, ',');
	if (comma) {
		if (!strcasecmp(comma + 1, "Pack"))
			d->pack = 1;
		else if (!strcasecmp(comma + 1, "NoPack"))
			d->pack = 0;
		else
			return errprintf(err, "Invalid --distribution specification");
		*comma = '\0';
	}
	for (char *p = buf; *p; p++)
		if (*p == ':') {
			if (n == 3)
				return errprintf(err, "Invalid --distribution specification");
			*p = '\0';
			parts[n++] = p + 1;
		}
	const char *node = parts[0];
	if (!strcmp(node, "*"))
		d->node = DIST_NODE_DEFAULT;
	else if (!strcasecmp(node, "block"))
		d->node = DIST_NODE_BLOCK;
	else if (!strcasecmp(node, "cyclic"))
		d->node = DIST_NODE_CYCLIC;
	else if (!strcasecmp(node, "arbitrary"))
		d->node = DIST_NODE_ARBITRARY;
	else if (!strncasecmp(node, "plane", 5)) {
		char *end;
		long size;
		errno = 0;
		size = node[5] == '=' ? strtol(node + 6, &end, 10) : 0;
		/* Slurm 22.05 takes no socket or core part after plane=N */
		if (node[5] != '=' || errno || end == node + 6 || *end || size < 1 || size > 0xffff ||
		    n > 1)
			return errprintf(err, "Invalid plane size or size not specified");
		d->node = DIST_NODE_PLANE;
		d->plane = (int)size;
	} else
		return errprintf(err, "Invalid --distribution specification");
	if ((n > 1 && dist_cpu_word(parts[1], &d->socket) < 0) ||
	    (n > 2 && dist_cpu_word(parts[2], &d->core) < 0))
		return errprintf(err, "Invalid --distribution specification");
	if (n > 1 && d->socket == DIST_CPU_DEFAULT)
		d->socket = DIST_CPU_CYCLIC;   /* "block:*" reads block:cyclic */
	if (n > 2 && d->core == DIST_CPU_DEFAULT)
		d->core = d->socket;          /* "cyclic:fcyclic:*" inherits the socket part */
	if (n > 1 && d->node == DIST_NODE_DEFAULT)
		d->node = DIST_NODE_BLOCK;     /* "*:cyclic" reads block:cyclic */
	return 0;
}

static const char *dist_cpu_name(enum dist_cpu c)
{
	return c == DIST_CPU_BLOCK ? "block" : c == DIST_CPU_FCYCLIC ? "fcyclic" : "cyclic";
}

void dist_env(const struct dist *d, char *buf, size_t size)
{
	static const char *nodes[] = { "", "block", "cyclic", "plane", "arbitrary" };
	int o = snprintf(buf, size, "%s", nodes[d->node]);

	if (d->socket != DIST_CPU_DEFAULT && o >= 0 && (size_t)o < size)
		o += snprintf(buf + o, size - o, ":%s", dist_cpu_name(d->socket));
	if (d->core != DIST_CPU_DEFAULT && o >= 0 && (size_t)o < size)
		o += snprintf(buf + o, size - o, ":%s", dist_cpu_name(d->core));
	if (d->pack >= 0 && o >= 0 && (size_t)o < size)
		snprintf(buf + o, size - o, ",%s", d->pack ? "pack" : "nopack");
}

enum dist_cpu dist_socket(const struct dist *d)
{
	return d->socket == DIST_CPU_DEFAULT ? DIST_CPU_CYCLIC : d->socket;
}

enum dist_cpu dist_core(const struct dist *d)
{
	return d->core == DIST_CPU_DEFAULT ? dist_socket(d) : d->core;
}

/* ---- --hint ---- */

const char hint_help_text[] =
	"Application hint options:\n"
	"    --hint=             Bind tasks according to application hints\n"
	"        compute_bound   use all cores in each socket, one thread per core\n"
	"        memory_bound    use only one core in each socket\n"
	"        [no]multithread [don't] use extra threads with in-core multi-threading\n"
	"        help            show this help message\n";

int hint_parse(const char *s, unsigned *flags, struct herd_error *err)
{
	char buf[128];

	*flags = 0;
	if (!s || strlen(s) >= sizeof(buf))
		return errprintf(err, "unrecognized --hint argument \"%.60s\", see --hint=help", s ? s : "");
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "compute_bound"))
			*flags |= HINT_COMPUTE_BOUND;
		else if (!strcasecmp(w, "memory_bound"))
			*flags |= HINT_MEMORY_BOUND;
		else if (!strcasecmp(w, "multithread"))
			*flags |= HINT_MULTITHREAD;
		else if (!strcasecmp(w, "nomultithread"))
			*flags |= HINT_NOMULTITHREAD;
		else if (!strcasecmp(w, "help"))
			*flags |= HINT_HELP;
		else
			return errprintf(err, "unrecognized --hint argument \"%.60s\", see --hint=help", w);
	}
	if (!*flags)
		return errprintf(err, "unrecognized --hint argument \"%.60s\", see --hint=help", s);
	return 0;
}

/* ---- --mem-bind ---- */

const char mem_bind_help_text[] =
	"Memory bind options:\n"
	"    --mem-bind=         Bind memory to locality domains (ldom)\n"
	"        nosort          avoid sorting pages at startup\n"
	"        sort            sort pages at startup\n"
	"        q[uiet]         quietly bind before task runs (default)\n"
	"        v[erbose]       verbosely report binding before task runs\n"
	"        no[ne]          don't bind tasks to memory (default)\n"
	"        rank            bind by task rank\n"
	"        local           bind to memory local to processor\n"
	"        map_mem:<list>  specify a memory binding for each task\n"
	"                        where <list> is <numa_id1>,<numa_id2>,...<numa_idN>\n"
	"        mask_mem:<list> specify a memory binding mask for each tasks\n"
	"                        where <list> is <mask1>,<mask2>,...<maskN>\n"
	"        prefer          use the list as a preference, not a strict binding\n"
	"        help            show this help message\n";

/* One list entry: decimal (map_mem) or hex with optional 0x (mask_mem). */
static int mem_bind_number(const char *w, bool hex, uint64_t *out, struct herd_error *err)
{
	const char *p = w;
	uint64_t v = 0;

	if (hex && (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2)))
		p += 2;
	if (!*p)
		return errprintf(err, "Failed to validate number: %.40s, the offending character is %c",
				 w, *w ? w[strlen(w) - 1] : ' ');
	for (; *p; p++) {
		int digit = isdigit((unsigned char)*p) ? *p - '0'
			    : hex && isxdigit((unsigned char)*p) ? tolower((unsigned char)*p) - 'a' + 10 : -1;
		if (digit < 0)
			return errprintf(err, "Failed to validate number: %.40s, the offending character is %c",
					 w, *p);
		if (v > (UINT64_MAX >> 4))
			return errprintf(err, "Failed to validate number: %.40s, the offending character is %c",
					 w, *p);
		v = v * (hex ? 16 : 10) + digit;
	}
	if (!hex && v > 1023)
		return errprintf(err, "Failed to validate number: %.40s, the offending character is %c",
				 w, w[strlen(w) - 1]);
	*out = v;
	return 0;
}

static int mem_bind_list(const char *list, bool hex, struct mem_bind *m, struct herd_error *err)
{
	char buf[512];
	size_t o = 0;

	if (strlen(list) >= sizeof(buf))
		return errprintf(err, "unrecognized --mem-bind argument \"%.60s\"", list);
	snprintf(buf, sizeof(buf), "%s", list);
	m->nentries = 0;
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint64_t v = 0;
		if (m->nentries == MEM_BIND_MAX_ENTRIES)
			return errprintf(err, "unrecognized --mem-bind argument \"%.60s\"", list);
		if (mem_bind_number(w, hex, &v, err) < 0)
			return -1;
		m->entries[m->nentries++] = v;
		/* SLURM_MEM_BIND_LIST: masks without their 0x, as Slurm prints them */
		int k = snprintf(m->list + o, sizeof(m->list) - o, "%s%s", o ? "," : "",
				 hex && (!strncmp(w, "0x", 2) || !strncmp(w, "0X", 2)) ? w + 2 : w);
		if (k > 0 && o + k < sizeof(m->list))
			o += k;
	}
	return 0;
}

int mem_bind_parse(const char *s, struct mem_bind *m, struct herd_error *err)
{
	char buf[512];

	memset(m, 0, sizeof(*m));
	if (!s || strlen(s) >= sizeof(buf))
		return errprintf(err, "unrecognized --mem-bind argument \"%.60s\"", s ? s : "");
	snprintf(buf, sizeof(buf), "%s", s);
	/* words separated by commas; a map_mem:/mask_mem: list runs to the end */
	for (char *p = buf; p && *p;) {
		char *w = p, *comma;
		if (!strncasecmp(w, "map_mem:", 8) || !strncasecmp(w, "mask_mem:", 9)) {
			bool hex = tolower((unsigned char)w[1]) == 'a' && tolower((unsigned char)w[2]) == 's';
			const char *list = strchr(w, ':') + 1;
			if (!*list)
				return errprintf(err, "missing list for \"--mem-bind=%s<list>\"",
						 hex ? "mask_mem:" : "map_mem:");
			if (mem_bind_list(list, hex, m, err) < 0)
				return -1;
			m->type = hex ? MEM_BIND_MASK : MEM_BIND_MAP;
			break;
		}
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!strcasecmp(w, "v") || !strcasecmp(w, "verbose"))
			m->verbose = true;
		else if (!strcasecmp(w, "q") || !strcasecmp(w, "quiet"))
			m->verbose = false;
		else if (!strcasecmp(w, "no") || !strcasecmp(w, "none"))
			m->type = MEM_BIND_NONE;
		else if (!strcasecmp(w, "local"))
			m->type = MEM_BIND_LOCAL;
		else if (!strcasecmp(w, "rank"))
			m->type = MEM_BIND_RANK;
		else if (!strcasecmp(w, "prefer"))
			m->prefer = true;
		else if (!strcasecmp(w, "sort"))
			m->sort = true;
		else if (!strcasecmp(w, "nosort"))
			m->nosort = true;
		else if (!strcasecmp(w, "help"))
			m->help = true;
		else if (*w)
			return errprintf(err, "unrecognized --mem-bind argument \"%.60s\"", w);
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

const char *mem_bind_type_name(const struct mem_bind *m)
{
	switch (m->type) {
	case MEM_BIND_NONE: return "none";
	case MEM_BIND_LOCAL: return "local";
	case MEM_BIND_RANK: return "rank";
	case MEM_BIND_MAP: return "map_mem:";
	case MEM_BIND_MASK: return "mask_mem:";
	case MEM_BIND_DEFAULT: break;
	}
	return "";
}

void mem_bind_env(const struct mem_bind *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", m->verbose ? "verbose" : "quiet",
		 m->prefer ? ",prefer" : "", m->type != MEM_BIND_DEFAULT ? "," : "",
		 mem_bind_type_name(m), m->type == MEM_BIND_MAP || m->type == MEM_BIND_MASK ? m->list : "");
}

/* ---- resource limits ---- */

const char *const rlimit_names[RLIMIT_NAMES] = {
	"CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS",
};

int rlimit_resource(int i)
{
	static const int res[RLIMIT_NAMES] = {
		RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE,
		RLIMIT_RSS, RLIMIT_NPROC, RLIMIT_NOFILE, RLIMIT_MEMLOCK, RLIMIT_AS,
	};
	return i >= 0 && i < RLIMIT_NAMES ? res[i] : -1;
}

/* Names as Slurm takes them: upper case, blanks around a name ignored. */
int rlimit_list_parse(const char *s, unsigned *mask, struct herd_error *err)
{
	char buf[256];

	*mask = 0;
	if (!s || !*s) {
		*mask = (1u << RLIMIT_NAMES) - 1;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return errprintf(err, "Bad rlimit name: %.60s", s);
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		while (*w == ' ' || *w == '\t')
			w++;
		size_t len = strlen(w);
		while (len && (w[len - 1] == ' ' || w[len - 1] == '\t'))
			w[--len] = '\0';
		if (!strcmp(w, "ALL")) {
			*mask = (1u << RLIMIT_NAMES) - 1;
			continue;
		}
		if (!strcmp(w, "NONE")) {
			*mask = 0;
			continue;
		}
		int i = 0;
		while (i < RLIMIT_NAMES && strcmp(w, rlimit_names[i]))
			i++;
		if (i == RLIMIT_NAMES)
			return errprintf(err, "Bad rlimit name: %.60s", w);
		*mask |= 1u << i;
	}
	return 0;
}

/* ---- --get-user-env ---- */

int get_user_env_parse(const char *s, int *timeout, char *mode, struct herd_error *err)
{
	const char *p = s ? s : "";
	char *end = (char *)p;

	*timeout = GET_USER_ENV_TIMEOUT_DEFAULT;
	*mode = 0;
	if (*p == '-' || isdigit((unsigned char)*p)) {
		long v;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p)
			return errprintf(err, "Invalid --get-user-env specification");
		/* Slurm takes any number; a time out of 0 or below is the default,
		 * and no login environment is waited for over an hour */
		*timeout = v <= 0 ? GET_USER_ENV_TIMEOUT_DEFAULT : v > 3600 ? 3600 : (int)v;
	}
	if (*end == 'S' || *end == 's')
		*mode = 'S';
	else if (*end == 'L' || *end == 'l')
		*mode = 'L';
	else if (*end)
		return errprintf(err, "Invalid --get-user-env specification");
	return 0;
}
