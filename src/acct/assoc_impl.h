/* Between assoc.c (the objects, their store rows and lookups) and
 * assoc_mgr.c (ACCT_MGR, sacctmgr's requests): making, indexing, saving
 * and removing objects.  Not for other parts: they use assoc.h. */
#ifndef HERD_CTLD_ASSOC_IMPL_H
#define HERD_CTLD_ASSOC_IMPL_H
#include "acct/assoc.h"

/* QOS flags beyond assoc.h's DenyOnLimit: Slurm's names, kept and shown. */
#define QOS_FLAG_ENFORCE_USAGE_THRES 0x2u
#define QOS_FLAG_NO_RESERVE 0x4u
#define QOS_FLAG_PART_MAX_NODE 0x8u
#define QOS_FLAG_PART_MIN_NODE 0x10u
#define QOS_FLAG_OVER_PART_QOS 0x20u
#define QOS_FLAG_PART_TIME_LIMIT 0x40u
#define QOS_FLAG_REQ_RESV 0x80u
#define QOS_FLAG_NO_DECAY 0x100u
#define QOS_FLAG_USAGE_FACTOR_SAFE 0x200u

/* New objects, linked into accounting's lists and indexes (not saved). */
struct acct_cluster *acct_cluster_new(const char *name);
struct acct_account *acct_account_new(const char *name);
struct acct_user *acct_user_new(const char *name);
struct acct_qos *acct_qos_new(const char *name, uint32_t id);
struct acct_wckey *acct_wckey_new(uint32_t id, const char *cluster, const char *name,
				  const char *user);   /* wckey.c; id 0: the next free one */
/* id 0: the next free one. */
struct assoc *assoc_new(uint32_t id, const char *cluster, const char *account, const char *user,
			const char *partition);
/* Out of the lists, indexes and the store. */
void acct_cluster_remove(struct acct_cluster *c);
void acct_account_remove(struct acct_account *a);
void acct_user_remove(struct acct_user *u);
void acct_qos_remove(struct acct_qos *q);
/* Marked deleted, out of the indexes and the store (kept in memory: a job
 * counter of limits.c may still point at it). */
void assoc_remove(struct assoc *a);

/* Queue the object's record for the next commit. */
void acct_cluster_save(const struct acct_cluster *c);
void acct_account_save(const struct acct_account *a);
void acct_user_save(const struct acct_user *u);
void acct_qos_save(const struct acct_qos *q);
void assoc_save(const struct assoc *a);

struct acct_cluster *acct_cluster_find(const char *name);
struct assoc *assoc_find_exact(const char *cluster, const char *account, const char *user,
			       const char *partition);
struct acct_qos *acct_qos_by_id(uint32_t id);
/* The parent links again (after a load or a Parent= change). */
void assoc_resolve_parents(void);
/* Is uid's user named coordinator of exactly this account? */
bool acct_account_has_coord(const struct acct_account *a, const char *user);
/* The effective QOS list of a (its own, else the nearest ancestor's;
 * "normal" when none). */
const char *assoc_qos_effective(const struct assoc *a);
/* Depth in the account tree (root 0; a user association one below its
 * account's). */
int assoc_depth(const struct assoc *a);

/* Every object and index freed, accounting zeroed (tests' restarts,
 * the daemon's exit). */
void assoc_free_all(void);

/* Limits as JSON records and back (the store's and ACCT_MGR's form). */
json_t *acct_limits_to_json(const struct acct_limits *l);
void acct_limits_from_json(struct acct_limits *l, const json_t *o);
const char *qos_flag_name(unsigned bit);
int qos_flags_parse(const char *s, unsigned *flags);

#endif
