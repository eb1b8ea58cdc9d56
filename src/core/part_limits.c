/* Partition limits, as slurm.conf(5) has them: who may use a partition
 * (RootOnly, AllocNodes, AllowGroups, AllowAccounts, DenyAccounts, AllowQos,
 * DenyQos), how big and long its jobs may be (MinNodes, MaxNodes, MaxTime),
 * and how its nodes are shared (ExclusiveUser, OverSubscribe=EXCLUSIVE).
 * What is refused at submission and what waits with a reason follows
 * EnforcePartLimits.  Not here: the partition's state (sched.c), DefaultTime
 * (rpc.c gives it). */
#include <arpa/inet.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "core/part_limits.h"
#include "core/preempt.h"

/* EnforcePartLimits: NO (default) queues a job over its partition's limits
 * (it waits with the reason); ANY (and YES) refuses it unless one of its
 * partitions takes it; ALL unless every one does. */
enum enforce { ENFORCE_NO, ENFORCE_ANY, ENFORCE_ALL };

static enum enforce enforce_mode(void)
{
	const char *v = core.conf ? conf_get(core.conf, "EnforcePartLimits") : NULL;
	if (!v || !strcasecmp(v, "NO"))
		return ENFORCE_NO;
	if (!strcasecmp(v, "ALL"))
		return ENFORCE_ALL;
	return ENFORCE_ANY;   /* ANY, YES */
}

