/* MUNGE credentials bound to a frame.  The credential's payload is the SHA-256
 * (hex) of the message type, the destination name and the exact body, so a
 * credential cannot be moved to another message or another daemon.  The
 * receiver trusts only the uid/gid inside the decoded credential.  MUNGE
 * itself refuses expired and replayed credentials.  Thread-safe. */
#ifndef HERD_AUTH_H
#define HERD_AUTH_H
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"

/* Who made a credential, as munged says: uid, gid and the IPv4 address of
 * the host whose munged encoded it (INADDR_ANY when munged did not know its
 * own; partition AllocNodes is checked against it). */
struct auth_id {
	uid_t uid;
	gid_t gid;
	struct in_addr addr;
};

/* Destination names: "<cluster>:ctld" for the controller, "<cluster>:<node>"
 * for a node daemon. */
char *auth_dest_ctld(const char *cluster);
char *auth_dest_node(const char *cluster, const char *node);

/* socket: munged's socket path, or NULL for MUNGE's default.  Returns a
 * credential string (caller frees) or NULL with err. */
char *auth_encode(const char *socket, uint16_t type, const char *dest, const char *body,
		  size_t len, struct herd_error *err);
/* Verify cred against this frame; -1 with err ("credential replayed",
 * "credential expired", "credential does not match its frame", ...). */
int auth_decode(const char *socket, const char *cred, uint16_t type, const char *dest,
		const char *body, size_t len, struct auth_id *id, struct herd_error *err);

/* auth_decode in two halves, for a daemon that checks a frame's credential
 * before reading a large body (doc/protocol.md "Reading a frame"):
 * auth_cred_decode asks munged (expiry, replay) and gives who made it and the
 * digest the credential carries (digest[65]); auth_cred_match later checks
 * that digest against the frame once the body is in.  -1 with err. */
int auth_cred_decode(const char *socket, const char *cred, struct auth_id *id, char digest[65],
		     struct herd_error *err);
int auth_cred_match(const char digest[65], uint16_t type, const char *dest, const char *body,
		    size_t len, struct herd_error *err);

/* The check auth_decode makes, with the credential decoded by verify
 * instead of munged: verify fills payload (malloc'd; freed here), its
 * length and id, or returns -1 with err.  auth_decode is this with
 * MUNGE; the fuzz target (tests/fuzz/fuzz_auth.c) passes a fake verifier so
 * that it can drive the binding check without a munged. */
typedef int (*auth_verify_f)(void *arg, const char *cred, void **payload, int *plen,
			     struct auth_id *id, struct herd_error *err);
int auth_decode_with(auth_verify_f verify, void *arg, const char *cred, uint16_t type,
		     const char *dest, const char *body, size_t len, struct auth_id *id,
		     struct herd_error *err);
/* auth_cred_decode with a given verifier (the fuzz targets' seam). */
int auth_cred_decode_with(auth_verify_f verify, void *arg, const char *cred,
			  struct auth_id *id, char digest[65], struct herd_error *err);

#endif
