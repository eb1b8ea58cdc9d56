/* Preemption: not yet (issue 6 builds it here). */
#include "ctld/preempt.h"

bool preempt_for(struct job *job, const struct part *p)
{
	return false;
}

void preempt_setup(void)
{
}
