/* The nodes as the controller keeps them (node.c).  Included by ctld.h. */
#ifndef HERD_CTLD_NODE_H
#define HERD_CTLD_NODE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/auth.h"
#include "common/error.h"
#include "common/state.h"

struct job;
struct gres_decl;
struct gres_dev;
struct gres_hold;
struct bitmap;
struct conf;

struct node {
	char *name;
	char *addr;
	int port;
	char *dest;                 /* auth destination name */
	enum node_state state;
	bool registered;            /* has registered since the controller started */
	bool not_responding;
	bool drain;
	bool admin_down;            /* DOWN by scontrol: registering does not lift it */
	char *reason;
	time_t reason_time;
	char *reason_user;          /* who set the reason ("root"), NULL for the controller */
	int cpus, boards, sockets, cores, threads;
	uint64_t real_memory;
	int alloc_cpus;
	uint64_t alloc_mem;
	int njobs;                  /* jobs holding part of this node */
	int nbatch;                 /* of those, jobs whose batch script runs here */
	int nsteps;                 /* step parts here not yet reported ended (step.c) */
	bool exclusive_job;         /* held whole by an --exclusive job */
	struct bitmap *cpus_used;   /* CPU IDs held by jobs (node_alloc picks the lowest free) */
	struct bitmap *ports_used;  /* MpiParams ports held by steps (ctld/step_ports.c), or NULL */
	time_t last_seen, boot_time, slurmd_start_time;
	char *arch, *os;
	const struct conf_node *conf;
	struct gres_decl *gres_decl;   /* Gres= (node_gres.c) */
	size_t ngres_decl;
	struct gres_dev *gres_devs;    /* as herdd last reported them */
	size_t ngres_devs;
	char *gres_shown, *gres_used_shown;   /* NODE_INFO's gres, gres_used */
	struct gres_slot *gres_slots;  /* what is given out of them (node_gres.c) */
	int ngres_slots;
};

/* One unit of a node's GRES the scheduler gives out: a device (cap 1), a
 * device of shares (a shard/mps line of a GPU: cap its count, index the
 * GPU's), or a declared count with no device (cap the count, index 0).
 * A GPU is never given whole and as shares at once (node_gres_free). */
struct gres_slot {
	int kind;                   /* node_gres_kind's (-1: beyond the pass's kinds) */
	int dev;                    /* its record in gres_devs, -1 none */
	int gpu;                    /* shares (shard, mps) of a GPU: that GPU's slot, else -1 */
	char name[32], type[64];
	uint32_t index, cap, used;
};

/* node.c */
int node_index(const char *name);
char *node_list_string(const int *idx, int n);   /* "n[1-3]" of node indexes; caller frees */
void node_setup(void);
/* A node daemon's registration or heartbeat (NODE_REGISTER's body): its
 * hardware, its jobs; a job it runs that should not run is ended, one it
 * lost is failed or requeued.  The node's index (*first: its first since
 * the controller started), or -1: no such node. */
int node_report(const json_t *body, bool *first);
void node_check_timeouts(time_t now);
json_t *node_to_json(const struct node *node);
void node_alloc(struct job *job);     /* take the job's allocation on its nodes */
void node_free(struct job *job);      /* give it back */
/* A job suspended by preemption or gang lends its CPUs (their count, IDs
 * and its share of the node) to others while its memory stays held;
 * node_reclaim takes them again (node_free does when it ends so);
 * node_can_reclaim: whether they are all free now. */
void node_lend(struct job *job);
void node_reclaim(struct job *job);
bool node_can_reclaim(const struct job *job);
void node_update_state(struct node *node);
/* UPDATE_NODE's change (state DRAIN, DOWN, RESUME, UNDRAIN or IDLE, by
 * user): 0 or a HERD_ERR_* rc, with err's text when there is more to say. */
int node_admin(const char *names, const char *state, const char *reason, const char *user,
	       struct herd_error *err);
void node_admin_restore(const char *name, const json_t *rec);   /* from the store at start */

/* node_gres.c: Gres= names only GresTypes names (-1 with err: the
 * controller does not start, a reconfigure is refused); a node's Gres=
 * parsed (at setup and reconfigure); its registration's "gres" devices
 * taken, a node reporting fewer than declared drained with Slurm's reason;
 * NODE_INFO's "gres", "gres_used", "gres_devs" set in o. */
int node_gres_check(const struct conf *conf, struct herd_error *err);
void node_gres_setup(struct node *n, const struct conf *conf);
void node_gres_report(struct node *n, const json_t *gres);
void node_gres_json(const struct node *n, json_t *o);
/* The pass's GRES kinds: (name, type) pairs of every node's Gres=, a
 * stable index each (at most SCHED_GRES_KINDS: node_gres_check refuses
 * more); kinds is a bit per kind satisfying a request of name and type
 * (type NULL or "": any). */
int node_gres_nkinds(void);
uint32_t node_gres_kinds_of(const char *name, const char *type);
/* Its count and the count held of each kind (SCHED_GRES_KINDS entries). */
void node_gres_counts(const struct node *n, uint16_t *total, uint16_t *alloc);
/* A job's hold taken (sign 1) or given back (-1): the slot it names. */
void node_gres_hold(struct node *n, const struct gres_hold *h, int sign);
void node_gres_used_changed(struct node *n);   /* GresUsed to make again */
/* The slot a hold names (name and index), -1 none. */
int node_gres_slot(const struct node *n, const char *name, uint32_t index);
/* The CPU IDs near slot s's device (gres.conf Cores=), NULL when it says
 * none (any CPU is near). */
struct bitmap *node_gres_slot_cores(const struct node *n, int s);
/* The CPU IDs near the devices of holds (the union of their Cores=), NULL
 * when none says; *any (may be NULL) set when one of them says none. */
struct bitmap *node_gres_near(const struct node *n, const struct gres_hold *holds, int nholds,
			      bool *any);
/* Units of slot s free, used[] the slots' use (NULL: as held now): none
 * of a GPU whose shares are in use, nor of shares of a GPU held whole or
 * shared the other way (shards and MPS). */
uint32_t node_gres_free(const struct node *n, int s, const uint32_t *used);
/* Drained by the controller for reason (node.c): kept over a restart. */
void node_drain_for(struct node *n, const char *reason);

#endif
