/* The herd.conf keys Herd accepts but does not act on (conf_inert.c). */
#ifndef HERD_CONF_INERT_H
#define HERD_CONF_INERT_H
#include <stdbool.h>
#include "common/conf.h"

/* The keys and attributes conf sets that no part of Herd acts on, as one
 * line ("Prolog, TaskProlog, LLN (PartitionName)"), to free; NULL when
 * there are none.  A key set to what Herd does anyway (AuthType=auth/munge,
 * SwitchType=switch/none) is not named. */
char *conf_inert_keys(const struct conf *conf);
/* Is name one of the plain keys accepted and not acted on? */
bool conf_inert_key(const char *name);

#endif
