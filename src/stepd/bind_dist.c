/* Which of the step's CPUs each task of a node is bound to, by the socket
 * and core parts of -m/--distribution (block|cyclic|fcyclic), --hint and
 * --ntasks-per-core, on the node's declared topology (herd.conf's Sockets,
 * CoresPerSocket, ThreadsPerCore; CPU IDs numbered socket by socket, core by
 * core, thread by thread, as Slurm's abstract IDs).  Pure; bind.c then turns
 * each task's CPUs into its mask. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "stepd/bind.h"

void bind_topo_of(const struct conf_node *cn, int cpus, struct bind_topo *t)
{
	int threads = cn && cn->threads_per_core > 0 ? cn->threads_per_core : 1;
	int sockets = cn && cn->sockets > 0 ? cn->sockets : 0;
	int cores = cn && cn->cores_per_socket > 0 ? cn->cores_per_socket : 0;

	if (cn && cn->cpus > 0)
		cpus = cn->cpus;
	if (cpus < 1)
		cpus = 1;
	/* As the controller: a node that declares CPUs alone has one core per
	 * socket, one socket per CPU (Slurm's reading too). */
	if (!cores)
		cores = sockets ? cpus / (sockets * threads) : 1;
	if (cores < 1)
		cores = 1;
	if (!sockets)
		sockets = cpus / (cores * threads);
	if (sockets < 1)
		sockets = 1;
	t->sockets = sockets;
	t->cores = cores;
	t->threads = threads;
}

static int topo_socket(const struct bind_topo *t, int cpu)
{
	return (cpu / (t->cores * t->threads)) % t->sockets;
}

static int topo_thread(const struct bind_topo *t, int cpu)
{
	return cpu % t->threads;
}

static int topo_core(const struct bind_topo *t, int cpu)
{
	return cpu / t->threads;   /* node-wide core number */
}

/* One socket's CPUs, in the order its tasks take them. */
struct sock_queue {
	int *cpu;
	size_t n, next;
};

static size_t queue_left(const struct sock_queue *q)
{
	return q->n - q->next;
}

/* fcyclic across cores: the first thread of every core, then the second... */
static void queue_core_fcyclic(const struct bind_topo *t, struct sock_queue *q)
{
	int *out = xmalloc((q->n + 1) * sizeof(int));
	size_t o = 0;
	for (int th = 0; th < t->threads; th++)
		for (size_t i = 0; i < q->n; i++)
			if (topo_thread(t, q->cpu[i]) == th)
				out[o++] = q->cpu[i];
	free(q->cpu);
	q->cpu = out;
}

int *bind_dist_order(const struct bind_topo *t, enum dist_cpu socket, enum dist_cpu core,
		     bool one_thread, const int *cpus, size_t ncpus, int cpt, size_t ntasks,
		     size_t *nout)
{
	int ns = t->sockets;
	struct sock_queue *q = xmalloc(ns * sizeof(*q));
	int *out = xmalloc((ncpus + 1) * sizeof(int)), last_core = -1;
	size_t o = 0, total = 0;

	if (cpt < 1)
		cpt = 1;
	memset(q, 0, ns * sizeof(*q));
	for (int s = 0; s < ns; s++)
		q[s].cpu = xmalloc((ncpus + 1) * sizeof(int));
	for (size_t i = 0; i < ncpus; i++) {
		/* --hint=nomultithread: one thread of each core */
		if (one_thread && t->threads > 1 && topo_core(t, cpus[i]) == last_core)
			continue;
		last_core = topo_core(t, cpus[i]);
		struct sock_queue *sq = &q[topo_socket(t, cpus[i])];
		sq->cpu[sq->n++] = cpus[i];
		total++;
	}
	if (core == DIST_CPU_FCYCLIC && t->threads > 1)
		for (int s = 0; s < ns; s++)
			queue_core_fcyclic(t, &q[s]);
	int start = ns - 1;   /* the socket the previous task began on */
	for (size_t k = 0; k < ntasks && o < total; k++) {
		if (socket == DIST_CPU_BLOCK) {
			/* fill socket 0, then socket 1... */
			for (int c = 0; c < cpt && o < total; c++) {
				int s = 0;
				while (!queue_left(&q[s]))
					s++;
				out[o++] = q[s].cpu[q[s].next++];
			}
		} else if (socket == DIST_CPU_FCYCLIC) {
			/* each CPU of the task from the next socket in turn */
			for (int c = 0; c < cpt && o < total; c++) {
				int s = (start + 1) % ns;
				while (!queue_left(&q[s]))
					s = (s + 1) % ns;
				out[o++] = q[s].cpu[q[s].next++];
				start = s;
			}
		} else {
			/* cyclic: each task on the next socket, all its CPUs there
			 * when they fit, else spilling onto the following ones */
			int s = (start + 1) % ns, first = -1;
			for (int tries = 0; tries < ns; tries++) {
				int c = (s + tries) % ns;
				if (queue_left(&q[c]) >= (size_t)cpt) {
					first = c;
					break;
				}
			}
			if (first < 0) {
				first = s;
				while (!queue_left(&q[first]))
					first = (first + 1) % ns;
			}
			start = first;
			for (int c = 0, s2 = first; c < cpt && o < total; c++) {
				while (!queue_left(&q[s2]))
					s2 = (s2 + 1) % ns;
				out[o++] = q[s2].cpu[q[s2].next++];
			}
		}
	}
	/* what the tasks did not take follows (more tasks than CPUs wrap over
	 * the whole list, as before) */
	for (int s = 0; s < ns; s++) {
		while (o < total && queue_left(&q[s]))
			out[o++] = q[s].cpu[q[s].next++];
		free(q[s].cpu);
	}
	free(q);
	*nout = o;
	return out;
}

void bind_cores_expand(const struct bind_topo *t, const int *cpus, size_t ncpus, cpu_set_t *mask)
{
	cpu_set_t add;

	if (t->threads <= 1)
		return;
	CPU_ZERO(&add);
	for (size_t i = 0; i < ncpus; i++)
		for (size_t j = 0; j < ncpus; j++)
			if (CPU_ISSET(cpus[j], mask) && topo_core(t, cpus[i]) == topo_core(t, cpus[j]))
				CPU_SET(cpus[i], &add);
	CPU_OR(mask, mask, &add);
}

void bind_sockets_expand(const struct bind_topo *t, const int *cpus, size_t ncpus, cpu_set_t *mask)
{
	cpu_set_t add;

	CPU_ZERO(&add);
	for (size_t i = 0; i < ncpus; i++)
		for (size_t j = 0; j < ncpus; j++)
			if (CPU_ISSET(cpus[j], mask) && topo_socket(t, cpus[i]) == topo_socket(t, cpus[j]))
				CPU_SET(cpus[i], &add);
	CPU_OR(mask, mask, &add);
}