/* Is name in the comma-separated list?  "ALL" holds every name. */
static bool listed(const char *list, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if ((n == 3 && !strncasecmp(p, "ALL", 3)) ||
		    (name && n == len && !strncasecmp(p, name, n)))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool restricted(const char *list)
{
	return list && *list && !listed(list, NULL);   /* set, and not ALL */
}

static const char *qos_of(const struct job *job)
{
	return job->qos && *job->qos ? job->qos : "normal";
}

static unsigned qos_flags(const struct job *job)
{
	const struct acct_qos *q = acct_qos_find(qos_of(job));
	return q ? q->flags : 0;
}

/* Accounts mean something only with associations enforced (Slurm's
 * part_policy_valid_acct does the same). */
static bool accounts_enforced(void)
{
	return accounting.enforce_assoc || accounting.enforce_limits || accounting.enforce_qos ||
	       accounting.enforce_safe;
}

static bool account_ok(const struct job *job, const struct conf_part *c)
{
	if (!accounts_enforced())
		return true;
	if (restricted(c->allow_accounts) && !listed(c->allow_accounts, job->account))
		return false;
	return !(c->deny_accounts && job->account && listed(c->deny_accounts, job->account));
}

static bool qos_ok(const struct job *job, const struct conf_part *c)
{
	if (restricted(c->allow_qos) && !listed(c->allow_qos, qos_of(job)))
		return false;
	return !(c->deny_qos && listed(c->deny_qos, qos_of(job)));
}

/* AllowGroups: the user's primary or any supplementary group is listed;
 * root and SlurmUser may use every partition, as in Slurm. */
static bool group_ok(const struct job *job, const struct conf_part *c)
{
	if (!restricted(c->allow_groups) || job->uid == 0 || job->uid == core.slurm_uid)
		return true;
	gid_t groups[256];
	int ngroups = 256;
	if (!job->user || getgrouplist(job->user, job->gid, groups, &ngroups) < 0) {
		groups[0] = job->gid;
		ngroups = 1;
	}
	char *copy = xstrdup(c->allow_groups), *save = NULL;
	bool ok = false;
	for (char *name = strtok_r(copy, ",", &save); name && !ok;
	     name = strtok_r(NULL, ",", &save)) {
		struct group *gr = getgrnam(name);
		for (int i = 0; gr && i < ngroups && !ok; i++)
			ok = groups[i] == gr->gr_gid;
	}
	free(copy);
	return ok;
}

/* RootOnly: only root (and SlurmUser, as in Slurm) allocate there; the job's
 * uid is its submitter's (Herd has no sbatch --uid). */
static bool root_ok(const struct job *job, const struct conf_part *c)
{
	return !c->root_only || job->uid == 0 || job->uid == core.slurm_uid;
}

/* AllocNodes: the submission's credential was made on one of the listed
 * hosts (its MUNGE origin address against the addresses part.c looked up);
 * an unknown origin is refused, as in Slurm.  SubmitHost, the name the
 * command sends, is only shown. */
static bool alloc_node_ok(const struct job *job, const struct part *p)
{
	if (!restricted(p->conf->alloc_nodes))
		return true;
	if (job->origin.s_addr == htonl(INADDR_ANY))
		return false;
	for (int i = 0; i < p->nalloc_addrs; i++)
		if (p->alloc_addrs[i].s_addr == job->origin.s_addr)
			return true;
	return false;
}

static uint32_t job_nodes(const struct job *job)
{
	return job->req_nodes ? job->req_nodes : 1;
}

/* MinNodes/MaxNodes; a QOS with PartitionMinNodes/PartitionMaxNodes passes them. */
static bool nodes_ok(const struct job *job, const struct conf_part *c, unsigned qf)
{
	if (c->max_nodes >= 0 && job_nodes(job) > (uint32_t)c->max_nodes &&
	    !(qf & QOS_FLAG_PART_MAX_NODE))
		return false;
	return !(job_nodes(job) < (uint32_t)c->min_nodes && !(qf & QOS_FLAG_PART_MIN_NODE));
}

/* MaxTime; a QOS with PartitionTimeLimit passes it. */
static bool time_ok(const struct job *job, const struct conf_part *c, unsigned qf)
{
	if (c->max_time == TIME_INFINITE || (qf & QOS_FLAG_PART_TIME_LIMIT) ||
	    job->time_limit == TIME_NOT_GIVEN)
		return true;
	return job->time_limit != TIME_INFINITE && job->time_limit <= c->max_time;
}

enum job_reason part_limits_check(const struct job *job, const struct part *p)
{
	const struct conf_part *c = p->conf;
	unsigned qf = qos_flags(job);

	if (!nodes_ok(job, c, qf))
		return REASON_PART_NODE_LIMIT;
	if (!time_ok(job, c, qf))
		return REASON_PART_TIME_LIMIT;
	if (!account_ok(job, c))
		return REASON_ACCOUNT_NOT_ALLOWED;
	if (!qos_ok(job, c))
		return REASON_QOS_NOT_ALLOWED;
	return REASON_NONE;
}

/* One partition at submission: 0 or the rc (the log says why, as Slurm's does). */
static int submit_one(const struct job *job, const struct part *p, enum enforce mode)
{
	const struct conf_part *c = p->conf;
	unsigned qf = qos_flags(job);
	const char *why;
	int rc;

	if (!root_ok(job, c)) {
		why = "not root (RootOnly)";
		rc = HERD_ERR_ACCESS;
	} else if (!alloc_node_ok(job, p)) {
		char addr[INET_ADDRSTRLEN];
		log_info("submission of uid %u to partition %s refused: its credential comes from "
			 "%s (SubmitHost %s), not from AllocNodes=%s", (unsigned)job->uid, p->name,
			 inet_ntop(AF_INET, &job->origin, addr, sizeof(addr)),
			 job->submit_host && *job->submit_host ? job->submit_host : "(none)",
			 c->alloc_nodes);
		return HERD_ERR_ACCESS;
	} else if (!group_ok(job, c)) {
		why = "user's group not permitted";
		rc = HERD_ERR_PART_GROUP;
	} else if (mode == ENFORCE_NO) {
		return 0;
	} else if (!account_ok(job, c)) {
		why = "job's account not permitted";
		rc = HERD_ERR_INVALID_ACCOUNT;
	} else if (!qos_ok(job, c)) {
		why = "job's QOS not permitted";
		rc = HERD_ERR_INVALID_QOS;
	} else if (!nodes_ok(job, c, qf)) {
		why = "node count outside MinNodes..MaxNodes";
		rc = HERD_ERR_INVALID_NODE_COUNT;
	} else if (!time_ok(job, c, qf)) {
		why = "time limit over MaxTime";
		rc = HERD_ERR_TIME_LIMIT;
	} else {
		return 0;
	}
	log_info("submission of uid %u (account %s, qos %s) to partition %s refused: %s",
		 (unsigned)job->uid, job->account ? job->account : "(none)", qos_of(job), p->name, why);
	return rc;
}

int part_limits_submit(struct job *job, struct herd_error *err)
{
	enum enforce mode = enforce_mode();
	int nparts, first_rc = 0;
	bool any_ok = false;
	struct part *const *parts = job_parts(job, &nparts);

	/* No -N: the partition's MinNodes (the smallest of several). */
	if (!job->req_nodes && nparts > 0) {
		int min = INT_MAX;
		for (int i = 0; i < nparts; i++)
			if (parts[i]->conf->min_nodes < min)
				min = parts[i]->conf->min_nodes;
		if (min > 1)
			job->req_nodes = (uint32_t)min;
	}
	for (int i = 0; i < nparts; i++) {
		int rc = submit_one(job, parts[i], mode);
		/* a partition the user may not use (RootOnly, AllocNodes,
		 * AllowGroups) refuses the job whatever the others say, as
		 * Slurm does */
		if (rc == HERD_ERR_PART_GROUP || rc == HERD_ERR_ACCESS || (rc && mode == ENFORCE_ALL))
			return errprintf(err, "%s", herd_strerror(rc)), rc;
		if (!rc)
			any_ok = true;
		else if (!first_rc)
			first_rc = rc;
	}
	if (!any_ok && first_rc)
		return errprintf(err, "%s", herd_strerror(first_rc)), first_rc;
	return 0;
}

static int part_share(const struct job *job, const struct part *p)
{
	const char *os = p->conf->oversubscribe;

	if (job->exclusive || !os)   /* before reading it: every pass asks, for every job */
		return 1;
	bool yes = !strncasecmp(os, "YES", 3), force = !strncasecmp(os, "FORCE", 5);
	if ((!yes && !force) || (yes && !job->oversubscribe) || gang_part(p))
		return 1;
	const char *colon = strchr(os, ':');
	long n = colon ? strtol(colon + 1, NULL, 10) : 4;
	return n < 1 ? 1 : n > 0xFFFF ? 0xFFFF : (int)n;
}

int part_cpu_share(const struct job *job)
{
	int nparts, share = 0;
	struct part *const *parts = job_parts(job, &nparts);
	for (int k = 0; k < nparts; k++) {
		int s = part_share(job, parts[k]);
		if (!share || s < share)
			share = s;
	}
	return share ? share : 1;
}

void part_limits_req(const struct job *job, const struct part *p, struct sched_req *req)
{
	const char *os = p->conf->oversubscribe;

	req->share = part_cpu_share(job);

	/* --batch: one of its nodes must have those features.  Set here, with
	 * the rest that snap_job_req's plain fields do not say; the pass in a
	 * worker reads the set, which is why the job frees it through
	 * backfill_free_later. */
	req->batch = job->batch_idx;
	req->nbatch = job->nbatch_idx;
	req->user = (uint32_t)job->uid + 1;
	if (p->conf->exclusive_user || job->exclusive_user)
		req->exclusive_user = true;
	/* OverSubscribe=EXCLUSIVE: every job gets whole nodes.  YES:N and
	 * FORCE:N share CPUs too (req->share); gang scheduling of FORCE is
	 * preempt.c's. */
	if (os && !strncasecmp(os, "EXCLUSIVE", 9))
		req->exclusive = true;
}

struct nodes_ctx {
	struct sched_node *sn;
	int *seen;
};

static void node_users(struct job *job, void *arg)
{
	struct nodes_ctx *c = arg;
	if (!job->nalloc || (job->state != JOB_RUNNING && job->state != JOB_COMPLETING &&
			     job->state != JOB_SUSPENDED))
		return;
	uint32_t user = (uint32_t)job->uid + 1;
	bool owns = job->exclusive_user || (job->part && job->part->conf->exclusive_user);
	for (int i = 0; i < job->nalloc; i++) {
		int idx = job->alloc_node[i];
		struct sched_node *n = &c->sn[idx];
		if (!c->seen[idx]++)
			n->user = user;
		else if (n->user != user)
			n->user = 0;
		if (owns)
			n->user_owned = true;
	}
}

void part_limits_nodes(struct sched_node *sn)
{
	/* a job's --exclusive=user owns its nodes as a partition's
	 * ExclusiveUser=YES does; with neither, no walk of the job table */
	bool any = core.njobs_exclusive_user > 0;
	for (int i = 0; i < core.nparts && !any; i++)
		any = core.parts[i].conf->exclusive_user;
	if (!any)
		return;
	struct nodes_ctx c = { sn, xmalloc((core.nnodes + 1) * sizeof(int)) };
	job_foreach(node_users, &c);
	free(c.seen);
}
