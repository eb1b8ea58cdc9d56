/* What a reconfigure cannot apply: the herd.conf changes that need the
 * daemons restarted (slurm.conf(5) says the same of Slurm's: addresses,
 * ports, the state directory, authentication, and adding or removing
 * nodes).  Pure: two loaded configurations in, a sentence out; applying
 * the rest is the daemons' business (src/ctld/reconf.c, src/noded/reconf.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/xmalloc.h"

/* Keys read once at start: sockets bound, files opened, state found there. */
static const char *const restart_keys[] = {
	"ClusterName", "SlurmctldHost", "SlurmctldAddr", "ControlMachine", "ControlAddr",
	"SlurmctldPort", "SlurmdPort", "StateSaveLocation", "AuthType", "AuthInfo",
	"MaxMessageSize", "SlurmctldLogFile", "SlurmctldPidFile", "SlurmdSpoolDir",
	"SlurmdLogFile", "SlurmdPidFile",
	/* the accounting backend is opened once, at start (store.c) */
	"AccountingStorageType", "AccountingStorageHost", "AccountingStoragePort",
	"AccountingStorageUser", "AccountingStoragePass", "AccountingStorageLoc", NULL,
};

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int need_restart(const struct conf *new, const char *what, const char *name,
			struct herd_error *err)
{
	return errprintf(err, "%s: %s%s%s: restart herdctld and herdd to apply it", new->path,
			 name ? "node " : "", name ? name : "", what);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct conf_node *const *)a)->name,
		      (*(const struct conf_node *const *)b)->name);
}

/* conf's nodes sorted by name (caller frees): old and new are compared by a
 * merge, so 100,000 nodes in another order cost no more than a sort. */
static const struct conf_node **sorted_nodes(const struct conf *conf)
{
	const struct conf_node **v = xmalloc((conf->nnodes + 1) * sizeof(*v));
	for (size_t i = 0; i < conf->nnodes; i++)
		v[i] = &conf->nodes[i];
	qsort(v, conf->nnodes, sizeof(*v), by_name);
	return v;
}

static int nodes_diff(const struct conf *old, const struct conf *new, struct herd_error *err)
{
	const struct conf_node **o = sorted_nodes(old), **n = sorted_nodes(new);
	size_t i = 0, k = 0;
	int rc = 0;

	while (rc == 0 && (i < old->nnodes || k < new->nnodes)) {
		int c = i == old->nnodes ? 1 : k == new->nnodes ? -1 : strcmp(o[i]->name, n[k]->name);
		if (c < 0)
			rc = need_restart(new, " removed (adding or removing nodes)", o[i]->name, err);
		else if (c > 0)
			rc = need_restart(new, " added (adding or removing nodes)", n[k]->name, err);
		else if (!same(o[i]->addr, n[k]->addr) || !same(o[i]->hostname, n[k]->hostname) ||
			 o[i]->port != n[k]->port)
			rc = need_restart(new, ": NodeAddr, NodeHostname or Port changed", n[k]->name, err);
		i += c <= 0;
		k += c >= 0;
	}
	free(o);
	free(n);
	return rc;
}

int conf_diff_restart(const struct conf *old, const struct conf *new, struct herd_error *err)
{
	for (const char *const *k = restart_keys; *k; k++)
		if (!same(conf_get(old, *k), conf_get(new, *k))) {
			char what[64];
			snprintf(what, sizeof(what), "%s changed", *k);
			return need_restart(new, what, NULL, err);
		}
	return nodes_diff(old, new, err);
}
