/* A step's generic resources inside its job's allocation (doc/gres.md
 * section 2, "Steps"): what srun asked (--gres, --gpus, --gpus-per-node,
 * --gpus-per-task, --gres=none), which of the job's devices each step node
 * gives it (lowest index first, not held by another running step of the
 * job unless --overlap), its LAUNCH records, and what is stored.  A step
 * that asks nothing has all the job's (srun(1)); it holds nothing then.
 * Not here: the job's devices (core/job_gres.c), where tasks go
 * (step_layout.c), the binding on the node (src/stepd/gpu_env.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/strbuf.h"
#include "common/tres_req.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/step_impl.h"

static struct step_gres_item *item_for(struct step_gres_req *r, const struct tres_item *t)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].name, t->name) && !strcmp(r->items[i].type, t->type))
			return &r->items[i];
	if (r->n == STEP_GRES_ITEMS)
		return NULL;
	struct step_gres_item *it = &r->items[r->n++];
	memset(it, 0, sizeof(*it));
	memcpy(it->name, t->name, sizeof(it->name));
	memcpy(it->type, t->type, sizeof(it->type));
	return it;
}

/* The job's units of name[:type] on its node j (type "" any). */
static uint64_t job_units(const struct job *job, int j, const char *name, const char *type)
{
	uint64_t n = 0;
	for (int h = 0; job->alloc_gres && h < job->nalloc_gres[j]; h++) {
		const struct gres_hold *gh = &job->alloc_gres[j][h];
		if (!strcmp(gh->name, name) && (!*type || !strcmp(gh->type, type)))
			n += gh->count;
	}
	return n;
}

int step_gres_request(const struct job *job, const json_t *spec, struct step_gres_req *r,
		      struct herd_error *err)
{
	static const char *const keys[] = { "tres_per_step", "tres_per_node", "tres_per_socket",
					     "tres_per_task" };
	memset(r, 0, sizeof(*r));
	r->overlap = json_is_true(json_object_get(spec, "overlap"));
	r->none = json_is_true(json_object_get(spec, "gres_none"));
	r->given = r->none;
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		const char *text = json_string_value(json_object_get(spec, keys[k]));
		struct tres_item t[TRES_REQ_MAX];
		int nt = tres_req_parse(text, t, TRES_REQ_MAX, err);
		if (nt < 0)
			goto invalid;
		r->given |= nt > 0;
		for (int i = 0; i < nt; i++) {
			if (!t[i].count)
				continue;   /* gpu:0: none of it (srun(1): "zero counts") */
			struct step_gres_item *it = item_for(r, &t[i]);
			if (!it)
				goto invalid;
			uint32_t c = (uint32_t)t[i].count;   /* at most TRES_REQ_COUNT_MAX */
			if (k == 0)
				it->per_step = c;
			else if (k == 1)
				it->per_node = c;
			else if (k == 2) {   /* per socket: times the job's sockets (capped: never fits) */
				uint64_t n = (uint64_t)c * (job->sockets_per_node ? job->sockets_per_node : 1);
				it->per_node = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
			}
			else
				it->per_task = c;
		}
	}
	if (r->none)
		r->n = 0;
	/* what the job does not have at all is not a step's to ask */
	for (int i = 0; i < r->n; i++) {
		uint64_t have = 0;
		for (int j = 0; j < job->nalloc; j++)
			have += job_units(job, j, r->items[i].name, r->items[i].type);
		if (!have)
			goto invalid;
	}
	return 0;
invalid:
	errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES));
	return HERD_ERR_INVALID_GRES;
}

int step_gres_total_check(const struct job *job, const struct step_gres_req *r, int nodes,
			  int64_t ntasks, struct herd_error *err)
{
	for (int i = 0; i < r->n; i++) {
		const struct step_gres_item *it = &r->items[i];
		uint64_t have = 0;
		for (int j = 0; j < job->nalloc; j++)
			have += job_units(job, j, it->name, it->type);
		uint64_t want = (uint64_t)it->per_step + (uint64_t)it->per_node * (uint64_t)nodes +
				(uint64_t)it->per_task * (uint64_t)ntasks;
		if (want > have)
			return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES)),
			       HERD_ERR_INVALID_GRES;
	}
	return 0;
}

/* ---- the pick (pure) ---- */

