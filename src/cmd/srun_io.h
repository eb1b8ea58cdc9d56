/* srun's side of the step I/O protocol (doc/steps.md) on a libuv loop: the
 * listener herdstepd connects to, the HELLO key check, task output (line
 * buffered per task, -l labels), stdin forwarding, signal forwarding and
 * Ctrl-C handling, the PMI fence hub, the error lines and the exit code.
 * The controller is asked (STEP_INFO) where the step stands when a node's
 * connection is lost and every 2 s while waiting.  No option parsing. */
#ifndef HERD_CMD_SRUN_IO_H
#define HERD_CMD_SRUN_IO_H
#include <jansson.h>
#include <stdbool.h>
#include "cmd/opt.h"

struct srun_io;

struct srun_io_opts {
	bool label, unbuffered, pty, quiet, disable_status;
	bool quit_on_interrupt;  /* --quit-on-interrupt: one Ctrl-C ends the step */
	bool kill_on_bad_exit;
	int max_wait;           /* -W seconds, 0 = none */
	int stdin_task;         /* 0.., SRUN_STDIN_ALL, SRUN_STDIN_NONE */
	bool stdin_file;        /* -i names a file pattern: srun reads no stdin */
	bool stdout_file, stderr_file;   /* -o/-e name files: nothing comes here */
	int kill_wait;          /* KillWait seconds (for "Waiting up to N seconds") */
};

/* Listen on host (an address the nodes reach) at any free port, make the
 * key.  NULL with err. */
struct srun_io *srun_io_create(const char *host, const struct srun_io_opts *opts,
			       struct herd_error *err);
int srun_io_port(const struct srun_io *io);
const char *srun_io_key(const struct srun_io *io);

/* The step's layout from STEP_CREATE's reply (borrowed until run returns);
 * client is used for STEP_INFO. */
int srun_io_set_step(struct srun_io *io, long long job_id, const json_t *layout,
		     struct cmd_client *client, struct herd_error *err);

/* Run until every task exited and every node is done; returns srun's exit
 * code. */
int srun_io_run(struct srun_io *io);
void srun_io_destroy(struct srun_io *io);

/* The terminal state saved for --pty, restored at exit (also from signal
 * paths). */
void srun_io_tty_restore(void);

#endif
