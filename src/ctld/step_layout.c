/* Where a step's tasks and CPUs go inside its job's allocation (doc/steps.md):
 * the nodes (-w, -x, -N), the tasks on each, the CPU IDs each node gives
 * it (--exact, --overlap), and the task IDs of each node (-m block, cyclic,
 * plane=N, arbitrary; --ntasks-per-socket/--ntasks-per-core cap a node).
 * It changes nothing but the job's record of the CPUs its steps hold;
 * the step's life (launch, reports, end) is step.c's business. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "core/taskopts.h"
#include "ctld/ctld.h"
#include "ctld/step_impl.h"
#include "sched/select.h"

/* The CPU IDs of the job's node j that its steps hold (made at first use). */
static struct bitmap *job_step_cpus(struct job *job, int j)
{
	if (!job->step_cpus)
		job->step_cpus = xmalloc(job->nalloc * sizeof(*job->step_cpus));
	if (!job->step_cpus[j]) {
		const struct bitmap *mine = job->alloc_cpuset ? job->alloc_cpuset[j] : NULL;
		job->step_cpus[j] = bitmap_create(mine ? mine->nbits : 1);
	}
	return job->step_cpus[j];
}

/* The job's CPU IDs on node j that no step holds. */
static struct bitmap *free_cpus(struct job *job, int j)
{
	const struct bitmap *mine = job->alloc_cpuset ? job->alloc_cpuset[j] : NULL;
	struct bitmap *held = job_step_cpus(job, j), *out;

	if (!mine)
		return bitmap_create(1);
	out = bitmap_copy(mine);
	for (uint32_t c = bitmap_next(held, 0); c != BITMAP_NONE; c = bitmap_next(held, c + 1))
		bitmap_clear(out, c);
	return out;
}

/* The first count bits of set, as a new set. */
static struct bitmap *first_cpus(const struct bitmap *set, uint32_t count)
{
	struct bitmap *out = bitmap_create(set->nbits);
	for (uint32_t c = bitmap_next(set, 0); c != BITMAP_NONE && count; c = bitmap_next(set, c + 1)) {
		bitmap_set(out, c);
		count--;
	}
	return out;
}

void step_layout_hold(struct job *job, struct step *s, bool on)
{
	if (!s->holds)
		return;
	for (int i = 0; i < s->nnodes; i++) {
		struct bitmap *held = job_step_cpus(job, s->job_node[i]);
		for (uint32_t c = bitmap_next(s->cpuset[i], 0); c != BITMAP_NONE && c < held->nbits;
		     c = bitmap_next(s->cpuset[i], c + 1)) {
			if (on)
				bitmap_set(held, c);
			else
				bitmap_clear(held, c);
		}
	}
	if (!on)
		s->holds = false;
}

static bool in_list(const int *idx, int n, int node)
{
	for (int i = 0; i < n; i++)
		if (idx[i] == node)
			return true;
	return false;
}

/* A count in a step request: absent, or from 0 to INT_MAX (the layout
 * works in int; a larger one could never fit a job anyway). */
bool step_layout_count_ok(const json_t *spec, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(spec, key));
	return v >= 0 && v <= INT_MAX;
}

/* A hostlist of the job's node names into node indexes; -1 on a name that
 * is not configured.  At most max names (-m arbitrary repeats them). */
static int names_to_idx(const char *list, size_t max, int **idx, int *n)
{
	struct hostlist *hl = hostlist_create_max(list, max);   /* bounded */
	*n = 0;
	*idx = NULL;
	if (!hl)
		return -1;
	*idx = xmalloc((hostlist_count(hl) + 1) * sizeof(int));
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		int k = node_index(hostlist_nth(hl, i));
		if (k < 0) {
			hostlist_destroy(hl);
			return -1;
		}
		(*idx)[(*n)++] = k;
	}
	hostlist_destroy(hl);
	return 0;
}

/* Lay the step out: nodes, tasks on each, CPU IDs.  0, or an rc with err
 * (2014 never fits the job, 2016 not now). */