int step_gres_pick(const struct gres_hold *job, int nj, uint32_t *used, const char *name,
		   const char *type, uint64_t count, struct gres_hold *out, int room)
{
	uint64_t have = 0, free_units = 0;
	for (int h = 0; h < nj; h++)
		if (!strcmp(job[h].name, name) && (!*type || !strcmp(job[h].type, type))) {
			have += job[h].count;
			free_units += job[h].count - (used[h] < job[h].count ? used[h] : job[h].count);
		}
	if (have < count)
		return STEP_GRES_NEVER;
	if (free_units < count)
		return STEP_GRES_BUSY;
	int n = 0;
	while (count > 0) {
		int best = -1;
		for (int h = 0; h < nj; h++) {
			if (strcmp(job[h].name, name) || (*type && strcmp(job[h].type, type)) ||
			    used[h] >= job[h].count)
				continue;
			if (best < 0 || job[h].index < job[best].index)
				best = h;
		}
		if (best < 0 || n == room)
			return STEP_GRES_BUSY;   /* not reached: counted above */
		uint32_t left = job[best].count - used[best];
		uint32_t take = left < count ? left : (uint32_t)count;
		used[best] += take;
		out[n] = job[best];
		out[n].count = take;
		n++;
		count -= take;
	}
	return n;
}

/* ---- over the job ---- */

/* What the job's other running steps hold of its node j, per job hold
 * (caller frees); all 0 for a step that overlaps. */
static uint32_t *used_on(const struct job *job, int j, const struct step *self, bool overlap)
{
	int nj = job->alloc_gres ? job->nalloc_gres[j] : 0;
	uint32_t *used = xmalloc((nj + 1) * sizeof(uint32_t));
	if (overlap)
		return used;
	for (const struct step *s = job->steps; s; s = s->next) {
		if (s == self || !s->gres_holds || job_state_is_final(s->state))
			continue;
		for (int i = 0; i < s->nnodes; i++) {
			if (s->job_node[i] != j)
				continue;
			for (int g = 0; g < s->ngres[i]; g++)
				for (int h = 0; h < nj; h++)
					if (!strcmp(job->alloc_gres[j][h].name, s->gres[i][g].name) &&
					    job->alloc_gres[j][h].index == s->gres[i][g].index)
						used[h] += s->gres[i][g].count;
		}
	}
	return used;
}

static uint64_t node_need(const struct step_gres_item *it, int ntasks)
{
	return (uint64_t)it->per_node + (uint64_t)it->per_task * (uint64_t)(ntasks > 0 ? ntasks : 0);
}

/* Node j's picks for ntasks tasks (per-step counts aside) into out: the
 * number written, or STEP_GRES_NEVER / STEP_GRES_BUSY. */
static int pick_node(const struct job *job, int j, int ntasks, const struct step_gres_req *r,
		     uint32_t *used, struct gres_hold *out, int room)
{
	int nj = job->alloc_gres ? job->nalloc_gres[j] : 0, n = 0;
	const struct gres_hold *holds = nj ? job->alloc_gres[j] : NULL;
	for (int i = 0; i < r->n; i++) {
		uint64_t need = node_need(&r->items[i], ntasks);
		if (!need)
			continue;
		int got = step_gres_pick(holds, nj, used, r->items[i].name, r->items[i].type, need,
					 out + n, room - n);
		if (got < 0)
			return got;
		n += got;
	}
	return n;
}

int step_gres_node_fits(const struct job *job, int j, int ntasks, const struct step_gres_req *r)
{
	if (!r->n)
		return 0;
	int nj = job->alloc_gres ? job->nalloc_gres[j] : 0;
	uint32_t *used = used_on(job, j, NULL, r->overlap);
	int room = nj * r->n + 1;   /* each item picks a hold at most once */
	struct gres_hold *tmp = xmalloc(room * sizeof(*tmp));
	int got = pick_node(job, j, ntasks, r, used, tmp, room);
	free(tmp);
	free(used);
	return got < 0 ? got : 0;
}

/* One hold per device: a share picked twice (per node, then per step)
 * becomes one with both counts.  The number left. */
static int merge_holds(struct gres_hold *h, int n)
{
	int out = 0;
	for (int k = 0; k < n; k++) {
		int m = 0;
		while (m < out && (strcmp(h[m].name, h[k].name) || h[m].index != h[k].index))
			m++;
		if (m < out)
			h[m].count += h[k].count;
		else
			h[out++] = h[k];
	}
	return out;
}

