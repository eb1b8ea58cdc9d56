/* Messages from the controller to node daemons: start a job's batch step,
 * signal it, terminate it.  Sent from the worker pool (net_call_async) so a
 * slow or dead node never stalls the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bitmap.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

static struct net_target node_target(const struct node *n)
{
	return (struct net_target){ n->addr, n->port, n->dest, ctld.ctld_target.munge_socket };
}

/* Slurm's compressed per-node counts: "2(x3),1". */
char *launch_counts_string(const int *v, int n)
{
	struct strbuf out = { 0 };
	char piece[48];

	strbuf_add(&out, "", 0);
	for (int i = 0; i < n;) {
		int k = i;
		while (k < n && v[k] == v[i])
			k++;
		if (k - i > 1)
			snprintf(piece, sizeof(piece), "%s%d(x%d)", i ? "," : "", v[i], k - i);
		else
			snprintf(piece, sizeof(piece), "%s%d", i ? "," : "", v[i]);
		strbuf_adds(&out, piece);
		i = k;
	}
	return out.s;
}

/* Tasks on each allocated node: spread evenly with -N (the first nodes get
 * the remainder, as Slurm's block distribution), else as CPUs allow. */
static int *tasks_per_node(const struct job *job)
{
	int n = job->nalloc, cpt = job->cpus_per_task ? job->cpus_per_task : 1;
	/* no -n: one task per node of -N (all it got, for -N min-max) */
	int ntasks = job->ntasks ? job->ntasks : (job->req_nodes ? n : 1);
	int *t = xmalloc(n * sizeof(int)), left = ntasks;

	for (int i = 0; i < n; i++) {
		if (job->req_nodes)
			t[i] = ntasks / n + (i < ntasks % n);
		else {
			int room = job->alloc_cpus[i] / cpt;
			t[i] = i == n - 1 || room > left ? left : room;
		}
		left -= t[i];
	}
	return t;
}

static void launch_done(void *arg, json_t *reply, const struct herd_error *err)
{
	uint32_t id = (uintptr_t)arg;
	struct job *job = job_find(id);
	struct herd_error rerr;

	if (!job || job->launch != LAUNCH_SENT)
		return;
	if (reply && msg_reply_rc(reply, &rerr) == 0) {
		job->launch = LAUNCH_DONE;
		/* a cancel or requeue came while the launch was on its way */
		if (job->state == JOB_COMPLETING && (job->cancel_requested || job->requeue_requested))
			launch_terminate(job);
		return;
	}
	job->launch = LAUNCH_NONE;
	if (job->state == JOB_COMPLETING && job->cancel_requested) {
		job_set_state(job, job_cancelled_state(job), REASON_NONE);   /* it never started */
		return;
	}
	if (job->state == JOB_COMPLETING && job->requeue_requested) {
		job_requeue_finish(job);   /* it never started: queued again at once */
		return;
	}
	if (job->state != JOB_RUNNING)
		return;
	struct node *host = &core.nodes[job_batch_node(job)];
	log_error("job %u: launch on %s failed: %s", id, host->name, reply ? rerr.text : err->text);
	if (!reply) {
		/* The node did not answer (its herdd is down or restarting): as
		 * Slurm, the job goes back to the queue, not held, and the node
		 * gets no more work until it registers again.  Should the
		 * launch have arrived after all, the node's next registration
		 * reports a job that must not run there, and it is ended. */
		if (!host->not_responding)
			log_error("node %s not responding to a launch; no new jobs until it registers",
				  host->name);
		host->not_responding = true;
		job_requeue_finish(job);
		return;
	}
	/* As Slurm: a launch the node refused goes back to the queue, held,
	 * for an administrator to look at. */
	node_free(job);
	job_alloc_clear(job);
	free(job->nodes_str);
	job->nodes_str = NULL;
	job->restarts++;
	job->hold_admin = true;
	job->priority = 0;
	job->start_time = 0;
	job_set_state(job, JOB_PENDING, REASON_LAUNCH_FAILED);
}

/* The LAUNCH keys every herdstepd of the job gets (doc/protocol.md): the job's
 * own, and from spec (the stored submission) what the user wrote. */
