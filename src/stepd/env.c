/* Slurm's batch environment.  The variable list follows Slurm's sbatch(1)
 * "OUTPUT ENVIRONMENT VARIABLES"; values come from the launch only, so the
 * same inputs always give the same environment (unit-tested). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "common/xmalloc.h"
#include "stepd/env.h"

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

const char *env_get(const struct env *e, const char *key)
{
	ssize_t i = env_find(e, key, strlen(key));
	return i < 0 ? NULL : e->v[i] + strlen(key) + 1;
}

void env_batch(struct env *e, const struct launch *l, const struct env_node *node)
{
	for (size_t i = 0; i < l->envc; i++)
		env_put(e, l->env[i]);

	env_setf(e, "SLURM_JOB_ID", "%u", l->job_id);
	env_setf(e, "SLURM_JOBID", "%u", l->job_id);
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
	env_set(e, "SLURM_NODEID", "0");
	env_set(e, "SLURM_PROCID", "0");
	env_set(e, "SLURM_LOCALID", "0");
	env_set(e, "SLURM_GTIDS", "0");
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
	env_set(e, "ENVIRONMENT", "BATCH");

	/* The login variables come from passwd only when the submitter's
	 * environment lacks them (e.g. sbatch --export=NONE). */
	if (!env_get(e, "HOME") && node->home)
		env_set(e, "HOME", node->home);
	if (!env_get(e, "USER"))
		env_set(e, "USER", l->user);
	if (!env_get(e, "LOGNAME"))
		env_set(e, "LOGNAME", l->user);
	if (!env_get(e, "SHELL") && node->shell)
		env_set(e, "SHELL", node->shell);
}
