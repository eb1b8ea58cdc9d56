/* Internal to conf.c, conf_lines.c and conf_keys.c: the tables of herd.conf
 * keys and attributes and the checks of their values.  Other modules read
 * the configuration through common/conf.h. */
#ifndef HERD_CONF_KEYS_H
#define HERD_CONF_KEYS_H
#include <stdbool.h>
#include <stddef.h>

/* What a value must look like. */
enum conf_value_kind {
	CONF_V_STR,          /* anything */
	CONF_V_UINT,         /* 0..LONG_MAX */
	CONF_V_UINT_UNLIM,   /* a number or UNLIMITED/INFINITE/NONE/-1 */
	CONF_V_PORT,         /* 1..65535 */
	CONF_V_PORTS,        /* a port or a range "6817-6820" */
	CONF_V_TIME,         /* Slurm time syntax (days-hours:minutes:seconds) */
	CONF_V_BOOL,         /* YES/NO/TRUE/FALSE/1/0 */
	CONF_V_CTLD_HOST,    /* "name" or "name(addr)"; may appear several times (backups) */
	CONF_V_LICENSES,     /* name[:count][,name[:count]...] (common/license.h) */
};

struct conf_key_def {
	const char *name;            /* Slurm's spelling */
	enum conf_value_kind kind;
};

/* The plain key called name (case-insensitive), or NULL if there is none. */
const struct conf_key_def *conf_keys_find(const char *name);
bool conf_keys_value_ok(enum conf_value_kind kind, const char *value);
/* UNLIMITED, INFINITE, NONE or -1. */
bool conf_keys_unlimited(const char *value);
/* "6817" or "6817-6820": 0 and the ports, low first; -1 if malformed. */
int conf_keys_port_range(const char *value, long *lo, long *hi);

/* How a NodeName=/PartitionName=/DownNodes= attribute is stored. */
enum conf_attr_type {
	CONF_A_STR,       /* char *, as written */
	CONF_A_UPPER,     /* char *, upper-cased, checked against a word list */
	CONF_A_INT,       /* int, 0..INT_MAX */
	CONF_A_INT_UNLIM, /* int, UNLIMITED -> -1 */
	CONF_A_U64,       /* uint64_t */
	CONF_A_TIME,      /* int64_t seconds */
	CONF_A_BOOL,      /* bool */
	CONF_A_SPECIAL,   /* handled by the line's own code */
};

struct conf_attr_def {
	const char *name;
	enum conf_attr_type type;
	size_t offset;
	const char *const *words;    /* CONF_A_UPPER: allowed values (prefix before ':') */
};

/* Tables end with a NULL name. */
extern const struct conf_attr_def conf_keys_node_attrs[];
extern const struct conf_attr_def conf_keys_part_attrs[];
extern const char *const conf_keys_oversubscribe[];
extern const char *const conf_keys_down_states[];
const struct conf_attr_def *conf_keys_attr_find(const struct conf_attr_def *table, const char *name);
/* value is one of words (case-insensitive); with count_suffix, "YES:N" and
 * "FORCE:N" are allowed too (OverSubscribe). */
bool conf_keys_word_ok(const char *const *words, const char *value, bool count_suffix);

#endif
