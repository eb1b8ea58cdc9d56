/* Heterogeneous jobs (Slurm's "Heterogeneous Job Support"): one submission
 * of several components, each a job record of its own with its own
 * resources, partition and limits, with consecutive IDs from the leader's
 * (component 0, whose ID is the HetJobId).  The passes start them together
 * or not at all (sched_snap.c puts a het job's components side by side,
 * src/sched/pass.c decides them as one); the leader runs the batch script,
 * the other components hold their allocations for its steps; the leader's
 * end ends them all.  Not here: the launch (ctld/launch.c) and the display
 * ("ID+offset", the commands'). */
#include <stdio.h>
#include <string.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "core/core.h"

/* Slurm's MAX_HET_JOB_COMPONENTS */

struct job *het_component(uint32_t leader_id, uint32_t offset)
{
	if (leader_id > UINT32_MAX - offset)
		return NULL;
	struct job *c = job_find(leader_id + offset);
	return c && c->het_job_id == leader_id && c->het_job_offset == offset ? c : NULL;
}

void het_foreach(const struct job *job, void (*fn)(struct job *c, void *arg), void *arg)
{
	if (!job->het_job_id) {
		fn((struct job *)job, arg);
		return;
	}
	uint32_t leader = job->het_job_id, n = job->het_size;
	for (uint32_t k = 0; k < n; k++) {   /* by ID: fn may end or forget a component */
		struct job *c = het_component(leader, k);
		if (c)
			fn(c, arg);
	}
}

const char *het_id_set(const struct job *job, char *buf, size_t len)
{
	if (!job->het_job_id)
		return "";
	if (job->het_size <= 1)
		snprintf(buf, len, "%u", (unsigned)job->het_job_id);
	else
		snprintf(buf, len, "%u-%u", (unsigned)job->het_job_id,
			 (unsigned)(job->het_job_id + job->het_size - 1));
	return buf;
}

/* Component k's request as job_submit takes it: the leader alone runs the
 * batch script, so the others are allocations (their steps come from the
 * script's srun --het-group), and mail is the leader's only; what the
 * client left out of them that names the job (name, directory, command)
 * is the leader's, as Slurm propagates it. */
static json_t *component_spec(const json_t *leader, const json_t *spec)
{
	static const char *from_leader[] = { "name", "cwd", "submit_host", "command" };
	json_t *c = json_copy((json_t *)spec);

	json_object_set_new(c, "script", json_string(""));
	json_object_set_new(c, "alloc", json_true());
	json_object_del(c, "mail_type");   /* Slurm: mail is the leader's only */
	if (json_is_true(json_object_get(leader, "hold")))
		json_object_set_new(c, "hold", json_true());   /* sbatch -H: the whole job */
	for (size_t k = 0; k < sizeof(from_leader) / sizeof(from_leader[0]); k++)
		if (!json_object_get(c, from_leader[k]) && json_object_get(leader, from_leader[k]))
			json_object_set(c, from_leader[k], json_object_get(leader, from_leader[k]));
	return c;
}

