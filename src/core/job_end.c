/* A job's end, as its batch host reports it (JOB_COMPLETE) or, in herd sim,
 * as its trace says: the state it ends in, or why the report is not the
 * job's.  The request and its reply are rpc.c's. */
#include <string.h>
#include <sys/wait.h>
#include "common/log.h"
#include "core/core.h"

enum job_end_taken job_ended(const struct job_end *end)
{
	struct job *job = job_find(end->id);

	if (!job)   /* long gone */
		return JOB_END_NOT_OURS;
	if (job_state_is_final(job->state)) {
		/* A repeat: answered once the end is durable, which it may not
		 * be yet when the first answer was a failed commit. */
		return JOB_END_TAKEN;
	}
	if ((job->state != JOB_RUNNING && job->state != JOB_COMPLETING) ||
	    (end->node && job->nalloc && strcmp(end->node, core.nodes[job_batch_node(job)].name))) {
		/* A launch we gave up on (and requeued) ran after all: the job
		 * is queued again, or runs again elsewhere.  Taken as heard, so
		 * herdstepd stops repeating it; this run is not the job's. */
		log_error("job %u: completion from %s while %s: ignored", end->id,
			  end->node ? end->node : "(null)", job_state_name(job->state));
		return JOB_END_NOT_OURS;
	}
	if (job->requeue_requested && !job->cancel_requested) {
		job_requeue_finish(job);   /* scontrol requeue: queued again, not ended */
		return JOB_END_TAKEN;
	}
	job->exit_status = end->status;
	if (job->cancel_requested)
		job_set_state(job, job_cancelled_state(job), REASON_NONE);
	else if (end->timed_out)
		job_set_state(job, JOB_TIMEOUT, REASON_TIME_LIMIT);
	else if (end->oom)
		job_set_state(job, JOB_OUT_OF_MEMORY, REASON_NONE);   /* its cgroup's memory limit */
	else if (WIFEXITED(end->status) && WEXITSTATUS(end->status) == 0)
		job_set_state(job, JOB_COMPLETED, REASON_NONE);
	else
		job_set_state(job, JOB_FAILED, REASON_NONZERO_EXIT);
	return JOB_END_TAKEN;
}
