/* Submission benchmark: K client processes run `sbatch -H --wrap true` in a
 * loop against a running cluster ($HERD_CONF), then run a no-op program that
 * prints the same line the same way, and report jobs/s beside the targets and
 * the controller's memory per pending job.  Not a load generator for anything
 * else: the jobs are held so the cluster never runs them.  scripts/bench
 * brings up a fresh cluster for it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"


#define TARGET_RATE_8 1500.0        /* submissions/s from 8 clients */
#define TARGET_NOOP_RATIO 0.5       /* of the no-op program's rate */
#define TARGET_BYTES_PER_JOB 2048.0 /* controller RSS growth per pending job */

struct counts {
	long ok, failed;
	char first_error[256];
};

struct run_result {
	long ok, failed;
	double seconds;
	char first_error[256];
};

/* Run argv once with stdout on a pipe; true when it exited 0 and printed
 * "Submitted batch job N". */
static bool submit_once(char *const argv[], char *errbuf, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	char out[256];
	size_t used = 0;
	int pipefd[2], status;
	long job_id;
	pid_t pid;
	ssize_t r;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(errbuf, errlen, "pipe: %s", strerror(errno));
		return false;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	errno = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (errno) {
		snprintf(errbuf, errlen, "cannot run %s: %s", argv[0], strerror(errno));
		close(pipefd[0]);
		return false;
	}
	while (used < sizeof(out) - 1 &&
	       ((r = read(pipefd[0], out + used, sizeof(out) - 1 - used)) > 0 ||
		(r < 0 && errno == EINTR)))
		if (r > 0)
			used += r;
	out[used] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(out, "Submitted batch job %ld", &job_id) != 1) {
		snprintf(errbuf, errlen, "%s exited %d and printed '%.80s'", argv[0],
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out);
		return false;
	}
	return true;
}

/* K processes share total submissions; they start together when the parent
 * closes the "go" pipe, so the clock measures only the submissions. */
