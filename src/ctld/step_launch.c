/* Making steps (doc/steps.md): STEP_CREATE checks and lays out the
 * request's step (or a heterogeneous step's parts), records it, launches it
 * on every node once durable and answers when every node has; also the
 * N.extern step of PrologFlags=Contain.  The rest of a step's life is
 * step.c's. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/step_impl.h"
#include "sched/select.h"

/* ---- STEP_CREATE ---- */


static struct step *group_step(const struct step_group *g, int k, struct job **job)
{
	*job = job_find(g->job_ids[k]);
	return *job ? step_find(*job, g->step_id) : NULL;
}

static void group_free(struct step_group *g)
{
	for (int k = 0; k < g->n; k++) {
		struct job *job;
		struct step *s = group_step(g, k, &job);
		if (s && s->group == g)
			s->group = NULL;
	}
	free(g->job_ids);
	json_decref(g->specs);
	free(g->launch_error);
	free(g);
}

/* The steps could not all start: what started stops again, each ends
 * FAILED, and the request hears why. */
void step_group_fail(struct step_group *g, const char *why)
{
	if (!g->req)
		return;
	for (int k = 0; k < g->n; k++) {
		struct job *job;
		struct step *s = group_step(g, k, &job);
		if (!s || job_state_is_final(s->state))
			continue;
		s->launch_failed = true;
		for (int i = 0; i < s->nnodes; i++)
			launch_step_signal(&core.nodes[job->alloc_node[s->job_node[i]]], job->id,
					   s->step_id, 0);
		s->exit_status = 1 << 8;
		step_end(job, s, JOB_FAILED);
	}
	net_respond(g->req, HERD_ERR_INTERNAL, NULL, why);
	g->req = NULL;
}

/* The reply: the step's nodes in launch order (a het step's components one
 * after another), each with its global task IDs and CPUs, and for a het
 * step each node's job ("job_ids"). */
static json_t *group_layout(const struct step_group *g)
{
	json_t *names = json_array(), *ids = json_array(), *cpn = json_array(), *jobs = json_array();
	struct strbuf nodes = { 0 }, tpn = { 0 };
	json_int_t ntasks = 0;
	int nnodes = 0;
	for (int k = 0; k < g->n; k++) {
		struct job *job;
		struct step *s = group_step(g, k, &job);
		if (!s)
			continue;
		strbuf_adds(&nodes, nodes.len ? "," : "");
		strbuf_adds(&nodes, s->nodes_str);
		strbuf_adds(&tpn, tpn.len ? "," : "");
		strbuf_adds(&tpn, s->tasks_per_node);
		for (int i = 0; i < s->nnodes; i++) {
			json_t *list = step_layout_task_ids(s, i), *t;
			size_t j;
			json_array_foreach(list, j, t)
				json_integer_set(t, json_integer_value(t) + ntasks);
			json_array_append_new(names, json_string(core.nodes[job->alloc_node[s->job_node[i]]].name));
			json_array_append_new(ids, list);
			json_array_append_new(cpn, json_integer(s->holds ? (int)bitmap_count(s->cpuset[i])
									 : s->ntasks[i] * (int)s->cpus_per_task));
			json_array_append_new(jobs, json_integer(job->id));
		}
		ntasks += s->num_tasks;
		nnodes += s->nnodes;
	}
	json_t *layout = json_pack("{s:I, s:s, s:i, s:I, s:o, s:s, s:o, s:o}", "step_id",
				   (json_int_t)g->step_id, "nodes", nodes.s ? nodes.s : "",
				   "num_nodes", nnodes, "num_tasks", ntasks, "node_names", names,
				   "tasks_per_node", tpn.s ? tpn.s : "", "task_ids", ids, "cpus_per_node", cpn);
	if (g->n > 1)
		json_object_set_new(layout, "job_ids", jobs);
	else
		json_decref(jobs);
	free(nodes.s);
	free(tpn.s);
	return layout;
}

struct launch_wait {
	struct step_group *group;
	uint32_t job_id;
	int node;                   /* index of the step node */
};

