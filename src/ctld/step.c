/* Job steps inside an allocation (doc/steps.md): STEP_CREATE lays a step out
 * on the job's nodes and CPUs and has every node daemon start it; each
 * node's herdstepd reports its end (STEP_COMPLETE); the step's record goes
 * to the store for sacct.  Also the jobs that run no batch script (salloc,
 * srun outside an allocation): they end by COMPLETE_ALLOC, a cancel or
 * their time limit.  Not here: where a step's tasks and CPUs go
 * (step_layout.c), STEP_INFO (step_info.c), the node side (src/noded,
 * src/stepd). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/step_impl.h"
#include "sched/select.h"

/* One STEP_CREATE: its step, or one step per component of a heterogeneous
 * job ("het": srun A : B), made together under one step ID, launched
 * together as one set of tasks (global task IDs), and answered once every
 * node's LAUNCH_STEP has.  It names its steps by job and step ID, never by
 * pointer: a component's job may end (and its steps go) meanwhile. */
struct step_group {
	struct net_req *req;        /* NULL once answered */
	int n;
	uint32_t *job_ids;          /* each component's job */
	uint32_t step_id;
	json_t *specs;              /* each component's "step" */
	int launches_left;
	char *launch_error;
};

static struct step *step_find(const struct job *job, uint32_t step_id)
{
	for (struct step *s = job->steps; s; s = s->next)
		if (s->step_id == step_id)
			return s;
	return NULL;
}

/* The parts of the step not yet reported, counted on their nodes. */
static void count_parts(const struct job *job, struct step *s, int delta)
{
	for (int i = 0; i < s->nnodes; i++)
		if (!s->node_done[i])
			core.nodes[job->alloc_node[s->job_node[i]]].nsteps += delta;
}

static void step_free(struct step *s)
{
	for (int i = 0; i < s->nnodes; i++)
		bitmap_destroy(s->cpuset[i]);
	free(s->cpuset);
	free(s->job_node);
	free(s->ntasks);
	free(s->node_done);
	free(s->name);
	free(s->nodes_str);
	free(s->tasks_per_node);
	free(s->distribution);
	free(s->task_node);
	free(s->failed_node);
	free(s->srun_host);
	free(s->container);
	free(s);
}

static void step_end(struct job *job, struct step *s, enum job_state state);

void step_destroy_all(struct job *job)
{
	struct step *s = job->steps, *next;
	for (; s; s = next) {
		next = s->next;
		if (s->group && s->group->req) {
			net_respond(s->group->req, HERD_ERR_ALREADY_DONE, NULL, NULL);
			s->group->req = NULL;
		}
		/* An ended job's step whose nodes never reported (purged, or the
		 * controller stops): it ended with the job.  A running job's
		 * steps stay RUNNING in the store for the next start. */
		if (!job_state_is_final(s->state) && job_state_is_final(job->state) && job->nalloc) {
			s->cancelled = true;
			step_end(job, s, JOB_CANCELLED);
		}
		step_free(s);
	}
	job->steps = NULL;
}

static const char *step_id_name(uint32_t id, char *buf, size_t len)
{
	if (id == STEP_BATCH)
		return "batch";
	if (id == STEP_EXTERN)
		return "extern";
	snprintf(buf, len, "%u", id);
	return buf;
}

static const char *state_of(const struct step *s)
{
	return job_state_name(s->state);
}

