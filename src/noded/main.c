/* herdd: the node daemon.  Registers the node with the controller and
 * heartbeats, starts one herdstepd per job, and passes signals and
 * terminations to them.  One per node; several may run on one host, each
 * with its own NodeName, port and spool.
 *   herdd -N NODENAME [-f CONF] [-D] [-v...] [-L LOGFILE] */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

#define NODED_DEFAULT_SPOOL "/var/spool/herd/%n"

static void usage(FILE *f)
{
	fputs("Usage: herdd -N NODENAME [-f CONF] [-D] [-v...] [-L LOGFILE]\n"
	      "  -N NODENAME  this node's NodeName in herd.conf (default: the short host name)\n"
	      "  -f CONF      configuration (default: $HERD_CONF, else " HERD_DEFAULT_CONF ")\n"
	      "  -D           stay in the foreground\n"
	      "  -v           more logging (repeatable)\n"
	      "  -L LOGFILE   log here instead of SlurmdLogFile\n",
	      f);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("herdd: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* mkdir -p, each new component with mode. */
static int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

static char *noded_self_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	return xstrdup(dirname(exe));
}

static void daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0)
		_exit(0);
	setsid();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		die("chdir /: %s", strerror(errno));
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

static char *pid_file;

static void write_pid_file(const char *path)
{
	FILE *f = fopen(path, "we");
	if (!f) {
		log_error("cannot write pid file %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	pid_file = xstrdup(path);
}

static void on_hangup(uv_signal_t *h, int signum)
{
	struct herd_error err;
	/* As slurmd: SIGHUP re-reads the configuration; a refusal is logged. */
	log_info("caught SIGHUP: re-reading %s", ((struct noded *)h->data)->conf_path);
	reconf_reload(h->data, &err);
}

static void on_stop_signal(uv_signal_t *h, int signum)
{
	struct noded *nd = h->data;
	/* Jobs keep running: their herdstepd does not need us. */
	log_info("caught signal %d, stopping (jobs keep running)", signum);
	if (pid_file)
		unlink(pid_file);
	uv_stop(nd->loop);
}

/* Bind NodeAddr (resolved), not every interface of the host (tests run
 * several nodes on 127.0.0.1).  Only when it is no address of this host (a
 * name the node is reached by through NAT, say) all addresses, as slurmd. */
static struct net_server *listen_node(struct noded *nd, struct net_server_opts *o,
				      struct herd_error *err)
{
	struct net_server *srv;

	o->host = nd->cn->addr;
	if ((srv = net_server_start(nd->loop, o, err)) || errno != EADDRNOTAVAIL)
		return srv;
	log_error("%s; listening on all addresses instead", err->text);
	o->host = "0.0.0.0";
	return net_server_start(nd->loop, o, err);
}

int main(int argc, char **argv)
{
	struct noded nd = { 0 };
	struct herd_error err = { "" };
	const char *conf_arg = NULL, *node_arg = NULL, *log_arg = NULL;
	bool foreground = false;
	enum log_level level = LOG_LVL_INFO;
	char host[256], *log_file = NULL, *self_dir;
	int opt;

	while ((opt = getopt(argc, argv, "N:f:DvL:hV")) != -1) {
		switch (opt) {
		case 'N': node_arg = optarg; break;
		case 'f': conf_arg = optarg; break;
		case 'D': foreground = true; break;
		case 'v': nd.verbose++; break;
		case 'L': log_arg = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	nd.conf = conf_load(conf_arg, &err);
	if (!nd.conf)
		die("%s", err.text);
	if (!node_arg) {
		/* slurmd's default: the short host name */
		if (gethostname(host, sizeof(host) - 1) < 0)
			die("gethostname: %s", strerror(errno));
		host[sizeof(host) - 1] = '\0';
		char *dot = strchr(host, '.');
		if (dot)
			*dot = '\0';
		node_arg = host;
	}
	nd.node = xstrdup(node_arg);
	nd.cn = conf_node_find(nd.conf, nd.node);
	if (!nd.cn)
		die("node %s is not in %s", nd.node, nd.conf->path);
	nd.conf_path = realpath(nd.conf->path, NULL);
	if (!nd.conf_path)
		nd.conf_path = xstrdup(nd.conf->path);

	if (conf_get(nd.conf, "SlurmdDebug"))
		level = log_level_parse(conf_get(nd.conf, "SlurmdDebug"));
	if (nd.verbose)
		level = LOG_LVL_DEBUG;
	if (log_arg)
		log_file = xstrdup(log_arg);
	else if (conf_get(nd.conf, "SlurmdLogFile"))
		log_file = noded_expand_path(conf_get(nd.conf, "SlurmdLogFile"), nd.node);
	if (log_init("herdd", level, log_file) < 0)
		die("cannot open log file %s: %s", log_file, strerror(errno));
	if (geteuid() != 0)
		log_warn("not running as root: jobs of other users cannot start");

	const char *slurm_user = conf_get(nd.conf, "SlurmUser");
	nd.slurm_uid = 0;
	if (slurm_user) {
		struct passwd *pw = getpwnam(slurm_user);
		if (!pw)
			die("SlurmUser %s does not exist on this node", slurm_user);
		nd.slurm_uid = pw->pw_uid;
	}

	if (!(self_dir = noded_self_dir()))
		die("cannot find my own binary: %s", strerror(errno));
	nd.stepd_path = xasprintf("%s/herdstepd", self_dir);
	free(self_dir);
	if (access(nd.stepd_path, X_OK) < 0)
		die("%s: %s", nd.stepd_path, strerror(errno));

	/* The spool is searchable by all (0755, as Slurm's) because each job's
	 * shell runs its script from there as the user; what is private inside
	 * is private by its own mode. */
	const char *spool = conf_get(nd.conf, "SlurmdSpoolDir");
	nd.spool = noded_expand_path(spool ? spool : NODED_DEFAULT_SPOOL, nd.node);
	if (mkdir_p(nd.spool, 0755) < 0)
		die("cannot create spool %s: %s", nd.spool, strerror(errno));
	if (hw_detect(&nd.hw, nd.conf, nd.node, &err) < 0)
		die("%s", err.text);

	if (!foreground)
		daemonize();
	if (conf_get(nd.conf, "SlurmdPidFile")) {
		char *path = noded_expand_path(conf_get(nd.conf, "SlurmdPidFile"), nd.node);
		write_pid_file(path);
		free(path);
	}
	signal(SIGPIPE, SIG_IGN);
	nd.start_time = time(NULL);
	nd.loop = uv_default_loop();
	nd.dest_ctld = auth_dest_ctld(conf_cluster_name(nd.conf));

	if (jobs_scan(&nd, &err) < 0) {
		log_error("%s", err.text);
		return 1;
	}
	mps_scan(&nd);

	char *dest = auth_dest_node(conf_cluster_name(nd.conf), nd.node);
	struct net_server_opts o = {
		.port = nd.cn->port,
		.dest = dest,
		.munge_socket = conf_munge_socket(nd.conf),
		.max_body = conf_get_int(nd.conf, "MaxMessageSize", 0),
		.handler = rpc_handle,
		.arg = &nd,
	};
	net_limits_from_conf(nd.conf, &o.limits);
	net_raise_nofile();
	if (!(nd.srv = listen_node(&nd, &o, &err))) {
		log_error("%s", err.text);
		return 1;
	}
	log_info("node %s: %d CPUs (%d sockets x %d cores x %d threads), %llu MB, listening on %s:%d",
		 nd.node, nd.hw.cpus, nd.hw.sockets, nd.hw.cores, nd.hw.threads,
		 (unsigned long long)nd.hw.memory_mb, o.host, nd.cn->port);

	uv_signal_t sigterm, sigint, sighup;
	uv_signal_init(nd.loop, &sigterm);
	uv_signal_init(nd.loop, &sigint);
	uv_signal_init(nd.loop, &sighup);
	sigterm.data = sigint.data = sighup.data = &nd;
	uv_signal_start(&sigterm, on_stop_signal, SIGTERM);
	uv_signal_start(&sigint, on_stop_signal, SIGINT);
	uv_signal_start(&sighup, on_hangup, SIGHUP);

	register_start(&nd);
	uv_run(nd.loop, UV_RUN_DEFAULT);

	/* Leave cleanly (sanitizer runs stay quiet); jobs are not touched. */
	net_server_stop(nd.srv);
	uv_close((uv_handle_t *)&sigterm, NULL);
	uv_close((uv_handle_t *)&sigint, NULL);
	uv_close((uv_handle_t *)&sighup, NULL);
	uv_close((uv_handle_t *)&nd.heartbeat, NULL);
	uv_close((uv_handle_t *)&nd.reaper, NULL);
	gpu_usage_close();
	uv_run(nd.loop, UV_RUN_NOWAIT);
	while (nd.jobs)
		jobs_remove(&nd, nd.jobs, false);
	mps_forget(&nd);
	free(dest);
	free(nd.dest_ctld);
	free(nd.spool);
	free(nd.stepd_path);
	free(nd.conf_path);
	free((char *)nd.node);
	free(log_file);
	free(pid_file);
	hw_release(&nd.hw);
	conf_destroy(nd.conf);
	log_info("stopped");
	return 0;
}
