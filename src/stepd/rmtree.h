/* Removing, as root, a scratch tree herdstepd made for a step (PMIx's
 * directory) whose subdirectories the step's user may write.  Not a
 * general rm -r: nothing here follows a name twice.  See rmtree.c. */
#ifndef HERD_STEPD_RMTREE_H
#define HERD_STEPD_RMTREE_H
#include <sys/types.h>

/* Deeper than this, a tree is left in place (libpmix's is two deep). */
#define RMTREE_MAX_DEPTH 32

/* Empties the directory dir_fd (not closed): every file, link and socket
 * in it goes, and every directory owned by `user` (the step's user),
 * emptied the same way first.  Directories of anyone else (root's, that
 * came in inside a directory of the user's) and mount points are left in
 * place, whole.  0 when the directory is empty; -1 with
 * errno (ENOTEMPTY when only what was left in place remains). */
int rmtree_empty(int dir_fd, uid_t user);

/* The directory `name` of parent_fd emptied (rmtree_empty) and removed;
 * -1 with errno, ENOTDIR when name is not a directory (a link is never
 * followed). */
int rmtree_remove(int parent_fd, const char *name, uid_t user);

#endif