json_t *step_to_json(const struct job *job, const struct step *s)
{
	json_t *alloc = json_array();
	for (int i = 0; i < s->nnodes; i++) {
		char *ids = bitmap_fmt_ranges(s->cpuset[i]);
		int j = s->job_node[i];
		json_array_append_new(alloc, json_pack("[s,i,s]", core.nodes[job->alloc_node[j]].name,
						       s->ntasks[i], ids));
		free(ids);
	}
	json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:I, s:I, s:s, s:i, s:I, s:I, s:s, s:s, s:i, s:I,"
			      " s:I, s:I, s:I, s:b, s:o, s:b, s:s, s:I, s:I, s:I}",
			      "job_id", (json_int_t)s->job_id, "step_id", (json_int_t)s->step_id,
			      "name", s->name, "state", state_of(s),
			      "start_time", (json_int_t)s->start_time, "end_time", (json_int_t)s->end_time,
			      "nodes", s->nodes_str, "num_nodes", s->nnodes,
			      "num_tasks", (json_int_t)s->num_tasks,
			      "cpus_per_task", (json_int_t)s->cpus_per_task,
			      "tasks_per_node", s->tasks_per_node, "distribution", s->distribution,
			      "exit_code", s->exit_status, "time_limit", (json_int_t)s->time_limit,
			      "cpu_time_us", (json_int_t)s->cpu_time_us,
			      "max_rss_kb", (json_int_t)s->max_rss_kb,
			      "ave_rss_kb", (json_int_t)(s->nodes_done ? s->ave_rss_sum / s->nodes_done : 0),
			      "holds", s->holds, "alloc", alloc, "oom", s->oom,
			      "failed_node", s->failed_node ? s->failed_node : "",
			      "mem_mb", (json_int_t)s->mem_mb, "uid", (json_int_t)job->uid,
			      "num_cpus", (json_int_t)0);
	if (s->requid >= 0 && s->cancelled)
		json_object_set_new(o, "requid", json_integer(s->requid));
	json_object_set_new(o, "tot_rss_kb", json_integer((json_int_t)s->tot_rss_kb));
	json_object_set_new(o, "max_cpu_us", json_integer((json_int_t)s->max_cpu_us));
	json_object_set_new(o, "srun_host", json_string(s->srun_host ? s->srun_host : ""));
	json_object_set_new(o, "srun_pid", json_integer(s->srun_pid));
	if (s->container)   /* sacct's Container */
		json_object_set_new(o, "container", json_string(s->container));
	if (s->nports) {   /* restored after a restart */
		char ports[32];
		step_ports_string(s, ports, sizeof(ports));
		json_object_set_new(o, "resv_ports", json_string(ports));
	}
	json_int_t cpus = 0;
	for (int i = 0; i < s->nnodes; i++)
		cpus += s->holds || s->cpuset[i]->nbits > 1 ? bitmap_count(s->cpuset[i])
							    : s->ntasks[i] * s->cpus_per_task;
	json_object_set_new(o, "num_cpus", json_integer(cpus));
	return o;
}

static void save(const struct job *job, const struct step *s)
{
	store_step_save(s->job_id, s->step_id, s->state, step_to_json(job, s));
}

/* The step is over (every node reported, the job ended, or a node failed). */
static void step_end(struct job *job, struct step *s, enum job_state state)
{
	char buf[16];
	if (job_state_is_final(s->state))
		return;
	s->state = state;
	s->end_time = core_now();
	step_layout_hold(job, s, false);
	step_ports_give(job, s);
	if (!s->parts_out) {
		count_parts(job, s, -1);
		s->parts_out = true;
	}
	save(job, s);
	log_info("job %u: step %s %s (status %d)", job->id, step_id_name(s->step_id, buf, sizeof(buf)),
		 state_of(s), s->exit_status);
}

/* The final state from what the nodes said. */
static enum job_state final_state(const struct step *s)
{
	if (s->failed_node)
		return JOB_NODE_FAIL;
	/* killed because its job ended: as Slurm, CANCELLED */
	if (s->cancelled || (s->with_job && WIFSIGNALED(s->exit_status)))
		return JOB_CANCELLED;
	if (s->timed_out)
		return JOB_TIMEOUT;
	if (s->oom)
		return JOB_OUT_OF_MEMORY;
	if (s->launch_failed)
		return JOB_FAILED;
	if (WIFEXITED(s->exit_status) && WEXITSTATUS(s->exit_status) == 0)
		return JOB_COMPLETED;
	if (WIFSIGNALED(s->exit_status))
		return JOB_CANCELLED;   /* Slurm: a step a signal ended is CANCELLED */
	return JOB_FAILED;
}

