/* The controller's request table: who may send each message and which
 * function answers it.  Mutating requests answer only after their change is
 * durable (store_after_commit). */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "common/bitmap.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "core/part_limits.h"
#include "core/prio.h"
#include "core/resv.h"
#include "core/licenses.h"

/* ROLE_NODE: node daemons (root or SlurmUser); ROLE_ADMIN: the same users
 * as administrators. */
enum role { ROLE_ANY, ROLE_NODE, ROLE_ADMIN };

/* Replies that wait for a commit. */
struct pending_reply {
	struct net_req *req;
	uint32_t job_id;
	bool with_id;
};

static void reply_after_commit(void *arg, bool ok)
{
	struct pending_reply *p = arg;
	json_t *body = NULL;

	if (!ok) {
		/* The submission never reached the disk, so it never happened
		 * (job_submit forgets it): the client may submit again. */
		net_respond(p->req, HERD_ERR_INTERNAL, NULL, "Unable to save state (store commit failed)");
		free(p);
		return;
	}
	if (p->with_id)
		body = json_pack("{s:I}", "job_id", (json_int_t)p->job_id);
	net_respond(p->req, 0, body, NULL);
	free(p);
}

void respond_durable(struct net_req *req, uint32_t job_id, bool with_id)
{
	struct pending_reply *p = xmalloc(sizeof(*p));
	p->req = req;
	p->job_id = job_id;
	p->with_id = with_id;
	store_after_commit(reply_after_commit, p);
}

static void rpc_ping(struct net_req *req)
{
	net_respond(req, 0, json_pack("{s:s, s:s, s:I}", "cluster", core.cluster,
				      "controller", ctld.ctld_target.host, "time", (json_int_t)core_now()),
		    NULL);
}

/* sbatch --test-only: the would-be job ID and start, nothing queued. */
static void test_only_reply(struct net_req *req, struct job *job)
{
	struct herd_error err = { "" };
	time_t start = 0;
	char *nodes = NULL;
	int cpus = 0;
	const struct part *part = NULL;
	int rc = sched_test_only(job, &start, &nodes, &cpus, &part, &err);

	if (rc) {
		net_respond(req, rc, NULL, err.text);
		return;
	}
	net_respond(req, 0, json_pack("{s:I, s:I, s:s, s:i, s:s}", "job_id",
				      (json_int_t)core.next_job_id, "start_time", (json_int_t)start,
				      "nodes", nodes, "num_cpus", cpus, "partition", part->name), NULL);
	free(nodes);
}

static void rpc_submit(struct net_req *req)
{
	json_t *spec = json_object_get(req->body, "job");
	const char *key = msg_str(req->body, "key");
	struct submitter who = { req->uid, req->gid, req->origin, key };
	bool test_only = json_is_true(json_object_get(spec, "test_only"));
	struct job *job, *dup;
	struct herd_error err = { "" };
	int rc;

	/* --uid/--gid: root (or SlurmUser) submits for another user, as Slurm;
	 * the job is then that user's, in the user's group unless --gid says */
	json_t *as_uid = json_object_get(spec, "uid"), *as_gid = json_object_get(spec, "gid");
	if (as_uid || as_gid) {
		if (req->uid != 0 && req->uid != core.slurm_uid) {
			net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
			return;
		}
		struct passwd *pw = as_uid ? getpwuid((uid_t)json_integer_value(as_uid)) : NULL;
		if (as_uid && !pw) {
			net_respond(req, HERD_ERR_INVALID_ARG, NULL, "Invalid user id");
			return;
		}
		if (pw) {
			who.uid = pw->pw_uid;
			who.gid = pw->pw_gid;
		}
		if (as_gid)
			who.gid = (gid_t)json_integer_value(as_gid);
	}

	if (*key && (dup = job_find_key(req->uid, key))) {
		respond_durable(req, dup->id, true);   /* a retry: the first job's ID */
		return;
	}
	uint32_t old = *key ? store_find_key(req->uid, key) : 0;
	if (old) {
		net_respond(req, 0, json_pack("{s:I}", "job_id", (json_int_t)old), NULL);
		return;
	}
	json_t *het = json_object_get(req->body, "het");   /* components 1..n (core/het.c) */
	if ((rc = het ? het_submit(spec, het, &who, test_only, &job, &err)
		      : job_submit(spec, &who, test_only, &job, &err)) != 0) {
		net_respond(req, rc, NULL, err.text[0] ? err.text : NULL);
		return;
	}
	if (test_only) {
		test_only_reply(req, job);
		job_destroy(job);
		return;
	}
	respond_durable(req, job->id, true);   /* once the row is on disk */
}

