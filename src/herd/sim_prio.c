/* Multifactor priority for `herd sim` (sim_prio.h): the trace's users'
 * decayed usage and the pure formula of src/sched/prio.c. */
#include <math.h>
#include <stdlib.h>
#include "common/xmalloc.h"
#include "herd/sim_prio.h"

struct sim_prio {
	struct sim_prio_conf conf;
	struct prio_cluster cluster;
	int nusers;
	double *usage, total;
	int64_t last;
};

struct sim_prio *sim_prio_create(const struct sim_prio_conf *conf, int nusers, int nnodes,
				 long procs)
{
	struct sim_prio *p = xmalloc(sizeof(*p));
	p->conf = *conf;
	p->cluster = (struct prio_cluster){ .nodes = (uint32_t)nnodes, .cpus = (uint32_t)procs,
					    .max_part_factor = 1 };
	p->nusers = nusers > 0 ? nusers : 1;
	p->usage = xmalloc(p->nusers * sizeof(double));
	return p;
}

void sim_prio_destroy(struct sim_prio *p)
{
	if (!p)
		return;
	free(p->usage);
	free(p);
}

void sim_prio_decay(struct sim_prio *p, int64_t now)
{
	if (p->last && now > p->last && p->conf.decay_half_life > 0) {
		double f = exp2(-(double)(now - p->last) / (double)p->conf.decay_half_life);
		for (int u = 0; u < p->nusers; u++)
			p->usage[u] *= f;
		p->total *= f;
	}
	p->last = now;
}

void sim_prio_charge(struct sim_prio *p, int user, double cpu_seconds)
{
	p->usage[user] += cpu_seconds;
	p->total += cpu_seconds;
}

double sim_prio_fairshare(const struct sim_prio *p, int user)
{
	if (p->total <= 0)
		return 1.0;
	return exp2(-(p->usage[user] / p->total) * p->nusers);
}

uint32_t sim_prio_job(const struct sim_prio *p, int user, int64_t submit, long procs, int nodes,
		      int64_t time_limit, int64_t now)
{
	struct prio_job job = {
		.submit_time = (time_t)submit,
		.eligible_time = (time_t)submit,
		.nodes = (uint32_t)nodes,
		.cpus = (uint32_t)procs,
		.time_limit = time_limit,
		.fairshare = sim_prio_fairshare(p, user),
		.part_factor = 1,
		.tres = { [PRIO_TRES_CPU] = (double)procs, [PRIO_TRES_NODE] = nodes,
			  [PRIO_TRES_BILLING] = (double)procs },
		.part_tres = { [PRIO_TRES_CPU] = p->cluster.cpus, [PRIO_TRES_NODE] = p->cluster.nodes,
			       [PRIO_TRES_BILLING] = p->cluster.cpus },
	};
	return prio_compute(&p->conf.weights, &p->cluster, &job, (time_t)now, NULL);
}