int step_gres_take(const struct job *job, struct step *s, const struct step_gres_req *r,
		   struct herd_error *err)
{
	int rc = 0;
	s->gres_given = r->given;
	s->gres_holds = r->given && !r->overlap && r->n > 0;
	if (!r->given)
		return 0;
	s->gres = xmalloc((s->nnodes + 1) * sizeof(*s->gres));
	s->ngres = xmalloc((s->nnodes + 1) * sizeof(int));
	uint64_t *step_left = xmalloc((r->n + 1) * sizeof(uint64_t));
	for (int k = 0; k < r->n; k++)
		step_left[k] = r->items[k].per_step;
	for (int i = 0; i < s->nnodes && !rc; i++) {
		int j = s->job_node[i], nj = job->alloc_gres ? job->nalloc_gres[j] : 0;
		const struct gres_hold *holds = nj ? job->alloc_gres[j] : NULL;
		uint32_t *used = used_on(job, j, s, r->overlap);
		int room = 2 * nj * r->n + 1, n;   /* per node and per step: each once */
		s->gres[i] = xmalloc(room * sizeof(**s->gres));
		n = pick_node(job, j, s->ntasks[i], r, used, s->gres[i], room);
		/* --gpus=N for the step: as many as each node has free, in order */
		for (int k = 0; n >= 0 && k < r->n; k++) {
			if (!step_left[k])
				continue;
			uint64_t free_units = 0;
			for (int h = 0; h < nj; h++)
				if (!strcmp(holds[h].name, r->items[k].name) &&
				    (!*r->items[k].type || !strcmp(holds[h].type, r->items[k].type)) &&
				    used[h] < holds[h].count)
					free_units += holds[h].count - used[h];
			uint64_t take = free_units < step_left[k] ? free_units : step_left[k];
			if (!take)
				continue;
			int got = step_gres_pick(holds, nj, used, r->items[k].name, r->items[k].type, take,
						 s->gres[i] + n, room - n);
			if (got < 0)
				n = got;
			else {
				n += got;
				step_left[k] -= take;
			}
		}
		if (n < 0)
			rc = n == STEP_GRES_BUSY ? HERD_ERR_NODES_BUSY : HERD_ERR_INVALID_GRES;
		else
			s->ngres[i] = merge_holds(s->gres[i], n);
		free(used);
	}
	for (int k = 0; !rc && k < r->n; k++)
		if (step_left[k]) {   /* busy when the step's nodes have them, taken or not */
			uint64_t have = 0;
			for (int i = 0; i < s->nnodes; i++)
				have += job_units(job, s->job_node[i], r->items[k].name, r->items[k].type);
			rc = have >= r->items[k].per_step ? HERD_ERR_NODES_BUSY : HERD_ERR_INVALID_GRES;
		}
	free(step_left);
	if (rc) {
		step_gres_free(s);
		errprintf(err, "%s", herd_strerror(rc));
	}
	return rc;
}

void step_gres_free(struct step *s)
{
	for (int i = 0; s->gres && i < s->nnodes; i++)
		free(s->gres[i]);
	free(s->gres);
	free(s->ngres);
	s->gres = NULL;
	s->ngres = NULL;
	s->gres_holds = false;
}

/* ---- what the node, the store and sacct get ---- */

json_t *step_gres_launch(const struct job *job, const struct step *s, int i)
{
	if (!s->gres_given)
		return NULL;   /* the job's, all of them */
	json_t *mine = json_array(), *all = job_gres_launch(job, s->job_node[i]), *rec;
	size_t k;
	for (int g = 0; s->gres && g < s->ngres[i]; g++)
		json_array_foreach(all, k, rec) {
			if (strcmp(json_string_value(json_object_get(rec, "name")) ?: "", s->gres[i][g].name) ||
			    json_integer_value(json_object_get(rec, "index")) != s->gres[i][g].index)
				continue;
			json_t *copy = json_copy(rec);
			json_object_set_new(copy, "count", json_integer(s->gres[i][g].count));
			json_array_append_new(mine, copy);
			break;
		}
	json_decref(all);
	return mine;
}

/* The step's holds on its node i, or the job's there when it asked none. */
static const struct gres_hold *holds_of(const struct job *job, const struct step *s, int i, int *n)
{
	if (s->gres_given) {
		*n = s->gres ? s->ngres[i] : 0;
		return s->gres ? s->gres[i] : NULL;
	}
	int j = s->job_node[i];
	*n = job->alloc_gres && j < job->nalloc ? job->nalloc_gres[j] : 0;
	return *n ? job->alloc_gres[j] : NULL;
}

