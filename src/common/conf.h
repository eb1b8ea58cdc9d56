/* herd.conf: slurm.conf syntax and key names.  "Key=Value" pairs, several per
 * line; NodeName= and PartitionName= lines carry attributes; "Include FILE";
 * '#' comments; a trailing '\' continues a line.  Keys are case-insensitive as
 * in Slurm.  An unknown or malformed key is an error naming file:line and key.
 * Not for gres.conf/topology.conf (later). */
#ifndef HERD_CONF_H
#define HERD_CONF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/hostlist.h"

#define HERD_DEFAULT_CONF "/etc/herd/herd.conf"

struct conf_node {
	char *name;               /* one node (NodeName= expressions are expanded) */
	char *addr;               /* NodeAddr, default = NodeHostname, default = name */
	char *hostname;           /* NodeHostname, default = name */
	int port;                 /* Port, default SlurmdPort (6818) */
	int cpus;                 /* CPUs; 0 = not declared (use what the node reports) */
	int boards, sockets, cores_per_socket, threads_per_core;   /* 0 = not declared */
	uint64_t real_memory;     /* MB; 0 = not declared */
	uint64_t tmp_disk;
	int weight;
	char *features;           /* Features=/Feature= as written, or NULL */
	char *gres;               /* Gres= as written, or NULL */
	char *state;              /* State= in upper case (e.g. "UNKNOWN", "FUTURE"), or NULL */
	/* Added with conf.c: the rest of Slurm's node attributes. */
	int sockets_per_board;    /* SocketsPerBoard; 0 = not declared (sockets is derived from it) */
	int core_spec_count;      /* CoreSpecCount; 0 = none */
	char *cpu_spec_list;      /* CpuSpecList= as written, or NULL */
	uint64_t mem_spec_limit;  /* MemSpecLimit, MB; 0 = none */
	char *reason;             /* Reason= as written, or NULL */
};

struct conf_part {
	char *name;
	char *nodes;              /* Nodes= expression as written ("ALL" allowed); NULL = none */
	bool is_default;          /* Default=YES */
	int64_t max_time;         /* seconds; TIME_INFINITE if unset or UNLIMITED */
	int64_t default_time;     /* seconds; TIME_INFINITE if unset */
	char *state;              /* "UP" (default), "DOWN", "DRAIN", "INACTIVE" */
	int max_nodes;            /* -1 = UNLIMITED (default) */
	int min_nodes;            /* default 0 */
	int priority_tier;        /* PriorityTier, default 1 */
	int priority_job_factor;  /* PriorityJobFactor, default 1 */
	bool exclusive_user;
	char *oversubscribe;      /* OverSubscribe= (or old Shared=) in upper case, default "NO" */
	char *allow_accounts, *allow_groups, *allow_qos, *deny_accounts;   /* as written or NULL */
	/* Added with conf.c: the rest of Slurm's partition attributes. */
	char *deny_qos, *qos, *alternate, *alloc_nodes;          /* as written or NULL */
	char *preempt_mode, *tres_billing_weights;               /* as written or NULL */
	int max_cpus_per_node;    /* -1 = UNLIMITED (default) */
	uint64_t def_mem_per_cpu, max_mem_per_cpu;               /* MB; 0 = not set */
	uint64_t def_mem_per_node, max_mem_per_node;             /* MB; 0 = not set */
	int grace_time;           /* GraceTime, seconds; default 0 */
	bool hidden, root_only, lln;
};

struct conf {
	char *path;
	struct conf_node *nodes;  size_t nnodes;
	size_t *node_index;       /* names to nodes: open addressing over indices + 1 (conf_lines.c) */
	size_t node_index_cap;
	struct conf_part *parts;  size_t nparts;
	char *munge_socket;       /* from AuthInfo=socket=PATH at load, or NULL */
	/* every other key, as written (last one wins); read with conf_get* */
	struct conf_kv { char *key; char *value; } *kv;  size_t nkv;
	char *ctld_addr;          /* derived at load; read with conf_ctld_host */
};

/* Load path (NULL: $HERD_CONF, else HERD_DEFAULT_CONF).  On error returns NULL
 * and err says e.g. "/etc/herd/herd.conf:12: unknown key 'Foo'". */
struct conf *conf_load(const char *path, struct herd_error *err);
void conf_destroy(struct conf *conf);

/* Value of a plain key (case-insensitive), or NULL when not set.  Keys are
 * stored with Slurm's spelling.  SlurmctldHost may appear several times
 * (backup controllers): every occurrence is in kv, in order, and conf_get
 * returns the first. */
const char *conf_get(const struct conf *conf, const char *key);
/* Integer value, or def when unset. (Values were validated at load.)
 * "UNLIMITED", "INFINITE" and "NONE" (OverTimeLimit, SuspendTime...) give -1;
 * a port range "6817-6820" gives its first port. */
long conf_get_int(const struct conf *conf, const char *key, long def);
/* Keys in Slurm's time syntax (PriorityDecayHalfLife=7-0, PriorityMaxAge,
 * PreemptExemptTime): seconds, TIME_INFINITE for UNLIMITED; def when unset. */
int64_t conf_get_time(const struct conf *conf, const char *key, int64_t def);
/* YES/NO/TRUE/FALSE/1/0 keys (PriorityFavorSmall, UsePAM...); def when unset. */
bool conf_get_bool(const struct conf *conf, const char *key, bool def);
const struct conf_node *conf_node_find(const struct conf *conf, const char *name);
const struct conf_part *conf_part_find(const struct conf *conf, const char *name);
/* A partition's definition, copied to live apart from its conf (a reloaded
 * controller keeps the old one for the jobs of a removed partition). */
struct conf_part *conf_part_dup(const struct conf_part *part);
void conf_part_destroy(struct conf_part *part);
/* What differs from old in new that a running daemon cannot take: a key
 * that needs a restart (ClusterName, ports, StateSaveLocation, AuthInfo...),
 * a NodeName added or removed, a node's NodeAddr, NodeHostname or Port.
 * 0 when new can be applied live; else -1 and err says what and that a
 * restart is needed (conf_diff.c). */
int conf_diff_restart(const struct conf *old, const struct conf *new, struct herd_error *err);

/* The partition's nodes expanded (Nodes=ALL: every node, in file order);
 * empty when Nodes= is unset.  Caller destroys.  (Names were checked at load.) */
struct hostlist *conf_part_hostlist(const struct conf *conf, const struct conf_part *part);

/* Derived settings every program needs, with Slurm's defaults. */
const char *conf_cluster_name(const struct conf *conf);   /* ClusterName, default "cluster" */
/* Address of the first SlurmctldHost: "name(addr)" -> addr, "name" -> name;
 * SlurmctldAddr overrides it, ControlAddr/ControlMachine are the older
 * spellings; default "localhost". */
const char *conf_ctld_host(const struct conf *conf);
int conf_ctld_port(const struct conf *conf);              /* SlurmctldPort, default 6817 */
/* AuthInfo "socket=PATH" (comma-separated options, as Slurm) or NULL for MUNGE's default. */
const char *conf_munge_socket(const struct conf *conf);

#endif
