/* AutoDetect=nvml: the node's NVIDIA GPUs through libnvidia-ml.so.1, opened
 * with dlopen at run time (no build dependency; HERD_NVML_LIBRARY names
 * another file, as the tests' fake).  Only the few calls we use are declared
 * here, with NVML's documented types: Debian main ships no NVIDIA header.
 * A GPU in MIG mode is reported as its MIG instances, each a GPU of its own
 * whose files are the parent's and its two /dev/nvidia-caps devices. */
#include <dlfcn.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

#define NVML_SUCCESS 0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_MAX_GPUS 256

typedef struct nvml_device *nvmlDevice_t;     /* NVML's opaque handle */
typedef struct {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
} nvml_pci_info;                               /* nvmlPciInfo_t (v3) */

struct nvml {
	void *lib;
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned *);
	int (*handle)(unsigned, nvmlDevice_t *);
	int (*name)(nvmlDevice_t, char *, unsigned);
	int (*minor)(nvmlDevice_t, unsigned *);
	int (*affinity)(nvmlDevice_t, unsigned, unsigned long *);
	/* NVLinks: optional */
	int (*pci)(nvmlDevice_t, nvml_pci_info *);
	int (*link_state)(nvmlDevice_t, unsigned, int *);
	int (*link_remote)(nvmlDevice_t, unsigned, nvml_pci_info *);
	/* MIG: optional */
	int (*mig_mode)(nvmlDevice_t, unsigned *, unsigned *);
	int (*mig_max)(nvmlDevice_t, unsigned *);
	int (*mig_handle)(nvmlDevice_t, unsigned, nvmlDevice_t *);
	int (*gi_id)(nvmlDevice_t, unsigned *);
	int (*ci_id)(nvmlDevice_t, unsigned *);
};

static void type_from_name(const char *name, char *type, size_t size);

/* The minor of /dev/nvidia-caps/nvidia-cap<N> for "gpu0/gi1/access" in
 * the driver's table (/proc/driver/nvidia-caps/mig-minors; HERD_NVML_MIG_MINORS
 * names another, for tests); -1 when absent. */
static int cap_minor(const char *key)
{
	const char *path = getenv("HERD_NVML_MIG_MINORS");
	char line[128], name[96];
	int minor, found = -1;
	FILE *f = fopen(path && *path ? path : "/proc/driver/nvidia-caps/mig-minors", "r");

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%95s %d", name, &minor) == 2 && !strcmp(name, key) && minor >= 0)
			found = minor;
	fclose(f);
	return found;
}

/* The MIG instances of GPU i (minor, in MIG mode) appended to out; how many. */
static int mig_devices(struct nvml *n, nvmlDevice_t dev, unsigned minor, const struct gres_dev *gpu,
		       const char *dev_dir, struct gres_conf *out)
{
	unsigned current = 0, pending = 0, max = 0;
	int found = 0;

	if (!n->mig_mode || !n->mig_max || !n->mig_handle || !n->gi_id || !n->ci_id ||
	    n->mig_mode(dev, &current, &pending) != NVML_SUCCESS || current != 1 ||
	    n->mig_max(dev, &max) != NVML_SUCCESS)
		return 0;
	for (unsigned k = 0; k < max && k < 64; k++) {
		nvmlDevice_t mig;
		unsigned gi, ci;
		char name[96] = "", key[64];
		if (n->mig_handle(dev, k, &mig) != NVML_SUCCESS || n->gi_id(mig, &gi) != NVML_SUCCESS ||
		    n->ci_id(mig, &ci) != NVML_SUCCESS)
			continue;   /* an empty slot */
		struct gres_dev d = *gpu;
		if (n->name(mig, name, sizeof(name)) == NVML_SUCCESS) {
			name[sizeof(name) - 1] = '\0';
			type_from_name(name, d.type, sizeof(d.type));
		}
		snprintf(key, sizeof(key), "gpu%u/gi%u/access", minor, gi);
		int gi_minor = cap_minor(key);
		snprintf(key, sizeof(key), "gpu%u/gi%u/ci%u/access", minor, gi, ci);
		int ci_minor = cap_minor(key);
		if (gi_minor < 0 || ci_minor < 0)
			log_error("AutoDetect=nvml: GPU %u MIG %u/%u: no nvidia-caps minors", minor, gi, ci);
		else
			snprintf(d.file, sizeof(d.file), "%s/nvidia%u,%s/nvidia-caps/nvidia-cap%d,"
				 "%s/nvidia-caps/nvidia-cap%d", dev_dir, minor, dev_dir, gi_minor, dev_dir,
				 ci_minor);
		d.links[0] = '\0';
		gres_conf_add(out, &d);
		log_info("AutoDetect=nvml: GPU %u MIG %u/%u: %s (%s) %s", minor, gi, ci, name, d.type,
			 d.file);
		found++;
	}
	return found;
}

