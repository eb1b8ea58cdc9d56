/* CPU binding of a step's tasks (srun --cpu-bind): parsing the option, the
 * mask each local task gets from the step's CPUs on this node, and the
 * SLURM_CPU_BIND* values and the "verbose" line Slurm prints.  Pure: the
 * caller applies the mask with sched_setaffinity in the child. */
#ifndef HERD_STEPD_BIND_H
#define HERD_STEPD_BIND_H
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/taskopt.h"

enum bind_type {
	BIND_DEFAULT,   /* "": cores when the step holds CPUs, else nothing */
	BIND_NONE,
	BIND_CORES,     /* cores (and sockets, ldoms, boards): Herd numbers CPUs, not cores (see bind.c) */
	BIND_THREADS,
	BIND_RANK,      /* rank: local task i on the i-th CPU of the step */
	BIND_MAP,       /* map_cpu:a,b */
	BIND_MASK,      /* mask_cpu:0x3,0xc */
};

#define BIND_MAX_CPUS CPU_SETSIZE

/* A node's topology (bind_dist.c). */
struct bind_topo {
	int sockets, cores, threads;   /* sockets, cores per socket, threads per core */
};

struct bind {
	enum bind_type type;
	bool verbose;
	char *list;          /* map_cpu/mask_cpu: the list as given */
	cpu_set_t *entries;  /* map/mask: one set per list entry */
	size_t nentries;
	/* binding to cores on a node with threads: a task's mask takes every
	 * thread (among all_cpus) of the cores it was given */
	bool expand_cores;
	/* binding to sockets (--cpu-bind=sockets|ldoms, --ntasks-per-socket):
	 * every CPU (among all_cpus) of the sockets it was given */
	bool sockets, expand_sockets;
	struct bind_topo topo;
	int *all_cpus;
	size_t nall;
};

/* Parse --cpu-bind ("", "none", "cores", "verbose,map_cpu:0,1", "q,mask_cpu:0x3").
 * -1 with err (Slurm's wording) on a bad one. */
int bind_parse(const char *spec, struct bind *b, struct herd_error *err);
void bind_free(struct bind *b);

/* The step's CPUs on this node: "0-3,8" into a sorted array of IDs; "" =
 * `avail` (herdstepd's own affinity).  -1 on bad syntax. */
int bind_cpu_list(const char *spec, const cpu_set_t *avail, int **cpus, size_t *ncpus);

/* The mask of local task `local` (0-based) of nlocal, each cpus_per_task
 * CPUs wide, from the step's CPU list.  Returns 1 with *mask filled when the
 * task is to be bound, 0 when it is not (none, or a default binding with no
 * CPUs held). */
int bind_task_mask(const struct bind *b, const int *cpus, size_t ncpus, int cpus_per_task,
		   int local, cpu_set_t *mask);

/* "0x3" for {0,1}; buf at least BIND_MAX_CPUS/4 + 3 bytes. */
void bind_mask_hex(const cpu_set_t *mask, char *buf, size_t size);

/* SLURM_CPU_BIND, _TYPE, _LIST and _VERBOSE as Slurm's task/affinity sets
 * them on a node: a binding that computes masks (cores, threads, the
 * default, mask_cpu) is shown as mask_cpu with this node's masks, one per
 * local task ("quiet,mask_cpu:0x1,0x2").  Caller frees the four strings. */
void bind_env(const struct bind *b, const int *cpus, size_t ncpus, int cpus_per_task, int nlocal,
	      char **bind, char **type, char **list, char **verbose);

/* The line "verbose" prints on the task's stderr before exec. */
void bind_verbose_line(const struct bind *b, const cpu_set_t *mask, const char *node,
		       unsigned task, unsigned local, int pid, char *buf, size_t size);

/* bind_dist.c: the node's topology, and the order in which its tasks take
 * the step's CPUs (-m's socket and core parts, --hint). */
/* From herd.conf's node line (NULL: cpus CPUs, one per socket). */
void bind_topo_of(const struct conf_node *cn, int cpus, struct bind_topo *t);
/* The step's CPUs (sorted IDs) reordered so that local task k takes
 * out[k*cpt .. k*cpt+cpt-1]: socket block|cyclic|fcyclic, core fcyclic,
 * one_thread (one thread per core).  *nout entries; caller frees. */
int *bind_dist_order(const struct bind_topo *t, enum dist_cpu socket, enum dist_cpu core,
		     bool one_thread, const int *cpus, size_t ncpus, int cpt, size_t ntasks,
		     size_t *nout);
/* Binding to cores: add to mask the other threads (among cpus) of its cores. */
void bind_cores_expand(const struct bind_topo *t, const int *cpus, size_t ncpus, cpu_set_t *mask);
/* Binding to sockets: add to mask the other CPUs (among cpus) of its sockets. */
void bind_sockets_expand(const struct bind_topo *t, const int *cpus, size_t ncpus, cpu_set_t *mask);

#endif
