/* Job constraints (sbatch -C/--constraint) over node features (Features= on
 * NodeName lines).  Pure: strings in, a yes/no out.  Not for changeable
 * (node_features plugin) features. */
#ifndef HERD_SCHED_FEATURE_H
#define HERD_SCHED_FEATURE_H
#include <stdbool.h>

/* The expression: feature names joined by '&' or ',' (AND, as Slurm reads a
 * comma) and '|' (OR, binding looser than AND), grouped with () or [].
 * Slurm's [a|b] ("all nodes with the same one") is read as plain grouping:
 * each node needs one of them.  Names are letters, digits and "_-.:+". */

/* 1 when node_features (a comma list, or NULL for none) satisfy expr, 0 when
 * not, -1 when expr is malformed. */
int feature_match(const char *expr, const char *node_features);
/* 0 when expr is well formed and names only features in known (a comma list
 * of every feature some node has); -1 otherwise (Slurm: "Invalid feature
 * specification"). */
int feature_check(const char *expr, const char *known);

#endif
