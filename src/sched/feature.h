/* Job constraints (sbatch -C/--constraint) over node features (Features= on
 * NodeName lines).  Pure: strings in, a yes/no out.  Not for changeable
 * (node_features plugin) features. */
#ifndef HERD_SCHED_FEATURE_H
#define HERD_SCHED_FEATURE_H
#include <stdbool.h>

/* The expression: feature names joined by '&' or ',' (AND, as Slurm reads a
 * comma) and '|' (OR, binding looser than AND), grouped with () or [].
 * Names are letters, digits and "_-.:+".  Slurm's matching OR, a whole
 * expression "[a|b|c]", means every node of the job has the same one of
 * them (see feature_matching_or); brackets inside an expression are plain
 * grouping. */

/* 1 when node_features (a comma list, or NULL for none) satisfy expr, 0 when
 * not, -1 when expr is malformed. */
int feature_match(const char *expr, const char *node_features);
/* 0 when expr is well formed and names only features in known (a comma list
 * of every feature some node has); -1 otherwise (Slurm: "Invalid feature
 * specification"). */
int feature_check(const char *expr, const char *known);

/* When expr is a matching OR "[a|b|...]" of plain names: their count, with
 * *alts (caller frees each and the array) holding them in order; else 0. */
int feature_matching_or(const char *expr, char ***alts);

#endif
