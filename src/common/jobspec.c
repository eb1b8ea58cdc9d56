/* The JOBSPEC's keys (jobspec.h). */
#include <string.h>
#include "common/jobspec.h"
#include "common/parse.h"

#define REQ(k, t) { k, t, false, NULL, 0, 0 }
#define OPT(k, t) { k, t, true, NULL, 0, 0 }
/* an integer within [lo, hi] */
#define REQ_IN(k, lo, hi) { k, MF_INT, false, NULL, lo, hi }
#define OPT_IN(k, lo, hi) { k, MF_INT, true, NULL, lo, hi }
#define COUNT_MAX 1000000   /* nodes, CPUs, tasks per node: far above any cluster */

const struct msg_field jobspec_fields[] = {
	REQ("name", MF_STR), REQ("script", MF_STR), REQ("argv", MF_ARR_STR),
	REQ("env", MF_ARR_STR), REQ("cwd", MF_STR), REQ("stdout", MF_STR),
	REQ("stderr", MF_STR), REQ("stdin", MF_STR), REQ("partition", MF_STR),
	REQ_IN("nodes", 0, COUNT_MAX), REQ_IN("ntasks", 0, 100000000),
	REQ_IN("cpus_per_task", 0, COUNT_MAX), REQ_IN("mem_mb", 0, INT64_MAX),
	REQ("exclusive", MF_BOOL), REQ_IN("time_limit", TIME_NOT_GIVEN, INT64_MAX),
	REQ("hold", MF_BOOL), REQ("submit_host", MF_STR), REQ("umask", MF_INT),
	REQ("account", MF_STR), REQ("comment", MF_STR), OPT("command", MF_STR),
	OPT("array", MF_STR),
	OPT("dependency", MF_STR), OPT("begin_time", MF_INT), OPT("deadline", MF_INT),
	OPT("kill_on_invalid_dep", MF_BOOL),
	/* added later: optional, so older clients still submit */
	OPT("nice", MF_INT), OPT("requeue", MF_BOOL), OPT("mail_type", MF_STR),
	OPT("mail_user", MF_STR), OPT_IN("mem_per_cpu", 0, INT64_MAX),
	OPT_IN("ntasks_per_node", 0, COUNT_MAX),
	OPT("open_mode", MF_STR), OPT_IN("time_min", TIME_INFINITE, INT64_MAX),
	OPT_IN("signal", 0, 64), OPT_IN("signal_time", 0, 0xffff), OPT("signal_flags", MF_STR),
	OPT("qos", MF_STR),
	OPT("constraint", MF_STR), OPT("req_nodelist", MF_STR), OPT("exc_nodelist", MF_STR),
	OPT("test_only", MF_BOOL), OPT("alloc", MF_BOOL), OPT("reservation", MF_STR),
	/* issue 15: every option of sbatch, salloc and srun (cmd/jobopt.c).
	 * The controller acts on those its code knows and keeps the others. */
	OPT("wckey", MF_STR), OPT("licenses", MF_STR), OPT_IN("tmp_mb", 0, INT64_MAX),
	OPT("priority", MF_STR), OPT("no_kill", MF_BOOL), OPT("overcommit", MF_BOOL),
	OPT("oversubscribe", MF_BOOL), OPT("spread_job", MF_BOOL),
	OPT("use_min_nodes", MF_BOOL), OPT_IN("delay_boot", 0, INT64_MAX),
	OPT_IN("max_nodes", 0, COUNT_MAX), OPT_IN("mincpus", 0, COUNT_MAX),
	OPT_IN("sockets_per_node", 0, COUNT_MAX), OPT_IN("cores_per_socket", 0, COUNT_MAX),
	OPT_IN("threads_per_core", 0, COUNT_MAX), OPT("distribution", MF_STR),
	OPT_IN("ntasks_per_socket", 0, COUNT_MAX), OPT_IN("ntasks_per_core", 0, COUNT_MAX),
	OPT("hint", MF_STR), OPT("mem_bind", MF_STR), OPT("propagate", MF_STR),
	OPT("rlimits", MF_OBJ), OPT("get_user_env", MF_STR), OPT("container", MF_STR),
	OPT("cpu_freq", MF_STR), OPT("acctg_freq", MF_STR), OPT("batch_features", MF_STR),
	OPT("container_id", MF_STR), OPT("oom_kill_step", MF_BOOL), OPT("exclusive_mode", MF_STR), OPT("contiguous", MF_BOOL), OPT("cluster_constraint", MF_STR),
	OPT("burst_buffer", MF_STR), OPT("mcs_label", MF_STR), OPT("network", MF_STR),
	OPT("profile", MF_STR), OPT("power", MF_STR), OPT("prefer", MF_STR), OPT("reboot", MF_BOOL),
	OPT("wait_all_nodes", MF_BOOL), OPT_IN("uid", 0, INT64_MAX), OPT_IN("gid", 0, INT64_MAX),
	/* issue 16: generic resources (doc/gres.md), TRES form */
	OPT("tres_per_job", MF_STR), OPT("tres_per_node", MF_STR), OPT("tres_per_socket", MF_STR),
	OPT("tres_per_task", MF_STR), OPT_IN("cpus_per_gpu", 0, COUNT_MAX),
	OPT_IN("mem_per_gpu", 0, INT64_MAX), OPT_IN("ntasks_per_gpu", 0, COUNT_MAX),
	OPT("gpu_bind", MF_STR), OPT("gpu_freq", MF_STR), OPT("gres_flags", MF_STR),
	OPT("tres_bind", MF_STR),
	{ NULL, 0, false, NULL, 0, 0 },
};

const struct msg_field *jobspec_field(const char *key)
{
	for (const struct msg_field *f = jobspec_fields; f->key; f++)
		if (!strcmp(f->key, key))
			return f;
	return NULL;
}

int jobspec_check(const json_t *spec, struct herd_error *err)
{
	for (const struct msg_field *f = jobspec_fields; f->key; f++) {
		json_t *v = json_object_get(spec, f->key);
		if (f->type != MF_INT || (!f->min && !f->max) || !json_is_integer(v))
			continue;
		json_int_t n = json_integer_value(v);
		if (n < f->min || n > f->max)
			return errprintf(err, "%s: %lld is out of range", f->key, (long long)n);
	}
	return 0;
}
