/* herdstepd's cgroup containment: cgroup.conf, and the step's cgroups on v1
 * (one hierarchy per controller) or v2 (the unified hierarchy).  Nothing
 * here is fatal: a step whose cgroups cannot be made runs without them, and
 * the handle then does nothing.  doc/cgroup.md is the design. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "stepd/cgroup.h"
#include "stepd/cgroup_dev.h"

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* ---- cgroup.conf ---- */

enum cc_key_kind { CC_BOOL, CC_PERCENT, CC_PATH, CC_PLUGIN, CC_IGNORED };

/* The keys cgroup.conf(5) documents.  Those Herd does not act on are read and
 * ignored, so a site's existing file loads unchanged. */
static const struct cc_key {
	const char *name;
	enum cc_key_kind kind;
	size_t offset;
} cc_keys[] = {
	{ "CgroupPlugin", CC_PLUGIN, offsetof(struct cgroup_conf, plugin) },
	{ "CgroupMountpoint", CC_PATH, offsetof(struct cgroup_conf, mountpoint) },
	{ "ConstrainCores", CC_BOOL, offsetof(struct cgroup_conf, constrain_cores) },
	{ "ConstrainRAMSpace", CC_BOOL, offsetof(struct cgroup_conf, constrain_ram) },
	{ "AllowedRAMSpace", CC_PERCENT, offsetof(struct cgroup_conf, allowed_ram) },
	{ "ConstrainSwapSpace", CC_BOOL, offsetof(struct cgroup_conf, constrain_swap) },
	{ "AllowedSwapSpace", CC_PERCENT, offsetof(struct cgroup_conf, allowed_swap) },
	{ "ConstrainDevices", CC_BOOL, offsetof(struct cgroup_conf, constrain_devices) },
	{ "MaxRAMPercent", CC_IGNORED, 0 },
	{ "MaxSwapPercent", CC_IGNORED, 0 },
	{ "MinRAMSpace", CC_IGNORED, 0 },
	{ "AllowedKmemSpace", CC_IGNORED, 0 },
	{ "ConstrainKmemSpace", CC_IGNORED, 0 },
	{ "MaxKmemPercent", CC_IGNORED, 0 },
	{ "MinKmemSpace", CC_IGNORED, 0 },
	{ "MemorySwappiness", CC_IGNORED, 0 },
	{ "SignalChildrenProcesses", CC_IGNORED, 0 },
	{ "IgnoreSystemd", CC_IGNORED, 0 },
	{ "IgnoreSystemdOnFailure", CC_IGNORED, 0 },
	{ "EnableControllers", CC_IGNORED, 0 },
	{ "CgroupAutomount", CC_IGNORED, 0 },
	{ "CgroupReleaseAgentDir", CC_IGNORED, 0 },
	{ "AllowedDevicesFile", CC_IGNORED, 0 },
	{ "TaskAffinity", CC_IGNORED, 0 },
	{ "SystemdTimeout", CC_IGNORED, 0 },
};

static void cc_defaults(struct cgroup_conf *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->allowed_ram = 100;
	cc->allowed_swap = 0;
	cc->mountpoint = xstrdup("/sys/fs/cgroup");
	cc->plugin = xstrdup("autodetect");
}

/* One Key=Value; -1 with err for a bad one. */
static int cc_set(struct cgroup_conf *cc, const char *path, int line, const char *key,
		  const char *value, struct herd_error *err)
{
	const struct cc_key *k = NULL;
	for (size_t i = 0; i < sizeof(cc_keys) / sizeof(cc_keys[0]); i++)
		if (strcasecmp(key, cc_keys[i].name) == 0)
			k = &cc_keys[i];
	if (!k)
		return errprintf(err, "%s line %d: unknown parameter \"%s\"", path, line, key);
	void *field = (char *)cc + k->offset;
	switch (k->kind) {
	case CC_BOOL:
		if (!parse_bool(value, field))
			return errprintf(err, "%s line %d: %s=%s: expected yes or no", path,
					 line, k->name, value);
		return 0;
	case CC_PERCENT: {
		char *end;
		errno = 0;
		double v = strtod(value, &end);
		if (end == value || *end || errno || v < 0 || v != v)
			return errprintf(err, "%s line %d: %s=%s: expected a percentage",
					 path, line, k->name, value);
		*(double *)field = v;
		return 0;
	}
	case CC_PLUGIN:
		if (strcasecmp(value, "autodetect") && strcasecmp(value, "cgroup/v1") &&
		    strcasecmp(value, "cgroup/v2") && strcasecmp(value, "disabled"))
			return errprintf(err, "%s line %d: CgroupPlugin=%s: expected autodetect, "
					 "cgroup/v1, cgroup/v2 or disabled", path, line, value);
		/* fall through */
	case CC_PATH:
		if (!*value)
			return errprintf(err, "%s line %d: %s has no value", path, line, k->name);
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		return 0;
	case CC_IGNORED:
		return 0;
	}
	return 0;
}

