/* GPU binding (--gpu-bind, --gpus-per-task) and the GPU environment of the
 * batch shell and of each task, by Slurm's rules: srun(1) --gpu-bind and
 * "OUTPUT ENVIRONMENT VARIABLES", gres.conf(5) Flags, gres.html "GPU
 * Management".  doc/gres.md section 3 lists each rule with its source.  No
 * I/O: the caller logs the warnings and writes the verbose line. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/gpu_env.h"

/* ---- --gpu-bind ---- */

void gpu_bind_free(struct gpu_bind *b)
{
	free(b->list);
	free(b->spec);
	memset(b, 0, sizeof(*b));
}

/* A positive count ("single:2", "per_task:1"). */
static int gpu_bind_count(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		return -1;
	*out = (int)v;
	return 0;
}

/* "ID[*REPEAT],..." (map: decimal IDs; mask: hexadecimal, "0x" optional). */
static int gpu_bind_list(const char *s, bool mask, struct gpu_bind *b)
{
	char *copy = xstrdup(s), *save = NULL;
	int rc = -1;
	if (!*copy)
		goto out;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *star = strchr(t, '*'), *end;
		long repeat = 1;
		if (star) {
			*star = '\0';
			errno = 0;
			repeat = strtol(star + 1, &end, 10);
			if (errno || end == star + 1 || *end || repeat < 1 || repeat > GPU_BIND_LIST_MAX)
				goto out;
		}
		const char *num = t;
		if (mask && (!strncasecmp(num, "0x", 2)))
			num += 2;
		if (!*num || *num == '-' || *num == '+')
			goto out;
		errno = 0;
		unsigned long long v = strtoull(num, &end, mask ? 16 : 10);
		if (errno || *end || (!mask && v > GPU_BIND_ID_MAX) || (mask && v == 0))
			goto out;
		if (b->nlist + repeat > GPU_BIND_LIST_MAX)
			goto out;
		b->list = xrealloc(b->list, (b->nlist + repeat) * sizeof(*b->list));
		for (long i = 0; i < repeat; i++)
			b->list[b->nlist++] = v;
	}
	rc = b->nlist ? 0 : -1;
out:
	free(copy);
	return rc;
}

int gpu_bind_parse(const char *spec, struct gpu_bind *b, struct herd_error *err)
{
	memset(b, 0, sizeof(*b));
	if (!spec || !*spec)
		return 0;
	if (strlen(spec) > 65536)
		return errprintf(err, "--gpu-bind: too long");
	const char *s = spec;
	if (!strncasecmp(s, "verbose,", 8) || !strncasecmp(s, "v,", 2)) {
		b->verbose = true;
		s = strchr(s, ',') + 1;
	} else if (!strcasecmp(s, "verbose") || !strcasecmp(s, "v")) {
		b->verbose = true;
		b->spec = xstrdup(spec);
		return 0;
	}
	int rc = 0;
	b->spec = xstrdup(spec);
	if (!strcasecmp(s, "none"))
		b->type = GPU_BIND_NONE;
	else if (!strcasecmp(s, "closest"))
		b->type = GPU_BIND_CLOSEST;
	else if (!strncasecmp(s, "single:", 7)) {
		b->type = GPU_BIND_SINGLE;
		rc = gpu_bind_count(s + 7, &b->n);
	} else if (!strncasecmp(s, "per_task:", 9)) {
		b->type = GPU_BIND_PER_TASK;
		rc = gpu_bind_count(s + 9, &b->n);
	} else if (!strncasecmp(s, "map_gpu:", 8)) {
		b->type = GPU_BIND_MAP;
		rc = gpu_bind_list(s + 8, false, b);
	} else if (!strncasecmp(s, "mask_gpu:", 9)) {
		b->type = GPU_BIND_MASK;
		rc = gpu_bind_list(s + 9, true, b);
	} else
		rc = -1;
	if (rc < 0) {
		gpu_bind_free(b);
		return errprintf(err, "Invalid --gpu-bind argument: %.64s", spec);
	}
	return 0;
}

/* ---- the GPUs and the task's share of them ---- */

/* r into out (k of them, in index order): where its index sorts; k + 1. */
static size_t insert_by_index(const struct launch_gres **out, size_t k, const struct launch_gres *r)
{
	size_t j = k;
	while (j > 0 && out[j - 1]->index > r->index) {
		out[j] = out[j - 1];
		j--;
	}
	out[j] = r;
	return k + 1;
}

