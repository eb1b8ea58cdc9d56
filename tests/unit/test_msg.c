/* Frames and message schemas: every declared type round-trips through a
 * frame; malformed headers, bodies and shapes are refused with a sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/frame.h"
#include "common/msg.h"
#include "common/xmalloc.h"

static const int all_types[] = {
#define T(e, num, name) num,
	MSG_TABLE(T)
#undef T
};

/* A body that fills every field of a schema with a value of its type. */
static json_t *sample(const struct msg_field *schema)
{
	json_t *o = json_object();
	for (const struct msg_field *f = schema; f->key; f++) {
		json_t *v = NULL;
		switch (f->type) {
		case MF_STR: v = json_string("x\"y;z é"); break;
		case MF_INT: v = json_integer(42); break;
		case MF_BOOL: v = json_true(); break;
		case MF_OBJ: v = f->sub ? sample(f->sub) : json_object(); break;
		case MF_ARR_STR: v = json_pack("[s,s]", "A=1", "B=2"); break;
		case MF_ARR_INT: v = json_pack("[i,i]", 1, 2); break;
		case MF_ANY: v = json_null(); break;
		case MF_ARR_OBJ: v = json_pack("[o]", f->sub ? sample(f->sub) : json_object()); break;
		}
		json_object_set_new(o, f->key, v);
	}
	return o;
}

static void every_type_round_trips(void **state)
{
	for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
		int type = all_types[i];
		struct herd_error err;
		struct frame_hdr hdr;
		size_t blen, flen;

		assert_non_null(msg_name(type));
		assert_non_null(msg_schema(type));
		json_t *body = sample(msg_schema(type));
		assert_int_equal(msg_validate(type, body, &err), 0);
		char *b = frame_body_dump(body, &blen);
		unsigned char *frame = frame_encode(type, 77, "CRED", b, blen, &flen);
		assert_int_equal(flen, FRAME_HDR_LEN + 4 + blen);
		assert_int_equal(frame_hdr_decode(frame, 0, &hdr, &err), 0);
		assert_int_equal(hdr.type, type);
		assert_int_equal(hdr.req_id, 77);
		assert_int_equal(hdr.cred_len, 4);
		assert_memory_equal(frame + FRAME_HDR_LEN, "CRED", 4);
		json_t *back = frame_body_parse((char *)frame + FRAME_HDR_LEN + 4, hdr.body_len, &err);
		assert_non_null(back);
		assert_true(json_equal(body, back));
		assert_int_equal(msg_validate(type, back, &err), 0);
		json_decref(back);
		json_decref(body);
		free(b);
		free(frame);
	}
}

static void bad_shapes_are_refused(void **state)
{
	struct herd_error err;
	json_t *body = sample(msg_schema(MSG_SUBMIT_JOB));

	json_object_del(json_object_get(body, "job"), "ntasks");
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job: missing key 'ntasks'");

	json_object_set_new(json_object_get(body, "job"), "ntasks", json_string("4"));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job.ntasks: expected integer");

	json_object_set_new(json_object_get(body, "job"), "ntasks", json_integer(4));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), 0);
	json_object_set_new(body, "uid", json_integer(0));   /* identity never comes from a body */
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB: unknown key 'uid'");
	json_decref(body);

	body = json_pack("{s:[i,s]}", "job_ids", 1, "x");
	assert_int_equal(msg_validate(MSG_JOB_INFO, body, &err), -1);
	assert_string_equal(err.text, "JOB_INFO.job_ids: expected array of integers");
	json_decref(body);
	body = json_object();
	assert_int_equal(msg_validate(MSG_JOB_INFO, body, &err), 0);   /* all optional */
	assert_int_equal(msg_validate(999, body, &err), -1);
	assert_null(msg_name(999));
	json_decref(body);
}

/* --dependency, --begin, --deadline, --kill-on-invalid-dep came later: an
 * older sbatch that sends none of them still submits; a wrong type does not. */
