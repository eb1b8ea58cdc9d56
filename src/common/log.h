/* Logging with levels, to stderr or a file; one line per call, safe from threads.
 * Daemons log; commands print errors themselves in Slurm's style. */
#ifndef HERD_LOG_H
#define HERD_LOG_H

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* file NULL = stderr.  Returns -1 if the file cannot be opened (errno set). */
int log_init(const char *prog, enum log_level level, const char *file);
void log_set_level(enum log_level level);
enum log_level log_level_parse(const char *name);   /* "error".."debug", or Slurm's "info", "verbose", "debug2" */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
