/* Reading a password from a root-only file.  The checks are on the open
 * descriptor (fstat), so a file swapped between check and read is the
 * file checked; O_NOFOLLOW refuses a symlink a user could point
 * elsewhere.  Not a vault: the secret lives in the caller's memory. */
#include <errno.h>
#include <sys/random.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/secret.h"
#include "common/xmalloc.h"

#define SECRET_MAX 4096

char *secret_read(const char *path, uid_t owner, const char *key, struct herd_error *err)
{
	char buf[SECRET_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd;

	if (path[0] != '/') {
		errprintf(err, "%s must be the absolute path of a file holding the secret, "
			  "readable only by root or SlurmUser (herd.conf is read by every user)", key);
		return NULL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		errprintf(err, "%s=%.80s: cannot open: %s", key, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		errprintf(err, "%s=%.80s: %s", key, path, strerror(errno));
		goto error;
	}
	if (!S_ISREG(st.st_mode)) {
		errprintf(err, "%s=%.80s is not a regular file", key, path);
		goto error;
	}
	if (st.st_uid != 0 && st.st_uid != owner) {
		errprintf(err, "%s=%.80s must be owned by root or SlurmUser (it is owned by uid %u)", key,
			  path, (unsigned)st.st_uid);
		goto error;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		errprintf(err, "%s=%.80s is accessible to group or others (mode %04o): "
			  "chmod 600 it", key, path, (unsigned)(st.st_mode & 07777));
		goto error;
	}
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			errprintf(err, "%s=%.80s: cannot read: %s", key, path, strerror(errno));
			goto error;
		}
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';   /* the first line; its end is not the secret's */
	if (!buf[0]) {
		errprintf(err, "%s=%.80s is empty", key, path);
		return NULL;
	}
	char *secret = xstrdup(buf);
	memset(buf, 0, sizeof(buf));
	return secret;
error:
	close(fd);
	return NULL;
}

int secret_random_hex(char *out, size_t size)
{
	unsigned char raw[16];
	size_t got = 0;
	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += r;
	}
	for (size_t i = 0; i < sizeof(raw) && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, size - 2 * i, "%02x", raw[i]);
	return 0;
}
