/* Multifactor priority: not yet (issue 6 builds it here). */
#include "ctld/prio.h"

void prio_update(time_t now)
{
}

void prio_setup(void)
{
}