size_t gpu_list(const struct launch_gres *list, size_t n, const struct launch_gres **out,
		size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		if (strcmp(list[i].name, "gpu"))
			continue;
		k = insert_by_index(out, k, &list[i]);   /* the lists are short (LAUNCH_GRES_MAX) */
	}
	return k;
}

/* Does GPU g sit close to the task's CPUs (its gres.conf Cores meet them)?
 * No Cores, or no CPUs known: close to everything. */
static bool gpu_close(const struct launch_gres *g, const cpu_set_t *cpus)
{
	if (!cpus || !g->cores || !*g->cores)
		return true;
	struct bitmap *cores = bitmap_parse(g->cores, CPU_SETSIZE);
	if (!cores)
		return true;
	bool close = false;
	for (uint32_t c = bitmap_next(cores, 0); c != BITMAP_NONE && !close;
	     c = bitmap_next(cores, c + 1))
		close = CPU_ISSET(c, cpus);
	bitmap_destroy(cores);
	return close;
}

/* The step's GPU that an ID of map_gpu/mask_gpu names: a position among the
 * step's GPUs when devices are constrained, else a global index. */
static long gpu_by_id(const struct launch_gres *const *gpus, size_t n, bool constrained,
		      uint64_t id)
{
	if (constrained)
		return id < n ? (long)id : -1;
	for (size_t i = 0; i < n; i++)
		if ((uint64_t)gpus[i]->index == id)
			return (long)i;
	return -1;
}

size_t gpu_task_select(const struct gpu_bind *b, int gpus_per_task, int step_tasks,
		       bool constrained, const struct launch_gres *const *gpus, size_t n,
		       int local, const cpu_set_t *cpus, bool *use, char *warn, size_t warnlen)
{
	size_t count = 0;
	if (warn && warnlen)
		warn[0] = '\0';
	if (n == 0)
		return 0;
	memset(use, 0, n * sizeof(*use));
	enum gpu_bind_type type = b->type;
	int per = b->n;
	/* srun(1): --gpus-per-task implies per_task:<gpus_per_task> unless a
	 * --gpu-bind is given; none turns it off. */
	if (type == GPU_BIND_DEFAULT && gpus_per_task > 0) {
		type = GPU_BIND_PER_TASK;
		per = gpus_per_task;
	}
	/* srun(1): "GPU binding is ignored if there is only one task." */
	if (step_tasks <= 1 || local < 0)
		type = GPU_BIND_DEFAULT;
	switch (type) {
	case GPU_BIND_DEFAULT:
	case GPU_BIND_NONE:
		for (size_t i = 0; i < n; i++)
			use[i] = true;
		return n;
	case GPU_BIND_CLOSEST:
	case GPU_BIND_SINGLE: {
		size_t close[LAUNCH_GRES_MAX], nclose = 0;
		for (size_t i = 0; i < n && nclose < LAUNCH_GRES_MAX; i++)
			if (gpu_close(gpus[i], cpus))
				close[nclose++] = i;
		if (nclose == 0)   /* none near its CPUs: all are equally far */
			for (size_t i = 0; i < n && i < LAUNCH_GRES_MAX; i++)
				close[nclose++] = i;
		if (type == GPU_BIND_CLOSEST) {
			for (size_t i = 0; i < nclose; i++)
				use[close[i]] = true;
			return nclose;
		}
		/* single:N, a block distribution of the tasks on the close GPUs */
		use[close[((size_t)local / per) % nclose]] = true;
		return 1;
	}
	case GPU_BIND_PER_TASK:
		for (int k = 0; k < per; k++) {
			size_t i = ((size_t)local * per + k) % n;
			if (!use[i])
				count++;
			use[i] = true;
		}
		return count;
	case GPU_BIND_MAP:
	case GPU_BIND_MASK: {
		uint64_t entry = b->list[(size_t)local % b->nlist];
		if (type == GPU_BIND_MAP) {
			long i = gpu_by_id(gpus, n, constrained, entry);
			if (i >= 0) {
				use[i] = true;
				count = 1;
			}
		} else {
			for (unsigned bit = 0; bit < 64; bit++) {
				if (!(entry >> bit & 1))
					continue;
				long i = gpu_by_id(gpus, n, constrained, bit);
				if (i >= 0 && !use[i]) {
					use[i] = true;
					count++;
				}
			}
		}
		if (count == 0) {
			/* Slurm's words for it (its request is "gpu:" and
			 * --gpu-bind), and its choice */
			if (warn && warnlen)
				snprintf(warn, warnlen, "Bind request gpu:%.64s does not specify any "
					 "devices within the allocation for task %d. Binding to the "
					 "first device in the allocation instead.",
					 b->spec ? b->spec : "", local);
			use[0] = true;
			count = 1;
		}
		return count;
	}
	}
	return 0;
}

