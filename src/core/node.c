/* Nodes: configured in herd.conf, registered and kept alive by herdd's
 * NODE_REGISTER, DOWN when silent past SlurmdTimeout; CPU and memory
 * bookkeeping for allocations. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/auth.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/bitmap.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"
#include "core/resv.h"

/* Names to indexes, so that checking a -w list of every node costs one
 * lookup per name, not a walk of the table (10,000 nodes: 10^8 compares).
 * The node table is made once (node_setup; a reconfigure keeps the names);
 * a table it was not built for (unit tests fill core.nodes by hand) is
 * walked instead. */
static struct {
	const struct node *nodes;   /* the table it indexes */
	int nnodes;
	size_t cap;                 /* a power of two, over twice nnodes */
	int *slot;                  /* node index + 1; 0 = empty */
} names;

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void names_build(void)
{
	free(names.slot);
	names.cap = 16;
	while (names.cap < 2 * (size_t)core.nnodes + 1)
		names.cap *= 2;
	names.slot = xmalloc(names.cap * sizeof(*names.slot));
	for (int i = 0; i < core.nnodes; i++) {
		size_t h = name_hash(core.nodes[i].name) & (names.cap - 1);
		while (names.slot[h])
			h = (h + 1) & (names.cap - 1);
		names.slot[h] = i + 1;
	}
	names.nodes = core.nodes;
	names.nnodes = core.nnodes;
}

int node_index(const char *name)
{
	if (names.slot && names.nodes == core.nodes && names.nnodes == core.nnodes) {
		for (size_t h = name_hash(name) & (names.cap - 1); names.slot[h];
		     h = (h + 1) & (names.cap - 1))
			if (!strcmp(core.nodes[names.slot[h] - 1].name, name))
				return names.slot[h] - 1;
		return -1;
	}
	for (int i = 0; i < core.nnodes; i++)
		if (!strcmp(core.nodes[i].name, name))
			return i;
	return -1;
}

void node_setup(void)
{
	const struct conf *conf = core.conf;

	core.nnodes = conf->nnodes;
	core.nodes = xmalloc(conf->nnodes * sizeof(*core.nodes));
	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct conf_node *cn = &conf->nodes[i];
		struct node *n = &core.nodes[i];
		n->conf = cn;
		n->name = xstrdup(cn->name);
		n->addr = xstrdup(cn->addr ? cn->addr : cn->name);
		n->port = cn->port;
		n->dest = auth_dest_node(core.cluster, cn->name);
		n->state = cn->state && !strcasecmp(cn->state, "FUTURE") ? NODE_FUTURE : NODE_UNKNOWN;
		n->cpus = cn->cpus ? cn->cpus : 1;
		n->boards = cn->boards ? cn->boards : 1;
		n->sockets = cn->sockets ? cn->sockets : n->cpus;
		n->cores = cn->cores_per_socket ? cn->cores_per_socket : 1;
		n->threads = cn->threads_per_core ? cn->threads_per_core : 1;
		n->real_memory = cn->real_memory ? cn->real_memory : 1;
		node_gres_setup(n, conf);
	}
	names_build();
}

/* Base state from what is allocated; DOWN/FUTURE stay until something lifts them. */
void node_update_state(struct node *n)
{
	if (n->state == NODE_DOWN || n->state == NODE_FUTURE || !n->registered)
		return;
	if (n->alloc_cpus == 0 && n->njobs == 0)
		n->state = NODE_IDLE;
	else if (n->exclusive_job || n->alloc_cpus >= n->cpus)
		n->state = NODE_ALLOCATED;
	else
		n->state = NODE_MIXED;
}

/* The node's set of held CPU IDs, at least as large as its CPU count
 * (which a registration may raise). */
static struct bitmap *node_cpu_bits(struct node *n)
{
	uint32_t want = n->cpus > 0 ? n->cpus : 1;
	if (!n->cpus_used || n->cpus_used->nbits < want) {
		struct bitmap *b = bitmap_create(want);
		for (uint32_t c = n->cpus_used ? bitmap_next(n->cpus_used, 0) : BITMAP_NONE;
		     c != BITMAP_NONE; c = bitmap_next(n->cpus_used, c + 1))
			bitmap_set(b, c);
		bitmap_destroy(n->cpus_used);
		n->cpus_used = b;
	}
	return n->cpus_used;
}

