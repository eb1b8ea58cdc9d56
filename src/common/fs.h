/* Small filesystem helpers shared by the daemons. */
#ifndef HERD_FS_H
#define HERD_FS_H

/* Remove a directory and the files directly in it (job spool directories are
 * flat).  A missing directory is not an error.  -1 with errno otherwise. */
int fs_remove_flat_dir(const char *dir);

#endif