char *step_gres_tres(const struct job *job, const struct step *s)
{
	struct tres_item sum[TRES_REQ_MAX];
	int n = 0;
	for (int i = 0; i < s->nnodes; i++) {
		int nh;
		const struct gres_hold *h = holds_of(job, s, i, &nh);
		for (int g = 0; g < nh; g++)
			for (int typed = 0; typed < 1 + (h[g].type[0] != 0); typed++) {
				struct tres_item t = { .count = h[g].count };
				snprintf(t.name, sizeof(t.name), "%s", h[g].name);
				snprintf(t.type, sizeof(t.type), "%s", typed ? h[g].type : "");
				int k = 0;
				while (k < n && (strcmp(sum[k].name, t.name) || strcmp(sum[k].type, t.type)))
					k++;
				if (k < n)
					sum[k].count += t.count;
				else if (n < TRES_REQ_MAX)
					sum[n++] = t;
			}
	}
	struct strbuf sb = { 0 };
	for (int k = 0; k < n; k++) {
		char *item = xasprintf("%sgres/%s%s%s=%" PRIu64, k ? "," : "", sum[k].name,
				       sum[k].type[0] ? ":" : "", sum[k].type, sum[k].count);
		strbuf_adds(&sb, item);
		free(item);
	}
	return sb.s ? sb.s : xstrdup("");
}

void step_gres_to_json(const struct job *job, const struct step *s, json_t *o)
{
	char *tres = step_gres_tres(job, s);
	json_object_set_new(o, "tres_gres", json_string(tres));
	free(tres);
	if (!s->gres_given)
		return;
	json_t *nodes = json_array();
	for (int i = 0; i < s->nnodes; i++) {
		json_t *a = json_array();
		for (int g = 0; s->gres && g < s->ngres[i]; g++) {
			const struct gres_hold *h = &s->gres[i][g];
			json_array_append_new(a, json_pack("[s,s,i,i]", h->name, h->type, (int)h->index,
							   (int)h->count));
		}
		json_array_append_new(nodes, a);
	}
	json_object_set_new(o, "gres", nodes);
	json_object_set_new(o, "gres_holds", json_boolean(s->gres_holds));
}

void step_gres_restore(struct step *s, const json_t *rec, const int *rec_node)
{
	json_t *nodes = json_object_get(rec, "gres");
	if (!json_is_array(nodes))
		return;
	s->gres_given = true;
	s->gres_holds = json_is_true(json_object_get(rec, "gres_holds"));
	s->gres = xmalloc((s->nnodes + 1) * sizeof(*s->gres));
	s->ngres = xmalloc((s->nnodes + 1) * sizeof(int));
	for (int i = 0; i < s->nnodes; i++) {
		json_t *a = json_array_get(nodes, rec_node[i]), *v;
		size_t k;
		s->gres[i] = xmalloc((json_array_size(a) + 1) * sizeof(**s->gres));
		json_array_foreach(a, k, v) {
			const char *name = json_string_value(json_array_get(v, 0));
			json_int_t index = json_integer_value(json_array_get(v, 2));
			json_int_t count = json_integer_value(json_array_get(v, 3));
			if (!name || index < 0 || index > 65535 || count <= 0 || count > UINT16_MAX)
				continue;
			struct gres_hold *h = &s->gres[i][s->ngres[i]++];
			memset(h, 0, sizeof(*h));
			snprintf(h->name, sizeof(h->name), "%s", name);
			snprintf(h->type, sizeof(h->type), "%s", json_string_value(json_array_get(v, 1)) ?: "");
			h->index = (uint32_t)index;
			h->count = (uint32_t)count;
		}
	}
}

int step_gres_per_task(const struct job *job, const json_t *spec)
{
	struct tres_item t[TRES_REQ_MAX];
	struct herd_error err;
	/* a step that asks no GRES binds as its job asked (Slurm's srun reads
	 * the batch environment's SLURM_GPUS_PER_TASK) */
	const char *text = step_gres_asked(spec) ? json_string_value(json_object_get(spec, "tres_per_task"))
						 : job->tres_per_task;
	int n = tres_req_parse(text, t, TRES_REQ_MAX, &err);
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].name, "gpu"))
			return t[i].count > 65535 ? 65535 : (int)t[i].count;
	return 0;
}

bool step_gres_asked(const json_t *spec)
{
	static const char *const keys[] = { "tres_per_step", "tres_per_node", "tres_per_socket",
					     "tres_per_task" };
	if (json_is_true(json_object_get(spec, "gres_none")))
		return true;
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		const char *v = json_string_value(json_object_get(spec, keys[k]));
		if (v && *v)
			return true;
	}
	return false;
}
