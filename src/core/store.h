/* The durable store (store.c).  Included by ctld.h. */
#ifndef HERD_CTLD_STORE_H
#define HERD_CTLD_STORE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/state.h"

struct job;

/* store.c */
int store_open(const char *dir, struct herd_error *err);
int store_load(void);                 /* jobs into the job table, next_job_id */
/* Queue writes for the next group commit. */
void store_job_insert(const struct job *job, json_t *spec);   /* steals spec */
void store_job_update(const struct job *job);
void store_job_requeued(const struct job *job);   /* the run ending: its own REQUEUED record */
void store_job_event(uint32_t job_id, const char *event, const char *detail);
void store_node_admin(const char *name, json_t *rec);        /* steals rec */
void store_step_save(uint32_t job_id, uint32_t step_id, int state, json_t *rec);   /* steals rec */
/* Accounting objects (assoc.h): one JSON record per (kind, key), written
 * with the next group commit; store_acct_load calls fn for each stored
 * record of kind, in the order they were first written. */
void store_acct_put(const char *kind, const char *key, json_t *rec);   /* steals rec */
void store_acct_del(const char *kind, const char *key);
int store_acct_load(const char *kind, void (*fn)(const char *key, const json_t *rec, void *arg),
		    void *arg);
/* Run cb after everything queued so far is durable (ok false if the commit failed). */
void store_after_commit(void (*cb)(void *arg, bool ok), void *arg);
/* cb runs (ok true) once what was queued before it is durable, however many
 * commits fail first (a full disk): for work with no client to refuse. */
void store_after_durable(void (*cb)(void *arg, bool ok), void *arg);
json_t *store_job_spec(uint32_t job_id);
const char *store_path(void);          /* the database file, for other readers */
uint32_t store_find_key(uid_t uid, const char *key);
bool store_job_known(uint32_t job_id);                 /* any record of it, even purged */
/* A job's last committed state and start time, even purged from memory; -1 if none. */
int store_job_final(uint32_t job_id, enum job_state *state, time_t *start_time);
/* Every committed record of array array_job_id, as a job read from the
 * store (destroyed after fn); the number of records. */
int store_array_records(uint32_t array_job_id, void (*fn)(const struct job *job, void *arg),
			void *arg);
/* Nothing queued, nothing being committed (herd sim drains the store
 * with the loop until it is). */
bool store_quiet(void);
void store_close(void);

#endif