/* ---- the variables ---- */

/* gres.conf(5) Flags: which visible-devices variables a GPU sets.  No
 * environment flag at all: every one of them. */
enum { GPU_ENV_NVIDIA = 1, GPU_ENV_AMD = 2, GPU_ENV_INTEL = 4, GPU_ENV_OPENCL = 8,
       GPU_ENV_ALL = 15 };
static const struct {
	const char *flag, *var;
	unsigned bit;
} gpu_env_vars[] = {
	{ "nvidia_gpu_env", "CUDA_VISIBLE_DEVICES", GPU_ENV_NVIDIA },
	{ "amd_gpu_env", "ROCR_VISIBLE_DEVICES", GPU_ENV_AMD },
	{ "intel_gpu_env", "ZE_AFFINITY_MASK", GPU_ENV_INTEL },
	{ "opencl_env", "GPU_DEVICE_ORDINAL", GPU_ENV_OPENCL },
};
#define GPU_NVARS (sizeof(gpu_env_vars) / sizeof(*gpu_env_vars))

static unsigned gpu_env_flags(const char *flags)
{
	unsigned bits = 0;
	bool none = false, any = false;
	if (!flags || !*flags)
		return GPU_ENV_ALL;
	char *copy = xstrdup(flags), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (size_t v = 0; v < GPU_NVARS; v++)
			if (!strcasecmp(t, gpu_env_vars[v].flag)) {
				bits |= gpu_env_vars[v].bit;
				any = true;
			}
		if (!strcasecmp(t, "no_gpu_env"))
			none = any = true;
	}
	free(copy);
	if (none)
		return 0;
	return any ? bits : GPU_ENV_ALL;
}

static void gpu_unset_all(struct env *e, bool batch)
{
	for (size_t v = 0; v < GPU_NVARS; v++)
		env_unset(e, gpu_env_vars[v].var);
	env_unset(e, batch ? "SLURM_JOB_GPUS" : "SLURM_STEP_GPUS");
	env_unset(e, "SLURM_GPUS_ON_NODE");
	env_unset(e, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	env_unset(e, "SLURM_SHARDS_ON_NODE");
}

static void gpu_add(struct strbuf *sb, long v)
{
	char num[24];
	snprintf(num, sizeof(num), "%s%ld", sb->len ? "," : "", v);
	strbuf_adds(sb, num);
}

/* The shares of list: *shards, the shard records' counts added up (Slurm's
 * SLURM_SHARDS_ON_NODE), and *mps_percent, the share of the GPU that
 * carries the process's MPS daemon (gpu_mps_gpu: the lowest mps index) in
 * percent of that GPU's MPS count, 1..100, -1 none or no total.  Slurm's
 * shard and mps plugins set these whatever the gpu plugin does. */
static void gpu_share_counts(const struct launch_gres *list, size_t n, int64_t *shards,
			     int *mps_percent)
{
	int mps_gpu = gpu_mps_gpu(list, n);
	*shards = 0;
	*mps_percent = -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(list[i].name, "shard") && *shards <= INT32_MAX)
			*shards += list[i].count;   /* each count is at most 2^31-1 */
		if (!strcmp(list[i].name, "mps") && list[i].index == mps_gpu && list[i].total > 0 &&
		    *mps_percent < 0) {
			int64_t p = list[i].count * 100 / list[i].total;
			*mps_percent = p < 1 ? 1 : p > 100 ? 100 : (int)p;
		}
	}
}

/* The GPUs carrying shares (shard/mps records) when there is no whole GPU:
 * one pseudo GPU per distinct index, in index order. */
static size_t gpu_shares(const struct launch_gres *list, size_t n, const struct launch_gres **out,
			 size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool shard = !strcmp(list[i].name, "shard"), mps = !strcmp(list[i].name, "mps");
		if (!shard && !mps)
			continue;
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = out[j]->index == list[i].index;
		if (seen || k >= max)
			continue;
		k = insert_by_index(out, k, &list[i]);
	}
	return k;
}

