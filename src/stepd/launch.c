/* Reading the LAUNCH object.  herdd validated it on the wire (msg schema);
 * here we still check every field we use, because a daemon must not crash on
 * a damaged spool file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres.h"
#include "common/strbuf.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "stepd/gpu_env.h"
#include "stepd/launch.h"

static int launch_str(const json_t *obj, const char *key, bool optional, char **out,
		      struct herd_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v && optional)
		return 0;
	if (!json_is_string(v))
		return errprintf(err, "launch: %s: expected string", key);
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int launch_int(const json_t *obj, const char *key, bool optional, int64_t *out,
		      struct herd_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v && optional)
		return 0;
	if (!json_is_integer(v))
		return errprintf(err, "launch: %s: expected integer", key);
	*out = json_integer_value(v);
	return 0;
}

static int launch_strv(const json_t *obj, const char *key, char ***out, size_t *count,
		       struct herd_error *err)
{
	json_t *arr = json_object_get(obj, key), *v;
	size_t i;

	if (!json_is_array(arr))
		return errprintf(err, "launch: %s: expected array of strings", key);
	*out = xmalloc((json_array_size(arr) + 1) * sizeof(char *));
	*count = 0;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v))
			return errprintf(err, "launch: %s[%zu]: expected string", key, i);
		(*out)[(*count)++] = xstrdup(json_string_value(v));
	}
	return 0;
}

static int launch_step_int(const json_t *obj, const char *key, bool optional, int64_t dflt,
			   int64_t min, int64_t max, int64_t *out, struct herd_error *err)
{
	*out = dflt;
	if (launch_int(obj, key, optional, out, err) < 0)
		return -1;
	if (*out < min || *out > max)
		return errprintf(err, "launch: step.%s: out of range", key);
	return 0;
}

static int launch_step_str(const json_t *obj, const char *key, const char *dflt, char **out,
			   struct herd_error *err)
{
	if (launch_str(obj, key, true, out, err) < 0)
		return -1;
	if (!*out)
		*out = xstrdup(dflt);
	return 0;
}

static void launch_free_strv(char **v, size_t n);

void launch_gres_free(struct launch_gres *g, size_t n)
{
	if (!g)
		return;
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		free(g[i].type);
		free(g[i].file);
		free(g[i].cores);
		free(g[i].flags);
	}
	free(g);
}

/* A record's string: optional ("" when absent), at most max bytes. */
static int launch_gres_str(const json_t *rec, const char *key, bool optional, size_t max,
			   char **out, struct herd_error *err)
{
	json_t *v = json_object_get(rec, key);
	if (!v && optional) {
		*out = xstrdup("");
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return errprintf(err, "%s: expected a string of at most %zu bytes", key, max);
	*out = xstrdup(json_string_value(v));
	return 0;
}

/* "flags": section 1's record carries GRES_F_* bits (common/gres.h); also
 * gres.conf's words, a string ("nvidia_gpu_env,opencl_env") or an array of
 * them.  Kept as the words (gpu_env.c reads them). */
static int launch_gres_flags(const json_t *rec, char **out, struct herd_error *err)
{
	json_t *v = json_object_get(rec, "flags"), *f;
	size_t i;
	if (json_is_integer(v)) {
		static const struct { unsigned bit; const char *word; } words[] = {
			{ GRES_F_NVIDIA_GPU_ENV, "nvidia_gpu_env" }, { GRES_F_AMD_GPU_ENV, "amd_gpu_env" },
			{ GRES_F_OPENCL_ENV, "opencl_env" }, { GRES_F_NO_GPU_ENV, "no_gpu_env" },
		};
		json_int_t bits = json_integer_value(v);
		if (bits < 0 || bits > 0xffff)
			return errprintf(err, "flags: out of range");
		struct strbuf sb = { 0 };
		strbuf_add(&sb, "", 0);
		for (size_t k = 0; k < sizeof(words) / sizeof(*words); k++)
			if (bits & words[k].bit) {
				strbuf_adds(&sb, sb.len ? "," : "");
				strbuf_adds(&sb, words[k].word);
			}
		*out = sb.s;
		return 0;
	}
	if (!json_is_array(v))
		return launch_gres_str(rec, "flags", true, 256, out, err);
	if (json_array_size(v) > 16)
		return errprintf(err, "flags: more than 16");
	struct strbuf sb = { 0 };
	strbuf_add(&sb, "", 0);
	json_array_foreach(v, i, f) {
		if (!json_is_string(f) || json_string_length(f) > 64) {
			free(sb.s);
			return errprintf(err, "flags[%zu]: expected a flag name", i);
		}
		if (i)
			strbuf_adds(&sb, ",");
		strbuf_adds(&sb, json_string_value(f));
	}
	*out = sb.s;
	return 0;
}

/* A "gres" array of device records (doc/gres.md section 3): bounded in
 * count and in each field, names as gres.conf's (letters, digits, '_'). */
static int launch_gres(const json_t *arr, const char *what, struct launch_gres **out, size_t *n,
		       struct herd_error *err)
{
	json_t *rec;
	size_t i;
	struct herd_error why;

	*out = NULL;
	*n = 0;
	if (!json_is_array(arr) || json_array_size(arr) > LAUNCH_GRES_MAX)
		return errprintf(err, "launch: %s: expected an array of at most %d records", what,
				 LAUNCH_GRES_MAX);
	*out = xmalloc((json_array_size(arr) + 1) * sizeof(**out));
	json_array_foreach(arr, i, rec) {
		struct launch_gres *g = &(*out)[*n];
		memset(g, 0, sizeof(*g));
		g->count = 1;
		int64_t index = -1;
		if (!json_is_object(rec)) {
			errprintf(&why, "expected an object");
			goto bad;
		}
		(*n)++;   /* from here launch_gres_free frees its fields */
		if (launch_gres_str(rec, "name", false, 64, &g->name, &why) < 0 ||
		    launch_gres_str(rec, "type", true, 64, &g->type, &why) < 0 ||
		    launch_gres_str(rec, "file", true, 4096, &g->file, &why) < 0 ||
		    launch_gres_str(rec, "cores", true, 4096, &g->cores, &why) < 0 ||
		    launch_gres_flags(rec, &g->flags, &why) < 0 ||
		    launch_int(rec, "index", false, &index, &why) < 0 ||
		    launch_int(rec, "count", true, &g->count, &why) < 0 ||
		    launch_int(rec, "total", true, &g->total, &why) < 0)
			goto bad;
		if (!g->name[0] || strspn(g->name, "abcdefghijklmnopqrstuvwxyz"
					  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(g->name)) {
			errprintf(&why, "name: not a GRES name");
			goto bad;
		}
		if (index < 0 || index > GPU_BIND_ID_MAX || g->count < 0 || g->count > INT32_MAX ||
		    g->total < 0 || g->total > INT32_MAX) {
			errprintf(&why, "index/count/total: out of range");
			goto bad;
		}
		g->index = (int)index;
		for (size_t j = 0; j + 1 < *n; j++)
			if (!strcmp((*out)[j].name, g->name) && (*out)[j].index == g->index &&
			    !strcmp(g->name, "gpu")) {
				errprintf(&why, "GPU %d given twice", g->index);
				goto bad;
			}
	}
	return 0;
bad:
	errprintf(err, "launch: %s[%zu]: %s", what, i,
		  strncmp(why.text, "launch: ", 8) ? why.text : why.text + 8);
	launch_gres_free(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

/* The step's GRES, --gpu-bind and --gpus-per-task.  No "gres": the job's
 * (srun(1): a step gets all the job's generic resources by default). */
static int launch_step_gres(const json_t *obj, const struct launch *l, struct launch_step *s,
			    struct herd_error *err)
{
	json_t *g = json_object_get(obj, "gres");
	int64_t gpt = 0;
	struct gpu_bind b;

	if (g) {
		if (launch_gres(g, "step.gres", &s->gres, &s->ngres, err) < 0)
			return -1;
		/* a subset of the job's devices here, when the job's are given;
		 * what a step's record leaves out (file, cores, ...) is the job's */
		for (size_t i = 0; l->gres && i < s->ngres; i++) {
			struct launch_gres *sg = &s->gres[i], *jg = NULL;
			for (size_t j = 0; j < l->ngres && !jg; j++)
				if (!strcmp(l->gres[j].name, sg->name) && l->gres[j].index == sg->index)
					jg = &l->gres[j];
			if (!jg)
				return errprintf(err, "launch: step.gres[%zu]: %s %d is not the job's",
						 i, sg->name, sg->index);
			char **fields[4][2] = { { &sg->type, &jg->type }, { &sg->file, &jg->file },
						{ &sg->cores, &jg->cores }, { &sg->flags, &jg->flags } };
			for (int f = 0; f < 4; f++)
				if (!**fields[f][0] && **fields[f][1]) {
					free(*fields[f][0]);
					*fields[f][0] = xstrdup(*fields[f][1]);
				}
		}
	} else if (l->ngres) {
		s->gres = xmalloc(l->ngres * sizeof(*s->gres));
		for (size_t i = 0; i < l->ngres; i++) {
			s->gres[i] = l->gres[i];
			s->gres[i].name = xstrdup(l->gres[i].name);
			s->gres[i].type = xstrdup(l->gres[i].type);
			s->gres[i].file = xstrdup(l->gres[i].file);
			s->gres[i].cores = xstrdup(l->gres[i].cores);
			s->gres[i].flags = xstrdup(l->gres[i].flags);
		}
		s->ngres = l->ngres;
	}
	if (launch_step_str(obj, "gpu_bind", "", &s->gpu_bind, err) < 0 ||
	    launch_step_int(obj, "gpus_per_task", true, 0, 0, GPU_BIND_ID_MAX, &gpt, err) < 0)
		return -1;
	s->gpus_per_task = (int)gpt;
	struct herd_error why;
	if (gpu_bind_parse(s->gpu_bind, &b, &why) < 0)
		return errprintf(err, "launch: step.gpu_bind: %.100s", why.text);
	gpu_bind_free(&b);
	return 0;
}

static void launch_taskopts_free(struct launch_taskopts *o)
{
	free(o->distribution);
	free(o->hint);
	free(o->mem_bind);
	free(o->propagate);
}

/* distribution, hint, mem_bind, propagate, ntasks_per_socket/core, rlimits:
 * each optional.  The strings are checked where they are used. */
static int launch_taskopts(const json_t *obj, struct launch_taskopts *o, bool distribution,
			   struct herd_error *err)
{
	int64_t nps = 0, npc = 0;
	json_t *rl = json_object_get(obj, "rlimits");

	if ((distribution && launch_str(obj, "distribution", true, &o->distribution, err) < 0) ||
	    launch_str(obj, "hint", true, &o->hint, err) < 0 ||
	    launch_str(obj, "mem_bind", true, &o->mem_bind, err) < 0 ||
	    launch_str(obj, "propagate", true, &o->propagate, err) < 0 ||
	    launch_int(obj, "ntasks_per_socket", true, &nps, err) < 0 ||
	    launch_int(obj, "ntasks_per_core", true, &npc, err) < 0)
		return -1;
	if (nps < 0 || nps > 0xffff || npc < 0 || npc > 0xffff)
		return errprintf(err, "launch: ntasks_per_socket/ntasks_per_core: out of range");
	o->ntasks_per_socket = nps;
	o->ntasks_per_core = npc;
	if (rl && !json_is_object(rl))
		return errprintf(err, "launch: rlimits: expected an object");
	for (int i = 0; rl && i < RLIMIT_NAMES; i++) {
		json_t *v = json_object_get(rl, rlimit_names[i]);
		if (!v)
			continue;
		if (!json_is_array(v) || json_array_size(v) != 2 ||
		    !json_is_integer(json_array_get(v, 0)) || !json_is_integer(json_array_get(v, 1)))
			return errprintf(err, "launch: rlimits.%s: expected [soft, hard]", rlimit_names[i]);
		o->rlimits.given[i] = true;
		o->rlimits.soft[i] = json_integer_value(json_array_get(v, 0));
		o->rlimits.hard[i] = json_integer_value(json_array_get(v, 1));
	}
	return 0;
}

static void launch_step_free(struct launch_step *s)
{
	if (!s)
		return;
	free(s->step_name);
	free(s->step_nodes);
	free(s->step_tasks_per_node);
	free(s->task_ids);
	free(s->cpus);
	free(s->cpu_bind);
	free(s->distribution);
	launch_free_strv(s->argv, s->argc);
	launch_free_strv(s->multi_prog, s->nmulti);
	launch_free_strv(s->env, s->envc);
	free(s->cwd);
	free(s->io_host);
	free(s->io_key);
	free(s->std_out);
	free(s->std_err);
	free(s->std_in);
	free(s->mpi);
	free(s->launch_addr);
	free(s->resv_ports);
	free(s->container);
	launch_taskopts_free(&s->opts);
	launch_gres_free(s->gres, s->ngres);
	free(s->gpu_bind);
	free(s);
}

/* The "step" object.  Only what herdstepd cannot do without is required;
 * the rest defaults as doc/steps.md says. */
static struct launch_step *launch_step_parse(const json_t *obj, const struct launch *l,
					     struct herd_error *err)
{
	struct launch_step *s = xmalloc(sizeof(*s));
	int64_t step_id, nn, nt, node_id, cpt, port, stdin_task, sig, sig_time;
	json_t *ids = json_object_get(obj, "task_ids"), *v;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(obj)) {
		errprintf(err, "launch: step: expected an object");
		goto error;
	}
	if (launch_step_int(obj, "step_id", false, 0, 0, UINT32_MAX, &step_id, err) < 0 ||
	    launch_step_str(obj, "step_name", l->name, &s->step_name, err) < 0 ||
	    launch_step_str(obj, "step_nodes", l->nodes, &s->step_nodes, err) < 0 ||
	    launch_step_int(obj, "step_num_nodes", true, 1, 1, 1 << 20, &nn, err) < 0 ||
	    launch_step_int(obj, "node_id", false, 0, 0, 1 << 20, &node_id, err) < 0 ||
	    launch_step_str(obj, "cpus", "", &s->cpus, err) < 0 ||
	    launch_step_int(obj, "cpus_per_task", true, 1, 0, 1 << 16, &cpt, err) < 0 ||
	    launch_step_int(obj, "mem_mb", true, 0, 0, INT64_MAX, &s->mem_mb, err) < 0 ||
	    launch_step_str(obj, "cpu_bind", "", &s->cpu_bind, err) < 0 ||
	    launch_step_str(obj, "distribution", "block", &s->distribution, err) < 0 ||
	    launch_strv(obj, "argv", &s->argv, &s->argc, err) < 0 ||
	    (json_object_get(obj, "multi_prog") &&
	     launch_strv(obj, "multi_prog", &s->multi_prog, &s->nmulti, err) < 0) ||
	    (json_object_get(obj, "env") && launch_strv(obj, "env", &s->env, &s->envc, err) < 0) ||
	    launch_step_str(obj, "cwd", l->cwd, &s->cwd, err) < 0 ||
	    launch_str(obj, "io_host", false, &s->io_host, err) < 0 ||
	    launch_step_int(obj, "io_port", false, 0, 1, 65535, &port, err) < 0 ||
	    launch_str(obj, "io_key", false, &s->io_key, err) < 0 ||
	    launch_step_str(obj, "stdout", "", &s->std_out, err) < 0 ||
	    launch_step_str(obj, "stderr", "", &s->std_err, err) < 0 ||
	    launch_step_str(obj, "stdin", "", &s->std_in, err) < 0 ||
	    launch_step_int(obj, "stdin_task", true, 0, -2, INT32_MAX, &stdin_task, err) < 0 ||
	    launch_step_str(obj, "mpi", "none", &s->mpi, err) < 0 ||
	    launch_step_int(obj, "time_limit", true, -1, -1, INT32_MAX, &s->time_limit, err) < 0 ||
	    launch_step_int(obj, "signal", true, 0, 0, 64, &sig, err) < 0 ||
	    launch_step_int(obj, "signal_time", true, 0, 0, 0xffff, &sig_time, err) < 0 ||
	    launch_step_str(obj, "launch_addr", "", &s->launch_addr, err) < 0 ||
	    launch_step_str(obj, "resv_ports", "", &s->resv_ports, err) < 0 ||
	    launch_step_int(obj, "slurmd_debug", true, 0, 0, 9, &s->slurmd_debug, err) < 0 ||
	    launch_step_int(obj, "srun_pid", true, 0, 0, INT32_MAX, &s->srun_pid, err) < 0 ||
	    launch_str(obj, "container", true, &s->container, err) < 0)
		goto error;
	if (launch_taskopts(obj, &s->opts, false, err) < 0 || launch_step_gres(obj, l, s, err) < 0)
		goto error;
	if (!s->env)
		s->env = xmalloc(sizeof(char *));   /* none given: an empty environment from srun */
	v = json_object_get(obj, "pty");
	if (v && !json_is_boolean(v)) {
		errprintf(err, "launch: step.pty: expected boolean");
		goto error;
	}
	s->pty = json_is_true(v);
	v = json_object_get(obj, "extern");
	s->extern_step = json_is_true(v);
	if (!json_is_array(ids) || (json_array_size(ids) == 0 && !s->extern_step)) {
		errprintf(err, "launch: step.task_ids: expected a non-empty array of integers");
		goto error;
	}
	s->task_ids = xmalloc(json_array_size(ids) * sizeof(int));
	json_array_foreach(ids, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > INT32_MAX) {
			errprintf(err, "launch: step.task_ids[%zu]: expected a task ID", i);
			goto error;
		}
		s->task_ids[s->ntasks++] = json_integer_value(v);
	}
	if (launch_step_int(obj, "step_num_tasks", true, (int64_t)s->ntasks, s->extern_step ? 0 : 1,
			    INT32_MAX, &nt, err) < 0)
		goto error;
	if (launch_str(obj, "step_tasks_per_node", true, &s->step_tasks_per_node, err) < 0)
		goto error;
	if (!s->step_tasks_per_node)
		s->step_tasks_per_node = xasprintf("%zu", s->ntasks);
	if (s->argc == 0 && !s->multi_prog) {
		errprintf(err, "launch: step.argv: no command");
		goto error;
	}
	s->step_id = step_id;
	s->step_num_nodes = nn;
	s->step_num_tasks = nt;
	s->node_id = node_id;
	s->cpus_per_task = cpt;
	s->io_port = port;
	s->stdin_task = stdin_task;
	s->signal = sig;
	s->signal_time = sig_time;
	return s;
error:
	/* the shared helpers name the key alone: say it is the step's */
	if (!strncmp(err->text, "launch: ", 8) && strncmp(err->text, "launch: step", 12)) {
		char text[sizeof(err->text)];
		snprintf(text, sizeof(text), "launch: step.%s", err->text + 8);
		memcpy(err->text, text, sizeof(text));
	}
	launch_step_free(s);
	return NULL;
}

int launch_parse(const json_t *obj, struct launch *l, struct herd_error *err)
{
	int64_t job_id = 0, uid = 0, gid = 0, umask_ = 0, num_nodes = 0, ntasks = 0;
	int64_t cpus_per_task = 0, cpus_on_node = 0, kill_wait = 30, restarts = 0;
	int64_t tpn = 0, sig = 0, sig_time = 0;
	char *open_mode = NULL, *sig_flags = NULL;

	memset(l, 0, sizeof(*l));
	if (!json_is_object(obj)) {
		errprintf(err, "launch: expected an object");
		goto error;
	}
	if (launch_int(obj, "job_id", false, &job_id, err) < 0 ||
	    launch_int(obj, "uid", false, &uid, err) < 0 ||
	    launch_int(obj, "gid", false, &gid, err) < 0 ||
	    launch_int(obj, "umask", false, &umask_, err) < 0 ||
	    launch_str(obj, "user", false, &l->user, err) < 0 ||
	    launch_str(obj, "name", false, &l->name, err) < 0 ||
	    launch_str(obj, "partition", false, &l->partition, err) < 0 ||
	    launch_str(obj, "account", false, &l->account, err) < 0 ||
	    launch_str(obj, "cluster", false, &l->cluster, err) < 0 ||
	    launch_str(obj, "submit_host", false, &l->submit_host, err) < 0 ||
	    launch_str(obj, "qos", true, &l->qos, err) < 0 ||
	    launch_str(obj, "reservation", true, &l->reservation, err) < 0 ||
	    launch_str(obj, "dependency", true, &l->dependency, err) < 0 ||
	    launch_str(obj, "container", true, &l->container, err) < 0 ||
	    launch_str(obj, "script", false, &l->script, err) < 0 ||
	    launch_strv(obj, "argv", &l->argv, &l->argc, err) < 0 ||
	    launch_strv(obj, "env", &l->env, &l->envc, err) < 0 ||
	    launch_str(obj, "cwd", false, &l->cwd, err) < 0 ||
	    launch_str(obj, "stdout", false, &l->std_out, err) < 0 ||
	    launch_str(obj, "stderr", false, &l->std_err, err) < 0 ||
	    launch_str(obj, "stdin", false, &l->std_in, err) < 0 ||
	    launch_str(obj, "nodes", false, &l->nodes, err) < 0 ||
	    launch_int(obj, "num_nodes", false, &num_nodes, err) < 0 ||
	    launch_int(obj, "ntasks", false, &ntasks, err) < 0 ||
	    launch_int(obj, "cpus_per_task", false, &cpus_per_task, err) < 0 ||
	    launch_int(obj, "cpus_on_node", false, &cpus_on_node, err) < 0 ||
	    launch_int(obj, "mem_mb", false, &l->mem_mb, err) < 0 ||
	    launch_str(obj, "tasks_per_node", false, &l->tasks_per_node, err) < 0 ||
	    launch_str(obj, "cpus_per_node", true, &l->cpus_per_node, err) < 0 ||
	    launch_int(obj, "time_limit", false, &l->time_limit, err) < 0 ||
	    launch_int(obj, "kill_wait", false, &kill_wait, err) < 0 ||
	    launch_int(obj, "start_time", false, &l->start_time, err) < 0 ||
	    launch_int(obj, "restarts", true, &restarts, err) < 0 ||
	    launch_int(obj, "array_job_id", true, &l->array_job_id, err) < 0 ||
	    launch_int(obj, "array_task_id", true, &l->array_task_id, err) < 0 ||
	    launch_int(obj, "array_task_count", true, &l->array_task_count, err) < 0 ||
	    launch_int(obj, "array_task_min", true, &l->array_task_min, err) < 0 ||
	    launch_int(obj, "array_task_max", true, &l->array_task_max, err) < 0 ||
	    launch_int(obj, "array_task_step", true, &l->array_task_step, err) < 0 ||
	    launch_int(obj, "mem_per_cpu", true, &l->mem_per_cpu, err) < 0 ||
	    launch_int(obj, "het_job_id", true, &l->het_job_id, err) < 0 ||
	    launch_int(obj, "ntasks_per_node", true, &tpn, err) < 0 ||
	    launch_str(obj, "open_mode", true, &open_mode, err) < 0 ||
	    launch_int(obj, "signal", true, &sig, err) < 0 ||
	    launch_int(obj, "signal_time", true, &sig_time, err) < 0 ||
	    launch_str(obj, "signal_flags", true, &sig_flags, err) < 0 ||
	    launch_str(obj, "cpu_ids", true, &l->cpu_ids, err) < 0 ||
	    launch_str(obj, "get_user_env", true, &l->get_user_env, err) < 0 ||
	    launch_taskopts(obj, &l->opts, true, err) < 0)
		goto error;
	l->open_append = open_mode && !strcmp(open_mode, "append");
	l->signal_batch = sig_flags && !strcmp(sig_flags, "B");
	free(open_mode);
	free(sig_flags);
	open_mode = sig_flags = NULL;
	if (sig < 0 || sig > 64 || sig_time < 0 || sig_time > 0xffff || tpn < 0 || tpn > INT32_MAX) {
		errprintf(err, "launch: signal/ntasks_per_node: out of range");
		goto error;
	}
	l->signal = sig;
	l->signal_time = sig_time;
	l->ntasks_per_node = tpn;
	if (l->array_job_id < 0 || l->array_job_id > UINT32_MAX || l->array_task_id < 0 ||
	    l->array_task_id > UINT32_MAX) {
		errprintf(err, "launch: array_job_id/array_task_id: out of range");
		goto error;
	}
	if (job_id <= 0 || job_id > UINT32_MAX) {
		errprintf(err, "launch: job_id: out of range");
		goto error;
	}
	if (uid < 0 || gid < 0 || uid > INT32_MAX || gid > INT32_MAX) {
		errprintf(err, "launch: uid/gid: out of range");
		goto error;
	}
	l->job_id = job_id;
	l->uid = uid;
	l->gid = gid;
	l->umask = umask_ & 07777;
	l->num_nodes = num_nodes;
	l->ntasks = ntasks;
	l->cpus_per_task = cpus_per_task;
	l->cpus_on_node = cpus_on_node;
	l->kill_wait = kill_wait < 0 ? 0 : kill_wait;
	l->restarts = restarts;
	if (json_object_get(obj, "gres") &&
	    launch_gres(json_object_get(obj, "gres"), "gres", &l->gres, &l->ngres, err) < 0)
		goto error;
	if (json_object_get(obj, "step") && !(l->step = launch_step_parse(json_object_get(obj, "step"), l, err)))
		goto error;
	return 0;
error:
	free(open_mode);
	free(sig_flags);
	launch_free(l);
	return -1;
}

int launch_load(const char *path, struct launch *l, struct herd_error *err)
{
	json_error_t jerr;
	json_t *obj = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!obj)
		return errprintf(err, "%s: %s", path, jerr.text);
	rc = launch_parse(obj, l, err);
	json_decref(obj);
	return rc;
}

static void launch_free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void launch_free(struct launch *l)
{
	int saved = errno;
	free(l->user);
	free(l->name);
	free(l->partition);
	free(l->account);
	free(l->cluster);
	free(l->submit_host);
	free(l->qos);
	free(l->reservation);
	free(l->dependency);
	free(l->container);
	free(l->script);
	launch_free_strv(l->argv, l->argc);
	launch_free_strv(l->env, l->envc);
	free(l->cwd);
	free(l->std_out);
	free(l->std_err);
	free(l->std_in);
	free(l->nodes);
	free(l->tasks_per_node);
	free(l->cpus_per_node);
	free(l->cpu_ids);
	free(l->get_user_env);
	launch_gres_free(l->gres, l->ngres);
	launch_taskopts_free(&l->opts);
	launch_step_free(l->step);
	memset(l, 0, sizeof(*l));
	errno = saved;
}
