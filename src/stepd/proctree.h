/* The job's processes, found by walking /proc.  herdstepd is a child
 * subreaper (PR_SET_CHILD_SUBREAPER), so every process the job starts stays
 * its descendant even after a setsid() or a double fork; "the job's process
 * tree" is therefore "every descendant of herdstepd".  (cgroups come later.) */
#ifndef HERD_STEPD_PROCTREE_H
#define HERD_STEPD_PROCTREE_H
#include <stddef.h>
#include <sys/types.h>

/* Every descendant of root, in breadth-first order (caller frees *out).
 * Returns the count, or -1 if /proc cannot be read. */
ssize_t proctree_descendants(pid_t root, pid_t **out);
/* Send sig to every descendant of root except `skip` (0 = none) and to the
 * process group pgid (0 = none).  Returns the number of processes signalled. */
int proctree_signal(pid_t root, pid_t pgid, pid_t skip, int sig);

#endif