static bool state_wanted(const struct job *job, const json_t *states)
{
	size_t i;
	json_t *s;
	if (!states)
		return true;
	json_array_foreach(states, i, s) {
		const char *name = json_string_value(s);
		if (!strcasecmp(name, "all") || job_state_parse(name) == (int)job->state)
			return true;
	}
	return false;
}

struct info_ctx {
	json_t *states;
	bool by_uid;
	uid_t uid;
	struct job **jobs;
	size_t n, cap;
	/* PrivateData=jobs: the viewer's own jobs, and those of the accounts
	 * roles_visible_accounts lists, unless see_all */
	uid_t viewer;
	bool see_all;
	char **accounts;
};

static void info_one(struct job *job, void *arg)
{
	struct info_ctx *c = arg;
	if (c->by_uid && job->uid != c->uid)
		return;
	if (!c->see_all && job->uid != c->viewer && !roles_account_listed(c->accounts, job->account))
		return;
	if (!state_wanted(job, c->states))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->jobs = xrealloc(c->jobs, c->cap * sizeof(*c->jobs));
	}
	c->jobs[c->n++] = job;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(struct job *const *)a)->id, y = (*(struct job *const *)b)->id;
	return (x > y) - (x < y);
}

/* A reply that waits for the commit of everything it shows: squeue never
 * reports a state a crash could take back. */
struct pending_text {
	struct net_req *req;
	struct strbuf text;
};

static void text_after_commit(void *arg, bool ok)
{
	struct pending_text *p = arg;
	net_respond_text(p->req, p->text.s, p->text.len);
	free(p);
}

/* The reply is written job by job: a tree of every job at once would cost
 * several KiB per job at the peak (100,000 jobs: most of a gigabyte). */
static void rpc_job_info(struct net_req *req)
{
	json_t *ids = json_object_get(req->body, "job_ids"), *uid = json_object_get(req->body, "uid");
	struct info_ctx c = { json_object_get(req->body, "states"), uid != NULL,
			      uid ? (uid_t)json_integer_value(uid) : 0, NULL, 0, 0, req->uid, true, NULL };
	size_t i;
	json_t *v;
	struct strbuf out = { 0 };
	char tail[64];

	c.accounts = roles_visible_accounts(req->uid, &c.see_all);   /* once, not per job */
	if (ids) {
		json_array_foreach(ids, i, v) {
			uint32_t id = (uint32_t)json_integer_value(v);
			struct job *job = job_find(id);
			/* An array's ID names all its tasks (also once the record
			 * that bore it is gone); a task's own ID, just it. */
			if (!job || job->array_job_id == id)
				array_foreach(id, info_one, &c);
			else if (job->het_job_id == id)   /* a het job's leader names them all */
				het_foreach(job, info_one, &c);
			else
				info_one(job, &c);
		}
		if (json_array_size(ids) && !c.n) {
			free(c.jobs);
			roles_accounts_free(c.accounts);
			net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
			return;
		}
	} else {
		job_foreach(info_one, &c);
	}
	roles_accounts_free(c.accounts);
	if (c.n)
		qsort(c.jobs, c.n, sizeof(*c.jobs), by_id);   /* stable order for clients */
	if (ids && c.n) {   /* an array and one of its tasks both named: once */
		size_t kept = 1;
		for (i = 1; i < c.n; i++)
			if (c.jobs[i] != c.jobs[kept - 1])
				c.jobs[kept++] = c.jobs[i];
		c.n = kept;
	}
	struct job_view *view = job_view_create(json_object_get(req->body, "fields"));
	if (json_is_true(json_object_get(req->body, "script")))
		job_view_want_script(view, req->uid, core_is_admin(req->uid));
	/* "rows": the keys once and an array per job, a third of the text and
	 * no object per job for the client to build (squeue over 100,000 jobs) */
	bool rows = json_is_true(json_object_get(req->body, "rows"));
	if (rows) {
		bool arrays = false;
		for (i = 0; i < c.n && !arrays; i++)
			arrays = c.jobs[i]->array_job_id != 0;
		if (!arrays)
			job_view_drop_array_keys(view);
		bool hets = false;
		for (i = 0; i < c.n && !hets; i++)
			hets = c.jobs[i]->het_job_id != 0;
		if (!hets)
			job_view_drop_het_keys(view);
		strbuf_adds(&out, "{\"keys\":");
		job_view_keys(view, &out);
		strbuf_adds(&out, ",\"rows\":[");
	} else {
		strbuf_adds(&out, "{\"jobs\":[");
	}
	for (i = 0; i < c.n; i++) {
		if (i)
			strbuf_add(&out, ",", 1);
		(rows ? job_view_write_row : job_view_write)(view, c.jobs[i], &out);
	}
	job_view_destroy(view);
	snprintf(tail, sizeof(tail), "],\"time\":%lld,\"rc\":0}", (long long)core_now());
	strbuf_adds(&out, tail);
	free(c.jobs);
	struct pending_text *p = xmalloc(sizeof(*p));
	p->req = req;
	p->text = out;
	store_after_commit(text_after_commit, p);
}

