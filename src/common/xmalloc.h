/* Allocation that never returns NULL: out of memory aborts (as Slurm and Redis do).
 * Not for sizes that come from the wire unchecked: bound those first. */
#ifndef HERD_XMALLOC_H
#define HERD_XMALLOC_H
#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);          /* zeroed */
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);        /* xstrdup(NULL) == NULL */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
