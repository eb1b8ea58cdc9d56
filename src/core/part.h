/* Partitions (part.c, limits in part_limits.h).  Included by ctld.h. */
#ifndef HERD_CTLD_PART_H
#define HERD_CTLD_PART_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/conf.h"

struct part {
	char *name;
	const struct conf_part *conf;
	int *node_idx;              /* indexes into core.nodes */
	int nnodes;
	char *nodes_str;            /* compressed */
	/* AllocNodes looked up at load (part.c): the IPv4 addresses a
	 * submission's credential may come from. */
	struct in_addr *alloc_addrs;
	int nalloc_addrs;
	/* Gone from herd.conf at a reconfigure while jobs were in it: kept for
	 * them (squeue still names it; pending ones wait, PartitionDown), but
	 * not listed, not found by name, never scheduled. */
	bool removed;
};

/* part.c */
void part_setup(void);
/* conf's partitions into a new array with room for extra more (reconf.c). */
void part_build(const struct conf *conf, int extra, struct part **parts, int *nparts,
		struct part **default_part);
void part_release(struct part *p);      /* its fields; the array is the caller's */
struct part *part_find(const char *name);   /* a listed partition (not a removed one) */
json_t *part_to_json(const struct part *part);

#endif
