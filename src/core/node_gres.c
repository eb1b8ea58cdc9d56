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
#include "common/gres.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"

/* Slurm's word for a declared GRES ("foo:1", "gpu:h100:8"). */
static void decl_word(const struct gres_decl *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s:%" PRIu64, d->name, d->type[0] ? ":" : "", d->type, d->count);
}

int node_gres_check(const struct conf *conf, struct herd_error *err)
{
	const char *types = conf_get(conf, "GresTypes");

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

void node_gres_setup(struct node *n, const struct conf *conf)
{
	free(n->gres_decl);
	n->gres_decl = NULL;
	n->ngres_decl = 0;
	if (n->conf->gres && gres_decl_parse(n->conf->gres, &n->gres_decl, &n->ngres_decl, NULL) < 0)
		log_error("node %s: Gres=%s does not parse", n->name, n->conf->gres);   /* checked at load */
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
	char *s = gres_used_string(n->gres_decl, n->ngres_decl, n->gres_devs, n->ngres_devs);

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

void node_gres_json(const struct node *n, json_t *o)
{
	json_object_set_new(o, "gres", json_string(n->gres_shown ? n->gres_shown : ""));
	json_object_set_new(o, "gres_used", json_string(n->gres_used_shown ? n->gres_used_shown : ""));
	json_object_set_new(o, "gres_devs", gres_devs_to_json(n->gres_devs, n->ngres_devs));
}
