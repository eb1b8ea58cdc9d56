/* A job's or step's request of generic resources, as Slurm writes it in
 * TRES form: "gres/gpu:h100:2,gres/shard:4" (tres_per_node, tres_per_job,
 * tres_per_socket, tres_per_task; doc/gres.md section 2).  Pure. */
#ifndef HERD_COMMON_TRES_REQ_H
#define HERD_COMMON_TRES_REQ_H
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define TRES_REQ_MAX 16          /* items in one request */
#define TRES_REQ_COUNT_MAX 1000000

struct tres_item {
	char name[32];               /* "gpu" */
	char type[64];               /* "h100", "" for any */
	uint64_t count;
};

/* Items of s: "[gres/|gres:]name[:type][:count]" comma-separated, count 1
 * when not given, with K/M/G suffixes (x1024, as Slurm); one item per name
 * and type (a later one replaces).  The number, or -1 with err (Slurm's
 * "Invalid generic resource (gres) specification"). */
int tres_req_parse(const char *s, struct tres_item *out, int max, struct herd_error *err);
/* "gres/name[:type]:count,..." of items; caller frees. */
char *tres_req_format(const struct tres_item *items, int n);
/* Put item into items (n of them, room for max): replaces the one of its
 * name and type.  The new count, or -1 when full. */
int tres_req_put(struct tres_item *items, int n, int max, const struct tres_item *item);

#endif
