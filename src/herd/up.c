/* `herd up`: start a whole cluster on this machine in one directory: MUNGE
 * (when none answers on the default socket), herdctld and N herdd, then wait
 * until every node is IDLE and print the environment for a shell to eval.
 * The programs run from a copy in DIR/bin, which every user can reach.
 * doc/conf.md lists the configuration it writes. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pwd.h>
#include <fcntl.h>
#include "common/auth.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/xmalloc.h"
#include "herd/herd.h"

#define UP_MAX_NODES 512

struct up_opts {
	int nodes;
	const char *dir_arg;
	int cpus;              /* per node; 0 = this machine's online CPUs */
	long memory_mb;        /* per node; 0 = 90% of this machine's memory */
	const char *partition;
	int timeout_s;
	struct up_gpus gpus;   /* --gpus, --gpu-type, --gpu-nvml */
};

struct cluster {
	char *dir;             /* absolute */
	char *conf_path;
	char *name;            /* ClusterName */
	char *munge_socket;    /* our own munged's socket, or NULL for the default */
	char *bindir, *sbindir;
	char *fake_nvml;       /* the tests' libnvidia-ml.so.1 (--gpu-nvml) */
	int ctld_port;
	int *node_ports;
	struct pid_entry *started;   /* what this run started, to stop it on failure */
	size_t nstarted;
};

static void cluster_release(struct cluster *c)
{
	free(c->dir), free(c->conf_path), free(c->name), free(c->munge_socket);
	free(c->bindir), free(c->sbindir), free(c->node_ports), free(c->started);
	free(c->fake_nvml);
	memset(c, 0, sizeof(*c));
}

static void up_usage(FILE *f)
{
	fputs("Usage: herd up --nodes N --dir DIR [--cpus C] [--memory MB] [--partition NAME]\n"
	      "               [--timeout SECONDS] [--gpus G [--gpu-type T] [--gpu-nvml]]\n"
	      "Start a cluster of N nodes on this machine in DIR and print, for a shell to\n"
	      "eval, the HERD_CONF and PATH that reach it:\n"
	      "  eval \"$(herd up --nodes 4 --dir /tmp/c1)\"\n"
	      "--gpus G gives every node G fake GPUs (device files in DIR/dev, gres.conf,\n"
	      "Gres=gpu[:T]:G); --gpu-nvml reports them through the fake NVML instead.\n",
	      f);
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* mkdir that accepts an existing directory and fixes its mode. */
static int make_dir(const char *path, mode_t mode, struct herd_error *err)
{
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		return errprintf(err, "cannot create %s: %s", path, strerror(errno));
	if (chmod(path, mode) < 0)
		return errprintf(err, "cannot chmod %s: %s", path, strerror(errno));
	return 0;
}

static int make_dirs_p(const char *path, struct herd_error *err)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s && rc == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			rc = errprintf(err, "cannot create %s: %s", p, strerror(errno));
		*s = '/';
	}
	if (rc == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
		rc = errprintf(err, "cannot create %s: %s", p, strerror(errno));
	free(p);
	return rc;
}

/* ClusterName: the directory's base name (lower case, [a-z0-9_]) and a hash of
 * its absolute path, so two clusters never share a name and hence never accept
 * each other's credentials (the name is part of every credential's destination). */
static char *cluster_name(const char *dir)
{
	const char *base = strrchr(dir, '/');
	uint32_t h = 2166136261u;
	char prefix[17];
	size_t n = 0;

	for (const char *s = dir; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	base = base ? base + 1 : dir;
	for (; *base && n < sizeof(prefix) - 1; base++) {
		char c = *base;
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
			prefix[n++] = c;
	}
	prefix[n] = '\0';
	return xasprintf("%s%s%08x", n ? prefix : "herd", "-", h);
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static long default_memory_mb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long kb = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %ld kB", &kb) == 1)
				break;
		fclose(f);
	}
	/* Below what the node daemon will find, so no node reports less memory
	 * than configured. */
	return kb > 0 ? kb / 1024 * 9 / 10 : 1024;
}

