/* Process helpers for `herd up`/`herd down`: start detached daemons, record
 * them, and recognise them again through /proc.  Linux only, by design. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "herd/herd.h"

extern char **environ;

/* Fields of /proc/PID/stat after the ")" that ends the command name:
 * field 3 (state) is the first, field 22 (starttime) the twentieth. */
static int proc_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	*state = *p;
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

unsigned long long proc_start_time(pid_t pid)
{
	char state;
	unsigned long long start;

	if (proc_stat(pid, &state, &start) < 0 || state == 'Z' || state == 'X')
		return 0;
	return start;
}

bool proc_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now = proc_start_time(pid);
	return now != 0 && now == start;
}

char *proc_read(pid_t pid, const char *what, size_t *len)
{
	char path[64];
	size_t cap = 4096, used = 0;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t r = read(fd, buf + used, cap - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += r;
		if (used == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	close(fd);
	buf[used] = '\0';
	*len = used;
	return buf;
}

bool proc_buf_has(const char *buf, size_t len, const char *needle)
{
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		if (strstr(buf + i, needle))
			return true;
	return false;
}

int proc_comm(pid_t pid, char name[16])
{
	char path[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, name, 15);
	close(fd);
	if (len <= 0)
		return -1;
	name[len] = '\0';
	name[strcspn(name, "\n")] = '\0';
	return 0;
}

pid_t proc_spawn(char *const argv[], const char *out_path, char *const extra_env[],
		 struct herd_error *err)
{
	int out = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	pid_t pid;

	if (out < 0)
		return errprintf(err, "cannot open %s: %s", out_path, strerror(errno));
	if (access(argv[0], X_OK) < 0) {
		close(out);
		return errprintf(err, "cannot run %s: %s", argv[0], strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(out);
		return errprintf(err, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Own session: the daemons outlive herd and ignore the terminal's
		 * signals.  Every inherited descriptor is closed, or a caller that
		 * reads herd's output through a pipe would wait for the daemons. */
		int null = open("/dev/null", O_RDONLY);
		setsid();
		dup2(null, 0);
		dup2(out, 1);
		dup2(out, 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (size_t i = 0; extra_env && extra_env[i]; i++)
			putenv(extra_env[i]);
		signal(SIGPIPE, SIG_DFL);
		execv(argv[0], argv);
		dprintf(2, "herd: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out);
	return pid;
}

int pids_record(const char *dir, pid_t pid, const char *name, struct herd_error *err)
{
	char *path = xasprintf("%s/%s", dir, HERD_PIDS_FILE);
	unsigned long long start = 0;
	FILE *f;

	/* The child may not have exec'd yet, but its start time is fixed at fork. */
	for (int i = 0; i < 50 && !(start = proc_start_time(pid)); i++)
		usleep(10000);
	f = fopen(path, "a");
	if (!f) {
		errprintf(err, "cannot write %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "%d %llu %s\n", (int)pid, start, name);
	if (fclose(f) != 0) {
		errprintf(err, "cannot write %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

struct pid_entry *pids_load(const char *dir, size_t *n)
{
	char *path = xasprintf("%s/%s", dir, HERD_PIDS_FILE);
	FILE *f = fopen(path, "r");
	struct pid_entry *v = NULL;
	char line[256];
	size_t cap = 0;

	*n = 0;
	free(path);
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		struct pid_entry e = {0};
		int pid;
		if (sscanf(line, "%d %llu %63s", &pid, &e.start, e.name) != 3 || pid <= 1)
			continue;
		e.pid = pid;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = e;
	}
	fclose(f);
	return v;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

size_t proc_signal_all(const struct pid_entry *procs, size_t n, int sig)
{
	size_t signalled = 0;

	for (size_t i = 0; i < n; i++)
		if (proc_alive(procs[i].pid, procs[i].start) && kill(procs[i].pid, sig) == 0)
			signalled++;
	return signalled;
}

bool proc_wait_gone(const struct pid_entry *procs, size_t n, int timeout_ms)
{
	for (int waited = 0;; waited += 20) {
		bool left = false;
		/* Reap our own children (herd up stopping what it started). */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		for (size_t i = 0; i < n && !left; i++)
			left = proc_alive(procs[i].pid, procs[i].start);
		if (!left)
			return true;
		if (waited >= timeout_ms)
			return false;
		sleep_ms(20);
	}
}

size_t proc_stop_all(const struct pid_entry *procs, size_t n, int grace_ms)
{
	size_t stopped = proc_signal_all(procs, n, SIGTERM);

	if (!proc_wait_gone(procs, n, grace_ms)) {
		proc_signal_all(procs, n, SIGKILL);
		proc_wait_gone(procs, n, 2000);
	}
	return stopped;
}

char *herd_bindir(void)
{
	char buf[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (len <= 0)
		return NULL;
	buf[len] = '\0';
	return xstrdup(dirname(buf));
}
