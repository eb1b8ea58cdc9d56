/* A job's generic resources (doc/gres.md section 2): the request read from
 * the submission into items (one per name and type, from every option),
 * the pass's form of them, the devices given at the start (lowest free
 * index first, so a node's GPUs are packed), the LAUNCH records, what is
 * stored and shown. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/conf.h"
#include "common/gres.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/tres_req.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "sched/select.h"

#define PER_NODE_MAX 65535          /* a node counts each kind in 16 bits */

enum which { PER_JOB, PER_NODE, PER_SOCKET, PER_TASK };

static struct job_gres *item_for(struct job_gres *items, int *n, const struct tres_item *t)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(items[i].name, t->name) && !strcmp(items[i].type, t->type))
			return &items[i];
	if (*n == JOB_GRES_MAX)
		return NULL;
	struct job_gres *it = &items[(*n)++];
	memset(it, 0, sizeof(*it));
	_Static_assert(sizeof(it->name) == sizeof(t->name) && sizeof(it->type) == sizeof(t->type),
		       "job_gres and tres_item names alike");
	memcpy(it->name, t->name, sizeof(it->name));
	memcpy(it->type, t->type, sizeof(it->type));
	return it;
}

/* One option's TRES string into items; -1 when malformed or too many. */
static int read_items(const char *text, enum which w, struct job_gres *items, int *n,
		      struct herd_error *err)
{
	struct tres_item t[TRES_REQ_MAX];
	int nt = tres_req_parse(text, t, TRES_REQ_MAX, err);
	if (nt < 0)
		return -1;
	for (int i = 0; i < nt; i++) {
		if (!t[i].count)
			continue;   /* gpu:0: none */
		struct job_gres *it = item_for(items, n, &t[i]);
		if (!it || (w != PER_JOB && t[i].count > PER_NODE_MAX))
			return -1;
		uint32_t c = (uint32_t)t[i].count;
		switch (w) {
		case PER_JOB: it->per_job = c; break;
		case PER_NODE: it->per_node = c; break;
		case PER_SOCKET: it->per_socket = c; break;
		case PER_TASK: it->per_task = c; break;
		}
	}
	return 0;
}

static char *str_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static int parse_all(struct job *job, struct herd_error *err)
{
	const char *texts[] = { [PER_JOB] = job->tres_per_job, [PER_NODE] = job->tres_per_node,
				[PER_SOCKET] = job->tres_per_socket, [PER_TASK] = job->tres_per_task };
	struct job_gres items[JOB_GRES_MAX];
	int n = 0;

	for (int w = PER_JOB; w <= PER_TASK; w++)
		if (texts[w] && read_items(texts[w], w, items, &n, err) < 0)
			return -1;
	free(job->gres);
	job->gres = n ? xmalloc(n * sizeof(*items)) : NULL;
	if (n)
		memcpy(job->gres, items, n * sizeof(*items));
	job->ngres = n;
	return 0;
}

#define NTASKS_MAX 100000000   /* common/jobspec.c's bound on "ntasks" */

/* --ntasks-per-gpu=N (sbatch(1)): with GPUs asked and no --ntasks, N tasks
 * per GPU; with --ntasks and no GPUs, the type-less GPUs those tasks need
 * (written into tres_per_job, which is what is kept).  Not with
 * --gpus-per-task, --gpus-per-socket, --ntasks-per-node nor -N min-max. */
static int ntasks_per_gpu(struct job *job, int64_t per_gpu, int64_t tasks_per_node,
			  struct herd_error *err)
{
	int64_t gpus = 0, nodes = job->req_nodes ? job->req_nodes : 1;

	bool apart = tasks_per_node || job->max_nodes;

