/* Frame header encode/decode and strict JSON bodies.  No I/O here: net.c
 * reads and writes the bytes. */
#include <arpa/inet.h>
#include <string.h>
#include "common/frame.h"
#include "common/xmalloc.h"

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t get16(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return ntohs(v);
}

static void put32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void put16(unsigned char *p, uint16_t v)
{
	v = htons(v);
	memcpy(p, &v, 2);
}

int frame_hdr_decode(const unsigned char *buf, uint32_t max_body, struct frame_hdr *hdr,
		     struct herd_error *err)
{
	if (get32(buf) != FRAME_MAGIC)
		return errprintf(err, "bad frame magic 0x%08x", get32(buf));
	hdr->version = get16(buf + 4);
	hdr->type = get16(buf + 6);
	hdr->req_id = get32(buf + 8);
	hdr->cred_len = get32(buf + 12);
	hdr->body_len = get32(buf + 16);
	if (hdr->version != FRAME_VERSION)
		return errprintf(err, "unsupported frame version %u", hdr->version);
	if (hdr->cred_len > FRAME_MAX_CRED)
		return errprintf(err, "credential of %u bytes is over the limit", hdr->cred_len);
	if (hdr->body_len > (max_body ? max_body : FRAME_DEFAULT_MAX_BODY))
		return errprintf(err, "frame body of %u bytes is over the limit", hdr->body_len);
	return 0;
}

unsigned char *frame_encode(uint16_t type, uint32_t req_id, const char *cred,
			    const char *body, size_t body_len, size_t *len)
{
	size_t cred_len = cred ? strlen(cred) : 0;
	unsigned char *buf = xmalloc(FRAME_HDR_LEN + cred_len + body_len);

	put32(buf, FRAME_MAGIC);
	put16(buf + 4, FRAME_VERSION);
	put16(buf + 6, type);
	put32(buf + 8, req_id);
	put32(buf + 12, cred_len);
	put32(buf + 16, body_len);
	if (cred_len)
		memcpy(buf + FRAME_HDR_LEN, cred, cred_len);
	if (body_len)
		memcpy(buf + FRAME_HDR_LEN + cred_len, body, body_len);
	*len = FRAME_HDR_LEN + cred_len + body_len;
	return buf;
}

json_t *frame_body_parse(const char *body, size_t len, struct herd_error *err)
{
	json_error_t jerr;
	/* Without JSON_DISABLE_EOF_CHECK jansson refuses anything after the value. */
	json_t *v = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!v) {
		errprintf(err, "malformed JSON body: %s (at byte %d)", jerr.text, jerr.position);
		return NULL;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		errprintf(err, "frame body is not a JSON object");
		return NULL;
	}
	return v;
}

/* Into a buffer of our own (json_dumpb), so the caller frees it with free()
 * whatever allocator jansson was given (squeue gives it a region). */
char *frame_body_dump(const json_t *body, size_t *len)
{
	size_t n = json_dumpb(body, NULL, 0, JSON_COMPACT);
	if (!n) {
		*len = 2;
		return xstrdup("{}");
	}
	char *s = xmalloc(n + 1);
	json_dumpb(body, s, n, JSON_COMPACT);
	s[n] = '\0';
	*len = n;
	return s;
}
