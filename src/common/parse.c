/* Slurm's notations for time limits, memory sizes, timestamps, integers and
 * booleans: parsing and printing.  Pure functions; the callers decide what a
 * value means (for example that --time=0 asks for no limit). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/bitmap.h"
#include "common/parse.h"

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		goto error;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			goto error;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		v = v * 10 + d;
	}
	if (v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
error:
	errno = EINVAL;
	return -1;
}

bool parse_bool(const char *s, bool *out)
{
	static const struct { const char *word; bool value; } words[] = {
		{ "yes", true }, { "true", true }, { "1", true },
		{ "no", false }, { "false", false }, { "0", false },
	};

	if (!s)
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(s, words[i].word) == 0) {
			*out = words[i].value;
			return true;
		}
	}
	return false;
}

/* Each field of a time limit is bounded so the sum cannot overflow; a
 * hundred million days is far beyond any meaningful limit. */
#define TIME_FIELD_MAX 100000000ULL

/* Read digits up to a character of stop (or the end); fails on an empty field. */
static int time_field(const char **s, const char *stop, uint64_t *out)
{
	char buf[24];
	size_t n = strcspn(*s, stop);

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, *s, n);
	buf[n] = '\0';
	if (parse_uint(buf, TIME_FIELD_MAX, out) < 0)
		return -1;
	*s += n;
	return 0;
}

int parse_time_limit(const char *s, int64_t *seconds)
{
	uint64_t f[3] = { 0 };
	uint64_t days = 0, total;
	size_t nf = 0;

	if (!s || !*s)
		goto error;
	if (strcmp(s, "-1") == 0 || strcasecmp(s, "UNLIMITED") == 0 ||
	    strcasecmp(s, "INFINITE") == 0) {
		*seconds = TIME_INFINITE;
		return 0;
	}
	const char *p = s;
	bool has_days = strchr(s, '-') != NULL;
	if (has_days) {
		if (time_field(&p, "-", &days) < 0 || *p != '-')
			goto error;
		p++;
	}
	for (;;) {
		if (nf == 3 || time_field(&p, ":", &f[nf]) < 0)
			goto error;
		nf++;
		if (*p == '\0')
			break;
		if (*p != ':')
			goto error;
		p++;
	}
	/* Slurm reads the fields differently with and without a day part:
	 * "M", "M:S", "H:M:S" but "D-H", "D-H:M", "D-H:M:S". */
	if (has_days) {
		uint64_t h = f[0], m = nf > 1 ? f[1] : 0, sec = nf > 2 ? f[2] : 0;
		total = ((days * 24 + h) * 60 + m) * 60 + sec;
	} else if (nf == 1) {
		total = f[0] * 60;
	} else if (nf == 2) {
		total = f[0] * 60 + f[1];
	} else {
		total = (f[0] * 60 + f[1]) * 60 + f[2];
	}
	/* The hours of "D-H" can carry the days past the bound: fmt_duration
	 * would then print a limit this cannot read back (found by fuzzing). */
	if (total / 86400 > TIME_FIELD_MAX)
		goto error;
	*seconds = (int64_t)total;
	return 0;
error:
	errno = EINVAL;
	return -1;
}

char *fmt_hms(int64_t s, char *buf, size_t len)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 86400,
			 s / 3600 % 24, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s / 60 % 60,
			 s % 60);
	return buf;
}

char *fmt_duration(int64_t seconds, char *buf, size_t len)
{
	if (seconds == TIME_INFINITE) {
		snprintf(buf, len, "UNLIMITED");
		return buf;
	}
	if (seconds < 0) {
		snprintf(buf, len, "INVALID");
		return buf;
	}
	int64_t days = seconds / 86400, hours = seconds / 3600 % 24;
	int64_t minutes = seconds / 60 % 60, secs = seconds % 60;
	/* squeue: M:SS under an hour, H:MM:SS under a day, then D-HH:MM:SS. */
	if (days > 0)
		snprintf(buf, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64,
		         days, hours, minutes, secs);
	else if (hours > 0)
		snprintf(buf, len, "%" PRId64 ":%02" PRId64 ":%02" PRId64, hours, minutes, secs);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64, minutes, secs);
	return buf;
}

