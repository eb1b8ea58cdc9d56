/* Controller replies (doc/protocol.md's JOB, NODE, PART) in the field names,
 * types and units of slurmrestd's openapi/v0.0.38 (Slurm 22.05), so that
 * clients generated from that spec read Herd unchanged.  Pure: no I/O. */
#include <ctype.h>
#include <string.h>
#include "common/error.h"
#include "common/job_fields.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

/* The Slurm release whose REST dialect we speak: clients branch on it. */
#define SLURM_MAJOR 22
#define SLURM_MINOR 5
#define SLURM_MICRO 0

static const char *map_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static json_int_t map_num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static bool map_flag(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

json_t *restd_meta(void)
{
	return json_pack("{s:{s:s, s:s}, s:{s:{s:i, s:i, s:i}, s:s}}",
			 "plugin", "type", "openapi/" RESTD_API_VERSION,
			 "name", "Slurm OpenAPI " RESTD_API_VERSION,
			 "Slurm", "version", "major", SLURM_MAJOR, "micro", SLURM_MICRO,
			 "minor", SLURM_MINOR, "release", "22.05.0 (herd)");
}

json_t *restd_error(int error_number, const char *error, const char *source)
{
	json_t *e = json_pack("{s:s, s:i}", "error", error ? error : herd_strerror(error_number),
			      "error_number", error_number);
	if (source)
		json_object_set_new(e, "source", json_string(source));
	return e;
}

json_t *restd_envelope(const char *key, json_t *items, json_t *errors)
{
	json_t *o = json_object();
	json_object_set_new(o, "meta", restd_meta());
	json_object_set_new(o, "errors", errors ? errors : json_array());
	if (key)
		json_object_set_new(o, key, items ? items : json_array());
	else
		json_decref(items);
	return o;
}

int64_t restd_minutes(int64_t seconds)
{
	if (seconds < 0)
		return RESTD_INFINITE;
	/* A limit given in seconds still allows that whole last minute. */
	return (seconds + 59) / 60;
}

/* Upper-case state name to v0.0.38's lower case ("IDLE" -> "idle"). */
static json_t *map_lower(const char *s)
{
	char buf[64];
	size_t i;
	for (i = 0; s[i] && i < sizeof(buf) - 1; i++)
		buf[i] = tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return json_string(buf);
}

json_t *restd_job_v38(const json_t *job, const char *cluster)
{
	json_t *o = json_object();
	/* Each JOB key v0.0.38 has as it is, under its name there (the job
	 * field table's "rest" names). */
	for (size_t id = 0; id < JOB_F_NKEYS; id++) {
		const struct job_field *f = &job_fields[id];
		json_t *v;
		if (!f->rest)
			continue;
		if (f->type == JOB_FIELD_STR)
			v = json_string(map_str(job, f->key));
		else if (f->type == JOB_FIELD_BOOL)
			v = json_boolean(map_flag(job, f->key));
		else
			v = json_integer(map_num(job, f->key));
		json_object_set_new(o, f->rest, v);
	}
	json_int_t limit = map_num(job, "time_limit");
	json_int_t end = map_num(job, "end_time");
	json_int_t start = map_num(job, "start_time");
	/* Slurm reports a running job's expected end: start + limit. */
	if (!end && start && limit > 0)
		end = start + limit;
	json_object_set_new(o, "end_time", json_integer(end));
	json_object_set_new(o, "accrue_time", json_integer(map_num(job, "eligible_time")));
	json_object_set_new(o, "batch_flag", json_true());
	json_object_set_new(o, "cluster", json_string(cluster ? cluster : ""));
	/* Both are raw wait statuses, as Slurm's job records keep them. */
	json_object_set_new(o, "derived_exit_code", json_integer(map_num(job, "exit_code")));
	json_object_set_new(o, "time_limit", json_integer(restd_minutes(limit)));
	json_object_set_new(o, "array_job_id", json_integer(0));
	json_object_set_new(o, "array_task_id", json_null());
	json_object_set_new(o, "flags", json_array());
	json_object_set_new(o, "state_description", json_string(""));
	/* sbatch's scheduling options (absent in an older controller's reply: defaults) */
	json_t *rq = json_object_get(job, "requeue");
	json_int_t tmin = json_object_get(job, "time_min") ? map_num(job, "time_min") : -2;
	json_object_set_new(o, "qos", json_string(*map_str(job, "qos") ? map_str(job, "qos") : "normal"));
	json_object_set_new(o, "requeue", json_boolean(rq ? json_is_true(rq) : true));
	json_object_set_new(o, "time_minimum", json_integer(tmin < 0 ? 0 : restd_minutes(tmin)));
	return o;
}

json_t *restd_node_v38(const json_t *node)
{
	json_int_t cpus = map_num(node, "cpus"), alloc = map_num(node, "alloc_cpus");
	json_t *flags = json_array();
	json_t *parts = json_array();
	json_t *p = json_object_get(node, "partitions");
	size_t i;
	json_t *v;

	if (map_flag(node, "drain"))
		json_array_append_new(flags, json_string("DRAIN"));
	if (map_flag(node, "not_responding"))
		json_array_append_new(flags, json_string("NOT_RESPONDING"));
	json_array_foreach(p, i, v)
		if (json_is_string(v))
			json_array_append(parts, v);
	json_t *o = json_pack(
		"{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:o, s:s,"
		" s:o, s:I, s:I, s:s, s:I, s:I, s:I, s:s}",
		"architecture", map_str(node, "arch"),
		"boards", map_num(node, "boards"),
		"boot_time", map_num(node, "boot_time"),
		"cores", map_num(node, "cores"),
		"cpus", cpus,
		"alloc_cpus", alloc,
		"idle_cpus", cpus > alloc ? cpus - alloc : 0,
		"alloc_memory", map_num(node, "alloc_mem"),
		"name", map_str(node, "name"),
		"address", map_str(node, "addr"),
		"hostname", map_str(node, "hostname"),
		"state", map_lower(map_str(node, "state")),
		"operating_system", map_str(node, "os"),
		"state_flags", flags,
		"port", map_num(node, "port"),
		"real_memory", map_num(node, "real_memory"),
		"reason", map_str(node, "reason"),
		"slurmd_start_time", map_num(node, "slurmd_start_time"),
		"sockets", map_num(node, "sockets"),
		"threads", map_num(node, "threads"),
		"slurmd_version", map_str(node, "version"));
	json_object_set_new(o, "partitions", parts);
	json_object_set_new(o, "features", json_string(""));
	json_object_set_new(o, "active_features", json_string(""));
	json_object_set_new(o, "gres", json_string(map_str(node, "gres")));
	json_object_set_new(o, "gres_drained", json_string("N/A"));
	json_object_set_new(o, "gres_used", json_string(map_str(node, "gres_used")));
	json_object_set_new(o, "owner", json_null());
	json_object_set_new(o, "next_state_after_reboot", json_string("invalid"));
	json_object_set_new(o, "next_state_after_reboot_flags", json_array());
	return o;
}

json_t *restd_partition_v38(const json_t *part)
{
	json_int_t max_nodes = map_num(part, "max_nodes"), def_time = map_num(part, "default_time");
	json_t *flags = json_array();

	if (map_flag(part, "default"))
		json_array_append_new(flags, json_string("default"));
	return json_pack(
		"{s:o, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
		"flags", flags,
		"name", map_str(part, "name"),
		"nodes", map_str(part, "nodes"),
		"state", map_str(part, "state"),
		"total_cpus", map_num(part, "total_cpus"),
		"total_nodes", map_num(part, "total_nodes"),
		"maximum_nodes_per_job", (json_int_t)(max_nodes < 0 ? RESTD_INFINITE : max_nodes),
		"min_nodes_per_job", map_num(part, "min_nodes"),
		"max_time_limit", (json_int_t)restd_minutes(map_num(part, "max_time")),
		/* Slurm leaves an unset DefaultTime at NO_VAL. */
		"default_time_limit", (json_int_t)(def_time < 0 ? RESTD_NO_VAL : restd_minutes(def_time)),
		"priority_job_factor", map_num(part, "priority_job_factor"),
		"priority_tier", map_num(part, "priority_tier"),
		"over_subscribe", map_str(part, "oversubscribe"));
}

json_t *restd_ping_v38(const json_t *reply, const char *host)
{
	if (!reply)
		return json_pack("{s:s, s:s, s:i, s:s}", "hostname", host ? host : "", "ping", "DOWN",
				 "status", -1, "mode", "primary");
	return json_pack("{s:s, s:s, s:i, s:s}", "hostname", *map_str(reply, "controller") ?
			 map_str(reply, "controller") : (host ? host : ""), "ping", "UP", "status", 0,
			 "mode", "primary");
}

json_t *restd_jobs_v38(const json_t *jobs, const char *cluster)
{
	json_t *out = json_array(), *v;
	size_t i;
	json_array_foreach(jobs, i, v)
		if (json_is_object(v))
			json_array_append_new(out, restd_job_v38(v, cluster));
	return out;
}

json_t *restd_nodes_v38(const json_t *nodes)
{
	json_t *out = json_array(), *v;
	size_t i;
	json_array_foreach(nodes, i, v)
		if (json_is_object(v))
			json_array_append_new(out, restd_node_v38(v));
	return out;
}

json_t *restd_licenses_v38(const json_t *lics)
{
	json_t *out = json_array(), *l;
	size_t i;
	json_array_foreach(lics, i, l)
		json_array_append_new(out, json_pack("{s:s, s:I, s:I, s:I, s:I, s:b}", "LicenseName",
						     map_str(l, "name"), "Total", map_num(l, "total"),
						     "Used", map_num(l, "used"), "Free", map_num(l, "free"),
						     "Reserved", map_num(l, "reserved"), "Remote",
						     map_flag(l, "remote")));
	return out;
}

json_t *restd_partitions_v38(const json_t *parts)
{
	json_t *out = json_array(), *v;
	size_t i;
	json_array_foreach(parts, i, v)
		if (json_is_object(v))
			json_array_append_new(out, restd_partition_v38(v));
	return out;
}

int restd_http_status(int rc)
{
	switch (rc) {
	case HERD_OK:
		return 200;
	case HERD_ERR_INVALID_JOB:
	case HERD_ERR_INVALID_NODE:
	case HERD_ERR_INVALID_PARTITION:
		return 404;
	case HERD_ERR_AUTH:   /* the controller refused the token */
		return 401;
	case HERD_ERR_ACCESS:
	case HERD_ERR_USER_ID:
		return 403;
	default:
		return 500;
	}
}