/* The lowest count free CPU IDs of the node (fewer when it has fewer). */
static struct bitmap *node_pick_cpus(struct node *n, int count)
{
	struct bitmap *used = node_cpu_bits(n), *mine = bitmap_create(used->nbits);
	for (uint32_t c = 0; c < used->nbits && count > 0; c++)
		if (!bitmap_test(used, c)) {
			bitmap_set(mine, c);
			count--;
		}
	return mine;
}

/* The CPU IDs near the job's devices on its i-th node (gres.conf Cores=),
 * NULL when none says (or --gres-flags=disable-binding). */
static struct bitmap *gres_near(const struct job *job, int i, const struct node *n)
{
	if (!job->alloc_gres || (job->gres_flags && !strcmp(job->gres_flags, "disable-binding")))
		return NULL;
	return node_gres_near(n, job->alloc_gres[i], job->nalloc_gres[i], NULL);
}

/* The job's count CPU IDs on node n: the lowest free ones near its
 * devices (near, NULL none) first, then the lowest other free ones. */
static struct bitmap *node_pick_near(struct node *n, int count, const struct bitmap *near)
{
	if (!near)
		return node_pick_cpus(n, count);
	struct bitmap *used = node_cpu_bits(n), *mine = bitmap_create(used->nbits);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t c = 0; c < used->nbits && count > 0; c++)
			if (!bitmap_test(used, c) && !bitmap_test(mine, c) &&
			    (pass || bitmap_test(near, c))) {
				bitmap_set(mine, c);
				count--;
			}
	return mine;
}

/* A sharing job's count CPU IDs: the free ones first, then the taken. */
static struct bitmap *node_share_cpus(struct node *n, int count)
{
	struct bitmap *mine = node_pick_cpus(n, count);
	int have = (int)bitmap_count(mine);
	for (uint32_t c = 0; c < mine->nbits && have < count; c++)
		if (!bitmap_test(mine, c)) {
			bitmap_set(mine, c);
			have++;
		}
	return mine;
}

void node_alloc(struct job *job)
{
	if (!job->alloc_cpuset)
		job->alloc_cpuset = xmalloc((job->nalloc ? job->nalloc : 1) * sizeof(*job->alloc_cpuset));
	for (int i = 0; i < job->nalloc; i++) {
		struct node *n = &core.nodes[job->alloc_node[i]];
		n->alloc_cpus += job_node_charge(job, i);
		n->alloc_mem += job_node_mem(job, i);
		n->njobs++;
		n->nbatch += job->alloc_node[i] == job_batch_node(job) && !job->alloc_only;
		if (job->exclusive)
			n->exclusive_job = true;
		/* A job restored at start brings its CPU IDs; a new one gets the
		 * lowest free (a sharing one the lowest, taken or not: it holds
		 * none of them alone, and marks none taken). */
		for (int h = 0; job->alloc_gres && h < job->nalloc_gres[i]; h++)
			node_gres_hold(n, &job->alloc_gres[i][h], 1);
		if (job->alloc_gres)
			node_gres_used_changed(n);
		if (!job->alloc_cpuset[i]) {
			struct bitmap *near = job->cpu_share > 1 ? NULL : gres_near(job, i, n);
			job->alloc_cpuset[i] = job->cpu_share > 1 ? node_share_cpus(n, job->alloc_cpus[i])
								  : node_pick_near(n, job->alloc_cpus[i], near);
			bitmap_destroy(near);
		}
		if (job->cpu_share > 1) {
			node_update_state(n);
			continue;
		}
		struct bitmap *used = node_cpu_bits(n);
		for (uint32_t c = bitmap_next(job->alloc_cpuset[i], 0); c != BITMAP_NONE && c < used->nbits;
		     c = bitmap_next(job->alloc_cpuset[i], c + 1))
			bitmap_set(used, c);
		node_update_state(n);
	}
}