static void launch_step_done(void *arg, json_t *reply, const struct herd_error *err)
{
	struct launch_wait *w = arg;
	struct step_group *g = w->group;
	struct job *job = job_find(w->job_id);
	struct step *s = job ? step_find(job, g->step_id) : NULL;
	struct herd_error rerr = { "" };

	if (!reply || msg_reply_rc(reply, &rerr) != 0) {
		const char *why = reply ? rerr.text : err->text;
		if (s)
			log_error("job %u: step %u: launch on %s failed: %s", w->job_id, g->step_id,
				  core.nodes[job->alloc_node[s->job_node[w->node]]].name, why);
		if (g->req && !g->launch_error)
			g->launch_error = xstrdup(why);
	}
	if (--g->launches_left == 0) {
		if (g->launch_error)
			step_group_fail(g, g->launch_error);
		else if (g->req)
			net_respond(g->req, 0, group_layout(g), NULL);
		g->req = NULL;
		group_free(g);
	}
	free(w);
}

/* LAUNCH_STEP to every node of the step at once: launch and step carry
 * what all share; each node's own (its index, task IDs, CPUs, memory) is
 * set here.  In a het step node_base and task_base place this component's
 * nodes and tasks among all the step's. */
static void send_launches(struct step_group *g, struct job *job, const struct step *s, json_t *launch,
			  json_t *step, int node_base, json_int_t task_base)
{
	for (int i = 0; i < s->nnodes; i++) {
		int j = s->job_node[i];
		char *cpus = s->cpuset[i]->nbits > 1 || bitmap_count(s->cpuset[i])
			     ? bitmap_fmt_ranges(s->cpuset[i]) : xstrdup("");
		uint64_t mem = s->mem_mb ? s->mem_mb : job_node_mem(job, j);
		json_t *ids = s->step_id == STEP_EXTERN ? json_array() : step_layout_task_ids(s, i), *t;
		size_t k;
		json_array_foreach(ids, k, t)
			json_integer_set(t, json_integer_value(t) + task_base);
		json_object_set_new(step, "node_id", json_integer(node_base + i));
		json_object_set_new(step, "task_ids", ids);
		json_object_set_new(step, "cpus", json_string(cpus));
		json_object_set_new(step, "mem_mb", json_integer((json_int_t)mem));
		json_object_set_new(launch, "cpus_on_node", json_integer(job->alloc_cpus[j]));
		json_t *gres = job_gres_launch(job, j);   /* the job's GRES on this node */
		if (gres)
			json_object_set_new(launch, "gres", gres);
		else
			json_object_del(launch, "gres");
		json_t *mine = step_gres_launch(job, s, i);   /* the step's (absent: the job's) */
		if (mine)
			json_object_set_new(step, "gres", mine);
		else
			json_object_del(step, "gres");
		json_object_set(launch, "step", step);
		json_t *body = json_pack("{s:I, s:I, s:O}", "job_id", (json_int_t)job->id, "step_id",
					 (json_int_t)s->step_id, "launch", launch);
		struct launch_wait *w = xmalloc(sizeof(*w));
		*w = (struct launch_wait){ g, job->id, i };
		struct net_target to = launch_node_target(&core.nodes[job->alloc_node[j]]);
		net_call_async(ctld.loop, &to, MSG_LAUNCH_STEP, body, 30000, launch_step_done, w);
		json_decref(body);
		free(cpus);
	}
}

/* LAUNCH_STEP's "step" for component k: the request's, with what the
 * controller decided. */
static json_t *launch_step_object(const struct step *s, const json_t *spec)
{
	json_t *step = json_deep_copy(spec);
	const char *drop[] = { "num_nodes", "num_tasks", "ntasks_per_node", "mem_per_cpu", "overlap",
			       "exact", "exclusive", "req_nodelist", "exc_nodelist", "name",
			       "tres_per_step", "tres_per_node", "tres_per_socket", "tres_per_task",
			       "gres_none", "cpus_per_gpu", "mem_per_gpu" };
	for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]); k++)
		json_object_del(step, drop[k]);
	json_object_set_new(step, "step_id", json_integer(s->step_id));
	json_object_set_new(step, "step_name", json_string(s->name));
	json_object_set_new(step, "step_nodes", json_string(s->nodes_str));
	json_object_set_new(step, "step_num_nodes", json_integer(s->nnodes));
	json_object_set_new(step, "step_num_tasks", json_integer(s->num_tasks));
	json_object_set_new(step, "step_tasks_per_node", json_string(s->tasks_per_node));
	json_object_set_new(step, "cpus_per_task", json_integer(s->cpus_per_task));
	json_object_set_new(step, "distribution", json_string(s->distribution));
	json_object_set_new(step, "time_limit", json_integer(s->time_limit));
	char ports[32];
	step_ports_string(s, ports, sizeof(ports));
	json_object_set_new(step, "resv_ports", json_string(ports));
	return step;
}

