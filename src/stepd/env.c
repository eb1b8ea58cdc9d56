/* Slurm's batch environment.  The variable list follows Slurm's sbatch(1)
 * "OUTPUT ENVIRONMENT VARIABLES"; values come from the launch only, so the
 * same inputs always give the same environment (unit-tested). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "common/strbuf.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "stepd/env.h"
#include "stepd/gpu_env.h"
#include "stepd/stepd.h"

void env_init(struct env *e)
{
	e->n = 0;
	e->cap = 32;
	e->v = xmalloc(e->cap * sizeof(char *));
}

void env_free(struct env *e)
{
	if (!e->v)
		return;
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = e->cap = 0;
}

static ssize_t env_find(const struct env *e, const char *key, size_t keylen)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->v[i], key, keylen) && e->v[i][keylen] == '=')
			return i;
	return -1;
}

static void env_store(struct env *e, const char *key, size_t keylen, char *entry)
{
	ssize_t i = env_find(e, key, keylen);

	if (i >= 0) {
		free(e->v[i]);
		e->v[i] = entry;
		return;
	}
	if (e->n + 2 > e->cap) {
		e->cap *= 2;
		e->v = xrealloc(e->v, e->cap * sizeof(char *));
	}
	e->v[e->n++] = entry;
	e->v[e->n] = NULL;
}

void env_set(struct env *e, const char *key, const char *value)
{
	env_store(e, key, strlen(key), xasprintf("%s=%s", key, value ? value : ""));
}

void env_setf(struct env *e, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *value;

	va_start(ap, fmt);
	value = xvasprintf(fmt, ap);
	va_end(ap);
	env_set(e, key, value);
	free(value);
}

void env_put(struct env *e, const char *entry)
{
	const char *eq = strchr(entry, '=');
	if (!eq || eq == entry)
		return;
	env_store(e, entry, eq - entry, xstrdup(entry));
}

void env_unset(struct env *e, const char *key)
{
	ssize_t i = env_find(e, key, strlen(key));
	if (i < 0)
		return;
	free(e->v[i]);
	memmove(&e->v[i], &e->v[i + 1], (e->n - i) * sizeof(char *));   /* the NULL too */
	e->n--;
}

const char *env_get(const struct env *e, const char *key)
{
	ssize_t i = env_find(e, key, strlen(key));
	return i < 0 ? NULL : e->v[i] + strlen(key) + 1;
}

/* The job's variables, the same in the batch shell and in every step's
 * tasks (a step overrides the counts that describe the step). */