int cgroup_conf_load(const char *conf_dir, struct cgroup_conf *cc, struct herd_error *err)
{
	cc_defaults(cc);
	char *path = xasprintf("%s/cgroup.conf", conf_dir ? conf_dir : ".");
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT) {
			free(path);
			return 0;
		}
		errprintf(err, "%s: %s", path, strerror(errno));
		goto error;
	}
	char buf[4096];
	int line = 0;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		/* slurm.conf syntax: several Key=Value words may share a line. */
		char *save = NULL;
		for (char *w = strtok_r(buf, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			char *eq = strchr(w, '=');
			if (!eq || eq == w) {
				errprintf(err, "%s line %d: \"%s\" is not Key=Value", path, line, w);
				goto error;
			}
			*eq = '\0';
			if (cc_set(cc, path, line, w, eq + 1, err) < 0)
				goto error;
		}
	}
	fclose(f);
	free(path);
	return 0;
error:
	if (f)
		fclose(f);
	free(path);
	cgroup_conf_free(cc);
	return -1;
}

void cgroup_conf_free(struct cgroup_conf *cc)
{
	if (!cc)
		return;
	free(cc->mountpoint);
	free(cc->plugin);
	cc->mountpoint = cc->plugin = NULL;
}

/* ---- files of a cgroup ---- */

static int cg_write(const char *dir, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cg_write(const char *dir, const char *file, const char *fmt, ...)
{
	char path[4096], val[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, val, n);
	int saved = errno;
	close(fd);
	errno = saved;
	return w == n ? 0 : -1;
}

/* The file's contents (at most len-1 bytes), trailing newline kept; -1. */
static ssize_t cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

static int cg_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64];
	if (cg_read(dir, file, buf, sizeof(buf)) <= 0)
		return -1;
	char *end;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

/* The value of "key N" in a flat keyed file (memory.events, cpu.stat,
 * memory.oom_control). */
static int cg_read_key(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char buf[4096];
	if (cg_read(dir, file, buf, sizeof(buf)) < 0)
		return -1;
	size_t klen = strlen(key);
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, klen) == 0 && l[klen] == ' ') {
			*v = strtoull(l + klen + 1, NULL, 10);
			return 0;
		}
	return -1;
}

static bool cg_exists(const char *dir, const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* The daemon's own cgroup in a hierarchy, from /proc/self/cgroup: the line
 * naming controller (v1), or the "0::" line (controller NULL, v2).  "" when
 * it is the root or cannot be told. */
static char *cg_own_path(const char *controller)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096];
	char *found = NULL;
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctls = c1 + 1, *path = c2 + 1;
		if (!controller) {
			if (strcmp(line, "0") == 0 && !*ctls)
				found = xstrdup(path);
			continue;
		}
		char *save = NULL, *copy = xstrdup(ctls);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (strcmp(t, controller) == 0)
				found = xstrdup(path);
		free(copy);
	}
	if (f)
		fclose(f);
	if (!found || strcmp(found, "/") == 0) {
		free(found);
		return xstrdup("");
	}
	return found;
}

static bool cg_fs_is(const char *path, long magic)
{
	struct statfs sf;
	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

/* ---- the step ---- */

/* v1's controllers, each its own hierarchy.  v2 uses slot CG_V2 only. */
enum cg_ctl { CG_FREEZER, CG_CPUACCT, CG_MEMORY, CG_CPUSET, CG_DEVICES, CG_NCTL };
#define CG_V2 0
static const char *const cg_ctl_names[CG_NCTL] = { "freezer", "cpuacct", "memory", "cpuset",
						   "devices" };

struct cgroup_step {
	int version;               /* 0: does nothing */
	char *job[CG_NCTL];        /* .../herd/NODE/job_N, NULL where not used */
	char *step[CG_NCTL];       /* .../job_N/step_S */
	uint32_t *tasks;           /* task_T directories made */
	size_t ntasks;
	bool v2_memory, v2_cpuset; /* controllers enabled for the step (v2) */
	uint64_t rss_seen;         /* v2 without memory.peak: the highest sample */
	bool constrain_devices;    /* ConstrainDevices: cgroup_constrain_devices acts */
};

/* mkdir that takes an existing directory.  0755 whatever the umask (herdstepd
 * runs with 077), as Slurm's and systemd's: root's still, but a task's
 * process may look up its own cgroup (a rootless OCI runtime does, for
 * --container, and fails on a directory it cannot search). */
static int cg_mkdir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	chmod(path, 0755);
	return 0;
}

