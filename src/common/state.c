/* State names for jobs and nodes. */
#include <strings.h>
#include "common/state.h"

static const char *job_names[] = {
#define X(e, name, code) name,
	JOB_STATE_TABLE(X)
#undef X
};
static const char *job_codes[] = {
#define X(e, name, code) code,
	JOB_STATE_TABLE(X)
#undef X
};
static const char *node_names[] = {
#define X(e, name, code) name,
	NODE_STATE_TABLE(X)
#undef X
};
static const char *node_shorts[] = {
#define X(e, name, code) code,
	NODE_STATE_TABLE(X)
#undef X
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? job_names[s] : "UNKNOWN";
}

const char *job_state_code(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? job_codes[s] : "??";
}

int job_state_parse(const char *s)
{
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		if (!strcasecmp(s, job_names[i]) || !strcasecmp(s, job_codes[i]))
			return i;
	return -1;
}

const char *node_state_name(enum node_state s)
{
	return (unsigned)s < NODE_STATE_COUNT ? node_names[s] : "UNKNOWN";
}

const char *node_state_short(enum node_state s)
{
	return (unsigned)s < NODE_STATE_COUNT ? node_shorts[s] : "unk";
}

int node_state_parse(const char *s)
{
	for (int i = 0; i < NODE_STATE_COUNT; i++)
		if (!strcasecmp(s, node_names[i]) || !strcasecmp(s, node_shorts[i]))
			return i;
	return -1;
}
