/* Between the parts of ACCT_MGR: assoc_mgr.c (the request, what every
 * entity shares, dispatch), assoc_edit.c, assoc_qos.c, assoc_list.c and
 * assoc_load.c (the entities' handlers).  Not for other parts of the
 * controller: they use assoc.h. */
#ifndef HERD_CTLD_ASSOC_MGR_H
#define HERD_CTLD_ASSOC_MGR_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "common/error.h"
#include "acct/assoc_impl.h"

/* A limit or count a change does not give (ACCT_UNSET clears one). */
#define NOT_GIVEN INT64_MIN

/* One ACCT_MGR request as its handlers see it. */
struct mgr {
	uid_t uid;
	const char *uname;           /* the requester's user name */
	bool oper, admin;            /* Operator or more, Administrator */
	bool dry_run;                /* sacctmgr without -i: check and tell, change nothing */
	const json_t *where, *set, *names, *options, *records;
	json_t *out;                 /* the reply */
	bool changed;
	int rc;
	struct herd_error err;
};

/* A list of names (duplicates once); NULL-terminated v. */
struct strv {
	char **v;
	size_t n;
};

/* The association attributes of a set (Fairshare, limits, QOS). */
struct assoc_change {
	struct acct_limits lim;      /* NOT_GIVEN: left as is */
	int64_t shares;              /* NOT_GIVEN, or SHARES_PARENT */
	const char *qos;             /* as given: "a,b", "+a", "-a,b"; "" / "-1" clears */
	const char *default_qos;     /* "" / "-1" clears */
	bool any;
};

/* Filters of list/modify/delete on associations (where keys). */
struct assoc_filter {
	struct strv clusters, accounts, users, partitions, parents, ids;
	bool users_only, accounts_only;
};

/* What a delete looks for in the job table: pending or running jobs. */
struct jobs_scan {
	const struct strv *accounts;   /* NULL: any */
	const struct strv *users;      /* NULL: any */
	const char *partition;         /* NULL: any */
	const struct strv *qos;        /* NULL: any */
	json_t *found;
};

/* The keys of association attributes, and of where on associations. */
extern const char *const mgr_assoc_keys[];
extern const char *const mgr_where_assoc_keys[];

/* assoc_mgr.c: a refusal (rc and sentence into m, returns -1), the
 * request's parts, lists of names, attributes, filters */
int mgr_fail(struct mgr *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mgr_denied(struct mgr *m);
const char *mgr_where(const struct mgr *m, const char *key);
const char *mgr_set(const struct mgr *m, const char *key);
bool mgr_option(const struct mgr *m, const char *opt);
void mgr_strv_push(struct strv *s, const char *item);
bool mgr_strv_has(const struct strv *s, const char *item);
void mgr_strv_free(struct strv *s);
void mgr_strv_split(struct strv *s, const char *list);
void mgr_names(const struct mgr *m, struct strv *s, const char *alt_key);
bool mgr_in_list(const char *list, const char *word);
int mgr_check_keys(struct mgr *m, const json_t *o, const char *const *allowed, const char *what);
int mgr_parse_count(struct mgr *m, const char *key, const char *s, int64_t *out);
int mgr_parse_tres(struct mgr *m, const char *key, const char *s, tres_vec v);
int mgr_check_qos_names(struct mgr *m, const char *list);
int mgr_change_parse(struct mgr *m, const json_t *o, struct assoc_change *c);
void mgr_merge_scalar(int64_t *dst, int64_t v);
void mgr_merge_tres(tres_vec dst, const tres_vec v);
char *mgr_qos_list_apply(const struct assoc *a, const char *v);
int mgr_change_check_qos(struct mgr *m, const struct assoc *a, const struct assoc_change *c);
void mgr_change_apply(struct assoc *a, const struct assoc_change *c);
void mgr_filter_fill(const struct mgr *m, struct assoc_filter *f);
void mgr_filter_free(struct assoc_filter *f);
bool mgr_filter_match(const struct assoc_filter *f, const struct assoc *a);
json_t *mgr_assoc_ref(const struct assoc *a);
bool mgr_jobs_block(struct mgr *m, struct jobs_scan *s);
/* No control characters in names that are made (-1 with m's error). */
int mgr_names_ok(struct mgr *m, const struct strv *names, const char *what);
int mgr_values_ok(struct mgr *m, const json_t *v, const char *key);
const char *mgr_org_default(const char *name, const char *parent);
int mgr_parse_account_flags(struct mgr *m, const char *v, unsigned cur, unsigned *out);
bool mgr_makes_cycle(const char *cluster, const char *account, const char *parent);
int mgr_parse_admin(struct mgr *m, const char *v, enum admin_level *out);
const char *mgr_admin_name(enum admin_level l);
/* the handlers: 0, or -1 with m->rc and m->err */
int mgr_list_cluster(struct mgr *m);
int mgr_list_account(struct mgr *m);
int mgr_list_user(struct mgr *m);
int mgr_list_qos(struct mgr *m);
int mgr_list_coord(struct mgr *m);
int mgr_list_assoc(struct mgr *m);
int mgr_list_tres(struct mgr *m);
int mgr_dump_cluster(struct mgr *m);
int mgr_add_cluster(struct mgr *m);
int mgr_modify_cluster(struct mgr *m);
int mgr_delete_cluster(struct mgr *m);
int mgr_add_account(struct mgr *m);
int mgr_modify_account(struct mgr *m);
int mgr_delete_account(struct mgr *m);
int mgr_add_user(struct mgr *m);
int mgr_modify_user(struct mgr *m);
int mgr_delete_user(struct mgr *m);
int mgr_add_coord(struct mgr *m);
int mgr_delete_coord(struct mgr *m);
int mgr_add_qos(struct mgr *m);
int mgr_modify_qos(struct mgr *m);
int mgr_delete_qos(struct mgr *m);
int mgr_load_file(struct mgr *m);
/* wckey.c: list wckeys; the wckeys of add user WCKeys= (checked, then
 * made for user on clusters, refs into added); modify user set
 * DefaultWCKey= (each user must hold it); delete user WCKeys= (where). */
int mgr_list_wckey(struct mgr *m);
int mgr_wckeys_check(struct mgr *m, const struct strv *wckeys);
void mgr_wckeys_add(struct mgr *m, const char *user, const struct strv *clusters,
		    const struct strv *wckeys, json_t *added);
int mgr_default_wckey_check(struct mgr *m, const struct strv *users, const char *wckey,
			    const struct strv *clusters);
int mgr_delete_user_wckeys(struct mgr *m, const struct strv *users);
/* The names of user's wckeys on cluster, sorted (dump's WCKeys=). */
json_t *wckey_names_of(const char *user, const char *cluster);

#endif