json_t *launch_object(const struct job *job, const json_t *spec)
{
	int *tasks = tasks_per_node(job);
	char *tpn = launch_counts_string(tasks, job->nalloc);
	int ntasks = 0;
	json_t *launch = json_object();

	for (int i = 0; i < job->nalloc; i++)
		ntasks += tasks[i];
	/* The submitted text, as the user wrote it. */
	const char *from_spec[] = { "umask", "script", "argv", "env", "cwd", "stdout", "stderr", "stdin" };
	for (size_t k = 0; k < sizeof(from_spec) / sizeof(from_spec[0]); k++)
		json_object_set(launch, from_spec[k], json_object_get(spec, from_spec[k]));
	/* Task placement and environment options, when given (doc/steps.md):
	 * the batch step acts on them, and a step takes the job's by default. */
	const char *task_opts[] = { "distribution", "ntasks_per_socket", "ntasks_per_core", "hint",
				    "mem_bind", "propagate", "rlimits", "get_user_env" };
	for (size_t k = 0; k < sizeof(task_opts) / sizeof(task_opts[0]); k++)
		if (json_object_get(spec, task_opts[k]))
			json_object_set(launch, task_opts[k], json_object_get(spec, task_opts[k]));
	/* SLURM_JOB_DEPENDENCY: the --dependency given at submit */
	const char *dep = json_string_value(json_object_get(spec, "dependency"));
	if (dep && *dep)
		json_object_set_new(launch, "dependency", json_string(dep));
	json_t *o = json_pack("{s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s,"
			      " s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:I}",
			      "job_id", (json_int_t)job->id, "uid", (json_int_t)job->uid,
			      "gid", (json_int_t)job->gid, "user", job->user ? job->user : "",
			      "name", job->name ? job->name : "", "partition", job->part->name,
			      "account", job->account ? job->account : "", "cluster", core.cluster,
			      "submit_host", job->submit_host ? job->submit_host : "",
			      "nodes", job->nodes_str, "tasks_per_node", tpn,
			      "num_nodes", job->nalloc, "ntasks", ntasks,
			      "cpus_per_task", (int)job->cpus_per_task, "cpus_on_node", job->alloc_cpus[0],
			      "mem_mb", (json_int_t)(job->mem_per_cpu ? 0 : job->alloc_mem),
			      "time_limit", (json_int_t)job->time_limit, "kill_wait", core.kill_wait,
			      "start_time", (json_int_t)job->start_time);
	json_object_update(launch, o);
	json_decref(o);
	char *cpn = launch_counts_string(job->alloc_cpus, job->nalloc);
	json_object_set_new(launch, "cpus_per_node", json_string(cpn));
	json_object_set_new(launch, "restarts", json_integer(job->restarts));
	if (job->array_job_id) {
		json_t *a = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
				      "array_job_id", (json_int_t)job->array_job_id,
				      "array_task_id", (json_int_t)job->array_task_id,
				      "array_task_count", (json_int_t)job->array_count,
				      "array_task_min", (json_int_t)job->array_min,
				      "array_task_max", (json_int_t)job->array_max,
				      "array_task_step", (json_int_t)job->array_step);
		json_object_update(launch, a);
		json_decref(a);
	}
	if (job->het_job_id)   /* SLURM_JOB_ID of a het job's steps: the leader's */
		json_object_set_new(launch, "het_job_id", json_integer(job->het_job_id));
	json_object_set_new(launch, "qos", json_string(job->qos ? job->qos : "normal"));
	if (job->container)     /* --container: the batch script runs in it */
		json_object_set_new(launch, "container", json_string(job->container));
	if (job->reservation)   /* SLURM_JOB_RESERVATION */
		json_object_set_new(launch, "reservation", json_string(job->reservation));
	if (job->mem_per_cpu)
		json_object_set_new(launch, "mem_per_cpu", json_integer((json_int_t)job->mem_per_cpu));
	if (job->ntasks_per_node)
		json_object_set_new(launch, "ntasks_per_node", json_integer(job->ntasks_per_node));
	if (job->overcommit)   /* SLURM_OVERCOMMIT=1 (sbatch -O) */
		json_object_set_new(launch, "overcommit", json_true());
	json_object_set_new(launch, "open_mode", json_string(job->open_append ? "append" : "truncate"));
	if (job->signal) {
		json_object_set_new(launch, "signal", json_integer(job->signal));
		json_object_set_new(launch, "signal_time", json_integer(job->signal_time));
		json_object_set_new(launch, "signal_flags", json_string(job->signal_batch ? "B" : ""));
	}
	if (job->alloc_cpuset && job->alloc_cpuset[0]) {
		char *ids = bitmap_fmt_ranges(job->alloc_cpuset[0]);
		json_object_set_new(launch, "cpu_ids", json_string(ids));   /* the batch node's */
		free(ids);
	}
	for (int i = 0; i < job->nalloc; i++)   /* the batch node's GRES (doc/gres.md) */
		if (job->alloc_node[i] == job_batch_node(job)) {
			json_t *gres = job_gres_launch(job, i);
			if (gres)
				json_object_set_new(launch, "gres", gres);
		}
	free(cpn);
	free(tasks);
	free(tpn);
	return launch;
}

