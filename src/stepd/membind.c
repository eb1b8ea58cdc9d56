/* srun --mem-bind on a node (membind.h): map_mem, mask_mem, rank, local,
 * prefer; through the set_mempolicy system call (no libnuma needed).  A
 * node numbers its NUMA nodes as /sys/devices/system/node/online says. */
#include <errno.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/taskopt.h"
#include "stepd/membind.h"

/* The node's NUMA nodes as a mask ("0", "0-3"); 1 (node 0) when unknown. */
static unsigned long membind_online(void)
{
	char buf[256];
	unsigned long mask = 0;
	FILE *f = fopen("/sys/devices/system/node/online", "re");

	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 1;
	}
	fclose(f);
	for (char *p = buf; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), z = a;
		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			z = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long n = a; n <= z && n < 64; n++)
			if (n >= 0)
				mask |= 1ul << n;
		if (*p == ',')
			p++;
	}
	return mask ? mask : 1;
}

int membind_prepare(const char *spec, int local, struct membind_task *m, struct herd_error *err)
{
	struct mem_bind mb;

	memset(m, 0, sizeof(*m));
	m->what = "NONE";
	if (!spec || !*spec)
		return 0;
	if (mem_bind_parse(spec, &mb, err) < 0)
		return -1;
	m->verbose = mb.verbose;
	m->mode = mb.prefer ? MPOL_PREFERRED : MPOL_BIND;
	switch (mb.type) {
	case MEM_BIND_DEFAULT:
	case MEM_BIND_NONE:
		return 0;
	case MEM_BIND_LOCAL:
		m->what = "LOCAL";
		m->mode = MPOL_LOCAL;
		break;
	case MEM_BIND_RANK: {
		/* the local task's rank among the node's NUMA nodes */
		unsigned long online = membind_online();
		int count = __builtin_popcountl(online), k = local % count;
		for (int n = 0; n < 64; n++)
			if (online & (1ul << n) && k-- == 0) {
				m->mask = 1ul << n;
				break;
			}
		m->what = "RANK";
		break;
	}
	case MEM_BIND_MAP: {
		uint64_t node = mb.entries[local % mb.nentries];
		m->mask = node < 64 ? 1ul << node : 0;
		m->what = "MAP";
		break;
	}
	case MEM_BIND_MASK:
		m->mask = mb.entries[local % mb.nentries];
		m->what = "MASK";
		break;
	}
	m->set = true;
	return 0;
}

int membind_apply(const struct membind_task *m)
{
	unsigned long mask = m->mask;

	if (!m->set)
		return 0;
	if (m->mode == MPOL_LOCAL)
		return syscall(SYS_set_mempolicy, MPOL_LOCAL, NULL, 0) == 0 ? 0 : -1;
	if (!mask) {
		errno = EINVAL;   /* a map_mem node past 63 */
		return -1;
	}
	return syscall(SYS_set_mempolicy, m->mode, &mask, sizeof(mask) * 8 + 1) == 0 ? 0 : -1;
}

void membind_verbose_line(const struct membind_task *m, const char *node, unsigned task,
			  unsigned local, int pid, char *buf, size_t size)
{
	snprintf(buf, size, "mem-bind=%s%s - %.64s, task %2u %2u [%d]: mask 0x%lx set\n", m->what,
		 m->set && m->mode == MPOL_PREFERRED ? ",PREFER" : "", node, task, local, pid, m->mask);
}