static void *sym(struct nvml *n, const char *name, bool required, bool *missing)
{
	void *p = dlsym(n->lib, name);
	if (!p && required)
		*missing = true;
	return p;
}

/* "NVIDIA H100 80GB HBM3" -> "nvidia_h100_80gb_hbm3", as Slurm names types. */
static void type_from_name(const char *name, char *type, size_t size)
{
	size_t j = 0;
	for (const char *p = name; *p && j + 1 < size; p++) {
		unsigned char c = *p;
		if (isalnum(c) || c == '-' || c == '.')
			type[j++] = tolower(c);
		else if (j && type[j - 1] != '_')
			type[j++] = '_';
	}
	while (j && type[j - 1] == '_')
		j--;
	type[j] = '\0';
}

/* The CPU mask as Slurm's core ranges: CPU IDs over threads per core. */
static void cores_from_mask(const unsigned long *mask, unsigned words, int threads, char *out,
			    size_t size)
{
	int ncpus = words * 8 * sizeof(unsigned long), last = -1, start = -1;
	size_t len = 0;

	out[0] = '\0';
	if (threads < 1)
		threads = 1;
	for (int cpu = 0; cpu <= ncpus; cpu++) {
		bool on = cpu < ncpus && (mask[cpu / (8 * sizeof(long))] >> (cpu % (8 * sizeof(long))) & 1);
		int core = cpu / threads;
		if (on && core == last)
			continue;
		if (on && start >= 0 && core == last + 1) {
			last = core;
			continue;
		}
		if (start >= 0 && len + 24 < size) {
			len += snprintf(out + len, size - len, "%s%d", len ? "," : "", start);
			if (last > start)
				len += snprintf(out + len, size - len, "-%d", last);
		}
		start = on ? core : -1;
		last = on ? core : -1;
	}
}

/* Slurm's Links for GPU i: per GPU j the NVLinks between them, -1 for i. */
static void links_of(struct nvml *n, nvmlDevice_t *devs, nvml_pci_info *pci, unsigned ndev,
		     unsigned i, char *out, size_t size)
{
	int counts[NVML_MAX_GPUS] = { 0 };
	size_t len = 0;

	out[0] = '\0';
	if (!n->pci || !n->link_state || !n->link_remote || ndev < 2)
		return;
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		int active = 0;
		nvml_pci_info remote;
		if (n->link_state(devs[i], l, &active) != NVML_SUCCESS || !active ||
		    n->link_remote(devs[i], l, &remote) != NVML_SUCCESS)
			continue;
		for (unsigned j = 0; j < ndev; j++)
			if (j != i && !strncmp(remote.bus_id, pci[j].bus_id, sizeof(remote.bus_id)))
				counts[j]++;
	}
	for (unsigned j = 0; j < ndev && len + 16 < size; j++)
		len += snprintf(out + len, size - len, "%s%d", j ? "," : "", j == i ? -1 : counts[j]);
}