/* v1 cpuset: a new cpuset has empty cpus and mems, and no task may join it
 * until both are set, so every level takes its parent's. */
static int cg_cpuset_inherit(const char *dir)
{
	char parent[4096], buf[1024];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
	for (int i = 0; i < 2; i++) {
		if (cg_read(dir, files[i], buf, sizeof(buf)) > 1)
			continue; /* already set (a level made earlier) */
		if (cg_read(parent, files[i], buf, sizeof(buf)) < 0)
			return -1;
		buf[strcspn(buf, "\n")] = '\0';
		if (cg_write(dir, files[i], "%s", buf) < 0)
			return -1;
	}
	return 0;
}

char *cgroup_scope(const char *cluster, const char *node)
{
	return cluster && *cluster ? xasprintf("%s_%s", cluster, node) : xstrdup(node);
}

/* Make root/herd/NODE/job_N/step_S; sets job and step.  -1 with errno.
 * kind says what each new level needs before tasks can join below it. */
enum cg_level_kind { CG_PLAIN, CG_V1_CPUSET, CG_V1_MEMORY };
static int cg_make_levels(const char *root, const char *node, uint32_t job_id, const char *step,
			  enum cg_level_kind kind, char **job_out, char **step_out)
{
	char *levels[4];
	levels[0] = xasprintf("%s/herd", root);
	levels[1] = xasprintf("%s/%s", levels[0], node);
	levels[2] = xasprintf("%s/job_%u", levels[1], job_id);
	levels[3] = xasprintf("%s/step_%s", levels[2], step);
	int rc = 0;
	/* The job's last step may be removing job_N (cgroup_step_destroy)
	 * while this one is made: a level vanishing under us is retried. */
	for (int attempt = 0; attempt < 3; attempt++) {
		rc = 0;
		for (int i = 0; i < 4 && rc == 0; i++) {
			rc = cg_mkdir(levels[i]);
			if (rc == 0 && kind == CG_V1_CPUSET)
				rc = cg_cpuset_inherit(levels[i]);
			/* Kernels before about 5.11 let a v1 memory cgroup
			 * ignore its children's usage (use_hierarchy 0): the step's limit
			 * must cover its task_T children. */
			uint64_t hier;
			if (rc == 0 && kind == CG_V1_MEMORY &&
			    cg_read_u64(levels[i], "memory.use_hierarchy", &hier) == 0 && !hier)
				cg_write(levels[i], "memory.use_hierarchy", "1");
		}
		if (rc == 0 || errno != ENOENT)
			break;
	}
	int saved = errno;
	free(levels[0]);
	free(levels[1]);
	if (rc == 0) {
		*job_out = levels[2];
		*step_out = levels[3];
	} else {
		free(levels[2]);
		free(levels[3]);
	}
	errno = saved;
	return rc;
}

/* ConstrainDevices on dir (a step's or a task's cgroup): the defaults and
 * the device files named, nothing else (cgroup_dev.c). */
static int cg_constrain_dir(const struct cgroup_step *cg, const char *dir, const char *const *files,
			    size_t n)
{
	struct cgroup_dev *devs = xmalloc(CGROUP_DEV_MAX * sizeof(*devs));
	size_t ndevs = cgroup_dev_list(files, n, devs, CGROUP_DEV_MAX);
	int rc = (cg->version == 1 ? cgroup_dev_v1 : cgroup_dev_v2)(dir, devs, ndevs);
	free(devs);
	return rc;
}

int cgroup_constrain_devices(struct cgroup_step *cg, const char *const *files, size_t n)
{
	if (!cg || cg->version == 0 || !cg->constrain_devices)
		return 0;
	const char *dir = cg->step[cg->version == 1 ? CG_DEVICES : CG_V2];
	if (!dir)
		return -1;   /* v1 without the devices controller: said at creation */
	return cg_constrain_dir(cg, dir, files, n);
}