/* The job id names, if req's user may do act to it (roles.c: owner,
 * operator, coordinator, or a TeamJobs member for the team acts, *team set);
 * else NULL after answering (not_yours: the rc for another user's job;
 * Slurm's hold/update and scancel word it differently). */
static struct job *permitted_job(struct net_req *req, uint32_t id, int not_yours,
				 enum job_act act, bool *team)
{
	struct job *job = job_find(id);
	if (!job) {
		net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
		return NULL;
	}
	if (!roles_may_act(req->uid, job, act, team)) {
		log_info("uid %u may not %s job %u of uid %u", (unsigned)req->uid, job_act_name(act),
			 id, (unsigned)job->uid);
		net_respond(req, not_yours, NULL, NULL);
		return NULL;
	}
	return job;
}

/* Cancel (sig 0) or signal one job; 0 or an rc.  The caller answers.  team:
 * only the TeamJobs rule lets uid do it, so the act is recorded. */
static int cancel_job(struct job *job, int sig, const char *flags, uid_t uid, bool team)
{
	if (job_state_is_final(job->state) || (job->state == JOB_COMPLETING && !sig))
		return HERD_ERR_ALREADY_DONE;
	if (sig == SIGKILL && !*flags)
		sig = 0;   /* as Slurm: scancel --signal=KILL is a cancel */
	if (sig) {   /* a signal, not a cancel */
		if (job->state == JOB_PENDING)
			return HERD_ERR_JOB_PENDING;
		if (team) {
			char detail[32];
			snprintf(detail, sizeof(detail), "signal=%d", sig);
			roles_record(job, uid, JOB_ACT_SIGNAL, detail);
		}
		core_signal(job, sig, flags);
		return 0;
	}
	if (team)
		roles_record(job, uid, JOB_ACT_CANCEL, NULL);
	char *who = xasprintf("%u", (unsigned)uid);
	store_job_event(job->id, "CANCEL", who);
	free(who);
	if (job->state == JOB_PENDING || (job->state == JOB_RUNNING && job->launch == LAUNCH_NONE)) {
		job_set_state(job, JOB_CANCELLED, REASON_NONE);   /* nothing of it runs anywhere */
	} else if (job->alloc_only) {
		/* no batch script to wait for: its steps are terminated, it ends now */
		job->cancel_requested = true;
		job_set_state(job, JOB_CANCELLED, REASON_NONE);
	} else {
		job->cancel_requested = true;
		job_set_state(job, JOB_COMPLETING, REASON_NONE);
		if (job->launch == LAUNCH_DONE)
			core_terminate(job);   /* else launch_done sends it */
	}
	return 0;
}

struct array_cancel {
	struct bitmap *tasks;       /* NULL: the whole array */
	struct job **jobs;
	size_t n;
};

