/* Slurm hostlist expressions: "n[01-16,20]", "rack[1-2]-n[1-4]", "a,b[1-3]".
 * Expand to an ordered list of names and compress back to the shortest
 * Slurm-style expression.  Pure: no I/O. */
#ifndef HERD_HOSTLIST_H
#define HERD_HOSTLIST_H
#include <stdbool.h>
#include <stddef.h>

struct hostlist;

/* Parse expr (NULL or "" gives an empty list).  NULL with errno=EINVAL on a
 * malformed expression (unbalanced brackets, bad range, range over 1,000,000). */
struct hostlist *hostlist_create(const char *expr);
/* The same, refusing (NULL, errno E2BIG) before anything is expanded an
 * expression of more than max_names names, or of more than 16 MiB of names
 * (each name's length + 1).  The controller passes its node count: a list of
 * more names than there are nodes cannot name nodes only once each.
 * hostlist_create and hostlist_push apply the 16 MiB and 1,000,000. */
struct hostlist *hostlist_create_max(const char *expr, size_t max_names);
void hostlist_destroy(struct hostlist *hl);
size_t hostlist_count(const struct hostlist *hl);
const char *hostlist_nth(const struct hostlist *hl, size_t i);   /* NULL past the end */
/* Append the names of expr (an expression, not just one name); -1 on parse
 * error (EINVAL) or an expansion over the caps (E2BIG). */
int hostlist_push(struct hostlist *hl, const char *expr);
int hostlist_find(const struct hostlist *hl, const char *name);  /* index or -1 */
/* Does the expression (a job's "n[1-3]") name a host of set?  false for ""
 * or a malformed one. */
bool hostlist_overlaps(const char *expr, const struct hostlist *set);
void hostlist_uniq(struct hostlist *hl);                          /* sort + drop duplicates */
/* Compressed expression ("n[01-03,07]"); keeps zero padding; order of first
 * appearance of each prefix.  Caller frees. */
char *hostlist_ranged_string(const struct hostlist *hl);
/* Convenience: compress a list of names (names may be expressions). */
char *hostlist_compress(const char *const *names, size_t count);

#endif