static char *cg_task_dir(const char *step_dir, uint32_t task_id);

int cgroup_constrain_task_devices(struct cgroup_step *cg, uint32_t task_id,
				  const char *const *files, size_t n)
{
	if (!cg || cg->version == 0 || !cg->constrain_devices)
		return 0;
	const char *step = cg->step[cg->version == 1 ? CG_DEVICES : CG_V2];
	if (!step)
		return -1;
	char *dir = cg_task_dir(step, task_id);
	int rc = -1;
	if (cg_mkdir(dir) < 0)
		log_error("cgroup: cannot create %s: %s: the task's devices are its step's", dir,
			  strerror(errno));
	else
		rc = cg_constrain_dir(cg, dir, files, n);
	free(dir);
	return rc;
}

/* The name a directory may carry: no '/', not "." or "..". */
static char *cg_safe_name(const char *s)
{
	char *n = xstrdup(s && *s ? s : "unknown");
	for (char *p = n; *p; p++)
		if (*p == '/' || isspace((unsigned char)*p))
			*p = '_';
	if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		n[0] = '_';
	return n;
}

static uint64_t cg_percent_of_mb(uint64_t mb, double percent)
{
	return (uint64_t)((double)mb * 1024 * 1024 * percent / 100.0);
}

/* v1 memory limits of the step.  memsw is RAM plus swap, so AllowedSwapSpace
 * comes on top of the RAM limit; with ConstrainSwapSpace alone RAM and swap
 * together are bounded (memsw may not be below limit_in_bytes, so both get
 * it). */
static void cg_v1_memory_limits(const char *dir, const struct cgroup_conf *cc, uint64_t mem_mb)
{
	uint64_t ram = cg_percent_of_mb(mem_mb, cc->allowed_ram);
	uint64_t memsw = ram + cg_percent_of_mb(mem_mb, cc->allowed_swap);
	bool has_memsw = cg_exists(dir, "memory.memsw.limit_in_bytes");
	if (cc->constrain_swap && !has_memsw)
		log_info("cgroup: this kernel has no memory.memsw.limit_in_bytes (swap "
			 "accounting is off): ConstrainSwapSpace not applied");
	uint64_t limit = cc->constrain_ram ? ram : memsw;
	if ((cc->constrain_ram || (cc->constrain_swap && has_memsw)) &&
	    cg_write(dir, "memory.limit_in_bytes", "%llu", (unsigned long long)limit) < 0)
		log_error("cgroup: cannot set memory.limit_in_bytes of %s to %llu: %s", dir,
			  (unsigned long long)limit, strerror(errno));
	if (cc->constrain_swap && has_memsw &&
	    cg_write(dir, "memory.memsw.limit_in_bytes", "%llu", (unsigned long long)memsw) < 0)
		log_error("cgroup: cannot set memory.memsw.limit_in_bytes of %s to %llu: %s", dir,
			  (unsigned long long)memsw, strerror(errno));
}