static bool munge_answers(const char *socket)
{
	munge_ctx_t ctx = munge_ctx_create();
	char *cred = NULL;
	munge_err_t e;

	if (!ctx)
		return false;
	if (socket && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return false;
	}
	e = munge_encode(&cred, ctx, NULL, 0);
	free(cred);
	munge_ctx_destroy(ctx);
	return e == EMUNGE_SUCCESS;
}

static void started_add(struct cluster *c, pid_t pid, const char *name)
{
	struct pid_entry *e;

	c->started = xrealloc(c->started, (c->nstarted + 1) * sizeof(*c->started));
	e = &c->started[c->nstarted++];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->start = proc_start_time(pid);
	snprintf(e->name, sizeof(e->name), "%s", name);
}

static pid_t start_daemon(struct cluster *c, char *const argv[], const char *name,
			  const char *out_path, char *const more_env[], struct herd_error *err)
{
	char *env_conf = xasprintf("HERD_CONF=%s", c->conf_path);
	char *extra[8] = {env_conf, NULL};
	for (int i = 0; more_env && more_env[i] && i < 6; i++)
		extra[i + 1] = more_env[i];
	pid_t pid = proc_spawn(argv, out_path, extra, err);

	free(env_conf);
	if (pid < 0)
		return -1;
	started_add(c, pid, name);
	if (pids_record(c->dir, pid, name, err) < 0)
		return -1;
	return pid;
}

/* Our own munged, for a machine without one: a fresh key, everything under
 * DIR/munge.  The directory stays 0755 so other users reach the socket; the
 * key is 0400. */