/* Exit statuses compare as Slurm's: an exit code above a signal above 0. */
static int worse(int a, int b)
{
	int ka = WIFEXITED(a) ? WEXITSTATUS(a) : WIFSIGNALED(a) ? 128 + WTERMSIG(a) : 0;
	int kb = WIFEXITED(b) ? WEXITSTATUS(b) : WIFSIGNALED(b) ? 128 + WTERMSIG(b) : 0;
	return kb > ka ? b : a;
}

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
static void group_fail(struct step_group *g, const char *why)
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
			group_fail(g, g->launch_error);
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
			       "exact", "exclusive", "req_nodelist", "exc_nodelist", "name" };
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
		group_fail(g, "the controller could not save the step");
		group_free(g);
		return;
	}
	struct strbuf nodes = { 0 }, tpn = { 0 };
	json_int_t ntasks = 0;
	int nnodes = 0;
	for (int k = 0; k < g->n; k++) {
		if (!(s = group_step(g, k, &job)) || job_state_is_final(s->state)) {
			group_fail(g, herd_strerror(HERD_ERR_ALREADY_DONE));
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
	    !step_layout_count_ok(spec, "ntasks_per_socket") || !step_layout_count_ok(spec, "ntasks_per_core"))
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
	s->mem_mb = mem ? mem : mem_cpu ? sched_umul(sched_umul(mem_cpu, s->ntasks[0]), s->cpus_per_task) : 0;
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
	save(job, s);
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
	save(job, s);

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

/* ---- STEP_COMPLETE ---- */

void step_complete(struct net_req *req)
{
	json_t *b = req->body;
	uint32_t id = json_integer_value(json_object_get(b, "job_id"));
	uint32_t step_id = json_integer_value(json_object_get(b, "step_id"));
	const char *node = json_string_value(json_object_get(b, "node"));
	struct job *job = job_find(id);
	struct step *s = job ? step_find(job, step_id) : NULL;
	int k = -1;

	if (s)
		for (int i = 0; i < s->nnodes; i++)
			if (!strcmp(core.nodes[job->alloc_node[s->job_node[i]]].name, node))
				k = i;
	if (!s || k < 0 || s->node_done[k]) {   /* a repeat, or long gone */
		net_respond(req, 0, NULL, NULL);
		return;
	}
	if (!s->parts_out)
		core.nodes[job->alloc_node[s->job_node[k]]].nsteps--;
	s->node_done[k] = true;
	s->nodes_done++;
	s->exit_status = worse(s->exit_status, json_integer_value(json_object_get(b, "status")));
	s->timed_out |= json_is_true(json_object_get(b, "timed_out"));
	s->cancelled |= job->cancel_requested;   /* ended by the job's scancel */
	s->oom |= json_is_true(json_object_get(b, "oom"));
	uint64_t cpu = json_integer_value(json_object_get(b, "cpu_time_us"));
	s->cpu_time_us += cpu;
	if (cpu > s->max_cpu_us)
		s->max_cpu_us = cpu;
	uint64_t rss = json_integer_value(json_object_get(b, "max_rss_kb"));
	if (rss > s->max_rss_kb)
		s->max_rss_kb = rss;
	s->tot_rss_kb += rss;
	s->ave_rss_sum += json_integer_value(json_object_get(b, "ave_rss_kb"));
	if (job_state_is_final(s->state))
		save(job, s);   /* ended with the job: the usage still counts */
	else if (s->nodes_done == s->nnodes)
		step_end(job, s, final_state(s));
	respond_durable(req, 0, false);
}

/* ---- cancel, job end, node failure ---- */

int step_cancel(struct job *job, uint32_t step_id, int sig, uid_t uid)
{
	struct step *s = step_find(job, step_id);

	if (step_id == STEP_BATCH && !job->alloc_only && job->nalloc) {
		if (!sig)
			return HERD_ERR_INVALID_ARG;   /* the batch step ends with the job: scancel N */
		launch_signal(job, sig, "batch");
		return 0;
	}
	if (!s)
		return HERD_ERR_NO_STEP;
	if (job_state_is_final(s->state))
		return HERD_ERR_ALREADY_DONE;
	if (!sig) {
		char *who = xasprintf("%u step %u", (unsigned)uid, s->step_id);
		store_job_event(job->id, "STEP_CANCEL", who);
		free(who);
		s->cancelled = true;
		s->requid = uid;
	}
	for (int i = 0; i < s->nnodes; i++)
		launch_step_signal(&core.nodes[job->alloc_node[s->job_node[i]]], job->id, s->step_id, sig);
	return 0;
}

void step_job_ended(struct job *job, enum job_state state)
{
	bool any = false;
	for (struct step *s = job->steps; s; s = s->next) {
		if (job_state_is_final(s->state) || s->with_job)
			continue;
		any = true;
		if (s->group && s->group->req) {
			group_fail(s->group, herd_strerror(HERD_ERR_ALREADY_DONE));
			continue;
		}
		if (state == JOB_TIMEOUT) {
			s->timed_out = true;
		} else if (state == JOB_NODE_FAIL) {
			if (!s->failed_node)
				s->failed_node = xstrdup("");
		} else if (state == JOB_CANCELLED || state == JOB_PREEMPTED || state == JOB_DEADLINE) {
			s->cancelled = true;
		} else {
			/* The job ended on its own (its batch script, salloc's command,
			 * or srun done with its step): the step's nodes report in a
			 * moment (srun's own step has already ended there); what is
			 * still running is killed and counts as CANCELLED. */
			s->with_job = true;
			step_layout_hold(job, s, false);
			step_ports_give(job, s);
			continue;
		}
		step_end(job, s, final_state(s));
	}
	/* Their processes: every node of the job (the batch node's herdstepd
	 * ends the batch script itself). */
	if (any || job->alloc_only)
		launch_terminate(job);
}

void step_node_failed(struct job *job, int idx)
{
	for (struct step *s = job->steps; s; s = s->next) {
		if (job_state_is_final(s->state))
			continue;
		for (int i = 0; i < s->nnodes; i++)
			if (job->alloc_node[s->job_node[i]] == idx && !s->failed_node)
				s->failed_node = xstrdup(core.nodes[idx].name);
	}
}

void step_node_dropped(struct job *job, int pos)
{
	for (struct step *s = job->steps; s; s = s->next) {
		bool there = false;
		for (int i = 0; i < s->nnodes; i++)
			there |= s->job_node[i] == pos;
		if (there && !job_state_is_final(s->state)) {
			/* its tasks elsewhere lost their peers: stopped */
			for (int i = 0; i < s->nnodes; i++)
				if (s->job_node[i] != pos)
					launch_step_signal(&core.nodes[job->alloc_node[s->job_node[i]]],
							   job->id, s->step_id, SIGKILL);
			if (!s->failed_node)
				s->failed_node = xstrdup(core.nodes[job->alloc_node[pos]].name);
			step_end(job, s, JOB_NODE_FAIL);
		}
		/* An ended step keeps its node names (nodes_str); a late report
		 * from the dropped node finds it done. */
		for (int i = 0; i < s->nnodes; i++) {
			if (s->job_node[i] == pos) {
				s->job_node[i] = 0;
				s->node_done[i] = true;
			} else if (s->job_node[i] > pos) {
				s->job_node[i]--;
			}
		}
	}
}

/* ---- a herdstepd that died without a word ---- */

struct reconcile {
	int idx;
	const json_t *reported;
	time_t now;
};

static bool reported(const json_t *list, uint32_t job_id, uint32_t step_id)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
		if (json_integer_value(json_array_get(v, 0)) == job_id &&
		    json_integer_value(json_array_get(v, 1)) == step_id)
			return true;
	return false;
}

