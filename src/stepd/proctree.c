/* Walking /proc for a process tree.  A process may fork or exit while we
 * walk; callers repeat the kill until no descendant is left, which closes
 * that race. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "stepd/proctree.h"

struct proctree_entry {
	pid_t pid, ppid;
};

/* ppid of pid from /proc/PID/stat; the command name may hold spaces and
 * parentheses, so parse after the last ')'. */
static pid_t proctree_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;
	char state;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
		return -1;
	return ppid;
}

ssize_t proctree_descendants(pid_t root, pid_t **out)
{
	struct proctree_entry *all = NULL;
	size_t nall = 0, cap = 0, nout = 0, head = 0;
	pid_t *found;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	*out = NULL;
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid_t pid = atoi(d->d_name);
		pid_t ppid = proctree_ppid(pid);
		if (ppid < 0)
			continue;
		if (nall == cap) {
			cap = cap ? cap * 2 : 256;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[nall++] = (struct proctree_entry){ pid, ppid };
	}
	closedir(dir);

	/* Breadth-first from root: found[] doubles as the queue. */
	found = xmalloc((nall + 1) * sizeof(pid_t));
	pid_t parent = root;
	for (;;) {
		for (size_t i = 0; i < nall; i++)
			if (all[i].ppid == parent && all[i].pid != root)
				found[nout++] = all[i].pid;
		if (head == nout)
			break;
		parent = found[head++];
	}
	free(all);
	*out = found;
	return nout;
}

int proctree_signal(pid_t root, pid_t pgid, pid_t skip, int sig)
{
	pid_t *pids;
	ssize_t n = proctree_descendants(root, &pids);
	int count = 0;

	if (pgid > 0 && killpg(pgid, sig) == 0)
		count++;
	for (ssize_t i = 0; i < n; i++) {
		/* the group's members already got it: send each signal once */
		if (pids[i] == skip || (pgid > 0 && getpgid(pids[i]) == pgid))
			continue;
		if (kill(pids[i], sig) == 0)
			count++;
	}
	free(pids);
	return count;
}
