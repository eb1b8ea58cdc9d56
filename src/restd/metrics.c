/* /metrics: the cluster's counts in OpenMetrics text (what Prometheus scrapes),
 * computed from one JOB_COUNTS and one NODE_INFO reply.  Every state gets a
 * sample, zero included, so a series never vanishes when its count drops to
 * zero.  Pure: no I/O. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/state.h"
#include "restd/restd.h"

static void metrics_family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# TYPE %s gauge\n# HELP %s %s\n", name, name, help);
}

static void metrics_lower(const char *s, char *buf, size_t len)
{
	size_t i;
	for (i = 0; s[i] && i < len - 1; i++)
		buf[i] = tolower((unsigned char)s[i]);
	buf[i] = '\0';
}

char *restd_metrics_render(const json_t *job_counts, const json_t *nodes)
{
	long job_count[JOB_STATE_COUNT] = { 0 }, node_count[NODE_STATE_COUNT] = { 0 };
	long drain = 0, not_responding = 0;
	long long cpus = 0, alloc_cpus = 0, memory = 0, alloc_memory = 0;
	char *page = NULL, name[32];
	size_t size = 0, i;
	const char *key;
	json_t *v;
	FILE *f;

	json_object_foreach((json_t *)job_counts, key, v) {
		int s = job_state_parse(key);
		/* A state this build does not know is left out rather than guessed. */
		if (s >= 0 && json_integer_value(v) > 0)
			job_count[s] += json_integer_value(v);
	}
	json_array_foreach(nodes, i, v) {
		int s = node_state_parse(json_string_value(json_object_get(v, "state")) ?: "");
		if (s >= 0)
			node_count[s]++;
		drain += json_is_true(json_object_get(v, "drain"));
		not_responding += json_is_true(json_object_get(v, "not_responding"));
		cpus += json_integer_value(json_object_get(v, "cpus"));
		alloc_cpus += json_integer_value(json_object_get(v, "alloc_cpus"));
		memory += json_integer_value(json_object_get(v, "real_memory"));
		alloc_memory += json_integer_value(json_object_get(v, "alloc_mem"));
	}

	f = open_memstream(&page, &size);
	if (!f)
		abort();   /* out of memory, as xmalloc */
	metrics_family(f, "herd_jobs", "Jobs known to the controller, by state.");
	for (int s = 0; s < JOB_STATE_COUNT; s++) {
		metrics_lower(job_state_name(s), name, sizeof(name));
		fprintf(f, "herd_jobs{state=\"%s\"} %ld\n", name, job_count[s]);
	}
	metrics_family(f, "herd_nodes", "Nodes by base state (flags are counted apart).");
	for (int s = 0; s < NODE_STATE_COUNT; s++) {
		metrics_lower(node_state_name(s), name, sizeof(name));
		fprintf(f, "herd_nodes{state=\"%s\"} %ld\n", name, node_count[s]);
	}
	metrics_family(f, "herd_nodes_drain", "Nodes with the DRAIN flag.");
	fprintf(f, "herd_nodes_drain %ld\n", drain);
	metrics_family(f, "herd_nodes_not_responding", "Nodes with the NOT_RESPONDING flag.");
	fprintf(f, "herd_nodes_not_responding %ld\n", not_responding);
	metrics_family(f, "herd_cpus_total", "CPUs of all nodes.");
	fprintf(f, "herd_cpus_total %lld\n", cpus);
	metrics_family(f, "herd_cpus_alloc", "CPUs allocated to jobs.");
	fprintf(f, "herd_cpus_alloc %lld\n", alloc_cpus);
	fprintf(f, "# TYPE herd_memory_total_megabytes gauge\n# UNIT herd_memory_total_megabytes megabytes\n"
		"# HELP herd_memory_total_megabytes Real memory of all nodes.\n");
	fprintf(f, "herd_memory_total_megabytes %lld\n", memory);
	fprintf(f, "# TYPE herd_memory_alloc_megabytes gauge\n# UNIT herd_memory_alloc_megabytes megabytes\n"
		"# HELP herd_memory_alloc_megabytes Memory allocated to jobs.\n");
	fprintf(f, "herd_memory_alloc_megabytes %lld\n", alloc_memory);
	fputs("# EOF\n", f);
	if (fclose(f) != 0)
		abort();
	return page;
}
