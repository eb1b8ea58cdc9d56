/* JOB_COUNTS: how many jobs the controller holds in each state, for
 * herdrestd's /metrics.  A count per state and nothing else: no job list is
 * built or sent, and no name is shown, so it is answered to anyone
 * (doc/protocol.md). */
#include "common/state.h"
#include "ctld/ctld.h"

static void counts_one(struct job *job, void *arg)
{
	long *count = arg;
	if ((int)job->state >= 0 && job->state < JOB_STATE_COUNT)
		count[job->state]++;
}

void counts_rpc(struct net_req *req)
{
	long count[JOB_STATE_COUNT] = { 0 };
	json_t *states = json_object();

	job_foreach(counts_one, count);
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		json_object_set_new(states, job_state_name(s), json_integer(count[s]));
	net_respond(req, 0, json_pack("{s:o, s:I}", "jobs", states, "time", (json_int_t)core_now()),
		    NULL);
}