/* The job's hold on its i-th node given back. */
static void free_one(struct job *job, int i)
{
	struct node *n = &core.nodes[job->alloc_node[i]];
	n->alloc_cpus -= job_node_charge(job, i);
	n->alloc_mem -= job_node_mem(job, i);
	n->njobs--;
	n->nbatch -= job->alloc_node[i] == job_batch_node(job) && !job->alloc_only;
	if (job->exclusive)
		n->exclusive_job = false;
	if (job->alloc_cpuset && job->alloc_cpuset[i] && job->cpu_share <= 1) {
		struct bitmap *used = node_cpu_bits(n);
		for (uint32_t c = bitmap_next(job->alloc_cpuset[i], 0);
		     c != BITMAP_NONE && c < used->nbits; c = bitmap_next(job->alloc_cpuset[i], c + 1))
			bitmap_clear(used, c);
	}
	for (int h = 0; job->alloc_gres && h < job->nalloc_gres[i]; h++)
		node_gres_hold(n, &job->alloc_gres[i][h], -1);
	if (job->alloc_gres)
		node_gres_used_changed(n);
	node_update_state(n);
}

void node_free(struct job *job)
{
	if (job->cpus_lent)
		node_reclaim(job);   /* what it lent is given back with the rest */
	for (int i = 0; i < job->nalloc; i++)
		free_one(job, i);
}

/* sbatch -k: a failed node leaves the job's allocation and the job runs on
 * (Slurm), unless it was the node of its batch script, the job's last
 * node, or the job is on its way out.  Whether it was dropped. */
static bool drop_failed_node(struct job *job, struct node *n)
{
	int idx = (int)(n - core.nodes), pos = -1;

	if (!job->no_kill || job->nalloc < 2 || job->cancel_requested || job->requeue_requested ||
	    job->cpus_lent || job->state != JOB_RUNNING)
		return false;
	for (int i = 0; i < job->nalloc; i++)
		if (job->alloc_node[i] == idx)
			pos = i;
	if (pos < 0 || (idx == job_batch_node(job) && !job->alloc_only))
		return false;
	log_error("job %u: node %s failed; --no-kill: it goes on without it", job->id, n->name);
	core_steps_node_dropped(job, pos);
	core_terminate_stray(n, job->id);   /* a node set DOWN still runs its part */
	free_one(job, pos);
	if (job->alloc_cpuset)
		bitmap_destroy(job->alloc_cpuset[pos]);
	if (job->step_cpus)
		bitmap_destroy(job->step_cpus[pos]);
	if (job->alloc_gres)
		free(job->alloc_gres[pos]);
	for (int i = pos; i + 1 < job->nalloc; i++) {
		job->alloc_node[i] = job->alloc_node[i + 1];
		job->alloc_cpus[i] = job->alloc_cpus[i + 1];
		if (job->alloc_gres) {
			job->alloc_gres[i] = job->alloc_gres[i + 1];
			job->nalloc_gres[i] = job->nalloc_gres[i + 1];
		}
		if (job->alloc_cpuset)
			job->alloc_cpuset[i] = job->alloc_cpuset[i + 1];
		if (job->step_cpus)
			job->step_cpus[i] = job->step_cpus[i + 1];
	}
	job->nalloc--;
	free(job->nodes_str);
	job->nodes_str = node_list_string(job->alloc_node, job->nalloc);
	char *detail = xasprintf("node=%s", n->name);
	store_job_event(job->id, "NODE_DROPPED", detail);
	free(detail);
	job_changed(job);
	return true;
}

/* Its CPUs on node i, counted (sign +1) or not (-1), their IDs set or cleared. */
static void lend_one(struct job *job, int i, int sign)
{
	struct node *n = &core.nodes[job->alloc_node[i]];
	n->alloc_cpus += sign * job_node_charge(job, i);
	n->njobs += sign;
	if (job->exclusive)
		n->exclusive_job = sign > 0;
	if (job->alloc_cpuset && job->alloc_cpuset[i] && job->cpu_share <= 1) {
		struct bitmap *used = node_cpu_bits(n);
		for (uint32_t c = bitmap_next(job->alloc_cpuset[i], 0); c != BITMAP_NONE && c < used->nbits;
		     c = bitmap_next(job->alloc_cpuset[i], c + 1)) {
			if (sign > 0)
				bitmap_set(used, c);
			else
				bitmap_clear(used, c);
		}
	}
	node_update_state(n);
}

