/* `herd down`: stop one cluster that `herd up` started: the processes it
 * recorded, the herdstepd of its jobs, and daemons an operator restarted by
 * hand for that cluster (`herdctld -f DIR/herd.conf`), recognised through
 * /proc by their name and DIR.  Nothing that belongs to another cluster. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "herd/herd.h"

static const char *const cluster_programs[] = {"herdctld", "herdd", "herdstepd", "munged", NULL};

static void down_usage(FILE *f)
{
	fputs("Usage: herd down --dir DIR\n"
	      "Stop the cluster that `herd up` started in DIR.\n",
	      f);
}

static bool is_cluster_program(const char *comm)
{
	for (size_t i = 0; cluster_programs[i]; i++)
		if (!strcmp(comm, cluster_programs[i]))
			return true;
	return false;
}

static void add_entry(struct pid_entry **v, size_t *n, pid_t pid, unsigned long long start,
		      const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].pid == pid)
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].pid = pid;
	(*v)[*n].start = start;
	snprintf((*v)[*n].name, sizeof((*v)[*n].name), "%s", name);
	(*n)++;
}

/* Does the process belong to the cluster in dir?  Its command line names a
 * path under dir (herdctld -f DIR/herd.conf, munged --socket=DIR/...), or its
 * environment carries HERD_CONF=DIR/herd.conf (herdstepd inherits it from herdd). */
static bool belongs(pid_t pid, const char *dir_slash, const char *conf_env)
{
	size_t len;
	char *buf = proc_read(pid, "cmdline", &len);
	bool yes = buf && proc_buf_has(buf, len, dir_slash);

	free(buf);
	if (yes)
		return true;
	buf = proc_read(pid, "environ", &len);
	if (buf) {
		for (size_t i = 0; i < len && !yes; i += strlen(buf + i) + 1)
			yes = !strcmp(buf + i, conf_env);
	}
	free(buf);
	return yes;
}

/* A job's own process of this cluster: it has SLURM_JOB_ID and our HERD_CONF. */
static bool is_job_process(pid_t pid, const char *conf_env)
{
	size_t len;
	char *buf = proc_read(pid, "environ", &len);
	bool conf = false, job = false;

	for (size_t i = 0; buf && i < len; i += strlen(buf + i) + 1) {
		if (!strcmp(buf + i, conf_env))
			conf = true;
		else if (!strncmp(buf + i, "SLURM_JOB_ID=", 13))
			job = true;
	}
	free(buf);
	return conf && job;
}

/* Processes of the cluster found in /proc: with jobs=false its daemons, with
 * jobs=true the job processes left behind. */
static void scan_proc(struct pid_entry **v, size_t *n, const char *dir_slash,
		      const char *conf_env, bool jobs)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();

	if (!d)
		return;
	while ((de = readdir(d))) {
		char comm[16];
		pid_t pid;
		unsigned long long start;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pid <= 1 || pid == self || proc_comm(pid, comm) < 0)
			continue;
		if (!(start = proc_start_time(pid)))
			continue;
		if (jobs ? is_job_process(pid, conf_env)
			 : is_cluster_program(comm) && belongs(pid, dir_slash, conf_env))
			add_entry(v, n, pid, start, comm);
	}
	closedir(d);
}

int herd_down_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"dir", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir_arg = NULL;
	char dir[PATH_MAX], *dir_slash, *conf_env, *path;
	struct pid_entry *recorded, *daemons = NULL, *steps = NULL, *jobs = NULL;
	size_t nrecorded, ndaemons = 0, nsteps = 0, njobs = 0, stopped;
	bool known;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			dir_arg = optarg;
			break;
		case 'h':
			down_usage(stdout);
			return 0;
		default:
			down_usage(stderr);
			return 2;
		}
	}
	if (!dir_arg || optind < argc) {
		fprintf(stderr, "herd: down: %s\n", dir_arg ? "unexpected argument" : "--dir is required");
		down_usage(stderr);
		return 2;
	}
	if (!realpath(dir_arg, dir)) {
		fprintf(stderr, "herd: error: %s: %s\n", dir_arg, strerror(errno));
		return 1;
	}
	path = xasprintf("%s/herd.conf", dir);
	known = access(path, F_OK) == 0;
	free(path);
	recorded = pids_load(dir, &nrecorded);
	if (!known && !nrecorded) {
		fprintf(stderr, "herd: error: %s holds no cluster started by herd up\n", dir);
		free(recorded);
		return 1;
	}
	dir_slash = xasprintf("%s/", dir);
	conf_env = xasprintf("HERD_CONF=%s/herd.conf", dir);

	for (size_t i = 0; i < nrecorded; i++)
		if (proc_alive(recorded[i].pid, recorded[i].start))
			add_entry(&daemons, &ndaemons, recorded[i].pid, recorded[i].start,
				  recorded[i].name);
	scan_proc(&daemons, &ndaemons, dir_slash, conf_env, false);
	/* herdstepd apart: it outlives its node daemon by design (jobs survive a
	 * herdd restart) and retries its completion report until a controller
	 * answers, so once the controller is gone it cannot finish cleanly. */
	for (size_t i = 0; i < ndaemons;) {
		if (!strcmp(daemons[i].name, "herdstepd")) {
			add_entry(&steps, &nsteps, daemons[i].pid, daemons[i].start, daemons[i].name);
			daemons[i] = daemons[--ndaemons];
		} else {
			i++;
		}
	}
	scan_proc(&jobs, &njobs, dir_slash, conf_env, true);
	/* Jobs get SIGTERM along with the daemons: the cluster is going away,
	 * and its jobs with it. */
	proc_signal_all(jobs, njobs, SIGTERM);
	stopped = proc_signal_all(steps, nsteps, SIGTERM);
	stopped += proc_signal_all(daemons, ndaemons, SIGTERM);
	proc_wait_gone(daemons, ndaemons, 8000);
	proc_wait_gone(steps, nsteps, 1000);
	proc_signal_all(daemons, ndaemons, SIGKILL);
	proc_signal_all(steps, nsteps, SIGKILL);
	proc_wait_gone(daemons, ndaemons, 2000);
	proc_wait_gone(steps, nsteps, 2000);
	/* Whatever a killed herdstepd left behind, or a job forked meanwhile. */
	free(jobs);
	jobs = NULL;
	njobs = 0;
	scan_proc(&jobs, &njobs, dir_slash, conf_env, true);
	if (njobs) {
		proc_signal_all(jobs, njobs, SIGKILL);
		fprintf(stderr, "herd: killed %zu leftover job processes\n", njobs);
	}
	path = xasprintf("%s/%s", dir, HERD_PIDS_FILE);
	unlink(path);
	free(path);
	fprintf(stderr, "herd: cluster in %s stopped (%zu processes)\n", dir, stopped);
	free(daemons), free(steps), free(jobs), free(recorded), free(dir_slash), free(conf_env);
	return 0;
}