static void array_cancel_pick(struct job *job, void *arg)
{
	struct array_cancel *ac = arg;
	if (!ac->tasks || array_is_meta(job) || bitmap_test(ac->tasks, job->array_task_id)) {
		ac->jobs = xrealloc(ac->jobs, (ac->n + 1) * sizeof(*ac->jobs));
		ac->jobs[ac->n++] = job;
	}
}

/* One past the array's largest task ID, into *arg when larger. */
static void array_cancel_top(struct job *job, void *arg)
{
	uint32_t *bound = arg;
	uint32_t top = array_is_meta(job) ? bitmap_last(job->array_pending) : job->array_task_id;
	if (top < ARRAY_NO_TASK && top + 1 > *bound)
		*bound = top + 1;
}

/* scancel A (every task of array A), A_7, A_[1-3]: tasks that have a record
 * of their own are cancelled as they are; named pending tasks are split off
 * the meta record into one record (one task: a task's record; several: a
 * record of that set, shown A_[1-3]) that ends CANCELLED, unless they are
 * all that is left in the meta record, which then ends as a whole.  So a
 * cancel of half a million pending tasks writes one record, not 500,000. */
static int cancel_array(uint32_t array_job_id, const char *spec, int sig, const char *flags,
			uid_t uid, bool team, int *done)
{
	struct array_cancel ac = { NULL, NULL, 0 };
	uint32_t throttle;
	int rc = HERD_ERR_INVALID_JOB;

	/* Task IDs stop at MaxArraySize (or the array's largest, made before a
	 * reconfigure lowered it): one beyond names no task, refused before it
	 * costs a bit set; parse_array_spec bounds the spec's length and work
	 * (bitmap_parse_user), so one request stays cheap in the loop. */
	uint32_t bound = core.max_array_size;
	array_foreach(array_job_id, array_cancel_top, &bound);
	if (spec && parse_array_spec(spec, bound ? bound : 1, &ac.tasks, &throttle) < 0)
		return errno == ERANGE ? HERD_ERR_INVALID_JOB : HERD_ERR_INVALID_ARRAY;
	array_foreach(array_job_id, array_cancel_pick, &ac);
	for (size_t i = 0; i < ac.n; i++) {
		struct job *job = ac.jobs[i];
		int one = 0;
		if (ac.tasks && array_is_meta(job) && job->state == JOB_PENDING) {
			uint32_t named = bitmap_count_common(job->array_pending, ac.tasks);
			bool all = named == bitmap_count(job->array_pending);
			if (!named)
				continue;
			if (sig && sig != SIGKILL) {
				one = HERD_ERR_JOB_PENDING;
			} else if (all) {
				one = cancel_job(job, 0, "", uid, team);
			} else {
				one = cancel_job(array_split_set(job, ac.tasks), 0, "", uid, team);
			}
		} else {
			one = cancel_job(job, sig, flags, uid, team);
		}
		if (one == 0)
			(*done)++;
		else if (rc == HERD_ERR_INVALID_JOB)
			rc = one;   /* the first error, told when nothing succeeded */
	}
	bitmap_destroy(ac.tasks);
	free(ac.jobs);
	return *done ? 0 : rc;
}

struct het_cancel {
	int sig, rc, done;
	const char *flags;
	uid_t uid;
	bool team;
};

static void het_cancel_one(struct job *c, void *arg)
{
	struct het_cancel *hc = arg;
	int rc = cancel_job(c, hc->sig, hc->flags, hc->uid, hc->team);
	if (!rc)
		hc->done++;
	else if (!hc->rc)
		hc->rc = rc;
}

/* scancel of a heterogeneous job: its leader's ID (or ID+0) names the
 * whole job, every component; ID+N (or component N's own ID) that
 * component alone, and only once it runs (Slurm: "Operation not
 * permitted on individual component of heterogeneous job"). */
static int cancel_het(struct net_req *req, uint32_t leader, int64_t offset, int sig, const char *flags,
		      enum job_act act)
{
	struct job *target = offset >= 0 && offset <= UINT32_MAX ? het_component(leader, offset) : NULL;
	struct het_cancel hc = { sig, 0, 0, flags, req->uid, false };

