/* The step I/O protocol's framing (stepio.h); no I/O. */
#include <stdlib.h>
#include <string.h>
#include "common/stepio.h"
#include "common/xmalloc.h"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void stepio_encode(struct strbuf *out, uint16_t type, uint32_t task, const void *data,
		   uint32_t len)
{
	unsigned char h[STEPIO_HEADER];

	put32(h, len);
	h[4] = type >> 8;
	h[5] = type;
	h[6] = h[7] = 0;
	put32(h + 8, task);
	strbuf_add(out, (const char *)h, sizeof(h));
	if (len)
		strbuf_add(out, data, len);
}

void stepio_feed(struct stepio_decoder *d, const void *data, size_t len)
{
	if (d->off && d->off == d->len)
		d->off = d->len = 0;
	if (d->off > 65536 && d->off * 2 > d->len) {   /* drop what was consumed */
		memmove(d->buf, d->buf + d->off, d->len - d->off);
		d->len -= d->off;
		d->off = 0;
	}
	if (d->len + len > d->cap) {
		d->cap = (d->len + len) * 2 + 256;
		d->buf = xrealloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
}

int stepio_next(struct stepio_decoder *d, struct stepio_msg *m)
{
	const unsigned char *h = (const unsigned char *)d->buf + d->off;
	uint32_t len;
	uint16_t type;

	if (d->len - d->off < STEPIO_HEADER)
		return 0;
	len = get32(h);
	type = (uint16_t)(h[4] << 8 | h[5]);
	if (len > STEPIO_MAX_PAYLOAD || type < STEPIO_HELLO || type > STEPIO_WINSIZE)
		return -1;
	if (d->len - d->off < STEPIO_HEADER + (size_t)len)
		return 0;
	m->type = type;
	m->task = get32(h + 8);
	m->data = d->buf + d->off + STEPIO_HEADER;
	m->len = len;
	d->off += STEPIO_HEADER + len;
	return 1;
}

void stepio_decoder_free(struct stepio_decoder *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->cap = d->off = 0;
}