static void reconcile_job(struct job *job, void *arg)
{
	struct reconcile *r = arg;
	for (struct step *s = job->steps; s; s = s->next) {
		if (s->parts_out || s->group || s->start_time + 30 >= r->now)
			continue;
		for (int i = 0; i < s->nnodes; i++) {
			if (s->node_done[i] || job->alloc_node[s->job_node[i]] != r->idx ||
			    reported(r->reported, job->id, s->step_id))
				continue;
			log_error("job %u: step %u lost its herdstepd on %s", job->id, s->step_id,
				  core.nodes[r->idx].name);
			core.nodes[r->idx].nsteps--;
			s->node_done[i] = true;
			s->nodes_done++;
			s->exit_status = worse(s->exit_status, SIGKILL);
			if (s->nodes_done == s->nnodes)
				step_end(job, s, final_state(s));
		}
	}
}

void step_reconcile(int idx, const json_t *list, time_t now)
{
	struct reconcile r = { idx, list, now };
	job_foreach(reconcile_job, &r);
}

/* ---- restart ---- */

void step_restore(const json_t *rec)
{
	uint32_t id = json_integer_value(json_object_get(rec, "job_id"));
	struct job *job = job_find(id);
	json_t *alloc = json_object_get(rec, "alloc"), *a;
	size_t i;

	if (!job || (job->state != JOB_RUNNING && job->state != JOB_COMPLETING) || !job->nalloc) {
		/* Its job ended while the controller was down: so did the step. */
		json_t *done = json_deep_copy(rec);
		json_object_set_new(done, "state", json_string("CANCELLED"));
		json_object_set_new(done, "end_time", json_integer(job && job->end_time ? job->end_time
									 : core_now()));
		store_step_save(id, json_integer_value(json_object_get(rec, "step_id")), JOB_CANCELLED, done);
		return;
	}
	struct step *s = xmalloc(sizeof(*s));
	s->requid = -1;
	s->job_id = id;
	s->step_id = json_integer_value(json_object_get(rec, "step_id"));
	s->name = xstrdup(json_string_value(json_object_get(rec, "name")) ?: "");
	s->state = JOB_RUNNING;
	s->start_time = json_integer_value(json_object_get(rec, "start_time"));
	s->num_tasks = json_integer_value(json_object_get(rec, "num_tasks"));
	s->cpus_per_task = json_integer_value(json_object_get(rec, "cpus_per_task"));
	s->time_limit = json_integer_value(json_object_get(rec, "time_limit"));
	s->mem_mb = json_integer_value(json_object_get(rec, "mem_mb"));
	s->nodes_str = xstrdup(json_string_value(json_object_get(rec, "nodes")) ?: "");
	s->tasks_per_node = xstrdup(json_string_value(json_object_get(rec, "tasks_per_node")) ?: "");
	s->distribution = xstrdup(json_string_value(json_object_get(rec, "distribution")) ?: "block");
	s->holds = json_is_true(json_object_get(rec, "holds"));
	s->srun_host = xstrdup(json_string_value(json_object_get(rec, "srun_host")) ?: "");
	const char *bundle = json_string_value(json_object_get(rec, "container"));
	s->container = bundle && *bundle ? xstrdup(bundle) : NULL;
	s->srun_pid = json_integer_value(json_object_get(rec, "srun_pid"));
	size_t n = json_array_size(alloc);
	s->job_node = xmalloc((n + 1) * sizeof(int));
	s->ntasks = xmalloc((n + 1) * sizeof(int));
	s->cpuset = xmalloc((n + 1) * sizeof(*s->cpuset));
	json_array_foreach(alloc, i, a) {
		int idx = node_index(json_string_value(json_array_get(a, 0)) ?: ""), j = -1;
		for (int k = 0; k < job->nalloc; k++)
			if (job->alloc_node[k] == idx)
				j = k;
		if (j < 0)
			continue;
		s->job_node[s->nnodes] = j;
		s->ntasks[s->nnodes] = json_integer_value(json_array_get(a, 1));
		s->cpuset[s->nnodes] = bitmap_parse(json_string_value(json_array_get(a, 2)) ?: "", 1u << 20);
		if (!s->cpuset[s->nnodes])
			s->cpuset[s->nnodes] = bitmap_create(1);
		s->nnodes++;
	}
	s->node_done = xmalloc((s->nnodes + 1) * sizeof(bool));
	count_parts(job, s, +1);
	step_layout_hold(job, s, true);
	step_ports_restore(job, s, json_string_value(json_object_get(rec, "resv_ports")));
	s->next = job->steps;
	job->steps = s;
}

