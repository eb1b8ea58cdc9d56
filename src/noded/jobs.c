/* The jobs on this node and the spool that outlives herdd.  Each job's batch
 * step has a directory SlurmdSpoolDir/jobNNNNN, each of its other steps
 * jobNNNNN.S, holding launch.json, herdstepd.pid and
 * the control socket ctl.sock (see src/stepd/ctl.c for its protocol).  A
 * restarted herdd finds its jobs again from these directories: the pid file
 * names the herdstepd, and /proc/PID/cmdline proves the pid was not reused. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "common/fs.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"

#define JOBS_CONTROL_TIMEOUT_MS 5000

char *noded_expand_path(const char *pattern, const char *node)
{
	char host[256] = "";
	size_t cap = strlen(pattern) + 1, len = 0;
	char *out;

	gethostname(host, sizeof(host) - 1);
	cap += 4 * (strlen(node) + strlen(host));
	out = xmalloc(cap);
	for (const char *p = pattern; *p; p++) {
		const char *sub = NULL;
		if (p[0] == '%' && p[1] == 'n')
			sub = node;
		else if (p[0] == '%' && p[1] == 'h')
			sub = host;
		if (sub) {
			size_t n = strlen(sub);
			if (len + n + 1 > cap) {
				cap = (len + n + 1) * 2;
				out = xrealloc(out, cap);
			}
			memcpy(out + len, sub, n);
			len += n;
			p++;
			continue;
		}
		if (len + 2 > cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		out[len++] = *p;
	}
	out[len] = '\0';
	return out;
}

struct noded_job *jobs_find(struct noded *nd, uint32_t job_id, uint32_t step_id)
{
	for (struct noded_job *j = nd->jobs; j; j = j->next)
		if (j->job_id == job_id && j->step_id == step_id)
			return j;
	return NULL;
}

struct noded_job *jobs_next_of(struct noded *nd, uint32_t job_id, struct noded_job *after)
{
	for (struct noded_job *j = after ? after->next : nd->jobs; j; j = j->next)
		if (j->job_id == job_id)
			return j;
	return NULL;
}

struct noded_job *jobs_add(struct noded *nd, uint32_t job_id, uint32_t step_id, const char *dir)
{
	struct noded_job *j = xmalloc(sizeof(*j));
	j->job_id = job_id;
	j->step_id = step_id;
	j->dir = xstrdup(dir);
	j->pending_kill_wait = -1;
	j->next = nd->jobs;
	nd->jobs = j;
	return j;
}

/* A job directory holds only plain files and the socket. */
void jobs_remove_dir(const char *dir)
{
	if (fs_remove_flat_dir(dir) < 0)
		log_error("cannot remove %s: %s", dir, strerror(errno));
}

void jobs_remove(struct noded *nd, struct noded_job *job, bool remove_dir)
{
	for (struct noded_job **p = &nd->jobs; *p; p = &(*p)->next) {
		if (*p == job) {
			*p = job->next;
			break;
		}
	}
	if (remove_dir)
		jobs_remove_dir(job->dir);
	gpu_usage_free(job);
	free(job->dir);
	free(job);
}

bool jobs_stepd_alive(pid_t pid, const char *dir)
{
	char path[64], buf[8192];
	size_t n;
	FILE *f;
	bool name = false, arg = false;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		const char *a = buf + i, *base = strrchr(a, '/');
		if (i == 0)
			name = !strcmp(base ? base + 1 : a, "herdstepd");
		else if (!strcmp(a, dir))
			arg = true;
	}
	return name && arg;
}

static pid_t jobs_read_pid(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, NODED_PID_FILE);
	FILE *f = fopen(path, "re");
	int pid = 0;

	free(path);
	if (!f)
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid;
}

/* A herdstepd that finishes removes its directory: one still there with its
 * launch file was killed (or crashed) before the end. */
static bool jobs_unfinished(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, NODED_LAUNCH_FILE);
	bool there = access(path, F_OK) == 0;
	free(path);
	return there;
}

void jobs_reap(struct noded *nd)
{
	struct noded_job *j = nd->jobs, *next;

	for (; j; j = next) {
		next = j->next;
		if (j->pid == 0)   /* still starting: launch.c owns it */
			continue;
		if (!jobs_stepd_alive(j->pid, j->dir)) {
			if (j->step_id == NODED_BATCH_STEP)
				log_info("job %u: herdstepd %d has ended", j->job_id, (int)j->pid);
			else
				log_info("step %u.%u: herdstepd %d has ended", j->job_id, j->step_id,
					 (int)j->pid);
			if (jobs_unfinished(j->dir))
				reclaim_step(nd, j->job_id, j->step_id);
			gpu_usage_report(nd, j);
			jobs_remove(nd, j, true);
		}
	}
}

