/* Licenses= and -L text into name/count items (license.h). */
#include <stdlib.h>
#include <string.h>
#include "common/license.h"
#include "common/xmalloc.h"

void lic_list_clear(struct lic_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->item[i].name);
	free(l->item);
	*l = (struct lic_list){ 0 };
}

void lic_list_copy(struct lic_list *dst, const struct lic_list *src)
{
	*dst = (struct lic_list){ .n = src->n, .any = src->any };
	dst->item = xmalloc((src->n + 1) * sizeof(*dst->item));
	for (int i = 0; i < src->n; i++)
		dst->item[i] = (struct lic_item){ xstrdup(src->item[i].name), src->item[i].count };
}

/* A name: not empty, no blank or control character, no '=' (a stray
 * key=value), no '|' outside a job's OR list. */
static bool name_ok(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f || c == '=' || c == '|')
			return false;
	}
	return true;
}

/* "name[:count]" of len bytes at p. */
static int parse_item(const char *p, size_t len, struct lic_item *it)
{
	const char *colon = memchr(p, ':', len);
	size_t nlen = colon ? (size_t)(colon - p) : len;
	uint64_t count = 1;

	if (!name_ok(p, nlen))
		return -1;
	if (colon) {
		count = 0;   /* "a:" is 0, as Slurm reads it */
		for (const char *d = colon + 1; d < p + len; d++) {
			if (*d < '0' || *d > '9')
				return -1;
			count = count * 10 + (uint64_t)(*d - '0');
			if (count > LIC_COUNT_MAX)
				return -1;
		}
	}
	it->name = xstrndup(p, nlen);
	it->count = (uint32_t)count;
	return 0;
}

int lic_parse(const char *text, bool job, struct lic_list *out)
{
	const char *seps = ",;";
	*out = (struct lic_list){ 0 };
	if (!text || strlen(text) > LIC_TEXT_MAX)
		return -1;
	if (job && strchr(text, '|')) {
		if (strpbrk(text, ",;"))
			return -1;   /* OR and AND are not mixed */
		seps = "|";
		out->any = true;
	}
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, seps);
		struct lic_item it;
		if (len) {
			if (parse_item(p, len, &it) < 0)
				goto error;
			int k = 0;
			while (!out->any && k < out->n && strcmp(out->item[k].name, it.name))
				k++;
			if (!out->any && k < out->n) {   /* again: summed */
				uint64_t sum = (uint64_t)out->item[k].count + it.count;
				free(it.name);
				if (sum > LIC_COUNT_MAX)
					goto error;
				out->item[k].count = (uint32_t)sum;
			} else {
				out->item = xrealloc(out->item, (out->n + 1) * sizeof(*out->item));
				out->item[out->n++] = it;
			}
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
error:
	lic_list_clear(out);
	return -1;
}
