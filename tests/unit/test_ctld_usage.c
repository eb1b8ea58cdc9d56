/* acct/usage.c's pure core: PriorityDecayHalfLife's decay, TRESBillingWeights,
 * PriorityUsageResetPeriod's period starts, and the fair-share figures sshare
 * prints (classic priority_multifactor and fair tree) on small trees worked
 * out by hand from the two documents' formulas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ctld/ctld.h"
#include "acct/usage.h"

struct ctld ctld;   /* main.c's, which this test does not link */

#define EPS 1e-9
/* one row of a share tree: the figures are computed */
#define ROW(acct, usr, par, sh, raw) \
	{ .account = acct, .user = usr, .parent = par, .shares = sh, .raw_usage = raw }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s };
	return timegm(&tm);
}

static void decay(void **state)
{
	double week = 7 * 86400.0;
	assert_true(fabs(usage_decay_factor(week, week) - 0.5) < EPS);
	assert_true(fabs(usage_decay_factor(2 * week, week) - 0.25) < EPS);
	assert_true(fabs(usage_decay_factor(1, 1) - 0.5) < EPS);
	assert_true(fabs(usage_decay_factor(0, week) - 1.0) < EPS);
	/* PriorityDecayHalfLife=0: no decay at all */
	assert_true(usage_decay_factor(1e9, 0) == 1.0);
	/* ticks compose: sixty one-second decays are one minute's */
	double f = 1;
	for (int i = 0; i < 60; i++)
		f *= usage_decay_factor(1, 600);
	assert_true(fabs(f - usage_decay_factor(60, 600)) < 1e-12);
}

