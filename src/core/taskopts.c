/* The task placement and environment options of a submission, checked as
 * Slurm's controller checks them: the strings parse (common/taskopt.h), and
 * --ntasks-per-socket/--ntasks-per-core can be given by some node of the
 * partition.  The options themselves act on the nodes (herdstepd) and in the
 * step layout (ctld/step_layout.c); the job keeps them in its stored
 * submission. */
#include <stdlib.h>
#include <string.h>
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/taskopts.h"

/* The most tasks node n takes with these limits (cpt CPUs each). */
int taskopts_node_cap(const struct node *n, int cpt, int per_socket, int per_core)
{
	int cap = n->cpus / (cpt > 0 ? cpt : 1);
	int sockets = n->sockets > 0 ? n->sockets : 1, cores = n->cores > 0 ? n->cores : 1;

	if (per_socket > 0 && (int64_t)sockets * per_socket < cap)
		cap = sockets * per_socket;
	if (per_core > 0 && (int64_t)sockets * cores * per_core < cap)
		cap = sockets * cores * per_core;
	return cap;
}

static int cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

int taskopts_check_submit(const json_t *spec, struct job *job, struct herd_error *err)
{
	const char *d = json_string_value(json_object_get(spec, "distribution"));
	const char *hint = json_string_value(json_object_get(spec, "hint"));
	const char *mem = json_string_value(json_object_get(spec, "mem_bind"));
	const char *prop = json_string_value(json_object_get(spec, "propagate"));
	const char *gue = json_string_value(json_object_get(spec, "get_user_env"));
	json_t *nps_j = json_object_get(spec, "ntasks_per_socket");
	json_t *npc_j = json_object_get(spec, "ntasks_per_core");
	int64_t nps = json_integer_value(nps_j), npc = json_integer_value(npc_j);
	struct dist dist;
	struct mem_bind mb;
	unsigned flags, mask;
	int timeout;
	char mode;

	if ((d && dist_parse(d, &dist, err) < 0) || (hint && hint_parse(hint, &flags, err) < 0) ||
	    (mem && mem_bind_parse(mem, &mb, err) < 0) ||
	    (prop && rlimit_list_parse(prop, &mask, err) < 0) ||
	    (gue && get_user_env_parse(gue, &timeout, &mode, err) < 0))
		return HERD_ERR_INVALID_ARG;
	if (d && dist.node == DIST_NODE_ARBITRARY && !job->req_nodelist) {
		errprintf(err, "With Arbitrary distribution you need to specify a nodelist or "
			  "hostfile with the -w option");
		return HERD_ERR_INVALID_ARG;
	}
	if ((nps_j && (nps < 1 || nps > 0xffff)) || (npc_j && (npc < 1 || npc > 0xffff))) {
		errprintf(err, "Invalid numeric value \"%lld\" for --ntasks-per-%s.",
			  (long long)(nps_j && (nps < 1 || nps > 0xffff) ? nps : npc),
			  nps_j && (nps < 1 || nps > 0xffff) ? "socket" : "core");
		return HERD_ERR_INVALID_ARG;
	}
	job->ntasks_per_socket = nps;   /* scontrol show job's NtasksPerN:B:S:C */
	job->ntasks_per_core = npc;
	if (!nps && !npc)
		return 0;
	/* Some node of the partition must take the tasks: a socket their
	 * --ntasks-per-socket, and -N nodes (or all) the job's tasks. */
	const struct part *part = job->part;
	int cpt = job->cpus_per_task > 0 ? (int)job->cpus_per_task : 1;
	int *caps = xmalloc((part->nnodes + 1) * sizeof(int)), ncaps = 0;
	bool socket_fits = !nps;
	for (int i = 0; i < part->nnodes; i++) {
		const struct node *n = &core.nodes[part->node_idx[i]];
		int sockets = n->sockets > 0 ? n->sockets : 1;
		if (nps && (int64_t)nps * cpt <= n->cpus / sockets)
			socket_fits = true;
		caps[ncaps++] = taskopts_node_cap(n, cpt, (int)nps, (int)npc);
	}
	qsort(caps, ncaps, sizeof(int), cmp_desc);
	int64_t room = 0;
	int use = job->req_nodes > 0 && job->req_nodes < ncaps ? (int)job->req_nodes : ncaps;
	for (int i = 0; i < use; i++)
		room += caps[i];
	int64_t want = job->ntasks > 0 ? (int64_t)job->ntasks : 1;
	/* Without -N the job needs as many nodes as its tasks fill (Slurm
	 * spreads it the same way): the fewest of the largest. */
	if (room >= want && !job->req_nodes && ncaps && job->ntasks > 0) {
		int64_t got = 0;
		int k = 0;
		while (k < ncaps && got < want)
			got += caps[k++];
		if (k > 1)
			job->req_nodes = k;
	}
	free(caps);
	if (!socket_fits || room < want)
		return HERD_ERR_NODE_CONFIG;
	return 0;
}
