/* Running tasks in OCI bundles (oci.h).  The user's bundle is opened and
 * read only in the task's child after it became the user, the bundle
 * itself with O_NOFOLLOW (a link is refused) and checked to be the user's
 * (or root's: an image the site provides).  The generated config.json is
 * the bundle's with Slurm's changes: the rootfs made absolute, the task's
 * command, environment and terminal, the step's spool directory mounted at
 * MountSpoolDir, the user namespace mapping the container's user to the
 * job's user (rootless), DisableHooks' hooks gone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/oci.h"
#include "stepd/oci_conf.h"
#include "stepd/stepd.h"

#define OCI_CONFIG_MAX_BYTES (4 << 20)
#define OCI_WAIT_MS 30000         /* RunTimeDelete's time */
#define OCI_QUERY_EVERY_MS 200

struct oci_task {
	bool prepared;
	bool ended;
	int task_id;
	char *dir;                /* %b */
	char *dir_name;           /* its name in the spool directory; NULL: ContainerPath's */
	char *env_file;           /* %e ("" when CreateEnvFile is disabled) */
	char **env;               /* the runtime commands' environment */
};

struct oci {
	struct oci_conf conf;
	bool loaded;
	char problem[256];        /* why no task can run in a container ("" = none) */
	char *spool_root;         /* %m */
	struct oci_task *tasks;
	size_t ntasks;
};

const char *oci_bundle(const struct stepd *sd)
{
	const struct launch *l = &sd->launch;
	const char *b = l->step ? l->step->container : l->container;
	return b && *b ? b : NULL;
}

const char *oci_mount_spool_dir(const struct stepd *sd)
{
	const struct oci *o = sd->oci;
	return o && o->conf.mount_spool_dir ? o->conf.mount_spool_dir : OCI_MOUNT_SPOOL_DEFAULT;
}

static uint32_t oci_step_id(const struct stepd *sd)
{
	return sd->launch.step ? sd->launch.step->step_id : LAUNCH_BATCH_STEP;
}

void oci_start(struct stepd *sd, size_t ntasks)
{
	struct herd_error err = { "" };
	struct oci *o;

	if (!oci_bundle(sd) || sd->oci)
		return;
	o = xmalloc(sizeof(*o));
	sd->oci = o;
	o->tasks = xmalloc((ntasks ? ntasks : 1) * sizeof(*o->tasks));
	o->ntasks = ntasks;
	const char *slash = strrchr(sd->job_dir, '/');
	o->spool_root = slash ? xstrndup(sd->job_dir, (size_t)(slash - sd->job_dir)) : xstrdup(".");
	int rc = oci_conf_load(sd->conf_path, &o->conf, &err);
	if (rc == 1) {
		/* Slurm 22.05 logs "No oci.conf file" and runs the task on the
		 * host; newer ones refuse, which is what a user asking for a
		 * container must get. */
		log_error("job %u: No oci.conf file: --container %s refused", sd->launch.job_id,
			  oci_bundle(sd));
		snprintf(o->problem, sizeof(o->problem), "Container support is not configured");
	} else if (rc < 0) {
		log_error("job %u: %s", sd->launch.job_id, err.text);
		snprintf(o->problem, sizeof(o->problem), "%s", err.text);
	} else {
		o->loaded = true;
	}
}

static struct oci_pattern_ctx oci_ctx(const struct stepd *sd, const struct oci_task *t)
{
	return (struct oci_pattern_ctx){
		.bundle = t->dir, .env_file = t->env_file, .spool = sd->oci->spool_root,
		.node = sd->node, .user = sd->launch.user, .job_id = sd->launch.job_id,
		.step_id = oci_step_id(sd), .task_id = t->task_id, .uid = (uid_t)sd->launch.uid,
		.pid = getpid(),
	};
}

