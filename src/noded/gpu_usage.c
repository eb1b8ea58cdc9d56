/* gres/gpumem and gres/gpuutil (doc/gres.md section 4): while a step (or a
 * batch shell) that holds GPUs runs here, herdd samples those GPUs through
 * NVML every JobAcctGatherFrequency seconds (memory in use and utilisation,
 * summed over the step's GPUs, as Slurm's gpu/nvml plugin does), and when
 * its herdstepd has ended sends the step's peak and average to the
 * controller (GPU_USAGE), which keeps them in the job's record for sacct's
 * TRESUsageIn*.  Only when AccountingStorageTRES names gres/gpu.  Cheap and
 * bounded: two NVML calls per GPU per sample, at most GPU_WATCH_MAX GPUs a
 * step; NVML is opened once, at the first step with GPUs.  Not here: the
 * GPUs' detection (nvml.c). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

#define NVML_SUCCESS 0
#define GPU_WATCH_MAX 64
#define GPU_USAGE_TIMEOUT_MS 10000

typedef struct nvml_device *nvml_dev;
struct nvml_memory {            /* nvmlMemory_t: bytes */
	unsigned long long total, free, used;
};
struct nvml_utilization {       /* nvmlUtilization_t: percent */
	unsigned gpu, memory;
};

struct gpu_watch {
	int n;
	nvml_dev dev[GPU_WATCH_MAX];
	uint64_t mem_max_mb, mem_sum_mb, util_sum;
	unsigned util_max;
	uint32_t samples;
};

static struct {
	bool tried;               /* dlopen and nvmlInit done once (ok or not) */
	void *lib;
	int (*count)(unsigned *);
	int (*handle)(unsigned, nvml_dev *);
	int (*minor)(nvml_dev, unsigned *);
	int (*memory)(nvml_dev, struct nvml_memory *);
	int (*utilization)(nvml_dev, struct nvml_utilization *);
	bool timer_on;
	uv_timer_t timer;
} nv;

static bool nvml_open(void)
{
	const char *path = getenv("HERD_NVML_LIBRARY");
	int (*init)(void);

	if (nv.tried)
		return nv.lib != NULL;
	nv.tried = true;
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	nv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!nv.lib) {
		log_info("gres/gpumem, gres/gpuutil: cannot load %s: %s; not sampled", path, dlerror());
		return false;
	}
	init = (int (*)(void))dlsym(nv.lib, "nvmlInit_v2");
	nv.count = (int (*)(unsigned *))dlsym(nv.lib, "nvmlDeviceGetCount_v2");
	nv.handle = (int (*)(unsigned, nvml_dev *))dlsym(nv.lib, "nvmlDeviceGetHandleByIndex_v2");
	nv.minor = (int (*)(nvml_dev, unsigned *))dlsym(nv.lib, "nvmlDeviceGetMinorNumber");
	nv.memory = (int (*)(nvml_dev, struct nvml_memory *))dlsym(nv.lib, "nvmlDeviceGetMemoryInfo");
	nv.utilization = (int (*)(nvml_dev, struct nvml_utilization *))
		dlsym(nv.lib, "nvmlDeviceGetUtilizationRates");
	if (!init || !nv.count || !nv.handle || !nv.minor || !nv.memory || !nv.utilization ||
	    init() != NVML_SUCCESS) {
		log_info("gres/gpumem, gres/gpuutil: %s does not answer; not sampled", path);
		dlclose(nv.lib);
		nv.lib = NULL;
		return false;
	}
	return true;
}

/* NVML's device of /dev/nvidiaN (the first file of a record; a MIG
 * instance, whose file is a list, is not sampled: NVML gives no
 * utilisation of one). */
static bool device_of(const char *file, nvml_dev *out)
{
	const char *base = strrchr(file, '/');
	unsigned want, count = 0, minor;
	char tail;

	base = base ? base + 1 : file;
	if (strchr(file, ',') || sscanf(base, "nvidia%u%c", &want, &tail) != 1)
		return false;
	if (nv.count(&count) != NVML_SUCCESS)
		return false;
	for (unsigned i = 0; i < count && i < 1024; i++) {
		nvml_dev d;
		if (nv.handle(i, &d) == NVML_SUCCESS && nv.minor(d, &minor) == NVML_SUCCESS &&
		    minor == want) {
			*out = d;
			return true;
		}
	}
	return false;
}

static void sample(struct gpu_watch *w)
{
	uint64_t mem = 0, util = 0;
	for (int i = 0; i < w->n; i++) {
		struct nvml_memory m;
		struct nvml_utilization u;
		if (nv.memory(w->dev[i], &m) == NVML_SUCCESS)
			mem += m.used >> 20;
		if (nv.utilization(w->dev[i], &u) == NVML_SUCCESS)
			util += u.gpu <= 100 ? u.gpu : 100;
	}
	if (mem > w->mem_max_mb)
		w->mem_max_mb = mem;
	if (util > w->util_max)
		w->util_max = (unsigned)util;
	w->mem_sum_mb += mem;
	w->util_sum += util;
	w->samples++;
}