int nvml_detect(int threads, const char *dev_dir, struct gres_conf *out, struct herd_error *err)
{
	const char *path = getenv("HERD_NVML_LIBRARY");
	struct nvml n = { 0 };
	bool missing = false;
	unsigned count = 0;
	nvmlDevice_t devs[NVML_MAX_GPUS];
	nvml_pci_info pci[NVML_MAX_GPUS];
	int rc = -1;

	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	n.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n.lib)
		return errprintf(err, "AutoDetect=nvml: cannot load %s: %s", path, dlerror());
	n.init = sym(&n, "nvmlInit_v2", true, &missing);
	n.shutdown = sym(&n, "nvmlShutdown", true, &missing);
	n.count = sym(&n, "nvmlDeviceGetCount_v2", true, &missing);
	n.handle = sym(&n, "nvmlDeviceGetHandleByIndex_v2", true, &missing);
	n.name = sym(&n, "nvmlDeviceGetName", true, &missing);
	n.minor = sym(&n, "nvmlDeviceGetMinorNumber", true, &missing);
	n.affinity = sym(&n, "nvmlDeviceGetCpuAffinity", true, &missing);
	n.pci = sym(&n, "nvmlDeviceGetPciInfo_v3", false, &missing);
	n.link_state = sym(&n, "nvmlDeviceGetNvLinkState", false, &missing);
	n.link_remote = sym(&n, "nvmlDeviceGetNvLinkRemotePciInfo_v2", false, &missing);
	n.mig_mode = sym(&n, "nvmlDeviceGetMigMode", false, &missing);
	n.mig_max = sym(&n, "nvmlDeviceGetMaxMigDeviceCount", false, &missing);
	n.mig_handle = sym(&n, "nvmlDeviceGetMigDeviceHandleByIndex", false, &missing);
	n.gi_id = sym(&n, "nvmlDeviceGetGpuInstanceId", false, &missing);
	n.ci_id = sym(&n, "nvmlDeviceGetComputeInstanceId", false, &missing);
	if (missing) {
		errprintf(err, "AutoDetect=nvml: %s lacks NVML's functions", path);
		dlclose(n.lib);
		return -1;
	}
	if (n.init() != NVML_SUCCESS) {
		errprintf(err, "AutoDetect=nvml: nvmlInit failed (is the NVIDIA driver loaded?)");
		dlclose(n.lib);
		return -1;
	}
	if (n.count(&count) != NVML_SUCCESS) {
		errprintf(err, "AutoDetect=nvml: nvmlDeviceGetCount failed");
		goto done;
	}
	if (count > NVML_MAX_GPUS)
		count = NVML_MAX_GPUS;
	for (unsigned i = 0; i < count; i++) {
		if (n.handle(i, &devs[i]) != NVML_SUCCESS) {
			errprintf(err, "AutoDetect=nvml: no handle for GPU %u", i);
			goto done;
		}
		memset(&pci[i], 0, sizeof(pci[i]));
		if (n.pci && n.pci(devs[i], &pci[i]) != NVML_SUCCESS)
			memset(&pci[i], 0, sizeof(pci[i]));
	}
	for (unsigned i = 0; i < count; i++) {
		struct gres_dev d = { .name = "gpu", .count = 1 };
		char name[96] = "";
		unsigned minor = i;
		unsigned long mask[16] = { 0 };

		if (n.name(devs[i], name, sizeof(name)) == NVML_SUCCESS) {
			name[sizeof(name) - 1] = '\0';
			type_from_name(name, d.type, sizeof(d.type));
		}
		if (n.minor(devs[i], &minor) != NVML_SUCCESS)
			minor = i;
		snprintf(d.file, sizeof(d.file), "%s/nvidia%u", dev_dir, minor);
		if (n.affinity(devs[i], 16, mask) == NVML_SUCCESS)
			cores_from_mask(mask, 16, threads, d.cores, sizeof(d.cores));
		links_of(&n, devs, pci, count, i, d.links, sizeof(d.links));
		d.flags = GRES_F_NVIDIA_GPU_ENV;
		if (mig_devices(&n, devs[i], minor, &d, dev_dir, out) > 0)
			continue;   /* in MIG mode: its instances are the GPUs */
		gres_conf_add(out, &d);
		log_info("AutoDetect=nvml: GPU %u: %s (%s) %s cores %s links %s", i, name, d.type,
			 d.file, d.cores[0] ? d.cores : "any", d.links[0] ? d.links : "none");
	}
	rc = 0;
done:
	n.shutdown();
	dlclose(n.lib);
	return rc;
}