void node_lend(struct job *job)
{
	if (job->cpus_lent)
		return;
	for (int i = 0; i < job->nalloc; i++)
		lend_one(job, i, -1);
	job->cpus_lent = true;
}

void node_reclaim(struct job *job)
{
	if (!job->cpus_lent)
		return;
	for (int i = 0; i < job->nalloc; i++)
		lend_one(job, i, +1);
	job->cpus_lent = false;
}

bool node_can_reclaim(const struct job *job)
{
	for (int i = 0; i < job->nalloc; i++) {
		struct node *n = &core.nodes[job->alloc_node[i]];
		if (n->cpus - n->alloc_cpus < job_node_charge(job, i) ||
		    (job->exclusive && n->njobs > 0) || n->exclusive_job)
			return false;
		if (job->alloc_cpuset && job->alloc_cpuset[i] && job->cpu_share <= 1) {
			struct bitmap *used = node_cpu_bits(n);
			for (uint32_t c = bitmap_next(job->alloc_cpuset[i], 0);
			     c != BITMAP_NONE && c < used->nbits; c = bitmap_next(job->alloc_cpuset[i], c + 1))
				if (bitmap_test(used, c))
					return false;
		}
	}
	return true;
}

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = xstrdup(src);
}

/* Is node idx one of the job's (a run requeued after a launch that seemed
 * lost may run again elsewhere while the first still runs here)?  A
 * finished job's nodes are its last run's; those are left alone. */
static bool job_on_node(const struct job *job, int idx)
{
	if (job_state_is_final(job->state) || !job->nalloc)
		return true;
	for (int i = 0; i < job->nalloc; i++)
		if (job->alloc_node[i] == idx)
			return true;
	return false;
}

/* A job the node no longer has: its herdstepd is gone without a word, so the
 * node lost it (rebooted, or herdstepd was killed). */
static void node_lost_job(struct job *job, struct node *n)
{
	if (drop_failed_node(job, n))
		return;
	log_error("job %u: lost on node %s", job->id, n->name);
	core_steps_node_failed(job, (int)(n - core.nodes));
	/* Whatever still runs of it elsewhere (its batch script, when the lost
	 * node was another of its nodes) must stop too. */
	if (job->nalloc && &core.nodes[job_batch_node(job)] != n)
		core_terminate(job);
	if (job->requeue_requested && !job->cancel_requested)
		job_requeue_finish(job);   /* it was to end anyway, and go back to the queue */
	else
		job_set_state(job, job->cancel_requested ? job_cancelled_state(job) : JOB_NODE_FAIL,
			      REASON_NODE_DOWN);
}

struct reconcile {
	struct node *node;
	int idx;
	json_t *reported;
	time_t now;
};

static bool reported_has(json_t *ids, uint32_t id)
{
	size_t i;
	json_t *v;
	json_array_foreach(ids, i, v)
		if ((uint32_t)json_integer_value(v) == id)
			return true;
	return false;
}

static void reconcile_one(struct job *job, void *arg)
{
	struct reconcile *r = arg;
	if ((job->state != JOB_RUNNING && job->state != JOB_COMPLETING) || !job->nalloc ||
	    job_batch_node(job) != r->idx)
		return;
	/* A launch may be on its way; give it time before calling the job lost. */
	if (!reported_has(r->reported, job->id) && job->start_time + 30 < r->now)
		node_lost_job(job, r->node);
}