static void gpu_tick(uv_timer_t *t)
{
	struct noded *nd = t->data;
	bool any = false;
	for (struct noded_job *j = nd->jobs; j; j = j->next)
		if (j->gpu && j->pid) {   /* started */
			sample(j->gpu);
			any = true;
		}
	if (!any) {
		for (struct noded_job *j = nd->jobs; j && !any; j = j->next)
			any = j->gpu != NULL;
		if (!any) {
			uv_timer_stop(&nv.timer);
			nv.timer_on = false;
		}
	}
}

/* JobAcctGatherFrequency: "30", "task=30" (among other kinds), 0 = off;
 * Slurm's default 30 s. */
static long sample_period(const struct conf *conf)
{
	const char *f = conf_get(conf, "JobAcctGatherFrequency");
	long period = 30;
	if (!f || !*f)
		return period;
	for (const char *p = f; *p;) {
		const char *v = p;
		if (!strncmp(p, "task=", 5))
			v = p + 5;
		if (v != p || (*p >= '0' && *p <= '9'))
			period = strtol(v, NULL, 10);
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return period < 0 ? 0 : period > 86400 ? 86400 : period;
}

void gpu_usage_watch(struct noded *nd, struct noded_job *job, const json_t *launch)
{
	const json_t *step = json_object_get(launch, "step");
	const json_t *gres = step && json_object_get(step, "gres") ? json_object_get(step, "gres")
							     : json_object_get(launch, "gres");
	struct gpu_watch *w;
	long period = sample_period(nd->conf);
	size_t i;
	json_t *rec;

	if (!json_array_size(gres) || !period ||
	    !gres_tres_tracked(conf_get(nd->conf, "AccountingStorageTRES"), "gres/gpumem") ||
	    !nvml_open())
		return;
	w = xmalloc(sizeof(*w));
	json_array_foreach(gres, i, rec) {
		const json_t *idx = json_object_get(rec, "index");
		const char *name = json_string_value(json_object_get(rec, "name"));
		const char *file = json_string_value(json_object_get(rec, "file"));
		/* a step's record may leave the file out: the job's of that index */
		for (size_t k = 0; !file && step && k < json_array_size(json_object_get(launch, "gres")); k++) {
			const json_t *jr = json_array_get(json_object_get(launch, "gres"), k);
			if (json_equal(json_object_get(jr, "index"), idx) &&
			    json_equal(json_object_get(jr, "name"), json_object_get(rec, "name")))
				file = json_string_value(json_object_get(jr, "file"));
		}
		if (name && !strcmp(name, "gpu") && file && w->n < GPU_WATCH_MAX &&
		    device_of(file, &w->dev[w->n]))
			w->n++;
	}
	if (!w->n) {
		free(w);
		return;
	}
	job->gpu = w;
	if (!nv.timer_on) {
		if (!nv.timer.loop) {
			uv_timer_init(nd->loop, &nv.timer);
			uv_unref((uv_handle_t *)&nv.timer);
		}
		nv.timer.data = nd;
		uv_timer_start(&nv.timer, gpu_tick, (uint64_t)period * 1000, (uint64_t)period * 1000);
		nv.timer_on = true;
	}
}

static void report_reply(void *arg, json_t *reply, const struct herd_error *err)
{
	char *what = arg;
	struct herd_error rerr = { "" };
	if (!reply)
		log_error("%s: GPU usage not reported: %s", what, err->text);
	else if (msg_reply_rc(reply, &rerr) != 0)
		log_error("%s: GPU usage refused: %s", what, rerr.text);
	free(what);
}

void gpu_usage_report(struct noded *nd, struct noded_job *job)
{
	struct gpu_watch *w = job->gpu;
	struct net_target to = {
		.host = conf_ctld_host(nd->conf),
		.port = conf_ctld_port(nd->conf),
		.dest = nd->dest_ctld,
		.munge_socket = conf_munge_socket(nd->conf),
	};

	if (!w || !w->samples)
		return;
	json_t *body = json_pack("{s:s, s:I, s:I, s:i, s:i, s:I, s:I, s:i, s:i}", "node", nd->node,
				 "job_id", (json_int_t)job->job_id, "step_id", (json_int_t)job->step_id,
				 "gpus", w->n, "samples", (int)w->samples,
				 "mem_max_mb", (json_int_t)w->mem_max_mb,
				 "mem_ave_mb", (json_int_t)(w->mem_sum_mb / w->samples),
				 "util_max", (int)w->util_max,
				 "util_ave", (int)(w->util_sum / w->samples));
	char *what = xasprintf("step %u.%u", job->job_id, job->step_id);
	net_call_async(nd->loop, &to, MSG_GPU_USAGE, body, GPU_USAGE_TIMEOUT_MS, report_reply, what);
	json_decref(body);
}

void gpu_usage_free(struct noded_job *job)
{
	free(job->gpu);
	job->gpu = NULL;
}

void gpu_usage_close(void)
{
	if (nv.timer.loop)
		uv_close((uv_handle_t *)&nv.timer, NULL);
	nv.timer_on = false;
}
