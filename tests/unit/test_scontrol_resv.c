/* cmd/scontrol_resv.c: create and update arguments into RESV_* bodies with
 * Slurm's checks and sentences (table driven), and a reservation record in
 * scontrol show reservation's layout. */
#define _GNU_SOURCE   /* vasprintf (record.c) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/fmt.c"
#include "cmd/opt.c"
#include "cmd/step.c"
#include "cmd/record.c"
#include "cmd/scontrol_resv.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NOW ((time_t)1795946400)

static int parse_line(enum resv_op op, const char *line, json_t **body, char *err, size_t len)
{
	char *copy = xstrdup(line), *argv[32], *save = NULL;
	int argc = 0;
	for (char *t = strtok_r(copy, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	int rc = scontrol_resv_parse(op, argc, argv, NOW, body, err, len);
	free(copy);
	return rc;
}

static void create_bodies(void **state)
{
	static const struct {
		const char *line, *want;   /* the body as compact JSON, keys sorted */
	} good[] = {
		{ "reservation StartTime=now Duration=60 Nodes=n1 Users=root",
		  "{\"end_time\":1795950000,\"nodes\":\"n1\",\"start_time\":1795946400,\"users\":\"root\"}" },
		{ "res starttime=now+1hour duration=1:00:00 nodecnt=2 accounts=a,b flags=MAINT,daily",
		  "{\"accounts\":\"a,b\",\"end_time\":1795953600,\"flags\":\"MAINT,daily\",\"node_cnt\":2,"
		  "\"start_time\":1795950000}" },
		{ "ReservationName=x StartTime=now EndTime=now+2hours Nodes=n[1-2] Users=u PartitionName=debug",
		  "{\"end_time\":1795953600,\"name\":\"x\",\"nodes\":\"n[1-2]\",\"partition\":\"debug\","
		  "\"start_time\":1795946400,\"users\":\"u\"}" },
		{ "Reservation=y S=now D=1-00:00:00 Nodes=n1 U=u",
		  "{\"end_time\":1796032800,\"name\":\"y\",\"nodes\":\"n1\",\"start_time\":1795946400,\"users\":\"u\"}" },
		{ "StartTime=now Duration=10 EndTime=now+10minutes Nodes=n1 Users=u",
		  "{\"end_time\":1795947000,\"nodes\":\"n1\",\"start_time\":1795946400,\"users\":\"u\"}" },
	};
	for (size_t i = 0; i < N(good); i++) {
		json_t *body;
		char err[512] = "";
		assert_int_equal(parse_line(RESV_OP_CREATE, good[i].line, &body, err, sizeof(err)), 0);
		char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
		if (strcmp(text, good[i].want))
			fail_msg("%s: %s", good[i].line, text);
		free(text);
		json_decref(body);
	}
}

static void create_refusals(void **state)
{
	static const struct {
		const char *line, *err;
	} bad[] = {
		{ "Duration=10 Nodes=n1 Users=u", "A start time must be given.  No reservation created." },
		{ "StartTime=now Nodes=n1 Users=u", "An end time or duration must be given.  No reservation created." },
		{ "StartTime=now+10 EndTime=now Duration=10 Nodes=n1 Users=u",
		  "StartTime + Duration does not equal EndTime.  No reservation created." },
		{ "StartTime=now+600 EndTime=now Nodes=n1 Users=u",
		  "Start time cannot be after end time.  No reservation created." },
		{ "StartTime=now Duration=10 Users=u",
		  "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  No reservation created." },
		{ "StartTime=now Duration=10 Nodes=n1",
		  "Either Users/Groups and/or Accounts must be specified.  No reservation created." },
		{ "StartTime=now Duration=10 Nodes=n1 Users=u Flags=bogus",
		  "Error parsing flags bogus.  No reservation created." },
		{ "StartTime=now Duration=bad Nodes=n1 Users=u", "Invalid duration Duration=bad.  No reservation created." },
		{ "StartTime=bogus Duration=10 Nodes=n1 Users=u",
		  "Invalid time specification (pos=0): bogus\nInvalid start time StartTime=bogus.  No reservation created." },
		{ "StartTime=now Duration=10 Nodes=n1 Users=u Color=red", "Unknown parameter Color=red.  No reservation created." },
		{ "StartTime=now Duration=10 CoreCnt=4 Users=u", "CoreCnt is not supported by Herd.  No reservation created." },
		{ "StartTime=now Duration=10 NodeCnt=0 Users=u", "Invalid node count NodeCnt=0.  No reservation created." },
	};
	for (size_t i = 0; i < N(bad); i++) {
		json_t *body = (json_t *)1;
		char err[512] = "";
		assert_int_equal(parse_line(RESV_OP_CREATE, bad[i].line, &body, err, sizeof(err)), -1);
		assert_null(body);
		if (strcmp(err, bad[i].err))
			fail_msg("%s: %s", bad[i].line, err);
	}
}

static void update_bodies(void **state)
{
	json_t *body;
	char err[512] = "";
	assert_int_equal(parse_line(RESV_OP_UPDATE, "Reservation=r Duration=20 Flags+=DAILY Flags-=MAINT "
				    "NodeCnt=3", &body, err, sizeof(err)), 0);
	char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text, "{\"duration\":1200,\"flags\":\"DAILY\",\"flags_remove\":\"MAINT\","
			    "\"name\":\"r\",\"node_cnt\":3}");
	free(text);
	json_decref(body);
	assert_int_equal(parse_line(RESV_OP_UPDATE, "Duration=20", &body, err, sizeof(err)), -1);
	assert_string_equal(err, "Reservation must be given.  No reservation update.");
	assert_int_equal(parse_line(RESV_OP_UPDATE, "Reservation=r bogus=1", &body, err, sizeof(err)), -1);
	assert_string_equal(err, "Unknown parameter bogus=1.  No reservation update.");
	assert_int_equal(parse_line(RESV_OP_UPDATE, "Reservation=r Users+=x", &body, err, sizeof(err)), -1);
	assert_string_equal(err, "Users+= is not supported by Herd.  No reservation update.");
}

static void record_layout(void **state)
{
	char dur[32];
	assert_string_equal(fmt_hms(3600, dur, sizeof(dur)), "01:00:00");
	assert_string_equal(fmt_hms(600, dur, sizeof(dur)), "00:10:00");
	assert_string_equal(fmt_hms(90061, dur, sizeof(dur)), "1-01:01:01");

	setenv("TZ", "UTC", 1);
	tzset();
	json_t *resv = json_pack("{s:s, s:I, s:I, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:s}",
				 "name", "root_1", "start_time", (json_int_t)NOW, "end_time",
				 (json_int_t)NOW + 3600, "nodes", "n1", "node_cnt", 1, "core_cnt", 8,
				 "cpus", 8, "partition", "debug", "flags", "", "users", "root",
				 "accounts", "", "state", "ACTIVE");
	struct record r = { 0 };
	scontrol_resv_record(resv, &r);
	assert_int_equal(r.count, 5);
	assert_string_equal(r.lines[0], "ReservationName=root_1 StartTime=2026-11-29T10:00:00 "
			    "EndTime=2026-11-29T11:00:00 Duration=01:00:00");
	assert_string_equal(r.lines[1], "Nodes=n1 NodeCnt=1 CoreCnt=8 Features=(null) "
			    "PartitionName=debug Flags=");
	assert_string_equal(r.lines[2], "TRES=cpu=8");
	assert_string_equal(r.lines[3], "Users=root Groups=(null) Accounts=(null) Licenses=(null) "
			    "State=ACTIVE BurstBuffer=(null) Watts=n/a");
	assert_string_equal(r.lines[4], "MaxStartDelay=(null)");
	opt_strv_free(r.lines);
	json_decref(resv);
}

static void sinfo_table(void **state)
{
	char *text = NULL;
	size_t len = 0;
	setenv("TZ", "UTC", 1);
	tzset();
	json_t *list = json_pack("[{s:s, s:s, s:I, s:I, s:s}, {s:s, s:s, s:I, s:I, s:s}]",
				 "name", "root_1", "state", "ACTIVE", "start_time", (json_int_t)NOW,
				 "end_time", (json_int_t)NOW + 3600, "nodes", "n1",
				 "name", "longer_name_here_x", "state", "INACTIVE", "start_time",
				 (json_int_t)NOW + 3600, "end_time", (json_int_t)NOW + 3600 + 86400,
				 "nodes", "n[2-3]");
	FILE *out = open_memstream(&text, &len);
	scontrol_resv_table(list, false, out);
	fclose(out);
	assert_string_equal(text,
		"RESV_NAME              STATE           START_TIME             END_TIME     DURATION  NODELIST\n"
		"root_1                ACTIVE  2026-11-29T10:00:00  2026-11-29T11:00:00     01:00:00  n1\n"
		"longer_name_here_x  INACTIVE  2026-11-29T11:00:00  2026-11-30T11:00:00   1-00:00:00  n[2-3]\n");
	free(text);
	json_array_clear(list);
	out = open_memstream(&text, &len);
	scontrol_resv_table(list, false, out);
	fclose(out);
	assert_string_equal(text, "No reservations in the system\n");
	free(text);
	json_decref(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_bodies),
		cmocka_unit_test(create_refusals),
		cmocka_unit_test(update_bodies),
		cmocka_unit_test(record_layout),
		cmocka_unit_test(sinfo_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