int node_report(const json_t *b, bool *first)
{
	json_t *jobs = json_object_get(b, "jobs"), *v;
	const char *name = json_string_value(json_object_get(b, "node"));
	int idx = node_index(name);
	struct node *n;
	time_t now = core_now();
	size_t i;

	if (idx < 0) {
		log_error("registration from unknown node %s", name);
		return -1;
	}
	n = &core.nodes[idx];
	const struct conf_node *cn = n->conf;
	*first = !n->registered;
	n->cpus = cn->cpus ? cn->cpus : json_integer_value(json_object_get(b, "cpus"));
	n->boards = cn->boards ? cn->boards : json_integer_value(json_object_get(b, "boards"));
	n->sockets = cn->sockets ? cn->sockets : json_integer_value(json_object_get(b, "sockets"));
	n->cores = cn->cores_per_socket ? cn->cores_per_socket
					: json_integer_value(json_object_get(b, "cores"));
	n->threads = cn->threads_per_core ? cn->threads_per_core
					  : json_integer_value(json_object_get(b, "threads"));
	n->real_memory = cn->real_memory ? cn->real_memory
					 : (uint64_t)json_integer_value(json_object_get(b, "memory"));
	n->boot_time = json_integer_value(json_object_get(b, "boot_time"));
	n->slurmd_start_time = json_integer_value(json_object_get(b, "start_time"));
	set_str(&n->arch, json_string_value(json_object_get(b, "arch")));
	set_str(&n->os, json_string_value(json_object_get(b, "os")));
	n->last_seen = now;
	n->registered = true;
	node_gres_report(n, json_object_get(b, "gres"));
	if (n->not_responding) {
		n->not_responding = false;
		log_info("node %s responding again", n->name);
	}
	if (n->state == NODE_UNKNOWN) {
		n->state = NODE_IDLE;
		log_info("node %s registered: %d CPUs, %lu MB", n->name, n->cpus,
			 (unsigned long)n->real_memory);
	} else if (n->state == NODE_DOWN && !n->admin_down &&
		   (core.return_to_service == 2 ||
		    (core.return_to_service == 1 && n->reason && !strcmp(n->reason, "Not responding")))) {
		n->state = NODE_IDLE;
		if (!n->drain) {   /* a drain's reason stays with the drain */
			set_str(&n->reason, NULL);
			set_str(&n->reason_user, NULL);
		}
		log_info("node %s returned to service", n->name);
	}
	node_update_state(n);

	/* A job the node runs that we have never heard of (or forgot): end it.
	 * One that ended here but whose herdstepd is still reporting is left alone. */
	json_array_foreach(jobs, i, v) {
		uint32_t id = json_integer_value(v);
		struct job *job = job_find(id);
		if (job ? job->state == JOB_PENDING || !job_on_node(job, idx) : !store_job_known(id)) {
			/* never ours, or a launch we gave up on that started after all */
			log_error("node %s runs job %u, which should not run: ending it", n->name, id);
			core_terminate_stray(n, id);
		}
	}
	/* Look for jobs the node lost only when its report does not account for
	 * every batch script we think runs there: a heartbeat costs O(its jobs),
	 * not O(all jobs). */
	int accounted = 0;
	json_array_foreach(jobs, i, v) {
		struct job *job = job_find(json_integer_value(v));
		if (job && (job->state == JOB_RUNNING || job->state == JOB_COMPLETING) &&
		    job->nalloc && job_batch_node(job) == idx)
			accounted++;
	}
	if (accounted < n->nbatch && (!*first || core.start_time + 5 < now)) {
		struct reconcile r = { n, idx, jobs, now };
		job_foreach(reconcile_one, &r);
	}
	sched_request();
	return idx;
}

static void node_timeout_jobs(struct job *job, void *arg)
{
	int idx = *(int *)arg;
	if (job->state != JOB_RUNNING && job->state != JOB_COMPLETING)
		return;
	for (int i = 0; i < job->nalloc; i++)
		if (job->alloc_node[i] == idx) {
			node_lost_job(job, &core.nodes[idx]);
			return;
		}
}

void node_check_timeouts(time_t now)
{
	for (int i = 0; i < core.nnodes; i++) {
		struct node *n = &core.nodes[i];
		/* Nodes not yet heard from since our start get SlurmdTimeout too. */
		time_t seen = n->registered ? n->last_seen : core.start_time;
		if (n->state == NODE_DOWN || n->state == NODE_FUTURE || seen + core.slurmd_timeout > now)
			continue;
		log_error("node %s not responding for %ld s, setting DOWN", n->name, (long)(now - seen));
		n->not_responding = true;
		n->state = NODE_DOWN;
		if (!n->reason) {   /* an administrator's reason stays */
			set_str(&n->reason, "Not responding");
			n->reason_time = now;
		}
		job_foreach(node_timeout_jobs, &i);
	}
}