int jobs_scan(struct noded *nd, struct herd_error *err)
{
	DIR *d = opendir(nd->spool);
	struct dirent *e;

	if (!d)
		return errprintf(err, "cannot read spool %s: %s", nd->spool, strerror(errno));
	while ((e = readdir(d))) {
		unsigned job_id, step_id = NODED_BATCH_STEP;
		char tail;
		int n = sscanf(e->d_name, "job%u.%u%c", &job_id, &step_id, &tail);
		/* jobNNNNN is the batch step, jobNNNNN.S step S */
		if (n == 1) {
			if (sscanf(e->d_name, "job%u%c", &job_id, &tail) != 1)
				continue;
			step_id = NODED_BATCH_STEP;
		} else if (n != 2) {
			continue;
		}
		if (job_id == 0)
			continue;
		char *dir = xasprintf("%s/%s", nd->spool, e->d_name);
		pid_t pid = jobs_read_pid(dir);
		if (jobs_stepd_alive(pid, dir) && !jobs_find(nd, job_id, step_id)) {
			struct noded_job *j = jobs_add(nd, job_id, step_id, dir);
			j->pid = pid;
			/* its GPUs are sampled again from now (launch.json: herdd's own
			 * file, in its root-owned spool) */
			char *path = xasprintf("%s/%s", dir, NODED_LAUNCH_FILE);
			json_t *launch = json_load_file(path, 0, NULL);
			if (launch)
				gpu_usage_watch(nd, j, launch);
			json_decref(launch);
			free(path);
			if (step_id == NODED_BATCH_STEP)
				log_info("job %u: herdstepd %d still runs it", job_id, (int)pid);
			else
				log_info("step %u.%u: herdstepd %d still runs it", job_id, step_id, (int)pid);
		} else {
			log_info("job %u: removing the spool of an ended job", job_id);
			if (jobs_unfinished(dir))
				reclaim_step(nd, job_id, step_id);
			jobs_remove_dir(dir);
		}
		free(dir);
	}
	closedir(d);
	return 0;
}

json_t *jobs_ids(struct noded *nd)
{
	json_t *ids = json_array();
	for (struct noded_job *j = nd->jobs; j; j = j->next) {
		bool seen = false;
		if (j->pid <= 0)
			continue;
		for (struct noded_job *k = nd->jobs; k != j && !seen; k = k->next)
			seen = k->job_id == j->job_id && k->pid > 0;
		if (!seen)
			json_array_append_new(ids, json_integer(j->job_id));
	}
	return ids;
}

json_t *jobs_steps(struct noded *nd)
{
	json_t *steps = json_array();
	for (struct noded_job *j = nd->jobs; j; j = j->next)
		if (j->pid > 0 && j->step_id != NODED_BATCH_STEP)
			json_array_append_new(steps, json_pack("[I, I]", (json_int_t)j->job_id,
							       (json_int_t)j->step_id));
	return steps;
}

static int64_t jobs_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int jobs_control(struct noded_job *job, const json_t *request, struct herd_error *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char reply[4096], *text = NULL;
	size_t len = 0;
	int dirfd_ = -1, fd = -1, rc = -1;
	int64_t deadline = jobs_now_ms() + JOBS_CONTROL_TIMEOUT_MS;
	json_t *obj = NULL;

	/* /proc/self/fd/N keeps the socket path short whatever the spool's length */
	dirfd_ = open(job->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_ < 0) {
		errprintf(err, "%s: %s", job->dir, strerror(errno));
		goto out;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/proc/self/fd/%d/%s", dirfd_, NODED_CTL_SOCKET);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		errprintf(err, "herdstepd of job %u does not answer: %s", job->job_id, strerror(errno));
		goto out;
	}
	text = json_dumps(request, JSON_COMPACT);
	size_t tlen = strlen(text);
	text = xrealloc(text, tlen + 2);
	text[tlen++] = '\n';
	for (size_t off = 0; off < tlen;) {
		ssize_t n = write(fd, text + off, tlen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errprintf(err, "herdstepd of job %u: %s", job->job_id, strerror(errno));
			goto out;
		}
		off += n;
	}
	while (!memchr(reply, '\n', len)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - jobs_now_ms();
		if (left <= 0 || poll(&pfd, 1, left) <= 0) {
			errprintf(err, "herdstepd of job %u did not answer in time", job->job_id);
			goto out;
		}
		ssize_t n = read(fd, reply + len, sizeof(reply) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || len + n >= sizeof(reply) - 1) {
			errprintf(err, "herdstepd of job %u closed the control socket", job->job_id);
			goto out;
		}
		len += n;
	}
	obj = json_loadb(reply, (char *)memchr(reply, '\n', len) - reply, 0, NULL);
	if (!json_is_integer(json_object_get(obj, "rc"))) {
		errprintf(err, "herdstepd of job %u sent a bad answer", job->job_id);
		goto out;
	}
	rc = json_integer_value(json_object_get(obj, "rc"));
out:
	json_decref(obj);
	free(text);
	if (fd >= 0)
		close(fd);
	if (dirfd_ >= 0)
		close(dirfd_);
	return rc;
}
