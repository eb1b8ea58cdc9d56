/* Leveled log lines: "[2026-11-29T09:20:03.123] herdctld: error: text". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include "common/log.h"

static char log_prog[32] = "herd";
static enum log_level log_max = LOG_LVL_INFO;
static FILE *log_file;

int log_init(const char *prog, enum log_level level, const char *file)
{
	snprintf(log_prog, sizeof(log_prog), "%s", prog);
	log_max = level;
	if (file) {
		FILE *f = fopen(file, "a");
		if (!f)
			return -1;
		setvbuf(f, NULL, _IOLBF, 0);
		log_file = f;
	}
	return 0;
}

void log_set_level(enum log_level level)
{
	log_max = level;
}

enum log_level log_level_parse(const char *name)
{
	if (!name)
		return LOG_LVL_INFO;
	if (!strcasecmp(name, "error") || !strcasecmp(name, "fatal") || !strcasecmp(name, "quiet"))
		return LOG_LVL_ERROR;
	if (!strcasecmp(name, "warn") || !strcasecmp(name, "warning"))
		return LOG_LVL_WARN;
	if (!strncasecmp(name, "debug", 5))
		return LOG_LVL_DEBUG;
	return LOG_LVL_INFO;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *names[] = { "error: ", "warning: ", "", "debug: " };
	char line[2048], stamp[32];
	struct timeval tv;
	struct tm tm;
	va_list ap;
	int n;

	if (level > log_max)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "[%s.%03ld] %s: %s", stamp, (long)tv.tv_usec / 1000,
		     log_prog, names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	fwrite(line, 1, n, log_file ? log_file : stderr);  /* one write per line */
	if (!log_file)
		fflush(stderr);
}
