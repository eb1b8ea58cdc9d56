/* squeue's job columns: for each field of the job field table that has a
 * squeue letter (common/job_fields.h, where its title and -O name are), the
 * JOB keys it reads, its cell and its -S value; and reading a job of a
 * JOB_INFO reply, an object or a row.  Pure: no I/O but user and group
 * names. */
#ifndef HERD_CMD_SQUEUE_COLS_H
#define HERD_CMD_SQUEUE_COLS_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "cmd/fmt.h"

/* A job of the reply is an object, or with "rows" an array of values in the
 * order of the reply's "keys" (a third of the text, and no hash table per
 * job: squeue over 100,000 jobs).  These read either, once told the keys
 * of each reply (NULL: objects). */
void squeue_reply_keys(const json_t *keys);
const char *squeue_jstr(const json_t *job, const char *key);
long long squeue_jint(const json_t *job, const char *key);

/* One line of output. */
struct squeue_row {
	const json_t *job;
	time_t now;
	long long task;     /* one pending task of an array's meta record (-r), else -1 */
};

/* The -o letters (-S takes any of them), their titles and the -O names. */
const char *squeue_letters(void);
const struct fmt_title *squeue_titles(void);
const struct fmt_name *squeue_long_names(void);

/* A cell (a fmt_value_f: row is a struct squeue_row). */
const char *squeue_value(char letter, const void *row, char *buf, size_t len);

/* Append to keys (a JSON array) the JOB keys letter reads, so squeue asks
 * the controller for those alone; false for a letter it does not know. */
bool squeue_add_keys(json_t *keys, char letter);

/* A job's value for one -S letter, looked up once per job, not at every
 * comparison (qsort of 100,000 jobs compares some 1.7 million times):
 * text (s), or a number when s is NULL; {NULL, 0} for a letter that sorts
 * nothing. */
struct squeue_sort_value {
	const char *s;
	long long n;
};
struct squeue_sort_value squeue_sort_value(const json_t *job, char letter);

#endif
