/* herdctld: the controller.  One libuv loop thread owns all state (nodes,
 * partitions, jobs); the store commits and the credential checks run in
 * libuv's worker pool.  Options follow slurmctld: -D foreground, -f FILE,
 * -L LOGFILE, -v (more verbose). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"
#include "core/prio.h"
#include "core/preempt.h"
#include "core/resv.h"

struct ctld ctld;

static void usage(void)
{
	fprintf(stderr, "Usage: herdctld [-D] [-f FILE] [-L LOGFILE] [-v...]\n");
	exit(1);
}

static void daemonize(void)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("herdctld: fork");
		exit(1);
	}
	if (pid > 0)
		_exit(0);
	setsid();
	if ((pid = fork()) < 0)
		exit(1);
	if (pid > 0)
		_exit(0);
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 1)
			close(fd);
	}
	if (chdir("/") < 0)
		exit(1);
}

static void stop_after_commit(void *arg, bool ok)
{
	uv_stop(ctld.loop);
}

static void on_signal(uv_signal_t *h, int signum)
{
	log_info("caught signal %d, shutting down", signum);
	/* The fair-share usage since the last save goes to the store first. */
	usage_save(core_now());
	store_after_commit(stop_after_commit, NULL);
}

static void on_hangup(uv_signal_t *h, int signum)
{
	struct herd_error err;
	/* As slurmctld: SIGHUP is "scontrol reconfigure" without a reply; a
	 * refusal is in the log. */
	log_info("caught SIGHUP: re-reading %s", ctld.conf_path);
	reconf_reload(&err, NULL);
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL, *log_file = NULL;
	bool foreground = false;
	int verbose = 0, c;
	struct herd_error err;
	uv_signal_t sigterm, sigint, sighup;
	struct net_server *srv;

	while ((c = getopt(argc, argv, "Df:L:vh")) != -1) {
		switch (c) {
		case 'D': foreground = true; break;
		case 'f': conf_path = optarg; break;
		case 'L': log_file = optarg; break;
		case 'v': verbose++; break;
		default: usage();
		}
	}
	/* Blocking work (credential checks, commits, calls to nodes) shares the pool. */
	setenv("UV_THREADPOOL_SIZE", "16", 0);
	core.conf = conf_load(conf_path, &err);
	if (!core.conf) {
		fprintf(stderr, "herdctld: error: %s\n", err.text);
		return 1;
	}
	const struct conf *conf = core.conf;
	/* A bad SchedulerType/SchedulerParameters stops the start, before daemonizing: said on stderr. */
	if (sched_check(conf, &err) < 0) {
		fprintf(stderr, "herdctld: error: %s: %s\n", conf->path, err.text);
		return 1;
	}
	/* A node's Gres= naming what GresTypes does not stops the start (Slurm only logs it). */
	if (node_gres_check(conf, &err) < 0) {
		fprintf(stderr, "herdctld: error: %s\n", err.text);
		return 1;
	}
	/* auth/jwt's key: a missing or world-readable one stops the start. */
	if (auth_jwt_configure(conf, &err) < 0) {
		fprintf(stderr, "herdctld: error: %s\n", err.text);
		return 1;
	}
	/* Absolute: a reconfigure reads it again after daemonize's chdir("/"). */
	ctld.conf_path = realpath(conf->path, NULL);
	if (!ctld.conf_path)
		ctld.conf_path = xstrdup(conf->path);
	if (!log_file && !foreground)
		log_file = conf_get(conf, "SlurmctldLogFile");
	enum log_level level = log_level_parse(conf_get(conf, "SlurmctldDebug"));
	if (verbose)
		level = LOG_LVL_DEBUG;
	ctld.log_forced = verbose > 0;
	if (log_init("herdctld", level, log_file) < 0) {
		fprintf(stderr, "herdctld: error: cannot open log file %s: %s\n", log_file, strerror(errno));
		return 1;
	}
	if (!foreground)
		daemonize();
	char *pid_file = xstrdup(conf_get(conf, "SlurmctldPidFile"));
	if (pid_file) {
		FILE *f = fopen(pid_file, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		} else {
			log_error("cannot write %s: %s", pid_file, strerror(errno));
		}
	}
	signal(SIGPIPE, SIG_IGN);

	ctld.loop = uv_default_loop();
	/* Copies: a reconfigure replaces core.conf, and these need a restart. */
	core.cluster = xstrdup(conf_cluster_name(conf));
	ctld.dest_self = auth_dest_ctld(core.cluster);
	ctld.ctld_target = (struct net_target){ xstrdup(conf_ctld_host(conf)), conf_ctld_port(conf),
						ctld.dest_self, xstrdup(conf_munge_socket(conf)) };
	core.next_job_id = conf_get_int(conf, "FirstJobId", 1);
	reconf_settings(conf);
	free(reconf_inert_warning(conf));   /* what the file sets and Herd ignores: logged */
	if (preempt_check(conf, &err) < 0) {
		log_error("%s", err.text);
		return 1;
	}
	core.start_time = core_now();
	node_setup();
	part_setup();
	sched_setup();
	preempt_setup();
	const char *state_dir = conf_get(conf, "StateSaveLocation");
	if (store_open(state_dir ? state_dir : "/var/spool/herd/ctld", &err) < 0) {
		log_error("%s", err.text);
		return 1;
	}
	if (store_backend_open(conf, &err) < 0) {
		log_error("%s", err.text);
		return 1;
	}
	if (store_load() < 0)
		return 1;
	assoc_setup();
	resv_setup();   /* after the accounts (their names are checked) */
	usage_setup();   /* after the associations and the jobs are loaded */
	if (prio_conf_check(conf, &err) < 0) {
		log_error("%s", err.text);
		return 1;
	}
	prio_setup();

	/* Only the configured address (SlurmctldAddr or SlurmctldHost's), not
	 * every interface of the host: doc/conf.md "Listening". */
	struct net_server_opts opts = {
		.host = ctld.ctld_target.host, .port = ctld.ctld_target.port, .dest = ctld.dest_self,
		.munge_socket = ctld.ctld_target.munge_socket,
		.max_body = conf_get_int(conf, "MaxMessageSize", 0), .handler = rpc_handle,
	};
	net_limits_from_conf(conf, &opts.limits);
	net_raise_nofile();
	srv = net_server_start(ctld.loop, &opts, &err);
	if (!srv) {
		log_error("%s", err.text);
		return 1;
	}
	tick_setup();
	uv_signal_init(ctld.loop, &sigterm);
	uv_signal_start(&sigterm, on_signal, SIGTERM);
	uv_signal_init(ctld.loop, &sigint);
	uv_signal_start(&sigint, on_signal, SIGINT);
	uv_signal_init(ctld.loop, &sighup);
	uv_signal_start(&sighup, on_hangup, SIGHUP);
	sched_request();
	launch_broadcast(MSG_REQUEST_REGISTRATION);
	log_info("herdctld for cluster %s listening on %s:%d (%d nodes, %d partitions)",
		 core.cluster, opts.host, opts.port, core.nnodes, core.nparts);
	uv_run(ctld.loop, UV_RUN_DEFAULT);
	/* Anything not yet committed was never acknowledged; nothing is lost. */
	store_backend_close();
	store_close();
	if (pid_file)
		unlink(pid_file);
	free(pid_file);
	log_info("herdctld stopped");
	return 0;
}