	if (per_gpu <= 0)
		return 0;
	for (int i = 0; i < job->ngres; i++)
		apart |= job->gres[i].per_task || job->gres[i].per_socket;
	if (apart)
		return errprintf(err, "--ntasks-per-gpu is not compatible with --gpus-per-task, "
				 "--gpus-per-socket, --ntasks-per-node or a node range");
	for (int i = 0; i < job->ngres; i++) {
		const struct job_gres *it = &job->gres[i];
		if (!strcmp(it->name, "gpu"))
			gpus += it->per_job + (int64_t)it->per_node * nodes;
	}
	if (gpus && !job->ntasks) {
		if (gpus > NTASKS_MAX / per_gpu)
			return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES));
		job->ntasks = (uint32_t)(gpus * per_gpu);
	} else if (!gpus) {
		int64_t tasks = job->ntasks ? job->ntasks : 1;
		char *add = xasprintf("%s%sgres/gpu:%" PRId64, job->tres_per_job ? job->tres_per_job : "",
				      job->tres_per_job ? "," : "", (tasks + per_gpu - 1) / per_gpu);
		free(job->tres_per_job);
		job->tres_per_job = add;
		if (parse_all(job, err) < 0)
			return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES));
	}
	return 0;
}

int job_gres_set(struct job *job, const json_t *spec, struct herd_error *err)
{
	int64_t cpg = msg_int(spec, "cpus_per_gpu"), mpg = msg_int(spec, "mem_per_gpu");
	const char *flags = msg_str_or(spec, "gres_flags");

	job->tres_per_job = str_or_null(msg_str_or(spec, "tres_per_job"));
	job->tres_per_node = str_or_null(msg_str_or(spec, "tres_per_node"));
	job->tres_per_socket = str_or_null(msg_str_or(spec, "tres_per_socket"));
	job->tres_per_task = str_or_null(msg_str_or(spec, "tres_per_task"));
	job->gpu_bind = str_or_null(msg_str_or(spec, "gpu_bind"));
	job->gpu_freq = str_or_null(msg_str_or(spec, "gpu_freq"));
	job->gres_flags = str_or_null(flags);
	if (cpg < 0 || cpg > 65535 || mpg < 0 || mpg > (INT64_C(1) << 40) ||
	    (*flags && strcmp(flags, "enforce-binding") && strcmp(flags, "disable-binding")))
		return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES)), HERD_ERR_INVALID_GRES;
	job->cpus_per_gpu = (uint32_t)cpg;
	job->mem_per_gpu = (uint64_t)mpg;
	if (parse_all(job, err) < 0)
		return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES)), HERD_ERR_INVALID_GRES;
	if (ntasks_per_gpu(job, msg_int(spec, "ntasks_per_gpu"), msg_int(spec, "ntasks_per_node"),
			   err) < 0)
		return HERD_ERR_INVALID_GRES;
	for (int i = 0; i < job->ngres; i++) {
		const struct job_gres *it = &job->gres[i];
		if (it->per_socket && !job->sockets_per_node)
			return errprintf(err, "--gpus-per-socket option requires --sockets-per-node "
					 "specification"), HERD_ERR_INVALID_GRES;
		/* a name no node has is refused now, as Slurm does; a type no
		 * node has never fits (Requested node configuration is not
		 * available, the submission's check) */
		if (!node_gres_kinds_of(it->name, NULL) ||
		    (uint64_t)it->per_node + (uint64_t)it->per_socket * job->sockets_per_node > PER_NODE_MAX)
			return errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_GRES)),
			       HERD_ERR_INVALID_GRES;
	}
	return 0;
}

void job_gres_load(struct job *job)
{
	struct herd_error err;
	if (parse_all(job, &err) < 0)
		log_error("job %u: its GRES request no longer reads: %s", job->id, err.text);
}

void job_gres_clear_alloc(struct job *job)
{
	for (int i = 0; job->alloc_gres && i < job->nalloc; i++)
		free(job->alloc_gres[i]);
	free(job->alloc_gres);
	free(job->nalloc_gres);
	job->alloc_gres = NULL;
	job->nalloc_gres = NULL;
}

