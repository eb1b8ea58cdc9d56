/* srun --resv-ports with MpiParams=ports=A-B (doc/steps.md): a block of
 * ports free on every node of the step, held until it ends, handed to its
 * tasks as SLURM_STEP_RESV_PORTS.  The same numbers on each node, as Slurm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/step_impl.h"

#define PORT_BITS 65536

/* MpiParams' ports=A-B; false when it names none. */
static bool port_range(int *lo, int *hi)
{
	const char *p = conf_get(core.conf, "MpiParams");
	for (; p && *p; p += strcspn(p, ","), p += *p == ',') {
		if (strncasecmp(p, "ports=", 6))
			continue;
		if (sscanf(p + 6, "%d-%d", lo, hi) == 2 && *lo > 0 && *lo <= *hi && *hi < PORT_BITS)
			return true;
	}
	return false;
}

static struct bitmap *node_ports(struct node *n)
{
	if (!n->ports_used)
		n->ports_used = bitmap_create(PORT_BITS);
	return n->ports_used;
}

static void mark(const struct job *job, const struct step *s, bool on)
{
	for (int i = 0; i < s->nnodes; i++) {
		struct bitmap *b = node_ports(&core.nodes[job->alloc_node[s->job_node[i]]]);
		for (int p = s->port_lo; p < s->port_lo + s->nports; p++)
			on ? bitmap_set(b, (uint32_t)p) : bitmap_clear(b, (uint32_t)p);
	}
}

int step_ports_take(const struct job *job, struct step *s, long long want, struct herd_error *err)
{
	int lo, hi, most = 0;
	if (!want)
		return 0;
	if (!port_range(&lo, &hi)) {
		if (want < 0)
			return 0;   /* bare --resv-ports without MpiParams=ports: none, as Slurm */
		return HERD_ERR_PORTS_INVALID;
	}
	if (want < 0) {   /* as many as the step has tasks on one node */
		for (int i = 0; i < s->nnodes; i++)
			if (s->ntasks[i] > most)
				most = s->ntasks[i];
		want = most;
	}
	if (want > hi - lo + 1)
		return HERD_ERR_PORTS_INVALID;
	for (int start = lo; start + want - 1 <= hi; start++) {
		bool free_all = true;
		for (int i = 0; i < s->nnodes && free_all; i++) {
			struct node *n = &core.nodes[job->alloc_node[s->job_node[i]]];
			for (int p = start; p < start + want && free_all; p++)
				free_all = !n->ports_used || !bitmap_test(n->ports_used, (uint32_t)p);
			if (!free_all)
				break;
		}
		if (free_all) {
			s->port_lo = start;
			s->nports = (int)want;
			mark(job, s, true);
			return 0;
		}
	}
	(void)err;
	return HERD_ERR_PORTS_BUSY;
}

void step_ports_give(const struct job *job, struct step *s)
{
	if (s->nports)
		mark(job, s, false);
	s->nports = 0;
}

void step_ports_string(const struct step *s, char *buf, size_t len)
{
	if (!s->nports)
		snprintf(buf, len, "%s", "");
	else if (s->nports == 1)
		snprintf(buf, len, "%d", s->port_lo);
	else
		snprintf(buf, len, "%d-%d", s->port_lo, s->port_lo + s->nports - 1);
}

void step_ports_restore(const struct job *job, struct step *s, const char *list)
{
	int lo, hi;
	if (!list || !*list)
		return;
	if (sscanf(list, "%d-%d", &lo, &hi) != 2)
		hi = lo = atoi(list);
	if (lo <= 0 || hi < lo || hi >= PORT_BITS)
		return;
	s->port_lo = lo;
	s->nports = hi - lo + 1;
	mark(job, s, true);
}