static void jobspec_optional_fields(void **state)
{
	static const char *later[] = { "dependency", "begin_time", "deadline",
				       "kill_on_invalid_dep", "command" };
	struct herd_error err;
	json_t *body = sample(msg_schema(MSG_SUBMIT_JOB)), *job = json_object_get(body, "job");

	assert_string_equal(json_string_value(json_object_get(job, "dependency")), "x\"y;z é");
	assert_int_equal(json_integer_value(json_object_get(job, "begin_time")), 42);
	assert_true(json_is_true(json_object_get(job, "kill_on_invalid_dep")));
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		json_object_del(job, later[i]);
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), 0);
	json_object_set_new(job, "begin_time", json_string("now+1hour"));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job.begin_time: expected integer");
	json_object_set_new(job, "begin_time", json_integer(1795946400));
	json_object_set_new(job, "dependency", json_integer(12));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job.dependency: expected string");
	json_object_set_new(job, "dependency", json_string("afterok:12"));
	json_object_set_new(job, "kill_on_invalid_dep", json_string("yes"));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job.kill_on_invalid_dep: expected boolean");
	json_decref(body);

	body = json_pack("{s:i, s:s, s:{s:s, s:I}}", "job_id", 5, "action", "update", "fields",
			 "dependency", "", "begin_time", (json_int_t)0);
	assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), 0);
	json_object_set_new(json_object_get(body, "fields"), "color", json_integer(1));
	assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), -1);
	assert_string_equal(err.text, "UPDATE_JOB.fields: unknown key 'color'");
	json_decref(body);
}

/* UPDATE_JOB's later FIELDS: each alone passes with its type, and is
 * refused with another. */
static void update_fields_later_keys(void **state)
{
	static const struct { const char *key; char type; } added[] = {
		{ "account", 's' }, { "qos", 's' }, { "mail_user", 's' }, { "mail_type", 's' },
		{ "requeue", 'b' }, { "time_min", 'i' }, { "deadline", 'i' },
		{ "exc_nodelist", 's' }, { "req_nodelist", 's' }, { "features", 's' },
		{ "array_throttle", 'i' }, { "num_tasks", 'i' }, { "min_mem_node", 'i' },
		{ "min_mem_cpu", 'i' }, { "cpus_per_task", 'i' },
	};
	struct herd_error err;
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
		char t = added[i].type;
		json_t *v = t == 'i' ? json_integer(3) : t == 'b' ? json_true() : json_string("x");
		json_t *body = json_pack("{s:i, s:s, s:{s:o}}", "job_id", 5, "action", "update",
					 "fields", added[i].key, v);
		assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), 0);
		json_object_set_new(json_object_get(body, "fields"), added[i].key,
				    t == 's' ? json_integer(3) : json_string("3"));
		assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), -1);
		snprintf(want, sizeof(want), "UPDATE_JOB.fields.%s: expected %s", added[i].key,
			 t == 'i' ? "integer" : t == 'b' ? "boolean" : "string");
		assert_string_equal(err.text, want);
		json_decref(body);
	}
}

/* The JOBSPEC keys added with sbatch's later options are optional: an older
 * client's submission still passes; a wrong type is still refused. */
static void jobspec_new_keys_are_optional(void **state)
{
	static const char *added[] = {
		"nice", "requeue", "mail_type", "mail_user", "mem_per_cpu", "ntasks_per_node",
		"open_mode", "time_min", "signal", "signal_time", "signal_flags", "qos",
		"constraint", "req_nodelist", "exc_nodelist", "test_only",
	};
	struct herd_error err;
	json_t *body = sample(msg_schema(MSG_SUBMIT_JOB));
	json_t *job = json_object_get(body, "job");

	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
		assert_non_null(json_object_get(job, added[i]));
		json_object_del(job, added[i]);
	}
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), 0);
	json_object_set_new(job, "mem_per_cpu", json_string("100"));
	assert_int_equal(msg_validate(MSG_SUBMIT_JOB, body, &err), -1);
	assert_string_equal(err.text, "SUBMIT_JOB.job.mem_per_cpu: expected integer");
	json_decref(body);
}