void job_gres_free(struct job *job)
{
	job_gres_clear_alloc(job);
	free(job->tres_per_job);
	free(job->tres_per_node);
	free(job->tres_per_socket);
	free(job->tres_per_task);
	free(job->gpu_bind);
	free(job->gpu_freq);
	free(job->gres_flags);
	free(job->gres);
}

/* ---- the pass ---- */

/* The items as the pass counts them: per-socket ones per node, the kinds
 * of each (the items of a job are few; made again at each call, since a
 * reconfigure may add kinds). */
static _Thread_local struct sched_gres sched_items[JOB_GRES_MAX];

const struct sched_gres *job_gres_sched(const struct job *job, int *n)
{
	for (int i = 0; i < job->ngres; i++) {
		const struct job_gres *it = &job->gres[i];
		sched_items[i] = (struct sched_gres){
			.kinds = node_gres_kinds_of(it->name, it->type),
			.per_node = it->per_node + it->per_socket * job->sockets_per_node,
			.per_task = it->per_task, .per_job = it->per_job,
			.gpu = !strcmp(it->name, "gpu"),
		};
	}
	*n = job->ngres;
	return job->ngres ? sched_items : NULL;
}

/* ---- the devices given ---- */

static int slot_cmp_index(const struct gres_slot *a, const struct gres_slot *b)
{
	return (a->index > b->index) - (a->index < b->index);
}

/* Free CPUs of node n in near (NULL: all its free ones). */
static int free_in(const struct node *n, const struct bitmap *near)
{
	int free_cpus = 0;
	for (int c = 0; c < n->cpus; c++)
		if (!(n->cpus_used && bitmap_test(n->cpus_used, (uint32_t)c)) &&
		    (!near || bitmap_test(near, (uint32_t)c)))
			free_cpus++;
	return free_cpus;
}

/* Free CPUs of node n near slot s (its Cores=; all free ones for none). */
static int near_free(const struct node *n, int s)
{
	struct bitmap *near = node_gres_slot_cores(n, s);
	int free_cpus = free_in(n, near);
	bitmap_destroy(near);
	return free_cpus;
}

/* The holds of count units of the kinds on node n (used: the slots' use
 * so far, updated), lowest index first (by_cpus: those with the most
 * free CPUs near them first, --gres-flags=enforce-binding); the number
 * written, -1 when they are not free. */
static int pick_on(const struct node *n, uint32_t kinds, uint32_t count, uint32_t *used,
		   struct gres_hold *out, int room, bool by_cpus)
{
	int nh = 0;
	while (count > 0) {
		int best = -1, best_free = -1;
		for (int s = 0; s < n->ngres_slots; s++) {
			const struct gres_slot *sl = &n->gres_slots[s];
			if (sl->kind < 0 || !(kinds & (1u << sl->kind)) || !node_gres_free(n, s, used))
				continue;
			int f = by_cpus ? near_free(n, s) : 0;
			if (best < 0 || f > best_free ||
			    (f == best_free && slot_cmp_index(sl, &n->gres_slots[best]) < 0)) {
				best = s;
				best_free = f;
			}
		}
		if (best < 0 || nh == room)
			return -1;
		const struct gres_slot *sl = &n->gres_slots[best];
		uint32_t room = node_gres_free(n, best, used), take = room < count ? room : count;
		used[best] += take;
		count -= take;
		struct gres_hold *h = &out[nh++];
		memset(h, 0, sizeof(*h));
		snprintf(h->name, sizeof(h->name), "%s", sl->name);
		snprintf(h->type, sizeof(h->type), "%s", sl->type);
		h->index = sl->index;
		h->count = take;
	}
	return nh;
}

static bool enforce_binding(const struct job *job)
{
	return job->gres_flags && !strcmp(job->gres_flags, "enforce-binding");
}

/* --gres-flags=enforce-binding: the node has cpus free CPUs near the
 * devices of holds (Cores=; devices without any leave every CPU near). */
