/* Growable strings (hostlist compression, file-name patterns, large replies). */
#include <string.h>
#include "common/strbuf.h"
#include "common/xmalloc.h"

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->s = xrealloc(sb->s, sb->cap);
	}
	if (n)
		memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add(sb, s, strlen(s));
}
