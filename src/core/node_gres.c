/* A node's generic resources as the controller keeps them (doc/gres.md
 * section 1): what herd.conf's Gres= declares, checked against GresTypes;
 * the devices herdd reports, compared with it (fewer drains the node, as
 * Slurm does); the strings `scontrol show node` and sinfo print.  Nothing
 * is allocated yet (section 2). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/gres.h"
#include "common/tres_req.h"
#include "common/strbuf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "sched/select.h"

/* Slurm's word for a declared GRES ("foo:1", "gpu:h100:8"). */
static void decl_word(const struct gres_decl *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s:%" PRIu64, d->name, d->type[0] ? ":" : "", d->type, d->count);
}

/* ---- the pass's kinds ---- */

static struct {
	char name[32], type[64];
} kinds[SCHED_GRES_KINDS];
static int nkinds;

/* Kind of (name, type), added when new (add); -1 when not known or full. */
static int kind_index(const char *name, const char *type, bool add)
{
	for (int k = 0; k < nkinds; k++)
		if (!strcmp(kinds[k].name, name) && !strcmp(kinds[k].type, type))
			return k;
	if (!add || nkinds == SCHED_GRES_KINDS)
		return -1;
	snprintf(kinds[nkinds].name, sizeof(kinds[nkinds].name), "%s", name);
	snprintf(kinds[nkinds].type, sizeof(kinds[nkinds].type), "%s", type);
	return nkinds++;
}

int node_gres_nkinds(void)
{
	return nkinds;
}

uint32_t node_gres_kinds_of(const char *name, const char *type)
{
	uint32_t bits = 0;
	for (int k = 0; k < nkinds; k++)
		if (!strcmp(kinds[k].name, name) &&
		    (!type || !*type || !strcasecmp(kinds[k].type, type) ||
		     gres_type_matches(kinds[k].type, type)))
			bits |= 1u << k;
	return bits;
}

int node_gres_check(const struct conf *conf, struct herd_error *err)
{
	const char *types = conf_get(conf, "GresTypes");
	struct gres_decl seen[SCHED_GRES_KINDS];
	int nseen = 0;

	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct conf_node *cn = &conf->nodes[i];
		struct gres_decl *decl = NULL;
		size_t n = 0;
		struct herd_error perr;
		if (!cn->gres)
			continue;
		if (gres_decl_parse(cn->gres, &decl, &n, &perr) < 0)
			return errprintf(err, "%s: Invalid GRES configured on node %s: %s", conf->path,
					 cn->name, cn->gres);
		for (size_t k = 0; k < n; k++)
			if (!gres_types_has(types, decl[k].name)) {
				char word[128];
				decl_word(&decl[k], word, sizeof(word));
				errprintf(err, "%s: Invalid GRES configured on node %s: %s (gres/%s is not in "
					  "GresTypes=%s)", conf->path, cn->name, word, decl[k].name,
					  types ? types : "");
				free(decl);
				return -1;
			}
		for (size_t k = 0; k < n; k++) {   /* the pass counts so many kinds */
			int j = 0;
			while (j < nseen && (strcmp(seen[j].name, decl[k].name) ||
					     strcmp(seen[j].type, decl[k].type)))
				j++;
			if (j < nseen)
				continue;
			if (nseen == SCHED_GRES_KINDS) {
				char word[128];
				decl_word(&decl[k], word, sizeof(word));
				errprintf(err, "%s: Invalid GRES configured on node %s: %s (more than %d "
					  "GRES name:type pairs in the cluster)", conf->path, cn->name, word,
					  SCHED_GRES_KINDS);
				free(decl);
				return -1;
			}
			seen[nseen++] = decl[k];
		}
		free(decl);
	}
	return 0;
}

static char *used_string(const struct node *n, const char *types);

/* What NODE_INFO shows, made when the declaration or the devices change,
 * not at every request: a node's records may name 4096 devices. */
static void strings_update(struct node *n, const char *types)
{
	free(n->gres_shown);
	free(n->gres_used_shown);
	n->gres_shown = gres_node_string(n->gres_decl, n->ngres_decl, n->gres_devs, n->ngres_devs,
					 n->cores);
	n->gres_used_shown = used_string(n, types);
}

/* ---- what is given out ---- */

