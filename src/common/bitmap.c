/* Bit sets and Slurm's range notation (see bitmap.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

static size_t nwords(uint32_t nbits)
{
	return ((size_t)nbits + 63) / 64;
}

struct bitmap *bitmap_create(uint32_t nbits)
{
	struct bitmap *b = xmalloc(sizeof(*b));
	b->nbits = nbits;
	b->words = xmalloc((nwords(nbits) ? nwords(nbits) : 1) * sizeof(uint64_t));
	return b;
}

void bitmap_destroy(struct bitmap *b)
{
	if (!b)
		return;
	free(b->words);
	free(b);
}

struct bitmap *bitmap_copy(const struct bitmap *b)
{
	struct bitmap *c = bitmap_create(b->nbits);
	memcpy(c->words, b->words, nwords(b->nbits) * sizeof(uint64_t));
	return c;
}

void bitmap_set(struct bitmap *b, uint32_t bit)
{
	if (bit < b->nbits)
		b->words[bit / 64] |= 1ULL << (bit % 64);
}

void bitmap_clear(struct bitmap *b, uint32_t bit)
{
	if (bit < b->nbits)
		b->words[bit / 64] &= ~(1ULL << (bit % 64));
}

bool bitmap_test(const struct bitmap *b, uint32_t bit)
{
	return bit < b->nbits && (b->words[bit / 64] >> (bit % 64)) & 1;
}

uint32_t bitmap_next(const struct bitmap *b, uint32_t from)
{
	if (from >= b->nbits)
		return BITMAP_NONE;
	size_t w = from / 64, n = nwords(b->nbits);
	uint64_t word = b->words[w] & (~0ULL << (from % 64));
	for (;;) {
		if (word) {
			uint32_t bit = (uint32_t)(w * 64 + __builtin_ctzll(word));
			return bit < b->nbits ? bit : BITMAP_NONE;
		}
		if (++w >= n)
			return BITMAP_NONE;
		word = b->words[w];
	}
}

uint32_t bitmap_last(const struct bitmap *b)
{
	for (size_t w = nwords(b->nbits); w-- > 0;)
		if (b->words[w])
			return (uint32_t)(w * 64 + 63 - __builtin_clzll(b->words[w]));
	return BITMAP_NONE;
}

uint32_t bitmap_count(const struct bitmap *b)
{
	uint32_t n = 0;
	for (size_t w = 0; w < nwords(b->nbits); w++)
		n += (uint32_t)__builtin_popcountll(b->words[w]);
	return n;
}

uint32_t bitmap_count_common(const struct bitmap *a, const struct bitmap *b)
{
	size_t n = nwords(a->nbits < b->nbits ? a->nbits : b->nbits);
	uint32_t count = 0;
	for (size_t w = 0; w < n; w++)
		count += (uint32_t)__builtin_popcountll(a->words[w] & b->words[w]);
	return count;
}

/* One "a[-b[:s]]" piece; -1 with errno on error. */
static int parse_piece(const char *p, const char *end, uint32_t max, uint32_t *first,
		       uint32_t *last, uint32_t *step)
{
	uint64_t v[3] = { 0, 0, 1 };
	int part = 0;
	bool digits = false;

	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			v[part] = v[part] * 10 + (uint64_t)(*p - '0');
			if (v[part] > UINT32_MAX)
				goto range;
			digits = true;
		} else if ((*p == '-' && part == 0) || (*p == ':' && part == 1)) {
			if (!digits)
				goto bad;
			part++;
			v[part] = 0;
			digits = false;
		} else {
			goto bad;
		}
	}
	if (!digits)
		goto bad;
	if (part == 0)
		v[1] = v[0];
	if (v[1] < v[0] || v[2] == 0)
		goto bad;
	if (v[1] >= max)
		goto range;
	*first = (uint32_t)v[0];
	*last = (uint32_t)v[1];
	*step = (uint32_t)v[2];
	return 0;
bad:
	errno = EINVAL;
	return -1;
range:
	errno = ERANGE;
	return -1;
}

