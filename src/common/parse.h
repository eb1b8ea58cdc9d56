/* Parsing and printing of Slurm's time and size notations.  Pure functions. */
#ifndef HERD_PARSE_H
#define HERD_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TIME_INFINITE (-1)   /* "UNLIMITED", "INFINITE", "-1" */
#define TIME_NOT_GIVEN (-2)  /* on the wire: no --time, so the partition's default applies */
/* The longest time limit taken, in seconds: Slurm keeps minutes in 32 bits.
 * Bounded so that a start time plus a limit never overflows. */
#define TIME_LIMIT_MAX (4294967294LL * 60)
/* The latest timestamp taken (--begin, --deadline): 9999-12-31T23:59:59Z,
 * so that a time plus a limit stays far inside 64 bits. */
#define TIMESTAMP_MAX 253402300799LL

/* Slurm time limits (--time, MaxTime, DefaultTime): "minutes", "minutes:seconds",
 * "hours:minutes:seconds", "days-hours", "days-hours:minutes",
 * "days-hours:minutes:seconds", "UNLIMITED"/"INFINITE".  Result in seconds
 * (TIME_INFINITE for unlimited).  -1 on malformed input. */
int parse_time_limit(const char *s, int64_t *seconds);
/* Format a duration as Slurm prints it: "0:00", "5:07", "1:02:03", "1-02:03:04",
 * "UNLIMITED" for TIME_INFINITE.  Returns buf. */
char *fmt_duration(int64_t seconds, char *buf, size_t len);
/* The fixed form scontrol and sacct print: "HH:MM:SS", "D-HH:MM:SS" past a
 * day; a negative duration as 0.  Returns buf. */
char *fmt_hms(int64_t seconds, char *buf, size_t len);
/* Time limits as squeue/scontrol print them: like fmt_duration. */
#define fmt_time_limit fmt_duration

/* Memory sizes in megabytes: "512" (MB), "512M", "4G", "1T", "2048K" (and
 * "2P", "1E", which fmt_size_mb prints for the largest).
 * -1 on malformed input or overflow. */
int parse_size_mb(const char *s, uint64_t *mb);
/* Format MB as Slurm does in "scontrol show": "4G" when a whole number of GiB, else "512M". */
char *fmt_size_mb(uint64_t mb, char *buf, size_t len);

/* Timestamps as Slurm prints them: "2026-11-29T09:20:03" (local time); 0 -> "Unknown",
 * and "None" is left to callers where Slurm uses it. */
char *fmt_timestamp(time_t t, char *buf, size_t len);

/* Positive integer with strict checks ("12", not "12x", not ""); -1 on error. */
int parse_uint(const char *s, uint64_t max, uint64_t *out);
bool parse_bool(const char *s, bool *out);   /* YES/NO, TRUE/FALSE, 1/0 — case-insensitive */

struct bitmap;
/* A job array's --array value, "0-31", "1,3,5,7", "1-7:2", "0-15%4": the task
 * IDs (each < max_size, Slurm's MaxArraySize) and the throttle (0 = none).
 * -1 on anything else (errno E2BIG: over bitmap_parse_user's caps); *tasks
 * is then NULL. */
int parse_array_spec(const char *spec, uint32_t max_size, struct bitmap **tasks,
		     uint32_t *throttle);

/* sbatch --mail-type: a comma list of NONE, BEGIN, END, FAIL, REQUEUE, ALL,
 * INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90/80/50, ARRAY_TASKS
 * (case-insensitive).  ALL is BEGIN,END,FAIL,REQUEUE,INVALID_DEPEND,STAGE_OUT,
 * as in Slurm; NONE clears what came before it.  -1 on an unknown word. */
#define MAIL_BEGIN 0x001
#define MAIL_END 0x002
#define MAIL_FAIL 0x004
#define MAIL_REQUEUE 0x008
#define MAIL_TIME_LIMIT 0x010
#define MAIL_TIME_LIMIT_90 0x020
#define MAIL_TIME_LIMIT_80 0x040
#define MAIL_TIME_LIMIT_50 0x080
#define MAIL_ARRAY_TASKS 0x100
#define MAIL_INVALID_DEPEND 0x200
#define MAIL_STAGE_OUT 0x400
int parse_mail_type(const char *s, unsigned *mask);
/* The mask as scontrol shows MailType= ("BEGIN,END"; "NONE" for 0). */
char *fmt_mail_type(unsigned mask, char *buf, size_t len);

#endif