static bool gpu_any(const struct launch_gres *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, "gpu") || !strcmp(list[i].name, "shard") ||
		    !strcmp(list[i].name, "mps"))
			return true;
	return false;
}

/* Set the variables for the n GPUs `gpus` of which `use` says which this
 * process gets (NULL: all).  Global IDs are the records' indices; the
 * visible-devices variables count from 0 among the GPUs of the cgroup when
 * devices are constrained (gres.html "GPU Management"). */
static void gpu_env_set(struct env *e, const struct launch_gres *const *gpus, size_t n,
			const bool *use, bool constrained, bool batch, int64_t shards,
			int mps_percent, char *local_out, size_t local_len)
{
	struct strbuf global = { 0 }, visible[GPU_NVARS] = { { 0 } };
	/* the job's (batch) or this task's GPUs, global: Slurm 22.05 sets
	 * SLURM_STEP_GPUS to the GPUs a bound task has (seen on Slurm; under
	 * ConstrainDevices it prints positions mapped wrongly, not copied) */
	strbuf_add(&global, "", 0);
	for (size_t i = 0; i < n; i++)
		if (!use || use[i])
			gpu_add(&global, gpus[i]->index);
	long pos = 0;   /* among the GPUs this process has: what its cgroup shows */
	for (size_t i = 0; i < n; i++) {
		if (use && !use[i])
			continue;
		unsigned bits = gpu_env_flags(gpus[i]->flags);
		for (size_t v = 0; v < GPU_NVARS; v++)
			if (bits & gpu_env_vars[v].bit)
				gpu_add(&visible[v], constrained ? pos : gpus[i]->index);
		pos++;
	}
	gpu_unset_all(e, batch);
	env_set(e, batch ? "SLURM_JOB_GPUS" : "SLURM_STEP_GPUS", global.s);
	env_setf(e, "SLURM_GPUS_ON_NODE", "%zu", n);
	if (local_out && local_len)
		local_out[0] = '\0';
	for (size_t v = 0; v < GPU_NVARS; v++) {
		if (!visible[v].s)
			continue;
		env_set(e, gpu_env_vars[v].var, visible[v].s);
		if (local_out && local_len && !local_out[0])
			snprintf(local_out, local_len, "%s=%s", gpu_env_vars[v].var, visible[v].s);
		free(visible[v].s);
	}
	if (shards > 0)
		env_setf(e, "SLURM_SHARDS_ON_NODE", "%lld", (long long)shards);
	if (mps_percent >= 0)
		env_setf(e, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "%d", mps_percent);
	free(global.s);
}

void gpu_env_batch(struct env *e, const struct launch *l, bool constrained)
{
	const struct launch_gres *gpus[LAUNCH_GRES_MAX];
	int64_t shards = 0;
	int mps = -1;
	if (!gpu_any(l->gres, l->ngres))
		return;   /* no GRES here: the submitter's variables stay as they are */
	size_t n = gpu_list(l->gres, l->ngres, gpus, LAUNCH_GRES_MAX);
	if (n == 0)
		n = gpu_shares(l->gres, l->ngres, gpus, LAUNCH_GRES_MAX);
	gpu_share_counts(l->gres, l->ngres, &shards, &mps);
	gpu_env_set(e, gpus, n, NULL, constrained, true, shards, mps, NULL, 0);
}

