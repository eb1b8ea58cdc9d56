/* herdd's MPS control daemons (doc/gres.md section 4): one
 * nvidia-cuda-mps-control per job and GPU that the job's LAUNCH gives `mps`
 * shares of here, running as the job's user, from the job's first launch on
 * this node until no herdstepd of the job is left here.  Its pipe and log
 * directories are SlurmdSpoolDir/mpsJJJJJ.G/{pipe,log}; herdstepd's env.c
 * points the tasks at them.  Not the shares' variables (gpu_env.c). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/noded.h"
#include "stepd/rmtree.h"

#define MPS_START_WAIT_MS 5000   /* `-d` forks the daemon and returns */
#define MPS_QUIT_WAIT_MS  5000   /* after "quit", before SIGKILL */
#define MPS_GIVE_UP_MS    5000   /* after SIGKILL, before the directory goes anyway */
#define MPS_PID_FILE      "nvidia-cuda-mps-control.pid"   /* NVIDIA's, in the pipe directory */
#define MPS_DEFAULT_PATH  "/usr/sbin:/usr/bin:/sbin:/bin"

struct mps_daemon {
	uint32_t job_id;
	int gpu;
	uid_t uid;
	gid_t gid;
	bool quitting;
	bool killed;
	pid_t quit_pid;          /* `echo quit | nvidia-cuda-mps-control`, 0 none (left) */
	pid_t daemon_pid;        /* from its pid file, 0 unknown */
	int64_t deadline_ms;
	struct mps_daemon *next;
};

static int64_t mps_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void mps_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int mps_launch_gpus(const json_t *launch, int *gpus, size_t max)
{
	const json_t *list = json_object_get(launch, "gres"), *rec;
	size_t i, n = 0;

	if (!json_is_array(list))
		return 0;
	json_array_foreach(list, i, rec) {
		const char *name = json_string_value(json_object_get(rec, "name"));
		const json_t *index = json_object_get(rec, "index");
		bool seen = false;
		if (!name || strcmp(name, "mps") || !json_is_integer(index) ||
		    json_integer_value(index) < 0 || json_integer_value(index) > MPS_GPU_MAX)
			continue;   /* herdstepd refuses a bad record with a sentence */
		int gpu = (int)json_integer_value(index);
		for (size_t k = 0; k < n && !seen; k++)
			seen = gpus[k] == gpu;
		if (!seen && n < max)
			gpus[n++] = gpu;
	}
	return (int)n;
}

char *mps_program_find(const char *path)
{
	char *copy = xstrdup(path && path[0] ? path : MPS_DEFAULT_PATH), *save = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;
		if (dir[0] != '/')
			continue;   /* "" and "." name the caller's directory: never */
		char *p = xasprintf("%s/%s", dir, MPS_PROGRAM);
		/* it runs as each job's user: no one else may have changed it */
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) &&
		    !(st.st_mode & 022) && (st.st_uid == 0 || st.st_uid == geteuid())) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

void mps_dir_name(char *buf, size_t len, uint32_t job_id, int gpu)
{
	snprintf(buf, len, MPS_DIR_FMT, (unsigned)job_id, gpu);
}