static struct run_result run_clients(char *const argv[], int clients, long total)
{
	struct counts *shared = mmap(NULL, clients * sizeof(*shared), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct run_result res = {0};
	int go[2];
	double t0;

	if (shared == MAP_FAILED || pipe(go) < 0) {
		perror("submit: mmap/pipe");
		exit(1);
	}
	memset(shared, 0, clients * sizeof(*shared));
	for (int i = 0; i < clients; i++) {
		long mine = total / clients + (i < total % clients);
		pid_t pid = fork();
		if (pid < 0) {
			perror("submit: fork");
			exit(1);
		}
		if (pid == 0) {
			char c;
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			for (long n = 0; n < mine; n++) {
				char err[256];
				if (submit_once(argv, err, sizeof(err))) {
					shared[i].ok++;
				} else {
					if (!shared[i].failed++)
						snprintf(shared[i].first_error,
							 sizeof(shared[i].first_error), "%s", err);
				}
			}
			_exit(0);
		}
	}
	close(go[0]);
	t0 = now_s();
	close(go[1]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	res.seconds = now_s() - t0;
	for (int i = 0; i < clients; i++) {
		res.ok += shared[i].ok;
		res.failed += shared[i].failed;
		if (shared[i].failed && !res.first_error[0])
			snprintf(res.first_error, sizeof(res.first_error), "%s", shared[i].first_error);
	}
	munmap(shared, clients * sizeof(*shared));
	return res;
}

/* The controller's PID from SlurmctldPidFile in $HERD_CONF, when not given. */
static pid_t ctld_pid_from_conf(void)
{
	const char *conf = getenv("HERD_CONF");
	char line[1024], path[1024] = "";
	long pid = 0;
	FILE *f;

	if (!conf || !(f = fopen(conf, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncasecmp(line, "SlurmctldPidFile=", 17)) {
			snprintf(path, sizeof(path), "%s", line + 17);
			path[strcspn(path, " \t\r\n#")] = '\0';
		}
	fclose(f);
	if (!path[0] || !(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

static const char *verdict(bool met)
{
	return met ? "MET" : "MISSED";
}

static void usage(FILE *f)
{
	fputs("Usage: submit [-n SUBMISSIONS] [-k CLIENTS[,CLIENTS...]] [--sbatch PATH]\n"
	      "              [--noop PATH] [--ctld-pid PID]\n"
	      "Needs a running cluster in $HERD_CONF (scripts/bench starts one).\n"
	      "Defaults: -n 2000 per client count, -k 1,8, sbatch next to this binary\n"
	      "(../bin/sbatch), no-op /bin/echo.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sbatch", required_argument, NULL, 's'},
		{"noop", required_argument, NULL, 'o'},
		{"ctld-pid", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char self[PATH_MAX], sbatch_path[PATH_MAX + 32], list[256] = "1,8";
	const char *sbatch = NULL, *noop = "/bin/echo";
	long total = 2000, jobs = 0, rss0, rss1;
	int clients[16], nclients = 0, ch, rc = 0;
	pid_t ctld = 0;
	ssize_t len;

	while ((ch = getopt_long(argc, argv, "n:k:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			total = atol(optarg);
			break;
		case 'k':
			snprintf(list, sizeof(list), "%s", optarg);
			break;
		case 's':
			sbatch = optarg;
			break;
		case 'o':
			noop = optarg;
			break;
		case 'p':
			ctld = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (char *tok = strtok(list, ","); tok && nclients < 16; tok = strtok(NULL, ",")) {
		int k = atoi(tok);
		if (k < 1 || k > 256) {
			fprintf(stderr, "submit: bad client count '%s'\n", tok);
			return 2;
		}
		clients[nclients++] = k;
	}
	if (total < 1 || !nclients) {
		usage(stderr);
		return 2;
	}
	if (!getenv("HERD_CONF")) {
		fputs("submit: HERD_CONF is not set (run scripts/bench, or eval \"$(herd up ...)\" first)\n",
		      stderr);
		return 2;
	}
	if (!sbatch) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len <= 0) {
			perror("submit: /proc/self/exe");
			return 1;
		}
		self[len] = '\0';
		snprintf(sbatch_path, sizeof(sbatch_path), "%s/../bin/sbatch", dirname(self));
		sbatch = sbatch_path;
	}
	if (!ctld)
		ctld = ctld_pid_from_conf();

	char *sbatch_argv[] = {(char *)sbatch, "-H", "-o", "/dev/null", "-J", "bench", "--wrap",
			       "true", NULL};
	char *noop_argv[] = {(char *)noop, "Submitted batch job 1", NULL};
	double rate8 = -1, ratio8 = -1;

	rss0 = ctld > 0 ? rss_kib(ctld) : -1;
	printf("Submission benchmark: %ld submissions per run, held jobs, durability on\n", total);
	printf("%-8s %12s %12s %10s %9s\n", "clients", "sbatch/s", "no-op/s", "ratio", "failed");
	for (int i = 0; i < nclients; i++) {
		struct run_result s = run_clients(sbatch_argv, clients[i], total);
		struct run_result o = run_clients(noop_argv, clients[i], total);
		double rs = s.ok / s.seconds, ro = o.ok / o.seconds;

		jobs += s.ok;
		printf("%-8d %12.0f %12.0f %9.0f%% %9ld\n", clients[i], rs, ro, 100.0 * rs / ro,
		       s.failed + o.failed);
		if (s.failed)
			printf("         first sbatch failure: %s\n", s.first_error), rc = 1;
		if (o.failed)
			printf("         first no-op failure: %s\n", o.first_error), rc = 1;
		if (clients[i] == 8)
			rate8 = rs, ratio8 = rs / ro;
		fflush(stdout);
	}
	if (rate8 >= 0) {
		printf("target: >= %.0f submissions/s from 8 clients: %.0f/s  %s\n", TARGET_RATE_8,
		       rate8, verdict(rate8 >= TARGET_RATE_8));
		printf("target: >= %.0f%% of the no-op program's rate (8 clients): %.0f%%  %s\n",
		       100 * TARGET_NOOP_RATIO, 100 * ratio8, verdict(ratio8 >= TARGET_NOOP_RATIO));
	}
	rss1 = ctld > 0 ? rss_kib(ctld) : -1;
	if (rss0 < 0 || rss1 < 0 || jobs == 0) {
		printf("target: <= %.0f bytes of controller memory per pending job: not measured (%s)\n",
		       TARGET_BYTES_PER_JOB, jobs ? "no controller PID: give --ctld-pid" : "no jobs");
	} else {
		double per_job = (rss1 - rss0) * 1024.0 / jobs;
		printf("controller VmRSS: %ld KiB before, %ld KiB after %ld pending jobs\n", rss0, rss1,
		       jobs);
		printf("target: <= %.0f bytes of controller memory per pending job: %.0f bytes  %s\n",
		       TARGET_BYTES_PER_JOB, per_job, verdict(per_job <= TARGET_BYTES_PER_JOB));
	}
	return rc;
}
