/* sreport's arithmetic, apart from its I/O (sreport.c): -t's names and
 * how a figure prints in each, the report window as Slurm sets it, column
 * widths, a job record's CPU-seconds within the window, SizesByAccount's
 * buckets.  Pure: tests/unit/test_sreport.c checks them directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/opt.h"
#include "cmd/sreport_calc.h"
#include "common/state.h"

/* -t's names, case-insensitive, abbreviated: the Per forms need all six
 * letters ("MinPer"), the others one ("m" is Minutes). */
int sreport_time_fmt_parse(const char *s, enum time_fmt *out)
{
	static const struct {
		const char *name;
		size_t min;
		enum time_fmt fmt;
	} names[] = {
		{ "SecPer", 6, TF_SECS_PER }, { "MinPer", 6, TF_MINS_PER }, { "HourPer", 6, TF_HOURS_PER },
		{ "Seconds", 1, TF_SECS }, { "Minutes", 1, TF_MINS }, { "Hours", 1, TF_HOURS },
		{ "Percent", 1, TF_PERCENT },
	};
	size_t len = strlen(s);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (len >= names[i].min && len <= strlen(names[i].name) &&
		    !strncasecmp(s, names[i].name, len)) {
			*out = names[i].fmt;
			return 0;
		}
	return -1;
}

const char *sreport_time_fmt_name(enum time_fmt f)
{
	switch (f) {
	case TF_SECS: return "Seconds";
	case TF_MINS: return "Minutes";
	case TF_HOURS: return "Hours";
	case TF_PERCENT: return "Percentage of Total";
	case TF_SECS_PER: return "Seconds/Percentage of Total";
	case TF_MINS_PER: return "Minutes/Percentage of Total";
	case TF_HOURS_PER: return "Hours/Percentage of Total";
	}
	return "Minutes";
}

/* A time figure as sreport prints it: seconds as they are, minutes and
 * hours rounded, percent of total with two decimals, or both. */
char *sreport_time_value(long long secs, long long total, enum time_fmt f, char *buf,
				size_t len)
{
	double pct = total > 0 ? (double)secs * 100.0 / (double)total : 0;
	switch (f) {
	case TF_SECS: snprintf(buf, len, "%lld", secs); break;
	case TF_MINS: snprintf(buf, len, "%.0f", (double)secs / 60); break;
	case TF_HOURS: snprintf(buf, len, "%.0f", (double)secs / 3600); break;
	case TF_PERCENT: snprintf(buf, len, "%.2f%%", pct); break;
	case TF_SECS_PER: snprintf(buf, len, "%lld(%.2f%%)", secs, pct); break;
	case TF_MINS_PER: snprintf(buf, len, "%.0f(%.2f%%)", (double)secs / 60, pct); break;
	case TF_HOURS_PER: snprintf(buf, len, "%.0f(%.2f%%)", (double)secs / 3600, pct); break;
	}
	return buf;
}

/* sreport's window: an end past now is now; given times go to the nearest
 * hour (its usage is kept by the hour; xx:29:30 is already the next);
 * defaults: yesterday's midnight to today's; at least an hour long. */
static time_t round_hour(time_t t)
{
	struct tm tm;
	localtime_r(&t, &tm);
	if (tm.tm_sec >= 30)
		tm.tm_min++;
	if (tm.tm_min >= 30)
		tm.tm_hour++;
	tm.tm_sec = tm.tm_min = 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

void sreport_window(bool start_given, time_t start_in, bool end_given, time_t end_in,
			   time_t now, time_t *start, time_t *end)
{
	struct tm tm;
	localtime_r(&now, &tm);
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	time_t midnight = mktime(&tm);
	tm.tm_mday--;
	tm.tm_isdst = -1;
	time_t yesterday = mktime(&tm);
	*end = end_given ? round_hour(end_in > now ? now : end_in) : midnight;
	*start = start_given ? round_hour(start_in) : yesterday;
	if (*end - *start < 3600)
		*end = *start + 3600;
}

/* The width of a time column: 8, one more for each power of ten of the
 * largest figure (in seconds) from 10^8 on, 9 more for the Per formats, as
 * Slurm sizes its usage columns. */
int sreport_usage_width(long long max_secs, enum time_fmt f)
{
	int width = 8;
	for (long long order = 100000000LL; max_secs >= order && width < 26; order *= 10)
		width++;
	if (f == TF_SECS_PER || f == TF_MINS_PER || f == TF_HOURS_PER)
		width += 9;
	return width;
}

long long sreport_job_count(const json_t *job, enum sreport_tres tres)
{
	if (tres == SREPORT_TRES_CPU)
		return cmd_jint(job, "num_cpus");
	/* gres/gpu: what the record kept (AccountingStorageTRES named it) */
	const char *p = cmd_jstr(job, "tres_alloc_gres");
	while (*p) {
		if (!strncmp(p, "gres/gpu=", 9))
			return strtoll(p + 9, NULL, 10);
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return 0;
}

/* The TRES-seconds a job record held within [start, end), as sacct counts
 * them (num_cpus, or its GPUs, x elapsed; a running one up to now). */
long long sreport_job_tres_secs(const json_t *job, enum sreport_tres tres, time_t start,
				time_t end, time_t now)
{
	int state = job_state_parse(cmd_jstr(job, "state"));
	long long js = cmd_jint(job, "start_time"), je = cmd_jint(job, "end_time");
	long long cpus = sreport_job_count(job, tres);
	if (state < 0 || state == JOB_PENDING || !js || cpus <= 0 ||
	    !json_array_size(json_object_get(job, "alloc")))
		return 0;
	if (!job_state_is_final(state) || !je)
		je = now;
	if (js < start)
		js = start;
	if (je > end)
		je = end;
	return je > js ? (je - js) * cpus : 0;
}

long long sreport_job_cpu_secs(const json_t *job, time_t start, time_t end, time_t now)
{
	return sreport_job_tres_secs(job, SREPORT_TRES_CPU, start, end, now);
}

/* SizesByAccount's columns: grouping "50,250,500,1000" gives 0-49,
 * 50-249, 250-499, 500-999, >= 1000; the column of a job of cpus CPUs. */
int sreport_size_bucket(const long *groups, size_t ngroups, long cpus)
{
	size_t i;
	for (i = 0; i < ngroups && cpus >= groups[i]; i++)
		;
	return (int)i;
}

/* The banner's second line: "Usage reported in CPU Minutes" ("TRES
 * Minutes" when -T named the TRES). */
void sreport_usage_line(char *buf, size_t len, const char *what, enum time_fmt f, bool tres)
{
	if (f == TF_PERCENT)
		snprintf(buf, len, "%s reported in %s", what, sreport_time_fmt_name(f));
	else if (!strcmp(what, "Usage"))
		snprintf(buf, len, "Usage reported in %s %s", tres ? "TRES" : "CPU",
			 sreport_time_fmt_name(f));
	else
		snprintf(buf, len, "%s reported in %s", what, sreport_time_fmt_name(f));
}