int het_submit(const json_t *spec, const json_t *het, const struct submitter *who,
	       bool test_only, struct job **out, struct herd_error *err)
{
	size_t n = json_array_size(het) + 1, k;
	json_t **specs;
	struct job **jobs;
	int rc = 0;

	*out = NULL;
	err->text[0] = '\0';
	if (!json_is_object(spec) || !json_is_array(het) || n > HET_MAX_COMPONENTS)
		return HERD_ERR_INVALID_ARG;
	/* Slurm: "Job arrays of heterogeneous jobs are not supported." */
	for (k = 0; k < n; k++) {
		const json_t *c = k ? json_array_get(het, k - 1) : spec;
		if (!json_is_object(c))
			return HERD_ERR_INVALID_ARG;
		if (*msg_str_or(c, "array")) {
			errprintf(err, "%s", herd_strerror(HERD_ERR_INVALID_ARRAY));
			return HERD_ERR_INVALID_ARRAY;
		}
	}
	if (n == 1)
		return job_submit(spec, who, test_only, out, err);
	specs = xmalloc(n * sizeof(*specs));
	jobs = xmalloc(n * sizeof(*jobs));
	specs[0] = json_incref((json_t *)spec);
	for (k = 1; k < n; k++)
		specs[k] = component_spec(spec, json_array_get(het, k - 1));
	/* Every component is checked before any is made: the whole request
	 * is accepted or refused. */
	struct submitter one = *who;
	one.key = NULL;
	for (k = 0; k < n && !rc; k++) {
		rc = job_submit(specs[k], &one, true, &jobs[k], err);
		if (!rc && (k > 0 || !test_only))
			job_destroy(jobs[k]);
	}
	if (test_only && rc && k > 1)
		job_destroy(jobs[0]);
	if (rc || test_only) {
		if (!rc)
			*out = jobs[0];   /* --test-only: the leader says when */
		goto done;
	}
	uint32_t leader = core.next_job_id;
	for (k = 0; k < n; k++) {
		one.key = k ? NULL : who->key;   /* a retry finds the leader */
		rc = job_submit(specs[k], &one, false, &jobs[k], err);
		if (rc) {
			/* checked above: only a limit counted by the components
			 * made before can refuse it now; those end, never run */
			log_error("het job %u: component %zu refused: %s", leader, k,
				  err->text[0] ? err->text : herd_strerror(rc));
			for (size_t m = 0; m < k; m++)   /* (the leader's end ends the rest) */
				if (!job_state_is_final(jobs[m]->state))
					job_set_state(jobs[m], JOB_CANCELLED, REASON_NONE);
			goto done;
		}
		jobs[k]->het_job_id = leader;
		jobs[k]->het_job_offset = k;
		jobs[k]->het_size = n;
		job_changed(jobs[k]);
	}
	*out = jobs[0];
done:
	for (k = 0; k < n; k++)
		json_decref(specs[k]);
	free(specs);
	free(jobs);
	return rc;
}

struct het_end {
	const struct job *from;
};

static void end_component(struct job *c, void *arg)
{
	const struct job *from = ((struct het_end *)arg)->from;

	if (c == from || job_state_is_final(c->state))
		return;
	c->exit_status = from->exit_status;
	if (c->state == JOB_PENDING || c->alloc_only) {
		/* nothing of it runs but its steps, which end with it */
		if (from->state == JOB_CANCELLED)
			c->cancel_requested = true;
		job_set_state(c, from->state, from->reason);
	} else if (c->state == JOB_RUNNING) {
		c->cancel_requested = true;   /* a leader that ran no script (salloc) */
		job_set_state(c, JOB_COMPLETING, REASON_NONE);
		if (c->launch == LAUNCH_DONE)
			core_terminate(c);
	}
}

static void requeue_component(struct job *c, void *arg)
{
	if (c != arg && c->state != JOB_PENDING)
		job_requeue_finish(c);   /* its nodes back, its steps ended, pending again */
}

/* A watcher (job.c): the leader's end ends every component (Slurm: the job
 * ends when its batch script does; a cancel of the leader cancels them
 * all); a component that ends before it ran (a deadline, a dependency
 * never met) ends the leader, as the het job can no longer start whole;
 * a leader queued again (requeue, a node lost) queues them all again. */
void het_job_state(struct job *job, enum job_state old)
{
	struct het_end e = { job };

	if (!job->het_job_id)
		return;
	if (job->het_job_offset == 0 && job->state == JOB_PENDING &&
	    (old == JOB_RUNNING || old == JOB_COMPLETING || old == JOB_SUSPENDED)) {
		het_foreach(job, requeue_component, job);
		return;
	}
	if (!job_state_is_final(job->state) || job_state_is_final(old))
		return;
	if (job->het_job_offset == 0) {
		het_foreach(job, end_component, &e);
		return;
	}
	struct job *leader = het_component(job->het_job_id, 0);
	if (old == JOB_PENDING && leader && leader->state == JOB_PENDING)
		end_component(leader, &e);
}