/* After the steps' records are durable: LAUNCH_STEP to every node at once.
 * A het step's tasks are one set (Slurm's one MPI_COMM_WORLD): each sees
 * the whole step's nodes, task count and layout, and its global task ID. */
static void launch_after_commit(void *arg, bool ok)
{
	struct step_group *g = arg;
	struct job *job;
	struct step *s;

	if (!g->req) {   /* answered already: a component's job ended */
		group_free(g);
		return;
	}
	if (!ok) {
		step_group_fail(g, "the controller could not save the step");
		group_free(g);
		return;
	}
	struct strbuf nodes = { 0 }, tpn = { 0 };
	json_int_t ntasks = 0;
	int nnodes = 0;
	for (int k = 0; k < g->n; k++) {
		if (!(s = group_step(g, k, &job)) || job_state_is_final(s->state)) {
			step_group_fail(g, herd_strerror(HERD_ERR_ALREADY_DONE));
			group_free(g);
			free(nodes.s);
			free(tpn.s);
			return;
		}
		strbuf_adds(&nodes, nodes.len ? "," : "");
		strbuf_adds(&nodes, s->nodes_str);
		strbuf_adds(&tpn, tpn.len ? "," : "");
		strbuf_adds(&tpn, s->tasks_per_node);
		ntasks += s->num_tasks;
		nnodes += s->nnodes;
	}
	g->launches_left = nnodes;
	int node_base = 0;
	json_int_t task_base = 0;
	for (int k = 0; k < g->n; k++) {
		json_t *spec = json_array_get(g->specs, k);
		s = group_step(g, k, &job);
		json_t *jspec = store_job_spec(job->array_job_id ? job->array_job_id : job->id);
		json_t *launch = launch_object(job, jspec);
		json_decref(jspec);
		/* A step is not the batch script: the step's own command and files. */
		json_object_set_new(launch, "script", json_string(""));
		const char *keys[] = { "argv", "env", "cwd", "stdout", "stderr", "stdin" };
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			json_object_set(launch, keys[i], json_object_get(spec, keys[i]));
		if (!json_is_integer(json_object_get(launch, "umask")))
			json_object_set_new(launch, "umask", json_integer(022));
		json_object_del(launch, "cpu_ids");
		json_object_set_new(launch, "time_limit", json_integer(s->time_limit));
		json_t *step = launch_step_object(s, spec);
		if (g->n > 1) {
			json_object_set_new(step, "step_nodes", json_string(nodes.s));
			json_object_set_new(step, "step_num_nodes", json_integer(nnodes));
			json_object_set_new(step, "step_num_tasks", json_integer(ntasks));
			json_object_set_new(step, "step_tasks_per_node", json_string(tpn.s));
		}
		send_launches(g, job, s, launch, step, node_base, task_base);
		node_base += s->nnodes;
		task_base += s->num_tasks;
		json_decref(step);
		json_decref(launch);
	}
	free(nodes.s);
	free(tpn.s);
}

static char *base_name(const json_t *argv)
{
	const char *a = json_string_value(json_array_get(argv, 0));
	const char *slash = a ? strrchr(a, '/') : NULL;
	return xstrdup(slash ? slash + 1 : a ? a : "");
}

/* What the step does not say it takes from the job's submission, as srun
 * does from SLURM_DISTRIBUTION, SLURM_HINT, SLURM_MEM_BIND... in Slurm:
 * -m, --hint, --mem-bind, --ntasks-per-socket, --ntasks-per-core. */
static void step_inherit(const struct job *job, json_t *spec)
{
	static const char *keys[] = { "distribution", "hint", "mem_bind", "ntasks_per_socket",
				      "ntasks_per_core" };
	json_t *jspec = store_job_spec(job->array_job_id ? job->array_job_id : job->id);

	for (size_t k = 0; jspec && k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_t *mine = json_object_get(spec, keys[k]), *theirs = json_object_get(jspec, keys[k]);
		if (theirs && (!mine || (json_is_string(mine) && !*json_string_value(mine))))
			json_object_set(spec, keys[k], theirs);
	}
	json_decref(jspec);
	/* GPU binding: the step's --gpu-bind, or, when it asks no GRES, its
	 * job's (Slurm's srun reads SLURM_GPU_BIND from the batch shell) */
	const char *bind = json_string_value(json_object_get(spec, "gpu_bind"));
	if ((!bind || !*bind) && !step_gres_asked(spec) && job->gpu_bind)
		json_object_set_new(spec, "gpu_bind", json_string(job->gpu_bind));
	json_object_set_new(spec, "gpus_per_task", json_integer(step_gres_per_task(job, spec)));
}

