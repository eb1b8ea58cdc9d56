/* Node RPCs for jobs: launch, terminate, signal, suspend (launch.c).
 * Included by ctld.h. */
#ifndef HERD_CTLD_LAUNCH_H
#define HERD_CTLD_LAUNCH_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/net.h"

struct job;
struct node;

/* launch.c */
void launch_job(struct job *job);
void launch_terminate(struct job *job);
void launch_terminate_id(struct node *node, uint32_t job_id);
void launch_signal(struct job *job, int signal, const char *flags);
json_t *launch_object(const struct job *job, const json_t *spec);   /* LAUNCH's job keys */
char *launch_counts_string(const int *v, int n);   /* Slurm's "2(x3),1"; caller frees */
void launch_step_signal(struct node *node, uint32_t job_id, uint32_t step_id, int sig);
/* SUSPEND_JOB to every node of the job (scontrol suspend/resume,
 * preemption, gang); then(arg), when not NULL, once all answered. */
/* An empty request of type to every node daemon: REQUEST_REGISTRATION at
 * start (as slurmctld does, so a restarted controller schedules at once),
 * RECONFIGURE_NODE. */
void launch_broadcast(int type);
void launch_suspend(struct job *job, bool suspend, void (*then)(void *arg), void *arg);
struct net_target launch_node_target(const struct node *n);

#endif
