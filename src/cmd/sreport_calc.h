/* sreport's arithmetic (sreport_calc.c): pure functions of their inputs. */
#ifndef HERD_CMD_SREPORT_CALC_H
#define HERD_CMD_SREPORT_CALC_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum time_fmt { TF_SECS, TF_MINS, TF_HOURS, TF_PERCENT, TF_SECS_PER, TF_MINS_PER, TF_HOURS_PER };

/* -t's names, case-insensitive, abbreviated (the Per forms to six letters,
 * the others to one); -1 for another. */
int sreport_time_fmt_parse(const char *s, enum time_fmt *out);
const char *sreport_time_fmt_name(enum time_fmt f);   /* "Minutes", "Percentage of Total" */
/* A figure (seconds) as -t prints it: seconds, minutes or hours rounded,
 * percent of total with two decimals, or both ("60(50.00%)").  Returns buf. */
char *sreport_time_value(long long secs, long long total, enum time_fmt f, char *buf, size_t len);
/* The window from start=/end= (given or not): an end past now is now; both
 * to the nearest hour; defaults yesterday's and today's midnight; at least
 * an hour. */
void sreport_window(bool start_given, time_t start_in, bool end_given, time_t end_in,
		    time_t now, time_t *start, time_t *end);
/* A time column's width for its largest figure (seconds): 8, one more per
 * power of ten from 10^8, 9 more for the Per formats. */
int sreport_usage_width(long long max_secs, enum time_fmt f);
/* A job record's CPU-seconds within [start, end) (num_cpus x elapsed, a
 * running job's up to now), as sacct counts them. */
long long sreport_job_cpu_secs(const json_t *job, time_t start, time_t end, time_t now);
/* -T: the TRES the reports count (Herd keeps the time of these two). */
enum sreport_tres { SREPORT_TRES_CPU, SREPORT_TRES_GPU };
/* How many of it a job record held (num_cpus; gres/gpu of tres_alloc_gres,
 * 0 when the record has none), and its TRES-seconds within [start, end). */
long long sreport_job_count(const json_t *job, enum sreport_tres tres);
long long sreport_job_tres_secs(const json_t *job, enum sreport_tres tres, time_t start,
				time_t end, time_t now);
/* SizesByAccount's column of a job of cpus CPUs, for grouping groups. */
int sreport_size_bucket(const long *groups, size_t ngroups, long cpus);
/* The banner's second line: "Usage reported in CPU Minutes" (TRES with
 * -T; "Time reported in" for the job reports). */
void sreport_usage_line(char *buf, size_t len, const char *what, enum time_fmt f, bool tres);

#endif
