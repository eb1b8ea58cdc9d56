/* Frames as herdctld and herdd read them from any peer (net_loop.c's
 * conn_frames and work_decode): header, credential, JSON body, schema.
 * The input is a byte stream of frames.  The credential goes through
 * auth_decode_with with a verifier that accepts "OK" (as munged would
 * accept a real credential: any local user can make one) and refuses
 * anything else; the body is then parsed and checked against its type's
 * schema, as the daemons do before a handler sees it. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common/auth.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "fuzz.h"
#include "fuzz_digest.h"

#define DEST "cluster:ctld"

struct expect {
	uint16_t type;
	const char *body;
	size_t len;
};

static int fake_verify(void *arg, const char *cred, void **payload, int *plen,
		       struct auth_id *id, struct herd_error *err)
{
	const struct expect *e = arg;
	if (strcmp(cred, "OK"))
		return errprintf(err, "invalid credential: fake verifier refuses it");
	char digest[65];
	fuzz_digest(e->type, DEST, e->body, e->len, digest);
	*payload = xstrdup(digest);
	*plen = 64;
	id->uid = 1000;
	id->gid = 1000;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct herd_error err;
	struct frame_hdr hdr;
	size_t off = 0;

	while (size - off >= FRAME_HDR_LEN) {
		/* The controller's limit is configurable; a small one here keeps
		 * the fuzzer's frames whole. */
		if (frame_hdr_decode(data + off, 1u << 20, &hdr, &err) < 0)
			return 0;
		size_t need = FRAME_HDR_LEN + (size_t)hdr.cred_len + hdr.body_len;
		if (size - off < need)
			return 0;   /* the daemon waits for the rest */
		char *cred = hdr.cred_len ? xstrndup((const char *)data + off + FRAME_HDR_LEN,
						     hdr.cred_len) : NULL;
		char *body = xmalloc(hdr.body_len + 1);
		memcpy(body, data + off + FRAME_HDR_LEN + hdr.cred_len, hdr.body_len);
		off += need;

		uint16_t type = hdr.type;
		struct auth_id who;
		struct expect e = { type, body, hdr.body_len };
		if (!(type & MSG_REPLY) && msg_schema(type) && cred &&
		    auth_decode_with(fake_verify, &e, cred, type, DEST, body, hdr.body_len, &who,
				     &err) == 0) {
			json_t *json = frame_body_parse(body, hdr.body_len, &err);
			if (json) {
				if (msg_validate(type, json, &err) == 0) {
					/* What a handler answers with goes back out. */
					size_t dlen;
					char *dump = frame_body_dump(json, &dlen);
					json_t *again = frame_body_parse(dump, dlen, &err);
					if (!again)
						abort();   /* our own dump must parse */
					json_decref(again);
					free(dump);
				}
				json_decref(json);
			}
		}
		/* A reply body as a client reads it. */
		if (type & MSG_REPLY) {
			json_t *reply = frame_body_parse(body, hdr.body_len, &err);
			if (reply)
				msg_reply_rc(reply, &err);
			json_decref(reply);
		}
		free(cred);
		free(body);
	}
	return 0;
}