void oci_prepare_task(struct stepd *sd, size_t local, int task_id, char *const *env)
{
	struct oci *o = sd->oci;
	struct oci_task *t;
	size_t n = 0;

	if (!o || local >= o->ntasks)
		return;
	t = &o->tasks[local];
	t->prepared = true;
	t->task_id = task_id;
	if (!o->loaded)
		return;
	if (o->conf.container_path) {
		struct oci_pattern_ctx c = oci_ctx(sd, t);
		t->dir = oci_pattern(o->conf.container_path, &c, false);   /* made by the user */
	} else {
		/* in the step's spool (root's, 0711): the user cannot rename it,
		 * and root removes it by name there, never following a link */
		if (sd->launch.step)
			t->dir_name = xasprintf("oci-task-%d", task_id);
		else
			t->dir_name = xstrdup("oci-batch");
		t->dir = xasprintf("%s/%s", sd->job_dir, t->dir_name);
		if (mkdirat(sd->job_dir_fd, t->dir_name, 0700) < 0 && errno != EEXIST)
			log_error("job %u: mkdir %s: %s", sd->launch.job_id, t->dir, strerror(errno));
		else if (fchownat(sd->job_dir_fd, t->dir_name, sd->launch.uid, sd->launch.gid,
				  AT_SYMLINK_NOFOLLOW) < 0)
			log_error("job %u: chown %s: %s", sd->launch.job_id, t->dir, strerror(errno));
	}
	t->env_file = o->conf.env_file == OCI_ENV_DISABLED ? xstrdup("")
							   : xasprintf("%s/environment", t->dir);
	while (env && env[n])
		n++;
	t->env = xmalloc((n + 1) * sizeof(char *));
	n = 0;
	for (size_t i = 0; env && env[i]; i++)
		if (oci_env_kept(o->conf.has_runtime_env_exclude ? &o->conf.runtime_env_exclude : NULL,
				 env[i]))
			t->env[n++] = xstrdup(env[i]);
}

/* ---- the child: the user's bundle to the task's config.json ---------------- */

/* Child only: the bundle's config.json, opened as the user below a bundle
 * directory that is not a link and is the user's (or root's). */
static json_t *oci_read_bundle(const char *bundle, uid_t uid, char *why, size_t size)
{
	struct stat st;
	char *text = NULL;
	json_t *cfg = NULL;
	json_error_t jerr;
	int dfd = -1, fd = -1;
	size_t len = 0;

	if (lstat(bundle, &st) == 0 && S_ISLNK(st.st_mode)) {
		snprintf(why, size, "container bundle %s is a symbolic link", bundle);
		return NULL;
	}
	dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, size, "container bundle %s: %s", bundle,
			 errno == ELOOP ? "is a symbolic link" : strerror(errno));
		goto out;
	}
	if (fstat(dfd, &st) < 0) {
		snprintf(why, size, "container bundle %s: %s", bundle, strerror(errno));
		goto out;
	}
	if (st.st_uid != uid && st.st_uid != 0) {
		snprintf(why, size, "container bundle %s is owned by uid %u, not by the job's user (uid %u)",
			 bundle, (unsigned)st.st_uid, (unsigned)uid);
		goto out;
	}
	fd = openat(dfd, "config.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, size, "container bundle %s: config.json: %s", bundle,
			 errno == ELOOP ? "is a symbolic link" : strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > OCI_CONFIG_MAX_BYTES) {
		snprintf(why, size, "container bundle %s: config.json: not a regular file of at most %d bytes",
			 bundle, OCI_CONFIG_MAX_BYTES);
		goto out;
	}
	text = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	cfg = json_loadb(text, len, 0, &jerr);
	if (!cfg)
		snprintf(why, size, "container bundle %s: config.json: line %d: %s", bundle, jerr.line,
			 jerr.text);
	else if (!json_is_object(cfg)) {
		snprintf(why, size, "container bundle %s: config.json: not a JSON object", bundle);
		json_decref(cfg);
		cfg = NULL;
	}
out:
	free(text);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return cfg;
}

static json_t *oci_obj(json_t *parent, const char *key)
{
	json_t *v = json_object_get(parent, key);
	if (!json_is_object(v)) {
		v = json_object();
		json_object_set_new(parent, key, v);
	}
	return v;
}

static json_t *oci_strv(char *const *v, const regex_t *exclude)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		if (oci_env_kept(exclude, v[i]))
			json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The bundle's config.json made the task's; rootfs gets the absolute path
 * of the root (%r).  -1 with why. */
