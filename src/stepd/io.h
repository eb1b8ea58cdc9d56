/* herdstepd's end of the step I/O connection to srun (doc/steps.md, "Step
 * I/O protocol"): a TCP connection made on the loop, messages queued out in
 * order, messages in handed to the step.  No step logic here. */
#ifndef HERD_STEPD_IO_H
#define HERD_STEPD_IO_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "common/error.h"
#include "common/stepio.h"

struct io;

struct io_ops {
	/* The connection is up (status 0) or could not be made (err says why). */
	void (*connected)(void *arg, int status, const struct herd_error *err);
	/* One message from srun; m->data is valid during the call only. */
	void (*message)(void *arg, const struct stepio_msg *m);
	/* srun closed the connection, or it broke, or srun broke the protocol. */
	void (*closed)(void *arg);
	/* What was queued fell below IO_LOW_WATER after io_backlogged said yes. */
	void (*drained)(void *arg);
};

/* Bytes queued for srun above which the step stops reading its tasks'
 * output (a slow srun must not make herdstepd buffer without end), and the
 * level at which it reads again. */
#define IO_HIGH_WATER (4u << 20)
#define IO_LOW_WATER  (1u << 20)

/* Start connecting to host:port; NULL with err when host does not resolve. */
struct io *io_connect(uv_loop_t *loop, const char *host, int port, const struct io_ops *ops,
		      void *arg, struct herd_error *err);
/* Queue one message (nothing happens once the connection is closed). */
void io_send(struct io *io, uint16_t type, uint32_t task, const void *data, uint32_t len);
/* The same with a JSON payload (stolen). */
void io_send_json(struct io *io, uint16_t type, uint32_t task, json_t *payload);
/* More than IO_HIGH_WATER queued?  Then `drained` is called once it is
 * below IO_LOW_WATER again. */
int io_backlogged(struct io *io);
/* Stop (pause true) or go on reading what srun sends: a task that does not
 * read its stdin must not make herdstepd buffer srun's without end.  While
 * stopped, a reset connection is still noticed (the TCP state, every
 * second) and lost like a closed one; see io_pause_watch for a killed srun. */
void io_pause_input(struct io *io, bool pause);
/* Is the connection up and not closing? */
int io_is_open(const struct io *io);
/* Send what is queued, then close; done (may be NULL) runs when it is closed. */
void io_finish(struct io *io, void (*done)(void *arg), void *arg);
/* Close now, dropping what is queued; frees io once libuv is done with it. */
void io_close(struct io *io);

#endif
