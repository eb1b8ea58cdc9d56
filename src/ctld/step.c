/* Job steps inside an allocation (doc/steps.md), once made (STEP_CREATE and
 * the launch: step_launch.c): each node's herdstepd reports its end
 * (STEP_COMPLETE); the step's record goes
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


struct step *step_find(const struct job *job, uint32_t step_id)
{
	for (struct step *s = job->steps; s; s = s->next)
		if (s->step_id == step_id)
			return s;
	return NULL;
}

/* The parts of the step not yet reported, counted on their nodes. */
void count_parts(const struct job *job, struct step *s, int delta)
{
	for (int i = 0; i < s->nnodes; i++)
		if (!s->node_done[i])
			core.nodes[job->alloc_node[s->job_node[i]]].nsteps += delta;
}

void step_free(struct step *s)
{
	step_gres_free(s);
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
	step_gres_to_json(job, s, o);   /* tres_gres: sacct's gres/ part of the step's AllocTRES */
	return o;
}

void step_save(const struct job *job, const struct step *s)
{
	store_step_save(s->job_id, s->step_id, s->state, step_to_json(job, s));
}

/* The step is over (every node reported, the job ended, or a node failed). */
void step_end(struct job *job, struct step *s, enum job_state state)
{
	char buf[16];
	if (job_state_is_final(s->state))
		return;
	s->state = state;
	s->end_time = core_now();
	step_layout_hold(job, s, false);
	step_ports_give(job, s);
	s->gres_holds = false;   /* its GRES go back to the job's other steps */
	if (!s->parts_out) {
		count_parts(job, s, -1);
		s->parts_out = true;
	}
	step_save(job, s);
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
		step_save(job, s);   /* ended with the job: the usage still counts */
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
			step_group_fail(s->group, herd_strerror(HERD_ERR_ALREADY_DONE));
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
			s->gres_holds = false;
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
	int *rec_node = xmalloc((n + 1) * sizeof(int));   /* each step node's place in alloc */
	json_array_foreach(alloc, i, a) {
		int idx = node_index(json_string_value(json_array_get(a, 0)) ?: ""), j = -1;
		for (int k = 0; k < job->nalloc; k++)
			if (job->alloc_node[k] == idx)
				j = k;
		if (j < 0)
			continue;
		s->job_node[s->nnodes] = j;
		rec_node[s->nnodes] = (int)i;
		s->ntasks[s->nnodes] = json_integer_value(json_array_get(a, 1));
		s->cpuset[s->nnodes] = bitmap_parse(json_string_value(json_array_get(a, 2)) ?: "", 1u << 20);
		if (!s->cpuset[s->nnodes])
			s->cpuset[s->nnodes] = bitmap_create(1);
		s->nnodes++;
	}
	s->node_done = xmalloc((s->nnodes + 1) * sizeof(bool));
	step_gres_restore(s, rec, rec_node);   /* its GRES, held again */
	free(rec_node);
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