int parse_size_mb(const char *s, uint64_t *mb)
{
	char digits[24];
	uint64_t v, shift_mb = 0;
	bool kilo = false;
	size_t n;

	if (!s)
		goto error;
	n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(digits))
		goto error;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (parse_uint(digits, UINT64_MAX, &v) < 0)
		goto error;
	if (s[n] != '\0') {
		/* Slurm takes "100MB"/"1gb" as "100M"/"1g" (launchers write them) */
		if (s[n + 1] != '\0' && (toupper((unsigned char)s[n + 1]) != 'B' || s[n + 2] != '\0'))
			goto error;
		switch (toupper((unsigned char)s[n])) {
		case 'K': kilo = true; break;
		case 'M': shift_mb = 0; break;
		case 'G': shift_mb = 10; break;
		case 'T': shift_mb = 20; break;
		/* fmt_size_mb prints these past 1024T: what it prints must read back. */
		case 'P': shift_mb = 30; break;
		case 'E': shift_mb = 40; break;
		default: goto error;
		}
	}
	if (kilo) {
		v = v / 1024 + (v % 1024 != 0);   /* Slurm rounds kilobytes up */
	} else if (shift_mb) {
		if (v > (UINT64_MAX >> shift_mb))
			goto error;
		v <<= shift_mb;
	}
	*mb = v;
	return 0;
error:
	errno = EINVAL;
	return -1;
}

/* The largest unit that divides the value exactly, as Slurm prints job
 * memory ("MinMemoryNode=4G", "512M", "1T"); 0 prints as "0". */
char *fmt_size_mb(uint64_t mb, char *buf, size_t len)
{
	static const char units[] = "MGTPE";
	size_t u = 0;

	if (mb == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (u + 1 < sizeof(units) - 1 && mb % 1024 == 0) {
		mb /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", mb, units[u]);
	return buf;
}

char *fmt_timestamp(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (t == 0 || !localtime_r(&t, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "Unknown");
	return buf;
}

int parse_array_spec(const char *spec, uint32_t max_size, struct bitmap **tasks,
		     uint32_t *throttle)
{
	const char *pct = strchr(spec, '%');
	char *ranges = pct ? strndup(spec, pct - spec) : strdup(spec);
	uint64_t limit = 0;

	*tasks = NULL;
	*throttle = 0;
	if (!ranges)
		return -1;
	/* "%0" is taken, as Slurm takes it: no throttle. */
	if (pct && parse_uint(pct + 1, UINT32_MAX, &limit) < 0) {
		free(ranges);
		return -1;
	}
	*tasks = bitmap_parse_user(ranges, max_size);   /* a user's: bounded work */
	int why = errno;
	free(ranges);
	if (!*tasks) {
		errno = why;
		return -1;
	}
	*throttle = (uint32_t)limit;
	return 0;
}
/* Slurm's order when it prints a mail type list. */
static const struct {
	const char *name;
	unsigned bit;
} mail_types[] = {
	{ "ARRAY_TASKS", MAIL_ARRAY_TASKS }, { "INVALID_DEPEND", MAIL_INVALID_DEPEND },
	{ "BEGIN", MAIL_BEGIN }, { "END", MAIL_END }, { "FAIL", MAIL_FAIL },
	{ "REQUEUE", MAIL_REQUEUE }, { "STAGE_OUT", MAIL_STAGE_OUT },
	{ "TIME_LIMIT", MAIL_TIME_LIMIT }, { "TIME_LIMIT_90", MAIL_TIME_LIMIT_90 },
	{ "TIME_LIMIT_80", MAIL_TIME_LIMIT_80 }, { "TIME_LIMIT_50", MAIL_TIME_LIMIT_50 },
};

int parse_mail_type(const char *s, unsigned *mask)
{
	unsigned m = 0;

	if (!s || !*s)
		return -1;
	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;
		if (len == 4 && !strncasecmp(s, "NONE", 4)) {
			m = 0;
			found = true;
		} else if (len == 3 && !strncasecmp(s, "ALL", 3)) {
			m |= MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE | MAIL_INVALID_DEPEND |
			     MAIL_STAGE_OUT;
			found = true;
		}
		for (size_t i = 0; !found && i < sizeof(mail_types) / sizeof(mail_types[0]); i++)
			if (strlen(mail_types[i].name) == len && !strncasecmp(s, mail_types[i].name, len)) {
				m |= mail_types[i].bit;
				found = true;
			}
		if (!found)
			return -1;
		s += len;
		if (*s == ',' && !*++s)
			return -1;   /* a trailing comma */
	}
	*mask = m;
	return 0;
}

char *fmt_mail_type(unsigned mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(mail_types) / sizeof(mail_types[0]); i++)
		if ((mask & mail_types[i].bit) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", mail_types[i].name);
	if (!n)
		snprintf(buf, len, "NONE");
	return buf;
}
