/* The GRES TRES a job's accounting record keeps (doc/gres.md section 4):
 * of the GPUs (and other GRES) it holds or asks for, those that
 * AccountingStorageTRES names, as "gres/gpu=2,gres/gpu:h100=2", so that
 * sacct, sreport and the REST API read them from the record.  Not here:
 * the devices themselves (core/job_gres.c), usage (usage.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "core/core.h"

struct gres_sum {
	char name[100];   /* "gres/gpu", "gres/gpu:h100" */
	uint64_t count;
};

#define GRES_SUMS 16

static void sum_add(struct gres_sum *sums, int *n, const char *name, const char *type,
		    uint64_t count)
{
	char full[100];
	snprintf(full, sizeof(full), "gres/%s%s%s", name, *type ? ":" : "", type);
	for (int k = 0; k < *n; k++)
		if (!strcmp(sums[k].name, full)) {
			sums[k].count += count;
			return;
		}
	if (*n == GRES_SUMS)
		return;
	snprintf(sums[*n].name, sizeof(sums[*n].name), "%s", full);
	sums[(*n)++].count = count;
}

/* A name and its type both count: a typed device is also one of its name
 * (Slurm records gres/gpu and gres/gpu:h100 for one H100). */
static void add_both(struct gres_sum *sums, int *n, const char *name, const char *type,
		     uint64_t count)
{
	sum_add(sums, n, name, "", count);
	if (*type)
		sum_add(sums, n, name, type, count);
}

char *usage_job_gres_tres(const struct job *job, bool alloc)
{
	const char *storage = core.conf ? conf_get(core.conf, "AccountingStorageTRES") : NULL;
	struct gres_sum sums[GRES_SUMS];
	int n = 0;

	if (!storage || !*storage)
		return NULL;
	if (alloc) {
		for (int i = 0; job->alloc_gres && i < job->nalloc; i++)
			for (int h = 0; h < job->nalloc_gres[i]; h++)
				add_both(sums, &n, job->alloc_gres[i][h].name, job->alloc_gres[i][h].type,
					 job->alloc_gres[i][h].count);
	} else {
		/* as asked: per job, per node (and socket) over the nodes asked
		 * for, per task over the tasks */
		uint64_t nodes = job->req_nodes ? job->req_nodes : 1;
		uint64_t tasks = job->ntasks ? job->ntasks : nodes;
		for (int g = 0; g < job->ngres; g++) {
			const struct job_gres *it = &job->gres[g];
			uint64_t per_node = it->per_node + (uint64_t)it->per_socket * job->sockets_per_node;
			add_both(sums, &n, it->name, it->type,
				 it->per_job + per_node * nodes + (uint64_t)it->per_task * tasks);
		}
	}
	struct strbuf sb = { 0 };
	for (int k = 0; k < n; k++) {
		if (!sums[k].count || !gres_tres_tracked(storage, sums[k].name))
			continue;
		char *item = xasprintf("%s%s=%" PRIu64, sb.len ? "," : "", sums[k].name, sums[k].count);
		strbuf_adds(&sb, item);
		free(item);
	}
	return sb.s;
}