int mps_dir_create(int spool_fd, const char *name, uid_t uid, gid_t gid)
{
	int fd = -1, e;

	/* root's and closed while it is filled; the user's only at the end,
	 * so nothing of the user's is ever followed */
	if (mkdirat(spool_fd, name, 0700) < 0)
		return -1;
	fd = openat(spool_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || mkdirat(fd, "pipe", 0700) < 0 || mkdirat(fd, "log", 0700) < 0 ||
	    fchownat(fd, "pipe", uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchownat(fd, "log", uid, gid, AT_SYMLINK_NOFOLLOW) < 0 || fchown(fd, uid, gid) < 0)
		goto error;
	close(fd);
	return 0;
error:
	e = errno;
	if (fd >= 0)
		close(fd);
	rmtree_remove(spool_fd, name, uid);
	errno = e;
	return -1;
}

/* Start `program args...` as the user with env; its pid, or -1.  stdin_fd
 * (-1: /dev/null) becomes its standard input.  Everything the child needs
 * is made before fork: herdd has threads, the child may only make system
 * calls before exec. */
static pid_t mps_spawn(const char *program, const char *arg, char **env, uid_t uid, gid_t gid,
		       const gid_t *groups, int ngroups, int stdin_fd)
{
	char *argv[] = { (char *)program, (char *)arg, NULL };
	bool root = geteuid() == 0;
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid = fork();

	if (pid == 0) {
		int in = stdin_fd >= 0 ? stdin_fd : null_fd;
		if (in < 0 || dup2(in, 0) < 0 || setsid() < 0 || chdir("/") < 0)
			_exit(127);
		close_range(3, ~0U, 0);   /* none of herdd's descriptors goes to the user */
		if (root && (setgroups(ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0))
			_exit(127);
		if (root && uid != 0 && setuid(0) == 0)
			_exit(127);   /* root could be regained: not dropped */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		execve(program, argv, env);
		_exit(127);
	}
	if (null_fd >= 0)
		close(null_fd);
	return pid;
}

/* The user's groups, for the daemon (as a job's processes have them). */
static gid_t *mps_groups(uid_t uid, gid_t gid, int *n)
{
	struct passwd *pw = getpwuid(uid);
	int cap = 64;
	gid_t *g = NULL;

	*n = 0;
	if (!pw) {
		g = xmalloc(sizeof(*g));
		g[0] = gid;
		*n = 1;
		return g;
	}
	for (;;) {
		int got = cap;
		g = xrealloc(g, cap * sizeof(*g));
		if (getgrouplist(pw->pw_name, gid, g, &got) >= 0) {
			*n = got;
			return g;
		}
		if (got <= cap)
			got = cap * 2;
		cap = got;
	}
}

/* The environment the daemon and the quit client have: the GPU and the
 * directories, nothing of herdd's. */
static char **mps_env(struct noded *nd, const char *name, int gpu)
{
	char **env = xmalloc(6 * sizeof(*env));
	env[0] = xstrdup("PATH=/usr/bin:/bin");
	/* the index is NVML's (PCI bus order), not CUDA's default fastest-first */
	env[1] = xstrdup("CUDA_DEVICE_ORDER=PCI_BUS_ID");
	env[2] = xasprintf("CUDA_VISIBLE_DEVICES=%d", gpu);
	env[3] = xasprintf("CUDA_MPS_PIPE_DIRECTORY=%s/%s/pipe", nd->spool, name);
	env[4] = xasprintf("CUDA_MPS_LOG_DIRECTORY=%s/%s/log", nd->spool, name);
	return env;
}

static void mps_env_free(char **env)
{
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
}

static struct mps_daemon *mps_find(struct noded *nd, uint32_t job_id, int gpu)
{
	for (struct mps_daemon *d = nd->mps; d; d = d->next)
		if (d->job_id == job_id && d->gpu == gpu)
			return d;
	return NULL;
}

static struct mps_daemon *mps_add(struct noded *nd, uint32_t job_id, int gpu, uid_t uid, gid_t gid)
{
	struct mps_daemon *d = xmalloc(sizeof(*d));
	d->job_id = job_id;
	d->gpu = gpu;
	d->uid = uid;
	d->gid = gid;
	d->next = nd->mps;
	nd->mps = d;
	return d;
}

/* Is pid alive and the user's?  (The pid comes from a file the user may
 * write: root signals it only when it is one of the user's processes.) */
static bool mps_pid_is_users(pid_t pid, uid_t uid)
{
	char path[64], line[256];
	bool ok = false;
	FILE *f;

	if (pid <= 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned r, e, s, fs;
		if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &fs) == 4) {
			ok = r == uid && e == uid && s == uid;
			break;
		}
		if (!strncmp(line, "State:", 6) && strchr(line, 'Z'))
			break;   /* a zombie is gone */
	}
	fclose(f);
	return ok;
}

/* The daemon's pid from NVIDIA's pid file in the pipe directory, read
 * without following a name of the user's; 0 unknown. */
