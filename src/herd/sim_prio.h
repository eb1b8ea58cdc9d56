/* `herd sim --policy multifactor`: each pending job's priority from the
 * pure formula (src/sched/prio.h) with what a trace can give: age, job
 * size, TRES (CPUs, nodes), and a fair-share factor from the users'
 * replayed, decayed usage (classic fair-share, every user of the trace
 * one equal share).  Partition, QOS and association factors are 0. */
#ifndef HERD_SIM_PRIO_H
#define HERD_SIM_PRIO_H
#include <stdint.h>
#include "sched/prio.h"

struct sim_prio_conf {
	struct prio_weights weights;
	int64_t decay_half_life;     /* PriorityDecayHalfLife, s; 0 = no decay */
};

struct sim_prio;

struct sim_prio *sim_prio_create(const struct sim_prio_conf *conf, int nusers, int nnodes,
				 long procs);
void sim_prio_destroy(struct sim_prio *p);
/* Decay every user's usage from the last call to now. */
void sim_prio_decay(struct sim_prio *p, int64_t now);
void sim_prio_charge(struct sim_prio *p, int user, double cpu_seconds);
/* Classic fair-share: 2^(-usage share / shares share); 1 before any usage. */
double sim_prio_fairshare(const struct sim_prio *p, int user);
uint32_t sim_prio_job(const struct sim_prio *p, int user, int64_t submit, long procs, int nodes,
		      int64_t time_limit, int64_t now);
#endif
