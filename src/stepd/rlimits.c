/* --propagate and PropagateResourceLimits[Except] on a node (rlimits.h).
 * As Slurm: the submitter's soft limits are set on the tasks, never above
 * the node daemon's hard limit (only root could go higher, and the node's
 * limits are the administrator's to give). */
#include <stdio.h>
#include <string.h>
#include "common/log.h"
#include "stepd/rlimits.h"

/* Which names: --propagate, else herd.conf (Except wins, as in Slurm). */
static unsigned rlimits_selected(const char *propagate, const struct conf *conf)
{
	const char *except = conf ? conf_get(conf, "PropagateResourceLimitsExcept") : NULL;
	const char *list = conf ? conf_get(conf, "PropagateResourceLimits") : NULL;
	unsigned mask = 0;

	if (propagate) {
		if (rlimit_list_parse(propagate, &mask, NULL) < 0)
			return 0;
		return mask;
	}
	if (except && *except) {
		if (rlimit_list_parse(except, &mask, NULL) < 0)
			return 0;
		return ((1u << RLIMIT_NAMES) - 1) & ~mask;
	}
	if (list && *list && rlimit_list_parse(list, &mask, NULL) == 0)
		return mask;
	return (1u << RLIMIT_NAMES) - 1;   /* ALL, the default */
}

static void rlimits_fmt(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "'unlimited'");
	else
		snprintf(buf, size, "%lld", (long long)v);
}

void rlimits_plan(const struct launch_rlimits *given, const char *propagate, const struct conf *conf,
		  uint32_t job_id, struct rlimits_plan *plan)
{
	unsigned mask = rlimits_selected(propagate, conf);

	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < RLIMIT_NAMES; i++) {
		struct rlimit now;
		int res = rlimit_resource(i);
		if (!(mask & (1u << i)) || !given->given[i] || getrlimit(res, &now) < 0)
			continue;
		rlim_t want = given->soft[i] < 0 ? RLIM_INFINITY : (rlim_t)given->soft[i];
		if (want > now.rlim_max) {
			char text[32];
			rlimits_fmt(given->soft[i], text, sizeof(text));
			log_error("job %u: Can't propagate RLIMIT_%s of %s from submit host: "
				  "above the node's hard limit, %s set to %llu", job_id, rlimit_names[i],
				  text, rlimit_names[i], (unsigned long long)now.rlim_max);
			want = now.rlim_max;
		}
		plan->set[plan->n].resource = res;
		plan->set[plan->n].soft = want;
		plan->n++;
	}
}

void rlimits_apply(const struct rlimits_plan *plan)
{
	for (int i = 0; i < plan->n; i++) {
		struct rlimit r;
		if (getrlimit(plan->set[i].resource, &r) < 0)
			continue;
		r.rlim_cur = plan->set[i].soft;
		setrlimit(plan->set[i].resource, &r);
	}
}