static void env_job(struct env *e, const struct launch *l, const struct env_node *node)
{
	/* a het job's component: the leader's ID (Slurm), its own in
	 * SLURM_JOB_ID_HET_GROUP_N */
	long long id = l->het_job_id > 0 && l->het_job_id <= UINT32_MAX ? l->het_job_id : l->job_id;
	env_setf(e, "SLURM_JOB_ID", "%lld", id);
	env_setf(e, "SLURM_JOBID", "%lld", id);
	env_set(e, "SLURM_JOB_NAME", l->name);
	env_set(e, "SLURM_JOB_USER", l->user);
	env_setf(e, "SLURM_JOB_UID", "%d", l->uid);
	env_setf(e, "SLURM_JOB_GID", "%d", l->gid);
	env_set(e, "SLURM_JOB_NODELIST", l->nodes);
	env_set(e, "SLURM_NODELIST", l->nodes);
	env_setf(e, "SLURM_JOB_NUM_NODES", "%d", l->num_nodes);
	env_setf(e, "SLURM_NNODES", "%d", l->num_nodes);
	if (l->ntasks > 0) {
		env_setf(e, "SLURM_NTASKS", "%d", l->ntasks);
		env_setf(e, "SLURM_NPROCS", "%d", l->ntasks);
	}
	env_setf(e, "SLURM_CPUS_ON_NODE", "%d", l->cpus_on_node);
	if (l->cpus_per_task > 0)
		env_setf(e, "SLURM_CPUS_PER_TASK", "%d", l->cpus_per_task);
	if (l->mem_mb > 0)
		env_setf(e, "SLURM_MEM_PER_NODE", "%lld", (long long)l->mem_mb);
	if (l->mem_per_cpu > 0)
		env_setf(e, "SLURM_MEM_PER_CPU", "%lld", (long long)l->mem_per_cpu);
	if (l->ntasks_per_node > 0)
		env_setf(e, "SLURM_NTASKS_PER_NODE", "%d", l->ntasks_per_node);
	env_set(e, "SLURM_SUBMIT_DIR", l->cwd);
	env_set(e, "SLURM_SUBMIT_HOST", l->submit_host);
	env_setf(e, "SLURM_UMASK", "%04o", l->umask);
	if (l->dependency && l->dependency[0])
		env_set(e, "SLURM_JOB_DEPENDENCY", l->dependency);
	env_set(e, "SLURM_JOB_PARTITION", l->partition);
	if (l->account && l->account[0])
		env_set(e, "SLURM_JOB_ACCOUNT", l->account);
	if (l->qos && l->qos[0])
		env_set(e, "SLURM_JOB_QOS", l->qos);
	if (l->reservation && l->reservation[0])
		env_set(e, "SLURM_JOB_RESERVATION", l->reservation);
	if (l->tasks_per_node && l->tasks_per_node[0])
		env_set(e, "SLURM_TASKS_PER_NODE", l->tasks_per_node);
	if (l->cpus_per_node && l->cpus_per_node[0])
		env_set(e, "SLURM_JOB_CPUS_PER_NODE", l->cpus_per_node);
	else if (l->num_nodes > 1)
		env_setf(e, "SLURM_JOB_CPUS_PER_NODE", "%d(x%d)", l->cpus_on_node, l->num_nodes);
	else
		env_setf(e, "SLURM_JOB_CPUS_PER_NODE", "%d", l->cpus_on_node);
	env_set(e, "SLURMD_NODENAME", node->node);
	env_set(e, "SLURM_TOPOLOGY_ADDR", node->node);
	env_set(e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	env_set(e, "SLURM_CLUSTER_NAME", l->cluster);
	env_setf(e, "SLURM_RESTART_COUNT", "%d", l->restarts);
	if (l->array_job_id) {
		env_setf(e, "SLURM_ARRAY_JOB_ID", "%lld", (long long)l->array_job_id);
		env_setf(e, "SLURM_ARRAY_TASK_ID", "%lld", (long long)l->array_task_id);
		env_setf(e, "SLURM_ARRAY_TASK_COUNT", "%lld", (long long)l->array_task_count);
		env_setf(e, "SLURM_ARRAY_TASK_MIN", "%lld", (long long)l->array_task_min);
		env_setf(e, "SLURM_ARRAY_TASK_MAX", "%lld", (long long)l->array_task_max);
		env_setf(e, "SLURM_ARRAY_TASK_STEP", "%lld", (long long)l->array_task_step);
	}
	if (l->start_time > 0) {
		env_setf(e, "SLURM_JOB_START_TIME", "%lld", (long long)l->start_time);
		if (l->time_limit >= 0)
			env_setf(e, "SLURM_JOB_END_TIME", "%lld",
				 (long long)(l->start_time + l->time_limit));
	}
	if (node->conf_path) {
		env_set(e, "SLURM_CONF", node->conf_path);
		/* our commands inside the job must reach this cluster */
		env_set(e, "HERD_CONF", node->conf_path);
	}
}

/* SLURM_DISTRIBUTION as Slurm writes it ("plane" and SLURM_DIST_PLANESIZE). */
static void env_distribution(struct env *e, const char *given)
{
	struct dist d;
	char value[96];

	if (!given || !*given || dist_parse(given, &d, NULL) < 0)
		return;
	dist_env(&d, value, sizeof(value));
	if (!value[0])
		return;   /* "*" */
	env_set(e, "SLURM_DISTRIBUTION", value);
	if (d.node == DIST_NODE_PLANE)
		env_setf(e, "SLURM_DIST_PLANESIZE", "%d", d.plane);
}

/* -m, --ntasks-per-socket/core, --hint, --mem-bind: the batch shell gets
 * them as sbatch(1) lists (--mem-bind as typed); a step's tasks as srun(1)
 * does (--mem-bind as SLURM_MEM_BIND and its parts). */
static void env_taskopts(struct env *e, const struct launch_taskopts *o, const char *dist, bool step)
{
	unsigned hint = 0;
	struct mem_bind mb;
	char value[sizeof(mb.list) + 64];

	env_distribution(e, dist);
	if (o->ntasks_per_socket > 0)
		env_setf(e, "SLURM_NTASKS_PER_SOCKET", "%d", o->ntasks_per_socket);
	if (o->ntasks_per_core > 0)
		env_setf(e, "SLURM_NTASKS_PER_CORE", "%d", o->ntasks_per_core);
	if (o->hint && hint_parse(o->hint, &hint, NULL) == 0) {
		env_set(e, "SLURM_HINT", o->hint);
		/* Slurm: these hints run one thread per core */
		if (hint & (HINT_NOMULTITHREAD | HINT_COMPUTE_BOUND | HINT_MEMORY_BOUND) &&
		    !(hint & HINT_MULTITHREAD))
			env_set(e, "SLURM_THREADS_PER_CORE", "1");
	}
	if (!o->mem_bind || mem_bind_parse(o->mem_bind, &mb, NULL) < 0)
		return;
	if (!step) {
		env_set(e, "SLURM_MEM_BIND", o->mem_bind);
		env_set(e, "SLURM_MEM_BIND_VERBOSE", mb.verbose ? "verbose" : "quiet");
		return;
	}
	mem_bind_env(&mb, value, sizeof(value));
	env_set(e, "SLURM_MEM_BIND", value);
	env_set(e, "SLURM_MEM_BIND_LIST", mb.type == MEM_BIND_MAP || mb.type == MEM_BIND_MASK ? mb.list : "");
	env_set(e, "SLURM_MEM_BIND_TYPE", mem_bind_type_name(&mb));
	env_set(e, "SLURM_MEM_BIND_VERBOSE", mb.verbose ? "verbose" : "quiet");
	if (mb.prefer)
		env_set(e, "SLURM_MEM_BIND_PREFER", "prefer");
	if (mb.sort)
		env_set(e, "SLURM_MEM_BIND_SORT", "sort");
	else if (mb.nosort)
		env_set(e, "SLURM_MEM_BIND_SORT", "nosort");
}

/* The login variables come from passwd only when the submitter's
 * environment lacks them (e.g. sbatch --export=NONE). */
static void env_login(struct env *e, const struct launch *l, const struct env_node *node)
{
	if (!env_get(e, "HOME") && node->home)
		env_set(e, "HOME", node->home);
	if (!env_get(e, "USER"))
		env_set(e, "USER", l->user);
	if (!env_get(e, "LOGNAME"))
		env_set(e, "LOGNAME", l->user);
	if (!env_get(e, "SHELL") && node->shell)
		env_set(e, "SHELL", node->shell);
}

/* The job's MPS control daemon for the process's mps GPU, when herdd
 * started one (its directory is there: herdd makes it before the launch
 * and removes it when the start fails): its pipe and log directories, as
 * NVIDIA's clients find them (doc/gres.md section 4). */
static void env_mps(struct env *e, const struct launch *l, const struct launch_gres *list,
		    size_t n, const struct env_node *node)
{
	int gpu = gpu_mps_gpu(list, n);
	char name[64];
	struct stat st;

	if (gpu < 0 || !node->spool)
		return;
	snprintf(name, sizeof(name), STEPD_MPS_DIR_FMT, (unsigned)l->job_id, gpu);
	char *dir = xasprintf("%s/%s", node->spool, name);
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		env_setf(e, "CUDA_MPS_PIPE_DIRECTORY", "%s/pipe", dir);
		env_setf(e, "CUDA_MPS_LOG_DIRECTORY", "%s/log", dir);
		/* NVIDIA: the MPS server shows a client the daemon's visible
		 * devices renumbered from 0 (the daemon has this GPU alone); a
		 * client keeping the GPU's global index fails */
		if (env_get(e, "CUDA_VISIBLE_DEVICES"))
			env_set(e, "CUDA_VISIBLE_DEVICES", "0");
	}
	free(dir);
}

