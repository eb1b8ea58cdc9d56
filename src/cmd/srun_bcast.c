/* srun --bcast (srun_bcast.h).  The copying is an ordinary step of the
 * job, one task per node, run as the job's owner (so it writes only where
 * the owner may): each task reads srun's stdin, which is the program (or a
 * tar of its libraries), through gunzip with --compress. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/srun_alloc.h"
#include "cmd/srun_bcast.h"
#include "cmd/srun_io.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

#define LIBS_MAX 1024
#define LDD_MAX (1u << 20)

/* Each node's copy.  $1 the destination (ending in '/': Slurm's
 * slurm_bcast_<job>.<step>_<node> in that directory, <step> $4 or this
 * step's), $2 "z" when the stream is gzip's, $3 "libs" when it is a tar of
 * libraries for <destination>_libs.  The program is written beside its
 * destination and renamed: whole, even where the nodes share a file
 * system. */
static const char bcast_script[] =
	"f=$1 id=${4:-$SLURM_STEP_ID}\n"
	"case $f in */) f=\"${f}slurm_bcast_${SLURM_JOB_ID}.${id}_$SLURMD_NODENAME\";; esac\n"
	"if [ \"$2\" = z ]; then in='gzip -dc'; else in=cat; fi\n"
	"if [ \"$3\" = libs ]; then mkdir -p \"${f}_libs\" && $in | tar -xf - -C \"${f}_libs\"; exit; fi\n"
	"t=\"$f.herd_bcast.$$\"\n"
	"$in > \"$t\" && chmod 700 \"$t\" && mv -f \"$t\" \"$f\" || { rm -f \"$t\"; exit 1; }\n";

/* The program's path as srun would run it: as given when it names a
 * directory, else the first match on PATH.  NULL when none is a file. */
static char *program_path(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, R_OK) == 0 ? xstrdup(prog) : NULL;
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *dir ? dir : ".", prog);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, R_OK) == 0)
			found = full;
		else
			free(full);
	}
	free(copy);
	return found;
}

/* A word of BcastParameters: "key=value"'s value (key "DestDir"), or for a
 * flag word ("send_libs") "" when present; NULL when absent. */
static char *bcast_param(const struct conf *conf, const char *key)
{
	const char *params = conf_get(conf, "BcastParameters");
	size_t n = strlen(key);
	for (const char *p = params; p && *p; p += strcspn(p, ","), p += *p == ',') {
		if (strncasecmp(p, key, n))
			continue;
		if (p[n] == '=')
			return xstrndup(p + n + 1, strcspn(p + n + 1, ","));
		if (p[n] == ',' || !p[n])
			return xstrdup("");
	}
	return NULL;
}

