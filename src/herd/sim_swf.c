/* The Standard Workload Format reader (Parallel Workloads Archive, v2.2):
 * ';' header lines ("; MaxProcs: 100"), then one job a line, 18
 * whitespace-separated numbers, -1 where unknown.  Plain or gzip files
 * (zlib reads both).  It reads the fields replay needs; it does not judge
 * them (sim_run.c skips jobs without a size or a run time). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "common/xmalloc.h"
#include "herd/sim.h"

#define SWF_FIELDS 18
#define SWF_LINE_MAX 4096

/* "; MaxProcs: 128" and the like: the machine's size. */
static void parse_header(const char *p, struct swf_trace *trace)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "MaxProcs", offsetof(struct swf_trace, max_procs) },
		{ "MaxNodes", offsetof(struct swf_trace, max_nodes) },
	};
	while (*p == ';' || isspace((unsigned char)*p))
		p++;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t len = strlen(keys[k].key);
		if (strncasecmp(p, keys[k].key, len) || p[len] != ':')
			continue;
		char *end;
		errno = 0;
		long v = strtol(p + len + 1, &end, 10);
		if (!errno && end != p + len + 1 && v > 0)
			*(long *)((char *)trace + keys[k].off) = v;
	}
}

int swf_parse_line(const char *line, struct swf_job *job, struct swf_trace *trace,
		   struct herd_error *err)
{
	double f[SWF_FIELDS];
	const char *p = line;
	int n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0')
		return 0;
	if (*p == ';') {
		if (trace)
			parse_header(p, trace);
		return 0;
	}
	while (*p) {
		char *end;
		if (n == SWF_FIELDS)
			return errprintf(err, "more than %d fields", SWF_FIELDS);
		errno = 0;
		f[n] = strtod(p, &end);
		if (end == p || (*end && !isspace((unsigned char)*end)) || errno || !isfinite(f[n]) ||
		    fabs(f[n]) > 1e15) {
			int len = 0;
			while (p[len] && !isspace((unsigned char)p[len]) && len < 20)
				len++;
			return errprintf(err, "field %d is not a number: '%.*s'", n + 1, len, p);
		}
		n++;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (n < SWF_FIELDS)
		return errprintf(err, "%d fields, SWF has %d", n, SWF_FIELDS);
	*job = (struct swf_job){
		.id = (long)f[0], .submit = (int64_t)f[1], .run = (int64_t)f[3],
		.alloc_procs = (long)f[4], .req_procs = (long)f[7], .req_time = (int64_t)f[8],
		.user = (long)f[11], .group = (long)f[12], .queue = (long)f[14],
		.partition = (long)f[15], .preceding = (long)f[16], .think = (int64_t)f[17],
	};
	return 1;
}

int swf_load(const char *path, size_t max_jobs, struct swf_trace *trace, struct herd_error *err)
{
	char line[SWF_LINE_MAX];
	size_t cap = 0, lineno = 0;
	gzFile gz;

	memset(trace, 0, sizeof(*trace));
	if (!(gz = gzopen(path, "rb")))
		return errprintf(err, "%s: %s", path, strerror(errno ? errno : ENOMEM));
	while ((max_jobs == 0 || trace->njobs < max_jobs) && gzgets(gz, line, sizeof(line))) {
		struct herd_error e;
		struct swf_job job;
		size_t len = strlen(line);
		int rc;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			errprintf(err, "%s:%zu: line longer than %d bytes", path, lineno, SWF_LINE_MAX - 1);
			goto error;
		}
		if ((rc = swf_parse_line(line, &job, trace, &e)) < 0) {
			errprintf(err, "%s:%zu: %s", path, lineno, e.text);
			goto error;
		}
		if (rc == 0)
			continue;
		if (trace->njobs == cap) {
			cap = cap ? cap * 2 : 1024;
			trace->jobs = xrealloc(trace->jobs, cap * sizeof(*trace->jobs));
		}
		trace->jobs[trace->njobs++] = job;
	}
	int errnum;
	const char *msg = gzerror(gz, &errnum);
	if (errnum != Z_OK) {   /* Z_BUF_ERROR: a truncated gzip file */
		errprintf(err, "%s: %s", path, errnum == Z_ERRNO ? strerror(errno) : msg);
		goto error;
	}
	gzclose(gz);
	return 0;
error:
	gzclose(gz);
	swf_trace_free(trace);
	return -1;
}

void swf_trace_free(struct swf_trace *trace)
{
	if (!trace)
		return;
	free(trace->jobs);
	trace->jobs = NULL;
	trace->njobs = 0;
}

long swf_job_size(const struct swf_job *job)
{
	return job->alloc_procs > 0 ? job->alloc_procs : job->req_procs > 0 ? job->req_procs : -1;
}

int64_t swf_job_estimate(const struct swf_job *job)
{
	return job->req_time > 0 ? job->req_time : job->run;
}

int64_t swf_job_runtime(const struct swf_job *job)
{
	int64_t est = swf_job_estimate(job);
	return job->run < est ? job->run : est;
}
