/* The bounded key-value sets of a step's PMI server (pmi_kvs.h).  A set
 * counts each key as the JSON text it travels to srun as ("key":"value",),
 * so that a set under PMI_FENCE_MAX_BYTES fits one step I/O message, plus
 * what jansson spends on it, so that the budget bounds herdstepd's memory. */
#include <string.h>
#include "stepd/pmi_kvs.h"

/* jansson's hashtable pair and string (about 100 bytes with malloc's
 * headers): a million one-byte keys must not fit where 64 MiB does. */
#define PMI_KVS_ENTRY_COST 128

static size_t pmi_kvs_json_len(const char *s)
{
	size_t n = 2;   /* the quotes */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p < 0x20 ? 6 : (*p == '"' || *p == '\\') ? 2 : 1;
	return n;
}

static size_t pmi_kvs_cost(const char *key, const char *value)
{
	return pmi_kvs_json_len(key) + pmi_kvs_json_len(value) + 2 + PMI_KVS_ENTRY_COST;
}

void pmi_kvs_init(struct pmi_kvs *kvs, struct pmi_kvs_budget *budget, size_t max_bytes)
{
	kvs->obj = json_object();
	kvs->bytes = kvs->keys = 0;
	kvs->max_bytes = max_bytes;
	kvs->budget = budget;
}

void pmi_kvs_free(struct pmi_kvs *kvs)
{
	if (!kvs->obj)
		return;
	kvs->budget->bytes -= kvs->bytes;
	kvs->budget->keys -= kvs->keys;
	json_decref(kvs->obj);
	kvs->obj = NULL;
	kvs->bytes = kvs->keys = 0;
}

const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key)
{
	return json_string_value(json_object_get(kvs->obj, key));
}

static int pmi_kvs_check(const char *key, const char *value, struct herd_error *err)
{
	size_t klen = strlen(key), vlen = strlen(value);

	if (!klen || klen > PMI_KVS_KEY_MAX)
		return errprintf(err, "key of %zu bytes (at most %d)", klen, PMI_KVS_KEY_MAX);
	if (vlen > PMI_KVS_VALUE_MAX)
		return errprintf(err, "value of %zu bytes (at most %d)", vlen, PMI_KVS_VALUE_MAX);
	return 0;
}

/* Would replacing `old_cost` by `cost` (one key more if `new_key`) stay
 * within the set's bound and the budget? */
static int pmi_kvs_room(const struct pmi_kvs *kvs, size_t old_cost, size_t cost, size_t new_keys,
			struct herd_error *err)
{
	const struct pmi_kvs_budget *b = kvs->budget;

	if (b->keys + new_keys > PMI_KVS_MAX_KEYS)
		return errprintf(err, "the step's key-value space is full (%d keys)",
				 PMI_KVS_MAX_KEYS);
	if (b->bytes - old_cost + cost > PMI_KVS_MAX_BYTES)
		return errprintf(err, "the step's key-value space is full (%u MiB)",
				 PMI_KVS_MAX_BYTES >> 20);
	if (kvs->max_bytes && kvs->bytes - old_cost + cost > kvs->max_bytes)
		return errprintf(err, "over %zu KiB of puts before a fence", kvs->max_bytes >> 10);
	return 0;
}

static void pmi_kvs_account(struct pmi_kvs *kvs, size_t old_cost, size_t cost, size_t new_keys)
{
	kvs->bytes = kvs->bytes - old_cost + cost;
	kvs->keys += new_keys;
	kvs->budget->bytes = kvs->budget->bytes - old_cost + cost;
	kvs->budget->keys += new_keys;
}

int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *value, struct herd_error *err)
{
	const char *old;
	size_t old_cost, cost;
	json_t *v;

	if (pmi_kvs_check(key, value, err) < 0)
		return -1;
	old = pmi_kvs_get(kvs, key);
	old_cost = old ? pmi_kvs_cost(key, old) : 0;
	cost = pmi_kvs_cost(key, value);
	if (pmi_kvs_room(kvs, old_cost, cost, !old, err) < 0)
		return -1;
	/* jansson refuses what is not UTF-8, in keys and values alike. */
	if (!(v = json_string(value)) || json_object_set_new(kvs->obj, key, v) < 0)
		return errprintf(err, "key or value is not UTF-8");
	pmi_kvs_account(kvs, old_cost, cost, !old);
	return 0;
}

json_t *pmi_kvs_take(struct pmi_kvs *kvs)
{
	json_t *obj = kvs->obj;

	kvs->budget->bytes -= kvs->bytes;
	kvs->budget->keys -= kvs->keys;
	kvs->obj = json_object();
	kvs->bytes = kvs->keys = 0;
	return obj;
}

int pmi_kvs_merge(struct pmi_kvs *kvs, const json_t *from, struct herd_error *err)
{
	const char *key;
	json_t *value;
	size_t old_cost = 0, cost = 0, new_keys = 0;

	if (!json_is_object(from))
		return errprintf(err, "the merged key-values are not an object");
	json_object_foreach((json_t *)from, key, value) {
		const char *v = json_string_value(value), *old;
		if (!v)
			return errprintf(err, "the merged value of %.64s is not a string", key);
		if (pmi_kvs_check(key, v, err) < 0)
			return -1;
		if ((old = pmi_kvs_get(kvs, key)))
			old_cost += pmi_kvs_cost(key, old);
		else
			new_keys++;
		cost += pmi_kvs_cost(key, v);
	}
	if (pmi_kvs_room(kvs, old_cost, cost, new_keys, err) < 0)
		return -1;
	json_object_update(kvs->obj, (json_t *)from);
	pmi_kvs_account(kvs, old_cost, cost, new_keys);
	return 0;
}