	if (!target)
		return HERD_ERR_INVALID_JOB;
	if (!permitted_job(req, target->id, HERD_ERR_ACCESS, act, &hc.team))
		return -1;   /* answered */
	if (offset > 0) {
		if (target->state == JOB_PENDING)
			return HERD_ERR_NOT_WHOLE_HET;
		return cancel_job(target, sig, flags, req->uid, hc.team);
	}
	het_foreach(target, het_cancel_one, &hc);
	return hc.done ? 0 : hc.rc ? hc.rc : HERD_ERR_ALREADY_DONE;
}

static void rpc_cancel(struct net_req *req)
{
	uint32_t id = msg_int(req->body, "job_id");
	int sig = msg_int(req->body, "signal");
	const char *flags = msg_str(req->body, "flags"), *tasks = msg_str(req->body, "array_tasks");
	struct job *job = job_find(id);
	int rc, done = 0;
	bool team = false;
	/* scancel --signal=KILL without --batch/--full is a cancel */
	enum job_act act = sig && !(sig == SIGKILL && !*flags) ? JOB_ACT_SIGNAL : JOB_ACT_CANCEL;

	if (sig < 0 || sig > 64 || (*flags && strcmp(flags, "batch") && strcmp(flags, "full"))) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, NULL);
		return;
	}
	json_t *het_offset = json_object_get(req->body, "het_offset");   /* scancel ID+N */
	if (!json_object_get(req->body, "step_id") && (het_offset || (job && job->het_job_id))) {
		uint32_t leader = het_offset ? id : job->het_job_id;
		int64_t offset = het_offset ? json_integer_value(het_offset) : (int64_t)id - leader;
		if ((rc = cancel_het(req, leader, offset, sig, flags, act)) < 0)
			return;
	} else if (!json_object_get(req->body, "step_id") && (tasks || !job || job->array_job_id == id)) {
		/* Array jobs (and an array whose first record is gone): its
		 * owner is the owner of every task. */
		struct job *any = job;
		if (!any) {
			struct array_cancel ac = { NULL, NULL, 0 };
			array_foreach(id, array_cancel_pick, &ac);
			any = ac.n ? ac.jobs[0] : NULL;
			free(ac.jobs);
		}
		if (!any) {
			net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
			return;
		}
		if (!permitted_job(req, any->id, HERD_ERR_ACCESS, act, &team))
			return;
		rc = cancel_array(id, tasks, sig, flags, req->uid, team, &done);
	} else {
		if (!permitted_job(req, id, HERD_ERR_ACCESS, act, &team))
			return;
		json_t *step = json_object_get(req->body, "step_id");
		if (step && job->state != JOB_RUNNING && job->state != JOB_COMPLETING)
			rc = job->state == JOB_PENDING ? HERD_ERR_JOB_PENDING : HERD_ERR_ALREADY_DONE;
		else if (step && (rc = step_cancel(job, json_integer_value(step),
						   act == JOB_ACT_CANCEL ? 0 : sig, req->uid)) == 0 && team) {
			char detail[32];
			snprintf(detail, sizeof(detail), "step=%lld", (long long)json_integer_value(step));
			roles_record(job, req->uid, act, detail);
		} else if (!step)
			rc = cancel_job(job, sig, flags, req->uid, team);
	}
	if (rc) {
		net_respond(req, rc, NULL, NULL);
		return;
	}
	respond_durable(req, id, false);
}

/* hold, uhold, release of one pending job; 0 or an rc.  admin: the user is
 * privileged for the job (roles_privileged); team: only TeamJobs allowed it,
 * and the act is recorded (uid). */
static int hold_job(struct job *job, const char *action, bool admin, bool team, uid_t uid)
{
	if (job->state != JOB_PENDING)
		return HERD_ERR_JOB_NOT_PENDING;
	if (!strcmp(action, "release")) {
		if (job->hold_admin && !admin)
			return HERD_ERR_ACCESS;
		if (team)
			roles_record(job, uid, JOB_ACT_RELEASE, NULL);
		job->hold_admin = job->hold_user = false;
		job->priority = job_priority(job);
		job_set_state(job, JOB_PENDING, REASON_NONE);
		sched_request();
		return 0;
	}
	if (team)
		roles_record(job, uid, JOB_ACT_HOLD, NULL);
	if (!strcmp(action, "hold") && admin)
		job->hold_admin = true;
	else
		job->hold_user = true;
	job->priority = 0;
	job_set_state(job, JOB_PENDING, job->hold_admin ? REASON_HELD_ADMIN : REASON_HELD_USER);
	return 0;
}