static void slot_add(struct node *n, int *cap, int kind, int dev, const char *name,
		     const char *type, uint32_t index, uint64_t count)
{
	if (n->ngres_slots == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		n->gres_slots = xrealloc(n->gres_slots, *cap * sizeof(*n->gres_slots));
	}
	struct gres_slot *sl = &n->gres_slots[n->ngres_slots++];
	*sl = (struct gres_slot){ .kind = kind, .dev = dev, .gpu = -1, .index = index,
				  .cap = count > UINT16_MAX ? UINT16_MAX : (uint32_t)count };
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	snprintf(sl->type, sizeof(sl->type), "%s", type);
}

static void hold_again(struct job *job, void *arg)
{
	struct node *n = arg;
	int idx = (int)(n - core.nodes);
	if (job->state != JOB_RUNNING && job->state != JOB_COMPLETING && job->state != JOB_SUSPENDED)
		return;
	for (int i = 0; job->alloc_gres && i < job->nalloc; i++)
		if (job->alloc_node[i] == idx)
			for (int h = 0; h < job->nalloc_gres[i]; h++)
				node_gres_hold(n, &job->alloc_gres[i][h], 1);
}

/* Shares of a GPU (a shard or mps line naming its File): tied to it, and
 * numbered by it, as Slurm's shards are (SLURM_SHARDS_ON_NODE's GPU). */
static void link_shares(struct node *n)
{
	for (int i = 0; i < n->ngres_slots; i++) {
		struct gres_slot *sl = &n->gres_slots[i];
		if ((strcmp(sl->name, "shard") && strcmp(sl->name, "mps")) || sl->dev < 0 ||
		    !n->gres_devs[sl->dev].file[0])
			continue;
		for (int g = 0; g < n->ngres_slots; g++) {
			const struct gres_slot *gpu = &n->gres_slots[g];
			if (!strcmp(gpu->name, "gpu") && gpu->dev >= 0 &&
			    !strcmp(n->gres_devs[gpu->dev].file, n->gres_devs[sl->dev].file)) {
				sl->gpu = g;
				sl->index = gpu->index;
				break;
			}
		}
	}
}

uint32_t node_gres_free(const struct node *n, int s, const uint32_t *used)
{
	const struct gres_slot *sl = &n->gres_slots[s];
	uint32_t u = used ? used[s] : sl->used;

	if (u >= sl->cap)
		return 0;
	if (sl->gpu >= 0 && (used ? used[sl->gpu] : n->gres_slots[sl->gpu].used))
		return 0;   /* its GPU is held whole */
	for (int k = 0; k < n->ngres_slots; k++) {
		const struct gres_slot *o = &n->gres_slots[k];
		if (!(used ? used[k] : o->used) || k == s)
			continue;
		if (o->gpu == s)
			return 0;   /* a GPU whose shares are in use */
		if (sl->gpu >= 0 && o->gpu == sl->gpu && strcmp(o->name, sl->name))
			return 0;   /* its GPU is shared the other way (shards, MPS) */
	}
	return sl->cap - u;
}

/* The slots of the declaration, from the devices reported (the first
 * ones of each declared name and type, up to its count), the rest of a
 * count without devices; the running jobs' holds marked again. */
static void slots_build(struct node *n)
{
	int cap = 0;
	bool *taken = xmalloc(n->ngres_devs + 1);

	free(n->gres_slots);
	n->gres_slots = NULL;
	n->ngres_slots = 0;
	memset(taken, 0, n->ngres_devs + 1);
	for (size_t i = 0; i < n->ngres_decl; i++) {
		const struct gres_decl *d = &n->gres_decl[i];
		int kind = kind_index(d->name, d->type, true);
		uint64_t left = d->count;
		if (d->flags & GRES_F_NO_CONSUME)
			left = 0;   /* not counted: any job may have it */
		for (size_t j = 0; j < n->ngres_devs && left > 0; j++) {
			const struct gres_dev *dev = &n->gres_devs[j];
			if (taken[j] || strcmp(dev->name, d->name) || !gres_type_matches(dev->type, d->type))
				continue;
			uint64_t c = dev->count < left ? dev->count : left;
			taken[j] = true;
			slot_add(n, &cap, kind, (int)j, d->name, dev->type[0] ? dev->type : d->type,
				 (uint32_t)dev->index, c);
			left -= c;
		}
		if (left > 0)
			slot_add(n, &cap, kind, -1, d->name, d->type, 0, left);
	}
	free(taken);
	link_shares(n);
	job_foreach(hold_again, n);
}