/* The step's -m as it is kept ("" and "*": block); NULL with err when it
 * does not parse. */
static char *step_distribution(const char *dist, struct herd_error *err)
{
	struct dist d;

	if (!dist || !*dist)
		return xstrdup("block");
	if (dist_parse(dist, &d, err) < 0)
		return NULL;
	return xstrdup(d.node == DIST_NODE_DEFAULT ? "block" : dist);
}

/* One step of the request, checked and laid out on job's nodes but not yet
 * the job's: 0 and *out, or an rc (with err's text, or none). */
static int step_prepare(const struct net_req *req, struct job *job, json_t *spec, struct step **out,
			struct herd_error *err)
{
	if (!job)
		return HERD_ERR_INVALID_JOB;
	/* A step runs code as the job's owner: roles manage jobs (cancel,
	 * signal, hold, update), never run anything in them. */
	if (!roles_may_act_as_owner(req->uid, job)) {
		/* One who may manage the job (a role) is told the step is
		 * refused (Slurm confirms the allocation to an operator, then
		 * refuses the step); anyone else, that the allocation is not
		 * theirs. */
		log_info("job %u: step creation by uid %u refused: not the owner (uid %u), root or "
			 "SlurmUser", job->id, (unsigned)req->uid, (unsigned)job->uid);
		return roles_may_act(req->uid, job, JOB_ACT_SIGNAL, NULL) ? HERD_ERR_STEP_ACCESS
									  : HERD_ERR_ACCESS;
	}
	if (job->state == JOB_PENDING)
		return HERD_ERR_JOB_PENDING;
	if (job->state != JOB_RUNNING || job->launch != LAUNCH_DONE)
		return job->state == JOB_RUNNING ? HERD_ERR_NODES_BUSY : HERD_ERR_ALREADY_DONE;
	if (json_array_size(json_object_get(spec, "argv")) == 0 ||
	    !step_layout_count_ok(spec, "num_tasks") || !step_layout_count_ok(spec, "num_nodes") ||
	    !step_layout_count_ok(spec, "cpus_per_task") || !step_layout_count_ok(spec, "ntasks_per_node") ||
	    !step_layout_count_ok(spec, "ntasks_per_socket") || !step_layout_count_ok(spec, "ntasks_per_core") ||
	    !step_layout_count_ok(spec, "cpus_per_gpu") || json_integer_value(json_object_get(spec, "mem_per_gpu")) < 0 ||
	    json_integer_value(json_object_get(spec, "mem_per_gpu")) > ((json_int_t)1 << 40))
		return HERD_ERR_INVALID_ARG;
	step_inherit(job, spec);
	const char *dist = json_string_value(json_object_get(spec, "distribution"));
	char *distribution = step_distribution(dist, err);
	const char *hint = json_string_value(json_object_get(spec, "hint"));
	const char *membind = json_string_value(json_object_get(spec, "mem_bind"));
	const char *prop = json_string_value(json_object_get(spec, "propagate"));
	struct mem_bind mb;
	unsigned flags;
	if (distribution && ((hint && hint_parse(hint, &flags, err) < 0) ||
			     (membind && mem_bind_parse(membind, &mb, err) < 0) ||
			     (prop && rlimit_list_parse(prop, &flags, err) < 0))) {
		free(distribution);
		distribution = NULL;
	}
	if (!distribution)
		return HERD_ERR_INVALID_ARG;
	struct step *s = xmalloc(sizeof(*s));
	s->job_id = job->id;
	s->distribution = distribution;
	int rc = step_layout(job, spec, s, err);
	if (!rc)
		rc = step_ports_take(job, s, json_integer_value(json_object_get(spec, "resv_ports")), err);
	if (rc) {
		step_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* The prepared step becomes the job's, as step_id. */
static void step_insert(struct job *job, struct step *s, const json_t *spec, uint32_t step_id,
			struct step_group *g)
{
	const char *name = json_string_value(json_object_get(spec, "name"));
	int64_t limit = json_integer_value(json_object_get(spec, "time_limit"));

	s->step_id = step_id;
	if (job->next_step_id <= step_id)
		job->next_step_id = step_id + 1;
	s->name = *name ? xstrdup(name) : base_name(json_object_get(spec, "argv"));
	s->state = JOB_RUNNING;
	s->start_time = core_now();
	s->time_limit = limit > 0 ? limit : -1;   /* 0 not given, -1 UNLIMITED: the job's */
	s->requid = -1;
	s->srun_host = xstrdup(json_string_value(json_object_get(spec, "launch_addr")) ?: "");
	const char *bundle = json_string_value(json_object_get(spec, "container"));
	s->container = bundle && *bundle ? xstrdup(bundle) : NULL;
	s->srun_pid = json_integer_value(json_object_get(spec, "srun_pid"));
	uint64_t mem = json_integer_value(json_object_get(spec, "mem_mb"));
	uint64_t mem_cpu = json_integer_value(json_object_get(spec, "mem_per_cpu"));
	uint64_t mem_gpu = json_integer_value(json_object_get(spec, "mem_per_gpu")), gpus = 0;
	for (int i = 0; mem_gpu && s->gres && i < s->nnodes; i++) {   /* the most on a node */
		uint64_t here = 0;
		for (int g = 0; g < s->ngres[i]; g++)
			here += strcmp(s->gres[i][g].name, "gpu") ? 0 : s->gres[i][g].count;
		gpus = here > gpus ? here : gpus;
	}
	s->mem_mb = mem ? mem : mem_cpu ? sched_umul(sched_umul(mem_cpu, s->ntasks[0]), s->cpus_per_task)
		  : gpus ? sched_umul(mem_gpu, gpus) : 0;
	s->node_done = xmalloc(s->nnodes * sizeof(bool));
	count_parts(job, s, +1);
	struct hostlist *hl = hostlist_create(NULL);
	for (int i = 0; i < s->nnodes; i++)
		hostlist_push(hl, core.nodes[job->alloc_node[s->job_node[i]]].name);
	s->nodes_str = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	s->tasks_per_node = launch_counts_string(s->ntasks, s->nnodes);
	step_layout_hold(job, s, true);
	s->next = job->steps;
	job->steps = s;
	s->group = g;
	step_save(job, s);
	job_changed(job);   /* next_step_id */
	log_info("job %u: step %u on %s (%u tasks)", job->id, s->step_id, s->nodes_str, s->num_tasks);
}

/* A het step's component k (k >= 1): a component of the same
 * heterogeneous job as the first, each at most once (Slurm: one step per
 * component in one srun). */
static int het_component_ok(struct job **jobs, int k, struct herd_error *err)
{
	if (!jobs[0]->het_job_id || jobs[k]->het_job_id != jobs[0]->het_job_id)
		return errprintf(err, "a step over several jobs is one over the components of one "
				 "heterogeneous job"), HERD_ERR_INVALID_ARG;
	for (int i = 0; i < k; i++)
		if (jobs[i] == jobs[k])
			return errprintf(err, "Only one job step per heterogeneous job component "
					 "can be launched by a single srun"), HERD_ERR_INVALID_ARG;
	return 0;
}

void step_create(struct net_req *req)
{
	json_t *het = json_object_get(req->body, "het");
	int n = 1 + (int)json_array_size(het);
	struct herd_error err = { "" };
	int rc = 0, k;

	if (n > HET_MAX_COMPONENTS) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "too many heterogeneous step components");
		return;
	}
	struct job **jobs = xmalloc(n * sizeof(*jobs));
	struct step **steps = xmalloc(n * sizeof(*steps));
	json_t *specs = json_array();
	for (k = 0; k < n && !rc; k++) {
		const json_t *part = k ? json_array_get(het, k - 1) : req->body;
		json_t *spec = json_deep_copy(json_object_get(part, "step"));
		json_array_append_new(specs, spec);
		jobs[k] = job_find(json_integer_value(json_object_get(part, "job_id")));
		rc = step_prepare(req, jobs[k], spec, &steps[k], &err);
		if (!rc && k && (rc = het_component_ok(jobs, k, &err)))
			step_free(steps[k]);
	}
	if (rc) {
		for (int i = 0; i < k - 1; i++) {
			step_ports_give(jobs[i], steps[i]);
			step_free(steps[i]);
		}
		net_respond(req, rc, NULL, err.text[0] ? err.text : NULL);
		json_decref(specs);
		free(steps);
		free(jobs);
		return;
	}
	/* One step ID, free in every component's job. */
	uint32_t step_id = 0;
	for (k = 0; k < n; k++)
		if (jobs[k]->next_step_id > step_id)
			step_id = jobs[k]->next_step_id;
	struct step_group *g = xmalloc(sizeof(*g));
	*g = (struct step_group){ req, n, xmalloc(n * sizeof(uint32_t)), step_id, specs, 0, NULL };
	for (k = 0; k < n; k++) {
		g->job_ids[k] = jobs[k]->id;
		step_insert(jobs[k], steps[k], json_array_get(specs, k), step_id, g);
	}
	free(steps);
	free(jobs);
	store_after_commit(launch_after_commit, g);
}

