/* Removing a scratch tree whose subdirectories the step's user may write,
 * as root.  A walk by path names ("dir/sub/file") lets a user who renames
 * "sub" and puts a link to /etc in its place make root unlink /etc's files;
 * so every step here is relative to a descriptor of a directory this walk
 * opened itself (openat with O_NOFOLLOW, unlinkat), and each directory is
 * made root's 0700 before it is read: from then on no process of the user,
 * not even one holding a descriptor of it or sitting in it, can rename or
 * add anything there.  Directories that are not the user's (root's own, come
 * in inside one of the user's) and other filesystems are never entered.
 * No allocation: getdents64 into a buffer on the stack. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stepd/rmtree.h"

/* Deleting while reading may make getdents skip names: read again from the
 * start until a pass removes nothing.  Locked directories do not change,
 * so two passes are the most a tree needs; a few more cost nothing. */
#define RMTREE_PASSES 4

static int rmtree_walk(int dir_fd, dev_t dev, uid_t user, int depth);

/* One directory entry: a name that is not a directory is unlinked whatever
 * it is (removing a link removes the link); a directory is entered if it is
 * the user's and on the tree's filesystem, then removed.  1 if the name
 * went, 0 if it stays. */
static int rmtree_entry(int dir_fd, const char *name, dev_t dev, uid_t user, int depth)
{
	struct stat st;
	int sub, rc;

	if (unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT)
		return 1;   /* gone either way */
	if (errno != EISDIR && errno != EPERM)
		return 0;
	/* Checked on what was opened, not on the name, which may change
	 * between a look and an open. */
	sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
			      O_NONBLOCK);
	if (sub < 0)
		return 0;
	if (fstat(sub, &st) < 0 || st.st_dev != dev || st.st_uid != user ||
	    depth >= RMTREE_MAX_DEPTH) {
		close(sub);
		return 0;
	}
	/* Take it from the user before reading it. */
	if ((fchown(sub, geteuid(), getegid()) < 0 && geteuid() == 0) || fchmod(sub, 0700) < 0) {
		close(sub);
		return 0;
	}
	rmtree_walk(sub, dev, user, depth + 1);
	close(sub);
	rc = unlinkat(dir_fd, name, AT_REMOVEDIR);
	return rc == 0 || errno == ENOENT;
}

/* Empties dir_fd; 0 if it is empty after, -1 if something stays. */
static int rmtree_walk(int dir_fd, dev_t dev, uid_t user, int depth)
{
	char buf[4096] __attribute__((aligned(8)));

	for (int pass = 0; pass < RMTREE_PASSES; pass++) {
		int removed = 0, kept = 0;
		ssize_t n;

		if (lseek(dir_fd, 0, SEEK_SET) < 0)
			return -1;
		while ((n = getdents64(dir_fd, buf, sizeof(buf))) > 0) {
			for (ssize_t off = 0; off < n;) {
				struct dirent64 *e = (struct dirent64 *)(buf + off);
				off += e->d_reclen;
				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				if (rmtree_entry(dir_fd, e->d_name, dev, user, depth))
					removed++;
				else
					kept++;
			}
		}
		if (n < 0)
			return -1;
		if (!kept && !removed)
			return 0;
		if (!removed)
			break;
	}
	errno = ENOTEMPTY;
	return -1;
}

int rmtree_empty(int dir_fd, uid_t user)
{
	struct stat st;

	if (fstat(dir_fd, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return rmtree_walk(dir_fd, st.st_dev, user, 0);
}

int rmtree_remove(int parent_fd, const char *name, uid_t user)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
				       O_NONBLOCK);
	int rc;

	if (fd < 0) {
		if (errno == ELOOP)
			errno = ENOTDIR;
		return -1;
	}
	rc = rmtree_empty(fd, user);
	close(fd);
	if (rc < 0)
		return -1;
	return unlinkat(parent_fd, name, AT_REMOVEDIR);
}
