/* Secrets kept out of herd.conf (which every user reads): a file that
 * only root or SlurmUser can read, as Slurm keeps StoragePass in a
 * slurmdbd.conf of mode 600. */
#ifndef HERD_SECRET_H
#define HERD_SECRET_H

#include <sys/types.h>
#include "common/error.h"

/* The first line of the file at path (key names the setting, for the
 * error): a regular file, not a symlink, owned by root or by owner, with
 * no permission for group or others.  Malloc'd, or NULL with err naming
 * the file and what is wrong.  The secret never appears in err. */
char *secret_read(const char *path, uid_t owner, const char *key, struct herd_error *err);

/* 32 hex digits of fresh randomness into out (size >= 33): a request's
 * key, an I/O connection's key.  -1 when the kernel has no entropy to give
 * (the caller decides whether a weaker key will do). */
int secret_random_hex(char *out, size_t size);

#endif
