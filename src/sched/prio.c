/* Slurm's priority/multifactor formula (priority_multifactor(5)): factors
 * in [0,1], weighed and summed.  Pure; the controller's side, which gives
 * it the fair-share factor and the cluster's totals, is src/ctld/prio.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sched/prio.h"

static const char *const tres_names[PRIO_TRES_COUNT] = {
	"cpu", "mem", "node", "billing", "gres/gpu"
};

const char *prio_tres_name(enum prio_tres t)
{
	return t < PRIO_TRES_COUNT ? tres_names[t] : "?";
}

void prio_weights_init(struct prio_weights *w)
{
	memset(w, 0, sizeof(*w));
	w->max_age = PRIO_MAX_AGE_DEFAULT;
}

static const struct {
	const char *name;
	unsigned bits;
} flag_names[] = {
	{ "ACCRUE_ALWAYS", PRIO_FLAG_ACCRUE_ALWAYS },
	{ "CALCULATE_RUNNING", PRIO_FLAG_CALCULATE_RUNNING },
	{ "DEPTH_OBLIVIOUS", PRIO_FLAG_DEPTH_OBLIVIOUS },
	{ "NO_FAIR_TREE", PRIO_FLAG_NO_FAIR_TREE },
	{ "FAIR_TREE", 0 },   /* the default since 19.05; still accepted */
	{ "INCR_ONLY", PRIO_FLAG_INCR_ONLY },
	{ "MAX_TRES", PRIO_FLAG_MAX_TRES },
	{ "NO_NORMAL_ALL", PRIO_FLAG_NO_NORMAL_ALL },
	{ "NO_NORMAL_ASSOC", PRIO_FLAG_NO_NORMAL_ASSOC },
	{ "NO_NORMAL_PART", PRIO_FLAG_NO_NORMAL_PART },
	{ "NO_NORMAL_QOS", PRIO_FLAG_NO_NORMAL_QOS },
	{ "NO_NORMAL_TRES", PRIO_FLAG_NO_NORMAL_TRES },
	{ "SMALL_RELATIVE_TO_TIME", PRIO_FLAG_SMALL_RELATIVE_TO_TIME },
};

int prio_flags_parse(const char *s, unsigned *flags, char *err, size_t errlen)
{
	*flags = 0;
	if (!s || !*s)
		return 0;
	char *copy = strdup(s), *save = NULL;
	int rc = 0;
	if (!copy)
		abort();
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
			if (!strcasecmp(tok, flag_names[i].name))
				break;
		if (i == sizeof(flag_names) / sizeof(flag_names[0])) {
			snprintf(err, errlen, "PriorityFlags: invalid flag '%s'", tok);
			rc = -1;
			break;
		}
		*flags |= flag_names[i].bits;
	}
	free(copy);
	return rc;
}

static int tres_index(const char *name)
{
	for (int t = 0; t < PRIO_TRES_COUNT; t++)
		if (!strcasecmp(name, tres_names[t]))
			return t;
	if (!strcasecmp(name, "gres/gpu") || !strncasecmp(name, "gres/gpu:", 9))
		return PRIO_TRES_GPU;
	return -1;
}

int prio_tres_weights_parse(const char *s, double w[PRIO_TRES_COUNT], char *err, size_t errlen)
{
	for (int t = 0; t < PRIO_TRES_COUNT; t++)
		w[t] = 0;
	if (!s || !*s)
		return 0;
	char *copy = strdup(s), *save = NULL;
	int rc = 0;
	if (!copy)
		abort();
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		int t;
		if (!eq) {
			snprintf(err, errlen, "PriorityWeightTRES: '%s' is not TRES=weight", tok);
			rc = -1;
			break;
		}
		*eq = '\0';
		if ((t = tres_index(tok)) < 0) {
			snprintf(err, errlen, "PriorityWeightTRES: invalid TRES '%s'", tok);
			rc = -1;
			break;
		}
		double v = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || !(v >= 0) || isinf(v)) {
			snprintf(err, errlen, "PriorityWeightTRES: invalid weight '%s' for %s", eq + 1,
				 tok);
			rc = -1;
			break;
		}
		w[t] = v;
	}
	free(copy);
	return rc;
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static double ratio(double x, double max)
{
	return max > 0 ? x / max : 0;
}

/* Age: how long the job has accrued (since it became eligible, or since
 * submission with ACCRUE_ALWAYS) over PriorityMaxAge, at most 1. */