static void env_add(json_t *env, const char *name, int group, const char *value)
{
	char *het = xasprintf("%s_HET_GROUP_%d=%s", name, group, value);
	char *pack = xasprintf("%s_PACK_GROUP_%d=%s", name, group, value);   /* the older name */
	json_array_append_new(env, json_string(het));
	json_array_append_new(env, json_string(pack));
	free(het);
	free(pack);
}

/* A het job's batch script (its leader's) also gets each component's
 * variables, named as Slurm's with _HET_GROUP_N (and _PACK_GROUP_N), and
 * SLURM_HET_SIZE; the plain ones are component 0's.  Put after the
 * submitter's environment in "env", which the job's own variables
 * override but these do not (none has their names). */
static void het_env(const struct job *job, json_t *launch)
{
	const json_t *given = json_object_get(launch, "env");
	json_t *env = json_is_array(given) ? json_copy((json_t *)given) : json_array();
	char num[32];

	snprintf(num, sizeof(num), "%u", (unsigned)job->het_size);
	char *size = xasprintf("SLURM_HET_SIZE=%s", num), *psize = xasprintf("SLURM_PACK_SIZE=%s", num);
	json_array_append_new(env, json_string(size));
	json_array_append_new(env, json_string(psize));
	free(size);
	free(psize);
	for (uint32_t k = 0; k < job->het_size; k++) {
		const struct job *c = het_component(job->het_job_id, k);
		if (!c || !c->nalloc)
			continue;
		int *tasks = tasks_per_node(c), ntasks = 0;
		for (int i = 0; i < c->nalloc; i++)
			ntasks += tasks[i];
		char *tpn = launch_counts_string(tasks, c->nalloc);
		char *cpn = launch_counts_string(c->alloc_cpus, c->nalloc);
		if (c->account)
			env_add(env, "SLURM_JOB_ACCOUNT", k, c->account);
		env_add(env, "SLURM_JOB_CPUS_PER_NODE", k, cpn);
		snprintf(num, sizeof(num), "%u", (unsigned)c->id);
		env_add(env, "SLURM_JOB_ID", k, num);
		env_add(env, "SLURM_JOB_NAME", k, c->name ? c->name : "");
		env_add(env, "SLURM_JOB_NODELIST", k, c->nodes_str);
		snprintf(num, sizeof(num), "%d", c->nalloc);
		env_add(env, "SLURM_JOB_NUM_NODES", k, num);
		env_add(env, "SLURM_JOB_PARTITION", k, c->part ? c->part->name : "");
		env_add(env, "SLURM_JOB_QOS", k, c->qos ? c->qos : "normal");
		snprintf(num, sizeof(num), "%d", ntasks);
		env_add(env, "SLURM_NPROCS", k, num);
		env_add(env, "SLURM_NTASKS", k, num);
		env_add(env, "SLURM_TASKS_PER_NODE", k, tpn);
		free(tasks);
		free(tpn);
		free(cpn);
	}
	json_object_set_new(launch, "env", env);
}

