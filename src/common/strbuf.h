/* A growable string: append bytes, read ->s (always terminated once
 * something, even "", was added), take ownership of ->s when done. */
#ifndef HERD_STRBUF_H
#define HERD_STRBUF_H
#include <stddef.h>

struct strbuf {
	char *s;
	size_t len, cap;
};

void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_adds(struct strbuf *sb, const char *s);   /* NULL adds nothing */

#endif