static int start_munge(struct cluster *c, struct herd_error *err)
{
	char *mdir = xasprintf("%s/munge", c->dir);
	char *key = xasprintf("%s/munge.key", mdir);
	char *sock = xasprintf("%s/munge.sock", mdir);
	char *a_sock = xasprintf("--socket=%s", sock);
	char *a_key = xasprintf("--key-file=%s", key);
	char *a_pid = xasprintf("--pid-file=%s/munged.pid", mdir);
	char *a_log = xasprintf("--log-file=%s/munged.log", mdir);
	char *a_seed = xasprintf("--seed-file=%s/munged.seed", mdir);
	char *log = xasprintf("%s/munged.log", mdir);
	char *argv[] = {"/usr/sbin/munged", "--foreground", a_sock, a_key, a_pid, a_log,
			a_seed, "--num-threads=4", "--force", NULL};
	int rc = -1;

	if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		errprintf(err, "--dir is too long: MUNGE's socket path would have %zu bytes, the limit is %zu",
			  strlen(sock), sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		goto out;
	}
	if (make_dir(mdir, 0755, err) < 0)
		goto out;
	if (access(key, F_OK) < 0) {
		unsigned char buf[1024];
		int in = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		int fd = open(key, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
		if (in < 0 || fd < 0 || read(in, buf, sizeof(buf)) != sizeof(buf) ||
		    write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			errprintf(err, "cannot create the MUNGE key %s: %s", key, strerror(errno));
			if (in >= 0)
				close(in);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(in);
		if (close(fd) < 0) {
			errprintf(err, "cannot write %s: %s", key, strerror(errno));
			goto out;
		}
	}
	if (start_daemon(c, argv, "munged", log, NULL, err) < 0)
		goto out;
	for (int i = 0; i < 200; i++) {
		if (munge_answers(sock)) {
			c->munge_socket = sock;
			sock = NULL;
			rc = 0;
			goto out;
		}
		usleep(50000);
	}
	errprintf(err, "munged did not answer on %s within 10 s (see %s)", sock, log);
out:
	free(mdir), free(key), free(sock), free(a_sock), free(a_key), free(a_pid);
	free(a_log), free(a_seed), free(log);
	return rc;
}

static bool port_taken(const struct cluster *c, int nodes, int port)
{
	if (port == c->ctld_port)
		return true;
	for (int i = 0; i < nodes; i++)
		if (c->node_ports[i] == port)
			return true;
	return false;
}

static int pick_ports(struct cluster *c, int nodes, struct herd_error *err)
{
	c->node_ports = xmalloc(nodes * sizeof(int));
	c->ctld_port = net_free_port();
	if (c->ctld_port <= 0)
		return errprintf(err, "cannot find a free TCP port on 127.0.0.1");
	for (int i = 0; i < nodes; i++) {
		int port, tries = 0;
		do {
			port = net_free_port();
			if (port <= 0 || ++tries > 100)
				return errprintf(err, "cannot find a free TCP port on 127.0.0.1");
		} while (port_taken(c, i, port));
		c->node_ports[i] = port;
	}
	return 0;
}

/* A gres.conf an earlier `herd up --gpus` wrote goes with its GPUs. */
static int drop_our_gres_conf(const char *dir, struct herd_error *err)
{
	char *path = xasprintf("%s/gres.conf", dir), line[80] = "";
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (f) {
		if (fgets(line, sizeof(line), f) && !strncmp(line, "# Written by `herd up --gpus`", 29) &&
		    unlink(path) < 0)
			rc = errprintf(err, "cannot remove %s: %s", path, strerror(errno));
		fclose(f);
	}
	free(path);
	return rc;
}

static int write_conf(const struct cluster *c, const struct up_opts *o, struct herd_error *err)
{
	char *tmp = xasprintf("%s.tmp", c->conf_path);
	struct passwd *pw = getpwuid(getuid());
	FILE *f = fopen(tmp, "w");
	int cpus = o->cpus ? o->cpus : online_cpus();
	long mem = o->memory_mb ? o->memory_mb : default_memory_mb();
	const char *d = c->dir;

	if (!f) {
		errprintf(err, "cannot write %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	fprintf(f, "# Written by `herd up` (doc/conf.md).  `herd up` rewrites it on every start.\n");
	fprintf(f, "ClusterName=%s\n", c->name);
	fprintf(f, "SlurmctldHost=localhost(127.0.0.1)\n");
	fprintf(f, "SlurmctldPort=%d\n", c->ctld_port);
	fprintf(f, "SlurmUser=%s\n", pw ? pw->pw_name : "root");
	if (c->munge_socket)
		fprintf(f, "AuthInfo=socket=%s\n", c->munge_socket);
	fprintf(f, "StateSaveLocation=%s/state\n", d);
	fprintf(f, "SlurmdSpoolDir=%s/spool/%%n\n", d);
	fprintf(f, "SlurmctldLogFile=%s/log/herdctld.log\n", d);
	fprintf(f, "SlurmdLogFile=%s/log/herdd-%%n.log\n", d);
	fprintf(f, "SlurmctldPidFile=%s/run/herdctld.pid\n", d);
	fprintf(f, "SlurmdPidFile=%s/run/herdd-%%n.pid\n", d);
	/* Short timers: a test cluster should notice a dead node and finish a
	 * cancel in seconds, not Slurm's production defaults (300 s, 30 s). */
	fprintf(f, "SlurmdTimeout=10\n");
	fprintf(f, "ReturnToService=2\n");   /* a restarted herdd brings its node back */
	fprintf(f, "KillWait=5\n");
	fprintf(f, "MinJobAge=300\n");
	if (o->gpus.count || o->gpus.real)
		fprintf(f, "GresTypes=gpu\n");
	for (int i = 0; i < o->nodes; i++) {
		fprintf(f, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=%ld", i + 1,
			c->node_ports[i], cpus, mem);
		if (o->gpus.count || o->gpus.real)
			fprintf(f, " Gres=gpu:%s%s%d", o->gpus.type ? o->gpus.type : "",
				o->gpus.type ? ":" : "", o->gpus.count ? o->gpus.count : o->gpus.real);
		fprintf(f, "\n");
	}
	fprintf(f, "PartitionName=%s Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n",
		o->partition);
	if (fclose(f) != 0 || chmod(tmp, 0644) < 0 || rename(tmp, c->conf_path) < 0) {
		errprintf(err, "cannot write %s: %s", c->conf_path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* A program of the cluster: in DIR/bin (herd_install_programs put it
 * there), else in ../sbin of herd's own directory. */
static char *find_program(const struct cluster *c, const char *name)
{
	char *p = xasprintf("%s/%s", c->bindir, name);

	if (access(p, X_OK) == 0)
		return p;
	free(p);
	p = xasprintf("%s/%s", c->sbindir, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xasprintf("%s/%s", c->bindir, name);   /* spawn reports it missing */
}

/* The first daemon we started that has exited, or NULL. */
static const char *dead_daemon(struct cluster *c, int *status)
{
	for (size_t i = 0; i < c->nstarted; i++) {
		pid_t r = waitpid(c->started[i].pid, status, WNOHANG);
		if (r == c->started[i].pid) {
			c->started[i].start = 0;
			return c->started[i].name;
		}
		if (c->started[i].start == 0)
			return c->started[i].name;
	}
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Poll NODE_INFO until every node is IDLE and responding.  On timeout, err
 * says what was still wrong. */
static int wait_idle(struct cluster *c, int nodes, int timeout_s, struct herd_error *err)
{
	char *dest = auth_dest_ctld(c->name);
	struct net_target to = {"127.0.0.1", c->ctld_port, dest, c->munge_socket};
	struct timespec t0, now;
	struct herd_error last = {"herdctld did not answer"};
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		json_t *body = json_object(), *reply = NULL, *list;
		struct herd_error e = {""};
		const char *dead;
		int status = 0;

		if (net_call(&to, MSG_NODE_INFO, body, 2000, &reply, &e) == 0) {
			if (msg_reply_rc(reply, &e) == 0 &&
			    json_is_array(list = json_object_get(reply, "nodes"))) {
				size_t i, idle = 0, used;
				json_t *n;
				used = snprintf(last.text, sizeof(last.text), "herdctld knows %zu of %d nodes; not idle:",
						json_array_size(list), nodes);
				json_array_foreach(list, i, n) {
					const char *st = json_string_value(json_object_get(n, "state"));
					const char *nm = json_string_value(json_object_get(n, "name"));
					bool drain = json_is_true(json_object_get(n, "drain"));
					bool silent = json_is_true(json_object_get(n, "not_responding"));
					if (st && !strcmp(st, "IDLE") && !drain && !silent) {
						idle++;
						continue;
					}
					if (used < sizeof(last.text))
						used += snprintf(last.text + used, sizeof(last.text) - used,
								 " %s %s%s%s", nm ? nm : "?", st ? st : "?",
								 drain ? "+DRAIN" : "", silent ? "*" : "");
				}
				if (idle == (size_t)nodes && json_array_size(list) == (size_t)nodes) {
					json_decref(reply);
					json_decref(body);
					rc = 0;
					break;
				}
			} else {
				snprintf(last.text, sizeof(last.text), "NODE_INFO failed: %.120s", e.text);
			}
			json_decref(reply);
		} else {
			snprintf(last.text, sizeof(last.text), "herdctld does not answer: %.120s", e.text);
		}
		json_decref(body);
		if ((dead = dead_daemon(c, &status))) {
			errprintf(err, "%s exited (%s %d) before the cluster was up", dead,
				  WIFSIGNALED(status) ? "signal" : "status",
				  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= timeout_s) {
			errprintf(err, "the cluster was not up after %d s: %s", timeout_s, last.text);
			break;
		}
		sleep_ms(200);
	}
	free(dest);
	return rc;
}

/* Refuse to start twice in one directory. */
static int check_not_running(const char *dir, struct herd_error *err)
{
	size_t n;
	struct pid_entry *v = pids_load(dir, &n);
	char *path;

	for (size_t i = 0; i < n; i++)
		if (proc_alive(v[i].pid, v[i].start)) {
			errprintf(err, "%s already runs a cluster (%s, pid %d); run `herd down --dir %s` first",
				  dir, v[i].name, (int)v[i].pid, dir);
			free(v);
			return -1;
		}
	free(v);
	path = xasprintf("%s/%s", dir, HERD_PIDS_FILE);
	unlink(path);
	free(path);
	return 0;
}

/* Single-quote s for a POSIX shell. */
static void print_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

static int up_run(struct cluster *c, const struct up_opts *o, struct herd_error *err)
{
	char path[PATH_MAX], *sub, *ctld, *noded, *log;

	if (make_dirs_p(o->dir_arg, err) < 0)
		return -1;
	if (!realpath(o->dir_arg, path))
		return errprintf(err, "%s: %s", o->dir_arg, strerror(errno));
	c->dir = xstrdup(path);
	/* World-traversable: users read herd.conf and reach the MUNGE socket;
	 * state/ stays private to the controller. */
	if (make_dir(c->dir, 0755, err) < 0)
		return -1;
	c->conf_path = xasprintf("%s/herd.conf", c->dir);
	c->name = cluster_name(c->dir);
	c->bindir = herd_bindir();
	if (!c->bindir)
		return errprintf(err, "cannot find herd's own directory (/proc/self/exe)");
	c->sbindir = xasprintf("%s/../sbin", c->bindir);
	c->fake_nvml = xasprintf("%s/../lib/fake-nvml/libnvidia-ml.so.1", c->bindir);
	if (o->gpus.nvml && access(c->fake_nvml, R_OK) < 0)
		return errprintf(err, "--gpu-nvml: no fake NVML at %s (make builds it)", c->fake_nvml);

	const char *subdirs[][2] = {{"state", "0700"}, {"spool", "0755"}, {"log", "0755"},
				    {"run", "0755"}};
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		sub = xasprintf("%s/%s", c->dir, subdirs[i][0]);
		int rc = make_dir(sub, strtol(subdirs[i][1], NULL, 8), err);
		free(sub);
		if (rc < 0)
			return -1;
	}
	for (int i = 0; i < o->nodes; i++) {
		sub = xasprintf("%s/spool/n%d", c->dir, i + 1);
		int rc = make_dir(sub, 0755, err);
		free(sub);
		if (rc < 0)
			return -1;
	}
	if (check_not_running(c->dir, err) < 0)
		return -1;
	/* The programs the cluster runs, and its users, from DIR/bin (0755):
	 * where herd was built may be closed to them (a clone in a 0700 dir). */
	char *installed = herd_install_programs(c->dir, c->bindir, c->sbindir, err);
	if (!installed)
		return -1;
	free(c->bindir);
	c->bindir = installed;
	herd_warn_unreachable(c->dir);

	if (!munge_answers(NULL)) {
		fprintf(stderr, "herd: no munged answers on the default socket; starting one in %s/munge\n",
			c->dir);
		if (start_munge(c, err) < 0)
			return -1;
	}
	if (pick_ports(c, o->nodes, err) < 0 || write_conf(c, o, err) < 0)
		return -1;
	if (o->gpus.count ? up_gpus_make(c->dir, o->nodes, &o->gpus, err) < 0
			  : o->gpus.real ? up_gpus_real(c->dir, err) < 0
			  : drop_our_gres_conf(c->dir, err) < 0)
		return -1;

	ctld = find_program(c, "herdctld");
	noded = find_program(c, "herdd");
	/* In the foreground (-D) a daemon logs to stderr: send that to the log
	 * file the configuration names, so every message lands in one place. */
	log = xasprintf("%s/log/herdctld.log", c->dir);
	{
		char *argv[] = {ctld, "-D", "-f", c->conf_path, NULL};
		if (start_daemon(c, argv, "herdctld", log, NULL, err) < 0)
			goto fail;
	}
	for (int i = 0; i < o->nodes; i++) {
		char node[32];
		snprintf(node, sizeof(node), "n%d", i + 1);
		free(log);
		log = xasprintf("%s/log/herdd-%s.log", c->dir, node);
		char *argv[] = {noded, "-D", "-N", node, "-f", c->conf_path, NULL};
		char **env = o->gpus.nvml ? up_gpus_env(c->dir, i + 1, c->fake_nvml) : NULL;
		pid_t pid = start_daemon(c, argv, "herdd", log, env, err);
		for (int k = 0; env && env[k]; k++)
			free(env[k]);
		free(env);
		if (pid < 0)
			goto fail;
	}
	free(log), free(ctld), free(noded);
	return wait_idle(c, o->nodes, o->timeout_s, err);
fail:
	free(log), free(ctld), free(noded);
	return -1;
}

int herd_up_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"nodes", required_argument, NULL, 'N'},
		{"dir", required_argument, NULL, 'd'},
		{"cpus", required_argument, NULL, 'c'},
		{"memory", required_argument, NULL, 'm'},
		{"partition", required_argument, NULL, 'p'},
		{"timeout", required_argument, NULL, 't'},
		{"gpus", required_argument, NULL, 'G'},
		{"gpu-type", required_argument, NULL, 'T'},
		{"gpu-nvml", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct up_opts o = {.nodes = 0, .partition = "debug", .timeout_s = 30};
	struct cluster c = {0};
	struct herd_error err = {""};
	long v;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "N:d:c:m:p:t:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'N':
			if (parse_int(optarg, 1, UP_MAX_NODES, &v) < 0)
				goto bad_value;
			o.nodes = v;
			break;
		case 'd':
			o.dir_arg = optarg;
			break;
		case 'c':
			if (parse_int(optarg, 1, 1 << 20, &v) < 0)
				goto bad_value;
			o.cpus = v;
			break;
		case 'm':
			if (parse_int(optarg, 1, 1L << 40, &v) < 0)
				goto bad_value;
			o.memory_mb = v;
			break;
		case 'p':
			o.partition = optarg;
			if (!*optarg || strpbrk(optarg, " \t=#,"))
				goto bad_value;
			break;
		case 't':
			if (parse_int(optarg, 1, 3600, &v) < 0)
				goto bad_value;
			o.timeout_s = v;
			break;
		case 'G':
			if (parse_int(optarg, 1, 64, &v) < 0)
				goto bad_value;
			o.gpus.count = v;
			break;
		case 'T':
			o.gpus.type = optarg;
			if (!*optarg || strlen(optarg) > 60 || optarg[strspn(optarg,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")])
				goto bad_value;
			break;
		case 'V':
			o.gpus.nvml = true;
			break;
		case 'h':
			up_usage(stdout);
			return 0;
		default:
			up_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !o.nodes || !o.dir_arg) {
		fprintf(stderr, "herd: up: %s\n",
			optind < argc ? "unexpected argument" : "--nodes and --dir are required");
		up_usage(stderr);
		return 2;
	}
	if ((o.gpus.type || o.gpus.nvml) && !o.gpus.count) {
		fprintf(stderr, "herd: up: --gpu-type and --gpu-nvml need --gpus\n");
		return 2;
	}
	if (!o.gpus.count)
		up_gpus_detect(&o.gpus);   /* a machine with GPUs: every node has them */
	if (up_run(&c, &o, &err) < 0) {
		fprintf(stderr, "herd: error: %s\n", err.text);
		if (c.nstarted) {
			fprintf(stderr, "herd: logs: %s/log/herdctld.log %s/log/herdd-*.log", c.dir, c.dir);
			if (!strcmp(c.started[0].name, "munged"))
				fprintf(stderr, " %s/munge/munged.log", c.dir);
			fprintf(stderr, "\nherd: stopping the %zu processes this run started\n", c.nstarted);
			proc_stop_all(c.started, c.nstarted, 3000);
		}
		cluster_release(&c);
		return 1;
	}
	fprintf(stderr, "herd: cluster %s is up: %d nodes, controller on 127.0.0.1:%d\n", c.name,
		o.nodes, c.ctld_port);
	if (o.gpus.count)
		fprintf(stderr, "herd: each node has %d fake GPUs (%s/dev/<node>, %s)\n", o.gpus.count,
			c.dir, o.gpus.nvml ? "the fake NVML" : "gres.conf");
	else if (o.gpus.real)
		fprintf(stderr, "herd: NVML reports %d GPUs here: every node has them (gres.conf "
			"AutoDetect=nvml)\n", o.gpus.real);
	fputs("export HERD_CONF=", stdout);
	print_quoted(c.conf_path);
	fputs("\nexport PATH=", stdout);
	print_quoted(c.bindir);
	fputs(":\"$PATH\"\n", stdout);
	cluster_release(&c);
	return 0;
bad_value:
	fprintf(stderr, "herd: up: invalid value '%s' for --%s\n", optarg,
		ch == 'N' ? "nodes" : ch == 'c' ? "cpus" : ch == 'm' ? "memory" :
		ch == 'p' ? "partition" : ch == 'G' ? "gpus" : ch == 'T' ? "gpu-type" : "timeout");
	return 2;
}