static bool near_enough(const struct node *n, const struct gres_hold *holds, int nholds, int cpus)
{
	bool any;
	struct bitmap *near = node_gres_near(n, holds, nholds, &any);
	int free_cpus = free_in(n, any ? NULL : near);
	bitmap_destroy(near);
	return free_cpus >= cpus;
}

bool job_gres_pick(struct job *job, const int *node, const int *cpus, int n, const uint32_t *counts,
		   bool install)
{
	int ng;
	const struct sched_gres *items = job_gres_sched(job, &ng);
	bool enforce = enforce_binding(job);
	struct gres_hold **holds = xmalloc((n + 1) * sizeof(*holds));
	int *nholds = xmalloc((n + 1) * sizeof(int));
	bool ok = true;

	for (int k = 0; k < n && ok; k++) {
		const struct node *nd = &core.nodes[node[k]];
		uint32_t *used = xmalloc((nd->ngres_slots + 1) * sizeof(uint32_t));
		int room = nd->ngres_slots + ng + 1;
		for (int s = 0; s < nd->ngres_slots; s++)
			used[s] = nd->gres_slots[s].used;
		holds[k] = xmalloc(room * sizeof(**holds));
		for (int g = 0; g < ng && ok; g++) {
			int got = counts ? pick_on(nd, items[g].kinds, counts[k * ng + g], used,
						   holds[k] + nholds[k], room - nholds[k], enforce)
					 : 0;
			if (got < 0)
				ok = false;
			else
				nholds[k] += got;
		}
		if (ok && enforce && cpus && !near_enough(nd, holds[k], nholds[k], cpus[k]))
			ok = false;   /* its CPUs would not all be near its GPUs */
		free(used);
	}
	if (ok && install) {
		job_gres_clear_alloc(job);
		job->alloc_gres = holds;
		job->nalloc_gres = nholds;
		return true;
	}
	for (int k = 0; k < n; k++)
		free(holds[k]);
	free(holds);
	free(nholds);
	return ok;
}

/* What a pending job asks of item it: per node and per task over the
 * least nodes; --gpus is the job's total (sbatch(1): "the total number of
 * GPUs required for the job"), so at least that. */
static int64_t item_asked(const struct job *job, const struct job_gres *it)
{
	int64_t nodes = job->req_nodes ? job->req_nodes : 1;
	int64_t per_node = it->per_node + (int64_t)it->per_socket * job->sockets_per_node;
	int64_t n = per_node * nodes + (int64_t)it->per_task * (job->ntasks ? job->ntasks : nodes);
	return n > it->per_job ? n : it->per_job;
}

int64_t job_gres_count(const struct job *job, const char *name)
{
	int64_t total = 0;
	if (job->alloc_gres) {
		for (int i = 0; i < job->nalloc; i++)
			for (int h = 0; h < job->nalloc_gres[i]; h++)
				if (!strcmp(job->alloc_gres[i][h].name, name))
					total += job->alloc_gres[i][h].count;
		return total;
	}
	for (int g = 0; g < job->ngres; g++)
		if (!strcmp(job->gres[g].name, name))
			total += item_asked(job, &job->gres[g]);
	return total;
}

uint32_t job_node_gpus(const struct job *job, int i)
{
	uint32_t n = 0;
	for (int h = 0; job->alloc_gres && h < job->nalloc_gres[i]; h++)
		if (!strcmp(job->alloc_gres[i][h].name, "gpu"))
			n += job->alloc_gres[i][h].count;
	return n;
}

/* ---- what the node, the store and the commands get ---- */

