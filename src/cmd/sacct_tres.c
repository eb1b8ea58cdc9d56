/* sacct's GRES TRES (doc/gres.md section 4): the gres/gpu items of a job's
 * AllocTRES and ReqTRES (the record's tres_alloc_gres, tres_req_gres: what
 * AccountingStorageTRES named), of its batch step and its steps (the job's
 * devices on their nodes), and the TRES lists put in the order Slurm's
 * sacct prints them.  Pure: records in, text out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.h"
#include "cmd/sacct_fields.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

static void gres_add(struct sacct_tres *t, const char *name, long long count)
{
	for (int k = 0; k < t->ngres; k++)
		if (!strcmp(t->gres[k].name, name)) {
			t->gres[k].count += count;
			return;
		}
	if (t->ngres == SACCT_GRES_MAX || strlen(name) >= sizeof(t->gres[0].name))
		return;
	snprintf(t->gres[t->ngres].name, sizeof(t->gres[0].name), "%s", name);
	t->gres[t->ngres++].count = count;
}

void sacct_gres_parse(const char *text, struct sacct_tres *t)
{
	char item[128];
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			char *eq = strchr(item, '='), *end;
			if (eq) {
				*eq = '\0';
				long long v = strtoll(eq + 1, &end, 10);
				if (end != eq + 1 && !*end && v >= 0)
					gres_add(t, item, v);
			}
		}
		p += n + (p[n] == ',');
	}
}

/* Is name one of the job's recorded GRES TRES (so AccountingStorageTRES
 * named it when the record was written)? */
static bool recorded(const struct sacct_tres *job_gres, const char *name)
{
	for (int k = 0; k < job_gres->ngres; k++)
		if (!strcmp(job_gres->gres[k].name, name))
			return true;
	return false;
}

void sacct_gres_on_nodes(const json_t *job, const char *nodes, struct sacct_tres *t)
{
	struct sacct_tres tracked = { 0 };
	struct hostlist *hl = nodes ? hostlist_create(nodes) : NULL;
	const json_t *alloc = json_object_get(job, "alloc");
	size_t i, h;
	json_t *a, *hold;

	sacct_gres_parse(cmd_jstr(job, "tres_alloc_gres"), &tracked);
	if (tracked.ngres && (!nodes || hl))
		json_array_foreach(alloc, i, a) {
			const char *node = json_string_value(json_array_get(a, 0));
			if (nodes ? !node || hostlist_find(hl, node) < 0 : i > 0)
				continue;
			json_array_foreach(json_array_get(a, 3), h, hold) {
				const char *name = json_string_value(json_array_get(hold, 0));
				const char *type = json_string_value(json_array_get(hold, 1));
				long long count = json_integer_value(json_array_get(hold, 3));
				char full[128];
				if (!name || count <= 0)
					continue;
				snprintf(full, sizeof(full), "gres/%s", name);
				if (recorded(&tracked, full))
					gres_add(t, full, count);
				if (type && *type) {
					snprintf(full, sizeof(full), "gres/%s:%s", name, type);
					if (recorded(&tracked, full))
						gres_add(t, full, count);
				}
			}
		}
	hostlist_destroy(hl);
}

void sacct_gres_of_step(const json_t *job, const json_t *step, struct sacct_tres *t)
{
	const char *own = json_string_value(json_object_get(step, "tres_gres"));
	struct sacct_tres tracked = { 0 }, mine = { 0 };

	if (!own) {   /* a record from before steps kept their GRES */
		sacct_gres_on_nodes(job, cmd_jstr(step, "nodes"), t);
		return;
	}
	sacct_gres_parse(cmd_jstr(job, "tres_alloc_gres"), &tracked);
	sacct_gres_parse(own, &mine);
	for (int k = 0; k < mine.ngres; k++)
		if (recorded(&tracked, mine.gres[k].name))
			gres_add(t, mine.gres[k].name, mine.gres[k].count);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Slurm's sacct lists TRES by their "name=value" text: billing, cpu,
 * gres/gpu:h100 before gres/gpu (':' sorts before '='), gres/gpumem,
 * mem, node. */
const char *sacct_tres_join(const char *base, const struct sacct_tres *t, char *buf, size_t len)
{
	char *items[64], *copy = xstrdup(base), *save = NULL;
	int n = 0;

	for (char *w = strtok_r(copy, ",", &save); w && n < 64; w = strtok_r(NULL, ",", &save))
		items[n++] = xstrdup(w);
	for (int k = 0; t && k < t->ngres && n < 64; k++)
		items[n++] = xasprintf("%s=%lld", t->gres[k].name, t->gres[k].count);
	qsort(items, n, sizeof(*items), by_text);
	size_t at = 0;
	buf[0] = '\0';
	for (int k = 0; k < n; k++) {
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%s", k ? "," : "", items[k]);
		free(items[k]);
	}
	free(copy);
	return buf;
}

const json_t *sacct_gpu_usage(const json_t *job, long long step_id)
{
	char key[24];
	snprintf(key, sizeof(key), "%lld", step_id);
	return json_object_get(json_object_get(job, "gpu_usage"), key);
}

bool sacct_gpu_figures(const json_t *usage, enum sacct_usage kind, long long *mem_mb,
		       long long *util)
{
	long long nodes = (long long)json_array_size(json_object_get(usage, "nodes"));
	if (!usage || nodes <= 0)
		return false;
	switch (kind) {
	case USAGE_MAX:
		*mem_mb = cmd_jint(usage, "mem_max");
		*util = cmd_jint(usage, "util_max");
		break;
	case USAGE_TOT:
		*mem_mb = cmd_jint(usage, "mem_tot");
		*util = cmd_jint(usage, "util_tot");
		break;
	case USAGE_AVE:
		*mem_mb = cmd_jint(usage, "mem_ave_sum") / nodes;
		*util = cmd_jint(usage, "util_ave_sum") / nodes;
		break;
	}
	return true;
}