static int cg_v1_create(struct cgroup_step *cg, const struct cgroup_conf *cc, const char *node,
			uint32_t job_id, const char *step, const struct cgroup_limits *lim,
			char *why, size_t whylen)
{
	bool want[CG_NCTL] = { true, true, true, cc->constrain_cores, cc->constrain_devices };
	char fail[CG_NCTL][512];
	int made = 0;
	for (int c = 0; c < CG_NCTL; c++) {
		fail[c][0] = '\0';
		if (!want[c])
			continue;
		char *mount = xasprintf("%s/%s", cc->mountpoint, cg_ctl_names[c]);
		if (!cg_fs_is(mount, CGROUP_SUPER_MAGIC)) {
			snprintf(fail[c], sizeof(fail[c]), "no %s controller mounted at %s",
				 cg_ctl_names[c], mount);
			free(mount);
			continue;
		}
		char *own = cg_own_path(cg_ctl_names[c]);
		char *root = xasprintf("%s%s", mount, own);
		free(own);
		free(mount);
		if (cg_make_levels(root, node, job_id, step,
				   c == CG_CPUSET ? CG_V1_CPUSET : c == CG_MEMORY ? CG_V1_MEMORY : CG_PLAIN,
				   &cg->job[c],
				   &cg->step[c]) < 0) {
			snprintf(fail[c], sizeof(fail[c]), "cannot create %s/herd/%s/job_%u/step_%s: %s",
				 root, node, job_id, step, strerror(errno));
		} else {
			made++;
		}
		free(root);
	}
	/* Nothing made: the caller logs one line with the first reason.  Some
	 * made: each missing one is worth its own line. */
	for (int c = 0; c < CG_NCTL; c++) {
		if (!fail[c][0])
			continue;
		if (made == 0) {
			snprintf(why, whylen, "%s", fail[c]);
			return -1;
		}
		static const char *const lost[CG_NCTL] = {
			"cgroup_freeze does nothing", "no CPU usage from cgroups",
			"ConstrainRAMSpace not applied and no memory usage from cgroups",
			"ConstrainCores not applied", "ConstrainDevices not applied" };
		log_error("cgroup: %s: %s", fail[c], lost[c]);
	}
	if (made == 0) {
		snprintf(why, whylen, "no cgroup v1 controller at %s", cc->mountpoint);
		return -1;
	}
	if (cg->step[CG_MEMORY] && lim && lim->mem_mb)
		cg_v1_memory_limits(cg->step[CG_MEMORY], cc, lim->mem_mb);
	if (cg->step[CG_CPUSET] && lim && lim->cpus && *lim->cpus) {
		if (cg_write(cg->step[CG_CPUSET], "cpuset.cpus", "%s", lim->cpus) < 0)
			log_error("cgroup: cannot set cpuset.cpus of %s to %s: %s",
				  cg->step[CG_CPUSET], lim->cpus, strerror(errno));
	}
	return 0;
}

/* Make levels[0..3] below root, each level handing the memory and cpuset
 * controllers down to the next (a level's subtree_control), the step to its
 * task_T.  A parent that cannot hand one down (it holds processes and is not
 * the root: EBUSY) clears its flag.  -1 with errno when a mkdir fails. */
static int cg_v2_make_levels(const char *root, char *const levels[4], bool *mem, bool *cpuset)
{
	const char *parent = root;
	for (int i = 0; i <= 4; i++) {
		/* mkdir first, so an unwritable hierarchy fails there, once. */
		if (i < 4 && cg_mkdir(levels[i]) < 0)
			return -1;
		static const char *const names[2] = { "memory", "cpuset" };
		bool *flags[2] = { mem, cpuset };
		for (int k = 0; k < 2; k++)
			if (*flags[k] && cg_write(parent, "cgroup.subtree_control", "+%s",
						  names[k]) < 0) {
				log_error("cgroup: cannot enable the %s controller in %s: %s",
					  names[k], parent, strerror(errno));
				*flags[k] = false;
			}
		if (i < 4)
			parent = levels[i];
	}
	return 0;
}

