/* Filesystem helpers shared by herdd and herdstepd. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "common/fs.h"

int fs_remove_flat_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
