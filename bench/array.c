/* Array benchmark: how long does sbatch --array=0-999999 take, as a user
 * sees it (process start to exit, the ID printed once durable), and how
 * much memory does the controller hold for it?  Needs a running cluster with
 * MaxArraySize > 999999 ($HERD_CONF; scripts/bench-array starts one) and the
 * controller's PID as argv[1].  Targets (issue 3): < 50 ms, < 1 MiB. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

#define TARGET_MS 50.0
#define TARGET_KIB 1024.0
#define RUNS 5

int main(int argc, char **argv)
{
	char path[4096], sbatch[4200];
	double ms[RUNS], kib[RUNS];

	if (argc < 2) {
		fprintf(stderr, "usage: array CONTROLLER_PID (with HERD_CONF set)\n");
		return 2;
	}
	pid_t ctld = (pid_t)atol(argv[1]);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n < 0)
		return 1;
	path[n] = '\0';
	*strrchr(path, '/') = '\0';
	snprintf(sbatch, sizeof(sbatch), "%s/../bin/sbatch", path);
	char *args[] = { sbatch, "-H", "--array=0-999999", "-o", "/dev/null", "--wrap", "true", NULL };

	/* One warm-up: the controller's first submission pays for its own
	 * first allocations (hash table, statements). */
	if (run_timed(args) < 0) {
		fprintf(stderr, "array: sbatch failed\n");
		return 1;
	}
	sleep(1);
	for (int i = 0; i < RUNS; i++) {
		long before = rss_kib(ctld);
		double t = run_timed(args);
		usleep(200000);   /* the commit's worker is done with its copy */
		long after = rss_kib(ctld);
		if (t < 0 || before < 0 || after < 0) {
			fprintf(stderr, "array: run %d failed\n", i);
			return 1;
		}
		ms[i] = t * 1e3;
		kib[i] = after - before;
	}
	qsort(ms, RUNS, sizeof(ms[0]), cmp_double);
	qsort(kib, RUNS, sizeof(kib[0]), cmp_double);
	printf("Array benchmark: sbatch --array=0-999999 (held), %d runs\n", RUNS);
	printf("%-34s %8.1f ms (median)   target < %.0f ms: %s\n", "submit, process start to exit",
	       ms[RUNS / 2], TARGET_MS, ms[RUNS / 2] < TARGET_MS ? "MET" : "MISSED");
	printf("%-34s %8.0f KiB (median)  target < %.0f KiB: %s\n", "controller memory per array",
	       kib[RUNS / 2], TARGET_KIB, kib[RUNS / 2] < TARGET_KIB ? "MET" : "MISSED");
	return 0;
}