void env_batch(struct env *e, const struct launch *l, const struct env_node *node)
{
	for (size_t i = 0; i < l->envc; i++)
		env_put(e, l->env[i]);
	env_job(e, l, node);
	env_set(e, "SLURM_NODEID", "0");
	env_set(e, "SLURM_PROCID", "0");
	env_set(e, "SLURM_LOCALID", "0");
	env_set(e, "SLURM_GTIDS", "0");
	env_set(e, "ENVIRONMENT", "BATCH");
	env_taskopts(e, &l->opts, l->opts.distribution, false);
	gpu_env_batch(e, l, node->constrain_devices);
	env_mps(e, l, l->gres, l->ngres, node);
	env_login(e, l, node);
}

/* srun(1) "OUTPUT ENVIRONMENT VARIABLES": srun's environment, the job's
 * variables, then the step's: the counts (SLURM_NTASKS, SLURM_NNODES,
 * SLURM_NODELIST, SLURM_TASKS_PER_NODE) describe the step, the SLURM_JOB_*
 * ones the job. */
void env_step(struct env *e, const struct launch *l, const struct env_node *node,
	      const struct env_task *t)
{
	const struct launch_step *s = l->step;
	const char *srun_umask = NULL;
	struct strbuf gtids = { 0 };

	for (size_t i = 0; i < s->envc; i++)
		env_put(e, s->env[i]);
	srun_umask = env_get(e, "SLURM_UMASK");
	char *keep_umask = srun_umask ? xstrdup(srun_umask) : NULL;
	env_job(e, l, node);
	if (keep_umask)   /* srun's own umask, as srun exports it */
		env_set(e, "SLURM_UMASK", keep_umask);
	free(keep_umask);

	env_setf(e, "SLURM_STEP_ID", "%u", s->step_id);
	env_setf(e, "SLURM_STEPID", "%u", s->step_id);
	env_set(e, "SLURM_STEP_NODELIST", s->step_nodes);
	env_setf(e, "SLURM_STEP_NUM_NODES", "%d", s->step_num_nodes);
	env_setf(e, "SLURM_STEP_NUM_TASKS", "%d", s->step_num_tasks);
	env_set(e, "SLURM_STEP_TASKS_PER_NODE", s->step_tasks_per_node);
	env_set(e, "SLURM_NODELIST", s->step_nodes);
	env_setf(e, "SLURM_NNODES", "%d", s->step_num_nodes);
	env_setf(e, "SLURM_NTASKS", "%d", s->step_num_tasks);
	env_setf(e, "SLURM_NPROCS", "%d", s->step_num_tasks);
	env_set(e, "SLURM_TASKS_PER_NODE", s->step_tasks_per_node);
	if (s->cpus_per_task > 1 || l->cpus_per_task > 0)
		env_setf(e, "SLURM_CPUS_PER_TASK", "%d", s->cpus_per_task > 0 ? s->cpus_per_task : 1);
	if (s->mem_mb > 0 && l->mem_per_cpu <= 0)
		env_setf(e, "SLURM_MEM_PER_NODE", "%lld", (long long)s->mem_mb);
	env_set(e, "SLURM_DISTRIBUTION", s->distribution);
	env_taskopts(e, &s->opts, s->distribution, true);
	if (s->launch_addr[0])
		env_set(e, "SLURM_LAUNCH_NODE_IPADDR", s->launch_addr);
	if (s->resv_ports[0])
		env_set(e, "SLURM_STEP_RESV_PORTS", s->resv_ports);
	env_set(e, "SLURM_SRUN_COMM_HOST", s->launch_addr[0] ? s->launch_addr : s->io_host);
	env_setf(e, "SLURM_SRUN_COMM_PORT", "%d", s->io_port);
	if (!env_get(e, "SLURM_PRIO_PROCESS"))
		env_set(e, "SLURM_PRIO_PROCESS", "0");
	env_setf(e, "SLURM_NODEID", "%d", s->node_id);
	env_setf(e, "SLURM_PROCID", "%d", t->task_id);
	env_setf(e, "SLURM_LOCALID", "%d", t->local);
	strbuf_add(&gtids, "", 0);
	for (size_t i = 0; i < s->ntasks; i++) {
		char num[16];
		snprintf(num, sizeof(num), "%s%d", i ? "," : "", s->task_ids[i]);
		strbuf_adds(&gtids, num);
	}
	env_set(e, "SLURM_GTIDS", gtids.s);
	free(gtids.s);
	if (t->cpu_bind) {
		env_set(e, "SLURM_CPU_BIND", t->cpu_bind);
		env_set(e, "SLURM_CPU_BIND_TYPE", t->cpu_bind_type);
		env_set(e, "SLURM_CPU_BIND_LIST", t->cpu_bind_list);
		env_set(e, "SLURM_CPU_BIND_VERBOSE", t->cpu_bind_verbose);
	}
	gpu_env_task(e, l, node->constrain_devices, t->local, t->task_id, t->cpus, t->gpu_verbose,
		     t->gpu_verbose ? 512 : 0, t->gpu_warning, t->gpu_warning ? 256 : 0);
	env_mps(e, l, s->gres, s->ngres, node);
	env_login(e, l, node);
}