int step_layout(struct job *job, const json_t *spec, struct step *s, struct herd_error *err)
{
	int want_nodes = json_integer_value(json_object_get(spec, "num_nodes"));
	int ntasks = json_integer_value(json_object_get(spec, "num_tasks"));
	int cpt = json_integer_value(json_object_get(spec, "cpus_per_task"));
	struct step_gres_req gres;
	int rc = step_gres_request(job, spec, &gres, err);
	if (rc)
		return rc;
	/* --cpus-per-gpu with --gpus-per-task: the CPUs of a task (srun(1)) */
	json_int_t cpg = json_integer_value(json_object_get(spec, "cpus_per_gpu"));
	int gpt = step_gres_per_task(job, spec);
	if (cpt <= 0 && cpg > 0 && gpt > 0 && cpg * gpt <= INT_MAX)
		cpt = (int)(cpg * gpt);
	int per_node = json_integer_value(json_object_get(spec, "ntasks_per_node"));
	bool overlap = json_is_true(json_object_get(spec, "overlap"));
	bool exact = json_is_true(json_object_get(spec, "exact")) ||
		     json_is_true(json_object_get(spec, "exclusive")) || cpt > 0;
	const char *req = json_string_value(json_object_get(spec, "req_nodelist"));
	const char *exc = json_string_value(json_object_get(spec, "exc_nodelist"));
	int nps = json_integer_value(json_object_get(spec, "ntasks_per_socket"));
	int npc = json_integer_value(json_object_get(spec, "ntasks_per_core"));
	int *req_idx = NULL, nreq = 0, *exc_idx = NULL, nexc = 0;
	int *pick = xmalloc(job->nalloc * sizeof(int)), npick = 0;
	struct bitmap **sets = xmalloc(job->nalloc * sizeof(*sets));
	int *arb = NULL, *arb_list = NULL, narb = 0;   /* -m arbitrary: tasks per job node, the list */
	bool busy = false;
	int gres_never = 0;   /* nodes whose GRES can never give the step its share */
	struct dist dist;
	int64_t job_cpus = 0;

	for (int j = 0; j < job->nalloc; j++)
		job_cpus += job->alloc_cpus[j];
	if (dist_parse(s->distribution, &dist, NULL) < 0)
		dist.node = DIST_NODE_BLOCK;
	if (dist.node == DIST_NODE_ARBITRARY) {
		/* task i runs on the i-th name of -w (srun reads SLURM_HOSTFILE into it) */
		if (!*req) {
			rc = HERD_ERR_INVALID_ARG;
			errprintf(err, "With Arbitrary distribution you need to specify a nodelist or "
				  "hostfile with the -w option");
			goto out;
		}
		if (names_to_idx(req, (size_t)(job_cpus > 0 ? job_cpus : 1), &arb_list, &narb) < 0) {
			rc = HERD_ERR_INVALID_NODE;
			errprintf(err, "%s", herd_strerror(rc));
			goto out;
		}
		arb = xmalloc(job->nalloc * sizeof(int));
		memset(arb, 0, job->nalloc * sizeof(int));
		for (int i = 0; i < narb; i++) {
			int j = 0;
			while (j < job->nalloc && job->alloc_node[j] != arb_list[i])
				j++;
			if (j == job->nalloc) {
				rc = HERD_ERR_NODE_CONFIG;
				errprintf(err, "%s", herd_strerror(rc));
				goto out;
			}
			arb[j]++;
		}
		if (ntasks && ntasks != narb) {
			rc = HERD_ERR_NODE_CONFIG;
			errprintf(err, "%s", herd_strerror(rc));
			goto out;
		}
		ntasks = narb;
		want_nodes = 0;
		for (int j = 0; j < job->nalloc; j++)
			want_nodes += arb[j] > 0;
		per_node = 0;
	}
	if ((!arb && *req && names_to_idx(req, (size_t)core.nnodes, &req_idx, &nreq) < 0) ||
	    (*exc && names_to_idx(exc, (size_t)core.nnodes, &exc_idx, &nexc) < 0)) {
		rc = HERD_ERR_INVALID_NODE;
		errprintf(err, "%s", herd_strerror(rc));
		goto out;
	}
	if (arb) {   /* every node of the list is required */
		req_idx = xmalloc((job->nalloc + 1) * sizeof(int));
		for (int j = 0; j < job->nalloc; j++)
			if (arb[j])
				req_idx[nreq++] = job->alloc_node[j];
	}
	if (cpt <= 0)
		cpt = job->cpus_per_task ? job->cpus_per_task : 1;
	if (!ntasks && !want_nodes)
		ntasks = job->ntasks ? job->ntasks : job->nalloc;
	if (!ntasks)
		ntasks = (int)(sched_mul(want_nodes, per_node ? per_node : 1) > INT_MAX ? INT_MAX
			      : want_nodes * (per_node ? per_node : 1));
	if (!want_nodes)
		want_nodes = nreq > 0 ? nreq : ntasks < job->nalloc ? ntasks : job->nalloc;
	if (per_node && sched_mul(want_nodes, per_node) < ntasks)
		want_nodes = (ntasks + per_node - 1) / per_node;
	/* --ntasks-per-socket/--ntasks-per-core cap each node as -N's spread
	 * does (the fewest tasks any node of the job takes with them) */
	if ((nps > 0 || npc > 0) && !arb) {
		int cap = INT_MAX;
		for (int j = 0; j < job->nalloc; j++) {
			int c = taskopts_node_cap(&core.nodes[job->alloc_node[j]], cpt, nps, npc);
			if (c < cap)
				cap = c;
		}
		if (cap < 1 || want_nodes == 0) {
			rc = HERD_ERR_NODE_CONFIG;
			errprintf(err, "%s", herd_strerror(rc));
			goto out;
		}
		if (sched_mul(want_nodes, cap) < ntasks)
			want_nodes = (ntasks + cap - 1) / cap;
	}
	/* No more tasks than the job has CPUs for (Slurm without --overcommit;
	 * with it, a task's CPUs on each node and at most MaxTasksPerNode's
	 * default, 512, tasks a node); this also bounds what a hostile
	 * request can make the controller build. */
	bool over = job->overcommit;
	if (want_nodes > ntasks || want_nodes > job->nalloc || want_nodes < nreq || ntasks < 1 ||
	    (over ? (int64_t)want_nodes * cpt > job_cpus || ntasks > (int64_t)want_nodes * 512
		  : (int64_t)ntasks * cpt > job_cpus)) {
		rc = HERD_ERR_NODE_CONFIG;
		errprintf(err, "%s", herd_strerror(rc));
		goto out;
	}
	if ((rc = step_gres_total_check(job, &gres, want_nodes, ntasks, err)))
		goto out;
	for (int i = 0; i < nreq; i++) {
		bool ours = false;
		for (int j = 0; j < job->nalloc; j++)
			ours |= job->alloc_node[j] == req_idx[i];
		if (!ours || in_list(exc_idx, nexc, req_idx[i])) {
			rc = HERD_ERR_NODE_CONFIG;
			errprintf(err, "%s", herd_strerror(rc));
			goto out;
		}
	}
	/* Tasks per node as the batch launch spreads them: evenly, the first
	 * nodes get the remainder (each at most --ntasks-per-node). */
	int *tasks = s->ntasks = xmalloc(want_nodes * sizeof(int));
	for (int i = 0; i < want_nodes; i++)
		tasks[i] = ntasks / want_nodes + (i < ntasks % want_nodes);
	/* Required nodes first, then the job's in order; each must have the
	 * CPUs: a step that does not say --exact (or -c) takes every CPU of the
	 * job on its nodes, as Slurm 22.05's steps do. */
	for (int pass = 0; pass < 2 && npick < want_nodes; pass++) {
		for (int j = 0; j < job->nalloc && npick < want_nodes; j++) {
			int node = job->alloc_node[j];
			bool required = in_list(req_idx, nreq, node);
			if ((pass == 0) != required || in_list(exc_idx, nexc, node) || in_list(pick, npick, j))
				continue;
			if (arb)
				tasks[npick] = arb[j];
			int64_t need = (over ? 1 : (int64_t)tasks[npick]) * cpt, have = job->alloc_cpus[j];
			if (need > have)
				continue;   /* never fits here */
			int fits = step_gres_node_fits(job, j, tasks[npick], &gres);
			if (fits == STEP_GRES_NEVER) {
				gres_never++;
				continue;
			}
			if (fits == STEP_GRES_BUSY) {
				busy = true;
				if (required)
					break;
				continue;
			}
			bool known = job->alloc_cpuset && job->alloc_cpuset[j];
			struct bitmap *avail = !known ? bitmap_create(1)
					       : overlap ? bitmap_copy(job->alloc_cpuset[j]) : free_cpus(job, j);
			uint32_t take = exact ? (uint32_t)need : (uint32_t)have;
			if (known && bitmap_count(avail) < take) {
				busy = true;
				bitmap_destroy(avail);
				if (required)
					break;
				continue;
			}
			sets[npick] = known ? first_cpus(avail, take) : bitmap_create(1);
			bitmap_destroy(avail);
			pick[npick++] = j;
		}
	}
	bool missing = false;   /* -w: a named node that is busy is not replaced by another */
	for (int i = 0; i < nreq; i++) {
		bool picked = false;
		for (int k = 0; k < npick; k++)
			picked |= job->alloc_node[pick[k]] == req_idx[i];
		missing |= !picked;
	}
	if (npick < want_nodes || missing) {
		/* Slurm 22.05: as many nodes as the step needs can never give
		 * it its GRES: an invalid GRES request, not a wait */
		rc = gres_never >= want_nodes ? HERD_ERR_INVALID_GRES
		     : busy ? HERD_ERR_NODES_BUSY : HERD_ERR_NODE_CONFIG;
		errprintf(err, "%s", herd_strerror(rc));
		for (int i = 0; i < npick; i++)
			bitmap_destroy(sets[i]);
		goto out;
	}
	s->nnodes = npick;
	s->job_node = pick;
	s->cpuset = sets;
	pick = NULL;
	sets = NULL;
	if ((rc = step_gres_take(job, s, &gres, err)))
		goto out;   /* step_free frees what the step has */
	s->holds = !overlap;
	s->num_tasks = ntasks;
	s->cpus_per_task = cpt;
	if (arb) {
		/* each task's step node, from its place in the list */
		s->task_node = xmalloc(narb * sizeof(int));
		for (int t = 0; t < narb; t++)
			for (int i = 0; i < s->nnodes; i++)
				if (job->alloc_node[s->job_node[i]] == arb_list[t])
					s->task_node[t] = i;
	}
out:
	free(arb);
	free(arb_list);
	free(pick);
	free(sets);
	free(req_idx);
	free(exc_idx);
	return rc;
}