static int cg_v2_create(struct cgroup_step *cg, const struct cgroup_conf *cc, const char *node,
			uint32_t job_id, const char *step, const struct cgroup_limits *lim,
			char *why, size_t whylen)
{
	char *own = cg_own_path(NULL);
	char *root = xasprintf("%s%s", cc->mountpoint, own);
	free(own);
	char ctls[1024] = "";
	if (cg_read(root, "cgroup.controllers", ctls, sizeof(ctls)) < 0) {
		snprintf(why, whylen, "%s has no cgroup.controllers", root);
		free(root);
		return -1;
	}
	/* Controllers are given to children level by level (subtree_control);
	 * freeze, cgroup.procs and cpu.stat's usage are the core's, without
	 * any.  cpu is not needed: cpu.stat's usage_usec is always there. */
	bool has_mem = false, has_cpuset = false;
	char *save = NULL;
	for (char *t = strtok_r(ctls, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		has_mem |= strcmp(t, "memory") == 0;
		has_cpuset |= strcmp(t, "cpuset") == 0;
	}
	has_cpuset &= cc->constrain_cores;
	char *levels[4];
	levels[0] = xasprintf("%s/herd", root);
	levels[1] = xasprintf("%s/%s", levels[0], node);
	levels[2] = xasprintf("%s/job_%u", levels[1], job_id);
	levels[3] = xasprintf("%s/step_%s", levels[2], step);
	int rc = 0;
	for (int attempt = 0; attempt < 3; attempt++) {   /* see cg_make_levels */
		rc = cg_v2_make_levels(root, levels, &has_mem, &has_cpuset);
		if (rc == 0 || errno != ENOENT)
			break;
	}
	if (rc < 0)
		snprintf(why, whylen, "cannot create %s: %s", levels[3], strerror(errno));
	free(levels[0]);
	free(levels[1]);
	free(root);
	if (rc < 0) {
		free(levels[2]);
		free(levels[3]);
		return -1;
	}
	cg->job[CG_V2] = levels[2];
	cg->step[CG_V2] = levels[3];
	cg->v2_memory = has_mem;
	cg->v2_cpuset = has_cpuset;
	const char *s = cg->step[CG_V2];
	if ((cc->constrain_ram || cc->constrain_swap) && lim && lim->mem_mb && !has_mem)
		log_error("cgroup: no memory controller in %s: Constrain%sSpace not applied",
			  cc->mountpoint, cc->constrain_ram ? "RAM" : "Swap");
	if (has_mem && lim && lim->mem_mb) {
		uint64_t ram = cg_percent_of_mb(lim->mem_mb, cc->allowed_ram);
		if (cc->constrain_ram &&
		    cg_write(s, "memory.max", "%llu", (unsigned long long)ram) < 0)
			log_error("cgroup: cannot set memory.max of %s: %s", s, strerror(errno));
		/* v2's swap.max is the swap alone, not RAM plus swap as v1's memsw. */
		if (cc->constrain_swap) {
			uint64_t sw = cg_percent_of_mb(lim->mem_mb, cc->allowed_swap);
			if (!cg_exists(s, "memory.swap.max"))
				log_info("cgroup: this kernel has no memory.swap.max: "
					 "ConstrainSwapSpace not applied");
			else if (cg_write(s, "memory.swap.max", "%llu", (unsigned long long)sw) < 0)
				log_error("cgroup: cannot set memory.swap.max of %s: %s", s,
					  strerror(errno));
		}
	}
	if (cc->constrain_cores && lim && lim->cpus && *lim->cpus) {
		if (!has_cpuset)
			log_error("cgroup: no cpuset controller in %s: ConstrainCores not applied",
				  cc->mountpoint);
		else if (cg_write(s, "cpuset.cpus", "%s", lim->cpus) < 0)
			log_error("cgroup: cannot set cpuset.cpus of %s to %s: %s", s, lim->cpus,
				  strerror(errno));
	}
	return 0;
}

struct cgroup_step *cgroup_step_create(const struct cgroup_conf *cc, const char *node,
				       uint32_t job_id, const char *step,
				       const struct cgroup_limits *lim)
{
	struct cgroup_step *cg = xmalloc(sizeof(*cg));
	char why[512] = "";
	struct cgroup_conf defaults;
	bool own_defaults = false;
	if (!cc) {
		cc_defaults(&defaults);
		cc = &defaults;
		own_defaults = true;
	}
	const char *plugin = cc->plugin ? cc->plugin : "autodetect";
	const char *mnt = cc->mountpoint ? cc->mountpoint : "/sys/fs/cgroup";
	struct cgroup_conf eff = *cc;
	eff.mountpoint = (char *)mnt;
	int version = 0;
	if (strcasecmp(plugin, "disabled") == 0)
		snprintf(why, sizeof(why), "CgroupPlugin=disabled");
	else if (cg_fs_is(mnt, CGROUP2_SUPER_MAGIC))
		version = 2;
	else {
		for (int c = 0; c < CG_NCTL && !version; c++) {
			char *probe = xasprintf("%s/%s", mnt, cg_ctl_names[c]);
			if (cg_fs_is(probe, CGROUP_SUPER_MAGIC))
				version = 1;
			free(probe);
		}
		if (!version)
			snprintf(why, sizeof(why), "no cgroup filesystem at %s", mnt);
	}
	if (version && strcasecmp(plugin, "autodetect") &&
	    strcasecmp(plugin, version == 1 ? "cgroup/v1" : "cgroup/v2")) {
		snprintf(why, sizeof(why), "CgroupPlugin=%s but %s is cgroup v%d", plugin, mnt,
			 version);
		version = 0;
	}
	if (version) {
		char *safe_node = cg_safe_name(node), *safe_step = cg_safe_name(step);
		cg->version = version;
		cg->constrain_devices = cc->constrain_devices;
		int rc = (version == 1 ? cg_v1_create : cg_v2_create)(cg, &eff, safe_node, job_id,
								       safe_step, lim, why,
								       sizeof(why));
		free(safe_node);
		free(safe_step);
		if (rc < 0) {
			for (int c = 0; c < CG_NCTL; c++) {
				free(cg->job[c]);
				free(cg->step[c]);
				cg->job[c] = cg->step[c] = NULL;
			}
			cg->version = 0;
		}
	}
	if (cg->version == 0) {
		if (cc->constrain_cores || cc->constrain_ram || cc->constrain_swap ||
		    cc->constrain_devices)
			log_error("cgroups not usable (%s): processes are tracked without them, "
				  "and cgroup.conf's Constrain* limits are not applied", why);
		else
			log_info("cgroups not usable (%s): processes are tracked without them", why);
	} else {
		log_debug("cgroup: job %u step %s in cgroup v%d", job_id, step, cg->version);
	}
	if (own_defaults)
		cgroup_conf_free(&defaults);
	return cg;
}

int cgroup_version(const struct cgroup_step *cg)
{
	return cg ? cg->version : 0;
}

static char *cg_task_dir(const char *step_dir, uint32_t task_id)
{
	return xasprintf("%s/task_%u", step_dir, task_id);
}

int cgroup_add_task(struct cgroup_step *cg, pid_t pid, uint32_t task_id)
{
	if (!cg || cg->version == 0)
		return 0;
	int rc = 0;
	bool known = false;
	for (size_t i = 0; i < cg->ntasks; i++)
		known |= cg->tasks[i] == task_id;
	if (!known) {
		cg->tasks = xrealloc(cg->tasks, (cg->ntasks + 1) * sizeof(*cg->tasks));
		cg->tasks[cg->ntasks++] = task_id;
	}
	for (int c = 0; c < CG_NCTL; c++) {
		if (!cg->step[c])
			continue;
		char *dir = cg_task_dir(cg->step[c], task_id);
		bool ok = cg_mkdir(dir) == 0;
		if (ok && cg->version == 1 && c == CG_CPUSET)
			ok = cg_cpuset_inherit(dir) == 0;
		if (ok)
			ok = cg_write(dir, "cgroup.procs", "%ld", (long)pid) == 0;
		if (!ok) {
			log_error("cgroup: cannot put task %u (pid %ld) into %s: %s", task_id,
				  (long)pid, dir, strerror(errno));
			rc = -1;
		}
		free(dir);
	}
	return rc;
}

static void cg_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int cgroup_freeze(struct cgroup_step *cg, bool frozen)
{
	if (!cg || cg->version == 0)
		return 0;
	const char *dir = cg->step[CG_FREEZER];
	if (!dir) {
		errno = ENOTSUP;
		return -1;   /* v1 without freezer: said once at creation */
	}
	char buf[64];
	if (cg->version == 1) {
		const char *want = frozen ? "FROZEN" : "THAWED";
		/* A freeze passes through FREEZING until every task stopped;
		 * writing FROZEN again retries the ones that were busy. */
		for (int i = 0; i < 500; i++) {
			if (cg_write(dir, "freezer.state", "%s", want) < 0) {
				log_error("cgroup: cannot write %s to %s/freezer.state: %s", want,
					  dir, strerror(errno));
				return -1;
			}
			if (cg_read(dir, "freezer.state", buf, sizeof(buf)) > 0 &&
			    strncmp(buf, want, strlen(want)) == 0)
				return 0;
			cg_sleep_ms(10);
		}
	} else {
		if (cg_write(dir, "cgroup.freeze", "%d", frozen ? 1 : 0) < 0) {
			log_error("cgroup: cannot write cgroup.freeze of %s: %s", dir,
				  strerror(errno));
			return -1;
		}
		for (int i = 0; i < 500; i++) {
			uint64_t v;
			if (cg_read_key(dir, "cgroup.events", "frozen", &v) == 0 &&
			    (v != 0) == frozen)
				return 0;
			cg_sleep_ms(10);
		}
	}
	log_error("cgroup: %s did not become %s within 5 seconds", dir,
		  frozen ? "frozen" : "thawed");
	errno = ETIMEDOUT;
	return -1;
}

static void cg_add_procs(const char *dir, pid_t **pids, size_t *n, size_t *cap)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	long pid;
	while (fscanf(f, "%ld", &pid) == 1) {
		bool dup = false;
		for (size_t i = 0; i < *n && !dup; i++)
			dup = (*pids)[i] == (pid_t)pid;
		if (dup)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*pids = xrealloc(*pids, *cap * sizeof(**pids));
		}
		(*pids)[(*n)++] = (pid_t)pid;
	}
	fclose(f);
}

