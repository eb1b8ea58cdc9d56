/* Internal to conf.c and conf_lines.c: the loader's working state while
 * herd.conf is read, and the NodeName=, DownNodes= and PartitionName=
 * lines conf.c hands over.  Other modules read the configuration through
 * common/conf.h. */
#ifndef HERD_CONF_LINES_H
#define HERD_CONF_LINES_H
#include <stddef.h>
#include "common/conf.h"
#include "common/error.h"

struct conf_loader {
	struct conf *conf;
	struct herd_error *err;
	const char *file;             /* file being read, for messages */
	int line;                     /* first physical line of the logical line */
	struct conf_node node_default;
	struct conf_part part_default;
	char **part_where;            /* "file:line" of each partition, for late checks */
	size_t nodes_cap;             /* allocated length of conf->nodes */
};

/* One Key=Value of a logical line (pointing into the line). */
struct conf_pair {
	char *key, *value;
};

/* conf.c: "FILE:LINE: what" into the loader's error; returns -1. */
int conf_fail(struct conf_loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "invalid value 'V' for key 'K'" at FILE:LINE; returns -1. */
int conf_invalid(struct conf_loader *ld, const char *key, const char *value);

/* conf_lines.c: a logical line whose first key is NodeName, DownNodes or
 * PartitionName (pairs[0]); 0, or -1 with the loader's error set. */
int conf_lines_node(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs);
int conf_lines_down(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs);
int conf_lines_part(struct conf_loader *ld, struct conf_pair *pairs, size_t npairs);
/* Index in conf->nodes of the node called name so far, or -1. */
long conf_lines_node_lookup(const struct conf *conf, const char *name);
void conf_lines_node_free(struct conf_node *n);   /* its strings, not n */
void conf_lines_part_free(struct conf_part *p);
#endif