static void billing(void **state)
{
	int64_t tres[TRES_COUNT] = { 0 };
	char err[160];
	double b;
	tres[TRES_CPU] = 4;
	tres[TRES_MEM] = 8192;
	tres[TRES_NODE] = 2;
	tres[TRES_GPU] = 3;
	/* no weights: the CPUs */
	assert_int_equal(usage_billing(NULL, tres, false, &b, err, sizeof(err)), 0);
	assert_true(b == 4);
	assert_int_equal(usage_billing("", tres, false, &b, err, sizeof(err)), 0);
	assert_true(b == 4);
	/* Mem=.25G: a quarter per GB of 8 GB */
	assert_int_equal(usage_billing("CPU=1.0,Mem=0.25G", tres, false, &b, err, sizeof(err)), 0);
	assert_true(fabs(b - 6) < EPS);
	assert_int_equal(usage_billing("cpu=0.5,mem=0.001,GRES/gpu=2", tres, false, &b, err,
				       sizeof(err)), 0);
	assert_true(fabs(b - (2 + 8.192 + 6)) < EPS);
	/* MAX_TRES: the largest one */
	assert_int_equal(usage_billing("CPU=1.0,Mem=0.25G,gres/gpu=2", tres, true, &b, err,
				       sizeof(err)), 0);
	assert_true(fabs(b - 6) < EPS);
	/* a typed GRES weight (Herd keeps no TRES of it) weighs nothing */
	assert_int_equal(usage_billing("CPU=1,GRES/gpu:h100=5,GRES/gpu=2.0", tres, false, &b, err,
				       sizeof(err)), 0);
	assert_true(fabs(b - 10) < EPS);
	assert_int_equal(usage_billing("Node=10", tres, false, &b, err, sizeof(err)), 0);
	assert_true(fabs(b - 20) < EPS);
	/* what does not parse */
	assert_int_equal(usage_billing("Foo=1", tres, false, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Foo"));
	assert_int_equal(usage_billing("CPU=x", tres, false, &b, err, sizeof(err)), -1);
	assert_int_equal(usage_billing("CPU", tres, false, &b, err, sizeof(err)), -1);
	assert_int_equal(usage_billing("Mem=1Q", tres, false, &b, err, sizeof(err)), -1);
}

static void reset_periods(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	time_t now = utc(2026, 11, 29, 10, 0, 0);   /* a Sunday */
	assert_true(usage_reset_start("DAILY", now) == utc(2026, 11, 29, 0, 0, 0));
	assert_true(usage_reset_start("weekly", now) == utc(2026, 11, 23, 0, 0, 0));
	assert_true(usage_reset_start("WEEKLY", utc(2026, 11, 23, 0, 0, 1)) == utc(2026, 11, 23, 0, 0, 0));
	assert_true(usage_reset_start("MONTHLY", now) == utc(2026, 11, 1, 0, 0, 0));
	assert_true(usage_reset_start("QUARTERLY", now) == utc(2026, 10, 1, 0, 0, 0));
	assert_true(usage_reset_start("QUARTERLY", utc(2026, 3, 31, 23, 0, 0)) == utc(2026, 1, 1, 0, 0, 0));
	assert_true(usage_reset_start("YEARLY", now) == utc(2026, 1, 1, 0, 0, 0));
	assert_true(usage_reset_start("NONE", now) == 0);
	assert_true(usage_reset_start("NOW", now) == 0);
	assert_true(usage_reset_start(NULL, now) == 0);
}

/* root (100) -> A (1 share, 75) -> u1 (1, 75)
 *            -> B (3 shares, 25) -> u2 (1, 25), u3 (1, 0) */
static void tree_abc(struct usage_share *r)
{
	r[0] = (struct usage_share)ROW("root", NULL, -1, 1, 100);
	r[1] = (struct usage_share)ROW("A", NULL, 0, 1, 75);
	r[2] = (struct usage_share)ROW("A", "u1", 1, 1, 75);
	r[3] = (struct usage_share)ROW("B", NULL, 0, 3, 25);
	r[4] = (struct usage_share)ROW("B", "u2", 3, 1, 25);
	r[5] = (struct usage_share)ROW("B", "u3", 3, 1, 0);
}

#define NEAR(x, y) assert_true(fabs((x) - (y)) < 1e-6)

static void classic(void **state)
{
	struct usage_share r[6];
	tree_abc(r);
	usage_shares_compute(r, 6, false);
	/* root as sshare shows it */
	NEAR(r[0].norm_shares, 0);
	NEAR(r[0].eff_usage, 1);
	/* S: the product of level fractions */
	NEAR(r[1].norm_shares, 0.25);
	NEAR(r[3].norm_shares, 0.75);
	NEAR(r[2].norm_shares, 0.25);
	NEAR(r[4].norm_shares, 0.375);
	NEAR(r[5].norm_shares, 0.375);
	/* UA: raw / root's */
	NEAR(r[1].norm_usage, 0.75);
	NEAR(r[4].norm_usage, 0.25);
	NEAR(r[5].norm_usage, 0);
	/* UE: root's children their UA; below, UA + (UE parent - UA) * S/S_all */
	NEAR(r[1].eff_usage, 0.75);
	NEAR(r[3].eff_usage, 0.25);
	NEAR(r[2].eff_usage, 0.75);
	NEAR(r[4].eff_usage, 0.25);
	NEAR(r[5].eff_usage, 0.125);
	/* F = 2^(-UE/S) */
	NEAR(r[1].fairshare, 0.125);
	NEAR(r[3].fairshare, exp2(-1.0 / 3));
	NEAR(r[2].fairshare, 0.125);
	NEAR(r[4].fairshare, exp2(-2.0 / 3));
	NEAR(r[5].fairshare, exp2(-1.0 / 3));
}

static void fair_tree(void **state)
{
	struct usage_share r[6];
	tree_abc(r);
	usage_shares_compute(r, 6, true);
	NEAR(r[0].norm_shares, 0);
	NEAR(r[0].eff_usage, 1);
	/* S and U within the level */
	NEAR(r[1].norm_shares, 0.25);
	NEAR(r[3].norm_shares, 0.75);
	NEAR(r[2].norm_shares, 1);
	NEAR(r[4].norm_shares, 0.5);
	NEAR(r[1].eff_usage, 0.75);
	NEAR(r[2].eff_usage, 1);
	NEAR(r[4].eff_usage, 1);
	NEAR(r[5].eff_usage, 0);
	NEAR(r[1].norm_usage, 0.75);
	/* LevelFS = S / U, inf for no usage */
	NEAR(r[1].level_fs, 1.0 / 3);
	NEAR(r[3].level_fs, 3);
	NEAR(r[2].level_fs, 1);
	NEAR(r[4].level_fs, 0.5);
	assert_true(isinf(r[5].level_fs));
	/* ranks: B's users first (u3 before u2), then A's */
	NEAR(r[5].fairshare, 1.0);
	NEAR(r[4].fairshare, 2.0 / 3);
	NEAR(r[2].fairshare, 1.0 / 3);
}

static void fair_tree_ties(void **state)
{
	/* Nothing used: every LevelFS is inf, so every sibling is tied with the
	 * one before it, and a tied account's first child too: every user
	 * shares the top rank (Slurm 22.05 prints FairShare 1.000000 for each)
	 * but one of no shares, which comes last. */
	struct usage_share r[] = {
		ROW("root", NULL, -1, 1, 0),
		ROW("root", "root", 0, 1, 0),
		ROW("A", NULL, 0, 1, 0),
		ROW("A", "a1", 2, 1, 0),
		ROW("B", NULL, 0, 1, 0),
		ROW("B", "b1", 4, 1, 0),
		ROW("B", "b0", 4, 0, 0),
	};
	usage_shares_compute(r, N(r), true);
	NEAR(r[1].norm_shares, 1.0 / 3);
	NEAR(r[2].norm_shares, 1.0 / 3);
	assert_true(isinf(r[1].level_fs) && isinf(r[2].level_fs) && isinf(r[3].level_fs));
	NEAR(r[6].level_fs, 0);
	NEAR(r[1].fairshare, 1);
	NEAR(r[3].fairshare, 1);   /* a1 and b1 tied with root's user */
	NEAR(r[5].fairshare, 1);
	NEAR(r[6].fairshare, 1.0 / 4);
	/* classic, nothing used: F = 1 wherever there are shares */
	usage_shares_compute(r, N(r), false);
	NEAR(r[3].fairshare, 1);
	NEAR(r[6].fairshare, 0);
	NEAR(r[0].eff_usage, 1);
}

static void parent_shares(void **state)
{
	struct usage_share r[] = {
		ROW("root", NULL, -1, 1, 40),
		ROW("A", NULL, 0, 1, 30),
		ROW("A", "p", 1, SHARES_PARENT, 10),
		ROW("A", "q", 1, 2, 20),
		ROW("B", NULL, 0, 3, 10),
	};
	usage_shares_compute(r, N(r), false);
	/* Fairshare=parent: the account's figures; left out of the level's shares */
	NEAR(r[2].norm_shares, r[1].norm_shares);
	NEAR(r[2].fairshare, r[1].fairshare);
	NEAR(r[3].norm_shares, 0.25);
	usage_shares_compute(r, N(r), true);
	NEAR(r[3].norm_shares, 1);
	NEAR(r[2].level_fs, r[1].level_fs);
}

static void degenerate(void **state)
{
	/* no rows, a lone root, an orphan: nothing breaks */
	usage_shares_compute(NULL, 0, true);
	struct usage_share one = ROW("root", NULL, -1, 1, 0);
	usage_shares_compute(&one, 1, true);
	NEAR(one.eff_usage, 1);
	struct usage_share r[] = {
		ROW("root", NULL, -1, 1, 5),
		ROW("A", NULL, 0, 0, 5),
		ROW("A", "u", 1, 1, 5),
	};
	usage_shares_compute(r, N(r), false);
	NEAR(r[1].norm_shares, 0);   /* a level of no shares */
	NEAR(r[1].fairshare, 0);
	usage_shares_compute(r, N(r), true);
	NEAR(r[1].level_fs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decay),         cmocka_unit_test(billing),
		cmocka_unit_test(reset_periods), cmocka_unit_test(classic),
		cmocka_unit_test(fair_tree),     cmocka_unit_test(fair_tree_ties),
		cmocka_unit_test(parent_shares), cmocka_unit_test(degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