/* Global task IDs of step node i (block, cyclic, plane=P). */
json_t *step_layout_task_ids(const struct step *s, int i)
{
	json_t *ids = json_array();
	struct dist d;
	int n = s->nnodes, *left, node = 0, plane;

	if (s->task_node) {   /* -m arbitrary */
		for (uint32_t t = 0; t < s->num_tasks; t++)
			if (s->task_node[t] == i)
				json_array_append_new(ids, json_integer(t));
		return ids;
	}
	if (dist_parse(s->distribution, &d, NULL) < 0)
		d.node = DIST_NODE_BLOCK;
	plane = d.node == DIST_NODE_PLANE ? d.plane : d.node == DIST_NODE_CYCLIC ? 0 : -1;
	left = xmalloc(n * sizeof(int));
	for (int k = 0; k < n; k++)
		left[k] = s->ntasks[k];
	if (plane < 0) {
		int first = 0;
		for (int k = 0; k < i; k++)
			first += s->ntasks[k];
		for (int t = 0; t < s->ntasks[i]; t++)
			json_array_append_new(ids, json_integer(first + t));
	} else {
		int chunk = plane ? plane : 1, in_chunk = 0;
		for (uint32_t t = 0; t < s->num_tasks; t++) {
			for (int tries = 0; left[node] == 0 && tries < n; tries++) {
				node = (node + 1) % n;
				in_chunk = 0;
			}
			if (node == i)
				json_array_append_new(ids, json_integer(t));
			left[node]--;
			if (++in_chunk >= chunk || left[node] == 0) {
				node = (node + 1) % n;
				in_chunk = 0;
			}
		}
	}
	free(left);
	return ids;
}
