/* Slurm hostlist expressions: expansion of "rack[1-2]-n[01-04],login" into
 * names and compression of names back into an expression.  Pure: no I/O, no
 * knowledge of which nodes exist; node lookups live with the controller. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/hostlist.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

/* Slurm refuses expressions larger than this; so do we, so a typo such as
 * "n[1-99999999]" fails instead of eating the controller's memory. */
#define HOSTLIST_MAX_NAMES 1000000
/* The bytes of names one expression may expand to (each name's length + 1),
 * checked before anything is expanded: "<10,000 chars>[0-99999]" is 100,000
 * names but a gigabyte.  Callers that know a tighter bound (the controller:
 * its node count) pass it to hostlist_create_max. */
#define HOSTLIST_MAX_BYTES (16u << 20)
/* Range numbers are unsigned long in Slurm; 18 digits always fit in uint64_t. */
#define HOSTLIST_MAX_DIGITS 18
/* Bracket groups in one name ("rack[1-2]-n[1-4]" has 2).  Expansion recurses
 * once per group, so a hostile "n[1][1][1]..." must not reach the stack's end. */
#define HOSTLIST_MAX_GROUPS 16

struct hostlist {
	char **names;
	size_t count;
	size_t cap;
};

static void hostlist_append(struct hostlist *hl, char *name)   /* steals name */
{
	if (hl->count == hl->cap) {
		hl->cap = hl->cap ? hl->cap * 2 : 16;
		hl->names = xrealloc(hl->names, hl->cap * sizeof(*hl->names));
	}
	hl->names[hl->count++] = name;
}

/* One range inside brackets: lo..hi printed with width digits (the length
 * of lo as written, which is how Slurm keeps "n[008-010]" zero-padded). */
struct range {
	uint64_t lo, hi;
	int width;
};

/* A piece of one element: literal text, or a bracket group of ranges. */
struct piece {
	const char *text;        /* literal: pointer into the expression */
	size_t len;
	struct range *ranges;    /* bracket group when nranges > 0 */
	size_t nranges;
	uint64_t count;          /* names this piece stands for (1 for text) */
};

static int parse_number(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > HOSTLIST_MAX_DIGITS)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Parse "01-16,20" (the text between '[' and ']'). */
static int parse_ranges(const char *s, size_t len, struct piece *p)
{
	size_t i = 0, cap = 0;

	if (len == 0)
		return -1;
	p->count = 0;
	while (i <= len) {
		size_t start = i, dash = 0;
		while (i < len && s[i] != ',') {
			if (s[i] == '-' && !dash)
				dash = i;
			else if (s[i] == '-')
				return -1;
			i++;
		}
		struct range r;
		if (dash) {
			if (parse_number(s + start, dash - start, &r.lo) < 0 ||
			    parse_number(s + dash + 1, i - dash - 1, &r.hi) < 0)
				return -1;
			r.width = (int)(dash - start);
		} else {
			if (parse_number(s + start, i - start, &r.lo) < 0)
				return -1;
			r.hi = r.lo;
			r.width = (int)(i - start);
		}
		if (r.lo > r.hi || r.hi - r.lo >= HOSTLIST_MAX_NAMES)
			return -1;
		p->count += r.hi - r.lo + 1;
		if (p->count > HOSTLIST_MAX_NAMES)
			return -1;
		if (p->nranges == cap) {
			cap = cap ? cap * 2 : 4;
			p->ranges = xrealloc(p->ranges, cap * sizeof(*p->ranges));
		}
		p->ranges[p->nranges++] = r;
		i++;   /* skip ',' (or step past the end) */
	}
	return 0;
}

static void pieces_free(struct piece *pieces, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(pieces[i].ranges);
	free(pieces);
}

/* Produce the cartesian product of the pieces, leftmost group varying
 * slowest ("rack[1-2]-n[1-2]" -> rack1-n1 rack1-n2 rack2-n1 rack2-n2),
 * which is the order Slurm lists such names in. */
static void expand(const struct piece *pieces, size_t n, size_t at,
                   char *buf, size_t used, struct hostlist *out)
{
	if (at == n) {
		hostlist_append(out, xstrndup(buf, used));
		return;
	}
	const struct piece *p = &pieces[at];
	if (p->nranges == 0) {
		memcpy(buf + used, p->text, p->len);
		expand(pieces, n, at + 1, buf, used + p->len, out);
		return;
	}
	for (size_t r = 0; r < p->nranges; r++) {
		for (uint64_t v = p->ranges[r].lo;; v++) {
			int k = sprintf(buf + used, "%0*" PRIu64, p->ranges[r].width, v);
			expand(pieces, n, at + 1, buf, used + (size_t)k, out);
			if (v == p->ranges[r].hi)
				break;
		}
	}
}

