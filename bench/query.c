/* Query benchmark: with N jobs queued (default 100,000, held so nothing runs),
 * how long do `squeue` and `squeue -j ID` take, as a user sees them (process
 * start to exit)?  Needs a running cluster ($HERD_CONF; scripts/bench-query
 * starts one).  Jobs are submitted straight over the protocol from a few
 * threads, since sbatch's own speed is bench/submit's business. */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/net.h"
#include "bench.h"

#define TARGET_S 0.5

static struct net_target target;
static atomic_long left, failed;

static void *submitter(void *arg)
{
	char key[64];
	while (atomic_fetch_sub(&left, 1) > 0) {
		struct herd_error err;
		json_t *reply = NULL;
		snprintf(key, sizeof(key), "query-%ld-%lx", (long)atomic_load(&left), (long)pthread_self());
		json_t *body = json_pack(
			"{s:s, s:{s:s, s:s, s:[], s:[s], s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i,"
			" s:b, s:i, s:b, s:s, s:i, s:s, s:s}}",
			"key", key, "job", "name", "query", "script", "#!/bin/sh\ntrue\n", "argv",
			"env", "PATH=/usr/bin:/bin", "cwd", "/tmp", "stdout", "/dev/null", "stderr", "",
			"stdin", "", "partition", "", "nodes", 0, "ntasks", 0, "cpus_per_task", 0,
			"mem_mb", 0, "exclusive", 0, "time_limit", -2, "hold", 1, "submit_host", "bench",
			"umask", 022, "account", "", "comment", "");
		if (net_call(&target, MSG_SUBMIT_JOB, body, 60000, &reply, &err) < 0 ||
		    msg_reply_rc(reply, &err) != 0) {
			if (atomic_fetch_add(&failed, 1) == 0)
				fprintf(stderr, "query: submit: %s\n", err.text);
		}
		json_decref(reply);
		json_decref(body);
	}
	return NULL;
}

static void report(const char *what, char *const argv[])
{
	double t[5];
	for (int i = 0; i < 5; i++)
		if ((t[i] = run_timed(argv)) < 0) {
			printf("%-24s failed\n", what);
			return;
		}
	qsort(t, 5, sizeof(t[0]), cmp_double);
	printf("%-24s %8.3f s (median of 5)   target < %.1f s: %s\n", what, t[2], TARGET_S,
	       t[2] < TARGET_S ? "MET" : "MISSED");
}

int main(int argc, char **argv)
{
	long jobs = argc > 1 ? atol(argv[1]) : 100000;
	struct herd_error err;
	struct conf *conf = conf_load(NULL, &err);
	char path[4096], squeue[4200];
	pthread_t th[8];

	if (!conf) {
		fprintf(stderr, "query: %s\n", err.text);
		return 1;
	}
	target = (struct net_target){ conf_ctld_host(conf), conf_ctld_port(conf),
				      auth_dest_ctld(conf_cluster_name(conf)), conf_munge_socket(conf) };
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n < 0)
		return 1;
	path[n] = '\0';
	*strrchr(path, '/') = '\0';
	snprintf(squeue, sizeof(squeue), "%s/../bin/squeue", path);
	char sacct[4200];
	snprintf(sacct, sizeof(sacct), "%s/../bin/sacct", path);

	double t0 = now_s();
	atomic_store(&left, jobs);
	for (int i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, submitter, NULL);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	printf("Query benchmark: %ld held jobs queued in %.1f s (%ld failed)\n", jobs, now_s() - t0,
	       (long)atomic_load(&failed));
	char *all[] = { squeue, NULL };
	char *one[] = { squeue, "-j", "1", NULL };
	char *fmt[] = { squeue, "-h", "-o", "%i %T", NULL };
	report("squeue", all);
	report("squeue -h -o '%i %T'", fmt);
	report("squeue -j 1", one);
	char *acct_one[] = { sacct, "-j", "1", NULL };
	char *acct_some[] = { sacct, "-j", "1,500,5000,50000", "-X", "-P", NULL };
	report("sacct -j 1", acct_one);
	report("sacct -j (4 IDs) -X -P", acct_some);
	return 0;
}