static int oci_edit(struct stepd *sd, json_t *cfg, const char *bundle, char **argv, char **env,
		    bool terminal, char **rootfs, char *why, size_t size)
{
	const struct oci_conf *oc = &sd->oci->conf;
	json_t *root = oci_obj(cfg, "root"), *process = oci_obj(cfg, "process");
	const char *path = json_string_value(json_object_get(root, "path"));

	if (!path || !*path) {
		snprintf(why, size, "container bundle %s: config.json has no root.path", bundle);
		return -1;
	}
	*rootfs = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", bundle, path);
	json_object_set_new(root, "path", json_string(*rootfs));
	json_object_set_new(process, "args", oci_strv(argv, NULL));
	json_object_set_new(process, "env",
			    oci_strv(env, oc->has_env_exclude ? &oc->env_exclude : NULL));
	json_object_set_new(process, "terminal", json_boolean(terminal));

	/* the step's spool directory (the batch script is there) */
	json_t *mounts = json_object_get(cfg, "mounts");
	if (!json_is_array(mounts)) {
		mounts = json_array();
		json_object_set_new(cfg, "mounts", mounts);
	}
	json_array_append_new(mounts, json_pack("{s:s, s:s, s:s, s:[s, s]}", "destination",
						oc->mount_spool_dir, "type", "none", "source",
						sd->job_dir, "options", "bind", "rw"));
	json_t *hooks = json_object_get(cfg, "hooks");
	for (size_t i = 0; json_is_object(hooks) && i < oc->ndisable_hooks; i++)
		json_object_del(hooks, oc->disable_hooks[i]);

	/* Rootless: the container's user is the job's user outside, nobody
	 * else (the bundle may have been made by another uid). */
	if (sd->launch.uid != 0) {
		json_t *linux_ = oci_obj(cfg, "linux"), *ns = json_object_get(linux_, "namespaces"), *v;
		json_t *user = oci_obj(process, "user");
		bool has_user_ns = false;
		size_t i;
		if (!json_is_array(ns)) {
			ns = json_array();
			json_object_set_new(linux_, "namespaces", ns);
		}
		json_array_foreach(ns, i, v)
			if (!strcmp(json_string_value(json_object_get(v, "type")) ?: "", "user"))
				has_user_ns = true;
		if (!has_user_ns)
			json_array_append_new(ns, json_pack("{s:s}", "type", "user"));
		json_int_t cuid = json_integer_value(json_object_get(user, "uid"));
		json_int_t cgid = json_integer_value(json_object_get(user, "gid"));
		json_object_set_new(linux_, "uidMappings",
				    json_pack("[{s:I, s:I, s:i}]", "containerID", cuid, "hostID",
					      (json_int_t)sd->launch.uid, "size", 1));
		json_object_set_new(linux_, "gidMappings",
				    json_pack("[{s:I, s:I, s:i}]", "containerID", cgid, "hostID",
					      (json_int_t)sd->launch.gid, "size", 1));
		json_object_del(user, "additionalGids");   /* unmapped: the runtime would refuse */
	}
	return 0;
}