struct hold_walk {
	const char *action;
	bool admin, team;
	uid_t uid;
	int rc, done;
};

static void hold_one(struct job *job, void *arg)
{
	struct hold_walk *w = arg;
	if (job->state != JOB_PENDING)
		return;
	int rc = hold_job(job, w->action, w->admin, w->team, w->uid);
	if (rc == 0)
		w->done++;
	else
		w->rc = rc;
}

/* What an UPDATE_JOB action is, to roles.c.  An update is let through as
 * the team act of shortening the time limit: update_job_fields takes only
 * that from a team member and refuses the rest as Access/permission denied
 * (they have rights to the job), while a stranger is refused here. */
static enum job_act update_act(const char *action)
{
	if (!strcmp(action, "update"))
		return JOB_ACT_TIME_LIMIT;
	if (!strncmp(action, "requeue", 7))
		return JOB_ACT_REQUEUE;
	if (!strcmp(action, "hold") || !strcmp(action, "uhold"))
		return JOB_ACT_HOLD;
	if (!strcmp(action, "release"))
		return JOB_ACT_RELEASE;
	return JOB_ACT_UPDATE;   /* suspend, resume: operators only, below */
}

static void rpc_update(struct net_req *req)
{
	uint32_t id = msg_int(req->body, "job_id");
	const char *action = msg_str(req->body, "action");
	uid_t uid = req->uid;   /* permitted_job may answer (and free) req */
	json_t *task = json_object_get(req->body, "array_task");
	enum job_act act = update_act(action);
	struct job *job;
	bool team = false;
	/* Slurm: "Invalid user id" for an update or hold of another's job,
	 * "Access/permission denied" for a requeue. */
	int not_yours = strncmp(action, "requeue", 7) ? HERD_ERR_USER_ID : HERD_ERR_ACCESS;

	if (task) {
		/* scontrol ... JobId=A_T: that task alone (split off its meta
		 * record while it is pending, as Slurm does) */
		if (job_find(id) && !permitted_job(req, id, not_yours, act, &team))
			return;   /* nobody else's array is split */
		struct job *t = array_task_job(id, (uint32_t)json_integer_value(task));
		if (!t) {
			net_respond(req, HERD_ERR_INVALID_JOB, NULL, NULL);
			return;
		}
		id = t->id;
	}
	if (!(job = permitted_job(req, id, not_yours, act, &team)))
		return;
	bool admin = roles_privileged(uid, job);
	bool whole = !strncmp(action, "requeue", 7) || !strcmp(action, "suspend") ||
		     !strcmp(action, "resume");
	if (whole && job->het_job_id && job->het_job_offset) {
		/* Slurm: through the leader only, for every component */
		net_respond(req, strncmp(action, "requeue", 7) ? HERD_ERR_NOT_WHOLE_HET
							   : HERD_ERR_NOT_HET_LEADER, NULL, NULL);
		return;
	}
	if (!strcmp(action, "update")) {
		struct herd_error err = { "" };
		int rc = update_job_fields(job, json_object_get(req->body, "fields"), uid, admin,
					   team, &err);
		/* a het job's leader: every component (Slurm), "L+N" one */
		for (uint32_t k = 1; !rc && job->het_job_id == id && k < job->het_size; k++) {
			struct job *c = het_component(id, k);
			if (c)
				rc = update_job_fields(c, json_object_get(req->body, "fields"), uid,
						       roles_privileged(uid, c), team, &err);
		}
		if (rc != 0)
			net_respond(req, rc, NULL, *err.text ? err.text : NULL);
		else
			respond_durable(req, job->id, false);
		return;
	}
	if (!strcmp(action, "requeue") || !strcmp(action, "requeuehold")) {
		int rc = update_requeue(job, uid, !strcmp(action, "requeuehold"), team);
		if (rc != 0)
			net_respond(req, rc, NULL, NULL);
		else
			respond_durable(req, job->id, false);
		return;
	}
	if (!strcmp(action, "suspend") || !strcmp(action, "resume")) {
		bool suspend = !strcmp(action, "suspend");
		/* scontrol(1): suspend and resume are for operators and administrators */
		int rc = !acct_is_operator(uid) ? HERD_ERR_ACCESS
			 : suspend && job->state != JOB_RUNNING ? HERD_ERR_NOT_RUNNING
			 : !suspend && job->state != JOB_SUSPENDED ? HERD_ERR_NOT_SUSPENDED : 0;
		if (rc) {
			net_respond(req, rc, NULL, NULL);
			return;
		}
		/* scontrol suspend/resume: every process of the job is frozen
		 * or thawed on its nodes (the cgroup freezer); a het job's
		 * leader: every component's */
		for (uint32_t k = 0; k < (job->het_job_id ? job->het_size : 1); k++) {
			struct job *c = job->het_job_id ? het_component(job->id, k) : job;
			if (!c || c->state != (suspend ? JOB_RUNNING : JOB_SUSPENDED))
				continue;
			job_set_state(c, suspend ? JOB_SUSPENDED : JOB_RUNNING, REASON_NONE);
			core_suspend(c, suspend, NULL, NULL);
		}
		respond_durable(req, id, false);
		return;
	}
	if (strcmp(action, "hold") && strcmp(action, "uhold") && strcmp(action, "release")) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, NULL);
		return;
	}
	int rc;
	if (!task && job->array_job_id == id) {
		/* An array's ID: every pending record of it (the meta record
		 * and tasks split off it), as Slurm holds and releases arrays. */
		struct hold_walk w = { action, admin, team, uid, HERD_ERR_JOB_NOT_PENDING, 0 };
		array_foreach(id, hold_one, &w);
		rc = w.done ? 0 : w.rc;
	} else if (job->het_job_id == id) {
		/* a het job's leader: every component (Slurm) */
		struct hold_walk w = { action, admin, team, uid, HERD_ERR_JOB_NOT_PENDING, 0 };
		het_foreach(job, hold_one, &w);
		rc = w.done ? 0 : w.rc;
	} else {
		rc = hold_job(job, action, admin, team, uid);
	}
	if (rc) {
		net_respond(req, rc, NULL, NULL);
		return;
	}
	respond_durable(req, id, false);
}