/* ---- N.extern (PrologFlags=Contain) ---- */

static bool prolog_contain(void)
{
	const char *flags = conf_get(core.conf, "PrologFlags");
	return flags && strcasestr(flags, "contain");
}

/* As Slurm with PrologFlags=Contain: when the job starts, an extern step on
 * each of its nodes holds the job's cgroup there until the job ends; it
 * holds no CPUs of the job's steps and runs no task. */
void step_extern_start(struct job *job)
{
	if (!prolog_contain() || !job->nalloc || step_find(job, STEP_EXTERN))
		return;
	struct step *s = xmalloc(sizeof(*s));
	struct hostlist *hl = hostlist_create(NULL);
	s->job_id = job->id;
	s->step_id = STEP_EXTERN;
	s->name = xstrdup("extern");
	s->distribution = xstrdup("block");
	s->state = JOB_RUNNING;
	s->start_time = core_now();
	s->time_limit = -1;
	s->requid = -1;
	s->srun_host = xstrdup("");
	s->nnodes = job->nalloc;
	s->num_tasks = job->nalloc;   /* Slurm counts one per node */
	s->cpus_per_task = 1;
	s->job_node = xmalloc(job->nalloc * sizeof(int));
	s->ntasks = xmalloc(job->nalloc * sizeof(int));
	s->cpuset = xmalloc(job->nalloc * sizeof(*s->cpuset));
	s->node_done = xmalloc(job->nalloc * sizeof(bool));
	for (int j = 0; j < job->nalloc; j++) {
		s->job_node[j] = j;
		s->ntasks[j] = 1;
		s->cpuset[j] = job->alloc_cpuset && job->alloc_cpuset[j] ? bitmap_copy(job->alloc_cpuset[j])
									 : bitmap_create(1);
		hostlist_push(hl, core.nodes[job->alloc_node[j]].name);
	}
	s->nodes_str = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	s->tasks_per_node = launch_counts_string(s->ntasks, s->nnodes);
	count_parts(job, s, +1);
	s->next = job->steps;
	job->steps = s;
	step_save(job, s);

	json_t *launch = launch_object(job, NULL);
	json_object_set_new(launch, "script", json_string(""));
	json_object_set_new(launch, "argv", json_array());
	json_object_set_new(launch, "env", json_array());
	const char *empty[] = { "stdout", "stderr", "stdin" };
	for (size_t k = 0; k < 3; k++)
		json_object_set_new(launch, empty[k], json_string(""));
	json_object_set_new(launch, "cwd", json_string(job->work_dir ? job->work_dir : "/"));
	json_object_set_new(launch, "umask", json_integer(022));
	json_object_del(launch, "cpu_ids");
	json_t *step = json_pack("{s:I, s:s, s:b, s:s, s:i, s:i, s:s, s:[s], s:s, s:i, s:s}",
				 "step_id", (json_int_t)STEP_EXTERN, "step_name", "extern", "extern", 1,
				 "step_nodes", s->nodes_str, "step_num_nodes", s->nnodes,
				 "step_num_tasks", 0, "step_tasks_per_node", "0", "argv", "extern",
				 "io_host", "", "io_port", 1, "io_key", "");
	/* a group without a request: the nodes' answers are only logged */
	struct step_group *g = xmalloc(sizeof(*g));
	*g = (struct step_group){ NULL, 1, xmalloc(sizeof(uint32_t)), STEP_EXTERN, NULL, s->nnodes, NULL };
	g->job_ids[0] = job->id;
	s->group = g;
	send_launches(g, job, s, launch, step, 0, 0);
	json_decref(step);
	json_decref(launch);
}
