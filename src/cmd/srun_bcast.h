/* srun --bcast (srun_bcast.c, doc/options.md): the program, and with
 * --send-libs its shared libraries, copied to every node of the job by a
 * step of the job's owner before the step itself runs the copy. */
#ifndef HERD_CMD_SRUN_BCAST_H
#define HERD_CMD_SRUN_BCAST_H
#include "cmd/jobopt.h"
#include "cmd/opt.h"

/* Copy o's program (o->argv[0]) to the nodes of job_id, then point o at
 * the copy: o->argv[0] the destination, or (a destination directory, each
 * node's own name) o->argv a shell that runs it, *argv_out the array to
 * give srun_bcast_free.  With --send-libs, LD_LIBRARY_PATH in *env (or in
 * that shell) names the copied libraries.  host: where the nodes reach
 * srun; cwd: the step's working directory.  0, or -1 after printing why. */
int srun_bcast(struct cmd_client *c, struct jobopt *o, long long job_id, const char *host,
	       const char *cwd, char ***env, char ***argv_out);
void srun_bcast_free(char **argv);

#endif