pid_t *cgroup_pids(struct cgroup_step *cg, size_t *n)
{
	*n = 0;
	pid_t *pids = NULL;
	size_t cap = 0;
	if (!cg || cg->version == 0)
		return NULL;
	/* One hierarchy is enough: every task joins all of them. */
	const char *step = NULL;
	for (int c = 0; c < CG_NCTL && !step; c++)
		step = cg->step[c];
	if (!step)
		return NULL;
	cg_add_procs(step, &pids, n, &cap);
	/* Every child directory, not only the tasks we made: a task may have
	 * made its own (a nested cgroup is still the step's). */
	DIR *d = opendir(step);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		char *sub = xasprintf("%s/%s", step, de->d_name);
		cg_add_procs(sub, &pids, n, &cap);
		free(sub);
	}
	if (d)
		closedir(d);
	return pids;
}

/* The oom_kill counts of step and of its children, summed into *kills;
 * returns whether this kernel has the count at all. */
static bool cg_v1_oom_kills(const char *step, uint64_t *kills)
{
	uint64_t v;
	*kills = 0;
	if (cg_read_key(step, "memory.oom_control", "oom_kill", &v) < 0)
		return false;
	*kills = v;
	DIR *d = opendir(step);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		char *sub = xasprintf("%s/%s", step, de->d_name);
		if (cg_read_key(sub, "memory.oom_control", "oom_kill", &v) == 0)
			*kills += v;
		free(sub);
	}
	if (d)
		closedir(d);
	return true;
}