/* RECONFIGURE (scontrol) and RECONFIGURE_NODE (controller to herdd) carry
 * nothing: the daemons re-read the file they started with, never a path or
 * text from the wire. */
static void reconfigure_bodies_are_empty(void **state)
{
	static const int types[] = { MSG_RECONFIGURE, MSG_RECONFIGURE_NODE };
	struct herd_error err;
	assert_string_equal(msg_name(MSG_RECONFIGURE), "RECONFIGURE");
	assert_string_equal(msg_name(MSG_RECONFIGURE_NODE), "RECONFIGURE_NODE");
	for (size_t i = 0; i < 2; i++) {
		json_t *body = json_object();
		assert_int_equal(msg_validate(types[i], body, &err), 0);
		json_object_set_new(body, "path", json_string("/etc/passwd"));
		assert_int_equal(msg_validate(types[i], body, &err), -1);
		assert_non_null(strstr(err.text, "unknown key 'path'"));
		json_decref(body);
		body = json_array();
		assert_int_equal(msg_validate(types[i], body, &err), -1);
		assert_non_null(strstr(err.text, "expected an object"));
		json_decref(body);
	}
}

/* PRIO_INFO (sprio): every filter optional, each of its type. */
static void prio_info_shapes(void **state)
{
	struct herd_error err;
	assert_string_equal(msg_name(MSG_PRIO_INFO), "PRIO_INFO");
	json_t *body = json_object();
	assert_int_equal(msg_validate(MSG_PRIO_INFO, body, &err), 0);
	json_object_set_new(body, "job_ids", json_pack("[i]", 7));
	json_object_set_new(body, "users", json_pack("[s]", "alice"));
	json_object_set_new(body, "partitions", json_pack("[s]", "debug"));
	assert_int_equal(msg_validate(MSG_PRIO_INFO, body, &err), 0);
	json_object_set_new(body, "job_ids", json_pack("[s]", "7"));
	assert_int_equal(msg_validate(MSG_PRIO_INFO, body, &err), -1);
	json_object_del(body, "job_ids");
	json_object_set_new(body, "weights", json_true());
	assert_int_equal(msg_validate(MSG_PRIO_INFO, body, &err), -1);
	assert_non_null(strstr(err.text, "unknown key 'weights'"));
	json_decref(body);
	/* UPDATE_JOB's priority (scontrol update Priority=) is an integer */
	body = json_pack("{s:i, s:s, s:{s:i}}", "job_id", 3, "action", "update", "fields",
			 "priority", 5);
	assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), 0);
	json_object_set_new(json_object_get(body, "fields"), "priority", json_string("5"));
	assert_int_equal(msg_validate(MSG_UPDATE_JOB, body, &err), -1);
	json_decref(body);
}

static void bad_bodies_are_refused(void **state)
{
	static const char *bad[] = {
		"", "{", "[]", "42", "{\"a\":1} x", "{\"a\":1}{}", "{\"a\":1,\"a\":2}", "{\"a\":\"\\u0000\"}x",
	};
	struct herd_error err;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(frame_body_parse(bad[i], strlen(bad[i]), &err));
	json_t *ok = frame_body_parse("{\"a\":1}  \n", 10, &err);   /* whitespace is not trailing data */
	assert_non_null(ok);
	json_decref(ok);
}

