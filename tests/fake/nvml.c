/* A fake libnvidia-ml.so.1 for tests on machines without an NVIDIA GPU
 * (doc/gres.md): herdd loads it through HERD_NVML_LIBRARY, and it reports
 * the GPUs that the file named by HERD_FAKE_NVML describes, one a line:
 *
 *   name=NVIDIA H100 80GB HBM3;minor=0;cpus=0-3;nvlink=1,1
 *
 * name: the product name (default "NVIDIA Fake GPU"); minor: /dev/nvidiaN
 * (default the line's position); cpus: the CPU IDs of its affinity (Linux
 * ranges); nvlink: for each of its NVLinks, the index of the GPU at the
 * other end; mig: the GPU is in MIG mode with these instances (profile
 * names, "1g.10gb,3g.40gb"), GPU instance IDs 1, 2, ... and compute
 * instance 0 each, named "<name> MIG <profile>" (their /dev/nvidia-caps
 * minors are the driver's table's: herdd reads HERD_NVML_MIG_MINORS).
 * mem_used, mem_total: its memory in use and in all, MiB (default 0 and
 * 81920); util: its utilisation, percent (default 0).  These three are
 * read again from the file at each nvmlDeviceGetMemoryInfo and
 * nvmlDeviceGetUtilizationRates, so that a test changes them while a job
 * runs (the other fields are read at nvmlInit).
 * '#' starts a comment.  No file, or none named: no GPUs.
 * Only the NVML calls herdd makes (src/noded/nvml.c, gpu_usage.c) exist. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64
#define MAX_LINKS 18
#define MAX_MIGS 8
#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6

struct gpu {
	char name[96];
	unsigned minor;
	unsigned long mask[16];
	int links[MAX_LINKS];
	int nlinks;
	int mig_mode;
	struct gpu *migs;          /* MAX_MIGS of them, or NULL */
	int nmigs;
	unsigned gi, ci;           /* of a MIG instance */
	unsigned long long mem_used, mem_total;   /* MiB */
	unsigned util;             /* percent */
};

typedef struct {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
} pci_info;

static struct gpu gpus[MAX_GPUS];
static struct gpu mig_pool[MAX_GPUS][MAX_MIGS];
static unsigned ngpus;

static void set_migs(struct gpu *g, unsigned index, const char *s)
{
	g->mig_mode = 1;
	g->migs = mig_pool[index];
	while (*s && g->nmigs < MAX_MIGS) {
		size_t n = strcspn(s, ",");
		struct gpu *m = &g->migs[g->nmigs];
		memset(m, 0, sizeof(*m));
		snprintf(m->name, sizeof(m->name), "%.60s MIG %.*s", g->name, (int)(n < 30 ? n : 30), s);
		m->minor = g->minor;
		memcpy(m->mask, g->mask, sizeof(m->mask));
		m->gi = g->nmigs + 1;
		m->ci = 0;
		g->nmigs++;
		s += n + (s[n] == ',');
	}
}

static void set_cpus(struct gpu *g, const char *s)
{
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s)
			return;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && c >= 0 && c < 16 * 64; c++)
			g->mask[c / 64] |= 1UL << (c % 64);
		s = end + (*end == ',');
	}
}

static void set_links(struct gpu *g, const char *s)
{
	while (*s && g->nlinks < MAX_LINKS) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			return;
		g->links[g->nlinks++] = (int)v;
		s = end + (*end == ',');
	}
}

/* The fields of one line that change while a job runs. */
static void set_usage(struct gpu *g, const char *w)
{
	if (!strncmp(w, "mem_used=", 9))
		g->mem_used = strtoull(w + 9, NULL, 10);
	else if (!strncmp(w, "mem_total=", 10))
		g->mem_total = strtoull(w + 10, NULL, 10);
	else if (!strncmp(w, "util=", 5))
		g->util = (unsigned)strtoul(w + 5, NULL, 10);
}

/* The file again: each GPU's (its line's) memory and utilisation. */
static void refresh_usage(void)
{
	const char *path = getenv("HERD_FAKE_NVML");
	char line[512];
	unsigned i = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "r")))
		return;
	while (i < ngpus && fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *save = NULL;
		if (hash)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		for (char *w = strtok_r(line, ";", &save); w; w = strtok_r(NULL, ";", &save))
			set_usage(&gpus[i], w + strspn(w, " \t"));
		i++;
	}
	fclose(f);
}