json_t *job_gres_launch(const struct job *job, int i)
{
	const struct node *nd = &core.nodes[job->alloc_node[i]];
	json_t *a;

	if (!job->alloc_gres || !job->nalloc_gres[i])
		return NULL;
	a = json_array();
	for (int h = 0; h < job->nalloc_gres[i]; h++) {
		const struct gres_hold *gh = &job->alloc_gres[i][h];
		int s = node_gres_slot(nd, gh->name, gh->index);
		const struct gres_slot *sl = s >= 0 ? &nd->gres_slots[s] : NULL;
		const struct gres_dev *dev = sl && sl->dev >= 0 ? &nd->gres_devs[sl->dev] : NULL;
		uint32_t total = sl ? sl->cap : 0;
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:i, s:i}", "name",
						   gh->name, "type", gh->type, "index", (int)gh->index,
						   "file", dev ? dev->file : "", "cores",
						   dev ? dev->cores : "", "flags", dev ? (int)dev->flags : 0,
						   "count", (int)gh->count, "total", (int)total));
	}
	return a;
}

json_t *job_gres_hold_json(const struct job *job, int i)
{
	json_t *a = json_array();
	for (int h = 0; job->alloc_gres && h < job->nalloc_gres[i]; h++) {
		const struct gres_hold *gh = &job->alloc_gres[i][h];
		json_array_append_new(a, json_pack("[s,s,i,i]", gh->name, gh->type, (int)gh->index,
						   (int)gh->count));
	}
	return a;
}

void job_gres_hold_load(struct job *job, int i, int nodes, const json_t *a)
{
	size_t k, n = json_array_size(a);
	json_t *v;

	if (!n || i >= nodes)
		return;
	if (!job->alloc_gres) {   /* room for every node of the record */
		job->alloc_gres = xmalloc((nodes + 1) * sizeof(*job->alloc_gres));
		job->nalloc_gres = xmalloc((nodes + 1) * sizeof(int));
	}
	job->alloc_gres[i] = xmalloc(n * sizeof(struct gres_hold));
	json_array_foreach(a, k, v) {
		struct gres_hold *h = &job->alloc_gres[i][job->nalloc_gres[i]];
		const char *name = json_string_value(json_array_get(v, 0));
		json_int_t index = json_integer_value(json_array_get(v, 2));
		json_int_t count = json_integer_value(json_array_get(v, 3));
		if (!name || index < 0 || index > 65535 || count <= 0 || count > UINT16_MAX)
			continue;
		memset(h, 0, sizeof(*h));
		snprintf(h->name, sizeof(h->name), "%s", name);
		snprintf(h->type, sizeof(h->type), "%s", json_string_value(json_array_get(v, 1)) ?: "");
		h->index = (uint32_t)index;
		h->count = (uint32_t)count;
		job->nalloc_gres[i]++;
	}
}

char *job_gres_node_string(const struct job *job, int i)
{
	struct strbuf sb = { 0 };
	int n = job->alloc_gres ? job->nalloc_gres[i] : 0;
	bool *done = xmalloc(n + 1);

	/* one word per name and type: its count and the indexes, as Slurm */
	for (int h = 0; h < n; h++) {
		const struct gres_hold *gh = &job->alloc_gres[i][h];
		uint32_t count = 0, top = 0;
		if (done[h])
			continue;
		for (int k = h; k < n; k++)
			if (!strcmp(job->alloc_gres[i][k].name, gh->name) &&
			    !strcmp(job->alloc_gres[i][k].type, gh->type) && job->alloc_gres[i][k].index >= top)
				top = job->alloc_gres[i][k].index + 1;
		struct bitmap *idx = bitmap_create(top + 1);
		for (int k = h; k < n; k++)
			if (!strcmp(job->alloc_gres[i][k].name, gh->name) &&
			    !strcmp(job->alloc_gres[i][k].type, gh->type)) {
				done[k] = true;
				count += job->alloc_gres[i][k].count;
				bitmap_set(idx, job->alloc_gres[i][k].index);
			}
		char *ranges = bitmap_fmt_ranges(idx);
		char *item = xasprintf("%s%s%s%s:%" PRIu32 "(IDX:%s)", sb.len ? "," : "", gh->name,
				       gh->type[0] ? ":" : "", gh->type, count, ranges);
		strbuf_adds(&sb, item);
		free(item);
		free(ranges);
		bitmap_destroy(idx);
	}
	free(done);
	return sb.s ? sb.s : xstrdup("");
}