static void rpc_node_info(struct net_req *req)
{
	json_t *nodes = json_array();
	for (int i = 0; i < core.nnodes; i++)
		json_array_append_new(nodes, node_to_json(&core.nodes[i]));
	net_respond(req, 0, json_pack("{s:o, s:I}", "nodes", nodes, "time", (json_int_t)core_now()),
		    NULL);
}

static void rpc_part_info(struct net_req *req)
{
	json_t *parts = json_array();
	for (int i = 0; i < core.nparts; i++)
		if (!core.parts[i].removed)
			json_array_append_new(parts, part_to_json(&core.parts[i]));
	net_respond(req, 0, json_pack("{s:o, s:I}", "partitions", parts, "time", (json_int_t)core_now()),
		    NULL);
}

static void rpc_job_complete(struct net_req *req)
{
	struct job_end end = {
		.id = msg_int(req->body, "job_id"), .status = msg_int(req->body, "status"),
		.timed_out = json_is_true(json_object_get(req->body, "timed_out")),
		.oom = json_is_true(json_object_get(req->body, "oom")),
		.node = msg_str(req->body, "node"),
	};

	if (job_ended(&end) == JOB_END_NOT_OURS)
		net_respond(req, 0, NULL, NULL);   /* taken as heard: nothing to wait for */
	else
		respond_durable(req, end.id, false);   /* once the end is durable */
}

struct rpc {
	int type;
	void (*fn)(struct net_req *req);
	enum role role;
};

/* scontrol show licenses [name] (core/licenses.c) */
static void license_rpc(struct net_req *req)
{
	const char *name = json_string_value(json_object_get(req->body, "name"));
	net_respond(req, 0, json_pack("{s:o, s:i}", "licenses", licenses_info(name && *name ? name : NULL),
				      "configured", licenses_count()), NULL);
}