json_t *node_to_json(const struct node *n)
{
	json_t *parts = json_array();
	for (int p = 0; p < core.nparts; p++)
		for (int k = 0; !core.parts[p].removed && k < core.parts[p].nnodes; k++)
			if (&core.nodes[core.parts[p].node_idx[k]] == n)
				json_array_append_new(parts, json_string(core.parts[p].name));
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:s, s:i, s:i, s:i, s:i, s:i, s:i,"
			 " s:I, s:I, s:o, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:I}",
			 "name", n->name, "addr", n->addr,
			 "hostname", n->conf->hostname ? n->conf->hostname : n->name,
			 "port", n->port, "state", node_state_name(n->state), "drain", n->drain,
			 "not_responding", n->not_responding, "reason", n->reason ? n->reason : "",
			 "cpus", n->cpus, "alloc_cpus", n->alloc_cpus, "sockets", n->sockets,
			 "cores", n->cores, "threads", n->threads, "boards", n->boards,
			 "real_memory", (json_int_t)n->real_memory,
			 "alloc_mem", (json_int_t)n->alloc_mem, "partitions", parts,
			 "boot_time", (json_int_t)n->boot_time, "last_seen", (json_int_t)n->last_seen,
			 "slurmd_start_time", (json_int_t)n->slurmd_start_time,
			 "arch", n->arch ? n->arch : "", "os", n->os ? n->os : "", "version", "22.05.8",
			 "reason_user", n->reason_user ? n->reason_user : "",
			 "reason_time", (json_int_t)(n->reason ? n->reason_time : 0));
	/* What herd.conf says of the node, for sinfo (%d %w %f %G). */
	json_object_set_new(o, "tmp_disk", json_integer((json_int_t)n->conf->tmp_disk));
	json_object_set_new(o, "weight", json_integer(n->conf->weight));
	json_object_set_new(o, "features", json_string(n->conf->features ? n->conf->features : ""));
	node_gres_json(n, o);   /* "gres", "gres_used", "gres_devs" */
	/* an active reservation's hold: "MAINT" or "RESERVED" (sinfo) */
	const char *held = resv_node_state((int)(n - core.nodes), core_now());
	if (held)
		json_object_set_new(o, "resv", json_string(held));
	return o;
}

/* What survives a controller restart: the administrator's word on a node. */
static void admin_save(const struct node *n)
{
	store_node_admin(n->name, json_pack("{s:b, s:b, s:s, s:s, s:I}", "drain", n->drain,
					    "down", n->admin_down, "reason", n->reason ? n->reason : "",
					    "reason_user", n->reason_user ? n->reason_user : "",
					    "reason_time", (json_int_t)n->reason_time));
}

static void set_reason(struct node *n, const char *reason, const char *user)
{
	set_str(&n->reason, reason && *reason ? reason : NULL);
	set_str(&n->reason_user, n->reason ? user : NULL);
	n->reason_time = n->reason ? core_now() : 0;
}

void node_drain_for(struct node *n, const char *reason)
{
	const char *user = conf_get(core.conf, "SlurmUser");
	n->drain = true;
	set_reason(n, reason, user ? user : "root");   /* Slurm's [SlurmUser@time] */
	admin_save(n);
}

/* Unlike a silent node, one set DOWN still runs its jobs' processes: they
 * are terminated there, and the jobs end NODE_FAIL as for a silent node. */
static void admin_down_job(struct job *job, void *arg)
{
	int idx = *(int *)arg;
	if (job->state != JOB_RUNNING && job->state != JOB_COMPLETING)
		return;
	for (int i = 0; i < job->nalloc; i++)
		if (job->alloc_node[i] == idx) {
			if (i == 0 && job->launch != LAUNCH_NONE)
				core_terminate(job);   /* else node_lost_job does */
			node_lost_job(job, &core.nodes[idx]);
			return;
		}
}

static void admin_down(struct node *n)
{
	int idx = (int)(n - core.nodes);
	n->admin_down = true;
	n->state = NODE_DOWN;
	job_foreach(admin_down_job, &idx);
}

