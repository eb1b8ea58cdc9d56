/* The pure core of fair-share usage (usage.c): decay, billing, reset
 * periods and the fair-share figures sshare prints, as functions of their
 * inputs (no clock, no controller state), so tests/unit/test_ctld_usage.c
 * checks them directly.  The controller's side is assoc.h's usage_*. */
#ifndef HERD_CTLD_USAGE_H
#define HERD_CTLD_USAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "acct/assoc.h"

/* priority_multifactor: usage * 2^(-seconds / half_life); 1 (no decay) for
 * half_life <= 0 (PriorityDecayHalfLife=0). */
double usage_decay_factor(double seconds, double half_life);

/* The billing TRES of a job that holds tres (counts; mem in MB):
 * TRESBillingWeights ("CPU=1.0,Mem=0.25G,GRES/gpu=2"; NULL or "" = its
 * CPUs, as Slurm without weights).  max_tres (PriorityFlags=MAX_TRES): the
 * largest weighted TRES instead of their sum.  -1 with err for weights that
 * do not parse. */
int usage_billing(const char *weights, const int64_t tres[TRES_COUNT], bool max_tres,
		  double *billing, char *err, size_t errlen);

/* PriorityUsageResetPeriod: the start of the period now is in (local
 * time): DAILY midnight, WEEKLY Monday's midnight, MONTHLY the 1st,
 * QUARTERLY the 1st of Jan/Apr/Jul/Oct, YEARLY Jan 1st; 0 for NONE, NOW
 * and anything unknown. */
time_t usage_reset_start(const char *period, time_t now);

/* One row of the share tree: an account association (user NULL) or a
 * user's.  parent: index of the parent account's row, -1 for root (one row
 * only).  The rest is computed by usage_shares_compute. */
struct usage_share {
	const char *account, *user;   /* lent */
	int parent;
	uint32_t shares;              /* Fairshare=N, SHARES_PARENT for "parent" */
	double raw_usage;
	/* computed */
	double norm_shares;   /* classic: the product of level fractions down
				 the tree; fair tree: this level's fraction */
	double norm_usage;    /* raw / root's raw */
	double eff_usage;     /* classic: UA + (UE parent - UA) * level fraction;
				 fair tree: raw / parent's raw */
	double fairshare;     /* classic: 2^(-UE/S); fair tree: rank / users (users only) */
	double level_fs;      /* fair tree: level fraction / eff_usage (INFINITY at 0 usage) */
};
/* Every row's figures, as priority_multifactor(5) (classic, PriorityFlags=
 * NO_FAIR_TREE) or fair_tree (Slurm 22.05's default) describe them.  The
 * root row gets norm_shares 0 and eff_usage 1, as sshare shows it. */
void usage_shares_compute(struct usage_share *rows, size_t n, bool fair_tree);

#endif