/* ---- jobs without a batch script ---- */

void step_complete_alloc(struct net_req *req)
{
	uint32_t id = json_integer_value(json_object_get(req->body, "job_id"));
	int status = json_integer_value(json_object_get(req->body, "status"));
	struct job *job = job_find(id);

	if (!job || !job->alloc_only) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return;
	}
	/* salloc's own word that its command ended: its holder's, not a role's
	 * (an operator ends another's allocation with scancel) */
	if (!roles_may_act_as_owner(req->uid, job)) {
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	if (job_state_is_final(job->state)) {
		net_respond(req, 0, NULL, NULL);   /* cancelled or timed out already */
		return;
	}
	job->exit_status = status;
	if (job->state == JOB_PENDING)
		job_set_state(job, JOB_CANCELLED, REASON_NONE);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		job_set_state(job, JOB_COMPLETED, REASON_NONE);
	else
		job_set_state(job, JOB_FAILED, REASON_NONZERO_EXIT);
	respond_durable(req, id, false);
}

static void alloc_limit(struct job *job, void *arg)
{
	time_t now = *(time_t *)arg;
	if (job->alloc_only && job->state == JOB_RUNNING && job->time_limit >= 0 &&
	    job->start_time + job->time_limit <= now) {
		log_info("job %u: time limit reached", job->id);
		job_set_state(job, JOB_TIMEOUT, REASON_TIME_LIMIT);
	}
}

void step_check_alloc_limits(time_t now)
{
	job_foreach(alloc_limit, &now);
}
