/* A fixed-size bit set, and Slurm's range notation for it ("0-15:2,20,31"):
 * job array task IDs (pending tasks of an array, scancel A_[1-3]).  Pure. */
#ifndef HERD_BITMAP_H
#define HERD_BITMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BITMAP_NONE UINT32_MAX      /* "no such bit" */

struct bitmap {
	uint32_t nbits;
	uint64_t *words;
};

struct bitmap *bitmap_create(uint32_t nbits);
void bitmap_destroy(struct bitmap *b);
struct bitmap *bitmap_copy(const struct bitmap *b);
void bitmap_set(struct bitmap *b, uint32_t bit);
void bitmap_clear(struct bitmap *b, uint32_t bit);
bool bitmap_test(const struct bitmap *b, uint32_t bit);     /* false past the end */
/* The first set bit at or after from, else BITMAP_NONE. */
uint32_t bitmap_next(const struct bitmap *b, uint32_t from);
uint32_t bitmap_last(const struct bitmap *b);                /* BITMAP_NONE when empty */
uint32_t bitmap_count(const struct bitmap *b);
uint32_t bitmap_count_common(const struct bitmap *a, const struct bitmap *b);   /* bits set in both */

/* "a", "a-b", "a-b:s", comma separated, every value < max (a bitmap just
 * large enough for the largest).  NULL with errno EINVAL on bad syntax,
 * ERANGE on a value >= max, ENOENT when the spec names no bit. */
struct bitmap *bitmap_parse(const char *spec, uint32_t max);
/* The same for a spec a user sent (--array, scancel A_[...]): also refused,
 * with errno E2BIG and before any bit is set, when it is longer than
 * BITMAP_USER_MAX_LEN characters or asks more than BITMAP_USER_MAX_WORK
 * steps (a run costs one per 64 bits, a stride one per bit), so that one
 * request costs the event loop a few milliseconds at most, however many
 * times its pieces repeat "0-4000000". */
#define BITMAP_USER_MAX_LEN 65536
#define BITMAP_USER_MAX_WORK (1u << 22)
struct bitmap *bitmap_parse_user(const char *spec, uint32_t max);
/* The set bits in that notation: runs of consecutive bits as "a-b", three or
 * more with one stride as "a-b:s"; "" when empty.  Caller frees. */
char *bitmap_fmt(const struct bitmap *b);
/* The same without strides, as Slurm prints a set of array tasks
 * ("1,3,5,7", "0-3,8"); caller frees. */
char *bitmap_fmt_ranges(const struct bitmap *b);

#endif