/* Child only: write a new file the user owns (no link followed). */
static int oci_write(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

/* Child only: mkdir -p as the user, each new level 0700. */
static int oci_mkdirs(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

static int oci_write_env_file(const struct oci_conf *oc, const char *path, char **env)
{
	struct strbuf b = { 0 };
	strbuf_adds(&b, "");
	for (size_t i = 0; env && env[i]; i++) {
		if (!oci_env_kept(oc->has_env_exclude ? &oc->env_exclude : NULL, env[i]))
			continue;
		if (oc->env_file == OCI_ENV_NEWLINE) {
			if (strchr(env[i], '\n'))   /* as Slurm: dropped */
				continue;
			strbuf_adds(&b, env[i]);
			strbuf_adds(&b, "\n");
		} else {
			strbuf_add(&b, env[i], strlen(env[i]) + 1);
		}
	}
	int rc = oci_write(path, b.s, b.len);
	free(b.s);
	return rc;
}

/* Child only: /bin/sh -c cmd with env; its stdout into out (-1: ours), and
 * returns its wait status (-1 when it could not run). */
static int oci_sh(const char *cmd, char **env, int out, bool quiet)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (out >= 0)
			dup2(out, 1);
		if (quiet) {
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0)
				dup2(null, 2);
		}
		char *argv[] = { "sh", "-c", (char *)cmd, NULL };
		execve("/bin/sh", argv, env);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* Child only: RunTimeQuery's "status" ("" when it said nothing readable),
 * and its "pid" into *pid when asked (0 when none). */
static void oci_query(const char *cmd, char **env, char *state, size_t size, pid_t *pid_out)
{
	int p[2];
	char buf[65536];
	size_t len = 0;
	ssize_t n;

	state[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		char *argv[] = { "sh", "-c", (char *)cmd, NULL };
		execve("/bin/sh", argv, env);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 && (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	json_t *j = json_loadb(buf, len, 0, NULL);
	snprintf(state, size, "%s", json_string_value(json_object_get(j, "status")) ?: "");
	if (pid_out) {
		json_int_t v = json_integer_value(json_object_get(j, "pid"));
		*pid_out = v > 1 && v < INT_MAX ? (pid_t)v : 0;
	}
	json_decref(j);
}

/* Child only: end as the container's process ended (a signal as a shell
 * reports it, 128 + N, which is what RunTimeRun's runc and crun exit with). */
static void oci_exit_as(int status)
{
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Child only: the wait status of the container's process (its pid from
 * RunTimeQuery) once it has ended, reaping whatever else of the runtime's
 * was left to us; false while it runs, or when it is not ours to wait for. */
static bool oci_reaped(pid_t init, bool block, int *status)
{
	pid_t r;
	int st;
	while ((r = waitpid(-1, &st, WNOHANG)) > 0 || (r < 0 && errno == EINTR))
		if (r == init && init > 0) {
			*status = st;
			return true;
		}
	if (!block || init <= 0)
		return false;
	while ((r = waitpid(init, &st, 0)) < 0 && errno == EINTR)
		;
	if (r != init)
		return false;   /* not our child: the runtime keeps it elsewhere */
	*status = st;
	return true;
}

/* Child only: RunTimeCreate, RunTimeStart, then RunTimeQuery until the
 * container stopped; the task's end is then, with the exit status of the
 * container's process.  The runtime's state does not say it (OCI's state
 * has no exit code), so this process becomes the subreaper of what the
 * create command leaves behind: the container's process, its "pid" in
 * the state, is then its child once the create command is gone, and its
 * end is waited for as RunTimeRun's runtime would wait for it. */
static void oci_create_start(const struct oci_conf *oc, const struct oci_pattern_ctx *c, char **env)
{
	char *create = oci_pattern(oc->runtime_create, c, true);
	char *start = oci_pattern(oc->runtime_start, c, true);
	char *query = oci_pattern(oc->runtime_query, c, true);
	char state[64];
	pid_t init = 0;
	int status;

	signal(SIGCHLD, SIG_DFL);   /* waited for, not discarded */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		init = -1;   /* its end is then not ours to see: as before, 0 */
	status = oci_sh(create, env, -1, false);
	if (status != 0)
		_exit(status > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	if (init == 0)
		oci_query(query, env, state, sizeof(state), &init);   /* "created", and its pid */
	status = oci_sh(start, env, -1, false);
	if (status != 0)
		_exit(status > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	/* the container's own descriptors are its stdio now: ours go */
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	for (;;) {
		if (oci_reaped(init, false, &status))
			oci_exit_as(status);
		oci_query(query, env, state, sizeof(state), NULL);
		if (!state[0] || !strcmp(state, "stopped")) {
			if (oci_reaped(init, true, &status))
				oci_exit_as(status);
			_exit(0);   /* its process was not ours: its code is not known */
		}
		struct timespec ts = { 0, OCI_QUERY_EVERY_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
}

void oci_exec(struct stepd *sd, size_t local, char **argv, char **env, bool terminal, char *why,
	      size_t size)
{
	struct oci *o = sd->oci;
	struct oci_task *t = o && local < o->ntasks ? &o->tasks[local] : NULL;
	const char *given = oci_bundle(sd);
	char *bundle = NULL, *rootfs = NULL, *text = NULL, *path = NULL;
	json_t *cfg = NULL;

	if (!t || !t->prepared) {
		snprintf(why, size, "container: task not prepared");
		return;
	}
	if (!o->loaded) {
		snprintf(why, size, "%s", o->problem);
		return;
	}
	if (given[0] == '/') {
		bundle = xstrdup(given);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			snprintf(why, size, "container bundle %s: getcwd: %s", given, strerror(errno));
			return;
		}
		bundle = xasprintf("%s/%s", cwd, given);
	}
	cfg = oci_read_bundle(bundle, (uid_t)sd->launch.uid, why, size);
	if (!cfg)
		goto out;
	if (oci_edit(sd, cfg, bundle, argv, env, terminal, &rootfs, why, size) < 0)
		goto out;
	if (!t->dir_name && oci_mkdirs(t->dir) < 0) {
		snprintf(why, size, "ContainerPath %s: %s", t->dir, strerror(errno));
		goto out;
	}
	text = json_dumps(cfg, JSON_INDENT(1));
	path = xasprintf("%s/config.json", t->dir);
	if (!text || oci_write(path, text, strlen(text)) < 0) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (t->env_file[0] && oci_write_env_file(&o->conf, t->env_file, env) < 0) {
		snprintf(why, size, "%s: %s", t->env_file, strerror(errno));
		goto out;
	}
	struct oci_pattern_ctx c = oci_ctx(sd, t);
	c.rootfs = rootfs;
	c.argv = argv;
	if (!o->conf.runtime_run)
		oci_create_start(&o->conf, &c, t->env);   /* does not return */
	char *cmd = oci_pattern(o->conf.runtime_run, &c, true);
	char *sh_argv[] = { "sh", "-c", cmd, NULL };
	execve("/bin/sh", sh_argv, t->env);
	snprintf(why, size, "execve(): /bin/sh: %s", strerror(errno));
	free(cmd);
out:
	json_decref(cfg);
	free(text);
	free(path);
	free(rootfs);
	free(bundle);
}

/* ---- the parent: ending ---------------------------------------------------- */

/* Fork a child that becomes the user and runs pattern (sh -c), quiet;
 * then, when clean, removes the task's files.  Returns its pid, -1. */
static pid_t oci_spawn_op(struct stepd *sd, struct oci_task *t, const char *pattern, bool clean)
{
	struct oci_pattern_ctx c = oci_ctx(sd, t);
	char *cmd = oci_pattern(pattern, &c, true);
	pid_t pid = fork();

	if (pid < 0) {
		log_error("job %u: fork: %s", sd->launch.job_id, strerror(errno));
		free(cmd);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		task_reset_signals();
		if (task_become_user(sd) < 0)
			_exit(1);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		close_range(3, ~0u, 0);
		if (chdir("/") < 0)
			_exit(1);
		int status = oci_sh(cmd, t->env, -1, true);
		if (clean && !sd->oci->conf.disable_cleanup) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/config.json", t->dir);
			unlink(path);
			if (t->env_file[0])
				unlink(t->env_file);
			if (!t->dir_name)
				rmdir(t->dir);   /* ContainerPath's: the user's own */
		}
		_exit(status == 0 ? 0 : 1);
	}
	free(cmd);
	return pid;
}

void oci_task_ended(struct stepd *sd, size_t local)
{
	struct oci *o = sd->oci;
	struct oci_task *t = o && local < o->ntasks ? &o->tasks[local] : NULL;
	int status;

	if (!t || !t->prepared || t->ended || !o->loaded)
		return;
	t->ended = true;
	pid_t pid = oci_spawn_op(sd, t, o->conf.runtime_delete, true);
	for (int waited = 0; pid > 0; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (waited >= OCI_WAIT_MS) {
			log_error("job %u: RunTimeDelete of task %d still running after %d s: killed",
				  sd->launch.job_id, t->task_id, OCI_WAIT_MS / 1000);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (t->dir_name && !o->conf.disable_cleanup &&
	    unlinkat(sd->job_dir_fd, t->dir_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		log_error("job %u: rmdir %s: %s", sd->launch.job_id, t->dir, strerror(errno));
}

void oci_kill(struct stepd *sd)
{
	struct oci *o = sd->oci;

	if (!o || !o->loaded)
		return;
	for (size_t i = 0; i < o->ntasks; i++)
		if (o->tasks[i].prepared && !o->tasks[i].ended)
			oci_spawn_op(sd, &o->tasks[i], o->conf.runtime_kill, false);   /* reaped with the rest */
}

void oci_free(struct stepd *sd)
{
	struct oci *o = sd->oci;

	if (!o)
		return;
	for (size_t i = 0; i < o->ntasks; i++) {
		struct oci_task *t = &o->tasks[i];
		/* a task that never ran leaves its empty directory: herdd's
		 * clean-up of the spool removes files only */
		if (t->dir_name && !o->conf.disable_cleanup && sd->job_dir_fd >= 0)
			unlinkat(sd->job_dir_fd, t->dir_name, AT_REMOVEDIR);
		free(t->dir);
		free(t->dir_name);
		free(t->env_file);
		for (size_t k = 0; t->env && t->env[k]; k++)
			free(t->env[k]);
		free(t->env);
	}
	free(o->tasks);
	free(o->spool_root);
	oci_conf_free(&o->conf);
	free(o);
	sd->oci = NULL;
}