/* What an expansion may cost, and what it has cost so far: names and
 * bytes (each name's length + 1). */
struct budget {
	uint64_t names, bytes;
	uint64_t max_names, max_bytes;
};

static size_t digits_of(uint64_t v)
{
	size_t n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

/* The longest number a group prints ("[8-10]": 2, "[008-010]": 3). */
static size_t group_width(const struct piece *p)
{
	size_t w = 0;
	for (size_t r = 0; r < p->nranges; r++) {
		size_t d = digits_of(p->ranges[r].hi);
		if ((size_t)p->ranges[r].width > d)
			d = (size_t)p->ranges[r].width;
		if (d > w)
			w = d;
	}
	return w;
}

/* Expand one element (no top-level commas) of length len into out, when
 * its names and bytes (counted before any is made) fit what is left of b;
 * else -1 with errno E2BIG, nothing expanded. */
static int push_element(struct hostlist *out, const char *s, size_t len, struct budget *b)
{
	struct piece *pieces = NULL;
	size_t npieces = 0, i = 0, maxlen = 0, ngroups = 0, namelen = 0;
	uint64_t count = 1;

	while (i < len) {
		struct piece p = { .text = s + i, .count = 1 };
		if (s[i] == '[') {
			const char *close = memchr(s + i + 1, ']', len - i - 1);
			const char *open = memchr(s + i + 1, '[', len - i - 1);
			if (!close || (open && open < close) || ++ngroups > HOSTLIST_MAX_GROUPS)
				goto error;
			if (parse_ranges(s + i + 1, (size_t)(close - s - i - 1), &p) < 0) {
				free(p.ranges);
				goto error;
			}
			maxlen += (size_t)(close - s - i);   /* no number is longer than the group */
			namelen += group_width(&p);
			i = (size_t)(close - s) + 1;
		} else {
			while (i < len && s[i] != '[') {
				if (s[i] == ']')
					goto error;
				i++;
			}
			p.len = (size_t)(s + i - p.text);
			maxlen += p.len;
			namelen += p.len;
		}
		pieces = xrealloc(pieces, (npieces + 1) * sizeof(*pieces));
		pieces[npieces++] = p;
		count *= p.count;
		if (count > HOSTLIST_MAX_NAMES)
			goto error;
	}
	if (b->names + count > HOSTLIST_MAX_NAMES)
		goto error;
	/* count <= 10^6 and namelen < 2^40: no overflow */
	if (b->names + count > b->max_names || b->bytes + count * (namelen + 1) > b->max_bytes) {
		pieces_free(pieces, npieces);
		errno = E2BIG;
		return -1;
	}
	b->names += count;
	b->bytes += count * (namelen + 1);
	char *buf = xmalloc(maxlen + 1);
	expand(pieces, npieces, 0, buf, 0, out);
	free(buf);
	pieces_free(pieces, npieces);
	return 0;
error:
	pieces_free(pieces, npieces);
	errno = EINVAL;
	return -1;
}

static int is_separator(char c)
{
	/* Slurm splits on commas and whitespace outside brackets. */
	return c == ',' || c == ' ' || c == '\t' || c == '\n';
}

static int push_max(struct hostlist *hl, const char *expr, size_t max_names)
{
	struct hostlist tmp = { 0 };
	struct budget b = { 0, 0, max_names, HOSTLIST_MAX_BYTES };
	const char *s = expr ? expr : "";
	int why = EINVAL;

	/* Expand into tmp first so a bad expression leaves hl untouched. */
	while (*s) {
		while (is_separator(*s))
			s++;
		const char *start = s;
		int depth = 0;
		while (*s && (depth > 0 || !is_separator(*s))) {
			if (*s == '[')
				depth++;
			else if (*s == ']')
				depth--;
			if (depth < 0 || depth > 1)
				goto error;
			s++;
		}
		if (depth != 0)
			goto error;
		if (s > start && push_element(&tmp, start, (size_t)(s - start), &b) < 0) {
			why = errno;
			goto error;
		}
	}
	for (size_t i = 0; i < tmp.count; i++)
		hostlist_append(hl, tmp.names[i]);
	free(tmp.names);
	return 0;
error:
	for (size_t i = 0; i < tmp.count; i++)
		free(tmp.names[i]);
	free(tmp.names);
	errno = why;
	return -1;
}

int hostlist_push(struct hostlist *hl, const char *expr)
{
	return push_max(hl, expr, HOSTLIST_MAX_NAMES);
}

struct hostlist *hostlist_create_max(const char *expr, size_t max_names)
{
	struct hostlist *hl = xmalloc(sizeof(*hl));

	if (push_max(hl, expr, max_names) < 0) {
		int why = errno;
		hostlist_destroy(hl);
		errno = why;
		return NULL;
	}
	return hl;
}

struct hostlist *hostlist_create(const char *expr)
{
	return hostlist_create_max(expr, HOSTLIST_MAX_NAMES);
}

void hostlist_destroy(struct hostlist *hl)
{
	int saved = errno;

	if (!hl)
		return;
	for (size_t i = 0; i < hl->count; i++)
		free(hl->names[i]);
	free(hl->names);
	free(hl);
	errno = saved;
}

size_t hostlist_count(const struct hostlist *hl)
{
	return hl ? hl->count : 0;
}

const char *hostlist_nth(const struct hostlist *hl, size_t i)
{
	if (!hl || i >= hl->count)
		return NULL;
	return hl->names[i];
}

int hostlist_find(const struct hostlist *hl, const char *name)
{
	if (!hl || !name)
		return -1;
	for (size_t i = 0; i < hl->count; i++)
		if (strcmp(hl->names[i], name) == 0)
			return i > INT32_MAX ? -1 : (int)i;
	return -1;
}

/* A name split as prefix + trailing number: "rack1-n007" is "rack1-n", 7,
 * written with 3 digits.  Names without a trailing number have ndigits 0. */
struct split {
	const char *name;
	size_t prefix_len;
	uint64_t num;
	size_t ndigits;
	size_t order;            /* position of the first name with this prefix */
};

static void split_name(const char *name, struct split *sp)
{
	size_t len = strlen(name), d = len;

	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	sp->name = name;
	/* Absurdly long digit runs stay part of the prefix (treated as bare). */
	if (len - d > HOSTLIST_MAX_DIGITS)
		d = len;
	sp->prefix_len = d;
	sp->ndigits = len - d;
	sp->num = 0;
	for (size_t i = d; i < len; i++)
		sp->num = sp->num * 10 + (uint64_t)(name[i] - '0');
	sp->order = 0;
}

static int prefix_cmp(const struct split *a, const struct split *b)
{
	size_t n = a->prefix_len < b->prefix_len ? a->prefix_len : b->prefix_len;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	return (a->prefix_len > b->prefix_len) - (a->prefix_len < b->prefix_len);
}

static size_t prefix_hash(const struct split *sp)
{
	size_t h = 5381;
	for (size_t i = 0; i < sp->prefix_len; i++)
		h = h * 33 + (unsigned char)sp->name[i];
	return h;
}

/* Slurm's order: by prefix, then numerically ("n9" before "n10"); bare
 * names before numbered ones; "n1" before "n01" (narrower first). */
static int split_cmp(const struct split *a, const struct split *b)
{
	int c = prefix_cmp(a, b);
	if (c)
		return c;
	if ((a->ndigits > 0) != (b->ndigits > 0))
		return a->ndigits > 0 ? 1 : -1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return (a->ndigits > b->ndigits) - (a->ndigits < b->ndigits);
}

static int split_qsort_cmp(const void *x, const void *y)
{
	return split_cmp(x, y);
}

void hostlist_uniq(struct hostlist *hl)
{
	if (!hl || hl->count < 2)
		return;
	struct split *sp = xmalloc(hl->count * sizeof(*sp));
	for (size_t i = 0; i < hl->count; i++)
		split_name(hl->names[i], &sp[i]);
	qsort(sp, hl->count, sizeof(*sp), split_qsort_cmp);
	/* The split entries point at the strings; rebuild names from them and
	 * free the duplicates. */
	char **names = xmalloc(hl->count * sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < hl->count; i++) {
		if (n > 0 && strcmp(names[n - 1], sp[i].name) == 0)
			free((char *)sp[i].name);
		else
			names[n++] = (char *)sp[i].name;
	}
	free(hl->names);
	free(sp);
	hl->names = names;
	hl->count = n;
	hl->cap = hl->count;
}

/* Order for compression: prefix groups in order of first appearance, then
 * bare before numbered, then by number. */
static int group_qsort_cmp(const void *x, const void *y)
{
	const struct split *a = x, *b = y;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return split_cmp(a, b);
}

/* Does number v, printed with at least width digits, give exactly the
 * digits of sp?  ("10" fits width 2, "010" does not, "9" fits width 1.) */
static int fits_width(const struct split *sp, int width)
{
	char digits[24];
	int k = snprintf(digits, sizeof(digits), "%0*" PRIu64, width, sp->num);
	return (size_t)k == sp->ndigits &&
	       memcmp(digits, sp->name + sp->prefix_len, sp->ndigits) == 0;
}

/* Append the ranges of group g[0..n) (same prefix, all numbered, sorted)
 * as "1-3,5,08-10".  A range keeps the width of its first number, as the
 * expansion will; duplicates start a new range so no name is lost. */
static size_t emit_ranges(struct strbuf *sb, const struct split *g, size_t n)
{
	size_t i = 0, nranges = 0;
	char num[48];

	while (i < n) {
		int width = (int)g[i].ndigits;
		size_t j = i;
		while (j + 1 < n && g[j + 1].num == g[j].num + 1 && fits_width(&g[j + 1], width))
			j++;
		if (nranges++)
			strbuf_add(sb, ",", 1);
		int k;
		if (j == i)
			k = snprintf(num, sizeof(num), "%0*" PRIu64, width, g[i].num);
		else
			k = snprintf(num, sizeof(num), "%0*" PRIu64 "-%0*" PRIu64,
			             width, g[i].num, width, g[j].num);
		strbuf_add(sb, num, (size_t)k);
		i = j + 1;
	}
	return nranges;
}

/* Compression sorts numbers within each prefix (Slurm sorts its hostlists
 * before printing them too), but keeps the prefixes in the order their first
 * name appeared, so "b1,a1,b2" prints as "b[1-2],a1".  Duplicates are kept
 * ("n[1-2,2]") so that expanding the result gives back every name. */
char *hostlist_ranged_string(const struct hostlist *hl)
{
	struct strbuf sb = { 0 };
	size_t n = hostlist_count(hl);

	strbuf_add(&sb, "", 0);
	if (n == 0)
		return sb.s;
	struct split *sp = xmalloc(n * sizeof(*sp));
	for (size_t i = 0; i < n; i++)
		split_name(hl->names[i], &sp[i]);
	/* Number each prefix by its first appearance, through a hash table
	 * so that many distinct names stay linear. */
	size_t cap = 16, nprefixes = 0;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slots = xmalloc(cap * sizeof(*slots));   /* index + 1 of a first name */
	for (size_t i = 0; i < n; i++) {
		size_t h = prefix_hash(&sp[i]) & (cap - 1);
		while (slots[h] && prefix_cmp(&sp[slots[h] - 1], &sp[i]) != 0)
			h = (h + 1) & (cap - 1);
		if (!slots[h]) {
			slots[h] = i + 1;
			sp[i].order = nprefixes++;
		} else {
			sp[i].order = sp[slots[h] - 1].order;
		}
	}
	free(slots);
	qsort(sp, n, sizeof(*sp), group_qsort_cmp);

	size_t i = 0, groups = 0;
	while (i < n) {
		if (groups++)
			strbuf_add(&sb, ",", 1);
		if (sp[i].ndigits == 0) {
			strbuf_add(&sb, sp[i].name, sp[i].prefix_len);
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && sp[j].order == sp[i].order && sp[j].ndigits > 0)
			j++;
		if (j - i == 1) {
			strbuf_add(&sb, sp[i].name, strlen(sp[i].name));
		} else {
			strbuf_add(&sb, sp[i].name, sp[i].prefix_len);
			strbuf_add(&sb, "[", 1);
			emit_ranges(&sb, &sp[i], j - i);
			strbuf_add(&sb, "]", 1);
		}
		i = j;
	}
	free(sp);
	return sb.s;
}

char *hostlist_compress(const char *const *names, size_t count)
{
	struct hostlist *hl = hostlist_create(NULL);
	char *out;

	for (size_t i = 0; i < count; i++) {
		/* A name that is not a valid expression is kept verbatim. */
		if (hostlist_push(hl, names[i]) < 0)
			hostlist_append(hl, xstrdup(names[i]));
	}
	out = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	return out;
}

bool hostlist_overlaps(const char *expr, const struct hostlist *set)
{
	struct hostlist *hl = hostlist_create(expr);
	bool hit = false;
	for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
		hit = hostlist_find(set, hostlist_nth(hl, i)) >= 0;
	hostlist_destroy(hl);
	return hit;
}
