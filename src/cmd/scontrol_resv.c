/* scontrol create|update|delete|show reservation, in Slurm's syntax and
 * words.  The controller checks what needs its state (nodes, overlaps,
 * users); this side what Slurm's scontrol checks before sending. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/scontrol_resv.h"
#include "common/error.h"
#include "common/msg.h"
#include "common/parse.h"
#include "common/xmalloc.h"

/* Slurm's reservation flags; Herd implements the first ones (the
 * controller refuses the others with a sentence). */
static const char *const slurm_flags[] = {
	"MAINT", "DAILY", "WEEKLY", "IGNORE_JOBS", "FLEX", "OVERLAP", "SPEC_NODES",
	"ANY_NODES", "STATIC_ALLOC", "PART_NODES", "FIRST_CORES", "TIME_FLOAT", "REPLACE",
	"REPLACE_DOWN", "NO_HOLD_JOBS_AFTER", "PURGE_COMP", "WEEKDAY", "WEEKEND", "MAGNETIC",
	"HOURLY", "LICENSE_ONLY", "NO_HOLD_JOBS", "USER_DELETE", "NO_PURGE_COMP", NULL,
};

static bool flags_known(const char *v)
{
	char *copy = xstrdup(v), *save = NULL;
	bool ok = *v != '\0';
	for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
		size_t k = 0;
		while (slurm_flags[k] && strcasecmp(t, slurm_flags[k]))
			k++;
		ok = slurm_flags[k] != NULL;
	}
	free(copy);
	return ok;
}

/* Does tag (taglen chars) name key, as Slurm's scontrol takes it: a prefix
 * of at least min characters? */
static bool tag_is(const char *tag, size_t taglen, const char *key, size_t min)
{
	return taglen >= min && taglen <= strlen(key) && !strncasecmp(tag, key, taglen);
}

#define YEAR (365LL * 86400)   /* Duration=UNLIMITED: Slurm's "a year" */