void node_gres_counts(const struct node *n, uint16_t *total, uint16_t *alloc)
{
	memset(total, 0, SCHED_GRES_KINDS * sizeof(*total));
	memset(alloc, 0, SCHED_GRES_KINDS * sizeof(*alloc));
	for (int i = 0; i < n->ngres_slots; i++) {
		const struct gres_slot *sl = &n->gres_slots[i];
		if (sl->kind < 0)
			continue;
		total[sl->kind] += sl->cap;
		alloc[sl->kind] += sl->cap - node_gres_free(n, i, NULL);
	}
}

int node_gres_slot(const struct node *n, const char *name, uint32_t index)
{
	for (int s = 0; s < n->ngres_slots; s++)
		if (n->gres_slots[s].index == index && !strcmp(n->gres_slots[s].name, name))
			return s;
	return -1;
}

struct bitmap *node_gres_slot_cores(const struct node *n, int s)
{
	const struct gres_slot *sl = &n->gres_slots[s];
	if (sl->dev < 0 || !n->gres_devs[sl->dev].cores[0])
		return NULL;
	return bitmap_parse(n->gres_devs[sl->dev].cores, 1u << 16);
}

struct bitmap *node_gres_near(const struct node *n, const struct gres_hold *holds, int nholds,
			      bool *any)
{
	struct bitmap *near = NULL;

	if (any)
		*any = false;
	for (int h = 0; h < nholds; h++) {
		int s = node_gres_slot(n, holds[h].name, holds[h].index);
		struct bitmap *c = s < 0 ? NULL : node_gres_slot_cores(n, s);
		if (!c) {
			if (any && s >= 0)
				*any = true;
			continue;
		}
		if (!near)
			near = bitmap_create(c->nbits > (uint32_t)n->cpus ? c->nbits : (uint32_t)n->cpus);
		for (uint32_t b = bitmap_next(c, 0); b != BITMAP_NONE; b = bitmap_next(c, b + 1))
			bitmap_set(near, b);
		bitmap_destroy(c);
	}
	return near;
}

void node_gres_hold(struct node *n, const struct gres_hold *h, int sign)
{
	int s = node_gres_slot(n, h->name, h->index);
	if (s < 0)
		return;
	struct gres_slot *sl = &n->gres_slots[s];
	if (sign > 0)
		sl->used += h->count;
	else
		sl->used = sl->used > h->count ? sl->used - h->count : 0;
}

void node_gres_used_changed(struct node *n)
{
	free(n->gres_used_shown);
	n->gres_used_shown = used_string(n, conf_get(core.conf, "GresTypes"));
}

void node_gres_setup(struct node *n, const struct conf *conf)
{
	free(n->gres_decl);
	n->gres_decl = NULL;
	n->ngres_decl = 0;
	if (n->conf->gres && gres_decl_parse(n->conf->gres, &n->gres_decl, &n->ngres_decl, NULL) < 0)
		log_error("node %s: Gres=%s does not parse", n->name, n->conf->gres);   /* checked at load */
	slots_build(n);
	strings_update(n, conf_get(conf, "GresTypes"));
}

/* The declared count of name that the devices cover; the type a substring
 * of the detected one, as Slurm matches "h100" to "nvidia_h100_80gb_hbm3". */
static uint64_t reported_count(const struct node *n, const struct gres_decl *d)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n->ngres_devs; i++) {
		const struct gres_dev *dev = &n->gres_devs[i];
		if (!strcmp(dev->name, d->name) && gres_type_matches(dev->type, d->type))
			total += dev->count;
	}
	return total;
}

