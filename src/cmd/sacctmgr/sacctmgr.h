/* Between sacctmgr's pieces: sacctmgr.c (the command line, the calls,
 * the reports), keys.c (words), print.c (lists), flat.c and
 * flat_parse.c (dump/load's file).  Linked into sacctmgr (herd sim: keys.c, flat_parse.c). */
#ifndef HERD_CMD_SACCTMGR_H
#define HERD_CMD_SACCTMGR_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include "common/text.h"   /* text_lower: the names Slurm keeps in lower case */

struct strbuf;

/* The options (-i -n -p -P -Q -r -s). */
struct sacctmgr_opts {
	bool immediate, noheader, quiet, assocs, readonly;
	int parsable;                /* 0, 1 (-p: trailing '|'), 2 (-P) */
};
extern struct sacctmgr_opts opts;

/* One command's request, as sacctmgr.c builds it from the words. */
enum op { OP_ADD, OP_MODIFY, OP_DELETE, OP_LIST, OP_DUMP, OP_LOAD };

struct request {
	enum op op;
	const char *entity;          /* "account", "user" ... */
	json_t *names, *where, *set, *options;
	char *format;                /* format= */
	char *file;                  /* dump/load file= */
	bool tree, withassoc, withcoord;
};

/* keys.c */
/* A key as users write it: Slurm accepts any prefix of the long name of
 * at least min characters (case-insensitive), and some old names that
 * stand for one TRES of a TRES limit (GrpCPUs=10 is GrpTRES=cpu=10). */
struct key_def {
	const char *name;
	size_t min;
	const char *canon;
	const char *tres;            /* "cpu": the value is that TRES' count */
};
const struct key_def *keys_find(const char *key, size_t len);
/* key=value (op '+' or '-' for += and -=) into obj under the key's
 * canonical name, lowered where Slurm lowers it; 0. */
int keys_put(json_t *obj, const struct key_def *k, const char *value, char op);
void keys_names_add(json_t *names, const char *list);   /* "a,b" lowered into names */
const char *keys_entity(const char *word);      /* "acc" -> "account"; NULL if none */

/* print.c */
/* A column: its header, Slurm's default width (negative: left
 * justified), the names format= knows it by, and the row key it shows. */
enum render { R_STR, R_INT, R_TRES, R_TRES1, R_WALL, R_SHARE, R_FLOAT, R_LIST, R_FIXED };
struct col_def {
	const char *title;
	int width;
	const char *aliases;         /* ',' separated, matched case-insensitively by prefix */
	const char *key;
	enum render how;
	const char *tres;            /* R_TRES1: the one TRES shown (GrpCPUs) */
};

struct col {
	const struct col_def *def;
	int width;
};

/* The columns an entity's list knows. */
const struct col_def *print_columns(const char *entity, size_t *n);
/* "Account,User%20,Share%-8" into columns; -1 (said on stderr) naming a
 * bad field or width. */
int print_cols_parse(const struct col_def *defs, size_t n, const char *spec, struct col **out,
		     size_t *nout);
const char *print_default_format(const struct request *r);
/* The longest prefix of s of at most max bytes that ends on a UTF-8
 * character boundary: its length. */
size_t print_utf8_cut(const char *s, size_t max);
void print_wall(long long minutes, char *buf, size_t len);   /* "[D-]HH:MM:SS" */
char *print_cell_value(const struct col_def *d, const json_t *row);   /* caller frees */
/* The table to stdout (tree: the account column indented by depth). */
void print_table(const struct col *c, size_t nc, const json_t *rows, bool tree);

/* flat.c */
/* The flat file of cluster from dump's rows (tree order); caller frees. */
char *flat_dump(const char *cluster, const json_t *rows);
/* flat_parse.c */
/* One line into {type, name, attrs}; NULL for a blank or comment line,
 * or (with *bad) a malformed one. */
json_t *flat_parse_line(const char *line, bool *bad);

#endif