static double age_factor(const struct prio_weights *w, const struct prio_job *job, time_t now)
{
	time_t since = (w->flags & PRIO_FLAG_ACCRUE_ALWAYS) ? job->submit_time : job->eligible_time;
	if (!since || now <= since)
		return 0;
	if (w->max_age <= 0)
		return 1;
	return clamp01((double)(now - since) / (double)w->max_age);
}

/* Job size: the nodes' and CPUs' shares of the cluster, averaged (large
 * jobs first), or one minus them (PriorityFavorSmall); with
 * SMALL_RELATIVE_TO_TIME the CPUs (at least nodes × the cluster's CPUs
 * per node) per minute of time limit over the cluster's CPUs. */
static double size_factor(const struct prio_weights *w, const struct prio_cluster *c,
			  const struct prio_job *job)
{
	double nodes = job->nodes ? job->nodes : 1, cpus = job->cpus, f;

	if (!c->nodes || !c->cpus)
		return 0;
	if (w->flags & PRIO_FLAG_SMALL_RELATIVE_TO_TIME) {
		double size = nodes * c->cpus / c->nodes;
		if (cpus > size)
			size = cpus;
		if (job->time_limit < 0)
			f = 0;   /* no limit: the size per minute tends to nothing */
		else
			f = size / (job->time_limit >= 60 ? job->time_limit / 60.0 : 1.0) / c->cpus;
		f = clamp01(f);
		return w->favor_small ? 1.0 - f : f;
	}
	if (w->favor_small) {
		f = (c->nodes - nodes) / c->nodes;
		if (cpus > 0)
			f = (f + (c->cpus - cpus) / c->cpus) / 2;
	} else {
		f = nodes / c->nodes;
		if (cpus > 0)
			f = (f + cpus / c->cpus) / 2;
	}
	return clamp01(f);
}

uint32_t prio_compute(const struct prio_weights *w, const struct prio_cluster *c,
		      const struct prio_job *job, time_t now, struct prio_factors *out)
{
	struct prio_factors f;
	memset(&f, 0, sizeof(f));

	f.age = age_factor(w, job, now);
	f.fairshare = clamp01(job->fairshare);
	f.job_size = size_factor(w, c, job);
	f.partition = (w->flags & PRIO_FLAG_NO_NORMAL_PART)
			      ? job->part_factor : clamp01(ratio(job->part_factor, c->max_part_factor));
	f.qos = (w->flags & PRIO_FLAG_NO_NORMAL_QOS)
			? job->qos_priority : clamp01(ratio(job->qos_priority, c->max_qos_priority));
	f.assoc = (w->flags & PRIO_FLAG_NO_NORMAL_ASSOC)
			  ? job->assoc_priority
			  : clamp01(ratio(job->assoc_priority, c->max_assoc_priority));
	f.w_age = w->age * f.age;
	f.w_fairshare = w->fairshare * f.fairshare;
	f.w_job_size = w->job_size * f.job_size;
	f.w_partition = w->partition * f.partition;
	f.w_qos = w->qos * f.qos;
	f.w_assoc = w->assoc * f.assoc;
	f.nice = job->nice;
	f.site = job->site;

	double sum = (double)f.site + f.w_age + f.w_fairshare + f.w_job_size + f.w_partition +
		     f.w_qos + f.w_assoc;
	for (int t = 0; t < PRIO_TRES_COUNT; t++) {
		if (w->tres[t] <= 0)
			continue;
		f.tres[t] = (w->flags & PRIO_FLAG_NO_NORMAL_TRES)
				    ? job->tres[t] : clamp01(ratio(job->tres[t], job->part_tres[t]));
		f.w_tres[t] = w->tres[t] * f.tres[t];
		sum += f.w_tres[t];
	}
	sum -= (double)job->nice;
	if (out)
		*out = f;
	if (job->held)
		return 0;
	/* As Slurm: truncated; 0 is kept for held jobs. */
	if (!(sum >= 1))
		return 1;
	if (sum >= 4294967294.0)
		return 0xFFFFFFFEu;
	return (uint32_t)sum;
}

void prio_tres_string(const struct prio_weights *w, const struct prio_factors *f, char *buf,
		      size_t len)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	for (int t = 0; t < PRIO_TRES_COUNT && at < len; t++) {
		if (w->tres[t] <= 0)
			continue;
		int n = snprintf(buf + at, len - at, "%s%s=%.0f", at ? "," : "", tres_names[t],
				 f->w_tres[t]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}
