/* What the node is: hwloc's topology and uname, corrected by the NodeName
 * line.  Declared values win, as in Slurm with FastSchedule: that is how test
 * nodes declare 8 CPUs on a 2-core host.  And its generic resources:
 * gres.conf's lines for it, or what NVML finds (nvml.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <hwloc.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

static int hw_count(hwloc_topology_t topo, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);
	return n > 0 ? n : 0;
}

static int hw_hwloc(struct hw *hw, struct herd_error *err)
{
	hwloc_topology_t topo;
	int pus, cores, packages;

	if (hwloc_topology_init(&topo) < 0)
		return errprintf(err, "hwloc: cannot initialise a topology");
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return errprintf(err, "hwloc: cannot load the node's topology");
	}
	pus = hw_count(topo, HWLOC_OBJ_PU);
	cores = hw_count(topo, HWLOC_OBJ_CORE);
	packages = hw_count(topo, HWLOC_OBJ_PACKAGE);
	if (pus < 1)
		pus = 1;
	if (cores < 1)
		cores = pus;
	if (packages < 1)
		packages = 1;
	hw->cpus = pus;
	hw->boards = 1;
	hw->sockets = packages;
	hw->cores = cores / packages > 0 ? cores / packages : 1;
	hw->threads = pus / cores > 0 ? pus / cores : 1;
	/* Memory as Slurm's slurmd counts it (physical pages, i.e. MemTotal):
	 * hwloc sums NUMA nodes, which on some VMs misses hot-plugged memory. */
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page > 0)
		hw->memory_mb = ((uint64_t)pages * page) >> 20;
	else
		hw->memory_mb = hwloc_get_root_obj(topo)->total_memory >> 20;
	hwloc_topology_destroy(topo);
	return 0;
}

/* Slurm's inference for a partly declared node: ThreadsPerCore and
 * CoresPerSocket default to 1, Sockets to what is left of CPUs, CPUs to the
 * product. */
static void hw_apply_declared(struct hw *hw, const struct conf_node *cn)
{
	bool topo = cn->sockets || cn->cores_per_socket || cn->threads_per_core || cn->boards;

	if (cn->cpus || topo) {
		int threads = cn->threads_per_core ? cn->threads_per_core : 1;
		int cores = cn->cores_per_socket ? cn->cores_per_socket : 1;
		int sockets = cn->sockets;
		int boards = cn->boards ? cn->boards : 1;

		if (!sockets)
			sockets = cn->cpus ? cn->cpus / (cores * threads * boards) : 1;
		if (sockets < 1)
			sockets = 1;
		hw->boards = boards;
		hw->sockets = sockets;
		hw->cores = cores;
		hw->threads = threads;
		hw->cpus = cn->cpus ? cn->cpus : boards * sockets * cores * threads;
	}
	if (cn->real_memory)
		hw->memory_mb = cn->real_memory;
}

/* The node's generic resources: gres.conf beside herd.conf (its lines for
 * this node), the GPUs NVML finds with AutoDetect=nvml (they replace the
 * file's gpu lines, whose other names stay), and, as Slurm's slurmd, a
 * declared Gres= name no line describes counted as declared (not gpu). */
static int hw_gres(struct hw *hw, const struct conf *conf, const struct conf_node *cn,
		   const char *node, struct herd_error *err)
{
	const char *slash = strrchr(conf->path, '/');
	char *path = slash ? xasprintf("%.*s/gres.conf", (int)(slash - conf->path), conf->path)
			   : xstrdup("gres.conf");
	struct gres_conf gc;
	struct gres_decl *decl = NULL;
	size_t ndecl = 0;

	if (gres_conf_load(path, node, &gc, err) < 0) {
		free(path);
		return -1;
	}
	free(path);
	if (gc.autodetect == GRES_AUTODETECT_NVML) {
		struct gres_conf det = { 0 };
		struct herd_error nerr = { "" };
		const char *dev_dir = getenv("HERD_NVML_DEV_DIR");
		if (nvml_detect(hw->threads, dev_dir && *dev_dir ? dev_dir : "/dev", &det, &nerr) < 0) {
			log_error("%s; using gres.conf's lines", nerr.text);
		} else {
			for (size_t i = 0; i < gc.ndevs; i++)
				if (strcmp(gc.devs[i].name, "gpu"))
					gres_conf_add(&det, &gc.devs[i]);
			det.autodetect = gc.autodetect;
			gres_conf_free(&gc);
			gc = det;
		}
	}
	if (cn->gres && gres_decl_parse(cn->gres, &decl, &ndecl, err) == 0) {
		for (size_t i = 0; i < ndecl; i++) {
			/* a GPU is one found: a line or NVML (Slurm: "count reported lower") */
			bool described = !strcmp(decl[i].name, "gpu");
			for (size_t j = 0; j < gc.ndevs && !described; j++)
				described = !strcmp(gc.devs[j].name, decl[i].name);
			if (described)
				continue;
			struct gres_dev d = { .count = decl[i].count, .flags = GRES_F_COUNT_ONLY };
			snprintf(d.name, sizeof(d.name), "%s", decl[i].name);
			snprintf(d.type, sizeof(d.type), "%s", decl[i].type);
			gres_conf_add(&gc, &d);
		}
		free(decl);
	}
	gres_devs_number(gc.devs, gc.ndevs);
	hw->gres = gc.devs;
	hw->ngres = gc.ndevs;
	return 0;
}

void hw_release(struct hw *hw)
{
	free(hw->gres);
	hw->gres = NULL;
	hw->ngres = 0;
}

int hw_detect(struct hw *hw, const struct conf *conf, const char *node, struct herd_error *err)
{
	const struct conf_node *cn = conf_node_find(conf, node);
	struct utsname u;
	struct sysinfo si;

	memset(hw, 0, sizeof(*hw));
	if (!cn)
		return errprintf(err, "node %s is not in %s", node, conf->path);
	if (hw_hwloc(hw, err) < 0)
		return -1;
	hw_apply_declared(hw, cn);
	if (hw_gres(hw, conf, cn, node, err) < 0)
		return -1;
	if (uname(&u) == 0) {
		snprintf(hw->arch, sizeof(hw->arch), "%s", u.machine);
		/* Slurm's "OS=" is sysname, release and version */
		snprintf(hw->os, sizeof(hw->os), "%s %s %s", u.sysname, u.release, u.version);
	}
	if (sysinfo(&si) == 0)
		hw->boot_time = time(NULL) - si.uptime;
	return 0;
}