static void admin_resume(struct node *n)
{
	n->drain = false;
	if (n->state == NODE_DOWN) {
		n->admin_down = false;
		n->not_responding = false;
		n->last_seen = core_now();   /* a full SlurmdTimeout to be heard from again */
		n->state = n->registered ? NODE_IDLE : NODE_UNKNOWN;
	}
	set_reason(n, NULL, NULL);
	node_update_state(n);
}

enum admin_op { ADMIN_DRAIN, ADMIN_DOWN, ADMIN_RESUME, ADMIN_UNDRAIN };

static int admin_op_parse(const char *s)
{
	static const char *names[] = { "DRAIN", "DOWN", "RESUME", "UNDRAIN", "IDLE" };
	for (int i = 0; i < 5; i++)
		if (!strcasecmp(s, names[i]))
			return i == 4 ? ADMIN_RESUME : i;   /* IDLE: as RESUME */
	return -1;
}

static void admin_apply(struct node *n, enum admin_op op, const char *reason, const char *user)
{
	switch (op) {
	case ADMIN_DRAIN:
		n->drain = true;
		set_reason(n, reason, user);
		break;
	case ADMIN_DOWN:
		set_reason(n, reason, user);
		admin_down(n);
		break;
	case ADMIN_RESUME:
		admin_resume(n);
		break;
	case ADMIN_UNDRAIN:
		n->drain = false;
		if (n->state != NODE_DOWN)
			set_reason(n, NULL, NULL);
		break;
	}
	admin_save(n);
	log_info("node %s: %s by %s", n->name, op == ADMIN_DRAIN ? "DRAIN" : op == ADMIN_DOWN ? "DOWN"
		 : op == ADMIN_RESUME ? "RESUME" : "UNDRAIN", user);
}

/* Every named node must exist before any changes. */
int node_admin(const char *names, const char *state, const char *reason, const char *user,
	       struct herd_error *err)
{
	int op = admin_op_parse(state ? state : "");
	struct hostlist *hl = hostlist_create_max(names, (size_t)core.nnodes);   /* bounded */
	size_t count = hl ? hostlist_count(hl) : 0;
	int rc = 0;

	if (op < 0 || !count) {
		rc = op < 0 ? HERD_ERR_INVALID_ARG : HERD_ERR_INVALID_NODE;
		goto out;
	}
	if ((op == ADMIN_DRAIN || op == ADMIN_DOWN) && (!reason || !*reason)) {
		errprintf(err, "You must specify a reason when DOWNING or DRAINING a node. "
			  "Request denied");
		rc = HERD_ERR_INVALID_ARG;
		goto out;
	}
	for (size_t i = 0; i < count; i++)
		if (node_index(hostlist_nth(hl, i)) < 0) {
			rc = HERD_ERR_INVALID_NODE;
			goto out;
		}
	for (size_t i = 0; i < count; i++)
		admin_apply(&core.nodes[node_index(hostlist_nth(hl, i))], op, reason, user);
	sched_request();
out:
	hostlist_destroy(hl);
	return rc;
}

void node_admin_restore(const char *name, const json_t *rec)
{
	int idx = node_index(name);
	if (idx < 0)
		return;   /* no longer configured */
	struct node *n = &core.nodes[idx];
	const char *reason = json_string_value(json_object_get(rec, "reason"));
	const char *user = json_string_value(json_object_get(rec, "reason_user"));
	n->drain = json_is_true(json_object_get(rec, "drain"));
	n->admin_down = json_is_true(json_object_get(rec, "down"));
	set_str(&n->reason, reason && *reason ? reason : NULL);
	set_str(&n->reason_user, user && *user ? user : NULL);
	n->reason_time = json_integer_value(json_object_get(rec, "reason_time"));
	if (n->admin_down)
		n->state = NODE_DOWN;
}

char *node_list_string(const int *idx, int n)
{
	struct hostlist *hl = hostlist_create(NULL);
	for (int i = 0; i < n; i++)
		hostlist_push(hl, core.nodes[idx[i]].name);
	char *s = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	return s;
}