void gpu_env_task(struct env *e, const struct launch *l, bool constrained, int local,
		  int task_id, const cpu_set_t *cpus, char *verbose, size_t verbose_len,
		  char *warn, size_t warnlen)
{
	const struct launch_step *s = l->step;
	const struct launch_gres *gpus[LAUNCH_GRES_MAX];
	bool use[LAUNCH_GRES_MAX];
	struct gpu_bind b;
	int64_t shards = 0;
	int mps = -1;
	char local_list[256];

	if (verbose && verbose_len)
		verbose[0] = '\0';
	if (warn && warnlen)
		warn[0] = '\0';
	if (!gpu_any(l->gres, l->ngres) && !gpu_any(s->gres, s->ngres))
		return;
	size_t n = gpu_list(s->gres, s->ngres, gpus, LAUNCH_GRES_MAX);
	gpu_share_counts(s->gres, s->ngres, &shards, &mps);
	if (n == 0) {
		n = gpu_shares(s->gres, s->ngres, gpus, LAUNCH_GRES_MAX);
		if (n == 0) {
			/* a step without GPUs in a job with some: what srun's
			 * environment says of the job's is not the step's */
			gpu_unset_all(e, false);
			return;
		}
		gpu_env_set(e, gpus, n, NULL, constrained, false, shards, mps, NULL, 0);
		return;
	}
	if (gpu_bind_parse(s->gpu_bind, &b, NULL) < 0)
		memset(&b, 0, sizeof(b));   /* checked by launch_parse: not reached */
	gpu_task_select(&b, s->gpus_per_task, s->step_num_tasks, constrained, gpus, n, local, cpus,
			use, warn, warnlen);
	gpu_env_set(e, gpus, n, use, constrained, false, shards, mps, local_list, sizeof(local_list));
	if (b.verbose && verbose && verbose_len) {
		struct strbuf all = { 0 };
		strbuf_add(&all, "", 0);
		for (size_t i = 0; i < n; i++)
			gpu_add(&all, gpus[i]->index);
		snprintf(verbose, verbose_len, "gpu-bind: task %d (local %d): GPUs %s of the step's %s: %s\n",
			 task_id, local, env_get(e, "SLURM_STEP_GPUS"), all.s,
			 local_list[0] ? local_list : "no GPU variable (Flags=no_gpu_env)");
		free(all.s);
	}
	gpu_bind_free(&b);
}

int gpu_mps_gpu(const struct launch_gres *list, size_t n)
{
	int gpu = -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, "mps") && (gpu < 0 || list[i].index < gpu))
			gpu = list[i].index;
	return gpu;
}

/* ---- the device files (for ConstrainDevices) ---- */

char **gpu_task_dev_files(const struct launch *l, bool constrained, int local,
			  const cpu_set_t *cpus, size_t *count)
{
	const struct launch_step *s = l->step;
	const struct launch_gres *gpus[LAUNCH_GRES_MAX];
	bool use[LAUNCH_GRES_MAX];
	struct gpu_bind b;

	*count = 0;
	if (!constrained)
		return NULL;
	size_t n = gpu_list(s->gres, s->ngres, gpus, LAUNCH_GRES_MAX);
	if (n == 0 || gpu_bind_parse(s->gpu_bind, &b, NULL) < 0)
		return NULL;
	size_t k = gpu_task_select(&b, s->gpus_per_task, s->step_num_tasks, constrained, gpus, n,
				   local, cpus, use, NULL, 0);
	gpu_bind_free(&b);
	if (k == n)
		return NULL;
	/* the task's GPUs, and the step's other records (shares, other GRES) */
	struct launch_gres *mine = xmalloc(s->ngres * sizeof(*mine));
	size_t m = 0;
	for (size_t i = 0; i < s->ngres; i++) {
		bool skip = false;
		for (size_t j = 0; j < n && !skip; j++)
			skip = gpus[j] == &s->gres[i] && !use[j];
		if (!skip)
			mine[m++] = s->gres[i];
	}
	char **files = gpu_dev_files(mine, m, count);
	free(mine);
	return files;
}

static void gpu_files_add(char ***files, size_t *n, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*files)[i], path))
			return;
	*files = xrealloc(*files, (*n + 1) * sizeof(**files));
	(*files)[(*n)++] = xstrdup(path);
}

char **gpu_dev_files(const struct launch_gres *list, size_t n, size_t *count)
{
	char **files = NULL;
	bool nvidia = false, amd = false;
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char *copy = xstrdup(list[i].file ? list[i].file : ""), *save = NULL;
		for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
			if (f[0] != '/')
				continue;   /* not a path: nothing to allow */
			gpu_files_add(&files, count, f);
			nvidia |= !strncmp(f, "/dev/nvidia", 11);
			amd |= !strncmp(f, "/dev/dri/", 9);
		}
		free(copy);
	}
	if (nvidia) {
		static const char *const shared[] = { "/dev/nvidiactl", "/dev/nvidia-uvm",
						      "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset" };
		for (size_t i = 0; i < sizeof(shared) / sizeof(*shared); i++)
			gpu_files_add(&files, count, shared[i]);
	}
	if (amd)
		gpu_files_add(&files, count, "/dev/kfd");
	return files;
}

void gpu_dev_files_free(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
}