int cgroup_usage(struct cgroup_step *cg, struct cgroup_usage *u)
{
	memset(u, 0, sizeof(*u));
	if (!cg || cg->version == 0)
		return 0;
	uint64_t v;
	if (cg->version == 1) {
		if (cg->step[CG_CPUACCT] && cg_read_u64(cg->step[CG_CPUACCT], "cpuacct.usage", &v) == 0)
			u->cpu_time_us = v / 1000;
		const char *m = cg->step[CG_MEMORY];
		if (m) {
			if (cg_read_u64(m, "memory.max_usage_in_bytes", &v) == 0)
				u->max_rss_kb = v / 1024;
			/* oom_kill in oom_control since Linux 4.13; v1 counts
			 * it in the victim's own cgroup (task_T), not in the
			 * step whose limit was hit, so every child is read.
			 * Before 4.13, a failed charge (failcnt) is the sign. */
			if (cg_v1_oom_kills(m, &v))
				u->oom = v > 0;
			else if (cg_read_u64(m, "memory.failcnt", &v) == 0)
				u->oom = v > 0;
		}
		return 0;
	}
	const char *s = cg->step[CG_V2];
	if (cg_read_key(s, "cpu.stat", "usage_usec", &v) == 0)
		u->cpu_time_us = v;
	if (cg->v2_memory) {
		if (cg_read_u64(s, "memory.peak", &v) == 0)
			cg->rss_seen = v;
		else if (cg_read_u64(s, "memory.current", &v) == 0 && v > cg->rss_seen)
			cg->rss_seen = v;
		u->max_rss_kb = cg->rss_seen / 1024;
		if (cg_read_key(s, "memory.events", "oom_kill", &v) == 0)
			u->oom = v > 0;
	}
	return 0;
}

static void cg_rmdir(const char *dir, bool quiet_busy)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return;
	if (quiet_busy && (errno == EBUSY || errno == ENOTEMPTY))
		return;
	log_error("cgroup: cannot remove %s: %s", dir, strerror(errno));
}

void cgroup_step_destroy(struct cgroup_step *cg)
{
	if (!cg)
		return;
	int saved = errno;
	for (int c = 0; c < CG_NCTL; c++) {
		if (!cg->step[c])
			continue;
		/* Directories a task made below the step go too (deepest
		 * first is not needed: tasks do not nest in practice, and a
		 * nested one makes its parent's rmdir fail, which is logged). */
		DIR *d = opendir(cg->step[c]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.' || de->d_type != DT_DIR)
				continue;
			char *sub = xasprintf("%s/%s", cg->step[c], de->d_name);
			cg_rmdir(sub, false);
			free(sub);
		}
		if (d)
			closedir(d);
		cg_rmdir(cg->step[c], false);
		/* Another step of the job may still be there. */
		cg_rmdir(cg->job[c], true);
		free(cg->step[c]);
		free(cg->job[c]);
	}
	free(cg->tasks);
	free(cg);
	errno = saved;
}
