/* Licenses as Slurm writes them (slurm.conf(5) Licenses=, sbatch -L):
 * "name[:count]" items separated by ',' or ';' (all of them), or for a job
 * by '|' (any one of them, in the order given; not mixed with ',').  The
 * count defaults to 1; "name:" is 0, as Slurm reads it.  Pure parsing: which
 * names exist and how many there are is the controller's (core/licenses.c). */
#ifndef HERD_LICENSE_H
#define HERD_LICENSE_H
#include <stdbool.h>
#include <stdint.h>

#define LIC_COUNT_MAX 0xfffffffeu   /* Slurm's counts are 32 bits, NO_VAL excluded */
#define LIC_TEXT_MAX 8192           /* a longer spec is refused, not parsed */

struct lic_item {
	char *name;
	uint32_t count;
};

struct lic_list {
	struct lic_item *item;
	int n;
	bool any;                   /* '|': one of the items, not all */
};

/* text into out (emptied first).  job: a job's -L, where '|' means OR;
 * else herd.conf's Licenses=, where a name may not hold '|'.  A name given
 * twice (AND) is one item with the counts summed, as Slurm sums them.
 * 0, or -1 when malformed (out empty). */
int lic_parse(const char *text, bool job, struct lic_list *out);
void lic_list_clear(struct lic_list *l);
void lic_list_copy(struct lic_list *dst, const struct lic_list *src);

#endif
