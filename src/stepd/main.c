/* herdstepd: runs one batch job on one node for herdd, then reports its end to
 * the controller.  It lives in its own session and does not need herdd after
 * it has started: herdd may restart, the job keeps running.
 *   herdstepd -f CONF -N NODE [-v...] [-r FD] JOBDIR
 * JOBDIR holds launch.json (written by herdd); FD, when given, gets "ok\n" once
 * the job's shell has started, or an error sentence. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/net.h"
#include "common/xmalloc.h"
#include "stepd/step.h"
#include "stepd/oci.h"
#include "stepd/stepd.h"

static void usage(void)
{
	fputs("Usage: herdstepd -f CONF -N NODE [-v...] [-r FD] JOBDIR\n", stderr);
	exit(2);
}

/* SlurmdLogFile may hold %n (node name) and %h (host name), as in Slurm. */
static char *stepd_expand_node_path(const char *path, const char *node)
{
	char host[256] = "";
	char *out = xmalloc(strlen(path) * 64 + 1), *o = out;

	gethostname(host, sizeof(host) - 1);
	for (const char *p = path; *p; p++) {
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h')) {
			const char *s = p[1] == 'n' ? node : host;
			size_t n = strlen(s) < 63 ? strlen(s) : 63;
			memcpy(o, s, n);
			o += n;
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

void stepd_ready(struct stepd *sd, const char *text)
{
	if (sd->ready_fd < 0)
		return;
	if (write(sd->ready_fd, text, strlen(text)) < 0)
		log_error("cannot tell herdd: %s", strerror(errno));
	close(sd->ready_fd);
	sd->ready_fd = -1;
}

static int stepd_write_pid(struct stepd *sd, struct herd_error *err)
{
	char tmp[64], buf[32];
	int fd, n;

	snprintf(tmp, sizeof(tmp), "%s.tmp", STEPD_PID_FILE);
	fd = openat(sd->job_dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errprintf(err, "%s/%s: %s", sd->job_dir, tmp, strerror(errno));
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, n) != n || close(fd) < 0 ||
	    renameat(sd->job_dir_fd, tmp, sd->job_dir_fd, STEPD_PID_FILE) < 0)
		return errprintf(err, "%s/%s: %s", sd->job_dir, STEPD_PID_FILE, strerror(errno));
	return 0;
}

static int stepd_resolve_user(struct stepd *sd, struct herd_error *err)
{
	const struct launch *l = &sd->launch;
	struct passwd *pw = getpwuid(l->uid);
	int n = 64;

	if (!pw)
		return errprintf(err, "user %s (uid %d) is unknown on node %s", l->user, l->uid,
				 sd->node);
	sd->home = xstrdup(pw->pw_dir);
	sd->shell = xstrdup(pw->pw_shell);
	for (;;) {
		sd->groups = xrealloc(sd->groups, n * sizeof(gid_t));
		int got = n;
		if (getgrouplist(pw->pw_name, l->gid, sd->groups, &got) >= 0) {
			sd->ngroups = got;
			break;
		}
		if (got <= n)
			return errprintf(err, "groups of user %s: cannot be read", pw->pw_name);
		n = got;
	}
	return 0;
}

static void stepd_free(struct stepd *sd)
{
	step_free(sd);
	oci_free(sd);
	cgroup_step_destroy(sd->cg);
	sd->cg = NULL;
	if (sd->cgconf_loaded)
		cgroup_conf_free(&sd->cgconf);
	launch_free(&sd->launch);
	conf_destroy(sd->conf);
	free(sd->conf_path);
	free(sd->node);
	free(sd->job_dir);
	free(sd->spool);
	free(sd->home);
	free(sd->shell);
	free(sd->groups);
	free(sd->std_out);
	free(sd->std_err);
	free(sd->std_in);
	free(sd->script_path);
	if (sd->job_dir_fd >= 0)
		close(sd->job_dir_fd);
}

int main(int argc, char **argv)
{
	struct stepd sd = { .job_dir_fd = -1, .ready_fd = -1 };
	struct herd_error err = { "" };
	enum log_level level = LOG_LVL_INFO;
	int verbose = 0, ready_fd = -1, opt;
	char *log_file = NULL, *launch_path = NULL;

	while ((opt = getopt(argc, argv, "f:N:r:v")) != -1) {
		switch (opt) {
		case 'f': sd.conf_path = xstrdup(optarg); break;
		case 'N': sd.node = xstrdup(optarg); break;
		case 'r': ready_fd = atoi(optarg); break;
		case 'v': verbose++; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !sd.node)
		usage();
	sd.job_dir = xstrdup(argv[optind]);
	sd.spool = xstrdup(sd.job_dir);
	char *last = strrchr(sd.spool, '/');
	if (last)
		*last = '\0';
	else
		strcpy(sd.spool, ".");
	if (ready_fd >= 0 && fcntl(ready_fd, F_SETFD, FD_CLOEXEC) == 0)
		sd.ready_fd = ready_fd;

	/* herdd's death or a terminal must not take the job down */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	umask(077);
	net_restore_nofile();   /* herdd's raised limit is not the jobs' */

	sd.conf = conf_load(sd.conf_path, &err);
	if (!sd.conf)
		goto error;
	if (conf_get(sd.conf, "SlurmdDebug"))
		level = log_level_parse(conf_get(sd.conf, "SlurmdDebug"));
	if (verbose)
		level = LOG_LVL_DEBUG;
	if (conf_get(sd.conf, "SlurmdLogFile"))
		log_file = stepd_expand_node_path(conf_get(sd.conf, "SlurmdLogFile"), sd.node);
	if (log_init("herdstepd", level, log_file) < 0)
		log_init("herdstepd", level, NULL);
	if (!sd.conf_path)
		sd.conf_path = xstrdup(sd.conf->path);

	/* Orphans of the job reparent to us, so the whole tree stays visible
	 * and killable (see proctree.h). */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		errprintf(&err, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
		goto error;
	}
	sd.job_dir_fd = open(sd.job_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sd.job_dir_fd < 0) {
		errprintf(&err, "%s: %s", sd.job_dir, strerror(errno));
		goto error;
	}
	launch_path = xasprintf("%s/%s", sd.job_dir, STEPD_LAUNCH_FILE);
	if (launch_load(launch_path, &sd.launch, &err) < 0 || stepd_resolve_user(&sd, &err) < 0 ||
	    stepd_write_pid(&sd, &err) < 0)
		goto error;

	/* cgroup.conf lives beside the configuration file, as in Slurm */
	char *conf_dir = xstrdup(sd.conf_path);
	char *slash = strrchr(conf_dir, '/');
	if (slash)
		*slash = '\0';
	int cgrc = cgroup_conf_load(slash ? conf_dir : ".", &sd.cgconf, &err);
	free(conf_dir);
	if (cgrc < 0)
		goto error;
	sd.cgconf_loaded = true;

	sd.loop = uv_default_loop();
	if (!(sd.ctl = ctl_start(&sd, &err)))
		goto error;
	if (sd.launch.step) {
		/* herdd hears "ok" once srun is reached and the tasks forked (step.c) */
		if (step_start(&sd, &err) < 0)
			goto error;
		log_info("step %u.%u: starting on %s", sd.launch.job_id, sd.launch.step->step_id, sd.node);
	} else {
		if (job_start(&sd, &err) < 0)
			goto error;
		stepd_ready(&sd, "ok\n");
		log_info("job %u: running on %s", sd.launch.job_id, sd.node);
	}
	uv_run(sd.loop, UV_RUN_DEFAULT);
	log_debug("job %u: herdstepd exits", sd.launch.job_id);
	int code = sd.exit_code;
	stepd_free(&sd);
	free(log_file);
	free(launch_path);
	return code;

error:
	log_error("job %u: launch failed: %s", sd.launch.job_id, err.text);
	stepd_ready(&sd, err.text);
	stepd_free(&sd);
	free(log_file);
	free(launch_path);
	return 1;
}