void launch_job(struct job *job)
{
	const struct node *host = &core.nodes[job_batch_node(job)];
	json_t *spec, *body;

	step_extern_start(job);   /* PrologFlags=Contain */
	if (job->alloc_only) {
		job->launch = LAUNCH_DONE;   /* salloc/srun: nothing runs until a step comes */
		log_info("job %u: allocation granted on %s", job->id, job->nodes_str);
		return;
	}
	/* An array task's script is its array's, in the meta record's row. */
	spec = store_job_spec(job->array_job_id ? job->array_job_id : job->id);
	if (!spec) {
		log_error("job %u: no script in the store", job->id);
		job->exit_status = 1 << 8;
		job_set_state(job, JOB_FAILED, REASON_NONE);
		return;
	}
	json_t *launch = launch_object(job, spec);
	if (job->het_job_id)
		het_env(job, launch);
	body = json_pack("{s:I, s:o}", "job_id", (json_int_t)job->id, "launch", launch);
	job->launch = LAUNCH_SENT;
	struct net_target to = node_target(host);
	net_call_async(ctld.loop, &to, MSG_LAUNCH_JOB, body, 30000, launch_done,
		       (void *)(uintptr_t)job->id);
	log_info("job %u: launching on %s", job->id, host->name);
	json_decref(body);
	json_decref(spec);
}

static void node_reply_logged(void *arg, json_t *reply, const struct herd_error *err)
{
	uint32_t id = (uintptr_t)arg;
	struct herd_error rerr;
	if (!reply)
		log_error("job %u: node did not answer: %s", id, err->text);
	else if (msg_reply_rc(reply, &rerr) != 0)
		log_info("job %u: node answered: %s", id, rerr.text);
}

void launch_terminate_id(struct node *node, uint32_t job_id)
{
	json_t *body = json_pack("{s:I, s:i}", "job_id", (json_int_t)job_id, "kill_wait", core.kill_wait);
	struct net_target to = node_target(node);
	net_call_async(ctld.loop, &to, MSG_TERMINATE_JOB, body, 10000, node_reply_logged,
		       (void *)(uintptr_t)job_id);
	json_decref(body);
}

/* Every node of the job: its steps may run on any of them. */
void launch_terminate(struct job *job)
{
	for (int i = 0; i < job->nalloc; i++)
		launch_terminate_id(&core.nodes[job->alloc_node[i]], job->id);
}

/* then, once every node answered (preemption and gang wait for it before
 * they start the next jobs on those CPUs). */
struct suspend_wait {
	uint32_t job_id;
	int left;
	void (*then)(void *arg);
	void *arg;
};

static void suspend_reply(void *arg, json_t *reply, const struct herd_error *err)
{
	struct suspend_wait *w = arg;

	node_reply_logged((void *)(uintptr_t)w->job_id, reply, err);
	if (--w->left > 0)
		return;
	if (w->then)
		w->then(w->arg);
	free(w);
}

void launch_suspend(struct job *job, bool suspend, void (*then)(void *arg), void *arg)
{
	if (!job->nalloc) {
		if (then)
			then(arg);
		return;
	}
	struct suspend_wait *w = xmalloc(sizeof(*w));
	*w = (struct suspend_wait){ job->id, job->nalloc, then, arg };
	for (int i = 0; i < job->nalloc; i++) {
		json_t *body = json_pack("{s:I, s:b}", "job_id", (json_int_t)job->id, "suspend", suspend);
		struct net_target to = node_target(&core.nodes[job->alloc_node[i]]);
		net_call_async(ctld.loop, &to, MSG_SUSPEND_JOB, body, 10000, suspend_reply, w);
		json_decref(body);
	}
}