/* argv run with stdin in (-1: /dev/null); its stdout's read end, *pid. */
static int spawn(char *const argv[], int in, pid_t *pid)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((*pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (*pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(in >= 0 ? in : null, 0);
		dup2(fds[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	return fds[0];
}

/* Is the library's path under one of the comma-separated directories? */
static bool excluded(const char *lib, const char *dirs)
{
	if (!strcasecmp(dirs, "none"))
		return false;
	for (const char *p = dirs; *p; p += strcspn(p, ","), p += *p == ',') {
		size_t n = strcspn(p, ",");
		while (n > 1 && p[n - 1] == '/')
			n--;
		if (n && !strncmp(lib, p, n) && lib[n] == '/')
			return true;
	}
	return false;
}

/* --send-libs: the program's shared libraries (ldd's) not under exclude,
 * as "-C dir name" words for tar; NULL when there are none. */
static char **libs_of(const char *path, const char *exclude)
{
	char *argv[] = { "ldd", (char *)path, NULL };
	pid_t pid;
	int fd = spawn(argv, -1, &pid);
	struct strbuf out = { 0 };
	char buf[4096];
	ssize_t got;
	if (fd < 0)
		return NULL;
	while ((got = read(fd, buf, sizeof(buf))) > 0 && out.len < LDD_MAX)
		strbuf_add(&out, buf, (size_t)got);
	close(fd);
	waitpid(pid, NULL, 0);
	char **words = NULL;
	size_t n = 0;
	for (char *line = out.s, *save = NULL; (line = strtok_r(line, "\n", &save)); line = NULL) {
		char *arrow = strstr(line, "=> "), *lib = arrow ? arrow + 3 : line + strspn(line, " \t");
		lib[strcspn(lib, " \t")] = '\0';
		if (lib[0] != '/' || excluded(lib, exclude) || n / 3 >= LIBS_MAX)
			continue;
		char *slash = strrchr(lib, '/');
		words = xrealloc(words, (n + 4) * sizeof(*words));
		words[n++] = xstrdup("-C");
		words[n++] = slash == lib ? xstrdup("/") : xstrndup(lib, (size_t)(slash - lib));
		words[n++] = xstrdup(slash + 1);
		words[n] = NULL;
	}
	free(out.s);
	return words;
}

/* One copying step: stdin is in for its while.  0, or -1 after printing. */
static int copy_step(struct cmd_client *c, long long job_id, long long nodes, const char *host,
		     const char *cwd, char *const *args, int in, long long *step_id)
{
	struct herd_error err = { "" };
	struct srun_io_opts io_opts = { .quiet = true, .stdin_task = SRUN_STDIN_ALL, .kill_wait = 30 };
	struct srun_io *io = srun_io_create(host, &io_opts, &err);
	json_t *spec = NULL, *layout = NULL;
	struct jobopt b;
	int rc = -1, saved = -1;
	char *path_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	char *argv[] = { "/bin/sh", "-c", (char *)bcast_script, "herd_bcast", args[0], args[1],
			 args[2], args[3], NULL };

	jobopt_init(&b, JOBOPT_SRUN);
	if (!io) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	jobopt_set(&b, "nodes", json_integer(nodes));
	jobopt_set(&b, "ntasks", json_integer(nodes));
	jobopt_set(&b, "ntasks_per_node", json_integer(1));
	jobopt_set(&b, "overlap", json_true());
	jobopt_set(&b, "gres_none", json_true());   /* copying needs no GPU */
	jobopt_set(&b, "stdin_task", json_integer(SRUN_STDIN_ALL));
	b.argv = argv;
	b.argc = 8;
	spec = srun_step_body(&b, "bcast", path_env, cwd, host, srun_io_port(io), srun_io_key(io), NULL);
	saved = dup(0);
	dup2(in, 0);
	layout = srun_step_create(c, &b, job_id, spec, NULL);
	if (!layout)
		goto out;
	if (srun_io_set_step(io, job_id, layout, c, &err) < 0) {
		fprintf(stderr, "srun: error: %s\n", err.text);
		goto out;
	}
	*step_id = cmd_jint(layout, "step_id");
	rc = srun_io_run(io) ? -1 : 0;
out:
	if (saved >= 0) {
		dup2(saved, 0);
		close(saved);
	}
	srun_io_destroy(io);
	json_decref(layout);
	json_decref(spec);
	jobopt_free(&b);
	return rc;
}

/* LD_LIBRARY_PATH in env with dir first. */
static void env_lib_path(char ***env, const char *dir)
{
	size_t n = 0;
	char **e = *env;
	for (; e && e[n]; n++)
		if (!strncmp(e[n], "LD_LIBRARY_PATH=", 16)) {
			char *old = e[n];
			e[n] = old[16] ? xasprintf("LD_LIBRARY_PATH=%s:%s", dir, old + 16)
				       : xasprintf("LD_LIBRARY_PATH=%s", dir);
			free(old);
			return;
		}
	e = xrealloc(e, (n + 2) * sizeof(*e));
	e[n] = xasprintf("LD_LIBRARY_PATH=%s", dir);
	e[n + 1] = NULL;
	*env = e;
}

static const char run_copy[] =
	"f=\"$0\"slurm_bcast_$HERD_BCAST_ID\"_$SLURMD_NODENAME\"; unset HERD_BCAST_ID\n"
	"[ -z \"$HERD_BCAST_LIBS\" ] || export LD_LIBRARY_PATH=\"${f}_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"\n"
	"unset HERD_BCAST_LIBS; exec \"$f\" \"$@\"\n";

int srun_bcast(struct cmd_client *c, struct jobopt *o, long long job_id, const char *host,
	       const char *cwd, char ***env, char ***argv_out)
{
	struct herd_error err = { "" };
	const char *dest = jobopt_str(o, "bcast"), *zip_arg = jobopt_str(o, "compress");
	const char *libs_arg = jobopt_str(o, "send-libs"), *exclude = jobopt_str(o, "bcast-exclude");
	char *conf_dir = bcast_param(c->conf, "DestDir"), *conf_zip = bcast_param(c->conf, "Compression");
	char *conf_libs = bcast_param(c->conf, "send_libs");
	char *path = program_path(o->argv[0]), *dir = NULL, **libs = NULL;
	bool compress = zip_arg ? strcasecmp(zip_arg, "none") != 0
				: conf_zip && strcasecmp(conf_zip, "none") != 0;
	bool send_libs = libs_arg ? strcasecmp(libs_arg, "no") != 0 : conf_libs != NULL;
	json_t *reply = NULL;
	int rc = -1, in = -1, zin = -1;
	pid_t pid = 0, zpid = 0;
	long long step_id = 0, libs_step = 0;

	if (!path) {
		fprintf(stderr, "srun: error: --bcast: %s: no such file to copy\n", o->argv[0]);
		goto out;
	}
	if (!dest || !*dest)   /* srun(1): BcastParameters=DestDir, else --chdir */
		dest = dir = xasprintf("%s/", conf_dir ? conf_dir : cwd);
	json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)job_id);
	int call = cmd_call(c, MSG_JOB_INFO, body, &reply, &err);
	json_decref(body);
	long long nodes = cmd_jint(json_array_get(json_object_get(reply, "jobs"), 0), "num_nodes");
	if (call != 0 || nodes < 1) {
		fprintf(stderr, "srun: error: --bcast: job %lld: %s\n", job_id, call ? err.text : "no nodes");
		goto out;
	}
	char *zip_argv[] = { "gzip", "-c", NULL };
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in >= 0 && compress && (zin = spawn(zip_argv, in, &zpid)) < 0) {
		close(in);
		in = -1;
	}
	if (in < 0) {
		fprintf(stderr, "srun: error: --bcast: %s: %s\n", path, strerror(errno));
		goto out;
	}
	char *args[] = { (char *)dest, compress ? "z" : "", "", "" };
	if (copy_step(c, job_id, nodes, host, cwd, args, zin >= 0 ? zin : in, &step_id) < 0) {
		fprintf(stderr, "srun: error: --bcast: copying %s to %s failed\n", path, dest);
		goto out;
	}
	if (!exclude)   /* srun(1): --bcast-exclude, else BcastExclude, else Slurm's */
		exclude = conf_get(c->conf, "BcastExclude");
	if (send_libs)
		libs = libs_of(path, exclude ? exclude : "/lib,/usr/lib,/lib64,/usr/lib64");
	if (libs) {
		/* the libraries, one tar for all: named as they are, in <dest>_libs */
		size_t n = 0;
		while (libs[n])
			n++;
		char **tar = xmalloc((n + 4) * sizeof(*tar)), id[32];
		tar[0] = "tar";
		tar[1] = "-chf";
		tar[2] = "-";
		memcpy(tar + 3, libs, (n + 1) * sizeof(*tar));
		if (zin >= 0)
			close(zin);
		zin = -1;
		if (zpid > 0)
			waitpid(zpid, NULL, 0);
		zpid = 0;
		close(in);
		in = spawn(tar, -1, &pid);
		free(tar);
		if (in >= 0 && compress)
			zin = spawn(zip_argv, in, &zpid);
		snprintf(id, sizeof(id), "%lld", step_id);
		char *largs[] = { (char *)dest, compress ? "z" : "", "libs", id };
		if (in < 0 || copy_step(c, job_id, nodes, host, cwd, largs, zin >= 0 ? zin : in,
					&libs_step) < 0) {
			fprintf(stderr, "srun: error: --bcast: copying %s's libraries failed\n", path);
			goto out;
		}
	}
	if (dest[strlen(dest) - 1] != '/') {
		o->argv[0] = (char *)dest;
		if (libs) {
			char *lib_dir = xasprintf("%s_libs", dest);
			env_lib_path(env, lib_dir);
			free(lib_dir);
		}
	} else {
		/* each node's own name: run by a shell that knows SLURMD_NODENAME */
		char **w = xmalloc((o->argc + 7) * sizeof(*w)), id[64];
		snprintf(id, sizeof(id), "HERD_BCAST_ID=%lld.%lld", job_id, step_id);
		w[0] = "/usr/bin/env";
		w[1] = xstrdup(id);
		w[2] = libs ? "HERD_BCAST_LIBS=1" : "HERD_BCAST_LIBS=";
		w[3] = "/bin/sh";
		w[4] = "-c";
		w[5] = (char *)run_copy;
		w[6] = xstrdup(dest);
		for (int i = 1; i < o->argc; i++)
			w[i + 6] = o->argv[i];
		w[o->argc + 6] = NULL;
		o->argv = w;
		o->argc += 6;
		*argv_out = w;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (zin >= 0)
		close(zin);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (zpid > 0)
		waitpid(zpid, NULL, 0);
	for (size_t i = 0; libs && libs[i]; i++)
		free(libs[i]);
	free(libs);
	json_decref(reply);
	free(path);
	free(dir);
	free(conf_dir);
	free(conf_zip);
	free(conf_libs);
	return rc;
}

void srun_bcast_free(char **argv)
{
	if (!argv)
		return;
	free(argv[1]);
	free(argv[6]);
	free(argv);
}
