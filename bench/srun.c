/* Step launch benchmark, run inside an allocation of 4 nodes and N tasks
 * (scripts/bench-srun makes one with salloc, N = 64): the wall time of
 * `srun -N4 -nN true` (N from SLURM_NTASKS) and of 100 sequential
 * `srun -n1 true` steps, from process start to exit, beside the target of
 * 50 ms per step launch.  The same program times Slurm's srun in a Slurm
 * allocation (BENCH_SLURM=1 scripts/bench-srun).
 *   bench/srun SRUN [REPEATS]
 * Needs SLURM_JOB_ID in the environment (the allocation). */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#define TARGET_MS 50.0

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	char ntasks[32];
	snprintf(ntasks, sizeof(ntasks), "-n%s", getenv("SLURM_NTASKS") ? getenv("SLURM_NTASKS") : "64");
	char *wide[] = { argc > 1 ? argv[1] : "build/bin/srun", "-N4", ntasks, "true", NULL };
	char *one[] = { wide[0], "-n1", "true", NULL };
	int repeats = argc > 2 ? atoi(argv[2]) : 10, seq = 100;
	double *w = malloc(repeats * sizeof(*w)), t0, total;

	if (!getenv("SLURM_JOB_ID")) {
		fprintf(stderr, "bench/srun: run it inside an allocation (scripts/bench-srun)\n");
		return 2;
	}
	for (int i = 0; i < repeats; i++) {
		if ((w[i] = run_timed(wide)) < 0) {
			fprintf(stderr, "bench/srun: srun -N4 %s true failed\n", ntasks);
			return 1;
		}
	}
	t0 = now_s();
	for (int i = 0; i < seq; i++)
		if (run_timed(one) < 0) {
			fprintf(stderr, "bench/srun: srun -n1 true failed (step %d)\n", i);
			return 1;
		}
	total = now_s() - t0;
	double med = median(w, repeats) * 1000, per = total * 1000 / seq;
	printf("srun -N4 %s true: median %.1f ms over %d runs (target < %.0f ms: %s)\n", ntasks, med,
	       repeats, TARGET_MS, med < TARGET_MS ? "MET" : "MISSED");
	printf("100 sequential srun -n1 true: %.2f s, %.1f ms per step (target < %.0f ms: %s)\n",
	       total, per, TARGET_MS, per < TARGET_MS ? "MET" : "MISSED");
	free(w);
	return 0;
}
