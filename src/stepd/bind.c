/* srun --cpu-bind on a node.  Herd has no core/thread topology of its own:
 * the step's CPU list (from the controller) is in CPU ID order, and "cores"
 * and "threads" both hand each task cpus_per_task consecutive IDs of it, the
 * way Slurm's default block binding does on a node without SMT; "sockets",
 * "ldoms" and "boards" do the same (one socket, one board here). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/bind.h"

/* Parse "0x3" (hex, "0x" optional) into a set. */
static int bind_parse_mask(const char *s, size_t len, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[len - 1 - i];
		int v;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -1;
		for (int bit = 0; bit < 4; bit++)
			if (v & (1 << bit)) {
				if (i * 4 + bit >= BIND_MAX_CPUS)
					return -1;
				CPU_SET(i * 4 + bit, set);
			}
	}
	return CPU_COUNT(set) ? 0 : -1;
}

static int bind_parse_cpu(const char *s, size_t len, cpu_set_t *set)
{
	char *end;
	char tmp[32];
	long v;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	/* map_cpu takes decimal IDs, or hex with 0x, as Slurm */
	v = strtol(tmp, &end, 0);
	if (errno || *end || v < 0 || v >= BIND_MAX_CPUS)
		return -1;
	CPU_ZERO(set);
	CPU_SET(v, set);
	return 0;
}

static int bind_parse_list(const char *list, bool mask, struct bind *b)
{
	const char *p = list;

	b->list = xstrdup(list);
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		cpu_set_t set;
		if ((mask ? bind_parse_mask(p, len, &set) : bind_parse_cpu(p, len, &set)) < 0)
			return -1;
		b->entries = xrealloc(b->entries, (b->nentries + 1) * sizeof(cpu_set_t));
		b->entries[b->nentries++] = set;
		if (!comma)
			break;
		p = comma + 1;
	}
	return b->nentries ? 0 : -1;
}

int bind_parse(const char *spec, struct bind *b, struct herd_error *err)
{
	char *copy = xstrdup(spec ? spec : ""), *word;

	memset(b, 0, sizeof(*b));
	/* Words are comma separated, but a map/mask list also uses commas and
	 * runs to the end of the option (Slurm: it must come last). */
	for (char *p = copy; p && *p;) {
		char *comma = strchr(p, ',');
		word = p;
		if (!strncmp(word, "map_cpu:", 8) || !strncmp(word, "mask_cpu:", 9)) {
			bool mask = word[1] == 'a' && word[2] == 's';
			if (bind_parse_list(strchr(word, ':') + 1, mask, b) < 0) {
				errprintf(err, "Failed to parse --cpu-bind list: %.60s", spec);
				goto error;
			}
			b->type = mask ? BIND_MASK : BIND_MAP;
			break;
		}
		if (comma)
			*comma = '\0';
		if (!strcmp(word, "v") || !strcmp(word, "verbose"))
			b->verbose = true;
		else if (!strcmp(word, "q") || !strcmp(word, "quiet"))
			b->verbose = false;
		else if (!strcmp(word, "none") || !strcmp(word, "no"))
			b->type = BIND_NONE;
		else if (!strcmp(word, "cores") || !strcmp(word, "sockets") || !strcmp(word, "ldoms") ||
			 !strcmp(word, "boards")) {
			b->type = BIND_CORES;
			b->sockets = !strcmp(word, "sockets") || !strcmp(word, "ldoms");
		}
		else if (!strcmp(word, "rank"))
			b->type = BIND_RANK;
		else if (!strcmp(word, "threads"))
			b->type = BIND_THREADS;
		else if (!word[0])
			;   /* ",," */
		else {
			errprintf(err, "Invalid --cpu-bind argument: %.60s", spec);
			goto error;
		}
		p = comma ? comma + 1 : NULL;
	}
	free(copy);
	return 0;
error:
	free(copy);
	bind_free(b);
	return -1;
}

void bind_free(struct bind *b)
{
	free(b->list);
	free(b->entries);
	free(b->all_cpus);
	memset(b, 0, sizeof(*b));
}

