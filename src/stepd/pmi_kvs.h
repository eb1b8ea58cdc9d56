/* The key-value sets a step's PMI server keeps (the step's merged set,
 * this node's puts since the last fence, PMI-2 node attributes), bounded:
 * herdstepd is root's, and its tasks put what they like.  Each set counts
 * what it holds as the JSON text it would travel as, and all the sets of
 * one server share one budget.  No I/O. */
#ifndef HERD_STEPD_PMI_KVS_H
#define HERD_STEPD_PMI_KVS_H
#include <jansson.h>
#include <stddef.h>
#include "common/error.h"

/* A key and a value: MPICH's PMI2_MAX_KEYLEN and PMI2_MAX_VALLEN (PMI-1
 * clients are told one less, get_maxes counting the NUL). */
#define PMI_KVS_KEY_MAX 64
#define PMI_KVS_VALUE_MAX 1024
/* All the sets of one server (one step on one node) together.  MPICH puts
 * a few keys of ~200 bytes per task: this is room for 100,000 tasks. */
#define PMI_KVS_MAX_KEYS 262144
#define PMI_KVS_MAX_BYTES (64u << 20)

struct pmi_kvs_budget {
	size_t bytes, keys;        /* held by all the sets */
};

struct pmi_kvs {
	json_t *obj;               /* key -> string */
	size_t bytes, keys;        /* held by this set */
	size_t max_bytes;          /* this set's own bound (0: only the budget's) */
	struct pmi_kvs_budget *budget;
};

void pmi_kvs_init(struct pmi_kvs *kvs, struct pmi_kvs_budget *budget, size_t max_bytes);
void pmi_kvs_free(struct pmi_kvs *kvs);
const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key);
/* Sets key; -1 with a sentence (nothing changed) when the key or value is
 * too long or not UTF-8, or the set or the budget would be over. */
int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *value, struct herd_error *err);
/* The set as an object (the caller's), and the set emptied. */
json_t *pmi_kvs_take(struct pmi_kvs *kvs);
/* Every key of `from` (what srun merged: checked like puts) set in kvs, or
 * none and -1 with a sentence. */
int pmi_kvs_merge(struct pmi_kvs *kvs, const json_t *from, struct herd_error *err);

#endif