static pid_t mps_read_pid(struct noded *nd, const char *name)
{
	const int dir_flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char buf[32] = "";
	int spool = open(nd->spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dir = spool < 0 ? -1 : openat(spool, name, dir_flags);
	int pipe_dir = dir < 0 ? -1 : openat(dir, "pipe", dir_flags);
	/* O_NONBLOCK: a FIFO put there must not hang herdd */
	int fd = pipe_dir < 0 ? -1 : openat(pipe_dir, MPS_PID_FILE,
					    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int fds[] = { fd, pipe_dir, dir, spool };
	struct stat st;
	long pid = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		char *end;
		pid = strtol(buf, &end, 10);
		if (end == buf || pid <= 1 || pid > 1 << 22)
			pid = 0;
	}
	for (size_t k = 0; k < sizeof(fds) / sizeof(fds[0]); k++)
		if (fds[k] >= 0)
			close(fds[k]);
	return (pid_t)pid;
}

static void mps_remove(struct noded *nd, struct mps_daemon *d)
{
	char name[64];
	int spool = open(nd->spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	mps_dir_name(name, sizeof(name), d->job_id, d->gpu);
	if (spool < 0 || (rmtree_remove(spool, name, d->uid) < 0 && errno != ENOENT))
		log_error("job %u: cannot remove %s/%s: %s", d->job_id, nd->spool, name, strerror(errno));
	if (spool >= 0)
		close(spool);
	for (struct mps_daemon **p = &nd->mps; *p; p = &(*p)->next)
		if (*p == d) {
			*p = d->next;
			break;
		}
	free(d);
}

/* Start the daemon for (job, gpu); on any failure the job runs without
 * MPS (CUDA programs then use the GPU directly) and the log says why. */
static void mps_start(struct noded *nd, uint32_t job_id, int gpu, uid_t uid, gid_t gid)
{
	char name[64], *program = mps_program_find(getenv("PATH"));
	int spool = -1, status = 0, ngroups = 0;
	gid_t *groups = NULL;
	char **env = NULL;
	pid_t pid;

	if (!program) {
		log_warn("job %u: GPU %d has MPS shares but no %s is in herdd's PATH (%s): the job "
			 "runs without MPS", job_id, gpu, MPS_PROGRAM, getenv("PATH") ? getenv("PATH")
			 : MPS_DEFAULT_PATH);
		return;
	}
	if (geteuid() != 0 && geteuid() != uid) {
		log_warn("job %u: herdd is not root: no MPS daemon for GPU %d as uid %d", job_id, gpu,
			 (int)uid);
		goto out;
	}
	mps_dir_name(name, sizeof(name), job_id, gpu);
	spool = open(nd->spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (spool >= 0)
		rmtree_remove(spool, name, uid);   /* left by a daemon herdd lost track of */
	if (spool < 0 || mps_dir_create(spool, name, uid, gid) < 0) {
		log_error("job %u: cannot create %s/%s: %s: the job runs without MPS", job_id,
			  nd->spool, name, strerror(errno));
		goto out;
	}
	env = mps_env(nd, name, gpu);
	groups = mps_groups(uid, gid, &ngroups);
	pid = mps_spawn(program, "-d", env, uid, gid, groups, ngroups, -1);
	if (pid > 0) {
		int64_t deadline = mps_now_ms() + MPS_START_WAIT_MS;
		pid_t got;
		while ((got = waitpid(pid, &status, WNOHANG)) == 0 && mps_now_ms() < deadline)
			mps_sleep_ms(10);
		if (got == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
		}
	}
	if (pid < 0 || status != 0) {
		log_error("job %u: %s -d for GPU %d %s: the job runs without MPS", job_id, program, gpu,
			  pid < 0 ? strerror(errno) : status == -1 ? "did not return"
			  : "failed");
		rmtree_remove(spool, name, uid);
		goto out;
	}
	mps_add(nd, job_id, gpu, uid, gid);
	log_info("job %u: MPS control daemon for GPU %d started as uid %d (%s/%s)", job_id, gpu,
		 (int)uid, nd->spool, name);
out:
	if (spool >= 0)
		close(spool);
	if (env)
		mps_env_free(env);
	free(groups);
	free(program);
}

/* "quit" through the daemon's pipe, as NVIDIA says; the tick waits. */
static void mps_quit(struct noded *nd, struct mps_daemon *d)
{
	char name[64], *program = mps_program_find(getenv("PATH"));
	int fds[2] = { -1, -1 }, ngroups = 0;

	mps_dir_name(name, sizeof(name), d->job_id, d->gpu);
	d->quitting = true;
	d->deadline_ms = mps_now_ms() + MPS_QUIT_WAIT_MS;
	d->daemon_pid = mps_read_pid(nd, name);
	if (d->daemon_pid && !mps_pid_is_users(d->daemon_pid, d->uid))
		d->daemon_pid = 0;
	if (!program || pipe2(fds, O_CLOEXEC) < 0 || write(fds[1], "quit\n", 5) != 5) {
		log_error("job %u: cannot ask the MPS daemon of GPU %d to quit: %s", d->job_id, d->gpu,
			  program ? strerror(errno) : "no " MPS_PROGRAM " in herdd's PATH");
	} else {
		char **env = mps_env(nd, name, d->gpu);
		gid_t *groups = mps_groups(d->uid, d->gid, &ngroups);
		close(fds[1]);
		fds[1] = -1;
		d->quit_pid = mps_spawn(program, NULL, env, d->uid, d->gid, groups, ngroups, fds[0]);
		if (d->quit_pid < 0)
			d->quit_pid = 0;
		mps_env_free(env);
		free(groups);
	}
	for (int k = 0; k < 2; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	free(program);
	log_info("job %u: no step left here: MPS daemon of GPU %d (pid %d) told to quit", d->job_id,
		 d->gpu, (int)d->daemon_pid);
}

/* One quitting daemon: done when it and the quit client are gone; SIGKILL
 * once the wait is over; the directory goes in the end whatever is left. */
static void mps_step_quit(struct noded *nd, struct mps_daemon *d)
{
	int status;
	int64_t now = mps_now_ms();

	if (d->quit_pid && waitpid(d->quit_pid, &status, WNOHANG) != 0)
		d->quit_pid = 0;
	bool alive = d->daemon_pid && mps_pid_is_users(d->daemon_pid, d->uid);
	if (!alive && !d->quit_pid) {
		log_info("job %u: MPS daemon of GPU %d has stopped%s", d->job_id, d->gpu,
			 d->killed ? " (killed)" : "");
		mps_remove(nd, d);
		return;
	}
	if (now < d->deadline_ms)
		return;
	if (d->killed) {
		log_error("job %u: MPS daemon of GPU %d (pid %d) outlived SIGKILL: its directory goes",
			  d->job_id, d->gpu, (int)d->daemon_pid);
		if (d->quit_pid)
			waitpid(d->quit_pid, &status, 0);
		mps_remove(nd, d);
		return;
	}
	log_warn("job %u: MPS daemon of GPU %d did not quit in %d s: killed", d->job_id, d->gpu,
		 MPS_QUIT_WAIT_MS / 1000);
	if (alive)
		kill(d->daemon_pid, SIGKILL);
	if (d->quit_pid)
		kill(d->quit_pid, SIGKILL);
	d->killed = true;
	d->deadline_ms = now + MPS_GIVE_UP_MS;
}

void mps_launch(struct noded *nd, uint32_t job_id, const json_t *launch)
{
	int gpus[64];
	int n = mps_launch_gpus(launch, gpus, sizeof(gpus) / sizeof(gpus[0]));
	json_int_t uid = json_integer_value(json_object_get(launch, "uid"));
	json_int_t gid = json_integer_value(json_object_get(launch, "gid"));

	if (n == 0)
		return;
	if (!json_is_integer(json_object_get(launch, "uid")) || uid < 0 || uid >= (uid_t)-1 ||
	    !json_is_integer(json_object_get(launch, "gid")) || gid < 0 || gid >= (gid_t)-1)
		return;   /* herdstepd refuses the launch with a sentence */
	for (int i = 0; i < n; i++) {
		struct mps_daemon *d = mps_find(nd, job_id, gpus[i]);
		if (d && !d->quitting)
			continue;   /* another step of the job started it */
		if (d) {
			/* the job's last step here just ended and a new one
			 * comes: the old daemon goes now, a fresh one starts */
			if (d->daemon_pid && mps_pid_is_users(d->daemon_pid, d->uid))
				kill(d->daemon_pid, SIGKILL);
			if (d->quit_pid) {
				kill(d->quit_pid, SIGKILL);
				waitpid(d->quit_pid, NULL, 0);
			}
			mps_remove(nd, d);
		}
		mps_start(nd, job_id, gpus[i], (uid_t)uid, (gid_t)gid);
	}
}

void mps_tick(struct noded *nd)
{
	struct mps_daemon *d = nd->mps, *next;

	for (; d; d = next) {
		next = d->next;
		if (d->quitting)
			mps_step_quit(nd, d);
		else if (!jobs_next_of(nd, d->job_id, NULL))
			mps_quit(nd, d);
	}
}

void mps_scan(struct noded *nd)
{
	DIR *dir = opendir(nd->spool);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		unsigned job_id;
		int gpu;
		char tail, name[64];
		struct stat st;
		if (sscanf(e->d_name, "mps%u.%d%c", &job_id, &gpu, &tail) != 2 || gpu < 0 ||
		    gpu > MPS_GPU_MAX)
			continue;
		mps_dir_name(name, sizeof(name), job_id, gpu);
		if (strcmp(name, e->d_name) || fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || mps_find(nd, job_id, gpu))
			continue;
		/* the next tick stops it unless a step of the job still runs */
		mps_add(nd, job_id, gpu, st.st_uid, st.st_gid);
		log_info("job %u: MPS daemon of GPU %d found from before the restart", job_id, gpu);
	}
	closedir(dir);
}

void mps_forget(struct noded *nd)
{
	while (nd->mps) {
		struct mps_daemon *d = nd->mps;
		nd->mps = d->next;
		free(d);
	}
}
