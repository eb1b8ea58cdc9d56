/* `herd sim --policy slurm`: the trace through the controller's own code
 * (sim_core.c, doc/core.md). */
#ifndef HERD_SIM_CORE_H
#define HERD_SIM_CORE_H
#include "common/conf.h"
#include "herd/sim.h"

/* Replay trace on conf's nodes and partitions, with its priority,
 * scheduler and preemption settings.  Takes conf (the controller keeps
 * it).  -1 with err when the controller cannot start on conf, or some job
 * never starts. */
int sim_core_run(const struct swf_trace *trace, struct conf *conf, struct sim_result *res,
		 struct herd_error *err);
#endif
