/* Requests of generic resources in TRES form (tres_req.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/strbuf.h"
#include "common/tres_req.h"
#include "common/xmalloc.h"

static bool word_ok(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

/* "2", "4K": the count; -1 not a count (a type: MIG's "1g.10gb" starts
 * with a digit too), -2 a count past any cluster. */
static long long count_of(const char *s, size_t n)
{
	char buf[32], *end;
	if (!n || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	unsigned long long v = strtoull(buf, &end, 10);
	unsigned long long mult = 1;
	if (*end && !end[1])
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1024ULL; end++; break;
		case 'M': mult = 1024ULL * 1024; end++; break;
		case 'G': mult = 1024ULL * 1024 * 1024; end++; break;
		}
	if (*end)
		return -1;
	if (v > TRES_REQ_COUNT_MAX || v * mult > TRES_REQ_COUNT_MAX)
		return -2;
	return (long long)(v * mult);
}

int tres_req_put(struct tres_item *items, int n, int max, const struct tres_item *item)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(items[i].name, item->name) && !strcmp(items[i].type, item->type)) {
			items[i] = *item;
			return n;
		}
	if (n >= max)
		return -1;
	items[n] = *item;
	return n + 1;
}

int tres_req_parse(const char *s, struct tres_item *out, int max, struct herd_error *err)
{
	int n = 0;
	const char *p = s;
	if (!s || !*s)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *item = p, *end = p + len;
		if (!strncmp(item, "gres/", 5) || !strncmp(item, "gres:", 5))
			item += 5;
		/* name[:type][:count]: at most three words split on ':' */
		const char *w[3];
		size_t wl[3];
		int nw = 0;
		for (const char *q = item;; ) {
			const char *c = memchr(q, ':', (size_t)(end - q));
			if (nw == 3)
				goto bad;
			w[nw] = q;
			wl[nw++] = c ? (size_t)(c - q) : (size_t)(end - q);
			if (!c)
				break;
			q = c + 1;
		}
		struct tres_item t = { .count = 1 };
		long long cnt = -1;
		if (!word_ok(w[0], wl[0]) || wl[0] >= sizeof(t.name))
			goto bad;
		memcpy(t.name, w[0], wl[0]);
		if (nw == 2 && (cnt = count_of(w[1], wl[1])) == -2)
			goto bad;
		if (nw == 3 || (nw == 2 && cnt < 0)) {
			if (!word_ok(w[1], wl[1]) || wl[1] >= sizeof(t.type))
				goto bad;
			memcpy(t.type, w[1], wl[1]);
			if (nw == 3 && (cnt = count_of(w[2], wl[2])) < 0)
				goto bad;
		}
		if (cnt >= 0)
			t.count = (uint64_t)cnt;
		if ((n = tres_req_put(out, n, max, &t)) < 0)
			goto bad;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	}
	return n;
bad:
	errprintf(err, "Invalid generic resource (gres) specification");
	return -1;
}

char *tres_req_format(const struct tres_item *items, int n)
{
	struct strbuf b = { 0 };
	strbuf_adds(&b, "");
	for (int i = 0; i < n; i++) {
		char num[32];
		snprintf(num, sizeof(num), ":%llu", (unsigned long long)items[i].count);
		strbuf_adds(&b, i ? ",gres/" : "gres/");
		strbuf_adds(&b, items[i].name);
		if (items[i].type[0]) {
			strbuf_adds(&b, ":");
			strbuf_adds(&b, items[i].type);
		}
		strbuf_adds(&b, num);
	}
	return b.s;
}