static void bad_headers_are_refused(void **state)
{
	struct herd_error err;
	struct frame_hdr hdr;
	size_t len;
	unsigned char *f = frame_encode(MSG_PING, 1, NULL, "{}", 2, &len);

	assert_int_equal(frame_hdr_decode(f, 0, &hdr, &err), 0);
	f[0] ^= 0xff;
	assert_int_equal(frame_hdr_decode(f, 0, &hdr, &err), -1);
	f[0] ^= 0xff;
	f[5] = 9;   /* version */
	assert_int_equal(frame_hdr_decode(f, 0, &hdr, &err), -1);
	f[5] = 1;
	assert_int_equal(frame_hdr_decode(f, 1, &hdr, &err), -1);   /* body over a 1-byte limit */
	assert_string_equal(err.text, "frame body of 2 bytes is over the limit");
	memset(f + 12, 0xff, 4);   /* huge credential */
	assert_int_equal(frame_hdr_decode(f, 0, &hdr, &err), -1);
	free(f);
	f = frame_encode(MSG_PING, 1, NULL, "{}", 2, &len);
	memset(f + 16, 0xff, 4);   /* 4 GiB body */
	assert_int_equal(frame_hdr_decode(f, 0, &hdr, &err), -1);
	free(f);
}

static void replies(void **state)
{
	struct herd_error err;
	json_t *r = json_pack("{s:i, s:s}", "rc", 2017, "error", "Invalid job id specified");
	assert_int_equal(msg_reply_rc(r, &err), 2017);
	assert_string_equal(err.text, "Invalid job id specified");
	json_decref(r);
	r = msg_reply_ok();
	assert_int_equal(msg_reply_rc(r, &err), 0);
	json_decref(r);
	r = json_object();
	assert_int_equal(msg_reply_rc(r, &err), -1);
	json_decref(r);
	assert_string_equal(herd_strerror(HERD_ERR_ACCESS), "Access/permission denied");
	assert_string_equal(herd_strerror(123456), "Unknown error");
}

/* RESV_*: the name and times are required where scontrol always sends
 * them; the rest optional; a wrong type or an unknown key is refused. */
static void resv_bodies(void **state)
{
	struct herd_error err;
	json_t *b = json_pack("{s:I, s:I, s:s, s:s}", "start_time", (json_int_t)1795946400,
			      "end_time", (json_int_t)1795950000, "nodes", "n1", "users", "root");
	assert_int_equal(msg_validate(MSG_RESV_CREATE, b, &err), 0);
	json_object_del(b, "end_time");
	assert_int_equal(msg_validate(MSG_RESV_CREATE, b, &err), -1);
	assert_string_equal(err.text, "RESV_CREATE: missing key 'end_time'");
	json_object_set_new(b, "end_time", json_integer(1795950000));
	json_object_set_new(b, "node_cnt", json_string("2"));
	assert_int_equal(msg_validate(MSG_RESV_CREATE, b, &err), -1);
	assert_string_equal(err.text, "RESV_CREATE.node_cnt: expected integer");
	json_decref(b);
	b = json_pack("{s:s, s:i}", "name", "r", "duration", 600);
	assert_int_equal(msg_validate(MSG_RESV_UPDATE, b, &err), 0);
	json_object_set_new(b, "color", json_string("red"));
	assert_int_equal(msg_validate(MSG_RESV_UPDATE, b, &err), -1);
	assert_string_equal(err.text, "RESV_UPDATE: unknown key 'color'");
	json_decref(b);
	b = json_object();
	assert_int_equal(msg_validate(MSG_RESV_DELETE, b, &err), -1);
	assert_string_equal(err.text, "RESV_DELETE: missing key 'name'");
	assert_int_equal(msg_validate(MSG_RESV_INFO, b, &err), 0);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_type_round_trips),
		cmocka_unit_test(bad_shapes_are_refused),
		cmocka_unit_test(jobspec_optional_fields),
		cmocka_unit_test(jobspec_new_keys_are_optional),
		cmocka_unit_test(update_fields_later_keys),
		cmocka_unit_test(reconfigure_bodies_are_empty),
		cmocka_unit_test(prio_info_shapes),
		cmocka_unit_test(bad_bodies_are_refused),
		cmocka_unit_test(bad_headers_are_refused),
		cmocka_unit_test(replies),
		cmocka_unit_test(resv_bodies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
