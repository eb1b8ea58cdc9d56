/* The step I/O protocol between herdstepd and srun (doc/steps.md, "Step I/O
 * protocol"): a 12-byte header and a payload per message.  Encoding and an
 * incremental decoder over a byte buffer; no I/O here. */
#ifndef HERD_STEPIO_H
#define HERD_STEPIO_H
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

#define STEPIO_HEADER 12
#define STEPIO_MAX_PAYLOAD (1u << 20)
#define STEPIO_ALL_TASKS 0xffffffffu

enum stepio_type {
	STEPIO_HELLO = 1,
	STEPIO_STDOUT = 2,
	STEPIO_STDERR = 3,
	STEPIO_EXIT = 4,
	STEPIO_ERROR = 5,
	STEPIO_STDIN = 6,
	STEPIO_SIGNAL = 7,
	STEPIO_FENCE_IN = 8,
	STEPIO_FENCE_OUT = 9,
	STEPIO_DONE = 10,
	STEPIO_WINSIZE = 11,
};

struct stepio_msg {
	uint16_t type;
	uint32_t task;
	const char *data;     /* points into the decoder's buffer: valid until the next call */
	uint32_t len;
};

/* Append one message to out. */
void stepio_encode(struct strbuf *out, uint16_t type, uint32_t task, const void *data,
		   uint32_t len);

/* Incremental decoder: feed bytes as they arrive, take messages out. */
struct stepio_decoder {
	char *buf;
	size_t len, cap, off;
};
void stepio_feed(struct stepio_decoder *d, const void *data, size_t len);
/* 1 with *m filled, 0 when a whole message is not there yet, -1 on a bad
 * header (unknown type or payload over STEPIO_MAX_PAYLOAD): close the
 * connection. */
int stepio_next(struct stepio_decoder *d, struct stepio_msg *m);
void stepio_decoder_free(struct stepio_decoder *d);

#endif
