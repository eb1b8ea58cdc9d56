/* Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the input
 * as a C string, a scratch directory, quiet logs.  Only the fuzz build
 * includes this. */
#ifndef HERD_FUZZ_H
#define HERD_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (an embedded NUL ends it early, as
 * it would for the C string the daemon gets).  Caller frees. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Daemons log what they refuse: formatted (so a bad format is caught) but
 * thrown away, so the fuzzer does not spend its time writing. */
static inline void fuzz_quiet(void)
{
	log_init("fuzz", LOG_LVL_DEBUG, "/dev/null");
}

/* A private directory for targets whose parser reads a file (one per
 * process, in $TMPDIR), emptied and removed at exit. */
static char fuzz_dir_path[256];
static char fuzz_files[4][64];

static inline void fuzz_dir_remove(void)
{
	char path[512];
	for (int i = 0; i < 4 && fuzz_files[i][0]; i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir_path, fuzz_files[i]);
		unlink(path);
	}
	rmdir(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/herd-fuzz-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Write data to dir/name (name: at most 4 different ones per target);
 * returns the path (a static buffer). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];
	int i;
	for (i = 0; i < 4 && fuzz_files[i][0] && strcmp(fuzz_files[i], name); i++)
		;
	if (i == 4)
		abort();
	snprintf(fuzz_files[i], sizeof(fuzz_files[i]), "%s", name);
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	return path;
}

#endif
