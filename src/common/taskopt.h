/* The task placement and task environment options of sbatch, salloc and
 * srun, as Slurm reads them: -m/--distribution, --hint, --mem-bind,
 * --propagate (resource limit names) and --get-user-env.  Parsed and checked
 * the same way by the commands, the controller and herdstepd.  Pure: no I/O. */
#ifndef HERD_COMMON_TASKOPT_H
#define HERD_COMMON_TASKOPT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

/* ---- -m/--distribution ----
 * node[:socket[:core]][,Pack|NoPack]; node is * | block | cyclic |
 * arbitrary | plane=N (plane takes no socket/core part, as Slurm 22.05). */
enum dist_node { DIST_NODE_DEFAULT, DIST_NODE_BLOCK, DIST_NODE_CYCLIC, DIST_NODE_PLANE,
		 DIST_NODE_ARBITRARY };
enum dist_cpu { DIST_CPU_DEFAULT, DIST_CPU_BLOCK, DIST_CPU_CYCLIC, DIST_CPU_FCYCLIC };

struct dist {
	enum dist_node node;
	int plane;                 /* plane size, DIST_NODE_PLANE only */
	enum dist_cpu socket;      /* DEFAULT: not given (cyclic, as Slurm) */
	enum dist_cpu core;        /* DEFAULT: not given (the socket part's) */
	int pack;                  /* 1 Pack, 0 NoPack, -1 not given */
};

/* 0, or -1 with Slurm's sentence ("Invalid --distribution specification"). */
int dist_parse(const char *s, struct dist *d, struct herd_error *err);
/* SLURM_DISTRIBUTION's value as Slurm writes it ("cyclic:fcyclic,pack",
 * "block:cyclic", "plane"; "" for "*"). */
void dist_env(const struct dist *d, char *buf, size_t size);
/* The socket and core parts that binding uses (defaults resolved). */
enum dist_cpu dist_socket(const struct dist *d);
enum dist_cpu dist_core(const struct dist *d);

/* ---- --hint ---- */
#define HINT_COMPUTE_BOUND  0x1
#define HINT_MEMORY_BOUND   0x2
#define HINT_MULTITHREAD    0x4
#define HINT_NOMULTITHREAD  0x8
#define HINT_HELP           0x10

/* 0 with the flags, or -1 with Slurm's sentence. */
int hint_parse(const char *s, unsigned *flags, struct herd_error *err);
extern const char hint_help_text[];

/* ---- --mem-bind ---- */
enum mem_bind_type { MEM_BIND_DEFAULT, MEM_BIND_NONE, MEM_BIND_LOCAL, MEM_BIND_RANK,
		     MEM_BIND_MAP, MEM_BIND_MASK };
#define MEM_BIND_MAX_ENTRIES 128

struct mem_bind {
	enum mem_bind_type type;
	bool verbose, prefer, sort, nosort, help;
	int nentries;
	uint64_t entries[MEM_BIND_MAX_ENTRIES];   /* node IDs (map) or node masks (mask) */
	char list[256];            /* SLURM_MEM_BIND_LIST: the entries as Slurm prints them */
};

int mem_bind_parse(const char *s, struct mem_bind *m, struct herd_error *err);
/* SLURM_MEM_BIND's value: "verbose,map_mem:0,1", "quiet,local". */
void mem_bind_env(const struct mem_bind *m, char *buf, size_t size);
/* SLURM_MEM_BIND_TYPE: "map_mem:", "mask_mem:", "local", "rank", "none", "". */
const char *mem_bind_type_name(const struct mem_bind *m);
extern const char mem_bind_help_text[];

/* ---- --propagate / PropagateResourceLimits ---- */
#define RLIMIT_NAMES 10
/* "CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS" */
extern const char *const rlimit_names[RLIMIT_NAMES];
/* The resource (RLIMIT_*) of rlimit_names[i]. */
int rlimit_resource(int i);
/* A list of names ("ALL", "NONE", "NOFILE,CORE"; case-insensitive) into a
 * bit mask of rlimit_names' indexes; -1 with "Bad rlimit name: FOO". */
int rlimit_list_parse(const char *s, unsigned *mask, struct herd_error *err);

/* ---- --get-user-env[=timeout][S|L] ----
 * mode 'S' (su without "-"), 'L' (a login shell), 0 not given (a login
 * shell, as Slurm built by Debian). */
#define GET_USER_ENV_TIMEOUT_DEFAULT 8
int get_user_env_parse(const char *s, int *timeout, char *mode, struct herd_error *err);

#endif