static void prio_rpc(struct net_req *req)
{
	net_respond(req, 0, prio_info(req->body, req->uid), NULL);
}

static const struct rpc rpcs[] = {
	{ MSG_PING, rpc_ping, ROLE_ANY },
	{ MSG_SUBMIT_JOB, rpc_submit, ROLE_ANY },
	{ MSG_JOB_INFO, rpc_job_info, ROLE_ANY },
	{ MSG_CANCEL_JOB, rpc_cancel, ROLE_ANY },
	{ MSG_UPDATE_JOB, rpc_update, ROLE_ANY },
	{ MSG_NODE_INFO, rpc_node_info, ROLE_ANY },
	{ MSG_PART_INFO, rpc_part_info, ROLE_ANY },
	{ MSG_ACCT_JOBS, acct_jobs, ROLE_ANY },
	{ MSG_CLUSTER_INFO, acct_clusters, ROLE_ANY },
	{ MSG_ACCT_MGR, assoc_rpc, ROLE_ANY },   /* who may: assoc_mgr.c checks */
	{ MSG_UPDATE_NODE, node_update, ROLE_ANY },   /* admins only: node_update checks */
	{ MSG_RECONFIGURE, reconf_rpc, ROLE_ADMIN },
	{ MSG_NODE_REGISTER, node_register, ROLE_NODE },
	{ MSG_JOB_COMPLETE, rpc_job_complete, ROLE_NODE },
	{ MSG_STEP_CREATE, step_create, ROLE_ANY },
	{ MSG_STEP_INFO, step_info, ROLE_ANY },
	{ MSG_COMPLETE_ALLOC, step_complete_alloc, ROLE_ANY },
	{ MSG_STEP_COMPLETE, step_complete, ROLE_NODE },
	{ MSG_GPU_USAGE, node_gpu_usage, ROLE_NODE },
	{ MSG_SHARE_INFO, usage_rpc, ROLE_ANY },
	{ MSG_PRIO_INFO, prio_rpc, ROLE_ANY },
	{ MSG_ACCT_REPORT, report_rpc, ROLE_ANY },
	{ MSG_RESV_CREATE, resv_create_rpc, ROLE_ANY },   /* operators: resv.c checks */
	{ MSG_RESV_UPDATE, resv_update_rpc, ROLE_ANY },
	{ MSG_RESV_DELETE, resv_delete_rpc, ROLE_ANY },
	{ MSG_RESV_INFO, resv_info_rpc, ROLE_ANY },
	{ MSG_LICENSE_INFO, license_rpc, ROLE_ANY },
	{ MSG_TOKEN_CREATE, auth_jwt_token_rpc, ROLE_ANY },   /* who for whom: auth_jwt.c */
	{ MSG_JOB_COUNTS, counts_rpc, ROLE_ANY },
};

void rpc_handle(struct net_req *req, void *arg)
{
	/* herdrestd's envelope: from here on, the inner request of the token's
	 * user (req->type stays the envelope's, for the reply) */
	int type = req->type == MSG_JWT_REQUEST ? auth_jwt_unwrap(req) : req->type;

	if (type < 0)
		return;   /* refused and answered */
	log_debug("%s from uid %u", msg_name(type), (unsigned)req->uid);
	for (size_t i = 0; i < sizeof(rpcs) / sizeof(rpcs[0]); i++) {
		if (rpcs[i].type != type)
			continue;
		/* node daemons' messages only from root or SlurmUser: an
		 * AdminLevel=Administrator user administers, it is no node */
		bool ok = rpcs[i].role == ROLE_ANY ||
			  (rpcs[i].role == ROLE_NODE ? req->uid == 0 || req->uid == core.slurm_uid
						     : core_is_admin(req->uid));
		if (!ok) {
			log_error("%s from uid %u refused: not %s", msg_name(type),
				  (unsigned)req->uid, rpcs[i].role == ROLE_NODE ? "a node daemon"
				  : "root or SlurmUser");
			net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
			return;
		}
		rpcs[i].fn(req);
		return;
	}
	net_respond(req, HERD_ERR_UNKNOWN_TYPE, NULL, NULL);
}