/* One step's herdstepd on one node: TERMINATE (sig 0) or a signal. */
void launch_step_signal(struct node *node, uint32_t job_id, uint32_t step_id, int sig)
{
	json_t *body = sig ? json_pack("{s:I, s:i, s:s, s:I}", "job_id", (json_int_t)job_id, "signal", sig,
				       "flags", "", "step_id", (json_int_t)step_id)
			   : json_pack("{s:I, s:i, s:I}", "job_id", (json_int_t)job_id, "kill_wait",
				       core.kill_wait, "step_id", (json_int_t)step_id);
	struct net_target to = node_target(node);
	net_call_async(ctld.loop, &to, sig ? MSG_SIGNAL_JOB : MSG_TERMINATE_JOB, body, 10000,
		       node_reply_logged, (void *)(uintptr_t)job_id);
	json_decref(body);
}

struct net_target launch_node_target(const struct node *n)
{
	return node_target(n);
}

/* --batch reaches the batch node alone; a plain signal and --full every
 * node of the job, where its steps run. */
void launch_signal(struct job *job, int signal, const char *flags)
{
	bool batch = !strcmp(flags, "batch") && !job->alloc_only;
	for (int i = 0; i < (batch ? 1 : job->nalloc) && i < job->nalloc; i++) {
		json_t *body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)job->id, "signal",
					 signal, "flags", flags);
		int node = batch ? job_batch_node(job) : job->alloc_node[i];
		struct net_target to = node_target(&core.nodes[node]);
		net_call_async(ctld.loop, &to, MSG_SIGNAL_JOB, body, 10000, node_reply_logged,
			       (void *)(uintptr_t)job->id);
		json_decref(body);
	}
}

/* scontrol update TimeLimit= of a running job: its herdstepd enforces the
 * limit, so it must hear the new one (counted from the job's start).  Right
 * after a launch herdd may not have the job's herdstepd yet ("Job not
 * running", or not the job at all while the launch is on its way): the
 * message is sent again, a few times, while the job still runs. */
struct limit_send {
	uv_timer_t timer;
	uint32_t job_id;
	int tries;
};

static void limit_send_now(struct limit_send *ls);

static void limit_freed(uv_handle_t *h)
{
	free(h->data);
}

static void limit_retry(uv_timer_t *t)
{
	limit_send_now(t->data);
}

static void limit_reply(void *arg, json_t *reply, const struct herd_error *err)
{
	struct limit_send *ls = arg;
	struct herd_error rerr;
	struct job *job = job_find(ls->job_id);
	int rc = reply ? msg_reply_rc(reply, &rerr) : -1;

	if (rc && job && job->state == JOB_RUNNING && ++ls->tries < 20) {
		uv_timer_start(&ls->timer, limit_retry, 500, 0);
		return;
	}
	if (rc)
		log_error("job %u: new time limit not delivered: %s", ls->job_id,
			  reply ? rerr.text : err->text);
	uv_close((uv_handle_t *)&ls->timer, limit_freed);
}

static void limit_send_now(struct limit_send *ls)
{
	struct job *job = job_find(ls->job_id);

	if (!job || job->state != JOB_RUNNING || !job->nalloc) {
		uv_close((uv_handle_t *)&ls->timer, limit_freed);
		return;
	}
	json_t *body = json_pack("{s:I, s:I}", "job_id", (json_int_t)job->id, "time_limit",
				 (json_int_t)job->time_limit);   /* the latest, on a retry too */
	struct net_target to = node_target(&core.nodes[job_batch_node(job)]);
	net_call_async(ctld.loop, &to, MSG_UPDATE_JOB_LIMIT, body, 10000, limit_reply, ls);
	json_decref(body);
}

void launch_time_limit(struct job *job)
{
	if (!job->nalloc || job->launch == LAUNCH_NONE)
		return;   /* not launched yet: the launch carries the new limit */
	struct limit_send *ls = xmalloc(sizeof(*ls));
	ls->job_id = job->id;
	uv_timer_init(ctld.loop, &ls->timer);
	ls->timer.data = ls;
	limit_send_now(ls);
}

/* Fire and forget: a node that does not answer is found by SlurmdTimeout. */
void launch_broadcast(int type)
{
	json_t *body = json_object();
	for (int i = 0; i < core.nnodes; i++) {
		struct node *n = &core.nodes[i];
		struct net_target to = node_target(n);
		if (n->state != NODE_FUTURE)
			net_call_async(ctld.loop, &to, type, body, 5000, NULL, NULL);
	}
	json_decref(body);
}