int scontrol_resv_parse(enum resv_op op, int argc, char **argv, time_t now, json_t **body,
			char *err, size_t errlen)
{
	const char *tail = op == RESV_OP_CREATE ? "No reservation created." : "No reservation update.";
	json_t *b = json_object();
	bool have_start = false, have_end = false, have_dur = false;
	time_t start = 0, end = 0;
	int64_t dur = 0;

	*body = NULL;
	for (int a = 0; a < argc; a++) {
		const char *arg = argv[a], *eq = strchr(arg, '=');
		if (!eq) {
			/* "create reservation ...": the entity's own word */
			if (a == 0 && tag_is(arg, strlen(arg), "reservation", 3))
				continue;
			snprintf(err, errlen, "Unknown parameter %s.  %s", arg, tail);
			goto error;
		}
		size_t taglen = eq - arg;
		char sign = taglen && (arg[taglen - 1] == '+' || arg[taglen - 1] == '-') ? arg[taglen - 1] : 0;
		if (sign)
			taglen--;
		const char *v = eq + 1;
		if (sign && !tag_is(arg, taglen, "Flags", 1)) {
			snprintf(err, errlen, "%.*s%c= is not supported by Herd.  %s", (int)taglen, arg,
				 sign, tail);
			goto error;
		}
		if (tag_is(arg, taglen, "ReservationName", 3)) {
			json_object_set_new(b, "name", json_string(v));
		} else if (tag_is(arg, taglen, "StartTime", 1)) {
			if (opt_time_parse(v, now, false, &start) < 0) {
				snprintf(err, errlen, "Invalid time specification (pos=%d): %s\n"
					 "Invalid start time %s.  %s", opt_time_error_pos(v), v, arg, tail);
				goto error;
			}
			have_start = true;
		} else if (tag_is(arg, taglen, "EndTime", 1)) {
			if (opt_time_parse(v, now, false, &end) < 0) {
				snprintf(err, errlen, "Invalid time specification (pos=%d): %s\n"
					 "Invalid end time %s.  %s", opt_time_error_pos(v), v, arg, tail);
				goto error;
			}
			have_end = true;
		} else if (tag_is(arg, taglen, "Duration", 1)) {
			if (parse_time_limit(v, &dur) < 0 || dur == 0) {
				snprintf(err, errlen, "Invalid duration %s.  %s", arg, tail);
				goto error;
			}
			if (dur == TIME_INFINITE)
				dur = YEAR;
			have_dur = true;
		} else if (tag_is(arg, taglen, "NodeCnt", 5)) {
			uint64_t n;
			if (parse_uint(v, 1000000, &n) < 0 || !n) {
				snprintf(err, errlen, "Invalid node count %s.  %s", arg, tail);
				goto error;
			}
			json_object_set_new(b, "node_cnt", json_integer((json_int_t)n));
		} else if (tag_is(arg, taglen, "Nodes", 5)) {
			json_object_set_new(b, "nodes", json_string(v));
		} else if (tag_is(arg, taglen, "Users", 1)) {
			json_object_set_new(b, "users", json_string(v));
		} else if (tag_is(arg, taglen, "Accounts", 1)) {
			json_object_set_new(b, "accounts", json_string(v));
		} else if (tag_is(arg, taglen, "PartitionName", 2)) {
			json_object_set_new(b, "partition", json_string(v));
		} else if (tag_is(arg, taglen, "Flags", 1)) {
			if (!flags_known(v)) {
				snprintf(err, errlen, "Error parsing flags %s.  %s", v, tail);
				goto error;
			}
			if (sign == '-' && op == RESV_OP_CREATE) {
				snprintf(err, errlen, "Flags-= is only for an update.  %s", tail);
				goto error;
			}
			json_object_set_new(b, sign == '-' ? "flags_remove" : "flags", json_string(v));
		} else if (tag_is(arg, taglen, "Licenses", 1)) {
			json_object_set_new(b, "licenses", json_string(v));
		} else if (tag_is(arg, taglen, "CoreCnt", 2) ||
			   tag_is(arg, taglen, "BurstBuffer", 1) || tag_is(arg, taglen, "Watts", 1) ||
			   tag_is(arg, taglen, "Groups", 1) || tag_is(arg, taglen, "TRES", 2) ||
			   tag_is(arg, taglen, "Features", 2) || tag_is(arg, taglen, "MaxStartDelay", 1)) {
			snprintf(err, errlen, "%.*s is not supported by Herd.  %s", (int)taglen, arg, tail);
			goto error;
		} else {
			snprintf(err, errlen, "Unknown parameter %s.  %s", arg, tail);
			goto error;
		}
	}
	if (op == RESV_OP_UPDATE) {
		if (!json_object_get(b, "name")) {
			snprintf(err, errlen, "Reservation must be given.  %s", tail);
			goto error;
		}
		if (have_start)
			json_object_set_new(b, "start_time", json_integer((json_int_t)start));
		if (have_end)
			json_object_set_new(b, "end_time", json_integer((json_int_t)end));
		if (have_dur)
			json_object_set_new(b, "duration", json_integer((json_int_t)dur));
		*body = b;
		return 0;
	}
	/* create: Slurm's scontrol checks, in its order */
	if (!have_start) {
		snprintf(err, errlen, "A start time must be given.  %s", tail);
		goto error;
	}
	if (!have_end && !have_dur) {
		snprintf(err, errlen, "An end time or duration must be given.  %s", tail);
		goto error;
	}
	if (have_end && have_dur && start + dur != end) {
		snprintf(err, errlen, "StartTime + Duration does not equal EndTime.  %s", tail);
		goto error;
	}
	if (!have_end)
		end = start + dur;
	if (start > end) {
		snprintf(err, errlen, "Start time cannot be after end time.  %s", tail);
		goto error;
	}
	if (!json_object_get(b, "nodes") && !json_object_get(b, "node_cnt") &&
	    !json_object_get(b, "licenses")) {   /* Licenses alone: the controller's refusal */
		snprintf(err, errlen, "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
			 "specified.  %s", tail);
		goto error;
	}
	if (!json_object_get(b, "users") && !json_object_get(b, "accounts")) {
		snprintf(err, errlen, "Either Users/Groups and/or Accounts must be specified.  %s", tail);
		goto error;
	}
	json_object_set_new(b, "start_time", json_integer((json_int_t)start));
	json_object_set_new(b, "end_time", json_integer((json_int_t)end));
	*body = b;
	return 0;
error:
	json_decref(b);
	return -1;
}

static const char *resv_or_null(const char *s)
{
	return s && *s ? s : "(null)";
}

void scontrol_resv_record(const json_t *resv, struct record *r)
{
	char start[64], end[64], dur[64];
	long long s = cmd_jint(resv, "start_time"), e = cmd_jint(resv, "end_time");

	record_add(r, "ReservationName=%s StartTime=%s EndTime=%s Duration=%s",
		   cmd_jstr(resv, "name"), fmt_timestamp((time_t)s, start, sizeof(start)),
		   fmt_timestamp((time_t)e, end, sizeof(end)),
		   fmt_hms(e - s, dur, sizeof(dur)));
	record_add(r, "Nodes=%s NodeCnt=%lld CoreCnt=%lld Features=(null) PartitionName=%s Flags=%s",
		   resv_or_null(cmd_jstr(resv, "nodes")), cmd_jint(resv, "node_cnt"),
		   cmd_jint(resv, "core_cnt"), resv_or_null(cmd_jstr(resv, "partition")),
		   cmd_jstr(resv, "flags"));
	record_add(r, "TRES=cpu=%lld", cmd_jint(resv, "cpus"));
	record_add(r, "Users=%s Groups=(null) Accounts=%s Licenses=%s State=%s "
		   "BurstBuffer=(null) Watts=n/a", resv_or_null(cmd_jstr(resv, "users")),
		   resv_or_null(cmd_jstr(resv, "accounts")), resv_or_null(cmd_jstr(resv, "licenses")),
		   cmd_jstr(resv, "state"));
	record_add(r, "MaxStartDelay=(null)");
}

