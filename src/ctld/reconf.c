/* scontrol reconfigure and SIGHUP: re-read herd.conf (the file herdctld
 * started with) and apply it whole or not at all.  Applied live: the
 * partitions, a node's declared CPUs and RealMemory, and the settings of
 * reconf_settings; a change that needs a restart refuses the whole file
 * (conf_diff_restart).  Jobs are never changed: each keeps its partition
 * (a removed one lives on, hidden and down, while jobs are in it). */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf_inert.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "core/prio.h"
#include "core/preempt.h"
#include "core/resv.h"
#include "core/licenses.h"
#include "core/sched_conf.h"



void reconf_settings(const struct conf *conf)
{
	const char *user = conf_get(conf, "SlurmUser");
	struct passwd *pw = user ? getpwnam(user) : NULL;

	if (user && !pw)
		log_error("SlurmUser %s does not exist; using root", user);
	core.slurm_uid = pw ? pw->pw_uid : 0;
	core.kill_wait = conf_get_int(conf, "KillWait", 30);
	core.slurmd_timeout = conf_get_int(conf, "SlurmdTimeout", 300);
	core.min_job_age = conf_get_int(conf, "MinJobAge", 300);
	core.return_to_service = conf_get_int(conf, "ReturnToService", 0);
	core.job_requeue = conf_get_int(conf, "JobRequeue", 1) != 0;
	/* 0 disables arrays. */
	long max_array = conf_get_int(conf, "MaxArraySize", 1001);
	if (max_array < 0 || max_array > MAX_ARRAY_SIZE_LIMIT) {
		log_error("MaxArraySize=%ld is out of range (0-%d): using %d", max_array,
			  MAX_ARRAY_SIZE_LIMIT, MAX_ARRAY_SIZE_LIMIT);
		max_array = MAX_ARRAY_SIZE_LIMIT;
	}
	core.max_array_size = (uint32_t)max_array;
	core.kill_invalid_depend = sched_conf_flag(conf_get(conf, "SchedulerParameters"),
					       "kill_invalid_depend");
	sched_configure(conf);
	resv_configure(conf);   /* ResvOverRun */
	licenses_configure(conf);   /* Licenses=, bf_licenses */
	if (!ctld.log_forced)
		log_set_level(log_level_parse(conf_get(conf, "SlurmctldDebug")));
}

char *reconf_inert_warning(const struct conf *conf)
{
	char *keys = conf_inert_keys(conf);

	if (!keys)
		return NULL;
	/* one line, never silent: a site must not believe a Prolog runs */
	char *text = xasprintf("%s: accepted but not acted on (Herd ignores them): %s", conf->path,
			       keys);
	free(keys);
	log_warn("%s", text);
	return text;
}

/* What reconf_settings would only log at start is refused at a reconfigure:
 * the running values are good, the file is not. */
static int settings_check(const struct conf *conf, struct herd_error *err)
{
	const char *user = conf_get(conf, "SlurmUser");
	long max_array = conf_get_int(conf, "MaxArraySize", 1001);

	if (user && !getpwnam(user))
		return errprintf(err, "%s: SlurmUser %s does not exist", conf->path, user);
	if (max_array < 0 || max_array > MAX_ARRAY_SIZE_LIMIT)
		return errprintf(err, "%s: MaxArraySize=%ld is out of range (0-%d)", conf->path,
				 max_array, MAX_ARRAY_SIZE_LIMIT);
	if (node_gres_check(conf, err) < 0)
		return -1;
	struct herd_error sched_err;
	if (sched_check(conf, &sched_err) < 0)
		return errprintf(err, "%s: %s", conf->path, sched_err.text);
	return 0;
}

/* Nodes are the same set (conf_diff_restart said so): each takes its new
 * definition; declared CPUs and memory apply now, what the node reports
 * at its next registration (herdd registers again once it has re-read). */
static void nodes_apply(const struct conf *conf)
{
	for (int i = 0; i < core.nnodes; i++) {
		struct node *n = &core.nodes[i];
		const struct conf_node *cn = (size_t)i < conf->nnodes &&
			!strcmp(conf->nodes[i].name, n->name) ? &conf->nodes[i]
							      : conf_node_find(conf, n->name);
		n->conf = cn;
		if (cn->cpus)
			n->cpus = cn->cpus;
		if (cn->boards)
			n->boards = cn->boards;
		if (cn->sockets)
			n->sockets = cn->sockets;
		if (cn->cores_per_socket)
			n->cores = cn->cores_per_socket;
		if (cn->threads_per_core)
			n->threads = cn->threads_per_core;
		if (cn->real_memory)
			n->real_memory = cn->real_memory;
		node_gres_setup(n, conf);
		node_update_state(n);
	}
	sched_features_changed();   /* Features= may differ: -C checks the new ones */
}

