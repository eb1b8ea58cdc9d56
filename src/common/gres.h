/* Generic resources as declared (doc/gres.md section 1): gres.conf's lines
 * (Slurm's gres.conf(5) syntax) into device records, a node's Gres= string
 * into (name, type, count) triples, GresTypes checks, and the strings
 * `scontrol show node` prints.  Pure: text in, records out; only
 * gres_conf_load reads a file.  Not requests or scheduling (section 2). */
#ifndef HERD_GRES_H
#define HERD_GRES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "common/error.h"

/* Flags= words (gres.conf(5)); GRES_F_NO_CONSUME is the node Gres= form's. */
enum {
	GRES_F_COUNT_ONLY = 1 << 0,
	GRES_F_NVIDIA_GPU_ENV = 1 << 1,
	GRES_F_AMD_GPU_ENV = 1 << 2,
	GRES_F_OPENCL_ENV = 1 << 3,
	GRES_F_NO_GPU_ENV = 1 << 4,
	GRES_F_ONE_SHARING = 1 << 5,
	GRES_F_ALL_SHARING = 1 << 6,
	GRES_F_NO_CONSUME = 1 << 7,
};

/* One device (count 1) or one file-less line (count N: shard, mps). */
struct gres_dev {
	char name[32];        /* "gpu" */
	char type[64];        /* "h100", "" for none */
	int index;            /* position among the node's devices of this name */
	char file[256];       /* "/dev/nvidia0", "" for none */
	char cores[256];      /* Slurm's core ranges "0-3,8", "" for any */
	char links[256];      /* "-1,2,0", "" for none */
	uint64_t count;
	unsigned flags;       /* GRES_F_* */
};

enum gres_autodetect { GRES_AUTODETECT_UNSET, GRES_AUTODETECT_OFF, GRES_AUTODETECT_NVML };

struct gres_conf {
	struct gres_dev *devs;
	size_t ndevs;
	enum gres_autodetect autodetect;   /* the node's (a NodeName= line's), else global */
};

/* The lines of text (named path in errors) that apply to node (NodeName=
 * absent, or a hostlist naming it; NULL node: every line).  0, or -1 with
 * err "gres.conf:3: unknown key 'Foo'" and out untouched. */
int gres_conf_parse(const char *text, const char *path, const char *node,
		    struct gres_conf *out, struct herd_error *err);
/* The same from a file; a missing file is an empty configuration. */
int gres_conf_load(const char *path, const char *node, struct gres_conf *out,
		   struct herd_error *err);
void gres_conf_free(struct gres_conf *gc);
/* Append a copy of dev; index is renumbered by gres_devs_number. */
void gres_conf_add(struct gres_conf *gc, const struct gres_dev *dev);
/* Each device's index: its position among the devices of its name. */
void gres_devs_number(struct gres_dev *devs, size_t n);

/* A count with Slurm's K/M/G/T suffixes (powers of 1024); -1 when not a
 * count or over 2^48. */
int gres_count_parse(const char *s, uint64_t *out);
/* Flags=list into *flags; -1 naming the bad word in err. */
int gres_flags_parse(const char *s, unsigned *flags, struct herd_error *err);
/* Slurm's core ranges "0-3,8": digits, ranges, commas; max core below limit
 * (0: any). */
bool gres_cores_valid(const char *s, int limit);

/* A node's Gres= declaration, one entry per name:type. */
struct gres_decl {
	char name[32];
	char type[64];
	uint64_t count;
	unsigned flags;
};
/* "gpu:h100:8,shard:32,gpu:2,bandwidth:lustre:no_consume:4G": -1 with err
 * on a malformed word. *out is the caller's to free. */
int gres_decl_parse(const char *s, struct gres_decl **out, size_t *n, struct herd_error *err);
/* Is name one of GresTypes' comma list? */
bool gres_types_has(const char *types, const char *name);
/* Does AccountingStorageTRES (storage_tres, a comma list; NULL none) name
 * the TRES name ("gres/gpu", "gres/gpu:h100"), case aside?  gres/gpumem
 * and gres/gpuutil are tracked with gres/gpu, as Slurm configures them by
 * itself then (gres.html "Accounting"). */
bool gres_tres_tracked(const char *storage_tres, const char *name);

/* The records as NODE_REGISTER and NODE_INFO carry them, and back: -1
 * with err on a record of the wrong shape. */
json_t *gres_devs_to_json(const struct gres_dev *devs, size_t n);
int gres_devs_from_json(const json_t *arr, struct gres_dev **out, size_t *n,
			struct herd_error *err);

/* Does a device of dev_type answer to a declared or requested type (NULL
 * or "": any)?  As Slurm: a substring, case aside ("h100" is a
 * "nvidia_h100_80gb_hbm3"). */
bool gres_type_matches(const char *dev_type, const char *want);
/* Devices of devs with this name and (type NULL: any) type. */
uint64_t gres_devs_count(const struct gres_dev *devs, size_t n, const char *name,
			 const char *type);

/* `scontrol show node`'s Gres=: "gpu:h100:8(S:0-1),shard:32"; the sockets
 * of the devices' Cores (cores_per_socket of the node) when known.
 * GresUsed= with nothing in use: "gpu:h100:0(IDX:N/A),shard:0".  Caller
 * frees; "" when none is declared. */
char *gres_node_string(const struct gres_decl *decl, size_t ndecl, const struct gres_dev *devs,
		       size_t ndevs, int cores_per_socket);
char *gres_used_string(const struct gres_decl *decl, size_t ndecl, const struct gres_dev *devs,
		       size_t ndevs);

#endif