void scontrol_resv_table(const json_t *list, bool no_header, FILE *out)
{
	size_t i, width = strlen("RESV_NAME");
	json_t *resv;

	if (!json_array_size(list)) {
		fprintf(out, "No reservations in the system\n");
		return;
	}
	json_array_foreach(list, i, resv)
		if (strlen(cmd_jstr(resv, "name")) > width)
			width = strlen(cmd_jstr(resv, "name"));
	if (!no_header)
		fprintf(out, "%-*s  %8s  %19s  %19s  %11s  %s\n", (int)width, "RESV_NAME", "STATE",
			"START_TIME", "END_TIME", "DURATION", "NODELIST");
	json_array_foreach(list, i, resv) {
		char start[64], end[64], dur[64];
		long long s = cmd_jint(resv, "start_time"), e = cmd_jint(resv, "end_time");
		fprintf(out, "%-*s  %8s  %19s  %19s  %11s  %s\n", (int)width, cmd_jstr(resv, "name"),
			cmd_jstr(resv, "state"), fmt_timestamp((time_t)s, start, sizeof(start)),
			fmt_timestamp((time_t)e, end, sizeof(end)),
			fmt_hms(e - s, dur, sizeof(dur)), cmd_jstr(resv, "nodes"));
	}
}

static void print_err_lines(const char *err)
{
	char *copy = xstrdup(err), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "Invalid time specification", 26))
			fprintf(stderr, "%s\n", line);
		else
			fprintf(stderr, "scontrol: error: %s\n", line);
	free(copy);
}

/* delete: "ReservationName=x", "Reservation=x", or "reservation x". */
static const char *delete_name(int argc, char **argv)
{
	if (argc < 1)
		return NULL;
	const char *eq = strchr(argv[0], '=');
	if (eq && tag_is(argv[0], eq - argv[0], "ReservationName", 3))
		return eq + 1;
	if (!eq && argc == 2 && tag_is(argv[0], strlen(argv[0]), "reservation", 3))
		return argv[1];
	return NULL;
}

int scontrol_resv_run(struct cmd_client *c, enum resv_op op, int argc, char **argv)
{
	struct herd_error e = { "" };
	char err[512];
	json_t *body = NULL, *reply = NULL;
	int rc;

	if (op == RESV_OP_DELETE) {
		const char *name = delete_name(argc, argv);
		if (!name) {
			fprintf(stderr, "invalid entity:%s for keyword:delete \n", argc ? argv[0] : "");
			return 1;
		}
		body = json_pack("{s:s}", "name", name);
		rc = cmd_call(c, MSG_RESV_DELETE, body, &reply, &e);
		json_decref(body);
		json_decref(reply);
		if (rc) {
			fprintf(stderr, "delete_reservation %s: %s\n",
				argc == 2 ? argv[1] : argv[0], e.text);
			return 1;
		}
		return 0;
	}
	if (scontrol_resv_parse(op, argc, argv, time(NULL), &body, err, sizeof(err)) < 0) {
		print_err_lines(err);
		return 1;
	}
	bool partition = json_object_get(body, "partition") != NULL;
	rc = cmd_call(c, op == RESV_OP_CREATE ? MSG_RESV_CREATE : MSG_RESV_UPDATE, body, &reply, &e);
	json_decref(body);
	if (rc == 0) {
		if (op == RESV_OP_CREATE)
			printf("Reservation created: %s\n", cmd_jstr(reply, "name"));
		else
			printf("Reservation updated.\n");
		json_decref(reply);
		return 0;
	}
	if (op == RESV_OP_CREATE) {
		fprintf(stderr, "Error creating the reservation: %s\n", e.text);
		if (rc == HERD_ERR_NODES_BUSY && !partition)
			printf("Note, unless nodes are directly requested a reservation must exist in "
			       "a single partition.\nIf no partition is requested the default "
			       "partition is assumed.\n");
	} else {
		fprintf(stderr, "Error updating the reservation: %s\n", e.text);
		fprintf(stderr, "slurm_update error: %s\n", e.text);
	}
	return 1;
}

int scontrol_resv_show(struct cmd_client *c, const char *name, bool oneliner)
{
	struct herd_error e = { "" };
	json_t *body = name ? json_pack("{s:s}", "name", name) : json_object(), *reply = NULL;
	int rc = cmd_call(c, MSG_RESV_INFO, body, &reply, &e);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "slurm_load_reservations error: %s\n", e.text);
		return 1;
	}
	json_t *list = json_object_get(reply, "reservations"), *resv;
	size_t i;
	json_array_foreach(list, i, resv) {
		struct record r = { 0 };
		scontrol_resv_record(resv, &r);
		record_print(&r, oneliner);
	}
	size_t n = json_array_size(list);
	json_decref(reply);
	if (!n && name) {
		printf("Reservation %s not found\n", name);
		return 1;
	}
	if (!n)
		printf("No reservations in the system\n");
	return 0;
}