void gres_tres_add(struct tres_item *sum, int *n, const char *name, const char *type,
		   uint64_t count)
{
	for (int typed = 0; typed < 1 + (type[0] != 0); typed++) {
		struct tres_item t = { .count = count };
		snprintf(t.name, sizeof(t.name), "%s", name);
		snprintf(t.type, sizeof(t.type), "%s", typed ? type : "");
		int k = 0;
		while (k < *n && (strcmp(sum[k].name, t.name) || strcmp(sum[k].type, t.type)))
			k++;
		if (k < *n)
			sum[k].count += t.count;
		else if (*n < TRES_REQ_MAX)
			sum[(*n)++] = t;
	}
}

char *job_gres_tres(const struct job *job, bool alloc)
{
	struct tres_item sum[TRES_REQ_MAX];
	int n = 0;

	if (alloc) {
		for (int i = 0; job->alloc_gres && i < job->nalloc; i++)
			for (int h = 0; h < job->nalloc_gres[i]; h++) {
				const struct gres_hold *gh = &job->alloc_gres[i][h];
				gres_tres_add(sum, &n, gh->name, gh->type, gh->count);
			}
	} else {
		for (int g = 0; g < job->ngres; g++)
			gres_tres_add(sum, &n, job->gres[g].name, job->gres[g].type,
				      (uint64_t)item_asked(job, &job->gres[g]));
	}
	return gres_tres_text(sum, n);
}

char *job_gres_alloc_string(const struct job *job)
{
	if (job->alloc_gres)
		return job_gres_tres(job, true);
	/* pending: what it asks (Slurm's TRES= is then the request) */
	return job->nalloc ? NULL : job_gres_tres(job, false);
}

char *gres_tres_text(const struct tres_item *sum, int n)
{
	if (!n)
		return NULL;
	/* only what AccountingStorageTRES tracks, as Slurm's TRES= shows */
	const char *tracked = core.conf ? conf_get(core.conf, "AccountingStorageTRES") : NULL;
	struct strbuf sb = { 0 };
	for (int k = 0; k < n; k++) {
		char *name = xasprintf("gres/%s%s%s", sum[k].name, sum[k].type[0] ? ":" : "", sum[k].type);
		if (sum[k].count && gres_tres_tracked(tracked, name)) {
			char *item = xasprintf("%s%s=%" PRIu64, sb.len ? "," : "", name, sum[k].count);
			strbuf_adds(&sb, item);
			free(item);
		}
		free(name);
	}
	return sb.s;
}

char *job_gres_shown(const char *tres)
{
	struct tres_item t[TRES_REQ_MAX];
	struct herd_error err;
	int n = tres && *tres ? tres_req_parse(tres, t, TRES_REQ_MAX, &err) : 0;
	struct strbuf sb = { 0 };

	for (int k = 0; k < n; k++) {
		char *item = xasprintf("%sgres:%s%s%s:%" PRIu64, k ? "," : "", t[k].name,
				       t[k].type[0] ? ":" : "", t[k].type, t[k].count);
		strbuf_adds(&sb, item);
		free(item);
	}
	return sb.s;
}

uint16_t *job_gres_kinds(const struct job *job)
{
	uint16_t *k;

	if (!job->alloc_gres)
		return NULL;
	k = xmalloc(((size_t)job->nalloc * SCHED_GRES_KINDS + 1) * sizeof(*k));
	for (int i = 0; i < job->nalloc; i++) {
		const struct node *nd = &core.nodes[job->alloc_node[i]];
		for (int h = 0; h < job->nalloc_gres[i]; h++) {
			const struct gres_hold *gh = &job->alloc_gres[i][h];
			int s = node_gres_slot(nd, gh->name, gh->index);
			if (s >= 0 && nd->gres_slots[s].kind >= 0)
				k[i * SCHED_GRES_KINDS + nd->gres_slots[s].kind] += gh->count;
		}
	}
	return k;
}