static int bind_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int bind_cpu_list(const char *spec, const cpu_set_t *avail, int **cpus, size_t *ncpus)
{
	cpu_set_t set;
	const char *p = spec;

	*cpus = NULL;
	*ncpus = 0;
	CPU_ZERO(&set);
	if (!spec || !spec[0]) {
		if (avail)
			set = *avail;
	} else {
		while (*p) {
			char *end;
			long a = strtol(p, &end, 10), z = a;
			if (end == p || a < 0 || a >= BIND_MAX_CPUS)
				return -1;
			p = end;
			if (*p == '-') {
				z = strtol(p + 1, &end, 10);
				if (end == p + 1 || z < a || z >= BIND_MAX_CPUS)
					return -1;
				p = end;
			}
			for (long c = a; c <= z; c++)
				CPU_SET(c, &set);
			if (*p == ',')
				p++;
			else if (*p)
				return -1;
		}
	}
	*cpus = xmalloc((CPU_COUNT(&set) + 1) * sizeof(int));
	for (int c = 0; c < BIND_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			(*cpus)[(*ncpus)++] = c;
	qsort(*cpus, *ncpus, sizeof(int), bind_int_cmp);
	return 0;
}

int bind_task_mask(const struct bind *b, const int *cpus, size_t ncpus, int cpus_per_task,
		   int local, cpu_set_t *mask)
{
	CPU_ZERO(mask);
	switch (b->type) {
	case BIND_NONE:
		return 0;
	case BIND_MAP:
	case BIND_MASK:
		/* Slurm: task i gets entry i mod n of the list */
		*mask = b->entries[local % b->nentries];
		return 1;
	case BIND_RANK:
		if (ncpus == 0)
			return 0;
		CPU_SET(cpus[(size_t)local % ncpus], mask);
		return 1;
	case BIND_DEFAULT:
	case BIND_CORES:
	case BIND_THREADS:
		break;
	}
	if (ncpus == 0)
		return 0;
	if (cpus_per_task < 1)
		cpus_per_task = 1;
	/* More tasks than CPUs (an --overlap step, or -n beyond the CPUs
	 * held) wrap around, as Slurm's block distribution of CPUs does. */
	for (int i = 0; i < cpus_per_task; i++)
		CPU_SET(cpus[((size_t)local * cpus_per_task + i) % ncpus], mask);
	if (b->type == BIND_CORES && b->expand_sockets)
		bind_sockets_expand(&b->topo, b->all_cpus, b->nall, mask);
	else if (b->type == BIND_CORES && b->expand_cores)
		bind_cores_expand(&b->topo, b->all_cpus, b->nall, mask);
	return 1;
}

void bind_mask_hex(const cpu_set_t *mask, char *buf, size_t size)
{
	int top = -1;
	size_t o = 0;

	for (int c = BIND_MAX_CPUS - 1; c >= 0; c--)
		if (CPU_ISSET(c, mask)) {
			top = c;
			break;
		}
	if (size < 4) {
		if (size)
			buf[0] = '\0';
		return;
	}
	buf[o++] = '0';
	buf[o++] = 'x';
	if (top < 0) {
		buf[o++] = '0';
		buf[o] = '\0';
		return;
	}
	for (int nib = top / 4; nib >= 0 && o + 1 < size; nib--) {
		int v = 0;
		for (int bit = 0; bit < 4; bit++)
			if (CPU_ISSET(nib * 4 + bit, mask))
				v |= 1 << bit;
		buf[o++] = "0123456789abcdef"[v];
	}
	buf[o] = '\0';
}

void bind_env(const struct bind *b, const int *cpus, size_t ncpus, int cpus_per_task, int nlocal,
	      char **bind, char **type, char **list, char **verbose)
{
	const char *verb = b->verbose ? "verbose" : "quiet";
	struct strbuf masks = { 0 };
	char hex[BIND_MAX_CPUS / 4 + 3];
	cpu_set_t set;

	strbuf_add(&masks, "", 0);
	*verbose = xstrdup(verb);
	if (b->type == BIND_MAP) {
		*bind = xasprintf("%s,map_cpu:%s", verb, b->list);
		*type = xstrdup("map_cpu:");
		*list = xstrdup(b->list);
		free(masks.s);
		return;
	}
	for (int i = 0; i < nlocal; i++) {
		if (bind_task_mask(b, cpus, ncpus, cpus_per_task, i, &set) <= 0)
			break;
		bind_mask_hex(&set, hex, sizeof(hex));
		if (i)
			strbuf_add(&masks, ",", 1);
		strbuf_adds(&masks, hex);
	}
	if (b->type == BIND_NONE || !masks.s[0] || nlocal == 0) {
		*bind = xasprintf("%s,none", verb);
		*type = xstrdup("none");
		*list = xstrdup("");
		free(masks.s);
		return;
	}
	*bind = xasprintf("%s,mask_cpu:%s", verb, masks.s);
	*type = xstrdup("mask_cpu:");
	*list = masks.s;
}

void bind_verbose_line(const struct bind *b, const cpu_set_t *mask, const char *node,
		       unsigned task, unsigned local, int pid, char *buf, size_t size)
{
	char hex[BIND_MAX_CPUS / 4 + 3];
	const char *what = b->type == BIND_NONE ? "NONE" : b->type == BIND_MAP ? "MAP" : "MASK";

	bind_mask_hex(mask, hex, sizeof(hex));
	snprintf(buf, size, "cpu-bind=%s - %.64s, task %2u %2u [%d]: mask %s set\n", what, node, task,
		 local, pid, hex);
}
