/* SchedulerType and SchedulerParameters (sched_conf.h): Slurm's option
 * names, defaults and ranges (slurm.conf(5)); a value out of range is an
 * error naming the option, never silently clamped. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/sched_conf.h"

void sched_conf_default(struct sched_conf *c)
{
	*c = (struct sched_conf){
		.backfill = true, .default_queue_depth = 100, .sched_interval = 60,
		.bf_window = 1440, .bf_resolution = 60, .bf_interval = 30,
		.bf_max_job_test = 500, .bf_max_job_user = 0, .bf_continue = false,
	};
}

struct option {
	const char *name;
	size_t offset;
	long min, max;
	const char *unit;
};

#define OPT(field, min, max, unit) { #field, offsetof(struct sched_conf, field), min, max, unit }
static const struct option options[] = {
	OPT(default_queue_depth, 1, 1000000, ""),
	OPT(sched_interval, 0, 86400, " seconds"),
	OPT(bf_window, 1, 43200, " minutes"),
	OPT(bf_resolution, 1, 3600, " seconds"),
	OPT(bf_interval, -1, 10800, " seconds"),   /* -1: no backfill loop (Slurm) */
	OPT(bf_max_job_test, 1, 1000000, ""),
	OPT(bf_max_job_user, 0, 1000000, ""),
};

/* One "name[=value]" of the list (len bytes at p). */
static int parse_one(const char *p, size_t len, struct sched_conf *c, struct herd_error *err)
{
	const char *eq = memchr(p, '=', len);
	size_t nlen = eq ? (size_t)(eq - p) : len;

	if (nlen == strlen("bf_continue") && !strncasecmp(p, "bf_continue", nlen)) {
		if (eq)
			return errprintf(err, "SchedulerParameters: bf_continue takes no value");
		c->bf_continue = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const struct option *o = &options[i];
		if (nlen != strlen(o->name) || strncasecmp(p, o->name, nlen))
			continue;
		char value[32] = "";
		size_t vlen = eq ? len - nlen - 1 : 0;
		if (vlen >= sizeof(value))
			vlen = sizeof(value) - 1;
		if (eq)
			memcpy(value, eq + 1, vlen);
		char *end;
		errno = 0;
		long v = strtol(value, &end, 10);
		if (!eq || !*value || *end || errno || v < o->min || v > o->max)
			return errprintf(err, "SchedulerParameters: invalid %s=%s (an integer from %ld to %ld%s)",
					 o->name, value, o->min, o->max, o->unit);
		*(int *)((char *)c + o->offset) = (int)v;
		return 0;
	}
	return 0;   /* another part's option (kill_invalid_depend, ...) */
}

int sched_conf_parse(const char *type, const char *params, struct sched_conf *c,
		     struct herd_error *err)
{
	struct sched_conf n;

	sched_conf_default(&n);
	if (type && strcasecmp(type, "sched/backfill")) {
		if (strcasecmp(type, "sched/builtin"))
			return errprintf(err, "SchedulerType=%s is not known (sched/backfill or sched/builtin)",
					 type);
		n.backfill = false;
	}
	for (const char *p = params; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len && parse_one(p, len, &n, err) < 0)
			return -1;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n.bf_max_job_user > n.bf_max_job_test)
		return errprintf(err, "SchedulerParameters: invalid bf_max_job_user=%d (at most bf_max_job_test, %d)",
				 n.bf_max_job_user, n.bf_max_job_test);
	*c = n;
	return 0;
}

bool sched_conf_flag(const char *params, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = params; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncasecmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}
