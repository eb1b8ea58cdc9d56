/* `herd up`'s copy of Herd's programs into the cluster directory (DIR/bin,
 * mode 0755), so the cluster's users can run them wherever herd itself was
 * built: a clone inside `mktemp -d` or root's 0700 home is out of their
 * reach, and so would be every sbatch, srun in a job script and step daemon
 * started from there.  Not an installer: `make install` is. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "herd/herd.h"

/* What a cluster runs: the daemons, the operator's tool and the commands. */
static const char *const herd_programs[] = {
	"herd", "herdctld", "herdd", "herdstepd", "herdrestd", "sbatch", "squeue", "scancel",
	"sinfo", "scontrol", "sacct", "srun", "salloc", "sacctmgr", "sshare", "sreport", "sprio",
	"sdiag", NULL,
};

/* Copy src to dst through a temporary file and a rename: a program another
 * cluster's daemon runs from a reused directory is never half written. */
static int copy_program(const char *src, const char *dst, struct herd_error *err)
{
	char *tmp = xasprintf("%s.tmp%d", dst, (int)getpid());
	char buf[1 << 16];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n;

	if (in < 0) {
		errprintf(err, "cannot read %s: %s", src, strerror(errno));
		goto out;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0755);
	if (out < 0) {
		errprintf(err, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, n) != n) {
			errprintf(err, "cannot copy %s to %s: %s", src, tmp, strerror(errno));
			goto out;
		}
	}
	/* 0755 whatever the umask: every user of the cluster runs it */
	if (fchmod(out, 0755) < 0 || close(out) < 0) {
		out = -1;
		errprintf(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (rename(tmp, dst) < 0) {
		errprintf(err, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

char *herd_install_programs(const char *dir, const char *bindir, const char *sbindir,
			    struct herd_error *err)
{
	char *dest = xasprintf("%s/bin", dir);
	size_t copied = 0;

	if (mkdir(dest, 0755) < 0 && errno != EEXIST) {
		errprintf(err, "cannot create %s: %s", dest, strerror(errno));
		goto error;
	}
	if (chmod(dest, 0755) < 0) {
		errprintf(err, "cannot chmod %s: %s", dest, strerror(errno));
		goto error;
	}
	for (size_t i = 0; herd_programs[i]; i++) {
		/* next to herd (the build tree), else ../sbin (`make install`) */
		char *src = xasprintf("%s/%s", bindir, herd_programs[i]);
		if (access(src, X_OK) < 0) {
			free(src);
			src = xasprintf("%s/%s", sbindir, herd_programs[i]);
		}
		char *dst = xasprintf("%s/%s", dest, herd_programs[i]);
		int rc = 0;
		if (access(src, X_OK) == 0) {   /* herdrestd, sdiag: not in every build */
			rc = copy_program(src, dst, err);
			copied++;
		}
		free(src);
		free(dst);
		if (rc < 0)
			goto error;
	}
	if (!copied) {
		errprintf(err, "no Herd programs found in %s", bindir);
		goto error;
	}
	return dest;
error:
	free(dest);
	return NULL;
}

/* The first directory on the way to dir (dir included) that other users
 * cannot pass (no o+x), or NULL when they reach it. */
static char *first_closed(const char *dir)
{
	char *p = xstrdup(dir);
	char *closed = NULL;
	struct stat st;

	for (;;) {
		if (stat(p, &st) == 0 && !(st.st_mode & S_IXOTH)) {
			free(closed);
			closed = xstrdup(p);   /* keep the highest one: that is what to fix */
		}
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return closed;
}

void herd_warn_unreachable(const char *dir)
{
	char *closed = first_closed(dir);
	struct stat st;

	if (!closed)
		return;
	if (stat(closed, &st) == 0)
		fprintf(stderr, "herd: warning: other users cannot reach %s: %s is mode %04o; only %s can "
				"use this cluster (give --dir a place under a directory others may pass, "
				"e.g. /tmp)\n", dir, closed, (unsigned)(st.st_mode & 07777),
			getuid() == 0 ? "root" : "its owner");
	free(closed);
}