struct part_swap {
	struct part *old, *parts;
	int nold, nparts;
	bool *in_use;               /* by old index: a job is in it (then: moved to parts) */
};

static void mark_in_use(struct job *job, void *arg)
{
	struct part_swap *s = arg;
	if (job->part)
		s->in_use[job->part - s->old] = true;
}

static struct part *find_any(struct part *parts, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(parts[i].name, name))
			return &parts[i];
	return NULL;
}

static void move_job(struct job *job, void *arg)
{
	struct part_swap *s = arg;
	if (job->part)
		job->part = find_any(s->parts, s->nparts, job->part->name);
}

/* The partitions of conf replace ours.  A job's partition is found again by
 * name; one no longer in conf stays for its jobs, marked removed (a pending
 * job there waits with PartitionDown, as after a restart, and runs again if
 * the partition comes back). */
static void parts_apply(const struct conf *conf)
{
	struct part_swap s = { core.parts, NULL, core.nparts, 0, NULL };
	struct part *dflt;
	int keep = 0;

	s.in_use = xmalloc((s.nold + 1) * sizeof(bool));
	job_foreach(mark_in_use, &s);
	for (int i = 0; i < s.nold; i++)
		if (s.in_use[i] && !conf_part_find(conf, s.old[i].name))
			keep++;
	part_build(conf, keep, &s.parts, &s.nparts, &dflt);
	for (int i = 0; i < s.nold; i++) {
		if (s.in_use[i] && !conf_part_find(conf, s.old[i].name)) {
			if (!s.old[i].removed)
				log_info("partition %s removed; kept for the jobs in it",
					 s.old[i].name);
			s.parts[s.nparts] = s.old[i];   /* moved: its fields go with it */
			s.parts[s.nparts++].removed = true;
		} else {
			s.in_use[i] = false;            /* now: "moved" */
		}
	}
	job_foreach(move_job, &s);              /* reads the old names: before any release */
	for (int i = 0; i < s.nold; i++)
		if (!s.in_use[i])
			part_release(&s.old[i]);
	free(s.old);
	free(s.in_use);
	core.parts = s.parts;
	core.nparts = s.nparts;
	core.default_part = dflt;
}

int reconf_reload(struct herd_error *err, char **warning)
{
	struct conf *conf = conf_load(ctld.conf_path, err);

	if (!conf)
		goto error;
	if (conf_diff_restart(core.conf, conf, err) < 0 || settings_check(conf, err) < 0 ||
	    prio_conf_check(conf, err) < 0 ||
	    preempt_check(conf, err) < 0 ||
	    auth_jwt_configure(conf, err) < 0)   /* last: it applies when it succeeds */
		goto error;
	/* From here nothing can fail: the file is applied whole. */
	reconf_settings(conf);
	nodes_apply(conf);
	parts_apply(conf);
	conf_destroy(core.conf);
	core.conf = conf;
	assoc_reconfigure();
	prio_setup();   /* the Priority* keys; every pending job's priority again */
	preempt_setup();
	log_info("reconfigured from %s: %d nodes, %d partitions", conf->path, core.nnodes,
		 (int)conf->nparts);
	if (warning)
		*warning = reconf_inert_warning(conf);
	else
		free(reconf_inert_warning(conf));
	/* "All daemons": each herdd re-reads the file and registers again. */
	launch_broadcast(MSG_RECONFIGURE_NODE);
	sched_request();
	return 0;
error:
	conf_destroy(conf);
	log_error("reconfiguration refused: %s", err->text);
	return -1;
}

/* RECONFIGURE: root and SlurmUser only (the rpc table checks). */
void reconf_rpc(struct net_req *req)
{
	struct herd_error err;
	char *warning = NULL;

	if (reconf_reload(&err, &warning) < 0) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, err.text);
		return;
	}
	/* scontrol prints it: who reconfigures learns what is ignored */
	net_respond(req, 0, warning ? json_pack("{s:s}", "warning", warning) : NULL, NULL);
	free(warning);
}