void node_gres_report(struct node *n, const json_t *gres)
{
	struct gres_dev *devs;
	size_t ndevs;
	struct herd_error err;

	if (!gres)
		return;   /* a herdd that says nothing of GRES */
	if (gres_devs_from_json(gres, &devs, &ndevs, &err) < 0) {
		log_error("node %s: registration's %s", n->name, err.text);
		return;
	}
	free(n->gres_devs);
	n->gres_devs = devs;
	n->ngres_devs = ndevs;
	slots_build(n);
	strings_update(n, conf_get(core.conf, "GresTypes"));
	for (size_t i = 0; i < n->ngres_decl; i++) {
		const struct gres_decl *d = &n->gres_decl[i];
		uint64_t got = reported_count(n, d);
		if (got >= d->count || (n->drain && n->reason))
			continue;
		char reason[160];
		snprintf(reason, sizeof(reason),
			 "gres/%s count reported lower than configured (%" PRIu64 " < %" PRIu64 ")",
			 d->name, got, d->count);
		log_error("node %s: %s: draining it", n->name, reason);
		node_drain_for(n, reason);
		break;
	}
}

/* GresUsed: each declared GRES with nothing in use ("(IDX:N/A)" when the
 * node has device files for it), then GresTypes' other names at 0, as
 * Slurm 22.05 prints them. */
static char *used_string(const struct node *n, const char *types)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < n->ngres_decl; i++) {
		const struct gres_decl *d = &n->gres_decl[i];
		int kind = kind_index(d->name, d->type, false);
		uint64_t used = 0;
		bool files = !strcmp(d->name, "gpu");
		uint32_t top = 0;
		for (int k = 0; k < n->ngres_slots; k++)
			if (n->gres_slots[k].index >= top)
				top = n->gres_slots[k].index + 1;
		struct bitmap *idx = bitmap_create(top + 1);
		for (int k = 0; k < n->ngres_slots; k++) {
			const struct gres_slot *sl = &n->gres_slots[k];
			if (sl->kind != kind || kind < 0)
				continue;
			used += sl->used;
			if (sl->dev >= 0 && n->gres_devs[sl->dev].file[0])
				files = true;
			if (sl->used && sl->dev >= 0)
				bitmap_set(idx, sl->index);
		}
		char *ranges = bitmap_count(idx) ? bitmap_fmt_ranges(idx) : xstrdup("N/A");
		char word[128];
		decl_word(d, word, sizeof(word));
		*strrchr(word, ':') = '\0';   /* name[:type] */
		char *item = xasprintf("%s%s:%" PRIu64 "%s%s%s", sb.len ? "," : "", word, used,
				       files ? "(IDX:" : "", files ? ranges : "", files ? ")" : "");
		strbuf_adds(&sb, item);
		free(item);
		free(ranges);
		bitmap_destroy(idx);
	}
	char *s = sb.s ? sb.s : xstrdup("");

	for (const char *p = types ? types : ""; *p;) {
		size_t len = strcspn(p, ","), k;
		for (k = 0; k < n->ngres_decl; k++)
			if (strlen(n->gres_decl[k].name) == len &&
			    !strncasecmp(n->gres_decl[k].name, p, len))
				break;
		if (len && k == n->ngres_decl) {
			char *more = xasprintf("%s%s%.*s:0", s, *s ? "," : "", (int)len, p);
			free(s);
			s = more;
		}
		p += len + (p[len] == ',');
	}
	return s;
}

/* The node's GRES as TRES (CfgTRES=, or in use: AllocTRES=), the names
 * AccountingStorageTRES tracks; "" for none. */
static json_t *tres_json(const struct node *n, bool in_use)
{
	struct tres_item sum[TRES_REQ_MAX];
	int k = 0;
	for (int s = 0; s < n->ngres_slots; s++) {
		const struct gres_slot *sl = &n->gres_slots[s];
		uint32_t c = in_use ? sl->used : sl->cap;
		if (c)
			gres_tres_add(sum, &k, sl->name, sl->type, c);
	}
	char *text = gres_tres_text(sum, k);
	json_t *v = json_string(text ? text : "");
	free(text);
	return v;
}

void node_gres_json(const struct node *n, json_t *o)
{
	json_object_set_new(o, "gres", json_string(n->gres_shown ? n->gres_shown : ""));
	json_object_set_new(o, "gres_used", json_string(n->gres_used_shown ? n->gres_used_shown : ""));
	json_object_set_new(o, "gres_tres", tres_json(n, false));
	json_object_set_new(o, "gres_tres_used", tres_json(n, true));
	json_object_set_new(o, "gres_devs", gres_devs_to_json(n->gres_devs, n->ngres_devs));
}
