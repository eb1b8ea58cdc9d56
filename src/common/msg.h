/* Every message type, declared once: number, name, and (in msg.c) the strict
 * schema of its request body: each key's JSON type, required or optional,
 * nested objects and array element types.  Unknown keys, missing keys and
 * wrong JSON types are refused with a sentence.  Replies are objects that
 * always carry "rc" (error.h) and, when rc != 0, "error".  doc/protocol.md
 * says what each field means. */
#ifndef HERD_MSG_H
#define HERD_MSG_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "common/error.h"

/* X(enum, number, "NAME") */
#define MSG_TABLE(X) \
	X(MSG_PING, 1, "PING") \
	X(MSG_SUBMIT_JOB, 2, "SUBMIT_JOB") \
	X(MSG_JOB_INFO, 3, "JOB_INFO") \
	X(MSG_CANCEL_JOB, 4, "CANCEL_JOB") \
	X(MSG_UPDATE_JOB, 5, "UPDATE_JOB") \
	X(MSG_NODE_INFO, 6, "NODE_INFO") \
	X(MSG_PART_INFO, 7, "PART_INFO") \
	X(MSG_ACCT_JOBS, 8, "ACCT_JOBS") \
	X(MSG_UPDATE_NODE, 9, "UPDATE_NODE") \
	X(MSG_STEP_CREATE, 10, "STEP_CREATE") \
	X(MSG_STEP_INFO, 11, "STEP_INFO") \
	X(MSG_COMPLETE_ALLOC, 12, "COMPLETE_ALLOC") \
	X(MSG_ACCT_MGR, 13, "ACCT_MGR") \
	X(MSG_SHARE_INFO, 14, "SHARE_INFO") \
	X(MSG_ACCT_REPORT, 15, "ACCT_REPORT") \
	X(MSG_PRIO_INFO, 27, "PRIO_INFO") \
	X(MSG_RESV_CREATE, 16, "RESV_CREATE") \
	X(MSG_RESV_UPDATE, 17, "RESV_UPDATE") \
	X(MSG_RESV_DELETE, 18, "RESV_DELETE") \
	X(MSG_RESV_INFO, 23, "RESV_INFO") \
	X(MSG_LICENSE_INFO, 25, "LICENSE_INFO") \
	X(MSG_RECONFIGURE, 19, "RECONFIGURE") \
	X(MSG_NODE_REGISTER, 20, "NODE_REGISTER") \
	X(MSG_JOB_COMPLETE, 21, "JOB_COMPLETE") \
	X(MSG_STEP_COMPLETE, 22, "STEP_COMPLETE") \
	X(MSG_GPU_USAGE, 28, "GPU_USAGE") \
	X(MSG_LAUNCH_JOB, 40, "LAUNCH_JOB") \
	X(MSG_SIGNAL_JOB, 41, "SIGNAL_JOB") \
	X(MSG_TERMINATE_JOB, 42, "TERMINATE_JOB") \
	X(MSG_REQUEST_REGISTRATION, 43, "REQUEST_REGISTRATION") \
	X(MSG_UPDATE_JOB_LIMIT, 44, "UPDATE_JOB_LIMIT") \
	X(MSG_LAUNCH_STEP, 45, "LAUNCH_STEP") \
	X(MSG_SUSPEND_JOB, 46, "SUSPEND_JOB") \
	X(MSG_RECONFIGURE_NODE, 49, "RECONFIGURE_NODE") \
	X(MSG_JWT_REQUEST, 80, "JWT_REQUEST") \
	X(MSG_TOKEN_CREATE, 81, "TOKEN_CREATE") \
	X(MSG_JOB_COUNTS, 82, "JOB_COUNTS") \
	X(MSG_CLUSTER_INFO, 90, "CLUSTER_INFO")

enum msg_type {
#define MSG_ENUM(e, num, name) e = num,
	MSG_TABLE(MSG_ENUM)
#undef MSG_ENUM
};

#define MSG_REPLY 0x8000   /* type bit set on replies */

enum msg_ftype { MF_STR = 1, MF_INT, MF_BOOL, MF_OBJ, MF_ARR_STR, MF_ARR_INT, MF_ANY, MF_ARR_OBJ };
struct msg_field {
	const char *key;
	enum msg_ftype type;
	bool optional;
	const struct msg_field *sub;    /* MF_OBJ: schema of the object (MF_ARR_OBJ: of each), NULL = any object */
	int64_t min, max;               /* MF_INT: bounds (jobspec_check); both 0: none */
};

const char *msg_name(int type);                        /* "SUBMIT_JOB", NULL if undeclared */
const struct msg_field *msg_schema(int type);          /* NULL if undeclared */
/* Check a request body against its declared schema; -1 with err like
 * "SUBMIT_JOB: job.ntasks: expected integer". */
int msg_validate(int type, const json_t *body, struct herd_error *err);
/* Check an object against any schema (used for nested bodies). */
int msg_check(const struct msg_field *schema, const json_t *obj, const char *where,
	      struct herd_error *err);

/* A NULL-terminated string vector (NULL: none) as a JSON array. */
json_t *msg_strv(char *const *v);

/* Reply helpers. */
json_t *msg_reply_ok(void);                            /* {"rc":0} */
/* rc from a reply object; -1 with err if it has none. On rc != 0 err gets "error". */
int msg_reply_rc(const json_t *reply, struct herd_error *err);

/* Fields of a body msg_validate passed: the schema has checked their types. */
static inline const char *msg_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static inline const char *msg_str_or(const json_t *o, const char *key)   /* "" when absent */
{
	const char *s = msg_str(o, key);
	return s ? s : "";
}

static inline int64_t msg_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

#endif