/* Set bits first..last (first <= last < nbits) a word at a time. */
static void set_run(struct bitmap *b, uint32_t first, uint32_t last)
{
	size_t w0 = first / 64, w1 = last / 64;
	uint64_t lo = ~0ULL << (first % 64), hi = ~0ULL >> (63 - last % 64);

	if (w0 == w1) {
		b->words[w0] |= lo & hi;
		return;
	}
	b->words[w0] |= lo;
	for (size_t w = w0 + 1; w < w1; w++)
		b->words[w] = ~0ULL;
	b->words[w1] |= hi;
}

/* The work one piece costs: a word per 64 bits of a run, a step per bit
 * of a stride. */
static uint64_t piece_work(uint32_t first, uint32_t last, uint32_t step)
{
	return step == 1 ? (uint64_t)(last - first) / 64 + 1 : (uint64_t)(last - first) / step + 1;
}

static struct bitmap *parse(const char *spec, uint32_t max, uint64_t max_work)
{
	uint32_t top = 0, first, last, step;
	uint64_t work = 0;
	const char *p, *end;
	bool any = false;

	/* Pass 1: syntax, the largest value (so the bitmap is no bigger than
	 * needed) and the work, all before anything is allocated. */
	for (p = spec;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (parse_piece(p, end, max, &first, &last, &step) < 0)
			return NULL;
		uint32_t top_here = first + (last - first) / step * step;
		if (top_here >= top)
			top = top_here;
		work += piece_work(first, last, step);
		if (work > max_work) {
			errno = E2BIG;
			return NULL;
		}
		any = true;
		if (!*end)
			break;
	}
	if (!any) {
		errno = ENOENT;
		return NULL;
	}
	struct bitmap *b = bitmap_create(top + 1);
	for (p = spec;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		parse_piece(p, end, max, &first, &last, &step);
		if (step == 1)
			set_run(b, first, last);
		else
			for (uint64_t v = first; v <= last; v += step)
				bitmap_set(b, (uint32_t)v);
		if (!*end)
			break;
	}
	return b;
}

struct bitmap *bitmap_parse(const char *spec, uint32_t max)
{
	return parse(spec, max, UINT64_MAX);
}

struct bitmap *bitmap_parse_user(const char *spec, uint32_t max)
{
	if (strlen(spec) > BITMAP_USER_MAX_LEN) {
		errno = E2BIG;
		return NULL;
	}
	return parse(spec, max, BITMAP_USER_MAX_WORK);
}

static char *fmt(const struct bitmap *b, bool strides)
{
	struct strbuf out = { 0 };
	char piece[48];
	uint32_t a = bitmap_next(b, 0);

	strbuf_add(&out, "", 0);
	while (a != BITMAP_NONE) {
		uint32_t next = bitmap_next(b, a + 1), last = a;
		if (next == a + 1) {            /* a run: a-b */
			while (bitmap_test(b, last + 1))
				last++;
			snprintf(piece, sizeof(piece), "%s%u-%u", out.len ? "," : "", a, last);
			a = bitmap_next(b, last + 1);
		} else if (strides && next != BITMAP_NONE) {   /* a stride, when it repeats: a-b:s */
			uint32_t stride = next - a, n = 1;
			last = next;
			while (bitmap_next(b, last + 1) == last + stride && last + stride < b->nbits)
				last += stride, n++;
			if (n >= 2) {
				snprintf(piece, sizeof(piece), "%s%u-%u:%u", out.len ? "," : "", a, last,
					 stride);
				a = bitmap_next(b, last + 1);
			} else {
				snprintf(piece, sizeof(piece), "%s%u", out.len ? "," : "", a);
				a = next;
			}
		} else {
			snprintf(piece, sizeof(piece), "%s%u", out.len ? "," : "", a);
			a = next;
		}
		strbuf_adds(&out, piece);
	}
	return out.s;
}

char *bitmap_fmt(const struct bitmap *b)
{
	return fmt(b, true);
}

char *bitmap_fmt_ranges(const struct bitmap *b)
{
	return fmt(b, false);
}