int nvmlInit_v2(void)
{
	const char *path = getenv("HERD_FAKE_NVML");
	char line[512];
	FILE *f;

	ngpus = 0;
	if (!path || !(f = fopen(path, "r")))
		return NVML_SUCCESS;
	while (ngpus < MAX_GPUS && fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *save = NULL;
		if (hash)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		struct gpu *g = &gpus[ngpus];
		const char *mig = NULL;
		memset(g, 0, sizeof(*g));
		strcpy(g->name, "NVIDIA Fake GPU");
		g->minor = ngpus;
		g->mem_total = 81920;
		for (char *w = strtok_r(line, ";", &save); w; w = strtok_r(NULL, ";", &save)) {
			w += strspn(w, " \t");
			if (!strncmp(w, "name=", 5))
				snprintf(g->name, sizeof(g->name), "%s", w + 5);
			else if (!strncmp(w, "minor=", 6))
				g->minor = (unsigned)strtoul(w + 6, NULL, 10);
			else if (!strncmp(w, "cpus=", 5))
				set_cpus(g, w + 5);
			else if (!strncmp(w, "nvlink=", 7))
				set_links(g, w + 7);
			else if (!strncmp(w, "mig=", 4))
				mig = w + 4;
			else
				set_usage(g, w);
		}
		if (mig)   /* after the rest: the instances take the GPU's name and CPUs */
			set_migs(g, ngpus, mig);
		ngpus++;
	}
	fclose(f);
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	return NVML_SUCCESS;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
	*count = ngpus;
	return NVML_SUCCESS;
}

/* A handle is a pointer to its GPU. */
int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct gpu **dev)
{
	if (index >= ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*dev = &gpus[index];
	return NVML_SUCCESS;
}

int nvmlDeviceGetName(struct gpu *dev, char *name, unsigned length)
{
	if (strlen(dev->name) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	strcpy(name, dev->name);
	return NVML_SUCCESS;
}

int nvmlDeviceGetMinorNumber(struct gpu *dev, unsigned *minor)
{
	*minor = dev->minor;
	return NVML_SUCCESS;
}

int nvmlDeviceGetCpuAffinity(struct gpu *dev, unsigned size, unsigned long *mask)
{
	for (unsigned i = 0; i < size; i++)
		mask[i] = i < 16 ? dev->mask[i] : 0;
	return NVML_SUCCESS;
}

static void pci_of(unsigned index, pci_info *pci)
{
	memset(pci, 0, sizeof(*pci));
	pci->bus = index + 1;
	snprintf(pci->bus_id, sizeof(pci->bus_id), "00000000:%02X:00.0", index + 1);
	snprintf(pci->bus_id_legacy, sizeof(pci->bus_id_legacy), "0000:%02X:00.0", (index + 1) & 0xff);
}

int nvmlDeviceGetPciInfo_v3(struct gpu *dev, pci_info *pci)
{
	pci_of((unsigned)(dev - gpus), pci);
	return NVML_SUCCESS;
}

int nvmlDeviceGetNvLinkState(struct gpu *dev, unsigned link, int *active)
{
	if (link >= MAX_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*active = (int)link < dev->nlinks;
	return NVML_SUCCESS;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(struct gpu *dev, unsigned link, pci_info *pci)
{
	if ((int)link >= dev->nlinks || dev->links[link] < 0 || dev->links[link] >= (int)ngpus)
		return NVML_ERROR_NOT_SUPPORTED;
	pci_of((unsigned)dev->links[link], pci);
	return NVML_SUCCESS;
}

int nvmlDeviceGetMigMode(struct gpu *dev, unsigned *current, unsigned *pending)
{
	*current = *pending = (unsigned)dev->mig_mode;
	return NVML_SUCCESS;
}

int nvmlDeviceGetMaxMigDeviceCount(struct gpu *dev, unsigned *count)
{
	*count = dev->mig_mode ? MAX_MIGS : 0;
	return NVML_SUCCESS;
}

int nvmlDeviceGetMigDeviceHandleByIndex(struct gpu *dev, unsigned index, struct gpu **mig)
{
	if (!dev->mig_mode || index >= (unsigned)dev->nmigs)
		return NVML_ERROR_NOT_FOUND;
	*mig = &dev->migs[index];
	return NVML_SUCCESS;
}

int nvmlDeviceGetGpuInstanceId(struct gpu *dev, unsigned *id)
{
	*id = dev->gi;
	return dev->gi ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

int nvmlDeviceGetComputeInstanceId(struct gpu *dev, unsigned *id)
{
	*id = dev->ci;
	return dev->gi ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* nvmlMemory_t: bytes */
struct memory {
	unsigned long long total, free, used;
};

int nvmlDeviceGetMemoryInfo(struct gpu *dev, struct memory *m)
{
	refresh_usage();
	m->total = dev->mem_total << 20;
	m->used = dev->mem_used << 20;
	m->free = m->total > m->used ? m->total - m->used : 0;
	return NVML_SUCCESS;
}

/* nvmlUtilization_t: percent */
struct utilization {
	unsigned gpu, memory;
};

int nvmlDeviceGetUtilizationRates(struct gpu *dev, struct utilization *u)
{
	refresh_usage();
	u->gpu = dev->util > 100 ? 100 : dev->util;
	u->memory = 0;
	return NVML_SUCCESS;
}
