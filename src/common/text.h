/* Checks of the free text users give that ends up in records, files of
 * one line per record, or another program's argument list (job names,
 * comments, account descriptions, --mail-user).  Pure: no I/O. */
#ifndef HERD_TEXT_H
#define HERD_TEXT_H

#include <stdbool.h>
#include "common/error.h"

/* A control character (0x00-0x1f, 0x7f) anywhere in s: a newline or a
 * tab in a stored name breaks every line-based output that shows it. */
bool text_has_control(const char *s);
/* s in lower case (ASCII), a new string: Slurm keeps account, QOS, user and
 * cluster names so and matches what a user types against them so. */
char *text_lower(const char *s);

/* 0 when s (what was given for `what`, e.g. "job name") holds no control
 * character, else -1 with err saying which field. */
int text_check_plain(const char *s, const char *what, struct herd_error *err);

/* 0 when s is a plausible user name or mail address for --mail-user
 * (letters, digits, ". _ + = % -", at most one '@', UTF-8 bytes; not
 * starting with '-' or '.'), else -1 with err ("Invalid --mail-user ..."). */
int text_check_mail_user(const char *s, struct herd_error *err);

#endif
