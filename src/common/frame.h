/* Frames on the wire: a fixed 20-byte header, an optional MUNGE credential,
 * and a JSON body.  All integers are big-endian.
 *   u32 magic 'HRD1' | u16 version | u16 type | u32 request id
 *   | u32 credential length | u32 body length
 * Requests carry a credential; replies (type | MSG_REPLY) carry none.  A frame
 * whose credential or body exceeds the limit is refused and the connection
 * closed.  Trailing bytes after the JSON value are an error.  Pure code: no I/O. */
#ifndef HERD_FRAME_H
#define HERD_FRAME_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define FRAME_MAGIC 0x48524431u      /* "HRD1" */
#define FRAME_VERSION 1
#define FRAME_HDR_LEN 20
#define FRAME_MAX_CRED 4096
#define FRAME_DEFAULT_MAX_BODY (64u << 20)   /* 64 MiB */
#define FRAME_MAX_REPLY (1u << 30)           /* what a client accepts from a daemon */

struct frame_hdr {
	uint16_t version, type;
	uint32_t req_id, cred_len, body_len;
};

/* Parse the header in buf (FRAME_HDR_LEN bytes); -1 with err on bad magic,
 * version, or a length over the limits. */
int frame_hdr_decode(const unsigned char *buf, uint32_t max_body, struct frame_hdr *hdr,
		     struct herd_error *err);
/* Build a whole frame (header + cred + body) in a new buffer; *len gets its size.
 * cred may be NULL. */
unsigned char *frame_encode(uint16_t type, uint32_t req_id, const char *cred,
			    const char *body, size_t body_len, size_t *len);
/* Parse a body: exactly one JSON object, nothing after it; -1 with err. */
json_t *frame_body_parse(const char *body, size_t len, struct herd_error *err);
/* Serialize a body compactly; caller frees. */
char *frame_body_dump(const json_t *body, size_t *len);

#endif
