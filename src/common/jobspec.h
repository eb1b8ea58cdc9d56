/* The JOBSPEC, SUBMIT_JOB's "job" object (doc/protocol.md): one table of
 * its keys with their types and, for integers, their bounds.  The
 * commands' encoder (cmd/jobopt.c) takes each option's type from it, the
 * message catalog (msg.c) decodes with it, and the controller's submission
 * (core/submit.c) checks the bounds with it.  Pure: no I/O. */
#ifndef HERD_COMMON_JOBSPEC_H
#define HERD_COMMON_JOBSPEC_H
#include <jansson.h>
#include "common/error.h"
#include "common/msg.h"

/* The keys, ending with { NULL }: the "job" schema of SUBMIT_JOB. */
extern const struct msg_field jobspec_fields[];

/* The key's row; NULL when the JOBSPEC has no such key. */
const struct msg_field *jobspec_field(const char *key);

/* Every integer of spec (already decoded with jobspec_fields) within its
 * bounds: 0, or -1 with err naming the key. */
int jobspec_check(const json_t *spec, struct herd_error *err);

#endif
